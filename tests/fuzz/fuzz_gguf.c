/*
 * Harness: the GGUF header reader (gguf_types.c, gguf.c, gguf_meta.c) and its mapping
 * into a cr_model (gguf_model.c), then the estimator's KV and state sizes
 * of what it mapped. Every getter runs on every key with every type, so a
 * value of the wrong type or size is exercised, not just parsed.
 *
 * The input is the file. Its last byte picks the reader's policy, so both
 * are fuzzed: bit 0 allow_truncated, bit 1 a 64-byte first read (the
 * growing buffer's extension path) instead of 4096.
 */
#include <string.h>

#include "clefrun/clefrun.h"
#include "fuzz.h"

/* The shape and the sizes the reader derived from it, recomputed in 128
 * bits so that a wrapped 64-bit product cannot agree by accident: the
 * element count is the product of the dimensions, the byte count ggml's
 * ne[0] / block x block bytes x ne[1] x ne[2] x ne[3], and both fit 64 bits. */
static void check_shape(const cr_gguf_tensor *t)
{
	__extension__ typedef unsigned __int128 u128;
	uint32_t block = 0, bsize = 0;
	u128 elems = 1, bytes;

	FUZZ_CHECK(cr_ggml_type_size(t->type, &block, &bsize) == 0 && block && bsize);
	for (uint32_t d = 0; d < CR_GGUF_MAX_DIMS; d++) {
		FUZZ_CHECK(d < t->n_dims || t->dims[d] == 1);
		elems *= t->dims[d];
		FUZZ_CHECK(elems <= UINT64_MAX);
	}
	FUZZ_CHECK(t->dims[0] % block == 0);
	bytes = (u128)(t->dims[0] / block) * bsize;
	for (uint32_t d = 1; d < CR_GGUF_MAX_DIMS; d++) {
		bytes *= t->dims[d];
		FUZZ_CHECK(bytes <= UINT64_MAX);
	}
	FUZZ_CHECK((u128)t->n_elements == elems);
	FUZZ_CHECK((u128)t->bytes == bytes);
}

static void exercise_kv(const cr_gguf *g, size_t i)
{
	const char *key = cr_gguf_kv_key(g, i);
	char buf[256];
	cr_error err = CR_ERROR_INIT;
	uint64_t u64, count;
	uint32_t u32;
	int64_t i64;
	double f64;
	bool b;
	cr_gguf_type et;
	size_t found;

	FUZZ_CHECK(key != NULL);
	FUZZ_CHECK(cr_gguf_find(g, key, &found) && found == i);
	cr_gguf_kv_format(g, i, buf, sizeof(buf));
	FUZZ_CHECK(memchr(buf, '\0', sizeof(buf)) != NULL);
	cr_gguf_kv_format(g, i, buf, 8); /* the cut with "..." */
	(void)cr_gguf_get_u64(g, key, &u64, &err);
	(void)cr_gguf_get_u32(g, key, &u32, &err);
	(void)cr_gguf_get_i64(g, key, &i64, &err);
	(void)cr_gguf_get_f64(g, key, &f64, &err);
	(void)cr_gguf_get_bool(g, key, &b, &err);
	(void)cr_gguf_get_string(g, key, buf, sizeof(buf), &err);
	(void)cr_gguf_get_string(g, key, buf, 2, &err);
	if (cr_gguf_get_array(g, key, &et, &count, &err) == 0) {
		/* First, last and one past the end of each array. */
		uint64_t idx[3] = { 0, count ? count - 1 : 0, count };

		for (int k = 0; k < 3; k++) {
			(void)cr_gguf_get_array_u64(g, key, idx[k], &u64, &err);
			(void)cr_gguf_get_array_f64(g, key, idx[k], &f64, &err);
			if (k != 1 || count < 4096) /* O(i): keep the last-element walk short */
				(void)cr_gguf_get_array_string(g, key, idx[k], buf, sizeof(buf), &err);
		}
	}
	FUZZ_CHECK(memchr(err.message, '\0', sizeof(err.message)) != NULL);
}

/* The mapped model through the estimator, as `clefrun check --model X.gguf`
 * runs it: at the default context and at the model's maximum, on a GPU with
 * system RAM beside it (so offload is weighed too). */
static void estimate(const cr_gguf_model *gm)
{
	cr_rig rig;
	cr_quant q;
	cr_weights w;
	cr_estimate est;
	cr_error err = CR_ERROR_INIT;
	const uint32_t ctxs[2] = { 0, gm->model.context_max };

	if (cr_rig_parse_spec("custom:mem_gb=24,bw_gbs=1000,tflops=100,ram_gb=64,ram_bw_gbs=80",
			      &rig, &err) != 0)
		abort();
	/* The file's exact bytes, as check and inspect pass them; a file without
	 * tensor bytes (refused as exact weights) at a preset's 4.9 bpw. */
	memset(&q, 0, sizeof(q));
	snprintf(q.id, sizeof(q.id), "Q4_K_M");
	q.bpw = 4.9;
	if (gm->weights_bytes)
		cr_weights_exact(gm->weights_bytes, NULL, &w);
	else
		cr_weights_preset(&q, &w);
	for (int i = 0; i < 2; i++) {
		cr_estimate_request req = CR_ESTIMATE_REQUEST_INIT;
		cr_estimate_setup set;
		cr_kv_profile kv;
		int kv_rc;

		req.n_ctx = ctxs[i];
		req.opts.cpu_moe = i == 1;
		FUZZ_ERR_RESET(err);
		if (cr_estimate_resolve_opts(&gm->model, &rig, &req, &set, &err) != 0) {
			FUZZ_CHECK(err.status < 0 && err.message[0]);
			continue;
		}
		FUZZ_CHECK(set.opts.n_ctx >= 1 && set.opts.n_ctx <= gm->model.context_max);
		(void)cr_estimate_kv_bytes(&gm->model, &set.opts);
		(void)cr_estimate_state_bytes(&gm->model, &set.opts);
		FUZZ_ERR_RESET(err);
		kv_rc = cr_estimate_kv_profile(&gm->model, &set.opts, &kv, &err);
		FUZZ_CHECK(kv_rc == 0 || (err.status < 0 && err.message[0]));
		FUZZ_ERR_RESET(err);
		if (cr_estimate_run_weights(&gm->model, &w, &rig, &set.opts, &est, &err) == 0) {
			FUZZ_CHECK(est.tier < CR_TIER_COUNT);
			/* The profile is what the estimate's memory is made of. */
			FUZZ_CHECK(kv_rc == 0 && kv.kv_bytes == est.memory.kv_bytes &&
				   kv.state_bytes == est.memory.state_bytes &&
				   kv.bytes_per_token == est.kv_bytes_per_token);
		} else {
			FUZZ_CHECK(err.status < 0 && err.message[0]);
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	cr_error err = CR_ERROR_INIT;
	cr_source *s = NULL;
	cr_gguf *g = NULL;
	cr_gguf_opts o = CR_GGUF_OPTS_INIT;
	uint8_t policy = size ? data[size - 1] : 0;

	o.allow_truncated = policy & 1;
	o.first_read = policy & 2 ? 64 : 4096;
	if (cr_source_open_memory(data, size, "fuzz.gguf", false, &s, &err) != 0)
		return 0;
	FUZZ_ERR_RESET(err);
	if (cr_gguf_load(s, &o, &g, &err) == 0) {
		cr_gguf_model *gm = malloc(sizeof(*gm));
		const cr_gguf *parts[2] = { g, g };
		uint64_t sum = 0, params = 0;

		/* The data section starts at the next multiple of the alignment,
		 * which may lie past the end of a file without tensor data. */
		FUZZ_CHECK(cr_gguf_data_offset(g) % cr_gguf_alignment(g) == 0);
		FUZZ_CHECK(cr_gguf_arch(g) != NULL && cr_gguf_name(g) != NULL);
		for (size_t i = 0; i < cr_gguf_kv_count(g); i++)
			exercise_kv(g, i);
		FUZZ_CHECK(cr_gguf_kv_key(g, cr_gguf_kv_count(g)) == NULL);
		FUZZ_CHECK(cr_gguf_kv_type(g, cr_gguf_kv_count(g)) == CR_GGUF_TYPE_COUNT);
		for (size_t i = 0; i < cr_gguf_tensor_count(g); i++) {
			const cr_gguf_tensor *t = cr_gguf_tensor_at(g, i);

			/* n_dims 0 is a scalar, as ggml reads it */
			FUZZ_CHECK(t && t->name && t->n_dims <= CR_GGUF_MAX_DIMS);
			FUZZ_CHECK(cr_gguf_find_tensor(g, t->name) == t);
			FUZZ_CHECK(cr_ggml_type_name(t->type) != NULL);
			check_shape(t);
			if (!o.allow_truncated)
				FUZZ_CHECK(cr_gguf_data_offset(g) + t->offset + t->bytes <= size);
			FUZZ_CHECK(t->bytes <= UINT64_MAX - sum && t->n_elements <= UINT64_MAX - params);
			sum += t->bytes;
			params += t->n_elements;
		}
		FUZZ_CHECK(cr_gguf_tensor_at(g, cr_gguf_tensor_count(g)) == NULL);
		FUZZ_CHECK(cr_gguf_tensor_bytes(g) == sum);
		FUZZ_CHECK(cr_gguf_param_count(g) == params);
		for (uint32_t t = 0; t <= CR_GGML_TYPE_COUNT; t++)
			(void)cr_gguf_type_bytes(g, t);
		if (gm) {
			/* One part, then the same header as two parts of a split
			 * (which must be refused or mapped, never crash). */
			for (size_t n = 1; n <= 2; n++) {
				if (cr_gguf_to_model(parts, n, gm, &err) == 0) {
					FUZZ_CHECK(gm->model.n_layers >= 1 &&
						   gm->model.n_layers <= CR_MAX_LAYERS);
					/* n copies of one header: n times its sums. */
					FUZZ_CHECK(gm->model.params == params * n);
					FUZZ_CHECK(gm->weights_bytes == sum * n);
					FUZZ_CHECK(gm->model.active_params <= gm->model.params);
					estimate(gm);
				}
			}
			free(gm);
		}
		cr_gguf_free(g);
	} else {
		FUZZ_CHECK(err.status < 0 && err.message[0]);
	}
	cr_source_free(s);
	return 0;
}
