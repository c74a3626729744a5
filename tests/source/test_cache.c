/*
 * The header cache (cache.h): the store on its own (round trip, misses,
 * every kind of broken entry, atomic replacement under a concurrent reader,
 * refused writes), then reads through it against a real HTTP server on
 * 127.0.0.1 (tests/support's, over a temporary directory this test may
 * change): miss then hit with no request, revalidation by 304 and by a
 * Hugging Face X-Linked-Etag, an ETag change, offline hits and misses, a
 * broken entry replaced, a server without ETag, repository lists.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
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
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "clefrun/clefrun.h"
#include "support.h"

static char root[256];     /* served files */
static char cachedir[400]; /* the cache under test, emptied per test */
static char logpath[400];
static char base[128];
static ts_server server;

/* ---- helpers ------------------------------------------------------------------ */

static void run_cmd(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void run_cmd(const char *fmt, ...)
{
	char cmd[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	if (system(cmd) != 0)
		fail_msg("command failed: %s", cmd);
}

static void empty_cache(void)
{
	assert_int_equal(ts_rm_tree(cachedir), 0);
}

static cr_cache *open_cache(cr_cache_mode mode, int64_t max_age)
{
	cr_cache_opts o = CR_CACHE_OPTS_INIT;
	cr_cache *c = NULL;
	cr_error err = CR_ERROR_INIT;

	o.mode = mode;
	o.max_age_s = max_age;
	assert_int_equal(cr_cache_open(cachedir, &o, &c, &err), 0);
	return c;
}

static void fill_entry(cr_cache_entry *e, cr_cache_kind kind, const char *url, const char *etag,
		       const void *data, size_t len, uint64_t size)
{
	memset(e, 0, sizeof(*e));
	e->kind = kind;
	snprintf(e->url, sizeof(e->url), "%s", url);
	snprintf(e->etag, sizeof(e->etag), "%s", etag);
	e->data = (unsigned char *)(uintptr_t)data;
	e->len = len;
	e->remote_bytes = size;
}

static size_t count_files(const char *dir, const char *prefix)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	size_t n = 0;

	if (!d)
		return 0;
	while ((de = readdir(d)))
		if (strncmp(de->d_name, prefix, strlen(prefix)) == 0)
			n++;
	closedir(d);
	return n;
}

static unsigned char *slurp(const char *path, size_t *len)
{
	unsigned char *b = (unsigned char *)ts_slurp(path, len);

	assert_non_null(b);
	return b;
}

static void spit(const char *path, const void *b, size_t len)
{
	FILE *f = fopen(path, "wb");

	assert_non_null(f);
	assert_int_equal(fwrite(b, 1, len, f), len);
	fclose(f);
}

static bool contains(const unsigned char *hay, size_t n, const char *needle, size_t k)
{
	for (size_t i = 0; k <= n && i <= n - k; i++)
		if (memcmp(hay + i, needle, k) == 0)
			return true;
	return false;
}

/* ---- the server ------------------------------------------------------------------ */

static int setup(void **state)
{
	char www[300];

	(void)state;
	if (ts_tmpdir(root, sizeof(root), "cache-test"))
		return -1;
	snprintf(cachedir, sizeof(cachedir), "%s/cache/sub/clefrun", root);
	snprintf(logpath, sizeof(logpath), "%s/server.log", root);
	snprintf(www, sizeof(www), "%s/www", root);
	if (mkdir(www, 0700) != 0)
		return -1;
	{
		char cmd[800];

		snprintf(cmd, sizeof(cmd), "cp %s/tiny-llama.gguf %s/llama-3.1-8b.hdr.gguf %s/",
			 CLEFRUN_GGUF_FIXTURES, CLEFRUN_GGUF_FIXTURES, www);
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
	empty_cache();
	return 0;
}

typedef struct logsum {
	int requests;
	uint64_t bytes;
	int cdn;          /* requests to /cdn/ */
	int not_modified; /* 304 answers */
} logsum;

static void log_reset(void)
{
	FILE *f = fopen(logpath, "w");

	assert_non_null(f);
	fclose(f);
}

static logsum log_read(void)
{
	logsum s = { 0, 0, 0, 0 };
	char line[4096];
	FILE *f = fopen(logpath, "r");
	const char *b;

	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		s.requests++;
		if ((b = strstr(line, "\"bytes\": ")))
			s.bytes += strtoull(b + 9, NULL, 10);
		if (strstr(line, "\"path\": \"/cdn/"))
			s.cdn++;
		if (strstr(line, "\"status\": 304"))
			s.not_modified++;
	}
	fclose(f);
	return s;
}

static void served(char *buf, size_t cap, const char *name)
{
	snprintf(buf, cap, "%s/www/%s", root, name);
}

/* Set a served file's mtime: its ETag changes with it. */
static void set_mtime(const char *name, time_t t)
{
	char p[400];
	struct timespec ts[2];

	served(p, sizeof(p), name);
	ts[0].tv_sec = ts[1].tv_sec = t;
	ts[0].tv_nsec = ts[1].tv_nsec = 0;
	assert_int_equal(utimensat(AT_FDCWD, p, ts, 0), 0);
}

/* Age a cache entry (its mtime is when the server last confirmed it). */
static void age_entry(cr_cache *c, cr_cache_kind kind, const char *url, time_t by)
{
	char p[4096];
	struct timespec ts[2];

	assert_int_equal(cr_cache_entry_path(c, kind, url, p, sizeof(p), NULL), 0);
	ts[0].tv_sec = ts[1].tv_sec = time(NULL) - by;
	ts[0].tv_nsec = ts[1].tv_nsec = 0;
	assert_int_equal(utimensat(AT_FDCWD, p, ts, 0), 0);
}

/* ---- the store ------------------------------------------------------------------ */

static void test_dir(void **state)
{
	static const struct {
		const char *xdg, *home, *want;
		int status;
	} cases[] = {
		{ "/x/cache", "/home/u", "/x/cache/clefrun", 0 },
		{ "relative", "/home/u", "/home/u/.cache/clefrun", 0 }, /* the XDG spec: ignored */
		{ "", "/home/u", "/home/u/.cache/clefrun", 0 },
		{ NULL, "/home/u", "/home/u/.cache/clefrun", 0 },
		{ NULL, NULL, NULL, CR_ERR_INVALID },
		{ "rel", "rel", NULL, CR_ERR_INVALID },
	};
	char buf[256], small[8];
	cr_error err = CR_ERROR_INIT;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_int_equal(cr_cache_dir(cases[i].xdg, cases[i].home, buf, sizeof(buf), &err), cases[i].status);
		if (cases[i].want)
			assert_string_equal(buf, cases[i].want);
	}
	assert_int_equal(cr_cache_dir("/x/cache", NULL, small, sizeof(small), &err), CR_ERR_INVALID);
	assert_string_equal(err.message, "cache: path too long");
}

static void test_roundtrip_hit(void **state)
{
	static const char payload[] = "GGUF\3\0\0\0header bytes\n\0with a NUL";
	cr_cache *c = open_cache(CR_CACHE_USE, 3600);
	cr_cache_entry e, *got = NULL;
	cr_error err = CR_ERROR_INIT;
	struct stat st;
	time_t now = time(NULL);

	(void)state;
	fill_entry(&e, CR_CACHE_GGUF, "https://h/x.gguf", "\"abc-123\"", payload, sizeof(payload), 1u << 30);
	assert_int_equal(cr_cache_put(c, &e, &err), 0);
	/* created with the directories above it, private */
	assert_int_equal(stat(cachedir, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0700);
	assert_int_equal(cr_cache_get(c, CR_CACHE_GGUF, "https://h/x.gguf", 1u << 20, &got, &err), 0);
	assert_string_equal(got->url, "https://h/x.gguf");
	assert_string_equal(got->etag, "\"abc-123\"");
	assert_int_equal(got->remote_bytes, 1u << 30);
	assert_int_equal(got->len, sizeof(payload));
	assert_memory_equal(got->data, payload, sizeof(payload));
	assert_true(got->validated_at >= now - 5 && got->validated_at <= now + 5);
	cr_cache_entry_free(got);
	/* a document and a header of one URL are two entries */
	assert_int_equal(cr_cache_get(c, CR_CACHE_DOC, "https://h/x.gguf", 1u << 20, &got, &err), CR_ERR_NOTFOUND);
	cr_cache_entry_free(NULL);
	cr_cache_free(c);
	cr_cache_free(NULL);
}

static void test_miss(void **state)
{
	cr_cache *c = open_cache(CR_CACHE_USE, 3600);
	cr_cache_entry e, *got = NULL;
	cr_error err = CR_ERROR_INIT;
	char pa[4096], pb[4096];

	(void)state;
	/* no directory at all */
	assert_int_equal(cr_cache_get(c, CR_CACHE_GGUF, "http://h/a.gguf", 1u << 20, &got, &err), CR_ERR_NOTFOUND);
	assert_null(got);
	/* an entry whose file holds another URL (a hash collision): a miss, not broken */
	fill_entry(&e, CR_CACHE_GGUF, "http://h/a.gguf", "\"1\"", "GGUF", 4, 100);
	assert_int_equal(cr_cache_put(c, &e, &err), 0);
	assert_int_equal(cr_cache_entry_path(c, CR_CACHE_GGUF, "http://h/a.gguf", pa, sizeof(pa), &err), 0);
	assert_int_equal(cr_cache_entry_path(c, CR_CACHE_GGUF, "http://h/b.gguf", pb, sizeof(pb), &err), 0);
	assert_string_not_equal(pa, pb);
	assert_int_equal(rename(pa, pb), 0);
	assert_int_equal(cr_cache_get(c, CR_CACHE_GGUF, "http://h/b.gguf", 1u << 20, &got, &err), CR_ERR_NOTFOUND);
	assert_null(got);
	/* removal, and removal of nothing */
	assert_int_equal(cr_cache_remove(c, CR_CACHE_GGUF, "http://h/b.gguf", &err), 0);
	assert_int_equal(access(pb, F_OK), -1);
	assert_int_equal(cr_cache_remove(c, CR_CACHE_GGUF, "http://h/b.gguf", &err), 0);
	cr_cache_free(c);
}

/* Every kind of damage is CR_ERR_PARSE naming the file, and the file goes. */
typedef enum { M_TRUNCATE, M_FLIP_PAYLOAD, M_FLIP_PREAMBLE, M_MAGIC, M_EMPTY, M_APPEND, M_LENGTH,
	       M_KIND, M_DIR, M_SYMLINK, M_FIFO, M_HUGE } mutation;

static void test_corrupted_entries(void **state)
{
	static const struct {
		mutation m;
		const char *why;
	} cases[] = {
		{ M_TRUNCATE, "payload bytes where the preamble says" },
		{ M_FLIP_PAYLOAD, "checksum mismatch" },
		{ M_FLIP_PREAMBLE, "checksum mismatch" },
		{ M_MAGIC, "not a clefrun cache file of version 1" },
		{ M_EMPTY, "not a clefrun cache file of version 1" },
		{ M_APPEND, "payload bytes where the preamble says" },
		{ M_LENGTH, "payload bytes where the preamble says" },
		{ M_KIND, "kind 'doc' where 'gguf' was expected" },
		{ M_DIR, "not a regular file" },
		{ M_SYMLINK, "Too many levels of symbolic links" },
		{ M_FIFO, "not a regular file" },
		{ M_HUGE, "larger than any entry" },
	};
	static const char url[] = "http://h/m.gguf";
	static const char payload[] = "GGUF payload of the entry";

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		cr_cache *c = open_cache(CR_CACHE_USE, 3600);
		cr_cache_entry e, *got = NULL;
		cr_error err = CR_ERROR_INIT;
		char path[4096], want[4400];
		unsigned char *b;
		size_t len;
		char *p;

		fill_entry(&e, CR_CACHE_GGUF, url, "\"v1\"", payload, sizeof(payload) - 1, 1000);
		assert_int_equal(cr_cache_put(c, &e, &err), 0);
		assert_int_equal(cr_cache_entry_path(c, CR_CACHE_GGUF, url, path, sizeof(path), &err), 0);
		b = slurp(path, &len);
		switch (cases[i].m) {
		case M_TRUNCATE:
			spit(path, b, len - 3);
			break;
		case M_FLIP_PAYLOAD:
			b[len - 2] ^= 0x20;
			spit(path, b, len);
			break;
		case M_FLIP_PREAMBLE:
			p = strstr((char *)b, "size 1000");
			p[5] = '2';
			spit(path, b, len);
			break;
		case M_MAGIC:
			b[0] = 'X';
			spit(path, b, len);
			break;
		case M_EMPTY:
			spit(path, b, 0);
			break;
		case M_APPEND:
			spit(path, b, len);
			run_cmd("printf junk >> '%s'", path);
			break;
		case M_LENGTH:
			p = strstr((char *)b, "length 25");
			p[8] = '4';
			spit(path, b, len);
			break;
		case M_KIND:
			p = strstr((char *)b, "kind gguf");
			memcpy(p + 5, "doc\n", 4); /* the line gets shorter: rewrite it whole */
			memmove(p + 9, p + 10, len - (size_t)(p + 10 - (char *)b));
			spit(path, b, len - 1);
			break;
		case M_DIR:
			assert_int_equal(unlink(path), 0);
			assert_int_equal(mkdir(path, 0700), 0);
			break;
		case M_SYMLINK:
			assert_int_equal(unlink(path), 0);
			assert_int_equal(symlink("/etc/passwd", path), 0);
			break;
		case M_FIFO:
			/* must not hang the open */
			assert_int_equal(unlink(path), 0);
			assert_int_equal(mkfifo(path, 0600), 0);
			break;
		case M_HUGE:
			assert_int_equal(truncate(path, (off_t)(2u << 20)), 0);
			break;
		}
		free(b);
		assert_int_equal(cr_cache_get(c, CR_CACHE_GGUF, url, 1u << 20, &got, &err), CR_ERR_PARSE);
		assert_null(got);
		snprintf(want, sizeof(want), "%s: ", path);
		if (strncmp(err.message, want, strlen(want)) != 0 || !strstr(err.message, cases[i].why))
			fail_msg("case %zu: %s", i, err.message);
		if (cases[i].m == M_DIR) {
			assert_int_equal(rmdir(path), 0); /* a directory is reported, not removed */
		} else {
			struct stat st;

			if (lstat(path, &st) == 0)
				fail_msg("case %zu: the broken entry was kept", i);
		}
		/* and a new write replaces it */
		assert_int_equal(cr_cache_put(c, &e, &err), 0);
		assert_int_equal(cr_cache_get(c, CR_CACHE_GGUF, url, 1u << 20, &got, &err), 0);
		cr_cache_entry_free(got);
		cr_cache_free(c);
		empty_cache();
	}
}

/* Every truncation and every one-bit flip of an entry is refused (or, for
 * a flip in the URL, a miss), never read as good. */
static void test_every_truncation_and_flip(void **state)
{
	static const char url[] = "http://h/f.gguf";
	static const char payload[] = "GGUF\3\0\0\0 the payload";
	cr_cache *c = open_cache(CR_CACHE_USE, 3600);
	cr_cache_entry e, *got = NULL;
	cr_error err = CR_ERROR_INIT;
	char path[4096];
	unsigned char *good;
	size_t len;

	(void)state;
	fill_entry(&e, CR_CACHE_GGUF, url, "\"v\"", payload, sizeof(payload) - 1, 4096);
	assert_int_equal(cr_cache_put(c, &e, &err), 0);
	assert_int_equal(cr_cache_entry_path(c, CR_CACHE_GGUF, url, path, sizeof(path), &err), 0);
	good = slurp(path, &len);
	for (size_t n = 0; n < len; n++) {
		spit(path, good, n);
		if (cr_cache_get(c, CR_CACHE_GGUF, url, 1u << 20, &got, &err) != CR_ERR_PARSE)
			fail_msg("truncated to %zu bytes: not refused (%s)", n, err.message);
	}
	for (size_t i = 0; i < len; i++)
		for (int bit = 0; bit < 8; bit++) {
			int rc;

			good[i] ^= (unsigned char)(1u << bit);
			spit(path, good, len);
			good[i] ^= (unsigned char)(1u << bit);
			rc = cr_cache_get(c, CR_CACHE_GGUF, url, 1u << 20, &got, &err);
			if (rc != CR_ERR_PARSE && rc != CR_ERR_NOTFOUND)
				fail_msg("byte %zu bit %d flipped: read as good", i, bit);
		}
	spit(path, good, len);
	assert_int_equal(cr_cache_get(c, CR_CACHE_GGUF, url, 1u << 20, &got, &err), 0);
	cr_cache_entry_free(got);
	free(good);
	cr_cache_free(c);
}

static void test_refused_writes(void **state)
{
	cr_cache *c = open_cache(CR_CACHE_USE, 3600);
	cr_cache_entry e;
	cr_error err = CR_ERROR_INIT;
	char longurl[CR_CACHE_URL_MAX + 10];

	(void)state;
	fill_entry(&e, CR_CACHE_DOC, "http://h/t", "", "[]", 2, 2);
	assert_int_equal(cr_cache_put(c, &e, &err), CR_ERR_INVALID);
	assert_string_equal(err.message, "http://h/t: no usable validator (ETag): not cached");
	fill_entry(&e, CR_CACHE_DOC, "http://h/t", "\"a\"\r\nX-Evil: 1", "[]", 2, 2);
	assert_int_equal(cr_cache_put(c, &e, &err), CR_ERR_INVALID);
	memset(longurl, 'a', sizeof(longurl) - 1);
	longurl[sizeof(longurl) - 1] = '\0';
	fill_entry(&e, CR_CACHE_DOC, "x", "\"a\"", "[]", 2, 2);
	memcpy(e.url, longurl, sizeof(e.url) - 1);
	e.url[sizeof(e.url) - 1] = '\0';
	e.url[sizeof(e.url) - 2] = '\0'; /* 4094 chars: storable */
	assert_int_equal(cr_cache_put(c, &e, &err), 0);
	fill_entry(&e, CR_CACHE_GGUF, "http://h/x", "\"a\"", "GGUF", 4, 3); /* more bytes than the file */
	assert_int_equal(cr_cache_put(c, &e, &err), CR_ERR_INVALID);
	cr_cache_free(c);
}

/* Replacement is atomic: a reader racing a writer sees the old entry or the
 * new one, whole, never a mix or nothing; no temporary file is left. */
static void test_atomic_write(void **state)
{
	static unsigned char a[200000], b[150000];
	static const char url[] = "http://h/race.gguf";
	cr_cache *c = open_cache(CR_CACHE_USE, 3600);
	cr_cache_entry e, *got = NULL;
	cr_error err = CR_ERROR_INIT;
	char ro[512];
	pid_t writer;
	int status, seen_a = 0, seen_b = 0;

	(void)state;
	memset(a, 'a', sizeof(a));
	memset(b, 'b', sizeof(b));
	fill_entry(&e, CR_CACHE_GGUF, url, "\"A\"", a, sizeof(a), sizeof(a));
	assert_int_equal(cr_cache_put(c, &e, &err), 0);
	writer = fork();
	assert_true(writer >= 0);
	if (writer == 0) {
		for (int i = 0; i < 60; i++) {
			if (i % 2)
				fill_entry(&e, CR_CACHE_GGUF, url, "\"A\"", a, sizeof(a), sizeof(a));
			else
				fill_entry(&e, CR_CACHE_GGUF, url, "\"B\"", b, sizeof(b), sizeof(b));
			if (cr_cache_put(c, &e, &err))
				_exit(1);
		}
		_exit(0);
	}
	for (;;) {
		pid_t w = waitpid(writer, &status, WNOHANG);

		assert_int_equal(cr_cache_get(c, CR_CACHE_GGUF, url, 1u << 20, &got, &err), 0);
		if (strcmp(got->etag, "\"A\"") == 0) {
			assert_int_equal(got->len, sizeof(a));
			assert_memory_equal(got->data, a, sizeof(a));
			seen_a++;
		} else {
			assert_string_equal(got->etag, "\"B\"");
			assert_int_equal(got->len, sizeof(b));
			assert_memory_equal(got->data, b, sizeof(b));
			seen_b++;
		}
		cr_cache_entry_free(got);
		if (w == writer)
			break;
	}
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	assert_true(seen_a + seen_b > 1);
	assert_int_equal(count_files(cachedir, ".tmp-"), 0);
	assert_int_equal(count_files(cachedir, "gguf-"), 1);

	/* A failed write leaves the old entry as it was, and no temporary. */
	assert_int_equal(chmod(cachedir, 0500), 0);
	if (access(cachedir, W_OK) != 0) { /* root writes anyway: nothing to see then */
		fill_entry(&e, CR_CACHE_GGUF, url, "\"C\"", b, 10, 10);
		assert_int_equal(cr_cache_put(c, &e, &err), CR_ERR_IO);
		assert_non_null(strstr(err.message, "cannot create a temporary file"));
		assert_int_equal(cr_cache_get(c, CR_CACHE_GGUF, url, 1u << 20, &got, &err), 0);
		assert_true(strcmp(got->etag, "\"A\"") == 0 || strcmp(got->etag, "\"B\"") == 0);
		cr_cache_entry_free(got);
	}
	assert_int_equal(chmod(cachedir, 0700), 0);
	/* A temporary left by a crash is not an entry. */
	snprintf(ro, sizeof(ro), "%s/.tmp-gguf-0000000000000000-abcdef", cachedir);
	spit(ro, "partial", 7);
	assert_int_equal(cr_cache_get(c, CR_CACHE_GGUF, url, 1u << 20, &got, &err), 0);
	cr_cache_entry_free(got);
	/* A cache path that is a file cannot be written: an error, not a crash. */
	empty_cache();
	run_cmd("mkdir -p '%s/cache/sub' && : > '%s'", root, cachedir);
	fill_entry(&e, CR_CACHE_GGUF, url, "\"A\"", a, 10, 10);
	assert_int_equal(cr_cache_put(c, &e, &err), CR_ERR_IO);
	assert_non_null(strstr(err.message, "not a directory"));
	assert_int_equal(unlink(cachedir), 0);
	cr_cache_free(c);
}

/* ---- reading through the cache -------------------------------------------------- */

static int load(cr_cache *c, const char *path, const cr_gguf_opts *go, cr_gguf **g, cr_cache_result *res,
		cr_error *err)
{
	char u[512];

	snprintf(u, sizeof(u), "%s%s", base, path);
	return cr_cache_load_gguf(c, u, NULL, go, g, res, err);
}

static void test_gguf_miss_then_hit(void **state)
{
	cr_cache *c = open_cache(CR_CACHE_USE, 3600);
	cr_gguf *g1 = NULL, *g2 = NULL;
	cr_cache_result res;
	cr_error err = CR_ERROR_INIT;
	logsum l;

	(void)state;
	log_reset();
	assert_int_equal(load(c, "/files/tiny-llama.gguf", NULL, &g1, &res, &err), 0);
	assert_int_equal(res.outcome, CR_CACHE_MISS);
	assert_true(res.stored);
	assert_int_equal(res.stats.requests, 1);
	assert_int_equal(res.remote_bytes, 82912);
	assert_string_equal(res.notice, "");
	assert_int_equal(count_files(cachedir, "gguf-"), 1);

	log_reset();
	assert_int_equal(load(c, "/files/tiny-llama.gguf", NULL, &g2, &res, &err), 0);
	l = log_read();
	assert_int_equal(l.requests, 0);
	assert_int_equal(res.outcome, CR_CACHE_HIT);
	assert_int_equal(res.stats.requests, 0);
	assert_int_equal(res.stats.bytes_fetched, 0);
	assert_string_equal(cr_cache_outcome_name(res.outcome), "hit");
	/* the same header */
	assert_int_equal(cr_gguf_file_size(g2), 82912);
	assert_int_equal(cr_gguf_data_offset(g2), cr_gguf_data_offset(g1));
	assert_int_equal(cr_gguf_tensor_bytes(g2), cr_gguf_tensor_bytes(g1));
	assert_int_equal(cr_gguf_kv_count(g2), cr_gguf_kv_count(g1));
	assert_string_equal(cr_gguf_arch(g2), "llama");
	cr_gguf_free(g1);
	cr_gguf_free(g2);

	/* no cache at all: the network each time */
	log_reset();
	assert_int_equal(load(NULL, "/files/tiny-llama.gguf", NULL, &g1, &res, &err), 0);
	assert_int_equal(res.outcome, CR_CACHE_NONE);
	assert_false(res.stored);
	assert_int_equal(log_read().requests, 1);
	cr_gguf_free(g1);
	cr_cache_free(c);
}

static void test_gguf_revalidate(void **state)
{
	cr_cache *c = open_cache(CR_CACHE_USE, 3600);
	cr_gguf *g = NULL;
	cr_cache_result res;
	cr_error err = CR_ERROR_INIT;
	char u[256];
	logsum l;

	(void)state;
	snprintf(u, sizeof(u), "%s/files/tiny-llama.gguf", base);
	assert_int_equal(load(c, "/files/tiny-llama.gguf", NULL, &g, &res, &err), 0);
	cr_gguf_free(g);
	/* An hour later: one request, a 304, no body; the entry is fresh again. */
	age_entry(c, CR_CACHE_GGUF, u, 7200);
	log_reset();
	assert_int_equal(load(c, "/files/tiny-llama.gguf", NULL, &g, &res, &err), 0);
	l = log_read();
	assert_int_equal(res.outcome, CR_CACHE_REVALIDATED);
	assert_int_equal(l.requests, 1);
	assert_int_equal(l.not_modified, 1);
	assert_int_equal(l.bytes, 0);
	assert_int_equal(res.stats.requests, 1);
	assert_int_equal(res.stats.bytes_fetched, 0);
	assert_int_equal(cr_gguf_file_size(g), 82912);
	cr_gguf_free(g);
	log_reset();
	assert_int_equal(load(c, "/files/tiny-llama.gguf", NULL, &g, &res, &err), 0);
	assert_int_equal(res.outcome, CR_CACHE_HIT);
	assert_int_equal(log_read().requests, 0);
	cr_gguf_free(g);
	cr_cache_free(c);

	/* max_age 0: always asked. */
	c = open_cache(CR_CACHE_USE, 0);
	log_reset();
	assert_int_equal(load(c, "/files/tiny-llama.gguf", NULL, &g, &res, &err), 0);
	assert_int_equal(res.outcome, CR_CACHE_REVALIDATED);
	assert_int_equal(log_read().requests, 1);
	cr_gguf_free(g);
	cr_cache_free(c);
}

/* Hugging Face: the resolve answer's X-Linked-Etag confirms the entry, so
 * the redirect to the CDN is not even followed. */
static void test_gguf_revalidate_linked_etag(void **state)
{
	cr_cache *c = open_cache(CR_CACHE_USE, 0);
	cr_gguf *g = NULL;
	cr_cache_result res;
	cr_error err = CR_ERROR_INIT;
	logsum l;

	(void)state;
	log_reset();
	assert_int_equal(load(c, "/test/tiny/resolve/main/tiny-llama.gguf", NULL, &g, &res, &err), 0);
	assert_int_equal(res.outcome, CR_CACHE_MISS);
	assert_int_equal(log_read().requests, 2); /* resolve, CDN */
	cr_gguf_free(g);
	log_reset();
	assert_int_equal(load(c, "/test/tiny/resolve/main/tiny-llama.gguf", NULL, &g, &res, &err), 0);
	l = log_read();
	assert_int_equal(res.outcome, CR_CACHE_REVALIDATED);
	assert_int_equal(l.requests, 1);
	assert_int_equal(l.cdn, 0);
	assert_int_equal(res.stats.bytes_fetched, 0);
	cr_gguf_free(g);
	cr_cache_free(c);
}

static void test_gguf_etag_change(void **state)
{
	cr_cache *c = open_cache(CR_CACHE_USE, 0);
	cr_cache_entry *e = NULL;
	cr_gguf *g = NULL;
	cr_cache_result res;
	cr_error err = CR_ERROR_INIT;
	char u[256], first[CR_CACHE_ETAG_MAX];
	logsum l;

	(void)state;
	snprintf(u, sizeof(u), "%s/files/tiny-llama.gguf", base);
	set_mtime("tiny-llama.gguf", 1700000000);
	assert_int_equal(load(c, "/files/tiny-llama.gguf", NULL, &g, &res, &err), 0);
	cr_gguf_free(g);
	assert_int_equal(cr_cache_get(c, CR_CACHE_GGUF, u, 1u << 20, &e, &err), 0);
	snprintf(first, sizeof(first), "%s", e->etag);
	cr_cache_entry_free(e);
	/* The file changes: the conditional request gets the new bytes at
	 * once (one request, no extra round trip) and the entry is replaced. */
	set_mtime("tiny-llama.gguf", 1700000100);
	log_reset();
	assert_int_equal(load(c, "/files/tiny-llama.gguf", NULL, &g, &res, &err), 0);
	l = log_read();
	assert_int_equal(res.outcome, CR_CACHE_MISS);
	assert_true(res.stored);
	assert_int_equal(l.requests, 1);
	assert_int_equal(l.not_modified, 0);
	assert_int_equal(l.bytes, 82912);
	cr_gguf_free(g);
	assert_int_equal(cr_cache_get(c, CR_CACHE_GGUF, u, 1u << 20, &e, &err), 0);
	assert_string_not_equal(e->etag, first);
	assert_string_equal(e->etag, "\"6553f164-143e0\"");
	cr_cache_entry_free(e);
	assert_int_equal(count_files(cachedir, "gguf-"), 1);
	cr_cache_free(c);
}

static void test_offline(void **state)
{
	cr_cache *on = open_cache(CR_CACHE_USE, 3600), *off = open_cache(CR_CACHE_OFFLINE, 0);
	cr_gguf *g = NULL;
	cr_cache_result res;
	cr_error err = CR_ERROR_INIT;
	char u[256], want[700];

	(void)state;
	/* a miss: a clear error, no request */
	log_reset();
	assert_int_equal(load(off, "/files/tiny-llama.gguf", NULL, &g, &res, &err), CR_ERR_NOTFOUND);
	assert_null(g);
	snprintf(want, sizeof(want), "%s/files/tiny-llama.gguf: not in the cache (%s)", base, cachedir);
	assert_string_equal(err.message, want);
	assert_int_equal(log_read().requests, 0);
	assert_int_equal(res.stats.requests, 0);
	assert_int_equal(cr_cache_get_mode(off), CR_CACHE_OFFLINE);
	/* a hit, however old */
	assert_int_equal(load(on, "/files/tiny-llama.gguf", NULL, &g, &res, &err), 0);
	cr_gguf_free(g);
	snprintf(u, sizeof(u), "%s/files/tiny-llama.gguf", base);
	age_entry(on, CR_CACHE_GGUF, u, 86400 * 365);
	log_reset();
	assert_int_equal(load(off, "/files/tiny-llama.gguf", NULL, &g, &res, &err), 0);
	assert_int_equal(res.outcome, CR_CACHE_HIT);
	assert_int_equal(log_read().requests, 0);
	cr_gguf_free(g);
	cr_cache_free(on);
	cr_cache_free(off);
}

/* A well-formed entry with a hostile header (2^40 tensors), and a torn one:
 * each is reported, deleted, and fetched again. */
static void test_gguf_broken_entry_replaced(void **state)
{
	cr_cache *c = open_cache(CR_CACHE_USE, 3600);
	cr_cache_entry *e = NULL, bad;
	cr_gguf *g = NULL;
	cr_cache_result res;
	cr_error err = CR_ERROR_INIT;
	char u[256], path[4096];
	unsigned char *b;
	size_t len;

	(void)state;
	snprintf(u, sizeof(u), "%s/files/tiny-llama.gguf", base);
	assert_int_equal(load(c, "/files/tiny-llama.gguf", NULL, &g, &res, &err), 0);
	cr_gguf_free(g);
	assert_int_equal(cr_cache_get(c, CR_CACHE_GGUF, u, 1u << 20, &e, &err), 0);
	e->data[8] = 0;
	e->data[13] = 1; /* tensor count 2^40 */
	fill_entry(&bad, CR_CACHE_GGUF, u, e->etag, e->data, e->len, e->remote_bytes);
	assert_int_equal(cr_cache_put(c, &bad, &err), 0);
	cr_cache_entry_free(e);
	log_reset();
	assert_int_equal(load(c, "/files/tiny-llama.gguf", NULL, &g, &res, &err), 0);
	assert_int_equal(res.outcome, CR_CACHE_MISS);
	assert_true(res.stored);
	assert_int_equal(log_read().requests, 1);
	assert_int_equal(cr_cache_entry_path(c, CR_CACHE_GGUF, u, path, sizeof(path), &err), 0);
	assert_non_null(strstr(res.notice, "broken cache entry "));
	assert_non_null(strstr(res.notice, path));
	assert_non_null(strstr(res.notice, "tensor count 1099511627776 is above the limit of 65536"));
	assert_non_null(strstr(res.notice, "(deleted)"));
	cr_gguf_free(g);

	/* torn: the checksum */
	b = slurp(path, &len);
	spit(path, b, len / 2);
	free(b);
	assert_int_equal(load(c, "/files/tiny-llama.gguf", NULL, &g, &res, &err), 0);
	assert_int_equal(res.outcome, CR_CACHE_MISS);
	assert_non_null(strstr(res.notice, "payload bytes where the preamble says"));
	cr_gguf_free(g);
	/* and now a clean hit */
	assert_int_equal(load(c, "/files/tiny-llama.gguf", NULL, &g, &res, &err), 0);
	assert_int_equal(res.outcome, CR_CACHE_HIT);
	assert_string_equal(res.notice, "");
	cr_gguf_free(g);

	/* offline, a broken entry is reported and is a miss */
	b = slurp(path, &len);
	b[len - 1] ^= 1;
	spit(path, b, len);
	free(b);
	cr_cache_free(c);
	c = open_cache(CR_CACHE_OFFLINE, 0);
	assert_int_equal(load(c, "/files/tiny-llama.gguf", NULL, &g, &res, &err), CR_ERR_NOTFOUND);
	assert_non_null(strstr(res.notice, "checksum mismatch"));
	assert_non_null(strstr(err.message, "not in the cache"));
	cr_cache_free(c);
}

/* A header-only file: cached with allow_truncated; read without it, the
 * reader's own refusal comes back and the (good) entry stays. */
static void test_gguf_options_refusal_is_not_broken(void **state)
{
	cr_cache *c = open_cache(CR_CACHE_USE, 3600);
	cr_gguf_opts lenient = CR_GGUF_OPTS_INIT;
	cr_gguf *g = NULL;
	cr_cache_result res;
	cr_error err = CR_ERROR_INIT, net = CR_ERROR_INIT;

	(void)state;
	lenient.allow_truncated = true;
	assert_int_equal(load(c, "/files/llama-3.1-8b.hdr.gguf", NULL, &g, &res, &net), CR_ERR_PARSE);
	assert_int_equal(count_files(cachedir, "gguf-"), 0); /* refused bytes are not cached */
	assert_int_equal(load(c, "/files/llama-3.1-8b.hdr.gguf", &lenient, &g, &res, &err), 0);
	assert_true(res.stored);
	cr_gguf_free(g);
	assert_int_equal(load(c, "/files/llama-3.1-8b.hdr.gguf", NULL, &g, &res, &err), CR_ERR_PARSE);
	assert_string_equal(err.message, net.message);
	assert_string_equal(res.notice, "");
	assert_int_equal(count_files(cachedir, "gguf-"), 1);
	assert_int_equal(load(c, "/files/llama-3.1-8b.hdr.gguf", &lenient, &g, &res, &err), 0);
	assert_int_equal(res.outcome, CR_CACHE_HIT);
	assert_int_equal(cr_gguf_tensor_count(g), 291);
	cr_gguf_free(g);
	cr_cache_free(c);
}

static void test_no_etag_not_cached(void **state)
{
	cr_cache *c = open_cache(CR_CACHE_USE, 3600);
	cr_gguf *g = NULL;
	cr_cache_result res;
	cr_error err = CR_ERROR_INIT;

	(void)state;
	assert_int_equal(load(c, "/noetag/tiny-llama.gguf", NULL, &g, &res, &err), 0);
	assert_int_equal(res.outcome, CR_CACHE_MISS);
	assert_false(res.stored);
	assert_string_equal(res.notice, "");
	assert_int_equal(count_files(cachedir, "gguf-"), 0);
	cr_gguf_free(g);
	/* network errors pass through, with the request counted */
	assert_int_equal(load(c, "/status/404", NULL, &g, &res, &err), CR_ERR_NOTFOUND);
	assert_int_equal(res.stats.requests, 1);
	assert_non_null(strstr(err.message, "HTTP 404: file or repository not found"));
	cr_cache_free(c);
}

/* A document validator: a JSON array (counts its calls). */
static int is_array(const char *body, size_t len, void *ud, cr_error *err)
{
	(*(int *)ud)++;
	if (len && body[0] == '[' && strlen(body) == len)
		return 0;
	if (err) {
		err->status = CR_ERR_PARSE;
		snprintf(err->message, sizeof(err->message), "not a JSON array");
	}
	return CR_ERR_PARSE;
}

static void test_documents(void **state)
{
	cr_cache *c = open_cache(CR_CACHE_USE, 3600), *off = open_cache(CR_CACHE_OFFLINE, 0);
	cr_cache_result res;
	cr_error err = CR_ERROR_INIT;
	char u[256], *body = NULL, *body2 = NULL, path[4096];
	size_t len, len2;
	int calls = 0;
	unsigned char *b;
	size_t blen;

	(void)state;
	snprintf(u, sizeof(u), "%s/api/models/test/tiny/tree/main?recursive=true", base);
	assert_int_equal(cr_cache_fetch_doc(off, u, NULL, 1u << 20, is_array, &calls, &body, &len, &res, &err),
			 CR_ERR_NOTFOUND);
	log_reset();
	assert_int_equal(cr_cache_fetch_doc(c, u, NULL, 1u << 20, is_array, &calls, &body, &len, &res, &err), 0);
	assert_int_equal(res.outcome, CR_CACHE_MISS);
	assert_true(res.stored);
	assert_int_equal(calls, 1);
	assert_int_equal(log_read().requests, 1);
	log_reset();
	assert_int_equal(cr_cache_fetch_doc(c, u, NULL, 1u << 20, is_array, &calls, &body2, &len2, &res, &err), 0);
	assert_int_equal(res.outcome, CR_CACHE_HIT);
	assert_int_equal(log_read().requests, 0);
	assert_int_equal(calls, 2); /* a cached document is checked again */
	assert_int_equal(len2, len);
	assert_memory_equal(body2, body, len + 1);
	free(body2);
	/* stale: If-None-Match on the (weak) ETag of the listing, a 304 */
	age_entry(c, CR_CACHE_DOC, u, 7200);
	log_reset();
	assert_int_equal(cr_cache_fetch_doc(c, u, NULL, 1u << 20, is_array, &calls, &body2, &len2, &res, &err), 0);
	assert_int_equal(res.outcome, CR_CACHE_REVALIDATED);
	assert_int_equal(log_read().not_modified, 1);
	assert_memory_equal(body2, body, len + 1);
	free(body2);
	/* offline: a hit */
	assert_int_equal(cr_cache_fetch_doc(off, u, NULL, 1u << 20, is_array, &calls, &body2, &len2, &res, &err), 0);
	assert_int_equal(res.outcome, CR_CACHE_HIT);
	free(body2);
	/* a cached document the validator refuses is broken: deleted, fetched */
	assert_int_equal(cr_cache_entry_path(c, CR_CACHE_DOC, u, path, sizeof(path), &err), 0);
	{
		cr_cache_entry e;

		fill_entry(&e, CR_CACHE_DOC, u, "W/\"x\"", "{}", 2, 2);
		assert_int_equal(cr_cache_put(c, &e, &err), 0);
	}
	assert_int_equal(cr_cache_fetch_doc(c, u, NULL, 1u << 20, is_array, &calls, &body2, &len2, &res, &err), 0);
	assert_int_equal(res.outcome, CR_CACHE_MISS);
	assert_non_null(strstr(res.notice, path));
	assert_non_null(strstr(res.notice, "not a JSON array (deleted)"));
	assert_memory_equal(body2, body, len + 1);
	free(body2);
	b = slurp(path, &blen); /* replaced by the good one */
	assert_true(contains(b, blen, body, len));
	free(b);
	/* a document larger than the cap is not taken from the cache either */
	assert_int_equal(cr_cache_fetch_doc(c, u, NULL, 10, is_array, &calls, &body2, &len2, &res, &err), CR_ERR_IO);
	assert_non_null(strstr(err.message, "document larger than 10 bytes"));
	assert_non_null(strstr(res.notice, "(limit 10)"));
	free(body);
	cr_cache_free(c);
	cr_cache_free(off);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_dir, each),
		cmocka_unit_test_setup(test_roundtrip_hit, each),
		cmocka_unit_test_setup(test_miss, each),
		cmocka_unit_test_setup(test_corrupted_entries, each),
		cmocka_unit_test_setup(test_every_truncation_and_flip, each),
		cmocka_unit_test_setup(test_refused_writes, each),
		cmocka_unit_test_setup(test_atomic_write, each),
		cmocka_unit_test_setup(test_gguf_miss_then_hit, each),
		cmocka_unit_test_setup(test_gguf_revalidate, each),
		cmocka_unit_test_setup(test_gguf_revalidate_linked_etag, each),
		cmocka_unit_test_setup(test_gguf_etag_change, each),
		cmocka_unit_test_setup(test_offline, each),
		cmocka_unit_test_setup(test_gguf_broken_entry_replaced, each),
		cmocka_unit_test_setup(test_gguf_options_refusal_is_not_broken, each),
		cmocka_unit_test_setup(test_no_etag_not_cached, each),
		cmocka_unit_test_setup(test_documents, each),
	};
	/* libcurl: loaded by the library at the first URL (curl_dl.h). */
	return cmocka_run_group_tests(tests, setup, teardown);
}
