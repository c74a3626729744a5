/*
 * Harness: a Hugging Face tree listing, the JSON body of
 * {endpoint}/api/models/{repo}/tree/{revision} (hf.c), and what the CLI
 * does with its entries: guess the quant of each, pick one.
 */
#include <string.h>

#include "clefrun/clefrun.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	cr_error err = CR_ERROR_INIT;
	cr_hf_entry *e = NULL;
	size_t n = 0, idx;

	if (cr_hf_parse_tree((const char *)data, size, "tree", &e, &n, &err) != 0) {
		FUZZ_CHECK(e == NULL && n == 0 && err.status < 0 && err.message[0]);
		return 0;
	}
	for (size_t i = 0; i < n; i++) {
		char q[CR_ID_MAX];

		FUZZ_CHECK(memchr(e[i].path, '\0', sizeof(e[i].path)) != NULL);
		FUZZ_CHECK(memchr(e[i].quant, '\0', sizeof(e[i].quant)) != NULL);
		FUZZ_CHECK(e[i].parts >= 1);
		(void)cr_hf_guess_quant(e[i].path, q, sizeof(q));
		(void)cr_hf_guess_quant(e[i].path, q, 3);
		if (e[i].quant[0] && !e[i].projector) /* pick_quant skips projectors */
			FUZZ_CHECK(cr_hf_pick_quant(e, n, e[i].quant, &idx) == 0 && idx < n);
	}
	(void)cr_hf_pick_quant(e, n, "Q4_K_M", &idx);
	free(e);
	return 0;
}
