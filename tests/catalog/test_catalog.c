/*
 * test_catalog: the catalog loader (catalog.c on top of json_read.c).
 * The shipped data files loaded from data/ must equal the tables generated
 * from them and compiled into the library, record for record and field by
 * field; the 22 reference rigs must
 * be there in the seed pages' order, with the models and quants the seeds
 * use, and Clef-flash must carry its published facts. Then every way a
 * hostile catalog can be wrong is tried on small valid documents, mutating
 * one thing per row, and each row asserts the exact status and the exact
 * message (file, JSON path, what was wrong); files on disk (fixtures under
 * tests/fixtures/catalog and temporary ones) cover the paths in messages,
 * missing files and files too large to read.
 */
#include "unit.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "clefrun/catalog.h"
#include "support.h"

#define FIXTURE_DIR CLEFRUN_FIXTURES "/catalog"

/* ---- the shipped catalog ------------------------------------------------ */

static const char *const reference_rigs[] = {
	"gtx1080ti", "4xh100", "dgx-station", "8x3090", "4x5090", "mi300x", "4x4090",
	"2x5090", "2x3090", "rtx5090", "rtx-pro-6000", "mac-studio-m4-ultra-192",
	"mac-studio-m4-ultra-512", "rtx4090", "mbp-m5-max-128", "dual-epyc-9004-768",
	"dgx-spark", "ryzen-ai-max-395", "jetson-agx-orin-64", "epyc-ddr4-3200-2x3090",
	"epyc-ddr4-2400-2x3090", "jetson-orin-nx-16",
};

static const char *const required_models[] = {
	"clef-flash", "clef", "clef-omni", "llama-2-7b", "llama-3.1-8b", "llama-3.1-70b",
	"llama-3.2-1b", "llama-3.2-3b", "qwen2.5-7b", "qwen2.5-14b", "qwen3-8b",
	"qwen3-30b-a3b", "qwen3.5-9b", "qwen3.5-27b", "gemma-3-4b", "gemma-3-27b",
	"mistral-7b", "mistral-small-24b", "phi-4", "deepseek-r1-distill-qwen-14b",
	"gpt-oss-20b", "gpt-oss-120b", "deepseek-v3", "llama-4-scout",
};

static const char *const required_quants[] = {
	"Q2_K", "Q3_K_S", "Q3_K_M", "Q4_0", "Q4_K_M", "Q5_K_M", "Q6_K", "Q8_0", "IQ2_M",
	"IQ3_M", "IQ4_XS", "Q4_K_S", "Q5_K_S", "MXFP4", "BF16", "F16",
};

typedef struct shipped {
	cr_catalog *dir;
	cr_catalog *embedded;
} shipped;

static int shipped_setup(void **state)
{
	shipped *s = calloc(1, sizeof(*s));
	cr_error err = CR_ERROR_INIT;

	if (!s)
		return -1;
	*state = s;
	if (cr_catalog_load_dir(CLEFRUN_DATA_DIR, &s->dir, &err)) {
		print_error("load_dir(%s): %s\n", CLEFRUN_DATA_DIR, err.message);
		return -1;
	}
	if (cr_catalog_load_embedded(&s->embedded, &err)) {
		print_error("load_embedded: %s\n", err.message);
		return -1;
	}
	return 0;
}

static int shipped_teardown(void **state)
{
	shipped *s = *state;

	if (s) {
		cr_catalog_free(s->dir);
		cr_catalog_free(s->embedded);
		free(s);
	}
	return 0;
}

/* data/ loaded as JSON and the built-in tables generated from it
 * (src/gen/catalog_gen.c) hold the same records: same counts and identical
 * bytes (the loader fills calloc'd records; the tables are static objects,
 * whose padding GCC and Clang write as zero bytes). The byte comparison
 * also catches a field added to a struct that the generator does not write;
 * test_shipped_tables_field_by_field names the field when one differs. */
static void test_shipped_dir_equals_embedded(void **state)
{
	const shipped *s = *state;
	const cr_catalog *a = s->dir, *b = s->embedded;

	assert_int_equal(cr_catalog_model_count(a), cr_catalog_model_count(b));
	assert_int_equal(cr_catalog_quant_count(a), cr_catalog_quant_count(b));
	assert_int_equal(cr_catalog_rig_count(a), cr_catalog_rig_count(b));
	assert_true(cr_catalog_model_count(a) >= UNIT_ARRAY_LEN(required_models));
	assert_true(cr_catalog_quant_count(a) >= UNIT_ARRAY_LEN(required_quants));
	assert_true(cr_catalog_rig_count(a) >= UNIT_ARRAY_LEN(reference_rigs) + 30);
	for (size_t i = 0; i < cr_catalog_model_count(a); i++)
		assert_memory_equal(cr_catalog_model_at(a, i), cr_catalog_model_at(b, i),
				    sizeof(cr_model));
	for (size_t i = 0; i < cr_catalog_quant_count(a); i++)
		assert_memory_equal(cr_catalog_quant_at(a, i), cr_catalog_quant_at(b, i),
				    sizeof(cr_quant));
	for (size_t i = 0; i < cr_catalog_rig_count(a); i++)
		assert_memory_equal(cr_catalog_rig_at(a, i), cr_catalog_rig_at(b, i),
				    sizeof(cr_rig));
	/* Indexed access past the end is NULL, not a read out of bounds. */
	assert_null(cr_catalog_model_at(a, cr_catalog_model_count(a)));
	assert_null(cr_catalog_quant_at(a, cr_catalog_quant_count(a)));
	assert_null(cr_catalog_rig_at(a, cr_catalog_rig_count(a)));
	assert_true(strlen(cr_catalog_version()) > 0);
}

/* Field by field, naming the record and the field that differs. */
#define SAME_STR(what, id, f)                                                       \
	do {                                                                        \
		if (strcmp(a->f, b->f) != 0) {                                      \
			print_error("%s %s: " #f " \"%s\" (JSON) vs \"%s\" (tables)\n", \
				    what, id, a->f, b->f);                          \
			bad++;                                                      \
		}                                                                   \
	} while (0)
#define SAME_NUM(what, id, f)                                                         \
	do {                                                                          \
		if (a->f != b->f) {                                                   \
			print_error("%s %s: " #f " %.17g (JSON) vs %.17g (tables)\n", what, \
				    id, (double)a->f, (double)b->f);                  \
			bad++;                                                        \
		}                                                                     \
	} while (0)

static unsigned same_sources(const char *what, const char *id, const char (*x)[CR_URL_MAX],
			     const char (*y)[CR_URL_MAX])
{
	unsigned bad = 0;

	for (unsigned k = 0; k < CR_MAX_SOURCES; k++) {
		if (strcmp(x[k], y[k]) != 0) {
			print_error("%s %s: sources[%u] differs\n", what, id, k);
			bad++;
		}
	}
	return bad;
}

static unsigned same_model(const cr_model *a, const cr_model *b)
{
	const char *w = "model", *id = a->id;
	unsigned bad = 0;

	SAME_STR(w, id, id);
	SAME_STR(w, id, name);
	SAME_STR(w, id, family);
	SAME_STR(w, id, developer);
	SAME_STR(w, id, license);
	SAME_STR(w, id, released);
	SAME_STR(w, id, backbone);
	SAME_STR(w, id, arch);
	SAME_NUM(w, id, params);
	SAME_NUM(w, id, active_params);
	SAME_NUM(w, id, context_max);
	SAME_NUM(w, id, vocab);
	SAME_NUM(w, id, n_layers);
	SAME_NUM(w, id, hidden);
	SAME_NUM(w, id, ffn);
	SAME_NUM(w, id, n_heads);
	SAME_NUM(w, id, head_dim_k);
	SAME_NUM(w, id, head_dim_v);
	for (unsigned k = 0; k < CR_MAX_LAYERS; k++) {
		if (a->kv_heads[k] != b->kv_heads[k] || a->layer_kind[k] != b->layer_kind[k] ||
		    a->layer_parts[k] != b->layer_parts[k]) {
			print_error("model %s: layer %u: kv_heads %u/%u, layer_kind %u/%u, layer_parts %u/%u\n", id,
				    k, a->kv_heads[k], b->kv_heads[k], a->layer_kind[k], b->layer_kind[k],
				    a->layer_parts[k], b->layer_parts[k]);
			bad++;
		}
	}
	SAME_NUM(w, id, window);
	SAME_NUM(w, id, linear.k_heads);
	SAME_NUM(w, id, linear.k_head_dim);
	SAME_NUM(w, id, linear.v_heads);
	SAME_NUM(w, id, linear.v_head_dim);
	SAME_NUM(w, id, linear.conv_kernel);
	SAME_NUM(w, id, mamba);
	SAME_NUM(w, id, mla);
	SAME_NUM(w, id, mla_kv_lora_rank);
	SAME_NUM(w, id, mla_rope_dim);
	SAME_NUM(w, id, experts_total);
	SAME_NUM(w, id, experts_used);
	SAME_NUM(w, id, experts_shared);
	SAME_NUM(w, id, mla_q_lora_rank);
	SAME_NUM(w, id, experts_dense_layers);
	SAME_NUM(w, id, experts_dense_ffn);
	SAME_NUM(w, id, experts_shared_ffn);
	SAME_NUM(w, id, experts_every);
	SAME_NUM(w, id, n_aliases);
	for (unsigned k = 0; k < a->n_aliases && k < CR_MAX_ALIASES; k++)
		SAME_STR(w, id, aliases[k]);
	SAME_NUM(w, id, vision.layers);
	SAME_NUM(w, id, vision.hidden);
	SAME_NUM(w, id, vision.ffn);
	SAME_NUM(w, id, vision.patch);
	SAME_NUM(w, id, vision.temporal_patch);
	SAME_NUM(w, id, vision.positions);
	SAME_NUM(w, id, vision.merge);
	SAME_NUM(w, id, vision.deepstack);
	SAME_NUM(w, id, tied_embeddings);
	SAME_NUM(w, id, task);
	SAME_STR(w, id, native_type);
	SAME_NUM(w, id, native_bpw);
	SAME_STR(w, id, native_source);
	SAME_STR(w, id, notes);
	SAME_NUM(w, id, n_sources);
	return bad + same_sources(w, id, a->sources, b->sources);
}

static unsigned same_quant(const cr_quant *a, const cr_quant *b)
{
	const char *w = "quant", *id = a->id;
	unsigned bad = 0;

	SAME_STR(w, id, id);
	SAME_NUM(w, id, bpw);
	SAME_STR(w, id, base_type);
	SAME_STR(w, id, description);
	SAME_STR(w, id, source);
	return bad;
}

static unsigned same_device(const char *id, const cr_device *a, const cr_device *b)
{
	const char *w = "rig device of";
	unsigned bad = 0;

	SAME_STR(w, id, name);
	SAME_NUM(w, id, count);
	SAME_NUM(w, id, memory_gib);
	SAME_NUM(w, id, bandwidth_gbs);
	SAME_NUM(w, id, fp16_tflops);
	SAME_NUM(w, id, backend);
	SAME_NUM(w, id, kind);
	SAME_NUM(w, id, usable_fraction);
	SAME_NUM(w, id, mem_type);
	SAME_NUM(w, id, vendor);
	return bad;
}

static unsigned same_rig(const cr_rig *a, const cr_rig *b)
{
	const char *w = "rig", *id = a->id;
	unsigned bad = 0;

	SAME_STR(w, id, id);
	SAME_STR(w, id, name);
	SAME_NUM(w, id, reference);
	SAME_NUM(w, id, unreleased);
	SAME_NUM(w, id, n_devices);
	for (unsigned k = 0; k < CR_MAX_DEVICE_GROUPS; k++)
		bad += same_device(id, &a->devices[k], &b->devices[k]);
	SAME_NUM(w, id, interconnect_gbs);
	SAME_NUM(w, id, seed_memory_gb);
	SAME_NUM(w, id, seed_bandwidth_gbs);
	SAME_STR(w, id, notes);
	SAME_NUM(w, id, n_sources);
	return bad + same_sources(w, id, a->sources, b->sources);
}

static void test_shipped_tables_field_by_field(void **state)
{
	const shipped *s = *state;
	const cr_catalog *a = s->dir, *b = s->embedded;
	size_t n = 0;
	unsigned bad = 0;

	assert_int_equal(cr_catalog_model_count(a), cr_catalog_model_count(b));
	assert_int_equal(cr_catalog_quant_count(a), cr_catalog_quant_count(b));
	assert_int_equal(cr_catalog_rig_count(a), cr_catalog_rig_count(b));
	for (size_t i = 0; i < cr_catalog_model_count(a); i++, n++)
		bad += same_model(cr_catalog_model_at(a, i), cr_catalog_model_at(b, i));
	for (size_t i = 0; i < cr_catalog_quant_count(a); i++, n++)
		bad += same_quant(cr_catalog_quant_at(a, i), cr_catalog_quant_at(b, i));
	for (size_t i = 0; i < cr_catalog_rig_count(a); i++, n++)
		bad += same_rig(cr_catalog_rig_at(a, i), cr_catalog_rig_at(b, i));
	if (bad)
		fail_msg("%u fields differ in %zu records", bad, n);
	/* The checks above can fail: a record changed here must be seen. */
	{
		cr_rig r = *cr_catalog_rig_at(b, 0);
		cr_model m = *cr_catalog_model_at(b, 0);

		print_message("a self-check: the next two differences are meant\n");
		r.devices[0].usable_fraction += 1e-9;
		m.kv_heads[m.n_layers - 1]++;
		assert_int_equal(same_rig(cr_catalog_rig_at(a, 0), &r), 1);
		assert_int_equal(same_model(cr_catalog_model_at(a, 0), &m), 1);
	}
}

/* The built-in catalog is the same object each time; freeing it frees the
 * handle, never the tables (another handle still reads them). */
static void test_embedded_handles(void **state)
{
	cr_catalog *c1 = NULL, *c2 = NULL;
	cr_error err = CR_ERROR_INIT;

	(void)state;
	assert_int_equal(cr_catalog_load_embedded(&c1, &err), CR_OK);
	assert_int_equal(cr_catalog_load_embedded(&c2, &err), CR_OK);
	assert_ptr_equal(cr_catalog_model_at(c1, 0), cr_catalog_model_at(c2, 0));
	cr_catalog_free(c1);
	assert_string_equal(cr_catalog_model_at(c2, 0)->id, "clef-flash");
	assert_non_null(cr_catalog_find_rig(c2, "rtx4090"));
	cr_catalog_free(c2);
}

static void test_shipped_reference_rigs(void **state)
{
	const cr_catalog *cat = ((shipped *)*state)->embedded;
	size_t n_ref = 0, n_other = 0;

	for (size_t i = 0; i < cr_catalog_rig_count(cat); i++) {
		const cr_rig *r = cr_catalog_rig_at(cat, i);

		if (!r->reference) {
			n_other++;
			continue;
		}
		if (n_ref >= UNIT_ARRAY_LEN(reference_rigs))
			fail_msg("unexpected reference rig %s", r->id);
		assert_string_equal(r->id, reference_rigs[n_ref]);
		/* The seed pages printed figures for every reference rig. */
		assert_true(r->seed_memory_gb > 0);
		assert_true(r->seed_bandwidth_gbs > 0);
		n_ref++;
	}
	assert_int_equal(n_ref, UNIT_ARRAY_LEN(reference_rigs));
	assert_true(n_other >= 30);
	/* The seeds' M4 Ultra does not exist; the catalog says so. */
	assert_true(cr_catalog_find_rig(cat, "mac-studio-m4-ultra-192")->unreleased);
	assert_false(cr_catalog_find_rig(cat, "rtx4090")->unreleased);
}

/* Every GPU and unified-memory device has an FP16 figure, or its rig's notes
 * say why not (docs/catalog.md: "fp16 0: ..."); the reference rigs have one on
 * every such device, so each gets a prefill figure (issue: no reference rig
 * without a prefill figure). CPU memory (CR_MEM_SYSTEM) is exempt. */
static void test_shipped_fp16_figures(void **state)
{
	const cr_catalog *cat = ((shipped *)*state)->embedded;
	unsigned bad = 0, with = 0, without = 0;

	for (size_t i = 0; i < cr_catalog_rig_count(cat); i++) {
		const cr_rig *r = cr_catalog_rig_at(cat, i);

		for (unsigned g = 0; g < r->n_devices; g++) {
			const cr_device *dv = &r->devices[g];

			if (dv->kind == CR_MEM_SYSTEM)
				continue;
			if (dv->fp16_tflops > 0) {
				with++;
				continue;
			}
			without++;
			if (r->reference) {
				print_error("reference rig %s: %s has no FP16 figure\n", r->id, dv->name);
				bad++;
			} else if (!strstr(r->notes, "fp16 0")) {
				print_error("rig %s: %s has no FP16 figure and its notes do not say why\n",
					    r->id, dv->name);
				bad++;
			}
		}
	}
	assert_int_equal(bad, 0);
	/* The figure is known for most devices; the exceptions are few. */
	assert_true(with > 10 * without);
}

static void test_shipped_required_ids(void **state)
{
	const cr_catalog *cat = ((shipped *)*state)->embedded;
	unsigned bad = 0;

	for (size_t i = 0; i < UNIT_ARRAY_LEN(required_models); i++) {
		const cr_model *m = cr_catalog_find_model(cat, required_models[i]);

		if (!m || strcmp(m->id, required_models[i]) != 0) {
			print_error("model %s missing\n", required_models[i]);
			bad++;
		}
	}
	for (size_t i = 0; i < UNIT_ARRAY_LEN(required_quants); i++) {
		const cr_quant *q = cr_catalog_find_quant(cat, required_quants[i]);

		if (!q || strcmp(q->id, required_quants[i]) != 0) {
			print_error("quant %s missing\n", required_quants[i]);
			bad++;
		}
	}
	UNIT_TABLE_DONE(bad, UNIT_ARRAY_LEN(required_models) + UNIT_ARRAY_LEN(required_quants));
}

static void test_shipped_clef_flash(void **state)
{
	const cr_catalog *cat = ((shipped *)*state)->embedded;
	const cr_model *m = cr_catalog_find_model(cat, "clef-flash");

	assert_non_null(m);
	assert_int_equal(m->params, 9400000000ull);
	assert_int_equal(m->context_max, 262144);
	assert_int_equal(m->vocab, 248320);
	assert_int_equal(m->n_layers, 32);
	assert_int_equal(cr_model_kv_layers(m), 8);
	assert_int_equal(cr_model_count_layers(m, CR_LAYER_FULL), 8);
	assert_int_equal(cr_model_count_layers(m, CR_LAYER_RECURRENT), 24);
	assert_int_equal(cr_model_count_layers(m, CR_LAYER_SLIDING), 0);
	assert_string_equal(m->license, "apache-2.0");
	assert_string_equal(m->developer, "Cloudflare");
	assert_string_equal(m->backbone, "qwen3.5-9b");
	assert_non_null(cr_catalog_find_model(cat, m->backbone));
	/* Lookups ignore case. */
	assert_ptr_equal(cr_catalog_find_model(cat, "CLEF-Flash"), m);
	assert_null(cr_catalog_find_model(cat, "clef-flash2"));
	assert_null(cr_catalog_find_model(cat, ""));
	/* Aliases find their model, ignoring case: a Hugging Face repo name and
	 * an Ollama tag; an alias is not a prefix match. */
	m = cr_catalog_find_model(cat, "qwen3-8b");
	assert_non_null(m);
	assert_ptr_equal(cr_catalog_find_model(cat, "Qwen/Qwen3-8B"), m);
	assert_ptr_equal(cr_catalog_find_model(cat, "qwen/qwen3-8b"), m);
	assert_ptr_equal(cr_catalog_find_model(cat, "QWEN3:8B"), m);
	assert_null(cr_catalog_find_model(cat, "qwen3:8"));
	assert_null(cr_catalog_find_model(cat, "Qwen/Qwen3-8B-GGUF"));
}

/* "task": embedding and reranking models carry it; every other model is a
 * generator (the default), and the names parse back. */
static void test_shipped_tasks(void **state)
{
	const cr_catalog *cat = ((shipped *)*state)->embedded;
	const cr_model *m = cr_catalog_find_model(cat, "qwen3-embedding-8b");
	cr_model_task t = CR_TASK_COUNT;
	unsigned emb = 0, rank = 0;

	assert_non_null(m);
	assert_int_equal(m->task, CR_TASK_EMBEDDING);
	assert_ptr_equal(cr_catalog_find_model(cat, "qwen3-embedding:8b"), m);
	assert_int_equal(cr_catalog_find_model(cat, "qwen3-reranker-8b")->task, CR_TASK_RERANK);
	assert_int_equal(cr_catalog_find_model(cat, "qwen3-8b")->task, CR_TASK_GENERATION);
	for (size_t i = 0; i < cr_catalog_model_count(cat); i++) {
		emb += cr_catalog_model_at(cat, i)->task == CR_TASK_EMBEDDING;
		rank += cr_catalog_model_at(cat, i)->task == CR_TASK_RERANK;
	}
	assert_int_equal(emb, 3);
	assert_int_equal(rank, 3);
	for (int i = 0; i < CR_TASK_COUNT; i++) {
		assert_int_equal(cr_model_task_parse(cr_model_task_name((cr_model_task)i), &t), CR_OK);
		assert_int_equal(t, i);
	}
	assert_string_equal(cr_model_task_name(CR_TASK_EMBEDDING), "embedding");
	assert_string_equal(cr_model_task_name(CR_TASK_COUNT), "?");
	assert_int_equal(cr_model_task_parse("embed", &t), CR_ERR_INVALID);
}

/* ---- enum names --------------------------------------------------------- */

static void test_enum_names(void **state)
{
	static const char *const backends[] = { "cuda", "metal", "rocm", "vulkan", "cpu" };
	static const char *const kinds[] = { "discrete", "unified", "system" };
	cr_backend b = CR_BACKEND_COUNT;
	cr_mem_kind k = CR_MEM_KIND_COUNT;

	(void)state;
	for (int i = 0; i < CR_BACKEND_COUNT; i++) {
		assert_string_equal(cr_backend_name((cr_backend)i), backends[i]);
		assert_int_equal(cr_backend_parse(backends[i], &b), CR_OK);
		assert_int_equal(b, i);
	}
	for (int i = 0; i < CR_MEM_KIND_COUNT; i++) {
		assert_string_equal(cr_mem_kind_name((cr_mem_kind)i), kinds[i]);
		assert_int_equal(cr_mem_kind_parse(kinds[i], &k), CR_OK);
		assert_int_equal(k, i);
	}
	assert_string_equal(cr_backend_name(CR_BACKEND_COUNT), "?");
	assert_string_equal(cr_mem_kind_name(CR_MEM_KIND_COUNT), "?");
	assert_int_equal(cr_backend_parse("opencl", &b), CR_ERR_INVALID);
	assert_int_equal(cr_backend_parse("CUDA", &b), CR_ERR_INVALID);
	assert_int_equal(cr_mem_kind_parse("", &k), CR_ERR_INVALID);
}

/* ---- hostile documents -------------------------------------------------- */

/* Minimal valid documents. Each hostile row replaces one substring of one of
 * them (the substring must occur exactly once), or the whole document. */
#define QUANT_Q4 \
	"{\"id\":\"Q4_K_M\",\"bpw\":4.9,\"base_type\":\"Q4_K\",\"description\":\"4-bit\",\"source\":\"s\"}"
#define DEVICE_GPU                                                                     \
	"{\"name\":\"GPU\",\"count\":1,\"memory_gib\":24,\"bandwidth_gbs\":1000,"         \
	"\"fp16_tflops\":100,\"backend\":\"cuda\",\"kind\":\"discrete\"}"
#define RIG_GPU                                                                        \
	"{\"id\":\"gpu24\",\"name\":\"GPU 24\",\"reference\":false,\"status\":\"released\"," \
	"\"devices\":[" DEVICE_GPU "],\"sources\":[\"s\"]}"
#define MODEL_TINY                                                                      \
	"{\"id\":\"tiny\",\"name\":\"Tiny\",\"family\":\"t\",\"developer\":\"T\","        \
	"\"license\":\"mit\",\"released\":\"2025-01\",\"arch\":\"llama\","                \
	"\"params\":1000000000,\"active_params\":1000000000,\"context_max\":4096,"        \
	"\"vocab\":32000,\"layers\":4,\"hidden\":2048,\"ffn\":8192,\"heads\":16,"         \
	"\"kv_heads\":4,\"head_dim_k\":128,\"head_dim_v\":128,\"tied_embeddings\":false," \
	"\"sources\":[\"s\"]}"
#define QUANTS_DOC(list) "{\"schema\":\"clefrun.quants/1\",\"quants\":[" list "]}"
#define RIGS_DOC(list) "{\"schema\":\"clefrun.rigs/1\",\"rigs\":[" list "]}"
#define MODELS_DOC(list) "{\"schema\":\"clefrun.models/1\",\"models\":[" list "]}"

enum { F_MODELS = 0, F_QUANTS = 1, F_RIGS = 2 };

static const char *const base_docs[3] = {
	MODELS_DOC(MODEL_TINY), QUANTS_DOC(QUANT_Q4), RIGS_DOC(RIG_GPU)
};

typedef struct hostile_row {
	const char *name;
	int file;           /* F_MODELS, F_QUANTS or F_RIGS */
	const char *find;   /* substring of the base document; NULL: replace it all */
	const char *repl;
	int status;
	const char *message;
} hostile_row;

static const hostile_row hostile_rows[] = {
	/* -- top level -- */
	{ "empty file", F_QUANTS, NULL, "", CR_ERR_PARSE, "quants.json: empty file" },
	{ "top level not an object", F_QUANTS, NULL, "[]", CR_ERR_INVALID,
	  "quants.json: expected a JSON object at the top level" },
	{ "wrong schema", F_RIGS, "clefrun.rigs/1", "clefrun.rigs/2", CR_ERR_INVALID,
	  "rigs.json: schema: expected \"clefrun.rigs/1\", got \"clefrun.rigs/2\"" },
	{ "schema of another file", F_MODELS, "clefrun.models/1", "clefrun.rigs/1",
	  CR_ERR_INVALID,
	  "models.json: schema: expected \"clefrun.models/1\", got \"clefrun.rigs/1\"" },
	{ "schema not a string", F_QUANTS, "\"clefrun.quants/1\"", "1", CR_ERR_INVALID,
	  "quants.json: schema: expected a string" },
	{ "missing list", F_QUANTS, NULL, "{\"schema\":\"clefrun.quants/1\"}", CR_ERR_INVALID,
	  "quants.json: quants: missing field (expected an array)" },
	{ "list not an array", F_RIGS, NULL, "{\"schema\":\"clefrun.rigs/1\",\"rigs\":{}}",
	  CR_ERR_INVALID, "rigs.json: rigs: expected an array" },
	{ "empty list", F_MODELS, NULL, MODELS_DOC(""), CR_ERR_INVALID,
	  "models.json: models: empty list" },
	{ "unknown top-level field", F_QUANTS, "{\"schema\"", "{\"version\":1,\"schema\"",
	  CR_ERR_INVALID, "quants.json: version: unknown field" },
	{ "element not an object", F_QUANTS, NULL, QUANTS_DOC("\"Q4_K_M\""), CR_ERR_INVALID,
	  "quants.json: quants[0]: expected an object" },

	/* -- quants -- */
	{ "bpw zero", F_QUANTS, "\"bpw\":4.9", "\"bpw\":0", CR_ERR_INVALID,
	  "quants.json: quants[0].bpw: expected a positive number (1 to 32), got 0" },
	{ "bpw as a string", F_QUANTS, "\"bpw\":4.9", "\"bpw\":\"4.9\"", CR_ERR_INVALID,
	  "quants.json: quants[0].bpw: expected a number" },
	{ "bpw null", F_QUANTS, "\"bpw\":4.9", "\"bpw\":null", CR_ERR_INVALID,
	  "quants.json: quants[0].bpw: expected a number" },
	/* JSON has no NaN or Infinity: they are syntax errors, not numbers. */
	{ "bpw NaN", F_QUANTS, "\"bpw\":4.9", "\"bpw\":NaN", CR_ERR_PARSE,
	  "quants.json: invalid JSON at byte 60 (line 1, column 61)" },
	{ "bpw -Infinity", F_QUANTS, "\"bpw\":4.9", "\"bpw\":-Infinity", CR_ERR_PARSE,
	  "quants.json: invalid JSON at byte 60 (line 1, column 61)" },
	{ "bpw huge", F_QUANTS, "\"bpw\":4.9", "\"bpw\":1e308", CR_ERR_INVALID,
	  "quants.json: quants[0].bpw: expected a positive number (1 to 32), got 1e+308" },
	{ "quant id in lower case", F_QUANTS, "\"Q4_K_M\"", "\"q4_k_m\"", CR_ERR_INVALID,
	  "quants.json: quants[0].id: invalid id \"q4_k_m\" (allowed: A-Z 0-9 _)" },
	{ "quant id empty", F_QUANTS, "\"Q4_K_M\"", "\"\"", CR_ERR_INVALID,
	  "quants.json: quants[0].id: empty id" },
	{ "duplicate quant id", F_QUANTS, NULL, QUANTS_DOC(QUANT_Q4 "," QUANT_Q4), CR_ERR_INVALID,
	  "quants.json: quants[1].id: duplicate id \"Q4_K_M\" (also quants[0])" },
	{ "missing source", F_QUANTS, ",\"source\":\"s\"", "", CR_ERR_INVALID,
	  "quants.json: quants[0].source: missing field (expected a string)" },

	/* -- rigs -- */
	{ "negative bandwidth", F_RIGS, "\"bandwidth_gbs\":1000", "\"bandwidth_gbs\":-5",
	  CR_ERR_INVALID,
	  "rigs.json: rigs[0].devices[0].bandwidth_gbs: expected a positive number (0.001 to 1e+06), got -5" },
	{ "zero bandwidth", F_RIGS, "\"bandwidth_gbs\":1000", "\"bandwidth_gbs\":0",
	  CR_ERR_INVALID,
	  "rigs.json: rigs[0].devices[0].bandwidth_gbs: expected a positive number (0.001 to 1e+06), got 0" },
	{ "overflowing bandwidth (1e999 is inf)", F_RIGS, "\"bandwidth_gbs\":1000",
	  "\"bandwidth_gbs\":1e999", CR_ERR_INVALID,
	  "rigs.json: rigs[0].devices[0].bandwidth_gbs: expected a positive number (0.001 to 1e+06), got inf" },
	{ "huge memory", F_RIGS, "\"memory_gib\":24", "\"memory_gib\":1e6", CR_ERR_INVALID,
	  "rigs.json: rigs[0].devices[0].memory_gib: expected a positive number (0.001 to 65536), got 1e+06" },
	{ "negative tflops", F_RIGS, "\"fp16_tflops\":100", "\"fp16_tflops\":-1", CR_ERR_INVALID,
	  "rigs.json: rigs[0].devices[0].fp16_tflops: expected a number from 0 to 1e+06, got -1" },
	{ "negative bf16_tflops", F_RIGS, "\"fp16_tflops\":100", "\"fp16_tflops\":100,\"bf16_tflops\":-2",
	  CR_ERR_INVALID, "rigs.json: rigs[0].devices[0].bf16_tflops: expected a number from 0 to 1e+06, got -2" },
	{ "bf16_tflops a string", F_RIGS, "\"fp16_tflops\":100", "\"fp16_tflops\":100,\"bf16_tflops\":\"50\"",
	  CR_ERR_INVALID, "rigs.json: rigs[0].devices[0].bf16_tflops: expected a number" },
	{ "zero count", F_RIGS, "\"count\":1", "\"count\":0", CR_ERR_INVALID,
	  "rigs.json: rigs[0].devices[0].count: expected an integer from 1 to 64, got 0" },
	{ "fractional count", F_RIGS, "\"count\":1", "\"count\":2.5", CR_ERR_INVALID,
	  "rigs.json: rigs[0].devices[0].count: expected an integer from 1 to 64, got 2.5" },
	{ "negative count", F_RIGS, "\"count\":1", "\"count\":-1", CR_ERR_INVALID,
	  "rigs.json: rigs[0].devices[0].count: expected an integer from 1 to 64, got -1" },
	{ "count too large", F_RIGS, "\"count\":1", "\"count\":65", CR_ERR_INVALID,
	  "rigs.json: rigs[0].devices[0].count: expected an integer from 1 to 64, got 65" },
	{ "count as a string", F_RIGS, "\"count\":1", "\"count\":\"1\"", CR_ERR_INVALID,
	  "rigs.json: rigs[0].devices[0].count: expected an integer" },
	{ "usable_fraction zero", F_RIGS, "\"kind\":\"discrete\"",
	  "\"kind\":\"discrete\",\"usable_fraction\":0", CR_ERR_INVALID,
	  "rigs.json: rigs[0].devices[0].usable_fraction: expected a positive number (0.01 to 1), got 0" },
	{ "usable_fraction above 1", F_RIGS, "\"kind\":\"discrete\"",
	  "\"kind\":\"discrete\",\"usable_fraction\":1.5", CR_ERR_INVALID,
	  "rigs.json: rigs[0].devices[0].usable_fraction: expected a positive number (0.01 to 1), got 1.5" },
	{ "unknown memory type", F_RIGS, "\"kind\":\"discrete\"",
	  "\"kind\":\"discrete\",\"memory\":\"hbm3\"", CR_ERR_INVALID,
	  "rigs.json: rigs[0].devices[0].memory: expected one of hbm, gddr, lpddr, ddr, got \"hbm3\"" },
	{ "memory type auto is not a catalog value", F_RIGS, "\"kind\":\"discrete\"",
	  "\"kind\":\"discrete\",\"memory\":\"auto\"", CR_ERR_INVALID,
	  "rigs.json: rigs[0].devices[0].memory: expected one of hbm, gddr, lpddr, ddr, got \"auto\"" },
	{ "unknown vendor", F_RIGS, "\"kind\":\"discrete\"",
	  "\"kind\":\"discrete\",\"vendor\":\"NVIDIA\"", CR_ERR_INVALID,
	  "rigs.json: rigs[0].devices[0].vendor: expected one of nvidia, amd, apple, intel, other, got \"NVIDIA\"" },
	{ "unknown backend", F_RIGS, "\"cuda\"", "\"opencl\"", CR_ERR_INVALID,
	  "rigs.json: rigs[0].devices[0].backend: expected one of cuda, metal, rocm, vulkan, cpu, got \"opencl\"" },
	{ "backend in upper case", F_RIGS, "\"cuda\"", "\"CUDA\"", CR_ERR_INVALID,
	  "rigs.json: rigs[0].devices[0].backend: expected one of cuda, metal, rocm, vulkan, cpu, got \"CUDA\"" },
	{ "unknown memory kind", F_RIGS, "\"discrete\"", "\"hbm\"", CR_ERR_INVALID,
	  "rigs.json: rigs[0].devices[0].kind: expected one of discrete, unified, system, got \"hbm\"" },
	{ "unknown status", F_RIGS, "\"released\"", "\"beta\"", CR_ERR_INVALID,
	  "rigs.json: rigs[0].status: expected \"released\" or \"unreleased\", got \"beta\"" },
	{ "missing name", F_RIGS, "\"name\":\"GPU 24\",", "", CR_ERR_INVALID,
	  "rigs.json: rigs[0].name: missing field (expected a string)" },
	{ "missing device name", F_RIGS, "\"name\":\"GPU\",", "", CR_ERR_INVALID,
	  "rigs.json: rigs[0].devices[0].name: missing field (expected a string)" },
	{ "reference as a string", F_RIGS, "\"reference\":false", "\"reference\":\"no\"",
	  CR_ERR_INVALID, "rigs.json: rigs[0].reference: expected true or false" },
	{ "missing reference", F_RIGS, "\"reference\":false,", "", CR_ERR_INVALID,
	  "rigs.json: rigs[0].reference: missing field (expected true or false)" },
	{ "sources as a string", F_RIGS, "\"sources\":[\"s\"]", "\"sources\":\"s\"", CR_ERR_INVALID,
	  "rigs.json: rigs[0].sources: expected an array" },
	{ "no sources", F_RIGS, "\"sources\":[\"s\"]", "\"sources\":[]", CR_ERR_INVALID,
	  "rigs.json: rigs[0].sources: expected at least one source" },
	{ "five sources", F_RIGS, "\"sources\":[\"s\"]",
	  "\"sources\":[\"a\",\"b\",\"c\",\"d\",\"e\"]", CR_ERR_INVALID,
	  "rigs.json: rigs[0].sources: at most 4 sources" },
	{ "empty source", F_RIGS, "\"sources\":[\"s\"]", "\"sources\":[\"\"]", CR_ERR_INVALID,
	  "rigs.json: rigs[0].sources[0]: empty source" },
	{ "source not a string", F_RIGS, "\"sources\":[\"s\"]", "\"sources\":[\"a\",7]",
	  CR_ERR_INVALID, "rigs.json: rigs[0].sources[1]: expected a string" },
	{ "unknown rig field", F_RIGS, "\"reference\":false",
	  "\"reference\":false,\"colour\":\"red\"", CR_ERR_INVALID,
	  "rigs.json: rigs[0].colour: unknown field" },
	{ "unknown device field", F_RIGS, "\"count\":1", "\"count\":1,\"Count\":1", CR_ERR_INVALID,
	  "rigs.json: rigs[0].devices[0].Count: unknown field" },
	{ "duplicate key in one object", F_RIGS, "\"id\":\"gpu24\"",
	  "\"id\":\"gpu24\",\"id\":\"gpu25\"", CR_ERR_INVALID,
	  "rigs.json: rigs[0].id: duplicate field" },
	{ "duplicate key in a device", F_RIGS, "\"memory_gib\":24",
	  "\"memory_gib\":24,\"memory_gib\":2400", CR_ERR_INVALID,
	  "rigs.json: rigs[0].devices[0].memory_gib: duplicate field" },
	{ "rig id in upper case", F_RIGS, "\"gpu24\"", "\"GPU24\"", CR_ERR_INVALID,
	  "rigs.json: rigs[0].id: invalid id \"GPU24\" (allowed: a-z 0-9, then . + _ -)" },
	{ "rig id starting with a dash", F_RIGS, "\"gpu24\"", "\"-gpu\"", CR_ERR_INVALID,
	  "rigs.json: rigs[0].id: invalid id \"-gpu\" (allowed: a-z 0-9, then . + _ -)" },
	{ "rig id of 48 characters", F_RIGS, "\"gpu24\"",
	  "\"abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuv\"", CR_ERR_INVALID,
	  "rigs.json: rigs[0].id: id longer than 47 characters" },
	{ "rig id far too long", F_RIGS, "\"gpu24\"",
	  "\"abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyz"
	  "abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyz\"", CR_ERR_INVALID,
	  "rigs.json: rigs[0].id: string too long (130 bytes, at most 127)" },
	{ "duplicate rig id", F_RIGS, NULL, RIGS_DOC(RIG_GPU "," RIG_GPU), CR_ERR_INVALID,
	  "rigs.json: rigs[1].id: duplicate id \"gpu24\" (also rigs[0])" },
	{ "no devices", F_RIGS, NULL,
	  RIGS_DOC("{\"id\":\"gpu24\",\"name\":\"G\",\"reference\":false,\"status\":\"released\","
		   "\"devices\":[],\"sources\":[\"s\"]}"),
	  CR_ERR_INVALID, "rigs.json: rigs[0].devices: expected 1 to 4 device groups" },
	{ "five device groups", F_RIGS, "[" DEVICE_GPU "]",
	  "[" DEVICE_GPU "," DEVICE_GPU "," DEVICE_GPU "," DEVICE_GPU "," DEVICE_GPU "]",
	  CR_ERR_INVALID, "rigs.json: rigs[0].devices: expected 1 to 4 device groups" },
	{ "second device broken", F_RIGS, "[" DEVICE_GPU "]", "[" DEVICE_GPU ",7]",
	  CR_ERR_INVALID, "rigs.json: rigs[0].devices[1]: expected an object" },
	{ "seed missing a figure", F_RIGS, "\"sources\"",
	  "\"seed\":{\"memory_gb\":24},\"sources\"", CR_ERR_INVALID,
	  "rigs.json: rigs[0].seed.bandwidth_gbs: missing field (expected a number)" },
	{ "seed not an object", F_RIGS, "\"sources\"", "\"seed\":24,\"sources\"", CR_ERR_INVALID,
	  "rigs.json: rigs[0].seed: expected an object" },
	{ "invalid UTF-8 (stray byte)", F_RIGS, "\"GPU 24\"", "\"GPU \xff\"", CR_ERR_INVALID,
	  "rigs.json: rigs[0].name: invalid UTF-8" },
	{ "invalid UTF-8 (overlong '/')", F_RIGS, "\"GPU 24\"", "\"GPU \xc0\xaf\"",
	  CR_ERR_INVALID, "rigs.json: rigs[0].name: invalid UTF-8" },
	{ "invalid UTF-8 (surrogate)", F_RIGS, "\"GPU 24\"", "\"GPU \xed\xa0\x80\"",
	  CR_ERR_INVALID, "rigs.json: rigs[0].name: invalid UTF-8" },
	{ "invalid UTF-8 (truncated)", F_RIGS, "\"GPU\"", "\"GPU \xe2\x82\"", CR_ERR_INVALID,
	  "rigs.json: rigs[0].devices[0].name: invalid UTF-8" },

	/* -- models -- */
	{ "fractional layer count", F_MODELS, "\"layers\":4", "\"layers\":4.5", CR_ERR_INVALID,
	  "models.json: models[0].layers: expected an integer from 1 to 512, got 4.5" },
	{ "zero layers", F_MODELS, "\"layers\":4", "\"layers\":0", CR_ERR_INVALID,
	  "models.json: models[0].layers: expected an integer from 1 to 512, got 0" },
	{ "too many layers", F_MODELS, "\"layers\":4", "\"layers\":513", CR_ERR_INVALID,
	  "models.json: models[0].layers: expected an integer from 1 to 512, got 513" },
	{ "overflowing params", F_MODELS, "\"params\":1000000000", "\"params\":1e999",
	  CR_ERR_INVALID,
	  "models.json: models[0].params: expected an integer from 1000 to 100000000000000, got inf" },
	{ "params beyond 2^53", F_MODELS, "\"params\":1000000000", "\"params\":1e17",
	  CR_ERR_INVALID,
	  "models.json: models[0].params: expected an integer from 1000 to 100000000000000, got 1e+17" },
	{ "more active params than params", F_MODELS, "\"active_params\":1000000000",
	  "\"active_params\":2000000000", CR_ERR_INVALID,
	  "models.json: models[0].active_params: expected an integer from 1000 to 1000000000, got 2e+09" },
	{ "zero context", F_MODELS, "\"context_max\":4096", "\"context_max\":0", CR_ERR_INVALID,
	  "models.json: models[0].context_max: expected an integer from 1 to 1073741824, got 0" },
	{ "missing vocab", F_MODELS, "\"vocab\":32000,", "", CR_ERR_INVALID,
	  "models.json: models[0].vocab: missing field (expected an integer)" },
	{ "missing kv_heads", F_MODELS, "\"kv_heads\":4,", "", CR_ERR_INVALID,
	  "models.json: models[0].kv_heads: missing field (expected an integer or an array)" },
	{ "kv_heads above heads", F_MODELS, "\"kv_heads\":4", "\"kv_heads\":17", CR_ERR_INVALID,
	  "models.json: models[0].kv_heads: expected an integer from 0 to 16, got 17" },
	{ "kv_heads as a string", F_MODELS, "\"kv_heads\":4", "\"kv_heads\":\"4\"",
	  CR_ERR_INVALID, "models.json: models[0].kv_heads: expected an integer" },
	{ "kv_heads array of the wrong length", F_MODELS, "\"kv_heads\":4",
	  "\"kv_heads\":[4,4,4]", CR_ERR_INVALID,
	  "models.json: models[0].kv_heads: expected 4 values (one per layer), got 3" },
	{ "kv_heads array with a bad value", F_MODELS, "\"kv_heads\":4",
	  "\"kv_heads\":[4,4,4,-1]", CR_ERR_INVALID,
	  "models.json: models[0].kv_heads[3]: expected an integer from 0 to 16, got -1" },
	{ "layer_pattern with a bad letter", F_MODELS, "\"tied_embeddings\"",
	  "\"layer_pattern\":\"FFX\",\"tied_embeddings\"", CR_ERR_INVALID,
	  "models.json: models[0].layer_pattern: unexpected 'X' at 2 (expected F, S, L, M or -)" },
	{ "layer_pattern in lower case", F_MODELS, "\"tied_embeddings\"",
	  "\"layer_pattern\":\"f\",\"tied_embeddings\"", CR_ERR_INVALID,
	  "models.json: models[0].layer_pattern: unexpected 'f' at 0 (expected F, S, L, M or -)" },
	{ "empty layer_pattern", F_MODELS, "\"tied_embeddings\"",
	  "\"layer_pattern\":\"\",\"tied_embeddings\"", CR_ERR_INVALID,
	  "models.json: models[0].layer_pattern: empty pattern" },
	{ "S in the pattern without window", F_MODELS, "\"tied_embeddings\"",
	  "\"layer_pattern\":\"SF\",\"tied_embeddings\"", CR_ERR_INVALID,
	  "models.json: models[0].window: missing field (layer_pattern has sliding layers)" },
	{ "window without S in the pattern", F_MODELS, "\"tied_embeddings\"",
	  "\"window\":1024,\"tied_embeddings\"", CR_ERR_INVALID,
	  "models.json: models[0].window: given, but layer_pattern has no sliding layers" },
	{ "zero window", F_MODELS, "\"tied_embeddings\"",
	  "\"layer_pattern\":\"SF\",\"window\":0,\"tied_embeddings\"", CR_ERR_INVALID,
	  "models.json: models[0].window: expected an integer from 1 to 1073741824, got 0" },
	{ "L in the pattern without linear_attention", F_MODELS, "\"tied_embeddings\"",
	  "\"layer_pattern\":\"LF\",\"tied_embeddings\"", CR_ERR_INVALID,
	  "models.json: models[0].linear_attention: missing field (expected an object)" },
	{ "linear_attention without L in the pattern", F_MODELS, "\"tied_embeddings\"",
	  "\"linear_attention\":{\"k_heads\":1,\"k_head_dim\":1,\"v_heads\":1,"
	  "\"v_head_dim\":1,\"conv_kernel\":4},\"tied_embeddings\"",
	  CR_ERR_INVALID,
	  "models.json: models[0].linear_attention: given, but layer_pattern has no linear-attention layers" },
	{ "linear_attention missing a dimension", F_MODELS, "\"tied_embeddings\"",
	  "\"layer_pattern\":\"LF\",\"linear_attention\":{\"k_heads\":1,\"k_head_dim\":1,"
	  "\"v_heads\":1,\"v_head_dim\":1},\"tied_embeddings\"",
	  CR_ERR_INVALID,
	  "models.json: models[0].linear_attention.conv_kernel: missing field (expected an integer)" },
#define MAMBA_OK "\"mamba\":{\"d_state\":128,\"n_groups\":8,\"heads\":64,\"head_dim\":64,\"conv_kernel\":4},"
	{ "M in the pattern without mamba", F_MODELS, "\"tied_embeddings\"",
	  "\"layer_pattern\":\"MF\",\"tied_embeddings\"", CR_ERR_INVALID,
	  "models.json: models[0].mamba: missing field (expected an object)" },
	{ "mamba without M in the pattern", F_MODELS, "\"tied_embeddings\"",
	  MAMBA_OK "\"tied_embeddings\"", CR_ERR_INVALID,
	  "models.json: models[0].mamba: given, but layer_pattern has no Mamba-2 (M) layers" },
	{ "mamba missing a dimension", F_MODELS, "\"tied_embeddings\"",
	  "\"layer_pattern\":\"MF\",\"mamba\":{\"d_state\":128,\"n_groups\":8,\"heads\":64,"
	  "\"conv_kernel\":4},\"tied_embeddings\"", CR_ERR_INVALID,
	  "models.json: models[0].mamba.head_dim: missing field (expected an integer)" },
	{ "mamba with an unknown field", F_MODELS, "\"tied_embeddings\"",
	  "\"layer_pattern\":\"MF\",\"mamba\":{\"d_state\":128,\"n_groups\":8,\"heads\":64,"
	  "\"head_dim\":64,\"conv_kernel\":4,\"expand\":2},\"tied_embeddings\"", CR_ERR_INVALID,
	  "models.json: models[0].mamba.expand: unknown field" },
	{ "mamba zero d_state", F_MODELS, "\"tied_embeddings\"",
	  "\"layer_pattern\":\"MF\",\"mamba\":{\"d_state\":0,\"n_groups\":8,\"heads\":64,"
	  "\"head_dim\":64,\"conv_kernel\":4},\"tied_embeddings\"", CR_ERR_INVALID,
	  "models.json: models[0].mamba.d_state: expected an integer from 1 to 65536, got 0" },
	{ "mamba groups not dividing the heads", F_MODELS, "\"tied_embeddings\"",
	  "\"layer_pattern\":\"MF\",\"mamba\":{\"d_state\":128,\"n_groups\":3,\"heads\":64,"
	  "\"head_dim\":64,\"conv_kernel\":4},\"tied_embeddings\"", CR_ERR_INVALID,
	  "models.json: models[0].mamba.n_groups: 3 groups do not divide 64 heads" },
	{ "mamba not an object", F_MODELS, "\"tied_embeddings\"",
	  "\"layer_pattern\":\"MF\",\"mamba\":4,\"tied_embeddings\"", CR_ERR_INVALID,
	  "models.json: models[0].mamba: expected an object" },
	{ "L and M in one pattern", F_MODELS, "\"tied_embeddings\"",
	  "\"layer_pattern\":\"LM\"," MAMBA_OK "\"tied_embeddings\"", CR_ERR_INVALID,
	  "models.json: models[0].layer_pattern: both L and M layers (a model has one kind of recurrent layer)" },
	{ "mixer_ffn false without FFN-only layers", F_MODELS, "\"tied_embeddings\"",
	  "\"layer_pattern\":\"MF\"," MAMBA_OK "\"mixer_ffn\":false,\"tied_embeddings\"", CR_ERR_INVALID,
	  "models.json: models[0].mixer_ffn: false, but layer_pattern has no '-' (FFN-only) layers: no layer "
	  "would have an FFN" },
	{ "mixer_ffn not a bool", F_MODELS, "\"tied_embeddings\"",
	  "\"layer_pattern\":\"M-\"," MAMBA_OK "\"mixer_ffn\":0,\"tied_embeddings\"", CR_ERR_INVALID,
	  "models.json: models[0].mixer_ffn: expected true or false" },
	{ "kv_heads array with KV on a Mamba layer", F_MODELS, "\"kv_heads\":4,",
	  "\"kv_heads\":[0,4,4,4],\"layer_pattern\":\"FM-F\"," MAMBA_OK, CR_ERR_INVALID,
	  "models.json: models[0].kv_heads[1]: 4 on a layer without attention (layer_pattern 'M'); expected 0" },
#undef MAMBA_OK
	{ "token table above params", F_MODELS, "\"vocab\":32000,", "\"vocab\":600000,", CR_ERR_INVALID,
	  "models.json: models[0].vocab: 600000 x hidden 2048 puts 1228800000 parameters in the token table, more than "
	  "params (1000000000)" },
	{ "routed experts above params", F_MODELS, "\"active_params\":1000000000",
	  "\"active_params\":100000000,\"experts\":{\"total\":8,\"used\":2,\"shared\":0}", CR_ERR_INVALID,
	  "models.json: models[0].active_params: 100000000 with 2 of 8 experts used: the routed experts would hold "
	  "1200000000 parameters, more than params (1000000000)" },
	{ "experts.used above experts.total", F_MODELS, "\"tied_embeddings\"",
	  "\"experts\":{\"total\":8,\"used\":9,\"shared\":0},\"tied_embeddings\"",
	  CR_ERR_INVALID, "models.json: models[0].experts.used: more experts used (9) than exist (8)" },
	{ "experts.dense_layers without dense_ffn", F_MODELS, "\"tied_embeddings\"",
	  "\"experts\":{\"total\":8,\"used\":2,\"shared\":0,\"dense_layers\":1},\"tied_embeddings\"",
	  CR_ERR_INVALID,
	  "models.json: models[0].experts.dense_ffn: dense_layers and dense_ffn come together" },
	{ "experts.dense_layers on every layer", F_MODELS, "\"tied_embeddings\"",
	  "\"experts\":{\"total\":8,\"used\":2,\"shared\":0,\"dense_layers\":4,\"dense_ffn\":64},"
	  "\"tied_embeddings\"",
	  CR_ERR_INVALID,
	  "models.json: models[0].experts.dense_layers: 4 dense layers of 4 (at least one layer must be MoE)" },
	{ "experts.every without dense_ffn", F_MODELS, "\"tied_embeddings\"",
	  "\"experts\":{\"total\":8,\"used\":2,\"shared\":0,\"every\":2},\"tied_embeddings\"",
	  CR_ERR_INVALID,
	  "models.json: models[0].experts.dense_ffn: missing field (experts.every leaves dense layers between the MoE ones)" },
	{ "experts.every of 1", F_MODELS, "\"tied_embeddings\"",
	  "\"experts\":{\"total\":8,\"used\":2,\"shared\":0,\"every\":1,\"dense_ffn\":64},\"tied_embeddings\"",
	  CR_ERR_INVALID, "models.json: models[0].experts.every: expected an integer from 2 to 1048576, got 1" },
	{ "vision missing a dimension", F_MODELS, "\"tied_embeddings\"",
	  "\"vision\":{\"layers\":1,\"hidden\":8,\"ffn\":8,\"patch\":2,\"temporal_patch\":1,"
	  "\"positions\":4},\"tied_embeddings\"",
	  CR_ERR_INVALID, "models.json: models[0].vision.merge: missing field (expected an integer)" },
	{ "vision deepstack zero", F_MODELS, "\"tied_embeddings\"",
	  "\"vision\":{\"layers\":2,\"hidden\":64,\"ffn\":128,\"patch\":16,\"temporal_patch\":2,"
	  "\"positions\":4,\"merge\":2,\"deepstack\":0},\"tied_embeddings\"", CR_ERR_INVALID,
	  "models.json: models[0].vision.deepstack: expected an integer from 1 to 1048576, got 0" },
	{ "mla.q_lora_rank zero", F_MODELS, "\"tied_embeddings\"",
	  "\"mla\":{\"kv_lora_rank\":8,\"rope_dim\":0,\"q_lora_rank\":0},\"tied_embeddings\"",
	  CR_ERR_INVALID, "models.json: models[0].mla.q_lora_rank: expected an integer from 1 to 1048576, got 0" },
	{ "alias equal to the model's id", F_MODELS, "\"tied_embeddings\"",
	  "\"aliases\":[\"TINY\"],\"tied_embeddings\"", CR_ERR_INVALID,
	  "models.json: models[0].aliases[0]: \"TINY\" is the id of models[0]" },
	{ "alias twice in one model", F_MODELS, "\"tied_embeddings\"",
	  "\"aliases\":[\"org/tiny-1b\",\"ORG/Tiny-1B\"],\"tied_embeddings\"", CR_ERR_INVALID,
	  "models.json: models[0].aliases[1]: \"ORG/Tiny-1B\" is also models[0].aliases[0]" },
	{ "alias equal to another model's id", F_MODELS, "\"sources\":[\"s\"]}",
	  "\"sources\":[\"s\"]},{\"id\":\"tiny2\",\"name\":\"Tiny 2\",\"family\":\"t\","
	  "\"developer\":\"T\",\"license\":\"mit\",\"released\":\"2025-01\",\"arch\":\"llama\","
	  "\"params\":1000000000,\"active_params\":1000000000,\"context_max\":4096,"
	  "\"vocab\":32000,\"layers\":4,\"hidden\":2048,\"ffn\":8192,\"heads\":16,"
	  "\"kv_heads\":4,\"head_dim_k\":128,\"head_dim_v\":128,\"tied_embeddings\":false,"
	  "\"aliases\":[\"tiny:1b\",\"Tiny\"],\"sources\":[\"s\"]}",
	  CR_ERR_INVALID, "models.json: models[1].aliases[1]: \"Tiny\" is the id of models[0]" },
	{ "alias with a space", F_MODELS, "\"tied_embeddings\"",
	  "\"aliases\":[\"tiny 1b\"],\"tied_embeddings\"", CR_ERR_INVALID,
	  "models.json: models[0].aliases[0]: unexpected character 0x20 at 4 (letters, digits and . _ - : / + only)" },
	{ "alias with an escape", F_MODELS, "\"tied_embeddings\"",
	  "\"aliases\":[\"t\\u001b[31m\"],\"tied_embeddings\"", CR_ERR_INVALID,
	  "models.json: models[0].aliases[0]: unexpected character 0x1b at 1 (letters, digits and . _ - : / + only)" },
	{ "empty alias", F_MODELS, "\"tied_embeddings\"",
	  "\"aliases\":[\"\"],\"tied_embeddings\"", CR_ERR_INVALID,
	  "models.json: models[0].aliases[0]: empty alias" },
	{ "too many aliases", F_MODELS, "\"tied_embeddings\"",
	  "\"aliases\":[\"a\",\"b\",\"c\",\"d\",\"e\",\"f\",\"g\"],\"tied_embeddings\"",
	  CR_ERR_INVALID, "models.json: models[0].aliases: at most 6 aliases" },
	{ "aliases not an array", F_MODELS, "\"tied_embeddings\"",
	  "\"aliases\":\"tiny:1b\",\"tied_embeddings\"", CR_ERR_INVALID,
	  "models.json: models[0].aliases: expected an array" },
	{ "mtp_layers without a source", F_MODELS, "\"tied_embeddings\"",
	  "\"mtp_layers\":1,\"tied_embeddings\"", CR_ERR_INVALID,
	  "models.json: models[0].mtp_source: missing field (mtp_layers is 1)" },
	{ "mtp_source without layers", F_MODELS, "\"tied_embeddings\"",
	  "\"mtp_source\":\"https://x\",\"tied_embeddings\"", CR_ERR_INVALID,
	  "models.json: models[0].mtp_source: given, but mtp_layers is 0 or missing" },
	{ "mtp_source not https", F_MODELS, "\"tied_embeddings\"",
	  "\"mtp_layers\":1,\"mtp_source\":\"x\",\"tied_embeddings\"", CR_ERR_INVALID,
	  "models.json: models[0].mtp_source: not an https URL" },
	{ "mtp_layers out of range", F_MODELS, "\"tied_embeddings\"",
	  "\"mtp_layers\":17,\"mtp_source\":\"https://x\",\"tied_embeddings\"", CR_ERR_INVALID,
	  "models.json: models[0].mtp_layers: expected an integer from 0 to 16, got 17" },
	{ "native_quant on a dense model", F_MODELS, "\"tied_embeddings\"",
	  "\"native_quant\":{\"type\":\"MXFP4\",\"bpw\":4.25,\"tensors\":\"experts\",\"source\":\"s\"},"
	  "\"tied_embeddings\"",
	  CR_ERR_INVALID,
	  "models.json: models[0].native_quant.tensors: \"experts\" needs a mixture-of-experts model (experts.total above experts.used)" },
	{ "native_quant of other tensors", F_MODELS, "\"tied_embeddings\"",
	  "\"experts\":{\"total\":8,\"used\":2,\"shared\":0},\"native_quant\":{\"type\":\"MXFP4\","
	  "\"bpw\":4.25,\"tensors\":\"all\",\"source\":\"s\"},\"tied_embeddings\"",
	  CR_ERR_INVALID, "models.json: models[0].native_quant.tensors: expected \"experts\", got \"all\"" },
	{ "native_quant bpw out of range", F_MODELS, "\"tied_embeddings\"",
	  "\"experts\":{\"total\":8,\"used\":2,\"shared\":0},\"native_quant\":{\"type\":\"MXFP4\","
	  "\"bpw\":0,\"tensors\":\"experts\",\"source\":\"s\"},\"tied_embeddings\"",
	  CR_ERR_INVALID, "models.json: models[0].native_quant.bpw: expected a positive number (1 to 16), got 0" },
	{ "native_quant without a source", F_MODELS, "\"tied_embeddings\"",
	  "\"experts\":{\"total\":8,\"used\":2,\"shared\":0},\"native_quant\":{\"type\":\"MXFP4\","
	  "\"bpw\":4.25,\"tensors\":\"experts\"},\"tied_embeddings\"",
	  CR_ERR_INVALID, "models.json: models[0].native_quant.source: missing field (expected a string)" },
	{ "native_quant type in lower case", F_MODELS, "\"tied_embeddings\"",
	  "\"experts\":{\"total\":8,\"used\":2,\"shared\":0},\"native_quant\":{\"type\":\"mxfp4\","
	  "\"bpw\":4.25,\"tensors\":\"experts\",\"source\":\"s\"},\"tied_embeddings\"",
	  CR_ERR_INVALID, "models.json: models[0].native_quant.type: invalid id \"mxfp4\" (allowed: A-Z 0-9 _)" },
	{ "experts with an unknown field", F_MODELS, "\"tied_embeddings\"",
	  "\"experts\":{\"total\":8,\"used\":2,\"routed\":2},\"tied_embeddings\"",
	  CR_ERR_INVALID, "models.json: models[0].experts.routed: unknown field" },
	{ "mla with a zero rank", F_MODELS, "\"tied_embeddings\"",
	  "\"mla\":{\"kv_lora_rank\":0,\"rope_dim\":64},\"tied_embeddings\"", CR_ERR_INVALID,
	  "models.json: models[0].mla.kv_lora_rank: expected an integer from 1 to 1048576, got 0" },
	{ "unknown model field", F_MODELS, "\"tied_embeddings\"",
	  "\"kv_head\":4,\"tied_embeddings\"", CR_ERR_INVALID,
	  "models.json: models[0].kv_head: unknown field" },
	{ "unknown task", F_MODELS, "\"tied_embeddings\"", "\"task\":\"chat\",\"tied_embeddings\"",
	  CR_ERR_INVALID, "models.json: models[0].task: expected one of generation, embedding, rerank, got \"chat\"" },
	{ "task in upper case", F_MODELS, "\"tied_embeddings\"", "\"task\":\"Embedding\",\"tied_embeddings\"",
	  CR_ERR_INVALID, "models.json: models[0].task: expected one of generation, embedding, rerank, got \"Embedding\"" },
	{ "task as a number", F_MODELS, "\"tied_embeddings\"", "\"task\":1,\"tied_embeddings\"",
	  CR_ERR_INVALID, "models.json: models[0].task: expected a string" },
	{ "tied_embeddings as a number", F_MODELS, "\"tied_embeddings\":false",
	  "\"tied_embeddings\":0", CR_ERR_INVALID,
	  "models.json: models[0].tied_embeddings: expected true or false" },
	{ "notes as a number", F_MODELS, "\"tied_embeddings\"", "\"notes\":1,\"tied_embeddings\"",
	  CR_ERR_INVALID, "models.json: models[0].notes: expected a string" },
	{ "model id with a space", F_MODELS, "\"tiny\"", "\"ti ny\"", CR_ERR_INVALID,
	  "models.json: models[0].id: invalid id \"ti ny\" (allowed: a-z 0-9, then . + _ -)" },
	{ "model id of 48 characters", F_MODELS, "\"tiny\"",
	  "\"abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuv\"", CR_ERR_INVALID,
	  "models.json: models[0].id: string too long (48 bytes, at most 47)" },
	{ "duplicate model id", F_MODELS, NULL, MODELS_DOC(MODEL_TINY "," MODEL_TINY),
	  CR_ERR_INVALID, "models.json: models[1].id: duplicate id \"tiny\" (also models[0])" },
	{ "unknown backbone", F_MODELS, "\"tied_embeddings\"",
	  "\"backbone\":\"qwen9\",\"tied_embeddings\"", CR_ERR_INVALID,
	  "models.json: models[0].backbone: unknown model id \"qwen9\"" },

	/* -- JSON syntax -- */
	{ "invalid JSON", F_QUANTS, NULL, "{\"schema\":\"clefrun.quants/1\",\n\"quants\":[tru]}",
	  CR_ERR_PARSE, "quants.json: invalid JSON at byte 40 (line 2, column 11)" },
	{ "unterminated document", F_RIGS, NULL, "{\"schema\":", CR_ERR_PARSE,
	  "rigs.json: invalid JSON at byte 9 (line 1, column 10)" },
};

/* Build the hostile variant of one document into a malloc'd buffer. */
static char *mutate(const hostile_row *row, size_t *len)
{
	const char *base = base_docs[row->file];
	size_t nb = strlen(base), nr = strlen(row->repl), nf, pre;
	const char *at;
	char *out;

	if (!row->find) {
		out = malloc(nr + 1);
		assert_non_null(out);
		memcpy(out, row->repl, nr + 1);
		*len = nr;
		return out;
	}
	at = strstr(base, row->find);
	if (!at || strstr(at + 1, row->find))
		fail_msg("row \"%s\": \"%s\" must occur exactly once in the base document",
			 row->name, row->find);
	nf = strlen(row->find);
	pre = (size_t)(at - base);
	out = malloc(nb - nf + nr + 1);
	assert_non_null(out);
	memcpy(out, base, pre);
	memcpy(out + pre, row->repl, nr);
	memcpy(out + pre + nr, at + nf, nb - pre - nf + 1);
	*len = nb - nf + nr;
	return out;
}

static int load3(const char *const docs[3], const size_t lens[3], cr_catalog **cat,
		 cr_error *err)
{
	return cr_catalog_load_buffers(docs[F_MODELS], lens[F_MODELS], docs[F_QUANTS],
				       lens[F_QUANTS], docs[F_RIGS], lens[F_RIGS], NULL, cat, err);
}

static void test_base_documents_load(void **state)
{
	size_t lens[3];
	cr_catalog *cat = NULL;
	cr_error err = CR_ERROR_INIT;
	const cr_model *m;
	const cr_rig *r;

	(void)state;
	for (int i = 0; i < 3; i++)
		lens[i] = strlen(base_docs[i]);
	assert_int_equal(load3(base_docs, lens, &cat, &err), CR_OK);
	assert_int_equal(cr_catalog_model_count(cat), 1);
	assert_int_equal(cr_catalog_quant_count(cat), 1);
	assert_int_equal(cr_catalog_rig_count(cat), 1);
	m = cr_catalog_model_at(cat, 0);
	/* Defaults: layer_pattern "F", no window, no experts, no MLA. */
	assert_int_equal(cr_model_count_layers(m, CR_LAYER_FULL), 4);
	assert_int_equal(cr_model_kv_layers(m), 4);
	assert_int_equal(m->window, 0);
	assert_int_equal(m->experts_total, 0);
	assert_false(m->mla);
	assert_int_equal(m->kv_heads[3], 4);
	r = cr_catalog_rig_at(cat, 0);
	assert_int_equal(r->devices[0].kind, CR_MEM_DISCRETE);
	assert_true(r->devices[0].usable_fraction == 1.0);
	assert_true(r->interconnect_gbs == 0.0);
	assert_true(cr_catalog_quant_at(cat, 0)->bpw == 4.9);
	cr_catalog_free(cat);
	cr_catalog_free(NULL);
}

static void test_hostile_documents(void **state)
{
	unsigned bad = 0;

	(void)state;
	for (size_t i = 0; i < UNIT_ARRAY_LEN(hostile_rows); i++) {
		const hostile_row *row = &hostile_rows[i];
		const char *docs[3];
		size_t lens[3];
		char *doc;
		/* A non-NULL sentinel: the loader must reset *out on failure. */
		cr_catalog *cat = (cr_catalog *)&bad;
		cr_error err = CR_ERROR_INIT;
		int rc;

		for (int f = 0; f < 3; f++) {
			docs[f] = base_docs[f];
			lens[f] = strlen(base_docs[f]);
		}
		doc = mutate(row, &lens[row->file]);
		docs[row->file] = doc;
		rc = load3(docs, lens, &cat, &err);
		if (!unit_check_error(row->name, rc, &err, row->status, row->message))
			bad++;
		if (rc == CR_OK)
			cr_catalog_free(cat);
		else if (cat != NULL) {
			print_error("row \"%s\": *out not reset on failure\n", row->name);
			bad++;
		}
		/* The same failure without an error record must not crash. */
		cat = NULL;
		if (cr_catalog_load_buffers(docs[0], lens[0], docs[1], lens[1], docs[2], lens[2],
					    NULL, &cat, NULL) != row->status) {
			print_error("row \"%s\": status differs without an error record\n",
				    row->name);
			bad++;
		}
		if (cat)
			cr_catalog_free(cat);
		free(doc);
	}
	UNIT_TABLE_DONE(bad, UNIT_ARRAY_LEN(hostile_rows));
}

/* Messages use the caller's file names. */
static void test_buffer_names(void **state)
{
	static const char *const names[3] = { "m.json", "q.json", "r.json" };
	char rigs[] = RIGS_DOC(RIG_GPU);
	char *bw = strstr(rigs, "1000");
	cr_catalog *cat = NULL;
	cr_error err = CR_ERROR_INIT;
	int rc;

	(void)state;
	memcpy(bw, "-100", 4);
	rc = cr_catalog_load_buffers(base_docs[0], strlen(base_docs[0]), base_docs[1],
				     strlen(base_docs[1]), rigs, strlen(rigs), names, &cat, &err);
	assert_int_equal(rc, CR_ERR_INVALID);
	assert_string_equal(err.message,
			    "r.json: rigs[0].devices[0].bandwidth_gbs: expected a positive number (0.001 to 1e+06), got -100");
	assert_null(cat);
}

/* Buffers need not be NUL-terminated: the length is the document. */
static void test_buffers_not_terminated(void **state)
{
	const char *docs[3];
	size_t lens[3];
	char *copies[3];
	cr_catalog *cat = NULL;
	cr_error err = CR_ERROR_INIT;

	(void)state;
	for (int i = 0; i < 3; i++) {
		lens[i] = strlen(base_docs[i]);
		copies[i] = malloc(lens[i]);
		assert_non_null(copies[i]);
		memcpy(copies[i], base_docs[i], lens[i]); /* no terminator: valgrind checks */
		docs[i] = copies[i];
	}
	assert_int_equal(load3(docs, lens, &cat, &err), CR_OK);
	cr_catalog_free(cat);
	/* One byte short is a truncated document. */
	lens[F_QUANTS]--;
	assert_int_equal(load3(docs, lens, &cat, &err), CR_ERR_PARSE);
	assert_null(cat);
	for (int i = 0; i < 3; i++)
		free(copies[i]);
}

/* Regression (fixed): json_read.c jr_parse calls cJSON_ParseWithLengthOpts with
 * require_null_terminated = false and never looks at the end pointer on
 * success, so anything after the first JSON value is silently ignored: a
 * quants.json of `{...valid...}garbage` or two concatenated documents loads
 * as if only the first were there. Expected: CR_ERR_PARSE naming the byte
 * where the trailing content starts (trailing whitespace stays allowed). */
static void test_trailing_garbage(void **state)
{
	static const char doc[] = QUANTS_DOC(QUANT_Q4) "\n  x";
	const char *docs[3] = { base_docs[0], doc, base_docs[2] };
	size_t lens[3] = { strlen(base_docs[0]), strlen(doc), strlen(base_docs[2]) };
	size_t at = strlen(QUANTS_DOC(QUANT_Q4)) + 3;
	cr_catalog *cat = NULL;
	cr_error err = CR_ERROR_INIT;
	char want[128];
	int rc;

	(void)state;
	snprintf(want, sizeof(want), "quants.json: invalid JSON at byte %zu (line 2, column 3)", at);
	rc = load3(docs, lens, &cat, &err);
	if (rc == CR_OK)
		cr_catalog_free(cat);
	assert_int_equal(rc, CR_ERR_PARSE);
	assert_string_equal(err.message, want);
}

/* Trailing whitespace after the document is fine (files end with "\n"). */
static void test_trailing_whitespace(void **state)
{
	static const char doc[] = QUANTS_DOC(QUANT_Q4) " \r\n\t\n";
	const char *docs[3] = { base_docs[0], doc, base_docs[2] };
	size_t lens[3] = { strlen(base_docs[0]), strlen(doc), strlen(base_docs[2]) };
	cr_catalog *cat = NULL;
	cr_error err = CR_ERROR_INIT;

	(void)state;
	assert_int_equal(load3(docs, lens, &cat, &err), CR_OK);
	cr_catalog_free(cat);
}

/* cJSON stops at 1000 levels; 10 000 must be refused, not overflow a stack. */
static void test_deep_nesting(void **state)
{
	const size_t depth = 10000;
	char *doc = malloc(2 * depth);
	const char *docs[3];
	size_t lens[3];
	cr_catalog *cat = NULL;
	cr_error err = CR_ERROR_INIT;

	(void)state;
	assert_non_null(doc);
	memset(doc, '[', depth);
	memset(doc + depth, ']', depth);
	for (int i = 0; i < 3; i++) {
		docs[i] = base_docs[i];
		lens[i] = strlen(base_docs[i]);
	}
	docs[F_RIGS] = doc;
	lens[F_RIGS] = 2 * depth;
	assert_int_equal(load3(docs, lens, &cat, &err), CR_ERR_PARSE);
	assert_string_equal(err.message, "rigs.json: JSON nested deeper than 1000 levels at byte 1000 (line 1, column 1001)");
	assert_null(cat);

	/* The same depth of objects inside an otherwise valid document. */
	free(doc);
	{
		static const char open[] = "{\"a\":", close[] = "}";
		const char *prefix = "{\"schema\":\"clefrun.quants/1\",\"quants\":[";
		size_t np = strlen(prefix), n = np + depth * (sizeof(open) - 1 + 1) + 16, off = np;
		char *d = malloc(n);

		assert_non_null(d);
		memcpy(d, prefix, np);
		for (size_t i = 0; i < depth; i++, off += sizeof(open) - 1)
			memcpy(d + off, open, sizeof(open) - 1);
		d[off++] = '1';
		for (size_t i = 0; i < depth; i++)
			d[off++] = close[0];
		memcpy(d + off, "]}", 2);
		off += 2;
		docs[F_RIGS] = base_docs[F_RIGS];
		lens[F_RIGS] = strlen(base_docs[F_RIGS]);
		docs[F_QUANTS] = d;
		lens[F_QUANTS] = off;
		assert_int_equal(load3(docs, lens, &cat, &err), CR_ERR_PARSE);
		/* Depth 1000 is the 999th {"a": after the top object and the list: byte 39 + 998 x 5. */
		assert_string_equal(err.message, "quants.json: JSON nested deeper than 1000 levels at byte 5029 (line 1, column 5030)");
		assert_null(cat);
		free(d);
	}
}

/* 999 levels parse; the validator then sees a wrong type, iteratively. */
static void test_deep_but_legal_nesting(void **state)
{
	static const char before[] = "{\"schema\":\"clefrun.quants/1\",\"quants\":[{\"id\":\"Q4_K_M\",\"bpw\":";
	static const char after[] = ",\"base_type\":\"Q4_K\",\"description\":\"d\",\"source\":\"s\"}]}";
	const size_t depth = 990;
	size_t nb = strlen(before), na = strlen(after), len = nb + 2 * depth + na;
	char *d = malloc(len);
	const char *docs[3];
	size_t lens[3];
	cr_catalog *cat = NULL;
	cr_error err = CR_ERROR_INIT;

	(void)state;
	assert_non_null(d);
	memcpy(d, before, nb);
	memset(d + nb, '[', depth);
	memset(d + nb + depth, ']', depth);
	memcpy(d + nb + 2 * depth, after, na);
	for (int i = 0; i < 3; i++) {
		docs[i] = base_docs[i];
		lens[i] = strlen(base_docs[i]);
	}
	docs[F_QUANTS] = d;
	lens[F_QUANTS] = len;
	assert_int_equal(load3(docs, lens, &cat, &err), CR_ERR_INVALID);
	assert_string_equal(err.message, "quants.json: quants[0].bpw: expected a number");
	free(d);
}

/* Lists are bounded before anything is allocated per entry. */
static void test_too_many_entries(void **state)
{
	const char *prefix = "{\"schema\":\"clefrun.quants/1\",\"quants\":[";
	size_t np = strlen(prefix), n = 4097, len = np + 2 * n + 1;
	char *d = malloc(len);
	const char *docs[3];
	size_t lens[3];
	cr_catalog *cat = NULL;
	cr_error err = CR_ERROR_INIT;

	(void)state;
	assert_non_null(d);
	memcpy(d, prefix, np);
	for (size_t i = 0; i < n; i++) {
		d[np + 2 * i] = '0';
		d[np + 2 * i + 1] = i + 1 < n ? ',' : ']';
	}
	d[len - 1] = '}';
	for (int i = 0; i < 3; i++) {
		docs[i] = base_docs[i];
		lens[i] = strlen(base_docs[i]);
	}
	docs[F_QUANTS] = d;
	lens[F_QUANTS] = len;
	assert_int_equal(load3(docs, lens, &cat, &err), CR_ERR_INVALID);
	assert_string_equal(err.message, "quants.json: quants: too many entries (4097, at most 4096)");
	free(d);
}

/* A 17 MiB document is refused before parsing. */
#define BIG_FILE_BYTES (17u << 20)

static void test_file_too_large_buffer(void **state)
{
	char *big = malloc(BIG_FILE_BYTES);
	const char *docs[3];
	size_t lens[3];
	cr_catalog *cat = NULL;
	cr_error err = CR_ERROR_INIT;

	(void)state;
	assert_non_null(big);
	memset(big, ' ', BIG_FILE_BYTES);
	memcpy(big, base_docs[F_MODELS], strlen(base_docs[F_MODELS]));
	for (int i = 0; i < 3; i++) {
		docs[i] = base_docs[i];
		lens[i] = strlen(base_docs[i]);
	}
	docs[F_MODELS] = big;
	lens[F_MODELS] = BIG_FILE_BYTES;
	assert_int_equal(load3(docs, lens, &cat, &err), CR_ERR_INVALID);
	assert_string_equal(err.message,
			    "models.json: file too large (17825792 bytes, at most 16777216)");
	assert_null(cat);
	free(big);
}

/* Mamba-2 layers and single-sublayer blocks (docs/catalog.md): a
 * Nemotron-H-like "M-F-" with mixer_ffn false and a Granite-like "MF". */
static void test_mamba_layers(void **state)
{
	static const char models[] = MODELS_DOC(
		"{\"id\":\"nh\",\"name\":\"NH\",\"family\":\"t\",\"developer\":\"T\",\"license\":\"mit\","
		"\"released\":\"2025-01\",\"arch\":\"nemotron_h\",\"params\":1000000000,"
		"\"active_params\":1000000000,\"context_max\":4096,\"vocab\":32000,\"layers\":8,"
		"\"hidden\":2048,\"ffn\":8192,\"heads\":16,\"kv_heads\":4,\"head_dim_k\":128,"
		"\"head_dim_v\":128,\"layer_pattern\":\"M-F-\",\"mixer_ffn\":false,"
		"\"mamba\":{\"d_state\":128,\"n_groups\":8,\"heads\":64,\"head_dim\":64,\"conv_kernel\":4},"
		"\"tied_embeddings\":false,\"sources\":[\"s\"]},"
		"{\"id\":\"gh\",\"name\":\"GH\",\"family\":\"t\",\"developer\":\"T\",\"license\":\"mit\","
		"\"released\":\"2025-01\",\"arch\":\"granitehybrid\",\"params\":1000000000,"
		"\"active_params\":1000000000,\"context_max\":4096,\"vocab\":32000,\"layers\":4,"
		"\"hidden\":2048,\"ffn\":8192,\"heads\":16,\"kv_heads\":[0,4,0,4],\"head_dim_k\":128,"
		"\"head_dim_v\":128,\"layer_pattern\":\"MF\","
		"\"mamba\":{\"d_state\":64,\"n_groups\":1,\"heads\":32,\"head_dim\":128,\"conv_kernel\":4},"
		"\"tied_embeddings\":true,\"sources\":[\"s\"]}");
	static const char quants[] = QUANTS_DOC(QUANT_Q4), rigs[] = RIGS_DOC(RIG_GPU);
	cr_catalog *cat = NULL;
	cr_error err = CR_ERROR_INIT;
	const cr_model *m;

	(void)state;
	if (cr_catalog_load_buffers(models, sizeof(models) - 1, quants, sizeof(quants) - 1, rigs,
				    sizeof(rigs) - 1, NULL, &cat, &err))
		fail_msg("%s", err.message);
	m = cr_catalog_find_model(cat, "nh");
	assert_non_null(m);
	assert_true(m->mamba);
	/* "M-F-" over 8 layers: Mamba, MLP, attention, MLP, ... */
	assert_int_equal(m->layer_kind[0], CR_LAYER_RECURRENT);
	assert_int_equal(m->layer_parts[0], CR_LAYER_NO_FFN);
	assert_int_equal(m->layer_kind[1], CR_LAYER_FULL);
	assert_int_equal(m->layer_parts[1], CR_LAYER_NO_MIXER);
	assert_int_equal(m->layer_kind[2], CR_LAYER_FULL);
	assert_int_equal(m->layer_parts[2], CR_LAYER_NO_FFN);
	assert_int_equal(m->layer_parts[7], CR_LAYER_NO_MIXER);
	/* KV only on the attention layers (2 and 6). */
	assert_int_equal(m->kv_heads[0], 0);
	assert_int_equal(m->kv_heads[1], 0);
	assert_int_equal(m->kv_heads[2], 4);
	assert_int_equal(cr_model_kv_layers(m), 2);
	assert_int_equal(cr_model_count_layers(m, CR_LAYER_RECURRENT), 2);
	/* The llama.cpp GGUF mapping: k = groups x d_state, v = heads x head_dim. */
	assert_int_equal(m->linear.k_heads, 8);
	assert_int_equal(m->linear.k_head_dim, 128);
	assert_int_equal(m->linear.v_heads, 64);
	assert_int_equal(m->linear.v_head_dim, 64);
	assert_int_equal(m->linear.conv_kernel, 4);

	m = cr_catalog_find_model(cat, "gh");
	assert_non_null(m);
	assert_true(m->mamba);
	assert_int_equal(m->layer_parts[0], 0); /* a mixer and an FFN */
	assert_int_equal(m->layer_parts[1], 0);
	assert_int_equal(m->layer_kind[2], CR_LAYER_RECURRENT);
	assert_int_equal(cr_model_kv_layers(m), 2);
	assert_int_equal(m->linear.k_heads, 1);
	assert_int_equal(m->linear.v_heads * m->linear.v_head_dim, 4096);
	cr_catalog_free(cat);
}

/* ---- catalogs on disk ---------------------------------------------------- */

static void test_fixture_minimal(void **state)
{
	cr_catalog *cat = NULL;
	cr_error err = CR_ERROR_INIT;
	const cr_model *m;
	const cr_rig *r;
	const cr_quant *q;

	(void)state;
	if (cr_catalog_load_dir(FIXTURE_DIR "/minimal", &cat, &err))
		fail_msg("%s", err.message);
	assert_int_equal(cr_catalog_model_count(cat), 2);
	assert_int_equal(cr_catalog_quant_count(cat), 2);
	assert_int_equal(cr_catalog_rig_count(cat), 2);

	m = cr_catalog_find_model(cat, "tiny-base");
	assert_non_null(m);
	assert_int_equal(m->kv_heads[2], 0);
	assert_int_equal(cr_model_kv_layers(m), 3);
	assert_true(m->tied_embeddings);
	assert_string_equal(m->backbone, "");

	m = cr_catalog_find_model(cat, "tiny-chat");
	assert_non_null(m);
	assert_string_equal(m->backbone, "tiny-base");
	assert_int_equal(m->active_params, 250000000);
	/* "LSLF" over 8 layers: L S L F L S L F */
	assert_int_equal(m->layer_kind[0], CR_LAYER_RECURRENT);
	assert_int_equal(m->layer_kind[1], CR_LAYER_SLIDING);
	assert_int_equal(m->layer_kind[3], CR_LAYER_FULL);
	assert_int_equal(m->layer_kind[7], CR_LAYER_FULL);
	assert_int_equal(cr_model_count_layers(m, CR_LAYER_RECURRENT), 4);
	assert_int_equal(cr_model_count_layers(m, CR_LAYER_SLIDING), 2);
	assert_int_equal(cr_model_kv_layers(m), 4);
	assert_int_equal(m->window, 512);
	assert_int_equal(m->linear.v_heads, 16);
	assert_int_equal(m->linear.conv_kernel, 4);
	assert_int_equal(m->experts_total, 64);
	assert_int_equal(m->experts_used, 4);
	assert_int_equal(m->experts_shared, 1);
	assert_string_equal(m->notes, "Hybrid MoE fixture.");

	r = cr_catalog_find_rig(cat, "test-gpu");
	assert_non_null(r);
	assert_true(r->reference);
	assert_int_equal(r->devices[0].count, 2);
	assert_true(r->interconnect_gbs == 32.0);
	assert_true(r->seed_memory_gb == 48.0);
	assert_true(r->seed_bandwidth_gbs == 2000.0);
	r = cr_catalog_find_rig(cat, "TEST-MAC");
	assert_non_null(r);
	assert_true(r->unreleased);
	assert_int_equal(r->devices[0].backend, CR_BACKEND_METAL);
	assert_int_equal(r->devices[0].kind, CR_MEM_UNIFIED);
	assert_true(r->devices[0].usable_fraction == 0.75); /* unified default */
	assert_int_equal(r->n_sources, 2);
	assert_string_equal(r->sources[1], "second source");

	q = cr_catalog_find_quant(cat, "f16");
	assert_non_null(q);
	assert_string_equal(q->id, "F16");
	assert_true(q->bpw == 16.0);
	cr_catalog_free(cat);
}

static void test_fixture_errors(void **state)
{
	static const struct {
		const char *dir;
		int status;
		const char *message;
	} rows[] = {
		{ FIXTURE_DIR "/bad-bandwidth", CR_ERR_INVALID,
		  FIXTURE_DIR "/bad-bandwidth/rigs.json: rigs[1].devices[0].bandwidth_gbs: expected a positive number (0.001 to 1e+06), got -5" },
		{ FIXTURE_DIR "/bad-json", CR_ERR_PARSE,
		  FIXTURE_DIR "/bad-json/models.json: invalid JSON at byte 64 (line 4, column 17)" },
		{ FIXTURE_DIR "/no-rigs", CR_ERR_IO,
		  FIXTURE_DIR "/no-rigs/rigs.json: No such file or directory" },
		{ "/nonexistent/clefrun-catalog", CR_ERR_IO,
		  "/nonexistent/clefrun-catalog/models.json: No such file or directory" },
	};
	unsigned bad = 0;

	(void)state;
	for (size_t i = 0; i < UNIT_ARRAY_LEN(rows); i++) {
		cr_catalog *cat = NULL;
		cr_error err = CR_ERROR_INIT;
		int rc = cr_catalog_load_dir(rows[i].dir, &cat, &err);

		if (!unit_check_error(rows[i].dir, rc, &err, rows[i].status, rows[i].message))
			bad++;
		if (cat) {
			bad++;
			cr_catalog_free(cat);
		}
	}
	UNIT_TABLE_DONE(bad, UNIT_ARRAY_LEN(rows));
}

/* Write `len` bytes of `text` (padded with spaces) to dir/name. */
static void write_file(const char *dir, const char *name, const char *text, size_t len)
{
	char path[512];
	size_t n = strlen(text);
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(text, 1, n, f), n);
	if (len > n) {
		char *pad = malloc(len - n);

		assert_non_null(pad);
		memset(pad, ' ', len - n);
		assert_int_equal(fwrite(pad, 1, len - n, f), len - n);
		free(pad);
	}
	assert_int_equal(fclose(f), 0);
}

static void remove_file(const char *dir, const char *name)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	(void)remove(path);
}

/* A 17 MiB models.json on disk, then one that is a directory. */
static void test_dir_too_large_and_unreadable(void **state)
{
	char dir[256];
	char want[640], sub[600];
	cr_catalog *cat = NULL;
	cr_error err = CR_ERROR_INIT;

	(void)state;
	assert_int_equal(ts_tmpdir(dir, sizeof(dir), "test-catalog"), 0);
	write_file(dir, "models.json", base_docs[F_MODELS], BIG_FILE_BYTES);
	write_file(dir, "quants.json", base_docs[F_QUANTS], 0);
	write_file(dir, "rigs.json", base_docs[F_RIGS], 0);
	assert_int_equal(cr_catalog_load_dir(dir, &cat, &err), CR_ERR_INVALID);
	snprintf(want, sizeof(want), "%s/models.json: file too large (17825792 bytes, at most 16777216)",
		 dir);
	assert_string_equal(err.message, want);
	assert_null(cat);

	/* The same files at a normal size load. */
	write_file(dir, "models.json", base_docs[F_MODELS], 0);
	assert_int_equal(cr_catalog_load_dir(dir, &cat, &err), CR_OK);
	cr_catalog_free(cat);
	cat = NULL;

	/* fopen() succeeds on a directory; the loader refuses it up front. */
	remove_file(dir, "rigs.json");
	snprintf(sub, sizeof(sub), "%s/rigs.json", dir);
	assert_int_equal(mkdir(sub, 0700), 0);
	assert_int_equal(cr_catalog_load_dir(dir, &cat, &err), CR_ERR_IO);
	snprintf(want, sizeof(want), "%s/rigs.json: is a directory", dir);
	assert_string_equal(err.message, want);
	assert_null(cat);

	assert_int_equal(rmdir(sub), 0);

	/* A FIFO (whose plain open would wait for a writer forever) and a
	 * device that never ends are refused at once. */
	snprintf(want, sizeof(want), "%s/rigs.json: not a regular file", dir);
	assert_int_equal(mkfifo(sub, 0600), 0);
	assert_int_equal(cr_catalog_load_dir(dir, &cat, &err), CR_ERR_IO);
	assert_string_equal(err.message, want);
	assert_null(cat);
	assert_int_equal(unlink(sub), 0);
	assert_int_equal(symlink("/dev/zero", sub), 0);
	assert_int_equal(cr_catalog_load_dir(dir, &cat, &err), CR_ERR_IO);
	assert_string_equal(err.message, want);
	assert_null(cat);
	assert_int_equal(unlink(sub), 0);

	/* 100 MB (sparse: no disk used) is refused after reading at most twice
	 * the limit, not loaded. */
	write_file(dir, "rigs.json", base_docs[F_RIGS], 0);
	snprintf(sub, sizeof(sub), "%s/models.json", dir);
	assert_int_equal(truncate(sub, 100000000), 0);
	assert_int_equal(cr_catalog_load_dir(dir, &cat, &err), CR_ERR_INVALID);
	snprintf(want, sizeof(want), "%s/models.json: file too large (more than 16777216 bytes)", dir);
	assert_string_equal(err.message, want);
	assert_null(cat);

	remove_file(dir, "rigs.json");
	remove_file(dir, "models.json");
	remove_file(dir, "quants.json");
	assert_int_equal(rmdir(dir), 0);
}

/* The same 100 MB as a buffer: refused by its length before a byte is read
 * (the pages of the buffer are never touched). */
static void test_buffer_100mb(void **state)
{
	const size_t big = 100000000;
	char *doc = malloc(big);
	const char *docs[3];
	size_t lens[3];
	cr_catalog *cat = NULL;
	cr_error err = CR_ERROR_INIT;

	(void)state;
	assert_non_null(doc);
	for (int i = 0; i < 3; i++) {
		docs[i] = base_docs[i];
		lens[i] = strlen(base_docs[i]);
	}
	docs[F_QUANTS] = doc;
	lens[F_QUANTS] = big;
	assert_int_equal(load3(docs, lens, &cat, &err), CR_ERR_INVALID);
	assert_string_equal(err.message, "quants.json: file too large (100000000 bytes, at most 16777216)");
	assert_null(cat);
	free(doc);
}

int main(void)
{
	const struct CMUnitTest shipped_tests[] = {
		cmocka_unit_test(test_shipped_dir_equals_embedded),
		cmocka_unit_test(test_shipped_tables_field_by_field),
		cmocka_unit_test(test_embedded_handles),
		cmocka_unit_test(test_shipped_reference_rigs),
		cmocka_unit_test(test_shipped_fp16_figures),
		cmocka_unit_test(test_shipped_required_ids),
		cmocka_unit_test(test_shipped_clef_flash),
		cmocka_unit_test(test_shipped_tasks),
	};
	const struct CMUnitTest loader_tests[] = {
		cmocka_unit_test(test_enum_names),
		cmocka_unit_test(test_base_documents_load),
		cmocka_unit_test(test_hostile_documents),
		cmocka_unit_test(test_buffer_names),
		cmocka_unit_test(test_buffers_not_terminated),
		cmocka_unit_test(test_trailing_whitespace),
		cmocka_unit_test(test_trailing_garbage),
		cmocka_unit_test(test_deep_nesting),
		cmocka_unit_test(test_buffer_100mb),
		cmocka_unit_test(test_deep_but_legal_nesting),
		cmocka_unit_test(test_too_many_entries),
		cmocka_unit_test(test_file_too_large_buffer),
		cmocka_unit_test(test_mamba_layers),
		cmocka_unit_test(test_fixture_minimal),
		cmocka_unit_test(test_fixture_errors),
		cmocka_unit_test(test_dir_too_large_and_unreadable),
	};
	int failed = 0;

	failed += cmocka_run_group_tests_name("shipped catalog", shipped_tests, shipped_setup,
					      shipped_teardown);
	failed += cmocka_run_group_tests_name("catalog loader", loader_tests, NULL, NULL);
	return failed ? 1 : 0;
}
