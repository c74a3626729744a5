/* The one validator of a rig's figures (rig.c), shared by the "custom:"
 * spec parser (cr_rig_parse_spec) and `clefrun rig add`
 * (cr_userrigs_build); the bounds are rig.h's CR_RIG_*, which catalog.c's
 * reader of data/rigs.json and of the saved rigs uses as well. */
#ifndef CLEFRUN_RIG_INTERNAL_H
#define CLEFRUN_RIG_INTERNAL_H

#include "clefrun/catalog.h"
#include "clefrun/error.h"
#include "clefrun/userrigs.h"

/* CR_ERR_INVALID "PLACE: KEY: V is out of range (LO to HI)" unless
 * lo <= v <= hi (and v finite); PLACE and its ": " are left out when NULL. */
int cr_rig_check_range(const char *place, const char *key, double v, double lo, double hi,
		       cr_error *err);

/* Check @p f and fill @p out's device groups from it: the figures, backend
 * and kind (with the spec's defaults and implications, rig.h), the usable
 * share and the system-RAM group. Names, id and sources are left empty for
 * the caller. Errors are CR_ERR_INVALID, prefixed with "PLACE: " when
 * @p place is not NULL, and name the spec's keys (mem_gb, bw_gbs, devices,
 * tflops, usable_gb, ram_gb, ram_bw_gbs, kind, backend). */
int cr_rig_from_figures(const cr_rig_figures *f, const char *place, cr_rig *out, cr_error *err);

#endif
