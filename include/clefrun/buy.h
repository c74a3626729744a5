/**
 * @file buy.h
 * @brief What to buy or rent to run a model: the priced rigs that reach a
 * tier, cheapest first ("clefrun buy", docs/catalog.md "Prices").
 *
 * For every rig that has a price of the wanted kind (prices.h) the model's
 * best quant on it is chosen as cr_decide_best_quant chooses (the highest
 * bits per weight that reaches the tier), and the row gets its costs:
 *
 *   buy   usd_per_tps        = price ÷ decode tokens/s (one sequence)
 *   rent  usd_per_mtok       = usd per hour ÷ (decode tokens/s × 3600) × 10^6
 *         usd_per_kdecisions = usd per hour × time-to-decision s ÷ 3600 × 1000
 *
 * All at one sequence's speed, the estimator's figures: a server decoding
 * several sequences at once divides the cost per token by its aggregate
 * speed-up (plan.h), which these rows do not assume. A figure the estimator
 * does not give (no decode speed: no fit; no time to decision: no FP16
 * TFLOPS figure) leaves its cost 0 (unknown).
 *
 * Order: the rows that reach the tier first, cheaper first (buy: the price;
 * rent: the hourly rent), then faster decode, then the order of @p rigs;
 * then the others, in tier order, then the same rule. Pure like decide.h:
 * no I/O, no allocation; the caller owns the row array.
 */
#ifndef CLEFRUN_BUY_H
#define CLEFRUN_BUY_H

#include <stdbool.h>
#include <stddef.h>

#include "clefrun/catalog.h"
#include "clefrun/decide.h"
#include "clefrun/error.h"
#include "clefrun/estimate.h"
#include "clefrun/prices.h"

#ifdef __cplusplus
extern "C" {
#endif

/** One priced rig. */
typedef struct cr_buy_row {
	const cr_rig *rig;         /**< borrowed from the caller's list */
	const cr_price *price;     /**< buy: the rig's price; rent: its cheapest rent (borrowed) */
	size_t n_offers;           /**< rent: how many rents the rig has; buy: 1 */
	bool reaches;              /**< the chosen quant reaches the required tier */
	size_t quant_index;        /**< into the quants given: the chosen one */
	cr_estimate estimate;      /**< of that quant */
	double usd_per_tps;        /**< buy: price per decode token/s; 0 unknown */
	double usd_per_mtok;       /**< rent: dollars per million generated tokens; 0 unknown */
	double usd_per_kdecisions; /**< rent: dollars per thousand decisions; 0 unknown */
} cr_buy_row;

/**
 * The priced rigs of @p rigs for @p model, ranked (file comment).
 * @param quants   candidates, as cr_decide_best_quant takes them
 * @param req      the estimate's request, resolved per rig as cr_decide_fit does
 *                 (cr_estimate_resolve_opts: flash attention by llama.cpp's rule)
 * @param require  CR_TIER_FAST .. CR_TIER_TIGHT
 * @param kind     CR_PRICE_BUY or CR_PRICE_RENT: which prices to use
 * @param rows     room for @p n_rigs rows
 * @param n_rows   receives the number of rows (rigs with such a price)
 * @return 0; CR_ERR_INVALID for a NULL argument, no candidates or a bad tier;
 *   any error of cr_estimate_resolve_opts (a context above the model's
 *   maximum: CR_ERR_RANGE) or cr_estimate_run, with *n_rows 0.
 */
int cr_buy_rank(const cr_model *model, const cr_quant *const *quants, size_t n_quants,
		const cr_rig *const *rigs, size_t n_rigs, const cr_prices *prices,
		const cr_estimate_request *req, cr_tier require, cr_price_kind kind,
		cr_buy_row *rows, size_t *n_rows, cr_error *err);

#ifdef __cplusplus
}
#endif

#endif
