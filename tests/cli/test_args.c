/* The CLI's option parser (src/cli/args.c, cli_parse): one row per kind of
 * argument, each with the status, the message on stderr and the fields it
 * must leave in the config struct. */
#include "unit.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "cli.h"

typedef struct tcfg {
	bool flag;
	const char *model;
	const char *plain;
	unsigned u;
	unsigned ctx;
	bool ctx_given;
	double scale;
	cr_kv_type k, v;
	cli_format fmt;
	const char *ids[3];
	int n_ids;
	const char *name;
	const char *out;
} tcfg;

static const cli_opt_spec specs[] = {
	{ .type = CLI_T_FLAG, .name = "flag", .off = offsetof(tcfg, flag), .help = "a flag" },
	{ .type = CLI_T_STRING, .name = "model", .meta = "SOURCE", .off = offsetof(tcfg, model),
	  .flags = CLI_F_ONCE, .help = "once" },
	{ .type = CLI_T_STRING, .name = "plain", .meta = "S", .off = offsetof(tcfg, plain), .help = "last wins" },
	{ .type = CLI_T_UINT, .name = "uint", .meta = "N", .off = offsetof(tcfg, u), .lo = 1, .hi = 10,
	  .help = "a number" },
	{ CLI_O_CTX(tcfg, ctx), .seen = CLI_AT(tcfg, ctx_given), .help = "context" },
	{ .type = CLI_T_DOUBLE, .name = "scale", .meta = "X", .off = offsetof(tcfg, scale), .lo = 0.5, .hi = 2,
	  .help = "a decimal" },
	{ CLI_O_KV_TYPE(tcfg, k, v), .help = "K and V" },
	{ CLI_O_KV_TYPE_K(tcfg, k) },
	{ CLI_O_FORMAT(tcfg, fmt) },
	{ CLI_O_QUANTS(tcfg, ids, n_ids), .help = "repeatable" },
	{ .type = CLI_T_ARG, .meta = "NAME", .off = offsetof(tcfg, name) },
	{ .type = CLI_T_STRING, .name = "output", .alias = 'o', .meta = "FILE", .off = offsetof(tcfg, out),
	  .flags = CLI_F_ONCE, .help = "short: -o" },
	CLI_SPEC_END,
};

static const cli_command cmd = { .name = "t", .usage = "t [OPTIONS] [NAME]", .summary = "A test.", .opts = specs };

/* What a row leaves in the config. */
typedef struct want {
	bool flag;
	const char *model, *plain;
	unsigned u, ctx;
	bool ctx_given;
	double scale;
	cr_kv_type k, v;
	cli_format fmt;
	int n_ids;
	const char *id0, *id1;
	const char *name, *out;
} want;

#define START { .flag = false }

typedef struct row {
	const char *what;
	const char *args[12]; /* after argv[0]; NULL ends */
	int rc;
	const char *err;     /* stderr, exactly */
	want w;              /* when rc == 0 */
} row;

/* The config starts zeroed: the fields a row does not name stay 0. */
#define W(...) { __VA_ARGS__ }

static const row rows[] = {
	{ "nothing", { NULL }, 0, "", W(.flag = false) },
	{ "flag", { "--flag", NULL }, 0, "", W(.flag = true) },
	{ "flag with a value", { "--flag=1", NULL }, EXIT_USAGE, "t: option '--flag' takes no value\n", START },
	{ "string, --opt value", { "--plain", "a", NULL }, 0, "", W(.plain = "a") },
	{ "string, --opt=value", { "--plain=a=b", NULL }, 0, "", W(.plain = "a=b") },
	{ "string, last wins", { "--plain", "a", "--plain", "b", NULL }, 0, "", W(.plain = "b") },
	{ "string value that looks like an option", { "--plain", "--flag", NULL }, 0, "", W(.plain = "--flag") },
	{ "once, twice", { "--model", "a", "--model", "b", NULL }, EXIT_USAGE, "t: --model given twice\n", START },
	{ "missing value", { "--uint", NULL }, EXIT_USAGE, "t: option '--uint' needs a value (N)\n", START },
	{ "empty value, =", { "--uint=", NULL }, EXIT_USAGE, "t: option '--uint': empty value (expected N)\n", START },
	{ "empty value, argument", { "--plain", "", NULL }, EXIT_USAGE,
	  "t: option '--plain': empty value (expected S)\n", START },
	{ "uint in range", { "--uint", "10", NULL }, 0, "", W(.u = 10) },
	{ "uint, =", { "--uint=1", NULL }, 0, "", W(.u = 1) },
	{ "uint below", { "--uint", "0", NULL }, EXIT_USAGE,
	  "clefrun: --uint: expected a whole number from 1 to 10, got '0'\n", START },
	{ "uint above", { "--uint", "11", NULL }, EXIT_USAGE,
	  "clefrun: --uint: expected a whole number from 1 to 10, got '11'\n", START },
	{ "uint negative", { "--uint", "-1", NULL }, EXIT_USAGE,
	  "clefrun: --uint: expected a whole number from 1 to 10, got '-1'\n", START },
	{ "uint with garbage", { "--uint", "5x", NULL }, EXIT_USAGE,
	  "clefrun: --uint: expected a whole number from 1 to 10, got '5x'\n", START },
	{ "tokens, k", { "--ctx", "32k", NULL }, 0, "", W(.ctx = 32768, .ctx_given = true) },
	{ "tokens at the bound", { "--ctx=1073741824", NULL }, 0, "", W(.ctx = 1073741824u, .ctx_given = true) },
	{ "tokens above the bound", { "--ctx", "1073741825", NULL }, EXIT_USAGE,
	  "clefrun: --ctx: expected a whole number of tokens from 1 to 1073741824 (or Nk, k = 1024), got '1073741825'\n",
	  START },
	{ "tokens, k above the bound", { "--ctx", "1048577k", NULL }, EXIT_USAGE,
	  "clefrun: --ctx: expected a whole number of tokens from 1 to 1073741824 (or Nk, k = 1024), got '1048577k'\n",
	  START },
	{ "tokens zero", { "--ctx", "0", NULL }, EXIT_USAGE,
	  "clefrun: --ctx: expected a whole number of tokens from 1 to 1073741824 (or Nk, k = 1024), got '0'\n", START },
	{ "double in range", { "--scale", "1.5", NULL }, 0, "", W(.scale = 1.5) },
	{ "double above", { "--scale", "2.5", NULL }, EXIT_USAGE,
	  "clefrun: --scale: expected a number from 0.5 to 2, got '2.5'\n", START },
	{ "double nan", { "--scale=nan", NULL }, EXIT_USAGE,
	  "clefrun: --scale: expected a number from 0.5 to 2, got 'nan'\n", START },
	{ "enum into two fields", { "--kv-type", "q8_0", NULL }, 0, "", W(.k = CR_KV_Q8_0, .v = CR_KV_Q8_0) },
	{ "enum in any case", { "--kv-type=Q4_0", NULL }, 0, "", W(.k = CR_KV_Q4_0, .v = CR_KV_Q4_0) },
	{ "enum into one field", { "--kv-type-k", "q8_0", NULL }, 0, "", W(.k = CR_KV_Q8_0) },
	{ "enum, later wins per field", { "--kv-type", "q8_0", "--kv-type-k", "f16", NULL }, 0, "",
	  W(.k = CR_KV_F16, .v = CR_KV_Q8_0) },
	{ "enum, bad word", { "--kv-type", "bf16", NULL }, EXIT_USAGE,
	  "clefrun: --kv-type: expected f16, q8_0 or q4_0, got 'bf16'\n", START },
	{ "enum, case kept", { "--format", "JSON", NULL }, EXIT_USAGE,
	  "clefrun: --format: expected table, json, csv or markdown, got 'JSON'\n", START },
	{ "enum", { "--format", "markdown", NULL }, 0, "", W(.fmt = FMT_MARKDOWN) },
	{ "control bytes in a value are escaped", { "--format", "\x1b[2J", NULL }, EXIT_USAGE,
	  "clefrun: --format: expected table, json, csv or markdown, got '\\x1b[2J'\n", START },
	{ "repeatable", { "--quant", "a", "--quant=b", NULL }, 0, "", W(.n_ids = 2, .id0 = "a", .id1 = "b") },
	{ "repeatable, a repeat is one entry", { "--quant", "a", "--quant", "A", NULL }, 0, "",
	  W(.n_ids = 1, .id0 = "a") },
	{ "repeatable, full", { "--quant", "a", "--quant", "b", "--quant", "c", "--quant", "d", NULL }, EXIT_USAGE,
	  "t: at most 3 --quant\n", START },
	{ "positional", { "x", "--flag", NULL }, 0, "", W(.name = "x", .flag = true) },
	{ "dash is positional", { "-", NULL }, 0, "", W(.name = "-") },
	{ "two positionals", { "x", "y", NULL }, EXIT_USAGE, "t: one NAME only (got 'x' and 'y')\n", START },
	{ "-- ends the options", { "--", "--flag", NULL }, 0, "", W(.name = "--flag") },
	{ "-- then -h is an argument", { "--flag", "--", "-h", NULL }, 0, "", W(.flag = true, .name = "-h") },
	{ "unknown option", { "--nope", NULL }, EXIT_USAGE, "t: unknown option '--nope' (see --help)\n", START },
	{ "unknown option with a value", { "--nope=3", NULL }, EXIT_USAGE,
	  "t: unknown option '--nope' (see --help)\n", START },
	{ "a prefix is not the option", { "--fla", NULL }, EXIT_USAGE, "t: unknown option '--fla' (see --help)\n",
	  START },
	{ "unknown short option", { "-x", NULL }, EXIT_USAGE, "t: unknown option '-x' (see --help)\n", START },
	{ "short option, glued value refused", { "-ofile", NULL }, EXIT_USAGE,
	  "t: unknown option '-ofile' (see --help)\n", START },
	{ "short option", { "-o", "f", NULL }, 0, "", W(.out = "f") },
	{ "short option without its value", { "-o", NULL }, EXIT_USAGE,
	  "t: option '--output' needs a value (FILE)\n", START },
	{ "short and long are one option", { "--output", "a", "-o", "b", NULL }, EXIT_USAGE,
	  "t: --output given twice\n", START },
	{ "global option after the command", { "--units", "iec", "--flag", NULL }, 0, "", W(.flag = true) },
	{ "global option, bad value", { "--units", "metric", NULL }, EXIT_USAGE,
	  "clefrun: --units: expected iec or si, got 'metric'\n", START },
};

/* Run cli_parse on args; stderr and stdout into err and out. */
static int run(const cli_command *c, const char *const *args, void *cfg, char *err, size_t err_cap, char *out,
	       size_t out_cap)
{
	char *argv[20];
	int argc = 0, rc, saved_err, saved_out;
	FILE *fe = tmpfile(), *fo = tmpfile();
	size_t n;

	assert_non_null(fe);
	assert_non_null(fo);
	argv[argc++] = (char *)"t";
	for (; args[argc - 1]; argc++)
		argv[argc] = (char *)args[argc - 1];
	argv[argc] = NULL;
	fflush(stdout);
	saved_err = dup(2);
	saved_out = dup(1);
	dup2(fileno(fe), 2);
	dup2(fileno(fo), 1);
	rc = cli_parse(c, argc, argv, cfg);
	fflush(stdout);
	fflush(stderr);
	dup2(saved_err, 2);
	dup2(saved_out, 1);
	close(saved_err);
	close(saved_out);
	rewind(fe);
	n = fread(err, 1, err_cap - 1, fe);
	err[n] = '\0';
	rewind(fo);
	n = out ? fread(out, 1, out_cap - 1, fo) : 0;
	if (out)
		out[n] = '\0';
	fclose(fe);
	fclose(fo);
	return rc;
}

static bool same(const char *a, const char *b)
{
	return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

static void test_rows(void **state)
{
	bool ok = true;

	(void)state;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const row *r = &rows[i];
		tcfg c = { 0 };
		const want *w = &r->w;
		char err[512];
		int rc = run(&cmd, r->args, &c, err, sizeof(err), NULL, 0);
		bool fields = rc != 0 ||
			      (c.flag == w->flag && same(c.model, w->model) && same(c.plain, w->plain) && c.u == w->u &&
			       c.ctx == w->ctx && c.ctx_given == w->ctx_given && c.scale == w->scale && c.k == w->k &&
			       c.v == w->v && c.fmt == w->fmt && c.n_ids == w->n_ids &&
			       same(c.n_ids > 0 ? c.ids[0] : NULL, w->id0) && same(c.n_ids > 1 ? c.ids[1] : NULL, w->id1) &&
			       same(c.name, w->name) && same(c.out, w->out));

		if (rc != r->rc || strcmp(err, r->err) != 0 || !fields) {
			print_error("row \"%s\": rc %d (want %d), stderr \"%s\" (want \"%s\"), fields %s\n", r->what, rc,
				    r->rc, err, r->err, fields ? "as wanted" : "wrong");
			ok = false;
		}
	}
	assert_true(ok);
}

static void test_long_value_clipped(void **state)
{
	char big[200], err[512];
	const char *args[] = { "--uint", big, NULL };
	tcfg c = { 0 };

	(void)state;
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	assert_int_equal(run(&cmd, args, &c, err, sizeof(err), NULL, 0), EXIT_USAGE);
	assert_non_null(strstr(err, "xxx... (199 bytes)'\n"));
	assert_true(strlen(err) < 200);
}

static void test_help(void **state)
{
	const char *args[] = { "--flag", "-h", "--nope", NULL };
	const char *head = "usage: t [OPTIONS] [NAME]\n\nA test.\n\noptions:\n"
			   "  --flag                     a flag\n"
			   "  --model SOURCE             once\n";
	char err[256], out[4096];
	tcfg c = { 0 };

	(void)state;
	assert_int_equal(run(&cmd, args, &c, err, sizeof(err), out, sizeof(out)), CLI_PARSE_HELP);
	assert_string_equal(err, "");
	assert_memory_equal(out, head, strlen(head));
	/* every option, the positional left out, then the global ones and -h */
	assert_non_null(strstr(out, "  --ctx N                    context\n"));
	assert_non_null(strstr(out, "  --kv-type-k T              K cache type only\n"));
	assert_non_null(strstr(out, "  --output FILE              short: -o\n"));
	assert_null(strstr(out, "NAME "));
	assert_non_null(strstr(out, "  --units U                  memory in iec"));
	assert_non_null(strstr(out, "  -h, --help                 show this help\n"));
}

/* Required options and arguments, CLI_F_STOP and CLI_T_ARGS (the shape of
 * clefrun's own options before its command). */
typedef struct mcfg {
	const char *model;
	const char *catalog;
	bool version;
	char **rest;
	int n_rest;
	const char *name;
} mcfg;

static void test_required_stop_rest(void **state)
{
	static const cli_opt_spec req[] = {
		{ CLI_O_MODEL(mcfg, model), .help = "required" },
		{ .type = CLI_T_ARG, .meta = "NAME", .off = offsetof(mcfg, name), .required = "NAME is required" },
		CLI_SPEC_END,
	};
	static const cli_opt_spec top[] = {
		{ CLI_O_CATALOG(mcfg, catalog), .help = CLI_HELP_CATALOG },
		{ .type = CLI_T_FLAG, .name = "version", .off = offsetof(mcfg, version), .flags = CLI_F_STOP,
		  .help = "v" },
		{ .type = CLI_T_ARGS, .meta = "COMMAND", .off = offsetof(mcfg, rest), .count = CLI_AT(mcfg, n_rest) },
		CLI_SPEC_END,
	};
	const cli_command rc_cmd = { .name = "r", .usage = "r", .summary = "r", .opts = req };
	const cli_command top_cmd = { .name = "top", .usage = "top", .summary = "top", .opts = top };
	const char *none[] = { NULL }, *only_model[] = { "--model", "m", NULL }, *both[] = { "x", "--model", "m", NULL };
	const char *stop[] = { "--version", "--nope", NULL };
	const char *rest[] = { "--catalog", "d", "check", "--nope", "-h", NULL };
	char err[256];
	mcfg c;

	(void)state;
	memset(&c, 0, sizeof(c));
	assert_int_equal(run(&rc_cmd, none, &c, err, sizeof(err), NULL, 0), EXIT_USAGE);
	assert_string_equal(err, "r: --model is required (see 'clefrun models')\n");
	assert_int_equal(run(&rc_cmd, only_model, &c, err, sizeof(err), NULL, 0), EXIT_USAGE);
	assert_string_equal(err, "r: NAME is required\n");
	memset(&c, 0, sizeof(c));
	assert_int_equal(run(&rc_cmd, both, &c, err, sizeof(err), NULL, 0), 0);
	assert_string_equal(c.model, "m");
	assert_string_equal(c.name, "x");

	memset(&c, 0, sizeof(c));
	assert_int_equal(run(&top_cmd, stop, &c, err, sizeof(err), NULL, 0), 0);
	assert_true(c.version);
	assert_string_equal(err, "");
	memset(&c, 0, sizeof(c));
	assert_int_equal(run(&top_cmd, rest, &c, err, sizeof(err), NULL, 0), 0);
	assert_string_equal(c.catalog, "d");
	assert_int_equal(c.n_rest, 3);
	assert_string_equal(c.rest[0], "check");
	assert_string_equal(c.rest[2], "-h");
}

/* The shared enums' words are the ones the library's parsers take. */
static void test_enum_names_match_library(void **state)
{
	size_t n = 0;

	(void)state;
	for (const cli_enum_name *e = cli_kv_type_names; e->name; e++, n++) {
		cr_kv_type t;

		assert_int_equal(cr_kv_type_parse(e->name, &t), CR_OK);
		assert_int_equal((int)t, e->value);
		assert_string_equal(cr_kv_type_name(t), e->name);
	}
	assert_int_equal(n, CR_KV_TYPE_COUNT);
	for (const cli_enum_name *e = cli_require_names; e->name; e++) {
		cr_tier t;

		assert_int_equal(cr_tier_parse(e->name, &t), CR_OK);
		assert_int_equal((int)t, e->value);
		assert_true(t != CR_TIER_UNKNOWN && t != CR_TIER_NOFIT);
	}
}

/* Last: it sets the process-wide --quiet and --units. */
static void test_global_options(void **state)
{
	const char *args[] = { "--quiet", "--units=si", NULL };
	char err[256];
	tcfg c = { 0 };

	(void)state;
	assert_false(cli_quiet());
	assert_int_equal(cli_mem_units(), CLI_UNITS_IEC);
	assert_int_equal(run(&cmd, args, &c, err, sizeof(err), NULL, 0), 0);
	assert_true(cli_quiet());
	assert_int_equal(cli_mem_units(), CLI_UNITS_SI);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rows),
		cmocka_unit_test(test_long_value_clipped),
		cmocka_unit_test(test_help),
		cmocka_unit_test(test_required_stop_rest),
		cmocka_unit_test(test_enum_names_match_library),
		cmocka_unit_test(test_global_options),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
