/*
 * The CLI's wording and JSON of estimates (estimate_out.h). One writer, so
 * that check, fit and inspect cannot drift apart: a key added here appears
 * in every command, and docs/schema/common.schema.json describes it once.
 */
#include "estimate_out.h"

#include <math.h>
#include <stdio.h>

void cli_request_error(const cr_estimate_setup *set, const cr_model *m, int status,
		       const cr_error *err)
{
	if (status == CR_ERR_RANGE && set->bad == CR_REQUEST_CTX)
		fprintf(stderr, "clefrun: --ctx %u is above %s's maximum context of %u tokens\n",
			set->bad_value, cli_safe(m->id), set->bad_limit);
	else if (status == CR_ERR_RANGE && set->bad == CR_REQUEST_DEPTH)
		fprintf(stderr, "clefrun: --depth %u is above the context of %u tokens (raise --ctx)\n",
			set->bad_value, set->bad_limit);
	else if (status == CR_ERR_RANGE && set->bad == CR_REQUEST_PROMPT)
		fprintf(stderr,
			"clefrun: --prompt-tokens %u is above the context of %u tokens (raise --ctx)\n",
			set->bad_value, set->bad_limit);
	else
		fprintf(stderr, "clefrun: %s\n", err->message);
}

void cli_json_rate(cJSON *o, const char *key, double v, double scale)
{
	if (v > 0)
		cJSON_AddNumberToObject(o, key, round(v * scale) / scale);
	else
		cJSON_AddNullToObject(o, key);
}

cJSON *cli_json_memory(const cr_memory *mm, bool with_available)
{
	cJSON *o = cJSON_CreateObject();

	if (o)
		cli_json_memory_add(o, mm, with_available);
	return o;
}

void cli_json_memory_add(cJSON *o, const cr_memory *mm, bool with_available)
{
	cJSON_AddNumberToObject(o, "weights_bytes", (double)mm->weights_bytes);
	cJSON_AddNumberToObject(o, "kv_bytes", (double)mm->kv_bytes);
	cJSON_AddNumberToObject(o, "state_bytes", (double)mm->state_bytes);
	cJSON_AddNumberToObject(o, "compute_bytes", (double)mm->compute_bytes);
	cJSON_AddNumberToObject(o, "output_bytes", (double)mm->output_bytes);
	cJSON_AddNumberToObject(o, "overhead_bytes", (double)mm->overhead_bytes);
	cJSON_AddNumberToObject(o, "total_bytes", (double)mm->total_bytes);
	if (with_available)
		cJSON_AddNumberToObject(o, "available_bytes", (double)mm->available_bytes);
	cJSON_AddNumberToObject(o, "device_bytes", (double)mm->device_bytes);
	cJSON_AddNumberToObject(o, "host_bytes", (double)mm->host_bytes);
}

/* The devices of group @p g in a layer split over several GPUs
 * (cr_estimate.gpus), each with its own figures. */
static cJSON *gpus_json(const cr_estimate *e, unsigned g)
{
	cJSON *arr = cJSON_CreateArray();

	for (unsigned i = 0; i < e->n_gpus; i++) {
		const cr_gpu_use *u = &e->gpus[i];
		cJSON *o;

		if (u->group != g)
			continue;
		o = cJSON_CreateObject();
		cJSON_AddNumberToObject(o, "index", i);
		cJSON_AddNumberToObject(o, "split", round(u->split * 1e4) / 1e4);
		cJSON_AddNumberToObject(o, "layers", u->layers);
		cJSON_AddBoolToObject(o, "output_layer", u->output_layer);
		cJSON_AddNumberToObject(o, "weights_bytes", (double)u->weights_bytes);
		cJSON_AddNumberToObject(o, "kv_bytes", (double)u->kv_bytes);
		cJSON_AddNumberToObject(o, "compute_bytes", (double)u->compute_bytes);
		cJSON_AddNumberToObject(o, "other_bytes", (double)u->other_bytes);
		cJSON_AddNumberToObject(o, "reserve_bytes", (double)u->reserve_bytes);
		cJSON_AddNumberToObject(o, "total_bytes", (double)u->total_bytes);
		cJSON_AddNumberToObject(o, "usable_bytes", (double)u->usable_bytes);
		cJSON_AddNumberToObject(o, "margin_bytes", (double)u->margin_bytes);
		cJSON_AddBoolToObject(o, "limiting", i == e->limiting_gpu);
		cJSON_AddItemToArray(arr, o);
	}
	return arr;
}

static cJSON *devices_json(const cr_rig *r, const cr_estimate *e)
{
	cJSON *arr = cJSON_CreateArray();

	for (unsigned g = 0; g < r->n_devices; g++) {
		const cr_device *d = &r->devices[g];
		cJSON *o = cJSON_CreateObject();

		cJSON_AddStringToObject(o, "name", d->name);
		cJSON_AddNumberToObject(o, "count", d->count);
		cJSON_AddStringToObject(o, "kind", cr_mem_kind_name(d->kind));
		cJSON_AddNumberToObject(o, "bytes_per_device", (double)e->devices[g].bytes_per_device);
		cJSON_AddNumberToObject(o, "usable_bytes_per_device", (double)e->devices[g].usable_per_device);
		cJSON_AddNumberToObject(o, "layers_per_device", round(e->devices[g].layers_per_device * 100) / 100);
		if (e->n_gpus >= 2 && d->kind != CR_MEM_SYSTEM)
			cJSON_AddItemToObject(o, "per_device", gpus_json(e, g));
		cJSON_AddItemToArray(arr, o);
	}
	return arr;
}

/* Whether measured rows back the speed figures, and the backend's
 * out-of-sample error (docs/accuracy.md "Confidence"). */
static void add_confidence(cJSON *o, const char *what, const char *note, double error_pct)
{
	char key[32];

	snprintf(key, sizeof(key), "%s_calibrated", what);
	cJSON_AddBoolToObject(o, key, !note[0]);
	snprintf(key, sizeof(key), "%s_extrapolated", what);
	if (note[0])
		cJSON_AddStringToObject(o, key, note);
	else
		cJSON_AddNullToObject(o, key);
	snprintf(key, sizeof(key), "%s_error_pct", what);
	cJSON_AddNumberToObject(o, key, error_pct);
}

void cli_json_estimate(cJSON *o, const cr_rig *rig, const cr_estimate *e, const char *fa_why,
		       cJSON *explain)
{
	cJSON *conf;

	cJSON_AddNumberToObject(o, "context", e->context);
	cJSON_AddItemToObject(o, "memory", cli_json_memory(&e->memory, true));
	cJSON_AddBoolToObject(o, "fits", e->fits);
	if (e->max_context)
		cJSON_AddNumberToObject(o, "max_context", e->max_context);
	else
		cJSON_AddNullToObject(o, "max_context");
	cJSON_AddNumberToObject(o, "offload_fraction", round(e->offload_fraction * 1e4) / 1e4);
	cJSON_AddNumberToObject(o, "gpu_layers", e->gpu_layers);
	cJSON_AddItemToObject(o, "devices", devices_json(rig, e));
	if (e->n_gpus >= 2) {
		/* Only for a layer split over several GPUs: single-device
		 * outputs keep their keys. */
		cJSON *sp = cJSON_AddObjectToObject(o, "split");

		if (sp) {
			cJSON_AddNumberToObject(sp, "devices", e->n_gpus);
			cJSON_AddNumberToObject(sp, "limiting_device", e->limiting_gpu);
			cJSON_AddBoolToObject(sp, "pipeline_parallel", e->pipeline_parallel);
			cJSON_AddNumberToObject(sp, "host_compute_bytes", (double)e->host_compute_bytes);
		}
	}
	cJSON_AddBoolToObject(o, "flash_attn", e->flash_attn);
	cli_json_rate(o, "decode_tokens_per_s", e->decode_tokens_per_s, 100);
	cli_json_rate(o, "decode_tokens_per_s_low", e->decode_tokens_per_s_low, 100);
	cli_json_rate(o, "decode_tokens_per_s_high", e->decode_tokens_per_s_high, 100);
	cJSON_AddNumberToObject(o, "decode_depth", e->decode_depth);
	cli_json_rate(o, "prefill_tokens_per_s", e->prefill_tokens_per_s, 10);
	cli_json_rate(o, "prefill_tokens_per_s_low", e->prefill_tokens_per_s_low, 10);
	cli_json_rate(o, "prefill_tokens_per_s_high", e->prefill_tokens_per_s_high, 10);
	cJSON_AddNumberToObject(o, "prefill_depth", e->prefill_depth);
	cli_json_rate(o, "time_to_decision_s", e->time_to_decision_s, 1e4);
	conf = cJSON_AddObjectToObject(o, "speed_confidence");
	if (conf) {
		add_confidence(conf, "decode", e->decode_note, e->decode_error_pct);
		add_confidence(conf, "prefill", e->prefill_note, e->prefill_error_pct);
	}
	cJSON_AddStringToObject(o, "basis", e->basis);
	cJSON_AddBoolToObject(o, "speed_validated", e->speed_validated);
	cJSON_AddStringToObject(o, "flash_attn_reason", fa_why ? fa_why : "");
	if (explain)
		cJSON_AddItemToObject(o, "explain", explain);
	cJSON_AddNumberToObject(o, "prompt_tokens", e->prompt_tokens);
	cJSON_AddStringToObject(o, "tier", cr_tier_name(e->tier));
}

void cli_estimate_error(const cr_error *err)
{
	fprintf(stderr, "clefrun: %s\n", err->message);
	switch (err->reason) {
	case CR_REASON_PLACEMENT_NEEDS_RAM_TIER:
		fprintf(stderr, "clefrun: (--gpu-layers and --cpu-moe place layers between GPUs and system RAM: "
				"give the rig a RAM tier, e.g. custom:...,ram_gb=64,ram_bw_gbs=89.6)\n");
		break;
	case CR_REASON_NOT_MOE:
		fprintf(stderr, "clefrun: (--cpu-moe keeps a model's expert tensors in system RAM; this model has none)\n");
		break;
	default:
		break;
	}
}
