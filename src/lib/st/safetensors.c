/*
 * The safetensors header reader (safetensors.h has the byte layout).
 *
 * Every byte is untrusted: the length is capped before anything is
 * allocated, the JSON goes through jr_parse (its syntax errors name the
 * byte), each tensor entry is checked key by key, and the tensors sorted by
 * their data_offsets must tile the data from 0 without a gap or an overlap
 * (the rule of the safetensors crate's Metadata::validate,
 * safetensors/src/tensor.rs: "InvalidOffset"). Offsets are JSON numbers,
 * which cJSON holds as doubles: values above 2^53 cannot be told apart and
 * are refused.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "clefrun/safetensors.h"
#include "json_read.h"
#include "util.h"

/* Bits per element, from the safetensors crate's Dtype::bitsize
 * (safetensors/src/tensor.rs). */
static const struct {
	const char *name;
	unsigned bits;
} st_types[CR_ST_DTYPE_COUNT] = {
	[CR_ST_BOOL] = { "BOOL", 8 },       [CR_ST_F4] = { "F4", 4 },
	[CR_ST_F6_E2M3] = { "F6_E2M3", 6 }, [CR_ST_F6_E3M2] = { "F6_E3M2", 6 },
	[CR_ST_U8] = { "U8", 8 },           [CR_ST_I8] = { "I8", 8 },
	[CR_ST_F8_E5M2] = { "F8_E5M2", 8 }, [CR_ST_F8_E4M3] = { "F8_E4M3", 8 },
	[CR_ST_F8_E8M0] = { "F8_E8M0", 8 }, [CR_ST_I16] = { "I16", 16 },
	[CR_ST_U16] = { "U16", 16 },        [CR_ST_F16] = { "F16", 16 },
	[CR_ST_BF16] = { "BF16", 16 },      [CR_ST_I32] = { "I32", 32 },
	[CR_ST_U32] = { "U32", 32 },        [CR_ST_F32] = { "F32", 32 },
	[CR_ST_F64] = { "F64", 64 },        [CR_ST_I64] = { "I64", 64 },
	[CR_ST_U64] = { "U64", 64 },        [CR_ST_C64] = { "C64", 64 },
};

/* The largest integer a double holds exactly. */
#define ST_EXACT_MAX 9007199254740992.0

const char *cr_st_dtype_name(cr_st_dtype t)
{
	return (unsigned)t < CR_ST_DTYPE_COUNT ? st_types[t].name : "?";
}

unsigned cr_st_dtype_bits(cr_st_dtype t)
{
	return (unsigned)t < CR_ST_DTYPE_COUNT ? st_types[t].bits : 0;
}

int cr_st_dtype_parse(const char *s, cr_st_dtype *out)
{
	for (unsigned i = 0; i < CR_ST_DTYPE_COUNT; i++) {
		if (strcmp(s, st_types[i].name) == 0) {
			*out = (cr_st_dtype)i;
			return CR_OK;
		}
	}
	return CR_ERR_INVALID;
}

void cr_st_free(cr_st_header *h)
{
	if (!h)
		return;
	for (size_t i = 0; i < h->n_tensors; i++)
		free(h->tensors[i].name);
	free(h->tensors);
	free(h);
}

static uint64_t le64(const unsigned char *p)
{
	uint64_t v = 0;

	for (int i = 7; i >= 0; i--)
		v = (v << 8) | p[i];
	return v;
}

/* A non-negative integer below 2^53 from a JSON number. */
static bool st_uint(const cJSON *item, uint64_t *out)
{
	double d;

	if (!cJSON_IsNumber(item))
		return false;
	d = item->valuedouble;
	if (!(d >= 0.0) || d > ST_EXACT_MAX || d != (double)(uint64_t)d)
		return false;
	*out = (uint64_t)d;
	return true;
}

typedef struct st_ctx {
	const char *name;
	cr_error *err;
	uint64_t data_start;
} st_ctx;

/* "NAME: tensor 'T': byte OFF: what": the tensor's name is untrusted text,
 * so only printable ASCII of it goes into the message. */
static void st_safe_name(const char *s, char *buf, size_t cap)
{
	size_t o = 0;

	for (; *s && o + 1 < cap; s++) {
		unsigned char c = (unsigned char)*s;

		buf[o++] = (c >= 0x20 && c < 0x7f) ? (char)c : '?';
	}
	buf[o] = '\0';
	if (*s && cap > 4)
		memcpy(buf + cap - 4, "...", 4);
}

static int st_bad_tensor(const st_ctx *c, int status, const char *tensor, uint64_t off, const char *what)
{
	char shown[96];

	st_safe_name(tensor, shown, sizeof(shown));
	return cr_seterr(c->err, status, "%s: tensor '%s': byte %" PRIu64 ": %s", c->name, shown, off,
			 what);
}

static int st_tensor(const st_ctx *c, const cJSON *obj, cr_st_tensor *t)
{
	const cJSON *dt = NULL, *shape = NULL, *offs = NULL, *it;
	uint64_t el = 1, bits, begin, end;
	char msg[160];
	unsigned n_keys = 0;

	if (!cJSON_IsObject(obj))
		return st_bad_tensor(c, CR_ERR_PARSE, t->name, c->data_start,
				     "expected an object with dtype, shape and data_offsets");
	cJSON_ArrayForEach(it, obj)
	{
		n_keys++;
		if (!it->string)
			continue;
		if (strcmp(it->string, "dtype") == 0 && !dt)
			dt = it;
		else if (strcmp(it->string, "shape") == 0 && !shape)
			shape = it;
		else if (strcmp(it->string, "data_offsets") == 0 && !offs)
			offs = it;
		else {
			char k[48];

			st_safe_name(it->string, k, sizeof(k));
			snprintf(msg, sizeof(msg), "unexpected or repeated key '%s'", k);
			return st_bad_tensor(c, CR_ERR_PARSE, t->name, c->data_start, msg);
		}
	}
	if (!dt || !shape || !offs || n_keys != 3)
		return st_bad_tensor(c, CR_ERR_PARSE, t->name, c->data_start,
				     "expected the keys dtype, shape and data_offsets");
	if (!cJSON_IsString(dt) || !dt->valuestring)
		return st_bad_tensor(c, CR_ERR_PARSE, t->name, c->data_start, "dtype: expected a string");
	if (cr_st_dtype_parse(dt->valuestring, &t->dtype) != 0) {
		char d[32];

		st_safe_name(dt->valuestring, d, sizeof(d));
		snprintf(msg, sizeof(msg), "dtype: unknown type '%s'", d);
		return st_bad_tensor(c, CR_ERR_INVALID, t->name, c->data_start, msg);
	}
	if (!cJSON_IsArray(shape))
		return st_bad_tensor(c, CR_ERR_PARSE, t->name, c->data_start,
				     "shape: expected an array of integers");
	t->n_dims = 0;
	cJSON_ArrayForEach(it, shape)
	{
		uint64_t d;

		if (t->n_dims >= CR_ST_MAX_DIMS) {
			snprintf(msg, sizeof(msg), "shape: more than %d dimensions", CR_ST_MAX_DIMS);
			return st_bad_tensor(c, CR_ERR_INVALID, t->name, c->data_start, msg);
		}
		if (!st_uint(it, &d))
			return st_bad_tensor(c, CR_ERR_PARSE, t->name, c->data_start,
					     "shape: expected non-negative integers below 2^53");
		if (d != 0 && el > UINT64_MAX / d)
			return st_bad_tensor(c, CR_ERR_INVALID, t->name, c->data_start,
					     "shape: the element count overflows 64 bits");
		el *= d;
		t->shape[t->n_dims++] = d;
	}
	t->elements = el;
	if (!cJSON_IsArray(offs) || cJSON_GetArraySize(offs) != 2 ||
	    !st_uint(cJSON_GetArrayItem(offs, 0), &begin) || !st_uint(cJSON_GetArrayItem(offs, 1), &end))
		return st_bad_tensor(c, CR_ERR_PARSE, t->name, c->data_start,
				     "data_offsets: expected [BEGIN, END], integers below 2^53");
	if (end < begin)
		return st_bad_tensor(c, CR_ERR_INVALID, t->name, c->data_start + begin,
				     "data_offsets: END before BEGIN");
	bits = cr_st_dtype_bits(t->dtype);
	if (bits == 0 || el > UINT64_MAX / bits) /* bits: never 0 for a parsed dtype */
		return st_bad_tensor(c, CR_ERR_INVALID, t->name, c->data_start + begin,
				     "shape: the size in bits overflows 64 bits");
	if ((el * bits) % 8 != 0) {
		snprintf(msg, sizeof(msg), "%" PRIu64 " elements of %s do not fill whole bytes", el,
			 cr_st_dtype_name(t->dtype));
		return st_bad_tensor(c, CR_ERR_INVALID, t->name, c->data_start + begin, msg);
	}
	if (end - begin != el * bits / 8) {
		snprintf(msg, sizeof(msg),
			 "data_offsets span %" PRIu64 " bytes, the shape of %s needs %" PRIu64, end - begin,
			 cr_st_dtype_name(t->dtype), el * bits / 8);
		return st_bad_tensor(c, CR_ERR_INVALID, t->name, c->data_start + begin, msg);
	}
	t->begin = begin;
	t->end = end;
	return CR_OK;
}

static int st_cmp_begin(const void *a, const void *b)
{
	const cr_st_tensor *x = a, *y = b;

	if (x->begin != y->begin)
		return x->begin < y->begin ? -1 : 1;
	/* Zero-length tensors share a BEGIN with their neighbour: the empty one first. */
	if (x->end != y->end)
		return x->end < y->end ? -1 : 1;
	return strcmp(x->name, y->name);
}

static int st_cmp_name(const void *a, const void *b)
{
	const cr_st_tensor *const *x = a, *const *y = b;

	return strcmp((*x)->name, (*y)->name);
}

/* cJSON keeps repeated keys; a name given twice is refused. */
static int st_unique_names(const st_ctx *c, const cr_st_header *h)
{
	const cr_st_tensor **by_name;
	int rc = CR_OK;

	if (h->n_tensors < 2)
		return CR_OK;
	by_name = malloc(h->n_tensors * sizeof(*by_name));
	if (!by_name)
		return cr_seterr(c->err, CR_ERR_NOMEM, "%s: out of memory", c->name);
	for (size_t i = 0; i < h->n_tensors; i++)
		by_name[i] = &h->tensors[i];
	qsort(by_name, h->n_tensors, sizeof(*by_name), st_cmp_name);
	for (size_t i = 1; i < h->n_tensors; i++) {
		if (strcmp(by_name[i]->name, by_name[i - 1]->name) == 0) {
			rc = st_bad_tensor(c, CR_ERR_PARSE, by_name[i]->name, c->data_start + by_name[i]->begin,
					   "the name appears twice");
			break;
		}
	}
	free(by_name);
	return rc;
}

static int st_metadata(const st_ctx *c, const cJSON *md, cr_st_header *h)
{
	const cJSON *it;

	if (!cJSON_IsObject(md))
		return cr_seterr(c->err, CR_ERR_PARSE, "%s: byte 8: __metadata__: expected an object of strings",
				 c->name);
	cJSON_ArrayForEach(it, md)
	{
		if (!cJSON_IsString(it) || !it->valuestring)
			return cr_seterr(c->err, CR_ERR_PARSE,
					 "%s: byte 8: __metadata__: expected an object of strings", c->name);
		if (it->string && strcmp(it->string, "format") == 0)
			st_safe_name(it->valuestring, h->format, sizeof(h->format));
		h->n_metadata++;
	}
	return CR_OK;
}

static int st_parse_json(const st_ctx *c, const char *json, size_t n, uint64_t file_size, bool allow_truncated,
			 cr_st_header *h)
{
	jr_ctx jc;
	cJSON *root = NULL;
	const cJSON *it;
	size_t n_items = 0, k = 0;
	bool seen_md = false;
	int rc;

	if (!cr_utf8_valid(json, n))
		return cr_seterr(c->err, CR_ERR_PARSE, "%s: byte 8: the header is not valid UTF-8", c->name);
	jr_init(&jc, c->name, c->err);
	if (jr_parse(&jc, json, n, &root) != 0) {
		/* jr_parse counts from the header's first byte; the file has 8 before it. */
		if (c->err) {
			char inner[CR_ERROR_MSG_MAX];

			cr_strlcpy(inner, c->err->message, sizeof(inner));
			cr_seterr(c->err, CR_ERR_PARSE, "%s (in the header, which starts at byte 8)", inner);
		}
		return CR_ERR_PARSE;
	}
	if (!cJSON_IsObject(root)) {
		cJSON_Delete(root);
		return cr_seterr(c->err, CR_ERR_PARSE, "%s: byte 8: the header is not a JSON object", c->name);
	}
	cJSON_ArrayForEach(it, root)
	{
		n_items++;
	}
	if (n_items > CR_ST_MAX_TENSORS + 1) {
		cJSON_Delete(root);
		return cr_seterr(c->err, CR_ERR_INVALID, "%s: byte 8: more than %u tensors", c->name,
				 CR_ST_MAX_TENSORS);
	}
	h->tensors = calloc(n_items ? n_items : 1, sizeof(*h->tensors));
	if (!h->tensors) {
		cJSON_Delete(root);
		return cr_seterr(c->err, CR_ERR_NOMEM, "%s: out of memory", c->name);
	}
	rc = CR_OK;
	cJSON_ArrayForEach(it, root)
	{
		const char *key = it->string ? it->string : "";
		size_t kl = strlen(key);

		if (strcmp(key, "__metadata__") == 0) {
			if (seen_md) {
				rc = cr_seterr(c->err, CR_ERR_PARSE, "%s: byte 8: __metadata__ twice", c->name);
				break;
			}
			seen_md = true;
			if ((rc = st_metadata(c, it, h)) != 0)
				break;
			continue;
		}
		if (kl == 0 || kl > CR_ST_NAME_MAX) {
			rc = cr_seterr(c->err, CR_ERR_INVALID, "%s: byte 8: a tensor name empty or longer than %u bytes",
				       c->name, CR_ST_NAME_MAX);
			break;
		}
		h->tensors[k].name = malloc(kl + 1);
		if (!h->tensors[k].name) {
			rc = cr_seterr(c->err, CR_ERR_NOMEM, "%s: out of memory", c->name);
			break;
		}
		memcpy(h->tensors[k].name, key, kl + 1);
		h->n_tensors = ++k;
		if ((rc = st_tensor(c, it, &h->tensors[k - 1])) != 0)
			break;
	}
	cJSON_Delete(root);
	if (rc != 0)
		return rc;

	qsort(h->tensors, h->n_tensors, sizeof(*h->tensors), st_cmp_begin);
	for (size_t i = 0; i < h->n_tensors; i++) {
		const cr_st_tensor *t = &h->tensors[i];
		uint64_t expect = i ? h->tensors[i - 1].end : 0;

		if (t->begin != expect)
			return st_bad_tensor(c, CR_ERR_INVALID, t->name, c->data_start + t->begin,
					     t->begin < expect ? "its data overlaps the tensor before it"
							       : "a gap before its data (tensors must tile the data)");
		h->type_bytes[t->dtype] += t->end - t->begin;
		h->type_elements[t->dtype] += t->elements;
	}
	if ((rc = st_unique_names(c, h)) != 0)
		return rc;
	h->data_bytes = h->n_tensors ? h->tensors[h->n_tensors - 1].end : 0;
	if (h->data_bytes > file_size - c->data_start) {
		const cr_st_tensor *t = &h->tensors[h->n_tensors - 1];

		if (!allow_truncated || file_size != c->data_start) {
			char msg[160];

			snprintf(msg, sizeof(msg), "the data ends at byte %" PRIu64 ", the file has %" PRIu64,
				 c->data_start + h->data_bytes, file_size);
			return cr_setreason(c->err, CR_REASON_TRUNCATED,
					    st_bad_tensor(c, CR_ERR_PARSE, t->name, c->data_start + t->begin, msg));
		}
		h->truncated = true;
	} else if (h->data_bytes < file_size - c->data_start) {
		return cr_seterr(c->err, CR_ERR_INVALID,
				 "%s: byte %" PRIu64 ": %" PRIu64 " bytes after the last tensor's data", c->name,
				 c->data_start + h->data_bytes, file_size - c->data_start - h->data_bytes);
	}
	return CR_OK;
}

static int st_check_len(const st_ctx *c, uint64_t n, uint64_t cap, uint64_t file_size)
{
	if (n < 2)
		return cr_seterr(c->err, CR_ERR_PARSE, "%s: byte 0: header length %" PRIu64 " (not safetensors)",
				 c->name, n);
	if (n > cap)
		return cr_seterr(c->err, CR_ERR_PARSE,
				 "%s: byte 0: header length %" PRIu64 " is above the limit of %" PRIu64
				 " bytes (not safetensors, or a damaged file)",
				 c->name, n, cap);
	if (n > file_size - 8)
		return cr_setreason(c->err, CR_REASON_TRUNCATED,
				    cr_seterr(c->err, CR_ERR_PARSE,
					      "%s: byte 0: header length %" PRIu64 ", the file has %" PRIu64
					      " bytes after the length",
					      c->name, n, file_size - 8));
	return CR_OK;
}

static int st_parse_common(const unsigned char *len8, const char *json, size_t json_len, uint64_t file_size,
			   const char *name, const cr_st_opts *opts, cr_st_header **out, cr_error *err)
{
	cr_st_opts def = CR_ST_OPTS_INIT;
	st_ctx c = { .name = name ? name : "safetensors", .err = err, .data_start = 0 };
	cr_st_header *h;
	uint64_t n = le64(len8);
	int rc;

	if (!opts)
		opts = &def;
	c.data_start = 8 + n;
	if (json_len < n)
		return cr_setreason(err, CR_REASON_TRUNCATED,
				    cr_seterr(err, CR_ERR_PARSE, "%s: byte %zu: the header (%" PRIu64 " bytes) is cut",
					      c.name, 8 + json_len, n));
	h = calloc(1, sizeof(*h));
	if (!h)
		return cr_seterr(err, CR_ERR_NOMEM, "%s: out of memory", c.name);
	h->header_len = n;
	h->data_start = 8 + n;
	h->file_size = file_size;
	rc = st_parse_json(&c, json, (size_t)n, file_size, opts->allow_truncated, h);
	if (rc != 0) {
		cr_st_free(h);
		return rc;
	}
	*out = h;
	return CR_OK;
}

static uint64_t st_cap(const cr_st_opts *opts)
{
	if (!opts || opts->max_header == 0 || opts->max_header > CR_ST_HEADER_MAX)
		return CR_ST_HEADER_MAX;
	return opts->max_header;
}

int cr_st_parse(const void *buf, size_t len, uint64_t file_size, const char *name, const cr_st_opts *opts,
		cr_st_header **out, cr_error *err)
{
	st_ctx c = { .name = name ? name : "safetensors", .err = err, .data_start = 0 };
	const unsigned char *p = buf;
	int rc;

	*out = NULL;
	if (len < 8 || file_size < 8)
		return cr_setreason(err, CR_REASON_TRUNCATED,
				    cr_seterr(err, CR_ERR_PARSE, "%s: byte 0: %" PRIu64 " bytes, shorter than the 8-byte length",
					      c.name, file_size < len ? file_size : (uint64_t)len));
	if (file_size < len)
		len = (size_t)file_size;
	if ((rc = st_check_len(&c, le64(p), st_cap(opts), file_size)) != 0)
		return rc;
	return st_parse_common(p, (const char *)p + 8, len - 8, file_size, name, opts, out, err);
}

int cr_st_read(cr_source *src, const cr_st_opts *opts, cr_st_header **out, cr_error *err)
{
	st_ctx c = { .name = cr_source_name(src), .err = err, .data_start = 0 };
	unsigned char len8[8];
	uint64_t size = cr_source_size(src), n;
	char *json;
	int rc;

	*out = NULL;
	if (size < 8)
		return cr_setreason(err, CR_REASON_TRUNCATED,
				    cr_seterr(err, CR_ERR_PARSE, "%s: byte 0: %" PRIu64 " bytes, shorter than the 8-byte length",
					      c.name, size));
	if ((rc = cr_source_read(src, 0, len8, 8, err)) != 0)
		return rc;
	n = le64(len8);
	if ((rc = st_check_len(&c, n, st_cap(opts), size)) != 0)
		return rc;
	json = malloc((size_t)n);
	if (!json)
		return cr_seterr(err, CR_ERR_NOMEM, "%s: out of memory (a %" PRIu64 "-byte header)", c.name, n);
	rc = cr_source_read(src, 8, json, (size_t)n, err);
	if (rc == 0)
		rc = st_parse_common(len8, json, (size_t)n, size, c.name, opts, out, err);
	free(json);
	return rc;
}
