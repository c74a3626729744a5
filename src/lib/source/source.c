/*
 * The byte-source front end (range checks, counters) and the memory backend.
 * The file backend is in source_file.c, the HTTP one in source_http.c.
 */
#include "source_internal.h"

#include <stdlib.h>
#include <string.h>

#include "util.h"

int cr_source_alloc(const char *name, const cr_source_ops *ops, cr_source **out, cr_error *err)
{
	cr_source *s = calloc(1, sizeof(*s));

	*out = NULL;
	if (!s || !(s->name = strdup(name))) {
		free(s);
		return cr_seterr(err, CR_ERR_NOMEM, "%s: out of memory", name);
	}
	s->ops = ops;
	*out = s;
	return CR_OK;
}

int cr_source_read(cr_source *src, uint64_t offset, void *buf, size_t len, cr_error *err)
{
	int rc;

	if (offset > src->size || len > src->size - offset)
		return cr_seterr(err, CR_ERR_IO,
				 "%s: byte %llu: wanted %zu bytes, the file has %llu", src->name,
				 (unsigned long long)offset, len, (unsigned long long)src->size);
	if (len == 0)
		return CR_OK;
	rc = src->ops->read(src, offset, buf, len, err);
	if (rc == CR_OK)
		src->stats.bytes_read += len;
	return rc;
}

uint64_t cr_source_size(const cr_source *src)
{
	return src->size;
}

const char *cr_source_name(const cr_source *src)
{
	return src->name;
}

void cr_source_get_stats(const cr_source *src, cr_source_stats *out)
{
	*out = src->stats;
}

void cr_source_free(cr_source *src)
{
	if (!src)
		return;
	if (src->ops->close)
		src->ops->close(src);
	free(src->name);
	free(src);
}

/* ---- memory ------------------------------------------------------------- */

typedef struct mem_impl {
	const unsigned char *data;
	unsigned char *owned;
} mem_impl;

static int mem_read(cr_source *src, uint64_t off, void *buf, size_t len, cr_error *err)
{
	const mem_impl *m = src->impl;

	(void)err;
	memcpy(buf, m->data + off, len);
	src->stats.requests++;
	src->stats.bytes_fetched += len;
	return CR_OK;
}

static void mem_close(cr_source *src)
{
	mem_impl *m = src->impl;

	if (m)
		free(m->owned);
	free(m);
}

static const cr_source_ops mem_ops = { mem_read, mem_close };

int cr_source_open_memory(const void *buf, size_t len, const char *name, bool copy,
			  cr_source **out, cr_error *err)
{
	cr_source *s;
	mem_impl *m;
	int rc;

	*out = NULL;
	if (!buf && len)
		return cr_seterr(err, CR_ERR_INVALID, "memory source: NULL buffer of %zu bytes", len);
	if ((rc = cr_source_alloc(name ? name : "memory", &mem_ops, &s, err)) || !s)
		return rc ? rc : CR_ERR_NOMEM;
	m = calloc(1, sizeof(*m));
	if (!m) {
		cr_source_free(s);
		return cr_seterr(err, CR_ERR_NOMEM, "%s: out of memory", name ? name : "memory");
	}
	s->impl = m;
	if (copy && len) {
		if (!(m->owned = malloc(len))) {
			cr_source_free(s);
			return cr_seterr(err, CR_ERR_NOMEM, "%s: out of memory", name ? name : "memory");
		}
		memcpy(m->owned, buf, len);
		m->data = m->owned;
	} else {
		m->data = buf;
	}
	s->size = len;
	*out = s;
	return CR_OK;
}

/* ---- prefix: the first bytes of a larger file (a cached header) ---------- */

typedef struct prefix_impl {
	unsigned char *data;
	size_t len;
} prefix_impl;

static int prefix_read(cr_source *src, uint64_t off, void *buf, size_t len, cr_error *err)
{
	const prefix_impl *p = src->impl;

	if (off > p->len || len > p->len - off)
		return cr_seterr(err, CR_ERR_IO, "%s: byte %llu: not in the cached header (%zu bytes)", src->name,
				 (unsigned long long)off, p->len);
	memcpy(buf, p->data + off, len);
	return CR_OK;
}

static void prefix_close(cr_source *src)
{
	prefix_impl *p = src->impl;

	if (p)
		free(p->data);
	free(p);
}

static const cr_source_ops prefix_ops = { prefix_read, prefix_close };

int cr_source_open_prefix(const void *buf, size_t len, uint64_t size, const char *name,
			  cr_source **out, cr_error *err)
{
	cr_source *s;
	prefix_impl *p;
	int rc;

	*out = NULL;
	if ((!buf && len) || len > size)
		return cr_seterr(err, CR_ERR_INVALID, "%s: a prefix of %zu bytes of a %llu-byte file",
				 name ? name : "prefix", len, (unsigned long long)size);
	if ((rc = cr_source_alloc(name ? name : "prefix", &prefix_ops, &s, err)) || !s)
		return rc ? rc : CR_ERR_NOMEM;
	p = calloc(1, sizeof(*p));
	s->impl = p;
	if (!p || (len && !(p->data = malloc(len)))) {
		cr_source_free(s);
		return cr_seterr(err, CR_ERR_NOMEM, "%s: out of memory", name ? name : "prefix");
	}
	if (len)
		memcpy(p->data, buf, len);
	p->len = len;
	s->size = size;
	*out = s;
	return CR_OK;
}

/* Append n bytes at s to out[*k], keeping room for the NUL. */
static void put_cut(char *out, size_t cap, size_t *k, const char *s, size_t n)
{
	if (*k + 1 >= cap)
		return;
	if (n > cap - 1 - *k)
		n = cap - 1 - *k;
	memcpy(out + *k, s, n);
	*k += n;
}

size_t cr_url_redact(const char *url, char *out, size_t cap)
{
	const char *scheme = strstr(url, "://"), *auth = NULL, *at = NULL;
	size_t k = 0, head;

	if (scheme) {
		auth = scheme + 3;
		for (const char *p = auth; *p && *p != '/' && *p != '?' && *p != '#'; p++)
			if (*p == '@')
				at = p;
	}
	if (!at) {
		put_cut(out, cap, &k, url, strlen(url));
		if (cap)
			out[k] = '\0';
		return strlen(url);
	}
	head = (size_t)(auth - url);
	put_cut(out, cap, &k, url, head);
	put_cut(out, cap, &k, "***", 3);
	put_cut(out, cap, &k, at, strlen(at));
	if (cap)
		out[k] = '\0';
	return head + 3 + strlen(at);
}
