/**
 * @file source.h
 * @brief Byte sources: read-at-offset over a file, a memory buffer or an
 * HTTP(S) URL.
 *
 * The GGUF reader (gguf.h) takes its bytes from a cr_source and never knows
 * where they come from. A source has a size, a name used in messages (the
 * path or the URL, never a credential) and one operation: read exactly N
 * bytes at an offset. Reads past the end are errors that name the offset.
 *
 * The URL source (cr_source_open_url) speaks HTTP Range requests through
 * libcurl. Opening it sends the first range request (first_range_bytes,
 * 256 KiB by default, the GGUF reader's first read) and learns the file size
 * from Content-Range; later reads fetch exactly the bytes asked for. Bytes
 * already fetched from the start of the file are kept, so the GGUF reader's
 * growing reads cost one request each. A server that ignores Range (200 with
 * the whole body) is read only as far as needed and then cut off. libcurl
 * is not linked: the first URL source loads libcurl.so.4 (dlopen) and calls
 * curl_global_init, once, thread-safely; without it opening fails with
 * CR_ERR_IO naming the library and the loader's reason.
 *
 * Ownership: every constructor returns a source the caller frees with
 * cr_source_free; cr_source_free(NULL) is a no-op.
 */
#ifndef CLEFRUN_SOURCE_H
#define CLEFRUN_SOURCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "clefrun/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/** An opaque byte source. Not safe for concurrent use. */
typedef struct cr_source cr_source;

/** What a source has done so far (for budgets, tests and benchmarks). */
typedef struct cr_source_stats {
	uint64_t requests;       /**< transfers started: read(2) calls, HTTP requests (redirect hops included) */
	uint64_t bytes_fetched;  /**< bytes received from the backing store (HTTP body bytes, file bytes) */
	uint64_t bytes_read;     /**< bytes handed to callers by cr_source_read */
} cr_source_stats;

/**
 * Open a local file for reading.
 * @return 0; CR_ERR_IO (message: "PATH: <strerror>") when it cannot be
 *   opened or is not a regular file.
 */
int cr_source_open_file(const char *path, cr_source **out, cr_error *err);

/**
 * A source over @p len bytes at @p buf, named @p name in messages (NULL:
 * "memory"). The bytes are copied when @p copy is true; otherwise @p buf
 * must outlive the source. Used by tests and fuzzers.
 */
int cr_source_open_memory(const void *buf, size_t len, const char *name, bool copy,
			  cr_source **out, cr_error *err);

/** Options of a URL source. Initialise with CR_HTTP_OPTS_INIT. */
typedef struct cr_http_opts {
	const char *bearer_token;   /**< sent as "Authorization: Bearer" to the URL's own host only; NULL: none. Never logged. */
	long connect_timeout_s;     /**< TCP + TLS connect */
	long low_speed_time_s;      /**< abort when slower than low_speed_bps for this long */
	long low_speed_bps;         /**< bytes/s */
	long max_redirects;         /**< redirects followed per request, http/https only */
	uint64_t first_range_bytes; /**< size of the range requested when opening */
	uint64_t max_total_bytes;   /**< cap on the bytes kept over the source's life (bytes a server that ignores Range sends again are not counted) */
	const char *user_agent;     /**< NULL: "clefrun/VERSION" */
	long max_time_s;            /**< cap on one request's whole duration (a slow drip just above low_speed_bps); 0: none */
	/** A deadline shared by every request made with these options (and
	 * copies of them): a CLOCK_MONOTONIC time in ms, from cr_http_now_ms.
	 * Each request may take only what is left (CURLOPT_TIMEOUT_MS, the
	 * smaller of this and max_time_s); one started after it fails at once
	 * without connecting. 0: none. The CLI sets one per command. */
	uint64_t deadline_ms;
	long deadline_budget_s;     /**< the seconds deadline_ms was set from, for the message; 0: not said */
	/** Called as body bytes arrive (libcurl's progress callback, at least
	 * once a second while a transfer runs): the bytes of this transfer so
	 * far and its expected total (0: unknown). NULL: none. It must not
	 * call back into the source. */
	void (*progress)(void *arg, uint64_t bytes_now, uint64_t bytes_total);
	void *progress_arg;
	/** The Accept header of every request (a registry's manifest media
	 * type); printable ASCII, at most 200 bytes, else not sent. NULL:
	 * libcurl's default. Must outlive the source. */
	const char *accept;
} cr_http_opts;

/** Default first range: the GGUF reader's first read (gguf.h). */
#define CR_HTTP_FIRST_RANGE (256u << 10)
/** Default cap: the GGUF header limit (64 MiB) plus one first range. */
#define CR_HTTP_MAX_TOTAL ((64ull << 20) + CR_HTTP_FIRST_RANGE)

/* Defaults (clefrun's choices, docs/security.md): connect within 10 s; abort
 * below 1 KiB/s held for 20 s; follow at most 5 redirects; a request may
 * take 300 s in all; no token, no deadline, no progress callback. */
#define CR_HTTP_OPTS_INIT                                                               \
	{ .bearer_token = NULL, .connect_timeout_s = 10, .low_speed_time_s = 20,         \
	  .low_speed_bps = 1024, .max_redirects = 5, .first_range_bytes = CR_HTTP_FIRST_RANGE, \
	  .max_total_bytes = CR_HTTP_MAX_TOTAL, .user_agent = NULL, .max_time_s = 300,     \
	  .deadline_ms = 0, .deadline_budget_s = 0, .progress = NULL, .progress_arg = NULL,   \
	  .accept = NULL }

/** CLOCK_MONOTONIC in milliseconds, the clock of cr_http_opts.deadline_ms. */
uint64_t cr_http_now_ms(void);

/**
 * Open an http:// or https:// URL as a source: one Range request for the
 * first first_range_bytes, which also gives the size.
 * @return 0; CR_ERR_INVALID for a URL that is not http(s); CR_ERR_NOTFOUND
 *   for 404; CR_ERR_IO for any other failure (status, timeout, TLS, a
 *   Content-Range that does not match the request, the byte cap). Messages
 *   name the URL (credentials in it removed) and say what happened in user
 *   words, e.g. "https://host/x.gguf: HTTP 401: access denied (no
 *   credentials were sent)"; err->reason is CR_REASON_HTTP_AUTH for a 401
 *   or 403 without a token, CR_REASON_HTTP_TOKEN_REFUSED with one,
 *   CR_REASON_HTTP_NOT_FOUND for 404 (error.h). Proxies come from the
 *   environment as libcurl reads it (http_proxy, https_proxy, ALL_PROXY,
 *   NO_PROXY). The header cache (cache.h) reads URLs through this source.
 */
int cr_source_open_url(const char *url, const cr_http_opts *opts, cr_source **out,
		       cr_error *err);

/**
 * GET a small document (a Hugging Face file list) into a NUL-terminated
 * buffer the caller frees with free(). @p max_bytes caps the body.
 * Same errors as cr_source_open_url. @p stats (optional) counts the request.
 */
int cr_source_fetch_url(const char *url, const cr_http_opts *opts, size_t max_bytes,
			char **body, size_t *len, cr_source_stats *stats, cr_error *err);

/**
 * Read exactly @p len bytes at @p offset into @p buf.
 * @return 0; CR_ERR_IO when the range leaves the source ("NAME: byte
 *   OFFSET: wanted LEN bytes, the file has SIZE") or the backing read fails.
 */
int cr_source_read(cr_source *src, uint64_t offset, void *buf, size_t len, cr_error *err);

/** Size in bytes. */
uint64_t cr_source_size(const cr_source *src);

/** The name used in messages (path, URL with its credentials redacted by cr_url_redact, "memory"). Owned by the source. */
const char *cr_source_name(const cr_source *src);

/**
 * @p url as it may be shown or stored: the credentials of a
 * "scheme://user:password@host/..." URL (everything between "://" and the
 * last '@' of the authority) replaced by three asterisks before the '@';
 * anything else copied as it is. Every output of clefrun (messages,
 * tables, JSON, reports, the header cache) shows URLs this way; only the
 * request itself carries the credentials. Idempotent.
 * Writes at most @p cap - 1 bytes and a NUL.
 * @return the length of the whole result (cut when >= @p cap).
 */
size_t cr_url_redact(const char *url, char *out, size_t cap);

/** Counters since the source was opened. */
void cr_source_get_stats(const cr_source *src, cr_source_stats *out);

/** Close and free; NULL is a no-op. */
void cr_source_free(cr_source *src);

#ifdef __cplusplus
}
#endif
#endif
