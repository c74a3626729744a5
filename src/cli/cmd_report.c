/*
 * clefrun report: the model page, offline (docs/report.md).
 *
 * This file holds the options both report and chart share (rpt_option) and
 * the command; report_data.c gathers the numbers (rpt_gather) and
 * report_html.c writes the page (rpt_page).
 */
#include <stdlib.h>
#include <string.h>

#include "report_html.h"

static const cli_opt report_opts[] = {
	{ "model", "SOURCE", "catalog id, GGUF path or URL, hf:OWNER/REPO/FILE.gguf or hf:OWNER/REPO:QUANT (required)", RPT_O_MODEL },
	{ "rig", "R", "rig id, custom:..., local or a saved rig; repeatable (default: the 22 reference rigs)", RPT_O_RIG },
	{ "quant", "Q", "quantization preset; repeatable; the first is the rig table's (default: Q2_K..F16, rig table Q4_K_M)", RPT_O_QUANT },
	{ "ctx", "N", "context of the tables, in tokens or Nk (k = 1024; default: 8192, or the model's maximum if smaller; a larger value is an error)", RPT_O_CTX },
	{ "kv-type", "T", "KV cache type: f16, q8_0, q4_0 (default f16)", RPT_O_KV },
	{ "workload", "W", "tier by chat (decode t/s, default) or decide (time-to-decision)", RPT_O_WORKLOAD },
	{ "output", "FILE", "write the HTML page to FILE (a file is replaced atomically, its mode kept; a FIFO or device is written directly); '-' for stdout (required; short: -o FILE)", RPT_O_OUTPUT },
	{ "revision", "R", "Hugging Face revision for hf: sources (default main)", RPT_O_REVISION },
	{ "header-only", NULL, "accept a GGUF file cut after its header (tensor data missing)", RPT_O_HEADER_ONLY },
	{ "catalog", "DIR", "read the catalog from DIR", RPT_O_CATALOG },
	{ NULL, NULL, NULL, 0 },
};

static const char report_usage[] =
	"clefrun report --model ID|SOURCE [--rig R]... [--quant Q]... [--ctx N] -o FILE.html";
static const char report_summary[] =
	"One self-contained HTML page about a model: its facts, memory per quant, fit and speed per\n"
	"rig, a memory-against-context chart, and how the numbers are computed (docs/report.md).\n"
	"No script and nothing that loads from the network: the file can be published as it is.";

/* ---- options (shared with cmd_chart.c) ---------------------------------------- */

int rpt_option(rpt_cfg *c, int id, const char *v)
{
	switch (id) {
	case RPT_O_MODEL:
		if (c->model_id) {
			fprintf(stderr, "%s: --model given twice\n", c->cmd);
			return EXIT_USAGE;
		}
		c->model_id = v;
		return 0;
	case RPT_O_RIG:
		if (cli_repeated(c->rig_ids, c->n_rigs, v))
			return 0;
		if (c->n_rigs == RPT_MAX_RIGS) {
			fprintf(stderr, "%s: at most %d --rig\n", c->cmd, RPT_MAX_RIGS);
			return EXIT_USAGE;
		}
		c->rig_ids[c->n_rigs++] = v;
		return 0;
	case RPT_O_QUANT:
		if (cli_repeated(c->quant_ids, c->n_quants, v))
			return 0;
		if (c->n_quants == RPT_MAX_QUANTS) {
			fprintf(stderr, "%s: at most %d --quant\n", c->cmd, RPT_MAX_QUANTS);
			return EXIT_USAGE;
		}
		c->quant_ids[c->n_quants++] = v;
		return 0;
	case RPT_O_CTX:
		if (cli_parse_tokens("--ctx", v, 1, 0xFFFFFFFFul, &c->ctx))
			return EXIT_USAGE;
		c->ctx_given = true;
		return 0;
	case RPT_O_KV:
		return cli_parse_kv_type("--kv-type", v, &c->kv) ? EXIT_USAGE : 0;
	case RPT_O_WORKLOAD:
		return cli_parse_workload(v, &c->workload) ? EXIT_USAGE : 0;
	case RPT_O_OUTPUT:
		if (c->output) {
			fprintf(stderr, "%s: --output given twice\n", c->cmd);
			return EXIT_USAGE;
		}
		c->output = v;
		return 0;
	case RPT_O_REVISION:
		c->revision = v;
		return 0;
	case RPT_O_HEADER_ONLY:
		c->header_only = true;
		return 0;
	case RPT_O_CATALOG:
		c->g.catalog_dir = v;
		return 0;
	default:
		return EXIT_USAGE;
	}
}

char **rpt_expand_argv(int argc, char **argv)
{
	static char output[] = "--output";
	char **v = calloc((size_t)argc + 1, sizeof(*v));

	if (!v)
		return NULL;
	for (int i = 0; i < argc; i++)
		v[i] = i > 0 && strcmp(argv[i], "-o") == 0 ? output : argv[i];
	return v;
}

int rpt_check_required(const rpt_cfg *c)
{
	if (!c->model_id) {
		fprintf(stderr, "%s: --model is required (see 'clefrun models')\n", c->cmd);
		return EXIT_USAGE;
	}
	if (!c->output) {
		fprintf(stderr, "%s: -o FILE (--output) is required\n", c->cmd);
		return EXIT_USAGE;
	}
	return 0;
}

int cmd_report(const cli_globals *g, int argc, char **argv)
{
	rpt_cfg c;
	rpt_data *d = NULL;
	cli_parser p;
	cli_buf b;
	char **args;
	const char *v;
	int id, rc = 0;

	memset(&c, 0, sizeof(c));
	c.cmd = "clefrun report";
	c.g = *g;
	c.kv = CR_KV_F16;
	args = rpt_expand_argv(argc, argv);
	if (!args) {
		fprintf(stderr, "clefrun: out of memory\n");
		return EXIT_ERROR;
	}
	cli_parser_init(&p, c.cmd, argc, args);
	while (!rc && (id = cli_next(&p, report_opts, &v)) != CLI_OPT_END) {
		if (id == CLI_OPT_HELP) {
			cli_print_help(stdout, report_usage, report_summary, report_opts);
			free(args);
			return EXIT_OK_;
		}
		if (id == CLI_OPT_ERROR) {
			rc = EXIT_USAGE;
		} else if (id == CLI_OPT_POSITIONAL) {
			fprintf(stderr, "%s: unexpected argument '%s' (see --help)\n", c.cmd, v);
			rc = EXIT_USAGE;
		} else {
			rc = rpt_option(&c, id, v);
		}
	}
	if (!rc)
		rc = rpt_check_required(&c);
	if (rc) {
		free(args);
		return rc;
	}
	d = calloc(1, sizeof(*d));
	if (!d) {
		free(args);
		fprintf(stderr, "clefrun: out of memory\n");
		return EXIT_ERROR;
	}
	cli_buf_init(&b);
	rc = rpt_gather(&c, d);
	if (!rc) {
		rpt_page(&b, &c, d);
		rc = cli_buf_write_file(&b, c.output, c.cmd);
	}
	cli_buf_free(&b);
	rpt_free(d);
	free(d);
	free(args);
	return rc;
}
