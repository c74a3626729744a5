/*
 * Vision projectors on the command line (check, plan): the options
 * (--images, --image-size, --mmproj, --mmproj-type, --no-mmproj-offload),
 * the encoder from the catalog or an mmproj GGUF (clefrun/vision.h), the
 * image tokens added to a request, and the projector's note, JSON object
 * and flags.
 */
#ifndef CLEFRUN_CLI_VISION_OUT_H
#define CLEFRUN_CLI_VISION_OUT_H

#include <stdbool.h>
#include <stdio.h>

#include <cjson/cJSON.h>

#include "cli.h"
#include "source_model.h"

/* What the options say. */
typedef struct cli_vision_cfg {
	unsigned images;
	bool images_given;
	const char *image_size;   /* "WxH" */
	const char *mmproj;       /* SOURCE of an mmproj GGUF */
	const char *mmproj_type;  /* f16, bf16, f32, q8_0 */
	bool no_offload;          /* --no-mmproj-offload */
	bool no_mmproj;           /* --no-mmproj: no projector picked up from an hf: repository */
	bool mmproj_auto;         /* mmproj was picked up from the model's hf: repository */
	char auto_src[CR_HF_REPO_MAX + CR_HF_PATH_MAX + 8]; /* its hf:OWNER/REPO/PATH */
} cli_vision_cfg;

/* The options' spec rows; T is the config type, v its cli_vision_cfg field
 * (offsets as CLI_O_MEMORY_AT composes them: the field's, plus the member's). */
#define CLI_O_VISION_AT(T, v, field) (CLI_OFF_SIZED(T, v, sizeof(cli_vision_cfg)) + offsetof(cli_vision_cfg, field))
#define CLI_O_VISION(T, v)                                                                                   \
	{ .type = CLI_T_UINT, .name = "images", .meta = "N", .off = CLI_O_VISION_AT(T, v, images), .lo = 0,  \
	  .hi = 1024, .seen = CLI_O_VISION_AT(T, v, images_given) + 1,                                       \
	  .help = "images in the prompt: their tokens add to the context and the prompt, and the vision projector (mmproj) is sized (needs a model with a vision tower, or --mmproj)" }, \
	{ .type = CLI_T_STRING, .name = "image-size", .meta = "WxH", .off = CLI_O_VISION_AT(T, v, image_size), \
	  .flags = CLI_F_ONCE,                                                                               \
	  .help = "each image's size in pixels (default 1024x1024), resized as llama.cpp's encoder does" },   \
	{ .type = CLI_T_STRING, .name = "mmproj", .meta = "SOURCE", .off = CLI_O_VISION_AT(T, v, mmproj),    \
	  .flags = CLI_F_ONCE,                                                                               \
	  .help = "the vision projector: an mmproj GGUF path, URL or hf:OWNER/REPO/FILE.gguf (exact tensor bytes; default: the catalog's vision tower)" }, \
	{ .type = CLI_T_STRING, .name = "mmproj-type", .meta = "T", .off = CLI_O_VISION_AT(T, v, mmproj_type), \
	  .flags = CLI_F_ONCE,                                                                               \
	  .help = "type of the catalog tower's mmproj file: f16 (default), bf16, f32 or q8_0" },             \
	{ .type = CLI_T_FLAG, .name = "no-mmproj-offload", .off = CLI_O_VISION_AT(T, v, no_offload),         \
	  .help = "keep the vision projector in system RAM, not on the first GPU (llama.cpp --no-mmproj-offload)" }, \
	{ .type = CLI_T_FLAG, .name = "no-mmproj", .off = CLI_O_VISION_AT(T, v, no_mmproj),                  \
	  .help = "do not pick up the mmproj file an hf:OWNER/REPO[:QUANT] repository ships (llama.cpp --no-mmproj)" }

/* The projector of a run. */
typedef struct cli_vision {
	bool on;                   /* a projector is in play */
	cr_vision_encoder enc;
	cr_vision_request req;
	char from[CR_URL_MAX + 200]; /* where the encoder came from, for the note */
	uint32_t text_ctx;         /* the context before the image tokens (after apply) */
	uint32_t text_prompt;      /* the prompt before them */
	cr_vision_use use;         /* at the last cli_vision_finish */
} cli_vision;

/* The projector for @p m from @p cfg (@p so: how to read --mmproj). A model
 * without a vision tower given a vision option without --mmproj is an error
 * naming the option. @p cmd: "clefrun check". Prints errors; returns 0 or an
 * exit code. */
int cli_vision_setup(const cli_vision_cfg *cfg, const char *cmd, const cr_model *m,
		     const cli_source_opts *so, cli_vision *out);

/* hf:OWNER/REPO[:QUANT] @p model_src without --mmproj or --no-mmproj: the
 * mmproj file its repository ships (F16 first, then BF16, then the first),
 * as llama-server -hf loads it, becomes cfg->mmproj (cfg->mmproj_auto).
 * A listing that fails leaves cfg as it is, silently. */
void cli_vision_hf_auto(cli_vision_cfg *cfg, const char *model_src, const cli_source_opts *so);

/* Add the image tokens to @p req's context (its default first) and prompt.
 * Prints an error (naming --images) and returns EXIT_USAGE when the context
 * would pass the model's maximum; 0 otherwise (nothing to do when off). */
int cli_vision_apply(cli_vision *v, const char *cmd, const cr_model *m, cr_estimate_request *req);

/* Size the projector at @p o's flash attention and put its bytes in @p o. */
void cli_vision_finish(cli_vision *v, cr_estimate_opts *o);

/* One line under a table: what the projector adds and where. */
void cli_vision_note(const cli_vision *v, FILE *f);

/* The JSON "vision" object (NULL when off). */
cJSON *cli_vision_json(const cli_vision *v);

/* The llama.cpp flags of the projector ("--mmproj FILE --no-mmproj-offload"), "" when off. */
void cli_vision_flags(const cli_vision *v, char *buf, size_t cap);

#endif
