/*
 * What to buy or rent (include/clefrun/buy.h): the priced rigs that reach a
 * tier, their costs from the estimator's speeds, cheapest first.
 */
#include "clefrun/buy.h"

#include <string.h>

#include "util.h"

/* Seconds in an hour. */
#define HOUR_S 3600.0

/* buy.h's order, without the last rule: the sort below is stable, so rows
 * that compare equal keep the order of the caller's rigs. */
static int row_cmp(const cr_buy_row *a, const cr_buy_row *b)
{
	if (a->reaches != b->reaches)
		return a->reaches ? -1 : 1;
	if (!a->reaches && a->estimate.tier != b->estimate.tier)
		return a->estimate.tier < b->estimate.tier ? -1 : 1;
	if (a->price->usd != b->price->usd)
		return a->price->usd < b->price->usd ? -1 : 1;
	if (a->estimate.decode_tokens_per_s != b->estimate.decode_tokens_per_s)
		return a->estimate.decode_tokens_per_s > b->estimate.decode_tokens_per_s ? -1 : 1;
	return 0;
}

static void costs(cr_buy_row *r, cr_price_kind kind)
{
	double tps = r->estimate.decode_tokens_per_s, ttd = r->estimate.time_to_decision_s;

	if (kind == CR_PRICE_BUY) {
		r->usd_per_tps = tps > 0 ? r->price->usd / tps : 0;
		return;
	}
	r->usd_per_mtok = tps > 0 ? r->price->usd / (tps * HOUR_S) * 1e6 : 0;
	r->usd_per_kdecisions = ttd > 0 ? r->price->usd * ttd / HOUR_S * 1000.0 : 0;
}

int cr_buy_rank(const cr_model *model, const cr_quant *const *quants, size_t n_quants,
		const cr_rig *const *rigs, size_t n_rigs, const cr_prices *prices,
		const cr_estimate_request *req, cr_tier require, cr_price_kind kind,
		cr_buy_row *rows, size_t *n_rows, cr_error *err)
{
	size_t n = 0;

	if (!model || !quants || !n_quants || (!rigs && n_rigs) || !prices || !req || !rows || !n_rows)
		return cr_seterr(err, CR_ERR_INVALID, "cr_buy_rank: NULL argument or no candidate quants");
	if (kind != CR_PRICE_BUY && kind != CR_PRICE_RENT)
		return cr_seterr(err, CR_ERR_INVALID, "cr_buy_rank: bad price kind %d", (int)kind);
	*n_rows = 0;
	for (size_t i = 0; i < n_rigs; i++) {
		cr_buy_row *r = &rows[n];
		cr_best_quant best;
		cr_estimate_setup set;
		size_t offers = 1;
		const cr_price *p = kind == CR_PRICE_BUY ? cr_prices_buy(prices, rigs[i]->id)
							 : cr_prices_cheapest_rent(prices, rigs[i]->id, &offers);
		int rc;

		if (!p)
			continue;
		if ((rc = cr_estimate_resolve_opts(model, rigs[i], req, &set, err)) ||
		    (rc = cr_decide_best_quant(model, quants, n_quants, rigs[i], &set.opts, require, &best, err)))
			return rc;
		memset(r, 0, sizeof(*r));
		r->rig = rigs[i];
		r->price = p;
		r->n_offers = offers;
		r->reaches = best.outcome == CR_BEST_REACHES;
		r->quant_index = best.index;
		r->estimate = best.estimate;
		costs(r, kind);
		n++;
	}
	/* Insertion sort: stable, in place, and O(n^2) over at most a few
	 * hundred priced rigs, which costs nothing next to their estimates. */
	for (size_t i = 1; i < n; i++) {
		cr_buy_row cur = rows[i];
		size_t j = i;

		for (; j > 0 && row_cmp(&rows[j - 1], &cur) > 0; j--)
			rows[j] = rows[j - 1];
		rows[j] = cur;
	}
	*n_rows = n;
	return CR_OK;
}
