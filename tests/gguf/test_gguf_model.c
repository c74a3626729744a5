/*
 * GGUF header -> cr_model, per architecture: layer kinds, heads, windows,
 * experts, MLA, and the exact KV and state bytes the estimator computes from
 * the mapped model, checked by hand and against the catalog's record of the
 * same model (the estimator must not be able to tell them apart).
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
#include "gguf_build.h"
#include "unit.h"

#define FIX CLEFRUN_GGUF_FIXTURES

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

static cr_gguf *load_fixture(const char *file)
{
	char path[512];
	cr_source *s;
	cr_gguf *g;
	cr_error err = CR_ERROR_INIT;
	cr_gguf_opts o = CR_GGUF_OPTS_INIT;

	o.allow_truncated = true;
	snprintf(path, sizeof(path), "%s/%s", FIX, file);
	assert_int_equal(cr_source_open_file(path, &s, &err), 0);
	if (cr_gguf_load(s, &o, &g, &err))
		fail_msg("%s", err.message);
	cr_source_free(s);
	return g;
}

static void map_fixture(const char *file, cr_gguf_model *gm)
{
	cr_gguf *g = load_fixture(file);
	const cr_gguf *parts[1] = { g };
	cr_error err = CR_ERROR_INIT;

	if (cr_gguf_to_model(parts, 1, gm, &err))
		fail_msg("%s", err.message);
	cr_gguf_free(g);
}

static uint64_t kv_at(const cr_model *m, uint32_t ctx, cr_kv_type t)
{
	cr_estimate_opts o = CR_ESTIMATE_OPTS_INIT;

	o.n_ctx = ctx;
	o.type_k = o.type_v = t;
	return cr_estimate_kv_bytes(m, &o);
}

static uint64_t state_of(const cr_model *m)
{
	cr_estimate_opts o = CR_ESTIMATE_OPTS_INIT;

	return cr_estimate_state_bytes(m, &o);
}

/* KV and state bytes agree with the catalog's record at several contexts. */
static void same_as_catalog(const cr_model *m, const char *id)
{
	const cr_model *c = cr_catalog_find_model(cat, id);
	static const uint32_t ctxs[] = { 512, 4096, 32768 };

	assert_non_null(c);
	for (size_t i = 0; i < 3; i++) {
		assert_int_equal(kv_at(m, ctxs[i], CR_KV_F16), kv_at(c, ctxs[i], CR_KV_F16));
		assert_int_equal(kv_at(m, ctxs[i], CR_KV_Q8_0), kv_at(c, ctxs[i], CR_KV_Q8_0));
	}
	assert_int_equal(state_of(m), state_of(c));
	assert_int_equal(cr_model_kv_layers(m), cr_model_kv_layers(c));
	assert_int_equal(m->n_layers, c->n_layers);
	assert_int_equal(m->vocab, c->vocab);
	assert_int_equal(m->context_max, c->context_max);
}

static void test_llama_dense(void **state)
{
	cr_gguf_model gm;
	const cr_model *m = &gm.model;

	(void)state;
	map_fixture("llama-3.1-8b.hdr.gguf", &gm);
	assert_string_equal(m->arch, "llama");
	assert_string_equal(m->id, "llama-3.1-8b.hdr");
	assert_false(gm.generic);
	assert_int_equal(m->n_layers, 32);
	assert_int_equal(m->hidden, 4096);
	assert_int_equal(m->ffn, 14336);
	assert_int_equal(m->n_heads, 32);
	assert_int_equal(m->kv_heads[0], 8);
	assert_int_equal(m->kv_heads[31], 8);
	assert_int_equal(m->head_dim_k, 128);
	assert_int_equal(m->head_dim_v, 128);
	assert_int_equal(m->context_max, 131072);
	assert_int_equal(m->vocab, 128256);
	assert_false(m->tied_embeddings);
	assert_int_equal(m->params, 8030261248ull); /* Llama-3.1-8B's published count */
	assert_int_equal(m->active_params, m->params);
	assert_int_equal(cr_model_count_layers(m, CR_LAYER_FULL), 32);
	assert_string_equal(gm.file_type, "Q4_K_M");
	/* 32 layers × 8 heads × 128 × (K + V) × 2 B = 128 KiB per token. */
	assert_int_equal(kv_at(m, 8192, CR_KV_F16), 8192ull * 131072);
	same_as_catalog(m, "llama-3.1-8b");
}

static void test_gemma3_sliding(void **state)
{
	cr_gguf_model gm;
	const cr_model *m = &gm.model;
	cr_estimate_opts o = CR_ESTIMATE_OPTS_INIT;

	(void)state;
	map_fixture("gemma-3-4b.hdr.gguf", &gm);
	assert_int_equal(m->window, 1024);
	assert_int_equal(gm.swa_period, 6);
	/* Every 6th layer (5, 11, ...) keeps full attention. */
	for (uint32_t i = 0; i < 34; i++)
		assert_int_equal(m->layer_kind[i], i % 6 == 5 ? CR_LAYER_FULL : CR_LAYER_SLIDING);
	assert_true(m->tied_embeddings);
	assert_int_equal(m->head_dim_k, 256);
	assert_int_equal(m->params, 3880263168ull);
	/* 5 full layers × 8192 cells + 29 sliding × pad(1024 + 512, 256) = 1536
	 * cells, each 4 heads × 256 × 2 × 2 B = 4 KiB. */
	o.n_ctx = 8192;
	assert_int_equal(cr_estimate_kv_bytes(m, &o), (5ull * 8192 + 29ull * 1536) * 4096);
	same_as_catalog(m, "gemma-3-4b");
}

static void test_qwen35_hybrid(void **state)
{
	cr_gguf_model gm;
	const cr_model *m = &gm.model;

	(void)state;
	map_fixture("qwen3.5-9b.hdr.gguf", &gm);
	assert_int_equal(gm.full_attention_interval, 4);
	for (uint32_t i = 0; i < 32; i++)
		assert_int_equal(m->layer_kind[i], (i + 1) % 4 ? CR_LAYER_RECURRENT : CR_LAYER_FULL);
	assert_int_equal(cr_model_kv_layers(m), 8);
	assert_int_equal(m->linear.k_heads, 16);
	assert_int_equal(m->linear.k_head_dim, 128);
	assert_int_equal(m->linear.v_heads, 32);
	assert_int_equal(m->linear.v_head_dim, 128);
	assert_int_equal(m->linear.conv_kernel, 4);
	/* design.md: 8 KV layers × 4 heads × 256 × (K + V) × 2 B = 32 KiB/token. */
	assert_int_equal(kv_at(m, 8192, CR_KV_F16), 8192ull * 32768);
	/* 24 layers × (3 × (4096 + 2·16·128) + 128 × 4096) × 4 B. */
	assert_int_equal(state_of(m), 24ull * (3 * 8192 + 128 * 4096) * 4);
	assert_int_equal(m->params, 8953803264ull);
	same_as_catalog(m, "qwen3.5-9b");
}

/* Mamba-2 hybrids: the GGUF path and the catalog agree on every layer's
 * kind, KV heads and sublayers, the Mamba dims and so on KV and state
 * (same_as_catalog), at a long context and several sequences too. */
static void same_layers_as_catalog(const cr_model *m, const char *id)
{
	const cr_model *c = cr_catalog_find_model(cat, id);
	cr_estimate_opts o = CR_ESTIMATE_OPTS_INIT;

	assert_non_null(c);
	for (uint32_t i = 0; i < CR_MAX_LAYERS; i++) {
		assert_int_equal(m->layer_kind[i], c->layer_kind[i]);
		assert_int_equal(m->kv_heads[i], c->kv_heads[i]);
		assert_int_equal(m->layer_parts[i], c->layer_parts[i]);
	}
	assert_true(m->mamba && c->mamba);
	assert_memory_equal(&m->linear, &c->linear, sizeof(m->linear));
	o.n_ctx = 131072;
	o.n_seq = 4;
	assert_int_equal(cr_estimate_kv_bytes(m, &o), cr_estimate_kv_bytes(c, &o));
	assert_int_equal(cr_estimate_state_bytes(m, &o), cr_estimate_state_bytes(c, &o));
	same_as_catalog(m, id);
}

static void test_mamba2_hybrids(void **state)
{
	cr_gguf_model gm;
	const cr_model *m = &gm.model;

	(void)state;
	/* nemotron_h: recurrent where head_count_kv and feed_forward_length are
	 * both 0 (llama-model.cpp); the 25 MLP layers are neither. */
	map_fixture("nemotron-nano-9b-v2.hdr.gguf", &gm);
	assert_int_equal(cr_model_count_layers(m, CR_LAYER_RECURRENT), 27);
	assert_int_equal(cr_model_kv_layers(m), 4);
	assert_int_equal(m->layer_parts[1], CR_LAYER_NO_MIXER);
	assert_int_equal(m->layer_parts[0], CR_LAYER_NO_FFN);
	assert_int_equal(m->params, 8888227328ull);
	/* 27 x (3 x (10240 + 2 x 8 x 128) + 128 x 10240) x 4 B. */
	assert_int_equal(state_of(m), 27ull * (3 * (10240 + 2 * 8 * 128) + 128 * 10240) * 4);
	same_layers_as_catalog(m, "nemotron-nano-9b-v2");

	map_fixture("granite-4.0-h-small.hdr.gguf", &gm);
	assert_int_equal(cr_model_count_layers(m, CR_LAYER_RECURRENT), 36);
	assert_int_equal(m->params, 32207337984ull);
	assert_int_equal(m->active_params, 8803121664ull);
	/* 36 x (3 x (8192 + 2 x 1 x 128) + 128 x 8192) x 4 B = 147.5 MiB. */
	assert_int_equal(state_of(m), 154644480ull);
	same_layers_as_catalog(m, "granite-4.0-h-small");
}

static void test_moe(void **state)
{
	cr_gguf_model gm;
	const cr_model *m = &gm.model;

	(void)state;
	map_fixture("qwen3-30b-a3b.hdr.gguf", &gm);
	assert_int_equal(m->experts_total, 128);
	assert_int_equal(m->experts_used, 8);
	assert_int_equal(m->experts_shared, 0);
	assert_int_equal(m->ffn, 768);
	assert_int_equal(m->params, 30532122624ull);
	/* 48 layers × 3 × 2048 × 768 × 128 expert weights, 8 of 128 read. */
	assert_int_equal(gm.expert_params, 48ull * 3 * 2048 * 768 * 128);
	assert_int_equal(m->active_params, m->params - gm.expert_params + gm.expert_params / 16);
	assert_int_equal(m->active_params, 3353032704ull); /* the catalog's figure */
	same_as_catalog(m, "qwen3-30b-a3b");
}

static void test_gpt_oss(void **state)
{
	cr_gguf_model gm;
	const cr_model *m = &gm.model;

	(void)state;
	map_fixture("gpt-oss-20b.hdr.gguf", &gm);
	assert_int_equal(gm.swa_period, 2);
	assert_int_equal(m->window, 128);
	for (uint32_t i = 0; i < 24; i++)
		assert_int_equal(m->layer_kind[i], i % 2 ? CR_LAYER_FULL : CR_LAYER_SLIDING);
	assert_int_equal(m->experts_total, 32);
	assert_int_equal(m->experts_used, 4);
	assert_true(gm.weights_bytes > 0);
	same_as_catalog(m, "gpt-oss-20b");
}

static void test_deepseek_mla(void **state)
{
	cr_gguf_model gm;
	const cr_model *m = &gm.model;

	(void)state;
	map_fixture("deepseek-v3.hdr.gguf", &gm);
	assert_true(m->mla);
	assert_int_equal(m->mla_kv_lora_rank, 512);
	assert_int_equal(m->mla_rope_dim, 64);
	assert_int_equal(m->head_dim_k, 192);
	assert_int_equal(m->head_dim_v, 128);
	assert_int_equal(m->experts_total, 256);
	assert_int_equal(m->experts_shared, 1);
	assert_int_equal(m->params, 671026419200ull);
	assert_int_equal(m->active_params, 37552297472ull);
	/* One 576-wide K row per layer and token, no V: 61 × 576 × 2 B. */
	assert_int_equal(kv_at(m, 8192, CR_KV_F16), 8192ull * 61 * 576 * 2);
	same_as_catalog(m, "deepseek-v3");
}

static void test_per_layer_kv_heads(void **state)
{
	cr_gguf_model gm;
	const cr_model *m = &gm.model;
	static const uint16_t kv[8] = { 8, 8, 0, 4, 4, 0, 2, 8 };

	(void)state;
	map_fixture("deci-kvarr.hdr.gguf", &gm);
	assert_true(gm.generic); /* deci is not in clefrun's table */
	for (int i = 0; i < 8; i++)
		assert_int_equal(m->kv_heads[i], kv[i]);
	assert_int_equal(cr_model_kv_layers(m), 6);
	/* Σ heads 34 × 128 × (K + V) × 2 B per token. */
	assert_int_equal(kv_at(m, 8192, CR_KV_F16), 8192ull * 34 * 512);
	assert_non_null(strstr(m->notes, "unknown to clefrun"));
}

static void test_split_parts(void **state)
{
	cr_gguf *a = load_fixture("tiny-split-00001-of-00002.gguf");
	cr_gguf *b = load_fixture("tiny-split-00002-of-00002.gguf");
	cr_gguf *whole = load_fixture("tiny-llama.gguf");
	const cr_gguf *parts[2] = { a, b }, *one[1] = { whole }, *rev[2] = { b, a };
	cr_gguf_model gm, gw;
	cr_error err = CR_ERROR_INIT;

	(void)state;
	assert_int_equal(cr_gguf_to_model(parts, 2, &gm, &err), 0);
	assert_int_equal(cr_gguf_to_model(one, 1, &gw, &err), 0);
	assert_int_equal(gm.n_parts, 2);
	assert_int_equal(gm.weights_bytes, gw.weights_bytes);
	assert_int_equal(gm.model.params, gw.model.params);
	assert_string_equal(gm.model.id, "tiny-split");
	assert_int_equal(gm.weights_bytes, cr_gguf_tensor_bytes(a) + cr_gguf_tensor_bytes(b));
	assert_int_equal(cr_gguf_to_model(parts, 1, &gm, &err), CR_ERR_INVALID);
	assert_string_equal(err.message, FIX "/tiny-split-00001-of-00002.gguf: split.count is 2, but 1 part was read");
	assert_int_equal(cr_gguf_to_model(rev, 2, &gm, &err), CR_ERR_INVALID);
	assert_string_equal(err.message, FIX "/tiny-split-00002-of-00002.gguf: general.architecture: missing");
	cr_gguf_free(a);
	cr_gguf_free(b);
	cr_gguf_free(whole);
}

/* Small headers built in memory for the mapping's error paths. */
static int map_mem(gb *b, cr_gguf_model *gm, cr_error *err)
{
	cr_source *s;
	cr_gguf *g;
	cr_gguf_opts o = CR_GGUF_OPTS_INIT;
	int rc;

	o.allow_truncated = true;
	assert_int_equal(cr_source_open_memory(b->p, b->len, "m.gguf", false, &s, err), 0);
	rc = cr_gguf_load(s, &o, &g, err);
	cr_source_free(s);
	if (rc)
		return rc;
	{
		const cr_gguf *parts[1] = { g };

		rc = cr_gguf_to_model(parts, 1, gm, err);
	}
	cr_gguf_free(g);
	return rc;
}

static void mini(gb *b, const char *arch, int n_kv_extra)
{
	char key[64];
	uint64_t d[2] = { 64, 100 };

	gb_init(b);
	gb_header(b, 3, 1, 6 + (uint64_t)n_kv_extra);
	gb_kv_str(b, "general.architecture", arch);
	snprintf(key, sizeof(key), "%s.block_count", arch);
	gb_kv_u32(b, key, 4);
	snprintf(key, sizeof(key), "%s.embedding_length", arch);
	gb_kv_u32(b, key, 64);
	snprintf(key, sizeof(key), "%s.context_length", arch);
	gb_kv_u32(b, key, 4096);
	snprintf(key, sizeof(key), "%s.attention.head_count", arch);
	gb_kv_u32(b, key, 4);
	snprintf(key, sizeof(key), "%s.vocab_size", arch);
	gb_kv_u32(b, key, 100);
	(void)d;
}

static void mini_tensor(gb *b)
{
	uint64_t d[2] = { 64, 100 };

	gb_tensor(b, "token_embd.weight", 2, d, 0, 0);
}

/* The range Metal maps (cr_gguf_model.mapped_extra_bytes): with the token
 * table between offloaded tensors (llama-quantize's order: output.weight,
 * token_embd.weight, blk.0 ...) the range holds it; with the token table
 * first (a converted F16 file) nothing beyond the offloaded tensors; with
 * tied embeddings the table is offloaded itself. F32 tensors: 64 x 100 x 4 B
 * = 25600 B, a norm 256 B. */
static void mapped_case(const char *const *names, size_t n, uint64_t want)
{
	gb b;
	cr_gguf_model gm;
	cr_error err = CR_ERROR_INIT;
	uint64_t off = 0;

	gb_init(&b);
	gb_header(&b, 3, n, 6);
	gb_kv_str(&b, "general.architecture", "llama");
	gb_kv_u32(&b, "llama.block_count", 1);
	gb_kv_u32(&b, "llama.embedding_length", 64);
	gb_kv_u32(&b, "llama.context_length", 4096);
	gb_kv_u32(&b, "llama.attention.head_count", 4);
	gb_kv_u32(&b, "llama.vocab_size", 100);
	for (size_t i = 0; i < n; i++) {
		uint64_t mat[2] = { 64, 100 }, vec[1] = { 64 };
		bool is_vec = strncmp(names[i], "blk.", 4) == 0;

		gb_tensor(&b, names[i], is_vec ? 1 : 2, is_vec ? vec : mat, 0, off);
		off += is_vec ? 256 : 25600;
	}
	assert_int_equal(map_mem(&b, &gm, &err), 0);
	assert_int_equal(gm.mapped_extra_bytes, want);
	gb_free(&b);
}

static void test_mapped_range(void **state)
{
	static const char *const quantized[] = { "output.weight", "token_embd.weight", "blk.0.attn_norm.weight" };
	static const char *const converted[] = { "token_embd.weight", "blk.0.attn_norm.weight", "output.weight" };
	static const char *const tied[] = { "token_embd.weight", "blk.0.attn_norm.weight" };

	(void)state;
	mapped_case(quantized, 3, 25600);
	mapped_case(converted, 3, 0);
	mapped_case(tied, 2, 0);
}

static void test_mapping_errors(void **state)
{
	gb b;
	cr_gguf_model gm;
	cr_error err = CR_ERROR_INIT;
	uint32_t kv3[3] = { 1, 2, 3 };

	(void)state;
	/* A minimal valid llama: tied embeddings, head size 16 by default. */
	mini(&b, "llama", 0);
	mini_tensor(&b);
	assert_int_equal(map_mem(&b, &gm, &err), 0);
	assert_true(gm.model.tied_embeddings);
	assert_int_equal(gm.model.head_dim_k, 16);
	assert_int_equal(gm.model.kv_heads[3], 4);
	gb_free(&b);

	/* Refused families. */
	mini(&b, "rwkv6", 0);
	mini_tensor(&b);
	assert_int_equal(map_mem(&b, &gm, &err), CR_ERR_UNSUPPORTED);
	assert_string_equal(err.message, "m.gguf: architecture 'rwkv6' is not supported: clefrun cannot size its memory");
	gb_free(&b);

	/* An unknown arch without the standard keys. */
	gb_init(&b);
	gb_header(&b, 3, 1, 1);
	gb_kv_str(&b, "general.architecture", "zorp");
	mini_tensor(&b);
	assert_int_equal(map_mem(&b, &gm, &err), CR_ERR_UNSUPPORTED);
	assert_string_equal(err.message, "m.gguf: unknown architecture 'zorp' without the standard key zorp.block_count");
	gb_free(&b);

	/* A known arch missing a required key. */
	gb_init(&b);
	gb_header(&b, 3, 1, 2);
	gb_kv_str(&b, "general.architecture", "llama");
	gb_kv_u32(&b, "llama.block_count", 2);
	mini_tensor(&b);
	assert_int_equal(map_mem(&b, &gm, &err), CR_ERR_NOTFOUND);
	assert_string_equal(err.message, "m.gguf: llama.embedding_length: missing");
	gb_free(&b);

	/* No architecture at all. */
	gb_init(&b);
	gb_header(&b, 3, 1, 0);
	mini_tensor(&b);
	assert_int_equal(map_mem(&b, &gm, &err), CR_ERR_INVALID);
	assert_string_equal(err.message, "m.gguf: general.architecture: missing");
	gb_free(&b);

	/* A per-layer array of the wrong length. */
	mini(&b, "llama", 1);
	gb_kv_arr_u32(&b, "llama.attention.head_count_kv", kv3, 3);
	mini_tensor(&b);
	assert_int_equal(map_mem(&b, &gm, &err), CR_ERR_INVALID);
	assert_string_equal(err.message, "m.gguf: llama.attention.head_count_kv: array of 3 values, expected one per layer (4)");
	gb_free(&b);

	/* Experts without experts used. */
	mini(&b, "qwen3moe", 1);
	gb_kv_u32(&b, "qwen3moe.expert_count", 8);
	mini_tensor(&b);
	assert_int_equal(map_mem(&b, &gm, &err), CR_ERR_INVALID);
	assert_string_equal(err.message, "m.gguf: qwen3moe.expert_count is 8 but qwen3moe.expert_used_count is 0 or missing");
	gb_free(&b);

	/* Too many layers for cr_model. */
	gb_init(&b);
	gb_header(&b, 3, 1, 2);
	gb_kv_str(&b, "general.architecture", "llama");
	gb_kv_u32(&b, "llama.block_count", 600);
	mini_tensor(&b);
	assert_int_equal(map_mem(&b, &gm, &err), CR_ERR_RANGE);
	assert_string_equal(err.message, "m.gguf: llama.block_count 600: expected 1 to 512 layers");
	gb_free(&b);

	/* No tensors. */
	mini(&b, "llama", 0);
	gb_put64(&b, 8, 0);
	assert_int_equal(map_mem(&b, &gm, &err), CR_ERR_INVALID);
	assert_string_equal(err.message, "m.gguf: no tensors: a header without weights cannot be sized");
	gb_free(&b);

	/* A generic arch with a sliding-window pattern array is honoured. */
	{
		uint32_t pat[4] = { 1, 1, 0, 1 };

		mini(&b, "newarch", 2);
		gb_kv_u32(&b, "newarch.attention.sliding_window", 512);
		gb_kv_arr_u32(&b, "newarch.attention.sliding_window_pattern", pat, 4);
		mini_tensor(&b);
		assert_int_equal(map_mem(&b, &gm, &err), 0);
		assert_true(gm.generic);
		assert_int_equal(gm.model.window, 512);
		assert_int_equal(gm.model.layer_kind[0], CR_LAYER_SLIDING);
		assert_int_equal(gm.model.layer_kind[2], CR_LAYER_FULL);
		assert_int_equal(cr_model_count_layers(&gm.model, CR_LAYER_SLIDING), 3);
		gb_free(&b);
	}
	/* A scalar period overrides gemma3's default 6. */
	mini(&b, "gemma3", 2);
	gb_kv_u32(&b, "gemma3.attention.sliding_window", 512);
	gb_kv_u32(&b, "gemma3.attention.sliding_window_pattern", 2);
	mini_tensor(&b);
	assert_int_equal(map_mem(&b, &gm, &err), 0);
	assert_int_equal(gm.swa_period, 2);
	assert_int_equal(cr_model_count_layers(&gm.model, CR_LAYER_SLIDING), 2);
	gb_free(&b);
	/* qwen35 with an explicit interval and MTP layers (no KV). */
	mini(&b, "qwen35", 8);
	gb_kv_u32(&b, "qwen35.full_attention_interval", 2);
	gb_kv_u32(&b, "qwen35.nextn_predict_layers", 1);
	gb_kv_u32(&b, "qwen35.attention.head_count_kv", 2);
	gb_kv_u32(&b, "qwen35.ssm.conv_kernel", 4);
	gb_kv_u32(&b, "qwen35.ssm.inner_size", 256);
	gb_kv_u32(&b, "qwen35.ssm.state_size", 16);
	gb_kv_u32(&b, "qwen35.ssm.group_count", 2);
	gb_kv_u32(&b, "qwen35.ssm.time_step_rank", 4);
	mini_tensor(&b);
	assert_int_equal(map_mem(&b, &gm, &err), 0);
	assert_int_equal(gm.model.layer_kind[0], CR_LAYER_RECURRENT);
	assert_int_equal(gm.model.layer_kind[1], CR_LAYER_FULL);
	assert_int_equal(gm.model.layer_kind[2], CR_LAYER_RECURRENT);
	assert_int_equal(gm.model.layer_kind[3], CR_LAYER_FULL); /* MTP layer */
	assert_int_equal(gm.model.kv_heads[3], 0);
	assert_int_equal(cr_model_kv_layers(&gm.model), 1);
	assert_int_equal(gm.nextn_layers, 1);
	assert_int_equal(gm.model.linear.v_head_dim, 64);
	gb_free(&b);
}

/* NextN (MTP) layers as llama.cpp v0.4.0 loads them: a 4-block file whose
 * last block is the MTP head (blk.3.nextn.eh_proj.weight, 128 x 64 F32 =
 * 32768 B; token table 64 x 100 F32 = 25600 B; one norm 256 B).
 *  - glm4moe: the loader skips the head's tensors unless --spec-type
 *    draft-mtp (weights 25856 B, not 58624), and the generic KV cache still
 *    gives block 3 its 4 KV heads;
 *  - llama: no skip (58624 B), KV likewise;
 *  - qwen35 keeps the MTP layer out of its cache: see test_layer_patterns. */
static void mtp_case(const char *arch, uint64_t want_weights, uint64_t want_params)
{
	gb b;
	cr_gguf_model gm;
	cr_error err = CR_ERROR_INIT;
	uint64_t mat[2] = { 64, 100 }, vec[1] = { 64 }, eh[2] = { 128, 64 };
	char key[64];

	gb_init(&b);
	gb_header(&b, 3, 3, 7);
	gb_kv_str(&b, "general.architecture", arch);
	snprintf(key, sizeof(key), "%s.block_count", arch);
	gb_kv_u32(&b, key, 4);
	snprintf(key, sizeof(key), "%s.embedding_length", arch);
	gb_kv_u32(&b, key, 64);
	snprintf(key, sizeof(key), "%s.context_length", arch);
	gb_kv_u32(&b, key, 4096);
	snprintf(key, sizeof(key), "%s.attention.head_count", arch);
	gb_kv_u32(&b, key, 4);
	snprintf(key, sizeof(key), "%s.vocab_size", arch);
	gb_kv_u32(&b, key, 100);
	snprintf(key, sizeof(key), "%s.nextn_predict_layers", arch);
	gb_kv_u32(&b, key, 1);
	gb_tensor(&b, "token_embd.weight", 2, mat, 0, 0);
	gb_tensor(&b, "blk.0.attn_norm.weight", 1, vec, 0, 25600);
	gb_tensor(&b, "blk.3.nextn.eh_proj.weight", 2, eh, 0, 25856);
	assert_int_equal(map_mem(&b, &gm, &err), 0);
	assert_int_equal(gm.nextn_layers, 1);
	assert_int_equal(gm.model.mtp_layers, 1);
	assert_int_equal(gm.model.mtp_kv_layers, 0);
	assert_int_equal(gm.mtp_bytes, 32768);
	assert_int_equal(gm.weights_bytes, want_weights);
	assert_int_equal(gm.model.params, want_params);
	assert_int_equal(gm.model.kv_heads[3], 4);
	assert_int_equal(cr_model_kv_layers(&gm.model), 4);
	gb_free(&b);
}

static void test_mtp_layers(void **state)
{
	(void)state;
	mtp_case("glm4moe", 25856, 6464);
	mtp_case("llama", 58624, 6464 + 8192);
}

/* ---- metadata against tensor shapes ------------------------------------------ */

typedef struct kvp {
	const char *key; /* without the "ARCH." prefix */
	uint32_t v;
} kvp;

/* One layer of llama.cpp shapes (hidden 64, 4 heads of 16, 2 KV heads,
 * feed-forward 128, vocabulary 100; with experts: 8 of 32), its keys
 * overridden or extended by `over`. */
static void shaped(gb *b, const char *arch, bool experts, const kvp *over, size_t n_over)
{
	kvp keys[16] = {
		{ "block_count", 1 }, { "embedding_length", 64 }, { "context_length", 4096 },
		{ "attention.head_count", 4 }, { "attention.head_count_kv", 2 },
		{ "feed_forward_length", 128 }, { "vocab_size", 100 },
	};
	size_t nk = 7, nt = experts ? 7 : 5;
	uint64_t off = 0;
	static const struct {
		const char *name;
		uint64_t d0, d1, d2;
		bool expert;
	} tensors[] = {
		{ "token_embd.weight", 64, 100, 0, false },   { "blk.0.attn_q.weight", 64, 64, 0, false },
		{ "blk.0.attn_k.weight", 64, 32, 0, false },  { "blk.0.attn_v.weight", 64, 32, 0, false },
		{ "blk.0.ffn_up.weight", 64, 128, 0, false }, { "blk.0.ffn_gate_inp.weight", 64, 8, 0, true },
		{ "blk.0.ffn_up_exps.weight", 64, 32, 8, true },
	};

	if (experts) {
		keys[nk++] = (kvp){ "expert_count", 8 };
		keys[nk++] = (kvp){ "expert_used_count", 2 };
		keys[nk++] = (kvp){ "expert_feed_forward_length", 32 };
	}
	for (size_t i = 0; i < n_over; i++) {
		size_t k = 0;

		while (k < nk && strcmp(keys[k].key, over[i].key) != 0)
			k++;
		keys[k] = over[i];
		if (k == nk)
			nk++;
	}
	gb_init(b);
	gb_header(b, 3, nt, nk + 1);
	gb_kv_str(b, "general.architecture", arch);
	for (size_t i = 0; i < nk; i++) {
		char key[96];

		snprintf(key, sizeof(key), "%s.%s", arch, keys[i].key);
		gb_kv_u32(b, key, keys[i].v);
	}
	for (size_t i = 0; i < sizeof(tensors) / sizeof(tensors[0]); i++) {
		uint64_t d[3] = { tensors[i].d0, tensors[i].d1, tensors[i].d2 };

		if (tensors[i].expert && !experts)
			continue;
		gb_tensor(b, tensors[i].name, d[2] ? 3 : 2, d, 0, off);
		off += (d[0] * d[1] * (d[2] ? d[2] : 1) * 4 + 31) / 32 * 32;
	}
	gb_pad(b, 32);
}

/* Keys that disagree with the tensors that carry them are refused, naming
 * both (the absurd hyperparameters), and so are the head sizes
 * that cannot be derived, with the key at fault. */
static void test_keys_against_shapes(void **state)
{
	static const struct {
		const char *name, *arch;
		bool experts;
		kvp over[2];
		size_t n_over;
		const char *msg; /* NULL: maps */
	} rows[] = {
		{ "llama as built", "llama", false, { { NULL, 0 } }, 0, NULL },
		{ "moe as built", "qwen3moe", true, { { NULL, 0 } }, 0, NULL },
		{ "embedding_length 1e9", "llama", false, { { "embedding_length", 1000000000 } }, 1,
		  "m.gguf: llama.embedding_length is 1000000000, but tensor token_embd.weight is [64, 100] (dimension 0 is 64)" },
		{ "feed_forward_length 2^32-1", "llama", false, { { "feed_forward_length", 4294967295u } }, 1,
		  "m.gguf: llama.feed_forward_length is 4294967295 in layer 0, but tensor blk.0.ffn_up.weight is [64, 128] (dimension 1 is 128)" },
		{ "key_length 2^31", "llama", false, { { "attention.key_length", 2147483648u } }, 1,
		  "m.gguf: head size 2147483648 (llama.attention.key_length) x 4 heads (llama.attention.head_count) is 8589934592, but tensor blk.0.attn_q.weight is [64, 64] (dimension 1 is 64)" },
		{ "value_length 64", "llama", false, { { "attention.value_length", 64 } }, 1,
		  "m.gguf: head size 64 (llama.attention.value_length) x 2 KV heads (llama.attention.head_count_kv) is 128, but tensor blk.0.attn_v.weight is [64, 32] (dimension 1 is 32)" },
		{ "vocab_size 2^32-1", "llama", false, { { "vocab_size", 4294967295u } }, 1,
		  "m.gguf: llama.vocab_size is 4294967295, but tensor token_embd.weight is [64, 100] (dimension 1 is 100)" },
		{ "head_count_kv 1000 of 4", "llama", false, { { "attention.head_count_kv", 1000 } }, 1,
		  "m.gguf: llama.attention.head_count_kv is 1000 in layer 0, above llama.attention.head_count 4 (KV heads are shared by query heads)" },
		{ "head_count_kv 0", "llama", false, { { "attention.head_count_kv", 0 } }, 1,
		  "m.gguf: head size 16 (llama.embedding_length / head_count) x 0 KV heads (llama.attention.head_count_kv) is 0, but tensor blk.0.attn_k.weight is [64, 32] (dimension 1 is 32)" },
		{ "expert_count 2^31", "qwen3moe", true, { { "expert_count", 2147483648u } }, 1,
		  "m.gguf: qwen3moe.expert_count is 2147483648, but tensor blk.0.ffn_gate_inp.weight is [64, 8] (dimension 1 is 8)" },
		{ "expert_feed_forward_length", "qwen3moe", true, { { "expert_feed_forward_length", 4096 } }, 1,
		  "m.gguf: qwen3moe.expert_feed_forward_length is 4096, but tensor blk.0.ffn_up_exps.weight is [64, 32, 8] (dimension 1 is 32)" },
		{ "experts without expert tensors", "llama", false, { { "expert_count", 2147483648u }, { "expert_used_count", 2 } }, 2,
		  "m.gguf: llama.expert_count is 2147483648, but no tensor holds experts (*_exps)" },
		/* The messages that used to blame key_length for all three. */
		{ "value_length 0", "llama", false, { { "attention.value_length", 0 } }, 1,
		  "m.gguf: llama.attention.value_length is 0, but layer 0 has 2 KV heads" },
		{ "key_length 0", "llama", false, { { "attention.key_length", 0 } }, 1,
		  "m.gguf: llama.attention.key_length is 0, but layer 0 has 2 KV heads" },
		{ "head_count 0", "llama", false, { { "attention.head_count", 0 } }, 1,
		  "m.gguf: llama.attention.head_count is 0 or missing, but layer 0 has 2 KV heads: no llama.attention.key_length and no head count to derive it from (embedding_length / head_count)" },
	};
	bool ok = true;

	(void)state;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		gb b;
		cr_gguf_model gm;
		cr_error err = CR_ERROR_INIT;
		int rc;

		shaped(&b, rows[i].arch, rows[i].experts, rows[i].over, rows[i].n_over);
		rc = map_mem(&b, &gm, &err);
		if (rows[i].msg)
			ok &= unit_check_error(rows[i].name, rc, &err, CR_ERR_INVALID, rows[i].msg);
		else if (rc) {
			print_error("row \"%s\": %s\n", rows[i].name, err.message);
			ok = false;
		}
		gb_free(&b);
	}
	assert_true(ok);
}

/* Recurrent state from four 32-bit keys: checked against ssm_conv1d, and
 * the estimator's product saturates instead of wrapping to a small state. */
static void test_ssm_keys(void **state)
{
	static const char key[] = "qwen35.ssm.group_count";
	char path[512];
	FILE *f;
	long n;
	unsigned char *buf, *at;
	gb b;
	cr_gguf_model gm;
	cr_error err = CR_ERROR_INIT;
	cr_estimate_opts o = CR_ESTIMATE_OPTS_INIT;

	(void)state;
	snprintf(path, sizeof(path), "%s/qwen3.5-9b.hdr.gguf", FIX);
	assert_non_null(f = fopen(path, "rb"));
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	n = ftell(f);
	rewind(f);
	assert_non_null(buf = malloc((size_t)n));
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	at = NULL;
	for (long i = 0; !at && i + (long)sizeof(key) < n; i++)
		if (memcmp(buf + i, key, sizeof(key) - 1) == 0)
			at = buf + i;
	assert_non_null(at);
	at += sizeof(key) - 1;
	assert_int_equal(at[0], 4); /* uint32 */
	memset(at + 4, 0xff, 4);    /* group_count 2^32 - 1 */
	b.p = buf;
	b.len = b.cap = (size_t)n;
	assert_int_equal(map_mem(&b, &gm, &err), CR_ERR_INVALID);
	assert_string_equal(err.message,
			    "m.gguf: qwen35.ssm.inner_size 4096 + 2 x qwen35.ssm.group_count 4294967295 x qwen35.ssm.state_size 128 "
			    "is 1099511631616, but tensor blk.0.ssm_conv1d.weight is [4, 8192] (dimension 1 is 8192)");
	free(buf);

	map_fixture("qwen3.5-9b.hdr.gguf", &gm);
	assert_true(cr_estimate_state_bytes(&gm.model, &o) < (64ull << 20));
	gm.model.linear.k_heads = UINT32_MAX;
	gm.model.linear.k_head_dim = UINT32_MAX;
	assert_int_equal(cr_estimate_state_bytes(&gm.model, &o), UINT64_MAX);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_llama_dense),
		cmocka_unit_test(test_gemma3_sliding),
		cmocka_unit_test(test_qwen35_hybrid),
		cmocka_unit_test(test_mamba2_hybrids),
		cmocka_unit_test(test_moe),
		cmocka_unit_test(test_gpt_oss),
		cmocka_unit_test(test_deepseek_mla),
		cmocka_unit_test(test_per_layer_kv_heads),
		cmocka_unit_test(test_split_parts),
		cmocka_unit_test(test_mapped_range),
		cmocka_unit_test(test_mtp_layers),
		cmocka_unit_test(test_mapping_errors),
		cmocka_unit_test(test_keys_against_shapes),
		cmocka_unit_test(test_ssm_keys),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
