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

#include "clefrun/decide.h"
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
	/* llama.cpp gives each sequence n_ctx / n_seq cells: none is no plan. */
	if (n > base->n_ctx)
		return cr_seterr(err, CR_ERR_RANGE,
				 "a context of %u tokens shared by %u sequences leaves each none", base->n_ctx, n);
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

/* ---- what to change to make it fit ------------------------------------------ */

static const char *const fix_names[CR_FIX_COUNT] = { "kv-q8_0", "no-mmproj-offload", "n-cpu-moe",
						      "gpu-layers", "quant", "kv-q4_0", "parallel", "context" };

const char *cr_fix_kind_name(cr_fix_kind k)
{
	return (unsigned)k < CR_FIX_COUNT ? fix_names[k] : "?";
}

/* Fits with the headroom: the target of every fix. */
static bool roomy(const cr_estimate *e)
{
	return e->fits && e->tier != CR_TIER_TIGHT && e->tier != CR_TIER_NOFIT;
}

/* Run one candidate; true when it is roomy. An estimator error (a setting
 * the rig or model does not allow) is no candidate, not a failure. */
static bool try_fix(const cr_model *m, const cr_weights *w, const cr_rig *r, const cr_estimate_opts *o,
		    cr_estimate *e)
{
	return cr_estimate_run_weights(m, w, r, o, e, NULL) == CR_OK && roomy(e);
}

static bool has_ram_and_gpu(const cr_rig *r)
{
	bool sys = false, acc = false;

	for (unsigned g = 0; g < r->n_devices; g++) {
		if (r->devices[g].kind == CR_MEM_SYSTEM)
			sys = true;
		else
			acc = true;
	}
	return sys && acc;
}

int cr_plan_fixes(const cr_model *m, const cr_weights *w, const cr_rig *r, const cr_estimate_opts *o,
		  const cr_quant *const *quants, size_t nq, cr_fix *out, size_t cap, size_t *n,
		  cr_estimate *now, cr_error *err)
{
	cr_fix f;
	int rc;

	if (n)
		*n = 0;
	if (!m || !w || !r || !o || !out || !n || !now || (nq && !quants))
		return cr_seterr(err, CR_ERR_INVALID, "fixes: missing model, weights, rig, options or output");
	if ((rc = cr_estimate_run_weights(m, w, r, o, now, err)))
		return rc;
	if (roomy(now))
		return CR_OK;
#define ADD()                                  \
	do {                                   \
		if (*n < cap)                  \
			out[(*n)++] = f;       \
	} while (0)
	for (int k = 0; k < CR_FIX_COUNT; k++) {
		memset(&f, 0, sizeof(f));
		f.kind = (cr_fix_kind)k;
		f.opts = *o;
		switch (f.kind) {
		case CR_FIX_KV_Q8:
		case CR_FIX_KV_Q4: {
			cr_kv_type t = f.kind == CR_FIX_KV_Q8 ? CR_KV_Q8_0 : CR_KV_Q4_0;

			/* Smaller than what is in use, and llama.cpp needs flash
			 * attention for a quantized V cache. */
			if (!o->flash_attn || (o->type_k >= t && o->type_v >= t))
				break;
			f.opts.type_k = f.opts.type_v = t;
			if (try_fix(m, w, r, &f.opts, &f.estimate))
				ADD();
			break;
		}
		case CR_FIX_NO_MMPROJ_OFFLOAD:
			/* clip's CPU backend holds the projector (vision.h): the
			 * first GPU's share moves to system RAM, nothing else. */
			if (!o->mmproj_device_bytes)
				break;
			f.opts.mmproj_host_bytes += f.opts.mmproj_device_bytes;
			f.opts.mmproj_device_bytes = 0;
			if (try_fix(m, w, r, &f.opts, &f.estimate))
				ADD();
			break;
		case CR_FIX_N_CPU_MOE:
			if (!m->experts_total || o->cpu_moe || !has_ram_and_gpu(r))
				break;
			f.opts.gpu_layers = (int32_t)m->n_layers;
			for (uint32_t i = o->n_cpu_moe + 1; i <= m->n_layers; i++) {
				f.opts.n_cpu_moe = i;
				if (try_fix(m, w, r, &f.opts, &f.estimate)) {
					ADD();
					break;
				}
			}
			break;
		case CR_FIX_GPU_LAYERS: {
			uint32_t top = o->gpu_layers >= 0 && (uint32_t)o->gpu_layers < m->n_layers
					       ? (uint32_t)o->gpu_layers
					       : m->n_layers;

			if (!has_ram_and_gpu(r))
				break;
			for (uint32_t i = top; i-- > 0;) {
				f.opts.gpu_layers = (int32_t)i;
				if (try_fix(m, w, r, &f.opts, &f.estimate)) {
					ADD();
					break;
				}
			}
			break;
		}
		case CR_FIX_QUANT: {
			const cr_quant *best = NULL;
			cr_estimate e;

			if (w->kind != CR_WEIGHTS_PRESET || !w->preset)
				break;
			for (size_t i = 0; i < nq; i++) {
				const cr_quant *q = quants[i];
				cr_weights qw;

				if (!q || !(q->bpw < w->preset->bpw) || (best && q->bpw <= best->bpw) ||
				    !cr_decide_default_candidate(m, q))
					continue;
				cr_weights_preset(q, &qw);
				if (try_fix(m, &qw, r, &f.opts, &e)) {
					best = q;
					f.estimate = e;
				}
			}
			if (best) {
				f.quant = best;
				ADD();
			}
			break;
		}
		case CR_FIX_FEWER_SLOTS:
			/* Each slot keeps its share of the context: n_ctx scales with the slots. */
			for (uint32_t s = o->n_seq; s-- > 1;) {
				f.opts.n_seq = s;
				f.opts.n_ctx = (uint32_t)((uint64_t)o->n_ctx * s / o->n_seq);
				if (f.opts.depth != CR_DEPTH_CONTEXT && f.opts.depth > f.opts.n_ctx)
					f.opts.depth = f.opts.n_ctx;
				if (f.opts.prompt_tokens > f.opts.n_ctx)
					f.opts.prompt_tokens = f.opts.n_ctx;
				if (try_fix(m, w, r, &f.opts, &f.estimate)) {
					ADD();
					break;
				}
			}
			break;
		case CR_FIX_CONTEXT: {
			/* The largest context that fits, less 256-token steps until the
			 * headroom is there too. */
			uint32_t c = now->max_context < o->n_ctx ? now->max_context : o->n_ctx;

			for (; c >= CR_MIN_FIT_CTX; c -= 256) {
				f.opts.n_ctx = c / 256 * 256;
				if (f.opts.depth != CR_DEPTH_CONTEXT && f.opts.depth > f.opts.n_ctx)
					f.opts.depth = f.opts.n_ctx;
				if (f.opts.prompt_tokens > f.opts.n_ctx)
					f.opts.prompt_tokens = f.opts.n_ctx;
				if (try_fix(m, w, r, &f.opts, &f.estimate)) {
					ADD();
					break;
				}
				if (c < 256 + CR_MIN_FIT_CTX)
					break;
			}
			break;
		}
		default:
			break;
		}
	}
#undef ADD
	return CR_OK;
}

/* ---- draft models (speculative decoding) ------------------------------------ */

/* Expected tokens per step with K drafted tokens each accepted with
 * probability a (Leviathan, Kalman, Matias 2023, "Fast Inference from
 * Transformers via Speculative Decoding", eq. 1). */
static double tokens_per_step(double a, uint32_t k)
{
	return a <= 0 ? 1.0 : (1.0 - pow(a, k + 1.0)) / (1.0 - a);
}

int cr_plan_draft(const cr_model *m, const cr_weights *w, const cr_model *dm, const cr_weights *dw,
		  const cr_rig *r, const cr_estimate_opts *o, uint32_t k, double a, cr_draft_plan *out,
		  cr_error *err)
{
	cr_parallel_point pt;
	cr_estimate_opts dopt, topt;
	cr_estimate all;
	double verify, t1, td, lo, hi;
	int rc;

	if (!out)
		return cr_seterr(err, CR_ERR_INVALID, "draft: missing output");
	memset(out, 0, sizeof(*out));
	if (!m || !w || !dm || !dw || !r || !o)
		return cr_seterr(err, CR_ERR_INVALID, "draft: missing model, draft, weights, rig or options");
	if (a < 0)
		a = CR_PLAN_DRAFT_ACCEPT_DEFAULT;
	if (!(a < 1))
		return cr_seterr(err, CR_ERR_INVALID, "draft: an acceptance rate must be below 1, not %g", a);
	if (!k)
		k = CR_PLAN_DRAFT_MAX_DEFAULT;
	out->draft_max = k;
	out->accept = a;
	out->tokens_per_step = tokens_per_step(a, k);
	/* The target: its single-sequence step split (one_point at one sequence). */
	if ((rc = one_point(m, w, r, o, 1, &pt, err)))
		return rc;
	out->target = pt.estimate;
	/* Its memory as llama-server holds it beside a draft: every slot (one_point
	 * sizes one sequence, and with sliding-window or recurrent layers each slot
	 * adds its own cache: Gemma-3-4B shape at 16k, -np 4, 1016 MiB of KV against
	 * 494 for one), and logits for the K + 1 tokens each slot verifies
	 * (tools/server/server-context.cpp server_output_limits: n_outputs_max =
	 * n_parallel x (1 + n_draft), llama.cpp v0.4.0; Gemma-3-4B shape at 16k:
	 * 3264.91 MiB with a full micro-batch of logits, bench/memory-truth). The
	 * speed stays that of one sequence drafting. */
	topt = *o;
	topt.n_outputs_max = (o->n_seq ? o->n_seq : 1) * (k + 1);
	if ((rc = cr_estimate_run_weights(m, w, r, &topt, &all, err)))
		return rc;
	out->target.memory = all.memory;
	out->target.fits = all.fits;
	/* The draft context of llama-server -md (common/speculative.cpp
	 * common_base_params_to_speculative, llama.cpp v0.4.0): the target's
	 * context size, sequences and micro-batch, but its own KV types (-ctkd /
	 * -ctvd, default f16), logits for one output per sequence
	 * (n_outputs_max = n_parallel), and no vision projector (the target's
	 * options carry it: counted once, with the target). bench/memory-truth
	 * checks this context against llama.cpp's. */
	dopt = *o;
	dopt.type_k = CR_KV_F16;
	dopt.type_v = CR_KV_F16;
	dopt.n_outputs_max = o->n_seq ? o->n_seq : 1;
	dopt.mmproj_device_bytes = 0;
	dopt.mmproj_host_bytes = 0;
	if ((rc = cr_estimate_run_weights(dm, dw, r, &dopt, &out->draft, err)))
		return rc;
	/* The draft sits beside the target: its bytes less the runtime the
	 * target already pays (one context per device). */
	out->extra_bytes = out->draft.memory.total_bytes - out->draft.memory.overhead_bytes;
	out->fits = out->target.fits && out->draft.fits &&
		    out->target.memory.total_bytes + out->extra_bytes + o->headroom_bytes <=
			    out->target.memory.available_bytes;
	if (!(pt.estimate.decode_tokens_per_s > 0) || !(out->draft.decode_tokens_per_s > 0))
		return CR_OK;
	t1 = pt.parts.single_s;
	td = 1.0 / out->draft.decode_tokens_per_s;
	out->cost_ratio = td / t1;
	/* The target checks K + 1 tokens of one sequence in one pass: the
	 * weights and the KV once, K more tokens' multiplications, and for MoE
	 * the experts K + 1 tokens touch. */
	verify = t1 + k * CR_PLAN_BATCH_COMPUTE * pt.parts.compute_s +
		 pt.parts.weights_s * expert_share(m) * (pow(expert_union(m, k + 1), CR_PLAN_EXPERT_SPREAD) - 1.0);
	out->step_s = k * td + verify;
	out->tokens_per_s = out->tokens_per_step / out->step_s;
	out->speedup = out->tokens_per_s * t1;
	lo = a - CR_PLAN_DRAFT_ACCEPT_BAND;
	hi = a + CR_PLAN_DRAFT_ACCEPT_BAND;
	out->speedup_low = tokens_per_step(lo > 0 ? lo : 0, k) / out->step_s * t1;
	out->speedup_high = tokens_per_step(hi < 0.99 ? hi : 0.99, k) / out->step_s * t1;
	return CR_OK;
}
