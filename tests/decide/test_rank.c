/*
 * test_rank: the smallest rig that fits (rank.h). Table rows of estimates
 * (usable memory, decode speed, fits, largest context) with the index each
 * need wants: the least usable memory among the rigs that fit, a tie to the
 * faster decode then to the earlier rig, NULL entries skipped, n when none
 * fits; the argument errors; and real estimates of a catalog model on
 * three catalog rigs.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "clefrun/catalog.h"
#include "clefrun/estimate.h"
#include "clefrun/rank.h"

#define GIB 1073741824ull
#define MAX_EST 4

typedef struct fake {
	double avail_gib, tps;
	bool fits;
	uint32_t max_ctx;
} fake;

typedef struct rank_row {
	const char *name;
	fake est[MAX_EST];
	size_t n;
	bool null_at[MAX_EST];
	size_t want_ctx, want_full; /* CR_RANK_CONTEXT, CR_RANK_FULL_CONTEXT */
} rank_row;

#define CTX_MAX 131072u

static const rank_row rows[] = {
	{ "least memory wins", { { 80, 50, true, CTX_MAX }, { 24, 90, true, 65536 }, { 48, 10, true, CTX_MAX } },
	  3, { false }, 1, 2 },
	{ "a rig that does not fit is no candidate", { { 8, 200, false, 0 }, { 24, 90, true, CTX_MAX } }, 2,
	  { false }, 1, 1 },
	{ "a tie goes to the faster", { { 24, 60, true, CTX_MAX }, { 24, 90, true, CTX_MAX }, { 24, 90, true, CTX_MAX } },
	  3, { false }, 1, 1 },
	{ "none fits: n", { { 8, 0, false, 0 }, { 11, 0, false, 4096 } }, 2, { false }, 2, 2 },
	{ "no rigs: 0", { { 0, 0, false, 0 } }, 0, { false }, 0, 0 },
	{ "NULL entries are skipped", { { 16, 40, true, CTX_MAX }, { 32, 40, true, CTX_MAX } }, 2, { true, false },
	  1, 1 },
	{ "the whole context, not the report's", { { 16, 40, true, 32768 }, { 32, 40, true, CTX_MAX - 1 },
	  { 64, 40, true, CTX_MAX } }, 3, { false }, 0, 2 },
};

static void test_rows(void **state)
{
	bool ok = true;

	(void)state;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const rank_row *row = &rows[i];
		cr_estimate est[MAX_EST];
		const cr_estimate *p[MAX_EST];
		size_t got_ctx = 99, got_full = 99;
		cr_error err = CR_ERROR_INIT;

		memset(est, 0, sizeof(est));
		for (size_t k = 0; k < row->n; k++) {
			est[k].memory.available_bytes = (uint64_t)(row->est[k].avail_gib * GIB);
			est[k].decode_tokens_per_s = row->est[k].tps;
			est[k].fits = row->est[k].fits;
			est[k].max_context = row->est[k].max_ctx;
			p[k] = row->null_at[k] ? NULL : &est[k];
		}
		assert_int_equal(cr_rank_smallest_rig(p, row->n, CR_RANK_CONTEXT, CTX_MAX, &got_ctx, &err), CR_OK);
		assert_int_equal(cr_rank_smallest_rig(p, row->n, CR_RANK_FULL_CONTEXT, CTX_MAX, &got_full, &err), CR_OK);
		if (got_ctx != row->want_ctx || got_full != row->want_full) {
			print_error("row \"%s\": want %zu/%zu, got %zu/%zu\n", row->name, row->want_ctx, row->want_full,
				    got_ctx, got_full);
			ok = false;
		}
	}
	assert_true(ok);
}

static void test_errors(void **state)
{
	cr_estimate e;
	const cr_estimate *p[1] = { &e };
	size_t out = 7;
	cr_error err = CR_ERROR_INIT;

	(void)state;
	memset(&e, 0, sizeof(e));
	assert_int_equal(cr_rank_smallest_rig(NULL, 1, CR_RANK_CONTEXT, 1, &out, &err), CR_ERR_INVALID);
	assert_int_equal(err.status, CR_ERR_INVALID);
	assert_int_equal(cr_rank_smallest_rig(p, 1, CR_RANK_CONTEXT, 1, NULL, &err), CR_ERR_INVALID);
	assert_int_equal(cr_rank_smallest_rig(p, 1, (cr_rank_need)7, 1, &out, &err), CR_ERR_INVALID);
	assert_string_equal(err.message, "rank: unknown need 7");
	assert_int_equal(out, 7); /* untouched on an error */
	assert_int_equal(cr_rank_smallest_rig(NULL, 0, CR_RANK_CONTEXT, 1, &out, NULL), CR_OK);
	assert_int_equal(out, 0);
}

/* Real estimates: llama-3.1-8b at Q4_K_M on a 24 GiB, an 11 GiB and an
 * 80 GiB card; 8k fits all three, the smallest is the 11 GiB card; the
 * whole 128k context does not fit on it. */
static void test_catalog(void **state)
{
	static const char *const rig_ids[] = { "rtx4090", "gtx1080ti", "h100-sxm" };
	cr_catalog *cat = NULL;
	cr_error err = CR_ERROR_INIT;
	cr_estimate est[3];
	const cr_estimate *p[3];
	cr_estimate_opts o = CR_ESTIMATE_OPTS_INIT;
	const cr_model *m;
	const cr_quant *q;
	size_t at_ctx, at_full;

	(void)state;
	assert_int_equal(cr_catalog_load_embedded(&cat, &err), CR_OK);
	m = cr_catalog_find_model(cat, "llama-3.1-8b");
	q = cr_catalog_find_quant(cat, "Q4_K_M");
	assert_non_null(m);
	assert_non_null(q);
	for (int i = 0; i < 3; i++) {
		const cr_rig *r = cr_catalog_find_rig(cat, rig_ids[i]);

		assert_non_null(r);
		assert_int_equal(cr_estimate_run(m, q, r, &o, &est[i], &err), CR_OK);
		p[i] = &est[i];
	}
	assert_int_equal(cr_rank_smallest_rig(p, 3, CR_RANK_CONTEXT, m->context_max, &at_ctx, &err), CR_OK);
	assert_int_equal(cr_rank_smallest_rig(p, 3, CR_RANK_FULL_CONTEXT, m->context_max, &at_full, &err), CR_OK);
	assert_int_equal(at_ctx, 1);
	assert_true(est[1].max_context < m->context_max);
	assert_int_not_equal(at_full, 1);
	for (size_t i = 0; i < 3; i++)
		if (est[i].max_context >= m->context_max)
			assert_true(est[at_full].memory.available_bytes <= est[i].memory.available_bytes);
	cr_catalog_free(cat);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rows),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_catalog),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
