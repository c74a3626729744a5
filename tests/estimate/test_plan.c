/*
 * test_plan: several sequences decoded at once (plan.h, src/lib/estimate/plan.c).
 *
 * Relations only, never figures of the single-sequence model, so that these
 * hold whatever that model becomes: one sequence is exactly the
 * single-sequence estimate; aggregate decode never falls as sequences are
 * added and per-sequence decode never rises; a dense model has no expert
 * term and a MoE one has; the saturation count is where the doubling gain
 * first drops below 5 %; batched decisions are at least as many per second
 * as one at a time. Table of models of every kind on rigs of every kind.
 */
#include "unit.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "catalog_fixture.h"
#include "clefrun/catalog.h"
#include "clefrun/estimate.h"
#include "clefrun/plan.h"

static const struct {
	const char *model, *quant, *rig;
	bool moe;
} cases[] = {
	{ "llama-3.1-8b", "Q4_K_M", "rtx4090", false },
	{ "qwen2.5-coder-7b", "Q8_0", "dgx-spark", false },
	{ "gemma-3-4b", "Q4_0", "m2-ultra-192", false },  /* sliding-window layers */
	{ "gpt-oss-20b", "MXFP4", "dgx-spark", true },
	{ "qwen3-30b-a3b", "Q4_K_M", "rtx4090", true },
	{ "clef-flash", "Q4_K_M", "rtx3090", false },      /* hybrid linear attention */
};

/* Room for the catalog's quant presets (21 today). */
#define CR_CATALOG_MAX_QUANTS_TEST 64

static const uint32_t counts[] = { 1, 2, 4, 8, 16, 32 };
#define NC (sizeof(counts) / sizeof(counts[0]))

static void test_relations(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const cr_model *m = ts_model(cases[i].model);
		const cr_rig *r = cr_catalog_find_rig(ts_cat, cases[i].rig);
		cr_estimate_opts o = CR_ESTIMATE_OPTS_INIT;
		cr_parallel_point pts[NC];
		cr_estimate single;
		cr_weights w;
		cr_error err = CR_ERROR_INIT;

		assert_non_null(r);
		cr_weights_preset(ts_quant(cases[i].quant), &w);
		o.n_ctx = 32768;
		o.depth = 512;
		o.prompt_tokens = 512;
		assert_int_equal(cr_plan_parallel(m, &w, r, &o, counts, NC, pts, &err), CR_OK);
		assert_int_equal(cr_estimate_run_weights(m, &w, r, &o, &single, &err), CR_OK);
		/* N = 1 is the single-sequence estimate, exactly. */
		assert_true(single.decode_tokens_per_s > 0);
		assert_true(pts[0].per_seq_tokens_per_s == single.decode_tokens_per_s);
		assert_true(pts[0].aggregate_tokens_per_s == single.decode_tokens_per_s);
		assert_true(pts[0].estimate.memory.total_bytes == single.memory.total_bytes);
		assert_true(pts[0].parts.expert_union == 1.0);
		/* The parts add up to the single step. */
		assert_true(pts[0].parts.fixed_s + pts[0].parts.weights_s + pts[0].parts.kv_s <=
			    pts[0].parts.single_s * (1 + 1e-9));
		assert_true(pts[0].parts.kv_s > 0);
		assert_true(pts[0].parts.weights_s > 0);
		for (size_t k = 1; k < NC; k++) {
			const cr_parallel_point *a = &pts[k - 1], *b = &pts[k];

			if (!(b->aggregate_tokens_per_s > a->aggregate_tokens_per_s) ||
			    !(b->per_seq_tokens_per_s <= a->per_seq_tokens_per_s) ||
			    !(b->per_seq_tokens_per_s <= single.decode_tokens_per_s))
				print_error("%s on %s: N=%u agg %.2f per-seq %.2f after N=%u agg %.2f per-seq %.2f\n",
					    cases[i].model, cases[i].rig, b->n_seq, b->aggregate_tokens_per_s,
					    b->per_seq_tokens_per_s, a->n_seq, a->aggregate_tokens_per_s,
					    a->per_seq_tokens_per_s);
			assert_true(b->aggregate_tokens_per_s > a->aggregate_tokens_per_s);
			assert_true(b->per_seq_tokens_per_s <= a->per_seq_tokens_per_s);
			assert_true(b->step_s >= a->step_s);
			assert_int_equal(b->n_seq, counts[k]);
			assert_int_equal(b->context_per_seq, o.n_ctx / counts[k]);
			/* Aggregate is N x per-sequence. */
			assert_true(b->aggregate_tokens_per_s > b->per_seq_tokens_per_s * b->n_seq * (1 - 1e-12));
			assert_true(b->aggregate_tokens_per_s < b->per_seq_tokens_per_s * b->n_seq * (1 + 1e-12));
			/* MoE: N tokens touch more experts; dense: none. */
			if (cases[i].moe) {
				assert_true(b->parts.expert_share > 0 && b->parts.expert_share < 1);
				assert_true(b->parts.expert_union > a->parts.expert_union);
			} else {
				assert_true(b->parts.expert_share == 0);
			}
			/* Batched decisions: never fewer per second than one prompt at a time. */
			if (pts[0].decisions_per_s > 0)
				assert_true(b->decisions_per_s >= pts[0].decisions_per_s * (1 - 1e-9));
			/* Latency of one decision grows with the load. */
			assert_true(b->decision_latency_s >= a->decision_latency_s);
		}
	}
}

static void test_saturation(void **state)
{
	const cr_model *m = ts_model("llama-3.1-8b");
	const cr_rig *r = cr_catalog_find_rig(ts_cat, "rtx4090");
	cr_estimate_opts o = CR_ESTIMATE_OPTS_INIT;
	cr_error err = CR_ERROR_INIT;
	cr_weights w;
	uint32_t sat = 7;

	(void)state;
	cr_weights_preset(ts_quant("Q4_K_M"), &w);
	o.n_ctx = 131072;
	o.depth = 256; /* within every share up to 512 sequences: a fixed per-sequence cache */
	assert_int_equal(cr_plan_saturation(m, &w, r, &o, &sat, &err), CR_OK);
	/* The definition: the doubling from sat gains < 5 %, every earlier one >= 5 %. */
	if (sat) {
		uint32_t c[CR_PLAN_MAX_POINTS];
		cr_parallel_point pts[CR_PLAN_MAX_POINTS];
		size_t n = 0;

		for (uint32_t k = 1; k <= 2 * sat; k *= 2)
			c[n++] = k;
		assert_int_equal(cr_plan_parallel(m, &w, r, &o, c, n, pts, &err), CR_OK);
		assert_true(pts[n - 1].aggregate_tokens_per_s <
			    pts[n - 2].aggregate_tokens_per_s * (1 + CR_PLAN_SATURATION_GAIN));
		for (size_t k = 1; k + 1 < n; k++)
			assert_true(pts[k].aggregate_tokens_per_s >=
				    pts[k - 1].aggregate_tokens_per_s * (1 + CR_PLAN_SATURATION_GAIN));
	} else {
		print_error("no saturation found up to %u sequences\n", CR_PLAN_SATURATION_MAX);
		fail();
	}
	/* A context of one padded stream: no doubling to try. */
	o.n_ctx = 256;
	o.depth = 0;
	assert_int_equal(cr_plan_saturation(m, &w, r, &o, &sat, &err), CR_OK);
	assert_int_equal(sat, 0);
}

static void test_errors(void **state)
{
	const cr_model *m = ts_model("llama-3.1-8b");
	const cr_rig *r = cr_catalog_find_rig(ts_cat, "rtx4090");
	cr_estimate_opts o = CR_ESTIMATE_OPTS_INIT;
	cr_parallel_point pts[2];
	cr_error err = CR_ERROR_INIT;
	uint32_t bad[] = { 1, 0 }, big[] = { 4097 }, sat;
	cr_weights w;

	(void)state;
	cr_weights_preset(ts_quant("Q4_K_M"), &w);
	assert_int_equal(cr_plan_parallel(m, &w, r, &o, bad, 2, pts, &err), CR_ERR_INVALID);
	assert_non_null(strstr(err.message, "not 0"));
	assert_int_equal(cr_plan_parallel(m, &w, r, &o, big, 1, pts, &err), CR_ERR_INVALID);
	assert_int_equal(cr_plan_parallel(m, &w, r, &o, bad, 0, pts, &err), CR_ERR_INVALID);
	assert_int_equal(cr_plan_parallel(m, &w, r, &o, bad, CR_PLAN_MAX_POINTS + 1, pts, &err), CR_ERR_INVALID);
	assert_int_equal(cr_plan_parallel(NULL, &w, r, &o, bad, 1, pts, &err), CR_ERR_INVALID);
	assert_int_equal(cr_plan_saturation(m, &w, r, &o, NULL, &err), CR_ERR_INVALID);
	assert_int_equal(cr_plan_saturation(m, NULL, r, &o, &sat, &err), CR_ERR_INVALID);
	/* More sequences than tokens of context: none for each. */
	{
		uint32_t many[] = { 4096 };

		o.n_ctx = 2048;
		assert_int_equal(cr_plan_parallel(m, &w, r, &o, many, 1, pts, &err), CR_ERR_RANGE);
		assert_non_null(strstr(err.message, "leaves each none"));
	}
	/* The estimator's own errors pass through. */
	o.n_ctx = 1u << 30;
	assert_int_equal(cr_plan_parallel(m, &w, r, &o, bad, 1, pts, &err), CR_ERR_RANGE);
}

/* --n-cpu-moe: 0 is no offload, all layers is --cpu-moe; VRAM never grows and
 * system RAM never shrinks as layers' experts move; the recommended point is
 * the first that fits. -ngl likewise, counted down. */
static void test_sweeps(void **state)
{
	static const char *const rigs[] = { "epyc-ddr4-3200-2x3090", "custom" };
	cr_rig custom;
	cr_error err = CR_ERROR_INIT;

	(void)state;
	/* One 24 GiB GPU and 128 GiB of RAM, built as the catalog's rig records are. */
	custom = *cr_catalog_find_rig(ts_cat, "epyc-ddr4-3200-2x3090");
	for (unsigned g = 0; g < custom.n_devices; g++)
		if (custom.devices[g].kind != CR_MEM_SYSTEM)
			custom.devices[g].count = 1;
	for (size_t ri = 0; ri < 2; ri++) {
		const cr_rig *r = ri ? &custom : cr_catalog_find_rig(ts_cat, rigs[ri]);
		static const struct {
			const char *model, *quant;
			cr_sweep_kind kind;
		} rows[] = {
			{ "gpt-oss-120b", "MXFP4", CR_SWEEP_CPU_MOE },
			{ "qwen3-30b-a3b", "Q4_K_M", CR_SWEEP_CPU_MOE },
			{ "llama-3.1-70b", "Q4_K_M", CR_SWEEP_GPU_LAYERS },
			{ "gpt-oss-120b", "MXFP4", CR_SWEEP_GPU_LAYERS },
		};

		for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
			const cr_model *m = ts_model(rows[i].model);
			static cr_sweep_point pts[CR_PLAN_SWEEP_MAX];
			cr_estimate_opts o = CR_ESTIMATE_OPTS_INIT;
			cr_estimate all;
			cr_weights w;
			size_t n, rec;

			cr_weights_preset(ts_quant(rows[i].quant), &w);
			o.n_ctx = 32768;
			assert_int_equal(cr_plan_sweep(m, &w, r, &o, rows[i].kind, pts, CR_PLAN_SWEEP_MAX, &n, &rec,
						       &err), CR_OK);
			/* n_cpu_moe 0 .. n_layers; -ngl n_layers + 1 (every slot, the
			 * output layer's counted) down to 0. */
			assert_int_equal(n, m->n_layers + (rows[i].kind == CR_SWEEP_CPU_MOE ? 1 : 2));
			for (size_t k = 0; k < n; k++) {
				assert_int_equal(pts[k].value, rows[i].kind == CR_SWEEP_CPU_MOE ? k : m->n_layers + 1 - k);
				/* Nothing before the recommended point fits; it does. */
				if (rec == SIZE_MAX || k < rec)
					assert_false(pts[k].estimate.fits);
				else if (k == rec)
					assert_true(pts[k].estimate.fits);
				if (k && !(pts[k].estimate.memory.device_bytes <= pts[k - 1].estimate.memory.device_bytes)) {
					print_error("%s sweep %d: VRAM %llu at %u after %llu\n", rows[i].model, rows[i].kind,
						    (unsigned long long)pts[k].estimate.memory.device_bytes, pts[k].value,
						    (unsigned long long)pts[k - 1].estimate.memory.device_bytes);
					fail();
				}
				if (k)
					assert_true(pts[k].estimate.memory.host_bytes >= pts[k - 1].estimate.memory.host_bytes);
			}
			if (rows[i].kind == CR_SWEEP_CPU_MOE) {
				/* Every layer's experts is --cpu-moe, to the byte and the token/s. */
				o.cpu_moe = true;
				o.gpu_layers = (int32_t)m->n_layers + 1;
				assert_int_equal(cr_estimate_run_weights(m, &w, r, &o, &all, &err), CR_OK);
				assert_true(all.memory.device_bytes == pts[n - 1].estimate.memory.device_bytes);
				assert_true(all.memory.host_bytes == pts[n - 1].estimate.memory.host_bytes);
				assert_true(all.decode_tokens_per_s == pts[n - 1].estimate.decode_tokens_per_s);
				/* n_cpu_moe 0 with every layer on the GPUs: no expert in RAM. */
				o.cpu_moe = false;
				assert_int_equal(cr_estimate_run_weights(m, &w, r, &o, &all, &err), CR_OK);
				assert_true(all.memory.device_bytes == pts[0].estimate.memory.device_bytes);
			}
		}
	}
	/* A dense model has no experts to move. */
	{
		static cr_sweep_point pts[CR_PLAN_SWEEP_MAX];
		cr_estimate_opts o = CR_ESTIMATE_OPTS_INIT;
		cr_weights w;
		size_t n, rec;

		cr_weights_preset(ts_quant("Q4_K_M"), &w);
		assert_int_equal(cr_plan_sweep(ts_model("llama-3.1-70b"), &w,
					       cr_catalog_find_rig(ts_cat, "epyc-ddr4-3200-2x3090"), &o, CR_SWEEP_CPU_MOE,
					       pts, CR_PLAN_SWEEP_MAX, &n, &rec, &err),
				 CR_ERR_UNSUPPORTED);
		assert_int_equal(cr_plan_sweep(ts_model("llama-3.1-70b"), &w,
					       cr_catalog_find_rig(ts_cat, "epyc-ddr4-3200-2x3090"), &o,
					       CR_SWEEP_GPU_LAYERS, pts, 10, &n, &rec, &err),
				 CR_ERR_INVALID);
	}
}

/* Fixes: each one is the estimator at its options (fits with room), kinds in
 * order, none for a row that fits already, and each the least change of its
 * kind (one step less of it does not do). */
static void test_fixes(void **state)
{
	static const struct {
		const char *model, *quant, *rig;
		uint32_t ctx, n_seq;
		int32_t ngl;
		size_t min_fixes;
	} rows[] = {
		{ "llama-3.1-8b", "Q8_0", "rtx4090", 131072, 1, -1, 3 },       /* KV q8_0, quant, context */
		{ "gpt-oss-120b", "MXFP4", "epyc-ddr4-3200-2x3090", 131072, 4, 36, 1 },
		{ "llama-3.1-70b", "Q4_K_M", "2x3090", 65536, 2, -1, 2 },
		{ "llama-3.1-8b", "Q4_K_M", "rtx4090", 8192, 1, -1, 0 },       /* fits already */
	};
	const cr_quant *qs[CR_CATALOG_MAX_QUANTS_TEST];
	size_t nq = cr_catalog_quant_count(ts_cat);

	(void)state;
	assert_true(nq <= CR_CATALOG_MAX_QUANTS_TEST);
	for (size_t i = 0; i < nq; i++)
		qs[i] = cr_catalog_quant_at(ts_cat, i);
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const cr_model *m = ts_model(rows[i].model);
		const cr_rig *r = cr_catalog_find_rig(ts_cat, rows[i].rig);
		cr_estimate_opts o = CR_ESTIMATE_OPTS_INIT;
		cr_error err = CR_ERROR_INIT;
		cr_fix fx[CR_FIX_COUNT];
		cr_estimate now, again;
		cr_weights w;
		size_t n;

		assert_non_null(r);
		cr_weights_preset(ts_quant(rows[i].quant), &w);
		o.n_ctx = rows[i].ctx;
		o.n_seq = rows[i].n_seq;
		o.gpu_layers = rows[i].ngl;
		assert_int_equal(cr_plan_fixes(m, &w, r, &o, qs, nq, fx, CR_FIX_COUNT, &n, &now, &err), CR_OK);
		if (n < rows[i].min_fixes)
			print_error("%s on %s: %zu fixes, want >= %zu\n", rows[i].model, rows[i].rig, n, rows[i].min_fixes);
		assert_true(n >= rows[i].min_fixes);
		if (!rows[i].min_fixes) {
			assert_int_equal(n, 0);
			assert_true(now.fits && now.tier != CR_TIER_TIGHT);
			continue;
		}
		assert_false(now.fits && now.tier != CR_TIER_TIGHT);
		for (size_t k = 0; k < n; k++) {
			cr_weights fw = w;

			if (k)
				assert_true(fx[k].kind > fx[k - 1].kind);
			if (fx[k].kind == CR_FIX_QUANT) {
				assert_non_null(fx[k].quant);
				assert_true(fx[k].quant->bpw < ts_quant(rows[i].quant)->bpw);
				cr_weights_preset(fx[k].quant, &fw);
			} else {
				assert_null(fx[k].quant);
			}
			assert_int_equal(cr_estimate_run_weights(m, &fw, r, &fx[k].opts, &again, &err), CR_OK);
			assert_true(again.fits && again.tier != CR_TIER_TIGHT);
			assert_true(again.memory.total_bytes == fx[k].estimate.memory.total_bytes);
			assert_true(again.decode_tokens_per_s == fx[k].estimate.decode_tokens_per_s);
			/* The least change: one step less does not fit with room. */
			if (fx[k].kind == CR_FIX_N_CPU_MOE && fx[k].opts.n_cpu_moe > 1) {
				cr_estimate_opts less = fx[k].opts;

				less.n_cpu_moe--;
				assert_int_equal(cr_estimate_run_weights(m, &w, r, &less, &again, &err), CR_OK);
				assert_false(again.fits && again.tier != CR_TIER_TIGHT);
			}
			if (fx[k].kind == CR_FIX_CONTEXT) {
				cr_estimate_opts more = fx[k].opts;

				assert_true(fx[k].opts.n_ctx < o.n_ctx);
				more.n_ctx += 256;
				assert_int_equal(cr_estimate_run_weights(m, &w, r, &more, &again, &err), CR_OK);
				assert_false(again.fits && again.tier != CR_TIER_TIGHT);
			}
		}
	}
}

/* Draft models: the expected tokens per step are 1 + acceptance x K
 * (llama-server's acceptance: accepted / drafted), the speed-up rises with
 * the acceptance, the band brackets the figure, no acceptance is a loss, the
 * draft's bytes come on top of the target's, and an acceptance above 1 is
 * refused. */
static void test_draft(void **state)
{
	const cr_model *t = ts_model("qwen2.5-coder-7b"), *d = ts_model("qwen2.5-coder-0.5b");
	const cr_rig *r = cr_catalog_find_rig(ts_cat, "rtx5060ti-16");
	cr_estimate_opts o = CR_ESTIMATE_OPTS_INIT;
	cr_error err = CR_ERROR_INIT;
	cr_draft_plan p, q;
	cr_weights w, dw;
	double prev = 0;

	(void)state;
	assert_non_null(r);
	cr_weights_preset(ts_quant("Q4_K_M"), &w);
	cr_weights_preset(ts_quant("Q8_0"), &dw);
	o.n_ctx = 4096;
	for (int i = 0; i <= 10; i++) {
		double a = i / 10.0;

		assert_int_equal(cr_plan_draft(t, &w, d, &dw, r, &o, 5, a, &p, &err), CR_OK);
		assert_true(fabs(p.tokens_per_step - (1.0 + 5.0 * a)) < 1e-12);
		assert_true(fabs(cr_plan_draft_rate(p.alpha, 5) - a) < 1e-9);
		assert_true(p.speedup > prev);
		prev = p.speedup;
		assert_true(p.speedup_low <= p.speedup && p.speedup <= p.speedup_high);
		assert_true(p.accept_low <= p.accept && p.accept <= p.accept_high);
		assert_true(p.cost_ratio > 0 && p.cost_ratio < 1);
		assert_true(p.extra_bytes > 0);
		assert_true(p.fits);
		assert_false(p.mtp);
		/* A step is more than K draft steps and one target step: the
		 * draft also re-reads the K + 1 verified tokens. */
		assert_true(p.step_s > 5 * p.cost_ratio / p.target.decode_tokens_per_s +
					       1.0 / p.target.decode_tokens_per_s);
		assert_true(p.target.decode_tokens_per_s > 0);
		if (i == 0)
			assert_true(p.speedup < 1.0); /* drafting with nothing accepted costs time */
	}
	/* K = 1 at a = 0.5: 1.5 tokens per step, exactly. */
	assert_int_equal(cr_plan_draft(t, &w, d, &dw, r, &o, 1, 0.5, &q, &err), CR_OK);
	assert_true(q.tokens_per_step > 1.5 - 1e-12 && q.tokens_per_step < 1.5 + 1e-12);
	/* Defaults: K 3 and the rate the default alpha gives at it. */
	assert_int_equal(cr_plan_draft(t, &w, d, &dw, r, &o, 0, -1, &q, &err), CR_OK);
	assert_int_equal(q.draft_max, CR_PLAN_DRAFT_MAX_DEFAULT);
	assert_true(fabs(q.accept - cr_plan_draft_rate(CR_PLAN_DRAFT_ALPHA_DEFAULT, CR_PLAN_DRAFT_MAX_DEFAULT)) < 1e-12);
	assert_true(fabs(q.alpha - CR_PLAN_DRAFT_ALPHA_DEFAULT) < 1e-9);
	assert_int_equal(cr_plan_draft(t, &w, d, &dw, r, &o, 5, 1.01, &q, &err), CR_ERR_INVALID);
	assert_int_equal(cr_plan_draft(t, &w, NULL, &dw, r, &o, 5, 0.5, &q, &err), CR_ERR_INVALID);
}

/* The acceptance at K and the per-token alpha: at K = 1 they are the same,
 * the rate falls as K grows at a fixed alpha, and the two invert. */
static void test_draft_rate(void **state)
{
	(void)state;
	for (int i = 1; i < 20; i++) {
		double al = i / 20.0;

		assert_true(fabs(cr_plan_draft_rate(al, 1) - al) < 1e-12);
		for (uint32_t k = 1; k <= 16; k++) {
			double r = cr_plan_draft_rate(al, k);

			assert_true(r > 0 && r <= al + 1e-12);
			assert_true(k == 1 || r < cr_plan_draft_rate(al, k - 1));
			assert_true(fabs(cr_plan_draft_alpha(r, k) - al) < 1e-9);
			/* 1 + r K is Leviathan et al.'s (1 - alpha^(K+1)) / (1 - alpha). */
			assert_true(fabs(1.0 + r * k - (1.0 - pow(al, k + 1.0)) / (1.0 - al)) < 1e-9);
		}
	}
	assert_true(cr_plan_draft_rate(0, 3) == 0 && cr_plan_draft_rate(1, 3) == 1);
	assert_true(cr_plan_draft_alpha(0, 3) == 0 && cr_plan_draft_alpha(1, 3) == 1);
}

/* The target beside a draft is the estimate of all its slots with K + 1
 * logits rows each: memory, fit, tier and per-device figures come from that
 * run (not the one-sequence one), the speeds from one sequence. */
static void test_draft_slots(void **state)
{
	const cr_model *t = ts_model("gemma-3-4b"), *d = ts_model("gemma-3-270m");
	const cr_rig *r = cr_catalog_find_rig(ts_cat, "rtx3060-12");
	cr_estimate_opts o = CR_ESTIMATE_OPTS_INIT, all;
	cr_error err = CR_ERROR_INIT;
	cr_estimate e, one;
	cr_draft_plan p;
	cr_weights w, dw;

	(void)state;
	assert_non_null(t);
	assert_non_null(d);
	assert_non_null(r);
	cr_weights_preset(ts_quant("Q4_K_M"), &w);
	cr_weights_preset(ts_quant("Q8_0"), &dw);
	o.n_ctx = 16384;
	o.n_seq = 4;
	assert_int_equal(cr_plan_draft(t, &w, d, &dw, r, &o, 3, 0.6, &p, &err), CR_OK);
	all = o;
	all.n_outputs_max = 4 * (3 + 1);
	assert_int_equal(cr_estimate_run_weights(t, &w, r, &all, &e, &err), CR_OK);
	assert_true(p.target.memory.total_bytes == e.memory.total_bytes);
	assert_true(p.target.memory.kv_bytes == e.memory.kv_bytes);
	assert_true(p.target.max_context == e.max_context);
	assert_true(p.target.free_bytes == e.free_bytes);
	for (unsigned g = 0; g < r->n_devices; g++)
		assert_true(p.target.devices[g].bytes_per_device == e.devices[g].bytes_per_device);
	/* Each sliding-window slot has its own cache: four slots hold more
	 * than one, and the plan says the four. */
	all = o;
	all.n_seq = 1;
	assert_int_equal(cr_estimate_run_weights(t, &w, r, &all, &one, &err), CR_OK);
	assert_true(p.target.memory.kv_bytes > one.memory.kv_bytes);
	assert_true(p.target.devices[0].bytes_per_device > one.devices[0].bytes_per_device);
	/* The tier follows the pair's fit: as far from the speed tiers as
	 * the pair is from fitting. */
	if (p.fits)
		assert_true(p.target.tier == e.tier);
	else
		assert_true(p.target.tier == CR_TIER_TIGHT || p.target.tier == CR_TIER_NOFIT);
}

/* A layer split over two GPUs: the pair fits only when every GPU holds its
 * share of target and draft with the headroom, which is stricter than the
 * pooled sum with one headroom (the check before). Sweeping the context
 * finds contexts that the pooled sum passes and the per-GPU check does not,
 * and the plan refuses them. */
static void test_draft_per_device(void **state)
{
	const cr_model *t = ts_model("llama-3.1-70b"), *d = ts_model("llama-3.2-1b");
	const cr_rig *r = cr_catalog_find_rig(ts_cat, "2x3090");
	cr_estimate_opts o = CR_ESTIMATE_OPTS_INIT;
	cr_error err = CR_ERROR_INIT;
	cr_draft_plan p;
	cr_weights w, dw;
	bool stricter = false, fitted = false;

	(void)state;
	assert_non_null(t);
	assert_non_null(d);
	assert_non_null(r);
	cr_weights_preset(ts_quant("Q4_K_M"), &w);
	cr_weights_preset(ts_quant("Q8_0"), &dw);
	for (uint32_t c = 1024; c <= 65536; c += 512) {
		bool pooled;

		o.n_ctx = c;
		assert_int_equal(cr_plan_draft(t, &w, d, &dw, r, &o, 3, 0.6, &p, &err), CR_OK);
		if (!p.target.fits || !p.draft.fits)
			continue;
		assert_int_equal(p.target.n_gpus, 2);
		pooled = p.target.memory.total_bytes + p.extra_bytes + o.headroom_bytes <=
			 p.target.memory.available_bytes;
		if (p.fits) {
			fitted = true;
			assert_true(pooled); /* the per-GPU check implies the pooled one */
			for (unsigned i = 0; i < p.target.n_gpus; i++)
				assert_true(p.target.gpus[i].total_bytes + p.draft.gpus[i].total_bytes -
						    p.draft.gpus[i].reserve_bytes + o.headroom_bytes <=
					    p.target.gpus[i].usable_bytes);
			assert_true(p.target.tier != CR_TIER_NOFIT);
		} else if (pooled) {
			stricter = true;
			assert_true(p.target.tier == CR_TIER_TIGHT || p.target.tier == CR_TIER_NOFIT);
		}
	}
	assert_true(fitted);
	assert_true(stricter);
}

/* llama-server fits target and draft together (--fit): where a target that
 * spills to system RAM leaves no GPU room for the draft, more of its layers
 * go to RAM until the pair fits every GPU; the target-alone speed stays the
 * target's own placement, and the speed-up is against it. */
static void test_draft_refit(void **state)
{
	const cr_model *t = ts_model("llama-3.1-70b"), *d = ts_model("llama-3.2-1b");
	const cr_rig *r = cr_catalog_find_rig(ts_cat, "epyc-ddr4-3200-2x3090");
	cr_estimate_opts o = CR_ESTIMATE_OPTS_INIT;
	cr_error err = CR_ERROR_INIT;
	cr_estimate alone;
	cr_draft_plan p;
	cr_weights w, dw;

	(void)state;
	assert_non_null(r);
	cr_weights_preset(ts_quant("Q4_K_M"), &w);
	cr_weights_preset(ts_quant("Q8_0"), &dw);
	o.n_ctx = 65536;
	assert_int_equal(cr_estimate_run_weights(t, &w, r, &o, &alone, &err), CR_OK);
	assert_true(alone.fits && alone.offload_fraction > 0);
	assert_int_equal(cr_plan_draft(t, &w, d, &dw, r, &o, 3, 0.6, &p, &err), CR_OK);
	assert_true(p.fits);
	assert_true(p.target.gpu_layers < alone.gpu_layers);
	for (unsigned i = 0; i < p.target.n_gpus; i++)
		assert_true(p.target.gpus[i].total_bytes + p.draft.gpus[i].total_bytes - p.draft.gpus[i].reserve_bytes +
				    o.headroom_bytes <=
			    p.target.gpus[i].usable_bytes);
	assert_true(fabs(p.target.decode_tokens_per_s - alone.decode_tokens_per_s) < 1e-9 * alone.decode_tokens_per_s);
	assert_true(fabs(p.speedup - p.tokens_per_s / alone.decode_tokens_per_s) < 1e-9);
	/* A placement the user gave is kept: no refit. */
	assert_true(alone.output_layer_on_gpu);
	o.gpu_layers = (int32_t)alone.gpu_layers + 1; /* -ngl counts the output layer */
	assert_int_equal(cr_plan_draft(t, &w, d, &dw, r, &o, 3, 0.6, &p, &err), CR_OK);
	assert_int_equal(p.target.gpu_layers, alone.gpu_layers);
}

/* MTP drafting: only for a model with MTP layers; its drafter costs a small
 * part of a target step (one layer and the output head), so the speed-up at
 * a given acceptance beats a draft model's; the MTP weights count in the
 * target's memory, the MTP context's KV and buffers in extra_bytes. */
static void test_mtp(void **state)
{
	const cr_model *t = ts_model("qwen3.6-27b"), *plain = ts_model("llama-3.1-8b");
	const cr_rig *r = cr_catalog_find_rig(ts_cat, "rtx3090");
	cr_estimate_opts o = CR_ESTIMATE_OPTS_INIT;
	cr_error err = CR_ERROR_INIT;
	cr_draft_plan p;
	cr_estimate e;
	cr_weights w;
	double prev = 0;

	(void)state;
	assert_non_null(t);
	assert_non_null(r);
	assert_true(t->mtp_layers >= 1);
	cr_weights_preset(ts_quant("Q4_K_M"), &w);
	o.n_ctx = 8192;
	assert_int_equal(cr_estimate_run_weights(t, &w, r, &o, &e, &err), CR_OK);
	for (int i = 0; i <= 10; i++) {
		assert_int_equal(cr_plan_mtp(t, &w, r, &o, 0, 2, i / 10.0, &p, &err), CR_OK);
		assert_true(p.mtp);
		assert_true(fabs(p.tokens_per_step - (1.0 + 2.0 * i / 10.0)) < 1e-12);
		assert_true(p.speedup > prev);
		prev = p.speedup;
		/* One MTP step: a layer and the head of a 64-layer model. */
		assert_true(p.cost_ratio > 0 && p.cost_ratio < 0.25);
		assert_true(p.target.memory.weights_bytes > e.memory.weights_bytes);
		assert_true(p.extra_bytes > 0 && p.draft.memory.kv_bytes > 0);
		assert_true(p.speedup_low <= p.speedup && p.speedup <= p.speedup_high);
	}
	/* All accepted at K = 2: three tokens for a little over one target step. */
	assert_true(p.speedup > 2.0 && p.speedup < 3.0);
	/* Given MTP bytes are taken as they are. */
	assert_int_equal(cr_plan_mtp(t, &w, r, &o, 2000000000ull, 2, 0.7, &p, &err), CR_OK);
	assert_true(p.target.memory.weights_bytes > e.memory.weights_bytes + 1900000000ull);
	assert_int_equal(cr_plan_mtp(plain, &w, r, &o, 0, 2, 0.7, &p, &err), CR_ERR_UNSUPPORTED);
	assert_int_equal(cr_plan_mtp(t, &w, r, &o, 0, 2, 1.5, &p, &err), CR_ERR_INVALID);
	assert_int_equal(cr_plan_mtp(NULL, &w, r, &o, 0, 2, 0.5, &p, &err), CR_ERR_INVALID);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_relations),
		cmocka_unit_test(test_saturation),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_sweeps),
		cmocka_unit_test(test_fixes),
		cmocka_unit_test(test_draft),
		cmocka_unit_test(test_draft_rate),
		cmocka_unit_test(test_draft_slots),
		cmocka_unit_test(test_draft_per_device),
		cmocka_unit_test(test_draft_refit),
		cmocka_unit_test(test_mtp),
	};

	return cmocka_run_group_tests(tests, ts_catalog_setup, ts_catalog_teardown);
}
