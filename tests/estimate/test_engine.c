/*
 * test_engine: front-end profiles (engine.h, src/lib/estimate/engine.c).
 *
 * Every default of every profile against the value docs/engines.md cites,
 * Ollama's GPU-memory tiers at and around their edges, every environment
 * override and every refused value (named in the message, never echoed raw),
 * explicit settings beating defaults and environment alike, and the two
 * adjustments after a first estimate: llama-server --fit lowering an unset
 * context (and never a given one), Ollama's batch growing with the context.
 */
#include "unit.h"

#include <stdio.h>
#include <string.h>

#include "catalog_fixture.h"
#include "clefrun/catalog.h"
#include "clefrun/decide.h"
#include "clefrun/engine.h"
#include "clefrun/estimate.h"
#include "clefrun/rig.h"

#define GIB (1024ull * 1024ull * 1024ull)

static cr_rig rig_of(const char *spec)
{
	cr_rig r;
	cr_error err = CR_ERROR_INIT;

	if (cr_rig_parse_spec(spec, &r, &err)) {
		print_error("%s: %s\n", spec, err.message);
		fail();
	}
	return r;
}

/* The last entry named @p name, or NULL. */
static const cr_engine_default *last(const cr_engine_profile *p, const char *name)
{
	const cr_engine_default *d = NULL;

	for (size_t i = 0; i < p->n_defaults; i++)
		if (strcmp(p->defaults[i].name, name) == 0)
			d = &p->defaults[i];
	return d;
}

static void expect(const cr_engine_profile *p, const char *name, const char *value, cr_origin o)
{
	const cr_engine_default *d = last(p, name);

	if (!d) {
		print_error("no default '%s'\n", name);
		fail();
	}
	if (strcmp(d->value, value) != 0 || d->origin != o) {
		print_error("%s: '%s' (%s), want '%s' (%s)\n", name, d->value, cr_origin_name(d->origin), value,
			    cr_origin_name(o));
		fail();
	}
	assert_non_null(d->source);
	/* A citation, or for an explicit setting the option that set it. */
	assert_true(strlen(d->source) > (o == CR_ORIGIN_USER ? 1u : 20u));
}

static cr_engine_profile apply(cr_engine e, const cr_model *m, const cr_rig *rig,
			       const cr_estimate_request *req, const cr_engine_given *g,
			       const cr_engine_env *env)
{
	cr_engine_profile p;
	cr_error err = CR_ERROR_INIT;
	int s = cr_engine_apply(e, m, rig, req, g, env, &p, &err);

	if (s) {
		print_error("apply: %s\n", err.message);
		fail();
	}
	return p;
}

static void test_names(void **state)
{
	cr_engine e = CR_ENGINE_COUNT;

	(void)state;
	for (int i = 0; i < CR_ENGINE_COUNT; i++) {
		assert_int_equal(cr_engine_parse(cr_engine_name((cr_engine)i), &e), 0);
		assert_int_equal(e, i);
	}
	assert_string_equal(cr_engine_name(CR_ENGINE_LLAMA_SERVER), "llama-server");
	assert_int_equal(cr_engine_parse("vllm", &e), CR_ERR_INVALID);
	assert_int_equal(cr_engine_parse("Ollama", &e), CR_ERR_INVALID);
	assert_int_equal(cr_engine_parse("", &e), CR_ERR_INVALID);
	assert_int_equal(cr_engine_parse(NULL, &e), CR_ERR_INVALID);
	assert_string_equal(cr_engine_name(CR_ENGINE_COUNT), "?");
	assert_string_equal(cr_origin_name(CR_ORIGIN_UNSOURCED), "unsourced");
}

/* llamacpp is today's behaviour: the request untouched, nothing listed. */
static void test_llamacpp_unchanged(void **state)
{
	const cr_model *m = ts_model("qwen3-8b");
	cr_estimate_request req = CR_ESTIMATE_REQUEST_INIT;
	cr_engine_given g = CR_ENGINE_GIVEN_INIT;
	cr_rig r = rig_of("custom:mem_gb=24,bw_gbs=1000");
	cr_engine_profile p;

	(void)state;
	req.n_ctx = 12345;
	req.opts.n_seq = 3;
	p = apply(CR_ENGINE_LLAMACPP, m, &r, &req, &g, NULL);
	assert_int_equal(p.n_defaults, 0);
	assert_memory_equal(&p.req, &req, sizeof(req));
}

static void test_llama_server_defaults(void **state)
{
	const cr_model *m = ts_model("qwen3-8b");
	cr_estimate_request req = CR_ESTIMATE_REQUEST_INIT;
	cr_engine_given g = CR_ENGINE_GIVEN_INIT;
	cr_engine_profile p;
	char v[16];

	(void)state;
	p = apply(CR_ENGINE_LLAMA_SERVER, m, NULL, &req, &g, NULL);
	/* -c 0: the trained context; -np auto: 4 slots over one unified stream. */
	assert_int_equal(p.req.n_ctx, m->context_max);
	snprintf(v, sizeof(v), "%u", m->context_max);
	expect(&p, "context", v, CR_ORIGIN_MODEL);
	assert_int_equal(p.req.opts.n_seq, 4);
	assert_true(p.req.opts.kv_unified);
	expect(&p, "parallel", "4", CR_ORIGIN_ENGINE);
	expect(&p, "kv_unified", "on", CR_ORIGIN_ENGINE);
	assert_int_equal(p.req.flash_attn, CR_FA_AUTO);
	expect(&p, "flash_attn", "auto", CR_ORIGIN_ENGINE);
	assert_int_equal(p.req.opts.type_k, CR_KV_F16);
	assert_int_equal(p.req.opts.type_v, CR_KV_F16);
	expect(&p, "kv_type", "f16", CR_ORIGIN_ENGINE);
	assert_int_equal(p.req.opts.n_ubatch, 512);
	expect(&p, "ubatch", "512", CR_ORIGIN_ENGINE);
	expect(&p, "headroom", "1024 MiB", CR_ORIGIN_ENGINE);
	assert_true(p.fit_ctx);
	assert_int_equal(p.fit_min_ctx, 4096);
	assert_true(p.fit_layers);

	/* Explicit settings win: a context (then --fit leaves it), -np (no longer
	 * auto, so not unified), flash attention, KV types, ubatch, GPU layers. */
	req.n_ctx = 8192;
	req.opts.n_seq = 2;
	req.flash_attn = CR_FA_OFF;
	req.opts.type_k = CR_KV_Q8_0;
	req.opts.n_ubatch = 256;
	g.n_ctx = g.n_seq = g.flash_attn = g.type_k = g.n_ubatch = g.gpu_layers = true;
	p = apply(CR_ENGINE_LLAMA_SERVER, m, NULL, &req, &g, NULL);
	assert_int_equal(p.req.n_ctx, 8192);
	expect(&p, "context", "8192", CR_ORIGIN_USER);
	assert_false(p.fit_ctx);
	assert_false(p.fit_layers);
	assert_int_equal(p.req.opts.n_seq, 2);
	assert_false(p.req.opts.kv_unified);
	expect(&p, "kv_unified", "off", CR_ORIGIN_ENGINE);
	expect(&p, "flash_attn", "off", CR_ORIGIN_USER);
	expect(&p, "kv_type_k", "q8_0", CR_ORIGIN_USER);
	assert_int_equal(p.req.opts.type_k, CR_KV_Q8_0);
	expect(&p, "ubatch", "256", CR_ORIGIN_USER);

	/* A model trained below --fit's 4096 floor: the floor is its context. */
	{
		cr_model small = *m;

		small.context_max = 2048;
		g = (cr_engine_given)CR_ENGINE_GIVEN_INIT;
		req = (cr_estimate_request)CR_ESTIMATE_REQUEST_INIT;
		p = apply(CR_ENGINE_LLAMA_SERVER, &small, NULL, &req, &g, NULL);
		assert_int_equal(p.req.n_ctx, 2048);
		assert_int_equal(p.fit_min_ctx, 2048);
	}
}

/* server/routes.go:2047-2057: >= 47 GiB 262144, >= 23 GiB 32768, else 4096. */
static void test_ollama_tiers(void **state)
{
	(void)state;
	assert_int_equal(cr_engine_ollama_default_ctx(0), 4096);
	assert_int_equal(cr_engine_ollama_default_ctx(23 * GIB - 1), 4096);
	assert_int_equal(cr_engine_ollama_default_ctx(23 * GIB), 32768);
	assert_int_equal(cr_engine_ollama_default_ctx(47 * GIB - 1), 32768);
	assert_int_equal(cr_engine_ollama_default_ctx(47 * GIB), 262144);
	assert_int_equal(cr_engine_ollama_default_ctx(UINT64_MAX), 262144);
}

static void test_ollama_gpu_bytes(void **state)
{
	cr_rig one = rig_of("custom:mem_gb=24,bw_gbs=1000");
	cr_rig cpu = rig_of("custom:mem_gb=64,bw_gbs=80,backend=cpu");

	(void)state;
	assert_int_equal(cr_engine_ollama_gpu_bytes(&one, 0), 24 * GIB);
	/* OLLAMA_GPU_OVERHEAD is per GPU; a GPU below it counts as nothing. */
	assert_int_equal(cr_engine_ollama_gpu_bytes(&one, 2 * GIB), 22 * GIB);
	assert_int_equal(cr_engine_ollama_gpu_bytes(&one, 30 * GIB), 0);
	/* No GPU: nothing, so the smallest tier. */
	assert_int_equal(cr_engine_ollama_gpu_bytes(&cpu, 0), 0);
	assert_int_equal(cr_engine_ollama_gpu_bytes(NULL, 0), 0);
	/* Two GPUs add up (each less the overhead). */
	{
		const cr_rig *two = cr_catalog_find_rig(ts_cat, "2x3090");

		assert_non_null(two);
		assert_int_equal(cr_engine_ollama_gpu_bytes(two, 0), 48 * GIB);
		assert_int_equal(cr_engine_ollama_gpu_bytes(two, GIB), 46 * GIB);
	}
}

/* The default context on rigs of three sizes, the trained-context cap, and
 * every other default of the Ollama profile. */
static void test_ollama_defaults(void **state)
{
	const cr_model *m = ts_model("qwen3-8b"); /* trained 40960 */
	const cr_model *big = ts_model("llama-3.1-8b"); /* trained 131072 */
	cr_estimate_request req = CR_ESTIMATE_REQUEST_INIT;
	cr_engine_given g = CR_ENGINE_GIVEN_INIT;
	cr_rig r12 = rig_of("custom:mem_gb=12,bw_gbs=360");
	cr_rig r24 = rig_of("custom:mem_gb=24,bw_gbs=1000");
	cr_rig r48 = rig_of("custom:mem_gb=48,bw_gbs=1000");
	cr_engine_profile p;

	(void)state;
	p = apply(CR_ENGINE_OLLAMA, m, &r12, &req, &g, NULL);
	expect(&p, "context", "4096", CR_ORIGIN_RIG);
	assert_int_equal(p.req.n_ctx, 4096);
	assert_int_equal(p.ctx_per_seq, 4096);
	p = apply(CR_ENGINE_OLLAMA, m, &r24, &req, &g, NULL);
	expect(&p, "context", "32768", CR_ORIGIN_RIG);
	assert_int_equal(p.req.n_ctx, 32768);
	/* 262144 on 48 GiB, lowered to the model's trained 40960 / 131072. */
	p = apply(CR_ENGINE_OLLAMA, m, &r48, &req, &g, NULL);
	expect(&p, "context", "40960", CR_ORIGIN_MODEL);
	assert_int_equal(p.req.n_ctx, 40960);
	assert_true(p.defaults[0].origin == CR_ORIGIN_RIG && strcmp(p.defaults[0].value, "262144") == 0);
	p = apply(CR_ENGINE_OLLAMA, big, &r48, &req, &g, NULL);
	assert_int_equal(p.req.n_ctx, 131072);

	p = apply(CR_ENGINE_OLLAMA, m, &r24, &req, &g, NULL);
	expect(&p, "parallel", "1", CR_ORIGIN_ENGINE);
	assert_int_equal(p.req.opts.n_seq, 1);
	expect(&p, "kv_unified", "off", CR_ORIGIN_ENGINE);
	assert_false(p.req.opts.kv_unified);
	expect(&p, "flash_attn", "auto", CR_ORIGIN_ENGINE);
	assert_int_equal(p.req.flash_attn, CR_FA_AUTO);
	expect(&p, "kv_type", "f16", CR_ORIGIN_ENGINE);
	expect(&p, "ubatch", "512", CR_ORIGIN_ENGINE);
	assert_true(p.auto_batch);
	expect(&p, "headroom", "1024 MiB", CR_ORIGIN_ENGINE);
	assert_true(p.fit_layers);
	assert_false(p.fit_ctx); /* Ollama gives -c: --fit keeps it */
	assert_null(last(&p, "gpu_overhead"));
}

static void test_ollama_env(void **state)
{
	const cr_model *m = ts_model("qwen3-8b");
	cr_estimate_request req = CR_ESTIMATE_REQUEST_INIT;
	cr_engine_given g = CR_ENGINE_GIVEN_INIT;
	cr_engine_env env = CR_ENGINE_ENV_INIT;
	cr_rig r24 = rig_of("custom:mem_gb=24,bw_gbs=1000");
	cr_engine_profile p;

	(void)state;
	env.context_length = "8192";
	p = apply(CR_ENGINE_OLLAMA, m, &r24, &req, &g, &env);
	expect(&p, "context", "8192", CR_ORIGIN_ENV);
	/* 0 is Ollama's "unset": the tier again. Quotes and spaces are trimmed. */
	env.context_length = "0";
	p = apply(CR_ENGINE_OLLAMA, m, &r24, &req, &g, &env);
	expect(&p, "context", "32768", CR_ORIGIN_RIG);
	/* Only spaces and quotes: unset, as Ollama's envconfig.Var leaves it. */
	env.context_length = "  \"\" ";
	p = apply(CR_ENGINE_OLLAMA, m, &r24, &req, &g, &env);
	expect(&p, "context", "32768", CR_ORIGIN_RIG);
	env.context_length = " \"16384\" ";
	p = apply(CR_ENGINE_OLLAMA, m, &r24, &req, &g, &env);
	expect(&p, "context", "16384", CR_ORIGIN_ENV);
	env.context_length = NULL;

	/* num_ctx x num_parallel slots, one stream each. */
	env.num_parallel = "3";
	p = apply(CR_ENGINE_OLLAMA, m, &r24, &req, &g, &env);
	expect(&p, "parallel", "3", CR_ORIGIN_ENV);
	assert_int_equal(p.req.opts.n_seq, 3);
	assert_int_equal(p.ctx_per_seq, 32768);
	/* 3 x 32768 is above the trained 40960: capped there, and said so. */
	assert_int_equal(p.req.n_ctx, 40960);
	assert_non_null(strstr(last(&p, "total_context")->why, "98304"));
	env.context_length = "4096";
	p = apply(CR_ENGINE_OLLAMA, m, &r24, &req, &g, &env);
	assert_int_equal(p.req.n_ctx, 3 * 4096);
	env.context_length = NULL;
	env.num_parallel = "0";
	p = apply(CR_ENGINE_OLLAMA, m, &r24, &req, &g, &env);
	expect(&p, "parallel", "1", CR_ORIGIN_ENV);
	env.num_parallel = NULL;

	/* Single-slot architectures ignore OLLAMA_NUM_PARALLEL. */
	{
		cr_model next = *m;

		snprintf(next.arch, sizeof(next.arch), "%s", "qwen3next");
		env.num_parallel = "4";
		p = apply(CR_ENGINE_OLLAMA, &next, &r24, &req, &g, &env);
		expect(&p, "parallel", "1", CR_ORIGIN_MODEL);
		assert_int_equal(p.req.opts.n_seq, 1);
		env.num_parallel = NULL;
	}

	env.flash_attention = "0";
	p = apply(CR_ENGINE_OLLAMA, m, &r24, &req, &g, &env);
	expect(&p, "flash_attn", "off", CR_ORIGIN_ENV);
	assert_int_equal(p.req.flash_attn, CR_FA_OFF);
	env.flash_attention = "true";
	p = apply(CR_ENGINE_OLLAMA, m, &r24, &req, &g, &env);
	expect(&p, "flash_attn", "on", CR_ORIGIN_ENV);
	assert_int_equal(p.req.flash_attn, CR_FA_ON);
	env.flash_attention = NULL;

	env.kv_cache_type = "Q8_0";
	p = apply(CR_ENGINE_OLLAMA, m, &r24, &req, &g, &env);
	expect(&p, "kv_type", "q8_0", CR_ORIGIN_ENV);
	assert_int_equal(p.req.opts.type_k, CR_KV_Q8_0);
	assert_int_equal(p.req.opts.type_v, CR_KV_Q8_0);
	env.kv_cache_type = NULL;

	/* 24 GiB less 2 GiB of overhead falls below the 23 GiB tier. */
	env.gpu_overhead = "2147483648";
	p = apply(CR_ENGINE_OLLAMA, m, &r24, &req, &g, &env);
	expect(&p, "context", "4096", CR_ORIGIN_RIG);
	expect(&p, "gpu_overhead", "2147483648", CR_ORIGIN_ENV);
}

/* Explicit settings beat the environment and the tiers. */
static void test_ollama_explicit_wins(void **state)
{
	const cr_model *m = ts_model("qwen3-8b");
	cr_estimate_request req = CR_ESTIMATE_REQUEST_INIT;
	cr_engine_given g = CR_ENGINE_GIVEN_INIT;
	cr_engine_env env = CR_ENGINE_ENV_INIT;
	cr_rig r24 = rig_of("custom:mem_gb=24,bw_gbs=1000");
	cr_engine_profile p;

	(void)state;
	env.context_length = "8192";
	env.num_parallel = "4";
	env.flash_attention = "1";
	env.kv_cache_type = "q4_0";
	req.n_ctx = 2048;
	req.opts.n_seq = 2;
	req.flash_attn = CR_FA_OFF;
	req.opts.type_k = CR_KV_Q8_0;
	req.opts.n_ubatch = 128;
	g.n_ctx = g.n_seq = g.flash_attn = g.type_k = g.n_ubatch = true;
	p = apply(CR_ENGINE_OLLAMA, m, &r24, &req, &g, &env);
	expect(&p, "context", "2048", CR_ORIGIN_USER);
	expect(&p, "parallel", "2", CR_ORIGIN_USER);
	assert_int_equal(p.req.n_ctx, 4096); /* num_ctx 2048 x 2 */
	expect(&p, "flash_attn", "off", CR_ORIGIN_USER);
	assert_int_equal(p.req.flash_attn, CR_FA_OFF);
	/* K given, V from the environment. */
	assert_int_equal(p.req.opts.type_k, CR_KV_Q8_0);
	assert_int_equal(p.req.opts.type_v, CR_KV_Q4_0);
	expect(&p, "ubatch", "128", CR_ORIGIN_USER);
	assert_false(p.auto_batch);
	/* A --ctx above the trained context is lowered as Ollama does, not refused. */
	req.n_ctx = 1000000;
	p = apply(CR_ENGINE_OLLAMA, m, &r24, &req, &g, &env);
	expect(&p, "context", "40960", CR_ORIGIN_MODEL);
}

/* Refused values: the message names the variable; no raw control byte. */
static void test_ollama_env_refused(void **state)
{
	static const char *const bad_uint[] = { "abc", "-1", "1.5", "99999999999999999999999", "1e3",
						"0x10", "\x1b[31m5", "1 2" };
	const cr_model *m = ts_model("qwen3-8b");
	cr_estimate_request req = CR_ESTIMATE_REQUEST_INIT;
	cr_engine_given g = CR_ENGINE_GIVEN_INIT;
	cr_rig r24 = rig_of("custom:mem_gb=24,bw_gbs=1000");
	cr_engine_profile p;

	(void)state;
	for (int var = 0; var < 3; var++) {
		for (size_t i = 0; i < sizeof(bad_uint) / sizeof(*bad_uint); i++) {
			cr_engine_env env = CR_ENGINE_ENV_INIT;
			cr_error err = CR_ERROR_INIT;
			const char *name = var == 0 ? "OLLAMA_CONTEXT_LENGTH" : var == 1 ? "OLLAMA_NUM_PARALLEL"
									 : "OLLAMA_GPU_OVERHEAD";

			if (var == 0)
				env.context_length = bad_uint[i];
			else if (var == 1)
				env.num_parallel = bad_uint[i];
			else
				env.gpu_overhead = bad_uint[i];
			assert_int_equal(cr_engine_apply(CR_ENGINE_OLLAMA, m, &r24, &req, &g, &env, &p, &err),
					 CR_ERR_INVALID);
			if (!strstr(err.message, name) || strchr(err.message, '\x1b')) {
				print_error("%s='%s': %s\n", name, bad_uint[i], err.message);
				fail();
			}
		}
	}
	/* OLLAMA_CONTEXT_LENGTH above 2^32 - 1, OLLAMA_NUM_PARALLEL above 4096. */
	{
		cr_engine_env env = CR_ENGINE_ENV_INIT;
		cr_error err = CR_ERROR_INIT;

		env.context_length = "4294967296";
		assert_int_equal(cr_engine_apply(CR_ENGINE_OLLAMA, m, &r24, &req, &g, &env, &p, &err),
				 CR_ERR_INVALID);
		env.context_length = "4294967295";
		assert_int_equal(cr_engine_apply(CR_ENGINE_OLLAMA, m, &r24, &req, &g, &env, &p, &err), 0);
		env.context_length = NULL;
		env.num_parallel = "4097";
		assert_int_equal(cr_engine_apply(CR_ENGINE_OLLAMA, m, &r24, &req, &g, &env, &p, &err),
				 CR_ERR_INVALID);
	}
	{
		static const char *const bad_bool[] = { "yes", "on", "2", "tRuE" };

		for (size_t i = 0; i < sizeof(bad_bool) / sizeof(*bad_bool); i++) {
			cr_engine_env env = CR_ENGINE_ENV_INIT;
			cr_error err = CR_ERROR_INIT;

			env.flash_attention = bad_bool[i];
			assert_int_equal(cr_engine_apply(CR_ENGINE_OLLAMA, m, &r24, &req, &g, &env, &p, &err),
					 CR_ERR_INVALID);
			assert_non_null(strstr(err.message, "OLLAMA_FLASH_ATTENTION"));
		}
	}
	{
		static const char *const bad_kv[] = { "bf16", "q4_1", "iq4_nl", "fp8", "\x1b]0;x\x07" };

		for (size_t i = 0; i < sizeof(bad_kv) / sizeof(*bad_kv); i++) {
			cr_engine_env env = CR_ENGINE_ENV_INIT;
			cr_error err = CR_ERROR_INIT;

			env.kv_cache_type = bad_kv[i];
			assert_int_equal(cr_engine_apply(CR_ENGINE_OLLAMA, m, &r24, &req, &g, &env, &p, &err),
					 CR_ERR_UNSUPPORTED);
			assert_non_null(strstr(err.message, "OLLAMA_KV_CACHE_TYPE"));
			assert_null(strchr(err.message, '\x1b'));
			assert_null(strchr(err.message, '\x07'));
		}
	}
	/* The other profiles read no environment: the same values pass. */
	{
		cr_engine_env env = CR_ENGINE_ENV_INIT;
		cr_error err = CR_ERROR_INIT;

		env.context_length = "abc";
		assert_int_equal(cr_engine_apply(CR_ENGINE_LLAMA_SERVER, m, &r24, &req, &g, &env, &p, &err), 0);
		assert_int_equal(cr_engine_apply(CR_ENGINE_LMSTUDIO, m, &r24, &req, &g, &env, &p, &err), 0);
	}
	/* NULL arguments. */
	{
		cr_error err = CR_ERROR_INIT;

		assert_int_equal(cr_engine_apply(CR_ENGINE_OLLAMA, NULL, &r24, &req, &g, NULL, &p, &err),
				 CR_ERR_INVALID);
		assert_int_equal(cr_engine_apply(CR_ENGINE_COUNT, m, &r24, &req, &g, NULL, &p, &err),
				 CR_ERR_INVALID);
	}
}

static void test_lmstudio_defaults(void **state)
{
	const cr_model *m = ts_model("qwen3-8b");
	cr_estimate_request req = CR_ESTIMATE_REQUEST_INIT;
	cr_engine_given g = CR_ENGINE_GIVEN_INIT;
	cr_engine_profile p;

	(void)state;
	req.opts.n_seq = 3; /* not given: the profile's 1 replaces it */
	p = apply(CR_ENGINE_LMSTUDIO, m, NULL, &req, &g, NULL);
	expect(&p, "context", "4096", CR_ORIGIN_UNSOURCED);
	assert_int_equal(p.req.n_ctx, 4096);
	expect(&p, "parallel", "1", CR_ORIGIN_ENGINE);
	assert_int_equal(p.req.opts.n_seq, 1);
	expect(&p, "ubatch", "512", CR_ORIGIN_ENGINE);
	expect(&p, "flash_attn", "auto", CR_ORIGIN_UNSOURCED);
	expect(&p, "kv_type", "f16", CR_ORIGIN_UNSOURCED);
	expect(&p, "placement", "as many layers as fit", CR_ORIGIN_UNSOURCED);
	g.n_ctx = true;
	req.n_ctx = 16384;
	p = apply(CR_ENGINE_LMSTUDIO, m, NULL, &req, &g, NULL);
	expect(&p, "context", "16384", CR_ORIGIN_USER);
}

/* llama-server --fit: an unset context that does not fit is lowered, not
 * below 4096, and the result fits; a given context is left as it is. */
static void test_llama_server_fit(void **state)
{
	const cr_model *m = ts_model("llama-3.1-8b"); /* 131072 trained: 16 GiB of f16 KV */
	const cr_quant *q = ts_quant("Q4_K_M");
	cr_estimate_request req = CR_ESTIMATE_REQUEST_INIT;
	cr_engine_given g = CR_ENGINE_GIVEN_INIT;
	cr_rig r12 = rig_of("custom:mem_gb=12,bw_gbs=360");
	cr_engine_profile p;
	cr_estimate_setup set;
	cr_estimate e, plain;
	cr_estimate_opts fin;
	cr_weights w;
	cr_error err = CR_ERROR_INIT;

	(void)state;
	cr_weights_preset(q, &w);
	p = apply(CR_ENGINE_LLAMA_SERVER, m, &r12, &req, &g, NULL);
	assert_int_equal(cr_estimate_resolve_opts(m, &r12, &p.req, &set, &err), 0);
	assert_int_equal(cr_estimate_run_weights(m, &w, &r12, &set.opts, &plain, &err), 0);
	assert_false(plain.fits);
	assert_int_equal(cr_engine_estimate(&p, m, &w, &r12, &set.opts, &e, &fin, &err), 0);
	assert_true(e.fits);
	assert_true(fin.n_ctx >= 4096 && fin.n_ctx < m->context_max);
	assert_int_equal(fin.n_ctx % 256, 0);
	assert_int_equal(e.context, fin.n_ctx);
	/* The largest that keeps --fit's margin free: 256 more does not. */
	assert_true(e.free_bytes >= fin.headroom_bytes && e.tier != CR_TIER_TIGHT);
	assert_int_equal(e.offload_fraction, 0);
	{
		cr_estimate_opts more = fin;
		cr_estimate e2;

		more.n_ctx += 256;
		assert_int_equal(cr_estimate_run_weights(m, &w, &r12, &more, &e2, &err), 0);
		assert_true(!e2.fits || e2.tier == CR_TIER_TIGHT);
	}
	assert_int_equal(last(&p, "context")->origin, CR_ORIGIN_FIT);

	/* Without accelerators --fit measures the host alone: a model that fits
	 * in RAM at its full context keeps it (all of it "offloaded" is no
	 * reason), one that does not is lowered to fit there. */
	{
		cr_rig cpu = rig_of("custom:mem_gb=64,bw_gbs=80,backend=cpu");
		cr_rig small = rig_of("custom:mem_gb=12,bw_gbs=80,backend=cpu");

		p = apply(CR_ENGINE_LLAMA_SERVER, m, &cpu, &req, &g, NULL);
		assert_int_equal(cr_estimate_resolve_opts(m, &cpu, &p.req, &set, &err), 0);
		assert_int_equal(cr_engine_estimate(&p, m, &w, &cpu, &set.opts, &e, &fin, &err), 0);
		assert_int_equal(fin.n_ctx, m->context_max);
		p = apply(CR_ENGINE_LLAMA_SERVER, m, &small, &req, &g, NULL);
		assert_int_equal(cr_estimate_resolve_opts(m, &small, &p.req, &set, &err), 0);
		assert_int_equal(cr_engine_estimate(&p, m, &w, &small, &set.opts, &e, &fin, &err), 0);
		assert_true(fin.n_ctx >= 4096 && fin.n_ctx < m->context_max);
		assert_true(e.fits && e.tier != CR_TIER_TIGHT);
	}
	/* Two GPUs: the margin on each (the row is not tight). */
	{
		const cr_rig *two = cr_catalog_find_rig(ts_cat, "2x3090");
		const cr_model *big = ts_model("llama-3.1-70b");

		p = apply(CR_ENGINE_LLAMA_SERVER, big, two, &req, &g, NULL);
		assert_int_equal(cr_estimate_resolve_opts(big, two, &p.req, &set, &err), 0);
		assert_int_equal(cr_engine_estimate(&p, big, &w, two, &set.opts, &e, &fin, &err), 0);
		assert_true(fin.n_ctx >= 4096 && fin.n_ctx < big->context_max);
		assert_true(e.fits && e.tier != CR_TIER_TIGHT && e.offload_fraction <= 0);
	}

	/* Given: kept, and so no fit. */
	g.n_ctx = true;
	req.n_ctx = 65536;
	p = apply(CR_ENGINE_LLAMA_SERVER, m, &r12, &req, &g, NULL);
	assert_int_equal(cr_estimate_resolve_opts(m, &r12, &p.req, &set, &err), 0);
	assert_int_equal(cr_engine_estimate(&p, m, &w, &r12, &set.opts, &e, &fin, &err), 0);
	assert_int_equal(fin.n_ctx, 65536);
	assert_false(e.fits);
	assert_int_equal(last(&p, "context")->origin, CR_ORIGIN_USER);
}

/* llama-server's output rows (server_output_limits, llama.cpp v0.4.0): one
 * logits row per slot, so the compute buffer's output end holds 4 rows at
 * -np 4, not a micro-batch of 512. Llama-3.1-8B shape (vocab 128256, n_embd
 * 4096, n_ff 14336), -c 65536 -np 4 (one stream of 16384 cells per slot),
 * flash attention on, -ub 512, CPU rig, worked by hand:
 *   logits, 4 rows:  128256 x 4 x 4 + 2 x 512 x 4096 x 4      =  18829312
 *   attention:       16384 x 512 x 2 (F16 mask) + 6 x 512 x 4096 x 4
 *                                                             =  67108864
 *   FFN:             16777216 + 512 x 4 x (3 x 14336 + 4 x 4096)
 *                                                             = 138412032
 * so 138412032 B (132.00 MiB), the FFN peak; clefrun's default (a full
 * micro-batch of logits) is 128256 x 512 x 4 + 16777216 = 279445504 B
 * (266.50 MiB). The host output buffer is 128256 x 4 x 4 B either way
 * (output_reserve(n_seq_max)). An embedding model keeps every token an
 * output (server_output_limits returns n_batch). */
static void test_llama_server_outputs(void **state)
{
	const cr_model *m = ts_model("llama-3.1-8b");
	const cr_quant *q = ts_quant("Q4_K_M");
	cr_estimate_request req = CR_ESTIMATE_REQUEST_INIT;
	cr_engine_given g = CR_ENGINE_GIVEN_INIT;
	cr_rig cpu = rig_of("custom:mem_gb=4096,bw_gbs=100,backend=cpu");
	cr_engine_profile p;
	cr_estimate_setup set;
	cr_estimate e;
	cr_weights w;
	cr_error err = CR_ERROR_INIT;

	(void)state;
	cr_weights_preset(q, &w);
	req.n_ctx = 65536;
	req.opts.n_seq = 4;
	req.flash_attn = CR_FA_ON;
	g.n_ctx = g.n_seq = g.flash_attn = true;
	p = apply(CR_ENGINE_LLAMA_SERVER, m, &cpu, &req, &g, NULL);
	assert_int_equal(p.req.opts.n_outputs_max, 4);
	expect(&p, "outputs", "4", CR_ORIGIN_ENGINE);
	assert_int_equal(cr_estimate_resolve_opts(m, &cpu, &p.req, &set, &err), 0);
	assert_int_equal(cr_engine_estimate(&p, m, &w, &cpu, &set.opts, &e, NULL, &err), 0);
	assert_int_equal(e.memory.compute_bytes, 138412032ull);
	assert_int_equal(e.memory.output_bytes, 128256ull * 4 * 4);

	/* clefrun's own default (llamacpp): a full micro-batch of logits. */
	p = apply(CR_ENGINE_LLAMACPP, m, &cpu, &req, &g, NULL);
	assert_int_equal(p.req.opts.n_outputs_max, 0);
	assert_int_equal(cr_estimate_resolve_opts(m, &cpu, &p.req, &set, &err), 0);
	assert_int_equal(cr_estimate_run_weights(m, &w, &cpu, &set.opts, &e, &err), 0);
	assert_int_equal(e.memory.compute_bytes, 279445504ull);

	/* -np auto: 4 slots, 4 rows; an embedding model: no limit. */
	g = (cr_engine_given)CR_ENGINE_GIVEN_INIT;
	req = (cr_estimate_request)CR_ESTIMATE_REQUEST_INIT;
	p = apply(CR_ENGINE_LLAMA_SERVER, m, &cpu, &req, &g, NULL);
	assert_int_equal(p.req.opts.n_outputs_max, 4);
	{
		cr_model emb = *m;

		emb.task = CR_TASK_EMBEDDING;
		p = apply(CR_ENGINE_LLAMA_SERVER, &emb, &cpu, &req, &g, NULL);
		assert_int_equal(p.req.opts.n_outputs_max, 0);
		assert_null(last(&p, "outputs"));
	}
}

/* Ollama's batch: 1024 above 4096 tokens where the prediction leaves room;
 * 512 at 4096; never more than 512 when the prediction is above 75 %. */
static void test_ollama_batch(void **state)
{
	const cr_model *m = ts_model("qwen3-8b");
	const cr_quant *q = ts_quant("Q4_K_M");
	cr_estimate_request req = CR_ESTIMATE_REQUEST_INIT;
	cr_engine_given g = CR_ENGINE_GIVEN_INIT;
	cr_engine_env env = CR_ENGINE_ENV_INIT;
	cr_rig r24 = rig_of("custom:mem_gb=24,bw_gbs=1000");
	cr_rig r12 = rig_of("custom:mem_gb=12,bw_gbs=360");
	cr_engine_profile p;
	cr_estimate_setup set;
	cr_estimate e;
	cr_estimate_opts fin;
	cr_weights w;
	cr_error err = CR_ERROR_INIT;

	(void)state;
	cr_weights_preset(q, &w);
	p = apply(CR_ENGINE_OLLAMA, m, &r24, &req, &g, &env);
	assert_int_equal(cr_estimate_resolve_opts(m, &r24, &p.req, &set, &err), 0);
	assert_int_equal(cr_engine_estimate(&p, m, &w, &r24, &set.opts, &e, &fin, &err), 0);
	assert_int_equal(fin.n_ctx, 32768);
	assert_int_equal(fin.n_ubatch, 1024);
	expect(&p, "ubatch", "1024", CR_ORIGIN_FIT);
	/* 4096 on 12 GiB: the tier is 512 already. */
	p = apply(CR_ENGINE_OLLAMA, m, &r12, &req, &g, &env);
	assert_int_equal(cr_estimate_resolve_opts(m, &r12, &p.req, &set, &err), 0);
	assert_int_equal(cr_engine_estimate(&p, m, &w, &r12, &set.opts, &e, &fin, &err), 0);
	assert_int_equal(fin.n_ubatch, 512);
	expect(&p, "ubatch", "512", CR_ORIGIN_ENGINE);
	/* 32768 forced on 12 GiB: 9 GiB predicted is above 75 % of 12, so 512. */
	env.context_length = "32768";
	p = apply(CR_ENGINE_OLLAMA, m, &r12, &req, &g, &env);
	assert_int_equal(cr_estimate_resolve_opts(m, &r12, &p.req, &set, &err), 0);
	assert_int_equal(cr_engine_estimate(&p, m, &w, &r12, &set.opts, &e, &fin, &err), 0);
	assert_true(e.memory.device_bytes > 12 * GIB / 100 * 75);
	assert_int_equal(fin.n_ubatch, 512);
}

/* The best quant under a profile: chosen on the front-end's estimate. With
 * llama-server's unset context (the model's 163840), Q4_K_M only fits after
 * --fit lowers it; cr_decide_best_quant at the same options (no --fit)
 * finds no fit for it and so picks a smaller quant. */
static void test_engine_best_quant(void **state)
{
	const cr_model *m = ts_model("deepseek-coder-v2-lite");
	const cr_quant *q[2] = { ts_quant("IQ2_M"), ts_quant("Q4_K_M") };
	cr_estimate_request req = CR_ESTIMATE_REQUEST_INIT;
	cr_engine_given g = CR_ENGINE_GIVEN_INIT;
	cr_rig r12 = rig_of("custom:mem_gb=12,bw_gbs=360");
	cr_engine_profile p;
	cr_estimate_setup set;
	cr_best_quant best, plain, same;
	cr_estimate_opts fin;
	cr_error err = CR_ERROR_INIT;

	(void)state;
	p = apply(CR_ENGINE_LLAMA_SERVER, m, &r12, &req, &g, NULL);
	assert_int_equal(cr_estimate_resolve_opts(m, &r12, &p.req, &set, &err), 0);
	assert_int_equal(cr_engine_best_quant(&p, m, q, 2, &r12, &set.opts, CR_TIER_OK, &best, &fin, &err), 0);
	assert_int_equal(best.outcome, CR_BEST_REACHES);
	assert_int_equal(best.index, 1);
	assert_true(fin.n_ctx < m->context_max);
	assert_int_equal(best.estimate.context, fin.n_ctx);
	assert_int_equal(last(&p, "context")->origin, CR_ORIGIN_FIT);
	assert_int_equal(cr_decide_best_quant(m, q, 2, &r12, &set.opts, CR_TIER_OK, &plain, &err), 0);
	assert_int_equal(plain.index, 0);
	/* No estimate function: cr_decide_best_quant itself. */
	assert_int_equal(cr_decide_best_quant_by(m, q, 2, &r12, &set.opts, CR_TIER_OK, NULL, NULL, &same, &err), 0);
	assert_int_equal(same.index, plain.index);
	assert_int_equal(same.outcome, plain.outcome);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_llamacpp_unchanged),
		cmocka_unit_test(test_llama_server_defaults),
		cmocka_unit_test(test_ollama_tiers),
		cmocka_unit_test(test_ollama_gpu_bytes),
		cmocka_unit_test(test_ollama_defaults),
		cmocka_unit_test(test_ollama_env),
		cmocka_unit_test(test_ollama_explicit_wins),
		cmocka_unit_test(test_ollama_env_refused),
		cmocka_unit_test(test_lmstudio_defaults),
		cmocka_unit_test(test_llama_server_fit),
		cmocka_unit_test(test_llama_server_outputs),
		cmocka_unit_test(test_ollama_batch),
		cmocka_unit_test(test_engine_best_quant),
	};

	return cmocka_run_group_tests(tests, ts_catalog_setup, ts_catalog_teardown);
}
