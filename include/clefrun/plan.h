/**
 * @file plan.h
 * @brief Serving plans: several sequences decoded at once (llama.cpp -np,
 * llama-batched-bench), expert and layer offload sweeps, and the changes
 * that make a model fit.
 *
 * Built on the single-sequence estimator (estimate.h) through its public
 * figures only, so that it follows whatever that model becomes:
 *
 *   T1      one decode step of one sequence = 1 / cr_estimate.decode_tokens_per_s
 *   T0      the same step with an empty cache (opts.depth = 0)
 *   F       cr_estimate.decode_fixed_s (per-layer times, paid once per step)
 *   W       T0 - F: reading the weights (and recurrent state)
 *   K       T1 - T0: reading one sequence's KV cache
 *   C       1 / cr_estimate.prefill_tokens_per_s: the compute of one token
 *
 * A step of N sequences reads the weights once, each sequence's own KV, and
 * multiplies N tokens (docs/plans.md):
 *
 *   T(N) = T1 + (N - 1) x (K + kappa x C) + W x s x (u(N)^gamma - 1)
 *   u(N) = (1 - (1 - k/E)^N) / (k/E)
 *
 * where s is the share of the weights read that are routed experts (k of E
 * used per token; 0 for a dense model) and u(N) how many times more distinct
 * experts N tokens touch than one. T(1) = T1: one sequence is exactly the
 * single-sequence figure. kappa (CR_PLAN_BATCH_COMPUTE) is the cost of a
 * decode token's multiplications relative to a prefill token's and gamma
 * (CR_PLAN_EXPERT_SPREAD) how far below the uniform-routing expert union the
 * experts' extra reads stay, both fitted by bench/batched-bench on llama-batched-bench
 * tables.
 *
 * Pure like the estimator: plain structs in and out, no I/O, no allocation.
 */
#ifndef CLEFRUN_PLAN_H
#define CLEFRUN_PLAN_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

#include "clefrun/catalog.h"
#include "clefrun/error.h"
#include "clefrun/estimate.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Most points cr_plan_parallel takes in one call. */
#define CR_PLAN_MAX_POINTS 32
/** Largest sequence count the saturation search tries (powers of two up to it). */
#define CR_PLAN_SATURATION_MAX 1024u
/** Aggregate decode "stops growing" when doubling the sequences gains less than this (5 %). */
#define CR_PLAN_SATURATION_GAIN 0.05

/** One decode step of N sequences, split into its parts (seconds). */
typedef struct cr_step_parts {
	double single_s;        /**< T1: one sequence's step, the single-sequence figure */
	double fixed_s;         /**< F: per-layer times, once per step */
	double weights_s;       /**< W: the weights (and recurrent state) read once */
	double kv_s;            /**< K: one sequence's KV cache read */
	double compute_s;       /**< C: one token's multiplications at prefill efficiency; 0 unknown */
	double expert_share;    /**< s: routed experts' share of the weights read (0 dense) */
	double expert_union;    /**< u(N): distinct experts N tokens read, relative to one token's */
} cr_step_parts;

/** One row of a parallel-sequence plan. */
typedef struct cr_parallel_point {
	uint32_t n_seq;               /**< sequences decoded together (-np) */
	cr_estimate estimate;         /**< the single-sequence estimate at n_seq (memory, fit) */
	uint32_t context_per_seq;     /**< context each sequence can hold: n_ctx / n_seq */
	uint32_t decode_depth;        /**< tokens in each sequence's cache while decoding */
	cr_step_parts parts;          /**< the step's parts at this n_seq */
	double step_s;                /**< T(N): one step, every sequence one token */
	double per_seq_tokens_per_s;  /**< 1 / T(N); 0 when it does not fit at all */
	double aggregate_tokens_per_s;/**< N / T(N) */
	bool compute_bound;           /**< N x kappa x C exceeds the bytes' time (W u + N K) */
	uint32_t prompt_tokens;       /**< prompt of one decision */
	double prefill_tokens_per_s;  /**< N prompts prefilled together; 0 unknown */
	double decisions_per_s;       /**< prefill_tokens_per_s / prompt_tokens */
	double decision_latency_s;    /**< one decision under that load: N prompts / prefill rate */
} cr_parallel_point;

/**
 * Cost of a batched decode token's multiplications relative to a prefill
 * token's (kappa above): small batches run matrix-vector kernels, far from
 * the GEMM efficiency prefill reaches. Fitted by bench/batched-bench on the
 * llama-batched-bench rows of bench/data/batched_bench.csv (docs/plans.md).
 */
#define CR_PLAN_BATCH_COMPUTE 2.2
/**
 * Exponent on the uniform-routing expert union u(N) that batched MoE decode
 * pays (gamma above): routers favour some experts, and one token's expert
 * reads are not all bandwidth-bound, so N tokens cost less than u(N) times
 * one token's expert bytes. Fitted by bench/batched-bench.
 */
#define CR_PLAN_EXPERT_SPREAD 0.75

/**
 * The plan of @p model with weights @p w on @p rig for each of @p n
 * sequence counts @p n_seq (1..4096, at most CR_PLAN_MAX_POINTS), with
 * @p opts (its n_seq replaced; opts->n_ctx is the whole context the
 * sequences share, as llama.cpp -c). Each sequence decodes at
 * min(opts->depth, n_ctx / n_seq) cached tokens (a full cache by default).
 * A decision is one prefill of opts->prompt_tokens (0: the estimate's
 * default); N of them run as one batch of min(N x prompt, max(prompt,
 * n_ubatch)) tokens per micro-batch.
 * @return 0; any error of cr_estimate_run_weights; CR_ERR_INVALID for
 *   NULL arguments, n of 0 or above CR_PLAN_MAX_POINTS, or a count of 0;
 *   CR_ERR_RANGE for a count above opts->n_ctx (no token per sequence).
 */
int cr_plan_parallel(const cr_model *model, const cr_weights *w, const cr_rig *rig,
		     const cr_estimate_opts *opts, const uint32_t *n_seq, size_t n,
		     cr_parallel_point *out, cr_error *err);

/**
 * The sequence count where aggregate decode stops growing: the smallest
 * power of two N (up to CR_PLAN_SATURATION_MAX and to n_ctx / 256, one
 * padded stream per sequence) whose doubling gains less than
 * CR_PLAN_SATURATION_GAIN. *out = 0 when no doubling in that range falls
 * below it.
 * @return as cr_plan_parallel.
 */
int cr_plan_saturation(const cr_model *model, const cr_weights *w, const cr_rig *rig,
		       const cr_estimate_opts *opts, uint32_t *out, cr_error *err);

/** What an offload sweep varies. */
typedef enum cr_sweep_kind {
	CR_SWEEP_CPU_MOE = 0, /**< opts.n_cpu_moe from 0 (every expert on the GPUs) to n_layers (MoE only) */
	CR_SWEEP_GPU_LAYERS   /**< opts.gpu_layers from n_layers + 1 (all on the GPUs, the output
			           layer's slot included, as llama.cpp -ngl counts it) down to 0 */
} cr_sweep_kind;

/** Most points of a sweep: one per slot count, 0 to CR_MAX_LAYERS + 1 (the output layer's slot). */
#define CR_PLAN_SWEEP_MAX (CR_MAX_LAYERS + 2)

/** One setting of an offload sweep. */
typedef struct cr_sweep_point {
	uint32_t value;       /**< the --n-cpu-moe N or -ngl N of this point */
	cr_estimate estimate; /**< the estimate at it: device_bytes (VRAM), max_context, decode */
} cr_sweep_point;

/**
 * The estimate of @p model with @p w on @p rig at every setting of @p kind,
 * in order of increasing offload (n_cpu_moe 0, 1, ... n_layers; gpu_layers
 * n_layers + 1, n_layers, ... 0, as current llama.cpp's -ngl counts the output
 * layer first: n_layers + 1 everything, 1 the output layer alone), with @p opts
 * otherwise (its cpu_moe, n_cpu_moe, gpu_layers and gpu_layers_repeating
 * replaced; expert offload keeps every layer on the GPUs, as llama.cpp
 * -ngl 99 --n-cpu-moe N). *@p recommended is the index of the
 * first point that fits opts->n_ctx, the least offload that does, or
 * SIZE_MAX when none does.
 * @param out receives *n points, at most @p cap (n_layers + 1 are needed for
 *   n_cpu_moe, n_layers + 2 for gpu_layers; CR_PLAN_SWEEP_MAX is enough for any).
 * @return 0; CR_ERR_INVALID for NULL arguments or @p cap below that;
 *   any error of cr_estimate_run_weights (CR_ERR_UNSUPPORTED for expert
 *   offload of a dense model or on a rig without GPUs and system RAM).
 */
int cr_plan_sweep(const cr_model *model, const cr_weights *w, const cr_rig *rig,
		  const cr_estimate_opts *opts, cr_sweep_kind kind, cr_sweep_point *out, size_t cap,
		  size_t *n, size_t *recommended, cr_error *err);

/** A change that makes a row fit, in the order cr_plan_fixes lists them (docs/plans.md). */
typedef enum cr_fix_kind {
	CR_FIX_KV_Q8 = 0,   /**< K and V cache in q8_0 (needs flash attention) */
	CR_FIX_NO_MMPROJ_OFFLOAD, /**< the vision projector in system RAM (llama.cpp --no-mmproj-offload):
				       costs image encoding time only */
	CR_FIX_N_CPU_MOE,   /**< the smallest --n-cpu-moe N, every layer on the GPUs (MoE) */
	CR_FIX_GPU_LAYERS,  /**< the largest -ngl N */
	CR_FIX_QUANT,       /**< the largest smaller preset (a catalog model's preset weights only) */
	CR_FIX_KV_Q4,       /**< K and V cache in q4_0 (needs flash attention) */
	CR_FIX_FEWER_SLOTS, /**< the most parallel sequences that fit, each keeping its context */
	CR_FIX_CONTEXT,     /**< the largest context that fits (of at least 512 tokens) */
	CR_FIX_COUNT
} cr_fix_kind;

/** One change and the estimate it gives. */
typedef struct cr_fix {
	cr_fix_kind kind;
	cr_estimate_opts opts;  /**< the options with the change made */
	const cr_quant *quant;  /**< CR_FIX_QUANT: the preset (borrowed from the caller's list); else NULL */
	cr_estimate estimate;   /**< at opts (and quant): fits with the headroom (not tight) */
} cr_fix;

/** "kv-q8_0", "no-mmproj-offload", "n-cpu-moe", "gpu-layers", "quant", "kv-q4_0", "parallel", "context". */
const char *cr_fix_kind_name(cr_fix_kind k);

/**
 * What to change to make @p model with @p w fit @p rig with room to spare
 * (fits, and not tight): at most one candidate per cr_fix_kind, the least
 * change of that kind that does it, in cr_fix_kind order: what costs neither
 * quality nor speed first (q8_0 KV), then what costs only image encoding
 * (a vision projector in system RAM, when opts has one on the GPU: its
 * mmproj_device_bytes move to mmproj_host_bytes), then speed (expert or layer offload),
 * then quality (a smaller quant, q4_0 KV), then capability (fewer slots, a
 * shorter context). A kind that does not apply (expert offload of a dense
 * model, offload on a rig without GPUs and system RAM, a quant for exact
 * weights, a KV type already in use, one slot) or that no setting of makes
 * fit is left out. @p quants (@p nq of them, may be 0) are the presets a
 * smaller quant is chosen from; @p now receives the estimate at @p opts.
 * @param out receives *n fixes, at most @p cap (CR_FIX_COUNT suffices).
 * @return 0 (also when the row fits already: *n = 0); CR_ERR_INVALID for
 *   NULL arguments; errors of cr_estimate_run_weights for @p opts itself.
 */
int cr_plan_fixes(const cr_model *model, const cr_weights *w, const cr_rig *rig,
		  const cr_estimate_opts *opts, const cr_quant *const *quants, size_t nq, cr_fix *out,
		  size_t cap, size_t *n, cr_estimate *now, cr_error *err);

/** Speculative decoding (docs/plans.md "Draft models"): a draft model (llama-server -md DRAFT
 *  --spec-type draft-simple --spec-draft-n-max K; before llama.cpp v0.4.0, --draft-max K) or the
 *  model's own multi-token-prediction layers (--spec-type draft-mtp, cr_plan_mtp).
 *
 *  One step of llama.cpp v0.4.0's loop (common/speculative.cpp, tools/server/server-context.cpp):
 *  the drafter decodes K tokens one at a time (the last sampled token, then each drafted one
 *  but the last), the target checks the last token and the K drafted ones in one pass, and the
 *  drafter then decodes that same batch of K + 1 tokens again to keep its cache in step with the
 *  target's (server-context.cpp:3725 "always re-evaluate", TAG_SPEC_AVOID_DRAFT_REEVAL). */
typedef struct cr_draft_plan {
	cr_estimate target;        /**< the target as llama-server holds it beside the drafter: memory,
				        fit, tier and per-device figures of opts' n_seq slots with
				        logits for K + 1 outputs per slot (and, for MTP, the MTP
				        layers' weights); speeds of one sequence alone */
	cr_estimate draft;         /**< a draft model alone on the same rig, at llama-server's draft
				        context: opts with f16 KV (-ctkd/-ctvd), logits for one output
				        per sequence (n_outputs_max) and no vision projector.
				        cr_plan_mtp: memory only, the MTP context's KV, compute and
				        output buffers (the MTP weights are the target's) */
	bool mtp;                  /**< drafted by the model's MTP layers (cr_plan_mtp) */
	uint32_t draft_max;        /**< K: tokens drafted per step */
	double accept;             /**< r: llama-server's draft acceptance at K, accepted / drafted
				        tokens (server-context.cpp "draft acceptance = accepted /
				        generated") */
	double alpha;              /**< the per-token acceptance probability that gives r at K when
				        each drafted token is accepted independently, given the ones
				        before it (Leviathan et al. 2023's alpha): cr_plan_draft_alpha */
	double tokens_per_step;    /**< 1 + r K = (1 - alpha^(K+1)) / (1 - alpha) */
	double cost_ratio;         /**< c: one draft step / one target step */
	double step_s;             /**< K draft steps + the target's pass over K + 1 tokens + the
				        drafter's pass over the same K + 1 */
	double tokens_per_s;       /**< tokens_per_step / step_s; 0 when either does not fit */
	double speedup;            /**< tokens_per_s / the target alone */
	double accept_low;         /**< r at alpha - CR_PLAN_DRAFT_ALPHA_BAND */
	double accept_high;        /**< r at alpha + CR_PLAN_DRAFT_ALPHA_BAND (alpha at most 0.99) */
	double speedup_low;        /**< the speed-up at accept_low */
	double speedup_high;       /**< the speed-up at accept_high */
	uint64_t extra_bytes;      /**< the drafter's bytes beside the target's: a draft model's
				        weights, KV and buffers; the MTP context's KV and buffers */
	bool fits;                 /**< every device holds its share of target and drafter with the
				        headroom to spare (each GPU of a layer split on its own) */
} cr_draft_plan;

/** llama.cpp's default number of drafted tokens: llama.cpp v0.4.0 (ggml-org/llama.cpp
 *  80fb11ac, 2026-09-12) common/common.h:326, common_params_speculative_draft::n_max = 3,
 *  printed by common/arg.cpp:4150 (--spec-draft-n-max, "default: 3"), and the same in the
 *  later master snapshot 001d906. Releases before v0.4.0 had common_params_speculative::n_max
 *  = 16 (common/common.h @de93b99), the value clefrun used until now. */
#define CR_PLAN_DRAFT_MAX_DEFAULT 3u
/** Default per-token acceptance alpha: the median over the 54 draft-model rows of
 *  bench/data/speculative.csv with an acceptance and a K of the alpha each row's acceptance
 *  gives at its K (0.794; their acceptance itself has median 0.52, at K = 5 mostly).
 *  bench/speculative-bench prints it; docs/plans.md. */
#define CR_PLAN_DRAFT_ALPHA_DEFAULT 0.80
/** Acceptance varies with the task (code, chat, math): the band is alpha +/- 0.12, half the
 *  spread of those rows' 10th-90th percentile alpha (0.65-0.89, bench/speculative-bench). */
#define CR_PLAN_DRAFT_ALPHA_BAND 0.12

/** llama-server's acceptance at K (accepted / drafted) when each drafted token is accepted
 *  with probability @p alpha given the ones before it: alpha (1 - alpha^K) / ((1 - alpha) K).
 *  0 for alpha <= 0, 1 for alpha >= 1; @p k of 0 is taken as 1. */
double cr_plan_draft_rate(double alpha, uint32_t k);

/** The inverse of cr_plan_draft_rate: the alpha that gives acceptance @p rate at @p k
 *  (0 for rate <= 0, 1 for rate >= 1). */
double cr_plan_draft_alpha(double rate, uint32_t k);

/**
 * Speculative decoding of @p model (weights @p w) with the draft @p draft
 * (weights @p dw) on @p rig at @p opts: K = @p draft_max (0: the default)
 * tokens drafted per step with llama-server's acceptance @p accept at that K
 * (accepted / drafted tokens, 0..1; a negative value: the rate
 * CR_PLAN_DRAFT_ALPHA_DEFAULT gives at K). A step costs K draft steps, one
 * target pass over K + 1 tokens of the same sequence (the weights read once,
 * the KV once, K more tokens' compute: plan.h's step model at one sequence)
 * and the draft's pass over the same K + 1 tokens.
 * @return 0; CR_ERR_INVALID for NULL arguments or an acceptance above 1;
 *   errors of cr_estimate_run_weights for either model.
 */
int cr_plan_draft(const cr_model *model, const cr_weights *w, const cr_model *draft,
		  const cr_weights *dw, const cr_rig *rig, const cr_estimate_opts *opts,
		  uint32_t draft_max, double accept, cr_draft_plan *out, cr_error *err);

/**
 * Speculative decoding of @p model (weights @p w) by its own MTP layers
 * (cr_model.mtp_layers; llama-server --spec-type draft-mtp), as cr_plan_draft
 * otherwise. llama.cpp v0.4.0 then loads the MTP layers' weights beside the
 * trunk (common/common.cpp:1714 load_mtp) and makes a second context on the
 * target's model for them (common/speculative.cpp:2559-2569,
 * LLAMA_CONTEXT_TYPE_MTP: their KV at the target's context, f16 by default).
 * @p mtp_bytes are those weights (a GGUF's cr_gguf_model.mtp_bytes); 0: the
 * mean layer of @p w plus the MTP block's eh_proj (2 hidden x hidden). One
 * drafted token runs one MTP layer and the output head; the catch-up pass
 * over the K + 1 verified tokens runs the layer without the head. With more
 * than one MTP layer llama.cpp chains them, one per drafted token, and K is
 * at most their number (the impl's n_max = min(n_max, n_mtp_layers)).
 * @return 0; CR_ERR_UNSUPPORTED when the model has no MTP layers; otherwise
 *   as cr_plan_draft.
 */
int cr_plan_mtp(const cr_model *model, const cr_weights *w, const cr_rig *rig,
		const cr_estimate_opts *opts, uint64_t mtp_bytes, uint32_t draft_max, double accept,
		cr_draft_plan *out, cr_error *err);

#ifdef __cplusplus
}
#endif
#endif
