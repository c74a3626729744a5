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
 *             + per-token latency)
 *   prefill = efficiency × FP16 FLOP/s / (2 × active params + attention)
 *
 * Byte counts are uint64_t bytes; speeds are tokens per second; times seconds.
 */
#ifndef CLEFRUN_ESTIMATE_H
#define CLEFRUN_ESTIMATE_H

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
	CR_TIER_NOFIT,    /**< does not fit even at the smallest context */
	CR_TIER_COUNT
} cr_tier;

/** Decode speed thresholds of the tiers (the seed pages' values). */
#define CR_TIER_FAST_TPS 20.0
#define CR_TIER_OK_TPS 8.0

/** Options of an estimate. Initialise with CR_ESTIMATE_OPTS_INIT. */
typedef struct cr_estimate_opts {
	uint32_t n_ctx;          /**< context (KV cells, llama.cpp -c), tokens */
	uint32_t n_seq;          /**< parallel sequences (-np) */
	uint32_t n_ubatch;       /**< physical batch (-ub) */
	cr_kv_type type_k;       /**< K cache type */
	cr_kv_type type_v;       /**< V cache type (quantized needs flash_attn) */
	bool flash_attn;         /**< flash attention on */
	uint32_t depth;          /**< tokens already in the cache when decoding; 0 = n_ctx */
	uint32_t prompt_tokens;  /**< prompt for time-to-decision; 0 = min(n_ctx, 2048) */
	uint64_t headroom_bytes; /**< free memory wanted per device (tight below it) */
	uint64_t weights_bytes;  /**< exact weight bytes (file size); 0 = params × bpw ÷ 8 */
} cr_estimate_opts;

/** Default context when the user gives none: 8192, capped at the model's. */
#define CR_DEFAULT_CTX 8192u
/** llama.cpp's default free-memory margin per device (common/common.h fit_params_target). */
#define CR_DEFAULT_HEADROOM_BYTES (1024ull << 20)

#define CR_ESTIMATE_OPTS_INIT \
	{ CR_DEFAULT_CTX, 1, 512, CR_KV_F16, CR_KV_F16, true, 0, 0, CR_DEFAULT_HEADROOM_BYTES, 0 }

/** Memory breakdown, bytes, summed over all devices of the rig. */
typedef struct cr_memory {
	uint64_t weights_bytes;   /**< model weights resident anywhere (tied embeddings counted twice when split, as llama.cpp loads them) */
	uint64_t kv_bytes;        /**< KV cache */
	uint64_t state_bytes;     /**< recurrent (linear-attention) state */
	uint64_t compute_bytes;   /**< compute buffers, one per accelerator */
	uint64_t output_bytes;    /**< logits buffer (host) */
	uint64_t overhead_bytes;  /**< runtime context / driver reservation */
	uint64_t total_bytes;     /**< sum of the above */
	uint64_t available_bytes; /**< memory the runtime may use on the tiers in play */
	uint64_t host_bytes;      /**< part of total in host memory (token embeddings, logits, offloaded layers) */
	uint64_t device_bytes;    /**< part of total on accelerators */
} cr_memory;

/** The result of one estimate. */
typedef struct cr_estimate {
	cr_memory memory;          /**< at the requested context */
	uint32_t context;          /**< the requested context */
	uint32_t kv_cells_full;    /**< cells of a full-attention layer (n_ctx padded to 256) */
	uint32_t kv_cells_swa;     /**< cells of a sliding-window layer (0 if none) */
	uint64_t kv_bytes_per_token; /**< KV growth per token of context at this KV type */
	uint64_t weights_read_bytes; /**< weight bytes read per decoded token */
	bool fits;                 /**< the requested context fits */
	uint32_t max_context;      /**< largest context that fits (multiple of 256, ≤ model max); 0 = none */
	double offload_fraction;   /**< share of layer bytes in system RAM (0: all on accelerators) */
	uint64_t free_bytes;       /**< usable memory left on the tier that limits */
	double decode_tokens_per_s;  /**< at `depth`; 0 if it does not fit */
	double prefill_tokens_per_s; /**< 0 if unknown (no TFLOPS figure) or no fit */
	double time_to_decision_s;   /**< prefill of prompt_tokens; 0 if unknown */
	uint32_t decode_depth;       /**< depth used for decode */
	uint32_t prompt_tokens;      /**< prompt used for time_to_decision_s */
	cr_tier tier;
} cr_estimate;

/**
 * Estimate @p model at @p quant on @p rig.
 * @return 0; CR_ERR_INVALID for a zero context/ubatch/seq, a context above
 *   the model's maximum or a rig without devices; CR_ERR_UNSUPPORTED for a
 *   quantized V cache without flash attention (llama.cpp refuses it).
 */
int cr_estimate_run(const cr_model *model, const cr_quant *quant,
		    const cr_rig *rig, const cr_estimate_opts *opts,
		    cr_estimate *out, cr_error *err);

/** KV cache bytes of @p model for opts->n_ctx (and n_seq, n_ubatch, types). */
uint64_t cr_estimate_kv_bytes(const cr_model *model, const cr_estimate_opts *opts);

/** Recurrent state bytes of @p model for opts->n_seq sequences. */
uint64_t cr_estimate_state_bytes(const cr_model *model, const cr_estimate_opts *opts);

/** Weight bytes: opts->weights_bytes if set, else params × bpw ÷ 8. */
uint64_t cr_estimate_weights_bytes(const cr_model *model, const cr_quant *quant,
				   const cr_estimate_opts *opts);

/** "fast", "ok", "slow", "tight", "no-fit". */
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
