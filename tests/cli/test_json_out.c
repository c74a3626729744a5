/*
 * test_json_out: cli_json_print (src/cli/json_out.c) writes what
 * cJSON_Print writes, byte for byte: numbers of every kind (whole, -0,
 * around 10^15 and 2^53, fractions that need 17 digits, huge, tiny,
 * NaN, infinities), strings with every byte that is escaped, empty and
 * nested objects and arrays, raw items, and the shipped catalog's
 * data/{models,quants,rigs}.json parsed and printed again.
 */
#include "unit.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <cjson/cJSON.h>

#include "json_out.h"

static unsigned same_as_cjson(const char *what, const cJSON *root)
{
	char *a = cJSON_Print(root), *b = cli_json_print(root);
	unsigned bad = 0;

	if (!a || !b || strcmp(a, b) != 0) {
		print_error("%s:\n  cJSON_Print    %s\n  cli_json_print %s\n", what, a ? a : "(null)",
			    b ? b : "(null)");
		bad = 1;
	}
	free(a);
	free(b);
	return bad;
}

static void test_numbers(void **state)
{
	const double v[] = {
		0.0, -0.0, 1, -1, 7, 42, 65.05, 324.7, 6.307, 0.1, 0.2, 1.0 / 3, 2.0 / 3, -1.0 / 7,
		1e-7, 1e-300, 5e-324, 123456789012345.0, 999999999999999.0, 1e15, 1e15 + 1,
		9007199254740992.0, 9007199254740993.0, 1e16, 1e21, 1e300, DBL_MAX, -DBL_MAX,
		2147483647.0, 2147483648.0, -2147483648.0, -2147483649.0, 4294967296.0,
		6517848672.0, 9400000000.0, 0.5, 0.25, 1.5, 100.25, 3.14159265358979,
		3.141592653589793, 2.718281828459045, 1e-5, 0.000123, 12345.678901234567,
		(double)UINT64_MAX, -(double)(1ull << 62), 0.1 + 0.2, 1 - 1e-16, 1 + 1e-15,
		NAN, INFINITY, -INFINITY,
	};
	unsigned bad = 0;
	char what[64];

	(void)state;
	for (size_t i = 0; i < UNIT_ARRAY_LEN(v); i++) {
		cJSON *o = cJSON_CreateObject(), *a = cJSON_CreateArray();

		cJSON_AddNumberToObject(o, "n", v[i]);
		cJSON_AddItemToArray(a, cJSON_CreateNumber(v[i]));
		cJSON_AddItemToArray(a, cJSON_CreateNumber(-v[i]));
		cJSON_AddItemToObject(o, "a", a);
		snprintf(what, sizeof(what), "number %.17g", v[i]);
		bad += same_as_cjson(what, o);
		cJSON_Delete(o);
	}
	/* Pseudo-random doubles of every magnitude (a fixed LCG: the same
	 * numbers every run). */
	{
		uint64_t x = 0x2545F4914F6CDD1Dull;

		for (int i = 0; i < 4000; i++) {
			cJSON *n;
			double d;

			x = x * 6364136223846793005ull + 1442695040888963407ull;
			memcpy(&d, &x, sizeof(d));
			if (i % 2)
				d = (double)(x >> (i % 64)) / (double)(1u << (i % 20));
			n = cJSON_CreateNumber(d);
			snprintf(what, sizeof(what), "number %.17g", d);
			bad += same_as_cjson(what, n);
			cJSON_Delete(n);
		}
	}
	UNIT_TABLE_DONE(bad, UNIT_ARRAY_LEN(v) + 4000);
}

static void test_strings_and_layout(void **state)
{
	char all[256];
	cJSON *o = cJSON_CreateObject(), *in, *arr;
	unsigned bad = 0;

	(void)state;
	for (int i = 1; i < 256; i++)
		all[i - 1] = (char)i;
	all[255] = '\0';
	cJSON_AddStringToObject(o, "every byte", all);
	cJSON_AddStringToObject(o, "", "");
	cJSON_AddStringToObject(o, "quote \" backslash \\ tab \t", "new\nline\r\b\f\x01\x1f\x7f\xc3\xa9");
	cJSON_AddItemToObject(o, "empty object", cJSON_CreateObject());
	cJSON_AddItemToObject(o, "empty array", cJSON_CreateArray());
	cJSON_AddNullToObject(o, "null");
	cJSON_AddTrueToObject(o, "t");
	cJSON_AddFalseToObject(o, "f");
	cJSON_AddRawToObject(o, "raw", "{\"x\": [1,2]}");
	arr = cJSON_AddArrayToObject(o, "nested");
	in = cJSON_CreateObject();
	cJSON_AddItemToObject(in, "deeper", cJSON_CreateObject());
	cJSON_AddItemToArray(cJSON_AddArrayToObject(in, "list"), cJSON_CreateArray());
	cJSON_AddItemToArray(arr, in);
	cJSON_AddItemToArray(arr, cJSON_CreateString("s"));
	cJSON_AddItemToArray(arr, cJSON_CreateObject());
	cJSON_AddItemToArray(arr, cJSON_CreateNull());
	bad += same_as_cjson("layout", o);
	bad += same_as_cjson("an array alone", arr);
	bad += same_as_cjson("a string alone", cJSON_GetObjectItem(o, "every byte"));
	cJSON_Delete(o);
	UNIT_TABLE_DONE(bad, 3);
}

/* Whole documents: the shipped data files, parsed and printed again. */
static void test_catalog_documents(void **state)
{
	static const char *const files[] = { "models.json", "quants.json", "rigs.json" };
	unsigned bad = 0;

	(void)state;
	for (size_t i = 0; i < UNIT_ARRAY_LEN(files); i++) {
		char path[1024];
		FILE *f;
		char *text;
		long n;
		cJSON *root;

		snprintf(path, sizeof(path), "%s/%s", CLEFRUN_DATA_DIR, files[i]);
		f = fopen(path, "rb");
		assert_non_null(f);
		assert_int_equal(fseek(f, 0, SEEK_END), 0);
		n = ftell(f);
		assert_true(n > 0);
		rewind(f);
		text = malloc((size_t)n + 1);
		assert_non_null(text);
		assert_int_equal(fread(text, 1, (size_t)n, f), (size_t)n);
		text[n] = '\0';
		fclose(f);
		root = cJSON_Parse(text);
		assert_non_null(root);
		bad += same_as_cjson(files[i], root);
		cJSON_Delete(root);
		free(text);
	}
	UNIT_TABLE_DONE(bad, UNIT_ARRAY_LEN(files));
}

static void test_refused(void **state)
{
	cJSON *raw = cJSON_CreateRaw("x");

	(void)state;
	assert_null(cli_json_print(NULL));
	free(raw->valuestring);
	raw->valuestring = NULL;
	assert_null(cli_json_print(raw)); /* cJSON_Print refuses it too */
	assert_null(cJSON_Print(raw));
	cJSON_Delete(raw);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_numbers),
		cmocka_unit_test(test_strings_and_layout),
		cmocka_unit_test(test_catalog_documents),
		cmocka_unit_test(test_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
