/*
 * The vLLM engine (vllm.h): the arithmetic of vLLM's source on models built
 * here (page sizes, groups, blocks, concurrency, the refusal and the length
 * that fits), the hybrid paging against the start-up log it reproduces, and
 * relations (more memory, more blocks; TP halves the weights per GPU).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <string.h>

#include <cmocka.h>

#include "clefrun/clefrun.h"

#define GIB 1073741824.0

static cr_model dense(uint32_t layers, uint16_t kvh, uint32_t hd)
{
	cr_model m;

	memset(&m, 0, sizeof(m));
	strcpy(m.id, "t");
	m.n_layers = layers;
	m.hidden = 4096;
	m.n_heads = 32;
	m.head_dim_k = m.head_dim_v = hd;
	m.ffn = 14336;
	m.vocab = 128256;
	m.context_max = 8192;
	for (uint32_t i = 0; i < layers; i++)
		m.kv_heads[i] = kvh;
	return m;
}

static cr_device gpu(double gib)
{
	cr_device d;

	memset(&d, 0, sizeof(d));
	strcpy(d.name, "GPU");
	d.count = 8;
	d.memory_gib = gib;
	d.backend = CR_BACKEND_CUDA;
	return d;
}

static void test_dense_paging(void **state)
{
	cr_model m = dense(32, 8, 128);
	cr_device d = gpu(80);
	cr_vllm_opts o = CR_VLLM_OPTS_INIT;
	cr_vllm_result r;
	cr_error err = CR_ERROR_INIT;

	(void)state;
	o.kv_cache_memory_bytes = (uint64_t)(10 * GIB);
	o.max_model_len = 8192;
	assert_int_equal(cr_vllm_estimate(&m, 16ull << 30, &d, &o, &r, &err), 0);
	/* FullAttentionSpec: 16 tokens x 8 heads x (128 + 128) x 2 bytes. */
	assert_int_equal(r.page_bytes, 16 * 8 * 256 * 2);
	assert_int_equal(r.group_size, 32);
	assert_int_equal(r.n_groups, 1);
	assert_int_equal(r.num_blocks, (uint64_t)(10 * GIB) / (65536ull * 32));
	assert_int_equal(r.blocks_per_request, 8192 / 16);
	assert_true(r.max_concurrency > 9.99 && r.max_concurrency < 10.01);
	assert_int_equal(r.kv_tokens, (uint64_t)(r.max_concurrency * 8192));
	assert_false(r.refuses);
	assert_int_equal(r.max_model_len_fit, 8192);
	/* fp8 halves the page: twice the blocks. */
	o.kv_cache_dtype = CR_VLLM_KV_FP8;
	{
		cr_vllm_result r8;

		assert_int_equal(cr_vllm_estimate(&m, 16ull << 30, &d, &o, &r8, &err), 0);
		assert_int_equal(r8.page_bytes * 2, r.page_bytes);
		assert_int_equal(r8.num_blocks, 2 * r.num_blocks);
	}
}

static void test_profile_and_tp(void **state)
{
	cr_model m = dense(32, 8, 128);
	cr_device d = gpu(80);
	cr_vllm_opts o = CR_VLLM_OPTS_INIT;
	cr_vllm_result r1, r2;
	cr_error err = CR_ERROR_INIT;

	(void)state;
	assert_int_equal(cr_vllm_estimate(&m, 16ull << 30, &d, &o, &r1, &err), 0);
	/* requested - weights - the three profile terms, nothing else */
	assert_true(fabs(r1.kv_gib - (72.0 - 16.0 - r1.non_torch_gib - r1.activation_gib - r1.cuda_graph_gib)) < 1e-9);
	assert_int_equal(r1.max_num_batched_tokens, 8192); /* 80 GiB, not an A100 */
	assert_int_equal(r1.max_num_seqs, 1024);
	o.tensor_parallel_size = 2;
	assert_int_equal(cr_vllm_estimate(&m, 16ull << 30, &d, &o, &r2, &err), 0);
	assert_true(fabs(r2.weights_gib * 2 - r1.weights_gib) < 1e-9);
	assert_int_equal(r2.page_bytes * 2, r1.page_bytes); /* 4 KV heads per GPU */
	assert_true(r2.kv_gib > r1.kv_gib);
	o.enforce_eager = true;
	assert_int_equal(cr_vllm_estimate(&m, 16ull << 30, &d, &o, &r2, &err), 0);
	assert_true(r2.cuda_graph_gib == 0.0);
	/* A 24 GiB GPU: the small defaults. */
	d = gpu(24);
	o = (cr_vllm_opts)CR_VLLM_OPTS_INIT;
	assert_int_equal(cr_vllm_estimate(&m, 4ull << 30, &d, &o, &r1, &err), 0);
	assert_int_equal(r1.max_num_batched_tokens, 2048);
	assert_int_equal(r1.max_num_seqs, 256);
	/* Bad settings */
	o.gpu_memory_utilization = 1.5;
	assert_int_equal(cr_vllm_estimate(&m, 1, &d, &o, &r1, &err), CR_ERR_RANGE);
	o = (cr_vllm_opts)CR_VLLM_OPTS_INIT;
	o.tensor_parallel_size = 3;
	assert_int_equal(cr_vllm_estimate(&m, 1, &d, &o, &r1, &err), CR_ERR_RANGE);
	assert_string_equal(err.message, "--tensor-parallel-size: 3 does not divide the model's 32 attention heads");
}

/* The activation peak is the larger of the forward pass and the sampler's
 * dummy run: on an 80 GiB GPU (1024 requests) the sampler's logits dominate
 * and grow with the vocabulary, not with TP or the batched tokens; with few
 * requests the forward pass does, and it grows with the batched tokens.
 * Non-torch memory is larger with TP (the collectives' buffers). */
static void test_activation_terms(void **state)
{
	cr_model m = dense(32, 8, 128);
	cr_device d = gpu(80);
	cr_vllm_opts o = CR_VLLM_OPTS_INIT;
	cr_vllm_result a, b;
	cr_error err = CR_ERROR_INIT;

	(void)state;
	assert_int_equal(cr_vllm_estimate(&m, 16ull << 30, &d, &o, &a, &err), 0);
	m.vocab *= 2;
	assert_int_equal(cr_vllm_estimate(&m, 16ull << 30, &d, &o, &b, &err), 0);
	assert_true(fabs(b.activation_gib - 2 * a.activation_gib) < 1e-9);
	o.tensor_parallel_size = 2;
	assert_int_equal(cr_vllm_estimate(&m, 16ull << 30, &d, &o, &a, &err), 0);
	assert_true(fabs(a.activation_gib - b.activation_gib) < 1e-9);
	assert_true(a.non_torch_gib > b.non_torch_gib);
	o = (cr_vllm_opts)CR_VLLM_OPTS_INIT;
	o.max_num_seqs = 1;
	o.max_num_batched_tokens = 8192;
	assert_int_equal(cr_vllm_estimate(&m, 16ull << 30, &d, &o, &a, &err), 0);
	o.max_num_batched_tokens = 16384;
	assert_int_equal(cr_vllm_estimate(&m, 16ull << 30, &d, &o, &b, &err), 0);
	assert_true(fabs(b.activation_gib - 2 * a.activation_gib) < 1e-9);
	assert_true(b.activation_gib < 5.0);
	/* vllm#10517 (Llama-3.1-8B, V0 profile of 20000 and 29000 tokens, 256
	 * requests): the logged torch peaks 2.07 and 2.99 GiB are the forward
	 * pass's, which follows the model's code with no constant. */
	m = dense(32, 8, 128);
	o.max_num_seqs = 256;
	o.max_num_batched_tokens = 20000;
	assert_int_equal(cr_vllm_estimate(&m, 16ull << 30, &d, &o, &a, &err), 0);
	assert_true(fabs(a.activation_gib - 2.07) < 0.02);
	assert_true(a.activation_forward_gib > a.activation_sampler_gib);
	o.max_num_batched_tokens = 29000;
	assert_int_equal(cr_vllm_estimate(&m, 16ull << 30, &d, &o, &a, &err), 0);
	assert_true(fabs(a.activation_gib - 2.99) < 0.02);
}

static void test_refusal(void **state)
{
	cr_model m = dense(32, 8, 128);
	cr_device d = gpu(80);
	cr_vllm_opts o = CR_VLLM_OPTS_INIT;
	cr_vllm_result r;
	cr_error err = CR_ERROR_INIT;

	(void)state;
	/* 1 GiB of KV: 32 layers x 128 KiB per token = 8192 tokens exactly. */
	o.kv_cache_memory_bytes = 1ull << 30;
	o.max_model_len = 16384;
	assert_int_equal(cr_vllm_estimate(&m, 1, &d, &o, &r, &err), 0);
	assert_true(r.refuses);
	assert_int_equal(r.kv_bytes_per_request, 2ull << 30);
	assert_int_equal(r.max_model_len_fit, 8192);
	/* No memory at all: weights above the requested share. */
	o.kv_cache_memory_bytes = 0;
	assert_int_equal(cr_vllm_estimate(&m, 100ull << 30, &d, &o, &r, &err), 0);
	assert_true(r.refuses && r.kv_gib < 0 && r.num_blocks == 0 && r.max_model_len_fit == 0);
}

static void test_sliding_and_hybrid(void **state)
{
	cr_model m = dense(24, 8, 64);
	cr_device d = gpu(80);
	cr_vllm_opts o = CR_VLLM_OPTS_INIT;
	cr_vllm_result r;
	cr_error err = CR_ERROR_INIT;

	(void)state;
	/* gpt-oss-like: alternate sliding (128) and full layers. */
	for (int i = 0; i < 24; i += 2)
		m.layer_kind[i] = CR_LAYER_SLIDING;
	m.window = 128;
	o.kv_cache_memory_bytes = 1ull << 30;
	o.max_model_len = 131072;
	o.max_num_batched_tokens = 8192;
	assert_int_equal(cr_vllm_estimate(&m, 1, &d, &o, &r, &err), 0);
	assert_int_equal(r.group_size, 12);
	assert_int_equal(r.n_groups, 2);
	/* full: 131072 / 16; sliding: cdiv(127 + 8192, 16) + 1 */
	assert_int_equal(r.blocks_per_request, 8192 + 520 + 1);
	assert_int_equal(r.num_blocks, (1ull << 30) / (r.page_bytes * 12));

	/* Qwen3.6-35B-A3B: 40 layers, every 4th full (2 KV heads of 256),
	 * the rest Gated DeltaNet; fp8 KV, 5.98 GiB, 131072 tokens. The log
	 * (club-3090#612) says 567,978 tokens, 4.33x. */
	m = dense(40, 2, 256);
	m.n_heads = 16;
	for (int i = 0; i < 40; i++) {
		m.layer_kind[i] = (i + 1) % 4 ? CR_LAYER_RECURRENT : CR_LAYER_FULL;
		m.kv_heads[i] = (i + 1) % 4 ? 0 : 2;
	}
	m.linear = (cr_linear_attn){ .k_heads = 16, .k_head_dim = 128, .v_heads = 32, .v_head_dim = 128, .conv_kernel = 4 };
	o = (cr_vllm_opts)CR_VLLM_OPTS_INIT;
	o.kv_cache_dtype = CR_VLLM_KV_FP8;
	o.kv_cache_memory_bytes = (uint64_t)(5.98 * GIB);
	o.max_model_len = 131072;
	o.max_num_batched_tokens = 8192;
	o.max_num_seqs = 1;
	assert_int_equal(cr_vllm_estimate(&m, 1, &d, &o, &r, &err), 0);
	assert_int_equal(r.block_size, 2096);
	assert_int_equal(r.page_bytes, 2146304);
	assert_int_equal(r.n_groups, 4);
	assert_int_equal(r.num_blocks, 299);
	assert_int_equal(r.blocks_per_request, 69);
	assert_int_equal(r.kv_tokens, 567978);
	o.no_prefix_caching = true;
	assert_int_equal(cr_vllm_estimate(&m, 1, &d, &o, &r, &err), 0);
	assert_int_equal(r.blocks_per_request, 66);
}

static void test_dtype_names(void **state)
{
	cr_vllm_kv_dtype t;

	(void)state;
	assert_int_equal(cr_vllm_kv_dtype_parse("fp8_e5m2", &t), 0);
	assert_int_equal(t, CR_VLLM_KV_FP8);
	assert_int_equal(cr_vllm_kv_dtype_parse("auto", &t), 0);
	assert_int_equal(t, CR_VLLM_KV_AUTO);
	assert_int_equal(cr_vllm_kv_dtype_parse("nvfp4", &t), CR_ERR_INVALID);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dense_paging),     cmocka_unit_test(test_profile_and_tp),
		cmocka_unit_test(test_refusal),          cmocka_unit_test(test_sliding_and_hybrid),
		cmocka_unit_test(test_dtype_names),       cmocka_unit_test(test_activation_terms),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
