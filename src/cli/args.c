/*
 * The option parser (cli.h, "option specs"): one loop for every command,
 * driven by its table of cli_opt_spec, and --help written from the same
 * table. The value checks below print the one message of their kind:
 * "clefrun: --OPT: expected ..., got 'VALUE'" (the value clipped and made
 * safe to print); mistakes of shape (unknown option, missing value) name
 * the command: "clefrun check: option '--ctx' needs a value (N)".
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli.h"

/* The global options' values, process-wide (cli_quiet, cli_mem_units). */
typedef struct cli_settings {
	bool quiet;
	int units; /* cli_units */
} cli_settings;

static cli_settings settings = { false, CLI_UNITS_IEC };

bool cli_quiet(void)
{
	return settings.quiet;
}

cli_units cli_mem_units(void)
{
	return (cli_units)settings.units;
}

static int parse_double(const char *opt, const char *s, double lo, double hi, double *out)
{
	char *end = NULL;
	cli_clipbuf cb;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (s[0] == ' ' || s[0] == '\0' || errno || *end || !isfinite(v) || v < lo || v > hi) {
		fprintf(stderr, "clefrun: %s: expected a number from %g to %g, got '%s'\n", opt, lo, hi,
			cli_safe(cli_clip(s, &cb)));
		return -1;
	}
	*out = v;
	return 0;
}

const char *cli_clip(const char *s, cli_clipbuf *b)
{
	size_t n = strlen(s), k = CLI_CLIP_BYTES;

	if (n <= CLI_CLIP_BYTES)
		return s;
	while (k > 0 && ((unsigned char)s[k] & 0xC0) == 0x80) /* not inside a UTF-8 sequence */
		k--;
	snprintf(b->s, sizeof(b->s), "%.*s... (%zu bytes)", (int)k, s, n);
	return b->s;
}

static int parse_u32(const char *opt, const char *s, unsigned long lo, unsigned long hi, unsigned *out)
{
	char *end = NULL;
	unsigned long long v;

	if (s[0] == '-' || s[0] == '+' || s[0] == ' ' || s[0] == '\0') {
		fprintf(stderr, "clefrun: %s: expected a whole number from %lu to %lu, got '%s'\n",
			opt, lo, hi, cli_safe(CLI_CLIP(s)));
		return -1;
	}
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end || v < lo || v > hi) {
		fprintf(stderr, "clefrun: %s: expected a whole number from %lu to %lu, got '%s'\n",
			opt, lo, hi, cli_safe(CLI_CLIP(s)));
		return -1;
	}
	*out = (unsigned)v;
	return 0;
}

static bool repeated(const char *const *list, int n, const char *v)
{
	for (int i = 0; i < n; i++)
		if (strcasecmp(list[i], v) == 0)
			return true;
	return false;
}

static int parse_tokens(const char *opt, const char *s, unsigned long lo, unsigned long hi, unsigned *out)
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
			opt, lo, hi, cli_safe(CLI_CLIP(s)));
		return -1;
	}
	*out = (unsigned)(v * unit);
	return 0;
}

/* ---- the spec parser (cli.h, "option specs") ------------------------------------ */

/* The words of the shared enum options, in the order the messages list them. */
const cli_enum_name cli_kv_type_names[] = {
	{ "f16", CR_KV_F16 }, { "q8_0", CR_KV_Q8_0 }, { "q4_0", CR_KV_Q4_0 }, { NULL, 0 }
};
const cli_enum_name cli_flash_attn_names[] = {
	{ "on", CR_FA_ON }, { "off", CR_FA_OFF }, { "auto", CR_FA_AUTO }, { NULL, 0 }
};
const cli_enum_name cli_workload_names[] = {
	{ "chat", CR_WORKLOAD_CHAT }, { "decide", CR_WORKLOAD_DECIDE }, { NULL, 0 }
};
/* The tiers a row can be asked to reach: not unknown, not no-fit. */
const cli_enum_name cli_require_names[] = {
	{ "fast", CR_TIER_FAST }, { "ok", CR_TIER_OK }, { "slow", CR_TIER_SLOW },
	{ "tight", CR_TIER_TIGHT }, { NULL, 0 }
};
const cli_enum_name cli_format_names[] = {
	{ "table", FMT_TABLE }, { "json", FMT_JSON }, { "csv", FMT_CSV }, { "markdown", FMT_MARKDOWN },
	{ NULL, 0 }
};
const cli_enum_name cli_split_names[] = {
	{ "layer", CR_SPLIT_LAYER }, { "tensor", CR_SPLIT_TENSOR }, { NULL, 0 }
};
static const cli_enum_name units_names[] = {
	{ "iec", CLI_UNITS_IEC }, { "si", CLI_UNITS_SI }, { NULL, 0 }
};

/* Options every command takes, before or after its name, into settings. */
static const cli_opt_spec global_specs[] = {
	{ .type = CLI_T_FLAG, .name = "quiet", .off = offsetof(cli_settings, quiet),
	  .help = "tables and data only: no heading or footer lines" },
	{ .type = CLI_T_ENUM, .name = "units", .meta = "U", .off = CLI_OFF_SIZED(cli_settings, units, sizeof(int)),
	  .names = units_names, .help = "memory in iec (GiB = 2^30 bytes, default) or si (GB = 10^9 bytes)" },
	CLI_SPEC_END,
};

/* A command table longer than this is a programming error, refused at run time. */
#define MAX_SPECS 64

typedef struct parse_state {
	const cli_command *cmd;
	int argc;
	char **argv;
	int i;                    /* next argument */
	char *cfg;
	bool literal;             /* after "--": every argument is positional */
	bool stop;                /* a CLI_F_STOP option or CLI_T_ARGS ended parsing */
	bool seen[MAX_SPECS];     /* per entry of cmd->opts */
} parse_state;

static size_t value_size(cli_opt_type t)
{
	switch (t) {
	case CLI_T_FLAG:
		return sizeof(bool);
	case CLI_T_UINT:
	case CLI_T_TOKENS:
		return sizeof(unsigned);
	case CLI_T_DOUBLE:
		return sizeof(double);
	case CLI_T_ENUM:
		return sizeof(int);
	default:
		return sizeof(char *);
	}
}

/* "expected a, b or c" from an enum's names. */
static void enum_expected(const cli_opt_spec *s, char *buf, size_t cap)
{
	size_t n = 0, len;

	if (s->expect) {
		snprintf(buf, cap, "%s", s->expect);
		return;
	}
	while (s->names[n].name)
		n++;
	len = (size_t)snprintf(buf, cap, "expected");
	for (size_t k = 0; k < n && len < cap; k++)
		len += (size_t)snprintf(buf + len, cap - len, "%s%s", k == 0 ? " " : k + 1 == n ? " or " : ", ",
					s->names[k].name);
}

static int enum_value(const cli_opt_spec *s, const char *v, int *out)
{
	char want[256];

	for (const cli_enum_name *e = s->names; e->name; e++) {
		if ((s->flags & CLI_F_NOCASE) ? strcasecmp(v, e->name) == 0 : strcmp(v, e->name) == 0) {
			*out = e->value;
			return 0;
		}
	}
	enum_expected(s, want, sizeof(want));
	fprintf(stderr, "clefrun: --%s: %s, got '%s'\n", s->name, want, cli_safe(CLI_CLIP(v)));
	return -1;
}

/* Convert v (NULL for a flag) as s says and store it into base; idx: s's
 * entry in the command's table, -1 for a global option. */
static int store(parse_state *st, const cli_opt_spec *s, int idx, char *base, const char *v)
{
	char opt[80];
	bool yes = true;

	snprintf(opt, sizeof(opt), "--%s", s->name);
	switch (s->type) {
	case CLI_T_FLAG:
		memcpy(base + s->off, &yes, sizeof(yes));
		break;
	case CLI_T_STRING:
		if ((s->flags & CLI_F_ONCE) && idx >= 0 && st->seen[idx]) {
			fprintf(stderr, "%s: --%s given twice\n", st->cmd->name, s->name);
			return EXIT_USAGE;
		}
		memcpy(base + s->off, &v, sizeof(v));
		break;
	case CLI_T_UINT:
	case CLI_T_TOKENS: {
		unsigned u;
		int bad = s->type == CLI_T_UINT
				  ? parse_u32(opt, v, (unsigned long)s->lo, (unsigned long)s->hi, &u)
				  : parse_tokens(opt, v, (unsigned long)s->lo, (unsigned long)s->hi, &u);

		if (bad)
			return EXIT_USAGE;
		memcpy(base + s->off, &u, sizeof(u));
		break;
	}
	case CLI_T_DOUBLE: {
		double d;

		if (parse_double(opt, v, s->lo, s->hi, &d))
			return EXIT_USAGE;
		memcpy(base + s->off, &d, sizeof(d));
		break;
	}
	case CLI_T_ENUM: {
		int e;

		if (enum_value(s, v, &e))
			return EXIT_USAGE;
		memcpy(base + s->off, &e, sizeof(e));
		break;
	}
	case CLI_T_LIST: {
		const char *const *ids = (const char *const *)(const void *)(base + s->off);
		int n;

		memcpy(&n, base + s->count - 1, sizeof(n));
		if (repeated(ids, n, v))
			break;
		if (n < 0 || (unsigned)n >= s->max) {
			fprintf(stderr, "%s: at most %u --%s\n", st->cmd->name, s->max, s->name);
			return EXIT_USAGE;
		}
		memcpy(base + s->off + (size_t)n * sizeof(char *), &v, sizeof(v));
		n++;
		memcpy(base + s->count - 1, &n, sizeof(n));
		break;
	}
	default:
		return EXIT_USAGE;
	}
	if (s->also)
		memmove(base + s->also - 1, base + s->off, value_size(s->type));
	if (s->seen)
		memcpy(base + s->seen - 1, &yes, sizeof(yes));
	if (idx >= 0)
		st->seen[idx] = true;
	if (s->flags & CLI_F_STOP)
		st->stop = true;
	return 0;
}

/* The value of option s (NULL for a flag), from "=value" or the next argument. */
static int option_value(parse_state *st, const cli_opt_spec *s, const char *eq, const char **val)
{
	const char *cmd = st->cmd->name;

	*val = NULL;
	if (s->type == CLI_T_FLAG) {
		if (eq) {
			fprintf(stderr, "%s: option '--%s' takes no value\n", cmd, s->name);
			return EXIT_USAGE;
		}
		return 0;
	}
	if (eq) {
		*val = eq + 1;
	} else if (st->i < st->argc) {
		*val = st->argv[st->i++];
	} else {
		fprintf(stderr, "%s: option '--%s' needs a value (%s)\n", cmd, s->name, s->meta);
		return EXIT_USAGE;
	}
	if (!**val) {
		fprintf(stderr, "%s: option '--%s': empty value (expected %s)\n", cmd, s->name, s->meta);
		return EXIT_USAGE;
	}
	return 0;
}

/* The entry of the command's table or of the global one that a (after its
 * dashes: len bytes of a long name, or a short name's letter) names. */
static const cli_opt_spec *lookup(const parse_state *st, const char *a, size_t len, bool alias,
				  int *idx, char **base)
{
	for (int table = 0; table < 2; table++) {
		const cli_opt_spec *specs = table ? global_specs : st->cmd->opts;

		for (int k = 0; specs[k].type != CLI_T_NONE; k++) {
			const cli_opt_spec *s = &specs[k];
			bool hit = alias ? s->alias && s->alias == a[0]
					 : s->name && strlen(s->name) == len && strncmp(s->name, a, len) == 0;

			if (hit) {
				*idx = table ? -1 : k;
				*base = table ? (char *)&settings : st->cfg;
				return s;
			}
		}
	}
	return NULL;
}

static int option(parse_state *st, const char *a)
{
	const cli_opt_spec *s;
	const char *eq = NULL, *v;
	char *base;
	size_t len;
	int idx, rc;

	if (a[1] != '-') { /* -o: a short name, its value the next argument */
		s = a[2] == '\0' ? lookup(st, a + 1, 1, true, &idx, &base) : NULL;
		if (!s) {
			fprintf(stderr, "%s: unknown option '%s' (see --help)\n", st->cmd->name, cli_safe(CLI_CLIP(a)));
			return EXIT_USAGE;
		}
	} else {
		a += 2;
		eq = strchr(a, '=');
		len = eq ? (size_t)(eq - a) : strlen(a);
		s = lookup(st, a, len, false, &idx, &base);
		if (!s) {
			char shown[CLI_CLIP_BYTES + 8];

			snprintf(shown, sizeof(shown), "--%.*s%s", (int)(len > CLI_CLIP_BYTES ? CLI_CLIP_BYTES : len), a,
				 len > CLI_CLIP_BYTES ? "..." : "");
			fprintf(stderr, "%s: unknown option '%s' (see --help)\n", st->cmd->name, cli_safe(shown));
			return EXIT_USAGE;
		}
	}
	if ((rc = option_value(st, s, eq, &v)))
		return rc;
	return store(st, s, idx, base, v);
}

/* A positional argument (argv[at]): the next free CLI_T_ARG, or CLI_T_ARGS. */
static int positional(parse_state *st, int at)
{
	const char *a = st->argv[at];
	const cli_opt_spec *taken = NULL;
	const char *first = NULL;

	for (int k = 0; st->cmd->opts[k].type != CLI_T_NONE; k++) {
		const cli_opt_spec *s = &st->cmd->opts[k];

		if (s->type == CLI_T_ARGS) {
			char **rest = st->argv + at;
			int n = st->argc - at;

			memcpy(st->cfg + s->off, &rest, sizeof(rest));
			memcpy(st->cfg + s->count - 1, &n, sizeof(n));
			st->stop = true;
			return 0;
		}
		if (s->type != CLI_T_ARG)
			continue;
		if (!st->seen[k]) {
			memcpy(st->cfg + s->off, &a, sizeof(a));
			st->seen[k] = true;
			return 0;
		}
		taken = s;
		memcpy(&first, st->cfg + s->off, sizeof(first));
	}
	if (taken)
		fprintf(stderr, "%s: one %s only (got '%s' and '%s')\n", st->cmd->name, taken->meta,
			cli_shown(CLI_CLIP(first)), cli_shown(CLI_CLIP(a)));
	else
		fprintf(stderr, "%s: unexpected argument '%s' (see --help)\n", st->cmd->name, cli_shown(CLI_CLIP(a)));
	return EXIT_USAGE;
}

int cli_parse(const cli_command *cmd, int argc, char **argv, void *cfg)
{
	parse_state st;
	int n = 0, rc;

	memset(&st, 0, sizeof(st));
	st.cmd = cmd;
	st.argc = argc;
	st.argv = argv;
	st.i = 1;
	st.cfg = cfg;
	while (cmd->opts[n].type != CLI_T_NONE)
		n++;
	if (n > MAX_SPECS) {
		fprintf(stderr, "%s: internal error: more than %d options\n", cmd->name, MAX_SPECS);
		return EXIT_ERROR;
	}
	while (st.i < argc && !st.stop) {
		const char *a = argv[st.i++];

		rc = 0;
		if (!st.literal && (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0)) {
			if (cmd->help)
				cmd->help(stdout);
			else
				cli_print_command_help(stdout, cmd);
			return CLI_PARSE_HELP;
		}
		if (!st.literal && strcmp(a, "--") == 0)
			st.literal = true; /* POSIX utility syntax guideline 10 */
		else if (!st.literal && a[0] == '-' && a[1] != '\0')
			rc = option(&st, a);
		else
			rc = positional(&st, st.i - 1);
		if (rc)
			return rc;
	}
	if (st.stop)
		return 0;
	for (int k = 0; k < n; k++) {
		if (cmd->opts[k].required && !st.seen[k]) {
			fprintf(stderr, "%s: %s\n", cmd->name, cmd->opts[k].required);
			return EXIT_USAGE;
		}
	}
	return 0;
}

void cli_print_specs(FILE *f, const cli_opt_spec *specs)
{
	for (const cli_opt_spec *s = specs; s->type != CLI_T_NONE; s++) {
		char left[64];

		if (!s->name)
			continue;
		snprintf(left, sizeof(left), "--%s%s%s", s->name, s->meta ? " " : "", s->meta ? s->meta : "");
		fprintf(f, "  %-26s %s\n", left, s->help);
	}
}

void cli_print_global_specs(FILE *f)
{
	cli_print_specs(f, global_specs);
}

void cli_print_command_help(FILE *f, const cli_command *cmd)
{
	fprintf(f, "usage: %s\n\n%s\n\noptions:\n", cmd->usage, cmd->summary);
	cli_print_specs(f, cmd->opts);
	cli_print_global_specs(f);
	fprintf(f, "  %-26s %s\n", "-h, --help", "show this help");
}
