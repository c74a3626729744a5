/*
 * config.json to cr_model: real configurations of each attention layout
 * (full, Gemma 3 sliding pattern, gpt-oss layer_types, Qwen3-Next hybrid,
 * DeepSeek MLA + MoE, a multimodal text_config), the quantization methods,
 * and hostile values with their JSON paths.
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

static cr_hf_config cfg;

static int parse(const char *json, cr_error *err)
{
	return cr_hfconfig_parse(json, strlen(json), "config.json", &cfg, err);
}

static void expect_fail(const char *json, int status, const char *msg)
{
	cr_error err = CR_ERROR_INIT;

	assert_int_equal(parse(json, &err), status);
	assert_string_equal(err.message, msg);
}

/* Qwen/Qwen3-8B config.json (https://huggingface.co/Qwen/Qwen3-8B/blob/main/config.json). */
static const char qwen3_8b[] =
	"{\"architectures\":[\"Qwen3ForCausalLM\"],\"head_dim\":128,\"hidden_size\":4096,"
	"\"intermediate_size\":12288,\"max_position_embeddings\":40960,\"max_window_layers\":36,"
	"\"model_type\":\"qwen3\",\"num_attention_heads\":32,\"num_hidden_layers\":36,"
	"\"num_key_value_heads\":8,\"sliding_window\":null,\"tie_word_embeddings\":false,"
	"\"torch_dtype\":\"bfloat16\",\"use_sliding_window\":false,\"vocab_size\":151936}";

static void test_dense(void **state)
{
	cr_error err = CR_ERROR_INIT;

	(void)state;
	assert_int_equal(parse(qwen3_8b, &err), 0);
	assert_string_equal(cfg.model_type, "qwen3");
	assert_string_equal(cfg.architecture, "Qwen3ForCausalLM");
	assert_int_equal(cfg.model.n_layers, 36);
	assert_int_equal(cfg.model.hidden, 4096);
	assert_int_equal(cfg.model.n_heads, 32);
	assert_int_equal(cfg.model.kv_heads[0], 8);
	assert_int_equal(cfg.model.kv_heads[35], 8);
	assert_int_equal(cfg.model.head_dim_k, 128);
	assert_int_equal(cfg.model.vocab, 151936);
	assert_int_equal(cfg.model.context_max, 40960);
	assert_int_equal(cr_model_count_layers(&cfg.model, CR_LAYER_SLIDING), 0);
	assert_int_equal(cfg.model.window, 0);
	assert_int_equal(cfg.dtype_bytes, 2);
	assert_int_equal(cfg.quant, CR_HF_QUANT_NONE);
	assert_false(cfg.model.tied_embeddings);
}

static void test_sliding(void **state)
{
	/* google/gemma-3-27b-it: text_config, sliding_window_pattern 6 (5 local : 1 global). */
	const char gemma3[] =
		"{\"architectures\":[\"Gemma3ForConditionalGeneration\"],\"model_type\":\"gemma3\","
		"\"text_config\":{\"head_dim\":128,\"hidden_size\":5376,\"intermediate_size\":21504,"
		"\"model_type\":\"gemma3_text\",\"num_attention_heads\":32,\"num_hidden_layers\":62,"
		"\"num_key_value_heads\":16,\"sliding_window\":1024,\"vocab_size\":262208},"
		"\"torch_dtype\":\"bfloat16\",\"vision_config\":{\"hidden_size\":1152}}";
	/* openai/gpt-oss-20b: layer_types, 128-token window, mxfp4. */
	const char oss[] =
		"{\"architectures\":[\"GptOssForCausalLM\"],\"head_dim\":64,\"hidden_size\":2880,"
		"\"intermediate_size\":2880,\"layer_types\":[\"sliding_attention\",\"full_attention\","
		"\"sliding_attention\",\"full_attention\"],\"model_type\":\"gpt_oss\",\"num_attention_heads\":64,"
		"\"num_experts_per_tok\":4,\"num_hidden_layers\":4,\"num_key_value_heads\":8,"
		"\"num_local_experts\":32,\"quantization_config\":{\"quant_method\":\"mxfp4\"},"
		"\"sliding_window\":128,\"vocab_size\":201088}";
	cr_error err = CR_ERROR_INIT;

	(void)state;
	assert_int_equal(parse(gemma3, &err), 0);
	assert_true(cfg.multimodal);
	assert_string_equal(cfg.model_type, "gemma3_text");
	assert_int_equal(cfg.model.n_layers, 62);
	assert_int_equal(cr_model_count_layers(&cfg.model, CR_LAYER_SLIDING), 52);
	assert_int_equal(cfg.model.layer_kind[5], CR_LAYER_FULL);
	assert_int_equal(cfg.model.layer_kind[4], CR_LAYER_SLIDING);
	assert_int_equal(cfg.model.window, 1024);
	assert_true(cfg.model.tied_embeddings); /* Gemma's default */

	assert_int_equal(parse(oss, &err), 0);
	assert_int_equal(cfg.model.layer_kind[0], CR_LAYER_SLIDING);
	assert_int_equal(cfg.model.layer_kind[1], CR_LAYER_FULL);
	assert_int_equal(cfg.model.window, 128);
	assert_int_equal(cfg.model.experts_total, 32);
	assert_int_equal(cfg.model.experts_used, 4);
	assert_int_equal(cfg.quant, CR_HF_QUANT_MXFP4);
	assert_int_equal(cfg.quant_bits, 4);
}

static void test_hybrid_mla(void **state)
{
	/* Qwen/Qwen3-Next-80B-A3B-Instruct (shape cut to 8 layers). */
	const char next[] =
		"{\"model_type\":\"qwen3_next\",\"hidden_size\":2048,\"num_attention_heads\":16,"
		"\"num_key_value_heads\":2,\"head_dim\":256,\"num_hidden_layers\":8,\"vocab_size\":151936,"
		"\"full_attention_interval\":4,\"linear_num_key_heads\":16,\"linear_key_head_dim\":128,"
		"\"linear_num_value_heads\":32,\"linear_value_head_dim\":128,\"linear_conv_kernel_dim\":4,"
		"\"num_experts\":512,\"num_experts_per_tok\":10,\"moe_intermediate_size\":512,"
		"\"shared_expert_intermediate_size\":512,\"intermediate_size\":5120}";
	/* deepseek-ai/DeepSeek-V3 (shape cut to 4 layers), block FP8. */
	const char v3[] =
		"{\"model_type\":\"deepseek_v3\",\"hidden_size\":7168,\"num_attention_heads\":128,"
		"\"num_key_value_heads\":128,\"num_hidden_layers\":4,\"vocab_size\":129280,"
		"\"kv_lora_rank\":512,\"qk_rope_head_dim\":64,\"qk_nope_head_dim\":128,\"v_head_dim\":128,"
		"\"q_lora_rank\":1536,\"n_routed_experts\":256,\"num_experts_per_tok\":8,\"n_shared_experts\":1,"
		"\"first_k_dense_replace\":3,\"intermediate_size\":18432,\"moe_intermediate_size\":2048,"
		"\"quantization_config\":{\"quant_method\":\"fp8\",\"weight_block_size\":[128,128]}}";
	cr_error err = CR_ERROR_INIT;

	(void)state;
	assert_int_equal(parse(next, &err), 0);
	assert_int_equal(cr_model_count_layers(&cfg.model, CR_LAYER_RECURRENT), 6);
	assert_int_equal(cfg.model.layer_kind[3], CR_LAYER_FULL);
	assert_int_equal(cfg.model.kv_heads[0], 0);
	assert_int_equal(cfg.model.kv_heads[3], 2);
	assert_int_equal(cfg.model.linear.v_heads, 32);
	assert_int_equal(cfg.model.ffn, 512);
	assert_int_equal(cfg.model.experts_shared, 1);

	assert_int_equal(parse(v3, &err), 0);
	assert_true(cfg.model.mla);
	assert_int_equal(cfg.model.mla_kv_lora_rank, 512);
	assert_int_equal(cfg.model.mla_rope_dim, 64);
	assert_int_equal(cfg.model.kv_heads[0], 1);
	assert_int_equal(cfg.model.experts_dense_layers, 3);
	assert_int_equal(cfg.model.experts_dense_ffn, 18432);
	assert_int_equal(cfg.quant, CR_HF_QUANT_FP8);
}

static void test_quant(void **state)
{
	static const struct {
		const char *q;
		cr_hf_quant want;
		unsigned bits;
	} rows[] = {
		{ "{\"quant_method\":\"awq\",\"bits\":4,\"group_size\":128}", CR_HF_QUANT_AWQ, 4 },
		{ "{\"quant_method\":\"gptq\",\"bits\":8}", CR_HF_QUANT_GPTQ, 8 },
		{ "{\"quant_method\":\"modelopt\",\"quant_algo\":\"NVFP4\"}", CR_HF_QUANT_NVFP4, 4 },
		{ "{\"quant_method\":\"modelopt\",\"quant_algo\":\"FP8\"}", CR_HF_QUANT_MODELOPT_FP8, 8 },
		{ "{\"quant_method\":\"compressed-tensors\",\"config_groups\":{\"group_0\":{\"weights\":"
		  "{\"num_bits\":4,\"type\":\"int\"}}}}",
		  CR_HF_QUANT_COMPRESSED, 4 },
		{ "{\"quant_method\":\"bitsandbytes\",\"load_in_4bit\":true}", CR_HF_QUANT_BNB, 4 },
		{ "{\"quant_method\":\"hqq\"}", CR_HF_QUANT_OTHER, 0 },
	};
	(void)state;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		char buf[2048];
		cr_error err = CR_ERROR_INIT;

		snprintf(buf, sizeof(buf),
			 "{\"model_type\":\"llama\",\"hidden_size\":64,\"num_attention_heads\":4,"
			 "\"num_hidden_layers\":2,\"vocab_size\":100,\"quantization_config\":%s}",
			 rows[i].q);
		assert_int_equal(parse(buf, &err), 0);
		assert_int_equal(cfg.quant, rows[i].want);
		assert_int_equal(cfg.quant_bits, rows[i].bits);
		assert_int_equal(cfg.model.head_dim_k, 16);
		assert_int_equal(cfg.model.kv_heads[1], 4); /* no num_key_value_heads: MHA */
	}
	assert_string_equal(cr_hf_quant_name(CR_HF_QUANT_NVFP4), "nvfp4");
}

#define BASE "\"model_type\":\"llama\",\"hidden_size\":64,\"num_attention_heads\":4,\"vocab_size\":100"

static void test_hostile(void **state)
{
	(void)state;
	expect_fail("{\"model_type\":\"rwkv7\"}", CR_ERR_UNSUPPORTED,
		    "config.json: model_type: unknown architecture 'rwkv7' (docs/safetensors.md lists the known ones)");
	expect_fail("{" BASE "}", CR_ERR_INVALID,
		    "config.json: num_hidden_layers: missing (expected an integer from 1 to 512)");
	expect_fail("{" BASE ",\"num_hidden_layers\":2,\"num_key_value_heads\":8}", CR_ERR_INVALID,
		    "config.json: num_key_value_heads: 8 is more than the 4 attention heads");
	expect_fail("{" BASE ",\"num_hidden_layers\":2,\"layer_types\":[\"full_attention\"]}", CR_ERR_INVALID,
		    "config.json: layer_types: 1 entries, num_hidden_layers is 2");
	expect_fail("{" BASE ",\"num_hidden_layers\":2,\"layer_types\":[\"full_attention\",\"x\"]}",
		    CR_ERR_UNSUPPORTED,
		    "config.json: layer_types[1]: unknown layer type (known: full_attention, sliding_attention, "
		    "chunked_attention, linear_attention)");
	expect_fail("{" BASE ",\"num_hidden_layers\":2,\"layer_types\":[\"sliding_attention\",\"full_attention\"]}",
		    CR_ERR_INVALID, "config.json: sliding_window: layer 0 slides, but no sliding_window is given");
	expect_fail("{\"model_type\":\"gemma3\",\"text_config\":{\"hidden_size\":\"big\"}}", CR_ERR_INVALID,
		    "config.json: text_config.num_hidden_layers: missing (expected an integer from 1 to 512)");
	expect_fail("{" BASE ",\"num_hidden_layers\":1e9}", CR_ERR_INVALID,
		    "config.json: num_hidden_layers: expected an integer from 1 to 512, got 1e+09");
	expect_fail("{" BASE ",\"num_hidden_layers\":2,\"quantization_config\":[]}", CR_ERR_INVALID,
		    "config.json: quantization_config: expected an object");
	expect_fail("[1]", CR_ERR_PARSE, "config.json: expected a JSON object");
	/* Found by fuzz_hfconfig: MLA without head widths took a key width of 0;
	 * absent, they take DeepSeek-V3's defaults (128 + 64), zero is refused. */
	{
		cr_error err = CR_ERROR_INIT;

		assert_int_equal(parse("{\"model_type\":\"deepseek_v3\",\"hidden_size\":7168,\"num_attention_heads\":128,"
				       "\"num_hidden_layers\":4,\"vocab_size\":129280,\"kv_lora_rank\":512}",
				       &err),
				 0);
		assert_int_equal(cfg.model.head_dim_k, 192);
		assert_int_equal(cfg.model.mla_rope_dim, 64);
	}
	expect_fail("{\"model_type\":\"deepseek_v3\",\"hidden_size\":64,\"num_attention_heads\":4,"
		    "\"num_hidden_layers\":2,\"vocab_size\":100,\"kv_lora_rank\":16,\"qk_rope_head_dim\":0,"
		    "\"qk_nope_head_dim\":0}",
		    CR_ERR_INVALID, "config.json: qk_nope_head_dim: MLA (kv_lora_rank 16) with qk_nope_head_dim + qk_rope_head_dim of 0");
	expect_fail("{\"a\":", CR_ERR_PARSE, "config.json: invalid JSON at byte 4 (line 1, column 5)");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dense),     cmocka_unit_test(test_sliding), cmocka_unit_test(test_hybrid_mla),
		cmocka_unit_test(test_quant),     cmocka_unit_test(test_hostile),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
