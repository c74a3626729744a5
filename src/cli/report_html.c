/*
 * The page of clefrun report: one self-contained HTML file (inline CSS and
 * SVG, no script, nothing that loads from anywhere) with the model's facts,
 * one row per quant ("Run it locally"), one row per rig ("Can you run
 * it?"), the memory-against-context chart and how it is computed
 * (docs/report.md). It only formats rpt_data (report_data.c): no number is
 * computed here.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report_html.h"

static void fmt_gib(char *buf, size_t cap, uint64_t bytes)
{
	cli_fmt_gib(buf, cap, (double)bytes);
}

/* 262144 -> "262,144". */
static void fmt_thousands(char *buf, size_t cap, unsigned long long v)
{
	char tmp[32];
	size_t n, o = 0;

	snprintf(tmp, sizeof(tmp), "%llu", v);
	n = strlen(tmp);
	for (size_t i = 0; i < n && o + 2 < cap; i++) {
		if (i && (n - i) % 3 == 0)
			buf[o++] = ',';
		buf[o++] = tmp[i];
	}
	buf[o] = '\0';
}

static void fmt_kib(char *buf, size_t cap, uint64_t bytes)
{
	if (bytes >= 1048576)
		snprintf(buf, cap, "%.2f MiB", (double)bytes / 1048576.0);
	else
		snprintf(buf, cap, "%.4g KiB", (double)bytes / 1024.0);
}

/* The library's constants as the prose writes them, so the words follow
 * the numbers: runtime in MiB, the margin in GiB. */
static double runtime_mib(void)
{
	return (double)CR_DISCRETE_RUNTIME_BYTES / 1048576.0;
}

static double margin_gib(void)
{
	return (double)CR_DEFAULT_HEADROOM_BYTES / 1073741824.0;
}

/* A usable share: "2/3" where a denominator up to 12 gives it exactly
 * (fraction), else "79&#160;%". */
static void fmt_share(char *buf, size_t cap, double f, bool fraction)
{
	for (int den = 2; fraction && den <= 12; den++) {
		double num = f * den;
		long n = lround(num);

		if (n > 0 && fabs(num - (double)n) < 1e-9) {
			snprintf(buf, cap, "%ld/%d", n, den);
			return;
		}
	}
	snprintf(buf, cap, "%.3g&#160;%%", f * 100);
}

static void tier_badge(cli_buf *b, cr_tier t)
{
	cli_buf_printf(b, "<span class=\"tier tier-%s\">%s</span>", cr_tier_name(t), cr_tier_name(t));
}

static void rig_cell(cli_buf *b, const cr_rig *r)
{
	cli_buf_puts(b, "<span class=\"name\">");
	cli_buf_esc(b, r->name[0] ? r->name : r->id);
	cli_buf_puts(b, "</span>");
	if (r->unreleased)
		cli_buf_puts(b, " <span class=\"flag\">not released</span>");
	cli_buf_puts(b, "<span class=\"id\">");
	cli_buf_esc(b, r->id);
	cli_buf_puts(b, "</span>");
}

static void kv_words(cli_buf *b, const rpt_data *d, const rpt_kv *f)
{
	const cr_model *m = &d->cm.model;
	char tok[32], max[32], st[32], cap[32], ctx[16];
	const char *kt = cr_kv_type_name(d->opts.type_k);

	fmt_kib(tok, sizeof(tok), f->per_token);
	fmt_gib(max, sizeof(max), f->at_max);
	fmt_kib(st, sizeof(st), f->state);
	fmt_gib(cap, sizeof(cap), f->swa_cap);
	cli_fmt_ctx(ctx, sizeof(ctx), m->context_max);
	if (m->mla) {
		cli_buf_printf(b, "MLA: all %u layers keep one compressed latent (%u values) per token instead of "
				  "full keys and values: %s per token at %s (%s at %s).",
			       f->kv_layers, m->mla_kv_lora_rank + m->mla_rope_dim, tok, kt, max, ctx);
	} else if (f->rec) {
		cli_buf_printf(b, "%u of %u layers keep a KV cache: %s per token at %s (%s at %s). "
				  "The other %u are linear-attention layers with a fixed %s state, whatever the context.",
			       f->kv_layers, f->layers, tok, kt, max, ctx, f->rec, st);
	} else if (f->swa) {
		cli_buf_printf(b, "%u of %u layers attend to a %u-token sliding window, so their cache stops growing "
				  "(%s in all); the other %u keep a full KV cache: %s per token at %s (%s at %s).",
			       f->swa, f->layers, m->window, cap, f->kv_layers - f->swa, tok, kt, max, ctx);
	} else {
		cli_buf_printf(b, "All %u layers keep a KV cache: %s per token at %s (%s at %s).", f->kv_layers, tok,
			       kt, max, ctx);
	}
}

static void fact(cli_buf *b, const char *label, const char *value_escaped_html, const char *cls)
{
	cli_buf_printf(b, "<div%s%s%s><dt>%s</dt><dd>%s</dd></div>\n", cls ? " class=\"" : "", cls ? cls : "",
		       cls ? "\"" : "", label, value_escaped_html ? value_escaped_html : "");
}

/* A fact whose value is plain text (escaped here). */
static void fact_text(cli_buf *b, const char *label, const char *text)
{
	cli_buf v;

	cli_buf_init(&v);
	if (text && *text)
		cli_buf_esc(&v, text);
	else
		cli_buf_puts(&v, "<span class=\"muted\">not stated</span>");
	fact(b, label, v.data ? v.data : "", NULL);
	if (v.failed)
		b->failed = true;
	cli_buf_free(&v);
}

static void section_facts(cli_buf *b, const rpt_data *d, const rpt_kv *kv)
{
	const cr_model *m = &d->cm.model;
	char p[32], a[32], n[32], ctx[16];
	cli_buf v;

	cli_buf_puts(b, "<section id=\"facts\" aria-labelledby=\"h-facts\">\n<h2 id=\"h-facts\">The model</h2>\n"
			"<dl class=\"facts\">\n");
	cli_buf_init(&v);
	cli_fmt_params(p, sizeof(p), m->params);
	fmt_thousands(n, sizeof(n), m->params);
	cli_buf_printf(&v, "%s<span class=\"sub\">%s</span>", p, n);
	fact(b, "Parameters", v.data, NULL);

	v.len = 0;
	cli_fmt_params(a, sizeof(a), m->active_params);
	if (m->experts_total)
		cli_buf_printf(&v, "%s<span class=\"sub\">mixture of experts: %u of %u routed%s read per token</span>", a,
			       m->experts_used, m->experts_total, m->experts_shared ? " + shared" : "");
	else
		cli_buf_printf(&v, "%s<span class=\"sub\">dense: every weight is read per token</span>", a);
	fact(b, "Active parameters", v.data, NULL);

	v.len = 0;
	fmt_thousands(n, sizeof(n), m->context_max);
	cli_fmt_ctx(ctx, sizeof(ctx), m->context_max);
	cli_buf_printf(&v, "%s tokens<span class=\"sub\">%s</span>", n, ctx);
	fact(b, "Context", v.data, NULL);

	fact_text(b, "License", m->license);
	fact_text(b, "Developer", m->developer);
	if (m->released[0])
		fact_text(b, "Released", m->released);

	v.len = 0;
	cli_buf_esc(&v, m->arch[0] ? m->arch : "unknown");
	cli_buf_printf(&v, "<span class=\"sub\">%u layers, hidden %u, %u attention heads, vocabulary ", m->n_layers,
		       m->hidden, m->n_heads);
	fmt_thousands(n, sizeof(n), m->vocab);
	cli_buf_printf(&v, "%s", n);
	if (m->backbone[0]) {
		cli_buf_puts(&v, "; built on ");
		cli_buf_esc(&v, m->backbone);
	}
	cli_buf_puts(&v, "</span>");
	fact(b, "Architecture", v.data, NULL);

	v.len = 0;
	kv_words(&v, d, kv);
	fact(b, "KV cache", v.data, "wide");

	if (d->cm.from_gguf) {
		v.len = 0;
		cli_buf_esc(&v, cli_url_shown(d->cm.location));
		cli_buf_puts(&v, "<span class=\"sub\">read from its GGUF header");
		if (d->cm.file_type[0]) {
			cli_buf_puts(&v, "; file type ");
			cli_buf_esc(&v, d->cm.file_type);
		}
		cli_buf_puts(&v, "</span>");
		fact(b, "Source", v.data, "wide");
	}
	if (v.failed)
		b->failed = true;
	cli_buf_free(&v);
	cli_buf_puts(b, "</dl>\n</section>\n");
}

static void smallest_cell(cli_buf *b, const rpt_data *d, int q, int ri)
{
	const rpt_rig *r;
	const cr_estimate *e;
	char use[32], mc[16];

	if (ri < 0) {
		cli_buf_printf(b, "<td><span class=\"muted\">none of the %d rigs</span></td>", d->n_r);
		return;
	}
	r = &d->r[ri];
	e = &r->est[q];
	fmt_gib(use, sizeof(use), e->memory.available_bytes);
	cli_fmt_ctx(mc, sizeof(mc), e->max_context);
	cli_buf_puts(b, "<td>");
	rig_cell(b, r->rig);
	cli_buf_puts(b, "<span class=\"sub\">");
	tier_badge(b, e->tier);
	cli_buf_printf(b, " %s usable, up to %s tokens</span></td>", use, mc);
}

static void section_local(cli_buf *b, const rpt_data *d)
{
	const cr_model *m = &d->cm.model;
	char ctx[16], max[16];

	cli_fmt_ctx(ctx, sizeof(ctx), d->opts.n_ctx);
	cli_fmt_ctx(max, sizeof(max), m->context_max);
	cli_buf_printf(b, "<section id=\"local\" aria-labelledby=\"h-local\">\n<h2 id=\"h-local\">Run it locally</h2>\n"
			  "<p>One row per quantization. <strong>Memory</strong> is what one GPU needs with llama.cpp: the "
			  "weights it holds, the KV cache and state, its compute buffer and %g&#160;MiB of runtime "
			  "(the token-embedding table stays in system RAM). Rigs with several GPUs or unified memory "
			  "need a little more or less; the rig table below has each rig&#39;s own figure. The smallest "
			  "rig is the one with the least usable memory, of the %d in this report, that fits.</p>\n",
		       runtime_mib(), d->n_r);
	cli_buf_printf(b, "<div class=\"scroll\"><table class=\"quants\" id=\"quants-table\">\n<thead><tr>"
			  "<th scope=\"col\">Quant</th><th scope=\"col\" class=\"num\">Bits per weight</th>"
			  "<th scope=\"col\" class=\"num\">File size (weights)</th>"
			  "<th scope=\"col\" class=\"num\">Memory at %s</th><th scope=\"col\" class=\"num\">Memory at %s</th>"
			  "<th scope=\"col\">Smallest rig for %s</th><th scope=\"col\">Smallest rig for %s</th>"
			  "</tr></thead>\n<tbody>\n",
		       ctx, max, ctx, max);
	for (int k = 0; k < d->n_q; k++) {
		const rpt_quant *q = &d->q[k];
		char w[32], a[32], z[32];

		fmt_gib(w, sizeof(w), q->weights_bytes);
		fmt_gib(a, sizeof(a), q->at_ctx.total_bytes);
		fmt_gib(z, sizeof(z), q->at_max.total_bytes);
		cli_buf_puts(b, "<tr data-quant=\"");
		cli_buf_esc(b, q->label);
		cli_buf_puts(b, "\"><th scope=\"row\"><span class=\"name\">");
		cli_buf_esc(b, q->label);
		cli_buf_puts(b, "</span>");
		if (k == d->primary && d->n_q > 1)
			cli_buf_puts(b, " <span class=\"muted\">(rig table)</span>");
		cli_buf_puts(b, "<span class=\"sub\">");
		cli_buf_esc(b, q->quant ? q->quant->description : "this GGUF file: exact tensor bytes from its header");
		cli_buf_printf(b, "</span></th><td class=\"num\">%.2f</td><td class=\"num\">%s</td>"
				  "<td class=\"num\">%s</td><td class=\"num\">%s</td>",
			       q->bpw, w, a, z);
		smallest_cell(b, d, k, q->smallest_ctx);
		smallest_cell(b, d, k, q->smallest_max);
		cli_buf_puts(b, "</tr>\n");
	}
	cli_buf_puts(b, "</tbody>\n</table></div>\n</section>\n");
}

static const cr_device *unified_dev(const cr_rig *r)
{
	for (unsigned g = 0; g < r->n_devices; g++)
		if (r->devices[g].kind == CR_MEM_UNIFIED)
			return &r->devices[g];
	return NULL;
}

static void sep(cli_buf *b, int *n)
{
	if ((*n)++)
		cli_buf_puts(b, "; ");
}

/* The notes of one rig row: why it is tight, how several GPUs or RAM are
 * used, what is unusual about the hardware. Plain words, no colour. */
static void rig_notes(cli_buf *b, const rpt_data *d, const rpt_rig *r, const cr_estimate *e)
{
	const cr_device *uni = unified_dev(r->rig);
	double accel_gbs, ram_gbs;
	char x[32], y[32], mc[16];
	int n = 0;

	/* The bandwidths decode reads each tier at, as the estimator does. */
	cr_rig_tier_bandwidth_gbs(r->rig, &accel_gbs, &ram_gbs);
	if (e->tier == CR_TIER_NOFIT) {
		fmt_gib(x, sizeof(x), e->memory.total_bytes);
		fmt_gib(y, sizeof(y), e->memory.available_bytes);
		sep(b, &n);
		cli_buf_printf(b, "does not fit, even with a %u-token context (%s usable; %s needed at %u tokens)",
			       CR_MIN_FIT_CTX, y, x, e->context);
	} else if (!e->fits) {
		cli_fmt_ctx(mc, sizeof(mc), e->max_context);
		sep(b, &n);
		cli_buf_printf(b, "only up to %s tokens fit, not the %u asked for", mc, e->context);
	} else if (e->tier == CR_TIER_TIGHT) {
		fmt_gib(x, sizeof(x), e->free_bytes);
		sep(b, &n);
		cli_buf_printf(b, "fits with only %s free, less than llama.cpp&#39;s %g GiB margin", x, margin_gib());
	}
	if (r->n_gpus > 1 && e->tier != CR_TIER_NOFIT) {
		sep(b, &n);
		cli_buf_printf(b, "layer split over %u GPUs: the cards work in turn, so a token is read at about one "
				  "card&#39;s %.0f GB/s, not %u &#215; %.0f",
			       r->n_gpus, accel_gbs, r->n_gpus, accel_gbs);
	}
	if (r->has_ram && r->n_gpus && e->tier != CR_TIER_NOFIT) {
		sep(b, &n);
		if (e->offload_fraction > 0)
			cli_buf_printf(b, "partial offload: %.0f%% of the layers in system RAM, read at %.0f GB/s",
				       e->offload_fraction * 100, ram_gbs);
		else
			cli_buf_puts(b, "fits in GPU memory; the system RAM is not needed");
	} else if (r->has_ram && !r->n_gpus) {
		sep(b, &n);
		cli_buf_printf(b, "CPU only: weights read from system RAM at %.0f GB/s", ram_gbs);
	}
	if (uni) {
		sep(b, &n);
		cli_fmt_gib(x, sizeof(x), uni->count * uni->memory_gib * uni->usable_fraction * 1073741824.0);
		cli_fmt_gib(y, sizeof(y), uni->count * uni->memory_gib * 1073741824.0);
		cli_buf_printf(b, "unified memory: the GPU may use %.0f%% (%s of %s)", uni->usable_fraction * 100, x, y);
	}
	if (r->rig->unreleased) {
		sep(b, &n);
		cli_buf_puts(b, "this hardware does not exist as described: a projection (see <code>clefrun rigs</code>)");
	}
	if (e->tier != CR_TIER_NOFIT && e->prefill_tokens_per_s <= 0) {
		sep(b, &n);
		cli_buf_puts(b, "no published FP16 figure, so no time to decision");
	}
	(void)d;
	if (!n)
		cli_buf_puts(b, "&#8212;");
}

static void tier_legend(cli_buf *b, const rpt_data *d)
{
	/* An embedding or reranking model is tiered on its prefill whatever
	 * --workload says (docs/decisions.md). */
	bool decide = d->opts.workload == CR_WORKLOAD_DECIDE || d->cm.model.task != CR_TASK_GENERATION;

	cli_buf_puts(b, "<ul class=\"legend\" aria-label=\"Tiers\">\n<li>");
	tier_badge(b, CR_TIER_FAST);
	cli_buf_printf(b, decide ? " decision in %g s or less" : " %g tokens/s or more", decide ? CR_TIER_FAST_DECIDE_S : CR_TIER_FAST_TPS);
	cli_buf_puts(b, "</li>\n<li>");
	tier_badge(b, CR_TIER_OK);
	if (decide)
		cli_buf_printf(b, " up to %g s", CR_TIER_OK_DECIDE_S);
	else
		cli_buf_printf(b, " %g to %g tokens/s", CR_TIER_OK_TPS, CR_TIER_FAST_TPS);
	cli_buf_puts(b, "</li>\n<li>");
	tier_badge(b, CR_TIER_SLOW);
	if (decide)
		cli_buf_printf(b, " more than %g s", CR_TIER_OK_DECIDE_S);
	else
		cli_buf_printf(b, " under %g tokens/s", CR_TIER_OK_TPS);
	cli_buf_puts(b, "</li>\n<li>");
	tier_badge(b, CR_TIER_TIGHT);
	cli_buf_printf(b, " fits with less than %g GiB free, or only a shorter context</li>\n<li>", margin_gib());
	if (decide) {
		tier_badge(b, CR_TIER_UNKNOWN);
		cli_buf_puts(b, " fits, but the rig has no FP16 figure to time a decision by</li>\n<li>");
	}
	tier_badge(b, CR_TIER_NOFIT);
	cli_buf_puts(b, " does not fit</li>\n</ul>\n");
}

static void section_rigs(cli_buf *b, const rpt_data *d)
{
	const rpt_quant *pq = &d->q[d->primary];
	char ctx[16];
	bool best_col = d->n_q > 1;
	uint32_t prompt = d->r[0].est[d->primary].prompt_tokens;

	cli_fmt_ctx(ctx, sizeof(ctx), d->opts.n_ctx);
	cli_buf_puts(b, "<section id=\"rigs\" aria-labelledby=\"h-rigs\">\n<h2 id=\"h-rigs\">Can you run it?</h2>\n<p>");
	cli_buf_esc(b, pq->label);
	cli_buf_printf(b, " with a context of %s tokens on each rig. Decode is the speed with the cache that full "
			  "(with the calibration&#39;s 10th to 90th percentile range); time to decision is the "
			  "prefill of a %u-token prompt, all a decision model needs for one answer. Tiers judge %s.</p>\n",
		       ctx, prompt ? prompt : CR_DEFAULT_PROMPT_TOKENS,
		       d->cm.model.task != CR_TASK_GENERATION
			       ? "the time to decision: an embedding or reranking model generates no text, so it has no decode speed"
		       : d->opts.workload == CR_WORKLOAD_DECIDE ? "the time to decision (<code class=\"nw\">--workload decide</code>)"
								: "decode speed (<code class=\"nw\">--workload chat</code>)");
	tier_legend(b, d);
	cli_buf_puts(b, "<div class=\"scroll\"><table class=\"rigs\" id=\"rigs-table\">\n<thead><tr>"
			"<th scope=\"col\">Rig</th><th scope=\"col\">Tier</th>"
			"<th scope=\"col\" class=\"num\">Decode tokens/s</th>"
			"<th scope=\"col\" class=\"num\">Time to decision</th>"
			"<th scope=\"col\" class=\"num\">Largest context</th>"
			"<th scope=\"col\" class=\"num\">Memory needed / usable</th>");
	if (best_col)
		cli_buf_puts(b, "<th scope=\"col\">Best quant</th>");
	cli_buf_puts(b, "<th scope=\"col\">Notes</th></tr></thead>\n<tbody>\n");
	for (int i = 0; i < d->n_r; i++) {
		const rpt_rig *r = &d->r[i];
		const cr_estimate *e = &r->est[d->primary];
		char x[32], y[32], mc[16];

		cli_buf_puts(b, "<tr data-rig=\"");
		cli_buf_esc(b, r->rig->id);
		cli_buf_printf(b, "\" data-tier=\"%s\"><th scope=\"row\">", cr_tier_name(e->tier));
		rig_cell(b, r->rig);
		cli_buf_puts(b, "</th><td>");
		tier_badge(b, e->tier);
		cli_buf_puts(b, "</td>");
		if (e->decode_tokens_per_s > 0) {
			cli_fmt_rate(x, sizeof(x), e->decode_tokens_per_s);
			/* "~" and a tooltip: extrapolated, no measured rows near it (docs/accuracy.md). */
			if (e->decode_note[0]) {
				cli_buf_puts(b, "<td class=\"num\" title=\"extrapolated: ");
				cli_buf_esc(b, e->decode_note);
				cli_buf_printf(b, "\">~%s<span class=\"sub\">", x);
			} else
				cli_buf_printf(b, "<td class=\"num\">%s<span class=\"sub\">", x);
			cli_fmt_rate(x, sizeof(x), e->decode_tokens_per_s_low);
			cli_fmt_rate(y, sizeof(y), e->decode_tokens_per_s_high);
			cli_buf_printf(b, "%s&#8211;%s</span></td>", x, y);
		} else {
			cli_buf_puts(b, "<td class=\"num\">&#8212;</td>");
		}
		if (e->time_to_decision_s > 0)
			cli_buf_printf(b, e->time_to_decision_s < 10 ? "<td class=\"num\">%s%.2f s</td>" : "<td class=\"num\">%s%.0f s</td>",
				       e->prefill_note[0] ? "~" : "", e->time_to_decision_s);
		else
			cli_buf_puts(b, "<td class=\"num\">&#8212;</td>");
		cli_fmt_ctx(mc, sizeof(mc), e->max_context);
		cli_buf_printf(b, "<td class=\"num\">%s</td>", e->max_context ? mc : "&#8212;");
		fmt_gib(x, sizeof(x), e->memory.total_bytes);
		fmt_gib(y, sizeof(y), e->memory.available_bytes);
		cli_buf_printf(b, "<td class=\"num\">%s<span class=\"sub\">of %s</span></td>", x, y);
		if (best_col) {
			cli_buf_puts(b, "<td>");
			if (r->best < 0) {
				cli_buf_puts(b, "<span class=\"muted\">none fits</span>");
			} else {
				cli_buf_esc(b, d->q[r->best].label);
				cli_buf_puts(b, " ");
				tier_badge(b, r->best_tier);
				if (!r->best_reaches)
					cli_buf_puts(b, r->best_tier == CR_TIER_UNKNOWN
								? "<span class=\"sub\">speed unknown: the most bits per weight that fit</span>"
								: "<span class=\"sub\">none reaches ok: the fastest that fits</span>");
			}
			cli_buf_puts(b, "</td>");
		}
		cli_buf_puts(b, "<td class=\"note\">");
		rig_notes(b, d, r, e);
		cli_buf_puts(b, "</td></tr>\n");
	}
	cli_buf_puts(b, "</tbody>\n</table></div>\n");
	if (best_col)
		cli_buf_printf(b, "<p class=\"muted\">Best quant: the most bits per weight, of the %d quants above, "
				  "that reaches <em>ok</em> (or better) on that rig; when none does, the closest: the fastest that fits "
				  "(<code>docs/decisions.md</code>).</p>\n",
			       d->n_q);
	cli_buf_puts(b, "</section>\n");
}

/* "Which devices run it": every catalog rig at the report's first quant,
 * grouped as the seed pages group them (cr_decide_group), names only. */
static void section_devices(cli_buf *b, const rpt_data *d)
{
	cli_buf_puts(b, "<section id=\"devices\" aria-labelledby=\"h-devices\">\n"
			"<h2 id=\"h-devices\">Which devices run it</h2>\n<p>");
	cli_buf_esc(b, d->q[d->primary].label);
	cli_buf_printf(b, " on each of the catalog&#39;s %zu rigs, grouped by tier "
			  "(<code class=\"nw\">clefrun check --rig all</code> gives the figures).</p>\n", d->n_dev);
	for (int g = 0; g < CR_GROUP_COUNT; g++) {
		size_t n = 0, k = 0;

		for (size_t i = 0; i < d->n_dev; i++)
			n += cr_decide_group(d->dev_est[i].tier) == (cr_fit_group)g;
		if (!n)
			continue;
		cli_buf_printf(b, "<h3>%s <span class=\"muted\">(%zu)</span></h3>\n<p class=\"devices\">",
			       cr_fit_group_title((cr_fit_group)g), n);
		for (size_t i = 0; i < d->n_dev; i++) {
			const cr_estimate *e = &d->dev_est[i];
			char x[16];

			if (cr_decide_group(e->tier) != (cr_fit_group)g)
				continue;
			if (k++)
				cli_buf_puts(b, ", ");
			cli_buf_esc(b, d->dev_rigs[i]->name);
			if (e->decode_tokens_per_s > 0) {
				cli_fmt_rate(x, sizeof(x), e->decode_tokens_per_s);
				cli_buf_printf(b, " <span class=\"sub\">%s t/s</span>", x);
			}
		}
		cli_buf_puts(b, "</p>\n");
	}
	cli_buf_puts(b, "</section>\n");
}

static void usd_cell(cli_buf *b, double v)
{
	if (v <= 0)
		cli_buf_puts(b, "<td class=\"num\">&#8212;</td>");
	else
		cli_buf_printf(b, v < 1 ? "<td class=\"num\">$%.3f</td>" : v < 100 ? "<td class=\"num\">$%.2f</td>"
										   : "<td class=\"num\">$%.0f</td>",
			       v);
}

/* One table of the buy section: the first five rows that reach ok. */
static void buy_table(cli_buf *b, const rpt_data *d, const cr_buy_row *rows, size_t n, size_t reach, bool rent)
{
	size_t shown = reach < 5 ? reach : 5;

	cli_buf_printf(b, "<h3>%s <span class=\"muted\">(%zu of %zu priced rigs reach ok)</span></h3>\n",
		       rent ? "Rent by the hour" : "Buy", reach, n);
	if (!shown)
		return;
	cli_buf_printf(b, "<div class=\"scroll\"><table class=\"buy\">\n<thead><tr><th scope=\"col\">Rig</th>"
			  "<th scope=\"col\">Quant</th><th scope=\"col\">Tier</th><th scope=\"col\" class=\"num\">Decode tokens/s</th>"
			  "<th scope=\"col\" class=\"num\">%s</th>%s<th scope=\"col\">Dated</th>%s</tr></thead>\n<tbody>\n",
		       rent ? "$ per hour" : "Price", rent ? "<th scope=\"col\">Provider</th>" : "",
		       rent ? "<th scope=\"col\" class=\"num\">$ per million tokens</th><th scope=\"col\" class=\"num\">$ per 1,000 decisions</th>"
			    : "<th scope=\"col\" class=\"num\">$ per token/s</th>");
	for (size_t i = 0; i < shown; i++) {
		const cr_buy_row *r = &rows[i];
		char x[16];

		cli_buf_puts(b, "<tr><th scope=\"row\">");
		rig_cell(b, r->rig);
		cli_buf_puts(b, "</th><td>");
		cli_buf_esc(b, d->q[r->quant_index].label);
		cli_buf_puts(b, "</td><td>");
		tier_badge(b, r->estimate.tier);
		cli_fmt_rate(x, sizeof(x), r->estimate.decode_tokens_per_s);
		cli_buf_printf(b, "</td><td class=\"num\">%s</td>", x);
		usd_cell(b, r->price->usd);
		if (rent) {
			cli_buf_puts(b, "<td>");
			cli_buf_esc(b, r->price->provider);
			cli_buf_puts(b, "</td>");
		}
		/* The page links nowhere (docs/report.md): the date, with what the
		 * price is as its title; clefrun buy --format json has the source. */
		cli_buf_puts(b, "<td title=\"");
		cli_buf_esc(b, r->price->what);
		cli_buf_puts(b, "\">");
		cli_buf_esc(b, r->price->date);
		cli_buf_puts(b, "</td>");
		if (rent) {
			usd_cell(b, r->usd_per_mtok);
			usd_cell(b, r->usd_per_kdecisions);
		} else {
			usd_cell(b, r->usd_per_tps);
		}
		cli_buf_puts(b, "</tr>\n");
	}
	cli_buf_puts(b, "</tbody>\n</table></div>\n");
}

/* "What to buy or rent" (buy.h): the cheapest priced rigs that reach ok. */
static void section_buy(cli_buf *b, const rpt_data *d)
{
	char lo[11], hi[11];

	cli_buf_puts(b, "<section id=\"buy\" aria-labelledby=\"h-buy\">\n<h2 id=\"h-buy\">What to buy or rent</h2>\n");
	if (d->prices_note[0]) {
		cli_buf_puts(b, "<p class=\"muted\">Not shown: ");
		cli_buf_esc(b, d->prices_note);
		cli_buf_puts(b, ".</p>\n</section>\n");
		return;
	}
	cr_prices_date_range(d->prices, lo, hi);
	cli_buf_printf(b, "<p>The cheapest priced rigs whose best quant (the most bits per weight of this page&#39;s "
			  "quants) reaches <em>ok</em>. Prices are launch prices and list rents in US dollars, each "
			  "with the date it was stated (%s to %s): they age, and none is a quote for today. Costs per "
			  "token and per decision are at one sequence&#39;s speed; serving several at once costs less "
			  "(<code class=\"nw\">clefrun plan --parallel</code>). Each price&#39;s source URL is in "
			  "<code class=\"nw\">clefrun buy --model ID --format json</code> and data/prices.json.</p>\n",
		       lo[0] ? lo : "-", hi[0] ? hi : "-");
	buy_table(b, d, d->buy_rows, d->n_buy, d->buy_reach, false);
	buy_table(b, d, d->rent_rows, d->n_rent, d->rent_reach, true);
	cli_buf_puts(b, "</section>\n");
}

static void section_chart(cli_buf *b, const rpt_data *d)
{
	rpt_chart_storage *s = malloc(sizeof(*s));
	cli_chart c;

	cli_buf_puts(b, "<section id=\"chart\" aria-labelledby=\"h-chart\">\n<h2 id=\"h-chart\">Memory against context</h2>\n"
			"<figure class=\"chart\"><div class=\"scroll\">\n");
	if (!s) {
		b->failed = true;
		return;
	}
	rpt_chart(d, s, &c);
	cli_svg_chart(b, &c, false);
	cli_buf_puts(b, "</div>\n<figcaption>One line per quant: the memory one GPU needs as the context grows "
			"(log scale: each step doubles it). Dashed lines: each rig&#39;s usable memory; where a "
			"curve crosses one, that rig runs out. The dots mark the exact largest context of ");
	cli_buf_esc(b, d->q[d->primary].label);
	cli_buf_puts(b, " on each rig, which also counts that rig&#39;s extra GPUs and unified memory. "
			"<code>clefrun chart</code> writes this chart as an SVG file.</figcaption>\n</figure>\n</section>\n");
	free(s);
}

static void section_method(cli_buf *b, const rpt_data *d, const rpt_kv *kv)
{
	const cr_model *m = &d->cm.model;
	const rpt_quant *pq = &d->q[d->primary];
	char ctx[16], mac_small[24], mac_large[24], cuda[24], other[24], sys[24];
	bool reference = false, unreleased = false;

	for (int i = 0; i < d->n_r; i++) {
		reference |= d->r[i].rig->reference;
		unreleased |= d->r[i].rig->unreleased;
	}
	/* The docs are named, not linked: a relative link breaks as soon as the page is mailed or
	 * moved, and the project has no public URL. What a reader needs is inlined below; the
	 * files are named with the version whose source tree holds them. */
	cli_buf_printf(b, "<section id=\"method\" aria-labelledby=\"h-method\">\n<h2 id=\"h-method\">How this is computed</h2>\n"
			"<p>Estimates of what llama.cpp (and Ollama and LM Studio, which run it) needs for a GGUF "
			"file; not measurements. The formulas are below. Every constant, with its source, is in "
			"<code>docs/methodology.md</code>; how well the speeds match measured runs is in "
			"<code>docs/accuracy.md</code>; this page is described in <code>docs/report.md</code>: "
			"files of the clefrun %s source tree (<code>clefrun --help</code> and <code>man clefrun</code> "
			"describe the commands).</p>\n",
		       cr_version());
	fmt_share(mac_small, sizeof(mac_small), CR_USABLE_METAL_SMALL, true);
	fmt_share(mac_large, sizeof(mac_large), CR_USABLE_METAL_LARGE, true);
	fmt_share(cuda, sizeof(cuda), CR_USABLE_UNIFIED_CUDA, false);
	fmt_share(other, sizeof(other), CR_USABLE_UNIFIED_OTHER, false);
	fmt_share(sys, sizeof(sys), CR_USABLE_SYSTEM, false);
	cli_buf_printf(b, "<ul class=\"formulas\">\n"
			  "<li><strong>Memory</strong> = weights + KV cache + recurrent state + compute buffers + "
			  "output buffer + runtime overhead.</li>\n"
			  "<li><strong>Weights</strong> = parameters &#215; bits per weight &#247; 8, with llama-quantize&#39;s "
			  "whole-file average bits per weight (exact tensor bytes for a GGUF file).</li>\n"
			  "<li><strong>KV cache</strong> = &#931; over the layers that keep one: 2 (K and V) &#215; KV heads "
			  "&#215; head size &#215; bytes per element &#215; cells; cells = the context rounded up to %u, "
			  "sliding-window layers at most their window, linear-attention layers none (a fixed state).</li>\n"
			  "<li><strong>Usable memory</strong>: a discrete GPU all of its memory less %g&#160;MiB of runtime; "
			  "unified memory what the platform lets the GPU use (macOS %s of RAM up to %g&#160;GiB, %s above; "
			  "Linux CUDA %s; Strix Halo %s; or the rig&#39;s own figure); system RAM %s. A fit with less than "
			  "llama.cpp&#39;s %g&#160;GiB margin free is <em>tight</em>.</li>\n"
			  "<li><strong>Decode tokens/s</strong> = 1 &#247; (bytes read per token &#247; (efficiency &#215; "
			  "bandwidth) + latency per token); the bytes are the active weights plus the KV cache at that "
			  "depth; efficiency and latency were fitted per backend on measured llama.cpp runs.</li>\n"
			  "<li><strong>Time to decision</strong> = prompt tokens &#247; prefill tokens/s; prefill = "
			  "efficiency &#215; FP16 FLOP/s &#247; (2 &#215; active parameters + attention) per token.</li>\n</ul>\n",
		       kv->cell_pad, runtime_mib(), mac_small, CR_USABLE_METAL_SMALL_MAX_GIB, mac_large, cuda, other,
		       sys, margin_gib());
	cli_buf_puts(b, "<h3 id=\"differs\">Where these numbers differ from the usual web calculators</h3>\n<ul class=\"diffs\">\n");

	/* 1. The KV cache. */
	cli_buf_puts(b, "<li><strong>KV cache.</strong> ");
	cli_fmt_ctx(ctx, sizeof(ctx), m->context_max);
	if (kv->f16_token && kv->naive_token > kv->f16_token + kv->f16_token / 20) {
		uint64_t naive_max = kv->naive_token * (uint64_t)m->context_max;
		char a[32], z[32];

		fmt_kib(a, sizeof(a), kv->naive_token);
		fmt_kib(z, sizeof(z), kv->f16_token);
		cli_buf_printf(b, "Calculators multiply every one of the %u layers by the KV heads and head size: %s "
				  "per token at f16. ",
			       m->n_layers, a);
		if (kv->rec)
			cli_buf_printf(b, "Only %u of them keep a KV cache; the %u linear-attention layers keep a "
					  "fixed state instead. ",
				       kv->kv_layers, kv->rec);
		else if (kv->swa)
			cli_buf_printf(b, "%u of them only look back %u tokens, so their cache stops growing. ",
				       kv->swa, m->window);
		else if (m->mla)
			cli_buf_puts(b, "MLA caches one compressed latent per layer instead of full keys and values. ");
		fmt_gib(a, sizeof(a), naive_max);
		cli_buf_printf(b, "clefrun counts %s per token, and at the full %s context ", z, ctx);
		fmt_gib(z, sizeof(z), kv->at_max + kv->state);
		cli_buf_printf(b, "%s where the usual formula gives %s.", z, a);
	} else {
		cli_buf_puts(b, "For this model the usual formula holds: every layer keeps a full KV cache.");
	}
	cli_buf_puts(b, "</li>\n");

	/* 2. Several GPUs. */
	cli_buf_puts(b, "<li><strong>Several GPUs.</strong> Calculators add the cards&#39; bandwidth. llama.cpp&#39;s "
			"default layer split gives each card a share of the layers and runs them one after "
			"another, so a token is read at about one card&#39;s bandwidth.");
	if (d->multi >= 0) {
		const rpt_rig *multi = &d->r[d->multi];

		cli_buf_puts(b, " On ");
		cli_buf_esc(b, multi->rig->name);
		cli_buf_printf(b, ", 0.5 &#215; %.0f GB/s &#247; %.2f GB would say %.0f tokens/s; clefrun estimates %.0f.",
			       d->multi_agg_gbs, (double)pq->weights_bytes / 1e9, d->multi_naive_tps,
			       multi->est[d->primary].decode_tokens_per_s);
	}
	cli_buf_puts(b, "</li>\n");

	/* 3. Speed. */
	cli_buf_puts(b, "<li><strong>Speed.</strong> The usual 0.5 &#215; bandwidth &#247; file size (or 0.65 &#215; "
			"bandwidth &#247; memory) leaves out the KV cache read for every token, which grows with the "
			"context, and the fixed time per token that dominates on fast GPUs; clefrun&#39;s constants "
			"come from measured llama.cpp runs (<code>docs/accuracy.md</code> scores "
			"both on the same measurements).</li>\n");
	/* 4. Usable memory. */
	cli_buf_printf(b, "<li><strong>What fits.</strong> Calculators compare the model with the whole memory. "
			  "The runtime cannot use all of it: %g&#160;MiB per GPU go to the driver and runtime, the GPU "
			  "of a Mac gets %s to %s of its memory (macOS&#39;s GPU wired limit), a DGX Spark about %s, and "
			  "llama.cpp keeps %g&#160;GiB free per device. Calculators also add a flat 2k-token cache, where "
			  "this page shows each context up to the model&#39;s maximum.</li>\n",
		       runtime_mib(), mac_small, mac_large, cuda, margin_gib());
	/* 5. Bits per weight. */
	cli_buf_puts(b, "<li><strong>File sizes.</strong> A quant&#39;s bits per weight is llama-quantize&#39;s "
			"whole-file average (Q4_K_M 4.90, not 4.8): the embedding and output tensors and some "
			"layers use larger types than the name says.</li>\n");
	/* 6. Hardware. */
	if (reference) {
		cli_buf_puts(b, "<li><strong>Hardware figures.</strong> The reference rigs keep the names of the "
				"public fit table they come from, with corrected figures: there is no M4 Ultra (the 1092&#160;GB/s is twice an M4 "
				"Max; those rigs are kept as projections and marked <em>not released</em>); the DGX Station "
				"GB300 has 784&#160;GB (288&#160;GB HBM3e at 8&#160;TB/s and 496&#160;GB LPDDR5X), not 748; "
				"the dual EPYC 9004&#39;s 460&#160;GB/s is one socket, which is what llama.cpp reads at; "
				"the &#8220;560&#160;GB unified&#8221; EPYC rigs are two RTX 3090s plus system RAM "
				"(<code>docs/seeds.md</code>).</li>\n");
	} else if (unreleased) {
		cli_buf_puts(b, "<li><strong>Hardware figures.</strong> Rigs marked <em>not released</em> do not "
				"exist as described; their figures are projections.</li>\n");
	}
	cli_buf_puts(b, "</ul>\n</section>\n");
}

/* The command that reproduces the page, for the footer. */
static void command_line(cli_buf *b, const rpt_cfg *c, const rpt_data *d)
{
	cli_buf_puts(b, "clefrun report --model ");
	cli_buf_esc(b, cli_url_shown(c->model_id));
	for (int i = 0; i < c->n_rigs; i++) {
		cli_buf_puts(b, " --rig ");
		cli_buf_esc(b, c->rig_ids[i]);
	}
	for (int i = 0; i < c->n_quants; i++) {
		cli_buf_puts(b, " --quant ");
		cli_buf_esc(b, c->quant_ids[i]);
	}
	if (c->revision) {
		cli_buf_puts(b, " --revision ");
		cli_buf_esc(b, c->revision);
	}
	if (c->header_only)
		cli_buf_puts(b, " --header-only");
	cli_buf_printf(b, " --ctx %u", d->opts.n_ctx);
	if (d->opts.type_k != CR_KV_F16)
		cli_buf_printf(b, " --kv-type %s", cr_kv_type_name(d->opts.type_k));
	if (d->opts.workload == CR_WORKLOAD_DECIDE)
		cli_buf_puts(b, " --workload decide");
	cli_buf_puts(b, " -o FILE.html");
}

void rpt_page(cli_buf *b, const rpt_cfg *c, const rpt_data *d)
{
	const cr_model *m = &d->cm.model;
	char ctx[16];
	cli_fmt_ctx(ctx, sizeof(ctx), d->opts.n_ctx);
	cli_buf_puts(b, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
			"<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
			"<meta name=\"color-scheme\" content=\"light dark\">\n");
	cli_buf_printf(b, "<meta name=\"generator\" content=\"clefrun %s\">\n<title>", cr_version());
	cli_buf_esc(b, m->name);
	cli_buf_puts(b, ": will it run? (clefrun)</title>\n<style>\n");
	cli_buf_puts(b, cli_report_css);
	cli_buf_puts(b, "</style>\n</head>\n<body>\n");
	cli_buf_puts(b, "<header class=\"page\">\n<p class=\"kicker\">clefrun report</p>\n<h1>");
	cli_buf_esc(b, m->name);
	cli_buf_puts(b, "</h1>\n<p class=\"lede\">Will it run, with how much context, and how fast? Estimates for "
			"llama.cpp with a context of ");
	cli_buf_printf(b, "%s tokens, KV cache %s, ", ctx, cr_kv_type_name(d->opts.type_k));
	cli_buf_esc(b, d->fa_why);
	cli_buf_puts(b, ". Model <code>");
	cli_buf_esc(b, m->id);
	cli_buf_printf(b, "</code>, catalog %s.</p>\n</header>\n<main>\n", cr_catalog_version());
	section_facts(b, d, &d->kv);
	section_local(b, d);
	section_rigs(b, d);
	section_devices(b, d);
	section_buy(b, d);
	section_chart(b, d);
	section_method(b, d, &d->kv);
	cli_buf_printf(b, "</main>\n<footer>\n<p>Generated by clefrun %s (catalog %s). This file is complete "
			  "in itself: no script, no fonts or images from elsewhere.</p>\n<p>To make it again: <code>",
		       cr_version(), cr_catalog_version());
	command_line(b, c, d);
	cli_buf_puts(b, "</code></p>\n</footer>\n</body>\n</html>\n");
}
