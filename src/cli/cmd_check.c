/*
 * clefrun check: one model against rigs and quants.
 * One rig and no quant: every quant on that rig (seed page 2's view).
 * No rig: every reference rig at the given quants, default Q4_K_M (seed page 1's view).
 * A rig selector (--rig all, gpus, unified, cpu, mem>=N, mem<=N, vendor=V):
 * every matching catalog rig, grouped as the seed pages' "which GPUs can run
 * it" (cr_decide_group).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <cjson/cJSON.h>

#include "cli.h"
#include "engine_out.h"
#include "estimate_out.h"
#include "source_model.h"
#include "vision_out.h"

#define MAX_RIGS 128
#define MAX_QUANTS 64
#define DEFAULT_QUANT "Q4_K_M"

static const char check_usage[] =
	"clefrun check --model ID [--quant Q]... [--rig R]... [--ctx N] [--kv-type T] [--format F] [--require TIER]";
static const char check_summary[] =
	"Memory (weights + KV cache + state + buffers + overhead), largest context, decode and\n"
	"prefill speed, and fit tier of a model on each rig and quantization.";

#define MAX_TERMS 16

/* Marks a speed from a mode no measurement has validated (tensor split). */
#define UNVALIDATED_MARK "^"

typedef struct row {
	const cr_rig *rig;
	cr_weights weights;        /* the preset or the GGUF's exact bytes */
	char label[96];            /* the QUANT column: preset id or the GGUF's file type */
	cr_estimate est;
	bool missed;               /* --best-quant: no quant reaches --require; est is the closest */
	char fa_why[160];          /* how --flash-attn resolved */
	cr_term terms[MAX_TERMS];  /* --explain */
	size_t n_terms;
	int order;                 /* position before grouping: a stable sort */
	cr_estimate_opts opts;     /* the options of est (after a front-end's own adjustments) */
	cr_engine_profile prof;    /* --engine other than llamacpp: the defaults applied */
	cr_vision_use vision;      /* the projector at this row's options (when c->vision.on) */
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
	bool best_quant;
	bool require_given;
	const char *revision;
	bool header_only;
	bool no_cache, offline;
	cli_format fmt;
	cr_tier require;
	int engine;                /* --engine: a cr_engine */
	bool n_seq_given, ubatch_given, unified_given, fa_given, kv_given, kv_k_given, kv_v_given;
	bool gpu_layers_given;
	const char *tensor_split;  /* --tensor-split A,B,...: parsed into opts.tensor_split */
	cli_globals g;
	cr_kv_profile kv;          /* at the first rig's options: the heading's KV facts */
	bool grouped;              /* a --rig selector: rows grouped by cr_decide_group */
	const char *ollama_registry; /* --ollama-registry */
	char ctx_from[160];        /* where a default context came from ("" : clefrun's default) */
	char ollama_opts[400];     /* --explain: the other options of an Ollama params layer, or "" */
	cli_vision_cfg vis;        /* --images, --image-size, --mmproj, --mmproj-type, --no-mmproj-offload */
	cli_vision vision;         /* the projector, when one is in play */
} check_cfg;

static const cli_opt_spec check_opts[] = {
	{ CLI_O_MODEL(check_cfg, model_id),
	  .help = "catalog id, GGUF path or URL, hf:OWNER/REPO[/FILE.gguf|:QUANT], ollama:NAME[:TAG] (required)" },
	{ CLI_O_REVISION(check_cfg, revision), .help = "Hugging Face revision for hf: sources (default main)" },
	{ CLI_O_HEADER_ONLY(check_cfg, header_only),
	  .help = "accept a GGUF file cut after its header (tensor data missing)" },
	{ CLI_O_NO_CACHE(check_cfg, no_cache),
	  .help = "neither read nor write the header cache of remote GGUF sources" },
	{ CLI_O_OFFLINE(check_cfg, offline), .help = "remote GGUF sources from the header cache only; no network" },
	{ CLI_O_OLLAMA_REGISTRY(check_cfg, ollama_registry) },
	{ CLI_O_QUANTS(check_cfg, quant_ids, n_quants),
	  .help = "quantization preset; repeatable (default: all on one rig, else Q4_K_M)" },
	{ CLI_O_RIGS(check_cfg, rig_ids, n_rigs),
	  .help = "rig id, custom:mem_gb=..,bw_gbs=.., or every catalog rig that matches all, gpus, unified, cpu, mem>=GiB, mem<=GiB or vendor=V (grouped: runs well, fits but slow, tight); repeatable (default: the 22 reference rigs)" },
	{ CLI_O_CTX(check_cfg, ctx), .seen = CLI_AT(check_cfg, ctx_given),
	  .help = "context in tokens or Nk (k = 1024: 32k is 32768; default: 8192, or the model's maximum if smaller, or an ollama: model's num_ctx; a larger value is an error)" },
	{ CLI_O_KV_TYPE(check_cfg, kv_k, kv_v), .seen = CLI_AT(check_cfg, kv_given),
	  .help = "KV cache type for K and V: f16, q8_0, q4_0 (default f16)" },
	{ CLI_O_KV_TYPE_K(check_cfg, kv_k), .seen = CLI_AT(check_cfg, kv_k_given) },
	{ CLI_O_KV_TYPE_V(check_cfg, kv_v), .seen = CLI_AT(check_cfg, kv_v_given) },
	{ CLI_O_FLASH_ATTN(check_cfg, fa), .seen = CLI_AT(check_cfg, fa_given),
	  .help = "on, off or auto (default auto, resolved as llama.cpp does)" },
	CLI_O_MEMORY_SEEN(check_cfg, opts, ubatch_given, n_seq_given, unified_given),
	{ CLI_O_SPLIT(check_cfg, opts.split) },
	{ .type = CLI_T_STRING, .name = "tensor-split", .meta = "A,B,...", .off = offsetof(check_cfg, tensor_split),
	  .flags = CLI_F_ONCE,
	  .help = "the layer split's proportion per GPU, in the rig's order (llama.cpp --tensor-split; "
		  "default: each GPU's free memory)" },
	{ CLI_O_GPU_LAYERS(check_cfg, opts.gpu_layers), .seen = CLI_AT(check_cfg, gpu_layers_given) },
	{ CLI_O_GPU_LAYERS_REPEATING(check_cfg, opts.gpu_layers_repeating) },
	{ CLI_O_CPU_MOE(check_cfg, opts.cpu_moe) },
	{ CLI_O_N_CPU_MOE(check_cfg, opts.n_cpu_moe) },
	{ CLI_O_DEPTH(check_cfg, opts.depth),
	  .help = "tokens in the cache before decoding and before the prompt, 0 (empty) to --ctx, N or Nk (default: the context for decode, empty for the prompt)" },
	{ CLI_O_PROMPT_TOKENS(check_cfg, opts.prompt_tokens),
	  .help = "prompt length for time-to-decision, N or Nk, at most --ctx (default min(ctx, 2048))" },
	{ CLI_O_WORKLOAD(check_cfg, opts.workload) },
	CLI_O_VISION(check_cfg, vis),
	{ .type = CLI_T_ENUM, .name = "engine", .meta = "E", .off = CLI_OFF_SIZED(check_cfg, engine, sizeof(int)),
	  .names = cli_engine_names,
	  .expect = "'llamacpp', 'llama-server', 'ollama', 'lmstudio' or 'vllm' (docs/engines.md, docs/vllm.md)",
	  .help = "front-end whose defaults apply: llamacpp (clefrun's, default), llama-server, ollama (reads OLLAMA_CONTEXT_LENGTH, OLLAMA_NUM_PARALLEL, OLLAMA_FLASH_ATTENTION, OLLAMA_KV_CACHE_TYPE, OLLAMA_GPU_OVERHEAD) or lmstudio; or vllm, with its own options (clefrun check --engine vllm --help)" },
	{ .type = CLI_T_FLAG, .name = "best-quant", .off = offsetof(check_cfg, best_quant),
	  .help = "one row per rig: the highest-bpw quant that reaches --require (default ok)" },
	{ .type = CLI_T_FLAG, .name = "explain", .off = offsetof(check_cfg, explain),
	  .help = "print every term of the estimate with its formula and source" },
	{ CLI_O_FORMAT(check_cfg, fmt) },
	{ CLI_O_REQUIRE(check_cfg, require), .seen = CLI_AT(check_cfg, require_given),
	  .help = "exit 3 if a row is worse than TIER: fast, ok, slow, tight (default tight)" },
	{ CLI_O_CATALOG(check_cfg, g.catalog_dir), .help = CLI_HELP_CATALOG },
	CLI_SPEC_END,
};

static const cli_command check_cmd = {
	.name = "clefrun check", .usage = check_usage, .summary = check_summary, .opts = check_opts
};

/* --tensor-split A,B,...: llama.cpp's proportions per device (common/arg.cpp
 * splits the list at ',' and reads each entry with std::stof); at most
 * CR_MAX_GPUS numbers >= 0, not all 0. */
static int parse_tensor_split(const char *s, cr_estimate_opts *o)
{
	cli_clipbuf cb;
	const char *p = s;
	double sum = 0;

	o->n_tensor_split = 0;
	for (;;) {
		char *end = NULL;
		double v;

		errno = 0;
		v = strtod(p, &end);
		if (end == p || *p == ' ' || *p == '+' || *p == '-' || errno || !isfinite(v) || v < 0 ||
		    (*end != ',' && *end != '\0')) {
			fprintf(stderr, "clefrun: --tensor-split: expected numbers >= 0 separated by commas (\"3,1\"), got '%s'\n",
				cli_safe(cli_clip(s, &cb)));
			return EXIT_USAGE;
		}
		if (o->n_tensor_split == CR_MAX_GPUS) {
			fprintf(stderr, "clefrun: --tensor-split: more than %d proportions, got '%s'\n", CR_MAX_GPUS,
				cli_safe(cli_clip(s, &cb)));
			return EXIT_USAGE;
		}
		o->tensor_split[o->n_tensor_split++] = v;
		sum += v;
		if (*end == '\0')
			break;
		p = end + 1;
	}
	if (!(sum > 0)) {
		fprintf(stderr, "clefrun: --tensor-split: every proportion is 0, got '%s'\n", cli_safe(cli_clip(s, &cb)));
		return EXIT_USAGE;
	}
	return 0;
}

static int parse_args(check_cfg *c, int argc, char **argv)
{
	int rc = cli_parse(&check_cmd, argc, argv, c);

	if (rc == 0 && c->tensor_split && c->opts.split == CR_SPLIT_TENSOR) {
		fprintf(stderr, "clefrun: --tensor-split applies to --split layer; clefrun models --split tensor as even slices\n");
		return EXIT_USAGE;
	}
	if (rc == 0 && c->tensor_split)
		rc = parse_tensor_split(c->tensor_split, &c->opts);
	return rc;
}

static void layout_text(const cr_model *m, char *buf, size_t cap)
{
	unsigned kv = cr_model_kv_layers(m);
	unsigned swa = cr_model_count_layers(m, CR_LAYER_SLIDING);
	unsigned rec = cr_model_count_layers(m, CR_LAYER_RECURRENT);

	if (m->mla) {
		snprintf(buf, cap, "MLA: %u layers keep a compressed K cache", kv);
	} else if (rec && m->mamba) {
		cr_estimate_opts one = CR_ESTIMATE_OPTS_INIT;
		unsigned ffn_only = 0;
		int n;

		one.n_seq = 1;
		for (uint32_t i = 0; i < m->n_layers && i < CR_MAX_LAYERS; i++)
			ffn_only += (m->layer_parts[i] & CR_LAYER_NO_MIXER) != 0;
		n = snprintf(buf, cap, "hybrid: %u of %u layers keep a KV cache, %u Mamba-2 layers a fixed state of %.1f MiB per sequence",
			     kv, m->n_layers, rec, (double)cr_estimate_state_bytes(m, &one) / 1048576.0);
		if (ffn_only && n > 0 && (size_t)n < cap)
			snprintf(buf + n, cap - (size_t)n, ", %u are FFN only", ffn_only);
	} else if (rec) {
		snprintf(buf, cap, "hybrid: %u of %u layers keep a KV cache, %u linear-attention layers keep a fixed state",
			 kv, m->n_layers, rec);
	} else if (swa) {
		snprintf(buf, cap, "%u of %u layers use a %u-token sliding window", swa, m->n_layers,
			 m->window);
	} else {
		snprintf(buf, cap, "all %u layers keep a KV cache", m->n_layers);
	}
}

static void print_heading(const check_cfg *c, const cr_model *m, FILE *f)
{
	char params[32], active[32], ctx[32], layout[192];
	double kv_tok = (double)c->kv.bytes_per_token / 1024.0;

	cli_fmt_params(params, sizeof(params), m->params);
	cli_fmt_params(active, sizeof(active), m->active_params);
	/* 0: a front-end set the rows' contexts differently (listed below the table). */
	if (c->ctx)
		cli_fmt_ctx(ctx, sizeof(ctx), c->ctx);
	else
		snprintf(ctx, sizeof(ctx), "per row (below)");
	layout_text(m, layout, sizeof(layout));
	char kv[32];

	if (c->kv_k == c->kv_v)
		snprintf(kv, sizeof(kv), "%s", cr_kv_type_name(c->kv_k));
	else
		snprintf(kv, sizeof(kv), "K %s / V %s", cr_kv_type_name(c->kv_k), cr_kv_type_name(c->kv_v));
	fprintf(f, "%s%s (%s): %s params%s%s%s, context %s of %u, KV %s%s\n",
		c->fmt == FMT_MARKDOWN ? "**" : "", cli_safe(m->name), cli_safe(m->id), params,
		m->active_params != m->params ? ", " : "",
		m->active_params != m->params ? active : "",
		m->active_params != m->params ? " active" : "", ctx, m->context_max,
		kv, c->fmt == FMT_MARKDOWN ? "**" : "");
	fprintf(f, "%s; KV grows %.1f KiB per token\n", layout, kv_tok);
	/* llama.cpp v0.4.0 loads the MTP head only for --spec-type draft-mtp
	 * (common/common.cpp:1714); clefrun estimates the run without it. */
	if (m->mtp_layers)
		fprintf(f, "%u MTP layer%s: weights not loaded without --spec-type draft-mtp%s; MTP drafting: clefrun plan --mtp\n",
			m->mtp_layers, m->mtp_layers == 1 ? "" : "s",
			m->mtp_kv_layers || (m->n_layers && m->kv_heads[m->n_layers - 1])
				? ", KV cache allocated though unread (counted)" : "");
	/* It reads text and returns a vector or a score: no decode speed to
	 * give, and the tier is judged on the prefill (docs/decisions.md). */
	if (m->task != CR_TASK_GENERATION)
		fprintf(f, "%s model: no text generation; TIER by memory fit and DECIDE, the prefill of the input\n",
			m->task == CR_TASK_RERANK ? "reranking" : "embedding");
	if (c->ctx_from[0])
		fprintf(f, "%s\n", c->ctx_from);
	fprintf(f, "\n");
}

static void add_text_row(cli_table *t, const row *r)
{
	const cr_estimate *e = &r->est;
	char mem[64], used[24], avail[24], kvs[24], maxc[16], rate[16], dec[20], pre[20], ttd[20];
	char rig[CR_NAME_MAX + 4];
	const char *cells[9];

	cli_fmt_mem(used, sizeof(used), (double)e->memory.total_bytes);
	cli_fmt_mem(avail, sizeof(avail), (double)e->memory.available_bytes);
	snprintf(mem, sizeof(mem), "%s / %s", used, avail);
	cli_fmt_mem(kvs, sizeof(kvs), (double)(e->memory.kv_bytes + e->memory.state_bytes));
	cli_fmt_ctx(maxc, sizeof(maxc), e->max_context);
	/* "~": extrapolated, no measured rows near this case (footnote); an
	 * unvalidated mode has its own mark instead. */
	bool xd = e->decode_note[0] && e->speed_validated, xp = e->prefill_note[0] && e->speed_validated;

	cli_fmt_rate(rate, sizeof(rate), e->decode_tokens_per_s);
	snprintf(dec, sizeof(dec), "%s%s", xd && e->decode_tokens_per_s > 0 ? "~" : "", rate);
	cli_fmt_rate(rate, sizeof(rate), e->prefill_tokens_per_s);
	snprintf(pre, sizeof(pre), "%s%s", xp && e->prefill_tokens_per_s > 0 ? "~" : "", rate);
	if (e->time_to_decision_s > 0)
		snprintf(ttd, sizeof(ttd), e->time_to_decision_s < 10 ? "%s%.2f s" : "%s%.0f s",
			 xp ? "~" : "", e->time_to_decision_s);
	else
		snprintf(ttd, sizeof(ttd), "-");
	/* Unvalidated speeds carry a mark; the footnote says why. */
	if (!e->speed_validated && e->tier != CR_TIER_NOFIT) {
		size_t l = strlen(dec);

		snprintf(dec + l, sizeof(dec) - l, " %s", UNVALIDATED_MARK);
		l = strlen(pre);
		snprintf(pre + l, sizeof(pre) - l, " %s", UNVALIDATED_MARK);
		l = strlen(ttd);
		snprintf(ttd + l, sizeof(ttd) - l, " %s", UNVALIDATED_MARK);
	}
	snprintf(rig, sizeof(rig), "%s%s", r->rig->id, r->rig->unreleased ? " *" : "");
	cells[0] = rig;
	cells[1] = r->label;
	cells[2] = mem;
	cells[3] = kvs;
	cells[4] = e->max_context ? maxc : "-";
	cells[5] = dec;
	cells[6] = pre;
	cells[7] = ttd;
	cells[8] = cr_tier_name(e->tier);
	cli_table_add(t, cells);
}

static void add_csv_row(cli_table *t, const cr_model *m, const row *r, bool grouped)
{
	const cr_estimate *e = &r->est;
	char v[12][32];
	const char *cells[18];

	snprintf(v[0], 32, "%u", e->context);
	snprintf(v[1], 32, "%llu", (unsigned long long)e->memory.weights_bytes);
	snprintf(v[2], 32, "%llu", (unsigned long long)e->memory.kv_bytes);
	snprintf(v[3], 32, "%llu", (unsigned long long)e->memory.state_bytes);
	snprintf(v[4], 32, "%llu", (unsigned long long)e->memory.compute_bytes);
	snprintf(v[5], 32, "%llu", (unsigned long long)e->memory.overhead_bytes);
	snprintf(v[6], 32, "%llu", (unsigned long long)e->memory.total_bytes);
	snprintf(v[7], 32, "%llu", (unsigned long long)e->memory.available_bytes);
	/* Unknown or not applicable: an empty field, as JSON writes null. */
	if (e->max_context)
		snprintf(v[8], 32, "%u", e->max_context);
	else
		v[8][0] = '\0';
	if (e->decode_tokens_per_s > 0)
		snprintf(v[9], 32, "%.2f", e->decode_tokens_per_s);
	else
		v[9][0] = '\0';
	if (e->prefill_tokens_per_s > 0) {
		snprintf(v[10], 32, "%.1f", e->prefill_tokens_per_s);
		snprintf(v[11], 32, "%.4f", e->time_to_decision_s);
	} else {
		v[10][0] = v[11][0] = '\0';
	}
	cells[0] = m->id;
	cells[1] = r->label;
	cells[2] = r->rig->id;
	for (int i = 0; i < 12; i++)
		cells[3 + i] = v[i];
	cells[15] = cr_tier_name(e->tier);
	cells[16] = e->speed_validated ? "true" : "false";
	if (grouped)
		cells[17] = cr_fit_group_name(cr_decide_group(e->tier));
	cli_table_add(t, cells);
}

static cJSON *explain_json(const row *r);

/* The command reproducing row @p r under the front-end. */
static void engine_command(const check_cfg *c, const row *r, char *buf, size_t cap)
{
	cr_model_source_kind kind = cr_model_source_classify(c->model_id);

	cli_engine_command(&r->prof, &r->opts, r->est.flash_attn, c->gpu_layers_given,
			   kind == CR_MODEL_SOURCE_CATALOG ? NULL : cli_shown(c->model_id), buf, cap);
}

/* Text: per row, the front-end's settings and the command that reproduces them. */
static void print_engine(const check_cfg *c, const row *rows, int n)
{
	char sum[1024], cmd[512];

	printf("\n%s defaults (origin in brackets; --explain gives each source, docs/engines.md the tables):\n",
	       cr_engine_name((cr_engine)c->engine));
	for (int i = 0; i < n; i++) {
		cli_engine_summary(&rows[i].prof, sum, sizeof(sum));
		engine_command(c, &rows[i], cmd, sizeof(cmd));
		printf("%s %s: %s\n  run: %s\n", cli_safe(rows[i].rig->id), cli_safe(rows[i].label), sum, cmd);
	}
}

static int print_json(const check_cfg *c, const cr_model *m, const row *rows, int n)
{
	cJSON *root = cJSON_CreateObject(), *res, *mo;

	cJSON_AddStringToObject(root, "schema", "clefrun.check/1");
	mo = cJSON_AddObjectToObject(root, "model_info");
	cJSON_AddStringToObject(mo, "id", m->id);
	cJSON_AddStringToObject(mo, "name", m->name);
	cJSON_AddNumberToObject(mo, "params", (double)m->params);
	cJSON_AddNumberToObject(mo, "active_params", (double)m->active_params);
	cJSON_AddNumberToObject(mo, "context_max", m->context_max);
	cJSON_AddNumberToObject(mo, "layers", m->n_layers);
	cJSON_AddNumberToObject(mo, "kv_layers", cr_model_kv_layers(m));
	cJSON_AddNumberToObject(mo, "kv_bytes_per_token", n ? (double)c->kv.bytes_per_token : 0);
	if (m->task != CR_TASK_GENERATION)
		cJSON_AddStringToObject(mo, "task", cr_model_task_name(m->task));
	if (c->ctx_from[0])
		cJSON_AddStringToObject(mo, "context_from", c->ctx_from);
	cJSON_AddStringToObject(root, "kv_type_k", cr_kv_type_name(c->kv_k));
	cJSON_AddStringToObject(root, "kv_type_v", cr_kv_type_name(c->kv_v));
	cJSON_AddStringToObject(root, "workload", c->opts.workload == CR_WORKLOAD_DECIDE ? "decide" : "chat");
	cJSON_AddStringToObject(root, "split", c->opts.split == CR_SPLIT_TENSOR ? "tensor" : "layer");
	cJSON_AddStringToObject(root, "engine", cr_engine_name((cr_engine)c->engine));
	cJSON_AddStringToObject(root, "require", cr_tier_name(c->require));
	res = cJSON_AddArrayToObject(root, "results");
	for (int i = 0; i < n; i++) {
		const cr_estimate *e = &rows[i].est;
		cJSON *o = cJSON_CreateObject();

		cJSON_AddStringToObject(o, "model", m->id);
		cJSON_AddStringToObject(o, "quant", rows[i].label);
		cJSON_AddStringToObject(o, "rig", rows[i].rig->id);
		cJSON_AddStringToObject(o, "rig_name", rows[i].rig->name);
		cJSON_AddBoolToObject(o, "rig_unreleased", rows[i].rig->unreleased);
		cli_json_estimate(o, rows[i].rig, e, rows[i].fa_why, c->explain ? explain_json(&rows[i]) : NULL);
		cJSON_AddBoolToObject(o, "reaches_require", e->tier <= c->require);
		if (c->engine != CR_ENGINE_LLAMACPP) {
			char cmd[512];

			cJSON_AddItemToObject(o, "defaults", cli_engine_json(&rows[i].prof));
			engine_command(c, &rows[i], cmd, sizeof(cmd));
			cJSON_AddStringToObject(o, "command", cmd);
		}
		if (c->grouped)
			cJSON_AddStringToObject(o, "group", cr_fit_group_name(cr_decide_group(e->tier)));
		if (c->vision.on) {
			cli_vision v = c->vision;

			v.use = rows[i].vision;
			cJSON_AddItemToObject(o, "vision", cli_vision_json(&v));
		}
		cJSON_AddItemToArray(res, o);
	}
	if (c->grouped) {
		cJSON *gr = cJSON_AddObjectToObject(root, "groups");
		int count[CR_GROUP_COUNT] = { 0 };

		for (int i = 0; i < n; i++)
			count[cr_decide_group(rows[i].est.tier)]++;
		for (int g = 0; g < CR_GROUP_COUNT; g++)
			cJSON_AddNumberToObject(gr, cr_fit_group_name((cr_fit_group)g), count[g]);
	}
	if (cli_json_emit(root))
		return EXIT_ERROR;
	return EXIT_OK_;
}

/* --explain on a rig with several GPUs: one line per device of the layer
 * split (cr_estimate.gpus) and the one that limits. */
static void explain_devices(const row *r, FILE *f)
{
	const cr_estimate *e = &r->est;
	char a[32], b[32], c[32], d[32], x[32], t[32], u[32];
	char pipe[64] = "";

	if (e->n_gpus < 2)
		return;
	if (e->pipeline_parallel)
		snprintf(pipe, sizeof(pipe), ", pipeline parallelism on (%u copies of the graph inputs)",
			 CR_SCHED_MAX_COPIES);
	fprintf(f, "  %-16s %14s  layer split %s%s; each device: model + KV + compute + other + reserve = total / usable\n",
		"devices", "",
		r->opts.n_tensor_split ? "by --tensor-split"
		: e->gpus_filled
			? "whole layers per device by llama.cpp's fit (the last device first, each up to its margin)"
			: "in proportion to free memory (usable less reserve)",
		pipe);
	for (unsigned i = 0; i < e->n_gpus; i++) {
		const cr_gpu_use *g = &e->gpus[i];
		char name[24];

		snprintf(name, sizeof(name), "GPU%u", i);
		cli_fmt_mem(a, sizeof(a), (double)g->weights_bytes);
		cli_fmt_mem(b, sizeof(b), (double)g->kv_bytes);
		cli_fmt_mem(c, sizeof(c), (double)g->compute_bytes);
		cli_fmt_mem(x, sizeof(x), (double)g->other_bytes);
		cli_fmt_mem(d, sizeof(d), (double)g->reserve_bytes);
		cli_fmt_mem(t, sizeof(t), (double)g->total_bytes);
		cli_fmt_mem(u, sizeof(u), (double)g->usable_bytes);
		fprintf(f, "  %-16s %14s  %s: %.1f%% split, %u layers%s; %s + %s + %s + %s + %s = %s / %s\n", name, t,
			cli_safe(r->rig->devices[g->group].name), g->split * 100.0, g->layers,
			g->output_layer ? " + output" : "", a, b, c, x, d, t, u);
	}
	{
		const cr_gpu_use *g = &e->gpus[e->limiting_gpu];
		double left = (double)g->margin_bytes;

		cli_fmt_mem(a, sizeof(a), left < 0 ? -left : left);
		fprintf(f, "  %-16s %14s  GPU%u (%s): %s %s; the rig fits only if every device does\n", "limiting device", "",
			e->limiting_gpu, cli_safe(r->rig->devices[g->group].name), a, left < 0 ? "short" : "left");
	}
	cli_fmt_mem(a, sizeof(a), (double)e->host_compute_bytes);
	fprintf(f, "  %-16s %14s  host compute buffer: F32 attention masks + input embeddings of a micro-batch (not in the totals)\n",
		"host compute", a);
}

/* --explain in text: every term with its formula and source. */
static void explain_text(const row *r, FILE *f)
{
	fprintf(f, "\n%s %s on %s, context %u: %s\n", r->est.tier == CR_TIER_NOFIT ? "no fit:" : "",
		cli_safe(r->label), cli_safe(r->rig->id), r->est.context, r->fa_why);
	for (size_t i = 0; i < r->n_terms; i++) {
		const cr_term *t = &r->terms[i];
		char val[32];

		if (r->est.tier == CR_TIER_NOFIT && strcmp(t->unit, "bytes") != 0)
			continue;
		if (strcmp(t->unit, "bytes") == 0)
			cli_fmt_mem(val, sizeof(val), t->value);
		else
			snprintf(val, sizeof(val), "%.4g %s", t->value, t->unit);
		fprintf(f, "  %-16s %14s  %s\n  %-16s %14s  [%s]\n", t->name, val, t->formula, "", "",
			t->source);
	}
	explain_devices(r, f);
	fprintf(f, "  %-16s %14s  %s\n", "basis", "", r->est.basis);
	if (r->prof.engine != CR_ENGINE_LLAMACPP) {
		fprintf(f, "  %s defaults:\n", cr_engine_name(r->prof.engine));
		cli_engine_explain(&r->prof, f);
	}
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

/* One line per distinct reason a figure is extrapolated. */
static void print_extrapolated(const row *rows, int n, cli_format fmt)
{
	for (int k = 0; k < 2 * n; k++) {
		const cr_estimate *e = &rows[k / 2].est;
		const char *why = k % 2 ? e->prefill_note : e->decode_note;
		bool seen = !why[0] || !e->speed_validated || e->tier == CR_TIER_NOFIT;

		for (int j = 0; j < k && !seen; j++)
			seen = strcmp(why, j % 2 ? rows[j / 2].est.prefill_note : rows[j / 2].est.decode_note) == 0;
		if (!seen)
			printf("%s extrapolated: %s.\n", fmt == FMT_MARKDOWN ? "\\~" : "~", why);
	}
}

/* The lines under the table(s): cache depth, extrapolations, unknown tiers,
 * --best-quant misses, unvalidated and unreleased marks. */
static void print_footnotes(const check_cfg *c, const cr_model *m, const row *rows, int n,
			    bool unreleased, bool unvalidated)
{
	unsigned depth = rows[0].est.tier == CR_TIER_NOFIT ? rows[0].est.context : rows[0].est.decode_depth;
	int unknown = 0;

	if (m->task != CR_TASK_GENERATION)
		printf("\nNo decode: %s model", m->task == CR_TASK_RERANK ? "reranking" : "embedding");
	else if (!c->ctx && c->engine != CR_ENGINE_LLAMACPP)
		printf("\nDecode with each row's context in the cache");
	else if (depth)
		printf("\nDecode with %u tokens in the cache", depth);
	else
		printf("\nDecode with an empty cache");
	printf("; DECIDE = prefill of a %u-token prompt",
	       rows[0].est.prompt_tokens ? rows[0].est.prompt_tokens : CR_DEFAULT_PROMPT_TOKENS);
	if (rows[0].est.prefill_depth)
		printf(" after %u cached tokens", rows[0].est.prefill_depth);
	printf("; %s.\n", rows[0].fa_why);
	if (c->vision.on) {
		cli_vision v = c->vision;

		v.use = rows[0].vision;
		cli_vision_note(&v, stdout);
	}
	print_extrapolated(rows, n, c->fmt);
	for (int i = 0; i < n; i++) {
		if (rows[i].est.tier != CR_TIER_UNKNOWN || (i > 0 && rows[i - 1].rig == rows[i].rig))
			continue;
		/* A selector lists many rigs: one line for them all. */
		if (c->grouped)
			unknown++;
		else
			printf("%s: tier unknown: no FP16 TFLOPS figure, so no time-to-decision for --workload decide (give the rig tflops=); it reaches no --require.\n",
			       rows[i].rig->id);
	}
	if (unknown)
		printf("%s: %d rig%s without an FP16 TFLOPS figure, so no time-to-decision for --workload decide; they reach no --require.\n",
		       cr_fit_group_title(CR_GROUP_UNKNOWN), unknown, unknown == 1 ? "" : "s");
	for (int i = 0; i < n; i++)
		if (rows[i].missed)
			printf(rows[i].est.tier == CR_TIER_NOFIT
				       ? "%s: no quant reaches \"%s\" and none fits; the row is the smallest.\n"
				       : "%s: no quant reaches \"%s\"; the row is the closest, the fastest that fits.\n",
			       rows[i].rig->id, cr_tier_name(c->require));
	if (unvalidated)
		printf("%s tensor split: the speed model of --split tensor has not been checked against any measurement, and llama.cpp's row split (-sm row) measures far below it; read these speeds as unvalidated.\n",
		       UNVALIDATED_MARK);
	/* A line starting "* " would be a list item in Markdown. */
	if (unreleased)
		printf("%s hardware that does not exist as described (see 'clefrun rigs').\n",
		       c->fmt == FMT_MARKDOWN ? "\\*" : "*");
}

static const char *const text_hdr[] = { "RIG", "QUANT", "MEMORY / USABLE", "KV+STATE",
	"MAX CTX", "DECODE t/s", "PREFILL t/s", "DECIDE", "TIER" };
static const bool text_right[] = { false, false, true, true, true, true, true, true, false };

/* Has rows[from..i) a row of rows[i]'s rig? (A rig has one row per quant.) */
static bool rig_seen(const row *rows, int from, int i)
{
	for (int j = from; j < i; j++)
		if (rows[j].rig == rows[i].rig)
			return true;
	return false;
}

/* The rigs that do not fit, by id on lines of at most about 100 columns. */
static void print_nofit_ids(const check_cfg *c, const row *rows, int from, int to)
{
	int col = 0;

	for (int i = from; i < to; i++) {
		const char *id = cli_safe(rows[i].rig->id);
		int len = (int)strlen(id) + (rows[i].rig->unreleased ? 2 : 0);

		if (rig_seen(rows, from, i))
			continue;
		if (col && col + len + 2 > 100) {
			printf(",\n");
			col = 0;
		} else if (col) {
			printf(", ");
			col += 2;
		}
		printf("%s%s%s", col ? "" : (c->fmt == FMT_MARKDOWN ? "" : "  "), id,
		       rows[i].rig->unreleased ? (c->fmt == FMT_MARKDOWN ? " \\*" : " *") : "");
		col += len + (col ? 0 : 2);
	}
	if (col)
		printf("\n");
}

/* Text and Markdown under a selector: one table per group in cr_fit_group
 * order, the rigs that do not fit summarised by id. */
static void render_grouped(const check_cfg *c, const row *rows, int n, bool *unreleased,
			   bool *unvalidated)
{
	bool md = c->fmt == FMT_MARKDOWN, first = true;
	int nrigs = 0;

	for (int i = 0; i < n; i++)
		nrigs += !rig_seen(rows, 0, i);
	for (int from = 0; from < n;) {
		cr_fit_group g = cr_decide_group(rows[from].est.tier);
		int to = from, rigs = 0;
		cli_table t;

		while (to < n && cr_decide_group(rows[to].est.tier) == g) {
			rigs += !rig_seen(rows, from, to);
			to++;
		}
		if (!first)
			printf("\n");
		first = false;
		printf(md ? "**%s** (%d of %d rig%s%s)\n\n" : "%s (%d of %d rig%s%s):\n", cr_fit_group_title(g),
		       rigs, nrigs, nrigs == 1 ? "" : "s",
		       g == CR_GROUP_RUNS_WELL ? ", tier fast or ok" : "");
		if (g == CR_GROUP_NOFIT) {
			print_nofit_ids(c, rows, from, to);
			for (int i = from; i < to; i++)
				*unreleased |= rows[i].rig->unreleased;
		} else {
			cli_table_init(&t, 9, text_hdr, text_right);
			for (int i = from; i < to; i++) {
				add_text_row(&t, &rows[i]);
				*unreleased |= rows[i].rig->unreleased;
				*unvalidated |= !rows[i].est.speed_validated;
			}
			cli_table_render(&t, c->fmt, stdout);
			cli_table_free(&t);
		}
		from = to;
	}
}

static int render(const check_cfg *c, const cr_model *m, const row *rows, int n)
{
	static const char *const csv_hdr[] = { "model", "quant", "rig", "context", "weights_bytes",
		"kv_bytes", "state_bytes", "compute_bytes", "overhead_bytes", "total_bytes",
		"available_bytes", "max_context", "decode_tokens_per_s", "prefill_tokens_per_s",
		"time_to_decision_s", "tier", "speed_validated", "group" };
	bool unreleased = false, unvalidated = false;
	cli_table t;

	if (n < 1)
		return EXIT_USAGE;
	if (c->fmt == FMT_JSON)
		return print_json(c, m, rows, n);
	if (c->fmt == FMT_CSV) {
		cli_table_init(&t, c->grouped ? 18 : 17, csv_hdr, NULL);
		for (int i = 0; i < n; i++)
			add_csv_row(&t, m, &rows[i], c->grouped);
		cli_table_render(&t, c->fmt, stdout);
		cli_table_free(&t);
	} else {
		if (!cli_quiet())
			print_heading(c, m, stdout);
		if (c->grouped) {
			render_grouped(c, rows, n, &unreleased, &unvalidated);
		} else {
			cli_table_init(&t, 9, text_hdr, text_right);
			for (int i = 0; i < n; i++) {
				add_text_row(&t, &rows[i]);
				unreleased |= rows[i].rig->unreleased;
				unvalidated |= !rows[i].est.speed_validated && rows[i].est.tier != CR_TIER_NOFIT;
			}
			cli_table_render(&t, c->fmt, stdout);
			cli_table_free(&t);
		}
	}
	if (c->fmt != FMT_CSV && !cli_quiet())
		print_footnotes(c, m, rows, n, unreleased, unvalidated);
	if (c->fmt != FMT_CSV && c->engine != CR_ENGINE_LLAMACPP)
		print_engine(c, rows, n);
	/* In Markdown the aligned terms stay aligned in a code block. */
	if (c->explain && c->fmt == FMT_MARKDOWN)
		printf("\n```");
	if (c->explain && c->ctx_from[0])
		fprintf(c->fmt == FMT_CSV ? stderr : stdout, "\n%s\n", c->ctx_from);
	if (c->explain && c->ollama_opts[0])
		fprintf(c->fmt == FMT_CSV ? stderr : stdout, "%s%s\n", c->ctx_from[0] ? "" : "\n", cli_safe(c->ollama_opts));
	for (int i = 0; c->explain && i < n; i++)
		explain_text(&rows[i], c->fmt == FMT_CSV ? stderr : stdout);
	if (c->explain && c->fmt == FMT_MARKDOWN)
		printf("```\n");
	return EXIT_OK_;
}

/* Rows in group order (cr_fit_group), then faster decode first, then the
 * order the rigs were given: the runs-well rigs lead with the fastest. */
static int group_order(const void *pa, const void *pb)
{
	const row *a = pa, *b = pb;
	cr_fit_group ga = cr_decide_group(a->est.tier), gb = cr_decide_group(b->est.tier);

	if (ga != gb)
		return ga < gb ? -1 : 1;
	if (a->est.decode_tokens_per_s != b->est.decode_tokens_per_s)
		return a->est.decode_tokens_per_s > b->est.decode_tokens_per_s ? -1 : 1;
	return a->order < b->order ? -1 : a->order > b->order;
}

/* What the rows of one rig are: catalog quant presets, or real GGUF files
 * with their exact weight bytes (main tensor type unknown here: "", as a
 * stand-in preset's base type was). */
typedef struct variant {
	cr_weights weights;
	char label[96];
} variant;

static bool quant_wanted(const check_cfg *c, const char *label)
{
	if (!c->n_quants)
		return true;
	for (int i = 0; i < c->n_quants; i++)
		if (strcasecmp(c->quant_ids[i], label) == 0)
			return true;
	return false;
}

/* hf:OWNER/REPO: one row per GGUF file of the repository. Reads the list and
 * one header (the first file's); the others' weights are their sizes less
 * that header's size (the headers of one repository differ only in tensor
 * types, not in length, to within a few bytes). */
static int hf_variants(const check_cfg *c, const cr_catalog *cat, cli_model *cm,
		       variant *vars, int *nv)
{
	cli_source_opts so = CLI_SOURCE_OPTS_INIT;
	cr_source_stats st;
	cr_hf_entry *e = NULL;
	cr_hf_ref ref;
	cr_error err = CR_ERROR_INIT;
	uint64_t header = 0;
	size_t n = 0;
	int rc, first = -1;

	so.revision = c->revision;
	so.command = "clefrun check";
	so.allow_truncated = c->header_only;
	so.no_cache = c->no_cache;
	so.offline = c->offline;
	so.ollama_registry = c->ollama_registry;
	if ((rc = cli_hf_list(c->model_id, &so, &e, &n, &st)))
		return rc;
	(void)cr_hf_parse(c->model_id, &ref, &err);
	for (size_t i = 0; i < n && *nv < MAX_QUANTS; i++) {
		char src[CR_HF_REPO_MAX + CR_HF_PATH_MAX + 8];
		const char *label = e[i].quant[0] ? e[i].quant : e[i].path;

		if (e[i].projector || !quant_wanted(c, label))
			continue;
		if (first < 0) {
			snprintf(src, sizeof(src), "hf:%s/%s", ref.repo, e[i].path);
			if ((rc = cli_resolve_model(cat, src, &so, cm))) {
				free(e);
				return rc;
			}
			header = e[i].size > cm->weights_bytes ? e[i].size - cm->weights_bytes : 0;
			first = (int)i;
		}
		cr_weights_exact(e[i].size > header ? e[i].size - header : e[i].size, NULL,
				 &vars[*nv].weights);
		snprintf(vars[*nv].label, sizeof(vars[*nv].label), "%.95s", label);
		(*nv)++;
	}
	free(e);
	if (first < 0) {
		fprintf(stderr, "clefrun: %s: no GGUF model file%s\n", cli_shown(c->model_id),
			c->n_quants ? " of the requested quants" : "");
		return EXIT_ERROR;
	}
	return 0;
}

/* The model and the rows per rig. Prints errors; returns 0 or an exit code. */
static int resolve_variants(check_cfg *c, const cr_catalog *cat, cli_model *cm,
			    const cr_quant **quants, int *nq, variant **out, int *nv)
{
	cr_model_source_kind kind = cr_model_source_classify(c->model_id);
	cli_source_opts so = CLI_SOURCE_OPTS_INIT;
	variant *vars = calloc(MAX_QUANTS, sizeof(variant));
	int rc;

	*out = vars;
	*nv = 0;
	if (!vars)
		return EXIT_ERROR;
	so.revision = c->revision;
	so.command = "clefrun check";
	so.allow_truncated = c->header_only;
	so.no_cache = c->no_cache;
	so.offline = c->offline;
	so.ollama_registry = c->ollama_registry;
	if (kind == CR_MODEL_SOURCE_HF) {
		cr_hf_ref ref;
		cr_error err = CR_ERROR_INIT;

		if (cr_hf_parse(c->model_id, &ref, &err)) {
			fprintf(stderr, "clefrun: %s\n", err.message);
			return EXIT_USAGE;
		}
		if (ref.kind == CR_HF_REPO) {
			if (c->best_quant) {
				fprintf(stderr, "clefrun check: --best-quant needs a catalog model; for a repository, every file is a row already\n");
				return EXIT_USAGE;
			}
			return hf_variants(c, cat, cm, vars, nv);
		}
	}
	if ((rc = cli_resolve_model(cat, c->model_id, &so, cm)))
		return rc;
	if (cm->from_gguf) {
		if (c->n_quants || c->best_quant) {
			fprintf(stderr, "clefrun check: --%s does not apply to a GGUF file, whose quantization is fixed (for a repository, hf:OWNER/REPO:QUANT picks one)\n",
				c->n_quants ? "quant" : "best-quant");
			return EXIT_USAGE;
		}
		snprintf(vars[0].label, sizeof(vars[0].label), "%s", cm->file_type[0] ? cm->file_type : "GGUF");
		cr_weights_exact(cm->weights_bytes, NULL, &vars[0].weights);
		vars[0].weights.mapped_extra_bytes = cm->mapped_extra_bytes;
		*nv = 1;
		return 0;
	}
	for (int i = 0; i < c->n_quants; i++) {
		if (!(quants[(*nq)++] = cli_find_quant(cat, c->quant_ids[i])))
			return EXIT_USAGE;
	}
	if (c->best_quant) {
		/* Candidates: the --quant list, else clefrun's default set. */
		if (!c->require_given)
			c->require = CR_TIER_OK;
		for (size_t i = 0; !c->n_quants && i < cr_catalog_quant_count(cat) && *nq < MAX_QUANTS; i++)
			if (cr_decide_default_candidate(&cm->model, cr_catalog_quant_at(cat, i)))
				quants[(*nq)++] = cr_catalog_quant_at(cat, i);
	} else if (!c->n_quants && c->n_rigs == 1 && !c->grouped) {
		for (size_t i = 0; i < cr_catalog_quant_count(cat) && *nq < MAX_QUANTS; i++)
			quants[(*nq)++] = cr_catalog_quant_at(cat, i);
	} else if (!c->n_quants) {
		if (!(quants[(*nq)++] = cli_find_quant(cat, DEFAULT_QUANT)))
			return EXIT_USAGE;
	}
	for (int i = 0; i < *nq; i++) {
		cr_weights_preset(quants[i], &vars[i].weights);
		snprintf(vars[i].label, sizeof(vars[i].label), "%s", quants[i]->id);
	}
	*nv = *nq;
	if (c->best_quant && *nq == 0) {
		fprintf(stderr, "clefrun check: --best-quant: no candidate quant\n");
		return EXIT_USAGE;
	}
	return 0;
}

int cmd_check(const cli_globals *g, int argc, char **argv)
{
	check_cfg c;
	cr_catalog *cat = NULL;
	const cr_model *m;
	const cr_rig **rigs = NULL;
	const cr_quant *quants[MAX_QUANTS];
	cr_rig *custom = NULL;
	cli_model *cm = NULL;
	variant *vars = NULL;
	row *rows = NULL;
	cr_estimate_request req = CR_ESTIMATE_REQUEST_INIT, rreq;
	cr_engine_given given = CR_ENGINE_GIVEN_INIT;
	cr_engine_env env;
	cr_engine_profile prof;
	cr_estimate_setup set;
	cr_estimate_opts first = CR_ESTIMATE_OPTS_INIT;
	cr_error err = CR_ERROR_INIT;
	int nr = 0, nq = 0, nv = 0, n = 0, rc, s;

	/* --engine vllm: vLLM's own flags and rules (cmd_vllm.c). */
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--") == 0)
			break;
		if (strcmp(argv[i], "--engine=vllm") == 0 ||
		    (strcmp(argv[i], "--engine") == 0 && i + 1 < argc && strcmp(argv[i + 1], "vllm") == 0))
			return cmd_check_vllm(g, argc, argv);
	}
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
	for (int i = 0; i < c.n_rigs; i++) {
		cli_rig_sel sel = { 0 };
		int k = cli_rig_selector_parse(c.rig_ids[i], &sel);

		if (k < 0)
			return EXIT_USAGE;
		c.grouped |= k > 0;
	}
	cat = cli_open_catalog(&c.g);
	if (!cat)
		return EXIT_ERROR;
	rc = EXIT_USAGE;
	custom = calloc(MAX_RIGS, sizeof(cr_rig));
	cm = calloc(1, sizeof(*cm));
	/* Each --rig is one rig or, as a selector, up to every catalog rig. */
	rigs = calloc((size_t)(c.n_rigs ? c.n_rigs : 1) * (cr_catalog_rig_count(cat) + 1), sizeof(*rigs));
	if (!custom || !cm || !rigs) {
		rc = EXIT_ERROR;
		goto out;
	}
	if ((rc = resolve_variants(&c, cat, cm, quants, &nq, &vars, &nv)))
		goto out;
	m = &cm->model;
	{
		cli_source_opts so = CLI_SOURCE_OPTS_INIT;

		so.revision = c.revision;
		so.command = "clefrun check";
		so.allow_truncated = c.header_only;
		so.no_cache = c.no_cache;
		so.offline = c.offline;
		cli_vision_hf_auto(&c.vis, c.model_id, &so);
		if ((rc = cli_vision_setup(&c.vis, "clefrun check", m, &so, &c.vision)))
			goto out;
	}
	rc = EXIT_USAGE;
	req.opts = c.opts;
	req.opts.type_k = c.kv_k;
	req.opts.type_v = c.kv_v;
	req.n_ctx = c.ctx_given ? c.ctx : 0;
	if (cm->is_ollama && cm->ollama.has_params) {
		/* What else the params layer sets; clefrun models none of it (docs/stores.md). */
		const cr_ollama_params *op = &cm->ollama.params;
		char nb[32] = "", ng[32] = "";
		const char *parts[3];
		int np = 0;

		if (op->num_batch)
			snprintf(nb, sizeof(nb), "num_batch %u", op->num_batch);
		if (op->num_gpu >= 0)
			snprintf(ng, sizeof(ng), "num_gpu %d", op->num_gpu);
		if (nb[0])
			parts[np++] = nb;
		if (ng[0])
			parts[np++] = ng;
		if (op->other_keys[0])
			parts[np++] = op->other_keys;
		if (np)
			snprintf(c.ollama_opts, sizeof(c.ollama_opts), "the Ollama params layer also sets: %s%s%s%s%s (not used here)",
				 parts[0], np > 1 ? ", " : "", np > 1 ? parts[1] : "", np > 2 ? ", " : "",
				 np > 2 ? parts[2] : "");
	}
	/* An Ollama model's params layer sets the context Ollama runs it with
	 * (num_ctx): the default here too, within the model's maximum. */
	if (!c.ctx_given && cm->is_ollama && cm->ollama.params.num_ctx) {
		unsigned want = cm->ollama.params.num_ctx;

		req.n_ctx = m->context_max && want > m->context_max ? m->context_max : want;
		snprintf(c.ctx_from, sizeof(c.ctx_from), "context %u from the model's Ollama params (num_ctx %u%s)",
			 req.n_ctx, want, req.n_ctx != want ? ", cut to the model's maximum" : "");
	}
	req.flash_attn = c.fa;
	/* A Modelfile's num_ctx beats a front-end's default context as it does
	 * in Ollama (its tiers and OLLAMA_CONTEXT_LENGTH apply only without one). */
	given.n_ctx = c.ctx_given || c.ctx_from[0] != '\0';
	given.n_seq = c.n_seq_given;
	given.kv_unified = c.unified_given;
	given.flash_attn = c.fa_given;
	given.type_k = c.kv_given || c.kv_k_given;
	given.type_v = c.kv_given || c.kv_v_given;
	given.n_ubatch = c.ubatch_given;
	given.gpu_layers = c.gpu_layers_given;
	cli_engine_env((cr_engine)c.engine, &env);
	memset(&prof, 0, sizeof(prof));
	rreq = req;
	if (c.engine != CR_ENGINE_LLAMACPP) {
		/* Without a rig first (Ollama's context then takes its smallest
		 * tier): a bad environment value or --ctx is the first error. */
		if ((s = cr_engine_apply((cr_engine)c.engine, m, NULL, &req, &given, &env, &prof, &err))) {
			rc = cli_engine_error("clefrun check", s, &err);
			goto out;
		}
		rreq = prof.req;
	}
	if ((rc = cli_vision_apply(&c.vision, "clefrun check", m, &rreq)))
		goto out;
	rc = EXIT_USAGE;
	/* The library defaults and checks the request (before the rigs are
	 * resolved, so that a bad --ctx is the first error); an impossible
	 * request is an error, not a silent clamp. */
	if ((s = cr_estimate_resolve_opts(m, NULL, &rreq, &set, &err))) {
		cli_request_error(&set, m, s, &err);
		rc = cli_exit_for_status(s);
		goto out;
	}
	c.ctx = set.opts.n_ctx;

	for (int i = 0; i < c.n_rigs; i++) {
		cli_rig_sel sel = { 0 };
		int k = cli_rig_selector_parse(c.rig_ids[i], &sel);

		if (k == 0) {
			const cr_rig *r = cli_find_rig(cat, c.rig_ids[i], &custom[i]);
			bool dup = false;

			if (!r)
				goto out;
			/* Beside a selector, a rig it took already is not a second row. */
			for (int q = 0; c.grouped && q < nr && !dup; q++)
				dup = rigs[q] == r;
			if (!dup)
				rigs[nr++] = r;
			continue;
		}
		/* A rig two selectors (or a selector and its id) name is one row set. */
		for (size_t j = 0; j < cr_catalog_rig_count(cat); j++) {
			const cr_rig *r = cr_catalog_rig_at(cat, j);
			bool dup = false;

			for (int q = 0; q < nr && !dup; q++)
				dup = rigs[q] == r;
			if (!dup && cli_rig_selector_matches(&sel, r))
				rigs[nr++] = r;
		}
	}
	if (c.n_rigs && !nr) {
		fprintf(stderr, "clefrun check: no catalog rig matches --rig %s\n", cli_shown(c.rig_ids[0]));
		rc = EXIT_USAGE;
		goto out;
	}
	if (!c.n_rigs) {
		for (size_t i = 0; i < cr_catalog_rig_count(cat); i++)
			if (cr_catalog_rig_at(cat, i)->reference)
				rigs[nr++] = cr_catalog_rig_at(cat, i);
	}
	if (!nr || !nv) { /* every path above yields rows; say so if one ever does not */
		fprintf(stderr, "clefrun check: no rig or no quant to estimate\n");
		rc = EXIT_USAGE;
		goto out;
	}
	rows = calloc((size_t)nr * (size_t)nv, sizeof(row));
	if (!rows) {
		rc = EXIT_ERROR;
		goto out;
	}
	rc = EXIT_OK_;
	for (int i = 0; i < nr; i++) {
		/* A front-end's defaults depend on the rig (Ollama's context). */
		rreq = req;
		if (c.engine != CR_ENGINE_LLAMACPP) {
			if ((s = cr_engine_apply((cr_engine)c.engine, m, rigs[i], &req, &given, &env, &prof,
						 &err))) {
				rc = cli_engine_error("clefrun check", s, &err);
				goto out;
			}
			rreq = prof.req;
		}
		if ((rc = cli_vision_apply(&c.vision, "clefrun check", m, &rreq)))
			goto out;
		rc = EXIT_OK_;
		/* Flash attention "auto" resolves per rig. */
		if ((s = cr_estimate_resolve_opts(m, rigs[i], &rreq, &set, &err))) {
			cli_estimate_error(&err);
			rc = cli_exit_for_status(s);
			goto out;
		}
		/* The projector's compute buffer follows the rig's flash attention. */
		cli_vision_finish(&c.vision, &set.opts);
		if (i == 0)
			first = set.opts;
		if (c.opts.n_tensor_split) {
			unsigned n_gpu = 0;

			for (unsigned dg = 0; dg < rigs[i]->n_devices; dg++)
				n_gpu += rigs[i]->devices[dg].kind == CR_MEM_SYSTEM ? 0 : rigs[i]->devices[dg].count;
			if (c.opts.n_tensor_split > n_gpu) {
				fprintf(stderr, "clefrun: --tensor-split gives %u proportions; rig %s has %u GPU(s)\n",
					c.opts.n_tensor_split, cli_safe(rigs[i]->id), n_gpu);
				rc = EXIT_USAGE;
				goto out;
			}
		}
		for (int k = 0; k < (c.best_quant ? 1 : nv); k++) {
			cr_estimate_opts o = set.opts;

			rows[n].rig = rigs[i];
			rows[n].weights = vars[k].weights;
			memcpy(rows[n].label, vars[k].label, sizeof(rows[n].label));
			if (c.best_quant) {
				cr_best_quant best;

				/* No quant reaching the tier is an outcome: the row is
				 * the best the rig can do, and its tier sets the exit code. */
				if (c.engine != CR_ENGINE_LLAMACPP) {
					rows[n].prof = prof;
					s = cr_engine_best_quant(&rows[n].prof, m, quants, (size_t)nq, rigs[i], &o,
								 c.require, &best, &o, &err);
				} else {
					s = cr_decide_best_quant(m, quants, (size_t)nq, rigs[i], &o, c.require,
								 &best, &err);
				}
				if (!s) {
					rows[n].est = best.estimate;
					rows[n].missed = best.outcome != CR_BEST_REACHES;
					cr_weights_preset(quants[best.index], &rows[n].weights);
					snprintf(rows[n].label, sizeof(rows[n].label), "%s",
						 quants[best.index]->id);
				}
			} else if (c.engine != CR_ENGINE_LLAMACPP) {
				rows[n].prof = prof;
				s = cr_engine_estimate(&rows[n].prof, m, &vars[k].weights, rigs[i], &o,
						       &rows[n].est, &o, &err);
			} else {
				s = cr_estimate_run_weights(m, &vars[k].weights, rigs[i], &o, &rows[n].est,
							    &err);
			}
			rows[n].opts = o;
			if (i == 0 && k == 0)
				first = o;
			if (s) {
				cli_estimate_error(&err);
				rc = cli_exit_for_status(s);
				goto out;
			}
			snprintf(rows[n].fa_why, sizeof(rows[n].fa_why), "%s", set.flash_attn_reason);
			rows[n].vision = c.vision.use;
			rows[n].order = n;
			if (c.explain)
				rows[n].n_terms = cr_estimate_explain_weights(m, &rows[n].weights, rigs[i], &o,
									      &rows[n].est, rows[n].terms,
									      MAX_TERMS);
			n++;
		}
	}
	/* The heading: the first row's context and KV types, which a front-end may have set. */
	if (c.engine != CR_ENGINE_LLAMACPP && n) {
		c.ctx = rows[0].opts.n_ctx;
		for (int i = 1; i < n; i++)
			if (rows[i].opts.n_ctx != c.ctx)
				c.ctx = 0;
		c.kv_k = rows[0].opts.type_k;
		c.kv_v = rows[0].opts.type_v;
	}
	/* After the estimates, whose errors (an implausible architecture) come first. */
	if ((s = cr_estimate_kv_profile(m, &first, &c.kv, &err))) {
		cli_estimate_error(&err);
		rc = cli_exit_for_status(s);
		goto out;
	}
	if (c.grouped)
		qsort(rows, (size_t)n, sizeof(*rows), group_order);
	rc = render(&c, m, rows, n);
	/* A selector asks which rigs run the model: exit 3 only when none
	 * reaches --require. Otherwise every row must. */
	if (rc == EXIT_OK_ && c.grouped) {
		bool any = false;

		for (int i = 0; i < n; i++)
			any |= rows[i].est.tier <= c.require;
		if (!any)
			rc = EXIT_NOFIT;
	}
	for (int i = 0; rc == EXIT_OK_ && !c.grouped && i < n; i++) {
		if (rows[i].est.tier > c.require)
			rc = EXIT_NOFIT;
	}
out:
	free(rows);
	free(rigs);
	free(custom);
	free(vars);
	free(cm);
	cr_catalog_free(cat);
	return rc;
}
