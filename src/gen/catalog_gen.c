/*
 * catalog_gen: the built-in catalog as C tables, written at build time.
 *
 *   catalog_gen DATA_DIR OUT.c
 *
 * Loads DATA_DIR/{models,quants,rigs}.json with the library's own loader
 * (cr_catalog_load_dir: the same schema checks, ranges, duplicate ids and
 * references as any user catalog) and writes every record as a C
 * initialiser of the catalog structs (catalog.h) into OUT.c, which defines
 * cr_builtin_models, cr_builtin_quants and cr_builtin_rigs
 * (catalog_internal.h). A file that does not load stops the build with the
 * loader's message (file and JSON path). Fields left zero or empty are not
 * written (C zero-fills them); strings are written with octal escapes for
 * every byte outside printable ASCII and doubles as hexadecimal floating
 * constants, so each value is the loader's bit for bit.
 * tests/catalog/test_catalog.c compares the tables with the JSON-loaded
 * catalog field by field.
 *
 * The program is built for the build machine from the loader's sources
 * (CMakeLists.txt, clefrun_catalog_gen); it is not installed.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clefrun/catalog.h"

/* Bytes of a string per line of the output (a string goes on as adjacent
 * literals). */
#define STR_CHUNK 80

static void put_str(FILE *f, const char *s)
{
	size_t n = strlen(s);

	fputc('"', f);
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (i && i % STR_CHUNK == 0)
			fputs("\"\n\t\t\t\"", f);
		/* '?' escaped too: -std=c11 reads trigraphs ("??="). */
		if (c == '"' || c == '\\' || c == '?')
			fprintf(f, "\\%c", c);
		else if (c >= 0x20 && c < 0x7F)
			fputc(c, f);
		else
			fprintf(f, "\\%03o", c); /* three digits: the next character cannot extend it */
	}
	fputc('"', f);
}

static void field_str(FILE *f, const char *ind, const char *name, const char *s)
{
	if (!s[0])
		return;
	fprintf(f, "%s.%s = %s", ind, name, strlen(s) > STR_CHUNK ? "\n\t\t\t" : "");
	put_str(f, s);
	fputs(",\n", f);
}

static void field_u64(FILE *f, const char *ind, const char *name, uint64_t v)
{
	if (v)
		fprintf(f, "%s.%s = %" PRIu64 "ull,\n", ind, name, v);
}

static void field_u(FILE *f, const char *ind, const char *name, unsigned long v)
{
	if (v)
		fprintf(f, "%s.%s = %luu,\n", ind, name, v);
}

/* %a: a hexadecimal floating constant is exact (C11 6.4.4.2). */
static void field_dbl(FILE *f, const char *ind, const char *name, double v)
{
	if (v != 0.0)
		fprintf(f, "%s.%s = %a, /* %.17g */\n", ind, name, v, v);
}

static void field_bool(FILE *f, const char *ind, const char *name, bool v)
{
	if (v)
		fprintf(f, "%s.%s = true,\n", ind, name);
}

static void field_sources(FILE *f, const char *ind, const char (*src)[CR_URL_MAX], unsigned n)
{
	if (!n)
		return;
	fprintf(f, "%s.sources = {", ind);
	for (unsigned i = 0; i < n && i < CR_MAX_SOURCES; i++) {
		fprintf(f, "\n%s\t", ind);
		put_str(f, src[i]);
		fputc(',', f);
	}
	fprintf(f, "\n%s},\n", ind);
	field_u(f, ind, "n_sources", n);
}

/* A per-layer array up to its last non-zero element. */
static void field_layers(FILE *f, const char *ind, const char *name, const void *arr, size_t elem)
{
	size_t last = 0;

	for (size_t i = 0; i < CR_MAX_LAYERS; i++) {
		unsigned v = elem == 2 ? ((const uint16_t *)arr)[i] : ((const uint8_t *)arr)[i];

		if (v)
			last = i + 1;
	}
	if (!last)
		return;
	fprintf(f, "%s.%s = {", ind, name);
	for (size_t i = 0; i < last; i++) {
		unsigned v = elem == 2 ? ((const uint16_t *)arr)[i] : ((const uint8_t *)arr)[i];

		fprintf(f, "%s%u,", i % 16 ? " " : "\n\t\t\t", v);
	}
	fprintf(f, "\n%s},\n", ind);
}

static void put_model(FILE *f, const cr_model *m, size_t i)
{
	const char *ind = "\t\t";

	fprintf(f, "\t{ /* [%zu] */\n", i);
	field_str(f, ind, "id", m->id);
	field_str(f, ind, "name", m->name);
	field_str(f, ind, "family", m->family);
	field_str(f, ind, "developer", m->developer);
	field_str(f, ind, "license", m->license);
	field_str(f, ind, "released", m->released);
	field_str(f, ind, "backbone", m->backbone);
	field_str(f, ind, "arch", m->arch);
	field_u64(f, ind, "params", m->params);
	field_u64(f, ind, "active_params", m->active_params);
	field_u(f, ind, "context_max", m->context_max);
	field_u(f, ind, "vocab", m->vocab);
	field_u(f, ind, "n_layers", m->n_layers);
	field_u(f, ind, "hidden", m->hidden);
	field_u(f, ind, "ffn", m->ffn);
	field_u(f, ind, "n_heads", m->n_heads);
	field_u(f, ind, "head_dim_k", m->head_dim_k);
	field_u(f, ind, "head_dim_v", m->head_dim_v);
	field_layers(f, ind, "kv_heads", m->kv_heads, sizeof(m->kv_heads[0]));
	field_layers(f, ind, "layer_kind", m->layer_kind, sizeof(m->layer_kind[0]));
	field_layers(f, ind, "layer_parts", m->layer_parts, sizeof(m->layer_parts[0]));
	field_u(f, ind, "window", m->window);
	if (m->linear.k_heads || m->linear.k_head_dim || m->linear.v_heads || m->linear.v_head_dim ||
	    m->linear.conv_kernel) {
		fprintf(f, "%s.linear = { .k_heads = %uu, .k_head_dim = %uu, .v_heads = %uu, "
			   ".v_head_dim = %uu, .conv_kernel = %uu },\n",
			ind, m->linear.k_heads, m->linear.k_head_dim, m->linear.v_heads,
			m->linear.v_head_dim, m->linear.conv_kernel);
	}
	field_bool(f, ind, "mamba", m->mamba);
	field_bool(f, ind, "mla", m->mla);
	field_u(f, ind, "mla_kv_lora_rank", m->mla_kv_lora_rank);
	field_u(f, ind, "mla_rope_dim", m->mla_rope_dim);
	field_u(f, ind, "mla_q_lora_rank", m->mla_q_lora_rank);
	field_u(f, ind, "experts_total", m->experts_total);
	field_u(f, ind, "experts_used", m->experts_used);
	field_u(f, ind, "experts_shared", m->experts_shared);
	field_u(f, ind, "experts_dense_layers", m->experts_dense_layers);
	field_u(f, ind, "experts_dense_ffn", m->experts_dense_ffn);
	field_u(f, ind, "experts_shared_ffn", m->experts_shared_ffn);
	field_u(f, ind, "experts_every", m->experts_every);
	field_u(f, ind, "mtp_layers", m->mtp_layers);
	field_u(f, ind, "mtp_kv_layers", m->mtp_kv_layers);
	field_str(f, ind, "mtp_source", m->mtp_source);
	if (m->vision.layers) {
		fprintf(f, "%s.vision = { .layers = %uu, .hidden = %uu, .ffn = %uu, .patch = %uu, "
			   ".temporal_patch = %uu, .positions = %uu, .merge = %uu, .deepstack = %uu },\n",
			ind, m->vision.layers, m->vision.hidden, m->vision.ffn, m->vision.patch,
			m->vision.temporal_patch, m->vision.positions, m->vision.merge, m->vision.deepstack);
	}
	field_bool(f, ind, "tied_embeddings", m->tied_embeddings);
	if (m->task != CR_TASK_GENERATION)
		fprintf(f, "%s.task = %s,\n", ind, m->task == CR_TASK_EMBEDDING ? "CR_TASK_EMBEDDING" : "CR_TASK_RERANK");
	field_str(f, ind, "native_type", m->native_type);
	field_dbl(f, ind, "native_bpw", m->native_bpw);
	field_str(f, ind, "native_source", m->native_source);
	field_str(f, ind, "notes", m->notes);
	field_sources(f, ind, m->sources, m->n_sources);
	if (m->n_aliases) {
		fprintf(f, "%s.aliases = {", ind);
		for (unsigned k = 0; k < m->n_aliases && k < CR_MAX_ALIASES; k++) {
			fprintf(f, "\n%s\t", ind);
			put_str(f, m->aliases[k]);
			fputc(',', f);
		}
		fprintf(f, "\n%s},\n", ind);
		field_u(f, ind, "n_aliases", m->n_aliases);
	}
	fputs("\t},\n", f);
}

static void put_quant(FILE *f, const cr_quant *q, size_t i)
{
	const char *ind = "\t\t";

	fprintf(f, "\t{ /* [%zu] */\n", i);
	field_str(f, ind, "id", q->id);
	field_dbl(f, ind, "bpw", q->bpw);
	field_str(f, ind, "base_type", q->base_type);
	field_str(f, ind, "description", q->description);
	field_str(f, ind, "source", q->source);
	fputs("\t},\n", f);
}

static void put_device(FILE *f, const cr_device *d)
{
	const char *ind = "\t\t\t\t";

	fputs("\t\t\t{\n", f);
	field_str(f, ind, "name", d->name);
	field_u(f, ind, "count", d->count);
	field_dbl(f, ind, "memory_gib", d->memory_gib);
	field_dbl(f, ind, "bandwidth_gbs", d->bandwidth_gbs);
	field_dbl(f, ind, "fp16_tflops", d->fp16_tflops);
	field_dbl(f, ind, "int8_tops", d->int8_tops);
	field_dbl(f, ind, "bf16_tflops", d->bf16_tflops);
	field_dbl(f, ind, "compute_capability", d->compute_capability);
	/* Enums as numbers, their names alongside. */
	fprintf(f, "%s.backend = (cr_backend)%d, /* %s */\n", ind, (int)d->backend, cr_backend_name(d->backend));
	fprintf(f, "%s.kind = (cr_mem_kind)%d, /* %s */\n", ind, (int)d->kind, cr_mem_kind_name(d->kind));
	field_dbl(f, ind, "usable_fraction", d->usable_fraction);
	fprintf(f, "%s.mem_type = (cr_mem_type)%d, /* %s */\n", ind, (int)d->mem_type,
		cr_mem_type_name(d->mem_type));
	fprintf(f, "%s.vendor = (cr_vendor)%d, /* %s */\n", ind, (int)d->vendor, cr_vendor_name(d->vendor));
	fputs("\t\t\t},\n", f);
}

static void put_rig(FILE *f, const cr_rig *r, size_t i)
{
	const char *ind = "\t\t";

	fprintf(f, "\t{ /* [%zu] */\n", i);
	field_str(f, ind, "id", r->id);
	field_str(f, ind, "name", r->name);
	field_bool(f, ind, "reference", r->reference);
	field_bool(f, ind, "unreleased", r->unreleased);
	fputs("\t\t.devices = {\n", f);
	for (unsigned k = 0; k < r->n_devices && k < CR_MAX_DEVICE_GROUPS; k++)
		put_device(f, &r->devices[k]);
	fputs("\t\t},\n", f);
	field_u(f, ind, "n_devices", r->n_devices);
	field_dbl(f, ind, "interconnect_gbs", r->interconnect_gbs);
	field_dbl(f, ind, "seed_memory_gb", r->seed_memory_gb);
	field_dbl(f, ind, "seed_bandwidth_gbs", r->seed_bandwidth_gbs);
	field_str(f, ind, "notes", r->notes);
	field_sources(f, ind, r->sources, r->n_sources);
	fputs("\t},\n", f);
}

static void write_tables(FILE *f, const cr_catalog *cat)
{
	size_t n;

	fputs("/* Generated from data/{models,quants,rigs}.json by src/gen/catalog_gen.c (after loading them with\n"
	      " * cr_catalog_load_dir). Do not edit. */\n"
	      "#include <stdbool.h>\n#include <stddef.h>\n\n#include \"catalog_internal.h\"\n\n", f);
	n = cr_catalog_model_count(cat);
	fprintf(f, "const cr_model cr_builtin_models[%zu] = {\n", n);
	for (size_t i = 0; i < n; i++)
		put_model(f, cr_catalog_model_at(cat, i), i);
	fprintf(f, "};\nconst size_t cr_builtin_n_models = %zu;\n\n", n);
	n = cr_catalog_quant_count(cat);
	fprintf(f, "const cr_quant cr_builtin_quants[%zu] = {\n", n);
	for (size_t i = 0; i < n; i++)
		put_quant(f, cr_catalog_quant_at(cat, i), i);
	fprintf(f, "};\nconst size_t cr_builtin_n_quants = %zu;\n\n", n);
	n = cr_catalog_rig_count(cat);
	fprintf(f, "const cr_rig cr_builtin_rigs[%zu] = {\n", n);
	for (size_t i = 0; i < n; i++)
		put_rig(f, cr_catalog_rig_at(cat, i), i);
	fprintf(f, "};\nconst size_t cr_builtin_n_rigs = %zu;\n", n);
}

int main(int argc, char **argv)
{
	cr_catalog *cat = NULL;
	cr_error err = CR_ERROR_INIT;
	char tmp[4096];
	bool bad;
	FILE *f;
	int n;

	if (argc != 3) {
		fprintf(stderr, "usage: catalog_gen DATA_DIR OUT.c\n");
		return 2;
	}
	if (cr_catalog_load_dir(argv[1], &cat, &err)) {
		fprintf(stderr, "catalog_gen: %s\n", err.message);
		return 1;
	}
	/* Written beside OUT and renamed: an interrupted build leaves no half file. */
	n = snprintf(tmp, sizeof(tmp), "%s.tmp", argv[2]);
	if (n < 0 || (size_t)n >= sizeof(tmp)) {
		fprintf(stderr, "catalog_gen: %s: path too long\n", argv[2]);
		cr_catalog_free(cat);
		return 1;
	}
	f = fopen(tmp, "w");
	if (!f) {
		perror(tmp);
		cr_catalog_free(cat);
		return 1;
	}
	write_tables(f, cat);
	cr_catalog_free(cat);
	bad = ferror(f) != 0;
	if (fclose(f) != 0)
		bad = true;
	if (bad || rename(tmp, argv[2]) != 0) {
		perror(argv[2]);
		(void)remove(tmp);
		return 1;
	}
	return 0;
}
