/*
 * Model sources (model_source.h): a catalog id, a local GGUF, a URL or an
 * hf: name, split files read as one model. The bytes come from source.h
 * and cache.h, the names and URLs from hf.h, the mapping from gguf.h; this
 * file picks the URLs, the token and the parts. It was the CLI's
 * (src/cli/source_model.c) and keeps its messages word for word.
 */
#include "clefrun/model_source.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cjson/cJSON.h>

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
	if (strncmp(s, CR_OLLAMA_PREFIX, strlen(CR_OLLAMA_PREFIX)) == 0)
		return CR_MODEL_SOURCE_OLLAMA;
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

/* The hub cache (below). */
static bool hub_snapshot(const ctx *c, const cr_hf_ref *ref, char *dir, size_t cap);
static bool hub_list(const char *dir, cr_hf_entry **list, size_t *n);

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
	if (o->cache == CR_MODEL_SOURCE_CACHE_OFFLINE) {
		/* Offline, a repository the hub cache holds lists the files it has there. */
		char dir[4096];

		if (hub_snapshot(&c, &ref, dir, sizeof(dir)) && hub_list(dir, entries, n))
			return CR_OK;
	}
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
	uint32_t count = 1, no = 0, name_no = 0, name_count = 0;
	size_t plen = 0;
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
	/* The other parts are found by the name: it must say which part of how many. */
	if (!cr_gguf_split_parse(first, &plen, &name_no, &name_count))
		return cr_seterr(err, CR_ERR_INVALID,
				 "%s: split.count is %u, but the name does not end in -00001-of-%05u.gguf, so the "
				 "other parts cannot be found (give part 1 under its own name)",
				 show(first, &sh), count, count);
	if (name_count != count || name_no != 1)
		return cr_seterr(err, CR_ERR_INVALID,
				 "%s: the header says part 1 of %u, but the name says part %u of %u", show(first, &sh),
				 count, name_no, name_count);
	for (uint32_t k = 2; k <= count; k++) {
		if ((rc = cr_gguf_split_name(first, k, name, sizeof(name), &e2)))
			return cr_seterr(err, rc, "%s", e2.message);
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

/* ---- the Hugging Face hub cache ------------------------------------------------------ */

int cr_model_source_hf_hub_dir(const char *hub, const char *hf_home, const char *xdg, const char *home, char *buf,
			       size_t cap, cr_error *err)
{
	int n;

	/* huggingface_hub constants.py (v1.28.0): HF_HUB_CACHE, else HF_HOME/hub, HF_HOME
	 * defaulting to $XDG_CACHE_HOME/huggingface, then ~/.cache/huggingface. */
	if (hub && *hub)
		n = snprintf(buf, cap, "%s", hub);
	else if (hf_home && *hf_home)
		n = snprintf(buf, cap, "%s/hub", hf_home);
	else if (xdg && *xdg)
		n = snprintf(buf, cap, "%s/huggingface/hub", xdg);
	else if (home && *home)
		n = snprintf(buf, cap, "%s/.cache/huggingface/hub", home);
	else
		return cr_seterr(err, CR_ERR_NOTFOUND, "no Hugging Face hub cache (HF_HUB_CACHE, HF_HOME, HOME unset)");
	if (n < 0 || (size_t)n >= cap)
		return cr_seterr(err, CR_ERR_RANGE, "Hugging Face hub cache: path too long");
	return CR_OK;
}

int cr_model_source_ollama_dir(const char *models, const char *home, char *buf, size_t cap, cr_error *err)
{
	int n;

	/* Ollama envconfig/config.go (v0.33.0-rc2), Models(): OLLAMA_MODELS, else ~/.ollama/models. */
	if (models && *models)
		n = snprintf(buf, cap, "%s", models);
	else if (home && *home)
		n = snprintf(buf, cap, "%s/.ollama/models", home);
	else
		return cr_seterr(err, CR_ERR_NOTFOUND, "no Ollama store (OLLAMA_MODELS, HOME unset)");
	if (n < 0 || (size_t)n >= cap)
		return cr_seterr(err, CR_ERR_RANGE, "Ollama store: path too long");
	return CR_OK;
}

static bool is_dir(const char *p)
{
	struct stat st;

	return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

static bool is_file(const char *p, uint64_t *size)
{
	struct stat st;

	if (stat(p, &st) != 0 || !S_ISREG(st.st_mode))
		return false;
	if (size)
		*size = (uint64_t)st.st_size;
	return true;
}

/* The snapshot directory of ref's repository at the revision in the hub
 * cache, as huggingface_hub's try_to_load_from_cache (file_download.py)
 * finds it: models--OWNER--NAME/refs/REVISION holds the commit, unless the
 * revision is one; snapshots/COMMIT is the tree. false: not there. */
static bool hub_snapshot(const ctx *c, const cr_hf_ref *ref, char *dir, size_t cap)
{
	const char *rev = c->o->revision ? c->o->revision : CR_HF_DEFAULT_REVISION;
	const char *slash = strchr(ref->repo, '/');
	char repo_dir[4096], refs[4200], commit[48];
	int n;

	if (!c->o->hf_hub_dir || !*c->o->hf_hub_dir || !slash)
		return false;
	/* repo_folder_name: "models" and the repo id's parts joined by "--". */
	n = snprintf(repo_dir, sizeof(repo_dir), "%s/models--%.*s--%s", c->o->hf_hub_dir, (int)(slash - ref->repo),
		     ref->repo, slash + 1);
	if (n < 0 || (size_t)n >= sizeof(repo_dir))
		return false;
	if (immutable_revision(rev)) {
		snprintf(commit, sizeof(commit), "%s", rev);
	} else {
		FILE *f;
		size_t k;

		/* A revision names a file under refs/: no "..", no leading '/'. */
		if (rev[0] == '/' || strstr(rev, "..") || strlen(rev) > 255)
			return false;
		n = snprintf(refs, sizeof(refs), "%s/refs/%s", repo_dir, rev);
		if (n < 0 || (size_t)n >= sizeof(refs) || !is_file(refs, NULL) || !(f = fopen(refs, "r")))
			return false;
		k = fread(commit, 1, sizeof(commit) - 1, f);
		fclose(f);
		commit[k] = '\0';
		while (k && (commit[k - 1] == '\n' || commit[k - 1] == '\r' || commit[k - 1] == ' '))
			commit[--k] = '\0';
		if (!immutable_revision(commit))
			return false; /* not a commit: the file is not huggingface_hub's */
	}
	n = snprintf(dir, cap, "%s/snapshots/%s", repo_dir, commit);
	return n >= 0 && (size_t)n < cap && is_dir(dir);
}

/* The files under dir (depth <= 3), as a tree listing's items, in name
 * order (cr_dir_names). */
static void hub_walk(cJSON *arr, const char *dir, const char *rel, int depth)
{
	char **names = NULL;
	size_t nn;

	if (depth > 3)
		return;
	nn = cr_dir_names(dir, 10000, &names);
	for (size_t i = 0; i < nn && cJSON_GetArraySize(arr) < 10000; i++) {
		char full[4096], sub[1024];
		struct stat st;
		cJSON *it;
		int n1, n2;

		n1 = snprintf(full, sizeof(full), "%s/%s", dir, names[i]);
		n2 = snprintf(sub, sizeof(sub), "%s%s%s", rel, *rel ? "/" : "", names[i]);
		if (n1 < 0 || (size_t)n1 >= sizeof(full) || n2 < 0 || (size_t)n2 >= sizeof(sub) || stat(full, &st) != 0)
			continue;
		if (S_ISDIR(st.st_mode)) {
			hub_walk(arr, full, sub, depth + 1);
			continue;
		}
		if (!S_ISREG(st.st_mode) || !(it = cJSON_CreateObject()))
			continue;
		cJSON_AddStringToObject(it, "type", "file");
		cJSON_AddStringToObject(it, "path", sub);
		cJSON_AddNumberToObject(it, "size", (double)st.st_size);
		cJSON_AddItemToArray(arr, it);
	}
	for (size_t i = 0; i < nn; i++)
		free(names[i]);
	free(names);
}

/* The GGUF files of a snapshot directory, as a tree listing would list them. */
static bool hub_list(const char *dir, cr_hf_entry **list, size_t *n)
{
	cJSON *arr = cJSON_CreateArray();
	char *txt;
	bool ok;

	*list = NULL;
	*n = 0;
	if (!arr)
		return false;
	hub_walk(arr, dir, "", 0);
	txt = cJSON_PrintUnformatted(arr);
	cJSON_Delete(arr);
	if (!txt)
		return false;
	ok = cr_hf_parse_tree(txt, strlen(txt), dir, list, n, NULL) == CR_OK;
	cJSON_free(txt);
	return ok;
}

/* An hf: file or quant the hub cache holds: its path into m->location.
 * false: not there (the network decides). */
static bool hub_lookup(const ctx *c, const char *source, cr_model_source *m)
{
	char dir[4096], rel[CR_HF_PATH_MAX];
	cr_hf_ref ref;
	int n;

	if (cr_hf_parse(source, &ref, NULL) || ref.kind == CR_HF_REPO || !hub_snapshot(c, &ref, dir, sizeof(dir)))
		return false;
	if (ref.kind == CR_HF_FILE) {
		snprintf(rel, sizeof(rel), "%s", ref.path);
	} else {
		cr_hf_entry *list = NULL;
		size_t ne = 0, idx;
		bool ok;

		ok = hub_list(dir, &list, &ne) && cr_hf_pick_quant(list, ne, ref.quant, &idx) == CR_OK;
		/* Every part of a split quant must be there, else the network decides. */
		ok = ok && list[idx].parts == list[idx].split_count;
		if (ok)
			snprintf(rel, sizeof(rel), "%s", list[idx].path);
		free(list);
		if (!ok)
			return false;
	}
	n = snprintf(m->location, sizeof(m->location), "%s/%s", dir, rel);
	if (n < 0 || (size_t)n >= sizeof(m->location) || !is_file(m->location, NULL)) {
		m->location[0] = '\0';
		return false;
	}
	m->from_hub_cache = true;
	return true;
}

/* ---- Ollama ------------------------------------------------------------------------ */

static int validate_manifest(const char *body, size_t len, void *ud, cr_error *err)
{
	cr_ollama_manifest mf;

	return cr_ollama_parse_manifest(body, len, ud, &mf, err);
}

static int validate_params(const char *body, size_t len, void *ud, cr_error *err)
{
	cr_ollama_params p;

	return cr_ollama_parse_params(body, len, ud, &p, err);
}

/* The caller's transport options for a registry request (no token: the
 * Hugging Face token never goes to a registry), Accept as Ollama sends it. */
static void registry_opts(const ctx *c, cr_http_opts *out)
{
	*out = c->o->http;
	out->bearer_token = NULL;
	out->accept = CR_OLLAMA_MANIFEST_ACCEPT;
}

static int manifest_error(cr_error *err, int rc)
{
	return cr_setreason(err, CR_REASON_OLLAMA_MANIFEST, rc);
}

/* The params layer from the store or the registry into m->ollama. */
static int ollama_params(const ctx *c, const cr_ollama_ref *ref, const cr_ollama_manifest *mf,
			 cr_model_source *m, cr_error *err)
{
	char where[CR_URL_MAX * 2], *body = NULL;
	size_t len = 0;
	int rc;

	if (!mf->params.present)
		return CR_OK;
	if (m->ollama.local) {
		if ((rc = cr_ollama_blob_path(c->o->ollama_dir, mf->params.digest, where, sizeof(where), err)))
			return manifest_error(err, rc);
		rc = cr_file_read(where, CR_OLLAMA_PARAMS_MAX_BYTES, &body, &len, NULL, err);
		if (rc)
			return manifest_error(err, rc);
	} else {
		cr_http_opts ho;
		cr_cache_result res;

		if ((rc = cr_ollama_blob_url(c->o->ollama_registry, ref, mf->params.digest, where, sizeof(where), err)))
			return manifest_error(err, rc);
		registry_opts(c, &ho);
		ho.accept = NULL;
		rc = cr_cache_fetch_doc(c->cache, where, &ho, CR_OLLAMA_PARAMS_MAX_BYTES, validate_params, where, &body,
					&len, &res, err);
		notice(c, &res);
		add_stats(&m->stats, &res.stats);
		count_outcome(m, &res);
		if (rc)
			return err && err->reason == CR_REASON_NONE ? manifest_error(err, rc) : rc;
	}
	rc = cr_ollama_parse_params(body, len, where, &m->ollama.params, err);
	free(body);
	if (rc)
		return manifest_error(err, rc);
	m->ollama.has_params = true;
	return CR_OK;
}

static void ollama_layers(const cr_ollama_manifest *mf, cr_model_source *m)
{
	cr_strlcpy(m->ollama.model_digest, mf->model.digest, sizeof(m->ollama.model_digest));
	m->ollama.projector_bytes = mf->projector.present ? mf->projector.size : 0;
	m->ollama.has_template = mf->template_.present;
	m->ollama.has_license = mf->license.present;
}

/* An ollama: source: the manifest and the model layer's location, from the
 * store when it has the manifest, else from the registry (through the
 * cache, which is opened here). */
static int ollama_location(ctx *c, const char *source, cr_model_source *m, cr_error *err)
{
	cr_ollama_manifest mf;
	cr_ollama_ref ref;
	char path[CR_URL_MAX * 2], *body = NULL;
	size_t len = 0;
	bool missing = true;
	int rc;

	if ((rc = cr_ollama_parse(source, &ref, err)))
		return cr_setreason(err, CR_REASON_BAD_SOURCE, rc);
	cr_ollama_ref_string(&ref, m->ollama.name, sizeof(m->ollama.name));
	if (c->o->ollama_dir && *c->o->ollama_dir) {
		if ((rc = cr_ollama_manifest_path(c->o->ollama_dir, &ref, path, sizeof(path), err)))
			return rc;
		if ((rc = cr_file_read(path, CR_OLLAMA_MANIFEST_MAX_BYTES, &body, &len, &missing, err)))
			return manifest_error(err, rc);
	}
	if (!missing) {
		uint64_t size = 0;

		rc = cr_ollama_parse_manifest(body, len, path, &mf, err);
		free(body);
		if (rc)
			return manifest_error(err, rc);
		m->ollama.local = true;
		cr_strlcpy(m->ollama.manifest, path, sizeof(m->ollama.manifest));
		if ((rc = cr_ollama_blob_path(c->o->ollama_dir, mf.model.digest, m->location, sizeof(m->location), err)))
			return manifest_error(err, rc);
		if (!is_file(m->location, &size))
			return manifest_error(err, cr_seterr(err, CR_ERR_NOTFOUND,
							     "%s: the model layer %s is not in the store (%s is missing): pull it again with 'ollama pull %s'",
							     path, mf.model.digest, m->location, source + strlen(CR_OLLAMA_PREFIX)));
		if (size != mf.model.size)
			return manifest_error(err, cr_seterr(err, CR_ERR_INVALID,
							     "%s: the model layer %s is %llu bytes, the manifest says %llu: pull it again with 'ollama pull %s'",
							     m->location, mf.model.digest, (unsigned long long)size,
							     (unsigned long long)mf.model.size, source + strlen(CR_OLLAMA_PREFIX)));
	} else {
		cr_http_opts ho;
		cr_cache_result res;
		cr_error e2 = CR_ERROR_INIT;

		if ((rc = cache_open(c, err)))
			return rc;
		m->cache_on = c->cache != NULL;
		if ((rc = cr_ollama_manifest_url(c->o->ollama_registry, &ref, path, sizeof(path), err)))
			return cr_setreason(err, CR_REASON_BAD_SOURCE, rc);
		registry_opts(c, &ho);
		rc = cr_cache_fetch_doc(c->cache, path, &ho, CR_OLLAMA_MANIFEST_MAX_BYTES, validate_manifest, path, &body,
					&len, &res, &e2);
		notice(c, &res);
		add_stats(&m->stats, &res.stats);
		count_outcome(m, &res);
		if (rc == CR_ERR_NOTFOUND && !offline(c))
			return cr_setreason(err, CR_REASON_OLLAMA_NOT_FOUND,
					    cr_seterr(err, CR_ERR_NOTFOUND, "%s: not in the Ollama store%s%s%s nor on the registry (%s)",
						      source, c->o->ollama_dir ? " (" : "", c->o->ollama_dir ? c->o->ollama_dir : "",
						      c->o->ollama_dir ? ")" : "", e2.message));
		if (rc) {
			cr_errcopy(err, rc, &e2);
			return e2.reason == CR_REASON_NONE && e2.status == CR_ERR_PARSE ? manifest_error(err, rc) : rc;
		}
		rc = cr_ollama_parse_manifest(body, len, path, &mf, err);
		free(body);
		if (rc)
			return manifest_error(err, rc);
		cr_strlcpy(m->ollama.manifest, path, sizeof(m->ollama.manifest));
		if ((rc = cr_ollama_blob_url(c->o->ollama_registry, &ref, mf.model.digest, m->location, sizeof(m->location),
					     err)))
			return manifest_error(err, rc);
		m->remote = true;
	}
	ollama_layers(&mf, m);
	return ollama_params(c, &ref, &mf, m, err);
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

static int from_gguf(ctx *c, const char *source, cr_model_source *m, cr_error *err)
{
	int rc;

	switch (m->kind) {
	case CR_MODEL_SOURCE_HF:
		rc = m->from_hub_cache ? CR_OK : hf_location(c, source, m, err);
		break;
	case CR_MODEL_SOURCE_OLLAMA:
		rc = ollama_location(c, source, m, err);
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
		if (rc == CR_ERR_NOTFOUND && m->kind == CR_MODEL_SOURCE_HF && !m->from_hub_cache &&
		    c->o->cache != CR_MODEL_SOURCE_CACHE_OFFLINE)
			err->reason = CR_REASON_HF_FILE_NOT_FOUND;
		if (m->kind == CR_MODEL_SOURCE_OLLAMA && err) {
			/* The reader names the blob; say which model's layer it is. */
			cr_error e2 = *err;

			(void)cr_seterr(err, rc, "%s: model layer: %s", source, e2.message);
			err->reason = e2.reason;
		}
		return rc;
	}
	if ((rc = load_split(c, m, err)))
		return rc;
	if (c->o->no_model)
		return CR_OK;
	if ((rc = cr_gguf_to_model((const cr_gguf *const *)m->parts, m->n_parts, &m->gguf, err)))
		return rc;
	if (m->kind == CR_MODEL_SOURCE_OLLAMA) {
		/* The blob's file name is a digest: the model is known by its Ollama name. */
		cr_ollama_ref ref;

		if (!cr_ollama_parse(source, &ref, NULL))
			cr_ollama_ref_short(&ref, m->gguf.model.id, sizeof(m->gguf.model.id));
	}
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
		/* An hf: file the hub cache holds is a local file: no cache, no token. */
		if (m->kind == CR_MODEL_SOURCE_HF && hub_lookup(&c, source, m)) {
			/* read from the disk below */
		} else if (m->kind == CR_MODEL_SOURCE_HF || m->kind == CR_MODEL_SOURCE_URL) {
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
