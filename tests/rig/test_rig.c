/*
 * test_rig: ad-hoc rigs from a "custom:" spec (rig.c) and the rig sums.
 * A table of valid specs checks every parsed figure and the defaults
 * (one device, CUDA, discrete, all memory usable; backend=cpu implies system
 * RAM at 0.9, unified memory by platform: metal 2/3 up to 36 GiB and 3/4
 * above, CUDA (Linux) 0.79, ROCm/Vulkan 0.75; usable_gb overrides; ram_gb adds a system-RAM
 * group); a table of invalid specs checks the exact status and message of
 * every error the grammar has (prefix, missing and empty values, numbers
 * that are not numbers or out of range, unknown keys and enum values,
 * contradictory kind/backend, syntax, length). cr_rig_memory_bytes and
 * cr_rig_aggregate_bandwidth_gbs are checked on the reference rigs of the
 * shipped catalog and on specs.
 * The bounds of a rig's figures (rig.h CR_RIG_*) hold the same for the three
 * ways a rig is written: a "custom:" spec, a saved-rigs file (the rigs.json
 * format) and `rig add`'s figures accept and refuse the same values at each
 * bound, each naming its place (the spec's key, the JSON path, the figure),
 * and docs/schema/common.schema.json states the same bounds.
 */
#include "unit.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "clefrun/catalog.h"
#include "clefrun/rig.h"
#include "clefrun/userrigs.h"

#include <cjson/cJSON.h>

#define GIB 1073741824ull

typedef struct valid_row {
	const char *spec;
	uint32_t count;
	double mem_gib, bw_gbs, tflops;
	cr_backend backend;
	cr_mem_kind kind;
	double usable;
	double ram_gib, ram_bw_gbs; /* second group (system RAM); 0 if none */
} valid_row;

static const valid_row valid_rows[] = {
	{ "custom:mem_gb=24,bw_gbs=1008", 1, 24, 1008, 0, CR_BACKEND_CUDA, CR_MEM_DISCRETE, 1.0, 0, 0 },
	{ "custom:bw_gbs=936,mem_gb=24,devices=2,tflops=71", 2, 24, 936, 71, CR_BACKEND_CUDA,
	  CR_MEM_DISCRETE, 1.0, 0, 0 },
	{ "custom:mem_gb=128,bw_gbs=546,backend=metal", 1, 128, 546, 0, CR_BACKEND_METAL,
	  CR_MEM_UNIFIED, 0.75, 0, 0 },
	{ "custom:mem_gb=512,bw_gbs=204.8,backend=cpu", 1, 512, 204.8, 0, CR_BACKEND_CPU,
	  CR_MEM_SYSTEM, 0.9, 0, 0 },
	{ "custom:mem_gb=64,bw_gbs=89.6,kind=system", 1, 64, 89.6, 0, CR_BACKEND_CPU, CR_MEM_SYSTEM,
	  0.9, 0, 0 },
	{ "custom:mem_gb=64,bw_gbs=89.6,kind=system,backend=cpu", 1, 64, 89.6, 0, CR_BACKEND_CPU,
	  CR_MEM_SYSTEM, 0.9, 0, 0 },
	{ "custom:mem_gb=128,bw_gbs=273,kind=unified", 1, 128, 273, 0, CR_BACKEND_CUDA,
	  CR_MEM_UNIFIED, 0.79, 0, 0 },
	/* macOS's default wired limit: 2/3 of RAM up to 36 GiB, 3/4 above. */
	{ "custom:mem_gb=36,bw_gbs=300,backend=metal", 1, 36, 300, 0, CR_BACKEND_METAL,
	  CR_MEM_UNIFIED, 2.0 / 3.0, 0, 0 },
	{ "custom:mem_gb=48,bw_gbs=273,backend=metal", 1, 48, 273, 0, CR_BACKEND_METAL,
	  CR_MEM_UNIFIED, 0.75, 0, 0 },
	{ "custom:mem_gb=128,bw_gbs=256,backend=vulkan,kind=unified", 1, 128, 256, 0,
	  CR_BACKEND_VULKAN, CR_MEM_UNIFIED, 0.75, 0, 0 },
	/* A raised iogpu.wired_limit_mb: the user's figure. */
	{ "custom:mem_gb=128,bw_gbs=546,backend=metal,usable_gb=120", 1, 128, 546, 0,
	  CR_BACKEND_METAL, CR_MEM_UNIFIED, 120.0 / 128.0, 0, 0 },
	{ "custom:mem_gb=24,bw_gbs=1008,usable_gb=22", 1, 24, 1008, 0, CR_BACKEND_CUDA,
	  CR_MEM_DISCRETE, 22.0 / 24.0, 0, 0 },
	{ "custom:mem_gb=24,bw_gbs=960,backend=rocm,tflops=123", 1, 24, 960, 123, CR_BACKEND_ROCM,
	  CR_MEM_DISCRETE, 1.0, 0, 0 },
	{ "custom:kind=discrete,backend=vulkan,mem_gb=16,bw_gbs=456", 1, 16, 456, 0,
	  CR_BACKEND_VULKAN, CR_MEM_DISCRETE, 1.0, 0, 0 },
	{ "custom:mem_gb=36,bw_gbs=410,backend=metal,kind=discrete", 1, 36, 410, 0,
	  CR_BACKEND_METAL, CR_MEM_DISCRETE, 1.0, 0, 0 },
	{ "custom:mem_gb=0.001,bw_gbs=0.001", 1, 0.001, 0.001, 0, CR_BACKEND_CUDA, CR_MEM_DISCRETE,
	  1.0, 0, 0 },
	{ "custom:mem_gb=65536,bw_gbs=1e6,devices=64,tflops=1e6", 64, 65536, 1e6, 1e6,
	  CR_BACKEND_CUDA, CR_MEM_DISCRETE, 1.0, 0, 0 },
	{ "custom:mem_gb=24,bw_gbs=1008,devices=2,ram_gb=256,ram_bw_gbs=89.6", 2, 24, 1008, 0,
	  CR_BACKEND_CUDA, CR_MEM_DISCRETE, 1.0, 256, 89.6 },
};

static void test_parse_valid(void **state)
{
	unsigned bad = 0;

	(void)state;
	for (size_t i = 0; i < UNIT_ARRAY_LEN(valid_rows); i++) {
		const valid_row *row = &valid_rows[i];
		const cr_device *d;
		cr_rig r;
		cr_error err = CR_ERROR_INIT;
		int rc = cr_rig_parse_spec(row->spec, &r, &err);
		bool ok;

		if (rc != CR_OK) {
			print_error("row \"%s\": rc %d \"%s\"\n", row->spec, rc, err.message);
			bad++;
			continue;
		}
		d = &r.devices[0];
		ok = r.n_devices == (row->ram_gib > 0 ? 2u : 1u) && d->count == row->count &&
		     d->memory_gib == row->mem_gib && d->bandwidth_gbs == row->bw_gbs &&
		     d->fp16_tflops == row->tflops && d->backend == row->backend &&
		     d->kind == row->kind && d->usable_fraction == row->usable &&
		     strcmp(r.id, row->spec) == 0 && !r.reference && !r.unreleased &&
		     r.n_sources == 1 && strcmp(r.sources[0], "command line") == 0;
		if (ok && row->ram_gib > 0) {
			const cr_device *s = &r.devices[1];

			ok = s->count == 1 && s->memory_gib == row->ram_gib &&
			     s->bandwidth_gbs == row->ram_bw_gbs && s->backend == CR_BACKEND_CPU &&
			     s->kind == CR_MEM_SYSTEM && s->usable_fraction == 0.9;
		}
		if (!ok) {
			print_error("row \"%s\": got %u groups, %u x %g GiB, %g GB/s, %g TFLOPS, %s, %s, usable %g, id \"%s\"\n",
				    row->spec, r.n_devices, d->count, d->memory_gib, d->bandwidth_gbs,
				    d->fp16_tflops, cr_backend_name(d->backend),
				    cr_mem_kind_name(d->kind), d->usable_fraction, r.id);
			bad++;
		}
	}
	UNIT_TABLE_DONE(bad, UNIT_ARRAY_LEN(valid_rows));
}

/* The defaults are catalog.h's public constants, which the report's prose
 * prints: the boundary of the small Macs included. */
static void test_default_shares(void **state)
{
	static const struct {
		const char *spec;
		double share;
	} rows[] = {
		{ "custom:mem_gb=36,bw_gbs=400,backend=metal", CR_USABLE_METAL_SMALL },
		{ "custom:mem_gb=36.5,bw_gbs=400,backend=metal", CR_USABLE_METAL_LARGE },
		{ "custom:mem_gb=128,bw_gbs=273,backend=cuda,kind=unified", CR_USABLE_UNIFIED_CUDA },
		{ "custom:mem_gb=128,bw_gbs=256,backend=vulkan,kind=unified", CR_USABLE_UNIFIED_OTHER },
		{ "custom:mem_gb=64,bw_gbs=89.6,backend=cpu", CR_USABLE_SYSTEM },
		{ "custom:mem_gb=24,bw_gbs=1008", 1.0 },
	};
	(void)state;
	assert_true(CR_USABLE_METAL_SMALL_MAX_GIB >= 36.0 && CR_USABLE_METAL_SMALL_MAX_GIB < 36.5);
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		cr_rig r;
		cr_error err;

		assert_int_equal(cr_rig_parse_spec(rows[i].spec, &r, &err), CR_OK);
		if (r.devices[0].usable_fraction != rows[i].share)
			fail_msg("%s: usable_fraction %.17g, want %.17g", rows[i].spec, r.devices[0].usable_fraction,
				 rows[i].share);
	}
}

static void test_parse_name(void **state)
{
	cr_rig r;
	cr_error err = CR_ERROR_INIT;

	(void)state;
	assert_int_equal(cr_rig_parse_spec("custom:mem_gb=24,bw_gbs=1008,devices=2", &r, &err), CR_OK);
	assert_string_equal(r.name, "Custom 2x 24 GiB discrete, 1008 GB/s");
	assert_string_equal(r.devices[0].name, "custom device");
	/* No error record is needed on success or failure. */
	assert_int_equal(cr_rig_parse_spec("custom:mem_gb=24,bw_gbs=1008", &r, NULL), CR_OK);
	assert_int_equal(cr_rig_parse_spec("custom:mem_gb=24", &r, NULL), CR_ERR_INVALID);
}

typedef struct error_row {
	const char *spec;
	int status;
	const char *message;
} error_row;

#define UNKNOWN_KEY_TAIL "(expected mem_gb, bw_gbs, devices, tflops, backend, kind, usable_gb, ram_gb, ram_bw_gbs)"

static const error_row error_rows[] = {
	{ "custom:mem_gb=24,bw_gbs=1008,usable_gb=25", CR_ERR_INVALID,
	  "rig spec \"custom:mem_gb=24,bw_gbs=1008,usable_gb=25\": usable_gb 25 is more than mem_gb 24" },
	{ "custom:mem_gb=24,bw_gbs=1008,usable_gb=0.1", CR_ERR_INVALID,
	  "rig spec \"custom:mem_gb=24,bw_gbs=1008,usable_gb=0.1\": usable_gb 0.1 is under 1% of mem_gb 24" },
	{ "mem_gb=24,bw_gbs=1008", CR_ERR_PARSE,
	  "rig spec \"mem_gb=24,bw_gbs=1008\": must start with \"custom:\"" },
	{ "", CR_ERR_PARSE, "rig spec \"\": must start with \"custom:\"" },
	{ "custom", CR_ERR_PARSE, "rig spec \"custom\": must start with \"custom:\"" },
	{ "custom:", CR_ERR_INVALID, "rig spec \"custom:\": mem_gb is required" },
	{ "custom:bw_gbs=1008", CR_ERR_INVALID, "rig spec \"custom:bw_gbs=1008\": mem_gb is required" },
	{ "custom:mem_gb=24", CR_ERR_INVALID, "rig spec \"custom:mem_gb=24\": bw_gbs is required" },
	{ "custom:mem_gb=24,devices=2", CR_ERR_INVALID,
	  "rig spec \"custom:mem_gb=24,devices=2\": bw_gbs is required" },
	{ "custom:mem_gb=,bw_gbs=1008", CR_ERR_INVALID,
	  "rig spec \"custom:mem_gb=,bw_gbs=1008\": mem_gb: empty value" },
	{ "custom:mem_gb=24,bw_gbs=", CR_ERR_INVALID,
	  "rig spec \"custom:mem_gb=24,bw_gbs=\": bw_gbs: empty value" },
	{ "custom:mem_gb=24GB,bw_gbs=1008", CR_ERR_INVALID,
	  "rig spec \"custom:mem_gb=24GB,bw_gbs=1008\": mem_gb: \"24GB\" is not a number" },
	{ "custom:mem_gb=abc,bw_gbs=1008", CR_ERR_INVALID,
	  "rig spec \"custom:mem_gb=abc,bw_gbs=1008\": mem_gb: \"abc\" is not a number" },
	{ "custom:mem_gb=24,bw_gbs=nan", CR_ERR_INVALID,
	  "rig spec \"custom:mem_gb=24,bw_gbs=nan\": bw_gbs: \"nan\" is not a number" },
	{ "custom:mem_gb=inf,bw_gbs=1008", CR_ERR_INVALID,
	  "rig spec \"custom:mem_gb=inf,bw_gbs=1008\": mem_gb: \"inf\" is not a number" },
	{ "custom:mem_gb=1e999,bw_gbs=1008", CR_ERR_INVALID,
	  "rig spec \"custom:mem_gb=1e999,bw_gbs=1008\": mem_gb: \"1e999\" is not a number" },
	{ "custom:mem_gb=-24,bw_gbs=1008", CR_ERR_INVALID,
	  "rig spec \"custom:mem_gb=-24,bw_gbs=1008\": mem_gb: -24 is out of range (0.001 to 65536)" },
	{ "custom:mem_gb=0,bw_gbs=1008", CR_ERR_INVALID,
	  "rig spec \"custom:mem_gb=0,bw_gbs=1008\": mem_gb: 0 is out of range (0.001 to 65536)" },
	{ "custom:mem_gb=1e300,bw_gbs=1008", CR_ERR_INVALID,
	  "rig spec \"custom:mem_gb=1e300,bw_gbs=1008\": mem_gb: 1e+300 is out of range (0.001 to 65536)" },
	{ "custom:mem_gb=24,bw_gbs=-1008", CR_ERR_INVALID,
	  "rig spec \"custom:mem_gb=24,bw_gbs=-1008\": bw_gbs: -1008 is out of range (0.001 to 1e+06)" },
	{ "custom:mem_gb=24,bw_gbs=2e6", CR_ERR_INVALID,
	  "rig spec \"custom:mem_gb=24,bw_gbs=2e6\": bw_gbs: 2e+06 is out of range (0.001 to 1e+06)" },
	{ "custom:mem_gb=24,bw_gbs=1008,devices=0", CR_ERR_INVALID,
	  "rig spec \"custom:mem_gb=24,bw_gbs=1008,devices=0\": devices: 0 is out of range (1 to 64)" },
	{ "custom:mem_gb=24,bw_gbs=1008,devices=65", CR_ERR_INVALID,
	  "rig spec \"custom:mem_gb=24,bw_gbs=1008,devices=65\": devices: 65 is out of range (1 to 64)" },
	{ "custom:mem_gb=24,bw_gbs=1008,devices=1.5", CR_ERR_INVALID,
	  "rig spec \"custom:mem_gb=24,bw_gbs=1008,devices=1.5\": devices: expected a whole number" },
	{ "custom:mem_gb=24,bw_gbs=1008,tflops=-1", CR_ERR_INVALID,
	  "rig spec \"custom:mem_gb=24,bw_gbs=1008,tflops=-1\": tflops: -1 is out of range (0 to 1e+06)" },
	{ "custom:mem_gb=24,bw_gbs=1008,vram=24", CR_ERR_INVALID,
	  "rig spec \"custom:mem_gb=24,bw_gbs=1008,vram=24\": unknown key \"vram\" " UNKNOWN_KEY_TAIL },
	{ "custom:MEM_GB=24,bw_gbs=1008", CR_ERR_INVALID,
	  "rig spec \"custom:MEM_GB=24,bw_gbs=1008\": unknown key \"MEM_GB\" " UNKNOWN_KEY_TAIL },
	{ "custom: mem_gb=24,bw_gbs=1008", CR_ERR_INVALID,
	  "rig spec \"custom: mem_gb=24,bw_gbs=1008\": unknown key \" mem_gb\" " UNKNOWN_KEY_TAIL },
	{ "custom:mem_gb=24,bw_gbs=1008,backend=opencl", CR_ERR_INVALID,
	  "rig spec \"custom:mem_gb=24,bw_gbs=1008,backend=opencl\": backend: expected cuda, metal, rocm, vulkan or cpu, got \"opencl\"" },
	{ "custom:mem_gb=24,bw_gbs=1008,backend=", CR_ERR_INVALID,
	  "rig spec \"custom:mem_gb=24,bw_gbs=1008,backend=\": backend: expected cuda, metal, rocm, vulkan or cpu, got \"\"" },
	{ "custom:mem_gb=24,bw_gbs=1008,kind=hbm", CR_ERR_INVALID,
	  "rig spec \"custom:mem_gb=24,bw_gbs=1008,kind=hbm\": kind: expected discrete, unified or system, got \"hbm\"" },
	{ "custom:mem_gb=24,bw_gbs=1008,kind=system,backend=cuda", CR_ERR_INVALID,
	  "rig spec \"custom:mem_gb=24,bw_gbs=1008,kind=system,backend=cuda\": kind=system needs backend=cpu" },
	{ "custom:mem_gb=24,bw_gbs=1008,backend=metal,kind=system", CR_ERR_INVALID,
	  "rig spec \"custom:mem_gb=24,bw_gbs=1008,backend=metal,kind=system\": kind=system needs backend=cpu" },
	{ "custom:mem_gb=24,bw_gbs=1008,", CR_ERR_PARSE,
	  "rig spec \"custom:mem_gb=24,bw_gbs=1008,\": trailing comma" },
	{ "custom:mem_gb=24,bw_gbs=1008,mem_gb=48", CR_ERR_INVALID,
	  "rig spec \"custom:mem_gb=24,bw_gbs=1008,mem_gb=48\": mem_gb given twice" },
	/* A key equal to an earlier VALUE is not "given twice" (regression:
	 * the duplicate check compared values too). */
	{ "custom:mem_gb=24,bw_gbs=1008,backend=cuda,cuda=1", CR_ERR_INVALID,
	  "rig spec \"custom:mem_gb=24,bw_gbs=1008,backend=cuda,cuda=1\": unknown key \"cuda\" " UNKNOWN_KEY_TAIL },
	{ "custom:kind=unified,unified=1", CR_ERR_INVALID,
	  "rig spec \"custom:kind=unified,unified=1\": unknown key \"unified\" " UNKNOWN_KEY_TAIL },
	{ "custom:mem_gb=0x18,bw_gbs=1008", CR_ERR_INVALID,
	  "rig spec \"custom:mem_gb=0x18,bw_gbs=1008\": mem_gb: \"0x18\" is not a number" },
	{ "custom:mem_gb=inf,bw_gbs=1008", CR_ERR_INVALID,
	  "rig spec \"custom:mem_gb=inf,bw_gbs=1008\": mem_gb: \"inf\" is not a number" },
	{ "custom:mem_gb=24,bw_gbs=1008,ram_gb=64", CR_ERR_INVALID,
	  "rig spec \"custom:mem_gb=24,bw_gbs=1008,ram_gb=64\": ram_gb and ram_bw_gbs go together" },
	{ "custom:mem_gb", CR_ERR_PARSE, "rig spec \"custom:mem_gb\": \"mem_gb\" is not key=value" },
	{ "custom:mem_gb=24,bw_gbs", CR_ERR_PARSE,
	  "rig spec \"custom:mem_gb=24,bw_gbs\": \"bw_gbs\" is not key=value" },
	{ "custom:mem_gb=24,,bw_gbs=1008", CR_ERR_PARSE,
	  "rig spec \"custom:mem_gb=24,,bw_gbs=1008\": \"\" is not key=value" },
	{ "custom:,mem_gb=24,bw_gbs=1008", CR_ERR_PARSE,
	  "rig spec \"custom:,mem_gb=24,bw_gbs=1008\": \"\" is not key=value" },
	{ "custom:mem_gb=24,bw_gbs=1008,ram_gb=64", CR_ERR_INVALID,
	  "rig spec \"custom:mem_gb=24,bw_gbs=1008,ram_gb=64\": ram_gb and ram_bw_gbs go together" },
	{ "custom:mem_gb=24,bw_gbs=1008,ram_bw_gbs=89.6", CR_ERR_INVALID,
	  "rig spec \"custom:mem_gb=24,bw_gbs=1008,ram_bw_gbs=89.6\": ram_gb and ram_bw_gbs go together" },
	{ "custom:mem_gb=24,bw_gbs=1008,ram_gb=64,ram_bw_gbs=2e6", CR_ERR_INVALID,
	  "rig spec \"custom:mem_gb=24,bw_gbs=1008,ram_gb=64,ram_bw_gbs=2e6\": ram_bw_gbs: 2e+06 is out of range (0.001 to 1e+06)" },
	{ "custom:mem_gb=64,bw_gbs=89.6,backend=cpu,ram_gb=64,ram_bw_gbs=89.6", CR_ERR_INVALID,
	  "rig spec \"custom:mem_gb=64,bw_gbs=89.6,backend=cpu,ram_gb=64,ram_bw_gbs=89.6\": ram_gb adds system RAM to GPUs; this rig is system RAM already" },
};

/* What the estimate reads each tier at, not the sum over the rig. */
static void test_tier_bandwidth(void **state)
{
	cr_rig r;
	cr_error err = CR_ERROR_INIT;
	double acc = -1, ram = -1;

	(void)state;
	assert_int_equal(cr_rig_parse_spec("custom:mem_gb=24,bw_gbs=936,devices=2,ram_gb=512,ram_bw_gbs=204.8",
					   &r, &err), CR_OK);
	cr_rig_tier_bandwidth_gbs(&r, &acc, &ram);
	assert_true(fabs(acc - 936) < 1e-9 && ram == 204.8);
	assert_true(cr_rig_aggregate_bandwidth_gbs(&r) > 2000); /* the seeds' 2076.8 */
	/* Two sockets: one socket's bandwidth; no GPU tier. */
	assert_int_equal(cr_rig_parse_spec("custom:mem_gb=384,bw_gbs=460.8,devices=2,backend=cpu", &r, &err),
			 CR_OK);
	cr_rig_tier_bandwidth_gbs(&r, &acc, &ram);
	assert_true(acc == 0 && ram == 460.8);
	/* Unlike cards in turn, each its memory share: 1 / (0.5/1000 + 0.5/500). */
	r.n_devices = 2;
	r.devices[0].kind = r.devices[1].kind = CR_MEM_DISCRETE;
	r.devices[0].count = r.devices[1].count = 1;
	r.devices[0].memory_gib = r.devices[1].memory_gib = 24;
	r.devices[0].usable_fraction = r.devices[1].usable_fraction = 1;
	r.devices[0].bandwidth_gbs = 1000;
	r.devices[1].bandwidth_gbs = 500;
	cr_rig_tier_bandwidth_gbs(&r, &acc, &ram);
	assert_true(fabs(acc - 1000.0 / 1.5) < 1e-9 && ram == 0);
}

static void test_parse_errors(void **state)
{
	unsigned bad = 0;

	(void)state;
	for (size_t i = 0; i < UNIT_ARRAY_LEN(error_rows); i++) {
		cr_rig r;
		cr_error err = CR_ERROR_INIT;
		int rc = cr_rig_parse_spec(error_rows[i].spec, &r, &err);

		if (!unit_check_error(error_rows[i].spec, rc, &err, error_rows[i].status,
				      error_rows[i].message))
			bad++;
	}
	UNIT_TABLE_DONE(bad, UNIT_ARRAY_LEN(error_rows));
}

/* At most 255 bytes: build "custom:mem_gb=24,bw_gbs=000...1008" of a given
 * length (leading zeros keep the value). */
static void make_long_spec(char *buf, size_t len)
{
	static const char head[] = "custom:mem_gb=24,bw_gbs=";
	size_t nh = strlen(head), zeros = len - nh - 4;

	memcpy(buf, head, nh);
	memset(buf + nh, '0', zeros);
	memcpy(buf + nh + zeros, "1008", 5);
	assert_int_equal(strlen(buf), len);
}

static void test_parse_length(void **state)
{
	char spec[1100];
	cr_rig r;
	cr_error err = CR_ERROR_INIT;

	(void)state;
	make_long_spec(spec, 255);
	assert_int_equal(cr_rig_parse_spec(spec, &r, &err), CR_OK);
	assert_true(r.devices[0].bandwidth_gbs == 1008.0);
	/* The id keeps the spec as far as it fits. */
	assert_int_equal(strlen(r.id), sizeof(r.id) - 1);
	assert_memory_equal(r.id, spec, sizeof(r.id) - 1);

	make_long_spec(spec, 256);
	assert_int_equal(cr_rig_parse_spec(spec, &r, &err), CR_ERR_PARSE);
	assert_string_equal(err.message, "rig spec too long (at most 255 bytes)");
	make_long_spec(spec, 1099);
	assert_int_equal(cr_rig_parse_spec(spec, &r, &err), CR_ERR_PARSE);
	assert_string_equal(err.message, "rig spec too long (at most 255 bytes)");
}

/* ---- sums ----------------------------------------------------------------- */

typedef struct sum_row {
	const char *rig;
	uint64_t memory_bytes;
	double bandwidth_gbs;
} sum_row;

static const sum_row sum_rows[] = {
	{ "4xh100", 320 * GIB, 13400 },
	{ "rtx4090", 24 * GIB, 1008 },
	{ "gtx1080ti", 11 * GIB, 484 },
	{ "8x3090", 192 * GIB, 7488 },
	{ "2x5090", 64 * GIB, 3584 },
	{ "mac-studio-m4-ultra-192", 192 * GIB, 1092 },
	{ "dual-epyc-9004-768", 768 * GIB, 921.6 },
	{ "dgx-station", 784 * GIB, 8396 },
	{ "epyc-ddr4-3200-2x3090", 560 * GIB, 2076.8 },
	{ "jetson-orin-nx-16", 16 * GIB, 102.4 },
	{ "custom:mem_gb=24,bw_gbs=1008,devices=2,ram_gb=64,ram_bw_gbs=89.6", 112 * GIB, 2105.6 },
	{ "custom:mem_gb=0.5,bw_gbs=100,devices=3", 3 * GIB / 2, 300 },
};

static void test_sums(void **state)
{
	cr_catalog *cat = NULL;
	cr_error err = CR_ERROR_INIT;
	unsigned bad = 0;

	(void)state;
	assert_int_equal(cr_catalog_load_embedded(&cat, &err), CR_OK);
	for (size_t i = 0; i < UNIT_ARRAY_LEN(sum_rows); i++) {
		const sum_row *row = &sum_rows[i];
		cr_rig custom;
		const cr_rig *r;
		uint64_t mem;
		double bw;

		if (strncmp(row->rig, CR_RIG_SPEC_PREFIX, strlen(CR_RIG_SPEC_PREFIX)) == 0) {
			assert_int_equal(cr_rig_parse_spec(row->rig, &custom, &err), CR_OK);
			r = &custom;
		} else {
			r = cr_catalog_find_rig(cat, row->rig);
			assert_non_null(r);
		}
		mem = cr_rig_memory_bytes(r);
		bw = cr_rig_aggregate_bandwidth_gbs(r);
		if (mem != row->memory_bytes || bw - row->bandwidth_gbs > 1e-9 ||
		    row->bandwidth_gbs - bw > 1e-9) {
			print_error("row \"%s\": %llu bytes, %.17g GB/s; want %llu, %g\n", row->rig,
				    (unsigned long long)mem, bw,
				    (unsigned long long)row->memory_bytes, row->bandwidth_gbs);
			bad++;
		}
	}
	cr_catalog_free(cat);
	UNIT_TABLE_DONE(bad, UNIT_ARRAY_LEN(sum_rows));
}

/* An empty rig sums to nothing. */
static void test_sums_empty(void **state)
{
	cr_rig r;

	(void)state;
	memset(&r, 0, sizeof(r));
	assert_int_equal(cr_rig_memory_bytes(&r), 0);
	assert_true(cr_rig_aggregate_bandwidth_gbs(&r) == 0.0);
}

/* ---- one set of bounds ------------------------------------------------------ */

typedef struct bound_row {
	const char *spec_key;  /* key of a spec and name of rig add's figure */
	const char *json_key;  /* field of a devices[] group of rigs.json */
	unsigned group;        /* 0: the device; 1: the system-RAM group beside it */
	const char *spec_val;  /* written into the spec (and read into the figures) */
	const char *json_val;  /* written into the saved-rigs file */
	bool ok;
} bound_row;

/* At each bound and just past it. usable_gb is GiB of a 100 GiB device,
 * usable_fraction its share. */
static const bound_row bound_rows[] = {
	{ "devices", "count", 0, "1", "1", true },
	{ "devices", "count", 0, "0", "0", false },
	{ "devices", "count", 0, "64", "64", true },
	{ "devices", "count", 0, "65", "65", false },
	{ "mem_gb", "memory_gib", 0, "0.001", "0.001", true },
	{ "mem_gb", "memory_gib", 0, "0.0009", "0.0009", false },
	{ "mem_gb", "memory_gib", 0, "65536", "65536", true },
	{ "mem_gb", "memory_gib", 0, "65536.5", "65536.5", false },
	{ "bw_gbs", "bandwidth_gbs", 0, "0.001", "0.001", true },
	{ "bw_gbs", "bandwidth_gbs", 0, "0.0009", "0.0009", false },
	{ "bw_gbs", "bandwidth_gbs", 0, "1000000", "1000000", true },
	{ "bw_gbs", "bandwidth_gbs", 0, "1000001", "1000001", false },
	{ "tflops", "fp16_tflops", 0, "0", "0", true },
	{ "tflops", "fp16_tflops", 0, "-0.001", "-0.001", false },
	{ "tflops", "fp16_tflops", 0, "1000000", "1000000", true },
	{ "tflops", "fp16_tflops", 0, "1000001", "1000001", false },
	{ "usable_gb", "usable_fraction", 0, "1", "0.01", true },
	{ "usable_gb", "usable_fraction", 0, "0.99", "0.0099", false },
	{ "usable_gb", "usable_fraction", 0, "100", "1", true },
	{ "usable_gb", "usable_fraction", 0, "100.5", "1.005", false },
	{ "ram_gb", "memory_gib", 1, "0.001", "0.001", true },
	{ "ram_gb", "memory_gib", 1, "0.0009", "0.0009", false },
	{ "ram_gb", "memory_gib", 1, "65536", "65536", true },
	{ "ram_gb", "memory_gib", 1, "65536.5", "65536.5", false },
	{ "ram_bw_gbs", "bandwidth_gbs", 1, "0.001", "0.001", true },
	{ "ram_bw_gbs", "bandwidth_gbs", 1, "0.0009", "0.0009", false },
	/* A spec used to stop system RAM at 10^5 GB/s, the saved rigs at 10^6. */
	{ "ram_bw_gbs", "bandwidth_gbs", 1, "200000", "200000", true },
	{ "ram_bw_gbs", "bandwidth_gbs", 1, "1000000", "1000000", true },
	{ "ram_bw_gbs", "bandwidth_gbs", 1, "1000001", "1000001", false },
};

/* The figure named key of a row: its value, else the base rig's. */
static const char *fig(const bound_row *r, const char *key, const char *base)
{
	return strcmp(r->spec_key, key) == 0 ? r->spec_val : base;
}

static const char *jfig(const bound_row *r, unsigned group, const char *key, const char *base)
{
	return r->group == group && strcmp(r->json_key, key) == 0 ? r->json_val : base;
}

static bool has_ram(const bound_row *r)
{
	return strncmp(r->spec_key, "ram_", 4) == 0;
}

static void spec_of(const bound_row *r, char *buf, size_t cap)
{
	int n = snprintf(buf, cap, "custom:mem_gb=%s,bw_gbs=%s,devices=%s,tflops=%s",
			 fig(r, "mem_gb", "100"), fig(r, "bw_gbs", "1008"), fig(r, "devices", "1"),
			 fig(r, "tflops", "0"));

	assert_true(n > 0 && (size_t)n < cap);
	if (strcmp(r->spec_key, "usable_gb") == 0)
		n += snprintf(buf + n, cap - (size_t)n, ",usable_gb=%s", r->spec_val);
	if (has_ram(r))
		n += snprintf(buf + n, cap - (size_t)n, ",ram_gb=%s,ram_bw_gbs=%s",
			      fig(r, "ram_gb", "64"), fig(r, "ram_bw_gbs", "89.6"));
	assert_true((size_t)n < cap);
}

static void json_of(const bound_row *r, char *buf, size_t cap)
{
	char usable[64] = "", ram[256] = "";
	int n;

	if (strcmp(r->json_key, "usable_fraction") == 0)
		snprintf(usable, sizeof(usable), ",\"usable_fraction\":%s", r->json_val);
	if (has_ram(r))
		snprintf(ram, sizeof(ram),
			 ",{\"name\":\"System RAM\",\"count\":1,\"memory_gib\":%s,\"bandwidth_gbs\":%s,"
			 "\"fp16_tflops\":0,\"backend\":\"cpu\",\"kind\":\"system\"}",
			 jfig(r, 1, "memory_gib", "64"), jfig(r, 1, "bandwidth_gbs", "89.6"));
	n = snprintf(buf, cap,
		     "{\"schema\":\"" CR_USERRIGS_SCHEMA "\",\"rigs\":[{\"id\":\"box\",\"name\":\"Box\","
		     "\"reference\":false,\"status\":\"released\",\"devices\":[{\"name\":\"GPU\","
		     "\"count\":%s,\"memory_gib\":%s,\"bandwidth_gbs\":%s,\"fp16_tflops\":%s,"
		     "\"backend\":\"cuda\",\"kind\":\"discrete\"%s}%s],\"sources\":[\"test\"]}]}",
		     jfig(r, 0, "count", "1"), jfig(r, 0, "memory_gib", "100"),
		     jfig(r, 0, "bandwidth_gbs", "1008"), jfig(r, 0, "fp16_tflops", "0"), usable, ram);
	assert_true(n > 0 && (size_t)n < cap);
}

static double num(const char *s)
{
	return strtod(s, NULL);
}

static void figures_of(const bound_row *r, cr_rig_figures *f)
{
	*f = (cr_rig_figures)CR_RIG_FIGURES_INIT;
	f->id = "box";
	f->mem_gib = num(fig(r, "mem_gb", "100"));
	f->bw_gbs = num(fig(r, "bw_gbs", "1008"));
	/* devices is unsigned: a -1 would wrap, 0 and 65 do not. */
	f->devices = (uint32_t)num(fig(r, "devices", "1"));
	f->tflops = num(fig(r, "tflops", "0"));
	if (strcmp(r->spec_key, "usable_gb") == 0)
		f->usable_gib = num(r->spec_val);
	if (has_ram(r)) {
		f->ram_gib = num(fig(r, "ram_gb", "64"));
		f->ram_bw_gbs = num(fig(r, "ram_bw_gbs", "89.6"));
	}
}

static void test_bounds_agree(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(bound_rows) / sizeof(bound_rows[0]); i++) {
		const bound_row *r = &bound_rows[i];
		char spec[256], json[1024], row[128], place[320];
		cr_error err = CR_ERROR_INIT;
		cr_user_rigs *set = NULL;
		cr_rig_figures f;
		cr_rig rig;
		int rc;

		snprintf(row, sizeof(row), "%s=%s / devices[%u].%s=%s", r->spec_key, r->spec_val,
			 r->group, r->json_key, r->json_val);

		spec_of(r, spec, sizeof(spec));
		rc = cr_rig_parse_spec(spec, &rig, &err);
		if ((rc == CR_OK) != r->ok)
			fail_msg("%s: spec %s: rc %d (%s)", row, spec, rc, err.message);
		snprintf(place, sizeof(place), "rig spec \"%s\": %s", spec, r->spec_key);
		if (!r->ok && strncmp(err.message, place, strlen(place)) != 0)
			fail_msg("%s: the spec's message does not name the key: %s", row, err.message);

		json_of(r, json, sizeof(json));
		rc = cr_userrigs_load_buffer(json, strlen(json), "rigs.json", NULL, &set, &err);
		if ((rc == CR_OK) != r->ok)
			fail_msg("%s: saved rigs: rc %d (%s)", row, rc, err.message);
		snprintf(place, sizeof(place), "rigs.json: rigs[0].devices[%u].%s: ", r->group,
			 r->json_key);
		if (!r->ok && strncmp(err.message, place, strlen(place)) != 0)
			fail_msg("%s: the file's message does not name the path: %s", row, err.message);
		if (r->ok)
			assert_int_equal(cr_userrigs_count(set), 1);
		cr_userrigs_free(set);

		figures_of(r, &f);
		rc = cr_userrigs_build(&f, &rig, &err);
		if ((rc == CR_OK) != r->ok)
			fail_msg("%s: rig add: rc %d (%s)", row, rc, err.message);
		if (!r->ok && strncmp(err.message, r->spec_key, strlen(r->spec_key)) != 0)
			fail_msg("%s: rig add's message does not name the figure: %s", row, err.message);
	}
}

/* docs/schema/common.schema.json, the format's documentation, has the same
 * bounds for a device group. */
static void test_bounds_in_schema(void **state)
{
	static const struct {
		const char *key;
		double lo, hi;
	} want[] = {
		{ "count", 1, CR_RIG_DEVICES_MAX },
		{ "memory_gib", CR_RIG_MEMORY_GIB_MIN, CR_RIG_MEMORY_GIB_MAX },
		{ "bandwidth_gbs", CR_RIG_BANDWIDTH_GBS_MIN, CR_RIG_BANDWIDTH_GBS_MAX },
		{ "fp16_tflops", 0, CR_RIG_TFLOPS_MAX },
		{ "usable_fraction", CR_RIG_USABLE_FRACTION_MIN, 1 },
	};
	FILE *fp = fopen(CLEFRUN_DATA_DIR "/../docs/schema/common.schema.json", "rb");
	char *text = malloc(1 << 16);
	const cJSON *props;
	cJSON *doc;
	size_t n;

	(void)state;
	assert_non_null(fp);
	assert_non_null(text);
	n = fread(text, 1, (1 << 16) - 1, fp);
	fclose(fp);
	assert_true(n > 0 && n < (1 << 16) - 1);
	text[n] = '\0';
	doc = cJSON_Parse(text);
	assert_non_null(doc);
	props = cJSON_GetObjectItemCaseSensitive(
		cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(doc, "$defs"),
						 "device"),
		"properties");
	assert_non_null(props);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		const cJSON *p = cJSON_GetObjectItemCaseSensitive(props, want[i].key);
		const cJSON *lo = cJSON_GetObjectItemCaseSensitive(p, "minimum");
		const cJSON *hi = cJSON_GetObjectItemCaseSensitive(p, "maximum");

		if (!cJSON_IsNumber(lo) || !cJSON_IsNumber(hi) || lo->valuedouble != want[i].lo ||
		    hi->valuedouble != want[i].hi)
			fail_msg("schema device.%s: minimum/maximum differ from rig.h (%g to %g)",
				 want[i].key, want[i].lo, want[i].hi);
	}
	cJSON_Delete(doc);
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_valid),
		cmocka_unit_test(test_parse_name),
		cmocka_unit_test(test_default_shares),
		cmocka_unit_test(test_parse_errors),
		cmocka_unit_test(test_tier_bandwidth),
		cmocka_unit_test(test_parse_length),
		cmocka_unit_test(test_sums),
		cmocka_unit_test(test_sums_empty),
		cmocka_unit_test(test_bounds_agree),
		cmocka_unit_test(test_bounds_in_schema),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
