/*
 * Speed-model constants, written by `bench/speed-calibration --emit-c` from
 * 1124 measured llama.cpp rows of 113 sources in bench/data/ (docs/accuracy.md:
 * the model, the fit, and its leave-one-source-out error). Do not edit by
 * hand: change the data or the model and re-run the script.
 */
#include "speed_constants.h"

const cr_speed_model cr_speed = {
	/* decode: achievable share of peak bandwidth per memory class (CPU rows: DDR) */
	.decode_eff = { [CR_MEMTYPE_AUTO] = 0.8422, [CR_MEMTYPE_HBM] = 0.5801, [CR_MEMTYPE_GDDR] = 0.8422, [CR_MEMTYPE_LPDDR] = 0.8402, [CR_MEMTYPE_DDR] = 0.7367 },
	/* per backend, and per (backend, memory class: AUTO, HBM, GDDR, LPDDR, DDR) */
	.backend_eff = { [CR_BACKEND_CUDA] = 1.0000, [CR_BACKEND_METAL] = 0.9760, [CR_BACKEND_ROCM] = 0.9730, [CR_BACKEND_VULKAN] = 0.9483, [CR_BACKEND_CPU] = 1.0000 },
	.cell_eff = {
		[CR_BACKEND_CUDA] = { 1, 1.0111, 1.1256, 1.0825, 1.0000 },
		[CR_BACKEND_METAL] = { 1, 1.0000, 1.0000, 0.9628, 1.0000 },
		[CR_BACKEND_ROCM] = { 1, 0.9437, 1.0064, 1.0088, 1.0000 },
		[CR_BACKEND_VULKAN] = { 1, 1.0000, 0.9245, 0.9955, 1.0000 },
		[CR_BACKEND_CPU] = { 1, 1.0000, 1.0000, 1.0000, 1.0000 },
	},
	/* Vulkan: per GPU vendor (driver and shader paths); 1 for any other */
	.vulkan_vendor_eff = { [CR_VENDOR_NVIDIA] = 1.0466, [CR_VENDOR_AMD] = 1.1636, [CR_VENDOR_INTEL] = 0.7558 },
	.kv_read_factor = 0.9628,     /* KV bytes cost this many weight bytes */
	.decode_attention_cost = 10.340, /* decode attention FLOPs cost this many FP16-peak FLOPs */
	/* seconds per layer per token: kernel launches and synchronisation */
	.layer_s = { [CR_BACKEND_CUDA] = 1.162e-05, [CR_BACKEND_METAL] = 1.929e-05, [CR_BACKEND_ROCM] = 1.747e-05, [CR_BACKEND_VULKAN] = 1.568e-05, [CR_BACKEND_CPU] = 1.494e-05 },
	/* GPUs, per layer: this many bytes at 1000 GB/s, x sqrt(BW / 1000) at BW */
	.layer_bytes = 6.5413e+07,
	.recurrent_layer_s = 3.179e-05,  /* per linear-attention / SSM layer */
	.moe_expert_s = 2.379e-06,       /* per expert used, per MoE layer: its gathered matmuls */
	.cpu_param_s = 3.762e-12,        /* CPU decode: per active parameter, on a 1-TFLOPS CPU */
	.cpu_default_tflops = 0.700,  /* a CPU without a figure: the calibration CPUs' median */
	.multi_gpu_factor = 1.0279,   /* layer split: cards in turn */
	/* prefill: share of dense FP16 peak the weight GEMMs reach */
	.prefill_eff = { [CR_BACKEND_CUDA] = 0.3732, [CR_BACKEND_METAL] = 0.7237, [CR_BACKEND_ROCM] = 0.3404, [CR_BACKEND_VULKAN] = 0.1814, [CR_BACKEND_CPU] = 0.9207 },
	.prefill_cell = {
		[CR_BACKEND_CUDA] = { 1, 0.8788, 1.1591, 0.9648, 1.0000 },
		[CR_BACKEND_METAL] = { 1, 1.0000, 1.0000, 1.1598, 1.0000 },
		[CR_BACKEND_ROCM] = { 1, 1.1862, 1.1952, 0.6774, 1.0000 },
		[CR_BACKEND_VULKAN] = { 1, 1.0000, 1.0564, 0.7768, 1.0000 },
		[CR_BACKEND_CPU] = { 1, 1.0000, 1.0000, 1.0000, 1.0000 },
	},
	.vulkan_vendor_prefill = { [CR_VENDOR_NVIDIA] = 1.5507, [CR_VENDOR_AMD] = 1.2930, [CR_VENDOR_INTEL] = 0.4093 },
	.prefill_f16 = 1.0316,        /* F16 / BF16 weights (cuBLAS / GEMM path) */
	.moe_expert_tokens = 233.37,  /* m0: an expert GEMM of m tokens runs at sqrt(m / (m + m0)) */
	/* attention FLOPs relative to weight FLOPs: psi x the backend's own factor (CPU: psi) */
	.attention_cost = { [CR_BACKEND_CUDA] = 1.4438, [CR_BACKEND_METAL] = 1.8157, [CR_BACKEND_ROCM] = 2.1690, [CR_BACKEND_VULKAN] = 2.6595, [CR_BACKEND_CPU] = 1.8423 },
	.prefill_layer_s = 2.598e-04,    /* per layer per micro-batch */
	.prefill_kv_tokens = 66.87,  /* prompt tokens per pass over the KV cache */
	/* Volta (compute capability 7.0), micro-batch >= 64: MUL_MAT_ID's generic path */
	.volta_expert_s = 1.338e-05,     /* per expert with tokens, per MUL_MAT_ID: its own GEMM's kernels */
	.volta_host_step_s = 1.128e-09,  /* per step of the host loop that sorts tokens by expert */
	/* out of sample (leave one source out, 2025-26 rows): median absolute error, percent,
	 * and the 10th / 90th percentiles of measured / predicted */
	.decode_error_pct = { [CR_BACKEND_CUDA] = 16.2, [CR_BACKEND_METAL] = 13.6, [CR_BACKEND_ROCM] = 9.3, [CR_BACKEND_VULKAN] = 15.8, [CR_BACKEND_CPU] = 40.4 },
	.decode_q10 = { [CR_BACKEND_CUDA] = 0.773, [CR_BACKEND_METAL] = 0.814, [CR_BACKEND_ROCM] = 0.785, [CR_BACKEND_VULKAN] = 0.503, [CR_BACKEND_CPU] = 0.565 },
	.decode_q90 = { [CR_BACKEND_CUDA] = 1.350, [CR_BACKEND_METAL] = 1.220, [CR_BACKEND_ROCM] = 1.203, [CR_BACKEND_VULKAN] = 1.449, [CR_BACKEND_CPU] = 1.307 },
	.prefill_error_pct = { [CR_BACKEND_CUDA] = 19.7, [CR_BACKEND_METAL] = 20.9, [CR_BACKEND_ROCM] = 21.9, [CR_BACKEND_VULKAN] = 32.8, [CR_BACKEND_CPU] = 35.1 },
	.prefill_q10 = { [CR_BACKEND_CUDA] = 0.763, [CR_BACKEND_METAL] = 0.773, [CR_BACKEND_ROCM] = 0.663, [CR_BACKEND_VULKAN] = 0.520, [CR_BACKEND_CPU] = 0.636 },
	.prefill_q90 = { [CR_BACKEND_CUDA] = 1.599, [CR_BACKEND_METAL] = 1.475, [CR_BACKEND_ROCM] = 1.525, [CR_BACKEND_VULKAN] = 2.003, [CR_BACKEND_CPU] = 1.737 },
};

/* 2025-26 single-device rows per (backend, memory class, vendor): decode rows,
 * prefill rows; rows of dense, MoE and hybrid models; active parameters; the
 * deepest context measured. */
const cr_speed_cell cr_speed_cells[] = {
	{ CR_BACKEND_CPU, CR_MEMTYPE_DDR, CR_VENDOR_OTHER, 21, 16, 37, 0, 0, 1.1e+09, 7.06e+10, 4096 },
	{ CR_BACKEND_CUDA, CR_MEMTYPE_GDDR, CR_VENDOR_NVIDIA, 53, 70, 41, 35, 47, 5.96e+08, 2.69e+10, 49664 },
	{ CR_BACKEND_CUDA, CR_MEMTYPE_HBM, CR_VENDOR_NVIDIA, 6, 14, 2, 18, 0, 2.66e+09, 8.19e+09, 34816 },
	{ CR_BACKEND_CUDA, CR_MEMTYPE_LPDDR, CR_VENDOR_NVIDIA, 36, 45, 20, 58, 3, 3.35e+09, 7.62e+09, 34816 },
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
