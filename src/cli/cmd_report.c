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

static const char report_usage[] =
	"clefrun report --model ID|SOURCE [--rig R]... [--quant Q]... [--ctx N] -o FILE.html";
static const char report_summary[] =
	"One self-contained HTML page about a model: its facts, memory per quant, fit and speed per\n"
	"rig, a memory-against-context chart, and how the numbers are computed (docs/report.md).\n"
	"No script and nothing that loads from the network: the file can be published as it is.";

static const cli_opt_spec report_opts[] = {
	{ CLI_O_MODEL(rpt_cfg, model_id),
	  .help = "catalog id, GGUF path or URL, hf:OWNER/REPO/FILE.gguf or hf:OWNER/REPO:QUANT (required)" },
	{ CLI_O_RIGS(rpt_cfg, rig_ids, n_rigs),
	  .help = "rig id, custom:..., local or a saved rig; repeatable (default: the 22 reference rigs)" },
	{ CLI_O_QUANTS(rpt_cfg, quant_ids, n_quants),
	  .help = "quantization preset; repeatable; the first is the rig table's (default: Q2_K..F16, rig table Q4_K_M)" },
	{ CLI_O_CTX(rpt_cfg, ctx), .seen = CLI_AT(rpt_cfg, ctx_given),
	  .help = "context of the tables, in tokens or Nk (k = 1024; default: 8192, or the model's maximum if smaller; a larger value is an error)" },
	{ CLI_O_KV_TYPE(rpt_cfg, kv, kv), .help = "KV cache type: f16, q8_0, q4_0 (default f16)" },
	{ CLI_O_WORKLOAD(rpt_cfg, workload) },
	{ CLI_O_OUTPUT(rpt_cfg, output),
	  .help = "write the HTML page to FILE (a file is replaced atomically, its mode kept; a FIFO or device is written directly); '-' for stdout (required; short: -o FILE)" },
	{ CLI_O_REVISION(rpt_cfg, revision), .help = "Hugging Face revision for hf: sources (default main)" },
	{ CLI_O_HEADER_ONLY(rpt_cfg, header_only),
	  .help = "accept a GGUF file cut after its header (tensor data missing)" },
	{ CLI_O_CATALOG(rpt_cfg, g.catalog_dir), .help = CLI_HELP_CATALOG },
	CLI_SPEC_END,
};

static const cli_command report_cmd = {
	.name = "clefrun report", .usage = report_usage, .summary = report_summary, .opts = report_opts
};

int cmd_report(const cli_globals *g, int argc, char **argv)
{
	rpt_cfg c;
	rpt_data *d = NULL;
	cli_buf b;
	int rc;

	memset(&c, 0, sizeof(c));
	c.cmd = report_cmd.name;
	c.g = *g;
	c.kv = CR_KV_F16;
	rc = cli_parse(&report_cmd, argc, argv, &c);
	if (rc)
		return rc < 0 ? EXIT_OK_ : rc;
	d = calloc(1, sizeof(*d));
	if (!d) {
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
	return rc;
}
