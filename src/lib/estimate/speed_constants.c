/*
 * Speed-model constants, written by `bench/speed-calibration --emit-c` from
 * 1400 measured llama.cpp rows of 120 sources in bench/data/ (docs/accuracy.md:
 * the model, the fit, and its leave-one-source-out error). Do not edit by
 * hand: change the data or the model and re-run the script.
 */
#include "speed_constants.h"

const cr_speed_model cr_speed = {
	/* decode: achievable share of peak bandwidth per memory class (CPU rows: DDR) */
	.decode_eff = { [CR_MEMTYPE_AUTO] = 0.8604, [CR_MEMTYPE_HBM] = 0.5972, [CR_MEMTYPE_GDDR] = 0.8604, [CR_MEMTYPE_LPDDR] = 0.8344, [CR_MEMTYPE_DDR] = 0.7239 },
	/* per backend, and per (backend, memory class: AUTO, HBM, GDDR, LPDDR, DDR) */
	.backend_eff = { [CR_BACKEND_CUDA] = 1.0000, [CR_BACKEND_METAL] = 0.9598, [CR_BACKEND_ROCM] = 0.9500, [CR_BACKEND_VULKAN] = 0.9767, [CR_BACKEND_CPU] = 1.0000 },
	.cell_eff = {
		[CR_BACKEND_CUDA] = { 1, 1.0457, 1.0864, 1.1156, 1.0000 },
		[CR_BACKEND_METAL] = { 1, 1.0000, 1.0000, 0.9378, 1.0000 },
		[CR_BACKEND_ROCM] = { 1, 0.9191, 0.9888, 1.0156, 1.0000 },
		[CR_BACKEND_VULKAN] = { 1, 1.0000, 0.9802, 0.9833, 1.0000 },
		[CR_BACKEND_CPU] = { 1, 1.0000, 1.0000, 1.0000, 1.0000 },
	},
	/* Vulkan: per GPU vendor (driver and shader paths); 1 for any other */
	.vulkan_vendor_eff = { [CR_VENDOR_NVIDIA] = 0.9327, [CR_VENDOR_AMD] = 1.1134, [CR_VENDOR_INTEL] = 0.5340 },
	.kv_read_factor = 1.0345,     /* KV bytes cost this many weight bytes */
	.legacy_quant_eff = 1.1012,   /* Q4_0 .. Q8_0 weights: read at this x the bandwidth share */
	.decode_attention_cost = 9.164, /* decode attention FLOPs cost this many FP16-peak FLOPs */
	/* seconds per layer per token: kernel launches and synchronisation */
	.layer_s = { [CR_BACKEND_CUDA] = 1.275e-05, [CR_BACKEND_METAL] = 2.018e-05, [CR_BACKEND_ROCM] = 1.847e-05, [CR_BACKEND_VULKAN] = 1.620e-05, [CR_BACKEND_CPU] = 1.496e-05 },
	/* GPUs, per layer: this many bytes at 1000 GB/s, x sqrt(BW / 1000) at BW */
	.layer_bytes = 6.1205e+07,
	.recurrent_layer_s = 2.305e-05,  /* per linear-attention / SSM layer */
	.moe_expert_s = 2.380e-06,       /* per expert used, per MoE layer: its gathered matmuls */
	.cpu_param_s = 3.768e-12,        /* CPU decode: per active parameter, on a 1-TFLOPS CPU */
	.no_dp4a_flops = 12.296,      /* CUDA below compute capability 6.1: FP32-rate FLOPs per quantized weight */
	.cpu_default_tflops = 0.700,  /* a CPU without a figure: the calibration CPUs' median */
	.multi_gpu_factor = 1.0217,   /* layer split: cards in turn */
	/* prefill: share of dense FP16 peak the weight GEMMs reach */
	.prefill_eff = { [CR_BACKEND_CUDA] = 0.3756, [CR_BACKEND_METAL] = 0.7502, [CR_BACKEND_ROCM] = 0.3470, [CR_BACKEND_VULKAN] = 0.1898, [CR_BACKEND_CPU] = 0.9647 },
	.prefill_cell = {
		[CR_BACKEND_CUDA] = { 1, 0.8686, 1.1330, 1.0003, 1.0000 },
		[CR_BACKEND_METAL] = { 1, 1.0000, 1.0000, 1.1703, 1.0000 },
		[CR_BACKEND_ROCM] = { 1, 1.1896, 1.1434, 0.7095, 1.0000 },
		[CR_BACKEND_VULKAN] = { 1, 1.0000, 0.9945, 0.8346, 1.0000 },
		[CR_BACKEND_CPU] = { 1, 1.0000, 1.0000, 1.0000, 1.0000 },
	},
	.vulkan_vendor_prefill = { [CR_VENDOR_NVIDIA] = 1.6116, [CR_VENDOR_AMD] = 1.2491, [CR_VENDOR_INTEL] = 0.4123 },
	.prefill_f16 = 1.0366,        /* F16 / BF16 weights (cuBLAS / GEMM path) */
	.prefill_width_gain = 1.1711, /* x this per doubling of the hidden size over 4096 */
	.moe_expert_tokens = 187.67,  /* m0: an expert GEMM of m tokens runs at sqrt(m / (m + m0)) */
	/* attention FLOPs relative to weight FLOPs: psi x the backend's own factor (CPU: psi) */
	.attention_cost = { [CR_BACKEND_CUDA] = 1.1712, [CR_BACKEND_METAL] = 1.7947, [CR_BACKEND_ROCM] = 1.9403, [CR_BACKEND_VULKAN] = 2.0351, [CR_BACKEND_CPU] = 1.6089 },
	.prefill_layer_s = 2.068e-04,    /* per layer per micro-batch */
	.prefill_kv_tokens = 62.29,  /* prompt tokens per pass over the KV cache */
	/* Volta (compute capability 7.0), micro-batch >= 64: MUL_MAT_ID's generic path */
	.volta_expert_s = 1.367e-05,     /* per expert with tokens, per MUL_MAT_ID: its own GEMM's kernels */
	.volta_host_step_s = 1.119e-09,  /* per step of the host loop that sorts tokens by expert */
	/* out of sample (leave one source out, 2025-26 rows): median absolute error, percent,
	 * and the 10th / 90th percentiles of measured / predicted */
	.decode_error_pct = { [CR_BACKEND_CUDA] = 9.6, [CR_BACKEND_METAL] = 12.6, [CR_BACKEND_ROCM] = 8.7, [CR_BACKEND_VULKAN] = 15.2, [CR_BACKEND_CPU] = 39.3 },
	.decode_q10 = { [CR_BACKEND_CUDA] = 0.830, [CR_BACKEND_METAL] = 0.780, [CR_BACKEND_ROCM] = 0.762, [CR_BACKEND_VULKAN] = 0.620, [CR_BACKEND_CPU] = 0.573 },
	.decode_q90 = { [CR_BACKEND_CUDA] = 1.223, [CR_BACKEND_METAL] = 1.189, [CR_BACKEND_ROCM] = 1.207, [CR_BACKEND_VULKAN] = 1.393, [CR_BACKEND_CPU] = 1.323 },
	.prefill_error_pct = { [CR_BACKEND_CUDA] = 16.6, [CR_BACKEND_METAL] = 16.7, [CR_BACKEND_ROCM] = 21.8, [CR_BACKEND_VULKAN] = 33.9, [CR_BACKEND_CPU] = 27.8 },
	.prefill_q10 = { [CR_BACKEND_CUDA] = 0.673, [CR_BACKEND_METAL] = 0.805, [CR_BACKEND_ROCM] = 0.604, [CR_BACKEND_VULKAN] = 0.504, [CR_BACKEND_CPU] = 0.637 },
	.prefill_q90 = { [CR_BACKEND_CUDA] = 1.434, [CR_BACKEND_METAL] = 1.346, [CR_BACKEND_ROCM] = 1.441, [CR_BACKEND_VULKAN] = 1.931, [CR_BACKEND_CPU] = 1.835 },
};

/* 2025-26 single-device rows per (backend, memory class, vendor): decode rows,
 * prefill rows; rows of dense, MoE and hybrid models; active parameters; the
 * deepest context measured. */
const cr_speed_cell cr_speed_cells[] = {
	{ CR_BACKEND_CPU, CR_MEMTYPE_DDR, CR_VENDOR_OTHER, 21, 16, 37, 0, 0, 1.1e+09, 7.06e+10, 4096 },
	{ CR_BACKEND_CUDA, CR_MEMTYPE_GDDR, CR_VENDOR_NVIDIA, 68, 80, 41, 56, 51, 5.96e+08, 2.69e+10, 49664 },
	{ CR_BACKEND_CUDA, CR_MEMTYPE_HBM, CR_VENDOR_NVIDIA, 8, 16, 2, 22, 0, 2.66e+09, 8.19e+09, 34816 },
	{ CR_BACKEND_CUDA, CR_MEMTYPE_LPDDR, CR_VENDOR_NVIDIA, 93, 111, 60, 141, 3, 3.35e+09, 7.62e+09, 66048 },
	{ CR_BACKEND_METAL, CR_MEMTYPE_LPDDR, CR_VENDOR_APPLE, 77, 88, 77, 86, 2, 5.96e+08, 7.06e+10, 34816 },
	{ CR_BACKEND_ROCM, CR_MEMTYPE_GDDR, CR_VENDOR_AMD, 35, 17, 31, 13, 8, 3.35e+09, 2.69e+10, 33792 },
	{ CR_BACKEND_ROCM, CR_MEMTYPE_HBM, CR_VENDOR_AMD, 18, 17, 11, 8, 16, 1.24e+09, 2.69e+10, 34816 },
	{ CR_BACKEND_ROCM, CR_MEMTYPE_LPDDR, CR_VENDOR_AMD, 53, 58, 67, 21, 23, 1.24e+09, 7.06e+10, 67584 },
	{ CR_BACKEND_VULKAN, CR_MEMTYPE_GDDR, CR_VENDOR_AMD, 15, 16, 26, 3, 2, 4.02e+09, 2.69e+10, 32768 },
	{ CR_BACKEND_VULKAN, CR_MEMTYPE_GDDR, CR_VENDOR_INTEL, 18, 25, 18, 4, 21, 2.61e+09, 2.69e+10, 18432 },
	{ CR_BACKEND_VULKAN, CR_MEMTYPE_GDDR, CR_VENDOR_NVIDIA, 15, 22, 23, 14, 0, 2.66e+09, 8.03e+09, 16896 },
	{ CR_BACKEND_VULKAN, CR_MEMTYPE_LPDDR, CR_VENDOR_AMD, 49, 44, 40, 31, 22, 3.21e+09, 7.06e+10, 67584 },
	{ CR_BACKEND_VULKAN, CR_MEMTYPE_LPDDR, CR_VENDOR_INTEL, 2, 0, 2, 0, 0, 2.61e+09, 2.61e+09, 128 },
};
const unsigned cr_speed_cell_count = sizeof(cr_speed_cells) / sizeof(cr_speed_cells[0]);
