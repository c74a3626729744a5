/*
 * SOURCE resolution for the CLI: the library resolves
 * (clefrun/model_source.h); this file passes it the environment's settings
 * and the command's deadline, draws the progress line, and prints what went
 * wrong with the hint each reason code calls for (error.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "source_model.h"

/* ---- one deadline per command ------------------------------------------------------ */

/* All the HTTP requests of one command share one deadline, so that many
 * slow requests cannot add up (before, 300 s per request let a 1100 B/s
 * server hold a user for 539 s). 300 s by default: what one request was
 * allowed before (cr_http_opts.max_time_s), now for the whole command;
 * CLEFRUN_HTTP_DEADLINE sets it, 1 s to 86400 s (a day, our bound). The
 * clock starts when the command opens its first remote source (just before
 * its first request). */
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

/* A warning about the cache (the result is good), on its own line. */
static void on_notice(void *arg, const char *line)
{
	(void)arg;
	progress_clear();
	fprintf(stderr, "clefrun: warning: %s\n", cli_safe(line));
}

/* The settings of one resolution: the command line's and the environment's. */
static void source_opts(const cli_source_opts *o, bool remote, cr_model_source_opts *mo)
{
	cr_model_source_opts d = CR_MODEL_SOURCE_OPTS_INIT;

	*mo = d;
	mo->revision = o->revision;
	mo->allow_truncated = o->allow_truncated;
	mo->no_model = o->no_model;
	mo->cache = o->no_cache ? CR_MODEL_SOURCE_CACHE_OFF
		    : o->offline ? CR_MODEL_SOURCE_CACHE_OFFLINE
				 : CR_MODEL_SOURCE_CACHE_USE;
	mo->xdg_cache_home = getenv("XDG_CACHE_HOME");
	mo->home = getenv("HOME");
	mo->hf_endpoint = getenv("HF_ENDPOINT");
	mo->hf_token = getenv("HF_TOKEN");
	mo->hf_token_path = getenv("HF_TOKEN_PATH");
	mo->hf_home = getenv("HF_HOME");
	{
		/* The stores on disk, where their own programs look (docs/stores.md). */
		static char hub[4096], ollama[4096];
		const char *h = getenv("HF_HUB_CACHE");

		if (!h || !*h)
			h = getenv("HUGGINGFACE_HUB_CACHE"); /* huggingface_hub's legacy name */
		if (!cr_model_source_hf_hub_dir(h, mo->hf_home, mo->xdg_cache_home, mo->home, hub, sizeof(hub), NULL))
			mo->hf_hub_dir = hub;
		if (!cr_model_source_ollama_dir(getenv("OLLAMA_MODELS"), mo->home, ollama, sizeof(ollama), NULL))
			mo->ollama_dir = ollama;
	}
	mo->ollama_registry = o->ollama_registry;
	mo->notice = on_notice;
	if (!remote)
		return;
	/* The command's deadline replaces the cap per request; the clock starts
	 * at the command's first remote source. */
	if (!net.budget_s)
		net.budget_s = DEADLINE_DEFAULT_S;
	if (!net.deadline_ms) {
		net.started_ms = cr_http_now_ms();
		net.deadline_ms = net.started_ms + (uint64_t)net.budget_s * 1000u;
	}
	mo->http.max_time_s = 0;
	mo->http.deadline_ms = net.deadline_ms;
	mo->http.deadline_budget_s = net.budget_s;
	mo->http.progress = on_progress;
}

static bool conflict(const cli_source_opts *o)
{
	const char *r = o->ollama_registry;

	if (r && !((strncmp(r, "http://", 7) == 0 && r[7] && r[7] != '/') ||
		   (strncmp(r, "https://", 8) == 0 && r[8] && r[8] != '/'))) {
		fprintf(stderr, "clefrun: --ollama-registry '%s': expected an http:// or https:// URL with a host\n",
			cli_shown(CLI_CLIP(r)));
		return true;
	}
	if (!(o->no_cache && o->offline))
		return false;
	fprintf(stderr, "clefrun: --offline reads only the cache: it cannot go with --no-cache\n");
	return true;
}

/* After a file of a repository was not found: what the repository does have. */
static void suggest_files(const char *source, const cli_source_opts *o)
{
	cr_model_source_opts mo;
	cr_hf_entry *list = NULL;
	cr_error err = CR_ERROR_INIT;
	cr_hf_ref ref;
	size_t n = 0;

	source_opts(o, true, &mo);
	mo.notice = NULL;
	if (cr_hf_parse(source, &ref, &err))
		return;
	if (cr_model_source_list(source, &mo, &list, &n, NULL, &err)) {
		progress_clear();
		if (err.status == CR_ERR_NOTFOUND)
			fprintf(stderr, "clefrun: hf:%s: repository or revision '%s' not found\n", ref.repo,
				o->revision ? o->revision : CR_HF_DEFAULT_REVISION);
		return;
	}
	progress_clear();
	if (!n) {
		fprintf(stderr, "clefrun: hf:%s has no GGUF file\n", ref.repo);
	} else {
		fprintf(stderr, "clefrun: hf:%s has %zu GGUF file%s: ", ref.repo, n, n == 1 ? "" : "s");
		for (size_t i = 0; i < n; i++)
			fprintf(stderr, "%s%s", i ? ", " : "", cli_safe(list[i].path));
		fprintf(stderr, "\n");
	}
	free(list);
}

/* Print a resolution's error and the hint its reason calls for; the exit code. */
static int fail(const char *source, const cli_source_opts *o, const cr_error *err)
{
	progress_clear();
	if (err->reason == CR_REASON_HF_REPO)
		/* The whole sentence here: it names a command, and four copies of a long name do not fit a cr_error. */
		fprintf(stderr,
			"clefrun: %s names a repository: pick a file with %s:QUANT or %s/FILE.gguf ('clefrun inspect %s' lists them)\n",
			source, source, source, source);
	else
		fprintf(stderr, "clefrun: %s%s\n", err->reason == CR_REASON_OFFLINE_NO_CACHE_DIR ? "--offline: " : "",
			err->message);
	switch (err->reason) {
	case CR_REASON_OFFLINE_MISS:
		fprintf(stderr, "clefrun: (--offline reads only the cache: run once without it)\n");
		break;
	case CR_REASON_HF_AUTH:
		fprintf(stderr, "clefrun: (a gated or private repository: set HF_TOKEN, or log in with huggingface-cli)\n");
		break;
	case CR_REASON_TRUNCATED:
		if (err->status == CR_ERR_PARSE && !o->allow_truncated)
			fprintf(stderr, "clefrun: (a file cut after its header? '%s --header-only' reads it)\n",
				o->command ? o->command : "clefrun inspect");
		break;
	case CR_REASON_WEB_PAGE:
		if (err->status == CR_ERR_PARSE)
			fprintf(stderr, "clefrun: (a web page, not the file: on Hugging Face use the /resolve/ URL, or hf:OWNER/REPO/FILE.gguf)\n");
		break;
	case CR_REASON_HF_FILE_NOT_FOUND:
		suggest_files(source, o);
		break;
	case CR_REASON_OLLAMA_NOT_FOUND:
		fprintf(stderr, "clefrun: (the name as 'ollama list' shows it, or 'ollama pull' it first; 'clefrun models --local' lists what is here)\n");
		break;
	default:
		break;
	}
	switch (err->reason) {
	case CR_REASON_BAD_SOURCE:
	case CR_REASON_UNKNOWN_MODEL:
	case CR_REASON_HF_REPO:
	case CR_REASON_HF_NO_QUANT: /* an unknown quant is a usage error (README, exit codes) */
	case CR_REASON_SPLIT_NOT_FIRST:
		return EXIT_USAGE;
	default:
		return EXIT_ERROR;
	}
}

int cli_st_open(const char *source, const cli_source_opts *o, cr_st_checkpoint *out)
{
	cr_model_source_opts mo;
	cr_error err = CR_ERROR_INIT;
	bool remote = strncmp(source, CR_HF_PREFIX, strlen(CR_HF_PREFIX)) == 0;
	int rc;

	if (conflict(o))
		return EXIT_USAGE;
	source_opts(o, remote, &mo);
	rc = cr_st_source_load(source, &mo, out, &err);
	if (rc) {
		/* No --header-only hint: a checkpoint's shards are read header-only anyway. */
		cli_source_opts quiet = *o;

		quiet.allow_truncated = true;
		return fail(source, &quiet, &err);
	}
	progress_clear();
	return 0;
}

const char *cli_source_cache_word(const cr_model_source *m)
{
	switch (cr_model_source_cache_outcome(m)) {
	case CR_CACHE_NONE:
		return "off";
	case CR_CACHE_MISS:
		return "miss";
	case CR_CACHE_REVALIDATED:
		return "revalidated";
	default:
		return "hit";
	}
}

int cli_hf_list(const char *source, const cli_source_opts *o0, cr_hf_entry **entries, size_t *n,
		cr_source_stats *stats)
{
	cli_source_opts o = o0 ? *o0 : (cli_source_opts)CLI_SOURCE_OPTS_INIT;
	cr_model_source_opts mo;
	cr_error err = CR_ERROR_INIT;
	int rc;

	*entries = NULL;
	*n = 0;
	if ((rc = deadline_setup()))
		return rc;
	if (conflict(&o))
		return EXIT_USAGE;
	source_opts(&o, true, &mo);
	rc = cr_model_source_list(source, &mo, entries, n, stats, &err);
	progress_clear();
	if (rc && o.quiet)
		return EXIT_ERROR;
	return rc ? fail(source, &o, &err) : 0;
}

int cli_source_open(const char *source, const cli_source_opts *o0, cr_model_source **out)
{
	cli_source_opts o = o0 ? *o0 : (cli_source_opts)CLI_SOURCE_OPTS_INIT;
	cr_model_source_kind kind = cr_model_source_classify(source);
	bool remote = kind == CR_MODEL_SOURCE_HF || kind == CR_MODEL_SOURCE_URL || kind == CR_MODEL_SOURCE_OLLAMA;
	cr_model_source_opts mo;
	cr_error err = CR_ERROR_INIT;
	int rc;

	*out = NULL;
	if (conflict(&o))
		return EXIT_USAGE;
	if (remote && (rc = deadline_setup()))
		return rc;
	source_opts(&o, remote, &mo);
	rc = cr_model_source_resolve(source, &mo, out, &err);
	progress_clear();
	return rc ? fail(source, &o, &err) : 0;
}

/* A catalog alias with a '/' in it ("Qwen/Qwen3-8B") reads as a path; the
 * alias wins unless a regular file of that name exists ("./Qwen/Qwen3-8B"
 * always means the file: no alias starts with "."). */
static const cr_model *alias_not_file(const cr_catalog *cat, const char *s)
{
	const cr_model *m;
	struct stat st;

	if (cr_model_source_classify(s) != CR_MODEL_SOURCE_FILE || !(m = cr_catalog_find_model(cat, s)))
		return NULL;
	return stat(s, &st) == 0 && S_ISREG(st.st_mode) ? NULL : m;
}

int cli_resolve_model(const cr_catalog *cat, const char *id_or_source, const cli_source_opts *o,
		      cli_model *out)
{
	const cr_model *alias;
	cr_model_source *m = NULL;
	int rc;

	memset(out, 0, sizeof(*out));
	if ((alias = alias_not_file(cat, id_or_source))) {
		out->model = *alias;
		return 0;
	}
	if (cr_model_source_classify(id_or_source) == CR_MODEL_SOURCE_CATALOG) {
		/* The catalog's own lookup, which prints the suggestions. */
		const cr_model *found = cli_find_model(cat, id_or_source);

		if (!found)
			return EXIT_USAGE;
		out->model = *found;
		return 0;
	}
	if ((rc = cli_source_open(id_or_source, o, &m)))
		return rc;
	out->model = m->model;
	out->weights_bytes = m->weights_bytes;
	out->mapped_extra_bytes = m->gguf.mapped_extra_bytes;
	out->mtp_bytes = m->gguf.mtp_bytes;
	out->mtp_in_weights = m->gguf.mtp_bytes && !m->gguf.mtp_skipped;
	memcpy(out->type_bytes, m->type_bytes, sizeof(out->type_bytes));
	out->from_gguf = m->from_gguf;
	snprintf(out->file_type, sizeof(out->file_type), "%s", m->file_type);
	snprintf(out->location, sizeof(out->location), "%s", m->location);
	out->stats = m->stats;
	out->from_hub_cache = m->from_hub_cache;
	out->is_ollama = m->kind == CR_MODEL_SOURCE_OLLAMA;
	out->ollama = m->ollama;
	cr_model_source_free(m);
	return 0;
}
