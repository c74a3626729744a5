/*
 * clefrun inspect SOURCE: what a GGUF header says (architecture, parameters,
 * exact tensor bytes by type, the metadata that sizes memory) and the memory
 * it takes at --ctx (weights + KV cache + recurrent state, from the same
 * estimator functions check uses). hf:OWNER/REPO lists the repository's
 * GGUF files instead. JSON schema: "clefrun.inspect/1" (docs/gguf.md).
 */
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "estimate_out.h"
#include "source_model.h"

static const char inspect_usage[] =
	"clefrun inspect SOURCE [--ctx N] [--kv-type T] [--flash-attn MODE] [--ubatch N] [--parallel N]\n"
	"                       [--format F] [--revision R] [--header-only] [--no-cache | --offline]";
static const char inspect_summary[] =
	"Read a GGUF header: architecture, parameters, exact tensor bytes by type, the metadata\n"
	"that sizes memory, and the memory one GPU with room for everything holds at --ctx\n"
	"(weights + KV cache + state + compute buffer + runtime overhead; the figure\n"
	"'clefrun report' prints; host buffers apart). SOURCE is a path, an\n"
	"http(s) URL, hf:OWNER/REPO/FILE.gguf, hf:OWNER/REPO:QUANT, or hf:OWNER/REPO (lists\n"
	"the repository's GGUF files). HF_ENDPOINT, HF_TOKEN and HF_HOME are honoured, and\n"
	"the proxies of http_proxy, https_proxy and no_proxy. Remote headers are cached.";

typedef struct inspect_cfg {
	const char *source;
	unsigned ctx;
	bool ctx_given;
	cr_kv_type kv, kv_v;
	cr_flash_attn fa;
	cr_estimate_opts opts;  /* ubatch, parallel, swa_full, kv_unified */
	cli_format fmt;
	cli_source_opts so;
} inspect_cfg;

static const cli_opt_spec inspect_opts[] = {
	{ .type = CLI_T_ARG, .meta = "SOURCE", .off = offsetof(inspect_cfg, source),
	  .required = "a SOURCE is required (see --help)" },
	{ CLI_O_CTX(inspect_cfg, ctx), .seen = CLI_AT(inspect_cfg, ctx_given),
	  .help = "context for the memory breakdown, in tokens or Nk (k = 1024; default: 8192, or the model's maximum if smaller; a larger value is an error)" },
	{ CLI_O_KV_TYPE(inspect_cfg, kv, kv_v), .help = "KV cache type: f16, q8_0, q4_0 (default f16)" },
	{ CLI_O_KV_TYPE_K(inspect_cfg, kv) },
	{ CLI_O_KV_TYPE_V(inspect_cfg, kv_v) },
	{ CLI_O_FLASH_ATTN(inspect_cfg, fa), .help = "on, off or auto (default auto, resolved as llama.cpp does)" },
	CLI_O_MEMORY(inspect_cfg, opts),
	{ CLI_O_FORMAT(inspect_cfg, fmt) },
	{ CLI_O_REVISION(inspect_cfg, so.revision), .help = "Hugging Face revision: branch, tag or commit (default main)" },
	{ CLI_O_HEADER_ONLY(inspect_cfg, so.allow_truncated),
	  .help = "accept a file cut after its header (tensor data missing)" },
	{ CLI_O_NO_CACHE(inspect_cfg, so.no_cache),
	  .help = "neither read nor write the header cache ($XDG_CACHE_HOME/clefrun)" },
	{ CLI_O_OFFLINE(inspect_cfg, so.offline), .help = "read remote headers and lists from the cache only; no network" },
	{ CLI_O_OLLAMA_REGISTRY(inspect_cfg, so.ollama_registry) },
	CLI_SPEC_END,
};

static const cli_command inspect_cmd = {
	.name = "clefrun inspect", .usage = inspect_usage, .summary = inspect_summary, .opts = inspect_opts
};

static int parse_args(inspect_cfg *c, int argc, char **argv)
{
	return cli_parse(&inspect_cmd, argc, argv, c);
}

static int emit_json(cJSON *root)
{
	char *s = root ? cli_json_print(root) : NULL;

	cJSON_Delete(root);
	if (!s) {
		fprintf(stderr, "clefrun: out of memory\n");
		return EXIT_ERROR;
	}
	if (cli_puts_json(s)) {
		free(s);
		fprintf(stderr, "clefrun: out of memory\n");
		return EXIT_ERROR;
	}
	free(s);
	return EXIT_OK_;
}

static void fmt_bytes(char *buf, size_t cap, uint64_t b)
{
	if (b < (1u << 20))
		snprintf(buf, cap, "%.1f KiB", (double)b / 1024.0);
	else if (b < (1ull << 30))
		snprintf(buf, cap, "%.1f MiB", (double)b / 1048576.0);
	else
		cli_fmt_mem(buf, cap, (double)b);
}

/* ---- hf:OWNER/REPO: the file list -------------------------------------------- */

static int inspect_repo(const inspect_cfg *c)
{
	static const char *const hdr[] = { "FILE", "QUANT", "SIZE", "PARTS" };
	static const bool right[] = { false, false, true, true };
	cr_hf_entry *e;
	size_t n;
	cr_source_stats st = { 0, 0, 0 };
	int rc = cli_hf_list(c->source, &c->so, &e, &n, &st);
	cli_table t;

	if (rc)
		return rc;
	if (c->fmt == FMT_JSON) {
		cJSON *root = cJSON_CreateObject(), *files;

		cJSON_AddStringToObject(root, "schema", "clefrun.inspect/1");
		cJSON_AddStringToObject(root, "source", cli_url_shown(c->source));
		files = cJSON_AddArrayToObject(root, "files");
		for (size_t i = 0; i < n; i++) {
			cJSON *o = cJSON_CreateObject();

			cJSON_AddStringToObject(o, "path", e[i].path);
			if (e[i].quant[0])
				cJSON_AddStringToObject(o, "quant", e[i].quant);
			else
				cJSON_AddNullToObject(o, "quant");
			cJSON_AddNumberToObject(o, "bytes", (double)e[i].size);
			cJSON_AddNumberToObject(o, "parts", e[i].parts);
			cJSON_AddNumberToObject(o, "split_count", e[i].split_count);
			cJSON_AddBoolToObject(o, "projector", e[i].projector);
			cJSON_AddItemToArray(files, o);
		}
		free(e);
		return emit_json(root);
	}
	if (c->fmt == FMT_CSV) {
		static const char *const csv_hdr[] = { "path", "quant", "bytes", "parts", "split_count",
			"projector" };

		cli_table_init(&t, 6, csv_hdr, NULL);
		for (size_t i = 0; i < n; i++) {
			char v[3][32];
			const char *cells[6] = { e[i].path, e[i].quant, v[0], v[1], v[2],
				e[i].projector ? "true" : "false" };

			snprintf(v[0], sizeof(v[0]), "%" PRIu64, e[i].size);
			snprintf(v[1], sizeof(v[1]), "%u", e[i].parts);
			snprintf(v[2], sizeof(v[2]), "%u", e[i].split_count);
			cli_table_add(&t, cells);
		}
		cli_table_render(&t, FMT_CSV, stdout);
		cli_table_free(&t);
		free(e);
		return EXIT_OK_;
	}
	cli_table_init(&t, 4, hdr, right);
	for (size_t i = 0; i < n; i++) {
		char size[32], parts[32];
		const char *cells[4];

		fmt_bytes(size, sizeof(size), e[i].size);
		if (e[i].parts == e[i].split_count)
			snprintf(parts, sizeof(parts), "%u", e[i].parts);
		else
			snprintf(parts, sizeof(parts), "%u of %u", e[i].parts, e[i].split_count);
		cells[0] = e[i].path;
		cells[1] = e[i].projector ? "(projector)" : e[i].quant[0] ? e[i].quant : "-";
		cells[2] = size;
		cells[3] = parts;
		cli_table_add(&t, cells);
	}
	if (!cli_quiet())
		printf("%s: %zu GGUF file%s\n\n", cli_shown(c->source), n, n == 1 ? "" : "s");
	cli_table_render(&t, c->fmt, stdout);
	cli_table_free(&t);
	free(e);
	return EXIT_OK_;
}

/* ---- one model -------------------------------------------------------------------- */

/* Tensors and bytes by ggml type over all parts. */
typedef struct type_sum {
	uint64_t bytes, count, elements;
} type_sum;

static void sum_types(const cr_model_source *g, type_sum *ts)
{
	memset(ts, 0, sizeof(*ts) * CR_GGML_TYPE_COUNT);
	for (size_t p = 0; p < g->n_parts; p++)
		for (size_t i = 0; i < cr_gguf_tensor_count(g->parts[p]); i++) {
			const cr_gguf_tensor *t = cr_gguf_tensor_at(g->parts[p], i);

			ts[t->type].bytes += t->bytes;
			ts[t->type].count++;
			ts[t->type].elements += t->n_elements;
		}
}

typedef struct mem {
	uint32_t ctx;
	uint64_t weights;         /* the file's tensor bytes */
	cr_memory one;            /* the single-device figure: total = device */
	cr_kv_profile kv;         /* growth per token, window caps, state */
	bool flash_attn;
	char fa_why[160];
} mem;

/* The single-device figure (cr_curve_one_gpu_weights, the one `report`
 * prints): one GPU with room for everything, runtime overhead included,
 * host buffers apart, from the file's exact tensor bytes. The options come
 * from cr_estimate_resolve_opts (default context, range check, flash
 * attention for one GPU). Prints the library's error and returns an exit
 * code. */
static int memory_at(const cr_gguf_model *gm, const inspect_cfg *c, const type_sum *ts, mem *out)
{
	cr_estimate_request req = CR_ESTIMATE_REQUEST_INIT;
	cr_estimate_setup set;
	cr_weights w;
	cr_error err = CR_ERROR_INIT;
	const char *names[CR_GGML_TYPE_COUNT];
	uint64_t bytes[CR_GGML_TYPE_COUNT];
	char type[CR_ID_MAX];
	int rc;

	req.opts = c->opts;
	req.opts.type_k = c->kv;
	req.opts.type_v = c->kv_v;
	req.n_ctx = c->ctx_given ? c->ctx : 0;
	req.flash_attn = c->fa;
	if ((rc = cr_estimate_resolve_opts(&gm->model, NULL, &req, &set, &err))) {
		cli_request_error(&set, &gm->model, rc, &err);
		return cli_exit_for_status(rc);
	}
	out->ctx = set.opts.n_ctx;
	out->flash_attn = set.opts.flash_attn;
	snprintf(out->fa_why, sizeof(out->fa_why), "%s", set.flash_attn_reason);
	for (uint32_t t = 0; t < CR_GGML_TYPE_COUNT; t++) {
		names[t] = cr_ggml_type_name(t);
		bytes[t] = ts[t].bytes;
	}
	cr_estimate_weights_type(names, bytes, CR_GGML_TYPE_COUNT, type, sizeof(type));
	cr_weights_exact(gm->weights_bytes, type, &w);
	if ((rc = cr_curve_one_gpu_weights(&gm->model, &w, &set.opts, &out->one, &err)) ||
	    (rc = cr_estimate_kv_profile(&gm->model, &set.opts, &out->kv, &err))) {
		fprintf(stderr, "clefrun: %s\n", err.message);
		return cli_exit_for_status(rc);
	}
	out->weights = gm->weights_bytes;
	return CR_OK;
}

/* "F" full, "S" sliding, "L" linear/recurrent, "-" no KV: one letter a layer. */
static void layer_string(const cr_model *m, char *buf, size_t cap)
{
	size_t i;

	for (i = 0; i < m->n_layers && i + 1 < cap; i++) {
		char k = m->layer_kind[i] == CR_LAYER_SLIDING   ? 'S'
			 : m->layer_kind[i] == CR_LAYER_RECURRENT ? 'L'
								  : 'F';

		buf[i] = (k == 'F' && !m->kv_heads[i]) ? '-' : k;
	}
	buf[i] = '\0';
}

static bool kv_uniform(const cr_model *m, unsigned *value)
{
	unsigned v = 0;
	bool set = false;

	for (uint32_t i = 0; i < m->n_layers; i++) {
		if (m->layer_kind[i] == CR_LAYER_RECURRENT || !m->kv_heads[i])
			continue;
		if (set && m->kv_heads[i] != v)
			return false;
		v = m->kv_heads[i];
		set = true;
	}
	*value = v;
	return true;
}

/* Metadata shown as is: scalars, except long tokenizer and template text. */
static bool show_key(const char *key, cr_gguf_type t)
{
	return t != CR_GGUF_ARRAY && strncmp(key, "tokenizer.", 10) != 0 &&
	       strcmp(key, "general.alignment") != 0;
}

typedef struct rows {
	cli_table *t;
	bool csv;
} rows;

static void row(rows *r, const char *field, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void row(rows *r, const char *field, const char *fmt, ...)
{
	char value[1024];
	const char *cells[2];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(value, sizeof(value), fmt, ap);
	va_end(ap);
	cells[0] = field;
	cells[1] = value;
	cli_table_add(r->t, cells);
}

static size_t tensor_total(const cr_model_source *g)
{
	size_t n = 0;

	for (size_t p = 0; p < g->n_parts; p++)
		n += cr_gguf_tensor_count(g->parts[p]);
	return n;
}

static void model_rows(rows *r, const cr_model_source *g, const cr_gguf_model *gm, const mem *mm,
		       const inspect_cfg *c)
{
	const cr_model *m = &gm->model;
	char a[64], b[64], layers[CR_MAX_LAYERS + 1];
	unsigned kvu;

	row(r, "source", "%s", cli_url_shown(g->location));
	row(r, "gguf", "v%u, %zu part%s, %zu tensors, %zu metadata pairs, header %" PRIu64 " bytes",
	    cr_gguf_version(g->parts[0]), g->n_parts, g->n_parts == 1 ? "" : "s", tensor_total(g),
	    cr_gguf_kv_count(g->parts[0]), cr_gguf_data_offset(g->parts[0]));
	row(r, "name", "%s", m->name);
	row(r, "architecture", "%s%s", m->arch, gm->generic ? " (not known to clefrun: standard keys, full attention)" : "");
	if (gm->file_type[0])
		row(r, "file type", "%s", gm->file_type);
	cli_fmt_params(a, sizeof(a), m->params);
	cli_fmt_params(b, sizeof(b), m->active_params);
	row(r, "parameters", "%" PRIu64 " (%s)", m->params, a);
	if (m->active_params != m->params)
		row(r, "active parameters", "%" PRIu64 " (%s)", m->active_params, b);
	row(r, "context length", "%u", m->context_max);
	row(r, "layers", "%u (%u keep a KV cache)", m->n_layers, cr_model_kv_layers(m));
	layer_string(m, layers, sizeof(layers));
	row(r, "layer kinds", "%s", layers);
	row(r, "hidden size", "%u", m->hidden);
	row(r, "feed-forward size", "%u%s", m->ffn, m->experts_total ? " (one expert)" : "");
	row(r, "attention heads", "%u", m->n_heads);
	if (kv_uniform(m, &kvu)) {
		row(r, "KV heads", "%u", kvu);
	} else {
		char list[CR_MAX_LAYERS * 6 + 1];
		size_t k = 0;

		for (uint32_t i = 0; i < m->n_layers && k + 7 < sizeof(list); i++)
			k += (size_t)snprintf(list + k, sizeof(list) - k, "%s%u", i ? "," : "", m->kv_heads[i]);
		row(r, "KV heads", "per layer: %s", list);
	}
	row(r, "head size", "K %u, V %u", m->head_dim_k, m->head_dim_v);
	if (m->window)
		row(r, "sliding window", "%u tokens on %u of %u layers%s", m->window,
		    cr_model_count_layers(m, CR_LAYER_SLIDING), m->n_layers,
		    gm->swa_period ? "" : " (per-layer pattern)");
	if (gm->swa_period)
		row(r, "sliding-window period", "%u", gm->swa_period);
	if (cr_model_count_layers(m, CR_LAYER_RECURRENT) && m->mamba) {
		row(r, "Mamba-2 layers", "%u", cr_model_count_layers(m, CR_LAYER_RECURRENT));
		row(r, "Mamba-2 state", "d_state %u, %u groups, %u heads × %u, conv kernel %u", m->linear.k_head_dim,
		    m->linear.k_heads, m->linear.v_heads, m->linear.v_head_dim, m->linear.conv_kernel);
	} else if (cr_model_count_layers(m, CR_LAYER_RECURRENT)) {
		row(r, "linear-attention layers", "%u", cr_model_count_layers(m, CR_LAYER_RECURRENT));
		if (gm->full_attention_interval)
			row(r, "full-attention interval", "%u", gm->full_attention_interval);
		row(r, "recurrent state", "k %u × %u, v %u × %u, conv kernel %u", m->linear.k_heads,
		    m->linear.k_head_dim, m->linear.v_heads, m->linear.v_head_dim, m->linear.conv_kernel);
	}
	if (gm->nextn_layers) {
		uint32_t last = m->n_layers - 1;
		char mb[32];

		cli_fmt_mem(mb, sizeof(mb), (double)gm->mtp_bytes);
		/* llama.cpp v0.4.0: weights loaded only for --spec-type draft-mtp
		 * on the architectures that skip them (gguf.h mtp_bytes). */
		row(r, "MTP layers", "%u, %s of tensors (%s); KV cache %s; MTP drafting: clefrun plan --mtp",
		    gm->nextn_layers, mb,
		    gm->mtp_skipped ? "not loaded by llama.cpp without --spec-type draft-mtp, not counted"
			    : "loaded and counted",
		    m->kv_heads[last] ? "allocated (never read by the trunk)" : "none");
	}
	if (m->mla)
		row(r, "MLA", "kv_lora_rank %u, rope %u: one %u-wide K row per token and layer",
		    m->mla_kv_lora_rank, m->mla_rope_dim, m->mla_kv_lora_rank + m->mla_rope_dim);
	if (m->experts_total)
		row(r, "experts", "%u, %u used, %u shared", m->experts_total, m->experts_used, m->experts_shared);
	row(r, "vocabulary", "%u", m->vocab);
	row(r, "tied embeddings", "%s", m->tied_embeddings ? "yes" : "no");
	row(r, "file size", "%" PRIu64, g->file_bytes);
	row(r, "tensor bytes", "%" PRIu64, gm->weights_bytes);
	(void)mm;
	(void)c;
}

static cJSON *inspect_json(const inspect_cfg *c, const cr_model_source *g, const cr_gguf_model *gm,
			   const mem *mm, const type_sum *ts)
{
	const cr_model *m = &gm->model;
	cJSON *root = cJSON_CreateObject(), *o, *arr, *md;
	char layers[CR_MAX_LAYERS + 1];

	cJSON_AddStringToObject(root, "schema", "clefrun.inspect/1");
	cJSON_AddStringToObject(root, "source", cli_url_shown(c->source));
	cJSON_AddStringToObject(root, "location", cli_url_shown(g->location));
	o = cJSON_AddObjectToObject(root, "gguf");
	cJSON_AddNumberToObject(o, "version", cr_gguf_version(g->parts[0]));
	cJSON_AddNumberToObject(o, "parts", (double)g->n_parts);
	cJSON_AddNumberToObject(o, "tensor_count", (double)tensor_total(g));
	cJSON_AddNumberToObject(o, "kv_count", (double)cr_gguf_kv_count(g->parts[0]));
	cJSON_AddNumberToObject(o, "alignment", cr_gguf_alignment(g->parts[0]));
	cJSON_AddNumberToObject(o, "header_bytes", (double)cr_gguf_data_offset(g->parts[0]));
	cJSON_AddNumberToObject(o, "file_bytes", (double)g->file_bytes);

	o = cJSON_AddObjectToObject(root, "model");
	cJSON_AddStringToObject(o, "id", m->id);
	cJSON_AddStringToObject(o, "name", m->name);
	cJSON_AddStringToObject(o, "arch", m->arch);
	cJSON_AddBoolToObject(o, "generic", gm->generic);
	if (gm->file_type[0])
		cJSON_AddStringToObject(o, "file_type", gm->file_type);
	else
		cJSON_AddNullToObject(o, "file_type");
	cJSON_AddNumberToObject(o, "params", (double)m->params);
	cJSON_AddNumberToObject(o, "active_params", (double)m->active_params);
	cJSON_AddNumberToObject(o, "context_max", m->context_max);
	cJSON_AddNumberToObject(o, "layers", m->n_layers);
	cJSON_AddNumberToObject(o, "kv_layers", cr_model_kv_layers(m));
	layer_string(m, layers, sizeof(layers));
	cJSON_AddStringToObject(o, "layer_kinds", layers);
	cJSON_AddNumberToObject(o, "hidden", m->hidden);
	cJSON_AddNumberToObject(o, "ffn", m->ffn);
	cJSON_AddNumberToObject(o, "heads", m->n_heads);
	arr = cJSON_AddArrayToObject(o, "kv_heads");
	for (uint32_t i = 0; i < m->n_layers; i++)
		cJSON_AddItemToArray(arr, cJSON_CreateNumber(m->kv_heads[i]));
	cJSON_AddNumberToObject(o, "head_dim_k", m->head_dim_k);
	cJSON_AddNumberToObject(o, "head_dim_v", m->head_dim_v);
	cJSON_AddNumberToObject(o, "sliding_window", m->window);
	cJSON_AddNumberToObject(o, "swa_period", gm->swa_period);
	cJSON_AddNumberToObject(o, "full_attention_interval", gm->full_attention_interval);
	cJSON_AddNumberToObject(o, "nextn_layers", gm->nextn_layers);
	cJSON_AddNumberToObject(o, "nextn_bytes", (double)gm->mtp_bytes);
	cJSON_AddBoolToObject(o, "nextn_loaded", gm->nextn_layers && !gm->mtp_skipped);
	if (cr_model_count_layers(m, CR_LAYER_RECURRENT)) {
		cJSON *la = cJSON_AddObjectToObject(o, "linear_attention");

		cJSON_AddNumberToObject(la, "k_heads", m->linear.k_heads);
		cJSON_AddNumberToObject(la, "k_head_dim", m->linear.k_head_dim);
		cJSON_AddNumberToObject(la, "v_heads", m->linear.v_heads);
		cJSON_AddNumberToObject(la, "v_head_dim", m->linear.v_head_dim);
		cJSON_AddNumberToObject(la, "conv_kernel", m->linear.conv_kernel);
	} else {
		cJSON_AddNullToObject(o, "linear_attention");
	}
	if (m->mla) {
		cJSON *ml = cJSON_AddObjectToObject(o, "mla");

		cJSON_AddNumberToObject(ml, "kv_lora_rank", m->mla_kv_lora_rank);
		cJSON_AddNumberToObject(ml, "rope_dim", m->mla_rope_dim);
	} else {
		cJSON_AddNullToObject(o, "mla");
	}
	if (m->experts_total) {
		cJSON *ex = cJSON_AddObjectToObject(o, "experts");

		cJSON_AddNumberToObject(ex, "total", m->experts_total);
		cJSON_AddNumberToObject(ex, "used", m->experts_used);
		cJSON_AddNumberToObject(ex, "shared", m->experts_shared);
		cJSON_AddNumberToObject(ex, "params", (double)gm->expert_params);
	} else {
		cJSON_AddNullToObject(o, "experts");
	}
	cJSON_AddNumberToObject(o, "vocab", m->vocab);
	cJSON_AddBoolToObject(o, "tied_embeddings", m->tied_embeddings);

	o = cJSON_AddObjectToObject(root, "tensors");
	cJSON_AddNumberToObject(o, "bytes", (double)gm->weights_bytes);
	arr = cJSON_AddArrayToObject(o, "by_type");
	for (uint32_t t = 0; t < CR_GGML_TYPE_COUNT; t++) {
		cJSON *e;

		if (!ts[t].count)
			continue;
		e = cJSON_CreateObject();
		cJSON_AddStringToObject(e, "type", cr_ggml_type_name(t));
		cJSON_AddNumberToObject(e, "tensors", (double)ts[t].count);
		cJSON_AddNumberToObject(e, "elements", (double)ts[t].elements);
		cJSON_AddNumberToObject(e, "bytes", (double)ts[t].bytes);
		cJSON_AddItemToArray(arr, e);
	}

	/* The single-device memory: the shared breakdown (estimate_out.c), less
	 * the capacity of a rig that is only a yardstick, with the file's tensor
	 * bytes as weights_bytes (the tied output copy is in device_weights_bytes). */
	o = cJSON_AddObjectToObject(root, "memory");
	cJSON_AddNumberToObject(o, "context", mm->ctx);
	cJSON_AddStringToObject(o, "kv_type", cr_kv_type_name(c->kv));
	cJSON_AddStringToObject(o, "kv_type_v", cr_kv_type_name(c->kv_v));
	cJSON_AddBoolToObject(o, "flash_attn", mm->flash_attn);
	cJSON_AddStringToObject(o, "flash_attn_reason", mm->fa_why);
	cli_json_memory_add(o, &mm->one, false);
	cJSON_ReplaceItemInObjectCaseSensitive(o, "weights_bytes", cJSON_CreateNumber((double)mm->weights));
	cJSON_AddNumberToObject(o, "kv_bytes_per_token", (double)mm->kv.bytes_per_token);
	cJSON_AddNumberToObject(o, "device_weights_bytes", (double)mm->one.device_weights_bytes);

	md = cJSON_AddObjectToObject(root, "metadata");
	for (size_t i = 0; i < cr_gguf_kv_count(g->parts[0]); i++) {
		const char *key = cr_gguf_kv_key(g->parts[0], i);
		char v[256];

		if (!show_key(key, cr_gguf_kv_type(g->parts[0], i)))
			continue;
		cr_gguf_kv_format(g->parts[0], i, v, sizeof(v));
		cJSON_AddStringToObject(md, key, v);
	}
	if (g->remote) {
		o = cJSON_AddObjectToObject(root, "remote");
		cJSON_AddNumberToObject(o, "requests", (double)g->stats.requests);
		cJSON_AddNumberToObject(o, "bytes", (double)g->stats.bytes_fetched);
		cJSON_AddStringToObject(o, "cache", cli_source_cache_word(g));
	}
	return root;
}

static int print_json(const inspect_cfg *c, const cr_model_source *g, const cr_gguf_model *gm,
		      const mem *mm, const type_sum *ts)
{
	return emit_json(inspect_json(c, g, gm, mm, ts));
}

/* CSV: the JSON document flattened, one `field,value` row per scalar. A field is
 * the value's JSON path joined with '.' (array elements by index:
 * tensors.by_type.0.bytes); an array of numbers is one row, comma-joined; null is
 * an empty field. So the CSV names and units are the JSON ones (docs/gguf.md). */
static void csv_number(char *buf, size_t cap, double v)
{
	if (v == floor(v) && fabs(v) < 9007199254740992.0) /* 2^53: exact in a double */
		snprintf(buf, cap, "%.0f", v);
	else
		snprintf(buf, cap, "%.17g", v);
}

static void csv_flatten(cli_table *t, const cJSON *node, char *path, size_t len, size_t cap)
{
	char value[1024];
	const char *cells[2] = { path, value };
	size_t used = 0;
	int i = 0;

	value[0] = '\0';
	if (cJSON_IsObject(node) || (cJSON_IsArray(node) && node->child && !cJSON_IsNumber(node->child))) {
		for (const cJSON *ch = node->child; ch; ch = ch->next, i++) {
			int n = cJSON_IsObject(node) ? snprintf(path + len, cap - len, "%s%s", len ? "." : "", ch->string)
						     : snprintf(path + len, cap - len, "%s%d", len ? "." : "", i);

			if (n > 0 && (size_t)n < cap - len)
				csv_flatten(t, ch, path, len + (size_t)n, cap);
		}
		path[len] = '\0';
		return;
	}
	if (cJSON_IsArray(node)) {
		for (const cJSON *ch = node->child; ch && used + 32 < sizeof(value); ch = ch->next) {
			if (ch != node->child)
				value[used++] = ',';
			csv_number(value + used, sizeof(value) - used, ch->valuedouble);
			used += strlen(value + used);
		}
	} else if (cJSON_IsNumber(node)) {
		csv_number(value, sizeof(value), node->valuedouble);
	} else if (cJSON_IsString(node)) {
		snprintf(value, sizeof(value), "%s", node->valuestring);
	} else if (cJSON_IsBool(node)) {
		snprintf(value, sizeof(value), "%s", cJSON_IsTrue(node) ? "true" : "false");
	}
	cli_table_add(t, cells);
}

static int print_csv(const inspect_cfg *c, const cr_model_source *g, const cr_gguf_model *gm,
		     const mem *mm, const type_sum *ts)
{
	static const char *const hdr[] = { "field", "value" };
	cJSON *root = inspect_json(c, g, gm, mm, ts);
	char path[512] = "";
	cli_table t;

	if (!root) {
		fprintf(stderr, "clefrun: out of memory\n");
		return EXIT_ERROR;
	}
	cli_table_init(&t, 2, hdr, NULL);
	for (const cJSON *ch = root->child; ch; ch = ch->next) {
		int n = snprintf(path, sizeof(path), "%s", ch->string);

		if (strcmp(ch->string, "schema") != 0 && n > 0 && (size_t)n < sizeof(path))
			csv_flatten(&t, ch, path, (size_t)n, sizeof(path));
	}
	cli_table_render(&t, FMT_CSV, stdout);
	cli_table_free(&t);
	cJSON_Delete(root);
	return EXIT_OK_;
}

/* One row of the memory table: what, how many bytes, a note. */
static void mem_row(cli_table *t, const char *what, uint64_t bytes, const char *note)
{
	char x[64];
	const char *cells[3] = { what, x, note };

	fmt_bytes(x, sizeof(x), bytes);
	cli_table_add(t, cells);
}

static int print_text(const inspect_cfg *c, const cr_model_source *g, const cr_gguf_model *gm,
		      const mem *mm, const type_sum *ts)
{
	static const char *const kv_hdr[] = { "FIELD", "VALUE" };
	static const char *const ty_hdr[] = { "TYPE", "TENSORS", "BYTES", "SHARE" };
	static const bool ty_right[] = { false, true, true, true };
	static const char *const mem_hdr[] = { "MEMORY", "BYTES", "" };
	static const bool mem_right[] = { false, true, true };
	cli_table t;
	rows r = { &t, false };
	char x[64];

	cli_table_init(&t, 2, kv_hdr, NULL);
	model_rows(&r, g, gm, mm, c);
	if (c->fmt == FMT_MARKDOWN && !cli_quiet())
		printf("## %s\n\n", cli_safe(gm->model.name));
	cli_table_render(&t, c->fmt, stdout);
	cli_table_free(&t);

	printf("\n");
	cli_table_init(&t, 4, ty_hdr, ty_right);
	for (uint32_t k = 0; k < CR_GGML_TYPE_COUNT; k++) {
		char n[24], share[16];
		const char *cells[4];

		if (!ts[k].count)
			continue;
		snprintf(n, sizeof(n), "%" PRIu64, ts[k].count);
		fmt_bytes(x, sizeof(x), ts[k].bytes);
		snprintf(share, sizeof(share), "%.1f%%",
			 gm->weights_bytes ? 100.0 * (double)ts[k].bytes / (double)gm->weights_bytes : 0.0);
		cells[0] = cr_ggml_type_name(k);
		cells[1] = n;
		cells[2] = x;
		cells[3] = share;
		cli_table_add(&t, cells);
	}
	cli_table_render(&t, c->fmt, stdout);
	cli_table_free(&t);

	if (cli_quiet())
		printf("\n");
	else
		printf("\nMemory at a context of %u tokens, KV %s, %u sequence(s), on one GPU with room for\n"
		       "everything, as 'clefrun report' counts it (llama.cpp; %s).\n"
		       "A rig's own split and limits: see 'clefrun check --model %s'.\n\n",
		       mm->ctx, cr_kv_type_name(c->kv), c->opts.n_seq, mm->fa_why, cli_shown(c->source));
	cli_table_init(&t, 3, mem_hdr, mem_right);
	{
		char pt[64];

		snprintf(pt, sizeof(pt), "%.1f KiB per token", (double)mm->kv.bytes_per_token / 1024.0);
		mem_row(&t, "weights", mm->weights, "exact tensor bytes");
		mem_row(&t, "  on the GPU", mm->one.device_weights_bytes,
			gm->model.tied_embeddings ? "token embeddings on the host; tied: output copy on the GPU"
						  : "less the token embeddings, kept on the host");
		mem_row(&t, "KV cache", mm->one.kv_bytes, pt);
		if (mm->one.state_bytes)
			mem_row(&t, "recurrent state", mm->one.state_bytes, "fixed, per sequence");
		mem_row(&t, "compute buffer", mm->one.compute_bytes, "one GPU");
		mem_row(&t, "runtime overhead", mm->one.overhead_bytes, "CUDA context and driver");
		mem_row(&t, "total (one GPU)", mm->one.device_bytes, "what the GPU holds");
		mem_row(&t, "host", mm->one.host_bytes, "token embeddings + logits, not in the total");
	}
	cli_table_render(&t, c->fmt, stdout);
	cli_table_free(&t);
	if (!g->remote || cli_quiet())
		return EXIT_OK_;
	if (!g->stats.requests)
		printf("\nHeader from the cache: no HTTP request.\n");
	else if (!g->cache_misses && g->cache_revalidated)
		printf("\nHeader from the cache, confirmed by the server: %" PRIu64 " HTTP request%s, %" PRIu64
		       " bytes.\n", g->stats.requests, g->stats.requests == 1 ? "" : "s", g->stats.bytes_fetched);
	else
		printf("\nRead %" PRIu64 " bytes in %" PRIu64 " HTTP request%s.\n", g->stats.bytes_fetched,
		       g->stats.requests, g->stats.requests == 1 ? "" : "s");
	return EXIT_OK_;
}

int cmd_inspect(const cli_globals *g0, int argc, char **argv)
{
	inspect_cfg c;
	cr_model_source *g = NULL;
	const cr_gguf_model *gm;
	cr_error err = CR_ERROR_INIT;
	type_sum ts[CR_GGML_TYPE_COUNT];
	mem mm;
	int rc;

	(void)g0;
	memset(&c, 0, sizeof(c));
	c.kv = c.kv_v = CR_KV_F16;
	c.fa = CR_FA_AUTO;
	{
		cr_estimate_opts init = CR_ESTIMATE_OPTS_INIT;

		c.opts = init;
	}
	rc = parse_args(&c, argc, argv);
	if (rc)
		return rc < 0 ? EXIT_OK_ : rc;
	if (cr_model_source_classify(c.source) == CR_MODEL_SOURCE_CATALOG) {
		fprintf(stderr,
			"clefrun inspect: '%s' is not a GGUF source (a path, an http(s) URL or hf:OWNER/REPO...); catalog models: 'clefrun models'\n",
			cli_shown(c.source));
		return EXIT_USAGE;
	}
	if (cr_model_source_classify(c.source) == CR_MODEL_SOURCE_HF) {
		cr_hf_ref ref;

		if (cr_hf_parse(c.source, &ref, &err) == CR_OK && ref.kind == CR_HF_REPO)
			return inspect_repo(&c);
	}
	if ((rc = cli_source_open(c.source, &c.so, &g)))
		return rc;
	gm = &g->gguf;
	sum_types(g, ts);
	if ((rc = memory_at(gm, &c, ts, &mm)))
		goto out;
	rc = c.fmt == FMT_JSON  ? print_json(&c, g, gm, &mm, ts)
	     : c.fmt == FMT_CSV ? print_csv(&c, g, gm, &mm, ts)
				: print_text(&c, g, gm, &mm, ts);
out:
	cr_model_source_free(g);
	return rc;
}
