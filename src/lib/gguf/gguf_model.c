/*
 * From a parsed GGUF header to the cr_model the catalog also produces, so
 * the estimator cannot tell where a model came from.
 *
 * The rules are llama.cpp's (src/llama-model.cpp load_hparams and the
 * per-architecture loaders, src/llama-hparams.cpp): which keys an
 * architecture reads, their defaults, how per-layer arrays override
 * scalars, and which layers keep a KV cache. docs/gguf.md lists them.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gguf_internal.h"
#include "util.h"

/* How an architecture's sliding-window layers are found. */
enum swa_rule {
	SWA_KEYS = 0, /* only an explicit sliding_window_pattern (unknown archs) */
	SWA_NONE,     /* llama.cpp gives it no SWA, whatever the keys say */
	SWA_PERIOD    /* window from the key (or a default), period as below */
};

/* Which layers are recurrent (linear attention / SSM). */
enum rec_rule {
	REC_NONE = 0,
	REC_INTERVAL, /* every full_attention_interval-th layer is attention (qwen3next, qwen35) */
	REC_KV0,      /* layers with head_count_kv 0 (jamba, granite hybrid) */
	REC_KV0_FF0,  /* head_count_kv 0 and feed_forward_length 0: nemotron-h, whose MLP
		       * layers have neither attention nor a mixer */
	REC_ALL       /* every layer (mamba) */
};

typedef struct arch_rule {
	const char *name;
	uint8_t swa;
	uint8_t swa_period;       /* default period: SWA iff il % p < p - 1 */
	uint32_t swa_window;      /* default window when the key is absent; 0: key required */
	uint8_t rec;
	bool mamba2;              /* the recurrent layers are Mamba-2 (cr_model.mamba) */
} arch_rule;

/* The architectures clefrun maps on purpose. Sources: llama-model.cpp
 * load_hparams (set_swa_pattern calls and sliding_window defaults),
 * models/qwen35.cpp (full_attention_interval, default 4). Others fall back
 * to the standard keys (cr_gguf_model.generic). */
static const arch_rule arch_rules[] = {
	{ "llama", SWA_NONE, 0, 0, REC_NONE, false },
	{ "llama4", SWA_PERIOD, 4, 8192, REC_NONE, false },  /* chunked attention, 8192 */
	{ "qwen2", SWA_NONE, 0, 0, REC_NONE, false },
	{ "qwen2moe", SWA_NONE, 0, 0, REC_NONE, false },
	{ "qwen2vl", SWA_NONE, 0, 0, REC_NONE, false },
	{ "qwen3", SWA_NONE, 0, 0, REC_NONE, false },
	{ "qwen3moe", SWA_NONE, 0, 0, REC_NONE, false },
	{ "qwen3vl", SWA_NONE, 0, 0, REC_NONE, false },
	{ "qwen3vlmoe", SWA_NONE, 0, 0, REC_NONE, false },
	{ "qwen3next", SWA_NONE, 0, 0, REC_INTERVAL, false },
	{ "qwen35", SWA_NONE, 0, 0, REC_INTERVAL, false },
	{ "qwen35moe", SWA_NONE, 0, 0, REC_INTERVAL, false },
	{ "phi3", SWA_NONE, 0, 0, REC_NONE, false },         /* llama.cpp disables Phi SWA */
	{ "gemma", SWA_NONE, 0, 0, REC_NONE, false },
	{ "gemma2", SWA_PERIOD, 2, 4096, REC_NONE, false },
	{ "gemma3", SWA_PERIOD, 6, 0, REC_NONE, false },
	{ "gpt-oss", SWA_PERIOD, 2, 0, REC_NONE, false },
	{ "cohere2", SWA_PERIOD, 4, 0, REC_NONE, false },
	{ "olmo2", SWA_PERIOD, 4, 0, REC_NONE, false },
	{ "command-r", SWA_NONE, 0, 0, REC_NONE, false },
	{ "deepseek", SWA_NONE, 0, 0, REC_NONE, false },
	{ "deepseek2", SWA_NONE, 0, 0, REC_NONE, false },
	{ "glm4", SWA_NONE, 0, 0, REC_NONE, false },
	{ "glm4moe", SWA_NONE, 0, 0, REC_NONE, false },
	{ "granite", SWA_NONE, 0, 0, REC_NONE, false },
	{ "granitemoe", SWA_NONE, 0, 0, REC_NONE, false },
	{ "granitehybrid", SWA_NONE, 0, 0, REC_KV0, true },
	{ "jamba", SWA_NONE, 0, 0, REC_KV0, false },
	/* llama-model.cpp nemotron_h: "A layer is recurrent IFF the n_head_kv
	 * value is set to 0 and the n_ff value is set to 0". */
	{ "nemotron_h", SWA_NONE, 0, 0, REC_KV0_FF0, true },
	{ "nemotron_h_moe", SWA_NONE, 0, 0, REC_KV0_FF0, true },
	{ "mamba", SWA_NONE, 0, 0, REC_ALL, false },
	{ "mamba2", SWA_NONE, 0, 0, REC_ALL, true },
	{ "mistral3", SWA_KEYS, 0, 0, REC_NONE, false },
	{ "olmo", SWA_NONE, 0, 0, REC_NONE, false },
	{ "olmoe", SWA_NONE, 0, 0, REC_NONE, false },
	{ "starcoder2", SWA_NONE, 0, 0, REC_NONE, false },
	{ "internlm2", SWA_NONE, 0, 0, REC_NONE, false },
	{ "smollm3", SWA_NONE, 0, 0, REC_NONE, false },
	{ "ernie4_5", SWA_NONE, 0, 0, REC_NONE, false },
	{ "ernie4_5-moe", SWA_NONE, 0, 0, REC_NONE, false },
	{ "hunyuan-moe", SWA_NONE, 0, 0, REC_NONE, false },
	{ "hunyuan-dense", SWA_NONE, 0, 0, REC_NONE, false },
	{ "exaone", SWA_NONE, 0, 0, REC_NONE, false },
	{ "exaone4", SWA_PERIOD, 4, 0, REC_NONE, false },
	{ "seed_oss", SWA_NONE, 0, 0, REC_NONE, false },
	{ "dots1", SWA_NONE, 0, 0, REC_NONE, false },
	{ "bailingmoe", SWA_NONE, 0, 0, REC_NONE, false },
	{ "arcee", SWA_NONE, 0, 0, REC_NONE, false },
	{ "apertus", SWA_NONE, 0, 0, REC_NONE, false },
};

/* Families whose state or attention clefrun cannot express: refused. */
static const char *const refused[] = {
	"rwkv6", "rwkv6qwen2", "rwkv7", "arwkv7", "falcon-h1", "lfm2", "lfm2moe", "plamo2",
	"gemma3n", "t5", "t5encoder", "bert", "nomic-bert", "nomic-bert-moe", "jina-bert-v2",
	"jina-bert-v3", "wavtokenizer-dec", "clip", "kimi-linear", NULL
};

typedef struct mctx {
	const cr_gguf *g;
	const char *arch;
	cr_error *err;
	char key[160];
} mctx;

static const char *k(mctx *c, const char *suffix)
{
	snprintf(c->key, sizeof(c->key), "%s.%s", c->arch, suffix);
	return c->key;
}

static int bad_(mctx *c, int status, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* The status, visibly (util.h cr_seterr says why). */
#define bad(c, status, ...) cr_status_of(bad_((c), (status), __VA_ARGS__), (status))

static int bad_(mctx *c, int status, const char *fmt, ...)
{
	char what[400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	return cr_seterr(c->err, status, "%s: %s", cr_gguf_name(c->g), what);
}

/* Optional u32: *present false (and *out untouched) when absent. */
static int opt_u32(mctx *c, const char *key, uint32_t *out, bool *present)
{
	int rc = cr_gguf_get_u32(c->g, key, out, c->err);

	if (present)
		*present = rc == CR_OK;
	return rc == CR_ERR_NOTFOUND ? CR_OK : rc;
}

static int req_u32(mctx *c, const char *key, uint32_t *out)
{
	return cr_gguf_get_u32(c->g, key, out, c->err);
}

/* A per-layer value: a scalar for every layer or an array of n (llama.cpp
 * get_key_or_arr). *present false when the key is absent (out untouched). */
static int layer_u32(mctx *c, const char *key, uint32_t n, uint32_t *out, bool *present)
{
	cr_gguf_type et;
	uint64_t count, v;
	size_t idx;
	int rc;

	*present = cr_gguf_find(c->g, key, &idx);
	if (!*present)
		return CR_OK;
	if (cr_gguf_kv_type(c->g, idx) != CR_GGUF_ARRAY) {
		uint32_t s;

		if ((rc = cr_gguf_get_u32(c->g, key, &s, c->err)))
			return rc;
		for (uint32_t i = 0; i < n; i++)
			out[i] = s;
		return CR_OK;
	}
	if ((rc = cr_gguf_get_array(c->g, key, &et, &count, c->err)))
		return rc;
	if (count != n)
		return bad(c, CR_ERR_INVALID, "%s: array of %" PRIu64 " values, expected one per layer (%" PRIu32 ")",
			   key, count, n);
	for (uint32_t i = 0; i < n; i++) {
		if ((rc = cr_gguf_get_array_u64(c->g, key, i, &v, c->err)))
			return rc;
		if (v > UINT32_MAX)
			return bad(c, CR_ERR_INVALID, "%s[%" PRIu32 "]: %" PRIu64 " does not fit 32 bits", key, i, v);
		out[i] = (uint32_t)v;
	}
	return CR_OK;
}

static const arch_rule *find_rule(const char *arch)
{
	for (size_t i = 0; i < sizeof(arch_rules) / sizeof(arch_rules[0]); i++)
		if (strcmp(arch_rules[i].name, arch) == 0)
			return &arch_rules[i];
	return NULL;
}

/* id: the file name without directories, ".gguf", a split suffix or a query. */
static void model_id(const char *name, char *id, size_t cap)
{
	const char *base = strrchr(name, '/');
	size_t n, plen;
	uint32_t no, count;
	const char *q;

	base = base ? base + 1 : name;
	n = strlen(base);
	if ((q = strpbrk(base, "?#")))
		n = (size_t)(q - base);
	if (cr_gguf_split_parse(base, &plen, &no, &count) && plen < n)
		n = plen;
	else if (n > 5 && memcmp(base + n - 5, ".gguf", 5) == 0)
		n -= 5;
	if (n >= cap)
		n = cap - 1;
	memcpy(id, base, n);
	id[n] = '\0';
}

static void opt_text(mctx *c, const char *key, char *buf, size_t cap)
{
	char tmp[CR_TEXT_MAX];
	cr_error ignore;

	if (cr_gguf_get_string(c->g, key, tmp, sizeof(tmp), &ignore) == CR_OK)
		cr_strlcpy(buf, tmp, cap);
}

/* Routed-expert tensors: "*_exps*" (merged experts) or the old per-expert
 * "blk.N.ffn_{gate,up,down}.E.weight". Shared experts ("_shexp") are not. */
static bool is_expert_tensor(const char *name)
{
	const char *p;

	if (strstr(name, "_exps"))
		return true;
	for (const char *const *f = (const char *const[]){ ".ffn_gate.", ".ffn_up.", ".ffn_down.", NULL };
	     *f; f++) {
		if ((p = strstr(name, *f))) {
			p += strlen(*f);
			if (*p >= '0' && *p <= '9')
				return true;
		}
	}
	return false;
}

static int check_parts(mctx *c, const cr_gguf *const *parts, size_t n_parts)
{
	uint32_t count = 1, no;
	bool present;
	int rc;

	if ((rc = opt_u32(c, "split.count", &count, &present)))
		return rc;
	if (!present)
		count = 1;
	if (count != n_parts)
		return bad(c, CR_ERR_INVALID, "split.count is %" PRIu32 ", but %zu part%s read", count,
			   n_parts, n_parts == 1 ? " was" : "s were");
	for (size_t i = 0; i < n_parts; i++) {
		mctx pc = *c;

		pc.g = parts[i];
		no = 0;
		if ((rc = opt_u32(&pc, "split.no", &no, &present)))
			return rc;
		if (n_parts > 1 && (!present || no != i))
			return bad(&pc, CR_ERR_INVALID, "split.no is %s%" PRIu32 ", expected %zu",
				   present ? "" : "missing: ", no, i);
	}
	return CR_OK;
}

/* Sliding-window layers and the window (llama.cpp set_swa_pattern:
 * layer il slides iff period == 0 || il % period < period - 1). */
static int map_swa(mctx *c, const arch_rule *r, cr_gguf_model *gm, uint32_t n_main)
{
	cr_model *m = &gm->model;
	uint32_t window = 0, period = 0, *flags = NULL;
	bool has_window, has_pattern = false, scalar = false;
	size_t idx;
	int rc;

	if (r && r->swa == SWA_NONE)
		return CR_OK;
	if ((rc = opt_u32(c, k(c, "attention.sliding_window"), &window, &has_window)))
		return rc;
	if (r && strcmp(r->name, "llama4") == 0) {
		/* llama4: chunked attention of 8192 unless the key says 0. */
		if (has_window && window == 0)
			return CR_OK;
		window = 8192;
	} else if (!has_window && r && r->swa_window) {
		window = r->swa_window;
	}
	if (!window)
		return CR_OK;
	if (cr_gguf_find(c->g, k(c, "attention.sliding_window_pattern"), &idx)) {
		has_pattern = true;
		scalar = cr_gguf_kv_type(c->g, idx) != CR_GGUF_ARRAY;
	}
	if (has_pattern && scalar) {
		if ((rc = req_u32(c, k(c, "attention.sliding_window_pattern"), &period)))
			return rc;
	} else if (has_pattern) {
		bool present;

		if (!(flags = calloc(m->n_layers, sizeof(*flags))))
			return bad(c, CR_ERR_NOMEM, "out of memory");
		rc = layer_u32(c, k(c, "attention.sliding_window_pattern"), m->n_layers, flags, &present);
		if (rc) {
			free(flags);
			return rc;
		}
	} else if (r && r->swa == SWA_PERIOD) {
		period = r->swa_period;
	} else {
		/* An architecture clefrun does not know, a window and no pattern:
		 * llama.cpp would not slide either unless it knew the arch, so
		 * count full attention (the larger, safer estimate). */
		return CR_OK;
	}
	for (uint32_t i = 0; i < n_main; i++) {
		bool slide = flags ? flags[i] != 0 : (period == 0 || i % period < period - 1);

		if (slide && m->layer_kind[i] == CR_LAYER_FULL) {
			m->layer_kind[i] = CR_LAYER_SLIDING;
			m->window = window;
		}
	}
	gm->swa_period = flags ? 0 : period;
	free(flags);
	return CR_OK;
}

static int map_recurrent(mctx *c, const arch_rule *r, cr_gguf_model *gm, uint32_t n_main,
			 const uint32_t *ff, bool has_ff)
{
	cr_model *m = &gm->model;
	uint32_t conv = 0, inner = 0, state = 0, groups = 0, dt_rank = 0;
	bool any = false, present;
	int rc;

	if (!r || r->rec == REC_NONE)
		return CR_OK;
	if (r->rec == REC_INTERVAL) {
		uint32_t *flags = calloc(m->n_layers, sizeof(*flags));

		if (!flags)
			return bad(c, CR_ERR_NOMEM, "out of memory");
		rc = layer_u32(c, k(c, "attention.recurrent_layers"), m->n_layers, flags, &present);
		if (!rc && !present) {
			uint32_t interval = 4; /* llama.cpp's default (models/qwen35.cpp) */

			rc = opt_u32(c, k(c, "full_attention_interval"), &interval, NULL);
			if (!rc && interval == 0)
				rc = bad(c, CR_ERR_INVALID, "%s: 0 (must be positive)", c->key);
			for (uint32_t i = 0; !rc && i < m->n_layers; i++)
				flags[i] = i < n_main && (i + 1) % interval != 0;
			gm->full_attention_interval = interval;
		}
		for (uint32_t i = 0; !rc && i < m->n_layers; i++) {
			if (flags[i]) {
				m->layer_kind[i] = CR_LAYER_RECURRENT;
				m->kv_heads[i] = 0;
				any = true;
			}
		}
		free(flags);
		if (rc)
			return rc;
	} else {
		for (uint32_t i = 0; i < n_main; i++) {
			bool ffn = has_ff && ff[i];

			if (r->rec == REC_KV0_FF0) {
				/* nemotron-h: one sublayer per layer; the MLP layers
				 * (KV 0, FFN) have no mixer, the others no FFN. */
				m->layer_parts[i] = m->kv_heads[i] == 0 && ffn ? CR_LAYER_NO_MIXER
						    : ffn			   ? 0
										   : CR_LAYER_NO_FFN;
				if (ffn)
					continue;
			}
			if (r->rec == REC_ALL || m->kv_heads[i] == 0) {
				m->layer_kind[i] = CR_LAYER_RECURRENT;
				m->kv_heads[i] = 0;
				any = true;
			}
		}
	}
	if (!any)
		return CR_OK;
	m->mamba = r->mamba2;
	/* Gated DeltaNet and Mamba share llama.cpp's state sizes
	 * (llama-hparams.cpp n_embd_r / n_embd_s): conv (d_conv - 1) ×
	 * (d_inner + 2 · n_group · d_state), recurrent d_state × d_inner.
	 * estimate.c computes them from k_heads = n_group, k_head_dim = d_state,
	 * v_heads × v_head_dim = d_inner. */
	if ((rc = req_u32(c, k(c, "ssm.conv_kernel"), &conv)) ||
	    (rc = req_u32(c, k(c, "ssm.inner_size"), &inner)) ||
	    (rc = req_u32(c, k(c, "ssm.state_size"), &state)) ||
	    (rc = opt_u32(c, k(c, "ssm.group_count"), &groups, NULL)) ||
	    (rc = opt_u32(c, k(c, "ssm.time_step_rank"), &dt_rank, NULL)))
		return rc;
	m->linear.conv_kernel = conv;
	m->linear.k_heads = groups;
	m->linear.k_head_dim = state;
	if (dt_rank && inner % dt_rank == 0) {
		m->linear.v_heads = dt_rank;
		m->linear.v_head_dim = inner / dt_rank;
	} else {
		m->linear.v_heads = 1;
		m->linear.v_head_dim = inner;
	}
	return CR_OK;
}

static int map_experts(mctx *c, cr_gguf_model *gm)
{
	cr_model *m = &gm->model;
	uint32_t total = 0, used = 0, shared = 0, exp_ff = 0;
	bool has_ff;
	int rc;

	if ((rc = opt_u32(c, k(c, "expert_count"), &total, NULL)) ||
	    (rc = opt_u32(c, k(c, "expert_used_count"), &used, NULL)) ||
	    (rc = opt_u32(c, k(c, "expert_shared_count"), &shared, NULL)) ||
	    (rc = opt_u32(c, k(c, "expert_feed_forward_length"), &exp_ff, &has_ff)))
		return rc;
	if (!total)
		return CR_OK;
	if (!used)
		return bad(c, CR_ERR_INVALID, "%s.expert_count is %" PRIu32 " but %s.expert_used_count is 0 or missing",
			   c->arch, total, c->arch);
	if (used > total)
		return bad(c, CR_ERR_INVALID, "%s.expert_used_count %" PRIu32 " is above %s.expert_count %" PRIu32,
			   c->arch, used, c->arch, total);
	m->experts_total = total;
	m->experts_used = used;
	m->experts_shared = shared;
	if (has_ff && exp_ff)
		m->ffn = exp_ff;
	return CR_OK;
}

/* cr_gguf_model.mapped_extra_bytes: per part, the span of the offloaded
 * tensors (all but token_embd.weight, which stays on the host unless the
 * output layer reuses it) less their bytes. Offsets and sizes were checked
 * against the part's data when it was parsed. */
static uint64_t mapped_extra(const cr_gguf *const *parts, size_t n_parts)
{
	bool tied = true;
	uint64_t extra = 0;

	for (size_t p = 0; p < n_parts; p++)
		if (cr_gguf_find_tensor(parts[p], "output.weight"))
			tied = false;
	for (size_t p = 0; p < n_parts; p++) {
		uint64_t first = UINT64_MAX, last = 0, bytes = 0;

		for (size_t i = 0; i < cr_gguf_tensor_count(parts[p]); i++) {
			const cr_gguf_tensor *t = cr_gguf_tensor_at(parts[p], i);

			if (!tied && strcmp(t->name, "token_embd.weight") == 0)
				continue;
			if (t->offset < first)
				first = t->offset;
			if (t->offset + t->bytes > last)
				last = t->offset + t->bytes;
			bytes += t->bytes;
		}
		if (first < last && last - first > bytes)
			extra += last - first - bytes;
	}
	return extra;
}

/* Architectures whose main context in llama.cpp v0.4.0 leaves the
 * NextN layers out of the KV cache (src/llama-model.cpp create_memory: the
 * hybrid filter_attn "il < hparams.n_layer()" of qwen3next, qwen35,
 * qwen35moe, qwen4exp, minimax01, lines 2487-2493; the explicit filter of
 * step35, hy-v3, glm-dsa, mimo2, deepseek32, 2587-2594). Every other
 * architecture's generic llama_kv_cache caches all n_layer_all layers
 * (src/llama-kv-cache.cpp:102, 165-175). */
static bool mtp_kv_filtered(const char *arch)
{
	static const char *const filtered[] = { "qwen3next", "qwen35", "qwen35moe", "qwen4exp", "minimax01",
						"step35", "hy-v3", "glm-dsa", "mimo2", "deepseek32" };

	for (size_t i = 0; i < sizeof(filtered) / sizeof(filtered[0]); i++)
		if (strcmp(arch, filtered[i]) == 0)
			return true;
	return false;
}

/* Architectures whose loader skips the NextN tensors unless the MTP head
 * drafts (llama.cpp v0.4.0 src/models/<arch>.cpp load_arch_tensors:
 * "if (!ml.load_mtp) mtp_flags |= TENSOR_SKIP", e.g. glm4-moe.cpp:38-40;
 * load_mtp only with --spec-type draft-mtp, common/common.cpp:1714; a
 * skipped tensor is not allocated, src/llama-model-loader.cpp:1171-1177). */
static bool mtp_weights_skipped(const char *arch)
{
	static const char *const skip[] = { "deepseek2", "deepseek32", "deepseek4", "qwen3next", "qwen35",
					    "qwen35moe", "step35", "bailingmoe3", "cohere2moe", "hy-v3",
					    "glm-dsa", "glm4moe", "mimo2" };

	for (size_t i = 0; i < sizeof(skip) / sizeof(skip[0]); i++)
		if (strcmp(arch, skip[i]) == 0)
			return true;
	return false;
}

/* The block index of a "blk.N." tensor name; -1 for any other name. */
static long block_of(const char *name)
{
	char *end;
	unsigned long v;

	if (strncmp(name, "blk.", 4) != 0 || name[4] < '0' || name[4] > '9')
		return -1;
	v = strtoul(name + 4, &end, 10);
	return *end == '.' && v < 1000000ul ? (long)v : -1;
}

/* Parameters, expert parameters and bytes over every part; an error when
 * the parts' sums overflow 64 bits (hostile headers whose data is missing).
 * The NextN layers' tensors are left out where llama.cpp does not load
 * them (mtp_weights_skipped), and counted in gm->mtp_bytes. */
static int count_tensors(mctx *c, const cr_gguf *const *parts, size_t n_parts, cr_gguf_model *gm)
{
	cr_model *m = &gm->model;
	bool skip = mtp_weights_skipped(c->arch);

	m->params = 0;
	gm->expert_params = 0;
	gm->weights_bytes = 0;
	gm->mtp_bytes = 0;
	gm->mtp_skipped = skip && m->mtp_layers;
	for (size_t p = 0; p < n_parts; p++) {
		uint64_t params = cr_gguf_param_count(parts[p]), bytes = cr_gguf_tensor_bytes(parts[p]);

		if (params > UINT64_MAX - m->params || bytes > UINT64_MAX - gm->weights_bytes)
			return bad(c, CR_ERR_INVALID, "the parts' tensors sum past 2^64 parameters or bytes");
		m->params += params;
		gm->weights_bytes += bytes;
		for (size_t i = 0; i < cr_gguf_tensor_count(parts[p]); i++) {
			const cr_gguf_tensor *t = cr_gguf_tensor_at(parts[p], i);
			long b = block_of(t->name);

			if (m->mtp_layers && b >= (long)(m->n_layers - m->mtp_layers) && b < (long)m->n_layers) {
				gm->mtp_bytes += t->bytes;
				if (skip) {
					gm->weights_bytes -= t->bytes;
					m->params -= t->n_elements;
					continue;
				}
			}
			if (is_expert_tensor(t->name))
				gm->expert_params += t->n_elements;
		}
	}
	gm->mapped_extra_bytes = mapped_extra(parts, n_parts);
	m->active_params = m->params;
	if (m->experts_total && gm->expert_params)
		m->active_params = m->params - gm->expert_params +
				   (uint64_t)((double)gm->expert_params * m->experts_used / m->experts_total);
	return CR_OK;
}

static bool has_tensor(const cr_gguf *const *parts, size_t n_parts, const char *name)
{
	for (size_t p = 0; p < n_parts; p++)
		if (cr_gguf_find_tensor(parts[p], name))
			return true;
	return false;
}

static const cr_gguf_tensor *find_tensor(const cr_gguf *const *parts, size_t n_parts,
					 const char *name)
{
	for (size_t p = 0; p < n_parts; p++) {
		const cr_gguf_tensor *t = cr_gguf_find_tensor(parts[p], name);

		if (t)
			return t;
	}
	return NULL;
}

static int map_attention(mctx *c, cr_gguf_model *gm, uint32_t *heads, uint32_t *kvh)
{
	cr_model *m = &gm->model;
	uint32_t n = m->n_layers, hk = 0, hv = 0, lora = 0, kmla = 0, vmla = 0, rope = 0;
	bool has_heads, has_kv, has_lora, has_kmla, has_vmla, has_rope;
	int rc;

	if ((rc = layer_u32(c, k(c, "attention.head_count"), n, heads, &has_heads)))
		return rc;
	if (!has_heads)
		memset(heads, 0, n * sizeof(*heads));
	memcpy(kvh, heads, n * sizeof(*kvh)); /* head_count_kv defaults to head_count */
	if ((rc = layer_u32(c, k(c, "attention.head_count_kv"), n, kvh, &has_kv)))
		return rc;
	for (uint32_t i = 0; i < n; i++) {
		if (heads[i] > m->n_heads)
			m->n_heads = heads[i];
		if (kvh[i] > UINT16_MAX)
			return bad(c, CR_ERR_INVALID, "%s: %" PRIu32 " KV heads in layer %" PRIu32 " (at most 65535)",
				   k(c, "attention.head_count_kv"), kvh[i], i);
		m->kv_heads[i] = (uint16_t)kvh[i];
	}
	/* llama.cpp: key/value length default to n_embd / n_head(layer 0). */
	if (heads[0]) {
		hk = hv = m->hidden / heads[0];
	}
	if ((rc = opt_u32(c, k(c, "attention.key_length"), &hk, NULL)) ||
	    (rc = opt_u32(c, k(c, "attention.value_length"), &hv, NULL)) ||
	    (rc = opt_u32(c, k(c, "attention.kv_lora_rank"), &lora, &has_lora)) ||
	    (rc = opt_u32(c, k(c, "attention.key_length_mla"), &kmla, &has_kmla)) ||
	    (rc = opt_u32(c, k(c, "attention.value_length_mla"), &vmla, &has_vmla)) ||
	    (rc = opt_u32(c, k(c, "rope.dimension_count"), &rope, &has_rope)))
		return rc;
	m->head_dim_k = hk;
	m->head_dim_v = hv;
	/* MLA as llama.cpp runs it (hparams.is_mla(): both *_mla lengths set):
	 * the cache keeps one K row of key_length (= kv_lora_rank + rope dims,
	 * 576 for DeepSeek-V3) per KV head and no V. Older DeepSeek GGUFs
	 * without the *_mla keys run as plain multi-head attention with the
	 * head counts and lengths they carry, and are mapped that way. */
	if (has_lora && lora && has_kmla && kmla && has_vmla && vmla) {
		m->mla = true;
		m->mla_kv_lora_rank = lora;
		m->mla_rope_dim = hk > lora ? hk - lora : (has_rope ? rope : 0);
		m->head_dim_k = kmla;
		m->head_dim_v = vmla;
	}
	return CR_OK;
}

/* Layer il keeps KV heads but a head size is 0: say which key made it so
 * (llama.cpp: key_length and value_length default to embedding_length /
 * head_count of layer 0). */
static int no_head_size(mctx *c, uint32_t il, unsigned kv_heads, uint32_t heads0, bool key)
{
	char name[128];
	size_t idx;

	snprintf(name, sizeof(name), "%s.attention.%s", c->arch, key ? "key_length" : "value_length");
	if (cr_gguf_find(c->g, name, &idx))
		return bad(c, CR_ERR_INVALID, "%s is 0, but layer %" PRIu32 " has %u KV heads", name, il, kv_heads);
	if (!heads0)
		return bad(c, CR_ERR_INVALID,
			   "%s.attention.head_count is 0 or missing, but layer %" PRIu32 " has %u KV heads: no %s and "
			   "no head count to derive it from (embedding_length / head_count)", c->arch, il, kv_heads, name);
	return bad(c, CR_ERR_INVALID, "%s.embedding_length / %s.attention.head_count is 0 (no %s), but layer %" PRIu32
		   " has %u KV heads", c->arch, c->arch, name, il, kv_heads);
}

/* "[32, 8]" */
static void shape_text(const cr_gguf_tensor *t, char *buf, size_t cap)
{
	size_t k = 0;

	buf[0] = '\0';
	for (uint32_t d = 0; d < t->n_dims && k < cap; d++)
		k += (size_t)snprintf(buf + k, cap - k, "%s%" PRIu64, d ? ", " : "", t->dims[d]);
}

/* Dimension d of tensor `name` must be one of want[0..n_want): otherwise
 * the metadata (what) and the tensor disagree, and the one that sizes
 * memory (the metadata) is not to be trusted. Absent tensors and
 * dimensions are not checked (fused or renamed tensors of other
 * architectures). */
static int expect_dim(mctx *c, const cr_gguf *const *parts, size_t n_parts, const char *name, uint32_t d,
		      const uint64_t *want, size_t n_want, const char *what)
{
	const cr_gguf_tensor *t = find_tensor(parts, n_parts, name);
	char shape[96];

	if (!t || d >= t->n_dims)
		return CR_OK;
	for (size_t i = 0; i < n_want; i++)
		if (t->dims[d] == want[i])
			return CR_OK;
	shape_text(t, shape, sizeof(shape));
	return bad(c, CR_ERR_INVALID, "%s, but tensor %s is [%s] (dimension %" PRIu32 " is %" PRIu64 ")", what, name,
		   shape, d, t->dims[d]);
}

/* The metadata that sizes memory against the tensors that carry it, with
 * llama.cpp's shapes (llama-model.cpp load_tensors): tok_embd {n_embd,
 * n_vocab}; wq {n_embd, n_embd_head_k · n_head}, twice that with the
 * output gate of qwen3next/qwen35 (models/qwen3next.cpp); wk {n_embd,
 * n_embd_head_k · n_head_kv}; wv {n_embd, n_embd_head_v · n_head_kv};
 * ffn_up {n_embd, n_ff}, twice that where gate and up are fused (phi3);
 * ffn_gate_inp {n_embd, n_expert}; ffn_up_exps {n_embd, n_ff_exp,
 * n_expert}. A header whose keys disagree with its own tensors (an
 * embedding_length of 1e9 beside 32-wide tensors: 7629 GiB of KV cache)
 * is refused, naming both. */
static int check_shapes(mctx *c, const cr_gguf *const *parts, size_t n_parts, const cr_model *m,
			const char *vocab_key, const uint32_t *heads, const uint32_t *kvh, const uint32_t *ff,
			bool has_ff)
{
	char name[64], what[256], ksrc[128], vsrc[128];
	uint32_t exp_ff = 0;
	uint64_t w[2];
	size_t idx;
	int rc;

	/* Where the head sizes came from: the key, or llama.cpp's default. */
	snprintf(ksrc, sizeof(ksrc), "%s.attention.key_length", c->arch);
	if (!cr_gguf_find(c->g, ksrc, &idx))
		snprintf(ksrc, sizeof(ksrc), "%s.embedding_length / head_count", c->arch);
	snprintf(vsrc, sizeof(vsrc), "%s.attention.value_length", c->arch);
	if (!cr_gguf_find(c->g, vsrc, &idx))
		snprintf(vsrc, sizeof(vsrc), "%s.embedding_length / head_count", c->arch);

	if ((rc = opt_u32(c, k(c, "expert_feed_forward_length"), &exp_ff, NULL)))
		return rc;
	w[0] = m->hidden;
	snprintf(what, sizeof(what), "%s.embedding_length is %" PRIu32, c->arch, m->hidden);
	if ((rc = expect_dim(c, parts, n_parts, "token_embd.weight", 0, w, 1, what)))
		return rc;
	w[0] = m->vocab;
	snprintf(what, sizeof(what), "%s is %" PRIu32, vocab_key, m->vocab);
	if ((rc = expect_dim(c, parts, n_parts, "token_embd.weight", 1, w, 1, what)) ||
	    (rc = expect_dim(c, parts, n_parts, "output.weight", 1, w, 1, what)))
		return rc;
	for (uint32_t i = 0; i < m->n_layers; i++) {
		if (m->layer_kind[i] == CR_LAYER_RECURRENT || m->mla)
			continue;
		if (heads[i] && kvh[i] > heads[i])
			return bad(c, CR_ERR_INVALID, "%s.attention.head_count_kv is %" PRIu32 " in layer %" PRIu32
				   ", above %s.attention.head_count %" PRIu32 " (KV heads are shared by query heads)",
				   c->arch, kvh[i], i, c->arch, heads[i]);
		/* attn_q {hidden, head_k x heads} (x 2: qwen3next's gate), attn_k
		 * {hidden, head_k x kv heads}, attn_v {hidden, head_v x kv heads}. */
		{
			const struct {
				const char *tensor, *dim_src, *heads_key;
				uint32_t dim, n;
				unsigned widths;
			} proj[3] = {
				{ "attn_q", ksrc, "head_count", m->head_dim_k, heads[i], 2 },
				{ "attn_k", ksrc, "head_count_kv", m->head_dim_k, kvh[i], 1 },
				{ "attn_v", vsrc, "head_count_kv", m->head_dim_v, kvh[i], 1 },
			};

			for (unsigned j = 0; j < 3; j++) {
				w[0] = (uint64_t)proj[j].dim * proj[j].n;
				w[1] = 2 * w[0];
				snprintf(name, sizeof(name), "blk.%" PRIu32 ".%s.weight", i, proj[j].tensor);
				snprintf(what, sizeof(what), "head size %" PRIu32 " (%s) x %" PRIu32 " %s (%s.attention.%s) is %" PRIu64,
					 proj[j].dim, proj[j].dim_src, proj[j].n, j ? "KV heads" : "heads", c->arch,
					 proj[j].heads_key, w[0]);
				if ((rc = expect_dim(c, parts, n_parts, name, 1, w, proj[j].widths, what)))
					return rc;
			}
		}
	}
	/* Recurrent layers: ssm_conv1d {d_conv, d_inner + 2 · n_group · d_state}
	 * (llama.cpp mamba2 and qwen3next / qwen35: the conv runs over x, B
	 * and C), from which the state sizes are computed. */
	for (uint32_t i = 0; i < m->n_layers; i++) {
		const cr_linear_attn *la = &m->linear;
		uint64_t inner = (uint64_t)la->v_heads * la->v_head_dim, gs = (uint64_t)la->k_heads * la->k_head_dim;

		if (m->layer_kind[i] != CR_LAYER_RECURRENT)
			continue;
		snprintf(name, sizeof(name), "blk.%" PRIu32 ".ssm_conv1d.weight", i);
		w[0] = la->conv_kernel;
		snprintf(what, sizeof(what), "%s.ssm.conv_kernel is %" PRIu32, c->arch, la->conv_kernel);
		if ((rc = expect_dim(c, parts, n_parts, name, 0, w, 1, what)))
			return rc;
		w[0] = gs > (UINT64_MAX - inner) / 2 ? UINT64_MAX : inner + 2 * gs;
		snprintf(what, sizeof(what), "%s.ssm.inner_size %" PRIu64 " + 2 x %s.ssm.group_count %" PRIu32
			 " x %s.ssm.state_size %" PRIu32 " is %" PRIu64, c->arch, inner, c->arch, la->k_heads, c->arch,
			 la->k_head_dim, w[0]);
		if ((rc = expect_dim(c, parts, n_parts, name, 1, w, 1, what)))
			return rc;
	}
	for (uint32_t i = 0; has_ff && i < m->n_layers; i++) {
		w[0] = ff[i];
		w[1] = 2 * (uint64_t)ff[i];
		snprintf(name, sizeof(name), "blk.%" PRIu32 ".ffn_up.weight", i);
		snprintf(what, sizeof(what), "%s.feed_forward_length is %" PRIu32 " in layer %" PRIu32, c->arch, ff[i], i);
		if ((rc = expect_dim(c, parts, n_parts, name, 1, w, 2, what)))
			return rc;
	}
	for (uint32_t i = 0; m->experts_total && i < m->n_layers; i++) {
		w[0] = m->experts_total;
		snprintf(what, sizeof(what), "%s.expert_count is %" PRIu32, c->arch, m->experts_total);
		snprintf(name, sizeof(name), "blk.%" PRIu32 ".ffn_gate_inp.weight", i);
		if ((rc = expect_dim(c, parts, n_parts, name, 1, w, 1, what)))
			return rc;
		snprintf(name, sizeof(name), "blk.%" PRIu32 ".ffn_up_exps.weight", i);
		if ((rc = expect_dim(c, parts, n_parts, name, 2, w, 1, what)))
			return rc;
		if (exp_ff) {
			w[0] = exp_ff;
			snprintf(what, sizeof(what), "%s.expert_feed_forward_length is %" PRIu32, c->arch, exp_ff);
			if ((rc = expect_dim(c, parts, n_parts, name, 1, w, 1, what)))
				return rc;
		}
	}
	return CR_OK;
}

int cr_gguf_to_model(const cr_gguf *const *parts, size_t n_parts, cr_gguf_model *out,
		     cr_error *err)
{
	mctx c = { 0 };
	const arch_rule *r;
	cr_model *m;
	uint32_t n, ctx, vocab = 0, nextn = 0, *heads = NULL, *kvh = NULL, *ff = NULL, file_type;
	bool has_vocab, has_ff, present;
	char vocab_key[96];
	uint64_t toks;
	int rc;

	if (!out)
		return cr_seterr(err, CR_ERR_INVALID, "gguf: no output");
	memset(out, 0, sizeof(*out));
	if (!parts || !n_parts || !parts[0])
		return cr_seterr(err, CR_ERR_INVALID, "gguf: no header to map");
	c.g = parts[0];
	c.arch = cr_gguf_arch(c.g);
	c.err = err;
	m = &out->model;
	if (!c.arch[0])
		return bad(&c, CR_ERR_INVALID, "general.architecture: missing");
	for (const char *const *x = refused; *x; x++)
		if (strcmp(*x, c.arch) == 0)
			return bad(&c, CR_ERR_UNSUPPORTED,
				   "architecture '%s' is not supported: clefrun cannot size its memory", c.arch);
	r = find_rule(c.arch);
	if ((rc = check_parts(&c, parts, n_parts)))
		return rc;
	out->n_parts = (uint32_t)n_parts;
	out->generic = r == NULL;

	/* Without the standard keys there is nothing to map. */
	if (!(rc = req_u32(&c, k(&c, "block_count"), &n)) && (n == 0 || n > CR_MAX_LAYERS))
		return bad(&c, CR_ERR_RANGE, "%s.block_count %" PRIu32 ": expected 1 to %d layers", c.arch, n,
			   CR_MAX_LAYERS);
	if (rc || (rc = req_u32(&c, k(&c, "embedding_length"), &m->hidden)) ||
	    (rc = req_u32(&c, k(&c, "context_length"), &ctx))) {
		if (rc == CR_ERR_NOTFOUND && !r)
			return bad(&c, CR_ERR_UNSUPPORTED,
				   "unknown architecture '%s' without the standard key %s", c.arch, c.key);
		return rc;
	}
	if (!m->hidden || !ctx)
		return bad(&c, CR_ERR_INVALID, "%s: 0", m->hidden ? k(&c, "context_length") : k(&c, "embedding_length"));
	m->n_layers = n;
	m->context_max = ctx;
	cr_strlcpy(m->arch, c.arch, sizeof(m->arch));

	heads = calloc(n, sizeof(*heads));
	kvh = calloc(n, sizeof(*kvh));
	ff = calloc(n, sizeof(*ff));
	if (!heads || !kvh || !ff) {
		rc = bad(&c, CR_ERR_NOMEM, "out of memory");
		goto out;
	}
	if ((rc = layer_u32(&c, k(&c, "feed_forward_length"), n, ff, &has_ff)))
		goto out;
	for (uint32_t i = 0; has_ff && i < n; i++)
		if (ff[i] > m->ffn)
			m->ffn = ff[i];
	if ((rc = map_attention(&c, out, heads, kvh)) || (rc = map_experts(&c, out)))
		goto out;
	if ((rc = opt_u32(&c, k(&c, "nextn_predict_layers"), &nextn, NULL)))
		goto out;
	if (nextn >= n) {
		rc = bad(&c, CR_ERR_INVALID, "%s.nextn_predict_layers %" PRIu32 " is not below block_count %" PRIu32,
			 c.arch, nextn, n);
		goto out;
	}
	/* Multi-token-prediction layers come last. llama.cpp v0.4.0's main
	 * context gives them a KV cache unless the architecture's memory filters
	 * them out (mtp_kv_filtered); the trunk's graph never reads it, and
	 * clefrun's decode reads it all the same (a share of 1 / n_layers of
	 * the KV reads, pessimistic). */
	if (mtp_kv_filtered(c.arch))
		for (uint32_t i = n - nextn; i < n; i++)
			m->kv_heads[i] = 0;
	out->nextn_layers = nextn;
	m->mtp_layers = nextn;
	if ((rc = map_recurrent(&c, r, out, n - nextn, ff, has_ff)) || (rc = map_swa(&c, r, out, n - nextn)))
		goto out;
	for (uint32_t i = 0; i < n; i++) {
		if (m->layer_kind[i] != CR_LAYER_RECURRENT && m->kv_heads[i] &&
		    (!m->head_dim_k || !m->head_dim_v) && !m->mla) {
			rc = no_head_size(&c, i, m->kv_heads[i], heads[0], !m->head_dim_k);
			goto out;
		}
	}

	/* Vocabulary: {arch}.vocab_size, else the token list, else the
	 * embedding matrix (llama.cpp: vocab_size || tokens array length). */
	if ((rc = opt_u32(&c, k(&c, "vocab_size"), &vocab, &has_vocab)))
		goto out;
	snprintf(vocab_key, sizeof(vocab_key), "%s.vocab_size", c.arch);
	if (!has_vocab || !vocab) {
		if (cr_gguf_get_array(c.g, "tokenizer.ggml.tokens", NULL, &toks, NULL) == CR_OK &&
		    toks && toks <= UINT32_MAX) {
			vocab = (uint32_t)toks;
			snprintf(vocab_key, sizeof(vocab_key), "the length of tokenizer.ggml.tokens");
		} else {
			const cr_gguf_tensor *t = find_tensor(parts, n_parts, "token_embd.weight");

			if (t && t->n_dims >= 2 && t->dims[1] <= UINT32_MAX)
				vocab = (uint32_t)t->dims[1];
		}
	}
	if (!vocab) {
		rc = bad(&c, CR_ERR_INVALID,
			 "vocabulary size unknown: no %s.vocab_size, tokenizer.ggml.tokens or token_embd.weight",
			 c.arch);
		goto out;
	}
	m->vocab = vocab;
	if ((rc = check_shapes(&c, parts, n_parts, m, vocab_key, heads, kvh, ff, has_ff)))
		goto out;
	m->tied_embeddings = has_tensor(parts, n_parts, "token_embd.weight") &&
			     !has_tensor(parts, n_parts, "output.weight");
	if ((rc = count_tensors(&c, parts, n_parts, out)))
		goto out;
	if (m->experts_total && !out->expert_params) {
		/* Memory counts every expert and speed the used ones: experts
		 * the file does not hold would be invented. */
		rc = bad(&c, CR_ERR_INVALID, "%s.expert_count is %" PRIu32 ", but no tensor holds experts (*_exps)",
			 c.arch, m->experts_total);
		goto out;
	}
	if (!m->params) {
		rc = bad(&c, CR_ERR_INVALID, "no tensors: a header without weights cannot be sized");
		goto out;
	}

	model_id(cr_gguf_name(c.g), m->id, sizeof(m->id));
	cr_strlcpy(m->name, m->id, sizeof(m->name));
	opt_text(&c, "general.name", m->name, sizeof(m->name));
	cr_strlcpy(m->family, c.arch, sizeof(m->family));
	opt_text(&c, "general.basename", m->family, sizeof(m->family));
	opt_text(&c, "general.organization", m->developer, sizeof(m->developer));
	opt_text(&c, "general.license", m->license, sizeof(m->license));
	if (opt_u32(&c, "general.file_type", &file_type, &present) == CR_OK && present &&
	    cr_gguf_file_type_name(file_type))
		cr_strlcpy(out->file_type, cr_gguf_file_type_name(file_type), sizeof(out->file_type));
	snprintf(m->notes, sizeof(m->notes), "read from a GGUF header%s",
		 out->generic ? "; architecture unknown to clefrun, mapped from the standard keys as full attention" : "");
	cr_strlcpy(m->sources[0], cr_gguf_name(c.g), sizeof(m->sources[0]));
	m->n_sources = 1;
	rc = CR_OK;
out:
	free(heads);
	free(kvh);
	free(ff);
	if (rc)
		memset(out, 0, sizeof(*out));
	return rc;
}

/* ---- vision projectors ------------------------------------------------------ */

/* llama.cpp reads the projector type from clip.vision.projector_type in files
 * with several modalities, else clip.projector_type (tools/mtmd/clip.cpp
 * clip_model_loader; clip-impl.h KEY_VISION_PROJ_TYPE, KEY_PROJ_TYPE). */
int cr_gguf_clip_read(const cr_gguf *g, cr_gguf_clip *out, cr_error *err)
{
	static const char *const required[] = { "clip.vision.block_count", "clip.vision.embedding_length",
		"clip.vision.feed_forward_length", "clip.vision.attention.head_count", "clip.vision.patch_size" };
	mctx c = { .g = g, .arch = "clip", .err = err };
	uint32_t *req_out[5];
	uint64_t by_type[CR_GGML_TYPE_COUNT] = { 0 };
	bool has = true, present;
	int rc;

	if (!g || !out)
		return cr_seterr(err, CR_ERR_INVALID, "clip: missing header or output");
	memset(out, 0, sizeof(*out));
	if (strcmp(cr_gguf_arch(g), "clip") != 0)
		return bad(&c, CR_ERR_INVALID, "general.architecture is '%s', not 'clip': not an mmproj file",
			   cr_gguf_arch(g));
	rc = cr_gguf_get_bool(g, "clip.has_vision_encoder", &has, err);
	if (rc && rc != CR_ERR_NOTFOUND)
		return rc;
	if (!has)
		return bad(&c, CR_ERR_INVALID, "clip.has_vision_encoder is false: no image encoder");
	rc = cr_gguf_get_string(g, "clip.vision.projector_type", out->projector, sizeof(out->projector), err);
	if (rc == CR_ERR_NOTFOUND)
		rc = cr_gguf_get_string(g, "clip.projector_type", out->projector, sizeof(out->projector), err);
	if (rc == CR_ERR_NOTFOUND)
		return bad(&c, CR_ERR_INVALID, "no clip.projector_type (nor clip.vision.projector_type)");
	if (rc)
		return rc;
	req_out[0] = &out->layers;
	req_out[1] = &out->hidden;
	req_out[2] = &out->ffn;
	req_out[3] = &out->heads;
	req_out[4] = &out->patch;
	for (size_t i = 0; i < 5; i++) {
		rc = req_u32(&c, required[i], req_out[i]);
		if (rc == CR_ERR_NOTFOUND)
			return bad(&c, CR_ERR_INVALID, "no %s", required[i]);
		if (rc)
			return rc;
	}
	if ((rc = opt_u32(&c, "clip.vision.image_size", &out->image_size, NULL)) ||
	    (rc = opt_u32(&c, "clip.vision.spatial_merge_size", &out->merge, &present)) ||
	    (!present && (rc = opt_u32(&c, "clip.vision.projector.scale_factor", &out->merge, NULL))) ||
	    (rc = opt_u32(&c, "clip.vision.projection_dim", &out->projection_dim, NULL)))
		return rc;
	for (size_t i = 0; i < cr_gguf_tensor_count(g); i++) {
		const cr_gguf_tensor *t = cr_gguf_tensor_at(g, i);

		out->weights_bytes += t->bytes;
		out->params += t->n_elements;
		if (t->type < CR_GGML_TYPE_COUNT)
			by_type[t->type] += t->bytes;
	}
	{
		uint32_t best = CR_GGML_TYPE_COUNT;

		for (uint32_t t = 0; t < CR_GGML_TYPE_COUNT; t++)
			if (by_type[t] && (best == CR_GGML_TYPE_COUNT || by_type[t] > by_type[best]))
				best = t;
		if (best < CR_GGML_TYPE_COUNT && cr_ggml_type_name(best))
			snprintf(out->type, sizeof(out->type), "%s", cr_ggml_type_name(best));
	}
	return CR_OK;
}
