/*
 * test_vision: vision projectors (vision.h, src/lib/estimate/vision.c).
 *
 * Image tokens worked by hand from clip.cpp's rules (Qwen-VL's smart resize
 * and Gemma 3's fixed square), the tower's parameters against
 * tests/catalog/param_count.py, its F16 bytes against a published mmproj
 * file, the compute buffer's formula at clip's warm-up image, where the
 * bytes sit, and what the estimator does with them.
 */
#include "unit.h"

#include <string.h>

#include "catalog_fixture.h"
#include "clefrun/catalog.h"
#include "clefrun/estimate.h"
#include "clefrun/plan.h"
#include "clefrun/vision.h"

#define MIB (1024.0 * 1024.0)

/* The Qwen3.5/3.6 tower as llama.cpp reads it from an mmproj file. */
static cr_vision_encoder qwen(void)
{
	cr_vision_encoder e;

	memset(&e, 0, sizeof(e));
	e.kind = CR_VISION_QWEN_VL;
	e.layers = 27;
	e.hidden = 1152;
	e.ffn = 4304;
	e.heads = 16;
	e.patch = 16;
	e.merge = 2;
	return e;
}

static cr_vision_encoder gemma3(void)
{
	cr_vision_encoder e;

	memset(&e, 0, sizeof(e));
	e.kind = CR_VISION_GEMMA3;
	e.layers = 27;
	e.hidden = 1152;
	e.ffn = 4304;
	e.heads = 16;
	e.patch = 14;
	e.image_size = 896;
	return e;
}

static void tokens_of(const cr_vision_encoder *e, uint32_t w, uint32_t h, uint32_t rw, uint32_t rh,
		      uint32_t tokens)
{
	cr_vision_image img;
	cr_error err = CR_ERROR_INIT;

	assert_int_equal(cr_vision_image_tokens(e, w, h, &img, &err), CR_OK);
	assert_int_equal(img.width, rw);
	assert_int_equal(img.height, rh);
	assert_int_equal(img.tokens, tokens);
	assert_int_equal(img.patches, (rw / e->patch) * (rh / e->patch));
}

/* Qwen-VL: sides rounded to multiples of patch x merge = 32, the area kept
 * within 8..4096 tokens of 32 x 32 pixels, one token per 32 x 32 block. */
static void test_qwen_tokens(void **state)
{
	cr_vision_encoder e = qwen();
	cr_error err = CR_ERROR_INIT;

	(void)state;
	assert_int_equal(cr_vision_complete(&e, &err), CR_OK);
	assert_int_equal(e.min_tokens, 8);
	assert_int_equal(e.max_tokens, 4096);
	assert_int_equal(e.warmup_tokens, 46 * 46);
	/* 1024 / 32 = 32 per side: 32 x 32 = 1024 tokens, no resize. */
	tokens_of(&e, 1024, 1024, 1024, 1024, 1024);
	/* 720 / 32 = 22.5 rounds (half away from zero) to 23: 736; 40 x 23 = 920. */
	tokens_of(&e, 1280, 720, 1280, 736, 920);
	/* 4000 x 3008 passes 4096 x 1024 pixels: beta = sqrt(12e6 / 4194304) =
	 * 1.69146; 3000 / beta / 32 = 55.43 -> 55 x 32 = 1760, 4000 / beta / 32
	 * = 73.90 -> 73 x 32 = 2336; 73 x 55 = 4015 tokens. */
	tokens_of(&e, 4000, 3000, 2336, 1760, 4015);
	/* 10 x 10 rounds to 32 x 32 (1024 px), below 8 x 1024: beta =
	 * sqrt(8192 / 100) = 9.051; ceil(10 x 9.051 / 32) = 3 -> 96; 3 x 3 = 9. */
	tokens_of(&e, 10, 10, 96, 96, 9);
	/* A tall strip: 64 x 2000 -> 64 x 2016 (63 blocks), 2 x 63 = 126. */
	tokens_of(&e, 64, 2000, 64, 2016, 126);
}

/* Gemma 3: every image becomes 896 x 896, 64 x 64 patches pooled 4 x 4:
 * 16 x 16 = 256 tokens, whatever came in. */
static void test_gemma3_tokens(void **state)
{
	cr_vision_encoder e = gemma3();
	cr_error err = CR_ERROR_INIT;

	(void)state;
	assert_int_equal(cr_vision_complete(&e, &err), CR_OK);
	assert_int_equal(e.merge, 4);
	assert_int_equal(e.warmup_tokens, 256);
	tokens_of(&e, 1024, 1024, 896, 896, 256);
	tokens_of(&e, 1920, 1080, 896, 896, 256);
	tokens_of(&e, 1, 1, 896, 896, 256);
	/* An image size that is no multiple of patch x merge is refused. */
	e = gemma3();
	e.image_size = 900;
	assert_int_equal(cr_vision_complete(&e, &err), CR_ERR_INVALID);
}

static void test_bad_images(void **state)
{
	cr_vision_encoder e = qwen(), none;
	cr_vision_image img;
	cr_error err = CR_ERROR_INIT;

	(void)state;
	assert_int_equal(cr_vision_complete(&e, &err), CR_OK);
	assert_int_equal(cr_vision_image_tokens(&e, 0, 10, &img, &err), CR_ERR_INVALID);
	assert_int_equal(cr_vision_image_tokens(&e, 10, CR_VISION_MAX_SIDE + 1, &img, &err), CR_ERR_INVALID);
	assert_int_equal(cr_vision_image_tokens(&e, CR_VISION_MAX_SIDE, CR_VISION_MAX_SIDE, &img, &err), CR_OK);
	assert_true(img.tokens <= 4096);
	memset(&none, 0, sizeof(none));
	assert_int_equal(cr_vision_complete(&none, &err), CR_ERR_UNSUPPORTED);
	assert_int_equal(cr_vision_kind_of("qwen3vl_merger"), CR_VISION_QWEN_VL);
	assert_int_equal(cr_vision_kind_of("qwen2.5vl_merger"), CR_VISION_QWEN_VL);
	assert_int_equal(cr_vision_kind_of("gemma3"), CR_VISION_GEMMA3);
	assert_int_equal(cr_vision_kind_of("pixtral"), CR_VISION_NONE);
	assert_int_equal(cr_vision_kind_of(NULL), CR_VISION_NONE);
}

/* The catalog tower: the same count as tests/catalog/param_count.py's
 * vision() (456010480 for Clef-flash, 460730096 for Clef), and F16 bytes
 * that match a published file: Qwen3.6-27B's mmproj-BF16.gguf (the Clef
 * tower's shape: 27 x 1152 into 5120) loads as "model size: 887.99 MiB". */
static void test_catalog_weights(void **state)
{
	const cr_model *flash = ts_model("clef-flash"), *clef = ts_model("clef");
	cr_vision_encoder e, q8, f32;
	cr_error err = CR_ERROR_INIT;

	(void)state;
	assert_int_equal(cr_vision_params(flash), 456010480u);
	assert_int_equal(cr_vision_params(clef), 460730096u);
	assert_int_equal(cr_vision_params(ts_model("llama-3.1-8b")), 0);
	assert_int_equal(cr_vision_from_model(clef, CR_VISION_F16, &e, &err), CR_OK);
	assert_int_equal(e.params, 460730096u);
	assert_true(e.weights_bytes / MIB > 887.99 * 0.999 && e.weights_bytes / MIB < 887.99 * 1.001);
	assert_string_equal(e.type, "F16");
	assert_string_equal(e.projector, "qwen3vl_merger");
	/* F32 is 4 B a weight; Q8_0 is smaller than F16 but keeps the ffn_down
	 * matrices (rows of 4304, no multiple of 32) in F16. */
	assert_int_equal(cr_vision_from_model(clef, CR_VISION_F32, &f32, &err), CR_OK);
	assert_int_equal(f32.weights_bytes, 4 * 460730096ull);
	assert_int_equal(cr_vision_from_model(clef, CR_VISION_Q8_0, &q8, &err), CR_OK);
	assert_true(q8.weights_bytes < e.weights_bytes);
	assert_true(q8.weights_bytes > 27ull * 4304 * 1152 * 2);
	assert_int_equal(cr_vision_from_model(ts_model("llama-3.1-8b"), CR_VISION_F16, &e, &err),
			 CR_ERR_NOTFOUND);
}

/* The compute buffer at clip's warm-up (46 x 46 tokens = 8464 patches):
 * 8464 x (4304 + 3 x 1152) x 4 B with flash attention, + 8464² x 16 x 4 B
 * without; the host input 1472² x 3 x 4 B + 8464 x 4 x 4 B. A larger image
 * grows it; a smaller one does not shrink it. */
static void test_compute(void **state)
{
	cr_vision_encoder e = qwen();
	cr_vision_request rq = CR_VISION_REQUEST_INIT;
	cr_vision_use u;
	cr_error err = CR_ERROR_INIT;

	(void)state;
	assert_int_equal(cr_vision_complete(&e, &err), CR_OK);
	e.weights_bytes = 1000;
	rq.images = 1; /* 1024 x 1024: 4096 patches, below the warm-up */
	assert_int_equal(cr_vision_plan(&e, &rq, &u, &err), CR_OK);
	assert_int_equal(u.compute_patches, 8464);
	assert_int_equal(u.compute_bytes, 8464ull * 7760 * 4);
	assert_int_equal(u.input_bytes, 1472ull * 1472 * 12 + 8464ull * 16);
	assert_int_equal(u.image_tokens, 1024);
	assert_true(u.offload);
	assert_int_equal(u.device_bytes, 1000 + u.compute_bytes);
	assert_int_equal(u.host_bytes, u.input_bytes);
	/* The logged 248.10 MiB and 24.93 MiB, within 1 %. */
	assert_true(u.compute_bytes / MIB > 248.10 * 0.99 && u.compute_bytes / MIB < 248.10 * 1.02);
	assert_true(u.input_bytes / MIB > 24.93 * 0.995 && u.input_bytes / MIB < 24.93 * 1.005);

	rq.flash_attn = false;
	assert_int_equal(cr_vision_plan(&e, &rq, &u, &err), CR_OK);
	assert_int_equal(u.compute_bytes, 8464ull * 7760 * 4 + 8464ull * 8464 * 16 * 4);

	rq.flash_attn = true;
	rq.width = 4000;
	rq.height = 3000; /* 2336 x 1760: 146 x 110 = 16060 patches */
	rq.images = 3;
	rq.offload = false;
	assert_int_equal(cr_vision_plan(&e, &rq, &u, &err), CR_OK);
	assert_int_equal(u.compute_patches, 16060);
	assert_int_equal(u.compute_bytes, 16060ull * 7760 * 4);
	assert_int_equal(u.image_tokens, 3 * 4015);
	assert_int_equal(u.device_bytes, 0);
	assert_int_equal(u.host_bytes, 1000 + u.compute_bytes + u.input_bytes);

	/* No images: the projector alone, at the warm-up. */
	rq.images = 0;
	assert_int_equal(cr_vision_plan(&e, &rq, &u, &err), CR_OK);
	assert_int_equal(u.image_tokens, 0);
	assert_int_equal(u.compute_patches, 8464);
}

/* The estimator adds the bytes where they sit and moves nothing else. */
static void test_estimate(void **state)
{
	const cr_model *m = ts_model("clef-flash");
	const cr_rig *gpu = cr_catalog_find_rig(ts_cat, "rtx4090");
	const cr_rig *cpu = NULL;
	cr_estimate_opts o = CR_ESTIMATE_OPTS_INIT, v;
	cr_estimate a, b;
	cr_error err = CR_ERROR_INIT;

	(void)state;
	assert_non_null(gpu);
	for (size_t i = 0; i < cr_catalog_rig_count(ts_cat) && !cpu; i++) {
		const cr_rig *r = cr_catalog_rig_at(ts_cat, i);

		if (r->n_devices == 1 && r->devices[0].kind == CR_MEM_SYSTEM)
			cpu = r;
	}
	assert_non_null(cpu);
	assert_int_equal(cr_estimate_run(m, ts_quant("Q4_K_M"), gpu, &o, &a, &err), CR_OK);
	v = o;
	v.mmproj_device_bytes = 1000000000;
	v.mmproj_host_bytes = 25000000;
	assert_int_equal(cr_estimate_run(m, ts_quant("Q4_K_M"), gpu, &v, &b, &err), CR_OK);
	assert_int_equal(b.memory.mmproj_bytes, 1025000000);
	assert_int_equal(b.memory.device_bytes, a.memory.device_bytes + 1000000000);
	assert_int_equal(b.memory.host_bytes, a.memory.host_bytes + 25000000);
	assert_int_equal(b.devices[0].bytes_per_device, a.devices[0].bytes_per_device + 1000000000);
	assert_true(b.max_context < a.max_context || a.max_context == m->context_max);
	assert_true(b.decode_tokens_per_s == a.decode_tokens_per_s);
	/* In system RAM instead: the GPU is as without it. */
	v.mmproj_host_bytes += v.mmproj_device_bytes;
	v.mmproj_device_bytes = 0;
	assert_int_equal(cr_estimate_run(m, ts_quant("Q4_K_M"), gpu, &v, &b, &err), CR_OK);
	assert_int_equal(b.memory.device_bytes, a.memory.device_bytes);
	assert_int_equal(b.memory.host_bytes, a.memory.host_bytes + 1025000000);
	/* A CPU-only rig holds both parts in RAM. */
	assert_int_equal(cr_estimate_run(m, ts_quant("Q4_K_M"), cpu, &o, &a, &err), CR_OK);
	v = o;
	v.mmproj_device_bytes = 1000000000;
	v.mmproj_host_bytes = 25000000;
	assert_int_equal(cr_estimate_run(m, ts_quant("Q4_K_M"), cpu, &v, &b, &err), CR_OK);
	assert_int_equal(b.memory.total_bytes, a.memory.total_bytes + 1025000000);
}

/* --fixes: a projector on a GPU that is short of room is offered in system
 * RAM first after q8_0 KV; the fix moves its GPU bytes to RAM, nothing else,
 * and is not offered without a projector on the GPU. */
static void test_fix(void **state)
{
	const cr_model *m = ts_model("clef-flash");
	const cr_rig *r = cr_catalog_find_rig(ts_cat, "rtx4060");
	cr_estimate_opts o = CR_ESTIMATE_OPTS_INIT;
	cr_fix fx[CR_FIX_COUNT];
	cr_estimate now;
	cr_weights w;
	size_t n = 0;
	cr_error err = CR_ERROR_INIT;

	(void)state;
	assert_non_null(r);
	cr_weights_preset(ts_quant("Q5_K_M"), &w);
	o.n_ctx = 12288;
	o.mmproj_device_bytes = 1184407488; /* 879.0 + 250.6 MiB: the catalog tower, F16 */
	o.mmproj_host_bytes = 26136832;
	assert_int_equal(cr_plan_fixes(m, &w, r, &o, NULL, 0, fx, CR_FIX_COUNT, &n, &now, &err), CR_OK);
	assert_false(now.fits && now.tier != CR_TIER_TIGHT);
	assert_true(n >= 1);
	assert_int_equal(fx[0].kind, CR_FIX_NO_MMPROJ_OFFLOAD);
	assert_string_equal(cr_fix_kind_name(fx[0].kind), "no-mmproj-offload");
	assert_int_equal(fx[0].opts.mmproj_device_bytes, 0);
	assert_int_equal(fx[0].opts.mmproj_host_bytes, 1184407488ull + 26136832);
	assert_int_equal(fx[0].opts.n_ctx, o.n_ctx);
	assert_true(fx[0].estimate.fits);
	/* Already in RAM: no such fix. */
	o.mmproj_host_bytes += o.mmproj_device_bytes;
	o.mmproj_device_bytes = 0;
	assert_int_equal(cr_plan_fixes(m, &w, r, &o, NULL, 0, fx, CR_FIX_COUNT, &n, &now, &err), CR_OK);
	for (size_t i = 0; i < n; i++)
		assert_int_not_equal(fx[i].kind, CR_FIX_NO_MMPROJ_OFFLOAD);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_qwen_tokens),
		cmocka_unit_test(test_gemma3_tokens),
		cmocka_unit_test(test_bad_images),
		cmocka_unit_test(test_catalog_weights),
		cmocka_unit_test(test_compute),
		cmocka_unit_test(test_estimate),
		cmocka_unit_test(test_fix),
	};

	return cmocka_run_group_tests(tests, ts_catalog_setup, ts_catalog_teardown);
}
