/*
 * Vision projectors on the command line (vision_out.h; docs/methodology.md
 * "Vision projector", docs/decisions.md).
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "vision_out.h"

#define MIB (1024.0 * 1024.0)

/* "WxH" with 1..CR_VISION_MAX_SIDE each, nothing else. */
static bool parse_size(const char *s, uint32_t *w, uint32_t *h)
{
	unsigned long v[2];
	const char *p = s;

	for (int i = 0; i < 2; i++) {
		char *end;

		if (*p < '0' || *p > '9')
			return false;
		v[i] = strtoul(p, &end, 10);
		if (end - p > 6 || !v[i] || v[i] > CR_VISION_MAX_SIDE)
			return false;
		p = end;
		if (i == 0 && *p++ != 'x')
			return false;
	}
	if (*p)
		return false;
	*w = (uint32_t)v[0];
	*h = (uint32_t)v[1];
	return true;
}

/* The encoder of an mmproj GGUF source. */
static int from_mmproj(const cli_vision_cfg *cfg, const char *cmd, const cli_source_opts *so0,
		       cli_vision *out)
{
	cli_source_opts so = *so0;
	cr_model_source *ms = NULL;
	cr_gguf_clip clip;
	cr_error err = CR_ERROR_INIT;
	cr_vision_encoder *e = &out->enc;
	int rc;

	if (cr_model_source_classify(cfg->mmproj) == CR_MODEL_SOURCE_CATALOG ||
	    cr_model_source_classify(cfg->mmproj) == CR_MODEL_SOURCE_OLLAMA) {
		fprintf(stderr, "%s: --mmproj '%s': not a GGUF file, URL or hf:OWNER/REPO/FILE.gguf\n", cmd,
			cli_shown(cfg->mmproj));
		return EXIT_USAGE;
	}
	so.no_model = true;
	if ((rc = cli_source_open(cfg->mmproj, &so, &ms)))
		return rc;
	if (cr_gguf_clip_read(ms->parts[0], &clip, &err)) {
		fprintf(stderr, "%s: --mmproj: %s\n", cmd, cli_safe(err.message));
		cr_model_source_free(ms);
		return EXIT_ERROR;
	}
	memset(e, 0, sizeof(*e));
	e->kind = cr_vision_kind_of(clip.projector);
	snprintf(e->projector, sizeof(e->projector), "%s", clip.projector);
	e->layers = clip.layers;
	e->hidden = clip.hidden;
	e->ffn = clip.ffn;
	e->heads = clip.heads;
	e->patch = clip.patch;
	e->merge = clip.merge;
	e->image_size = e->kind == CR_VISION_GEMMA3 ? clip.image_size : 0;
	e->params = clip.params;
	e->weights_bytes = clip.weights_bytes;
	snprintf(e->type, sizeof(e->type), "%s", clip.type);
	e->exact = true;
	snprintf(out->from, sizeof(out->from), "%s%s", cli_shown(ms->location),
		 cfg->mmproj_auto ? ", shipped by the model's repository: picked up as llama-server -hf does (--no-mmproj leaves it out)" : "");
	cr_model_source_free(ms);
	if (cr_vision_complete(e, &err)) {
		fprintf(stderr, "%s: --mmproj %s: %s (clefrun sizes qwen2vl_merger, qwen2.5vl_merger, qwen3vl_merger and gemma3)\n",
			cmd, cli_shown(cfg->mmproj), cli_safe(err.message));
		return EXIT_ERROR;
	}
	return 0;
}

/* 0 for an F16 file, 1 for BF16, 2 for any other. */
static int type_rank(const char *path)
{
	char low[CR_HF_PATH_MAX];
	size_t i;

	for (i = 0; path[i] && i + 1 < sizeof(low); i++)
		low[i] = (char)tolower((unsigned char)path[i]);
	low[i] = '\0';
	if (strstr(low, "bf16"))
		return 1;
	return strstr(low, "f16") ? 0 : 2;
}

void cli_vision_hf_auto(cli_vision_cfg *cfg, const char *model_src, const cli_source_opts *so0)
{
	cli_source_opts so = *so0;
	cr_hf_entry *e = NULL;
	cr_hf_ref ref;
	cr_source_stats st;
	size_t n = 0, best;
	int rank = 3;

	if (cfg->mmproj || cfg->no_mmproj || cr_model_source_classify(model_src) != CR_MODEL_SOURCE_HF ||
	    cr_hf_parse(model_src, &ref, NULL) || ref.kind == CR_HF_FILE)
		return;
	so.quiet = true;
	if (cli_hf_list(model_src, &so, &e, &n, &st))
		return;
	best = n;
	for (size_t i = 0; i < n; i++)
		if (e[i].projector && type_rank(e[i].path) < rank) {
			rank = type_rank(e[i].path);
			best = i;
		}
	if (best < n) {
		snprintf(cfg->auto_src, sizeof(cfg->auto_src), "hf:%s/%s", ref.repo, e[best].path);
		cfg->mmproj = cfg->auto_src;
		cfg->mmproj_auto = true;
	}
	free(e);
}

int cli_vision_setup(const cli_vision_cfg *cfg, const char *cmd, const cr_model *m,
		     const cli_source_opts *so, cli_vision *out)
{
	cr_vision_request init = CR_VISION_REQUEST_INIT;
	cr_vision_wtype type = CR_VISION_F16;
	cr_error err = CR_ERROR_INIT;
	const char *opt = cfg->images_given ? "--images" : cfg->image_size ? "--image-size"
						: cfg->mmproj_type ? "--mmproj-type"
						: cfg->no_offload ? "--no-mmproj-offload" : NULL;
	int rc;

	memset(out, 0, sizeof(*out));
	out->req = init;
	if (cfg->image_size && !parse_size(cfg->image_size, &out->req.width, &out->req.height)) {
		fprintf(stderr, "%s: --image-size '%s': expected WxH, each side 1 to %u pixels (1024x768)\n", cmd,
			cli_shown(cfg->image_size), CR_VISION_MAX_SIDE);
		return EXIT_USAGE;
	}
	if (cfg->mmproj_type && cr_vision_wtype_parse(cfg->mmproj_type, &type)) {
		fprintf(stderr, "%s: --mmproj-type '%s': expected f16, bf16, f32 or q8_0\n", cmd,
			cli_shown(cfg->mmproj_type));
		return EXIT_USAGE;
	}
	if (cfg->mmproj && cfg->mmproj_type) {
		fprintf(stderr, "%s: --mmproj-type does not apply to %s, whose file gives its exact bytes\n", cmd,
			cfg->mmproj_auto ? "the mmproj file of the model's repository (--no-mmproj leaves it out)"
					 : "--mmproj");
		return EXIT_USAGE;
	}
	if (cfg->image_size && !cfg->images_given) {
		fprintf(stderr, "%s: --image-size needs --images N\n", cmd);
		return EXIT_USAGE;
	}
	out->req.images = cfg->images;
	out->req.offload = !cfg->no_offload;
	if (cfg->mmproj) {
		if ((rc = from_mmproj(cfg, cmd, so, out)))
			return rc;
		out->on = true;
		return 0;
	}
	if (!opt)
		return 0;
	if (!m->vision.layers) {
		fprintf(stderr, "%s: %s: model %s has no vision tower in the catalog; give its projector with --mmproj SOURCE\n",
			cmd, opt, cli_safe(m->id));
		return EXIT_USAGE;
	}
	if (cr_vision_from_model(m, type, &out->enc, &err)) {
		fprintf(stderr, "%s: %s: %s\n", cmd, opt, cli_safe(err.message));
		return EXIT_USAGE;
	}
	snprintf(out->from, sizeof(out->from), "the catalog's vision tower, %.2fB params, mmproj type %s",
		 (double)out->enc.params / 1e9, cr_vision_wtype_name(type));
	out->on = true;
	return 0;
}

int cli_vision_apply(cli_vision *v, const char *cmd, const cr_model *m, cr_estimate_request *req)
{
	cr_vision_use use;
	cr_error err = CR_ERROR_INIT;
	uint32_t ctx, prompt;
	uint64_t need;

	if (!v->on)
		return 0;
	if (cr_vision_plan(&v->enc, &v->req, &use, &err)) {
		fprintf(stderr, "%s: --images: %s\n", cmd, cli_safe(err.message));
		return EXIT_USAGE;
	}
	v->use = use;
	ctx = req->n_ctx ? req->n_ctx
			 : (m->context_max && m->context_max < CR_DEFAULT_CTX ? m->context_max : CR_DEFAULT_CTX);
	prompt = req->opts.prompt_tokens ? req->opts.prompt_tokens
					 : (ctx < CR_DEFAULT_PROMPT_TOKENS ? ctx : CR_DEFAULT_PROMPT_TOKENS);
	v->text_ctx = ctx;
	v->text_prompt = prompt;
	if (!use.image_tokens)
		return 0;
	need = (uint64_t)ctx + use.image_tokens;
	if (m->context_max && need > m->context_max) {
		fprintf(stderr, "%s: --images %u: %u image tokens (%u per %ux%u image) and a %u-token text context need %llu tokens, above the model's maximum context %u\n",
			cmd, use.images, use.image_tokens, use.image.tokens, v->req.width, v->req.height, ctx,
			(unsigned long long)need, m->context_max);
		return EXIT_USAGE;
	}
	/* A prompt the user sized for the text stays within its context: the
	 * estimator's own check still holds with the images on both sides. */
	req->n_ctx = (uint32_t)need;
	req->opts.prompt_tokens = prompt + use.image_tokens;
	return 0;
}

void cli_vision_finish(cli_vision *v, cr_estimate_opts *o)
{
	cr_error err = CR_ERROR_INIT;

	if (!v->on)
		return;
	v->req.flash_attn = o->flash_attn;
	if (cr_vision_plan(&v->enc, &v->req, &v->use, &err))
		return; /* cli_vision_apply checked the same request */
	o->mmproj_device_bytes = v->use.device_bytes;
	o->mmproj_host_bytes = v->use.host_bytes;
}

void cli_vision_note(const cli_vision *v, FILE *f)
{
	const cr_vision_use *u = &v->use;

	if (!v->on)
		return;
	fprintf(f, "Vision projector (%s, %s): %.1f MiB weights + %.1f MiB compute %s, %.1f MiB image input in RAM",
		cli_safe(v->enc.projector), cli_safe(v->from), u->weights_bytes / MIB, u->compute_bytes / MIB,
		u->offload ? "on the first GPU" : "in RAM (--no-mmproj-offload)", u->input_bytes / MIB);
	if (u->images)
		fprintf(f, "; %u image%s of %ux%u -> %ux%u, %u tokens each, %u in all: context %u + %u, prompt %u + %u; encoder time not modelled",
			u->images, u->images == 1 ? "" : "s", v->req.width, v->req.height, u->image.width,
			u->image.height, u->image.tokens, u->image_tokens, v->text_ctx, u->image_tokens,
			v->text_prompt, u->image_tokens);
	fprintf(f, ".\n");
}

cJSON *cli_vision_json(const cli_vision *v)
{
	const cr_vision_use *u = &v->use;
	cJSON *o;

	if (!v->on || !(o = cJSON_CreateObject()))
		return NULL;
	cJSON_AddStringToObject(o, "projector", cli_safe(v->enc.projector));
	cJSON_AddStringToObject(o, "from", cli_safe(v->from));
	cJSON_AddBoolToObject(o, "exact", v->enc.exact);
	cJSON_AddStringToObject(o, "type", cli_safe(v->enc.type));
	cJSON_AddNumberToObject(o, "weights_bytes", (double)u->weights_bytes);
	cJSON_AddNumberToObject(o, "compute_bytes", (double)u->compute_bytes);
	cJSON_AddNumberToObject(o, "input_bytes", (double)u->input_bytes);
	cJSON_AddStringToObject(o, "where", u->offload ? "gpu" : "cpu");
	cJSON_AddNumberToObject(o, "images", u->images);
	cJSON_AddNumberToObject(o, "image_width", u->image.width);
	cJSON_AddNumberToObject(o, "image_height", u->image.height);
	cJSON_AddNumberToObject(o, "tokens_per_image", u->image.tokens);
	cJSON_AddNumberToObject(o, "image_tokens", u->image_tokens);
	cJSON_AddNumberToObject(o, "text_context", v->text_ctx);
	cJSON_AddNumberToObject(o, "text_prompt_tokens", v->text_prompt);
	cJSON_AddBoolToObject(o, "encoder_time_modelled", false);
	return o;
}

void cli_vision_flags(const cli_vision *v, char *buf, size_t cap)
{
	if (!cap)
		return;
	buf[0] = '\0';
	if (v->on)
		snprintf(buf, cap, " --mmproj %s%s", v->enc.exact ? v->from : "mmproj.gguf",
			 v->use.offload ? "" : " --no-mmproj-offload");
}
