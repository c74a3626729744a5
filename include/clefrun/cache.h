/**
 * @file cache.h
 * @brief The header cache: GGUF headers and small documents (Hugging Face
 * file lists) of remote sources, on disk, keyed by URL and ETag.
 *
 * A remote inspect reads 256 KiB to a few MiB of header over one or two
 * requests; the cache keeps those bytes so that the next run needs no
 * request at all, or one without a body. Where: $XDG_CACHE_HOME/clefrun/
 * (default ~/.cache/clefrun/, cr_cache_dir). One file per URL:
 *
 *   gguf-<16 hex>   the header bytes [0, end of the tensor infos) of a GGUF
 *   st-<16 hex>     the header bytes [0, 8 + N) of a safetensors shard
 *   doc-<16 hex>    a document (a repository's file list, a config.json)
 *
 * where the hex is the FNV-1a 64 hash of the kind and the URL. A file is a
 * text preamble, then the bytes:
 *
 *   clefrun-cache 1\n
 *   kind gguf\n                 (or "st", "doc")
 *   url <the URL, as given>\n
 *   etag <the validator>\n
 *   size <the remote file's bytes>\n
 *   length <payload bytes>\n
 *   check <FNV-1a 64 of the lines above and the payload, 16 hex>\n
 *   \n
 *   <payload>
 *
 * The checksum catches a torn or corrupted file; it is no defence against
 * someone who can write the cache, so a cached entry is treated exactly like
 * bytes from the network: the preamble is parsed with limits, the payload
 * goes through the GGUF reader (or the document's validator) again, and any
 * failure makes the entry "broken": it is deleted, reported through
 * cr_cache_result.notice, and fetched again (never trusted).
 *
 * Writes are atomic: a temporary file in the same directory, fsync, rename
 * over the entry, fsync of the directory. Readers see the old entry or the
 * new one, never a mix.
 *
 * Freshness: an entry the server confirmed less than max_age_s ago (the
 * file's mtime) is used without a request. An older one is revalidated by
 * the first request itself (If-None-Match): a 304, or a Hugging Face
 * redirect whose X-Linked-Etag still matches, costs one request and no
 * body; a changed file's answer is the first range of the new bytes, so a
 * change costs nothing extra. Servers that send no ETag are not cached.
 * CR_CACHE_OFFLINE uses entries of any age and never touches the network.
 *
 * The library never prints: notices (a broken entry replaced, an entry that
 * could not be written) come back in cr_cache_result for the caller to show.
 */
#ifndef CLEFRUN_CACHE_H
#define CLEFRUN_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "clefrun/error.h"
#include "clefrun/gguf.h"
#include "clefrun/safetensors.h"
#include "clefrun/source.h"

#ifdef __cplusplus
extern "C" {
#endif

/** An opened cache directory (opaque). */
typedef struct cr_cache cr_cache;

/** How the cache and the network are used. */
typedef enum cr_cache_mode {
	CR_CACHE_USE = 0,   /**< fresh entries as they are, stale ones revalidated, fetches stored */
	CR_CACHE_OFFLINE    /**< entries only, whatever their age; no request; a miss is CR_ERR_NOTFOUND */
} cr_cache_mode;

/** Default freshness: an hour, so a session of checks makes no request. */
#define CR_CACHE_MAX_AGE_S 3600
/** Entries never expire (an immutable revision, a commit hash). */
#define CR_CACHE_FOREVER INT64_MAX

/** Options. Initialise with CR_CACHE_OPTS_INIT. */
typedef struct cr_cache_opts {
	cr_cache_mode mode;
	int64_t max_age_s;  /**< seconds an entry is used without asking the server; 0: always ask */
} cr_cache_opts;

/* Defaults: read and write the cache, entries fresh for an hour. */
#define CR_CACHE_OPTS_INIT { .mode = CR_CACHE_USE, .max_age_s = CR_CACHE_MAX_AGE_S }

/**
 * The cache directory: "$XDG_CACHE_HOME/clefrun" when @p xdg_cache_home is
 * absolute (the XDG spec ignores a relative one), else "$HOME/.cache/clefrun".
 * Pass getenv's values; the library reads no environment.
 * @return 0; CR_ERR_INVALID when neither is usable or the path does not fit.
 */
int cr_cache_dir(const char *xdg_cache_home, const char *home, char *buf, size_t cap, cr_error *err);

/**
 * Use @p dir as the cache (created, mode 0700, at the first write).
 * @p opts NULL: CR_CACHE_OPTS_INIT. Free with cr_cache_free.
 * @return 0; CR_ERR_INVALID for an empty or too long path; CR_ERR_NOMEM.
 */
int cr_cache_open(const char *dir, const cr_cache_opts *opts, cr_cache **out, cr_error *err);

/** Free; NULL is a no-op. */
void cr_cache_free(cr_cache *c);

/** The directory, owned by the cache. */
const char *cr_cache_path(const cr_cache *c);

/** The mode it was opened with. */
cr_cache_mode cr_cache_get_mode(const cr_cache *c);

/* ---- entries ----------------------------------------------------------------- */

/** What an entry holds. */
typedef enum cr_cache_kind {
	CR_CACHE_GGUF = 0, /**< GGUF header bytes; size is the remote file's */
	CR_CACHE_DOC,      /**< a document; size is its length */
	CR_CACHE_ST        /**< safetensors header bytes [0, 8 + N); size is the remote file's */
} cr_cache_kind;

/** Longest URL and validator an entry holds (longer ones are not cached). */
#define CR_CACHE_URL_MAX 4096
#define CR_CACHE_ETAG_MAX 256

/** One entry, as read or to be written. */
typedef struct cr_cache_entry {
	cr_cache_kind kind;
	char url[CR_CACHE_URL_MAX];   /**< keyed and stored with credentials redacted (cr_url_redact) */
	char etag[CR_CACHE_ETAG_MAX]; /**< printable ASCII, not empty */
	uint64_t remote_bytes;        /**< the remote file's size */
	int64_t validated_at;         /**< Unix seconds the server last confirmed it (read only: the file's mtime) */
	unsigned char *data;          /**< payload (cr_cache_get: owned by the entry) */
	size_t len;
} cr_cache_entry;

/**
 * Read the entry of @p url. @p max_len caps the payload (the GGUF header
 * limit, a document's cap). On success *out is the caller's, freed with
 * cr_cache_entry_free.
 * @return 0; CR_ERR_NOTFOUND when there is none (or it belongs to another
 *   URL with the same hash); CR_ERR_PARSE for a broken entry, which is
 *   deleted (message "PATH: what is wrong"); CR_ERR_NOMEM.
 */
int cr_cache_get(cr_cache *c, cr_cache_kind kind, const char *url, size_t max_len,
		 cr_cache_entry **out, cr_error *err);

/**
 * Write @p e atomically (replacing any entry of its URL). The directory is
 * created when missing.
 * @return 0; CR_ERR_INVALID for a URL or validator that cannot be stored
 *   (too long, control bytes, empty validator); CR_ERR_IO with the path and
 *   the system's reason.
 */
int cr_cache_put(cr_cache *c, const cr_cache_entry *e, cr_error *err);

/** Mark the entry of @p url as confirmed now (its mtime). @return 0; CR_ERR_IO. */
int cr_cache_touch(cr_cache *c, cr_cache_kind kind, const char *url, cr_error *err);

/** Delete the entry of @p url; a missing one is not an error. @return 0; CR_ERR_IO. */
int cr_cache_remove(cr_cache *c, cr_cache_kind kind, const char *url, cr_error *err);

/** The file of an entry (whether or not it exists). @return 0; CR_ERR_RANGE when @p cap is too small. */
int cr_cache_entry_path(const cr_cache *c, cr_cache_kind kind, const char *url, char *buf, size_t cap,
			cr_error *err);

/** Free; NULL is a no-op. */
void cr_cache_entry_free(cr_cache_entry *e);

/* ---- reading through the cache ----------------------------------------------- */

/** Where a result came from. */
typedef enum cr_cache_outcome {
	CR_CACHE_NONE = 0,    /**< no cache given: the network only */
	CR_CACHE_MISS,        /**< fetched (no entry, or the file changed) */
	CR_CACHE_HIT,         /**< a fresh entry (or any entry offline): no request */
	CR_CACHE_REVALIDATED  /**< a stale entry the server confirmed: one request, no body */
} cr_cache_outcome;

/** Name of an outcome ("none", "miss", "hit", "revalidated"). */
const char *cr_cache_outcome_name(cr_cache_outcome o);

/** What a read through the cache did. */
typedef struct cr_cache_result {
	cr_cache_outcome outcome;
	bool stored;                  /**< the answer was written to the cache */
	uint64_t remote_bytes;        /**< the remote file's size */
	cr_source_stats stats;        /**< network requests and bytes (zero for a hit) */
	char notice[CR_ERROR_MSG_MAX];/**< not "" when something went wrong with the cache but the result
				           is good: a broken entry deleted and fetched again, an entry that
				           could not be written. One line. */
} cr_cache_result;

/**
 * Read the GGUF header of @p url through the cache @p c (NULL: the network
 * only, as cr_source_open_url + cr_gguf_load). @p http and @p gguf may be
 * NULL (defaults). On success *out is the parsed header (free with
 * cr_gguf_free), its cr_gguf_file_size the remote file's size.
 * @return 0; CR_ERR_NOTFOUND offline without an entry ("URL: not in the
 *   cache (DIR)", reason CR_REASON_OFFLINE_MISS) and for HTTP 404; otherwise the errors of
 *   cr_source_open_url and cr_gguf_load. A header that the reader refuses
 *   because of @p gguf's options (a file cut after its header without
 *   allow_truncated) is refused with the reader's own error, from the cache
 *   as from the network. @p res (optional) is filled on every return.
 */
int cr_cache_load_gguf(cr_cache *c, const char *url, const cr_http_opts *http,
		       const cr_gguf_opts *gguf, cr_gguf **out, cr_cache_result *res, cr_error *err);

/**
 * Read the safetensors header of @p url through the cache @p c (NULL: the
 * network only, as cr_source_open_url + cr_st_read), as cr_cache_load_gguf
 * does for a GGUF: a fresh entry costs no request, a stale one a
 * conditional request, a changed file the same requests as no entry. The
 * bytes [0, 8 + N) are stored; a cached entry is parsed again with
 * cr_st_parse against the remote file's size and deleted when it does not
 * parse or its header is not exactly its length. @p http and @p st may be
 * NULL (defaults). *out is freed with cr_st_free.
 * @return 0; CR_ERR_NOTFOUND offline without an entry and for HTTP 404;
 *   the errors of cr_source_open_url and cr_st_read. @p res (optional) is
 *   filled on every return.
 */
int cr_cache_load_st(cr_cache *c, const char *url, const cr_http_opts *http, const cr_st_opts *st,
		     cr_st_header **out, cr_cache_result *res, cr_error *err);

/**
 * Checks a document's bytes (from the network or the cache) before they are
 * used or stored: 0 to accept, else a status with @p err filled.
 */
typedef int (*cr_cache_validate_fn)(const char *body, size_t len, void *ud, cr_error *err);

/**
 * GET the document at @p url (at most @p max_bytes) through the cache @p c
 * (NULL: the network only). @p validate (optional) checks the bytes; a
 * cached document it refuses is a broken entry. *body is NUL-terminated and
 * the caller's (free()).
 * @return 0; CR_ERR_NOTFOUND offline without an entry and for HTTP 404;
 *   the errors of cr_source_fetch_url and of @p validate.
 */
int cr_cache_fetch_doc(cr_cache *c, const char *url, const cr_http_opts *http, size_t max_bytes,
		       cr_cache_validate_fn validate, void *ud, char **body, size_t *len,
		       cr_cache_result *res, cr_error *err);

#ifdef __cplusplus
}
#endif
#endif
