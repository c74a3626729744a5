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

enum {
	O_MODEL = 1, O_QUANT, O_RIG, O_CTX, O_KV, O_KV_K, O_KV_V, O_PROMPT, O_DEPTH, O_FORMAT,
	O_REQUIRE, O_CATALOG, O_UBATCH, O_PARALLEL, O_FA, O_SWA_FULL, O_SPLIT, O_GPU_LAYERS,
	O_CPU_MOE, O_WORKLOAD, O_ENGINE, O_EXPLAIN
};

static const cli_opt check_opts[] = {
	{ "model", "ID", "catalog model id (required)", O_MODEL },
	{ "quant", "Q", "quantization preset; repeatable (default: all on one rig, else Q4_K_M)", O_QUANT },
	{ "rig", "R", "rig id or custom:mem_gb=..,bw_gbs=..; repeatable (default: the 22 reference rigs)", O_RIG },
	{ "ctx", "N", "context in tokens (default 8192, capped at the model's maximum)", O_CTX },
	{ "kv-type", "T", "KV cache type for K and V: f16, q8_0, q4_0 (default f16)", O_KV },
	{ "kv-type-k", "T", "K cache type only", O_KV_K },
	{ "kv-type-v", "T", "V cache type only (quantized needs flash attention)", O_KV_V },
	{ "flash-attn", "MODE", "on, off or auto (default auto, resolved as llama.cpp does)", O_FA },
	{ "ubatch", "N", "physical batch size, llama.cpp -ub (default 512)", O_UBATCH },
	{ "parallel", "N", "parallel sequences sharing the context, llama.cpp -np (default 1)", O_PARALLEL },
	{ "swa-full", NULL, "sliding-window layers keep the whole context (llama.cpp --swa-full)", O_SWA_FULL },
	{ "split", "MODE", "multi-GPU: layer (llama.cpp default) or tensor (tensor parallel)", O_SPLIT },
	{ "gpu-layers", "N", "layers on the GPUs, the rest in system RAM (llama.cpp -ngl)", O_GPU_LAYERS },
	{ "cpu-moe", NULL, "keep MoE expert weights in system RAM (llama.cpp --cpu-moe)", O_CPU_MOE },
	{ "depth", "N", "tokens in the cache for the decode figure (default: the context)", O_DEPTH },
	{ "prompt-tokens", "N", "prompt length for time-to-decision (default min(ctx, 2048))", O_PROMPT },
	{ "workload", "W", "tier by chat (decode t/s, default) or decide (time-to-decision)", O_WORKLOAD },
	{ "engine", "E", "runtime whose memory rules apply: llamacpp (the only one so far)", O_ENGINE },
	{ "explain", NULL, "print every term of the estimate with its formula and source", O_EXPLAIN },
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

#define MAX_TERMS 16

typedef struct row {
	const cr_rig *rig;
	const cr_quant *quant;
	cr_estimate est;
	char fa_why[160];          /* how --flash-attn resolved */
	cr_term terms[MAX_TERMS];  /* --explain */
	size_t n_terms;
} row;

typedef struct check_cfg {
	const char *model_id;
	const char *quant_ids[MAX_QUANTS];
	int n_quants;
	const char *rig_ids[MAX_RIGS];
	int n_rigs;
	unsigned ctx;
	bool ctx_given;
	cr_kv_type kv_k, kv_v;
	cr_flash_attn fa;
	cr_estimate_opts opts;
	bool explain;
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
		case O_KV_K:
		case O_KV_V: {
			cr_kv_type t;

			if (cr_kv_type_parse(v, &t)) {
				fprintf(stderr, "clefrun: --%s: expected f16, q8_0 or q4_0, got '%s'\n",
					id == O_KV ? "kv-type" : id == O_KV_K ? "kv-type-k" : "kv-type-v", v);
				return EXIT_USAGE;
			}
			if (id != O_KV_V)
				c->kv_k = t;
			if (id != O_KV_K)
				c->kv_v = t;
			break;
		}
		case O_FA:
			if (strcmp(v, "on") == 0)
				c->fa = CR_FA_ON;
			else if (strcmp(v, "off") == 0)
				c->fa = CR_FA_OFF;
			else if (strcmp(v, "auto") == 0)
				c->fa = CR_FA_AUTO;
			else {
				fprintf(stderr, "clefrun: --flash-attn: expected on, off or auto, got '%s'\n", v);
				return EXIT_USAGE;
			}
			break;
		case O_UBATCH:
			if (cli_parse_u32("--ubatch", v, 1, 65536, &c->opts.n_ubatch))
				return EXIT_USAGE;
			break;
		case O_PARALLEL:
			if (cli_parse_u32("--parallel", v, 1, 4096, &c->opts.n_seq))
				return EXIT_USAGE;
			break;
		case O_SWA_FULL:
			c->opts.swa_full = true;
			break;
		case O_SPLIT:
			if (strcmp(v, "layer") == 0)
				c->opts.split = CR_SPLIT_LAYER;
			else if (strcmp(v, "tensor") == 0)
				c->opts.split = CR_SPLIT_TENSOR;
			else {
				fprintf(stderr, "clefrun: --split: expected layer or tensor, got '%s'\n", v);
				return EXIT_USAGE;
			}
			break;
		case O_GPU_LAYERS: {
			unsigned n;

			if (cli_parse_u32("--gpu-layers", v, 0, 100000, &n))
				return EXIT_USAGE;
			c->opts.gpu_layers = (int32_t)n;
			break;
		}
		case O_CPU_MOE:
			c->opts.cpu_moe = true;
			break;
		case O_DEPTH:
			if (cli_parse_u32("--depth", v, 1, 1ul << 30, &c->opts.depth))
				return EXIT_USAGE;
			break;
		case O_PROMPT:
			if (cli_parse_u32("--prompt-tokens", v, 1, 1ul << 30, &c->opts.prompt_tokens))
				return EXIT_USAGE;
			break;
		case O_WORKLOAD:
			if (strcmp(v, "chat") == 0)
				c->opts.workload = CR_WORKLOAD_CHAT;
			else if (strcmp(v, "decide") == 0)
				c->opts.workload = CR_WORKLOAD_DECIDE;
			else {
				fprintf(stderr, "clefrun: --workload: expected chat or decide, got '%s'\n", v);
				return EXIT_USAGE;
			}
			break;
		case O_ENGINE:
			if (strcmp(v, "llamacpp") != 0) {
				fprintf(stderr, "clefrun: --engine: only 'llamacpp' is modelled (vLLM sizes its KV cache differently; see docs/methodology.md), got '%s'\n", v);
				return EXIT_USAGE;
			}
			break;
		case O_EXPLAIN:
			c->explain = true;
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
	char kv[32];

	if (c->kv_k == c->kv_v)
		snprintf(kv, sizeof(kv), "%s", cr_kv_type_name(c->kv_k));
	else
		snprintf(kv, sizeof(kv), "K %s / V %s", cr_kv_type_name(c->kv_k), cr_kv_type_name(c->kv_v));
	fprintf(f, "%s%s (%s): %s params%s%s%s, context %s of %u, KV %s%s\n",
		c->fmt == FMT_MARKDOWN ? "**" : "", m->name, m->id, params,
		m->active_params != m->params ? ", " : "",
		m->active_params != m->params ? active : "",
		m->active_params != m->params ? " active" : "", ctx, m->context_max,
		kv, c->fmt == FMT_MARKDOWN ? "**" : "");
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
	/* Unknown or not applicable: an empty field, as JSON writes null. */
	if (e->decode_tokens_per_s > 0)
		snprintf(v[9], 32, "%.2f", e->decode_tokens_per_s);
	else
		v[9][0] = '\0';
	if (e->prefill_tokens_per_s > 0) {
		snprintf(v[10], 32, "%.1f", e->prefill_tokens_per_s);
		snprintf(v[11], 32, "%.1f", e->time_to_decision_s * 1e3);
	} else {
		v[10][0] = v[11][0] = '\0';
	}
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

static cJSON *explain_json(const row *r);

static cJSON *devices_json(const cr_rig *r, const cr_estimate *e)
{
	cJSON *arr = cJSON_CreateArray();

	for (unsigned g = 0; g < r->n_devices; g++) {
		const cr_device *d = &r->devices[g];
		cJSON *o = cJSON_CreateObject();

		cJSON_AddStringToObject(o, "name", d->name);
		cJSON_AddNumberToObject(o, "count", d->count);
		cJSON_AddStringToObject(o, "kind", cr_mem_kind_name(d->kind));
		cJSON_AddNumberToObject(o, "bytes_per_device", (double)e->devices[g].bytes_per_device);
		cJSON_AddNumberToObject(o, "usable_bytes_per_device", (double)e->devices[g].usable_per_device);
		cJSON_AddNumberToObject(o, "layers_per_device", round(e->devices[g].layers_per_device * 100) / 100);
		cJSON_AddItemToArray(arr, o);
	}
	return arr;
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
	cJSON_AddStringToObject(root, "kv_type_k", cr_kv_type_name(c->kv_k));
	cJSON_AddStringToObject(root, "kv_type_v", cr_kv_type_name(c->kv_v));
	cJSON_AddStringToObject(root, "workload", c->opts.workload == CR_WORKLOAD_DECIDE ? "decide" : "chat");
	cJSON_AddStringToObject(root, "split", c->opts.split == CR_SPLIT_TENSOR ? "tensor" : "layer");
	cJSON_AddStringToObject(root, "engine", "llamacpp");
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
		cJSON_AddNumberToObject(o, "gpu_layers", e->gpu_layers);
		cJSON_AddItemToObject(o, "devices", devices_json(rows[i].rig, e));
		cJSON_AddBoolToObject(o, "flash_attn", e->flash_attn);
		add_rate(o, "decode_tokens_per_s", e->decode_tokens_per_s, 100);
		add_rate(o, "decode_tokens_per_s_low", e->decode_tokens_per_s_low, 100);
		add_rate(o, "decode_tokens_per_s_high", e->decode_tokens_per_s_high, 100);
		cJSON_AddNumberToObject(o, "decode_depth", e->decode_depth);
		add_rate(o, "prefill_tokens_per_s", e->prefill_tokens_per_s, 10);
		add_rate(o, "time_to_decision_ms", e->time_to_decision_s * 1e3, 10);
		cJSON_AddStringToObject(o, "basis", e->basis);
		cJSON_AddStringToObject(o, "flash_attn_reason", rows[i].fa_why);
		if (c->explain)
			cJSON_AddItemToObject(o, "explain", explain_json(&rows[i]));
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

/* --explain in text: every term with its formula and source. */
static void explain_text(const row *r, FILE *f)
{
	fprintf(f, "\n%s %s on %s, context %u: %s\n", r->est.tier == CR_TIER_NOFIT ? "no fit:" : "",
		r->quant->id, r->rig->id, r->est.context, r->fa_why);
	for (size_t i = 0; i < r->n_terms; i++) {
		const cr_term *t = &r->terms[i];
		char val[32];

		if (r->est.tier == CR_TIER_NOFIT && strcmp(t->unit, "bytes") != 0)
			continue;
		if (strcmp(t->unit, "bytes") == 0)
			cli_fmt_gib(val, sizeof(val), t->value);
		else
			snprintf(val, sizeof(val), "%.4g %s", t->value, t->unit);
		fprintf(f, "  %-16s %14s  %s\n  %-16s %14s  [%s]\n", t->name, val, t->formula, "", "",
			t->source);
	}
	fprintf(f, "  %-16s %14s  %s\n", "basis", "", r->est.basis);
}

static cJSON *explain_json(const row *r)
{
	cJSON *arr = cJSON_CreateArray();

	for (size_t i = 0; i < r->n_terms; i++) {
		cJSON *o = cJSON_CreateObject();

		cJSON_AddStringToObject(o, "name", r->terms[i].name);
		cJSON_AddNumberToObject(o, "value", r->terms[i].value);
		cJSON_AddStringToObject(o, "unit", r->terms[i].unit);
		cJSON_AddStringToObject(o, "formula", r->terms[i].formula);
		cJSON_AddStringToObject(o, "source", r->terms[i].source);
		cJSON_AddItemToArray(arr, o);
	}
	return arr;
}

static int render(const check_cfg *c, const cr_model *m, const row *rows, int n)
{
	static const char *const text_hdr[] = { "RIG", "QUANT", "MEMORY / USABLE", "KV+STATE",
		"MAX CTX", "DECODE t/s", "PREFILL t/s", "DECIDE", "TIER" };
	static const bool text_right[] = { false, false, true, true, true, true, true, true, false };
	static const char *const csv_hdr[] = { "model", "quant", "rig", "context", "weights_bytes",
		"kv_bytes", "state_bytes", "compute_bytes", "overhead_bytes", "total_bytes",
		"available_bytes", "max_context", "decode_tokens_per_s", "prefill_tokens_per_s",
		"time_to_decision_ms", "tier" };
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
		printf("\nDecode with %u tokens in the cache; DECIDE = prefill of a %u-token prompt; %s.\n",
		       rows[0].est.decode_depth ? rows[0].est.decode_depth : rows[0].est.context,
		       rows[0].est.prompt_tokens ? rows[0].est.prompt_tokens : CR_DEFAULT_PROMPT_TOKENS,
		       rows[0].fa_why);
		if (unreleased)
			printf("* hardware that does not exist as described (see 'clefrun rigs').\n");
	}
	for (int i = 0; c->explain && i < n; i++)
		explain_text(&rows[i], c->fmt == FMT_CSV ? stderr : stdout);
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
	c.kv_k = c.kv_v = CR_KV_F16;
	c.fa = CR_FA_AUTO;
	{
		cr_estimate_opts init = CR_ESTIMATE_OPTS_INIT;

		c.opts = init;
	}
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
			cr_estimate_opts o = c.opts;
			cr_error err = { 0, "" };
			char why[160];
			int s;

			o.n_ctx = c.ctx;
			o.type_k = c.kv_k;
			o.type_v = c.kv_v;
			o.flash_attn = cr_estimate_resolve_flash_attn(m, rigs[i], c.fa, why, sizeof(why));
			rows[n].rig = rigs[i];
			rows[n].quant = quants[k];
			s = cr_estimate_run(m, quants[k], rigs[i], &o, &rows[n].est, &err);
			if (s) {
				fprintf(stderr, "clefrun: %s\n", err.message);
				rc = cli_exit_for_status(s);
				goto out;
			}
			snprintf(rows[n].fa_why, sizeof(rows[n].fa_why), "%s", why);
			if (c.explain)
				rows[n].n_terms = cr_estimate_explain(m, quants[k], rigs[i], &o, &rows[n].est,
								      rows[n].terms, MAX_TERMS);
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
