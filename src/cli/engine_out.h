/*
 * --engine in the CLI (check, fit): the front-end's environment, read here
 * and only under --engine ollama (the library reads no environment); the
 * defaults a profile decided, in text and JSON; and the command or settings
 * that reproduce an estimate under that front-end (docs/engines.md).
 */
#ifndef CLEFRUN_CLI_ENGINE_OUT_H
#define CLEFRUN_CLI_ENGINE_OUT_H

#include <stdio.h>

#include <cjson/cJSON.h>

#include "cli.h"

/* The --engine values, in cr_engine order. */
extern const cli_enum_name cli_engine_names[];

/* The environment variables @p e reads, from getenv (all NULL but for ollama). */
void cli_engine_env(cr_engine e, cr_engine_env *out);

/* Print a cr_engine_apply error on stderr, prefixed by @p command; returns the exit code. */
int cli_engine_error(const char *command, int status, const cr_error *err);

/* The last entry of each default's name, "name value (origin)" joined by ", ". */
void cli_engine_summary(const cr_engine_profile *p, char *buf, size_t cap);

/* Every entry with its reason and source, indented, for --explain. */
void cli_engine_explain(const cr_engine_profile *p, FILE *f);

/* The "defaults" array of a JSON row. NULL when out of memory. */
cJSON *cli_engine_json(const cr_engine_profile *p);

/* The command or settings reproducing an estimate made at @p o under @p p's
 * front-end, for a model given as @p model (a path; NULL: a catalog model,
 * shown as MODEL.gguf / MODEL). */
void cli_engine_command(const cr_engine_profile *p, const cr_estimate_opts *o, bool fa,
			bool gpu_layers_given, const char *model, char *buf, size_t cap);

#endif
