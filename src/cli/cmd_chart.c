/*
 * clefrun chart: the report's memory-against-context chart alone, as a
 * standalone SVG file (same numbers, same options as clefrun report).
 */
#include <stdlib.h>
#include <string.h>

#include "report.h"

static const cli_opt chart_opts[] = {
	{ "model", "SOURCE", "catalog id, GGUF path or URL, hf:OWNER/REPO/FILE.gguf or hf:OWNER/REPO:QUANT (required)", RPT_O_MODEL },
	{ "rig", "R", "rig whose usable memory is drawn; repeatable (default: the 22 reference rigs)", RPT_O_RIG },
	{ "quant", "Q", "quantization preset, one curve each; repeatable; the first gets the markers (default: Q2_K..F16, markers Q4_K_M)", RPT_O_QUANT },
	{ "ctx", "N", "context marked on the chart, in tokens or Nk (k = 1024; default: 8192, or the model's maximum if smaller; a larger value is an error)", RPT_O_CTX },
	{ "kv-type", "T", "KV cache type: f16, q8_0, q4_0 (default f16)", RPT_O_KV },
	{ "format", "F", "svg (the only format)", RPT_O_FORMAT },
	{ "output", "FILE", "write the chart to FILE (a file is replaced atomically, its mode kept; a FIFO or device is written directly); '-' for stdout (required; short: -o FILE)", RPT_O_OUTPUT },
	{ "revision", "R", "Hugging Face revision for hf: sources (default main)", RPT_O_REVISION },
	{ "header-only", NULL, "accept a GGUF file cut after its header (tensor data missing)", RPT_O_HEADER_ONLY },
	{ "catalog", "DIR", "read the catalog from DIR", RPT_O_CATALOG },
	{ NULL, NULL, NULL, 0 },
};

static const char chart_usage[] =
	"clefrun chart --model ID|SOURCE [--rig R]... [--quant Q]... [--format svg] -o FILE.svg";
static const char chart_summary[] =
	"Memory against context (log scale) for each quant, with each rig's usable memory as a\n"
	"horizontal line: where a curve crosses a line, that rig runs out (docs/report.md).";

int cmd_chart(const cli_globals *g, int argc, char **argv)
{
	rpt_cfg c;
	rpt_data *d = NULL;
	rpt_chart_storage *s = NULL;
	cli_chart chart;
	cli_parser p;
	cli_buf b;
	char **args;
	const char *v;
	int id, rc = 0;

	memset(&c, 0, sizeof(c));
	c.cmd = "clefrun chart";
	c.g = *g;
	c.kv = CR_KV_F16;
	args = rpt_expand_argv(argc, argv);
	if (!args) {
		fprintf(stderr, "clefrun: out of memory\n");
		return EXIT_ERROR;
	}
	cli_parser_init(&p, c.cmd, argc, args);
	while (!rc && (id = cli_next(&p, chart_opts, &v)) != CLI_OPT_END) {
		if (id == CLI_OPT_HELP) {
			cli_print_help(stdout, chart_usage, chart_summary, chart_opts);
			free(args);
			return EXIT_OK_;
		}
		if (id == CLI_OPT_ERROR) {
			rc = EXIT_USAGE;
		} else if (id == CLI_OPT_POSITIONAL) {
			fprintf(stderr, "%s: unexpected argument '%s' (see --help)\n", c.cmd, v);
			rc = EXIT_USAGE;
		} else if (id == RPT_O_FORMAT) {
			if (strcmp(v, "svg") != 0) {
				fprintf(stderr, "%s: --format: expected svg, got '%s'\n", c.cmd, v);
				rc = EXIT_USAGE;
			}
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
	s = malloc(sizeof(*s));
	if (!d || !s) {
		free(d);
		free(s);
		free(args);
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
	free(args);
	return rc;
}
