/*
 * Harness: the environment the Ollama profile reads (engine.c): the input is
 * up to five lines, OLLAMA_CONTEXT_LENGTH, OLLAMA_NUM_PARALLEL,
 * OLLAMA_FLASH_ATTENTION, OLLAMA_KV_CACHE_TYPE and OLLAMA_GPU_OVERHEAD (a
 * missing line is an unset variable). Each profile applies them to a small
 * model on a one-GPU rig of 4 to 64 GiB; a profile that applies goes through
 * cr_estimate_resolve_opts and cr_engine_estimate. A refusal must name its
 * variable and hold no control byte; a profile must keep the context within
 * the model's and list at most CR_ENGINE_MAX_DEFAULTS settings.
 */
#include <string.h>

#include "clefrun/clefrun.h"
#include "fuzz.h"

static void tiny(cr_model *m, cr_quant *q)
{
	memset(m, 0, sizeof(*m));
	memset(q, 0, sizeof(*q));
	snprintf(m->id, sizeof(m->id), "tiny");
	snprintf(m->arch, sizeof(m->arch), "llama");
	m->params = m->active_params = 1000000000;
	m->context_max = 32768;
	m->vocab = 32000;
	m->n_layers = 4;
	m->hidden = 2048;
	m->ffn = 8192;
	m->n_heads = 16;
	m->head_dim_k = m->head_dim_v = 128;
	for (int i = 0; i < 4; i++)
		m->kv_heads[i] = 4;
	snprintf(q->id, sizeof(q->id), "Q4_K_M");
	q->bpw = 4.9;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s, *lines[5] = { NULL, NULL, NULL, NULL, NULL }, spec[96];
	cr_engine_env env = CR_ENGINE_ENV_INIT;
	cr_engine_given given = CR_ENGINE_GIVEN_INIT;
	cr_model m;
	cr_quant q;
	cr_rig rig;
	cr_error err = CR_ERROR_INIT;
	size_t n = 0;

	if (size > 4096 || !(s = malloc(size + 1)))
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	/* Lines; the first byte also picks the rig's memory. */
	for (char *p = s; n < 5 && p; n++) {
		char *nl = strchr(p, '\n');

		lines[n] = p;
		if (nl)
			*nl = '\0';
		p = nl ? nl + 1 : NULL;
	}
	env.context_length = lines[0];
	env.num_parallel = lines[1];
	env.flash_attention = lines[2];
	env.kv_cache_type = lines[3];
	env.gpu_overhead = lines[4];
	tiny(&m, &q);
	snprintf(spec, sizeof(spec), "custom:mem_gb=%u,bw_gbs=500", 4u + (size ? data[0] % 61u : 0u));
	if (cr_rig_parse_spec(spec, &rig, &err)) {
		free(s);
		return 0;
	}
	given.n_ctx = size > 1 && (data[1] & 1);
	for (int e = 0; e < CR_ENGINE_COUNT; e++) {
		cr_estimate_request req = CR_ESTIMATE_REQUEST_INIT;
		cr_engine_profile p;
		cr_estimate_setup set;
		cr_estimate est;
		cr_weights w;
		int rc;

		req.n_ctx = given.n_ctx ? 2048 : 0;
		FUZZ_ERR_RESET(err);
		rc = cr_engine_apply((cr_engine)e, &m, &rig, &req, &given, &env, &p, &err);
		if (rc) {
			FUZZ_CHECK(e == CR_ENGINE_OLLAMA && err.message[0] && strstr(err.message, "OLLAMA_"));
			for (const char *c = err.message; *c; c++)
				FUZZ_CHECK((unsigned char)*c >= 0x20 && *c != 0x7f);
			continue;
		}
		FUZZ_CHECK(p.n_defaults <= CR_ENGINE_MAX_DEFAULTS);
		FUZZ_CHECK(p.req.n_ctx == 0 || p.req.n_ctx <= m.context_max || e == CR_ENGINE_LLAMACPP);
		FUZZ_CHECK(p.req.opts.n_seq >= 1);
		FUZZ_ERR_RESET(err);
		if (cr_estimate_resolve_opts(&m, &rig, &p.req, &set, &err))
			continue;
		cr_weights_preset(&q, &w);
		FUZZ_ERR_RESET(err);
		if (cr_engine_estimate(&p, &m, &w, &rig, &set.opts, &est, NULL, &err) == 0)
			FUZZ_CHECK(est.tier < CR_TIER_COUNT && est.context <= m.context_max);
	}
	free(s);
	return 0;
}
