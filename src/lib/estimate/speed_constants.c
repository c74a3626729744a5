/*
 * Speed-model constants, written by `bench/speed-calibration --emit-c` from
 * 584 measured llama.cpp rows of 50 sources in bench/data/ (docs/accuracy.md:
 * the model, the fit, and its leave-one-source-out error). Do not edit by
 * hand: change the data or the model and re-run the script.
 */
#include "speed_constants.h"

const cr_speed_model cr_speed = {
	/* decode: achievable share of peak bandwidth per memory class (CPU rows: DDR) */
	.decode_eff = { [CR_MEMTYPE_AUTO] = 0.7292, [CR_MEMTYPE_HBM] = 0.5176, [CR_MEMTYPE_GDDR] = 0.7292, [CR_MEMTYPE_LPDDR] = 0.7288, [CR_MEMTYPE_DDR] = 0.6789 },
	/* per backend, and per (backend, memory class: AUTO, HBM, GDDR, LPDDR, DDR) */
	.backend_eff = { [CR_BACKEND_CUDA] = 1.0000, [CR_BACKEND_METAL] = 0.9679, [CR_BACKEND_ROCM] = 0.9221, [CR_BACKEND_VULKAN] = 0.9776, [CR_BACKEND_CPU] = 1.0000 },
	.cell_eff = {
		[CR_BACKEND_CUDA] = { 1, 1.0000, 1.1140, 1.0512, 1.0000 },
		[CR_BACKEND_METAL] = { 1, 1.0000, 1.0000, 0.9503, 1.0000 },
		[CR_BACKEND_ROCM] = { 1, 0.9273, 0.9606, 0.9891, 1.0000 },
		[CR_BACKEND_VULKAN] = { 1, 1.0000, 0.9441, 1.0223, 1.0000 },
		[CR_BACKEND_CPU] = { 1, 1.0000, 1.0000, 1.0000, 1.0000 },
	},
	.kv_read_factor = 1.2381,     /* KV bytes cost this many weight bytes */
	/* seconds per layer per token: kernel launches and synchronisation */
	.layer_s = { [CR_BACKEND_CUDA] = 2.576e-05, [CR_BACKEND_METAL] = 5.465e-05, [CR_BACKEND_ROCM] = 1.918e-05, [CR_BACKEND_VULKAN] = 1.820e-05, [CR_BACKEND_CPU] = 1.519e-05 },
	.recurrent_layer_s = 2.341e-05,  /* per linear-attention / SSM layer */
	.moe_expert_s = 3.819e-06,       /* per expert used, per MoE layer: its gathered matmuls */
	.cpu_param_s = 3.908e-12,        /* CPU decode: per active parameter */
	.multi_gpu_factor = 1.0067,   /* layer split: cards in turn */
	/* prefill: share of dense FP16 peak the weight GEMMs reach */
	.prefill_eff = { [CR_BACKEND_CUDA] = 0.3999, [CR_BACKEND_METAL] = 0.6597, [CR_BACKEND_ROCM] = 0.3271, [CR_BACKEND_VULKAN] = 0.2575, [CR_BACKEND_CPU] = 0.8486 },
	.prefill_cell = {
		[CR_BACKEND_CUDA] = { 1, 0.8455, 1.2144, 0.9741, 1.0000 },
		[CR_BACKEND_METAL] = { 1, 1.0000, 1.0000, 1.1333, 1.0000 },
		[CR_BACKEND_ROCM] = { 1, 1.0903, 1.2265, 0.7110, 1.0000 },
		[CR_BACKEND_VULKAN] = { 1, 1.0000, 1.3566, 0.6603, 1.0000 },
		[CR_BACKEND_CPU] = { 1, 1.0000, 1.0000, 1.0000, 1.0000 },
	},
	.prefill_f16 = 1.1784,        /* F16 / BF16 weights (cuBLAS / GEMM path) */
	.moe_half_tokens = 46.82,    /* tokens per expert at half a dense GEMM's efficiency */
	.attention_cost = 1.4570,     /* attention FLOPs relative to weight FLOPs */
	.prefill_layer_s = 2.285e-04,    /* per layer per micro-batch */
	.prefill_kv_tokens = 65.90,  /* prompt tokens per pass over the KV cache */
	/* out of sample (leave one source out, 2025-26 rows): median absolute error, percent,
	 * and the 10th / 90th percentiles of measured / predicted */
	.decode_error_pct = { [CR_BACKEND_CUDA] = 8.4, [CR_BACKEND_METAL] = 61.7, [CR_BACKEND_ROCM] = 14.4, [CR_BACKEND_VULKAN] = 14.4, [CR_BACKEND_CPU] = 115.3 },
	.decode_q10 = { [CR_BACKEND_CUDA] = 0.721, [CR_BACKEND_METAL] = 0.426, [CR_BACKEND_ROCM] = 0.715, [CR_BACKEND_VULKAN] = 0.759, [CR_BACKEND_CPU] = 0.355 },
	.decode_q90 = { [CR_BACKEND_CUDA] = 1.187, [CR_BACKEND_METAL] = 1.128, [CR_BACKEND_ROCM] = 1.186, [CR_BACKEND_VULKAN] = 1.276, [CR_BACKEND_CPU] = 0.507 },
	.prefill_error_pct = { [CR_BACKEND_CUDA] = 12.0, [CR_BACKEND_METAL] = 18.7, [CR_BACKEND_ROCM] = 23.0, [CR_BACKEND_VULKAN] = 26.5, [CR_BACKEND_CPU] = 18.7 },
	.prefill_q10 = { [CR_BACKEND_CUDA] = 0.822, [CR_BACKEND_METAL] = 0.675, [CR_BACKEND_ROCM] = 0.553, [CR_BACKEND_VULKAN] = 0.567, [CR_BACKEND_CPU] = 0.675 },
	.prefill_q90 = { [CR_BACKEND_CUDA] = 1.251, [CR_BACKEND_METAL] = 1.548, [CR_BACKEND_ROCM] = 1.510, [CR_BACKEND_VULKAN] = 1.570, [CR_BACKEND_CPU] = 1.548 },
};

/* 2025-26 single-device rows per (backend, memory class, vendor): decode rows,
 * prefill rows; rows of dense, MoE and hybrid models; active parameters; the
 * deepest context measured. */
const cr_speed_cell cr_speed_cells[] = {
	{ CR_BACKEND_CPU, CR_MEMTYPE_DDR, CR_VENDOR_OTHER, 11, 3, 14, 0, 0, 6.74e+09, 7.06e+10, 512 },
	{ CR_BACKEND_CUDA, CR_MEMTYPE_GDDR, CR_VENDOR_NVIDIA, 17, 21, 14, 24, 0, 1.24e+09, 8.03e+09, 33280 },
	{ CR_BACKEND_CUDA, CR_MEMTYPE_LPDDR, CR_VENDOR_NVIDIA, 29, 29, 20, 38, 0, 3.35e+09, 7.62e+09, 34816 },
	{ CR_BACKEND_METAL, CR_MEMTYPE_LPDDR, CR_VENDOR_APPLE, 17, 8, 21, 4, 0, 5.96e+08, 7.06e+10, 32800 },
	{ CR_BACKEND_ROCM, CR_MEMTYPE_GDDR, CR_VENDOR_AMD, 7, 9, 14, 2, 0, 4.02e+09, 8.19e+09, 6144 },
	{ CR_BACKEND_ROCM, CR_MEMTYPE_HBM, CR_VENDOR_AMD, 5, 1, 4, 2, 0, 1.24e+09, 8.03e+09, 512 },
	{ CR_BACKEND_ROCM, CR_MEMTYPE_LPDDR, CR_VENDOR_AMD, 36, 35, 56, 11, 4, 1.24e+09, 7.06e+10, 66048 },
	{ CR_BACKEND_VULKAN, CR_MEMTYPE_GDDR, CR_VENDOR_AMD, 10, 10, 20, 0, 0, 4.02e+09, 1.48e+10, 512 },
	{ CR_BACKEND_VULKAN, CR_MEMTYPE_GDDR, CR_VENDOR_NVIDIA, 13, 14, 23, 4, 0, 3.21e+09, 8.03e+09, 8704 },
	{ CR_BACKEND_VULKAN, CR_MEMTYPE_LPDDR, CR_VENDOR_AMD, 23, 19, 22, 16, 4, 3.35e+09, 7.06e+10, 8704 },
};
const unsigned cr_speed_cell_count = sizeof(cr_speed_cells) / sizeof(cr_speed_cells[0]);
