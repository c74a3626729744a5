/*
 * clefrun fit: what can this rig run? Every catalog model with its best
 * quant (highest bpw that reaches --require), ranked. The choice and the
 * ranking are the library's (cr_decide_fit, include/clefrun/decide.h); this
 * file only selects models and formats.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <cjson/cJSON.h>

#include "cli.h"
#include "engine_out.h"
#include "estimate_out.h"
#include "local_models.h"

#define MAX_QUANTS 64

static const char fit_usage[] =
	"clefrun fit --rig R [--ctx N] [--require TIER] [--family F] [--limit K] [--kv-type T] [--quant Q]... [--all] [--local [--path DIR]...] [--format F]";
static const char fit_summary[] =
	"What can this rig run? Every catalog model with its best quant: the highest bits per\n"
	"weight that still reaches --require, with its largest context and decode speed.\n"
	"Ranked by: 1. total parameters, larger first (MoE: all experts); 2. bits per weight of\n"
	"the chosen quant, higher first; 3. decode tokens/s, faster first; 4. model id.\n"
	"Candidates leave out the legacy Q4_0/Q4_1/Q5_0/Q5_1 (a K-quant of the same size is\n"
	"better) and MXFP4 for dense models, unless --quant or --all-quants says otherwise.\n"
	"With --local, the GGUF models on this machine instead (models --local), each as it is.\n"
	"Exit 0 when at least one model reaches the tier, 3 when none does.";

typedef struct fit_cfg {
	const char *rig_id;
	unsigned ctx;
	cr_tier require;
	const char *family;
	unsigned limit;
	cr_kv_type kv;
	cr_flash_attn fa;
	cr_workload workload;
	bool all, all_quants;
	const char *quant_ids[MAX_QUANTS];
	int n_quants;
	cli_format fmt;
	cli_globals g;
	bool local;
	cli_local_cfg lc;
	int engine;                /* --engine: a cr_engine */
	bool ctx_given, kv_given, fa_given;
} fit_cfg;

static const cli_opt_spec fit_opts[] = {
	{ .type = CLI_T_STRING, .name = "rig", .meta = "R", .off = offsetof(fit_cfg, rig_id), .flags = CLI_F_ONCE,
	  .required = "--rig is required (a rig id, a saved rig, 'local', or custom:...)",
	  .help = "rig id, saved rig, 'local' or custom:mem_gb=..,bw_gbs=.. (required)" },
	{ CLI_O_CTX(fit_cfg, ctx), .seen = CLI_AT(fit_cfg, ctx_given),
	  .help = "context in tokens or Nk (k = 1024; default: 8192, or the model's maximum if smaller); models with a smaller maximum are left out" },
	{ CLI_O_REQUIRE(fit_cfg, require), .help = "tier to reach: fast, ok, slow or tight (default ok)" },
	{ .type = CLI_T_STRING, .name = "family", .meta = "F", .off = offsetof(fit_cfg, family),
	  .help = "only models of this family (llama, qwen, gemma, ...)" },
	{ .type = CLI_T_UINT, .name = "limit", .meta = "K", .off = offsetof(fit_cfg, limit), .lo = 1, .hi = 100000,
	  .help = "show at most K models that reach the tier" },
	{ CLI_O_KV_TYPE(fit_cfg, kv, kv), .seen = CLI_AT(fit_cfg, kv_given), .help = "KV cache type: f16, q8_0, q4_0 (default f16)" },
	{ .type = CLI_T_FLAG, .name = "all", .off = offsetof(fit_cfg, all),
	  .help = "also list the models that do not reach the tier, with the best they get" },
	{ CLI_O_QUANTS(fit_cfg, quant_ids, n_quants),
	  .help = "candidate quant; repeatable (default: every preset but the legacy Q4_0/Q4_1/Q5_0/Q5_1, and MXFP4 only for MoE)" },
	{ .type = CLI_T_FLAG, .name = "all-quants", .off = offsetof(fit_cfg, all_quants),
	  .help = "weigh every preset, legacy ones included" },
	{ CLI_O_FLASH_ATTN(fit_cfg, fa), .seen = CLI_AT(fit_cfg, fa_given),
	  .help = "on, off or auto (default auto, resolved per model as llama.cpp does)" },
	{ .type = CLI_T_ENUM, .name = "engine", .meta = "E", .off = CLI_OFF_SIZED(fit_cfg, engine, sizeof(int)),
	  .names = cli_engine_names,
	  .help = "front-end whose defaults apply per model: llamacpp (clefrun's, default), llama-server, ollama (reads the OLLAMA_* variables) or lmstudio" },
	{ CLI_O_WORKLOAD(fit_cfg, workload) },
	{ .type = CLI_T_FLAG, .name = "local", .off = offsetof(fit_cfg, local),
	  .help = "the GGUF models on this machine (Ollama, Hugging Face hub cache, LM Studio, --path), not the catalog's" },
	{ .type = CLI_T_LIST, .name = "path", .meta = "DIR", .off = offsetof(fit_cfg, lc.paths),
	  .count = CLI_AT(fit_cfg, lc.n_paths), .max = CLI_LOCAL_MAX_PATHS,
	  .help = "with --local: also the GGUF files in DIR (or the file DIR); repeatable" },
	{ .type = CLI_T_FLAG, .name = "header-only", .off = offsetof(fit_cfg, lc.header_only),
	  .help = "with --local: accept GGUF files cut after their header" },
	{ CLI_O_FORMAT(fit_cfg, fmt) },
	{ CLI_O_CATALOG(fit_cfg, g.catalog_dir), .help = CLI_HELP_CATALOG },
	CLI_SPEC_END,
};

static const cli_command fit_cmd = { .name = "clefrun fit", .usage = fit_usage, .summary = fit_summary, .opts = fit_opts };

static int parse_args(fit_cfg *c, int argc, char **argv)
{
	return cli_parse(&fit_cmd, argc, argv, c);
}

/* The rows shown: the first `limit` that reach, then (with --all) the rest. */
static bool shown(const fit_cfg *c, const cr_fit_row *r, size_t i)
{
	if (r->status == CR_FIT_REACHES)
		return !c->limit || i < c->limit;
	return c->all;
}

static void fmt_rank(char *buf, size_t cap, const cr_fit_row *r, size_t i)
{
	if (r->status == CR_FIT_REACHES)
		snprintf(buf, cap, "%zu", i + 1);
	else
		snprintf(buf, cap, "-");
}

static int print_json(const fit_cfg *c, const cr_rig *rig, cli_rig_origin origin,
		      const cr_fit_row *rows, size_t n, size_t n_reach)
{
	cJSON *root = cJSON_CreateObject(), *ro, *res, *rank, *counts;
	size_t below = 0, ctx = 0;

	cJSON_AddStringToObject(root, "schema", "clefrun.fit/1");
	ro = cJSON_AddObjectToObject(root, "rig");
	cJSON_AddStringToObject(ro, "id", rig->id);
	cJSON_AddStringToObject(ro, "name", rig->name);
	cJSON_AddStringToObject(ro, "origin", cli_rig_origin_name(origin));
	cJSON_AddNumberToObject(ro, "memory_bytes", (double)cr_rig_memory_bytes(rig));
	cJSON_AddStringToObject(root, "require", cr_tier_name(c->require));
	if (c->ctx)
		cJSON_AddNumberToObject(root, "context", c->ctx);
	else
		cJSON_AddNullToObject(root, "context");
	cJSON_AddStringToObject(root, "kv_type", cr_kv_type_name(c->kv));
	if (c->engine != CR_ENGINE_LLAMACPP)
		cJSON_AddStringToObject(root, "engine", cr_engine_name((cr_engine)c->engine));
	cJSON_AddStringToObject(root, "workload", c->workload == CR_WORKLOAD_DECIDE ? "decide" : "chat");
	if (c->family)
		cJSON_AddStringToObject(root, "family", c->family);
	else
		cJSON_AddNullToObject(root, "family");
	rank = cJSON_AddArrayToObject(root, "ranking");
	cJSON_AddItemToArray(rank, cJSON_CreateString("params"));
	cJSON_AddItemToArray(rank, cJSON_CreateString("bpw"));
	cJSON_AddItemToArray(rank, cJSON_CreateString("decode_tokens_per_s"));
	cJSON_AddItemToArray(rank, cJSON_CreateString("id"));
	for (size_t i = 0; i < n; i++) {
		below += rows[i].status == CR_FIT_BELOW;
		ctx += rows[i].status == CR_FIT_CONTEXT;
	}
	counts = cJSON_AddObjectToObject(root, "counts");
	cJSON_AddNumberToObject(counts, "reaches", (double)n_reach);
	cJSON_AddNumberToObject(counts, "below", (double)below);
	cJSON_AddNumberToObject(counts, "context", (double)ctx);
	res = cJSON_AddArrayToObject(root, "results");
	for (size_t i = 0; i < n; i++) {
		const cr_fit_row *r = &rows[i];
		const cr_estimate *e = &r->estimate;
		cJSON *o;

		if (!shown(c, r, i))
			continue;
		o = cJSON_CreateObject();
		if (r->status == CR_FIT_REACHES)
			cJSON_AddNumberToObject(o, "rank", (double)(i + 1));
		else
			cJSON_AddNullToObject(o, "rank");
		cJSON_AddStringToObject(o, "model", r->model->id);
		cJSON_AddStringToObject(o, "model_name", r->model->name);
		cJSON_AddStringToObject(o, "family", r->model->family);
		cJSON_AddNumberToObject(o, "params", (double)r->model->params);
		cJSON_AddNumberToObject(o, "active_params", (double)r->model->active_params);
		cJSON_AddNumberToObject(o, "context_max", r->model->context_max);
		cJSON_AddStringToObject(o, "status", cr_fit_status_name(r->status));
		if (r->status == CR_FIT_CONTEXT) {
			cJSON_AddNumberToObject(o, "context", r->context);
			cJSON_AddNullToObject(o, "quant");
			cJSON_AddNullToObject(o, "tier");
			cJSON_AddItemToArray(res, o);
			continue;
		}
		cJSON_AddStringToObject(o, "quant", r->quant->id);
		cJSON_AddNumberToObject(o, "bpw", r->quant->bpw);
		/* The estimate as check writes it (estimate_out.c), then the flat
		 * keys fit has always had, kept for its readers. */
		cli_json_estimate(o, rig, e, r->flash_attn_reason, NULL);
		cJSON_AddNumberToObject(o, "weights_bytes", (double)e->memory.weights_bytes);
		cJSON_AddNumberToObject(o, "total_bytes", (double)e->memory.total_bytes);
		cJSON_AddNumberToObject(o, "available_bytes", (double)e->memory.available_bytes);
		/* Why a speed figure is extrapolated (docs/accuracy.md "Confidence"), or null. */
		if (e->decode_note[0])
			cJSON_AddStringToObject(o, "decode_extrapolated", e->decode_note);
		else
			cJSON_AddNullToObject(o, "decode_extrapolated");
		if (e->prefill_note[0])
			cJSON_AddStringToObject(o, "prefill_extrapolated", e->prefill_note);
		else
			cJSON_AddNullToObject(o, "prefill_extrapolated");
		cJSON_AddItemToArray(res, o);
	}
	if (cli_json_emit(root))
		return EXIT_ERROR;
	return EXIT_OK_;
}

static void add_csv_row(cli_table *t, const cr_fit_row *r, size_t i)
{
	const cr_estimate *e = &r->estimate;
	char v[12][32];
	const char *cells[16];
	bool est = r->status != CR_FIT_CONTEXT;

	fmt_rank(v[0], 32, r, i);
	if (r->status != CR_FIT_REACHES)
		v[0][0] = '\0';
	snprintf(v[1], 32, "%llu", (unsigned long long)r->model->params);
	snprintf(v[2], 32, "%llu", (unsigned long long)r->model->active_params);
	snprintf(v[3], 32, "%.2f", est ? r->quant->bpw : 0.0);
	snprintf(v[4], 32, "%u", r->context);
	snprintf(v[5], 32, "%llu", (unsigned long long)e->memory.weights_bytes);
	snprintf(v[6], 32, "%llu", (unsigned long long)e->memory.total_bytes);
	snprintf(v[7], 32, "%llu", (unsigned long long)e->memory.available_bytes);
	if (e->max_context)
		snprintf(v[8], 32, "%u", e->max_context);
	else
		v[8][0] = '\0';
	snprintf(v[9], 32, "%.2f", e->decode_tokens_per_s);
	snprintf(v[10], 32, "%.1f", e->prefill_tokens_per_s);
	snprintf(v[11], 32, "%.4f", e->time_to_decision_s);
	/* Unknown or not applicable: an empty field, as JSON writes null. */
	if (e->decode_tokens_per_s <= 0)
		v[9][0] = '\0';
	if (e->prefill_tokens_per_s <= 0)
		v[10][0] = '\0';
	if (e->time_to_decision_s <= 0)
		v[11][0] = '\0';
	cells[0] = v[0];
	cells[1] = r->model->id;
	cells[2] = v[1];
	cells[3] = v[2];
	cells[4] = cr_fit_status_name(r->status);
	cells[5] = est ? r->quant->id : "";
	cells[6] = est ? v[3] : "";
	cells[7] = v[4];
	for (int k = 0; k < 7; k++)
		cells[8 + k] = est ? v[5 + k] : "";
	cells[15] = est ? cr_tier_name(e->tier) : "";
	cli_table_add(t, cells);
}

static void add_text_row(cli_table *t, const cr_fit_row *r, size_t i)
{
	const cr_estimate *e = &r->estimate;
	char rank[24], params[32], active[32], bpw[16], used[24], avail[24], mem[56], maxc[16],
		rate[16], dec[20], ttd[20];
	const char *cells[11];
	bool est = r->status != CR_FIT_CONTEXT;

	fmt_rank(rank, sizeof(rank), r, i);
	cli_fmt_params(params, sizeof(params), r->model->params);
	cli_fmt_params(active, sizeof(active), r->model->active_params);
	if (r->model->active_params == r->model->params)
		snprintf(active, sizeof(active), "=");
	snprintf(bpw, sizeof(bpw), "%.2f", est ? r->quant->bpw : 0.0);
	cli_fmt_mem(used, sizeof(used), (double)e->memory.total_bytes);
	cli_fmt_mem(avail, sizeof(avail), (double)e->memory.available_bytes);
	snprintf(mem, sizeof(mem), "%s / %s", used, avail);
	cli_fmt_ctx(maxc, sizeof(maxc), e->max_context);
	/* "~": extrapolated, no measured rows near this case (as check). */
	cli_fmt_rate(rate, sizeof(rate), e->decode_tokens_per_s);
	snprintf(dec, sizeof(dec), "%s%s", e->decode_note[0] && e->decode_tokens_per_s > 0 ? "~" : "", rate);
	if (e->time_to_decision_s > 0)
		snprintf(ttd, sizeof(ttd), e->time_to_decision_s < 10 ? "%s%.2f s" : "%s%.0f s",
			 e->prefill_note[0] ? "~" : "", e->time_to_decision_s);
	else
		snprintf(ttd, sizeof(ttd), "-");
	cells[0] = rank;
	cells[1] = r->model->id;
	cells[2] = params;
	cells[3] = active;
	cells[4] = est ? r->quant->id : "-";
	cells[5] = est ? bpw : "-";
	cells[6] = est ? mem : "-";
	cells[7] = est && e->max_context ? maxc : "-";
	cells[8] = est ? dec : "-";
	cells[9] = est ? ttd : "-";
	cells[10] = est ? cr_tier_name(e->tier) : "context";
	cli_table_add(t, cells);
}

static int render(const fit_cfg *c, const cr_rig *rig, cli_rig_origin origin,
		  const cr_fit_row *rows, size_t n, size_t n_reach)
{
	static const char *const text_hdr[] = { "#", "MODEL", "PARAMS", "ACTIVE", "QUANT", "BPW",
		"MEMORY / USABLE", "MAX CTX", "DECODE t/s", "DECIDE", "TIER" };
	static const bool text_right[] = { true, false, true, true, false, true, true, true, true,
		true, false };
	static const char *const csv_hdr[] = { "rank", "model", "params", "active_params", "status",
		"quant", "bpw", "context", "weights_bytes", "total_bytes", "available_bytes",
		"max_context", "decode_tokens_per_s", "prefill_tokens_per_s", "time_to_decision_s",
		"tier" };
	size_t below = 0, ctx = 0, listed = 0;
	char ctxs[32];
	cli_table t;

	if (c->fmt == FMT_JSON)
		return print_json(c, rig, origin, rows, n, n_reach);
	for (size_t i = 0; i < n; i++) {
		below += rows[i].status == CR_FIT_BELOW;
		ctx += rows[i].status == CR_FIT_CONTEXT;
	}
	if (c->fmt == FMT_CSV) {
		cli_table_init(&t, 16, csv_hdr, NULL);
		for (size_t i = 0; i < n; i++)
			if (shown(c, &rows[i], i))
				add_csv_row(&t, &rows[i], i);
		cli_table_render(&t, c->fmt, stdout);
		cli_table_free(&t);
		return EXIT_OK_;
	}
	if (c->ctx)
		cli_fmt_ctx(ctxs, sizeof(ctxs), c->ctx);
	if (!cli_quiet()) {
		printf(c->engine != CR_ENGINE_LLAMACPP
			       ? "%s%s (%s)%s: %s%s%smodels that reach \"%s\" as %s would load them (its defaults per model, docs/engines.md; JSON: each row's context), KV %s unless it sets one, best quant each\n"
			       : "%s%s (%s)%s: %s%s%smodels that reach \"%s\" at %s, KV %s, best quant each\n",
		       c->fmt == FMT_MARKDOWN ? "**" : "", cli_safe(rig->name), cli_safe(rig->id),
		       c->fmt == FMT_MARKDOWN ? "**" : "", c->family ? "the " : "",
		       c->family ? c->family : "", c->family ? " " : "", cr_tier_name(c->require),
		       c->engine != CR_ENGINE_LLAMACPP ? cr_engine_name((cr_engine)c->engine)
		       : c->ctx ? ctxs : "8k context (or the model's maximum if smaller)",
		       cr_kv_type_name(c->kv));
		if (c->workload == CR_WORKLOAD_DECIDE)
			printf("Tiers by time-to-decision (--workload decide). ");
		printf("Ranked by total parameters, then bits per weight, then decode speed.\n\n");
	}
	cli_table_init(&t, 11, text_hdr, text_right);
	for (size_t i = 0; i < n; i++) {
		if (!shown(c, &rows[i], i))
			continue;
		add_text_row(&t, &rows[i], i);
		listed++;
	}
	if (listed)
		cli_table_render(&t, c->fmt, stdout);
	else
		printf("No model reaches \"%s\" on this rig.\n", cr_tier_name(c->require));
	cli_table_free(&t);
	if (cli_quiet())
		return EXIT_OK_;
	printf("\n");
	if (c->limit && n_reach > c->limit)
		printf("%zu more models reach \"%s\" (--limit %u).\n", n_reach - c->limit,
		       cr_tier_name(c->require), c->limit);
	if (below && !c->all)
		printf("%zu model%s do%s not reach \"%s\" (--all lists them with the best they get).\n",
		       below, below == 1 ? "" : "s", below == 1 ? "es" : "", cr_tier_name(c->require));
	if (ctx)
		printf("%zu model%s a maximum context below --ctx %u%s.\n", ctx,
		       ctx == 1 ? " has" : "s have", c->ctx, c->all ? " (tier \"context\")" : "");
	if (c->workload == CR_WORKLOAD_DECIDE) {
		bool unknown = false;

		for (size_t i = 0; i < n; i++)
			unknown |= rows[i].status != CR_FIT_CONTEXT && rows[i].estimate.tier == CR_TIER_UNKNOWN;
		if (unknown)
			printf("Tier unknown: %s has no FP16 TFLOPS figure, so no time-to-decision for --workload decide (give the rig tflops=); such a model reaches no tier.\n",
			       rig->id);
	}
	printf("MEMORY at the context used; DECODE with a full cache; DECIDE = prefill of a 2048-token prompt.\n");
	{
		size_t x = 0;

		for (size_t i = 0; i < n; i++)
			x += shown(c, &rows[i], i) && rows[i].status != CR_FIT_CONTEXT &&
			     (rows[i].estimate.decode_note[0] || rows[i].estimate.prefill_note[0]);
		if (x)
			printf("~ extrapolated: no measured rows near %zu of these figures; 'clefrun check --model M --rig %s' gives the reason.\n",
			       x, rig->id);
	}
	return EXIT_OK_;
}

/* An error of this file's own into @p err (as the library fills one). */
static int fit_fail(cr_error *err, int status, const char *msg)
{
	err->status = status;
	snprintf(err->message, sizeof(err->message), "%s", msg);
	return status;
}

/* A cr_engine_apply error, printed already. */
#define ENGINE_ERROR_SHOWN 1

static int compare_rows(const void *a, const void *b)
{
	return cr_decide_fit_compare(a, b);
}

/* cr_decide_fit under a front-end profile: per model its defaults (which
 * depend on the model and the rig), the same candidates and choice rule
 * (cr_engine_best_quant), the same ranking (cr_decide_fit_compare). */
static int fit_engine(const fit_cfg *c, const cr_model **models, size_t nm, const cr_quant **quants,
		      size_t nq, const cr_rig *rig, const cr_fit_opts *fo, cr_fit_row *rows,
		      size_t *n_reach, cr_error *err)
{
	cr_engine_given given = CR_ENGINE_GIVEN_INIT;
	cr_engine_env env;
	const cr_quant **cand = calloc(nq + 1, sizeof(*cand));
	size_t *map = calloc(nq + 1, sizeof(*map));
	int rc = CR_OK;

	*n_reach = 0;
	if (!cand || !map) {
		free(cand);
		free(map);
		return fit_fail(err, CR_ERR_NOMEM, "out of memory");
	}
	given.n_ctx = c->ctx_given;
	given.flash_attn = c->fa_given;
	given.type_k = given.type_v = c->kv_given;
	cli_engine_env((cr_engine)c->engine, &env);
	for (size_t i = 0; i < nm && !rc; i++) {
		cr_estimate_request req = CR_ESTIMATE_REQUEST_INIT;
		cr_engine_profile prof;
		cr_estimate_setup set;
		cr_best_quant best;
		cr_estimate_opts fin;
		cr_fit_row *r = &rows[i];
		size_t n_cand = 0;
		int s;

		memset(r, 0, sizeof(*r));
		r->model = models[i];
		req.opts = fo->estimate;
		req.n_ctx = fo->n_ctx;
		req.flash_attn = fo->flash_attn;
		if ((s = cr_engine_apply((cr_engine)c->engine, models[i], rig, &req, &given, &env, &prof, err))) {
			cli_engine_error("clefrun fit", s, err);
			rc = ENGINE_ERROR_SHOWN;
			break;
		}
		s = cr_estimate_resolve_opts(models[i], rig, &prof.req, &set, err);
		r->context = set.opts.n_ctx;
		memcpy(r->flash_attn_reason, set.flash_attn_reason, sizeof(r->flash_attn_reason));
		if (s == CR_ERR_RANGE && set.bad == CR_REQUEST_CTX) {
			r->status = CR_FIT_CONTEXT;
			continue;
		}
		if (s) {
			rc = s;
			break;
		}
		for (size_t k = 0; k < nq; k++)
			if (fo->all_quants || cr_decide_default_candidate(models[i], quants[k])) {
				cand[n_cand] = quants[k];
				map[n_cand++] = k;
			}
		if (!n_cand) {
			rc = fit_fail(err, CR_ERR_INVALID, "no default candidate quant for a model (all are legacy types); weigh all quants");
			break;
		}
		if ((s = cr_engine_best_quant(&prof, models[i], cand, n_cand, rig, &set.opts, fo->require, &best,
					      &fin, err))) {
			rc = s;
			break;
		}
		r->estimate = best.estimate;
		r->context = fin.n_ctx;
		r->status = best.outcome == CR_BEST_REACHES ? CR_FIT_REACHES : CR_FIT_BELOW;
		r->quant_index = map[best.index];
		r->quant = quants[r->quant_index];
		*n_reach += r->status == CR_FIT_REACHES;
	}
	free(cand);
	free(map);
	if (!rc)
		qsort(rows, nm, sizeof(*rows), compare_rows);
	return rc;
}

int cmd_fit(const cli_globals *g, int argc, char **argv)
{
	fit_cfg c;
	cr_catalog *cat = NULL;
	const cr_model **models = NULL;
	const cr_quant **quants = NULL;
	cr_fit_row *rows = NULL;
	cr_rig scratch;
	const cr_rig *rig;
	cli_rig_origin origin;
	cr_fit_opts fo = CR_FIT_OPTS_INIT;
	cr_error err = CR_ERROR_INIT;
	size_t nm = 0, nq, n_reach = 0;
	int rc;

	memset(&c, 0, sizeof(c));
	c.g = *g;
	c.require = CR_TIER_OK;
	c.kv = CR_KV_F16;
	c.fa = CR_FA_AUTO;
	c.workload = CR_WORKLOAD_CHAT;
	rc = parse_args(&c, argc, argv);
	if (rc)
		return rc < 0 ? EXIT_OK_ : rc;
	if (!(cat = cli_open_catalog(&c.g)))
		return EXIT_ERROR;
	rc = EXIT_USAGE;
	if (!(rig = cli_resolve_rig(cat, c.rig_id, &scratch, &origin)))
		goto out;
	if (!c.local && (c.lc.n_paths || c.lc.header_only)) {
		fprintf(stderr, "clefrun fit: --%s goes with --local\n", c.lc.n_paths ? "path" : "header-only");
		goto out;
	}
	if (c.local) {
		/* Each file's quant is fixed and its family unknown to the catalog. */
		if (c.family || c.n_quants || c.all_quants || c.limit) {
			fprintf(stderr, "clefrun fit: --local weighs each model as it is on disk: --%s does not apply\n",
				c.family ? "family" : c.n_quants ? "quant" : c.all_quants ? "all-quants" : "limit");
			goto out;
		}
		c.lc.fmt = c.fmt;
		c.lc.ctx = c.ctx;
		c.lc.require = c.require;
		c.lc.kv = c.kv;
		c.lc.fa = c.fa;
		c.lc.workload = c.workload;
		rc = cli_fit_local(&c.lc, rig, origin);
		goto out;
	}
	nq = cr_catalog_quant_count(cat);
	models = calloc(cr_catalog_model_count(cat) + 1, sizeof(*models));
	quants = calloc(nq + MAX_QUANTS + 1, sizeof(*quants));
	rows = calloc(cr_catalog_model_count(cat) + 1, sizeof(*rows));
	if (!models || !quants || !rows) {
		fprintf(stderr, "clefrun: out of memory\n");
		rc = EXIT_ERROR;
		goto out;
	}
	if (c.n_quants) {
		/* Explicit candidates are weighed as given. */
		nq = 0;
		for (int i = 0; i < c.n_quants; i++)
			if (!(quants[nq++] = cli_find_quant(cat, c.quant_ids[i])))
				goto out;
	} else {
		for (size_t i = 0; i < nq; i++)
			quants[i] = cr_catalog_quant_at(cat, i);
	}
	for (size_t i = 0; i < cr_catalog_model_count(cat); i++) {
		const cr_model *m = cr_catalog_model_at(cat, i);

		if (!c.family || strcasecmp(m->family, c.family) == 0)
			models[nm++] = m;
	}
	if (!nm) {
		fprintf(stderr, "clefrun fit: no model of family '%s'; families:", c.family);
		for (size_t i = 0; i < cr_catalog_model_count(cat); i++) {
			const char *f = cr_catalog_model_at(cat, i)->family;
			bool dup = false;

			for (size_t k = 0; k < i && !dup; k++)
				dup = strcmp(cr_catalog_model_at(cat, k)->family, f) == 0;
			if (!dup)
				fprintf(stderr, " %s", f);
		}
		fprintf(stderr, "\n");
		goto out;
	}
	fo.n_ctx = c.ctx;
	fo.require = c.require;
	fo.all_quants = c.all_quants || c.n_quants > 0;
	fo.flash_attn = c.fa;
	fo.estimate.workload = c.workload;
	fo.estimate.type_k = fo.estimate.type_v = c.kv;
	if (c.engine != CR_ENGINE_LLAMACPP)
		rc = fit_engine(&c, models, nm, quants, nq, rig, &fo, rows, &n_reach, &err);
	else
		rc = cr_decide_fit(models, nm, quants, nq, rig, &fo, rows, &n_reach, &err);
	if (rc == ENGINE_ERROR_SHOWN) {
		rc = EXIT_USAGE;
		goto out;
	}
	if (rc) {
		cli_estimate_error(&err);
		rc = cli_exit_for_status(rc);
		goto out;
	}
	rc = render(&c, rig, origin, rows, nm, n_reach);
	if (rc == EXIT_OK_ && n_reach == 0)
		rc = EXIT_NOFIT;
out:
	free(rows);
	free(models);
	free(quants);
	cr_catalog_free(cat);
	return rc;
}
