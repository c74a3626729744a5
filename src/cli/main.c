/*
 * clefrun: will this model run on this machine, with how much context, and
 * how fast? The command table below is the single list of subcommands.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "source_model.h"
#include "report.h"

static const struct {
	const char *name;
	cli_cmd_fn fn;
	const char *summary;
} commands[] = {
	{ "check", cmd_check, "memory, speed and fit tier of a model per rig and quant" },
	{ "models", cmd_models, "list the catalog's models" },
	{ "rigs", cmd_rigs, "list the catalog's rigs and devices" },
	{ "quants", cmd_quants, "list the quantization presets" },
	{ "inspect", cmd_inspect, "read a GGUF header (file, URL, hf:): metadata, tensor bytes, memory" },
	{ "fit", cmd_fit, "what can this rig run: every model with its best quant, ranked" },
	{ "buy", cmd_buy, "what to buy or rent to run a model: priced rigs, cheapest first" },
	{ "plan", cmd_plan, "serving plan: decode and decisions with N parallel sequences" },
	{ "rig", cmd_rig, "saved rigs: rig add | list | show | rm" },
	{ "detect", cmd_detect, "this machine as a rig (--rig local); --save NAME stores it" },
	{ "report", cmd_report, "one self-contained HTML page: facts, quants, rigs, chart" },
	{ "chart", cmd_chart, "the memory-against-context chart as an SVG file" },
};

/* Options before the command; --quiet and --units are taken by cli_parse
 * itself (they may also follow the command). */
typedef struct main_cfg {
	cli_globals g;
	bool version;
	char **cmd_argv;  /* the command and its arguments */
	int cmd_argc;
} main_cfg;

static const cli_opt_spec main_opts[] = {
	{ CLI_O_CATALOG(main_cfg, g.catalog_dir), .help = "read models.json, quants.json, rigs.json from DIR (default: $CLEFRUN_CATALOG, else the built-in catalog)" },
	{ .type = CLI_T_FLAG, .name = "version", .off = offsetof(main_cfg, version), .flags = CLI_F_STOP,
	  .help = "print the versions of clefrun, its library and its built-in catalog" },
	{ .type = CLI_T_ARGS, .meta = "COMMAND", .off = offsetof(main_cfg, cmd_argv), .count = CLI_AT(main_cfg, cmd_argc) },
	CLI_SPEC_END,
};

static void usage(FILE *f)
{
	fprintf(f, "usage: clefrun [GLOBAL OPTIONS] COMMAND [OPTIONS]\n\n"
		   "Will this LLM run on this machine, with how much context, and how fast?\n\n"
		   "commands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "  %-8s %s\n", commands[i].name, commands[i].summary);
	fprintf(f, "\nglobal options:\n");
	cli_print_specs(f, main_opts);
	cli_print_global_specs(f);
	fprintf(f, "  %-26s %s\n", "-h, --help", "show this help; 'clefrun COMMAND --help' for a command");
	fprintf(f, "\nexit codes: 0 every row fits, 3 some row misses --require, 2 usage error,\n"
		   "1 other error\n");
}

static void version(const cli_globals *g)
{
	const char *env = getenv("CLEFRUN_CATALOG");

	printf("clefrun %s (libclefrun %s)\n", CR_VERSION_STRING, cr_version());
	printf("catalog %s of %s (sha256 %.12s), built in\n", cr_catalog_version(), cr_catalog_date(),
	       cr_catalog_sha256());
	if (g->catalog_dir)
		printf("catalog in use: %s (--catalog)\n", g->catalog_dir);
	else if (env && *env)
		printf("catalog in use: %s (CLEFRUN_CATALOG)\n", env);
}

int main(int argc, char **argv)
{
	static const cli_command main_cmd = { .name = "clefrun", .opts = main_opts, .help = usage };
	main_cfg m = { { NULL }, false, NULL, 0 };
	int parsed = cli_parse(&main_cmd, argc, argv, &m);

	if (parsed)
		return parsed < 0 ? EXIT_OK_ : parsed;
	if (m.version) {
		version(&m.g);
		return EXIT_OK_;
	}
	if (!m.cmd_argv) {
		usage(stderr);
		return EXIT_USAGE;
	}
	for (size_t k = 0; k < sizeof(commands) / sizeof(commands[0]); k++) {
		/* libcurl is loaded, and its global state set up, by the library
		 * at the first URL (src/lib/source/curl_dl.h): no command pays for it
		 * unless it reads a URL. */
		if (strcmp(m.cmd_argv[0], commands[k].name) == 0)
			return commands[k].fn(&m.g, m.cmd_argc, m.cmd_argv);
	}
	fprintf(stderr, "clefrun: unknown command '%s'\n", CLI_CLIP(m.cmd_argv[0]));
	usage(stderr);
	return EXIT_USAGE;
}
