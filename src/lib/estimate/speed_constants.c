/*
 * Speed-model constants, written by `bench/speed-calibration --emit-c` from
 * 1025 measured llama.cpp rows of 108 sources in bench/data/ (docs/accuracy.md:
 * the model, the fit, and its leave-one-source-out error). Do not edit by
 * hand: change the data or the model and re-run the script.
 */
#include "speed_constants.h"

const cr_speed_model cr_speed = {
	/* decode: achievable share of peak bandwidth per memory class (CPU rows: DDR) */
	.decode_eff = { [CR_MEMTYPE_AUTO] = 0.8309, [CR_MEMTYPE_HBM] = 0.5813, [CR_MEMTYPE_GDDR] = 0.8309, [CR_MEMTYPE_LPDDR] = 0.8172, [CR_MEMTYPE_DDR] = 0.7366 },
	/* per backend, and per (backend, memory class: AUTO, HBM, GDDR, LPDDR, DDR) */
	.backend_eff = { [CR_BACKEND_CUDA] = 1.0000, [CR_BACKEND_METAL] = 0.9579, [CR_BACKEND_ROCM] = 0.9966, [CR_BACKEND_VULKAN] = 0.9512, [CR_BACKEND_CPU] = 1.0000 },
	.cell_eff = {
		[CR_BACKEND_CUDA] = { 1, 0.9762, 1.1198, 1.1017, 1.0000 },
		[CR_BACKEND_METAL] = { 1, 1.0000, 1.0000, 0.9350, 1.0000 },
		[CR_BACKEND_ROCM] = { 1, 0.9779, 1.0104, 1.0067, 1.0000 },
		[CR_BACKEND_VULKAN] = { 1, 1.0000, 0.9226, 1.0023, 1.0000 },
		[CR_BACKEND_CPU] = { 1, 1.0000, 1.0000, 1.0000, 1.0000 },
	},
	/* Vulkan: per GPU vendor (driver and shader paths); 1 for any other */
	.vulkan_vendor_eff = { [CR_VENDOR_NVIDIA] = 1.0449, [CR_VENDOR_AMD] = 1.1690, [CR_VENDOR_INTEL] = 0.7570 },
	.kv_read_factor = 1.1733,     /* KV bytes cost this many weight bytes */
	/* seconds per layer per token: kernel launches and synchronisation */
	.layer_s = { [CR_BACKEND_CUDA] = 1.191e-05, [CR_BACKEND_METAL] = 1.952e-05, [CR_BACKEND_ROCM] = 1.514e-05, [CR_BACKEND_VULKAN] = 1.586e-05, [CR_BACKEND_CPU] = 1.494e-05 },
	/* GPUs, per layer: this many bytes at 1000 GB/s, x sqrt(BW / 1000) at BW */
	.layer_bytes = 6.3503e+07,
	.recurrent_layer_s = 2.227e-05,  /* per linear-attention / SSM layer */
	.moe_expert_s = 2.081e-06,       /* per expert used, per MoE layer: its gathered matmuls */
	.cpu_param_s = 3.759e-12,        /* CPU decode: per active parameter, on a 1-TFLOPS CPU */
	.cpu_default_tflops = 0.700,  /* a CPU without a figure: the calibration CPUs' median */
	.multi_gpu_factor = 1.0219,   /* layer split: cards in turn */
	/* prefill: share of dense FP16 peak the weight GEMMs reach */
	.prefill_eff = { [CR_BACKEND_CUDA] = 0.4023, [CR_BACKEND_METAL] = 0.7134, [CR_BACKEND_ROCM] = 0.3410, [CR_BACKEND_VULKAN] = 0.1829, [CR_BACKEND_CPU] = 0.9095 },
	.prefill_cell = {
		[CR_BACKEND_CUDA] = { 1, 0.8434, 1.1491, 1.0333, 1.0000 },
		[CR_BACKEND_METAL] = { 1, 1.0000, 1.0000, 1.1556, 1.0000 },
		[CR_BACKEND_ROCM] = { 1, 1.0991, 1.2154, 0.7193, 1.0000 },
		[CR_BACKEND_VULKAN] = { 1, 1.0000, 1.0548, 0.7797, 1.0000 },
		[CR_BACKEND_CPU] = { 1, 1.0000, 1.0000, 1.0000, 1.0000 },
	},
	.vulkan_vendor_prefill = { [CR_VENDOR_NVIDIA] = 1.4895, [CR_VENDOR_AMD] = 1.3155, [CR_VENDOR_INTEL] = 0.4197 },
	.prefill_f16 = 1.1188,        /* F16 / BF16 weights (cuBLAS / GEMM path) */
	.moe_half_tokens = 44.24,    /* tokens per expert at half a dense GEMM's efficiency */
	/* attention FLOPs relative to weight FLOPs: psi x the backend's own factor (CPU: psi) */
	.attention_cost = { [CR_BACKEND_CUDA] = 1.6263, [CR_BACKEND_METAL] = 2.1388, [CR_BACKEND_ROCM] = 2.3420, [CR_BACKEND_VULKAN] = 2.8547, [CR_BACKEND_CPU] = 2.0233 },
	.prefill_layer_s = 1.579e-04,    /* per layer per micro-batch */
	.prefill_kv_tokens = 71.30,  /* prompt tokens per pass over the KV cache */
	/* Volta (compute capability 7.0), micro-batch >= 64: MUL_MAT_ID's generic path */
	.volta_expert_s = 1.530e-05,     /* per expert with tokens, per MUL_MAT_ID: its own GEMM's kernels */
	.volta_host_step_s = 1.051e-09,  /* per step of the host loop that sorts tokens by expert */
	/* out of sample (leave one source out, 2025-26 rows): median absolute error, percent,
	 * and the 10th / 90th percentiles of measured / predicted */
	.decode_error_pct = { [CR_BACKEND_CUDA] = 16.8, [CR_BACKEND_METAL] = 15.3, [CR_BACKEND_ROCM] = 8.9, [CR_BACKEND_VULKAN] = 15.5, [CR_BACKEND_CPU] = 40.3 },
	.decode_q10 = { [CR_BACKEND_CUDA] = 0.636, [CR_BACKEND_METAL] = 0.763, [CR_BACKEND_ROCM] = 0.884, [CR_BACKEND_VULKAN] = 0.505, [CR_BACKEND_CPU] = 0.565 },
	.decode_q90 = { [CR_BACKEND_CUDA] = 1.423, [CR_BACKEND_METAL] = 1.272, [CR_BACKEND_ROCM] = 1.234, [CR_BACKEND_VULKAN] = 1.452, [CR_BACKEND_CPU] = 1.307 },
	.prefill_error_pct = { [CR_BACKEND_CUDA] = 22.2, [CR_BACKEND_METAL] = 20.1, [CR_BACKEND_ROCM] = 18.8, [CR_BACKEND_VULKAN] = 32.7, [CR_BACKEND_CPU] = 28.9 },
	.prefill_q10 = { [CR_BACKEND_CUDA] = 0.678, [CR_BACKEND_METAL] = 0.789, [CR_BACKEND_ROCM] = 0.673, [CR_BACKEND_VULKAN] = 0.476, [CR_BACKEND_CPU] = 0.651 },
	.prefill_q90 = { [CR_BACKEND_CUDA] = 1.600, [CR_BACKEND_METAL] = 1.374, [CR_BACKEND_ROCM] = 1.417, [CR_BACKEND_VULKAN] = 2.016, [CR_BACKEND_CPU] = 1.739 },
};

/* 2025-26 single-device rows per (backend, memory class, vendor): decode rows,
 * prefill rows; rows of dense, MoE and hybrid models; active parameters; the
 * deepest context measured. */
const cr_speed_cell cr_speed_cells[] = {
	{ CR_BACKEND_CPU, CR_MEMTYPE_DDR, CR_VENDOR_OTHER, 21, 16, 37, 0, 0, 1.1e+09, 7.06e+10, 4096 },
	{ CR_BACKEND_CUDA, CR_MEMTYPE_GDDR, CR_VENDOR_NVIDIA, 53, 70, 41, 35, 47, 5.96e+08, 2.69e+10, 49664 },
	{ CR_BACKEND_CUDA, CR_MEMTYPE_HBM, CR_VENDOR_NVIDIA, 6, 14, 2, 18, 0, 2.66e+09, 8.19e+09, 34816 },
	{ CR_BACKEND_CUDA, CR_MEMTYPE_LPDDR, CR_VENDOR_NVIDIA, 36, 45, 20, 58, 3, 3.35e+09, 7.62e+09, 34816 },
	{ CR_BACKEND_METAL, CR_MEMTYPE_LPDDR, CR_VENDOR_APPLE, 68, 70, 77, 59, 2, 5.96e+08, 7.06e+10, 34816 },
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
