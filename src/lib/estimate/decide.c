/*
 * Decisions over the estimator: best quant per model and rig, and the
 * ranked "what can this rig run" list. The rules are documented in
 * include/clefrun/decide.h and docs/decisions.md; keep the three in step.
 */
#include "clefrun/decide.h"

#include <stdlib.h>
#include <string.h>

#include "util.h"

static const char *const fit_status_names[] = { "reaches", "below", "context" };

const char *cr_fit_status_name(cr_fit_status s)
{
	return (unsigned)s <= CR_FIT_CONTEXT ? fit_status_names[s] : "?";
}

/* The seed pages' "which GPUs can run it" lists: "runs great" and "decent"
 * are the rigs that run a model at a usable speed (tiers fast and ok, the
 * CR_TIER_*_TPS thresholds of estimate.h), then those it fits but crawls
 * on, then those it barely fits; clefrun adds the fits whose speed is
 * unknown and the no-fits. */
cr_fit_group cr_decide_group(cr_tier tier)
{
	switch (tier) {
	case CR_TIER_FAST:
	case CR_TIER_OK:
		return CR_GROUP_RUNS_WELL;
	case CR_TIER_SLOW:
		return CR_GROUP_SLOW;
	case CR_TIER_TIGHT:
		return CR_GROUP_TIGHT;
	case CR_TIER_UNKNOWN:
		return CR_GROUP_UNKNOWN;
	default:
		return CR_GROUP_NOFIT;
	}
}

const char *cr_fit_group_name(cr_fit_group g)
{
	static const char *const names[] = { "runs_well", "slow", "tight", "unknown", "nofit" };

	return (unsigned)g < CR_GROUP_COUNT ? names[g] : "?";
}

const char *cr_fit_group_title(cr_fit_group g)
{
	static const char *const titles[] = { "Runs well", "Fits but slow", "Tight",
		"Fits, speed unknown", "Does not fit" };

	return (unsigned)g < CR_GROUP_COUNT ? titles[g] : "?";
}

/* Is candidate (bpw_a, tps_a, index ia) better than (bpw_b, tps_b, ib)
 * under "highest bpw, then faster decode, then earlier"? */
static bool better_quality(double bpw_a, double tps_a, size_t ia, double bpw_b, double tps_b,
			   size_t ib)
{
	if (bpw_a != bpw_b)
		return bpw_a > bpw_b;
	if (tps_a != tps_b)
		return tps_a > tps_b;
	return ia < ib;
}

/* The quality a candidate stands for: its bits per weight; for a model
 * whose experts ship natively quantized, the bits per weight of the file as
 * sized (experts native, the rest the preset's), capped at the native-format
 * file's (experts native, the rest Q8_0, estimate.c). Q8_0 is lossless on
 * the rest within measurement (llama-quantize: +0.0004 ppl @ Llama-3-8B), so
 * a bigger file (F16 or BF16: 13.8 GB against 12.1 for gpt-oss-20b) is an
 * upcast that adds bytes and no quality: it ties with the native file and
 * loses on speed. */
static double quality_bpw(const cr_model *m, const cr_quant *q, const cr_estimate_opts *o)
{
	cr_quant ceiling;
	double eff, top;

	if (!(m->native_bpw > 0) || !m->native_type[0] || o->weights_bytes)
		return q->bpw;
	memset(&ceiling, 0, sizeof(ceiling));
	snprintf(ceiling.base_type, sizeof(ceiling.base_type), "%s", m->native_type);
	ceiling.bpw = m->native_bpw;
	eff = (double)cr_estimate_weights_bytes(m, q, o);
	top = (double)cr_estimate_weights_bytes(m, &ceiling, o);
	return (eff < top ? eff : top) * 8.0 / (double)m->params;
}

/* How fast an estimate is on the measure its tier is judged on: decode
 * tokens/s, or decisions per second under --workload decide (0 when
 * unknown). Larger is faster. */
static double pace(const cr_model *m, const cr_estimate_opts *o, const cr_estimate *e)
{
	/* An embedding or reranking model is judged on its prefill (estimate.c speed_tier). */
	if (o->workload == CR_WORKLOAD_DECIDE || m->task != CR_TASK_GENERATION)
		return e->time_to_decision_s > 0 ? 1.0 / e->time_to_decision_s : 0;
	return e->decode_tokens_per_s;
}

/* Is candidate a closer to a tier it misses than b: faster (what the tier
 * is judged on), then higher bpw, then earlier? */
static bool closer(double pace_a, double bpw_a, size_t ia, double pace_b, double bpw_b, size_t ib)
{
	if (pace_a != pace_b)
		return pace_a > pace_b;
	if (bpw_a != bpw_b)
		return bpw_a > bpw_b;
	return ia < ib;
}

int cr_decide_best_quant(const cr_model *model, const cr_quant *const *quants, size_t n_quants,
			 const cr_rig *rig, const cr_estimate_opts *opts, cr_tier require,
			 cr_best_quant *out, cr_error *err)
{
	return cr_decide_best_quant_by(model, quants, n_quants, rig, opts, require, NULL, NULL, out, err);
}

int cr_decide_best_quant_by(const cr_model *model, const cr_quant *const *quants, size_t n_quants,
			    const cr_rig *rig, const cr_estimate_opts *opts, cr_tier require,
			    cr_decide_estimate_fn fn, void *ctx, cr_best_quant *out, cr_error *err)
{
	/* Per tier: the best by quality (for reaching "require") and the
	 * fastest (the fallback when nothing reaches it). */
	size_t best[CR_TIER_COUNT] = { 0 }, fast[CR_TIER_COUNT] = { 0 };
	cr_estimate best_est[CR_TIER_COUNT], fast_est[CR_TIER_COUNT];
	double qual[CR_TIER_COUNT] = { 0 };
	bool have[CR_TIER_COUNT] = { false };

	/* Read only where have[t]; cleared so that no path can see garbage. */
	memset(best_est, 0, sizeof(best_est));
	memset(fast_est, 0, sizeof(fast_est));
	if (!model || !rig || !opts || !out)
		return cr_seterr(err, CR_ERR_INVALID, "best quant: missing model, rig, options or output");
	if (!quants || n_quants == 0)
		return cr_seterr(err, CR_ERR_INVALID, "best quant of %s: no candidate quants",
				 model->id);
	if ((unsigned)require >= CR_TIER_UNKNOWN)
		return cr_seterr(err, CR_ERR_INVALID,
				 "best quant: the required tier must be fast, ok, slow or tight");
	for (size_t i = 0; i < n_quants; i++) {
		cr_estimate e;
		int rc;

		if (!quants[i])
			return cr_seterr(err, CR_ERR_INVALID, "best quant: candidate %zu is NULL", i);
		rc = fn ? fn(ctx, model, quants[i], rig, opts, &e, err)
			: cr_estimate_run(model, quants[i], rig, opts, &e, err);
		if (rc)
			return rc;
		cr_tier t = e.tier;

		if (t == CR_TIER_NOFIT) {
			/* Nothing fits: the smallest file comes closest. */
			if (!have[t] || quants[i]->bpw < quants[best[t]]->bpw) {
				best[t] = fast[t] = i;
				best_est[t] = fast_est[t] = e;
				qual[t] = quants[i]->bpw;
				have[t] = true;
			}
			continue;
		}
		{
			double qi = quality_bpw(model, quants[i], opts);

			if (!have[t] || better_quality(qi, e.decode_tokens_per_s, i, qual[t],
						       best_est[t].decode_tokens_per_s, best[t])) {
				best[t] = i;
				best_est[t] = e;
				qual[t] = qi;
			}
		}
		if (!have[t] || closer(pace(model, opts, &e), quants[i]->bpw, i, pace(model, opts, &fast_est[t]),
				       quants[fast[t]]->bpw, fast[t])) {
			fast[t] = i;
			fast_est[t] = e;
		}
		have[t] = true;
	}
	/* Reaching "require" means any tier from fast to require: the winner
	 * is the highest bpw over all of them, not the best tier's. */
	{
		bool found = false;
		size_t w = 0;
		cr_tier wt = CR_TIER_FAST;
		double w_qual = 0, w_tps = 0;

		for (int t = 0; t <= (int)require; t++) {
			if (!have[t])
				continue;
			if (!found || better_quality(qual[t], best_est[t].decode_tokens_per_s, best[t],
						     w_qual, w_tps, w)) {
				w = best[t];
				wt = (cr_tier)t;
				w_qual = qual[t];
				w_tps = best_est[t].decode_tokens_per_s;
				found = true;
			}
		}
		if (found) {
			out->outcome = CR_BEST_REACHES;
			out->index = w;
			out->estimate = best_est[wt];
			return CR_OK;
		}
	}
	/* None reaches it: the best tier reached, and in it the candidate
	 * closest to "require", i.e. the fastest (a bigger quant would only
	 * be slower and further from it). With the speed unknown there is
	 * nothing to be close by: the highest bpw, as for a reach. */
	for (int t = 0; t < CR_TIER_COUNT; t++) {
		bool by_quality = t == CR_TIER_UNKNOWN;
		size_t k;

		if (!have[t])
			continue;
		k = by_quality ? best[t] : fast[t];
		/* A miss is an answer, not an error. */
		out->outcome = t == CR_TIER_NOFIT ? CR_BEST_NOFIT : CR_BEST_CLOSEST;
		out->index = k;
		out->estimate = by_quality ? best_est[t] : fast_est[t];
		return CR_OK;
	}
	/* Unreachable: every candidate landed in some tier. */
	return cr_seterr(err, CR_ERR_INVALID, "best quant of %s: no estimate", model->id);
}

bool cr_decide_default_candidate(const cr_model *m, const cr_quant *q)
{
	/* Legacy round-to-nearest types: a K-quant of about the same size has a
	 * smaller perplexity increase (llama-quantize QUANT_OPTIONS; decide.h). */
	static const char *const legacy[] = { "Q4_0", "Q4_1", "Q5_0", "Q5_1", NULL };

	if (!m || !q)
		return false;
	for (const char *const *l = legacy; *l; l++)
		if (strcmp(q->base_type, *l) == 0)
			return false;
	/* MXFP4 is an expert format (llama-quantize MXFP4_MOE). */
	if (strcmp(q->base_type, "MXFP4") == 0)
		return m->experts_total > 0;
	return true;
}

static int cmp_params_bpw_speed_id(const cr_fit_row *a, const cr_fit_row *b)
{
	if (a->model->params != b->model->params)
		return a->model->params > b->model->params ? -1 : 1;
	if (a->quant && b->quant && a->quant->bpw != b->quant->bpw)
		return a->quant->bpw > b->quant->bpw ? -1 : 1;
	if (a->estimate.decode_tokens_per_s != b->estimate.decode_tokens_per_s)
		return a->estimate.decode_tokens_per_s > b->estimate.decode_tokens_per_s ? -1 : 1;
	return strcmp(a->model->id, b->model->id);
}

int cr_decide_fit_compare(const cr_fit_row *a, const cr_fit_row *b)
{
	if (a->status != b->status)
		return a->status < b->status ? -1 : 1;
	/* Among misses, the better achievable tier first. */
	if (a->status == CR_FIT_BELOW && a->estimate.tier != b->estimate.tier)
		return a->estimate.tier < b->estimate.tier ? -1 : 1;
	return cmp_params_bpw_speed_id(a, b);
}

static int compare_v(const void *a, const void *b)
{
	return cr_decide_fit_compare(a, b);
}

int cr_decide_fit(const cr_model *const *models, size_t n_models, const cr_quant *const *quants,
		  size_t n_quants, const cr_rig *rig, const cr_fit_opts *opts, cr_fit_row *rows,
		  size_t *n_reach, cr_error *err)
{
	const cr_quant *cand[CR_DECIDE_MAX_QUANTS];
	size_t map[CR_DECIDE_MAX_QUANTS], map_n;
	size_t reach = 0;

	if (!rig || !opts || !n_reach || (n_models && (!models || !rows)))
		return cr_seterr(err, CR_ERR_INVALID, "fit: missing rig, options or output");
	if (!quants || n_quants == 0)
		return cr_seterr(err, CR_ERR_INVALID, "fit: no candidate quants");
	if (n_quants > CR_DECIDE_MAX_QUANTS)
		return cr_seterr(err, CR_ERR_INVALID, "fit: at most %d candidate quants",
				 CR_DECIDE_MAX_QUANTS);
	for (size_t k = 0; k < n_quants; k++)
		if (!quants[k])
			return cr_seterr(err, CR_ERR_INVALID, "fit: candidate quant %zu is NULL", k);
	if ((unsigned)opts->require >= CR_TIER_UNKNOWN)
		return cr_seterr(err, CR_ERR_INVALID,
				 "fit: the required tier must be fast, ok, slow or tight");
	for (size_t i = 0; i < n_models; i++) {
		const cr_model *m = models[i];
		cr_fit_row *r = &rows[i];
		cr_estimate_request req = CR_ESTIMATE_REQUEST_INIT;
		cr_estimate_setup set;
		cr_best_quant best;
		cr_error e = CR_ERROR_INIT;
		int rc;

		memset(r, 0, sizeof(*r));
		if (!m)
			return cr_seterr(err, CR_ERR_INVALID, "fit: model %zu is NULL", i);
		r->model = m;
		/* As check does: the default context and flash attention "auto"
		 * per model (cr_estimate_resolve_opts). */
		req.opts = opts->estimate;
		req.n_ctx = opts->n_ctx;
		req.flash_attn = opts->flash_attn;
		rc = cr_estimate_resolve_opts(m, rig, &req, &set, &e);
		r->context = set.opts.n_ctx;
		memcpy(r->flash_attn_reason, set.flash_attn_reason, sizeof(r->flash_attn_reason));
		if (rc == CR_ERR_RANGE && set.bad == CR_REQUEST_CTX) {
			r->status = CR_FIT_CONTEXT;
			continue;
		}
		if (rc) {
			if (err)
				*err = e;
			return rc;
		}
		if (opts->all_quants) {
			memcpy(cand, quants, n_quants * sizeof(*cand));
			map_n = n_quants;
			for (size_t k = 0; k < n_quants; k++)
				map[k] = k;
		} else {
			map_n = 0;
			for (size_t k = 0; k < n_quants; k++) {
				if (cr_decide_default_candidate(m, quants[k])) {
					cand[map_n] = quants[k];
					map[map_n++] = k;
				}
			}
			if (!map_n)
				return cr_seterr(err, CR_ERR_INVALID,
						 "fit: no default candidate quant for %s (all are legacy types); weigh all quants",
						 m->id);
		}
		rc = cr_decide_best_quant(m, cand, map_n, rig, &set.opts, opts->require, &best, &e);
		if (rc) {
			if (err)
				*err = e;
			return rc;
		}
		r->estimate = best.estimate;
		r->status = best.outcome == CR_BEST_REACHES ? CR_FIT_REACHES : CR_FIT_BELOW;
		r->quant_index = map[best.index];
		r->quant = quants[r->quant_index];
		reach += r->status == CR_FIT_REACHES;
	}
	if (n_models)
		qsort(rows, n_models, sizeof(*rows), compare_v);
	*n_reach = reach;
	return CR_OK;
}
