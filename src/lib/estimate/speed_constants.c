/*
 * Speed-model constants, written by `bench/speed-calibration --emit-c` from
 * 947 measured llama.cpp rows of 105 sources in bench/data/ (docs/accuracy.md:
 * the model, the fit, and its leave-one-source-out error). Do not edit by
 * hand: change the data or the model and re-run the script.
 */
#include "speed_constants.h"

const cr_speed_model cr_speed = {
	/* decode: achievable share of peak bandwidth per memory class (CPU rows: DDR) */
	.decode_eff = { [CR_MEMTYPE_AUTO] = 0.6897, [CR_MEMTYPE_HBM] = 0.4863, [CR_MEMTYPE_GDDR] = 0.6897, [CR_MEMTYPE_LPDDR] = 0.7213, [CR_MEMTYPE_DDR] = 0.7366 },
	/* per backend, and per (backend, memory class: AUTO, HBM, GDDR, LPDDR, DDR) */
	.backend_eff = { [CR_BACKEND_CUDA] = 1.0000, [CR_BACKEND_METAL] = 0.9899, [CR_BACKEND_ROCM] = 0.9443, [CR_BACKEND_VULKAN] = 0.9195, [CR_BACKEND_CPU] = 1.0000 },
	.cell_eff = {
		[CR_BACKEND_CUDA] = { 1, 0.9713, 1.1413, 1.0472, 1.0000 },
		[CR_BACKEND_METAL] = { 1, 1.0000, 1.0000, 0.9843, 1.0000 },
		[CR_BACKEND_ROCM] = { 1, 0.9399, 0.9861, 0.9865, 1.0000 },
		[CR_BACKEND_VULKAN] = { 1, 1.0000, 0.8852, 0.9908, 1.0000 },
		[CR_BACKEND_CPU] = { 1, 1.0000, 1.0000, 1.0000, 1.0000 },
	},
	/* Vulkan: per GPU vendor (driver and shader paths); 1 for any other */
	.vulkan_vendor_eff = { [CR_VENDOR_NVIDIA] = 1.0123, [CR_VENDOR_AMD] = 1.1551, [CR_VENDOR_INTEL] = 0.7501 },
	.kv_read_factor = 1.1798,     /* KV bytes cost this many weight bytes */
	/* seconds per layer per token: kernel launches and synchronisation */
	.layer_s = { [CR_BACKEND_CUDA] = 2.375e-05, [CR_BACKEND_METAL] = 6.886e-05, [CR_BACKEND_ROCM] = 2.061e-05, [CR_BACKEND_VULKAN] = 2.097e-05, [CR_BACKEND_CPU] = 1.494e-05 },
	.recurrent_layer_s = 2.606e-05,  /* per linear-attention / SSM layer */
	.moe_expert_s = 8.515e-06,       /* per expert used, per MoE layer: its gathered matmuls */
	.cpu_param_s = 3.758e-12,        /* CPU decode: per active parameter, on a 1-TFLOPS CPU */
	.cpu_default_tflops = 0.700,  /* a CPU without a figure: the calibration CPUs' median */
	.multi_gpu_factor = 1.0046,   /* layer split: cards in turn */
	/* prefill: share of dense FP16 peak the weight GEMMs reach */
	.prefill_eff = { [CR_BACKEND_CUDA] = 0.3985, [CR_BACKEND_METAL] = 0.6712, [CR_BACKEND_ROCM] = 0.3386, [CR_BACKEND_VULKAN] = 0.1808, [CR_BACKEND_CPU] = 0.9077 },
	.prefill_cell = {
		[CR_BACKEND_CUDA] = { 1, 0.7788, 1.1286, 1.1367, 1.0000 },
		[CR_BACKEND_METAL] = { 1, 1.0000, 1.0000, 1.1381, 1.0000 },
		[CR_BACKEND_ROCM] = { 1, 1.1017, 1.2141, 0.7171, 1.0000 },
		[CR_BACKEND_VULKAN] = { 1, 1.0000, 1.0496, 0.7812, 1.0000 },
		[CR_BACKEND_CPU] = { 1, 1.0000, 1.0000, 1.0000, 1.0000 },
	},
	.vulkan_vendor_prefill = { [CR_VENDOR_NVIDIA] = 1.5056, [CR_VENDOR_AMD] = 1.3320, [CR_VENDOR_INTEL] = 0.4088 },
	.prefill_f16 = 1.1523,        /* F16 / BF16 weights (cuBLAS / GEMM path) */
	.moe_half_tokens = 44.60,    /* tokens per expert at half a dense GEMM's efficiency */
	.attention_cost = 1.9767,     /* attention FLOPs relative to weight FLOPs */
	.prefill_layer_s = 1.123e-04,    /* per layer per micro-batch */
	.prefill_kv_tokens = 69.48,  /* prompt tokens per pass over the KV cache */
	/* out of sample (leave one source out, 2025-26 rows): median absolute error, percent,
	 * and the 10th / 90th percentiles of measured / predicted */
	.decode_error_pct = { [CR_BACKEND_CUDA] = 16.5, [CR_BACKEND_METAL] = 17.8, [CR_BACKEND_ROCM] = 8.6, [CR_BACKEND_VULKAN] = 14.8, [CR_BACKEND_CPU] = 40.3 },
	.decode_q10 = { [CR_BACKEND_CUDA] = 0.607, [CR_BACKEND_METAL] = 0.547, [CR_BACKEND_ROCM] = 0.772, [CR_BACKEND_VULKAN] = 0.501, [CR_BACKEND_CPU] = 0.565 },
	.decode_q90 = { [CR_BACKEND_CUDA] = 1.352, [CR_BACKEND_METAL] = 1.231, [CR_BACKEND_ROCM] = 1.228, [CR_BACKEND_VULKAN] = 1.309, [CR_BACKEND_CPU] = 1.307 },
	.prefill_error_pct = { [CR_BACKEND_CUDA] = 23.3, [CR_BACKEND_METAL] = 11.3, [CR_BACKEND_ROCM] = 20.1, [CR_BACKEND_VULKAN] = 33.4, [CR_BACKEND_CPU] = 28.9 },
	.prefill_q10 = { [CR_BACKEND_CUDA] = 0.584, [CR_BACKEND_METAL] = 0.833, [CR_BACKEND_ROCM] = 0.652, [CR_BACKEND_VULKAN] = 0.485, [CR_BACKEND_CPU] = 0.651 },
	.prefill_q90 = { [CR_BACKEND_CUDA] = 1.668, [CR_BACKEND_METAL] = 1.477, [CR_BACKEND_ROCM] = 1.416, [CR_BACKEND_VULKAN] = 2.026, [CR_BACKEND_CPU] = 1.744 },
};

/* 2025-26 single-device rows per (backend, memory class, vendor): decode rows,
 * prefill rows; rows of dense, MoE and hybrid models; active parameters; the
 * deepest context measured. */
const cr_speed_cell cr_speed_cells[] = {
	{ CR_BACKEND_CPU, CR_MEMTYPE_DDR, CR_VENDOR_OTHER, 21, 16, 37, 0, 0, 1.1e+09, 7.06e+10, 4096 },
	{ CR_BACKEND_CUDA, CR_MEMTYPE_GDDR, CR_VENDOR_NVIDIA, 53, 64, 35, 35, 47, 5.96e+08, 2.69e+10, 49664 },
	{ CR_BACKEND_CUDA, CR_MEMTYPE_HBM, CR_VENDOR_NVIDIA, 6, 10, 2, 14, 0, 3.35e+09, 8.19e+09, 34816 },
	{ CR_BACKEND_CUDA, CR_MEMTYPE_LPDDR, CR_VENDOR_NVIDIA, 36, 45, 20, 58, 3, 3.35e+09, 7.62e+09, 34816 },
	{ CR_BACKEND_METAL, CR_MEMTYPE_LPDDR, CR_VENDOR_APPLE, 38, 40, 57, 19, 2, 5.96e+08, 7.06e+10, 33280 },
	{ CR_BACKEND_ROCM, CR_MEMTYPE_GDDR, CR_VENDOR_AMD, 21, 14, 27, 8, 0, 3.35e+09, 1.18e+10, 33792 },
	{ CR_BACKEND_ROCM, CR_MEMTYPE_HBM, CR_VENDOR_AMD, 5, 4, 7, 2, 0, 1.24e+09, 8.03e+09, 1024 },
	{ CR_BACKEND_ROCM, CR_MEMTYPE_LPDDR, CR_VENDOR_AMD, 41, 42, 61, 15, 7, 1.24e+09, 7.06e+10, 66048 },
	{ CR_BACKEND_VULKAN, CR_MEMTYPE_GDDR, CR_VENDOR_AMD, 13, 13, 24, 0, 2, 4.02e+09, 2.69e+10, 512 },
	{ CR_BACKEND_VULKAN, CR_MEMTYPE_GDDR, CR_VENDOR_INTEL, 18, 25, 18, 4, 21, 2.61e+09, 2.69e+10, 18432 },
	{ CR_BACKEND_VULKAN, CR_MEMTYPE_GDDR, CR_VENDOR_NVIDIA, 15, 19, 23, 11, 0, 2.66e+09, 8.03e+09, 8704 },
	{ CR_BACKEND_VULKAN, CR_MEMTYPE_LPDDR, CR_VENDOR_AMD, 32, 28, 34, 20, 6, 3.21e+09, 7.06e+10, 8704 },
	{ CR_BACKEND_VULKAN, CR_MEMTYPE_LPDDR, CR_VENDOR_INTEL, 2, 0, 2, 0, 0, 2.61e+09, 2.61e+09, 128 },
};
const unsigned cr_speed_cell_count = sizeof(cr_speed_cells) / sizeof(cr_speed_cells[0]);
