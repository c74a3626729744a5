/*
 * Harness: what an Ollama store or registry hands clefrun (ollama.c). The
 * first byte picks the parser: 'm' a manifest, 'p' a params layer,
 * anything else a source name (the rest of the input, up to a NUL), with
 * the paths and URLs built from it.
 */
#include <string.h>

#include "clefrun/clefrun.h"
#include "fuzz.h"

static void check_layer(const cr_ollama_layer *l)
{
	if (!l->present)
		return;
	/* A digest that is kept is one that may become a path. */
	FUZZ_CHECK(cr_ollama_digest_valid(l->digest) && l->digest[6] == ':');
	FUZZ_CHECK(l->size <= CR_OLLAMA_LAYER_MAX_BYTES);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	cr_error err = CR_ERROR_INIT;
	const char *body = (const char *)data + 1;
	size_t len = size ? size - 1 : 0;

	if (size && data[0] == 'm') {
		cr_ollama_manifest mf;

		if (cr_ollama_parse_manifest(body, len, "manifest", &mf, &err) != 0) {
			FUZZ_CHECK(err.status < 0 && err.message[0]);
			return 0;
		}
		FUZZ_CHECK(mf.model.present);
		check_layer(&mf.model);
		check_layer(&mf.params);
		check_layer(&mf.projector);
		check_layer(&mf.template_);
		check_layer(&mf.license);
		FUZZ_CHECK(mf.total_bytes <= CR_OLLAMA_LAYER_MAX_BYTES);
		{
			char path[600];

			FUZZ_CHECK(cr_ollama_blob_path("/r", mf.model.digest, path, sizeof(path), &err) == 0);
			FUZZ_CHECK(strstr(path, "..") == NULL && strlen(path) == strlen("/r/blobs/sha256-") + 64);
		}
		return 0;
	}
	if (size && data[0] == 'p') {
		cr_ollama_params p;

		if (cr_ollama_parse_params(body, len, "params", &p, &err) != 0) {
			FUZZ_CHECK(err.status < 0 && err.message[0]);
			return 0;
		}
		FUZZ_CHECK(p.num_ctx <= 1073741824u);
		FUZZ_CHECK(memchr(p.other_keys, '\0', sizeof(p.other_keys)) != NULL);
		for (const char *k = p.other_keys; *k; k++)
			FUZZ_CHECK((unsigned char)*k >= 0x20 && (unsigned char)*k < 0x7f);
		return 0;
	}
	{
		char name[1200], buf[1600];
		size_t n = len < sizeof(name) - 1 ? len : sizeof(name) - 1;
		cr_ollama_ref r;

		memcpy(name, body, n);
		name[n] = '\0';
		if (cr_ollama_parse(name, &r, &err) != 0) {
			FUZZ_CHECK(err.status < 0 && err.message[0]);
			return 0;
		}
		/* Every part is a single path segment that cannot climb. */
		FUZZ_CHECK(!strchr(r.host, '/') && !strchr(r.ns, '/') && !strchr(r.model, '/') && !strchr(r.tag, '/'));
		FUZZ_CHECK(r.host[0] != '.' && r.ns[0] != '.' && r.model[0] != '.' && r.tag[0] != '.');
		(void)cr_ollama_manifest_path("/r", &r, buf, sizeof(buf), &err);
		(void)cr_ollama_manifest_url(NULL, &r, buf, sizeof(buf), &err);
		cr_ollama_ref_short(&r, buf, 8);
		cr_ollama_ref_string(&r, buf, sizeof(buf));
	}
	return 0;
}
