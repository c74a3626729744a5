/*
 * The numbers of clefrun report and clefrun chart (report.h: rpt_data).
 * Resolves the model, its quants and rigs, and fills rpt_data with every
 * figure the page and the chart show. Every number comes from the library:
 * cr_estimate_run per rig and quant, cr_curve_memory for the curves and the
 * one-GPU columns, cr_decide_best_quant for the best quant per rig.
 * Nothing here writes HTML: report_html.c renders the page, svg.c the chart.
 */
#include <stdlib.h>
#include <string.h>

#include "clefrun/rank.h"
#include "estimate_out.h"
#include "report.h"

/* The quants of a catalog model when no --quant is given: the seed pages'
 * usual ladder, 2 to 16 bits, in clefrun's default candidate set (decide.h:
 * MXFP4 only for MoE models). */
static const char *const default_quants[] = { "Q2_K", "Q3_K_M", "MXFP4", "Q4_K_M", "Q5_K_M",
					      "Q6_K", "Q8_0", "F16" };
#define PRIMARY_QUANT "Q4_K_M"

/* ---- the numbers ------------------------------------------------------------ */

static int by_bpw(const void *a, const void *b)
{
	const rpt_quant *x = a, *y = b;

	return (x->bpw > y->bpw) - (x->bpw < y->bpw);
}

static int resolve_quants(const rpt_cfg *c, rpt_data *d)
{
	const cr_model *m = &d->cm.model;
	const cr_quant *primary = NULL;

	if (d->cm.from_gguf) {
		if (c->n_quants) {
			fprintf(stderr, "%s: --quant does not apply to a GGUF file, whose quantization is fixed (for a repository, hf:OWNER/REPO:QUANT picks one)\n",
				c->cmd);
			return EXIT_USAGE;
		}
		/* Exact tensor bytes, no preset (estimate.h cr_weights). */
		cr_weights_exact(d->cm.weights_bytes, NULL, &d->q[0].weights);
		d->q[0].weights.mapped_extra_bytes = d->cm.mapped_extra_bytes;
		snprintf(d->q[0].label, sizeof(d->q[0].label), "%s", d->cm.file_type[0] ? d->cm.file_type : "GGUF");
		d->n_q = 1;
	} else if (c->n_quants) {
		for (int i = 0; i < c->n_quants; i++) {
			const cr_quant *q = cli_find_quant(d->cat, c->quant_ids[i]);
			bool dup = false;

			if (!q)
				return EXIT_USAGE;
			for (int k = 0; k < d->n_q; k++)
				dup |= d->q[k].quant == q;
			if (!dup)
				d->q[d->n_q++].quant = q;
		}
		primary = d->q[0].quant;
	} else {
		for (size_t i = 0; i < sizeof(default_quants) / sizeof(default_quants[0]); i++) {
			const cr_quant *q = cr_catalog_find_quant(d->cat, default_quants[i]);

			if (q && cr_decide_default_candidate(m, q))
				d->q[d->n_q++].quant = q;
		}
		primary = cr_catalog_find_quant(d->cat, PRIMARY_QUANT);
		if (!d->n_q) {
			fprintf(stderr, "%s: the catalog has none of the default quants; name some with --quant\n",
				c->cmd);
			return EXIT_USAGE;
		}
	}
	for (int i = 0; i < d->n_q; i++) {
		rpt_quant *q = &d->q[i];

		if (q->quant) {
			cr_weights_preset(q->quant, &q->weights);
			snprintf(q->label, sizeof(q->label), "%s", q->quant->id);
		}
		q->bpw = cr_estimate_weights_bpw(m, &q->weights);
		q->weights_bytes = cr_estimate_weights_size(m, &q->weights);
	}
	/* Ascending bits per weight: the ladder reads from small to large. */
	qsort(d->q, (size_t)d->n_q, sizeof(d->q[0]), by_bpw);
	d->primary = 0;
	for (int i = 0; i < d->n_q; i++)
		if (primary && d->q[i].quant == primary)
			d->primary = i;
	return 0;
}

static int resolve_rigs(const rpt_cfg *c, rpt_data *d)
{
	for (int i = 0; i < c->n_rigs; i++) {
		const cr_rig *r = cli_find_rig(d->cat, c->rig_ids[i], &d->scratch[i]);

		if (!r)
			return EXIT_USAGE;
		d->r[d->n_r++].rig = r;
	}
	for (size_t i = 0; !c->n_rigs && i < cr_catalog_rig_count(d->cat) && d->n_r < RPT_MAX_RIGS; i++)
		if (cr_catalog_rig_at(d->cat, i)->reference)
			d->r[d->n_r++].rig = cr_catalog_rig_at(d->cat, i);
	if (!d->n_r) {
		fprintf(stderr, "%s: no rigs: the catalog marks none as a reference rig; name some with --rig\n",
			c->cmd);
		return EXIT_USAGE;
	}
	for (int i = 0; i < d->n_r; i++) {
		const cr_rig *r = d->r[i].rig;

		for (unsigned g = 0; g < r->n_devices; g++) {
			if (r->devices[g].kind == CR_MEM_SYSTEM)
				d->r[i].has_ram = true;
			else
				d->r[i].n_gpus += r->devices[g].count;
		}
	}
	return 0;
}

static int fail_estimate(const rpt_cfg *c, int s, const cr_error *err)
{
	fprintf(stderr, "%s: %s\n", c->cmd, err->message);
	return cli_exit_for_status(s);
}

/* The KV cache in figures, for the page's words (rpt_kv): the library's
 * KV profile at the model's maximum context, at the report's KV type and
 * at f16 (what calculators assume). */
static int kv_facts_of(const rpt_data *d, rpt_kv *f, cr_error *err)
{
	const cr_model *m = &d->cm.model;
	cr_estimate_opts o = d->opts;
	cr_kv_profile at_max, f16;
	unsigned max_heads = 0;
	int rc;

	memset(f, 0, sizeof(*f));
	o.n_ctx = m->context_max;
	if ((rc = cr_estimate_kv_profile(m, &o, &at_max, err)))
		return rc;
	o.type_k = o.type_v = CR_KV_F16;
	if ((rc = cr_estimate_kv_profile(m, &o, &f16, err)))
		return rc;
	f->layers = m->n_layers;
	f->kv_layers = at_max.full_layers + at_max.sliding_layers;
	f->swa = at_max.sliding_layers;
	f->rec = at_max.recurrent_layers;
	f->per_token = at_max.bytes_per_token;
	f->at_max = at_max.kv_bytes;
	f->state = at_max.state_bytes;
	f->swa_cap = at_max.sliding_bytes;
	f->f16_token = f16.bytes_per_token;
	f->cell_pad = at_max.cell_pad;
	/* The usual calculators' formula, which the page argues with: every
	 * layer, the widest KV, f16. Not the estimator's: the page's
	 * comparison. */
	for (unsigned i = 0; i < m->n_layers && i < CR_MAX_LAYERS; i++)
		if (m->kv_heads[i] > max_heads)
			max_heads = m->kv_heads[i];
	f->naive_token = (uint64_t)m->n_layers * max_heads * ((uint64_t)m->head_dim_k + m->head_dim_v) * 2u;
	return 0;
}

static int gather_devices(const rpt_cfg *c, rpt_data *d, const cr_estimate_request *req);
static int gather_serving(const rpt_cfg *c, rpt_data *d, const cr_estimate_request *req);

int rpt_gather(const rpt_cfg *c, rpt_data *d)
{
	cli_source_opts so = CLI_SOURCE_OPTS_INIT;
	cr_estimate_request req = CR_ESTIMATE_REQUEST_INIT;
	cr_estimate_setup set;
	cr_memory *mem = NULL;
	const cr_model *m;
	cr_rig one;
	cr_error err = CR_ERROR_INIT;
	const cr_quant *cands[RPT_MAX_QUANTS];
	int rc;

	memset(d, 0, sizeof(*d));
	d->cat = cli_open_catalog(&c->g);
	if (!d->cat)
		return EXIT_ERROR;
	so.revision = c->revision;
	so.command = "clefrun report";
	so.allow_truncated = c->header_only;
	if ((rc = cli_resolve_model(d->cat, c->model_id, &so, &d->cm)))
		return rc;
	m = &d->cm.model;
	/* The library defaults the context and resolves flash attention (for
	 * one GPU: no rig); a --ctx above the model's maximum is its range
	 * error, checked before the quants and rigs. */
	req.opts.type_k = req.opts.type_v = c->kv;
	req.opts.workload = c->workload;
	req.n_ctx = c->ctx_given ? c->ctx : 0;
	if ((rc = cr_estimate_resolve_opts(m, NULL, &req, &set, &err))) {
		cli_request_error(&set, m, rc, &err);
		return cli_exit_for_status(rc);
	}
	d->opts = set.opts;
	snprintf(d->fa_why, sizeof(d->fa_why), "%s", set.flash_attn_reason);
	req.n_ctx = d->opts.n_ctx;
	if ((rc = resolve_quants(c, d)) || (rc = resolve_rigs(c, d)))
		return rc;

	/* Curves and the one-GPU columns. */
	cr_curve_one_gpu_rig(&one);
	d->n_curve = cr_curve_contexts(m, 0, 8, d->curve_ctx, CR_CURVE_MAX_POINTS);
	mem = calloc(CR_CURVE_MAX_POINTS, sizeof(*mem));
	if (!mem) {
		fprintf(stderr, "clefrun: out of memory\n");
		return EXIT_ERROR;
	}
	for (int k = 0; k < d->n_q; k++) {
		rpt_quant *q = &d->q[k];
		cr_estimate_opts o = d->opts;

		if ((rc = cr_curve_memory_weights(m, &q->weights, &one, &o, d->curve_ctx, d->n_curve, mem, &err)))
			goto fail;
		for (size_t i = 0; i < d->n_curve; i++)
			q->curve_gib[i] = (double)mem[i].total_bytes / 1073741824.0;
		/* The single-device figure, the same call inspect makes. */
		if ((rc = cr_curve_one_gpu_weights(m, &q->weights, &o, &q->at_ctx, &err)))
			goto fail;
		o.n_ctx = m->context_max;
		if ((rc = cr_curve_one_gpu_weights(m, &q->weights, &o, &q->at_max, &err)))
			goto fail;
	}
	free(mem);
	mem = NULL;

	/* Every rig at every quant, and the best quant per rig. */
	for (int k = 0; k < d->n_q; k++)
		cands[k] = d->q[k].quant;
	for (int i = 0; i < d->n_r; i++) {
		rpt_rig *r = &d->r[i];
		cr_best_quant best;

		/* Flash attention "auto" resolves per rig. */
		if ((rc = cr_estimate_resolve_opts(m, r->rig, &req, &set, &err)))
			return fail_estimate(c, rc, &err);
		for (int k = 0; k < d->n_q; k++)
			if ((rc = cr_estimate_run_weights(m, &d->q[k].weights, r->rig, &set.opts, &r->est[k], &err)))
				return fail_estimate(c, rc, &err);
		r->best = -1;
		if (d->cm.from_gguf)
			continue; /* one file, no choice: the page has no best-quant column */
		rc = cr_decide_best_quant(m, cands, (size_t)d->n_q, r->rig, &set.opts, CR_TIER_OK, &best, &err);
		if (rc)
			return fail_estimate(c, rc, &err);
		r->best = best.outcome == CR_BEST_NOFIT ? -1 : (int)best.index;
		r->best_tier = best.estimate.tier;
		r->best_reaches = best.outcome == CR_BEST_REACHES;
	}

	/* The smallest rig per quant (rank.h), for the report's context and
	 * for the model's whole context. */
	for (int k = 0; k < d->n_q; k++) {
		const cr_estimate *est[RPT_MAX_RIGS];
		size_t at_ctx, at_max;

		for (int i = 0; i < d->n_r; i++)
			est[i] = &d->r[i].est[k];
		if ((rc = cr_rank_smallest_rig(est, (size_t)d->n_r, CR_RANK_CONTEXT, m->context_max, &at_ctx, &err)) ||
		    (rc = cr_rank_smallest_rig(est, (size_t)d->n_r, CR_RANK_FULL_CONTEXT, m->context_max, &at_max,
					       &err)))
			return fail_estimate(c, rc, &err);
		d->q[k].smallest_ctx = at_ctx < (size_t)d->n_r ? (int)at_ctx : -1;
		d->q[k].smallest_max = at_max < (size_t)d->n_r ? (int)at_max : -1;
	}

	if ((rc = kv_facts_of(d, &d->kv, &err)))
		return fail_estimate(c, rc, &err);
	/* The method's several-GPU example: the first rig with more than one
	 * accelerator and a decode speed, against the calculators' rule of
	 * 0.5 x the cards' summed bandwidth / the file size. */
	d->multi = -1;
	for (int i = 0; i < d->n_r && d->multi < 0; i++) {
		const cr_rig *r = d->r[i].rig;

		if (d->r[i].n_gpus < 2 || d->r[i].est[d->primary].decode_tokens_per_s <= 0)
			continue;
		d->multi = i;
		for (unsigned g = 0; g < r->n_devices; g++)
			if (r->devices[g].kind != CR_MEM_SYSTEM)
				d->multi_agg_gbs += r->devices[g].count * r->devices[g].bandwidth_gbs;
		d->multi_naive_tps = 0.5 * d->multi_agg_gbs * 1e9 / (double)d->q[d->primary].weights_bytes;
	}
	if ((rc = gather_serving(c, d, &req)))
		return rc;
	return gather_devices(c, d, &req);
fail:
	free(mem);
	return fail_estimate(c, rc, &err);
}

/* Every catalog rig at the primary quant (the seed pages' "which GPUs can
 * run it"), and the priced rigs ranked for buying and renting (buy.h) with
 * the report's quants as candidates. */
static int gather_devices(const rpt_cfg *c, rpt_data *d, const cr_estimate_request *req)
{
	const cr_model *m = &d->cm.model;
	cr_estimate_setup set;
	cr_error err = CR_ERROR_INIT;
	size_t n = cr_catalog_rig_count(d->cat);
	int rc;

	d->dev_rigs = calloc(n + 1, sizeof(*d->dev_rigs));
	d->dev_est = calloc(n + 1, sizeof(*d->dev_est));
	d->buy_rows = calloc(n + 1, sizeof(*d->buy_rows));
	d->rent_rows = calloc(n + 1, sizeof(*d->rent_rows));
	if (!d->dev_rigs || !d->dev_est || !d->buy_rows || !d->rent_rows) {
		fprintf(stderr, "clefrun: out of memory\n");
		return EXIT_ERROR;
	}
	for (size_t i = 0; i < n; i++) {
		const cr_rig *r = cr_catalog_rig_at(d->cat, i);

		if ((rc = cr_estimate_resolve_opts(m, r, req, &set, &err)) ||
		    (rc = cr_estimate_run_weights(m, &d->q[d->primary].weights, r, &set.opts, &d->dev_est[d->n_dev],
						  &err)))
			return fail_estimate(c, rc, &err);
		d->dev_rigs[d->n_dev++] = r;
	}
	/* As check --rig all orders them: group, then faster decode first (a
	 * stable insertion sort keeps the catalog order on a tie). */
	for (size_t i = 1; i < d->n_dev; i++) {
		const cr_rig *rr = d->dev_rigs[i];
		cr_estimate e = d->dev_est[i];
		size_t j = i;

		for (; j > 0; j--) {
			const cr_estimate *p = &d->dev_est[j - 1];
			cr_fit_group gp = cr_decide_group(p->tier), ge = cr_decide_group(e.tier);

			if (gp < ge || (gp == ge && p->decode_tokens_per_s >= e.decode_tokens_per_s))
				break;
			d->dev_est[j] = d->dev_est[j - 1];
			d->dev_rigs[j] = d->dev_rigs[j - 1];
		}
		d->dev_est[j] = e;
		d->dev_rigs[j] = rr;
	}
	if (d->cm.from_gguf) {
		snprintf(d->prices_note, sizeof(d->prices_note),
			 "a GGUF file has one quantization; prices are ranked for catalog models (clefrun buy)");
		return 0;
	}
	{
		char from[4200];

		rc = cli_open_prices(NULL, &c->g, d->cat, &d->prices, from, sizeof(from), &err);
	}
	if (rc) {
		/* The page still says what runs it; the prices section says why it is empty. */
		snprintf(d->prices_note, sizeof(d->prices_note), "no prices: %s", cli_safe(err.message));
		return 0;
	}
	for (int k = 0; k < d->n_q; k++)
		d->buy_quants[k] = d->q[k].quant;
	if ((rc = cr_buy_rank(m, d->buy_quants, (size_t)d->n_q, d->dev_rigs, d->n_dev, d->prices, req, CR_TIER_OK,
			      CR_PRICE_BUY, d->buy_rows, &d->n_buy, &err)) ||
	    (rc = cr_buy_rank(m, d->buy_quants, (size_t)d->n_q, d->dev_rigs, d->n_dev, d->prices, req, CR_TIER_OK,
			      CR_PRICE_RENT, d->rent_rows, &d->n_rent, &err)))
		return fail_estimate(c, rc, &err);
	for (size_t i = 0; i < d->n_buy; i++)
		d->buy_reach += d->buy_rows[i].reaches;
	for (size_t i = 0; i < d->n_rent; i++)
		d->rent_reach += d->rent_rows[i].reaches;
	return 0;
}

/* The plan of N parallel sequences on the first rig that runs the primary
 * quant: each sequence keeps the report's context, as llama-server -np N -c
 * N x CTX gives it, while N x CTX stays within the model's maximum context. */
static int gather_serving(const rpt_cfg *c, rpt_data *d, const cr_estimate_request *req)
{
	static const uint32_t ns[] = { 1, 2, 4, 8, 16, 32 };
	const cr_model *m = &d->cm.model;
	cr_estimate_setup set;
	cr_error err = CR_ERROR_INIT;
	int rc;

	d->serve_rig = -1;
	for (int i = 0; i < d->n_r && d->serve_rig < 0; i++)
		if (d->r[i].est[d->primary].fits && d->r[i].est[d->primary].decode_tokens_per_s > 0)
			d->serve_rig = i;
	if (d->serve_rig < 0)
		return 0;
	if ((rc = cr_estimate_resolve_opts(m, d->r[d->serve_rig].rig, req, &set, &err)))
		return fail_estimate(c, rc, &err);
	for (size_t k = 0; k < sizeof(ns) / sizeof(*ns); k++) {
		cr_estimate_opts o = set.opts;
		uint64_t total = (uint64_t)d->opts.n_ctx * ns[k];

		if (m->context_max && total > m->context_max)
			break;
		o.n_ctx = (uint32_t)total;
		if ((rc = cr_plan_parallel(m, &d->q[d->primary].weights, d->r[d->serve_rig].rig, &o, &ns[k], 1,
					   &d->serve[d->n_serve], &err)))
			return fail_estimate(c, rc, &err);
		d->n_serve++;
	}
	return 0;
}

void rpt_free(rpt_data *d)
{
	free(d->dev_rigs);
	free(d->dev_est);
	free(d->buy_rows);
	free(d->rent_rows);
	cr_prices_free(d->prices);
	d->dev_rigs = NULL;
	d->dev_est = NULL;
	d->buy_rows = d->rent_rows = NULL;
	d->prices = NULL;
	cr_catalog_free(d->cat);
	d->cat = NULL;
}

void rpt_chart(const rpt_data *d, rpt_chart_storage *s, cli_chart *c)
{
	const cr_model *m = &d->cm.model;
	char ctx[16];

	memset(c, 0, sizeof(*c));
	snprintf(s->title, sizeof(s->title), "%s: memory against context", m->name);
	cli_fmt_ctx(ctx, sizeof(ctx), d->opts.n_ctx);
	snprintf(s->subtitle, sizeof(s->subtitle),
		 "llama.cpp, KV cache %s; dashed: usable memory of each rig; dot: where %s runs out on that rig",
		 cr_kv_type_name(d->opts.type_k), d->q[d->primary].label);
	for (int k = 0; k < d->n_q; k++) {
		s->series[k].label = d->q[k].label;
		s->series[k].ctx = d->curve_ctx;
		s->series[k].gib = d->q[k].curve_gib;
		s->series[k].n = d->n_curve;
	}
	for (int i = 0; i < d->n_r; i++) {
		const cr_estimate *e = &d->r[i].est[d->primary];

		s->lines[i].label = d->r[i].rig->id;
		s->lines[i].gib = (double)e->memory.available_bytes / 1073741824.0;
		s->lines[i].none = e->tier == CR_TIER_NOFIT;
		s->lines[i].runs_out_ctx = e->max_context < m->context_max ? e->max_context : 0;
	}
	c->title = s->title;
	c->subtitle = s->subtitle;
	c->series = s->series;
	c->n_series = (size_t)d->n_q;
	c->primary = (size_t)d->primary;
	c->lines = s->lines;
	c->n_lines = (size_t)d->n_r;
	c->ctx_lo = d->n_curve ? d->curve_ctx[0] : 1;
	c->ctx_hi = m->context_max;
	c->ctx_mark = d->opts.n_ctx;
}

