/*
 * test_json_read: the validated JSON reading under the catalog (json_read.c)
 * and the UTF-8 check it relies on (util.c). Syntax errors must name the
 * byte offset, line and column; messages must carry the JSON path built by
 * push/pop, which truncates instead of overflowing; integers must be whole,
 * in range and exactly representable; ids must follow their grammar; and
 * cr_utf8_valid must refuse every malformed sequence (stray continuation
 * bytes, truncation, overlongs, surrogates, code points past U+10FFFF).
 */
#include "unit.h"

#include <stdio.h>

#include <cjson/cJSON.h>

#include "json_read.h"
#include "util.h"

static void test_parse_positions(void **state)
{
	static const struct {
		const char *text, *message;
	} rows[] = {
		{ "{\n  \"a\": tru\n}", "f.json: invalid JSON at byte 9 (line 2, column 8)" },
		{ "[1,2,,3]", "f.json: invalid JSON at byte 5 (line 1, column 6)" },
		{ "{\"a\":1,\n\"b\":2\n\"c\":3}", "f.json: invalid JSON at byte 14 (line 3, column 1)" },
		{ "{\"a\":\"\\x\"}", "f.json: invalid JSON at byte 6 (line 1, column 7)" },
	};
	unsigned bad = 0;

	(void)state;
	for (size_t i = 0; i < UNIT_ARRAY_LEN(rows); i++) {
		cr_error err = CR_ERROR_INIT;
		cJSON *root = (cJSON *)&bad;
		jr_ctx c;
		int rc;

		jr_init(&c, "f.json", &err);
		rc = jr_parse(&c, rows[i].text, strlen(rows[i].text), &root);
		if (!unit_check_error(rows[i].text, rc, &err, CR_ERR_PARSE, rows[i].message))
			bad++;
		if (root != NULL) {
			print_error("row %zu: *out not reset\n", i);
			bad++;
		}
	}
	UNIT_TABLE_DONE(bad, UNIT_ARRAY_LEN(rows));
}

static void test_parse_ok_and_empty(void **state)
{
	cr_error err = CR_ERROR_INIT;
	cJSON *root = NULL;
	jr_ctx c;

	(void)state;
	jr_init(&c, "f.json", &err);
	assert_int_equal(jr_parse(&c, "{\"a\": [1, 2]}\n", 14, &root), CR_OK);
	assert_non_null(root);
	cJSON_Delete(root);
	assert_int_equal(jr_parse(&c, "", 0, &root), CR_ERR_PARSE);
	assert_string_equal(err.message, "f.json: empty file");
	assert_null(root);
	/* The length bounds the document: the rest of the buffer is not read. */
	assert_int_equal(jr_parse(&c, "[1]garbage", 3, &root), CR_OK);
	cJSON_Delete(root);
}

static void test_paths(void **state)
{
	cr_error err = CR_ERROR_INIT;
	jr_ctx c;
	size_t root, in_list;

	(void)state;
	jr_init(&c, "f.json", &err);
	assert_int_equal(jr_fail(&c, CR_ERR_INVALID, NULL, "plain"), CR_ERR_INVALID);
	assert_string_equal(err.message, "f.json: plain");
	assert_int_equal(err.status, CR_ERR_INVALID);
	jr_fail(&c, CR_ERR_INVALID, "k", "at the top");
	assert_string_equal(err.message, "f.json: k: at the top");

	root = jr_push_key(&c, "rigs");
	in_list = jr_push_index(&c, 3);
	assert_string_equal(c.path, "rigs[3]");
	jr_push_key(&c, "devices");
	jr_push_index(&c, 0);
	jr_fail(&c, CR_ERR_RANGE, "bandwidth_gbs", "bad %d", 5);
	assert_string_equal(err.message, "f.json: rigs[3].devices[0].bandwidth_gbs: bad 5");
	assert_int_equal(err.status, CR_ERR_RANGE);
	jr_pop(&c, in_list);
	assert_string_equal(c.path, "rigs");
	jr_fail(&c, CR_ERR_INVALID, NULL, "no key");
	assert_string_equal(err.message, "f.json: rigs: no key");
	jr_pop(&c, root);
	assert_string_equal(c.path, "");
	assert_int_equal(c.path_len, 0);

	/* No error record: the status still comes back. */
	jr_init(&c, "f.json", NULL);
	assert_int_equal(jr_fail(&c, CR_ERR_IO, "k", "x"), CR_ERR_IO);
}

/* A path longer than JR_PATH_MAX is cut, terminated, and pops back intact. */
static void test_path_truncation(void **state)
{
	char key[400];
	jr_ctx c;
	size_t saved;

	(void)state;
	memset(key, 'k', sizeof(key) - 1);
	key[sizeof(key) - 1] = '\0';
	jr_init(&c, "f.json", NULL);
	jr_push_key(&c, "a");
	saved = jr_push_key(&c, key);
	assert_true(c.path_len < JR_PATH_MAX);
	assert_int_equal(strlen(c.path), c.path_len);
	for (int i = 0; i < 100; i++) {
		jr_push_index(&c, 123456789);
		jr_push_key(&c, "more");
		assert_true(c.path_len < JR_PATH_MAX);
		assert_int_equal(strlen(c.path), c.path_len);
	}
	jr_pop(&c, saved);
	assert_string_equal(c.path, "a");
}

static void test_uint(void **state)
{
	static const struct {
		double value;
		uint64_t lo, hi;
		int status;
		const char *message;
	} rows[] = {
		{ 0, 0, 10, CR_OK, "" },
		{ 10, 0, 10, CR_OK, "" },
		{ 11, 0, 10, CR_ERR_INVALID, "f.json: n: expected an integer from 0 to 10, got 11" },
		{ 2.5, 0, 10, CR_ERR_INVALID, "f.json: n: expected an integer from 0 to 10, got 2.5" },
		{ -1, 0, 10, CR_ERR_INVALID, "f.json: n: expected an integer from 0 to 10, got -1" },
		{ 1, 2, 10, CR_ERR_INVALID, "f.json: n: expected an integer from 2 to 10, got 1" },
		{ 9007199254740992.0, 0, UINT64_MAX, CR_OK, "" },
		{ 18014398509481984.0, 0, UINT64_MAX, CR_ERR_INVALID,
		  "f.json: n: expected an integer from 0 to 18446744073709551615, got 1.80144e+16" },
	};
	unsigned bad = 0;

	(void)state;
	for (size_t i = 0; i < UNIT_ARRAY_LEN(rows); i++) {
		cJSON *num = cJSON_CreateNumber(rows[i].value);
		cr_error err = CR_ERROR_INIT;
		uint64_t out = 7;
		jr_ctx c;
		int rc;
		char name[32];

		assert_non_null(num);
		snprintf(name, sizeof(name), "%g", rows[i].value);
		jr_init(&c, "f.json", &err);
		rc = jr_as_uint(&c, num, "n", rows[i].lo, rows[i].hi, &out);
		if (rows[i].status == CR_OK) {
			if (rc != CR_OK || out != (uint64_t)rows[i].value) {
				print_error("row %s: rc %d, out %llu\n", name, rc,
					    (unsigned long long)out);
				bad++;
			}
		} else if (!unit_check_error(name, rc, &err, rows[i].status, rows[i].message)) {
			bad++;
		}
		cJSON_Delete(num);
	}
	UNIT_TABLE_DONE(bad, UNIT_ARRAY_LEN(rows));
}

static void test_keys(void **state)
{
	static const char *const allowed[] = { "a", "b", NULL };
	static const struct {
		const char *text, *message;
	} rows[] = {
		{ "{\"a\":1,\"b\":2}", "" },
		{ "{}", "" },
		{ "{\"a\":1,\"b\":2,\"a\":3}", "f.json: a: duplicate field" },
		{ "{\"a\":1,\"c\":2}", "f.json: c: unknown field" },
		{ "{\"A\":1}", "f.json: A: unknown field" },
	};
	unsigned bad = 0;

	(void)state;
	for (size_t i = 0; i < UNIT_ARRAY_LEN(rows); i++) {
		cJSON *obj = cJSON_Parse(rows[i].text);
		cr_error err = CR_ERROR_INIT;
		jr_ctx c;
		int rc;

		assert_non_null(obj);
		jr_init(&c, "f.json", &err);
		rc = jr_check_keys(&c, obj, allowed);
		if (!unit_check_error(rows[i].text, rc, &err,
				      rows[i].message[0] ? CR_ERR_INVALID : CR_OK, rows[i].message))
			bad++;
		cJSON_Delete(obj);
	}
	UNIT_TABLE_DONE(bad, UNIT_ARRAY_LEN(rows));
}

static void test_ids(void **state)
{
	static const struct {
		const char *id;
		bool upper;
		const char *message; /* "" when valid */
	} rows[] = {
		{ "a", false, "" },
		{ "0abc", false, "" },
		{ "a.b+c_d-e", false, "" },
		{ "qwen3.5-9b", false, "" },
		{ "-a", false, "f.json: id: invalid id \"-a\" (allowed: a-z 0-9, then . + _ -)" },
		{ ".a", false, "f.json: id: invalid id \".a\" (allowed: a-z 0-9, then . + _ -)" },
		{ "Abc", false, "f.json: id: invalid id \"Abc\" (allowed: a-z 0-9, then . + _ -)" },
		{ "a b", false, "f.json: id: invalid id \"a b\" (allowed: a-z 0-9, then . + _ -)" },
		{ "a/b", false, "f.json: id: invalid id \"a/b\" (allowed: a-z 0-9, then . + _ -)" },
		{ "", false, "f.json: id: empty id" },
		{ "abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstu", false, "" },
		{ "abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuv", false,
		  "f.json: id: id longer than 47 characters" },
		{ "Q4_K_M", true, "" },
		{ "_X", true, "" },
		{ "q4", true, "f.json: id: invalid id \"q4\" (allowed: A-Z 0-9 _)" },
		{ "Q-4", true, "f.json: id: invalid id \"Q-4\" (allowed: A-Z 0-9 _)" },
	};
	unsigned bad = 0;

	(void)state;
	for (size_t i = 0; i < UNIT_ARRAY_LEN(rows); i++) {
		cr_error err = CR_ERROR_INIT;
		jr_ctx c;
		int rc;

		jr_init(&c, "f.json", &err);
		rc = jr_check_id(&c, "id", rows[i].id, rows[i].upper);
		if (!unit_check_error(rows[i].id, rc, &err,
				      rows[i].message[0] ? CR_ERR_INVALID : CR_OK, rows[i].message))
			bad++;
	}
	UNIT_TABLE_DONE(bad, UNIT_ARRAY_LEN(rows));
}

static void test_utf8(void **state)
{
	static const struct {
		const char *bytes;
		size_t n;
		bool valid;
	} rows[] = {
		{ "", 0, true },
		{ "abc", 3, true },
		{ "a\0b", 3, true },
		{ "\xc3\xa9", 2, true },               /* é */
		{ "\xe2\x82\xac", 3, true },           /* € */
		{ "\xf0\x9f\x98\x80", 4, true },       /* U+1F600 */
		{ "\xf4\x8f\xbf\xbf", 4, true },       /* U+10FFFF */
		{ "\xef\xbf\xbd", 3, true },           /* U+FFFD */
		{ "\x80", 1, false },                  /* stray continuation */
		{ "\xc3", 1, false },                  /* truncated */
		{ "\xe2\x82", 2, false },              /* truncated */
		{ "\xc3\x28", 2, false },              /* bad continuation */
		{ "\xc0\xaf", 2, false },              /* overlong '/' */
		{ "\xc1\xbf", 2, false },              /* overlong */
		{ "\xe0\x80\xaf", 3, false },          /* overlong, 3 bytes */
		{ "\xf0\x80\x80\xaf", 4, false },      /* overlong, 4 bytes */
		{ "\xed\xa0\x80", 3, false },          /* surrogate U+D800 */
		{ "\xed\xbf\xbf", 3, false },          /* surrogate U+DFFF */
		{ "\xf4\x90\x80\x80", 4, false },      /* U+110000 */
		{ "\xf8\x88\x80\x80\x80", 5, false },  /* 5-byte form */
		{ "\xff", 1, false },
		{ "ok\xc3\xa9\xe2\x82", 6, false },    /* valid prefix, truncated tail */
	};
	unsigned bad = 0;

	(void)state;
	for (size_t i = 0; i < UNIT_ARRAY_LEN(rows); i++) {
		if (cr_utf8_valid(rows[i].bytes, rows[i].n) != rows[i].valid) {
			print_error("row %zu: want %s\n", i, rows[i].valid ? "valid" : "invalid");
			bad++;
		}
	}
	UNIT_TABLE_DONE(bad, UNIT_ARRAY_LEN(rows));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_positions),
		cmocka_unit_test(test_parse_ok_and_empty),
		cmocka_unit_test(test_paths),
		cmocka_unit_test(test_path_truncation),
		cmocka_unit_test(test_uint),
		cmocka_unit_test(test_keys),
		cmocka_unit_test(test_ids),
		cmocka_unit_test(test_utf8),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
