/*
 * Models from a SOURCE (docs/gguf.md): a catalog id, a local GGUF path, an
 * http(s) URL or an hf: name. The GGUF ones are read from their headers
 * (every split part), mapped into the catalog's cr_model, and come with
 * their exact weight bytes. Hugging Face settings come from the usual
 * environment: HF_ENDPOINT, HF_TOKEN, HF_TOKEN_PATH, HF_HOME. Remote headers
 * and repository lists go through the header cache (cache.h) in
 * $XDG_CACHE_HOME/clefrun, unless --no-cache; --offline reads only it.
 */
#ifndef CLEFRUN_CLI_SOURCE_MODEL_H
#define CLEFRUN_CLI_SOURCE_MODEL_H

#include <stdbool.h>

#include "cli.h"

/* What a SOURCE string names. */
typedef enum cli_source_kind {
	CLI_SRC_CATALOG = 0, /* no '/', not ending in .gguf, no scheme: a catalog id */
	CLI_SRC_FILE,        /* contains '/' or ends in .gguf */
	CLI_SRC_URL,         /* http:// or https://, the scheme in any case */
	CLI_SRC_HF,          /* hf:OWNER/REPO[...] */
	CLI_SRC_BAD_URL      /* SCHEME:// of any other scheme (ftp://...): refused, a usage error */
} cli_source_kind;

cli_source_kind cli_source_classify(const char *source);

typedef struct cli_source_opts {
	const char *revision;  /* Hugging Face revision; NULL: main */
	bool allow_truncated;  /* accept header-only files (tensor data missing) */
	bool no_cache;         /* --no-cache: the header cache is neither read nor written */
	bool offline;          /* --offline: the header cache only, no request */
	const char *command;   /* the command in use, for hints ("clefrun check"); NULL: inspect */
} cli_source_opts;

#define CLI_SOURCE_OPTS_INIT                                                    \
	{ .revision = NULL, .allow_truncated = false, .no_cache = false, .offline = false, \
	  .command = NULL }

/* Split files beyond this many parts are refused. */
#define CLI_MAX_PARTS 256

/* The parsed header(s) of one GGUF model. */
typedef struct cli_gguf {
	cr_gguf *parts[CLI_MAX_PARTS];
	size_t n_parts;
	char location[CR_URL_MAX * 2]; /* path or URL of part 1 */
	uint64_t file_bytes;           /* Σ part sizes */
	cr_source_stats stats;         /* Σ over the parts (and the file list) */
	bool remote;
	bool cache_on;                 /* the header cache was used */
	unsigned cache_hits;           /* parts (and lists) read from the cache without a request */
	unsigned cache_revalidated;    /* ... that the server confirmed (a request, no body) */
	unsigned cache_misses;         /* ... fetched */
} cli_gguf;

/* "hit", "revalidated", "miss" (any part fetched) or "off", for a summary. */
const char *cli_gguf_cache_word(const cli_gguf *g);

/* Open and parse SOURCE (not a catalog id) and all its split parts. Prints
 * the error to stderr; returns 0 or an exit code (EXIT_USAGE for a
 * malformed hf: name, EXIT_ERROR otherwise). Free with cli_gguf_close. */
int cli_gguf_open(const char *source, const cli_source_opts *o, cli_gguf *out);
void cli_gguf_close(cli_gguf *g);

/* A model from the catalog or from a GGUF. */
typedef struct cli_model {
	cr_model model;               /* a copy */
	uint64_t weights_bytes;       /* exact tensor bytes (GGUF); 0 for catalog models */
	bool from_gguf;
	char file_type[CR_ID_MAX];    /* the GGUF's general.file_type ("Q4_K_M"), or "" */
	char location[CR_URL_MAX * 2];/* path or URL read, or "" */
	cr_source_stats stats;        /* remote requests and bytes */
} cli_model;

/*
 * Resolve a catalog id or a SOURCE into @p out. For a GGUF, out->weights_bytes
 * is the exact Σ of tensor bytes to pass as cr_estimate_opts.weights_bytes.
 * Prints errors (with suggestions for unknown ids) to stderr; returns 0 or
 * an exit code: EXIT_USAGE for an unknown id or a malformed source, EXIT_ERROR
 * for a file or network failure or a header that cannot be mapped.
 */
int cli_resolve_model(const cr_catalog *cat, const char *id_or_source, const cli_source_opts *o,
		      cli_model *out);

/*
 * The GGUF files of hf:OWNER/REPO (grouped split parts, quant from the
 * names). *entries is freed by the caller with free(). Prints errors;
 * returns 0 or an exit code.
 */
int cli_hf_list(const char *source, const cli_source_opts *o, cr_hf_entry **entries, size_t *n,
		cr_source_stats *stats);

/* The inspect command (cmd_inspect.c). */
int cmd_inspect(const cli_globals *g, int argc, char **argv);

#endif
