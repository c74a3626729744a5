/*
 * Harness: the catalog loader (catalog.c, json_read.c), one data file kind
 * per build: FUZZ_CATALOG_KIND 0 fuzzes models.json, 1 quants.json,
 * 2 rigs.json; the other two files are small valid documents, so the
 * fuzzed one is what decides. A catalog that loads is then used as the CLI
 * would: every model, quant and rig goes through lookups, suggestions and
 * the estimator (so valid-but-extreme values reach the arithmetic).
 */
#include <string.h>

#include "clefrun/clefrun.h"
#include "fuzz.h"

#ifndef FUZZ_CATALOG_KIND
#define FUZZ_CATALOG_KIND 0
#endif

#define QUANT_Q4 \
	"{\"id\":\"Q4_K_M\",\"bpw\":4.9,\"base_type\":\"Q4_K\",\"description\":\"4-bit\",\"source\":\"s\"}"
#define DEVICE_GPU                                                                     \
	"{\"name\":\"GPU\",\"count\":1,\"memory_gib\":24,\"bandwidth_gbs\":1000,"         \
	"\"fp16_tflops\":100,\"backend\":\"cuda\",\"kind\":\"discrete\"}"
#define DEVICE_RAM                                                                     \
	"{\"name\":\"RAM\",\"count\":1,\"memory_gib\":64,\"bandwidth_gbs\":80,"           \
	"\"fp16_tflops\":1,\"backend\":\"cpu\",\"kind\":\"system\"}"
#define RIG_GPU                                                                        \
	"{\"id\":\"gpu24\",\"name\":\"GPU 24\",\"reference\":false,\"status\":\"released\"," \
	"\"devices\":[" DEVICE_GPU "," DEVICE_RAM "],\"sources\":[\"s\"]}"
#define MODEL_TINY                                                                      \
	"{\"id\":\"tiny\",\"name\":\"Tiny\",\"family\":\"t\",\"developer\":\"T\","        \
	"\"license\":\"mit\",\"released\":\"2025-01\",\"arch\":\"llama\","                \
	"\"params\":1000000000,\"active_params\":1000000000,\"context_max\":4096,"        \
	"\"vocab\":32000,\"layers\":4,\"hidden\":2048,\"ffn\":8192,\"heads\":16,"         \
	"\"kv_heads\":4,\"head_dim_k\":128,\"head_dim_v\":128,\"tied_embeddings\":false," \
	"\"sources\":[\"s\"]}"

static const char *const fixed[3] = {
	"{\"schema\":\"clefrun.models/1\",\"models\":[" MODEL_TINY "]}",
	"{\"schema\":\"clefrun.quants/1\",\"quants\":[" QUANT_Q4 "]}",
	"{\"schema\":\"clefrun.rigs/1\",\"rigs\":[" RIG_GPU "]}",
};

/* Estimates of one model, quant and rig with a few option sets. */
static void estimate_all(const cr_model *m, const cr_quant *q, const cr_rig *r)
{
	static const uint32_t ctxs[] = { 1, 4096, 1u << 30 };
	cr_estimate est;
	cr_term terms[32];
	cr_error err = CR_ERROR_INIT;
	char why[128];

	for (size_t i = 0; i < sizeof(ctxs) / sizeof(ctxs[0]); i++) {
		cr_estimate_opts o = CR_ESTIMATE_OPTS_INIT;

		o.n_ctx = ctxs[i] < m->context_max ? ctxs[i] : m->context_max;
		o.gpu_layers = i == 1 ? 1 : -1;
		o.cpu_moe = i == 2;
		o.split = i == 2 ? CR_SPLIT_TENSOR : CR_SPLIT_LAYER;
		o.flash_attn = cr_estimate_resolve_flash_attn(m, r, CR_FA_AUTO, why, sizeof(why));
		FUZZ_ERR_RESET(err);
		if (cr_estimate_run(m, q, r, &o, &est, &err) == 0) {
			size_t n = cr_estimate_explain(m, q, r, &o, &est, terms,
						       sizeof(terms) / sizeof(terms[0]));

			FUZZ_CHECK(n <= sizeof(terms) / sizeof(terms[0]));
			FUZZ_CHECK(est.tier < CR_TIER_COUNT);
			FUZZ_CHECK(memchr(est.basis, '\0', sizeof(est.basis)) != NULL);
		} else {
			FUZZ_CHECK(err.status < 0 && err.message[0]);
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *docs[3] = { fixed[0], fixed[1], fixed[2] };
	size_t lens[3] = { strlen(fixed[0]), strlen(fixed[1]), strlen(fixed[2]) };
	cr_catalog *cat = NULL;
	cr_error err = CR_ERROR_INIT;
	const char *ids[8];

	docs[FUZZ_CATALOG_KIND] = (const char *)data;
	lens[FUZZ_CATALOG_KIND] = size;
	if (cr_catalog_load_buffers(docs[0], lens[0], docs[1], lens[1], docs[2], lens[2], NULL,
				    &cat, &err) != 0) {
		FUZZ_CHECK(cat == NULL && err.status < 0 && err.message[0]);
		return 0;
	}
	FUZZ_CHECK(cr_catalog_model_count(cat) > 0 && cr_catalog_quant_count(cat) > 0 &&
		   cr_catalog_rig_count(cat) > 0);
	for (size_t i = 0; i < cr_catalog_model_count(cat); i++) {
		const cr_model *m = cr_catalog_model_at(cat, i);

		FUZZ_CHECK(cr_catalog_find_model(cat, m->id) == m);
		FUZZ_CHECK(cr_model_kv_layers(m) <= m->n_layers);
		(void)cr_catalog_suggest(cat, CR_KIND_MODEL, m->id, ids, 8);
		for (size_t j = 0; j < cr_catalog_quant_count(cat); j++)
			for (size_t k = 0; k < cr_catalog_rig_count(cat); k++)
				if (i * j * k < 64) /* bounded work per input */
					estimate_all(m, cr_catalog_quant_at(cat, j),
						     cr_catalog_rig_at(cat, k));
	}
	for (size_t j = 0; j < cr_catalog_quant_count(cat); j++) {
		const cr_quant *q = cr_catalog_quant_at(cat, j);

		FUZZ_CHECK(cr_catalog_find_quant(cat, q->id) == q);
		(void)cr_catalog_suggest(cat, CR_KIND_QUANT, q->id, ids, 8);
	}
	for (size_t k = 0; k < cr_catalog_rig_count(cat); k++) {
		const cr_rig *r = cr_catalog_rig_at(cat, k);

		FUZZ_CHECK(cr_catalog_find_rig(cat, r->id) == r);
		(void)cr_rig_memory_bytes(r);
		(void)cr_rig_aggregate_bandwidth_gbs(r);
		(void)cr_catalog_suggest(cat, CR_KIND_RIG, r->id, ids, 8);
	}
	(void)cr_catalog_suggest(cat, (cr_catalog_kind)FUZZ_CATALOG_KIND, "", ids, 8);
	cr_catalog_free(cat);
	return 0;
}
