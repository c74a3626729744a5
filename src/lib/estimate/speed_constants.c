/*
 * Speed-model constants, written by `bench/speed-calibration --emit-c` from
 * 1124 measured llama.cpp rows of 113 sources in bench/data/ (docs/accuracy.md:
 * the model, the fit, and its leave-one-source-out error). Do not edit by
 * hand: change the data or the model and re-run the script.
 */
#include "speed_constants.h"

const cr_speed_model cr_speed = {
	/* decode: achievable share of peak bandwidth per memory class (CPU rows: DDR) */
	.decode_eff = { [CR_MEMTYPE_AUTO] = 0.8331, [CR_MEMTYPE_HBM] = 0.5769, [CR_MEMTYPE_GDDR] = 0.8331, [CR_MEMTYPE_LPDDR] = 0.8288, [CR_MEMTYPE_DDR] = 0.7247 },
	/* per backend, and per (backend, memory class: AUTO, HBM, GDDR, LPDDR, DDR) */
	.backend_eff = { [CR_BACKEND_CUDA] = 1.0000, [CR_BACKEND_METAL] = 0.9717, [CR_BACKEND_ROCM] = 0.9740, [CR_BACKEND_VULKAN] = 0.9458, [CR_BACKEND_CPU] = 1.0000 },
	.cell_eff = {
		[CR_BACKEND_CUDA] = { 1, 1.0144, 1.1318, 1.0750, 1.0000 },
		[CR_BACKEND_METAL] = { 1, 1.0000, 1.0000, 0.9562, 1.0000 },
		[CR_BACKEND_ROCM] = { 1, 0.9392, 1.0058, 1.0158, 1.0000 },
		[CR_BACKEND_VULKAN] = { 1, 1.0000, 0.9175, 0.9990, 1.0000 },
		[CR_BACKEND_CPU] = { 1, 1.0000, 1.0000, 1.0000, 1.0000 },
	},
	/* Vulkan: per GPU vendor (driver and shader paths); 1 for any other */
	.vulkan_vendor_eff = { [CR_VENDOR_NVIDIA] = 1.0366, [CR_VENDOR_AMD] = 1.1645, [CR_VENDOR_INTEL] = 0.7593 },
	.kv_read_factor = 0.9579,     /* KV bytes cost this many weight bytes */
	.legacy_quant_eff = 1.0940,   /* Q4_0 .. Q8_0 weights: read at this x the bandwidth share */
	.decode_attention_cost = 10.360, /* decode attention FLOPs cost this many FP16-peak FLOPs */
	/* seconds per layer per token: kernel launches and synchronisation */
	.layer_s = { [CR_BACKEND_CUDA] = 1.157e-05, [CR_BACKEND_METAL] = 1.915e-05, [CR_BACKEND_ROCM] = 1.744e-05, [CR_BACKEND_VULKAN] = 1.572e-05, [CR_BACKEND_CPU] = 1.496e-05 },
	/* GPUs, per layer: this many bytes at 1000 GB/s, x sqrt(BW / 1000) at BW */
	.layer_bytes = 6.6198e+07,
	.recurrent_layer_s = 3.075e-05,  /* per linear-attention / SSM layer */
	.moe_expert_s = 2.201e-06,       /* per expert used, per MoE layer: its gathered matmuls */
	.cpu_param_s = 3.768e-12,        /* CPU decode: per active parameter, on a 1-TFLOPS CPU */
	.cpu_default_tflops = 0.700,  /* a CPU without a figure: the calibration CPUs' median */
	.multi_gpu_factor = 1.0264,   /* layer split: cards in turn */
	/* prefill: share of dense FP16 peak the weight GEMMs reach */
	.prefill_eff = { [CR_BACKEND_CUDA] = 0.3734, [CR_BACKEND_METAL] = 0.7237, [CR_BACKEND_ROCM] = 0.3403, [CR_BACKEND_VULKAN] = 0.1814, [CR_BACKEND_CPU] = 0.9207 },
	.prefill_cell = {
		[CR_BACKEND_CUDA] = { 1, 0.8782, 1.1584, 0.9662, 1.0000 },
		[CR_BACKEND_METAL] = { 1, 1.0000, 1.0000, 1.1598, 1.0000 },
		[CR_BACKEND_ROCM] = { 1, 1.1861, 1.1953, 0.6774, 1.0000 },
		[CR_BACKEND_VULKAN] = { 1, 1.0000, 1.0565, 0.7768, 1.0000 },
		[CR_BACKEND_CPU] = { 1, 1.0000, 1.0000, 1.0000, 1.0000 },
	},
	.vulkan_vendor_prefill = { [CR_VENDOR_NVIDIA] = 1.5507, [CR_VENDOR_AMD] = 1.2930, [CR_VENDOR_INTEL] = 0.4093 },
	.prefill_f16 = 1.0318,        /* F16 / BF16 weights (cuBLAS / GEMM path) */
	.moe_expert_tokens = 232.89,  /* m0: an expert GEMM of m tokens runs at sqrt(m / (m + m0)) */
	/* attention FLOPs relative to weight FLOPs: psi x the backend's own factor (CPU: psi) */
	.attention_cost = { [CR_BACKEND_CUDA] = 1.4442, [CR_BACKEND_METAL] = 1.8149, [CR_BACKEND_ROCM] = 2.1684, [CR_BACKEND_VULKAN] = 2.6581, [CR_BACKEND_CPU] = 1.8419 },
	.prefill_layer_s = 2.591e-04,    /* per layer per micro-batch */
	.prefill_kv_tokens = 66.93,  /* prompt tokens per pass over the KV cache */
	/* Volta (compute capability 7.0), micro-batch >= 64: MUL_MAT_ID's generic path */
	.volta_expert_s = 1.338e-05,     /* per expert with tokens, per MUL_MAT_ID: its own GEMM's kernels */
	.volta_host_step_s = 1.128e-09,  /* per step of the host loop that sorts tokens by expert */
	/* out of sample (leave one source out, 2025-26 rows): median absolute error, percent,
	 * and the 10th / 90th percentiles of measured / predicted */
	.decode_error_pct = { [CR_BACKEND_CUDA] = 15.3, [CR_BACKEND_METAL] = 12.7, [CR_BACKEND_ROCM] = 8.9, [CR_BACKEND_VULKAN] = 14.2, [CR_BACKEND_CPU] = 39.4 },
	.decode_q10 = { [CR_BACKEND_CUDA] = 0.777, [CR_BACKEND_METAL] = 0.814, [CR_BACKEND_ROCM] = 0.774, [CR_BACKEND_VULKAN] = 0.509, [CR_BACKEND_CPU] = 0.573 },
	.decode_q90 = { [CR_BACKEND_CUDA] = 1.330, [CR_BACKEND_METAL] = 1.204, [CR_BACKEND_ROCM] = 1.207, [CR_BACKEND_VULKAN] = 1.448, [CR_BACKEND_CPU] = 1.322 },
	.prefill_error_pct = { [CR_BACKEND_CUDA] = 19.8, [CR_BACKEND_METAL] = 20.8, [CR_BACKEND_ROCM] = 21.8, [CR_BACKEND_VULKAN] = 32.8, [CR_BACKEND_CPU] = 35.1 },
	.prefill_q10 = { [CR_BACKEND_CUDA] = 0.764, [CR_BACKEND_METAL] = 0.773, [CR_BACKEND_ROCM] = 0.663, [CR_BACKEND_VULKAN] = 0.520, [CR_BACKEND_CPU] = 0.636 },
	.prefill_q90 = { [CR_BACKEND_CUDA] = 1.600, [CR_BACKEND_METAL] = 1.475, [CR_BACKEND_ROCM] = 1.524, [CR_BACKEND_VULKAN] = 2.003, [CR_BACKEND_CPU] = 1.737 },
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
