/*
 * test_curve: memory against context (curve.h, src/lib/estimate/curve.c).
 *
 * The contexts: log-spaced, multiples of 256 between the ends, strictly
 * increasing, ending at the model's maximum, whatever the count allowed.
 * The memory: every point equals cr_estimate_run's memory at that context
 * (table of models of every attention kind), never decreases with the
 * context, and on the one-GPU rig has the terms a single discrete GPU has
 * (512 MiB runtime, one compute buffer, everything fits). Clef-flash's KV
 * cache at its full 262 144-token context is 8 GiB exactly (8 KV layers x
 * 32 KiB per token x 262 144 / 8, docs/methodology.md).
 */
#include "unit.h"

#include <stdio.h>

#include "catalog_fixture.h"
#include "clefrun/catalog.h"
#include "clefrun/curve.h"
#include "clefrun/estimate.h"

/* The shape every list of contexts must have. Returns false (and prints)
 * on the first violation. */
static bool contexts_ok(const char *row, const uint32_t *c, size_t n, uint32_t lo, uint32_t hi)
{
	if (!n || c[0] != lo || c[n - 1] != hi) {
		print_error("row %s: %zu points, first %u (want %u), last %u (want %u)\n", row, n,
			    n ? c[0] : 0, lo, n ? c[n - 1] : 0, hi);
		return false;
	}
	for (size_t i = 1; i < n; i++) {
		if (c[i] <= c[i - 1] || (i + 1 < n && c[i] % 256 != 0)) {
			print_error("row %s: point %zu = %u after %u\n", row, i, c[i], c[i - 1]);
			return false;
		}
	}
	return true;
}

static void test_contexts(void **state)
{
	static const struct {
		const char *model;
		uint32_t lo;
		unsigned per;
		size_t max;
		uint32_t want_lo;
		size_t want_n; /* 0: not checked */
	} rows[] = {
		/* 512 .. 262144 is 9 doublings, 8 x 9 + 1 candidates; below 4k
		 * several round to the same multiple of 256: 512, then 768 and
		 * 1024; 1280 to 2048 (4); 2304 to 4096 (7); 8 per doubling above. */
		{ "clef-flash", 0, 8, CR_CURVE_MAX_POINTS, 512, 1 + 2 + 4 + 7 + 6 * 8 },
		{ "clef-flash", 0, 1, CR_CURVE_MAX_POINTS, 512, 10 },
		/* A cap keeps the last point the maximum. */
		{ "clef-flash", 0, 8, 5, 512, 5 },
		{ "clef-flash", 0, 8, 1, 512, 1 },
		{ "clef-flash", 8192, 4, CR_CURVE_MAX_POINTS, 8192, 21 },
		/* lo above the maximum: from min(512, max). */
		{ "llama-2-7b", 1u << 20, 8, CR_CURVE_MAX_POINTS, 512, 0 },
		{ "llama-3.1-8b", 0, 16, CR_CURVE_MAX_POINTS, 512, 0 },
		{ "llama-4-scout", 0, 16, CR_CURVE_MAX_POINTS, 512, 0 },
		{ "deepseek-v3", 0, 8, CR_CURVE_MAX_POINTS, 512, 0 },
	};
	uint32_t c[CR_CURVE_MAX_POINTS];
	unsigned bad = 0;

	(void)state;
	for (size_t i = 0; i < UNIT_ARRAY_LEN(rows); i++) {
		const cr_model *m = ts_model(rows[i].model);
		char row[64];
		size_t n = cr_curve_contexts(m, rows[i].lo, rows[i].per, c, rows[i].max);

		snprintf(row, sizeof(row), "%s lo %u per %u max %zu", rows[i].model, rows[i].lo,
			 rows[i].per, rows[i].max);
		if (n > rows[i].max || n > CR_CURVE_MAX_POINTS ||
		    (rows[i].want_n && n != rows[i].want_n)) {
			print_error("row %s: %zu points, want %zu\n", row, n, rows[i].want_n);
			bad++;
			continue;
		}
		if (rows[i].max == 1) {
			bad += !(n == 1 && c[0] == m->context_max);
			continue;
		}
		bad += !contexts_ok(row, c, n, rows[i].want_lo, m->context_max);
	}
	UNIT_TABLE_DONE(bad, UNIT_ARRAY_LEN(rows));
}

static void test_contexts_edges(void **state)
{
	cr_model m = *ts_model("llama-3.1-8b");
	uint32_t c[CR_CURVE_MAX_POINTS];
	size_t n;

	(void)state;
	/* Nothing to write into, or a step count out of range. */
	assert_int_equal(cr_curve_contexts(&m, 0, 8, c, 0), 0);
	assert_int_equal(cr_curve_contexts(&m, 0, 0, c, 16), 0);
	assert_int_equal(cr_curve_contexts(&m, 0, 17, c, 16), 0);
	assert_int_equal(cr_curve_contexts(NULL, 0, 8, c, 16), 0);
	/* A maximum below 512: one point, the maximum. */
	m.context_max = 300;
	n = cr_curve_contexts(&m, 0, 8, c, CR_CURVE_MAX_POINTS);
	assert_int_equal(n, 1);
	assert_int_equal(c[0], 300);
	/* The largest context a model may state still fits the bound. */
	m.context_max = UINT32_MAX;
	n = cr_curve_contexts(&m, 1, 16, c, CR_CURVE_MAX_POINTS);
	assert_true(n > 100 && n <= CR_CURVE_MAX_POINTS);
	assert_int_equal(c[n - 1], UINT32_MAX);
	/* A maximum that is not a multiple of 256 ends the list as it is. */
	m.context_max = 40960 + 100;
	n = cr_curve_contexts(&m, 0, 8, c, CR_CURVE_MAX_POINTS);
	assert_true(contexts_ok("40960+100", c, n, 512, 41060));
}

/* Every point is the estimator's memory at that context. */
/* The single-device figure inspect and report share: the one-GPU rig's
 * estimate, device bytes only, the runtime overhead included. */
static void test_one_gpu_memory(void **state)
{
	cr_estimate_opts o = CR_ESTIMATE_OPTS_INIT;
	cr_memory a, b;
	cr_rig one;
	uint32_t ctx = 8192;
	cr_error err = CR_ERROR_INIT;

	(void)state;
	cr_curve_one_gpu_rig(&one);
	assert_int_equal(cr_curve_one_gpu_memory(ts_model("gemma-3-4b"), ts_quant("Q4_K_M"), &o, &a, &err), CR_OK);
	assert_int_equal(cr_curve_memory(ts_model("gemma-3-4b"), ts_quant("Q4_K_M"), &one, &o, &ctx, 1, &b, &err),
			 CR_OK);
	assert_memory_equal(&a, &b, sizeof(a));
	assert_int_equal(a.total_bytes, a.device_bytes);
	assert_int_equal(a.overhead_bytes, 512u << 20);
	assert_true(a.host_bytes > 0);
	assert_int_equal(a.device_bytes + a.host_bytes,
			 a.weights_bytes + a.kv_bytes + a.state_bytes + a.compute_bytes + a.output_bytes +
				 a.overhead_bytes);
	o.n_ctx = ts_model("gemma-3-4b")->context_max + 1;
	assert_int_equal(cr_curve_one_gpu_memory(ts_model("gemma-3-4b"), ts_quant("Q4_K_M"), &o, &a, &err),
			 CR_ERR_RANGE);
}

/* Exact bytes equal to the preset's size: the same single-device figure and
 * curve (what inspect's GGUF and report's preset columns rest on). */
static void test_one_gpu_weights(void **state)
{
	static const char *const models[] = { "gemma-3-4b", "llama-3.1-8b", "gpt-oss-20b", "qwen3.5-9b" };
	cr_estimate_opts o = CR_ESTIMATE_OPTS_INIT;
	cr_rig one;
	cr_error err = CR_ERROR_INIT;

	(void)state;
	cr_curve_one_gpu_rig(&one);
	for (size_t i = 0; i < sizeof(models) / sizeof(*models); i++) {
		const cr_model *m = ts_model(models[i]);
		cr_weights p, x;
		cr_memory a, b, ca[3], cb[3];
		uint32_t ctx[3] = { 512, 8192, m->context_max };

		cr_weights_preset(ts_quant("Q4_K_M"), &p);
		cr_weights_exact(cr_estimate_weights_size(m, &p), NULL, &x);
		assert_int_equal(cr_curve_one_gpu_memory(m, ts_quant("Q4_K_M"), &o, &a, &err), CR_OK);
		assert_int_equal(cr_curve_one_gpu_weights(m, &x, &o, &b, &err), CR_OK);
		assert_memory_equal(&a, &b, sizeof(a));
		assert_int_equal(b.total_bytes, b.device_bytes);
		assert_int_equal(b.device_weights_bytes,
				 b.device_bytes - b.kv_bytes - b.state_bytes - b.compute_bytes - b.overhead_bytes);
		assert_int_equal(cr_curve_memory(m, ts_quant("Q4_K_M"), &one, &o, ctx, 3, ca, &err), CR_OK);
		assert_int_equal(cr_curve_memory_weights(m, &x, &one, &o, ctx, 3, cb, &err), CR_OK);
		assert_memory_equal(ca, cb, sizeof(ca));
	}
	assert_int_equal(cr_curve_one_gpu_weights(ts_model("gemma-3-4b"), NULL, &o, &(cr_memory){ 0 }, &err),
			 CR_ERR_INVALID);
}

static void test_memory_matches_estimate(void **state)
{
	static const struct {
		const char *model, *quant;
		cr_kv_type kv;
	} rows[] = {
		{ "clef-flash", "Q4_K_M", CR_KV_F16 },      /* hybrid: 8 of 32 layers keep KV */
		{ "llama-3.1-8b", "Q8_0", CR_KV_F16 },      /* full attention */
		{ "gemma-3-27b", "Q4_K_M", CR_KV_Q8_0 },    /* sliding window */
		{ "gpt-oss-20b", "MXFP4", CR_KV_F16 },      /* sliding + MoE */
		{ "deepseek-v3", "Q2_K", CR_KV_F16 },       /* MLA */
		{ "qwen3-0.6b", "F16", CR_KV_Q4_0 },
	};
	cr_rig one, rtx;
	const cr_rig *rigs[2];
	uint32_t c[CR_CURVE_MAX_POINTS];
	cr_memory mem[CR_CURVE_MAX_POINTS];
	unsigned bad = 0;

	(void)state;
	cr_curve_one_gpu_rig(&one);
	rtx = *cr_catalog_find_rig(ts_cat, "2x3090");
	rigs[0] = &one;
	rigs[1] = &rtx;
	for (size_t i = 0; i < UNIT_ARRAY_LEN(rows); i++) {
		const cr_model *m = ts_model(rows[i].model);
		const cr_quant *q = ts_quant(rows[i].quant);
		cr_estimate_opts o = CR_ESTIMATE_OPTS_INIT;
		size_t n = cr_curve_contexts(m, 0, 4, c, CR_CURVE_MAX_POINTS);

		o.type_k = o.type_v = rows[i].kv;
		for (size_t r = 0; r < 2; r++) {
			cr_error err = CR_ERROR_INIT;
			int rc = cr_curve_memory(m, q, rigs[r], &o, c, n, mem, &err);

			if (rc) {
				print_error("row %s on %s: rc %d %s\n", m->id, rigs[r]->id, rc, err.message);
				bad++;
				continue;
			}
			for (size_t k = 0; k < n; k++) {
				cr_estimate e;
				cr_estimate_opts at = o;

				at.n_ctx = c[k];
				if (cr_estimate_run(m, q, rigs[r], &at, &e, &err) ||
				    memcmp(&e.memory, &mem[k], sizeof(e.memory)) != 0 ||
				    (k && mem[k].total_bytes < mem[k - 1].total_bytes)) {
					print_error("row %s on %s: point %zu (context %u): total %llu, estimator %llu\n",
						    m->id, rigs[r]->id, k, c[k],
						    (unsigned long long)mem[k].total_bytes,
						    (unsigned long long)e.memory.total_bytes);
					bad++;
					break;
				}
			}
		}
	}
	UNIT_TABLE_DONE(bad, UNIT_ARRAY_LEN(rows));
}

static void test_one_gpu_rig(void **state)
{
	const cr_model *m = ts_model("clef-flash");
	cr_estimate_opts o = CR_ESTIMATE_OPTS_INIT;
	uint32_t c[2] = { 512, 262144 };
	cr_memory mem[2];
	cr_estimate e;
	cr_error err = CR_ERROR_INIT;
	cr_rig one;

	(void)state;
	cr_curve_one_gpu_rig(&one);
	assert_string_equal(one.id, "one-gpu");
	assert_int_equal(one.n_devices, 1);
	assert_int_equal(one.devices[0].count, 1);
	assert_int_equal(one.devices[0].kind, CR_MEM_DISCRETE);
	assert_int_equal(cr_curve_memory(m, ts_quant("F16"), &one, &o, c, 2, mem, &err), CR_OK);
	/* 8 GiB of KV cache at the full context, 50.25 MiB of state. */
	assert_int_equal(mem[1].kv_bytes, 8ull << 30);
	assert_int_equal(mem[1].state_bytes, 52690944ull);
	/* One GPU: 512 MiB runtime, total = what the GPU holds. */
	assert_int_equal(mem[0].overhead_bytes, 512ull << 20);
	assert_int_equal(mem[1].total_bytes, mem[1].device_bytes);
	/* Even F16 at the full context fits: nothing offloaded, no tier games. */
	o.n_ctx = 262144;
	assert_int_equal(cr_estimate_run(m, ts_quant("F16"), &one, &o, &e, &err), CR_OK);
	assert_true(e.fits);
	assert_int_equal(e.max_context, 262144);
	assert_true(e.offload_fraction == 0);
}

static void test_memory_errors(void **state)
{
	const cr_model *m = ts_model("llama-3.1-8b");
	cr_estimate_opts o = CR_ESTIMATE_OPTS_INIT;
	uint32_t c[3] = { 512, 131072, 131073 };
	cr_memory mem[3];
	cr_error err = CR_ERROR_INIT;
	cr_rig one;

	(void)state;
	cr_curve_one_gpu_rig(&one);
	/* A context above the maximum: the estimator's error, naming the point. */
	assert_int_equal(cr_curve_memory(m, ts_quant("Q4_K_M"), &one, &o, c, 3, mem, &err), CR_ERR_RANGE);
	assert_non_null(strstr(err.message, "curve point 2 (context 131073)"));
	assert_non_null(strstr(err.message, "above llama-3.1-8b's maximum"));
	/* Missing arrays or options. */
	assert_int_equal(cr_curve_memory(m, ts_quant("Q4_K_M"), &one, NULL, c, 3, mem, &err), CR_ERR_INVALID);
	assert_int_equal(cr_curve_memory(m, ts_quant("Q4_K_M"), &one, &o, NULL, 3, mem, &err), CR_ERR_INVALID);
	assert_int_equal(cr_curve_memory(m, ts_quant("Q4_K_M"), &one, &o, c, 3, NULL, &err), CR_ERR_INVALID);
	/* No points: nothing to do. */
	assert_int_equal(cr_curve_memory(m, ts_quant("Q4_K_M"), &one, &o, NULL, 0, NULL, &err), CR_OK);
	/* A missing model is the estimator's error. */
	assert_int_equal(cr_curve_memory(NULL, ts_quant("Q4_K_M"), &one, &o, c, 1, mem, &err), CR_ERR_INVALID);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_contexts),
		cmocka_unit_test(test_contexts_edges),
		cmocka_unit_test(test_memory_matches_estimate),
		cmocka_unit_test(test_one_gpu_memory),
		cmocka_unit_test(test_one_gpu_weights),
		cmocka_unit_test(test_one_gpu_rig),
		cmocka_unit_test(test_memory_errors),
	};

	return cmocka_run_group_tests(tests, ts_catalog_setup, ts_catalog_teardown);
}
