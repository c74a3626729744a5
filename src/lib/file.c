/* Atomic file replacement (include/clefrun/file.h). */
#include "clefrun/file.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
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

int cr_file_write_atomic(const char *path, const cr_file_chunk *chunks, size_t n_chunks, int mode,
			 cr_error *err)
{
	size_t plen = strlen(path);
	char *tmp = malloc(plen + 16), *dir = dir_of(path);
	const char *base = strrchr(path, '/');
	int fd, e = 0, rc = CR_ERR_IO;
	const char *step = "cannot create a temporary file";

	if (!tmp || !dir) {
		free(tmp);
		free(dir);
		return cr_seterr(err, CR_ERR_NOMEM, "%s: out of memory", path);
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
	if (mode != CR_FILE_MODE_PRIVATE) {
		mode_t mask = umask(0);

		umask(mask);
		step = "cannot set its permissions";
		if (fchmod(fd, (mode_t)mode & ~mask) != 0)
			goto fail;
	}
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
	/* A path of any length leaves room for the step and the reason. */
	rc = cr_seterr(err, CR_ERR_IO, "%.300s%s: %s: %s", path, plen > 300 ? "..." : "", step,
		       strerror(e));
done:
	free(tmp);
	free(dir);
	return rc;
}
