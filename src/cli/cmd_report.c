/*
 * clefrun report: the model page, offline. One self-contained HTML file
 * (inline CSS and SVG, no script, nothing that loads from anywhere) with the
 * model's facts, one row per quant ("Run it locally"), one row per rig ("Can
 * you run it?"), the memory-against-context chart and how it is computed.
 *
 * Also the part both report and chart share: the options and the numbers
 * (rpt_gather). Every number comes from the library: cr_estimate_run per rig
 * and quant, cr_curve_memory for the curves and the one-GPU columns,
 * cr_decide_best_quant for the best quant per rig. docs/report.md describes
 * the page.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "report.h"

/* The quants of a catalog model when no --quant is given: the seed pages'
 * usual ladder, 2 to 16 bits, in clefrun's default candidate set (decide.h:
 * MXFP4 only for MoE models). */
static const char *const default_quants[] = { "Q2_K", "Q3_K_M", "MXFP4", "Q4_K_M", "Q5_K_M",
					      "Q6_K", "Q8_0", "F16" };
#define PRIMARY_QUANT "Q4_K_M"

static const char report_usage[] =
	"clefrun report --model ID|SOURCE [--rig R]... [--quant Q]... [--ctx N] -o FILE.html";
static const char report_summary[] =
	"One self-contained HTML page about a model: its facts, memory per quant, fit and speed per\n"
	"rig, a memory-against-context chart, and how the numbers are computed (docs/report.md).\n"
	"No script and nothing that loads from the network: the file can be published as it is.";

static const cli_opt_spec report_opts[] = {
	{ CLI_O_MODEL(rpt_cfg, model_id),
	  .help = "catalog id, GGUF path or URL, hf:OWNER/REPO/FILE.gguf or hf:OWNER/REPO:QUANT (required)" },
	{ CLI_O_RIGS(rpt_cfg, rig_ids, n_rigs),
	  .help = "rig id, custom:..., local or a saved rig; repeatable (default: the 22 reference rigs)" },
	{ CLI_O_QUANTS(rpt_cfg, quant_ids, n_quants),
	  .help = "quantization preset; repeatable; the first is the rig table's (default: Q2_K..F16, rig table Q4_K_M)" },
	{ CLI_O_CTX(rpt_cfg, ctx), .seen = CLI_AT(rpt_cfg, ctx_given),
	  .help = "context of the tables, in tokens or Nk (k = 1024; default: 8192, or the model's maximum if smaller; a larger value is an error)" },
	{ CLI_O_KV_TYPE(rpt_cfg, kv, kv), .help = "KV cache type: f16, q8_0, q4_0 (default f16)" },
	{ CLI_O_WORKLOAD(rpt_cfg, workload) },
	{ CLI_O_OUTPUT(rpt_cfg, output),
	  .help = "write the HTML page to FILE (a file is replaced atomically, its mode kept; a FIFO or device is written directly); '-' for stdout (required; short: -o FILE)" },
	{ CLI_O_REVISION(rpt_cfg, revision), .help = "Hugging Face revision for hf: sources (default main)" },
	{ CLI_O_HEADER_ONLY(rpt_cfg, header_only),
	  .help = "accept a GGUF file cut after its header (tensor data missing)" },
	{ CLI_O_CATALOG(rpt_cfg, g.catalog_dir), .help = CLI_HELP_CATALOG },
	CLI_SPEC_END,
};

static const cli_command report_cmd = {
	.name = "clefrun report", .usage = report_usage, .summary = report_summary, .opts = report_opts
};

/* ---- the numbers ------------------------------------------------------------ */

/* Stand-in quant for a GGUF file: the estimator takes its exact weight
 * bytes from opts.weights_bytes; bpw is only shown. Lives in rpt_data's
 * lifetime, one per report. */
static cr_quant gguf_quant;

static int by_bpw(const void *a, const void *b)
{
	const rpt_quant *x = a, *y = b;

	return (x->quant->bpw > y->quant->bpw) - (x->quant->bpw < y->quant->bpw);
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
		memset(&gguf_quant, 0, sizeof(gguf_quant));
		snprintf(gguf_quant.id, sizeof(gguf_quant.id), "%s",
			 d->cm.file_type[0] ? d->cm.file_type : "GGUF");
		gguf_quant.bpw = m->params ? (double)d->cm.weights_bytes * 8.0 / (double)m->params : 0;
		snprintf(gguf_quant.base_type, sizeof(gguf_quant.base_type), "gguf");
		snprintf(gguf_quant.description, sizeof(gguf_quant.description),
			 "this GGUF file: exact tensor bytes from its header");
		d->q[0].quant = &gguf_quant;
		d->q[0].weights_opt = d->cm.weights_bytes;
		d->n_q = 1;
		primary = &gguf_quant;
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
	/* Ascending bits per weight: the ladder reads from small to large. */
	qsort(d->q, (size_t)d->n_q, sizeof(d->q[0]), by_bpw);
	d->primary = 0;
	for (int i = 0; i < d->n_q; i++) {
		snprintf(d->q[i].label, sizeof(d->q[i].label), "%s", d->q[i].quant->id);
		if (d->q[i].quant == primary)
			d->primary = i;
	}
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

int rpt_gather(const rpt_cfg *c, rpt_data *d)
{
	cli_source_opts so = CLI_SOURCE_OPTS_INIT;
	cr_estimate_opts init = CR_ESTIMATE_OPTS_INIT;
	cr_memory *mem = NULL;
	const cr_model *m;
	cr_rig one;
	cr_error err = { 0, "" };
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
	if (c->ctx_given && c->ctx > m->context_max) {
		fprintf(stderr, "clefrun: --ctx %u is above %s's maximum context of %u tokens\n", c->ctx,
			cli_safe(m->id), m->context_max);
		return EXIT_USAGE;
	}
	if ((rc = resolve_quants(c, d)) || (rc = resolve_rigs(c, d)))
		return rc;

	d->opts = init;
	d->opts.n_ctx = c->ctx_given ? c->ctx : (m->context_max < CR_DEFAULT_CTX ? m->context_max : CR_DEFAULT_CTX);
	d->opts.type_k = d->opts.type_v = c->kv;
	d->opts.workload = c->workload;
	cr_curve_one_gpu_rig(&one);
	d->opts.flash_attn = cr_estimate_resolve_flash_attn(m, &one, CR_FA_AUTO, d->fa_why, sizeof(d->fa_why));

	/* Curves and the one-GPU columns. */
	d->n_curve = cr_curve_contexts(m, 0, 8, d->curve_ctx, CR_CURVE_MAX_POINTS);
	mem = calloc(CR_CURVE_MAX_POINTS, sizeof(*mem));
	if (!mem) {
		fprintf(stderr, "clefrun: out of memory\n");
		return EXIT_ERROR;
	}
	for (int k = 0; k < d->n_q; k++) {
		rpt_quant *q = &d->q[k];
		cr_estimate_opts o = d->opts;
		uint32_t ends[2] = { d->opts.n_ctx, m->context_max };

		o.weights_bytes = q->weights_opt;
		q->weights_bytes = cr_estimate_weights_bytes(m, q->quant, &o);
		if ((rc = cr_curve_memory(m, q->quant, &one, &o, d->curve_ctx, d->n_curve, mem, &err)))
			goto fail;
		for (size_t i = 0; i < d->n_curve; i++)
			q->curve_gib[i] = (double)mem[i].total_bytes / 1073741824.0;
		/* The single-device figure, the same call inspect makes. */
		o.n_ctx = ends[0];
		if ((rc = cr_curve_one_gpu_memory(m, q->quant, &o, &q->at_ctx, &err)))
			goto fail;
		o.n_ctx = ends[1];
		if ((rc = cr_curve_one_gpu_memory(m, q->quant, &o, &q->at_max, &err)))
			goto fail;
	}
	free(mem);
	mem = NULL;

	/* Every rig at every quant, and the best quant per rig. */
	for (int k = 0; k < d->n_q; k++)
		cands[k] = d->q[k].quant;
	for (int i = 0; i < d->n_r; i++) {
		rpt_rig *r = &d->r[i];
		cr_estimate_opts o = d->opts;
		cr_estimate best;
		size_t idx = 0;
		char why[160];

		o.flash_attn = cr_estimate_resolve_flash_attn(m, r->rig, CR_FA_AUTO, why, sizeof(why));
		for (int k = 0; k < d->n_q; k++) {
			o.weights_bytes = d->q[k].weights_opt;
			if ((rc = cr_estimate_run(m, d->q[k].quant, r->rig, &o, &r->est[k], &err)))
				return fail_estimate(c, rc, &err);
		}
		/* One weights_bytes for all candidates: only a GGUF sets it, and
		 * a GGUF is a single candidate. */
		o.weights_bytes = d->q[0].weights_opt;
		rc = cr_decide_best_quant(m, cands, (size_t)d->n_q, r->rig, &o, CR_TIER_OK, &idx, &best, &err);
		if (rc && rc != CR_ERR_NOTFOUND)
			return fail_estimate(c, rc, &err);
		r->best = best.tier == CR_TIER_NOFIT ? -1 : (int)idx;
		r->best_tier = best.tier;
		r->best_reaches = rc == CR_OK;
	}

	/* The smallest rig (least usable memory; then the faster) per quant. */
	for (int k = 0; k < d->n_q; k++) {
		rpt_quant *q = &d->q[k];

		q->smallest_ctx = q->smallest_max = -1;
		for (int i = 0; i < d->n_r; i++) {
			const cr_estimate *e = &d->r[i].est[k];

			for (int which = 0; which < 2; which++) {
				int *best = which ? &q->smallest_max : &q->smallest_ctx;
				const cr_estimate *b = *best >= 0 ? &d->r[*best].est[k] : NULL;

				if (which ? e->max_context < m->context_max : !e->fits)
					continue;
				if (!b || e->memory.available_bytes < b->memory.available_bytes ||
				    (e->memory.available_bytes == b->memory.available_bytes &&
				     e->decode_tokens_per_s > b->decode_tokens_per_s))
					*best = i;
			}
		}
	}
	return 0;
fail:
	free(mem);
	return fail_estimate(c, rc, &err);
}

void rpt_free(rpt_data *d)
{
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

/* ---- the page ----------------------------------------------------------------- */

/* The page's style sheet, one rule per string (C11 compilers need not
 * take string literals over 4095 characters). */
static const char *const page_css[] = {
	":root {\n",
	"  color-scheme: light dark;\n",
	"  --bg: #ffffff; --fg: #1f2328; --muted: #57606a; --line: #d0d7de; --soft: #f6f8fa; --accent: #0b63b6;\n",
	"  --fast-bg: #dafbe1; --fast-fg: #0f5323; --fast-bd: #4ac26b;\n",
	"  --ok-bg: #ddf4ff; --ok-fg: #0a3069; --ok-bd: #54aeff;\n",
	"  --slow-bg: #fff8c5; --slow-fg: #633c01; --slow-bd: #d4a72c;\n",
	"  --tight-bg: #fff1e5; --tight-fg: #762c00; --tight-bd: #fb8f44;\n",
	"  --nofit-bg: #ffebe9; --nofit-fg: #82071e; --nofit-bd: #ff8182;\n",
	"}\n",
	"@media (prefers-color-scheme: dark) {\n",
	"  :root {\n",
	"    --bg: #0d1117; --fg: #e6edf3; --muted: #9ba7b4; --line: #30363d; --soft: #161b22; --accent: #6cb6ff;\n",
	"    --fast-bg: #0f2d1a; --fast-fg: #7ee2a0; --fast-bd: #2ea043;\n",
	"    --ok-bg: #0c2d4a; --ok-fg: #9ccfff; --ok-bd: #388bfd;\n",
	"    --slow-bg: #332701; --slow-fg: #f2cc60; --slow-bd: #bb8009;\n",
	"    --tight-bg: #3a1d05; --tight-fg: #ffb77c; --tight-bd: #db6d28;\n",
	"    --nofit-bg: #3c0a0f; --nofit-fg: #ffa198; --nofit-bd: #f85149;\n",
	"  }\n",
	"}\n",
	"* { box-sizing: border-box; }\n",
	"html { -webkit-text-size-adjust: 100%; text-size-adjust: 100%; }\n",
	"body { margin: 0; background: var(--bg); color: var(--fg);\n",
	"  font: 16px/1.5 system-ui, -apple-system, \"Segoe UI\", Roboto, Helvetica, Arial, sans-serif; }\n",
	"header.page, main, footer { max-width: 80rem; margin: 0 auto; padding: 0 1rem; }\n",
	".kicker { margin: 1.5rem 0 0; font-size: .8rem; letter-spacing: .08em; text-transform: uppercase; color: var(--muted); }\n",
	"h1 { font-size: 2rem; line-height: 1.2; margin: .2rem 0 .4rem; overflow-wrap: anywhere; }\n",
	"h2 { font-size: 1.35rem; margin: 2.2rem 0 .6rem; padding-bottom: .3rem; border-bottom: 1px solid var(--line); }\n",
	"h3 { font-size: 1.05rem; margin: 1.4rem 0 .4rem; }\n",
	"p { max-width: 48rem; }\n",
	".lede { color: var(--muted); margin: 0 0 1rem; }\n",
	"dl.facts { display: grid; grid-template-columns: repeat(auto-fill, minmax(12rem, 1fr)); gap: .8rem 1.5rem; margin: 1rem 0; }\n",
	"dl.facts > div { border-left: 3px solid var(--line); padding-left: .65rem; min-width: 0; }\n",
	"dl.facts > div.wide { grid-column: 1 / -1; }\n",
	"dl.facts > div.wide dd { font-weight: 400; max-width: 52rem; }\n",
	"dt { font-size: .78rem; letter-spacing: .04em; text-transform: uppercase; color: var(--muted); }\n",
	"dd { margin: 0; font-weight: 600; overflow-wrap: anywhere; }\n",
	"dd .sub { display: block; font-weight: 400; color: var(--muted); font-size: .9rem; }\n",
	".scroll { overflow-x: auto; -webkit-overflow-scrolling: touch; border: 1px solid var(--line); border-radius: 8px; }\n",
	"table { border-collapse: collapse; width: 100%; font-size: .92rem; }\n",
	"table.quants { min-width: 52rem; }\n",
	"table.quants td:nth-child(n+6) { min-width: 12rem; }\n",
	"table.rigs { min-width: 62rem; }\n",
	"table.rigs tbody th { min-width: 11rem; }\n",
	"caption { text-align: left; padding: .5rem .7rem; color: var(--muted); font-size: .85rem; caption-side: bottom; }\n",
	"th, td { padding: .5rem .7rem; text-align: left; vertical-align: top; border-bottom: 1px solid var(--line); }\n",
	"thead th { background: var(--soft); color: var(--muted); font-size: .76rem; letter-spacing: .03em;\n",
	"  text-transform: uppercase; vertical-align: bottom; }\n",
	"tbody th { font-weight: 400; }\n",
	"tbody tr:last-child > * { border-bottom: 0; }\n",
	".num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }\n",
	"thead th.num { white-space: normal; }\n",
	".name { font-weight: 600; }\n",
	".id, code { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, \"Liberation Mono\", monospace; }\n",
	".id { display: block; font-size: .8rem; color: var(--muted); overflow-wrap: anywhere; }\n",
	"code { font-size: .9em; background: var(--soft); border-radius: 4px; padding: .05em .3em; overflow-wrap: anywhere; }\n",
	"code.nw { white-space: nowrap; }\n",
	".muted, .sub { color: var(--muted); }\n",
	"th .sub, td .sub { display: block; font-size: .82rem; font-weight: 400; }\n",
	".note { font-size: .85rem; color: var(--muted); min-width: 16rem; }\n",
	".tier { display: inline-block; min-width: 4.4em; padding: .05rem .55rem; border: 1px solid; border-radius: 999px;\n",
	"  font-size: .8rem; font-weight: 700; text-align: center; white-space: nowrap; }\n",
	".tier-fast { background: var(--fast-bg); color: var(--fast-fg); border-color: var(--fast-bd); }\n",
	".tier-ok { background: var(--ok-bg); color: var(--ok-fg); border-color: var(--ok-bd); }\n",
	".tier-slow { background: var(--slow-bg); color: var(--slow-fg); border-color: var(--slow-bd); }\n",
	".tier-tight { background: var(--tight-bg); color: var(--tight-fg); border-color: var(--tight-bd); }\n",
	".tier-unknown { background: var(--soft); color: var(--muted); border-color: var(--muted); border-style: dashed; }\n",
	".tier-no-fit { background: var(--nofit-bg); color: var(--nofit-fg); border-color: var(--nofit-bd); }\n",
	".legend { display: flex; flex-wrap: wrap; gap: .4rem 1rem; padding: 0; margin: .6rem 0; list-style: none; font-size: .88rem; }\n",
	".legend li .tier { margin-right: .3rem; }\n",
	".flag { font-size: .75rem; font-weight: 700; color: var(--tight-fg); }\n",
	"figure.chart { margin: 1rem 0; }\n",
	"figure.chart svg { display: block; width: 100%; max-width: 62rem; height: auto; min-width: 40rem; }\n",
	"figcaption { color: var(--muted); font-size: .88rem; margin-top: .5rem; max-width: 48rem; }\n",
	".formulas { padding-left: 1.2rem; }\n",
	".formulas li, .diffs li { margin: .35rem 0; max-width: 52rem; }\n",
	"a { color: var(--accent); }\n",
	"footer { color: var(--muted); font-size: .85rem; padding-top: 1.5rem; padding-bottom: 2rem; }\n",
	"@media (max-width: 40rem) {\n",
	"  body { font-size: 15px; }\n",
	"  h1 { font-size: 1.55rem; }\n",
	"  th, td { padding: .45rem .5rem; }\n",
	"  tbody th { position: sticky; left: 0; z-index: 1; background: var(--bg); }\n",
	"  table.rigs tbody th { min-width: 9rem; }\n",
	"  thead th:first-child { position: sticky; left: 0; z-index: 2; }\n",
	"}\n",
	"@media print {\n",
	"  :root {\n",
	"    --bg: #ffffff; --fg: #000000; --muted: #444c56; --line: #bbbbbb; --soft: #f0f0f0; --accent: #000000;\n",
	"    --fast-bg: #ffffff; --fast-fg: #0f5323; --fast-bd: #0f5323;\n",
	"    --ok-bg: #ffffff; --ok-fg: #0a3069; --ok-bd: #0a3069;\n",
	"    --slow-bg: #ffffff; --slow-fg: #633c01; --slow-bd: #633c01;\n",
	"    --tight-bg: #ffffff; --tight-fg: #762c00; --tight-bd: #762c00;\n",
	"    --nofit-bg: #ffffff; --nofit-fg: #82071e; --nofit-bd: #82071e;\n",
	"  }\n",
	"  body { font-size: 10pt; }\n",
	"  header.page, main, footer { max-width: none; padding: 0; }\n",
	"  .scroll { overflow: visible; border: 0; }\n",
	"  table.quants, table.rigs, figure.chart svg { min-width: 0; }\n",
	"  thead { display: table-header-group; }\n",
	"  tr, figure.chart, dl.facts > div { break-inside: avoid; }\n",
	"  h2, h3 { break-after: avoid; }\n",
	"  a { color: inherit; }\n",
	"}\n",
};

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

/* Facts about the KV cache in words: which layers keep one, how it grows. */
typedef struct kv_facts {
	unsigned layers, kv_layers, swa, rec;
	uint64_t per_token;    /* growth per token of context, at the report's KV type */
	uint64_t at_max;       /* KV bytes at the model's maximum context */
	uint64_t swa_cap;      /* KV bytes of the sliding layers once full */
	uint64_t state;        /* recurrent state, bytes */
	uint64_t naive_token;  /* the usual calculators: every layer, f16, widest KV */
	uint64_t f16_token;    /* per_token at f16 */
} kv_facts;

static void kv_facts_of(const rpt_data *d, kv_facts *f)
{
	const cr_model *m = &d->cm.model;
	cr_estimate_opts o = d->opts, f16;
	unsigned max_heads = 0;
	const cr_estimate *e = &d->r[0].est[d->primary];

	memset(f, 0, sizeof(*f));
	f->layers = m->n_layers;
	f->kv_layers = cr_model_kv_layers(m);
	f->swa = cr_model_count_layers(m, CR_LAYER_SLIDING);
	f->rec = cr_model_count_layers(m, CR_LAYER_RECURRENT);
	f->per_token = e->kv_bytes_per_token;
	o.n_ctx = m->context_max;
	f->at_max = cr_estimate_kv_bytes(m, &o);
	f->state = cr_estimate_state_bytes(m, &o);
	if (f->swa) {
		/* Sliding layers once full: all KV less the full layers' share. */
		uint64_t full = f->per_token * (((uint64_t)m->context_max + 255) / 256 * 256);

		f->swa_cap = f->at_max > full ? f->at_max - full : 0;
	}
	for (unsigned i = 0; i < m->n_layers && i < CR_MAX_LAYERS; i++)
		if (m->kv_heads[i] > max_heads)
			max_heads = m->kv_heads[i];
	f->naive_token = (uint64_t)m->n_layers * max_heads * ((uint64_t)m->head_dim_k + m->head_dim_v) * 2u;
	/* Growth per token at f16 (what calculators assume): the difference
	 * of two contexts one 256-cell block apart, at the end of the range
	 * where sliding layers have long stopped growing. */
	f16 = d->opts;
	f16.type_k = f16.type_v = CR_KV_F16;
	{
		cr_estimate_opts a = f16, z = f16;
		uint64_t ka, kz;

		a.n_ctx = m->context_max;
		z.n_ctx = m->context_max > 256 ? m->context_max - 256 : m->context_max;
		ka = cr_estimate_kv_bytes(m, &a);
		kz = cr_estimate_kv_bytes(m, &z);
		f->f16_token = a.n_ctx != z.n_ctx && ka != UINT64_MAX && kz != UINT64_MAX ? (ka - kz) / 256 : 0;
	}
}

static void kv_words(cli_buf *b, const rpt_data *d, const kv_facts *f)
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

static void section_facts(cli_buf *b, const rpt_data *d, const kv_facts *kv)
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
			  "weights it holds, the KV cache and state, its compute buffer and 512&#160;MiB of runtime "
			  "(the token-embedding table stays in system RAM). Rigs with several GPUs or unified memory "
			  "need a little more or less; the rig table below has each rig&#39;s own figure. The smallest "
			  "rig is the one with the least usable memory, of the %d in this report, that fits.</p>\n",
		       d->n_r);
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
		cli_buf_esc(b, q->quant->description);
		cli_buf_printf(b, "</span></th><td class=\"num\">%.2f</td><td class=\"num\">%s</td>"
				  "<td class=\"num\">%s</td><td class=\"num\">%s</td>",
			       q->quant->bpw, w, a, z);
		smallest_cell(b, d, k, q->smallest_ctx);
		smallest_cell(b, d, k, q->smallest_max);
		cli_buf_puts(b, "</tr>\n");
	}
	cli_buf_puts(b, "</tbody>\n</table></div>\n</section>\n");
}

/* Bandwidth of the first accelerator group (the card a layer split reads
 * at), and of the system RAM. */
static double gpu_bw(const cr_rig *r)
{
	for (unsigned g = 0; g < r->n_devices; g++)
		if (r->devices[g].kind != CR_MEM_SYSTEM)
			return r->devices[g].bandwidth_gbs;
	return 0;
}

static const cr_device *ram_dev(const cr_rig *r)
{
	for (unsigned g = 0; g < r->n_devices; g++)
		if (r->devices[g].kind == CR_MEM_SYSTEM)
			return &r->devices[g];
	return NULL;
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
	const cr_device *ram = ram_dev(r->rig), *uni = unified_dev(r->rig);
	char x[32], y[32], mc[16];
	int n = 0;

	if (e->tier == CR_TIER_NOFIT) {
		fmt_gib(x, sizeof(x), e->memory.total_bytes);
		fmt_gib(y, sizeof(y), e->memory.available_bytes);
		sep(b, &n);
		cli_buf_printf(b, "does not fit, even with a 512-token context (%s usable; %s needed at %u tokens)", y,
			       x, e->context);
	} else if (!e->fits) {
		cli_fmt_ctx(mc, sizeof(mc), e->max_context);
		sep(b, &n);
		cli_buf_printf(b, "only up to %s tokens fit, not the %u asked for", mc, e->context);
	} else if (e->tier == CR_TIER_TIGHT) {
		fmt_gib(x, sizeof(x), e->free_bytes);
		sep(b, &n);
		cli_buf_printf(b, "fits with only %s free, less than llama.cpp&#39;s 1 GiB margin", x);
	}
	if (r->n_gpus > 1 && e->tier != CR_TIER_NOFIT) {
		double bw = gpu_bw(r->rig);

		sep(b, &n);
		cli_buf_printf(b, "layer split over %u GPUs: the cards work in turn, so a token is read at about one "
				  "card&#39;s %.0f GB/s, not %u &#215; %.0f",
			       r->n_gpus, bw, r->n_gpus, bw);
	}
	if (ram && r->n_gpus && e->tier != CR_TIER_NOFIT) {
		sep(b, &n);
		if (e->offload_fraction > 0)
			cli_buf_printf(b, "partial offload: %.0f%% of the layers in system RAM, read at %.0f GB/s",
				       e->offload_fraction * 100, ram->bandwidth_gbs);
		else
			cli_buf_puts(b, "fits in GPU memory; the system RAM is not needed");
	} else if (ram && !r->n_gpus) {
		sep(b, &n);
		cli_buf_printf(b, "CPU only: weights read from system RAM at %.0f GB/s", ram->bandwidth_gbs);
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
	bool decide = d->opts.workload == CR_WORKLOAD_DECIDE;

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
	cli_buf_puts(b, " fits with less than 1 GiB free, or only a shorter context</li>\n<li>");
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
		       d->opts.workload == CR_WORKLOAD_DECIDE ? "the time to decision (<code class=\"nw\">--workload decide</code>)"
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

static void section_method(cli_buf *b, const rpt_data *d, const kv_facts *kv)
{
	const cr_model *m = &d->cm.model;
	const rpt_quant *pq = &d->q[d->primary];
	char ctx[16];
	const rpt_rig *multi = NULL;
	bool reference = false, unreleased = false;

	for (int i = 0; i < d->n_r; i++) {
		if (!multi && d->r[i].n_gpus > 1 && d->r[i].est[d->primary].decode_tokens_per_s > 0)
			multi = &d->r[i];
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
	cli_buf_puts(b, "<ul class=\"formulas\">\n"
			"<li><strong>Memory</strong> = weights + KV cache + recurrent state + compute buffers + "
			"output buffer + runtime overhead.</li>\n"
			"<li><strong>Weights</strong> = parameters &#215; bits per weight &#247; 8, with llama-quantize&#39;s "
			"whole-file average bits per weight (exact tensor bytes for a GGUF file).</li>\n"
			"<li><strong>KV cache</strong> = &#931; over the layers that keep one: 2 (K and V) &#215; KV heads "
			"&#215; head size &#215; bytes per element &#215; cells; cells = the context rounded up to 256, "
			"sliding-window layers at most their window, linear-attention layers none (a fixed state).</li>\n"
			"<li><strong>Usable memory</strong>: a discrete GPU all of its memory less 512&#160;MiB of runtime; "
			"unified memory what the platform lets the GPU use (macOS 2/3 of RAM up to 36&#160;GiB, 3/4 above; "
			"Linux CUDA 79&#160;%; Strix Halo 75&#160;%; or the rig&#39;s own figure); system RAM 90&#160;%. A fit with less than "
			"llama.cpp&#39;s 1&#160;GiB margin free is <em>tight</em>.</li>\n"
			"<li><strong>Decode tokens/s</strong> = 1 &#247; (bytes read per token &#247; (efficiency &#215; "
			"bandwidth) + latency per token); the bytes are the active weights plus the KV cache at that "
			"depth; efficiency and latency were fitted per backend on measured llama.cpp runs.</li>\n"
			"<li><strong>Time to decision</strong> = prompt tokens &#247; prefill tokens/s; prefill = "
			"efficiency &#215; FP16 FLOP/s &#247; (2 &#215; active parameters + attention) per token.</li>\n</ul>\n");
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
	if (multi) {
		double agg = 0, seed;

		for (unsigned g = 0; g < multi->rig->n_devices; g++)
			if (multi->rig->devices[g].kind != CR_MEM_SYSTEM)
				agg += multi->rig->devices[g].count * multi->rig->devices[g].bandwidth_gbs;
		seed = 0.5 * agg * 1e9 / (double)pq->weights_bytes;
		cli_buf_puts(b, " On ");
		cli_buf_esc(b, multi->rig->name);
		cli_buf_printf(b, ", 0.5 &#215; %.0f GB/s &#247; %.2f GB would say %.0f tokens/s; clefrun estimates %.0f.",
			       agg, (double)pq->weights_bytes / 1e9, seed,
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
	cli_buf_puts(b, "<li><strong>What fits.</strong> Calculators compare the model with the whole memory. "
			"The runtime cannot use all of it: 512&#160;MiB per GPU go to the driver and runtime, the GPU "
			"of a Mac gets 2/3 to 3/4 of its memory (macOS&#39;s GPU wired limit), a DGX Spark about 79&#160;%, and llama.cpp keeps 1&#160;GiB "
			"free per device. Calculators also add a flat 2k-token cache, where this page shows each "
			"context up to the model&#39;s maximum.</li>\n");
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

static void page(cli_buf *b, const rpt_cfg *c, const rpt_data *d)
{
	const cr_model *m = &d->cm.model;
	char ctx[16];
	kv_facts kv;

	kv_facts_of(d, &kv);
	cli_fmt_ctx(ctx, sizeof(ctx), d->opts.n_ctx);
	cli_buf_puts(b, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
			"<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
			"<meta name=\"color-scheme\" content=\"light dark\">\n");
	cli_buf_printf(b, "<meta name=\"generator\" content=\"clefrun %s\">\n<title>", cr_version());
	cli_buf_esc(b, m->name);
	cli_buf_puts(b, ": will it run? (clefrun)</title>\n<style>\n");
	for (size_t i = 0; i < sizeof(page_css) / sizeof(page_css[0]); i++)
		cli_buf_puts(b, page_css[i]);
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
	section_facts(b, d, &kv);
	section_local(b, d);
	section_rigs(b, d);
	section_chart(b, d);
	section_method(b, d, &kv);
	cli_buf_printf(b, "</main>\n<footer>\n<p>Generated by clefrun %s (catalog %s). This file is complete "
			  "in itself: no script, no fonts or images from elsewhere.</p>\n<p>To make it again: <code>",
		       cr_version(), cr_catalog_version());
	command_line(b, c, d);
	cli_buf_puts(b, "</code></p>\n</footer>\n</body>\n</html>\n");
}

int cmd_report(const cli_globals *g, int argc, char **argv)
{
	rpt_cfg c;
	rpt_data *d = NULL;
	cli_buf b;
	int rc;

	memset(&c, 0, sizeof(c));
	c.cmd = report_cmd.name;
	c.g = *g;
	c.kv = CR_KV_F16;
	rc = cli_parse(&report_cmd, argc, argv, &c);
	if (rc)
		return rc < 0 ? EXIT_OK_ : rc;
	d = calloc(1, sizeof(*d));
	if (!d) {
		fprintf(stderr, "clefrun: out of memory\n");
		return EXIT_ERROR;
	}
	cli_buf_init(&b);
	rc = rpt_gather(&c, d);
	if (!rc) {
		page(&b, &c, d);
		rc = cli_buf_write_file(&b, c.output, c.cmd);
	}
	cli_buf_free(&b);
	rpt_free(d);
	free(d);
	return rc;
}
