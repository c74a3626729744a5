/* The byte-source object behind include/clefrun/source.h. Each backend
 * (source.c: memory, source_file.c: file, source_http.c: URL) fills a
 * cr_source with its operations; cr_source_read checks the range before it
 * calls them, so a backend only sees reads that lie inside the source. */
#ifndef CLEFRUN_SOURCE_INTERNAL_H
#define CLEFRUN_SOURCE_INTERNAL_H

#include "clefrun/source.h"

typedef struct cr_source_ops {
	/* Read exactly len bytes at off (off + len <= size, len > 0). */
	int (*read)(cr_source *src, uint64_t off, void *buf, size_t len, cr_error *err);
	/* Release the backend's state (not the cr_source itself). */
	void (*close)(cr_source *src);
} cr_source_ops;

struct cr_source {
	const cr_source_ops *ops;
	char *name;            /* owned */
	uint64_t size;
	cr_source_stats stats;
	void *impl;            /* backend state */
};

/* Allocate a source with a copy of name; ops and impl set by the caller. */
int cr_source_alloc(const char *name, const cr_source_ops *ops, cr_source **out, cr_error *err);

/* A source of `size` bytes of which only the first `len` (copied) are
 * known: a header from the cache (cache.c), parsed against the remote
 * file's real size. Reads past `len` fail: "NAME: byte N: not in the
 * cached header (LEN bytes)". */
int cr_source_open_prefix(const void *buf, size_t len, uint64_t size, const char *name,
			  cr_source **out, cr_error *err);

/* ---- HTTP extras for the header cache (source_http.c, used by cache.c) ---- */

/* Longest validator kept; longer ones are ignored (not cached). */
#define CR_HTTP_ETAG_MAX 256

/* A conditional request and the validator of its answer. */
typedef struct cr_http_cond {
	/* in: a cached validator: sent as If-None-Match, and compared with
	 * X-Linked-Etag of a redirect (Hugging Face's resolve answers carry
	 * the file's) and with the final ETag; NULL: unconditional */
	const char *if_none_match;
	/* out: the server confirmed if_none_match (a 304, or the same
	 * validator, whereupon the transfer was cut): no source, no body */
	bool not_modified;
	/* out: the answer's validator: X-Linked-Etag of a redirect, else the
	 * final ETag; "" when there is none or it is unusable (control bytes,
	 * longer than CR_HTTP_ETAG_MAX - 1) */
	char etag[CR_HTTP_ETAG_MAX];
	/* out: requests and body bytes of the call, also when it fails */
	cr_source_stats stats;
} cr_http_cond;

/* cr_source_open_url with a validator. With cond->not_modified set, *out
 * is NULL and 0 is returned. */
int cr_http_open(const char *url, const cr_http_opts *opts, cr_http_cond *cond, cr_source **out,
		 cr_error *err);

/* cr_source_fetch_url with a validator (body NULL when not modified). */
int cr_http_fetch(const char *url, const cr_http_opts *opts, size_t max_bytes, cr_http_cond *cond,
		  char **body, size_t *len, cr_error *err);

/* A copy of url without user:password@ (for messages); NULL: no memory. */
char *cr_http_display_url(const char *url);

/* Weak comparison of two validators (RFC 9110 8.8.3.2): W/ ignored. */
bool cr_http_etag_match(const char *a, const char *b);

#endif
