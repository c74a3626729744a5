/*
 * The report and the chart (clefrun report, clefrun chart; docs/report.md).
 *
 * The layers, one file each:
 *   html.c         a growable text buffer, escaping for HTML and SVG text and
 *                  attributes, and the atomic write of the finished file;
 *   svg.c          the memory-against-context chart as one <svg> element,
 *                  standalone or inline in the page;
 *   report_data.c  the numbers (rpt_data: everything the page and the chart
 *                  show, every one from the library: cr_estimate_run,
 *                  cr_curve_memory, cr_decide_best_quant);
 *   report_html.c  the HTML page from rpt_data (report_html.h), with the
 *                  style sheet src/cli/report.css embedded at build time;
 *   cmd_report.c   the option specs both commands share (cli_parse) and
 *                  clefrun report;
 *   cmd_chart.c    the chart alone: report_data.c and svg.c, not the page.
 *
 * Every string from a catalog, a rig spec or a GGUF header goes through
 * cli_buf_esc: GGUF names are hostile ("<script>", "&", quotes, bytes that
 * are not UTF-8, control characters), and the SVG must stay well-formed XML.
 */
#ifndef CLEFRUN_CLI_REPORT_H
#define CLEFRUN_CLI_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cli.h"
#include "source_model.h"
#include "clefrun/curve.h"

/* ---- text buffer (html.c) -------------------------------------------------- */

typedef struct cli_buf {
	char *data;   /* NUL-terminated once anything was written */
	size_t len, cap;
	bool failed;  /* an allocation failed: the contents are incomplete */
} cli_buf;

void cli_buf_init(cli_buf *b);
void cli_buf_free(cli_buf *b);
void cli_buf_puts(cli_buf *b, const char *s);
void cli_buf_printf(cli_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Append s escaped for HTML or XML text and attribute values (& < > " '),
 * with bytes that are not UTF-8 and control characters other than tab and
 * newline replaced by U+FFFD, so the result is always well-formed. */
void cli_buf_esc(cli_buf *b, const char *s);
/* Format, then escape the result (for strings that embed catalog text). */
void cli_buf_escf(cli_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Write b to path atomically: a temporary file in the same directory,
 * fsync, rename over path; "-" writes to stdout. On failure prints
 * "CMD: cannot write PATH: reason", removes the temporary file and returns
 * EXIT_ERROR; otherwise EXIT_OK_. */
int cli_buf_write_file(const cli_buf *b, const char *path, const char *cmd);

/* ---- the chart (svg.c) ----------------------------------------------------- */

typedef struct cli_chart_series {
	const char *label;        /* quant, e.g. "Q4_K_M" */
	const uint32_t *ctx;      /* tokens, increasing */
	const double *gib;        /* memory at each context, GiB */
	size_t n;
} cli_chart_series;

typedef struct cli_chart_line {
	const char *label;        /* rig id */
	double gib;               /* usable memory, GiB */
	uint32_t runs_out_ctx;    /* largest context of the primary series on this rig;
				     0 when it runs the model's whole context or nothing */
	bool none;                /* the primary series does not fit at all */
} cli_chart_line;

typedef struct cli_chart {
	const char *title;        /* plain text; escaped by the writer */
	const char *subtitle;
	const cli_chart_series *series;
	size_t n_series;
	size_t primary;           /* the series the runs-out markers belong to */
	const cli_chart_line *lines;
	size_t n_lines;
	uint32_t ctx_lo, ctx_hi;  /* context axis range, tokens */
	uint32_t ctx_mark;        /* the tables' context (a dotted line); 0 none */
} cli_chart;

/* Append the chart as one <svg> element. standalone: with the XML
 * declaration and the namespace declarations a file needs (the same
 * element is valid inline in HTML). */
void cli_svg_chart(cli_buf *b, const cli_chart *c, bool standalone);

/* ---- the numbers both commands use (report_data.c) ----------------------------- */

#define RPT_MAX_RIGS 64
#define RPT_MAX_QUANTS 24

typedef struct rpt_quant {
	const cr_quant *quant;    /* the catalog preset; NULL for a GGUF file */
	cr_weights weights;       /* the preset, or the GGUF's exact tensor bytes */
	char label[CR_ID_MAX];
	double bpw;               /* bits per weight (cr_estimate_weights_bpw) */
	uint64_t weights_bytes;   /* what the estimator counts as the file's weights */
	cr_memory at_ctx;         /* one GPU at the report's context */
	cr_memory at_max;         /* one GPU at the model's maximum context */
	double curve_gib[CR_CURVE_MAX_POINTS]; /* one GPU, at rpt_data.curve_ctx */
	int smallest_ctx;         /* smallest rig (rank.h) that fits the report's context; -1 */
	int smallest_max;         /* ... that fits the model's whole context; -1 */
} rpt_quant;

typedef struct rpt_rig {
	const cr_rig *rig;
	cr_estimate est[RPT_MAX_QUANTS]; /* per quant, at the report's context */
	int best;                 /* quant index: best quant (decide.h) reaching ok; -1: none fits,
				     or a GGUF file (one quant: no choice, the column is not shown) */
	cr_tier best_tier;
	bool best_reaches;        /* best reaches ok; false: the closest (fastest that fits) */
	unsigned n_gpus;          /* accelerators (discrete or unified) */
	bool has_ram;             /* a system-RAM tier */
} rpt_rig;

typedef struct rpt_cfg {
	const char *cmd;          /* "clefrun report" / "clefrun chart" */
	const char *model_id;
	const char *quant_ids[RPT_MAX_QUANTS];
	int n_quants;
	const char *rig_ids[RPT_MAX_RIGS];
	int n_rigs;
	unsigned ctx;
	bool ctx_given;
	cr_kv_type kv;
	cr_workload workload;
	const char *output;
	const char *revision;
	bool header_only;
	int format;               /* chart --format: 0, svg (the only one) */
	cli_globals g;
} rpt_cfg;

/* The KV cache in figures, for the page's words. */
typedef struct rpt_kv {
	unsigned layers, kv_layers, swa, rec;
	uint64_t per_token;    /* growth per token of context, at the report's KV type */
	uint64_t at_max;       /* KV bytes at the model's maximum context */
	uint64_t swa_cap;      /* KV bytes of the sliding layers once full */
	uint64_t state;        /* recurrent state, bytes */
	uint64_t naive_token;  /* the usual calculators: every layer, f16, widest KV */
	uint64_t f16_token;    /* per_token at f16 */
	uint32_t cell_pad;     /* cells are allocated in multiples of this */
} rpt_kv;

typedef struct rpt_data {
	cli_model cm;             /* the model (a copy) and where it came from */
	cr_estimate_opts opts;    /* the one-GPU figure's: cr_estimate_resolve_opts without a rig */
	char fa_why[160];         /* how flash attention resolved for it */
	rpt_quant q[RPT_MAX_QUANTS];
	int n_q;
	int primary;              /* the quant of the rig table and the chart's markers */
	rpt_rig r[RPT_MAX_RIGS];
	int n_r;
	cr_rig scratch[RPT_MAX_RIGS]; /* custom, saved and local rigs */
	uint32_t curve_ctx[CR_CURVE_MAX_POINTS];
	size_t n_curve;
	rpt_kv kv;
	int multi;                /* the first rig with several GPUs and a decode speed; -1 none */
	double multi_agg_gbs;     /* its accelerators' bandwidth added up, GB/s */
	double multi_naive_tps;   /* the calculators' 0.5 x multi_agg_gbs / file size, tokens/s */
	/* "Which devices run it": every catalog rig at the primary quant, grouped
	 * (cr_decide_group), in catalog order within a group. Allocated. */
	const cr_rig **dev_rigs;
	cr_estimate *dev_est;
	size_t n_dev;
	/* "What to buy or rent" (buy.h): the built-in prices (or the --catalog
	 * directory's prices.json), the priced rigs ranked; catalog models only. */
	cr_prices *prices;
	cr_buy_row *buy_rows, *rent_rows;
	size_t n_buy, n_rent, buy_reach, rent_reach;
	const cr_quant *buy_quants[RPT_MAX_QUANTS];
	char prices_note[160];    /* why there is no such section, or "" */
	/* "Serving several users" (plan.h): the first rig of the table on which the
	 * primary quant fits, N = 1, 2, 4 ... sequences, each with the report's
	 * context (N x that in all, capped at the model's maximum). */
	int serve_rig;            /* index into r[]; -1: no rig fits */
	cr_parallel_point serve[6];
	size_t n_serve;
	cr_catalog *cat;
} rpt_data;

/* Resolve the model, quants and rigs and compute every number. Prints
 * errors; returns 0 or an exit code. d is zeroed first; free with rpt_free. */
int rpt_gather(const rpt_cfg *c, rpt_data *d);
void rpt_free(rpt_data *d);
/* The chart of d: arrays in *storage (n_q series, n_r lines) must outlive c. */
typedef struct rpt_chart_storage {
	cli_chart_series series[RPT_MAX_QUANTS];
	cli_chart_line lines[RPT_MAX_RIGS];
	char title[CR_NAME_MAX + 64];
	char subtitle[256];
} rpt_chart_storage;
void rpt_chart(const rpt_data *d, rpt_chart_storage *s, cli_chart *c);

int cmd_report(const cli_globals *g, int argc, char **argv);
int cmd_chart(const cli_globals *g, int argc, char **argv);

#endif
