/*
 * libcurl loaded with dlopen at the first URL (curl_dl.h): git keeps its
 * HTTP transport out of the main program for the same reason (its
 * git-remote-http helper). Loading resolves libcurl's whole dependency tree
 * (OpenSSL, nghttp2, libssh2, krb5, LDAP, ...: about 12 M instructions of
 * relocation here, measured with callgrind), which a command that never
 * opens a URL no longer pays (docs/decisions.md).
 */
#define CR_CURL_DL_IMPL
#include "curl_dl.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

cr_curl_api cr_curl_fn;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static bool loaded;

/* Each member of cr_curl_api with the symbol it is loaded from. */
#define SYM(member, name) { offsetof(cr_curl_api, member), name }
static const struct {
	size_t off;
	const char *name;
} syms[] = {
	SYM(global_init, "curl_global_init"),
	SYM(global_cleanup, "curl_global_cleanup"),
	SYM(easy_init, "curl_easy_init"),
	SYM(easy_setopt, "curl_easy_setopt"),
	SYM(easy_getinfo, "curl_easy_getinfo"),
	SYM(easy_perform, "curl_easy_perform"),
	SYM(easy_reset, "curl_easy_reset"),
	SYM(easy_cleanup, "curl_easy_cleanup"),
	SYM(easy_strerror, "curl_easy_strerror"),
	SYM(free, "curl_free"),
	SYM(slist_append, "curl_slist_append"),
	SYM(slist_free_all, "curl_slist_free_all"),
	SYM(url, "curl_url"),
	SYM(url_cleanup, "curl_url_cleanup"),
	SYM(url_get, "curl_url_get"),
	SYM(url_set, "curl_url_set"),
};
#undef SYM

/* Every member is a function pointer of one size, so each is stored as the
 * bytes of the address dlsym gave (POSIX: a function's address converts to
 * and from void *; ISO C has no such conversion, memcpy avoids it). */
_Static_assert(sizeof(cr_curl_api) == sizeof(syms) / sizeof(syms[0]) * sizeof(void (*)(void)),
	       "cr_curl_api and syms[] list the same functions");
_Static_assert(sizeof(void *) == sizeof(void (*)(void)), "function pointers as wide as void *");

/* At exit, once libcurl was loaded: undo curl_global_init. The library
 * stays mapped (unmapping it at exit gains nothing). A program that still
 * runs transfers on other threads while it exits is wrong with or without
 * this (libcurl: curl_global_cleanup is not thread-safe). */
static void unload(void)
{
	cr_curl_fn.global_cleanup();
}

static int try_load(const char *soname, cr_error *err)
{
	cr_curl_api api;
	char reason[512];
	const char *why;
	void *h;

	(void)dlerror();
	h = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		why = dlerror();
		return cr_seterr(err, CR_ERR_IO,
				 "%s could not be loaded: %s (clefrun reads URLs and hf: models with "
				 "libcurl; Debian package libcurl4)",
				 soname, why ? why : "unknown reason");
	}
	for (size_t i = 0; i < sizeof(syms) / sizeof(syms[0]); i++) {
		void *p;

		(void)dlerror();
		p = dlsym(h, syms[i].name);
		if (!p) {
			/* Copied first: dlclose frees the text dlerror returned. */
			why = dlerror();
			snprintf(reason, sizeof(reason), "%s", why ? why : "no such symbol");
			(void)dlclose(h);
			return cr_seterr(err, CR_ERR_IO,
					 "%s: %s not found (%s; clefrun needs libcurl 7.68 or later)", soname,
					 syms[i].name, reason);
		}
		memcpy((char *)&api + syms[i].off, &p, sizeof(p));
	}
	/* libcurl's global state (TLS back end, ...): set up once here, torn
	 * down at exit (unload). */
	if (api.global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
		(void)dlclose(h);
		return cr_seterr(err, CR_ERR_IO, "%s: curl_global_init failed", soname);
	}
	cr_curl_fn = api;
	loaded = true;
	(void)atexit(unload); /* if it fails, only the teardown at exit is lost */
	return CR_OK;
}

int cr_curl_load(const char *soname, cr_error *err)
{
	int rc = CR_OK;

	if (pthread_mutex_lock(&lock) != 0)
		return cr_seterr(err, CR_ERR_IO, "libcurl: cannot take the loader's lock");
	if (!loaded)
		rc = try_load(soname ? soname : CR_CURL_SONAME, err);
	(void)pthread_mutex_unlock(&lock);
	return rc;
}
