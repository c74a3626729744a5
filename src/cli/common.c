/* Catalog opening, id resolution with suggestions, human number formats. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

int cli_exit_for_status(int status)
{
	switch (status) {
	case CR_OK:
		return EXIT_OK_;
	case CR_ERR_NOTFOUND:
	case CR_ERR_RANGE:
	case CR_ERR_UNSUPPORTED:
		return EXIT_USAGE;
	default:
		return EXIT_ERROR;
	}
}

cr_catalog *cli_open_catalog(const cli_globals *g)
{
	const char *dir = g->catalog_dir;
	cr_catalog *cat = NULL;
	cr_error err = { 0, "" };
	int rc;

	if (!dir) {
		dir = getenv("CLEFRUN_CATALOG");
		if (dir && !*dir)
			dir = NULL;
	}
	rc = dir ? cr_catalog_load_dir(dir, &cat, &err) : cr_catalog_load_embedded(&cat, &err);
	if (rc) {
		fprintf(stderr, "clefrun: %s\n", err.message);
		return NULL;
	}
	return cat;
}

static void suggest(const cr_catalog *cat, cr_catalog_kind kind, const char *what,
		    const char *id, const char *list_cmd)
{
	const char *s[4];
	size_t n = cr_catalog_suggest(cat, kind, id, s, 4);

	fprintf(stderr, "clefrun: unknown %s '%s'", what, id);
	for (size_t i = 0; i < n; i++)
		fprintf(stderr, "%s%s", i ? ", " : " (did you mean: ", s[i]);
	fprintf(stderr, "%s; 'clefrun %s' lists them all\n", n ? ")" : "", list_cmd);
}

const cr_model *cli_find_model(const cr_catalog *cat, const char *id)
{
	const cr_model *m = cr_catalog_find_model(cat, id);

	if (!m)
		suggest(cat, CR_KIND_MODEL, "model", id, "models");
	return m;
}

const cr_quant *cli_find_quant(const cr_catalog *cat, const char *id)
{
	const cr_quant *q = cr_catalog_find_quant(cat, id);

	if (!q)
		suggest(cat, CR_KIND_QUANT, "quant", id, "quants");
	return q;
}

const cr_rig *cli_find_rig(const cr_catalog *cat, const char *id, cr_rig *scratch)
{
	const cr_rig *r;

	if (strncmp(id, CR_RIG_SPEC_PREFIX, strlen(CR_RIG_SPEC_PREFIX)) == 0) {
		cr_error err = { 0, "" };

		if (cr_rig_parse_spec(id, scratch, &err)) {
			fprintf(stderr, "clefrun: --rig: %s\n", err.message);
			return NULL;
		}
		return scratch;
	}
	r = cr_catalog_find_rig(cat, id);
	if (!r)
		suggest(cat, CR_KIND_RIG, "rig", id, "rigs");
	return r;
}

void cli_fmt_gib(char *buf, size_t cap, double bytes)
{
	double g = bytes / 1073741824.0;

	snprintf(buf, cap, g < 10 ? "%.2f GiB" : "%.1f GiB", g);
}

void cli_fmt_ctx(char *buf, size_t cap, unsigned ctx)
{
	if (ctx && ctx % 1024 == 0)
		snprintf(buf, cap, "%uk", ctx / 1024);
	else if (ctx >= 1024)
		snprintf(buf, cap, "%.1fk", ctx / 1024.0);
	else
		snprintf(buf, cap, "%u", ctx);
}

void cli_fmt_params(char *buf, size_t cap, unsigned long long p)
{
	if (p >= 1000000000ull)
		snprintf(buf, cap, "%.1fB", (double)p / 1e9);
	else
		snprintf(buf, cap, "%.0fM", (double)p / 1e6);
}

void cli_fmt_rate(char *buf, size_t cap, double tps)
{
	if (tps <= 0)
		snprintf(buf, cap, "-");
	else if (tps < 10)
		snprintf(buf, cap, "%.1f", tps);
	else
		snprintf(buf, cap, "%.0f", tps);
}
