/* The scoring behind cr_catalog_suggest, shared with the saved-rig
 * suggestions (userrigs.c) so that both rank ids the same way. */
#ifndef CLEFRUN_SUGGEST_INTERNAL_H
#define CLEFRUN_SUGGEST_INTERNAL_H

#include <stddef.h>

/* Edit distance of typed to id (case-insensitive), capped at 2 when id
 * contains typed; lower is closer. */
size_t cr_suggest_score(const char *typed, const char *id);
/* Largest score still worth suggesting for a typed name. */
size_t cr_suggest_limit(const char *name);
/* Offer id for the ranked list out[0..got) (scores[] beside it, closest
 * first, at most max <= 8 entries, ties in offer order): inserted when its
 * score is within limit and it ranks among the max best. Returns the new
 * count. */
size_t cr_suggest_rank(const char *name, const char *id, size_t limit, size_t max, size_t *scores,
		       const char **out, size_t got);

#endif
