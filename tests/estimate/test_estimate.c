/*
 * test_estimate: the estimator (estimate.c). Memory is asserted to the byte
 * against llama.cpp's arithmetic (design.md "The estimation model"): KV
 * rows per KV type, padding of the context to 256 cells, sliding-window
 * caps, MLA, the recurrent state of linear-attention layers, weights as
 * params x bpw / 8 or the exact override. Speeds depend on fitted constants
 * that change when the calibration is re-run, so for them the tests assert
 * relations (more bandwidth is faster, deeper context is slower, MoE reads
 * its active share, partial offload is slower than a big enough GPU) and
 * the tier rules on rigs whose speed is chosen from the computed figures to
 * sit far from the thresholds. max_context is checked at its boundary:
 * the plan fits at max_context and not 256 tokens later.
 */
#include "unit.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "catalog_fixture.h"
#include "clefrun/catalog.h"
#include "clefrun/estimate.h"
#include "clefrun/rig.h"

#define GIB 1073741824.0
#define MIB 1048576.0

static cr_device gpu_device(double mem_gib, double bw_gbs, unsigned count)
{
	cr_device d;

	memset(&d, 0, sizeof(d));
	snprintf(d.name, sizeof(d.name), "test GPU");
	d.count = count;
	d.memory_gib = mem_gib;
	d.bandwidth_gbs = bw_gbs;
	d.fp16_tflops = 100;
	d.backend = CR_BACKEND_CUDA;
	d.kind = CR_MEM_DISCRETE;
	d.usable_fraction = 1.0;
	return d;
}

static cr_device ram_device(double mem_gib, double bw_gbs)
{
	cr_device d;

	memset(&d, 0, sizeof(d));
	snprintf(d.name, sizeof(d.name), "test RAM");
	d.count = 1;
	d.memory_gib = mem_gib;
	d.bandwidth_gbs = bw_gbs;
	d.backend = CR_BACKEND_CPU;
	d.kind = CR_MEM_SYSTEM;
	d.usable_fraction = 0.9;
	return d;
}

/* `count` discrete CUDA GPUs of `mem_gib` and `bw_gbs` each. */
static cr_rig gpu_rig(double mem_gib, double bw_gbs, unsigned count)
{
	cr_rig r;

	memset(&r, 0, sizeof(r));
	snprintf(r.id, sizeof(r.id), "test-gpu");
	r.devices[0] = gpu_device(mem_gib, bw_gbs, count);
	r.n_devices = 1;
	return r;
}

static cr_estimate run(const cr_model *m, const cr_quant *q, const cr_rig *r,
		       const cr_estimate_opts *o)
{
	cr_estimate e;
	cr_error err = CR_ERROR_INIT;
	int rc = cr_estimate_run(m, q, r, o, &e, &err);

	if (rc != CR_OK)
		fail_msg("%s on %s: rc %d: %s", m->id, r->id, rc, err.message);
	return e;
}

static cr_estimate run_ctx(const char *mid, const char *qid, const cr_rig *r, uint32_t n_ctx)
{
	cr_estimate_opts o = CR_ESTIMATE_OPTS_INIT;

	o.n_ctx = n_ctx;
	return run(ts_model(mid), ts_quant(qid), r, &o);
}

/* ---- KV cache and state ---------------------------------------------------- */

static void test_kv_clef_flash(void **state)
{
	const cr_model *m = ts_model("clef-flash");
	cr_rig big = gpu_rig(1000, 1000, 1);
	cr_estimate_opts o = CR_ESTIMATE_OPTS_INIT;
	cr_estimate e;

	(void)state;
	/* 8 KV layers x 4 heads x 256 x (K + V) x 2 B = 32 KiB per token. */
	assert_int_equal(cr_estimate_kv_bytes(m, &o), 8ull * 8192 * 2 * 4 * 256 * 2);
	e = run(m, ts_quant("Q4_K_M"), &big, &o);
	assert_int_equal(e.kv_bytes_per_token, 32768);
	assert_int_equal(e.memory.kv_bytes, 268435456ull);
	assert_int_equal(e.kv_cells_full, 8192);
	assert_int_equal(e.kv_cells_swa, 0);
	assert_int_equal(e.context, 8192);
	/* 24 Gated DeltaNet layers x (3 x 8192 conv + 128 x 4096 state) x 4 B. */
	assert_int_equal(cr_estimate_state_bytes(m, &o), 52690944ull);
	assert_int_equal(e.memory.state_bytes, 52690944ull);
	o.n_seq = 2;
	assert_int_equal(cr_estimate_state_bytes(m, &o), 2 * 52690944ull);
	e = run(m, ts_quant("Q4_K_M"), &big, &o);
	assert_int_equal(e.memory.state_bytes, 2 * 52690944ull);
	/* Full-attention cells are shared by the sequences: n_seq leaves them. */
	assert_int_equal(e.memory.kv_bytes, 268435456ull);
}

/* Mamba-2 hybrids: KV only on the attention layers, a fixed state per
 * sequence on the Mamba layers, at llama.cpp's sizes (llama-hparams.cpp
 * n_embd_r = (d_conv - 1) x (d_inner + 2 n_group d_state), n_embd_s =
 * d_state x d_inner, both F32; llama-memory-recurrent.cpp allocates them per
 * recurrent layer and sequence). */
static void test_kv_mamba_hybrids(void **state)
{
	const cr_model *g = ts_model("granite-4.0-h-small"), *n = ts_model("nemotron-nano-9b-v2");
	cr_rig big = gpu_rig(1000, 1000, 1);
	cr_estimate_opts o = CR_ESTIMATE_OPTS_INIT;
	cr_estimate e;

	(void)state;
	/* Granite 4.0 H Small: 4 attention layers x 8 KV heads x 128 x (K + V)
	 * x 2 B = 16 KiB per token; 36 Mamba layers, d_inner 128 x 64 = 8192,
	 * conv 3 x (8192 + 2 x 1 x 128) = 25344, state 128 x 8192 = 1048576:
	 * 36 x (25344 + 1048576) x 4 B = 154644480 B (147.5 MiB) per sequence. */
	assert_int_equal(cr_model_kv_layers(g), 4);
	assert_int_equal(cr_model_count_layers(g, CR_LAYER_RECURRENT), 36);
	e = run(g, ts_quant("Q4_K_M"), &big, &o);
	assert_int_equal(e.kv_bytes_per_token, 16384);
	assert_int_equal(e.memory.kv_bytes, 16384ull * 8192);
	assert_int_equal(cr_estimate_state_bytes(g, &o), 154644480ull);
	assert_int_equal(e.memory.state_bytes, 154644480ull);
	o.n_seq = 4;
	assert_int_equal(cr_estimate_state_bytes(g, &o), 4 * 154644480ull);
	o.n_seq = 1;
	/* Nemotron Nano 9B v2: 4 attention of 56 layers x 8 x 128 x 2 x 2 B;
	 * the 25 MLP-only layers keep neither KV nor state; 27 Mamba layers,
	 * d_inner 128 x 80 = 10240, conv 3 x (10240 + 2 x 8 x 128) = 36864,
	 * state 128 x 10240 = 1310720: 27 x 1347584 x 4 B = 145539072 B. */
	assert_int_equal(cr_model_kv_layers(n), 4);
	assert_int_equal(cr_model_count_layers(n, CR_LAYER_RECURRENT), 27);
	e = run(n, ts_quant("Q4_K_M"), &big, &o);
	assert_int_equal(e.kv_bytes_per_token, 16384);
	assert_int_equal(e.memory.state_bytes, 145539072ull);
}

/* llama.cpp pads the context to a multiple of 256 cells. */
static void test_kv_padding(void **state)
{
	static const struct {
		uint32_t n_ctx, cells;
	} rows[] = {
		{ 1, 256 }, { 255, 256 }, { 256, 256 }, { 257, 512 }, { 8000, 8192 },
		{ 8192, 8192 }, { 8193, 8448 }, { 262143, 262144 }, { 262144, 262144 },
	};
	const cr_model *m = ts_model("clef-flash");
	cr_rig big = gpu_rig(1000, 1000, 1);
	unsigned bad = 0;

	(void)state;
	for (size_t i = 0; i < UNIT_ARRAY_LEN(rows); i++) {
		cr_estimate_opts o = CR_ESTIMATE_OPTS_INIT;
		cr_estimate e;
		uint64_t kv;

		o.n_ctx = rows[i].n_ctx;
		kv = cr_estimate_kv_bytes(m, &o);
		e = run(m, ts_quant("Q4_K_M"), &big, &o);
		if (kv != 32768ull * rows[i].cells || e.kv_cells_full != rows[i].cells ||
		    e.memory.kv_bytes != kv) {
			print_error("n_ctx %u: %llu bytes, %u cells; want %u cells\n", rows[i].n_ctx,
				    (unsigned long long)kv, e.kv_cells_full, rows[i].cells);
			bad++;
		}
	}
	UNIT_TABLE_DONE(bad, UNIT_ARRAY_LEN(rows));
}

/* f16 is 2 B per element, q8_0 34 B and q4_0 18 B per 32 elements. */
static void test_kv_types(void **state)
{
	static const struct {
		cr_kv_type k, v;
		uint64_t per_token;
	} rows[] = {
		{ CR_KV_F16, CR_KV_F16, 32768 },
		{ CR_KV_Q8_0, CR_KV_Q8_0, 32768 * 34 / 64 },
		{ CR_KV_Q4_0, CR_KV_Q4_0, 32768 * 18 / 64 },
		{ CR_KV_Q8_0, CR_KV_F16, 8 * (1024 * 34 / 32 + 2048) },
		{ CR_KV_F16, CR_KV_Q4_0, 8 * (2048 + 1024 * 18 / 32) },
	};
	const cr_model *m = ts_model("clef-flash");
	cr_rig big = gpu_rig(1000, 1000, 1);
	unsigned bad = 0;

	(void)state;
	for (size_t i = 0; i < UNIT_ARRAY_LEN(rows); i++) {
		cr_estimate_opts o = CR_ESTIMATE_OPTS_INIT;
		cr_estimate e;

		o.type_k = rows[i].k;
		o.type_v = rows[i].v;
		e = run(m, ts_quant("Q4_K_M"), &big, &o);
		if (e.kv_bytes_per_token != rows[i].per_token ||
		    cr_estimate_kv_bytes(m, &o) != rows[i].per_token * 8192) {
			print_error("K %s V %s: %llu per token, want %llu\n",
				    cr_kv_type_name(rows[i].k), cr_kv_type_name(rows[i].v),
				    (unsigned long long)e.kv_bytes_per_token,
				    (unsigned long long)rows[i].per_token);
			bad++;
		}
	}
	UNIT_TABLE_DONE(bad, UNIT_ARRAY_LEN(rows));
}

/* Gemma 3 27B: "SSSSSF" over 62 layers (52 sliding, 10 full), window 1024,
 * 16 KV heads x 128: 8 KiB per layer and cell at f16. Sliding layers keep
 * per stream pad(min(n_ctx_seq, window x (unified ? n_seq : 1) + n_ubatch), 256) cells. */
static void test_kv_gemma3_sliding(void **state)
{
	static const struct {
		uint32_t n_ctx, n_seq, n_ubatch;
		bool swa_full, unified;
		uint32_t swa_cells;
	} rows[] = {
		{ 8192, 1, 512, false, false, 1536 },  /* pad(1024 + 512) */
		{ 1024, 1, 512, false, false, 1024 },  /* capped by the context */
		{ 1000, 1, 512, false, false, 1024 },  /* ... padded */
		{ 8192, 2, 512, false, true, 2560 },   /* unified: pad(1024 x 2 + 512) */
		{ 8192, 2, 512, false, false, 3072 },  /* a stream each: 2 x pad(min(4096, 1024 + 512)) */
		{ 8192, 1, 1024, false, false, 2048 }, /* pad(1024 + 1024) */
		{ 8192, 1, 100, false, false, 1280 },  /* pad(1124) */
		{ 8192, 1, 512, true, false, 8192 },   /* --swa-full */
	};
	const cr_model *m = ts_model("gemma-3-27b");
	cr_rig big = gpu_rig(1000, 1000, 1);
	unsigned bad = 0;

	(void)state;
	assert_int_equal(cr_model_count_layers(m, CR_LAYER_SLIDING), 52);
	assert_int_equal(cr_model_count_layers(m, CR_LAYER_FULL), 10);
	for (size_t i = 0; i < UNIT_ARRAY_LEN(rows); i++) {
		cr_estimate_opts o = CR_ESTIMATE_OPTS_INIT;
		uint64_t full_cells = (rows[i].n_ctx + 255) / 256 * 256;
		uint64_t want = 10 * 8192 * full_cells + 52 * 8192ull * rows[i].swa_cells;
		cr_estimate e;

		o.n_ctx = rows[i].n_ctx;
		o.n_seq = rows[i].n_seq;
		o.n_ubatch = rows[i].n_ubatch;
		o.swa_full = rows[i].swa_full;
		o.kv_unified = rows[i].unified;
		e = run(m, ts_quant("Q4_K_M"), &big, &o);
		if (e.kv_cells_swa != rows[i].swa_cells || cr_estimate_kv_bytes(m, &o) != want ||
		    e.memory.kv_bytes != want || e.kv_bytes_per_token != 10 * 8192) {
			print_error("row %zu: %u swa cells, %llu bytes; want %u, %llu\n", i,
				    e.kv_cells_swa, (unsigned long long)e.memory.kv_bytes,
				    rows[i].swa_cells, (unsigned long long)want);
			bad++;
		}
	}
	/* The two figures the brief spells out. */
	{
		cr_estimate_opts o = CR_ESTIMATE_OPTS_INIT;

		assert_int_equal(cr_estimate_kv_bytes(m, &o), 1325400064ull);
		o.n_ctx = 1024;
		assert_int_equal(cr_estimate_kv_bytes(m, &o), 520093696ull);
	}
	UNIT_TABLE_DONE(bad, UNIT_ARRAY_LEN(rows));
}

/* gpt-oss-20b: "SF" over 24 layers, window 128, 8 KV heads x 64. */
static void test_kv_gpt_oss(void **state)
{
	cr_rig big = gpu_rig(1000, 1000, 1);
	cr_estimate e = run_ctx("gpt-oss-20b", "MXFP4", &big, 8192);

	(void)state;
	assert_int_equal(e.kv_cells_swa, 768); /* pad(128 + 512, 256) */
	assert_int_equal(e.kv_bytes_per_token, 12 * 2048);
	assert_int_equal(e.memory.kv_bytes, 12ull * 2048 * 8192 + 12ull * 2048 * 768);
}

/* DeepSeek-V3 with MLA: K only, kv_lora_rank + rope_dim = 576 wide. */
static void test_kv_mla(void **state)
{
	const cr_model *m = ts_model("deepseek-v3");
	cr_rig big = gpu_rig(2000, 1000, 1);
	cr_estimate_opts o = CR_ESTIMATE_OPTS_INIT;
	cr_estimate e;

	(void)state;
	assert_true(m->mla);
	e = run(m, ts_quant("Q4_K_M"), &big, &o);
	assert_int_equal(e.kv_bytes_per_token, 61 * 576 * 2);
	assert_int_equal(e.kv_bytes_per_token, 70272);
	assert_int_equal(e.memory.kv_bytes, 70272ull * 8192);
	/* The V type has nothing to store; the K type sets the row. */
	o.type_k = CR_KV_Q8_0;
	e = run(m, ts_quant("Q4_K_M"), &big, &o);
	assert_int_equal(e.kv_bytes_per_token, 61 * (576 / 32 * 34));
}

/* Mistral 7B v0.1: every layer slides over 4096 tokens. */
static void test_kv_all_sliding(void **state)
{
	cr_rig big = gpu_rig(1000, 1000, 1);
	cr_estimate e = run_ctx("mistral-7b-v0.1", "Q4_K_M", &big, 32768);

	(void)state;
	assert_int_equal(e.kv_cells_swa, 4608); /* pad(4096 + 512) */
	assert_int_equal(e.memory.kv_bytes, 32ull * 4608 * 4096);
	e = run_ctx("mistral-7b-v0.1", "Q4_K_M", &big, 4096);
	assert_int_equal(e.kv_cells_swa, 4096);
	assert_int_equal(e.memory.kv_bytes, 32ull * 4096 * 4096);
}

/* ---- hand-computed cases at long contexts (issue 4) ------------------------------------- */

/* Clef-flash (Qwen3.5-9B backbone) at its full 262 144-token context: only
 * the 8 full-attention layers keep KV, 4 heads x 256 x (K + V) x 2 B =
 * 16 KiB per layer and cell, so 8 x 16 KiB x 262 144 = 8 GiB; the seed page
 * counts all 32 layers (32 GiB, "~40 GB" with the weights). The 24 Gated
 * DeltaNet layers add a fixed F32 state: 24 x (3 x (32 x 128 + 2 x 16 x 128)
 * + 128 x 32 x 128) x 4 B = 52 690 944 B (llama.cpp logs 50.25 MiB for the
 * Qwen3.5-9B shape, bench/memory-truth). */
static void test_kv_clef_flash_262k(void **state)
{
	const cr_model *m = ts_model("clef-flash");
	cr_rig big = gpu_rig(1000, 1000, 1);
	cr_estimate_opts o = CR_ESTIMATE_OPTS_INIT;
	const uint64_t seeds = 32ull * 4 * 256 * 2 * 2 * 262144; /* every layer: 32 GiB */
	cr_estimate e;

	(void)state;
	o.n_ctx = 262144;
	assert_int_equal(cr_estimate_kv_bytes(m, &o), 8ull * 4 * 256 * 2 * 2 * 262144);
	assert_int_equal(cr_estimate_kv_bytes(m, &o), 8589934592ull); /* 8 GiB */
	assert_int_equal(cr_estimate_kv_bytes(m, &o) * 4, seeds);
	assert_int_equal(cr_estimate_state_bytes(m, &o), 52690944ull);
	e = run(m, ts_quant("Q4_K_M"), &big, &o);
	assert_int_equal(e.memory.kv_bytes, 8589934592ull);
	assert_int_equal(e.memory.state_bytes, 52690944ull);
	assert_int_equal(e.kv_cells_full, 262144);
	/* Flash attention off: V is not padded (the KV layers all have 4 heads). */
	o.flash_attn = false;
	assert_int_equal(cr_estimate_kv_bytes(m, &o), 8589934592ull);
	/* q8_0: 1024 elements per row = 32 blocks of 34 B, K and V. */
	o.flash_attn = true;
	o.type_k = o.type_v = CR_KV_Q8_0;
	assert_int_equal(cr_estimate_kv_bytes(m, &o), 8ull * 2 * (1024 / 32 * 34) * 262144);
	assert_int_equal(cr_estimate_state_bytes(m, &o), 52690944ull); /* always F32 */
}

/* Gemma 3 27B at its full 131 072-token context: 10 full layers x 131 072
 * cells x 16 KV heads x 128 x (K + V) x 2 B = 10 GiB, plus 52 sliding layers
 * x 1536 cells (pad256(1024 + 512)) x the same 8 KiB = 624 MiB; a cache
 * that slid on no layer would be 62 GiB. */
static void test_kv_gemma3_27b_131k(void **state)
{
	const cr_model *m = ts_model("gemma-3-27b");
	cr_rig big = gpu_rig(1000, 1000, 1);
	cr_estimate_opts o = CR_ESTIMATE_OPTS_INIT;
	const uint64_t full = 10ull * 131072 * 16 * 128 * 2 * 2;
	const uint64_t swa = 52ull * 1536 * 16 * 128 * 2 * 2;
	cr_estimate e;

	(void)state;
	o.n_ctx = 131072;
	assert_int_equal(full, 10737418240ull);
	assert_int_equal(swa, 654311424ull);
	assert_int_equal(cr_estimate_kv_bytes(m, &o), full + swa);
	assert_int_equal(cr_estimate_kv_bytes(m, &o), 11391729664ull);
	e = run(m, ts_quant("Q4_K_M"), &big, &o);
	assert_int_equal(e.kv_cells_full, 131072);
	assert_int_equal(e.kv_cells_swa, 1536);
	assert_int_equal(e.memory.kv_bytes, 11391729664ull);
	assert_int_equal(e.kv_bytes_per_token, 10 * 8192);
	/* --swa-full: every layer keeps the whole context. */
	o.swa_full = true;
	assert_int_equal(cr_estimate_kv_bytes(m, &o), 62ull * 131072 * 8192);
	/* q8_0 K and V: 2048-element rows of 64 blocks x 34 B. */
	o.swa_full = false;
	o.type_k = o.type_v = CR_KV_Q8_0;
	assert_int_equal(cr_estimate_kv_bytes(m, &o), (10ull * 131072 + 52ull * 1536) * 2 * (2048 / 32 * 34));
}

/* DeepSeek-V3 with MLA at its full 163 840-token context: one K row of
 * kv_lora_rank 512 + rope 64 = 576 elements per layer and cell, no V:
 * 61 x 576 x 2 B x 163 840 = 11 513 364 480 B (10.7 GiB). Multi-head
 * attention with 128 heads of K 192 + V 128 would need 4 997 120 B per
 * token, 71x as much. */
static void test_kv_mla_deepseek_163k(void **state)
{
	const cr_model *m = ts_model("deepseek-v3");
	cr_rig big = gpu_rig(4000, 1000, 1);
	cr_estimate_opts o = CR_ESTIMATE_OPTS_INIT;
	cr_estimate e;

	(void)state;
	o.n_ctx = 163840;
	assert_int_equal(m->mla_kv_lora_rank + m->mla_rope_dim, 576);
	assert_int_equal(cr_estimate_kv_bytes(m, &o), 61ull * 576 * 2 * 163840);
	assert_int_equal(cr_estimate_kv_bytes(m, &o), 11513364480ull);
	e = run(m, ts_quant("Q4_K_M"), &big, &o);
	assert_int_equal(e.memory.kv_bytes, 11513364480ull);
	assert_int_equal(e.kv_bytes_per_token, 70272);
	assert_true(61ull * 128 * (192 + 128) * 2 / e.kv_bytes_per_token == 71);
	/* Flash attention off changes nothing: there is no V row to pad. */
	o.flash_attn = false;
	assert_int_equal(cr_estimate_kv_bytes(m, &o), 11513364480ull);
	/* q8_0 K: 18 blocks of 34 B. */
	o.flash_attn = true;
	o.type_k = o.type_v = CR_KV_Q8_0;
	assert_int_equal(cr_estimate_kv_bytes(m, &o), 61ull * (576 / 32 * 34) * 163840);
	assert_int_equal(cr_estimate_state_bytes(m, &o), 0);
}

/* Per-layer KV heads (OpenELM): K rows follow each layer, but without flash
 * attention llama.cpp gives every V row the widest layer's width
 * (n_embd_v_gqa_max). The 4-layer model bench/memory-truth loads
 * (scripts/gguf-write --preset mini-openelm: KV heads 1, 2, 2, 4 of 64) logs
 * at n_ctx 4096 "K (f16): 4.50 MiB, V (f16): 8.00 MiB" with flash attention
 * off and 4.50 + 4.50 MiB with it on. */
static void test_kv_per_layer_heads(void **state)
{
	static const uint16_t heads[4] = { 1, 2, 2, 4 };
	cr_model m = *ts_model("llama-3.1-8b");
	cr_estimate_opts o = CR_ESTIMATE_OPTS_INIT;

	(void)state;
	m.n_layers = 4;
	m.hidden = 256;
	m.n_heads = 4;
	m.head_dim_k = m.head_dim_v = 64;
	for (unsigned i = 0; i < 4; i++) {
		m.kv_heads[i] = heads[i];
		m.layer_kind[i] = CR_LAYER_FULL;
	}
	o.n_ctx = 4096;
	o.flash_attn = false;
	assert_int_equal(cr_estimate_kv_bytes(&m, &o), (9ull + 16) * 64 * 2 * 4096);
	assert_int_equal(cr_estimate_kv_bytes(&m, &o), (uint64_t)(12.5 * MIB));
	o.flash_attn = true;
	assert_int_equal(cr_estimate_kv_bytes(&m, &o), (uint64_t)(9.0 * MIB));
}

/* The compute buffer, max(logits n_vocab x n_ubatch x 4 B + 2 hidden rows,
 * attention: flash attention off n_kv x n_ubatch x (n_head + 1) x 4 B, on
 * n_kv x n_ubatch x 2 B, + 6 hidden rows), hidden row = n_ubatch x n_embd x
 * 4 B, on a CPU rig (one buffer), against llama.cpp's own log lines:
 * 2026-09 (v0.4.0, bench/memory-truth) "CPU compute buffer size" and the
 * May-2024 CUDA log of calibration/measured_memory.md §1. Target: within
 * 3 % or 64 MiB. */
static void test_compute_buffer_logs(void **state)
{
	static const struct {
		const char *model;
		uint32_t n_ctx;
		bool fa;
		uint64_t want;      /* the formula, by hand */
		double llama_mib;   /* what llama.cpp logged */
	} rows[] = {
		/* 4096 x 512 x 33 x 4 + 6 x 512 x 4096 x 4 */
		{ "llama-3.1-8b", 4096, false, 276824064ull + 50331648ull, 308.01 },
		{ "llama-3.1-8b", 16384, false, 4ull * 276824064ull + 50331648ull, 1100.01 },
		/* 128256 x 512 x 4 + 2 x 512 x 4096 x 4 = 266.5 MiB, at any context */
		{ "llama-3.1-8b", 65536, true, 262668288ull + 16777216ull, 266.50 },
		/* 16384 x 512 x 33 x 4 + 6 x 512 x 2048 x 4 */
		{ "qwen3-30b-a3b", 16384, false, 1107296256ull + 25165824ull, 1086.01 },
		/* 151936 x 512 x 4 + 2 x 512 x 2048 x 4 */
		{ "qwen3-30b-a3b", 4096, true, 311164928ull + 8388608ull, 304.75 },
		/* measured_memory.md §1, n_ctx 8192, FA off, CUDA: 560 MiB logged */
		{ "llama-3.1-8b", 8192, false, 553648128ull + 50331648ull, 560.00 },
	};
	cr_rig cpu;
	cr_error err = CR_ERROR_INIT;
	unsigned bad = 0;

	(void)state;
	assert_int_equal(cr_rig_parse_spec("custom:mem_gb=4096,bw_gbs=100,backend=cpu", &cpu, &err), CR_OK);
	for (size_t i = 0; i < UNIT_ARRAY_LEN(rows); i++) {
		cr_estimate_opts o = CR_ESTIMATE_OPTS_INIT;
		cr_estimate e;
		double got_mib, tol;

		o.n_ctx = rows[i].n_ctx;
		o.flash_attn = rows[i].fa;
		e = run(ts_model(rows[i].model), ts_quant("Q4_K_M"), &cpu, &o);
		got_mib = e.memory.compute_bytes / MIB;
		tol = rows[i].llama_mib * 0.03 > 64 ? rows[i].llama_mib * 0.03 : 64;
		if (e.memory.compute_bytes != rows[i].want ||
		    got_mib - rows[i].llama_mib > tol || rows[i].llama_mib - got_mib > tol) {
			print_error("%s ctx %u FA %d: %llu B (%.2f MiB); want %llu B, llama.cpp %.2f MiB\n",
				    rows[i].model, rows[i].n_ctx, rows[i].fa,
				    (unsigned long long)e.memory.compute_bytes, got_mib,
				    (unsigned long long)rows[i].want, rows[i].llama_mib);
			bad++;
		}
	}
	UNIT_TABLE_DONE(bad, UNIT_ARRAY_LEN(rows));
}

/* GLM-4.5's MTP block (catalog mtp_layers 1, glm4moe): llama.cpp v0.4.0
 * skips its weights but caches its KV in the main context, unread. By hand:
 * 8 KV heads x 128 x (K + V) x 2 B = 4096 B per cell, x 8192 cells =
 * 32 MiB more KV than the 92 trunk layers' 92 x 4096 x 8192; the weights
 * and the decode speed do not change. */
static void test_mtp_kv(void **state)
{
	const cr_model *glm = ts_model("glm-4.5");
	cr_model none = *glm;
	cr_rig big;
	cr_error err = CR_ERROR_INIT;
	cr_estimate_opts o = CR_ESTIMATE_OPTS_INIT;
	cr_estimate a, b;

	(void)state;
	assert_int_equal(glm->mtp_layers, 1);
	assert_int_equal(glm->mtp_kv_layers, 1);
	none.mtp_kv_layers = 0;
	assert_int_equal(cr_rig_parse_spec("custom:mem_gb=1024,bw_gbs=800", &big, &err), CR_OK);
	o.n_ctx = 8192;
	a = run(glm, ts_quant("Q4_K_M"), &big, &o);
	b = run(&none, ts_quant("Q4_K_M"), &big, &o);
	assert_int_equal(b.memory.kv_bytes, 92ull * 4096 * 8192);
	assert_int_equal(a.memory.kv_bytes - b.memory.kv_bytes, 4096ull * 8192);
	assert_int_equal(a.kv_bytes_per_token - b.kv_bytes_per_token, 4096);
	assert_int_equal(a.memory.weights_bytes, b.memory.weights_bytes);
	assert_true(a.decode_tokens_per_s == b.decode_tokens_per_s);
}

/* ---- weights -------------------------------------------------------------- */

static void test_weights(void **state)
{
	const cr_model *m = ts_model("clef-flash");
	const cr_quant *q = ts_quant("Q4_K_M");
	cr_rig big = gpu_rig(1000, 1000, 1);
	cr_rig cpu;
	cr_estimate_opts o = CR_ESTIMATE_OPTS_INIT;
	cr_error err = CR_ERROR_INIT;
	cr_estimate e;

	(void)state;
	assert_true(q->bpw == 4.9);
	/* 9.4e9 x 4.9 / 8 */
	assert_int_equal(cr_estimate_weights_bytes(m, q, &o), 5757500000ull);
	e = run(m, q, &big, &o);
	assert_close(e.memory.weights_bytes, 5757500000.0, 1);
	assert_int_equal(cr_estimate_weights_bytes(m, ts_quant("F16"), &o),
			 (uint64_t)(9.4e9 * ts_quant("F16")->bpw / 8));
	o.weights_bytes = 6000000001ull;
	assert_int_equal(cr_estimate_weights_bytes(m, q, &o), 6000000001ull);
	e = run(m, q, &big, &o);
	assert_close(e.memory.weights_bytes, 6000000001.0, 1);

	/* On a CPU the weights are loaded once. */
	assert_int_equal(cr_rig_parse_spec("custom:mem_gb=64,bw_gbs=100,backend=cpu", &cpu, &err),
			 CR_OK);
	o.weights_bytes = 0;
	e = run(m, q, &cpu, &o);
	assert_int_equal(e.memory.weights_bytes, 5757500000ull);
}

/* Tied embeddings split between host and GPU are loaded twice. */
static void test_weights_tied(void **state)
{
	const cr_model *m = ts_model("gemma-3-27b");
	const cr_quant *q = ts_quant("Q4_K_M");
	cr_rig big = gpu_rig(1000, 1000, 1);
	cr_estimate_opts o = CR_ESTIMATE_OPTS_INIT;
	double w = (double)cr_estimate_weights_bytes(m, q, &o);
	double emb = (double)m->vocab * m->hidden * q->bpw / 8.0;
	cr_estimate e;

	(void)state;
	assert_true(m->tied_embeddings);
	e = run(m, q, &big, &o);
	assert_close(e.memory.weights_bytes, w + emb, 4);
}

/* ---- errors ----------------------------------------------------------------- */

static void test_errors(void **state)
{
	static const struct {
		const char *name, *model;
		uint32_t n_ctx, n_seq, n_ubatch;
		cr_kv_type k, v;
		bool flash;
		int32_t gpu_layers;
		bool cpu_moe, with_ram;
		int status;
		const char *message;
	} rows[] = {
		{ "quantized V without flash attention", "clef-flash", 8192, 1, 512, CR_KV_F16,
		  CR_KV_Q8_0, false, -1, false, false, CR_ERR_UNSUPPORTED,
		  "a quantized V cache (q8_0) needs flash attention; llama.cpp refuses it with flash attention off" },
		{ "q4_0 V without flash attention", "llama-3.1-8b", 8192, 1, 512, CR_KV_Q4_0,
		  CR_KV_Q4_0, false, -1, false, false, CR_ERR_UNSUPPORTED,
		  "a quantized V cache (q4_0) needs flash attention; llama.cpp refuses it with flash attention off" },
		{ "context above the model's", "clef-flash", 262145, 1, 512, CR_KV_F16, CR_KV_F16,
		  true, -1, false, false, CR_ERR_RANGE,
		  "context 262145 is above clef-flash's maximum of 262144 tokens" },
		{ "context above the model's (4k model)", "llama-2-7b", 8192, 1, 512, CR_KV_F16,
		  CR_KV_F16, true, -1, false, false, CR_ERR_RANGE,
		  "context 8192 is above llama-2-7b's maximum of 4096 tokens" },
		{ "zero context", "clef-flash", 0, 1, 512, CR_KV_F16, CR_KV_F16, true, -1, false,
		  false, CR_ERR_INVALID, "context, parallel sequences and ubatch must be positive" },
		{ "zero sequences", "clef-flash", 8192, 0, 512, CR_KV_F16, CR_KV_F16, true, -1, false,
		  false, CR_ERR_INVALID, "context, parallel sequences and ubatch must be positive" },
		{ "zero ubatch", "clef-flash", 8192, 1, 0, CR_KV_F16, CR_KV_F16, true, -1, false,
		  false, CR_ERR_INVALID, "context, parallel sequences and ubatch must be positive" },
		{ "unknown KV type", "clef-flash", 8192, 1, 512, (cr_kv_type)7, CR_KV_F16, true, -1,
		  false, false, CR_ERR_INVALID, "unknown KV cache type" },
		{ "gpu_layers without system RAM", "clef-flash", 8192, 1, 512, CR_KV_F16, CR_KV_F16,
		  true, 10, false, false, CR_ERR_UNSUPPORTED,
		  "rig test-gpu: a fixed GPU layer count or expert offload needs a rig with both GPUs and a system RAM tier" },
		{ "cpu_moe on a dense model", "llama-3.1-8b", 8192, 1, 512, CR_KV_F16, CR_KV_F16,
		  true, -1, true, true, CR_ERR_UNSUPPORTED,
		  "expert offload: llama-3.1-8b is not a mixture-of-experts model" },
	};
	unsigned bad = 0;

	(void)state;
	for (size_t i = 0; i < UNIT_ARRAY_LEN(rows); i++) {
		cr_estimate_opts o = CR_ESTIMATE_OPTS_INIT;
		cr_rig r = gpu_rig(1000, 1000, 1);
		cr_error err = CR_ERROR_INIT;
		cr_estimate e;
		int rc;

		if (rows[i].with_ram) {
			r.devices[1] = ram_device(256, 100);
			r.n_devices = 2;
		}
		o.n_ctx = rows[i].n_ctx;
		o.n_seq = rows[i].n_seq;
		o.n_ubatch = rows[i].n_ubatch;
		o.type_k = rows[i].k;
		o.type_v = rows[i].v;
		o.flash_attn = rows[i].flash;
		o.gpu_layers = rows[i].gpu_layers;
		o.cpu_moe = rows[i].cpu_moe;
		rc = cr_estimate_run(ts_model(rows[i].model), ts_quant("Q4_K_M"), &r, &o, &e, &err);
		if (!unit_check_error(rows[i].name, rc, &err, rows[i].status, rows[i].message))
			bad++;
		if (rc == CR_ERR_UNSUPPORTED && strstr(rows[i].name, "flash") &&
		    !strstr(err.message, "flash attention"))
			bad++;
	}
	UNIT_TABLE_DONE(bad, UNIT_ARRAY_LEN(rows));
}

static void test_errors_rig_and_args(void **state)
{
	const cr_model *m = ts_model("clef-flash");
	const cr_quant *q = ts_quant("Q4_K_M");
	cr_estimate_opts o = CR_ESTIMATE_OPTS_INIT;
	cr_error err = CR_ERROR_INIT;
	cr_estimate e;
	cr_rig r = gpu_rig(24, 1000, 1);

	(void)state;
	/* A quantized K cache alone is fine without flash attention. */
	o.type_k = CR_KV_Q8_0;
	o.flash_attn = false;
	assert_int_equal(cr_estimate_run(m, q, &r, &o, &e, &err), CR_OK);
	o = (cr_estimate_opts)CR_ESTIMATE_OPTS_INIT;
	/* The model's own maximum is allowed. */
	o.n_ctx = m->context_max;
	assert_int_equal(cr_estimate_run(m, q, &r, &o, &e, &err), CR_OK);
	o.n_ctx = 8192;

	r.n_devices = 0;
	assert_int_equal(cr_estimate_run(m, q, &r, &o, &e, &err), CR_ERR_INVALID);
	assert_string_equal(err.message, "rig test-gpu: no devices");
	r = gpu_rig(24, 1000, 1);
	r.devices[0].usable_fraction = 0;
	assert_int_equal(cr_estimate_run(m, q, &r, &o, &e, &err), CR_ERR_INVALID);
	assert_string_equal(err.message, "rig test-gpu: devices[0]: incomplete figures");
	r = gpu_rig(24, 0, 1);
	assert_int_equal(cr_estimate_run(m, q, &r, &o, &e, &err), CR_ERR_INVALID);
	assert_string_equal(err.message, "rig test-gpu: devices[0]: incomplete figures");
	r = gpu_rig(24, 1000, 0);
	assert_int_equal(cr_estimate_run(m, q, &r, &o, &e, &err), CR_ERR_INVALID);
	r = gpu_rig(24, 1000, 1);
	assert_int_equal(cr_estimate_run(NULL, q, &r, &o, &e, &err), CR_ERR_INVALID);
	assert_string_equal(err.message, "estimate: missing model, quant, rig or options");
	/* No error record needed. */
	o.n_ctx = 0;
	assert_int_equal(cr_estimate_run(m, q, &r, &o, &e, NULL), CR_ERR_INVALID);
}

/* ---- tiers -------------------------------------------------------------------- */

/* Bytes the accelerators need for clef-flash Q4_K_M at n_ctx, on one GPU. */
static double device_need(uint32_t n_ctx)
{
	cr_rig big = gpu_rig(1000, 1000, 1);

	return (double)run_ctx("clef-flash", "Q4_K_M", &big, n_ctx).memory.device_bytes;
}

static void check_tier_consistent(const cr_estimate *e)
{
	if (!e->fits) {
		assert_true(e->tier == CR_TIER_TIGHT || e->tier == CR_TIER_NOFIT);
		return;
	}
	if (e->tier == CR_TIER_TIGHT)
		return;
	if (e->decode_tokens_per_s >= CR_TIER_FAST_TPS)
		assert_int_equal(e->tier, CR_TIER_FAST);
	else if (e->decode_tokens_per_s >= CR_TIER_OK_TPS)
		assert_int_equal(e->tier, CR_TIER_OK);
	else
		assert_int_equal(e->tier, CR_TIER_SLOW);
}

static void test_tier_nofit(void **state)
{
	cr_rig small = gpu_rig(1, 1000, 1);
	cr_estimate e = run_ctx("clef-flash", "Q4_K_M", &small, 8192);

	(void)state;
	assert_int_equal(e.tier, CR_TIER_NOFIT);
	assert_false(e.fits);
	assert_int_equal(e.max_context, 0);
	assert_true(e.decode_tokens_per_s == 0);
	assert_true(e.prefill_tokens_per_s == 0);
	assert_string_equal(cr_tier_name(e.tier), "no-fit");
}

/* A GPU between what 4096 and 8192 tokens need: tight, with a max context. */
static void test_tier_tight_context(void **state)
{
	double d4 = device_need(4096), d8 = device_need(8192);
	cr_rig r = gpu_rig((d4 + d8) / 2 / GIB, 1000, 1);
	cr_estimate e;

	(void)state;
	assert_true(d8 > d4);
	e = run_ctx("clef-flash", "Q4_K_M", &r, 8192);
	assert_false(e.fits);
	assert_int_equal(e.tier, CR_TIER_TIGHT);
	assert_true(e.max_context >= 4096 && e.max_context < 8192);
	assert_int_equal(e.max_context % 256, 0);
	/* Speeds are given at the context that fits. */
	assert_true(e.decode_tokens_per_s > 0);
	assert_true(e.decode_depth <= e.max_context);
	e = run_ctx("clef-flash", "Q4_K_M", &r, 4096);
	assert_true(e.fits);
	assert_int_equal(e.tier, CR_TIER_TIGHT); /* less than 1 GiB left */
}

/* Fits, but with less than the headroom free: tight; without a headroom not. */
static void test_tier_tight_headroom(void **state)
{
	double d8 = device_need(8192);
	cr_rig r = gpu_rig((d8 + 512 * MIB) / GIB, 1e6, 1);
	cr_estimate_opts o = CR_ESTIMATE_OPTS_INIT;
	cr_estimate e;

	(void)state;
	e = run(ts_model("clef-flash"), ts_quant("Q4_K_M"), &r, &o);
	assert_true(e.fits);
	assert_int_equal(e.tier, CR_TIER_TIGHT);
	assert_close(e.free_bytes, 512 * MIB, 4096);
	o.headroom_bytes = 0;
	e = run(ts_model("clef-flash"), ts_quant("Q4_K_M"), &r, &o);
	assert_true(e.fits);
	assert_int_equal(e.tier, CR_TIER_FAST);
	o.headroom_bytes = 256 * 1048576ull;
	e = run(ts_model("clef-flash"), ts_quant("Q4_K_M"), &r, &o);
	assert_int_equal(e.tier, CR_TIER_FAST);
}

/* Fast, ok and slow on a 100 GiB GPU by bandwidth alone. */
static void test_tier_by_speed(void **state)
{
	cr_rig r = gpu_rig(100, 1e6, 1);
	cr_estimate e = run_ctx("clef-flash", "Q4_K_M", &r, 8192);
	double bw = 100;

	(void)state;
	assert_true(e.decode_tokens_per_s >= CR_TIER_FAST_TPS);
	assert_int_equal(e.tier, CR_TIER_FAST);

	r.devices[0].bandwidth_gbs = 1;
	e = run_ctx("clef-flash", "Q4_K_M", &r, 8192);
	assert_true(e.decode_tokens_per_s > 0 && e.decode_tokens_per_s < CR_TIER_OK_TPS);
	assert_int_equal(e.tier, CR_TIER_SLOW);

	/* Aim at 12 tokens/s whatever the fitted efficiency and latency. */
	for (int i = 0; i < 8; i++) {
		r.devices[0].bandwidth_gbs = bw;
		e = run_ctx("clef-flash", "Q4_K_M", &r, 8192);
		bw *= 12.0 / e.decode_tokens_per_s;
	}
	assert_true(e.decode_tokens_per_s >= 10 && e.decode_tokens_per_s <= 14);
	assert_int_equal(e.tier, CR_TIER_OK);
}

/* Over six decades of bandwidth: decode rises, the tier follows it. */
static void test_tier_sweep(void **state)
{
	cr_rig r = gpu_rig(100, 1, 1);
	double prev = 0;
	bool seen[CR_TIER_COUNT] = { false };

	(void)state;
	for (double bw = 1; bw <= 1e6; bw *= 1.5) {
		cr_estimate e;

		r.devices[0].bandwidth_gbs = bw;
		e = run_ctx("llama-3.1-8b", "Q4_K_M", &r, 8192);
		assert_true(e.fits);
		assert_true(e.decode_tokens_per_s > prev);
		assert_true(e.decode_tokens_per_s_low <= e.decode_tokens_per_s);
		assert_true(e.decode_tokens_per_s_high >= e.decode_tokens_per_s);
		check_tier_consistent(&e);
		seen[e.tier] = true;
		prev = e.decode_tokens_per_s;
	}
	assert_true(seen[CR_TIER_FAST] && seen[CR_TIER_OK] && seen[CR_TIER_SLOW]);
	assert_false(seen[CR_TIER_TIGHT] || seen[CR_TIER_NOFIT]);
}

/* The decide workload is tiered on time-to-decision (1 s and 5 s). On one
 * GPU the time is a + b / TFLOPS (FLOPs plus a fitted per-parameter term):
 * two runs give a and b, and the TFLOPS for a wanted time follow. */
static void test_tier_decide(void **state)
{
	static const struct {
		double seconds;
		cr_tier tier;
	} rows[] = { { 0, CR_TIER_FAST }, { 2.5, CR_TIER_OK }, { 20, CR_TIER_SLOW } };
	cr_rig r = gpu_rig(100, 1e6, 1);
	cr_estimate_opts o = CR_ESTIMATE_OPTS_INIT;
	cr_estimate e;
	double t1, t2, a, b;

	(void)state;
	o.workload = CR_WORKLOAD_DECIDE;
	o.prompt_tokens = 512;
	e = run(ts_model("clef-flash"), ts_quant("Q4_K_M"), &r, &o);
	assert_int_equal(e.prompt_tokens, 512);
	assert_true(e.time_to_decision_s > 0);
	assert_close(e.time_to_decision_s, e.prompt_tokens / e.prefill_tokens_per_s, 1e-12);
	t1 = e.time_to_decision_s; /* 100 TFLOPS */
	r.devices[0].fp16_tflops = 1000;
	t2 = run(ts_model("clef-flash"), ts_quant("Q4_K_M"), &r, &o).time_to_decision_s;
	b = (t1 - t2) / (1.0 / 100 - 1.0 / 1000);
	a = t1 - b / 100;
	/* The floor a (per-parameter term) must leave room below 1 s. */
	assert_true(b > 0 && a >= 0 && a < 0.9);
	for (size_t i = 0; i < UNIT_ARRAY_LEN(rows); i++) {
		/* Fast: half-way between the floor and the 1 s threshold. */
		double want = rows[i].tier == CR_TIER_FAST ? (a + CR_TIER_FAST_DECIDE_S) / 2
							    : rows[i].seconds;

		r.devices[0].fp16_tflops = b / (want - a);
		e = run(ts_model("clef-flash"), ts_quant("Q4_K_M"), &r, &o);
		assert_close(e.time_to_decision_s, want, want * 1e-6);
		assert_int_equal(e.tier, rows[i].tier);
	}
	/* No TFLOPS figure: no time-to-decision, so the tier is unknown (it
	 * once fell back to the decode tier, fast here, without a word). */
	r.devices[0].fp16_tflops = 0;
	e = run(ts_model("clef-flash"), ts_quant("Q4_K_M"), &r, &o);
	assert_true(e.prefill_tokens_per_s == 0 && e.time_to_decision_s == 0);
	assert_true(e.decode_tokens_per_s >= CR_TIER_FAST_TPS);
	assert_int_equal(e.tier, CR_TIER_UNKNOWN);
}

/* ---- max_context ----------------------------------------------------------------- */

static void check_boundary(const char *mid, const char *qid, const cr_rig *r)
{
	const cr_model *m = ts_model(mid);
	cr_estimate e = run_ctx(mid, qid, r, 8192 < m->context_max ? 8192 : m->context_max);
	uint32_t max = e.max_context;

	if (!(max > 0 && max + 256 <= m->context_max))
		fail_msg("%s on %g GiB: max_context %u not inside (0, %u)", mid,
			 r->devices[0].memory_gib, max, m->context_max);
	assert_int_equal(max % 256, 0);
	e = run_ctx(mid, qid, r, max);
	assert_true(e.fits);
	assert_int_equal(e.max_context, max); /* independent of the request */
	assert_true(e.memory.device_bytes <= e.memory.available_bytes);
	for (unsigned i = 0; i < e.n_gpus; i++)
		assert_true(e.gpus[i].total_bytes <= e.gpus[i].usable_bytes);
	e = run_ctx(mid, qid, r, max + 256);
	assert_false(e.fits);
	assert_int_equal(e.tier, CR_TIER_TIGHT);
	if (e.n_gpus)
		/* Several GPUs: the limiting one overflows, whatever the pool says. */
		assert_true(e.gpus[e.limiting_gpu].total_bytes > e.gpus[e.limiting_gpu].usable_bytes);
	else
		assert_true(e.memory.device_bytes > e.memory.available_bytes);
	assert_int_equal(e.max_context, max);
}

static void test_max_context_boundary(void **state)
{
	/* Memory chosen so that the largest context lies inside the model's. */
	static const struct {
		const char *model, *quant;
		double gib;
		unsigned count;
		double second_gib; /* a second, different GPU group; 0 if none */
	} rows[] = {
		{ "clef-flash", "Q4_K_M", 8, 1, 0 },
		{ "llama-3.1-8b", "Q4_K_M", 8, 1, 0 },
		{ "llama-3.1-8b", "Q8_0", 16, 1, 0 },
		{ "gemma-3-27b", "Q4_K_M", 24, 1, 0 },
		{ "qwen3-30b-a3b", "Q4_K_M", 20, 1, 0 },
		{ "deepseek-r1-distill-qwen-14b", "Q4_K_M", 6, 2, 0 },
		{ "mistral-small-24b", "Q4_K_M", 12, 1, 4 },
	};

	(void)state;
	for (size_t i = 0; i < UNIT_ARRAY_LEN(rows); i++) {
		cr_rig r = gpu_rig(rows[i].gib, 1000, rows[i].count);

		if (rows[i].second_gib > 0) {
			r.devices[1] = gpu_device(rows[i].second_gib, 500, 1);
			r.n_devices = 2;
		}
		check_boundary(rows[i].model, rows[i].quant, &r);
	}
}

/* More memory never lowers max_context; no-fit exactly when 512 tokens do not fit. */
static void test_max_context_monotonic(void **state)
{
	const cr_model *m = ts_model("clef-flash");
	uint32_t prev = 0;
	bool saw_zero = false, saw_max = false;

	(void)state;
	for (double gib = 4; gib <= 48; gib += 0.25) {
		cr_rig r = gpu_rig(gib, 1000, 1);
		cr_estimate e = run_ctx("clef-flash", "Q4_K_M", &r, 8192);

		assert_true(e.max_context >= prev);
		assert_true(e.max_context % 256 == 0 || e.max_context == m->context_max);
		assert_true(e.max_context <= m->context_max);
		assert_int_equal(e.fits, e.max_context >= 8192);
		assert_int_equal(e.tier == CR_TIER_NOFIT, e.max_context < 512);
		check_tier_consistent(&e);
		saw_zero |= e.max_context == 0;
		saw_max |= e.max_context == m->context_max;
		prev = e.max_context;
	}
	assert_true(saw_zero && saw_max);
}

/* Regression (fixed): estimate.c solve_max_context starts the bisection at
 * hi = context_max / 256 (rounded down), so for a model whose maximum is
 * not a multiple of 256 the capping of the last step to context_max never
 * runs: with context_max 1000 on a GPU where 1000 tokens fit, the estimate
 * says fits == true at n_ctx 1000 but max_context == 768. Expected
 * max_context == 1000 (the model max), as the header's "largest context
 * that fits" and the code's own cap intend. Shipped models all have
 * multiples of 256; GGUF headers need not. */
static void test_max_context_unaligned_model_max(void **state)
{
	cr_model m = *ts_model("clef-flash");
	cr_rig big = gpu_rig(1000, 1000, 1);
	cr_estimate_opts o = CR_ESTIMATE_OPTS_INIT;
	cr_estimate e;

	(void)state;
	m.context_max = 1000;
	o.n_ctx = 1000;
	e = run(&m, ts_quant("Q4_K_M"), &big, &o);
	assert_true(e.fits);
	assert_int_equal(e.max_context, 1000);
}

/* Regression (fixed): estimate.c kv_bytes_at multiplies uint64_t cell bytes by the cell
 * count without an overflow check, and the catalog accepts dimensions that
 * overflow it (512 layers, 65535 KV heads of 65536, context_max 2^30 all
 * pass models.json validation): 8.8e12 bytes per cell x 2^22 cells wraps
 * modulo 2^64, so the KV cache "shrinks" as the context grows and a hostile
 * catalog can make an impossible plan fit. Expected: KV bytes never
 * decrease with the context (saturate, or reject such dimensions). */
static void test_kv_no_wraparound(void **state)
{
	cr_model m = *ts_model("llama-3.1-8b");
	cr_estimate_opts o = CR_ESTIMATE_OPTS_INIT;
	uint64_t prev = 0;

	(void)state;
	m.n_layers = 512;
	m.n_heads = 65535;
	m.head_dim_k = m.head_dim_v = 65536;
	m.context_max = 1u << 30;
	for (uint32_t i = 0; i < m.n_layers; i++) {
		m.kv_heads[i] = 65535;
		m.layer_kind[i] = CR_LAYER_FULL;
	}
	for (uint32_t n = 1u << 16; n <= (1u << 30); n <<= 1) {
		uint64_t kv;

		o.n_ctx = n;
		kv = cr_estimate_kv_bytes(&m, &o);
		if (kv < prev)
			fail_msg("KV at n_ctx %u is %llu, below %llu at half that", n,
				 (unsigned long long)kv, (unsigned long long)prev);
		prev = kv;
	}
}

/* ---- decode relations ------------------------------------------------------------- */

static void test_decode_bandwidth(void **state)
{
	cr_rig slow = gpu_rig(100, 500, 1), fast = gpu_rig(100, 1000, 1);
	cr_estimate a = run_ctx("llama-3.1-8b", "Q4_K_M", &slow, 8192);
	cr_estimate b = run_ctx("llama-3.1-8b", "Q4_K_M", &fast, 8192);

	(void)state;
	assert_true(b.decode_tokens_per_s > a.decode_tokens_per_s);
	/* A fixed per-token latency makes it at most proportional. */
	assert_true(b.decode_tokens_per_s <= 2 * a.decode_tokens_per_s);
	/* Bandwidth moves speed, not memory. */
	assert_int_equal(a.memory.total_bytes, b.memory.total_bytes);
}

static void test_decode_depth(void **state)
{
	cr_rig r = gpu_rig(100, 1000, 1);
	cr_estimate_opts o = CR_ESTIMATE_OPTS_INIT;
	cr_estimate shallow, deep, dflt, empty, over;
	cr_error err = CR_ERROR_INIT;

	(void)state;
	o.n_ctx = 32768;
	o.depth = 1024;
	shallow = run(ts_model("llama-3.1-8b"), ts_quant("Q4_K_M"), &r, &o);
	o.depth = 32768;
	deep = run(ts_model("llama-3.1-8b"), ts_quant("Q4_K_M"), &r, &o);
	o.depth = CR_DEPTH_CONTEXT;
	dflt = run(ts_model("llama-3.1-8b"), ts_quant("Q4_K_M"), &r, &o);
	/* 0 is an empty cache, not "the default". */
	o.depth = 0;
	empty = run(ts_model("llama-3.1-8b"), ts_quant("Q4_K_M"), &r, &o);
	/* Deeper than the context: refused, not clamped. */
	o.depth = 32769;
	assert_int_equal(cr_estimate_run(ts_model("llama-3.1-8b"), ts_quant("Q4_K_M"), &r, &o, &over, &err),
			 CR_ERR_RANGE);
	assert_non_null(strstr(err.message, "context of 32768"));
	o.depth = CR_DEPTH_CONTEXT;
	o.prompt_tokens = 32769;
	assert_int_equal(cr_estimate_run(ts_model("llama-3.1-8b"), ts_quant("Q4_K_M"), &r, &o, &over, &err),
			 CR_ERR_RANGE);
	assert_non_null(strstr(err.message, "prompt of 32769"));
	o.prompt_tokens = 0;
	assert_int_equal(shallow.decode_depth, 1024);
	assert_int_equal(deep.decode_depth, 32768);
	assert_int_equal(dflt.decode_depth, 32768);
	assert_int_equal(empty.decode_depth, 0);
	assert_true(empty.decode_tokens_per_s > shallow.decode_tokens_per_s);
	assert_true(shallow.decode_tokens_per_s > deep.decode_tokens_per_s);
	assert_true(dflt.decode_tokens_per_s == deep.decode_tokens_per_s);
	/* Depth is a decode input only. */
	assert_int_equal(shallow.memory.total_bytes, deep.memory.total_bytes);

	/* All layers sliding: past the window, depth costs nothing more. */
	o.depth = 8192;
	shallow = run(ts_model("mistral-7b-v0.1"), ts_quant("Q4_K_M"), &r, &o);
	o.depth = 32768;
	deep = run(ts_model("mistral-7b-v0.1"), ts_quant("Q4_K_M"), &r, &o);
	assert_true(shallow.decode_tokens_per_s == deep.decode_tokens_per_s);
	o.depth = 1024;
	assert_true(run(ts_model("mistral-7b-v0.1"), ts_quant("Q4_K_M"), &r, &o).decode_tokens_per_s >
		    deep.decode_tokens_per_s);
}

/* gpt-oss ships its experts in MXFP4 and every GGUF keeps them so: presets
 * are sized per tensor type, against the published file sizes
 * (unsloth/gpt-oss-20b-GGUF F16 13.8 GB, Q8_0 12.1, Q4_K_M 11.6, Q2_K 11.5;
 * bartowski MXFP4 12.1), not params x bpw (Q8_0 once 22.2 GB). */
static void test_native_quant_sizing(void **state)
{
	const cr_model *m = ts_model("gpt-oss-20b");
	cr_estimate_opts o = CR_ESTIMATE_OPTS_INIT;
	static const struct {
		const char *quant;
		double file_gb, tolerance;
	} files[] = {
		{ "F16", 13.8, 0.01 }, { "Q8_0", 12.1, 0.01 }, { "MXFP4", 12.1, 0.01 },
		{ "Q6_K", 12.04, 0.04 }, { "Q4_K_M", 11.6, 0.04 }, { "Q2_K", 11.5, 0.06 },
	};

	(void)state;
	assert_string_equal(m->native_type, "MXFP4");
	assert_true(m->native_bpw == 4.25);
	for (size_t i = 0; i < UNIT_ARRAY_LEN(files); i++) {
		double gb = (double)cr_estimate_weights_bytes(m, ts_quant(files[i].quant), &o) / 1e9;

		if (fabs(gb - files[i].file_gb) > files[i].tolerance * files[i].file_gb)
			fail_msg("%s: %.3f GB, file %.2f GB", files[i].quant, gb, files[i].file_gb);
	}
	/* The native-format preset and Q8_0 are one file (the rest in Q8_0). */
	assert_true(llabs((long long)cr_estimate_weights_bytes(m, ts_quant("MXFP4"), &o) -
			  (long long)cr_estimate_weights_bytes(m, ts_quant("Q8_0"), &o)) < 10000000);
	/* A model without native_quant keeps params x bpw. */
	assert_int_equal(cr_estimate_weights_bytes(ts_model("llama-3.1-8b"), ts_quant("Q8_0"), &o),
			 (uint64_t)((double)ts_model("llama-3.1-8b")->params * 8.51 / 8.0));
	/* Exact GGUF bytes win over any sizing. */
	o.weights_bytes = 123456789;
	assert_int_equal(cr_estimate_weights_bytes(m, ts_quant("F16"), &o), 123456789);
}

/* A rig that holds a 256-token cache but not the 512-token minimum: no fit,
 * and no largest context either (it once said 256). */
static void test_nofit_has_no_max_context(void **state)
{
	cr_rig big = gpu_rig(1000, 1000, 1), r;
	cr_estimate_opts o = CR_ESTIMATE_OPTS_INIT;
	cr_estimate e256, e512, e;

	(void)state;
	o.n_ctx = 256;
	e256 = run(ts_model("llama-3.1-8b"), ts_quant("Q4_K_M"), &big, &o);
	o.n_ctx = 512;
	e512 = run(ts_model("llama-3.1-8b"), ts_quant("Q4_K_M"), &big, &o);
	assert_true(e256.memory.device_bytes < e512.memory.device_bytes);
	r = gpu_rig((double)(e256.memory.device_bytes + e512.memory.device_bytes) / 2 / 1073741824.0,
		    1000, 1);
	o.n_ctx = 8192;
	e = run(ts_model("llama-3.1-8b"), ts_quant("Q4_K_M"), &r, &o);
	assert_int_equal(e.tier, CR_TIER_NOFIT);
	assert_int_equal(e.max_context, 0);
}

static void test_decode_moe(void **state)
{
	/* 500 GB/s: bytes read dominate the token time (on faster cards the
	 * per-expert time of the MoE's gathered matmuls closes the gap). */
	cr_rig r = gpu_rig(100, 500, 1);
	cr_estimate moe = run_ctx("qwen3-30b-a3b", "Q4_K_M", &r, 8192);
	cr_estimate dense = run_ctx("llama-3.1-8b", "Q4_K_M", &r, 8192);

	(void)state;
	assert_true(moe.weights_read_bytes > 0);
	assert_true((double)moe.weights_read_bytes < 0.2 * (double)moe.memory.weights_bytes);
	assert_true((double)dense.weights_read_bytes > 0.9 * (double)dense.memory.weights_bytes);
	assert_true(dense.weights_read_bytes <= dense.memory.weights_bytes);
	/* 30B MoE with 3B active decodes faster than a dense 8B. */
	assert_true(moe.decode_tokens_per_s > dense.decode_tokens_per_s);
}

static void test_prefill(void **state)
{
	cr_rig r = gpu_rig(100, 1000, 1);
	cr_estimate_opts o = CR_ESTIMATE_OPTS_INIT;
	cr_estimate a, b;

	(void)state;
	a = run(ts_model("llama-3.1-8b"), ts_quant("Q4_K_M"), &r, &o);
	assert_int_equal(a.prompt_tokens, 2048);
	assert_true(a.prefill_tokens_per_s > 0);
	assert_close(a.time_to_decision_s, 2048 / a.prefill_tokens_per_s, 1e-12);
	r.devices[0].fp16_tflops = 200;
	b = run(ts_model("llama-3.1-8b"), ts_quant("Q4_K_M"), &r, &o);
	assert_true(b.prefill_tokens_per_s > a.prefill_tokens_per_s);
	o.n_ctx = 1024;
	assert_int_equal(run(ts_model("llama-3.1-8b"), ts_quant("Q4_K_M"), &r, &o).prompt_tokens, 1024);
	o.prompt_tokens = 300;
	assert_int_equal(run(ts_model("llama-3.1-8b"), ts_quant("Q4_K_M"), &r, &o).prompt_tokens, 300);
	r.devices[0].fp16_tflops = 0;
	a = run(ts_model("llama-3.1-8b"), ts_quant("Q4_K_M"), &r, &o);
	assert_true(a.prefill_tokens_per_s == 0 && a.time_to_decision_s == 0);
	assert_true(a.decode_tokens_per_s > 0);
}

/* Speed model v2 (docs/accuracy.md): what the terms must do, whatever the
 * fitted values. */
static void test_prefill_depth_and_moe(void **state)
{
	cr_rig r = gpu_rig(100, 1000, 1);
	cr_estimate_opts o = CR_ESTIMATE_OPTS_INIT;
	cr_estimate empty, deep, dense, moe;

	(void)state;
	o.n_ctx = 65536;
	o.depth = 0;
	empty = run(ts_model("llama-3.1-8b"), ts_quant("Q4_K_M"), &r, &o);
	o.depth = 32768;
	deep = run(ts_model("llama-3.1-8b"), ts_quant("Q4_K_M"), &r, &o);
	/* A prompt after 32k cached tokens attends to them: slower prefill,
	 * longer decision, and the depth is reported. */
	assert_int_equal(empty.prefill_depth, 0);
	assert_int_equal(deep.prefill_depth, 32768);
	assert_true(deep.prefill_tokens_per_s < 0.9 * empty.prefill_tokens_per_s);
	assert_true(deep.time_to_decision_s > empty.time_to_decision_s);
	/* The default depth (a full cache) is for decode; the prompt follows
	 * an empty cache. */
	o.depth = CR_DEPTH_CONTEXT;
	assert_int_equal(run(ts_model("llama-3.1-8b"), ts_quant("Q4_K_M"), &r, &o).prefill_depth, 0);
	/* Routed experts run below a dense GEMM's efficiency: per active
	 * parameter, an MoE model prefills slower than a dense one. */
	o.n_ctx = 8192;
	o.depth = 0;
	dense = run(ts_model("llama-3.1-8b"), ts_quant("Q4_K_M"), &r, &o);
	moe = run(ts_model("qwen3-30b-a3b"), ts_quant("Q4_K_M"), &r, &o);
	assert_true(moe.prefill_tokens_per_s * (double)ts_model("qwen3-30b-a3b")->active_params <
		    dense.prefill_tokens_per_s * (double)ts_model("llama-3.1-8b")->active_params);
	assert_true(dense.prefill_tokens_per_s_low < dense.prefill_tokens_per_s &&
		    dense.prefill_tokens_per_s < dense.prefill_tokens_per_s_high);
	/* A larger micro-batch gives each expert more tokens (m = 32 -> 128 for
	 * qwen3-30b-a3b): MoE prefill gains far more from -ub 2048 than dense
	 * prefill does. Without the expert term the MoE gain is only what the
	 * per-micro-batch weight read and layer time give (about +0.27 over
	 * dense on this rig); with it, about +0.6. */
	o.n_ubatch = 2048;
	assert_true(run(ts_model("qwen3-30b-a3b"), ts_quant("Q4_K_M"), &r, &o).prefill_tokens_per_s /
			    moe.prefill_tokens_per_s >
		    0.4 + run(ts_model("llama-3.1-8b"), ts_quant("Q4_K_M"), &r, &o).prefill_tokens_per_s /
			    dense.prefill_tokens_per_s);
}

/* Per-layer time: at the same bytes, more layers decode slower; and the
 * memory type sets the achievable bandwidth (HBM below GDDR per GB/s). */
static void test_decode_layers_and_memory(void **state)
{
	cr_rig r = gpu_rig(100, 1000, 1);
	cr_estimate gddr, hbm;
	cr_model many = *ts_model("llama-3.1-8b");
	cr_estimate_opts o = CR_ESTIMATE_OPTS_INIT;

	(void)state;
	gddr = run(ts_model("llama-3.1-8b"), ts_quant("Q4_K_M"), &r, &o);
	r.devices[0].mem_type = CR_MEMTYPE_HBM;
	hbm = run(ts_model("llama-3.1-8b"), ts_quant("Q4_K_M"), &r, &o);
	assert_true(hbm.decode_tokens_per_s < gddr.decode_tokens_per_s);
	r.devices[0].mem_type = CR_MEMTYPE_AUTO;
	/* The same parameters over twice the layers: KV and per-layer time
	 * grow, so decode is slower. */
	many.n_layers = 64;
	for (uint32_t i = 32; i < 64; i++) {
		many.kv_heads[i] = many.kv_heads[0];
		many.layer_kind[i] = many.layer_kind[0];
	}
	assert_true(run(&many, ts_quant("Q4_K_M"), &r, &o).decode_tokens_per_s < gddr.decode_tokens_per_s);
}

/* Confidence: measured rows back a dense 8B on an NVIDIA GDDR card; none
 * back a hybrid model on an NVIDIA HBM card under CUDA, Metal on HBM, or a
 * custom Vulkan device of no stated vendor; an Intel GPU's Vulkan decode
 * is marked for its driver. */
static void test_speed_confidence(void **state)
{
	cr_rig r = gpu_rig(100, 1000, 1);
	cr_estimate e;

	(void)state;
	e = run_ctx("llama-3.1-8b", "Q4_K_M", &r, 8192);
	assert_string_equal(e.decode_note, "");
	assert_string_equal(e.prefill_note, "");
	assert_true(e.decode_error_pct > 0 && e.prefill_error_pct > 0);
	r.devices[0].mem_type = CR_MEMTYPE_HBM;
	e = run_ctx("clef-flash", "Q4_K_M", &r, 8192);
	assert_non_null(strstr(e.decode_note, "hybrid"));
	r.devices[0].mem_type = CR_MEMTYPE_AUTO;
	r.devices[0].backend = CR_BACKEND_METAL;
	r.devices[0].mem_type = CR_MEMTYPE_HBM;
	e = run_ctx("llama-3.1-8b", "Q4_K_M", &r, 8192);
	assert_non_null(strstr(e.decode_note, "no measured metal rows"));
	r.devices[0].mem_type = CR_MEMTYPE_AUTO;
	r.devices[0].backend = CR_BACKEND_VULKAN;
	e = run_ctx("llama-3.1-8b", "Q4_K_M", &r, 8192);
	assert_non_null(strstr(e.decode_note, "no measured vulkan rows"));
	/* Vulkan on NVIDIA GDDR cards: measured, but only to 16896 tokens;
	 * decoding at 64k (over twice that) is beyond the data, at 512 it is not. */
	r.devices[0].vendor = CR_VENDOR_NVIDIA;
	e = run_ctx("llama-3.1-8b", "Q4_K_M", &r, 65536);
	assert_non_null(strstr(e.decode_note, "context 65536"));
	e = run_ctx("llama-3.1-8b", "Q4_K_M", &r, 512);
	assert_string_equal(e.decode_note, "");
	/* Intel on Vulkan: measured rows, but its decode depends on the
	 * driver (Windows' or Mesa), which the estimate does not know; its
	 * prefill stays calibrated. */
	r.devices[0].vendor = CR_VENDOR_INTEL;
	e = run_ctx("llama-3.1-8b", "Q4_K_M", &r, 512);
	assert_non_null(strstr(e.decode_note, "Intel GPU on Vulkan"));
	assert_string_equal(e.prefill_note, "");
}

/* Llama-3.1-8B Q4_K_M at 4k on each of the custom rigs `spec` (n of them)
 * into `e`; the first three's fixed decode times must fall in turn, and the
 * ratio of the two savings, (t0 - t1) / (t1 - t2), is returned. */
static double fixed_time_savings(const char *const *spec, unsigned n, cr_estimate *e)
{
	cr_error err = CR_ERROR_INIT;

	for (unsigned i = 0; i < n; i++) {
		cr_rig r;

		assert_int_equal(cr_rig_parse_spec(spec[i], &r, &err), CR_OK);
		e[i] = run_ctx("llama-3.1-8b", "Q4_K_M", &r, 4096);
	}
	assert_true(e[0].decode_fixed_s > e[1].decode_fixed_s && e[1].decode_fixed_s > e[2].decode_fixed_s);
	return (e[0].decode_fixed_s - e[1].decode_fixed_s) / (e[1].decode_fixed_s - e[2].decode_fixed_s);
}

/* CPU decode: the per-parameter time is divided by the CPU's FP32 TFLOPS:
 * going from 1 to 2 TFLOPS saves twice what going from 2 to 4 does (the
 * rest of the fixed time is the same); a CPU without a figure says that its
 * time is the calibration median's. */
static void test_cpu_decode_flops(void **state)
{
	static const char *const spec[] = { "custom:mem_gb=64,bw_gbs=90,tflops=1,backend=cpu",
					    "custom:mem_gb=64,bw_gbs=90,tflops=2,backend=cpu",
					    "custom:mem_gb=64,bw_gbs=90,tflops=4,backend=cpu",
					    "custom:mem_gb=64,bw_gbs=90,backend=cpu" };
	cr_estimate e[4];

	(void)state;
	assert_true(fabs(fixed_time_savings(spec, 4, e) - 2.0) < 1e-6);
	assert_string_equal(e[1].decode_note, "");
	assert_non_null(strstr(e[3].decode_note, "no FP32 figure for this CPU"));
}

/* GPU decode: besides the fixed time per layer, each layer has work that is
 * partly bandwidth-bound, timed as 1 / sqrt(bandwidth): going from 250 to
 * 1000 GB/s saves exactly twice what going from 1000 to 4000 does (a fixed
 * byte count would save four times as much, a fixed time nothing). */
static void test_gpu_layer_work(void **state)
{
	static const char *const spec[] = { "custom:mem_gb=80,bw_gbs=250,tflops=100",
					    "custom:mem_gb=80,bw_gbs=1000,tflops=100",
					    "custom:mem_gb=80,bw_gbs=4000,tflops=100" };
	cr_estimate e[3];

	(void)state;
	assert_true(fabs(fixed_time_savings(spec, 3, e) - 2.0) < 1e-6);
}

/* Prefill on a GPU whose int8 rate is not 2 x its FP16 figure (Pascal's
 * dp4a, "int8_tops"): the quantized weight GEMMs run that much faster, and
 * nothing else does. int8_tops = 2 x fp16_tflops is the default; at 4 x the
 * prefill of Q4_K_M is faster, F16's is not, and the time that depth adds
 * (attention and the KV pass) is the same to the last digit. */
static double prefill_s(const cr_rig *r, const char *quant, uint32_t depth)
{
	cr_estimate_opts o = CR_ESTIMATE_OPTS_INIT;
	cr_estimate e;

	o.n_ctx = 16384;
	o.depth = depth;
	e = run(ts_model("llama-3.1-8b"), ts_quant(quant), r, &o);
	assert_true(e.prefill_tokens_per_s > 0);
	return 1.0 / e.prefill_tokens_per_s;
}

static void test_prefill_int8_rate(void **state)
{
	cr_rig base = gpu_rig(48, 500, 1), same = base, dp4a = base;

	(void)state;
	same.devices[0].int8_tops = 2 * base.devices[0].fp16_tflops;
	dp4a.devices[0].int8_tops = 4 * base.devices[0].fp16_tflops;
	assert_true(prefill_s(&same, "Q4_K_M", 0) == prefill_s(&base, "Q4_K_M", 0));
	assert_true(prefill_s(&dp4a, "Q4_K_M", 0) < 0.9 * prefill_s(&base, "Q4_K_M", 0));
	assert_true(prefill_s(&dp4a, "F16", 0) == prefill_s(&base, "F16", 0));
	/* Attention at depth keeps the FP16 rate; it shares the GEMMs' overlap
	 * with the weight reads (gemm_time), so the increments agree to 1 %. */
	assert_close(prefill_s(&dp4a, "Q4_K_M", 8192) - prefill_s(&dp4a, "Q4_K_M", 0),
		     prefill_s(&base, "Q4_K_M", 8192) - prefill_s(&base, "Q4_K_M", 0),
		     0.01 * (prefill_s(&base, "Q4_K_M", 8192) - prefill_s(&base, "Q4_K_M", 0)));
}

/* Prefill's width gain (prefill_width_gain per doubling of the hidden size
 * over 4096) is the weight GEMMs': a model twice as wide at the same
 * parameters, heads and layers prefills faster at depth 0, but its attention
 * over the cache runs at the width-blind attention_rate, so the time that
 * depth adds agrees to 1 % (with the gain it would be 1 / 1.17 of it). */
static double prefill_width_s(const cr_rig *r, uint32_t hidden, uint32_t depth)
{
	cr_model m = *ts_model("llama-3.1-8b");
	cr_estimate_opts o = CR_ESTIMATE_OPTS_INIT;
	cr_estimate e;

	m.hidden = hidden;
	o.n_ctx = 16384;
	o.depth = depth;
	e = run(&m, ts_quant("Q4_K_M"), r, &o);
	assert_true(e.prefill_tokens_per_s > 0);
	return 1.0 / e.prefill_tokens_per_s;
}

static void test_prefill_width_gemms_only(void **state)
{
	cr_rig r = gpu_rig(48, 500, 1);
	double narrow = prefill_width_s(&r, 4096, 8192) - prefill_width_s(&r, 4096, 0);
	double wide = prefill_width_s(&r, 8192, 8192) - prefill_width_s(&r, 8192, 0);

	(void)state;
	assert_true(prefill_width_s(&r, 8192, 0) < 0.9 * prefill_width_s(&r, 4096, 0));
	assert_true(narrow > 0);
	assert_close(wide, narrow, 0.01 * narrow);
}

/* BF16 weights on a GPU without BF16 arithmetic ("bf16_tflops", Vega 20's
 * FP32 rate): their GEMMs run at that rate. At half the FP16 figure BF16
 * prefill is slower, by less than 2 x (the weight reads overlap the
 * arithmetic); F16 and quantized weights, and decode, are untouched; the
 * time that depth adds (attention over the F16 cache) grows by less than the
 * GEMMs' factor. */
static void test_prefill_bf16_rate(void **state)
{
	cr_rig base = gpu_rig(48, 500, 1), vega = base;
	cr_estimate_opts o = CR_ESTIMATE_OPTS_INIT;
	double b, v;

	(void)state;
	vega.devices[0].bf16_tflops = base.devices[0].fp16_tflops / 2;
	b = prefill_s(&base, "BF16", 0);
	v = prefill_s(&vega, "BF16", 0);
	assert_true(v > 1.3 * b && v < 2.0 * b);
	assert_true(prefill_s(&vega, "F16", 0) == prefill_s(&base, "F16", 0));
	assert_true(prefill_s(&vega, "Q4_K_M", 0) == prefill_s(&base, "Q4_K_M", 0));
	assert_true(prefill_s(&vega, "BF16", 8192) - v < 1.5 * (prefill_s(&base, "BF16", 8192) - b));
	o.n_ctx = 16384;
	assert_true(run(ts_model("llama-3.1-8b"), ts_quant("BF16"), &vega, &o).decode_tokens_per_s ==
		    run(ts_model("llama-3.1-8b"), ts_quant("BF16"), &base, &o).decode_tokens_per_s);
}

/* Decode of a legacy block quant (Q8_0, Q4_0: 32-weight blocks, one scale):
 * the same bytes as a K-quant's read at legacy_quant_eff x the bandwidth
 * share, so decode is faster; the KV cache's bytes and the per-layer times
 * are not, so at depth the gain in seconds per token is the same, and
 * memory and prefill do not change. */
static void test_decode_legacy_quant(void **state)
{
	const cr_model *m = ts_model("llama-3.1-8b");
	cr_rig r = gpu_rig(24, 1000, 1);
	cr_estimate_opts o = CR_ESTIMATE_OPTS_INIT;
	cr_weights legacy, kq;
	cr_estimate a, b, ad, bd;
	cr_error err = CR_ERROR_INIT;
	double weights_s;

	(void)state;
	cr_weights_exact(5000000000ull, "Q8_0", &legacy);
	cr_weights_exact(5000000000ull, "Q6_K", &kq);
	o.n_ctx = 16384;
	o.depth = 0;
	assert_int_equal(cr_estimate_run_weights(m, &legacy, &r, &o, &a, &err), CR_OK);
	assert_int_equal(cr_estimate_run_weights(m, &kq, &r, &o, &b, &err), CR_OK);
	assert_true(a.decode_tokens_per_s > 1.03 * b.decode_tokens_per_s);
	assert_true(a.memory.total_bytes == b.memory.total_bytes);
	assert_true(a.prefill_tokens_per_s == b.prefill_tokens_per_s);
	assert_true(a.weights_read_bytes == b.weights_read_bytes);
	/* The time saved is the weight bytes' time x (1 - 1 / legacy_quant_eff). */
	weights_s = 1.0 / b.decode_tokens_per_s - 1.0 / a.decode_tokens_per_s;
	o.depth = 12000;
	assert_int_equal(cr_estimate_run_weights(m, &legacy, &r, &o, &ad, &err), CR_OK);
	assert_int_equal(cr_estimate_run_weights(m, &kq, &r, &o, &bd, &err), CR_OK);
	assert_close(1.0 / bd.decode_tokens_per_s - 1.0 / ad.decode_tokens_per_s, weights_s, 1e-6 * weights_s);
}

/* Prefill on a Volta GPU (compute_capability 7.0): at a micro-batch of 64
 * tokens or more a MoE model's expert GEMMs take llama.cpp's generic
 * MUL_MAT_ID path, which costs more per token; a dense model, a micro-batch
 * below 64, Pascal (6.1), Turing (7.5) and a device without a stated compute
 * capability are not touched, nor is decode, and the added time does not
 * depend on the depth. */
static cr_estimate volta_run(const char *model, double cc, uint32_t ubatch, uint32_t depth)
{
	cr_rig r = gpu_rig(48, 900, 1);
	cr_estimate_opts o = CR_ESTIMATE_OPTS_INIT;
	cr_estimate e;

	r.devices[0].compute_capability = cc;
	o.n_ctx = 16384;
	o.n_ubatch = ubatch;
	o.depth = depth;
	e = run(ts_model(model), ts_quant("Q4_K_M"), &r, &o);
	assert_true(e.prefill_tokens_per_s > 0 && e.decode_tokens_per_s > 0);
	return e;
}

static void test_prefill_volta_moe(void **state)
{
	const char *moe = "qwen3-30b-a3b", *dense = "llama-3.1-8b";
	double base = 1.0 / volta_run(moe, 0, 512, 0).prefill_tokens_per_s;
	double volta = 1.0 / volta_run(moe, 7.0, 512, 0).prefill_tokens_per_s;

	(void)state;
	assert_true(volta > 1.5 * base);
	assert_true(volta_run(moe, 7.5, 512, 0).prefill_tokens_per_s == 1.0 / base);
	assert_true(volta_run(moe, 6.1, 512, 0).prefill_tokens_per_s == 1.0 / base);
	assert_true(volta_run(moe, 7.0, 32, 0).prefill_tokens_per_s == volta_run(moe, 0, 32, 0).prefill_tokens_per_s);
	assert_true(volta_run(dense, 7.0, 512, 0).prefill_tokens_per_s ==
		    volta_run(dense, 0, 512, 0).prefill_tokens_per_s);
	assert_true(volta_run(moe, 7.0, 512, 0).decode_tokens_per_s == volta_run(moe, 0, 512, 0).decode_tokens_per_s);
	assert_close(1.0 / volta_run(moe, 7.0, 512, 8192).prefill_tokens_per_s -
			     1.0 / volta_run(moe, 0, 512, 8192).prefill_tokens_per_s,
		     volta - base, 1e-12);
}

/* Decode on a CUDA GPU without dp4a (compute capability below 6.1: the
 * P100's 6.0): quantized weights add a time per active parameter at the
 * GPU's FP32 rate, half the FP16 figure at 6.0 (packed FP16) and the figure
 * itself at 5.2. Not at 6.1, nor without a stated compute capability, nor
 * for F16 weights, nor in prefill; the same at every depth, in proportion
 * to the active parameters, and once for two cards in turn. */
static double no_dp4a_s(const char *model, const char *quant, double cc, unsigned cards, uint32_t depth,
			double *prefill)
{
	cr_rig r = gpu_rig(80, 732, cards);
	cr_estimate_opts o = CR_ESTIMATE_OPTS_INIT;
	cr_estimate with, without;

	o.n_ctx = 16384;
	o.depth = depth;
	without = run(ts_model(model), ts_quant(quant), &r, &o);
	r.devices[0].compute_capability = cc;
	with = run(ts_model(model), ts_quant(quant), &r, &o);
	assert_true(with.decode_tokens_per_s > 0 && without.decode_tokens_per_s > 0);
	if (prefill)
		*prefill = with.prefill_tokens_per_s / without.prefill_tokens_per_s;
	return 1.0 / with.decode_tokens_per_s - 1.0 / without.decode_tokens_per_s;
}

static void test_decode_no_dp4a(void **state)
{
	double pp = 0, dense = no_dp4a_s("llama-3.1-8b", "Q4_K_M", 6.0, 1, 0, &pp);
	double moe = no_dp4a_s("qwen3-30b-a3b", "Q4_K_M", 6.0, 1, 0, NULL);

	(void)state;
	assert_true(dense > 1e-3);      /* 8e9 parameters x a few FLOPs / 50 TFLOPS: milliseconds */
	assert_true(pp == 1.0);
	assert_true(no_dp4a_s("llama-3.1-8b", "Q4_K_M", 6.1, 1, 0, NULL) == 0);
	assert_true(no_dp4a_s("llama-3.1-8b", "Q4_K_M", 7.0, 1, 0, NULL) == 0);
	assert_true(no_dp4a_s("llama-3.1-8b", "F16", 6.0, 1, 0, NULL) == 0);
	assert_close(no_dp4a_s("llama-3.1-8b", "Q4_K_M", 6.0, 1, 12000, NULL), dense, 1e-9 * dense);
	assert_close(no_dp4a_s("llama-3.1-8b", "Q4_K_M", 5.2, 1, 0, NULL), dense / 2, 1e-9 * dense);
	assert_close(no_dp4a_s("llama-3.1-8b", "Q4_K_M", 6.0, 2, 0, NULL), dense, 1e-9 * dense);
	assert_close(moe / dense, (double)ts_model("qwen3-30b-a3b")->active_params /
					  (double)ts_model("llama-3.1-8b")->active_params, 1e-9);
}

/* ---- rigs with several devices and tiers ------------------------------------------------ */

static void test_multi_device(void **state)
{
	cr_rig one = gpu_rig(24, 1008, 1), two = gpu_rig(24, 1008, 2), split = gpu_rig(24, 1008, 1);
	cr_estimate e1, e2, es;

	(void)state;
	split.devices[1] = gpu_device(24, 1008, 1);
	split.n_devices = 2;
	e1 = run_ctx("llama-3.1-8b", "Q4_K_M", &one, 8192);
	e2 = run_ctx("llama-3.1-8b", "Q4_K_M", &two, 8192);
	es = run_ctx("llama-3.1-8b", "Q4_K_M", &split, 8192);
	assert_int_equal(e2.memory.available_bytes, 2 * 24 * 1073741824ull);
	/* The output layer's device has the single card's compute buffer, the
	 * other one without the logits; both 3 more copies of their inputs
	 * (test_split_two_gpus has the figures). */
	assert_int_equal(e1.n_gpus, 0);
	assert_int_equal(e2.n_gpus, 2);
	assert_int_equal(e2.gpus[1].compute_bytes, e1.memory.compute_bytes + (uint64_t)(48 * MIB));
	assert_int_equal(e2.memory.compute_bytes, e2.gpus[0].compute_bytes + e2.gpus[1].compute_bytes);
	assert_int_equal(e2.memory.overhead_bytes, 2 * e1.memory.overhead_bytes);
	assert_int_equal(e2.memory.kv_bytes, e1.memory.kv_bytes);
	assert_int_equal(e2.memory.weights_bytes, e1.memory.weights_bytes);
	/* The group's figure is its fullest card. */
	assert_int_equal(e2.devices[0].bytes_per_device,
			 e2.gpus[0].total_bytes > e2.gpus[1].total_bytes ? e2.gpus[0].total_bytes : e2.gpus[1].total_bytes);
	assert_close((double)(e2.gpus[0].total_bytes + e2.gpus[1].total_bytes), e2.memory.device_bytes, 4);
	assert_int_equal(e2.devices[0].usable_per_device, 24 * 1073741824ull);
	/* Two groups of one card are two cards. */
	assert_memory_equal(&es.memory, &e2.memory, sizeof(es.memory));
	assert_true(es.decode_tokens_per_s == e2.decode_tokens_per_s);
	/* Layer split runs the cards in turn: no doubling of bandwidth. */
	assert_true(e2.decode_tokens_per_s < 1.5 * e1.decode_tokens_per_s);
}

/* ---- the layer split over several GPUs (split_gpus) ----------------------------------- */

#define MIB_U 1048576ull

/* Llama-3.1-8B at 8192 tokens, ubatch 512, flash attention on, F16 KV, by hand:
 *  - KV: 8 KV heads x 128 x 2 B = 2048 B for K and as much for V per cell and
 *    layer; x 8192 cells = 32 MiB per layer.
 *  - compute: row = 512 tokens x 4 B = 2048 B; the F16 mask 8192 x 512 x 2 B
 *    = 8 MiB; hidden rows 2048 x 4096 = 8 MiB. FFN peak = 8 + 2048 x (3 x
 *    14336 + 4 x 4096) B = 8 + 116 = 124 MiB; attention = 8 + 6 x 8 = 56 MiB;
 *    output end = 128256 x 2048 B + 2 x 8 MiB = 250.5 + 16 = 266.5 MiB.
 *    Without the output layer 124 MiB, with it 266.5 MiB; pipeline
 *    parallelism adds 3 x (8 MiB mask + 8 MiB hidden state) = 48 MiB to each.
 *  - weights: W the preset's bytes; the token table emb = vocab x hidden x
 *    W / params stays on the host; the output weight out = vocab x hidden x
 *    max(W / params, Q6_K's 6.5625 / 8); a layer lw = (W - emb - out) / 32.
 * Two 24 GiB cards: free memory 24 GiB - 512 MiB each, split points 0.5 and
 * 1; 33 slots (32 layers + the output layer): layer il goes to card 0 while
 * il / 33 < 0.5, so card 0 holds layers 0-16 (17), card 1 layers 17-31 (15)
 * and the output layer. */
static void test_split_two_gpus(void **state)
{
	const cr_model *m = ts_model("llama-3.1-8b");
	const cr_quant *q = ts_quant("Q4_K_M");
	cr_rig r = gpu_rig(24, 1008, 2);
	cr_estimate_opts o = CR_ESTIMATE_OPTS_INIT;
	cr_estimate e;
	double w, emb, out, lw, bpw;

	(void)state;
	e = run(m, q, &r, &o);
	w = (double)cr_estimate_weights_bytes(m, q, &o);
	bpw = w / (double)m->params;
	emb = (double)m->vocab * m->hidden * bpw;
	out = (double)m->vocab * m->hidden * (bpw > 6.5625 / 8 ? bpw : 6.5625 / 8);
	lw = (w - emb - out) / 32;
	assert_int_equal(e.n_gpus, 2);
	assert_true(e.pipeline_parallel);
	assert_int_equal(e.gpus[0].layers, 17);
	assert_int_equal(e.gpus[1].layers, 15);
	assert_false(e.gpus[0].output_layer);
	assert_true(e.gpus[1].output_layer);
	assert_true(fabs(e.gpus[0].split - 0.5) < 1e-9);
	assert_int_equal(e.gpus[0].kv_bytes, 17 * 32 * MIB_U);
	assert_int_equal(e.gpus[1].kv_bytes, 15 * 32 * MIB_U);
	assert_int_equal(e.gpus[0].compute_bytes, 124 * MIB_U + 48 * MIB_U);
	assert_int_equal(e.gpus[1].compute_bytes, (uint64_t)(266.5 * MIB) + 48 * MIB_U);
	assert_close((double)e.gpus[0].weights_bytes, 17 * lw, 17);
	assert_close((double)e.gpus[1].weights_bytes, 15 * lw + out, 17);
	assert_int_equal(e.gpus[0].reserve_bytes, CR_RESERVE_CUDA_BYTES);
	assert_int_equal(e.gpus[1].total_bytes, e.gpus[1].weights_bytes + e.gpus[1].kv_bytes +
							e.gpus[1].compute_bytes + e.gpus[1].reserve_bytes);
	/* Card 0 has more layers but no output layer: 17 lw + 544 + 172 MiB
	 * against 15 lw + out + 480 + 314.5 MiB; out (0.40 GB) is more than 2
	 * lw (0.23 GB each), so card 1 is the fuller one. */
	assert_true(e.gpus[1].total_bytes > e.gpus[0].total_bytes);
	assert_int_equal(e.limiting_gpu, 1);
	/* The host compute buffer: F32 mask 8192 x 512 x 4 B = 16 MiB + input
	 * embeddings 4096 x 512 x 4 B = 8 MiB. */
	assert_int_equal(e.host_compute_bytes, 24 * MIB_U);
	/* --tensor-split 1,3: split point 0.25; il / 33 < 0.25 for il <= 8. */
	o.tensor_split[0] = 1;
	o.tensor_split[1] = 3;
	o.n_tensor_split = 2;
	e = run(m, q, &r, &o);
	assert_int_equal(e.gpus[0].layers, 9);
	assert_int_equal(e.gpus[1].layers, 23);
	assert_int_equal(e.gpus[1].kv_bytes, 23 * 32 * MIB_U);
	assert_true(fabs(e.gpus[1].split - 0.75) < 1e-9);
	/* The proportions have no meaning for the tensor split: refused. */
	{
		cr_error err = CR_ERROR_INIT;

		o.split = CR_SPLIT_TENSOR;
		assert_int_equal(cr_estimate_run(m, q, &r, &o, &e, &err), CR_ERR_INVALID);
		assert_non_null(strstr(err.message, "layer split"));
	}
}

/* An unequal pair: a 24 GiB and an 8 GiB card (two groups). Free memory
 * 24064 and 7680 MiB: split point 24064 / 31744 = 0.75806; il / 33 <
 * 0.75806 for il <= 25, so card 0 holds 26 layers (832 MiB of KV), card 1
 * the other 6 (192 MiB) and the output layer. */
static void test_split_unequal(void **state)
{
	const cr_model *m = ts_model("llama-3.1-8b");
	const cr_quant *q = ts_quant("Q4_K_M");
	cr_rig r = gpu_rig(24, 1008, 1);
	cr_estimate_opts o = CR_ESTIMATE_OPTS_INIT;
	cr_estimate e;
	cr_error err = CR_ERROR_INIT;

	(void)state;
	r.devices[1] = gpu_device(8, 448, 1);
	r.n_devices = 2;
	e = run(m, q, &r, &o);
	assert_int_equal(e.n_gpus, 2);
	assert_int_equal(e.gpus[0].group, 0);
	assert_int_equal(e.gpus[1].group, 1);
	assert_int_equal(e.gpus[0].layers, 26);
	assert_int_equal(e.gpus[1].layers, 6);
	assert_true(e.gpus[1].output_layer);
	assert_int_equal(e.gpus[0].kv_bytes, 26 * 32 * MIB_U);
	assert_int_equal(e.gpus[1].kv_bytes, 6 * 32 * MIB_U);
	assert_int_equal(e.gpus[1].usable_bytes, 8 * 1024 * MIB_U);
	assert_true(e.fits);
	/* Everything on the small card (--tensor-split 0,1): it cannot hold the
	 * model, while the pool of 32 GiB could; the rig does not fit, and the
	 * small card is the limit. */
	o.tensor_split[0] = 0;
	o.tensor_split[1] = 1;
	o.n_tensor_split = 2;
	o.n_ctx = 131072;
	e = run(m, q, &r, &o);
	assert_int_equal(e.gpus[0].layers, 0);
	assert_int_equal(e.gpus[0].compute_bytes, 0);
	assert_int_equal(e.gpus[1].layers, 32);
	assert_false(e.fits);
	assert_int_equal(e.limiting_gpu, 1);
	assert_true(e.gpus[1].total_bytes > e.gpus[1].usable_bytes);
	assert_true(e.memory.device_bytes < e.memory.available_bytes);
	assert_true(e.max_context > 0 && e.max_context < 131072);
	/* A bad split is refused in the estimator's terms. */
	o.n_tensor_split = 3;
	assert_int_equal(cr_estimate_run(m, q, &r, &o, &e, &err), CR_ERR_INVALID);
	assert_non_null(strstr(err.message, "tensor split of 3"));
	o.n_tensor_split = 2;
	o.tensor_split[1] = 0;
	assert_int_equal(cr_estimate_run(m, q, &r, &o, &e, &err), CR_ERR_INVALID);
	o.tensor_split[1] = -1;
	assert_int_equal(cr_estimate_run(m, q, &r, &o, &e, &err), CR_ERR_INVALID);
}

/* Per layer kind: the devices' KV adds up to the model's, sliding layers at
 * their window's cells and recurrent layers with their state; --cpu-moe is a
 * tensor override, which turns pipeline parallelism off. */
static void test_split_layer_kinds(void **state)
{
	static const char *const ids[] = { "gemma-3-27b", "qwen3.5-27b", "qwen3-30b-a3b" };
	cr_rig r = gpu_rig(48, 1000, 4);
	cr_estimate_opts o = CR_ESTIMATE_OPTS_INIT;

	(void)state;
	for (size_t i = 0; i < UNIT_ARRAY_LEN(ids); i++) {
		cr_estimate e = run(ts_model(ids[i]), ts_quant("Q4_K_M"), &r, &o);
		uint64_t kv = 0;
		uint32_t layers = 0;
		unsigned outs = 0;

		assert_int_equal(e.n_gpus, 4);
		for (unsigned g = 0; g < 4; g++) {
			kv += e.gpus[g].kv_bytes;
			layers += e.gpus[g].layers;
			outs += e.gpus[g].output_layer;
		}
		assert_int_equal(kv, e.memory.kv_bytes + e.memory.state_bytes);
		assert_int_equal(layers, ts_model(ids[i])->n_layers);
		assert_int_equal(outs, 1);
		assert_true(e.gpus[3].output_layer);
	}
	r.devices[1] = ram_device(128, 100);
	r.n_devices = 2;
	o.cpu_moe = true;
	{
		cr_estimate e = run(ts_model("qwen3-30b-a3b"), ts_quant("Q4_K_M"), &r, &o);

		assert_int_equal(e.n_gpus, 4);
		assert_false(e.pipeline_parallel);
	}
}

/* Tensor parallel reads every layer on both cards at once. */
static void test_tensor_split(void **state)
{
	cr_rig r = gpu_rig(48, 1000, 2);
	cr_estimate_opts o = CR_ESTIMATE_OPTS_INIT;
	cr_estimate layer, tensor;

	(void)state;
	r.interconnect_gbs = 900;
	layer = run(ts_model("llama-3.1-70b"), ts_quant("Q4_K_M"), &r, &o);
	o.split = CR_SPLIT_TENSOR;
	tensor = run(ts_model("llama-3.1-70b"), ts_quant("Q4_K_M"), &r, &o);
	assert_true(layer.fits && tensor.fits);
	assert_true(tensor.decode_tokens_per_s > layer.decode_tokens_per_s);
	assert_true(tensor.decode_tokens_per_s < 2 * layer.decode_tokens_per_s);
}

static cr_rig offload_rig(void)
{
	cr_rig r = gpu_rig(24, 1008, 1);

	snprintf(r.id, sizeof(r.id), "test-offload");
	r.devices[0].fp16_tflops = 165;
	r.devices[1] = ram_device(256, 200);
	r.n_devices = 2;
	return r;
}

static void test_partial_offload(void **state)
{
	cr_rig r = offload_rig(), big = gpu_rig(96, 1008, 1);
	cr_estimate e = run_ctx("llama-3.1-70b", "Q4_K_M", &r, 8192);
	cr_estimate on_gpu = run_ctx("llama-3.1-70b", "Q4_K_M", &big, 8192);
	uint64_t sum;

	(void)state;
	assert_true(e.fits);
	assert_true(e.offload_fraction > 0 && e.offload_fraction < 1);
	assert_true(e.gpu_layers > 0 && e.gpu_layers < 80);
	assert_int_equal(e.memory.available_bytes,
			 24 * 1073741824ull + (uint64_t)(0.9 * 256 * 1073741824.0));
	assert_true(on_gpu.fits);
	assert_true(on_gpu.offload_fraction == 0);
	assert_true(e.decode_tokens_per_s < on_gpu.decode_tokens_per_s);
	/* The GPU is filled up to its headroom, not beyond. */
	assert_true(e.memory.device_bytes <= 24 * 1073741824ull);
	/* With system RAM in the rig the total counts both tiers. */
	sum = e.memory.weights_bytes + e.memory.kv_bytes + e.memory.state_bytes +
	      e.memory.compute_bytes + e.memory.output_bytes + e.memory.overhead_bytes;
	assert_close(e.memory.total_bytes, sum, 8);
	assert_close(e.memory.total_bytes, e.memory.device_bytes + e.memory.host_bytes, 2);
}

/* Two GPUs that cannot hold every layer are filled with whole layers, and the
 * estimate says so (gpus_filled): their layers are the GPU layers; with room
 * for every layer, or with a tensor split given, they are split instead. */
static void test_gpus_filled(void **state)
{
	const cr_model *m = ts_model("llama-3.1-8b");
	const cr_quant *q = ts_quant("Q8_0");
	cr_rig r = gpu_rig(4.5, 500, 2), big = gpu_rig(24, 500, 2);
	cr_estimate_opts o = CR_ESTIMATE_OPTS_INIT;
	cr_estimate e;

	(void)state;
	r.devices[0].fp16_tflops = 50;
	r.devices[1] = ram_device(64, 80);
	r.n_devices = 2;
	e = run(m, q, &r, &o);
	assert_true(e.offload_fraction > 0);
	assert_true(e.gpus_filled);
	assert_int_equal(e.n_gpus, 2);
	assert_int_equal(e.gpus[0].layers + e.gpus[1].layers, e.gpu_layers);
	e = run(m, q, &big, &o);
	assert_false(e.gpus_filled);
	o.tensor_split[0] = 1;
	o.tensor_split[1] = 1;
	o.n_tensor_split = 2;
	e = run(m, q, &r, &o);
	assert_false(e.gpus_filled);
}

/* The byte figures of llama-3.1-8b Q4_K_M at 8192 tokens (test_split_two_gpus):
 * a layer's weights lw = 124.15 MiB and its KV 32 MiB, 156.15 MiB together;
 * the output weight 410.98 MiB; compute 266.5 MiB with the output layer, 124
 * without; pipeline copies 48 MiB; reserve 512 MiB and margin 1024 MiB. */
static void fit_figures(uint64_t *lw, uint64_t *out)
{
	const cr_model *m = ts_model("llama-3.1-8b");
	cr_estimate_opts o = CR_ESTIMATE_OPTS_INIT;
	double w = (double)cr_estimate_weights_bytes(m, ts_quant("Q4_K_M"), &o), bpw = w / (double)m->params;
	double emb = (double)m->vocab * m->hidden * bpw, o_w = (double)m->vocab * m->hidden * (bpw > 6.5625 / 8 ? bpw : 6.5625 / 8);

	*lw = (uint64_t)((w - emb - o_w) / 32);
	*out = (uint64_t)o_w;
}

static cr_rig fit_rig(double gib0, double gib1, bool ram)
{
	cr_rig r = gpu_rig(gib0, 1000, 1);

	r.devices[1] = gpu_device(gib1, 500, 1);
	r.n_devices = 2;
	if (ram)
		r.devices[r.n_devices++] = ram_device(64, 80);
	return r;
}

/* llama.cpp's fit (common/fit.cpp common_params_fit_impl) when the pooled
 * memory holds the model but the proportional split leaves a card short of
 * its margin. 6 + 3 GiB, free 5632 and 2560 MiB: split point 0.6875, il / 33
 * < 0.6875 for il <= 22, so 23 layers on card 0 and 9 + output on card 1:
 * 9 x 124.15 + 410.98 + 288 + 266.5 + 48 + 512 = 2642.8 of 3072 MiB, 429 left,
 * under the margin. The fit fills back to front: card 1's target 3072 - 512 -
 * 1024 = 1536 takes the output (410.98 + 266.5) and k layers with 677.5 +
 * 156.15 k <= 1536: k = 5; card 0 (target 4608), offered the other 27, needs
 * 27 x 156.15 + 124 + 48 = 4388 and takes them all. Every layer stays on the
 * GPUs, each card keeps its margin, and the tensor split is 27 : 6 slots. */
static void test_fit_moves_layers(void **state)
{
	const cr_model *m = ts_model("llama-3.1-8b");
	const cr_quant *q = ts_quant("Q4_K_M");
	cr_rig r = fit_rig(6, 3, false);
	cr_estimate_opts o = CR_ESTIMATE_OPTS_INIT;
	cr_estimate e;
	uint64_t lw, out;

	(void)state;
	fit_figures(&lw, &out);
	e = run(m, q, &r, &o);
	assert_true(e.gpus_filled);
	assert_true(e.fits);
	assert_true(e.offload_fraction == 0);
	assert_true(e.pipeline_parallel);
	assert_int_equal(e.gpus[0].layers, 27);
	assert_int_equal(e.gpus[1].layers, 5);
	assert_true(e.gpus[1].output_layer);
	assert_true(fabs(e.gpus[0].split - 27.0 / 33) < 1e-6);
	assert_int_equal(e.gpus[1].weights_bytes, 5 * lw + out);
	assert_int_equal(e.gpus[1].kv_bytes, 5 * 32 * MIB_U);
	assert_int_equal(e.gpus[1].compute_bytes, (uint64_t)(266.5 * MIB) + 48 * MIB_U);
	assert_int_equal(e.gpus[1].margin_bytes,
			 (int64_t)(3072 * MIB_U) - (int64_t)(5 * lw + out + 160 * MIB_U + (uint64_t)(314.5 * MIB) + 512 * MIB_U));
	assert_true(e.gpus[0].margin_bytes >= (int64_t)CR_DEFAULT_HEADROOM_BYTES &&
		    e.gpus[1].margin_bytes >= (int64_t)CR_DEFAULT_HEADROOM_BYTES);
	assert_int_not_equal(e.tier, CR_TIER_TIGHT);
	/* 4.5 + 4.5 GiB: the proportional 17 / 15 + output leaves 1269 and 1028
	 * MiB, both above the margin: llama.cpp's fit changes nothing ("no
	 * changes needed"). */
	r = fit_rig(4.5, 4.5, false);
	e = run(m, q, &r, &o);
	assert_false(e.gpus_filled);
	assert_int_equal(e.gpus[0].layers, 17);
	assert_int_equal(e.gpus[1].layers, 15);
	/* --gpu-layers or a tensor split given (or a tensor override such as --cpu-moe):
	 * the fit aborts and the proportional split stands (23 | 9 + output). */
	r = fit_rig(6, 3, true);
	o.gpu_layers = 99;
	e = run(m, q, &r, &o);
	assert_false(e.gpus_filled);
	assert_int_equal(e.gpus[0].layers, 23);
	o.gpu_layers = -1;
	o.tensor_split[0] = 2;
	o.tensor_split[1] = 1;
	o.n_tensor_split = 2;
	assert_false(run(m, q, &r, &o).gpus_filled);
}

/* A card over its memory, and the fit cannot keep every margin: 5 + 2.5 GiB,
 * free 4608 and 2048, split point 0.6923, 23 layers on card 0, 9 + output on
 * card 1: 1528.3 + 288 + 314.5 + 512 = 2642.8 of 2560 MiB, 82.8 short. The
 * fit: card 1's target 1024 takes the output and 2 layers (677.5 + 312.3 =
 * 989.8); card 0's target 3584 cannot hold the other 30 (4856.5), so layers
 * stay in RAM and card 0 also holds op offload's copy of one of their FFN
 * matrices (34.3 MiB here): 124 + 34.3 + 156.15 k <= 3584, k = 21. With a RAM
 * tier llama.cpp runs 21 + 2 layers and the output on the GPUs, 9 layers in
 * RAM; without one the proportional split stands, and the short card's
 * margin is negative by what it lacks. */
static void test_fit_partial(void **state)
{
	const cr_model *m = ts_model("llama-3.1-8b");
	const cr_quant *q = ts_quant("Q4_K_M");
	cr_rig r = fit_rig(5, 2.5, true);
	cr_estimate_opts o = CR_ESTIMATE_OPTS_INIT;
	cr_estimate e;
	uint64_t lw, out;

	(void)state;
	fit_figures(&lw, &out);
	e = run(m, q, &r, &o);
	assert_true(e.gpus_filled && e.fits);
	assert_int_equal(e.gpus[0].layers, 21);
	assert_int_equal(e.gpus[1].layers, 2);
	assert_true(e.gpus[1].output_layer);
	assert_int_equal(e.gpu_layers, 23);
	assert_true(fabs(e.offload_fraction - 9.0 / 32) < 1e-12);
	assert_false(e.pipeline_parallel);
	assert_int_equal(e.gpus[1].weights_bytes, 2 * lw + out);
	assert_int_equal(e.gpus[1].compute_bytes, (uint64_t)(266.5 * MIB));
	assert_int_equal(e.gpus[0].compute_bytes, 124 * MIB_U);
	assert_true(e.gpus[0].other_bytes > 30 * MIB_U && e.gpus[0].other_bytes < 40 * MIB_U);
	/* RAM holds the 9 layers' weights and KV beside the token table and
	 * the logits. */
	assert_true(e.memory.host_bytes >= 9 * (lw + 32 * MIB_U));
	r = fit_rig(5, 2.5, false);
	e = run(m, q, &r, &o);
	assert_false(e.gpus_filled);
	assert_false(e.fits);
	assert_int_equal(e.limiting_gpu, 1);
	assert_int_equal(e.gpus[1].layers, 9);
	assert_int_equal(e.gpus[1].margin_bytes,
			 (int64_t)(2560 * MIB_U) - (int64_t)(9 * lw + out + 288 * MIB_U + (uint64_t)(314.5 * MIB) + 512 * MIB_U));
	assert_true(e.gpus[1].margin_bytes < 0 && e.gpus[0].margin_bytes > 0);
	assert_int_equal(e.free_bytes, 0);
	for (unsigned i = 0; i < e.n_gpus; i++)
		assert_int_equal(e.gpus[i].margin_bytes, (int64_t)e.gpus[i].usable_bytes - (int64_t)e.gpus[i].total_bytes);
}

/* Whole layers only where they fit: 3 + 3 GiB and RAM. Card 1 (target 1536)
 * takes the output and 5 layers (1458.2; a sixth would need 1614.4); card 0
 * (target 1536) has 1536 - 124 - 34.3 = 1377.7 for layers, 8.82 of them: 8,
 * not the 9 a rounded count would give, and not the 5.5 + 8.8 = 14.3 layers
 * a pooled fraction would spread. 13 layers and the output on the GPUs. */
static void test_fit_whole_layers(void **state)
{
	cr_rig r = fit_rig(3, 3, true);
	cr_estimate e = run(ts_model("llama-3.1-8b"), ts_quant("Q4_K_M"), &r, &(cr_estimate_opts)CR_ESTIMATE_OPTS_INIT);

	(void)state;
	assert_true(e.gpus_filled && e.fits);
	assert_int_equal(e.gpus[0].layers, 8);
	assert_int_equal(e.gpus[1].layers, 5);
	assert_int_equal(e.gpu_layers, 13);
	assert_true(fabs(e.offload_fraction - 19.0 / 32) < 1e-12);
	assert_true(e.gpus[0].margin_bytes >= (int64_t)CR_DEFAULT_HEADROOM_BYTES &&
		    e.gpus[0].margin_bytes < (int64_t)CR_DEFAULT_HEADROOM_BYTES + 157 * (int64_t)MIB_U);
	assert_true(e.gpus[1].margin_bytes >= (int64_t)CR_DEFAULT_HEADROOM_BYTES &&
		    e.gpus[1].margin_bytes < (int64_t)CR_DEFAULT_HEADROOM_BYTES + 157 * (int64_t)MIB_U);
}

/* An embedding model (and a reranker): no decode speed, the tier judged on
 * the prefill of its input as --workload decide is, and an output buffer of
 * n_vocab + n_embd floats for every token of a batch (llama.cpp outputs all
 * tokens of an embedding context). The prefill is the generator's. */
static void test_embedding_model(void **state)
{
	cr_model emb = *ts_model("qwen3-embedding-8b"), gen = emb;
	cr_rig r = gpu_rig(24, 1000, 1);
	cr_estimate_opts o = CR_ESTIMATE_OPTS_INIT;
	cr_estimate e, g;

	(void)state;
	assert_int_equal(emb.task, CR_TASK_EMBEDDING);
	gen.task = CR_TASK_GENERATION;
	e = run(&emb, ts_quant("Q8_0"), &r, &o);
	g = run(&gen, ts_quant("Q8_0"), &r, &o);
	assert_true(e.fits && g.fits);
	assert_true(e.decode_tokens_per_s == 0 && e.decode_tokens_per_s_low == 0 &&
		    e.decode_tokens_per_s_high == 0);
	assert_true(g.decode_tokens_per_s > 20);
	assert_true(e.prefill_tokens_per_s > 0 && e.prefill_tokens_per_s == g.prefill_tokens_per_s);
	assert_true(e.time_to_decision_s == g.time_to_decision_s);
	assert_int_equal(e.memory.output_bytes, (uint64_t)((151936.0 + 4096) * 4 * 2048));
	assert_int_equal(g.memory.output_bytes, (uint64_t)(151936.0 * 4));
	assert_non_null(strstr(e.basis, "embedding model: no text generation"));
	/* A short context caps the batch. */
	o.n_ctx = 1024;
	assert_int_equal(run(&emb, ts_quant("Q8_0"), &r, &o).memory.output_bytes,
			 (uint64_t)((151936.0 + 4096) * 4 * 1024));
	/* A slow FP16 rate: the generator still decodes fast at a short
	 * context (decode's attention arithmetic at depth runs at the FP16
	 * figure too), the embedder's tier follows its prefill (over 5 s for
	 * 2048 tokens: slow). */
	o = (cr_estimate_opts)CR_ESTIMATE_OPTS_INIT;
	o.n_ctx = 4096;
	r.devices[0].fp16_tflops = 2.0;
	e = run(&emb, ts_quant("Q8_0"), &r, &o);
	g = run(&gen, ts_quant("Q8_0"), &r, &o);
	assert_true(e.time_to_decision_s > CR_TIER_OK_DECIDE_S);
	assert_int_equal(e.tier, CR_TIER_SLOW);
	assert_int_equal(g.tier, CR_TIER_FAST);
	/* No FP16 figure: no prefill, so the tier is unknown, not a guess. */
	r.devices[0].fp16_tflops = 0;
	assert_int_equal(run(&emb, ts_quant("Q8_0"), &r, &o).tier, CR_TIER_UNKNOWN);
	/* A reranker is judged the same way. */
	emb = *ts_model("qwen3-reranker-0.6b");
	assert_int_equal(emb.task, CR_TASK_RERANK);
	r.devices[0].fp16_tflops = 100;
	e = run(&emb, ts_quant("Q8_0"), &r, &o);
	assert_true(e.decode_tokens_per_s == 0 && e.prefill_tokens_per_s > 0);
	assert_int_equal(e.tier, CR_TIER_FAST);
}

/* -ngl N as current llama.cpp counts it (src/llama-model.cpp load_tensors,
 * since PR 18148: i_gpu_start = max(n_layer + 1 - N, 0), act_gpu_layers =
 * min(N, n_layer + 1), the output layer slot n_layer): the output layer
 * first, then the last N - 1 repeating layers. Worked by hand for
 * Llama 3.1 8B (32 layers, vocab 128256, hidden 4096, untied) with exact
 * weights of 4.5 bits per parameter, 8 030 261 248 x 9 / 16 =
 * 4 517 021 952 B: the token table 128256 x 4096 x 0.5625 = 295 501 824
 * (host), the output weight at Q6_K's 6.5625 bits (above the mix's mean)
 * 128256 x 4096 x 0.8203125 = 430 940 160, a repeating layer (4 517 021 952 -
 * 295 501 824 - 430 940 160) / 32 = 118 455 624. On the GPU:
 *   -ngl 0: nothing;                 -ngl 1: the output weight, 430 940 160;
 *   -ngl 32: 31 layers + output, 31 x 118 455 624 + 430 940 160 = 4 103 064 504;
 *   -ngl 33: everything but the table, 4 517 021 952 - 295 501 824 = 4 221 520 128.
 * The rule before PR 18148 (opts.gpu_layers_repeating: i_gpu_start = n_layer -
 * N): -ngl 1 is one layer, 118 455 624; -ngl 32 every layer and not the output,
 * 32 x 118 455 624 = 3 790 579 968. Two equal GPUs at -ngl 10: i_gpu_start 23,
 * act 10, slot il on GPU 1 once (il - 23) / 10 >= 0.5: layers 23-27 on GPU 0,
 * 28-31 and the output layer on GPU 1. */
static void test_gpu_layers_count_output(void **state)
{
	const cr_model *m = ts_model("llama-3.1-8b");
	cr_rig r = offload_rig(), two = fit_rig(12, 12, true);
	cr_estimate_opts o = CR_ESTIMATE_OPTS_INIT;
	cr_weights w;
	cr_estimate e, old1, new1, old32, new32;
	cr_error err = CR_ERROR_INIT;
	const uint64_t layer = 118455624, out = 430940160;

	(void)state;
	cr_weights_exact(4517021952ull, "Q4_K", &w);
	o.gpu_layers = 0;
	assert_int_equal(cr_estimate_run_weights(m, &w, &r, &o, &e, &err), CR_OK);
	assert_int_equal(e.gpu_layers, 0);
	assert_false(e.output_layer_on_gpu);
	assert_close((double)e.memory.device_weights_bytes, 0, 2);
	assert_true(e.offload_fraction == 1);

	o.gpu_layers = 1;
	assert_int_equal(cr_estimate_run_weights(m, &w, &r, &o, &new1, &err), CR_OK);
	assert_int_equal(new1.gpu_layers, 0);
	assert_true(new1.output_layer_on_gpu);
	assert_true(new1.offload_fraction == 1);
	assert_close((double)new1.memory.device_weights_bytes, (double)out, 2);

	o.gpu_layers = 32;
	assert_int_equal(cr_estimate_run_weights(m, &w, &r, &o, &new32, &err), CR_OK);
	assert_int_equal(new32.gpu_layers, 31);
	assert_true(new32.output_layer_on_gpu);
	assert_close(new32.offload_fraction, 1.0 / 32, 1e-12);
	assert_close((double)new32.memory.device_weights_bytes, 31.0 * layer + out, 2);

	o.gpu_layers = 33;
	assert_int_equal(cr_estimate_run_weights(m, &w, &r, &o, &e, &err), CR_OK);
	assert_int_equal(e.gpu_layers, 32);
	assert_true(e.output_layer_on_gpu);
	assert_true(e.offload_fraction == 0);
	assert_close((double)e.memory.device_weights_bytes, 4221520128.0, 2);
	o.gpu_layers = 99; /* more than there are slots: the same */
	assert_int_equal(cr_estimate_run_weights(m, &w, &r, &o, &old1, &err), CR_OK);
	assert_int_equal(old1.memory.device_weights_bytes, e.memory.device_weights_bytes);

	/* The old rule, for logs of builds before PR 18148. */
	o.gpu_layers_repeating = true;
	o.gpu_layers = 1;
	assert_int_equal(cr_estimate_run_weights(m, &w, &r, &o, &old1, &err), CR_OK);
	assert_int_equal(old1.gpu_layers, 1);
	assert_false(old1.output_layer_on_gpu);
	assert_close((double)old1.memory.device_weights_bytes, (double)layer, 2);
	o.gpu_layers = 32;
	assert_int_equal(cr_estimate_run_weights(m, &w, &r, &o, &old32, &err), CR_OK);
	assert_int_equal(old32.gpu_layers, 32);
	assert_false(old32.output_layer_on_gpu);
	assert_true(old32.offload_fraction == 0);
	assert_close((double)old32.memory.device_weights_bytes, 32.0 * layer, 2);
	/* RAM: the old rule keeps the output weight there, the new one a layer
	 * and that layer's KV cache (8192 cells x K and V x 8 heads x 128 x 2 B =
	 * 32 MiB). */
	assert_close((double)(old32.memory.host_bytes - new32.memory.host_bytes),
		     (double)out - (double)layer - 33554432.0, 4);
	/* Decode reads from RAM what stays there: the 431 MB output weight
	 * (old -ngl 32) is slower than one 118 MB layer (new -ngl 32), and one
	 * layer on the GPU (old -ngl 1) gains less than the output weight. */
	assert_true(new32.decode_tokens_per_s > old32.decode_tokens_per_s);
	assert_true(new1.decode_tokens_per_s > old1.decode_tokens_per_s);
	o.gpu_layers = 33;
	assert_int_equal(cr_estimate_run_weights(m, &w, &r, &o, &e, &err), CR_OK);
	assert_true(e.output_layer_on_gpu);
	assert_close((double)e.memory.device_weights_bytes, 4221520128.0, 2);

	/* Two GPUs, -ngl 10: 5 layers | 4 layers + the output layer. */
	o.gpu_layers_repeating = false;
	o.gpu_layers = 10;
	assert_int_equal(cr_estimate_run_weights(m, &w, &two, &o, &e, &err), CR_OK);
	assert_int_equal(e.n_gpus, 2);
	assert_false(e.gpus_filled);
	assert_int_equal(e.gpus[0].layers, 5);
	assert_false(e.gpus[0].output_layer);
	assert_int_equal(e.gpus[1].layers, 4);
	assert_true(e.gpus[1].output_layer);
	assert_int_equal(e.gpus[1].weights_bytes, 4 * layer + out);
	assert_int_equal(e.gpu_layers, 9);
	/* The old rule: 10 layers, 18-22 | 23-27 ... i_gpu_start 22, act 10: 5 | 5, no output. */
	o.gpu_layers_repeating = true;
	assert_int_equal(cr_estimate_run_weights(m, &w, &two, &o, &e, &err), CR_OK);
	assert_int_equal(e.gpus[0].layers, 5);
	assert_int_equal(e.gpus[1].layers, 5);
	assert_false(e.gpus[0].output_layer || e.gpus[1].output_layer);
}

/* --gpu-layers fixes the split; --cpu-moe moves the experts to RAM. */
static void test_gpu_layers_and_cpu_moe(void **state)
{
	cr_rig r = offload_rig();
	cr_estimate_opts o = CR_ESTIMATE_OPTS_INIT;
	cr_estimate half, all, moe, moe_cpu;

	(void)state;
	o.gpu_layers = 17; /* the output layer and 16 repeating layers */
	half = run(ts_model("llama-3.1-8b"), ts_quant("Q4_K_M"), &r, &o);
	assert_close(half.offload_fraction, 0.5, 1e-12);
	assert_int_equal(half.gpu_layers, 16);
	assert_true(half.output_layer_on_gpu);
	o.gpu_layers = 33; /* n_layer + 1: every slot */
	all = run(ts_model("llama-3.1-8b"), ts_quant("Q4_K_M"), &r, &o);
	assert_true(all.offload_fraction == 0);
	assert_int_equal(all.gpu_layers, 32);
	assert_true(all.output_layer_on_gpu);
	assert_true(all.decode_tokens_per_s > half.decode_tokens_per_s);
	assert_true(all.memory.device_bytes > half.memory.device_bytes);

	o.gpu_layers = -1;
	moe = run(ts_model("qwen3-30b-a3b"), ts_quant("Q4_K_M"), &r, &o);
	o.cpu_moe = true;
	moe_cpu = run(ts_model("qwen3-30b-a3b"), ts_quant("Q4_K_M"), &r, &o);
	assert_true(moe_cpu.fits);
	assert_true(moe_cpu.memory.device_bytes < moe.memory.device_bytes);
	assert_true(moe_cpu.memory.host_bytes > moe.memory.host_bytes);
	assert_true(moe_cpu.decode_tokens_per_s < moe.decode_tokens_per_s);
}

/* A model whose active_params put more than all of its weights in the
 * experts ((params - active) x e / (e - k) > params: expert_fraction at its
 * cap of 1): --cpu-moe moves the experts to RAM, the output layer stays on the
 * GPU with the layers, and no byte count goes below zero (a fuzzed catalog
 * gave -263 MB of device weights, converted to uint64_t). */
static void test_cpu_moe_inconsistent_experts(void **state)
{
	cr_rig r = gpu_rig(24, 1000, 1);
	cr_estimate_opts o = CR_ESTIMATE_OPTS_INIT;
	cr_model m = *ts_model("qwen3-30b-a3b");
	cr_estimate e;

	(void)state;
	r.devices[1] = ram_device(256, 200);
	r.n_devices = 2;
	m.experts_total = m.experts_used + 1;
	o.cpu_moe = true;
	e = run(&m, ts_quant("Q4_K_M"), &r, &o);
	assert_true(e.memory.device_weights_bytes > 0);
	assert_true(e.memory.device_weights_bytes < e.memory.weights_bytes);
	assert_true(e.memory.host_bytes < e.memory.weights_bytes);
}

/* A vocabulary x width that claims more output weight than the layers carry
 * (Llama 4 Scout's shape with a vocabulary of 9 180 262: 47.0B of its 107.8B
 * parameters in the output layer, while the token table is capped at half the
 * weights): when the output layer leaves the GPU, what leaves is what the GPU
 * held. The larger figure made one device's bytes -190 MB (tests/fuzz
 * catalog_models corpus crash-vocab-output-above-layers), converted to
 * uint64_t: a wrapped count near 2^64 with gcc. */
static void test_output_weight_above_layers(void **state)
{
	cr_rig r = gpu_rig(24, 1000, 1);
	cr_model m = *ts_model("llama-4-scout");

	(void)state;
	r.devices[1] = ram_device(64, 80);
	r.n_devices = 2;
	m.vocab = 9180262;
	for (int i = 0; i < 8; i++) {
		cr_estimate_opts o = CR_ESTIMATE_OPTS_INIT;
		cr_estimate e;

		o.n_ctx = i & 1 ? 4096 : 1;
		o.flash_attn = i & 2;
		o.gpu_layers = i & 4 ? 1 : -1;
		o.cpu_moe = (i & 6) == 6;
		e = run(&m, ts_quant("Q4_K_M"), &r, &o);
		/* at most a few hundred GB here: nothing near 2^64 */
		for (unsigned g = 0; g < r.n_devices; g++)
			assert_true(e.devices[g].bytes_per_device < (1ull << 40));
		assert_true(e.memory.device_bytes < (1ull << 40));
		assert_true(e.memory.device_weights_bytes <= e.memory.weights_bytes);
		/* the GPU keeps its share of the layers: more than nothing */
		if (e.offload_fraction < 1)
			assert_true(e.devices[0].bytes_per_device > e.memory.compute_bytes);
	}
}

/* llama.cpp's op offload: with the experts in RAM, the first GPU's compute
 * buffer holds a copy of one expert tensor beside the FFN activations.
 * Logged (bench/data/gpu_memory_logs.csv row 2, ik_llama.cpp discussion 357,
 * mainline build 5192): Qwen3-235B-A22B Q8_0, -ot exps=CPU, 32k, ubatch 512,
 * flash attention: "CUDA0 compute buffer size = 1024.00 MiB". */
static void test_op_offload_copy(void **state)
{
	cr_rig r = gpu_rig(48, 768, 1), two;
	cr_estimate_opts o = CR_ESTIMATE_OPTS_INIT;
	cr_estimate moe, small_batch, plain_small, pair;

	(void)state;
	r.devices[1] = ram_device(256, 200);
	r.n_devices = 2;
	two = r;
	two.devices[0].count = 2;
	o.n_ctx = 32768;
	o.flash_attn = true;
	o.cpu_moe = true;
	moe = run(ts_model("qwen3-235b-a22b"), ts_quant("Q8_0"), &r, &o);
	assert_close((double)moe.memory.compute_bytes / MIB, 1024.0, 1024.0 * 0.01);
	assert_true(moe.devices[0].bytes_per_device >= moe.memory.compute_bytes);

	/* Below 32 tokens per batch the matmuls stay on the CPU: no copy. */
	o.n_ubatch = 16;
	small_batch = run(ts_model("qwen3-235b-a22b"), ts_quant("Q8_0"), &r, &o);
	o.cpu_moe = false;
	o.gpu_layers = 95; /* n_layer + 1: every layer and the output on the GPU, nothing in RAM */
	plain_small = run(ts_model("qwen3-235b-a22b"), ts_quant("Q8_0"), &r, &o);
	assert_int_equal(small_batch.memory.compute_bytes, plain_small.memory.compute_bytes);

	/* Two GPUs: the copy is on the first one only. */
	o.n_ubatch = 512;
	o.gpu_layers = -1;
	o.cpu_moe = true;
	pair = run(ts_model("qwen3-235b-a22b"), ts_quant("Q8_0"), &two, &o);
	assert_true(pair.memory.compute_bytes < 2 * moe.memory.compute_bytes);
	assert_true(pair.memory.compute_bytes > moe.memory.compute_bytes);
}

/* -ngl 0 on a GPU build: no layer on a GPU, yet op offload runs the
 * host-resident matmuls of a 512-token micro-batch on the first GPU, whose
 * compute buffer is then op offload's whole peak. Worked by hand for
 * Qwen3-0.6B Q4_K_M at 4k, ubatch 512, flash attention off: the output end
 * is the peak, the output weight (tied to the token table, 151936 x 1024,
 * at Q6_K's 6.5625 bits as the mix's mean is lower: 127 626 240 B) beside
 * the logits (151936 x 512 x 4 B = 311 164 928) and two hidden rows
 * (2 x 512 x 1024 x 4 B = 4 194 304): 442 985 472 B = 422.46 MiB. Logged
 * (bench/data/gpu_memory_logs.csv row 108, llama-server on a Jetson Orin,
 * 0/29 layers offloaded): "CUDA0 compute buffer size = 422.92 MiB". With
 * two GPUs the buffer is the first one's only (ggml-backend.cpp gives an
 * offloaded op to the highest-priority backend that takes it). */
static void test_op_offload_no_gpu_layer(void **state)
{
	cr_rig one = offload_rig(), two = offload_rig();
	cr_estimate_opts o = CR_ESTIMATE_OPTS_INIT;
	cr_estimate a, b;
	const double peak = 127626240.0 + 311164928.0 + 4194304.0;

	(void)state;
	two.devices[0].count = 2;
	o.n_ctx = 4096;
	o.flash_attn = false;
	o.gpu_layers = 0;
	a = run(ts_model("qwen3-0.6b"), ts_quant("Q4_K_M"), &one, &o);
	assert_int_equal(a.gpu_layers, 0);
	assert_close((double)a.memory.compute_bytes, peak, 1024);
	b = run(ts_model("qwen3-0.6b"), ts_quant("Q4_K_M"), &two, &o);
	assert_int_equal(b.n_gpus, 2);
	assert_int_equal(b.gpus[0].layers, 0);
	assert_int_equal(b.gpus[1].layers, 0);
	assert_close((double)(b.gpus[0].compute_bytes + b.gpus[0].other_bytes), peak, 1024);
	assert_int_equal(b.gpus[1].compute_bytes + b.gpus[1].other_bytes, 0);
	assert_close((double)b.memory.compute_bytes, peak, 1024);
	/* Below 32 tokens per micro-batch nothing is offloaded: no GPU buffer. */
	o.n_ubatch = 16;
	b = run(ts_model("qwen3-0.6b"), ts_quant("Q4_K_M"), &two, &o);
	assert_int_equal(b.gpus[0].compute_bytes + b.gpus[0].other_bytes, 0);
}

/* total_bytes against its parts, per kind of rig. */
static void test_memory_totals(void **state)
{
	cr_rig gpu = gpu_rig(24, 1008, 1), cpu, mac, off = offload_rig();
	cr_error err = CR_ERROR_INIT;
	cr_estimate e;
	uint64_t sum;

	(void)state;
	assert_int_equal(cr_rig_parse_spec("custom:mem_gb=128,bw_gbs=100,backend=cpu", &cpu, &err), CR_OK);
	assert_int_equal(cr_rig_parse_spec("custom:mem_gb=64,bw_gbs=400,backend=metal", &mac, &err), CR_OK);

	/* CPU only: everything is host memory; 90 % of RAM is usable. */
	e = run_ctx("llama-3.1-8b", "Q4_K_M", &cpu, 8192);
	sum = e.memory.weights_bytes + e.memory.kv_bytes + e.memory.state_bytes +
	      e.memory.compute_bytes + e.memory.output_bytes + e.memory.overhead_bytes;
	assert_true(e.fits);
	assert_true(e.offload_fraction == 1.0);
	assert_int_equal(e.memory.overhead_bytes, 0);
	assert_close(e.memory.total_bytes, sum, 2);
	assert_int_equal(e.memory.host_bytes, e.memory.total_bytes);
	assert_int_equal(e.memory.available_bytes, (uint64_t)(0.9 * 128 * GIB));

	/* Unified: 75 % usable; host buffers live in the same memory. */
	e = run_ctx("llama-3.1-8b", "Q4_K_M", &mac, 8192);
	sum = e.memory.weights_bytes + e.memory.kv_bytes + e.memory.state_bytes +
	      e.memory.compute_bytes + e.memory.output_bytes + e.memory.overhead_bytes;
	assert_int_equal(e.memory.available_bytes, 48 * 1073741824ull);
	assert_int_equal(e.memory.overhead_bytes, 0);
	assert_close(e.memory.total_bytes, sum, 4);
	assert_int_equal(e.memory.total_bytes, e.memory.device_bytes);

	/* Discrete GPU alone: host-side buffers (token embeddings, logits) are
	 * reported in host_bytes, outside the total compared with VRAM. */
	e = run_ctx("llama-3.1-8b", "Q4_K_M", &gpu, 8192);
	sum = e.memory.weights_bytes + e.memory.kv_bytes + e.memory.state_bytes +
	      e.memory.compute_bytes + e.memory.output_bytes + e.memory.overhead_bytes;
	assert_int_equal(e.memory.total_bytes, e.memory.device_bytes);
	assert_true(e.memory.host_bytes > e.memory.output_bytes);
	assert_close(e.memory.total_bytes + e.memory.host_bytes, sum, 4);
	assert_int_equal(e.memory.available_bytes, 24 * 1073741824ull);

	/* GPU + RAM, all on the GPU: the RAM tier still counts. */
	e = run_ctx("llama-3.1-8b", "Q4_K_M", &off, 8192);
	sum = e.memory.weights_bytes + e.memory.kv_bytes + e.memory.state_bytes +
	      e.memory.compute_bytes + e.memory.output_bytes + e.memory.overhead_bytes;
	assert_true(e.offload_fraction == 0);
	assert_close(e.memory.total_bytes, sum, 4);
}

/* ---- names and flash attention ---------------------------------------------------------- */

static void test_names(void **state)
{
	static const char *const tiers[] = { "fast", "ok", "slow", "tight", "unknown", "no-fit" };
	static const char *const kv[] = { "f16", "q8_0", "q4_0" };
	cr_tier t;
	cr_kv_type k;

	(void)state;
	for (int i = 0; i < CR_TIER_COUNT; i++) {
		assert_string_equal(cr_tier_name((cr_tier)i), tiers[i]);
		assert_int_equal(cr_tier_parse(tiers[i], &t), CR_OK);
		assert_int_equal(t, i);
	}
	for (int i = 0; i < CR_KV_TYPE_COUNT; i++) {
		assert_string_equal(cr_kv_type_name((cr_kv_type)i), kv[i]);
		assert_int_equal(cr_kv_type_parse(kv[i], &k), CR_OK);
		assert_int_equal(k, i);
	}
	assert_int_equal(cr_kv_type_parse("Q8_0", &k), CR_OK);
	assert_int_equal(k, CR_KV_Q8_0);
	assert_int_equal(cr_kv_type_parse("q5_1", &k), CR_ERR_INVALID);
	assert_int_equal(cr_tier_parse("nofit", &t), CR_ERR_INVALID);
	assert_string_equal(cr_tier_name(CR_TIER_COUNT), "?");
	assert_string_equal(cr_kv_type_name(CR_KV_TYPE_COUNT), "?");
}

static void test_resolve_flash_attn(void **state)
{
	cr_model wide = *ts_model("llama-3.1-8b");
	cr_rig r = gpu_rig(24, 1000, 1);
	char why[160];

	(void)state;
	assert_true(cr_estimate_resolve_flash_attn(&wide, &r, CR_FA_ON, why, sizeof(why)));
	assert_false(cr_estimate_resolve_flash_attn(&wide, &r, CR_FA_OFF, why, sizeof(why)));
	assert_true(cr_estimate_resolve_flash_attn(&wide, &r, CR_FA_AUTO, why, sizeof(why)));
	assert_true(cr_estimate_resolve_flash_attn(ts_model("deepseek-v3"), &r, CR_FA_AUTO, why,
						   sizeof(why)));
	wide.head_dim_k = wide.head_dim_v = 512;
	assert_false(cr_estimate_resolve_flash_attn(&wide, &r, CR_FA_AUTO, why, sizeof(why)));
	assert_non_null(strstr(why, "512"));
}

/* ---- the boundary calls: cr_weights, cr_estimate_resolve_opts, KV profile ---- */

static const char *const boundary_models[] = { "llama-3.1-8b", "gemma-3-27b", "gpt-oss-20b",
	"deepseek-v3", "clef-flash", "qwen3.5-4b", "llama-3.2-1b", "mistral-7b-v0.1" };

static void assert_same_memory(const cr_memory *a, const cr_memory *b)
{
	assert_int_equal(a->weights_bytes, b->weights_bytes);
	assert_int_equal(a->kv_bytes, b->kv_bytes);
	assert_int_equal(a->state_bytes, b->state_bytes);
	assert_int_equal(a->compute_bytes, b->compute_bytes);
	assert_int_equal(a->output_bytes, b->output_bytes);
	assert_int_equal(a->overhead_bytes, b->overhead_bytes);
	assert_int_equal(a->total_bytes, b->total_bytes);
	assert_int_equal(a->available_bytes, b->available_bytes);
	assert_int_equal(a->host_bytes, b->host_bytes);
	assert_int_equal(a->device_bytes, b->device_bytes);
	assert_int_equal(a->device_weights_bytes, b->device_weights_bytes);
}

/* Exact bytes equal to a preset's size give the preset's memory, on a GPU,
 * a CPU and a partial-offload rig; with the preset's base type as the exact
 * type, the whole estimate (speeds, tier) is the preset's too. */
static void test_weights_exact_matches_preset(void **state)
{
	static const char *const quants[] = { "Q4_K_M", "Q8_0", "F16", "MXFP4" };
	cr_rig gpu = gpu_rig(24, 1000, 1), cpu, off;
	cr_error err = CR_ERROR_INIT;
	int compared = 0;

	(void)state;
	assert_int_equal(cr_rig_parse_spec("custom:mem_gb=64,bw_gbs=90,backend=cpu", &cpu, &err), CR_OK);
	assert_int_equal(cr_rig_parse_spec("custom:mem_gb=8,bw_gbs=400,ram_gb=256,ram_bw_gbs=90", &off, &err),
			 CR_OK);
	for (size_t mi = 0; mi < sizeof(boundary_models) / sizeof(*boundary_models); mi++) {
		const cr_model *m = ts_model(boundary_models[mi]);

		for (size_t qi = 0; qi < sizeof(quants) / sizeof(*quants); qi++) {
			const cr_rig *rigs[3] = { &gpu, &cpu, &off };
			const cr_quant *q = ts_quant(quants[qi]);
			cr_weights preset, exact, typed;
			cr_estimate_opts o = CR_ESTIMATE_OPTS_INIT;

			cr_weights_preset(q, &preset);
			assert_int_equal(cr_estimate_weights_size(m, &preset), cr_estimate_weights_bytes(m, q, &o));
			cr_weights_exact(cr_estimate_weights_size(m, &preset), NULL, &exact);
			cr_weights_exact(cr_estimate_weights_size(m, &preset), q->base_type, &typed);
			assert_string_equal(exact.type, "");
			for (int r = 0; r < 3; r++) {
				cr_estimate a, b, c;

				assert_int_equal(cr_estimate_run(m, q, rigs[r], &o, &a, &err), CR_OK);
				assert_int_equal(cr_estimate_run_weights(m, &preset, rigs[r], &o, &b, &err), CR_OK);
				assert_same_memory(&a.memory, &b.memory);
				assert_true(a.decode_tokens_per_s == b.decode_tokens_per_s);
				assert_int_equal(cr_estimate_run_weights(m, &exact, rigs[r], &o, &b, &err), CR_OK);
				assert_same_memory(&a.memory, &b.memory);
				assert_int_equal(a.max_context, b.max_context);
				assert_int_equal(a.fits, b.fits);
				assert_int_equal(cr_estimate_run_weights(m, &typed, rigs[r], &o, &c, &err), CR_OK);
				assert_same_memory(&a.memory, &c.memory);
				assert_true(a.decode_tokens_per_s == c.decode_tokens_per_s);
				assert_true(a.prefill_tokens_per_s == c.prefill_tokens_per_s);
				assert_int_equal(a.tier, c.tier);
				compared++;
			}
		}
	}
	assert_int_equal(compared, 8 * 4 * 3);
}

/* The deprecated opts.weights_bytes and exact cr_weights agree; exact
 * weights ignore it. */
static void test_weights_exact_vs_override(void **state)
{
	const cr_model *m = ts_model("llama-3.1-8b");
	cr_rig r = gpu_rig(24, 1000, 1);
	cr_estimate_opts o = CR_ESTIMATE_OPTS_INIT;
	cr_weights w;
	cr_estimate a, b;
	cr_error err = CR_ERROR_INIT;

	(void)state;
	o.weights_bytes = 5000000000ull;
	assert_int_equal(cr_estimate_run(m, ts_quant("Q4_K_M"), &r, &o, &a, &err), CR_OK);
	cr_weights_exact(5000000000ull, "Q4_K", &w);
	o.weights_bytes = 123; /* ignored for exact weights */
	assert_int_equal(cr_estimate_run_weights(m, &w, &r, &o, &b, &err), CR_OK);
	assert_same_memory(&a.memory, &b.memory);
	assert_true(cr_estimate_weights_bpw(m, &w) > 4.9 && cr_estimate_weights_bpw(m, &w) < 5.0);
	assert_true(cr_estimate_weights_bpw(m, &(cr_weights){ .kind = CR_WEIGHTS_PRESET,
							       .preset = ts_quant("Q8_0") }) == ts_quant("Q8_0")->bpw);
	/* Refused: no bytes, no preset, no weights. */
	cr_weights_exact(0, NULL, &w);
	assert_int_equal(cr_estimate_run_weights(m, &w, &r, &o, &b, &err), CR_ERR_INVALID);
	cr_weights_preset(NULL, &w);
	assert_int_equal(cr_estimate_run_weights(m, &w, &r, &o, &b, &err), CR_ERR_INVALID);
	assert_int_equal(cr_estimate_run_weights(m, NULL, &r, &o, &b, &err), CR_ERR_INVALID);
	assert_int_equal(cr_estimate_weights_size(m, NULL), 0);
}

static void test_weights_type(void **state)
{
	const char *const names[] = { "F32", "Q4_K", "Q6_K", NULL };
	const uint64_t bytes[] = { 100, 4000, 4000, 9000 };
	char t[CR_ID_MAX];

	(void)state;
	cr_estimate_weights_type(names, bytes, 3, t, sizeof(t));
	assert_string_equal(t, "Q4_K"); /* a tie goes to the earlier */
	cr_estimate_weights_type(names, bytes, 4, t, sizeof(t));
	assert_string_equal(t, "Q4_K"); /* a NULL name is skipped */
	cr_estimate_weights_type(names, bytes, 0, t, sizeof(t));
	assert_string_equal(t, "");
}

/* The default context, the range checks and flash attention of one call. */
static void test_resolve_opts(void **state)
{
	cr_estimate_request req = CR_ESTIMATE_REQUEST_INIT;
	cr_estimate_setup set;
	cr_error err = CR_ERROR_INIT;
	cr_rig r = gpu_rig(24, 1000, 1);
	cr_model big_heads;

	(void)state;
	/* Defaults: 8192, or the model's maximum when smaller. */
	assert_int_equal(cr_estimate_resolve_opts(ts_model("llama-3.1-8b"), &r, &req, &set, &err), CR_OK);
	assert_int_equal(set.opts.n_ctx, CR_DEFAULT_CTX);
	assert_int_equal(set.bad, CR_REQUEST_OK);
	assert_true(set.opts.flash_attn);
	assert_non_null(strstr(set.flash_attn_reason, "auto resolved to on"));
	assert_int_equal(cr_estimate_resolve_opts(ts_model("llama-2-7b"), NULL, &req, &set, &err), CR_OK);
	assert_int_equal(set.opts.n_ctx, 4096);
	/* The rest of the request passes through. */
	req.opts.n_seq = 3;
	req.opts.type_k = CR_KV_Q8_0;
	req.n_ctx = 32768;
	req.flash_attn = CR_FA_OFF;
	assert_int_equal(cr_estimate_resolve_opts(ts_model("llama-3.1-8b"), &r, &req, &set, &err), CR_OK);
	assert_int_equal(set.opts.n_ctx, 32768);
	assert_int_equal(set.opts.n_seq, 3);
	assert_int_equal(set.opts.type_k, CR_KV_Q8_0);
	assert_false(set.opts.flash_attn);
	assert_non_null(strstr(set.flash_attn_reason, "as requested"));
	/* Above the maximum: the estimator's range error, the input named by code. */
	req = (cr_estimate_request)CR_ESTIMATE_REQUEST_INIT;
	req.n_ctx = 4097;
	assert_int_equal(cr_estimate_resolve_opts(ts_model("llama-2-7b"), &r, &req, &set, &err), CR_ERR_RANGE);
	assert_int_equal(set.bad, CR_REQUEST_CTX);
	assert_int_equal(set.bad_value, 4097);
	assert_int_equal(set.bad_limit, 4096);
	assert_string_equal(err.message, "context 4097 is above llama-2-7b's maximum of 4096 tokens");
	assert_null(strstr(err.message, "--"));
	{
		/* The same message as cr_estimate_run's own check. */
		cr_estimate e;
		cr_error e2 = CR_ERROR_INIT;
		cr_estimate_opts o = set.opts;

		assert_int_equal(cr_estimate_run(ts_model("llama-2-7b"), ts_quant("Q4_K_M"), &r, &o, &e, &e2),
				 CR_ERR_RANGE);
		assert_string_equal(e2.message, err.message);
	}
	req.n_ctx = 0;
	req.opts.depth = 9000;
	assert_int_equal(cr_estimate_resolve_opts(ts_model("llama-3.1-8b"), &r, &req, &set, &err), CR_ERR_RANGE);
	assert_int_equal(set.bad, CR_REQUEST_DEPTH);
	assert_int_equal(set.bad_value, 9000);
	assert_int_equal(set.bad_limit, 8192);
	assert_null(strstr(err.message, "--"));
	req.opts.depth = CR_DEPTH_CONTEXT;
	req.opts.prompt_tokens = 8193;
	assert_int_equal(cr_estimate_resolve_opts(ts_model("llama-3.1-8b"), &r, &req, &set, &err), CR_ERR_RANGE);
	assert_int_equal(set.bad, CR_REQUEST_PROMPT);
	assert_int_equal(set.bad_limit, 8192);
	req.opts.prompt_tokens = 8192;
	assert_int_equal(cr_estimate_resolve_opts(ts_model("llama-3.1-8b"), &r, &req, &set, &err), CR_OK);
	/* Flash attention auto: off for head sizes without a kernel. */
	big_heads = *ts_model("llama-3.1-8b");
	big_heads.head_dim_k = big_heads.head_dim_v = 512;
	req = (cr_estimate_request)CR_ESTIMATE_REQUEST_INIT;
	assert_int_equal(cr_estimate_resolve_opts(&big_heads, NULL, &req, &set, &err), CR_OK);
	assert_false(set.opts.flash_attn);
	assert_non_null(strstr(set.flash_attn_reason, "resolved to off"));
	/* Missing arguments and a model without a maximum context. */
	assert_int_equal(cr_estimate_resolve_opts(NULL, &r, &req, &set, &err), CR_ERR_INVALID);
	assert_int_equal(cr_estimate_resolve_opts(&big_heads, &r, NULL, &set, &err), CR_ERR_INVALID);
	assert_int_equal(cr_estimate_resolve_opts(&big_heads, &r, &req, NULL, &err), CR_ERR_INVALID);
	big_heads.context_max = 0;
	assert_int_equal(cr_estimate_resolve_opts(&big_heads, &r, &req, &set, &err), CR_ERR_INVALID);
}

/* The KV profile is what cr_estimate_run's memory is made of: its totals
 * equal the estimate's, and its per-token growth equals the finite
 * difference of the estimate's KV bytes past every window, for plain,
 * sliding, MLA and hybrid models at several KV types and sequence counts. */
static void test_kv_profile_matches_estimate(void **state)
{
	static const cr_kv_type types[] = { CR_KV_F16, CR_KV_Q8_0, CR_KV_Q4_0 };
	cr_rig r = gpu_rig(4096, 1000, 1);
	cr_error err = CR_ERROR_INIT;
	int checked = 0;

	(void)state;
	for (size_t mi = 0; mi < sizeof(boundary_models) / sizeof(*boundary_models); mi++) {
		const cr_model *m = ts_model(boundary_models[mi]);

		for (size_t ti = 0; ti < 3; ti++) {
			for (uint32_t seq = 1; seq <= 4; seq *= 2) {
				cr_estimate_opts o = CR_ESTIMATE_OPTS_INIT;
				cr_kv_profile p, p2;
				cr_estimate a, b;
				/* Two contexts past every window, one 256-cell block apart per stream. */
				uint32_t c1 = m->context_max - 256 * seq, c2 = m->context_max;

				o.type_k = o.type_v = types[ti];
				o.n_seq = seq;
				o.n_ctx = c1;
				assert_int_equal(cr_estimate_kv_profile(m, &o, &p, &err), CR_OK);
				assert_int_equal(cr_estimate_run(m, ts_quant("Q4_K_M"), &r, &o, &a, &err), CR_OK);
				assert_int_equal(p.kv_bytes, a.memory.kv_bytes);
				assert_int_equal(p.kv_bytes, cr_estimate_kv_bytes(m, &o));
				assert_int_equal(p.state_bytes, a.memory.state_bytes);
				assert_int_equal(p.bytes_per_token, a.kv_bytes_per_token);
				assert_int_equal(p.full_bytes + p.sliding_bytes, p.kv_bytes);
				assert_int_equal(p.cells_full, a.kv_cells_full);
				assert_int_equal(p.cells_sliding, a.kv_cells_swa);
				assert_int_equal(p.cell_pad, 256);
				assert_int_equal(p.streams, seq);
				o.n_ctx = c2;
				assert_int_equal(cr_estimate_kv_profile(m, &o, &p2, &err), CR_OK);
				assert_int_equal(cr_estimate_run(m, ts_quant("Q4_K_M"), &r, &o, &b, &err), CR_OK);
				assert_int_equal((b.memory.kv_bytes - a.memory.kv_bytes) / (c2 - c1), p.bytes_per_token);
				assert_int_equal((b.memory.kv_bytes - a.memory.kv_bytes) % (c2 - c1), 0);
				/* Sliding layers stopped growing at their cap. */
				assert_int_equal(p2.sliding_bytes, p.sliding_bytes);
				assert_int_equal(p.cells_sliding, p.cells_sliding_cap);
				assert_int_equal(p.sliding_bytes, p.sliding_cell_bytes * p.cells_sliding_cap);
				if (m->window)
					assert_true(p.cells_sliding_cap > 0 && p.cells_sliding_cap < p.cells_full);
				assert_int_equal(p.full_layers + p.sliding_layers + p.recurrent_layers,
						 cr_model_kv_layers(m) + cr_model_count_layers(m, CR_LAYER_RECURRENT));
				checked++;
			}
		}
	}
	assert_int_equal(checked, 8 * 3 * 3);
}

/* Older llama.cpp builds rounded the cache differently (kv_pad_cells): build 4446
 * (January 2025) allocated 128 cells at -c 128 without flash attention (the CI's
 * Pythia logs, 24 MiB), rounding to 32; PR 16812 to 17046 did not round. Worked by
 * hand: Llama 3.1 8B holds 32 layers x 8 KV heads x 128 x 2 (K, V) x 2 B = 131072 B
 * per cell in f16. */
static void test_kv_pad_older_builds(void **state)
{
	static const struct {
		uint32_t pad, ctx, cells;
	} cases[] = {
		{ 0, 100, 256 }, { 256, 100, 256 }, { 32, 100, 128 }, { 32, 128, 128 },
		{ 1, 100, 100 }, { 32, 8192, 8192 }, { 1, 8192, 8192 },
	};
	const cr_model *m = ts_model("llama-3.1-8b");
	const cr_model *g = ts_model("gemma-3-27b");
	cr_rig r = gpu_rig(4096, 1000, 1);
	cr_error err = CR_ERROR_INIT;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		cr_estimate_opts o = CR_ESTIMATE_OPTS_INIT;
		cr_kv_profile p;
		cr_estimate e;

		o.n_ctx = cases[i].ctx;
		o.kv_pad_cells = cases[i].pad;
		assert_int_equal(cr_estimate_run(m, ts_quant("Q4_K_M"), &r, &o, &e, &err), CR_OK);
		assert_int_equal(e.kv_cells_full, cases[i].cells);
		assert_int_equal(e.memory.kv_bytes, (uint64_t)cases[i].cells * 131072u);
		assert_int_equal(cr_estimate_kv_bytes(m, &o), e.memory.kv_bytes);
		assert_int_equal(cr_estimate_kv_profile(m, &o, &p, &err), CR_OK);
		assert_int_equal(p.cell_pad, cases[i].pad ? cases[i].pad : 256);
		assert_int_equal(p.cells_full, cases[i].cells);
	}
	/* The sliding cache rounds the same way: Gemma 3's 1024-token window plus a
	 * 100-token micro-batch is 1124 cells, 1152 at 32, 1280 at 256. */
	{
		cr_estimate_opts o = CR_ESTIMATE_OPTS_INIT;
		cr_estimate e;

		o.n_ctx = 8192;
		o.n_ubatch = 100;
		assert_int_equal(cr_estimate_run(g, ts_quant("Q4_K_M"), &r, &o, &e, &err), CR_OK);
		assert_int_equal(e.kv_cells_swa, 1280);
		o.kv_pad_cells = 32;
		assert_int_equal(cr_estimate_run(g, ts_quant("Q4_K_M"), &r, &o, &e, &err), CR_OK);
		assert_int_equal(e.kv_cells_swa, 1152);
		assert_int_equal(e.kv_cells_full, 8192);
	}
	/* llama.cpp never rounded to more than 256 cells. */
	{
		cr_estimate_opts o = CR_ESTIMATE_OPTS_INIT;
		cr_kv_profile p;
		cr_estimate e;

		o.kv_pad_cells = 257;
		assert_int_equal(cr_estimate_run(m, ts_quant("Q4_K_M"), &r, &o, &e, &err), CR_ERR_INVALID);
		assert_non_null(strstr(err.message, "257 cells"));
		assert_int_equal(cr_estimate_kv_profile(m, &o, &p, &err), CR_ERR_INVALID);
	}
}

/* Below the window the sliding layers grow; the cap is where they stop. */
static void test_kv_profile_window_cap(void **state)
{
	const cr_model *m = ts_model("gemma-3-27b");
	cr_estimate_opts o = CR_ESTIMATE_OPTS_INIT;
	cr_kv_profile p;
	cr_error err = CR_ERROR_INIT;

	(void)state;
	o.n_ctx = 512;
	assert_int_equal(cr_estimate_kv_profile(m, &o, &p, &err), CR_OK);
	assert_int_equal(p.cells_full, 512);
	assert_int_equal(p.cells_sliding, 512);
	/* pad(1024 + 512, 256) = 1536 (llama-kv-cache-iswa.cpp) */
	assert_int_equal(p.cells_sliding_cap, 1536);
	assert_true(p.sliding_layers > 0 && p.full_layers > 0);
	o.swa_full = true;
	o.n_ctx = 8192;
	assert_int_equal(cr_estimate_kv_profile(m, &o, &p, &err), CR_OK);
	assert_int_equal(p.cells_sliding, 8192);
	assert_int_equal(p.cells_sliding_cap, 8192);
	/* Errors. */
	o.n_ctx = 0;
	assert_int_equal(cr_estimate_kv_profile(m, &o, &p, &err), CR_ERR_INVALID);
	assert_int_equal(cr_estimate_kv_profile(NULL, &o, &p, &err), CR_ERR_INVALID);
	assert_int_equal(cr_estimate_kv_profile(m, &o, NULL, &err), CR_ERR_INVALID);
}

/* device_weights_bytes: what stays of device_bytes once the other device
 * terms are taken out, on one GPU; less with layers offloaded; 0 on a CPU. */
static void test_device_weights(void **state)
{
	cr_rig gpu = gpu_rig(80, 1000, 1), cpu, off;
	cr_estimate_opts o = CR_ESTIMATE_OPTS_INIT;
	cr_estimate e;
	cr_error err = CR_ERROR_INIT;

	(void)state;
	assert_int_equal(cr_rig_parse_spec("custom:mem_gb=64,bw_gbs=90,backend=cpu", &cpu, &err), CR_OK);
	assert_int_equal(cr_rig_parse_spec("custom:mem_gb=24,bw_gbs=1000,ram_gb=256,ram_bw_gbs=90", &off, &err),
			 CR_OK);
	for (size_t mi = 0; mi < sizeof(boundary_models) / sizeof(*boundary_models); mi++) {
		const cr_model *m = ts_model(boundary_models[mi]);
		const cr_memory *mm = &e.memory;

		if (m->params > 100000000000ull)
			continue; /* deepseek-v3 does not fit 80 GiB */
		assert_int_equal(cr_estimate_run(m, ts_quant("Q4_K_M"), &gpu, &o, &e, &err), CR_OK);
		assert_int_equal(e.offload_fraction, 0);
		assert_int_equal(mm->device_weights_bytes, mm->device_bytes - mm->kv_bytes - mm->state_bytes -
								    mm->compute_bytes - mm->overhead_bytes);
		assert_true(mm->device_weights_bytes < mm->weights_bytes);
		assert_int_equal(cr_estimate_run(m, ts_quant("Q4_K_M"), &cpu, &o, &e, &err), CR_OK);
		assert_int_equal(mm->device_weights_bytes, 0);
	}
	o.gpu_layers = 40;
	assert_int_equal(cr_estimate_run(ts_model("llama-3.1-70b"), ts_quant("Q4_K_M"), &off, &o, &e, &err), CR_OK);
	assert_true(e.offload_fraction > 0.4 && e.offload_fraction < 0.6);
	assert_true(e.memory.device_weights_bytes < e.memory.weights_bytes * 0.6);
	assert_true(e.memory.device_weights_bytes > e.memory.weights_bytes * 0.4);
}

/* Metal maps the file range of the offloaded tensors (cr_weights.mapped_extra_bytes):
 * with every layer on the GPU the device holds it on top; CUDA, a partial
 * offload and a preset (no file) do not. */
static void test_metal_mapped_range(void **state)
{
	const cr_model *m = ts_model("llama-3.1-8b");
	cr_rig mac, cuda, small;
	cr_estimate_opts o = CR_ESTIMATE_OPTS_INIT;
	cr_estimate a, b;
	cr_error err = CR_ERROR_INIT;
	cr_weights w0, w1;
	const uint64_t extra = 500ull << 20;

	(void)state;
	assert_int_equal(cr_rig_parse_spec("custom:mem_gb=64,bw_gbs=400,backend=metal", &mac, &err), CR_OK);
	assert_int_equal(cr_rig_parse_spec("custom:mem_gb=64,bw_gbs=1000,backend=cuda", &cuda, &err), CR_OK);
	assert_int_equal(cr_rig_parse_spec("custom:mem_gb=64,bw_gbs=400,backend=metal,ram_gb=64,ram_bw_gbs=90",
					   &small, &err), CR_OK);
	cr_weights_exact(4920000000ull, "Q4_K", &w0);
	w1 = w0;
	w1.mapped_extra_bytes = extra;
	assert_int_equal(cr_estimate_run_weights(m, &w0, &mac, &o, &a, &err), CR_OK);
	assert_int_equal(cr_estimate_run_weights(m, &w1, &mac, &o, &b, &err), CR_OK);
	assert_int_equal(b.memory.device_bytes - a.memory.device_bytes, extra);
	assert_int_equal(b.memory.weights_bytes - a.memory.weights_bytes, extra);
	assert_int_equal(b.memory.device_weights_bytes - a.memory.device_weights_bytes, extra);
	assert_int_equal(b.devices[0].bytes_per_device - a.devices[0].bytes_per_device, extra);
	assert_int_equal(cr_estimate_run_weights(m, &w0, &cuda, &o, &a, &err), CR_OK);
	assert_int_equal(cr_estimate_run_weights(m, &w1, &cuda, &o, &b, &err), CR_OK);
	assert_int_equal(b.memory.device_bytes, a.memory.device_bytes);
	o.gpu_layers = 16;
	assert_int_equal(cr_estimate_run_weights(m, &w0, &small, &o, &a, &err), CR_OK);
	assert_int_equal(cr_estimate_run_weights(m, &w1, &small, &o, &b, &err), CR_OK);
	assert_int_equal(b.memory.device_bytes, a.memory.device_bytes);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kv_clef_flash),
		cmocka_unit_test(test_kv_mamba_hybrids),
		cmocka_unit_test(test_kv_padding),
		cmocka_unit_test(test_kv_types),
		cmocka_unit_test(test_kv_gemma3_sliding),
		cmocka_unit_test(test_kv_gpt_oss),
		cmocka_unit_test(test_kv_mla),
		cmocka_unit_test(test_kv_all_sliding),
		cmocka_unit_test(test_kv_clef_flash_262k),
		cmocka_unit_test(test_kv_gemma3_27b_131k),
		cmocka_unit_test(test_kv_mla_deepseek_163k),
		cmocka_unit_test(test_kv_per_layer_heads),
		cmocka_unit_test(test_compute_buffer_logs),
		cmocka_unit_test(test_mtp_kv),
		cmocka_unit_test(test_weights),
		cmocka_unit_test(test_weights_tied),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_errors_rig_and_args),
		cmocka_unit_test(test_tier_nofit),
		cmocka_unit_test(test_tier_tight_context),
		cmocka_unit_test(test_tier_tight_headroom),
		cmocka_unit_test(test_tier_by_speed),
		cmocka_unit_test(test_tier_sweep),
		cmocka_unit_test(test_tier_decide),
		cmocka_unit_test(test_max_context_boundary),
		cmocka_unit_test(test_max_context_monotonic),
		cmocka_unit_test(test_kv_no_wraparound),
		cmocka_unit_test(test_max_context_unaligned_model_max),
		cmocka_unit_test(test_decode_bandwidth),
		cmocka_unit_test(test_decode_depth),
		cmocka_unit_test(test_nofit_has_no_max_context),
		cmocka_unit_test(test_native_quant_sizing),
		cmocka_unit_test(test_decode_moe),
		cmocka_unit_test(test_prefill),
		cmocka_unit_test(test_prefill_depth_and_moe),
		cmocka_unit_test(test_decode_layers_and_memory),
		cmocka_unit_test(test_speed_confidence),
		cmocka_unit_test(test_cpu_decode_flops),
		cmocka_unit_test(test_gpu_layer_work),
		cmocka_unit_test(test_prefill_int8_rate),
		cmocka_unit_test(test_prefill_width_gemms_only),
		cmocka_unit_test(test_prefill_bf16_rate),
		cmocka_unit_test(test_decode_legacy_quant),
		cmocka_unit_test(test_prefill_volta_moe),
		cmocka_unit_test(test_decode_no_dp4a),
		cmocka_unit_test(test_gpus_filled),
		cmocka_unit_test(test_fit_moves_layers),
		cmocka_unit_test(test_fit_partial),
		cmocka_unit_test(test_fit_whole_layers),
		cmocka_unit_test(test_multi_device),
		cmocka_unit_test(test_split_two_gpus),
		cmocka_unit_test(test_split_unequal),
		cmocka_unit_test(test_split_layer_kinds),
		cmocka_unit_test(test_tensor_split),
		cmocka_unit_test(test_partial_offload),
		cmocka_unit_test(test_embedding_model),
		cmocka_unit_test(test_gpu_layers_and_cpu_moe),
		cmocka_unit_test(test_gpu_layers_count_output),
		cmocka_unit_test(test_cpu_moe_inconsistent_experts),
		cmocka_unit_test(test_output_weight_above_layers),
		cmocka_unit_test(test_op_offload_copy),
		cmocka_unit_test(test_op_offload_no_gpu_layer),
		cmocka_unit_test(test_memory_totals),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_resolve_flash_attn),
		cmocka_unit_test(test_weights_exact_matches_preset),
		cmocka_unit_test(test_weights_exact_vs_override),
		cmocka_unit_test(test_weights_type),
		cmocka_unit_test(test_resolve_opts),
		cmocka_unit_test(test_kv_profile_matches_estimate),
		cmocka_unit_test(test_kv_profile_window_cap),
		cmocka_unit_test(test_kv_pad_older_builds),
		cmocka_unit_test(test_device_weights),
		cmocka_unit_test(test_metal_mapped_range),
	};

	return cmocka_run_group_tests(tests, ts_catalog_setup, ts_catalog_teardown);
}
