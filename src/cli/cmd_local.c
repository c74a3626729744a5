/*
 * The models on this machine (clefrun/local.h): `models --local` lists them
 * from Ollama's store, the Hugging Face hub cache, LM Studio's models folder
 * and --path folders; `fit --local` runs each on one rig. This file passes
 * the library the directories from the environment (OLLAMA_MODELS,
 * HF_HUB_CACHE, HUGGINGFACE_HUB_CACHE, HF_HOME, XDG_CACHE_HOME, HOME) and
 * formats; reading and mapping are the library's.
 */
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "cli.h"
#include "estimate_out.h"
#include "local_models.h"

static char hub_buf[4096], ollama_buf[4096], lms_buf[2][4096];

/* The stores where their programs put them (docs/stores.md). */
static void scan_opts(const cli_local_cfg *c, cr_local_scan_opts *o)
{
	cr_local_scan_opts d = CR_LOCAL_SCAN_OPTS_INIT;
	const char *home = getenv("HOME"), *h = getenv("HF_HUB_CACHE");
	const char *lms[2];
	size_t nl;

	*o = d;
	if (!h || !*h)
		h = getenv("HUGGINGFACE_HUB_CACHE");
	if (!cr_model_source_hf_hub_dir(h, getenv("HF_HOME"), getenv("XDG_CACHE_HOME"), home, hub_buf, sizeof(hub_buf),
					NULL))
		o->hf_hub_dir = hub_buf;
	if (!cr_model_source_ollama_dir(getenv("OLLAMA_MODELS"), home, ollama_buf, sizeof(ollama_buf), NULL))
		o->ollama_dir = ollama_buf;
	nl = cr_local_lmstudio_dirs(home, lms_buf, lms);
	for (size_t i = 0; i < nl; i++)
		o->lmstudio_dirs[o->n_lmstudio++] = lms[i];
	for (int i = 0; i < c->n_paths && i < CR_LOCAL_MAX_DIRS; i++)
		o->paths[o->n_paths++] = c->paths[i];
	o->allow_truncated = c->header_only;
}

int cli_local_scan(const cli_local_cfg *c, cr_local_model **out, size_t *n)
{
	cr_local_scan_opts o;
	cr_error err = CR_ERROR_INIT;
	bool truncated = false;

	scan_opts(c, &o);
	if (cr_local_scan(&o, out, n, &truncated, &err)) {
		fprintf(stderr, "clefrun: %s\n", cli_safe(err.message));
		return EXIT_ERROR;
	}
	if (truncated)
		fprintf(stderr, "clefrun: warning: more than %d models found: the first %d are listed\n",
			CR_LOCAL_MAX_MODELS, CR_LOCAL_MAX_MODELS);
	return 0;
}

static void where_line(const cli_local_cfg *c)
{
	cr_local_scan_opts o;

	scan_opts(c, &o);
	printf("Looked in: Ollama %s, Hugging Face hub cache %s", o.ollama_dir ? cli_safe(o.ollama_dir) : "(no HOME)",
	       o.hf_hub_dir ? cli_safe(o.hf_hub_dir) : "(no HOME)");
	for (size_t i = 0; i < o.n_lmstudio; i++)
		printf(", LM Studio %s", cli_safe(o.lmstudio_dirs[i]));
	for (size_t i = 0; i < o.n_paths; i++)
		printf(", %s", cli_safe(o.paths[i]));
	printf(".\n");
}

static int emit(cJSON *root)
{
	if (cli_json_emit(root))
		return EXIT_ERROR;
	return EXIT_OK_;
}

int cli_models_local(const cli_local_cfg *c)
{
	static const char *const hdr[] = { "SOURCE", "STORE", "SIZE", "ARCH", "PARAMS", "QUANT", "CONTEXT", "STATUS" };
	static const char *const csv_hdr[] = { "source", "store", "file_bytes", "arch", "params", "file_type",
					       "context_max", "error" };
	static const bool right[] = { false, false, true, false, true, false, true, false };
	cr_local_model *v = NULL;
	size_t n = 0, bad = 0;
	int rc = cli_local_scan(c, &v, &n);
	cli_table t;

	if (rc)
		return rc;
	if (c->fmt == FMT_JSON) {
		cJSON *root = cJSON_CreateObject(), *arr;

		cJSON_AddStringToObject(root, "schema", "clefrun.models-local/1");
		arr = cJSON_AddArrayToObject(root, "models");
		for (size_t i = 0; i < n; i++) {
			const cr_local_model *e = &v[i];
			cJSON *o = cJSON_CreateObject();

			cJSON_AddStringToObject(o, "source", e->source);
			cJSON_AddStringToObject(o, "store", cr_local_store_name(e->store));
			cJSON_AddStringToObject(o, "path", e->path);
			if (e->status) {
				cJSON_AddStringToObject(o, "error", e->error);
				cJSON_AddItemToArray(arr, o);
				continue;
			}
			cJSON_AddNullToObject(o, "error");
			cJSON_AddNumberToObject(o, "file_bytes", (double)e->file_bytes);
			cJSON_AddNumberToObject(o, "parts", e->parts);
			cJSON_AddStringToObject(o, "arch", e->arch);
			cJSON_AddStringToObject(o, "name", e->name);
			cJSON_AddStringToObject(o, "file_type", e->file_type);
			cJSON_AddNumberToObject(o, "params", (double)e->params);
			cJSON_AddNumberToObject(o, "context_max", e->context_max);
			if (e->ollama_num_ctx)
				cJSON_AddNumberToObject(o, "ollama_num_ctx", e->ollama_num_ctx);
			cJSON_AddItemToArray(arr, o);
		}
		free(v);
		return emit(root);
	}
	cli_table_init(&t, 8, c->fmt == FMT_CSV ? csv_hdr : hdr, right);
	for (size_t i = 0; i < n; i++) {
		const cr_local_model *e = &v[i];
		char size[32], params[32], ctx[32];
		const char *cells[8];

		if (c->fmt == FMT_CSV) {
			snprintf(size, sizeof(size), "%llu", (unsigned long long)e->file_bytes);
			snprintf(params, sizeof(params), "%llu", (unsigned long long)e->params);
			snprintf(ctx, sizeof(ctx), "%u", e->context_max);
		} else {
			cli_fmt_mem(size, sizeof(size), (double)e->file_bytes);
			cli_fmt_params(params, sizeof(params), e->params);
			cli_fmt_ctx(ctx, sizeof(ctx), e->context_max);
		}
		cells[0] = e->source;
		cells[1] = cr_local_store_name(e->store);
		cells[2] = e->status ? "-" : size;
		cells[3] = e->status ? "-" : e->arch;
		cells[4] = e->status ? "-" : params;
		cells[5] = e->status ? "-" : e->file_type[0] ? e->file_type : "?";
		cells[6] = e->status ? "-" : ctx;
		cells[7] = e->status ? e->error : c->fmt == FMT_CSV ? "" : "ok";
		if (c->fmt == FMT_CSV && e->status)
			cells[2] = cells[3] = cells[4] = cells[5] = cells[6] = "";
		bad += e->status != 0;
		cli_table_add(&t, cells);
	}
	if (n || c->fmt == FMT_CSV)
		cli_table_render(&t, c->fmt, stdout);
	else
		printf("No GGUF model found on this machine.\n");
	cli_table_free(&t);
	if (c->fmt != FMT_CSV && !cli_quiet()) {
		printf("\n%zu model%s", n, n == 1 ? "" : "s");
		if (bad)
			printf(", %zu unreadable (STATUS says why)", bad);
		printf(". ");
		where_line(c);
		for (size_t i = 0; i < n; i++)
			if (!v[i].status) {
				printf("Give a SOURCE to --model: clefrun check --model %s\n", cli_safe(v[i].source));
				break;
			}
	}
	free(v);
	return EXIT_OK_;
}

/* ---- fit --local ------------------------------------------------------------------------ */

typedef struct fit_row {
	const cr_local_model *e;
	cr_model model;
	cr_estimate est;
	char fa_why[160];
	unsigned ctx;
	bool ctx_from_ollama;
	int status;               /* 0, or why there is no estimate */
	char error[CR_ERROR_MSG_MAX];
} fit_row;

static int fit_order(const void *a, const void *b)
{
	const fit_row *x = a, *y = b;

	if (!!x->status != !!y->status)
		return x->status ? 1 : -1;
	if (!x->status && x->est.tier != y->est.tier)
		return (int)x->est.tier - (int)y->est.tier;
	if (!x->status && x->model.params != y->model.params)
		return x->model.params > y->model.params ? -1 : 1;
	return strcmp(x->e->source, y->e->source);
}

static void estimate_one(const cli_local_cfg *c, const cr_rig *rig, fit_row *r)
{
	cr_model_source_opts mo = CR_MODEL_SOURCE_OPTS_INIT;
	cr_model_source *m = NULL;
	cr_estimate_request req = CR_ESTIMATE_REQUEST_INIT;
	cr_estimate_setup set;
	cr_weights w;
	cr_error err = CR_ERROR_INIT;
	int rc;

	if (r->e->status) {
		r->status = r->e->status;
		snprintf(r->error, sizeof(r->error), "%s", r->e->error);
		return;
	}
	mo.allow_truncated = c->header_only;
	mo.cache = CR_MODEL_SOURCE_CACHE_OFFLINE; /* on disk: no request */
	mo.ollama_dir = ollama_buf[0] ? ollama_buf : NULL;
	rc = cr_model_source_resolve(r->e->store == CR_LOCAL_OLLAMA ? r->e->source : r->e->path, &mo, &m, &err);
	if (rc) {
		r->status = rc;
		snprintf(r->error, sizeof(r->error), "%s", err.message);
		return;
	}
	r->model = m->model;
	req.opts.type_k = req.opts.type_v = c->kv;
	req.flash_attn = c->fa;
	req.opts.workload = c->workload;
	req.n_ctx = c->ctx;
	if (!c->ctx && m->ollama.params.num_ctx) {
		/* The context Ollama runs it with (docs/stores.md). */
		req.n_ctx = m->model.context_max && m->ollama.params.num_ctx > m->model.context_max ? m->model.context_max
												     : m->ollama.params.num_ctx;
		r->ctx_from_ollama = true;
	}
	if (c->ctx && m->model.context_max && c->ctx > m->model.context_max) {
		r->status = CR_ERR_RANGE;
		snprintf(r->error, sizeof(r->error), "--ctx %u is above the model's maximum context %u", c->ctx,
			 m->model.context_max);
		cr_model_source_free(m);
		return;
	}
	cr_weights_exact(m->weights_bytes, NULL, &w);
	rc = cr_estimate_resolve_opts(&r->model, rig, &req, &set, &err);
	if (!rc)
		rc = cr_estimate_run_weights(&r->model, &w, rig, &set.opts, &r->est, &err);
	if (rc) {
		r->status = rc;
		snprintf(r->error, sizeof(r->error), "%s", err.message);
	} else {
		r->ctx = set.opts.n_ctx;
		snprintf(r->fa_why, sizeof(r->fa_why), "%s", set.flash_attn_reason);
	}
	cr_model_source_free(m);
}

int cli_fit_local(const cli_local_cfg *c, const cr_rig *rig, cli_rig_origin origin)
{
	static const char *const hdr[] = { "#", "SOURCE", "PARAMS", "QUANT", "CONTEXT", "MEMORY / USABLE", "MAX CTX",
					   "DECODE t/s", "TIER" };
	static const bool right[] = { true, false, true, false, true, true, true, true, false };
	static const char *const csv_hdr[] = { "rank", "source", "store", "params", "file_type", "context",
					       "total_bytes", "available_bytes", "max_context", "decode_tokens_per_s",
					       "tier", "error" };
	cr_local_model *v = NULL;
	fit_row *rows;
	size_t n = 0, reach = 0, bad = 0;
	int rc = cli_local_scan(c, &v, &n);
	cli_table t;

	if (rc)
		return rc;
	rows = calloc(n ? n : 1, sizeof(*rows));
	if (!rows) {
		free(v);
		fprintf(stderr, "clefrun: out of memory\n");
		return EXIT_ERROR;
	}
	for (size_t i = 0; i < n; i++) {
		rows[i].e = &v[i];
		estimate_one(c, rig, &rows[i]);
		reach += !rows[i].status && rows[i].est.tier <= c->require;
		bad += rows[i].status != 0;
	}
	qsort(rows, n, sizeof(*rows), fit_order);
	if (c->fmt == FMT_JSON) {
		cJSON *root = cJSON_CreateObject(), *ro, *arr;

		cJSON_AddStringToObject(root, "schema", "clefrun.fit-local/1");
		ro = cJSON_AddObjectToObject(root, "rig");
		cJSON_AddStringToObject(ro, "id", rig->id);
		cJSON_AddStringToObject(ro, "name", rig->name);
		cJSON_AddStringToObject(ro, "origin", cli_rig_origin_name(origin));
		cJSON_AddNumberToObject(ro, "memory_bytes", (double)cr_rig_memory_bytes(rig));
		cJSON_AddStringToObject(root, "require", cr_tier_name(c->require));
		cJSON_AddNumberToObject(root, "reaching", (double)reach);
		arr = cJSON_AddArrayToObject(root, "results");
		for (size_t i = 0; i < n; i++) {
			const fit_row *r = &rows[i];
			cJSON *o = cJSON_CreateObject();

			cJSON_AddStringToObject(o, "source", r->e->source);
			cJSON_AddStringToObject(o, "store", cr_local_store_name(r->e->store));
			cJSON_AddStringToObject(o, "path", r->e->path);
			if (r->status) {
				cJSON_AddStringToObject(o, "error", r->error);
				cJSON_AddItemToArray(arr, o);
				continue;
			}
			cJSON_AddNullToObject(o, "error");
			cJSON_AddStringToObject(o, "arch", r->e->arch);
			cJSON_AddStringToObject(o, "file_type", r->e->file_type);
			cJSON_AddNumberToObject(o, "params", (double)r->model.params);
			cJSON_AddStringToObject(o, "context_from", r->ctx_from_ollama ? "ollama-params" : c->ctx ? "ctx" : "default");
			cli_json_estimate(o, rig, &r->est, r->fa_why, NULL);
			cJSON_AddBoolToObject(o, "reaches_require", r->est.tier <= c->require);
			cJSON_AddItemToArray(arr, o);
		}
		free(rows);
		free(v);
		rc = emit(root);
		return rc ? rc : reach ? EXIT_OK_ : EXIT_NOFIT;
	}
	cli_table_init(&t, c->fmt == FMT_CSV ? 12 : 9, c->fmt == FMT_CSV ? csv_hdr : hdr, right);
	for (size_t i = 0, k = 0; i < n; i++) {
		const fit_row *r = &rows[i];
		const cr_estimate *e = &r->est;
		char rank[16] = "-", params[32], ctx[32], used[24], avail[24], mem[56], maxc[16], rate[16], dec[20];
		const char *cells[12];

		if (!r->status && e->tier <= c->require)
			snprintf(rank, sizeof(rank), "%zu", ++k);
		if (c->fmt == FMT_CSV) {
			char tot[24], av[24], mx[16], d[24];

			if (rank[0] == '-')
				rank[0] = '\0';
			snprintf(params, sizeof(params), "%llu", (unsigned long long)r->model.params);
			snprintf(ctx, sizeof(ctx), "%u", r->ctx);
			snprintf(tot, sizeof(tot), "%llu", (unsigned long long)e->memory.total_bytes);
			snprintf(av, sizeof(av), "%llu", (unsigned long long)e->memory.available_bytes);
			snprintf(mx, sizeof(mx), "%u", e->max_context);
			snprintf(d, sizeof(d), "%.2f", e->decode_tokens_per_s);
			cells[0] = rank;
			cells[1] = r->e->source;
			cells[2] = cr_local_store_name(r->e->store);
			cells[3] = r->status ? "" : params;
			cells[4] = r->status ? "" : r->e->file_type;
			cells[5] = r->status ? "" : ctx;
			cells[6] = r->status ? "" : tot;
			cells[7] = r->status ? "" : av;
			cells[8] = r->status || !e->max_context ? "" : mx;
			cells[9] = r->status || e->decode_tokens_per_s <= 0 ? "" : d;
			cells[10] = r->status ? "" : cr_tier_name(e->tier);
			cells[11] = r->status ? r->error : "";
			cli_table_add(&t, cells);
			continue;
		}
		cli_fmt_params(params, sizeof(params), r->model.params);
		cli_fmt_ctx(ctx, sizeof(ctx), r->ctx);
		if (r->ctx_from_ollama) {
			size_t l = strlen(ctx);

			snprintf(ctx + l, sizeof(ctx) - l, "*");
		}
		cli_fmt_mem(used, sizeof(used), (double)e->memory.total_bytes);
		cli_fmt_mem(avail, sizeof(avail), (double)e->memory.available_bytes);
		snprintf(mem, sizeof(mem), "%s / %s", used, avail);
		cli_fmt_ctx(maxc, sizeof(maxc), e->max_context);
		cli_fmt_rate(rate, sizeof(rate), e->decode_tokens_per_s);
		snprintf(dec, sizeof(dec), "%s%s", e->decode_note[0] && e->decode_tokens_per_s > 0 ? "~" : "", rate);
		cells[0] = rank;
		cells[1] = r->e->source;
		cells[2] = r->status ? "-" : params;
		cells[3] = r->status ? "-" : r->e->file_type[0] ? r->e->file_type : "?";
		cells[4] = r->status ? "-" : ctx;
		cells[5] = r->status ? "-" : mem;
		cells[6] = r->status || !e->max_context ? "-" : maxc;
		cells[7] = r->status ? "-" : dec;
		cells[8] = r->status ? "error" : cr_tier_name(e->tier);
		cli_table_add(&t, cells);
	}
	if (!cli_quiet() && c->fmt != FMT_CSV)
		printf("%s%s (%s)%s: the models on this machine, best tier first\n\n", c->fmt == FMT_MARKDOWN ? "**" : "",
		       cli_safe(rig->name), cli_safe(rig->id), c->fmt == FMT_MARKDOWN ? "**" : "");
	if (n || c->fmt == FMT_CSV)
		cli_table_render(&t, c->fmt, stdout);
	else
		printf("No GGUF model found on this machine.\n");
	cli_table_free(&t);
	if (!cli_quiet() && c->fmt != FMT_CSV) {
		printf("\n%zu of %zu model%s reach \"%s\".", reach, n, n == 1 ? "" : "s", cr_tier_name(c->require));
		if (bad)
			printf(" %zu could not be estimated:", bad);
		printf("\n");
		for (size_t i = 0; i < n; i++)
			if (rows[i].status && strstr(rows[i].error, rows[i].e->source))
				printf("  %s\n", cli_safe(rows[i].error)); /* the message names the file */
			else if (rows[i].status)
				printf("  %s: %s\n", cli_safe(rows[i].e->source), cli_safe(rows[i].error));
		printf("CONTEXT: --ctx, else 8k (or the model's maximum if smaller); * the model's Ollama num_ctx.\n");
		where_line(c);
	}
	free(rows);
	free(v);
	return reach ? EXIT_OK_ : EXIT_NOFIT;
}
