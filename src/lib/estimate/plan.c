/*
 * Serving plans (include/clefrun/plan.h, docs/plans.md): several sequences
 * decoded in one step. Built on the single-sequence estimator through its
 * public figures (decode and prefill tokens/s, the fixed per-step time), so
 * that the split of one step follows that model as it changes; nothing of
 * the single-sequence arithmetic is repeated here.
 */
#include "clefrun/plan.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "util.h"

/* llama.cpp pads each KV stream to 256 cells (estimate.c): the saturation
 * search stops where a sequence would get less than one padded stream. */
#define STREAM_CELLS 256u

/* Routed experts' share of the parameters a token reads. With E experts of
 * which k are used, active = rest + experts x k/E and total = rest +
 * experts, so the routed experts hold (total - active) x E / (E - k) and a
 * token reads k/E of them (estimate.c expert_fraction, the same rule). */
static double expert_share(const cr_model *m)
{
	double e = m->experts_total, k = m->experts_used, routed, read;

	if (!m->experts_total || !m->experts_used || m->experts_used >= m->experts_total ||
	    !m->active_params)
		return 0;
	routed = ((double)m->params - (double)m->active_params) * e / (e - k);
	read = routed * k / e;
	read /= (double)m->active_params;
	return read < 0 ? 0 : read > 1 ? 1 : read;
}

/* Distinct experts N tokens touch per layer, relative to one token's k,
 * when each token picks k of E uniformly: E (1 - (1 - k/E)^N) / k. Real
 * routers are not uniform, so this is an upper bound on the bytes. */
static double expert_union(const cr_model *m, uint32_t n)
{
	double p;

	if (!m->experts_total || !m->experts_used || m->experts_used >= m->experts_total)
		return 1;
	p = (double)m->experts_used / m->experts_total;
	return (1.0 - pow(1.0 - p, (double)n)) / p;
}

static int one_point(const cr_model *m, const cr_weights *w, const cr_rig *r,
		     const cr_estimate_opts *base, uint32_t n, cr_parallel_point *pt, cr_error *err)
{
	cr_estimate_opts o = *base, z;
	cr_estimate e0, pe;
	cr_step_parts *p = &pt->parts;
	uint32_t per, prompt, batch;
	double mem_s;
	int rc;

	memset(pt, 0, sizeof(*pt));
	if (!n || n > 4096)
		return cr_seterr(err, CR_ERR_INVALID, "parallel sequences must be 1 to 4096, not %u", n);
	pt->n_seq = n;
	o.n_seq = n;
	per = o.n_ctx / n;
	pt->context_per_seq = per;
	if (o.depth == CR_DEPTH_CONTEXT || o.depth > per)
		o.depth = per;
	if ((rc = cr_estimate_run_weights(m, w, r, &o, &pt->estimate, err)))
		return rc;
	if (!pt->estimate.max_context || !(pt->estimate.decode_tokens_per_s > 0))
		return CR_OK; /* no fit at any context: no speed */
	pt->decode_depth = pt->estimate.decode_depth;
	z = o;
	z.depth = 0;
	if ((rc = cr_estimate_run_weights(m, w, r, &z, &e0, err)))
		return rc;
	p->single_s = 1.0 / pt->estimate.decode_tokens_per_s;
	p->fixed_s = pt->estimate.decode_fixed_s;
	{
		double t0 = e0.decode_tokens_per_s > 0 ? 1.0 / e0.decode_tokens_per_s : p->single_s;

		p->kv_s = p->single_s > t0 ? p->single_s - t0 : 0;
		p->weights_s = t0 > p->fixed_s ? t0 - p->fixed_s : 0;
	}
	p->compute_s = pt->estimate.prefill_tokens_per_s > 0 ? 1.0 / pt->estimate.prefill_tokens_per_s : 0;
	p->expert_share = expert_share(m);
	p->expert_union = expert_union(m, n);
	pt->step_s = p->single_s + (n - 1.0) * (p->kv_s + CR_PLAN_BATCH_COMPUTE * p->compute_s) +
		     p->weights_s * p->expert_share * (pow(p->expert_union, CR_PLAN_EXPERT_SPREAD) - 1.0);
	pt->per_seq_tokens_per_s = 1.0 / pt->step_s;
	pt->aggregate_tokens_per_s = n / pt->step_s;
	mem_s = p->weights_s * (1.0 + p->expert_share * (pow(p->expert_union, CR_PLAN_EXPERT_SPREAD) - 1.0)) +
		n * p->kv_s;
	pt->compute_bound = n * CR_PLAN_BATCH_COMPUTE * p->compute_s > mem_s;

	/* Decisions: N prompts prefilled as one batch, so a micro-batch holds
	 * min(N x prompt, max(prompt, n_ubatch)) tokens (llama.cpp fills
	 * n_ubatch from every slot's prompt). */
	prompt = pt->estimate.prompt_tokens;
	pt->prompt_tokens = prompt;
	if (!prompt)
		return CR_OK;
	{
		uint32_t fill = prompt > o.n_ubatch ? prompt : o.n_ubatch;
		uint64_t all = (uint64_t)n * prompt;

		batch = all < fill ? (uint32_t)all : fill;
	}
	z = o;
	z.n_seq = 1;
	z.depth = 0;
	if (batch > z.n_ctx)
		batch = z.n_ctx;
	z.prompt_tokens = batch;
	if ((rc = cr_estimate_run_weights(m, w, r, &z, &pe, err)))
		return rc;
	pt->prefill_tokens_per_s = pe.prefill_tokens_per_s;
	if (pe.prefill_tokens_per_s > 0) {
		pt->decisions_per_s = pe.prefill_tokens_per_s / prompt;
		pt->decision_latency_s = (double)n * prompt / pe.prefill_tokens_per_s;
	}
	return CR_OK;
}

int cr_plan_parallel(const cr_model *m, const cr_weights *w, const cr_rig *r,
		     const cr_estimate_opts *o, const uint32_t *n_seq, size_t n,
		     cr_parallel_point *out, cr_error *err)
{
	int rc;

	if (!m || !w || !r || !o || !n_seq || !out)
		return cr_seterr(err, CR_ERR_INVALID, "plan: missing model, weights, rig, options or counts");
	if (!n || n > CR_PLAN_MAX_POINTS)
		return cr_seterr(err, CR_ERR_INVALID, "plan: 1 to %d sequence counts, not %zu",
				 CR_PLAN_MAX_POINTS, n);
	for (size_t i = 0; i < n; i++)
		if ((rc = one_point(m, w, r, o, n_seq[i], &out[i], err)))
			return rc;
	return CR_OK;
}

int cr_plan_saturation(const cr_model *m, const cr_weights *w, const cr_rig *r,
		       const cr_estimate_opts *o, uint32_t *out, cr_error *err)
{
	cr_parallel_point a, b;
	uint32_t cap;
	int rc;

	if (!out)
		return cr_seterr(err, CR_ERR_INVALID, "plan: missing output");
	*out = 0;
	if (!m || !w || !r || !o)
		return cr_seterr(err, CR_ERR_INVALID, "plan: missing model, weights, rig or options");
	cap = o->n_ctx / STREAM_CELLS;
	if (cap > CR_PLAN_SATURATION_MAX)
		cap = CR_PLAN_SATURATION_MAX;
	if ((rc = one_point(m, w, r, o, 1, &a, err)))
		return rc;
	for (uint32_t n = 1; 2 * n <= cap; n *= 2) {
		if ((rc = one_point(m, w, r, o, 2 * n, &b, err)))
			return rc;
		if (!(a.aggregate_tokens_per_s > 0))
			return CR_OK;
		if (b.aggregate_tokens_per_s < a.aggregate_tokens_per_s * (1.0 + CR_PLAN_SATURATION_GAIN)) {
			*out = n;
			return CR_OK;
		}
		a = b;
	}
	return CR_OK;
}

int cr_plan_sweep(const cr_model *m, const cr_weights *w, const cr_rig *r, const cr_estimate_opts *o,
		  cr_sweep_kind kind, cr_sweep_point *out, size_t cap, size_t *n, size_t *rec,
		  cr_error *err)
{
	cr_estimate_opts at;
	int rc;

	if (n)
		*n = 0;
	if (rec)
		*rec = SIZE_MAX;
	if (!m || !w || !r || !o || !out || !n || !rec)
		return cr_seterr(err, CR_ERR_INVALID, "sweep: missing model, weights, rig, options or output");
	if (!m->n_layers || m->n_layers > CR_MAX_LAYERS)
		return cr_seterr(err, CR_ERR_INVALID, "model %s: incomplete architecture", m->id);
	if (cap < (size_t)m->n_layers + 1)
		return cr_seterr(err, CR_ERR_INVALID, "sweep: room for %zu points, %u needed", cap,
				 m->n_layers + 1);
	at = *o;
	at.cpu_moe = false;
	at.n_cpu_moe = 0;
	at.gpu_layers = -1;
	for (uint32_t i = 0; i <= m->n_layers; i++) {
		cr_sweep_point *p = &out[i];

		/* Expert offload keeps every layer on the GPUs (llama.cpp -ngl 99
		 * --n-cpu-moe N), not the auto-fit's spill of whole layers. */
		if (kind == CR_SWEEP_CPU_MOE) {
			at.n_cpu_moe = p->value = i;
			at.gpu_layers = (int32_t)m->n_layers;
		} else {
			at.gpu_layers = (int32_t)(p->value = m->n_layers - i);
		}
		if ((rc = cr_estimate_run_weights(m, w, r, &at, &p->estimate, err)))
			return rc;
		if (*rec == SIZE_MAX && p->estimate.fits)
			*rec = i;
		*n = i + 1;
	}
	return CR_OK;
}
