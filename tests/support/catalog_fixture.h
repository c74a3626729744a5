/*
 * The embedded catalog as a cmocka group fixture, and lookups that fail the
 * running test when an id is missing: what the estimator, curve and
 * suggestion suites share. Pass ts_catalog_setup / ts_catalog_teardown to
 * cmocka_run_group_tests; ts_cat is the catalog between the two.
 */
#ifndef CLEFRUN_TEST_CATALOG_FIXTURE_H
#define CLEFRUN_TEST_CATALOG_FIXTURE_H

#include "clefrun/catalog.h"

extern cr_catalog *ts_cat;

int ts_catalog_setup(void **state);
int ts_catalog_teardown(void **state);

/* The catalog's model / quant with this id; fails the test without one. */
const cr_model *ts_model(const char *id);
const cr_quant *ts_quant(const char *id);

#endif
