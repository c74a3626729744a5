/*
 * Speed-model constants, written by `bench/speed-calibration --emit-c` from
 * 1400 measured llama.cpp rows of 120 sources in bench/data/ (docs/accuracy.md:
 * the model, the fit, and its leave-one-source-out error). Do not edit by
 * hand: change the data or the model and re-run the script.
 */
#include "speed_constants.h"

const cr_speed_model cr_speed = {
	/* decode: achievable share of peak bandwidth per memory class (CPU rows: DDR) */
	.decode_eff = { [CR_MEMTYPE_AUTO] = 0.8604, [CR_MEMTYPE_HBM] = 0.5972, [CR_MEMTYPE_GDDR] = 0.8604, [CR_MEMTYPE_LPDDR] = 0.8343, [CR_MEMTYPE_DDR] = 0.7305 },
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
	.legacy_quant_eff = 1.1013,   /* Q4_0 .. Q8_0 weights: read at this x the bandwidth share */
	.decode_attention_cost = 9.164, /* decode attention FLOPs cost this many FP16-peak FLOPs */
	/* seconds per layer per token: kernel launches and synchronisation */
	.layer_s = { [CR_BACKEND_CUDA] = 1.275e-05, [CR_BACKEND_METAL] = 2.018e-05, [CR_BACKEND_ROCM] = 1.847e-05, [CR_BACKEND_VULKAN] = 1.620e-05, [CR_BACKEND_CPU] = 1.494e-05 },
	/* GPUs, per layer: this many bytes at 1000 GB/s, x sqrt(BW / 1000) at BW */
	.layer_bytes = 6.1205e+07,
	.recurrent_layer_s = 2.305e-05,  /* per linear-attention / SSM layer */
	.moe_expert_s = 2.380e-06,       /* per expert used, per MoE layer: its gathered matmuls */
	.cpu_param_s = 3.848e-12,        /* CPU decode: per active parameter, on a 1-TFLOPS CPU */
	.no_dp4a_flops = 12.296,      /* CUDA below compute capability 6.1: FP32-rate FLOPs per quantized weight */
	.cpu_default_tflops = 0.700,  /* a CPU without a figure: the calibration CPUs' median */
	.multi_gpu_factor = 1.0217,   /* layer split: cards in turn */
	/* prefill: share of dense FP16 peak the weight GEMMs reach, on the newest build in the data
	 * (an older build is slower: g in bench/speed-calibration, docs/methodology.md) */
	.prefill_eff = { [CR_BACKEND_CUDA] = 0.4199, [CR_BACKEND_METAL] = 0.8646, [CR_BACKEND_ROCM] = 0.3919, [CR_BACKEND_VULKAN] = 0.2164, [CR_BACKEND_CPU] = 1.0003 },
	.prefill_cell = {
		[CR_BACKEND_CUDA] = { 1, 0.8587, 1.1267, 1.0466, 1.0000 },
		[CR_BACKEND_METAL] = { 1, 1.0000, 1.0000, 1.2130, 1.0000 },
		[CR_BACKEND_ROCM] = { 1, 1.2022, 1.1174, 0.7406, 1.0000 },
		[CR_BACKEND_VULKAN] = { 1, 1.0000, 1.0036, 0.8546, 1.0000 },
		[CR_BACKEND_CPU] = { 1, 1.0000, 1.0000, 1.0000, 1.0000 },
	},
	.vulkan_vendor_prefill = { [CR_VENDOR_NVIDIA] = 1.7128, [CR_VENDOR_AMD] = 1.2505, [CR_VENDOR_INTEL] = 0.4005 },
	.prefill_f16 = 1.0352,        /* F16 / BF16 weights (cuBLAS / GEMM path) */
	.prefill_width_gain = 1.1653, /* x this per doubling of the hidden size over 4096 */
	.moe_expert_tokens = 185.24,  /* m0: an expert GEMM of m tokens runs at sqrt(m / (m + m0)) */
	/* attention FLOPs relative to weight FLOPs: psi x the backend's own factor (CPU: psi) */
	.attention_cost = { [CR_BACKEND_CUDA] = 1.1797, [CR_BACKEND_METAL] = 1.8416, [CR_BACKEND_ROCM] = 2.0817, [CR_BACKEND_VULKAN] = 2.2720, [CR_BACKEND_CPU] = 1.6865 },
	.prefill_layer_s = 2.130e-04,    /* per layer per micro-batch */
	.prefill_kv_tokens = 65.99,  /* prompt tokens per pass over the KV cache */
	/* Volta (compute capability 7.0), micro-batch >= 64: MUL_MAT_ID's generic path */
	.volta_expert_s = 1.359e-05,     /* per expert with tokens, per MUL_MAT_ID: its own GEMM's kernels */
	.volta_host_step_s = 1.152e-09,  /* per step of the host loop that sorts tokens by expert */
	/* out of sample (leave one source out, 2025-26 rows): median absolute error, percent,
	 * and the 10th / 90th percentiles of measured / predicted */
	.decode_error_pct = { [CR_BACKEND_CUDA] = 9.6, [CR_BACKEND_METAL] = 12.6, [CR_BACKEND_ROCM] = 8.7, [CR_BACKEND_VULKAN] = 15.2, [CR_BACKEND_CPU] = 22.0 },
	.decode_q10 = { [CR_BACKEND_CUDA] = 0.830, [CR_BACKEND_METAL] = 0.780, [CR_BACKEND_ROCM] = 0.762, [CR_BACKEND_VULKAN] = 0.620, [CR_BACKEND_CPU] = 0.708 },
	.decode_q90 = { [CR_BACKEND_CUDA] = 1.223, [CR_BACKEND_METAL] = 1.189, [CR_BACKEND_ROCM] = 1.207, [CR_BACKEND_VULKAN] = 1.393, [CR_BACKEND_CPU] = 1.326 },
	.prefill_error_pct = { [CR_BACKEND_CUDA] = 15.8, [CR_BACKEND_METAL] = 13.5, [CR_BACKEND_ROCM] = 18.9, [CR_BACKEND_VULKAN] = 31.4, [CR_BACKEND_CPU] = 30.2 },
	.prefill_q10 = { [CR_BACKEND_CUDA] = 0.725, [CR_BACKEND_METAL] = 0.812, [CR_BACKEND_ROCM] = 0.647, [CR_BACKEND_VULKAN] = 0.536, [CR_BACKEND_CPU] = 0.612 },
	.prefill_q90 = { [CR_BACKEND_CUDA] = 1.415, [CR_BACKEND_METAL] = 1.377, [CR_BACKEND_ROCM] = 1.412, [CR_BACKEND_VULKAN] = 1.746, [CR_BACKEND_CPU] = 1.965 },
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
