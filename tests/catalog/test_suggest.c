/*
 * test_suggest: "did you mean" (suggest.c) and the case-insensitive
 * lookups it backs up (catalog.c). A table of mistyped names gives the id
 * that must come first for each kind of record, names far from every id
 * must suggest nothing, and the result list must be ordered, bounded by
 * `max` and free of duplicates.
 */
#include "unit.h"

#include "catalog_fixture.h"
#include "clefrun/catalog.h"

static const struct {
	cr_catalog_kind kind;
	const char *typed, *first;
} first_rows[] = {
	{ CR_KIND_MODEL, "clef-flsh", "clef-flash" },
	{ CR_KIND_MODEL, "CLEF-FLASHH", "clef-flash" },
	{ CR_KIND_MODEL, "lama-3.1-8b", "llama-3.1-8b" },
	{ CR_KIND_MODEL, "gpt-oss-20", "gpt-oss-20b" },
	{ CR_KIND_MODEL, "deepseek-v", "deepseek-v3" },
	{ CR_KIND_RIG, "rtx490", "rtx4090" },
	{ CR_KIND_RIG, "4h100", "4xh100" },
	{ CR_KIND_RIG, "RTX-4090", "rtx4090" },
	{ CR_KIND_QUANT, "Q4_KM", "Q4_K_M" },
	{ CR_KIND_QUANT, "q4_k_mm", "Q4_K_M" },
	{ CR_KIND_QUANT, "Q8", "Q8_0" },
};

static void test_suggest_first(void **state)
{
	unsigned bad = 0;

	(void)state;
	for (size_t i = 0; i < UNIT_ARRAY_LEN(first_rows); i++) {
		const char *out[8] = { NULL };
		size_t n = cr_catalog_suggest(ts_cat, first_rows[i].kind, first_rows[i].typed, out, 8);

		if (n == 0 || strcmp(out[0], first_rows[i].first) != 0) {
			print_error("\"%s\": %zu suggestions, first \"%s\"; want \"%s\"\n",
				    first_rows[i].typed, n, n ? out[0] : "", first_rows[i].first);
			bad++;
		}
	}
	UNIT_TABLE_DONE(bad, UNIT_ARRAY_LEN(first_rows));
}

static void test_suggest_nothing(void **state)
{
	static const char *const far[] = { "zzzzzzzz", "qqqqqqqqqqqqqqqqqqqqqqqqqqqq", "9999999" };
	const char *out[8];

	(void)state;
	for (size_t i = 0; i < UNIT_ARRAY_LEN(far); i++) {
		assert_int_equal(cr_catalog_suggest(ts_cat, CR_KIND_MODEL, far[i], out, 8), 0);
		assert_int_equal(cr_catalog_suggest(ts_cat, CR_KIND_RIG, far[i], out, 8), 0);
		assert_int_equal(cr_catalog_suggest(ts_cat, CR_KIND_QUANT, far[i], out, 8), 0);
	}
}

/* Bounded by max (and by 8), no id twice, every pointer a catalog id. */
static void test_suggest_bounds(void **state)
{
	const char *out[16];
	size_t n;

	(void)state;
	assert_int_equal(cr_catalog_suggest(ts_cat, CR_KIND_MODEL, "qwen3", out, 0), 0);
	n = cr_catalog_suggest(ts_cat, CR_KIND_MODEL, "qwen3", out, 1);
	assert_int_equal(n, 1);
	n = cr_catalog_suggest(ts_cat, CR_KIND_MODEL, "qwen3", out, 16);
	assert_true(n >= 2 && n <= 8);
	for (size_t i = 0; i < n; i++) {
		assert_non_null(cr_catalog_find_model(ts_cat, out[i]));
		assert_ptr_equal(cr_catalog_find_model(ts_cat, out[i])->id, out[i]);
		for (size_t j = i + 1; j < n; j++)
			assert_true(out[i] != out[j]);
	}
}

/* Regression (fixed): suggest.c cr_catalog_suggest computes its cut-off from the whole
 * name (limit = strlen(name) / 2 + 2) but distance() only looks at the first
 * 64 bytes, so a long name is compared by its prefix against a generous
 * limit: 120 times 'a' suggests 8 models (llama-2-7b, llama-3.1-8b, ...)
 * although every id is more than 70 edits away. Expected: no suggestion. */
static void test_suggest_long_name(void **state)
{
	char longname[121];
	const char *out[8];

	(void)state;
	memset(longname, 'a', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	assert_int_equal(cr_catalog_suggest(ts_cat, CR_KIND_MODEL, longname, out, 8), 0);
	assert_int_equal(cr_catalog_suggest(ts_cat, CR_KIND_RIG, longname, out, 8), 0);
}

/* The exact id comes first when it is typed correctly. */
static void test_suggest_exact(void **state)
{
	const char *out[8];

	(void)state;
	assert_true(cr_catalog_suggest(ts_cat, CR_KIND_MODEL, "clef", out, 8) >= 1);
	assert_string_equal(out[0], "clef");
	assert_true(cr_catalog_suggest(ts_cat, CR_KIND_RIG, "rtx4090", out, 8) >= 1);
	assert_string_equal(out[0], "rtx4090");
}

static void test_find_case_insensitive(void **state)
{
	const cr_quant *q;

	(void)state;
	q = cr_catalog_find_quant(ts_cat, "q4_k_m");
	assert_non_null(q);
	assert_string_equal(q->id, "Q4_K_M");
	assert_ptr_equal(cr_catalog_find_quant(ts_cat, "Q4_K_M"), q);
	assert_ptr_equal(cr_catalog_find_quant(ts_cat, "Q4_k_M"), q);
	assert_null(cr_catalog_find_quant(ts_cat, "q4_k"));
	assert_null(cr_catalog_find_quant(ts_cat, "q4_k_m "));
	assert_string_equal(cr_catalog_find_rig(ts_cat, "RTX4090")->id, "rtx4090");
	assert_string_equal(cr_catalog_find_model(ts_cat, "Llama-3.1-8B")->id, "llama-3.1-8b");
	assert_null(cr_catalog_find_rig(ts_cat, "rtx409"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_suggest_first),
		cmocka_unit_test(test_suggest_nothing),
		cmocka_unit_test(test_suggest_bounds),
		cmocka_unit_test(test_suggest_long_name),
		cmocka_unit_test(test_suggest_exact),
		cmocka_unit_test(test_find_case_insensitive),
	};

	return cmocka_run_group_tests(tests, ts_catalog_setup, ts_catalog_teardown);
}
