/*
 * A program outside the project, built against the installed library (with
 * pkg-config, or CMake's find_package): the estimate of Clef-flash at Q4_K_M
 * on an RTX 4090 at an 8k context, as one CSV line that tests/install
 * compares with `clefrun check --format csv` of the installed program.
 */
#include <stdio.h>
#include <string.h>

#include <clefrun/clefrun.h>

int main(void)
{
	cr_estimate_opts o = CR_ESTIMATE_OPTS_INIT;
	cr_catalog *cat = NULL;
	cr_error err = CR_ERROR_INIT;
	const cr_model *m;
	const cr_quant *q;
	const cr_rig *r;
	cr_estimate e;
	char why[160];

	if (strcmp(cr_version(), CR_VERSION_STRING) != 0) {
		fprintf(stderr, "consumer: library %s, header %s\n", cr_version(), CR_VERSION_STRING);
		return 1;
	}
	if (cr_catalog_load_embedded(&cat, &err)) {
		fprintf(stderr, "consumer: %s\n", err.message);
		return 1;
	}
	m = cr_catalog_find_model(cat, "clef-flash");
	q = cr_catalog_find_quant(cat, "Q4_K_M");
	r = cr_catalog_find_rig(cat, "rtx4090");
	if (!m || !q || !r) {
		fprintf(stderr, "consumer: catalog ids missing\n");
		cr_catalog_free(cat);
		return 1;
	}
	o.n_ctx = 8192;
	o.flash_attn = cr_estimate_resolve_flash_attn(m, r, CR_FA_AUTO, why, sizeof(why));
	if (cr_estimate_run(m, q, r, &o, &e, &err)) {
		fprintf(stderr, "consumer: %s\n", err.message);
		cr_catalog_free(cat);
		return 1;
	}
	printf("%s,%s,%s,%llu,%u,%s\n", m->id, q->id, r->id, (unsigned long long)e.memory.total_bytes,
	       e.max_context, cr_tier_name(e.tier));
	cr_catalog_free(cat);
	return 0;
}
