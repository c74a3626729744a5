/*
 * The estimator. Pure: no I/O, no allocation, no globals beyond constant
 * tables. Every constant cites its source here and in docs/methodology.md.
 */
#include "clefrun/estimate.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "speed_constants.h"
#include "util.h"

#define GIB 1073741824.0
#define MIB 1048576.0

/* llama.cpp rounds the KV cache size up to a multiple of 256 cells
 * (src/llama-context.cpp: cparams.n_ctx = GGML_PAD(cparams.n_ctx, 256), and
 * n_ctx_seq likewise; PR 17046, 2025-11; design.md). Builds from May 2024
 * (PR 7257) to October 2025 (PR 16812) padded to
 * llama_kv_cache_get_padding(): 256 cells with flash attention, 32 without;
 * PR 16812 to PR 17046 did not pad. opts.kv_pad_cells selects such a rule
 * (bench/memory-logs compares old builds' logs with it); KV_PAD, the
 * largest, also bounds the cell count wherever a limit is checked. */
#define KV_PAD CR_KV_PAD_CELLS

/* Smallest context worth calling a fit: one default micro-batch (estimate.h). */
#define MIN_CTX CR_MIN_FIT_CTX

/* CUDA/ROCm/Vulkan context, cuBLAS workspace and driver reservation per
 * discrete GPU: design.md gives 0.3-0.8 GB; the one logged case is 770 MiB
 * reserved by the driver on a 6 GiB laptop GPU (calibration/measured_memory.md
 * §3). clefrun charges 512 MiB (estimate.h); unified memory is covered by
 * usable_fraction. */
#define DISCRETE_RUNTIME_BYTES ((double)CR_DISCRETE_RUNTIME_BYTES)

/* ggml block layout of the KV cache types (gguf-py/gguf/constants.py,
 * GGML_QUANT_SIZES): elements per block, bytes per block. */
static const struct {
	uint32_t block, bytes;
	const char *name;
} kv_types[CR_KV_TYPE_COUNT] = {
	{ 1, 2, "f16" },
	{ 32, 34, "q8_0" },
	{ 32, 18, "q4_0" },
};

static const char *const tier_names[CR_TIER_COUNT] = { "fast", "ok", "slow", "tight", "unknown",
							"no-fit" };

const char *cr_tier_name(cr_tier t)
{
	return (unsigned)t < CR_TIER_COUNT ? tier_names[t] : "?";
}

int cr_tier_parse(const char *s, cr_tier *out)
{
	for (int i = 0; i < CR_TIER_COUNT; i++) {
		if (strcmp(s, tier_names[i]) == 0) {
			*out = (cr_tier)i;
			return CR_OK;
		}
	}
	return CR_ERR_INVALID;
}

const char *cr_kv_type_name(cr_kv_type t)
{
	return (unsigned)t < CR_KV_TYPE_COUNT ? kv_types[t].name : "?";
}

int cr_kv_type_parse(const char *s, cr_kv_type *out)
{
	for (int i = 0; i < CR_KV_TYPE_COUNT; i++) {
		if (cr_strcasecmp(s, kv_types[i].name) == 0) {
			*out = (cr_kv_type)i;
			return CR_OK;
		}
	}
	return CR_ERR_INVALID;
}

static uint64_t pad_up(uint64_t x, uint64_t to)
{
	return (x + to - 1) / to * to;
}

/* Bytes of one cache row of n elements (ggml_row_size). */
static uint64_t row_bytes(cr_kv_type t, uint64_t n)
{
	return (n + kv_types[t].block - 1) / kv_types[t].block * kv_types[t].bytes;
}

/* llama.cpp caps the micro-batch at the context (n_ubatch = min(n_ubatch,
 * n_batch), n_batch = min(n_batch, n_ctx); src/llama-context.cpp). */
static uint32_t ubatch(const cr_estimate_opts *o)
{
	return o->n_ubatch < o->n_ctx ? o->n_ubatch : o->n_ctx;
}

/* KV streams: one per sequence unless the cache is unified (llama.cpp
 * --kv-unified; llama-server turns it on for -np auto, an explicit -np N
 * keeps one stream per sequence). */
static uint32_t streams(const cr_estimate_opts *o)
{
	return o->kv_unified ? 1 : o->n_seq;
}

/* The cells each stream is rounded up to: 256, or the older build's rule
 * the options name (validate() refuses more than 256). */
static uint32_t kv_pad(const cr_estimate_opts *o)
{
	return o->kv_pad_cells && o->kv_pad_cells <= KV_PAD ? o->kv_pad_cells : KV_PAD;
}

/* Cells of one stream of a full-attention layer: the context shared by the
 * streams, rounded up to a multiple of 256 (llama.cpp pads the cache). */
static uint32_t cells_full_stream(const cr_estimate_opts *o)
{
	return (uint32_t)pad_up(o->n_ctx / streams(o), kv_pad(o));
}

/* All cells of a full-attention layer. */
static uint32_t cells_full(const cr_estimate_opts *o)
{
	return cells_full_stream(o) * streams(o);
}

/* Cells of one stream of a sliding-window layer:
 * pad256(min(n_ctx_seq, window × (unified ? n_seq : 1) + n_ubatch))
 * (llama.cpp src/llama-kv-cache-iswa.cpp), all of n_ctx_seq with --swa-full. */
static uint32_t cells_swa_stream(const cr_model *m, const cr_estimate_opts *o)
{
	uint64_t per = cells_full_stream(o);
	uint64_t want = (uint64_t)m->window * (o->kv_unified ? o->n_seq : 1) + ubatch(o);

	if (o->swa_full)
		return (uint32_t)per;
	return (uint32_t)pad_up(want < per ? want : per, kv_pad(o));
}

static uint32_t cells_swa(const cr_model *m, const cr_estimate_opts *o)
{
	return cells_swa_stream(m, o) * streams(o);
}

/* K and V bytes of one cell of layer i. MLA (DeepSeek-V2/V3) keeps only the
 * compressed latent plus the RoPE key, kv_lora_rank + rope_dim wide, one
 * head, no separate V (llama.cpp deepseek2 with MLA; facts/models_notes.md). */
static uint64_t heads_cell_bytes(const cr_model *m, uint64_t heads, const cr_estimate_opts *o)
{
	uint64_t v_width = heads * m->head_dim_v;

	if (heads == 0)
		return 0;
	if (m->mla)
		return row_bytes(o->type_k, (uint64_t)m->mla_kv_lora_rank + m->mla_rope_dim);
	/* Without flash attention llama.cpp stores V transposed and gives every
	 * layer's V the widest layer's width (n_embd_v_gqa_max; "padding V
	 * cache": per-layer KV heads of OpenELM give V 8.00 MiB where K is
	 * 4.50 MiB, llama.cpp 2026-09 logs in bench/memory-truth). */
	if (!o->flash_attn) {
		for (uint32_t l = 0; l < m->n_layers && l < CR_MAX_LAYERS; l++) {
			uint64_t w = (uint64_t)m->kv_heads[l] * m->head_dim_v;

			if (m->layer_kind[l] != CR_LAYER_RECURRENT && w > v_width)
				v_width = w;
		}
	}
	return row_bytes(o->type_k, heads * m->head_dim_k) + row_bytes(o->type_v, v_width);
}

static uint64_t layer_cell_bytes(const cr_model *m, uint32_t i, const cr_estimate_opts *o)
{
	if (m->layer_kind[i] == CR_LAYER_RECURRENT)
		return 0;
	return heads_cell_bytes(m, m->kv_heads[i], o);
}

/* One cell of the MTP layers outside the trunk whose KV llama.cpp's main
 * context allocates (cr_model.mtp_kv_layers: GLM's NextN block, a full
 * attention layer like the trunk's, with its widest KV heads). No graph of
 * the trunk reads it, so decode does not either: memory only. */
static uint64_t mtp_cell_bytes(const cr_model *m, const cr_estimate_opts *o)
{
	uint64_t heads = 0;

	if (!m->mtp_kv_layers)
		return 0;
	for (uint32_t i = 0; i < m->n_layers && i < CR_MAX_LAYERS; i++)
		if (m->layer_kind[i] == CR_LAYER_FULL && m->kv_heads[i] > heads)
			heads = m->kv_heads[i];
	return (uint64_t)m->mtp_kv_layers * heads_cell_bytes(m, heads, o);
}

/* Per-estimate sums over the layers, so that a plan at any context costs
 * O(1): cell bytes of all full-attention and of all sliding layers. */
typedef struct profile {
	uint64_t full_cell_bytes;
	uint64_t swa_cell_bytes;
	uint64_t mtp_cell_bytes;  /* allocated, never read (mtp_cell_bytes()) */
	bool has_full;
	uint64_t state_bytes;
} profile;

static void make_profile(const cr_model *m, const cr_estimate_opts *o, profile *pf)
{
	memset(pf, 0, sizeof(*pf));
	for (uint32_t i = 0; i < m->n_layers && i < CR_MAX_LAYERS; i++) {
		uint64_t b = layer_cell_bytes(m, i, o);

		if (m->layer_kind[i] == CR_LAYER_SLIDING) {
			pf->swa_cell_bytes += b;
		} else if (m->layer_kind[i] == CR_LAYER_FULL) {
			pf->full_cell_bytes += b;
			pf->has_full |= b > 0;
		}
	}
	pf->mtp_cell_bytes = mtp_cell_bytes(m, o);
	pf->has_full |= pf->mtp_cell_bytes > 0;
	pf->state_bytes = cr_estimate_state_bytes(m, o);
}

/* KV bytes when every layer holds min(its capacity, tokens) cells: the
 * whole cache (tokens = UINT64_MAX), or what one sequence's decode step
 * reads at a depth (its own stream). */
static uint64_t kv_bytes_at(const cr_model *m, const profile *pf, const cr_estimate_opts *o,
			    uint64_t tokens)
{
	bool all = tokens == UINT64_MAX;
	uint64_t full = all ? cells_full(o) : cells_full_stream(o);
	uint64_t swa = !m->window ? 0 : all ? cells_swa(m, o) : cells_swa_stream(m, o);

	return pf->full_cell_bytes * (tokens < full ? tokens : full) +
	       pf->swa_cell_bytes * (tokens < swa ? tokens : swa) + (all ? pf->mtp_cell_bytes * full : 0);
}

/* The largest byte count the estimator works with: 2^60 B (1 EiB), far
 * beyond any machine, and far enough from 2^64 that sums cannot wrap. */
#define BYTES_LIMIT 1152921504606846976.0

/* True when the KV cache at the model's maximum context stays below the
 * limit; hostile catalogs and GGUF headers may describe absurd models. */
static bool kv_in_range(const cr_model *m, const profile *pf, const cr_estimate_opts *o)
{
	double cells = (double)m->context_max + KV_PAD;
	double swa = m->window ? (double)m->window * o->n_seq + o->n_ubatch + KV_PAD : 0;

	return (double)(pf->full_cell_bytes + pf->mtp_cell_bytes) * cells + (double)pf->swa_cell_bytes * swa < BYTES_LIMIT &&
	       (double)pf->state_bytes < BYTES_LIMIT;
}

uint64_t cr_estimate_kv_bytes(const cr_model *m, const cr_estimate_opts *o)
{
	profile pf;

	make_profile(m, o, &pf);
	if ((double)(pf.full_cell_bytes + pf.mtp_cell_bytes) * ((double)o->n_ctx + KV_PAD) +
	    (double)pf.swa_cell_bytes * ((double)m->window * o->n_seq + o->n_ubatch + KV_PAD) >= BYTES_LIMIT)
		return UINT64_MAX;
	return kv_bytes_at(m, &pf, o, UINT64_MAX);
}

/* Gated DeltaNet / SSM state per layer and sequence, F32 (llama.cpp
 * llama_hparams::n_embd_r / n_embd_s): conv state (kernel-1) × (v_heads·v_dim
 * + 2·k_heads·k_dim) and recurrent state k_dim × v_heads·v_dim. */
uint64_t cr_estimate_state_bytes(const cr_model *m, const cr_estimate_opts *o)
{
	const cr_linear_attn *la = &m->linear;
	uint64_t d_inner = (uint64_t)la->v_heads * la->v_head_dim;
	uint64_t conv = (la->conv_kernel ? la->conv_kernel - 1u : 0u) *
			(d_inner + 2ull * la->k_heads * la->k_head_dim);
	uint64_t ssm = (uint64_t)la->k_head_dim * d_inner;
	/* The same product in double: header values (four 32-bit keys) can
	 * make it wrap 64 bits, which would read as a small state. */
	double d = ((double)(la->conv_kernel ? la->conv_kernel - 1u : 0u) *
			    ((double)la->v_heads * la->v_head_dim + 2.0 * la->k_heads * la->k_head_dim) +
		    (double)la->k_head_dim * la->v_heads * la->v_head_dim) *
		   cr_model_count_layers(m, CR_LAYER_RECURRENT) * 4.0 * o->n_seq;

	if (d >= 9223372036854775808.0) /* 2^63: out of any range the estimator accepts */
		return UINT64_MAX;
	return cr_model_count_layers(m, CR_LAYER_RECURRENT) * (conv + ssm) * 4ull * o->n_seq;
}

static double expert_fraction(const cr_model *m);

/* The tensors other than natively quantized experts, in the native-format
 * preset itself (llama-quantize MXFP4_MOE), are Q8_0: 8.5 bpw (34 bytes per
 * 32, gguf-py GGML_QUANT_SIZES). The files agree: ggml-org's and bartowski's
 * gpt-oss-20b MXFP4 are 12.1 GB = 19.1B expert params x 4.25 / 8 (10.16 GB)
 * + 1.80B others x 8.5 / 8 (1.92 GB). */
#define NATIVE_REST_BPW 8.5

uint64_t cr_estimate_weights_bytes(const cr_model *m, const cr_quant *q,
				   const cr_estimate_opts *o)
{
	if (o->weights_bytes)
		return o->weights_bytes;
	/* Natively quantized experts stay in their type at every preset: GGUF
	 * publishers keep gpt-oss's experts in MXFP4 ("All quants keep the
	 * feed forward networks at mxfp4", bartowski/openai_gpt-oss-20b-GGUF;
	 * unsloth/gpt-oss-20b-GGUF: Q2_K 11.5 GB, Q4_K_M 11.6, F16 13.8), so
	 * only the other tensors take the preset's type. Re-expanding the
	 * experts (a 22.3 GB "Q8_0", DevQuasar/openai.gpt-oss-20b-GGUF) adds
	 * bytes and no quality: clefrun never sizes that. */
	if (m->native_bpw > 0 && m->native_type[0]) {
		double native = expert_fraction(m) * (double)m->params;
		double rest_bpw = strcmp(q->base_type, m->native_type) == 0 ? NATIVE_REST_BPW : q->bpw;

		return (uint64_t)(native * m->native_bpw / 8.0 +
				  ((double)m->params - native) * rest_bpw / 8.0);
	}
	return (uint64_t)((double)m->params * q->bpw / 8.0);
}

/* Compute buffer of one backend. ggml's graph allocator reuses memory, so
 * the buffer is the largest of three peaks (llama.cpp 2026-09 logs through
 * node-llama-cpp, bench/memory-truth; docs/methodology.md): the FFN peak
 * (below) and:
 *  - the output end: logits of a full micro-batch (n_vocab × n_ubatch × 4 B)
 *    plus two hidden-state rows per token (n_ubatch × n_embd × 4 B × 2);
 *  - the attention: without flash attention the F32 KQ matrix and its mask,
 *    n_kv × n_ubatch × (n_head + 1) × 4 B; with it only an F16 mask,
 *    n_kv × n_ubatch × 2 B; plus about six hidden-state rows per token of
 *    other activations (3.0 MiB on a 256-wide model, 44-52 MiB on 4096-wide
 *    ones). n_kv is the cells of the largest layer's cache. */
static double compute_buffer(const cr_model *m, const profile *pf, const cr_estimate_opts *o,
			     double *ffn_peak, double *body_peak)
{
	double ub = ubatch(o), row = ub * 4.0; /* one F32 value per token of the micro-batch */
	double act = row * m->hidden;
	/* Logits rows: llama.cpp reserves min(n_ubatch, n_outputs_max) of them
	 * (llama-context.cpp sched_reserve: n_outputs_pp); llama-server's draft
	 * context asks for one per sequence (common/speculative.cpp
	 * common_base_params_to_speculative), and its compute buffer is then the
	 * FFN peak: Llama-3.2-1B shape at 16k with flash attention, 80.01 MiB
	 * logged against 258.50 with a full micro-batch (bench/memory-truth). */
	double out_rows = o->n_outputs_max && o->n_outputs_max < ub ? o->n_outputs_max : ub;
	double logits = (double)m->vocab * out_rows * 4.0 + 2.0 * act;
	double n_kv = pf->has_full ? cells_full_stream(o) : (m->window ? cells_swa_stream(m, o) : 0);
	double mask = n_kv * ub * (o->flash_attn ? 2.0 : 4.0);
	double attn = o->flash_attn ? mask : n_kv * ub * m->n_heads * 4.0 + mask;
	double ffn, k = m->experts_used;

	/* Other activations at the attention peak: six hidden rows; MLA keeps
	 * the per-head decompressed K and V instead (n_head × (3 × kv_lora_rank
	 * + rope_dim): 400 MiB for DeepSeek-V3, 408 logged). */
	if (m->mla)
		attn += row * m->n_heads * (3.0 * m->mla_kv_lora_rank + m->mla_rope_dim);
	else
		attn += 6.0 * act;
	/* The FFN peak: gate, up and their product (3 × n_ff) and four hidden
	 * rows; for MoE, k routed experts either at once or one by one with the
	 * (2k + 3) hidden rows of the routing (bench/memory-truth fits this to
	 * 0.01 MiB on six llama shapes and Mistral-7B's 180 MiB at 64k). */
	if (m->experts_total && k > 0) {
		double a = 3.0 * k * m->ffn + 4.0 * m->hidden, b = k * m->ffn + (2.0 * k + 3.0) * m->hidden;

		ffn = mask + row * (a > b ? a : b);
	} else {
		ffn = mask + row * (3.0 * m->ffn + 4.0 * m->hidden);
	}
	/* Hybrid linear-attention models with flash attention: llama.cpp's graph
	 * allocator places the logits above the attention mask, which is not
	 * reused for them, so the output end holds the mask as well. Measured on
	 * the Qwen3.5-27B shape (bench/memory-truth, CPU llama.cpp v0.4.0): 569.02
	 * MiB at 64k and ubatch 512 = 485 logits + 20 hidden rows + 64 mask,
	 * 2276.08 at ubatch 2048 = 1940 + 80 + 256, and likewise at 16k. The
	 * Qwen3.5-9B shape's graph does reuse the mask (509.00 at 64k): clefrun
	 * keeps the mask there too, an over-estimate of at most the mask. */
	if (o->flash_attn && pf->state_bytes && pf->has_full)
		logits += mask;
	/* A device of a layer split that does not hold the output layer has
	 * no output end: its buffer is the larger of the other two peaks. */
	*body_peak = attn > ffn ? attn : ffn;
	if (attn > logits)
		logits = attn;
	*ffn_peak = ffn;
	return logits > ffn ? logits : ffn;
}

typedef struct tiers {
	double acc_cap;     /* usable accelerator bytes, after runtime overhead */
	double acc_overhead;
	double acc_usable;  /* usable accelerator bytes, before overhead */
	unsigned n_acc;
	bool acc_unified;   /* some accelerator shares memory with the host */
	bool op_offload;    /* a discrete GPU runs host-resident weights' matmuls (below) */
	double sys_cap;     /* usable system RAM bytes */
	bool has_sys;
	bool maps_file;     /* a Metal accelerator: the model buffer maps the file (below) */
	double mapped_extra;/* what that mapping holds beyond the offloaded tensors */
	const cr_rig *rig;  /* the rig, for the per-device layer split (split_gpus) */
} tiers;

static double device_usable(const cr_device *d)
{
	return d->memory_gib * GIB * d->usable_fraction;
}

/* The runtime reserve of one device: CR_RESERVE_<backend>_BYTES for a
 * discrete one (estimate.h gives their sources), none for unified memory. */
static const uint64_t reserve_bytes[CR_BACKEND_COUNT] = {
	[CR_BACKEND_CUDA] = CR_RESERVE_CUDA_BYTES,
	[CR_BACKEND_METAL] = CR_DISCRETE_RUNTIME_BYTES, /* no discrete Metal device exists */
	[CR_BACKEND_ROCM] = CR_RESERVE_ROCM_BYTES,
	[CR_BACKEND_VULKAN] = CR_RESERVE_VULKAN_BYTES,
	[CR_BACKEND_CPU] = CR_DISCRETE_RUNTIME_BYTES,
};

static double device_overhead(const cr_device *d)
{
	if (d->kind != CR_MEM_DISCRETE)
		return 0;
	return (unsigned)d->backend < CR_BACKEND_COUNT ? (double)reserve_bytes[d->backend] : DISCRETE_RUNTIME_BYTES;
}

static void rig_tiers(const cr_rig *r, tiers *t)
{
	memset(t, 0, sizeof(*t));
	t->rig = r;
	for (unsigned g = 0; g < r->n_devices; g++) {
		const cr_device *d = &r->devices[g];
		double usable = d->count * device_usable(d);

		if (d->kind == CR_MEM_SYSTEM) {
			t->sys_cap += usable;
			t->has_sys = true;
			continue;
		}
		t->n_acc += d->count;
		t->acc_usable += usable;
		t->acc_overhead += d->count * device_overhead(d);
		t->acc_unified |= d->kind == CR_MEM_UNIFIED;
		/* Metal maps the weights where the GPU reads them: no copy. */
		t->maps_file |= d->backend == CR_BACKEND_METAL;
		t->op_offload |= d->backend == CR_BACKEND_CUDA || d->backend == CR_BACKEND_ROCM ||
				 d->backend == CR_BACKEND_VULKAN;
	}
	t->acc_cap = t->acc_usable - t->acc_overhead;
}

/* Metal's model buffer with mmap (llama.cpp's default) is the file range
 * from the first to the last offloaded tensor (llama-model.cpp load_tensors:
 * ggml_backend_dev_buffer_from_host_ptr over get_mapping_range), so it also
 * maps the host tensors lying between them: the token table of a
 * llama-quantize file (Pythia-1.4B Q4_0 on an M4: MTL buffer 786.33 MiB, the
 * whole file, beside CPU_Mapped 55.27; the F16 file, token table first:
 * 2502.97 + 196.50; bench/data/gpu_memory_logs.csv rows 81 and 83). Only a
 * GGUF header says where its tensors lie; catalog models get 0. */
static void tiers_for_weights(const cr_weights *w, tiers *t)
{
	t->mapped_extra = t->maps_file && w->kind == CR_WEIGHTS_EXACT ? (double)w->mapped_extra_bytes : 0;
}

/* Token-embedding bytes, at the mix's average bits per weight. llama.cpp
 * keeps token_embd in host memory even with every layer offloaded
 * (Llama-3-8B Q4_K_M: "CPU buffer size = 281.81 MiB", measured_memory.md §1). */
static double embedding_bytes(const cr_model *m, double weights)
{
	double emb = (double)m->vocab * m->hidden * (weights / (double)m->params);

	return emb < weights / 2 ? emb : weights / 2;
}

/* llama.cpp's default logical batch (common/common.h n_batch, -b 2048);
 * causal models cap it at the context (src/llama-context.cpp). */
#define EMBED_BATCH_TOKENS 2048u

/* The host output buffer, F32 (llama_context::output_reserve,
 * src/llama-context.cpp): n_vocab logits per output row, plus n_embd per
 * row when the context computes embeddings. A generator asks for one output
 * per sequence (0.49 MiB for a 128k vocab, measured_memory.md 1). An
 * embedding or reranking context (llama-server --embedding / --reranking)
 * makes every token of a batch an output (llama_context::decode: "when
 * computing embeddings, all tokens are output") and keeps the logits beside
 * the embeddings (has_logits = true since ggml-org/llama.cpp#14208; #24713:
 * "~1.2 GB/batch at pp2048" of logits on a 151k vocab), so the buffer holds
 * n_vocab + n_embd floats for each token of a full batch. */
static double output_bytes(const cr_model *m, const cr_estimate_opts *o)
{
	uint32_t rows;

	if (m->task == CR_TASK_GENERATION)
		return (double)m->vocab * 4.0 * o->n_seq;
	rows = o->n_ctx < EMBED_BATCH_TOKENS ? o->n_ctx : EMBED_BATCH_TOKENS;
	if (rows < o->n_seq)
		rows = o->n_seq;
	return ((double)m->vocab + m->hidden) * 4.0 * rows;
}

/* Share of the weights in routed MoE experts. With E experts of which k are
 * used, active = rest + experts × k/E and total = rest + experts, so
 * experts = (total − active) × E / (E − k). */
static double expert_fraction(const cr_model *m)
{
	double e = m->experts_total, k = m->experts_used, x;

	if (!m->experts_total || m->experts_used >= m->experts_total)
		return 0;
	x = ((double)m->params - (double)m->active_params) * e / (e - k) / (double)m->params;
	return x < 0 ? 0 : x > 1 ? 1 : x;
}

/* Share of the routed-expert bytes in system RAM: all with --cpu-moe; with
 * --n-cpu-moe N the experts of layers 0..N-1 (llama.cpp common/arg.cpp:
 * blk.<i>.ffn_(up|down|gate)_exps for i < N), counting only the layers that
 * have experts (after the leading dense ones, every experts_every-th, and
 * not the mixer-only layers of a Nemotron-H-style model: CR_LAYER_NO_FFN). */
static double cpu_moe_share(const cr_model *m, const cr_estimate_opts *o)
{
	uint32_t all = 0, first = 0;

	if (o->cpu_moe)
		return 1.0;
	if (!o->n_cpu_moe)
		return 0.0;
	for (uint32_t i = m->experts_dense_layers; i < m->n_layers; i++) {
		if ((m->experts_every && (i + 1) % m->experts_every) || (m->layer_parts[i] & CR_LAYER_NO_FFN))
			continue;
		all++;
		first += i < o->n_cpu_moe;
	}
	return all ? (double)first / all : 0.0;
}

/*
 * llama.cpp's op offload: a matrix multiplication whose weight sits in host
 * memory runs on the GPU when the batch has at least 32 tokens (ggml-cuda.cu
 * ggml_backend_cuda_device_offload_op, min_batch_size = 32, the token count
 * of MUL_MAT_ID being ne[2]; ROCm builds the same file, Vulkan has the same
 * rule; ggml-backend.cpp's scheduler then copies the weight to the GPU). The
 * compute graph is reserved at n_ubatch tokens, so the first GPU's compute
 * buffer holds one such weight beside the FFN activations: one layer's expert
 * tensor (E x n_embd x n_ff_exp) when experts live in RAM, an FFN matrix
 * (n_embd x n_ff) when dense layers do. Logged: Qwen3-235B-A22B Q8_0, every
 * expert on the CPU, ubatch 512, 32k: CUDA0 compute 1024.00 MiB = 816 (one
 * Q8_0 expert tensor: 128 x 4096 x 1536 x 8.5 bits) + 208 (the FFN peak);
 * bench/data/gpu_memory_logs.csv row 2. When the output layer is in RAM
 * with the layers (llama.cpp before PR 18148 offloaded it only when
 * n_gpu_layers > n_layer; clefrun's own spill of layers still leaves it
 * there: gpu_placement below), the output matmul is offloaded the same way:
 * its weight (vocab x n_embd, kept at Q6_K or better by llama-quantize's
 * output-tensor rule, llama-quant.cpp) beside the logits (vocab x n_ubatch
 * F32) and the hidden rows. Logged: Pythia-2.8B Q4_0, -ngl 10, ubatch 512:
 * CUDA0 compute 203.99 MiB, with flash attention on and off, = 100.74 (the
 * Q6_K output weight) + 98.25 (logits) + 5.00 (one hidden row); the same run
 * with every layer on the GPU: 103.25 and 162.00 (rows 109 to 111). Metal
 * needs no copy; a rig without a system RAM tier has no host-resident
 * weight to copy. @p layers_in_ram: the output layer in RAM (and dense
 * layers with it); else only repeating layers' weights are, routed experts
 * (--cpu-moe, --n-cpu-moe) or whole layers with the output layer on a GPU.
 * Returns the bytes the copy adds to that buffer, 0 when there is none.
 */
#define OP_OFFLOAD_MIN_BATCH 32
/* Q6_K bits per weight (ggml-common.h block_q6_K: 210 bytes per 256). */
#define OUTPUT_MIN_BPW 6.5625

/* A byte count held as a double, for the reports: a sum of terms that cancel
 * can come out a few bytes below zero, and a hostile model's arithmetic far
 * beyond any memory; converting either to uint64_t unchecked is undefined. */
static uint64_t bytes_u64(double x)
{
	if (!(x > 0))
		return 0;
	return x < 0x1p64 ? (uint64_t)x : UINT64_MAX;
}

/* The output weight: vocab x n_embd at the mix's bits per weight, at least
 * Q6_K's (llama-quantize's rule above; F16 and Q8_0 files keep their own). */
static double output_weight_bytes(const cr_model *m, double weights)
{
	double avg = m->params ? weights / (double)m->params : 0;

	return (double)m->vocab * m->hidden * (avg > OUTPUT_MIN_BPW / 8.0 ? avg : OUTPUT_MIN_BPW / 8.0);
}

/* The output layer's weight on the device: the token table where the model
 * ties it (or, an embedding model, has no head: llama.cpp takes the table),
 * else output_weight_bytes. `emb`: embedding_bytes. */
static double output_layer_bytes(const cr_model *m, double weights, double emb)
{
	return m->tied_embeddings || m->task == CR_TASK_EMBEDDING ? emb : output_weight_bytes(m, weights);
}

static double op_offload_extra(const cr_model *m, const cr_estimate_opts *o, double weights,
			       const tiers *t, double compute, double ffn_peak, bool layers_in_ram)
{
	double bpp = m->params ? weights / (double)m->params : 0, tensor, extra, peak;

	if (!t->op_offload || !t->has_sys || ubatch(o) < OP_OFFLOAD_MIN_BATCH)
		return 0;
	if (m->experts_total && expert_fraction(m) > 0) {
		if (m->native_bpw > 0 && m->native_type[0])
			bpp = m->native_bpw / 8.0;
		tensor = (double)m->experts_total * m->hidden * m->ffn * bpp;
	} else {
		tensor = (double)m->hidden * m->ffn * bpp;
	}
	peak = ffn_peak + tensor;
	if (layers_in_ram) {
		double row = ubatch(o) * 4.0;
		double out_peak = output_weight_bytes(m, weights) + (double)m->vocab * row +
				  2.0 * row * m->hidden;

		if (out_peak > peak)
			peak = out_peak;
	}
	extra = peak - compute;
	return extra > 0 ? extra : 0;
}

/* Where the bytes go at one context, and what fits. */
typedef struct plan {
	cr_memory mem;
	bool fits, tight;
	double f;           /* share of layer bytes (weights, KV, state) in system RAM */
	double expert_sys;  /* expert weight bytes in system RAM (--cpu-moe) */
	double layer_bytes; /* weights + KV + state of the repeating layers on accelerators */
	double acc_bytes;   /* on accelerators, without runtime overhead */
	double unified_host;/* host buffers living in unified accelerator memory */
	double mm_dev;      /* a vision projector on the first accelerator */
	double compute;     /* one compute buffer */
	double offload;     /* what op offload adds to the first GPU's compute buffer */
	double out_moved;   /* output-layer weight bytes moved to RAM with the layers (below);
			     * negative when the output layer stays on the accelerators
			     * while the repeating layers' share f is in RAM */
	bool out_acc;       /* the output layer is on the accelerators */
	double out_w;       /* its weight (slots.out_w) */
	double mapped;      /* Metal: file bytes mapped beyond the offloaded tensors (tiers) */
	double free_bytes;  /* left on the limiting tier */
	cr_gpu_use gpus[CR_MAX_GPUS]; /* the layer split over several accelerators (split_gpus) */
	unsigned n_gpus;
	unsigned limiting_gpu;
	bool pipeline;      /* llama.cpp's pipeline parallelism is on */
	bool filled;        /* llama.cpp's fit placed the layers: slots per device from fill[] */
	uint32_t fill[CR_MAX_GPUS]; /* load_tensors slots per device, the output layer's included */
	uint32_t fill_slots;/* their sum: the fit's n_gpu_layers */
	double fill_offload;/* op offload's copy on the first GPU with the fit's layers in RAM */
	double fill_sys;    /* weights and KV of the slots the fit left in RAM */
	double host_compute;/* the host compute buffer (host_compute_bytes) */
} plan;

/* The host compute buffer beside the GPUs' (CUDA_Host, ROCm_Host,
 * Vulkan_Host): the graph inputs the scheduler keeps on the CPU backend, the
 * F32 attention mask of each cache (n_kv x n_ubatch x 4 B; flash attention
 * casts it to F16 on the device) and the token embeddings that get_rows reads
 * from the host-side table (n_embd x n_ubatch x 4 B). Logged: Qwen3-30B-A3B,
 * 16k, ubatch 512: CUDA_Host 36.01 MiB = 32 + 4; Qwen3-235B-A22B, 32k, flash
 * attention: 72.01 = 64 + 8 (bench/data/gpu_memory_logs.csv rows 6 and 2). */
static double host_compute_buffer(const cr_model *m, const profile *pf, const cr_estimate_opts *o)
{
	double ub = ubatch(o), rows = ub * 4.0;
	double full = pf->has_full ? (double)cells_full_stream(o) : 0;
	double swa = m->window && pf->swa_cell_bytes ? (double)cells_swa_stream(m, o) : 0;

	return (full + swa + m->hidden) * rows;
}

/*
 * The layer split over several accelerators, as llama.cpp places it
 * (src/llama-model.cpp, llama_model::load_tensors): the split points are the
 * cumulative, normalised --tensor-split proportions, by default each
 * device's free memory (ggml_backend_dev_memory; here its usable memory
 * less its runtime reserve), or the fit's slot counts (fit_gpus); with
 * n_gpu_layers N, i_gpu_start = n_layer + 1 - N and act_gpu_layers =
 * min(N, n_layer + 1), and layer il (the output
 * layer is il = n_layer) goes to the first device whose split point is
 * above (il - i_gpu_start) / act_gpu_layers (std::upper_bound, in float as
 * there). So the output layer sits on the last device that holds layers,
 * and only when every repeating layer is offloaded; the token table stays on
 * the host (dev_input is the CPU). Each layer's KV cache and recurrent state
 * live on its layer's device (src/llama-kv-cache.cpp: model.dev_layer(il)),
 * a full-attention layer with cells_full cells, a sliding one with cells_swa.
 *
 * Compute buffers (ggml-backend.cpp's scheduler: one per backend, sized by
 * the graph part that runs there): the device with the output layer holds
 * compute_buffer's full peak, the others the larger of the attention and FFN
 * peaks (compute_buffer's body_peak). Pipeline parallelism (llama-context.cpp,
 * llama_context::llama_context: on with several devices, every layer
 * offloaded, layer split, KV offloaded and no tensor override, which
 * --cpu-moe and --n-cpu-moe are) makes the scheduler keep
 * CR_SCHED_MAX_COPIES copies of each split's inputs (ggml-backend.cpp
 * ggml_backend_sched_split_graph): the attention masks, n_kv x n_ubatch at
 * the device's mask type, and the hidden state handed over from the previous
 * device, n_embd x n_ubatch x 4 B; the extra copies are added to each
 * device (unslothai/unsloth#7637 measured the mask's 4x per device at 1M
 * context). The first device also takes op offload's weight copy, a vision
 * projector and Metal's mapped extra (fill_devices did the same).
 */
/* What one load_tensors slot costs the device that holds it: a repeating
 * layer its weight share and its KV cache or recurrent state, the output
 * layer (slot n_layer) its weight and the cache of GLM's MTP block, which
 * follows the last layer. */
typedef struct slots {
	double lw;          /* one repeating layer's weights */
	double out_w;       /* the output layer's weight (vocab x n_embd, or the tied token table) */
	double state_layer; /* one recurrent layer's state */
	uint32_t cf, cs;    /* cells of a full-attention and of a sliding layer */
} slots;

static void slots_init(const cr_model *m, const cr_estimate_opts *o, double weights, double dev_w, double emb,
		       double expert_sys, slots *s)
{
	uint32_t n_rec = cr_model_count_layers(m, CR_LAYER_RECURRENT);

	s->out_w = output_layer_bytes(m, weights, emb);
	if (s->out_w > dev_w - expert_sys)
		s->out_w = dev_w - expert_sys;
	s->lw = (dev_w - expert_sys - s->out_w) / m->n_layers;
	s->state_layer = n_rec ? (double)cr_estimate_state_bytes(m, o) / n_rec : 0;
	s->cf = cells_full(o);
	s->cs = m->window ? cells_swa(m, o) : 0;
}

/* Slot il's weights and KV; *full and *swa are set when it gives its
 * device a full-attention or a sliding-window cache (and so that mask). */
static void slot_use(const cr_model *m, const cr_estimate_opts *o, const slots *s, uint32_t il, uint64_t *w,
		     uint64_t *kv, bool *full, bool *swa)
{
	uint64_t cell;

	*kv = 0;
	if (il == m->n_layers) {
		*w = (uint64_t)s->out_w;
		if (m->mtp_kv_layers) {
			*kv = mtp_cell_bytes(m, o) * s->cf;
			*full = true;
		}
		return;
	}
	*w = (uint64_t)s->lw;
	if (m->layer_kind[il] == CR_LAYER_RECURRENT) {
		*kv = (uint64_t)s->state_layer;
		return;
	}
	cell = layer_cell_bytes(m, il, o);
	*kv = cell * (m->layer_kind[il] == CR_LAYER_SLIDING ? s->cs : s->cf);
	if (cell && m->layer_kind[il] == CR_LAYER_SLIDING)
		*swa = true;
	else if (cell)
		*full = true;
}

/* Pipeline parallelism (llama-context.cpp, llama_context::llama_context): on
 * with several devices, every layer offloaded, layer split, KV offloaded and
 * no tensor override (--cpu-moe and --n-cpu-moe are). */
static bool pipeline_on(const cr_model *m, const cr_estimate_opts *o, const tiers *t, double f, double expert_sys)
{
	return f == 0 && expert_sys == 0 && (o->gpu_layers < 0 || (uint32_t)o->gpu_layers > m->n_layers) &&
	       t->op_offload && !t->maps_file;
}

/* The extra copies of a device's split inputs that pipeline parallelism
 * keeps (split_gpus below): its masks and the hidden state handed over. */
static double pipeline_copies(const cr_model *m, const cr_estimate_opts *o, bool full, bool swa)
{
	double ub = ubatch(o), mask_bpe = o->flash_attn ? 2.0 : 4.0;

	return (CR_SCHED_MAX_COPIES - 1) * ((full ? cells_full_stream(o) * ub * mask_bpe : 0) +
					    (swa ? cells_swa_stream(m, o) * ub * mask_bpe : 0) + ub * 4.0 * m->hidden);
}

/*
 * llama.cpp's fit (common/fit.cpp, common_params_fit_impl; on by default in
 * llama-server and llama-cli: common/common.h fit_params = true). It runs
 * only while n_gpu_layers, the tensor split and the tensor overrides are the
 * defaults (it aborts on each, and --cpu-moe / --n-cpu-moe are overrides),
 * with the layer split (row and tensor split abort), and on several devices
 * it acts when any device would be left with less than its margin
 * (fit_params_target, 1 GiB each by default). Its step 3 then fills the
 * devices back to front: the last device first takes as many of the n_layer
 * + 1 slots as fit its target, free - margin, counting from the output layer
 * down (a false-position search on the measured memory, so the largest
 * whole-layer count that fits); the device before it takes as many of the
 * rest, and so on; what no device takes stays in RAM. It writes those counts
 * as the tensor split and their sum as n_gpu_layers (set_ngl_tensor_split_tbo),
 * so load_tensors gives each device a contiguous block and the output layer
 * to the last device that holds slots, also when layers stay in RAM. A
 * device's memory is what llama.cpp measures there: its slots, its compute
 * buffer (the full peak with the output layer, the body peak without) and,
 * on the first device, op offload's weight copy when layers stay in RAM and
 * a vision projector; offered every slot left, the first device runs with
 * pipeline parallelism, whose copies count. A MoE model's fit differs (it
 * first moves every expert tensor to RAM and then fills full layers front to
 * back): clefrun fills it as a dense one (docs/methodology.md).
 * @p partial_ok: slots may stay in RAM (the rig has a system-RAM tier).
 * Returns true and sets p->fill* and p->f when the fit places some slot.
 */
static bool fit_runs(const cr_estimate_opts *o, const tiers *t)
{
	return t->rig && t->n_acc >= 2 && t->n_acc <= CR_MAX_GPUS && o->split == CR_SPLIT_LAYER && o->gpu_layers < 0 &&
	       !o->n_tensor_split && !o->cpu_moe && !o->n_cpu_moe;
}

static bool fit_gpus(const cr_model *m, const cr_estimate_opts *o, const tiers *t, const slots *s, double compute,
		     double body, const double offload[2], bool partial_ok, plan *p)
{
	const cr_rig *r = t->rig;
	double target[CR_MAX_GPUS] = { 0 };
	uint32_t fill[CR_MAX_GPUS] = { 0 }, slot = m->n_layers + 1, total = 0;
	unsigned n = 0;
	double sys = 0;

	for (unsigned g = 0; g < r->n_devices; g++) {
		const cr_device *d = &r->devices[g];

		if (d->kind == CR_MEM_SYSTEM)
			continue;
		for (uint32_t c = 0; c < d->count && n < CR_MAX_GPUS; c++, n++)
			target[n] = device_usable(d) - device_overhead(d) - (double)o->headroom_bytes;
	}
	for (unsigned id = n; id-- > 0 && slot > 0;) {
		double used = 0;
		bool out = false, full = false, swa = false;

		if (id == 0) {
			/* Offered every slot left: nothing in RAM, so no op offload
			 * copy, and pipeline parallelism on. */
			double all = p->mm_dev;
			bool fa = false, sa = false;

			for (uint32_t il = 0; il < slot; il++) {
				uint64_t w, kv;

				slot_use(m, o, s, il, &w, &kv, &fa, &sa);
				all += (double)(w + kv);
			}
			all += slot == m->n_layers + 1 ? compute : body;
			if (pipeline_on(m, o, t, 0, 0))
				all += pipeline_copies(m, o, fa, sa);
			if (all <= target[0]) {
				fill[0] = slot;
				slot = 0;
				break;
			}
			used = p->mm_dev;
		}
		while (slot > 0) {
			uint32_t il = slot - 1;
			uint64_t w, kv;
			bool fa = full, sa = swa, with_out = out || il == m->n_layers;
			double copy = id == 0 ? offload[with_out] : 0;

			slot_use(m, o, s, il, &w, &kv, &fa, &sa);
			if (used + (double)(w + kv) + (with_out ? compute : body) + copy > target[id])
				break;
			used += (double)(w + kv);
			full = fa;
			swa = sa;
			out = with_out;
			fill[id]++;
			slot--;
		}
	}
	for (unsigned i = 0; i < n; i++)
		total += fill[i];
	if (!total || (slot > 0 && !partial_ok))
		return false;
	for (uint32_t il = 0; il < slot; il++) {
		uint64_t w, kv;
		bool fa = false, sa = false;

		slot_use(m, o, s, il, &w, &kv, &fa, &sa);
		sys += (double)(w + kv);
	}
	memcpy(p->fill, fill, sizeof(p->fill));
	p->fill_slots = total;
	p->fill_offload = slot > 0 ? offload[total == fill[0]] : 0;
	p->fill_sys = sys;
	p->filled = true;
	/* The output slot is the first one placed: the others are layers. */
	p->f = 1.0 - (double)(total - 1) / m->n_layers;
	return true;
}

static void split_gpus(const cr_model *m, const cr_estimate_opts *o, const slots *s, const tiers *t,
		       double compute, double body, plan *p)
{
	const cr_rig *r = t->rig;
	float splits[CR_MAX_GPUS];
	double sum = 0;
	uint32_t n_layer = m->n_layers, ngl, start, act;
	unsigned n = 0;
	bool full_on[CR_MAX_GPUS] = { false }, swa_on[CR_MAX_GPUS] = { false };

	p->n_gpus = 0;
	if (!r || t->n_acc < 2 || t->n_acc > CR_MAX_GPUS || o->split != CR_SPLIT_LAYER)
		return;
	memset(p->gpus, 0, sizeof(p->gpus));
	for (unsigned g = 0; g < r->n_devices; g++) {
		const cr_device *d = &r->devices[g];

		if (d->kind == CR_MEM_SYSTEM)
			continue;
		for (uint32_t c = 0; c < d->count && n < CR_MAX_GPUS; c++, n++) {
			double free_b = device_usable(d) - device_overhead(d);
			double share = p->filled ? (double)p->fill[n]
				     : o->n_tensor_split ? (n < o->n_tensor_split ? o->tensor_split[n] : 0)
							 : (free_b > 0 ? free_b : 0);

			p->gpus[n].group = g;
			p->gpus[n].usable_bytes = (uint64_t)device_usable(d);
			p->gpus[n].reserve_bytes = (uint64_t)device_overhead(d);
			splits[n] = (float)share;
			sum += share;
		}
	}
	if (!(sum > 0))
		return; /* validate() refuses an all-zero --tensor-split */
	{
		float acc = 0.0f;

		for (unsigned i = 0; i < n; i++) {
			acc += splits[i];
			splits[i] = acc;
		}
		for (unsigned i = 0; i < n; i++)
			p->gpus[i].split = (double)(splits[i] - (i ? splits[i - 1] : 0.0f)) / (double)acc;
		for (unsigned i = 0; i < n; i++)
			splits[i] /= acc;
	}
	/* Layers on the GPUs: all of them and the output layer (i_gpu_start 0,
	 * act_gpu_layers n_layer + 1); the fit's slots (fit_gpus: n_gpu_layers
	 * their sum, so i_gpu_start = n_layer + 1 - it, the output layer among
	 * them); or, with layers in RAM otherwise, the last g = (1 - f) x n_layer
	 * and the output layer when it is on the GPUs (gpu_placement: -ngl g + 1,
	 * i_gpu_start n_layer - g, act_gpu_layers g + 1), else not (clefrun's
	 * own spill, or the rule before PR 18148: i_gpu_start n_layer - g,
	 * act_gpu_layers g). */
	if (p->filled) {
		ngl = p->fill_slots;
		start = n_layer + 1 - ngl;
	} else if (p->f > 0 || !p->out_acc) {
		uint32_t g = (uint32_t)((1.0 - p->f) * n_layer + 0.5);

		if (g > n_layer)
			g = n_layer;
		start = n_layer - g;
		ngl = g + (p->out_acc ? 1 : 0);
	} else {
		ngl = n_layer + 1;
		start = 0;
	}
	act = ngl;
	for (uint32_t il = start; act && il <= n_layer && (il - start) < act; il++) {
		float x = (float)(il - start) / (float)act;
		unsigned dv = 0;
		uint64_t w, kv;
		cr_gpu_use *u;

		while (dv + 1 < n && !(splits[dv] > x))
			dv++;
		u = &p->gpus[dv];
		slot_use(m, o, s, il, &w, &kv, &full_on[dv], &swa_on[dv]);
		u->weights_bytes += w;
		u->kv_bytes += kv;
		if (il == n_layer)
			u->output_layer = true;
		else
			u->layers++;
	}
	p->pipeline = pipeline_on(m, o, t, p->f, p->expert_sys);
	for (unsigned i = 0; i < n; i++) {
		cr_gpu_use *u = &p->gpus[i];
		double c = 0;

		if (u->layers || u->output_layer) {
			c = u->output_layer ? compute : body;
			if (p->pipeline)
				c += pipeline_copies(m, o, full_on[i], swa_on[i]);
		} else if (i == 0 && p->offload > 0) {
			/* No layer on the first GPU (-ngl 0): op offload still runs the
			 * host-resident weights' matmuls there, as the scheduler gives
			 * an offloaded op to the highest-priority backend that takes it
			 * (ggml-backend.cpp ggml_backend_sched_backend_id_from_cur, the
			 * "1.off" loop over backends 0 .. CPU - 1), and nothing else
			 * shares the buffer: it is op offload's whole peak, compute +
			 * offload (op_offload_extra), as on one GPU. */
			c = compute;
		}
		u->compute_bytes = (uint64_t)c;
		if (i == 0)
			u->other_bytes = (uint64_t)(p->offload + p->mm_dev + p->mapped);
		u->total_bytes = u->weights_bytes + u->kv_bytes + u->compute_bytes + u->other_bytes + u->reserve_bytes;
		u->margin_bytes = (int64_t)u->usable_bytes - (int64_t)u->total_bytes;
	}
	p->n_gpus = n;
}

/*
 * -ngl N (opts.gpu_layers) as llama.cpp's load_tensors places it
 * (src/llama-model.cpp, llama_model::load_tensors):
 *
 *     const int i_gpu_start = std::max(n_layer_all + 1 - n_gpu_layers, 0);
 *     const int act_gpu_layers = devices.empty() ? 0 : std::min(n_gpu_layers, n_layer_all + 1);
 *
 * slot il goes to a GPU when i_gpu_start <= il < i_gpu_start + act_gpu_layers,
 * and the output layer (output norm and weight, or the tied token table's
 * copy) is slot n_layer (dev_output = get_layer_buft_list(n_layer)). So N
 * counts the output layer first: N = 0 puts nothing on the GPUs, 1 <= N <=
 * n_layer the output layer and the last N - 1 repeating layers, N >= n_layer
 * + 1 everything. PR 18148 (ggml-org/llama.cpp, "llama: offload output layer
 * to GPU first", December 2025) made it so; before it i_gpu_start was
 * max(n_layer - N, 0) with the same act_gpu_layers (src/llama-model.cpp at
 * commit 00342301d01add50835550e8a916f12097d94517), so N counted repeating
 * layers and the output layer went to a GPU only with N > n_layer, the rule
 * opts.gpu_layers_repeating keeps for older builds' logs.
 * Sets the repeating layers on the GPUs and whether the output layer is.
 */
static void gpu_placement(const cr_model *m, const cr_estimate_opts *o, uint32_t *repeating, bool *output)
{
	uint32_t n = (uint32_t)o->gpu_layers, nl = m->n_layers;

	if (o->gpu_layers_repeating) {
		*repeating = n < nl ? n : nl;
		*output = n > nl;
		return;
	}
	*repeating = n == 0 ? 0 : n - 1 < nl ? n - 1 : nl;
	*output = n >= 1;
}

static void make_plan(const cr_model *m, const profile *pf, const cr_estimate_opts *o,
		      double weights, const tiers *t, plan *p)
{
	double emb = embedding_bytes(m, weights);
	double kv = (double)kv_bytes_at(m, pf, o, UINT64_MAX);
	double state = (double)pf->state_bytes;
	double ffn_peak, body_peak;
	double compute = compute_buffer(m, pf, o, &ffn_peak, &body_peak);
	double offload = op_offload_extra(m, o, weights, t, compute, ffn_peak, false);
	double offload_layers = op_offload_extra(m, o, weights, t, compute, ffn_peak, true);
	/* With the fit's layers in RAM the output layer is on the last GPU
	 * (fit_gpus): the first GPU's copy is a layer's matmul weight, beside the
	 * body peak when that GPU has no output layer, else the full peak. */
	const double fit_offload[2] = { op_offload_extra(m, o, weights, t, body_peak, ffn_peak, false), offload };
	double output = output_bytes(m, o);
	double host_w, dev_w, host_extra, margin_acc, sys_bytes, free_acc;
	slots sl;

	/* A vision projector (vision.h): its part on the first GPU, and its
	 * part in system RAM (clip's CPU backend; on a rig without GPUs, all
	 * of it). Fixed bytes: they move no layer rule, only the room left. */
	double mm_dev = (double)o->mmproj_device_bytes, mm_host = (double)o->mmproj_host_bytes;

	memset(p, 0, sizeof(*p));
	p->compute = compute;
	p->mem.kv_bytes = (uint64_t)kv;
	p->mem.state_bytes = (uint64_t)state;
	p->mem.output_bytes = (uint64_t)output;
	p->mem.mmproj_bytes = o->mmproj_device_bytes + o->mmproj_host_bytes;

	if (!t->n_acc) {
		/* CPU only: everything in system RAM, one compute buffer. */
		double need = weights + kv + state + compute + output + mm_dev + mm_host;

		p->mem.weights_bytes = (uint64_t)weights;
		p->mem.compute_bytes = (uint64_t)compute;
		p->mem.total_bytes = p->mem.host_bytes = (uint64_t)need;
		p->mem.available_bytes = (uint64_t)t->sys_cap;
		p->f = 1.0;
		p->layer_bytes = weights + kv + state;
		p->fits = need <= t->sys_cap;
		p->free_bytes = t->sys_cap - need;
		p->tight = p->free_bytes < (double)o->headroom_bytes;
		return;
	}

	/* Tied embeddings: llama.cpp loads the matrix twice, once as the
	 * host-side input table and once as the offloaded output layer. An
	 * embedding model ships no output head, and llama.cpp takes the token
	 * table for it alike (src/llama-model.cpp: output falls back to
	 * token_embd, TENSOR_DUPLICATED). */
	host_w = emb;
	dev_w = weights - emb + (m->tied_embeddings || m->task == CR_TASK_EMBEDDING ? emb : 0);
	if (o->cpu_moe || o->n_cpu_moe) {
		/* The output layer is not an expert: a model whose active_params put
		 * every other byte in the experts (expert_fraction at its cap of 1)
		 * still keeps it with the layers. */
		double experts_max = dev_w - output_layer_bytes(m, weights, emb);

		p->expert_sys = expert_fraction(m) * (weights - emb) * cpu_moe_share(m, o);
		if (p->expert_sys > experts_max)
			p->expert_sys = experts_max > 0 ? experts_max : 0;
	}
	host_extra = host_w + output + mm_host;
	p->unified_host = t->acc_unified && !t->has_sys ? host_extra : 0;
	p->mm_dev = mm_dev;
	p->layer_bytes = dev_w - p->expert_sys + kv + state;
	margin_acc = (double)o->headroom_bytes * t->n_acc;
	slots_init(m, o, weights, dev_w, emb, p->expert_sys, &sl);

	p->out_w = sl.out_w;
	p->out_acc = true; /* every slot, until a placement says otherwise */
	if (o->gpu_layers >= 0) {
		uint32_t on;

		gpu_placement(m, o, &on, &p->out_acc);
		p->f = 1.0 - (double)on / m->n_layers;
	} else if (p->layer_bytes + compute * t->n_acc + p->unified_host + mm_dev + (p->expert_sys > 0 ? offload : 0) +
				   (p->expert_sys > 0 ? 0 : t->mapped_extra) >
			   t->acc_cap &&
		   t->has_sys) {
		/* Partial offload: fill the accelerators up to their margin (as
		 * llama.cpp's auto-fit does); the remaining layers go to RAM, and
		 * the GPU then holds a copy of one of their weights (above). */
		double room = t->acc_cap - margin_acc - compute * t->n_acc - p->unified_host - mm_dev - offload_layers;
		double spill = p->layer_bytes - (room > 0 ? room : 0);

		p->f = spill > p->layer_bytes ? 1.0 : spill / p->layer_bytes;
		if (fit_runs(o, t))
			fit_gpus(m, o, t, &sl, compute, body_peak, fit_offload, true, p);
	} else if (fit_runs(o, t)) {
		/* The pooled memory holds every layer, but the proportional split
		 * may leave a device short: llama.cpp's fit then moves layers
		 * (fit_gpus). It acts below the margin already; clefrun takes its
		 * placement when a device is over its memory, or when the fit holds
		 * every layer on the GPUs, and otherwise keeps the proportional split
		 * and calls the row tight, as on one GPU (where the fit would move
		 * layers to RAM to keep the margin: docs/methodology.md). */
		double least = 0;

		p->mapped = t->mapped_extra;
		split_gpus(m, o, &sl, t, compute, body_peak, p);
		for (unsigned i = 0; i < p->n_gpus; i++)
			if (i == 0 || (double)p->gpus[i].margin_bytes < least)
				least = (double)p->gpus[i].margin_bytes;
		p->mapped = 0;
		if (p->n_gpus >= 2 && least < (double)o->headroom_bytes) {
			plan q = *p;

			if (fit_gpus(m, o, t, &sl, compute, body_peak, fit_offload, t->has_sys, &q) &&
			    (least < 0 || q.f == 0))
				*p = q;
		}
	}
	/* Placed by clefrun: every slot, the fit's (the output layer's among
	 * them), or a spill of layers that leaves the output layer in RAM. */
	if (o->gpu_layers < 0)
		p->out_acc = p->f == 0 || p->filled;
	/* Op offload's copy: with the output layer in RAM its weight (beside the
	 * logits); with it on a GPU a repeating layer's matmul weight. */
	p->offload = p->filled ? p->fill_offload
		   : !p->out_acc ? offload_layers
		   : p->f > 0 || p->expert_sys > 0 ? offload : 0;
	/* layer_bytes spreads the output layer's weight over the layers. With
	 * the layers' share f in RAM and the output layer in RAM too (clefrun's
	 * own spill, or -ngl N <= n_layer before PR 18148: gpu_placement) its
	 * weight leaves the accelerators (op offload copies it back into the
	 * compute buffer, above); with the output layer on a GPU (-ngl N >= 1)
	 * its whole weight stays there, f of it moved back from RAM. What leaves
	 * is never more than the output weight the layers carry (out_w: a
	 * hostile vocabulary x width can claim more than the file holds). */
	if ((p->f > 0 || !p->out_acc) && t->has_sys && !p->filled)
		p->out_moved = p->out_acc ? -p->f * p->out_w
			     : (1.0 - p->f) * fmin(output_weight_bytes(m, weights), p->out_w);
	/* Every layer on a Metal GPU: the mapping spans the whole file (tiers_for_weights);
	 * with layers or experts in RAM the range depends on which, and is not modelled. */
	if (p->f == 0 && p->expert_sys == 0)
		p->mapped = t->mapped_extra;
	p->acc_bytes = (1.0 - p->f) * p->layer_bytes - p->out_moved + p->mapped + compute * t->n_acc +
		       p->offload + p->unified_host + mm_dev;
	/* The fit's slots in RAM are whole layers (fit_gpus): their bytes. */
	sys_bytes = host_extra + (p->filled ? p->fill_sys : p->f * p->layer_bytes + p->out_moved) + p->expert_sys;
	free_acc = t->acc_cap - p->acc_bytes;
	p->host_compute = host_compute_buffer(m, pf, o);
	split_gpus(m, o, &sl, t, compute, body_peak, p);
	if (p->n_gpus >= 2) {
		/* Several accelerators: the rig fits only if every one does, and
		 * the one with the least room left is the limit (split_gpus). */
		double dev_weights = 0, dev_compute = 0;

		p->acc_bytes = p->unified_host;
		for (unsigned i = 0; i < p->n_gpus; i++) {
			const cr_gpu_use *u = &p->gpus[i];
			double left = (double)u->margin_bytes;

			p->acc_bytes += (double)(u->total_bytes - u->reserve_bytes);
			dev_weights += (double)u->weights_bytes;
			dev_compute += (double)u->compute_bytes;
			if (i == 0 || left < free_acc) {
				free_acc = left;
				p->limiting_gpu = i;
			}
		}
		/* The pooled margin below is the headroom on each device. */
		margin_acc = (double)o->headroom_bytes;
		p->mem.device_weights_bytes = bytes_u64(dev_weights + p->mapped);
		p->mem.compute_bytes = bytes_u64(dev_compute + p->offload);
	}
	p->fits = free_acc >= 0;
	p->tight = free_acc < margin_acc;
	p->free_bytes = free_acc;
	if (t->has_sys && (p->f > 0 || p->expert_sys > 0 || !p->out_acc)) {
		double free_sys = t->sys_cap - sys_bytes;

		p->fits = p->fits && free_sys >= 0;
		p->tight = free_acc < margin_acc - 1.0 || free_sys < (double)o->headroom_bytes;
		if (free_sys < p->free_bytes)
			p->free_bytes = free_sys;
	} else if (!t->has_sys && (p->f > 0 || p->expert_sys > 0)) {
		p->fits = false; /* nowhere to put the rest (validate() reports it) */
	}

	p->mem.weights_bytes = bytes_u64(host_w + dev_w + p->mapped);
	if (p->n_gpus < 2) {
		p->mem.device_weights_bytes = bytes_u64((1.0 - p->f) * (dev_w - p->expert_sys) - p->out_moved + p->mapped);
		p->mem.compute_bytes = bytes_u64(compute * t->n_acc + p->offload);
	}
	p->mem.overhead_bytes = bytes_u64(t->acc_overhead);
	p->mem.device_bytes = bytes_u64(p->acc_bytes + t->acc_overhead);
	p->mem.host_bytes = bytes_u64(sys_bytes);
	p->mem.available_bytes = bytes_u64(t->acc_usable);
	p->mem.total_bytes = p->mem.device_bytes;
	if (t->has_sys) {
		/* The rig's RAM is one of its tiers: count and offer it. */
		p->mem.total_bytes += p->mem.host_bytes;
		p->mem.available_bytes += bytes_u64(t->sys_cap);
	}
	/* Discrete GPUs alone: host RAM is not part of the rig; host_bytes is
	 * reported apart, not in the total compared with VRAM. Unified memory:
	 * the host buffers are already inside device_bytes. */
}

/* ---- speed (docs/accuracy.md; constants in speed_constants.c) ------------ */

static unsigned bk(cr_backend b)
{
	return (unsigned)b < CR_BACKEND_COUNT ? (unsigned)b : CR_BACKEND_CPU;
}

/* The calibration's classes: a CPU-backend device is the DDR class and no
 * vendor whatever its memory (the rows are CPU cores reading RAM). */
static cr_mem_type speed_mem(const cr_device *d)
{
	return d->backend == CR_BACKEND_CPU ? CR_MEMTYPE_DDR : cr_device_mem_type(d);
}

static cr_vendor speed_vendor(const cr_device *d)
{
	return d->backend == CR_BACKEND_CPU ? CR_VENDOR_OTHER : cr_device_vendor(d);
}

/* The first accelerator group, else the first device: it sets the per-layer
 * time and the calibration cell a row is judged against. */
static const cr_device *primary(const cr_rig *r)
{
	for (unsigned g = 0; g < r->n_devices; g++)
		if (r->devices[g].kind != CR_MEM_SYSTEM)
			return &r->devices[g];
	return &r->devices[0];
}

static const cr_device *first_system(const cr_rig *r)
{
	for (unsigned g = 0; g < r->n_devices; g++)
		if (r->devices[g].kind == CR_MEM_SYSTEM)
			return &r->devices[g];
	return NULL;
}

/* FP32 TFLOPS of the CPU that does the CPU's share of decode (every socket
 * of the group); a CPU without a figure gets the calibration CPUs' median
 * (speed_confidence says so). */
static double cpu_tflops(const cr_device *sys)
{
	return sys && sys->fp16_tflops > 0 ? sys->fp16_tflops * sys->count : cr_speed.cpu_default_tflops;
}

/* Vulkan's factor for the device's GPU vendor (1 for other backends and
 * for a vendor the calibration has no factor for). */
static double vulkan_vendor(const cr_device *d, const double *factor)
{
	double f = d->backend == CR_BACKEND_VULKAN ? factor[speed_vendor(d)] : 0;

	return f > 0 ? f : 1;
}

/* Achievable share of the device's peak bandwidth. */
static double bw_eff(const cr_device *d)
{
	cr_mem_type mt = speed_mem(d);
	double e = cr_speed.decode_eff[mt] * cr_speed.backend_eff[bk(d->backend)] *
		   cr_speed.cell_eff[bk(d->backend)][mt] * vulkan_vendor(d, cr_speed.vulkan_vendor_eff);

	return e < 1 ? e : 1;
}

static double decode_rate(const cr_device *d)
{
	return bw_eff(d) * d->bandwidth_gbs * 1e9;
}

/* The rate at which a GPU gets through the per-layer work that is partly
 * bandwidth-bound (small tensors, activations between kernels, each
 * kernel's ramp and tail): decode's rate / sqrt(BW / 1000), so that time
 * falls as 1 / sqrt(BW) (docs/accuracy.md "Speed: the model"). */
static double layer_rate(const cr_device *d)
{
	return decode_rate(d) / sqrt(d->bandwidth_gbs / 1000.0);
}

/* The model's side of prefill's GEMM efficiency: prefill_width_gain per
 * doubling of the hidden size over CR_PREFILL_REF_HIDDEN. Wider matrices
 * keep more of a GPU's units busy (fewer partial tiles and waves), and the
 * kernels around the GEMMs (norms, activations, copies) do work that grows
 * as the hidden size, not as its square (docs/accuracy.md "Speed: the
 * model"). 1 when the hidden size is unknown; a hidden size outside the
 * calibration rows' range (Qwen3-0.6B's 1024 to Llama-3-70B's 8192,
 * bench/speed-calibration HIDDEN_RANGE) takes the nearest end of it. */
#define CR_PREFILL_REF_HIDDEN 4096.0
#define CR_PREFILL_MIN_HIDDEN 1024.0
#define CR_PREFILL_MAX_HIDDEN 8192.0

static double gemm_width(const cr_model *m)
{
	double h = m->hidden;

	if (!(h > 0))
		return 1.0;
	h = h < CR_PREFILL_MIN_HIDDEN ? CR_PREFILL_MIN_HIDDEN : h > CR_PREFILL_MAX_HIDDEN ? CR_PREFILL_MAX_HIDDEN : h;
	return pow(cr_speed.prefill_width_gain, log2(h / CR_PREFILL_REF_HIDDEN));
}

/* Share of the dense FP16 peak the weight GEMMs reach; `f16`: F16 / BF16
 * weights (the GEMM path rather than the quantized kernels); `width`:
 * gemm_width of the model. */
static double prefill_eff(const cr_device *d, bool f16, double width)
{
	double e = cr_speed.prefill_eff[bk(d->backend)] * cr_speed.prefill_cell[bk(d->backend)][speed_mem(d)] *
		   vulkan_vendor(d, cr_speed.vulkan_vendor_prefill) * (f16 ? cr_speed.prefill_f16 : 1) * width;

	return e < 1 ? e : 1;
}

static double prefill_rate(const cr_device *d, double width)
{
	return prefill_eff(d, false, width) * d->fp16_tflops * 1e12;
}

static double prefill_rate_f16(const cr_device *d, double width)
{
	return prefill_eff(d, true, width) * d->fp16_tflops * 1e12;
}

/* The quantized weight GEMMs (MMQ) run on int8 dot products: on a GPU whose
 * int8 rate is not 2 x its FP16 figure (Pascal's dp4a at 4 x FP32, with the
 * FP32 rate as fp16_tflops) they go that much faster than prefill_eff's
 * calibration, made on tensor-core GPUs, says (ggml-cuda/mmq.cu
 * ggml_cuda_should_use_mmq: dp4a MMQ where there is no FP16 MMA). */
static double mmq_rate(const cr_device *d, double width)
{
	double k = d->int8_tops > 0 && d->fp16_tflops > 0 ? d->int8_tops / (2.0 * d->fp16_tflops) : 1.0;

	return prefill_rate(d, width) * k;
}

/* llama.cpp's CUDA kernel paths on Volta (compute capability 7.0 to 7.2:
 * FP16 tensor-core MMA, no int8 MMA). Its quantized matmuls (MMQ) run there
 * only below MMQ_DP4A_MAX_BATCH_SIZE = 64 tokens (ggml-cuda/mmq.cu
 * ggml_cuda_should_use_mmq); a larger micro-batch dequantises dense weights
 * to F16 for a cuBLAS GEMM (ggml-cuda.cu ggml_cuda_mul_mat), and sends the
 * routed experts, quantized ones not being MMF's (ggml-cuda/mmf.cu: F16
 * from Volta, BF16 from Ampere), down ggml_cuda_mul_mat_id's generic path:
 * the expert ids copied to the host, a host loop over experts x tokens x
 * experts used that sorts the tokens, and one GEMM per expert that has
 * tokens (docs/methodology.md "Prefill"). */
#define CR_MMQ_MAX_BATCH 64.0
#define CR_MOE_MATMULS 3.0 /* gate, up, down: one MUL_MAT_ID each (llama-graph.cpp build_moe_ffn) */

static bool volta_gemm_path(const cr_device *d, double ub)
{
	return d->backend == CR_BACKEND_CUDA && d->compute_capability >= 7.0 && d->compute_capability < 7.5 &&
	       ub >= CR_MMQ_MAX_BATCH;
}

/* Seconds per prompt token that Volta's generic MUL_MAT_ID path adds on the
 * accelerators: per MoE layer and micro-batch, for each of its MUL_MAT_IDs,
 * a GEMM's kernels per expert with tokens and the host loop's E x ub x k
 * steps. A layer split shares it as acc_time shares work; under a tensor
 * split every device runs the whole path on its slice. Quantized experts
 * only (`f16`: F16 / BF16 weights, MMF up to 128 or 512 tokens and the
 * generic path above, not modelled). Dense weights keep the MMQ rate: their
 * dequantisation to F16 for cuBLAS, costed at the F16 path's fitted
 * efficiency, scored worse on the measured dense V100 rows
 * (docs/accuracy.md "Speed: results"). */
static double volta_moe_s(const cr_model *m, const cr_rig *r, const tiers *t, const cr_estimate_opts *o, double ub,
			  bool f16)
{
	const cr_speed_model *k = &cr_speed;
	double total = 0, moe, e, kk, hit;

	if (!m->experts_total || !m->experts_used || f16)
		return 0;
	e = m->experts_total;
	kk = m->experts_used;
	hit = e * (1.0 - pow(1.0 - kk / e, ub)); /* experts with at least one token */
	moe = CR_MOE_MATMULS * m->n_layers * (hit * k->volta_expert_s + e * ub * kk * k->volta_host_step_s) / ub;
	for (unsigned g = 0; g < r->n_devices; g++) {
		const cr_device *d = &r->devices[g];

		if (d->kind == CR_MEM_SYSTEM || !volta_gemm_path(d, ub))
			continue;
		if (o->split == CR_SPLIT_TENSOR)
			return moe;
		total += moe * d->count * device_usable(d) / t->acc_usable;
	}
	return total;
}

/* Attention FLOPs run in the backend's own flash-attention kernels, at
 * attention_cost[backend] times the cost per FLOP of the weight GEMMs of a
 * quantized model 4096 wide: the width gain and the F16-weight factor
 * describe the weight matrices, not attention over an F16 cache
 * (docs/accuracy.md "Speed: the model"). */
static double attention_rate(const cr_device *d)
{
	return prefill_rate(d, 1.0) / cr_speed.attention_cost[bk(d->backend)];
}

/* Per-token time of tensor parallelism's all-reduces: two per layer
 * (after attention and after the FFN), each moving 2(n−1)/n × hidden × 2 B
 * per device over the link (ring all-reduce). */
static double tp_comm_s(const cr_model *m, const cr_rig *r, unsigned n)
{
	double link = (r->interconnect_gbs > 0 ? r->interconnect_gbs : CR_TP_DEFAULT_LINK_GBS) * 1e9;
	double msg = 2.0 * (n - 1) / n * m->hidden * 2.0;

	return n > 1 ? 2.0 * m->n_layers * (CR_TP_ALLREDUCE_LATENCY_S + msg / link) : 0;
}

/* The accelerators' time for work that each device does its share of:
 * `dev_time(d, ctx)` is the whole work's seconds on device d alone; layer
 * split runs the devices in turn (sum of shares), tensor split at once
 * (slowest share). */
static double acc_shares(const cr_rig *r, const tiers *t, const cr_estimate_opts *o,
			 double (*dev_time)(const cr_device *, const void *), const void *ctx)
{
	double total = 0, slowest = 0;

	for (unsigned g = 0; g < r->n_devices; g++) {
		const cr_device *d = &r->devices[g];
		double share, tm;

		if (d->kind == CR_MEM_SYSTEM)
			continue;
		share = d->count * device_usable(d) / t->acc_usable;
		tm = share * dev_time(d, ctx);
		total += tm;
		if (tm / d->count > slowest)
			slowest = tm / d->count;
	}
	return o->split == CR_SPLIT_TENSOR ? slowest : total;
}

typedef struct rate_work {
	double work;
	double (*rate)(const cr_device *);
} rate_work;

static double rate_work_time(const cr_device *d, const void *ctx)
{
	const rate_work *w = ctx;

	return w->work / w->rate(d);
}

/* Time for `work` bytes read (or FLOPs done) on the accelerators; `rate`
 * returns bytes or FLOPs per second of one device. */
static double acc_time(const cr_rig *r, const tiers *t, const cr_estimate_opts *o, double work,
		       double (*rate)(const cr_device *))
{
	rate_work w = { work, rate };

	return acc_shares(r, t, o, rate_work_time, &w);
}

/* Routed-expert parameters a token uses (0 for a dense model). */
static double active_expert_params(const cr_model *m)
{
	if (!m->experts_total || !m->experts_used)
		return 0;
	return expert_fraction(m) * (double)m->params * m->experts_used / m->experts_total;
}

/* Attention FLOPs per token against `ctx` cached tokens on every
 * attention layer (sliding layers: at most the window): QK^T and AV,
 * 2 x heads x (head_dim_k + head_dim_v) x ctx per layer. MLA runs
 * absorbed in llama.cpp for every batch size (src/models/deepseek2.cpp:
 * wk_b folded into q, K = the kv_lora_rank latent + the RoPE key, V = the
 * latent, wv_b applied after attention): each head's dot products are
 * kv_lora_rank + rope_dim wide for K and kv_lora_rank for V (576 / 512 on
 * DeepSeek-V2/V3 and GLM-4.7-Flash), not the decompressed 192 / 128. */
static double attention_flops(const cr_model *m, double ctx)
{
	double f = 0;
	double width = m->mla ? 2.0 * m->mla_kv_lora_rank + m->mla_rope_dim
			      : (double)m->head_dim_k + m->head_dim_v;

	for (uint32_t i = 0; i < m->n_layers && i < CR_MAX_LAYERS; i++) {
		double c;

		if (m->layer_kind[i] == CR_LAYER_RECURRENT || !m->kv_heads[i])
			continue;
		c = m->layer_kind[i] == CR_LAYER_SLIDING && m->window < ctx ? m->window : ctx;
		f += 2.0 * m->n_heads * width * c;
	}
	return f;
}

/* Rate of decode's attention dot products on a GPU: the flash-attention
 * decode kernels (one query row per KV head group: vector units, not the
 * tensor cores) at 1 / decode_attention_cost of the FP16 figure; 0 when the
 * device has none. */
static double decode_attention_rate(const cr_device *d)
{
	return d->fp16_tflops > 0 ? d->fp16_tflops * 1e12 / cr_speed.decode_attention_cost : 0;
}

/* Seconds per token of decode's attention arithmetic against `depth`
 * cached tokens (QK^T and AV, attention_flops) on the accelerators, for
 * their share of the layers. Left out where a GPU lacks an FP16 figure
 * (the figure is then the memory-bound one), and on the CPU: the
 * calibration has no CPU row at depth, so a cost fitted on GPUs is not
 * carried over (docs/accuracy.md "Speed: limits"). */
static double decode_attention_s(const cr_model *m, const cr_rig *r, const tiers *t, const cr_estimate_opts *o,
				 const plan *p, uint32_t depth)
{
	if (!t->n_acc || !(p->f < 1.0))
		return 0;
	for (unsigned g = 0; g < r->n_devices; g++)
		if (r->devices[g].kind != CR_MEM_SYSTEM && !(decode_attention_rate(&r->devices[g]) > 0))
			return 0;
	return acc_time(r, t, o, (1.0 - p->f) * attention_flops(m, depth), decode_attention_rate);
}

/* Which kernels the weights take: the quantized kernels (MMVQ in decode,
 * MMQ in prefill), or the F16 / BF16 path. */
typedef enum weight_path { WP_QUANT, WP_F16, WP_BF16 } weight_path;

/* Seconds per token, on device d alone, of the int8 dot products of a CUDA
 * GPU without dp4a (compute capability below 6.1: the Tesla P100's GP100).
 * llama.cpp's ggml_cuda_dp4a (ggml-cuda/common.cuh) has __dp4a from 6.1
 * and four byte-wise multiply-adds below it, so the quantized
 * matrix-vector kernels spend integer instructions per weight at the FP32
 * issue rate: no_dp4a_flops FLOPs' worth per active parameter
 * (docs/accuracy.md "Speed: the model"). The FP32 rate is half the FP16
 * figure on GP100 (6.0), which runs FP16 packed at twice it (the P100 PCIe:
 * 18.7 and 9.3 TFLOPS, data/rigs.json); below 6.0 the figure is taken as the
 * FP32 rate, as the catalog states it for GPUs without fast FP16. 0 on
 * every other device. */
static double no_dp4a_time(const cr_device *d, const void *ctx)
{
	const cr_model *m = ctx;
	double cc = d->compute_capability, fp32;

	if (d->backend != CR_BACKEND_CUDA || !(cc > 0) || cc >= 6.1 || !(d->fp16_tflops > 0))
		return 0;
	fp32 = d->fp16_tflops * (fabs(cc - 6.0) < 0.01 ? 0.5 : 1.0);
	return (double)m->active_params * cr_speed.no_dp4a_flops / (fp32 * 1e12);
}

typedef struct decode_out {
	double tps;
	double acc_read, sys_read; /* bytes per token per tier */
	double weights_read;
	double fixed_s;            /* per-layer and compute terms */
} decode_out;

/* Decode tokens/s at `depth` cached tokens (docs/accuracy.md "Decode"). */
static void decode(const cr_model *m, const profile *pf, const cr_estimate_opts *o,
		   const cr_rig *r, const tiers *t, const plan *p, double weights, uint32_t depth,
		   bool legacy, weight_path wp, decode_out *d)
{
	const cr_speed_model *k = &cr_speed;
	double emb = embedding_bytes(m, weights);
	/* The embedding lookup reads one row; an untied table is not streamed.
	 * The rest scales by active / total parameters. Splitting the bytes by
	 * tensor type (routed experts in their own type, e.g. gpt-oss's MXFP4,
	 * plus every other tensor) scored worse out of sample (docs/accuracy.md
	 * "Speed: the model"). */
	double w_read = (weights - (m->tied_embeddings ? 0 : emb)) * (double)m->active_params /
			(double)m->params;
	double kv = (double)kv_bytes_at(m, pf, o, depth) + (double)pf->state_bytes;
	double expert_read = 0, out_read = 0, sys_w, cpu_share, layers_acc, time;
	const cr_device *sys = first_system(r), *acc = primary(r);

	if ((o->cpu_moe || o->n_cpu_moe) && m->experts_total)
		expert_read = p->expert_sys * m->experts_used / m->experts_total;
	/* With layers in RAM the output layer's weight is read from where it
	 * sits, a GPU or RAM (gpu_placement), not in the share f that the
	 * layers' bytes have; w_read holds it scaled as every weight. */
	if (t->n_acc && (p->f > 0 || !p->out_acc)) {
		out_read = p->out_w * (double)m->active_params / (double)m->params;
		if (out_read > w_read - expert_read)
			out_read = w_read - expert_read;
	}
	sys_w = expert_read + p->f * (w_read - expert_read - out_read) + (p->out_acc ? 0 : out_read);
	d->weights_read = w_read;
	/* The legacy block quants' matrix-vector kernels read their weights at
	 * a higher share of the bandwidth (legacy_quant_eff): their bytes cost
	 * less time, the KV cache's do not. */
	if (legacy) {
		w_read /= k->legacy_quant_eff;
		sys_w /= k->legacy_quant_eff;
	}
	d->sys_read = t->n_acc ? sys_w + p->f * kv : w_read + kv;
	d->acc_read = w_read + kv - d->sys_read;

	/* Per-layer times: layers on the accelerators at their backend's, the
	 * rest at the CPU's; recurrent and MoE layers add their own. The CPU
	 * also pays per parameter it multiplies (dequantisation and dot
	 * products), spread over its cores: divided by its FP32 TFLOPS. */
	layers_acc = t->n_acc ? (1.0 - p->f) * m->n_layers : 0;
	cpu_share = t->n_acc ? p->f + (expert_read > 0 ? (1.0 - p->f) * active_expert_params(m) *
							       cpu_moe_share(m, o) / (double)m->active_params
						       : 0) : 1.0;
	time = layers_acc * k->layer_s[bk(acc->backend)] +
	       (m->n_layers - layers_acc) * k->layer_s[CR_BACKEND_CPU] +
	       cr_model_count_layers(m, CR_LAYER_RECURRENT) * k->recurrent_layer_s +
	       (m->experts_total ? m->n_layers * (double)m->experts_used * k->moe_expert_s : 0) +
	       cpu_share * (double)m->active_params * k->cpu_param_s / cpu_tflops(sys);
	/* The accelerators multiply what the CPU does not (cpu_share: the
	 * layers in RAM, and the experts that --cpu-moe keeps there). */
	if (layers_acc > 0 && wp == WP_QUANT)
		time += (1.0 - cpu_share) * acc_shares(r, t, o, no_dp4a_time, m);
	/* Layer split: each GPU runs its share of the layers; tensor split:
	 * every GPU runs every layer, at the pace of the slowest. */
	if (layers_acc > 0 && o->split == CR_SPLIT_TENSOR) {
		double slowest = 0;

		for (unsigned g = 0; g < r->n_devices; g++)
			if (r->devices[g].kind != CR_MEM_SYSTEM &&
			    layers_acc * k->layer_bytes / layer_rate(&r->devices[g]) > slowest)
				slowest = layers_acc * k->layer_bytes / layer_rate(&r->devices[g]);
		time += slowest;
	} else if (layers_acc > 0) {
		time += acc_time(r, t, o, layers_acc * k->layer_bytes, layer_rate);
	}
	d->fixed_s = time;
	/* Attention arithmetic grows with each sequence's depth, so it is not
	 * one of the per-step fixed costs (decode_fixed_s, docs/plans.md). */
	time += decode_attention_s(m, r, t, o, p, depth);
	if (t->n_acc && d->acc_read > 0) {
		/* KV bytes are read by the attention kernels at a lower rate
		 * than the weights (kv_read_factor). */
		double kv_acc = t->n_acc ? (1.0 - p->f) * kv : 0;
		double ta = acc_time(r, t, o, d->acc_read + kv_acc * (k->kv_read_factor - 1.0), decode_rate);

		if (o->split == CR_SPLIT_TENSOR)
			ta += tp_comm_s(m, r, t->n_acc);
		else if (t->n_acc > 1)
			ta *= k->multi_gpu_factor;
		time += ta;
	}
	/* RAM is read at one socket's bandwidth: llama.cpp does not scale
	 * across NUMA nodes (facts/rigs_notes.md, dual EPYC). */
	if (sys && d->sys_read > 0) {
		double kv_sys = t->n_acc ? p->f * kv : kv;

		time += (d->sys_read + kv_sys * (k->kv_read_factor - 1.0)) / decode_rate(sys);
	}
	d->tps = 1.0 / time;
}

/* Seconds per prompt token of the weight GEMMs on one device: their
 * arithmetic (`flops` of weights, `attn` of attention) and their reading of
 * the weights once per micro-batch (`bytes`) overlap in part, so the two
 * times add in quadrature, between their sum and their maximum
 * (docs/accuracy.md "Speed: the model"). */
static double gemm_time(const cr_device *d, double flops, double attn, double bytes, weight_path wp, double width)
{
	double rate = wp == WP_QUANT ? mmq_rate(d, width) : prefill_rate_f16(d, width);
	double compute;

	/* BF16 weights on a GPU without BF16 arithmetic run at the catalog's
	 * bf16_tflops (Vega 20: llama.cpp hands BF16 matrices to hipBLAS,
	 * which computes them in FP32, 13.3 of 26.5 TFLOPS); attention reads
	 * the F16 cache and keeps the FP16 rate (docs/methodology.md "Prefill"). */
	if (wp == WP_BF16 && d->bf16_tflops > 0 && d->fp16_tflops > 0)
		rate *= d->bf16_tflops / d->fp16_tflops;
	compute = flops / rate + attn / attention_rate(d);
	return hypot(compute, bytes / decode_rate(d));
}

typedef struct gemm_work {
	double flops, attn, bytes;
	weight_path wp;
	double width;
} gemm_work;

static double gemm_work_time(const cr_device *d, const void *ctx)
{
	const gemm_work *w = ctx;

	return gemm_time(d, w->flops, w->attn, w->bytes, w->wp, w->width);
}

/* gemm_time on the accelerators, each device doing its share. */
static double acc_gemm_time(const cr_rig *r, const tiers *t, const cr_estimate_opts *o, double flops, double attn,
			    double bytes, weight_path wp, double width)
{
	gemm_work w = { flops, attn, bytes, wp, width };

	return acc_shares(r, t, o, gemm_work_time, &w);
}

/* Prefill tokens/s for a prompt of `prompt` tokens after `depth` cached
 * tokens (docs/accuracy.md "Prefill"); 0 when a device doing the work has
 * no FP16 TFLOPS figure. `wp`: quantized weights (MMQ) or F16 / BF16 (GEMM path). */
static double prefill_tps(const cr_model *m, const profile *pf, const cr_estimate_opts *o,
			  const cr_rig *r, const tiers *t, const plan *p, double weights, uint32_t prompt,
			  uint32_t depth, weight_path wp)
{
	const cr_speed_model *k = &cr_speed;
	double ub = prompt < o->n_ubatch ? prompt : o->n_ubatch;
	double a_exp = active_expert_params(m);
	double flops = 2.0 * ((double)m->active_params - a_exp);
	double attn;
	double w_all = weights - (m->tied_embeddings ? 0 : embedding_bytes(m, weights));
	double time = 0;
	const cr_device *sys = first_system(r);
	/* The flash-attention kernels stream the KV cache once per
	 * prefill_kv_tokens prompt tokens (llama.cpp's CUDA kernel: 64 query
	 * columns per thread block, ggml-cuda/fattn.cu), at decode's rate. */
	double kv_pass = (double)kv_bytes_at(m, pf, o, depth + prompt / 2) * k->kv_read_factor /
			 k->prefill_kv_tokens;

	if (ub < 1)
		ub = 1;
	/* Each expert's GEMM sees ub x used / total tokens of a micro-batch
	 * and runs at sqrt(m / (m + m0)) of a dense GEMM's efficiency. */
	if (a_exp > 0) {
		double mt = ub * m->experts_used / m->experts_total;

		flops += 2.0 * a_exp / sqrt(mt / (mt + k->moe_expert_tokens));
	}
	attn = attention_flops(m, depth + prompt / 2.0);
	if (t->n_acc) {
		for (unsigned g = 0; g < r->n_devices; g++)
			if (r->devices[g].kind != CR_MEM_SYSTEM && r->devices[g].fp16_tflops <= 0)
				return 0; /* unknown: no figure for a device that does work */
		time += acc_gemm_time(r, t, o, flops, attn, w_all / ub, wp, gemm_width(m)) +
			acc_time(r, t, o, kv_pass, decode_rate) +
			m->n_layers * k->prefill_layer_s / ub + volta_moe_s(m, r, t, o, ub, wp != WP_QUANT);
		/* llama.cpp runs large batches of layers kept in RAM on the GPU
		 * too, copying their weights over the bus once per micro-batch
		 * (ggml-backend op offload, batches >= 32). */
		if (p->f > 0 || p->expert_sys > 0 || !p->out_acc) {
			double link = (r->interconnect_gbs > 0 ? r->interconnect_gbs
							       : CR_TP_DEFAULT_LINK_GBS) * 1e9;
			/* The repeating layers' share f and the output layer when it
			 * is in RAM (gpu_placement); a tied output matrix is the
			 * token table, outside weights - emb. */
			bool tied = m->tied_embeddings || m->task == CR_TASK_EMBEDDING;
			double rest = weights - embedding_bytes(m, weights) - (tied ? 0 : p->out_w);
			double sys_w = p->f * (rest > 0 ? rest : 0) + (p->out_acc ? 0 : p->out_w);

			sys_w += p->expert_sys;

			time += sys_w / link / ub;
		}
		if (o->split == CR_SPLIT_TENSOR && t->n_acc > 1) {
			double link = (r->interconnect_gbs > 0 ? r->interconnect_gbs
							       : CR_TP_DEFAULT_LINK_GBS) * 1e9;

			time += 2.0 * m->n_layers * 2.0 * (t->n_acc - 1) / t->n_acc * m->hidden * 2.0 / link;
		}
	} else {
		if (!sys || sys->fp16_tflops <= 0)
			return 0;
		time += gemm_time(sys, flops / sys->count, attn / sys->count, w_all / ub, wp, gemm_width(m)) +
			kv_pass / decode_rate(sys) + m->n_layers * k->prefill_layer_s / ub;
	}
	return time > 0 ? 1.0 / time : 0;
}

/* Is there measured data near this estimate? Writes "" (calibrated) or why
 * not to `decode_note` / `prefill_note` (docs/accuracy.md "Confidence").
 * "Near" is a clefrun rule, not a measurement: at least CONF_MIN_ROWS rows
 * of the kind on the same backend, memory type and vendor, the same model
 * kind, and a size and context within CONF_SPAN times what was measured. */
#define CONF_MIN_ROWS 3
#define CONF_SPAN 2.0
static void speed_confidence(const cr_model *m, const cr_rig *r, const tiers *t, const plan *p,
			     const cr_estimate_opts *o, uint32_t ctx, bool bf16, cr_estimate *out)
{
	const cr_device *d = primary(r);
	const cr_speed_cell *c = NULL;
	cr_mem_type mt = speed_mem(d);
	cr_vendor v = speed_vendor(d);
	bool hybrid = cr_model_count_layers(m, CR_LAYER_RECURRENT) > 0;
	const char *kind = hybrid ? "hybrid linear-attention" : m->experts_total ? "MoE" : "dense";
	char why[sizeof(out->decode_note)] = "";
	double active = (double)m->active_params;

	for (unsigned i = 0; i < cr_speed_cell_count; i++)
		if (cr_speed_cells[i].backend == d->backend && cr_speed_cells[i].mem == mt &&
		    cr_speed_cells[i].vendor == v)
			c = &cr_speed_cells[i];
	if (t->n_acc && (p->f > 0 || p->expert_sys > 0 || !p->out_acc))
		snprintf(why, sizeof(why), "layers or experts in system RAM: no measured rows");
	else if (t->n_acc > 1 && o->split == CR_SPLIT_TENSOR)
		snprintf(why, sizeof(why), "tensor split: no measured llama.cpp rows");
	else if (!t->n_acc && !(d->fp16_tflops > 0))
		snprintf(why, sizeof(why), "no FP32 figure for this CPU: its per-parameter time is the median calibration CPU's");
	else if (bf16 && d->backend == CR_BACKEND_VULKAN)
		snprintf(why, sizeof(why), "BF16 on Vulkan: no measured rows; devices without bf16 support take a slower path");
	else if (!c)
		snprintf(why, sizeof(why), "no measured %s rows on %s%s%s devices", cr_backend_name(d->backend),
			 v == CR_VENDOR_OTHER ? "" : cr_vendor_name(v), v == CR_VENDOR_OTHER ? "" : " ",
			 cr_mem_type_name(mt));
	else if (!(hybrid ? c->hybrid_rows : m->experts_total ? c->moe_rows : c->dense_rows))
		snprintf(why, sizeof(why), "no measured %s models on %s (%s%s%s)", kind,
			 cr_backend_name(d->backend), v == CR_VENDOR_OTHER ? "" : cr_vendor_name(v),
			 v == CR_VENDOR_OTHER ? "" : " ", cr_mem_type_name(mt));
	else if (active < c->active_min / CONF_SPAN || active > c->active_max * CONF_SPAN)
		snprintf(why, sizeof(why), "%.1fB active parameters, measured %.1f-%.1fB", active / 1e9,
			 c->active_min / 1e9, c->active_max / 1e9);
	else if (ctx > CONF_SPAN * c->ctx_max)
		snprintf(why, sizeof(why), "context %u tokens, measured up to %u", ctx, c->ctx_max);
	snprintf(out->decode_note, sizeof(out->decode_note), "%s",
		 why[0] || (c && c->decode_rows >= CONF_MIN_ROWS) ? why : "fewer than 3 measured decode rows here");
	snprintf(out->prefill_note, sizeof(out->prefill_note), "%s",
		 why[0] || (c && c->prefill_rows >= CONF_MIN_ROWS) ? why : "fewer than 3 measured prefill rows here");
	/* Intel's Vulkan decode depends on the driver more than on anything
	 * the estimate knows: one build measured 2.5-3.1x faster under the
	 * Windows driver than under Mesa on the same cards (llama.cpp #14001,
	 * docs/accuracy.md "Speed: limits"). Prefill differed far less. */
	if (!out->decode_note[0] && d->backend == CR_BACKEND_VULKAN && v == CR_VENDOR_INTEL)
		snprintf(out->decode_note, sizeof(out->decode_note),
			 "Intel GPU on Vulkan: Windows' driver decodes 2.5-3.1x faster than Mesa on one card and build; OS not modelled");
	out->decode_error_pct = cr_speed.decode_error_pct[bk(d->backend)];
	out->prefill_error_pct = cr_speed.prefill_error_pct[bk(d->backend)];
}

static int validate(const cr_model *m, const cr_weights *w, const cr_rig *r,
		    const cr_estimate_opts *o, cr_error *err)
{
	bool has_sys = false, has_acc = false;

	if (!m || !w || !r || !o)
		return cr_seterr(err, CR_ERR_INVALID, "estimate: missing model, weights, rig or options");
	if (w->kind == CR_WEIGHTS_PRESET ? !w->preset : w->kind != CR_WEIGHTS_EXACT || !w->bytes)
		return cr_seterr(err, CR_ERR_INVALID, "estimate: weights need a preset or a positive byte count");
	if (!m->params || !m->n_layers || m->n_layers > CR_MAX_LAYERS || !m->vocab || !m->hidden ||
	    !m->n_heads || m->active_params > m->params)
		return cr_seterr(err, CR_ERR_INVALID, "model %s: incomplete architecture", m->id);
	if (!r->n_devices || r->n_devices > CR_MAX_DEVICE_GROUPS)
		return cr_seterr(err, CR_ERR_INVALID, "rig %s: no devices", r->id);
	for (unsigned g = 0; g < r->n_devices; g++) {
		const cr_device *d = &r->devices[g];

		if (!d->count || !(d->memory_gib > 0) || !(d->bandwidth_gbs > 0) ||
		    !(d->usable_fraction > 0) || d->usable_fraction > 1 || !(d->fp16_tflops >= 0))
			return cr_seterr(err, CR_ERR_INVALID, "rig %s: devices[%u]: incomplete figures",
					 r->id, g);
		if (d->kind == CR_MEM_SYSTEM)
			has_sys = true;
		else
			has_acc = true;
	}
	if (!o->n_ctx || !o->n_seq || !o->n_ubatch)
		return cr_seterr(err, CR_ERR_INVALID,
				 "context, parallel sequences and ubatch must be positive");
	if (o->kv_pad_cells > KV_PAD)
		return cr_seterr(err, CR_ERR_INVALID, "a KV padding of %u cells: llama.cpp pads to at most %u",
				 o->kv_pad_cells, KV_PAD);
	if (o->n_tensor_split) {
		unsigned n_acc = 0;
		double sum = 0;

		for (unsigned g = 0; g < r->n_devices; g++)
			n_acc += r->devices[g].kind == CR_MEM_SYSTEM ? 0 : r->devices[g].count;
		if (o->split == CR_SPLIT_TENSOR)
			return cr_seterr(err, CR_ERR_INVALID,
					 "a tensor split's proportions apply to the layer split; the tensor split slices evenly");
		if (o->n_tensor_split > CR_MAX_GPUS || o->n_tensor_split > n_acc)
			return cr_seterr(err, CR_ERR_INVALID,
					 "a tensor split of %u proportions for rig %s, which has %u accelerator(s)",
					 o->n_tensor_split, r->id, n_acc);
		for (unsigned i = 0; i < o->n_tensor_split; i++) {
			if (!(o->tensor_split[i] >= 0) || !isfinite(o->tensor_split[i]))
				return cr_seterr(err, CR_ERR_INVALID,
						 "tensor split proportion %u is not a finite number >= 0", i + 1);
			sum += o->tensor_split[i];
		}
		if (!(sum > 0) || !isfinite(sum))
			return cr_seterr(err, CR_ERR_INVALID, "a tensor split needs a proportion above 0");
	}
	if (o->n_ctx > m->context_max)
		return cr_seterr(err, CR_ERR_RANGE, "context %u is above %s's maximum of %u tokens",
				 o->n_ctx, m->id, m->context_max);
	/* A cache cannot hold more than the context, nor a prompt be longer. */
	if (o->depth != CR_DEPTH_CONTEXT && o->depth > o->n_ctx)
		return cr_seterr(err, CR_ERR_RANGE, "depth %u is above the context of %u tokens",
				 o->depth, o->n_ctx);
	if (o->prompt_tokens > o->n_ctx)
		return cr_seterr(err, CR_ERR_RANGE, "a prompt of %u tokens is above the context of %u tokens",
				 o->prompt_tokens, o->n_ctx);
	if ((unsigned)o->type_k >= CR_KV_TYPE_COUNT || (unsigned)o->type_v >= CR_KV_TYPE_COUNT)
		return cr_seterr(err, CR_ERR_INVALID, "unknown KV cache type");
	/* llama.cpp: "quantized V cache requires flash_attn to be enabled". */
	if (o->type_v != CR_KV_F16 && !o->flash_attn)
		return cr_seterr(err, CR_ERR_UNSUPPORTED,
				 "a quantized V cache (%s) needs flash attention; llama.cpp refuses it with flash attention off",
				 cr_kv_type_name(o->type_v));
	/* In the estimator's own terms: a front end adds its option names. */
	if ((o->gpu_layers >= 0 || o->cpu_moe || o->n_cpu_moe) && !(has_sys && has_acc)) {
		cr_seterr(err, CR_ERR_UNSUPPORTED,
			  "rig %s: a fixed GPU layer count or expert offload needs a rig with both GPUs and a system RAM tier",
			  r->id);
		if (err)
			err->reason = CR_REASON_PLACEMENT_NEEDS_RAM_TIER;
		return CR_ERR_UNSUPPORTED;
	}
	if ((o->cpu_moe || o->n_cpu_moe) && !m->experts_total) {
		cr_seterr(err, CR_ERR_UNSUPPORTED, "expert offload: %s is not a mixture-of-experts model", m->id);
		if (err)
			err->reason = CR_REASON_NOT_MOE;
		return CR_ERR_UNSUPPORTED;
	}
	return CR_OK;
}

/* Largest context (multiple of 256, ≤ model max) that fits; 0 if none.
 * Memory is non-decreasing in the context, so a bisection finds it. */
static uint32_t solve_max_context(const cr_model *m, const profile *pf,
				  const cr_estimate_opts *o, double weights, const tiers *t)
{
	cr_estimate_opts w = *o;
	/* Round up: a maximum that is not a multiple of 256 is a candidate too. */
	uint32_t lo = 0, hi = (uint32_t)((m->context_max + (uint64_t)KV_PAD - 1) / KV_PAD);
	plan p;

	if (hi == 0)
		hi = 1;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo + 1) / 2;

		w.n_ctx = mid * KV_PAD;
		if (w.n_ctx > m->context_max)
			w.n_ctx = m->context_max;
		make_plan(m, pf, &w, weights, t, &p);
		if (p.fits)
			lo = mid;
		else
			hi = mid - 1;
	}
	if (!lo)
		return 0;
	return lo * KV_PAD > m->context_max ? m->context_max : lo * KV_PAD;
}

static void fill_devices(const cr_model *m, const cr_rig *r, const tiers *t, const plan *p,
			 cr_estimate *out)
{
	double layers_acc = (1.0 - p->f) * m->n_layers;
	double offload = p->offload; /* on the first GPU only: the scheduler's first backend */
	double out_moved = p->out_moved; /* taken from the same device */
	double mapped = p->mapped;       /* Metal: one device maps the file */
	double mm = p->mm_dev;           /* a projector: clip takes the first GPU (vision.h) */

	out->gpu_layers = t->n_acc ? (uint32_t)(layers_acc + 0.5) : 0;
	out->output_layer_on_gpu = t->n_acc && p->out_acc;
	for (unsigned g = 0; g < r->n_devices; g++) {
		const cr_device *d = &r->devices[g];
		cr_device_use *u = &out->devices[g];

		u->usable_per_device = bytes_u64(device_usable(d));
		u->reserve_per_device = d->kind == CR_MEM_SYSTEM ? 0 : bytes_u64(device_overhead(d));
		if (p->n_gpus >= 2 && d->kind != CR_MEM_SYSTEM) {
			/* A layer split: the group's fullest device, its mean layers. */
			uint32_t layers = 0;

			for (unsigned i = 0; i < p->n_gpus; i++) {
				if (p->gpus[i].group != g)
					continue;
				layers += p->gpus[i].layers;
				if (p->gpus[i].total_bytes > u->bytes_per_device)
					u->bytes_per_device = p->gpus[i].total_bytes;
			}
			u->layers_per_device = (double)layers / d->count;
			continue;
		}
		if (d->kind == CR_MEM_SYSTEM) {
			double sys = t->n_acc ? (double)out->memory.host_bytes
					      : (double)out->memory.total_bytes;

			u->bytes_per_device = bytes_u64(sys / t->sys_cap * device_usable(d));
			u->layers_per_device = t->n_acc ? p->f * m->n_layers * device_usable(d) / t->sys_cap
							: (double)m->n_layers / d->count;
			continue;
		}
		{
			double share = device_usable(d) / t->acc_usable;

			u->bytes_per_device = bytes_u64((1.0 - p->f) * p->layer_bytes * share +
							 p->unified_host * share + p->compute + offload - out_moved + mapped + mm +
							 device_overhead(d));
			offload = 0;
			out_moved = 0;
			mapped = 0;
			mm = 0;
			u->layers_per_device = layers_acc * share;
		}
	}
}

/* The tier from the speed it is judged on. An embedding or reranking model
 * generates no text: its work is the prefill of its input, judged as
 * --workload decide is (docs/decisions.md "Embedding and reranking models"). */
static cr_tier speed_tier(const cr_model *m, const cr_estimate_opts *o, const cr_estimate *e)
{
	if (o->workload == CR_WORKLOAD_DECIDE || m->task != CR_TASK_GENERATION) {
		/* No FP16 figure, no time-to-decision: say so rather than fall
		 * back to the decode tier the user did not ask for. */
		if (!(e->time_to_decision_s > 0))
			return CR_TIER_UNKNOWN;
		if (e->time_to_decision_s <= CR_TIER_FAST_DECIDE_S)
			return CR_TIER_FAST;
		return e->time_to_decision_s <= CR_TIER_OK_DECIDE_S ? CR_TIER_OK : CR_TIER_SLOW;
	}
	if (e->decode_tokens_per_s >= CR_TIER_FAST_TPS)
		return CR_TIER_FAST;
	return e->decode_tokens_per_s >= CR_TIER_OK_TPS ? CR_TIER_OK : CR_TIER_SLOW;
}

static void describe_basis(const cr_rig *r, const tiers *t, const cr_estimate_opts *o,
			   const decode_out *d, cr_estimate *out)
{
	const char *mode = t->n_acc > 1 ? (o->split == CR_SPLIT_TENSOR ? "tensor split, " : "layer split, ") : "";
	const cr_device *acc = primary(r);

	if (d->sys_read > 0 && t->n_acc)
		snprintf(out->basis, sizeof(out->basis),
			 "bandwidth: %s%.2f GB/token on accelerators + %.2f GB/token from system RAM, %.2f ms/token per-layer time",
			 mode, d->acc_read / 1e9, d->sys_read / 1e9, d->fixed_s * 1e3);
	else
		snprintf(out->basis, sizeof(out->basis),
			 "bandwidth: %s%.2f GB/token at %.0f%% of peak, %.2f ms/token per-layer time",
			 mode, (d->acc_read + (t->n_acc ? 0 : d->sys_read)) / 1e9, bw_eff(acc) * 100,
			 d->fixed_s * 1e3);
}

/* Weight bytes of an estimate: exact ones as given; a preset by its rules
 * (and the deprecated opts.weights_bytes, which overrides it). */
static double weights_of(const cr_model *m, const cr_weights *w, const cr_estimate_opts *o)
{
	if (w->kind == CR_WEIGHTS_EXACT)
		return (double)w->bytes;
	return (double)cr_estimate_weights_bytes(m, w->preset, o);
}

/* The ggml type of most weights: a preset's base type, or the file's. */
static const char *weights_type(const cr_weights *w)
{
	return w->kind == CR_WEIGHTS_EXACT ? w->type : w->preset->base_type;
}

/* Q4_0, Q4_1, Q5_0, Q5_1, Q8_0: blocks of 32 weights with one scale (and a
 * minimum), against the K-quants' 256-weight super-blocks of packed
 * sub-block scales (docs/methodology.md "Decode"). */
static bool legacy_quant(const char *type)
{
	static const char *const legacy[] = { "Q4_0", "Q4_1", "Q5_0", "Q5_1", "Q8_0" };

	for (size_t i = 0; i < sizeof(legacy) / sizeof(legacy[0]); i++)
		if (strcmp(type, legacy[i]) == 0)
			return true;
	return false;
}

/* The weights are mostly a legacy block quant: not where the model keeps
 * its bulk in a native type at every preset (gpt-oss's MXFP4 experts). */
static bool legacy_weights(const cr_model *m, const cr_weights *w)
{
	return !m->native_type[0] && legacy_quant(weights_type(w));
}

void cr_weights_preset(const cr_quant *q, cr_weights *out)
{
	memset(out, 0, sizeof(*out));
	out->kind = CR_WEIGHTS_PRESET;
	out->preset = q;
}

void cr_weights_exact(uint64_t bytes, const char *type, cr_weights *out)
{
	memset(out, 0, sizeof(*out));
	out->kind = CR_WEIGHTS_EXACT;
	out->bytes = bytes;
	snprintf(out->type, sizeof(out->type), "%s", type ? type : "");
}

void cr_estimate_weights_type(const char *const *names, const uint64_t *bytes, size_t n,
			      char *out, size_t cap)
{
	size_t best = n;

	for (size_t i = 0; names && bytes && i < n; i++)
		if (names[i] && bytes[i] && (best == n || bytes[i] > bytes[best]))
			best = i;
	if (cap)
		snprintf(out, cap, "%s", best < n ? names[best] : "");
}

uint64_t cr_estimate_weights_size(const cr_model *m, const cr_weights *w)
{
	cr_estimate_opts o = CR_ESTIMATE_OPTS_INIT;

	if (!m || !w)
		return 0;
	if (w->kind == CR_WEIGHTS_EXACT)
		return w->bytes;
	return w->preset ? cr_estimate_weights_bytes(m, w->preset, &o) : 0;
}

double cr_estimate_weights_bpw(const cr_model *m, const cr_weights *w)
{
	if (!m || !w)
		return 0;
	if (w->kind == CR_WEIGHTS_PRESET)
		return w->preset ? w->preset->bpw : 0;
	return m->params ? (double)w->bytes * 8.0 / (double)m->params : 0;
}

int cr_estimate_run(const cr_model *m, const cr_quant *q, const cr_rig *r,
		    const cr_estimate_opts *o, cr_estimate *out, cr_error *err)
{
	cr_weights w;

	if (!m || !q || !r || !o) {
		if (out)
			memset(out, 0, sizeof(*out));
		return cr_seterr(err, CR_ERR_INVALID, "estimate: missing model, quant, rig or options");
	}
	cr_weights_preset(q, &w);
	return cr_estimate_run_weights(m, &w, r, o, out, err);
}

int cr_estimate_run_weights(const cr_model *m, const cr_weights *w, const cr_rig *r,
			    const cr_estimate_opts *o, cr_estimate *out, cr_error *err)
{
	cr_estimate_opts at;
	unsigned b;
	double weights;
	uint32_t pre_depth;
	weight_path wp;
	decode_out d;
	tiers t;
	profile pf;
	plan p, pmin;
	int rc;

	memset(out, 0, sizeof(*out));
	if ((rc = validate(m, w, r, o, err)))
		return rc;
	at = *o;
	weights = weights_of(m, w, o);
	rig_tiers(r, &t);
	tiers_for_weights(w, &t);
	make_profile(m, o, &pf);
	if (!kv_in_range(m, &pf, o) || weights >= BYTES_LIMIT)
		return cr_seterr(err, CR_ERR_RANGE,
				 "model %s: KV cache or weights beyond 2^60 bytes at its maximum context; the architecture figures are not plausible",
				 m->id);
	if ((t.n_acc && t.acc_usable <= 0) || (!t.n_acc && t.sys_cap <= 0))
		return cr_seterr(err, CR_ERR_INVALID, "rig %s: no usable memory", r->id);

	make_plan(m, &pf, o, weights, &t, &p);
	out->memory = p.mem;
	out->context = o->n_ctx;
	out->flash_attn = o->flash_attn;
	/* The tensor-split speed model has no calibration rows (docs/accuracy.md):
	 * 8x 3090 gives llama-3.1-70b Q4_K_M 72 t/s where layer split gives 15, beyond what
	 * llama.cpp's row split measures. Flag it until the speed model does. */
	out->speed_validated = !(o->split == CR_SPLIT_TENSOR && t.n_acc > 1);
	out->kv_cells_full = cells_full(o);
	out->kv_cells_swa = m->window ? cells_swa(m, o) : 0;
	/* Growth per token of context: one cell of every full-attention layer
	 * (sliding layers stop growing at their window). */
	out->kv_bytes_per_token = pf.full_cell_bytes + pf.mtp_cell_bytes;
	out->fits = p.fits;
	out->max_context = solve_max_context(m, &pf, o, weights, &t);
	out->offload_fraction = p.f;
	out->free_bytes = p.free_bytes > 0 ? (uint64_t)p.free_bytes : 0;
	fill_devices(m, r, &t, &p, out);
	out->n_gpus = p.n_gpus >= 2 ? p.n_gpus : 0;
	if (out->n_gpus)
		memcpy(out->gpus, p.gpus, sizeof(out->gpus));
	out->limiting_gpu = p.limiting_gpu;
	out->pipeline_parallel = out->n_gpus && p.pipeline;
	out->gpus_filled = out->n_gpus && p.filled;
	out->host_compute_bytes = (uint64_t)p.host_compute;

	at.n_ctx = o->n_ctx < MIN_CTX ? o->n_ctx : MIN_CTX;
	make_plan(m, &pf, &at, weights, &t, &pmin);
	if (!pmin.fits) {
		/* No context worth the name fits: a 256-token cache that squeezes
		 * in is no fit either. */
		out->max_context = 0;
		out->tier = CR_TIER_NOFIT;
		snprintf(out->basis, sizeof(out->basis), "does not fit at a %u-token context", at.n_ctx);
		return CR_OK;
	}
	/* Speeds at the requested context, or at the largest that fits. */
	at = *o;
	if (!p.fits) {
		at.n_ctx = out->max_context;
		make_plan(m, &pf, &at, weights, &t, &p);
	}
	/* Below the requested context only when that does not fit (at.n_ctx
	 * is then the largest that does); validate() refused depth > n_ctx. */
	out->decode_depth = o->depth < at.n_ctx ? o->depth : at.n_ctx;
	out->prompt_tokens = o->prompt_tokens ? o->prompt_tokens
					      : (at.n_ctx < CR_DEFAULT_PROMPT_TOKENS ? at.n_ctx : CR_DEFAULT_PROMPT_TOKENS);
	wp = strcmp(weights_type(w), "BF16") == 0 ? WP_BF16 : strcmp(weights_type(w), "F16") == 0 ? WP_F16 : WP_QUANT;
	decode(m, &pf, &at, r, &t, &p, weights, out->decode_depth, legacy_weights(m, w), wp, &d);
	b = bk(primary(r)->backend);
	out->weights_read_bytes = (uint64_t)d.weights_read;
	out->decode_tokens_per_s = d.tps;
	out->decode_tokens_per_s_low = d.tps * cr_speed.decode_q10[b];
	out->decode_tokens_per_s_high = d.tps * cr_speed.decode_q90[b];
	/* The prompt follows --depth cached tokens (0: an empty cache), within
	 * the context. */
	pre_depth = o->depth == CR_DEPTH_CONTEXT ? 0 : o->depth;
	if ((uint64_t)pre_depth + out->prompt_tokens > at.n_ctx)
		pre_depth = at.n_ctx > out->prompt_tokens ? at.n_ctx - out->prompt_tokens : 0;
	out->prefill_depth = pre_depth;
	out->prefill_tokens_per_s = prefill_tps(m, &pf, &at, r, &t, &p, weights, out->prompt_tokens, pre_depth, wp);
	out->prefill_tokens_per_s_low = out->prefill_tokens_per_s * cr_speed.prefill_q10[b];
	out->prefill_tokens_per_s_high = out->prefill_tokens_per_s * cr_speed.prefill_q90[b];
	if (out->prefill_tokens_per_s > 0)
		out->time_to_decision_s = out->prompt_tokens / out->prefill_tokens_per_s;
	out->decode_fixed_s = d.fixed_s;
	describe_basis(r, &t, o, &d, out);
	speed_confidence(m, r, &t, &p, o,
			 out->decode_depth > pre_depth + out->prompt_tokens ? out->decode_depth
									   : pre_depth + out->prompt_tokens,
			 wp == WP_BF16, out);

	if (m->task != CR_TASK_GENERATION) {
		/* No text to generate: no decode speed (the figures above stay
		 * what they are for a generator of this shape, unreported). */
		out->decode_tokens_per_s = out->decode_tokens_per_s_low = out->decode_tokens_per_s_high = 0;
		out->decode_note[0] = '\0';
		snprintf(out->basis, sizeof(out->basis),
			 "%s model: no text generation; tier by the prefill of a %u-token input",
			 m->task == CR_TASK_RERANK ? "reranking" : "embedding", out->prompt_tokens);
	}
	if (!out->fits || p.tight)
		out->tier = CR_TIER_TIGHT;
	else
		out->tier = speed_tier(m, o, out);
	return CR_OK;
}

bool cr_estimate_resolve_flash_attn(const cr_model *m, const cr_rig *r, cr_flash_attn fa,
				    char *why, size_t cap)
{
	(void)r;
	if (fa == CR_FA_ON || fa == CR_FA_OFF) {
		snprintf(why, cap, "flash attention %s (as requested)", fa == CR_FA_ON ? "on" : "off");
		return fa == CR_FA_ON;
	}
	/* llama.cpp -fa auto (src/llama-context.cpp) enables flash attention
	 * when the device holding each layer supports the op for the model's
	 * head sizes; the CUDA, Metal, Vulkan, ROCm and CPU kernels cover K/V
	 * head sizes up to 256 and the MLA case (576/512). */
	if (!m->mla && (m->head_dim_k > 256 || m->head_dim_v > 256)) {
		snprintf(why, cap, "flash attention auto resolved to off: head size %u/%u has no flash-attention kernel",
			 m->head_dim_k, m->head_dim_v);
		return false;
	}
	snprintf(why, cap, "flash attention auto resolved to on: every backend has a kernel for head size %u",
		 m->mla ? m->mla_kv_lora_rank + m->mla_rope_dim : m->head_dim_k);
	return true;
}

/* The default context and the range checks live here only: the CLI's
 * commands, cr_decide_fit and the report all come through this call. */
int cr_estimate_resolve_opts(const cr_model *m, const cr_rig *r, const cr_estimate_request *req,
			     cr_estimate_setup *out, cr_error *err)
{
	cr_estimate_opts *o;

	if (!out)
		return cr_seterr(err, CR_ERR_INVALID, "estimate options: missing output");
	memset(out, 0, sizeof(*out));
	if (!m || !req)
		return cr_seterr(err, CR_ERR_INVALID, "estimate options: missing model or request");
	o = &out->opts;
	*o = req->opts;
	if (!m->context_max)
		return cr_seterr(err, CR_ERR_INVALID, "model %s: no maximum context", m->id);
	o->n_ctx = req->n_ctx ? req->n_ctx : m->context_max < CR_DEFAULT_CTX ? m->context_max : CR_DEFAULT_CTX;
	/* The rule needs no rig today (every backend has the same kernels):
	 * a NULL rig is the single device of curve.h. */
	o->flash_attn = cr_estimate_resolve_flash_attn(m, r, req->flash_attn, out->flash_attn_reason,
						       sizeof(out->flash_attn_reason));
	if (o->n_ctx > m->context_max) {
		out->bad = CR_REQUEST_CTX;
		out->bad_value = o->n_ctx;
		out->bad_limit = m->context_max;
		return cr_seterr(err, CR_ERR_RANGE, "context %u is above %s's maximum of %u tokens",
				 o->n_ctx, m->id, m->context_max);
	}
	if (o->depth != CR_DEPTH_CONTEXT && o->depth > o->n_ctx) {
		out->bad = CR_REQUEST_DEPTH;
		out->bad_value = o->depth;
		out->bad_limit = o->n_ctx;
		return cr_seterr(err, CR_ERR_RANGE, "depth %u is above the context of %u tokens",
				 o->depth, o->n_ctx);
	}
	if (o->prompt_tokens > o->n_ctx) {
		out->bad = CR_REQUEST_PROMPT;
		out->bad_value = o->prompt_tokens;
		out->bad_limit = o->n_ctx;
		return cr_seterr(err, CR_ERR_RANGE,
				 "a prompt of %u tokens is above the context of %u tokens",
				 o->prompt_tokens, o->n_ctx);
	}
	return CR_OK;
}

int cr_estimate_kv_profile(const cr_model *m, const cr_estimate_opts *o, cr_kv_profile *out,
			   cr_error *err)
{
	profile pf;
	cr_estimate_opts big;

	if (!out)
		return cr_seterr(err, CR_ERR_INVALID, "KV profile: missing output");
	memset(out, 0, sizeof(*out));
	if (!m || !o)
		return cr_seterr(err, CR_ERR_INVALID, "KV profile: missing model or options");
	if (!o->n_ctx || !o->n_seq || !o->n_ubatch)
		return cr_seterr(err, CR_ERR_INVALID,
				 "context, parallel sequences and ubatch must be positive");
	if (!m->n_layers || m->n_layers > CR_MAX_LAYERS)
		return cr_seterr(err, CR_ERR_INVALID, "model %s: incomplete architecture", m->id);
	if ((unsigned)o->type_k >= CR_KV_TYPE_COUNT || (unsigned)o->type_v >= CR_KV_TYPE_COUNT)
		return cr_seterr(err, CR_ERR_INVALID, "unknown KV cache type");
	if (o->kv_pad_cells > KV_PAD)
		return cr_seterr(err, CR_ERR_INVALID, "a KV padding of %u cells: llama.cpp pads to at most %u",
				 o->kv_pad_cells, KV_PAD);
	make_profile(m, o, &pf);
	if (cr_estimate_kv_bytes(m, o) == UINT64_MAX || (double)pf.state_bytes >= BYTES_LIMIT)
		return cr_seterr(err, CR_ERR_RANGE,
				 "model %s: KV cache beyond 2^60 bytes; the architecture figures are not plausible",
				 m->id);
	out->cell_pad = kv_pad(o);
	out->streams = streams(o);
	for (uint32_t i = 0; i < m->n_layers; i++) {
		if (m->layer_kind[i] == CR_LAYER_RECURRENT)
			out->recurrent_layers++;
		else if (m->kv_heads[i] && m->layer_kind[i] == CR_LAYER_SLIDING)
			out->sliding_layers++;
		else if (m->kv_heads[i] && m->layer_kind[i] == CR_LAYER_FULL)
			out->full_layers++;
	}
	out->full_cell_bytes = pf.full_cell_bytes + pf.mtp_cell_bytes;
	out->sliding_cell_bytes = pf.swa_cell_bytes;
	out->bytes_per_token = pf.full_cell_bytes + pf.mtp_cell_bytes;
	out->cells_full = cells_full(o);
	out->cells_sliding = m->window ? cells_swa(m, o) : 0;
	/* The cap: the cells at a context no window reaches (2^31 tokens). */
	big = *o;
	big.n_ctx = 1u << 31;
	out->cells_sliding_cap = m->window ? cells_swa(m, o->swa_full ? o : &big) : 0;
	out->full_bytes = (pf.full_cell_bytes + pf.mtp_cell_bytes) * out->cells_full;
	out->sliding_bytes = pf.swa_cell_bytes * out->cells_sliding;
	out->kv_bytes = out->full_bytes + out->sliding_bytes;
	out->state_bytes = pf.state_bytes;
	return CR_OK;
}

/* ---- --explain -------------------------------------------------------------- */

/* compute_buffer's peak on a device without the output layer. */
static double body_peak_of(const cr_model *m, const cr_estimate_opts *o)
{
	profile pf;
	double ffn, body;

	make_profile(m, o, &pf);
	(void)compute_buffer(m, &pf, o, &ffn, &body);
	return body;
}

static cr_term *term(cr_term *t, size_t *n, size_t max, const char *name, double value,
		     const char *unit, const char *source)
{
	cr_term *x;

	if (*n >= max)
		return NULL;
	x = &t[(*n)++];
	x->name = name;
	x->value = value;
	x->unit = unit;
	x->source = source;
	x->formula[0] = '\0';
	return x;
}

size_t cr_estimate_explain(const cr_model *m, const cr_quant *q, const cr_rig *r,
			   const cr_estimate_opts *o, const cr_estimate *e, cr_term *terms,
			   size_t max)
{
	cr_weights w;

	if (!q)
		return 0;
	cr_weights_preset(q, &w);
	return cr_estimate_explain_weights(m, &w, r, o, e, terms, max);
}

size_t cr_estimate_explain_weights(const cr_model *m, const cr_weights *w, const cr_rig *r,
				   const cr_estimate_opts *o, const cr_estimate *e,
				   cr_term *terms, size_t max)
{
	const cr_quant *q;
	const cr_estimate_opts *use = o;
	cr_estimate_opts at = *o;
	const cr_device *acc = primary(r);
	double weights, emb;
	size_t n = 0;
	cr_term *x;
	char legacy[48] = "";
	profile pf;
	tiers t;
	plan p;

	if (!e || !terms || validate(m, w, r, o, NULL))
		return 0;
	q = w->preset;
	weights = weights_of(m, w, o);
	emb = embedding_bytes(m, weights);
	rig_tiers(r, &t);
	tiers_for_weights(w, &t);
	if (!e->fits && e->max_context) {
		at.n_ctx = e->max_context;
		use = &at;
	}
	make_profile(m, use, &pf);
	make_plan(m, &pf, use, weights, &t, &p);

	if ((x = term(terms, &n, max, "weights", (double)e->memory.weights_bytes, "bytes",
		      "params x whole-file bpw (data/quants.json, llama-quantize table); token embeddings on the host (llama.cpp CPU buffer)"))) {
		if (w->kind == CR_WEIGHTS_EXACT || o->weights_bytes)
			snprintf(x->formula, sizeof(x->formula), "exact tensor bytes %.0f%s",
				 weights, m->tied_embeddings && t.n_acc ? " + tied output copy" : "");
		else if (m->native_bpw > 0 && m->native_type[0])
			snprintf(x->formula, sizeof(x->formula),
				 "%.4g expert params x %.2f bpw (%s, native) + %.4g others x %.2f bpw, / 8 = %.3f GB",
				 expert_fraction(m) * (double)m->params, m->native_bpw, m->native_type,
				 (1.0 - expert_fraction(m)) * (double)m->params,
				 strcmp(q->base_type, m->native_type) == 0 ? NATIVE_REST_BPW : q->bpw,
				 weights / 1e9);
		else
			snprintf(x->formula, sizeof(x->formula),
				 "%.4g params x %.2f bpw / 8 = %.3f GB (embeddings %.3f GB on host%s)",
				 (double)m->params, q->bpw, weights / 1e9, emb / 1e9,
				 m->tied_embeddings && t.n_acc ? ", counted twice: tied" : "");
	}
	if ((x = term(terms, &n, max, "kv_cache", (double)p.mem.kv_bytes, "bytes",
		      kv_pad(use) == KV_PAD
			      ? "llama.cpp: full layers n_ctx padded to 256 cells per stream; SWA layers pad(min(n_ctx_seq, window x (unified ? n_seq : 1) + n_ubatch), 256) (llama-kv-cache-iswa.cpp)"
			      : "an older llama.cpp (--kv-pad): full layers n_ctx padded to kv_pad_cells per stream; SWA layers pad(min(n_ctx_seq, window x (unified ? n_seq : 1) + n_ubatch), kv_pad_cells)")))
		snprintf(x->formula, sizeof(x->formula),
			 "%llu B/cell (full layers%s) x %u cells + %llu B/cell (sliding) x %u cells [K %s, V %s]",
			 (unsigned long long)pf.full_cell_bytes + (unsigned long long)pf.mtp_cell_bytes,
			 pf.mtp_cell_bytes ? ", MTP layers' unread cache included" : "", cells_full(use),
			 (unsigned long long)pf.swa_cell_bytes, m->window ? cells_swa(m, use) : 0,
			 cr_kv_type_name(o->type_k), cr_kv_type_name(o->type_v));
	if ((x = term(terms, &n, max, "state", (double)pf.state_bytes, "bytes",
		      "F32 conv + recurrent state per linear-attention layer and sequence (llama.cpp n_embd_r / n_embd_s)")))
		snprintf(x->formula, sizeof(x->formula), "%u layers x %u seq x ((k-1)(v_heads v_dim + 2 k_heads k_dim) + k_dim v_heads v_dim) x 4 B",
			 cr_model_count_layers(m, CR_LAYER_RECURRENT), o->n_seq);
	if ((x = term(terms, &n, max, "compute", (double)p.mem.compute_bytes, "bytes",
		      "max(logits n_vocab x n_ubatch x 4 B + 2 hidden rows (+ the F16 mask: hybrid models, flash attention); attention: KQ+mask n_kv x n_ubatch x (n_head+1) x 4 B (flash attention: F16 mask n_kv x n_ubatch x 2 B) + 6 hidden rows; FFN: mask + (3 n_ff + 4 n_embd) rows), per accelerator (bench/memory-truth)")))
	{
		char extra[128] = "";

		if (p.offload > 0)
			snprintf(extra, sizeof(extra),
				 " + %.0f MiB on GPU 0: a host-resident weight copied for op offload (batches >= 32)",
				 p.offload / MIB);
		if (p.n_gpus >= 2 && !p.gpus[0].layers && !p.gpus[0].output_layer && p.offload > 0) {
			/* No layer on the GPUs: op offload's buffer on the first only (split_gpus). */
			snprintf(x->formula, sizeof(x->formula),
				 "%.1f MiB on GPU 0 only (no layer on the GPUs): op offload's peak, %.1f MiB + a %.0f MiB "
				 "host-resident weight copy (batches >= 32), flash attention %s",
				 (p.compute + p.offload) / MIB, p.compute / MIB, p.offload / MIB, o->flash_attn ? "on" : "off");
		} else if (p.n_gpus >= 2) {
			/* A layer split: per device (split_gpus); --explain lists them. */
			char pipe[64] = "";

			if (p.pipeline)
				snprintf(pipe, sizeof(pipe), " (+ %u copies of its inputs: pipeline parallelism)",
					 CR_SCHED_MAX_COPIES - 1);
			snprintf(x->formula, sizeof(x->formula),
				 "%.1f MiB with the output layer, %.1f MiB without%s, per device of the split%s, flash attention %s",
				 p.compute / MIB, body_peak_of(m, use) / MIB, pipe, extra, o->flash_attn ? "on" : "off");
		}
		else
			snprintf(x->formula, sizeof(x->formula), "%.1f MiB x %u device(s)%s, flash attention %s",
				 p.compute / MIB, t.n_acc ? t.n_acc : 1, extra, o->flash_attn ? "on" : "off");
	}
	if (m->task == CR_TASK_GENERATION &&
	    (x = term(terms, &n, max, "output", (double)p.mem.output_bytes, "bytes",
		      "logits buffer on the host (measured_memory.md 1: 0.49 MiB for 128k vocab)")))
		snprintf(x->formula, sizeof(x->formula), "%u vocab x 4 B x %u seq", m->vocab, o->n_seq);
	if (m->task != CR_TASK_GENERATION &&
	    (x = term(terms, &n, max, "output", (double)p.mem.output_bytes, "bytes",
		      "logits and embeddings of every token of a batch on the host: an embedding context outputs all tokens (llama-context.cpp output_reserve)")))
		snprintf(x->formula, sizeof(x->formula), "(%u vocab + %u n_embd) x 4 B x %.0f batch tokens",
			 m->vocab, m->hidden, (double)p.mem.output_bytes / 4.0 / ((double)m->vocab + m->hidden));
	if (p.mem.mmproj_bytes &&
	    (x = term(terms, &n, max, "mmproj", (double)p.mem.mmproj_bytes, "bytes",
		      "vision projector: mmproj weights + clip's compute buffer on the first GPU (host with --no-mmproj-offload), image input on the host (llama.cpp tools/mtmd/clip.cpp; vision.h)")))
		snprintf(x->formula, sizeof(x->formula), "%.1f MiB on the first accelerator + %.1f MiB in system RAM",
			 (double)o->mmproj_device_bytes / MIB, (double)o->mmproj_host_bytes / MIB);
	if ((x = term(terms, &n, max, "overhead", (double)p.mem.overhead_bytes, "bytes",
		      "512 MiB per discrete GPU: CUDA context and driver reservation (design.md 0.3-0.8 GB; measured_memory.md 3)")))
		snprintf(x->formula, sizeof(x->formula), "%.0f MiB", t.acc_overhead / MIB);
	if ((x = term(terms, &n, max, "total", (double)e->memory.total_bytes, "bytes",
		      "sum of the terms on the rig's tiers")))
		snprintf(x->formula, sizeof(x->formula), "device %.3f GB + host %.3f GB%s; %.1f%% of layers in system RAM",
			 (double)e->memory.device_bytes / 1e9, (double)e->memory.host_bytes / 1e9,
			 t.has_sys ? "" : " (host not counted: discrete GPUs only)", e->offload_fraction * 100);
	if ((x = term(terms, &n, max, "available", (double)e->memory.available_bytes, "bytes",
		      "discrete 100%; unified: macOS GPU wired limit (2/3 of RAM to 36 GiB, 3/4 above), Linux CUDA 79% (DGX Spark), Strix Halo 75% (BIOS/GTT), or the rig's usable_gb; system RAM 90% (clefrun policy)")))
		snprintf(x->formula, sizeof(x->formula), "accelerators %.3f GB + system RAM %.3f GB; headroom wanted %.0f MiB per device",
			 t.acc_usable / 1e9, t.has_sys ? t.sys_cap / 1e9 : 0.0, (double)o->headroom_bytes / MIB);
	/* An embedding or reranking model decodes nothing: no decode term. */
	if (legacy_weights(m, w))
		snprintf(legacy, sizeof(legacy), " (legacy block quant: read at eff x %.3f)", cr_speed.legacy_quant_eff);
	if (m->task == CR_TASK_GENERATION &&
	    (x = term(terms, &n, max, "decode", e->decode_tokens_per_s, "tokens/s",
		      "1 / (bytes read / (eff x bandwidth) + per-layer times: a fixed time per backend and, on GPUs, one falling as 1 / sqrt(bandwidth) + attention FLOPs at depth x phi / FP16 TFLOPS); eff per memory type, backend and vendor, fitted on measured llama.cpp rows (docs/accuracy.md)")))
		snprintf(x->formula, sizeof(x->formula),
			 "weights %.3f GB%s + KV at depth %u; eff %.3f, %.2f ms per-layer time; range %.1f-%.1f",
			 (double)e->weights_read_bytes / 1e9,
			 legacy,
			 e->decode_depth, bw_eff(acc),
			 e->decode_fixed_s * 1e3, e->decode_tokens_per_s_low, e->decode_tokens_per_s_high);
	if ((x = term(terms, &n, max, "prefill", e->prefill_tokens_per_s, "tokens/s",
		      "1 / ((2 x dense + expert FLOPs / s(m) + attention) / (eta x width(hidden) x FP16 TFLOPS) + (weights / ubatch + KV at depth / tokens per KV pass) / bandwidth + per-layer time / ubatch) (docs/accuracy.md)")))
		snprintf(x->formula, sizeof(x->formula),
			 "%.4g active params (%.4g in routed experts); attention over %u + %u/2 tokens; eta %.3f "
			 "(including x %.3f for a hidden size of %u)",
			 (double)m->active_params, active_expert_params(m), e->prefill_depth, e->prompt_tokens,
			 prefill_eff(acc, false, gemm_width(m)), gemm_width(m), m->hidden);
	if ((x = term(terms, &n, max, "time_to_decision", e->time_to_decision_s, "s",
		      "prompt tokens / prefill tokens/s (one forward pass)")))
		snprintf(x->formula, sizeof(x->formula), "%u tokens / %.1f tokens/s", e->prompt_tokens,
			 e->prefill_tokens_per_s);
	return n;
}
