/**
 * @file hfconfig.h
 * @brief A Hugging Face config.json (transformers' PretrainedConfig) mapped
 * to the catalog's cr_model, with its quantization_config.
 *
 * What is read (docs/safetensors.md lists every key): the text model's
 * shape (`text_config` of a multimodal config when present, else the root):
 * layers, hidden size, attention heads, KV heads, head_dim, vocabulary,
 * tie_word_embeddings, max_position_embeddings; the attention kind per layer
 * from `layer_types` (full, sliding, linear), `sliding_window` with
 * `use_sliding_window` / `max_window_layers` (Qwen2), `sliding_window_pattern`
 * (Gemma 3) or `full_attention_interval` (Qwen3-Next); MoE experts, experts
 * per token, shared experts, leading dense layers; MLA (`kv_lora_rank`,
 * `qk_rope_head_dim`); Gated DeltaNet widths of the linear-attention layers.
 * The `model_type` must be one the table in hfconfig.c knows: any other is
 * refused (CR_ERR_UNSUPPORTED) with its name, since the meaning of the keys
 * differs between architectures.
 *
 * `quantization_config` gives the method (AWQ, GPTQ, FP8, ModelOpt NVFP4 /
 * FP8, MXFP4, compressed-tensors, bitsandbytes) and the weight bits; the
 * exact weight bytes come from the safetensors headers, not from here.
 *
 * Every value is checked (type and range) and a bad one refused with the
 * file and JSON path: "config.json: text_config.num_key_value_heads:
 * expected an integer from 1 to 65535". The function allocates nothing the
 * caller keeps.
 */
#ifndef CLEFRUN_HFCONFIG_H
#define CLEFRUN_HFCONFIG_H

#include <stddef.h>
#include <stdint.h>

#include "clefrun/catalog.h"
#include "clefrun/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Largest config.json read (real ones are below 100 KiB). */
#define CR_HFCONFIG_MAX_BYTES (4u << 20)

/** How the checkpoint's weights are quantized. */
typedef enum cr_hf_quant {
	CR_HF_QUANT_NONE = 0,        /**< the torch dtype (BF16, F16, F32) */
	CR_HF_QUANT_AWQ,
	CR_HF_QUANT_GPTQ,
	CR_HF_QUANT_FP8,             /**< quant_method "fp8" (block or per-tensor scales) */
	CR_HF_QUANT_MODELOPT_FP8,    /**< quant_method "modelopt", quant_algo FP8 */
	CR_HF_QUANT_NVFP4,           /**< quant_method "modelopt", quant_algo NVFP4 */
	CR_HF_QUANT_MXFP4,           /**< quant_method "mxfp4" (gpt-oss) */
	CR_HF_QUANT_COMPRESSED,      /**< quant_method "compressed-tensors" */
	CR_HF_QUANT_BNB,             /**< quant_method "bitsandbytes" */
	CR_HF_QUANT_OTHER            /**< a method vLLM may know that clefrun does not name */
} cr_hf_quant;

/** "none", "awq", "gptq", "fp8", "modelopt-fp8", "nvfp4", "mxfp4",
 *  "compressed-tensors", "bitsandbytes", "other"; "?" out of range. */
const char *cr_hf_quant_name(cr_hf_quant q);

/** A config.json, mapped. */
typedef struct cr_hf_config {
	cr_model model;              /**< the text model's architecture (arch: model_type) */
	char model_type[CR_ID_MAX];  /**< the text model's model_type */
	char architecture[CR_NAME_MAX]; /**< architectures[0] of the root, or "" */
	char torch_dtype[16];        /**< "bfloat16", "float16", "float32" ("bfloat16" when absent) */
	unsigned dtype_bytes;        /**< its bytes per element: 2 or 4 */
	cr_hf_quant quant;           /**< quantization_config.quant_method, mapped */
	char quant_method[CR_ID_MAX]; /**< as written ("" when none) */
	unsigned quant_bits;         /**< weight bits (4, 8); 0 when unquantized or not stated */
	unsigned quant_group;        /**< group size (AWQ/GPTQ); 0 when not stated */
	bool multimodal;             /**< the text model came from text_config */
} cr_hf_config;

/**
 * Map @p json (@p len bytes, not necessarily NUL-terminated) into *@p out.
 * @p name names the file in messages ("DIR/config.json", a URL).
 * @return 0; CR_ERR_PARSE (not JSON, not an object), CR_ERR_INVALID (a value
 *   of the wrong type or range, a missing key the model needs),
 *   CR_ERR_UNSUPPORTED (a model_type clefrun does not know: the message
 *   names it), CR_ERR_NOMEM.
 */
int cr_hfconfig_parse(const char *json, size_t len, const char *name, cr_hf_config *out, cr_error *err);

#ifdef __cplusplus
}
#endif
#endif
