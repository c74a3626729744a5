/*
 * clefrun check --engine vllm: what vLLM's start-up leaves for the KV cache
 * per rig, its blocks, tokens and maximum concurrency, and whether vLLM
 * starts at all (cr_vllm_estimate, vllm.h; docs/vllm.md). cmd_check hands
 * its argv here when --engine vllm is given; the options are vLLM's own
 * flags.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "source_model.h"

#define VLLM_MAX_RIGS 16

static const char vllm_usage[] = "clefrun check --engine vllm --model SOURCE [--rig R]... [options]";
static const char vllm_summary[] =
	"vLLM's start-up on each rig: weights per GPU, the profile run's memory, the KV cache left in GiB, blocks "
	"and tokens, the maximum concurrency at --max-model-len, and whether vLLM starts. SOURCE is a catalog id "
	"(weights: parameters x 2 bytes unless --weights-gib), a directory with config.json and safetensors, or "
	"hf:OWNER/REPO (config.json and the safetensors headers only). Speed is not modelled for vLLM.";

typedef struct vllm_cfg {
	const char *model_id;
	const char *rig_ids[VLLM_MAX_RIGS];
	int n_rigs;
	const char *engine;
	const char *revision;
	bool no_cache, offline;
	double util;
	unsigned max_model_len;
	unsigned max_num_seqs;
	unsigned max_num_batched_tokens;
	int kv_dtype;
	unsigned tp;
	bool enforce_eager;
	bool no_prefix_caching;
	double kv_gib;
	double weights_gib;
	cli_format fmt;
	cli_globals g;
} vllm_cfg;

static const cli_enum_name kv_dtype_names[] = {
	{ "auto", CR_VLLM_KV_AUTO },   { "fp8", CR_VLLM_KV_FP8 },       { "fp8_e4m3", CR_VLLM_KV_FP8 },
	{ "fp8_e5m2", CR_VLLM_KV_FP8 }, { "bfloat16", CR_VLLM_KV_BF16 }, { "float16", CR_VLLM_KV_BF16 },
	{ "half", CR_VLLM_KV_BF16 },   { "float32", CR_VLLM_KV_FP32 },  { NULL, 0 }
};

static const cli_opt_spec vllm_opts[] = {
	{ CLI_O_MODEL(vllm_cfg, model_id),
	  .help = "catalog id, a directory with config.json and *.safetensors, or hf:OWNER/REPO (required)" },
	{ CLI_O_REVISION(vllm_cfg, revision), .help = "Hugging Face revision for hf: sources (default main)" },
	{ CLI_O_NO_CACHE(vllm_cfg, no_cache),
	  .help = "neither read nor write the header cache of hf: checkpoints (config.json, the index, shard headers)" },
	{ CLI_O_OFFLINE(vllm_cfg, offline), .help = "hf: checkpoints from the header cache only; no network" },
	{ CLI_O_RIGS(vllm_cfg, rig_ids, n_rigs),
	  .help = "rig id or custom:... spec; its first device group is the GPU; repeatable (default: h100-sxm)" },
	{ .type = CLI_T_STRING, .name = "engine", .meta = "E", .off = CLI_OFF_SIZED(vllm_cfg, engine, sizeof(char *)),
	  .help = "vllm (this page); llamacpp is the default engine of check" },
	{ .type = CLI_T_DOUBLE, .name = "gpu-memory-utilization", .meta = "F",
	  .off = CLI_OFF_SIZED(vllm_cfg, util, sizeof(double)), .lo = 0.01, .hi = 1.0,
	  .help = "share of each GPU's memory vLLM may use (default 0.9)" },
	{ .type = CLI_T_TOKENS, .name = "max-model-len", .meta = "N",
	  .off = CLI_OFF_SIZED(vllm_cfg, max_model_len, sizeof(unsigned)), .lo = 1, .hi = 16777216,
	  .help = "tokens per request, N or Nk (default: the model's max_position_embeddings)" },
	{ .type = CLI_T_UINT, .name = "max-num-seqs", .meta = "N",
	  .off = CLI_OFF_SIZED(vllm_cfg, max_num_seqs, sizeof(unsigned)), .lo = 1, .hi = 65536,
	  .help = "sequences per step (default: 1024 on a GPU of 70 GiB or more that is no A100, else 256)" },
	{ .type = CLI_T_TOKENS, .name = "max-num-batched-tokens", .meta = "N",
	  .off = CLI_OFF_SIZED(vllm_cfg, max_num_batched_tokens, sizeof(unsigned)), .lo = 1, .hi = 1048576,
	  .help = "tokens per step, the profile run's size (default: 8192 on those GPUs, else 2048)" },
	{ .type = CLI_T_ENUM, .name = "kv-cache-dtype", .meta = "T",
	  .off = CLI_OFF_SIZED(vllm_cfg, kv_dtype, sizeof(int)), .names = kv_dtype_names,
	  .help = "auto (the model's dtype), fp8, fp8_e4m3, fp8_e5m2, bfloat16, float16, float32" },
	{ .type = CLI_T_UINT, .name = "tensor-parallel-size", .meta = "N",
	  .off = CLI_OFF_SIZED(vllm_cfg, tp, sizeof(unsigned)), .lo = 1, .hi = 64,
	  .help = "GPUs the model is split over (default 1)" },
	{ .type = CLI_T_FLAG, .name = "enforce-eager", .off = CLI_OFF_SIZED(vllm_cfg, enforce_eager, sizeof(bool)),
	  .help = "no CUDA graphs (their memory is not reserved)" },
	{ .type = CLI_T_FLAG, .name = "no-enable-prefix-caching",
	  .off = CLI_OFF_SIZED(vllm_cfg, no_prefix_caching, sizeof(bool)),
	  .help = "no prefix caching: one recurrent state per request instead of two (hybrid models)" },
	{ .type = CLI_T_DOUBLE, .name = "kv-cache-memory-gib", .meta = "G",
	  .off = CLI_OFF_SIZED(vllm_cfg, kv_gib, sizeof(double)), .lo = 0.001, .hi = 1e6,
	  .help = "give the KV cache exactly G GiB per GPU, as vLLM's --kv-cache-memory-bytes does (no profile)" },
	{ .type = CLI_T_DOUBLE, .name = "weights-gib", .meta = "G",
	  .off = CLI_OFF_SIZED(vllm_cfg, weights_gib, sizeof(double)), .lo = 0.001, .hi = 1e6,
	  .help = "weights per GPU in GiB, as vLLM's \"Model loading took\" line states them (instead of the model's)" },
	{ CLI_O_FORMAT(vllm_cfg, fmt) },
	{ CLI_O_CATALOG(vllm_cfg, g.catalog_dir), .help = CLI_HELP_CATALOG },
	CLI_SPEC_END,
};

static const cli_command vllm_cmd = {
	.name = "clefrun check", .usage = vllm_usage, .summary = vllm_summary, .opts = vllm_opts
};

typedef struct vrow {
	const cr_rig *rig;
	cr_vllm_result r;
} vrow;

static int print_json(const vllm_cfg *c, const cr_model *m, const char *location, uint64_t weights, const vrow *rows,
		      int n)
{
	cJSON *root = cJSON_CreateObject(), *arr;

	cJSON_AddStringToObject(root, "schema", "clefrun.check-vllm/1");
	cJSON_AddStringToObject(root, "engine", "vllm");
	cJSON_AddStringToObject(root, "model", m->id);
	cJSON_AddStringToObject(root, "architecture", m->arch);
	if (location && *location)
		cJSON_AddStringToObject(root, "location", cli_url_shown(location));
	cJSON_AddNumberToObject(root, "weights_bytes", (double)weights);
	cJSON_AddStringToObject(root, "speed", "not modelled for vLLM");
	arr = cJSON_AddArrayToObject(root, "rows");
	for (int i = 0; i < n; i++) {
		const cr_vllm_result *r = &rows[i].r;
		cJSON *o = cJSON_CreateObject();

		cJSON_AddStringToObject(o, "rig", rows[i].rig->id);
		cJSON_AddNumberToObject(o, "tensor_parallel_size", r->tensor_parallel_size);
		cJSON_AddNumberToObject(o, "gpu_memory_utilization", c->util);
		cJSON_AddNumberToObject(o, "max_model_len", r->max_model_len);
		cJSON_AddNumberToObject(o, "max_num_seqs", r->max_num_seqs);
		cJSON_AddNumberToObject(o, "max_num_batched_tokens", r->max_num_batched_tokens);
		cJSON_AddNumberToObject(o, "total_gib", r->total_gib);
		cJSON_AddNumberToObject(o, "requested_gib", r->requested_gib);
		cJSON_AddNumberToObject(o, "weights_gib", r->weights_gib);
		cJSON_AddNumberToObject(o, "non_torch_gib", r->non_torch_gib);
		cJSON_AddNumberToObject(o, "activation_gib", r->activation_gib);
		cJSON_AddNumberToObject(o, "activation_forward_gib", r->activation_forward_gib);
		cJSON_AddNumberToObject(o, "activation_sampler_gib", r->activation_sampler_gib);
		cJSON_AddNumberToObject(o, "sampler_bytes_per_vocab", r->sampler_bytes_per_vocab);
		cJSON_AddNumberToObject(o, "cuda_graph_gib", r->cuda_graph_gib);
		cJSON_AddNumberToObject(o, "kv_cache_gib", r->kv_gib);
		cJSON_AddNumberToObject(o, "block_size", r->block_size);
		cJSON_AddNumberToObject(o, "page_bytes", (double)r->page_bytes);
		cJSON_AddNumberToObject(o, "kv_cache_groups", r->n_groups);
		cJSON_AddNumberToObject(o, "group_size", r->group_size);
		cJSON_AddNumberToObject(o, "gpu_blocks", (double)r->num_blocks);
		cJSON_AddNumberToObject(o, "blocks_per_request", (double)r->blocks_per_request);
		cJSON_AddNumberToObject(o, "kv_cache_tokens", (double)r->kv_tokens);
		cJSON_AddNumberToObject(o, "max_concurrency", r->max_concurrency);
		cJSON_AddNumberToObject(o, "kv_bytes_per_request", (double)r->kv_bytes_per_request);
		cJSON_AddBoolToObject(o, "starts", !r->refuses);
		cJSON_AddNumberToObject(o, "max_model_len_that_fits", r->max_model_len_fit);
		cJSON_AddItemToArray(arr, o);
	}
	return cli_json_emit(root);
}

static void render_table(const vllm_cfg *c, const cr_model *m, const vrow *rows, int n)
{
	static const char *const hdr[] = { "RIG", "TP", "WEIGHTS/GPU", "PROFILE", "KV CACHE", "BLOCKS", "KV TOKENS",
					   "CONCURRENCY", "STARTS" };
	static const bool right[] = { false, true, true, true, true, true, true, true, false };
	cli_table t;

	if (!cli_quiet() && c->fmt == FMT_TABLE)
		printf("%s (%s) with vLLM, max_model_len %u, gpu_memory_utilization %.2f\n", cli_safe(m->name),
		       cli_safe(m->arch), n ? rows[0].r.max_model_len : 0, c->util);
	cli_table_init(&t, 9, hdr, right);
	for (int i = 0; i < n; i++) {
		const cr_vllm_result *r = &rows[i].r;
		char v[9][48];
		const char *cells[9];

		snprintf(v[0], sizeof(v[0]), "%s", cli_safe(rows[i].rig->id));
		snprintf(v[1], sizeof(v[1]), "%u", r->tensor_parallel_size);
		cli_fmt_mem(v[2], sizeof(v[2]), r->weights_gib * 1073741824.0);
		cli_fmt_mem(v[3], sizeof(v[3]), (r->non_torch_gib + r->activation_gib + r->cuda_graph_gib) * 1073741824.0);
		cli_fmt_mem(v[4], sizeof(v[4]), r->kv_gib * 1073741824.0);
		snprintf(v[5], sizeof(v[5]), "%llu", (unsigned long long)r->num_blocks);
		snprintf(v[6], sizeof(v[6]), "%llu", (unsigned long long)r->kv_tokens);
		snprintf(v[7], sizeof(v[7]), "%.2fx", r->max_concurrency);
		snprintf(v[8], sizeof(v[8]), "%s", r->refuses ? "no" : "yes");
		for (int k = 0; k < 9; k++)
			cells[k] = v[k];
		cli_table_add(&t, cells);
	}
	cli_table_render(&t, c->fmt, stdout);
	cli_table_free(&t);
	if (cli_quiet() || c->fmt != FMT_TABLE)
		return;
	printf("PROFILE: non-torch memory, the activation peak of the profile run and CUDA graphs (fitted, docs/vllm.md)\n");
	for (int i = 0; i < n; i++) {
		const cr_vllm_result *r = &rows[i].r;

		if (!r->refuses)
			continue;
		if (r->kv_gib <= 0)
			printf("%s: vLLM would not start: no memory is left for the KV cache (%.2f GiB). Raise "
			       "--gpu-memory-utilization, use more GPUs (--tensor-parallel-size) or a smaller checkpoint.\n",
			       cli_safe(rows[i].rig->id), r->kv_gib);
		else
			printf("%s: vLLM would not start: one request of %u tokens needs %.2f GiB of KV cache, more than the "
			       "%.2f GiB available. The largest max_model_len that fits is %u (--max-model-len %u), or raise "
			       "--gpu-memory-utilization.\n",
			       cli_safe(rows[i].rig->id), r->max_model_len, (double)r->kv_bytes_per_request / 1073741824.0,
			       r->kv_gib, r->max_model_len_fit, r->max_model_len_fit);
	}
	printf("speed: not modelled for vLLM\n");
}

/* A catalog model's checkpoint as its publisher ships it: BF16, with the
 * routed experts at the native type where the catalog names one (gpt-oss:
 * MXFP4 at native_bpw). Expert parameters: 3 matrices of hidden x ffn per
 * expert on each MoE layer. */
static uint64_t catalog_weights(const cr_model *m)
{
	double experts = 0;

	if (m->native_bpw > 0 && m->experts_total) {
		uint32_t moe_layers = m->n_layers - m->experts_dense_layers;

		if (m->experts_every > 1)
			moe_layers = m->n_layers / m->experts_every;
		experts = 3.0 * m->hidden * m->ffn * m->experts_total * moe_layers;
		if (experts > (double)m->params)
			experts = 0;
	}
	return (uint64_t)(((double)m->params - experts) * 2.0 + experts * m->native_bpw / 8.0);
}

int cmd_check_vllm(const cli_globals *g, int argc, char **argv)
{
	vllm_cfg c;
	cr_catalog *cat = NULL;
	cr_model model;
	cr_rig *custom = NULL;
	vrow *rows = NULL;
	cr_st_checkpoint *ck = NULL;
	uint64_t weights = 0;
	char location[CR_URL_MAX] = "";
	int rc, n = 0, worst = EXIT_OK_;

	memset(&c, 0, sizeof(c));
	c.g = *g;
	c.util = CR_VLLM_GPU_UTIL;
	c.tp = 1;
	rc = cli_parse(&vllm_cmd, argc, argv, &c);
	if (rc)
		return rc < 0 ? EXIT_OK_ : rc;
	if (!c.model_id) {
		fprintf(stderr, "clefrun check: --model SOURCE is required\n");
		return EXIT_USAGE;
	}
	cat = cli_open_catalog(&c.g);
	custom = calloc(VLLM_MAX_RIGS, sizeof(*custom));
	rows = calloc(VLLM_MAX_RIGS, sizeof(*rows));
	ck = calloc(1, sizeof(*ck));
	if (!cat || !custom || !rows || !ck) {
		rc = EXIT_ERROR;
		goto out;
	}
	if (strncmp(c.model_id, CR_HF_PREFIX, strlen(CR_HF_PREFIX)) == 0 || cr_st_source_is_dir(c.model_id)) {
		cli_source_opts so = CLI_SOURCE_OPTS_INIT;

		so.revision = c.revision;
		so.no_cache = c.no_cache;
		so.offline = c.offline;
		so.command = "clefrun check";
		if ((rc = cli_st_open(c.model_id, &so, ck)) != 0)
			goto out;
		model = ck->config.model;
		weights = ck->weights_bytes;
		snprintf(location, sizeof(location), "%s", ck->location);
	} else {
		const cr_model *m = cli_find_model(cat, c.model_id);

		if (!m) {
			rc = EXIT_USAGE;
			goto out;
		}
		model = *m;
		weights = catalog_weights(&model);
	}
	if (c.weights_gib > 0)
		weights = (uint64_t)(c.weights_gib * 1073741824.0 * c.tp);
	for (int i = 0; i < (c.n_rigs ? c.n_rigs : 1); i++) {
		const char *id = c.n_rigs ? c.rig_ids[i] : "h100-sxm";
		const cr_rig *r = cli_find_rig(cat, id, &custom[i]);
		cr_vllm_opts o = CR_VLLM_OPTS_INIT;
		cr_error err = CR_ERROR_INIT;
		int s;

		if (!r) {
			rc = EXIT_USAGE;
			goto out;
		}
		if (r->n_devices == 0 || r->devices[0].kind == CR_MEM_SYSTEM || r->devices[0].backend == CR_BACKEND_CPU ||
		    r->devices[0].backend == CR_BACKEND_METAL) {
			fprintf(stderr, "clefrun check: --rig %s: vLLM needs a CUDA or ROCm GPU; this rig has none\n",
				cli_safe(id));
			rc = EXIT_USAGE;
			goto out;
		}
		if (c.tp > r->devices[0].count) {
			fprintf(stderr, "clefrun check: --tensor-parallel-size %u: rig %s has %u GPU(s) in its first device group\n", c.tp,
				cli_safe(id), r->devices[0].count);
			rc = EXIT_USAGE;
			goto out;
		}
		o.gpu_memory_utilization = c.util;
		o.max_model_len = c.max_model_len;
		o.max_num_seqs = c.max_num_seqs;
		o.max_num_batched_tokens = c.max_num_batched_tokens;
		o.kv_cache_dtype = (cr_vllm_kv_dtype)c.kv_dtype;
		o.tensor_parallel_size = c.tp;
		o.model_dtype_bytes = ck->config.dtype_bytes ? ck->config.dtype_bytes : 2;
		o.enforce_eager = c.enforce_eager;
		o.no_prefix_caching = c.no_prefix_caching;
		o.kv_cache_memory_bytes = c.kv_gib > 0 ? (uint64_t)(c.kv_gib * 1073741824.0) : 0;
		if ((s = cr_vllm_estimate(&model, weights, &r->devices[0], &o, &rows[n].r, &err)) != 0) {
			fprintf(stderr, "clefrun check: %s\n", cli_safe(err.message));
			rc = cli_exit_for_status(s);
			goto out;
		}
		rows[n].rig = r;
		if (rows[n].r.refuses)
			worst = EXIT_NOFIT;
		n++;
	}
	if (c.fmt == FMT_JSON && print_json(&c, &model, location, weights, rows, n)) {
		rc = EXIT_ERROR;
		goto out;
	}
	if (c.fmt != FMT_JSON)
		render_table(&c, &model, rows, n);
	rc = worst;
out:
	free(ck);
	free(rows);
	free(custom);
	cr_catalog_free(cat);
	return rc;
}
