/*
 * The safetensors header reader: valid headers built in memory (bytes by
 * dtype, sub-byte packing, the truncated option) and hostile ones, each
 * asserting the exact status and message with its byte offset.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "clefrun/clefrun.h"

/* A file: 8-byte length, the JSON, then data_len zero bytes. */
static unsigned char *mk(const char *json, uint64_t data_len, size_t *len)
{
	size_t n = strlen(json);
	unsigned char *p = calloc(1, 8 + n + (size_t)data_len);

	assert_non_null(p);
	for (int i = 0; i < 8; i++)
		p[i] = (unsigned char)((uint64_t)n >> (8 * i));
	memcpy(p + 8, json, n);
	*len = 8 + n + (size_t)data_len;
	return p;
}

static void expect_fail_n(const char *json, uint64_t data_len, int status, const char *msg)
{
	size_t len;
	unsigned char *p = mk(json, data_len, &len);
	cr_st_header *h = (cr_st_header *)1;
	cr_error err = CR_ERROR_INIT;
	int rc = cr_st_parse(p, len, len, "m.safetensors", NULL, &h, &err);

	assert_null(h);
	assert_int_equal(rc, status);
	assert_int_equal(err.status, status);
	assert_string_equal(err.message, msg);
	free(p);
}

static void test_valid(void **state)
{
	const char *json = "{\"__metadata__\":{\"format\":\"pt\"},"
			   "\"b\":{\"dtype\":\"F8_E4M3\",\"shape\":[4,8],\"data_offsets\":[24,56]},"
			   "\"a\":{\"dtype\":\"BF16\",\"shape\":[2,6],\"data_offsets\":[0,24]},"
			   "\"s\":{\"dtype\":\"F32\",\"shape\":[],\"data_offsets\":[56,60]},"
			   "\"q\":{\"dtype\":\"F4\",\"shape\":[3,2],\"data_offsets\":[60,63]},"
			   "\"z\":{\"dtype\":\"I32\",\"shape\":[0,5],\"data_offsets\":[63,63]}}";
	size_t len;
	unsigned char *p = mk(json, 63, &len);
	cr_st_header *h = NULL;
	cr_error err = CR_ERROR_INIT;
	cr_source *src = NULL;

	(void)state;
	assert_int_equal(cr_st_parse(p, len, len, "m", NULL, &h, &err), 0);
	assert_int_equal(h->n_tensors, 5);
	assert_string_equal(h->tensors[0].name, "a"); /* sorted by data_offsets */
	assert_string_equal(h->tensors[1].name, "b");
	assert_int_equal(h->tensors[1].elements, 32);
	assert_int_equal(h->tensors[2].n_dims, 0);
	assert_int_equal(h->tensors[2].elements, 1);
	assert_int_equal(h->type_bytes[CR_ST_BF16], 24);
	assert_int_equal(h->type_bytes[CR_ST_F8_E4M3], 32);
	assert_int_equal(h->type_bytes[CR_ST_F4], 3);
	assert_int_equal(h->type_elements[CR_ST_F4], 6);
	assert_int_equal(h->data_bytes, 63);
	assert_int_equal(h->data_start, 8 + strlen(json));
	assert_string_equal(h->format, "pt");
	assert_int_equal(h->n_metadata, 1);
	assert_false(h->truncated);
	cr_st_free(h);

	/* The same through a source. */
	assert_int_equal(cr_source_open_memory(p, len, "mem", false, &src, &err), 0);
	assert_int_equal(cr_st_read(src, NULL, &h, &err), 0);
	assert_int_equal(h->n_tensors, 5);
	cr_st_free(h);
	cr_source_free(src);

	/* Header only: refused unless allowed. */
	{
		size_t hl = 8 + strlen(json);
		cr_st_opts o = CR_ST_OPTS_INIT;

		assert_int_equal(cr_st_parse(p, hl, hl, "m", NULL, &h, &err), CR_ERR_PARSE);
		assert_int_equal(err.reason, CR_REASON_TRUNCATED);
		o.allow_truncated = true;
		assert_int_equal(cr_st_parse(p, hl, hl, "m", &o, &h, &err), 0);
		assert_true(h->truncated);
		assert_int_equal(h->data_bytes, 63);
		cr_st_free(h);
	}
	free(p);
	cr_st_free(NULL);
}

static void test_dtypes(void **state)
{
	cr_st_dtype t;

	(void)state;
	assert_int_equal(cr_st_dtype_bits(CR_ST_F8_E5M2), 8);
	assert_int_equal(cr_st_dtype_bits(CR_ST_U8), 8);
	assert_int_equal(cr_st_dtype_bits(CR_ST_I32), 32);
	assert_int_equal(cr_st_dtype_bits(CR_ST_F6_E2M3), 6);
	assert_int_equal(cr_st_dtype_bits(CR_ST_DTYPE_COUNT), 0);
	assert_string_equal(cr_st_dtype_name(CR_ST_F8_E8M0), "F8_E8M0");
	assert_string_equal(cr_st_dtype_name(CR_ST_DTYPE_COUNT), "?");
	for (unsigned i = 0; i < CR_ST_DTYPE_COUNT; i++) {
		assert_int_equal(cr_st_dtype_parse(cr_st_dtype_name((cr_st_dtype)i), &t), 0);
		assert_int_equal(t, i);
	}
	assert_int_equal(cr_st_dtype_parse("bf16", &t), CR_ERR_INVALID);
}

#define T(j) "{\"t\":" j "}"

static void test_hostile(void **state)
{
	(void)state;
	/* Offsets within the file are 8 + header length + BEGIN. */
	expect_fail_n(T("{\"dtype\":\"BF17\",\"shape\":[2],\"data_offsets\":[0,4]}"), 4, CR_ERR_INVALID,
		      "m.safetensors: tensor 't': byte 63: dtype: unknown type 'BF17'");
	expect_fail_n(T("{\"dtype\":\"BF16\",\"shape\":[2],\"data_offsets\":[0,5]}"), 5, CR_ERR_INVALID,
		      "m.safetensors: tensor 't': byte 63: data_offsets span 5 bytes, the shape of BF16 needs 4");
	expect_fail_n(T("{\"dtype\":\"BF16\",\"shape\":[4294967296,4294967296],\"data_offsets\":[0,4]}"), 4,
		      CR_ERR_INVALID, "m.safetensors: tensor 't': byte 83: shape: the element count overflows 64 bits");
	expect_fail_n(T("{\"dtype\":\"F4\",\"shape\":[3],\"data_offsets\":[0,2]}"), 2, CR_ERR_INVALID,
		      "m.safetensors: tensor 't': byte 61: 3 elements of F4 do not fill whole bytes");
	expect_fail_n(T("{\"dtype\":\"U8\",\"shape\":[4],\"data_offsets\":[4,0]}"), 4, CR_ERR_INVALID,
		      "m.safetensors: tensor 't': byte 65: data_offsets: END before BEGIN");
	expect_fail_n(T("{\"dtype\":\"U8\",\"shape\":[4],\"data_offsets\":[2,6]}"), 6, CR_ERR_INVALID,
		      "m.safetensors: tensor 't': byte 63: a gap before its data (tensors must tile the data)");
	expect_fail_n(T("{\"dtype\":\"U8\",\"shape\":[4],\"data_offsets\":[0,4]}"), 2, CR_ERR_PARSE,
		      "m.safetensors: tensor 't': byte 61: the data ends at byte 65, the file has 63");
	expect_fail_n(T("{\"dtype\":\"U8\",\"shape\":[4],\"data_offsets\":[0,4]}"), 6, CR_ERR_INVALID,
		      "m.safetensors: byte 65: 2 bytes after the last tensor's data");
	expect_fail_n(T("{\"dtype\":\"U8\",\"shape\":[-1],\"data_offsets\":[0,4]}"), 4, CR_ERR_PARSE,
		      "m.safetensors: tensor 't': byte 62: shape: expected non-negative integers below 2^53");
	expect_fail_n(T("{\"dtype\":\"U8\",\"shape\":[4],\"data_offsets\":[0,4],\"x\":1}"), 4, CR_ERR_PARSE,
		      "m.safetensors: tensor 't': byte 67: unexpected or repeated key 'x'");
	expect_fail_n(T("[1]"), 0, CR_ERR_PARSE,
		      "m.safetensors: tensor 't': byte 17: expected an object with dtype, shape and data_offsets");
	expect_fail_n("{\"a\":{\"dtype\":\"U8\",\"shape\":[4],\"data_offsets\":[0,4]},"
		      "\"b\":{\"dtype\":\"U8\",\"shape\":[2],\"data_offsets\":[2,4]}}",
		      4, CR_ERR_INVALID, "m.safetensors: tensor 'b': byte 115: its data overlaps the tensor before it");
	expect_fail_n("{\"a\":{\"dtype\":\"U8\",\"shape\":[4],\"data_offsets\":[0,4]},"
		      "\"a\":{\"dtype\":\"U8\",\"shape\":[2],\"data_offsets\":[4,6]}}",
		      6, CR_ERR_PARSE, "m.safetensors: tensor 'a': byte 117: the name appears twice");
	expect_fail_n("{\"a\x01\":{\"dtype\":\"X\",\"shape\":[],\"data_offsets\":[0,0]}}", 0, CR_ERR_INVALID,
		      "m.safetensors: tensor 'a?': byte 60: dtype: unknown type 'X'");
	expect_fail_n("{\"a\":", 0, CR_ERR_PARSE,
		      "m.safetensors: invalid JSON at byte 4 (line 1, column 5) (in the header, which starts at byte 8)");
	expect_fail_n("[]", 0, CR_ERR_PARSE, "m.safetensors: byte 8: the header is not a JSON object");
	expect_fail_n("{\"__metadata__\":{\"format\":1}}", 0, CR_ERR_PARSE,
		      "m.safetensors: byte 8: __metadata__: expected an object of strings");
}

static void test_lengths(void **state)
{
	unsigned char b[16] = { 0 };
	cr_st_header *h = NULL;
	cr_error err = CR_ERROR_INIT;
	cr_st_opts o = CR_ST_OPTS_INIT;

	(void)state;
	assert_int_equal(cr_st_parse(b, 4, 4, "f", NULL, &h, &err), CR_ERR_PARSE);
	assert_string_equal(err.message, "f: byte 0: 4 bytes, shorter than the 8-byte length");
	assert_int_equal(err.reason, CR_REASON_TRUNCATED);
	memset(b, 0xff, 8);
	assert_int_equal(cr_st_parse(b, 16, 16, "f", NULL, &h, &err), CR_ERR_PARSE);
	assert_string_equal(err.message, "f: byte 0: header length 18446744073709551615 is above the limit of "
					 "100000000 bytes (not safetensors, or a damaged file)");
	memset(b, 0, 8);
	b[0] = 40;
	assert_int_equal(cr_st_parse(b, 16, 16, "f", NULL, &h, &err), CR_ERR_PARSE);
	assert_string_equal(err.message, "f: byte 0: header length 40, the file has 8 bytes after the length");
	o.max_header = 20;
	assert_int_equal(cr_st_parse(b, 16, 1000, "f", &o, &h, &err), CR_ERR_PARSE);
	assert_string_equal(err.message,
			    "f: byte 0: header length 40 is above the limit of 20 bytes (not safetensors, or a damaged file)");
	/* A file longer than the buffer: the header is cut. */
	assert_int_equal(cr_st_parse(b, 16, 1000, "f", NULL, &h, &err), CR_ERR_PARSE);
	assert_string_equal(err.message, "f: byte 16: the header (40 bytes) is cut");
	assert_null(h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_valid),
		cmocka_unit_test(test_dtypes),
		cmocka_unit_test(test_hostile),
		cmocka_unit_test(test_lengths),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
