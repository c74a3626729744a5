/**
 * @file engine.h
 * @brief Front-end profiles: the defaults llama-server, Ollama and LM Studio
 *        apply before llama.cpp sizes its memory.
 *
 * Most people do not run llama.cpp by hand: a front-end picks the context,
 * the parallel slots (and whether their KV cache is unified), flash
 * attention, the KV-cache type and the batch, and so the memory. A profile
 * turns a cr_estimate_request into the request that front-end would make,
 * given what the user set explicitly (explicit settings always win), the rig
 * (Ollama's default context depends on the GPU memory it sees) and the model
 * (its trained context caps the context). Every default comes back with
 * where it came from, for --explain and JSON. docs/engines.md gives each
 * default, its value and the source line it was read from.
 *
 * Pure: no I/O, no allocation, no environment. The environment variables a
 * front-end reads (OLLAMA_CONTEXT_LENGTH, ...) are passed in as strings by
 * the caller (cr_engine_env).
 */
#ifndef CLEFRUN_ENGINE_H
#define CLEFRUN_ENGINE_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

#include "clefrun/catalog.h"
#include "clefrun/decide.h"
#include "clefrun/error.h"
#include "clefrun/estimate.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * The engines, as X(ENUMERATOR, "name"): the enum below, the names
 * cr_engine_name and cr_engine_parse use and the CLI's --engine values all
 * come from this list, so a new engine is one line here (and its profile in
 * cr_engine_apply; an engine without one keeps the request as it is).
 *   LLAMACPP      plain llama.cpp with clefrun's defaults (context 8192, one sequence)
 *   LLAMA_SERVER  llama-server as started with only -m
 *   OLLAMA        Ollama's server, which starts llama-server itself
 *   LMSTUDIO      LM Studio's llama.cpp engine (closed source: partly unsourced)
 */
#define CR_ENGINE_LIST(X)                \
	X(LLAMACPP, "llamacpp")          \
	X(LLAMA_SERVER, "llama-server")  \
	X(OLLAMA, "ollama")              \
	X(LMSTUDIO, "lmstudio")

#define CR_ENGINE_ENUMERATOR_(e, name) CR_ENGINE_##e,

/** The runtime whose defaults an estimate takes (CR_ENGINE_LIST). */
typedef enum cr_engine {
	CR_ENGINE_LIST(CR_ENGINE_ENUMERATOR_)
	CR_ENGINE_COUNT
} cr_engine;

/** The engine's name in CR_ENGINE_LIST ("llamacpp", "llama-server", ...); "?" out of range. */
const char *cr_engine_name(cr_engine e);

/** Parse an engine name (exact, as cr_engine_name writes it).
 *  @return 0, or CR_ERR_INVALID (out untouched). */
int cr_engine_parse(const char *s, cr_engine *out);

/**
 * The front-end's environment as the caller read it: each field is the
 * variable's value or NULL when unset. Only the Ollama profile reads them.
 * Borrowed for the call.
 */
typedef struct cr_engine_env {
	const char *context_length;  /**< OLLAMA_CONTEXT_LENGTH */
	const char *num_parallel;    /**< OLLAMA_NUM_PARALLEL */
	const char *flash_attention; /**< OLLAMA_FLASH_ATTENTION */
	const char *kv_cache_type;   /**< OLLAMA_KV_CACHE_TYPE */
	const char *gpu_overhead;    /**< OLLAMA_GPU_OVERHEAD, bytes */
} cr_engine_env;

#define CR_ENGINE_ENV_INIT { .context_length = NULL, .num_parallel = NULL, .flash_attention = NULL, \
			     .kv_cache_type = NULL, .gpu_overhead = NULL }

/** Which settings of the request the user gave explicitly (they are kept). */
typedef struct cr_engine_given {
	bool n_ctx;       /**< the context (for Ollama: num_ctx, per parallel slot) */
	bool n_seq;       /**< parallel sequences */
	bool kv_unified;  /**< unified KV cache */
	bool flash_attn;
	bool type_k;
	bool type_v;
	bool n_ubatch;
	bool gpu_layers;  /**< layers on the GPU (llama-server --fit does not move them then) */
} cr_engine_given;

#define CR_ENGINE_GIVEN_INIT { .n_ctx = false, .n_seq = false, .kv_unified = false, .flash_attn = false, \
			       .type_k = false, .type_v = false, .n_ubatch = false, .gpu_layers = false }

/** Where a default came from. */
typedef enum cr_origin {
	CR_ORIGIN_ENGINE = 0, /**< the front-end's built-in default (source: its code) */
	CR_ORIGIN_USER,       /**< an explicit setting */
	CR_ORIGIN_ENV,        /**< an environment variable of the front-end */
	CR_ORIGIN_RIG,        /**< a rule on the rig (Ollama's GPU-memory tiers) */
	CR_ORIGIN_MODEL,      /**< the model (its trained context) */
	CR_ORIGIN_FIT,        /**< changed after a first estimate (llama-server --fit, Ollama's batch) */
	CR_ORIGIN_UNSOURCED,  /**< an assumption no public source states */
	CR_ORIGIN_COUNT
} cr_origin;

/** "engine", "user", "env", "rig", "model", "fit", "unsourced". */
const char *cr_origin_name(cr_origin o);

/** One setting of a profile and where its value came from. */
typedef struct cr_engine_default {
	const char *name;     /**< "context", "parallel", "kv_unified", ... (static) */
	char value[40];       /**< the value as the front-end would take it ("32768", "on") */
	cr_origin origin;
	char why[128];        /**< this case's reason ("GPU memory 23.5 GiB >= 23 GiB"), may be "" */
	const char *source;   /**< file, version and line it was read from, or why unsourced (static) */
} cr_engine_default;

#define CR_ENGINE_MAX_DEFAULTS 14

/** A request with a front-end's defaults applied (cr_engine_apply). */
typedef struct cr_engine_profile {
	cr_engine engine;
	/** For cr_estimate_resolve_opts: n_ctx is the total context (-c), n_seq the slots. */
	cr_estimate_request req;
	uint32_t ctx_per_seq;     /**< Ollama's num_ctx, the context one request sees; else req.n_ctx */
	bool fit_ctx;             /**< llama-server --fit may lower the context (it was not given) */
	uint32_t fit_min_ctx;     /**< ... down to this (--fit-ctx) */
	bool fit_layers;          /**< the front-end places layers itself (no explicit GPU layers) */
	bool auto_batch;          /**< Ollama picks the batch from the context and a memory prediction */
	cr_engine_default defaults[CR_ENGINE_MAX_DEFAULTS];
	size_t n_defaults;
} cr_engine_profile;

/**
 * Apply @p e's defaults to @p req for @p model on @p rig. @p given says which
 * settings of @p req the user set (those are kept, origin user); @p env (may
 * be NULL) holds the front-end's environment. CR_ENGINE_LLAMACPP copies @p req
 * unchanged and lists no defaults (today's behaviour).
 * @return 0; CR_ERR_INVALID for a NULL argument or an environment value the
 *   front-end would not take (the message names the variable and its value);
 *   CR_ERR_UNSUPPORTED for a KV type clefrun does not model (named likewise).
 */
int cr_engine_apply(cr_engine e, const cr_model *model, const cr_rig *rig,
		    const cr_estimate_request *req, const cr_engine_given *given,
		    const cr_engine_env *env, cr_engine_profile *out, cr_error *err);

/**
 * Estimate as the front-end would end up running: cr_estimate_run_weights at
 * @p opts (from cr_estimate_resolve_opts on @p p->req), then the front-end's
 * own adjustments after its memory prediction:
 *  - llama-server --fit (p->fit_ctx): when the model does not fit at the full
 *    context, or only with layers in system RAM, the context is lowered first
 *    (to the largest that fits on the accelerators, not below p->fit_min_ctx),
 *    and only then are layers moved to system RAM;
 *  - Ollama (p->auto_batch): the batch grows to 1024 above 4096 tokens and
 *    2048 above 32768 where its memory prediction leaves room.
 * Each adjustment is appended to p->defaults (origin fit). @p final receives
 * the options of the final estimate (may be NULL).
 * @return as cr_estimate_run_weights.
 */
int cr_engine_estimate(cr_engine_profile *p, const cr_model *model, const cr_weights *w,
		       const cr_rig *rig, const cr_estimate_opts *opts, cr_estimate *out,
		       cr_estimate_opts *final, cr_error *err);

/**
 * The best quant of @p model on @p rig as cr_decide_best_quant chooses it
 * (decide.h), each candidate estimated by cr_engine_estimate under @p p. On
 * success p->defaults also holds the adjustments of the chosen candidate, and
 * @p final (may be NULL) the options of its estimate.
 * @return as cr_decide_best_quant.
 */
int cr_engine_best_quant(cr_engine_profile *p, const cr_model *model,
			 const cr_quant *const *quants, size_t n_quants, const cr_rig *rig,
			 const cr_estimate_opts *opts, cr_tier require, cr_best_quant *out,
			 cr_estimate_opts *final, cr_error *err);

/** Ollama's default context for a total GPU memory (bytes, each GPU's total
 *  less OLLAMA_GPU_OVERHEAD): 262144 from 47 GiB, 32768 from 23 GiB, else 4096. */
uint32_t cr_engine_ollama_default_ctx(uint64_t gpu_bytes);

/** The GPU memory Ollama sums for its default context on @p rig, less
 *  @p overhead_bytes per GPU (never below 0 per GPU). */
uint64_t cr_engine_ollama_gpu_bytes(const cr_rig *rig, uint64_t overhead_bytes);

#ifdef __cplusplus
}
#endif
#endif
