/*
 * Typed getters over the kept header bytes, value rendering for display,
 * split-file names. Above the reader (gguf.c, whose parsed header it reads
 * through gguf_internal.h); the tables it names types with are in
 * gguf_types.c.
 */
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gguf_internal.h"
#include "util.h"

/* ---- getters -------------------------------------------------------------- */

static int missing(const cr_gguf *g, const char *key, cr_error *err)
{
	return cr_seterr(err, CR_ERR_NOTFOUND, "%s: %s: missing", g->name, key);
}

static int wrong(const cr_gguf *g, const char *key, const char *want, cr_gguf_type got,
		 cr_error *err)
{
	return cr_seterr(err, CR_ERR_INVALID, "%s: %s: expected %s, got %s", g->name, key, want,
			 cr_gguf_type_name(got));
}

/* Decode an integer (or bool) of type t at p. */
static bool load_int(cr_gguf_type t, const uint8_t *p, bool *neg, uint64_t *mag)
{
	int64_t s;

	*neg = false;
	switch (t) {
	case CR_GGUF_UINT8:
	case CR_GGUF_BOOL:
		*mag = p[0];
		return true;
	case CR_GGUF_UINT16:
		*mag = gg_ld16(p);
		return true;
	case CR_GGUF_UINT32:
		*mag = gg_ld32(p);
		return true;
	case CR_GGUF_UINT64:
		*mag = gg_ld64(p);
		return true;
	case CR_GGUF_INT8:
		/* The byte is a two's-complement int8: sign extension wanted. */
		s = (int8_t)p[0]; /* NOLINT(bugprone-signed-char-misuse,cert-str34-c) */
		break;
	case CR_GGUF_INT16:
		s = (int16_t)gg_ld16(p);
		break;
	case CR_GGUF_INT32:
		s = (int32_t)gg_ld32(p);
		break;
	case CR_GGUF_INT64:
		s = (int64_t)gg_ld64(p);
		break;
	default:
		return false;
	}
	*neg = s < 0;
	*mag = s < 0 ? (uint64_t)0 - (uint64_t)s : (uint64_t)s;
	return true;
}

static bool load_num(cr_gguf_type t, const uint8_t *p, double *out)
{
	bool neg;
	uint64_t m;

	if (t == CR_GGUF_FLOAT32) {
		uint32_t b = gg_ld32(p);
		float f;

		memcpy(&f, &b, sizeof(f));
		*out = f;
		return true;
	}
	if (t == CR_GGUF_FLOAT64) {
		uint64_t b = gg_ld64(p);

		memcpy(out, &b, sizeof(*out));
		return true;
	}
	if (!load_int(t, p, &neg, &m))
		return false;
	*out = neg ? -(double)m : (double)m;
	return true;
}

static int get_scalar(const cr_gguf *g, const char *key, const gg_kv **kv, cr_error *err)
{
	*kv = gg_lookup(g, key);
	return *kv ? CR_OK : missing(g, key, err);
}

int cr_gguf_get_u64(const cr_gguf *g, const char *key, uint64_t *out, cr_error *err)
{
	const gg_kv *kv;
	bool neg;
	uint64_t m;
	int rc = get_scalar(g, key, &kv, err);

	if (rc)
		return rc;
	if (!load_int(kv->type, gg_bytes(g, kv->val_off), &neg, &m))
		return wrong(g, key, "an unsigned integer", kv->type, err);
	if (neg)
		return cr_seterr(err, CR_ERR_INVALID, "%s: %s: negative value -%" PRIu64, g->name, key, m);
	*out = m;
	return CR_OK;
}

int cr_gguf_get_u32(const cr_gguf *g, const char *key, uint32_t *out, cr_error *err)
{
	uint64_t v;
	int rc = cr_gguf_get_u64(g, key, &v, err);

	if (rc)
		return rc;
	if (v > UINT32_MAX)
		return cr_seterr(err, CR_ERR_INVALID, "%s: %s: %" PRIu64 " does not fit 32 bits", g->name,
				 key, v);
	*out = (uint32_t)v;
	return CR_OK;
}

int cr_gguf_get_i64(const cr_gguf *g, const char *key, int64_t *out, cr_error *err)
{
	const gg_kv *kv;
	bool neg;
	uint64_t m;
	int rc = get_scalar(g, key, &kv, err);

	if (rc)
		return rc;
	if (!load_int(kv->type, gg_bytes(g, kv->val_off), &neg, &m))
		return wrong(g, key, "an integer", kv->type, err);
	if (!neg && m > (uint64_t)INT64_MAX)
		return cr_seterr(err, CR_ERR_INVALID, "%s: %s: %" PRIu64 " does not fit 63 bits", g->name,
				 key, m);
	*out = neg ? (int64_t)(0 - m) : (int64_t)m;
	return CR_OK;
}

int cr_gguf_get_f64(const cr_gguf *g, const char *key, double *out, cr_error *err)
{
	const gg_kv *kv;
	int rc = get_scalar(g, key, &kv, err);

	if (rc)
		return rc;
	if (!load_num(kv->type, gg_bytes(g, kv->val_off), out))
		return wrong(g, key, "a number", kv->type, err);
	return CR_OK;
}

int cr_gguf_get_bool(const cr_gguf *g, const char *key, bool *out, cr_error *err)
{
	const gg_kv *kv;
	int rc = get_scalar(g, key, &kv, err);

	if (rc)
		return rc;
	if (kv->type != CR_GGUF_BOOL)
		return wrong(g, key, "a bool", kv->type, err);
	*out = *gg_bytes(g, kv->val_off) != 0;
	return CR_OK;
}

static int copy_string(const cr_gguf *g, const char *key, uint64_t off, uint64_t len, char *buf,
		       size_t cap, cr_error *err)
{
	if (!cap || len > cap - 1)
		return cr_seterr(err, CR_ERR_RANGE, "%s: %s: string of %" PRIu64
				 " bytes does not fit a buffer of %zu", g->name, key, len, cap);
	memcpy(buf, gg_bytes(g, off), (size_t)len);
	buf[len] = '\0';
	return CR_OK;
}

int cr_gguf_get_string(const cr_gguf *g, const char *key, char *buf, size_t cap, cr_error *err)
{
	const gg_kv *kv;
	int rc = get_scalar(g, key, &kv, err);

	if (rc)
		return rc;
	if (kv->type != CR_GGUF_STRING)
		return wrong(g, key, "a string", kv->type, err);
	return copy_string(g, key, kv->val_off, kv->len, buf, cap, err);
}

int cr_gguf_get_array(const cr_gguf *g, const char *key, cr_gguf_type *elem_type,
		      uint64_t *count, cr_error *err)
{
	const gg_kv *kv;
	int rc = get_scalar(g, key, &kv, err);

	if (rc)
		return rc;
	if (kv->type != CR_GGUF_ARRAY)
		return wrong(g, key, "an array", kv->type, err);
	if (elem_type)
		*elem_type = kv->elem;
	if (count)
		*count = kv->count;
	return CR_OK;
}

/* Element i of a fixed-size array: its bytes, or an error. */
static int array_elem(const cr_gguf *g, const char *key, uint64_t i, const gg_kv **kv,
		      const uint8_t **p, cr_error *err)
{
	static const uint8_t size[CR_GGUF_TYPE_COUNT] = { 1, 1, 2, 2, 4, 4, 4, 1, 0, 0, 8, 8, 8 };
	int rc = cr_gguf_get_array(g, key, NULL, NULL, err);

	if (rc)
		return rc;
	*kv = gg_lookup(g, key);
	if (!size[(*kv)->elem])
		return cr_seterr(err, CR_ERR_INVALID, "%s: %s: expected an array of numbers, got an array of %s",
				 g->name, key, cr_gguf_type_name((*kv)->elem));
	if (i >= (*kv)->count)
		return cr_seterr(err, CR_ERR_RANGE, "%s: %s: index %" PRIu64 " past the %" PRIu64
				 " elements", g->name, key, i, (*kv)->count);
	*p = gg_bytes(g, (*kv)->val_off + i * size[(*kv)->elem]);
	return CR_OK;
}

int cr_gguf_get_array_u64(const cr_gguf *g, const char *key, uint64_t i, uint64_t *out,
			  cr_error *err)
{
	const gg_kv *kv;
	const uint8_t *p;
	bool neg;
	uint64_t m;
	int rc = array_elem(g, key, i, &kv, &p, err);

	if (rc)
		return rc;
	if (!load_int(kv->elem, p, &neg, &m))
		return cr_seterr(err, CR_ERR_INVALID, "%s: %s: expected an array of integers, got an array of %s",
				 g->name, key, cr_gguf_type_name(kv->elem));
	if (neg)
		return cr_seterr(err, CR_ERR_INVALID, "%s: %s[%" PRIu64 "]: negative value -%" PRIu64,
				 g->name, key, i, m);
	*out = m;
	return CR_OK;
}

int cr_gguf_get_array_f64(const cr_gguf *g, const char *key, uint64_t i, double *out,
			  cr_error *err)
{
	const gg_kv *kv;
	const uint8_t *p;
	int rc = array_elem(g, key, i, &kv, &p, err);

	if (rc)
		return rc;
	load_num(kv->elem, p, out);
	return CR_OK;
}

int cr_gguf_get_array_string(const cr_gguf *g, const char *key, uint64_t i, char *buf,
			     size_t cap, cr_error *err)
{
	const gg_kv *kv;
	uint64_t off;
	int rc = cr_gguf_get_array(g, key, NULL, NULL, err);

	if (rc)
		return rc;
	kv = gg_lookup(g, key);
	if (kv->elem != CR_GGUF_STRING)
		return cr_seterr(err, CR_ERR_INVALID, "%s: %s: expected an array of strings, got an array of %s",
				 g->name, key, cr_gguf_type_name(kv->elem));
	if (i >= kv->count)
		return cr_seterr(err, CR_ERR_RANGE, "%s: %s: index %" PRIu64 " past the %" PRIu64
				 " elements", g->name, key, i, kv->count);
	/* The parse checked every length, so walking the elements is safe. */
	off = kv->val_off;
	for (uint64_t k = 0; k < i; k++)
		off += 8 + gg_ld64(gg_bytes(g, off));
	return copy_string(g, key, off + 8, gg_ld64(gg_bytes(g, off)), buf, cap, err);
}

/* ---- display ---------------------------------------------------------------- */

typedef struct sbuf {
	char *p;
	size_t cap, len;
} sbuf;

static void put(sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void put(sbuf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (b->len + 1 >= b->cap)
		return;
	va_start(ap, fmt);
	n = vsnprintf(b->p + b->len, b->cap - b->len, fmt, ap);
	va_end(ap);
	if (n > 0)
		b->len += (size_t)n < b->cap - b->len ? (size_t)n : b->cap - b->len - 1;
}

static void put_string(sbuf *b, const uint8_t *s, uint64_t n, size_t room)
{
	put(b, "\"");
	for (uint64_t i = 0; i < n; i++) {
		if (b->len + 8 >= b->cap || i >= room) {
			put(b, "...");
			break;
		}
		if (s[i] == '"' || s[i] == '\\')
			put(b, "\\%c", s[i]);
		else if (s[i] < 0x20 || s[i] == 0x7f)
			put(b, s[i] == '\n' ? "\\n" : "\\x%02x", s[i]);
		else
			put(b, "%c", s[i]);
	}
	put(b, "\"");
}

static void put_scalar(sbuf *b, cr_gguf_type t, const uint8_t *p)
{
	bool neg;
	uint64_t m;
	double d;

	if (t == CR_GGUF_BOOL)
		put(b, "%s", p[0] ? "true" : "false");
	else if (load_int(t, p, &neg, &m))
		put(b, "%s%" PRIu64, neg ? "-" : "", m);
	else if (load_num(t, p, &d))
		put(b, "%.9g", d);
}

void cr_gguf_kv_format(const cr_gguf *g, size_t i, char *buf, size_t cap)
{
	static const uint8_t size[CR_GGUF_TYPE_COUNT] = { 1, 1, 2, 2, 4, 4, 4, 1, 0, 0, 8, 8, 8 };
	sbuf b = { buf, cap, 0 };
	const gg_kv *kv;

	if (!cap)
		return;
	buf[0] = '\0';
	if (i >= g->n_kv)
		return;
	kv = &g->kv[i];
	if (kv->type == CR_GGUF_STRING) {
		put_string(&b, gg_bytes(g, kv->val_off), kv->len, cap > 16 ? cap - 16 : 0);
	} else if (kv->type != CR_GGUF_ARRAY) {
		put_scalar(&b, kv->type, gg_bytes(g, kv->val_off));
	} else {
		uint64_t off = kv->val_off, shown = kv->count < 8 ? kv->count : 8;

		put(&b, "[%s × %" PRIu64 "]", cr_gguf_type_name(kv->elem), kv->count);
		if (kv->elem == CR_GGUF_ARRAY)
			return;
		for (uint64_t k = 0; k < shown; k++) {
			put(&b, k ? ", " : " ");
			if (kv->elem == CR_GGUF_STRING) {
				uint64_t n = gg_ld64(gg_bytes(g, off));

				put_string(&b, gg_bytes(g, off + 8), n, 24);
				off += 8 + n;
			} else {
				put_scalar(&b, kv->elem, gg_bytes(g, off));
				off += size[kv->elem];
			}
		}
		if (shown < kv->count)
			put(&b, ", ...");
	}
}

/* ---- split files -------------------------------------------------------------- */

/* "-NNNNN-of-NNNNN.gguf" is 20 characters. */
#define SPLIT_SUFFIX_LEN 20

static bool digits5(const char *s, uint32_t *v)
{
	*v = 0;
	for (int i = 0; i < 5; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		*v = *v * 10 + (uint32_t)(s[i] - '0');
	}
	return true;
}

/* Find the suffix; `end` is where ".gguf" ends (a URL may go on). */
static bool find_split(const char *path, size_t *prefix_len, uint32_t *no, uint32_t *count,
		       size_t *end)
{
	const char *q = strstr(path, ".gguf");
	const char *last = NULL;

	/* The last ".gguf" before a '?' or '#', or the end of the string. */
	while (q) {
		char c = q[5];

		if (c == '\0' || c == '?' || c == '#')
			last = q;
		q = strstr(q + 1, ".gguf");
	}
	if (!last || (size_t)(last - path) < 15)
		return false;
	{
		const char *s = last - 15; /* "-NNNNN-of-NNNNN" */
		uint32_t a, b;

		if (s[0] != '-' || strncmp(s + 6, "-of-", 4) != 0 || !digits5(s + 1, &a) ||
		    !digits5(s + 10, &b) || a < 1 || b < 1 || a > b)
			return false;
		*prefix_len = (size_t)(s - path);
		*no = a;
		*count = b;
		*end = (size_t)(last - path) + 5;
	}
	return true;
}

bool cr_gguf_split_parse(const char *path, size_t *prefix_len, uint32_t *no, uint32_t *count)
{
	size_t end;

	return find_split(path, prefix_len, no, count, &end);
}

int cr_gguf_split_name(const char *path, uint32_t no, char *buf, size_t cap, cr_error *err)
{
	size_t plen, end, n = strlen(path);
	uint32_t cur, count;
	int w;

	if (!find_split(path, &plen, &cur, &count, &end))
		return cr_seterr(err, CR_ERR_INVALID, "%s: not a split file name (-00001-of-00003.gguf)",
				 path);
	if (no < 1 || no > count)
		return cr_seterr(err, CR_ERR_INVALID, "%s: part %" PRIu32 " of %" PRIu32, path, no, count);
	if (n >= cap)
		return cr_seterr(err, CR_ERR_RANGE, "%s: name too long", path);
	(void)SPLIT_SUFFIX_LEN;
	w = snprintf(buf, cap, "%.*s-%05" PRIu32 "-of-%05" PRIu32 "%s", (int)plen, path, no, count,
		     path + plen + 15);
	if (w < 0 || (size_t)w >= cap)
		return cr_seterr(err, CR_ERR_RANGE, "%s: name too long", path);
	return CR_OK;
}
