/*
 * clefrun plan: serving several sequences at once (llama.cpp -np). For each
 * count of --parallel: memory and fit, per-sequence and aggregate decode,
 * decisions per second and the latency of one under that load, and the count
 * where aggregate decode stops growing. The arithmetic is the library's
 * (include/clefrun/plan.h, docs/plans.md); this file parses and prints.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "cli.h"
#include "engine_out.h"
#include "estimate_out.h"
#include "source_model.h"
#include "vision_out.h"

#define DEFAULT_QUANT "Q4_K_M"

static const char plan_usage[] =
	"clefrun plan --model SOURCE --rig R [--quant Q] [--parallel N,N,...] [--ctx N] [--prompt-tokens N] [--format F]";
static const char plan_summary[] =
	"Serving plan: the model decoding several sequences at once (llama.cpp -np N, one\n"
	"context of --ctx tokens shared by them). Per count of --parallel: memory and fit,\n"
	"decode tokens/s per sequence and in aggregate (the weights are read once per step for\n"
	"all sequences, each sequence's KV cache on its own), decisions per second with N\n"
	"prompts prefilled together and the latency of one decision under that load. Below the\n"
	"table, the count where aggregate decode stops growing: the first doubling that gains\n"
	"less than 5 %. Exit 0 when every row fits, 3 when some row does not.\n"
	"--sweep n-cpu-moe (MoE) or --sweep gpu-layers: every --n-cpu-moe N (experts of the first N layers\n"
	"in system RAM) or -ngl N with its VRAM, largest context and decode speed, and the least offload that\n"
	"fits --ctx with its llama.cpp command line. Exit 3 when no setting fits.\n"
	"--fixes: for a row that does not fit or is tight, the cheapest changes that make it fit with room\n"
	"to spare (q8_0 KV, --no-mmproj-offload, --n-cpu-moe, -ngl, a smaller quant, q4_0 KV, fewer slots,\n"
	"a shorter context),\n"
	"each with memory, largest context, decode speed and the llama-server command line (with --engine E,\n"
	"also front-end E's setting: Ollama's variables and Modelfile, LM Studio's load settings). Exit 3 when\n"
	"the row does not fit and no change helps.\n"
	"--draft SOURCE: speculative decoding (llama.cpp -md): the draft's memory beside the target's and the\n"
	"expected decode speed-up from the draft/target cost ratio and the acceptance rate, with a band.\n"
	"--mtp: the same with the model's own multi-token-prediction layers (--spec-type draft-mtp).\n"
	"Exit 3 when target and drafter do not fit together.";

typedef struct plan_cfg {
	const char *model_id;
	const char *rig_id;
	const char *quant_id;
	const char *parallel;
	unsigned ctx;
	bool ctx_given;
	cr_estimate_opts opts;
	cr_kv_type kv_k, kv_v;
	cr_flash_attn fa;
	const char *revision;
	bool header_only, no_cache, offline;
	int sweep;                 /* -1 none, else a cr_sweep_kind */
	bool fixes;
	int engine;                /* --engine (with --fixes): a cr_engine */
	bool engine_given;
	const char *draft_id, *draft_quant;
	bool mtp;
	double draft_accept;
	bool draft_accept_given;
	unsigned draft_max;
	unsigned gpu_layers;
	bool gpu_layers_given;
	cli_format fmt;
	cli_globals g;
	cli_vision_cfg vis;        /* --images, --image-size, --mmproj, --mmproj-type, --no-mmproj-offload */
	cli_vision vision;
} plan_cfg;

static const cli_enum_name sweep_names[] = {
	{ "n-cpu-moe", CR_SWEEP_CPU_MOE }, { "gpu-layers", CR_SWEEP_GPU_LAYERS }, { NULL, 0 }
};

static const cli_opt_spec plan_opts[] = {
	{ CLI_O_MODEL(plan_cfg, model_id),
	  .help = "catalog id, GGUF path, http(s) URL, or hf:OWNER/REPO/FILE.gguf (required)" },
	{ .type = CLI_T_STRING, .name = "rig", .meta = "R", .off = offsetof(plan_cfg, rig_id), .flags = CLI_F_ONCE,
	  .required = "--rig is required (a rig id, a saved rig, 'local', or custom:...)",
	  .help = "rig id, saved rig, 'local' or custom:mem_gb=..,bw_gbs=.. (required)" },
	{ .type = CLI_T_STRING, .name = "quant", .meta = "Q", .off = offsetof(plan_cfg, quant_id), .flags = CLI_F_ONCE,
	  .help = "quantization preset of a catalog model (default Q4_K_M)" },
	{ .type = CLI_T_STRING, .name = "parallel", .meta = "N,N,...", .off = offsetof(plan_cfg, parallel),
	  .flags = CLI_F_ONCE, .help = "sequence counts, 1 to 4096, comma-separated (default 1,2,4,8,16,32)" },
	{ CLI_O_CTX(plan_cfg, ctx), .seen = CLI_AT(plan_cfg, ctx_given),
	  .help = "context shared by the sequences, tokens or Nk (default: 8192, or the model's maximum if smaller)" },
	{ CLI_O_DEPTH(plan_cfg, opts.depth),
	  .help = "tokens in each sequence's cache while decoding (default: its whole share, ctx / N)" },
	{ CLI_O_PROMPT_TOKENS(plan_cfg, opts.prompt_tokens),
	  .help = "prompt of one decision (default: 2048, or the context if smaller)" },
	{ CLI_O_KV_TYPE(plan_cfg, kv_k, kv_v), .help = "KV cache type: f16, q8_0, q4_0 (default f16)" },
	{ .type = CLI_T_UINT, .name = "ubatch", .meta = "N", .off = offsetof(plan_cfg, opts.n_ubatch), .lo = 1,
	  .hi = 65536, .help = "physical batch size, llama.cpp -ub (default 512)" },
	{ .type = CLI_T_FLAG, .name = "kv-unified", .off = offsetof(plan_cfg, opts.kv_unified),
	  .help = "one KV cache shared by the sequences (llama.cpp --kv-unified)" },
	{ CLI_O_GPU_LAYERS(plan_cfg, gpu_layers), .seen = CLI_AT(plan_cfg, gpu_layers_given) },
	{ CLI_O_CPU_MOE(plan_cfg, opts.cpu_moe) },
	{ CLI_O_N_CPU_MOE(plan_cfg, opts.n_cpu_moe) },
	{ .type = CLI_T_ENUM, .name = "sweep", .meta = "WHAT", .off = offsetof(plan_cfg, sweep), .names = sweep_names,
	  .help = "instead: every n-cpu-moe (MoE) or gpu-layers value with VRAM, largest context and decode; the least offload that fits --ctx" },
	{ .type = CLI_T_FLAG, .name = "fixes", .off = offsetof(plan_cfg, fixes),
	  .help = "instead: what to change to make the row fit with room to spare, each with its effect and llama.cpp command line" },
	{ .type = CLI_T_ENUM, .name = "engine", .meta = "E", .off = CLI_OFF_SIZED(plan_cfg, engine, sizeof(int)),
	  .names = cli_engine_names, .seen = CLI_AT(plan_cfg, engine_given),
	  .expect = "'llamacpp', 'llama-server', 'ollama' or 'lmstudio' (docs/engines.md)",
	  .help = "with --fixes: each change also names front-end E's setting: llamacpp, llama-server, ollama or lmstudio (the estimate keeps plan's defaults)" },
	{ .type = CLI_T_STRING, .name = "draft", .meta = "SOURCE", .off = offsetof(plan_cfg, draft_id), .flags = CLI_F_ONCE,
	  .help = "instead: speculative decoding with this draft model (catalog id or GGUF source), llama.cpp -md" },
	{ .type = CLI_T_STRING, .name = "draft-quant", .meta = "Q", .off = offsetof(plan_cfg, draft_quant), .flags = CLI_F_ONCE,
	  .help = "the draft's preset (catalog draft; default Q8_0)" },
	{ .type = CLI_T_FLAG, .name = "mtp", .off = offsetof(plan_cfg, mtp),
	  .help = "instead: speculative decoding with the model's own MTP layers, llama-server --spec-type draft-mtp" },
	{ .type = CLI_T_DOUBLE, .name = "draft-accept", .meta = "P", .off = offsetof(plan_cfg, draft_accept),
	  .seen = CLI_AT(plan_cfg, draft_accept_given), .lo = 0, .hi = 1,
	  .help = "llama-server's draft acceptance at K, accepted / drafted tokens (default: the rate a per-token alpha of 0.80 gives at K, 0.65 at K = 3)" },
	{ .type = CLI_T_UINT, .name = "draft-max", .meta = "K", .off = offsetof(plan_cfg, draft_max), .lo = 1, .hi = 256,
	  .help = "tokens drafted per step, llama-server --spec-draft-n-max (--draft-max before v0.4.0; default 3, llama.cpp v0.4.0's)" },
	{ CLI_O_FLASH_ATTN(plan_cfg, fa), .help = "on, off or auto (default auto, as llama.cpp resolves it)" },
	CLI_O_VISION(plan_cfg, vis),
	{ CLI_O_REVISION(plan_cfg, revision), .help = "Hugging Face revision for hf: sources (default main)" },
	{ CLI_O_HEADER_ONLY(plan_cfg, header_only), .help = "accept a GGUF file that holds the header only" },
	{ CLI_O_NO_CACHE(plan_cfg, no_cache), .help = "neither read nor write the header cache" },
	{ CLI_O_OFFLINE(plan_cfg, offline), .help = "use the header cache only, no network" },
	{ CLI_O_FORMAT(plan_cfg, fmt) },
	{ CLI_O_CATALOG(plan_cfg, g.catalog_dir), .help = CLI_HELP_CATALOG },
	CLI_SPEC_END,
};

static const cli_command plan_cmd = { .name = "clefrun plan", .usage = plan_usage, .summary = plan_summary,
				      .opts = plan_opts };

/* "1,2,4": whole numbers 1..4096, at most CR_PLAN_MAX_POINTS, increasing. */
static int parse_counts(const char *s, uint32_t *out, size_t *n)
{
	const char *p = s;

	*n = 0;
	for (;;) {
		char *end;
		unsigned long v;

		if (*p < '0' || *p > '9')
			goto bad;
		errno = 0;
		v = strtoul(p, &end, 10);
		if (errno || v < 1 || v > 4096)
			goto bad;
		if (*n >= CR_PLAN_MAX_POINTS) {
			fprintf(stderr, "clefrun plan: --parallel: at most %d counts\n", CR_PLAN_MAX_POINTS);
			return EXIT_USAGE;
		}
		if (*n && v <= out[*n - 1]) {
			fprintf(stderr, "clefrun plan: --parallel: counts must increase (%lu after %u)\n", v,
				out[*n - 1]);
			return EXIT_USAGE;
		}
		out[(*n)++] = (uint32_t)v;
		if (!*end)
			return 0;
		if (*end != ',')
			goto bad;
		p = end + 1;
	}
bad:
	fprintf(stderr, "clefrun plan: --parallel '%s': expected whole numbers 1 to 4096, comma-separated\n",
		cli_safe(s));
	return EXIT_USAGE;
}

static void fmt_s(char *buf, size_t cap, double s)
{
	if (!(s > 0))
		snprintf(buf, cap, "-");
	else if (s < 1)
		snprintf(buf, cap, "%.0f ms", s * 1e3);
	else
		snprintf(buf, cap, s < 10 ? "%.2f s" : "%.0f s", s);
}

static const char *bound_word(const cr_parallel_point *p)
{
	if (!(p->aggregate_tokens_per_s > 0))
		return "-";
	if (!(p->parts.compute_s > 0))
		return "bytes";
	return p->compute_bound ? "compute" : "bytes";
}

static int print_json(const plan_cfg *c, const cr_model *m, const char *label, const cr_rig *rig,
		      const cr_estimate_opts *o, const cr_parallel_point *pts, size_t n, uint32_t sat)
{
	cJSON *root = cJSON_CreateObject(), *arr, *sa;

	(void)c;
	cJSON_AddStringToObject(root, "schema", "clefrun.plan/1");
	cJSON_AddStringToObject(root, "model", m->id);
	cJSON_AddStringToObject(root, "quant", label);
	cJSON_AddStringToObject(root, "rig", rig->id);
	cJSON_AddNumberToObject(root, "context", o->n_ctx);
	cJSON_AddStringToObject(root, "kv_type_k", cr_kv_type_name(o->type_k));
	cJSON_AddStringToObject(root, "kv_type_v", cr_kv_type_name(o->type_v));
	cJSON_AddBoolToObject(root, "kv_unified", o->kv_unified);
	cJSON_AddNumberToObject(root, "batch_compute_factor", CR_PLAN_BATCH_COMPUTE);
	sa = cJSON_AddObjectToObject(root, "saturation");
	cJSON_AddNumberToObject(sa, "gain_per_doubling", CR_PLAN_SATURATION_GAIN);
	if (sat)
		cJSON_AddNumberToObject(sa, "n_seq", sat);
	else
		cJSON_AddNullToObject(sa, "n_seq");
	arr = cJSON_AddArrayToObject(root, "points");
	for (size_t i = 0; i < n; i++) {
		const cr_parallel_point *p = &pts[i];
		cJSON *x = cJSON_CreateObject(), *parts;

		cJSON_AddNumberToObject(x, "n_seq", p->n_seq);
		cJSON_AddNumberToObject(x, "context_per_seq", p->context_per_seq);
		cJSON_AddNumberToObject(x, "decode_depth", p->decode_depth);
		cJSON_AddBoolToObject(x, "fits", p->estimate.fits);
		if (p->estimate.max_context)
			cJSON_AddNumberToObject(x, "max_context", p->estimate.max_context);
		else
			cJSON_AddNullToObject(x, "max_context");
		cJSON_AddStringToObject(x, "tier", cr_tier_name(p->estimate.tier));
		cli_json_memory_add(x, &p->estimate.memory, true);
		cli_json_rate(x, "per_seq_tokens_per_s", p->per_seq_tokens_per_s, 100);
		cli_json_rate(x, "aggregate_tokens_per_s", p->aggregate_tokens_per_s, 100);
		cli_json_rate(x, "step_s", p->step_s, 1e6);
		cJSON_AddStringToObject(x, "bound", bound_word(p));
		cJSON_AddNumberToObject(x, "prompt_tokens", p->prompt_tokens);
		cli_json_rate(x, "prefill_tokens_per_s", p->prefill_tokens_per_s, 10);
		cli_json_rate(x, "decisions_per_s", p->decisions_per_s, 1000);
		cli_json_rate(x, "decision_latency_s", p->decision_latency_s, 1e4);
		parts = cJSON_AddObjectToObject(x, "step_parts");
		cli_json_rate(parts, "single_s", p->parts.single_s, 1e7);
		cJSON_AddNumberToObject(parts, "fixed_s", (double)(long long)(p->parts.fixed_s * 1e7 + 0.5) / 1e7);
		cJSON_AddNumberToObject(parts, "weights_s", (double)(long long)(p->parts.weights_s * 1e7 + 0.5) / 1e7);
		cJSON_AddNumberToObject(parts, "kv_s", (double)(long long)(p->parts.kv_s * 1e7 + 0.5) / 1e7);
		cJSON_AddNumberToObject(parts, "compute_s", (double)(long long)(p->parts.compute_s * 1e7 + 0.5) / 1e7);
		cJSON_AddNumberToObject(parts, "expert_share", (double)(long long)(p->parts.expert_share * 1e4 + 0.5) / 1e4);
		cJSON_AddNumberToObject(parts, "expert_union", (double)(long long)(p->parts.expert_union * 1e4 + 0.5) / 1e4);
		cJSON_AddItemToArray(arr, x);
	}
	if (c->vision.on)
		cJSON_AddItemToObject(root, "vision", cli_vision_json(&c->vision));
	if (cli_json_emit(root))
		return EXIT_ERROR;
	return EXIT_OK_;
}

static int render(const plan_cfg *c, const cr_model *m, const char *label, const cr_rig *rig,
		  const cr_estimate_opts *o, const cr_parallel_point *pts, size_t n, uint32_t sat)
{
	static const char *const hdr[] = { "SEQ", "CTX/SEQ", "MEMORY / USABLE", "FITS", "PER-SEQ t/s",
		"AGGREGATE t/s", "BOUND", "DECISIONS/s", "LATENCY" };
	static const bool right[] = { true, true, true, false, true, true, false, true, true };
	static const char *const csv_hdr[] = { "n_seq", "context_per_seq", "total_bytes",
		"available_bytes", "fits", "per_seq_tokens_per_s", "aggregate_tokens_per_s", "bound",
		"decisions_per_s", "decision_latency_s" };
	cli_table t;
	char ctxs[16];

	if (c->fmt == FMT_JSON)
		return print_json(c, m, label, rig, o, pts, n, sat);
	cli_table_init(&t, c->fmt == FMT_CSV ? 10 : 9, c->fmt == FMT_CSV ? csv_hdr : hdr,
		       c->fmt == FMT_CSV ? NULL : right);
	for (size_t i = 0; i < n; i++) {
		const cr_parallel_point *p = &pts[i];
		char v[10][64], used[24], avail[24];
		const char *cells[10];

		snprintf(v[0], 64, "%u", p->n_seq);
		if (c->fmt == FMT_CSV) {
			snprintf(v[1], 64, "%u", p->context_per_seq);
			snprintf(v[2], 64, "%llu", (unsigned long long)p->estimate.memory.total_bytes);
			snprintf(v[3], 64, "%llu", (unsigned long long)p->estimate.memory.available_bytes);
			snprintf(v[4], 64, "%s", p->estimate.fits ? "yes" : "no");
			snprintf(v[5], 64, "%.2f", p->per_seq_tokens_per_s);
			snprintf(v[6], 64, "%.2f", p->aggregate_tokens_per_s);
			snprintf(v[7], 64, "%s", bound_word(p));
			snprintf(v[8], 64, "%.3f", p->decisions_per_s);
			snprintf(v[9], 64, "%.4f", p->decision_latency_s);
			if (!(p->aggregate_tokens_per_s > 0))
				v[5][0] = v[6][0] = '\0';
			if (!(p->decisions_per_s > 0))
				v[8][0] = v[9][0] = '\0';
		} else {
			cli_fmt_ctx(v[1], 64, p->context_per_seq);
			cli_fmt_mem(used, sizeof(used), (double)p->estimate.memory.total_bytes);
			cli_fmt_mem(avail, sizeof(avail), (double)p->estimate.memory.available_bytes);
			snprintf(v[2], 64, "%s / %s", used, avail);
			snprintf(v[3], 64, "%s", p->estimate.fits ? "yes" : p->estimate.max_context ? "ctx" : "no");
			cli_fmt_rate(v[4], 64, p->per_seq_tokens_per_s);
			cli_fmt_rate(v[5], 64, p->aggregate_tokens_per_s);
			snprintf(v[6], 64, "%s", bound_word(p));
			if (p->decisions_per_s > 0)
				snprintf(v[7], 64, p->decisions_per_s < 10 ? "%.2f" : "%.0f", p->decisions_per_s);
			else
				snprintf(v[7], 64, "-");
			fmt_s(v[8], 64, p->decision_latency_s);
		}
		for (int k = 0; k < (c->fmt == FMT_CSV ? 10 : 9); k++)
			cells[k] = v[k];
		cli_table_add(&t, cells);
	}
	if (!cli_quiet() && c->fmt != FMT_CSV) {
		cli_fmt_ctx(ctxs, sizeof(ctxs), o->n_ctx);
		printf("%s%s %s on %s (%s)%s: %s context shared by the sequences, KV %s%s\n\n",
		       c->fmt == FMT_MARKDOWN ? "**" : "", cli_safe(m->id), cli_safe(label), cli_safe(rig->name),
		       cli_safe(rig->id), c->fmt == FMT_MARKDOWN ? "**" : "", ctxs, cr_kv_type_name(o->type_k),
		       o->kv_unified ? " (unified)" : "");
	}
	cli_table_render(&t, c->fmt, stdout);
	cli_table_free(&t);
	if (cli_quiet() || c->fmt == FMT_CSV)
		return EXIT_OK_;
	printf("\n");
	{
		bool any = false;
		uint32_t prompt = 0;

		for (size_t i = 0; i < n; i++) {
			any |= pts[i].aggregate_tokens_per_s > 0;
			if (pts[i].prompt_tokens)
				prompt = pts[i].prompt_tokens;
		}
		if (!any) {
			printf("No row fits at any context: no speed to plan (clefrun check --model %s --rig %s says why).\n",
			       cli_safe(m->id), cli_safe(rig->id));
			return EXIT_OK_;
		}
		if (sat)
			printf("Aggregate decode stops growing at %u sequences: doubling to %u gains less than 5 %%.\n",
			       sat, 2 * sat);
		else
			printf("Aggregate decode still gains 5 %% or more per doubling up to %u sequences.\n",
			       o->n_ctx / 256 < CR_PLAN_SATURATION_MAX ? (o->n_ctx / 256 ? o->n_ctx / 256 : 1)
							     : CR_PLAN_SATURATION_MAX);
		printf("Each sequence decodes with %s; DECISIONS/s: N prompts of %u tokens prefilled together,\n"
		       "LATENCY: one decision under that load. BOUND: what the step's time is mostly spent on\n"
		       "(docs/plans.md).\n",
		       o->depth == CR_DEPTH_CONTEXT ? "a full share of the context" : "--depth cached tokens", prompt);
	}
	return EXIT_OK_;
}

/* Rows shown of a sweep: all up to 17, else every k-th, the recommended one and the last. */
static bool sweep_shown(size_t i, size_t n, size_t rec)
{
	size_t step = n <= 17 ? 1 : (n + 15) / 16;

	return i % step == 0 || i == rec || i + 1 == n;
}

static void sweep_command(char *buf, size_t cap, const plan_cfg *c, const cr_estimate_opts *o,
			  const cr_sweep_point *p)
{
	snprintf(buf, cap, "llama-server -m MODEL.gguf -c %u%s%s%s%s%s %u", o->n_ctx,
		 o->type_k != CR_KV_F16 ? " -ctk " : "", o->type_k != CR_KV_F16 ? cr_kv_type_name(o->type_k) : "",
		 o->type_v != CR_KV_F16 ? " -ctv " : "", o->type_v != CR_KV_F16 ? cr_kv_type_name(o->type_v) : "",
		 c->sweep == CR_SWEEP_CPU_MOE ? " -ngl 99 --n-cpu-moe" : " -ngl", p->value);
}

static int render_sweep(const plan_cfg *c, const cr_model *m, const char *label, const cr_rig *rig,
			const cr_estimate_opts *o, const cr_sweep_point *pts, size_t n, size_t rec)
{
	static const char *const hdr[] = { "N", "VRAM", "SYSTEM RAM", "MAX CTX", "FITS", "DECODE t/s" };
	static const bool right[] = { true, true, true, true, false, true };
	static const char *const csv_hdr[] = { "value", "device_bytes", "host_bytes", "max_context", "fits",
		"decode_tokens_per_s" };
	const char *what = c->sweep == CR_SWEEP_CPU_MOE ? "n-cpu-moe" : "gpu-layers";
	char ctxs[16], cmdline[160];
	cli_table t;

	if (c->fmt == FMT_JSON) {
		cJSON *root = cJSON_CreateObject(), *arr;

		cJSON_AddStringToObject(root, "schema", "clefrun.plan-sweep/1");
		cJSON_AddStringToObject(root, "model", m->id);
		cJSON_AddStringToObject(root, "quant", label);
		cJSON_AddStringToObject(root, "rig", rig->id);
		cJSON_AddStringToObject(root, "sweep", what);
		cJSON_AddNumberToObject(root, "context", o->n_ctx);
		if (rec < n) {
			cJSON_AddNumberToObject(root, "recommended", pts[rec].value);
			sweep_command(cmdline, sizeof(cmdline), c, o, &pts[rec]);
			cJSON_AddStringToObject(root, "command", cmdline);
		} else {
			cJSON_AddNullToObject(root, "recommended");
			cJSON_AddNullToObject(root, "command");
		}
		arr = cJSON_AddArrayToObject(root, "points");
		for (size_t i = 0; i < n; i++) {
			const cr_estimate *e = &pts[i].estimate;
			cJSON *x = cJSON_CreateObject();

			cJSON_AddNumberToObject(x, "value", pts[i].value);
			cJSON_AddNumberToObject(x, "device_bytes", (double)e->memory.device_bytes);
			cJSON_AddNumberToObject(x, "host_bytes", (double)e->memory.host_bytes);
			if (e->max_context)
				cJSON_AddNumberToObject(x, "max_context", e->max_context);
			else
				cJSON_AddNullToObject(x, "max_context");
			cJSON_AddBoolToObject(x, "fits", e->fits);
			cli_json_rate(x, "decode_tokens_per_s", e->decode_tokens_per_s, 100);
			cJSON_AddItemToArray(arr, x);
		}
		if (c->vision.on)
			cJSON_AddItemToObject(root, "vision", cli_vision_json(&c->vision));
		if (cli_json_emit(root))
			return EXIT_ERROR;
		return rec < n ? EXIT_OK_ : EXIT_NOFIT;
	}
	cli_table_init(&t, 6, c->fmt == FMT_CSV ? csv_hdr : hdr, c->fmt == FMT_CSV ? NULL : right);
	for (size_t i = 0; i < n; i++) {
		const cr_estimate *e = &pts[i].estimate;
		char v[6][48];
		const char *cells[6];

		if (c->fmt != FMT_CSV && !sweep_shown(i, n, rec))
			continue;
		snprintf(v[0], 48, "%u", pts[i].value);
		if (c->fmt == FMT_CSV) {
			snprintf(v[1], 48, "%llu", (unsigned long long)e->memory.device_bytes);
			snprintf(v[2], 48, "%llu", (unsigned long long)e->memory.host_bytes);
			if (e->max_context)
				snprintf(v[3], 48, "%u", e->max_context);
			else
				v[3][0] = '\0';
			snprintf(v[5], 48, "%.2f", e->decode_tokens_per_s);
			if (!(e->decode_tokens_per_s > 0))
				v[5][0] = '\0';
		} else {
			cli_fmt_mem(v[1], 48, (double)e->memory.device_bytes);
			cli_fmt_mem(v[2], 48, (double)e->memory.host_bytes);
			if (e->max_context)
				cli_fmt_ctx(v[3], 48, e->max_context);
			else
				snprintf(v[3], 48, "-");
			cli_fmt_rate(v[5], 48, e->decode_tokens_per_s);
		}
		snprintf(v[4], 48, "%s%s", e->fits ? "yes" : "no", c->fmt != FMT_CSV && i == rec ? " <" : "");
		for (int k = 0; k < 6; k++)
			cells[k] = v[k];
		cli_table_add(&t, cells);
	}
	cli_fmt_ctx(ctxs, sizeof(ctxs), o->n_ctx);
	if (!cli_quiet() && c->fmt != FMT_CSV)
		printf("%s%s %s on %s (%s)%s: %s, %s context\n\n", c->fmt == FMT_MARKDOWN ? "**" : "",
		       cli_safe(m->id), cli_safe(label), cli_safe(rig->name), cli_safe(rig->id),
		       c->fmt == FMT_MARKDOWN ? "**" : "",
		       c->sweep == CR_SWEEP_CPU_MOE ? "experts of the first N layers in system RAM (--n-cpu-moe N)"
						    : "N layers on the GPUs, the rest in system RAM (-ngl N)",
		       ctxs);
	cli_table_render(&t, c->fmt, stdout);
	cli_table_free(&t);
	if (cli_quiet() || c->fmt == FMT_CSV)
		return rec < n ? EXIT_OK_ : EXIT_NOFIT;
	printf("\n");
	if (rec < n) {
		sweep_command(cmdline, sizeof(cmdline), c, o, &pts[rec]);
		printf("Recommended: --%s %u, the %s that fits a %s context (<):\n  %s\n", what, pts[rec].value,
		       c->sweep == CR_SWEEP_CPU_MOE ? "fewest layers' experts in system RAM"
						    : "most layers on the GPUs",
		       ctxs, cmdline);
	} else {
		printf("No setting fits the %s context.\n", ctxs);
	}
	if (n > 17)
		printf("One row in %zu shown, with the recommended one and the last (--format csv lists all %zu).\n",
		       (n + 15) / 16, n);
	return rec < n ? EXIT_OK_ : EXIT_NOFIT;
}

/* Under a text or Markdown table: the projector's line (vision_out.h). */
static void vision_note(const plan_cfg *c, int rc)
{
	if (c->vision.on && (rc == EXIT_OK_ || rc == EXIT_NOFIT) && !cli_quiet() &&
	    (c->fmt == FMT_TABLE || c->fmt == FMT_MARKDOWN)) {
		printf("\n");
		cli_vision_note(&c->vision, stdout);
	}
}

/* The llama-server command line of options @p o (with @p quant's file when the fix changes it). */
static void server_command(char *buf, size_t cap, const cr_model *m, const cr_estimate_opts *o,
			   const cr_quant *quant)
{
	char np[24] = "", ngl[24] = "", moe[32] = "", kv[48] = "";

	if (o->n_seq > 1)
		snprintf(np, sizeof(np), " -np %u", o->n_seq);
	if (o->gpu_layers >= 0)
		snprintf(ngl, sizeof(ngl), " -ngl %d", o->gpu_layers);
	if (o->cpu_moe)
		snprintf(moe, sizeof(moe), " --cpu-moe");
	else if (o->n_cpu_moe)
		snprintf(moe, sizeof(moe), " --n-cpu-moe %u", o->n_cpu_moe);
	if (o->type_k != CR_KV_F16 || o->type_v != CR_KV_F16)
		snprintf(kv, sizeof(kv), " -ctk %s -ctv %s -fa on", cr_kv_type_name(o->type_k),
			 cr_kv_type_name(o->type_v));
	snprintf(buf, cap, "llama-server -m %s%s%s.gguf -c %u%s%s%s%s%s%s%s", quant ? cli_safe(m->id) : "MODEL",
		 quant ? "-" : "", quant ? cli_safe(quant->id) : "", o->n_ctx, np, ngl, moe, kv,
		 o->kv_unified ? " --kv-unified" : "",
		 o->mmproj_device_bytes || o->mmproj_host_bytes ? " --mmproj MMPROJ.gguf" : "",
		 o->mmproj_host_bytes && !o->mmproj_device_bytes ? " --no-mmproj-offload" : "");
}

static void fix_change(char *buf, size_t cap, const cr_fix *f)
{
	char ctxs[16];

	cli_fmt_ctx(ctxs, sizeof(ctxs), f->opts.n_ctx);
	switch (f->kind) {
	case CR_FIX_KV_Q8:
	case CR_FIX_KV_Q4:
		snprintf(buf, cap, "--kv-type %s", cr_kv_type_name(f->opts.type_k));
		break;
	case CR_FIX_NO_MMPROJ_OFFLOAD:
		snprintf(buf, cap, "--no-mmproj-offload");
		break;
	case CR_FIX_N_CPU_MOE:
		snprintf(buf, cap, "--n-cpu-moe %u", f->opts.n_cpu_moe);
		break;
	case CR_FIX_GPU_LAYERS:
		snprintf(buf, cap, "--gpu-layers %d", f->opts.gpu_layers);
		break;
	case CR_FIX_QUANT:
		snprintf(buf, cap, "--quant %s", f->quant ? f->quant->id : "?");
		break;
	case CR_FIX_FEWER_SLOTS:
		snprintf(buf, cap, "--parallel %u --ctx %s", f->opts.n_seq, ctxs);
		break;
	default:
		snprintf(buf, cap, "--ctx %s", ctxs);
		break;
	}
}

/* The setting of front-end @p e that makes the change of @p f (docs/engines.md "Changes under
 * --engine": Ollama's variables and Modelfile parameters, LM Studio's load settings from
 * lmstudio-js LLMLoadModelConfig; "no setting" where the front-end has none that clefrun knows). */
static void fix_setting(char *buf, size_t cap, cr_engine e, const cr_model *m, const cr_fix *f)
{
	const cr_estimate_opts *o = &f->opts;
	uint32_t per = o->n_seq ? o->n_ctx / o->n_seq : o->n_ctx;
	const char *kv = cr_kv_type_name(o->type_k);

	if (e == CR_ENGINE_OLLAMA) {
		switch (f->kind) {
		case CR_FIX_KV_Q8:
		case CR_FIX_KV_Q4:
			snprintf(buf, cap, "OLLAMA_KV_CACHE_TYPE=%s OLLAMA_FLASH_ATTENTION=1", kv);
			break;
		case CR_FIX_QUANT:
			snprintf(buf, cap, "ollama pull MODEL:TAG (a %s tag)", f->quant ? f->quant->id : "?");
			break;
		case CR_FIX_FEWER_SLOTS:
			snprintf(buf, cap, "OLLAMA_NUM_PARALLEL=%u, PARAMETER num_ctx %u", o->n_seq, per);
			break;
		case CR_FIX_CONTEXT:
			if (o->n_seq > 1)
				snprintf(buf, cap, "OLLAMA_NUM_PARALLEL=%u, PARAMETER num_ctx %u", o->n_seq, per);
			else
				snprintf(buf, cap, "PARAMETER num_ctx %u", per);
			break;
		default: /* -ngl: Ollama passes none (llama-server's --fit places layers); --n-cpu-moe,
			  * --no-mmproj-offload: none known (docs/engines.md) */
			snprintf(buf, cap, "no Ollama setting");
			break;
		}
		return;
	}
	if (e == CR_ENGINE_LMSTUDIO) {
		switch (f->kind) {
		case CR_FIX_KV_Q8:
		case CR_FIX_KV_Q4:
			snprintf(buf, cap, "llamaKCacheQuantizationType=%s llamaVCacheQuantizationType=%s flashAttention=true", kv,
				 cr_kv_type_name(o->type_v));
			break;
		case CR_FIX_GPU_LAYERS:
			snprintf(buf, cap, "gpu.ratio=%.2f (%d of %u layers)",
				 m->n_layers ? (double)(o->gpu_layers < (int32_t)m->n_layers ? o->gpu_layers : (int32_t)m->n_layers) /
						       m->n_layers
					     : 0.0,
				 o->gpu_layers, m->n_layers);
			break;
		case CR_FIX_QUANT:
			snprintf(buf, cap, "load the %s file", f->quant ? f->quant->id : "?");
			break;
		case CR_FIX_CONTEXT:
			snprintf(buf, cap, "contextLength=%u", o->n_ctx);
			break;
		default:
			snprintf(buf, cap, "no LM Studio setting");
			break;
		}
		return;
	}
	/* llamacpp, llama-server: the flags of the change */
	switch (f->kind) {
	case CR_FIX_KV_Q8:
	case CR_FIX_KV_Q4:
		snprintf(buf, cap, "-ctk %s -ctv %s -fa on", kv, cr_kv_type_name(o->type_v));
		break;
	case CR_FIX_NO_MMPROJ_OFFLOAD:
		snprintf(buf, cap, "--no-mmproj-offload");
		break;
	case CR_FIX_N_CPU_MOE:
		snprintf(buf, cap, "--n-cpu-moe %u", o->n_cpu_moe);
		break;
	case CR_FIX_GPU_LAYERS:
		snprintf(buf, cap, "-ngl %d", o->gpu_layers);
		break;
	case CR_FIX_QUANT:
		snprintf(buf, cap, "-m %s-%s.gguf", cli_safe(m->id), f->quant ? cli_safe(f->quant->id) : "?");
		break;
	case CR_FIX_FEWER_SLOTS:
		snprintf(buf, cap, "-np %u -c %u", o->n_seq, o->n_ctx);
		break;
	default:
		snprintf(buf, cap, "-c %u", o->n_ctx);
		break;
	}
}

static int render_fixes(const plan_cfg *c, const cr_model *m, const char *label, const cr_rig *rig,
			const cr_estimate_opts *o, const cr_estimate *now, const cr_fix *fx, size_t n)
{
	/* With --engine a last column names the front-end's setting. */
	static const char *const hdr[] = { "CHANGE", "MEMORY / USABLE", "MAX CTX", "DECODE t/s", "COMMAND", "SETTING" };
	static const bool right[] = { false, true, true, true, false, false };
	static const char *const csv_hdr[] = { "kind", "change", "total_bytes", "available_bytes", "max_context",
		"decode_tokens_per_s", "command", "setting" };
	int extra = c->engine_given ? 1 : 0;
	char ctxs[16], used[24], avail[24], cmdline[256];
	bool csv = c->fmt == FMT_CSV;
	cli_table t;

	if (c->fmt == FMT_JSON) {
		cJSON *root = cJSON_CreateObject(), *arr, *cur;

		cJSON_AddStringToObject(root, "schema", "clefrun.plan-fixes/1");
		cJSON_AddStringToObject(root, "model", m->id);
		cJSON_AddStringToObject(root, "quant", label);
		cJSON_AddStringToObject(root, "rig", rig->id);
		cJSON_AddNumberToObject(root, "context", o->n_ctx);
		if (c->engine_given)
			cJSON_AddStringToObject(root, "engine", cr_engine_name((cr_engine)c->engine));
		cur = cJSON_AddObjectToObject(root, "current");
		cJSON_AddBoolToObject(cur, "fits", now->fits);
		cJSON_AddStringToObject(cur, "tier", cr_tier_name(now->tier));
		cJSON_AddNumberToObject(cur, "total_bytes", (double)now->memory.total_bytes);
		cJSON_AddNumberToObject(cur, "available_bytes", (double)now->memory.available_bytes);
		if (now->max_context)
			cJSON_AddNumberToObject(cur, "max_context", now->max_context);
		else
			cJSON_AddNullToObject(cur, "max_context");
		arr = cJSON_AddArrayToObject(root, "fixes");
		for (size_t i = 0; i < n; i++) {
			cJSON *x = cJSON_CreateObject();

			fix_change(cmdline, sizeof(cmdline), &fx[i]);
			cJSON_AddStringToObject(x, "kind", cr_fix_kind_name(fx[i].kind));
			cJSON_AddStringToObject(x, "change", cmdline);
			cJSON_AddNumberToObject(x, "total_bytes", (double)fx[i].estimate.memory.total_bytes);
			cJSON_AddNumberToObject(x, "device_bytes", (double)fx[i].estimate.memory.device_bytes);
			cJSON_AddNumberToObject(x, "available_bytes", (double)fx[i].estimate.memory.available_bytes);
			cJSON_AddNumberToObject(x, "max_context", fx[i].estimate.max_context);
			cli_json_rate(x, "decode_tokens_per_s", fx[i].estimate.decode_tokens_per_s, 100);
			cJSON_AddStringToObject(x, "tier", cr_tier_name(fx[i].estimate.tier));
			server_command(cmdline, sizeof(cmdline), m, &fx[i].opts, fx[i].quant);
			cJSON_AddStringToObject(x, "command", cmdline);
			if (c->engine_given) {
				fix_setting(cmdline, sizeof(cmdline), (cr_engine)c->engine, m, &fx[i]);
				cJSON_AddStringToObject(x, "setting", cmdline);
			}
			cJSON_AddItemToArray(arr, x);
		}
		if (c->vision.on)
			cJSON_AddItemToObject(root, "vision", cli_vision_json(&c->vision));
		if (cli_json_emit(root))
			return EXIT_ERROR;
		return now->fits || n ? EXIT_OK_ : EXIT_NOFIT;
	}
	cli_fmt_ctx(ctxs, sizeof(ctxs), o->n_ctx);
	cli_fmt_mem(used, sizeof(used), (double)now->memory.total_bytes);
	cli_fmt_mem(avail, sizeof(avail), (double)now->memory.available_bytes);
	if (!cli_quiet() && !csv) {
		printf("%s%s %s on %s (%s)%s at %s context: %s (%s of %s usable)\n\n",
		       c->fmt == FMT_MARKDOWN ? "**" : "", cli_safe(m->id), cli_safe(label), cli_safe(rig->name),
		       cli_safe(rig->id), c->fmt == FMT_MARKDOWN ? "**" : "", ctxs,
		       !now->fits ? "does not fit" : now->tier == CR_TIER_TIGHT ? "tight" : "fits with room to spare",
		       used, avail);
	}
	if (!n) {
		if (!csv)
			printf(now->fits && now->tier != CR_TIER_TIGHT ? "Nothing to change.\n"
								       : "No single change makes it fit.\n");
		else {
			cli_table_init(&t, 7 + extra, csv_hdr, NULL);
			cli_table_render(&t, c->fmt, stdout);
			cli_table_free(&t);
		}
		return now->fits ? EXIT_OK_ : EXIT_NOFIT;
	}
	cli_table_init(&t, (csv ? 7 : 5) + extra, csv ? csv_hdr : hdr, csv ? NULL : right);
	for (size_t i = 0; i < n; i++) {
		const cr_estimate *e = &fx[i].estimate;
		char v[8][256];
		const char *cells[8];

		fix_change(v[1], sizeof(v[1]), &fx[i]);
		server_command(v[6], sizeof(v[6]), m, &fx[i].opts, fx[i].quant);
		if (extra)
			fix_setting(v[7], sizeof(v[7]), (cr_engine)c->engine, m, &fx[i]);
		if (csv) {
			snprintf(v[0], sizeof(v[0]), "%s", cr_fix_kind_name(fx[i].kind));
			snprintf(v[2], sizeof(v[2]), "%llu", (unsigned long long)e->memory.total_bytes);
			snprintf(v[3], sizeof(v[3]), "%llu", (unsigned long long)e->memory.available_bytes);
			snprintf(v[4], sizeof(v[4]), "%u", e->max_context);
			snprintf(v[5], sizeof(v[5]), "%.2f", e->decode_tokens_per_s);
			for (int k = 0; k < 7 + extra; k++)
				cells[k] = v[k];
		} else {
			cli_fmt_mem(used, sizeof(used), (double)e->memory.total_bytes);
			cli_fmt_mem(avail, sizeof(avail), (double)e->memory.available_bytes);
			snprintf(v[2], sizeof(v[2]), "%s / %s", used, avail);
			cli_fmt_ctx(v[4], sizeof(v[4]), e->max_context);
			snprintf(v[5], sizeof(v[5]), "%s", "");
			cli_fmt_rate(v[5], sizeof(v[5]), e->decode_tokens_per_s);
			cells[0] = v[1];
			cells[1] = v[2];
			cells[2] = v[4];
			cells[3] = v[5];
			cells[4] = v[6];
			cells[5] = v[7];
		}
		cli_table_add(&t, cells);
	}
	cli_table_render(&t, c->fmt, stdout);
	cli_table_free(&t);
	if (!cli_quiet() && !csv)
		printf("\nCheapest first: what costs no quality or speed (q8_0 KV), then %sspeed (offload), then\n"
		       "quality (a smaller quant, q4_0 KV), then capability (fewer slots, a shorter context).\n"
		       "MODEL.gguf stands for the model's file%s (docs/plans.md).\n",
		       c->vision.on ? "image encoding only (the projector in RAM), then " : "",
		       c->vision.on ? ", MMPROJ.gguf the projector's" : "");
	return EXIT_OK_;
}

static int render_draft(const plan_cfg *c, const cr_model *m, const char *label, const cr_model *dm,
			const char *dlabel, const cr_rig *rig, const cr_estimate_opts *o, const cr_draft_plan *d)
{
	char used[24], avail[24], extra[24], a[16], b[16];
	bool ok = d->tokens_per_s > 0;

	if (c->fmt == FMT_JSON) {
		cJSON *root = cJSON_CreateObject();

		cJSON_AddStringToObject(root, "schema", "clefrun.plan-draft/2");
		cJSON_AddStringToObject(root, "model", m->id);
		cJSON_AddStringToObject(root, "quant", label);
		cJSON_AddBoolToObject(root, "mtp", d->mtp);
		if (dm) {
			cJSON_AddStringToObject(root, "draft", dm->id);
			cJSON_AddStringToObject(root, "draft_quant", dlabel);
		} else {
			cJSON_AddNullToObject(root, "draft");
			cJSON_AddNullToObject(root, "draft_quant");
		}
		cJSON_AddStringToObject(root, "rig", rig->id);
		cJSON_AddNumberToObject(root, "context", o->n_ctx);
		cJSON_AddNumberToObject(root, "draft_max", d->draft_max);
		cJSON_AddNumberToObject(root, "accept", (double)(long long)(d->accept * 1e4 + 0.5) / 1e4);
		cJSON_AddNumberToObject(root, "alpha", (double)(long long)(d->alpha * 1e4 + 0.5) / 1e4);
		cJSON_AddNumberToObject(root, "accept_low", (double)(long long)(d->accept_low * 1e4 + 0.5) / 1e4);
		cJSON_AddNumberToObject(root, "accept_high", (double)(long long)(d->accept_high * 1e4 + 0.5) / 1e4);
		cJSON_AddNumberToObject(root, "tokens_per_step", (double)(long long)(d->tokens_per_step * 1e4 + 0.5) / 1e4);
		cJSON_AddNumberToObject(root, "cost_ratio", (double)(long long)(d->cost_ratio * 1e4 + 0.5) / 1e4);
		cli_json_rate(root, "target_tokens_per_s", d->target.decode_tokens_per_s, 100);
		cli_json_rate(root, "tokens_per_s", d->tokens_per_s, 100);
		cli_json_rate(root, "speedup", d->speedup, 1000);
		cli_json_rate(root, "speedup_low", d->speedup_low, 1000);
		cli_json_rate(root, "speedup_high", d->speedup_high, 1000);
		cJSON_AddNumberToObject(root, "target_bytes", (double)d->target.memory.total_bytes);
		cJSON_AddNumberToObject(root, "draft_bytes", (double)d->extra_bytes);
		cJSON_AddNumberToObject(root, "available_bytes", (double)d->target.memory.available_bytes);
		cJSON_AddStringToObject(root, "tier", cr_tier_name(d->target.tier));
		/* Each context's terms, as check --format json prints them (bench/memory-truth
		 * compares them with llama.cpp's buffers). */
		cJSON_AddItemToObject(root, "target_memory", cli_json_memory(&d->target.memory, true));
		cJSON_AddItemToObject(root, "draft_memory", cli_json_memory(&d->draft.memory, true));
		cJSON_AddBoolToObject(root, "fits", d->fits);
		if (c->vision.on)
			cJSON_AddItemToObject(root, "vision", cli_vision_json(&c->vision));
		if (cli_json_emit(root))
			return EXIT_ERROR;
		return d->fits ? EXIT_OK_ : EXIT_NOFIT;
	}
	cli_fmt_mem(used, sizeof(used), (double)d->target.memory.total_bytes + (double)d->extra_bytes);
	cli_fmt_mem(avail, sizeof(avail), (double)d->target.memory.available_bytes);
	cli_fmt_mem(extra, sizeof(extra), (double)d->extra_bytes);
	if (dm)
		printf("%s %s with draft %s %s on %s (%s), %u-token context\n\n", cli_safe(m->id), cli_safe(label),
		       cli_safe(dm->id), cli_safe(dlabel), cli_safe(rig->name), cli_safe(rig->id), o->n_ctx);
	else
		printf("%s %s drafting with its %u MTP layer%s on %s (%s), %u-token context\n\n", cli_safe(m->id),
		       cli_safe(label), m->mtp_layers, m->mtp_layers == 1 ? "" : "s", cli_safe(rig->name),
		       cli_safe(rig->id), o->n_ctx);
	printf("  memory         %s / %s with the %s (%s for its %s): %s\n", used, avail, dm ? "draft" : "MTP context",
	       extra, dm ? "weights, KV and buffers" : "KV and buffers; the MTP weights are the model's",
	       d->fits ? "fits" : "does not fit");
	cli_fmt_rate(a, sizeof(a), d->target.decode_tokens_per_s);
	printf("  target alone   %s t/s decode\n", a);
	if (ok) {
		cli_fmt_rate(b, sizeof(b), d->tokens_per_s);
		printf("  with the %s %s t/s: %.2fx (%.2fx-%.2fx for acceptance %.2f-%.2f)\n", dm ? "draft" : "MTP  ", b,
		       d->speedup, d->speedup_low, d->speedup_high, d->accept_low, d->accept_high);
		printf("  per step       %u drafted, %.2f tokens expected at acceptance %.2f; a draft step costs %.3f of a target step\n",
		       d->draft_max, d->tokens_per_step, d->accept, d->cost_ratio);
	} else {
		printf("  with the %s -: the target or the %s does not fit\n", dm ? "draft" : "MTP  ",
		       dm ? "draft" : "MTP context");
	}
	/* llama.cpp v0.4.0 removed --draft-max (common/arg.cpp:4397, "use
	 * --spec-draft-n-max"), and -md alone enables no drafting: the type
	 * stays none unless --spec-type names one (common/arg.cpp:4259). */
	if (dm)
		printf("  llama-server -m MODEL.gguf -md DRAFT.gguf --spec-type draft-simple --spec-draft-n-max %u -c %u\n",
		       d->draft_max, o->n_ctx);
	else
		printf("  llama-server -m MODEL.gguf --spec-type draft-mtp --spec-draft-n-max %u -c %u\n", d->draft_max,
		       o->n_ctx);
	if (!cli_quiet())
		printf("\nAcceptance is llama-server's (accepted / drafted tokens): 1 + acceptance x K tokens per\n"
		       "step. A step is K %s steps, one target pass over K + 1 tokens and the %s pass over\n"
		       "the same K + 1 (docs/plans.md). A speed-up below 1 means the %s costs more than it saves.\n",
		       dm ? "draft" : "MTP", dm ? "draft's" : "MTP layer's", dm ? "draft" : "MTP head");
	return d->fits ? EXIT_OK_ : EXIT_NOFIT;
}

int cmd_plan(const cli_globals *g, int argc, char **argv)
{
	plan_cfg c;
	cr_catalog *cat = NULL;
	cli_model *cm = NULL;
	cr_rig scratch;
	const cr_rig *rig;
	cli_rig_origin origin;
	cli_source_opts so = CLI_SOURCE_OPTS_INIT;
	cr_estimate_request req = CR_ESTIMATE_REQUEST_INIT;
	cr_estimate_setup set;
	cr_error err = CR_ERROR_INIT;
	cr_weights w;
	char label[CR_ID_MAX];
	uint32_t counts[CR_PLAN_MAX_POINTS], sat = 0;
	cr_parallel_point *pts = NULL;
	size_t n = 0;
	int rc, s;
	static const cr_estimate_opts defaults = CR_ESTIMATE_OPTS_INIT;

	memset(&c, 0, sizeof(c));
	c.g = *g;
	c.opts = defaults;
	c.kv_k = c.kv_v = CR_KV_F16;
	c.fa = CR_FA_AUTO;
	c.sweep = -1;
	rc = cli_parse(&plan_cmd, argc, argv, &c);
	if (rc)
		return rc < 0 ? EXIT_OK_ : rc;
	if (c.engine_given && !c.fixes) {
		fprintf(stderr, "clefrun plan: --engine names each change's front-end setting and needs --fixes\n");
		return EXIT_USAGE;
	}
	if ((rc = parse_counts(c.parallel ? c.parallel : c.sweep >= 0 || c.fixes || c.draft_id || c.mtp ? "1" : "1,2,4,8,16,32", counts,
			       &n)))
		return rc;
	if (!(cat = cli_open_catalog(&c.g)))
		return EXIT_ERROR;
	rc = EXIT_USAGE;
	if (!(rig = cli_resolve_rig(cat, c.rig_id, &scratch, &origin)))
		goto out;
	cm = calloc(1, sizeof(*cm));
	pts = calloc(CR_PLAN_MAX_POINTS, sizeof(*pts));
	if (!cm || !pts) {
		fprintf(stderr, "clefrun: out of memory\n");
		rc = EXIT_ERROR;
		goto out;
	}
	so.revision = c.revision;
	so.command = "clefrun plan";
	so.allow_truncated = c.header_only;
	so.no_cache = c.no_cache;
	so.offline = c.offline;
	if ((rc = cli_resolve_model(cat, c.model_id, &so, cm)))
		goto out;
	rc = EXIT_USAGE;
	if (cm->from_gguf) {
		if (c.quant_id) {
			fprintf(stderr, "clefrun plan: --quant does not apply to a GGUF file, whose quantization is fixed\n");
			goto out;
		}
		cr_weights_exact(cm->weights_bytes, NULL, &w);
		w.mapped_extra_bytes = cm->mapped_extra_bytes;
		snprintf(label, sizeof(label), "%s", cm->file_type[0] ? cm->file_type : "GGUF");
	} else {
		const cr_quant *q = cli_find_quant(cat, c.quant_id ? c.quant_id : DEFAULT_QUANT);

		if (!q)
			goto out;
		cr_weights_preset(q, &w);
		snprintf(label, sizeof(label), "%s", q->id);
	}
	req.opts = c.opts;
	if (c.gpu_layers_given)
		req.opts.gpu_layers = (int32_t)c.gpu_layers;
	req.opts.type_k = c.kv_k;
	req.opts.type_v = c.kv_v;
	req.n_ctx = c.ctx_given ? c.ctx : 0;
	req.flash_attn = c.fa;
	cli_vision_hf_auto(&c.vis, c.model_id, &so);
	if ((rc = cli_vision_setup(&c.vis, "clefrun plan", &cm->model, &so, &c.vision)) ||
	    (rc = cli_vision_apply(&c.vision, "clefrun plan", &cm->model, &req)))
		goto out;
	rc = EXIT_USAGE;
	if ((s = cr_estimate_resolve_opts(&cm->model, rig, &req, &set, &err))) {
		cli_request_error(&set, &cm->model, s, &err);
		rc = cli_exit_for_status(s);
		goto out;
	}
	cli_vision_finish(&c.vision, &set.opts);
	/* Sequences decoding at once, a draft model, a sweep of decode speeds:
	 * nothing to plan for a model that generates no text; --fixes (what
	 * makes it fit) still applies (docs/decisions.md). */
	if (cm->model.task != CR_TASK_GENERATION && !c.fixes) {
		fprintf(stderr, "clefrun plan: %s is %s model: it generates no text, so there is no decode to plan "
				"(clefrun check gives its fit and prefill; plan --fixes what makes it fit)\n",
			cli_safe(cm->model.id), cm->model.task == CR_TASK_RERANK ? "a reranking" : "an embedding");
		goto out;
	}
	if (c.mtp) {
		cr_draft_plan dp;
		cr_weights tw = w;
		uint64_t mtp_bytes = cm->from_gguf ? cm->mtp_bytes : 0;

		if (n != 1 || c.sweep >= 0 || c.fixes || c.draft_id) {
			fprintf(stderr, "clefrun plan: --mtp takes one --parallel count and no --sweep, --fixes or --draft\n");
			goto out;
		}
		set.opts.n_seq = counts[0];
		/* The trunk without the MTP layers: their bytes go in apart. */
		if (cm->from_gguf && cm->mtp_in_weights && tw.kind == CR_WEIGHTS_EXACT && tw.bytes > mtp_bytes)
			tw.bytes -= mtp_bytes;
		s = cr_plan_mtp(&cm->model, &tw, rig, &set.opts, mtp_bytes, c.draft_max,
				c.draft_accept_given ? c.draft_accept : -1.0, &dp, &err);
		if (s) {
			cli_estimate_error(&err);
			rc = cli_exit_for_status(s);
		} else {
			rc = render_draft(&c, &cm->model, label, NULL, NULL, rig, &set.opts, &dp);
			vision_note(&c, rc);
		}
		goto out;
	}
	if (c.draft_id) {
		cli_model *dmod = calloc(1, sizeof(*dmod));
		cr_weights dw;
		cr_draft_plan dp;
		char dlabel[CR_ID_MAX];

		if (!dmod) {
			rc = EXIT_ERROR;
			goto out;
		}
		if (n != 1 || c.sweep >= 0 || c.fixes) {
			fprintf(stderr, "clefrun plan: --draft takes one --parallel count and no --sweep or --fixes\n");
			free(dmod);
			goto out;
		}
		set.opts.n_seq = counts[0];
		if ((rc = cli_resolve_model(cat, c.draft_id, &so, dmod))) {
			free(dmod);
			goto out;
		}
		rc = EXIT_USAGE;
		if (dmod->from_gguf) {
			cr_weights_exact(dmod->weights_bytes, NULL, &dw);
			dw.mapped_extra_bytes = dmod->mapped_extra_bytes;
			snprintf(dlabel, sizeof(dlabel), "%s", dmod->file_type[0] ? dmod->file_type : "GGUF");
		} else {
			const cr_quant *q = cli_find_quant(cat, c.draft_quant ? c.draft_quant : "Q8_0");

			if (!q) {
				free(dmod);
				goto out;
			}
			cr_weights_preset(q, &dw);
			snprintf(dlabel, sizeof(dlabel), "%s", q->id);
		}
		s = cr_plan_draft(&cm->model, &w, &dmod->model, &dw, rig, &set.opts, c.draft_max,
				  c.draft_accept_given ? c.draft_accept : -1.0, &dp, &err);
		if (s) {
			cli_estimate_error(&err);
			rc = cli_exit_for_status(s);
		} else {
			rc = render_draft(&c, &cm->model, label, &dmod->model, dlabel, rig, &set.opts, &dp);
			vision_note(&c, rc);
		}
		free(dmod);
		goto out;
	}
	if (c.fixes) {
		cr_fix fx[CR_FIX_COUNT];
		cr_estimate now;
		const cr_quant **qs = NULL;
		size_t nf = 0, nq = cr_catalog_quant_count(cat);

		if (n != 1 || c.sweep >= 0) {
			fprintf(stderr, "clefrun plan: --fixes takes one --parallel count and no --sweep\n");
			goto out;
		}
		set.opts.n_seq = counts[0];
		if (!(qs = calloc(nq + 1, sizeof(*qs)))) {
			fprintf(stderr, "clefrun: out of memory\n");
			rc = EXIT_ERROR;
			goto out;
		}
		for (size_t i = 0; i < nq; i++)
			qs[i] = cr_catalog_quant_at(cat, i);
		s = cr_plan_fixes(&cm->model, &w, rig, &set.opts, qs, nq, fx, CR_FIX_COUNT, &nf, &now, &err);
		free(qs);
		if (s) {
			cli_estimate_error(&err);
			rc = cli_exit_for_status(s);
		} else {
			rc = render_fixes(&c, &cm->model, label, rig, &set.opts, &now, fx, nf);
			vision_note(&c, rc);
		}
		goto out;
	}
	if (c.sweep >= 0) {
		cr_sweep_point *sw;
		size_t ns = 0, rec = SIZE_MAX;

		if (n != 1) {
			fprintf(stderr, "clefrun plan: --sweep takes one --parallel count (the sequences of every row)\n");
			goto out;
		}
		set.opts.n_seq = counts[0];
		if (!(sw = calloc(CR_PLAN_SWEEP_MAX, sizeof(*sw)))) {
			fprintf(stderr, "clefrun: out of memory\n");
			rc = EXIT_ERROR;
			goto out;
		}
		s = cr_plan_sweep(&cm->model, &w, rig, &set.opts, (cr_sweep_kind)c.sweep, sw, CR_PLAN_SWEEP_MAX, &ns,
				  &rec, &err);
		if (s) {
			cli_estimate_error(&err);
			rc = cli_exit_for_status(s);
		} else {
			rc = render_sweep(&c, &cm->model, label, rig, &set.opts, sw, ns, rec);
			vision_note(&c, rc);
		}
		free(sw);
		goto out;
	}
	if ((s = cr_plan_parallel(&cm->model, &w, rig, &set.opts, counts, n, pts, &err)) ||
	    (s = cr_plan_saturation(&cm->model, &w, rig, &set.opts, &sat, &err))) {
		cli_estimate_error(&err);
		rc = cli_exit_for_status(s);
		goto out;
	}
	rc = render(&c, &cm->model, label, rig, &set.opts, pts, n, sat);
	vision_note(&c, rc);
	for (size_t i = 0; rc == EXIT_OK_ && i < n; i++)
		if (!pts[i].estimate.fits)
			rc = EXIT_NOFIT;
out:
	free(pts);
	free(cm);
	cr_catalog_free(cat);
	return rc;
}
