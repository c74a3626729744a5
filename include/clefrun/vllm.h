/**
 * @file vllm.h
 * @brief The vLLM memory engine: what vLLM's start-up leaves for the KV
 * cache on one GPU, how it pages it, and whether it starts at all.
 *
 * vLLM (V1 engine; docs/vllm.md names the source files and the version read)
 * profiles one forward pass of max_num_batched_tokens tokens, then gives the
 * KV cache what is left of gpu_memory_utilization x the GPU's memory:
 *
 *   requested = total x gpu_memory_utilization
 *   KV bytes  = requested - (weights per GPU + non-torch memory
 *                            + activation peak of the profile run
 *                            + estimated CUDA graph memory)
 *
 * (vllm/v1/worker/gpu_worker.py determine_available_memory,
 * vllm/utils/mem_utils.py memory_profiling). The KV cache is then cut into
 * blocks of block_size tokens per layer group (vllm/v1/core/kv_cache_utils.py,
 * vllm/v1/kv_cache_interface.py): full-attention, sliding-window and
 * linear-attention (Mamba-style state) layers are grouped, each group's page
 * made the same size, and a request of max_model_len needs a number of blocks
 * from each group; maximum concurrency is blocks / blocks per request and the
 * "GPU KV cache size" in tokens is that concurrency x max_model_len. vLLM
 * refuses to start when the KV cache cannot hold one request of
 * max_model_len.
 *
 * Weights, the layout, the paging and the forward pass's activations follow
 * vLLM's code; non-torch memory, the sampler's share of the activation peak
 * and the CUDA graph estimate are measured by vLLM at start-up and modelled
 * here with constants taken from public start-up logs (docs/vllm.md says
 * which, bench/vllm-logs how well). Speed is not modelled.
 *
 * Pure: plain structs in and out, no I/O, no allocation.
 */
#ifndef CLEFRUN_VLLM_H
#define CLEFRUN_VLLM_H

#include <stdbool.h>
#include <stdint.h>

#include "clefrun/catalog.h"
#include "clefrun/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/** KV cache element type (--kv-cache-dtype). */
typedef enum cr_vllm_kv_dtype {
	CR_VLLM_KV_AUTO = 0, /**< the model's dtype (cr_vllm_opts.model_dtype_bytes) */
	CR_VLLM_KV_FP8,      /**< fp8, fp8_e4m3, fp8_e5m2: one byte */
	CR_VLLM_KV_BF16,     /**< bfloat16 / float16: two bytes */
	CR_VLLM_KV_FP32      /**< float32 */
} cr_vllm_kv_dtype;

/** Parse "auto", "fp8", "fp8_e4m3", "fp8_e5m2", "bfloat16", "float16",
 *  "half", "float32". @return 0 or CR_ERR_INVALID. */
int cr_vllm_kv_dtype_parse(const char *s, cr_vllm_kv_dtype *out);

/** vLLM's block size, tokens (vllm/config/cache.py: 16 on CUDA). */
#define CR_VLLM_BLOCK_SIZE 16
/** Default --gpu-memory-utilization (vllm/config/cache.py). */
#define CR_VLLM_GPU_UTIL 0.9

/** Settings, as vLLM's flags name them. Initialise with CR_VLLM_OPTS_INIT;
 *  0 means "vLLM's default" for each count. */
typedef struct cr_vllm_opts {
	double gpu_memory_utilization;     /**< (0, 1] */
	uint32_t max_model_len;            /**< 0: the model's context_max */
	uint32_t max_num_seqs;             /**< 0: vLLM's default for the GPU (docs/vllm.md) */
	uint32_t max_num_batched_tokens;   /**< 0: vLLM's default for the GPU */
	cr_vllm_kv_dtype kv_cache_dtype;
	uint32_t tensor_parallel_size;     /**< 0 or 1: one GPU */
	unsigned model_dtype_bytes;        /**< 2 (bf16/fp16) or 4; 0: 2 */
	bool enforce_eager;                /**< no CUDA graphs */
	bool no_prefix_caching;            /**< --no-enable-prefix-caching (on by default in V1) */
	/** --kv-cache-memory-bytes: skip the profile and give the KV cache
	 *  exactly this many bytes per GPU; 0: profile. */
	uint64_t kv_cache_memory_bytes;
} cr_vllm_opts;

#define CR_VLLM_OPTS_INIT                                                                            \
	{ .gpu_memory_utilization = CR_VLLM_GPU_UTIL, .max_model_len = 0, .max_num_seqs = 0,          \
	  .max_num_batched_tokens = 0, .kv_cache_dtype = CR_VLLM_KV_AUTO, .tensor_parallel_size = 1,  \
	  .model_dtype_bytes = 2, .enforce_eager = false, .no_prefix_caching = false,          \
	  .kv_cache_memory_bytes = 0 }

/** What vLLM would print at start-up, and what follows from it. Per GPU. */
typedef struct cr_vllm_result {
	uint32_t tensor_parallel_size;
	uint32_t max_model_len, max_num_seqs, max_num_batched_tokens; /**< as used (defaults resolved) */
	double total_gib;              /**< the GPU's memory */
	double requested_gib;          /**< total x gpu_memory_utilization */
	double weights_gib;            /**< "Model loading took": weights / TP */
	double non_torch_gib;          /**< modelled (docs/vllm.md) */
	double activation_gib;         /**< torch peak increase of the profile run: the larger of the two below */
	double activation_forward_gib; /**< the forward pass of max_num_batched_tokens tokens */
	double activation_sampler_gib; /**< the sampler's dummy run (float32 logits, top-k/top-p), modelled */
	double sampler_bytes_per_vocab; /**< the constant behind activation_sampler_gib: bytes per vocabulary
					     entry per request (docs/vllm.md) */
	double cuda_graph_gib;         /**< "Estimated CUDA graph memory", modelled; 0 when eager */
	double kv_gib;                 /**< "Available KV cache memory" (may be negative) */
	uint32_t block_size;           /**< tokens per block of the attention groups */
	uint64_t page_bytes;           /**< one block of one layer of each group */
	unsigned group_size;           /**< layers per group (the tensors that share a block) */
	unsigned n_groups;             /**< KV cache groups */
	uint64_t num_blocks;           /**< "GPU blocks" */
	uint64_t blocks_per_request;   /**< blocks one request of max_model_len takes */
	double max_concurrency;        /**< "Maximum concurrency for max_model_len tokens" */
	uint64_t kv_tokens;            /**< "GPU KV cache size: N tokens" */
	uint64_t kv_bytes_per_request; /**< what one request of max_model_len needs, bytes */
	bool refuses;                  /**< vLLM would not start (KV cannot hold one request) */
	uint32_t max_model_len_fit;    /**< the largest max_model_len that would start (0: none) */
} cr_vllm_result;

/**
 * Estimate vLLM's start-up on @p gpu (one device of a group: its
 * memory_gib is per GPU) for model @p m whose weights take @p weights_bytes
 * in all (split over the tensor-parallel GPUs).
 * @return 0; CR_ERR_RANGE for settings out of range (utilisation outside
 *   (0, 1], a max_model_len above 2^24 tokens, a tensor-parallel size that
 *   does not divide the attention heads); CR_ERR_INVALID for a model
 *   without attention layers. vLLM's refusal to start is no error: the
 *   result says so (refuses).
 */
int cr_vllm_estimate(const cr_model *m, uint64_t weights_bytes, const cr_device *gpu, const cr_vllm_opts *opts,
		     cr_vllm_result *out, cr_error *err);

#ifdef __cplusplus
}
#endif
#endif
