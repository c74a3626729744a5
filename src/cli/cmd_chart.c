/*
 * clefrun chart: the report's memory-against-context chart alone, as a
 * standalone SVG file (same numbers, same options as clefrun report).
 */
#include <stdlib.h>
#include <string.h>

#include "report.h"

static const char chart_usage[] =
	"clefrun chart --model ID|SOURCE [--rig R]... [--quant Q]... [--format svg] -o FILE.svg";
static const char chart_summary[] =
	"Memory against context (log scale) for each quant, with each rig's usable memory as a\n"
	"horizontal line: where a curve crosses a line, that rig runs out (docs/report.md).";

static const cli_enum_name svg_only[] = { { "svg", 0 }, { NULL, 0 } };

static const cli_opt_spec chart_opts[] = {
	{ CLI_O_MODEL(rpt_cfg, model_id),
	  .help = "catalog id, GGUF path or URL, hf:OWNER/REPO/FILE.gguf or hf:OWNER/REPO:QUANT (required)" },
	{ CLI_O_RIGS(rpt_cfg, rig_ids, n_rigs),
	  .help = "rig whose usable memory is drawn; repeatable (default: the 22 reference rigs)" },
	{ CLI_O_QUANTS(rpt_cfg, quant_ids, n_quants),
	  .help = "quantization preset, one curve each; repeatable; the first gets the markers (default: Q2_K..F16, markers Q4_K_M)" },
	{ CLI_O_CTX(rpt_cfg, ctx), .seen = CLI_AT(rpt_cfg, ctx_given),
	  .help = "context marked on the chart, in tokens or Nk (k = 1024; default: 8192, or the model's maximum if smaller; a larger value is an error)" },
	{ CLI_O_KV_TYPE(rpt_cfg, kv, kv), .help = "KV cache type: f16, q8_0, q4_0 (default f16)" },
	{ .type = CLI_T_ENUM, .name = "format", .meta = "F", .off = CLI_OFF_SIZED(rpt_cfg, format, sizeof(int)),
	  .names = svg_only, .help = "svg (the only format)" },
	{ CLI_O_OUTPUT(rpt_cfg, output),
	  .help = "write the chart to FILE (a file is replaced atomically, its mode kept; a FIFO or device is written directly); '-' for stdout (required; short: -o FILE)" },
	{ CLI_O_REVISION(rpt_cfg, revision), .help = "Hugging Face revision for hf: sources (default main)" },
	{ CLI_O_HEADER_ONLY(rpt_cfg, header_only),
	  .help = "accept a GGUF file cut after its header (tensor data missing)" },
	{ CLI_O_CATALOG(rpt_cfg, g.catalog_dir), .help = CLI_HELP_CATALOG },
	CLI_SPEC_END,
};

static const cli_command chart_cmd = {
	.name = "clefrun chart", .usage = chart_usage, .summary = chart_summary, .opts = chart_opts
};

int cmd_chart(const cli_globals *g, int argc, char **argv)
{
	rpt_cfg c;
	rpt_data *d = NULL;
	rpt_chart_storage *s = NULL;
	cli_chart chart;
	cli_buf b;
	int rc;

	memset(&c, 0, sizeof(c));
	c.cmd = chart_cmd.name;
	c.g = *g;
	c.kv = CR_KV_F16;
	rc = cli_parse(&chart_cmd, argc, argv, &c);
	if (rc)
		return rc < 0 ? EXIT_OK_ : rc;
	d = calloc(1, sizeof(*d));
	s = malloc(sizeof(*s));
	if (!d || !s) {
		free(d);
		free(s);
		fprintf(stderr, "clefrun: out of memory\n");
		return EXIT_ERROR;
	}
	cli_buf_init(&b);
	rc = rpt_gather(&c, d);
	if (!rc) {
		rpt_chart(d, s, &chart);
		cli_svg_chart(&b, &chart, true);
		rc = cli_buf_write_file(&b, c.output, c.cmd);
	}
	cli_buf_free(&b);
	rpt_free(d);
	free(d);
	free(s);
	return rc;
}
