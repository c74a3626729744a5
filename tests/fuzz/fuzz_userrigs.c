/*
 * Harness: the saved-rigs file (userrigs.c, through the catalog's rig
 * reader). The input is the file. It is loaded twice, without and with the
 * built-in catalog (whose rig ids a saved rig may not take); a set that
 * loads must serialize, and the serialized text must load back to the same
 * rigs (the file clefrun writes is always one it can read).
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

static void round_trip(const cr_user_rigs *set, const cr_catalog *cat)
{
	cr_user_rigs *again = NULL;
	cr_error err = CR_ERROR_INIT;
	char *text = NULL;
	size_t len = 0;

	FUZZ_CHECK(cr_userrigs_serialize(set, &text, &len, &err) == 0);
	FUZZ_CHECK(text && strlen(text) == len);
	if (cr_userrigs_load_buffer(text, len, "again", cat, &again, &err) != 0) {
		fprintf(stderr, "serialized set does not load back: %s\n%s", err.message, text);
		abort();
	}
	FUZZ_CHECK(cr_userrigs_count(again) == cr_userrigs_count(set));
	for (size_t i = 0; i < cr_userrigs_count(set); i++) {
		const cr_rig *a = cr_userrigs_at(set, i), *b = cr_userrigs_at(again, i);
		char *json = NULL;

		FUZZ_CHECK(strcmp(a->id, b->id) == 0 && a->n_devices == b->n_devices);
		FUZZ_CHECK(cr_userrigs_find(again, a->id) == b);
		FUZZ_CHECK(cr_userrigs_rig_json(a, &json, &err) == 0 && json);
		free(json);
	}
	cr_userrigs_free(again);
	free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const cr_catalog *cats[2] = { NULL, catalog() };

	for (int k = 0; k < 2; k++) {
		cr_user_rigs *set = NULL;
		cr_error err = CR_ERROR_INIT;
		const char *ids[8];

		if (cr_userrigs_load_buffer((const char *)data, size, "rigs.json", cats[k], &set,
					    &err) != 0) {
			FUZZ_CHECK(set == NULL && err.status < 0 && err.message[0]);
			continue;
		}
		round_trip(set, cats[k]);
		(void)cr_userrigs_suggest(set, cats[k], "rtx4090", ids, 8);
		if (cr_userrigs_count(set)) {
			const char *id = cr_userrigs_at(set, 0)->id;
			char copy[CR_NAME_MAX];

			memcpy(copy, id, sizeof(copy));
			FUZZ_CHECK(cr_userrigs_remove(set, copy, &err) == 0);
			FUZZ_CHECK(cr_userrigs_find(set, copy) == NULL);
		}
		cr_userrigs_free(set);
	}
	return 0;
}
