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
	.prefill_eff = { [CR_BACKEND_CUDA] = 0.3870, [CR_BACKEND_METAL] = 0.6715, [CR_BACKEND_ROCM] = 0.3451, [CR_BACKEND_VULKAN] = 0.1849, [CR_BACKEND_CPU] = 0.9096 },
	.prefill_cell = {
		[CR_BACKEND_CUDA] = { 1, 0.7770, 1.1381, 1.1215, 1.0000 },
		[CR_BACKEND_METAL] = { 1, 1.0000, 1.0000, 1.1383, 1.0000 },
		[CR_BACKEND_ROCM] = { 1, 1.0934, 1.2189, 0.7232, 1.0000 },
		[CR_BACKEND_VULKAN] = { 1, 1.0000, 1.0543, 0.7821, 1.0000 },
		[CR_BACKEND_CPU] = { 1, 1.0000, 1.0000, 1.0000, 1.0000 },
	},
	.vulkan_vendor_prefill = { [CR_VENDOR_NVIDIA] = 1.4939, [CR_VENDOR_AMD] = 1.3125, [CR_VENDOR_INTEL] = 0.4205 },
	.prefill_f16 = 1.1536,        /* F16 / BF16 weights (cuBLAS / GEMM path) */
	.moe_half_tokens = 43.81,    /* tokens per expert at half a dense GEMM's efficiency */
	/* attention FLOPs relative to weight FLOPs: psi x the backend's own factor (CPU: psi) */
	.attention_cost = { [CR_BACKEND_CUDA] = 1.7076, [CR_BACKEND_METAL] = 2.0967, [CR_BACKEND_ROCM] = 2.3334, [CR_BACKEND_VULKAN] = 2.8342, [CR_BACKEND_CPU] = 2.0314 },
	.prefill_layer_s = 1.095e-04,    /* per layer per micro-batch */
	.prefill_kv_tokens = 72.89,  /* prompt tokens per pass over the KV cache */
	/* out of sample (leave one source out, 2025-26 rows): median absolute error, percent,
	 * and the 10th / 90th percentiles of measured / predicted */
	.decode_error_pct = { [CR_BACKEND_CUDA] = 16.5, [CR_BACKEND_METAL] = 17.8, [CR_BACKEND_ROCM] = 8.6, [CR_BACKEND_VULKAN] = 14.8, [CR_BACKEND_CPU] = 40.3 },
	.decode_q10 = { [CR_BACKEND_CUDA] = 0.607, [CR_BACKEND_METAL] = 0.547, [CR_BACKEND_ROCM] = 0.772, [CR_BACKEND_VULKAN] = 0.501, [CR_BACKEND_CPU] = 0.565 },
	.decode_q90 = { [CR_BACKEND_CUDA] = 1.352, [CR_BACKEND_METAL] = 1.231, [CR_BACKEND_ROCM] = 1.228, [CR_BACKEND_VULKAN] = 1.309, [CR_BACKEND_CPU] = 1.307 },
	.prefill_error_pct = { [CR_BACKEND_CUDA] = 21.5, [CR_BACKEND_METAL] = 11.5, [CR_BACKEND_ROCM] = 20.2, [CR_BACKEND_VULKAN] = 32.1, [CR_BACKEND_CPU] = 28.6 },
	.prefill_q10 = { [CR_BACKEND_CUDA] = 0.591, [CR_BACKEND_METAL] = 0.837, [CR_BACKEND_ROCM] = 0.663, [CR_BACKEND_VULKAN] = 0.481, [CR_BACKEND_CPU] = 0.651 },
	.prefill_q90 = { [CR_BACKEND_CUDA] = 1.681, [CR_BACKEND_METAL] = 1.470, [CR_BACKEND_ROCM] = 1.412, [CR_BACKEND_VULKAN] = 2.011, [CR_BACKEND_CPU] = 1.742 },
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
