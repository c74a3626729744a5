/*
 * clefrun detect: this machine as a rig. What was found and how (which
 * file, which command) comes first, then the rig; --save stores it as a
 * saved rig. File reading is the library's (cr_detect_run); running
 * nvidia-smi and sysctl is src/cli/sysprobe.c's.
 */
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "cli.h"

static const char detect_usage[] =
	"clefrun detect [--save NAME] [--measure-bandwidth] [--gpu-bw-gbs X] [--root DIR] [--format F]";
static const char detect_summary[] =
	"This machine as a rig: system RAM and CPUs from /proc/meminfo and /sys/devices/system/cpu,\n"
	"NVIDIA GPUs from nvidia-smi, AMD GPUs from /sys/class/drm/card*/device/mem_info_vram_total,\n"
	"Apple silicon from sysctl. GPU bandwidth and TFLOPS come from the catalog device of the\n"
	"same name; an unknown GPU is left out unless --gpu-bw-gbs is given. Without\n"
	"--measure-bandwidth the system RAM bandwidth is a stated guess (51.2 GB/s, dual-channel\n"
	"DDR4-3200). '--rig local' uses this rig in any command.";

typedef struct detect_cfg {
	cli_detect_cfg d;
	const char *save;
	bool force;
	cli_format fmt;
	cli_globals g;
} detect_cfg;

static const cli_opt_spec detect_opts[] = {
	{ .type = CLI_T_STRING, .name = "save", .meta = "NAME", .off = offsetof(detect_cfg, save),
	  .help = "save the detected rig under NAME (see 'clefrun rig')" },
	{ .type = CLI_T_FLAG, .name = "force", .off = offsetof(detect_cfg, force),
	  .help = "with --save: replace a saved rig of the same name" },
	{ .type = CLI_T_FLAG, .name = "measure-bandwidth", .off = offsetof(detect_cfg, d.measure),
	  .help = "measure system RAM read bandwidth (about 1 s, all cores) instead of guessing it" },
	{ .type = CLI_T_STRING, .name = "root", .meta = "DIR", .off = offsetof(detect_cfg, d.root),
	  .help = "read proc/ and sys/ under DIR, run DIR/bin/nvidia-smi and DIR/bin/sysctl if present (test fixtures)" },
	{ .type = CLI_T_DOUBLE, .name = "gpu-bw-gbs", .meta = "X", .off = offsetof(detect_cfg, d.gpu_bw_gbs),
	  .lo = 0.001, .hi = 1e6, .help = "bandwidth (GB/s) to use for GPUs the catalog does not know" },
	{ .type = CLI_T_DOUBLE, .name = "gpu-tflops", .meta = "T", .off = offsetof(detect_cfg, d.gpu_tflops),
	  .lo = 0, .hi = 1e6, .help = "their dense FP16 TFLOPS (default 0: prefill not estimated)" },
	{ CLI_O_FORMAT(detect_cfg, fmt) },
	{ CLI_O_CATALOG(detect_cfg, g.catalog_dir), .help = "read the catalog from DIR (GPU figures come from its devices)" },
	CLI_SPEC_END,
};

static const cli_command detect_cmd = {
	.name = "clefrun detect", .usage = detect_usage, .summary = detect_summary, .opts = detect_opts
};

static int parse_args(detect_cfg *c, int argc, char **argv)
{
	return cli_parse(&detect_cmd, argc, argv, c);
}

static int print_json(const detect_cfg *c, const cr_detect_result *r, const cr_probe_result *pr,
		      const char *saved_path)
{
	cJSON *root = cJSON_CreateObject(), *arr, *cpu;
	char *s = NULL;

	cJSON_AddStringToObject(root, "schema", "clefrun.detect/1");
	cJSON_AddStringToObject(root, "root", c->d.root ? c->d.root : "/");
	arr = cJSON_AddArrayToObject(root, "findings");
	for (unsigned i = 0; i < r->n_findings; i++) {
		const cr_detect_finding *f = &r->findings[i];
		cJSON *o = cJSON_CreateObject();

		cJSON_AddStringToObject(o, "item", f->item);
		cJSON_AddStringToObject(o, "value", f->value);
		cJSON_AddStringToObject(o, "source", f->source);
		cJSON_AddBoolToObject(o, "guess", f->guess);
		cJSON_AddItemToArray(arr, o);
	}
	cpu = cJSON_AddObjectToObject(root, "cpu");
	cJSON_AddStringToObject(cpu, "model", r->cpu_model);
	cJSON_AddNumberToObject(cpu, "logical_cpus", r->cpu_logical);
	cJSON_AddNumberToObject(root, "ram_bytes", (double)r->ram_bytes);
	cJSON_AddNumberToObject(root, "llc_bytes", (double)r->llc_bytes);
	cJSON_AddBoolToObject(root, "unified_memory", r->apple);
	if (r->apple)
		cJSON_AddNullToObject(root, "ram_bandwidth_gbs");
	else
		cJSON_AddNumberToObject(root, "ram_bandwidth_gbs", r->ram_bandwidth_gbs);
	cJSON_AddBoolToObject(root, "ram_bandwidth_guessed", r->ram_bandwidth_guessed);
	if (pr && pr->passes) {
		cJSON *p = cJSON_AddObjectToObject(root, "bandwidth_probe");

		cJSON_AddNumberToObject(p, "gbs", pr->gbs);
		cJSON_AddNumberToObject(p, "min_gbs", pr->min_gbs);
		cJSON_AddNumberToObject(p, "max_gbs", pr->max_gbs);
		cJSON_AddNumberToObject(p, "passes", pr->passes);
		cJSON_AddNumberToObject(p, "threads", pr->threads);
		cJSON_AddNumberToObject(p, "bytes", (double)pr->bytes);
	} else {
		cJSON_AddNullToObject(root, "bandwidth_probe");
	}
	arr = cJSON_AddArrayToObject(root, "gpus");
	for (unsigned i = 0; i < r->n_gpus; i++) {
		const cr_detect_gpu *gp = &r->gpus[i];
		cJSON *o = cJSON_CreateObject();

		cJSON_AddStringToObject(o, "name", gp->name);
		cJSON_AddStringToObject(o, "vendor", gp->vendor);
		cJSON_AddNumberToObject(o, "memory_bytes", (double)(uint64_t)(gp->memory_gib * 1073741824.0));
		cJSON_AddBoolToObject(o, "known", gp->known);
		if (gp->known)
			cJSON_AddStringToObject(o, "catalog_device", gp->catalog_device);
		else
			cJSON_AddNullToObject(o, "catalog_device");
		if (gp->bandwidth_gbs > 0)
			cJSON_AddNumberToObject(o, "bandwidth_gbs", gp->bandwidth_gbs);
		else
			cJSON_AddNullToObject(o, "bandwidth_gbs");
		cJSON_AddNumberToObject(o, "fp16_tflops", gp->fp16_tflops);
		cJSON_AddBoolToObject(o, "in_rig", gp->in_rig);
		cJSON_AddItemToArray(arr, o);
	}
	cJSON_AddNumberToObject(root, "gpus_left_out", r->n_left_out);
	if (r->rig_ok && !cr_userrigs_rig_json(&r->rig, &s, NULL)) {
		cJSON_AddItemToObject(root, "rig", cJSON_Parse(s));
		free(s);
		cJSON_AddNullToObject(root, "rig_problem");
	} else {
		cJSON_AddNullToObject(root, "rig");
		cJSON_AddStringToObject(root, "rig_problem", r->rig_problem);
	}
	if (saved_path) {
		cJSON_AddStringToObject(root, "saved_as", c->save);
		cJSON_AddStringToObject(root, "saved_path", saved_path);
	} else {
		cJSON_AddNullToObject(root, "saved_as");
		cJSON_AddNullToObject(root, "saved_path");
	}
	if (cli_json_emit(root))
		return EXIT_ERROR;
	return EXIT_OK_;
}

static void render_findings(const cr_detect_result *r, cli_format fmt)
{
	static const char *const hdr[] = { "ITEM", "FOUND", "HOW" };
	static const char *const csv_hdr[] = { "item", "value", "source", "guess" };
	cli_table t;

	if (fmt == FMT_CSV)
		cli_table_init(&t, 4, csv_hdr, NULL);
	else
		cli_table_init(&t, 3, hdr, NULL);
	for (unsigned i = 0; i < r->n_findings; i++) {
		const cr_detect_finding *f = &r->findings[i];
		const char *cells[4] = { f->item, f->value, f->source, f->guess ? "true" : "false" };

		cli_table_add(&t, cells);
	}
	cli_table_render(&t, fmt, stdout);
	cli_table_free(&t);
}

static void render_rig(const cr_rig *r, cli_format fmt)
{
	const char *const hdr[] = { "DEVICE", "COUNT", cli_mem_heading(), "BANDWIDTH GB/s",
		"FP16 TFLOPS", "BACKEND", "KIND" };
	static const bool right[] = { false, true, true, true, true, false, false };
	cli_table t;

	cli_table_init(&t, 7, hdr, right);
	for (unsigned k = 0; k < r->n_devices; k++) {
		const cr_device *d = &r->devices[k];
		char v[4][32];
		const char *cells[7] = { d->name, v[0], v[1], v[2], v[3], cr_backend_name(d->backend),
			cr_mem_kind_name(d->kind) };

		snprintf(v[0], 32, "%u", d->count);
		cli_fmt_mem_number(v[1], 32, d->memory_gib * 1073741824.0);
		snprintf(v[2], 32, "%g", d->bandwidth_gbs);
		snprintf(v[3], 32, d->fp16_tflops > 0 ? "%g" : "-", d->fp16_tflops);
		cli_table_add(&t, cells);
	}
	cli_table_render(&t, fmt, stdout);
	cli_table_free(&t);
}

int cmd_detect(const cli_globals *g, int argc, char **argv)
{
	detect_cfg c;
	cr_detect_result *r = NULL;
	cr_probe_result pr;
	cr_catalog *cat = NULL;
	cr_error err = CR_ERROR_INIT;
	char path[4096];
	bool saved = false;
	int rc;

	memset(&c, 0, sizeof(c));
	c.g = *g;
	rc = parse_args(&c, argc, argv);
	if (rc)
		return rc < 0 ? EXIT_OK_ : rc;
	if (c.save && cr_userrigs_check_id(NULL, c.save, NULL, &err)) {
		fprintf(stderr, "clefrun detect: --save: %s\n", err.message);
		return EXIT_USAGE;
	}
	if (!(cat = cli_open_catalog(&c.g)))
		return EXIT_ERROR;
	if (!(r = malloc(sizeof(*r)))) {
		fprintf(stderr, "clefrun: out of memory\n");
		rc = EXIT_ERROR;
		goto out;
	}
	c.d.rig_id = c.save;
	if ((rc = cli_detect(cat, &c.d, r, &pr)) != EXIT_OK_)
		goto out;

	if (c.save) {
		if (!r->rig_ok) {
			fprintf(stderr, "clefrun detect: --save: no rig: %s\n", r->rig_problem);
			rc = EXIT_ERROR;
		} else if (r->n_left_out) {
			fprintf(stderr, "clefrun detect: --save: %u GPU(s) could not be identified; "
					"give their bandwidth with --gpu-bw-gbs, or save the rig by hand with 'clefrun rig add'\n",
				r->n_left_out);
			rc = EXIT_ERROR;
		} else if (cli_userrigs_path(path, sizeof(path))) {
			rc = EXIT_ERROR;
		} else {
			/* The "saved ..." line goes to stderr with --format json, so
			 * that stdout stays one JSON document. */
			rc = cli_userrigs_store(cat, &r->rig, NULL, c.force,
						c.fmt == FMT_JSON ? stderr : stdout);
			saved = rc == EXIT_OK_;
		}
		if (rc != EXIT_OK_)
			goto out;
	}

	if (c.fmt == FMT_JSON) {
		rc = print_json(&c, r, &pr, saved ? path : NULL);
		goto out;
	}
	if (c.fmt != FMT_CSV && !cli_quiet())
		printf("%sFound%s (root %s):\n\n", c.fmt == FMT_MARKDOWN ? "**" : "",
		       c.fmt == FMT_MARKDOWN ? "**" : "", c.d.root ? c.d.root : "/");
	render_findings(r, c.fmt);
	if (c.fmt == FMT_CSV)
		goto out;
	printf("\n");
	if (!r->rig_ok) {
		printf("No rig: %s\n", r->rig_problem);
		rc = EXIT_ERROR;
		goto out;
	}
	if (!cli_quiet())
		printf("%sRig '%s'%s: %s\n\n", c.fmt == FMT_MARKDOWN ? "**" : "", cli_safe(r->rig.id),
		       c.fmt == FMT_MARKDOWN ? "**" : "", cli_safe(r->rig.name));
	render_rig(&r->rig, c.fmt);
	if (cli_quiet())
		goto out;
	printf("\n");
	if (r->ram_bandwidth_guessed)
		printf("System RAM bandwidth is a GUESS (%g GB/s, dual-channel DDR4-3200); run with\n"
		       "--measure-bandwidth for a measured figure.\n", r->ram_bandwidth_gbs);
	if (r->n_left_out)
		printf("%u GPU(s) left out: not in the catalog (give --gpu-bw-gbs).\n", r->n_left_out);
	if (!saved)
		printf("Use it with --rig local, or save it: clefrun detect%s --save NAME\n",
		       c.d.measure ? " --measure-bandwidth" : "");
out:
	free(r);
	cr_catalog_free(cat);
	return rc;
}
