/*
 * SOURCE resolution for the CLI: catalog ids, local GGUF files, URLs and
 * Hugging Face names, split files read as one model. Network and parsing are
 * the library's (source.h, gguf.h, hf.h); this file picks the URLs, the
 * token and the parts, and prints what went wrong.
 */
#include <errno.h>
#include <stdio.h>
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "source_model.h"

/* The file list of a repository: a few hundred entries at most. */
#define TREE_MAX_BYTES (8u << 20)

/* ---- one deadline per command ------------------------------------------------------ */

/* All the HTTP requests of one command share one deadline, so that many
 * slow requests cannot add up (before, 300 s per request let a 1100 B/s
 * server hold a user for 539 s). 300 s by default: what one request was
 * allowed before (cr_http_opts.max_time_s), now for the whole command;
 * CLEFRUN_HTTP_DEADLINE sets it, 1 s to 86400 s (a day, our bound). The
 * clock starts at the command's first request. */
#define DEADLINE_DEFAULT_S 300
#define DEADLINE_MAX_S 86400
/* The progress line appears once a command has waited this long on the
 * network (a fast download shows nothing), and is redrawn at most this
 * often. */
#define PROGRESS_AFTER_MS 1000
#define PROGRESS_EVERY_MS 250

static struct {
	long budget_s;       /* 0: not read yet */
	uint64_t deadline_ms;
	uint64_t started_ms;
	uint64_t drawn_ms;
	size_t drawn_len;     /* characters of the progress line on screen */
	int tty;              /* -1: not asked yet */
} net = { 0, 0, 0, 0, 0, -1 };

/* Read CLEFRUN_HTTP_DEADLINE once; a bad value is a usage error (printed). */
static int deadline_setup(void)
{
	const char *v = getenv("CLEFRUN_HTTP_DEADLINE");
	char *end;
	long n;

	if (net.budget_s)
		return 0;
	if (!v || !*v) {
		net.budget_s = DEADLINE_DEFAULT_S;
		return 0;
	}
	errno = 0;
	n = strtol(v, &end, 10);
	if (errno || *end || !(*v >= '0' && *v <= '9') || n < 1 || n > DEADLINE_MAX_S) {
		fprintf(stderr, "clefrun: CLEFRUN_HTTP_DEADLINE: '%.40s%s' is not a whole number of seconds from 1 to %d\n",
			v, strlen(v) > 40 ? "..." : "", DEADLINE_MAX_S);
		return EXIT_USAGE;
	}
	net.budget_s = n;
	return 0;
}

/* Erase the progress line, before anything else is printed on stderr. */
static void progress_clear(void)
{
	if (!net.drawn_len)
		return;
	fprintf(stderr, "\r%*s\r", (int)net.drawn_len, "");
	fflush(stderr);
	net.drawn_len = 0;
}

/* "clefrun: waiting for the network: 12 s of at most 300 s (this request: 340 KiB of 1.2 MiB)",
 * on a terminal only. */
static void on_progress(void *arg, uint64_t now_bytes, uint64_t total_bytes)
{
	uint64_t t = cr_http_now_ms();
	char line[160], of[48] = "";
	int n;

	(void)arg;
	if (net.tty < 0)
		net.tty = isatty(STDERR_FILENO) == 1;
	if (!net.tty || t - net.started_ms < PROGRESS_AFTER_MS || t - net.drawn_ms < PROGRESS_EVERY_MS)
		return;
	if (total_bytes)
		snprintf(of, sizeof(of), " of %.1f KiB", (double)total_bytes / 1024);
	n = snprintf(line, sizeof(line), "clefrun: downloading: %.1f KiB%s, %llu s of at most %ld s",
		     (double)now_bytes / 1024, of, (unsigned long long)((t - net.started_ms) / 1000),
		     net.budget_s);
	if (n < 0)
		return;
	fprintf(stderr, "\r%s%*s", line, net.drawn_len > (size_t)n ? (int)(net.drawn_len - (size_t)n) : 0, "");
	fflush(stderr);
	net.drawn_len = (size_t)n > net.drawn_len ? (size_t)n : net.drawn_len;
	net.drawn_ms = t;
}

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

cli_source_kind cli_source_classify(const char *s)
{
	size_t n = strlen(s), k = scheme_len(s);

	if (strncmp(s, CR_HF_PREFIX, 3) == 0)
		return CLI_SRC_HF;
	if (k && (scheme_is(s, "http://") || scheme_is(s, "https://")))
		return CLI_SRC_URL;
	if (k)
		return CLI_SRC_BAD_URL;
	if (strchr(s, '/') || (n > 5 && (strcmp(s + n - 5, ".gguf") == 0 || strcmp(s + n - 5, ".GGUF") == 0)))
		return CLI_SRC_FILE;
	return CLI_SRC_CATALOG;
}

/* Hugging Face settings from the environment (huggingface_hub's names). */
typedef struct hf_env {
	const char *endpoint;
	char token[512];
	bool have_token;
} hf_env;

static void hf_env_load(hf_env *e)
{
	const char *v = getenv("HF_ENDPOINT"), *home;
	char path[1024];
	cr_error ignore;

	memset(e, 0, sizeof(*e));
	e->endpoint = v && *v ? v : CR_HF_DEFAULT_ENDPOINT;
	v = getenv("HF_TOKEN");
	if (v && *v && strlen(v) < sizeof(e->token)) {
		memcpy(e->token, v, strlen(v) + 1);
		e->have_token = true;
		return;
	}
	v = getenv("HF_TOKEN_PATH");
	if (v && *v) {
		snprintf(path, sizeof(path), "%s", v);
	} else if ((home = getenv("HF_HOME")) && *home) {
		snprintf(path, sizeof(path), "%s/token", home);
	} else if ((home = getenv("HOME")) && *home) {
		snprintf(path, sizeof(path), "%s/.cache/huggingface/token", home);
	} else {
		return;
	}
	e->have_token = cr_hf_read_token_file(path, e->token, sizeof(e->token), &ignore) == CR_OK;
}

static void hf_env_clear(hf_env *e)
{
	memset(e->token, 0, sizeof(e->token));
}

static bool on_endpoint(const hf_env *e, const char *url)
{
	size_t n = strlen(e->endpoint);

	while (n && e->endpoint[n - 1] == '/')
		n--;
	return strncmp(url, e->endpoint, n) == 0 && url[n] == '/';
}

/* The token goes to the Hugging Face endpoint only, never to another URL. */
static void http_opts(const hf_env *e, const char *url, cr_http_opts *o)
{
	cr_http_opts d = CR_HTTP_OPTS_INIT;

	*o = d;
	/* The command's deadline replaces the cap per request. */
	if (!net.budget_s)
		net.budget_s = DEADLINE_DEFAULT_S;
	if (!net.deadline_ms) {
		net.started_ms = cr_http_now_ms();
		net.deadline_ms = net.started_ms + (uint64_t)net.budget_s * 1000u;
	}
	o->max_time_s = 0;
	o->deadline_ms = net.deadline_ms;
	o->deadline_budget_s = net.budget_s;
	o->progress = on_progress;
	if (e->have_token && on_endpoint(e, url))
		o->bearer_token = e->token;
}

/* A 401 or 403 of the Hugging Face endpoint without a token: how to send
 * one. Elsewhere no token is ever sent, so the library's "access denied
 * (no credentials were sent)" stands alone. */
static void auth_hint(const hf_env *e, const char *url, const cr_error *err)
{
	if (e && !e->have_token && on_endpoint(e, url) &&
	    (strstr(err->message, ": HTTP 401: access denied") || strstr(err->message, ": HTTP 403: access denied")))
		fprintf(stderr, "clefrun: (a gated or private repository: set HF_TOKEN, or log in with huggingface-cli)\n");
}

static void add_stats(cr_source_stats *to, const cr_source_stats *s)
{
	to->requests += s->requests;
	to->bytes_fetched += s->bytes_fetched;
	to->bytes_read += s->bytes_read;
}

static int fail(const cr_error *err)
{
	fprintf(stderr, "clefrun: %s\n", err->message);
	return EXIT_ERROR;
}

/* ---- the header cache ------------------------------------------------------------ */

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

/* The cache for this run: NULL with --no-cache (or without a usable
 * directory, online). Returns 0 or an exit code (printed). */
static int cache_open(const cli_source_opts *o, cr_cache **out)
{
	cr_cache_opts co = CR_CACHE_OPTS_INIT;
	cr_error err = CR_ERROR_INIT;
	char dir[4096];

	*out = NULL;
	if (o->no_cache && o->offline) {
		fprintf(stderr, "clefrun: --offline reads only the cache: it cannot go with --no-cache\n");
		return EXIT_USAGE;
	}
	if (o->no_cache)
		return 0;
	if (cr_cache_dir(getenv("XDG_CACHE_HOME"), getenv("HOME"), dir, sizeof(dir), &err)) {
		if (!o->offline)
			return 0; /* nowhere to cache: read from the network */
		fprintf(stderr, "clefrun: --offline: %s\n", err.message);
		return EXIT_ERROR;
	}
	co.mode = o->offline ? CR_CACHE_OFFLINE : CR_CACHE_USE;
	if (immutable_revision(o->revision))
		co.max_age_s = CR_CACHE_FOREVER;
	if (cr_cache_open(dir, &co, out, &err))
		return fail(&err);
	return 0;
}

/* One line on stderr for what went wrong with the cache (the result is good). */
static void cache_notice(const cr_cache_result *r)
{
	if (r->notice[0])
		fprintf(stderr, "clefrun: warning: %s\n", cli_safe(r->notice));
}

/* Errors of a read through the cache, in the CLI's words. */
static int cache_fail(const cr_cache *c, int rc, const cr_error *err)
{
	fail(err);
	if (rc == CR_ERR_NOTFOUND && c && cr_cache_get_mode(c) == CR_CACHE_OFFLINE &&
	    strstr(err->message, ": not in the cache ("))
		fprintf(stderr, "clefrun: (--offline reads only the cache: run once without it)\n");
	return EXIT_ERROR;
}

static void count_outcome(cli_gguf *g, const cr_cache_result *r)
{
	if (r->outcome == CR_CACHE_HIT)
		g->cache_hits++;
	else if (r->outcome == CR_CACHE_REVALIDATED)
		g->cache_revalidated++;
	else if (r->outcome == CR_CACHE_MISS)
		g->cache_misses++;
}

const char *cli_gguf_cache_word(const cli_gguf *g)
{
	if (!g->cache_on)
		return "off";
	if (g->cache_misses)
		return "miss";
	return g->cache_revalidated ? "revalidated" : "hit";
}

/* ---- parts ------------------------------------------------------------------------- */

/* Open one part (a path or a URL) and parse its header. Prints the error;
 * *status (optional) receives the library's status. */
static int load_part(const char *where, bool remote, const hf_env *e, const cli_source_opts *o,
		     cr_cache *cache, cli_gguf *g, int *status)
{
	cr_gguf_opts go = CR_GGUF_OPTS_INIT;
	cr_http_opts ho;
	cr_source *s = NULL;
	cr_source_stats st;
	cr_cache_result res;
	cr_error err = CR_ERROR_INIT;
	int rc;

	go.allow_truncated = o->allow_truncated;
	if (remote) {
		http_opts(e, where, &ho);
		rc = cr_cache_load_gguf(cache, where, &ho, &go, &g->parts[g->n_parts], &res, &err);
		progress_clear();
		cache_notice(&res);
		add_stats(&g->stats, &res.stats);
		count_outcome(g, &res);
		if (!rc)
			g->file_bytes += res.remote_bytes;
	} else {
		rc = cr_source_open_file(where, &s, &err);
		if (!rc)
			rc = cr_gguf_load(s, &go, &g->parts[g->n_parts], &err);
		if (s) {
			cr_source_get_stats(s, &st);
			add_stats(&g->stats, &st);
			if (!rc)
				g->file_bytes += cr_source_size(s);
		}
		cr_source_free(s);
	}
	if (status)
		*status = rc;
	if (rc) {
		cache_fail(cache, rc, &err);
		if (remote)
			auth_hint(e, where, &err);
		if (rc == CR_ERR_PARSE && !o->allow_truncated && strstr(err.message, "past the end of the file"))
			fprintf(stderr, "clefrun: (a file cut after its header? '%s --header-only' reads it)\n",
				o->command ? o->command : "clefrun inspect");
		if (rc == CR_ERR_PARSE && strstr(err.message, "not a GGUF file (magic '<"))
			fprintf(stderr, "clefrun: (a web page, not the file: on Hugging Face use the /resolve/ URL, or hf:OWNER/REPO/FILE.gguf)\n");
		return EXIT_ERROR;
	}
	g->n_parts++;
	return 0;
}

/* Part 1 is loaded; load the others its split.count announces. */
static int load_split(const char *first, bool remote, const hf_env *e, const cli_source_opts *o,
		      cr_cache *cache, cli_gguf *g)
{
	uint32_t count = 1, no = 0;
	cr_error err = CR_ERROR_INIT;
	char name[CR_URL_MAX * 2];
	int rc;

	(void)cr_gguf_get_u32(g->parts[0], "split.count", &count, NULL);
	(void)cr_gguf_get_u32(g->parts[0], "split.no", &no, NULL);
	if (count <= 1)
		return 0;
	if (no >= count) {
		/* split.no counts from 0: part no + 1 of count cannot exist. */
		fprintf(stderr, "clefrun: %s: split.no %u is not below split.count %u (parts are numbered from 0)\n",
			cli_shown(first), no, count);
		return EXIT_ERROR;
	}
	if (no != 0) {
		fprintf(stderr, "clefrun: %s is part %u of %u of a split model: give part 1 (-00001-of-%05u.gguf)\n",
			cli_shown(first), no + 1, count, count);
		return EXIT_USAGE;
	}
	if (count > CLI_MAX_PARTS) {
		fprintf(stderr, "clefrun: %s: split.count %u is above %d parts\n", cli_shown(first), count,
			CLI_MAX_PARTS);
		return EXIT_ERROR;
	}
	for (uint32_t k = 2; k <= count; k++) {
		if (cr_gguf_split_name(first, k, name, sizeof(name), &err)) {
			fprintf(stderr, "clefrun: %s: split.count is %u but %s\n", cli_shown(first), count, err.message);
			return EXIT_ERROR;
		}
		if ((rc = load_part(name, remote, e, o, cache, g, NULL)))
			return rc;
	}
	return 0;
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

/* The GGUF files of ref's repository. Prints errors unless @p quiet;
 * *status (optional) receives the library's status. */
static int hf_fetch_list(const hf_env *e, const cr_hf_ref *ref, const cli_source_opts *o, cr_cache *cache,
			 bool quiet, cr_hf_entry **entries, size_t *n, cr_source_stats *stats,
			 cli_gguf *g, int *status)
{
	char tree[CR_URL_MAX * 2], *body = NULL;
	size_t len;
	cr_http_opts ho;
	cr_cache_result res;
	cr_error err = CR_ERROR_INIT;
	int rc;

	*entries = NULL;
	*n = 0;
	if (status)
		*status = CR_OK;
	if (cr_hf_tree_url(e->endpoint, ref->repo, o->revision, tree, sizeof(tree), &err))
		return quiet ? EXIT_ERROR : fail(&err);
	http_opts(e, tree, &ho);
	rc = cr_cache_fetch_doc(cache, tree, &ho, TREE_MAX_BYTES, validate_tree, tree, &body, &len, &res, &err);
	progress_clear();
	if (status)
		*status = rc;
	if (!quiet)
		cache_notice(&res);
	if (stats)
		add_stats(stats, &res.stats);
	if (g)
		count_outcome(g, &res);
	if (rc == CR_ERR_NOTFOUND && !(cache && cr_cache_get_mode(cache) == CR_CACHE_OFFLINE)) {
		if (!quiet)
			fprintf(stderr, "clefrun: hf:%s: repository or revision '%s' not found (%s)\n", ref->repo,
				o->revision ? o->revision : CR_HF_DEFAULT_REVISION, err.message);
		return EXIT_ERROR;
	}
	if (rc) {
		if (quiet)
			return EXIT_ERROR;
		cache_fail(cache, rc, &err);
		auth_hint(e, tree, &err);
		return EXIT_ERROR;
	}
	rc = cr_hf_parse_tree(body, len, tree, entries, n, &err);
	free(body);
	if (rc)
		return quiet ? EXIT_ERROR : fail(&err);
	return 0;
}

static void list_quants(FILE *f, const cr_hf_entry *e, size_t n)
{
	bool any = false;

	for (size_t i = 0; i < n; i++) {
		if (e[i].projector || !e[i].quant[0])
			continue;
		fprintf(f, "%s%s", any ? ", " : " (the repository has: ", e[i].quant);
		any = true;
	}
	fprintf(f, "%s", any ? ")" : " (the repository has no GGUF quant)");
}

/* After a 404 on a file of a repository: what the repository does have. */
static void suggest_files(const hf_env *e, const cr_hf_ref *ref, const cli_source_opts *o, cr_cache *cache)
{
	cr_hf_entry *list = NULL;
	size_t n = 0;
	int status;

	if (hf_fetch_list(e, ref, o, cache, true, &list, &n, NULL, NULL, &status)) {
		if (status == CR_ERR_NOTFOUND)
			fprintf(stderr, "clefrun: hf:%s: repository or revision '%s' not found\n", ref->repo,
				o->revision ? o->revision : CR_HF_DEFAULT_REVISION);
		return;
	}
	if (!n) {
		fprintf(stderr, "clefrun: hf:%s has no GGUF file\n", ref->repo);
	} else {
		fprintf(stderr, "clefrun: hf:%s has %zu GGUF file%s: ", ref->repo, n, n == 1 ? "" : "s");
		for (size_t i = 0; i < n; i++)
			fprintf(stderr, "%s%s", i ? ", " : "", cli_safe(list[i].path));
		fprintf(stderr, "\n");
	}
	free(list);
}

int cli_hf_list(const char *source, const cli_source_opts *o0, cr_hf_entry **entries, size_t *n,
		cr_source_stats *stats)
{
	cli_source_opts o = o0 ? *o0 : (cli_source_opts)CLI_SOURCE_OPTS_INIT;
	cr_hf_ref ref;
	cr_error err = CR_ERROR_INIT;
	cr_cache *cache = NULL;
	hf_env e;
	int rc;

	*entries = NULL;
	*n = 0;
	if (cr_hf_parse(source, &ref, &err)) {
		fprintf(stderr, "clefrun: %s\n", err.message);
		return EXIT_USAGE;
	}
	if ((rc = deadline_setup()) || (rc = cache_open(&o, &cache)))
		return rc;
	hf_env_load(&e);
	rc = hf_fetch_list(&e, &ref, &o, cache, false, entries, n, stats, NULL, NULL);
	hf_env_clear(&e);
	cr_cache_free(cache);
	return rc;
}

int cli_gguf_open(const char *source, const cli_source_opts *o0, cli_gguf *g)
{
	cli_source_opts o = o0 ? *o0 : (cli_source_opts)CLI_SOURCE_OPTS_INIT;
	cli_source_kind kind = cli_source_classify(source);
	cr_cache *cache = NULL;
	cr_hf_ref ref;
	hf_env e;
	int rc, status = CR_OK;

	memset(g, 0, sizeof(*g));
	if (o.no_cache && o.offline) {
		fprintf(stderr, "clefrun: --offline reads only the cache: it cannot go with --no-cache\n");
		return EXIT_USAGE;
	}
	hf_env_load(&e);
	if (kind == CLI_SRC_HF || kind == CLI_SRC_URL) {
		if ((rc = deadline_setup()) || (rc = cache_open(&o, &cache)))
			goto out;
		g->cache_on = cache != NULL;
	}
	if (kind == CLI_SRC_HF) {
		cr_error err = CR_ERROR_INIT;
		char path[CR_HF_PATH_MAX];

		if (cr_hf_parse(source, &ref, &err)) {
			fprintf(stderr, "clefrun: %s\n", err.message);
			rc = EXIT_USAGE;
			goto out;
		}
		if (ref.kind == CR_HF_REPO) {
			fprintf(stderr,
				"clefrun: %s names a repository: pick a file with %s:QUANT or %s/FILE.gguf ('clefrun inspect %s' lists them)\n",
				source, source, source, source);
			rc = EXIT_USAGE;
			goto out;
		}
		if (ref.kind == CR_HF_QUANT) {
			cr_hf_entry *list;
			size_t n, idx;

			if ((rc = hf_fetch_list(&e, &ref, &o, cache, false, &list, &n, &g->stats, g, NULL)))
				goto out;
			if (cr_hf_pick_quant(list, n, ref.quant, &idx)) {
				fprintf(stderr, "clefrun: %s: no GGUF file of quant %s", cli_shown(source),
					cli_safe(ref.quant));
				list_quants(stderr, list, n);
				fprintf(stderr, "\n");
				free(list);
				rc = EXIT_USAGE; /* an unknown quant is a usage error (README, exit codes) */
				goto out;
			}
			snprintf(path, sizeof(path), "%s", list[idx].path);
			free(list);
		} else {
			snprintf(path, sizeof(path), "%s", ref.path);
		}
		if (cr_hf_file_url(e.endpoint, ref.repo, o.revision, path, g->location,
				   sizeof(g->location), &err)) {
			rc = fail(&err);
			goto out;
		}
		g->remote = true;
	} else if (kind == CLI_SRC_URL) {
		size_t k = scheme_len(source), h = strcspn(source + k, "/?#");
		const char *at = memchr(source + k, '@', h);

		if (h == 0 || (at && at == source + k + h - 1) || source[k] == ':') {
			fprintf(stderr, "clefrun: %s: the URL has no host (expected http(s)://HOST[:PORT]/PATH.gguf)\n",
				CLI_CLIP(source));
			rc = EXIT_USAGE;
			goto out;
		}
		/* The scheme in lower case, so that the transport and the header cache see one URL. */
		snprintf(g->location, sizeof(g->location), "%s", source);
		for (size_t i = 0; i < k; i++)
			g->location[i] = (char)tolower((unsigned char)g->location[i]);
		g->remote = true;
	} else if (kind == CLI_SRC_FILE) {
		snprintf(g->location, sizeof(g->location), "%s", source);
	} else if (kind == CLI_SRC_BAD_URL) {
		size_t k = scheme_len(source);

		fprintf(stderr,
			"clefrun: %s: unsupported URL scheme '%.*s': a GGUF source is a local path, an http:// or https:// URL or hf:OWNER/REPO... (a local path with '://' in it: write it as ./PATH)\n",
			CLI_CLIP(source), (int)(k - 3 > 16 ? 16 : k - 3), source);
		rc = EXIT_USAGE;
		goto out;
	} else {
		fprintf(stderr, "clefrun: '%s' is not a GGUF source (a path, an http(s) URL or hf:OWNER/REPO...)\n",
			cli_shown(source));
		rc = EXIT_USAGE;
		goto out;
	}
	rc = load_part(g->location, g->remote, &e, &o, cache, g, &status);
	if (rc && status == CR_ERR_NOTFOUND && kind == CLI_SRC_HF && !o.offline)
		suggest_files(&e, &ref, &o, cache);
	if (rc || (rc = load_split(g->location, g->remote, &e, &o, cache, g)))
		goto out;
	rc = 0;
out:
	hf_env_clear(&e);
	cr_cache_free(cache);
	if (rc)
		cli_gguf_close(g);
	return rc;
}

void cli_gguf_close(cli_gguf *g)
{
	for (size_t i = 0; i < g->n_parts; i++)
		cr_gguf_free(g->parts[i]);
	g->n_parts = 0;
}

int cli_resolve_model(const cr_catalog *cat, const char *id_or_source, const cli_source_opts *o,
		      cli_model *out)
{
	cli_gguf g;
	cr_gguf_model *gm;
	cr_error err = CR_ERROR_INIT;
	int rc;

	memset(out, 0, sizeof(*out));
	if (cli_source_classify(id_or_source) == CLI_SRC_CATALOG) {
		const cr_model *m = cli_find_model(cat, id_or_source);

		if (!m)
			return EXIT_USAGE;
		out->model = *m;
		return 0;
	}
	if ((rc = cli_gguf_open(id_or_source, o, &g)))
		return rc;
	gm = malloc(sizeof(*gm));
	if (!gm) {
		cli_gguf_close(&g);
		fprintf(stderr, "clefrun: out of memory\n");
		return EXIT_ERROR;
	}
	rc = cr_gguf_to_model((const cr_gguf *const *)g.parts, g.n_parts, gm, &err);
	if (rc) {
		rc = fail(&err);
	} else {
		out->model = gm->model;
		out->weights_bytes = gm->weights_bytes;
		out->from_gguf = true;
		snprintf(out->file_type, sizeof(out->file_type), "%s", gm->file_type);
		snprintf(out->location, sizeof(out->location), "%s", g.location);
		out->stats = g.stats;
	}
	free(gm);
	cli_gguf_close(&g);
	return rc;
}
