/**
 * @file decide.h
 * @brief Decisions on top of the estimator: the best quant of a model on a
 * rig, and which models a rig can run ("clefrun fit").
 *
 * Pure functions like the estimator they call (estimate.h): plain structs
 * in and out, no I/O, no allocation, no global state. "Reaches a tier"
 * means the estimate's tier is that tier or a better one in cr_tier order
 * (fast < ok < slow < tight < unknown < no-fit); unknown reaches no tier.
 *
 * Best quant. Among the candidate quants whose estimate reaches the
 * required tier, the one with the highest bits per weight (the best quality
 * that is still good enough); equal bpw: the faster decode, then the earlier
 * candidate. When none reaches the tier, the candidate closest to it is
 * reported instead: in the best tier any candidate reaches, the fastest
 * (decode tokens/s, or time-to-decision under --workload decide; then the
 * higher bpw), so "slow, with Q2_K at 7.7 t/s" rather than Q8_0 at 1.2;
 * in the unknown tier (no speed to compare) the highest bpw; when nothing
 * fits at all, the lowest bpw (the one that comes closest to fitting).
 *
 * Candidates. cr_decide_best_quant weighs exactly the quants it is given.
 * The default set (cr_decide_default_candidate, used by cr_decide_fit unless
 * all_quants) leaves out presets that another preset of about the same size
 * beats on quality, so that "highest bpw" does not pick them: the legacy
 * Q4_0, Q4_1, Q5_0 and Q5_1 (llama-quantize's own table, LLaMA-v1-7B:
 * Q4_1 3.90 GB +0.1585 ppl vs Q4_K_M 3.80 GB +0.0532; Q5_1 4.70 GB +0.0349
 * vs Q5_K_M 4.45 GB +0.0122; Q5_0 4.33 GB +0.0683 vs Q5_K_S 4.33 GB +0.0400;
 * Q4_0 3.56 GB +0.2166 vs Q4_K_S 3.59 GB +0.0992), and MXFP4 for dense
 * models (llama-quantize's MXFP4_MOE puts MoE experts in MXFP4; gpt-oss
 * ships that way).
 *
 * Fit ranking. Every model gets its best quant; models that reach the tier
 * come first, ordered by
 *   1. total parameters, larger first: the biggest model the rig runs well.
 *      MoE models count all experts (they must all be resident, and quality
 *      follows total size more than active size);
 *   2. bits per weight of the chosen quant, higher first (quality);
 *   3. decode tokens/s, faster first;
 *   4. model id, alphabetically (a total order: the output is stable).
 * Then the models that do not reach it (best tier first, then the same
 * rule), then the models whose training context is below the requested one.
 *
 * Groups. A list of devices for one model (check --rig all, the report)
 * groups its rows as the seed pages' "which GPUs can run it": runs well
 * (tier fast or ok), fits but slow, tight, speed unknown, does not fit
 * (cr_decide_group: from the tier alone).
 */
#ifndef CLEFRUN_DECIDE_H
#define CLEFRUN_DECIDE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "clefrun/catalog.h"
#include "clefrun/error.h"
#include "clefrun/estimate.h"

#ifdef __cplusplus
extern "C" {
#endif

/** The outcome of cr_decide_best_quant. */
typedef enum cr_best_outcome {
	CR_BEST_REACHES = 0, /**< the choice reaches the required tier */
	CR_BEST_CLOSEST,     /**< none does; the choice is the closest (best tier, then fastest) */
	CR_BEST_NOFIT        /**< none fits at all; the choice is the smallest (lowest bpw) */
} cr_best_outcome;

/** What cr_decide_best_quant chose. */
typedef struct cr_best_quant {
	cr_best_outcome outcome;
	size_t index;          /**< into the candidates: the choice */
	cr_estimate estimate;  /**< of the choice */
} cr_best_quant;

/**
 * The best quant of @p model on @p rig at @p opts (context, KV type, ...).
 * Whether a candidate reaches @p require is a result (out->outcome), not an
 * error: a rig that runs nothing well is an answer.
 *
 * @param quants   candidates (e.g. every catalog quant, in catalog order);
 *                 borrowed, not kept.
 * @param require  the tier to reach (CR_TIER_FAST .. CR_TIER_TIGHT).
 * @param out      receives the choice (file comment): the best that reaches
 *                 @p require, or the closest to it, or the smallest.
 * @return 0 (whatever the outcome); CR_ERR_INVALID for a NULL argument, no
 *   candidates or a bad @p require; any error of cr_estimate_run (e.g.
 *   CR_ERR_RANGE for a context above the model's maximum), with @p out
 *   untouched.
 */
int cr_decide_best_quant(const cr_model *model, const cr_quant *const *quants,
			 size_t n_quants, const cr_rig *rig,
			 const cr_estimate_opts *opts, cr_tier require,
			 cr_best_quant *out, cr_error *err);

/** An estimate of one candidate for cr_decide_best_quant_by: as
 *  cr_estimate_run(model, quant, rig, opts, out, err), or a caller's variant
 *  of it (a front-end profile's, engine.h); @p ctx is the caller's. */
typedef int (*cr_decide_estimate_fn)(void *ctx, const cr_model *model, const cr_quant *quant,
				     const cr_rig *rig, const cr_estimate_opts *opts,
				     cr_estimate *out, cr_error *err);

/** cr_decide_best_quant with each candidate estimated by @p fn (NULL:
 *  cr_estimate_run); the choice rule is the same. */
int cr_decide_best_quant_by(const cr_model *model, const cr_quant *const *quants,
			    size_t n_quants, const cr_rig *rig,
			    const cr_estimate_opts *opts, cr_tier require,
			    cr_decide_estimate_fn fn, void *ctx,
			    cr_best_quant *out, cr_error *err);

/**
 * Whether @p quant is in clefrun's default candidate set for @p model (file
 * comment): not a legacy type (base type Q4_0, Q4_1, Q5_0, Q5_1), and MXFP4
 * only for MoE models.
 */
bool cr_decide_default_candidate(const cr_model *model, const cr_quant *quant);

/** Most candidate quants cr_decide_fit takes (it filters them on the stack). */
#define CR_DECIDE_MAX_QUANTS 256

/** What cr_decide_fit found for one model. */
typedef enum cr_fit_status {
	CR_FIT_REACHES = 0, /**< some quant reaches the required tier */
	CR_FIT_BELOW,       /**< none does; quant/estimate are the closest (best tier, then fastest) */
	CR_FIT_CONTEXT      /**< the model's training context is below the requested one; not estimated */
} cr_fit_status;

/** One model's row of a fit. */
typedef struct cr_fit_row {
	const cr_model *model;  /**< borrowed from the caller's list */
	cr_fit_status status;
	const cr_quant *quant;  /**< chosen quant (NULL for CR_FIT_CONTEXT); borrowed */
	size_t quant_index;     /**< its index into the quants passed to cr_decide_fit */
	uint32_t context;       /**< context the estimate used, tokens */
	cr_estimate estimate;   /**< of that quant; zeroed for CR_FIT_CONTEXT */
	char flash_attn_reason[160]; /**< how flash attention resolved (cr_estimate_setup) */
} cr_fit_row;

/** Options of a fit. Initialise with CR_FIT_OPTS_INIT. */
typedef struct cr_fit_opts {
	cr_estimate_opts estimate; /**< KV type, batch, headroom, ...; its n_ctx is ignored */
	uint32_t n_ctx;            /**< context; 0 = per model the default of cr_estimate_resolve_opts */
	cr_tier require;           /**< tier to reach (default CR_TIER_OK) */
	bool all_quants;           /**< weigh every given quant; false = cr_decide_default_candidate per model */
	cr_flash_attn flash_attn;  /**< resolved per model and rig (cr_estimate_resolve_opts); overrides estimate.flash_attn */
} cr_fit_opts;

/* Defaults: the estimator's, each model's default context, the ok tier, one
 * candidate quant per model, flash attention resolved per model. */
#define CR_FIT_OPTS_INIT                                                             \
	{ .estimate = CR_ESTIMATE_OPTS_INIT, .n_ctx = 0, .require = CR_TIER_OK,       \
	  .all_quants = false, .flash_attn = CR_FA_AUTO }

/**
 * Best quant of every model in @p models on @p rig, ranked (file comment).
 *
 * @param rows    caller-supplied array of @p n_models rows; on success it
 *                holds one row per model in ranked order.
 * @param n_reach receives how many leading rows have CR_FIT_REACHES.
 * @return 0; CR_ERR_INVALID for no quants, more than CR_DECIDE_MAX_QUANTS,
 *   a bad require, or a model left with no default candidate; an error of
 *   cr_estimate_run for a model (the message names it).
 */
int cr_decide_fit(const cr_model *const *models, size_t n_models,
		  const cr_quant *const *quants, size_t n_quants, const cr_rig *rig,
		  const cr_fit_opts *opts, cr_fit_row *rows, size_t *n_reach,
		  cr_error *err);

/**
 * The ranking of cr_decide_fit as a comparison: negative when @p a ranks
 * before @p b, positive after, 0 only for the same model.
 */
int cr_decide_fit_compare(const cr_fit_row *a, const cr_fit_row *b);

/** "reaches", "below", "context": how JSON and CSV spell a status. */
const char *cr_fit_status_name(cr_fit_status s);

/**
 * The groups of a device list, as the seed pages ("which GPUs can run it")
 * print them: a row's group follows from its tier alone, so every list of
 * rigs (check --rig all, the report) groups the same way.
 */
typedef enum cr_fit_group {
	CR_GROUP_RUNS_WELL = 0, /**< tier fast or ok */
	CR_GROUP_SLOW,          /**< tier slow: fits, decode (or time-to-decision) too slow for ok */
	CR_GROUP_TIGHT,         /**< tier tight: fits without the headroom, or only below the context */
	CR_GROUP_UNKNOWN,       /**< tier unknown: fits, but the speed its tier needs is unknown */
	CR_GROUP_NOFIT,         /**< tier no-fit */
	CR_GROUP_COUNT
} cr_fit_group;

/** The group of a tier (a tier out of range: CR_GROUP_NOFIT). */
cr_fit_group cr_decide_group(cr_tier tier);

/** "runs_well", "slow", "tight", "unknown", "nofit": how JSON and CSV spell a group. */
const char *cr_fit_group_name(cr_fit_group g);

/** "Runs well", "Fits but slow", "Tight", "Fits, speed unknown", "Does not fit": a heading. */
const char *cr_fit_group_title(cr_fit_group g);

#ifdef __cplusplus
}
#endif
#endif
