/*
 * clefrun rig add | list | show | rm: the user's saved rigs
 * ($XDG_CONFIG_HOME/clefrun/rigs.json; include/clefrun/userrigs.h).
 * add and rm load the file first and refuse to write when it does not
 * validate: a hand-edited file with a typo is reported, never replaced.
 */
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "cli.h"

static const char rig_summary[] =
	"Saved rigs: your own machines, stored in $XDG_CONFIG_HOME/clefrun/rigs.json\n"
	"(default ~/.config/clefrun/rigs.json) and usable everywhere a rig id is (--rig NAME).\n\n"
	"  rig add NAME --mem-gb X --bw-gbs Y [...]   save a rig (see 'clefrun rig add --help')\n"
	"  rig list [--format F]                      list the saved rigs\n"
	"  rig show NAME [--format F]                 show one rig (saved, catalog, local or custom:)\n"
	"  rig rm NAME                                remove a saved rig";

static void rig_usage(FILE *f)
{
	fprintf(f, "usage: clefrun rig add|list|show|rm ...\n\n%s\n", rig_summary);
}

/* ---- the subcommands' options ------------------------------------------------ */

typedef struct add_ctx {
	cr_rig_figures f;
	bool force;
} add_ctx;

/* What the options of a subcommand fill. */
typedef struct rig_cfg {
	const char *name;  /* NAME */
	cli_format fmt;
	cli_globals g;
	add_ctx a;         /* rig add */
} rig_cfg;

static const cli_enum_name backend_names[] = {
	{ "cuda", CR_BACKEND_CUDA }, { "metal", CR_BACKEND_METAL }, { "rocm", CR_BACKEND_ROCM },
	{ "vulkan", CR_BACKEND_VULKAN }, { "cpu", CR_BACKEND_CPU }, { NULL, 0 }
};
static const cli_enum_name kind_names[] = {
	{ "discrete", CR_MEM_DISCRETE }, { "unified", CR_MEM_UNIFIED }, { "system", CR_MEM_SYSTEM }, { NULL, 0 }
};

#define RIG_NAME_ARG \
	{ .type = CLI_T_ARG, .meta = "NAME", .off = offsetof(rig_cfg, name), .required = "NAME is required (see --help)" }
#define RIG_AT(field) (offsetof(rig_cfg, a) + offsetof(add_ctx, f) + offsetof(cr_rig_figures, field))
#define RIG_GB(opt, m, field, what) \
	{ .type = CLI_T_DOUBLE, .name = (opt), .meta = (m), .off = RIG_AT(field), .lo = CR_RIG_MEMORY_GIB_MIN, .hi = CR_RIG_MEMORY_GIB_MAX, \
	  .help = (what) }
#define RIG_GBS(opt, m, field, what) \
	{ .type = CLI_T_DOUBLE, .name = (opt), .meta = (m), .off = RIG_AT(field), .lo = CR_RIG_BANDWIDTH_GBS_MIN, .hi = CR_RIG_BANDWIDTH_GBS_MAX, \
	  .help = (what) }
#define RIG_TEXT(opt, field, what) \
	{ .type = CLI_T_STRING, .name = (opt), .meta = "TEXT", .off = RIG_AT(field), .help = (what) }

static const cli_opt_spec add_opts[] = {
	RIG_NAME_ARG,
	RIG_GB("mem-gb", "X", mem_gib, "memory of ONE device, GiB (as memory is sold: a 24 GB card is 24) (required)"),
	RIG_GBS("bw-gbs", "Y", bw_gbs, "memory bandwidth of ONE device, GB/s (required)"),
	{ .type = CLI_T_UINT, .name = "devices", .meta = "N", .off = CLI_OFF_SIZED(rig_cfg, a.f.devices, sizeof(unsigned)),
	  .lo = 1, .hi = CR_RIG_DEVICES_MAX, .help = "number of such devices (default 1)" },
	{ .type = CLI_T_DOUBLE, .name = "tflops", .meta = "T", .off = offsetof(rig_cfg, a.f.tflops), .lo = 0, .hi = CR_RIG_TFLOPS_MAX,
	  .help = "dense FP16 TFLOPS of one device (default 0: prefill not estimated)" },
	{ .type = CLI_T_ENUM, .name = "backend", .meta = "B", .off = CLI_OFF_SIZED(rig_cfg, a.f.backend, sizeof(int)),
	  .seen = CLI_AT(rig_cfg, a.f.backend_set), .names = backend_names,
	  .help = "cuda, metal, rocm, vulkan or cpu (default cuda; cpu implies kind system, metal kind unified)" },
	{ .type = CLI_T_ENUM, .name = "kind", .meta = "K", .off = CLI_OFF_SIZED(rig_cfg, a.f.kind, sizeof(int)),
	  .seen = CLI_AT(rig_cfg, a.f.kind_set), .names = kind_names,
	  .help = "discrete, unified or system (default discrete)" },
	RIG_GB("usable-gb", "U", usable_gib,
	       "memory the runtime may use on ONE device, GiB (default: the platform's limit, e.g. macOS's GPU wired limit)"),
	RIG_GB("ram-gb", "R", ram_gib, "add system RAM of R GiB beside the devices (partial offload); needs --ram-bw-gbs"),
	RIG_GBS("ram-bw-gbs", "S", ram_bw_gbs, "bandwidth of that system RAM, GB/s"),
	RIG_TEXT("name", name, "display name (default: generated from the figures)"),
	RIG_TEXT("device-name", device_name, "device name (default GPU / Unified memory / System RAM)"),
	RIG_TEXT("notes", notes, "free-form notes kept with the rig"),
	{ .type = CLI_T_FLAG, .name = "force", .off = offsetof(rig_cfg, a.force),
	  .help = "replace a saved rig of the same name" },
	{ CLI_O_CATALOG(rig_cfg, g.catalog_dir), .help = "read the catalog from DIR (saved names may not be its rig ids)" },
	CLI_SPEC_END,
};

static const cli_opt_spec list_opts[] = {
	{ CLI_O_FORMAT(rig_cfg, fmt) },
	{ CLI_O_CATALOG(rig_cfg, g.catalog_dir), .help = CLI_HELP_CATALOG },
	CLI_SPEC_END,
};

static const cli_opt_spec show_opts[] = {
	RIG_NAME_ARG,
	{ CLI_O_FORMAT(rig_cfg, fmt) },
	{ CLI_O_CATALOG(rig_cfg, g.catalog_dir), .help = CLI_HELP_CATALOG },
	CLI_SPEC_END,
};

static const cli_opt_spec rm_opts[] = {
	RIG_NAME_ARG,
	{ CLI_O_CATALOG(rig_cfg, g.catalog_dir), .help = CLI_HELP_CATALOG },
	CLI_SPEC_END,
};

/* Parse a subcommand's options into *name, *g, *fmt and (rig add) *a. */
static int sub_args(const cli_command *cmd, int argc, char **argv, const char **name, cli_globals *g,
		    cli_format *fmt, add_ctx *a)
{
	rig_cfg c;
	int rc;

	memset(&c, 0, sizeof(c));
	c.g = *g;
	c.fmt = *fmt;
	if (a)
		c.a = *a;
	rc = cli_parse(cmd, argc, argv, &c);
	*name = c.name;
	*g = c.g;
	*fmt = c.fmt;
	if (a)
		*a = c.a;
	return rc;
}

static int store_locked(const cr_catalog *cat, const cr_rig *add, const char *remove, bool replace,
			const char *path, FILE *out);

int cli_userrigs_store(const cr_catalog *cat, const cr_rig *add, const char *remove, bool replace,
		       FILE *out)
{
	char path[4096];
	cr_user_rigs_lock *lock = NULL;
	cr_error err = CR_ERROR_INIT;
	int rc;

	if (cli_userrigs_path(path, sizeof(path)))
		return EXIT_ERROR;
	/* Held from the load to the save, so that a parallel rig add or rm
	 * cannot save in between and have its edit dropped. */
	if (cr_userrigs_lock(path, &lock, &err)) {
		fprintf(stderr, "clefrun: saved rigs: %s\n", err.message);
		return EXIT_ERROR;
	}
	rc = store_locked(cat, add, remove, replace, path, out);
	cr_userrigs_unlock(lock);
	return rc;
}

static int store_locked(const cr_catalog *cat, const cr_rig *add, const char *remove, bool replace,
			const char *path, FILE *out)
{
	cr_user_rigs *set;
	cr_error err = CR_ERROR_INIT;
	int rc;

	if (!(set = cli_load_user_rigs(cat, path, NULL)))
		return EXIT_ERROR;
	if (add) {
		if (!replace && cr_userrigs_find(set, add->id)) {
			fprintf(stderr, "clefrun: a rig named \"%s\" is already saved in %s: --force replaces it, "
					"'clefrun rig rm %s' removes it\n", add->id, path, add->id);
			cr_userrigs_free(set);
			return EXIT_USAGE;
		}
		rc = cr_userrigs_add(set, add, cat, replace, &err);
	} else {
		rc = cr_userrigs_remove(set, remove, &err);
		if (rc == CR_ERR_NOTFOUND) {
			const char *s[4];
			size_t n = cr_userrigs_suggest(set, NULL, remove, s, 4);

			fprintf(stderr, "clefrun: no saved rig named '%s'", CLI_CLIP(remove));
			for (size_t i = 0; i < n; i++)
				fprintf(stderr, "%s%s", i ? ", " : " (did you mean: ", s[i]);
			fprintf(stderr, "%s; 'clefrun rig list' lists them\n", n ? ")" : "");
			cr_userrigs_free(set);
			return EXIT_USAGE;
		}
	}
	if (rc) {
		fprintf(stderr, "clefrun: %s\n", err.message);
		cr_userrigs_free(set);
		return EXIT_USAGE;
	}
	rc = cr_userrigs_save(set, path, &err);
	cr_userrigs_free(set);
	if (rc) {
		fprintf(stderr, "clefrun: %s\n", err.message);
		return EXIT_ERROR;
	}
	if (add)
		fprintf(out, "saved rig '%s' in %s\n", add->id, path);
	else
		fprintf(out, "removed rig '%s' from %s\n", remove, path);
	return EXIT_OK_;
}

static int rig_add(const cli_globals *g0, int argc, char **argv)
{
	static const char usage[] =
		"clefrun rig add NAME --mem-gb X --bw-gbs Y [--devices N] [--tflops T] [--backend B] [--kind K] [--usable-gb U] [--ram-gb R --ram-bw-gbs S] [--name TEXT] [--force]";
	static const char summary[] =
		"Save a rig under NAME (a-z 0-9, then . + _ -; not a catalog rig id, not 'local').\n"
		"--ram-gb/--ram-bw-gbs add the machine's system RAM as a second device group, so that\n"
		"a model too large for the devices is estimated with partial offload.";
	cli_globals g = *g0;
	cli_format fmt = FMT_TABLE;
	add_ctx a;
	const char *name = NULL;
	cr_catalog *cat;
	cr_rig rig;
	cr_error err = CR_ERROR_INIT;
	const cli_command cmd = { .name = "clefrun rig add", .usage = usage, .summary = summary, .opts = add_opts };
	int rc;

	memset(&a, 0, sizeof(a));
	a.f = (cr_rig_figures)CR_RIG_FIGURES_INIT;
	rc = sub_args(&cmd, argc, argv, &name, &g, &fmt, &a);
	if (rc)
		return rc < 0 ? EXIT_OK_ : rc;
	if (!(a.f.mem_gib > 0) || !(a.f.bw_gbs > 0)) {
		fprintf(stderr, "clefrun rig add: --mem-gb and --bw-gbs are required (see --help)\n");
		return EXIT_USAGE;
	}
	if (!(cat = cli_open_catalog(&g)))
		return EXIT_ERROR;
	a.f.id = name;
	if ((rc = cr_userrigs_build(&a.f, &rig, &err)) ||
	    (rc = cr_userrigs_check_id(NULL, name, cat, &err))) {
		fprintf(stderr, "clefrun rig add: %s\n", err.message);
		cr_catalog_free(cat);
		return EXIT_USAGE;
	}
	rc = cli_userrigs_store(cat, &rig, NULL, a.force, stdout);
	cr_catalog_free(cat);
	return rc;
}

/* ---- rig rm ----------------------------------------------------------------- */

static int rig_rm(const cli_globals *g0, int argc, char **argv)
{
	cli_globals g = *g0;
	cli_format fmt = FMT_TABLE;
	const char *name = NULL;
	cr_catalog *cat;
	const cli_command cmd = { .name = "clefrun rig rm", .usage = "clefrun rig rm NAME",
				  .summary = "Remove a saved rig.", .opts = rm_opts };
	int rc = sub_args(&cmd, argc, argv, &name, &g, &fmt, NULL);

	if (rc)
		return rc < 0 ? EXIT_OK_ : rc;
	if (!(cat = cli_open_catalog(&g)))
		return EXIT_ERROR;
	rc = cli_userrigs_store(cat, NULL, name, false, stdout);
	cr_catalog_free(cat);
	return rc;
}

/* ---- rig list / show -------------------------------------------------------- */

static cJSON *rig_json(const cr_rig *r)
{
	char *s = NULL;
	cJSON *o;

	if (cr_userrigs_rig_json(r, &s, NULL))
		return NULL;
	o = cJSON_Parse(s);
	free(s);
	return o;
}

static int emit_json(cJSON *root)
{
	char *s = root ? cli_json_print(root) : NULL;

	cJSON_Delete(root);
	if (!s) {
		fprintf(stderr, "clefrun: out of memory\n");
		return EXIT_ERROR;
	}
	if (cli_puts_json(s)) {
		free(s);
		fprintf(stderr, "clefrun: out of memory\n");
		return EXIT_ERROR;
	}
	free(s);
	return EXIT_OK_;
}

/* Summary cells of a rig; every buffer holds `cap` bytes. */
static void rig_figures(const cr_rig *r, char *mem, char *bw, char *tf, char *kind, char *devs,
			size_t cap)
{
	double tflops = 0;
	size_t used = 0;

	for (unsigned k = 0; k < r->n_devices; k++)
		tflops += r->devices[k].count * r->devices[k].fp16_tflops;
	cli_fmt_mem_number(mem, cap, (double)cr_rig_memory_bytes(r));
	snprintf(bw, cap, "%g", cr_rig_aggregate_bandwidth_gbs(r));
	snprintf(tf, cap, tflops > 0 ? "%g" : "-", tflops);
	kind[0] = devs[0] = '\0';
	for (unsigned k = 0; k < r->n_devices; k++) {
		size_t l = strlen(kind);
		int n;

		snprintf(kind + l, cap - l, "%s%s", k ? "+" : "", cr_mem_kind_name(r->devices[k].kind));
		n = snprintf(devs + used, cap - used, "%s%ux %s", k ? " + " : "", r->devices[k].count,
			     r->devices[k].name);
		if (n > 0 && (size_t)n < cap - used)
			used += (size_t)n;
	}
}

static int rig_list(const cli_globals *g0, int argc, char **argv)
{
	const char *hdr[] = { "ID", "NAME", "MEMORY", "BANDWIDTH GB/s", "FP16 TFLOPS", "KIND",
		"DEVICES" };
	static const bool right[] = { false, false, true, true, true, false, false };
	/* CSV: snake_case headers with the unit in the name, as `clefrun rigs` (docs/cli.md). */
	static const char *const csv_hdr[] = { "id", "name", "memory_bytes",
		"aggregate_bandwidth_gbs", "fp16_tflops", "kind", "devices" };
	cli_globals g = *g0;
	cli_format fmt = FMT_TABLE;
	const char *none = NULL;
	char path[4096];
	cr_catalog *cat;
	cr_user_rigs *set;
	bool exists = false;
	const cli_command cmd = { .name = "clefrun rig list", .usage = "clefrun rig list [--format F]",
				  .summary = "List the saved rigs.", .opts = list_opts };
	int rc = sub_args(&cmd, argc, argv, &none, &g, &fmt, NULL);

	if (rc)
		return rc < 0 ? EXIT_OK_ : rc;
	if (cli_userrigs_path(path, sizeof(path)))
		return EXIT_ERROR;
	if (!(cat = cli_open_catalog(&g)))
		return EXIT_ERROR;
	set = cli_load_user_rigs(cat, path, &exists);
	cr_catalog_free(cat);
	if (!set)
		return EXIT_ERROR;
	if (fmt == FMT_JSON) {
		cJSON *root = cJSON_CreateObject(), *arr;

		cJSON_AddStringToObject(root, "schema", "clefrun.user-rigs-list/1");
		cJSON_AddStringToObject(root, "path", path);
		cJSON_AddBoolToObject(root, "exists", exists);
		arr = cJSON_AddArrayToObject(root, "rigs");
		for (size_t i = 0; i < cr_userrigs_count(set); i++)
			cJSON_AddItemToArray(arr, rig_json(cr_userrigs_at(set, i)));
		cr_userrigs_free(set);
		return emit_json(root);
	}
	cli_table t;

	hdr[2] = cli_mem_heading(); /* after --units */
	cli_table_init(&t, 7, fmt == FMT_CSV ? csv_hdr : hdr, right);
	for (size_t i = 0; i < cr_userrigs_count(set); i++) {
		const cr_rig *r = cr_userrigs_at(set, i);
		char v[5][320];
		const char *cells[7] = { r->id, r->name, v[0], v[1], v[2], v[3], v[4] };

		rig_figures(r, v[0], v[1], v[2], v[3], v[4], sizeof(v[0]));
		if (fmt == FMT_CSV) { /* raw bytes; empty, not "-", when unknown */
			snprintf(v[0], sizeof(v[0]), "%llu", (unsigned long long)cr_rig_memory_bytes(r));
			if (strcmp(v[2], "-") == 0)
				v[2][0] = '\0';
		}
		cli_table_add(&t, cells);
	}
	if (fmt == FMT_CSV || cr_userrigs_count(set))
		cli_table_render(&t, fmt, stdout);
	if (fmt != FMT_CSV && !cli_quiet()) {
		if (!cr_userrigs_count(set))
			printf("No saved rigs%s. Save one with 'clefrun rig add NAME --mem-gb X --bw-gbs Y'\n"
			       "or 'clefrun detect --save NAME'.\n", exists ? "" : " yet");
		printf("%sFile: %s%s\n", cr_userrigs_count(set) ? "\n" : "", path,
		       exists ? "" : " (not created yet)");
	}
	cli_table_free(&t);
	cr_userrigs_free(set);
	return EXIT_OK_;
}

static int rig_show(const cli_globals *g0, int argc, char **argv)
{
	const char *hdr[] = { "DEVICE", "COUNT", "MEMORY", "BANDWIDTH GB/s", "FP16 TFLOPS",
		"BACKEND", "KIND", "USABLE" };
	static const bool right[] = { false, true, true, true, true, false, false, true };
	static const char *const csv_hdr[] = { "rig", "device", "count", "memory_bytes",
		"bandwidth_gbs", "fp16_tflops", "backend", "kind", "usable_fraction" };
	cli_globals g = *g0;
	cli_format fmt = FMT_TABLE;
	const char *name = NULL;
	cli_rig_origin origin;
	cr_catalog *cat;
	const cr_rig *r;
	cr_rig scratch;
	cli_table t;
	const cli_command cmd = {
		.name = "clefrun rig show", .usage = "clefrun rig show NAME [--format F]",
		.summary = "Show a rig: a saved one, a catalog id, 'local' (this machine) or a custom: spec.",
		.opts = show_opts
	};
	int rc = sub_args(&cmd, argc, argv, &name, &g, &fmt, NULL);

	if (rc)
		return rc < 0 ? EXIT_OK_ : rc;
	if (!(cat = cli_open_catalog(&g)))
		return EXIT_ERROR;
	r = cli_resolve_rig(cat, name, &scratch, &origin);
	if (!r) {
		cr_catalog_free(cat);
		return EXIT_USAGE;
	}
	if (fmt == FMT_JSON) {
		cJSON *root = cJSON_CreateObject();

		cJSON_AddStringToObject(root, "schema", "clefrun.rig/1");
		cJSON_AddStringToObject(root, "origin", cli_rig_origin_name(origin));
		cJSON_AddNumberToObject(root, "memory_bytes", (double)cr_rig_memory_bytes(r));
		cJSON_AddNumberToObject(root, "aggregate_bandwidth_gbs",
					cr_rig_aggregate_bandwidth_gbs(r));
		cJSON_AddItemToObject(root, "rig", rig_json(r));
		cr_catalog_free(cat);
		return emit_json(root);
	}
	if (fmt == FMT_CSV) {
		cli_table_init(&t, 9, csv_hdr, NULL);
	} else {
		if (!cli_quiet()) {
			printf("%s%s%s (%s, %s rig)\n", fmt == FMT_MARKDOWN ? "**" : "", cli_safe(r->name),
			       fmt == FMT_MARKDOWN ? "**" : "", cli_safe(r->id), cli_rig_origin_name(origin));
			if (r->notes[0])
				printf("%s\n", cli_safe(r->notes));
			printf("\n");
		}
		hdr[2] = cli_mem_heading(); /* after --units */
		cli_table_init(&t, 8, hdr, right);
	}
	for (unsigned k = 0; k < r->n_devices; k++) {
		const cr_device *d = &r->devices[k];
		char v[5][32];
		const char *cells[9];
		int off = fmt == FMT_CSV;

		snprintf(v[0], 32, "%u", d->count);
		if (fmt == FMT_CSV) /* the column is memory_bytes, of one device */
			snprintf(v[1], 32, "%llu", (unsigned long long)(d->memory_gib * 1073741824.0));
		else
			cli_fmt_mem_number(v[1], 32, d->memory_gib * 1073741824.0);
		snprintf(v[2], 32, "%g", d->bandwidth_gbs);
		/* 0 TFLOPS is "unknown": "-" in a table, an empty CSV field */
		snprintf(v[3], 32, d->fp16_tflops > 0 ? "%g" : fmt == FMT_CSV ? "" : "-", d->fp16_tflops);
		snprintf(v[4], 32, "%g", d->usable_fraction);
		cells[0] = r->id;
		cells[off + 0] = d->name;
		cells[off + 1] = v[0];
		cells[off + 2] = v[1];
		cells[off + 3] = v[2];
		cells[off + 4] = v[3];
		cells[off + 5] = cr_backend_name(d->backend);
		cells[off + 6] = cr_mem_kind_name(d->kind);
		cells[off + 7] = v[4];
		cli_table_add(&t, cells);
	}
	cli_table_render(&t, fmt, stdout);
	cli_table_free(&t);
	if (fmt != FMT_CSV && !cli_quiet())
		printf("\nSources: %s%s\n", r->n_sources ? cli_shown(r->sources[0]) : "-",
		       r->n_sources > 1 ? " (and more: --format json)" : "");
	cr_catalog_free(cat);
	return EXIT_OK_;
}

int cmd_rig(const cli_globals *g, int argc, char **argv)
{
	if (argc < 2) {
		rig_usage(stderr);
		return EXIT_USAGE;
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
		rig_usage(stdout);
		return EXIT_OK_;
	}
	if (strcmp(argv[1], "add") == 0)
		return rig_add(g, argc - 1, argv + 1);
	if (strcmp(argv[1], "list") == 0 || strcmp(argv[1], "ls") == 0)
		return rig_list(g, argc - 1, argv + 1);
	if (strcmp(argv[1], "show") == 0)
		return rig_show(g, argc - 1, argv + 1);
	if (strcmp(argv[1], "rm") == 0 || strcmp(argv[1], "remove") == 0)
		return rig_rm(g, argc - 1, argv + 1);
	fprintf(stderr, "clefrun rig: unknown subcommand '%s' (add, list, show, rm)\n", CLI_CLIP(argv[1]));
	return EXIT_USAGE;
}
