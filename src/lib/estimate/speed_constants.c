/*
 * Speed-model constants, written by `bench/speed-calibration --emit-c` from
 * 1333 measured llama.cpp rows of 116 sources in bench/data/ (docs/accuracy.md:
 * the model, the fit, and its leave-one-source-out error). Do not edit by
 * hand: change the data or the model and re-run the script.
 */
#include "speed_constants.h"

const cr_speed_model cr_speed = {
	/* decode: achievable share of peak bandwidth per memory class (CPU rows: DDR) */
	.decode_eff = { [CR_MEMTYPE_AUTO] = 0.8614, [CR_MEMTYPE_HBM] = 0.5988, [CR_MEMTYPE_GDDR] = 0.8614, [CR_MEMTYPE_LPDDR] = 0.8346, [CR_MEMTYPE_DDR] = 0.7240 },
	/* per backend, and per (backend, memory class: AUTO, HBM, GDDR, LPDDR, DDR) */
	.backend_eff = { [CR_BACKEND_CUDA] = 1.0000, [CR_BACKEND_METAL] = 0.9607, [CR_BACKEND_ROCM] = 0.9496, [CR_BACKEND_VULKAN] = 0.9768, [CR_BACKEND_CPU] = 1.0000 },
	.cell_eff = {
		[CR_BACKEND_CUDA] = { 1, 1.0459, 1.0889, 1.1127, 1.0000 },
		[CR_BACKEND_METAL] = { 1, 1.0000, 1.0000, 0.9393, 1.0000 },
		[CR_BACKEND_ROCM] = { 1, 0.9195, 0.9844, 1.0191, 1.0000 },
		[CR_BACKEND_VULKAN] = { 1, 1.0000, 0.9826, 0.9811, 1.0000 },
		[CR_BACKEND_CPU] = { 1, 1.0000, 1.0000, 1.0000, 1.0000 },
	},
	/* Vulkan: per GPU vendor (driver and shader paths); 1 for any other */
	.vulkan_vendor_eff = { [CR_VENDOR_NVIDIA] = 0.9366, [CR_VENDOR_AMD] = 1.1134, [CR_VENDOR_INTEL] = 0.5336 },
	.kv_read_factor = 0.9400,     /* KV bytes cost this many weight bytes */
	.legacy_quant_eff = 1.1009,   /* Q4_0 .. Q8_0 weights: read at this x the bandwidth share */
	.decode_attention_cost = 9.615, /* decode attention FLOPs cost this many FP16-peak FLOPs */
	/* seconds per layer per token: kernel launches and synchronisation */
	.layer_s = { [CR_BACKEND_CUDA] = 1.263e-05, [CR_BACKEND_METAL] = 1.995e-05, [CR_BACKEND_ROCM] = 1.849e-05, [CR_BACKEND_VULKAN] = 1.631e-05, [CR_BACKEND_CPU] = 1.496e-05 },
	/* GPUs, per layer: this many bytes at 1000 GB/s, x sqrt(BW / 1000) at BW */
	.layer_bytes = 6.2781e+07,
	.recurrent_layer_s = 2.319e-05,  /* per linear-attention / SSM layer */
	.moe_expert_s = 2.303e-06,       /* per expert used, per MoE layer: its gathered matmuls */
	.cpu_param_s = 3.769e-12,        /* CPU decode: per active parameter, on a 1-TFLOPS CPU */
	.no_dp4a_flops = 12.244,      /* CUDA below compute capability 6.1: FP32-rate FLOPs per quantized weight */
	.cpu_default_tflops = 0.700,  /* a CPU without a figure: the calibration CPUs' median */
	.multi_gpu_factor = 1.0219,   /* layer split: cards in turn */
	/* prefill: share of dense FP16 peak the weight GEMMs reach */
	.prefill_eff = { [CR_BACKEND_CUDA] = 0.3767, [CR_BACKEND_METAL] = 0.7516, [CR_BACKEND_ROCM] = 0.3391, [CR_BACKEND_VULKAN] = 0.1822, [CR_BACKEND_CPU] = 0.9702 },
	.prefill_cell = {
		[CR_BACKEND_CUDA] = { 1, 0.8726, 1.1250, 1.0035, 1.0000 },
		[CR_BACKEND_METAL] = { 1, 1.0000, 1.0000, 1.1708, 1.0000 },
		[CR_BACKEND_ROCM] = { 1, 1.2204, 1.1626, 0.6763, 1.0000 },
		[CR_BACKEND_VULKAN] = { 1, 1.0000, 1.0453, 0.7860, 1.0000 },
		[CR_BACKEND_CPU] = { 1, 1.0000, 1.0000, 1.0000, 1.0000 },
	},
	.vulkan_vendor_prefill = { [CR_VENDOR_NVIDIA] = 1.5713, [CR_VENDOR_AMD] = 1.2346, [CR_VENDOR_INTEL] = 0.4235 },
	.prefill_f16 = 1.0307,        /* F16 / BF16 weights (cuBLAS / GEMM path) */
	.prefill_width_gain = 1.1761, /* x this per doubling of the hidden size over 4096 */
	.moe_expert_tokens = 185.17,  /* m0: an expert GEMM of m tokens runs at sqrt(m / (m + m0)) */
	/* attention FLOPs relative to weight FLOPs: psi x the backend's own factor (CPU: psi) */
	.attention_cost = { [CR_BACKEND_CUDA] = 1.1530, [CR_BACKEND_METAL] = 1.6887, [CR_BACKEND_ROCM] = 1.9950, [CR_BACKEND_VULKAN] = 2.5313, [CR_BACKEND_CPU] = 1.6691 },
	.prefill_layer_s = 2.017e-04,    /* per layer per micro-batch */
	.prefill_kv_tokens = 71.75,  /* prompt tokens per pass over the KV cache */
	/* Volta (compute capability 7.0), micro-batch >= 64: MUL_MAT_ID's generic path */
	.volta_expert_s = 1.332e-05,     /* per expert with tokens, per MUL_MAT_ID: its own GEMM's kernels */
	.volta_host_step_s = 1.107e-09,  /* per step of the host loop that sorts tokens by expert */
	/* out of sample (leave one source out, 2025-26 rows): median absolute error, percent,
	 * and the 10th / 90th percentiles of measured / predicted */
	.decode_error_pct = { [CR_BACKEND_CUDA] = 9.5, [CR_BACKEND_METAL] = 12.4, [CR_BACKEND_ROCM] = 8.8, [CR_BACKEND_VULKAN] = 16.8, [CR_BACKEND_CPU] = 39.3 },
	.decode_q10 = { [CR_BACKEND_CUDA] = 0.835, [CR_BACKEND_METAL] = 0.784, [CR_BACKEND_ROCM] = 0.768, [CR_BACKEND_VULKAN] = 0.597, [CR_BACKEND_CPU] = 0.573 },
	.decode_q90 = { [CR_BACKEND_CUDA] = 1.227, [CR_BACKEND_METAL] = 1.182, [CR_BACKEND_ROCM] = 1.206, [CR_BACKEND_VULKAN] = 1.411, [CR_BACKEND_CPU] = 1.323 },
	.prefill_error_pct = { [CR_BACKEND_CUDA] = 17.2, [CR_BACKEND_METAL] = 17.1, [CR_BACKEND_ROCM] = 19.2, [CR_BACKEND_VULKAN] = 31.8, [CR_BACKEND_CPU] = 25.6 },
	.prefill_q10 = { [CR_BACKEND_CUDA] = 0.678, [CR_BACKEND_METAL] = 0.797, [CR_BACKEND_ROCM] = 0.639, [CR_BACKEND_VULKAN] = 0.510, [CR_BACKEND_CPU] = 0.640 },
	.prefill_q90 = { [CR_BACKEND_CUDA] = 1.471, [CR_BACKEND_METAL] = 1.372, [CR_BACKEND_ROCM] = 1.461, [CR_BACKEND_VULKAN] = 1.999, [CR_BACKEND_CPU] = 1.833 },
};

/* 2025-26 single-device rows per (backend, memory class, vendor): decode rows,
 * prefill rows; rows of dense, MoE and hybrid models; active parameters; the
 * deepest context measured. */
const cr_speed_cell cr_speed_cells[] = {
	{ CR_BACKEND_CPU, CR_MEMTYPE_DDR, CR_VENDOR_OTHER, 21, 16, 37, 0, 0, 1.1e+09, 7.06e+10, 4096 },
	{ CR_BACKEND_CUDA, CR_MEMTYPE_GDDR, CR_VENDOR_NVIDIA, 68, 79, 41, 55, 51, 5.96e+08, 2.69e+10, 49664 },
	{ CR_BACKEND_CUDA, CR_MEMTYPE_HBM, CR_VENDOR_NVIDIA, 8, 16, 2, 22, 0, 2.66e+09, 8.19e+09, 34816 },
	{ CR_BACKEND_CUDA, CR_MEMTYPE_LPDDR, CR_VENDOR_NVIDIA, 93, 104, 60, 134, 3, 3.35e+09, 7.62e+09, 34816 },
	{ CR_BACKEND_METAL, CR_MEMTYPE_LPDDR, CR_VENDOR_APPLE, 77, 88, 77, 86, 2, 5.96e+08, 7.06e+10, 34816 },
	{ CR_BACKEND_ROCM, CR_MEMTYPE_GDDR, CR_VENDOR_AMD, 35, 17, 31, 13, 8, 3.35e+09, 2.69e+10, 33792 },
	{ CR_BACKEND_ROCM, CR_MEMTYPE_HBM, CR_VENDOR_AMD, 18, 17, 11, 8, 16, 1.24e+09, 2.69e+10, 34816 },
	{ CR_BACKEND_ROCM, CR_MEMTYPE_LPDDR, CR_VENDOR_AMD, 41, 42, 61, 15, 7, 1.24e+09, 7.06e+10, 66048 },
	{ CR_BACKEND_VULKAN, CR_MEMTYPE_GDDR, CR_VENDOR_AMD, 15, 16, 26, 3, 2, 4.02e+09, 2.69e+10, 32768 },
	{ CR_BACKEND_VULKAN, CR_MEMTYPE_GDDR, CR_VENDOR_INTEL, 18, 25, 18, 4, 21, 2.61e+09, 2.69e+10, 18432 },
	{ CR_BACKEND_VULKAN, CR_MEMTYPE_GDDR, CR_VENDOR_NVIDIA, 15, 19, 23, 11, 0, 2.66e+09, 8.03e+09, 8704 },
	{ CR_BACKEND_VULKAN, CR_MEMTYPE_LPDDR, CR_VENDOR_AMD, 37, 28, 34, 25, 6, 3.21e+09, 7.06e+10, 8704 },
	{ CR_BACKEND_VULKAN, CR_MEMTYPE_LPDDR, CR_VENDOR_INTEL, 2, 0, 2, 0, 0, 2.61e+09, 2.61e+09, 128 },
};
const unsigned cr_speed_cell_count = sizeof(cr_speed_cells) / sizeof(cr_speed_cells[0]);
