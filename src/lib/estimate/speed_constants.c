/*
 * Speed-model constants, written by `bench/speed-calibration --emit-c` from
 * 1234 measured llama.cpp rows of 114 sources in bench/data/ (docs/accuracy.md:
 * the model, the fit, and its leave-one-source-out error). Do not edit by
 * hand: change the data or the model and re-run the script.
 */
#include "speed_constants.h"

const cr_speed_model cr_speed = {
	/* decode: achievable share of peak bandwidth per memory class (CPU rows: DDR) */
	.decode_eff = { [CR_MEMTYPE_AUTO] = 0.8289, [CR_MEMTYPE_HBM] = 0.5738, [CR_MEMTYPE_GDDR] = 0.8289, [CR_MEMTYPE_LPDDR] = 0.8395, [CR_MEMTYPE_DDR] = 0.7240 },
	/* per backend, and per (backend, memory class: AUTO, HBM, GDDR, LPDDR, DDR) */
	.backend_eff = { [CR_BACKEND_CUDA] = 1.0000, [CR_BACKEND_METAL] = 0.9645, [CR_BACKEND_ROCM] = 0.9690, [CR_BACKEND_VULKAN] = 0.9415, [CR_BACKEND_CPU] = 1.0000 },
	.cell_eff = {
		[CR_BACKEND_CUDA] = { 1, 1.0121, 1.1282, 1.1110, 1.0000 },
		[CR_BACKEND_METAL] = { 1, 1.0000, 1.0000, 0.9451, 1.0000 },
		[CR_BACKEND_ROCM] = { 1, 0.9402, 1.0070, 1.0055, 1.0000 },
		[CR_BACKEND_VULKAN] = { 1, 1.0000, 0.9182, 0.9912, 1.0000 },
		[CR_BACKEND_CPU] = { 1, 1.0000, 1.0000, 1.0000, 1.0000 },
	},
	/* Vulkan: per GPU vendor (driver and shader paths); 1 for any other */
	.vulkan_vendor_eff = { [CR_VENDOR_NVIDIA] = 1.0342, [CR_VENDOR_AMD] = 1.1597, [CR_VENDOR_INTEL] = 0.7588 },
	.kv_read_factor = 0.9564,     /* KV bytes cost this many weight bytes */
	.legacy_quant_eff = 1.1005,   /* Q4_0 .. Q8_0 weights: read at this x the bandwidth share */
	.decode_attention_cost = 10.364, /* decode attention FLOPs cost this many FP16-peak FLOPs */
	/* seconds per layer per token: kernel launches and synchronisation */
	.layer_s = { [CR_BACKEND_CUDA] = 1.149e-05, [CR_BACKEND_METAL] = 1.970e-05, [CR_BACKEND_ROCM] = 1.765e-05, [CR_BACKEND_VULKAN] = 1.583e-05, [CR_BACKEND_CPU] = 1.496e-05 },
	/* GPUs, per layer: this many bytes at 1000 GB/s, x sqrt(BW / 1000) at BW */
	.layer_bytes = 6.4127e+07,
	.recurrent_layer_s = 3.181e-05,  /* per linear-attention / SSM layer */
	.moe_expert_s = 2.170e-06,       /* per expert used, per MoE layer: its gathered matmuls */
	.cpu_param_s = 3.769e-12,        /* CPU decode: per active parameter, on a 1-TFLOPS CPU */
	.cpu_default_tflops = 0.700,  /* a CPU without a figure: the calibration CPUs' median */
	.multi_gpu_factor = 1.0254,   /* layer split: cards in turn */
	/* prefill: share of dense FP16 peak the weight GEMMs reach */
	.prefill_eff = { [CR_BACKEND_CUDA] = 0.3698, [CR_BACKEND_METAL] = 0.7197, [CR_BACKEND_ROCM] = 0.3389, [CR_BACKEND_VULKAN] = 0.1808, [CR_BACKEND_CPU] = 0.9174 },
	.prefill_cell = {
		[CR_BACKEND_CUDA] = { 1, 0.8677, 1.1509, 0.9819, 1.0000 },
		[CR_BACKEND_METAL] = { 1, 1.0000, 1.0000, 1.1582, 1.0000 },
		[CR_BACKEND_ROCM] = { 1, 1.1877, 1.1928, 0.6772, 1.0000 },
		[CR_BACKEND_VULKAN] = { 1, 1.0000, 1.0550, 0.7772, 1.0000 },
		[CR_BACKEND_CPU] = { 1, 1.0000, 1.0000, 1.0000, 1.0000 },
	},
	.vulkan_vendor_prefill = { [CR_VENDOR_NVIDIA] = 1.5512, [CR_VENDOR_AMD] = 1.2957, [CR_VENDOR_INTEL] = 0.4080 },
	.prefill_f16 = 1.0336,        /* F16 / BF16 weights (cuBLAS / GEMM path) */
	.moe_expert_tokens = 235.08,  /* m0: an expert GEMM of m tokens runs at sqrt(m / (m + m0)) */
	/* attention FLOPs relative to weight FLOPs: psi x the backend's own factor (CPU: psi) */
	.attention_cost = { [CR_BACKEND_CUDA] = 1.2607, [CR_BACKEND_METAL] = 1.7743, [CR_BACKEND_ROCM] = 2.1332, [CR_BACKEND_VULKAN] = 2.5572, [CR_BACKEND_CPU] = 1.7566 },
	.prefill_layer_s = 2.546e-04,    /* per layer per micro-batch */
	.prefill_kv_tokens = 73.67,  /* prompt tokens per pass over the KV cache */
	/* Volta (compute capability 7.0), micro-batch >= 64: MUL_MAT_ID's generic path */
	.volta_expert_s = 1.363e-05,     /* per expert with tokens, per MUL_MAT_ID: its own GEMM's kernels */
	.volta_host_step_s = 1.141e-09,  /* per step of the host loop that sorts tokens by expert */
	/* out of sample (leave one source out, 2025-26 rows): median absolute error, percent,
	 * and the 10th / 90th percentiles of measured / predicted */
	.decode_error_pct = { [CR_BACKEND_CUDA] = 10.0, [CR_BACKEND_METAL] = 12.4, [CR_BACKEND_ROCM] = 9.5, [CR_BACKEND_VULKAN] = 13.9, [CR_BACKEND_CPU] = 39.3 },
	.decode_q10 = { [CR_BACKEND_CUDA] = 0.824, [CR_BACKEND_METAL] = 0.808, [CR_BACKEND_ROCM] = 0.775, [CR_BACKEND_VULKAN] = 0.512, [CR_BACKEND_CPU] = 0.573 },
	.decode_q90 = { [CR_BACKEND_CUDA] = 1.259, [CR_BACKEND_METAL] = 1.202, [CR_BACKEND_ROCM] = 1.213, [CR_BACKEND_VULKAN] = 1.432, [CR_BACKEND_CPU] = 1.323 },
	.prefill_error_pct = { [CR_BACKEND_CUDA] = 18.3, [CR_BACKEND_METAL] = 20.6, [CR_BACKEND_ROCM] = 21.6, [CR_BACKEND_VULKAN] = 32.7, [CR_BACKEND_CPU] = 35.7 },
	.prefill_q10 = { [CR_BACKEND_CUDA] = 0.758, [CR_BACKEND_METAL] = 0.776, [CR_BACKEND_ROCM] = 0.657, [CR_BACKEND_VULKAN] = 0.515, [CR_BACKEND_CPU] = 0.635 },
	.prefill_q90 = { [CR_BACKEND_CUDA] = 1.457, [CR_BACKEND_METAL] = 1.487, [CR_BACKEND_ROCM] = 1.530, [CR_BACKEND_VULKAN] = 2.005, [CR_BACKEND_CPU] = 1.740 },
};

/* 2025-26 single-device rows per (backend, memory class, vendor): decode rows,
 * prefill rows; rows of dense, MoE and hybrid models; active parameters; the
 * deepest context measured. */
const cr_speed_cell cr_speed_cells[] = {
	{ CR_BACKEND_CPU, CR_MEMTYPE_DDR, CR_VENDOR_OTHER, 21, 16, 37, 0, 0, 1.1e+09, 7.06e+10, 4096 },
	{ CR_BACKEND_CUDA, CR_MEMTYPE_GDDR, CR_VENDOR_NVIDIA, 53, 70, 41, 35, 47, 5.96e+08, 2.69e+10, 49664 },
	{ CR_BACKEND_CUDA, CR_MEMTYPE_HBM, CR_VENDOR_NVIDIA, 6, 14, 2, 18, 0, 2.66e+09, 8.19e+09, 34816 },
	{ CR_BACKEND_CUDA, CR_MEMTYPE_LPDDR, CR_VENDOR_NVIDIA, 91, 100, 60, 128, 3, 3.35e+09, 7.62e+09, 34816 },
	{ CR_BACKEND_METAL, CR_MEMTYPE_LPDDR, CR_VENDOR_APPLE, 69, 72, 77, 62, 2, 5.96e+08, 7.06e+10, 34816 },
	{ CR_BACKEND_ROCM, CR_MEMTYPE_GDDR, CR_VENDOR_AMD, 33, 14, 29, 10, 8, 3.35e+09, 2.69e+10, 33792 },
	{ CR_BACKEND_ROCM, CR_MEMTYPE_HBM, CR_VENDOR_AMD, 17, 16, 11, 6, 16, 1.24e+09, 2.69e+10, 34816 },
	{ CR_BACKEND_ROCM, CR_MEMTYPE_LPDDR, CR_VENDOR_AMD, 41, 42, 61, 15, 7, 1.24e+09, 7.06e+10, 66048 },
	{ CR_BACKEND_VULKAN, CR_MEMTYPE_GDDR, CR_VENDOR_AMD, 13, 13, 24, 0, 2, 4.02e+09, 2.69e+10, 512 },
	{ CR_BACKEND_VULKAN, CR_MEMTYPE_GDDR, CR_VENDOR_INTEL, 18, 25, 18, 4, 21, 2.61e+09, 2.69e+10, 18432 },
	{ CR_BACKEND_VULKAN, CR_MEMTYPE_GDDR, CR_VENDOR_NVIDIA, 15, 19, 23, 11, 0, 2.66e+09, 8.03e+09, 8704 },
	{ CR_BACKEND_VULKAN, CR_MEMTYPE_LPDDR, CR_VENDOR_AMD, 32, 28, 34, 20, 6, 3.21e+09, 7.06e+10, 8704 },
	{ CR_BACKEND_VULKAN, CR_MEMTYPE_LPDDR, CR_VENDOR_INTEL, 2, 0, 2, 0, 0, 2.61e+09, 2.61e+09, 128 },
};
const unsigned cr_speed_cell_count = sizeof(cr_speed_cells) / sizeof(cr_speed_cells[0]);
