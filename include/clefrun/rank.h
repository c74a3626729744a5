/**
 * @file rank.h
 * @brief Rigs ranked by what one model needs: the smallest rig that runs it
 * ("clefrun report", the "Run it locally" table).
 *
 * Pure like the estimator: it reads estimates the caller made
 * (cr_estimate_run, one per rig, the same model, weights and options) and
 * re-derives nothing; no I/O, no allocation.
 */
#ifndef CLEFRUN_RANK_H
#define CLEFRUN_RANK_H

#include <stddef.h>
#include <stdint.h>

#include "clefrun/error.h"
#include "clefrun/estimate.h"

#ifdef __cplusplus
extern "C" {
#endif

/** What a rig must fit to be ranked (cr_rank_smallest_rig). */
typedef enum cr_rank_need {
	CR_RANK_CONTEXT = 0,  /**< the estimate's requested context (cr_estimate.fits) */
	CR_RANK_FULL_CONTEXT  /**< the model's whole context: max_context at least @p context_max */
} cr_rank_need;

/**
 * The smallest rig that fits: of @p n estimates, one per rig, the one with
 * the least usable memory (memory.available_bytes) among those that fit as
 * @p need says; a tie goes to the faster decode, then to the earlier
 * estimate.
 *
 * @param est          @p n estimates, borrowed; NULL entries are skipped.
 * @param context_max  the model's maximum context, tokens (CR_RANK_FULL_CONTEXT).
 * @param out          receives the index of the smallest rig, or @p n when
 *                     none fits (an answer, not an error).
 * @return 0; CR_ERR_INVALID for a NULL @p out, a NULL @p est with @p n > 0,
 *   or an unknown @p need.
 */
int cr_rank_smallest_rig(const cr_estimate *const *est, size_t n, cr_rank_need need,
			 uint32_t context_max, size_t *out, cr_error *err);

#ifdef __cplusplus
}
#endif

#endif
