/*
 * Model stores on disk and the Ollama registry (ollama.h, model_source.h):
 * ollama: names as Ollama parses them, manifests and params layers (hostile
 * ones too), an Ollama store written here (manifests and blobs made with
 * the GGUF writer, gguf_build.h), the same store served by the loopback
 * registry (http_server.py /v2/...), and a Hugging Face hub cache written
 * here with real symbolic links, read before any request.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include <cmocka.h>

#include "clefrun/clefrun.h"
#include "gguf_build.h"
#include "support.h"

static char root[256];     /* the test's directory */
static char store[300];    /* the local Ollama store */
static char www[300];      /* served: www/ollama is the registry's store */
static char empty[300];    /* an Ollama store with nothing in it */
static char hub[300];      /* a Hugging Face hub cache */
static char cachedir[400]; /* the header cache, emptied per test */
static char logpath[400];
static ts_server server;

#define D_MODEL "sha256:1111111111111111111111111111111111111111111111111111111111111111"
#define D_PARAMS "sha256:2222222222222222222222222222222222222222222222222222222222222222"
#define D_BAD "sha256:3333333333333333333333333333333333333333333333333333333333333333"

/* ---- helpers ------------------------------------------------------------------ */

static void mkdirs(const char *path)
{
	char p[1024];

	snprintf(p, sizeof(p), "%s", path);
	for (char *s = p + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		(void)mkdir(p, 0700);
		*s = '/';
	}
	(void)mkdir(p, 0700);
}

static void put(const char *path, const void *bytes, size_t n)
{
	char dir[1024];
	FILE *f;

	snprintf(dir, sizeof(dir), "%s", path);
	*strrchr(dir, '/') = '\0';
	mkdirs(dir);
	f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(bytes, 1, n, f), n);
	assert_int_equal(fclose(f), 0);
}

static void put_text(const char *path, const char *text)
{
	put(path, text, strlen(text));
}

static size_t tiny_len;

/* The tiny llama of gguf_build.h as blob @p digest of store @p st. */
static void put_tiny(const char *st, const char *digest)
{
	char path[600];
	gb b;

	gb_init(&b);
	gb_tiny_llama(&b, 3, NULL);
	snprintf(path, sizeof(path), "%s/blobs/sha256-%s", st, digest + 7);
	put(path, b.p, b.len);
	tiny_len = b.len;
	gb_free(&b);
}

/* A manifest of store @p st for NS/MODEL:TAG on the default host. */
static void put_manifest(const char *st, const char *ns, const char *model, const char *tag, const char *json)
{
	char path[800];

	snprintf(path, sizeof(path), "%s/manifests/registry.ollama.ai/%s/%s/%s", st, ns, model, tag);
	put_text(path, json);
}

/* The usual manifest: the model layer (tiny_len bytes) and a params layer. */
static void good_manifest(char *buf, size_t cap, const char *model_digest, size_t model_size)
{
	snprintf(buf, cap,
		 "{\"schemaVersion\":2,\"mediaType\":\"application/vnd.docker.distribution.manifest.v2+json\","
		 "\"config\":{\"mediaType\":\"application/vnd.docker.container.image.v1+json\",\"digest\":\"%s\",\"size\":10},"
		 "\"layers\":[{\"mediaType\":\"application/vnd.ollama.image.model\",\"digest\":\"%s\",\"size\":%zu},"
		 "{\"mediaType\":\"application/vnd.ollama.image.template\",\"digest\":\"%s\",\"size\":5},"
		 "{\"mediaType\":\"application/vnd.ollama.image.params\",\"digest\":\"%s\",\"size\":40}]}",
		 D_BAD, model_digest, model_size, D_BAD, D_PARAMS);
}

static void put_params(const char *st, const char *json)
{
	char path[600];

	snprintf(path, sizeof(path), "%s/blobs/sha256-%s", st, D_PARAMS + 7);
	put_text(path, json);
}

static cr_model_source_opts opts(const char *ollama_dir)
{
	cr_model_source_opts o = CR_MODEL_SOURCE_OPTS_INIT;

	o.cache_dir = cachedir;
	o.ollama_dir = ollama_dir;
	o.ollama_registry = server.base;
	o.hf_endpoint = server.base;
	return o;
}

static cr_model_source *expect_ok(const char *source, const cr_model_source_opts *o)
{
	cr_model_source *m = NULL;
	cr_error err = CR_ERROR_INIT;

	if (cr_model_source_resolve(source, o, &m, &err))
		fail_msg("%s: %s (reason %s)", source, err.message, cr_reason_name(err.reason));
	assert_non_null(m);
	return m;
}

/* A failure with @p status, @p reason and @p needle in the message. */
static void expect_fail(const char *source, const cr_model_source_opts *o, int status, cr_reason reason,
			const char *needle)
{
	cr_model_source *m = NULL;
	cr_error err = CR_ERROR_INIT;
	int rc = cr_model_source_resolve(source, o, &m, &err);

	if (rc != status || err.reason != reason || !strstr(err.message, needle))
		fail_msg("%s: status %d reason %s (%s), expected %d %s with '%s'", source, rc,
			 cr_reason_name(err.reason), err.message, status, cr_reason_name(reason), needle);
	assert_null(m);
}

static int count_log(const char *part)
{
	char line[2048];
	FILE *f = fopen(logpath, "r");
	int n = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		n += strstr(line, part) != NULL;
	fclose(f);
	return n;
}

static int setup(void **state)
{
	(void)state;
	if (ts_tmpdir(root, sizeof(root), "stores"))
		return -1;
	snprintf(store, sizeof(store), "%s/ollama", root);
	snprintf(www, sizeof(www), "%s/www", root);
	snprintf(empty, sizeof(empty), "%s/empty", root);
	snprintf(hub, sizeof(hub), "%s/hub", root);
	snprintf(cachedir, sizeof(cachedir), "%s/cache", root);
	snprintf(logpath, sizeof(logpath), "%s/server.log", root);
	mkdirs(www);
	mkdirs(empty);
	return ts_server_start(&server, www, logpath);
}

static int teardown(void **state)
{
	(void)state;
	ts_server_stop(&server);
	return ts_rm_tree(root);
}

static int each(void **state)
{
	FILE *f;

	(void)state;
	if (ts_rm_tree(cachedir))
		return -1;
	f = fopen(logpath, "w");
	if (f)
		fclose(f);
	return 0;
}

/* ---- names ---------------------------------------------------------------------- */

static void test_names(void **state)
{
	static const struct {
		const char *s;
		const char *full; /* NULL: refused */
		const char *shortest;
	} cases[] = {
		{ "ollama:qwen3:8b", "registry.ollama.ai/library/qwen3:8b", "qwen3:8b" },
		{ "ollama:qwen3", "registry.ollama.ai/library/qwen3:latest", "qwen3:latest" },
		{ "ollama:library/qwen3:8b", "registry.ollama.ai/library/qwen3:8b", "qwen3:8b" },
		{ "ollama:registry.ollama.ai/library/qwen3:8b", "registry.ollama.ai/library/qwen3:8b", "qwen3:8b" },
		{ "ollama:user/my-model:q4_K_M", "registry.ollama.ai/user/my-model:q4_K_M", "user/my-model:q4_K_M" },
		{ "ollama:hf.co/bartowski/Qwen3-8B-GGUF:Q4_K_M", "hf.co/bartowski/Qwen3-8B-GGUF:Q4_K_M",
		  "hf.co/bartowski/Qwen3-8B-GGUF:Q4_K_M" },
		{ "ollama:localhost:11434/ns/m:t", "localhost:11434/ns/m:t", "localhost:11434/ns/m:t" },
		{ "ollama:gpt-oss:20b", "registry.ollama.ai/library/gpt-oss:20b", "gpt-oss:20b" },
		{ "ollama:", NULL, NULL },
		{ "ollama::8b", NULL, NULL },
		{ "ollama:qwen3:", NULL, NULL },
		{ "ollama:../../etc/passwd", NULL, NULL },     /* '.' cannot start a part */
		{ "ollama:a/../b", NULL, NULL },
		{ "ollama:ns.x/m", NULL, NULL },               /* no '.' in a namespace */
		{ "ollama:a/b/c/d", NULL, NULL },              /* too many parts */
		{ "ollama:/m", NULL, NULL },
		{ "ollama:m:t/x", NULL, NULL },                /* ':' in the namespace... of "m:t" */
		{ "ollama:https://registry.ollama.ai/library/m", NULL, NULL },
		{ "ollama:m@sha256:00", NULL, NULL },
		{ "ollama:m:t\x01", NULL, NULL },
		{ "ollama:m\\x", NULL, NULL },
		{ "ollama:aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", NULL, NULL },
	};
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		cr_ollama_ref r;
		cr_error err = CR_ERROR_INIT;
		char buf[600];
		int rc = cr_ollama_parse(cases[i].s, &r, &err);

		if (!cases[i].full) {
			if (rc != CR_ERR_PARSE || !err.message[0])
				fail_msg("%s: accepted", cases[i].s);
			continue;
		}
		if (rc)
			fail_msg("%s: %s", cases[i].s, err.message);
		cr_ollama_ref_string(&r, buf, sizeof(buf));
		assert_string_equal(buf, cases[i].full);
		cr_ollama_ref_short(&r, buf, sizeof(buf));
		assert_string_equal(buf, cases[i].shortest);
	}
	assert_int_equal(cr_model_source_classify("ollama:qwen3:8b"), CR_MODEL_SOURCE_OLLAMA);
}

static void test_paths_and_urls(void **state)
{
	cr_ollama_ref r;
	cr_error err = CR_ERROR_INIT;
	char buf[800];

	(void)state;
	assert_int_equal(cr_ollama_parse("ollama:qwen3:8b", &r, &err), 0);
	assert_int_equal(cr_ollama_manifest_path("/m", &r, buf, sizeof(buf), &err), 0);
	assert_string_equal(buf, "/m/manifests/registry.ollama.ai/library/qwen3/8b");
	assert_int_equal(cr_ollama_blob_path("/m", D_MODEL, buf, sizeof(buf), &err), 0);
	assert_string_equal(buf, "/m/blobs/sha256-1111111111111111111111111111111111111111111111111111111111111111");
	assert_int_equal(cr_ollama_manifest_url(NULL, &r, buf, sizeof(buf), &err), 0);
	assert_string_equal(buf, "https://registry.ollama.ai/v2/library/qwen3/manifests/8b");
	assert_int_equal(cr_ollama_blob_url("http://127.0.0.1:9/", &r, D_MODEL, buf, sizeof(buf), &err), 0);
	assert_string_equal(buf,
			    "http://127.0.0.1:9/v2/library/qwen3/blobs/sha256:1111111111111111111111111111111111111111111111111111111111111111");
	/* The digest rule of BlobsPath: sha256, ':' or '-', 64 hex; nothing else reaches a path. */
	assert_int_equal(cr_ollama_blob_path("/m", "sha256:../../../../etc/passwd", buf, sizeof(buf), &err),
			 CR_ERR_INVALID);
	assert_int_equal(cr_ollama_blob_path("/m", "sha512:11", buf, sizeof(buf), &err), CR_ERR_INVALID);
	assert_false(cr_ollama_digest_valid(D_MODEL "1"));
	assert_false(cr_ollama_digest_valid("sha256:111111111111111111111111111111111111111111111111111111111111111/"));
	assert_true(cr_ollama_digest_valid("sha256-ABCDEF1111111111111111111111111111111111111111111111111111111111"));
	assert_int_equal(cr_ollama_manifest_url("ftp://x", &r, buf, sizeof(buf), &err), CR_ERR_INVALID);
	/* Another host is its own registry; the option is for the default one. */
	assert_int_equal(cr_ollama_parse("ollama:hf.co/o/r:Q4_K_M", &r, &err), 0);
	assert_int_equal(cr_ollama_manifest_url("http://127.0.0.1:9", &r, buf, sizeof(buf), &err), 0);
	assert_string_equal(buf, "https://hf.co/v2/o/r/manifests/Q4_K_M");
}

/* ---- manifests and params ---------------------------------------------------------- */

static void test_manifest_hostile(void **state)
{
	static const struct {
		const char *json;
		int status;
		const char *needle;
	} cases[] = {
		{ "[]", CR_ERR_PARSE, "m.json: expected a JSON object" },
		{ "\"x\"", CR_ERR_PARSE, "expected a JSON object" },
		{ "{\"layers\":", CR_ERR_PARSE, "m.json: invalid JSON at byte" },
		{ "", CR_ERR_PARSE, "invalid JSON at byte 0" },
		{ "{}", CR_ERR_PARSE, "m.json: layers: missing" },
		{ "{\"layers\":{}}", CR_ERR_PARSE, "layers: expected an array" },
		{ "{\"layers\":[]}", CR_ERR_NOTFOUND, "no layer of type application/vnd.ollama.image.model" },
		{ "{\"layers\":[1]}", CR_ERR_PARSE, "layers[0]: expected an object" },
		{ "{\"layers\":[{\"digest\":\"" D_MODEL "\",\"size\":1}]}", CR_ERR_PARSE, "layers[0].mediaType: expected a string" },
		{ "{\"layers\":[{\"mediaType\":\"application/vnd.ollama.image.model\",\"digest\":\"sha256:../../../etc/passwd\",\"size\":1}]}",
		  CR_ERR_PARSE, "layers[0].digest: expected sha256: and 64 hex digits" },
		{ "{\"layers\":[{\"mediaType\":\"x\",\"digest\":\"" D_MODEL "\",\"size\":1},{\"mediaType\":\"application/vnd.ollama.image.model\",\"digest\":\"sha256-1111111111111111111111111111111111111111111111111111111111111111\",\"size\":1}]}",
		  CR_ERR_PARSE, "layers[1].digest" },
		{ "{\"layers\":[{\"mediaType\":\"application/vnd.ollama.image.model\",\"digest\":7,\"size\":1}]}", CR_ERR_PARSE,
		  "layers[0].digest" },
		{ "{\"layers\":[{\"mediaType\":\"application/vnd.ollama.image.model\",\"digest\":\"" D_MODEL "\"}]}",
		  CR_ERR_PARSE, "layers[0].size: expected a number of bytes" },
		{ "{\"layers\":[{\"mediaType\":\"application/vnd.ollama.image.model\",\"digest\":\"" D_MODEL "\",\"size\":-1}]}",
		  CR_ERR_PARSE, "layers[0].size: -1 is not a whole number" },
		{ "{\"layers\":[{\"mediaType\":\"application/vnd.ollama.image.model\",\"digest\":\"" D_MODEL "\",\"size\":1e300}]}",
		  CR_ERR_PARSE, "layers[0].size" },
		{ "{\"layers\":[{\"mediaType\":\"application/vnd.ollama.image.model\",\"digest\":\"" D_MODEL "\",\"size\":1.5}]}",
		  CR_ERR_PARSE, "layers[0].size" },
		{ "{\"config\":{\"size\":\"big\"},\"layers\":[]}", CR_ERR_PARSE, "config.size" },
		{ "{\"layers\":[{\"mediaType\":\"application/vnd.ollama.image.model\",\"digest\":\"" D_MODEL "\",\"size\":1000000000000000},"
		  "{\"mediaType\":\"application/vnd.ollama.image.model\",\"digest\":\"" D_MODEL "\",\"size\":1000000000000000}]}",
		  CR_ERR_PARSE, "layers[1]: the layers add up to more than" },
	};
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		cr_ollama_manifest mf;
		cr_error err = CR_ERROR_INIT;
		int rc = cr_ollama_parse_manifest(cases[i].json, strlen(cases[i].json), "m.json", &mf, &err);

		if (rc != cases[i].status || !strstr(err.message, cases[i].needle))
			fail_msg("case %zu: %d '%s', expected %d '%s'", i, rc, err.message, cases[i].status, cases[i].needle);
	}
	{
		/* Nesting deeper than cJSON's limit is said so. */
		char deep[3000];
		cr_ollama_manifest mf;
		cr_error err = CR_ERROR_INIT;

		memset(deep, '[', sizeof(deep) - 1);
		deep[sizeof(deep) - 1] = '\0';
		assert_int_equal(cr_ollama_parse_manifest(deep, strlen(deep), "m.json", &mf, &err), CR_ERR_PARSE);
		assert_non_null(strstr(err.message, "nested deeper"));
	}
	{
		char good[2000];
		cr_ollama_manifest mf;
		cr_error err = CR_ERROR_INIT;

		good_manifest(good, sizeof(good), D_MODEL, 1234);
		assert_int_equal(cr_ollama_parse_manifest(good, strlen(good), "m.json", &mf, &err), 0);
		assert_true(mf.model.present);
		assert_string_equal(mf.model.digest, D_MODEL);
		assert_int_equal(mf.model.size, 1234);
		assert_true(mf.params.present && mf.template_.present);
		assert_false(mf.projector.present || mf.license.present);
		assert_int_equal(mf.n_layers, 3);
		assert_int_equal(mf.total_bytes, 1234 + 5 + 40 + 10);
	}
}

static void test_params(void **state)
{
	static const struct {
		const char *json;
		int status;
		const char *needle;
	} bad[] = {
		{ "[]", CR_ERR_PARSE, "p: expected a JSON object" },
		{ "{\"num_ctx\":0}", CR_ERR_PARSE, "p: num_ctx: expected a whole number from 1 to 1073741824" },
		{ "{\"num_ctx\":\"8192\"}", CR_ERR_PARSE, "num_ctx" },
		{ "{\"num_ctx\":8192.5}", CR_ERR_PARSE, "num_ctx" },
		{ "{\"num_ctx\":1e30}", CR_ERR_PARSE, "num_ctx" },
		{ "{\"num_batch\":-4}", CR_ERR_PARSE, "num_batch" },
		{ "{\"num_gpu\":-2}", CR_ERR_PARSE, "num_gpu" },
		{ "{\"num_predict\":-3}", CR_ERR_PARSE, "num_predict" },
	};
	cr_ollama_params p;
	cr_error err = CR_ERROR_INIT;
	const char *ok = "{\"num_ctx\":8192,\"stop\":[\"<|im_end|>\"],\"temperature\":0.6,\"num_gpu\":-1,"
			 "\"num_predict\":-1,\"\\u001b[31m\":1}";

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int rc = cr_ollama_parse_params(bad[i].json, strlen(bad[i].json), "p", &p, &err);

		if (rc != bad[i].status || !strstr(err.message, bad[i].needle))
			fail_msg("case %zu: %d '%s'", i, rc, err.message);
	}
	assert_int_equal(cr_ollama_parse_params(ok, strlen(ok), "p", &p, &err), 0);
	assert_int_equal(p.num_ctx, 8192);
	assert_int_equal(p.num_gpu, -1);
	assert_true(p.has_num_predict);
	assert_int_equal(p.num_predict, -1);
	/* A key no option has (an escape sequence) is not listed. */
	assert_string_equal(p.other_keys, "stop, temperature");
	assert_int_equal(cr_ollama_parse_params("{}", 2, "p", &p, &err), 0);
	assert_int_equal(p.num_ctx, 0);
	assert_int_equal(p.num_gpu, -1);
}

/* ---- the local store ---------------------------------------------------------------- */

static void test_local_store(void **state)
{
	char man[2000], blob[700], mpath[800];
	cr_model_source_opts o = opts(store);
	cr_model_source *m;
	static const char *const names[] = { "ollama:tiny:1b", "ollama:library/tiny:1b",
					     "ollama:registry.ollama.ai/library/tiny:1b" };

	(void)state;
	put_tiny(store, D_MODEL);
	good_manifest(man, sizeof(man), D_MODEL, tiny_len);
	put_manifest(store, "library", "tiny", "1b", man);
	put_params(store, "{\"num_ctx\":1024,\"stop\":[\"x\"]}");
	snprintf(blob, sizeof(blob), "%s/blobs/sha256-%s", store, D_MODEL + 7);
	snprintf(mpath, sizeof(mpath), "%s/manifests/registry.ollama.ai/library/tiny/1b", store);
	for (size_t i = 0; i < 3; i++) {
		m = expect_ok(names[i], &o);
		assert_int_equal(m->kind, CR_MODEL_SOURCE_OLLAMA);
		assert_true(m->from_gguf);
		assert_false(m->remote);
		assert_true(m->ollama.local);
		assert_string_equal(m->location, blob);
		assert_string_equal(m->ollama.manifest, mpath);
		assert_string_equal(m->ollama.name, "registry.ollama.ai/library/tiny:1b");
		assert_string_equal(m->model.id, "tiny:1b");
		assert_string_equal(m->ollama.model_digest, D_MODEL);
		assert_true(m->ollama.has_params && m->ollama.has_template);
		assert_int_equal(m->ollama.params.num_ctx, 1024);
		assert_string_equal(m->ollama.params.other_keys, "stop");
		assert_int_equal(m->file_bytes, tiny_len);
		assert_int_equal(m->model.n_layers, 2);
		assert_true(m->weights_bytes > 0);
		assert_int_equal(m->stats.requests > 0, 1); /* read(2) calls, no HTTP */
		assert_int_equal(count_log("/v2/"), 0);
		cr_model_source_free(m);
	}
	/* Offline, the store is the disk: no cache is needed. */
	o.cache = CR_MODEL_SOURCE_CACHE_OFFLINE;
	o.cache_dir = NULL;
	m = expect_ok("ollama:tiny:1b", &o);
	assert_false(m->cache_on);
	cr_model_source_free(m);
}

static void test_local_hostile(void **state)
{
	char man[2000], blob[700];
	cr_model_source_opts o = opts(store);
	static const unsigned char html[] = "<html><body>not a model</body></html>";

	(void)state;
	put_tiny(store, D_MODEL);
	put_params(store, "{\"num_ctx\":1024}");
	/* Not an object: the manifest's path in the message. */
	put_manifest(store, "library", "h1", "latest", "[1,2]");
	expect_fail("ollama:h1", &o, CR_ERR_PARSE, CR_REASON_OLLAMA_MANIFEST,
		    "/manifests/registry.ollama.ai/library/h1/latest: expected a JSON object");
	/* A traversal in the digest never becomes a path. */
	put_manifest(store, "library", "h2", "latest",
		     "{\"layers\":[{\"mediaType\":\"application/vnd.ollama.image.model\",\"digest\":\"sha256:../../../../../etc/passwd\",\"size\":1}]}");
	expect_fail("ollama:h2", &o, CR_ERR_PARSE, CR_REASON_OLLAMA_MANIFEST, "layers[0].digest: expected sha256:");
	/* No layers. */
	put_manifest(store, "library", "h3", "latest", "{\"schemaVersion\":2}");
	expect_fail("ollama:h3", &o, CR_ERR_PARSE, CR_REASON_OLLAMA_MANIFEST, "layers: missing");
	/* The model layer's blob is missing. */
	good_manifest(man, sizeof(man), D_BAD, 10);
	put_manifest(store, "library", "h4", "latest", man);
	expect_fail("ollama:h4", &o, CR_ERR_NOTFOUND, CR_REASON_OLLAMA_MANIFEST, "is not in the store");
	/* The blob is not the size the manifest says. */
	good_manifest(man, sizeof(man), D_MODEL, tiny_len + 1);
	put_manifest(store, "library", "h5", "latest", man);
	expect_fail("ollama:h5", &o, CR_ERR_INVALID, CR_REASON_OLLAMA_MANIFEST, "the manifest says");
	/* The blob is not a GGUF: the reader's reason, the source and the blob named. */
	snprintf(blob, sizeof(blob), "%s/blobs/sha256-%s", store,
		 "4444444444444444444444444444444444444444444444444444444444444444");
	put(blob, html, sizeof(html) - 1);
	good_manifest(man, sizeof(man), "sha256:4444444444444444444444444444444444444444444444444444444444444444",
		      sizeof(html) - 1);
	put_manifest(store, "library", "h6", "latest", man);
	expect_fail("ollama:h6", &o, CR_ERR_PARSE, CR_REASON_WEB_PAGE, "ollama:h6: model layer: ");
	expect_fail("ollama:h6", &o, CR_ERR_PARSE, CR_REASON_WEB_PAGE, blob);
	/* A params layer that is not options. */
	good_manifest(man, sizeof(man), D_MODEL, tiny_len);
	put_manifest(store, "library", "h7", "latest", man);
	put_params(store, "{\"num_ctx\":-5}");
	expect_fail("ollama:h7", &o, CR_ERR_PARSE, CR_REASON_OLLAMA_MANIFEST, "num_ctx: expected a whole number");
	put_params(store, "{\"num_ctx\":1024}");
	/* A manifest far larger than any Ollama writes. */
	{
		size_t n = CR_OLLAMA_MANIFEST_MAX_BYTES + 10;
		char *big = malloc(n + 1), path[800];

		assert_non_null(big);
		memset(big, ' ', n);
		big[0] = '{';
		big[n - 1] = '}';
		big[n] = '\0';
		snprintf(path, sizeof(path), "%s/manifests/registry.ollama.ai/library/h8/latest", store);
		put(path, big, n);
		free(big);
		expect_fail("ollama:h8", &o, CR_ERR_PARSE, CR_REASON_OLLAMA_MANIFEST, "an Ollama manifest is at most");
	}
	/* A manifest that is a directory. */
	{
		char path[800];

		snprintf(path, sizeof(path), "%s/manifests/registry.ollama.ai/library/h9/latest", store);
		mkdirs(path);
		expect_fail("ollama:h9", &o, CR_ERR_IO, CR_REASON_OLLAMA_MANIFEST, "h9/latest");
	}
	/* A malformed name. */
	expect_fail("ollama:../x", &o, CR_ERR_PARSE, CR_REASON_BAD_SOURCE, "ollama:../x");
}

/* ---- the registry -------------------------------------------------------------------- */

static void test_registry(void **state)
{
	char reg[400], man[2000];
	cr_model_source_opts o = opts(empty);
	cr_model_source *m;

	(void)state;
	snprintf(reg, sizeof(reg), "%s/ollama", www);
	put_tiny(reg, D_MODEL);
	good_manifest(man, sizeof(man), D_MODEL, tiny_len);
	put_manifest(reg, "library", "tiny", "2b", man);
	put_params(reg, "{\"num_ctx\":512}");
	m = expect_ok("ollama:tiny:2b", &o);
	assert_true(m->remote);
	assert_false(m->ollama.local);
	assert_int_equal(m->ollama.params.num_ctx, 512);
	assert_string_equal(m->model.id, "tiny:2b");
	assert_non_null(strstr(m->ollama.manifest, "/v2/library/tiny/manifests/2b"));
	assert_non_null(strstr(m->location, "/v2/library/tiny/blobs/" D_MODEL));
	assert_int_equal(cr_model_source_cache_outcome(m), CR_CACHE_MISS);
	assert_int_equal(m->file_bytes, tiny_len);
	cr_model_source_free(m);
	/* The manifest (Accept checked by the server: 406 without), the params blob, the model blob by Range. */
	assert_int_equal(count_log("/v2/library/tiny/manifests/2b"), 1);
	assert_int_equal(count_log("\"range\": \"bytes=0-262143\""), 2); /* the 307 and the CDN */
	assert_int_equal(count_log("\"status\": 307"), 2);
	/* Offline: from the header cache, no request. */
	each(NULL);
	m = expect_ok("ollama:tiny:2b", &o);
	cr_model_source_free(m);
	{
		FILE *f = fopen(logpath, "w");

		if (f)
			fclose(f);
	}
	o.cache = CR_MODEL_SOURCE_CACHE_OFFLINE;
	m = expect_ok("ollama:tiny:2b", &o);
	assert_int_equal(cr_model_source_cache_outcome(m), CR_CACHE_HIT);
	assert_int_equal(m->ollama.params.num_ctx, 512);
	cr_model_source_free(m);
	assert_int_equal(count_log("GET"), 0);
	expect_fail("ollama:tiny:3b", &o, CR_ERR_NOTFOUND, CR_REASON_OFFLINE_MISS, "/v2/library/tiny/manifests/3b");
	/* Online: a name the registry lacks. */
	o.cache = CR_MODEL_SOURCE_CACHE_USE;
	expect_fail("ollama:tiny:3b", &o, CR_ERR_NOTFOUND, CR_REASON_OLLAMA_NOT_FOUND, "nor on the registry");
	/* A hostile manifest from the registry: the URL and the JSON path named; not cached. */
	put_manifest(reg, "library", "evil", "latest",
		     "{\"layers\":[{\"mediaType\":\"application/vnd.ollama.image.model\",\"digest\":\"sha256:/../../../../root\",\"size\":1}]}");
	expect_fail("ollama:evil", &o, CR_ERR_PARSE, CR_REASON_OLLAMA_MANIFEST,
		    "/v2/library/evil/manifests/latest: layers[0].digest");
	put_manifest(reg, "library", "evil2", "latest", "<html>rate limited</html>");
	expect_fail("ollama:evil2", &o, CR_ERR_PARSE, CR_REASON_OLLAMA_MANIFEST, "evil2/manifests/latest: invalid JSON");
	/* A layer the registry lacks. */
	good_manifest(man, sizeof(man), D_BAD, 100);
	put_manifest(reg, "library", "gone", "latest", man);
	expect_fail("ollama:gone", &o, CR_ERR_NOTFOUND, CR_REASON_HTTP_NOT_FOUND, D_BAD);
	/* The local store wins over the registry: the same name in both. */
	{
		char man2[2000];

		put_tiny(store, D_MODEL);
		good_manifest(man2, sizeof(man2), D_MODEL, tiny_len);
		put_manifest(store, "library", "tiny", "2b", man2);
		put_params(store, "{\"num_ctx\":1024}");
		o.ollama_dir = store;
		m = expect_ok("ollama:tiny:2b", &o);
		assert_true(m->ollama.local);
		assert_int_equal(m->ollama.params.num_ctx, 1024);
		cr_model_source_free(m);
	}
}

/* ---- the Hugging Face hub cache ---------------------------------------------------------- */

static void put_hub_file(const char *repo_dir, const char *commit, const char *path, const char *blob_name)
{
	char blob[900], link[900], target[300];
	gb b;

	gb_init(&b);
	gb_tiny_llama(&b, 3, NULL);
	snprintf(blob, sizeof(blob), "%s/blobs/%s", repo_dir, blob_name);
	put(blob, b.p, b.len);
	gb_free(&b);
	snprintf(link, sizeof(link), "%s/snapshots/%s/%s", repo_dir, commit, path);
	put_text(link, "");
	assert_int_equal(unlink(link), 0);
	/* huggingface_hub's relative link: ../../blobs/NAME from snapshots/COMMIT/. */
	snprintf(target, sizeof(target), "%s../../blobs/%s", strchr(path, '/') ? "../" : "", blob_name);
	assert_int_equal(symlink(target, link), 0);
}

static void test_hub_cache(void **state)
{
	static const char commit[] = "0123456789abcdef0123456789abcdef01234567";
	char repo_dir[600], refs[700], loc[900];
	cr_model_source_opts o = opts(NULL);
	cr_model_source *m;

	(void)state;
	snprintf(repo_dir, sizeof(repo_dir), "%s/models--owner--tiny-GGUF", hub);
	put_hub_file(repo_dir, commit, "tiny-Q4_K_M.gguf", "aaaa");
	put_hub_file(repo_dir, commit, "sub/tiny-F16.gguf", "bbbb");
	snprintf(refs, sizeof(refs), "%s/refs/main", repo_dir);
	put_text(refs, commit);
	o.hf_hub_dir = hub;
	/* Offline and without a header cache: the hub cache is the disk. */
	o.cache = CR_MODEL_SOURCE_CACHE_OFFLINE;
	o.cache_dir = NULL;
	m = expect_ok("hf:owner/tiny-GGUF/tiny-Q4_K_M.gguf", &o);
	assert_true(m->from_hub_cache);
	assert_false(m->remote);
	snprintf(loc, sizeof(loc), "%s/snapshots/%s/tiny-Q4_K_M.gguf", repo_dir, commit);
	assert_string_equal(m->location, loc);
	cr_model_source_free(m);
	/* A quant from the snapshot's files, in a subfolder too. */
	m = expect_ok("hf:owner/tiny-GGUF:f16", &o);
	snprintf(loc, sizeof(loc), "%s/snapshots/%s/sub/tiny-F16.gguf", repo_dir, commit);
	assert_string_equal(m->location, loc);
	cr_model_source_free(m);
	/* Offline, the repository's list is the snapshot's GGUF files. */
	{
		cr_hf_entry *list = NULL;
		size_t ne = 0;
		cr_error err = CR_ERROR_INIT;

		assert_int_equal(cr_model_source_list("hf:owner/tiny-GGUF", &o, &list, &ne, NULL, &err), 0);
		assert_int_equal(ne, 2);
		free(list);
	}
	/* A commit as the revision: the snapshot directly. */
	o.revision = commit;
	m = expect_ok("hf:owner/tiny-GGUF/tiny-Q4_K_M.gguf", &o);
	assert_true(m->from_hub_cache);
	cr_model_source_free(m);
	o.revision = NULL;
	assert_int_equal(count_log("GET"), 0);
	/* Not in the hub cache: the header cache decides (offline: a miss). */
	o.cache_dir = cachedir;
	{
		cr_model_source *x = NULL;
		cr_error err = CR_ERROR_INIT;

		assert_int_equal(cr_model_source_resolve("hf:owner/tiny-GGUF/other.gguf", &o, &x, &err), CR_ERR_NOTFOUND);
		assert_int_equal(err.reason, CR_REASON_OFFLINE_MISS);
		assert_int_equal(cr_model_source_resolve("hf:owner/tiny-GGUF:Q8_0", &o, &x, &err), CR_ERR_NOTFOUND);
		assert_int_equal(err.reason, CR_REASON_OFFLINE_MISS);
		/* A revision the refs do not hold. */
		o.revision = "v2";
		assert_int_equal(cr_model_source_resolve("hf:owner/tiny-GGUF/tiny-Q4_K_M.gguf", &o, &x, &err),
				 CR_ERR_NOTFOUND);
		o.revision = "../../../../etc";
		assert_int_equal(cr_model_source_resolve("hf:owner/tiny-GGUF/tiny-Q4_K_M.gguf", &o, &x, &err),
				 CR_ERR_NOTFOUND);
		o.revision = NULL;
		/* A refs file that is not a commit is not followed. */
		put_text(refs, "../../../../../tmp\n");
		assert_int_equal(cr_model_source_resolve("hf:owner/tiny-GGUF/tiny-Q4_K_M.gguf", &o, &x, &err),
				 CR_ERR_NOTFOUND);
		assert_null(x);
	}
	/* A dangling link (the blob deleted) is not there. */
	put_text(refs, commit);
	snprintf(loc, sizeof(loc), "%s/blobs/aaaa", repo_dir);
	assert_int_equal(unlink(loc), 0);
	{
		cr_model_source *x = NULL;
		cr_error err = CR_ERROR_INIT;

		assert_int_equal(cr_model_source_resolve("hf:owner/tiny-GGUF/tiny-Q4_K_M.gguf", &o, &x, &err),
				 CR_ERR_NOTFOUND);
		assert_int_equal(err.reason, CR_REASON_OFFLINE_MISS);
	}
	/* The directory rule of huggingface_hub. */
	{
		char buf[600];

		assert_int_equal(cr_model_source_hf_hub_dir("/a", "/b", "/c", "/d", buf, sizeof(buf), NULL), 0);
		assert_string_equal(buf, "/a");
		assert_int_equal(cr_model_source_hf_hub_dir(NULL, "/b", "/c", "/d", buf, sizeof(buf), NULL), 0);
		assert_string_equal(buf, "/b/hub");
		assert_int_equal(cr_model_source_hf_hub_dir("", NULL, "/c", "/d", buf, sizeof(buf), NULL), 0);
		assert_string_equal(buf, "/c/huggingface/hub");
		assert_int_equal(cr_model_source_hf_hub_dir(NULL, NULL, NULL, "/d", buf, sizeof(buf), NULL), 0);
		assert_string_equal(buf, "/d/.cache/huggingface/hub");
		assert_int_equal(cr_model_source_hf_hub_dir(NULL, NULL, NULL, NULL, buf, sizeof(buf), NULL),
				 CR_ERR_NOTFOUND);
		assert_int_equal(cr_model_source_ollama_dir("/o", "/d", buf, sizeof(buf), NULL), 0);
		assert_string_equal(buf, "/o");
		assert_int_equal(cr_model_source_ollama_dir(NULL, "/d", buf, sizeof(buf), NULL), 0);
		assert_string_equal(buf, "/d/.ollama/models");
		assert_int_equal(cr_model_source_ollama_dir(NULL, NULL, buf, sizeof(buf), NULL), CR_ERR_NOTFOUND);
	}
}

/* ---- the models on this machine ------------------------------------------------------ */

static void test_local_scan(void **state)
{
	char st[400], hubd[400], lms[400], extra[400], path[900], man[2000];
	cr_local_scan_opts o = CR_LOCAL_SCAN_OPTS_INIT;
	cr_local_model *v = NULL;
	size_t n = 0;
	bool trunc = true;
	cr_error err = CR_ERROR_INIT;
	static const unsigned char junk[] = "junk";

	(void)state;
	snprintf(st, sizeof(st), "%s/scan/ollama", root);
	snprintf(hubd, sizeof(hubd), "%s/scan/hub", root);
	snprintf(lms, sizeof(lms), "%s/scan/lms", root);
	snprintf(extra, sizeof(extra), "%s/scan/extra", root);
	put_tiny(st, D_MODEL);
	good_manifest(man, sizeof(man), D_MODEL, tiny_len);
	put_manifest(st, "library", "tiny", "1b", man);
	put_params(st, "{\"num_ctx\":1024}");
	put_manifest(st, "library", "broken", "latest", "{}");
	put_manifest(st, "library", ".hidden", "latest", man);         /* not a name Ollama writes */
	{
		char repo_dir[600], refs[700];

		snprintf(repo_dir, sizeof(repo_dir), "%s/models--o--r", hubd);
		put_hub_file(repo_dir, "0123456789abcdef0123456789abcdef01234567", "m-Q8_0.gguf", "cccc");
		put_hub_file(repo_dir, "0123456789abcdef0123456789abcdef01234567", "mmproj-F16.gguf", "dddd");
		put_hub_file(repo_dir, "fedcba9876543210fedcba9876543210fedcba98", "old.gguf", "eeee");
		snprintf(refs, sizeof(refs), "%s/refs/main", repo_dir);
		put_text(refs, "0123456789abcdef0123456789abcdef01234567");
	}
	{
		gb b;

		gb_init(&b);
		gb_tiny_llama(&b, 3, NULL);
		snprintf(path, sizeof(path), "%s/pub/repo/a.gguf", lms);
		put(path, b.p, b.len);
		snprintf(path, sizeof(path), "%s/x-00002-of-00002.gguf", extra); /* a later part: not listed */
		put(path, b.p, b.len);
		gb_free(&b);
	}
	snprintf(path, sizeof(path), "%s/bad.gguf", extra);
	put(path, junk, sizeof(junk) - 1);
	o.ollama_dir = st;
	o.hf_hub_dir = hubd;
	o.lmstudio_dirs[o.n_lmstudio++] = lms;
	o.paths[o.n_paths++] = extra;
	snprintf(path, sizeof(path), "%s/none.gguf", root);
	o.paths[o.n_paths++] = path;
	assert_int_equal(cr_local_scan(&o, &v, &n, &trunc, &err), 0);
	assert_false(trunc);
	if (n != 7)
		for (size_t i = 0; i < n; i++)
			print_message("%s %s %s\n", cr_local_store_name(v[i].store), v[i].source, v[i].error);
	assert_int_equal(n, 7);
	/* Sorted by store, then source. */
	assert_string_equal(v[0].source, "ollama:broken:latest");
	assert_int_equal(v[0].status, CR_ERR_PARSE);
	assert_non_null(strstr(v[0].error, "layers: missing"));
	assert_string_equal(v[1].source, "ollama:tiny:1b");
	assert_int_equal(v[1].status, 0);
	assert_int_equal(v[1].ollama_num_ctx, 1024);
	assert_string_equal(v[1].arch, "llama");
	assert_int_equal(v[1].file_bytes, tiny_len);
	assert_true(v[1].params > 0);
	assert_int_equal(v[2].store, CR_LOCAL_HF);
	assert_non_null(strstr(v[2].source, "/snapshots/fedcba9876543210fedcba9876543210fedcba98/old.gguf"));
	assert_string_equal(v[3].source, "hf:o/r/m-Q8_0.gguf");
	assert_int_equal(v[3].status, 0);
	assert_int_equal(v[4].store, CR_LOCAL_LMSTUDIO);
	assert_int_equal(v[4].status, 0);
	assert_int_equal(v[5].store, CR_LOCAL_PATH);
	/* ROOT/none.gguf sorts before ROOT/scan/extra/bad.gguf. */
	assert_non_null(strstr(v[5].source, "/none.gguf"));
	assert_int_equal(v[5].status, CR_ERR_IO);
	assert_non_null(strstr(v[6].source, "/bad.gguf"));
	assert_int_equal(v[6].status, CR_ERR_PARSE);
	free(v);
	assert_int_equal(count_log("GET"), 0);
	/* Nothing named: nothing found, no error. */
	{
		cr_local_scan_opts none = CR_LOCAL_SCAN_OPTS_INIT;

		assert_int_equal(cr_local_scan(&none, &v, &n, NULL, &err), 0);
		assert_int_equal(n, 0);
		free(v);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_paths_and_urls),
		cmocka_unit_test(test_manifest_hostile),
		cmocka_unit_test(test_params),
		cmocka_unit_test_setup(test_local_store, each),
		cmocka_unit_test_setup(test_local_hostile, each),
		cmocka_unit_test_setup(test_registry, each),
		cmocka_unit_test_setup(test_hub_cache, each),
		cmocka_unit_test_setup(test_local_scan, each),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
