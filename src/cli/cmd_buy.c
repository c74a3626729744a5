/*
 * clefrun buy: what to buy or rent to run a model. Every priced rig with the
 * model's best quant on it, the ones that reach --require first, cheapest
 * first, with the costs the library works out (cr_buy_rank, buy.h); this file
 * selects rigs, loads the prices and formats.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <cjson/cJSON.h>

#include "cli.h"
#include "estimate_out.h"
#include "source_model.h"

#define MAX_QUANTS 64
#define MAX_RIG_ARGS 64

static const char buy_usage[] =
	"clefrun buy --model ID [--ctx N] [--require TIER] [--kind buy|rent|both] [--rig R]... [--quant Q]... [--limit K] [--all] [--prices FILE] [--format F]";
static const char buy_summary[] =
	"What to buy or rent to run a model: the priced rigs whose best quant reaches --require\n"
	"(default ok), cheapest first, with the price, the price per decode token/s and, for\n"
	"rented rigs, the cost per million generated tokens and per thousand decisions at one\n"
	"sequence's estimated speed. Prices are launch prices and list rents, each shown with\n"
	"the date it was stated: they age, and none is a quote for today (docs/catalog.md).\n"
	"Exit 0 when a priced rig reaches the tier, 3 when none does.";

enum buy_kinds { KIND_BOTH = 0, KIND_BUY, KIND_RENT };

static const cli_enum_name kind_names[] = { { "both", KIND_BOTH }, { "buy", KIND_BUY }, { "rent", KIND_RENT },
					    { NULL, 0 } };

typedef struct buy_cfg {
	const char *model_id;
	unsigned ctx;
	cr_tier require;
	int kinds;
	const char *rig_ids[MAX_RIG_ARGS];
	int n_rigs;
	const char *quant_ids[MAX_QUANTS];
	int n_quants;
	unsigned limit;
	bool all;
	cr_kv_type kv;
	cr_workload workload;
	const char *prices;
	cli_format fmt;
	cli_globals g;
} buy_cfg;

static const cli_opt_spec buy_opts[] = {
	{ CLI_O_MODEL(buy_cfg, model_id), .help = "catalog id (required)" },
	{ CLI_O_CTX(buy_cfg, ctx),
	  .help = "context in tokens or Nk (k = 1024; default: 8192, or the model's maximum if smaller)" },
	{ CLI_O_REQUIRE(buy_cfg, require), .help = "tier to reach: fast, ok, slow or tight (default ok)" },
	{ .type = CLI_T_ENUM, .name = "kind", .meta = "K", .off = CLI_OFF_SIZED(buy_cfg, kinds, sizeof(int)),
	  .names = kind_names, .help = "buy (launch prices), rent (hourly rents) or both (default)" },
	{ CLI_O_RIGS(buy_cfg, rig_ids, n_rigs),
	  .help = "only these rigs: an id, or all, gpus, unified, cpu, mem>=GiB, mem<=GiB, vendor=V; repeatable (default: every priced catalog rig)" },
	{ CLI_O_QUANTS(buy_cfg, quant_ids, n_quants),
	  .help = "candidate quant; repeatable (default: every preset but the legacy Q4_0/Q4_1/Q5_0/Q5_1, and MXFP4 only for MoE)" },
	{ .type = CLI_T_UINT, .name = "limit", .meta = "K", .off = offsetof(buy_cfg, limit), .lo = 1, .hi = 100000,
	  .help = "show at most K rigs of each kind that reach the tier (default 10)" },
	{ .type = CLI_T_FLAG, .name = "all", .off = offsetof(buy_cfg, all),
	  .help = "every priced rig: all that reach the tier, then those that do not" },
	{ CLI_O_KV_TYPE(buy_cfg, kv, kv), .help = "KV cache type: f16, q8_0, q4_0 (default f16)" },
	{ CLI_O_WORKLOAD(buy_cfg, workload) },
	{ .type = CLI_T_STRING, .name = "prices", .meta = "FILE", .off = offsetof(buy_cfg, prices), .flags = CLI_F_ONCE,
	  .help = "prices from FILE (the data/prices.json format) instead of the built-in ones" },
	{ CLI_O_FORMAT(buy_cfg, fmt) },
	{ CLI_O_CATALOG(buy_cfg, g.catalog_dir), .help = CLI_HELP_CATALOG " (and its prices.json, if any)" },
	CLI_SPEC_END,
};

static const cli_command buy_cmd = { .name = "clefrun buy", .usage = buy_usage, .summary = buy_summary,
				     .opts = buy_opts };

/* Whole dollars with thousands separators ("$12,499"); cents below $100. */
static void fmt_usd(char *buf, size_t cap, double v)
{
	char digits[32];
	size_t n, o = 0;

	if (v <= 0) {
		snprintf(buf, cap, "-");
		return;
	}
	if (v < 100) {
		snprintf(buf, cap, v < 1 ? "$%.3f" : "$%.2f", v);
		return;
	}
	snprintf(digits, sizeof(digits), "%.0f", v);
	n = strlen(digits);
	if (cap < 2)
		return;
	buf[o++] = '$';
	for (size_t i = 0; i < n && o + 2 < cap; i++) {
		if (i && (n - i) % 3 == 0)
			buf[o++] = ',';
		buf[o++] = digits[i];
	}
	buf[o] = '\0';
}

typedef struct section {
	cr_price_kind kind;
	cr_buy_row *rows;
	size_t n, n_reach;
} section;

static const char *kind_word(cr_price_kind k)
{
	return k == CR_PRICE_BUY ? "buy" : "rent";
}

/* Shown rows: the first `limit` that reach, and with --all every other one. */
static size_t shown(const buy_cfg *c, const section *s)
{
	size_t lim = c->limit ? c->limit : 10;

	if (c->all)
		return s->n;
	return s->n_reach < lim ? s->n_reach : lim;
}

static void tier_cell(char *buf, size_t cap, const cr_buy_row *r)
{
	snprintf(buf, cap, "%s", cr_tier_name(r->estimate.tier));
}

static void text_section(const buy_cfg *c, const section *s, const cr_quant *const *quants)
{
	static const char *const hb[] = { "RIG", "QUANT", "MEMORY / USABLE", "DECODE t/s", "TIER", "PRICE",
					  "DATED", "$ PER t/s" };
	static const char *const hr[] = { "RIG", "QUANT", "MEMORY / USABLE", "DECODE t/s", "DECIDE", "TIER",
					  "$/HOUR", "PROVIDER", "DATED", "$/M TOKENS", "$/1K DECISIONS" };
	static const bool rb[] = { false, false, true, true, false, true, false, true };
	static const bool rr[] = { false, false, true, true, true, false, true, false, false, true, true };
	bool md = c->fmt == FMT_MARKDOWN, buy = s->kind == CR_PRICE_BUY;
	size_t n = shown(c, s);
	cli_table t;

	if (!cli_quiet()) {
		char what[96];

		if (!s->n) {
			printf(md ? "**%s**: no rig of this selection has a %s price.\n" : "%s: no rig of this selection has a %s price.\n",
			       buy ? "Buy" : "Rent", buy ? "launch" : "rent");
			return;
		}
		if (s->n_reach)
			snprintf(what, sizeof(what), "%zu of %zu priced rigs reach %s", s->n_reach, s->n,
				 cr_tier_name(c->require));
		else
			snprintf(what, sizeof(what), "none of %zu priced rigs reaches %s", s->n, cr_tier_name(c->require));
		printf(md ? "**%s** (%s%s)\n\n" : "%s (%s%s):\n", buy ? "Buy" : "Rent", what,
		       n < s->n_reach ? ", the cheapest shown; --limit or --all for more" : "");
	}
	if (!n) {
		if (!cli_quiet())
			printf("(none shown; --all lists the priced rigs that do not reach the tier)\n");
		return;
	}
	cli_table_init(&t, buy ? 8 : 11, buy ? hb : hr, buy ? rb : rr);
	for (size_t i = 0; i < n; i++) {
		const cr_buy_row *r = &s->rows[i];
		const cr_estimate *e = &r->estimate;
		char used[24], avail[24], mem[56], dec[16], ttd[20], tier[16], price[24], per[24], mtok[24], kdec[24];

		cli_fmt_mem(used, sizeof(used), (double)e->memory.total_bytes);
		cli_fmt_mem(avail, sizeof(avail), (double)e->memory.available_bytes);
		snprintf(mem, sizeof(mem), "%s / %s", used, avail);
		cli_fmt_rate(dec, sizeof(dec), e->decode_tokens_per_s);
		tier_cell(tier, sizeof(tier), r);
		fmt_usd(price, sizeof(price), r->price->usd);
		if (buy) {
			const char *cells[8] = { r->rig->id, quants[r->quant_index]->id, mem, dec, tier, price,
						 r->price->date, per };

			fmt_usd(per, sizeof(per), r->usd_per_tps);
			(void)cli_table_add(&t, cells);
		} else {
			const char *cells[11] = { r->rig->id, quants[r->quant_index]->id, mem, dec, ttd, tier, price,
						  r->price->provider, r->price->date, mtok, kdec };

			if (e->time_to_decision_s > 0)
				snprintf(ttd, sizeof(ttd), e->time_to_decision_s < 10 ? "%.2f s" : "%.0f s",
					 e->time_to_decision_s);
			else
				snprintf(ttd, sizeof(ttd), "-");
			fmt_usd(mtok, sizeof(mtok), r->usd_per_mtok);
			fmt_usd(kdec, sizeof(kdec), r->usd_per_kdecisions);
			(void)cli_table_add(&t, cells);
		}
	}
	if (md)
		printf("\n");
	cli_table_render(&t, c->fmt, stdout);
	cli_table_free(&t);
}

static void csv_rows(const buy_cfg *c, const section *s, const cr_quant *const *quants, cli_table *t)
{
	size_t n = shown(c, s);

	for (size_t i = 0; i < n; i++) {
		const cr_buy_row *r = &s->rows[i];
		const cr_estimate *e = &r->estimate;
		char v[10][32];
		const char *cells[17];

		snprintf(v[0], 32, "%llu", (unsigned long long)e->memory.total_bytes);
		snprintf(v[1], 32, "%llu", (unsigned long long)e->memory.available_bytes);
		snprintf(v[2], 32, "%.2f", e->decode_tokens_per_s);
		snprintf(v[3], 32, "%.3f", e->time_to_decision_s);
		snprintf(v[4], 32, "%.2f", r->price->usd);
		snprintf(v[5], 32, "%.4f", r->usd_per_tps);
		snprintf(v[6], 32, "%.4f", r->usd_per_mtok);
		snprintf(v[7], 32, "%.4f", r->usd_per_kdecisions);
		snprintf(v[8], 32, "%zu", r->n_offers);
		cells[0] = kind_word(s->kind);
		cells[1] = r->rig->id;
		cells[2] = quants[r->quant_index]->id;
		cells[3] = cr_tier_name(e->tier);
		cells[4] = r->reaches ? "true" : "false";
		cells[5] = v[0];
		cells[6] = v[1];
		cells[7] = v[2];
		cells[8] = v[3];
		cells[9] = v[4];
		cells[10] = r->price->provider;
		cells[11] = r->price->date;
		cells[12] = v[5];
		cells[13] = v[6];
		cells[14] = v[7];
		cells[15] = v[8];
		cells[16] = r->price->source;
		(void)cli_table_add(t, cells);
	}
}

static cJSON *json_section(const buy_cfg *c, const section *s, const cr_quant *const *quants)
{
	cJSON *arr = cJSON_CreateArray();
	size_t n = shown(c, s);

	for (size_t i = 0; arr && i < n; i++) {
		const cr_buy_row *r = &s->rows[i];
		cJSON *o = cJSON_CreateObject(), *p;

		if (!o)
			break;
		cJSON_AddItemToArray(arr, o);
		cJSON_AddStringToObject(o, "rig", r->rig->id);
		cJSON_AddStringToObject(o, "rig_name", r->rig->name);
		cJSON_AddStringToObject(o, "quant", quants[r->quant_index]->id);
		cJSON_AddBoolToObject(o, "reaches", r->reaches);
		p = cJSON_AddObjectToObject(o, "price");
		cJSON_AddNumberToObject(p, s->kind == CR_PRICE_BUY ? "usd" : "usd_per_hour", r->price->usd);
		if (s->kind == CR_PRICE_RENT) {
			cJSON_AddStringToObject(p, "provider", r->price->provider);
			cJSON_AddNumberToObject(p, "offers", (double)r->n_offers);
		}
		cJSON_AddStringToObject(p, "date", r->price->date);
		cJSON_AddStringToObject(p, "what", r->price->what);
		cJSON_AddStringToObject(p, "source", r->price->source);
		if (s->kind == CR_PRICE_BUY) {
			cli_json_rate(o, "usd_per_decode_tps", r->usd_per_tps, 1e4);
		} else {
			cli_json_rate(o, "usd_per_million_tokens", r->usd_per_mtok, 1e4);
			cli_json_rate(o, "usd_per_thousand_decisions", r->usd_per_kdecisions, 1e4);
		}
		cli_json_estimate(o, r->rig, &r->estimate, NULL, NULL);
	}
	return arr;
}

static int render(const buy_cfg *c, const cr_model *m, const cr_quant *const *quants, const section *secs,
		  int n_secs, const cr_prices *prices, const char *prices_from)
{
	char oldest[11], newest[11];

	cr_prices_date_range(prices, oldest, newest);
	if (c->fmt == FMT_JSON) {
		cJSON *root = cJSON_CreateObject(), *mo, *po;

		cJSON_AddStringToObject(root, "schema", "clefrun.buy/1");
		mo = cJSON_AddObjectToObject(root, "model");
		cJSON_AddStringToObject(mo, "id", m->id);
		cJSON_AddStringToObject(mo, "name", m->name);
		cJSON_AddStringToObject(root, "require", cr_tier_name(c->require));
		cJSON_AddStringToObject(root, "kv_type", cr_kv_type_name(c->kv));
		cJSON_AddStringToObject(root, "workload", c->workload == CR_WORKLOAD_DECIDE ? "decide" : "chat");
		po = cJSON_AddObjectToObject(root, "prices");
		cJSON_AddStringToObject(po, "from", prices_from);
		cJSON_AddNumberToObject(po, "entries", (double)cr_prices_count(prices));
		cJSON_AddStringToObject(po, "currency", "USD");
		cJSON_AddStringToObject(po, "oldest", oldest);
		cJSON_AddStringToObject(po, "newest", newest);
		for (int i = 0; i < n_secs; i++) {
			cJSON *so = cJSON_AddObjectToObject(root, kind_word(secs[i].kind));

			cJSON_AddNumberToObject(so, "priced", (double)secs[i].n);
			cJSON_AddNumberToObject(so, "reach", (double)secs[i].n_reach);
			cJSON_AddItemToObject(so, "rows", json_section(c, &secs[i], quants));
		}
		return cli_json_emit(root) ? EXIT_ERROR : EXIT_OK_;
	}
	if (c->fmt == FMT_CSV) {
		static const char *const hdr[] = { "kind", "rig", "quant", "tier", "reaches", "memory_bytes",
						   "available_bytes", "decode_tokens_per_s", "time_to_decision_s",
						   "usd", "provider", "price_date", "usd_per_decode_tps",
						   "usd_per_million_tokens", "usd_per_thousand_decisions", "offers",
						   "source" };
		cli_table t;

		cli_table_init(&t, 17, hdr, NULL);
		for (int i = 0; i < n_secs; i++)
			csv_rows(c, &secs[i], quants, &t);
		cli_table_render(&t, FMT_CSV, stdout);
		cli_table_free(&t);
		return EXIT_OK_;
	}
	if (!cli_quiet()) {
		printf(c->fmt == FMT_MARKDOWN ? "**%s** (%s) on priced rigs, tier %s or better\n\n"
					       : "%s (%s) on priced rigs, tier %s or better\n",
		       m->name, m->id, cr_tier_name(c->require));
		printf("Prices: %zu entries from %s, stated %s to %s, in USD: launch prices and list rents as dated, not today's quotes.\n\n",
		       cr_prices_count(prices), prices_from, oldest[0] ? oldest : "-", newest[0] ? newest : "-");
	}
	for (int i = 0; i < n_secs; i++) {
		if (i)
			printf("\n");
		text_section(c, &secs[i], quants);
	}
	if (!cli_quiet()) {
		printf("\nQUANT: the most bits per weight that reaches the tier on that rig (--quant Q compares at one quant).\n"
		       "$ per t/s: the price over one sequence's decode tokens/s. $/M tokens and $/1k decisions: the hourly rent over one sequence's speed (decode; time to decision); serving several sequences at once costs less per token (clefrun plan --parallel).\n");
	}
	return EXIT_OK_;
}

int cmd_buy(const cli_globals *g, int argc, char **argv)
{
	buy_cfg c;
	cr_catalog *cat = NULL;
	cr_prices *prices = NULL;
	const cr_rig **rigs = NULL;
	const cr_quant *quants[MAX_QUANTS + 256];
	cli_model *cm = NULL;
	cli_source_opts so = CLI_SOURCE_OPTS_INIT;
	cr_estimate_request req = CR_ESTIMATE_REQUEST_INIT;
	cr_error err = CR_ERROR_INIT;
	section secs[2];
	char from[4200];
	size_t nr = 0, nq = 0, reach = 0;
	int n_secs = 0, rc;

	memset(&c, 0, sizeof(c));
	memset(secs, 0, sizeof(secs));
	c.g = *g;
	c.require = CR_TIER_OK;
	c.kv = CR_KV_F16;
	c.workload = CR_WORKLOAD_CHAT;
	if ((rc = cli_parse(&buy_cmd, argc, argv, &c)))
		return rc < 0 ? EXIT_OK_ : rc;
	if (!(cat = cli_open_catalog(&c.g)))
		return EXIT_ERROR;
	rc = EXIT_USAGE;
	if (!(cm = calloc(1, sizeof(*cm))) ||
	    !(rigs = calloc(cr_catalog_rig_count(cat) + 1, sizeof(*rigs)))) {
		fprintf(stderr, "clefrun: out of memory\n");
		rc = EXIT_ERROR;
		goto out;
	}
	so.command = "clefrun buy";
	if ((rc = cli_resolve_model(cat, c.model_id, &so, cm)))
		goto out;
	rc = EXIT_USAGE;
	if (cm->from_gguf) {
		fprintf(stderr, "clefrun buy: weighs the catalog's quants of a catalog model; %s is a GGUF file, whose quantization is fixed (clefrun check --model FILE --rig all gives its rows)\n",
			cli_shown(c.model_id));
		goto out;
	}
	if (c.n_quants) {
		for (int i = 0; i < c.n_quants; i++)
			if (!(quants[nq++] = cli_find_quant(cat, c.quant_ids[i])))
				goto out;
	} else {
		for (size_t i = 0; i < cr_catalog_quant_count(cat) && nq < sizeof(quants) / sizeof(*quants); i++)
			if (cr_decide_default_candidate(&cm->model, cr_catalog_quant_at(cat, i)))
				quants[nq++] = cr_catalog_quant_at(cat, i);
	}
	if (!nq) {
		fprintf(stderr, "clefrun buy: no candidate quant (give --quant)\n");
		goto out;
	}
	/* Rigs: every catalog rig, or those the --rig ids and selectors name. */
	for (size_t j = 0; !c.n_rigs && j < cr_catalog_rig_count(cat); j++)
		rigs[nr++] = cr_catalog_rig_at(cat, j);
	for (int i = 0; i < c.n_rigs; i++) {
		cli_rig_sel sel = { 0 };
		int k = cli_rig_selector_parse(c.rig_ids[i], &sel);

		if (k < 0)
			goto out;
		for (size_t j = 0; j < cr_catalog_rig_count(cat); j++) {
			const cr_rig *r = cr_catalog_rig_at(cat, j);
			bool dup = false, want = k ? cli_rig_selector_matches(&sel, r)
						   : strcasecmp(r->id, c.rig_ids[i]) == 0;

			for (size_t q = 0; q < nr && !dup; q++)
				dup = rigs[q] == r;
			if (want && !dup)
				rigs[nr++] = r;
		}
		if (!k && !cr_catalog_find_rig(cat, c.rig_ids[i])) {
			cr_rig scratch;

			/* Prints "unknown rig" with the closest ids, or takes a
			 * custom: spec or a saved rig, which has no price. */
			if (cli_find_rig(cat, c.rig_ids[i], &scratch))
				fprintf(stderr, "clefrun buy: --rig %s: only catalog rigs have prices\n",
					cli_shown(c.rig_ids[i]));
			goto out;
		}
	}
	if (cli_open_prices(c.prices, &c.g, cat, &prices, from, sizeof(from), &err)) {
		fprintf(stderr, "clefrun buy: %s\n", cli_safe(err.message));
		rc = EXIT_ERROR;
		goto out;
	}
	req.n_ctx = c.ctx;
	req.opts.type_k = req.opts.type_v = c.kv;
	req.opts.workload = c.workload;
	if (c.kinds != KIND_RENT)
		secs[n_secs++].kind = CR_PRICE_BUY;
	if (c.kinds != KIND_BUY)
		secs[n_secs++].kind = CR_PRICE_RENT;
	for (int i = 0; i < n_secs; i++) {
		int s;

		if (!(secs[i].rows = calloc(nr + 1, sizeof(*secs[i].rows)))) {
			fprintf(stderr, "clefrun: out of memory\n");
			rc = EXIT_ERROR;
			goto out;
		}
		if ((s = cr_buy_rank(&cm->model, quants, nq, rigs, nr, prices, &req, c.require, secs[i].kind,
				     secs[i].rows, &secs[i].n, &err))) {
			cr_estimate_setup set;

			memset(&set, 0, sizeof(set));
			if (s == CR_ERR_RANGE)
				(void)cr_estimate_resolve_opts(&cm->model, NULL, &req, &set, &err);
			cli_request_error(&set, &cm->model, s, &err);
			rc = cli_exit_for_status(s);
			goto out;
		}
		for (size_t k = 0; k < secs[i].n; k++)
			secs[i].n_reach += secs[i].rows[k].reaches;
		reach += secs[i].n_reach;
	}
	rc = render(&c, &cm->model, quants, secs, n_secs, prices, from);
	if (rc == EXIT_OK_ && !reach)
		rc = EXIT_NOFIT;
out:
	for (int i = 0; i < 2; i++)
		free(secs[i].rows);
	free(rigs);
	free(cm);
	cr_prices_free(prices);
	cr_catalog_free(cat);
	return rc;
}
