/*
 * The URL backend of cr_source: HTTP(S) Range requests through libcurl.
 *
 * Opening sends "Range: bytes=0-(first_range_bytes - 1)" and learns the
 * size from Content-Range (or Content-Length when the server ignores the
 * range). The bytes from the start of the file are kept in a prefix cache,
 * so the GGUF reader's growing reads each cost one request for exactly the
 * missing bytes. Every response is checked: the status, a Content-Range
 * that must match the request, a body that must be as long as announced,
 * and a cap on all bytes received. A server that answers 200 to a Range
 * request is read from the start only as far as needed, then cut off.
 *
 * Redirects (Hugging Face resolve URLs point to a CDN) are followed to
 * http/https only, at most max_redirects; later requests go straight to
 * where the first one landed. The bearer token goes through libcurl's
 * CURLAUTH_BEARER, which libcurl sends to the original host only (never to
 * the CDN a redirect names), and is never part of a message.
 * libcurl is loaded (dlopen) and curl_global_init called when the first
 * URL is opened (curl_dl.h).
 *
 * Proxies: nothing here sets CURLOPT_PROXY or CURLOPT_NOPROXY, and
 * curl_easy_reset restores libcurl's defaults before every transfer, so
 * libcurl takes them from the environment (http_proxy, HTTPS_PROXY,
 * ALL_PROXY, NO_PROXY; the upper-case HTTP_PROXY is ignored by libcurl on
 * purpose, against CGI header injection).
 *
 * The header cache (cache.c) makes conditional requests (cr_http_open,
 * cr_http_fetch): If-None-Match with the cached validator, and the
 * transfer is cut as soon as an answer confirms it: a 304, a Hugging Face
 * redirect whose X-Linked-Etag (the file's ETag) matches, or a 2xx whose
 * ETag matches (a server that ignores If-None-Match).
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clefrun/version.h"
#include "curl_dl.h"
#include "source_internal.h"
#include "util.h"

/* Bytes of an error page read before giving up on it. */
#define ERROR_BODY_MAX (64u << 10)

typedef struct xfer {
	/* what was asked */
	uint64_t start;         /* first byte wanted */
	uint64_t len;           /* bytes wanted (ranged); 0 with `whole` */
	bool ranged;            /* a Range header was sent */
	bool whole;             /* a plain GET of a small document */
	size_t whole_max;
	/* where the body goes */
	unsigned char *dst;     /* len bytes */
	unsigned char *grow;    /* whole: malloc'd, grown */
	uint64_t got;           /* body bytes stored */
	uint64_t skip;          /* 200 to a range: bytes before `start` left to drop */
	/* the current response */
	long status;
	bool have_cr;
	uint64_t cr_start, cr_end, cr_total;
	bool cr_total_known;
	bool have_cl;
	uint64_t content_length;
	bool checked;           /* status and headers examined at the first body byte */
	bool done;              /* enough bytes: the transfer was cut on purpose */
	int fail;               /* a cr_status decided inside a callback */
	char why[256];
	/* validators */
	const char *inm;        /* If-None-Match sent, or NULL */
	bool not_modified;      /* an answer confirmed inm */
	bool token_sent;
	bool first;             /* the opening request (no ETag to compare with yet) */
	long resp_status;       /* from the status line of the current response */
	char resp_etag[CR_HTTP_ETAG_MAX];   /* ETag of the current response */
	char linked_etag[CR_HTTP_ETAG_MAX]; /* X-Linked-Etag of any response of the chain */
	char retry_after[CR_HTTP_ETAG_MAX]; /* Retry-After of the current response (printable) */
	/* counters */
	struct http_impl *h;
	cr_source_stats *stats;
	uint64_t received;      /* body bytes of this transfer */
	uint64_t cap_left;
} xfer;

typedef struct http_impl {
	CURL *curl;
	char *url;         /* as given */
	char *eff;         /* where the first request landed after redirects */
	bool eff_same_host;
	char *token;
	cr_http_opts o;
	unsigned char *cache;  /* file bytes [0, cache_len) */
	size_t cache_len;
	uint64_t received;     /* all body bytes so far, for the cap */
	char etag[CR_HTTP_ETAG_MAX]; /* the first answer's ETag: later ranges must carry the same */
	bool deadline_cut;     /* this transfer's time limit is what is left before o.deadline_ms */
	bool no_range;         /* a range request was answered 200: every request restarts at byte 0 */
} http_impl;

uint64_t cr_http_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/* The deadline passed: before a request, or during one it cut short. */
static int deadline_error(const char *name, const http_impl *h, cr_error *err)
{
	if (h->o.deadline_budget_s > 0)
		return cr_seterr(err, CR_ERR_IO,
				 "%s: timed out: the requests of one command may take at most %ld s together "
				 "(CLEFRUN_HTTP_DEADLINE sets it)",
				 name, h->o.deadline_budget_s);
	return cr_seterr(err, CR_ERR_IO, "%s: timed out: the deadline for these requests passed", name);
}

static int on_progress(void *ud, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal, curl_off_t ulnow)
{
	const http_impl *h = ud;

	(void)ultotal;
	(void)ulnow;
	h->o.progress(h->o.progress_arg, dlnow > 0 ? (uint64_t)dlnow : 0, dltotal > 0 ? (uint64_t)dltotal : 0);
	return 0;
}

/* The URL as messages show it: credentials redacted (cr_url_redact). */
char *cr_http_display_url(const char *url)
{
	size_t n = cr_url_redact(url, NULL, 0);
	char *out = malloc(n + 1);

	if (out)
		(void)cr_url_redact(url, out, n + 1);
	return out;
}

static bool is_http(const char *url)
{
	return strncmp(url, "http://", 7) == 0 || strncmp(url, "https://", 8) == 0;
}

static int ci_prefix(const char *s, size_t n, const char *p)
{
	size_t k = strlen(p);

	if (n < k)
		return 0;
	for (size_t i = 0; i < k; i++) {
		char c = s[i];

		if (c >= 'A' && c <= 'Z')
			c = (char)(c - 'A' + 'a');
		if (c != p[i])
			return 0;
	}
	return 1;
}

static bool parse_u64(const char **p, const char *end, uint64_t *v)
{
	const char *s = *p;

	if (s >= end || *s < '0' || *s > '9')
		return false;
	*v = 0;
	while (s < end && *s >= '0' && *s <= '9') {
		if (*v > (UINT64_MAX - 9) / 10)
			return false;
		*v = *v * 10 + (uint64_t)(*s - '0');
		s++;
	}
	*p = s;
	return true;
}

/* "bytes S-E/T", "bytes S-E/ *" (size unknown) or "bytes * /T" (416). */
static void parse_content_range(xfer *x, const char *v, const char *end)
{
	while (v < end && *v == ' ')
		v++;
	x->have_cr = false;
	if (!ci_prefix(v, (size_t)(end - v), "bytes "))
		return;
	v += 6;
	if (v < end && *v == '*') {
		v++;
		x->cr_start = x->cr_end = 0;
	} else if (!parse_u64(&v, end, &x->cr_start) || v >= end || *v++ != '-' ||
		   !parse_u64(&v, end, &x->cr_end)) {
		x->have_cr = true; /* present but malformed: cr_total_known false, start > end */
		x->cr_start = 1;
		x->cr_end = 0;
		return;
	}
	if (v >= end || *v++ != '/')
		return;
	x->have_cr = true;
	x->cr_total_known = v < end && *v != '*' && parse_u64(&v, end, &x->cr_total);
}

/* A validator header's value, kept only when usable in an If-None-Match
 * header and in a cache file: printable ASCII, shorter than the buffer. */
static void header_value(const char *v, const char *end, char out[CR_HTTP_ETAG_MAX])
{
	size_t n;

	out[0] = '\0';
	while (v < end && (*v == ' ' || *v == '\t'))
		v++;
	while (end > v && (end[-1] == ' ' || end[-1] == '\t'))
		end--;
	n = (size_t)(end - v);
	if (n == 0 || n >= CR_HTTP_ETAG_MAX)
		return;
	for (size_t i = 0; i < n; i++)
		if (v[i] < 0x20 || v[i] > 0x7e)
			return;
	memcpy(out, v, n);
	out[n] = '\0';
}

bool cr_http_etag_match(const char *a, const char *b)
{
	if (!a || !b)
		return false;
	if (strncmp(a, "W/", 2) == 0)
		a += 2;
	if (strncmp(b, "W/", 2) == 0)
		b += 2;
	return *a && strcmp(a, b) == 0;
}

static bool is_redirect(long s)
{
	return s == 301 || s == 302 || s == 303 || s == 307 || s == 308;
}

/* The end of one response's headers: does it confirm the cached validator? */
static size_t end_of_headers(xfer *x, size_t len)
{
	const char *v;
	long s = x->resp_status;

	if (!x->inm)
		return len;
	if (s == 304) {
		x->not_modified = true;
		return len;
	}
	v = x->linked_etag[0] ? x->linked_etag : x->resp_etag;
	if (!cr_http_etag_match(v, x->inm))
		return len;
	if ((s >= 200 && s < 300) || (x->linked_etag[0] && is_redirect(s))) {
		/* Confirmed before the body (or the next hop): cut the transfer. */
		x->not_modified = true;
		x->done = true;
		return 0;
	}
	return len;
}

static size_t on_header(char *line, size_t size, size_t n, void *ud)
{
	xfer *x = ud;
	size_t len = size * n;
	const char *end = line + len;

	while (end > line && (end[-1] == '\r' || end[-1] == '\n'))
		end--;
	if (ci_prefix(line, len, "http/")) {
		/* A new response (the first, or after a redirect). */
		const char *p = memchr(line, ' ', len);
		uint64_t code = 0;

		x->have_cr = x->cr_total_known = x->have_cl = false;
		x->resp_etag[0] = '\0';
		x->retry_after[0] = '\0';
		x->resp_status = 0;
		if (p) {
			p++;
			if (parse_u64(&p, end, &code) && code < 1000)
				x->resp_status = (long)code;
		}
		x->stats->requests++;
	} else if (end == line) {
		return end_of_headers(x, len);
	} else if (ci_prefix(line, len, "etag:")) {
		header_value(line + 5, end, x->resp_etag);
	} else if (ci_prefix(line, len, "retry-after:")) {
		header_value(line + 12, end, x->retry_after);
	} else if (ci_prefix(line, len, "x-linked-etag:")) {
		header_value(line + 14, end, x->linked_etag);
	} else if (ci_prefix(line, len, "content-range:")) {
		parse_content_range(x, line + 14, end);
	} else if (ci_prefix(line, len, "content-length:")) {
		const char *v = line + 15;

		while (v < end && *v == ' ')
			v++;
		x->have_cl = parse_u64(&v, end, &x->content_length);
	}
	return len;
}

static size_t set_fail(xfer *x, int status, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static size_t set_fail(xfer *x, int status, const char *fmt, ...)
{
	va_list ap;

	x->fail = status;
	va_start(ap, fmt);
	vsnprintf(x->why, sizeof(x->why), fmt, ap);
	va_end(ap);
	return 0; /* makes libcurl abort the transfer */
}

/* The first body byte: is this response what was asked for? */
static size_t check_response(xfer *x)
{
	curl_easy_getinfo(x->h->curl, CURLINFO_RESPONSE_CODE, &x->status);
	x->checked = true;
	if (x->status >= 300)
		return 1; /* an error page: judged after the transfer */
	/* Bytes of two versions of a file must not be mixed into one header. */
	if (!x->whole && !x->first && x->h->etag[0] && x->resp_etag[0] &&
	    !cr_http_etag_match(x->h->etag, x->resp_etag))
		return set_fail(x, CR_ERR_IO, "the file changed while it was read (ETag %s, then %s)", x->h->etag,
				x->resp_etag);
	if (x->whole || x->status == 200) {
		if (x->ranged)
			x->skip = x->start; /* the range was ignored: the body starts at 0 */
		return 1;
	}
	if (x->status != 206)
		return set_fail(x, CR_ERR_IO, "HTTP %ld: unexpected status for a range request", x->status);
	if (!x->have_cr)
		return set_fail(x, CR_ERR_IO, "HTTP 206 without a Content-Range");
	{
		/* Say which part disagrees: the ranges alone can look alike
		 * (bytes 0-99/50 answering bytes 0-99). */
		const char *what = NULL;
		char total[32] = "*";

		if (x->cr_start != x->start)
			what = "it starts elsewhere";
		else if (x->cr_end < x->cr_start)
			what = "it ends before it starts";
		else if (x->cr_end - x->cr_start + 1 > x->len)
			what = "it is longer than the request";
		else if (x->cr_total_known && x->cr_end >= x->cr_total)
			what = "it ends past the total size it gives";
		else if (x->cr_end - x->cr_start + 1 < x->len && !(x->cr_total_known && x->cr_end + 1 == x->cr_total))
			what = "it is shorter than the request but not the end of the file";
		if (what) {
			if (x->cr_total_known)
				snprintf(total, sizeof(total), "%" PRIu64, x->cr_total);
			return set_fail(x, CR_ERR_IO,
					"HTTP 206 with Content-Range bytes %" PRIu64 "-%" PRIu64 "/%s for a request of bytes %"
					PRIu64 "-%" PRIu64 ": %s", x->cr_start, x->cr_end, total, x->start,
					x->start + x->len - 1, what);
		}
	}
	return 1;
}

static size_t on_body(char *data, size_t size, size_t n, void *ud)
{
	xfer *x = ud;
	size_t len = size * n, take, charged = len;

	if (!x->checked && !check_response(x))
		return 0;
	/* A 200 to a range request (a server that ignores Range) sends again
	 * the bytes already held (x->skip) and goes on past what is wanted:
	 * those are counted as fetched, but only the bytes kept count against
	 * the cap (http_read's read-ahead bounds the others). */
	if (x->status == 200 && !x->whole) {
		uint64_t skipped = x->skip < len ? x->skip : len, rest = len - skipped;

		charged = (size_t)(rest < x->len - x->got ? rest : x->len - x->got);
	}
	if (charged > x->cap_left)
		return set_fail(x, CR_ERR_IO, "read cap of %" PRIu64 " bytes reached", x->h->o.max_total_bytes);
	x->cap_left -= charged;
	x->received += charged;
	x->stats->bytes_fetched += len;
	if (x->status >= 300)
		return x->received > ERROR_BODY_MAX ? 0 : len;
	if (x->whole) {
		if (x->got + len > x->whole_max)
			return set_fail(x, CR_ERR_IO, "document larger than %zu bytes", x->whole_max);
		{
			unsigned char *g = realloc(x->grow, (size_t)(x->got + len + 1));

			if (!g)
				return set_fail(x, CR_ERR_NOMEM, "out of memory");
			x->grow = g;
		}
		memcpy(x->grow + x->got, data, len);
		x->got += len;
		return len;
	}
	if (x->skip) {
		size_t s = x->skip < len ? (size_t)x->skip : len;

		x->skip -= s;
		data += s;
		len -= s;
	}
	take = (uint64_t)len < x->len - x->got ? len : (size_t)(x->len - x->got);
	if (x->status == 206 && take < len)
		return set_fail(x, CR_ERR_IO, "HTTP 206 body longer than its Content-Range");
	memcpy(x->dst + x->got, data, take);
	x->got += take;
	if (x->got == x->len && x->status == 200) {
		x->done = true; /* the rest of a 200 body is not needed */
		return 0;
	}
	return size * n;
}

/* Statuses in user words. 401 and 403 are what Hugging Face answers for a
 * gated or private repository (and for a token it refuses). */
static int http_error(const char *name, long status, bool token_sent, const char *retry_after,
		      cr_error *err)
{
	switch (status) {
	case 401:
	case 403:
		/* The token only goes to the Hugging Face endpoint (hf.h,
		 * cr_hf_token_for_url), so only a sent token can be blamed;
		 * without one, model_source.c turns the reason into
		 * CR_REASON_HF_AUTH for Hugging Face URLs. */
		if (token_sent)
			return cr_setreason(err, CR_REASON_HTTP_TOKEN_REFUSED,
					    cr_seterr(err, CR_ERR_IO,
						      "%s: HTTP %ld: gated or private repository: the token was refused (check HF_TOKEN; for a gated model, accept its license on the model page)",
						      name, status));
		return cr_setreason(err, CR_REASON_HTTP_AUTH,
				    cr_seterr(err, CR_ERR_IO, "%s: HTTP %ld: access denied (no credentials were sent)",
					      name, status));
	case 429:
		/* Retry-After: delta-seconds or an HTTP-date (RFC 9110 10.2.3). */
		if (retry_after && *retry_after)
			return cr_seterr(err, CR_ERR_IO, "%s: HTTP 429: too many requests; the server asks to retry %s%s%s",
					 name, strspn(retry_after, "0123456789") == strlen(retry_after) ? "in " : "after ",
					 retry_after,
					 strspn(retry_after, "0123456789") == strlen(retry_after) ? " s" : "");
		return cr_seterr(err, CR_ERR_IO, "%s: HTTP 429: too many requests; retry later", name);
	case 404:
		return cr_setreason(err, CR_REASON_HTTP_NOT_FOUND,
				    cr_seterr(err, CR_ERR_NOTFOUND, "%s: HTTP 404: file or repository not found", name));
	case 416:
		return cr_seterr(err, CR_ERR_IO, "%s: HTTP 416: range not satisfiable (the file is shorter than its header says)",
				 name);
	default:
		if (status >= 500)
			return cr_seterr(err, CR_ERR_IO, "%s: HTTP %ld: server error", name, status);
		return cr_seterr(err, CR_ERR_IO, "%s: HTTP %ld: unexpected status", name, status);
	}
}

static bool tls_error(CURLcode cc)
{
	switch (cc) {
	case CURLE_SSL_CONNECT_ERROR:
	case CURLE_PEER_FAILED_VERIFICATION:
	case CURLE_SSL_CERTPROBLEM:
	case CURLE_SSL_CIPHER:
	case CURLE_SSL_CACERT_BADFILE:
	case CURLE_SSL_ENGINE_NOTFOUND:
	case CURLE_SSL_ENGINE_SETFAILED:
	case CURLE_SSL_ENGINE_INITFAILED:
	case CURLE_SSL_SHUTDOWN_FAILED:
	case CURLE_SSL_CRL_BADFILE:
	case CURLE_SSL_ISSUER_ERROR:
	case CURLE_SSL_PINNEDPUBKEYNOTMATCH:
	case CURLE_SSL_INVALIDCERTSTATUS:
	case CURLE_USE_SSL_FAILED:
		return true;
	default:
		return false;
	}
}

static int curl_error(const char *name, CURLcode cc, const char *detail, const http_impl *h,
		      double connect_s, cr_error *err)
{
	char what[160];

	if (cc == CURLE_OPERATION_TIMEDOUT) {
		/* The command's deadline, whatever stage it cut. */
		if (h->deadline_cut && cr_http_now_ms() + 100 >= h->o.deadline_ms)
			return deadline_error(name, h, err);
		/* No connect time: the connection (or the proxy's) never came up. */
		if (connect_s <= 0.0)
			snprintf(what, sizeof(what), "timed out connecting (no answer within %ld s)",
				 h->o.connect_timeout_s);
		else if (detail && !strstr(detail, "too slow") && h->o.max_time_s > 0)
			snprintf(what, sizeof(what), "timed out (a request may take at most %ld s)",
				 h->o.max_time_s);
		else
			snprintf(what, sizeof(what), "timed out (less than %ld bytes/s for %ld s)",
				 h->o.low_speed_bps, h->o.low_speed_time_s);
		return cr_seterr(err, CR_ERR_IO, "%s: %s", name, what);
	}
	if (tls_error(cc))
		snprintf(what, sizeof(what), "TLS failure");
	else
		switch (cc) {
		case CURLE_COULDNT_RESOLVE_HOST:
			snprintf(what, sizeof(what), "cannot resolve the host");
			break;
		case CURLE_COULDNT_RESOLVE_PROXY:
			snprintf(what, sizeof(what), "cannot resolve the proxy (from http_proxy, https_proxy or ALL_PROXY)");
			break;
		case CURLE_COULDNT_CONNECT:
			snprintf(what, sizeof(what), "cannot connect");
			break;
		case CURLE_TOO_MANY_REDIRECTS:
			snprintf(what, sizeof(what), "too many redirects");
			break;
		case CURLE_UNSUPPORTED_PROTOCOL:
			snprintf(what, sizeof(what), "a redirect to a non-HTTP(S) URL was refused");
			break;
		case CURLE_PARTIAL_FILE:
		case CURLE_RECV_ERROR:
		case CURLE_GOT_NOTHING:
			snprintf(what, sizeof(what), "the connection closed before the body was complete");
			break;
		default:
			snprintf(what, sizeof(what), "%s", curl_easy_strerror(cc));
			break;
		}
	if (detail && *detail && strcmp(detail, what) != 0)
		return cr_seterr(err, CR_ERR_IO, "%s: %s (%s)", name, what, detail);
	return cr_seterr(err, CR_ERR_IO, "%s: %s", name, what);
}

/* Failures that are about the answer rather than the transport, which
 * libcurl reports with codes that would read wrong (an HTTP/0.9 answer is
 * "unsupported protocol", like a refused redirect; headers over libcurl's
 * CURL_MAX_HTTP_HEADER of 100 KiB are "out of memory"). 0 when none. */
static int answer_error(const char *name, CURLcode cc, const char *detail, const xfer *x, cr_error *err)
{
	const char *d = detail && *detail ? detail : curl_easy_strerror(cc);

	if ((cc == CURLE_UNSUPPORTED_PROTOCOL && !is_redirect(x->resp_status)) || cc == CURLE_WEIRD_SERVER_REPLY)
		return cr_seterr(err, CR_ERR_IO, "%s: the answer is not an HTTP response (%s)", name, d);
	if (cc == CURLE_OUT_OF_MEMORY && !x->checked)
		return cr_seterr(err, CR_ERR_IO,
				 "%s: the response headers were refused: a header line longer than libcurl's 100 KiB, or out of memory",
				 name);
	return 0;
}

/* An If-None-Match value must not smuggle a header line. */
static bool header_safe(const char *v)
{
	size_t n = strlen(v);

	if (n == 0 || n >= CR_HTTP_ETAG_MAX)
		return false;
	for (size_t i = 0; i < n; i++)
		if (v[i] < 0x20 || v[i] > 0x7e)
			return false;
	return true;
}

/* One transfer; x describes what is wanted. */
static int perform(cr_source *src, http_impl *h, const char *url, bool send_token, xfer *x,
		   cr_error *err)
{
	char range[64], ebuf[CURL_ERROR_SIZE] = "", ua[64];
	struct curl_slist *hdrs = NULL;
	double connect_s = 0.0;
	CURL *c = h->curl;
	CURLcode cc;
	long timeout_ms = h->o.max_time_s > 0 ? h->o.max_time_s * 1000 : 0;
	int rc;

	x->h = h;
	x->stats = &src->stats;
	x->cap_left = h->o.max_total_bytes > h->received ? h->o.max_total_bytes - h->received : 0;
	curl_easy_reset(c);
	snprintf(ua, sizeof(ua), "clefrun/%s", CR_VERSION_STRING);
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_USERAGENT, h->o.user_agent ? h->o.user_agent : ua);
	curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 1L);
	curl_easy_setopt(c, CURLOPT_MAXREDIRS, h->o.max_redirects);
#if LIBCURL_VERSION_NUM >= 0x075500
	curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(c, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
#else
	curl_easy_setopt(c, CURLOPT_PROTOCOLS, (long)(CURLPROTO_HTTP | CURLPROTO_HTTPS));
	curl_easy_setopt(c, CURLOPT_REDIR_PROTOCOLS, (long)(CURLPROTO_HTTP | CURLPROTO_HTTPS));
#endif
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, h->o.connect_timeout_s);
	/* The low-speed floor alone lets a server drip just above it for hours;
	 * a cap per request still lets many requests add up, hence the shared
	 * deadline: each request gets what is left of it. */
	h->deadline_cut = false;
	if (h->o.deadline_ms) {
		uint64_t now = cr_http_now_ms();

		if (now >= h->o.deadline_ms)
			return deadline_error(src->name, h, err);
		if (!timeout_ms || h->o.deadline_ms - now < (uint64_t)timeout_ms) {
			timeout_ms = (long)(h->o.deadline_ms - now);
			h->deadline_cut = true;
		}
	}
	if (timeout_ms > 0)
		curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, timeout_ms);
	if (h->o.progress) {
		curl_easy_setopt(c, CURLOPT_XFERINFOFUNCTION, on_progress);
		curl_easy_setopt(c, CURLOPT_XFERINFODATA, h);
		curl_easy_setopt(c, CURLOPT_NOPROGRESS, 0L);
	}
	curl_easy_setopt(c, CURLOPT_LOW_SPEED_LIMIT, h->o.low_speed_bps);
	curl_easy_setopt(c, CURLOPT_LOW_SPEED_TIME, h->o.low_speed_time_s);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_ERRORBUFFER, ebuf);
	curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
	curl_easy_setopt(c, CURLOPT_HEADERDATA, x);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, x);
	/* Byte ranges of a GGUF must arrive as stored, not re-encoded. */
	curl_easy_setopt(c, CURLOPT_HTTP_CONTENT_DECODING, 0L);
	x->token_sent = send_token && h->token;
	if (x->token_sent) {
		curl_easy_setopt(c, CURLOPT_HTTPAUTH, (long)CURLAUTH_BEARER);
		curl_easy_setopt(c, CURLOPT_XOAUTH2_BEARER, h->token);
	}
	if (x->ranged) {
		snprintf(range, sizeof(range), "%" PRIu64 "-%" PRIu64, x->start, x->start + x->len - 1);
		curl_easy_setopt(c, CURLOPT_RANGE, range);
	}
	if (x->inm && !header_safe(x->inm))
		x->inm = NULL;
	if (x->inm) {
		char line[CR_HTTP_ETAG_MAX + 32];

		snprintf(line, sizeof(line), "If-None-Match: %s", x->inm);
		if (!(hdrs = curl_slist_append(NULL, line)))
			return cr_seterr(err, CR_ERR_NOMEM, "%s: out of memory", src->name);
	}
	if (h->o.accept && strlen(h->o.accept) <= 200 && header_safe(h->o.accept)) {
		char line[224];
		struct curl_slist *more;

		snprintf(line, sizeof(line), "Accept: %s", h->o.accept);
		if (!(more = curl_slist_append(hdrs, line))) {
			curl_slist_free_all(hdrs);
			return cr_seterr(err, CR_ERR_NOMEM, "%s: out of memory", src->name);
		}
		hdrs = more;
	}
	if (hdrs)
		curl_easy_setopt(c, CURLOPT_HTTPHEADER, hdrs);
	cc = curl_easy_perform(c);
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, NULL);
	curl_slist_free_all(hdrs);
	h->received += x->received;
	if (x->fail)
		return cr_seterr(err, x->fail, "%s: %s", src->name, x->why);
	if (x->not_modified)
		return CR_OK;
	if (cc != CURLE_OK && !(cc == CURLE_WRITE_ERROR && x->done) && (rc = answer_error(src->name, cc, ebuf, x, err)))
		return rc;
	if (cc != CURLE_OK && !(cc == CURLE_WRITE_ERROR && x->done)) {
		curl_easy_getinfo(c, CURLINFO_CONNECT_TIME, &connect_s);
		return curl_error(src->name, cc, ebuf, h, connect_s, err);
	}
	curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &x->status);
	if (x->status >= 300 || x->status < 200)
		return http_error(src->name, x->status, x->token_sent, x->retry_after, err);
	/* Short bodies are judged by the caller, which knows what it needs. */
	return CR_OK;
}

/* A range transfer that first tries where the last request landed, and
 * the original URL again if that fails (a CDN link may have expired). */
static int fetch(cr_source *src, http_impl *h, xfer *x, cr_error *err)
{
	int rc;

	if (h->eff && strcmp(h->eff, h->url) != 0) {
		xfer saved = *x;

		rc = perform(src, h, h->eff, h->eff_same_host, x, err);
		if (rc == CR_OK || x->status < 400)
			return rc;
		*x = saved;
	}
	return perform(src, h, h->url, true, x, err);
}

static bool same_origin(const char *a, const char *b)
{
	CURLU *ua = curl_url(), *ub = curl_url();
	char *ha = NULL, *hb = NULL, *pa = NULL, *pb = NULL, *sa = NULL, *sb = NULL;
	bool same = false;

	if (ua && ub && !curl_url_set(ua, CURLUPART_URL, a, 0) && !curl_url_set(ub, CURLUPART_URL, b, 0) &&
	    !curl_url_get(ua, CURLUPART_HOST, &ha, 0) && !curl_url_get(ub, CURLUPART_HOST, &hb, 0) &&
	    !curl_url_get(ua, CURLUPART_PORT, &pa, CURLU_DEFAULT_PORT) &&
	    !curl_url_get(ub, CURLUPART_PORT, &pb, CURLU_DEFAULT_PORT) &&
	    !curl_url_get(ua, CURLUPART_SCHEME, &sa, 0) && !curl_url_get(ub, CURLUPART_SCHEME, &sb, 0))
		same = cr_strcasecmp(ha, hb) == 0 && strcmp(pa, pb) == 0 && strcmp(sa, sb) == 0;
	curl_free(ha);
	curl_free(hb);
	curl_free(pa);
	curl_free(pb);
	curl_free(sa);
	curl_free(sb);
	curl_url_cleanup(ua);
	curl_url_cleanup(ub);
	return same;
}

static int http_read(cr_source *src, uint64_t off, void *buf, size_t len, cr_error *err)
{
	http_impl *h = src->impl;
	xfer x;
	int rc;

	if (off + len <= h->cache_len) {
		memcpy(buf, h->cache + off, len);
		return CR_OK;
	}
	memset(&x, 0, sizeof(x));
	x.ranged = true;
	if (off <= h->cache_len) {
		/* Extend the prefix cache by the missing bytes. From a server
		 * that ignores Range (each request sends the file from byte 0
		 * again) read ahead to twice the cache, so that a header of N
		 * bytes takes about log2(N / first range) requests and fewer
		 * than 4N bytes (each request ends at least twice as far as the
		 * last, the last below 2N), instead of one request per
		 * extension. */
		uint64_t end = off + len, want;
		unsigned char *nc;

		if (h->no_range && 2 * (uint64_t)h->cache_len > end) {
			end = 2 * (uint64_t)h->cache_len;
			if (end > src->size)
				end = src->size > off + len ? src->size : off + len;
			/* and no further than the cap lets it keep */
			if (h->o.max_total_bytes > h->received &&
			    end - h->cache_len > h->o.max_total_bytes - h->received)
				end = h->cache_len + (h->o.max_total_bytes - h->received);
			if (end < off + len)
				end = off + len;
		}
		want = end - h->cache_len;
		if (!(nc = realloc(h->cache, (size_t)end)))
			return cr_seterr(err, CR_ERR_NOMEM, "%s: out of memory", src->name);
		h->cache = nc;
		x.start = h->cache_len;
		x.len = want;
		x.dst = h->cache + h->cache_len;
		if ((rc = fetch(src, h, &x, err)))
			return rc;
		if (x.status == 200)
			h->no_range = true;
		if (x.got != want)
			return cr_seterr(err, CR_ERR_IO, "%s: the body ended after %" PRIu64 " of %" PRIu64 " bytes",
					 src->name, x.got, want);
		h->cache_len = (size_t)end;
		memcpy(buf, h->cache + off, len);
		return CR_OK;
	}
	x.start = off;
	x.len = len;
	x.dst = buf;
	if ((rc = fetch(src, h, &x, err)))
		return rc;
	if (x.got != len)
		return cr_seterr(err, CR_ERR_IO, "%s: the body ended after %" PRIu64 " of %zu bytes", src->name,
				 x.got, len);
	return CR_OK;
}

static void http_close(cr_source *src)
{
	http_impl *h = src->impl;

	if (!h)
		return;
	if (h->curl)
		curl_easy_cleanup(h->curl);
	if (h->token) {
		memset(h->token, 0, strlen(h->token));
		free(h->token);
	}
	free(h->url);
	free(h->eff);
	free(h->cache);
	free(h);
}

static const cr_source_ops http_ops = { http_read, http_close };

static int new_http(const char *url, const cr_http_opts *opts, cr_source **out, cr_error *err)
{
	static const cr_http_opts defaults = CR_HTTP_OPTS_INIT;
	http_impl *h;
	cr_source *s;
	char *name;
	int rc;

	*out = NULL;
	if (!(name = cr_http_display_url(url)))
		return cr_seterr(err, CR_ERR_NOMEM, "out of memory");
	if (!is_http(url)) {
		rc = cr_seterr(err, CR_ERR_INVALID, "%s: not an http:// or https:// URL", name);
		free(name);
		return rc;
	}
	rc = cr_curl_load(NULL, err);
	if (!rc)
		rc = cr_source_alloc(name, &http_ops, &s, err);
	free(name);
	if (rc)
		return rc;
	h = calloc(1, sizeof(*h));
	s->impl = h;
	if (!h || !(h->url = strdup(url)) || !(h->curl = curl_easy_init()) ||
	    (opts && opts->bearer_token && !(h->token = strdup(opts->bearer_token)))) {
		rc = cr_seterr(err, CR_ERR_NOMEM, "%s: cannot start a transfer", s->name);
		cr_source_free(s);
		return rc;
	}
	h->o = opts ? *opts : defaults;
	h->o.bearer_token = NULL;
	if (!h->o.first_range_bytes)
		h->o.first_range_bytes = defaults.first_range_bytes;
	if (!h->o.max_total_bytes)
		h->o.max_total_bytes = defaults.max_total_bytes;
	*out = s;
	return CR_OK;
}

int cr_http_open(const char *url, const cr_http_opts *opts, cr_http_cond *cond, cr_source **out,
		 cr_error *err)
{
	cr_source *s;
	http_impl *h;
	xfer x;
	char *eff = NULL;
	int rc;

	*out = NULL;
	if (cond) {
		cond->not_modified = false;
		cond->etag[0] = '\0';
		memset(&cond->stats, 0, sizeof(cond->stats));
	}
	if ((rc = new_http(url, opts, &s, err)) || !s)
		return rc ? rc : CR_ERR_NOMEM;
	h = s->impl;
	memset(&x, 0, sizeof(x));
	x.ranged = true;
	x.first = true;
	x.start = 0;
	x.len = h->o.first_range_bytes;
	x.inm = cond ? cond->if_none_match : NULL;
	if (x.len > h->o.max_total_bytes)
		x.len = h->o.max_total_bytes;
	if (!(h->cache = malloc((size_t)x.len))) {
		rc = cr_seterr(err, CR_ERR_NOMEM, "%s: out of memory", s->name);
		cr_source_free(s);
		return rc;
	}
	x.dst = h->cache;
	rc = perform(s, h, h->url, true, &x, err);
	if (cond)
		cond->stats = s->stats;
	if (!rc && x.not_modified && cond) {
		cond->not_modified = true;
		cr_source_free(s);
		return CR_OK;
	}
	if (rc && x.status == 416 && x.have_cr && x.cr_total_known && x.cr_total == 0) {
		rc = CR_OK; /* an empty file */
		s->size = 0;
	} else if (!rc) {
		if (x.status == 206 && x.cr_total_known)
			s->size = x.cr_total;
		else if (x.status == 200 && x.have_cl)
			s->size = x.content_length;
		else if (x.status == 200 && !x.done)
			s->size = x.got; /* the whole body arrived */
		else
			rc = cr_seterr(err, CR_ERR_IO, "%s: the server did not say how large the file is", s->name);
	}
	if (!rc && x.got < x.len && x.got < s->size)
		rc = cr_seterr(err, CR_ERR_IO, "%s: the body ended after %" PRIu64 " bytes", s->name, x.got);
	if (rc) {
		cr_source_free(s);
		return rc;
	}
	h->cache_len = (size_t)x.got;
	h->no_range = x.status == 200;
	memcpy(h->etag, x.resp_etag, sizeof(h->etag));
	if (cond)
		snprintf(cond->etag, sizeof(cond->etag), "%s", x.linked_etag[0] ? x.linked_etag : x.resp_etag);
	if (curl_easy_getinfo(h->curl, CURLINFO_EFFECTIVE_URL, &eff) == CURLE_OK && eff &&
	    strcmp(eff, h->url) != 0) {
		h->eff = strdup(eff);
		h->eff_same_host = h->eff && same_origin(h->eff, h->url);
	}
	*out = s;
	return CR_OK;
}

int cr_source_open_url(const char *url, const cr_http_opts *opts, cr_source **out, cr_error *err)
{
	return cr_http_open(url, opts, NULL, out, err);
}

int cr_http_fetch(const char *url, const cr_http_opts *opts, size_t max_bytes, cr_http_cond *cond,
		  char **body, size_t *len, cr_error *err)
{
	cr_source *s;
	xfer x;
	int rc;

	*body = NULL;
	*len = 0;
	if (cond) {
		cond->not_modified = false;
		cond->etag[0] = '\0';
		memset(&cond->stats, 0, sizeof(cond->stats));
	}
	if ((rc = new_http(url, opts, &s, err)) || !s)
		return rc ? rc : CR_ERR_NOMEM;
	memset(&x, 0, sizeof(x));
	x.whole = true;
	x.first = true;
	x.whole_max = max_bytes;
	x.inm = cond ? cond->if_none_match : NULL;
	rc = perform(s, s->impl, url, true, &x, err);
	if (cond) {
		cond->stats = s->stats;
		cond->not_modified = !rc && x.not_modified;
		if (!rc && !x.not_modified)
			snprintf(cond->etag, sizeof(cond->etag), "%s", x.linked_etag[0] ? x.linked_etag : x.resp_etag);
	}
	if (!rc && !x.not_modified) {
		if (!x.grow && !(x.grow = malloc(1)))
			rc = cr_seterr(err, CR_ERR_NOMEM, "out of memory");
		else {
			x.grow[x.got] = '\0';
			*body = (char *)x.grow;
			*len = (size_t)x.got;
			x.grow = NULL;
		}
	}
	free(x.grow);
	cr_source_free(s);
	return rc;
}

int cr_source_fetch_url(const char *url, const cr_http_opts *opts, size_t max_bytes, char **body,
			size_t *len, cr_source_stats *stats, cr_error *err)
{
	cr_http_cond cond;
	int rc;

	memset(&cond, 0, sizeof(cond));
	rc = cr_http_fetch(url, opts, max_bytes, &cond, body, len, err);
	if (stats) {
		stats->requests += cond.stats.requests;
		stats->bytes_fetched += cond.stats.bytes_fetched;
	}
	return rc;
}
