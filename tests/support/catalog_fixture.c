/* The embedded catalog as a cmocka fixture (catalog_fixture.h). */
#include "catalog_fixture.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

cr_catalog *ts_cat;

int ts_catalog_setup(void **state)
{
	cr_error err = CR_ERROR_INIT;

	(void)state;
	if (cr_catalog_load_embedded(&ts_cat, &err)) {
		print_error("%s\n", err.message);
		return -1;
	}
	return 0;
}

int ts_catalog_teardown(void **state)
{
	(void)state;
	cr_catalog_free(ts_cat);
	ts_cat = NULL;
	return 0;
}

const cr_model *ts_model(const char *id)
{
	const cr_model *m = cr_catalog_find_model(ts_cat, id);

	if (!m)
		fail_msg("model %s not in the catalog", id);
	return m;
}

const cr_quant *ts_quant(const char *id)
{
	const cr_quant *q = cr_catalog_find_quant(ts_cat, id);

	if (!q)
		fail_msg("quant %s not in the catalog", id);
	return q;
}
