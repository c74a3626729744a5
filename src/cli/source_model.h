/*
 * Models from a SOURCE (docs/gguf.md): a catalog id, a local GGUF path, an
 * http(s) URL or an hf: name. The library resolves them
 * (clefrun/model_source.h); this adapter hands it the settings of the
 * environment (HF_ENDPOINT, HF_TOKEN, HF_TOKEN_PATH, HF_HOME, HF_HUB_CACHE,
 * HUGGINGFACE_HUB_CACHE, OLLAMA_MODELS, XDG_CACHE_HOME, HOME,
 * CLEFRUN_HTTP_DEADLINE) and the command line
 * (--revision, --header-only, --no-cache, --offline, --ollama-registry), draws the progress
 * line, and prints errors with the hints their reason codes call for.
 */
#ifndef CLEFRUN_CLI_SOURCE_MODEL_H
#define CLEFRUN_CLI_SOURCE_MODEL_H

#include <stdbool.h>

#include "cli.h"

typedef struct cli_source_opts {
	const char *revision;  /* Hugging Face revision; NULL: main */
	bool allow_truncated;  /* accept header-only files (tensor data missing) */
	bool no_cache;         /* --no-cache: the header cache is neither read nor written */
	bool offline;          /* --offline: the header cache only, no request */
	const char *command;   /* the command in use, for hints ("clefrun check"); NULL: inspect */
	const char *ollama_registry; /* --ollama-registry URL; NULL: https://registry.ollama.ai */
	bool no_model;         /* read the header only, map no model (an mmproj file) */
	bool quiet;            /* cli_hf_list: print no error (an optional read) */
} cli_source_opts;

#define CLI_SOURCE_OPTS_INIT                                                    \
	{ .revision = NULL, .allow_truncated = false, .no_cache = false, .offline = false, \
	  .command = NULL, .ollama_registry = NULL, .no_model = false, .quiet = false }

/* "hit", "revalidated", "miss" (any part fetched) or "off", for a summary. */
const char *cli_source_cache_word(const cr_model_source *m);

/* Resolve SOURCE (not a catalog id) with its headers (cr_model_source_resolve).
 * Prints the error to stderr; returns 0 or an exit code (EXIT_USAGE for a
 * malformed source, EXIT_ERROR otherwise). Free with cr_model_source_free. */
int cli_source_open(const char *source, const cli_source_opts *o, cr_model_source **out);

/* A model from the catalog or from a GGUF. */
typedef struct cli_model {
	cr_model model;               /* a copy */
	uint64_t weights_bytes;       /* exact tensor bytes (GGUF); 0 for catalog models */
	uint64_t mapped_extra_bytes;  /* cr_gguf_model.mapped_extra_bytes (GGUF); 0 otherwise */
	uint64_t mtp_bytes;           /* cr_gguf_model.mtp_bytes: the MTP layers' tensors (GGUF); 0 otherwise */
	bool mtp_in_weights;          /* those bytes are part of weights_bytes (the loader keeps them) */
	uint64_t type_bytes[CR_GGML_TYPE_COUNT]; /* those bytes by ggml type (GGUF) */
	bool from_gguf;
	char file_type[CR_ID_MAX];    /* the GGUF's general.file_type ("Q4_K_M"), or "" */
	char location[CR_URL_MAX * 2];/* path or URL read, or "" */
	cr_source_stats stats;        /* remote requests and bytes */
	bool from_hub_cache;          /* hf: read from the Hugging Face hub cache on disk */
	bool is_ollama;               /* an ollama: source; ollama says what it read */
	cr_model_source_ollama ollama;
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
 * The GGUF files of hf:OWNER/REPO (cr_model_source_list). *entries is freed
 * by the caller with free(). Prints errors; returns 0 or an exit code.
 */
int cli_hf_list(const char *source, const cli_source_opts *o, cr_hf_entry **entries, size_t *n,
		cr_source_stats *stats);

/* A safetensors checkpoint: a directory with config.json, or hf:OWNER/REPO
 * (cr_st_source_load with the environment's settings). Prints errors;
 * returns 0 or an exit code. */
int cli_st_open(const char *source, const cli_source_opts *o, cr_st_checkpoint *out);

/* The vLLM engine of check (cmd_vllm.c): `clefrun check --engine vllm`. */
int cmd_check_vllm(const cli_globals *g, int argc, char **argv);

/* The inspect command (cmd_inspect.c). */
int cmd_inspect(const cli_globals *g, int argc, char **argv);

#endif
