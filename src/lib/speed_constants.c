/*
 * Speed-model constants, fitted by bench/speed-calibration on
 * bench/data/measured_public.csv (335 measured llama.cpp rows from
 * XiongjieDai's llama-bench notebooks, ik_llama.cpp's CPU table and
 * llama.cpp's PR/bench tables) by minimising the squared log error of
 * tokens/s. docs/accuracy.md has the method, the rows behind each figure
 * and the residuals (decode: median 11.5 %, mean 16.5 % absolute error on
 * 182 rows). Re-run the script after changing the model's shape.
 */
#include "speed_constants.h"

const cr_speed_constants cr_speed_table[CR_BACKEND_COUNT] = {
	/* 85 single + 54 multi-GPU decode rows, 36 single-GPU pp512 rows. */
	[CR_BACKEND_CUDA] = { 0.772, 0.002740, 0.612, 1.214e-14, 0.70, 1.19 },
	/* 27 decode rows, 7 pp512 rows (too few devices to fit c: 0). */
	[CR_BACKEND_METAL] = { 0.681, 0.005041, 0.713, 0.0, 0.75, 1.24 },
	/* 3 decode rows: efficiency only; latency, prefill, range are CUDA's / pooled. */
	[CR_BACKEND_ROCM] = { 0.728, 0.002740, 0.612, 1.214e-14, 0.70, 1.20 },
	/* 2 decode rows: efficiency only; latency, prefill, range are CUDA's / pooled. */
	[CR_BACKEND_VULKAN] = { 0.631, 0.002740, 0.612, 1.214e-14, 0.70, 1.20 },
	/* 11 decode rows (M2 Max CPU cores, one EPYC); the 33 ms absorbs
	 * compute-bound low-bit quants. No CPU prefill rows: CUDA's efficiency
	 * is a placeholder, used only where a CPU device has a TFLOPS figure. */
	[CR_BACKEND_CPU] = { 0.732, 0.033264, 0.612, 1.214e-14, 0.71, 1.23 },
};

/* 54 multi-GPU CUDA rows (2-8 cards, llama.cpp layer split): the cards run
 * one after another, each reading its share, at 1.015x the single-card time
 * for the same bytes. */
const double cr_multi_gpu_decode_factor = 1.015;

/* Tensor parallelism has no row in the calibration data. 20 us per
 * all-reduce is a clefrun assumption of the order of NCCL's small-message
 * latency over PCIe; docs/methodology.md flags it as unvalidated. */
const double cr_tp_allreduce_latency_s = 20e-6;
/* PCIe 4.0 x16, 31 GB/s one way (facts/rigs_notes.md, ml-engineering). */
const double cr_tp_default_link_gbs = 31.0;
