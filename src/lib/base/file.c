/* Atomic file replacement (include/clefrun/file.h) and the capped whole-file
 * reader of util.h. */
#include "clefrun/file.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util.h"

static int write_all(int fd, const void *data, size_t len)
{
	const char *p = data;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* The directory part of path ("." when there is none). */
static char *dir_of(const char *path)
{
	const char *slash = strrchr(path, '/');
	size_t n = slash ? (size_t)(slash - path) : 0;
	char *dir;

	if (slash == path)
		n = 1;
	dir = malloc(n ? n + 1 : 2);
	if (!dir)
		return NULL;
	if (n) {
		memcpy(dir, path, n);
		dir[n] = '\0';
	} else {
		memcpy(dir, ".", 2);
	}
	return dir;
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

size_t cr_dir_names(const char *dir, size_t max, char ***names)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char **v = NULL;
	size_t n = 0, cap = 0;

	*names = NULL;
	if (!d)
		return 0;
	while (n < max && (de = readdir(d)) != NULL) {
		size_t len = strlen(de->d_name) + 1;
		char *c;

		if (de->d_name[0] == '.')
			continue;
		if (n == cap) {
			size_t nc = cap ? cap * 2 : 16;
			char **nv = realloc(v, nc * sizeof(*nv));

			if (!nv)
				break;
			v = nv;
			cap = nc;
		}
		if (!(c = malloc(len)))
			break;
		memcpy(c, de->d_name, len);
		v[n++] = c;
	}
	closedir(d);
	if (n > 1)
		qsort(v, n, sizeof(*v), name_cmp);
	*names = v;
	return n;
}

/* A writer killed between mkstemp and rename leaves its temporary behind.
 * Remove this target's temporaries (".NAME.tmp-XXXXXX") that are over a
 * minute old: a live writer's is younger (a write takes milliseconds), and
 * other files are never touched. Best effort: failures change nothing. */
static void remove_stale_temporaries(const char *dir, const char *base)
{
	size_t blen = strlen(base);
	time_t now = time(NULL);
	struct dirent *de;
	DIR *d = opendir(dir);

	if (!d)
		return;
	while ((de = readdir(d)) != NULL) {
		const char *n = de->d_name;
		char full[4096];
		struct stat st;

		if (n[0] != '.' || strncmp(n + 1, base, blen) != 0 || strncmp(n + 1 + blen, ".tmp-", 5) != 0 ||
		    strlen(n + 1 + blen + 5) != 6)
			continue;
		if ((size_t)snprintf(full, sizeof(full), "%s/%s", dir, n) >= sizeof(full))
			continue;
		if (lstat(full, &st) == 0 && S_ISREG(st.st_mode) && now - st.st_mtime > 60)
			unlink(full);
	}
	closedir(d);
}

/* "PATH" shortened for a message: any length leaves room for the rest. */
#define SHORT_PATH "%.300s%s"
#define SHORT_ARGS(p) (p), strlen(p) > 300 ? "..." : ""
/* The file a link names, as cr_resolve_links writes it (PATH_MAX on Linux). */
#define RESOLVED_CAP 4096

/* The permission bits of a new file: mode less the umask, or 0600. */
static mode_t new_file_mode(int mode)
{
	mode_t mask;

	if (mode == CR_FILE_MODE_PRIVATE)
		return 0600;
	mask = umask(0);
	umask(mask);
	return (mode_t)mode & ~mask & 07777;
}

/* Write to a temporary file beside path and rename it over path. The
 * temporary gets @p bits, and the owner and group of @p old when there is
 * one and this process may set them (root replacing another user's file). */
static int replace_atomic(const char *path, const cr_file_chunk *chunks, size_t n_chunks, mode_t bits,
			  const struct stat *old, cr_error *err)
{
	size_t plen = strlen(path);
	char *tmp = malloc(plen + 16), *dir = dir_of(path);
	const char *base = strrchr(path, '/');
	int fd, e = 0, rc = CR_ERR_IO;
	const char *step = "cannot create a temporary file";

	if (!tmp || !dir) {
		free(tmp);
		free(dir);
		return cr_seterr(err, CR_ERR_NOMEM, SHORT_PATH ": out of memory", SHORT_ARGS(path));
	}
	/* DIR/.NAME.tmp-XXXXXX: hidden, so that listings of the directory
	 * (a cache, a config folder) do not see a half-written file. */
	base = base ? base + 1 : path;
	remove_stale_temporaries(dir, base);
	memcpy(tmp, path, (size_t)(base - path));
	tmp[base - path] = '.';
	memcpy(tmp + (base - path) + 1, base, strlen(base));
	memcpy(tmp + plen + 1, ".tmp-XXXXXX", 12);
	fd = mkstemp(tmp);
	if (fd < 0) {
		e = errno;
		goto out;
	}
	/* Best effort: a user who may not give the file away keeps it as the
	 * new owner, as any editor's atomic save does. Before the chmod, which
	 * a chown may clear setuid bits for. */
	if (old && (old->st_uid != geteuid() || old->st_gid != getegid()) &&
	    fchown(fd, old->st_uid, old->st_gid) != 0 && fchown(fd, (uid_t)-1, old->st_gid) != 0)
		errno = 0; /* neither: the new file stays ours */
	step = "cannot set its permissions";
	if (bits != 0600 && fchmod(fd, bits) != 0)
		goto fail;
	step = "write failed";
	for (size_t i = 0; i < n_chunks; i++)
		if (chunks[i].len && write_all(fd, chunks[i].data, chunks[i].len) != 0)
			goto fail;
	/* The data must be on disk before the name points at it, or a crash
	 * could leave a complete-looking name over an empty file. */
	step = "fsync failed";
	if (fsync(fd) != 0)
		goto fail;
	step = "close failed";
	if (close(fd) != 0) {
		fd = -1;
		goto fail;
	}
	fd = -1;
	step = "cannot replace it";
	if (rename(tmp, path) != 0)
		goto fail;
	rc = CR_OK;
	/* Make the rename durable; some file systems refuse fsync on a
	 * directory (EINVAL), and the file is in place either way. */
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		if (fsync(fd) != 0 && errno != EINVAL && errno != EBADF) {
			e = errno;
			rc = cr_seterr(err, CR_ERR_IO, "%s: fsync of the directory failed: %s", dir,
				       strerror(e));
		}
		close(fd);
	}
	goto done;
fail:
	e = errno;
	if (fd >= 0)
		close(fd);
	unlink(tmp);
out:
	rc = cr_seterr(err, CR_ERR_IO, SHORT_PATH ": %s: %s", SHORT_ARGS(path), step, strerror(e));
done:
	free(tmp);
	free(dir);
	return rc;
}

/* Write every chunk to fd; 0, or -1 with errno. */
static int write_chunks(int fd, const cr_file_chunk *chunks, size_t n_chunks)
{
	for (size_t i = 0; i < n_chunks; i++)
		if (chunks[i].len && write_all(fd, chunks[i].data, chunks[i].len) != 0)
			return -1;
	return 0;
}

/* A regular file with other hard links, rewritten in place so that they all
 * see the new content. @p st is what the caller examined: a file swapped in
 * since is refused rather than written. */
static int rewrite_in_place(const char *path, const cr_file_chunk *chunks, size_t n_chunks,
			    const struct stat *st, cr_error *err)
{
	struct stat now;
	off_t total = 0;
	const char *step = "cannot open it";
	int e, fd = open(path, O_WRONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0)
		goto fail;
	if (fstat(fd, &now) != 0 || !S_ISREG(now.st_mode) || now.st_dev != st->st_dev ||
	    now.st_ino != st->st_ino) {
		close(fd);
		return cr_seterr(err, CR_ERR_IO, SHORT_PATH ": changed while being opened; not written",
				 SHORT_ARGS(path));
	}
	for (size_t i = 0; i < n_chunks; i++)
		total += (off_t)chunks[i].len;
	step = "write failed";
	if (write_chunks(fd, chunks, n_chunks) != 0)
		goto fail;
	step = "cannot truncate it";
	if (ftruncate(fd, total) != 0)
		goto fail;
	step = "fsync failed";
	if (fsync(fd) != 0)
		goto fail;
	step = "close failed";
	e = close(fd);
	fd = -1;
	if (e != 0)
		goto fail;
	return CR_OK;
fail:
	e = errno;
	if (fd >= 0)
		close(fd);
	return cr_seterr(err, CR_ERR_IO, SHORT_PATH ": %s: %s", SHORT_ARGS(path), step, strerror(e));
}

/* A FIFO or a character device, opened and written as `>` would. Opening a
 * FIFO waits for a reader, as it does for the shell. */
static int stream_to(const char *path, const cr_file_chunk *chunks, size_t n_chunks, cr_error *err)
{
	struct stat now;
	int e, fd = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC);

	if (fd < 0)
		return cr_seterr(err, CR_ERR_IO, SHORT_PATH ": cannot open it: %s", SHORT_ARGS(path),
				 strerror(errno));
	/* Swapped for something else between the look and the open: a regular
	 * file opened without O_TRUNC would be overwritten in part. */
	if (fstat(fd, &now) != 0 || !(S_ISFIFO(now.st_mode) || S_ISCHR(now.st_mode))) {
		close(fd);
		return cr_seterr(err, CR_ERR_IO, SHORT_PATH ": changed while being opened; not written",
				 SHORT_ARGS(path));
	}
	if (write_chunks(fd, chunks, n_chunks) != 0) {
		e = errno;
		close(fd);
		return cr_seterr(err, CR_ERR_IO, SHORT_PATH ": write failed: %s", SHORT_ARGS(path),
				 strerror(e));
	}
	if (close(fd) != 0)
		return cr_seterr(err, CR_ERR_IO, SHORT_PATH ": close failed: %s", SHORT_ARGS(path),
				 strerror(errno));
	return CR_OK;
}

static const char *kind_of(mode_t m)
{
	if (S_ISDIR(m))
		return "a directory";
	if (S_ISFIFO(m))
		return "a FIFO";
	if (S_ISCHR(m))
		return "a character device";
	if (S_ISBLK(m))
		return "a block device";
	if (S_ISSOCK(m))
		return "a socket";
	return "not a regular file";
}

static int write_regular(const char *path, const cr_file_chunk *chunks, size_t n_chunks,
			 const struct stat *st, const cr_file_opts *o, cr_file_how *how, cr_error *err)
{
	if (st->st_nlink > 1 && (o->flags & CR_FILE_KEEP_LINKS)) {
		*how = CR_FILE_REWRITTEN;
		return rewrite_in_place(path, chunks, n_chunks, st, err);
	}
	*how = CR_FILE_REPLACED;
	return replace_atomic(path, chunks, n_chunks, st->st_mode & 07777, st, err);
}

int cr_file_write(const char *path, const cr_file_chunk *chunks, size_t n_chunks, const cr_file_opts *opts,
		  cr_file_how *how, cr_error *err)
{
	const cr_file_opts def = CR_FILE_OPTS_INIT;
	const cr_file_opts *o = opts ? opts : &def;
	cr_file_how scratch;
	struct stat st;

	if (!how)
		how = &scratch;
	*how = CR_FILE_CREATED;
	/* Nothing there (or nothing this process can see: creating the
	 * temporary file then names the reason). */
	if (lstat(path, &st) != 0)
		return replace_atomic(path, chunks, n_chunks, new_file_mode(o->mode), NULL, err);
	if (S_ISLNK(st.st_mode)) {
		char *real;
		int rc;

		if (!(o->flags & CR_FILE_FOLLOW_LINK)) {
			*how = CR_FILE_REPLACED;
			return replace_atomic(path, chunks, n_chunks, new_file_mode(o->mode), NULL, err);
		}
		if (stat(path, &st) != 0) {
			char target[512];
			ssize_t n = readlink(path, target, sizeof(target) - 1);
			int e = errno;

			if (e != ENOENT || n < 0)
				return cr_seterr(err, CR_ERR_IO,
						 SHORT_PATH ": cannot follow the symbolic link: %s",
						 SHORT_ARGS(path), strerror(e));
			target[n] = '\0';
			return cr_seterr(err, CR_ERR_IO,
					 SHORT_PATH ": a symbolic link to %.300s, which does not exist; not "
						    "created",
					 SHORT_ARGS(path), target);
		}
		if (S_ISREG(st.st_mode)) {
			/* Replace the file the link names, in its own directory
			 * (rename works within one file system), and keep the
			 * link. */
			if (!(real = malloc(RESOLVED_CAP)))
				return cr_seterr(err, CR_ERR_NOMEM, SHORT_PATH ": out of memory",
						 SHORT_ARGS(path));
			rc = cr_resolve_links(path, real, RESOLVED_CAP, err);
			if (rc == CR_OK)
				rc = write_regular(real, chunks, n_chunks, &st, o, how, err);
			free(real);
			return rc;
		}
	}
	if (S_ISREG(st.st_mode))
		return write_regular(path, chunks, n_chunks, &st, o, how, err);
	if ((S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode)) && (o->flags & CR_FILE_STREAM)) {
		*how = CR_FILE_STREAMED;
		return stream_to(path, chunks, n_chunks, err);
	}
	if (o->flags & CR_FILE_STREAM)
		return cr_seterr(err, CR_ERR_IO,
				 SHORT_PATH ": %s; only a regular file, a FIFO or a character device can "
					    "be written",
				 SHORT_ARGS(path), kind_of(st.st_mode));
	return cr_seterr(err, CR_ERR_IO, SHORT_PATH ": %s, not a regular file; not replaced",
			 SHORT_ARGS(path), kind_of(st.st_mode));
}

int cr_file_write_atomic(const char *path, const cr_file_chunk *chunks, size_t n_chunks, int mode,
			 cr_error *err)
{
	cr_file_opts o = CR_FILE_OPTS_INIT;

	o.mode = mode;
	return cr_file_write(path, chunks, n_chunks, &o, NULL, err);
}

/* ---- reading ---------------------------------------------------------------- */

/* The buffer starts small (most files read are a few KiB: saved rigs, a
 * catalog file) and doubles up to the 2 * max stop of util.h. */
#define READ_FIRST_CAP 16384u

int cr_file_read(const char *path, size_t max, char **buf, size_t *len, bool *missing,
		 cr_error *err)
{
	const char *why = NULL;
	size_t stop = max > SIZE_MAX / 2 ? SIZE_MAX : 2 * max;
	size_t cap = stop < READ_FIRST_CAP ? stop : READ_FIRST_CAP, n = 0;
	FILE *f;
	char *b;

	*buf = NULL;
	*len = 0;
	if (missing)
		*missing = false;
	f = cr_fopen_regular(path, &why);
	if (!f) {
		if (missing && errno == ENOENT) {
			*missing = true;
			return CR_OK;
		}
		return cr_seterr(err, CR_ERR_IO, "%s: %s", path, why);
	}
	b = malloc(cap ? cap : 1);
	if (!b) {
		fclose(f);
		return cr_seterr(err, CR_ERR_NOMEM, "%s: out of memory", path);
	}
	for (;;) {
		size_t got = fread(b + n, 1, cap - n, f);
		char *nb;

		n += got;
		if (n < cap)
			break;
		if (cap >= stop) {
			fclose(f);
			free(b);
			return cr_seterr(err, CR_ERR_INVALID, "%s: file too large (more than %zu bytes)",
					 path, max);
		}
		nb = realloc(b, cap > stop / 2 ? stop : cap * 2);
		if (!nb) {
			fclose(f);
			free(b);
			return cr_seterr(err, CR_ERR_NOMEM, "%s: out of memory", path);
		}
		b = nb;
		cap = cap > stop / 2 ? stop : cap * 2;
	}
	if (ferror(f)) {
		fclose(f);
		free(b);
		return cr_seterr(err, CR_ERR_IO, "%s: read error", path);
	}
	fclose(f);
	*buf = b;
	*len = n;
	return CR_OK;
}
