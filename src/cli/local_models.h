/*
 * The models on this machine for the CLI (cmd_local.c): `models --local`
 * and `fit --local`, over the library's scan (clefrun/local.h).
 */
#ifndef CLEFRUN_CLI_LOCAL_MODELS_H
#define CLEFRUN_CLI_LOCAL_MODELS_H

#include "cli.h"

#define CLI_LOCAL_MAX_PATHS 16

typedef struct cli_local_cfg {
	const char *paths[CLI_LOCAL_MAX_PATHS]; /* --path DIR, repeatable */
	int n_paths;
	bool header_only;        /* accept GGUF files cut after their header */
	cli_format fmt;
	/* fit --local: */
	unsigned ctx;            /* --ctx; 0: 8k, the model's maximum if smaller, or an Ollama num_ctx */
	cr_tier require;
	cr_kv_type kv;
	cr_flash_attn fa;
	cr_workload workload;
} cli_local_cfg;

/* Scan the stores and --path folders; prints errors; 0 or an exit code. */
int cli_local_scan(const cli_local_cfg *c, cr_local_model **out, size_t *n);
/* models --local: one row per model found (a broken file with its error). */
int cli_models_local(const cli_local_cfg *c);
/* fit --local: each model found on @p rig, best tier first; exit 3 when none reaches c->require. */
int cli_fit_local(const cli_local_cfg *c, const cr_rig *rig, cli_rig_origin origin);

#endif
