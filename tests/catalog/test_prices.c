/*
 * Prices (prices.h): the built-in data/prices.json loads against the
 * built-in catalog; every rule of the format is enforced with a message
 * that names the file and the JSON path; the look-ups (buy price, cheapest
 * rent, date range) and cr_buy_rank (buy.h): its costs are the arithmetic
 * of buy.h on the estimator's own figures, its order the documented one.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "clefrun/clefrun.h"

static cr_catalog *cat;

static int setup(void **state)
{
	cr_error err = CR_ERROR_INIT;

	(void)state;
	return cr_catalog_load_embedded(&cat, &err);
}

static int teardown(void **state)
{
	(void)state;
	cr_catalog_free(cat);
	return 0;
}

#define HEAD "{\"schema\": 1, \"currency\": \"USD\", \"prices\": ["
#define TAIL "]}"
#define BUY(rig, usd, date) \
	"{\"rig\": \"" rig "\", \"kind\": \"buy\", \"usd\": " usd ", \"date\": \"" date \
	"\", \"what\": \"launch MSRP\", \"source\": \"https://example.org/" rig "\"}"
#define RENT(rig, usd, prov) \
	"{\"rig\": \"" rig "\", \"kind\": \"rent\", \"usd_per_hour\": " usd ", \"provider\": \"" prov \
	"\", \"date\": \"2025-11\", \"what\": \"on-demand\", \"source\": \"https://example.org/r\"}"

static cr_prices *load_ok(const char *text)
{
	cr_prices *p = NULL;
	cr_error err = CR_ERROR_INIT;
	int rc = cr_prices_load_buffer(text, strlen(text), "p.json", cat, &p, &err);

	if (rc)
		fprintf(stderr, "unexpected: %s\n", err.message);
	assert_int_equal(rc, 0);
	assert_non_null(p);
	return p;
}

/* Refused with @p status and exactly @p msg (file, JSON path, why). */
static void load_bad(const char *text, int status, const char *msg)
{
	cr_prices *p = (cr_prices *)&p;
	cr_error err = CR_ERROR_INIT;

	assert_int_equal(cr_prices_load_buffer(text, strlen(text), "p.json", cat, &p, &err), status);
	assert_null(p);
	if (strcmp(err.message, msg) != 0)
		fprintf(stderr, "got:      %s\nexpected: %s\n", err.message, msg);
	assert_string_equal(err.message, msg);
}

static void test_builtin_loads(void **state)
{
	cr_prices *p = NULL;
	cr_error err = CR_ERROR_INIT;

	(void)state;
	assert_int_equal(cr_prices_load_embedded(cat, &p, &err), 0);
	/* Every entry names a catalog rig and a source (the loader's rules). */
	for (size_t i = 0; i < cr_prices_count(p); i++) {
		const cr_price *e = cr_prices_at(p, i);

		assert_non_null(cr_catalog_find_rig(cat, e->rig));
		assert_true(strncmp(e->source, "http", 4) == 0);
		assert_true(e->usd > 0);
	}
	assert_null(cr_prices_at(p, cr_prices_count(p)));
	cr_prices_free(p);
}

static void test_lookups(void **state)
{
	cr_prices *p = load_ok(HEAD BUY("rtx4090", "1599", "2022-10-12") "," RENT("rtx4090", "0.69", "RunPod") ","
				    RENT("rtx4090", "0.39", "Vast.ai") "," RENT("rtx4090", "0.39", "Other") ","
				    BUY("h100-sxm", "25000", "2023-03") TAIL);
	char lo[11], hi[11];
	size_t n = 0;
	const cr_price *r;

	(void)state;
	assert_int_equal(cr_prices_count(p), 5);
	assert_true(cr_prices_buy(p, "rtx4090")->usd == 1599);
	assert_string_equal(cr_prices_buy(p, "rtx4090")->date, "2022-10-12");
	assert_null(cr_prices_buy(p, "rtx3090"));
	r = cr_prices_cheapest_rent(p, "rtx4090", &n);
	assert_int_equal(n, 3);
	/* The cheapest, the earlier entry on a tie. */
	assert_string_equal(r->provider, "Vast.ai");
	assert_null(cr_prices_cheapest_rent(p, "h100-sxm", &n));
	assert_int_equal(n, 0);
	cr_prices_date_range(p, lo, hi);
	assert_string_equal(lo, "2022-10-12");
	assert_string_equal(hi, "2025-11");
	cr_prices_free(p);
}

static void test_empty(void **state)
{
	cr_prices *p = load_ok(HEAD TAIL);
	char lo[11], hi[11];

	(void)state;
	assert_int_equal(cr_prices_count(p), 0);
	cr_prices_date_range(p, lo, hi);
	assert_string_equal(lo, "");
	assert_string_equal(hi, "");
	cr_prices_free(p);
}

static void test_bad(void **state)
{
	(void)state;
	load_bad("[]", CR_ERR_INVALID, "p.json: expected a JSON object at the top level");
	load_bad("{\"schema\": 2, \"currency\": \"USD\", \"prices\": []}", CR_ERR_INVALID,
		 "p.json: schema: expected 1, got 2");
	load_bad("{\"schema\": 1, \"currency\": \"EUR\", \"prices\": []}", CR_ERR_INVALID,
		 "p.json: currency: expected \"USD\", got \"EUR\"");
	load_bad("{\"schema\": 1, \"currency\": \"USD\", \"prices\": [], \"x\": 1}", CR_ERR_INVALID,
		 "p.json: x: unknown field");
	load_bad(HEAD BUY("rtx9999", "1", "2022-10") TAIL, CR_ERR_INVALID,
		 "p.json: prices[0].rig: no rig \"rtx9999\" in the catalog (see 'clefrun rigs')");
	load_bad(HEAD BUY("rtx4090", "0", "2022-10") TAIL, CR_ERR_INVALID,
		 "p.json: prices[0].usd: expected a positive number (0.01 to 1e+08), got 0");
	load_bad(HEAD BUY("rtx4090", "1599", "2022-13") TAIL, CR_ERR_INVALID,
		 "p.json: prices[0].date: no such date \"2022-13\"");
	load_bad(HEAD BUY("rtx4090", "1599", "Oct 2022") TAIL, CR_ERR_INVALID,
		 "p.json: prices[0].date: expected YYYY-MM or YYYY-MM-DD, got \"Oct 2022\"");
	load_bad(HEAD BUY("rtx4090", "1599", "2022-10") "," BUY("rtx4090", "1499", "2023-01") TAIL, CR_ERR_INVALID,
		 "p.json: prices[1].rig: a second buy price of \"rtx4090\" (also prices[0])");
	load_bad(HEAD RENT("rtx4090", "0.5", "RunPod") "," RENT("rtx4090", "0.6", "runpod") TAIL, CR_ERR_INVALID,
		 "p.json: prices[1].provider: a second rent of \"rtx4090\" from runpod (also prices[0])");
	load_bad(HEAD "{\"rig\": \"rtx4090\", \"kind\": \"lease\"}" TAIL, CR_ERR_INVALID,
		 "p.json: prices[0].kind: expected \"buy\" or \"rent\"");
	load_bad(HEAD "{\"rig\": \"rtx4090\", \"kind\": \"buy\", \"usd\": 1, \"provider\": \"X\"}" TAIL,
		 CR_ERR_INVALID, "p.json: prices[0].provider: only a \"rent\" entry has it");
	load_bad(HEAD "{\"rig\": \"rtx4090\", \"kind\": \"rent\", \"usd\": 1}" TAIL, CR_ERR_INVALID,
		 "p.json: prices[0].usd: a \"rent\" entry gives usd_per_hour");
	load_bad(HEAD "{\"rig\": \"rtx4090\", \"kind\": \"buy\", \"usd\": 1, \"date\": \"2022-10\", \"what\": "
		      "\"a\\u001b[31mred\", \"source\": \"https://x\"}" TAIL,
		 CR_ERR_INVALID, "p.json: prices[0].what: byte 0x1b at offset 1: expected printable ASCII");
	load_bad(HEAD "{\"rig\": \"rtx4090\", \"kind\": \"buy\", \"usd\": 1, \"date\": \"2022-10\", \"what\": "
		      "\"x\", \"source\": \"file:///etc/passwd\"}" TAIL,
		 CR_ERR_INVALID, "p.json: prices[0].source: expected an http(s) URL");
	load_bad(HEAD "{\"rig\": \"rtx4090\", \"kind\": \"buy\", \"usd\": 1, \"date\": \"2022-10\", \"what\": "
		      "\"\", \"source\": \"https://x\"}" TAIL,
		 CR_ERR_INVALID, "p.json: prices[0].what: empty string");
	load_bad(HEAD BUY("rtx4090", "1599", "2022-10") TAIL "x", CR_ERR_PARSE,
		 "p.json: invalid JSON at byte 175 (line 1, column 176)");
}

static const cr_quant *q(const char *id)
{
	const cr_quant *r = cr_catalog_find_quant(cat, id);

	assert_non_null(r);
	return r;
}

static const cr_rig *rig(const char *id)
{
	const cr_rig *r = cr_catalog_find_rig(cat, id);

	assert_non_null(r);
	return r;
}

/* Costs follow buy.h from the estimator's figures; order: reaching rows
 * first, cheaper first; unpriced rigs have no row. */
static void test_buy_rank(void **state)
{
	cr_prices *p = load_ok(HEAD BUY("rtx4090", "1599", "2022-10") "," BUY("rtx3060-12", "329", "2021-02") ","
				    BUY("rtx3050-6", "169", "2024-02") "," RENT("h100-sxm", "2.99", "Lambda") ","
				    RENT("rtx4090", "0.69", "RunPod") TAIL);
	const cr_model *m = cr_catalog_find_model(cat, "llama-3.1-8b");
	const cr_quant *quants[] = { q("Q4_K_M"), q("Q8_0") };
	const cr_rig *rigs[] = { rig("rtx4090"), rig("h100-sxm"), rig("rtx3060-12"), rig("rtx3050-6"), rig("rtx3090") };
	cr_estimate_request req = CR_ESTIMATE_REQUEST_INIT;
	cr_buy_row rows[5];
	cr_error err = CR_ERROR_INIT;
	size_t n = 99;

	(void)state;
	assert_non_null(m);
	assert_int_equal(cr_buy_rank(m, quants, 2, rigs, 5, p, &req, CR_TIER_OK, CR_PRICE_BUY, rows, &n, &err), 0);
	assert_int_equal(n, 3);
	for (size_t i = 0; i < n; i++) {
		cr_estimate_setup set;
		cr_best_quant best;

		/* The row is cr_decide_best_quant's choice, its cost the price over it. */
		assert_int_equal(cr_estimate_resolve_opts(m, rows[i].rig, &req, &set, &err), 0);
		assert_int_equal(cr_decide_best_quant(m, quants, 2, rows[i].rig, &set.opts, CR_TIER_OK, &best, &err), 0);
		assert_int_equal(rows[i].quant_index, best.index);
		assert_int_equal(rows[i].reaches, best.outcome == CR_BEST_REACHES);
		if (best.estimate.decode_tokens_per_s > 0)
			assert_true(rows[i].usd_per_tps == rows[i].price->usd / best.estimate.decode_tokens_per_s);
		else
			assert_true(rows[i].usd_per_tps == 0);
		assert_true(rows[i].usd_per_mtok == 0 && rows[i].usd_per_kdecisions == 0);
		assert_int_equal(rows[i].n_offers, 1);
		if (i) {
			/* reaching first; within a group, cheaper first */
			assert_true(rows[i - 1].reaches >= rows[i].reaches);
			if (rows[i - 1].reaches == rows[i].reaches && rows[i].reaches)
				assert_true(rows[i - 1].price->usd <= rows[i].price->usd);
		}
	}
	assert_int_equal(cr_buy_rank(m, quants, 2, rigs, 5, p, &req, CR_TIER_OK, CR_PRICE_RENT, rows, &n, &err), 0);
	assert_int_equal(n, 2);
	for (size_t i = 0; i < n; i++) {
		double tps = rows[i].estimate.decode_tokens_per_s, ttd = rows[i].estimate.time_to_decision_s;

		assert_true(tps > 0 && ttd > 0);
		assert_true(rows[i].usd_per_mtok == rows[i].price->usd / (tps * 3600.0) * 1e6);
		assert_true(rows[i].usd_per_kdecisions == rows[i].price->usd * ttd / 3600.0 * 1000.0);
		assert_true(rows[i].reaches);
	}
	/* Both reach: the cheaper hour first. */
	assert_string_equal(rows[0].rig->id, "rtx4090");
	assert_string_equal(rows[1].rig->id, "h100-sxm");
	assert_string_equal(rows[1].price->provider, "Lambda");

	/* Errors: no candidates, a bad kind, a context above the model's maximum. */
	assert_int_equal(cr_buy_rank(m, quants, 0, rigs, 5, p, &req, CR_TIER_OK, CR_PRICE_BUY, rows, &n, &err),
			 CR_ERR_INVALID);
	assert_int_equal(cr_buy_rank(m, quants, 2, rigs, 5, p, &req, CR_TIER_OK, (cr_price_kind)7, rows, &n, &err),
			 CR_ERR_INVALID);
	req.n_ctx = m->context_max * 2;
	assert_int_equal(cr_buy_rank(m, quants, 2, rigs, 5, p, &req, CR_TIER_OK, CR_PRICE_BUY, rows, &n, &err),
			 CR_ERR_RANGE);
	assert_int_equal(n, 0);
	cr_prices_free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_builtin_loads),
		cmocka_unit_test(test_lookups),
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_bad),
		cmocka_unit_test(test_buy_rank),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
