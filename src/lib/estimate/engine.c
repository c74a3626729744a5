/*
 * Front-end profiles (engine.h): the defaults llama-server, Ollama and LM
 * Studio put in front of llama.cpp, each read from the front-end's source.
 *
 * Sources (docs/engines.md has one table per front-end):
 *   llama.cpp  github.com/ggml-org/llama.cpp, files at the commits named below
 *              (common/common.h 001d906a6d86, tools/server/server.cpp 00dd0816129a,
 *              tools/server/README.md 00dc8057ab28, common/fit.cpp 08033df02cc3);
 *              the snapshot could not be fetched whole, so lines are cited by
 *              the symbol they define.
 *   Ollama     github.com/ollama/ollama at fb30760996871fa9460115c753afd2c60d4ab0f7
 *              (v0.33.0-rc2, 2026-08-21), cited by file and line.
 *   LM Studio  closed source: what its SDK and a published load log show;
 *              the rest is marked unsourced.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "clefrun/engine.h"
#include "util.h"

#define GIB (1024ull * 1024ull * 1024ull)
#define MIB (1024ull * 1024ull)

/* ---- citations ------------------------------------------------------------ */

#define SRC_LS_CTX "llama.cpp common/common.h @001d906: common_params::n_ctx = 0 (\"0 == context the model was trained with\"); tools/server/README.md: -c default 0"
#define SRC_LS_NP "llama.cpp tools/server/README.md @00dc805: -np default -1 (auto); tools/server/server.cpp @00dd081 llama_server(): n_parallel < 0 -> 4, kv_unified = true"
#define SRC_LS_FA "llama.cpp common/common.h @001d906: flash_attn_type = LLAMA_FLASH_ATTN_TYPE_AUTO; README: -fa default 'auto'"
#define SRC_LS_KV "llama.cpp common/common.h @001d906: cache_type_k/v = GGML_TYPE_F16; README: -ctk/-ctv default f16"
#define SRC_LS_UB "llama.cpp common/common.h @001d906: n_ubatch = 512 (n_batch = 2048); README: -ub default 512"
#define SRC_LS_FIT "llama.cpp common/common.h @001d906: fit_params = true, fit_params_min_ctx = 4096, fit_params_target 1024 MiB; common/fit.cpp @08033df common_params_fit_impl: step 2 lowers an unset context, step 3 moves layers to system RAM"
#define SRC_LS_HEAD "llama.cpp common/common.h @001d906: fit_params_target = 1024 MiB per device (README: --fit-target default 1024)"
#define SRC_LS_OUT "llama.cpp v0.4.0 tools/server/server-context.cpp:41-53 server_output_limits: n_outputs_max = min(n_batch, n_parallel x (1 + n_draft)), n_draft 0 without --spec-type; :1014-1016 sets it; src/llama-context.cpp:249 takes it, :630 sched_reserve reserves min(n_ubatch, n_outputs_max) logits rows"

#define SRC_OL_CTX "ollama server/routes.go:2043-2057 @fb30760: Σ GPU TotalMemory - OLLAMA_GPU_OVERHEAD >= 47 GiB -> 262144, >= 23 GiB -> 32768, else 4096; api/types.go:1115 num_ctx = OLLAMA_CONTEXT_LENGTH; server/routes.go:131-132"
#define SRC_OL_CTX_ENV "ollama envconfig/config.go:230 @fb30760: ContextLength = Uint(\"OLLAMA_CONTEXT_LENGTH\", 0); api/types.go:1115"
#define SRC_OL_CAP "ollama llm/server.go:112-116 and server/sched.go:149-172 @fb30760: num_ctx above the model's context_length is lowered to it"
#define SRC_OL_NP "ollama envconfig/config.go:275 @fb30760: NumParallel = Uint(\"OLLAMA_NUM_PARALLEL\", 1); server/sched.go:497 max(NumParallel, 1)"
#define SRC_OL_NP_ARCH "ollama server/sched.go:507-510 @fb30760: mllama, qwen3vl(moe), qwen35(moe), qwen3next, lfm2(moe), nemotron_h(_moe,_omni) load with parallel 1"
#define SRC_OL_TOTAL "ollama llm/llama_server.go:375-376 @fb30760: llama-server -c num_ctx x num_parallel -np num_parallel (explicit -np: KV not unified)"
#define SRC_OL_FA "ollama llm/llama_server.go:597-621 @fb30760: OLLAMA_FLASH_ATTENTION set -> --flash-attn on/off; unset -> auto where ml/device.go:571 FlashAttentionSupported"
#define SRC_OL_KV "ollama llm/server.go:118 and llm/llama_server.go:394-396 @fb30760: OLLAMA_KV_CACHE_TYPE (lower-cased) -> --cache-type-k and -v; unset -> llama-server's f16"
#define SRC_OL_UB "ollama server/sched.go:792-917 @fb30760: automatic -b/-ub 512; 1024 above 4096 tokens, 2048 above 32768, where the prediction leaves room; 256 on a CUDA GPU <= 8 GiB without flash attention above 4096"
#define SRC_OL_HEAD "ollama llm/llama_server.go:398-410 @fb30760: no -ngl, no --fit-target (except for a projector): llama-server's --fit keeps its 1024 MiB margin; OLLAMA_GPU_OVERHEAD only enters the default context (server/routes.go:2045)"
#define SRC_OL_PLACE "ollama llm/llama_server.go:400-410 @fb30760: -ngl omitted, llama-server --fit places layers; -c is given, so --fit does not lower the context (common/fit.cpp: \"context size set by user\")"

#define SRC_LM_CTX "unsourced: LM Studio is closed source; 4096 is the load dialog's usual default, not stated by a public source"
#define SRC_LM_NP "LM Studio load log, lmstudio-ai/lmstudio-bug-tracker#900 (0.3.23): n_seq_max = 1, kv_unified = false"
#define SRC_LM_UB "LM Studio load log, lmstudio-ai/lmstudio-bug-tracker#900 (0.3.23): n_batch = 512, n_ubatch = 512"
#define SRC_LM_FA "unsourced: LM Studio's flashAttention load setting (lmstudio-js LLMLoadModelConfig) has no published default; llama.cpp's auto assumed"
#define SRC_LM_KV "unsourced: llamaKCacheQuantizationType / llamaVCacheQuantizationType (lmstudio-js) have no published default; f16 assumed"
#define SRC_LM_PLACE "unsourced: LM Studio's GPU offload guardrails (\"full GPU offload possible\") are not public; clefrun's placement (as many layers as fit) assumed"

/* ---- names ---------------------------------------------------------------- */

#define ENGINE_NAME_(e, name) name,
static const char *const engine_names[CR_ENGINE_COUNT] = { CR_ENGINE_LIST(ENGINE_NAME_) };
static const char *const origin_names[CR_ORIGIN_COUNT] = { "engine", "user", "env", "rig",
							  "model", "fit", "unsourced" };

const char *cr_engine_name(cr_engine e)
{
	return (unsigned)e < CR_ENGINE_COUNT ? engine_names[e] : "?";
}

int cr_engine_parse(const char *s, cr_engine *out)
{
	if (!s || !out)
		return CR_ERR_INVALID;
	for (int i = 0; i < CR_ENGINE_COUNT; i++)
		if (strcmp(s, engine_names[i]) == 0) {
			*out = (cr_engine)i;
			return CR_OK;
		}
	return CR_ERR_INVALID;
}

const char *cr_origin_name(cr_origin o)
{
	return (unsigned)o < CR_ORIGIN_COUNT ? origin_names[o] : "?";
}

/* ---- helpers -------------------------------------------------------------- */

static cr_engine_default *add(cr_engine_profile *p, const char *name, cr_origin origin,
			      const char *source)
{
	cr_engine_default *d;

	if (p->n_defaults >= CR_ENGINE_MAX_DEFAULTS)
		return NULL;
	d = &p->defaults[p->n_defaults++];
	memset(d, 0, sizeof(*d));
	d->name = name;
	d->origin = origin;
	d->source = source;
	return d;
}

static void add_u(cr_engine_profile *p, const char *name, uint32_t v, cr_origin origin,
		  const char *source, const char *why)
{
	cr_engine_default *d = add(p, name, origin, source);

	if (!d)
		return;
	snprintf(d->value, sizeof(d->value), "%u", v);
	snprintf(d->why, sizeof(d->why), "%s", why ? why : "");
}

static void add_s(cr_engine_profile *p, const char *name, const char *v, cr_origin origin,
		  const char *source, const char *why)
{
	cr_engine_default *d = add(p, name, origin, source);

	if (!d)
		return;
	snprintf(d->value, sizeof(d->value), "%s", v);
	snprintf(d->why, sizeof(d->why), "%s", why ? why : "");
}

static const char *fa_name(cr_flash_attn fa)
{
	return fa == CR_FA_ON ? "on" : fa == CR_FA_OFF ? "off" : "auto";
}

/* Ollama's envconfig.Var: surrounding spaces and quotes trimmed
 * (envconfig/config.go:375-377). Copies into @p buf; false if too long. */
static bool env_trim(const char *s, char *buf, size_t cap)
{
	size_t b = 0, e = strlen(s);

	while (b < e && isspace((unsigned char)s[b]))
		b++;
	while (e > b && isspace((unsigned char)s[e - 1]))
		e--;
	while (b < e && (s[b] == '"' || s[b] == '\''))
		b++;
	while (e > b && (s[e - 1] == '"' || s[e - 1] == '\''))
		e--;
	if (e - b >= cap)
		return false;
	memcpy(buf, s + b, e - b);
	buf[e - b] = '\0';
	return true;
}

/* @p s, or NULL when it is unset or only spaces and quotes. */
static const char *env_set(const char *s)
{
	char buf[8];

	if (!s)
		return NULL;
	if (strlen(s) < sizeof(buf) && env_trim(s, buf, sizeof(buf)) && !buf[0])
		return NULL;
	if (strlen(s) >= sizeof(buf)) {
		for (const char *c = s; *c; c++)
			if (!isspace((unsigned char)*c) && *c != '"' && *c != '\'')
				return s;
		return NULL;
	}
	return s;
}

/* A value shown in a message: printable ASCII only, at most 40 characters. */
static void shown(const char *s, char *buf, size_t cap)
{
	size_t j = 0;

	for (size_t i = 0; s[i] && j + 4 < cap && i < 40; i++)
		buf[j++] = (s[i] >= 0x20 && s[i] < 0x7f) ? s[i] : '?';
	if (strlen(s) > 40 && j + 4 < cap) {
		memcpy(buf + j, "...", 3);
		j += 3;
	}
	buf[j] = '\0';
}

/* Go's strconv.ParseUint(s, 10, 64): decimal digits only. Unset ("") is not
 * a value; Ollama treats it as unset before parsing. */
static int env_uint(const char *name, const char *raw, uint64_t max, uint64_t *out, cr_error *err)
{
	char v[64], sh[64];
	uint64_t n = 0;

	shown(raw, sh, sizeof(sh));
	if (!env_trim(raw, v, sizeof(v)) || !v[0])
		return cr_seterr(err, CR_ERR_INVALID, "%s='%s': expected a whole number (0 to %llu)",
				 name, sh, (unsigned long long)max);
	for (const char *c = v; *c; c++) {
		if (*c < '0' || *c > '9' || n > (max - (uint64_t)(*c - '0')) / 10)
			return cr_seterr(err, CR_ERR_INVALID,
					 "%s='%s': expected a whole number (0 to %llu)", name, sh,
					 (unsigned long long)max);
		n = n * 10 + (uint64_t)(*c - '0');
	}
	*out = n;
	return CR_OK;
}

/* Go's strconv.ParseBool, as envconfig.BoolWithDefault reads it. */
static int env_bool(const char *name, const char *raw, bool *out, cr_error *err)
{
	static const char *const t[] = { "1", "t", "T", "TRUE", "true", "True" };
	static const char *const f[] = { "0", "f", "F", "FALSE", "false", "False" };
	char v[16], sh[64];

	shown(raw, sh, sizeof(sh));
	if (env_trim(raw, v, sizeof(v))) {
		for (size_t i = 0; i < sizeof(t) / sizeof(*t); i++) {
			if (strcmp(v, t[i]) == 0) {
				*out = true;
				return CR_OK;
			}
			if (strcmp(v, f[i]) == 0) {
				*out = false;
				return CR_OK;
			}
		}
	}
	return cr_seterr(err, CR_ERR_INVALID,
			 "%s='%s': expected 1, true, 0 or false (Ollama itself would take any other value as true)",
			 name, sh);
}

/* ---- Ollama's GPU memory -------------------------------------------------- */

uint64_t cr_engine_ollama_gpu_bytes(const cr_rig *rig, uint64_t overhead_bytes)
{
	uint64_t total = 0;

	if (!rig)
		return 0;
	for (unsigned i = 0; i < rig->n_devices && i < CR_MAX_DEVICE_GROUPS; i++) {
		const cr_device *d = &rig->devices[i];
		double frac = d->usable_fraction > 0 && d->usable_fraction <= 1 ? d->usable_fraction : 1;
		double b;
		uint64_t each;

		/* GPUs only: Ollama's discovery lists no CPU among them. A
		 * unified-memory GPU reports what it may use: Metal's
		 * recommendedMaxWorkingSetSize (discover/gpu_info_darwin.m:7),
		 * the rig's usable share. */
		if (d->backend == CR_BACKEND_CPU || d->kind == CR_MEM_SYSTEM || d->memory_gib <= 0)
			continue;
		b = d->memory_gib * (d->kind == CR_MEM_UNIFIED ? frac : 1.0) * (double)GIB;
		each = b >= 1.8e19 ? UINT64_MAX / 1024 : (uint64_t)b;
		/* Go's unsigned subtraction would wrap; a GPU below the overhead
		 * counts as nothing here. */
		each = each > overhead_bytes ? each - overhead_bytes : 0;
		for (uint32_t k = 0; k < d->count && k < 1024; k++)
			total = total > UINT64_MAX - each ? UINT64_MAX : total + each;
	}
	return total;
}

uint32_t cr_engine_ollama_default_ctx(uint64_t gpu_bytes)
{
	/* server/routes.go:2047-2057: 47 / 23 GiB, "slightly lower thresholds". */
	if (gpu_bytes >= 47 * GIB)
		return 262144;
	if (gpu_bytes >= 23 * GIB)
		return 32768;
	return 4096;
}

/* Architectures Ollama loads with one slot (server/sched.go:507). */
static bool ollama_single_slot(const cr_model *m)
{
	static const char *const archs[] = { "mllama", "qwen3vl", "qwen3vlmoe", "qwen35", "qwen35moe",
					     "qwen3next", "lfm2", "lfm2moe", "nemotron_h",
					     "nemotron_h_moe", "nemotron_h_omni" };

	for (size_t i = 0; i < sizeof(archs) / sizeof(*archs); i++)
		if (strcmp(m->arch, archs[i]) == 0)
			return true;
	return false;
}

/* ---- profiles ------------------------------------------------------------- */

static void explicit_kv(cr_engine_profile *p, const cr_engine_given *g)
{
	char v[24];

	if (g->type_k) {
		snprintf(v, sizeof(v), "%s", cr_kv_type_name(p->req.opts.type_k));
		add_s(p, "kv_type_k", v, CR_ORIGIN_USER, "--kv-type-k", NULL);
	}
	if (g->type_v) {
		snprintf(v, sizeof(v), "%s", cr_kv_type_name(p->req.opts.type_v));
		add_s(p, "kv_type_v", v, CR_ORIGIN_USER, "--kv-type-v", NULL);
	}
}

static void profile_llama_server(const cr_model *m, const cr_engine_given *g, cr_engine_profile *p)
{
	cr_estimate_opts *o = &p->req.opts;
	char why[128];

	if (g->n_ctx) {
		add_u(p, "context", p->req.n_ctx, CR_ORIGIN_USER, "--ctx", NULL);
	} else {
		p->req.n_ctx = m->context_max;
		snprintf(why, sizeof(why), "-c 0: the model's trained context, %u", m->context_max);
		add_u(p, "context", p->req.n_ctx, CR_ORIGIN_MODEL, SRC_LS_CTX, why);
		p->fit_ctx = true;
		p->fit_min_ctx = 4096 < m->context_max ? 4096 : m->context_max;
	}
	if (g->n_seq) {
		add_u(p, "parallel", o->n_seq, CR_ORIGIN_USER, "--parallel", NULL);
		add_s(p, "kv_unified", o->kv_unified ? "on" : "off",
		      g->kv_unified ? CR_ORIGIN_USER : CR_ORIGIN_ENGINE,
		      g->kv_unified ? "--kv-unified" : SRC_LS_NP,
		      g->kv_unified ? NULL : "an explicit -np keeps one KV stream per slot");
	} else {
		o->n_seq = 4;
		o->kv_unified = true;
		add_u(p, "parallel", 4, CR_ORIGIN_ENGINE, SRC_LS_NP, "-np auto");
		add_s(p, "kv_unified", "on", CR_ORIGIN_ENGINE, SRC_LS_NP, "-np auto");
	}
	add_s(p, "flash_attn", fa_name(p->req.flash_attn), g->flash_attn ? CR_ORIGIN_USER : CR_ORIGIN_ENGINE,
	      g->flash_attn ? "--flash-attn" : SRC_LS_FA, NULL);
	if (!g->type_k && !g->type_v)
		add_s(p, "kv_type", "f16", CR_ORIGIN_ENGINE, SRC_LS_KV, NULL);
	explicit_kv(p, g);
	add_u(p, "ubatch", o->n_ubatch, g->n_ubatch ? CR_ORIGIN_USER : CR_ORIGIN_ENGINE,
	      g->n_ubatch ? "--ubatch" : SRC_LS_UB, NULL);
	add_s(p, "headroom", "1024 MiB", CR_ORIGIN_ENGINE, SRC_LS_HEAD, NULL);
	/* llama-server asks llama.cpp for one output (logits row) per slot and
	 * step, not a micro-batch of them (server_output_limits, without a
	 * speculative type: n_parallel x 1, at most n_batch 2048), so the compute
	 * buffer's output end holds min(n_ubatch, slots) logits rows. An
	 * embedding or reranking server keeps n_batch (every token an output):
	 * clefrun's full micro-batch. */
	if (m->task == CR_TASK_GENERATION) {
		o->n_outputs_max = o->n_seq < 2048u ? o->n_seq : 2048u;
		add_u(p, "outputs", o->n_outputs_max, CR_ORIGIN_ENGINE, SRC_LS_OUT, "one logits row per slot");
	}
	p->fit_layers = !g->gpu_layers;
	add_s(p, "placement", p->fit_layers ? "--fit on" : "-ngl given",
	      p->fit_layers ? CR_ORIGIN_ENGINE : CR_ORIGIN_USER, SRC_LS_FIT,
	      p->fit_ctx ? "lower the context to >= 4096 first, then move layers to system RAM"
			 : "the context is given: only layers move to system RAM");
}

static int profile_ollama(const cr_model *m, const cr_rig *rig, const cr_engine_given *g,
			  const cr_engine_env *env, cr_engine_profile *p, cr_error *err)
{
	cr_estimate_opts *o = &p->req.opts;
	uint64_t overhead = 0, v;
	uint32_t np, num_ctx;
	cr_origin ctx_origin;
	const char *ctx_src;
	char why[128];
	int s;

	/* Ollama's envconfig.Var trims spaces and quotes; what is left empty
	 * is unset (envconfig/config.go:375-377, "if s := Var(k); s != \"\""). */
	cr_engine_env e = *env;

	e.context_length = env_set(e.context_length);
	e.num_parallel = env_set(e.num_parallel);
	e.flash_attention = env_set(e.flash_attention);
	e.kv_cache_type = env_set(e.kv_cache_type);
	e.gpu_overhead = env_set(e.gpu_overhead);
	env = &e;
	/* A variable is read (and checked) only where no explicit option
	 * overrides it; OLLAMA_GPU_OVERHEAD always (it only sets the tiers). */
	if (env->gpu_overhead &&
	    (s = env_uint("OLLAMA_GPU_OVERHEAD", env->gpu_overhead, UINT64_MAX, &overhead, err)))
		return s;
	if (g->n_ctx) {
		num_ctx = p->req.n_ctx;
		ctx_origin = CR_ORIGIN_USER;
		ctx_src = "--ctx (a Modelfile's PARAMETER num_ctx, or the request's options.num_ctx)";
		why[0] = '\0';
	} else if (env->context_length &&
		   ((s = env_uint("OLLAMA_CONTEXT_LENGTH", env->context_length, UINT32_MAX, &v, err)))) {
		return s;
	} else if (env->context_length && v > 0) {
		num_ctx = (uint32_t)v;
		ctx_origin = CR_ORIGIN_ENV;
		ctx_src = SRC_OL_CTX_ENV;
		snprintf(why, sizeof(why), "OLLAMA_CONTEXT_LENGTH=%u", num_ctx);
	} else {
		uint64_t gpu = cr_engine_ollama_gpu_bytes(rig, overhead);

		num_ctx = cr_engine_ollama_default_ctx(gpu);
		ctx_origin = CR_ORIGIN_RIG;
		ctx_src = SRC_OL_CTX;
		snprintf(why, sizeof(why), "GPU memory %.1f GiB%s: %s", (double)gpu / (double)GIB,
			 overhead ? " after OLLAMA_GPU_OVERHEAD" : "",
			 num_ctx == 262144 ? ">= 47 GiB" : num_ctx == 32768 ? ">= 23 GiB" : "< 23 GiB");
	}
	/* Ollama raises a num_ctx below 4 to 4 (server/sched.go:170-172). */
	if (num_ctx < 4)
		num_ctx = 4;
	add_u(p, "context", num_ctx, ctx_origin, ctx_src, why);
	if (num_ctx > m->context_max) {
		snprintf(why, sizeof(why), "num_ctx %u above the trained %u", num_ctx, m->context_max);
		num_ctx = m->context_max;
		add_u(p, "context", num_ctx, CR_ORIGIN_MODEL, SRC_OL_CAP, why);
	}

	if (g->n_seq) {
		np = o->n_seq;
		add_u(p, "parallel", np, CR_ORIGIN_USER, "--parallel", NULL);
	} else {
		uint64_t n = 1;

		if (env->num_parallel &&
		    (s = env_uint("OLLAMA_NUM_PARALLEL", env->num_parallel, 4096, &n, err)))
			return s;
		np = n < 1 ? 1 : (uint32_t)n;
		if (env->num_parallel)
			snprintf(why, sizeof(why), "OLLAMA_NUM_PARALLEL=%llu%s", (unsigned long long)n,
				 n < 1 ? ", raised to 1" : "");
		else
			why[0] = '\0';
		add_u(p, "parallel", np, env->num_parallel ? CR_ORIGIN_ENV : CR_ORIGIN_ENGINE, SRC_OL_NP, why);
		if (np > 1 && ollama_single_slot(m)) {
			snprintf(why, sizeof(why), "architecture %s", m->arch);
			np = 1;
			add_u(p, "parallel", 1, CR_ORIGIN_MODEL, SRC_OL_NP_ARCH, why);
		}
		o->n_seq = np;
	}
	if (g->kv_unified) {
		add_s(p, "kv_unified", o->kv_unified ? "on" : "off", CR_ORIGIN_USER, "--kv-unified", NULL);
	} else {
		o->kv_unified = false;
		add_s(p, "kv_unified", "off", CR_ORIGIN_ENGINE, SRC_OL_TOTAL, NULL);
	}
	p->ctx_per_seq = num_ctx;
	/* -c num_ctx x num_parallel; the estimator's total is capped at the
	 * model's maximum (the estimator refuses more), said in the defaults. */
	{
		uint64_t total = (uint64_t)num_ctx * np;

		if (total > m->context_max) {
			snprintf(why, sizeof(why),
				 "-c would be %llu; clefrun caps the total at the model's %u",
				 (unsigned long long)total, m->context_max);
			total = m->context_max;
		} else {
			snprintf(why, sizeof(why), "%u x %u", num_ctx, np);
		}
		p->req.n_ctx = (uint32_t)total;
		add_u(p, "total_context", p->req.n_ctx, CR_ORIGIN_ENGINE, SRC_OL_TOTAL, why);
	}

	if (g->flash_attn) {
		add_s(p, "flash_attn", fa_name(p->req.flash_attn), CR_ORIGIN_USER, "--flash-attn", NULL);
	} else if (env->flash_attention) {
		bool on;

		if ((s = env_bool("OLLAMA_FLASH_ATTENTION", env->flash_attention, &on, err)))
			return s;
		p->req.flash_attn = on ? CR_FA_ON : CR_FA_OFF;
		snprintf(why, sizeof(why), "OLLAMA_FLASH_ATTENTION=%s", on ? "true" : "false");
		add_s(p, "flash_attn", on ? "on" : "off", CR_ORIGIN_ENV, SRC_OL_FA, why);
	} else {
		/* Every backend clefrun models is in FlashAttentionSupported's list
		 * (CUDA from compute 6.0): "auto" goes to llama-server. */
		p->req.flash_attn = CR_FA_AUTO;
		add_s(p, "flash_attn", "auto", CR_ORIGIN_ENGINE, SRC_OL_FA, NULL);
	}
	if (env->kv_cache_type && !(g->type_k && g->type_v)) {
		char t[16], sh[64];
		cr_kv_type kt;

		shown(env->kv_cache_type, sh, sizeof(sh));
		if (!env_trim(env->kv_cache_type, t, sizeof(t)))
			t[0] = '?', t[1] = '\0';
		for (char *c = t; *c; c++)
			*c = (char)tolower((unsigned char)*c);
		if (t[0] && cr_kv_type_parse(t, &kt))
			return cr_seterr(err, CR_ERR_UNSUPPORTED,
					 "OLLAMA_KV_CACHE_TYPE='%s': clefrun models f16, q8_0 and q4_0", sh);
		if (t[0]) {
			if (!g->type_k)
				o->type_k = kt;
			if (!g->type_v)
				o->type_v = kt;
			snprintf(why, sizeof(why), "OLLAMA_KV_CACHE_TYPE=%s", cr_kv_type_name(kt));
			add_s(p, "kv_type", cr_kv_type_name(kt), CR_ORIGIN_ENV, SRC_OL_KV, why);
		} else {
			add_s(p, "kv_type", "f16", CR_ORIGIN_ENGINE, SRC_OL_KV, NULL);
		}
	} else if (!g->type_k && !g->type_v) {
		add_s(p, "kv_type", "f16", CR_ORIGIN_ENGINE, SRC_OL_KV, NULL);
	}
	explicit_kv(p, g);
	if (g->n_ubatch) {
		add_u(p, "ubatch", o->n_ubatch, CR_ORIGIN_USER, "--ubatch", NULL);
	} else {
		o->n_ubatch = 512;
		p->auto_batch = true;
		add_u(p, "ubatch", 512, CR_ORIGIN_ENGINE, SRC_OL_UB, "before the memory prediction");
	}
	if (overhead) {
		snprintf(why, sizeof(why), "OLLAMA_GPU_OVERHEAD=%llu", (unsigned long long)overhead);
		add_s(p, "gpu_overhead", why + strlen("OLLAMA_GPU_OVERHEAD="), CR_ORIGIN_ENV, SRC_OL_CTX,
		      "subtracted per GPU before the default-context tiers only");
	}
	add_s(p, "headroom", "1024 MiB", CR_ORIGIN_ENGINE, SRC_OL_HEAD, NULL);
	p->fit_layers = !g->gpu_layers;
	add_s(p, "placement", p->fit_layers ? "llama-server --fit" : "num_gpu given",
	      p->fit_layers ? CR_ORIGIN_ENGINE : CR_ORIGIN_USER, SRC_OL_PLACE,
	      "layers move to system RAM; the context is not lowered");
	return CR_OK;
}

static void profile_lmstudio(const cr_model *m, const cr_engine_given *g, cr_engine_profile *p)
{
	cr_estimate_opts *o = &p->req.opts;

	if (g->n_ctx) {
		add_u(p, "context", p->req.n_ctx, CR_ORIGIN_USER, "--ctx", NULL);
	} else {
		p->req.n_ctx = 4096 < m->context_max ? 4096 : m->context_max;
		add_u(p, "context", p->req.n_ctx, CR_ORIGIN_UNSOURCED, SRC_LM_CTX, NULL);
	}
	if (!g->n_seq)
		o->n_seq = 1;
	if (!g->kv_unified)
		o->kv_unified = false;
	add_u(p, "parallel", o->n_seq, g->n_seq ? CR_ORIGIN_USER : CR_ORIGIN_ENGINE,
	      g->n_seq ? "--parallel" : SRC_LM_NP, NULL);
	add_s(p, "flash_attn", fa_name(p->req.flash_attn), g->flash_attn ? CR_ORIGIN_USER : CR_ORIGIN_UNSOURCED,
	      g->flash_attn ? "--flash-attn" : SRC_LM_FA, NULL);
	if (!g->type_k && !g->type_v)
		add_s(p, "kv_type", "f16", CR_ORIGIN_UNSOURCED, SRC_LM_KV, NULL);
	explicit_kv(p, g);
	if (!g->n_ubatch)
		o->n_ubatch = 512;
	add_u(p, "ubatch", o->n_ubatch, g->n_ubatch ? CR_ORIGIN_USER : CR_ORIGIN_ENGINE,
	      g->n_ubatch ? "--ubatch" : SRC_LM_UB, NULL);
	add_s(p, "placement", g->gpu_layers ? "gpu layers given" : "as many layers as fit",
	      g->gpu_layers ? CR_ORIGIN_USER : CR_ORIGIN_UNSOURCED, SRC_LM_PLACE, NULL);
}

int cr_engine_apply(cr_engine e, const cr_model *model, const cr_rig *rig,
		    const cr_estimate_request *req, const cr_engine_given *given,
		    const cr_engine_env *env, cr_engine_profile *out, cr_error *err)
{
	static const cr_engine_env no_env = CR_ENGINE_ENV_INIT;

	if (!model || !req || !given || !out || (unsigned)e >= CR_ENGINE_COUNT)
		return cr_seterr(err, CR_ERR_INVALID, "engine profile: missing argument");
	if (!model->context_max)
		return cr_seterr(err, CR_ERR_INVALID, "engine profile: %s has no maximum context", model->id);
	memset(out, 0, sizeof(*out));
	out->engine = e;
	out->req = *req;
	out->ctx_per_seq = req->n_ctx;
	switch (e) {
	case CR_ENGINE_LLAMA_SERVER:
		profile_llama_server(model, given, out);
		break;
	case CR_ENGINE_OLLAMA:
		return profile_ollama(model, rig, given, env ? env : &no_env, out, err);
	case CR_ENGINE_LMSTUDIO:
		profile_lmstudio(model, given, out);
		break;
	default:
		break;
	}
	if (e != CR_ENGINE_OLLAMA)
		out->ctx_per_seq = out->req.n_ctx;
	return CR_OK;
}

/* ---- after the first estimate --------------------------------------------- */

/* Ollama's automatic batch (server/sched.go:792-917): the context's tier,
 * stepped down while the prediction leaves no room. @p predicted is the
 * estimate on the accelerators at -ub 512, @p avail their usable memory. */
static uint32_t ollama_batch(uint32_t total_ctx, uint64_t predicted, uint64_t avail, bool fa,
			     const cr_rig *rig)
{
	uint32_t b = total_ctx > 32768 ? 2048 : total_ctx > 4096 ? 1024 : 512;
	bool cuda = false, small_cuda = false;

	for (unsigned i = 0; rig && i < rig->n_devices && i < CR_MAX_DEVICE_GROUPS; i++)
		if (rig->devices[i].backend == CR_BACKEND_CUDA && rig->devices[i].kind != CR_MEM_SYSTEM) {
			cuda = true;
			small_cuda |= rig->devices[i].memory_gib <= 8.0;
		}
	if (!fa && cuda)
		return total_ctx > 4096 && small_cuda ? 256 : 512;
	while (b > 512 && predicted && avail) {
		uint64_t threshold = avail / 100 * 80;
		uint64_t head = avail / 100 * (b >= 2048 ? 60 : 75);
		uint64_t surcharge = b >= 2048 ? 2 * GIB : 768 * MIB;

		if (predicted <= threshold && predicted <= head && surcharge <= threshold - predicted)
			break;
		b = b > 1024 ? 1024 : 512;
	}
	return b;
}

/* Has @p rig an accelerator (a device that is not a CPU on system RAM)? */
static bool has_accelerator(const cr_rig *rig)
{
	for (unsigned i = 0; rig && i < rig->n_devices && i < CR_MAX_DEVICE_GROUPS; i++)
		if (rig->devices[i].backend != CR_BACKEND_CPU && rig->devices[i].kind != CR_MEM_SYSTEM)
			return true;
	return false;
}

/* --fit's test (common/fit.cpp step 1): the margin (headroom) free, and with
 * accelerators every layer on them; without any, the host alone ("nd == 0"). */
static bool fit_ok(const cr_estimate *e, bool accel)
{
	/* The estimator's "tight" is exactly that margin missed on some device
	 * (headroom_bytes per accelerator). */
	return e->fits && e->tier != CR_TIER_TIGHT && e->tier != CR_TIER_NOFIT &&
	       (!accel || e->offload_fraction <= 0);
}

int cr_engine_estimate(cr_engine_profile *p, const cr_model *model, const cr_weights *w,
		       const cr_rig *rig, const cr_estimate_opts *opts, cr_estimate *out,
		       cr_estimate_opts *final, cr_error *err)
{
	cr_estimate_opts o;
	int s;

	if (!p || !opts || !out)
		return cr_seterr(err, CR_ERR_INVALID, "engine estimate: missing argument");
	o = *opts;
	if ((s = cr_estimate_run_weights(model, w, rig, &o, out, err)))
		return s;
	if (p->engine == CR_ENGINE_LLAMA_SERVER && p->fit_ctx && o.n_ctx > p->fit_min_ctx &&
	    !fit_ok(out, has_accelerator(rig))) {
		/* --fit step 2: the largest context, a multiple of 256 x streams,
		 * at which every layer stays on the accelerators with the margin
		 * free, not below the minimum; step 3 (layers to system RAM) is the
		 * estimator's own placement at that context. Memory grows with
		 * the context, so a bisection finds it. */
		cr_estimate_opts g = o;
		cr_estimate probe;
		uint32_t align = 256u * (g.kv_unified ? 1u : g.n_seq);
		uint32_t lo = (p->fit_min_ctx + align - 1) / align, hi = o.n_ctx / align, ctx;
		char why[128];
		bool accel = has_accelerator(rig);

		if (accel && out->offload_fraction > 0) {
			g.gpu_layers = (int32_t)model->n_layers + 1; /* every slot, the output layer's too */
			g.cpu_moe = false;
		}
		/* lo: the first multiple that may fit; hi: the last below the context. */
		if (hi * align >= o.n_ctx && hi > 0)
			hi--;
		ctx = p->fit_min_ctx;
		while (lo <= hi && hi > 0) {
			uint32_t mid = lo + (hi - lo) / 2;

			g.n_ctx = mid * align;
			if (g.depth != CR_DEPTH_CONTEXT && g.depth > g.n_ctx)
				g.depth = g.n_ctx;
			if (g.prompt_tokens > g.n_ctx)
				g.prompt_tokens = g.n_ctx;
			if (cr_estimate_run_weights(model, w, rig, &g, &probe, NULL) == CR_OK &&
			    fit_ok(&probe, accel)) {
				ctx = g.n_ctx;
				lo = mid + 1;
			} else {
				hi = mid - 1;
			}
		}
		if (ctx < o.n_ctx) {
			o.n_ctx = ctx;
			if (o.depth != CR_DEPTH_CONTEXT && o.depth > ctx)
				o.depth = ctx;
			if (o.prompt_tokens > ctx)
				o.prompt_tokens = ctx;
			if ((s = cr_estimate_run_weights(model, w, rig, &o, out, err)))
				return s;
			snprintf(why, sizeof(why), "--fit lowered the context from %u (floor %u)",
				 opts->n_ctx, p->fit_min_ctx);
			add_u(p, "context", o.n_ctx, CR_ORIGIN_FIT, SRC_LS_FIT, why);
		}
	}
	if (p->engine == CR_ENGINE_OLLAMA && p->auto_batch && rig) {
		uint32_t b = ollama_batch(o.n_ctx, out->memory.device_bytes, out->memory.available_bytes,
					  out->flash_attn, rig);

		if (b != o.n_ubatch) {
			char why[128];

			snprintf(why, sizeof(why), "-b/-ub for a %u-token context, predicted %.1f of %.1f GiB",
				 o.n_ctx, (double)out->memory.device_bytes / (double)GIB,
				 (double)out->memory.available_bytes / (double)GIB);
			o.n_ubatch = b;
			if ((s = cr_estimate_run_weights(model, w, rig, &o, out, err)))
				return s;
			add_u(p, "ubatch", b, CR_ORIGIN_FIT, SRC_OL_UB, why);
		}
	}
	if (final)
		*final = o;
	return CR_OK;
}

/* cr_decide_best_quant_by's estimate: each candidate on a scratch copy of
 * the profile, so that one candidate's adjustments never reach another. */
static int best_quant_estimate(void *ctx, const cr_model *model, const cr_quant *quant,
			       const cr_rig *rig, const cr_estimate_opts *opts, cr_estimate *out,
			       cr_error *err)
{
	cr_engine_profile scratch = *(const cr_engine_profile *)ctx;
	cr_weights w;

	cr_weights_preset(quant, &w);
	return cr_engine_estimate(&scratch, model, &w, rig, opts, out, NULL, err);
}

int cr_engine_best_quant(cr_engine_profile *p, const cr_model *model,
			 const cr_quant *const *quants, size_t n_quants, const cr_rig *rig,
			 const cr_estimate_opts *opts, cr_tier require, cr_best_quant *out,
			 cr_estimate_opts *final, cr_error *err)
{
	cr_weights w;
	int s;

	if (!p || !out)
		return cr_seterr(err, CR_ERR_INVALID, "engine best quant: missing argument");
	s = cr_decide_best_quant_by(model, quants, n_quants, rig, opts, require, best_quant_estimate, p,
				    out, err);
	if (s)
		return s;
	/* The choice once more on the profile itself: its adjustments listed. */
	cr_weights_preset(quants[out->index], &w);
	return cr_engine_estimate(p, model, &w, rig, opts, &out->estimate, final, err);
}
