/*
 * Vision projectors: weights, compute buffer and image tokens as llama.cpp's
 * mtmd sizes them (include/clefrun/vision.h, docs/methodology.md "Vision
 * projector"). Sources are ggml-org/llama.cpp tools/mtmd/clip.cpp at commit
 * 0024aa7 (function names given, as line numbers move with every commit).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "clefrun/vision.h"

#include "util.h"

static const char *const wtype_names[CR_VISION_WTYPE_COUNT] = { "f16", "bf16", "f32", "q8_0" };

const char *cr_vision_wtype_name(cr_vision_wtype t)
{
	return (unsigned)t < CR_VISION_WTYPE_COUNT ? wtype_names[t] : "?";
}

int cr_vision_wtype_parse(const char *s, cr_vision_wtype *out)
{
	for (unsigned i = 0; s && i < CR_VISION_WTYPE_COUNT; i++)
		if (strcasecmp(s, wtype_names[i]) == 0) {
			*out = (cr_vision_wtype)i;
			return CR_OK;
		}
	return CR_ERR_INVALID;
}

/* clip.cpp's projector names (clip-impl.h PROJECTOR_TYPE_NAMES). */
cr_vision_kind cr_vision_kind_of(const char *p)
{
	if (!p)
		return CR_VISION_NONE;
	if (strcmp(p, "qwen2vl_merger") == 0 || strcmp(p, "qwen2.5vl_merger") == 0 ||
	    strcmp(p, "qwen3vl_merger") == 0)
		return CR_VISION_QWEN_VL;
	if (strcmp(p, "gemma3") == 0)
		return CR_VISION_GEMMA3;
	return CR_VISION_NONE;
}

/* The Qwen-VL tower in two sums: matrix weights (by the input width they
 * are multiplied with, for Q8_0's 32-wide blocks) and the rest. The count
 * is tests/catalog/param_count.py's vision(): a Conv3d patch embedding with
 * bias, learned positions, blocks of two LayerNorms, fused qkv and proj
 * with biases and a two-layer MLP with biases, the merger (LayerNorm and two
 * linears) and Qwen3-VL's deepstack mergers (LayerNorm over the merged width). */
typedef struct tower {
	double mat_h;     /* matrices whose rows are `hidden` wide */
	double mat_f;     /* ... `ffn` wide (the MLP's second linear) */
	double mat_wide;  /* ... hidden × merge² wide (the mergers) */
	double f32;       /* norms, biases, patch embedding, position table */
} tower;

static void count_tower(const cr_model *m, tower *t)
{
	const cr_vision *v = &m->vision;
	double h = v->hidden, f = v->ffn, out = m->hidden;
	double wide = h * v->merge * v->merge;
	double mergers = 1.0 + v->deepstack;

	t->mat_h = v->layers * (3 * h * h + h * h + h * f);
	t->mat_f = v->layers * (f * h);
	t->mat_wide = mergers * (wide * wide + wide * out);
	t->f32 = 3.0 * v->temporal_patch * v->patch * v->patch * h + h /* patch embedding + bias */
		 + (double)v->positions * h                          /* position table */
		 + v->layers * (9 * h + f)                           /* norms and biases */
		 + (2 * h + wide + out)                              /* merger norm, biases */
		 + v->deepstack * (2 * wide + wide + out);           /* deepstack norms, biases */
}

uint64_t cr_vision_params(const cr_model *m)
{
	tower t;

	if (!m || !m->vision.layers)
		return 0;
	count_tower(m, &t);
	return (uint64_t)(t.mat_h + t.mat_f + t.mat_wide + t.f32);
}

/* Bytes per weight of the matrices; Q8_0 is 34 B per 32 (ggml block_q8_0),
 * and a matrix whose rows are no multiple of 32 stays F16, as
 * convert_hf_to_gguf.py falls back for a tensor it cannot quantize. */
static double mat_bytes(cr_vision_wtype t, double n, uint32_t row)
{
	switch (t) {
	case CR_VISION_F32:
		return 4 * n;
	case CR_VISION_Q8_0:
		return row % 32 ? 2 * n : n * 34.0 / 32.0;
	default:
		return 2 * n;
	}
}

int cr_vision_from_model(const cr_model *m, cr_vision_wtype type, cr_vision_encoder *out,
			 cr_error *err)
{
	const cr_vision *v;
	tower t;

	if (!m || !out || (unsigned)type >= CR_VISION_WTYPE_COUNT)
		return cr_seterr(err, CR_ERR_INVALID, "vision: missing model or bad type");
	memset(out, 0, sizeof(*out));
	v = &m->vision;
	if (!v->layers)
		return cr_seterr(err, CR_ERR_NOTFOUND, "model %s has no vision tower in the catalog", m->id);
	count_tower(m, &t);
	out->kind = CR_VISION_QWEN_VL;
	snprintf(out->projector, sizeof(out->projector), "%s",
		 v->deepstack || strncmp(m->arch, "qwen3", 5) == 0 ? "qwen3vl_merger" : "qwen2vl_merger");
	out->layers = v->layers;
	out->hidden = v->hidden;
	out->ffn = v->ffn;
	out->patch = v->patch;
	out->merge = v->merge;
	out->params = (uint64_t)(t.mat_h + t.mat_f + t.mat_wide + t.f32);
	out->weights_bytes = (uint64_t)(mat_bytes(type, t.mat_h, v->hidden) + mat_bytes(type, t.mat_f, v->ffn) +
					mat_bytes(type, t.mat_wide, v->hidden * v->merge * v->merge) +
					4 * t.f32);
	snprintf(out->type, sizeof(out->type), "%s", cr_vision_wtype_name(type));
	for (char *p = out->type; *p; p++)
		if (*p >= 'a' && *p <= 'z')
			*p = (char)(*p - 'a' + 'A');
	return cr_vision_complete(out, err);
}

int cr_vision_complete(cr_vision_encoder *e, cr_error *err)
{
	if (!e)
		return cr_seterr(err, CR_ERR_INVALID, "vision: missing encoder");
	switch (e->kind) {
	case CR_VISION_QWEN_VL:
		if (!e->merge)
			e->merge = 2; /* clip.cpp: "default value for Qwen 2 and 2.5" */
		if (!e->min_tokens)
			e->min_tokens = CR_VISION_QWEN_MIN_TOKENS;
		if (!e->max_tokens)
			e->max_tokens = CR_VISION_QWEN_MAX_TOKENS;
		if (!e->warmup_tokens)
			e->warmup_tokens = CR_VISION_QWEN_WARMUP_TOKENS;
		if (!e->heads)
			e->heads = CR_VISION_QWEN_HEADS;
		break;
	case CR_VISION_GEMMA3:
		if (!e->merge)
			e->merge = CR_VISION_GEMMA3_MERGE;
		if (!e->image_size || !e->patch || e->image_size % (e->patch * e->merge))
			return cr_seterr(err, CR_ERR_INVALID,
					 "vision: a Gemma 3 encoder needs an image size (%u) that is a multiple of patch %u x merge %u",
					 e->image_size, e->patch, e->merge);
		/* clip.cpp load_hparams: warmup_image_size = image_size. */
		e->warmup_tokens = (e->image_size / e->patch / e->merge) * (e->image_size / e->patch / e->merge);
		break;
	default:
		return cr_seterr(err, CR_ERR_UNSUPPORTED, "vision: projector '%s' is not one clefrun sizes",
				 e->projector[0] ? e->projector : "?");
	}
	if (!e->patch || !e->merge || !e->hidden || !e->heads || e->patch > 1024 || e->merge > 64 ||
	    e->min_tokens > e->max_tokens)
		return cr_seterr(err, CR_ERR_INVALID, "vision: incomplete encoder (patch %u, merge %u, width %u, heads %u)",
				 e->patch, e->merge, e->hidden, e->heads);
	return CR_OK;
}

/* clip.cpp img_tool::calc_size_preserved_ratio ("smart_resize"), in the
 * same single-precision steps. */
static void smart_resize(uint32_t width, uint32_t height, uint32_t align, double min_px, double max_px,
			 uint32_t *w_out, uint32_t *h_out)
{
	float f = (float)align;
	int h_bar = (int)(roundf((float)height / f)) * (int)align;
	int w_bar = (int)(roundf((float)width / f)) * (int)align;

	if (h_bar < (int)align)
		h_bar = (int)align;
	if (w_bar < (int)align)
		w_bar = (int)align;
	if ((double)h_bar * w_bar > max_px) {
		float beta = sqrtf((float)((double)height * width / max_px));

		h_bar = (int)floorf((float)height / beta / f) * (int)align;
		w_bar = (int)floorf((float)width / beta / f) * (int)align;
		if (h_bar < (int)align)
			h_bar = (int)align;
		if (w_bar < (int)align)
			w_bar = (int)align;
	} else if ((double)h_bar * w_bar < min_px) {
		float beta = sqrtf((float)(min_px / ((double)height * width)));

		h_bar = (int)ceilf((float)height * beta / f) * (int)align;
		w_bar = (int)ceilf((float)width * beta / f) * (int)align;
	}
	*w_out = (uint32_t)w_bar;
	*h_out = (uint32_t)h_bar;
}

int cr_vision_image_tokens(const cr_vision_encoder *e, uint32_t width, uint32_t height,
			   cr_vision_image *out, cr_error *err)
{
	uint32_t cell;

	if (!e || !out)
		return cr_seterr(err, CR_ERR_INVALID, "vision: missing encoder or output");
	memset(out, 0, sizeof(*out));
	if (!width || !height || width > CR_VISION_MAX_SIDE || height > CR_VISION_MAX_SIDE)
		return cr_seterr(err, CR_ERR_INVALID, "image size %ux%u: each side must be 1 to %u pixels",
				 width, height, CR_VISION_MAX_SIDE);
	if (!e->patch || !e->merge || e->patch > 1024 || e->merge > 64)
		return cr_seterr(err, CR_ERR_INVALID, "vision: incomplete encoder");
	cell = e->patch * e->merge;
	switch (e->kind) {
	case CR_VISION_QWEN_VL:
		/* clip_image_preprocess: min/max pixels are the token limits
		 * times (patch × merge)² (set_limit_image_tokens). */
		smart_resize(width, height, cell, (double)e->min_tokens * cell * cell,
			     (double)e->max_tokens * cell * cell, &out->width, &out->height);
		break;
	case CR_VISION_GEMMA3:
		/* clip_image_preprocess: resized to image_size squared, whatever it was. */
		if (!e->image_size)
			return cr_seterr(err, CR_ERR_INVALID, "vision: incomplete encoder");
		out->width = out->height = e->image_size;
		break;
	default:
		return cr_seterr(err, CR_ERR_UNSUPPORTED, "vision: projector not sized");
	}
	out->patches = (out->width / e->patch) * (out->height / e->patch);
	/* clip_n_output_tokens: Qwen-VL divides each side by patch × 2 (its
	 * merge); Gemma 3 the patches by n_merge². */
	out->tokens = (out->width / cell) * (out->height / cell);
	return CR_OK;
}

/* Bytes of one F32 activation row per patch. */
#define F32_BYTES 4.0

int cr_vision_plan(const cr_vision_encoder *e, const cr_vision_request *req, cr_vision_use *out,
		   cr_error *err)
{
	cr_vision_image img;
	uint64_t warm_patches, tokens;
	double patches, pixels, positions;
	int rc;

	if (!e || !req || !out)
		return cr_seterr(err, CR_ERR_INVALID, "vision: missing encoder, request or output");
	memset(out, 0, sizeof(*out));
	if ((rc = cr_vision_image_tokens(e, req->width, req->height, &img, err)))
		return rc;
	tokens = (uint64_t)req->images * img.tokens;
	if (tokens > INT32_MAX)
		return cr_seterr(err, CR_ERR_RANGE, "%u images of %u tokens are %llu tokens, beyond any context",
				 req->images, img.tokens, (unsigned long long)tokens);
	out->image = img;
	out->images = req->images;
	out->image_tokens = (uint32_t)tokens;
	/* The compute buffer: clip reserves its graph at the warm-up image
	 * (clip_model_loader::warmup, alloc_compute_meta ->
	 * ggml_backend_sched_reserve), and a larger image grows it when encoded
	 * (clip_image_batch_encode -> ggml_backend_sched_alloc_graph; llama.cpp
	 * PR #17695). The buffer is the larger graph's. */
	warm_patches = (uint64_t)e->warmup_tokens * e->merge * e->merge;
	patches = req->images && img.patches > warm_patches ? (double)img.patches : (double)warm_patches;
	out->compute_patches = (uint32_t)patches;
	/* ggml's allocator reuses memory, so the buffer is one peak: the MLP's
	 * intermediate (patches × ffn) beside three hidden-wide rows (residual,
	 * normed input, output) in F32; without flash attention the KQ matrix,
	 * patches² × heads in F32, is materialised too. Logged: Qwen3.6-27B's
	 * mmproj (27 x 1152, ffn 4304) at the 1472 x 1472 warm-up, 8464 patches:
	 * "CUDA0 compute buffer size = 248.10 MiB" with flash attention (this
	 * rule 250.6 MiB, +1.0%), and without it a failed "allocating 4657.81
	 * MiB" (this rule 4623 MiB, -0.7%); docs/methodology.md. */
	out->compute_bytes = (uint64_t)(patches * (e->ffn + 3.0 * e->hidden) * F32_BYTES);
	if (!req->flash_attn)
		out->compute_bytes += (uint64_t)(patches * patches * e->heads * F32_BYTES);
	/* The host side of the graph: the image in F32 (3 channels) and the
	 * positions, int32, four per patch for Qwen's M-RoPE, one otherwise.
	 * Logged beside the 248.10 MiB above: "CPU compute buffer size = 24.93
	 * MiB" = 1472² x 3 x 4 B + 8464 x 4 x 4 B. */
	pixels = patches * e->patch * e->patch;
	positions = e->kind == CR_VISION_QWEN_VL ? 4.0 : 1.0;
	out->input_bytes = (uint64_t)(pixels * 3 * F32_BYTES + patches * positions * 4);
	out->weights_bytes = e->weights_bytes;
	out->offload = req->offload;
	if (req->offload) {
		out->device_bytes = out->weights_bytes + out->compute_bytes;
		out->host_bytes = out->input_bytes;
	} else {
		out->host_bytes = out->weights_bytes + out->compute_bytes + out->input_bytes;
	}
	return CR_OK;
}
