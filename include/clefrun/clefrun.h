/**
 * @file clefrun.h
 * @brief libclefrun: will this model run on this machine, with how much
 * context, and how fast?
 *
 * Umbrella header. Modules:
 *  - error.h    status codes and the caller-supplied error record
 *  - catalog.h  models, quantizations and rigs (JSON, validated)
 *  - rig.h      ad-hoc rigs from a "custom:" spec
 *  - estimate.h the pure estimator: memory, speed, fit tier, max context
 *  - version.h  library version
 */
#ifndef CLEFRUN_H
#define CLEFRUN_H

#include "clefrun/error.h"
#include "clefrun/catalog.h"
#include "clefrun/rig.h"
#include "clefrun/estimate.h"
#include "clefrun/version.h"

#endif
