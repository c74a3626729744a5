/*
 * Model sources (model_source.h): a catalog id, a local GGUF, a URL or an
 * hf: name, split files read as one model. The bytes come from source.h
 * and cache.h, the names and URLs from hf.h, the mapping from gguf.h; this
 * file picks the URLs, the token and the parts. It was the CLI's
 * (src/cli/source_model.c) and keeps its messages word for word.
 */
#include "clefrun/model_source.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

/* The file list of a repository: a few hundred entries at most. */
#define TREE_MAX_BYTES (8u << 20)

/* User input echoed in a message is cut to this many bytes, then
 * "... (N bytes)" (the CLI's CLI_CLIP_BYTES). */
#define CLIP_BYTES 64

/* What one resolution works with. */
typedef struct ctx {
	const cr_model_source_opts *o;
	const char *endpoint;
	char token[CR_HF_TOKEN_MAX];
	bool have_token;
	cr_cache *cache;
} ctx;

/* ---- SOURCE kinds ------------------------------------------------------------------ */

/* The length of a leading "SCHEME://" (RFC 3986 section 3.1: ALPHA *( ALPHA / DIGIT / "+" / "-" /
 * "." )), or 0. */
static size_t scheme_len(const char *s)
{
	size_t i = 0;

	if (!isalpha((unsigned char)s[0]))
		return 0;
	while (isalnum((unsigned char)s[i]) || s[i] == '+' || s[i] == '-' || s[i] == '.')
		i++;
	return strncmp(s + i, "://", 3) == 0 ? i + 3 : 0;
}

/* Schemes are case-insensitive (RFC 3986 section 3.1): "HTTP://" is http. */
static bool scheme_is(const char *s, const char *lower)
{
	size_t n = strlen(lower);

	for (size_t i = 0; i < n; i++)
		if (tolower((unsigned char)s[i]) != lower[i])
			return false;
	return true;
}

cr_model_source_kind cr_model_source_classify(const char *s)
{
	size_t n = strlen(s), k = scheme_len(s);

	if (strncmp(s, CR_HF_PREFIX, 3) == 0)
		return CR_MODEL_SOURCE_HF;
	if (k && (scheme_is(s, "http://") || scheme_is(s, "https://")))
		return CR_MODEL_SOURCE_URL;
	if (k)
		return CR_MODEL_SOURCE_BAD_URL;
	if (strchr(s, '/') || (n > 5 && (strcmp(s + n - 5, ".gguf") == 0 || strcmp(s + n - 5, ".GGUF") == 0)))
		return CR_MODEL_SOURCE_FILE;
	return CR_MODEL_SOURCE_CATALOG;
}

/* s cut to CLIP_BYTES bytes on a UTF-8 boundary, then "... (N bytes)". */
static const char *clip(const char *s, char *buf, size_t cap)
{
	size_t n = strlen(s), k = CLIP_BYTES;

	if (n <= CLIP_BYTES)
		return s;
	while (k > 0 && ((unsigned char)s[k] & 0xC0) == 0x80) /* not inside a UTF-8 sequence */
		k--;
	snprintf(buf, cap, "%.*s... (%zu bytes)", (int)k, s, n);
	return buf;
}

/* A source or location as a message shows it: credentials redacted
 * (cr_seterr makes the whole message safe to print). */
typedef struct shown {
	char s[CR_URL_MAX * 2 + 8];
} shown;

static const char *show(const char *s, shown *b)
{
	(void)cr_url_redact(s, b->s, sizeof(b->s));
	return b->s;
}

/* ---- settings, the token, the cache --------------------------------------------------- */

static void ctx_init(ctx *c, const cr_model_source_opts *o)
{
	memset(c, 0, sizeof(*c));
	c->o = o;
	c->endpoint = o->hf_endpoint && *o->hf_endpoint ? o->hf_endpoint : CR_HF_DEFAULT_ENDPOINT;
}

static void load_token(ctx *c)
{
	cr_hf_token_sources ts = CR_HF_TOKEN_SOURCES_INIT;

	ts.token = c->o->hf_token;
	ts.token_path = c->o->hf_token_path;
	ts.hf_home = c->o->hf_home;
	ts.home = c->o->home;
	c->have_token = cr_hf_find_token(&ts, c->token, sizeof(c->token), NULL) == CR_OK;
}

static void ctx_clear(ctx *c)
{
	memset(c->token, 0, sizeof(c->token));
	cr_cache_free(c->cache);
	c->cache = NULL;
}

/* The caller's transport options, with the token for this URL only. */
static void http_opts(const ctx *c, const char *url, cr_http_opts *out)
{
	*out = c->o->http;
	out->bearer_token = cr_hf_token_for_url(c->endpoint, c->have_token ? c->token : NULL, url);
}

/* A 401 or 403 of the Hugging Face endpoint to a request without a token:
 * the caller may say how to send one. Elsewhere no token is ever sent, so
 * the transport's CR_REASON_HTTP_AUTH stands. */
static void mark_auth(const ctx *c, const char *url, cr_error *err)
{
	if (err && err->reason == CR_REASON_HTTP_AUTH && !c->have_token && cr_hf_url_on_endpoint(c->endpoint, url))
		err->reason = CR_REASON_HF_AUTH;
}

static void notice(const ctx *c, const cr_cache_result *r)
{
	if (r->notice[0] && c->o->notice)
		c->o->notice(c->o->notice_arg, r->notice);
}

/* A commit hash names bytes that never change: its entries never expire. */
static bool immutable_revision(const char *rev)
{
	size_t n = rev ? strlen(rev) : 0;

	if (n != 40)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!((rev[i] >= '0' && rev[i] <= '9') || (rev[i] >= 'a' && rev[i] <= 'f')))
			return false;
	return true;
}

/* The cache for this resolution: none when it is off, or online without a
 * usable directory. */
static int cache_open(ctx *c, cr_error *err)
{
	cr_cache_opts co = CR_CACHE_OPTS_INIT;
	const char *dir = c->o->cache_dir;
	char buf[4096];
	int rc;

	c->cache = NULL;
	if (c->o->cache == CR_MODEL_SOURCE_CACHE_OFF)
		return CR_OK;
	if (!dir) {
		cr_error e2 = CR_ERROR_INIT;

		if ((rc = cr_cache_dir(c->o->xdg_cache_home, c->o->home, buf, sizeof(buf), &e2))) {
			if (c->o->cache != CR_MODEL_SOURCE_CACHE_OFFLINE)
				return CR_OK; /* nowhere to cache: read from the network */
			return cr_setreason(err, CR_REASON_OFFLINE_NO_CACHE_DIR, cr_errcopy(err, rc, &e2));
		}
		dir = buf;
	}
	co.mode = c->o->cache == CR_MODEL_SOURCE_CACHE_OFFLINE ? CR_CACHE_OFFLINE : CR_CACHE_USE;
	if (immutable_revision(c->o->revision))
		co.max_age_s = CR_CACHE_FOREVER;
	return cr_cache_open(dir, &co, &c->cache, err);
}

static bool offline(const ctx *c)
{
	return c->cache && cr_cache_get_mode(c->cache) == CR_CACHE_OFFLINE;
}

static void add_stats(cr_source_stats *to, const cr_source_stats *s)
{
	to->requests += s->requests;
	to->bytes_fetched += s->bytes_fetched;
	to->bytes_read += s->bytes_read;
}

static void count_outcome(cr_model_source *m, const cr_cache_result *r)
{
	if (r->outcome == CR_CACHE_HIT)
		m->cache_hits++;
	else if (r->outcome == CR_CACHE_REVALIDATED)
		m->cache_revalidated++;
	else if (r->outcome == CR_CACHE_MISS)
		m->cache_misses++;
}

cr_cache_outcome cr_model_source_cache_outcome(const cr_model_source *m)
{
	if (!m->cache_on)
		return CR_CACHE_NONE;
	if (m->cache_misses)
		return CR_CACHE_MISS;
	return m->cache_revalidated ? CR_CACHE_REVALIDATED : CR_CACHE_HIT;
}

/* ---- repository lists ---------------------------------------------------------------- */

/* A cached or downloaded list must parse before it is used or stored. */
static int validate_tree(const char *body, size_t len, void *ud, cr_error *err)
{
	cr_hf_entry *e = NULL;
	size_t n;
	int rc = cr_hf_parse_tree(body, len, ud, &e, &n, err);

	free(e);
	return rc;
}

/* The GGUF files of ref's repository; @p m (optional) counts the outcome
 * and the stats. */
static int fetch_list(const ctx *c, const cr_hf_ref *ref, cr_hf_entry **entries, size_t *n,
		      cr_source_stats *stats, cr_model_source *m, cr_error *err)
{
	char tree[CR_URL_MAX * 2], *body = NULL;
	size_t len;
	cr_http_opts ho;
	cr_cache_result res;
	cr_error e2 = CR_ERROR_INIT;
	int rc;

	*entries = NULL;
	*n = 0;
	if ((rc = cr_hf_tree_url(c->endpoint, ref->repo, c->o->revision, tree, sizeof(tree), err)))
		return rc;
	http_opts(c, tree, &ho);
	rc = cr_cache_fetch_doc(c->cache, tree, &ho, TREE_MAX_BYTES, validate_tree, tree, &body, &len, &res, &e2);
	notice(c, &res);
	if (stats)
		add_stats(stats, &res.stats);
	if (m)
		count_outcome(m, &res);
	if (rc == CR_ERR_NOTFOUND && !offline(c))
		return cr_setreason(err, CR_REASON_HF_REPO_NOT_FOUND,
				    cr_seterr(err, CR_ERR_NOTFOUND, "hf:%s: repository or revision '%s' not found (%s)",
					      ref->repo, c->o->revision ? c->o->revision : CR_HF_DEFAULT_REVISION,
					      e2.message));
	if (rc) {
		mark_auth(c, tree, &e2);
		return cr_errcopy(err, rc, &e2);
	}
	rc = cr_hf_parse_tree(body, len, tree, entries, n, err);
	free(body);
	return rc;
}

int cr_model_source_list(const char *source, const cr_model_source_opts *o0, cr_hf_entry **entries,
			 size_t *n, cr_source_stats *stats, cr_error *err)
{
	static const cr_model_source_opts defaults = CR_MODEL_SOURCE_OPTS_INIT;
	const cr_model_source_opts *o = o0 ? o0 : &defaults;
	cr_hf_ref ref;
	ctx c;
	int rc;

	*entries = NULL;
	*n = 0;
	if ((rc = cr_hf_parse(source, &ref, err)))
		return cr_setreason(err, CR_REASON_BAD_SOURCE, rc);
	ctx_init(&c, o);
	if (!(rc = cache_open(&c, err))) {
		load_token(&c);
		rc = fetch_list(&c, &ref, entries, n, stats, NULL, err);
	}
	ctx_clear(&c);
	return rc;
}

/* "Q4_K_M, Q8_0" of the list, for a message. */
static void quant_names(const cr_hf_entry *e, size_t n, char *buf, size_t cap)
{
	size_t k = 0;
	bool any = false;

	buf[0] = '\0';
	for (size_t i = 0; i < n && k < cap; i++) {
		int w;

		if (e[i].projector || !e[i].quant[0])
			continue;
		w = snprintf(buf + k, cap - k, "%s%s", any ? ", " : " (the repository has: ", e[i].quant);
		if (w < 0)
			break;
		k += (size_t)w;
		any = true;
	}
	if (k < cap)
		snprintf(buf + k, cap - k, "%s", any ? ")" : " (the repository has no GGUF quant)");
}

/* ---- parts ------------------------------------------------------------------------- */

/* Open one part (a path or a URL) and parse its header into m->parts. */
static int load_part(const ctx *c, const char *where, cr_model_source *m, cr_error *err)
{
	cr_gguf_opts go = CR_GGUF_OPTS_INIT;
	cr_http_opts ho;
	cr_source *s = NULL;
	cr_source_stats st;
	cr_cache_result res;
	int rc;

	go.allow_truncated = c->o->allow_truncated;
	if (m->remote) {
		http_opts(c, where, &ho);
		rc = cr_cache_load_gguf(c->cache, where, &ho, &go, &m->parts[m->n_parts], &res, err);
		notice(c, &res);
		add_stats(&m->stats, &res.stats);
		count_outcome(m, &res);
		if (!rc)
			m->file_bytes += res.remote_bytes;
		else
			mark_auth(c, where, err);
	} else {
		rc = cr_source_open_file(where, &s, err);
		if (!rc)
			rc = cr_gguf_load(s, &go, &m->parts[m->n_parts], err);
		if (s) {
			cr_source_get_stats(s, &st);
			add_stats(&m->stats, &st);
			if (!rc)
				m->file_bytes += cr_source_size(s);
		}
		cr_source_free(s);
	}
	if (rc)
		return rc;
	m->n_parts++;
	return CR_OK;
}

/* Part 1 is loaded; load the others its split.count announces. */
static int load_split(const ctx *c, cr_model_source *m, cr_error *err)
{
	const char *first = m->location;
	uint32_t count = 1, no = 0;
	cr_error e2 = CR_ERROR_INIT;
	char name[CR_URL_MAX * 2];
	shown sh;
	int rc;

	(void)cr_gguf_get_u32(m->parts[0], "split.count", &count, NULL);
	(void)cr_gguf_get_u32(m->parts[0], "split.no", &no, NULL);
	if (count <= 1)
		return CR_OK;
	if (no >= count)
		/* split.no counts from 0: part no + 1 of count cannot exist. */
		return cr_seterr(err, CR_ERR_INVALID,
				 "%s: split.no %u is not below split.count %u (parts are numbered from 0)",
				 show(first, &sh), no, count);
	if (no != 0)
		return cr_setreason(err, CR_REASON_SPLIT_NOT_FIRST,
				    cr_seterr(err, CR_ERR_INVALID,
					      "%s is part %u of %u of a split model: give part 1 (-00001-of-%05u.gguf)",
					      show(first, &sh), no + 1, count, count));
	if (count > CR_MODEL_SOURCE_MAX_PARTS)
		return cr_seterr(err, CR_ERR_RANGE, "%s: split.count %u is above %d parts", show(first, &sh), count,
				 CR_MODEL_SOURCE_MAX_PARTS);
	for (uint32_t k = 2; k <= count; k++) {
		if ((rc = cr_gguf_split_name(first, k, name, sizeof(name), &e2)))
			return cr_seterr(err, rc, "%s: split.count is %u but %s", show(first, &sh), count, e2.message);
		if ((rc = load_part(c, name, m, err)))
			return rc;
	}
	return CR_OK;
}

/* ---- the location of part 1 ---------------------------------------------------------- */

static int hf_location(const ctx *c, const char *source, cr_model_source *m, cr_error *err)
{
	char path[CR_HF_PATH_MAX];
	cr_hf_ref ref;
	shown sh;
	int rc;

	if ((rc = cr_hf_parse(source, &ref, err)))
		return cr_setreason(err, CR_REASON_BAD_SOURCE, rc);
	if (ref.kind == CR_HF_REPO)
		return cr_setreason(err, CR_REASON_HF_REPO,
				    cr_seterr(err, CR_ERR_INVALID,
					      "%s names a repository: pick a file with %s:QUANT or %s/FILE.gguf", source,
					      source, source));
	if (ref.kind == CR_HF_QUANT) {
		cr_hf_entry *list;
		size_t n, idx;

		if ((rc = fetch_list(c, &ref, &list, &n, &m->stats, m, err)))
			return rc;
		if (cr_hf_pick_quant(list, n, ref.quant, &idx)) {
			char have[CR_ERROR_MSG_MAX];

			quant_names(list, n, have, sizeof(have));
			free(list);
			return cr_setreason(err, CR_REASON_HF_NO_QUANT,
					    cr_seterr(err, CR_ERR_NOTFOUND, "%s: no GGUF file of quant %s%s",
						      show(source, &sh), ref.quant, have));
		}
		snprintf(path, sizeof(path), "%s", list[idx].path);
		free(list);
	} else {
		snprintf(path, sizeof(path), "%s", ref.path);
	}
	m->remote = true;
	return cr_hf_file_url(c->endpoint, ref.repo, c->o->revision, path, m->location, sizeof(m->location), err);
}

static int url_location(const char *source, cr_model_source *m, cr_error *err)
{
	size_t k = scheme_len(source), h = strcspn(source + k, "/?#");
	const char *at = memchr(source + k, '@', h);
	char cb[CLIP_BYTES + 32];

	if (h == 0 || (at && at == source + k + h - 1) || source[k] == ':')
		return cr_setreason(err, CR_REASON_BAD_SOURCE,
				    cr_seterr(err, CR_ERR_INVALID,
					      "%s: the URL has no host (expected http(s)://HOST[:PORT]/PATH.gguf)",
					      clip(source, cb, sizeof(cb))));
	/* The scheme in lower case, so that the transport and the header cache see one URL. */
	snprintf(m->location, sizeof(m->location), "%s", source);
	for (size_t i = 0; i < k; i++)
		m->location[i] = (char)tolower((unsigned char)m->location[i]);
	m->remote = true;
	return CR_OK;
}

static int bad_scheme(const char *source, cr_error *err)
{
	size_t k = scheme_len(source);
	char cb[CLIP_BYTES + 32];

	return cr_setreason(
		err, CR_REASON_BAD_SOURCE,
		cr_seterr(err, CR_ERR_INVALID,
			  "%s: unsupported URL scheme '%.*s': a GGUF source is a local path, an http:// or https:// URL or hf:OWNER/REPO... (a local path with '://' in it: write it as ./PATH)",
			  clip(source, cb, sizeof(cb)), (int)(k - 3 > 16 ? 16 : k - 3), source));
}

/* ---- the model ----------------------------------------------------------------------- */

static int from_catalog(const char *id, const cr_model_source_opts *o, cr_model_source *m, cr_error *err)
{
	const cr_model *found;
	char cb[CLIP_BYTES + 32];
	shown sh;

	if (!o->catalog)
		return cr_setreason(err, CR_REASON_BAD_SOURCE,
				    cr_seterr(err, CR_ERR_INVALID,
					      "'%s' is not a GGUF source (a path, an http(s) URL or hf:OWNER/REPO...)",
					      show(id, &sh)));
	found = cr_catalog_find_model(o->catalog, id);
	if (!found)
		return cr_setreason(err, CR_REASON_UNKNOWN_MODEL,
				    cr_seterr(err, CR_ERR_NOTFOUND, "unknown model '%s'", clip(id, cb, sizeof(cb))));
	m->model = *found;
	return CR_OK;
}

static int from_gguf(const ctx *c, const char *source, cr_model_source *m, cr_error *err)
{
	int rc;

	switch (m->kind) {
	case CR_MODEL_SOURCE_HF:
		rc = hf_location(c, source, m, err);
		break;
	case CR_MODEL_SOURCE_URL:
		rc = url_location(source, m, err);
		break;
	case CR_MODEL_SOURCE_FILE:
		snprintf(m->location, sizeof(m->location), "%s", source);
		rc = CR_OK;
		break;
	default:
		rc = bad_scheme(source, err);
		break;
	}
	if (rc)
		return rc;
	if ((rc = load_part(c, m->location, m, err))) {
		/* Online, a file the repository does not have: the caller may list what it has. */
		if (rc == CR_ERR_NOTFOUND && m->kind == CR_MODEL_SOURCE_HF && c->o->cache != CR_MODEL_SOURCE_CACHE_OFFLINE)
			err->reason = CR_REASON_HF_FILE_NOT_FOUND;
		return rc;
	}
	if ((rc = load_split(c, m, err)))
		return rc;
	if ((rc = cr_gguf_to_model((const cr_gguf *const *)m->parts, m->n_parts, &m->gguf, err)))
		return rc;
	m->model = m->gguf.model;
	m->weights_bytes = m->gguf.weights_bytes;
	m->from_gguf = true;
	snprintf(m->file_type, sizeof(m->file_type), "%s", m->gguf.file_type);
	for (size_t p = 0; p < m->n_parts; p++)
		for (uint32_t t = 0; t < CR_GGML_TYPE_COUNT; t++)
			m->type_bytes[t] += cr_gguf_type_bytes(m->parts[p], t);
	return CR_OK;
}

int cr_model_source_resolve(const char *source, const cr_model_source_opts *o0, cr_model_source **out,
			    cr_error *err)
{
	static const cr_model_source_opts defaults = CR_MODEL_SOURCE_OPTS_INIT;
	const cr_model_source_opts *o = o0 ? o0 : &defaults;
	cr_model_source *m;
	cr_error local = CR_ERROR_INIT;
	ctx c;
	int rc;

	*out = NULL;
	if (!err)
		err = &local; /* the reasons are set on it */
	m = calloc(1, sizeof(*m));
	if (!m)
		return cr_seterr(err, CR_ERR_NOMEM, "out of memory");
	m->kind = cr_model_source_classify(source);
	if (m->kind == CR_MODEL_SOURCE_CATALOG) {
		rc = from_catalog(source, o, m, err);
	} else {
		ctx_init(&c, o);
		rc = CR_OK;
		if (m->kind == CR_MODEL_SOURCE_HF || m->kind == CR_MODEL_SOURCE_URL) {
			rc = cache_open(&c, err);
			m->cache_on = c.cache != NULL;
			load_token(&c);
		}
		if (!rc)
			rc = from_gguf(&c, source, m, err);
		ctx_clear(&c);
	}
	if (rc) {
		cr_model_source_free(m);
		return rc;
	}
	*out = m;
	return CR_OK;
}

void cr_model_source_free(cr_model_source *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->n_parts; i++)
		cr_gguf_free(m->parts[i]);
	free(m);
}
