/*
 * --engine output (engine_out.h). The commands use each front-end's own
 * option and setting names: llama-server's flags (tools/server/README.md),
 * Ollama's Modelfile PARAMETER and environment variables (envconfig/config.go),
 * LM Studio's load settings as its SDK names them (lmstudio-js
 * LLMLoadModelConfig: contextLength, flashAttention,
 * llamaKCacheQuantizationType, llamaVCacheQuantizationType, evalBatchSize).
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "engine_out.h"

/* The --engine values: every engine of CR_ENGINE_LIST. */
#define CLI_ENGINE_NAME_(e, name) { name, CR_ENGINE_##e },
const cli_enum_name cli_engine_names[] = { CR_ENGINE_LIST(CLI_ENGINE_NAME_){ NULL, 0 } };

void cli_engine_env(cr_engine e, cr_engine_env *out)
{
	cr_engine_env none = CR_ENGINE_ENV_INIT;

	*out = none;
	if (e != CR_ENGINE_OLLAMA)
		return;
	out->context_length = getenv("OLLAMA_CONTEXT_LENGTH");
	out->num_parallel = getenv("OLLAMA_NUM_PARALLEL");
	out->flash_attention = getenv("OLLAMA_FLASH_ATTENTION");
	out->kv_cache_type = getenv("OLLAMA_KV_CACHE_TYPE");
	out->gpu_overhead = getenv("OLLAMA_GPU_OVERHEAD");
	/* Ollama treats an empty variable as unset (envconfig.Var). */
	if (out->context_length && !out->context_length[0])
		out->context_length = NULL;
	if (out->num_parallel && !out->num_parallel[0])
		out->num_parallel = NULL;
	if (out->flash_attention && !out->flash_attention[0])
		out->flash_attention = NULL;
	if (out->kv_cache_type && !out->kv_cache_type[0])
		out->kv_cache_type = NULL;
	if (out->gpu_overhead && !out->gpu_overhead[0])
		out->gpu_overhead = NULL;
}

int cli_engine_error(const char *command, int status, const cr_error *err)
{
	fprintf(stderr, "%s: %s\n", command, cli_safe(err->message));
	return status == CR_ERR_NOMEM ? EXIT_ERROR : EXIT_USAGE;
}

/* Is entry i the last of its name (a later one replaced it)? */
static bool last_of_name(const cr_engine_profile *p, size_t i)
{
	for (size_t j = i + 1; j < p->n_defaults; j++)
		if (strcmp(p->defaults[j].name, p->defaults[i].name) == 0)
			return false;
	return true;
}

void cli_engine_summary(const cr_engine_profile *p, char *buf, size_t cap)
{
	size_t len = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < p->n_defaults && len < cap; i++) {
		const cr_engine_default *d = &p->defaults[i];
		int w;

		if (!last_of_name(p, i))
			continue;
		w = snprintf(buf + len, cap - len, "%s%s %s (%s)", len ? ", " : "", d->name, d->value,
			     cr_origin_name(d->origin));
		if (w < 0)
			break;
		len += (size_t)w;
	}
}

void cli_engine_explain(const cr_engine_profile *p, FILE *f)
{
	for (size_t i = 0; i < p->n_defaults; i++) {
		const cr_engine_default *d = &p->defaults[i];

		/* No trailing blanks when there is no reason to give. */
		if (d->why[0])
			fprintf(f, "  %-14s %-12s %-9s %s\n", d->name, d->value, cr_origin_name(d->origin),
				d->why);
		else
			fprintf(f, "  %-14s %-12s %s\n", d->name, d->value, cr_origin_name(d->origin));
		fprintf(f, "  %-14s %-12s %-9s [%s]\n", "", "", "", d->source);
	}
}

cJSON *cli_engine_json(const cr_engine_profile *p)
{
	cJSON *arr = cJSON_CreateArray();

	for (size_t i = 0; arr && i < p->n_defaults; i++) {
		const cr_engine_default *d = &p->defaults[i];
		cJSON *o = cJSON_CreateObject();

		if (!o)
			break;
		cJSON_AddStringToObject(o, "name", d->name);
		cJSON_AddStringToObject(o, "value", d->value);
		cJSON_AddStringToObject(o, "origin", cr_origin_name(d->origin));
		cJSON_AddStringToObject(o, "why", d->why);
		cJSON_AddStringToObject(o, "source", d->source);
		cJSON_AddItemToArray(arr, o);
	}
	return arr;
}

/* Append to @p buf (NUL-terminated, @p cap bytes). */
static void cat(char *buf, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void cat(char *buf, size_t cap, const char *fmt, ...)
{
	size_t len = strlen(buf);
	va_list ap;

	if (len + 1 >= cap)
		return;
	va_start(ap, fmt);
	vsnprintf(buf + len, cap - len, fmt, ap);
	va_end(ap);
}

void cli_engine_command(const cr_engine_profile *p, const cr_estimate_opts *o, bool fa,
			bool gpu_layers_given, const char *model, char *buf, size_t cap)
{
	const char *tk = cr_kv_type_name(o->type_k), *tv = cr_kv_type_name(o->type_v);

	buf[0] = '\0';
	switch (p->engine) {
	case CR_ENGINE_LLAMA_SERVER:
		cat(buf, cap, "llama-server -m %s -c %u -np %u%s -fa %s -ctk %s -ctv %s -ub %u",
		    model ? model : "MODEL.gguf", o->n_ctx, o->n_seq, o->kv_unified ? " -kvu" : "",
		    fa ? "on" : "off", tk, tv, o->n_ubatch);
		if (gpu_layers_given)
			cat(buf, cap, " -ngl %d", o->gpu_layers);
		if (o->cpu_moe)
			cat(buf, cap, " --cpu-moe");
		break;
	case CR_ENGINE_OLLAMA:
		cat(buf, cap, "OLLAMA_NUM_PARALLEL=%u OLLAMA_FLASH_ATTENTION=%s", o->n_seq, fa ? "1" : "0");
		if (o->type_k == o->type_v)
			cat(buf, cap, " OLLAMA_KV_CACHE_TYPE=%s", tk);
		cat(buf, cap, " ollama serve; Modelfile: PARAMETER num_ctx %u",
		    o->n_seq > 1 ? o->n_ctx / o->n_seq : o->n_ctx);
		if (o->n_ubatch != 512)
			cat(buf, cap, ", PARAMETER num_batch %u", o->n_ubatch);
		if (gpu_layers_given)
			cat(buf, cap, ", PARAMETER num_gpu %d", o->gpu_layers);
		if (o->type_k != o->type_v)
			cat(buf, cap, " (Ollama sets K and V to one type: K %s / V %s has no Ollama setting)", tk, tv);
		break;
	case CR_ENGINE_LMSTUDIO:
		cat(buf, cap, "lms load %s --context-length %u; load settings: contextLength %u, flashAttention %s, llamaKCacheQuantizationType %s, llamaVCacheQuantizationType %s, evalBatchSize %u",
		    model ? model : "MODEL", o->n_ctx, o->n_ctx, fa ? "true" : "false", tk, tv, o->n_ubatch);
		if (o->n_seq > 1)
			cat(buf, cap, " (LM Studio's parallel slots are not modelled: %u requested)", o->n_seq);
		break;
	default:
		cat(buf, cap, "llama-cli -m %s -c %u -np %u -fa %s -ctk %s -ctv %s -ub %u",
		    model ? model : "MODEL.gguf", o->n_ctx, o->n_seq, fa ? "on" : "off", tk, tv, o->n_ubatch);
		break;
	}
}
