/*
 * cr_decide_best_quant and cr_decide_fit: the choice rule (highest bpw that
 * reaches the tier), its fallbacks, the default candidates and the fit
 * ranking. Expectations are checked against the estimator itself, so the
 * tests follow calibration changes in estimate.c instead of freezing
 * today's numbers.
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

static size_t all_quants(const cr_quant **q)
{
	size_t n = cr_catalog_quant_count(cat);

	for (size_t i = 0; i < n; i++)
		q[i] = cr_catalog_quant_at(cat, i);
	return n;
}

static const cr_model *model(const char *id)
{
	const cr_model *m = cr_catalog_find_model(cat, id);

	assert_non_null(m);
	return m;
}

static const cr_quant *quant(const char *id)
{
	const cr_quant *q = cr_catalog_find_quant(cat, id);

	assert_non_null(q);
	return q;
}

static cr_rig spec_rig(const char *spec)
{
	cr_rig r;
	cr_error err = CR_ERROR_INIT;

	assert_int_equal(cr_rig_parse_spec(spec, &r, &err), CR_OK);
	return r;
}

static cr_tier tier_of(const cr_model *m, const cr_quant *q, const cr_rig *r,
		       const cr_estimate_opts *o)
{
	cr_estimate e;
	cr_error err = CR_ERROR_INIT;

	assert_int_equal(cr_estimate_run(m, q, r, o, &e, &err), CR_OK);
	return e.tier;
}

/* cr_decide_best_quant, which must succeed: the outcome, the index and
 * (when e is not NULL) the estimate of the choice. */
static cr_best_outcome pick(const cr_model *m, const cr_quant *const *q, size_t nq, const cr_rig *r,
			    const cr_estimate_opts *o, cr_tier require, size_t *idx, cr_estimate *e)
{
	cr_best_quant b;
	cr_error err = CR_ERROR_INIT;

	memset(&b, 0xa5, sizeof(b));
	assert_int_equal(cr_decide_best_quant(m, q, nq, r, o, require, &b, &err), CR_OK);
	assert_int_equal(err.status, CR_OK); /* an outcome, not an error */
	assert_true(b.index < nq);
	*idx = b.index;
	if (e)
		*e = b.estimate;
	return b.outcome;
}

/* The choice reaches the tier and no candidate of higher bpw does, over a
 * table of models, rigs and tiers. */
static void test_best_is_highest_bpw_that_reaches(void **state)
{
	static const char *const models[] = { "llama-3.1-8b", "qwen3-32b", "llama-3.1-70b",
		"qwen3-30b-a3b", "gemma-3-27b", "clef-flash" };
	static const char *const rigs[] = { "rtx4090", "rtx3060-12", "m4-max-128",
		"custom:mem_gb=64,bw_gbs=90,backend=cpu", "2x3090", "epyc-ddr4-3200-2x3090" };
	const cr_quant *q[64];
	size_t nq = all_quants(q);
	int checked = 0, misses = 0;

	(void)state;
	for (size_t mi = 0; mi < sizeof(models) / sizeof(*models); mi++) {
		for (size_t ri = 0; ri < sizeof(rigs) / sizeof(*rigs); ri++) {
			const cr_model *m = model(models[mi]);
			cr_rig scratch;
			const cr_rig *r = cr_catalog_find_rig(cat, rigs[ri]);

			if (!r) {
				scratch = spec_rig(rigs[ri]);
				r = &scratch;
			}
			for (int t = CR_TIER_FAST; t <= CR_TIER_TIGHT; t++) {
				cr_estimate_opts o = CR_ESTIMATE_OPTS_INIT;
				cr_estimate e;
				size_t idx = 999;
				cr_best_outcome out = pick(m, q, nq, r, &o, (cr_tier)t, &idx, &e);

				assert_int_equal(e.tier, tier_of(m, q[idx], r, &o));
				if (out == CR_BEST_REACHES) {
					assert_true(e.tier <= (cr_tier)t);
					for (size_t k = 0; k < nq; k++)
						if (q[k]->bpw > q[idx]->bpw)
							assert_true(tier_of(m, q[k], r, &o) > (cr_tier)t);
					checked++;
				} else {
					assert_int_equal(out, e.tier == CR_TIER_NOFIT ? CR_BEST_NOFIT
										      : CR_BEST_CLOSEST);
					misses++;
					for (size_t k = 0; k < nq; k++)
						assert_true(tier_of(m, q[k], r, &o) > (cr_tier)t);
				}
			}
		}
	}
	/* The table must exercise the success path and the misses. */
	assert_true(checked > 20);
	assert_true(misses > 5);
}

/* Equal bpw: the faster decode, then the earlier candidate (BF16 vs F16). */
static void test_tie_takes_earlier(void **state)
{
	const cr_quant *bf16 = cr_catalog_find_quant(cat, "BF16");
	const cr_quant *f16 = cr_catalog_find_quant(cat, "F16");
	const cr_quant *q1[2] = { bf16, f16 }, *q2[2] = { f16, bf16 };
	cr_rig r = spec_rig("custom:mem_gb=80,bw_gbs=3000");
	cr_estimate_opts o = CR_ESTIMATE_OPTS_INIT;
	size_t idx;

	(void)state;
	assert_non_null(bf16);
	assert_non_null(f16);
	assert_true(bf16->bpw == f16->bpw);
	assert_int_equal(pick(model("llama-3.1-8b"), q1, 2, &r, &o, CR_TIER_OK, &idx, NULL),
			 CR_BEST_REACHES);
	assert_int_equal(idx, 0);
	assert_int_equal(pick(model("llama-3.1-8b"), q2, 2, &r, &o, CR_TIER_OK, &idx, NULL),
			 CR_BEST_REACHES);
	assert_int_equal(idx, 0);
}

/* Synthetic presets around one model: the rule in isolation. */
static void test_rule_on_synthetic_quants(void **state)
{
	cr_quant q[4];
	const cr_quant *p[4] = { &q[0], &q[1], &q[2], &q[3] };
	const cr_model *m = model("llama-3.1-8b");
	cr_estimate_opts o = CR_ESTIMATE_OPTS_INIT;
	/* 12 GiB: 16 bpw (15 GiB of weights) does not fit, 8 bpw does. */
	cr_rig r = spec_rig("custom:mem_gb=12,bw_gbs=300");
	cr_estimate e;
	size_t idx;

	(void)state;
	memset(q, 0, sizeof(q));
	for (int i = 0; i < 4; i++)
		snprintf(q[i].id, sizeof(q[i].id), "T%d", i);
	q[0].bpw = 4;
	q[1].bpw = 16;
	q[2].bpw = 8;
	q[3].bpw = 2;
	assert_int_equal(tier_of(m, &q[1], &r, &o), CR_TIER_NOFIT);
	assert_int_equal(pick(m, p, 4, &r, &o, CR_TIER_TIGHT, &idx, &e), CR_BEST_REACHES);
	assert_int_equal(idx, 2); /* 8 bpw: the largest that fits */
	/* Order of candidates does not matter. */
	{
		const cr_quant *rev[4] = { &q[3], &q[2], &q[1], &q[0] };

		assert_int_equal(pick(m, rev, 4, &r, &o, CR_TIER_TIGHT, &idx, &e), CR_BEST_REACHES);
		assert_int_equal(idx, 1);
	}
}

/* No quant reaches: the best the rig can do is reported. */
static void test_fallbacks(void **state)
{
	const cr_quant *q[64];
	size_t nq = all_quants(q), idx = 999, lowest = 0;
	cr_estimate_opts o = CR_ESTIMATE_OPTS_INIT;
	cr_rig tiny = spec_rig("custom:mem_gb=4,bw_gbs=50");
	cr_rig cpu = spec_rig("custom:mem_gb=64,bw_gbs=20,backend=cpu");
	cr_estimate e;

	(void)state;
	for (size_t k = 1; k < nq; k++)
		if (q[k]->bpw < q[lowest]->bpw)
			lowest = k;
	/* Nothing fits: the lowest bpw, tier no-fit. */
	assert_int_equal(pick(model("llama-3.1-70b"), q, nq, &tiny, &o, CR_TIER_TIGHT, &idx, &e),
			 CR_BEST_NOFIT);
	assert_int_equal(idx, lowest);
	assert_int_equal(e.tier, CR_TIER_NOFIT);
	/* Fits but slow on 20 GB/s: asking for fast gives the closest, the
	 * fastest quant of the best tier reached, not its highest bpw. */
	assert_int_equal(pick(model("llama-3.1-8b"), q, nq, &cpu, &o, CR_TIER_FAST, &idx, &e),
			 CR_BEST_CLOSEST);
	assert_int_not_equal(e.tier, CR_TIER_NOFIT);
	for (size_t k = 0; k < nq; k++) {
		cr_tier t = tier_of(model("llama-3.1-8b"), q[k], &cpu, &o);
		cr_estimate ek;

		assert_true(t >= e.tier);
		if (t != e.tier)
			continue;
		assert_int_equal(cr_estimate_run(model("llama-3.1-8b"), q[k], &cpu, &o, &ek, NULL), CR_OK);
		assert_true(ek.decode_tokens_per_s <= e.decode_tokens_per_s);
	}
}

/* The case: llama-3.1-70b on a 4090 with 64 GB of RAM reaches no
 * "ok"; the fallback is Q2_K-sized and fast, not Q8_0 at a crawl. */
static void test_fallback_fastest_partial_offload(void **state)
{
	const cr_quant *all[64], *q[64];
	size_t na = all_quants(all), nq = 0, idx = 999, hi = 0;
	cr_estimate_opts o = CR_ESTIMATE_OPTS_INIT;
	cr_rig r = spec_rig("custom:mem_gb=24,bw_gbs=1008,tflops=165,ram_gb=64,ram_bw_gbs=89.6");
	cr_estimate e, eh;

	(void)state;
	/* From Q2_K up (IQ2_M alone would reach ok here). */
	for (size_t k = 0; k < na; k++)
		if (all[k]->bpw >= 3.0)
			q[nq++] = all[k];
	assert_int_equal(pick(model("llama-3.1-70b"), q, nq, &r, &o, CR_TIER_OK, &idx, &e),
			 CR_BEST_CLOSEST);
	for (size_t k = 0; k < nq; k++) {
		cr_estimate ek;

		assert_int_equal(cr_estimate_run(model("llama-3.1-70b"), q[k], &r, &o, &ek, NULL), CR_OK);
		if (ek.tier == e.tier)
			assert_true(ek.decode_tokens_per_s <= e.decode_tokens_per_s);
		if (ek.tier == e.tier && q[k]->bpw > q[hi]->bpw)
			hi = k;
	}
	assert_int_equal(cr_estimate_run(model("llama-3.1-70b"), q[hi], &r, &o, &eh, NULL), CR_OK);
	assert_string_equal(q[idx]->id, "Q2_K");
	assert_string_equal(q[hi]->id, "Q8_0");
	/* About 4.3 against 0.9 t/s with the 2026-12 constants: Q8_0 keeps
	 * most of its 70 GB in RAM. */
	assert_true(e.decode_tokens_per_s > 4 * eh.decode_tokens_per_s);
}

/* gpt-oss on a 4090: the native MXFP4 file, not an upcast. F16 (13.8 GB)
 * adds bytes over the MXFP4 file (12.1 GB) and no quality; Q8_0 is the same
 * file and comes later in the catalog. It once chose Q8_0 sized 22 GB. */
static void test_native_quant_best(void **state)
{
	const cr_quant *q[64], *cand[64];
	size_t nq = all_quants(q), nc = 0, idx = 999;
	cr_estimate_opts o = CR_ESTIMATE_OPTS_INIT;
	const cr_rig *r = cr_catalog_find_rig(cat, "rtx4090");
	const cr_model *m = model("gpt-oss-20b");
	cr_estimate e;

	(void)state;
	for (size_t k = 0; k < nq; k++)
		if (cr_decide_default_candidate(m, q[k]))
			cand[nc++] = q[k];
	assert_int_equal(pick(m, cand, nc, r, &o, CR_TIER_OK, &idx, &e), CR_BEST_REACHES);
	assert_string_equal(cand[idx]->id, "MXFP4");
	assert_true(e.memory.weights_bytes < 12500000000ull);
	/* Without the native preset: Q8_0 (same bytes) over F16 and BF16. */
	{
		const cr_quant *three[3] = { quant("F16"), quant("Q8_0"), quant("BF16") };

		assert_int_equal(pick(m, three, 3, r, &o, CR_TIER_OK, &idx, &e), CR_BEST_REACHES);
		assert_string_equal(three[idx]->id, "Q8_0");
	}
	/* Below the cap the files' order holds: Q6_K over Q4_K_M. */
	{
		const cr_quant *two[2] = { quant("Q4_K_M"), quant("Q6_K") };

		assert_int_equal(pick(m, two, 2, r, &o, CR_TIER_OK, &idx, &e), CR_BEST_REACHES);
		assert_string_equal(two[idx]->id, "Q6_K");
	}
	/* A dense model still takes the highest bpw that fits: BF16 for an 8B. */
	assert_int_equal(pick(model("llama-3.1-8b"), cand, nc, r, &o, CR_TIER_OK, &idx, &e),
			 CR_BEST_REACHES);
	assert_true(cand[idx]->bpw == 16.0);
}

/* --workload decide on a rig without an FP16 figure: tier unknown, which
 * reaches no tier, and the fallback is the highest bpw that fits (no speed
 * to be close by). */
static void test_decide_unknown(void **state)
{
	const cr_quant *q[64];
	size_t nq = all_quants(q), idx = 999;
	cr_estimate_opts o = CR_ESTIMATE_OPTS_INIT;
	cr_rig none = spec_rig("custom:mem_gb=24,bw_gbs=1008");
	cr_rig known = spec_rig("custom:mem_gb=24,bw_gbs=1008,tflops=165");
	cr_estimate e;

	(void)state;
	o.workload = CR_WORKLOAD_DECIDE;
	assert_int_equal(tier_of(model("llama-3.1-8b"), quant("Q4_K_M"), &none, &o), CR_TIER_UNKNOWN);
	assert_int_not_equal(tier_of(model("llama-3.1-8b"), quant("Q4_K_M"), &known, &o),
			     CR_TIER_UNKNOWN);
	for (int t = CR_TIER_FAST; t <= CR_TIER_TIGHT; t++)
		assert_int_equal(pick(model("llama-3.1-8b"), q, nq, &none, &o, (cr_tier)t, &idx, &e),
				 CR_BEST_CLOSEST);
	assert_int_equal(e.tier, CR_TIER_UNKNOWN);
	assert_true(q[idx]->bpw >= 16.0); /* BF16/F16 fit in 24 GiB with headroom */
	/* Chat on the same rig still tiers by decode. */
	o.workload = CR_WORKLOAD_CHAT;
	assert_int_equal(tier_of(model("llama-3.1-8b"), quant("Q4_K_M"), &none, &o), CR_TIER_FAST);
}

static void test_invalid(void **state)
{
	const cr_quant *q[64];
	size_t nq = all_quants(q);
	cr_estimate_opts o = CR_ESTIMATE_OPTS_INIT;
	const cr_rig *r = cr_catalog_find_rig(cat, "rtx4090");
	cr_error err = CR_ERROR_INIT;
	cr_best_quant b;

	(void)state;
	memset(&b, 0, sizeof(b));
	b.index = 7;
	assert_int_equal(cr_decide_best_quant(model("llama-3.1-8b"), q, 0, r, &o, CR_TIER_OK, &b, &err),
			 CR_ERR_INVALID);
	assert_int_equal(cr_decide_best_quant(model("llama-3.1-8b"), q, nq, r, &o, CR_TIER_NOFIT, &b,
					      &err), CR_ERR_INVALID);
	assert_int_equal(cr_decide_best_quant(model("llama-3.1-8b"), q, nq, r, &o, CR_TIER_OK, NULL,
					      &err), CR_ERR_INVALID);
	/* The estimator's own errors pass through, the output untouched. */
	o.n_ctx = 1u << 20;
	assert_int_equal(cr_decide_best_quant(model("llama-2-7b"), q, nq, r, &o, CR_TIER_OK, &b, &err),
			 CR_ERR_RANGE);
	assert_int_equal(b.index, 7);
}

static void test_default_candidates(void **state)
{
	const cr_model *dense = model("llama-3.1-8b"), *moe = model("gpt-oss-20b");

	(void)state;
	assert_true(moe->experts_total > 0);
	for (size_t i = 0; i < cr_catalog_quant_count(cat); i++) {
		const cr_quant *q = cr_catalog_quant_at(cat, i);
		bool legacy = !strcmp(q->base_type, "Q4_0") || !strcmp(q->base_type, "Q4_1") ||
			      !strcmp(q->base_type, "Q5_0") || !strcmp(q->base_type, "Q5_1");
		bool mxfp4 = !strcmp(q->base_type, "MXFP4");

		assert_int_equal(cr_decide_default_candidate(dense, q), !legacy && !mxfp4);
		assert_int_equal(cr_decide_default_candidate(moe, q), !legacy);
	}
	assert_false(cr_decide_default_candidate(NULL, cr_catalog_quant_at(cat, 0)));
}

static cr_fit_row fake_row(cr_model *m, const char *id, uint64_t params, cr_quant *q,
			   double bpw, double tps, cr_fit_status st)
{
	cr_fit_row r;

	memset(&r, 0, sizeof(r));
	memset(m, 0, sizeof(*m));
	memset(q, 0, sizeof(*q));
	snprintf(m->id, sizeof(m->id), "%s", id);
	m->params = params;
	q->bpw = bpw;
	r.model = m;
	r.quant = q;
	r.status = st;
	r.estimate.decode_tokens_per_s = tps;
	r.estimate.tier = st == CR_FIT_REACHES ? CR_TIER_FAST : CR_TIER_SLOW;
	return r;
}

/* The documented order, key by key. */
static void test_compare_keys(void **state)
{
	cr_model m[8];
	cr_quant q[8];
	cr_fit_row big = fake_row(&m[0], "b", 70, &q[0], 3, 5, CR_FIT_REACHES);
	cr_fit_row small = fake_row(&m[1], "a", 8, &q[1], 16, 90, CR_FIT_REACHES);
	cr_fit_row hi_bpw = fake_row(&m[2], "z", 8, &q[2], 8, 10, CR_FIT_REACHES);
	cr_fit_row lo_bpw = fake_row(&m[3], "y", 8, &q[3], 4, 50, CR_FIT_REACHES);
	cr_fit_row fast = fake_row(&m[4], "x", 8, &q[4], 4, 60, CR_FIT_REACHES);
	cr_fit_row id_a = fake_row(&m[5], "aa", 8, &q[5], 4, 60, CR_FIT_REACHES);
	cr_fit_row miss = fake_row(&m[6], "c", 900, &q[6], 16, 100, CR_FIT_BELOW);
	cr_fit_row ctx = fake_row(&m[7], "d", 900, &q[7], 16, 100, CR_FIT_CONTEXT);

	(void)state;
	assert_true(cr_decide_fit_compare(&big, &small) < 0);    /* params first */
	assert_true(cr_decide_fit_compare(&small, &hi_bpw) < 0); /* then bpw */
	assert_true(cr_decide_fit_compare(&hi_bpw, &lo_bpw) < 0);
	assert_true(cr_decide_fit_compare(&fast, &lo_bpw) < 0);  /* then speed */
	assert_true(cr_decide_fit_compare(&id_a, &fast) < 0);    /* then id */
	assert_true(cr_decide_fit_compare(&fast, &id_a) > 0);
	assert_int_equal(cr_decide_fit_compare(&fast, &fast), 0);
	assert_true(cr_decide_fit_compare(&small, &miss) < 0);   /* reaching rows first */
	assert_true(cr_decide_fit_compare(&miss, &ctx) < 0);     /* context rows last */
}

static void check_ranked(const cr_fit_row *rows, size_t n, size_t n_reach)
{
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(rows[i].status == CR_FIT_REACHES, i < n_reach);
		if (i)
			assert_true(cr_decide_fit_compare(&rows[i - 1], &rows[i]) < 0);
	}
}

static void test_fit_ranking(void **state)
{
	const cr_quant *q[64];
	size_t nm = cr_catalog_model_count(cat), nq = all_quants(q), n_reach = 0;
	/* On the heap: the catalog grows past any fixed bound. */
	const cr_model **models = calloc(nm, sizeof(*models));
	cr_fit_row *rows = calloc(nm, sizeof(*rows));
	cr_fit_opts fo = CR_FIT_OPTS_INIT;
	cr_error err = CR_ERROR_INIT;
	const cr_rig *r = cr_catalog_find_rig(cat, "rtx4090");

	(void)state;
	assert_non_null(models);
	assert_non_null(rows);
	for (size_t i = 0; i < nm; i++)
		models[i] = cr_catalog_model_at(cat, i);
	assert_int_equal(cr_decide_fit(models, nm, q, nq, r, &fo, rows, &n_reach, &err), CR_OK);
	assert_true(n_reach > 5 && n_reach < nm);
	check_ranked(rows, nm, n_reach);
	for (size_t i = 0; i < nm; i++) {
		cr_estimate_opts o = fo.estimate;
		const cr_fit_row *row = &rows[i];

		assert_true(row->quant == q[row->quant_index]);
		/* Default candidates only. */
		assert_true(cr_decide_default_candidate(row->model, row->quant));
		o.n_ctx = row->model->context_max < CR_DEFAULT_CTX ? row->model->context_max
								    : CR_DEFAULT_CTX;
		assert_int_equal(row->context, o.n_ctx);
		/* Flash attention resolved per model, as cr_estimate_resolve_opts says. */
		assert_non_null(strstr(row->flash_attn_reason, "flash attention"));
		assert_int_equal(row->estimate.flash_attn, strstr(row->flash_attn_reason, " on") != NULL);
		assert_int_equal(row->estimate.tier, tier_of(row->model, row->quant, r, &o));
		if (row->status == CR_FIT_REACHES)
			assert_true(row->estimate.tier <= CR_TIER_OK);
		else
			assert_true(row->estimate.tier > CR_TIER_OK);
	}
	/* The biggest models cannot reach "ok" on one 24 GiB card. */
	assert_true(rows[0].model->params < model("llama-3.1-70b")->params);
	free(rows);
	free(models);
}

static void test_fit_context_and_options(void **state)
{
	const cr_model *models[3] = { model("llama-2-7b"), model("llama-3.1-8b"), model("qwen3-8b") };
	const cr_quant *q[64];
	cr_fit_row rows[3];
	size_t nq = all_quants(q), n_reach = 9;
	cr_fit_opts fo = CR_FIT_OPTS_INIT;
	cr_error err = CR_ERROR_INIT;
	const cr_rig *r = cr_catalog_find_rig(cat, "rtx4090");

	(void)state;
	/* 100k tokens: llama-2-7b (4k) and qwen3-8b (40k) are out, llama-3.1-8b stays. */
	fo.n_ctx = 100000;
	fo.require = CR_TIER_TIGHT;
	assert_int_equal(cr_decide_fit(models, 3, q, nq, r, &fo, rows, &n_reach, &err), CR_OK);
	assert_int_equal(n_reach, 1);
	assert_string_equal(rows[0].model->id, "llama-3.1-8b");
	assert_int_equal(rows[0].context, 100000);
	assert_int_equal(rows[1].status, CR_FIT_CONTEXT);
	assert_int_equal(rows[2].status, CR_FIT_CONTEXT);
	assert_null(rows[1].quant);
	/* qwen3-8b is larger than llama-2-7b: context rows are ranked too. */
	assert_string_equal(rows[1].model->id, "qwen3-8b");
	check_ranked(rows, 3, n_reach);

	/* all_quants: the legacy types become eligible. */
	{
		const cr_quant *legacy[2] = { cr_catalog_find_quant(cat, "Q4_1"),
			cr_catalog_find_quant(cat, "Q4_K_M") };

		fo = (cr_fit_opts)CR_FIT_OPTS_INIT;
		assert_int_equal(cr_decide_fit(models + 1, 1, legacy, 2, r, &fo, rows, &n_reach, &err),
				 CR_OK);
		assert_string_equal(rows[0].quant->id, "Q4_K_M");
		fo.all_quants = true;
		assert_int_equal(cr_decide_fit(models + 1, 1, legacy, 2, r, &fo, rows, &n_reach, &err),
				 CR_OK);
		assert_string_equal(rows[0].quant->id, "Q4_1");
		assert_int_equal(rows[0].quant_index, 0);
		/* Only legacy candidates and no all_quants: an error, not a silent empty row. */
		fo.all_quants = false;
		assert_int_equal(cr_decide_fit(models + 1, 1, legacy, 1, r, &fo, rows, &n_reach, &err),
				 CR_ERR_INVALID);
	}
	/* Bad options. */
	fo = (cr_fit_opts)CR_FIT_OPTS_INIT;
	fo.require = CR_TIER_NOFIT;
	assert_int_equal(cr_decide_fit(models, 3, q, nq, r, &fo, rows, &n_reach, &err),
			 CR_ERR_INVALID);
	fo.require = CR_TIER_OK;
	assert_int_equal(cr_decide_fit(models, 3, q, 0, r, &fo, rows, &n_reach, &err),
			 CR_ERR_INVALID);
	assert_string_equal(cr_fit_status_name(CR_FIT_REACHES), "reaches");
	assert_string_equal(cr_fit_status_name(CR_FIT_BELOW), "below");
	assert_string_equal(cr_fit_status_name(CR_FIT_CONTEXT), "context");
}

/* The seed pages' groups, from every tier; the order of the groups is the
 * order a device list prints them in. */
static void test_groups(void **state)
{
	static const struct {
		cr_tier tier;
		cr_fit_group group;
		const char *name, *title;
	} cases[] = {
		{ CR_TIER_FAST, CR_GROUP_RUNS_WELL, "runs_well", "Runs well" },
		{ CR_TIER_OK, CR_GROUP_RUNS_WELL, "runs_well", "Runs well" },
		{ CR_TIER_SLOW, CR_GROUP_SLOW, "slow", "Fits but slow" },
		{ CR_TIER_TIGHT, CR_GROUP_TIGHT, "tight", "Tight" },
		{ CR_TIER_UNKNOWN, CR_GROUP_UNKNOWN, "unknown", "Fits, speed unknown" },
		{ CR_TIER_NOFIT, CR_GROUP_NOFIT, "nofit", "Does not fit" },
		{ CR_TIER_COUNT, CR_GROUP_NOFIT, "nofit", "Does not fit" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		cr_fit_group g = cr_decide_group(cases[i].tier);

		assert_int_equal(g, cases[i].group);
		assert_string_equal(cr_fit_group_name(g), cases[i].name);
		assert_string_equal(cr_fit_group_title(g), cases[i].title);
	}
	assert_true(CR_GROUP_RUNS_WELL < CR_GROUP_SLOW && CR_GROUP_SLOW < CR_GROUP_TIGHT &&
		    CR_GROUP_TIGHT < CR_GROUP_UNKNOWN && CR_GROUP_UNKNOWN < CR_GROUP_NOFIT);
	assert_string_equal(cr_fit_group_name(CR_GROUP_COUNT), "?");
	assert_string_equal(cr_fit_group_title(CR_GROUP_COUNT), "?");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_best_is_highest_bpw_that_reaches),
		cmocka_unit_test(test_tie_takes_earlier),
		cmocka_unit_test(test_rule_on_synthetic_quants),
		cmocka_unit_test(test_fallbacks),
		cmocka_unit_test(test_fallback_fastest_partial_offload),
		cmocka_unit_test(test_decide_unknown),
		cmocka_unit_test(test_native_quant_best),
		cmocka_unit_test(test_invalid),
		cmocka_unit_test(test_default_candidates),
		cmocka_unit_test(test_compare_keys),
		cmocka_unit_test(test_fit_ranking),
		cmocka_unit_test(test_fit_context_and_options),
		cmocka_unit_test(test_groups),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
