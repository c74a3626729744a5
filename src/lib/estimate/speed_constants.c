/*
 * Speed-model constants, written by `bench/speed-calibration --emit-c` from
 * 947 measured llama.cpp rows of 105 sources in bench/data/ (docs/accuracy.md:
 * the model, the fit, and its leave-one-source-out error). Do not edit by
 * hand: change the data or the model and re-run the script.
 */
#include "speed_constants.h"

const cr_speed_model cr_speed = {
	/* decode: achievable share of peak bandwidth per memory class (CPU rows: DDR) */
	.decode_eff = { [CR_MEMTYPE_AUTO] = 0.8250, [CR_MEMTYPE_HBM] = 0.5757, [CR_MEMTYPE_GDDR] = 0.8250, [CR_MEMTYPE_LPDDR] = 0.8181, [CR_MEMTYPE_DDR] = 0.7366 },
	/* per backend, and per (backend, memory class: AUTO, HBM, GDDR, LPDDR, DDR) */
	.backend_eff = { [CR_BACKEND_CUDA] = 1.0000, [CR_BACKEND_METAL] = 0.9711, [CR_BACKEND_ROCM] = 0.9907, [CR_BACKEND_VULKAN] = 0.9477, [CR_BACKEND_CPU] = 1.0000 },
	.cell_eff = {
		[CR_BACKEND_CUDA] = { 1, 0.9743, 1.1223, 1.0902, 1.0000 },
		[CR_BACKEND_METAL] = { 1, 1.0000, 1.0000, 0.9551, 1.0000 },
		[CR_BACKEND_ROCM] = { 1, 0.9774, 1.0075, 1.0007, 1.0000 },
		[CR_BACKEND_VULKAN] = { 1, 1.0000, 0.9215, 0.9978, 1.0000 },
		[CR_BACKEND_CPU] = { 1, 1.0000, 1.0000, 1.0000, 1.0000 },
	},
	/* Vulkan: per GPU vendor (driver and shader paths); 1 for any other */
	.vulkan_vendor_eff = { [CR_VENDOR_NVIDIA] = 1.0422, [CR_VENDOR_AMD] = 1.1670, [CR_VENDOR_INTEL] = 0.7559 },
	.kv_read_factor = 1.1425,     /* KV bytes cost this many weight bytes */
	/* seconds per layer per token: kernel launches and synchronisation */
	.layer_s = { [CR_BACKEND_CUDA] = 1.200e-05, [CR_BACKEND_METAL] = 1.888e-05, [CR_BACKEND_ROCM] = 1.525e-05, [CR_BACKEND_VULKAN] = 1.608e-05, [CR_BACKEND_CPU] = 1.494e-05 },
	/* GPUs, per layer: this many bytes at 1000 GB/s, x sqrt(BW / 1000) at BW */
	.layer_bytes = 6.0630e+07,
	.recurrent_layer_s = 2.410e-05,  /* per linear-attention / SSM layer */
	.moe_expert_s = 1.778e-06,       /* per expert used, per MoE layer: its gathered matmuls */
	.cpu_param_s = 3.759e-12,        /* CPU decode: per active parameter, on a 1-TFLOPS CPU */
	.cpu_default_tflops = 0.700,  /* a CPU without a figure: the calibration CPUs' median */
	.multi_gpu_factor = 1.0221,   /* layer split: cards in turn */
	/* prefill: share of dense FP16 peak the weight GEMMs reach */
	.prefill_eff = { [CR_BACKEND_CUDA] = 0.3818, [CR_BACKEND_METAL] = 0.6753, [CR_BACKEND_ROCM] = 0.3419, [CR_BACKEND_VULKAN] = 0.1838, [CR_BACKEND_CPU] = 0.9107 },
	.prefill_cell = {
		[CR_BACKEND_CUDA] = { 1, 0.7817, 1.1428, 1.1064, 1.0000 },
		[CR_BACKEND_METAL] = { 1, 1.0000, 1.0000, 1.1399, 1.0000 },
		[CR_BACKEND_ROCM] = { 1, 1.0999, 1.2094, 0.7229, 1.0000 },
		[CR_BACKEND_VULKAN] = { 1, 1.0000, 1.0489, 0.7849, 1.0000 },
		[CR_BACKEND_CPU] = { 1, 1.0000, 1.0000, 1.0000, 1.0000 },
	},
	.vulkan_vendor_prefill = { [CR_VENDOR_NVIDIA] = 1.4872, [CR_VENDOR_AMD] = 1.3123, [CR_VENDOR_INTEL] = 0.4219 },
	.prefill_f16 = 1.1365,        /* F16 / BF16 weights (cuBLAS / GEMM path) */
	.moe_half_tokens = 47.17,    /* tokens per expert at half a dense GEMM's efficiency */
	/* attention FLOPs relative to weight FLOPs: psi x the backend's own factor (CPU: psi) */
	.attention_cost = { [CR_BACKEND_CUDA] = 1.7245, [CR_BACKEND_METAL] = 2.1274, [CR_BACKEND_ROCM] = 2.3692, [CR_BACKEND_VULKAN] = 2.8899, [CR_BACKEND_CPU] = 2.0581 },
	.prefill_layer_s = 1.259e-04,    /* per layer per micro-batch */
	.prefill_kv_tokens = 68.54,  /* prompt tokens per pass over the KV cache */
	/* out of sample (leave one source out, 2025-26 rows): median absolute error, percent,
	 * and the 10th / 90th percentiles of measured / predicted */
	.decode_error_pct = { [CR_BACKEND_CUDA] = 16.3, [CR_BACKEND_METAL] = 12.0, [CR_BACKEND_ROCM] = 9.0, [CR_BACKEND_VULKAN] = 15.4, [CR_BACKEND_CPU] = 40.3 },
	.decode_q10 = { [CR_BACKEND_CUDA] = 0.628, [CR_BACKEND_METAL] = 0.782, [CR_BACKEND_ROCM] = 0.873, [CR_BACKEND_VULKAN] = 0.508, [CR_BACKEND_CPU] = 0.565 },
	.decode_q90 = { [CR_BACKEND_CUDA] = 1.392, [CR_BACKEND_METAL] = 1.265, [CR_BACKEND_ROCM] = 1.217, [CR_BACKEND_VULKAN] = 1.449, [CR_BACKEND_CPU] = 1.307 },
	.prefill_error_pct = { [CR_BACKEND_CUDA] = 21.5, [CR_BACKEND_METAL] = 11.6, [CR_BACKEND_ROCM] = 19.5, [CR_BACKEND_VULKAN] = 32.5, [CR_BACKEND_CPU] = 28.5 },
	.prefill_q10 = { [CR_BACKEND_CUDA] = 0.588, [CR_BACKEND_METAL] = 0.836, [CR_BACKEND_ROCM] = 0.668, [CR_BACKEND_VULKAN] = 0.481, [CR_BACKEND_CPU] = 0.651 },
	.prefill_q90 = { [CR_BACKEND_CUDA] = 1.660, [CR_BACKEND_METAL] = 1.470, [CR_BACKEND_ROCM] = 1.436, [CR_BACKEND_VULKAN] = 2.012, [CR_BACKEND_CPU] = 1.739 },
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
