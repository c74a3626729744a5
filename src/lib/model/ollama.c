/*
 * Ollama names, store paths, registry URLs, manifests and params layers
 * (ollama.h). Read from Ollama v0.33.0-rc2 (docs/stores.md): the name
 * grammar is types/model/name.go (ParseNameBare, isValidPart, isValidLen),
 * the paths manifest/paths.go (PathForName, BlobsPath), the manifest
 * manifest/manifest.go and manifest/layer.go, the media types
 * server/images.go (GetModel), the URLs server/images.go
 * (pullModelManifest) and server/download.go.
 */
#include "clefrun/ollama.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_read.h"
#include "util.h"

/* ---- names ---------------------------------------------------------------------- */

typedef enum part { P_HOST, P_NS, P_MODEL, P_TAG } part;

static const char *const part_word[] = { "host", "namespace", "model", "tag" };

static bool alnum_(char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
}

/* name.go: isValidPart and isValidLen. */
static bool valid_part(part k, const char *s, size_t n)
{
	size_t max = k == P_HOST ? 350 : 80;

	if (n < 1 || n > max || !alnum_(s[0]))
		return false;
	for (size_t i = 1; i < n; i++) {
		char c = s[i];

		if (alnum_(c) || c == '-')
			continue;
		if (c == '.' && k != P_NS)
			continue;
		if (c == ':' && k == P_HOST)
			continue;
		return false;
	}
	return true;
}

static int put_part(const char *spec, part k, const char *s, size_t n, char *dst, size_t cap, cr_error *err)
{
	if (!valid_part(k, s, n))
		return cr_seterr(err, CR_ERR_PARSE,
				 "%.64s%s: expected ollama:[HOST/][NAMESPACE/]MODEL[:TAG] (the %s '%.*s' is not 1 to %d of letters, digits, _ -%s)",
				 spec, strlen(spec) > 64 ? "..." : "", part_word[k], (int)(n > 40 ? 40 : n), s,
				 k == P_HOST ? 350 : 80, k == P_NS ? "" : k == P_HOST ? " . :" : " .");
	if (n >= cap)
		return cr_seterr(err, CR_ERR_PARSE, "%.64s: the %s is too long", spec, part_word[k]);
	memcpy(dst, s, n);
	dst[n] = '\0';
	return CR_OK;
}

int cr_ollama_parse(const char *spec, cr_ollama_ref *out, cr_error *err)
{
	const char *s, *colon, *slash, *end;
	size_t n = strlen(CR_OLLAMA_PREFIX);
	int rc;

	memset(out, 0, sizeof(*out));
	if (strncmp(spec, CR_OLLAMA_PREFIX, n) != 0)
		return cr_seterr(err, CR_ERR_PARSE, "%.64s: expected ollama:NAME[:TAG]", spec);
	s = spec + n;
	if (strstr(s, "://"))
		return cr_seterr(err, CR_ERR_PARSE, "%.64s%s: a name, not a URL: ollama:[HOST/][NAMESPACE/]MODEL[:TAG]",
				 spec, strlen(spec) > 64 ? "..." : "");
	if (strchr(s, '@'))
		return cr_seterr(err, CR_ERR_PARSE, "%.64s%s: a @digest is not supported: name a tag", spec,
				 strlen(spec) > 64 ? "..." : "");
	end = s + strlen(s);
	colon = strrchr(s, ':');
	slash = strrchr(s, '/');
	/* ParseNameBare: "/" is not a tag character, so a ':' after the last '/' starts the tag. */
	if (colon && (!slash || colon > slash)) {
		if ((rc = put_part(spec, P_TAG, colon + 1, (size_t)(end - colon - 1), out->tag, sizeof(out->tag), err)))
			return rc;
		end = colon;
	} else {
		snprintf(out->tag, sizeof(out->tag), "%s", CR_OLLAMA_DEFAULT_TAG);
	}
	/* MODEL, NAMESPACE, HOST from the right. */
	{
		const char *seg[3];
		size_t len[3], k = 0;
		const char *p = end;

		while (k < 3) {
			const char *q = p;

			while (q > s && q[-1] != '/')
				q--;
			seg[k] = q;
			len[k] = (size_t)(p - q);
			k++;
			if (q == s)
				break;
			p = q - 1; /* the '/' */
			if (k == 3)
				return cr_seterr(err, CR_ERR_PARSE,
						 "%.64s%s: too many '/': expected ollama:[HOST/][NAMESPACE/]MODEL[:TAG]",
						 spec, strlen(spec) > 64 ? "..." : "");
		}
		if ((rc = put_part(spec, P_MODEL, seg[0], len[0], out->model, sizeof(out->model), err)))
			return rc;
		if (k > 1) {
			if ((rc = put_part(spec, P_NS, seg[1], len[1], out->ns, sizeof(out->ns), err)))
				return rc;
		} else {
			snprintf(out->ns, sizeof(out->ns), "%s", CR_OLLAMA_DEFAULT_NAMESPACE);
		}
		if (k > 2) {
			if ((rc = put_part(spec, P_HOST, seg[2], len[2], out->host, sizeof(out->host), err)))
				return rc;
		} else {
			snprintf(out->host, sizeof(out->host), "%s", CR_OLLAMA_DEFAULT_HOST);
		}
	}
	return CR_OK;
}

void cr_ollama_ref_string(const cr_ollama_ref *r, char *buf, size_t cap)
{
	snprintf(buf, cap, "%s/%s/%s:%s", r->host, r->ns, r->model, r->tag);
}

void cr_ollama_ref_short(const cr_ollama_ref *r, char *buf, size_t cap)
{
	if (cr_strcasecmp(r->host, CR_OLLAMA_DEFAULT_HOST) != 0)
		snprintf(buf, cap, "%s/%s/%s:%s", r->host, r->ns, r->model, r->tag);
	else if (cr_strcasecmp(r->ns, CR_OLLAMA_DEFAULT_NAMESPACE) != 0)
		snprintf(buf, cap, "%s/%s:%s", r->ns, r->model, r->tag);
	else
		snprintf(buf, cap, "%s:%s", r->model, r->tag);
}

/* ---- paths and URLs ------------------------------------------------------------------ */

bool cr_ollama_digest_valid(const char *d)
{
	if (!d || strncmp(d, "sha256", 6) != 0 || (d[6] != ':' && d[6] != '-'))
		return false;
	for (size_t i = 0; i < 64; i++) {
		char c = d[7 + i];

		if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')))
			return false;
	}
	return d[71] == '\0';
}

static int fit(int n, size_t cap, const char *what, cr_error *err)
{
	if (n < 0 || (size_t)n >= cap)
		return cr_seterr(err, CR_ERR_RANGE, "%s: path or URL too long", what);
	return CR_OK;
}

int cr_ollama_manifest_path(const char *root, const cr_ollama_ref *r, char *buf, size_t cap, cr_error *err)
{
	return fit(snprintf(buf, cap, "%s/manifests/%s/%s/%s/%s", root, r->host, r->ns, r->model, r->tag), cap,
		   root, err);
}

int cr_ollama_blob_path(const char *root, const char *digest, char *buf, size_t cap, cr_error *err)
{
	if (!cr_ollama_digest_valid(digest))
		return cr_seterr(err, CR_ERR_INVALID, "'%.80s': not a sha256 digest", digest);
	/* BlobsPath: the ':' becomes '-'. */
	return fit(snprintf(buf, cap, "%s/blobs/sha256-%s", root, digest + 7), cap, root, err);
}

int cr_ollama_registry_base(const char *registry, const cr_ollama_ref *r, char *buf, size_t cap, cr_error *err)
{
	size_t n;

	if (strcmp(r->host, CR_OLLAMA_DEFAULT_HOST) != 0)
		return fit(snprintf(buf, cap, "https://%s", r->host), cap, r->host, err);
	if (!registry || !*registry)
		registry = CR_OLLAMA_DEFAULT_REGISTRY;
	if (strncmp(registry, "http://", 7) != 0 && strncmp(registry, "https://", 8) != 0)
		return cr_seterr(err, CR_ERR_INVALID, "Ollama registry %.80s: expected an http:// or https:// URL",
				 registry);
	n = strlen(registry);
	while (n > 8 && registry[n - 1] == '/')
		n--;
	return fit(snprintf(buf, cap, "%.*s", (int)n, registry), cap, registry, err);
}

int cr_ollama_manifest_url(const char *registry, const cr_ollama_ref *r, char *buf, size_t cap, cr_error *err)
{
	char base[CR_OLLAMA_HOST_MAX + 512];
	int rc = cr_ollama_registry_base(registry, r, base, sizeof(base), err);

	if (rc)
		return rc;
	return fit(snprintf(buf, cap, "%s/v2/%s/%s/manifests/%s", base, r->ns, r->model, r->tag), cap, base, err);
}

int cr_ollama_blob_url(const char *registry, const cr_ollama_ref *r, const char *digest, char *buf, size_t cap,
		       cr_error *err)
{
	char base[CR_OLLAMA_HOST_MAX + 512];
	int rc;

	if (!cr_ollama_digest_valid(digest))
		return cr_seterr(err, CR_ERR_INVALID, "'%.80s': not a sha256 digest", digest);
	if ((rc = cr_ollama_registry_base(registry, r, base, sizeof(base), err)))
		return rc;
	return fit(snprintf(buf, cap, "%s/v2/%s/%s/blobs/sha256:%s", base, r->ns, r->model, digest + 7), cap, base,
		   err);
}

/* ---- the manifest ----------------------------------------------------------------- */

static int parse_json(const char *json, size_t len, const char *name, const char *what, cJSON **out,
		      cr_error *err)
{
	const char *end = NULL;
	cJSON *root = cJSON_ParseWithLengthOpts(json, len, &end, false);

	if (!root) {
		size_t at = end && end >= json && end <= json + len ? (size_t)(end - json) : 0;

		if (jr_too_deep(json, at))
			return cr_seterr(err, CR_ERR_PARSE, "%s: JSON nested deeper than %d levels at byte %zu", name,
					 CJSON_NESTING_LIMIT, at);
		return cr_seterr(err, CR_ERR_PARSE, "%s: invalid JSON at byte %zu (expected an Ollama %s)", name, at,
				 what);
	}
	if (!cJSON_IsObject(root)) {
		cJSON_Delete(root);
		return cr_seterr(err, CR_ERR_PARSE, "%s: expected a JSON object (an Ollama %s)", name, what);
	}
	*out = root;
	return CR_OK;
}

/* A size field: a whole number from 0 to CR_OLLAMA_LAYER_MAX_BYTES. */
static int layer_size(const cJSON *v, const char *name, const char *path, uint64_t *out, cr_error *err)
{
	double d;

	if (!cJSON_IsNumber(v))
		return cr_seterr(err, CR_ERR_PARSE, "%s: %s.size: expected a number of bytes", name, path);
	d = v->valuedouble;
	if (!(d >= 0 && d <= (double)CR_OLLAMA_LAYER_MAX_BYTES) || d != (double)(uint64_t)d)
		return cr_seterr(err, CR_ERR_PARSE, "%s: %s.size: %.17g is not a whole number of bytes from 0 to %llu",
				 name, path, d, (unsigned long long)CR_OLLAMA_LAYER_MAX_BYTES);
	*out = (uint64_t)d;
	return CR_OK;
}

int cr_ollama_parse_manifest(const char *json, size_t len, const char *name, cr_ollama_manifest *out,
			     cr_error *err)
{
	static const struct {
		const char *type;
		size_t off;
	} kinds[] = {
		{ CR_OLLAMA_MEDIA_MODEL, offsetof(cr_ollama_manifest, model) },
		{ CR_OLLAMA_MEDIA_PARAMS, offsetof(cr_ollama_manifest, params) },
		{ CR_OLLAMA_MEDIA_PROJECTOR, offsetof(cr_ollama_manifest, projector) },
		{ CR_OLLAMA_MEDIA_TEMPLATE, offsetof(cr_ollama_manifest, template_) },
		{ CR_OLLAMA_MEDIA_LICENSE, offsetof(cr_ollama_manifest, license) },
	};
	const cJSON *layers, *it, *config;
	cJSON *root;
	size_t i = 0;
	int rc;

	memset(out, 0, sizeof(*out));
	name = name ? name : "manifest";
	if (len > CR_OLLAMA_MANIFEST_MAX_BYTES)
		return cr_seterr(err, CR_ERR_PARSE, "%s: %zu bytes: an Ollama manifest is at most %u", name, len,
				 CR_OLLAMA_MANIFEST_MAX_BYTES);
	if ((rc = parse_json(json, len, name, "manifest", &root, err)))
		return rc;
	layers = cJSON_GetObjectItemCaseSensitive(root, "layers");
	if (!layers) {
		rc = cr_seterr(err, CR_ERR_PARSE, "%s: layers: missing (not an Ollama manifest)", name);
		goto out;
	}
	if (!cJSON_IsArray(layers)) {
		rc = cr_seterr(err, CR_ERR_PARSE, "%s: layers: expected an array", name);
		goto out;
	}
	config = cJSON_GetObjectItemCaseSensitive(root, "config");
	if (config && cJSON_IsObject(config)) {
		const cJSON *sz = cJSON_GetObjectItemCaseSensitive(config, "size");
		uint64_t b = 0;

		if (sz && (rc = layer_size(sz, name, "config", &b, err)))
			goto out;
		out->total_bytes += b;
	}
	cJSON_ArrayForEach(it, layers) {
		const cJSON *mt = cJSON_GetObjectItemCaseSensitive(it, "mediaType");
		const cJSON *dg = cJSON_GetObjectItemCaseSensitive(it, "digest");
		const cJSON *sz = cJSON_GetObjectItemCaseSensitive(it, "size");
		char path[48];
		uint64_t bytes = 0;

		snprintf(path, sizeof(path), "layers[%zu]", i);
		if (!cJSON_IsObject(it)) {
			rc = cr_seterr(err, CR_ERR_PARSE, "%s: %s: expected an object", name, path);
			goto out;
		}
		if (!cJSON_IsString(mt)) {
			rc = cr_seterr(err, CR_ERR_PARSE, "%s: %s.mediaType: expected a string", name, path);
			goto out;
		}
		if (!cJSON_IsString(dg) || !cr_ollama_digest_valid(dg->valuestring) || dg->valuestring[6] != ':') {
			rc = cr_seterr(err, CR_ERR_PARSE, "%s: %s.digest: expected sha256: and 64 hex digits", name, path);
			goto out;
		}
		if ((rc = layer_size(sz, name, path, &bytes, err)))
			goto out;
		out->total_bytes += bytes;
		if (out->total_bytes > CR_OLLAMA_LAYER_MAX_BYTES) {
			rc = cr_seterr(err, CR_ERR_PARSE, "%s: %s: the layers add up to more than %llu bytes", name, path,
				       (unsigned long long)CR_OLLAMA_LAYER_MAX_BYTES);
			goto out;
		}
		for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
			cr_ollama_layer *l = (cr_ollama_layer *)(void *)((char *)out + kinds[k].off);

			if (strcmp(mt->valuestring, kinds[k].type) != 0 || l->present)
				continue;
			l->present = true;
			cr_strlcpy(l->digest, dg->valuestring, sizeof(l->digest));
			l->size = bytes;
		}
		i++;
	}
	out->n_layers = i;
	if (!out->model.present)
		rc = cr_seterr(err, CR_ERR_NOTFOUND, "%s: layers: no layer of type %s (not a GGUF model)", name,
			       CR_OLLAMA_MEDIA_MODEL);
out:
	cJSON_Delete(root);
	return rc;
}

/* ---- the params layer ---------------------------------------------------------------- */

static int whole(const cJSON *v, const char *name, const char *key, double lo, double hi, double *out,
		 cr_error *err)
{
	if (!cJSON_IsNumber(v) || !(v->valuedouble >= lo && v->valuedouble <= hi) ||
	    v->valuedouble != (double)(long long)v->valuedouble)
		return cr_seterr(err, CR_ERR_PARSE, "%s: %s: expected a whole number from %.0f to %.0f", name, key, lo,
				 hi);
	*out = v->valuedouble;
	return CR_OK;
}

int cr_ollama_parse_params(const char *json, size_t len, const char *name, cr_ollama_params *out,
			   cr_error *err)
{
	static const cr_ollama_params init = CR_OLLAMA_PARAMS_INIT;
	const cJSON *it;
	cJSON *root;
	size_t k = 0;
	int rc = CR_OK;

	*out = init;
	name = name ? name : "params";
	if (len > CR_OLLAMA_PARAMS_MAX_BYTES)
		return cr_seterr(err, CR_ERR_PARSE, "%s: %zu bytes: an Ollama params layer is at most %u", name, len,
				 CR_OLLAMA_PARAMS_MAX_BYTES);
	if ((rc = parse_json(json, len, name, "params layer", &root, err)))
		return rc;
	cJSON_ArrayForEach(it, root) {
		const char *key = it->string ? it->string : "";
		double d = 0;

		if (strcmp(key, "num_ctx") == 0) {
			if ((rc = whole(it, name, key, 1, 1073741824.0, &d, err)))
				break;
			out->num_ctx = (uint32_t)d;
		} else if (strcmp(key, "num_batch") == 0) {
			if ((rc = whole(it, name, key, 1, 1048576.0, &d, err)))
				break;
			out->num_batch = (uint32_t)d;
		} else if (strcmp(key, "num_gpu") == 0) {
			if ((rc = whole(it, name, key, -1, 1048576.0, &d, err)))
				break;
			out->num_gpu = (int32_t)d;
		} else if (strcmp(key, "num_predict") == 0) {
			if ((rc = whole(it, name, key, -2, 1073741824.0, &d, err)))
				break;
			out->num_predict = (int32_t)d;
			out->has_num_predict = true;
		} else {
			int w;
			bool safe = true;

			for (const char *p = key; *p; p++)
				safe = safe && (alnum_(*p) || *p == '-' || *p == '.');
			if (!*key || !safe || strlen(key) > 40)
				continue; /* a key no option has: not shown */
			w = snprintf(out->other_keys + k, sizeof(out->other_keys) - k, "%s%s", k ? ", " : "", key);
			if (w < 0 || (size_t)w >= sizeof(out->other_keys) - k) {
				out->other_keys[k] = '\0';
				continue;
			}
			k += (size_t)w;
		}
	}
	cJSON_Delete(root);
	return rc;
}
