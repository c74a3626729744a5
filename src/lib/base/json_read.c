/*
 * Validated reading of cJSON trees. Every failure names the file and the
 * JSON path of the value; cJSON's own global error pointer is never used
 * (cJSON_ParseWithLengthOpts returns the end position instead).
 */
#include "json_read.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "util.h"

void jr_init(jr_ctx *c, const char *file, cr_error *err)
{
	c->file = file;
	c->path[0] = '\0';
	c->path_len = 0;
	c->err = err;
}

int jr_parse(jr_ctx *c, const char *buf, size_t len, cJSON **out)
{
	const char *end = NULL;
	cJSON *root;

	*out = NULL;
	if (len == 0)
		return jr_fail(c, CR_ERR_PARSE, NULL, "empty file");
	root = cJSON_ParseWithLengthOpts(buf, len, &end, false);
	if (root && end && end >= buf && end <= buf + len) {
		/* Only whitespace may follow the document. */
		while (end < buf + len && (*end == ' ' || *end == '\t' || *end == '\n' || *end == '\r'))
			end++;
		if (end < buf + len) {
			cJSON_Delete(root);
			root = NULL;
		}
	}
	if (!root) {
		size_t off = (end && end >= buf && end <= buf + len) ? (size_t)(end - buf) : 0;
		size_t line = 1, col = 1;


		for (size_t i = 0; i < off; i++) {
			if (buf[i] == '\n') {
				line++;
				col = 1;
			} else {
				col++;
			}
		}
		if (jr_too_deep(buf, off))
			return cr_seterr(c->err, CR_ERR_PARSE,
					 "%s: JSON nested deeper than %d levels at byte %zu (line %zu, column %zu)",
					 c->file, CJSON_NESTING_LIMIT, off, line, col);
		return cr_seterr(c->err, CR_ERR_PARSE,
				 "%s: invalid JSON at byte %zu (line %zu, column %zu)",
				 c->file, off, line, col);
	}
	*out = root;
	return CR_OK;
}

bool jr_too_deep(const char *buf, size_t off)
{
	size_t depth = 0;
	bool in_str = false;

	for (size_t i = 0; i < off; i++) {
		char ch = buf[i];

		if (in_str) {
			if (ch == '\\')
				i++;
			else if (ch == '"')
				in_str = false;
		} else if (ch == '"') {
			in_str = true;
		} else if (ch == '[' || ch == '{') {
			depth++;
		} else if ((ch == ']' || ch == '}') && depth) {
			depth--;
		}
	}
	return depth >= CJSON_NESTING_LIMIT;
}

/* Append text to the path, truncating (the path only feeds messages). */
static size_t push(jr_ctx *c, const char *text)
{
	size_t saved = c->path_len;
	size_t room = sizeof(c->path) - c->path_len;
	int n = snprintf(c->path + c->path_len, room, "%s", text);

	if (n > 0)
		c->path_len += (size_t)n < room ? (size_t)n : room - 1;
	return saved;
}

size_t jr_push_key(jr_ctx *c, const char *key)
{
	char buf[JR_PATH_MAX];

	snprintf(buf, sizeof(buf), c->path_len ? ".%s" : "%s", key);
	return push(c, buf);
}

size_t jr_push_index(jr_ctx *c, size_t i)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "[%zu]", i);
	return push(c, buf);
}

void jr_pop(jr_ctx *c, size_t saved_len)
{
	c->path_len = saved_len;
	c->path[saved_len] = '\0';
}

int jr_fail_(jr_ctx *c, int status, const char *key, const char *fmt, ...)
{
	char what[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	if (key)
		return cr_seterr(c->err, status, "%s: %s%s%s: %s", c->file, c->path,
				 c->path_len ? "." : "", key, what);
	if (c->path_len)
		return cr_seterr(c->err, status, "%s: %s: %s", c->file, c->path, what);
	return cr_seterr(c->err, status, "%s: %s", c->file, what);
}

int jr_check_keys(jr_ctx *c, const cJSON *obj, const char *const *allowed)
{
	for (const cJSON *it = obj->child; it; it = it->next) {
		bool known = false;

		for (const char *const *a = allowed; *a; a++) {
			if (strcmp(*a, it->string) == 0) {
				known = true;
				break;
			}
		}
		if (!known)
			return jr_fail(c, CR_ERR_INVALID, it->string, "unknown field");
		for (const cJSON *dup = it->next; dup; dup = dup->next) {
			if (strcmp(dup->string, it->string) == 0)
				return jr_fail(c, CR_ERR_INVALID, it->string, "duplicate field");
		}
	}
	return CR_OK;
}

static const cJSON *get(const cJSON *obj, const char *key)
{
	return cJSON_GetObjectItemCaseSensitive(obj, key);
}

int jr_req_object(jr_ctx *c, const cJSON *obj, const char *key, const cJSON **out)
{
	const cJSON *v = get(obj, key);

	if (!v)
		return jr_fail(c, CR_ERR_INVALID, key, "missing field (expected an object)");
	if (!cJSON_IsObject(v))
		return jr_fail(c, CR_ERR_INVALID, key, "expected an object");
	*out = v;
	return CR_OK;
}

int jr_req_array(jr_ctx *c, const cJSON *obj, const char *key, const cJSON **out)
{
	const cJSON *v = get(obj, key);

	if (!v)
		return jr_fail(c, CR_ERR_INVALID, key, "missing field (expected an array)");
	if (!cJSON_IsArray(v))
		return jr_fail(c, CR_ERR_INVALID, key, "expected an array");
	*out = v;
	return CR_OK;
}

int jr_as_string(jr_ctx *c, const cJSON *v, const char *key, char *buf, size_t cap)
{
	size_t n;

	if (!cJSON_IsString(v) || !v->valuestring)
		return jr_fail(c, CR_ERR_INVALID, key, "expected a string");
	n = strlen(v->valuestring);
	if (n >= cap)
		return jr_fail(c, CR_ERR_INVALID, key, "string too long (%zu bytes, at most %zu)",
			       n, cap - 1);
	if (!cr_utf8_valid(v->valuestring, n))
		return jr_fail(c, CR_ERR_INVALID, key, "invalid UTF-8");
	memcpy(buf, v->valuestring, n + 1);
	return CR_OK;
}

int jr_req_string(jr_ctx *c, const cJSON *obj, const char *key, char *buf, size_t cap)
{
	const cJSON *v = get(obj, key);

	if (!v)
		return jr_fail(c, CR_ERR_INVALID, key, "missing field (expected a string)");
	return jr_as_string(c, v, key, buf, cap);
}

int jr_opt_string(jr_ctx *c, const cJSON *obj, const char *key, char *buf, size_t cap)
{
	const cJSON *v = get(obj, key);

	return v ? jr_as_string(c, v, key, buf, cap) : CR_OK;
}

static int as_number(jr_ctx *c, const cJSON *v, const char *key, double lo, double hi,
		     double *out)
{
	if (!cJSON_IsNumber(v))
		return jr_fail(c, CR_ERR_INVALID, key, "expected a number");
	if (!isfinite(v->valuedouble) || v->valuedouble < lo || v->valuedouble > hi) {
		if (lo > 0)
			return jr_fail(c, CR_ERR_INVALID, key,
				       "expected a positive number (%g to %g), got %g", lo, hi,
				       v->valuedouble);
		return jr_fail(c, CR_ERR_INVALID, key, "expected a number from %g to %g, got %g",
			       lo, hi, v->valuedouble);
	}
	*out = v->valuedouble;
	return CR_OK;
}

int jr_req_number(jr_ctx *c, const cJSON *obj, const char *key, double lo, double hi,
		  double *out)
{
	const cJSON *v = get(obj, key);

	if (!v)
		return jr_fail(c, CR_ERR_INVALID, key, "missing field (expected a number)");
	return as_number(c, v, key, lo, hi, out);
}

int jr_opt_number(jr_ctx *c, const cJSON *obj, const char *key, double lo, double hi,
		  double *out)
{
	const cJSON *v = get(obj, key);

	return v ? as_number(c, v, key, lo, hi, out) : CR_OK;
}

int jr_as_uint(jr_ctx *c, const cJSON *v, const char *key, uint64_t lo, uint64_t hi,
	       uint64_t *out)
{
	double d;

	if (!cJSON_IsNumber(v))
		return jr_fail(c, CR_ERR_INVALID, key, "expected an integer");
	d = v->valuedouble;
	/* 2^53: beyond it a double no longer holds every integer. */
	if (!isfinite(d) || d != floor(d) || d < 0 || d > 9007199254740992.0 ||
	    (uint64_t)d < lo || (uint64_t)d > hi)
		return jr_fail(c, CR_ERR_INVALID, key,
			       "expected an integer from %llu to %llu, got %g",
			       (unsigned long long)lo, (unsigned long long)hi, d);
	*out = (uint64_t)d;
	return CR_OK;
}

int jr_req_uint(jr_ctx *c, const cJSON *obj, const char *key, uint64_t lo, uint64_t hi,
		uint64_t *out)
{
	const cJSON *v = get(obj, key);

	if (!v)
		return jr_fail(c, CR_ERR_INVALID, key, "missing field (expected an integer)");
	return jr_as_uint(c, v, key, lo, hi, out);
}

int jr_opt_uint(jr_ctx *c, const cJSON *obj, const char *key, uint64_t lo, uint64_t hi,
		uint64_t *out)
{
	const cJSON *v = get(obj, key);

	return v ? jr_as_uint(c, v, key, lo, hi, out) : CR_OK;
}

static int as_bool(jr_ctx *c, const cJSON *v, const char *key, bool *out)
{
	if (!cJSON_IsBool(v))
		return jr_fail(c, CR_ERR_INVALID, key, "expected true or false");
	*out = cJSON_IsTrue(v);
	return CR_OK;
}

int jr_req_bool(jr_ctx *c, const cJSON *obj, const char *key, bool *out)
{
	const cJSON *v = get(obj, key);

	if (!v)
		return jr_fail(c, CR_ERR_INVALID, key, "missing field (expected true or false)");
	return as_bool(c, v, key, out);
}

int jr_opt_bool(jr_ctx *c, const cJSON *obj, const char *key, bool *out)
{
	const cJSON *v = get(obj, key);

	return v ? as_bool(c, v, key, out) : CR_OK;
}

int jr_check_id(jr_ctx *c, const char *key, const char *id, bool upper)
{
	if (!id[0])
		return jr_fail(c, CR_ERR_INVALID, key, "empty id");
	if (strlen(id) >= CR_JR_ID_MAX)
		return jr_fail(c, CR_ERR_INVALID, key, "id longer than %d characters", CR_JR_ID_MAX - 1);
	for (const char *p = id; *p; p++) {
		char ch = *p;
		bool ok;

		if (upper)
			ok = (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '_';
		else
			ok = (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') ||
			     (p != id && (ch == '.' || ch == '+' || ch == '_' || ch == '-'));
		if (!ok)
			return jr_fail(c, CR_ERR_INVALID, key,
				       "invalid id \"%s\" (allowed: %s)", id,
				       upper ? "A-Z 0-9 _" : "a-z 0-9, then . + _ -");
	}
	return CR_OK;
}
