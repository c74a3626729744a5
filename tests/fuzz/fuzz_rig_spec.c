/*
 * Harness: the "--rig custom:..." spec parser (rig.c). The input is the
 * spec; it is tried as given (the CLI passes any argv string) and with the
 * "custom:" prefix put in front, so the fuzzer need not find the prefix. A
 * rig that parses goes through the estimator with a small model.
 */
#include <string.h>

#include "clefrun/clefrun.h"
#include "fuzz.h"

static void use(const cr_rig *r)
{
	cr_model m;
	cr_quant q;
	cr_estimate est;
	cr_estimate_opts o = CR_ESTIMATE_OPTS_INIT;
	cr_error err = CR_ERROR_INIT;

	FUZZ_CHECK(r->n_devices >= 1 && r->n_devices <= 2);
	FUZZ_CHECK(memchr(r->id, '\0', sizeof(r->id)) && memchr(r->name, '\0', sizeof(r->name)));
	for (unsigned i = 0; i < r->n_devices; i++)
		FUZZ_CHECK(r->devices[i].count >= 1 && r->devices[i].memory_gib > 0 &&
			   r->devices[i].bandwidth_gbs > 0);
	(void)cr_rig_memory_bytes(r);
	(void)cr_rig_aggregate_bandwidth_gbs(r);

	memset(&m, 0, sizeof(m));
	memset(&q, 0, sizeof(q));
	snprintf(m.id, sizeof(m.id), "tiny");
	m.params = m.active_params = 1000000000;
	m.context_max = 4096;
	m.vocab = 32000;
	m.n_layers = 4;
	m.hidden = 2048;
	m.ffn = 8192;
	m.n_heads = 16;
	m.head_dim_k = m.head_dim_v = 128;
	for (int i = 0; i < 4; i++)
		m.kv_heads[i] = 4;
	snprintf(q.id, sizeof(q.id), "Q4_K_M");
	q.bpw = 4.9;
	o.n_ctx = 4096;
	FUZZ_ERR_RESET(err);
	if (cr_estimate_run(&m, &q, r, &o, &est, &err) == 0)
		FUZZ_CHECK(est.tier < CR_TIER_COUNT);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char prefix[] = CR_RIG_SPEC_PREFIX;
	char *s;
	cr_rig r;
	cr_error err = CR_ERROR_INIT;

	if (size > 4096)
		return 0;
	s = malloc(sizeof(prefix) - 1 + size + 1);
	if (!s)
		return 0;
	/* As given, then prefixed. */
	memcpy(s, data, size);
	s[size] = '\0';
	FUZZ_ERR_RESET(err);
	if (cr_rig_parse_spec(s, &r, &err) == 0)
		use(&r);
	else
		FUZZ_CHECK(err.status < 0 && err.message[0]);
	memcpy(s, prefix, sizeof(prefix) - 1);
	memcpy(s + sizeof(prefix) - 1, data, size);
	s[sizeof(prefix) - 1 + size] = '\0';
	FUZZ_ERR_RESET(err);
	if (cr_rig_parse_spec(s, &r, &err) == 0)
		use(&r);
	else
		FUZZ_CHECK(err.status < 0 && err.message[0]);
	free(s);
	return 0;
}
