/**
 * @file detect.h
 * @brief This machine as a rig ("clefrun detect", "--rig local"), and a
 * memory-bandwidth probe.
 *
 * cr_detect_run reads files under a root directory ("/" normally, a fixture
 * tree in tests):
 *   - ROOT/proc/meminfo             MemTotal: system RAM
 *   - ROOT/sys/devices/system/cpu/online   logical CPUs online ("0-7,9")
 *   - ROOT/proc/cpuinfo             "model name" (display only)
 *   - ROOT/sys/devices/system/cpu/cpu0/cache/index* /  last-level cache size
 *   - ROOT/sys/class/drm/cardN/device/mem_info_vram_total   AMD VRAM (amdgpu)
 *     and .../device/product_name when the driver provides it.
 * It does not run programs: the caller runs nvidia-smi and (on macOS)
 * sysctl and passes their standard output in cr_detect_opts (the CLI does,
 * src/cli/sysprobe.c). Everything found is listed in the result with where
 * it came from.
 *
 * GPUs are matched by name against the catalog's device names to get their
 * bandwidth and FP16 TFLOPS ("NVIDIA GeForce RTX 4090" is the catalog's
 * "RTX 4090"; the memory must agree within 10 %). A GPU the catalog does not
 * know is reported and left out of the rig unless the caller supplies its
 * bandwidth (unknown_gpu_bw_gbs): clefrun never invents a GPU's figures.
 *
 * The rig: one device group per distinct known GPU model (count = how many),
 * plus system RAM as a "system" group so that partial offload works
 * (backend cpu). Apple silicon is one unified-memory group (backend metal).
 * A CPU-only machine is one system group (backend cpu). System RAM
 * bandwidth is the measured figure when given (measured_ram_gbs), else a
 * stated guess, CR_DETECT_GUESS_RAM_GBS.
 */
#ifndef CLEFRUN_DETECT_H
#define CLEFRUN_DETECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "clefrun/catalog.h"
#include "clefrun/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/** System RAM bandwidth used when nothing better is known, GB/s: dual-channel
 * DDR4-3200 (2 × 64 bit × 3200 MT/s), the catalog's desktop-ddr4-3200 rig.
 * A conservative guess for a desktop; far below a server's. */
#define CR_DETECT_GUESS_RAM_GBS 51.2

#define CR_DETECT_MAX_GPUS 16
#define CR_DETECT_MAX_FINDINGS 40

/** The arguments clefrun passes to nvidia-smi; its output is what
 * cr_detect_opts.nvidia_smi expects. */
#define CR_DETECT_NVIDIA_SMI_ARGS "--query-gpu=name,memory.total --format=csv,noheader,nounits"

/** Inputs of a detection. Initialise with CR_DETECT_OPTS_INIT. */
typedef struct cr_detect_opts {
	const char *root;          /**< directory holding proc/ and sys/; NULL = "/" */
	const cr_catalog *catalog; /**< GPU and Apple-chip figures; NULL = none known */
	const char *rig_id;        /**< id of the rig built; NULL = "local" */
	/** stdout of `nvidia-smi --query-gpu=name,memory.total --format=csv,noheader,nounits`
	 * ("NVIDIA GeForce RTX 4090, 24564" per line, MiB); NULL = not run. */
	const char *nvidia_smi;
	const char *nvidia_smi_how;  /**< how it was run, for the findings */
	const char *nvidia_smi_note; /**< why it was not run / failed, for the findings; may be NULL */
	/** macOS: stdout of `sysctl -n hw.memsize`, `sysctl -n machdep.cpu.brand_string`,
	 * `sysctl -n hw.ncpu`; NULL = not run. A memsize makes the machine Apple. */
	const char *sysctl_memsize;
	const char *sysctl_cpu_brand;
	const char *sysctl_ncpu;
	const char *sysctl_cmd;      /**< the sysctl that was run ("sysctl", a fixture's path), for the findings */
	double measured_ram_gbs;     /**< > 0: measured system RAM bandwidth (GB/s) */
	const char *measured_how;    /**< how it was measured, for the findings */
	double unknown_gpu_bw_gbs;   /**< > 0: bandwidth for GPUs the catalog lacks */
	double unknown_gpu_tflops;   /**< their FP16 TFLOPS (0 = unknown) */
	/** How the caller's user supplies what detection cannot find, named in
	 * findings, rig_problem and the rig's notes (the library names no CLI
	 * flag): the way to give an unknown GPU's bandwidth ("--gpu-bw-gbs"),
	 * to measure RAM bandwidth ("--measure-bandwidth") and the whole
	 * command that does it ("clefrun detect --measure-bandwidth"). NULL:
	 * the advice is left out. */
	const char *gpu_bw_option;
	const char *measure_option;
	const char *measure_command;
} cr_detect_opts;

/* Defaults: all unset (the real "/", no catalog, nothing run or measured,
 * no advice naming the caller's options). */
#define CR_DETECT_OPTS_INIT                                                           \
	{ .root = NULL, .catalog = NULL, .rig_id = NULL, .nvidia_smi = NULL,           \
	  .nvidia_smi_how = NULL, .nvidia_smi_note = NULL, .sysctl_memsize = NULL,     \
	  .sysctl_cpu_brand = NULL, .sysctl_ncpu = NULL, .sysctl_cmd = NULL,           \
	  .measured_ram_gbs = 0, .measured_how = NULL, .unknown_gpu_bw_gbs = 0,        \
	  .unknown_gpu_tflops = 0, .gpu_bw_option = NULL, .measure_option = NULL,      \
	  .measure_command = NULL }

/** One thing found, and how. */
typedef struct cr_detect_finding {
	char item[32];      /**< "cpu", "ram", "ram_bandwidth", "gpu", "llc", "nvidia", "amd", "apple" */
	char value[CR_NAME_MAX + 64]; /**< human-readable ("62.7 GiB", "NVIDIA GeForce RTX 4090, 24 GiB") */
	char source[320];   /**< where it came from (a file, a command) or why not */
	bool guess;         /**< the value is a guess, not a reading */
} cr_detect_finding;

/** A GPU (or Apple chip) seen. */
typedef struct cr_detect_gpu {
	char name[CR_NAME_MAX];    /**< as reported ("NVIDIA GeForce RTX 4090") */
	char vendor[16];           /**< "nvidia", "amd", "apple" */
	double memory_gib;         /**< as reported */
	bool known;                /**< matched a catalog device */
	char catalog_device[CR_NAME_MAX]; /**< the matched device's name */
	double bandwidth_gbs;      /**< from the catalog, or unknown_gpu_bw_gbs; 0 = unknown */
	double fp16_tflops;
	bool in_rig;               /**< part of the rig built */
} cr_detect_gpu;

/** The result of a detection. */
typedef struct cr_detect_result {
	cr_rig rig;                /**< this machine; valid when rig_ok */
	bool rig_ok;               /**< false: rig_problem says why no rig could be built */
	char rig_problem[256];
	char cpu_model[CR_NAME_MAX];
	unsigned cpu_logical;      /**< logical CPUs online; 0 = unknown */
	uint64_t ram_bytes;        /**< MemTotal / hw.memsize */
	uint64_t llc_bytes;        /**< last-level cache, all instances; 0 = unknown */
	double ram_bandwidth_gbs;  /**< used for the system group */
	bool ram_bandwidth_guessed;
	bool apple;                /**< unified memory (macOS) */
	cr_detect_gpu gpus[CR_DETECT_MAX_GPUS];
	unsigned n_gpus;
	unsigned n_left_out;       /**< GPUs seen but not in the rig (unknown figures, too many kinds) */
	cr_detect_finding findings[CR_DETECT_MAX_FINDINGS];
	unsigned n_findings;
} cr_detect_result;

/**
 * Detect this machine (file comment). Unreadable optional files become
 * findings, not errors.
 * @return 0 (check out->rig_ok); CR_ERR_INVALID for bad options;
 *   CR_ERR_NOTFOUND when neither /proc/meminfo nor a sysctl memsize gives
 *   the memory size (the message names what was tried).
 */
int cr_detect_run(const cr_detect_opts *opts, cr_detect_result *out, cr_error *err);

/**
 * The catalog device whose name matches a reported GPU name, or NULL.
 * Vendor words (NVIDIA, GeForce, AMD, Radeon, Apple, ...) and memory sizes
 * ("80GB") are ignored; every other word must agree, except that form
 * factors (SXM, PCIe) only break ties. @p memory_gib (0 = unknown) must be
 * within 10 % of the device's. Owned by the catalog.
 */
const cr_device *cr_detect_match_device(const cr_catalog *cat, const char *name,
					double memory_gib);

/** Options of the bandwidth probe. Initialise with CR_PROBE_OPTS_INIT. */
typedef struct cr_probe_opts {
	unsigned threads;   /**< reader threads; 0 = logical CPUs online */
	size_t bytes;       /**< total buffer, split between threads; 0 = 1 GiB */
	unsigned min_passes; /**< timed passes at least (5) */
	double seconds;     /**< keep timing passes until this much time went by (1.0) */
} cr_probe_opts;

/* Defaults (src/lib/detect/probe.c "Design choices"): every logical CPU, 1 GiB in
 * all (far above any last-level cache, so passes read DRAM), at least 5
 * timed passes and 1 s of them, so the median resists a noisy neighbour. */
#define CR_PROBE_OPTS_INIT { .threads = 0, .bytes = 0, .min_passes = 5, .seconds = 1.0 }

/** What the probe measured. */
typedef struct cr_probe_result {
	double gbs;          /**< median over passes, 10^9 bytes/s */
	double min_gbs, max_gbs;
	unsigned passes;
	unsigned threads;
	size_t bytes;
} cr_probe_result;

/**
 * Measure memory read bandwidth: every thread first writes its own buffer
 * (so its pages are local to it), then all threads read their buffers at
 * once, pass after pass; a pass's figure is the bytes read by all threads
 * over the time from a common start to the last thread's end. Reported: the
 * median pass. Allocates the buffers and starts threads; no output.
 * @return 0; CR_ERR_NOMEM; CR_ERR_IO when no thread could be started.
 */
int cr_detect_measure_bandwidth(const cr_probe_opts *opts, cr_probe_result *out, cr_error *err);

#ifdef __cplusplus
}
#endif
#endif
