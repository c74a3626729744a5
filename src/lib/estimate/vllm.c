/*
 * The vLLM memory engine (vllm.h). Everything that follows vLLM's code
 * cites the file; the measured quantities (non-torch memory, the two parts
 * of the activation peak, the CUDA graph estimate) are constants taken from
 * public start-up logs, named VLLM_FIT_* and listed in docs/vllm.md with the
 * rows they came from (bench/vllm-logs counts those rows in-sample). Source
 * read: vLLM main of 2026 (gpu_worker.py at commit 35d5cda1,
 * kv_cache_interface.py at 001cabc1, kv_cache_utils.py at bbf906a8,
 * v1/sample/sampler.py at 3e342658), the V1 engine with CUDA graph memory
 * profiling on (the default since v0.21.0, as its start-up log says).
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "clefrun/vllm.h"
#include "util.h"

#define GIB 1073741824.0

/* Non-torch memory growth during the profile run (cuBLAS/cuDNN workspaces;
 * the CUDA context and NCCL come before the start-up snapshot and are not
 * charged, gpu_worker.py init_device at 35d5cda1: "Initialize the
 * distributed environment BEFORE taking memory snapshot"), at TP 1 and with
 * tensor parallelism (the collectives' buffers): the median of the logged
 * values of the V1 engine at each (seven rows at TP 1, 0.13 and 0.14 GiB;
 * two at TP 2, 0.54 and 0.55 GiB; llm-d-benchmark's H100 runs). The V0
 * engine (vllm/worker/worker.py init_device; the V1 worker of early 2025
 * too, gpu_worker.py at 0012cf69) read the free memory before NCCL's
 * initialisation and charged every allocation the profile run left: its
 * logs (0.03 to 1.79 GiB at TP 1, 3.58 at TP 2, 0.43 at TP 4) measure
 * another quantity and are not pooled (bench/vllm-logs fits both eras and
 * prints them). */
#define VLLM_FIT_NON_TORCH_GIB 0.13
#define VLLM_FIT_NON_TORCH_TP_GIB 0.55
/* The profile run (gpu_model_runner.py profile_run) is one forward pass of
 * max_num_batched_tokens tokens, then a dummy sampler run on the last
 * hidden state of min(max_num_seqs, max_num_batched_tokens) requests; the
 * torch peak is the larger of the two, as the forward pass's activations
 * are freed before the sampler runs.
 *
 * Forward: the peak is inside a decoder layer's MLP, where the gate/up
 * projection's output (2 x ffn / TP per token) and its SiluAndMul output
 * (ffn / TP) are alive beside the residual stream, the normed input and
 * the MLP's output (3 x hidden), all in the model's dtype
 * (model_executor/models/llama.py LlamaDecoderLayer, LlamaMLP). For MoE
 * layers the routed experts' intermediate takes the place of the MLP's
 * (experts used x expert width). No fitted constant: the tensor counts are
 * read from that code (the hidden-sized count with vllm#10517's logs at
 * hand, which it reproduces: 2.07 and 2.99 GiB at 20000 and 29000 tokens,
 * Llama-3.1-8B, to 0.01 GiB). */
#define VLLM_FWD_FFN_TENSORS 3.0
#define VLLM_FWD_HIDDEN_TENSORS 3.0
/* Sampler: bytes per vocabulary entry per request. The sampler holds the
 * logits in float32 beside the model-dtype logits, and top-k/top-p sorts
 * them (float32 values and int64 indices), takes a softmax and its cumsum
 * (v1/sample/sampler.py, ops/topk_topp_sampler.py at 3e342658): about 32
 * bytes by that count. The logged peaks where the sampler's run is the
 * larger part give 17.0 to 41.2 bytes (eleven rows of three sources:
 * llm-d-benchmark's H100 runs at 1024 requests, vllm#13882 and vllm#10511
 * at 256; nine of them 38.4 to 39.6); the median of the V1 engine's (eight
 * rows of llm-d-benchmark, 17.0 to 39.6; its gpt-oss-120b run is left out,
 * its logged terms do not add up), as bench/vllm-logs fits it: the
 * V0 sampler (model_executor/layers/sampler.py) is another code path.
 * The logits are gathered whole on every TP rank: not divided by TP. */
#define VLLM_FIT_SAMPLER_BYTES_PER_VOCAB 38.7
/* "Estimated CUDA graph memory": median of eight logged estimates
 * (0.19 to 1.62 GiB; docs/vllm.md). */
#define VLLM_FIT_CUDA_GRAPH_GIB 0.45
/* Above this much memory (and not an A100), vLLM's API server defaults to
 * max_num_batched_tokens 8192 and max_num_seqs 1024, else 2048 and 256
 * (vllm/engine/arg_utils.py _set_default_args). */
#define VLLM_BIG_GPU_GIB 70.0

int cr_vllm_kv_dtype_parse(const char *s, cr_vllm_kv_dtype *out)
{
	if (strcmp(s, "auto") == 0)
		*out = CR_VLLM_KV_AUTO;
	else if (strcmp(s, "fp8") == 0 || strcmp(s, "fp8_e4m3") == 0 || strcmp(s, "fp8_e5m2") == 0)
		*out = CR_VLLM_KV_FP8;
	else if (strcmp(s, "bfloat16") == 0 || strcmp(s, "float16") == 0 || strcmp(s, "half") == 0)
		*out = CR_VLLM_KV_BF16;
	else if (strcmp(s, "float32") == 0)
		*out = CR_VLLM_KV_FP32;
	else
		return CR_ERR_INVALID;
	return CR_OK;
}

static uint64_t cdiv(uint64_t a, uint64_t b)
{
	return (a + b - 1) / b;
}

/* Layer types as vLLM groups them (kv_cache_utils.py: layers whose specs
 * merge form one type). */
enum { T_FULL = 0, T_SLIDING, T_MAMBA, T_COUNT };

typedef struct layout {
	unsigned n[T_COUNT];          /* layers of each type */
	uint64_t per_token[T_COUNT];  /* attention: bytes per token per layer */
	uint64_t mamba_state;         /* bytes of one sequence's state per layer */
	uint32_t block_size;
	uint64_t page;                /* bytes of one block of one layer (unified) */
	uint32_t window;
} layout;

static void make_layout(const cr_model *m, uint32_t tp, unsigned kv_bytes, unsigned model_bytes, layout *l)
{
	memset(l, 0, sizeof(*l));
	l->window = m->window;
	for (uint32_t i = 0; i < m->n_layers && i < CR_MAX_LAYERS; i++) {
		uint64_t kvh = m->kv_heads[i], pt;
		int t;

		if (m->layer_kind[i] == CR_LAYER_RECURRENT) {
			l->n[T_MAMBA]++;
			continue;
		}
		if (kvh == 0)
			continue;
		t = m->layer_kind[i] == CR_LAYER_SLIDING ? T_SLIDING : T_FULL;
		if (m->mla) {
			/* MLAAttentionSpec: one latent of kv_lora_rank + rope per
			 * token, not split by TP (kv_cache_interface.py). */
			pt = ((uint64_t)m->mla_kv_lora_rank + m->mla_rope_dim) * kv_bytes;
		} else {
			/* AttentionSpec: K and V of max(1, kv_heads / tp) heads
			 * (the heads are replicated when tp exceeds them). */
			uint64_t h = kvh / tp ? kvh / tp : 1;

			pt = h * ((uint64_t)m->head_dim_k + m->head_dim_v) * kv_bytes;
		}
		if (pt > l->per_token[t])
			l->per_token[t] = pt;
		l->n[t]++;
	}
	if (l->n[T_MAMBA]) {
		/* Gated DeltaNet state per sequence (vllm/model_executor/layers/
		 * mamba/mamba_utils.py gated_delta_net_state_shape): a conv state
		 * of (2 x key_dim + value_dim) / tp channels x (kernel - 1) and a
		 * recurrent state of v_heads / tp x k_head_dim x v_head_dim. The
		 * conv state is in the model's dtype, the recurrent state in
		 * float32: the page that size gives (2096-token blocks for
		 * Qwen3.6-35B-A3B) reproduces the logged blocks exactly
		 * (club-3090#612 and #652: 299 and 300 blocks, 69 per request). */
		const cr_linear_attn *la = &m->linear;
		uint64_t key = (uint64_t)la->k_heads * la->k_head_dim, val = (uint64_t)la->v_heads * la->v_head_dim;
		uint64_t conv = (2 * key + val) / tp * (la->conv_kernel ? la->conv_kernel - 1 : 0);
		uint64_t ssm = (uint64_t)la->v_heads / tp * la->k_head_dim * la->v_head_dim;

		l->mamba_state = conv * model_bytes + ssm * 4;
	}
	l->block_size = CR_VLLM_BLOCK_SIZE;
	{
		uint64_t att = l->per_token[T_FULL] > l->per_token[T_SLIDING] ? l->per_token[T_FULL]
									   : l->per_token[T_SLIDING];

		if (l->n[T_MAMBA] && att) {
			/* Hybrid attention + Mamba: the attention block grows, in
			 * steps of 16 tokens, until its page holds one sequence's
			 * state; the state's page is padded to it
			 * (vllm/model_executor/models/config.py
			 * HybridAttentionMambaModelConfig). */
			l->block_size = (uint32_t)(CR_VLLM_BLOCK_SIZE *
						   cdiv(l->mamba_state, (uint64_t)CR_VLLM_BLOCK_SIZE * att));
			l->page = l->block_size * att;
		} else {
			l->page = l->block_size * att;
		}
	}
}

/* A layer's max_memory_usage_bytes for one request (kv_cache_interface.py). */
static uint64_t layer_need(const layout *l, int t, uint64_t len, uint64_t mnbt, bool prefix_caching)
{
	switch (t) {
	case T_FULL:
		return cdiv(len, l->block_size) * l->page;
	case T_SLIDING: {
		uint64_t n = (uint64_t)l->window - 1 + mnbt;

		return (cdiv(n < len ? n : len, l->block_size) + 1) * l->page;
	}
	default:
		/* MambaSpec: one state, or two with prefix caching
		 * (mamba_cache_mode "align": the running state and the last
		 * block boundary's). */
		return l->page * (prefix_caching ? 2 : 1);
	}
}

static uint64_t need_bytes(const layout *l, uint64_t len, uint64_t mnbt, bool pc)
{
	uint64_t s = 0;

	for (int t = 0; t < T_COUNT; t++)
		s += l->n[t] * layer_need(l, t, len, mnbt, pc);
	return s;
}

int cr_vllm_estimate(const cr_model *m, uint64_t weights_bytes, const cr_device *gpu, const cr_vllm_opts *opts,
		     cr_vllm_result *out, cr_error *err)
{
	cr_vllm_opts def = CR_VLLM_OPTS_INIT;
	const cr_vllm_opts *o = opts ? opts : &def;
	uint32_t tp = o->tensor_parallel_size ? o->tensor_parallel_size : 1;
	unsigned model_bytes = o->model_dtype_bytes ? o->model_dtype_bytes : 2, kv_bytes;
	bool big;
	layout l;
	double ffn_active, avail;
	unsigned types = 0, min_n = UINT32_MAX, max_n = 0;
	bool pc = !o->no_prefix_caching;

	memset(out, 0, sizeof(*out));
	if (!(o->gpu_memory_utilization > 0.0 && o->gpu_memory_utilization <= 1.0))
		return cr_seterr(err, CR_ERR_RANGE, "--gpu-memory-utilization: %g is not in (0, 1]",
				 o->gpu_memory_utilization);
	if (o->max_model_len > (1u << 24))
		return cr_seterr(err, CR_ERR_RANGE, "--max-model-len: %u is above %u tokens", o->max_model_len,
				 1u << 24);
	if (tp > 64 || m->n_heads % tp != 0)
		return cr_seterr(err, CR_ERR_RANGE,
				 "--tensor-parallel-size: %u does not divide the model's %u attention heads", tp,
				 m->n_heads);
	if (cr_model_kv_layers(m) == 0)
		return cr_seterr(err, CR_ERR_INVALID, "%s: no attention layer to size a KV cache for", m->id);
	switch (o->kv_cache_dtype) {
	case CR_VLLM_KV_FP8:
		kv_bytes = 1;
		break;
	case CR_VLLM_KV_BF16:
		kv_bytes = 2;
		break;
	case CR_VLLM_KV_FP32:
		kv_bytes = 4;
		break;
	default:
		kv_bytes = model_bytes;
	}
	out->tensor_parallel_size = tp;
	out->total_gib = gpu->memory_gib;
	big = gpu->memory_gib >= VLLM_BIG_GPU_GIB && !strstr(gpu->name, "A100");
	out->max_model_len = o->max_model_len ? o->max_model_len : (m->context_max ? m->context_max : 4096);
	out->max_num_seqs = o->max_num_seqs ? o->max_num_seqs : (big ? 1024u : 256u);
	out->max_num_batched_tokens = o->max_num_batched_tokens ? o->max_num_batched_tokens : (big ? 8192u : 2048u);

	/* gpu_worker.py: requested_memory = total x utilisation; available =
	 * requested - (weights + non-torch increase + torch peak increase),
	 * less the CUDA graph estimate. */
	out->requested_gib = gpu->memory_gib * o->gpu_memory_utilization;
	out->weights_gib = (double)weights_bytes / tp / GIB;
	out->non_torch_gib = tp > 1 ? VLLM_FIT_NON_TORCH_TP_GIB : VLLM_FIT_NON_TORCH_GIB;
	ffn_active = m->experts_total ? (double)m->experts_used * m->ffn +
						(double)m->experts_shared *
							(m->experts_shared_ffn ? m->experts_shared_ffn : m->ffn)
				      : (double)m->ffn;
	{
		double reqs = out->max_num_seqs < out->max_num_batched_tokens ? out->max_num_seqs
									  : out->max_num_batched_tokens;

		out->activation_forward_gib = (double)out->max_num_batched_tokens * model_bytes *
					      (VLLM_FWD_FFN_TENSORS * ffn_active / tp +
					       VLLM_FWD_HIDDEN_TENSORS * m->hidden) /
					      GIB;
		out->sampler_bytes_per_vocab = VLLM_FIT_SAMPLER_BYTES_PER_VOCAB;
		out->activation_sampler_gib = VLLM_FIT_SAMPLER_BYTES_PER_VOCAB * (double)m->vocab * reqs / GIB;
		out->activation_gib = out->activation_forward_gib > out->activation_sampler_gib
					      ? out->activation_forward_gib
					      : out->activation_sampler_gib;
	}
	out->cuda_graph_gib = o->enforce_eager ? 0.0 : VLLM_FIT_CUDA_GRAPH_GIB;
	if (o->kv_cache_memory_bytes) {
		out->kv_gib = (double)o->kv_cache_memory_bytes / GIB;
	} else {
		out->kv_gib = out->requested_gib - out->weights_gib - out->non_torch_gib - out->activation_gib -
			      out->cuda_graph_gib;
	}

	make_layout(m, tp, kv_bytes, model_bytes, &l);
	out->block_size = l.block_size;
	out->page_bytes = l.page;
	for (int t = 0; t < T_COUNT; t++) {
		if (!l.n[t])
			continue;
		types++;
		if (l.n[t] < min_n)
			min_n = l.n[t];
		if (l.n[t] > max_n)
			max_n = l.n[t];
	}
	/* kv_cache_utils.py: one type, one group of every layer; several, groups
	 * of min(layers per type) layers (the largest count when it is below
	 * 1.25 x the smallest), padded, each group drawing from one pool. */
	out->group_size = types == 1 ? max_n : (max_n < min_n * 1.25 ? max_n : min_n);
	out->blocks_per_request = 0;
	for (int t = 0; t < T_COUNT; t++) {
		uint64_t groups;

		if (!l.n[t])
			continue;
		groups = cdiv(l.n[t], out->group_size);
		out->n_groups += (unsigned)groups;
		out->blocks_per_request +=
			groups * cdiv(layer_need(&l, t, out->max_model_len, out->max_num_batched_tokens, pc), l.page);
	}
	avail = out->kv_gib * GIB;
	out->num_blocks = avail > 0 ? (uint64_t)(avail / ((double)l.page * out->group_size)) : 0;
	out->max_concurrency = (double)out->num_blocks / (double)out->blocks_per_request;
	out->kv_tokens = (uint64_t)(out->max_concurrency * out->max_model_len);
	out->kv_bytes_per_request = need_bytes(&l, out->max_model_len, out->max_num_batched_tokens, pc);

	/* check_enough_kv_cache_memory: one request of max_model_len must fit,
	 * else vLLM stops and names the estimated maximum model length (a
	 * binary search of the same sum, estimate_max_model_len). */
	out->refuses = avail <= 0 || (double)out->kv_bytes_per_request > avail;
	if (avail > 0) {
		uint64_t lo = 0, hi = out->max_model_len;

		while (lo < hi) {
			uint64_t mid = (lo + hi + 1) / 2;

			if ((double)need_bytes(&l, mid, out->max_num_batched_tokens, pc) <= avail)
				lo = mid;
			else
				hi = mid - 1;
		}
		out->max_model_len_fit = (uint32_t)lo;
	}
	return CR_OK;
}
