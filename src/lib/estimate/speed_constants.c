/*
 * Speed-model constants, written by `bench/speed-calibration --emit-c` from
 * 1329 measured llama.cpp rows of 115 sources in bench/data/ (docs/accuracy.md:
 * the model, the fit, and its leave-one-source-out error). Do not edit by
 * hand: change the data or the model and re-run the script.
 */
#include "speed_constants.h"

const cr_speed_model cr_speed = {
	/* decode: achievable share of peak bandwidth per memory class (CPU rows: DDR) */
	.decode_eff = { [CR_MEMTYPE_AUTO] = 0.8621, [CR_MEMTYPE_HBM] = 0.5702, [CR_MEMTYPE_GDDR] = 0.8621, [CR_MEMTYPE_LPDDR] = 0.8357, [CR_MEMTYPE_DDR] = 0.7239 },
	/* per backend, and per (backend, memory class: AUTO, HBM, GDDR, LPDDR, DDR) */
	.backend_eff = { [CR_BACKEND_CUDA] = 1.0000, [CR_BACKEND_METAL] = 0.9631, [CR_BACKEND_ROCM] = 0.9618, [CR_BACKEND_VULKAN] = 0.9775, [CR_BACKEND_CPU] = 1.0000 },
	.cell_eff = {
		[CR_BACKEND_CUDA] = { 1, 1.0067, 1.0859, 1.1176, 1.0000 },
		[CR_BACKEND_METAL] = { 1, 1.0000, 1.0000, 0.9429, 1.0000 },
		[CR_BACKEND_ROCM] = { 1, 0.9437, 0.9834, 1.0139, 1.0000 },
		[CR_BACKEND_VULKAN] = { 1, 1.0000, 0.9865, 0.9783, 1.0000 },
		[CR_BACKEND_CPU] = { 1, 1.0000, 1.0000, 1.0000, 1.0000 },
	},
	/* Vulkan: per GPU vendor (driver and shader paths); 1 for any other */
	.vulkan_vendor_eff = { [CR_VENDOR_NVIDIA] = 0.9409, [CR_VENDOR_AMD] = 1.1233, [CR_VENDOR_INTEL] = 0.5359 },
	.kv_read_factor = 0.9386,     /* KV bytes cost this many weight bytes */
	.legacy_quant_eff = 1.1012,   /* Q4_0 .. Q8_0 weights: read at this x the bandwidth share */
	.decode_attention_cost = 10.196, /* decode attention FLOPs cost this many FP16-peak FLOPs */
	/* seconds per layer per token: kernel launches and synchronisation */
	.layer_s = { [CR_BACKEND_CUDA] = 1.173e-05, [CR_BACKEND_METAL] = 1.967e-05, [CR_BACKEND_ROCM] = 1.793e-05, [CR_BACKEND_VULKAN] = 1.610e-05, [CR_BACKEND_CPU] = 1.496e-05 },
	/* GPUs, per layer: this many bytes at 1000 GB/s, x sqrt(BW / 1000) at BW */
	.layer_bytes = 6.4724e+07,
	.recurrent_layer_s = 2.467e-05,  /* per linear-attention / SSM layer */
	.moe_expert_s = 2.331e-06,       /* per expert used, per MoE layer: its gathered matmuls */
	.cpu_param_s = 3.769e-12,        /* CPU decode: per active parameter, on a 1-TFLOPS CPU */
	.cpu_default_tflops = 0.700,  /* a CPU without a figure: the calibration CPUs' median */
	.multi_gpu_factor = 1.0250,   /* layer split: cards in turn */
	/* prefill: share of dense FP16 peak the weight GEMMs reach */
	.prefill_eff = { [CR_BACKEND_CUDA] = 0.3764, [CR_BACKEND_METAL] = 0.7511, [CR_BACKEND_ROCM] = 0.3384, [CR_BACKEND_VULKAN] = 0.1821, [CR_BACKEND_CPU] = 0.9692 },
	.prefill_cell = {
		[CR_BACKEND_CUDA] = { 1, 0.8741, 1.1236, 1.0028, 1.0000 },
		[CR_BACKEND_METAL] = { 1, 1.0000, 1.0000, 1.1706, 1.0000 },
		[CR_BACKEND_ROCM] = { 1, 1.2219, 1.1597, 0.6768, 1.0000 },
		[CR_BACKEND_VULKAN] = { 1, 1.0000, 1.0396, 0.7902, 1.0000 },
		[CR_BACKEND_CPU] = { 1, 1.0000, 1.0000, 1.0000, 1.0000 },
	},
	.vulkan_vendor_prefill = { [CR_VENDOR_NVIDIA] = 1.5759, [CR_VENDOR_AMD] = 1.2264, [CR_VENDOR_INTEL] = 0.4251 },
	.prefill_f16 = 1.0318,        /* F16 / BF16 weights (cuBLAS / GEMM path) */
	.prefill_width_gain = 1.1763, /* x this per doubling of the hidden size over 4096 */
	.moe_expert_tokens = 184.72,  /* m0: an expert GEMM of m tokens runs at sqrt(m / (m + m0)) */
	/* attention FLOPs relative to weight FLOPs: psi x the backend's own factor (CPU: psi) */
	.attention_cost = { [CR_BACKEND_CUDA] = 1.1511, [CR_BACKEND_METAL] = 1.6863, [CR_BACKEND_ROCM] = 1.9910, [CR_BACKEND_VULKAN] = 2.5217, [CR_BACKEND_CPU] = 1.6657 },
	.prefill_layer_s = 1.974e-04,    /* per layer per micro-batch */
	.prefill_kv_tokens = 71.64,  /* prompt tokens per pass over the KV cache */
	/* Volta (compute capability 7.0), micro-batch >= 64: MUL_MAT_ID's generic path */
	.volta_expert_s = 1.331e-05,     /* per expert with tokens, per MUL_MAT_ID: its own GEMM's kernels */
	.volta_host_step_s = 1.106e-09,  /* per step of the host loop that sorts tokens by expert */
	/* out of sample (leave one source out, 2025-26 rows): median absolute error, percent,
	 * and the 10th / 90th percentiles of measured / predicted */
	.decode_error_pct = { [CR_BACKEND_CUDA] = 10.5, [CR_BACKEND_METAL] = 12.1, [CR_BACKEND_ROCM] = 8.9, [CR_BACKEND_VULKAN] = 16.4, [CR_BACKEND_CPU] = 39.3 },
	.decode_q10 = { [CR_BACKEND_CUDA] = 0.789, [CR_BACKEND_METAL] = 0.803, [CR_BACKEND_ROCM] = 0.783, [CR_BACKEND_VULKAN] = 0.593, [CR_BACKEND_CPU] = 0.573 },
	.decode_q90 = { [CR_BACKEND_CUDA] = 1.252, [CR_BACKEND_METAL] = 1.196, [CR_BACKEND_ROCM] = 1.198, [CR_BACKEND_VULKAN] = 1.408, [CR_BACKEND_CPU] = 1.323 },
	.prefill_error_pct = { [CR_BACKEND_CUDA] = 17.1, [CR_BACKEND_METAL] = 17.1, [CR_BACKEND_ROCM] = 19.9, [CR_BACKEND_VULKAN] = 31.8, [CR_BACKEND_CPU] = 25.6 },
	.prefill_q10 = { [CR_BACKEND_CUDA] = 0.678, [CR_BACKEND_METAL] = 0.797, [CR_BACKEND_ROCM] = 0.640, [CR_BACKEND_VULKAN] = 0.506, [CR_BACKEND_CPU] = 0.640 },
	.prefill_q90 = { [CR_BACKEND_CUDA] = 1.466, [CR_BACKEND_METAL] = 1.371, [CR_BACKEND_ROCM] = 1.464, [CR_BACKEND_VULKAN] = 2.017, [CR_BACKEND_CPU] = 1.833 },
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
	{ CR_BACKEND_ROCM, CR_MEMTYPE_GDDR, CR_VENDOR_AMD, 34, 16, 29, 13, 8, 3.35e+09, 2.69e+10, 33792 },
	{ CR_BACKEND_ROCM, CR_MEMTYPE_HBM, CR_VENDOR_AMD, 18, 17, 11, 8, 16, 1.24e+09, 2.69e+10, 34816 },
	{ CR_BACKEND_ROCM, CR_MEMTYPE_LPDDR, CR_VENDOR_AMD, 41, 42, 61, 15, 7, 1.24e+09, 7.06e+10, 66048 },
	{ CR_BACKEND_VULKAN, CR_MEMTYPE_GDDR, CR_VENDOR_AMD, 14, 15, 24, 3, 2, 4.02e+09, 2.69e+10, 32768 },
	{ CR_BACKEND_VULKAN, CR_MEMTYPE_GDDR, CR_VENDOR_INTEL, 18, 25, 18, 4, 21, 2.61e+09, 2.69e+10, 18432 },
	{ CR_BACKEND_VULKAN, CR_MEMTYPE_GDDR, CR_VENDOR_NVIDIA, 15, 19, 23, 11, 0, 2.66e+09, 8.03e+09, 8704 },
	{ CR_BACKEND_VULKAN, CR_MEMTYPE_LPDDR, CR_VENDOR_AMD, 37, 28, 34, 25, 6, 3.21e+09, 7.06e+10, 8704 },
	{ CR_BACKEND_VULKAN, CR_MEMTYPE_LPDDR, CR_VENDOR_INTEL, 2, 0, 2, 0, 0, 2.61e+09, 2.61e+09, 128 },
};
const unsigned cr_speed_cell_count = sizeof(cr_speed_cells) / sizeof(cr_speed_cells[0]);
