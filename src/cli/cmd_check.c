/*
 * clefrun check: one model against rigs and quants.
 * One rig and no quant: every quant on that rig (seed page 2's view).
 * No rig: every reference rig at the given quants, default Q4_K_M (seed page 1's view).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "cli.h"

#define MAX_RIGS 128
#define MAX_QUANTS 64
#define DEFAULT_QUANT "Q4_K_M"

enum { O_MODEL = 1, O_QUANT, O_RIG, O_CTX, O_KV, O_PROMPT, O_FORMAT, O_REQUIRE, O_CATALOG };

static const cli_opt check_opts[] = {
	{ "model", "ID", "catalog model id (required)", O_MODEL },
	{ "quant", "Q", "quantization preset; repeatable (default: all on one rig, else Q4_K_M)", O_QUANT },
	{ "rig", "R", "rig id or custom:mem_gb=..,bw_gbs=..; repeatable (default: the 22 reference rigs)", O_RIG },
	{ "ctx", "N", "context in tokens (default 8192, capped at the model's maximum)", O_CTX },
	{ "kv-type", "T", "KV cache type: f16, q8_0, q4_0 (default f16)", O_KV },
	{ "prompt", "N", "prompt tokens for time-to-decision (default min(ctx, 2048))", O_PROMPT },
	{ "format", "F", "table, json, csv or markdown (default table)", O_FORMAT },
	{ "require", "TIER", "exit 3 if a row is worse than TIER: fast, ok, slow, tight (default tight)", O_REQUIRE },
	{ "catalog", "DIR", "read the catalog from DIR", O_CATALOG },
	{ NULL, NULL, NULL, 0 },
};

static const char check_usage[] =
	"clefrun check --model ID [--quant Q]... [--rig R]... [--ctx N] [--kv-type T] [--format F] [--require TIER]";
static const char check_summary[] =
	"Memory (weights + KV cache + state + buffers + overhead), largest context, decode and\n"
	"prefill speed, and fit tier of a model on each rig and quantization.";

typedef struct row {
	const cr_rig *rig;
	const cr_quant *quant;
	cr_estimate est;
} row;

typedef struct check_cfg {
	const char *model_id;
	const char *quant_ids[MAX_QUANTS];
	int n_quants;
	const char *rig_ids[MAX_RIGS];
	int n_rigs;
	unsigned ctx;
	bool ctx_given;
	cr_kv_type kv;
	unsigned prompt;
	cli_format fmt;
	cr_tier require;
	cli_globals g;
} check_cfg;

static int parse_args(check_cfg *c, int argc, char **argv)
{
	cli_parser p;
	const char *v;
	int id;

	cli_parser_init(&p, "clefrun check", argc, argv);
	while ((id = cli_next(&p, check_opts, &v)) != CLI_OPT_END) {
		switch (id) {
		case CLI_OPT_HELP:
			cli_print_help(stdout, check_usage, check_summary, check_opts);
			return -1;
		case CLI_OPT_ERROR:
			return EXIT_USAGE;
		case CLI_OPT_POSITIONAL:
			fprintf(stderr, "clefrun check: unexpected argument '%s' (see --help)\n", v);
			return EXIT_USAGE;
		case O_MODEL:
			if (c->model_id) {
				fprintf(stderr, "clefrun check: --model given twice\n");
				return EXIT_USAGE;
			}
			c->model_id = v;
			break;
		case O_QUANT:
			if (c->n_quants == MAX_QUANTS) {
				fprintf(stderr, "clefrun check: at most %d --quant\n", MAX_QUANTS);
				return EXIT_USAGE;
			}
			c->quant_ids[c->n_quants++] = v;
			break;
		case O_RIG:
			if (c->n_rigs == MAX_RIGS) {
				fprintf(stderr, "clefrun check: at most %d --rig\n", MAX_RIGS);
				return EXIT_USAGE;
			}
			c->rig_ids[c->n_rigs++] = v;
			break;
		case O_CTX:
			if (cli_parse_u32("--ctx", v, 1, 1ul << 30, &c->ctx))
				return EXIT_USAGE;
			c->ctx_given = true;
			break;
		case O_KV:
			if (cr_kv_type_parse(v, &c->kv)) {
				fprintf(stderr, "clefrun: --kv-type: expected f16, q8_0 or q4_0, got '%s'\n", v);
				return EXIT_USAGE;
			}
			break;
		case O_PROMPT:
			if (cli_parse_u32("--prompt", v, 1, 1ul << 30, &c->prompt))
				return EXIT_USAGE;
			break;
		case O_FORMAT:
			if (cli_parse_format(v, &c->fmt))
				return EXIT_USAGE;
			break;
		case O_REQUIRE:
			if (cr_tier_parse(v, &c->require) || c->require == CR_TIER_NOFIT) {
				fprintf(stderr, "clefrun: --require: expected fast, ok, slow or tight, got '%s'\n", v);
				return EXIT_USAGE;
			}
			break;
		case O_CATALOG:
			c->g.catalog_dir = v;
			break;
		default:
			return EXIT_USAGE;
		}
	}
	if (!c->model_id) {
		fprintf(stderr, "clefrun check: --model is required (see 'clefrun models')\n");
		return EXIT_USAGE;
	}
	return 0;
}

static void layout_text(const cr_model *m, char *buf, size_t cap)
{
	unsigned kv = cr_model_kv_layers(m);
	unsigned swa = cr_model_count_layers(m, CR_LAYER_SLIDING);
	unsigned rec = cr_model_count_layers(m, CR_LAYER_RECURRENT);

	if (m->mla)
		snprintf(buf, cap, "MLA: %u layers keep a compressed K cache", kv);
	else if (rec)
		snprintf(buf, cap, "hybrid: %u of %u layers keep a KV cache, %u linear-attention layers keep a fixed state",
			 kv, m->n_layers, rec);
	else if (swa)
		snprintf(buf, cap, "%u of %u layers use a %u-token sliding window", swa, m->n_layers,
			 m->window);
	else
		snprintf(buf, cap, "all %u layers keep a KV cache", m->n_layers);
}

static void print_heading(const check_cfg *c, const cr_model *m, const row *rows, FILE *f)
{
	char params[32], active[32], ctx[32], layout[160];
	double kv_tok = (double)rows[0].est.kv_bytes_per_token / 1024.0;

	cli_fmt_params(params, sizeof(params), m->params);
	cli_fmt_params(active, sizeof(active), m->active_params);
	cli_fmt_ctx(ctx, sizeof(ctx), c->ctx);
	layout_text(m, layout, sizeof(layout));
	fprintf(f, "%s%s (%s): %s params%s%s, context %s of %u, KV %s%s\n",
		c->fmt == FMT_MARKDOWN ? "**" : "", m->name, m->id, params,
		m->active_params != m->params ? ", " : "",
		m->active_params != m->params ? active : "", ctx, m->context_max,
		cr_kv_type_name(c->kv), c->fmt == FMT_MARKDOWN ? "**" : "");
	fprintf(f, "%s; KV grows %.1f KiB per token\n\n", layout, kv_tok);
}

static void add_text_row(cli_table *t, const row *r)
{
	const cr_estimate *e = &r->est;
	char mem[64], used[24], avail[24], kvs[24], maxc[16], dec[16], pre[16], ttd[16];
	char rig[CR_NAME_MAX + 4];
	const char *cells[9];

	cli_fmt_gib(used, sizeof(used), (double)e->memory.total_bytes);
	cli_fmt_gib(avail, sizeof(avail), (double)e->memory.available_bytes);
	snprintf(mem, sizeof(mem), "%s / %s", used, avail);
	cli_fmt_gib(kvs, sizeof(kvs), (double)(e->memory.kv_bytes + e->memory.state_bytes));
	cli_fmt_ctx(maxc, sizeof(maxc), e->max_context);
	cli_fmt_rate(dec, sizeof(dec), e->decode_tokens_per_s);
	cli_fmt_rate(pre, sizeof(pre), e->prefill_tokens_per_s);
	if (e->time_to_decision_s > 0)
		snprintf(ttd, sizeof(ttd), e->time_to_decision_s < 10 ? "%.2f s" : "%.0f s",
			 e->time_to_decision_s);
	else
		snprintf(ttd, sizeof(ttd), "-");
	snprintf(rig, sizeof(rig), "%s%s", r->rig->id, r->rig->unreleased ? " *" : "");
	cells[0] = rig;
	cells[1] = r->quant->id;
	cells[2] = mem;
	cells[3] = kvs;
	cells[4] = e->max_context ? maxc : "-";
	cells[5] = dec;
	cells[6] = pre;
	cells[7] = ttd;
	cells[8] = cr_tier_name(e->tier);
	cli_table_add(t, cells);
}

static void add_csv_row(cli_table *t, const cr_model *m, const row *r)
{
	const cr_estimate *e = &r->est;
	char v[12][32];
	const char *cells[16];

	snprintf(v[0], 32, "%u", e->context);
	snprintf(v[1], 32, "%llu", (unsigned long long)e->memory.weights_bytes);
	snprintf(v[2], 32, "%llu", (unsigned long long)e->memory.kv_bytes);
	snprintf(v[3], 32, "%llu", (unsigned long long)e->memory.state_bytes);
	snprintf(v[4], 32, "%llu", (unsigned long long)e->memory.compute_bytes);
	snprintf(v[5], 32, "%llu", (unsigned long long)e->memory.overhead_bytes);
	snprintf(v[6], 32, "%llu", (unsigned long long)e->memory.total_bytes);
	snprintf(v[7], 32, "%llu", (unsigned long long)e->memory.available_bytes);
	snprintf(v[8], 32, "%u", e->max_context);
	snprintf(v[9], 32, "%.2f", e->decode_tokens_per_s);
	snprintf(v[10], 32, "%.1f", e->prefill_tokens_per_s);
	snprintf(v[11], 32, "%.4f", e->time_to_decision_s);
	cells[0] = m->id;
	cells[1] = r->quant->id;
	cells[2] = r->rig->id;
	for (int i = 0; i < 12; i++)
		cells[3 + i] = v[i];
	cells[15] = cr_tier_name(e->tier);
	cli_table_add(t, cells);
}

static cJSON *memory_json(const cr_memory *mm)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddNumberToObject(o, "weights_bytes", (double)mm->weights_bytes);
	cJSON_AddNumberToObject(o, "kv_bytes", (double)mm->kv_bytes);
	cJSON_AddNumberToObject(o, "state_bytes", (double)mm->state_bytes);
	cJSON_AddNumberToObject(o, "compute_bytes", (double)mm->compute_bytes);
	cJSON_AddNumberToObject(o, "output_bytes", (double)mm->output_bytes);
	cJSON_AddNumberToObject(o, "overhead_bytes", (double)mm->overhead_bytes);
	cJSON_AddNumberToObject(o, "total_bytes", (double)mm->total_bytes);
	cJSON_AddNumberToObject(o, "available_bytes", (double)mm->available_bytes);
	cJSON_AddNumberToObject(o, "device_bytes", (double)mm->device_bytes);
	cJSON_AddNumberToObject(o, "host_bytes", (double)mm->host_bytes);
	return o;
}

static void add_rate(cJSON *o, const char *key, double v, double scale)
{
	if (v > 0)
		cJSON_AddNumberToObject(o, key, round(v * scale) / scale);
	else
		cJSON_AddNullToObject(o, key);
}

static int print_json(const check_cfg *c, const cr_model *m, const row *rows, int n)
{
	cJSON *root = cJSON_CreateObject(), *res, *mo;
	char *s;

	cJSON_AddStringToObject(root, "schema", "clefrun.check/1");
	mo = cJSON_AddObjectToObject(root, "model_info");
	cJSON_AddStringToObject(mo, "id", m->id);
	cJSON_AddStringToObject(mo, "name", m->name);
	cJSON_AddNumberToObject(mo, "params", (double)m->params);
	cJSON_AddNumberToObject(mo, "active_params", (double)m->active_params);
	cJSON_AddNumberToObject(mo, "context_max", m->context_max);
	cJSON_AddNumberToObject(mo, "layers", m->n_layers);
	cJSON_AddNumberToObject(mo, "kv_layers", cr_model_kv_layers(m));
	cJSON_AddNumberToObject(mo, "kv_bytes_per_token", n ? (double)rows[0].est.kv_bytes_per_token : 0);
	cJSON_AddStringToObject(root, "kv_type", cr_kv_type_name(c->kv));
	cJSON_AddStringToObject(root, "require", cr_tier_name(c->require));
	res = cJSON_AddArrayToObject(root, "results");
	for (int i = 0; i < n; i++) {
		const cr_estimate *e = &rows[i].est;
		cJSON *o = cJSON_CreateObject();

		cJSON_AddStringToObject(o, "model", m->id);
		cJSON_AddStringToObject(o, "quant", rows[i].quant->id);
		cJSON_AddStringToObject(o, "rig", rows[i].rig->id);
		cJSON_AddStringToObject(o, "rig_name", rows[i].rig->name);
		cJSON_AddBoolToObject(o, "rig_unreleased", rows[i].rig->unreleased);
		cJSON_AddNumberToObject(o, "context", e->context);
		cJSON_AddItemToObject(o, "memory", memory_json(&e->memory));
		cJSON_AddBoolToObject(o, "fits", e->fits);
		cJSON_AddNumberToObject(o, "max_context", e->max_context);
		cJSON_AddNumberToObject(o, "offload_fraction", round(e->offload_fraction * 1e4) / 1e4);
		add_rate(o, "decode_tokens_per_s", e->decode_tokens_per_s, 100);
		cJSON_AddNumberToObject(o, "decode_depth", e->decode_depth);
		add_rate(o, "prefill_tokens_per_s", e->prefill_tokens_per_s, 10);
		add_rate(o, "time_to_decision_s", e->time_to_decision_s, 1e4);
		cJSON_AddNumberToObject(o, "prompt_tokens", e->prompt_tokens);
		cJSON_AddStringToObject(o, "tier", cr_tier_name(e->tier));
		cJSON_AddItemToArray(res, o);
	}
	s = cJSON_Print(root);
	cJSON_Delete(root);
	if (!s) {
		fprintf(stderr, "clefrun: out of memory\n");
		return EXIT_ERROR;
	}
	puts(s);
	free(s);
	return EXIT_OK_;
}

static int render(const check_cfg *c, const cr_model *m, const row *rows, int n)
{
	static const char *const text_hdr[] = { "RIG", "QUANT", "MEMORY / USABLE", "KV+STATE",
		"MAX CTX", "DECODE t/s", "PREFILL t/s", "DECIDE", "TIER" };
	static const bool text_right[] = { false, false, true, true, true, true, true, true, false };
	static const char *const csv_hdr[] = { "model", "quant", "rig", "context", "weights_bytes",
		"kv_bytes", "state_bytes", "compute_bytes", "overhead_bytes", "total_bytes",
		"available_bytes", "max_context", "decode_tokens_per_s", "prefill_tokens_per_s",
		"time_to_decision_s", "tier" };
	bool unreleased = false;
	cli_table t;

	if (c->fmt == FMT_JSON)
		return print_json(c, m, rows, n);
	if (c->fmt == FMT_CSV) {
		cli_table_init(&t, 16, csv_hdr, NULL);
		for (int i = 0; i < n; i++)
			add_csv_row(&t, m, &rows[i]);
	} else {
		print_heading(c, m, rows, stdout);
		cli_table_init(&t, 9, text_hdr, text_right);
		for (int i = 0; i < n; i++) {
			add_text_row(&t, &rows[i]);
			unreleased |= rows[i].rig->unreleased;
		}
	}
	cli_table_render(&t, c->fmt, stdout);
	cli_table_free(&t);
	if (c->fmt != FMT_CSV) {
		printf("\nDecode at a full %u-token context; DECIDE = prefill of a %u-token prompt.\n",
		       rows[0].est.context, rows[0].est.prompt_tokens);
		if (unreleased)
			printf("* hardware that does not exist as described (see 'clefrun rigs').\n");
	}
	return EXIT_OK_;
}

int cmd_check(const cli_globals *g, int argc, char **argv)
{
	check_cfg c;
	cr_catalog *cat = NULL;
	const cr_model *m;
	const cr_rig *rigs[MAX_RIGS];
	const cr_quant *quants[MAX_QUANTS];
	cr_rig *custom = NULL;
	row *rows = NULL;
	int nr = 0, nq = 0, n = 0, rc;

	memset(&c, 0, sizeof(c));
	c.g = *g;
	c.kv = CR_KV_F16;
	c.require = CR_TIER_TIGHT;
	rc = parse_args(&c, argc, argv);
	if (rc)
		return rc < 0 ? EXIT_OK_ : rc;
	cat = cli_open_catalog(&c.g);
	if (!cat)
		return EXIT_ERROR;
	rc = EXIT_USAGE;
	m = cli_find_model(cat, c.model_id);
	custom = calloc(MAX_RIGS, sizeof(cr_rig));
	if (!custom) {
		rc = EXIT_ERROR;
		goto out;
	}
	if (!m)
		goto out;
	if (c.ctx_given && c.ctx > m->context_max) {
		fprintf(stderr, "clefrun: --ctx %u is above %s's maximum context of %u tokens\n",
			c.ctx, m->id, m->context_max);
		goto out;
	}
	if (!c.ctx_given)
		c.ctx = m->context_max < CR_DEFAULT_CTX ? m->context_max : CR_DEFAULT_CTX;

	for (int i = 0; i < c.n_rigs; i++) {
		if (!(rigs[nr++] = cli_find_rig(cat, c.rig_ids[i], &custom[i])))
			goto out;
	}
	if (!c.n_rigs) {
		for (size_t i = 0; i < cr_catalog_rig_count(cat) && nr < MAX_RIGS; i++)
			if (cr_catalog_rig_at(cat, i)->reference)
				rigs[nr++] = cr_catalog_rig_at(cat, i);
	}
	for (int i = 0; i < c.n_quants; i++) {
		if (!(quants[nq++] = cli_find_quant(cat, c.quant_ids[i])))
			goto out;
	}
	if (!c.n_quants && c.n_rigs == 1) {
		for (size_t i = 0; i < cr_catalog_quant_count(cat) && nq < MAX_QUANTS; i++)
			quants[nq++] = cr_catalog_quant_at(cat, i);
	} else if (!c.n_quants) {
		if (!(quants[nq++] = cli_find_quant(cat, DEFAULT_QUANT)))
			goto out;
	}

	rows = calloc((size_t)nr * (size_t)nq, sizeof(row));
	if (!rows) {
		rc = EXIT_ERROR;
		goto out;
	}
	rc = EXIT_OK_;
	for (int i = 0; i < nr; i++) {
		for (int k = 0; k < nq; k++) {
			cr_estimate_opts o = CR_ESTIMATE_OPTS_INIT;
			cr_error err = { 0, "" };
			int s;

			o.n_ctx = c.ctx;
			o.type_k = o.type_v = c.kv;
			o.prompt_tokens = c.prompt;
			rows[n].rig = rigs[i];
			rows[n].quant = quants[k];
			s = cr_estimate_run(m, quants[k], rigs[i], &o, &rows[n].est, &err);
			if (s) {
				fprintf(stderr, "clefrun: %s\n", err.message);
				rc = cli_exit_for_status(s);
				goto out;
			}
			n++;
		}
	}
	rc = render(&c, m, rows, n);
	for (int i = 0; rc == EXIT_OK_ && i < n; i++) {
		if (rows[i].est.tier > c.require)
			rc = EXIT_NOFIT;
	}
out:
	free(rows);
	free(custom);
	cr_catalog_free(cat);
	return rc;
}
