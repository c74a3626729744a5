/**
 * @file vision.h
 * @brief Vision projectors (llama.cpp's mmproj files): their weights, compute
 *        buffer and image tokens, the way llama.cpp's mtmd (tools/mtmd/clip.cpp)
 *        sizes them.
 *
 * A multimodal model runs its image encoder (a ViT and the projector into the
 * text model's width, one GGUF "mmproj" file) beside the text model. Its memory
 * is three terms, each from clip.cpp (ggml-org/llama.cpp @0024aa7,
 * docs/methodology.md "Vision projector"):
 *
 *   weights  = Σ tensor bytes of the mmproj file (exact from its GGUF header;
 *              from the catalog: the tower's parameters at the file's type)
 *   compute  = the graph reserved at the largest image: patches × (ffn + 3 × hidden)
 *              × 4 B with flash attention, + patches² × heads × 4 B without
 *   input    = the image in F32 and its positions, on the host
 *
 * and it sits on the first GPU (clip_ctx: ggml_backend_init_by_type GPU) unless
 * llama.cpp's --no-mmproj-offload keeps it in system RAM. Each image adds its
 * tokens to the context and to the prompt.
 *
 * Pure functions: plain structs in and out, no I/O, no allocation. Byte counts
 * are uint64_t bytes.
 */
#ifndef CLEFRUN_VISION_H
#define CLEFRUN_VISION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "clefrun/catalog.h"
#include "clefrun/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/** How an encoder turns an image into tokens (clip.cpp clip_n_output_tokens). */
typedef enum cr_vision_kind {
	CR_VISION_NONE = 0,
	/** Qwen2-VL, Qwen2.5-VL, Qwen3-VL, Qwen3.5 (projector qwen2vl_merger,
	 *  qwen2.5vl_merger, qwen3vl_merger): the image is resized to a multiple of
	 *  patch × merge within [min_tokens, max_tokens] tokens keeping its aspect
	 *  ratio, and each merge × merge block of patch × patch pixels is a token. */
	CR_VISION_QWEN_VL,
	/** Gemma 3 (projector gemma3): every image is resized to image_size
	 *  squared; (image_size / patch)² patches pooled merge × merge: 256 tokens. */
	CR_VISION_GEMMA3,
	CR_VISION_KIND_COUNT
} cr_vision_kind;

/** Qwen-VL image token limits and warm-up image (clip.cpp load_hparams,
 *  PROJECTOR_TYPE_QWEN2VL/QWEN25VL/QWEN3VL: set_limit_image_tokens(8, 4096),
 *  set_warmup_n_tokens(46*46)). */
#define CR_VISION_QWEN_MIN_TOKENS 8u
#define CR_VISION_QWEN_MAX_TOKENS 4096u
#define CR_VISION_QWEN_WARMUP_TOKENS (46u * 46u)
/** Gemma 3's pooling (clip.cpp: "hparams.n_merge = 4; default value (used by
 *  all model sizes in gemma 3 family)"). */
#define CR_VISION_GEMMA3_MERGE 4u
/** Vision attention heads of the Qwen-VL towers when a source does not say
 *  (config.json vision_config.num_heads: 16 for Qwen2-VL, Qwen2.5-VL,
 *  Qwen3-VL and Qwen3.5). */
#define CR_VISION_QWEN_HEADS 16u

/** The ggml types an mmproj file is published in (--mmproj-type). */
typedef enum cr_vision_wtype {
	CR_VISION_F16 = 0, /**< mmproj-*-f16.gguf, the common file: 2 B per matrix weight */
	CR_VISION_BF16,    /**< 2 B per matrix weight */
	CR_VISION_F32,     /**< 4 B per weight */
	CR_VISION_Q8_0,    /**< 34 B per 32 weights for matrices whose rows are a multiple of 32, F16 others */
	CR_VISION_WTYPE_COUNT
} cr_vision_wtype;

/** An image encoder and its projector. Plain data. */
typedef struct cr_vision_encoder {
	cr_vision_kind kind;
	char projector[CR_ID_MAX];   /**< clip.projector_type ("qwen3vl_merger"), or the catalog's layout */
	uint32_t layers, hidden, ffn, heads; /**< ViT depth, width, MLP width, attention heads */
	uint32_t patch;              /**< patch side, pixels */
	uint32_t merge;              /**< merge × merge patches per token (Gemma 3: the pooling) */
	uint32_t image_size;         /**< Gemma 3: the side every image is resized to; 0 otherwise */
	uint32_t min_tokens, max_tokens; /**< Qwen-VL: the token limits of one image */
	uint32_t warmup_tokens;      /**< tokens of the image the compute buffer is reserved at */
	uint64_t params;             /**< parameters of the tower and projector */
	uint64_t weights_bytes;      /**< bytes of the mmproj file's tensors */
	char type[CR_ID_MAX];        /**< the file's main type ("F16"), for display */
	bool exact;                  /**< weights_bytes are a file's exact tensor bytes */
} cr_vision_encoder;

/** "f16", "bf16", "f32", "q8_0". */
const char *cr_vision_wtype_name(cr_vision_wtype t);
/** Parse a type name (case-insensitive); 0 or CR_ERR_INVALID. */
int cr_vision_wtype_parse(const char *s, cr_vision_wtype *out);

/** The encoder kind of a clip.projector_type value; CR_VISION_NONE for one
 *  clefrun does not size. */
cr_vision_kind cr_vision_kind_of(const char *projector_type);

/** Parameters of @p m's vision tower (the catalog's `vision` object, counted
 *  as tests/catalog/param_count.py does); 0 without one. */
uint64_t cr_vision_params(const cr_model *m);

/**
 * The encoder of catalog model @p m's `vision` tower (Qwen-VL layout), its
 * weights at @p type: matrices at the type, and, as llama.cpp's converter
 * writes them, norms, biases, the patch embedding and the position table in
 * F32 (convert_hf_to_gguf.py; Qwen3.6-27B's mmproj-BF16.gguf: 887.99 MiB, this
 * rule 888.03 MiB).
 * @return 0; CR_ERR_NOTFOUND when @p m has no vision tower; CR_ERR_INVALID
 *   for a NULL argument or a type out of range.
 */
int cr_vision_from_model(const cr_model *m, cr_vision_wtype type, cr_vision_encoder *out,
			 cr_error *err);

/**
 * Fill what @p e's kind implies and its source left 0: the token limits and
 * warm-up image of Qwen-VL, the merge of Gemma 3, the heads of a Qwen-VL tower.
 * @return 0; CR_ERR_UNSUPPORTED for CR_VISION_NONE; CR_ERR_INVALID for a
 *   patch, merge, width or (Gemma 3) image size of 0, or an image size that is
 *   not a multiple of patch × merge.
 */
int cr_vision_complete(cr_vision_encoder *e, cr_error *err);

/** One image as the encoder sees it. */
typedef struct cr_vision_image {
	uint32_t width, height;   /**< after clip's resize, pixels */
	uint32_t patches;         /**< (width / patch) × (height / patch) */
	uint32_t tokens;          /**< tokens it adds to the context */
} cr_vision_image;

/** Largest image side accepted, pixels (a 16k × 16k image is 268 Mpixel). */
#define CR_VISION_MAX_SIDE 16384u

/**
 * What clip does with a @p width × @p height image (clip_image_preprocess,
 * clip_n_output_tokens): Qwen-VL's smart resize (calc_size_preserved_ratio:
 * round each side to a multiple of patch × merge; if the area passes
 * max_tokens × (patch × merge)², scale by √(area ÷ max) and floor; below
 * min_tokens, scale up and ceil), Gemma 3's fixed square.
 * @return 0; CR_ERR_INVALID for a side of 0 or above CR_VISION_MAX_SIDE or an
 *   incomplete encoder (cr_vision_complete first).
 */
int cr_vision_image_tokens(const cr_vision_encoder *e, uint32_t width, uint32_t height,
			   cr_vision_image *out, cr_error *err);

/** The projector in an estimate. Initialise with CR_VISION_REQUEST_INIT. */
typedef struct cr_vision_request {
	uint32_t images;          /**< images in the prompt (--images); 0: the projector only */
	uint32_t width, height;   /**< each image's size (--image-size); default 1024 × 1024 */
	bool offload;             /**< on the first GPU (llama.cpp's default); false: --no-mmproj-offload */
	bool flash_attn;          /**< the encoder's flash attention (clip follows the text model's) */
} cr_vision_request;

/** Default image side for --images without --image-size. */
#define CR_VISION_DEFAULT_SIDE 1024u

#define CR_VISION_REQUEST_INIT \
	{ .images = 0, .width = CR_VISION_DEFAULT_SIDE, .height = CR_VISION_DEFAULT_SIDE, \
	  .offload = true, .flash_attn = true }

/** The projector's memory and tokens (cr_vision_plan). */
typedef struct cr_vision_use {
	cr_vision_image image;        /**< one image */
	uint32_t images;
	uint32_t image_tokens;        /**< images × image.tokens */
	uint32_t compute_patches;     /**< patches of the graph the compute buffer holds:
					   the larger of the warm-up image and the given one */
	uint64_t weights_bytes;       /**< the projector's tensors */
	uint64_t compute_bytes;       /**< its compute buffer (on the backend holding it) */
	uint64_t input_bytes;         /**< the image in F32 and its positions (host) */
	bool offload;                 /**< weights and compute on the first GPU */
	uint64_t device_bytes;        /**< on the first GPU: weights + compute when offloaded, else 0 */
	uint64_t host_bytes;          /**< in system RAM: input, plus weights + compute when not offloaded */
} cr_vision_use;

/**
 * The memory and tokens of @p e for @p req.
 * @return 0; CR_ERR_INVALID as cr_vision_image_tokens; CR_ERR_RANGE when the
 *   image tokens pass 2^31 (images × tokens).
 */
int cr_vision_plan(const cr_vision_encoder *e, const cr_vision_request *req, cr_vision_use *out,
		   cr_error *err);

#ifdef __cplusplus
}
#endif
#endif
