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
	double prefill_param_s;  /* prefill time per token per active parameter, beyond the FLOPs */
	double decode_q10;       /* 10th percentile of measured ÷ predicted decode */
	double decode_q90;       /* 90th percentile */
} cr_speed_constants;

extern const cr_speed_constants cr_speed_table[CR_BACKEND_COUNT];

/* Layer split over n > 1 GPUs: time per token relative to one card reading
 * the same bytes. */
extern const double cr_multi_gpu_decode_factor;

/* Tensor parallelism: latency of one small all-reduce, and the link assumed
 * when a rig states none. */
extern const double cr_tp_allreduce_latency_s;
extern const double cr_tp_default_link_gbs;

#endif
