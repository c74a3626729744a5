/* clefrun models | rigs | quants: the catalog, in every output format. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "cli.h"
#include "local_models.h"

typedef struct list_cfg {
	cli_format fmt;
	cli_globals g;
} list_cfg;

static const cli_opt_spec list_opts[] = {
	{ CLI_O_FORMAT(list_cfg, fmt) },
	{ CLI_O_CATALOG(list_cfg, g.catalog_dir), .help = CLI_HELP_CATALOG },
	CLI_SPEC_END,
};

/* Parse the shared options; returns -1 after --help, an exit code on error, 0 to go on. */
static int list_args(const char *cmd, const char *summary, int argc, char **argv,
		     cli_globals *g, cli_format *fmt)
{
	char usage[96];
	const cli_command c = { .name = cmd, .usage = usage, .summary = summary, .opts = list_opts };
	list_cfg cfg = { *fmt, *g };
	int rc;

	snprintf(usage, sizeof(usage), "%s [--format F]", cmd);
	rc = cli_parse(&c, argc, argv, &cfg);
	*fmt = cfg.fmt;
	*g = cfg.g;
	return rc;
}

static int emit_json(cJSON *root)
{
	if (cli_json_emit(root))
		return EXIT_ERROR;
	return EXIT_OK_;
}

static const char *attention_kind(const cr_model *m)
{
	if (m->mla)
		return "mla";
	if (cr_model_count_layers(m, CR_LAYER_RECURRENT))
		return "hybrid";
	if (cr_model_count_layers(m, CR_LAYER_SLIDING))
		return "sliding";
	return "full";
}

typedef struct models_cfg {
	cli_format fmt;
	cli_globals g;
	bool local;
	cli_local_cfg lc;
} models_cfg;

static const cli_opt_spec models_opts[] = {
	{ .type = CLI_T_FLAG, .name = "local", .off = offsetof(models_cfg, local),
	  .help = "the GGUF models on this machine (Ollama, Hugging Face hub cache, LM Studio, --path), from their headers" },
	{ .type = CLI_T_LIST, .name = "path", .meta = "DIR", .off = offsetof(models_cfg, lc.paths),
	  .count = CLI_AT(models_cfg, lc.n_paths), .max = CLI_LOCAL_MAX_PATHS,
	  .help = "with --local: also the GGUF files in DIR (or the file DIR); repeatable" },
	{ .type = CLI_T_FLAG, .name = "header-only", .off = offsetof(models_cfg, lc.header_only),
	  .help = "with --local: accept GGUF files cut after their header" },
	{ CLI_O_FORMAT(models_cfg, fmt) },
	{ CLI_O_CATALOG(models_cfg, g.catalog_dir), .help = CLI_HELP_CATALOG },
	CLI_SPEC_END,
};

int cmd_models(const cli_globals *g0, int argc, char **argv)
{
	static const char *const hdr[] = { "ID", "NAME", "PARAMS", "ACTIVE", "CONTEXT", "LAYERS",
		"KV LAYERS", "ATTENTION", "LICENSE" };
	/* CSV: snake_case headers, the JSON field names (docs/cli.md, "Output"). */
	static const char *const csv_hdr[] = { "id", "name", "params", "active_params",
		"context_max", "layers", "kv_layers", "attention", "license" };
	static const bool right[] = { false, false, true, true, true, true, true, false, false };
	static const cli_command models_cmd = {
		.name = "clefrun models", .usage = "clefrun models [--local [--path DIR]...] [--format F]",
		.summary = "List the catalog's models; with --local, the GGUF models on this machine.", .opts = models_opts
	};
	models_cfg mc;
	cli_globals g;
	cli_format fmt;
	cr_catalog *cat;
	int rc;

	memset(&mc, 0, sizeof(mc));
	mc.g = *g0;
	rc = cli_parse(&models_cmd, argc, argv, &mc);
	if (rc)
		return rc < 0 ? EXIT_OK_ : rc;
	g = mc.g;
	fmt = mc.fmt;
	if (!mc.local && (mc.lc.n_paths || mc.lc.header_only)) {
		fprintf(stderr, "clefrun models: --%s goes with --local\n", mc.lc.n_paths ? "path" : "header-only");
		return EXIT_USAGE;
	}
	if (mc.local) {
		mc.lc.fmt = fmt;
		return cli_models_local(&mc.lc);
	}
	if (!(cat = cli_open_catalog(&g)))
		return EXIT_ERROR;
	if (fmt == FMT_JSON) {
		cJSON *root = cJSON_CreateObject(), *arr;

		cJSON_AddStringToObject(root, "schema", "clefrun.models-list/1");
		arr = cJSON_AddArrayToObject(root, "models");
		for (size_t i = 0; i < cr_catalog_model_count(cat); i++) {
			const cr_model *m = cr_catalog_model_at(cat, i);
			cJSON *o = cJSON_CreateObject(), *al;

			cJSON_AddStringToObject(o, "id", m->id);
			cJSON_AddStringToObject(o, "name", m->name);
			cJSON_AddStringToObject(o, "family", m->family);
			cJSON_AddStringToObject(o, "developer", m->developer);
			cJSON_AddStringToObject(o, "license", m->license);
			cJSON_AddStringToObject(o, "released", m->released);
			cJSON_AddStringToObject(o, "arch", m->arch);
			cJSON_AddNumberToObject(o, "params", (double)m->params);
			cJSON_AddNumberToObject(o, "active_params", (double)m->active_params);
			cJSON_AddNumberToObject(o, "context_max", m->context_max);
			cJSON_AddNumberToObject(o, "layers", m->n_layers);
			cJSON_AddNumberToObject(o, "kv_layers", cr_model_kv_layers(m));
			cJSON_AddStringToObject(o, "attention", attention_kind(m));
			if (m->task != CR_TASK_GENERATION)
				cJSON_AddStringToObject(o, "task", cr_model_task_name(m->task));
			/* The other names --model finds it by (docs/catalog.md). */
			al = cJSON_AddArrayToObject(o, "aliases");
			for (unsigned a = 0; a < m->n_aliases; a++)
				cJSON_AddItemToArray(al, cJSON_CreateString(m->aliases[a]));
			cJSON_AddItemToArray(arr, o);
		}
		cr_catalog_free(cat);
		return emit_json(root);
	}
	cli_table t;

	cli_table_init(&t, 9, fmt == FMT_CSV ? csv_hdr : hdr, right);
	for (size_t i = 0; i < cr_catalog_model_count(cat); i++) {
		const cr_model *m = cr_catalog_model_at(cat, i);
		char p[32], a[32], c[32], l[16], k[16];
		const char *cells[9] = { m->id, m->name, p, a, c, l, k, attention_kind(m), m->license };

		if (fmt == FMT_CSV) {
			snprintf(p, sizeof(p), "%llu", (unsigned long long)m->params);
			snprintf(a, sizeof(a), "%llu", (unsigned long long)m->active_params);
			snprintf(c, sizeof(c), "%u", m->context_max);
		} else {
			cli_fmt_params(p, sizeof(p), m->params);
			cli_fmt_params(a, sizeof(a), m->active_params);
			cli_fmt_ctx(c, sizeof(c), m->context_max);
		}
		snprintf(l, sizeof(l), "%u", m->n_layers);
		snprintf(k, sizeof(k), "%u", cr_model_kv_layers(m));
		cli_table_add(&t, cells);
	}
	cli_table_render(&t, fmt, stdout);
	cli_table_free(&t);
	cr_catalog_free(cat);
	return EXIT_OK_;
}

static void device_summary(const cr_rig *r, char *buf, size_t cap)
{
	size_t used = 0;

	buf[0] = '\0';
	for (unsigned i = 0; i < r->n_devices && used < cap; i++) {
		const cr_device *d = &r->devices[i];
		int n = snprintf(buf + used, cap - used, "%s%ux %s", i ? " + " : "", d->count, d->name);

		if (n < 0)
			break;
		used += (size_t)n;
	}
}

int cmd_rigs(const cli_globals *g0, int argc, char **argv)
{
	/* Bandwidth per tier as the estimate reads it (cr_rig_tier_bandwidth_gbs):
	 * a sum over GPUs and RAM would be a figure no tier delivers. */
	const char *hdr[] = { "ID", "NAME", "MEMORY", "GPU GB/s", "RAM GB/s", "FP16 TFLOPS", "KIND",
		"DEVICES", "REF" };
	static const bool right[] = { false, false, true, true, true, true, false, false, false };
	static const char *const csv_hdr[] = { "id", "name", "memory_bytes", "accelerator_bandwidth_gbs",
		"ram_bandwidth_gbs", "fp16_tflops", "kind", "devices", "reference", "unreleased" };
	cli_globals g = *g0;
	cli_format fmt = FMT_TABLE;
	cr_catalog *cat;
	int rc = list_args("clefrun rigs", "List the catalog's rigs: the 22 reference rigs of the seed pages, then single devices.",
			   argc, argv, &g, &fmt);

	if (rc)
		return rc < 0 ? EXIT_OK_ : rc;
	if (!(cat = cli_open_catalog(&g)))
		return EXIT_ERROR;
	if (fmt == FMT_JSON) {
		cJSON *root = cJSON_CreateObject(), *arr;

		cJSON_AddStringToObject(root, "schema", "clefrun.rigs-list/1");
		arr = cJSON_AddArrayToObject(root, "rigs");
		for (size_t i = 0; i < cr_catalog_rig_count(cat); i++) {
			const cr_rig *r = cr_catalog_rig_at(cat, i);
			cJSON *o = cJSON_CreateObject(), *devs;

			cJSON_AddStringToObject(o, "id", r->id);
			cJSON_AddStringToObject(o, "name", r->name);
			cJSON_AddBoolToObject(o, "reference", r->reference);
			cJSON_AddBoolToObject(o, "unreleased", r->unreleased);
			cJSON_AddNumberToObject(o, "memory_bytes", (double)cr_rig_memory_bytes(r));
			cJSON_AddNumberToObject(o, "aggregate_bandwidth_gbs", cr_rig_aggregate_bandwidth_gbs(r));
			{
				double acc, ram;

				cr_rig_tier_bandwidth_gbs(r, &acc, &ram);
				if (acc > 0)
					cJSON_AddNumberToObject(o, "accelerator_bandwidth_gbs", round(acc * 10) / 10);
				else
					cJSON_AddNullToObject(o, "accelerator_bandwidth_gbs");
				if (ram > 0)
					cJSON_AddNumberToObject(o, "ram_bandwidth_gbs", ram);
				else
					cJSON_AddNullToObject(o, "ram_bandwidth_gbs");
			}
			devs = cJSON_AddArrayToObject(o, "devices");
			for (unsigned k = 0; k < r->n_devices; k++) {
				const cr_device *d = &r->devices[k];
				cJSON *dj = cJSON_CreateObject();

				cJSON_AddStringToObject(dj, "name", d->name);
				cJSON_AddNumberToObject(dj, "count", d->count);
				cJSON_AddNumberToObject(dj, "memory_bytes",
							(double)(uint64_t)(d->memory_gib * 1073741824.0));
				cJSON_AddNumberToObject(dj, "bandwidth_gbs", d->bandwidth_gbs);
				cJSON_AddNumberToObject(dj, "fp16_tflops", d->fp16_tflops);
				if (d->int8_tops > 0)
					cJSON_AddNumberToObject(dj, "int8_tops", d->int8_tops);
				if (d->bf16_tflops > 0)
					cJSON_AddNumberToObject(dj, "bf16_tflops", d->bf16_tflops);
				if (d->compute_capability > 0)
					cJSON_AddNumberToObject(dj, "compute_capability", d->compute_capability);
				cJSON_AddStringToObject(dj, "backend", cr_backend_name(d->backend));
				cJSON_AddStringToObject(dj, "kind", cr_mem_kind_name(d->kind));
				cJSON_AddNumberToObject(dj, "usable_fraction", d->usable_fraction);
				cJSON_AddItemToArray(devs, dj);
			}
			cJSON_AddStringToObject(o, "notes", r->notes);
			cJSON_AddItemToArray(arr, o);
		}
		cr_catalog_free(cat);
		return emit_json(root);
	}
	cli_table t;

	hdr[2] = cli_mem_heading(); /* after --units */
	if (fmt == FMT_CSV)
		cli_table_init(&t, 10, csv_hdr, NULL);
	else
		cli_table_init(&t, 9, hdr, right);
	for (size_t i = 0; i < cr_catalog_rig_count(cat); i++) {
		const cr_rig *r = cr_catalog_rig_at(cat, i);
		char mem[32], bw[32], rbw[32], tf[32], devs[256], kind[32];
		double tflops = 0, acc, ram;
		const char *cells[10] = { r->id, r->name, mem, bw, rbw, tf, kind, devs,
			r->reference ? (r->unreleased ? "yes (unreleased)" : "yes") : "", NULL };

		for (unsigned k = 0; k < r->n_devices; k++)
			tflops += r->devices[k].count * r->devices[k].fp16_tflops;
		cli_fmt_mem_number(mem, sizeof(mem), (double)cr_rig_memory_bytes(r));
		cr_rig_tier_bandwidth_gbs(r, &acc, &ram);
		snprintf(bw, sizeof(bw), acc > 0 ? "%.4g" : "-", acc);
		snprintf(rbw, sizeof(rbw), ram > 0 ? "%g" : "-", ram);
		snprintf(tf, sizeof(tf), tflops > 0 ? "%g" : "-", tflops);
		if (fmt == FMT_CSV) { /* raw bytes, empty when unknown, booleans as in JSON */
			snprintf(mem, sizeof(mem), "%llu", (unsigned long long)cr_rig_memory_bytes(r));
			if (tflops <= 0)
				tf[0] = '\0';
			if (acc <= 0)
				bw[0] = '\0';
			if (ram <= 0)
				rbw[0] = '\0';
			cells[8] = r->reference ? "true" : "false";
			cells[9] = r->unreleased ? "true" : "false";
		}
		snprintf(kind, sizeof(kind), "%s", cr_mem_kind_name(r->devices[0].kind));
		for (unsigned k = 1; k < r->n_devices; k++) {
			size_t l = strlen(kind);

			snprintf(kind + l, sizeof(kind) - l, "+%s", cr_mem_kind_name(r->devices[k].kind));
		}
		device_summary(r, devs, sizeof(devs));
		cli_table_add(&t, cells);
	}
	cli_table_render(&t, fmt, stdout);
	cli_table_free(&t);
	cr_catalog_free(cat);
	return EXIT_OK_;
}

int cmd_quants(const cli_globals *g0, int argc, char **argv)
{
	static const char *const hdr[] = { "ID", "BPW", "BASE TYPE", "DESCRIPTION" };
	static const char *const csv_hdr[] = { "id", "bpw", "base_type", "description" };
	static const bool right[] = { false, true, false, false };
	cli_globals g = *g0;
	cli_format fmt = FMT_TABLE;
	cr_catalog *cat;
	int rc = list_args("clefrun quants", "List the quantization presets (whole-file average bits per weight).",
			   argc, argv, &g, &fmt);

	if (rc)
		return rc < 0 ? EXIT_OK_ : rc;
	if (!(cat = cli_open_catalog(&g)))
		return EXIT_ERROR;
	if (fmt == FMT_JSON) {
		cJSON *root = cJSON_CreateObject(), *arr;

		cJSON_AddStringToObject(root, "schema", "clefrun.quants-list/1");
		arr = cJSON_AddArrayToObject(root, "quants");
		for (size_t i = 0; i < cr_catalog_quant_count(cat); i++) {
			const cr_quant *q = cr_catalog_quant_at(cat, i);
			cJSON *o = cJSON_CreateObject();

			cJSON_AddStringToObject(o, "id", q->id);
			cJSON_AddNumberToObject(o, "bpw", q->bpw);
			cJSON_AddStringToObject(o, "base_type", q->base_type);
			cJSON_AddStringToObject(o, "description", q->description);
			cJSON_AddStringToObject(o, "source", q->source);
			cJSON_AddItemToArray(arr, o);
		}
		cr_catalog_free(cat);
		return emit_json(root);
	}
	cli_table t;

	cli_table_init(&t, 4, fmt == FMT_CSV ? csv_hdr : hdr, right);
	for (size_t i = 0; i < cr_catalog_quant_count(cat); i++) {
		const cr_quant *q = cr_catalog_quant_at(cat, i);
		char bpw[16];
		const char *cells[4] = { q->id, bpw, q->base_type, q->description };

		snprintf(bpw, sizeof(bpw), "%.2f", q->bpw);
		cli_table_add(&t, cells);
	}
	cli_table_render(&t, fmt, stdout);
	cli_table_free(&t);
	cr_catalog_free(cat);
	return EXIT_OK_;
}
