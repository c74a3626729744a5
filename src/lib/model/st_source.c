/*
 * Safetensors checkpoints from a directory or hf:OWNER/REPO (st_source.h):
 * config.json, the shard list of model.safetensors.index.json, and only the
 * header of each shard.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "clefrun/cache.h"
#include "clefrun/hf.h"
#include "clefrun/st_source.h"
#include "json_read.h"
#include "util.h"

typedef struct st_ctx {
	const cr_model_source_opts *o;
	bool remote;
	char base[CR_URL_MAX];        /* the directory, or "OWNER/REPO" */
	const char *endpoint, *revision;
	char token[1024];
	bool have_token;
	cr_cache *cache;              /* remote only; NULL: the network only */
	cr_source_stats stats;
} st_ctx;

bool cr_st_source_is_dir(const char *source)
{
	struct stat st;
	char p[4096];

	if (!source || stat(source, &st) != 0 || !S_ISDIR(st.st_mode))
		return false;
	if ((size_t)snprintf(p, sizeof(p), "%s/config.json", source) >= sizeof(p))
		return false;
	return access(p, R_OK) == 0;
}

/* A shard name as the index may give it: a plain relative path. */
static bool safe_name(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n > 255 || s[0] == '/' || strstr(s, "..") || strstr(s, "//"))
		return false;
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)s[i] < 0x20 || s[i] == '\\' || s[i] == 0x7f)
			return false;
	return n > 12 && strcmp(s + n - 12, ".safetensors") == 0;
}

static int where(const st_ctx *c, const char *file, char *buf, size_t cap, cr_error *err)
{
	if (!c->remote) {
		if ((size_t)snprintf(buf, cap, "%s/%s", c->base, file) >= cap)
			return cr_seterr(err, CR_ERR_RANGE, "%s/%s: path too long", c->base, file);
		return CR_OK;
	}
	return cr_hf_file_url(c->endpoint, c->base, c->revision, file, buf, cap, err);
}

static void add_stats(st_ctx *c, const cr_source_stats *s)
{
	c->stats.requests += s->requests;
	c->stats.bytes_fetched += s->bytes_fetched;
	c->stats.bytes_read += s->bytes_read;
}

static void notice(const st_ctx *c, const cr_cache_result *r)
{
	if (r->notice[0] && c->o->notice)
		c->o->notice(c->o->notice_arg, r->notice);
}

/* The header cache as the GGUF path opens it (model_source.c): none when it
 * is off, or online without a usable directory; entries of a 40-hex commit
 * never expire. */
static int cache_open(st_ctx *c, cr_error *err)
{
	cr_cache_opts co = CR_CACHE_OPTS_INIT;
	const char *dir = c->o->cache_dir, *rev = c->revision;
	char buf[4096];
	size_t n = rev ? strlen(rev) : 0;
	bool commit = n == 40;
	int rc;

	if (c->o->cache == CR_MODEL_SOURCE_CACHE_OFF)
		return CR_OK;
	if (!dir) {
		cr_error e2 = CR_ERROR_INIT;

		if ((rc = cr_cache_dir(c->o->xdg_cache_home, c->o->home, buf, sizeof(buf), &e2))) {
			if (c->o->cache != CR_MODEL_SOURCE_CACHE_OFFLINE)
				return CR_OK;
			return cr_setreason(err, CR_REASON_OFFLINE_NO_CACHE_DIR, cr_errcopy(err, rc, &e2));
		}
		dir = buf;
	}
	for (size_t i = 0; i < n && commit; i++)
		commit = (rev[i] >= '0' && rev[i] <= '9') || (rev[i] >= 'a' && rev[i] <= 'f');
	co.mode = c->o->cache == CR_MODEL_SOURCE_CACHE_OFFLINE ? CR_CACHE_OFFLINE : CR_CACHE_USE;
	if (commit)
		co.max_age_s = CR_CACHE_FOREVER;
	return cr_cache_open(dir, &co, &c->cache, err);
}

static int read_small(st_ctx *c, const char *file, size_t max, char **buf, size_t *len, cr_error *err)
{
	char loc[CR_URL_MAX * 2];
	int rc;

	if ((rc = where(c, file, loc, sizeof(loc), err)) != 0)
		return rc;
	if (!c->remote) {
		rc = cr_file_read(loc, max, buf, len, NULL, err);
		if (rc == 0 && *len > max) {
			free(*buf);
			*buf = NULL;
			return cr_seterr(err, CR_ERR_INVALID, "%s: %zu bytes, more than the %zu read", loc, *len, max);
		}
		return rc;
	}
	{
		cr_http_opts h = c->o->http;
		cr_source_stats s = { 0 };

		cr_cache_result res;

		(void)s;
		h.bearer_token = cr_hf_token_for_url(c->endpoint, c->have_token ? c->token : NULL, loc);
		rc = cr_cache_fetch_doc(c->cache, loc, &h, max, NULL, NULL, buf, len, &res, err);
		add_stats(c, &res.stats);
		notice(c, &res);
		return rc;
	}
}

static int read_shard(st_ctx *c, const char *file, cr_st_checkpoint *out, cr_error *err)
{
	char loc[CR_URL_MAX * 2];
	cr_source *src = NULL;
	cr_st_header *h = NULL;
	int rc;

	if ((rc = where(c, file, loc, sizeof(loc), err)) != 0)
		return rc;
	if (c->remote) {
		cr_http_opts ho = c->o->http;
		cr_cache_result res;

		ho.first_range_bytes = CR_ST_SOURCE_FIRST_RANGE;
		ho.max_total_bytes = (uint64_t)CR_ST_HEADER_MAX + 8 + CR_ST_SOURCE_FIRST_RANGE;
		ho.bearer_token = cr_hf_token_for_url(c->endpoint, c->have_token ? c->token : NULL, loc);
		rc = cr_cache_load_st(c->cache, loc, &ho, NULL, &h, &res, err);
		add_stats(c, &res.stats);
		notice(c, &res);
	} else {
		if ((rc = cr_source_open_file(loc, &src, err)) != 0)
			return rc;
		rc = cr_st_read(src, NULL, &h, err);
		cr_source_free(src);
	}
	if (rc)
		return rc;
	for (unsigned d = 0; d < CR_ST_DTYPE_COUNT; d++) {
		out->type_bytes[d] += h->type_bytes[d];
		out->params += h->type_elements[d];
	}
	out->weights_bytes += h->data_bytes;
	out->n_tensors += (unsigned)h->n_tensors;
	out->n_shards++;
	cr_st_free(h);
	return CR_OK;
}

/* The distinct shard names of the index's weight_map, in first-seen order. */
static int index_shards(const char *name, const char *json, size_t len, char (*names)[256], unsigned *n,
			cr_error *err)
{
	jr_ctx jc;
	cJSON *root = NULL;
	const cJSON *map, *it;
	int rc = CR_OK;

	*n = 0;
	jr_init(&jc, name, err);
	if ((rc = jr_parse(&jc, json, len, &root)) != 0)
		return rc;
	map = cJSON_IsObject(root) ? cJSON_GetObjectItemCaseSensitive(root, "weight_map") : NULL;
	if (!map || !cJSON_IsObject(map)) {
		cJSON_Delete(root);
		return cr_seterr(err, CR_ERR_INVALID, "%s: weight_map: expected an object of tensor names to shard files",
				 name);
	}
	cJSON_ArrayForEach(it, map)
	{
		const char *f = cJSON_IsString(it) ? it->valuestring : NULL;
		bool seen = false;

		if (!f || !safe_name(f)) {
			size_t s = jr_push_key(&jc, "weight_map");

			rc = jr_fail(&jc, CR_ERR_INVALID, it->string ? it->string : "?",
				     "expected a shard file name ending in .safetensors, relative, without \"..\"");
			jr_pop(&jc, s);
			break;
		}
		for (unsigned i = 0; i < *n && !seen; i++)
			seen = strcmp(names[i], f) == 0;
		if (seen)
			continue;
		if (*n >= CR_ST_SOURCE_MAX_SHARDS) {
			rc = cr_seterr(err, CR_ERR_INVALID, "%s: more than %d shards", name, CR_ST_SOURCE_MAX_SHARDS);
			break;
		}
		cr_strlcpy(names[(*n)++], f, 256);
	}
	cJSON_Delete(root);
	if (rc == 0 && *n == 0)
		rc = cr_seterr(err, CR_ERR_INVALID, "%s: weight_map names no shard", name);
	return rc;
}

int cr_st_source_load(const char *source, const cr_model_source_opts *opts, cr_st_checkpoint *out, cr_error *err)
{
	cr_model_source_opts def = CR_MODEL_SOURCE_OPTS_INIT;
	st_ctx c;
	char *buf = NULL, loc[CR_URL_MAX * 2];
	char (*names)[256] = NULL;
	size_t len = 0;
	unsigned n = 0;
	int rc;

	memset(out, 0, sizeof(*out));
	memset(&c, 0, sizeof(c));
	c.o = opts ? opts : &def;
	if (strncmp(source, CR_HF_PREFIX, strlen(CR_HF_PREFIX)) == 0) {
		cr_hf_ref ref;
		cr_hf_token_sources ts = CR_HF_TOKEN_SOURCES_INIT;

		if ((rc = cr_hf_parse(source, &ref, err)) != 0)
			return cr_setreason(err, CR_REASON_BAD_SOURCE, rc);
		if (ref.kind != CR_HF_REPO)
			return cr_setreason(err, CR_REASON_BAD_SOURCE,
					    cr_seterr(err, CR_ERR_PARSE, "%s: a safetensors checkpoint is a whole repository (hf:OWNER/REPO)",
						      source));
		c.remote = true;
		cr_strlcpy(c.base, ref.repo, sizeof(c.base));
		c.endpoint = c.o->hf_endpoint && *c.o->hf_endpoint ? c.o->hf_endpoint : CR_HF_DEFAULT_ENDPOINT;
		c.revision = c.o->revision ? c.o->revision : CR_HF_DEFAULT_REVISION;
		ts.token = c.o->hf_token;
		ts.token_path = c.o->hf_token_path;
		ts.hf_home = c.o->hf_home;
		ts.home = c.o->home;
		c.have_token = cr_hf_find_token(&ts, c.token, sizeof(c.token), NULL) == CR_OK;
		if ((rc = cache_open(&c, err)) != 0) {
			memset(c.token, 0, sizeof(c.token));
			return rc;
		}
	} else {
		size_t sl = strlen(source);

		if (sl >= sizeof(c.base))
			return cr_seterr(err, CR_ERR_RANGE, "%.64s...: path too long", source);
		cr_strlcpy(c.base, source, sizeof(c.base));
		while (sl > 1 && c.base[sl - 1] == '/')
			c.base[--sl] = '\0';
	}
	cr_strlcpy(out->location, source, sizeof(out->location));
	out->remote = c.remote;

	if ((rc = read_small(&c, "config.json", CR_HFCONFIG_MAX_BYTES, &buf, &len, err)) != 0)
		goto out;
	if ((rc = where(&c, "config.json", loc, sizeof(loc), err)) != 0)
		goto out;
	{
		char shown[CR_URL_MAX * 2];

		(void)cr_url_redact(loc, shown, sizeof(shown));
		rc = cr_hfconfig_parse(buf, len, shown, &out->config, err);
	}
	free(buf);
	buf = NULL;
	if (rc)
		goto out;

	names = calloc(CR_ST_SOURCE_MAX_SHARDS, sizeof(*names));
	if (!names) {
		rc = cr_seterr(err, CR_ERR_NOMEM, "out of memory");
		goto out;
	}
	{
		cr_error e2 = CR_ERROR_INIT;

		rc = read_small(&c, "model.safetensors.index.json", CR_ST_SOURCE_INDEX_MAX, &buf, &len, &e2);
		if (rc == 0) {
			char shown[CR_URL_MAX * 2];

			(void)where(&c, "model.safetensors.index.json", loc, sizeof(loc), NULL);
			(void)cr_url_redact(loc, shown, sizeof(shown));
			rc = index_shards(shown, buf, len, names, &n, err);
			if (rc)
				goto out;
		} else if (rc == CR_ERR_NOTFOUND || (!c.remote && rc == CR_ERR_IO)) {
			cr_strlcpy(names[0], "model.safetensors", sizeof(names[0]));
			n = 1;
		} else {
			rc = cr_errcopy(err, rc, &e2);
			goto out;
		}
	}
	for (unsigned i = 0; i < n; i++)
		if ((rc = read_shard(&c, names[i], out, err)) != 0)
			goto out;
	out->stats = c.stats;
	rc = CR_OK;
out:
	memset(c.token, 0, sizeof(c.token));
	cr_cache_free(c.cache);
	free(buf);
	free(names);
	return rc;
}
