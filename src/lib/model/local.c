/*
 * The models on this machine (local.h): Ollama's store, the Hugging Face
 * hub cache, LM Studio's models folder and the caller's folders, each model
 * read from its GGUF header through model_source.h as a local file. The
 * layouts are docs/stores.md's.
 */
#include "clefrun/local.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "clefrun/model_source.h"
#include "clefrun/ollama.h"
#include "util.h"

typedef struct scan {
	const cr_local_scan_opts *o;
	cr_local_model *v;
	size_t n, cap;
	bool truncated, nomem;
} scan;

const char *cr_local_store_name(cr_local_store s)
{
	switch (s) {
	case CR_LOCAL_OLLAMA:
		return "ollama";
	case CR_LOCAL_HF:
		return "hf-cache";
	case CR_LOCAL_LMSTUDIO:
		return "lmstudio";
	default:
		return "path";
	}
}

size_t cr_local_lmstudio_dirs(const char *home, char bufs[2][4096], const char *dirs[2])
{
	if (!home || !*home)
		return 0;
	/* lmstudio.ai/docs/advanced/sideload: ~/.lmstudio/models/PUBLISHER/MODEL/FILE.gguf;
	 * older releases kept the same tree in ~/.cache/lm-studio/models (docs/stores.md). */
	snprintf(bufs[0], 4096, "%s/.lmstudio/models", home);
	snprintf(bufs[1], 4096, "%s/.cache/lm-studio/models", home);
	dirs[0] = bufs[0];
	dirs[1] = bufs[1];
	return 2;
}

/* a/b into buf; false when it does not fit (such a path is skipped). */
static bool join(char *buf, size_t cap, const char *a, const char *b)
{
	int w = snprintf(buf, cap, "%s/%s", a, b);

	return w >= 0 && (size_t)w < cap;
}

static bool ends_gguf(const char *s)
{
	size_t n = strlen(s);

	return n > 5 && (strcmp(s + n - 5, ".gguf") == 0 || strcmp(s + n - 5, ".GGUF") == 0);
}

/* A new entry, or NULL (full: truncated; out of memory). */
static cr_local_model *add(scan *s, cr_local_store store, const char *source, const char *path)
{
	cr_local_model *e;

	if (s->n >= CR_LOCAL_MAX_MODELS) {
		s->truncated = true;
		return NULL;
	}
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 32;
		cr_local_model *nv = realloc(s->v, cap * sizeof(*nv));

		if (!nv) {
			s->nomem = true;
			return NULL;
		}
		s->v = nv;
		s->cap = cap;
	}
	e = &s->v[s->n++];
	memset(e, 0, sizeof(*e));
	e->store = store;
	cr_strlcpy(e->source, source, sizeof(e->source));
	cr_strlcpy(e->path, path, sizeof(e->path));
	return e;
}

/* Read the header of e->source (a local file or an ollama: name in the store) into e. */
static void read_header(const scan *s, cr_local_model *e)
{
	cr_model_source_opts mo = CR_MODEL_SOURCE_OPTS_INIT;
	cr_model_source *m = NULL;
	cr_error err = CR_ERROR_INIT;
	int rc;

	mo.allow_truncated = s->o->allow_truncated;
	/* Offline without a cache directory: anything that would need the network fails instead. */
	mo.cache = CR_MODEL_SOURCE_CACHE_OFFLINE;
	mo.ollama_dir = s->o->ollama_dir;
	/* Found on disk: read from the disk. An ollama: name is read through the store
	 * (it has the manifest); everything else by its path. */
	rc = cr_model_source_resolve(e->store == CR_LOCAL_OLLAMA ? e->source : e->path, &mo, &m, &err);
	if (rc) {
		e->status = rc;
		cr_strlcpy(e->error, err.message, sizeof(e->error));
		return;
	}
	if (e->store == CR_LOCAL_OLLAMA)
		cr_strlcpy(e->path, m->location, sizeof(e->path));
	e->file_bytes = m->file_bytes;
	e->parts = (uint32_t)m->n_parts;
	cr_strlcpy(e->arch, m->n_parts ? cr_gguf_arch(m->parts[0]) : "", sizeof(e->arch));
	cr_strlcpy(e->name, m->model.name, sizeof(e->name));
	cr_strlcpy(e->file_type, m->file_type, sizeof(e->file_type));
	e->params = m->model.params;
	e->context_max = m->model.context_max;
	e->ollama_num_ctx = m->ollama.params.num_ctx;
	cr_model_source_free(m);
}

/* Directory entries, sorted, without "." names (cr_dir_names). */
static size_t list_dir(const char *dir, char ***names)
{
	return cr_dir_names(dir, 100000, names);
}

static void free_names(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

static int kind_of(const char *path)
{
	struct stat st;

	if (stat(path, &st) != 0)
		return 0;
	return S_ISDIR(st.st_mode) ? 'd' : S_ISREG(st.st_mode) ? 'f' : 0;
}

/* A GGUF worth listing: not a projector, not a later split part. */
static bool listed_file(const char *name)
{
	size_t plen;
	uint32_t no, count;

	if (!ends_gguf(name) || strncmp(name, "mmproj", 6) == 0)
		return false;
	return !(cr_gguf_split_parse(name, &plen, &no, &count) && no != 1);
}

/* *.gguf under dir (depth levels at most), listed as paths of @p store. */
static void walk(scan *s, cr_local_store store, const char *dir, int depth)
{
	char **names;
	size_t n = list_dir(dir, &names);

	for (size_t i = 0; i < n && !s->nomem && !s->truncated; i++) {
		char full[CR_URL_MAX];
		int w = snprintf(full, sizeof(full), "%s/%s", dir, names[i]);
		int k;

		if (w < 0 || (size_t)w >= sizeof(full))
			continue;
		k = kind_of(full);
		if (k == 'd' && depth < CR_LOCAL_MAX_DEPTH)
			walk(s, store, full, depth + 1);
		else if (k == 'f' && listed_file(names[i]))
			(void)add(s, store, full, full);
	}
	free_names(names, n);
}

/* Ollama: manifests/HOST/NS/MODEL/TAG. */
static void scan_ollama(scan *s)
{
	char base[CR_URL_MAX];
	char **hosts;
	size_t nh;

	if (!s->o->ollama_dir || !*s->o->ollama_dir)
		return;
	if (!join(base, sizeof(base), s->o->ollama_dir, "manifests"))
		return;
	nh = list_dir(base, &hosts);
	for (size_t a = 0; a < nh; a++) {
		char p1[CR_URL_MAX], **nss;
		size_t nn;

		if (!join(p1, sizeof(p1), base, hosts[a]))
			continue;
		nn = list_dir(p1, &nss);
		for (size_t b = 0; b < nn; b++) {
			char p2[CR_URL_MAX], **models;
			size_t nm;

			if (!join(p2, sizeof(p2), p1, nss[b]))
				continue;
			nm = list_dir(p2, &models);
			for (size_t c = 0; c < nm; c++) {
				char p3[CR_URL_MAX], **tags;
				size_t nt;

				if (!join(p3, sizeof(p3), p2, models[c]))
					continue;
				nt = list_dir(p3, &tags);
				for (size_t d = 0; d < nt && !s->nomem && !s->truncated; d++) {
					char name[CR_URL_MAX], src[CR_URL_MAX], path[CR_URL_MAX];
					cr_ollama_ref r;
					cr_local_model *e;

					if (!join(path, sizeof(path), p3, tags[d]) || kind_of(path) != 'f')
						continue;
					snprintf(name, sizeof(name), "%s%s/%s/%s:%s", CR_OLLAMA_PREFIX, hosts[a], nss[b],
						 models[c], tags[d]);
					/* A folder name Ollama would not write is not a model of it. */
					if (cr_ollama_parse(name, &r, NULL))
						continue;
					snprintf(src, sizeof(src), "%s", CR_OLLAMA_PREFIX);
					cr_ollama_ref_short(&r, src + strlen(src), sizeof(src) - strlen(src));
					if ((e = add(s, CR_LOCAL_OLLAMA, src, path)))
						read_header(s, e);
				}
				free_names(tags, nt);
			}
			free_names(models, nm);
		}
		free_names(nss, nn);
	}
	free_names(hosts, nh);
}

/* The commit refs/main holds, or "". */
static void main_commit(const char *repo_dir, char *commit, size_t cap)
{
	char path[CR_URL_MAX];
	FILE *f;
	size_t k;

	commit[0] = '\0';
	if (!join(path, sizeof(path), repo_dir, "refs/main") || kind_of(path) != 'f' || !(f = fopen(path, "r")))
		return;
	k = fread(commit, 1, cap - 1, f);
	fclose(f);
	commit[k] = '\0';
	while (k && (commit[k - 1] == '\n' || commit[k - 1] == '\r' || commit[k - 1] == ' '))
		commit[--k] = '\0';
}

/* GGUF files under a snapshot, named hf:OWNER/REPO/REL when it is main's, else by path. */
static void walk_snapshot(scan *s, const char *repo, bool is_main, const char *dir, const char *rel, int depth)
{
	char **names;
	size_t n = list_dir(dir, &names);

	for (size_t i = 0; i < n && !s->nomem && !s->truncated; i++) {
		char full[CR_URL_MAX], sub[CR_URL_MAX], src[CR_URL_MAX];
		int w1 = snprintf(full, sizeof(full), "%s/%s", dir, names[i]);
		int w2 = snprintf(sub, sizeof(sub), "%s%s%s", rel, *rel ? "/" : "", names[i]);
		cr_hf_ref ref;
		cr_local_model *e;
		int k;

		if (w1 < 0 || (size_t)w1 >= sizeof(full) || w2 < 0 || (size_t)w2 >= sizeof(sub))
			continue;
		k = kind_of(full);
		if (k == 'd' && depth < CR_LOCAL_MAX_DEPTH) {
			walk_snapshot(s, repo, is_main, full, sub, depth + 1);
			continue;
		}
		if (k != 'f' || !listed_file(names[i]))
			continue;
		w1 = snprintf(src, sizeof(src), "hf:%s/%s", repo, sub);
		/* The hf: name only where it names this file (main's snapshot, a name hf: accepts). */
		if (w1 < 0 || (size_t)w1 >= sizeof(src) || !is_main || cr_hf_parse(src, &ref, NULL) || ref.kind != CR_HF_FILE)
			snprintf(src, sizeof(src), "%s", full);
		if ((e = add(s, CR_LOCAL_HF, src, full)))
			read_header(s, e);
	}
	free_names(names, n);
}

/* The hub cache: models--OWNER--REPO/snapshots/COMMIT/... */
static void scan_hf(scan *s)
{
	const char *hub = s->o->hf_hub_dir;
	char **repos;
	size_t nr;

	if (!hub || !*hub)
		return;
	nr = list_dir(hub, &repos);
	for (size_t i = 0; i < nr; i++) {
		char repo_dir[CR_URL_MAX], snaps[CR_URL_MAX], repo[CR_HF_REPO_MAX], commit[64], **commits;
		const char *sep;
		size_t nc;

		/* repo_folder_name (file_download.py): "models" and the id's parts joined by "--". */
		if (strncmp(repos[i], "models--", 8) != 0 || !(sep = strstr(repos[i] + 8, "--")) || sep == repos[i] + 8 ||
		    !sep[2])
			continue;
		snprintf(repo, sizeof(repo), "%.*s/%s", (int)(sep - (repos[i] + 8)), repos[i] + 8, sep + 2);
		if (!join(repo_dir, sizeof(repo_dir), hub, repos[i]) || !join(snaps, sizeof(snaps), repo_dir, "snapshots"))
			continue;
		main_commit(repo_dir, commit, sizeof(commit));
		nc = list_dir(snaps, &commits);
		for (size_t c = 0; c < nc && !s->nomem && !s->truncated; c++) {
			char dir[CR_URL_MAX];

			if (join(dir, sizeof(dir), snaps, commits[c]) && kind_of(dir) == 'd')
				walk_snapshot(s, repo, commit[0] && strcmp(commit, commits[c]) == 0, dir, "", 0);
		}
		free_names(commits, nc);
	}
	free_names(repos, nr);
}

static int order(const void *a, const void *b)
{
	const cr_local_model *x = a, *y = b;

	if (x->store != y->store)
		return (int)x->store - (int)y->store;
	return strcmp(x->source, y->source);
}

int cr_local_scan(const cr_local_scan_opts *o, cr_local_model **out, size_t *n, bool *truncated, cr_error *err)
{
	static const cr_local_scan_opts defaults = CR_LOCAL_SCAN_OPTS_INIT;
	scan s;

	memset(&s, 0, sizeof(s));
	s.o = o ? o : &defaults;
	*out = NULL;
	*n = 0;
	scan_ollama(&s);
	scan_hf(&s);
	for (size_t i = 0; i < s.o->n_lmstudio && i < CR_LOCAL_MAX_DIRS; i++)
		if (s.o->lmstudio_dirs[i] && *s.o->lmstudio_dirs[i])
			walk(&s, CR_LOCAL_LMSTUDIO, s.o->lmstudio_dirs[i], 0);
	for (size_t i = 0; i < s.o->n_paths && i < CR_LOCAL_MAX_DIRS; i++) {
		const char *p = s.o->paths[i];
		int k;

		if (!p || !*p)
			continue;
		k = kind_of(p);
		if (k == 'd') {
			walk(&s, CR_LOCAL_PATH, p, 0);
		} else {
			cr_local_model *e = add(&s, CR_LOCAL_PATH, p, p);

			if (e && k != 'f') {
				e->status = CR_ERR_IO;
				snprintf(e->error, sizeof(e->error), "%s: no such file or folder", p);
			}
		}
	}
	for (size_t i = 0; i < s.n; i++)
		if (s.v[i].store != CR_LOCAL_OLLAMA && s.v[i].store != CR_LOCAL_HF && !s.v[i].status)
			read_header(&s, &s.v[i]);
	if (s.nomem) {
		free(s.v);
		return cr_seterr(err, CR_ERR_NOMEM, "out of memory");
	}
	if (s.n)
		qsort(s.v, s.n, sizeof(*s.v), order);
	*out = s.v;
	*n = s.n;
	if (truncated)
		*truncated = s.truncated;
	return CR_OK;
}
