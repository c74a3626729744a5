/*
 * Harness: a Hugging Face config.json (hfconfig.h) mapped to a cr_model;
 * what comes out must be a model the estimator may take.
 */
#include <string.h>

#include "clefrun/clefrun.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	cr_error err = CR_ERROR_INIT;
	cr_hf_config c;

	if (cr_hfconfig_parse((const char *)data, size, "config.json", &c, &err) != 0) {
		FUZZ_CHECK(err.status < 0 && err.message[0]);
		return 0;
	}
	FUZZ_CHECK(c.model.n_layers >= 1 && c.model.n_layers <= CR_MAX_LAYERS);
	FUZZ_CHECK(c.model.hidden >= 1 && c.model.n_heads >= 1 && c.model.head_dim_k >= 1);
	FUZZ_CHECK(cr_model_kv_layers(&c.model) >= 1);
	FUZZ_CHECK(c.dtype_bytes == 2 || c.dtype_bytes == 4);
	FUZZ_CHECK(memchr(c.model_type, '\0', sizeof(c.model_type)) != NULL);
	for (uint32_t i = 0; i < c.model.n_layers; i++) {
		FUZZ_CHECK(c.model.layer_kind[i] <= CR_LAYER_RECURRENT);
		FUZZ_CHECK((c.model.layer_kind[i] == CR_LAYER_RECURRENT) == (c.model.kv_heads[i] == 0));
		FUZZ_CHECK(c.model.kv_heads[i] <= c.model.n_heads);
	}
	FUZZ_CHECK(c.model.window > 0 || cr_model_count_layers(&c.model, CR_LAYER_SLIDING) == 0);
	(void)cr_hf_quant_name(c.quant);
	return 0;
}
