/*
 * How the CLI words and writes estimates, shared by check, fit, inspect (and
 * report): the wording of a request the library refused as out of range, in
 * the CLI's option names, and the one JSON writer of an estimate row
 * (docs/schema/common.schema.json "estimate" and "memory").
 */
#ifndef CLEFRUN_CLI_ESTIMATE_OUT_H
#define CLEFRUN_CLI_ESTIMATE_OUT_H

#include <cjson/cJSON.h>

#include "cli.h"

/* Print why cr_estimate_resolve_opts refused a request (@p status, @p set,
 * @p err as it left them) to stderr, naming --ctx, --depth or
 * --prompt-tokens where set->bad says which input it was. */
void cli_request_error(const cr_estimate_setup *set, const cr_model *m, int status,
		       const cr_error *err);

/* Print an estimator error (@p err as cr_estimate_* left it) to stderr, with
 * a hint naming this CLI's options where the error's reason calls for one
 * (the library names none). */
void cli_estimate_error(const cr_error *err);

/* @p v rounded to 1/scale, or null when not positive (unknown, no fit). */
void cli_json_rate(cJSON *o, const char *key, double v, double scale);

/* The memory breakdown of an estimate as an object: weights, kv, state,
 * compute, output, overhead, total, [available,] device and host bytes.
 * with_available: false for the single-device figure, whose rig has no
 * meaningful capacity. NULL when out of memory. */
cJSON *cli_json_memory(const cr_memory *m, bool with_available);
/* The same keys, added to @p o. */
void cli_json_memory_add(cJSON *o, const cr_memory *m, bool with_available);

/* The fields of one estimate of a model on @p rig, added to @p o in this
 * order: context, memory, fits, max_context, offload_fraction, gpu_layers,
 * devices, flash_attn, decode (with range and depth), prefill (with range
 * and depth), time_to_decision_s, speed_confidence, basis, speed_validated,
 * flash_attn_reason, explain (when @p explain is not NULL; o takes it),
 * prompt_tokens, tier. */
void cli_json_estimate(cJSON *o, const cr_rig *rig, const cr_estimate *e, const char *fa_why,
		       cJSON *explain);

#endif
