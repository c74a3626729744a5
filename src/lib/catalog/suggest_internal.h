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

#endif
