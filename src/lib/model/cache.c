/*
 * The header cache (include/clefrun/cache.h): one file per URL under
 * $XDG_CACHE_HOME/clefrun/, a checked text preamble and the bytes.
 *
 * Why the design looks the way it does:
 * - The unit cached is the raw header bytes, not a digest of them: the
 *   GGUF reader runs over them again on every hit, so a hit is validated
 *   exactly like the network's bytes, and a new clefrun that understands
 *   more keys reads more from an old entry. A header is small next to the
 *   weights (a few MiB for a 250k vocabulary).
 * - The key is the URL; the ETag is stored beside it and is what decides
 *   whether the entry still describes the file (keyed by URL + ETag without
 *   keeping one file per ETag, which would pile up stale headers).
 * - FNV-1a 64 names the files and checks their bytes: it finds torn writes
 *   and flipped bits, not forgeries (the reader's checks do that).
 * - Broken entries are deleted when found, so a bad file costs one notice,
 *   not one per run.
 */
#include "clefrun/cache.h"
#include "clefrun/file.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "gguf_internal.h"
#include "source_internal.h"
#include "util.h"

#define MAGIC_LINE "clefrun-cache 1"
/* The preamble: the magic, five short fields and a URL. */
#define PREAMBLE_MAX (CR_CACHE_URL_MAX + CR_CACHE_ETAG_MAX + 256)
#define PATH_CAP 4096

_Static_assert(CR_HTTP_ETAG_MAX == CR_CACHE_ETAG_MAX, "one validator size");

struct cr_cache {
	char *dir;
	cr_cache_opts o;
};

/* ---- small helpers ------------------------------------------------------------ */

static uint64_t fnv1a(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < n; i++) {
		h ^= b[i];
		h *= 0x100000001b3ull;
	}
	return h;
}

#define FNV_OFFSET 0xcbf29ce484222325ull

static const char *kind_name(cr_cache_kind k)
{
	return k == CR_CACHE_GGUF ? "gguf" : k == CR_CACHE_ST ? "st" : "doc";
}

/* Printable ASCII, 1 to cap - 1 bytes: storable on one preamble line. */
static bool printable(const char *s, size_t cap)
{
	size_t n = strnlen(s, cap);

	if (n == 0 || n >= cap)
		return false;
	for (size_t i = 0; i < n; i++)
		if (s[i] < 0x20 || s[i] > 0x7e)
			return false;
	return true;
}

const char *cr_cache_outcome_name(cr_cache_outcome o)
{
	switch (o) {
	case CR_CACHE_MISS:
		return "miss";
	case CR_CACHE_HIT:
		return "hit";
	case CR_CACHE_REVALIDATED:
		return "revalidated";
	default:
		return "none";
	}
}

/* ---- the directory -------------------------------------------------------------- */

int cr_cache_dir(const char *xdg, const char *home, char *buf, size_t cap, cr_error *err)
{
	int n;

	if (!buf || cap == 0)
		return cr_seterr(err, CR_ERR_INVALID, "cache: no buffer for the path");
	/* XDG Base Directory spec: a relative XDG_CACHE_HOME is invalid and
	 * must be ignored. */
	if (xdg && xdg[0] == '/')
		n = snprintf(buf, cap, "%s/clefrun", xdg);
	else if (home && home[0] == '/')
		n = snprintf(buf, cap, "%s/.cache/clefrun", home);
	else
		return cr_seterr(err, CR_ERR_INVALID, "cache: neither XDG_CACHE_HOME nor HOME is an absolute path");
	if (n < 0 || (size_t)n >= cap)
		return cr_seterr(err, CR_ERR_INVALID, "cache: path too long");
	return CR_OK;
}

int cr_cache_open(const char *dir, const cr_cache_opts *opts, cr_cache **out, cr_error *err)
{
	static const cr_cache_opts defaults = CR_CACHE_OPTS_INIT;
	cr_cache *c;

	*out = NULL;
	if (!dir || !dir[0] || strlen(dir) > PATH_CAP - 64)
		return cr_seterr(err, CR_ERR_INVALID, "cache: an empty or too long directory name");
	c = calloc(1, sizeof(*c));
	if (!c || !(c->dir = strdup(dir))) {
		free(c);
		return cr_seterr(err, CR_ERR_NOMEM, "cache: out of memory");
	}
	c->o = opts ? *opts : defaults;
	*out = c;
	return CR_OK;
}

void cr_cache_free(cr_cache *c)
{
	if (!c)
		return;
	free(c->dir);
	free(c);
}

const char *cr_cache_path(const cr_cache *c)
{
	return c->dir;
}

cr_cache_mode cr_cache_get_mode(const cr_cache *c)
{
	return c->o.mode;
}

int cr_cache_entry_path(const cr_cache *c, cr_cache_kind kind, const char *url, char *buf, size_t cap,
			cr_error *err)
{
	const char *k = kind_name(kind);
	uint64_t h = fnv1a(FNV_OFFSET, k, strlen(k) + 1);
	char shown[CR_CACHE_URL_MAX];
	int n;

	/* Keyed by the URL as shown: no hash of a password on disk, and an
	 * entry read with credentials serves the same URL without them. */
	if (cr_url_redact(url, shown, sizeof(shown)) >= sizeof(shown))
		return cr_seterr(err, CR_ERR_RANGE, "cache: URL too long");
	h = fnv1a(h, shown, strlen(shown));
	n = snprintf(buf, cap, "%s/%s-%016" PRIx64, c->dir, k, h);
	if (n < 0 || (size_t)n >= cap)
		return cr_seterr(err, CR_ERR_RANGE, "cache: path too long");
	return CR_OK;
}

/* ---- reading an entry ------------------------------------------------------------- */

void cr_cache_entry_free(cr_cache_entry *e)
{
	if (!e)
		return;
	free(e->data);
	free(e);
}

/* One "NAME VALUE\n" line at *pos; value printable ASCII, NUL-terminated in
 * place. NULL when the line is not there or not well formed. */
static char *field(char *buf, size_t len, size_t *pos, const char *name)
{
	size_t n = strlen(name), p = *pos;
	char *nl, *v;

	if (len - p < n + 2 || memcmp(buf + p, name, n) != 0 || buf[p + n] != ' ')
		return NULL;
	v = buf + p + n + 1;
	nl = memchr(v, '\n', len - (p + n + 1));
	if (!nl)
		return NULL;
	*nl = '\0';
	for (char *q = v; q < nl; q++)
		if (*q < 0x20 || *q > 0x7e)
			return NULL;
	*pos = (size_t)(nl - buf) + 1;
	return v;
}

static bool dec_u64(const char *s, uint64_t *v)
{
	*v = 0;
	if (!*s || (s[0] == '0' && s[1]))
		return false;
	for (; *s; s++) {
		if (*s < '0' || *s > '9' || *v > (UINT64_MAX - 9) / 10)
			return false;
		*v = *v * 10 + (uint64_t)(*s - '0');
	}
	return true;
}

static bool hex_u64(const char *s, uint64_t *v)
{
	*v = 0;
	if (strlen(s) != 16)
		return false;
	for (; *s; s++) {
		int d = *s >= '0' && *s <= '9' ? *s - '0' : *s >= 'a' && *s <= 'f' ? *s - 'a' + 10 : -1;

		if (d < 0)
			return false;
		*v = *v << 4 | (uint64_t)d;
	}
	return true;
}

static int read_fd(int fd, unsigned char *buf, size_t len)
{
	while (len) {
		ssize_t r = read(fd, buf, len);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		buf += r;
		len -= (size_t)r;
	}
	return 0;
}

/* Parse a whole entry file (buf is modified: fields are terminated in
 * place). 0; CR_ERR_NOTFOUND for another URL's entry; CR_ERR_PARSE with
 * `why` filled for a broken one. */
static int parse_entry(char *buf, size_t len, cr_cache_kind kind, const char *url, size_t max_len,
		       cr_cache_entry *e, char *why, size_t why_cap)
{
	size_t pos = 0, checked_end;
	const char *k, *u, *t, *sz, *ln, *ck;
	uint64_t size, length, sum, want;

	if (len < sizeof(MAGIC_LINE) || memcmp(buf, MAGIC_LINE "\n", sizeof(MAGIC_LINE)) != 0) {
		snprintf(why, why_cap, "not a clefrun cache file of version 1");
		return CR_ERR_PARSE;
	}
	pos = sizeof(MAGIC_LINE);
	if (!(k = field(buf, len, &pos, "kind")) || !(u = field(buf, len, &pos, "url")) ||
	    !(t = field(buf, len, &pos, "etag")) || !(sz = field(buf, len, &pos, "size")) ||
	    !(ln = field(buf, len, &pos, "length"))) {
		snprintf(why, why_cap, "malformed preamble near byte %zu", pos);
		return CR_ERR_PARSE;
	}
	checked_end = pos;
	if (!(ck = field(buf, len, &pos, "check")) || pos >= len || buf[pos] != '\n') {
		snprintf(why, why_cap, "malformed preamble near byte %zu", pos);
		return CR_ERR_PARSE;
	}
	pos++;
	if (strcmp(k, kind_name(kind)) != 0) {
		snprintf(why, why_cap, "kind '%.16s' where '%s' was expected", k, kind_name(kind));
		return CR_ERR_PARSE;
	}
	if (cr_url_redact(url, e->url, sizeof(e->url)) >= sizeof(e->url) || strcmp(u, e->url) != 0)
		return CR_ERR_NOTFOUND; /* another URL with the same hash: a miss, replaced on write */
	if (!printable(t, CR_CACHE_ETAG_MAX)) {
		snprintf(why, why_cap, "unusable validator");
		return CR_ERR_PARSE;
	}
	if (!dec_u64(sz, &size) || !dec_u64(ln, &length) || !hex_u64(ck, &want)) {
		snprintf(why, why_cap, "malformed number in the preamble");
		return CR_ERR_PARSE;
	}
	if (length != len - pos) {
		snprintf(why, why_cap, "%zu payload bytes where the preamble says %" PRIu64, len - pos, length);
		return CR_ERR_PARSE;
	}
	if (length > max_len || length > size || (kind == CR_CACHE_DOC && length != size)) {
		snprintf(why, why_cap, "payload of %" PRIu64 " bytes for a file of %" PRIu64 " (limit %zu)", length,
			 size, max_len);
		return CR_ERR_PARSE;
	}
	memcpy(e->etag, t, strlen(t) + 1);
	/* The checksum covers the lines before "check" and the payload (the
	 * fields were cut at their newlines: put those back). */
	for (size_t i = 0; i < checked_end; i++)
		if (buf[i] == '\0')
			buf[i] = '\n';
	sum = fnv1a(fnv1a(FNV_OFFSET, buf, checked_end), buf + pos, (size_t)length);
	if (sum != want) {
		snprintf(why, why_cap, "checksum mismatch");
		return CR_ERR_PARSE;
	}
	e->kind = kind;
	e->remote_bytes = size;
	e->len = (size_t)length;
	return CR_OK;
}

int cr_cache_get(cr_cache *c, cr_cache_kind kind, const char *url, size_t max_len,
		 cr_cache_entry **out, cr_error *err)
{
	char path[PATH_CAP], why[256] = "";
	struct stat st;
	unsigned char *buf = NULL;
	cr_cache_entry *e = NULL;
	size_t len;
	int fd, rc;

	*out = NULL;
	if (!printable(url, CR_CACHE_URL_MAX)) {
		(void)cr_url_redact(url, why, sizeof(why));
		return cr_seterr(err, CR_ERR_NOTFOUND, "%s: not cacheable", why);
	}
	if ((rc = cr_cache_entry_path(c, kind, url, path, sizeof(path), err)))
		return rc;
	/* O_NONBLOCK: a FIFO planted in the cache must not hang the open;
	 * O_NOFOLLOW: an entry is a plain file, not a link elsewhere. */
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ENOENT || errno == ENOTDIR)
			return cr_seterr(err, CR_ERR_NOTFOUND, "%s: no cache entry", path);
		snprintf(why, sizeof(why), "%s", strerror(errno));
		goto broken;
	}
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		snprintf(why, sizeof(why), "not a regular file");
		goto broken;
	}
	if ((uint64_t)st.st_size > (uint64_t)PREAMBLE_MAX + max_len) {
		snprintf(why, sizeof(why), "%lld bytes, larger than any entry", (long long)st.st_size);
		goto broken;
	}
	len = (size_t)st.st_size;
	if (!(buf = malloc(len + 1)) || !(e = calloc(1, sizeof(*e)))) {
		close(fd);
		free(buf);
		return cr_seterr(err, CR_ERR_NOMEM, "%s: out of memory", path);
	}
	if (read_fd(fd, buf, len) != 0) {
		snprintf(why, sizeof(why), "cannot be read");
		goto broken;
	}
	close(fd);
	fd = -1;
	rc = parse_entry((char *)buf, len, kind, url, max_len, e, why, sizeof(why));
	if (rc == CR_ERR_NOTFOUND) {
		free(buf);
		free(e);
		return cr_seterr(err, CR_ERR_NOTFOUND, "%s: the entry of another URL", path);
	}
	if (rc)
		goto broken;
	/* The payload moves to the front of the buffer, NUL-terminated. */
	memmove(buf, buf + (len - e->len), e->len);
	buf[e->len] = '\0';
	e->data = buf;
	e->validated_at = (int64_t)st.st_mtim.tv_sec;
	*out = e;
	return CR_OK;
broken:
	if (fd >= 0)
		close(fd);
	free(buf);
	free(e);
	(void)unlink(path);
	return cr_seterr(err, CR_ERR_PARSE, "%s: %s", path, why);
}

/* ---- writing an entry --------------------------------------------------------------- */

/* mkdir -p with mode 0700 for the directories it creates. */
static int make_dirs(const char *path, cr_error *err)
{
	char dir[PATH_CAP];
	struct stat st;

	cr_strlcpy(dir, path, sizeof(dir));
	if (stat(dir, &st) == 0)
		return S_ISDIR(st.st_mode) ? CR_OK : cr_seterr(err, CR_ERR_IO, "%s: not a directory", dir);
	for (char *p = dir + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(dir, 0700) != 0 && errno != EEXIST) {
			int e = errno;

			*p = '/';
			return cr_seterr(err, CR_ERR_IO, "%s: cannot create directory: %s", dir, strerror(e));
		}
		*p = '/';
	}
	if (mkdir(dir, 0700) != 0 && errno != EEXIST)
		return cr_seterr(err, CR_ERR_IO, "%s: cannot create directory: %s", dir, strerror(errno));
	return CR_OK;
}

/*
 * An entry's mtime is the time the server last confirmed it. It is set from
 * time(), the clock fresh() reads, not left to the file system: a kernel with
 * fine-grained file timestamps (Linux 6.13 multigrain) or a network file
 * system can stamp a file up to a second ahead of time(), and that entry would
 * read as "from the future" and be revalidated at once.
 */
static int stamp_now(const char *path, cr_error *err)
{
	struct timespec ts[2];

	ts[0].tv_sec = ts[1].tv_sec = time(NULL);
	ts[0].tv_nsec = ts[1].tv_nsec = 0;
	if (utimensat(AT_FDCWD, path, ts, AT_SYMLINK_NOFOLLOW) != 0)
		return cr_seterr(err, CR_ERR_IO, "%s: cannot update its time: %s", path, strerror(errno));
	return CR_OK;
}

int cr_cache_put(cr_cache *c, const cr_cache_entry *e, cr_error *err)
{
	char path[PATH_CAP], *pre, shown[CR_CACHE_URL_MAX];
	size_t n, cap;
	uint64_t sum;
	int rc;

	/* The file keeps the URL as shown (cr_url_redact): no password. */
	if (!printable(e->url, CR_CACHE_URL_MAX) || cr_url_redact(e->url, shown, sizeof(shown)) >= sizeof(shown))
		return cr_seterr(err, CR_ERR_INVALID, "cache: a URL that cannot be stored");
	if (!printable(e->etag, CR_CACHE_ETAG_MAX))
		return cr_seterr(err, CR_ERR_INVALID, "%s: no usable validator (ETag): not cached", shown);
	if ((!e->data && e->len) || e->len > e->remote_bytes)
		return cr_seterr(err, CR_ERR_INVALID, "%s: %zu bytes of a %" PRIu64 "-byte file", shown, e->len,
				 e->remote_bytes);
	if ((rc = cr_cache_entry_path(c, e->kind, e->url, path, sizeof(path), err)))
		return rc;
	if ((rc = make_dirs(c->dir, err)))
		return rc;
	cap = PREAMBLE_MAX + 64;
	if (!(pre = malloc(cap)))
		return cr_seterr(err, CR_ERR_NOMEM, "cache: out of memory");
	n = (size_t)snprintf(pre, cap, MAGIC_LINE "\nkind %s\nurl %s\netag %s\nsize %" PRIu64 "\nlength %zu\n",
			     kind_name(e->kind), shown, e->etag, e->remote_bytes, e->len);
	sum = fnv1a(fnv1a(FNV_OFFSET, pre, n), e->data ? (const void *)e->data : "", e->len);
	n += (size_t)snprintf(pre + n, cap - n, "check %016" PRIx64 "\n\n", sum);

	{
		cr_file_chunk chunks[2] = { { pre, n }, { e->data, e->len } };

		rc = cr_file_write_atomic(path, chunks, 2, CR_FILE_MODE_PRIVATE, err);
	}
	free(pre);
	return rc ? rc : stamp_now(path, err);
}

int cr_cache_touch(cr_cache *c, cr_cache_kind kind, const char *url, cr_error *err)
{
	char path[PATH_CAP];
	int rc;

	if ((rc = cr_cache_entry_path(c, kind, url, path, sizeof(path), err)))
		return rc;
	return stamp_now(path, err);
}

int cr_cache_remove(cr_cache *c, cr_cache_kind kind, const char *url, cr_error *err)
{
	char path[PATH_CAP];
	int rc;

	if ((rc = cr_cache_entry_path(c, kind, url, path, sizeof(path), err)))
		return rc;
	if (unlink(path) != 0 && errno != ENOENT)
		return cr_seterr(err, CR_ERR_IO, "%s: cannot delete it: %s", path, strerror(errno));
	return CR_OK;
}

/* ---- reading through the cache ------------------------------------------------------- */

static void add_notice(cr_cache_result *res, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void add_notice(cr_cache_result *res, const char *fmt, ...)
{
	size_t n = strlen(res->notice);
	va_list ap;

	if (n && n + 2 < sizeof(res->notice)) {
		memcpy(res->notice + n, "; ", 3);
		n += 2;
	}
	va_start(ap, fmt);
	vsnprintf(res->notice + n, sizeof(res->notice) - n, fmt, ap);
	va_end(ap);
}

static bool fresh(const cr_cache *c, const cr_cache_entry *e)
{
	int64_t now = (int64_t)time(NULL);

	if (c->o.mode == CR_CACHE_OFFLINE || c->o.max_age_s == CR_CACHE_FOREVER)
		return true;
	/* An mtime in the future (a clock that went back) is not trusted. */
	return c->o.max_age_s > 0 && now >= e->validated_at && now - e->validated_at < c->o.max_age_s;
}

static int offline_miss(const cr_cache *c, const char *url, cr_error *err)
{
	char *name = cr_http_display_url(url);
	int rc = cr_setreason(err, CR_REASON_OFFLINE_MISS,
			      cr_seterr(err, CR_ERR_NOTFOUND, "%s: not in the cache (%s)", name ? name : url, c->dir));

	free(name);
	return rc;
}

/* Parse a cached header. *broken tells a bad entry from a header that the
 * caller's options refuse (the same refusal the network's bytes get). */
static int parse_cached(const cr_cache_entry *e, const char *url, const cr_gguf_opts *go,
			cr_gguf **out, bool *broken, cr_error *err)
{
	static const cr_gguf_opts defaults = CR_GGUF_OPTS_INIT;
	cr_gguf_opts o = go ? *go : defaults, lenient = defaults;
	char *name = cr_http_display_url(url);
	cr_source *s = NULL;
	cr_gguf *g = NULL;
	cr_error e2;
	int rc;

	*out = NULL;
	*broken = false;
	if (!name)
		return cr_seterr(err, CR_ERR_NOMEM, "out of memory");
	rc = cr_source_open_prefix(e->data, e->len, e->remote_bytes, name, &s, err);
	if (rc) {
		free(name);
		*broken = rc != CR_ERR_NOMEM;
		return rc;
	}
	/* One read of exactly the cached bytes: a header that needs more is
	 * not the header that was stored. */
	o.first_read = e->len ? e->len : 1;
	rc = cr_gguf_load(s, &o, &g, err);
	if (rc && rc != CR_ERR_NOMEM) {
		lenient.allow_truncated = true;
		lenient.first_read = o.first_read;
		if (cr_gguf_load(s, &lenient, &g, &e2) == CR_OK) {
			cr_gguf_free(g); /* the bytes are fine: the options refuse them */
			g = NULL;
		} else {
			*broken = true;
		}
	} else if (!rc && g->hdr_len != e->len) {
		rc = cr_seterr(err, CR_ERR_PARSE, "%s: the cached header is %zu bytes, the header %zu", name,
			       e->len, g->hdr_len);
		cr_gguf_free(g);
		g = NULL;
		*broken = true;
	}
	cr_source_free(s);
	free(name);
	*out = g;
	return rc;
}

int cr_cache_load_gguf(cr_cache *c, const char *url, const cr_http_opts *http,
		       const cr_gguf_opts *gguf, cr_gguf **out, cr_cache_result *res, cr_error *err)
{
	static const cr_gguf_opts gdefaults = CR_GGUF_OPTS_INIT;
	const cr_gguf_opts *go = gguf ? gguf : &gdefaults;
	cr_cache_result r0;
	cr_cache_entry *entry = NULL;
	cr_gguf *cached = NULL;
	cr_source *src = NULL;
	cr_http_cond cond;
	cr_error e2 = CR_ERROR_INIT;
	bool broken = false;
	int rc;

	if (!res)
		res = &r0;
	memset(res, 0, sizeof(*res));
	memset(&cond, 0, sizeof(cond));
	*out = NULL;
	if (c) {
		rc = cr_cache_get(c, CR_CACHE_GGUF, url, (size_t)go->max_header_bytes, &entry, &e2);
		if (rc == CR_ERR_PARSE)
			add_notice(res, "broken cache entry %s (deleted)", e2.message);
		else if (rc == CR_ERR_NOMEM)
			return cr_errcopy(err, rc, &e2);
	}
	if (entry) {
		rc = parse_cached(entry, url, go, &cached, &broken, &e2);
		if (rc && broken && c) {
			char path[PATH_CAP] = "";

			(void)cr_cache_entry_path(c, CR_CACHE_GGUF, url, path, sizeof(path), NULL);
			add_notice(res, "broken cache entry %s: %s (deleted)", path, e2.message);
			(void)cr_cache_remove(c, CR_CACHE_GGUF, url, NULL);
			cr_cache_entry_free(entry);
			entry = NULL;
		} else if (rc && fresh(c, entry)) {
			/* A good entry the options refuse: the reader's own error. */
			res->outcome = CR_CACHE_HIT;
			res->remote_bytes = entry->remote_bytes;
			cr_cache_entry_free(entry);
			return cr_errcopy(err, rc, &e2);
		} else if (rc) {
			/* ... and stale: the file may have changed; ask again. */
			cr_cache_entry_free(entry);
			entry = NULL;
		}
	}
	if (entry && fresh(c, entry)) {
		res->outcome = CR_CACHE_HIT;
		res->remote_bytes = entry->remote_bytes;
		cr_cache_entry_free(entry);
		*out = cached;
		return CR_OK;
	}
	if (c && c->o.mode == CR_CACHE_OFFLINE)
		return offline_miss(c, url, err);

	cond.if_none_match = entry ? entry->etag : NULL;
	rc = cr_http_open(url, http, &cond, &src, err);
	res->stats = cond.stats;
	if (!rc && cond.not_modified && c && entry) {
		if (cr_cache_touch(c, CR_CACHE_GGUF, url, &e2))
			add_notice(res, "cannot update the cache: %s", e2.message);
		res->outcome = CR_CACHE_REVALIDATED;
		res->remote_bytes = entry->remote_bytes;
		cr_cache_entry_free(entry);
		*out = cached;
		return CR_OK;
	}
	cr_gguf_free(cached);
	cr_cache_entry_free(entry);
	if (rc)
		return rc;
	res->outcome = c ? CR_CACHE_MISS : CR_CACHE_NONE;
	rc = cr_gguf_load(src, gguf, out, err);
	cr_source_get_stats(src, &res->stats);
	res->remote_bytes = cr_source_size(src);
	cr_source_free(src);
	if (rc || !c)
		return rc;
	if (cond.etag[0]) {
		cr_cache_entry *ne = calloc(1, sizeof(*ne));

		if (!ne || strlen(url) >= sizeof(ne->url)) {
			free(ne);
			return CR_OK;
		}
		ne->kind = CR_CACHE_GGUF;
		memcpy(ne->url, url, strlen(url) + 1);
		memcpy(ne->etag, cond.etag, sizeof(ne->etag));
		ne->etag[sizeof(ne->etag) - 1] = '\0';
		ne->remote_bytes = res->remote_bytes;
		ne->data = (*out)->hdr;
		ne->len = (*out)->hdr_len;
		if (cr_cache_put(c, ne, &e2) == CR_OK)
			res->stored = true;
		else if (e2.status != CR_ERR_INVALID)
			add_notice(res, "cannot write the cache: %s", e2.message);
		free(ne);
	}
	return CR_OK;
}

/* A cached safetensors header: it must parse against the remote file's size
 * and be exactly its own length. */
static int parse_cached_st(const cr_cache_entry *e, const char *url, const cr_st_opts *so, cr_st_header **out,
			   cr_error *err)
{
	char *name = cr_http_display_url(url);
	int rc;

	*out = NULL;
	if (!name)
		return cr_seterr(err, CR_ERR_NOMEM, "out of memory");
	rc = cr_st_parse(e->data, e->len, e->remote_bytes, name, so, out, err);
	if (!rc && (*out)->data_start != e->len) {
		rc = cr_seterr(err, CR_ERR_PARSE, "%s: the cached header is %zu bytes, the header %" PRIu64, name,
			       e->len, (*out)->data_start);
		cr_st_free(*out);
		*out = NULL;
	}
	free(name);
	return rc;
}

int cr_cache_load_st(cr_cache *c, const char *url, const cr_http_opts *http, const cr_st_opts *st,
		     cr_st_header **out, cr_cache_result *res, cr_error *err)
{
	cr_cache_result r0;
	cr_cache_entry *entry = NULL;
	cr_st_header *cached = NULL;
	cr_source *src = NULL;
	cr_http_cond cond;
	cr_error e2 = CR_ERROR_INIT;
	int rc;

	if (!res)
		res = &r0;
	memset(res, 0, sizeof(*res));
	memset(&cond, 0, sizeof(cond));
	*out = NULL;
	if (c) {
		rc = cr_cache_get(c, CR_CACHE_ST, url, (size_t)CR_ST_HEADER_MAX + 8, &entry, &e2);
		if (rc == CR_ERR_PARSE)
			add_notice(res, "broken cache entry %s (deleted)", e2.message);
		else if (rc == CR_ERR_NOMEM)
			return cr_errcopy(err, rc, &e2);
	}
	if (entry && (rc = parse_cached_st(entry, url, st, &cached, &e2)) != 0) {
		char path[PATH_CAP] = "";

		if (rc == CR_ERR_NOMEM) {
			cr_cache_entry_free(entry);
			return cr_errcopy(err, rc, &e2);
		}
		(void)cr_cache_entry_path(c, CR_CACHE_ST, url, path, sizeof(path), NULL);
		add_notice(res, "broken cache entry %s: %s (deleted)", path, e2.message);
		(void)cr_cache_remove(c, CR_CACHE_ST, url, NULL);
		cr_cache_entry_free(entry);
		entry = NULL;
	}
	if (entry && fresh(c, entry)) {
		res->outcome = CR_CACHE_HIT;
		res->remote_bytes = entry->remote_bytes;
		cr_cache_entry_free(entry);
		*out = cached;
		return CR_OK;
	}
	if (c && c->o.mode == CR_CACHE_OFFLINE)
		return offline_miss(c, url, err);

	cond.if_none_match = entry ? entry->etag : NULL;
	rc = cr_http_open(url, http, &cond, &src, err);
	res->stats = cond.stats;
	if (!rc && cond.not_modified && c && entry) {
		if (cr_cache_touch(c, CR_CACHE_ST, url, &e2))
			add_notice(res, "cannot update the cache: %s", e2.message);
		res->outcome = CR_CACHE_REVALIDATED;
		res->remote_bytes = entry->remote_bytes;
		cr_cache_entry_free(entry);
		*out = cached;
		return CR_OK;
	}
	cr_st_free(cached);
	cr_cache_entry_free(entry);
	if (rc)
		return rc;
	res->outcome = c ? CR_CACHE_MISS : CR_CACHE_NONE;
	rc = cr_st_read(src, st, out, err);
	res->remote_bytes = cr_source_size(src);
	if (!rc && c && cond.etag[0] && strlen(url) < CR_CACHE_URL_MAX) {
		/* The header's bytes, read again from what the source holds. */
		cr_cache_entry *ne = calloc(1, sizeof(*ne));
		unsigned char *hb = malloc((size_t)(*out)->data_start);

		if (ne && hb && cr_source_read(src, 0, hb, (size_t)(*out)->data_start, &e2) == CR_OK) {
			ne->kind = CR_CACHE_ST;
			memcpy(ne->url, url, strlen(url) + 1);
			memcpy(ne->etag, cond.etag, sizeof(ne->etag));
			ne->etag[sizeof(ne->etag) - 1] = '\0';
			ne->remote_bytes = res->remote_bytes;
			ne->data = hb;
			ne->len = (size_t)(*out)->data_start;
			if (cr_cache_put(c, ne, &e2) == CR_OK)
				res->stored = true;
			else if (e2.status != CR_ERR_INVALID)
				add_notice(res, "cannot write the cache: %s", e2.message);
		}
		free(hb);
		free(ne);
	}
	cr_source_get_stats(src, &res->stats);
	cr_source_free(src);
	return rc;
}

static char *dup_bytes(const unsigned char *p, size_t n)
{
	char *s = malloc(n + 1);

	if (s) {
		if (n)
			memcpy(s, p, n);
		s[n] = '\0';
	}
	return s;
}

int cr_cache_fetch_doc(cr_cache *c, const char *url, const cr_http_opts *http, size_t max_bytes,
		       cr_cache_validate_fn validate, void *ud, char **body, size_t *len,
		       cr_cache_result *res, cr_error *err)
{
	cr_cache_result r0;
	cr_cache_entry *entry = NULL;
	cr_http_cond cond;
	cr_error e2 = CR_ERROR_INIT;
	char *b = NULL;
	size_t n = 0;
	int rc;

	if (!res)
		res = &r0;
	memset(res, 0, sizeof(*res));
	memset(&cond, 0, sizeof(cond));
	*body = NULL;
	*len = 0;
	if (c) {
		rc = cr_cache_get(c, CR_CACHE_DOC, url, max_bytes, &entry, &e2);
		if (rc == CR_ERR_PARSE)
			add_notice(res, "broken cache entry %s (deleted)", e2.message);
		else if (rc == CR_ERR_NOMEM)
			return cr_errcopy(err, rc, &e2);
	}
	if (c && entry && validate && (rc = validate((const char *)entry->data, entry->len, ud, &e2)) != CR_OK) {
		char path[PATH_CAP] = "";

		if (rc == CR_ERR_NOMEM) {
			cr_cache_entry_free(entry);
			return cr_errcopy(err, rc, &e2);
		}
		(void)cr_cache_entry_path(c, CR_CACHE_DOC, url, path, sizeof(path), NULL);
		add_notice(res, "broken cache entry %s: %s (deleted)", path, e2.message);
		(void)cr_cache_remove(c, CR_CACHE_DOC, url, NULL);
		cr_cache_entry_free(entry);
		entry = NULL;
	}
	if (entry && fresh(c, entry)) {
		res->outcome = CR_CACHE_HIT;
		goto from_entry;
	}
	if (c && c->o.mode == CR_CACHE_OFFLINE)
		return offline_miss(c, url, err);
	cond.if_none_match = entry ? entry->etag : NULL;
	rc = cr_http_fetch(url, http, max_bytes, &cond, &b, &n, err);
	res->stats = cond.stats;
	if (!rc && cond.not_modified && c && entry) {
		if (cr_cache_touch(c, CR_CACHE_DOC, url, &e2))
			add_notice(res, "cannot update the cache: %s", e2.message);
		res->outcome = CR_CACHE_REVALIDATED;
		goto from_entry;
	}
	cr_cache_entry_free(entry);
	if (rc)
		return rc;
	res->outcome = c ? CR_CACHE_MISS : CR_CACHE_NONE;
	res->remote_bytes = n;
	if (validate && (rc = validate(b, n, ud, err)) != CR_OK) {
		free(b);
		return rc;
	}
	if (c && cond.etag[0]) {
		cr_cache_entry *ne = calloc(1, sizeof(*ne));

		if (ne && strlen(url) < sizeof(ne->url)) {
			ne->kind = CR_CACHE_DOC;
			memcpy(ne->url, url, strlen(url) + 1);
			memcpy(ne->etag, cond.etag, sizeof(ne->etag));
			ne->etag[sizeof(ne->etag) - 1] = '\0';
			ne->remote_bytes = n;
			ne->data = (unsigned char *)b;
			ne->len = n;
			if (cr_cache_put(c, ne, &e2) == CR_OK)
				res->stored = true;
			else if (e2.status != CR_ERR_INVALID)
				add_notice(res, "cannot write the cache: %s", e2.message);
		}
		free(ne);
	}
	*body = b;
	*len = n;
	return CR_OK;

from_entry:
	res->remote_bytes = entry->remote_bytes;
	if (!(*body = dup_bytes(entry->data, entry->len))) {
		cr_cache_entry_free(entry);
		return cr_seterr(err, CR_ERR_NOMEM, "out of memory");
	}
	*len = entry->len;
	cr_cache_entry_free(entry);
	return CR_OK;
}
