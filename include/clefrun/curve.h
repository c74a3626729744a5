/**
 * @file curve.h
 * @brief Memory against context: the series behind clefrun's report and
 * charts ("clefrun report", "clefrun chart").
 *
 * A curve is the estimator (estimate.h) run at a list of contexts, so every
 * point is the same memory figure "clefrun check" prints for that context:
 * weights + KV cache + recurrent state + compute buffers + output buffer +
 * runtime overhead. Pure like the estimator: plain structs in and out, no
 * I/O, no allocation; the caller supplies the arrays.
 *
 * The contexts are spaced evenly on a log scale (a chart's context axis),
 * rounded to multiples of 256 tokens (llama.cpp pads the KV cache to 256
 * cells, so memory only changes at those steps) and always end at the
 * model's maximum context.
 *
 * A rig-independent curve ("what one GPU needs", the figure web calculators
 * call VRAM) comes from cr_curve_one_gpu_rig: one discrete CUDA GPU with
 * room for any context, so nothing is offloaded and every term is counted
 * once: weights less the token-embedding table llama.cpp keeps in host
 * memory, KV cache, state, one compute buffer and 512 MiB of runtime.
 */
#ifndef CLEFRUN_CURVE_H
#define CLEFRUN_CURVE_H

#include <stddef.h>
#include <stdint.h>

#include "clefrun/catalog.h"
#include "clefrun/error.h"
#include "clefrun/estimate.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Most points cr_curve_contexts writes for any model (2^32 tokens at 16 per doubling). */
#define CR_CURVE_MAX_POINTS 520

/**
 * Contexts from @p lo to @p model's maximum context, @p per_doubling points
 * per doubling (1..16), rounded to multiples of 256 tokens, strictly
 * increasing, the last one the model's maximum. A @p lo of 0 or above the
 * maximum starts at min(512, maximum).
 *
 * @param out receives up to @p max contexts, tokens.
 * @return how many were written (0 when @p max is 0 or per_doubling is out
 *   of range); at most CR_CURVE_MAX_POINTS.
 */
size_t cr_curve_contexts(const cr_model *model, uint32_t lo, unsigned per_doubling, uint32_t *out,
			 size_t max);

/**
 * Memory of @p model at @p quant on @p rig at each of @p n contexts
 * (@p opts with its n_ctx replaced by each context in turn).
 *
 * @param out receives @p n memory breakdowns (cr_estimate.memory at that
 *   context, whether it fits or not).
 * @return 0, or the first error of cr_estimate_run (e.g. CR_ERR_RANGE for a
 *   context above the model's maximum), with @p err naming the context.
 */
int cr_curve_memory(const cr_model *model, const cr_quant *quant, const cr_rig *rig,
		    const cr_estimate_opts *opts, const uint32_t *ctx, size_t n, cr_memory *out,
		    cr_error *err);

/**
 * The rig of a rig-independent curve: one discrete CUDA GPU (id "one-gpu")
 * with 2^20 GiB of memory, 1000 GB/s and 100 FP16 TFLOPS. Only its memory
 * figures are meant to be read.
 */
void cr_curve_one_gpu_rig(cr_rig *out);

/**
 * The single-device figure: memory of @p model at @p quant and opts->n_ctx
 * on the rig of cr_curve_one_gpu_rig, i.e. what one GPU with room for
 * everything holds. It is the one memory figure `clefrun inspect` and
 * `clefrun report` print for a model, so that they cannot disagree:
 * out->total_bytes == out->device_bytes = weights less the token-embedding
 * table (plus the output copy of tied embeddings) + KV cache + state + one
 * compute buffer + 512 MiB of runtime overhead; out->host_bytes (token
 * embeddings, logits) is not part of it; out->weights_bytes counts every
 * resident weight as cr_estimate_run does.
 *
 * @return 0, or an error of cr_estimate_run (e.g. CR_ERR_RANGE for a
 *   context above the model's maximum; CR_ERR_UNSUPPORTED for a quantized V
 *   cache without flash attention), with @p err naming it.
 */
int cr_curve_one_gpu_memory(const cr_model *model, const cr_quant *quant,
			    const cr_estimate_opts *opts, cr_memory *out, cr_error *err);

/**
 * cr_curve_memory for weights given as a preset or exact bytes
 * (estimate.h cr_weights; a GGUF file's curve).
 */
int cr_curve_memory_weights(const cr_model *model, const cr_weights *w, const cr_rig *rig,
			    const cr_estimate_opts *opts, const uint32_t *ctx, size_t n,
			    cr_memory *out, cr_error *err);

/**
 * The single-device figure for weights given as a preset or exact bytes:
 * cr_curve_one_gpu_memory's figure (the same rig, the same terms), the one
 * call behind both `clefrun inspect` and `clefrun report`. Use
 * cr_estimate_resolve_opts with a NULL rig for @p opts (default context,
 * flash attention for one GPU).
 *
 * Why this figure (docs/decisions.md "One single-device figure"): it is what
 * one GPU holds when nothing is offloaded, so it is what a reader compares
 * with a card's VRAM: runtime overhead (512 MiB, a discrete GPU's CUDA
 * context) and one compute buffer are in it, the host buffers (token
 * embeddings, logits) are not. A CPU rig would count everything in RAM and
 * no runtime overhead, which answers a different question.
 *
 * @param out receives the memory; out->device_bytes == out->total_bytes is
 *   the figure, out->device_weights_bytes the weights on the GPU.
 * @return as cr_curve_one_gpu_memory.
 */
int cr_curve_one_gpu_weights(const cr_model *model, const cr_weights *w,
			     const cr_estimate_opts *opts, cr_memory *out, cr_error *err);

#ifdef __cplusplus
}
#endif
#endif
