/*
 * clefrun: will this model run on this machine, with how much context, and
 * how fast? The command table below is the single list of subcommands.
 */
#include <stdio.h>
#include <string.h>

#include <curl/curl.h>

#include "cli.h"
#include "source_model.h"

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
	{ "rig", cmd_rig, "saved rigs: rig add | list | show | rm" },
	{ "detect", cmd_detect, "this machine as a rig (--rig local); --save NAME stores it" },
};

static void usage(FILE *f)
{
	fprintf(f, "usage: clefrun [--catalog DIR] COMMAND [OPTIONS]\n\n"
		   "Will this LLM run on this machine, with how much context, and how fast?\n\n"
		   "commands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "  %-8s %s\n", commands[i].name, commands[i].summary);
	fprintf(f, "\nglobal options:\n"
		   "  --catalog DIR   read models.json, quants.json, rigs.json from DIR\n"
		   "                  (default: $CLEFRUN_CATALOG, else the built-in catalog)\n"
		   "  --version       print the version and the catalog's version\n"
		   "  -h, --help      show this help; 'clefrun COMMAND --help' for a command\n\n"
		   "exit codes: 0 every row fits, 3 some row misses --require, 2 usage error,\n"
		   "1 other error\n");
}

int main(int argc, char **argv)
{
	cli_globals g = { NULL };
	int i = 1;

	while (i < argc && argv[i][0] == '-') {
		if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
			usage(stdout);
			return EXIT_OK_;
		}
		if (strcmp(argv[i], "--version") == 0) {
			printf("clefrun %s (catalog %s)\n", cr_version(), cr_catalog_version());
			return EXIT_OK_;
		}
		if (strncmp(argv[i], "--catalog=", 10) == 0 && argv[i][10]) {
			g.catalog_dir = argv[i] + 10;
			i++;
		} else if (strcmp(argv[i], "--catalog") == 0 && i + 1 < argc && argv[i + 1][0]) {
			g.catalog_dir = argv[i + 1];
			i += 2;
		} else {
			fprintf(stderr, "clefrun: unknown or incomplete option '%s'\n", argv[i]);
			usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (i >= argc) {
		usage(stderr);
		return EXIT_USAGE;
	}
	for (size_t k = 0; k < sizeof(commands) / sizeof(commands[0]); k++) {
		if (strcmp(argv[i], commands[k].name) == 0) {
			/* libcurl's global state: set up here only (conventions.md). */
			int rc = curl_global_init(CURL_GLOBAL_DEFAULT) == CURLE_OK ? 0 : EXIT_ERROR;

			if (rc == 0)
				rc = commands[k].fn(&g, argc - i, argv + i);
			curl_global_cleanup();
			return rc;
		}
	}
	fprintf(stderr, "clefrun: unknown command '%s'\n", argv[i]);
	usage(stderr);
	return EXIT_USAGE;
}
