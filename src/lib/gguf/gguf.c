/*
 * The GGUF header reader (layout and checks: include/clefrun/gguf.h).
 *
 * The header is read into one growing buffer. Nothing is trusted: every
 * length is checked against the limits and against the file size before a
 * byte is touched or a loop runs, every product is checked for overflow, and
 * every error names the byte offset where the bad value starts. Values are
 * not decoded up front: the parse records where each value lies, the
 * buffer is kept, and the getters decode on demand.
 */
#include "clefrun/gguf.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gguf_internal.h"
#include "util.h"

/* The spec caps keys at 65535 bytes ("at most 2^16-1 bytes"). */
#define KEY_MAX 65535u

/* Bytes one element of each value type takes at least (arrays: their own
 * type and count; strings: their length). Used to refuse an array whose
 * count cannot fit in the rest of the file before looping over it. */
static const uint8_t min_size[CR_GGUF_TYPE_COUNT] = {
	1, 1, 2, 2, 4, 4, 4, 1, 8, 12, 8, 8, 8
};

/* ---- the parse state ------------------------------------------------------ */

enum { KEY_OTHER = 0, KEY_TOKENS, KEY_TYPES, KEY_SCORES, KEY_MERGES };

/* Where the parse is, for sizing the next read (see estimate()). */
typedef struct progress {
	uint64_t n_kv, kv_i;            /* pairs, current pair */
	uint64_t n_tensors, t_i;        /* tensor infos, current info */
	uint64_t infos_start;           /* offset of the first tensor info; 0 before */
	uint64_t arr_start, arr_n, arr_i; /* current top-level array, 0 when none */
	uint64_t arr_pos;               /* offset after element arr_i - 1 */
	int tok_model;                  /* 1 SentencePiece ("llama"), 2 BPE ("gpt2") */
	uint64_t vocab_n;               /* tokenizer.ggml.tokens count */
	double tok_avg;                 /* bytes per token string, length included */
	bool seen_types, seen_scores, seen_merges;
	int cur;                        /* which tokenizer array is being read */
} progress;

typedef struct ps {
	cr_source *src;
	const char *name;
	uint64_t size;
	const cr_gguf_opts *o;
	uint8_t *buf;
	size_t len;          /* bytes of the file in buf, from offset 0 */
	cr_error *err;
	progress pr;
	cr_gguf *g;
} ps;

static int fail_(ps *p, int status, uint64_t off, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* The status, visibly (util.h cr_seterr says why). */
#define fail(p, status, ...) cr_status_of(fail_((p), (status), __VA_ARGS__), (status))

static int fail_(ps *p, int status, uint64_t off, const char *fmt, ...)
{
	char what[384];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	return cr_seterr(p->err, status, "%s: byte %" PRIu64 ": %s", p->name, off, what);
}

/* Expected offset of the end of the header, from what has been parsed so
 * far (the read must reach `want` in any case). Real headers are dominated
 * by the tokenizer arrays (tokens, then token_type and scores or merges), so
 * the estimate extrapolates the current array of strings from its average
 * element, adds the arrays that usually follow the token list, then ~48
 * bytes per remaining pair and ~80 per tensor info (a name, two dims, type,
 * offset). A miss costs one more read; an overshoot, bytes of a header that
 * is read anyway. */
static uint64_t estimate(const ps *p, uint64_t want)
{
	const progress *r = &p->pr;
	double e = (double)want, n, tok;

	if (r->infos_start) {
		double per = r->t_i ? (double)(want - r->infos_start) / (double)(r->t_i + 1) : 80.0;

		return (uint64_t)((double)r->infos_start + per * (double)r->n_tensors) +
		       p->g->alignment;
	}
	if (r->arr_n && r->arr_i) {
		double x = (double)r->arr_start +
			   (double)(r->arr_pos - r->arr_start) / (double)r->arr_i * (double)r->arr_n;

		if (x > e)
			e = x;
	}
	n = (double)(r->vocab_n ? r->vocab_n : (r->cur == KEY_TOKENS ? r->arr_n : 0));
	tok = r->tok_avg;
	if (!r->vocab_n && r->cur == KEY_TOKENS && r->arr_i)
		tok = (double)(r->arr_pos - r->arr_start) / (double)r->arr_i;
	if (tok < 9)
		tok = 14.0;
	if (n > 0) {
		if (!r->seen_types && r->cur != KEY_TYPES)
			e += 4.0 * n + 48;
		if (r->tok_model == 1 && !r->seen_scores && r->cur != KEY_SCORES)
			e += 4.0 * n + 48;
		if (r->tok_model == 2 && !r->seen_merges && r->cur != KEY_MERGES)
			e += n * (tok + 1.0) + 48; /* "a b": the merged token plus a space */
	}
	e += 48.0 * (double)(r->n_kv - r->kv_i) + 80.0 * (double)r->n_tensors +
	     p->g->alignment;
	return (uint64_t)e;
}

/* Make [off, off + n) available in p->buf; `what` names the item for the
 * message when it runs past the end of the file or the header limit. */
static int need(ps *p, uint64_t off, uint64_t n, const char *what)
{
	uint64_t want, target, e;
	uint8_t *nb;
	int rc;

	if (off > p->size || n > p->size - off)
		return cr_setreason(p->err, CR_REASON_TRUNCATED,
				    fail(p, CR_ERR_PARSE, off, "%s runs past the end of the file (%" PRIu64 " bytes)",
					 what, p->size));
	want = off + n;
	if (want <= p->len)
		return CR_OK;
	if (want > p->o->max_header_bytes)
		return fail(p, CR_ERR_RANGE, off,
			    "%s ends at byte %" PRIu64 ", past the header limit of %" PRIu64 " bytes",
			    what, want, p->o->max_header_bytes);
	if (!p->len) {
		target = p->o->first_read;
	} else if ((e = estimate(p, want)) > 0) {
		target = e + e / 8 + (64u << 10);
	} else {
		target = 2 * (uint64_t)p->len;
	}
	if (target < want)
		target = want;
	if (target > p->size)
		target = p->size;
	if (target > p->o->max_header_bytes)
		target = p->o->max_header_bytes;
	if (target > SIZE_MAX)
		return fail(p, CR_ERR_NOMEM, off, "header too large for this machine");
	nb = realloc(p->buf, (size_t)target);
	if (!nb)
		return fail(p, CR_ERR_NOMEM, off, "out of memory reading %" PRIu64 " header bytes",
			    target);
	p->buf = nb;
	rc = cr_source_read(p->src, p->len, p->buf + p->len, (size_t)target - p->len, p->err);
	if (rc)
		return rc;
	p->len = (size_t)target;
	return CR_OK;
}

static int rd_u32(ps *p, uint64_t *pos, uint32_t *v, const char *what)
{
	int rc = need(p, *pos, 4, what);

	if (rc)
		return rc;
	*v = gg_ld32(p->buf + *pos);
	*pos += 4;
	return CR_OK;
}

static int rd_u64(ps *p, uint64_t *pos, uint64_t *v, const char *what)
{
	int rc = need(p, *pos, 8, what);

	if (rc)
		return rc;
	*v = gg_ld64(p->buf + *pos);
	*pos += 8;
	return CR_OK;
}

/* A string: uint64 length + bytes. *start receives the offset of the bytes. */
static int rd_str(ps *p, uint64_t *pos, uint64_t max, const char *what, uint64_t *start,
		  uint64_t *len)
{
	char item[96];
	uint64_t at = *pos;
	int rc = rd_u64(p, pos, len, what);

	if (rc)
		return rc;
	if (*len > max)
		return fail(p, CR_ERR_RANGE, at, "%s: length %" PRIu64 " is above the limit of %" PRIu64
			    " bytes", what, *len, max);
	snprintf(item, sizeof(item), "%s of %" PRIu64 " bytes", what, *len);
	if ((rc = need(p, *pos, *len, item)))
		return rc;
	*start = *pos;
	*pos += *len;
	return CR_OK;
}

static bool printable(const uint8_t *s, uint64_t n)
{
	for (uint64_t i = 0; i < n; i++)
		if (s[i] < 0x20 || s[i] > 0x7e)
			return false;
	return true;
}

/* Skip one value of type t at *pos; depth counts the arrays around it. */
static int skip_value(ps *p, uint64_t *pos, uint32_t t, uint32_t depth, bool top);

static int skip_array(ps *p, uint64_t *pos, uint32_t depth, bool top, uint32_t *elem_out,
		      uint64_t *count_out, uint64_t *first_out)
{
	uint64_t at = *pos, n, first;
	uint32_t et;
	int rc;

	if (depth > p->o->max_array_depth)
		return fail(p, CR_ERR_RANGE, at, "arrays nested deeper than %" PRIu32 " levels",
			    p->o->max_array_depth);
	if ((rc = rd_u32(p, pos, &et, "array element type")))
		return rc;
	if (et >= CR_GGUF_TYPE_COUNT)
		return fail(p, CR_ERR_PARSE, at, "unknown array element type %" PRIu32, et);
	if ((rc = rd_u64(p, pos, &n, "array length")))
		return rc;
	if (n > p->o->max_array_len)
		return fail(p, CR_ERR_RANGE, at + 4,
			    "array of %" PRIu64 " elements is above the limit of %" PRIu64, n,
			    p->o->max_array_len);
	if (n > (p->size - *pos) / min_size[et])
		return cr_setreason(p->err, CR_REASON_TRUNCATED,
				    fail(p, CR_ERR_PARSE, at + 4,
					 "array of %" PRIu64 " %s elements runs past the end of the file (%" PRIu64
					 " bytes)", n, cr_gguf_type_name((cr_gguf_type)et), p->size));
	first = *pos;
	if (elem_out) {
		*elem_out = et;
		*count_out = n;
		*first_out = first;
	}
	if (et != CR_GGUF_STRING && et != CR_GGUF_ARRAY) {
		/* Fixed-size elements: one bounds check for the lot. */
		if ((rc = need(p, *pos, n * min_size[et], "array")))
			return rc;
		*pos += n * min_size[et];
		return CR_OK;
	}
	if (top) {
		p->pr.arr_start = first;
		p->pr.arr_n = n;
	}
	for (uint64_t i = 0; i < n; i++) {
		if (top) {
			p->pr.arr_i = i;
			p->pr.arr_pos = *pos;
		}
		if ((rc = skip_value(p, pos, et, depth, false)))
			return rc;
	}
	if (top)
		p->pr.arr_n = p->pr.arr_i = 0;
	return CR_OK;
}

static int skip_value(ps *p, uint64_t *pos, uint32_t t, uint32_t depth, bool top)
{
	uint64_t s, l;

	if (t == CR_GGUF_STRING)
		return rd_str(p, pos, p->o->max_string_bytes, "string", &s, &l);
	if (t == CR_GGUF_ARRAY)
		return skip_array(p, pos, depth + 1, top, NULL, NULL, NULL);
	if (t >= CR_GGUF_TYPE_COUNT)
		return fail(p, CR_ERR_PARSE, *pos, "unknown value type %" PRIu32, t);
	{
		int rc = need(p, *pos, min_size[t], cr_gguf_type_name((cr_gguf_type)t));

		if (rc)
			return rc;
	}
	*pos += min_size[t];
	return CR_OK;
}

/* Note what the tokenizer keys say, for estimate(). */
static void note_key(ps *p, const gg_kv *kv)
{
	progress *r = &p->pr;

	if (strcmp(kv->key, "tokenizer.ggml.model") == 0 && kv->type == CR_GGUF_STRING) {
		const char *v = (const char *)p->buf + kv->val_off;

		if (kv->len == 5 && memcmp(v, "llama", 5) == 0)
			r->tok_model = 1;
		else if (kv->len == 4 && memcmp(v, "gpt2", 4) == 0)
			r->tok_model = 2;
	} else if (strcmp(kv->key, "tokenizer.ggml.tokens") == 0 && kv->type == CR_GGUF_ARRAY) {
		r->vocab_n = kv->count;
		if (kv->count)
			r->tok_avg = (double)(kv->end - kv->val_off) / (double)kv->count;
	} else if (strcmp(kv->key, "tokenizer.ggml.token_type") == 0) {
		r->seen_types = true;
	} else if (strcmp(kv->key, "tokenizer.ggml.scores") == 0) {
		r->seen_scores = true;
	} else if (strcmp(kv->key, "tokenizer.ggml.merges") == 0) {
		r->seen_merges = true;
	}
}

static int parse_kv(ps *p, uint64_t *pos, gg_kv *kv)
{
	uint64_t at = *pos, ks, kl;
	uint32_t t;
	int rc;

	kv->off = at;
	if ((rc = rd_str(p, pos, KEY_MAX, "key", &ks, &kl)))
		return rc;
	if (kl == 0)
		return fail(p, CR_ERR_PARSE, at, "empty key");
	if (!printable(p->buf + ks, kl))
		return fail(p, CR_ERR_PARSE, at, "key is not printable ASCII");
	if (!(kv->key = strndup((const char *)p->buf + ks, (size_t)kl)))
		return fail(p, CR_ERR_NOMEM, at, "out of memory");
	p->pr.cur = strcmp(kv->key, "tokenizer.ggml.tokens") == 0	   ? KEY_TOKENS
		    : strcmp(kv->key, "tokenizer.ggml.token_type") == 0 ? KEY_TYPES
		    : strcmp(kv->key, "tokenizer.ggml.scores") == 0	   ? KEY_SCORES
		    : strcmp(kv->key, "tokenizer.ggml.merges") == 0	   ? KEY_MERGES
								   : KEY_OTHER;
	if ((rc = rd_u32(p, pos, &t, "value type")))
		return rc;
	if (t >= CR_GGUF_TYPE_COUNT)
		return fail(p, CR_ERR_PARSE, *pos - 4, "key '%.80s': unknown value type %" PRIu32,
			    kv->key, t);
	kv->type = (cr_gguf_type)t;
	if (t == CR_GGUF_ARRAY) {
		uint32_t et = 0; /* skip_array leaves it unset when it fails early */

		rc = skip_array(p, pos, 1, true, &et, &kv->count, &kv->val_off);
		kv->elem = (cr_gguf_type)et;
	} else if (t == CR_GGUF_STRING) {
		rc = rd_str(p, pos, p->o->max_string_bytes, "string value", &kv->val_off, &kv->len);
	} else {
		kv->val_off = *pos;
		rc = skip_value(p, pos, t, 0, false);
	}
	if (rc)
		return rc;
	kv->end = *pos;
	p->pr.cur = KEY_OTHER;
	note_key(p, kv);
	return CR_OK;
}

/* ---- sorting for duplicate checks and lookups ----------------------------- */

typedef int (*cmp_fn)(const cr_gguf *g, size_t a, size_t b);

static int cmp_kv(const cr_gguf *g, size_t a, size_t b)
{
	return strcmp(g->kv[a].key, g->kv[b].key);
}

static int cmp_t_name(const cr_gguf *g, size_t a, size_t b)
{
	return strcmp(g->tensors[a].name, g->tensors[b].name);
}

static int cmp_t_off(const cr_gguf *g, size_t a, size_t b)
{
	const cr_gguf_tensor *x = &g->tensors[a], *y = &g->tensors[b];

	if (x->offset != y->offset)
		return x->offset < y->offset ? -1 : 1;
	return x->bytes < y->bytes ? -1 : x->bytes > y->bytes;
}

/* A merge sort of indices: qsort has no context argument in C11, and a
 * static comparison base would make two headers parsed at once race. */
static void msort(const cr_gguf *g, size_t *idx, size_t *tmp, size_t n, cmp_fn cmp)
{
	size_t mid, i, j, k;

	if (n < 2)
		return;
	mid = n / 2;
	msort(g, idx, tmp, mid, cmp);
	msort(g, idx + mid, tmp, n - mid, cmp);
	for (i = 0, j = mid, k = 0; i < mid && j < n;)
		tmp[k++] = cmp(g, idx[j], idx[i]) < 0 ? idx[j++] : idx[i++];
	while (i < mid)
		tmp[k++] = idx[i++];
	while (j < n)
		tmp[k++] = idx[j++];
	memcpy(idx, tmp, n * sizeof(*idx));
}

/* ---- tensor infos ----------------------------------------------------------- */

static int parse_tensor(ps *p, uint64_t *pos, cr_gguf_tensor *t)
{
	uint64_t at = *pos, ns, nl, prod = 1;
	uint32_t nd, type, block, bsize;
	int rc;

	t->info_offset = at;
	if ((rc = rd_str(p, pos, p->o->max_string_bytes, "tensor name", &ns, &nl)))
		return rc;
	if (nl == 0)
		return fail(p, CR_ERR_PARSE, at, "empty tensor name");
	if (nl >= CR_GGUF_MAX_NAME)
		return fail(p, CR_ERR_PARSE, at, "tensor name of %" PRIu64 " bytes (at most %d)", nl,
			    CR_GGUF_MAX_NAME - 1);
	if (!printable(p->buf + ns, nl))
		return fail(p, CR_ERR_PARSE, at, "tensor name is not printable ASCII");
	if (!(t->name = strndup((const char *)p->buf + ns, (size_t)nl)))
		return fail(p, CR_ERR_NOMEM, at, "out of memory");
	if ((rc = rd_u32(p, pos, &nd, "tensor dimension count")))
		return rc;
	if (nd > CR_GGUF_MAX_DIMS)
		return fail(p, CR_ERR_PARSE, *pos - 4, "tensor '%s' has %" PRIu32
			    " dimensions (at most %d)", t->name, nd, CR_GGUF_MAX_DIMS);
	t->n_dims = nd;
	for (uint32_t d = 0; d < CR_GGUF_MAX_DIMS; d++)
		t->dims[d] = 1;
	for (uint32_t d = 0; d < nd; d++) {
		uint64_t v;

		if ((rc = rd_u64(p, pos, &v, "tensor dimension")))
			return rc;
		if (v > (uint64_t)INT64_MAX)
			return fail(p, CR_ERR_PARSE, *pos - 8, "tensor '%s': dimension %" PRIu32
				    " is negative", t->name, d);
		t->dims[d] = v;
		if (v && prod > (uint64_t)INT64_MAX / v)
			return fail(p, CR_ERR_PARSE, *pos - 8, "tensor '%s': element count overflows 64 bits",
				    t->name);
		prod *= v;
	}
	t->n_elements = prod;
	if ((rc = rd_u32(p, pos, &type, "tensor type")))
		return rc;
	if (cr_ggml_type_size(type, &block, &bsize)) {
		const char *gone = gg_removed_type(type);

		if (gone)
			return fail(p, CR_ERR_UNSUPPORTED, *pos - 4,
				    "tensor '%s' has type %" PRIu32 " (%s), removed from ggml; requantize the model",
				    t->name, type, gone);
		return fail(p, CR_ERR_UNSUPPORTED, *pos - 4, "tensor '%s' has unknown type id %" PRIu32,
			    t->name, type);
	}
	t->type = type;
	if (t->dims[0] % block)
		return fail(p, CR_ERR_PARSE, *pos - 4,
			    "tensor '%s': row length %" PRIu64 " is not a multiple of %s's block of %" PRIu32,
			    t->name, t->dims[0], cr_ggml_type_name(type), block);
	{
		/* ggml_nbytes: rows of ne[0]/block blocks, times the other dims. */
		uint64_t b = t->dims[0] / block;

		if (b > UINT64_MAX / bsize)
			return fail(p, CR_ERR_PARSE, at, "tensor '%s': size overflows 64 bits", t->name);
		b *= bsize;
		for (uint32_t d = 1; d < CR_GGUF_MAX_DIMS; d++) {
			if (t->dims[d] && b > UINT64_MAX / t->dims[d])
				return fail(p, CR_ERR_PARSE, at, "tensor '%s': size overflows 64 bits",
					    t->name);
			b *= t->dims[d];
		}
		t->bytes = b;
	}
	if ((rc = rd_u64(p, pos, &t->offset, "tensor offset")))
		return rc;
	if (t->offset % p->g->alignment)
		return fail(p, CR_ERR_PARSE, *pos - 8,
			    "tensor '%s': data offset %" PRIu64 " is not a multiple of the alignment %" PRIu32,
			    t->name, t->offset, p->g->alignment);
	return CR_OK;
}

/* Data placement: inside the file, and no two tensors overlapping. */
static int check_layout(ps *p)
{
	cr_gguf *g = p->g;
	size_t n = g->n_tensors, *idx, *tmp;
	int rc = CR_OK;

	for (size_t i = 0; i < n; i++) {
		const cr_gguf_tensor *t = &g->tensors[i];
		uint64_t start, end;

		if (t->offset > UINT64_MAX - g->data_offset ||
		    t->bytes > UINT64_MAX - g->data_offset - t->offset)
			return fail(p, CR_ERR_PARSE, t->info_offset, "tensor '%s': data end overflows 64 bits",
				    t->name);
		start = g->data_offset + t->offset;
		end = start + t->bytes;
		if (end > p->size && !p->o->allow_truncated)
			return cr_setreason(p->err, CR_REASON_TRUNCATED,
					    fail(p, CR_ERR_PARSE, t->info_offset,
						 "tensor '%s': data [%" PRIu64 ", %" PRIu64
						 ") lies past the end of the file (%" PRIu64 " bytes)",
						 t->name, start, end, p->size));
	}
	if (n < 2)
		return CR_OK;
	idx = malloc(n * sizeof(*idx));
	tmp = malloc(n * sizeof(*tmp));
	if (!idx || !tmp) {
		free(idx);
		free(tmp);
		return fail(p, CR_ERR_NOMEM, 0, "out of memory");
	}
	for (size_t i = 0; i < n; i++)
		idx[i] = i;
	msort(g, idx, tmp, n, cmp_t_off);
	for (size_t i = 0, last = SIZE_MAX; i < n; i++) {
		const cr_gguf_tensor *b = &g->tensors[idx[i]];

		if (!b->bytes)
			continue;
		if (last != SIZE_MAX) {
			const cr_gguf_tensor *a = &g->tensors[last];

			if (a->offset + a->bytes > b->offset) {
				rc = fail(p, CR_ERR_PARSE, b->info_offset,
					  "tensor '%s' (data offset %" PRIu64 ") overlaps tensor '%s' (data [%"
					  PRIu64 ", %" PRIu64 "))", b->name, b->offset, a->name, a->offset,
					  a->offset + a->bytes);
				break;
			}
		}
		last = idx[i];
	}
	free(idx);
	free(tmp);
	return rc;
}

static int index_names(ps *p)
{
	cr_gguf *g = p->g;
	size_t n = g->n_kv > g->n_tensors ? g->n_kv : g->n_tensors;
	size_t *tmp = malloc((n ? n : 1) * sizeof(*tmp));

	g->kv_sorted = malloc((g->n_kv ? g->n_kv : 1) * sizeof(size_t));
	g->t_sorted = malloc((g->n_tensors ? g->n_tensors : 1) * sizeof(size_t));
	if (!tmp || !g->kv_sorted || !g->t_sorted) {
		free(tmp);
		return fail(p, CR_ERR_NOMEM, 0, "out of memory");
	}
	for (size_t i = 0; i < g->n_kv; i++)
		g->kv_sorted[i] = i;
	msort(g, g->kv_sorted, tmp, g->n_kv, cmp_kv);
	for (size_t i = 1; i < g->n_kv; i++) {
		const gg_kv *a = &g->kv[g->kv_sorted[i - 1]], *b = &g->kv[g->kv_sorted[i]];

		if (strcmp(a->key, b->key) == 0) {
			const gg_kv *later = a->off > b->off ? a : b, *first = a->off > b->off ? b : a;

			free(tmp);
			return fail(p, CR_ERR_PARSE, later->off, "duplicate key '%.80s' (first at byte %" PRIu64 ")",
				    later->key, first->off);
		}
	}
	for (size_t i = 0; i < g->n_tensors; i++)
		g->t_sorted[i] = i;
	msort(g, g->t_sorted, tmp, g->n_tensors, cmp_t_name);
	for (size_t i = 1; i < g->n_tensors; i++) {
		const cr_gguf_tensor *a = &g->tensors[g->t_sorted[i - 1]];
		const cr_gguf_tensor *b = &g->tensors[g->t_sorted[i]];

		if (strcmp(a->name, b->name) == 0) {
			const cr_gguf_tensor *later = a->info_offset > b->info_offset ? a : b;
			const cr_gguf_tensor *first = later == a ? b : a;

			free(tmp);
			return fail(p, CR_ERR_PARSE, later->info_offset,
				    "duplicate tensor '%s' (first at byte %" PRIu64 ")", later->name,
				    first->info_offset);
		}
	}
	free(tmp);
	return CR_OK;
}

/* general.alignment and general.architecture, checked as soon as they are read. */
static int check_special(ps *p, const gg_kv *kv)
{
	cr_gguf *g = p->g;

	if (strcmp(kv->key, "general.alignment") == 0) {
		uint32_t a;

		if (kv->type != CR_GGUF_UINT32)
			return fail(p, CR_ERR_PARSE, kv->off, "general.alignment: expected uint32, got %s",
				    cr_gguf_type_name(kv->type));
		a = gg_ld32(p->buf + kv->val_off);
		if (a == 0 || (a & (a - 1)))
			return fail(p, CR_ERR_PARSE, kv->val_off,
				    "general.alignment %" PRIu32 " is not a power of two", a);
		g->alignment = a;
	} else if (strcmp(kv->key, "general.architecture") == 0) {
		const uint8_t *s = p->buf + kv->val_off;

		if (kv->type != CR_GGUF_STRING)
			return fail(p, CR_ERR_PARSE, kv->off, "general.architecture: expected string, got %s",
				    cr_gguf_type_name(kv->type));
		if (kv->len == 0 || kv->len >= sizeof(g->arch))
			return fail(p, CR_ERR_PARSE, kv->val_off,
				    "general.architecture: %" PRIu64 " bytes (expected 1 to %zu)", kv->len,
				    sizeof(g->arch) - 1);
		for (uint64_t i = 0; i < kv->len; i++) {
			uint8_t c = s[i];

			if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			      (c >= '0' && c <= '9') || c == '_' || c == '-' || c == '.'))
				return fail(p, CR_ERR_PARSE, kv->val_off + i,
					    "general.architecture: unexpected byte 0x%02x", c);
		}
		memcpy(g->arch, s, (size_t)kv->len);
		g->arch[kv->len] = '\0';
	}
	return CR_OK;
}

static int parse_header(ps *p)
{
	cr_gguf *g = p->g;
	uint64_t pos = 0, n_t, n_kv;
	uint32_t ver;
	int rc;

	if (p->size < 24) {
		if (p->size >= 4 && (rc = need(p, 0, 4, "magic")) == 0 &&
		    memcmp(p->buf, "GGUF", 4) != 0)
			goto bad_magic;
		return fail(p, CR_ERR_PARSE, 0,
			    "not a GGUF file: %" PRIu64 " bytes, shorter than a GGUF header (24 bytes)",
			    p->size);
	}
	if ((rc = need(p, 0, 24, "header")))
		return rc;
	if (memcmp(p->buf, "GGUF", 4) != 0)
		goto bad_magic;
	pos = 4;
	ver = gg_ld32(p->buf + 4);
	if (ver == 1)
		return fail(p, CR_ERR_UNSUPPORTED, 4,
			    "GGUF version 1 is not supported (it uses 32-bit counts); convert the model again");
	if (ver == 0x02000000u || ver == 0x03000000u)
		return fail(p, CR_ERR_UNSUPPORTED, 4, "big-endian GGUF files are not supported");
	if (ver != 2 && ver != 3)
		return fail(p, CR_ERR_UNSUPPORTED, 4,
			    "unsupported GGUF version %" PRIu32 " (expected 2 or 3)", ver);
	g->version = ver;
	n_t = gg_ld64(p->buf + 8);
	n_kv = gg_ld64(p->buf + 16);
	if (n_t > p->o->max_tensors)
		return fail(p, CR_ERR_RANGE, 8, "tensor count %" PRIu64 " is above the limit of %" PRIu64,
			    n_t, p->o->max_tensors);
	if (n_kv > p->o->max_kv)
		return fail(p, CR_ERR_RANGE, 16,
			    "metadata pair count %" PRIu64 " is above the limit of %" PRIu64, n_kv,
			    p->o->max_kv);
	/* Each pair takes at least 13 bytes and each tensor info 24. */
	if (n_kv > (p->size - 24) / 13 || n_t > (p->size - 24 - n_kv * 13) / 24)
		return fail(p, CR_ERR_PARSE, n_kv > (p->size - 24) / 13 ? 16 : 8,
			    "%" PRIu64 " metadata pairs and %" PRIu64
			    " tensor infos cannot fit in a file of %" PRIu64 " bytes", n_kv, n_t, p->size);
	pos = 24;
	g->kv = calloc(n_kv ? n_kv : 1, sizeof(*g->kv));
	g->tensors = calloc(n_t ? n_t : 1, sizeof(*g->tensors));
	if (!g->kv || !g->tensors)
		return fail(p, CR_ERR_NOMEM, 0, "out of memory");
	p->pr.n_kv = n_kv;
	p->pr.n_tensors = n_t;
	for (uint64_t i = 0; i < n_kv; i++) {
		p->pr.kv_i = i;
		g->n_kv = (size_t)i + 1;
		if ((rc = parse_kv(p, &pos, &g->kv[i])) || (rc = check_special(p, &g->kv[i])))
			return rc;
	}
	p->pr.infos_start = pos;
	for (uint64_t i = 0; i < n_t; i++) {
		p->pr.t_i = i;
		g->n_tensors = (size_t)i + 1;
		if ((rc = parse_tensor(p, &pos, &g->tensors[i])))
			return rc;
	}
	if (pos > UINT64_MAX - g->alignment)
		return fail(p, CR_ERR_PARSE, pos, "data offset overflows 64 bits");
	g->data_offset = (pos + g->alignment - 1) / g->alignment * g->alignment;
	g->infos_end = pos;
	if ((rc = index_names(p)) || (rc = check_layout(p)))
		return rc;
	for (size_t i = 0; i < g->n_tensors; i++) {
		const cr_gguf_tensor *t = &g->tensors[i];

		/* Disjoint byte ranges cannot sum past 2^64, but element counts
		 * can (up to 7 per byte for Q1_0), in a header whose data is
		 * missing (allow_truncated): refuse rather than wrap. */
		if (t->n_elements > UINT64_MAX - g->total_params)
			return fail(p, CR_ERR_PARSE, t->info_offset,
				    "tensor '%s': the parameter count overflows 64 bits", t->name);
		g->total_bytes += t->bytes;
		g->total_params += t->n_elements;
		g->type_bytes[t->type] += t->bytes;
	}
	return CR_OK;

bad_magic:
	{
		char shown[20];
		size_t k = 0;

		for (int i = 0; i < 4; i++) {
			uint8_t c = p->buf[i];

			if (c >= 0x20 && c < 0x7f && c != '\\' && c != '\'')
				shown[k++] = (char)c;
			else
				k += (size_t)snprintf(shown + k, sizeof(shown) - k, "\\x%02x", c);
		}
		shown[k] = '\0';
		/* '<': "<!DOCTYPE html>", "<html>": a web page where the file was expected. */
		return cr_setreason(p->err, p->buf[0] == '<' ? CR_REASON_WEB_PAGE : CR_REASON_NOT_GGUF,
				    fail(p, CR_ERR_PARSE, 0, "not a GGUF file (magic '%s', expected 'GGUF')", shown));
	}
}

int cr_gguf_load(cr_source *src, const cr_gguf_opts *opts, cr_gguf **out, cr_error *err)
{
	static const cr_gguf_opts defaults = CR_GGUF_OPTS_INIT;
	ps p;
	cr_gguf *g;
	int rc;

	*out = NULL;
	memset(&p, 0, sizeof(p));
	p.src = src;
	p.name = cr_source_name(src);
	p.size = cr_source_size(src);
	p.o = opts ? opts : &defaults;
	p.err = err;
	if (!p.o->first_read || !p.o->max_header_bytes || !p.o->max_array_depth)
		return cr_seterr(err, CR_ERR_INVALID, "%s: GGUF reader options with a zero limit", p.name);
	g = calloc(1, sizeof(*g));
	if (!g || !(g->name = strdup(p.name))) {
		free(g);
		return cr_seterr(err, CR_ERR_NOMEM, "%s: out of memory", p.name);
	}
	g->alignment = CR_GGUF_DEFAULT_ALIGNMENT;
	g->file_size = p.size;
	p.g = g;
	rc = parse_header(&p);
	if (rc) {
		free(p.buf);
		cr_gguf_free(g);
		return rc;
	}
	/* Keep only the header bytes (the last read may have gone further). */
	g->hdr_len = (size_t)g->infos_end;
	g->hdr = g->hdr_len ? realloc(p.buf, g->hdr_len) : NULL;
	if (!g->hdr) {
		if (g->hdr_len) {
			g->hdr = p.buf; /* shrinking failed: keep the larger block */
		} else {
			free(p.buf);
		}
	}
	*out = g;
	return CR_OK;
}

void cr_gguf_free(cr_gguf *g)
{
	if (!g)
		return;
	for (size_t i = 0; i < g->n_kv; i++)
		free((char *)g->kv[i].key);
	for (size_t i = 0; i < g->n_tensors; i++)
		free((char *)g->tensors[i].name);
	free(g->kv);
	free(g->tensors);
	free(g->kv_sorted);
	free(g->t_sorted);
	free(g->hdr);
	free(g->name);
	free(g);
}

/* ---- accessors ------------------------------------------------------------- */

uint32_t cr_gguf_version(const cr_gguf *g)
{
	return g->version;
}

const char *cr_gguf_arch(const cr_gguf *g)
{
	return g->arch;
}

const char *cr_gguf_name(const cr_gguf *g)
{
	return g->name;
}

uint32_t cr_gguf_alignment(const cr_gguf *g)
{
	return g->alignment;
}

uint64_t cr_gguf_data_offset(const cr_gguf *g)
{
	return g->data_offset;
}

uint64_t cr_gguf_file_size(const cr_gguf *g)
{
	return g->file_size;
}

size_t cr_gguf_tensor_count(const cr_gguf *g)
{
	return g->n_tensors;
}

const cr_gguf_tensor *cr_gguf_tensor_at(const cr_gguf *g, size_t i)
{
	return i < g->n_tensors ? &g->tensors[i] : NULL;
}

const cr_gguf_tensor *cr_gguf_find_tensor(const cr_gguf *g, const char *name)
{
	size_t lo = 0, hi = g->n_tensors;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const cr_gguf_tensor *t = &g->tensors[g->t_sorted[mid]];
		int c = strcmp(name, t->name);

		if (c == 0)
			return t;
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return NULL;
}

uint64_t cr_gguf_tensor_bytes(const cr_gguf *g)
{
	return g->total_bytes;
}

uint64_t cr_gguf_param_count(const cr_gguf *g)
{
	return g->total_params;
}

uint64_t cr_gguf_type_bytes(const cr_gguf *g, uint32_t type)
{
	return type < CR_GGML_TYPE_COUNT ? g->type_bytes[type] : 0;
}

size_t cr_gguf_kv_count(const cr_gguf *g)
{
	return g->n_kv;
}

const char *cr_gguf_kv_key(const cr_gguf *g, size_t i)
{
	return i < g->n_kv ? g->kv[i].key : NULL;
}

cr_gguf_type cr_gguf_kv_type(const cr_gguf *g, size_t i)
{
	return i < g->n_kv ? g->kv[i].type : CR_GGUF_TYPE_COUNT;
}

bool cr_gguf_find(const cr_gguf *g, const char *key, size_t *index)
{
	size_t lo = 0, hi = g->n_kv;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(key, g->kv[g->kv_sorted[mid]].key);

		if (c == 0) {
			if (index)
				*index = g->kv_sorted[mid];
			return true;
		}
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return false;
}

const gg_kv *gg_lookup(const cr_gguf *g, const char *key)
{
	size_t i;

	return cr_gguf_find(g, key, &i) ? &g->kv[i] : NULL;
}

const uint8_t *gg_bytes(const cr_gguf *g, uint64_t off)
{
	return g->hdr + off;
}
