/*
 * Speed-model constants, written by `bench/speed-calibration --emit-c` from
 * 1329 measured llama.cpp rows of 115 sources in bench/data/ (docs/accuracy.md:
 * the model, the fit, and its leave-one-source-out error). Do not edit by
 * hand: change the data or the model and re-run the script.
 */
#include "speed_constants.h"

const cr_speed_model cr_speed = {
	/* decode: achievable share of peak bandwidth per memory class (CPU rows: DDR) */
	.decode_eff = { [CR_MEMTYPE_AUTO] = 0.8307, [CR_MEMTYPE_HBM] = 0.5688, [CR_MEMTYPE_GDDR] = 0.8307, [CR_MEMTYPE_LPDDR] = 0.8343, [CR_MEMTYPE_DDR] = 0.7232 },
	/* per backend, and per (backend, memory class: AUTO, HBM, GDDR, LPDDR, DDR) */
	.backend_eff = { [CR_BACKEND_CUDA] = 1.0000, [CR_BACKEND_METAL] = 0.9639, [CR_BACKEND_ROCM] = 0.9713, [CR_BACKEND_VULKAN] = 0.9379, [CR_BACKEND_CPU] = 1.0000 },
	.cell_eff = {
		[CR_BACKEND_CUDA] = { 1, 1.0090, 1.1223, 1.1203, 1.0000 },
		[CR_BACKEND_METAL] = { 1, 1.0000, 1.0000, 0.9442, 1.0000 },
		[CR_BACKEND_ROCM] = { 1, 0.9410, 1.0049, 1.0104, 1.0000 },
		[CR_BACKEND_VULKAN] = { 1, 1.0000, 0.9254, 0.9776, 1.0000 },
		[CR_BACKEND_CPU] = { 1, 1.0000, 1.0000, 1.0000, 1.0000 },
	},
	/* Vulkan: per GPU vendor (driver and shader paths); 1 for any other */
	.vulkan_vendor_eff = { [CR_VENDOR_NVIDIA] = 1.0330, [CR_VENDOR_AMD] = 1.1554, [CR_VENDOR_INTEL] = 0.7580 },
	.kv_read_factor = 0.9511,     /* KV bytes cost this many weight bytes */
	.legacy_quant_eff = 1.1075,   /* Q4_0 .. Q8_0 weights: read at this x the bandwidth share */
	.decode_attention_cost = 10.131, /* decode attention FLOPs cost this many FP16-peak FLOPs */
	/* seconds per layer per token: kernel launches and synchronisation */
	.layer_s = { [CR_BACKEND_CUDA] = 1.146e-05, [CR_BACKEND_METAL] = 1.952e-05, [CR_BACKEND_ROCM] = 1.759e-05, [CR_BACKEND_VULKAN] = 1.547e-05, [CR_BACKEND_CPU] = 1.496e-05 },
	/* GPUs, per layer: this many bytes at 1000 GB/s, x sqrt(BW / 1000) at BW */
	.layer_bytes = 6.5570e+07,
	.recurrent_layer_s = 2.640e-05,  /* per linear-attention / SSM layer */
	.moe_expert_s = 2.223e-06,       /* per expert used, per MoE layer: its gathered matmuls */
	.cpu_param_s = 3.770e-12,        /* CPU decode: per active parameter, on a 1-TFLOPS CPU */
	.cpu_default_tflops = 0.700,  /* a CPU without a figure: the calibration CPUs' median */
	.multi_gpu_factor = 1.0237,   /* layer split: cards in turn */
	/* prefill: share of dense FP16 peak the weight GEMMs reach */
	.prefill_eff = { [CR_BACKEND_CUDA] = 0.3701, [CR_BACKEND_METAL] = 0.7517, [CR_BACKEND_ROCM] = 0.3391, [CR_BACKEND_VULKAN] = 0.1828, [CR_BACKEND_CPU] = 0.9704 },
	.prefill_cell = {
		[CR_BACKEND_CUDA] = { 1, 0.8791, 1.0781, 1.0348, 1.0000 },
		[CR_BACKEND_METAL] = { 1, 1.0000, 1.0000, 1.1709, 1.0000 },
		[CR_BACKEND_ROCM] = { 1, 1.2236, 1.1553, 0.6788, 1.0000 },
		[CR_BACKEND_VULKAN] = { 1, 1.0000, 1.0360, 0.7937, 1.0000 },
		[CR_BACKEND_CPU] = { 1, 1.0000, 1.0000, 1.0000, 1.0000 },
	},
	.vulkan_vendor_prefill = { [CR_VENDOR_NVIDIA] = 1.5770, [CR_VENDOR_AMD] = 1.2247, [CR_VENDOR_INTEL] = 0.4257 },
	.prefill_f16 = 1.0338,        /* F16 / BF16 weights (cuBLAS / GEMM path) */
	.prefill_width_gain = 1.1832, /* x this per doubling of the hidden size over 4096 */
	.moe_expert_tokens = 196.10,  /* m0: an expert GEMM of m tokens runs at sqrt(m / (m + m0)) */
	/* attention FLOPs relative to weight FLOPs: psi x the backend's own factor (CPU: psi) */
	.attention_cost = { [CR_BACKEND_CUDA] = 1.1838, [CR_BACKEND_METAL] = 1.6780, [CR_BACKEND_ROCM] = 2.0006, [CR_BACKEND_VULKAN] = 2.5446, [CR_BACKEND_CPU] = 1.6794 },
	.prefill_layer_s = 1.701e-04,    /* per layer per micro-batch */
	.prefill_kv_tokens = 71.87,  /* prompt tokens per pass over the KV cache */
	/* Volta (compute capability 7.0), micro-batch >= 64: MUL_MAT_ID's generic path */
	.volta_expert_s = 1.304e-05,     /* per expert with tokens, per MUL_MAT_ID: its own GEMM's kernels */
	.volta_host_step_s = 1.091e-09,  /* per step of the host loop that sorts tokens by expert */
	/* out of sample (leave one source out, 2025-26 rows): median absolute error, percent,
	 * and the 10th / 90th percentiles of measured / predicted */
	.decode_error_pct = { [CR_BACKEND_CUDA] = 10.6, [CR_BACKEND_METAL] = 12.2, [CR_BACKEND_ROCM] = 9.3, [CR_BACKEND_VULKAN] = 14.0, [CR_BACKEND_CPU] = 39.1 },
	.decode_q10 = { [CR_BACKEND_CUDA] = 0.793, [CR_BACKEND_METAL] = 0.799, [CR_BACKEND_ROCM] = 0.778, [CR_BACKEND_VULKAN] = 0.537, [CR_BACKEND_CPU] = 0.574 },
	.decode_q90 = { [CR_BACKEND_CUDA] = 1.257, [CR_BACKEND_METAL] = 1.192, [CR_BACKEND_ROCM] = 1.210, [CR_BACKEND_VULKAN] = 1.443, [CR_BACKEND_CPU] = 1.324 },
	.prefill_error_pct = { [CR_BACKEND_CUDA] = 17.7, [CR_BACKEND_METAL] = 17.3, [CR_BACKEND_ROCM] = 19.1, [CR_BACKEND_VULKAN] = 32.9, [CR_BACKEND_CPU] = 25.5 },
	.prefill_q10 = { [CR_BACKEND_CUDA] = 0.714, [CR_BACKEND_METAL] = 0.795, [CR_BACKEND_ROCM] = 0.644, [CR_BACKEND_VULKAN] = 0.502, [CR_BACKEND_CPU] = 0.640 },
	.prefill_q90 = { [CR_BACKEND_CUDA] = 1.491, [CR_BACKEND_METAL] = 1.385, [CR_BACKEND_ROCM] = 1.482, [CR_BACKEND_VULKAN] = 2.009, [CR_BACKEND_CPU] = 1.836 },
};

/* 2025-26 single-device rows per (backend, memory class, vendor): decode rows,
 * prefill rows; rows of dense, MoE and hybrid models; active parameters; the
 * deepest context measured. */
const cr_speed_cell cr_speed_cells[] = {
	{ CR_BACKEND_CPU, CR_MEMTYPE_DDR, CR_VENDOR_OTHER, 21, 16, 37, 0, 0, 1.1e+09, 7.06e+10, 4096 },
	{ CR_BACKEND_CUDA, CR_MEMTYPE_GDDR, CR_VENDOR_NVIDIA, 68, 99, 41, 75, 51, 5.96e+08, 2.69e+10, 49664 },
	{ CR_BACKEND_CUDA, CR_MEMTYPE_HBM, CR_VENDOR_NVIDIA, 8, 18, 2, 24, 0, 2.66e+09, 8.19e+09, 34816 },
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
