/* The option parser: --name value, --name=value, flags; help from the same table. */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli.h"

void cli_parser_init(cli_parser *p, const char *cmd, int argc, char **argv)
{
	p->argc = argc;
	p->argv = argv;
	p->i = 1;
	p->cmd = cmd;
}

/* Options every command takes, before or after its name. cli_next applies
 * them itself, so that each command's table stays its own. */
enum { G_QUIET = 1, G_UNITS };

static const cli_opt global_opts[] = {
	{ "quiet", NULL, "tables and data only: no heading or footer lines", G_QUIET },
	{ "units", "U", "memory in iec (GiB = 2^30 bytes, default) or si (GB = 10^9 bytes)", G_UNITS },
	{ NULL, NULL, NULL, 0 },
};

static bool quiet;
static cli_units units = CLI_UNITS_IEC;

bool cli_quiet(void)
{
	return quiet;
}

cli_units cli_mem_units(void)
{
	return units;
}

static int apply_global(const cli_parser *p, int id, const char *v)
{
	if (id == G_QUIET) {
		quiet = true;
		return 0;
	}
	if (v && strcmp(v, "iec") == 0) {
		units = CLI_UNITS_IEC;
	} else if (v && strcmp(v, "si") == 0) {
		units = CLI_UNITS_SI;
	} else {
		fprintf(stderr, "%s: --units: expected iec or si, got '%s'\n", p->cmd, CLI_CLIP(v ? v : ""));
		return CLI_OPT_ERROR;
	}
	return 0;
}

static int next_one(cli_parser *p, const cli_opt *opts, const char **val);
static int take_value(cli_parser *p, const cli_opt *o, const char *eq, const char **val, int base);

int cli_next(cli_parser *p, const cli_opt *opts, const char **val)
{
	int id;

	for (;;) {
		id = next_one(p, opts, val);
		if (id < CLI_OPT_GLOBAL)
			return id;
		if (apply_global(p, id - CLI_OPT_GLOBAL, *val))
			return CLI_OPT_ERROR;
	}
}

/* One argument: an option of opts (its id), of global_opts (CLI_OPT_GLOBAL
 * + its id), or one of the CLI_OPT_* results. */
static int next_one(cli_parser *p, const cli_opt *opts, const char **val)
{
	const char *a, *eq;
	size_t nlen;

	*val = NULL;
	if (p->i >= p->argc)
		return CLI_OPT_END;
	a = p->argv[p->i++];
	if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0)
		return CLI_OPT_HELP;
	if (strncmp(a, "--", 2) != 0 || a[2] == '\0') {
		if (a[0] == '-' && a[1] != '\0') {
			fprintf(stderr, "%s: unknown option '%s' (see --help)\n", p->cmd, CLI_CLIP(a));
			return CLI_OPT_ERROR;
		}
		*val = a;
		return CLI_OPT_POSITIONAL;
	}
	a += 2;
	eq = strchr(a, '=');
	nlen = eq ? (size_t)(eq - a) : strlen(a);
	for (int table = 0; table < 2; table++) {
		const cli_opt *o = table ? global_opts : opts;
		int base = table ? CLI_OPT_GLOBAL : 0;

		for (; o->name; o++) {
			if (strlen(o->name) == nlen && strncmp(o->name, a, nlen) == 0)
				return take_value(p, o, eq, val, base);
		}
	}
	fprintf(stderr, "%s: unknown option '--%.*s%s' (see --help)\n", p->cmd,
		(int)(nlen > CLI_CLIP_BYTES ? CLI_CLIP_BYTES : nlen), a, nlen > CLI_CLIP_BYTES ? "..." : "");
	return CLI_OPT_ERROR;
}

/* The value of option o (NULL for a flag), from "=value" or the next argument. */
static int take_value(cli_parser *p, const cli_opt *o, const char *eq, const char **val, int base)
{
	if (!o->arg) {
		if (eq) {
			fprintf(stderr, "%s: option '--%s' takes no value\n", p->cmd, o->name);
			return CLI_OPT_ERROR;
		}
		return base + o->id;
	}
	if (eq) {
		*val = eq + 1;
	} else if (p->i < p->argc) {
		*val = p->argv[p->i++];
	} else {
		fprintf(stderr, "%s: option '--%s' needs a value (%s)\n", p->cmd, o->name, o->arg);
		return CLI_OPT_ERROR;
	}
	if (!**val) {
		fprintf(stderr, "%s: option '--%s': empty value (expected %s)\n", p->cmd, o->name,
			o->arg);
		return CLI_OPT_ERROR;
	}
	return base + o->id;
}

void cli_print_options(FILE *f, const cli_opt *opts)
{
	for (const cli_opt *o = opts; o->name; o++) {
		char left[64];

		snprintf(left, sizeof(left), "--%s%s%s", o->name, o->arg ? " " : "",
			 o->arg ? o->arg : "");
		fprintf(f, "  %-26s %s\n", left, o->help);
	}
}

void cli_print_global_options(FILE *f)
{
	cli_print_options(f, global_opts);
}

void cli_print_help(FILE *f, const char *usage, const char *summary, const cli_opt *opts)
{
	fprintf(f, "usage: %s\n\n%s\n\noptions:\n", usage, summary);
	cli_print_options(f, opts);
	cli_print_global_options(f);
	fprintf(f, "  %-26s %s\n", "-h, --help", "show this help");
}

int cli_parse_u32(const char *opt, const char *s, unsigned long lo, unsigned long hi,
		  unsigned *out)
{
	char *end = NULL;
	unsigned long long v;

	if (s[0] == '-' || s[0] == '+' || s[0] == ' ' || s[0] == '\0') {
		fprintf(stderr, "clefrun: %s: expected a whole number from %lu to %lu, got '%s'\n",
			opt, lo, hi, CLI_CLIP(s));
		return -1;
	}
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end || v < lo || v > hi) {
		fprintf(stderr, "clefrun: %s: expected a whole number from %lu to %lu, got '%s'\n",
			opt, lo, hi, CLI_CLIP(s));
		return -1;
	}
	*out = (unsigned)v;
	return 0;
}

bool cli_repeated(const char *const *list, int n, const char *v)
{
	for (int i = 0; i < n; i++)
		if (strcasecmp(list[i], v) == 0)
			return true;
	return false;
}

int cli_parse_tokens(const char *opt, const char *s, unsigned long lo, unsigned long hi,
		     unsigned *out)
{
	size_t n = strlen(s), i;
	unsigned long long v = 0, unit = 1;

	/* "32k" or "32K": a whole number of 1024 tokens (the k of cli_fmt_ctx and of llama.cpp's
	 * context sizes) */
	if (n > 1 && (s[n - 1] == 'k' || s[n - 1] == 'K')) {
		unit = 1024;
		n--;
	}
	for (i = 0; i < n && isdigit((unsigned char)s[i]) && v <= hi; i++)
		v = v * 10 + (unsigned)(s[i] - '0');
	if (n == 0 || i != n || v * unit < lo || v * unit > hi) {
		fprintf(stderr,
			"clefrun: %s: expected a whole number of tokens from %lu to %lu (or Nk, k = 1024), got '%s'\n",
			opt, lo, hi, CLI_CLIP(s));
		return -1;
	}
	*out = (unsigned)(v * unit);
	return 0;
}

int cli_parse_format(const char *s, cli_format *out)
{
	static const char *const names[] = { "table", "json", "csv", "markdown" };

	for (int i = 0; i < 4; i++) {
		if (strcmp(s, names[i]) == 0) {
			*out = (cli_format)i;
			return 0;
		}
	}
	fprintf(stderr, "clefrun: --format: expected table, json, csv or markdown, got '%s'\n", CLI_CLIP(s));
	return -1;
}

/* Values shared by several commands' options; each prints the one message
 * for its option and returns -1 on a bad value. */

int cli_parse_kv_type(const char *opt, const char *s, cr_kv_type *out)
{
	if (cr_kv_type_parse(s, out) == 0)
		return 0;
	fprintf(stderr, "clefrun: %s: expected f16, q8_0 or q4_0, got '%s'\n", opt, CLI_CLIP(s));
	return -1;
}

int cli_parse_flash_attn(const char *s, cr_flash_attn *out)
{
	static const struct {
		const char *name;
		cr_flash_attn v;
	} names[] = { { "on", CR_FA_ON }, { "off", CR_FA_OFF }, { "auto", CR_FA_AUTO } };

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (strcmp(s, names[i].name) == 0) {
			*out = names[i].v;
			return 0;
		}
	}
	fprintf(stderr, "clefrun: --flash-attn: expected on, off or auto, got '%s'\n", CLI_CLIP(s));
	return -1;
}

int cli_parse_workload(const char *s, cr_workload *out)
{
	if (strcmp(s, "chat") == 0) {
		*out = CR_WORKLOAD_CHAT;
		return 0;
	}
	if (strcmp(s, "decide") == 0) {
		*out = CR_WORKLOAD_DECIDE;
		return 0;
	}
	fprintf(stderr, "clefrun: --workload: expected chat or decide, got '%s'\n", CLI_CLIP(s));
	return -1;
}

int cli_parse_require(const char *s, cr_tier *out)
{
	if (cr_tier_parse(s, out) == 0 && *out != CR_TIER_NOFIT && *out != CR_TIER_UNKNOWN)
		return 0;
	fprintf(stderr, "clefrun: --require: expected fast, ok, slow or tight, got '%s'\n", CLI_CLIP(s));
	return -1;
}

int cli_memory_option(int id, const char *v, cr_estimate_opts *o)
{
	switch (id) {
	case CLI_OPT_UBATCH:
		return cli_parse_u32("--ubatch", v, 1, 65536, &o->n_ubatch);
	case CLI_OPT_PARALLEL:
		return cli_parse_u32("--parallel", v, 1, 4096, &o->n_seq);
	case CLI_OPT_SWA_FULL:
		o->swa_full = true;
		return 0;
	default:
		o->kv_unified = true;
		return 0;
	}
}
