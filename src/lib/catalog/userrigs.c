/*
 * Saved rigs (include/clefrun/userrigs.h): load and validate like the
 * catalog, edit in memory, write atomically.
 *
 * Why the atomic write looks the way it does: rename(2) replaces the
 * directory entry in one step, so readers see the old or the new file; the
 * fsync of the temporary file before the rename makes sure the new name
 * never points at data still in the page cache (ext4/xfs may otherwise
 * persist the rename first, leaving an empty file after a crash), and the
 * fsync of the directory makes the rename itself durable.
 */
#include "clefrun/userrigs.h"
#include "clefrun/file.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "catalog_internal.h"
#include "json_read.h"
#include "rig_internal.h"
#include "suggest_internal.h"
#include "util.h"

/* A saved-rigs file is a few KiB; refuse anything absurd before parsing. */
#define USERRIGS_FILE_MAX (4u << 20)
#define PATH_CAP 4096

struct cr_user_rigs {
	cr_rig *rigs;
	size_t n, cap;
};

/* ---- path ---------------------------------------------------------------- */

int cr_userrigs_path(const char *xdg, const char *home, char *buf, size_t cap, cr_error *err)
{
	int n;

	if (!buf || cap == 0)
		return cr_seterr(err, CR_ERR_INVALID, "saved rigs: no buffer for the path");
	/* XDG Base Directory spec: a relative XDG_CONFIG_HOME is invalid and
	 * must be ignored. */
	if (xdg && xdg[0] == '/')
		n = snprintf(buf, cap, "%s/clefrun/rigs.json", xdg);
	else if (home && home[0])
		n = snprintf(buf, cap, "%s/.config/clefrun/rigs.json", home);
	else
		return cr_seterr(err, CR_ERR_INVALID,
				 "saved rigs: neither XDG_CONFIG_HOME (absolute) nor HOME is set");
	if (n < 0 || (size_t)n >= cap)
		return cr_seterr(err, CR_ERR_INVALID, "saved rigs: path too long");
	return CR_OK;
}

/* ---- the set ------------------------------------------------------------- */

int cr_userrigs_new(cr_user_rigs **out, cr_error *err)
{
	*out = calloc(1, sizeof(**out));
	return *out ? CR_OK : cr_seterr(err, CR_ERR_NOMEM, "out of memory");
}

void cr_userrigs_free(cr_user_rigs *set)
{
	if (!set)
		return;
	free(set->rigs);
	free(set);
}

size_t cr_userrigs_count(const cr_user_rigs *set)
{
	return set ? set->n : 0;
}

const cr_rig *cr_userrigs_at(const cr_user_rigs *set, size_t i)
{
	return set && i < set->n ? &set->rigs[i] : NULL;
}

const cr_rig *cr_userrigs_find(const cr_user_rigs *set, const char *id)
{
	if (!set || !id)
		return NULL;
	for (size_t i = 0; i < set->n; i++)
		if (cr_strcasecmp(set->rigs[i].id, id) == 0)
			return &set->rigs[i];
	return NULL;
}

static int push_rig(cr_user_rigs *set, const cr_rig *r, cr_error *err)
{
	if (set->n == set->cap || !set->rigs) {
		size_t cap = set->cap ? set->cap * 2 : 8;
		cr_rig *n = realloc(set->rigs, cap * sizeof(*n));

		if (!n)
			return cr_seterr(err, CR_ERR_NOMEM, "out of memory");
		set->rigs = n;
		set->cap = cap;
	}
	set->rigs[set->n++] = *r;
	return CR_OK;
}

/* ---- ids ------------------------------------------------------------------ */

/* The catalog's id syntax (json_read.c jr_check_id, lower case). */
static bool id_syntax_ok(const char *id)
{
	size_t n = strlen(id);

	if (n == 0 || n >= CR_ID_MAX)
		return false;
	for (size_t i = 0; i < n; i++) {
		char ch = id[i];
		bool ok = (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') ||
			  (i > 0 && (ch == '.' || ch == '+' || ch == '_' || ch == '-'));

		if (!ok)
			return false;
	}
	return true;
}

static bool id_taken(const cr_user_rigs *set, const cr_catalog *cat, const char *id)
{
	return cr_strcasecmp(id, CR_USERRIGS_LOCAL_ID) == 0 || (cat && cr_catalog_find_rig(cat, id)) ||
	       cr_userrigs_find(set, id);
}

/* A free name close to a taken one: "my-ID", else "ID-2", "ID-3", ... */
static void free_name(const cr_user_rigs *set, const cr_catalog *cat, const char *id, char *buf,
		      size_t cap)
{
	int n = snprintf(buf, cap, "my-%s", id);

	if (n > 0 && (size_t)n < CR_ID_MAX && (size_t)n < cap && !id_taken(set, cat, buf))
		return;
	for (int k = 2; k < 100; k++) {
		n = snprintf(buf, cap, "%.*s-%d", CR_ID_MAX - 5, id, k);
		if (n > 0 && (size_t)n < cap && !id_taken(set, cat, buf))
			return;
	}
	cr_strlcpy(buf, "my-rig", cap);
}

int cr_userrigs_check_id(const cr_user_rigs *set, const char *id, const cr_catalog *cat,
			 cr_error *err)
{
	char alt[CR_ID_MAX + 8];

	if (!id || !id_syntax_ok(id)) {
		char lower[CR_ID_MAX];
		size_t i = 0;

		/* Suggest the lower-case spelling when that is all that is wrong. */
		for (; id && id[i] && i + 1 < sizeof(lower); i++)
			lower[i] = (id[i] >= 'A' && id[i] <= 'Z') ? (char)(id[i] + 'a' - 'A')
								  : id[i];
		lower[i] = '\0';
		if (id && strlen(id) < CR_ID_MAX && id_syntax_ok(lower))
			return cr_seterr(err, CR_ERR_INVALID,
					 "invalid rig name \"%s\": use lower case, e.g. \"%s\"", id,
					 lower);
		/* a long name is cut in the message: 64 bytes then "..." */
		return cr_seterr(err, CR_ERR_INVALID,
				 "invalid rig name \"%.64s%s\" (allowed: a-z 0-9, then . + _ -; at most %d characters)",
				 id ? id : "", id && strlen(id) > 64 ? "..." : "", CR_ID_MAX - 1);
	}
	if (strcmp(id, CR_USERRIGS_LOCAL_ID) == 0) {
		free_name(set, cat, id, alt, sizeof(alt));
		return cr_seterr(err, CR_ERR_INVALID,
				 "\"%s\" is reserved for the detected machine's rig; pick another name, e.g. \"%s\"",
				 id, alt);
	}
	if (cat && cr_catalog_find_rig(cat, id)) {
		free_name(set, cat, id, alt, sizeof(alt));
		return cr_seterr(err, CR_ERR_INVALID,
				 "\"%s\" is a catalog rig id and a saved rig may not shadow it; pick another name, e.g. \"%s\"",
				 id, alt);
	}
	return CR_OK;
}

/* ---- JSON ----------------------------------------------------------------- */

static cJSON *rig_to_cjson(const cr_rig *r)
{
	cJSON *o = cJSON_CreateObject(), *devs, *src;
	bool ok = o != NULL;

	ok = ok && cJSON_AddStringToObject(o, "id", r->id);
	ok = ok && cJSON_AddStringToObject(o, "name", r->name);
	ok = ok && cJSON_AddBoolToObject(o, "reference", r->reference);
	ok = ok && cJSON_AddStringToObject(o, "status", r->unreleased ? "unreleased" : "released");
	ok = ok && (devs = cJSON_AddArrayToObject(o, "devices"));
	for (unsigned i = 0; ok && i < r->n_devices; i++) {
		const cr_device *d = &r->devices[i];
		cJSON *dj = cJSON_CreateObject();

		ok = dj && cJSON_AddItemToArray(devs, dj);
		ok = ok && cJSON_AddStringToObject(dj, "name", d->name);
		ok = ok && cJSON_AddNumberToObject(dj, "count", d->count);
		ok = ok && cJSON_AddNumberToObject(dj, "memory_gib", d->memory_gib);
		ok = ok && cJSON_AddNumberToObject(dj, "bandwidth_gbs", d->bandwidth_gbs);
		ok = ok && cJSON_AddNumberToObject(dj, "fp16_tflops", d->fp16_tflops);
		ok = ok && cJSON_AddStringToObject(dj, "backend", cr_backend_name(d->backend));
		ok = ok && cJSON_AddStringToObject(dj, "kind", cr_mem_kind_name(d->kind));
		if (ok && d->usable_fraction != cr_default_usable_fraction(d))
			ok = cJSON_AddNumberToObject(dj, "usable_fraction", d->usable_fraction) != NULL;
	}
	if (ok && r->interconnect_gbs > 0)
		ok = cJSON_AddNumberToObject(o, "interconnect_gbs", r->interconnect_gbs) != NULL;
	if (ok && r->seed_memory_gb > 0) {
		cJSON *seed = cJSON_AddObjectToObject(o, "seed");

		ok = seed && cJSON_AddNumberToObject(seed, "memory_gb", r->seed_memory_gb) &&
		     cJSON_AddNumberToObject(seed, "bandwidth_gbs", r->seed_bandwidth_gbs);
	}
	if (ok && r->notes[0])
		ok = cJSON_AddStringToObject(o, "notes", r->notes) != NULL;
	ok = ok && (src = cJSON_AddArrayToObject(o, "sources"));
	for (unsigned i = 0; ok && i < r->n_sources; i++) {
		cJSON *s = cJSON_CreateString(r->sources[i]);

		ok = s && cJSON_AddItemToArray(src, s);
	}
	if (!ok) {
		cJSON_Delete(o);
		return NULL;
	}
	return o;
}

int cr_userrigs_rig_json(const cr_rig *rig, char **out, cr_error *err)
{
	cJSON *o = rig_to_cjson(rig);

	*out = o ? cJSON_PrintUnformatted(o) : NULL;
	cJSON_Delete(o);
	return *out ? CR_OK : cr_seterr(err, CR_ERR_NOMEM, "out of memory");
}

int cr_userrigs_serialize(const cr_user_rigs *set, char **out, size_t *len, cr_error *err)
{
	cJSON *root = cJSON_CreateObject(), *arr = NULL;
	bool ok = root && cJSON_AddStringToObject(root, "schema", CR_USERRIGS_SCHEMA) &&
		  (arr = cJSON_AddArrayToObject(root, "rigs"));
	char *s = NULL, *t;
	size_t n;

	*out = NULL;
	for (size_t i = 0; ok && i < set->n; i++) {
		cJSON *o = rig_to_cjson(&set->rigs[i]);

		ok = o && cJSON_AddItemToArray(arr, o);
		if (!ok)
			cJSON_Delete(o);
	}
	if (ok)
		s = cJSON_Print(root);
	cJSON_Delete(root);
	if (!s)
		return cr_seterr(err, CR_ERR_NOMEM, "out of memory");
	/* cJSON_Print leaves off the final newline a text file should have. */
	n = strlen(s);
	t = realloc(s, n + 2);
	if (!t) {
		free(s);
		return cr_seterr(err, CR_ERR_NOMEM, "out of memory");
	}
	t[n] = '\n';
	t[n + 1] = '\0';
	*out = t;
	if (len)
		*len = n + 1;
	return CR_OK;
}

/* The checks a saved rig needs beyond the catalog's rig rules, at the
 * current path of c (".../rigs[i]"). */
static int check_saved(jr_ctx *c, const cr_user_rigs *set, const cr_rig *r, const cr_catalog *cat,
		       size_t index)
{
	cr_error e = CR_ERROR_INIT;

	if (r->reference)
		return jr_fail(c, CR_ERR_INVALID, "reference",
			       "a saved rig cannot be a reference rig (expected false)");
	if (cr_userrigs_check_id(set, r->id, cat, &e))
		return jr_fail(c, CR_ERR_INVALID, "id", "%s", e.message);
	for (size_t j = 0; j < set->n && j < index; j++)
		if (cr_strcasecmp(set->rigs[j].id, r->id) == 0)
			return jr_fail(c, CR_ERR_INVALID, "id", "duplicate id \"%s\" (also rigs[%zu])",
				       r->id, j);
	return CR_OK;
}

int cr_userrigs_load_buffer(const char *buf, size_t len, const char *name, const cr_catalog *cat,
			    cr_user_rigs **out, cr_error *err)
{
	static const char *const keys[] = { "schema", "rigs", NULL };
	const cJSON *list, *it;
	cJSON *root = NULL;
	cr_user_rigs *set = NULL;
	char schema[64];
	size_t i = 0;
	jr_ctx c;
	int rc;

	*out = NULL;
	jr_init(&c, name, err);
	if (len > USERRIGS_FILE_MAX)
		return cr_seterr(err, CR_ERR_INVALID, "%s: file too large (%zu bytes, at most %u)",
				 name, len, USERRIGS_FILE_MAX);
	if ((rc = jr_parse(&c, buf, len, &root)))
		return rc;
	if (!cJSON_IsObject(root)) {
		rc = jr_fail(&c, CR_ERR_INVALID, NULL, "expected a JSON object at the top level");
		goto out;
	}
	if ((rc = jr_check_keys(&c, root, keys)) ||
	    (rc = jr_req_string(&c, root, "schema", schema, sizeof(schema))))
		goto out;
	if (strcmp(schema, CR_USERRIGS_SCHEMA) != 0) {
		rc = jr_fail(&c, CR_ERR_INVALID, "schema", "expected \"%s\", got \"%s\"",
			     CR_USERRIGS_SCHEMA, schema);
		goto out;
	}
	if ((rc = jr_req_array(&c, root, "rigs", &list)))
		goto out;
	if (cJSON_GetArraySize(list) > CR_USERRIGS_MAX) {
		rc = jr_fail(&c, CR_ERR_INVALID, "rigs", "too many rigs (%d, at most %d)",
			     cJSON_GetArraySize(list), CR_USERRIGS_MAX);
		goto out;
	}
	if ((rc = cr_userrigs_new(&set, err)))
		goto out;
	cJSON_ArrayForEach(it, list) {
		size_t saved = jr_push_key(&c, "rigs");
		cr_rig r;

		jr_push_index(&c, i);
		rc = cr_catalog_read_rig(&c, it, &r);
		if (!rc)
			rc = check_saved(&c, set, &r, cat, i);
		jr_pop(&c, saved);
		if (!rc)
			rc = push_rig(set, &r, err);
		if (rc)
			goto out;
		i++;
	}
	*out = set;
	set = NULL;
out:
	cr_userrigs_free(set);
	cJSON_Delete(root);
	return rc;
}

int cr_userrigs_load(const char *path, const cr_catalog *cat, cr_user_rigs **out, bool *exists,
		     cr_error *err)
{
	char *buf;
	size_t len;
	bool missing;
	int rc;

	*out = NULL;
	if (exists)
		*exists = false;
	if ((rc = cr_file_read(path, USERRIGS_FILE_MAX, &buf, &len, &missing, err)))
		return rc;
	if (missing)
		return cr_userrigs_new(out, err);
	if (exists)
		*exists = true;
	rc = cr_userrigs_load_buffer(buf, len, path, cat, out, err);
	free(buf);
	return rc;
}

/* ---- editing ------------------------------------------------------------- */

int cr_userrigs_add(cr_user_rigs *set, const cr_rig *rig, const cr_catalog *cat, bool replace,
		    cr_error *err)
{
	cr_rig copy;
	cJSON *o;
	jr_ctx c;
	char name[CR_ID_MAX + 16];
	cr_rig *old;
	int rc;

	if (!set || !rig)
		return cr_seterr(err, CR_ERR_INVALID, "saved rigs: nothing to add");
	if ((rc = cr_userrigs_check_id(set, rig->id, cat, err)))
		return rc;
	if (rig->reference)
		return cr_seterr(err, CR_ERR_INVALID,
				 "rig %s: a saved rig cannot be a reference rig", rig->id);
	old = (cr_rig *)cr_userrigs_find(set, rig->id);
	if (old && !replace)
		return cr_seterr(err, CR_ERR_INVALID,
				 "a rig named \"%s\" is already saved (remove it first, or replace it)",
				 rig->id);
	if (!old && set->n >= CR_USERRIGS_MAX)
		return cr_seterr(err, CR_ERR_INVALID, "at most %d saved rigs", CR_USERRIGS_MAX);
	/* Validate through the same reader that will load the file, so that
	 * whatever is saved loads again. */
	copy = *rig;
	if (!copy.n_sources) {
		cr_strlcpy(copy.sources[0], "saved with clefrun", sizeof(copy.sources[0]));
		copy.n_sources = 1;
	}
	o = rig_to_cjson(&copy);
	if (!o)
		return cr_seterr(err, CR_ERR_NOMEM, "out of memory");
	snprintf(name, sizeof(name), "rig %.*s", CR_ID_MAX - 1, rig->id);
	jr_init(&c, name, err);
	rc = cr_catalog_read_rig(&c, o, &copy);
	cJSON_Delete(o);
	if (rc)
		return rc;
	if (old) {
		*old = copy;
		return CR_OK;
	}
	return push_rig(set, &copy, err);
}

int cr_userrigs_remove(cr_user_rigs *set, const char *id, cr_error *err)
{
	for (size_t i = 0; set && id && i < set->n; i++) {
		if (cr_strcasecmp(set->rigs[i].id, id) == 0) {
			memmove(&set->rigs[i], &set->rigs[i + 1], (set->n - i - 1) * sizeof(cr_rig));
			set->n--;
			return CR_OK;
		}
	}
	return cr_seterr(err, CR_ERR_NOTFOUND, "no saved rig named \"%s\"", id ? id : "");
}

/* ---- atomic save ------------------------------------------------------------ */

/* mkdir -p with mode 0700 for the directories it creates. */
static int make_dirs(char *dir, cr_error *err)
{
	struct stat st;

	if (stat(dir, &st) == 0)
		return S_ISDIR(st.st_mode) ? CR_OK
					   : cr_seterr(err, CR_ERR_IO, "%s: not a directory", dir);
	for (char *p = dir + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(dir, 0700) != 0 && errno != EEXIST) {
			int e = errno;

			*p = '/';
			return cr_seterr(err, CR_ERR_IO, "%s: cannot create directory: %s", dir,
					 strerror(e));
		}
		*p = '/';
	}
	if (mkdir(dir, 0700) != 0 && errno != EEXIST)
		return cr_seterr(err, CR_ERR_IO, "%s: cannot create directory: %s", dir,
				 strerror(errno));
	return CR_OK;
}

/* The file @p path names after its links, into @p target, and that file's
 * directory, into @p dir. A link to a file that does not exist is refused
 * here rather than followed: creating its target (and the directories above
 * it) somewhere the user never named is worse than saying so. */
static int resolve_target(const char *path, char *target, char *dir, cr_error *err)
{
	struct stat st;
	char *slash;
	int rc;

	if (strlen(path) >= PATH_CAP)
		return cr_seterr(err, CR_ERR_INVALID, "%s: path too long", path);
	/* Write through a symlink (a dotfiles manager's link) rather than
	 * replacing the link with a plain file. */
	if ((rc = cr_resolve_links(path, target, PATH_CAP, err)))
		return rc;
	if (strcmp(target, path) != 0 && lstat(target, &st) != 0 && errno == ENOENT)
		return cr_seterr(err, CR_ERR_IO,
				 "%s: a symbolic link to %s, which does not exist; create that file "
				 "or remove the link",
				 path, target);
	cr_strlcpy(dir, target, PATH_CAP);
	slash = strrchr(dir, '/');
	if (!slash)
		cr_strlcpy(dir, ".", PATH_CAP);
	else if (slash == dir)
		dir[1] = '\0';
	else
		*slash = '\0';
	return CR_OK;
}

int cr_userrigs_save(const cr_user_rigs *set, const char *path, cr_error *err)
{
	char target[PATH_CAP], dir[PATH_CAP];
	char *text = NULL;
	size_t len = 0;
	int rc;

	if (!set || !path || !path[0])
		return cr_seterr(err, CR_ERR_INVALID, "saved rigs: no path to save to");
	if ((rc = resolve_target(path, target, dir, err)) || (rc = make_dirs(dir, err)))
		return rc;
	if ((rc = cr_userrigs_serialize(set, &text, &len, err)))
		return rc;

	{
		cr_file_chunk chunk = { text, len };

		rc = cr_file_write_atomic(target, &chunk, 1, CR_FILE_MODE_PRIVATE, err);
	}
	free(text);
	return rc;
}

/* ---- the lock around load-modify-save -------------------------------------- */

/* How long cr_userrigs_lock waits for another process. A save holds the
 * lock for the load, one edit and an fsync'ed write: milliseconds on a
 * local disk, at worst a second or two on a slow or network one. 10 s is
 * our choice, well past that, short enough that a stopped process (^Z)
 * holding it gets a message instead of a silent hang. */
#define USERRIGS_LOCK_WAIT_MS 10000
#define USERRIGS_LOCK_POLL_MS 5

struct cr_user_rigs_lock {
	int fd;
};

int cr_userrigs_lock(const char *path, cr_user_rigs_lock **out, cr_error *err)
{
	char target[PATH_CAP], dir[PATH_CAP], lock[PATH_CAP + 8];
	struct stat st;
	int rc, fd;

	*out = NULL;
	if (!path || !path[0])
		return cr_seterr(err, CR_ERR_INVALID, "saved rigs: no path to lock");
	if ((rc = resolve_target(path, target, dir, err)) || (rc = make_dirs(dir, err)))
		return rc;
	if ((size_t)snprintf(lock, sizeof(lock), "%s.lock", target) >= sizeof(lock))
		return cr_seterr(err, CR_ERR_INVALID, "%s: path too long", path);
	/* O_NOFOLLOW and O_NONBLOCK: a link or a FIFO planted as the lock file
	 * is refused (below), never followed or waited on. */
	fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0600);
	if (fd < 0)
		return cr_seterr(err, CR_ERR_IO, "%s: cannot open the lock file: %s", lock,
				 strerror(errno));
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return cr_seterr(err, CR_ERR_IO, "%s: the lock file is not a regular file", lock);
	}
	for (int waited = 0; flock(fd, LOCK_EX | LOCK_NB) != 0; waited += USERRIGS_LOCK_POLL_MS) {
		struct timespec ts = { 0, USERRIGS_LOCK_POLL_MS * 1000000L };
		int e = errno;

		if (e == EINTR)
			continue;
		if (e != EWOULDBLOCK || waited >= USERRIGS_LOCK_WAIT_MS) {
			close(fd);
			if (e == EWOULDBLOCK)
				return cr_seterr(err, CR_ERR_IO,
						 "%s: another clefrun has held this lock for %d s; "
						 "try again when it has finished",
						 lock, USERRIGS_LOCK_WAIT_MS / 1000);
			return cr_seterr(err, CR_ERR_IO, "%s: cannot lock: %s", lock, strerror(e));
		}
		nanosleep(&ts, NULL);
	}
	*out = malloc(sizeof(**out));
	if (!*out) {
		close(fd);
		return cr_seterr(err, CR_ERR_NOMEM, "out of memory");
	}
	(*out)->fd = fd;
	return CR_OK;
}

void cr_userrigs_unlock(cr_user_rigs_lock *lock)
{
	if (!lock)
		return;
	/* Closing the descriptor releases the flock. The file stays: removing
	 * it would race with a process that has just opened it and would then
	 * lock a name nobody else sees. */
	close(lock->fd);
	free(lock);
}

/* ---- suggestions ------------------------------------------------------------ */

size_t cr_userrigs_suggest(const cr_user_rigs *set, const cr_catalog *cat, const char *name,
			   const char **out, size_t max)
{
	size_t n_cat = cat ? cr_catalog_rig_count(cat) : 0, n_set = cr_userrigs_count(set);
	size_t scores[8], got = 0, limit = cr_suggest_limit(name);

	if (max > 8)
		max = 8;
	for (size_t i = 0; i < n_cat + n_set; i++) {
		const char *id = i < n_cat ? cr_catalog_rig_at(cat, i)->id : set->rigs[i - n_cat].id;

		got = cr_suggest_rank(name, id, limit, max, scores, out, got);
	}
	return got;
}

/* ---- rigs from figures ------------------------------------------------------ */

/* Text that does not fit its field is refused, not cut: a cut name is not
 * what the user typed, and a cut inside a UTF-8 sequence would be reported
 * later as "invalid UTF-8", naming the wrong problem. */
static int check_text(const char *key, const char *s, size_t cap, cr_error *err)
{
	size_t n = s ? strlen(s) : 0;

	if (n >= cap)
		return cr_seterr(err, CR_ERR_INVALID, "%s: %zu bytes, at most %zu", key, n, cap - 1);
	return CR_OK;
}

int cr_userrigs_build(const cr_rig_figures *f, cr_rig *out, cr_error *err)
{
	cr_device *d = &out->devices[0];
	int rc;

	memset(out, 0, sizeof(*out));
	if (!f || !f->id || !f->id[0])
		return cr_seterr(err, CR_ERR_INVALID, "a saved rig needs a name");
	if (strlen(f->id) >= CR_ID_MAX)
		return cr_seterr(err, CR_ERR_INVALID, "rig name \"%.64s%s\" too long (at most %d characters)",
				 f->id, strlen(f->id) > 64 ? "..." : "", CR_ID_MAX - 1);
	/* The figures are checked as a "custom:" spec's are (rig.c), the texts
	 * here. */
	if ((rc = cr_rig_from_figures(f, NULL, out, err)) ||
	    (rc = check_text("name", f->name, sizeof(out->name), err)) ||
	    (rc = check_text("device_name", f->device_name, sizeof(d->name), err)) ||
	    (rc = check_text("notes", f->notes, sizeof(out->notes), err)) ||
	    (rc = check_text("source", f->source, sizeof(out->sources[0]), err))) {
		memset(out, 0, sizeof(*out));
		return rc;
	}

	cr_strlcpy(out->id, f->id, sizeof(out->id));
	cr_strlcpy(d->name,
		   f->device_name ? f->device_name
		   : d->kind == CR_MEM_SYSTEM ? "System RAM"
		   : d->kind == CR_MEM_UNIFIED ? "Unified memory" : "GPU",
		   sizeof(d->name));
	if (out->n_devices > 1)
		cr_strlcpy(out->devices[1].name, "System RAM", sizeof(out->devices[1].name));
	if (f->name) {
		cr_strlcpy(out->name, f->name, sizeof(out->name));
	} else {
		int n = snprintf(out->name, sizeof(out->name), "%ux %g GiB %s, %g GB/s", d->count,
				 d->memory_gib, cr_mem_kind_name(d->kind), d->bandwidth_gbs);

		if (f->ram_gib > 0 && n > 0 && (size_t)n < sizeof(out->name))
			snprintf(out->name + n, sizeof(out->name) - (size_t)n,
				 " + %g GiB RAM, %g GB/s", f->ram_gib, f->ram_bw_gbs);
	}
	if (f->notes)
		cr_strlcpy(out->notes, f->notes, sizeof(out->notes));
	cr_strlcpy(out->sources[0], f->source ? f->source : "clefrun rig add",
		   sizeof(out->sources[0]));
	out->n_sources = 1;
	return CR_OK;
}
