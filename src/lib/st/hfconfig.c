/*
 * config.json to cr_model (hfconfig.h). The keys and their defaults are
 * those of the transformers configuration classes
 * (src/transformers/models/<type>/configuration_<type>.py), which is also
 * what vLLM reads (vllm/transformers_utils/config.py). A key that is absent
 * or null takes the class default named here; a key that is present with a
 * wrong type or range is an error with its JSON path.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "clefrun/hfconfig.h"
#include "json_read.h"
#include "util.h"

/* Architectures known, with the defaults their configuration classes set
 * where config.json files commonly leave a key out. */
enum { SW_NONE = 0, SW_ALL, SW_QWEN2, SW_GEMMA2, SW_GEMMA3 };
typedef struct arch_row {
	const char *type;
	bool tie;          /* tie_word_embeddings default */
	int sliding_rule;  /* how sliding_window applies without layer_types */
} arch_row;

static const arch_row arches[] = {
	{ "llama", false, SW_NONE },        { "mistral", false, SW_ALL },
	{ "mixtral", false, SW_ALL },       { "ministral", false, SW_ALL },
	{ "qwen2", false, SW_QWEN2 },       { "qwen2_moe", false, SW_QWEN2 },
	{ "qwen3", false, SW_QWEN2 },       { "qwen3_moe", false, SW_QWEN2 },
	{ "qwen3_next", false, SW_NONE },   { "qwen3_5_text", false, SW_NONE },
	{ "qwen3_5_moe_text", false, SW_NONE }, { "qwen3_vl_text", false, SW_NONE },
	{ "qwen3_vl_moe_text", false, SW_NONE }, { "qwen2_5_vl_text", false, SW_QWEN2 },
	{ "gemma", true, SW_NONE },         { "gemma2", true, SW_GEMMA2 },
	{ "gemma3_text", true, SW_GEMMA3 }, { "phi3", false, SW_ALL },
	{ "deepseek_v2", false, SW_NONE },  { "deepseek_v3", false, SW_NONE },
	{ "gpt_oss", false, SW_NONE },      { "glm4", false, SW_NONE },
	{ "glm4_moe", false, SW_NONE },     { "granite", true, SW_NONE },
	{ "granitemoe", true, SW_NONE },    { "olmo2", false, SW_NONE },
	{ "olmoe", false, SW_NONE },        { "smollm3", true, SW_NONE },
	{ "starcoder2", true, SW_ALL },     { "cohere", true, SW_NONE },
	{ "cohere2", true, SW_NONE },       { "exaone4", false, SW_NONE },
	{ "minimax_m2", false, SW_NONE },   { "ernie4_5", true, SW_NONE },
	{ "ernie4_5_moe", true, SW_NONE },  { "hunyuan_v1_dense", true, SW_NONE },
	{ "seed_oss", false, SW_NONE },     { "llama4_text", false, SW_NONE },
	{ "nemotron", false, SW_NONE },     { "internlm3", false, SW_NONE },
};

/* Multimodal wrappers whose text model lives in text_config, and the
 * text model type when text_config does not say. */
static const struct {
	const char *type, *text_type;
} wrappers[] = {
	{ "gemma3", "gemma3_text" },         { "mistral3", "mistral" },
	{ "llava", "llama" },                { "llama4", "llama4_text" },
	{ "qwen2_5_vl", "qwen2_5_vl_text" }, { "qwen2_vl", "qwen2_5_vl_text" },
	{ "qwen3_vl", "qwen3_vl_text" },     { "qwen3_vl_moe", "qwen3_vl_moe_text" },
	{ "qwen3_5", "qwen3_5_text" },       { "qwen3_5_moe", "qwen3_5_moe_text" },
};

const char *cr_hf_quant_name(cr_hf_quant q)
{
	static const char *const names[] = { "none",  "awq",   "gptq",  "fp8",
					     "modelopt-fp8", "nvfp4", "mxfp4", "compressed-tensors",
					     "bitsandbytes", "other" };

	return (unsigned)q < sizeof(names) / sizeof(names[0]) ? names[q] : "?";
}

static const cJSON *get(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);

	return (v && !cJSON_IsNull(v)) ? v : NULL;
}

/* An optional integer in [lo, hi]; absent or null leaves *out. */
static int opt_u32(jr_ctx *c, const cJSON *o, const char *k, uint32_t lo, uint32_t hi, uint32_t *out, bool *has)
{
	const cJSON *v = get(o, k);
	uint64_t x;
	int rc;

	if (has)
		*has = false;
	if (!v)
		return CR_OK;
	if ((rc = jr_as_uint(c, v, k, lo, hi, &x)) != 0)
		return rc;
	*out = (uint32_t)x;
	if (has)
		*has = true;
	return CR_OK;
}

static int opt_bool(jr_ctx *c, const cJSON *o, const char *k, bool *out)
{
	const cJSON *v = get(o, k);

	if (!v)
		return CR_OK;
	if (!cJSON_IsBool(v))
		return jr_fail(c, CR_ERR_INVALID, k, "expected true or false");
	*out = cJSON_IsTrue(v);
	return CR_OK;
}

/* The first of several spellings of one value (n_layer, num_layers, ...). */
static int opt_u32_any(jr_ctx *c, const cJSON *o, const char *const *keys, uint32_t lo, uint32_t hi, uint32_t *out,
		       bool *has)
{
	*has = false;
	for (; *keys; keys++) {
		int rc = opt_u32(c, o, *keys, lo, hi, out, has);

		if (rc || *has)
			return rc;
	}
	return CR_OK;
}

static const arch_row *find_arch(const char *t)
{
	for (size_t i = 0; i < sizeof(arches) / sizeof(arches[0]); i++)
		if (strcmp(arches[i].type, t) == 0)
			return &arches[i];
	return NULL;
}

static int layer_types(jr_ctx *c, const cJSON *arr, cr_model *m)
{
	size_t saved = jr_push_key(c, "layer_types");
	const cJSON *it;
	size_t i = 0;

	if (!cJSON_IsArray(arr)) {
		jr_pop(c, saved);
		return jr_fail(c, CR_ERR_INVALID, "layer_types", "expected an array of strings");
	}
	if ((size_t)cJSON_GetArraySize(arr) != m->n_layers) {
		int n = cJSON_GetArraySize(arr);

		jr_pop(c, saved);
		return jr_fail(c, CR_ERR_INVALID, "layer_types", "%d entries, num_hidden_layers is %" PRIu32, n,
			       m->n_layers);
	}
	cJSON_ArrayForEach(it, arr)
	{
		const char *s = cJSON_IsString(it) ? it->valuestring : NULL;
		size_t s2 = jr_push_index(c, i);

		if (!s) {
			int rc = jr_fail(c, CR_ERR_INVALID, NULL, "expected a string");

			jr_pop(c, saved);
			(void)s2;
			return rc;
		}
		if (strcmp(s, "full_attention") == 0 || strcmp(s, "attention") == 0)
			m->layer_kind[i] = CR_LAYER_FULL;
		else if (strcmp(s, "sliding_attention") == 0 || strcmp(s, "chunked_attention") == 0)
			m->layer_kind[i] = CR_LAYER_SLIDING;
		else if (strcmp(s, "linear_attention") == 0 || strcmp(s, "mamba") == 0)
			m->layer_kind[i] = CR_LAYER_RECURRENT;
		else {
			int rc = jr_fail(c, CR_ERR_UNSUPPORTED, NULL,
					 "unknown layer type (known: full_attention, sliding_attention, "
					 "chunked_attention, linear_attention)");

			jr_pop(c, saved);
			return rc;
		}
		jr_pop(c, s2);
		i++;
	}
	jr_pop(c, saved);
	return CR_OK;
}

static int read_quant(jr_ctx *c, const cJSON *root, cr_hf_config *out)
{
	const cJSON *q = get(root, "quantization_config");
	size_t saved;
	int rc = CR_OK;

	if (!q)
		return CR_OK;
	saved = jr_push_key(c, "quantization_config");
	if (!cJSON_IsObject(q)) {
		jr_pop(c, saved);
		return jr_fail(c, CR_ERR_INVALID, "quantization_config", "expected an object");
	}
	if ((rc = jr_opt_string(c, q, "quant_method", out->quant_method, sizeof(out->quant_method))) != 0)
		goto done;
	if ((rc = opt_u32(c, q, "bits", 1, 16, &out->quant_bits, NULL)) != 0 ||
	    (rc = opt_u32(c, q, "group_size", 0, 1u << 20, &out->quant_group, NULL)) != 0)
		goto done;
	if (strcmp(out->quant_method, "awq") == 0) {
		out->quant = CR_HF_QUANT_AWQ;
	} else if (strcmp(out->quant_method, "gptq") == 0 || strcmp(out->quant_method, "auto-round") == 0 ||
		   strcmp(out->quant_method, "auto_round") == 0) {
		out->quant = CR_HF_QUANT_GPTQ;
	} else if (strcmp(out->quant_method, "fp8") == 0) {
		out->quant = CR_HF_QUANT_FP8;
		out->quant_bits = 8;
	} else if (strcmp(out->quant_method, "mxfp4") == 0) {
		out->quant = CR_HF_QUANT_MXFP4;
		out->quant_bits = 4;
	} else if (strcmp(out->quant_method, "modelopt") == 0 || strcmp(out->quant_method, "modelopt_fp4") == 0) {
		char algo[CR_ID_MAX] = "";

		if ((rc = jr_opt_string(c, q, "quant_algo", algo, sizeof(algo))) != 0)
			goto done;
		out->quant = strstr(algo, "FP4") ? CR_HF_QUANT_NVFP4 : CR_HF_QUANT_MODELOPT_FP8;
		out->quant_bits = out->quant == CR_HF_QUANT_NVFP4 ? 4 : 8;
	} else if (strcmp(out->quant_method, "compressed-tensors") == 0) {
		const cJSON *groups = get(q, "config_groups"), *g;

		out->quant = CR_HF_QUANT_COMPRESSED;
		/* The first group's weights.num_bits (W4A16: 4, W8A8 / FP8: 8). */
		if (groups && cJSON_IsObject(groups)) {
			cJSON_ArrayForEach(g, groups)
			{
				const cJSON *w = cJSON_IsObject(g) ? get(g, "weights") : NULL;

				if (w && cJSON_IsObject(w)) {
					size_t s2 = jr_push_key(c, "config_groups");
					size_t s3 = jr_push_key(c, g->string ? g->string : "?");
					size_t s4 = jr_push_key(c, "weights");

					rc = opt_u32(c, w, "num_bits", 1, 16, &out->quant_bits, NULL);
					(void)s3;
					(void)s4;
					jr_pop(c, s2);
					if (rc)
						goto done;
					break;
				}
			}
		}
	} else if (strcmp(out->quant_method, "bitsandbytes") == 0) {
		bool b4 = false, b8 = false;

		out->quant = CR_HF_QUANT_BNB;
		if ((rc = opt_bool(c, q, "load_in_4bit", &b4)) != 0 || (rc = opt_bool(c, q, "load_in_8bit", &b8)) != 0)
			goto done;
		out->quant_bits = b4 ? 4 : (b8 ? 8 : out->quant_bits);
	} else if (out->quant_method[0]) {
		out->quant = CR_HF_QUANT_OTHER;
	}
done:
	jr_pop(c, saved);
	return rc;
}

static int fill_layers(jr_ctx *c, const cJSON *t, const arch_row *a, cr_model *m)
{
	const cJSON *lt = get(t, "layer_types");
	uint32_t window = 0, interval = 0, pattern = 6, max_window = 0;
	bool has_w = false, use_sw = false, has_interval = false, has_mwl = false;
	uint32_t kvh = m->n_heads;
	int rc;

	if ((rc = opt_u32(c, t, "num_key_value_heads", 1, 65535, &kvh, NULL)) != 0 ||
	    (rc = opt_u32(c, t, "sliding_window", 0, UINT32_MAX, &window, &has_w)) != 0 ||
	    (rc = opt_u32(c, t, "full_attention_interval", 1, CR_MAX_LAYERS, &interval, &has_interval)) != 0 ||
	    (rc = opt_u32(c, t, "sliding_window_pattern", 1, CR_MAX_LAYERS, &pattern, NULL)) != 0 ||
	    (rc = opt_u32(c, t, "max_window_layers", 0, UINT32_MAX, &max_window, &has_mwl)) != 0 ||
	    (rc = opt_bool(c, t, "use_sliding_window", &use_sw)) != 0)
		return rc;
	if (kvh > m->n_heads)
		return jr_fail(c, CR_ERR_INVALID, "num_key_value_heads", "%" PRIu32 " is more than the %" PRIu32
			       " attention heads", kvh, m->n_heads);
	for (uint32_t i = 0; i < m->n_layers; i++) {
		m->layer_kind[i] = CR_LAYER_FULL;
		m->kv_heads[i] = (uint16_t)kvh;
	}
	if (lt) {
		if ((rc = layer_types(c, lt, m)) != 0)
			return rc;
	} else if (has_interval) {
		/* Qwen3-Next: every interval-th layer is full attention, the
		 * others Gated DeltaNet (configuration_qwen3_next.py). */
		for (uint32_t i = 0; i < m->n_layers; i++)
			m->layer_kind[i] = (i + 1) % interval == 0 ? CR_LAYER_FULL : CR_LAYER_RECURRENT;
	} else if (has_w && window > 0) {
		for (uint32_t i = 0; i < m->n_layers; i++) {
			bool sw = false;

			switch (a->sliding_rule) {
			case SW_ALL:
				sw = true;
				break;
			case SW_QWEN2: /* configuration_qwen2.py: only with use_sliding_window, from max_window_layers */
				sw = use_sw && (!has_mwl || i >= max_window);
				break;
			case SW_GEMMA2: /* configuration_gemma2.py: even layers slide */
				sw = (i + 1) % 2 != 0;
				break;
			case SW_GEMMA3: /* configuration_gemma3.py: sliding_window_pattern, 6 */
				sw = (i + 1) % pattern != 0;
				break;
			default:
				sw = false;
			}
			m->layer_kind[i] = sw ? CR_LAYER_SLIDING : CR_LAYER_FULL;
		}
	}
	for (uint32_t i = 0; i < m->n_layers; i++) {
		if (m->layer_kind[i] == CR_LAYER_RECURRENT)
			m->kv_heads[i] = 0;
		if (m->layer_kind[i] == CR_LAYER_SLIDING && (!has_w || window == 0))
			return jr_fail(c, CR_ERR_INVALID, "sliding_window",
				       "layer %" PRIu32 " slides, but no sliding_window is given", i);
	}
	m->window = (cr_model_count_layers(m, CR_LAYER_SLIDING) > 0) ? window : 0;
	return CR_OK;
}

static int fill_linear(jr_ctx *c, const cJSON *t, cr_model *m)
{
	cr_linear_attn *la = &m->linear;
	int rc;

	if (cr_model_count_layers(m, CR_LAYER_RECURRENT) == 0)
		return CR_OK;
	/* Gated DeltaNet (configuration_qwen3_next.py defaults: 16 key heads
	 * of 128, 32 value heads of 128, kernel 4). */
	la->k_heads = 16;
	la->k_head_dim = 128;
	la->v_heads = 32;
	la->v_head_dim = 128;
	la->conv_kernel = 4;
	if ((rc = opt_u32(c, t, "linear_num_key_heads", 1, 65535, &la->k_heads, NULL)) != 0 ||
	    (rc = opt_u32(c, t, "linear_key_head_dim", 1, 65535, &la->k_head_dim, NULL)) != 0 ||
	    (rc = opt_u32(c, t, "linear_num_value_heads", 1, 65535, &la->v_heads, NULL)) != 0 ||
	    (rc = opt_u32(c, t, "linear_value_head_dim", 1, 65535, &la->v_head_dim, NULL)) != 0 ||
	    (rc = opt_u32(c, t, "linear_conv_kernel_dim", 1, 64, &la->conv_kernel, NULL)) != 0)
		return rc;
	return CR_OK;
}

static int fill_moe_mla(jr_ctx *c, const cJSON *t, cr_model *m)
{
	static const char *const n_exp[] = { "num_experts", "num_local_experts", "n_routed_experts", NULL };
	static const char *const n_used[] = { "num_experts_per_tok", "num_experts_per_token", "moe_topk", NULL };
	/* MLA widths default as configuration_deepseek_v3.py sets them. */
	uint32_t shared_ffn = 0, lora = 0, rope = 64, nope = 128, vdim = 128, qlora = 0, moe_ffn = 0;
	bool has, has_lora = false;
	int rc;

	if ((rc = opt_u32_any(c, t, n_exp, 0, 65535, &m->experts_total, &has)) != 0 ||
	    (rc = opt_u32_any(c, t, n_used, 0, 65535, &m->experts_used, &has)) != 0 ||
	    (rc = opt_u32(c, t, "n_shared_experts", 0, 256, &m->experts_shared, NULL)) != 0 ||
	    (rc = opt_u32(c, t, "shared_expert_intermediate_size", 0, UINT32_MAX, &shared_ffn, NULL)) != 0 ||
	    (rc = opt_u32(c, t, "moe_intermediate_size", 0, UINT32_MAX, &moe_ffn, NULL)) != 0 ||
	    (rc = opt_u32(c, t, "first_k_dense_replace", 0, CR_MAX_LAYERS, &m->experts_dense_layers, NULL)) != 0)
		return rc;
	if (m->experts_total <= 1) {
		m->experts_total = m->experts_used = m->experts_shared = 0;
	} else {
		if (m->experts_used == 0 || m->experts_used > m->experts_total)
			return jr_fail(c, CR_ERR_INVALID, "num_experts_per_tok",
				       "expected 1 to %" PRIu32 " experts per token", m->experts_total);
		if (m->experts_dense_layers)
			m->experts_dense_ffn = m->ffn;
		if (moe_ffn)
			m->ffn = moe_ffn;
		if (shared_ffn) {
			m->experts_shared_ffn = shared_ffn;
			if (!m->experts_shared)
				m->experts_shared = 1;
		}
	}
	if ((rc = opt_u32(c, t, "kv_lora_rank", 0, 65535, &lora, &has_lora)) != 0 ||
	    (rc = opt_u32(c, t, "qk_rope_head_dim", 0, 65535, &rope, NULL)) != 0 ||
	    (rc = opt_u32(c, t, "qk_nope_head_dim", 0, 65535, &nope, NULL)) != 0 ||
	    (rc = opt_u32(c, t, "v_head_dim", 0, 65535, &vdim, NULL)) != 0 ||
	    (rc = opt_u32(c, t, "q_lora_rank", 0, 65535, &qlora, NULL)) != 0)
		return rc;
	if (has_lora && lora > 0 && nope + rope == 0)
		return jr_fail(c, CR_ERR_INVALID, "qk_nope_head_dim",
			       "MLA (kv_lora_rank %" PRIu32 ") with qk_nope_head_dim + qk_rope_head_dim of 0", lora);
	if (has_lora && lora > 0) {
		/* MLA: the cache holds one latent of kv_lora_rank + qk_rope_head_dim
		 * per token and layer (vLLM MLAAttentionSpec, num_kv_heads 1). */
		m->mla = true;
		m->mla_kv_lora_rank = lora;
		m->mla_rope_dim = rope;
		m->mla_q_lora_rank = qlora;
		m->head_dim_k = nope + rope;
		m->head_dim_v = vdim ? vdim : m->head_dim_k; /* v_head_dim 0: the key's width */
		for (uint32_t i = 0; i < m->n_layers; i++)
			if (m->kv_heads[i])
				m->kv_heads[i] = 1;
	}
	return CR_OK;
}

static void make_id(const char *name, char *id, size_t cap)
{
	size_t o = 0;

	for (const char *s = name; *s && o + 1 < cap; s++) {
		unsigned char ch = (unsigned char)*s;

		if (ch >= 'A' && ch <= 'Z')
			ch = (unsigned char)(ch - 'A' + 'a');
		id[o++] = ((ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '.' || ch == '-') ? (char)ch
													     : '-';
	}
	id[o] = '\0';
}

static int map_text(jr_ctx *c, const cJSON *t, const arch_row *a, cr_hf_config *out)
{
	static const char *const k_layers[] = { "num_hidden_layers", "n_layer", "num_layers", NULL };
	static const char *const k_hidden[] = { "hidden_size", "n_embd", "d_model", NULL };
	static const char *const k_heads[] = { "num_attention_heads", "n_head", NULL };
	static const char *const k_ctx[] = { "max_position_embeddings", "n_positions", "seq_length", NULL };
	cr_model *m = &out->model;
	uint32_t head_dim = 0;
	bool has, has_hd = false;
	int rc;

	if ((rc = opt_u32_any(c, t, k_layers, 1, CR_MAX_LAYERS, &m->n_layers, &has)) != 0)
		return rc;
	if (!has)
		return jr_fail(c, CR_ERR_INVALID, "num_hidden_layers", "missing (expected an integer from 1 to %d)",
			       CR_MAX_LAYERS);
	if ((rc = opt_u32_any(c, t, k_hidden, 1, 1u << 20, &m->hidden, &has)) != 0)
		return rc;
	if (!has)
		return jr_fail(c, CR_ERR_INVALID, "hidden_size", "missing (expected a positive integer)");
	if ((rc = opt_u32_any(c, t, k_heads, 1, 65535, &m->n_heads, &has)) != 0)
		return rc;
	if (!has)
		return jr_fail(c, CR_ERR_INVALID, "num_attention_heads", "missing (expected a positive integer)");
	if ((rc = opt_u32(c, t, "vocab_size", 1, 1u << 24, &m->vocab, &has)) != 0)
		return rc;
	if (!has)
		return jr_fail(c, CR_ERR_INVALID, "vocab_size", "missing (expected a positive integer)");
	if ((rc = opt_u32_any(c, t, k_ctx, 1, UINT32_MAX, &m->context_max, &has)) != 0 ||
	    (rc = opt_u32(c, t, "intermediate_size", 0, UINT32_MAX, &m->ffn, NULL)) != 0 ||
	    (rc = opt_u32(c, t, "head_dim", 1, 65535, &head_dim, &has_hd)) != 0)
		return rc;
	if (!has_hd) {
		if (m->hidden % m->n_heads != 0)
			return jr_fail(c, CR_ERR_INVALID, "head_dim",
				       "missing, and hidden_size %" PRIu32 " is no multiple of %" PRIu32 " heads",
				       m->hidden, m->n_heads);
		head_dim = m->hidden / m->n_heads;
	}
	m->head_dim_k = m->head_dim_v = head_dim;
	m->tied_embeddings = a->tie;
	if ((rc = opt_bool(c, t, "tie_word_embeddings", &m->tied_embeddings)) != 0)
		return rc;
	if ((rc = fill_layers(c, t, a, m)) != 0 || (rc = fill_linear(c, t, m)) != 0 ||
	    (rc = fill_moe_mla(c, t, m)) != 0)
		return rc;
	if (m->experts_dense_layers > m->n_layers)
		return jr_fail(c, CR_ERR_INVALID, "first_k_dense_replace", "%" PRIu32 " is more than the %" PRIu32
			       " layers", m->experts_dense_layers, m->n_layers);
	if (cr_model_kv_layers(m) == 0)
		return jr_fail(c, CR_ERR_UNSUPPORTED, "layer_types", "no layer has attention");
	return CR_OK;
}

int cr_hfconfig_parse(const char *json, size_t len, const char *name, cr_hf_config *out, cr_error *err)
{
	jr_ctx c;
	cJSON *root = NULL;
	const cJSON *text, *archs, *tc;
	char root_type[CR_ID_MAX] = "";
	const char *text_type = NULL;
	const arch_row *a;
	int rc;

	memset(out, 0, sizeof(*out));
	jr_init(&c, name ? name : "config.json", err);
	if (len > CR_HFCONFIG_MAX_BYTES)
		return cr_seterr(err, CR_ERR_INVALID, "%s: %zu bytes, more than the %u a config.json may have", c.file,
				 len, CR_HFCONFIG_MAX_BYTES);
	if (!cr_utf8_valid(json, len))
		return cr_seterr(err, CR_ERR_PARSE, "%s: not valid UTF-8", c.file);
	if ((rc = jr_parse(&c, json, len, &root)) != 0)
		return rc;
	if (!cJSON_IsObject(root)) {
		cJSON_Delete(root);
		return cr_seterr(err, CR_ERR_PARSE, "%s: expected a JSON object", c.file);
	}
	if ((rc = jr_opt_string(&c, root, "model_type", root_type, sizeof(root_type))) != 0)
		goto out;
	archs = get(root, "architectures");
	if (archs && cJSON_IsArray(archs) && cJSON_GetArraySize(archs) > 0) {
		size_t s = jr_push_key(&c, "architectures");

		jr_push_index(&c, 0);
		rc = jr_as_string(&c, cJSON_GetArrayItem(archs, 0), NULL, out->architecture,
				  sizeof(out->architecture));
		jr_pop(&c, s);
		if (rc)
			goto out;
	}
	text = root;
	tc = get(root, "text_config");
	for (size_t i = 0; i < sizeof(wrappers) / sizeof(wrappers[0]); i++)
		if (strcmp(root_type, wrappers[i].type) == 0)
			text_type = wrappers[i].text_type;
	if (tc && cJSON_IsObject(tc)) {
		text = tc;
		out->multimodal = true;
		jr_push_key(&c, "text_config");
		if ((rc = jr_opt_string(&c, tc, "model_type", out->model_type, sizeof(out->model_type))) != 0)
			goto out;
		if (!out->model_type[0])
			cr_strlcpy(out->model_type, text_type ? text_type : root_type, sizeof(out->model_type));
	} else if (tc) {
		rc = jr_fail(&c, CR_ERR_INVALID, "text_config", "expected an object");
		goto out;
	} else {
		/* Qwen2-VL keeps the text model's keys at the root. */
		cr_strlcpy(out->model_type, text_type ? text_type : root_type, sizeof(out->model_type));
	}
	if (!out->model_type[0]) {
		rc = jr_fail(&c, CR_ERR_INVALID, "model_type", "missing (expected the architecture's name)");
		goto out;
	}
	a = find_arch(out->model_type);
	if (!a) {
		char shown[CR_ID_MAX];

		for (size_t i = 0; i <= strlen(out->model_type) && i < sizeof(shown); i++) {
			unsigned char ch = (unsigned char)out->model_type[i];

			shown[i] = (ch == 0 || (ch >= 0x20 && ch < 0x7f)) ? (char)ch : '?';
		}
		shown[sizeof(shown) - 1] = '\0';
		rc = jr_fail(&c, CR_ERR_UNSUPPORTED, "model_type",
			     "unknown architecture '%s' (docs/safetensors.md lists the known ones)", shown);
		goto out;
	}
	if ((rc = map_text(&c, text, a, out)) != 0)
		goto out;
	jr_pop(&c, 0);
	cr_strlcpy(out->torch_dtype, "bfloat16", sizeof(out->torch_dtype));
	{
		const cJSON *d = get(text, "torch_dtype") ? get(text, "torch_dtype") : get(root, "torch_dtype");

		if (!d)
			d = get(root, "dtype");
		if (d) {
			if (!cJSON_IsString(d) ||
			    (strcmp(d->valuestring, "bfloat16") != 0 && strcmp(d->valuestring, "float16") != 0 &&
			     strcmp(d->valuestring, "float32") != 0)) {
				rc = jr_fail(&c, CR_ERR_INVALID, "torch_dtype",
					     "expected \"bfloat16\", \"float16\" or \"float32\"");
				goto out;
			}
			cr_strlcpy(out->torch_dtype, d->valuestring, sizeof(out->torch_dtype));
		}
	}
	out->dtype_bytes = strcmp(out->torch_dtype, "float32") == 0 ? 4 : 2;
	if ((rc = read_quant(&c, root, out)) != 0)
		goto out;
	if (out->quant == CR_HF_QUANT_NONE && text != root && (rc = read_quant(&c, text, out)) != 0)
		goto out;
	cr_strlcpy(out->model.arch, out->model_type, sizeof(out->model.arch));
	cr_strlcpy(out->model.family, out->model_type, sizeof(out->model.family));
	cr_strlcpy(out->model.name, out->architecture[0] ? out->architecture : out->model_type,
		   sizeof(out->model.name));
	make_id(out->model.name, out->model.id, sizeof(out->model.id));
	rc = CR_OK;
out:
	cJSON_Delete(root);
	return rc;
}
