/*
 * The speed model's constants (src/lib/estimate/speed_constants.c, written by
 * `bench/speed-calibration --emit-c`; docs/accuracy.md gives the model, the
 * data and the out-of-sample error behind each figure).
 *
 * Decode, seconds per token:
 *   bytes / (decode_eff[mem] x backend_eff[b] x cell_eff[b][mem] [x vulkan_vendor_eff[v]] x BW)
 *   + layers x layer_s[b] + (GPUs) layers x layer_bytes x sqrt(BW / 1000) / (eff x BW)
 *   + recurrent layers x recurrent_layer_s
 *   + (MoE) layers x experts used x moe_expert_s
 *   + (CPU) active params x cpu_param_s / the CPU's FP32 TFLOPS (cpu_default_tflops when unknown)
 *   + (CUDA below compute capability 6.1, quantized weights) active params x no_dp4a_flops / its FP32 rate
 *   + (GPUs) attention FLOPs at depth x decode_attention_cost / F
 * with KV bytes counted x kv_read_factor, and the weight bytes of Q4_0, Q4_1,
 * Q5_0, Q5_1 and Q8_0 / legacy_quant_eff.
 *
 * Prefill, seconds per prompt token (micro-batch ub):
 *   hypot((2 A_dense + 2 A_exp / sqrt(m / (m + moe_expert_tokens)) + attention_cost[b] x attn)
 *           / (prefill_eff[b] x prefill_cell[b][mem] [x vulkan_vendor_prefill[v]] [x prefill_f16]
 *              x prefill_width_gain^log2(hidden / 4096) x F),
 *           (BF16 weights on a device stating bf16_tflops: the weight FLOPs at that rate)
 *         all weights / (decode efficiency x BW x ub))
 *   + layers x prefill_layer_s / ub
 *   + KV bytes at depth + prompt / 2 x kv_read_factor / (decode efficiency x BW
 *     x prefill_kv_tokens)
 * On a Volta GPU (compute capability 7.0) at ub >= 64 each MoE layer adds, per
 * micro-batch,
 *   3 x (experts with tokens x volta_expert_s + E x ub x k x volta_host_step_s)
 */
#ifndef CLEFRUN_SPEED_CONSTANTS_H
#define CLEFRUN_SPEED_CONSTANTS_H

#include "clefrun/catalog.h"

typedef struct cr_speed_model {
	double decode_eff[CR_MEMTYPE_COUNT];
	double backend_eff[CR_BACKEND_COUNT];
	double cell_eff[CR_BACKEND_COUNT][CR_MEMTYPE_COUNT];
	/* Vulkan only: per GPU vendor (each its own driver and shader paths); 0 reads as 1 */
	double vulkan_vendor_eff[CR_VENDOR_COUNT];
	double kv_read_factor;
	/* decode: the legacy block quants' (Q4_0, Q4_1, Q5_0, Q5_1, Q8_0) weights
	 * are read at this x the bandwidth share of the K- and IQ-quants' */
	double legacy_quant_eff;
	/* decode's attention FLOPs (QK^T, AV) cost this many FP16-peak FLOPs */
	double decode_attention_cost;
	double layer_s[CR_BACKEND_COUNT];
	/* GPUs: per layer, this many bytes at 1000 GB/s; at bandwidth BW the
	 * layer costs layer_bytes x sqrt(BW / 1000) / (decode efficiency x BW) */
	double layer_bytes;
	double recurrent_layer_s;
	double moe_expert_s;
	double cpu_param_s;
	/* decode on a CUDA GPU without dp4a (compute capability below 6.1):
	 * per quantized weight, this many FLOPs' worth of its FP32 issue rate */
	double no_dp4a_flops;
	double cpu_default_tflops;
	double multi_gpu_factor;
	double prefill_eff[CR_BACKEND_COUNT];
	double prefill_cell[CR_BACKEND_COUNT][CR_MEMTYPE_COUNT];
	double vulkan_vendor_prefill[CR_VENDOR_COUNT];
	double prefill_f16;
	/* prefill GEMM efficiency x this per doubling of the model's hidden
	 * size over 4096 (x this^log2(hidden / 4096)) */
	double prefill_width_gain;
	double moe_expert_tokens;
	double attention_cost[CR_BACKEND_COUNT]; /* each backend's attention kernels */
	double prefill_layer_s;
	double prefill_kv_tokens; /* the attention kernels stream the KV cache once per this many prompt tokens */
	double volta_expert_s;    /* Volta, ub >= 64: per expert with tokens, per MUL_MAT_ID */
	double volta_host_step_s; /* Volta, ub >= 64: per step of MUL_MAT_ID's host loop (E x ub x k) */
	/* leave-one-source-out on 2025-26 rows, per backend family */
	double decode_error_pct[CR_BACKEND_COUNT];
	double decode_q10[CR_BACKEND_COUNT], decode_q90[CR_BACKEND_COUNT];
	double prefill_error_pct[CR_BACKEND_COUNT];
	double prefill_q10[CR_BACKEND_COUNT], prefill_q90[CR_BACKEND_COUNT];
} cr_speed_model;

extern const cr_speed_model cr_speed;

/* What the calibration measured on one (backend, memory type, vendor): the
 * vendor matters for Vulkan, which runs on every vendor's GPUs. */
typedef struct cr_speed_cell {
	cr_backend backend;
	cr_mem_type mem;
	cr_vendor vendor;
	unsigned decode_rows, prefill_rows;
	unsigned dense_rows, moe_rows, hybrid_rows;
	double active_min, active_max; /* active parameters of the models measured */
	unsigned ctx_max;              /* deepest context measured, tokens */
} cr_speed_cell;

extern const cr_speed_cell cr_speed_cells[];
extern const unsigned cr_speed_cell_count;

/* Tensor parallelism has no row in the calibration data. 20 us per
 * all-reduce is a clefrun assumption of the order of NCCL's small-message
 * latency over PCIe; docs/methodology.md flags it as unvalidated. */
#define CR_TP_ALLREDUCE_LATENCY_S 20e-6
/* PCIe 4.0 x16, 31 GB/s one way (facts/rigs_notes.md, ml-engineering). */
#define CR_TP_DEFAULT_LINK_GBS 31.0

#endif
