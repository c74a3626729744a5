/*
 * Model sources (model_source.h) called directly: the kinds of a SOURCE,
 * catalog ids, local files and split parts, and remote ones against a real
 * HTTP server on 127.0.0.1 (http_server.py: a Hugging Face-shaped tree and
 * resolve/CDN redirect, a gated repository, statuses): the quant pick, the
 * cache outcome, the token scoping (read from the server's request log) and
 * every reason code the resolver sets or passes up.
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
#include "support.h"

static char root[256];     /* the test's directory */
static char www[300];      /* served files */
static char cachedir[400]; /* the cache, emptied per test */
static char logpath[400];  /* the server's request log */
static char base[128];     /* http://127.0.0.1:PORT */
static ts_server server;

/* ---- helpers ------------------------------------------------------------------ */

static void run_cmd(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void run_cmd(const char *fmt, ...)
{
	char cmd[1600];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	if (system(cmd) != 0)
		fail_msg("command failed: %s", cmd);
}

static void write_file(const char *name, const char *bytes)
{
	char path[400];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", www, name);
	f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fputs(bytes, f) >= 0, 1);
	assert_int_equal(fclose(f), 0);
}

/* Options against the loopback server, the cache in cachedir. */
static cr_model_source_opts opts(cr_model_source_cache mode)
{
	cr_model_source_opts o = CR_MODEL_SOURCE_OPTS_INIT;

	o.cache = mode;
	o.cache_dir = cachedir;
	o.hf_endpoint = base;
	return o;
}

/* Resolve and expect a failure with @p status and @p reason. */
static void expect_fail(const char *source, const cr_model_source_opts *o, int status, cr_reason reason)
{
	cr_model_source *m = (cr_model_source *)(uintptr_t)1;
	cr_error err = CR_ERROR_INIT;
	int rc = cr_model_source_resolve(source, o, &m, &err);

	if (rc != status || err.reason != reason)
		fail_msg("%s: status %d reason %s (%s), expected %d %s", source, rc, cr_reason_name(err.reason),
			 err.message, status, cr_reason_name(reason));
	assert_null(m);
	assert_int_equal(err.status, status);
	assert_true(err.message[0] != '\0');
}

static cr_model_source *expect_ok(const char *source, const cr_model_source_opts *o)
{
	cr_model_source *m = NULL;
	cr_error err = CR_ERROR_INIT;
	int rc = cr_model_source_resolve(source, o, &m, &err);

	if (rc)
		fail_msg("%s: %s (reason %s)", source, err.message, cr_reason_name(err.reason));
	assert_non_null(m);
	return m;
}

/* Requests in the server log whose path contains @p part, and how many of
 * them carried an Authorization header. */
static void count_log(const char *part, int *requests, int *with_auth)
{
	char line[2048];
	FILE *f = fopen(logpath, "r");

	*requests = *with_auth = 0;
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (!strstr(line, part))
			continue;
		(*requests)++;
		if (strstr(line, "\"auth\": true"))
			(*with_auth)++;
	}
	fclose(f);
}

static void clear_log(void)
{
	FILE *f = fopen(logpath, "w");

	if (f)
		fclose(f);
}

/* ---- the server ------------------------------------------------------------------ */

static int setup(void **state)
{
	(void)state;
	if (ts_tmpdir(root, sizeof(root), "model-source"))
		return -1;
	snprintf(cachedir, sizeof(cachedir), "%s/cache/clefrun", root);
	snprintf(logpath, sizeof(logpath), "%s/server.log", root);
	snprintf(www, sizeof(www), "%s/www", root);
	if (mkdir(www, 0700) != 0)
		return -1;
	{
		char cmd[1600];

		/* Two quants of one model (the tree names the quant), a split
		 * model, and a header-only file (tensor data missing). */
		snprintf(cmd, sizeof(cmd),
			 "cd '%s' && cp tiny-llama.gguf '%s/tiny-Q4_K_M.gguf' && cp tiny-llama.gguf '%s/tiny-F16.gguf' && "
			 "cp tiny-split-00001-of-00002.gguf tiny-split-00002-of-00002.gguf '%s/' && "
			 "cp llama-3.1-8b.hdr.gguf '%s/cut-Q8_0.gguf'",
			 CLEFRUN_GGUF_FIXTURES, www, www, www, www);
		if (system(cmd) != 0)
			return -1;
	}
	if (ts_server_start(&server, www, logpath))
		return -1;
	snprintf(base, sizeof(base), "%s", server.base);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	ts_server_stop(&server);
	return ts_rm_tree(root);
}

static int each(void **state)
{
	(void)state;
	run_cmd("rm -rf '%s'", cachedir);
	clear_log();
	return 0;
}

/* ---- kinds --------------------------------------------------------------------- */

static void test_classify(void **state)
{
	static const struct {
		const char *s;
		cr_model_source_kind kind;
	} cases[] = {
		{ "llama-3.1-8b", CR_MODEL_SOURCE_CATALOG },
		{ "model.gguf", CR_MODEL_SOURCE_FILE },
		{ "MODEL.GGUF", CR_MODEL_SOURCE_FILE },
		{ ".gguf", CR_MODEL_SOURCE_CATALOG }, /* nothing before the extension */
		{ "dir/model", CR_MODEL_SOURCE_FILE },
		{ "./a://b.gguf", CR_MODEL_SOURCE_FILE },
		{ "http://h/x.gguf", CR_MODEL_SOURCE_URL },
		{ "HTTPS://h/x.gguf", CR_MODEL_SOURCE_URL },
		{ "ftp://h/x.gguf", CR_MODEL_SOURCE_BAD_URL },
		{ "s3+x.y://b/k", CR_MODEL_SOURCE_BAD_URL },
		{ "hf:o/r", CR_MODEL_SOURCE_HF },
		{ "hf:o/r:Q4_K_M", CR_MODEL_SOURCE_HF },
		{ "HF:o/r", CR_MODEL_SOURCE_FILE }, /* the prefix is lower case; the '/' makes it a path */
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		if (cr_model_source_classify(cases[i].s) != cases[i].kind)
			fail_msg("%s: kind %d, expected %d", cases[i].s, cr_model_source_classify(cases[i].s),
				 cases[i].kind);
}

/* ---- catalog ids ------------------------------------------------------------------ */

static void test_catalog(void **state)
{
	cr_model_source_opts o = CR_MODEL_SOURCE_OPTS_INIT;
	cr_error err = CR_ERROR_INIT;
	cr_catalog *cat = NULL;
	const cr_model *first;
	cr_model_source *m;

	(void)state;
	assert_int_equal(cr_catalog_load_embedded(&cat, &err), CR_OK);
	first = cr_catalog_model_at(cat, 0);
	expect_fail(first->id, &o, CR_ERR_INVALID, CR_REASON_BAD_SOURCE); /* no catalog given */
	o.catalog = cat;
	m = expect_ok(first->id, &o);
	assert_int_equal(m->kind, CR_MODEL_SOURCE_CATALOG);
	assert_string_equal(m->model.id, first->id);
	assert_false(m->from_gguf);
	assert_int_equal(m->weights_bytes, 0);
	assert_int_equal(m->n_parts, 0);
	cr_model_source_free(m);
	expect_fail("no-such-model-anywhere", &o, CR_ERR_NOTFOUND, CR_REASON_UNKNOWN_MODEL);
	cr_catalog_free(cat);
}

/* ---- local files ------------------------------------------------------------------ */

static void test_local_file(void **state)
{
	cr_model_source_opts o = CR_MODEL_SOURCE_OPTS_INIT;
	char path[512];
	uint64_t sum = 0;
	struct stat st;
	cr_model_source *m;

	(void)state;
	snprintf(path, sizeof(path), "%s/tiny-llama.gguf", CLEFRUN_GGUF_FIXTURES);
	assert_int_equal(stat(path, &st), 0);
	m = expect_ok(path, &o);
	assert_int_equal(m->kind, CR_MODEL_SOURCE_FILE);
	assert_true(m->from_gguf);
	assert_false(m->remote);
	assert_false(m->cache_on);
	assert_int_equal(cr_model_source_cache_outcome(m), CR_CACHE_NONE);
	assert_int_equal(m->n_parts, 1);
	assert_string_equal(m->location, path);
	assert_int_equal(m->file_bytes, (uint64_t)st.st_size);
	/* The exact bytes: the mapping's, the headers' total, and by type. */
	assert_true(m->weights_bytes > 0);
	assert_int_equal(m->weights_bytes, m->gguf.weights_bytes);
	assert_int_equal(m->weights_bytes, cr_gguf_tensor_bytes(m->parts[0]));
	for (size_t t = 0; t < CR_GGML_TYPE_COUNT; t++)
		sum += m->type_bytes[t];
	assert_int_equal(sum, m->weights_bytes);
	assert_memory_equal(&m->model, &m->gguf.model, sizeof(m->model));
	assert_string_equal(m->file_type, m->gguf.file_type);
	assert_true(m->stats.bytes_read > 0);
	cr_model_source_free(m);
	cr_model_source_free(NULL);
}

static void test_local_split(void **state)
{
	cr_model_source_opts o = CR_MODEL_SOURCE_OPTS_INIT;
	char path[512];
	cr_model_source *m;

	(void)state;
	snprintf(path, sizeof(path), "%s/tiny-split-00001-of-00002.gguf", CLEFRUN_GGUF_FIXTURES);
	m = expect_ok(path, &o);
	assert_int_equal(m->n_parts, 2);
	assert_int_equal(m->weights_bytes, cr_gguf_tensor_bytes(m->parts[0]) + cr_gguf_tensor_bytes(m->parts[1]));
	assert_int_equal(m->file_bytes, cr_gguf_file_size(m->parts[0]) + cr_gguf_file_size(m->parts[1]));
	cr_model_source_free(m);

	snprintf(path, sizeof(path), "%s/tiny-split-00002-of-00002.gguf", CLEFRUN_GGUF_FIXTURES);
	expect_fail(path, &o, CR_ERR_INVALID, CR_REASON_SPLIT_NOT_FIRST);
	snprintf(path, sizeof(path), "%s/split-no-past-count.hdr.gguf", CLEFRUN_GGUF_FIXTURES);
	o.allow_truncated = true;
	expect_fail(path, &o, CR_ERR_INVALID, CR_REASON_NONE);
	o.allow_truncated = false;

	/* Part 1 under a name that does not say which part of how many: one
	 * message, naming the file once. */
	{
		static const char *const names[] = { "renamed.gguf", "x-00001-of-00003.gguf", "y-00002-of-00002.gguf" };
		static const char *const says[] = { "the name does not end in -00001-of-00002.gguf",
						    "the header says part 1 of 2, but the name says part 1 of 3",
						    "the header says part 1 of 2, but the name says part 2 of 2" };

		for (size_t i = 0; i < 3; i++) {
			cr_error err = CR_ERROR_INIT;
			cr_model_source *bad = NULL;
			const char *at;

			run_cmd("cp '%s/tiny-split-00001-of-00002.gguf' '%s/%s'", CLEFRUN_GGUF_FIXTURES, www, names[i]);
			snprintf(path, sizeof(path), "%s/%s", www, names[i]);
			assert_int_equal(cr_model_source_resolve(path, &o, &bad, &err), CR_ERR_INVALID);
			assert_null(bad);
			assert_non_null(strstr(err.message, says[i]));
			at = strstr(err.message, names[i]);
			assert_non_null(at);
			assert_null(strstr(at + 1, names[i])); /* named once */
		}
	}
}

static void test_local_reasons(void **state)
{
	cr_model_source_opts o = CR_MODEL_SOURCE_OPTS_INIT;
	char path[512];
	cr_model_source *m;

	(void)state;
	snprintf(path, sizeof(path), "%s/llama-3.1-8b.hdr.gguf", CLEFRUN_GGUF_FIXTURES);
	expect_fail(path, &o, CR_ERR_PARSE, CR_REASON_TRUNCATED);
	o.allow_truncated = true;
	m = expect_ok(path, &o);
	assert_true(m->weights_bytes > m->file_bytes); /* the tensors are not in the file */
	cr_model_source_free(m);
	o.allow_truncated = false;

	write_file("page.gguf", "<!DOCTYPE html><html><body>a page, not a file, long enough for a header</body></html>");
	snprintf(path, sizeof(path), "%s/page.gguf", www);
	expect_fail(path, &o, CR_ERR_PARSE, CR_REASON_WEB_PAGE);
	write_file("zeros.gguf", "GGUX and then enough bytes to be longer than a GGUF header");
	snprintf(path, sizeof(path), "%s/zeros.gguf", www);
	expect_fail(path, &o, CR_ERR_PARSE, CR_REASON_NOT_GGUF);
	snprintf(path, sizeof(path), "%s/absent.gguf", www);
	expect_fail(path, &o, CR_ERR_IO, CR_REASON_NONE);
}

static void test_bad_sources(void **state)
{
	cr_model_source_opts o = opts(CR_MODEL_SOURCE_CACHE_OFF);
	cr_model_source *m = NULL;
	cr_error err = CR_ERROR_INIT;

	(void)state;
	expect_fail("hf:bad owner/r", &o, CR_ERR_PARSE, CR_REASON_BAD_SOURCE);
	expect_fail("http:///x.gguf", &o, CR_ERR_INVALID, CR_REASON_BAD_SOURCE);
	expect_fail("https://user@/x.gguf", &o, CR_ERR_INVALID, CR_REASON_BAD_SOURCE);
	expect_fail("ftp://host/x.gguf", &o, CR_ERR_INVALID, CR_REASON_BAD_SOURCE);
	expect_fail("hf:o/r", &o, CR_ERR_INVALID, CR_REASON_HF_REPO);
	/* The message names the source, credentials redacted, and never a flag. */
	assert_int_equal(cr_model_source_resolve("ftp://u:secret@h/x.gguf", &o, &m, &err), CR_ERR_INVALID);
	assert_non_null(strstr(err.message, "unsupported URL scheme 'ftp'"));
	assert_null(strstr(err.message, "--"));
	/* A long source is cut in the message. */
	{
		char longurl[300];

		snprintf(longurl, sizeof(longurl), "ftp://%0250d", 0);
		assert_int_equal(cr_model_source_resolve(longurl, &o, &m, &err), CR_ERR_INVALID);
		assert_non_null(strstr(err.message, "... (256 bytes)"));
	}
	assert_null(m);
	assert_string_equal(cr_reason_name(CR_REASON_SPLIT_NOT_FIRST), "split-not-first");
	assert_string_equal(cr_reason_name((cr_reason)999), "unknown reason");
}

/* ---- remote: URLs and Hugging Face names --------------------------------------------- */

static void test_url_no_cache(void **state)
{
	cr_model_source_opts o = opts(CR_MODEL_SOURCE_CACHE_OFF);
	char url[256];
	cr_model_source *m;
	int n, auth;

	(void)state;
	/* A token is configured, the URL is on the endpoint's host but not
	 * under an endpoint path: no token goes. */
	o.hf_endpoint = "http://127.0.0.1:1/hf";
	o.hf_token = "secret-token";
	snprintf(url, sizeof(url), "HTTP://%s/files/tiny-F16.gguf", base + strlen("http://"));
	m = expect_ok(url, &o);
	assert_int_equal(m->kind, CR_MODEL_SOURCE_URL);
	assert_true(m->remote);
	assert_false(m->cache_on);
	assert_int_equal(strncmp(m->location, "http://", 7), 0); /* the scheme in lower case */
	assert_true(m->stats.requests >= 1);
	assert_int_equal(cr_model_source_cache_outcome(m), CR_CACHE_NONE);
	cr_model_source_free(m);
	count_log("/files/tiny-F16.gguf", &n, &auth);
	assert_true(n >= 1);
	assert_int_equal(auth, 0);

	/* 401 from a host that never gets the token: the transport's reason stands. */
	snprintf(url, sizeof(url), "%s/status/401", base);
	expect_fail(url, &o, CR_ERR_IO, CR_REASON_HTTP_AUTH);
	snprintf(url, sizeof(url), "%s/status/404", base);
	expect_fail(url, &o, CR_ERR_NOTFOUND, CR_REASON_HTTP_NOT_FOUND);
}

static void test_hf_quant_and_cache(void **state)
{
	cr_model_source_opts o = opts(CR_MODEL_SOURCE_CACHE_USE);
	cr_model_source *m;
	char want[256];

	(void)state;
	m = expect_ok("hf:owner/repo:q4_k_m", &o);
	assert_int_equal(m->kind, CR_MODEL_SOURCE_HF);
	assert_true(m->remote);
	assert_true(m->cache_on);
	snprintf(want, sizeof(want), "%s/owner/repo/resolve/main/tiny-Q4_K_M.gguf", base);
	assert_string_equal(m->location, want);
	assert_int_equal(cr_model_source_cache_outcome(m), CR_CACHE_MISS);
	assert_int_equal(m->cache_misses, 2); /* the list and the header */
	assert_true(m->stats.requests >= 2);
	assert_true(m->weights_bytes > 0);
	cr_model_source_free(m);

	/* Again: both from the cache, no request. */
	clear_log();
	m = expect_ok("hf:owner/repo:Q4_K_M", &o);
	assert_int_equal(cr_model_source_cache_outcome(m), CR_CACHE_HIT);
	assert_int_equal(m->cache_hits, 2);
	assert_int_equal(m->stats.requests, 0);
	cr_model_source_free(m);
	{
		int n, auth;

		count_log("/", &n, &auth);
		assert_int_equal(n, 0);
	}

	/* Offline: the cached file is there, another is not. */
	o.cache = CR_MODEL_SOURCE_CACHE_OFFLINE;
	m = expect_ok("hf:owner/repo/tiny-Q4_K_M.gguf", &o);
	assert_int_equal(m->stats.requests, 0);
	cr_model_source_free(m);
	expect_fail("hf:owner/repo/tiny-F16.gguf", &o, CR_ERR_NOTFOUND, CR_REASON_OFFLINE_MISS);
	/* Offline, a file absent from the repository is a miss, not a "not found" to list. */
	expect_fail("hf:owner/repo/absent.gguf", &o, CR_ERR_NOTFOUND, CR_REASON_OFFLINE_MISS);
	/* Offline without any cache directory. */
	o.cache_dir = NULL;
	o.xdg_cache_home = NULL;
	o.home = NULL;
	expect_fail("hf:owner/repo/tiny-F16.gguf", &o, CR_ERR_INVALID, CR_REASON_OFFLINE_NO_CACHE_DIR);
	/* Online without one: the network only. */
	o.cache = CR_MODEL_SOURCE_CACHE_USE;
	m = expect_ok("hf:owner/repo/tiny-F16.gguf", &o);
	assert_false(m->cache_on);
	cr_model_source_free(m);
}

static void test_hf_split_and_list(void **state)
{
	cr_model_source_opts o = opts(CR_MODEL_SOURCE_CACHE_OFF);
	cr_source_stats st = { 0, 0, 0 };
	cr_error err = CR_ERROR_INIT;
	cr_hf_entry *e = NULL;
	cr_model_source *m;
	size_t n = 0;
	bool split = false;

	(void)state;
	m = expect_ok("hf:owner/repo/tiny-split-00001-of-00002.gguf", &o);
	assert_int_equal(m->n_parts, 2);
	assert_int_equal(m->cache_misses, 0);
	cr_model_source_free(m);

	assert_int_equal(cr_model_source_list("hf:owner/repo", &o, &e, &n, &st, &err), CR_OK);
	assert_true(n >= 4);
	for (size_t i = 0; i < n; i++)
		if (strcmp(e[i].path, "tiny-split-00001-of-00002.gguf") == 0)
			split = e[i].parts == 2;
	assert_true(split);
	assert_int_equal(st.requests, 1);
	free(e);
	assert_int_equal(cr_model_source_list("hf:owner/missing", &o, &e, &n, NULL, &err), CR_ERR_NOTFOUND);
	assert_int_equal(err.reason, CR_REASON_HF_REPO_NOT_FOUND);
	assert_null(e);
	assert_int_equal(cr_model_source_list("hf:no", &o, &e, &n, NULL, &err), CR_ERR_PARSE);
	assert_int_equal(err.reason, CR_REASON_BAD_SOURCE);
}

static void test_hf_not_found(void **state)
{
	cr_model_source_opts o = opts(CR_MODEL_SOURCE_CACHE_OFF);
	cr_model_source *m = NULL;
	cr_error err = CR_ERROR_INIT;

	(void)state;
	expect_fail("hf:owner/repo/absent.gguf", &o, CR_ERR_NOTFOUND, CR_REASON_HF_FILE_NOT_FOUND);
	expect_fail("hf:owner/missing:Q4_K_M", &o, CR_ERR_NOTFOUND, CR_REASON_HF_REPO_NOT_FOUND);
	expect_fail("hf:owner/repo:Q2_K", &o, CR_ERR_NOTFOUND, CR_REASON_HF_NO_QUANT);
	assert_int_equal(cr_model_source_resolve("hf:owner/repo:Q2_K", &o, &m, &err), CR_ERR_NOTFOUND);
	assert_non_null(strstr(err.message, "no GGUF file of quant Q2_K (the repository has: "));
	assert_non_null(strstr(err.message, "Q4_K_M"));
	/* A truncated remote header: the reader's reason through the transport. */
	expect_fail("hf:owner/repo:Q8_0", &o, CR_ERR_PARSE, CR_REASON_TRUNCATED);
	o.allow_truncated = true;
	m = expect_ok("hf:owner/repo:Q8_0", &o);
	cr_model_source_free(m);
}

static void test_token_scoping(void **state)
{
	cr_model_source_opts o = opts(CR_MODEL_SOURCE_CACHE_OFF);
	cr_model_source *m;
	int n, auth;

	(void)state;
	/* No token: the endpoint's 401 is CR_REASON_HF_AUTH. */
	expect_fail("hf:gated/repo/tiny-F16.gguf", &o, CR_ERR_IO, CR_REASON_HF_AUTH);
	expect_fail("hf:gated/repo:Q4_K_M", &o, CR_ERR_IO, CR_REASON_HF_AUTH);
	/* A token refused. */
	o.hf_token = "wrong-token";
	expect_fail("hf:gated/repo/tiny-F16.gguf", &o, CR_ERR_IO, CR_REASON_HTTP_TOKEN_REFUSED);

	/* The token from a token file (HF_HOME/token); it goes to the endpoint,
	 * not to the CDN the endpoint redirects to (another host). */
	run_cmd("mkdir -p '%s/hf' && printf 'secret-token\\n' > '%s/hf/token'", root, root);
	o.hf_token = NULL;
	o.hf_home = NULL;
	{
		char home[320];

		snprintf(home, sizeof(home), "%s/hf", root);
		o.hf_home = home;
		clear_log();
		m = expect_ok("hf:gated/repo:Q4_K_M", &o);
		cr_model_source_free(m);
	}
	count_log("/api/models/gated/repo/tree/", &n, &auth);
	assert_int_equal(n, 1);
	assert_int_equal(auth, 1);
	count_log("/gated/repo/resolve/main/tiny-Q4_K_M.gguf", &n, &auth);
	assert_true(n >= 1);
	assert_int_equal(auth, n);
	count_log("/cdn/tiny-Q4_K_M.gguf", &n, &auth);
	assert_true(n >= 1);
	assert_int_equal(auth, 0);
}

/* ---- the token rules (hf.h) --------------------------------------------------------- */

static void test_token_sources(void **state)
{
	cr_hf_token_sources ts = CR_HF_TOKEN_SOURCES_INIT;
	cr_error err = CR_ERROR_INIT;
	char buf[CR_HF_TOKEN_MAX], p1[400], p2[400];

	(void)state;
	run_cmd("cd '%s' && mkdir -p t/.cache/huggingface t/hfhome && printf ' home-token \\n' > "
		"t/.cache/huggingface/token && printf 'hfhome-token' > t/hfhome/token && "
		"printf 'path-token\\n' > t/path-token",
		root);
	assert_int_equal(cr_hf_find_token(&ts, buf, sizeof(buf), &err), CR_ERR_NOTFOUND);
	snprintf(p1, sizeof(p1), "%s/t", root);
	ts.home = p1;
	assert_int_equal(cr_hf_find_token(&ts, buf, sizeof(buf), &err), CR_OK);
	assert_string_equal(buf, "home-token");
	snprintf(p2, sizeof(p2), "%s/t/hfhome", root);
	ts.hf_home = p2;
	assert_int_equal(cr_hf_find_token(&ts, buf, sizeof(buf), &err), CR_OK);
	assert_string_equal(buf, "hfhome-token");
	{
		char p3[400];

		snprintf(p3, sizeof(p3), "%s/t/path-token", root);
		ts.token_path = p3;
		assert_int_equal(cr_hf_find_token(&ts, buf, sizeof(buf), &err), CR_OK);
		assert_string_equal(buf, "path-token");
		ts.token = "";
		assert_int_equal(cr_hf_find_token(&ts, buf, sizeof(buf), &err), CR_OK);
		assert_string_equal(buf, "path-token");
		ts.token = "env-token";
		assert_int_equal(cr_hf_find_token(&ts, buf, sizeof(buf), &err), CR_OK);
		assert_string_equal(buf, "env-token");
		/* Set but naming no file: no token (the next source is not tried). */
		ts.token = NULL;
		ts.token_path = "/nonexistent/token";
		assert_int_equal(cr_hf_find_token(&ts, buf, sizeof(buf), &err), CR_ERR_NOTFOUND);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_classify),
		cmocka_unit_test(test_catalog),
		cmocka_unit_test(test_local_file),
		cmocka_unit_test(test_local_split),
		cmocka_unit_test(test_local_reasons),
		cmocka_unit_test_setup(test_bad_sources, each),
		cmocka_unit_test_setup(test_url_no_cache, each),
		cmocka_unit_test_setup(test_hf_quant_and_cache, each),
		cmocka_unit_test_setup(test_hf_split_and_list, each),
		cmocka_unit_test_setup(test_hf_not_found, each),
		cmocka_unit_test_setup(test_token_scoping, each),
		cmocka_unit_test_setup(test_token_sources, each),
	};
	/* libcurl: loaded by the library at the first URL (curl_dl.h). */
	return cmocka_run_group_tests(tests, setup, teardown);
}
