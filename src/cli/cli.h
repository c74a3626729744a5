/*
 * Shared pieces of the clefrun command line: exit codes, the option parser
 * that also writes --help, catalog and id resolution, output formats.
 * The CLI sees only the library's public headers.
 */
#ifndef CLEFRUN_CLI_H
#define CLEFRUN_CLI_H

#include <stdbool.h>
#include <stdio.h>

#include "clefrun/clefrun.h"
#include "json_out.h" /* cli_json_print: cJSON_Print's bytes, faster */

/* Exit codes, documented in README.md and docs/cli.md. */
enum cli_exit {
	EXIT_OK_ = 0,      /* every row fits / command succeeded */
	EXIT_ERROR = 1,    /* runtime error: unreadable or invalid file, ... */
	EXIT_USAGE = 2,    /* bad option, unknown model/rig/quant */
	EXIT_NOFIT = 3     /* some row does not reach --require */
};

/* Map a library status to an exit code (the one place that does). */
int cli_exit_for_status(int status);

/* ---- options ------------------------------------------------------------- */

typedef struct cli_opt {
	const char *name;  /* long name without "--" */
	const char *arg;   /* metavariable, NULL for a flag */
	const char *help;  /* one line */
	int id;
} cli_opt;

typedef struct cli_parser {
	int argc;
	char **argv;
	int i;
	const char *cmd;   /* for messages: "clefrun check" */
} cli_parser;

#define CLI_OPT_HELP 1000
#define CLI_OPT_GLOBAL 2000 /* internal to args.c: ids of the global options */
#define CLI_OPT_END 0
#define CLI_OPT_ERROR (-1)
#define CLI_OPT_POSITIONAL (-2)

void cli_parser_init(cli_parser *p, const char *cmd, int argc, char **argv);
/* Next option: its id (value in *val, NULL for flags), CLI_OPT_POSITIONAL
 * (word in *val), CLI_OPT_END, or CLI_OPT_ERROR (message printed).
 * The global options (--quiet, --units) are taken here, wherever they
 * appear, and never returned. */
int cli_next(cli_parser *p, const cli_opt *opts, const char **val);
/* "usage: ...", the summary, then opts, the global options and -h, --help:
 * the text that scripts/gen-cli-md turns into docs/cli.md, the man page and
 * the shell completions, so keep its shape. */
void cli_print_help(FILE *f, const char *usage, const char *summary, const cli_opt *opts);
/* One "  --name ARG   help" line per option (the format of cli_print_help). */
void cli_print_options(FILE *f, const cli_opt *opts);
void cli_print_global_options(FILE *f);

/* ---- global output settings (--quiet, --units; process-wide) --------------- */

typedef enum cli_units { CLI_UNITS_IEC = 0, CLI_UNITS_SI } cli_units;
/* --quiet: commands leave out their heading and footer lines (tables, CSV
 * and JSON are unchanged). */
bool cli_quiet(void);
/* --units: memory in GiB (2^30 bytes, the default) or GB (10^9 bytes).
 * JSON and CSV byte fields are raw bytes either way. */
cli_units cli_mem_units(void);
/* Colour on f: only on a terminal, and never when NO_COLOR is set (and not
 * empty, https://no-color.org) or TERM is "dumb". */
bool cli_color(FILE *f);

/* Option values several commands share; print the message, return -1 if bad. */
int cli_parse_kv_type(const char *opt, const char *s, cr_kv_type *out);
int cli_parse_flash_attn(const char *s, cr_flash_attn *out);
int cli_parse_workload(const char *s, cr_workload *out);
int cli_parse_require(const char *s, cr_tier *out); /* fast, ok, slow or tight */

/* The options that size llama.cpp's memory the same way in every command
 * (check, inspect): table entries and one handler. */
enum { CLI_OPT_UBATCH = 900, CLI_OPT_PARALLEL, CLI_OPT_SWA_FULL, CLI_OPT_KV_UNIFIED };
#define CLI_MEMORY_OPTS                                                                                  \
	{ "ubatch", "N", "physical batch size, llama.cpp -ub (default 512)", CLI_OPT_UBATCH },             \
	{ "parallel", "N", "parallel sequences sharing the context, llama.cpp -np (default 1)",           \
	  CLI_OPT_PARALLEL },                                                                            \
	{ "swa-full", NULL, "sliding-window layers keep the whole context (llama.cpp --swa-full)",        \
	  CLI_OPT_SWA_FULL },                                                                            \
	{ "kv-unified", NULL, "one KV cache shared by the --parallel sequences (llama.cpp --kv-unified)", \
	  CLI_OPT_KV_UNIFIED }
/* Apply one of those options to *o; 0, or -1 after printing a bad value. */
int cli_memory_option(int id, const char *v, cr_estimate_opts *o);

/* Strict numbers: whole string, in range; message names the option. */
int cli_parse_u32(const char *opt, const char *s, unsigned long lo, unsigned long hi,
		  unsigned *out);
/* True when v is already among list[0..n) (ids compare case-insensitively, as the catalog
 * looks them up): a repeated --quant or --rig is one row, not two. */
bool cli_repeated(const char *const *list, int n, const char *v);

/* A token count (--ctx, --depth, --prompt-tokens): N, or Nk / NK for N × 1024 (the "32k" the
 * tables print); in [lo, hi]. Prints the error; returns 0 or -1. */
int cli_parse_tokens(const char *opt, const char *s, unsigned long lo, unsigned long hi,
		     unsigned *out);

/* ---- untrusted text (safe.c, text.h) ------------------------------------------- */

/* s made safe to print (cr_text_safe, CR_TEXT_DISPLAY: control bytes and
 * C1 controls escaped, invalid UTF-8 replaced by U+FFFD), in one of eight
 * static buffers used in turn: valid until eight more calls. "" for NULL. */
const char *cli_safe(const char *s);
/* The same, allocated (free() it); NULL when out of memory. */
char *cli_safe_dup(const char *s);
/* A source or location as shown anywhere (JSON and HTML too): a URL's
 * credentials redacted (cr_url_redact), in eight buffers of its own used
 * in turn. cli_shown: that, made safe to print (cli_safe). */
const char *cli_url_shown(const char *s);
const char *cli_shown(const char *s);
/* A serialized JSON document and a newline on stdout, valid UTF-8 whatever
 * its strings held (CR_TEXT_JSON). 0, or -1 when out of memory. */
int cli_puts_json(const char *s);

/* ---- output formats -------------------------------------------------------- */

typedef enum cli_format { FMT_TABLE = 0, FMT_JSON, FMT_CSV, FMT_MARKDOWN } cli_format;
int cli_parse_format(const char *s, cli_format *out);

/* A grid of cells, rendered as an aligned table, CSV (RFC 4180) or Markdown.
 * In the aligned table on a colour terminal (cli_color), a column headed
 * "TIER" is coloured by tier: fast green, ok yellow, slow and tight magenta,
 * no-fit red; the word stays, so nothing depends on the colour. */
#define CLI_MAX_COLS 24
typedef struct cli_table {
	const char *headers[CLI_MAX_COLS];
	bool right[CLI_MAX_COLS]; /* right-align (numbers) */
	int ncols;
	char **cells;            /* rows × ncols, owned */
	int nrows, cap;
} cli_table;

void cli_table_init(cli_table *t, int ncols, const char *const *headers, const bool *right);
/* Append a row; `cells` has ncols strings (copied). Returns 0 or -1 (no memory). */
int cli_table_add(cli_table *t, const char *const *cells);
void cli_table_render(const cli_table *t, cli_format fmt, FILE *f);
void cli_table_free(cli_table *t);

/* ---- catalog --------------------------------------------------------------- */

typedef struct cli_globals {
	const char *catalog_dir; /* --catalog, else $CLEFRUN_CATALOG, else embedded */
} cli_globals;

/* Load the catalog chosen by --catalog / CLEFRUN_CATALOG / the embedded one.
 * Prints an error and returns NULL on failure. */
cr_catalog *cli_open_catalog(const cli_globals *g);

/* Resolve an id or print "unknown model 'x' (did you mean ...)" and return NULL. */
const cr_model *cli_find_model(const cr_catalog *cat, const char *id);
const cr_quant *cli_find_quant(const cr_catalog *cat, const char *id);
/* Rigs: a catalog id, a "custom:" spec, "local" (this machine, detected)
 * or a saved rig (userrigs.h), in that order; the last three are copied
 * into *scratch. An unknown id gets the closest catalog and saved ids. */
const cr_rig *cli_find_rig(const cr_catalog *cat, const char *id, cr_rig *scratch);

/* Where a rig came from. */
typedef enum cli_rig_origin {
	RIG_CATALOG = 0, RIG_CUSTOM, RIG_LOCAL, RIG_SAVED
} cli_rig_origin;
const char *cli_rig_origin_name(cli_rig_origin o);
/* cli_find_rig that also says where the rig came from. */
const cr_rig *cli_resolve_rig(const cr_catalog *cat, const char *id, cr_rig *scratch,
			      cli_rig_origin *origin);

/* ---- saved rigs and detection ------------------------------------------------ */

/* The saved-rigs path from $XDG_CONFIG_HOME / $HOME; prints an error and
 * returns -1 when neither is usable. */
int cli_userrigs_path(char *buf, size_t cap);
/* Load the saved rigs (validated against cat). On a broken file prints the
 * problem, says the file was left as it is, and returns NULL. */
cr_user_rigs *cli_load_user_rigs(const cr_catalog *cat, const char *path, bool *exists);

/* Load the saved rigs, add *add (replacing a namesake when replace) or
 * remove `remove`, save atomically. Refuses (exit 1) when the file does not
 * validate. Prints the outcome on `out`, errors on stderr; returns an exit code. */
int cli_userrigs_store(const cr_catalog *cat, const cr_rig *add, const char *remove, bool replace,
		       FILE *out);

typedef struct cli_detect_cfg {
	const char *root;    /* fixture root: proc/, sys/, bin/nvidia-smi, bin/sysctl; NULL = the machine */
	const char *rig_id;  /* NULL = "local" */
	bool measure;        /* run the bandwidth probe */
	double gpu_bw_gbs;   /* for GPUs the catalog lacks; 0 = leave them out */
	double gpu_tflops;
} cli_detect_cfg;
/* Run nvidia-smi / sysctl as needed, then cr_detect_run (and the probe).
 * Prints errors; returns an exit code. *probe is zeroed when not measured. */
int cli_detect(const cr_catalog *cat, const cli_detect_cfg *cfg, cr_detect_result *out,
	       cr_probe_result *probe);
/* Run a program (no shell), capture stdout into buf (NUL-terminated, cut at
 * cap - 1). 0 when it ran and exited 0; else -1 with the reason in why. */
int cli_capture(const char *file, char *const argv[], bool search_path, char *buf, size_t cap,
		char *why, size_t why_cap);

/* Strict decimal number for an option: whole string, finite, in [lo, hi]. */
int cli_parse_double(const char *opt, const char *s, double lo, double hi, double *out);

/* User input echoed in a message, cut to a sane length: at most CLI_CLIP_BYTES
 * bytes (on a UTF-8 character boundary), then "... (N bytes)". Returns s itself
 * when it is short enough, else b->s. */
#define CLI_CLIP_BYTES 64
typedef struct cli_clipbuf {
	char s[CLI_CLIP_BYTES + 32];
} cli_clipbuf;
const char *cli_clip(const char *s, cli_clipbuf *b);
/* cli_clip with a buffer that lives until the end of the enclosing block. */
#define CLI_CLIP(s) cli_clip((s), &(cli_clipbuf){ { 0 } })

/* Human units. Memory follows --units: "3.91 GiB" or "4.20 GB". */
void cli_fmt_mem(char *buf, size_t cap, double bytes);
/* The bare number in that unit ("%g": "24", "25.7698"), and the column
 * heading that states the unit: "MEMORY GiB" or "MEMORY GB". */
void cli_fmt_mem_number(char *buf, size_t cap, double bytes);
const char *cli_mem_heading(void);
/* The former name of cli_fmt_mem (GiB, or GB with --units si). */
void cli_fmt_gib(char *buf, size_t cap, double bytes);
void cli_fmt_ctx(char *buf, size_t cap, unsigned ctx);
void cli_fmt_params(char *buf, size_t cap, unsigned long long params);
void cli_fmt_rate(char *buf, size_t cap, double tps);

/* ---- commands -------------------------------------------------------------- */

typedef int (*cli_cmd_fn)(const cli_globals *g, int argc, char **argv);
int cmd_check(const cli_globals *g, int argc, char **argv);
int cmd_models(const cli_globals *g, int argc, char **argv);
int cmd_rigs(const cli_globals *g, int argc, char **argv);
int cmd_quants(const cli_globals *g, int argc, char **argv);
int cmd_fit(const cli_globals *g, int argc, char **argv);
int cmd_rig(const cli_globals *g, int argc, char **argv);
int cmd_detect(const cli_globals *g, int argc, char **argv);

#endif
