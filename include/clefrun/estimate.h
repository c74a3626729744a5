/**
 * @file estimate.h
 * @brief The estimator: memory, speed and fit tier of a model on a rig.
 *
 * Pure functions: plain structs in, plain structs out; no I/O, no
 * allocation, no global state. The semantics are llama.cpp's (docs/methodology.md
 * gives every formula and the source of every constant):
 *
 *   memory  = weights + KV cache + recurrent state + compute buffers
 *             + output buffer + runtime overhead
 *   decode  = 1 / (Σ tiers bytes read per token / (efficiency × bandwidth)
 *             + per-layer times)
 *   prefill = 1 / ((weight + expert + attention FLOPs) / (efficiency × FP16 FLOP/s)
 *             + weights / (bandwidth × ubatch) + per-layer time / ubatch)
 *   efficiencies and times: src/lib/estimate/speed_constants.c (docs/accuracy.md)
 *
 * Byte counts are uint64_t bytes; speeds are tokens per second; times seconds.
 */
#ifndef CLEFRUN_ESTIMATE_H
#define CLEFRUN_ESTIMATE_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

#include "clefrun/catalog.h"
#include "clefrun/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/** KV cache element types llama.cpp offers (--cache-type-k/-v). */
typedef enum cr_kv_type {
	CR_KV_F16 = 0, /**< 2 bytes per element */
	CR_KV_Q8_0,    /**< 34 bytes per 32 elements */
	CR_KV_Q4_0,    /**< 18 bytes per 32 elements */
	CR_KV_TYPE_COUNT
} cr_kv_type;

/** Fit tiers, best first. */
typedef enum cr_tier {
	CR_TIER_FAST = 0, /**< fits with headroom, decode >= 20 tokens/s */
	CR_TIER_OK,       /**< fits with headroom, 8 <= decode < 20 */
	CR_TIER_SLOW,     /**< fits with headroom, decode < 8 */
	CR_TIER_TIGHT,    /**< fits with less than the headroom, or only below the requested context */
	CR_TIER_UNKNOWN,  /**< fits with headroom, but the speed the tier is judged on is unknown
			       (--workload decide on a rig without an FP16 TFLOPS figure): it reaches
			       no --require, so a gate fails instead of passing on a guess */
	CR_TIER_NOFIT,    /**< does not fit even at the smallest context */
	CR_TIER_COUNT
} cr_tier;

/** Decode speed thresholds of the tiers (the seed pages' values). */
#define CR_TIER_FAST_TPS 20.0
#define CR_TIER_OK_TPS 8.0

/** How layers are spread over several GPUs. */
typedef enum cr_split {
	CR_SPLIT_LAYER = 0, /**< llama.cpp's default: each GPU holds whole layers, GPUs run in turn */
	CR_SPLIT_TENSOR     /**< tensor parallel (vLLM, llama.cpp -sm row): every GPU reads a slice of every layer at once */
} cr_split;

/** Most accelerators the per-device breakdown lists (llama.cpp's
 *  LLAMA_MAX_DEVICES is 16: src/llama-model.h via ggml's GGML_CUDA_MAX_DEVICES).
 *  A rig with more lists none and is judged on its pooled memory. */
#define CR_MAX_GPUS 16

/** What the tier is judged on. */
typedef enum cr_workload {
	CR_WORKLOAD_CHAT = 0, /**< decode tokens/s (the seeds' 20 / 8 t/s thresholds) */
	CR_WORKLOAD_DECIDE    /**< time-to-decision: prefill of prompt_tokens (thresholds below) */
} cr_workload;

/** Flash attention setting (llama.cpp -fa). */
typedef enum cr_flash_attn {
	CR_FA_AUTO = 0, /**< llama.cpp's default: on where every backend in use supports it */
	CR_FA_ON,
	CR_FA_OFF
} cr_flash_attn;

/** Options of an estimate. Initialise with CR_ESTIMATE_OPTS_INIT. */
typedef struct cr_estimate_opts {
	uint32_t n_ctx;          /**< context (KV cells, llama.cpp -c), tokens; shared by n_seq sequences */
	uint32_t n_seq;          /**< parallel sequences (-np) */
	uint32_t n_ubatch;       /**< physical batch (-ub) */
	cr_kv_type type_k;       /**< K cache type */
	cr_kv_type type_v;       /**< V cache type (quantized needs flash attention) */
	bool flash_attn;         /**< flash attention on (cr_estimate_resolve_opts resolves "auto") */
	uint32_t depth;          /**< tokens already in the cache when decoding, 0 (empty) to n_ctx;
				      CR_DEPTH_CONTEXT = n_ctx (a full cache) */
	uint32_t prompt_tokens;  /**< prompt for time-to-decision, at most n_ctx; 0 = min(n_ctx, 2048) */
	uint64_t headroom_bytes; /**< free memory wanted per device (tight below it) */
	uint64_t weights_bytes;  /**< deprecated: give exact bytes as a cr_weights (CR_WEIGHTS_EXACT) to
				      cr_estimate_run_weights instead; when set, it overrides a preset's size */
	bool swa_full;           /**< --swa-full: sliding layers keep the whole context */
	cr_split split;          /**< multi-GPU mode */
	int32_t gpu_layers;      /**< load_tensors slots on accelerators, llama.cpp -ngl N: the output
				      layer (output norm and weight, or the tied token table's copy)
				      first, then the last N - 1 repeating layers; 0 = none, n_layers + 1
				      or more = all; the rest in system RAM; -1 = as many as fit
				      (llama.cpp since PR 18148, December 2025:
				      i_gpu_start = max(n_layer + 1 - N, 0)) */
	bool cpu_moe;            /**< MoE expert tensors in system RAM (llama.cpp --cpu-moe) */
	cr_workload workload;    /**< what the tier is judged on */
	bool kv_unified;         /**< one KV stream shared by the sequences (llama.cpp --kv-unified) */
	uint32_t n_cpu_moe;      /**< the expert tensors of the first n_cpu_moe layers in system RAM
				      (llama.cpp --n-cpu-moe N); 0 none; cpu_moe (all) wins when set */
	uint64_t mmproj_device_bytes; /**< a vision projector's bytes on the first accelerator
					   (cr_vision_use.device_bytes: weights + compute); 0 none */
	uint64_t mmproj_host_bytes;   /**< its bytes in system RAM (cr_vision_use.host_bytes); on a rig
					   without accelerators both parts are system RAM */
	/** llama.cpp --tensor-split: the layer split's proportion per accelerator,
	 *  in the rig's device order (n_tensor_split entries, each >= 0, not all 0;
	 *  missing entries are 0). n_tensor_split 0: llama.cpp's default, each
	 *  accelerator in proportion to its free memory (cr_gpu_use.split). */
	double tensor_split[CR_MAX_GPUS];
	unsigned n_tensor_split;
	uint32_t n_outputs_max;  /**< logits rows the compute buffer reserves per micro-batch
				      (llama.cpp's n_outputs_max): 0 = a full micro-batch, as
				      llama.cpp's default; beside a draft, llama-server's target
				      reserves K + 1 per slot and its draft context one per
				      sequence (cr_plan_draft) */
	uint32_t kv_pad_cells;   /**< the KV cache is rounded up to a multiple of this many cells
				      per stream: 0 = current llama.cpp's 256 (CR_KV_PAD_CELLS, PR 17046);
				      an older build's rule where its logs are compared (builds of
				      May 2024 to October 2025: 256 with flash attention, 32 without,
				      PR 7257; PR 16812 to PR 17046: 1); at most 256 */
	bool gpu_layers_repeating; /**< gpu_layers counts repeating layers only, the output layer on
					the accelerators only when gpu_layers > n_layers: the rule of
					llama.cpp before PR 18148 (December 2025; i_gpu_start =
					n_layer - N), for comparing an older build's logs */
} cr_estimate_opts;

/** cr_estimate_opts.depth: decode with the whole context in the cache (the default). */
#define CR_DEPTH_CONTEXT UINT32_MAX

/** Cells llama.cpp rounds each KV stream up to (src/llama-context.cpp:
 *  cparams.n_ctx = GGML_PAD(cparams.n_ctx, 256), PR 17046, 2025-11). */
#define CR_KV_PAD_CELLS 256u

/** Default context when the user gives none: 8192, capped at the model's. */
#define CR_DEFAULT_CTX 8192u
/** llama.cpp's default free-memory margin per device (common/common.h fit_params_target). */
#define CR_DEFAULT_HEADROOM_BYTES (1024ull << 20)
/** Runtime overhead charged per discrete GPU: CUDA/ROCm/Vulkan context, cuBLAS
 *  workspace, driver reservation (design.md 0.3-0.8 GB; one logged case 770 MiB,
 *  calibration/measured_memory.md §3). */
#define CR_DISCRETE_RUNTIME_BYTES (512ull << 20)
/** The runtime reserve per discrete device, per backend: memory the runtime
 *  takes that no llama.cpp buffer line prints. The same 512 MiB for every
 *  backend, for want of evidence that tells them apart (the sources of
 *  CR_DISCRETE_RUNTIME_BYTES; docs/methodology.md "Runtime reserve per
 *  device" lists what was found: CUDA cards log 705-1250 MiB below their
 *  nominal size free at load, context, driver reservation and other
 *  processes together; no ROCm reading; Vulkan logs its heap budget):
 *  CUDA: the context and cuBLAS workspace; ROCm: the HIP context and hipBLAS
 *  workspace; Vulkan: the instance and the driver's reservation. Unified
 *  memory (Metal, integrated GPUs) has none: its usable_fraction (Metal's
 *  recommendedMaxWorkingSetSize) covers it. */
#define CR_RESERVE_CUDA_BYTES CR_DISCRETE_RUNTIME_BYTES
#define CR_RESERVE_ROCM_BYTES CR_DISCRETE_RUNTIME_BYTES
#define CR_RESERVE_VULKAN_BYTES CR_DISCRETE_RUNTIME_BYTES
/** llama.cpp's pipeline parallelism keeps this many copies of every graph
 *  input on each device (ggml/src/ggml-backend.cpp GGML_SCHED_MAX_COPIES,
 *  sched->n_copies = parallel ? GGML_SCHED_MAX_COPIES : 1). */
#define CR_SCHED_MAX_COPIES 4u
/** Smallest context worth calling a fit: one default micro-batch (n_ubatch). */
#define CR_MIN_FIT_CTX 512u
/** Default prompt for time-to-decision. */
#define CR_DEFAULT_PROMPT_TOKENS 2048u
/** Decide workload: fast when a decision takes at most 1 s, ok up to 5 s (clefrun's thresholds:
 *  interactive routing vs batch classification; docs/methodology.md). */
#define CR_TIER_FAST_DECIDE_S 1.0
#define CR_TIER_OK_DECIDE_S 5.0

#define CR_ESTIMATE_OPTS_INIT                                                           \
	{ .n_ctx = CR_DEFAULT_CTX, .n_seq = 1, .n_ubatch = 512, .type_k = CR_KV_F16,    \
	  .type_v = CR_KV_F16, .flash_attn = true, .depth = CR_DEPTH_CONTEXT, .prompt_tokens = 0,       \
	  .headroom_bytes = CR_DEFAULT_HEADROOM_BYTES, .weights_bytes = 0,                \
	  .swa_full = false, .split = CR_SPLIT_LAYER, .gpu_layers = -1, .cpu_moe = false, \
	  .workload = CR_WORKLOAD_CHAT, .kv_unified = false, .n_cpu_moe = 0,              \
	  .mmproj_device_bytes = 0, .mmproj_host_bytes = 0, .n_outputs_max = 0,          \
	  .kv_pad_cells = 0, .gpu_layers_repeating = false }

/** Memory breakdown, bytes, summed over all devices of the rig. */
typedef struct cr_memory {
	uint64_t weights_bytes;   /**< model weights resident anywhere (tied embeddings counted twice when split, as llama.cpp loads them;
				       on Metal with every layer offloaded, also cr_weights.mapped_extra_bytes: the host tensors
				       the device's mapping spans, counted on both sides as llama.cpp's buffers do) */
	uint64_t kv_bytes;        /**< KV cache */
	uint64_t state_bytes;     /**< recurrent (linear-attention) state */
	uint64_t compute_bytes;   /**< compute buffers, one per accelerator */
	uint64_t output_bytes;    /**< logits buffer (host) */
	uint64_t overhead_bytes;  /**< runtime context / driver reservation */
	uint64_t total_bytes;     /**< memory needed on the rig's tiers: device_bytes, plus host_bytes when the rig has system RAM (docs/cli.md) */
	uint64_t available_bytes; /**< memory the runtime may use on the tiers in play */
	uint64_t host_bytes;      /**< part of total in host memory (token embeddings, logits, offloaded layers) */
	uint64_t device_bytes;    /**< part of total on accelerators */
	uint64_t device_weights_bytes; /**< weights on accelerators (part of device_bytes): the
					    resident weights less the host-side token embeddings and
					    whatever is offloaded to system RAM; 0 on a CPU-only rig */
	uint64_t mmproj_bytes;    /**< the vision projector (opts mmproj_device_bytes +
				       mmproj_host_bytes), part of device_bytes and host_bytes */
} cr_memory;

/** Bytes on one device of a device group. */
typedef struct cr_device_use {
	uint64_t bytes_per_device; /**< memory used on each device of the group */
	uint64_t usable_per_device;/**< memory the runtime may use on each */
	uint64_t reserve_per_device; /**< the runtime's own reserve within bytes_per_device (a
				          discrete GPU's CR_RESERVE_*_BYTES; 0 elsewhere): a second
				          context on the device shares it (cr_plan_draft) */
	double layers_per_device;  /**< repeating layers held by each device (fractional for shares) */
} cr_device_use;

/** Bytes on one accelerator of a layer split over several (cr_estimate.gpus),
 *  as llama.cpp places them (src/llama-model.cpp load_tensors). */
typedef struct cr_gpu_use {
	unsigned group;            /**< the rig's device group it belongs to */
	double split;              /**< its share of the layer split, 0..1 */
	uint32_t layers;           /**< repeating layers it holds */
	bool output_layer;         /**< it holds the output layer (the last device with layers) */
	uint64_t weights_bytes;    /**< its model buffer */
	uint64_t kv_bytes;         /**< KV cache and recurrent state of its layers */
	uint64_t compute_bytes;    /**< its compute buffer (pipeline copies included) */
	uint64_t other_bytes;      /**< the first device only: op offload's weight copy, a vision
				        projector, Metal's mapped extra */
	uint64_t reserve_bytes;    /**< runtime reserve (CR_RESERVE_*_BYTES) */
	uint64_t total_bytes;      /**< the sum of the above */
	uint64_t usable_bytes;     /**< memory the runtime may use on it */
	int64_t margin_bytes;      /**< usable_bytes - total_bytes: what is left on it, negative
				        by what it is short (cr_estimate.free_bytes stops at 0) */
} cr_gpu_use;

/** The result of one estimate. */
typedef struct cr_estimate {
	cr_memory memory;          /**< at the requested context */
	cr_device_use devices[CR_MAX_DEVICE_GROUPS]; /**< per device group of the rig */
	/** Per accelerator, in the rig's order, when a layer split spreads the
	 *  model over several (n_gpus >= 2: CR_SPLIT_LAYER on a rig with 2 to
	 *  CR_MAX_GPUS accelerators); n_gpus 0 otherwise. The rig fits only if
	 *  every one does; limiting_gpu is the one with the least room left. */
	cr_gpu_use gpus[CR_MAX_GPUS];
	unsigned n_gpus;
	unsigned limiting_gpu;
	bool pipeline_parallel;    /**< llama.cpp runs the split with pipeline parallelism
				        (CR_SCHED_MAX_COPIES copies of the graph inputs) */
	bool gpus_filled;          /**< llama.cpp's fit placed the layers (common/fit.cpp): each
				        GPU, the last first, filled with whole layers up to its
				        margin, the tensor split their counts; not split in
				        proportion to free memory */
	uint64_t host_compute_bytes; /**< the host compute buffer beside them (CUDA_Host ...):
					  the F32 attention masks and the input embeddings of a
					  micro-batch; reported, not part of any total */
	uint32_t context;          /**< the requested context */
	uint32_t kv_cells_full;    /**< cells of a full-attention layer (n_ctx padded to 256) */
	uint32_t kv_cells_swa;     /**< cells of a sliding-window layer (0 if none) */
	uint64_t kv_bytes_per_token; /**< KV growth per token of context at this KV type
				          (cr_kv_profile.bytes_per_token) */
	uint64_t weights_read_bytes; /**< weight bytes read per decoded token */
	bool fits;                 /**< the requested context fits */
	uint32_t max_context;      /**< largest context that fits (multiple of 256, ≤ model max); 0 = none
				        (also when only a context below the 512-token minimum would: no-fit) */
	double offload_fraction;   /**< share of layer bytes in system RAM (0: all on accelerators) */
	uint32_t gpu_layers;       /**< repeating layers on accelerators (not the output layer:
				        with opts.gpu_layers N, 1 <= N <= n_layers, it is N - 1;
				        see output_layer_on_gpu) */
	bool output_layer_on_gpu;  /**< the output layer (output norm and weight) is on an accelerator */
	uint64_t free_bytes;       /**< usable memory left on the tier that limits */
	double decode_tokens_per_s;  /**< at `decode_depth`; 0 if it does not fit */
	double decode_tokens_per_s_low;  /**< out-of-sample 10th percentile of measured ÷ predicted */
	double decode_tokens_per_s_high; /**< 90th percentile */
	double prefill_tokens_per_s; /**< 0 if unknown (no TFLOPS figure) or no fit */
	double prefill_tokens_per_s_low;  /**< out-of-sample 10th percentile of measured ÷ predicted */
	double prefill_tokens_per_s_high; /**< 90th percentile */
	uint32_t prefill_depth;      /**< cached tokens before the prompt (opts.depth, within the context) */
	double decode_fixed_s;       /**< per-layer and compute part of one decode step, seconds */
	/** Why the speed figures are extrapolated ("" when measured rows cover
	 *  this backend, memory type, vendor, model kind, size and context). */
	char decode_note[112];
	char prefill_note[112];
	double decode_error_pct;     /**< the backend's leave-one-source-out median error, percent */
	double prefill_error_pct;
	double time_to_decision_s;   /**< prefill of prompt_tokens; 0 if unknown */
	uint32_t decode_depth;       /**< depth used for decode */
	uint32_t prompt_tokens;      /**< prompt used for time_to_decision_s */
	bool flash_attn;             /**< flash attention as estimated */
	bool speed_validated;        /**< false when the speeds come from a mode no measurement has checked:
					  tensor split over several GPUs (llama.cpp -sm row measures far below it) */
	char basis[256];             /**< one line: what bounds decode (tier, bandwidth, efficiency) */
	cr_tier tier;
} cr_estimate;

/** How the weights of an estimate are given. */
typedef enum cr_weights_kind {
	CR_WEIGHTS_PRESET = 0, /**< a quantization preset: params × bpw ÷ 8 (natively quantized
				    experts in their own type, cr_estimate_weights_bytes) */
	CR_WEIGHTS_EXACT       /**< exact tensor bytes, as a GGUF header gives them */
} cr_weights_kind;

/**
 * The weights of an estimate: either a preset or exact bytes. Build one with
 * cr_weights_preset or cr_weights_exact. Plain data; the preset is borrowed
 * and must outlive every call the cr_weights is passed to.
 */
typedef struct cr_weights {
	cr_weights_kind kind;
	const cr_quant *preset;  /**< CR_WEIGHTS_PRESET: the preset (bpw, base_type); NULL otherwise */
	uint64_t bytes;          /**< CR_WEIGHTS_EXACT: Σ tensor bytes over every part of the file */
	/** CR_WEIGHTS_EXACT: the ggml type holding the most tensor bytes ("Q4_K",
	 *  "BF16"; cr_estimate_weights_type picks it from bytes per type), "" when
	 *  unknown. It plays the part of a preset's base_type: F16 and BF16 take
	 *  the prefill's F16 GEMM path. */
	char type[CR_ID_MAX];
	/** CR_WEIGHTS_EXACT from a GGUF: cr_gguf_model.mapped_extra_bytes (0 when
	 *  unknown). On Metal, with every layer on the GPU, the device's model
	 *  buffer maps this much beyond the offloaded tensors (the token table
	 *  when it lies between them), and Metal's working set counts it. */
	uint64_t mapped_extra_bytes;
} cr_weights;

/** @p out = the preset @p quant (borrowed). */
void cr_weights_preset(const cr_quant *quant, cr_weights *out);

/** @p out = exact @p bytes whose main ggml type is @p type (NULL or "" when unknown). */
void cr_weights_exact(uint64_t bytes, const char *type, cr_weights *out);

/**
 * The ggml type holding the most bytes, from per-type byte sums (a GGUF's
 * tensors summed by type): @p names[i] and @p bytes[i] for @p n types.
 * Writes "" when there are none; ties go to the earlier type.
 */
void cr_estimate_weights_type(const char *const *names, const uint64_t *bytes, size_t n,
			      char *out, size_t cap);

/** Bytes of @p w for @p model: the exact bytes, or the preset's size
 *  (cr_estimate_weights_bytes with default options); 0 for a NULL or empty
 *  cr_weights. */
uint64_t cr_estimate_weights_size(const cr_model *model, const cr_weights *w);

/** Bits per weight of @p w for @p model: the preset's bpw, or exact bytes × 8
 *  ÷ params (0 without parameters). */
double cr_estimate_weights_bpw(const cr_model *model, const cr_weights *w);

/**
 * Estimate @p model with weights @p w on @p rig: the general form of
 * cr_estimate_run (which is this call with cr_weights_preset(quant)).
 * Exact weights are taken as they are: no preset rule (native experts,
 * bpw) applies, and opts->weights_bytes is ignored.
 * @return as cr_estimate_run; CR_ERR_INVALID also for a NULL @p w, a
 *   preset without its quant, or exact weights of 0 bytes.
 */
int cr_estimate_run_weights(const cr_model *model, const cr_weights *w, const cr_rig *rig,
			    const cr_estimate_opts *opts, cr_estimate *out, cr_error *err);

/**
 * What a caller asks for, before a model's defaults apply: cr_estimate_opts
 * plus the two settings that depend on the model (and rig). Initialise with
 * CR_ESTIMATE_REQUEST_INIT.
 */
typedef struct cr_estimate_request {
	cr_estimate_opts opts;    /**< every setting but n_ctx and flash_attn, which are replaced */
	uint32_t n_ctx;           /**< context, tokens; 0 = the default: CR_DEFAULT_CTX, or the
				       model's maximum context if that is smaller */
	cr_flash_attn flash_attn; /**< on, off, or auto: llama.cpp's rule for the model on the rig */
} cr_estimate_request;

/* Defaults: the estimator's defaults, the default context (0), flash attention by llama.cpp's rule. */
#define CR_ESTIMATE_REQUEST_INIT { .opts = CR_ESTIMATE_OPTS_INIT, .n_ctx = 0, .flash_attn = CR_FA_AUTO }

/** Which input of a request is out of range (cr_estimate_setup.bad). */
typedef enum cr_request_field {
	CR_REQUEST_OK = 0,  /**< nothing out of range */
	CR_REQUEST_CTX,     /**< n_ctx above the model's maximum context (limit: that maximum) */
	CR_REQUEST_DEPTH,   /**< opts.depth above the context (limit: the context) */
	CR_REQUEST_PROMPT   /**< opts.prompt_tokens above the context (limit: the context) */
} cr_request_field;

/** Options ready for cr_estimate_run, from cr_estimate_resolve_opts. */
typedef struct cr_estimate_setup {
	cr_estimate_opts opts;        /**< n_ctx defaulted, flash_attn resolved, the rest as requested */
	char flash_attn_reason[160];  /**< how flash attention resolved, one phrase
					   ("flash attention auto resolved to on: ...") */
	/** On CR_ERR_RANGE: which input, its value and the limit it passed, so
	 *  that a front end can name its own option; CR_REQUEST_OK and 0 otherwise. */
	cr_request_field bad;
	uint32_t bad_value;
	uint32_t bad_limit;
} cr_estimate_setup;

/**
 * The defaulted, range-checked options of an estimate of @p model on @p rig:
 * the one place of the default-context rule and of flash-attention "auto"
 * (cr_estimate_resolve_flash_attn). @p rig may be NULL for a rig-independent
 * figure (the single-device figure of curve.h); flash attention then resolves
 * for one CUDA GPU.
 *
 * Checks, in this order: the context against the model's maximum, the depth
 * and the prompt against the context (the same checks, with the same
 * messages, as cr_estimate_run's; everything else cr_estimate_run checks).
 * @return 0; CR_ERR_INVALID for a NULL argument or a model without a
 *   maximum context; CR_ERR_RANGE with out->bad naming the input (@p err's
 *   message speaks of the context, depth or prompt, not of any option name).
 *   out->opts is filled in either case.
 */
int cr_estimate_resolve_opts(const cr_model *model, const cr_rig *rig,
			     const cr_estimate_request *req, cr_estimate_setup *out, cr_error *err);

/** The KV cache and recurrent state of a model at some options
 *  (cr_estimate_kv_profile): how the cache is laid out and grows. */
typedef struct cr_kv_profile {
	uint32_t cell_pad;             /**< cells are allocated in multiples of this per stream (256, or kv_pad_cells) */
	uint32_t streams;              /**< KV streams: n_seq, or 1 with kv_unified */
	uint32_t full_layers;          /**< full-attention layers that keep a KV cache */
	uint32_t sliding_layers;       /**< sliding-window (or chunked) layers that keep one */
	uint32_t recurrent_layers;     /**< linear-attention layers: fixed state instead */
	uint64_t full_cell_bytes;      /**< K + V bytes of one cell over all full-attention layers */
	uint64_t sliding_cell_bytes;   /**< ... over all sliding layers */
	/** Growth per token of context once every window is full: one cell of
	 *  every full-attention layer (= full_cell_bytes = cr_estimate.kv_bytes_per_token). */
	uint64_t bytes_per_token;
	uint32_t cells_full;           /**< cells of a full-attention layer at opts.n_ctx (all streams) */
	uint32_t cells_sliding;        /**< cells of a sliding layer at opts.n_ctx (0 without a window) */
	uint32_t cells_sliding_cap;    /**< cells a sliding layer holds at any larger context: the
					    window cap, pad(window × (unified ? n_seq : 1) + n_ubatch)
					    per stream (0 without a window; with swa_full, cells_full) */
	uint64_t full_bytes;           /**< KV bytes of the full-attention layers at opts.n_ctx */
	uint64_t sliding_bytes;        /**< KV bytes of the sliding layers at opts.n_ctx */
	uint64_t kv_bytes;             /**< full_bytes + sliding_bytes = cr_estimate_kv_bytes */
	uint64_t state_bytes;          /**< recurrent state, all sequences = cr_estimate_state_bytes */
} cr_kv_profile;

/**
 * The KV profile of @p model at @p opts (n_ctx, n_seq, n_ubatch, K/V types,
 * flash_attn, swa_full, kv_unified): the figures cr_estimate_run's memory
 * is made of, so callers need not take differences of estimates or know
 * the 256-cell padding.
 * @return 0; CR_ERR_INVALID for a NULL argument, a zero context, sequence
 *   count or ubatch, or an incomplete model; CR_ERR_RANGE when the cache
 *   would exceed 2^60 bytes.
 */
int cr_estimate_kv_profile(const cr_model *model, const cr_estimate_opts *opts,
			   cr_kv_profile *out, cr_error *err);

/**
 * Estimate @p model at the preset @p quant on @p rig (opts->weights_bytes,
 * when set, replaces the preset's size: deprecated, see
 * cr_estimate_run_weights).
 * @return 0; CR_ERR_INVALID for a zero context/ubatch/seq or a rig without
 *   devices; CR_ERR_RANGE for a context above the model's maximum, a depth
 *   or prompt above the context, or an implausible architecture (KV cache beyond 2^60 bytes); CR_ERR_UNSUPPORTED
 *   for a quantized V cache without flash attention (llama.cpp refuses it),
 *   for layers or experts placed in system RAM (opts gpu_layers, cpu_moe,
 *   n_cpu_moe) on a rig without both GPUs and system RAM, and for expert
 *   offload (cpu_moe, n_cpu_moe) of a model that is not a mixture of experts. Messages speak of these
 *   settings in the estimator's terms, not of any command-line option.
 */
int cr_estimate_run(const cr_model *model, const cr_quant *quant,
		    const cr_rig *rig, const cr_estimate_opts *opts,
		    cr_estimate *out, cr_error *err);

/** KV cache bytes of @p model for opts->n_ctx (and n_seq, n_ubatch, types);
 *  UINT64_MAX when that would exceed 2^60 bytes. */
uint64_t cr_estimate_kv_bytes(const cr_model *model, const cr_estimate_opts *opts);

/** Recurrent state bytes of @p model for opts->n_seq sequences. */
uint64_t cr_estimate_state_bytes(const cr_model *model, const cr_estimate_opts *opts);

/** Weight bytes: opts->weights_bytes if set, else params × bpw ÷ 8. */
uint64_t cr_estimate_weights_bytes(const cr_model *model, const cr_quant *quant,
				   const cr_estimate_opts *opts);

/**
 * Resolve --flash-attn auto as llama.cpp does: on when every backend that
 * holds layers supports flash attention for the model's head sizes.
 * @param why receives a short reason ("resolved to on: ...").
 * @return the setting to put in cr_estimate_opts.flash_attn.
 */
bool cr_estimate_resolve_flash_attn(const cr_model *model, const cr_rig *rig, cr_flash_attn fa,
				    char *why, size_t why_cap);

/** One term of a memory or speed breakdown, for --explain. */
typedef struct cr_term {
	const char *name;     /**< "weights", "kv", ... (static) */
	double value;         /**< bytes, or tokens/s, or seconds (see unit) */
	const char *unit;     /**< "bytes", "tokens/s", "s" (static) */
	char formula[192];    /**< the formula with this case's numbers */
	const char *source;   /**< where the rule or constant comes from (static) */
} cr_term;

/**
 * The terms behind @p est (computed by cr_estimate_run with the same
 * arguments), for display. Writes up to @p max terms; returns how many.
 */
size_t cr_estimate_explain(const cr_model *model, const cr_quant *quant, const cr_rig *rig,
			   const cr_estimate_opts *opts, const cr_estimate *est, cr_term *terms,
			   size_t max);

/** cr_estimate_explain for an estimate made with cr_estimate_run_weights. */
size_t cr_estimate_explain_weights(const cr_model *model, const cr_weights *w, const cr_rig *rig,
				   const cr_estimate_opts *opts, const cr_estimate *est,
				   cr_term *terms, size_t max);

/** "fast", "ok", "slow", "tight", "unknown", "no-fit". */
const char *cr_tier_name(cr_tier t);
/** Parse a tier name; 0 or CR_ERR_INVALID. */
int cr_tier_parse(const char *s, cr_tier *out);
/** "f16", "q8_0", "q4_0". */
const char *cr_kv_type_name(cr_kv_type t);
int cr_kv_type_parse(const char *s, cr_kv_type *out);

#ifdef __cplusplus
}
#endif
#endif
