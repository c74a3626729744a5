/*
 * libcurl, loaded when the first URL is opened (curl_dl.c).
 *
 * Neither libclefrun nor the clefrun program links libcurl: a command that
 * reads only the catalog or local files never maps it, nor the libraries it
 * pulls in (OpenSSL, nghttp2, krb5, LDAP, ...), whose relocation was most of
 * clefrun's start-up (docs/decisions.md, "libcurl loaded at first use").
 * <curl/curl.h> still gives the types and constants at build time.
 *
 * Including this header instead of <curl/curl.h> maps every curl_* function
 * the library calls onto the pointers cr_curl_load fills, so the calling
 * code reads as plain libcurl. Call cr_curl_load (it is cheap once loaded)
 * before the first curl_* call on each path that may be first; the URL
 * source does it when it opens (source_http.c, new_http). A function not
 * listed here does not link (nothing links libcurl): add it to cr_curl_api,
 * the list in curl_dl.c and the #defines below.
 *
 * curl.h's type-checking macros for curl_easy_setopt and curl_easy_getinfo
 * (typecheck-gcc.h) are given up: the calls go through the pointers.
 */
#ifndef CLEFRUN_CURL_DL_H
#define CLEFRUN_CURL_DL_H

#include <curl/curl.h>

#include "clefrun/error.h"

/* The library loaded: libcurl's ABI 4 soname (every libcurl since 7.16;
 * Debian's libcurl4 / libcurl3-gnutls ship it as libcurl.so.4 and
 * libcurl-gnutls.so.4). */
#define CR_CURL_SONAME "libcurl.so.4"

/* The functions used, with the prototypes <curl/curl.h> declares
 * (__typeof__ of the declaration: it names no symbol, so nothing links). */
typedef struct cr_curl_api {
	__typeof__(&curl_global_init) global_init;
	__typeof__(&curl_global_cleanup) global_cleanup;
	__typeof__(&curl_easy_init) easy_init;
	__typeof__(&curl_easy_setopt) easy_setopt;
	__typeof__(&curl_easy_getinfo) easy_getinfo;
	__typeof__(&curl_easy_perform) easy_perform;
	__typeof__(&curl_easy_reset) easy_reset;
	__typeof__(&curl_easy_cleanup) easy_cleanup;
	__typeof__(&curl_easy_strerror) easy_strerror;
	__typeof__(&curl_free) free;
	__typeof__(&curl_slist_append) slist_append;
	__typeof__(&curl_slist_free_all) slist_free_all;
	__typeof__(&curl_url) url;
	__typeof__(&curl_url_cleanup) url_cleanup;
	__typeof__(&curl_url_get) url_get;
	__typeof__(&curl_url_set) url_set;
} cr_curl_api;

/* Filled by cr_curl_load; read only after a call of it returned 0 (its
 * mutex orders the writes before those reads, on any thread). */
extern cr_curl_api cr_curl_fn;

/*
 * Load libcurl and call curl_global_init, once per process; thread-safe
 * (a mutex; a later call returns at once). @p soname: NULL for
 * CR_CURL_SONAME; tests pass another name to see the failure. A failure
 * is not remembered: the next call tries again.
 * curl_global_cleanup runs at exit (atexit; glibc runs it at dlclose too
 * when libclefrun.so is unloaded), and only when the load succeeded.
 * @return 0, or CR_ERR_IO with a message naming the library and the
 *   loader's reason (dlerror()).
 */
int cr_curl_load(const char *soname, cr_error *err);

#ifndef CR_CURL_DL_IMPL
#undef curl_easy_setopt
#undef curl_easy_getinfo
#define curl_global_init (cr_curl_fn.global_init)
#define curl_global_cleanup (cr_curl_fn.global_cleanup)
#define curl_easy_init (cr_curl_fn.easy_init)
#define curl_easy_setopt (cr_curl_fn.easy_setopt)
#define curl_easy_getinfo (cr_curl_fn.easy_getinfo)
#define curl_easy_perform (cr_curl_fn.easy_perform)
#define curl_easy_reset (cr_curl_fn.easy_reset)
#define curl_easy_cleanup (cr_curl_fn.easy_cleanup)
#define curl_easy_strerror (cr_curl_fn.easy_strerror)
#define curl_free (cr_curl_fn.free)
#define curl_slist_append (cr_curl_fn.slist_append)
#define curl_slist_free_all (cr_curl_fn.slist_free_all)
#define curl_url (cr_curl_fn.url)
#define curl_url_cleanup (cr_curl_fn.url_cleanup)
#define curl_url_get (cr_curl_fn.url_get)
#define curl_url_set (cr_curl_fn.url_set)
#endif

#endif
