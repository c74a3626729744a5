/*
 * Harness: a prices file (prices.c), the input is the file, loaded against
 * the built-in catalog. A set that loads must hold the loader's rules: every
 * entry names a catalog rig, has a positive price, a date, a source; one buy
 * per rig; the cheapest rent is no dearer than any rent of its rig.
 */
#include <string.h>

#include "clefrun/clefrun.h"
#include "fuzz.h"

static const cr_catalog *catalog(void)
{
	static cr_catalog *cat;
	static int tried;

	if (!tried) {
		cr_error err = CR_ERROR_INIT;

		tried = 1;
		if (cr_catalog_load_embedded(&cat, &err) != 0) {
			fprintf(stderr, "embedded catalog: %s\n", err.message);
			abort();
		}
	}
	return cat;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const cr_catalog *cat = catalog();
	cr_prices *p = NULL;
	cr_error err = CR_ERROR_INIT;
	char lo[11], hi[11];

	if (cr_prices_load_buffer((const char *)data, size, "prices.json", cat, &p, &err) != 0) {
		FUZZ_CHECK(p == NULL && err.status < 0 && err.message[0]);
		return 0;
	}
	FUZZ_CHECK(cr_prices_count(p) <= CR_PRICES_MAX);
	for (size_t i = 0; i < cr_prices_count(p); i++) {
		const cr_price *e = cr_prices_at(p, i);
		const cr_price *cheap;
		size_t n = 0;

		FUZZ_CHECK(cr_catalog_find_rig(cat, e->rig) != NULL);
		FUZZ_CHECK(e->usd >= CR_PRICE_USD_MIN && e->usd <= CR_PRICE_USD_MAX);
		FUZZ_CHECK(e->date[0] && e->what[0] && strncmp(e->source, "http", 4) == 0);
		if (e->kind == CR_PRICE_BUY) {
			FUZZ_CHECK(cr_prices_buy(p, e->rig) == e);
			FUZZ_CHECK(e->provider[0] == '\0');
		} else {
			cheap = cr_prices_cheapest_rent(p, e->rig, &n);
			FUZZ_CHECK(cheap && n >= 1 && cheap->usd <= e->usd && e->provider[0]);
		}
	}
	cr_prices_date_range(p, lo, hi);
	FUZZ_CHECK(cr_prices_count(p) == 0 ? lo[0] == '\0' : strcmp(lo, hi) <= 0);
	cr_prices_free(p);
	return 0;
}
