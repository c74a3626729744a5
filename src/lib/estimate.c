/*
 * The estimator. Pure: no I/O, no allocation, no globals beyond constant
 * tables. Every constant cites its source here and in docs/methodology.md.
 */
#include "clefrun/estimate.h"

#include <math.h>
#include <string.h>

#include "speed_constants.h"
#include "util.h"

#define GIB 1073741824.0
#define MIB 1048576.0

/* llama.cpp rounds the KV cache size up to a multiple of 256 cells
 * (src/llama-context.cpp / llama-kv-cache.cpp; design.md). */
#define KV_PAD 256u

/* Smallest context worth calling a fit: one default micro-batch. */
#define MIN_CTX 512u

/* CUDA/ROCm/Vulkan context, cuBLAS workspace and driver reservation per
 * discrete GPU: design.md gives 0.3-0.8 GB; the one logged case is 770 MiB
 * reserved by the driver on a 6 GiB laptop GPU (calibration/measured_memory.md
 * §3). clefrun charges 512 MiB; unified memory is covered by usable_fraction. */
#define DISCRETE_RUNTIME_BYTES (512.0 * MIB)

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

static const char *const tier_names[CR_TIER_COUNT] = { "fast", "ok", "slow", "tight", "no-fit" };

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

static uint32_t cells_full(const cr_estimate_opts *o)
{
	return (uint32_t)pad_up(o->n_ctx, KV_PAD);
}

/* Sliding-window layers keep min(n_ctx, pad(window × n_seq + n_ubatch, 256))
 * cells (llama.cpp src/llama-kv-cache-iswa.cpp, unless --swa-full). */
static uint32_t cells_swa(const cr_model *m, const cr_estimate_opts *o)
{
	uint64_t swa = pad_up((uint64_t)m->window * o->n_seq + o->n_ubatch, KV_PAD);
	uint32_t full = cells_full(o);

	return swa < full ? (uint32_t)swa : full;
}

/* K and V bytes of one cell of layer i. MLA (DeepSeek-V2/V3) keeps only the
 * compressed latent plus the RoPE key, kv_lora_rank + rope_dim wide, one
 * head, no separate V (llama.cpp deepseek2 with MLA; facts/models_notes.md). */
static uint64_t layer_cell_bytes(const cr_model *m, uint32_t i, const cr_estimate_opts *o)
{
	uint64_t heads = m->kv_heads[i];

	if (m->layer_kind[i] == CR_LAYER_RECURRENT || heads == 0)
		return 0;
	if (m->mla)
		return row_bytes(o->type_k, (uint64_t)m->mla_kv_lora_rank + m->mla_rope_dim);
	return row_bytes(o->type_k, heads * m->head_dim_k) +
	       row_bytes(o->type_v, heads * m->head_dim_v);
}

/* Per-estimate sums over the layers, so that a plan at any context costs
 * O(1): cell bytes of all full-attention and of all sliding layers. */
typedef struct profile {
	uint64_t full_cell_bytes;
	uint64_t swa_cell_bytes;
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
	pf->state_bytes = cr_estimate_state_bytes(m, o);
}

/* KV bytes when every layer holds min(its capacity, tokens) cells. */
static uint64_t kv_bytes_at(const cr_model *m, const profile *pf, const cr_estimate_opts *o,
			    uint64_t tokens)
{
	uint64_t full = cells_full(o), swa = m->window ? cells_swa(m, o) : 0;

	return pf->full_cell_bytes * (tokens < full ? tokens : full) +
	       pf->swa_cell_bytes * (tokens < swa ? tokens : swa);
}

uint64_t cr_estimate_kv_bytes(const cr_model *m, const cr_estimate_opts *o)
{
	profile pf;

	make_profile(m, o, &pf);
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

	return cr_model_count_layers(m, CR_LAYER_RECURRENT) * (conv + ssm) * 4ull * o->n_seq;
}

uint64_t cr_estimate_weights_bytes(const cr_model *m, const cr_quant *q,
				   const cr_estimate_opts *o)
{
	if (o->weights_bytes)
		return o->weights_bytes;
	return (uint64_t)((double)m->params * q->bpw / 8.0);
}

/* Compute buffer of one backend: the larger of the logits of a full
 * micro-batch (n_vocab × n_ubatch × 4 B) and, without flash attention, the
 * materialised KQ matrix (n_ctx × n_ubatch × n_head × 4 B); llama.cpp logs
 * in calibration/measured_memory.md §1, §5, §8 match max(...) within 8-48 MiB. */
static double compute_buffer(const cr_model *m, const profile *pf, const cr_estimate_opts *o)
{
	double logits = (double)m->vocab * o->n_ubatch * 4.0;
	double kq = 0;

	if (!o->flash_attn) {
		uint32_t cells = pf->has_full ? cells_full(o) : cells_swa(m, o);
		kq = (double)cells * o->n_ubatch * m->n_heads * 4.0;
	}
	return logits > kq ? logits : kq;
}

/* Where the bytes go at one context, and what fits. */
typedef struct plan {
	cr_memory mem;
	bool fits;
	double offload;    /* share of layer bytes in system RAM */
	double free_bytes; /* left on the limiting tier */
	double margin;     /* headroom wanted on that tier */
	double layer_bytes;
} plan;

typedef struct tiers {
	double acc_cap;     /* usable accelerator bytes, after runtime overhead */
	double acc_overhead;
	double acc_usable;  /* usable accelerator bytes, before overhead */
	unsigned n_acc;
	bool acc_unified;   /* some accelerator shares memory with the host */
	double sys_cap;     /* usable system RAM bytes */
	bool has_sys;
} tiers;

static void rig_tiers(const cr_rig *r, tiers *t)
{
	memset(t, 0, sizeof(*t));
	for (unsigned g = 0; g < r->n_devices; g++) {
		const cr_device *d = &r->devices[g];
		double usable = d->count * d->memory_gib * GIB * d->usable_fraction;

		if (d->kind == CR_MEM_SYSTEM) {
			t->sys_cap += usable;
			t->has_sys = true;
			continue;
		}
		t->n_acc += d->count;
		t->acc_usable += usable;
		if (d->kind == CR_MEM_DISCRETE)
			t->acc_overhead += d->count * DISCRETE_RUNTIME_BYTES;
		else
			t->acc_unified = true;
	}
	t->acc_cap = t->acc_usable - t->acc_overhead;
}

/* Token-embedding bytes, at the mix's average bits per weight. llama.cpp
 * keeps token_embd in host memory even with every layer offloaded
 * (Llama-3-8B Q4_K_M: "CPU buffer size = 281.81 MiB", measured_memory.md §1). */
static double embedding_bytes(const cr_model *m, double weights)
{
	double emb = (double)m->vocab * m->hidden * (weights * 8.0 / (double)m->params) / 8.0;

	return emb < weights / 2 ? emb : weights / 2;
}

static void make_plan(const cr_model *m, const profile *pf, const cr_estimate_opts *o,
		      double weights, const tiers *t, plan *p)
{
	double emb = embedding_bytes(m, weights);
	double kv = (double)kv_bytes_at(m, pf, o, UINT64_MAX);
	double state = (double)pf->state_bytes;
	double compute = compute_buffer(m, pf, o);
	/* Logits of one output per sequence, host side (0.49 MiB for a 128k vocab). */
	double output = (double)m->vocab * 4.0 * o->n_seq;
	double host_w, dev_w, host_extra, need;

	memset(p, 0, sizeof(*p));
	p->margin = (double)o->headroom_bytes * (t->n_acc ? t->n_acc : 1);
	if (t->n_acc) {
		/* Tied embeddings: llama.cpp loads the matrix twice, once as the
		 * host-side input table and once as the offloaded output layer. */
		host_w = emb;
		dev_w = weights - emb + (m->tied_embeddings ? emb : 0);
	} else {
		host_w = weights;
		dev_w = 0;
	}
	host_extra = host_w + output;
	p->layer_bytes = dev_w + kv + state;
	p->mem.weights_bytes = (uint64_t)(host_w + dev_w);
	p->mem.kv_bytes = (uint64_t)kv;
	p->mem.state_bytes = (uint64_t)state;
	p->mem.output_bytes = (uint64_t)output;

	if (!t->n_acc) {
		/* CPU only: everything in system RAM, one compute buffer. */
		need = weights + kv + state + compute + output;
		p->mem.compute_bytes = (uint64_t)compute;
		p->mem.total_bytes = (uint64_t)need;
		p->mem.host_bytes = (uint64_t)need;
		p->mem.available_bytes = (uint64_t)t->sys_cap;
		p->offload = 1.0;
		p->fits = need <= t->sys_cap;
		p->free_bytes = t->sys_cap - need;
		return;
	}

	p->mem.compute_bytes = (uint64_t)(compute * t->n_acc);
	p->mem.overhead_bytes = (uint64_t)t->acc_overhead;
	/* Unified memory: host-side buffers live in the same memory. */
	need = p->layer_bytes + compute * t->n_acc + (t->acc_unified && !t->has_sys ? host_extra : 0);
	p->mem.device_bytes = (uint64_t)(need + t->acc_overhead);
	p->mem.available_bytes = (uint64_t)t->acc_usable;
	if (need <= t->acc_cap) {
		p->fits = true;
		p->free_bytes = t->acc_cap - need;
	} else if (t->has_sys) {
		/* Partial offload: fill the accelerators up to their margin (as
		 * llama.cpp's auto-fit does), the remaining layers go to RAM. */
		double room = t->acc_cap - p->margin - compute * t->n_acc;
		double spill = p->layer_bytes - (room > 0 ? room : 0);
		double sys_need;

		if (spill > p->layer_bytes)
			spill = p->layer_bytes;
		p->offload = spill / p->layer_bytes;
		sys_need = host_extra + spill;
		p->mem.device_bytes = (uint64_t)(need - spill + t->acc_overhead);
		p->fits = sys_need <= t->sys_cap;
		p->free_bytes = t->sys_cap - sys_need;
		p->margin = (double)o->headroom_bytes;
	} else {
		p->fits = false;
		p->free_bytes = t->acc_cap - need;
	}
	if (t->has_sys || t->acc_unified) {
		p->mem.host_bytes = (uint64_t)(host_extra + p->offload * p->layer_bytes);
		p->mem.total_bytes = p->mem.device_bytes + (t->has_sys ? p->mem.host_bytes : 0);
		if (t->has_sys)
			p->mem.available_bytes += (uint64_t)t->sys_cap;
	} else {
		/* Discrete GPUs only: host RAM is not part of the rig; report the
		 * host-side bytes apart, not in the total compared with VRAM. */
		p->mem.host_bytes = (uint64_t)host_extra;
		p->mem.total_bytes = p->mem.device_bytes;
	}
	if (t->acc_unified && !t->has_sys)
		p->mem.total_bytes = p->mem.device_bytes;
}

static const cr_speed_constants *speed_of(cr_backend b)
{
	return &cr_speed_table[(unsigned)b < CR_BACKEND_COUNT ? b : CR_BACKEND_CPU];
}

/* Decode tokens/s at `depth` cached tokens (design.md "Decode tokens/s"). */
static double decode_tps(const cr_model *m, const profile *pf, const cr_estimate_opts *o,
			 const cr_rig *r,
			 const tiers *t, const plan *p, double weights, uint32_t depth,
			 uint64_t *weights_read)
{
	double active = (double)m->active_params / (double)m->params;
	double emb = embedding_bytes(m, weights);
	/* The embedding lookup reads one row; an untied table is not streamed. */
	double w_read = (weights - (m->tied_embeddings ? 0 : emb)) * active;
	double bytes = w_read + (double)kv_bytes_at(m, pf, o, depth) + (double)pf->state_bytes;
	double acc_time = 0, sys_time = 0, lat = 0;
	bool have_lat = false;

	*weights_read = (uint64_t)w_read;
	for (unsigned g = 0; g < r->n_devices; g++) {
		const cr_device *d = &r->devices[g];
		const cr_speed_constants *k = speed_of(d->backend);
		double bw = d->bandwidth_gbs * 1e9;

		if (d->kind == CR_MEM_SYSTEM) {
			/* One socket's bandwidth: llama.cpp does not scale across
			 * NUMA nodes (facts/rigs_notes.md, dual EPYC). */
			sys_time += p->offload * bytes / (k->decode_eff * bw);
			if (!t->n_acc) {
				lat = k->decode_latency_s;
				have_lat = true;
			}
			continue;
		}
		/* Layer split: each group holds a share in proportion to its
		 * usable memory, and the devices run one after another. */
		double share = d->count * d->memory_gib * GIB * d->usable_fraction / t->acc_usable;

		acc_time += (1.0 - p->offload) * share * bytes / (k->decode_eff * bw);
		if (!have_lat) {
			lat = k->decode_latency_s;
			have_lat = true;
		}
	}
	if (t->n_acc > 1)
		acc_time *= CR_MULTI_GPU_DECODE_FACTOR;
	return 1.0 / (acc_time + sys_time + lat);
}

/* Prefill tokens/s for a prompt of `prompt` tokens (design.md "Prefill"). */
static double prefill_tps(const cr_model *m, const cr_rig *r, const tiers *t, const plan *p,
			  uint32_t prompt)
{
	/* 2 FLOPs per active weight, plus QK^T and AV against on average half
	 * the prompt on every attention layer (sliding layers: the window). */
	double flops = 2.0 * (double)m->active_params;
	double half = prompt / 2.0, time = 0;

	for (uint32_t i = 0; i < m->n_layers && i < CR_MAX_LAYERS; i++) {
		double ctx;

		if (m->layer_kind[i] == CR_LAYER_RECURRENT || !m->kv_heads[i])
			continue;
		ctx = m->layer_kind[i] == CR_LAYER_SLIDING && m->window < half ? m->window : half;
		flops += 2.0 * m->n_heads * (double)(m->head_dim_k + m->head_dim_v) * ctx;
	}
	for (unsigned g = 0; g < r->n_devices; g++) {
		const cr_device *d = &r->devices[g];
		const cr_speed_constants *k = speed_of(d->backend);
		double part;

		if (d->kind == CR_MEM_SYSTEM)
			part = p->offload;
		else
			part = (1.0 - p->offload) * d->count * d->memory_gib * GIB *
			       d->usable_fraction / t->acc_usable;
		if (part <= 0)
			continue;
		if (d->fp16_tflops <= 0)
			return 0; /* unknown: no figure for a device that does work */
		time += part * flops / (k->prefill_eff * d->fp16_tflops * 1e12);
	}
	return time > 0 ? 1.0 / time : 0;
}

static int validate(const cr_model *m, const cr_quant *q, const cr_rig *r,
		    const cr_estimate_opts *o, cr_error *err)
{
	if (!m || !q || !r || !o)
		return cr_seterr(err, CR_ERR_INVALID, "estimate: missing model, quant, rig or options");
	if (!m->params || !m->n_layers || m->n_layers > CR_MAX_LAYERS || !m->vocab || !m->hidden)
		return cr_seterr(err, CR_ERR_INVALID, "model %s: incomplete architecture", m->id);
	if (!r->n_devices || r->n_devices > CR_MAX_DEVICE_GROUPS)
		return cr_seterr(err, CR_ERR_INVALID, "rig %s: no devices", r->id);
	for (unsigned g = 0; g < r->n_devices; g++) {
		const cr_device *d = &r->devices[g];

		if (!d->count || !(d->memory_gib > 0) || !(d->bandwidth_gbs > 0) ||
		    !(d->usable_fraction > 0) || d->usable_fraction > 1)
			return cr_seterr(err, CR_ERR_INVALID, "rig %s: devices[%u]: incomplete figures",
					 r->id, g);
	}
	if (!o->n_ctx || !o->n_seq || !o->n_ubatch)
		return cr_seterr(err, CR_ERR_INVALID, "context, parallel sequences and ubatch must be positive");
	if (o->n_ctx > m->context_max)
		return cr_seterr(err, CR_ERR_RANGE, "context %u is above %s's maximum of %u tokens",
				 o->n_ctx, m->id, m->context_max);
	if ((unsigned)o->type_k >= CR_KV_TYPE_COUNT || (unsigned)o->type_v >= CR_KV_TYPE_COUNT)
		return cr_seterr(err, CR_ERR_INVALID, "unknown KV cache type");
	/* llama.cpp: "quantized V cache requires flash_attn to be enabled". */
	if (o->type_v != CR_KV_F16 && !o->flash_attn)
		return cr_seterr(err, CR_ERR_UNSUPPORTED,
				 "a quantized V cache (%s) needs flash attention; llama.cpp refuses it with flash attention off",
				 cr_kv_type_name(o->type_v));
	return CR_OK;
}

/* Largest context (multiple of 256, ≤ model max) that fits; 0 if none.
 * Memory is non-decreasing in the context, so a bisection finds it. */
static uint32_t solve_max_context(const cr_model *m, const profile *pf,
				  const cr_estimate_opts *o, double weights, const tiers *t)
{
	cr_estimate_opts w = *o;
	uint32_t lo = 0, hi = m->context_max / KV_PAD;
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

int cr_estimate_run(const cr_model *m, const cr_quant *q, const cr_rig *r,
		    const cr_estimate_opts *o, cr_estimate *out, cr_error *err)
{
	cr_estimate_opts at = *o;
	double weights;
	tiers t;
	profile pf;
	plan p, pmin;
	int rc;

	memset(out, 0, sizeof(*out));
	if ((rc = validate(m, q, r, o, err)))
		return rc;
	weights = (double)cr_estimate_weights_bytes(m, q, o);
	rig_tiers(r, &t);
	make_profile(m, o, &pf);
	if (t.n_acc && t.acc_usable <= 0)
		return cr_seterr(err, CR_ERR_INVALID, "rig %s: no usable memory", r->id);

	make_plan(m, &pf, o, weights, &t, &p);
	out->memory = p.mem;
	out->context = o->n_ctx;
	out->kv_cells_full = cells_full(o);
	out->kv_cells_swa = m->window ? cells_swa(m, o) : 0;
	/* Growth per token of context: one cell of every full-attention layer
	 * (sliding layers stop growing at their window). */
	out->kv_bytes_per_token = pf.full_cell_bytes;
	out->fits = p.fits;
	out->max_context = solve_max_context(m, &pf, o, weights, &t);
	out->offload_fraction = p.offload;
	out->free_bytes = p.free_bytes > 0 ? (uint64_t)p.free_bytes : 0;

	at.n_ctx = o->n_ctx < MIN_CTX ? o->n_ctx : MIN_CTX;
	make_plan(m, &pf, &at, weights, &t, &pmin);
	if (!pmin.fits) {
		out->tier = CR_TIER_NOFIT;
		return CR_OK;
	}
	/* Speeds at the requested context, or at the largest that fits. */
	at = *o;
	if (!p.fits) {
		at.n_ctx = out->max_context;
		make_plan(m, &pf, &at, weights, &t, &p);
	}
	out->decode_depth = o->depth ? (o->depth < at.n_ctx ? o->depth : at.n_ctx) : at.n_ctx;
	out->prompt_tokens = o->prompt_tokens ? o->prompt_tokens
					      : (at.n_ctx < 2048 ? at.n_ctx : 2048);
	out->decode_tokens_per_s = decode_tps(m, &pf, &at, r, &t, &p, weights, out->decode_depth,
					      &out->weights_read_bytes);
	out->prefill_tokens_per_s = prefill_tps(m, r, &t, &p, out->prompt_tokens);
	if (out->prefill_tokens_per_s > 0)
		out->time_to_decision_s = out->prompt_tokens / out->prefill_tokens_per_s;

	if (!out->fits || p.free_bytes < p.margin)
		out->tier = CR_TIER_TIGHT;
	else if (out->decode_tokens_per_s >= CR_TIER_FAST_TPS)
		out->tier = CR_TIER_FAST;
	else if (out->decode_tokens_per_s >= CR_TIER_OK_TPS)
		out->tier = CR_TIER_OK;
	else
		out->tier = CR_TIER_SLOW;
	return CR_OK;
}
