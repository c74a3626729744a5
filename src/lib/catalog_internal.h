/* Library-internal declarations shared by the catalog modules. */
#ifndef CLEFRUN_CATALOG_INTERNAL_H
#define CLEFRUN_CATALOG_INTERNAL_H

#include <stddef.h>

#include "clefrun/catalog.h"
#include "json_read.h"

/* The data files compiled in (generated from data/ by cmake/embed.cmake). */
extern const char cr_embedded_models[];
extern const size_t cr_embedded_models_len;
extern const char cr_embedded_quants[];
extern const size_t cr_embedded_quants_len;
extern const char cr_embedded_rigs[];
extern const size_t cr_embedded_rigs_len;
extern const char cr_embedded_version[];
extern const char cr_embedded_date[];
extern const char cr_embedded_sha256[];

/* Default usable share of a device's memory by kind, and for unified
 * memory by platform (backend) and size (catalog.c; docs/methodology.md
 * "Usable memory"). Reads kind, backend and memory_gib of @p d. */
double cr_default_usable_fraction(const cr_device *d);

/* Read and validate one rig object of the data/rigs.json format at the
 * context's current path (catalog.c; reused for saved rigs, userrigs.c). */
int cr_catalog_read_rig(jr_ctx *c, const cJSON *o, cr_rig *r);

#endif
