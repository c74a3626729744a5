/*
 * Speed-model constants, written by `bench/speed-calibration --emit-c` from
 * 1025 measured llama.cpp rows of 108 sources in bench/data/ (docs/accuracy.md:
 * the model, the fit, and its leave-one-source-out error). Do not edit by
 * hand: change the data or the model and re-run the script.
 */
#include "speed_constants.h"

const cr_speed_model cr_speed = {
	/* decode: achievable share of peak bandwidth per memory class (CPU rows: DDR) */
	.decode_eff = { [CR_MEMTYPE_AUTO] = 0.8242, [CR_MEMTYPE_HBM] = 0.5873, [CR_MEMTYPE_GDDR] = 0.8242, [CR_MEMTYPE_LPDDR] = 0.8251, [CR_MEMTYPE_DDR] = 0.7366 },
	/* per backend, and per (backend, memory class: AUTO, HBM, GDDR, LPDDR, DDR) */
	.backend_eff = { [CR_BACKEND_CUDA] = 1.0000, [CR_BACKEND_METAL] = 0.9774, [CR_BACKEND_ROCM] = 0.9861, [CR_BACKEND_VULKAN] = 0.9475, [CR_BACKEND_CPU] = 1.0000 },
	.cell_eff = {
		[CR_BACKEND_CUDA] = { 1, 0.9815, 1.1240, 1.0853, 1.0000 },
		[CR_BACKEND_METAL] = { 1, 1.0000, 1.0000, 0.9649, 1.0000 },
		[CR_BACKEND_ROCM] = { 1, 0.9751, 1.0029, 1.0004, 1.0000 },
		[CR_BACKEND_VULKAN] = { 1, 1.0000, 0.9241, 0.9946, 1.0000 },
		[CR_BACKEND_CPU] = { 1, 1.0000, 1.0000, 1.0000, 1.0000 },
	},
	/* Vulkan: per GPU vendor (driver and shader paths); 1 for any other */
	.vulkan_vendor_eff = { [CR_VENDOR_NVIDIA] = 1.0453, [CR_VENDOR_AMD] = 1.1654, [CR_VENDOR_INTEL] = 0.7545 },
	.kv_read_factor = 0.9945,     /* KV bytes cost this many weight bytes */
	.decode_attention_cost = 10.730, /* decode attention FLOPs cost this many FP16-peak FLOPs */
	/* seconds per layer per token: kernel launches and synchronisation */
	.layer_s = { [CR_BACKEND_CUDA] = 1.214e-05, [CR_BACKEND_METAL] = 1.989e-05, [CR_BACKEND_ROCM] = 1.521e-05, [CR_BACKEND_VULKAN] = 1.594e-05, [CR_BACKEND_CPU] = 1.494e-05 },
	/* GPUs, per layer: this many bytes at 1000 GB/s, x sqrt(BW / 1000) at BW */
	.layer_bytes = 6.1161e+07,
	.recurrent_layer_s = 2.255e-05,  /* per linear-attention / SSM layer */
	.moe_expert_s = 1.891e-06,       /* per expert used, per MoE layer: its gathered matmuls */
	.cpu_param_s = 3.703e-12,        /* CPU decode: per active parameter, on a 1-TFLOPS CPU */
	.cpu_default_tflops = 0.700,  /* a CPU without a figure: the calibration CPUs' median */
	.multi_gpu_factor = 1.0200,   /* layer split: cards in turn */
	/* prefill: share of dense FP16 peak the weight GEMMs reach */
	.prefill_eff = { [CR_BACKEND_CUDA] = 0.3975, [CR_BACKEND_METAL] = 0.7074, [CR_BACKEND_ROCM] = 0.3376, [CR_BACKEND_VULKAN] = 0.1829, [CR_BACKEND_CPU] = 0.9047 },
	.prefill_cell = {
		[CR_BACKEND_CUDA] = { 1, 0.8525, 1.1478, 1.0203, 1.0000 },
		[CR_BACKEND_METAL] = { 1, 1.0000, 1.0000, 1.1532, 1.0000 },
		[CR_BACKEND_ROCM] = { 1, 1.1019, 1.2139, 0.7166, 1.0000 },
		[CR_BACKEND_VULKAN] = { 1, 1.0000, 1.0587, 0.7767, 1.0000 },
		[CR_BACKEND_CPU] = { 1, 1.0000, 1.0000, 1.0000, 1.0000 },
	},
	.vulkan_vendor_prefill = { [CR_VENDOR_NVIDIA] = 1.5201, [CR_VENDOR_AMD] = 1.3084, [CR_VENDOR_INTEL] = 0.4135 },
	.prefill_f16 = 1.1171,        /* F16 / BF16 weights (cuBLAS / GEMM path) */
	.moe_half_tokens = 41.93,    /* tokens per expert at half a dense GEMM's efficiency */
	/* attention FLOPs relative to weight FLOPs: psi x the backend's own factor (CPU: psi) */
	.attention_cost = { [CR_BACKEND_CUDA] = 1.5461, [CR_BACKEND_METAL] = 1.8248, [CR_BACKEND_ROCM] = 2.2627, [CR_BACKEND_VULKAN] = 2.7308, [CR_BACKEND_CPU] = 1.8983 },
	.prefill_layer_s = 1.504e-04,    /* per layer per micro-batch */
	.prefill_kv_tokens = 66.15,  /* prompt tokens per pass over the KV cache */
	/* Volta (compute capability 7.0), micro-batch >= 64: MUL_MAT_ID's generic path */
	.volta_expert_s = 1.274e-05,     /* per expert with tokens, per MUL_MAT_ID: its own GEMM's kernels */
	.volta_host_step_s = 1.129e-09,  /* per step of the host loop that sorts tokens by expert */
	/* out of sample (leave one source out, 2025-26 rows): median absolute error, percent,
	 * and the 10th / 90th percentiles of measured / predicted */
	.decode_error_pct = { [CR_BACKEND_CUDA] = 15.7, [CR_BACKEND_METAL] = 15.3, [CR_BACKEND_ROCM] = 9.2, [CR_BACKEND_VULKAN] = 16.0, [CR_BACKEND_CPU] = 40.4 },
	.decode_q10 = { [CR_BACKEND_CUDA] = 0.754, [CR_BACKEND_METAL] = 0.802, [CR_BACKEND_ROCM] = 0.877, [CR_BACKEND_VULKAN] = 0.506, [CR_BACKEND_CPU] = 0.565 },
	.decode_q90 = { [CR_BACKEND_CUDA] = 1.396, [CR_BACKEND_METAL] = 1.246, [CR_BACKEND_ROCM] = 1.190, [CR_BACKEND_VULKAN] = 1.447, [CR_BACKEND_CPU] = 1.309 },
	.prefill_error_pct = { [CR_BACKEND_CUDA] = 22.6, [CR_BACKEND_METAL] = 19.7, [CR_BACKEND_ROCM] = 19.9, [CR_BACKEND_VULKAN] = 34.4, [CR_BACKEND_CPU] = 29.9 },
	.prefill_q10 = { [CR_BACKEND_CUDA] = 0.714, [CR_BACKEND_METAL] = 0.814, [CR_BACKEND_ROCM] = 0.662, [CR_BACKEND_VULKAN] = 0.517, [CR_BACKEND_CPU] = 0.650 },
	.prefill_q90 = { [CR_BACKEND_CUDA] = 1.582, [CR_BACKEND_METAL] = 1.374, [CR_BACKEND_ROCM] = 1.406, [CR_BACKEND_VULKAN] = 2.013, [CR_BACKEND_CPU] = 1.743 },
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
