/*
 * Memory against context (curve.h): the estimator run at log-spaced
 * contexts. Nothing here re-derives a memory term; every point is
 * cr_estimate_run's, so a chart can never disagree with "clefrun check".
 */
#include "clefrun/curve.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "util.h"

/* llama.cpp pads the KV cache to 256 cells (src/llama-kv-cache.cpp), so
 * memory is a step function of the context with 256-token steps. */
#define CURVE_STEP 256u
#define CURVE_LO 512u

size_t cr_curve_contexts(const cr_model *m, uint32_t lo, unsigned per_doubling, uint32_t *out,
			 size_t max)
{
	uint32_t hi;
	size_t n = 0;

	if (!m || !out || !max || per_doubling < 1 || per_doubling > 16 || !m->context_max)
		return 0;
	if (max > CR_CURVE_MAX_POINTS)
		max = CR_CURVE_MAX_POINTS;
	hi = m->context_max;
	if (!lo || lo > hi)
		lo = hi < CURVE_LO ? hi : CURVE_LO;
	out[n++] = lo;
	for (unsigned k = 1; n < max; k++) {
		double c = (double)lo * exp2((double)k / per_doubling);
		double r = floor(c / CURVE_STEP + 0.5) * CURVE_STEP;

		if (c >= hi || r >= hi)
			break;
		if (r > out[n - 1])
			out[n++] = (uint32_t)r;
	}
	if (out[n - 1] != hi) {
		if (n == max)
			n--;
		out[n++] = hi;
	}
	return n;
}

int cr_curve_memory(const cr_model *m, const cr_quant *q, const cr_rig *rig,
		    const cr_estimate_opts *opts, const uint32_t *ctx, size_t n, cr_memory *out,
		    cr_error *err)
{
	cr_weights w;

	cr_weights_preset(q, &w);
	return cr_curve_memory_weights(m, &w, rig, opts, ctx, n, out, err);
}

int cr_curve_memory_weights(const cr_model *m, const cr_weights *w, const cr_rig *rig,
			    const cr_estimate_opts *opts, const uint32_t *ctx, size_t n,
			    cr_memory *out, cr_error *err)
{
	cr_estimate_opts o;
	cr_estimate est;

	if (!opts || (n && (!ctx || !out)))
		return cr_seterr(err, CR_ERR_INVALID, "curve: missing options, contexts or output");
	o = *opts;
	for (size_t i = 0; i < n; i++) {
		cr_error e = CR_ERROR_INIT;
		int rc;

		o.n_ctx = ctx[i];
		rc = cr_estimate_run_weights(m, w, rig, &o, &est, &e);
		if (rc)
			return cr_seterr(err, rc, "curve point %zu (context %u): %s", i, ctx[i],
					 e.message);
		out[i] = est.memory;
	}
	return CR_OK;
}

int cr_curve_one_gpu_memory(const cr_model *m, const cr_quant *q, const cr_estimate_opts *opts,
			    cr_memory *out, cr_error *err)
{
	cr_weights w;

	cr_weights_preset(q, &w);
	return cr_curve_one_gpu_weights(m, &w, opts, out, err);
}

int cr_curve_one_gpu_weights(const cr_model *m, const cr_weights *w, const cr_estimate_opts *opts,
			     cr_memory *out, cr_error *err)
{
	cr_rig one;
	cr_estimate est;
	int rc;

	if (!opts || !out)
		return cr_seterr(err, CR_ERR_INVALID, "one-GPU memory: missing options or output");
	cr_curve_one_gpu_rig(&one);
	if ((rc = cr_estimate_run_weights(m, w, &one, opts, &est, err)))
		return rc;
	*out = est.memory;
	return CR_OK;
}

void cr_curve_one_gpu_rig(cr_rig *out)
{
	cr_device *d = &out->devices[0];

	memset(out, 0, sizeof(*out));
	snprintf(out->id, sizeof(out->id), "one-gpu");
	snprintf(out->name, sizeof(out->name), "one GPU with room for any context");
	out->n_devices = 1;
	snprintf(d->name, sizeof(d->name), "GPU");
	d->count = 1;
	d->memory_gib = 1048576.0;
	d->bandwidth_gbs = 1000.0;
	d->fp16_tflops = 100.0;
	d->backend = CR_BACKEND_CUDA;
	d->kind = CR_MEM_DISCRETE;
	d->usable_fraction = 1.0;
}
