/*
 * Speed-model constants per llama.cpp backend family, fitted by
 * bench/speed-calibration on bench/data/measured_public.csv (docs/accuracy.md
 * gives the method, the residuals and the rows behind each figure).
 */
#ifndef CLEFRUN_SPEED_CONSTANTS_H
#define CLEFRUN_SPEED_CONSTANTS_H

#include "clefrun/catalog.h"

typedef struct cr_speed_constants {
	double decode_eff;       /* share of peak bandwidth reached while decoding */
	double decode_latency_s; /* fixed time per token (kernel launches, sync) */
	double prefill_eff;      /* share of dense FP16 peak reached in prefill */
} cr_speed_constants;

extern const cr_speed_constants cr_speed_table[CR_BACKEND_COUNT];

/* Layer split over n > 1 GPUs: time per token relative to one card reading
 * the same bytes (design.md: decode runs at ~0.77 of one card). */
extern const double CR_MULTI_GPU_DECODE_FACTOR_VALUE;
#define CR_MULTI_GPU_DECODE_FACTOR CR_MULTI_GPU_DECODE_FACTOR_VALUE

#endif
