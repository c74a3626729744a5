/*
 * Rigs ranked by what a model needs (rank.h). The estimates are the
 * estimator's; this only compares their fields.
 */
#include "clefrun/rank.h"

#include "util.h"

static bool fits(const cr_estimate *e, cr_rank_need need, uint32_t context_max)
{
	return need == CR_RANK_FULL_CONTEXT ? e->max_context >= context_max : e->fits;
}

int cr_rank_smallest_rig(const cr_estimate *const *est, size_t n, cr_rank_need need,
			 uint32_t context_max, size_t *out, cr_error *err)
{
	const cr_estimate *best = NULL;

	if (!out || (n && !est))
		return cr_seterr(err, CR_ERR_INVALID, "rank: no estimates or no place for the answer");
	if (need != CR_RANK_CONTEXT && need != CR_RANK_FULL_CONTEXT)
		return cr_seterr(err, CR_ERR_INVALID, "rank: unknown need %d", (int)need);
	*out = n;
	for (size_t i = 0; i < n; i++) {
		const cr_estimate *e = est[i];

		if (!e || !fits(e, need, context_max))
			continue;
		if (!best || e->memory.available_bytes < best->memory.available_bytes ||
		    (e->memory.available_bytes == best->memory.available_bytes &&
		     e->decode_tokens_per_s > best->decode_tokens_per_s)) {
			best = e;
			*out = i;
		}
	}
	return CR_OK;
}
