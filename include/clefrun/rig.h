/**
 * @file rig.h
 * @brief Ad-hoc rigs from a one-line spec.
 *
 * Grammar (keys in any order, no spaces):
 *
 *   custom:mem_gb=24,bw_gbs=1008[,devices=2][,tflops=165]
 *          [,backend=cuda|metal|rocm|vulkan|cpu][,kind=discrete|unified|system]
 *          [,usable_gb=100][,ram_gb=64,ram_bw_gbs=89.6]
 *
 * mem_gb is the memory of ONE device in binary gigabytes (as memory is sold:
 * a "24 GB" card has 24 GiB), bw_gbs its bandwidth in decimal GB/s, tflops
 * its dense FP16 throughput. Defaults: devices=1, tflops=0 (prefill not
 * estimated), backend=cuda, kind=discrete (backend=cpu implies kind=system,
 * backend=metal kind=unified unless given). ram_gb and ram_bw_gbs add a
 * system-RAM tier (GiB, GB/s) beside the GPUs, for partial offload.
 * usable_gb is the memory the runtime may use on one device (GiB, at most
 * mem_gb); without it the platform's default applies (unified memory:
 * macOS's GPU wired limit, what CUDA may allocate on Linux, the Strix Halo
 * BIOS/GTT split; docs/methodology.md "Usable memory").
 */
#ifndef CLEFRUN_RIG_H
#define CLEFRUN_RIG_H

#include "clefrun/catalog.h"
#include "clefrun/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/** The prefix that marks a spec. */
#define CR_RIG_SPEC_PREFIX "custom:"

/**
 * @name Bounds of a rig's figures
 * The same wherever a rig comes from: data/rigs.json and the saved rigs
 * (devices[].count, memory_gib, bandwidth_gbs, fp16_tflops,
 * usable_fraction; docs/schema/common.schema.json says the same), a
 * "custom:" spec and `clefrun rig add` (devices, mem_gb / ram_gb / usable_gb,
 * bw_gbs / ram_bw_gbs, tflops). They refuse typos and nonsense, not unusual
 * machines, so each lies far beyond any real device (docs/catalog.md
 * "Bounds"); they are clefrun's choices, not measurements.
 * @{
 */
/** Devices in one group: 64, four times the GPUs one llama.cpp process can
 *  drive (GGML_CUDA_MAX_DEVICES is 16, ggml/include/ggml-cuda.h). */
#define CR_RIG_DEVICES_MAX 64
/** Memory of one device, GiB: above 0 (1 MiB), at most 64 TiB, above the
 *  largest single machines' RAM (tens of TiB). System RAM beside the GPUs
 *  (ram_gb) and usable_gb have the same bounds. */
#define CR_RIG_MEMORY_GIB_MIN 0.001
#define CR_RIG_MEMORY_GIB_MAX 65536.0
/** Bandwidth of one device, GB/s: above 0, at most 10^6 (1 PB/s), over a
 *  hundred times the catalog's fastest (Instinct MI350X, 8000 GB/s). The
 *  same bound for system RAM (ram_bw_gbs; the catalog's fastest socket is
 *  460.8 GB/s): a spec used to stop it at 10^5, the only place that did. */
#define CR_RIG_BANDWIDTH_GBS_MIN 0.001
#define CR_RIG_BANDWIDTH_GBS_MAX 1e6
/** Dense FP16 throughput of one device, TFLOPS: 0 (unknown) to 10^6. */
#define CR_RIG_TFLOPS_MAX 1e6
/** Share of a device's memory the runtime may use: 1 % to all of it (less
 *  than 1 % holds no model; usable_gb under 1 % of mem_gb is refused). */
#define CR_RIG_USABLE_FRACTION_MIN 0.01
/** @} */

/**
 * Parse @p spec (with its "custom:" prefix) into @p out.
 * @return 0; CR_ERR_PARSE for a syntax error, CR_ERR_INVALID for an
 *   unknown key, a missing mem_gb/bw_gbs, a value outside the bounds above
 *   or figures that contradict each other (the checks of
 *   cr_userrigs_build, userrigs.h); the message names the spec and the key.
 */
int cr_rig_parse_spec(const char *spec, cr_rig *out, cr_error *err);

/** Σ count × memory_gib × 2^30 over all device groups, bytes. */
uint64_t cr_rig_memory_bytes(const cr_rig *rig);
/** Σ count × bandwidth over all device groups, GB/s (the seeds' "aggregate"). */
double cr_rig_aggregate_bandwidth_gbs(const cr_rig *rig);

/**
 * The peak bandwidths the decode estimate reads each memory tier at, GB/s,
 * before the backend's efficiency: what `clefrun rigs` shows per tier.
 *
 * @param accel_gbs receives the accelerators' (discrete and unified
 *   devices): llama.cpp's layer split reads the GPUs one after another, each
 *   its share of the layers (share = its usable memory), so the figure is
 *   1 / Σ share / bandwidth — one card's bandwidth when the cards are alike,
 *   not their sum; 0 when the rig has none.
 * @param ram_gbs receives system RAM's: one device (socket) of the first
 *   system group, as llama.cpp does not scale across NUMA nodes; 0 when none.
 */
void cr_rig_tier_bandwidth_gbs(const cr_rig *rig, double *accel_gbs, double *ram_gbs);

#ifdef __cplusplus
}
#endif
#endif
