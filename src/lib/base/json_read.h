/*
 * Validated reading of cJSON trees with error messages that name the file
 * and the JSON path ("data/rigs.json: rigs[3].devices[0].bandwidth_gbs:
 * expected a positive number"). Internal to the library.
 */
#ifndef CLEFRUN_JSON_READ_H
#define CLEFRUN_JSON_READ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "clefrun/error.h"
#include "util.h"

/** Longest JSON path kept in messages. */
#define JR_PATH_MAX 192

typedef struct jr_ctx {
	const char *file;          /* name used in messages */
	char path[JR_PATH_MAX];    /* current path, "" at the root */
	size_t path_len;
	cr_error *err;             /* may be NULL */
} jr_ctx;

void jr_init(jr_ctx *c, const char *file, cr_error *err);

/* Parse a buffer; on a syntax error report the byte offset, line and column. */
int jr_parse(jr_ctx *c, const char *buf, size_t len, cJSON **out);

/* True when a parse that failed at byte off failed because the text is
 * nested deeper than cJSON's limit (CJSON_NESTING_LIMIT, 1000), so that
 * the message can say so instead of "invalid JSON". */
bool jr_too_deep(const char *buf, size_t off);

/* Push ".key" or "[i]" onto the path; jr_pop restores the previous length. */
size_t jr_push_key(jr_ctx *c, const char *key);
size_t jr_push_index(jr_ctx *c, size_t i);
void jr_pop(jr_ctx *c, size_t saved_len);

/* Report an error at the current path (+ optional key). Returns status
 * (visibly, through the macro, as cr_seterr in util.h does). */
int jr_fail_(jr_ctx *c, int status, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
#define jr_fail(c, status, ...) cr_status_of(jr_fail_((c), (status), __VA_ARGS__), (status))

/* Reject keys not in the NULL-terminated list and duplicated keys. */
int jr_check_keys(jr_ctx *c, const cJSON *obj, const char *const *allowed);

/* Typed getters. `req_*` fail when the key is absent; `opt_*` leave *out as is. */
int jr_req_object(jr_ctx *c, const cJSON *obj, const char *key, const cJSON **out);
int jr_req_array(jr_ctx *c, const cJSON *obj, const char *key, const cJSON **out);
int jr_req_string(jr_ctx *c, const cJSON *obj, const char *key, char *buf, size_t cap);
int jr_opt_string(jr_ctx *c, const cJSON *obj, const char *key, char *buf, size_t cap);
int jr_req_number(jr_ctx *c, const cJSON *obj, const char *key, double lo, double hi, double *out);
int jr_opt_number(jr_ctx *c, const cJSON *obj, const char *key, double lo, double hi, double *out);
int jr_req_uint(jr_ctx *c, const cJSON *obj, const char *key, uint64_t lo, uint64_t hi, uint64_t *out);
int jr_opt_uint(jr_ctx *c, const cJSON *obj, const char *key, uint64_t lo, uint64_t hi, uint64_t *out);
int jr_req_bool(jr_ctx *c, const cJSON *obj, const char *key, bool *out);
int jr_opt_bool(jr_ctx *c, const cJSON *obj, const char *key, bool *out);

/* Check a value already fetched (for array elements). */
int jr_as_uint(jr_ctx *c, const cJSON *item, const char *key, uint64_t lo, uint64_t hi, uint64_t *out);
int jr_as_string(jr_ctx *c, const cJSON *item, const char *key, char *buf, size_t cap);

/* Ids: [a-z0-9][a-z0-9.+_-]* (lower) or [A-Z0-9_]+ (upper), shorter than CR_JR_ID_MAX. */
#define CR_JR_ID_MAX 48
int jr_check_id(jr_ctx *c, const char *key, const char *id, bool upper);

#endif
