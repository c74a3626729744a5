/*
 * Detection from fixture roots (tests/detect/fixtures: a 2-GPU NVIDIA
 * workstation with captured nvidia-smi output, an AMD box, a CPU-only box,
 * an Apple M3 Max through sysctl output), GPU-name matching against the
 * catalog, and one real run of the bandwidth probe.
 * Catalog figures are read from the catalog, not repeated here, so a data
 * correction does not break these tests.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "clefrun/clefrun.h"
#include "support.h"

#define GIB 1073741824.0

static cr_catalog *cat;
static cr_detect_result res;

static int setup(void **state)
{
	cr_error err = CR_ERROR_INIT;

	(void)state;
	return cr_catalog_load_embedded(&cat, &err);
}

static int teardown(void **state)
{
	(void)state;
	cr_catalog_free(cat);
	return 0;
}

static char *read_fixture(const char *rel)
{
	char path[1024];
	char *b;

	snprintf(path, sizeof(path), "%s/%s", DECIDE_FIXTURES, rel);
	b = ts_slurp(path, NULL);
	assert_non_null(b);
	return b;
}

static void root_of(char *buf, size_t cap, const char *name)
{
	snprintf(buf, cap, "%s/%s", DECIDE_FIXTURES, name);
}

static const cr_device *catalog_device(const char *rig, unsigned k)
{
	const cr_rig *r = cr_catalog_find_rig(cat, rig);

	assert_non_null(r);
	return &r->devices[k];
}

static const cr_detect_finding *finding(const cr_detect_result *r, const char *item,
					const char *in_value)
{
	for (unsigned i = 0; i < r->n_findings; i++)
		if (!strcmp(r->findings[i].item, item) &&
		    (!in_value || strstr(r->findings[i].value, in_value)))
			return &r->findings[i];
	fail_msg("no finding %s containing \"%s\"", item, in_value ? in_value : "");
	return NULL;
}

static void estimate_ok(const cr_rig *rig)
{
	cr_estimate e;
	cr_estimate_opts o = CR_ESTIMATE_OPTS_INIT;
	cr_error err = CR_ERROR_INIT;

	assert_int_equal(cr_estimate_run(cr_catalog_find_model(cat, "llama-3.1-8b"),
					 cr_catalog_find_quant(cat, "Q4_K_M"), rig, &o, &e, &err),
			 CR_OK);
	assert_true(e.tier != CR_TIER_NOFIT);
}

static void test_nvidia_two_gpus(void **state)
{
	cr_detect_opts o = CR_DETECT_OPTS_INIT;
	cr_error err = CR_ERROR_INIT;
	char root[1024];
	char *smi = read_fixture("nvidia2/nvidia-smi.out");
	const cr_device *ref = catalog_device("rtx4090", 0);
	const cr_rig *rig = &res.rig;

	(void)state;
	root_of(root, sizeof(root), "nvidia2");
	o.root = root;
	o.catalog = cat;
	o.nvidia_smi = smi;
	assert_int_equal(cr_detect_run(&o, &res, &err), CR_OK);
	assert_true(res.rig_ok);
	assert_false(res.apple);
	assert_int_equal(res.cpu_logical, 32);
	assert_string_equal(res.cpu_model, "AMD Ryzen 9 7950X 16-Core Processor");
	assert_int_equal(res.ram_bytes, 131809212ull * 1024);
	/* 32 MiB of L3 per 16 CPUs, 32 CPUs: two CCDs. */
	assert_int_equal(res.llc_bytes, 64ull << 20);
	assert_int_equal(res.n_gpus, 2);
	assert_int_equal(res.n_left_out, 0);
	for (int i = 0; i < 2; i++) {
		assert_string_equal(res.gpus[i].name, "NVIDIA GeForce RTX 4090");
		assert_string_equal(res.gpus[i].vendor, "nvidia");
		assert_true(res.gpus[i].known);
		assert_true(res.gpus[i].in_rig);
		assert_string_equal(res.gpus[i].catalog_device, ref->name);
	}
	/* One group of two cards, then system RAM for partial offload. */
	assert_string_equal(rig->id, "local");
	assert_int_equal(rig->n_devices, 2);
	assert_int_equal(rig->devices[0].count, 2);
	assert_true(rig->devices[0].bandwidth_gbs == ref->bandwidth_gbs);
	assert_true(rig->devices[0].fp16_tflops == ref->fp16_tflops);
	assert_int_equal(rig->devices[0].backend, CR_BACKEND_CUDA);
	assert_int_equal(rig->devices[0].kind, CR_MEM_DISCRETE);
	/* 24564 MiB as nvidia-smi reports it, rounded down to 0.01 GiB. */
	assert_true(fabs(rig->devices[0].memory_gib - 23.98) < 1e-9);
	assert_int_equal(rig->devices[1].kind, CR_MEM_SYSTEM);
	assert_int_equal(rig->devices[1].backend, CR_BACKEND_CPU);
	assert_true(fabs(rig->devices[1].memory_gib - 125.70) < 1e-9);
	assert_true(res.ram_bandwidth_guessed);
	assert_true(rig->devices[1].bandwidth_gbs == CR_DETECT_GUESS_RAM_GBS);
	assert_true(finding(&res, "ram_bandwidth", "GUESS")->guess);
	assert_non_null(strstr(finding(&res, "ram", NULL)->source, "/proc/meminfo"));
	assert_non_null(strstr(finding(&res, "cpu", NULL)->source, "/sys/devices/system/cpu/online"));
	assert_non_null(strstr(rig->notes, "guess"));
	estimate_ok(rig);
	/* cardN-DP-1 connectors and NVIDIA's drm cards are not AMD GPUs. */
	finding(&res, "amd", "no AMD GPUs");
	free(smi);
}

static void test_nvidia_odd_output(void **state)
{
	cr_detect_opts o = CR_DETECT_OPTS_INIT;
	cr_error err = CR_ERROR_INIT;
	char root[1024];

	(void)state;
	root_of(root, sizeof(root), "nvidia2");
	o.root = root;
	o.catalog = cat;
	/* Unreadable memory, a line without a comma, an unknown card, blank lines. */
	o.nvidia_smi = "\nNVIDIA H100 80GB HBM3, [N/A]\ngarbage\nNVIDIA Mystery 9000, 16384\r\n\n";
	assert_int_equal(cr_detect_run(&o, &res, &err), CR_OK);
	assert_true(res.rig_ok);
	assert_int_equal(res.n_gpus, 1);
	assert_false(res.gpus[0].known);
	assert_false(res.gpus[0].in_rig);
	assert_int_equal(res.n_left_out, 2); /* [N/A] and the unknown card */
	assert_int_equal(res.rig.n_devices, 1); /* RAM only */
	finding(&res, "nvidia", "unexpected line");
	finding(&res, "gpu", "not in the catalog");
	/* With a bandwidth for unknown cards it joins the rig. */
	o.unknown_gpu_bw_gbs = 500;
	o.unknown_gpu_tflops = 50;
	assert_int_equal(cr_detect_run(&o, &res, &err), CR_OK);
	assert_int_equal(res.n_left_out, 1);
	assert_int_equal(res.rig.n_devices, 2);
	assert_string_equal(res.rig.devices[0].name, "NVIDIA Mystery 9000");
	assert_true(res.rig.devices[0].bandwidth_gbs == 500);
	/* nvidia-smi not available: a finding, not an error. */
	o.nvidia_smi = NULL;
	o.nvidia_smi_note = "nvidia-smi: No such file or directory";
	assert_int_equal(cr_detect_run(&o, &res, &err), CR_OK);
	assert_int_equal(res.n_gpus, 0);
	assert_string_equal(finding(&res, "nvidia", NULL)->source,
			    "nvidia-smi: No such file or directory");
}

static void test_amd(void **state)
{
	cr_detect_opts o = CR_DETECT_OPTS_INIT;
	cr_error err = CR_ERROR_INIT;
	char root[1024];
	const cr_device *ref = catalog_device("rx7900xtx", 0);

	(void)state;
	root_of(root, sizeof(root), "amd");
	o.root = root;
	o.catalog = cat;
	o.rig_id = "amdbox";
	assert_int_equal(cr_detect_run(&o, &res, &err), CR_OK);
	assert_true(res.rig_ok);
	assert_string_equal(res.rig.id, "amdbox");
	/* card0 (512 MiB carve-out) is ignored, card1 known, card2 unknown. */
	finding(&res, "amd", "integrated");
	assert_int_equal(res.n_gpus, 2);
	assert_string_equal(res.gpus[0].name, "Radeon RX 7900 XTX");
	assert_true(res.gpus[0].known);
	assert_false(res.gpus[1].known);
	assert_non_null(strstr(res.gpus[1].name, "0x73bf"));
	assert_int_equal(res.n_left_out, 1);
	assert_int_equal(res.rig.n_devices, 2);
	assert_int_equal(res.rig.devices[0].backend, CR_BACKEND_ROCM);
	assert_true(res.rig.devices[0].bandwidth_gbs == ref->bandwidth_gbs);
	assert_true(fabs(res.rig.devices[0].memory_gib - 23.98) < 1e-9);
	assert_int_equal(res.rig.devices[1].kind, CR_MEM_SYSTEM);
	estimate_ok(&res.rig);
	o.unknown_gpu_bw_gbs = 448;
	assert_int_equal(cr_detect_run(&o, &res, &err), CR_OK);
	assert_int_equal(res.n_left_out, 0);
	assert_int_equal(res.rig.n_devices, 3);
	assert_int_equal(res.rig.devices[1].backend, CR_BACKEND_ROCM);
	assert_true(res.rig.devices[1].bandwidth_gbs == 448);
}

static void test_cpu_only(void **state)
{
	cr_detect_opts o = CR_DETECT_OPTS_INIT;
	cr_error err = CR_ERROR_INIT;
	char root[1024];

	(void)state;
	root_of(root, sizeof(root), "cpu");
	o.root = root;
	o.catalog = cat;
	assert_int_equal(cr_detect_run(&o, &res, &err), CR_OK);
	assert_true(res.rig_ok);
	assert_int_equal(res.cpu_logical, 6); /* "0-3,6-7" */
	/* L3 shared by more CPUs than are online: one instance. */
	assert_int_equal(res.llc_bytes, 16ull << 20);
	assert_int_equal(res.n_gpus, 0);
	assert_int_equal(res.rig.n_devices, 1);
	assert_int_equal(res.rig.devices[0].kind, CR_MEM_SYSTEM);
	assert_int_equal(res.rig.devices[0].backend, CR_BACKEND_CPU);
	assert_true(res.rig.devices[0].usable_fraction == 0.9);
	assert_true(res.ram_bandwidth_guessed);
	finding(&res, "amd", "no /sys/class/drm");
	estimate_ok(&res.rig);
	/* A measured figure replaces the guess. */
	o.measured_ram_gbs = 38.5;
	o.measured_how = "probe";
	assert_int_equal(cr_detect_run(&o, &res, &err), CR_OK);
	assert_false(res.ram_bandwidth_guessed);
	assert_true(res.rig.devices[0].bandwidth_gbs == 38.5);
	assert_false(finding(&res, "ram_bandwidth", "measured")->guess);
	assert_null(strstr(res.rig.notes, "is a guess"));
}

static void test_apple(void **state)
{
	cr_detect_opts o = CR_DETECT_OPTS_INIT;
	cr_error err = CR_ERROR_INIT;
	const cr_device *ref = catalog_device("m3-max-128", 0);

	(void)state;
	o.root = "/nonexistent-clefrun-root";
	o.catalog = cat;
	o.sysctl_memsize = "137438953472\n";
	o.sysctl_cpu_brand = "Apple M3 Max\n";
	o.sysctl_ncpu = "16\n";
	o.sysctl_cmd = "sysctl";
	assert_int_equal(cr_detect_run(&o, &res, &err), CR_OK);
	assert_true(res.apple);
	assert_true(res.rig_ok);
	assert_int_equal(res.cpu_logical, 16);
	assert_int_equal(res.rig.n_devices, 1);
	assert_int_equal(res.rig.devices[0].kind, CR_MEM_UNIFIED);
	assert_int_equal(res.rig.devices[0].backend, CR_BACKEND_METAL);
	assert_true(res.rig.devices[0].memory_gib == 128);
	assert_true(res.rig.devices[0].bandwidth_gbs == ref->bandwidth_gbs);
	assert_true(res.rig.devices[0].usable_fraction == 0.75);
	assert_string_equal(finding(&res, "cpu", NULL)->source, "sysctl -n hw.ncpu");
	estimate_ok(&res.rig);
	/* A chip the catalog lacks: no rig unless its bandwidth is given. */
	o.sysctl_cpu_brand = "Apple M9 Hyper";
	assert_int_equal(cr_detect_run(&o, &res, &err), CR_OK);
	assert_false(res.rig_ok);
	assert_non_null(strstr(res.rig_problem, "M9 Hyper"));
	o.unknown_gpu_bw_gbs = 900;
	assert_int_equal(cr_detect_run(&o, &res, &err), CR_OK);
	assert_true(res.rig_ok);
	assert_true(res.rig.devices[0].bandwidth_gbs == 900);
}

static void test_errors(void **state)
{
	cr_detect_opts o = CR_DETECT_OPTS_INIT;
	cr_error err = CR_ERROR_INIT;

	(void)state;
	o.root = "/nonexistent-clefrun-root";
	assert_int_equal(cr_detect_run(&o, &res, &err), CR_ERR_NOTFOUND);
	assert_non_null(strstr(err.message, "/nonexistent-clefrun-root/proc/meminfo"));
	assert_int_equal(cr_detect_run(NULL, &res, &err), CR_ERR_INVALID);
	o.rig_id = "";
	assert_int_equal(cr_detect_run(&o, &res, &err), CR_ERR_INVALID);
}

/* Reported names against the catalog's device names. */
static void test_match_table(void **state)
{
	static const struct {
		const char *name;
		double gib;
		const char *rig; /* catalog rig whose device 0 must match; NULL = no match */
	} cases[] = {
		{ "NVIDIA GeForce RTX 4090", 23.98, "rtx4090" },
		{ "NVIDIA GeForce RTX 3090", 24, "rtx3090" },
		{ "NVIDIA GeForce RTX 3090 Ti", 24, "rtx3090ti" },
		{ "NVIDIA GeForce RTX 5090", 31.84, "rtx5090" },
		{ "NVIDIA H100 80GB HBM3", 79.65, "h100-sxm" },
		{ "NVIDIA H100 PCIe", 79.65, "h100-pcie" },
		{ "NVIDIA A100-SXM4-80GB", 80, "a100-80" },
		{ "NVIDIA A100 80GB PCIe", 80, "a100-80-pcie" },
		{ "NVIDIA A100-PCIE-40GB", 40, "a100-40" },
		{ "NVIDIA H200", 140.4, "h200" },
		{ "Tesla T4", 15, "t4" },
		{ "NVIDIA L4", 22.49, "l4" },
		{ "NVIDIA L40S", 44.99, "l40s" },
		{ "NVIDIA RTX 6000 Ada Generation", 47.99, "rtx-6000-ada" },
		{ "NVIDIA RTX A6000", 47.99, "rtx-a6000" },
		{ "NVIDIA GeForce RTX 4060 Ti", 15.99, "rtx4060ti-16" },
		{ "AMD Instinct MI300X", 191.98, "mi300x" },
		{ "Radeon RX 7900 XTX", 23.98, "rx7900xtx" },
		{ "Apple M3 Max", 0, "m3-max-128" },
		{ "Apple M2 Ultra", 0, "m2-ultra-192" },
		/* A laptop 4090 is another chip, the 8 GB 4060 Ti is not the 16 GB one
		 * and the 4090 D not the 4090: each matches its own entry. */
		{ "NVIDIA GeForce RTX 4090 Laptop GPU", 16, "rtx4090-laptop" },
		{ "NVIDIA GeForce RTX 4060 Ti", 8, "rtx4060ti-8" },
		{ "NVIDIA GeForce RTX 4090 D", 24, "rtx4090d" },
		{ "NVIDIA GeForce RTX 5060 Ti", 7.96, "rtx5060ti-8" },
		{ "NVIDIA GeForce RTX 2080 Ti", 11, "rtx2080ti" },
		{ "NVIDIA GeForce GTX 1080", 8, "gtx1080" },
		{ "NVIDIA GeForce GTX 1080 Ti", 11, "gtx1080ti" },
		/* The M4 Ultra does not exist, the GTX 1070 is not in the catalog; words
		 * must all agree. */
		{ "Apple M4 Ultra", 0, NULL },
		{ "NVIDIA GeForce GTX 1070", 8, NULL },
		{ "NVIDIA", 24, NULL },
		{ "", 24, NULL },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		const cr_device *d = cr_detect_match_device(cat, cases[i].name, cases[i].gib);

		if (!cases[i].rig) {
			if (d)
				fail_msg("\"%s\" matched \"%s\"", cases[i].name, d->name);
			continue;
		}
		if (!d)
			fail_msg("\"%s\" (%g GiB) matched nothing", cases[i].name, cases[i].gib);
		if (strcmp(d->name, catalog_device(cases[i].rig, 0)->name) != 0)
			fail_msg("\"%s\" matched \"%s\", not %s's \"%s\"", cases[i].name, d->name,
				 cases[i].rig, catalog_device(cases[i].rig, 0)->name);
	}
	assert_null(cr_detect_match_device(NULL, "NVIDIA GeForce RTX 4090", 24));
}

/* One real run of the probe; no timing threshold, only a sane figure. */
static void test_probe_runs(void **state)
{
	cr_probe_opts po = CR_PROBE_OPTS_INIT;
	cr_probe_result pr;
	cr_error err = CR_ERROR_INIT;

	(void)state;
	po.threads = 2;
	po.bytes = 64u << 20;
	po.min_passes = 3;
	po.seconds = 0.2;
	assert_int_equal(cr_detect_measure_bandwidth(&po, &pr, &err), CR_OK);
	assert_true(isfinite(pr.gbs) && pr.gbs > 0);
	assert_true(pr.min_gbs <= pr.gbs && pr.gbs <= pr.max_gbs);
	assert_true(pr.passes >= 3);
	assert_int_equal(pr.threads, 2);
	assert_int_equal(pr.bytes, 64u << 20);
	print_message("bandwidth probe: %.1f GB/s (%u passes, %.1f to %.1f)\n", pr.gbs, pr.passes,
		      pr.min_gbs, pr.max_gbs);
	po.seconds = -1;
	assert_int_equal(cr_detect_measure_bandwidth(&po, &pr, &err), CR_ERR_INVALID);
	assert_int_equal(cr_detect_measure_bandwidth(NULL, NULL, &err), CR_ERR_INVALID);
}

/* The library names no CLI flag: the advice in findings, rig_problem and
 * notes names the caller's options, and is left out without them. */
static bool any_flag(const cr_detect_result *r)
{
	for (unsigned i = 0; i < r->n_findings; i++)
		if (strstr(r->findings[i].value, "--") || strstr(r->findings[i].source, "--"))
			return true;
	return strstr(r->rig_problem, "--") || strstr(r->rig.notes, "--");
}

static void test_advice_names_callers_options(void **state)
{
	cr_detect_opts o = CR_DETECT_OPTS_INIT;
	cr_error err = CR_ERROR_INIT;
	char root[1024];

	(void)state;
	root_of(root, sizeof(root), "cpu");
	o.root = root;
	o.catalog = cat;
	assert_int_equal(cr_detect_run(&o, &res, &err), CR_OK);
	assert_true(res.rig_ok);
	assert_false(any_flag(&res));
	assert_string_equal(finding(&res, "ram_bandwidth", NULL)->source,
			    "not measured: conservative default (dual-channel DDR4-3200)");
	assert_non_null(strstr(res.rig.notes, "is a guess (dual-channel DDR4-3200)."));
	o.measure_option = "-m";
	o.measure_command = "tool -m";
	assert_int_equal(cr_detect_run(&o, &res, &err), CR_OK);
	assert_string_equal(finding(&res, "ram_bandwidth", NULL)->source,
			    "not measured: conservative default (dual-channel DDR4-3200); run with -m");
	assert_non_null(strstr(res.rig.notes, "is a guess (dual-channel DDR4-3200); measure it with tool -m."));
	o.measured_ram_gbs = 40;
	assert_int_equal(cr_detect_run(&o, &res, &err), CR_OK);
	assert_non_null(strstr(res.rig.notes, "GB/s measured by tool -m (achieved read bandwidth"));

	/* An Apple chip the catalog lacks. */
	memset(&o, 0, sizeof(o));
	o.root = "/nonexistent-clefrun-root";
	o.catalog = cat;
	o.sysctl_memsize = "137438953472\n";
	o.sysctl_cpu_brand = "Apple M9 Hyper";
	o.sysctl_ncpu = "16\n";
	o.sysctl_cmd = "sysctl";
	assert_int_equal(cr_detect_run(&o, &res, &err), CR_OK);
	assert_false(res.rig_ok);
	assert_false(any_flag(&res));
	assert_non_null(strstr(res.rig_problem, "its memory bandwidth is unknown"));
	o.gpu_bw_option = "--bw";
	assert_int_equal(cr_detect_run(&o, &res, &err), CR_OK);
	assert_non_null(strstr(res.rig_problem, "its memory bandwidth is unknown (give --bw)"));
	assert_non_null(finding(&res, "apple", "bandwidth unknown (give --bw)"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nvidia_two_gpus),
		cmocka_unit_test(test_nvidia_odd_output),
		cmocka_unit_test(test_amd),
		cmocka_unit_test(test_cpu_only),
		cmocka_unit_test(test_apple),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_match_table),
		cmocka_unit_test(test_probe_runs),
		cmocka_unit_test(test_advice_names_callers_options),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
