/* bench/memory-truth.d/probe.c: the settings node-llama-cpp 3.21.1 cannot pass.
 *
 * node-llama-cpp's AddonContext (llama/addon/AddonContext.cpp) sets n_ctx, n_batch =
 * n_ubatch, n_seq_max, flash attention, the KV cache types and swa_full, and nothing else:
 * kv_unified stays false (its own estimator says `const kvUnified = false`) and
 * n_outputs_max stays 0 (a full batch of logits). llama-server's default four slots share
 * one unified cache; with `-md` its target reserves logits for the K + 1 tokens each slot
 * verifies (tools/server/server-context.cpp server_output_limits) and its draft context for
 * one output per slot (common/speculative.cpp common_base_params_to_speculative:
 * n_outputs_max = n_parallel). This probe calls the same libllama that node-llama-cpp
 * bundles, through llama.h of the same commit (bench/memory-truth extracts it from the
 * bundled git release and builds this file with the system C compiler).
 *
 *   probe SPEC [SPEC...]    SPEC: key=value,key=value,...
 *     file (required), n_ctx (4096), n_ubatch (512, also n_batch), n_seq (1),
 *     fa (on|off), type_k, type_v (ggml type ids, 1 = f16), swa_full (0|1),
 *     kv_unified (0|1), n_outputs_max (0 = n_batch), n_outputs_per_seq (1), mmap (0|1),
 *     no_alloc (0|1)
 *
 * Each SPEC loads its model and creates its context in turn (a draft beside its target);
 * the log goes to stdout, each SPEC preceded by a line "probe: spec N" and followed by
 * "probe: model_bytes N BYTES" (llama_model_size) and "probe: ok N" or "probe: failed N
 * WHY"; at the end "probe: free N" precedes the lines of freeing context N.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ggml-backend.h"
#include "llama.h"

#define MAX_SPECS 4

static void log_line(enum ggml_log_level level, const char *text, void *user)
{
	(void)level;
	(void)user;
	fputs(text, stdout);
}

/* The value of KEY in a "k=v,k=v" list, copied into out; 0 when absent. */
static int get(const char *spec, const char *key, char *out, size_t cap)
{
	size_t kl = strlen(key);
	const char *p = spec;

	while (p && *p) {
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);

		if (len > kl && strncmp(p, key, kl) == 0 && p[kl] == '=') {
			size_t vl = len - kl - 1;

			if (vl >= cap)
				vl = cap - 1;
			memcpy(out, p + kl + 1, vl);
			out[vl] = 0;
			return 1;
		}
		p = end ? end + 1 : NULL;
	}
	return 0;
}

static long num(const char *spec, const char *key, long dflt)
{
	char v[64];
	char *end;
	long x;

	if (!get(spec, key, v, sizeof(v)))
		return dflt;
	x = strtol(v, &end, 10);
	if (end == v || *end) {
		fprintf(stdout, "probe: bad %s=%s\n", key, v);
		exit(2);
	}
	return x;
}

int main(int argc, char **argv)
{
	struct llama_model *models[MAX_SPECS] = { 0 };
	struct llama_context *ctxs[MAX_SPECS] = { 0 };
	const char *dir = getenv("PROBE_BACKEND_DIR");
	int n = argc - 1;

	if (n < 1 || n > MAX_SPECS) {
		fprintf(stderr, "usage: probe SPEC [SPEC...] (at most %d)\n", MAX_SPECS);
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	llama_log_set(log_line, NULL);
	if (dir)
		ggml_backend_load_all_from_path(dir);
	else
		ggml_backend_load_all();
	llama_backend_init();
	for (int i = 0; i < n; i++) {
		const char *s = argv[i + 1];
		char file[4096], fa[8] = "off";
		struct llama_model_params mp = llama_model_default_params();
		struct llama_context_params cp = llama_context_default_params();

		printf("probe: spec %d\n", i);
		if (!get(s, "file", file, sizeof(file))) {
			printf("probe: failed %d no file\n", i);
			continue;
		}
		mp.n_gpu_layers = 0;
		mp.no_alloc = num(s, "no_alloc", 1) != 0;
		/* node-llama-cpp's AddonModel: no_alloc loads nothing (LLAMA_LOAD_MODE_NONE). */
		mp.load_mode = mp.no_alloc ? LLAMA_LOAD_MODE_NONE
					   : num(s, "mmap", 1) ? LLAMA_LOAD_MODE_MMAP : LLAMA_LOAD_MODE_NONE;
		models[i] = llama_model_load_from_file(file, mp);
		if (!models[i]) {
			printf("probe: failed %d model load\n", i);
			continue;
		}
		printf("probe: model_bytes %d %llu\n", i, (unsigned long long)llama_model_size(models[i]));
		cp.n_ctx = (uint32_t)num(s, "n_ctx", 4096);
		cp.n_batch = cp.n_ubatch = (uint32_t)num(s, "n_ubatch", 512);
		cp.n_seq_max = (uint32_t)num(s, "n_seq", 1);
		cp.n_outputs_max = (uint32_t)num(s, "n_outputs_max", 0);
		cp.n_outputs_max_per_seq = (uint32_t)num(s, "n_outputs_per_seq", 1);
		get(s, "fa", fa, sizeof(fa));
		cp.flash_attn_type = strcmp(fa, "on") == 0 ? LLAMA_FLASH_ATTN_TYPE_ENABLED : LLAMA_FLASH_ATTN_TYPE_DISABLED;
		cp.type_k = (enum ggml_type)num(s, "type_k", GGML_TYPE_F16);
		cp.type_v = (enum ggml_type)num(s, "type_v", GGML_TYPE_F16);
		cp.swa_full = num(s, "swa_full", 0) != 0;
		cp.kv_unified = num(s, "kv_unified", 0) != 0;
		cp.no_perf = true;
		ctxs[i] = llama_init_from_model(models[i], cp);
		if (!ctxs[i]) {
			printf("probe: failed %d context\n", i);
			continue;
		}
		printf("probe: ok %d\n", i);
	}
	/* Freed in turn: ~llama_context logs each compute buffer after its spec. The sizes of
	 * two contexts do not depend on each other, so the sum is the draft beside its target. */
	for (int i = 0; i < n; i++) {
		printf("probe: free %d\n", i);
		if (ctxs[i])
			llama_free(ctxs[i]);
		if (models[i])
			llama_model_free(models[i]);
	}
	llama_backend_free();
	printf("probe: done\n");
	return 0;
}
