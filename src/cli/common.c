/* Catalog opening, id resolution with suggestions, human number formats. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

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
	cr_error err = CR_ERROR_INIT;
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
	cli_clipbuf cb;

	fprintf(stderr, "clefrun: unknown %s '%s'", what, cli_shown(cli_clip(id, &cb)));
	for (size_t i = 0; i < n; i++)
		fprintf(stderr, "%s%s", i ? ", " : " (did you mean: ", cli_safe(s[i]));
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

const char *cli_rig_origin_name(cli_rig_origin o)
{
	static const char *const names[] = { "catalog", "custom", "detected", "saved" };

	return (unsigned)o <= RIG_SAVED ? names[o] : "?";
}

int cli_userrigs_path(char *buf, size_t cap)
{
	cr_error err = CR_ERROR_INIT;

	if (cr_userrigs_path(getenv("XDG_CONFIG_HOME"), getenv("HOME"), buf, cap, &err)) {
		fprintf(stderr, "clefrun: %s\n", err.message);
		return -1;
	}
	return 0;
}

cr_user_rigs *cli_load_user_rigs(const cr_catalog *cat, const char *path, bool *exists)
{
	cr_user_rigs *set = NULL;
	cr_error err = CR_ERROR_INIT;

	if (cr_userrigs_load(path, cat, &set, exists, &err)) {
		fprintf(stderr, "clefrun: saved rigs: %s\n"
				"clefrun: the file was left as it is; fix it or move it away\n",
			err.message);
		return NULL;
	}
	return set;
}

/* --rig local: this machine. CLEFRUN_DETECT_ROOT points detection at a
 * fixture tree (tests). */
static const cr_rig *local_rig(const cr_catalog *cat, cr_rig *scratch)
{
	cli_detect_cfg cfg = { NULL, NULL, false, 0, 0 };
	cr_detect_result *r = malloc(sizeof(*r));
	const char *root = getenv("CLEFRUN_DETECT_ROOT");

	if (!r) {
		fprintf(stderr, "clefrun: out of memory\n");
		return NULL;
	}
	cfg.root = root && *root ? root : NULL;
	if (cli_detect(cat, &cfg, r, NULL) != EXIT_OK_) {
		free(r);
		return NULL;
	}
	if (!r->rig_ok) {
		fprintf(stderr, "clefrun: --rig local: %s\n", r->rig_problem);
		free(r);
		return NULL;
	}
	if (r->n_left_out)
		fprintf(stderr, "clefrun: --rig local: %u GPU(s) left out (not in the catalog); see 'clefrun detect'\n",
			r->n_left_out);
	if (r->ram_bandwidth_guessed)
		fprintf(stderr, "clefrun: --rig local: system RAM bandwidth is a guess (%g GB/s); "
				"'clefrun detect --measure-bandwidth --save NAME' saves a measured rig\n",
			r->ram_bandwidth_gbs);
	*scratch = r->rig;
	free(r);
	return scratch;
}

const cr_rig *cli_resolve_rig(const cr_catalog *cat, const char *id, cr_rig *scratch,
			      cli_rig_origin *origin)
{
	const cr_rig *r, *saved;
	cr_user_rigs *set = NULL;
	char path[4096];
	const char *s[4];
	cli_clipbuf cb;
	size_t n;

	if (strncmp(id, CR_RIG_SPEC_PREFIX, strlen(CR_RIG_SPEC_PREFIX)) == 0) {
		cr_error err = CR_ERROR_INIT;

		if (cr_rig_parse_spec(id, scratch, &err)) {
			fprintf(stderr, "clefrun: --rig: %s\n", err.message);
			return NULL;
		}
		*origin = RIG_CUSTOM;
		return scratch;
	}
	r = cr_catalog_find_rig(cat, id);
	if (r) {
		*origin = RIG_CATALOG;
		return r;
	}
	if (strcasecmp(id, CR_USERRIGS_LOCAL_ID) == 0) {
		*origin = RIG_LOCAL;
		return local_rig(cat, scratch);
	}
	/* Saved rigs only after a catalog miss: a broken saved-rigs file
	 * never gets in the way of catalog ids. */
	if (cli_userrigs_path(path, sizeof(path)) == 0)
		set = cli_load_user_rigs(cat, path, NULL);
	saved = cr_userrigs_find(set, id);
	if (saved) {
		*scratch = *saved;
		cr_userrigs_free(set);
		*origin = RIG_SAVED;
		return scratch;
	}
	n = cr_userrigs_suggest(set, cat, id, s, 4);
	fprintf(stderr, "clefrun: unknown rig '%s'", cli_shown(cli_clip(id, &cb)));
	for (size_t i = 0; i < n; i++)
		fprintf(stderr, "%s%s", i ? ", " : " (did you mean: ", cli_safe(s[i]));
	fprintf(stderr, "%s; 'clefrun rigs' lists the catalog, 'clefrun rig list' your saved rigs, "
			"'--rig local' is this machine\n", n ? ")" : "");
	cr_userrigs_free(set);
	return NULL;
}

const cr_rig *cli_find_rig(const cr_catalog *cat, const char *id, cr_rig *scratch)
{
	cli_rig_origin origin;

	return cli_resolve_rig(cat, id, scratch, &origin);
}

bool cli_color(FILE *f)
{
	const char *no = getenv("NO_COLOR"), *term = getenv("TERM");

	if (no && *no)
		return false;
	if (term && strcmp(term, "dumb") == 0)
		return false;
	return isatty(fileno(f)) == 1;
}

static double mem_divisor(void)
{
	return cli_mem_units() == CLI_UNITS_SI ? 1e9 : 1073741824.0;
}

void cli_fmt_mem(char *buf, size_t cap, double bytes)
{
	double g = bytes / mem_divisor();
	const char *unit = cli_mem_units() == CLI_UNITS_SI ? "GB" : "GiB";

	snprintf(buf, cap, g < 10 ? "%.2f %s" : "%.1f %s", g, unit);
}

void cli_fmt_gib(char *buf, size_t cap, double bytes)
{
	cli_fmt_mem(buf, cap, bytes);
}

void cli_fmt_mem_number(char *buf, size_t cap, double bytes)
{
	snprintf(buf, cap, "%g", bytes / mem_divisor());
}

const char *cli_mem_heading(void)
{
	return cli_mem_units() == CLI_UNITS_SI ? "MEMORY GB" : "MEMORY GiB";
}

/* "k" is 1024 tokens, as llama.cpp's context sizes and the --ctx input (CLI_T_TOKENS, args.c):
 * 32768 is "32k"; a value that is not a whole number of k is written exactly ("100000"),
 * never rounded ("97.7k" would not read back). */
void cli_fmt_ctx(char *buf, size_t cap, unsigned ctx)
{
	if (ctx && ctx % 1024 == 0)
		snprintf(buf, cap, "%uk", ctx / 1024);
	else
		snprintf(buf, cap, "%u", ctx);
}

/* Parameters in decimal units (model cards: "8B", "1.0B"), the unit picked after rounding, so
 * that 999.96 million is "1.0B", not "1000M". */
void cli_fmt_params(char *buf, size_t cap, unsigned long long p)
{
	double v = (double)p;

	if (v >= 999.95e9)
		snprintf(buf, cap, "%.1fT", v / 1e12);
	else if (v >= 999.5e6)
		snprintf(buf, cap, "%.1fB", v / 1e9);
	else if (v >= 999.5e3)
		snprintf(buf, cap, "%.0fM", v / 1e6);
	else if (v >= 1e3)
		snprintf(buf, cap, "%.0fK", v / 1e3);
	else
		snprintf(buf, cap, "%llu", p);
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

/* 1: @p s is a selector (filled in @p out); 0: it is not (a rig id or a
 * spec); -1: it is a selector with a bad value (message printed). Catalog
 * and saved ids never hold '=', '<' or '>', so "mem>=24" is never an id;
 * the words all, gpus, unified and cpu are taken before saved rigs. */
int cli_rig_selector_parse(const char *s, cli_rig_sel *out)
{
	static const struct {
		const char *word;
		cli_sel_kind kind;
	} words[] = { { "all", CLI_SEL_ALL }, { "gpus", CLI_SEL_GPUS }, { "unified", CLI_SEL_UNIFIED }, { "cpu", CLI_SEL_CPU } };
	const char *v = NULL;
	char *end;

	for (size_t i = 0; i < sizeof(words) / sizeof(*words); i++)
		if (strcasecmp(s, words[i].word) == 0) {
			out->kind = words[i].kind;
			return 1;
		}
	if (strncasecmp(s, "vendor=", 7) == 0) {
		out->kind = CLI_SEL_VENDOR;
		if (cr_vendor_parse(s + 7, &out->vendor)) {
			fprintf(stderr, "clefrun: --rig %s: expected vendor=nvidia, amd, apple, intel or other\n",
				cli_shown(s));
			return -1;
		}
		return 1;
	}
	if (strncasecmp(s, "mem>=", 5) == 0)
		out->kind = CLI_SEL_MEM_GE, v = s + 5;
	else if (strncasecmp(s, "mem<=", 5) == 0)
		out->kind = CLI_SEL_MEM_LE, v = s + 5;
	else
		return 0;
	out->gib = strtod(v, &end);
	if (end == v || *end || !isfinite(out->gib) || out->gib < 0 || out->gib > CR_RIG_MEMORY_GIB_MAX) {
		fprintf(stderr, "clefrun: --rig %s: expected a memory size in GiB, 0 to %g (mem>=24)\n",
			cli_shown(s), (double)CR_RIG_MEMORY_GIB_MAX);
		return -1;
	}
	return 1;
}

/* Does catalog rig @p r match? gpus: it has a discrete GPU; unified: a
 * unified-memory device; cpu: system memory only; mem: its total memory
 * (every device, as 'clefrun rigs' shows it); vendor: a device of it. */
bool cli_rig_selector_matches(const cli_rig_sel *sel, const cr_rig *r)
{
	double gib = (double)cr_rig_memory_bytes(r) / 1073741824.0;
	bool discrete = false, unified = false, vendor = false;

	for (unsigned i = 0; i < r->n_devices; i++) {
		discrete |= r->devices[i].kind == CR_MEM_DISCRETE;
		unified |= r->devices[i].kind == CR_MEM_UNIFIED;
		vendor |= cr_device_vendor(&r->devices[i]) == sel->vendor;
	}
	switch (sel->kind) {
	case CLI_SEL_GPUS:
		return discrete;
	case CLI_SEL_UNIFIED:
		return unified;
	case CLI_SEL_CPU:
		return !discrete && !unified;
	case CLI_SEL_MEM_GE:
		return gib >= sel->gib;
	case CLI_SEL_MEM_LE:
		return gib <= sel->gib;
	case CLI_SEL_VENDOR:
		return vendor;
	default:
		return true;
	}
}

int cli_open_prices(const char *file, const cli_globals *g, const cr_catalog *cat, cr_prices **out,
		    char *from, size_t cap, cr_error *err)
{
	if (file) {
		snprintf(from, cap, "%s", cli_shown(file));
		return cr_prices_load_file(file, cat, out, err);
	}
	if (g->catalog_dir) {
		char path[4096];

		snprintf(path, sizeof(path), "%s/prices.json", g->catalog_dir);
		snprintf(from, cap, "%s", cli_shown(path));
		return cr_prices_load_file(path, cat, out, err);
	}
	snprintf(from, cap, "the built-in data/prices.json");
	return cr_prices_load_embedded(cat, out, err);
}
