/*
 * Shared pieces of the clefrun command line: exit codes, the option parser
 * that also writes --help, catalog and id resolution, output formats.
 * The CLI sees only the library's public headers.
 */
#ifndef CLEFRUN_CLI_H
#define CLEFRUN_CLI_H

#include <stdbool.h>
#include <stddef.h>
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

/* ---- option specs ----------------------------------------------------------
 *
 * A command describes its options in one table of cli_opt_spec (in the spirit
 * of libgit2's cli_opt_spec): the name, the value's name, the help line, the
 * type with its bounds or names, and where in the command's config struct the
 * value goes (an offset). cli_parse() walks argv once against that table,
 * converts and range-checks each value, stores it, and prints the one message
 * for every kind of mistake; cli_print_help() writes --help from the same table.
 * The options several commands take are defined once, below (CLI_O_*), with
 * their bounds; a command adds its own help line to them.
 */

typedef enum cli_opt_type {
	CLI_T_NONE = 0, /* the end of a table */
	CLI_T_FLAG,     /* bool: set to true; "--flag=x" is an error */
	CLI_T_STRING,   /* const char *: the argument itself (argv stays alive) */
	CLI_T_UINT,     /* unsigned: a whole number in [lo, hi] */
	CLI_T_TOKENS,   /* unsigned: N, or Nk / NK for N x 1024 ("32k"), in [lo, hi] */
	CLI_T_DOUBLE,   /* double: a finite decimal number in [lo, hi] */
	CLI_T_ENUM,     /* an enum (int-sized): the value of the matching names[] entry */
	CLI_T_LIST,     /* repeatable: const char *[max] at off, its int count at count */
	CLI_T_ARG,      /* the positional argument meta (const char *), once */
	CLI_T_ARGS      /* the first positional and everything after it, unparsed:
			 * char ** at off, int count at count; parsing stops there */
} cli_opt_type;

/* One accepted word of a CLI_T_ENUM option; a table ends with { NULL, 0 }. */
typedef struct cli_enum_name {
	const char *name;
	int value;
} cli_enum_name;

enum {
	CLI_F_ONCE = 1u << 0,   /* CLI_T_STRING: a second one is an error ("--model given twice") */
	CLI_F_NOCASE = 1u << 1, /* CLI_T_ENUM: names match in any case */
	CLI_F_STOP = 1u << 2    /* stop parsing once given (--version) */
};

typedef struct cli_opt_spec {
	cli_opt_type type;
	const char *name;       /* long name without "--"; NULL for CLI_T_ARG(S) */
	char alias;             /* short name ('o' for -o), 0 for none */
	const char *meta;       /* the value's name in help and messages ("N"); NULL for a flag */
	const char *help;       /* one line of --help */
	size_t off;             /* where the value goes: offsetof(config struct, field) */
	size_t seen;            /* CLI_AT(T, f): a bool set when the option is given; 0 none */
	size_t also;            /* CLI_AT(T, f): a second field of the same type set alike; 0 none */
	size_t count;           /* CLI_AT(T, f): the int count of CLI_T_LIST and CLI_T_ARGS */
	unsigned max;           /* CLI_T_LIST: capacity of the array */
	double lo, hi;          /* CLI_T_UINT, CLI_T_TOKENS, CLI_T_DOUBLE: bounds, inclusive */
	const cli_enum_name *names; /* CLI_T_ENUM: the accepted words */
	const char *expect;     /* CLI_T_ENUM: the message's "expected ..." (default: from names) */
	unsigned flags;         /* CLI_F_* */
	const char *required;   /* message when the option or argument is missing; NULL: optional */
} cli_opt_spec;

/* An optional offset (seen, also, count): offsetof + 1, so that 0 means none. */
#define CLI_AT(T, f) (offsetof(T, f) + 1)
/* The size of field f of T, for the checks in the CLI_O_* macros. */
#define CLI_FIELD_SIZE(T, f) sizeof(((T *)0)->f)
/* offsetof(T, f), refused at compile time unless f has the size the type stores. */
#define CLI_OFF_SIZED(T, f, size) (offsetof(T, f) + 0 * sizeof(char[CLI_FIELD_SIZE(T, f) == (size) ? 1 : -1]))
#define CLI_SPEC_END { .type = CLI_T_NONE }

/* A command: its messages' prefix, its help, its table. */
typedef struct cli_command {
	const char *name;            /* "clefrun check": the prefix of parse errors */
	const char *usage;           /* after "usage: " in --help */
	const char *summary;
	const cli_opt_spec *opts;    /* ends with CLI_SPEC_END */
	void (*help)(FILE *f);       /* --help printer of its own (clefrun's); NULL: cli_print_help */
} cli_command;

/* cli_parse: --help was printed on stdout (the command exits 0). */
#define CLI_PARSE_HELP (-1)

/*
 * Parse argv[1..argc) against cmd->opts into cfg (the struct the offsets
 * refer to; fields keep their values unless an option sets them). Accepted:
 * --name value, --name=value, -a value for an alias, flags, positionals,
 * "--" (every later argument is positional), -h and --help anywhere (help
 * printed at once, the rest not looked at), and the global options
 * (--quiet, --units) wherever they appear. Returns 0, CLI_PARSE_HELP, or
 * EXIT_USAGE after printing one message on stderr.
 */
int cli_parse(const cli_command *cmd, int argc, char **argv, void *cfg);
/* "usage: ...", the summary, then the options of cmd, the global options
 * and -h, --help: the text that scripts/gen-cli-md turns into docs/cli.md,
 * the man page and the shell completions, so keep its shape. */
void cli_print_command_help(FILE *f, const cli_command *cmd);
/* One "  --name META   help" line per option of specs (positionals left out). */
void cli_print_specs(FILE *f, const cli_opt_spec *specs);
/* The same for the global options (--quiet, --units). */
void cli_print_global_specs(FILE *f);

/* The words of the enum options several commands share (their library
 * parsers accept exactly these; tests/cli/test_args.c checks it). */
extern const cli_enum_name cli_kv_type_names[];
extern const cli_enum_name cli_flash_attn_names[];
extern const cli_enum_name cli_workload_names[];
extern const cli_enum_name cli_require_names[];
extern const cli_enum_name cli_format_names[];
extern const cli_enum_name cli_split_names[];

/*
 * --ctx, the one bound of every command: 1 to 2^30 tokens. 2^30 is the cap
 * the catalog schema puts on a model's context_max
 * (docs/schema/models.schema.json), the cap of --depth and --prompt-tokens
 * (which are at most --ctx), and 100 times the largest context in the
 * catalog (10,485,760, data/models.json). report and chart took up to
 * 2^32 - 1, a context no model can have. A context above the model's own
 * maximum is refused after the model is known, naming it.
 */
#define CLI_CTX_MAX 1073741824.0

/* ---- the shared options, each defined once ---------------------------------------
 * Each expands to the fields of one cli_opt_spec; a command's table adds
 * .help (and .seen where it wants to know): { CLI_O_CTX(cfg, ctx), .help = ... }.
 * Estimate options: */
#define CLI_O_CTX(T, f) \
	.type = CLI_T_TOKENS, .name = "ctx", .meta = "N", .off = CLI_OFF_SIZED(T, f, sizeof(unsigned)), \
	.lo = 1, .hi = CLI_CTX_MAX
#define CLI_O_DEPTH(T, f) \
	.type = CLI_T_TOKENS, .name = "depth", .meta = "N", .off = CLI_OFF_SIZED(T, f, sizeof(unsigned)), \
	.lo = 0, .hi = CLI_CTX_MAX
#define CLI_O_PROMPT_TOKENS(T, f) \
	.type = CLI_T_TOKENS, .name = "prompt-tokens", .meta = "N", \
	.off = CLI_OFF_SIZED(T, f, sizeof(unsigned)), .lo = 1, .hi = CLI_CTX_MAX
/* --kv-type sets the K and the V type (k and v: cr_kv_type fields). */
#define CLI_O_KV_TYPE(T, k, v) \
	.type = CLI_T_ENUM, .name = "kv-type", .meta = "T", .off = CLI_OFF_SIZED(T, k, sizeof(int)), \
	.also = CLI_AT(T, v), .names = cli_kv_type_names, .flags = CLI_F_NOCASE
#define CLI_O_KV_TYPE_K(T, k) \
	.type = CLI_T_ENUM, .name = "kv-type-k", .meta = "T", .off = CLI_OFF_SIZED(T, k, sizeof(int)), \
	.names = cli_kv_type_names, .flags = CLI_F_NOCASE, .help = "K cache type only"
#define CLI_O_KV_TYPE_V(T, v) \
	.type = CLI_T_ENUM, .name = "kv-type-v", .meta = "T", .off = CLI_OFF_SIZED(T, v, sizeof(int)), \
	.names = cli_kv_type_names, .flags = CLI_F_NOCASE, \
	.help = "V cache type only (quantized needs flash attention)"
#define CLI_O_FLASH_ATTN(T, f) \
	.type = CLI_T_ENUM, .name = "flash-attn", .meta = "MODE", .off = CLI_OFF_SIZED(T, f, sizeof(int)), \
	.names = cli_flash_attn_names
#define CLI_O_WORKLOAD(T, f) \
	.type = CLI_T_ENUM, .name = "workload", .meta = "W", .off = CLI_OFF_SIZED(T, f, sizeof(int)), \
	.names = cli_workload_names, \
	.help = "tier by chat (decode t/s, default) or decide (time-to-decision)"
#define CLI_O_REQUIRE(T, f) \
	.type = CLI_T_ENUM, .name = "require", .meta = "TIER", .off = CLI_OFF_SIZED(T, f, sizeof(int)), \
	.names = cli_require_names
#define CLI_O_SPLIT(T, f) \
	.type = CLI_T_ENUM, .name = "split", .meta = "MODE", .off = CLI_OFF_SIZED(T, f, sizeof(int)), \
	.names = cli_split_names, \
	.help = "multi-GPU: layer (llama.cpp default) or tensor (tensor parallel)"
#define CLI_O_GPU_LAYERS(T, f) \
	.type = CLI_T_UINT, .name = "gpu-layers", .meta = "N", .off = CLI_OFF_SIZED(T, f, sizeof(unsigned)), \
	.lo = 0, .hi = 100000, \
	.help = "layers on the GPUs, the rest in system RAM, as llama.cpp -ngl counts them: the output layer first, " \
		"then the last N-1 repeating layers (N > n_layer: all)"
#define CLI_O_GPU_LAYERS_REPEATING(T, f) \
	.type = CLI_T_FLAG, .name = "gpu-layers-repeating", .off = CLI_OFF_SIZED(T, f, sizeof(bool)), \
	.help = "--gpu-layers N counts repeating layers only, the output layer on the GPUs only when N > n_layer " \
		"(llama.cpp before PR 18148, December 2025)"
#define CLI_O_CPU_MOE(T, f) \
	.type = CLI_T_FLAG, .name = "cpu-moe", .off = CLI_OFF_SIZED(T, f, sizeof(bool)), \
	.help = "keep MoE expert weights in system RAM (llama.cpp --cpu-moe)"
#define CLI_O_N_CPU_MOE(T, f) \
	.type = CLI_T_UINT, .name = "n-cpu-moe", .meta = "N", .off = CLI_OFF_SIZED(T, f, sizeof(unsigned)), \
	.lo = 0, .hi = 100000, .help = "keep the experts of the first N layers in system RAM (llama.cpp --n-cpu-moe)"
/* The options that size llama.cpp's memory the same way in every command
 * (check, inspect), into the cr_estimate_opts o of T: five table entries. */
#define CLI_O_MEMORY_AT(T, o, field) (CLI_OFF_SIZED(T, o, sizeof(cr_estimate_opts)) + offsetof(cr_estimate_opts, field))
#define CLI_O_MEMORY(T, o)                                                                                  \
	{ .type = CLI_T_UINT, .name = "ubatch", .meta = "N", .off = CLI_O_MEMORY_AT(T, o, n_ubatch), .lo = 1, \
	  .hi = 65536, .help = "physical batch size, llama.cpp -ub (default 512)" },                          \
	{ .type = CLI_T_UINT, .name = "parallel", .meta = "N", .off = CLI_O_MEMORY_AT(T, o, n_seq), .lo = 1,  \
	  .hi = 4096, .help = "parallel sequences sharing the context, llama.cpp -np (default 1)" },          \
	{ .type = CLI_T_FLAG, .name = "swa-full", .off = CLI_O_MEMORY_AT(T, o, swa_full),                     \
	  .help = "sliding-window layers keep the whole context (llama.cpp --swa-full)" },                    \
	{ .type = CLI_T_UINT, .name = "kv-pad", .meta = "N", .off = CLI_O_MEMORY_AT(T, o, kv_pad_cells), .lo = 1, \
	  .hi = 256, .help = "KV cells per stream round up to N (default 256; llama.cpp of "                \
	  "2024-05 to 2025-10: 32 without flash attention)" },                                              \
	{ .type = CLI_T_FLAG, .name = "kv-unified", .off = CLI_O_MEMORY_AT(T, o, kv_unified),                 \
	  .help = "one KV cache shared by the --parallel sequences (llama.cpp --kv-unified)" }
/* (n_ubatch, n_seq and kv_pad_cells are uint32_t, swa_full and kv_unified bool: the sizes CLI_T_UINT and
 * CLI_T_FLAG store) */
/* The same five entries, each marking a bool of T when given (--engine keeps what the user set). */
#define CLI_O_MEMORY_SEEN(T, o, ub_seen, np_seen, kvu_seen)                                                 \
	{ .type = CLI_T_UINT, .name = "ubatch", .meta = "N", .off = CLI_O_MEMORY_AT(T, o, n_ubatch), .lo = 1, \
	  .hi = 65536, .seen = CLI_AT(T, ub_seen), .help = "physical batch size, llama.cpp -ub (default 512)" }, \
	{ .type = CLI_T_UINT, .name = "parallel", .meta = "N", .off = CLI_O_MEMORY_AT(T, o, n_seq), .lo = 1,  \
	  .hi = 4096, .seen = CLI_AT(T, np_seen),                                                             \
	  .help = "parallel sequences sharing the context, llama.cpp -np (default 1)" },                      \
	{ .type = CLI_T_FLAG, .name = "swa-full", .off = CLI_O_MEMORY_AT(T, o, swa_full),                     \
	  .help = "sliding-window layers keep the whole context (llama.cpp --swa-full)" },                    \
	{ .type = CLI_T_UINT, .name = "kv-pad", .meta = "N", .off = CLI_O_MEMORY_AT(T, o, kv_pad_cells), .lo = 1, \
	  .hi = 256, .help = "KV cells per stream round up to N (default 256; llama.cpp of "                \
	  "2024-05 to 2025-10: 32 without flash attention)" },                                              \
	{ .type = CLI_T_FLAG, .name = "kv-unified", .off = CLI_O_MEMORY_AT(T, o, kv_unified),                 \
	  .seen = CLI_AT(T, kvu_seen),                                                                        \
	  .help = "one KV cache shared by the --parallel sequences (llama.cpp --kv-unified)" }
/* Model and rig choice: */
#define CLI_O_MODEL(T, f) \
	.type = CLI_T_STRING, .name = "model", .meta = "SOURCE", .off = CLI_OFF_SIZED(T, f, sizeof(char *)), \
	.flags = CLI_F_ONCE, .required = "--model is required (see 'clefrun models')"
/* Repeatable; a repeated id (in any case, as the catalog looks ids up) is one entry, so a
 * repeated --quant or --rig is one row. ids: const char *[], n: int. */
#define CLI_O_QUANTS(T, ids, n) \
	.type = CLI_T_LIST, .name = "quant", .meta = "Q", .off = offsetof(T, ids), .count = CLI_AT(T, n), \
	.max = (unsigned)(CLI_FIELD_SIZE(T, ids) / sizeof(char *))
#define CLI_O_RIGS(T, ids, n) \
	.type = CLI_T_LIST, .name = "rig", .meta = "R", .off = offsetof(T, ids), .count = CLI_AT(T, n), \
	.max = (unsigned)(CLI_FIELD_SIZE(T, ids) / sizeof(char *))
/* Source options (GGUF files, URLs, hf:): */
#define CLI_O_REVISION(T, f) \
	.type = CLI_T_STRING, .name = "revision", .meta = "R", .off = CLI_OFF_SIZED(T, f, sizeof(char *))
#define CLI_O_HEADER_ONLY(T, f) \
	.type = CLI_T_FLAG, .name = "header-only", .off = CLI_OFF_SIZED(T, f, sizeof(bool))
#define CLI_O_NO_CACHE(T, f) \
	.type = CLI_T_FLAG, .name = "no-cache", .off = CLI_OFF_SIZED(T, f, sizeof(bool))
#define CLI_O_OFFLINE(T, f) \
	.type = CLI_T_FLAG, .name = "offline", .off = CLI_OFF_SIZED(T, f, sizeof(bool))
#define CLI_O_OLLAMA_REGISTRY(T, f) \
	.type = CLI_T_STRING, .name = "ollama-registry", .meta = "URL", .off = CLI_OFF_SIZED(T, f, sizeof(char *)), \
	.help = "registry of ollama: models not in the local store (default https://registry.ollama.ai)"

/* Output options: */
#define CLI_O_FORMAT(T, f) \
	.type = CLI_T_ENUM, .name = "format", .meta = "F", .off = CLI_OFF_SIZED(T, f, sizeof(int)), \
	.names = cli_format_names, .help = "table, json, csv or markdown (default table)"
#define CLI_O_OUTPUT(T, f) \
	.type = CLI_T_STRING, .name = "output", .alias = 'o', .meta = "FILE", \
	.off = CLI_OFF_SIZED(T, f, sizeof(char *)), .flags = CLI_F_ONCE, \
	.required = "-o FILE (--output) is required"
#define CLI_O_CATALOG(T, f) \
	.type = CLI_T_STRING, .name = "catalog", .meta = "DIR", .off = CLI_OFF_SIZED(T, f, sizeof(char *))
#define CLI_HELP_CATALOG "read the catalog from DIR"

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

/* A --rig selector (all, gpus, unified, cpu, mem>=N, mem<=N, vendor=V): which
 * catalog rigs it takes (check, buy). */
typedef enum cli_sel_kind {
	CLI_SEL_ALL, CLI_SEL_GPUS, CLI_SEL_UNIFIED, CLI_SEL_CPU, CLI_SEL_MEM_GE, CLI_SEL_MEM_LE, CLI_SEL_VENDOR
} cli_sel_kind;

typedef struct cli_rig_sel {
	cli_sel_kind kind;
	double gib;        /* CLI_SEL_MEM_*: the rig's total memory bound, GiB */
	cr_vendor vendor;  /* CLI_SEL_VENDOR */
} cli_rig_sel;

/* 1: s is a selector (filled in *out); 0: it is not (a rig id or a spec);
 * -1: a selector with a bad value (message printed). */
int cli_rig_selector_parse(const char *s, cli_rig_sel *out);
/* Does catalog rig r match the selector? */
bool cli_rig_selector_matches(const cli_rig_sel *sel, const cr_rig *r);

/* The prices buy and report read: @p file (--prices) when given, else the
 * catalog directory's prices.json (--catalog / CLEFRUN_CATALOG), else the
 * built-in ones; @p from receives where they came from, as shown. 0, or the
 * loader's status with @p err set (prices.h). */
int cli_open_prices(const char *file, const cli_globals *g, const cr_catalog *cat, cr_prices **out,
		    char *from, size_t cap, cr_error *err);

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
int cmd_plan(const cli_globals *g, int argc, char **argv);
int cmd_buy(const cli_globals *g, int argc, char **argv);
int cmd_rig(const cli_globals *g, int argc, char **argv);
int cmd_detect(const cli_globals *g, int argc, char **argv);

#endif
