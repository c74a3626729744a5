/*
 * The catalog loader: three JSON documents (docs/catalog.md) into arrays of
 * plain records. Validation is strict: unknown fields, wrong types, numbers
 * out of range, duplicate ids and dangling references are errors naming the
 * file and JSON path. The built-in catalog does not come through here at
 * run time: its records are generated at build time by this same loader
 * (catalog_builtin.c, src/gen/catalog_gen.c).
 */
#include "clefrun/catalog.h"
#include "clefrun/rig.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog_internal.h"
#include "json_read.h"
#include "util.h"

/* A data file larger than this is refused before parsing: the shipped ones
 * are under 100 KiB, and a runaway file must not exhaust memory. */
#define CR_CATALOG_FILE_MAX (16u << 20)


static const char *const backend_names[CR_BACKEND_COUNT] = {
	"cuda", "metal", "rocm", "vulkan", "cpu"
};
static const char *const mem_kind_names[CR_MEM_KIND_COUNT] = {
	"discrete", "unified", "system"
};

static const char *const mem_type_names[CR_MEMTYPE_COUNT] = { "auto", "hbm", "gddr", "lpddr", "ddr" };
static const char *const vendor_names[CR_VENDOR_COUNT] = { "auto", "nvidia", "amd", "apple", "intel",
							    "other" };
static const char *const task_names[CR_TASK_COUNT] = { "generation", "embedding", "rerank" };

/* names[i] for i < n, else "?". */
static const char *name_of(const char *const *names, unsigned n, unsigned i)
{
	return i < n ? names[i] : "?";
}

/* The index of s among names[first..n), or -1. */
static int index_of(const char *const *names, unsigned n, unsigned first, const char *s)
{
	for (unsigned i = first; s && i < n; i++)
		if (strcmp(s, names[i]) == 0)
			return (int)i;
	return -1;
}

const char *cr_backend_name(cr_backend b)
{
	return name_of(backend_names, CR_BACKEND_COUNT, (unsigned)b);
}

const char *cr_mem_kind_name(cr_mem_kind k)
{
	return name_of(mem_kind_names, CR_MEM_KIND_COUNT, (unsigned)k);
}

const char *cr_mem_type_name(cr_mem_type t)
{
	return name_of(mem_type_names, CR_MEMTYPE_COUNT, (unsigned)t);
}

const char *cr_vendor_name(cr_vendor v)
{
	return name_of(vendor_names, CR_VENDOR_COUNT, (unsigned)v);
}

int cr_backend_parse(const char *s, cr_backend *out)
{
	int i = index_of(backend_names, CR_BACKEND_COUNT, 0, s);

	if (i < 0)
		return CR_ERR_INVALID;
	*out = (cr_backend)i;
	return CR_OK;
}

int cr_mem_kind_parse(const char *s, cr_mem_kind *out)
{
	int i = index_of(mem_kind_names, CR_MEM_KIND_COUNT, 0, s);

	if (i < 0)
		return CR_ERR_INVALID;
	*out = (cr_mem_kind)i;
	return CR_OK;
}

/* "auto" is not a name the catalog may write: it is the absence of the key. */
int cr_mem_type_parse(const char *s, cr_mem_type *out)
{
	int i = index_of(mem_type_names, CR_MEMTYPE_COUNT, 1, s);

	if (i < 0)
		return CR_ERR_INVALID;
	*out = (cr_mem_type)i;
	return CR_OK;
}

int cr_vendor_parse(const char *s, cr_vendor *out)
{
	int i = index_of(vendor_names, CR_VENDOR_COUNT, 1, s);

	if (i < 0)
		return CR_ERR_INVALID;
	*out = (cr_vendor)i;
	return CR_OK;
}

const char *cr_model_task_name(cr_model_task t)
{
	return name_of(task_names, CR_TASK_COUNT, (unsigned)t);
}

int cr_model_task_parse(const char *s, cr_model_task *out)
{
	int i = index_of(task_names, CR_TASK_COUNT, 0, s);

	if (i < 0)
		return CR_ERR_INVALID;
	*out = (cr_model_task)i;
	return CR_OK;
}

cr_mem_type cr_device_mem_type(const cr_device *d)
{
	if (d->mem_type > CR_MEMTYPE_AUTO && d->mem_type < CR_MEMTYPE_COUNT)
		return d->mem_type;
	return d->kind == CR_MEM_DISCRETE ? CR_MEMTYPE_GDDR
	       : d->kind == CR_MEM_UNIFIED ? CR_MEMTYPE_LPDDR : CR_MEMTYPE_DDR;
}

cr_vendor cr_device_vendor(const cr_device *d)
{
	if (d->vendor > CR_VENDOR_AUTO && d->vendor < CR_VENDOR_COUNT)
		return d->vendor;
	switch (d->backend) {
	case CR_BACKEND_CUDA:
		return CR_VENDOR_NVIDIA;
	case CR_BACKEND_ROCM:
		return CR_VENDOR_AMD;
	case CR_BACKEND_METAL:
		return CR_VENDOR_APPLE;
	default:
		return CR_VENDOR_OTHER;
	}
}

/* ---- shared pieces ---------------------------------------------------- */

static int read_sources(jr_ctx *c, const cJSON *obj, char (*dst)[CR_URL_MAX], unsigned *n)
{
	const cJSON *arr, *it;
	size_t i = 0;
	int rc = jr_req_array(c, obj, "sources", &arr);

	if (rc)
		return rc;
	if (cJSON_GetArraySize(arr) < 1)
		return jr_fail(c, CR_ERR_INVALID, "sources", "expected at least one source");
	if (cJSON_GetArraySize(arr) > CR_MAX_SOURCES)
		return jr_fail(c, CR_ERR_INVALID, "sources", "at most %d sources", CR_MAX_SOURCES);
	cJSON_ArrayForEach(it, arr) {
		char key[32];

		snprintf(key, sizeof(key), "sources[%zu]", i);
		rc = jr_as_string(c, it, key, dst[i], CR_URL_MAX);
		if (rc)
			return rc;
		if (!dst[i][0])
			return jr_fail(c, CR_ERR_INVALID, key, "empty source");
		i++;
	}
	*n = (unsigned)i;
	return CR_OK;
}

/* "aliases": names users type for a model. Letters, digits and . _ - : / +
 * only: what Hugging Face repo names and Ollama tags use, and nothing that
 * could carry a terminal escape or a space into a table. */
static int read_aliases(jr_ctx *c, const cJSON *obj, cr_model *m)
{
	const cJSON *arr, *it;
	size_t i = 0;
	int rc;

	if (!cJSON_HasObjectItem(obj, "aliases"))
		return CR_OK;
	if ((rc = jr_req_array(c, obj, "aliases", &arr)))
		return rc;
	if (cJSON_GetArraySize(arr) > CR_MAX_ALIASES)
		return jr_fail(c, CR_ERR_INVALID, "aliases", "at most %d aliases", CR_MAX_ALIASES);
	cJSON_ArrayForEach(it, arr) {
		char key[32];
		char *a = m->aliases[i];

		snprintf(key, sizeof(key), "aliases[%zu]", i);
		if ((rc = jr_as_string(c, it, key, a, CR_ALIAS_MAX)))
			return rc;
		if (!a[0])
			return jr_fail(c, CR_ERR_INVALID, key, "empty alias");
		for (const char *p = a; *p; p++) {
			unsigned char ch = (unsigned char)*p;

			if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
			      (ch >= '0' && ch <= '9') || strchr("._-:/+", ch)))
				return jr_fail(c, CR_ERR_INVALID, key,
					       "unexpected character 0x%02x at %td (letters, digits and . _ - : / + only)",
					       ch, p - a);
		}
		i++;
	}
	m->n_aliases = (unsigned)i;
	return CR_OK;
}

/* Parse the top level: {"schema": expected, "<list_key>": [...]} */
static int read_top(jr_ctx *c, const cJSON *root, const char *schema, const char *list_key,
		    const cJSON **list)
{
	const char *const keys[] = { "schema", list_key, NULL };
	char got[64];
	int rc;

	if (!cJSON_IsObject(root))
		return jr_fail(c, CR_ERR_INVALID, NULL, "expected a JSON object at the top level");
	rc = jr_check_keys(c, root, keys);
	if (!rc)
		rc = jr_req_string(c, root, "schema", got, sizeof(got));
	if (rc)
		return rc;
	if (strcmp(got, schema) != 0)
		return jr_fail(c, CR_ERR_INVALID, "schema", "expected \"%s\", got \"%s\"", schema, got);
	rc = jr_req_array(c, root, list_key, list);
	if (rc)
		return rc;
	if (cJSON_GetArraySize(*list) < 1)
		return jr_fail(c, CR_ERR_INVALID, list_key, "empty list");
	return CR_OK;
}

/* ---- quants --------------------------------------------------------------- */

static int read_quant(jr_ctx *c, const cJSON *o, cr_quant *q)
{
	static const char *const keys[] = { "id", "bpw", "base_type", "description", "source", NULL };
	int rc;

	if (!cJSON_IsObject(o))
		return jr_fail(c, CR_ERR_INVALID, NULL, "expected an object");
	if ((rc = jr_check_keys(c, o, keys)) ||
	    (rc = jr_req_string(c, o, "id", q->id, sizeof(q->id))) ||
	    (rc = jr_check_id(c, "id", q->id, true)) ||
	    (rc = jr_req_number(c, o, "bpw", 1.0, 32.0, &q->bpw)) ||
	    (rc = jr_req_string(c, o, "base_type", q->base_type, sizeof(q->base_type))) ||
	    (rc = jr_req_string(c, o, "description", q->description, sizeof(q->description))) ||
	    (rc = jr_req_string(c, o, "source", q->source, sizeof(q->source))))
		return rc;
	return CR_OK;
}

/* ---- rigs ------------------------------------------------------------- */

/* Default share of a device's memory the runtime may use, by memory kind
 * and, for unified memory, by the platform that sets the GPU's limit
 * (docs/methodology.md "Usable memory"; a rig or spec may override it,
 * usable_fraction / usable_gb=):
 * - discrete: all of it; the CUDA context is charged as overhead instead;
 * - unified, Metal (macOS): the GPU wired limit's default, Metal's
 *   recommendedMaxWorkingSetSize (iogpu.wired_limit_mb = 0): 2/3 of RAM up
 *   to 36 GiB, 3/4 above. Logged: 10922.67 MiB of 16 GiB and 21845.34 MiB of
 *   32 GiB (llama-cpp-python#687, ollama#434), 73728 MiB of 96 GiB
 *   (llama.cpp#3213), 48 GiB of 64 and 144 GiB of 192 (measured_memory.md
 *   §1). The 36 GiB boundary lies between the logged 32 and 64 GiB;
 *   macOS 26 allows more on large Macs (107.52 GiB of 128, antirez/ds4#893),
 *   which rigs state themselves;
 * - unified, CUDA (Linux: DGX Spark, Jetson): what CUDA may allocate, the
 *   RAM Linux has free with the OS and its services up: 0.79, DGX Spark's
 *   101.3-102.2 GiB free of 128 GiB at boot, headless, page cache dropped
 *   (MiaAI-Lab/GLM-5.3-Flash-EXL3-2x-DGX-Sparks#47); Jetson is assumed alike;
 * - unified, ROCm/Vulkan (Strix Halo): the BIOS/driver split: 0.75, the
 *   96 GiB of 128 the largest dedicated (VGM) setting gives; Linux's GTT
 *   default is about half of RAM and ttm.pages_limit raises it (AMD ROCm
 *   "Strix Halo system optimization");
 * - system: 0.9, leaving a tenth of RAM to the OS and other programs
 *   (a clefrun policy, not a measurement). */
double cr_default_usable_fraction(const cr_device *d)
{
	switch (d->kind) {
	case CR_MEM_UNIFIED:
		if (d->backend == CR_BACKEND_METAL)
			return d->memory_gib <= CR_USABLE_METAL_SMALL_MAX_GIB ? CR_USABLE_METAL_SMALL : CR_USABLE_METAL_LARGE;
		if (d->backend == CR_BACKEND_CUDA)
			return CR_USABLE_UNIFIED_CUDA;
		return CR_USABLE_UNIFIED_OTHER;
	case CR_MEM_SYSTEM:
		return CR_USABLE_SYSTEM;
	default:
		return 1.0;
	}
}

static int read_enum(jr_ctx *c, const cJSON *o, const char *key, int (*parse)(const char *, void *),
		     void *out, const char *allowed)
{
	char buf[32];
	int rc = jr_req_string(c, o, key, buf, sizeof(buf));

	if (rc)
		return rc;
	if (parse(buf, out))
		return jr_fail(c, CR_ERR_INVALID, key, "expected one of %s, got \"%s\"", allowed, buf);
	return CR_OK;
}

static int parse_backend_v(const char *s, void *out)
{
	return cr_backend_parse(s, out);
}

static int parse_kind_v(const char *s, void *out)
{
	return cr_mem_kind_parse(s, out);
}

static int parse_mem_type_v(const char *s, void *out)
{
	return cr_mem_type_parse(s, out);
}

static int parse_vendor_v(const char *s, void *out)
{
	return cr_vendor_parse(s, out);
}

static int parse_task_v(const char *s, void *out)
{
	return cr_model_task_parse(s, out);
}

static int read_device(jr_ctx *c, const cJSON *o, cr_device *d)
{
	static const char *const keys[] = { "name", "count", "memory_gib", "bandwidth_gbs",
		"fp16_tflops", "int8_tops", "bf16_tflops", "compute_capability", "backend", "kind", "usable_fraction", "memory", "vendor", NULL };
	uint64_t count;
	int rc;

	if (!cJSON_IsObject(o))
		return jr_fail(c, CR_ERR_INVALID, NULL, "expected an object");
	if ((rc = jr_check_keys(c, o, keys)) ||
	    (rc = jr_req_string(c, o, "name", d->name, sizeof(d->name))) ||
	    /* The bounds of every rig, wherever it comes from (rig.h). */
	    (rc = jr_req_uint(c, o, "count", 1, CR_RIG_DEVICES_MAX, &count)) ||
	    (rc = jr_req_number(c, o, "memory_gib", CR_RIG_MEMORY_GIB_MIN, CR_RIG_MEMORY_GIB_MAX,
				&d->memory_gib)) ||
	    (rc = jr_req_number(c, o, "bandwidth_gbs", CR_RIG_BANDWIDTH_GBS_MIN,
				CR_RIG_BANDWIDTH_GBS_MAX, &d->bandwidth_gbs)) ||
	    (rc = jr_req_number(c, o, "fp16_tflops", 0.0, CR_RIG_TFLOPS_MAX, &d->fp16_tflops)) ||
	    (rc = jr_opt_number(c, o, "int8_tops", 0.0, 4.0 * CR_RIG_TFLOPS_MAX, &d->int8_tops)) ||
	    (rc = jr_opt_number(c, o, "bf16_tflops", 0.0, CR_RIG_TFLOPS_MAX, &d->bf16_tflops)) ||
	    (rc = jr_opt_number(c, o, "compute_capability", 0.0, 99.0, &d->compute_capability)) ||
	    (rc = read_enum(c, o, "backend", parse_backend_v, &d->backend,
			    "cuda, metal, rocm, vulkan, cpu")) ||
	    (rc = read_enum(c, o, "kind", parse_kind_v, &d->kind, "discrete, unified, system")))
		return rc;
	d->count = (uint32_t)count;
	d->usable_fraction = cr_default_usable_fraction(d);
	if (cJSON_HasObjectItem(o, "memory") &&
	    (rc = read_enum(c, o, "memory", parse_mem_type_v, &d->mem_type, "hbm, gddr, lpddr, ddr")))
		return rc;
	if (cJSON_HasObjectItem(o, "vendor") &&
	    (rc = read_enum(c, o, "vendor", parse_vendor_v, &d->vendor,
			    "nvidia, amd, apple, intel, other")))
		return rc;
	return jr_opt_number(c, o, "usable_fraction", CR_RIG_USABLE_FRACTION_MIN, 1.0,
			     &d->usable_fraction);
}

static int read_rig(jr_ctx *c, const cJSON *o, cr_rig *r)
{
	static const char *const keys[] = { "id", "name", "reference", "status", "devices",
		"interconnect_gbs", "seed", "notes", "sources", NULL };
	static const char *const seed_keys[] = { "memory_gb", "bandwidth_gbs", NULL };
	const cJSON *devs, *seed = NULL, *it;
	char status[16];
	size_t saved, i = 0;
	int rc;

	if (!cJSON_IsObject(o))
		return jr_fail(c, CR_ERR_INVALID, NULL, "expected an object");
	if ((rc = jr_check_keys(c, o, keys)) ||
	    (rc = jr_req_string(c, o, "id", r->id, sizeof(r->id))) ||
	    (rc = jr_check_id(c, "id", r->id, false)) ||
	    (rc = jr_req_string(c, o, "name", r->name, sizeof(r->name))) ||
	    (rc = jr_req_bool(c, o, "reference", &r->reference)) ||
	    (rc = jr_req_string(c, o, "status", status, sizeof(status))) ||
	    (rc = jr_opt_number(c, o, "interconnect_gbs", 0.0, 1e6, &r->interconnect_gbs)) ||
	    (rc = jr_opt_string(c, o, "notes", r->notes, sizeof(r->notes))) ||
	    (rc = read_sources(c, o, r->sources, &r->n_sources)) ||
	    (rc = jr_req_array(c, o, "devices", &devs)))
		return rc;
	if (strcmp(status, "released") == 0)
		r->unreleased = false;
	else if (strcmp(status, "unreleased") == 0)
		r->unreleased = true;
	else
		return jr_fail(c, CR_ERR_INVALID, "status",
			       "expected \"released\" or \"unreleased\", got \"%s\"", status);
	if (cJSON_GetArraySize(devs) < 1 || cJSON_GetArraySize(devs) > CR_MAX_DEVICE_GROUPS)
		return jr_fail(c, CR_ERR_INVALID, "devices", "expected 1 to %d device groups",
			       CR_MAX_DEVICE_GROUPS);
	cJSON_ArrayForEach(it, devs) {
		saved = jr_push_key(c, "devices");
		jr_push_index(c, i);
		rc = read_device(c, it, &r->devices[i]);
		jr_pop(c, saved);
		if (rc)
			return rc;
		i++;
	}
	r->n_devices = (unsigned)i;
	if (cJSON_HasObjectItem(o, "seed")) {
		if ((rc = jr_req_object(c, o, "seed", &seed)))
			return rc;
		saved = jr_push_key(c, "seed");
		if (!(rc = jr_check_keys(c, seed, seed_keys)) &&
		    !(rc = jr_req_number(c, seed, "memory_gb", 0.001, 1e6, &r->seed_memory_gb)))
			rc = jr_req_number(c, seed, "bandwidth_gbs", 0.001, 1e7,
					   &r->seed_bandwidth_gbs);
		jr_pop(c, saved);
		if (rc)
			return rc;
	}
	return CR_OK;
}

int cr_catalog_read_rig(jr_ctx *c, const cJSON *o, cr_rig *r)
{
	memset(r, 0, sizeof(*r));
	return read_rig(c, o, r);
}

/* ---- models ------------------------------------------------------------ */

/* The object @p key of @p o: its first nreq keys required, the rest up to n
 * optional (0 when absent), each an integer from lo[i] to hi. */
static int read_sub_uints(jr_ctx *c, const cJSON *o, const char *key, const char *const *keys,
			  const uint64_t *lo, uint64_t hi, uint64_t *v, int nreq, int n)
{
	const cJSON *sub;
	size_t saved;
	int rc = jr_req_object(c, o, key, &sub);

	if (rc)
		return rc;
	saved = jr_push_key(c, key);
	rc = jr_check_keys(c, sub, keys);
	for (int i = 0; !rc && i < n; i++) {
		v[i] = 0;
		rc = i < nreq ? jr_req_uint(c, sub, keys[i], lo[i], hi, &v[i])
			      : jr_opt_uint(c, sub, keys[i], lo[i], hi, &v[i]);
	}
	jr_pop(c, saved);
	return rc;
}

/* Lower bounds of the five dims of linear_attention and mamba: all at least 1. */
static const uint64_t dims_lo[] = { 1, 1, 1, 1, 1 };

static int read_linear(jr_ctx *c, const cJSON *o, cr_model *m)
{
	static const char *const keys[] = { "k_heads", "k_head_dim", "v_heads", "v_head_dim",
		"conv_kernel", NULL };
	uint64_t v[5];
	int rc = read_sub_uints(c, o, "linear_attention", keys, dims_lo, 65536, v, 5, 5);

	if (rc)
		return rc;
	m->linear.k_heads = (uint32_t)v[0];
	m->linear.k_head_dim = (uint32_t)v[1];
	m->linear.v_heads = (uint32_t)v[2];
	m->linear.v_head_dim = (uint32_t)v[3];
	m->linear.conv_kernel = (uint32_t)v[4];
	return CR_OK;
}

/* "mamba": the Mamba-2 mixer of the M layers, as its config names it
 * (docs/catalog.md), kept in m->linear the way llama.cpp's GGUF keys map it:
 * k_heads = n_groups (ssm.group_count), k_head_dim = d_state
 * (ssm.state_size), v_heads = heads (ssm.time_step_rank), v_head_dim =
 * head_dim, so d_inner (ssm.inner_size) = heads x head_dim. */
static int read_mamba(jr_ctx *c, const cJSON *o, cr_model *m)
{
	static const char *const keys[] = { "d_state", "n_groups", "heads", "head_dim",
		"conv_kernel", NULL };
	uint64_t v[5];
	size_t saved;
	int rc = read_sub_uints(c, o, "mamba", keys, dims_lo, 65536, v, 5, 5);

	if (rc)
		return rc;
	/* B and C are shared by the heads of a group (Mamba-2). */
	if (v[2] % v[1]) {
		saved = jr_push_key(c, "mamba");
		rc = jr_fail(c, CR_ERR_INVALID, "n_groups", "%llu groups do not divide %llu heads",
			     (unsigned long long)v[1], (unsigned long long)v[2]);
		jr_pop(c, saved);
		return rc;
	}
	m->mamba = true;
	m->linear.k_heads = (uint32_t)v[1];
	m->linear.k_head_dim = (uint32_t)v[0];
	m->linear.v_heads = (uint32_t)v[2];
	m->linear.v_head_dim = (uint32_t)v[3];
	m->linear.conv_kernel = (uint32_t)v[4];
	return CR_OK;
}

static int read_kv_heads(jr_ctx *c, const cJSON *o, cr_model *m)
{
	const cJSON *kv = cJSON_GetObjectItemCaseSensitive(o, "kv_heads");
	uint64_t v;
	int rc;

	if (!kv)
		return jr_fail(c, CR_ERR_INVALID, "kv_heads", "missing field (expected an integer or an array)");
	if (cJSON_IsArray(kv)) {
		const cJSON *it;
		size_t i = 0;

		if ((size_t)cJSON_GetArraySize(kv) != m->n_layers)
			return jr_fail(c, CR_ERR_INVALID, "kv_heads",
				       "expected %u values (one per layer), got %d", m->n_layers,
				       cJSON_GetArraySize(kv));
		cJSON_ArrayForEach(it, kv) {
			char key[32];

			snprintf(key, sizeof(key), "kv_heads[%zu]", i);
			if ((rc = jr_as_uint(c, it, key, 0, m->n_heads, &v)))
				return rc;
			m->kv_heads[i++] = (uint16_t)v;
		}
		return CR_OK;
	}
	if ((rc = jr_as_uint(c, kv, "kv_heads", 0, m->n_heads, &v)))
		return rc;
	for (uint32_t i = 0; i < m->n_layers; i++)
		m->kv_heads[i] = (uint16_t)v;
	return CR_OK;
}

/* "native_quant": {"type", "bpw", "tensors", "source"}: weights that ship
 * quantized (docs/catalog.md). Only routed experts for now ("tensors":
 * "experts", gpt-oss's MXFP4), so the model must be a mixture of experts. */
static int read_native_quant(jr_ctx *c, const cJSON *o, cr_model *m)
{
	static const char *const keys[] = { "type", "bpw", "tensors", "source", NULL };
	const cJSON *sub;
	char tensors[16];
	size_t saved;
	int rc = jr_req_object(c, o, "native_quant", &sub);

	if (rc)
		return rc;
	saved = jr_push_key(c, "native_quant");
	if (!(rc = jr_check_keys(c, sub, keys)) &&
	    !(rc = jr_req_string(c, sub, "type", m->native_type, sizeof(m->native_type))) &&
	    !(rc = jr_check_id(c, "type", m->native_type, true)) &&
	    !(rc = jr_req_number(c, sub, "bpw", 1.0, 16.0, &m->native_bpw)) &&
	    !(rc = jr_req_string(c, sub, "tensors", tensors, sizeof(tensors))) &&
	    !(rc = jr_req_string(c, sub, "source", m->native_source, sizeof(m->native_source)))) {
		if (strcmp(tensors, "experts") != 0)
			rc = jr_fail(c, CR_ERR_INVALID, "tensors", "expected \"experts\", got \"%s\"",
				     tensors);
		else if (!m->experts_total || m->experts_used >= m->experts_total)
			rc = jr_fail(c, CR_ERR_INVALID, "tensors",
				     "\"experts\" needs a mixture-of-experts model (experts.total above experts.used)");
		else if (!m->native_source[0])
			rc = jr_fail(c, CR_ERR_INVALID, "source", "empty source");
	}
	jr_pop(c, saved);
	if (rc) {
		m->native_type[0] = '\0';
		m->native_bpw = 0;
	}
	return rc;
}

/* The KV of MTP layers in llama.cpp v0.4.0's main context. GLM-4.5's
 * converter keeps the NextN block (conversion/glm.py:120-121, Glm4MoeModel;
 * so does Glm4MoeLiteModel for GLM-4.7-Flash, deepseek2, glm.py:262-268) and
 * the generic llama_kv_cache gives every one of the file's n_layer_all layers
 * a cache (src/llama-kv-cache.cpp:102-175: no filter for glm4moe or deepseek2,
 * src/llama-model.cpp create_memory's default branch), read by no graph of
 * the trunk. DeepSeek-V3's converter drops the layer (conversion/deepseek.py:
 * 240 skip_mtp = True, 398-399), and the hybrid Qwen3.5 / Qwen3-Next caches
 * filter it out (llama-model.cpp:2487-2493, il < n_layer()). */
static uint32_t mtp_kv_layers(const cr_model *m)
{
	if (strcmp(m->arch, "glm4moe") == 0)
		return m->mtp_layers;
	if (strcmp(m->arch, "deepseek2") == 0 && strcmp(m->family, "glm") == 0)
		return m->mtp_layers;
	return 0;
}

/* mtp_layers (0-16) and, when it is not 0, the mtp_source it was read from. */
static int read_mtp(jr_ctx *c, const cJSON *o, cr_model *m)
{
	uint64_t n = 0;
	int rc;

	if ((rc = jr_opt_uint(c, o, "mtp_layers", 0, 16, &n)) ||
	    (rc = jr_opt_string(c, o, "mtp_source", m->mtp_source, sizeof(m->mtp_source))))
		return rc;
	if (n && !m->mtp_source[0])
		return jr_fail(c, CR_ERR_INVALID, "mtp_source", "missing field (mtp_layers is %u)", (unsigned)n);
	if (!n && m->mtp_source[0])
		return jr_fail(c, CR_ERR_INVALID, "mtp_source", "given, but mtp_layers is 0 or missing");
	if (n && strncmp(m->mtp_source, "https://", 8) != 0)
		return jr_fail(c, CR_ERR_INVALID, "mtp_source", "not an https URL");
	m->mtp_layers = (uint32_t)n;
	m->mtp_kv_layers = mtp_kv_layers(m);
	return CR_OK;
}

static int read_model(jr_ctx *c, const cJSON *o, cr_model *m)
{
	static const char *const keys[] = { "id", "name", "family", "developer", "license",
		"released", "backbone", "arch", "params", "active_params", "context_max", "vocab",
		"layers", "hidden", "ffn", "heads", "kv_heads", "head_dim_k", "head_dim_v",
		"layer_pattern", "window", "linear_attention", "mamba", "mixer_ffn", "mla", "experts",
		"tied_embeddings", "task", "native_quant", "vision", "aliases", "sources", "notes", "mtp_layers",
		"mtp_source", NULL };
	static const char *const mla_keys[] = { "kv_lora_rank", "rope_dim", "q_lora_rank", NULL };
	static const char *const moe_keys[] = { "total", "used", "shared", "dense_layers",
		"dense_ffn", "shared_ffn", "every", NULL };
	static const char *const vis_keys[] = { "layers", "hidden", "ffn", "patch",
		"temporal_patch", "positions", "merge", "deepstack", NULL };
	static const uint64_t mla_lo[] = { 1, 0, 1 }, moe_lo[] = { 1, 1, 0, 1, 1, 1, 2 },
		vis_lo[] = { 1, 1, 1, 1, 1, 1, 1, 1 };
	char pattern[CR_MAX_LAYERS + 1] = "F";
	uint64_t v[8], win = 0;
	bool has_swa = false, has_rec = false, has_mamba = false, has_ffn_only = false, mixer_ffn = true;
	size_t plen;
	int rc;

	if (!cJSON_IsObject(o))
		return jr_fail(c, CR_ERR_INVALID, NULL, "expected an object");
	if ((rc = jr_check_keys(c, o, keys)) ||
	    (rc = jr_req_string(c, o, "id", m->id, sizeof(m->id))) ||
	    (rc = jr_check_id(c, "id", m->id, false)) ||
	    (rc = jr_req_string(c, o, "name", m->name, sizeof(m->name))) ||
	    (rc = jr_req_string(c, o, "family", m->family, sizeof(m->family))) ||
	    (rc = jr_req_string(c, o, "developer", m->developer, sizeof(m->developer))) ||
	    (rc = jr_req_string(c, o, "license", m->license, sizeof(m->license))) ||
	    (rc = jr_req_string(c, o, "released", m->released, sizeof(m->released))) ||
	    (rc = jr_opt_string(c, o, "backbone", m->backbone, sizeof(m->backbone))) ||
	    (rc = jr_req_string(c, o, "arch", m->arch, sizeof(m->arch))) ||
	    (rc = jr_req_uint(c, o, "params", 1000, 100000000000000ull, &v[0])) ||
	    (rc = jr_req_uint(c, o, "active_params", 1000, v[0], &v[1])) ||
	    (rc = jr_req_uint(c, o, "context_max", 1, 1u << 30, &v[2])) ||
	    (rc = jr_req_uint(c, o, "vocab", 1, 1u << 24, &v[3])) ||
	    (rc = jr_req_uint(c, o, "layers", 1, CR_MAX_LAYERS, &v[4])) ||
	    (rc = jr_req_uint(c, o, "hidden", 1, 1u << 20, &v[5])) ||
	    (rc = jr_req_uint(c, o, "ffn", 0, 1u << 22, &v[6])) ||
	    (rc = jr_req_uint(c, o, "heads", 1, 65535, &v[7])))
		return rc;
	m->params = v[0];
	m->active_params = v[1];
	m->context_max = (uint32_t)v[2];
	m->vocab = (uint32_t)v[3];
	m->n_layers = (uint32_t)v[4];
	m->hidden = (uint32_t)v[5];
	m->ffn = (uint32_t)v[6];
	m->n_heads = (uint32_t)v[7];
	if ((double)m->vocab * m->hidden > (double)m->params)
		return jr_fail(c, CR_ERR_INVALID, "vocab",
			       "%u x hidden %u puts %.0f parameters in the token table, more than params (%llu)",
			       m->vocab, m->hidden, (double)m->vocab * m->hidden, (unsigned long long)m->params);
	if ((rc = read_kv_heads(c, o, m)) ||
	    (rc = jr_req_uint(c, o, "head_dim_k", 1, 65536, &v[0])) ||
	    (rc = jr_req_uint(c, o, "head_dim_v", 1, 65536, &v[1])) ||
	    (rc = jr_req_bool(c, o, "tied_embeddings", &m->tied_embeddings)) ||
	    (rc = jr_opt_string(c, o, "layer_pattern", pattern, sizeof(pattern))) ||
	    (rc = jr_opt_uint(c, o, "window", 1, 1u << 30, &win)) ||
	    (cJSON_HasObjectItem(o, "mixer_ffn") && (rc = jr_req_bool(c, o, "mixer_ffn", &mixer_ffn))) ||
	    (rc = read_sources(c, o, m->sources, &m->n_sources)) ||
	    (rc = read_aliases(c, o, m)) ||
	    (rc = jr_opt_string(c, o, "notes", m->notes, sizeof(m->notes))) ||
	    (cJSON_HasObjectItem(o, "task") &&
	     (rc = read_enum(c, o, "task", parse_task_v, &m->task, "generation, embedding, rerank"))))
		return rc;
	m->head_dim_k = (uint32_t)v[0];
	m->head_dim_v = (uint32_t)v[1];
	if ((rc = read_mtp(c, o, m)))
		return rc;

	plen = strlen(pattern);
	if (plen == 0)
		return jr_fail(c, CR_ERR_INVALID, "layer_pattern", "empty pattern");
	for (size_t i = 0; i < plen; i++) {
		if (pattern[i] == 'S')
			has_swa = true;
		else if (pattern[i] == 'L')
			has_rec = true;
		else if (pattern[i] == 'M')
			has_mamba = true;
		else if (pattern[i] != 'F' && pattern[i] != '-')
			return jr_fail(c, CR_ERR_INVALID, "layer_pattern",
				       "unexpected '%c' at %zu (expected F, S, L, M or -)", pattern[i], i);
	}
	/* One recurrent-state shape per model (m->linear). */
	if (has_rec && has_mamba)
		return jr_fail(c, CR_ERR_INVALID, "layer_pattern",
			       "both L and M layers (a model has one kind of recurrent layer)");
	for (uint32_t i = 0; i < m->n_layers; i++) {
		char k = pattern[i % plen];

		has_ffn_only |= k == '-';
		m->layer_kind[i] = k == 'S' ? CR_LAYER_SLIDING : k == 'L' || k == 'M' ? CR_LAYER_RECURRENT
										   : CR_LAYER_FULL;
		m->layer_parts[i] = k == '-' ? CR_LAYER_NO_MIXER : mixer_ffn ? 0 : CR_LAYER_NO_FFN;
		/* Mamba and FFN-only layers keep no KV: a per-layer array must
		 * say 0 there (an integer applies to the attention layers). */
		if (k == 'M' || k == '-') {
			if (m->kv_heads[i] && cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(o, "kv_heads"))) {
				char key[32];

				snprintf(key, sizeof(key), "kv_heads[%u]", (unsigned)i);
				return jr_fail(c, CR_ERR_INVALID, key,
					       "%u on a layer without attention (layer_pattern '%c'); expected 0",
					       (unsigned)m->kv_heads[i], k);
			}
			m->kv_heads[i] = 0;
		}
	}
	if (!mixer_ffn && !has_ffn_only)
		return jr_fail(c, CR_ERR_INVALID, "mixer_ffn",
			       "false, but layer_pattern has no '-' (FFN-only) layers: no layer would have an FFN");
	if (has_swa && !win)
		return jr_fail(c, CR_ERR_INVALID, "window",
			       "missing field (layer_pattern has sliding layers)");
	if (!has_swa && win)
		return jr_fail(c, CR_ERR_INVALID, "window",
			       "given, but layer_pattern has no sliding layers");
	m->window = (uint32_t)win;
	if (has_rec) {
		if ((rc = read_linear(c, o, m)))
			return rc;
	} else if (cJSON_HasObjectItem(o, "linear_attention")) {
		return jr_fail(c, CR_ERR_INVALID, "linear_attention",
			       "given, but layer_pattern has no linear-attention layers");
	}
	if (has_mamba) {
		if ((rc = read_mamba(c, o, m)))
			return rc;
	} else if (cJSON_HasObjectItem(o, "mamba")) {
		return jr_fail(c, CR_ERR_INVALID, "mamba", "given, but layer_pattern has no Mamba-2 (M) layers");
	}
	if (cJSON_HasObjectItem(o, "mla")) {
		if ((rc = read_sub_uints(c, o, "mla", mla_keys, mla_lo, 1u << 20, v, 2, 3)))
			return rc;
		m->mla = true;
		m->mla_kv_lora_rank = (uint32_t)v[0];
		m->mla_rope_dim = (uint32_t)v[1];
		m->mla_q_lora_rank = (uint32_t)v[2];
	}
	if (cJSON_HasObjectItem(o, "experts")) {
		if ((rc = read_sub_uints(c, o, "experts", moe_keys, moe_lo, 1u << 20, v, 3, 7)))
			return rc;
		if (v[1] > v[0])
			return jr_fail(c, CR_ERR_INVALID, "experts.used",
				       "more experts used (%llu) than exist (%llu)",
				       (unsigned long long)v[1], (unsigned long long)v[0]);
		if (v[3] >= m->n_layers)
			return jr_fail(c, CR_ERR_INVALID, "experts.dense_layers",
				       "%llu dense layers of %u (at least one layer must be MoE)",
				       (unsigned long long)v[3], m->n_layers);
		if (!v[3] != !v[4] && !(v[6] && v[4]))
			return jr_fail(c, CR_ERR_INVALID, v[3] ? "experts.dense_ffn" : "experts.dense_layers",
				       "dense_layers and dense_ffn come together");
		if (v[6] && !v[4])
			return jr_fail(c, CR_ERR_INVALID, "experts.dense_ffn",
				       "missing field (experts.every leaves dense layers between the MoE ones)");
		m->experts_total = (uint32_t)v[0];
		m->experts_used = (uint32_t)v[1];
		m->experts_shared = (uint32_t)v[2];
		m->experts_dense_layers = (uint32_t)v[3];
		m->experts_dense_ffn = (uint32_t)v[4];
		m->experts_shared_ffn = (uint32_t)v[5];
		m->experts_every = (uint32_t)v[6];
		/* active = params - routed x (1 - used / total), so the routed
		 * experts hold (params - active) x total / (total - used). */
		if (v[1] < v[0]) {
			double routed = (double)(m->params - m->active_params) * (double)v[0] / (double)(v[0] - v[1]);

			if (routed > (double)m->params)
				return jr_fail(c, CR_ERR_INVALID, "active_params",
					       "%llu with %u of %u experts used: the routed experts would hold %.0f "
					       "parameters, more than params (%llu)",
					       (unsigned long long)m->active_params, m->experts_used, m->experts_total,
					       routed, (unsigned long long)m->params);
		}
	}
	if (cJSON_HasObjectItem(o, "vision")) {
		if ((rc = read_sub_uints(c, o, "vision", vis_keys, vis_lo, 1u << 20, v, 7, 8)))
			return rc;
		m->vision = (cr_vision){ .layers = (uint32_t)v[0], .hidden = (uint32_t)v[1],
			.ffn = (uint32_t)v[2], .patch = (uint32_t)v[3], .temporal_patch = (uint32_t)v[4],
			.positions = (uint32_t)v[5], .merge = (uint32_t)v[6], .deepstack = (uint32_t)v[7] };
	}
	if (cJSON_HasObjectItem(o, "native_quant"))
		return read_native_quant(c, o, m);
	return CR_OK;
}

/* ---- lists ------------------------------------------------------------- */

typedef int (*read_item_fn)(jr_ctx *, const cJSON *, void *);

static int read_quant_v(jr_ctx *c, const cJSON *o, void *out)
{
	return read_quant(c, o, out);
}

static int read_rig_v(jr_ctx *c, const cJSON *o, void *out)
{
	return read_rig(c, o, out);
}

static int read_model_v(jr_ctx *c, const cJSON *o, void *out)
{
	return read_model(c, o, out);
}

/* Read every element of a list into a calloc'd array of `size`-byte records
 * whose first member is the id; reject duplicate ids (case-insensitive). */
static int read_list(jr_ctx *c, const cJSON *list, const char *key, size_t size,
		     read_item_fn fn, void **items, size_t *n)
{
	size_t count = (size_t)cJSON_GetArraySize(list), i = 0;
	const cJSON *it;
	char *arr;

	/* Shipped lists hold tens of records; 4096 bounds memory on hostile files. */
	if (count > 4096)
		return jr_fail(c, CR_ERR_INVALID, key, "too many entries (%zu, at most 4096)", count);
	arr = calloc(count, size);
	if (!arr)
		return cr_seterr(c->err, CR_ERR_NOMEM, "%s: out of memory", c->file);
	cJSON_ArrayForEach(it, list) {
		size_t saved = jr_push_key(c, key);
		int rc;

		jr_push_index(c, i);
		rc = fn(c, it, arr + i * size);
		if (!rc) {
			const char *id = arr + i * size;

			for (size_t j = 0; j < i; j++) {
				if (cr_strcasecmp(arr + j * size, id) == 0) {
					rc = jr_fail(c, CR_ERR_INVALID, "id",
						     "duplicate id \"%s\" (also %s[%zu])", id, key, j);
					break;
				}
			}
		}
		jr_pop(c, saved);
		if (rc) {
			free(arr);
			return rc;
		}
		i++;
	}
	*items = arr;
	*n = count;
	return CR_OK;
}

static int load_one(const char *buf, size_t len, const char *file, const char *schema,
		    const char *key, size_t size, read_item_fn fn, void **items, size_t *n,
		    cr_error *err)
{
	const cJSON *list;
	cJSON *root = NULL;
	jr_ctx c;
	int rc;

	jr_init(&c, file, err);
	if (len > CR_CATALOG_FILE_MAX)
		return cr_seterr(err, CR_ERR_INVALID, "%s: file too large (%zu bytes, at most %u)",
				 file, len, CR_CATALOG_FILE_MAX);
	if ((rc = jr_parse(&c, buf, len, &root)))
		return rc;
	rc = read_top(&c, root, schema, key, &list);
	if (!rc)
		rc = read_list(&c, list, key, size, fn, items, n);
	cJSON_Delete(root);
	return rc;
}

/* Every name --model can take (ids and aliases) names one model: an alias
 * equal to any id, or to an alias before it, is refused with both places. */
static int check_aliases(const cr_catalog *cat, const char *models_file, cr_error *err)
{
	for (size_t i = 0; i < cat->n_models; i++) {
		const cr_model *m = &cat->models[i];

		for (unsigned a = 0; a < m->n_aliases; a++) {
			const char *al = m->aliases[a];

			for (size_t j = 0; j < cat->n_models; j++) {
				const cr_model *o = &cat->models[j];

				if (cr_strcasecmp(o->id, al) == 0)
					return cr_seterr(err, CR_ERR_INVALID,
							 "%s: models[%zu].aliases[%u]: \"%s\" is the id of models[%zu]",
							 models_file, i, a, al, j);
				for (unsigned b = 0; b < o->n_aliases && (j < i || (j == i && b < a)); b++)
					if (cr_strcasecmp(o->aliases[b], al) == 0)
						return cr_seterr(err, CR_ERR_INVALID,
								 "%s: models[%zu].aliases[%u]: \"%s\" is also models[%zu].aliases[%u]",
								 models_file, i, a, al, j, b);
			}
		}
	}
	return CR_OK;
}

/* Cross-file checks: a model's backbone must be a catalog model. */
static int check_refs(const cr_catalog *cat, const char *models_file, cr_error *err)
{
	int rc = check_aliases(cat, models_file, err);

	if (rc)
		return rc;
	for (size_t i = 0; i < cat->n_models; i++) {
		const char *bb = cat->models[i].backbone;

		if (bb[0] && !cr_catalog_find_model(cat, bb))
			return cr_seterr(err, CR_ERR_INVALID,
					 "%s: models[%zu].backbone: unknown model id \"%s\"",
					 models_file, i, bb);
	}
	return CR_OK;
}

int cr_catalog_load_buffers(const char *models, size_t models_len, const char *quants,
			    size_t quants_len, const char *rigs, size_t rigs_len,
			    const char *const names[3], cr_catalog **out, cr_error *err)
{
	static const char *const default_names[3] = { "models.json", "quants.json", "rigs.json" };
	const char *const *nm = names ? names : default_names;
	cr_catalog *cat;
	void *p;
	int rc;

	*out = NULL;
	cat = calloc(1, sizeof(*cat));
	if (!cat)
		return cr_seterr(err, CR_ERR_NOMEM, "out of memory");
	rc = load_one(quants, quants_len, nm[1], "clefrun.quants/1", "quants", sizeof(cr_quant),
		      read_quant_v, &p, &cat->n_quants, err);
	if (!rc) {
		cat->quants = cat->owned[1] = p;
		rc = load_one(rigs, rigs_len, nm[2], "clefrun.rigs/1", "rigs", sizeof(cr_rig),
			      read_rig_v, &p, &cat->n_rigs, err);
	}
	if (!rc) {
		cat->rigs = cat->owned[2] = p;
		rc = load_one(models, models_len, nm[0], "clefrun.models/1", "models",
			      sizeof(cr_model), read_model_v, &p, &cat->n_models, err);
	}
	if (!rc) {
		cat->models = cat->owned[0] = p;
		rc = check_refs(cat, nm[0], err);
	}
	if (rc) {
		cr_catalog_free(cat);
		return rc;
	}
	*out = cat;
	return CR_OK;
}

int cr_catalog_load_dir(const char *dir, cr_catalog **out, cr_error *err)
{
	static const char *const files[3] = { "models.json", "quants.json", "rigs.json" };
	char paths[3][1024];
	const char *names[3];
	char *bufs[3] = { NULL, NULL, NULL };
	size_t lens[3] = { 0, 0, 0 };
	int rc = CR_OK;

	*out = NULL;
	for (int i = 0; i < 3; i++) {
		int n = snprintf(paths[i], sizeof(paths[i]), "%s/%s", dir, files[i]);

		if (n < 0 || (size_t)n >= sizeof(paths[i]))
			return cr_seterr(err, CR_ERR_INVALID, "%s: catalog path too long", dir);
		names[i] = paths[i];
	}
	for (int i = 0; i < 3 && !rc; i++)
		rc = cr_file_read(paths[i], CR_CATALOG_FILE_MAX, &bufs[i], &lens[i], NULL, err);
	if (!rc)
		rc = cr_catalog_load_buffers(bufs[0], lens[0], bufs[1], lens[1], bufs[2], lens[2],
					     names, out, err);
	for (int i = 0; i < 3; i++)
		free(bufs[i]);
	return rc;
}

void cr_catalog_free(cr_catalog *cat)
{
	if (!cat)
		return;
	for (int i = 0; i < 3; i++)
		free(cat->owned[i]);
	free(cat);
}

size_t cr_catalog_model_count(const cr_catalog *cat) { return cat->n_models; }
size_t cr_catalog_quant_count(const cr_catalog *cat) { return cat->n_quants; }
size_t cr_catalog_rig_count(const cr_catalog *cat) { return cat->n_rigs; }

const cr_model *cr_catalog_model_at(const cr_catalog *cat, size_t i)
{
	return i < cat->n_models ? &cat->models[i] : NULL;
}

const cr_quant *cr_catalog_quant_at(const cr_catalog *cat, size_t i)
{
	return i < cat->n_quants ? &cat->quants[i] : NULL;
}

const cr_rig *cr_catalog_rig_at(const cr_catalog *cat, size_t i)
{
	return i < cat->n_rigs ? &cat->rigs[i] : NULL;
}

const cr_model *cr_catalog_find_model(const cr_catalog *cat, const char *id)
{
	for (size_t i = 0; i < cat->n_models; i++)
		if (cr_strcasecmp(cat->models[i].id, id) == 0)
			return &cat->models[i];
	for (size_t i = 0; i < cat->n_models; i++)
		for (unsigned a = 0; a < cat->models[i].n_aliases; a++)
			if (cr_strcasecmp(cat->models[i].aliases[a], id) == 0)
				return &cat->models[i];
	return NULL;
}

const cr_quant *cr_catalog_find_quant(const cr_catalog *cat, const char *id)
{
	for (size_t i = 0; i < cat->n_quants; i++)
		if (cr_strcasecmp(cat->quants[i].id, id) == 0)
			return &cat->quants[i];
	return NULL;
}

const cr_rig *cr_catalog_find_rig(const cr_catalog *cat, const char *id)
{
	for (size_t i = 0; i < cat->n_rigs; i++)
		if (cr_strcasecmp(cat->rigs[i].id, id) == 0)
			return &cat->rigs[i];
	return NULL;
}

unsigned cr_model_count_layers(const cr_model *m, cr_layer_kind kind)
{
	unsigned n = 0;

	for (uint32_t i = 0; i < m->n_layers && i < CR_MAX_LAYERS; i++)
		n += m->layer_kind[i] == kind;
	return n;
}

unsigned cr_model_kv_layers(const cr_model *m)
{
	unsigned n = 0;

	for (uint32_t i = 0; i < m->n_layers && i < CR_MAX_LAYERS; i++)
		n += m->layer_kind[i] != CR_LAYER_RECURRENT && m->kv_heads[i] > 0;
	return n;
}
