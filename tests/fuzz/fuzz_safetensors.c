/*
 * Harness: a safetensors file's first bytes (safetensors.h), parsed as a
 * whole file and as a header whose data is missing, and read through a
 * memory source as cr_st_read does for a file or URL.
 */
#include <string.h>

#include "clefrun/clefrun.h"
#include "fuzz.h"

static void check(const cr_st_header *h, uint64_t size)
{
	uint64_t sum = 0;

	FUZZ_CHECK(h->data_start == 8 + h->header_len);
	FUZZ_CHECK(h->truncated || h->data_start + h->data_bytes == size);
	for (size_t i = 0; i < h->n_tensors; i++) {
		const cr_st_tensor *t = &h->tensors[i];

		FUZZ_CHECK(t->begin == (i ? h->tensors[i - 1].end : 0));
		FUZZ_CHECK((t->end - t->begin) * 8 == t->elements * cr_st_dtype_bits(t->dtype));
		FUZZ_CHECK(t->n_dims <= CR_ST_MAX_DIMS && t->name[0]);
	}
	for (unsigned d = 0; d < CR_ST_DTYPE_COUNT; d++)
		sum += h->type_bytes[d];
	FUZZ_CHECK(sum == h->data_bytes);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	cr_error err = CR_ERROR_INIT;
	cr_st_header *h = NULL;
	cr_st_opts o = CR_ST_OPTS_INIT;
	cr_source *src = NULL;

	if (cr_st_parse(data, size, size, "fuzz", NULL, &h, &err) == 0) {
		check(h, size);
		cr_st_free(h);
	} else {
		FUZZ_CHECK(h == NULL && err.status < 0 && err.message[0]);
	}
	o.allow_truncated = true;
	FUZZ_ERR_RESET(err);
	if (cr_st_parse(data, size, size, "fuzz", &o, &h, &err) == 0) {
		check(h, size);
		cr_st_free(h);
	} else {
		FUZZ_CHECK(h == NULL && err.status < 0 && err.message[0]);
	}
	if (cr_source_open_memory(data, size, "fuzz", false, &src, &err) == 0) {
		FUZZ_ERR_RESET(err);
		if (cr_st_read(src, NULL, &h, &err) == 0) {
			check(h, size);
			cr_st_free(h);
		} else {
			FUZZ_CHECK(h == NULL && err.status < 0 && err.message[0]);
		}
		cr_source_free(src);
	}
	return 0;
}
