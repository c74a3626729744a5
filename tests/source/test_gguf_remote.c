/*
 * Remote reading against a real HTTP server on 127.0.0.1 (tests/support,
 * started here on an ephemeral port and killed at the end): Range reads,
 * request and byte budgets counted from the server's own log, servers that
 * ignore Range or lie in Content-Range, truncated and slow bodies, HTTP
 * errors, redirects (limits, loops, file://), bearer tokens that must not
 * follow a redirect to another host, and a Hugging Face-shaped repository.
 */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "clefrun/clefrun.h"
#include "support.h"

static ts_server server;
static int port;
static char logpath[600];
static char base[128];

static int start_server(void **state)
{
	(void)state;
	snprintf(logpath, sizeof(logpath), "%s/server.log", CLEFRUN_SERVED_DIR "/..");
	if (ts_server_start(&server, CLEFRUN_SERVED_DIR, logpath))
		return -1;
	port = server.port;
	snprintf(base, sizeof(base), "%s", server.base);
	return 0;
}

static int stop_server(void **state)
{
	(void)state;
	ts_server_stop(&server);
	return 0;
}

/* The server's log since the last reset: requests and body bytes, and how
 * many requests match a path prefix with or without Authorization. */
typedef struct logsum {
	int requests;
	uint64_t bytes;
} logsum;

static void log_reset(void)
{
	FILE *f = fopen(logpath, "w");

	assert_non_null(f);
	fclose(f);
}

static logsum log_read(const char *path_prefix, int auth)
{
	logsum s = { 0, 0 };
	char line[4096];
	FILE *f = fopen(logpath, "r");

	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		char want[256];
		const char *b;

		if (path_prefix) {
			snprintf(want, sizeof(want), "\"path\": \"%s", path_prefix);
			if (!strstr(line, want))
				continue;
		}
		if (auth >= 0 && !strstr(line, auth ? "\"auth\": true" : "\"auth\": false"))
			continue;
		s.requests++;
		if ((b = strstr(line, "\"bytes\": ")))
			s.bytes += strtoull(b + 9, NULL, 10);
	}
	fclose(f);
	return s;
}

static void url(char *buf, size_t cap, const char *path)
{
	snprintf(buf, cap, "%s%s", base, path);
}

/* Open and parse; returns the status, fills err and stats. */
static int load(const char *path, const cr_http_opts *o, cr_source_stats *st, cr_error *err,
		uint64_t *header)
{
	char u[512];
	cr_source *s = NULL;
	cr_gguf *g = NULL;
	int rc;

	url(u, sizeof(u), path);
	rc = cr_source_open_url(u, o, &s, err);
	if (!rc)
		rc = cr_gguf_load(s, NULL, &g, err);
	if (s && st)
		cr_source_get_stats(s, st);
	if (g && header)
		*header = cr_gguf_data_offset(g);
	cr_gguf_free(g);
	cr_source_free(s);
	return rc;
}

static void test_small_header_one_request(void **state)
{
	cr_error err = CR_ERROR_INIT;
	cr_source_stats st;
	uint64_t hdr = 0;
	logsum l;

	(void)state;
	log_reset();
	assert_int_equal(load("/files/tiny-llama.gguf", NULL, &st, &err, &hdr), 0);
	l = log_read(NULL, -1);
	assert_int_equal(l.requests, 1);
	assert_int_equal(st.requests, 1);
	/* The whole 83 KB file fits the first range. */
	assert_int_equal(l.bytes, st.bytes_fetched);
}

static void test_header_under_1mib_budget(void **state)
{
	cr_error err = CR_ERROR_INIT;
	cr_source_stats st;
	uint64_t hdr = 0;
	logsum l;

	(void)state;
	log_reset();
	if (load("/files/big.gguf", NULL, &st, &err, &hdr))
		fail_msg("%s", err.message);
	l = log_read(NULL, -1);
	assert_true(hdr > (256u << 10) && hdr < (1u << 20));
	/* The budget: 2 requests, at most header + 256 KiB. */
	assert_int_equal(l.requests, 2);
	assert_true(l.bytes <= hdr + (256u << 10));
	assert_int_equal(l.bytes, st.bytes_fetched);
}

static void test_large_header(void **state)
{
	cr_error err = CR_ERROR_INIT;
	cr_source_stats st;
	uint64_t hdr = 0;
	logsum l;

	(void)state;
	log_reset();
	if (load("/files/huge.gguf", NULL, &st, &err, &hdr))
		fail_msg("%s", err.message);
	l = log_read(NULL, -1);
	assert_true(hdr > (2u << 20));
	assert_true(l.requests <= 3);
	assert_true(l.bytes <= hdr + hdr / 4 + (256u << 10));
}

static void test_server_ignores_range(void **state)
{
	cr_error err = CR_ERROR_INIT;
	cr_source_stats st;
	uint64_t hdr = 0;
	char u[256];
	cr_source *s;

	(void)state;
	log_reset();
	if (load("/norange/big.gguf", NULL, &st, &err, &hdr))
		fail_msg("%s", err.message);
	/* The file is 300 MB; the client stops after what it needs (each
	 * later read starts again at byte 0 on such a server). */
	assert_true(st.bytes_fetched < 4 * hdr + (1u << 20));
	assert_true(log_read(NULL, -1).bytes < 8 * hdr + (8u << 20));
	/* The size comes from Content-Length. */
	url(u, sizeof(u), "/norange/tiny-llama.gguf");
	assert_int_equal(cr_source_open_url(u, NULL, &s, &err), 0);
	assert_int_equal(cr_source_size(s), 82912);
	cr_source_free(s);
}

/* A 49 MiB header from a server that ignores Range (python -m
 * http.server): each request starts again at byte 0, and the reader used
 * to re-read the whole prefix at every extension until "read cap of
 * 67371008 bytes reached". Read ahead, doubling: a few requests, and the
 * bytes sent again do not count against the cap. */
static void test_server_ignores_range_large_header(void **state)
{
	cr_error err = CR_ERROR_INIT;
	cr_source_stats st;
	uint64_t hdr = 0;
	logsum l;

	(void)state;
	log_reset();
	if (load("/norange/pad50.gguf", NULL, &st, &err, &hdr))
		fail_msg("%s", err.message);
	/* The server logs a cut transfer when it notices: count by path, so
	 * that a late line of another test's transfer is not counted here. */
	l = log_read("/norange/pad50.gguf", -1);
	assert_true(hdr > (48u << 20));
	assert_int_equal(st.requests, 3);
	assert_true(l.requests <= 3);
	assert_true(st.bytes_fetched <= 3 * hdr);
	/* The same file through Range requests, for comparison. */
	if (load("/files/pad50.gguf", NULL, &st, &err, &hdr))
		fail_msg("%s", err.message);
	assert_true(st.requests <= 3);
}

static void test_wrong_content_range(void **state)
{
	cr_error err = CR_ERROR_INIT;
	char want[400];
	struct stat st;

	(void)state;
	assert_int_equal(stat(CLEFRUN_SERVED_DIR "/big.gguf", &st), 0);
	assert_int_equal(load("/badrange/big.gguf", NULL, NULL, &err, NULL), CR_ERR_IO);
	snprintf(want, sizeof(want),
		 "%s/badrange/big.gguf: HTTP 206 with Content-Range bytes 7-262150/%lld for a request of bytes 0-262143: "
		 "it starts elsewhere", base, (long long)st.st_size);
	assert_string_equal(err.message, want);
	/* The same range with a total that cannot hold it: the message says
	 * which part is wrong (the ranges alone look alike). */
	assert_int_equal(load("/badtotal/big.gguf", NULL, NULL, &err, NULL), CR_ERR_IO);
	snprintf(want, sizeof(want),
		 "%s/badtotal/big.gguf: HTTP 206 with Content-Range bytes 0-262143/100 for a request of bytes 0-262143: "
		 "it ends past the total size it gives", base);
	assert_string_equal(err.message, want);
}

static void test_truncated_body(void **state)
{
	cr_error err = CR_ERROR_INIT;
	char want[256];

	(void)state;
	assert_int_equal(load("/truncated/big.gguf", NULL, NULL, &err, NULL), CR_ERR_IO);
	snprintf(want, sizeof(want), "%s/truncated/big.gguf: the connection closed before the body was complete",
		 base);
	assert_memory_equal(err.message, want, strlen(want));
}

static void test_slow_drip_times_out(void **state)
{
	cr_error err = CR_ERROR_INIT;
	cr_http_opts o = CR_HTTP_OPTS_INIT;
	char want[256];

	(void)state;
	o.low_speed_time_s = 1;
	assert_int_equal(load("/slow/tiny-llama.gguf", &o, NULL, &err, NULL), CR_ERR_IO);
	snprintf(want, sizeof(want), "%s/slow/tiny-llama.gguf: timed out (less than 1024 bytes/s for 1 s)", base);
	assert_string_equal(err.message, want);
}

/* A drip just above the low-speed floor is still cut off: a request may
 * last at most max_time_s (here 2 s; the floor is set to 1 byte/s). */
static void test_request_time_cap(void **state)
{
	cr_http_opts o = CR_HTTP_OPTS_INIT;
	cr_error err = CR_ERROR_INIT;
	char want[512];

	(void)state;
	o.low_speed_bps = 1;
	o.max_time_s = 2;
	assert_int_equal(load("/slow/tiny-llama.gguf", &o, NULL, &err, NULL), CR_ERR_IO);
	snprintf(want, sizeof(want), "%s/slow/tiny-llama.gguf: timed out (a request may take at most 2 s)", base);
	assert_string_equal(err.message, want);
}

typedef struct progress_seen {
	int calls;
	uint64_t max_bytes;
} progress_seen;

static void on_progress(void *arg, uint64_t now, uint64_t total)
{
	progress_seen *p = arg;

	(void)total;
	p->calls++;
	if (now > p->max_bytes)
		p->max_bytes = now;
}

/* One deadline for all the requests of a command, not per request: the
 * header of tiny-llama.gguf (8544 bytes) at 1100 bytes/s in ranges from
 * 1 KiB takes several requests and about 8 s; with no cap per request and
 * a deadline 2.5 s away, the load stops at the deadline, in a request
 * after the first, with the deadline's message. The progress callback sees
 * the bytes arrive. */
static void test_command_deadline(void **state)
{
	cr_http_opts o = CR_HTTP_OPTS_INIT;
	cr_error err = CR_ERROR_INIT;
	progress_seen seen = { 0, 0 };
	char want[512];
	uint64_t t0, took;
	logsum l;

	(void)state;
	o.max_time_s = 0;
	o.first_range_bytes = 1024;
	o.progress = on_progress;
	o.progress_arg = &seen;
	log_reset();
	t0 = cr_http_now_ms();
	o.deadline_ms = t0 + 2500;
	o.deadline_budget_s = 2;
	assert_int_equal(load("/drip/1100/tiny-llama.gguf", &o, NULL, &err, NULL), CR_ERR_IO);
	took = cr_http_now_ms() - t0;
	snprintf(want, sizeof(want),
		 "%s/drip/1100/tiny-llama.gguf: timed out: the requests of one command may take at most 2 s "
		 "together (CLEFRUN_HTTP_DEADLINE sets it)",
		 base);
	assert_string_equal(err.message, want);
	if (took < 2400 || took > 3200)
		fail_msg("stopped after %llu ms, the deadline was 2500 ms away", (unsigned long long)took);
	l = log_read("/drip/", -1);
	if (l.requests < 2)
		fail_msg("%d request(s): the deadline must have spanned several", l.requests);
	assert_true(seen.calls > 0 && seen.max_bytes > 0 && seen.max_bytes <= 8544);

	/* A deadline already passed: no request at all. */
	log_reset();
	o.deadline_ms = cr_http_now_ms() - 1;
	o.deadline_budget_s = 0;
	assert_int_equal(load("/files/tiny-llama.gguf", &o, NULL, &err, NULL), CR_ERR_IO);
	snprintf(want, sizeof(want), "%s/files/tiny-llama.gguf: timed out: the deadline for these requests passed",
		 base);
	assert_string_equal(err.message, want);
	assert_int_equal(log_read(NULL, -1).requests, 0);
}

static void test_tls_failure(void **state)
{
	cr_error err = CR_ERROR_INIT;
	char u[256], want[300];
	cr_source *s;

	(void)state;
	/* TLS to a port that speaks plain HTTP: the handshake fails. */
	snprintf(u, sizeof(u), "https://127.0.0.1:%d/files/tiny-llama.gguf", port);
	assert_int_equal(cr_source_open_url(u, NULL, &s, &err), CR_ERR_IO);
	snprintf(want, sizeof(want), "%s: TLS failure", u);
	assert_memory_equal(err.message, want, strlen(want));
}

/* Proxies come from the environment, as libcurl reads them: nothing in
 * the source disables that. The server is its own proxy. */
static void test_proxy_from_environment(void **state)
{
	cr_error err = CR_ERROR_INIT;
	cr_source *s = NULL;
	char line[4096];
	bool via_proxy = false;
	FILE *f;

	(void)state;
	unsetenv("no_proxy");
	unsetenv("NO_PROXY");
	setenv("http_proxy", base, 1);
	log_reset();
	assert_int_equal(cr_source_open_url("http://models.example.invalid/files/tiny-llama.gguf", NULL, &s, &err), 0);
	assert_int_equal(cr_source_size(s), 82912);
	cr_source_free(s);
	unsetenv("http_proxy");
	f = fopen(logpath, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f))
		if (strstr(line, "\"path\": \"http://models.example.invalid/files/tiny-llama.gguf\"") &&
		    strstr(line, "\"host\": \"models.example.invalid\""))
			via_proxy = true;
	fclose(f);
	assert_true(via_proxy);
	/* and without the variable, the made-up host does not resolve */
	assert_int_equal(cr_source_open_url("http://models.example.invalid/x.gguf", NULL, &s, &err), CR_ERR_IO);
	assert_non_null(strstr(err.message, "cannot resolve the host"));
}

/* Bytes of two versions of a file are never mixed into one header. */
static void test_file_changed_between_requests(void **state)
{
	cr_error err = CR_ERROR_INIT;

	(void)state;
	assert_int_equal(load("/changing/big.gguf", NULL, NULL, &err, NULL), CR_ERR_IO);
	assert_non_null(strstr(err.message, "/changing/big.gguf: the file changed while it was read (ETag \"v1\", then \"v2\")"));
}

static void test_http_statuses(void **state)
{
	static const struct {
		const char *path;
		int status;
		const char *text;
	} cases[] = {
		{ "/status/404", CR_ERR_NOTFOUND, "HTTP 404: file or repository not found" },
		/* No token was sent: nothing to blame but the missing credentials. */
		{ "/status/401", CR_ERR_IO, "HTTP 401: access denied (no credentials were sent)" },
		{ "/status/403", CR_ERR_IO, "HTTP 403: access denied (no credentials were sent)" },
		{ "/status/429", CR_ERR_IO, "HTTP 429: too many requests; retry later" },
		{ "/retry/30", CR_ERR_IO, "HTTP 429: too many requests; the server asks to retry in 30 s" },
		{ "/status/416", CR_ERR_IO, "HTTP 416: range not satisfiable (the file is shorter than its header says)" },
		{ "/status/500", CR_ERR_IO, "HTTP 500: server error" },
		{ "/status/418", CR_ERR_IO, "HTTP 418: unexpected status" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		cr_error err = CR_ERROR_INIT;
		char want[300];

		assert_int_equal(load(cases[i].path, NULL, NULL, &err, NULL), cases[i].status);
		snprintf(want, sizeof(want), "%s%s: %s", base, cases[i].path, cases[i].text);
		assert_string_equal(err.message, want);
	}
}

static void test_redirects(void **state)
{
	cr_error err = CR_ERROR_INIT;
	char want[256];
	logsum l;

	(void)state;
	log_reset();
	assert_int_equal(load("/redirect/3/tiny-llama.gguf", NULL, NULL, &err, NULL), 0);
	l = log_read(NULL, -1);
	assert_int_equal(l.requests, 5); /* 3 hops, the last redirect, the file */

	assert_int_equal(load("/redirect/9/tiny-llama.gguf", NULL, NULL, &err, NULL), CR_ERR_IO);
	snprintf(want, sizeof(want), "%s/redirect/9/tiny-llama.gguf: too many redirects", base);
	assert_memory_equal(err.message, want, strlen(want));

	assert_int_equal(load("/loop", NULL, NULL, &err, NULL), CR_ERR_IO);
	snprintf(want, sizeof(want), "%s/loop: too many redirects", base);
	assert_memory_equal(err.message, want, strlen(want));

	assert_int_equal(load("/tofile", NULL, NULL, &err, NULL), CR_ERR_IO);
	snprintf(want, sizeof(want), "%s/tofile: a redirect to a non-HTTP(S) URL was refused", base);
	assert_memory_equal(err.message, want, strlen(want));
}

/* Answers that are not HTTP, which libcurl reports as "unsupported
 * protocol" (like a refused redirect) or "out of memory". */
static void test_not_http(void **state)
{
	static const struct {
		const char *path, *text;
	} cases[] = {
		{ "/raw/http09", "the answer is not an HTTP response (Received HTTP/0.9 when not allowed)" },
		{ "/raw/garbage", "the answer is not an HTTP response (" },
		{ "/raw/bigheader", "the response headers were refused: a header line longer than libcurl's 100 KiB, or "
				    "out of memory" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		cr_error err = CR_ERROR_INIT;
		char want[400];

		assert_int_equal(load(cases[i].path, NULL, NULL, &err, NULL), CR_ERR_IO);
		snprintf(want, sizeof(want), "%s%s: %s", base, cases[i].path, cases[i].text);
		assert_memory_equal(err.message, want, strlen(want));
		assert_null(strstr(err.message, "redirect"));
	}
}

static void test_bearer_token(void **state)
{
	cr_error err = CR_ERROR_INIT;
	cr_http_opts o = CR_HTTP_OPTS_INIT;
	char want[300];

	(void)state;
	assert_int_equal(load("/auth/tiny-llama.gguf", NULL, NULL, &err, NULL), CR_ERR_IO);
	snprintf(want, sizeof(want),
		 "%s/auth/tiny-llama.gguf: HTTP 401: access denied (no credentials were sent)", base);
	assert_string_equal(err.message, want);
	assert_null(strstr(err.message, "secret-token"));
	o.bearer_token = "secret-token";
	assert_int_equal(load("/auth/tiny-llama.gguf", &o, NULL, &err, NULL), 0);
	/* A token that is refused: a different hint, and never the token. */
	o.bearer_token = "wrong-token";
	assert_int_equal(load("/auth/tiny-llama.gguf", &o, NULL, &err, NULL), CR_ERR_IO);
	snprintf(want, sizeof(want),
		 "%s/auth/tiny-llama.gguf: HTTP 401: gated or private repository: the token was refused (check HF_TOKEN; for a gated model, accept its license on the model page)",
		 base);
	assert_string_equal(err.message, want);
	assert_null(strstr(err.message, "wrong-token"));
}

static void test_credentials_not_in_messages(void **state)
{
	cr_error err = CR_ERROR_INIT;
	char u[256];
	cr_source *s;

	(void)state;
	snprintf(u, sizeof(u), "http://user:pa55@127.0.0.1:%d/status/404", port);
	assert_int_equal(cr_source_open_url(u, NULL, &s, &err), CR_ERR_NOTFOUND);
	assert_null(strstr(err.message, "pa55"));
	assert_int_equal(cr_source_open_url("ftp://x/y.gguf", NULL, &s, &err), CR_ERR_INVALID);
	assert_string_equal(err.message, "ftp://x/y.gguf: not an http:// or https:// URL");
}

static void test_connect_refused(void **state)
{
	cr_error err = CR_ERROR_INIT;
	cr_source *s;

	(void)state;
	/* Port 1 on loopback: nothing listens there. */
	assert_int_equal(cr_source_open_url("http://127.0.0.1:1/x.gguf", NULL, &s, &err), CR_ERR_IO);
	assert_memory_equal(err.message, "http://127.0.0.1:1/x.gguf: cannot connect", 41);
}

static void test_byte_cap(void **state)
{
	cr_error err = CR_ERROR_INIT;
	cr_http_opts o = CR_HTTP_OPTS_INIT;
	char want[256];

	(void)state;
	o.max_total_bytes = 300000;
	assert_int_equal(load("/files/big.gguf", &o, NULL, &err, NULL), CR_ERR_IO);
	snprintf(want, sizeof(want), "%s/files/big.gguf: read cap of 300000 bytes reached", base);
	assert_string_equal(err.message, want);
}

static void test_hugging_face_repo(void **state)
{
	char tree[256], file[512];
	char *body = NULL;
	size_t len, idx;
	cr_hf_entry *e = NULL;
	size_t n;
	cr_error err = CR_ERROR_INIT;
	cr_http_opts o = CR_HTTP_OPTS_INIT;
	cr_source *s;
	cr_gguf *g;
	logsum resolve, cdn, cdn_auth;

	(void)state;
	assert_int_equal(cr_hf_tree_url(base, "test/tiny", "main", tree, sizeof(tree), &err), 0);
	assert_int_equal(cr_source_fetch_url(tree, NULL, 1u << 20, &body, &len, NULL, &err), 0);
	assert_int_equal(cr_hf_parse_tree(body, len, tree, &e, &n, &err), 0);
	free(body);
	assert_int_equal(cr_hf_pick_quant(e, n, "q4_k_m", &idx), 0);
	assert_string_equal(e[idx].path, "tiny-Q4_K_M.gguf");
	assert_int_equal(cr_hf_pick_quant(e, n, "IQ1_S", &idx), CR_ERR_NOTFOUND);
	/* The split pair is one entry. */
	for (idx = 0; idx < n; idx++)
		if (strcmp(e[idx].path, "tiny-split-00001-of-00002.gguf") == 0)
			break;
	assert_true(idx < n);
	assert_int_equal(e[idx].parts, 2);
	assert_int_equal(e[idx].size, 59616 + 23488);

	/* A gated file: the token goes to the resolve URL, not to the CDN it
	 * redirects to (another host name), and later reads go to the CDN. */
	assert_int_equal(cr_hf_file_url(base, "gated/tiny", "main", "big.gguf", file, sizeof(file), &err), 0);
	log_reset();
	assert_int_equal(cr_source_open_url(file, NULL, &s, &err), CR_ERR_IO);
	assert_non_null(strstr(err.message, "HTTP 401"));
	o.bearer_token = "secret-token";
	log_reset();
	assert_int_equal(cr_source_open_url(file, &o, &s, &err), 0);
	assert_int_equal(cr_gguf_load(s, NULL, &g, &err), 0);
	resolve = log_read("/gated/tiny/resolve/", 1);
	cdn = log_read("/cdn/", 0);
	cdn_auth = log_read("/cdn/", 1);
	assert_int_equal(resolve.requests, 1);
	assert_int_equal(cdn.requests, 2);
	assert_int_equal(cdn_auth.requests, 0);
	cr_gguf_free(g);
	cr_source_free(s);
	free(e);

	/* Errors of the listing. */
	assert_int_equal(cr_hf_tree_url(base, "test/missing", "main", tree, sizeof(tree), &err), 0);
	assert_int_equal(cr_source_fetch_url(tree, NULL, 1u << 20, &body, &len, NULL, &err), CR_ERR_NOTFOUND);
	assert_int_equal(cr_source_fetch_url(tree, NULL, 10, &body, &len, NULL, &err), CR_ERR_NOTFOUND);
	assert_int_equal(cr_hf_tree_url(base, "test/tiny", "main", tree, sizeof(tree), &err), 0);
	assert_int_equal(cr_source_fetch_url(tree, NULL, 100, &body, &len, NULL, &err), CR_ERR_IO);
	assert_non_null(strstr(err.message, "document larger than 100 bytes"));
}

static void test_remote_split(void **state)
{
	char u1[512], u2[512];
	cr_source *s1, *s2;
	cr_gguf *g1, *g2;
	cr_gguf_model gm;
	cr_error err = CR_ERROR_INIT;

	(void)state;
	url(u1, sizeof(u1), "/files/tiny-split-00001-of-00002.gguf");
	assert_int_equal(cr_gguf_split_name(u1, 2, u2, sizeof(u2), &err), 0);
	assert_int_equal(cr_source_open_url(u1, NULL, &s1, &err), 0);
	assert_int_equal(cr_source_open_url(u2, NULL, &s2, &err), 0);
	assert_int_equal(cr_gguf_load(s1, NULL, &g1, &err), 0);
	assert_int_equal(cr_gguf_load(s2, NULL, &g2, &err), 0);
	{
		const cr_gguf *parts[2] = { g1, g2 };

		assert_int_equal(cr_gguf_to_model(parts, 2, &gm, &err), 0);
	}
	assert_int_equal(gm.n_parts, 2);
	assert_int_equal(gm.weights_bytes, cr_gguf_tensor_bytes(g1) + cr_gguf_tensor_bytes(g2));
	cr_gguf_free(g1);
	cr_gguf_free(g2);
	cr_source_free(s1);
	cr_source_free(s2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_small_header_one_request),
		cmocka_unit_test(test_header_under_1mib_budget),
		cmocka_unit_test(test_large_header),
		cmocka_unit_test(test_server_ignores_range),
		cmocka_unit_test(test_server_ignores_range_large_header),
		cmocka_unit_test(test_wrong_content_range),
		cmocka_unit_test(test_truncated_body),
		cmocka_unit_test(test_slow_drip_times_out),
		cmocka_unit_test(test_request_time_cap),
		cmocka_unit_test(test_command_deadline),
		cmocka_unit_test(test_tls_failure),
		cmocka_unit_test(test_proxy_from_environment),
		cmocka_unit_test(test_file_changed_between_requests),
		cmocka_unit_test(test_http_statuses),
		cmocka_unit_test(test_redirects),
		cmocka_unit_test(test_not_http),
		cmocka_unit_test(test_bearer_token),
		cmocka_unit_test(test_credentials_not_in_messages),
		cmocka_unit_test(test_connect_refused),
		cmocka_unit_test(test_byte_cap),
		cmocka_unit_test(test_hugging_face_repo),
		cmocka_unit_test(test_remote_split),
	};
	/* libcurl: loaded by the library at the first URL (curl_dl.h). */
	return cmocka_run_group_tests(tests, start_server, stop_server);
}
