/*
 * The GGUF reader on valid files (fixtures and in-memory builds) and on
 * hostile mutations built byte by byte: each asserts the exact status and
 * the exact message, byte offset included.
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
#include "gguf_build.h"

#define FIX CLEFRUN_GGUF_FIXTURES

static int parse(const gb *b, const cr_gguf_opts *o, cr_gguf **g, cr_error *err)
{
	cr_source *s = NULL;
	int rc;

	*g = NULL;
	rc = cr_source_open_memory(b->p, b->len, "mem", false, &s, err);
	if (rc)
		return rc;
	rc = cr_gguf_load(s, o, g, err);
	cr_source_free(s);
	return rc;
}

/* Parse and expect failure with this status and message. */
static void expect_fail(const gb *b, const cr_gguf_opts *o, int status, const char *msg)
{
	cr_error err = CR_ERROR_INIT;
	cr_gguf *g = NULL;
	int rc = parse(b, o, &g, &err);

	assert_null(g);
	assert_int_equal(rc, status);
	assert_int_equal(err.status, status);
	assert_string_equal(err.message, msg);
}

/* ---- valid files ----------------------------------------------------------- */

static void test_tiny_v3_and_v2(void **state)
{
	(void)state;
	for (uint32_t v = 2; v <= 3; v++) {
		gb b;
		cr_gguf *g;
		cr_error err = CR_ERROR_INIT;
		const cr_gguf_tensor *t;

		gb_init(&b);
		gb_tiny_llama(&b, v, NULL);
		assert_int_equal(parse(&b, NULL, &g, &err), 0);
		assert_int_equal(cr_gguf_version(g), v);
		assert_string_equal(cr_gguf_arch(g), "llama");
		assert_int_equal(cr_gguf_kv_count(g), 9);
		assert_int_equal(cr_gguf_tensor_count(g), 21);
		assert_int_equal(cr_gguf_alignment(g), 32);
		assert_int_equal(cr_gguf_tensor_bytes(g), 225536);
		assert_int_equal(cr_gguf_param_count(g), 112448);
		assert_int_equal(cr_gguf_type_bytes(g, 1), 2 * 38400 + 2 * (8192 * 2 + 4096 * 2 + 16384 * 3));
		assert_int_equal(cr_gguf_type_bytes(g, 0), 256 * 5);
		t = cr_gguf_find_tensor(g, "blk.1.ffn_down.weight");
		assert_non_null(t);
		assert_int_equal(t->n_dims, 2);
		assert_int_equal(t->dims[0], 128);
		assert_int_equal(t->dims[1], 64);
		assert_int_equal(t->dims[2], 1);
		assert_int_equal(t->bytes, 16384);
		assert_int_equal(t->n_elements, 8192);
		assert_null(cr_gguf_find_tensor(g, "blk.2.ffn_down.weight"));
		assert_int_equal(cr_gguf_data_offset(g) % 32, 0);
		assert_int_equal(cr_gguf_data_offset(g) + 225536 + 0, b.len);
		cr_gguf_free(g);
		gb_free(&b);
	}
}

static void test_getters(void **state)
{
	gb b;
	cr_gguf *g;
	cr_error err = CR_ERROR_INIT;
	uint64_t u;
	uint32_t u32;
	int64_t i;
	double d;
	bool bl;
	char s[64];
	cr_gguf_type et;
	uint32_t arr[3] = { 8, 0, 4 };

	(void)state;
	gb_init(&b);
	gb_header(&b, 3, 0, 8);
	gb_kv_str(&b, "general.architecture", "llama");
	gb_kv_u32(&b, "a.u32", 7);
	gb_kv_u64(&b, "a.big", 1ull << 40);
	gb_kv_f32(&b, "a.f", 0.5f);
	gb_kv_bool(&b, "a.b", 1);
	gb_str(&b, "a.neg");
	gb_u32(&b, 5); /* int32 */
	gb_u32(&b, (uint32_t)-3);
	gb_kv_arr_u32(&b, "a.arr", arr, 3);
	gb_kv_arr(&b, "a.strs", 8, 2);
	gb_str(&b, "zero");
	gb_str(&b, "one\n");
	assert_int_equal(parse(&b, NULL, &g, &err), 0);

	assert_int_equal(cr_gguf_get_u64(g, "a.u32", &u, &err), 0);
	assert_int_equal(u, 7);
	assert_int_equal(cr_gguf_get_u32(g, "a.big", &u32, &err), CR_ERR_INVALID);
	assert_string_equal(err.message, "mem: a.big: 1099511627776 does not fit 32 bits");
	assert_int_equal(cr_gguf_get_u64(g, "a.neg", &u, &err), CR_ERR_INVALID);
	assert_string_equal(err.message, "mem: a.neg: negative value -3");
	assert_int_equal(cr_gguf_get_i64(g, "a.neg", &i, &err), 0);
	assert_int_equal(i, -3);
	assert_int_equal(cr_gguf_get_f64(g, "a.f", &d, &err), 0);
	assert_true(d == 0.5);
	assert_int_equal(cr_gguf_get_f64(g, "a.u32", &d, &err), 0);
	assert_true(d == 7.0);
	assert_int_equal(cr_gguf_get_bool(g, "a.b", &bl, &err), 0);
	assert_true(bl);
	assert_int_equal(cr_gguf_get_u64(g, "general.architecture", &u, &err), CR_ERR_INVALID);
	assert_string_equal(err.message, "mem: general.architecture: expected an unsigned integer, got string");
	assert_int_equal(cr_gguf_get_u64(g, "nope", &u, &err), CR_ERR_NOTFOUND);
	assert_string_equal(err.message, "mem: nope: missing");
	assert_int_equal(cr_gguf_get_string(g, "general.architecture", s, sizeof(s), &err), 0);
	assert_string_equal(s, "llama");
	assert_int_equal(cr_gguf_get_string(g, "general.architecture", s, 5, &err), CR_ERR_RANGE);
	assert_string_equal(err.message, "mem: general.architecture: string of 5 bytes does not fit a buffer of 5");
	assert_int_equal(cr_gguf_get_array(g, "a.arr", &et, &u, &err), 0);
	assert_int_equal(et, CR_GGUF_UINT32);
	assert_int_equal(u, 3);
	assert_int_equal(cr_gguf_get_array_u64(g, "a.arr", 2, &u, &err), 0);
	assert_int_equal(u, 4);
	assert_int_equal(cr_gguf_get_array_u64(g, "a.arr", 3, &u, &err), CR_ERR_RANGE);
	assert_string_equal(err.message, "mem: a.arr: index 3 past the 3 elements");
	assert_int_equal(cr_gguf_get_array_u64(g, "a.strs", 0, &u, &err), CR_ERR_INVALID);
	assert_string_equal(err.message, "mem: a.strs: expected an array of numbers, got an array of string");
	assert_int_equal(cr_gguf_get_array_string(g, "a.strs", 1, s, sizeof(s), &err), 0);
	assert_string_equal(s, "one\n");
	assert_int_equal(cr_gguf_get_array(g, "a.u32", &et, &u, &err), CR_ERR_INVALID);
	assert_string_equal(err.message, "mem: a.u32: expected an array, got uint32");

	/* Display. */
	{
		size_t idx;

		assert_true(cr_gguf_find(g, "a.strs", &idx));
		cr_gguf_kv_format(g, idx, s, sizeof(s));
		assert_string_equal(s, "[string × 2] \"zero\", \"one\\n\"");
		assert_true(cr_gguf_find(g, "a.neg", &idx));
		cr_gguf_kv_format(g, idx, s, sizeof(s));
		assert_string_equal(s, "-3");
		assert_true(cr_gguf_find(g, "a.f", &idx));
		cr_gguf_kv_format(g, idx, s, sizeof(s));
		assert_string_equal(s, "0.5");
		assert_string_equal(cr_gguf_kv_key(g, 1), "a.u32");
		assert_null(cr_gguf_kv_key(g, 8));
	}
	cr_gguf_free(g);
	gb_free(&b);
}

static void test_nested_arrays_within_depth(void **state)
{
	gb b;
	cr_gguf *g;
	cr_error err = CR_ERROR_INIT;
	cr_gguf_type et;
	uint64_t n;

	(void)state;
	gb_init(&b);
	gb_header(&b, 3, 0, 1);
	gb_kv_arr(&b, "nested", 9, 2); /* array of 2 arrays */
	gb_u32(&b, 4);                 /* [u32 × 2] */
	gb_u64(&b, 2);
	gb_u32(&b, 1);
	gb_u32(&b, 2);
	gb_u32(&b, 8);                 /* [string × 1] */
	gb_u64(&b, 1);
	gb_str(&b, "x");
	assert_int_equal(parse(&b, NULL, &g, &err), 0);
	assert_int_equal(cr_gguf_get_array(g, "nested", &et, &n, &err), 0);
	assert_int_equal(et, CR_GGUF_ARRAY);
	assert_int_equal(n, 2);
	cr_gguf_free(g);
	gb_free(&b);
}

/* ---- hostile headers -------------------------------------------------------- */

static void test_bad_magic(void **state)
{
	gb b;

	(void)state;
	gb_init(&b);
	gb_tiny_llama(&b, 3, NULL);
	b.p[0] = 'X';
	b.p[3] = 0x01;
	expect_fail(&b, NULL, CR_ERR_PARSE, "mem: byte 0: not a GGUF file (magic 'XGU\\x01', expected 'GGUF')");
	b.len = 10;
	expect_fail(&b, NULL, CR_ERR_PARSE, "mem: byte 0: not a GGUF file (magic 'XGU\\x01', expected 'GGUF')");
	b.p[0] = 'G';
	b.p[3] = 'F';
	expect_fail(&b, NULL, CR_ERR_PARSE,
		    "mem: byte 0: not a GGUF file: 10 bytes, shorter than a GGUF header (24 bytes)");
	b.len = 0;
	expect_fail(&b, NULL, CR_ERR_PARSE,
		    "mem: byte 0: not a GGUF file: 0 bytes, shorter than a GGUF header (24 bytes)");
	gb_free(&b);
}

static void test_versions(void **state)
{
	gb b;

	(void)state;
	gb_init(&b);
	gb_tiny_llama(&b, 1, NULL);
	expect_fail(&b, NULL, CR_ERR_UNSUPPORTED,
		    "mem: byte 4: GGUF version 1 is not supported (it uses 32-bit counts); convert the model again");
	gb_put32(&b, 4, 99);
	expect_fail(&b, NULL, CR_ERR_UNSUPPORTED, "mem: byte 4: unsupported GGUF version 99 (expected 2 or 3)");
	gb_put32(&b, 4, 0x03000000u);
	expect_fail(&b, NULL, CR_ERR_UNSUPPORTED, "mem: byte 4: big-endian GGUF files are not supported");
	gb_free(&b);
}

static void test_counts(void **state)
{
	gb b;

	(void)state;
	gb_init(&b);
	gb_tiny_llama(&b, 3, NULL);
	gb_put64(&b, 8, 1ull << 40);
	expect_fail(&b, NULL, CR_ERR_RANGE, "mem: byte 8: tensor count 1099511627776 is above the limit of 65536");
	gb_put64(&b, 8, 21);
	gb_put64(&b, 16, 1ull << 40);
	expect_fail(&b, NULL, CR_ERR_RANGE,
		    "mem: byte 16: metadata pair count 1099511627776 is above the limit of 65536");
	gb_free(&b);

	/* Within the limits, but more than a small file can hold. */
	gb_init(&b);
	gb_header(&b, 3, 0, 60000);
	gb_zeros(&b, 100);
	expect_fail(&b, NULL, CR_ERR_PARSE,
		    "mem: byte 16: 60000 metadata pairs and 0 tensor infos cannot fit in a file of 124 bytes");
	gb_free(&b);
}

static void test_strings(void **state)
{
	gb b;
	cr_gguf_opts o = CR_GGUF_OPTS_INIT;

	(void)state;
	/* A key longer than the file. */
	gb_init(&b);
	gb_header(&b, 3, 0, 1);
	gb_u64(&b, 1000);
	gb_bytes(&b, "general.x", 9);
	gb_zeros(&b, 20);
	expect_fail(&b, NULL, CR_ERR_PARSE, "mem: byte 32: key of 1000 bytes runs past the end of the file (61 bytes)");
	/* Keys above the spec's 65535 bytes. */
	gb_put64(&b, 24, 1ull << 40);
	expect_fail(&b, NULL, CR_ERR_RANGE, "mem: byte 24: key: length 1099511627776 is above the limit of 65535 bytes");
	gb_free(&b);

	/* A string value above the configured limit. */
	gb_init(&b);
	gb_header(&b, 3, 0, 1);
	gb_kv_str(&b, "general.name", "0123456789abcdef0123456789abcdef");
	o.max_string_bytes = 16;
	expect_fail(&b, &o, CR_ERR_RANGE,
		    "mem: byte 48: string value: length 32 is above the limit of 16 bytes");
	gb_free(&b);

	/* Control bytes in a key. */
	gb_init(&b);
	gb_header(&b, 3, 0, 1);
	gb_kv_u32(&b, "bad\nkey", 1);
	expect_fail(&b, NULL, CR_ERR_PARSE, "mem: byte 24: key is not printable ASCII");
	gb_free(&b);

	/* Empty key. */
	gb_init(&b);
	gb_header(&b, 3, 0, 1);
	gb_kv_u32(&b, "", 1);
	expect_fail(&b, NULL, CR_ERR_PARSE, "mem: byte 24: empty key");
	gb_free(&b);
}

static void test_value_types(void **state)
{
	gb b;

	(void)state;
	gb_init(&b);
	gb_header(&b, 3, 0, 1);
	gb_str(&b, "k");
	gb_u32(&b, 13);
	gb_u32(&b, 0);
	expect_fail(&b, NULL, CR_ERR_PARSE, "mem: byte 33: key 'k': unknown value type 13");
	gb_free(&b);

	/* Unknown element type of an array. */
	gb_init(&b);
	gb_header(&b, 3, 0, 1);
	gb_kv_arr(&b, "k", 77, 1);
	gb_u32(&b, 0);
	expect_fail(&b, NULL, CR_ERR_PARSE, "mem: byte 37: unknown array element type 77");
	gb_free(&b);
}

static void test_arrays(void **state)
{
	gb b;
	cr_gguf_opts o = CR_GGUF_OPTS_INIT;

	(void)state;
	/* Above the element limit. */
	gb_init(&b);
	gb_header(&b, 3, 0, 1);
	gb_kv_arr(&b, "k", 4, 1ull << 25);
	gb_zeros(&b, 64);
	expect_fail(&b, NULL, CR_ERR_RANGE, "mem: byte 41: array of 33554432 elements is above the limit of 16777216");
	gb_free(&b);

	/* A count the rest of the file cannot hold. */
	gb_init(&b);
	gb_header(&b, 3, 0, 1);
	gb_kv_arr(&b, "k", 4, 1000000);
	gb_zeros(&b, 64);
	expect_fail(&b, NULL, CR_ERR_PARSE,
		    "mem: byte 41: array of 1000000 uint32 elements runs past the end of the file (113 bytes)");
	gb_free(&b);

	/* Strings inside an array run past the end. */
	gb_init(&b);
	gb_header(&b, 3, 0, 1);
	gb_kv_arr(&b, "tokenizer.ggml.tokens", 8, 2);
	gb_str(&b, "a");
	gb_u64(&b, 500);
	gb_bytes(&b, "bc", 2);
	expect_fail(&b, NULL, CR_ERR_PARSE, "mem: byte 86: string of 500 bytes runs past the end of the file (88 bytes)");
	gb_free(&b);

	/* Arrays of arrays of arrays... five deep, the limit is four. */
	gb_init(&b);
	gb_header(&b, 3, 0, 1);
	gb_kv_arr(&b, "deep", 9, 1); /* level 1: element type at 40 */
	gb_u32(&b, 9);              /* level 2 at 52 */
	gb_u64(&b, 1);
	gb_u32(&b, 9);              /* level 3 at 64 */
	gb_u64(&b, 1);
	gb_u32(&b, 9);              /* level 4 at 76 */
	gb_u64(&b, 1);
	gb_u32(&b, 4);              /* level 5 at 88 */
	gb_u64(&b, 1);
	gb_u32(&b, 7);
	expect_fail(&b, NULL, CR_ERR_RANGE, "mem: byte 88: arrays nested deeper than 4 levels");
	o.max_array_depth = 5;
	{
		cr_gguf *g;
		cr_error err = CR_ERROR_INIT;

		assert_int_equal(parse(&b, &o, &g, &err), 0);
		cr_gguf_free(g);
	}
	o.max_array_depth = 1;
	expect_fail(&b, &o, CR_ERR_RANGE, "mem: byte 52: arrays nested deeper than 1 levels");
	gb_free(&b);
}

static void test_duplicates(void **state)
{
	gb b;

	(void)state;
	gb_init(&b);
	gb_header(&b, 3, 0, 3);
	gb_kv_u32(&b, "a", 1);
	gb_kv_u32(&b, "b", 1);
	gb_kv_u32(&b, "a", 2); /* at 24 + 17 + 17 = 58 */
	expect_fail(&b, NULL, CR_ERR_PARSE, "mem: byte 58: duplicate key 'a' (first at byte 24)");
	gb_free(&b);

	gb_init(&b);
	{
		uint64_t d[1] = { 8 };

		gb_header(&b, 3, 2, 0);
		gb_tensor(&b, "t", 1, d, 0, 0);  /* at 24 */
		gb_tensor(&b, "t", 1, d, 0, 32); /* at 24 + 33 = 57 */
		gb_pad(&b, 32);
		gb_zeros(&b, 64);
	}
	expect_fail(&b, NULL, CR_ERR_PARSE, "mem: byte 57: duplicate tensor 't' (first at byte 24)");
	gb_free(&b);
}

/* One tensor "t" of the given shape and type after a general.alignment pair. */
static void one_tensor(gb *b, uint32_t align, uint32_t n_dims, const uint64_t *dims, uint32_t type,
		       uint64_t offset, size_t data)
{
	gb_init(b);
	gb_header(b, 3, 1, 1);
	gb_kv_u32(b, "general.alignment", align); /* 24..57, value at 53 */
	gb_tensor(b, "t", n_dims, dims, type, offset); /* info at 57 */
	gb_pad(b, align);
	gb_zeros(b, data);
}

static void test_tensor_infos(void **state)
{
	gb b;
	uint64_t d2[2] = { 1ull << 32, 1ull << 32 };
	uint64_t d5[5] = { 1, 1, 1, 1, 1 };
	uint64_t dn[2] = { 4, (uint64_t)-1 };
	uint64_t q4k[2] = { 100, 2 };
	uint64_t ok[2] = { 32, 2 };

	(void)state;
	/* 58 = "t" name (8 + 1) + n_dims at 66, dims from 70. */
	one_tensor(&b, 32, 2, d2, 0, 0, 0);
	expect_fail(&b, NULL, CR_ERR_PARSE, "mem: byte 78: tensor 't': element count overflows 64 bits");
	gb_free(&b);

	one_tensor(&b, 32, 5, d5, 0, 0, 64);
	expect_fail(&b, NULL, CR_ERR_PARSE, "mem: byte 66: tensor 't' has 5 dimensions (at most 4)");
	gb_free(&b);

	one_tensor(&b, 32, 2, dn, 0, 0, 64);
	expect_fail(&b, NULL, CR_ERR_PARSE, "mem: byte 78: tensor 't': dimension 1 is negative");
	gb_free(&b);

	one_tensor(&b, 32, 2, ok, 99, 0, 256);
	expect_fail(&b, NULL, CR_ERR_UNSUPPORTED, "mem: byte 86: tensor 't' has unknown type id 99");
	gb_free(&b);

	one_tensor(&b, 32, 2, ok, 31, 0, 256);
	expect_fail(&b, NULL, CR_ERR_UNSUPPORTED,
		    "mem: byte 86: tensor 't' has type 31 (Q4_0_4_4), removed from ggml; requantize the model");
	gb_free(&b);

	one_tensor(&b, 32, 2, q4k, 12, 0, 256);
	expect_fail(&b, NULL, CR_ERR_PARSE, "mem: byte 86: tensor 't': row length 100 is not a multiple of Q4_K's block of 256");
	gb_free(&b);

	/* Data past the end of the file: 32 × 2 F32 = 256 bytes, 100 there. */
	one_tensor(&b, 32, 2, ok, 0, 0, 100);
	expect_fail(&b, NULL, CR_ERR_PARSE,
		    "mem: byte 57: tensor 't': data [128, 384) lies past the end of the file (228 bytes)");
	{
		cr_gguf_opts o = CR_GGUF_OPTS_INIT;
		cr_gguf *g;
		cr_error err = CR_ERROR_INIT;

		o.allow_truncated = true;
		assert_int_equal(parse(&b, &o, &g, &err), 0);
		assert_int_equal(cr_gguf_tensor_bytes(g), 256);
		cr_gguf_free(g);
	}
	gb_free(&b);

	/* An offset near 2^64: the end overflows. */
	one_tensor(&b, 32, 2, ok, 0, UINT64_MAX - 31, 256);
	expect_fail(&b, NULL, CR_ERR_PARSE, "mem: byte 57: tensor 't': data end overflows 64 bits");
	gb_free(&b);

	/* Misaligned data offset. */
	one_tensor(&b, 32, 2, ok, 0, 16, 512);
	expect_fail(&b, NULL, CR_ERR_PARSE, "mem: byte 90: tensor 't': data offset 16 is not a multiple of the alignment 32");
	gb_free(&b);

	/* Alignment not a power of two, and of the wrong type. */
	one_tensor(&b, 48, 2, ok, 0, 0, 512);
	expect_fail(&b, NULL, CR_ERR_PARSE, "mem: byte 53: general.alignment 48 is not a power of two");
	gb_free(&b);
	one_tensor(&b, 0, 2, ok, 0, 0, 512);
	expect_fail(&b, NULL, CR_ERR_PARSE, "mem: byte 53: general.alignment 0 is not a power of two");
	gb_free(&b);
	gb_init(&b);
	gb_header(&b, 3, 0, 1);
	gb_kv_u64(&b, "general.alignment", 64);
	expect_fail(&b, NULL, CR_ERR_PARSE, "mem: byte 24: general.alignment: expected uint32, got uint64");
	gb_free(&b);

	/* A larger alignment is honoured. */
	one_tensor(&b, 64, 2, ok, 0, 0, 256);
	{
		cr_gguf *g;
		cr_error err = CR_ERROR_INIT;

		assert_int_equal(parse(&b, NULL, &g, &err), 0);
		assert_int_equal(cr_gguf_alignment(g), 64);
		assert_int_equal(cr_gguf_data_offset(g), 128);
		cr_gguf_free(g);
	}
	gb_free(&b);
}

static void test_tensor_names(void **state)
{
	gb b;
	uint64_t d[1] = { 8 };
	char longname[80];

	(void)state;
	memset(longname, 'n', 64);
	longname[64] = '\0';
	gb_init(&b);
	gb_header(&b, 3, 1, 0);
	gb_tensor(&b, longname, 1, d, 0, 0);
	gb_pad(&b, 32);
	gb_zeros(&b, 32);
	expect_fail(&b, NULL, CR_ERR_PARSE, "mem: byte 24: tensor name of 64 bytes (at most 63)");
	gb_free(&b);

	gb_init(&b);
	gb_header(&b, 3, 1, 0);
	gb_tensor(&b, "", 1, d, 0, 0);
	gb_pad(&b, 32);
	gb_zeros(&b, 32);
	expect_fail(&b, NULL, CR_ERR_PARSE, "mem: byte 24: empty tensor name");
	gb_free(&b);
}

static void test_overlap(void **state)
{
	gb b;
	uint64_t d[1] = { 16 };

	(void)state;
	gb_init(&b);
	gb_header(&b, 3, 2, 0);
	gb_tensor(&b, "a", 1, d, 0, 0);  /* 64 bytes at 0, info at 24 */
	gb_tensor(&b, "b", 1, d, 0, 32); /* overlaps, info at 57 */
	gb_pad(&b, 32);
	gb_zeros(&b, 128);
	expect_fail(&b, NULL, CR_ERR_PARSE, "mem: byte 57: tensor 'b' (data offset 32) overlaps tensor 'a' (data [0, 64))");
	gb_free(&b);
}

/* The element counts of a header whose data is missing can sum past 2^64
 * although the byte ranges are disjoint (Q1_0: 128 elements in 18 bytes):
 * refused, not wrapped into a small parameter count. */
static void test_param_count_overflow(void **state)
{
	gb b;
	cr_gguf_opts o = CR_GGUF_OPTS_INIT;
	uint64_t d[1] = { 1ull << 62 };
	const uint64_t bytes = (1ull << 62) / 128 * 18;

	(void)state;
	o.allow_truncated = true;
	gb_init(&b);
	gb_header(&b, 3, 5, 0);
	for (int i = 0; i < 5; i++) {
		char name[8];

		snprintf(name, sizeof(name), "t%d", i);
		gb_tensor(&b, name, 1, d, 41, (uint64_t)i * bytes); /* infos of 34 bytes from 24 */
	}
	gb_pad(&b, 32);
	/* Three tensors make 3 x 2^62 elements; the fourth would wrap. */
	expect_fail(&b, &o, CR_ERR_PARSE, "mem: byte 126: tensor 't3': the parameter count overflows 64 bits");
	gb_free(&b);
}

/* A 1-D tensor of 2^62 + 32 F32 elements: the element count fits 63 bits
 * but its row size (elements / block x type size) does not fit 64; it used
 * to wrap to 128 bytes and the header was accepted. Refused with and
 * without the data (F16 and block types, at most 2.125 bytes per element,
 * cannot overflow in one dimension below 2^63). */
static void test_row_size_overflow(void **state)
{
	static const struct {
		uint32_t type;
		uint64_t dim0;
	} rows[] = {
		{ 0, (1ull << 62) + 32 },  /* F32: 4 bytes per element */
		{ 26, 1ull << 62 },        /* I32: 4 bytes per element */
		{ 28, (1ull << 61) + 1 },  /* F64: 8 bytes per element */
	};

	(void)state;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		for (int truncated = 0; truncated < 2; truncated++) {
			gb b;
			cr_gguf_opts o = CR_GGUF_OPTS_INIT;
			uint64_t d[1] = { rows[i].dim0 };

			o.allow_truncated = truncated;
			gb_init(&b);
			gb_header(&b, 3, 1, 0);
			gb_tensor(&b, "t", 1, d, rows[i].type, 0); /* info at 24 */
			gb_pad(&b, 32);
			gb_zeros(&b, 128);
			expect_fail(&b, &o, CR_ERR_PARSE, "mem: byte 24: tensor 't': size overflows 64 bits");
			gb_free(&b);
		}
	}
}

static void test_architecture_key(void **state)
{
	gb b;

	(void)state;
	gb_init(&b);
	gb_header(&b, 3, 0, 1);
	gb_kv_str(&b, "general.architecture", "lla ma");
	expect_fail(&b, NULL, CR_ERR_PARSE, "mem: byte 67: general.architecture: unexpected byte 0x20");
	gb_free(&b);
	gb_init(&b);
	gb_header(&b, 3, 0, 1);
	gb_kv_u32(&b, "general.architecture", 1);
	expect_fail(&b, NULL, CR_ERR_PARSE, "mem: byte 24: general.architecture: expected string, got uint32");
	gb_free(&b);
}

static void test_header_limit(void **state)
{
	gb b;
	cr_gguf_opts o = CR_GGUF_OPTS_INIT;
	char big[3000];

	(void)state;
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	gb_init(&b);
	gb_header(&b, 3, 0, 1);
	gb_kv_str(&b, "general.description", big);
	o.max_header_bytes = 1024;
	o.first_read = 512;
	expect_fail(&b, &o, CR_ERR_RANGE,
		    "mem: byte 63: string value of 2999 bytes ends at byte 3062, past the header limit of 1024 bytes");
	gb_free(&b);
}

/* Every cut of a valid header fails cleanly, with a message naming the source. */
static void test_every_truncation(void **state)
{
	gb b;
	size_t full;

	(void)state;
	gb_init(&b);
	gb_tiny_llama(&b, 3, NULL);
	full = b.len;
	for (size_t n = 0; n < 1400; n++) {
		cr_error err = CR_ERROR_INIT;
		cr_gguf *g = NULL;
		int rc;

		b.len = n;
		rc = parse(&b, NULL, &g, &err);
		assert_int_not_equal(rc, 0);
		assert_null(g);
		assert_memory_equal(err.message, "mem: byte ", 10);
	}
	b.len = full;
	gb_free(&b);
}

/* Deterministic byte flips over the header: never a crash, and every
 * failure is a message that names the source. */
static void test_byte_flips(void **state)
{
	gb b;
	uint64_t x = 0x9E3779B97F4A7C15ull;
	size_t hdr;

	(void)state;
	gb_init(&b);
	gb_tiny_llama(&b, 3, NULL);
	hdr = 1300;
	for (int it = 0; it < 4000; it++) {
		unsigned char *copy = malloc(b.len);
		gb m = { copy, b.len, b.len };
		cr_error err = CR_ERROR_INIT;
		cr_gguf *g = NULL;

		memcpy(copy, b.p, b.len);
		for (int k = 0; k < 1 + it % 4; k++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			copy[x % hdr] ^= (unsigned char)(1u << ((x >> 32) % 8));
		}
		if (parse(&m, NULL, &g, &err) == 0) {
			cr_gguf_model gm;
			const cr_gguf *parts[1] = { g };

			(void)cr_gguf_to_model(parts, 1, &gm, &err);
			cr_gguf_free(g);
		} else {
			assert_memory_equal(err.message, "mem: ", 5);
		}
		free(copy);
	}
	gb_free(&b);
}

/* The reader's reads: one for a header under the first read; few for a
 * large tokenizer-dominated one (the remote budget: 2 reads and at most
 * header + 256 KiB for a header under 1 MiB). */
static void build_vocab_header(gb *b, uint32_t n_vocab, int bpe)
{
	char tok[32];

	gb_init(b);
	gb_header(b, 3, 1, 9);
	gb_kv_str(b, "general.architecture", "llama");
	gb_kv_u32(b, "llama.block_count", 1);
	gb_kv_str(b, "tokenizer.ggml.model", bpe ? "gpt2" : "llama");
	gb_kv_arr(b, "tokenizer.ggml.tokens", 8, n_vocab);
	for (uint32_t i = 0; i < n_vocab; i++) {
		snprintf(tok, sizeof(tok), "\xe2\x96\x81tok%u", i);
		gb_str(b, tok);
	}
	gb_kv_arr(b, "tokenizer.ggml.token_type", 5, n_vocab);
	for (uint32_t i = 0; i < n_vocab; i++)
		gb_u32(b, 1);
	if (bpe) {
		gb_kv_arr(b, "tokenizer.ggml.merges", 8, n_vocab);
		for (uint32_t i = 0; i < n_vocab; i++) {
			snprintf(tok, sizeof(tok), "\xc4\xa0t ok%u", i);
			gb_str(b, tok);
		}
	} else {
		gb_kv_arr(b, "tokenizer.ggml.scores", 6, n_vocab);
		for (uint32_t i = 0; i < n_vocab; i++)
			gb_f32(b, -(float)i);
	}
	gb_kv_u32(b, "tokenizer.ggml.bos_token_id", 1);
	gb_kv_u32(b, "tokenizer.ggml.eos_token_id", 2);
	gb_kv_str(b, "tokenizer.chat_template", "{% for m in messages %}{{ m.content }}{% endfor %}");
	{
		uint64_t d[2] = { 64, n_vocab };

		gb_tensor(b, "token_embd.weight", 2, d, 0, 0);
	}
	gb_pad(b, 32);
	gb_zeros(b, (size_t)64 * n_vocab * 4);
}

static void test_read_budget(void **state)
{
	static const struct {
		uint32_t vocab;
		int bpe;
	} cases[] = { { 2000, 0 }, { 20000, 0 }, { 40000, 0 }, { 40000, 1 }, { 150000, 1 }, { 250000, 0 } };

	(void)state;
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		gb b;
		cr_source *s;
		cr_gguf *g;
		cr_error err = CR_ERROR_INIT;
		cr_source_stats st;
		uint64_t hdr;

		build_vocab_header(&b, cases[c].vocab, cases[c].bpe);
		assert_int_equal(cr_source_open_memory(b.p, b.len, "mem", false, &s, &err), 0);
		assert_int_equal(cr_gguf_load(s, NULL, &g, &err), 0);
		cr_source_get_stats(s, &st);
		hdr = cr_gguf_data_offset(g);
		if (hdr <= CR_GGUF_FIRST_READ) {
			assert_int_equal(st.requests, 1);
		} else if (hdr < (1u << 20)) {
			/* The budget for headers under 1 MiB. */
			assert_true(st.requests <= 2);
			assert_true(st.bytes_fetched <= hdr + (256u << 10));
		} else {
			assert_true(st.requests <= 3);
			assert_true(st.bytes_fetched <= hdr + hdr / 4 + (256u << 10));
		}
		assert_int_equal(st.bytes_read, st.bytes_fetched);
		cr_gguf_free(g);
		cr_source_free(s);
		gb_free(&b);
	}
}

static void test_fixture_files(void **state)
{
	static const char *const files[] = { "tiny-llama.gguf", "llama-3.1-8b.hdr.gguf",
		"gemma-3-4b.hdr.gguf", "qwen3.5-9b.hdr.gguf", "qwen3-30b-a3b.hdr.gguf",
		"deepseek-v3.hdr.gguf", "gpt-oss-20b.hdr.gguf", "deci-kvarr.hdr.gguf" };

	(void)state;
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		char path[512];
		cr_source *s;
		cr_gguf *g;
		cr_error err = CR_ERROR_INIT;
		cr_gguf_opts o = CR_GGUF_OPTS_INIT;
		cr_source_stats st;

		snprintf(path, sizeof(path), "%s/%s", FIX, files[i]);
		assert_int_equal(cr_source_open_file(path, &s, &err), 0);
		/* Header-only fixtures are refused unless truncation is allowed. */
		if (strstr(files[i], ".hdr.")) {
			int rc = cr_gguf_load(s, NULL, &g, &err);

			assert_int_equal(rc, CR_ERR_PARSE);
			assert_non_null(strstr(err.message, "lies past the end of the file"));
			o.allow_truncated = true;
		}
		assert_int_equal(cr_gguf_load(s, &o, &g, &err), 0);
		cr_source_get_stats(s, &st);
		assert_int_equal(cr_gguf_version(g), 3);
		cr_gguf_free(g);
		cr_source_free(s);
	}
}

static void test_file_source_errors(void **state)
{
	cr_source *s;
	cr_error err = CR_ERROR_INIT;
	char buf[8];

	(void)state;
	assert_int_equal(cr_source_open_file("/nonexistent/x.gguf", &s, &err), CR_ERR_IO);
	assert_string_equal(err.message, "/nonexistent/x.gguf: No such file or directory");
	assert_null(s);
	assert_int_equal(cr_source_open_file(FIX, &s, &err), CR_ERR_IO);
	assert_non_null(strstr(err.message, ": is a directory"));
	assert_int_equal(cr_source_open_memory("abc", 3, NULL, false, &s, &err), 0);
	assert_string_equal(cr_source_name(s), "memory");
	assert_int_equal(cr_source_read(s, 2, buf, 2, &err), CR_ERR_IO);
	assert_string_equal(err.message, "memory: byte 2: wanted 2 bytes, the file has 3");
	assert_int_equal(cr_source_read(s, 1, buf, 2, &err), 0);
	assert_memory_equal(buf, "bc", 2);
	cr_source_free(s);
	cr_source_free(NULL);
	cr_gguf_free(NULL);
}

static void test_split_names(void **state)
{
	char buf[256];
	size_t plen;
	uint32_t no, count;
	cr_error err = CR_ERROR_INIT;

	(void)state;
	assert_true(cr_gguf_split_parse("dir/Model-Q4_K_M-00001-of-00003.gguf", &plen, &no, &count));
	assert_int_equal(plen, strlen("dir/Model-Q4_K_M"));
	assert_int_equal(no, 1);
	assert_int_equal(count, 3);
	assert_false(cr_gguf_split_parse("model.gguf", &plen, &no, &count));
	assert_false(cr_gguf_split_parse("m-00004-of-00003.gguf", &plen, &no, &count));
	assert_int_equal(cr_gguf_split_name("https://h/r/m-00001-of-00003.gguf?download=1", 3, buf,
					    sizeof(buf), &err), 0);
	assert_string_equal(buf, "https://h/r/m-00003-of-00003.gguf?download=1");
	assert_int_equal(cr_gguf_split_name("m-00001-of-00003.gguf", 4, buf, sizeof(buf), &err),
			 CR_ERR_INVALID);
	assert_string_equal(err.message, "m-00001-of-00003.gguf: part 4 of 3");
	assert_int_equal(cr_gguf_split_name("m.gguf", 1, buf, sizeof(buf), &err), CR_ERR_INVALID);
	assert_int_equal(cr_gguf_split_name("m-00001-of-00003.gguf", 2, buf, 10, &err), CR_ERR_RANGE);
}

static void test_type_tables(void **state)
{
	uint32_t blk, bytes;

	(void)state;
	assert_int_equal(cr_ggml_type_size(12, &blk, &bytes), 0);
	assert_int_equal(blk, 256);
	assert_int_equal(bytes, 144);
	assert_string_equal(cr_ggml_type_name(39), "MXFP4");
	assert_int_equal(cr_ggml_type_size(4, &blk, &bytes), CR_ERR_INVALID);
	assert_null(cr_ggml_type_name(4));
	assert_null(cr_ggml_type_name(1000));
	assert_string_equal(cr_gguf_file_type_name(15), "Q4_K_M");
	assert_null(cr_gguf_file_type_name(4));
	assert_string_equal(cr_gguf_type_name(CR_GGUF_FLOAT64), "float64");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tiny_v3_and_v2),
		cmocka_unit_test(test_getters),
		cmocka_unit_test(test_nested_arrays_within_depth),
		cmocka_unit_test(test_bad_magic),
		cmocka_unit_test(test_versions),
		cmocka_unit_test(test_counts),
		cmocka_unit_test(test_strings),
		cmocka_unit_test(test_value_types),
		cmocka_unit_test(test_arrays),
		cmocka_unit_test(test_duplicates),
		cmocka_unit_test(test_tensor_infos),
		cmocka_unit_test(test_tensor_names),
		cmocka_unit_test(test_overlap),
		cmocka_unit_test(test_param_count_overflow),
		cmocka_unit_test(test_row_size_overflow),
		cmocka_unit_test(test_architecture_key),
		cmocka_unit_test(test_header_limit),
		cmocka_unit_test(test_every_truncation),
		cmocka_unit_test(test_byte_flips),
		cmocka_unit_test(test_read_budget),
		cmocka_unit_test(test_fixture_files),
		cmocka_unit_test(test_file_source_errors),
		cmocka_unit_test(test_split_names),
		cmocka_unit_test(test_type_tables),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
