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
	uint32_t last;
	int rc;

	if (n)
		*n = 0;
	if (rec)
		*rec = SIZE_MAX;
	if (!m || !w || !r || !o || !out || !n || !rec)
		return cr_seterr(err, CR_ERR_INVALID, "sweep: missing model, weights, rig, options or output");
	if (!m->n_layers || m->n_layers > CR_MAX_LAYERS)
		return cr_seterr(err, CR_ERR_INVALID, "model %s: incomplete architecture", m->id);
	/* -ngl counts the output layer among its n_layers + 1 slots
	 * (estimate.c gpu_placement): n_layers + 1 puts everything on the GPUs,
	 * n_layers leaves the first repeating layer in RAM, 1 keeps only the
	 * output layer there, 0 none; n_cpu_moe runs 0 to n_layers. */
	last = kind == CR_SWEEP_CPU_MOE ? m->n_layers : m->n_layers + 1;
	if (cap < (size_t)last + 1)
		return cr_seterr(err, CR_ERR_INVALID, "sweep: room for %zu points, %u needed", cap, last + 1);
	at = *o;
	at.cpu_moe = false;
	at.n_cpu_moe = 0;
	at.gpu_layers = -1;
	at.gpu_layers_repeating = false;
	for (uint32_t i = 0; i <= last; i++) {
		cr_sweep_point *p = &out[i];

		/* Expert offload keeps every layer on the GPUs (llama.cpp -ngl 99
		 * --n-cpu-moe N), not the auto-fit's spill of whole layers. */
		if (kind == CR_SWEEP_CPU_MOE) {
			at.n_cpu_moe = p->value = i;
			at.gpu_layers = (int32_t)m->n_layers + 1;
		} else {
			at.gpu_layers = (int32_t)(p->value = last - i);
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
			f.opts.gpu_layers = (int32_t)m->n_layers + 1; /* every slot (-ngl counts the output layer) */
			for (uint32_t i = o->n_cpu_moe + 1; i <= m->n_layers; i++) {
				f.opts.n_cpu_moe = i;
				if (try_fix(m, w, r, &f.opts, &f.estimate)) {
					ADD();
					break;
				}
			}
			break;
		case CR_FIX_GPU_LAYERS: {
			/* Below the given count, or below every slot: n_layers + 1 with
			 * the output layer (estimate.c gpu_placement). */
			uint32_t top = o->gpu_layers >= 0 && (uint32_t)o->gpu_layers <= m->n_layers
					       ? (uint32_t)o->gpu_layers
					       : m->n_layers + 1;

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

double cr_plan_draft_rate(double alpha, uint32_t k)
{
	if (!k)
		k = 1;
	if (!(alpha > 0))
		return 0;
	if (alpha >= 1)
		return 1;
	return alpha * (1.0 - pow(alpha, (double)k)) / ((1.0 - alpha) * k);
}

double cr_plan_draft_alpha(double rate, uint32_t k)
{
	double lo = 0, hi = 1;

	if (!(rate > 0))
		return 0;
	if (rate >= 1)
		return 1;
	/* The rate rises with alpha from 0 to 1: bisect (2^-60 is below any
	 * figure this is used for). */
	for (int i = 0; i < 60; i++) {
		double mid = (lo + hi) / 2;

		if (cr_plan_draft_rate(mid, k) < rate)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2;
}

/* One pass of a model over n tokens of one sequence, from its step split
 * (plan.h's step model at one sequence): the weights and the KV once, n - 1
 * more tokens' multiplications, and for MoE the experts n tokens touch. */
static double batch_pass_s(const cr_model *m, const cr_step_parts *p, uint32_t n)
{
	return p->single_s + (n - 1.0) * CR_PLAN_BATCH_COMPUTE * p->compute_s +
	       p->weights_s * expert_share(m) * (pow(expert_union(m, n), CR_PLAN_EXPERT_SPREAD) - 1.0);
}

/* Does every device hold the target's bytes and the second context's beside
 * them, with @p headroom left? A layer split is checked GPU by GPU, anything
 * else device group by device group; a draft model's context shares the
 * runtime's reserve on each device (one process). @p extra_out: bytes of a
 * second context that @p d (NULL for MTP) does not describe, on the device
 * that holds the output layer: the first accelerator group with layers, else
 * system RAM (cr_plan_mtp: the MTP context's buffers). */
static bool pair_fits(const cr_rig *r, const cr_estimate *t, const cr_estimate *d, uint64_t extra_out,
		      uint64_t headroom)
{
	unsigned g_out = r->n_devices;

	if (!t->fits || (d && !d->fits))
		return false;
	if (t->n_gpus >= 2 && (!d || d->n_gpus == t->n_gpus)) {
		for (unsigned i = 0; i < t->n_gpus; i++) {
			const cr_gpu_use *u = &t->gpus[i];
			double need = (double)u->total_bytes + (double)headroom;

			if (d)
				need += (double)d->gpus[i].total_bytes - (double)d->gpus[i].reserve_bytes;
			if (u->output_layer)
				need += (double)extra_out;
			if (need > (double)u->usable_bytes)
				return false;
		}
		return true;
	}
	for (unsigned g = 0; g < r->n_devices && g_out == r->n_devices; g++)
		if (r->devices[g].kind != CR_MEM_SYSTEM && t->devices[g].layers_per_device > 0)
			g_out = g;
	for (unsigned g = 0; g < r->n_devices && g_out == r->n_devices; g++)
		if (r->devices[g].kind == CR_MEM_SYSTEM)
			g_out = g;
	for (unsigned g = 0; g < r->n_devices; g++) {
		const cr_device_use *u = &t->devices[g];
		double need = (double)u->bytes_per_device + (double)headroom;

		if (!u->usable_per_device)
			continue;
		if (d && d->devices[g].bytes_per_device)
			need += (double)d->devices[g].bytes_per_device - (double)d->devices[g].reserve_per_device;
		if (g == g_out)
			need += (double)extra_out;
		if (need > (double)u->usable_per_device)
			return false;
	}
	return true;
}

/* The options of a second context llama-server keeps beside the target (the
 * draft's or the MTP layers'; common/speculative.cpp
 * common_base_params_to_speculative, llama.cpp v0.4.0): the target's context
 * size, sequences and micro-batch, but its own KV types (-ctkd / -ctvd,
 * default f16), logits for one output per sequence (n_outputs_max =
 * n_parallel), and no vision projector (counted once, with the target). */
static cr_estimate_opts second_context_opts(const cr_estimate_opts *o)
{
	cr_estimate_opts c = *o;

	c.type_k = CR_KV_F16;
	c.type_v = CR_KV_F16;
	c.n_outputs_max = o->n_seq ? o->n_seq : 1;
	c.mmproj_device_bytes = 0;
	c.mmproj_host_bytes = 0;
	return c;
}

/* The target as llama-server holds it beside a drafter: every slot (one_point
 * sizes one sequence, and with sliding-window or recurrent layers each slot
 * adds its own cache: Gemma-3-4B shape at 16k, -np 4, 1016 MiB of KV against
 * 494 for one), and logits for the K + 1 tokens each slot verifies
 * (tools/server/server-context.cpp server_output_limits: n_outputs_max =
 * n_parallel x (1 + n_draft), llama.cpp v0.4.0; Gemma-3-4B shape at 16k:
 * 3264.91 MiB with a full micro-batch of logits, bench/memory-truth). Its
 * memory, fit, tier and per-device figures are that run's; the speeds stay
 * those of one sequence (@p one). */
static int target_beside(const cr_model *m, const cr_weights *w, const cr_rig *r, const cr_estimate_opts *o,
			 uint32_t k, const cr_estimate *one, cr_estimate *out, cr_error *err)
{
	cr_estimate_opts topt = *o;
	int rc;

	topt.n_outputs_max = (o->n_seq ? o->n_seq : 1) * (k + 1);
	if ((rc = cr_estimate_run_weights(m, w, r, &topt, out, err)))
		return rc;
	out->decode_tokens_per_s = one->decode_tokens_per_s;
	out->decode_tokens_per_s_low = one->decode_tokens_per_s_low;
	out->decode_tokens_per_s_high = one->decode_tokens_per_s_high;
	out->prefill_tokens_per_s = one->prefill_tokens_per_s;
	out->prefill_tokens_per_s_low = one->prefill_tokens_per_s_low;
	out->prefill_tokens_per_s_high = one->prefill_tokens_per_s_high;
	out->prefill_depth = one->prefill_depth;
	out->decode_fixed_s = one->decode_fixed_s;
	out->decode_depth = one->decode_depth;
	out->prompt_tokens = one->prompt_tokens;
	out->time_to_decision_s = one->time_to_decision_s;
	out->weights_read_bytes = one->weights_read_bytes;
	memcpy(out->decode_note, one->decode_note, sizeof(out->decode_note));
	memcpy(out->prefill_note, one->prefill_note, sizeof(out->prefill_note));
	out->decode_error_pct = one->decode_error_pct;
	out->prefill_error_pct = one->prefill_error_pct;
	out->speed_validated = one->speed_validated;
	return CR_OK;
}

/* The pair's fit into the target's tier: short of the headroom on some
 * device is tight, short of memory is no fit. */
static void pair_tier(const cr_rig *r, const cr_estimate_opts *o, const cr_estimate *d, uint64_t extra_out,
		      cr_draft_plan *out)
{
	out->fits = pair_fits(r, &out->target, d, extra_out, o->headroom_bytes);
	if (out->fits)
		return;
	out->target.tier = pair_fits(r, &out->target, d, extra_out, 0) ? CR_TIER_TIGHT : CR_TIER_NOFIT;
}

/* llama-server fits the target and the drafter together (common/common.cpp:1295-1326:
 * common_fit_params with the draft or MTP context as an extra model, --fit on with a 1024 MiB
 * margin per device by default, llama.cpp v0.4.0). When the pair misses a device and the
 * target's layers are placed automatically, the most target layers on the GPUs with which
 * the pair fits every device with the headroom (the rest in system RAM, as -ngl N); -1 when
 * no count does or the placement is the user's. @p wt: the target's weights as held. */
static int32_t refit_layers(const cr_model *m, const cr_weights *wt, const cr_rig *r, const cr_estimate_opts *o,
			    uint32_t k, const cr_estimate *d, uint64_t extra_out)
{
	cr_estimate_opts to = *o;
	cr_estimate t;

	if (o->gpu_layers >= 0 || o->cpu_moe || o->n_cpu_moe || !has_ram_and_gpu(r))
		return -1;
	to.n_outputs_max = (o->n_seq ? o->n_seq : 1) * (k + 1);
	for (int64_t i = (int64_t)m->n_layers + 1; i >= 0; i--) { /* n_layers + 1: every slot */
		to.gpu_layers = (int32_t)i;
		if (cr_estimate_run_weights(m, wt, r, &to, &t, NULL) == CR_OK &&
		    pair_fits(r, &t, d, extra_out, o->headroom_bytes))
			return (int32_t)i;
	}
	return -1;
}

/* When the pair misses a device, refit_layers' placement: the target's
 * one-sequence split @p pt at that many GPU layers (@p w its trunk's weights,
 * @p wt as held beside the drafter), the target beside the drafter with the
 * speeds of its own placement, and the pair's tier again. */
static int refit_pair(const cr_model *m, const cr_weights *w, const cr_weights *wt, const cr_rig *r,
		      const cr_estimate_opts *o, uint32_t k, const cr_estimate *d, uint64_t extra_out,
		      cr_parallel_point *pt, cr_draft_plan *out, cr_error *err)
{
	cr_estimate_opts to = *o;
	cr_estimate alone;
	int32_t ngl;
	int rc;

	if (out->fits || (ngl = refit_layers(m, wt, r, o, k, d, extra_out)) < 0)
		return CR_OK;
	/* The target's speeds stay its own, without the drafter. */
	alone = pt->estimate;
	to.gpu_layers = ngl;
	if ((rc = one_point(m, w, r, &to, 1, pt, err)) ||
	    (rc = target_beside(m, wt, r, &to, k, &alone, &out->target, err)))
		return rc;
	pair_tier(r, o, d, extra_out, out);
	return CR_OK;
}

/* The speed of a plan whose drafter costs @p draft_s per drafted token and
 * @p catch_s for its pass over the K + 1 verified tokens, against the
 * target's one-sequence split @p tp where it sits beside the drafter; the
 * speed-up is against @p alone_s, the target's step without a drafter (its
 * own placement). */
static void draft_speed(const cr_model *m, const cr_step_parts *tp, double alone_s, double draft_s,
			double catch_s, cr_draft_plan *out)
{
	uint32_t k = out->draft_max;
	double t1 = alone_s, lo, hi;

	out->cost_ratio = draft_s / tp->single_s;
	out->step_s = k * draft_s + batch_pass_s(m, tp, k + 1) + catch_s;
	out->tokens_per_s = out->tokens_per_step / out->step_s;
	out->speedup = out->tokens_per_s * t1;
	lo = out->alpha - CR_PLAN_DRAFT_ALPHA_BAND;
	hi = out->alpha + CR_PLAN_DRAFT_ALPHA_BAND;
	out->accept_low = cr_plan_draft_rate(lo > 0 ? lo : 0, k);
	out->accept_high = cr_plan_draft_rate(hi < 0.99 ? hi : 0.99, k);
	if (out->accept_high < out->accept)
		out->accept_high = out->accept;
	out->speedup_low = (1.0 + out->accept_low * k) / out->step_s * t1;
	out->speedup_high = (1.0 + out->accept_high * k) / out->step_s * t1;
}

/* K, the acceptance at K and its alpha; CR_ERR_INVALID for an acceptance above 1. */
static int set_accept(uint32_t k, double a, cr_draft_plan *out, cr_error *err)
{
	if (!k)
		k = CR_PLAN_DRAFT_MAX_DEFAULT;
	if (a < 0)
		a = cr_plan_draft_rate(CR_PLAN_DRAFT_ALPHA_DEFAULT, k);
	if (!(a <= 1))
		return cr_seterr(err, CR_ERR_INVALID, "draft: an acceptance rate is at most 1, not %g", a);
	out->draft_max = k;
	out->accept = a;
	out->alpha = cr_plan_draft_alpha(a, k);
	/* Each step yields the accepted drafts plus the target's own token; with
	 * --spec-draft-p-min 0 (v0.4.0's default, common/common.h:330) all K are
	 * drafted, so r K of them are accepted on average. */
	out->tokens_per_step = 1.0 + a * k;
	return CR_OK;
}

int cr_plan_draft(const cr_model *m, const cr_weights *w, const cr_model *dm, const cr_weights *dw,
		  const cr_rig *r, const cr_estimate_opts *o, uint32_t k, double a, cr_draft_plan *out,
		  cr_error *err)
{
	cr_parallel_point pt, dpt;
	cr_estimate_opts dopt;
	double alone_s;
	int rc;

	if (!out)
		return cr_seterr(err, CR_ERR_INVALID, "draft: missing output");
	memset(out, 0, sizeof(*out));
	if (!m || !w || !dm || !dw || !r || !o)
		return cr_seterr(err, CR_ERR_INVALID, "draft: missing model, draft, weights, rig or options");
	if ((rc = set_accept(k, a, out, err)))
		return rc;
	k = out->draft_max;
	/* The target: its single-sequence step split (one_point at one sequence). */
	if ((rc = one_point(m, w, r, o, 1, &pt, err)))
		return rc;
	if ((rc = target_beside(m, w, r, o, k, &pt.estimate, &out->target, err)))
		return rc;
	/* The draft context of llama-server -md; bench/memory-truth checks it
	 * against llama.cpp's. */
	dopt = second_context_opts(o);
	if ((rc = cr_estimate_run_weights(dm, dw, r, &dopt, &out->draft, err)))
		return rc;
	/* The draft sits beside the target: its bytes less the runtime the
	 * target already pays (one process per device). */
	out->extra_bytes = out->draft.memory.total_bytes - out->draft.memory.overhead_bytes;
	pair_tier(r, o, &out->draft, 0, out);
	alone_s = pt.parts.single_s;
	if ((rc = refit_pair(m, w, w, r, o, k, &out->draft, 0, &pt, out, err)))
		return rc;
	if (!(pt.estimate.decode_tokens_per_s > 0) || !(out->draft.decode_tokens_per_s > 0))
		return CR_OK;
	/* The draft's own split at one sequence: K single-token decodes, and the
	 * re-evaluation of the K + 1 verified tokens as one batch. */
	if ((rc = one_point(dm, dw, r, &dopt, 1, &dpt, err)))
		return rc;
	if (!(dpt.estimate.decode_tokens_per_s > 0))
		return CR_OK;
	draft_speed(m, &pt.parts, alone_s, dpt.parts.single_s, batch_pass_s(dm, &dpt.parts, k + 1), out);
	return CR_OK;
}

/* ---- multi-token prediction (--spec-type draft-mtp) ------------------------- */

/* Bytes of the output head (n_vocab x n_embd) at the weights' average bits
 * per weight. */
static double head_bytes(const cr_model *m, const cr_weights *w)
{
	return (double)m->vocab * m->hidden * cr_estimate_weights_bpw(m, w) / 8.0;
}

/* One MTP layer's weights when the file does not say: the mean layer of the
 * trunk (the weights less the token table and the output head) plus the
 * NextN block's eh_proj, 2 n_embd x n_embd, and its norms (qwen35.cpp
 * load_block_mtp, llama.cpp v0.4.0; the optional own token table and head
 * are left out: llama.cpp uses the trunk's when they are absent). */
static double mtp_layer_bytes(const cr_model *m, const cr_weights *w)
{
	double all = (double)cr_estimate_weights_size(m, w);
	double tables = (m->tied_embeddings ? 1.0 : 2.0) * head_bytes(m, w);
	double trunk = all > tables ? all - tables : all;

	return trunk / m->n_layers + 2.0 * m->hidden * (double)m->hidden * cr_estimate_weights_bpw(m, w) / 8.0;
}

int cr_plan_mtp(const cr_model *m, const cr_weights *w, const cr_rig *r, const cr_estimate_opts *o,
		uint64_t mtp_bytes, uint32_t k, double a, cr_draft_plan *out, cr_error *err)
{
	cr_parallel_point pt;
	cr_estimate_opts mopt;
	cr_estimate mc;
	cr_weights wm;
	double layer, read, head, frac_draft, frac_catch, fixed_layer, kv_layer, mtp_kv, alone_s;
	unsigned n_full;
	int rc;

	if (!out)
		return cr_seterr(err, CR_ERR_INVALID, "mtp: missing output");
	memset(out, 0, sizeof(*out));
	if (!m || !w || !r || !o)
		return cr_seterr(err, CR_ERR_INVALID, "mtp: missing model, weights, rig or options");
	if (!m->mtp_layers)
		return cr_seterr(err, CR_ERR_UNSUPPORTED,
				 "model %s: no multi-token-prediction layers (catalog mtp_layers, GGUF "
				 "nextn_predict_layers) to draft with", m->id);
	if (!m->n_layers || !m->hidden || !m->vocab)
		return cr_seterr(err, CR_ERR_INVALID, "model %s: incomplete architecture", m->id);
	/* More than one MTP layer: llama.cpp chains them, one head per drafted
	 * token (common/speculative.cpp, chain_heads: n_max = min(n_max,
	 * n_mtp_layers)). */
	if (!k)
		k = CR_PLAN_DRAFT_MAX_DEFAULT;
	if (m->mtp_layers > 1 && k > m->mtp_layers)
		k = m->mtp_layers;
	if ((rc = set_accept(k, a, out, err)))
		return rc;
	out->mtp = true;
	layer = mtp_bytes ? (double)mtp_bytes / m->mtp_layers : mtp_layer_bytes(m, w);
	/* The trunk's speed: its own weights, MTP layers not read. */
	if ((rc = one_point(m, w, r, o, 1, &pt, err)))
		return rc;
	/* With draft-mtp the loader keeps the MTP tensors (load_mtp): they sit
	 * in the model's buffers beside the trunk's. */
	{
		uint64_t all = cr_estimate_weights_size(m, w) + (uint64_t)(layer * m->mtp_layers);

		cr_weights_exact(all, w->kind == CR_WEIGHTS_PRESET && w->preset ? w->preset->base_type : w->type, &wm);
		wm.mapped_extra_bytes = w->mapped_extra_bytes;
	}
	if ((rc = target_beside(m, &wm, r, o, k, &pt.estimate, &out->target, err)))
		return rc;
	/* The MTP context (LLAMA_CONTEXT_TYPE_MTP on the target's model, the
	 * draft context's parameters): the MTP layers' KV at the target's cells
	 * in f16, one output per sequence, and a compute buffer of one layer
	 * over a micro-batch, which peaks as the trunk's does at those settings
	 * (its layers run one at a time). Not checked against llama.cpp. */
	mopt = second_context_opts(o);
	if ((rc = cr_estimate_run_weights(m, w, r, &mopt, &mc, err)))
		return rc;
	n_full = cr_model_count_layers(m, CR_LAYER_FULL);
	if (!n_full)
		n_full = m->n_layers;
	mtp_kv = (double)mc.kv_bytes_per_token / n_full * m->mtp_layers * mc.kv_cells_full;
	memset(&out->draft, 0, sizeof(out->draft));
	out->draft.memory.kv_bytes = (uint64_t)mtp_kv;
	out->draft.memory.compute_bytes = mc.memory.compute_bytes;
	out->draft.memory.output_bytes = mc.memory.output_bytes;
	out->draft.memory.total_bytes = out->draft.memory.kv_bytes + out->draft.memory.compute_bytes +
					out->draft.memory.output_bytes;
	out->draft.memory.available_bytes = mc.memory.available_bytes;
	if (mc.memory.device_bytes)
		out->draft.memory.device_bytes = out->draft.memory.total_bytes;
	else
		out->draft.memory.host_bytes = out->draft.memory.total_bytes;
	out->draft.fits = true;
	out->extra_bytes = out->draft.memory.total_bytes;
	pair_tier(r, o, NULL, out->extra_bytes, out);
	alone_s = pt.parts.single_s;
	if ((rc = refit_pair(m, w, &wm, r, o, k, NULL, out->extra_bytes, &pt, out, err)))
		return rc;
	if (!(pt.estimate.decode_tokens_per_s > 0) || !pt.estimate.weights_read_bytes)
		return CR_OK;
	/* One drafted token: one MTP layer and the output head, in the share of
	 * the trunk step's weight time their bytes are of the bytes a trunk
	 * token reads (a MoE layer at its active share), one layer's fixed time
	 * and one full-attention layer's KV read. The catch-up pass over the
	 * K + 1 verified tokens runs the layer without the head (no outputs). */
	read = (double)pt.estimate.weights_read_bytes;
	head = head_bytes(m, w);
	{
		double act = m->params ? (double)m->active_params / (double)m->params : 1.0;

		frac_catch = layer * act / read;
		frac_draft = (layer * act + head) / read;
	}
	fixed_layer = pt.parts.fixed_s / m->n_layers;
	kv_layer = pt.parts.kv_s / n_full;
	{
		double draft_s = pt.parts.weights_s * frac_draft + fixed_layer + kv_layer;
		double catch_s = pt.parts.weights_s * frac_catch + fixed_layer + kv_layer +
				 k * CR_PLAN_BATCH_COMPUTE * pt.parts.compute_s * frac_catch;

		draft_speed(m, &pt.parts, alone_s, draft_s, catch_s, out);
	}
	return CR_OK;
}
