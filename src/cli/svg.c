/*
 * The memory-against-context chart as one <svg> element (report.h).
 *
 * Layout: a log2 context axis (every doubling a tick), a memory axis, one
 * polyline per quant labelled at its right end, one dashed horizontal line per
 * rig's usable memory (rigs with the same memory share a line), and a dot
 * where the primary quant runs out on each rig.
 *
 * The memory axis is linear from 0 while the curves and rig lines fill a good
 * part of it; when the range is wide (a linear axis would squeeze the lowest
 * curve or rig line into the bottom eighth: large models, whose rigs span 11
 * to 700 GiB) it is
 * logarithmic, with 1-2-5 ticks, and shows every rig within a factor of 4 of
 * the curves. Rigs outside the axis are listed under the chart.
 *
 * Rig labels are placed, not just stacked: each goes where its box (width
 * estimated from its characters) crosses no curve, no other label, no other
 * rig line and no dot -- above or below its line, at the left, the right or
 * in between. A label with no free place anywhere is left out of the plot
 * and listed under the chart, so that no two texts ever overlap.
 *
 * Colours: presentation attributes carry the light scheme, so that any SVG
 * viewer draws the chart; a <style> element overrides them for
 * prefers-color-scheme: dark and restores them for print. Every colour has
 * a text label next to it (quant names at the curves, rig ids at the lines).
 * The <title> and <desc> elements give the chart's content in words.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

#define W 760.0
#define PL 64.0        /* plot left */
#define PR (W - 104.0) /* plot right: quant labels after it */
#define PH 300.0       /* plot height; 120 px taller, up to PH_STEPS - 1 times, when the rig
			* labels need room */
#define PH_STEPS 3
#define LABEL_GAP 12.0 /* least vertical distance between two rig labels (font-size 11) */
#define QUANT_GAP 13.0 /* ... between two quant labels (font-size 12, bold) */
#define NOTE_CHARS 112 /* characters per line of the note under the chart */
#define CHAR_W 6.3     /* estimated advance of one character at font-size 11 (system sans
			* fonts average 0.5-0.57 em; a margin over that) */
#define LOG_RATIO 8.0  /* a log memory axis when a linear one would reach over 8x the lowest
			* curve or rig line drawn: those would be squeezed into its bottom eighth */
#define LOG_REACH 4.0  /* on a log axis, rigs within 4x of the curves are drawn */

/* Quant colours: light scheme (attributes) and dark scheme (style).
 * Okabe-Ito hues, darkened or lightened for contrast on each background. */
static const char *const q_light[] = { "#0b63b6", "#c44e00", "#007a5a", "#b0487f",
				       "#8a6a00", "#5a3fb0", "#2f6f85", "#555555" };
static const char *const q_dark[] = { "#6cb6ff", "#ff9b5c", "#4fd1a5", "#f09acb",
				      "#e3b341", "#b8a2ff", "#7cc8e6", "#c9d1d9" };
#define N_COLOURS (sizeof(q_light) / sizeof(q_light[0]))

typedef struct geom {
	double lx0, lx1;  /* log2 of the context range */
	double ylo;       /* GiB at the bottom of the plot: 0, or the log axis's lower end */
	double ytop;      /* GiB at the top of the plot */
	bool ylog;        /* logarithmic memory axis */
	double top, bottom;
} geom;

static double xpos(const geom *g, double ctx)
{
	return PL + (log2(ctx) - g->lx0) / (g->lx1 - g->lx0) * (PR - PL);
}

static double ypos(const geom *g, double gib)
{
	if (g->ylog) {
		double v = gib < g->ylo ? g->ylo : gib;

		return g->bottom - (log10(v) - log10(g->ylo)) / (log10(g->ytop) - log10(g->ylo)) *
					   (g->bottom - g->top);
	}
	return g->bottom - gib / g->ytop * (g->bottom - g->top);
}

/* The 1-2-5 value at or below (down) or above (up) v > 0. */
static double nice125(double v, bool up)
{
	double p = pow(10, floor(log10(v))), best = up ? 10 * p : p;
	static const double m[] = { 1, 2, 5, 10 };

	for (size_t i = 0; i < 4; i++) {
		double x = m[i] * p;

		if (up && x >= v * (1 - 1e-9) && x < best)
			best = x;
		if (!up && x <= v * (1 + 1e-9) && x > best)
			best = x;
	}
	return best;
}

/* Memory ticks: k × step on a linear axis, 1-2-5 × 10^e on a log one. Returns the count. */
static size_t yticks(const geom *g, double step, double *out, size_t max)
{
	size_t n = 0;

	if (!g->ylog) {
		for (int k = 0; n < max && k * step <= g->ytop * (1 + 1e-9); k++)
			out[n++] = k * step;
		return n;
	}
	for (int e = (int)floor(log10(g->ylo)) - 1; e <= (int)ceil(log10(g->ytop)); e++) {
		static const double m[] = { 1, 2, 5 };

		for (size_t i = 0; i < 3 && n < max; i++) {
			double v = m[i] * pow(10, e);

			if (v >= g->ylo * (1 - 1e-9) && v <= g->ytop * (1 + 1e-9))
				out[n++] = v;
		}
	}
	return n;
}

/* ---- label placement: boxes that must not overlap -------------------------------- */

typedef struct box {
	double x0, y0, x1, y1;
} box;

static bool overlap(const box *a, const box *b, double margin)
{
	return a->x0 < b->x1 + margin && b->x0 < a->x1 + margin && a->y0 < b->y1 + margin &&
	       b->y0 < a->y1 + margin;
}

/* Characters of UTF-8 text, for its estimated width. */
static size_t text_chars(const char *s, size_t len)
{
	size_t n = 0;

	for (size_t i = 0; i < len; i++)
		n += ((unsigned char)s[i] & 0xC0) != 0x80;
	return n;
}

/* Whether a curve passes through the box (its polyline, segment by segment). */
static bool box_hits_curves(const geom *g, const cli_chart *c, const box *bx)
{
	for (size_t i = 0; i < c->n_series; i++) {
		const cli_chart_series *s = &c->series[i];

		for (size_t k = 0; k < s->n; k++) {
			double xa = xpos(g, s->ctx[k]), ya = ypos(g, s->gib[k]);
			double xb = k + 1 < s->n ? xpos(g, s->ctx[k + 1]) : (s->n == 1 ? xa + 12 : xa);
			double yb = k + 1 < s->n ? ypos(g, s->gib[k + 1]) : ya;
			double lo, hi;

			if (xb < bx->x0 - 2 || xa > bx->x1 + 2)
				continue;
			/* the segment's y over the box's x range (clipped), with the stroke's width */
			{
				double t0 = xb > xa ? (fmax(xa, bx->x0) - xa) / (xb - xa) : 0;
				double t1 = xb > xa ? (fmin(xb, bx->x1) - xa) / (xb - xa) : 1;
				double y0 = ya + (yb - ya) * t0, y1 = ya + (yb - ya) * t1;

				lo = fmin(y0, y1) - 2;
				hi = fmax(y0, y1) + 2;
			}
			if (hi > bx->y0 && lo < bx->y1)
				return true;
		}
	}
	return false;
}

/* 512, 1k, 256k, 1M, 10M: context in the units people say. */
static void fmt_ctx(char *buf, size_t cap, double ctx)
{
	if (ctx >= 1048576.0 && fmod(ctx, 1048576.0) == 0)
		snprintf(buf, cap, "%gM", ctx / 1048576.0);
	else if (ctx >= 1024.0 && fmod(ctx, 1024.0) == 0)
		snprintf(buf, cap, "%gk", ctx / 1024.0);
	else /* not a whole k: exact, as cli_fmt_ctx */
		snprintf(buf, cap, "%.0f", ctx);
}

/* The 1-2-2.5-5 step that gives about `ticks` intervals up to v. */
static double nice_step(double v, double ticks)
{
	double raw = v / ticks, p = pow(10.0, floor(log10(raw))), f = raw / p;

	if (f <= 1)
		return p;
	if (f <= 2)
		return 2 * p;
	if (f <= 2.5)
		return 2.5 * p;
	if (f <= 5)
		return 5 * p;
	return 10 * p;
}

/* Spread label positions (ascending wanted y) at least `gap` apart,
 * staying within [lo, hi] where possible. */
static void spread(double *y, size_t n, double lo, double hi, double gap)
{
	for (size_t i = 1; i < n; i++)
		if (y[i] < y[i - 1] + gap)
			y[i] = y[i - 1] + gap;
	if (n && y[n - 1] > hi) {
		y[n - 1] = hi;
		for (size_t i = n - 1; i-- > 0;)
			if (y[i] > y[i + 1] - gap)
				y[i] = y[i + 1] - gap;
	}
	for (size_t i = 0; i < n && y[i] < lo; i++)
		y[i] = lo;
}

typedef struct idx_y {
	size_t i;
	double y;
} idx_y;

static int by_y(const void *a, const void *b)
{
	const idx_y *x = a, *z = b;

	return (x->y > z->y) - (x->y < z->y);
}

/* Rig lines at the same usable memory (to 0.05 GiB) share one line. */
typedef struct group {
	double gib;
	size_t first, n;
	size_t members[64];
} group;

static size_t make_groups(const cli_chart *c, group *gr, size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < c->n_lines; i++) {
		size_t k;

		for (k = 0; k < n; k++)
			if (fabs(gr[k].gib - c->lines[i].gib) < 0.05)
				break;
		if (k == n) {
			if (n == max)
				continue;
			gr[n].gib = c->lines[i].gib;
			gr[n].first = i;
			gr[n].n = 0;
			n++;
		}
		if (gr[k].n < sizeof(gr[k].members) / sizeof(gr[k].members[0]))
			gr[k].members[gr[k].n++] = i;
	}
	return n;
}

static int by_gib(const void *a, const void *b)
{
	const group *x = a, *z = b;

	return (x->gib > z->gib) - (x->gib < z->gib);
}

static void fmt_gib(char *buf, size_t cap, double gib)
{
	snprintf(buf, cap, gib < 10 ? "%.2f GiB" : gib < 1000 ? "%.1f GiB" : "%.0f GiB", gib);
}

/* "rtx4090, 2x3090 · 24.0 GiB"; at most `max_ids` ids, then "+N more". */
static void group_label(cli_buf *b, const cli_chart *c, const group *g, size_t max_ids)
{
	char mem[32];

	for (size_t k = 0; k < g->n && k < max_ids; k++) {
		if (k)
			cli_buf_puts(b, ", ");
		cli_buf_esc(b, c->lines[g->members[k]].label);
	}
	if (g->n > max_ids)
		cli_buf_printf(b, " +%zu more", g->n - max_ids);
	fmt_gib(mem, sizeof(mem), g->gib);
	cli_buf_printf(b, " \xC2\xB7 %s", mem);
}

static void style(cli_buf *b)
{
	cli_buf_puts(b, "<style>\n"
			"@media (prefers-color-scheme: dark) {\n"
			"  svg.crchart .c-bg { fill: #0d1117; }\n"
			"  svg.crchart text { fill: #e6edf3; }\n"
			"  svg.crchart .c-muted { fill: #9ba7b4; }\n"
			"  svg.crchart .c-grid { stroke: #2a313a; }\n"
			"  svg.crchart .c-axis { stroke: #8b949e; }\n"
			"  svg.crchart .c-rig { stroke: #9ba7b4; }\n"
			"  svg.crchart .c-mark { stroke: #8b949e; }\n"
			"  svg.crchart .c-out { fill: #0d1117; }\n"
			"  svg.crchart .c-riglabels { stroke: #0d1117; }\n");
	for (size_t i = 0; i < N_COLOURS; i++)
		cli_buf_printf(b, "  svg.crchart .c-q%zu { stroke: %s; }\n"
				  "  svg.crchart text.c-q%zu { fill: %s; stroke: none; }\n",
			       i, q_dark[i], i, q_dark[i]);
	cli_buf_puts(b, "}\n@media print {\n"
			"  svg.crchart .c-bg { fill: #ffffff; }\n"
			"  svg.crchart text { fill: #1f2328; }\n"
			"  svg.crchart .c-muted { fill: #57606a; }\n"
			"  svg.crchart .c-grid { stroke: #d8dee4; }\n"
			"  svg.crchart .c-axis, svg.crchart .c-rig, svg.crchart .c-mark { stroke: #57606a; }\n"
			"  svg.crchart .c-out { fill: #ffffff; }\n"
			"  svg.crchart .c-riglabels { stroke: #ffffff; }\n");
	for (size_t i = 0; i < N_COLOURS; i++)
		cli_buf_printf(b, "  svg.crchart .c-q%zu { stroke: %s; }\n"
				  "  svg.crchart text.c-q%zu { fill: %s; stroke: none; }\n",
			       i, q_light[i], i, q_light[i]);
	cli_buf_puts(b, "}\n</style>\n");
}

/* The chart's content in words, for <desc> (screen readers, text search). */
static void describe(cli_buf *b, const cli_chart *c, bool ylog)
{
	char lo[16], hi[16], a[32], z[32];

	fmt_ctx(lo, sizeof(lo), c->ctx_lo);
	fmt_ctx(hi, sizeof(hi), c->ctx_hi);
	cli_buf_printf(b, "Memory one GPU needs%s against the context, from %s to %s tokens (log scale)",
		       ylog ? " (log scale)" : "", lo, hi);
	for (size_t i = 0; i < c->n_series; i++) {
		const cli_chart_series *s = &c->series[i];

		if (!s->n)
			continue;
		fmt_gib(a, sizeof(a), s->gib[0]);
		fmt_gib(z, sizeof(z), s->gib[s->n - 1]);
		cli_buf_puts(b, i ? "; " : ": ");
		cli_buf_esc(b, s->label);
		cli_buf_printf(b, " %s to %s", a, z);
	}
	cli_buf_puts(b, ".");
	if (c->n_lines)
		cli_buf_puts(b, " Usable memory of the rigs: ");
	for (size_t i = 0; i < c->n_lines; i++) {
		const cli_chart_line *l = &c->lines[i];

		fmt_gib(a, sizeof(a), l->gib);
		if (i)
			cli_buf_puts(b, "; ");
		cli_buf_esc(b, l->label);
		cli_buf_printf(b, " %s", a);
		if (c->n_series && (l->none || l->runs_out_ctx)) {
			cli_buf_puts(b, " (");
			cli_buf_esc(b, c->series[c->primary].label);
			if (l->none)
				cli_buf_puts(b, " does not fit)");
			else
				cli_buf_printf(b, " fits up to %u tokens)", l->runs_out_ctx);
		}
	}
	if (c->n_lines)
		cli_buf_puts(b, ".");
}

/* Rig labels: lines closer than a label's height share one; each label goes to the first
 * place where it overlaps no curve, label, other rig line or dot (above its line, then below;
 * left, right, in between). order 0 places from the lowest memory up, 1 from the highest down.
 * Writes the <text> elements to rl and the labels with no room ("; "-separated, escaped) to
 * unplaced, when not NULL. Returns how many had no room. */
static size_t place_rig_labels(const geom *gp, const cli_chart *c, const group *groups,
			       size_t n_groups, int order, cli_buf *rl, cli_buf *unplaced)
{
	const geom g = *gp;
	idx_y ys[RPT_MAX_RIGS] = { { 0, 0 } };
	box placed[RPT_MAX_RIGS], dots[RPT_MAX_RIGS];
	size_t n = 0, n_cl = 0, cl_lo[RPT_MAX_RIGS], cl_hi[RPT_MAX_RIGS], n_dots = 0, n_placed = 0,
	       miss = 0;

	{
		for (size_t k = 0; k < n_groups; k++) {
			if (groups[k].gib > g.ytop || groups[k].gib < g.ylo)
				continue;
			ys[n].i = k;
			ys[n].y = ypos(&g, groups[k].gib);
			n++;
		}
		qsort(ys, n, sizeof(ys[0]), by_y);
		for (size_t i = 0; c->n_series && i < c->n_lines; i++) {
			const cli_chart_line *l = &c->lines[i];
			double x, y;

			if (l->none || !l->runs_out_ctx || l->gib > g.ytop || l->gib < g.ylo ||
			    l->runs_out_ctx < c->ctx_lo)
				continue;
			x = xpos(&g, l->runs_out_ctx);
			y = ypos(&g, l->gib);
			if (n_dots < RPT_MAX_RIGS)
				dots[n_dots++] = (box){ x - 5, y - 5, x + 5, y + 5 };
		}
		/* Lines closer than a label's height share one label. */
		for (size_t k = n; k > 0;) {
			size_t hi = k - 1, lo = hi;

			while (lo > 0 && ys[hi].y - ys[lo - 1].y < LABEL_GAP)
				lo--;
			cl_lo[n_cl] = lo;
			cl_hi[n_cl] = hi;
			n_cl++;
			k = lo;
		}
		if (rl)
			cli_buf_puts(rl, "<g font-size=\"11\" paint-order=\"stroke\" stroke=\"#ffffff\" "
				"stroke-width=\"3\" stroke-linejoin=\"round\" class=\"c-riglabels\">\n");
		for (size_t kk = 0; kk < n_cl; kk++) {
			size_t k = order ? n_cl - 1 - kk : kk;
			cli_buf text;
			size_t shown = 0, rest = 0;
			double w, top_y = ys[cl_lo[k]].y, bot_y = ys[cl_hi[k]].y;
			bool done = false;

			/* Lowest memory first, as the lines run bottom to top; at most
			 * three lines named, so the label fits the plot. */
			cli_buf_init(&text);
			for (size_t j = cl_hi[k] + 1; j-- > cl_lo[k];) {
				if (shown == 3) {
					rest += groups[ys[j].i].n;
					continue;
				}
				if (shown++)
					cli_buf_puts(&text, "; ");
				group_label(&text, c, &groups[ys[j].i], cl_hi[k] > cl_lo[k] ? 2 : 4);
			}
			if (rest)
				cli_buf_printf(&text, "; +%zu more", rest);
			if (text.failed || !text.data) {
				if (rl)
					rl->failed = true;
				cli_buf_free(&text);
				miss++;
				continue;
			}
			/* the escaped text's entities (&#39; ...) are one character each */
			w = CHAR_W * (double)text_chars(text.data, text.len);
			for (const char *e = text.data; (e = strchr(e, '&')) != NULL; e++) {
				const char *semi = strchr(e, ';');

				if (semi)
					w -= CHAR_W * (double)(semi - e);
			}
			/* Candidates: above the top line, below the bottom one; at the
			 * left, the right, then in between. */
			for (int side = 0; side < 2 && !done; side++) {
				static const double at[] = { 0, 1, 0.5, 0.25, 0.75 };
				double base = side == 0 ? top_y - 3 : bot_y + 12;

				for (size_t a = 0; a < sizeof(at) / sizeof(at[0]) && !done; a++) {
					double x0 = PL + 6 + at[a] * (PR - PL - 12 - w);
					box bx = { x0, base - 9, x0 + w, base + 3 };
					bool ok = w <= PR - PL - 12 && bx.y0 >= g.top && bx.y1 <= g.bottom &&
						  !box_hits_curves(&g, c, &bx);

					for (size_t q = 0; ok && q < n_placed; q++)
						ok = !overlap(&bx, &placed[q], 1);
					for (size_t q = 0; ok && q < n_dots; q++)
						ok = !overlap(&bx, &dots[q], 0);
					for (size_t q = 0; ok && q < n; q++)
						ok = (q >= cl_lo[k] && q <= cl_hi[k]) || ys[q].y < bx.y0 - 1 ||
						     ys[q].y > bx.y1 + 1;
					if (!ok)
						continue;
					placed[n_placed++] = bx;
					if (rl)
						cli_buf_printf(rl, "<text x=\"%.1f\" y=\"%.1f\">%s</text>\n", x0,
							       base, text.data);
					done = true;
				}
			}
			if (!done) {
				miss++;
				if (unplaced) {
					if (unplaced->len)
						cli_buf_puts(unplaced, "\x1f"); /* an item separator */
					cli_buf_puts(unplaced, text.data);
				}
			}
			cli_buf_free(&text);
		}
		if (rl)
			cli_buf_puts(rl, "</g>\n");
	}
	return miss;
}


void cli_svg_chart(cli_buf *b, const cli_chart *c, bool standalone)
{
	group groups[RPT_MAX_RIGS];
	idx_y ys[RPT_MAX_RIGS > RPT_MAX_QUANTS ? RPT_MAX_RIGS : RPT_MAX_QUANTS];
	double wanted[RPT_MAX_RIGS > RPT_MAX_QUANTS ? RPT_MAX_RIGS : RPT_MAX_QUANTS];
	size_t n_groups = make_groups(c, groups, RPT_MAX_RIGS), n_above = 0, n_note_lines = 0;
	double cmax = 0, cmin, lin_lo, cand, step, height, note_y, ticks[64];
	size_t n_ticks, n_below = 0, n_unplaced = 0;
	char *item_at = NULL;
	cli_buf note, rl, unplaced;
	double drawn_y[RPT_MAX_RIGS];
	size_t n_drawn = 0;
	int e_lo, e_hi;
	geom g;
	char t[32];

	/* ---- scales ---- */
	g.lx0 = log2(c->ctx_lo > 0 ? c->ctx_lo : 1);
	g.lx1 = log2(c->ctx_hi > c->ctx_lo ? c->ctx_hi : (c->ctx_lo > 0 ? c->ctx_lo : 1) * 2.0);
	cmin = HUGE_VAL;
	for (size_t i = 0; i < c->n_series; i++)
		for (size_t k = 0; k < c->series[i].n; k++) {
			if (c->series[i].gib[k] > cmax)
				cmax = c->series[i].gib[k];
			if (c->series[i].gib[k] > 0 && c->series[i].gib[k] < cmin)
				cmin = c->series[i].gib[k];
		}
	if (cmax <= 0)
		cmax = 1;
	if (!(cmin < HUGE_VAL))
		cmin = cmax;
	qsort(groups, n_groups, sizeof(groups[0]), by_gib);
	/* Linear: rigs a little above the curves are worth drawing (how much
	 * room is left); rigs far above would flatten the curves, so they go to
	 * the note under the chart. */
	cand = cmax * 1.08;
	for (size_t k = 0; k < n_groups; k++)
		if (groups[k].gib <= cmax * 1.6 && groups[k].gib * 1.04 > cand)
			cand = groups[k].gib * 1.04;
	step = nice_step(cand, 6);
	g.ylo = 0;
	g.ytop = ceil(cand / step - 1e-9) * step;
	g.ylog = false;
	/* Log: when a linear axis would squeeze the lowest curve, or leave out
	 * rigs near the curves; every rig within LOG_REACH of them is drawn. */
	lin_lo = cmin;
	for (size_t k = 0; k < n_groups; k++)
		if (groups[k].gib <= g.ytop && groups[k].gib > 0 && groups[k].gib < lin_lo)
			lin_lo = groups[k].gib;
	if (g.ytop / lin_lo > LOG_RATIO) {
		double lo = cmin, hi = cmax;

		for (size_t k = 0; k < n_groups; k++) {
			if (groups[k].gib < cmin && groups[k].gib * LOG_REACH >= cmin && groups[k].gib < lo)
				lo = groups[k].gib;
			if (groups[k].gib > cmax && groups[k].gib <= cmax * LOG_REACH && groups[k].gib > hi)
				hi = groups[k].gib;
		}
		g.ylog = true;
		g.ylo = nice125(lo / 1.1, false);
		g.ytop = nice125(hi * 1.1, true);
	}

	g.top = 78;

	/* ---- rig labels: the plot's height and the order of placement that leave the fewest
	 * labels without room (all placed at 300 px, most charts) ---- */
	{
		size_t best = (size_t)-1;
		double best_ph = PH;
		int best_order = 0;

		for (int h = 0; h < PH_STEPS && best; h++) {
			double ph = PH + 120.0 * h;

			for (int order = 0; order < 2 && best; order++) {
				size_t miss;

				g.bottom = g.top + ph;
				miss = place_rig_labels(&g, c, groups, n_groups, order, NULL, NULL);
				if (miss < best) {
					best = miss;
					best_ph = ph;
					best_order = order;
				}
			}
		}
		g.bottom = g.top + best_ph;
		cli_buf_init(&rl);
		cli_buf_init(&unplaced);
		place_rig_labels(&g, c, groups, n_groups, best_order, &rl, &unplaced);
		if (rl.failed)
			b->failed = true;
		for (size_t k = 0; k < n_groups; k++)
			if (groups[k].gib <= g.ytop && groups[k].gib >= g.ylo)
				drawn_y[n_drawn++] = ypos(&g, groups[k].gib);
	}

	/* ---- the note: rigs outside the axis, and labels with no room in the plot,
	 * wrapped by hand (SVG text does not wrap) ---- */
	cli_buf_init(&note);
	if (unplaced.data) {
		n_unplaced = 1;
		for (size_t i = 0; i < unplaced.len; i++)
			n_unplaced += unplaced.data[i] == '\x1f';
		item_at = unplaced.data;
	}
	for (size_t k = 0; k < n_groups; k++) {
		n_above += groups[k].gib > g.ytop;
		n_below += groups[k].gib < g.ylo;
	}
	for (int part = 0; part < 3; part++) {
		size_t count = part == 0 ? n_above : part == 1 ? n_below : n_unplaced;
		size_t line_start, seen = 0;

		if (!count)
			continue;
		if (note.len)
			cli_buf_puts(&note, "\n");
		line_start = note.len;
		if (part == 0)
			cli_buf_printf(&note, "Above the chart (more than %g GiB usable): ", g.ytop);
		else if (part == 1)
			cli_buf_printf(&note, "Below the chart (less than %g GiB usable): ", g.ylo);
		else
			cli_buf_puts(&note, "Lines not labelled for want of room, bottom to top: ");
		for (size_t k = 0; k < (part == 2 ? n_unplaced : n_groups); k++) {
			size_t before;

			if (part == 0 && groups[k].gib <= g.ytop)
				continue;
			if (part == 1 && groups[k].gib >= g.ylo)
				continue;
			before = note.len;
			if (part == 2) {
				char *sep = strchr(item_at, '\x1f');

				if (sep)
					*sep = '\0';
				cli_buf_puts(&note, item_at);
				cli_buf_puts(&note, ++seen < count ? "; " : ".");
				item_at = sep ? sep + 1 : item_at + strlen(item_at);
			} else {
				group_label(&note, c, &groups[k], 6);
				cli_buf_puts(&note, ++seen < count ? "; " : ".");
			}
			/* Break before an item that would overflow the line. */
			if (note.len - line_start > NOTE_CHARS && before > line_start) {
				char *item = malloc(note.len - before + 1);

				if (!item) {
					note.failed = true;
					break;
				}
				memcpy(item, note.data + before, note.len - before + 1);
				note.len = before;
				cli_buf_puts(&note, "\n");
				line_start = note.len;
				cli_buf_puts(&note, item);
				free(item);
			}
		}
	}
	if (note.len) {
		n_note_lines = 1;
		for (size_t i = 0; i < note.len; i++)
			n_note_lines += note.data[i] == '\n';
	}
	if (note.failed || unplaced.failed)
		b->failed = true;
	cli_buf_free(&unplaced);

	note_y = g.bottom + 62;
	height = note_y + (n_note_lines ? 16.0 * (double)n_note_lines : 0) + 8;

	/* ---- header ---- */
	if (standalone)
		cli_buf_puts(b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
	cli_buf_printf(b, "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"crchart\" version=\"1.1\" "
			  "width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" role=\"img\" "
			  "aria-labelledby=\"crchart-title crchart-desc\" "
			  "font-family=\"system-ui, -apple-system, 'Segoe UI', Roboto, Helvetica, Arial, sans-serif\" "
			  "font-size=\"12\" fill=\"#1f2328\">\n",
		       W, height, W, height);
	cli_buf_puts(b, "<title id=\"crchart-title\">");
	cli_buf_esc(b, c->title);
	cli_buf_puts(b, "</title>\n<desc id=\"crchart-desc\">");
	describe(b, c, g.ylog);
	cli_buf_puts(b, "</desc>\n");
	style(b);
	cli_buf_printf(b, "<rect class=\"c-bg\" x=\"0\" y=\"0\" width=\"%.0f\" height=\"%.0f\" fill=\"#ffffff\"/>\n",
		       W, height);
	cli_buf_puts(b, "<text x=\"16\" y=\"26\" font-size=\"16\" font-weight=\"600\">");
	cli_buf_esc(b, c->title);
	cli_buf_puts(b, "</text>\n<text class=\"c-muted\" x=\"16\" y=\"46\" fill=\"#57606a\">");
	cli_buf_esc(b, c->subtitle);
	cli_buf_puts(b, "</text>\n");

	/* ---- grid and axes ---- */
	n_ticks = yticks(&g, step, ticks, sizeof(ticks) / sizeof(ticks[0]));
	e_lo = (int)ceil(g.lx0 - 1e-9);
	e_hi = (int)floor(g.lx1 + 1e-9);
	cli_buf_puts(b, "<g class=\"c-grid\" stroke=\"#d8dee4\" stroke-width=\"1\">\n");
	for (size_t k = 0; k < n_ticks; k++)
		if (ticks[k] > g.ylo)
			cli_buf_printf(b, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n", PL,
				       ypos(&g, ticks[k]), PR, ypos(&g, ticks[k]));
	for (int e = e_lo; e <= e_hi; e++)
		cli_buf_printf(b, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n",
			       xpos(&g, exp2(e)), g.top, xpos(&g, exp2(e)), g.bottom);
	cli_buf_puts(b, "</g>\n");
	cli_buf_printf(b, "<g class=\"c-axis\" stroke=\"#57606a\" stroke-width=\"1\">"
			  "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
			  "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/></g>\n",
		       PL, g.top, PL, g.bottom, PL, g.bottom, PR, g.bottom);
	/* Memory ticks. */
	cli_buf_puts(b, "<g class=\"c-muted\" fill=\"#57606a\" font-size=\"11\" text-anchor=\"end\">\n");
	for (size_t k = 0; k < n_ticks; k++)
		cli_buf_printf(b, "<text x=\"%.1f\" y=\"%.1f\">%g</text>\n", PL - 6, ypos(&g, ticks[k]) + 4,
			       ticks[k]);
	cli_buf_puts(b, "</g>\n");
	cli_buf_printf(b, "<text class=\"c-muted\" fill=\"#57606a\" font-size=\"11\" "
			  "transform=\"translate(18 %.1f) rotate(-90)\" text-anchor=\"middle\">memory one GPU needs (GiB%s)</text>\n",
		       (g.top + g.bottom) / 2, g.ylog ? ", log scale" : "");
	/* Context ticks: every doubling; every other one labelled when dense. */
	{
		int every = e_hi - e_lo > 12 ? 2 : 1;

		cli_buf_puts(b, "<g class=\"c-muted\" fill=\"#57606a\" font-size=\"11\" text-anchor=\"middle\">\n");
		/* From the right, so the model's maximum keeps its label. */
		for (int e = e_hi; e >= e_lo; e--) {
			if ((e_hi - e) % every)
				continue;
			fmt_ctx(t, sizeof(t), exp2(e));
			cli_buf_printf(b, "<text x=\"%.1f\" y=\"%.1f\">%s</text>\n", xpos(&g, exp2(e)),
				       g.bottom + 16, t);
		}
		cli_buf_puts(b, "</g>\n");
	}
	cli_buf_printf(b, "<text class=\"c-muted\" fill=\"#57606a\" font-size=\"11\" x=\"%.1f\" y=\"%.1f\" "
			  "text-anchor=\"middle\">context (tokens, log scale)</text>\n",
		       (PL + PR) / 2, g.bottom + 36);

	/* ---- the tables' context ---- */
	if (c->ctx_mark >= c->ctx_lo && c->ctx_mark <= c->ctx_hi && c->ctx_mark) {
		double x = xpos(&g, c->ctx_mark);

		fmt_ctx(t, sizeof(t), c->ctx_mark);
		cli_buf_printf(b, "<line class=\"c-mark\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
				  "stroke=\"#57606a\" stroke-width=\"1\" stroke-dasharray=\"1 3\"/>\n"
				  "<text class=\"c-muted\" fill=\"#57606a\" font-size=\"11\" x=\"%.1f\" y=\"%.1f\" "
				  "text-anchor=\"%s\">%s: the tables&#39; context</text>\n",
			       x, g.top - 4, x, g.bottom, x + (x > (PL + PR) / 2 ? -4 : 4), g.top - 8,
			       x > (PL + PR) / 2 ? "end" : "start", t);
	}

	/* ---- rig lines (their labels, placed above, are drawn after the curves) ---- */
	cli_buf_puts(b, "<g class=\"c-rig\" stroke=\"#57606a\" stroke-width=\"1\" stroke-dasharray=\"5 4\">\n");
	for (size_t k = 0; k < n_drawn; k++)
		cli_buf_printf(b, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n", PL, drawn_y[k],
			       PR, drawn_y[k]);
	cli_buf_puts(b, "</g>\n");

	/* ---- curves, labelled at their right end ---- */
	for (size_t i = 0; i < c->n_series; i++) {
		const cli_chart_series *s = &c->series[i];
		size_t col = i % N_COLOURS;

		if (!s->n)
			continue;
		cli_buf_printf(b, "<polyline class=\"c-q%zu\" fill=\"none\" stroke=\"%s\" stroke-width=\"%s\" "
				  "stroke-linejoin=\"round\" points=\"",
			       col, q_light[col], i == c->primary ? "3" : "1.8");
		for (size_t k = 0; k < s->n; k++)
			cli_buf_printf(b, "%s%.1f,%.1f", k ? " " : "", xpos(&g, s->ctx[k]), ypos(&g, s->gib[k]));
		/* A model whose whole context is one point (a maximum under 512
		 * tokens): a line of no length would not show, so a short one. */
		if (s->n == 1)
			cli_buf_printf(b, " %.1f,%.1f", xpos(&g, s->ctx[0]) + 12, ypos(&g, s->gib[0]));
		cli_buf_puts(b, "\"/>\n");
	}
	if (rl.failed)
		b->failed = true;
	else if (rl.data)
		cli_buf_puts(b, rl.data);
	cli_buf_free(&rl);
	{
		size_t n = 0;

		for (size_t i = 0; i < c->n_series; i++) {
			if (!c->series[i].n)
				continue;
			ys[n].i = i;
			ys[n].y = ypos(&g, c->series[i].gib[c->series[i].n - 1]) + 4;
			n++;
		}
		qsort(ys, n, sizeof(ys[0]), by_y);
		for (size_t k = 0; k < n; k++)
			wanted[k] = ys[k].y;
		spread(wanted, n, g.top + 4, height - 6, QUANT_GAP);
		cli_buf_puts(b, "<g font-size=\"12\" font-weight=\"600\">\n");
		for (size_t k = 0; k < n; k++) {
			size_t i = ys[k].i, col = i % N_COLOURS;

			cli_buf_printf(b, "<text class=\"c-q%zu\" x=\"%.1f\" y=\"%.1f\" fill=\"%s\">", col, PR + 6,
				       wanted[k], q_light[col]);
			cli_buf_esc(b, c->series[i].label);
			cli_buf_puts(b, "</text>\n");
		}
		cli_buf_puts(b, "</g>\n");
	}

	/* ---- where the primary quant runs out on each rig ---- */
	if (c->n_series) {
		size_t col = c->primary % N_COLOURS;

		cli_buf_printf(b, "<g class=\"c-q%zu\" stroke=\"%s\" stroke-width=\"2\">\n", col, q_light[col]);
		for (size_t i = 0; i < c->n_lines; i++) {
			const cli_chart_line *l = &c->lines[i];

			if (l->none || !l->runs_out_ctx || l->gib > g.ytop || l->gib < g.ylo ||
			    l->runs_out_ctx < c->ctx_lo)
				continue;
			cli_buf_printf(b, "<circle class=\"c-out\" cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"#ffffff\">"
					  "<title>",
				       xpos(&g, l->runs_out_ctx), ypos(&g, l->gib));
			cli_buf_esc(b, l->label);
			cli_buf_puts(b, ": ");
			cli_buf_esc(b, c->series[c->primary].label);
			cli_buf_printf(b, " fits up to %u tokens</title></circle>\n", l->runs_out_ctx);
		}
		cli_buf_puts(b, "</g>\n");
	}

	/* ---- note ---- */
	if (n_note_lines && note.data) {
		char *line = note.data;

		cli_buf_printf(b, "<text class=\"c-muted\" fill=\"#57606a\" font-size=\"11\" x=\"16\" y=\"%.1f\">",
			       note_y);
		for (size_t k = 0; line; k++) {
			char *nl = strchr(line, '\n');

			if (nl)
				*nl = '\0';
			/* Already escaped when it was built. */
			cli_buf_printf(b, "<tspan x=\"16\" dy=\"%s\">%s</tspan>", k ? "16" : "0", line);
			line = nl ? nl + 1 : NULL;
		}
		cli_buf_puts(b, "</text>\n");
	}
	cli_buf_free(&note);
	cli_buf_puts(b, "</svg>\n");
}
