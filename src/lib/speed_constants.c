/* Fitted constants; see speed_constants.h and docs/accuracy.md. */
#include "speed_constants.h"

/* PROVISIONAL until bench/speed-calibration's fit lands. */
const cr_speed_constants cr_speed_table[CR_BACKEND_COUNT] = {
	[CR_BACKEND_CUDA] = { 0.85, 0.0025, 0.35 },
	[CR_BACKEND_METAL] = { 0.75, 0.003, 0.5 },
	[CR_BACKEND_ROCM] = { 0.6, 0.003, 0.3 },
	[CR_BACKEND_VULKAN] = { 0.6, 0.003, 0.3 },
	[CR_BACKEND_CPU] = { 0.6, 0.0, 0.3 },
};

const double CR_MULTI_GPU_DECODE_FACTOR_VALUE = 1.3;
