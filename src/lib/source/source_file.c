/* The file backend of cr_source: pread(2) on a regular file. */
#include "source_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util.h"

typedef struct file_impl {
	int fd;
} file_impl;

static int file_read(cr_source *src, uint64_t off, void *buf, size_t len, cr_error *err)
{
	file_impl *f = src->impl;
	unsigned char *p = buf;

	while (len) {
		ssize_t n = pread(f->fd, p, len, (off_t)off);

		src->stats.requests++;
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return cr_seterr(err, CR_ERR_IO, "%s: byte %llu: %s", src->name,
					 (unsigned long long)off, strerror(errno));
		if (n == 0)
			/* The file shrank after it was opened. */
			return cr_seterr(err, CR_ERR_IO, "%s: byte %llu: unexpected end of file",
					 src->name, (unsigned long long)off);
		src->stats.bytes_fetched += (uint64_t)n;
		p += n;
		off += (uint64_t)n;
		len -= (size_t)n;
	}
	return CR_OK;
}

static void file_close(cr_source *src)
{
	file_impl *f = src->impl;

	if (f && f->fd >= 0)
		close(f->fd);
	free(f);
}

static const cr_source_ops file_ops = { file_read, file_close };

int cr_source_open_file(const char *path, cr_source **out, cr_error *err)
{
	struct stat st;
	file_impl *f;
	cr_source *s;
	int rc;

	*out = NULL;
	if ((rc = cr_source_alloc(path, &file_ops, &s, err)))
		return rc;
	if (!(f = malloc(sizeof(*f)))) {
		cr_source_free(s);
		return cr_seterr(err, CR_ERR_NOMEM, "%s: out of memory", path);
	}
	/* O_NONBLOCK: opening a FIFO must not wait for a writer; the fstat
	 * below refuses anything but a regular file, whose reads never block. */
	f->fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	s->impl = f;
	if (f->fd < 0) {
		rc = cr_seterr(err, CR_ERR_IO, "%s: %s", path, strerror(errno));
		cr_source_free(s);
		return rc;
	}
	if (fstat(f->fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		int e = errno;

		if (fstat(f->fd, &st) != 0)
			rc = cr_seterr(err, CR_ERR_IO, "%s: %s", path, strerror(e));
		else
			rc = cr_seterr(err, CR_ERR_IO, "%s: %s", path,
				       S_ISDIR(st.st_mode) ? "is a directory" : "not a regular file");
		cr_source_free(s);
		return rc;
	}
	s->size = (uint64_t)st.st_size;
	*out = s;
	return CR_OK;
}
