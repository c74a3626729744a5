/*
 * The built-in catalog: data/{models,quants,rigs}.json compiled in as C tables. The tables are
 * written at build time by src/gen/catalog_gen.c, which loads the JSON files
 * with cr_catalog_load_dir, so they passed every check a user's catalog
 * passes; opening the built-in catalog here costs one small allocation
 * instead of parsing 150 KB of JSON (docs/decisions.md, "The built-in
 * catalog as generated tables").
 */
#include "clefrun/catalog.h"

#include <stdlib.h>

#include "catalog_internal.h"
#include "util.h"

int cr_catalog_load_embedded(cr_catalog **out, cr_error *err)
{
	cr_catalog *cat = calloc(1, sizeof(*cat));

	*out = NULL;
	if (!cat)
		return cr_seterr(err, CR_ERR_NOMEM, "out of memory");
	/* owned[] stays NULL: cr_catalog_free frees the handle, not the tables. */
	cat->models = cr_builtin_models;
	cat->n_models = cr_builtin_n_models;
	cat->quants = cr_builtin_quants;
	cat->n_quants = cr_builtin_n_quants;
	cat->rigs = cr_builtin_rigs;
	cat->n_rigs = cr_builtin_n_rigs;
	*out = cat;
	return CR_OK;
}

const char *cr_catalog_version(void)
{
	return cr_embedded_version;
}

const char *cr_catalog_date(void)
{
	return cr_embedded_date;
}

const char *cr_catalog_sha256(void)
{
	return cr_embedded_sha256;
}
