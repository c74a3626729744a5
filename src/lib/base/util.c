#include "util.h"

#include "clefrun/text.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int cr_seterr_(cr_error *err, int status, const char *fmt, ...)
{
	va_list ap;

	if (err) {
		char raw[2 * sizeof(err->message)];
		int n;

		err->status = status;
		err->reason = CR_REASON_NONE;
		va_start(ap, fmt);
		n = vsnprintf(raw, sizeof(raw), fmt, ap);
		va_end(ap);
		/* Messages carry names from files and servers (GGUF strings,
		 * listing paths, URLs): no control byte or invalid UTF-8 may
		 * reach the terminal that shows them (text.h). */
		if (n < 0)
			raw[0] = '\0';
		(void)cr_text_safe(raw, strlen(raw), CR_TEXT_DISPLAY, err->message, sizeof(err->message));
	}
	return status;
}

bool cr_utf8_valid(const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0;

	while (i < n) {
		unsigned c = p[i];
		size_t len;
		unsigned cp;

		if (c < 0x80) {
			i++;
			continue;
		} else if ((c & 0xE0) == 0xC0) {
			len = 2;
			cp = c & 0x1F;
		} else if ((c & 0xF0) == 0xE0) {
			len = 3;
			cp = c & 0x0F;
		} else if ((c & 0xF8) == 0xF0) {
			len = 4;
			cp = c & 0x07;
		} else {
			return false;
		}
		if (i + len > n)
			return false;
		for (size_t k = 1; k < len; k++) {
			if ((p[i + k] & 0xC0) != 0x80)
				return false;
			cp = (cp << 6) | (p[i + k] & 0x3F);
		}
		if ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) ||
		    (len == 4 && (cp < 0x10000 || cp > 0x10FFFF)) ||
		    (cp >= 0xD800 && cp <= 0xDFFF))
			return false;
		i += len;
	}
	return true;
}

int cr_strcasecmp(const char *a, const char *b)
{
	for (;; a++, b++) {
		int ca = (unsigned char)*a, cb = (unsigned char)*b;

		if (ca >= 'A' && ca <= 'Z')
			ca += 'a' - 'A';
		if (cb >= 'A' && cb <= 'Z')
			cb += 'a' - 'A';
		if (ca != cb || !ca)
			return ca - cb;
	}
}

void cr_strlcpy(char *dst, const char *src, size_t cap)
{
	size_t n = strlen(src);

	if (n >= cap)
		n = cap - 1;
	memcpy(dst, src, n);
	dst[n] = '\0';
}

FILE *cr_fopen_regular(const char *path, const char **why)
{
	struct stat st;
	FILE *f;
	int fd, flags, e;

	/* O_NONBLOCK: opening a FIFO for reading must not wait for a writer. */
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		*why = strerror(errno);
		return NULL;
	}
	if (fstat(fd, &st) != 0) {
		e = errno;
		*why = strerror(e);
		close(fd);
		errno = e;
		return NULL;
	}
	if (!S_ISREG(st.st_mode)) {
		e = S_ISDIR(st.st_mode) ? EISDIR : EINVAL;
		*why = e == EISDIR ? "is a directory" : "not a regular file";
		close(fd);
		errno = e;
		return NULL;
	}
	flags = fcntl(fd, F_GETFL);
	if (flags >= 0)
		(void)fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
	f = fdopen(fd, "rb");
	if (!f) {
		e = errno;
		*why = strerror(e);
		close(fd);
		errno = e;
	}
	return f;
}

int cr_resolve_links(const char *path, char *out, size_t cap, cr_error *err)
{
	char link[4096];

	cr_strlcpy(out, path, cap);
	for (int depth = 0; depth < 8; depth++) {
		struct stat st;
		ssize_t n;

		if (lstat(out, &st) != 0 || !S_ISLNK(st.st_mode))
			return CR_OK;
		n = readlink(out, link, sizeof(link) - 1);
		if (n < 0 || (size_t)n >= sizeof(link) - 1)
			return cr_seterr(err, CR_ERR_IO, "%s: cannot read the symbolic link", out);
		link[n] = '\0';
		if (link[0] == '/') {
			cr_strlcpy(out, link, cap);
		} else {
			char *slash = strrchr(out, '/');
			size_t keep = slash ? (size_t)(slash - out) + 1 : 0;

			if (keep + (size_t)n + 1 > cap)
				return cr_seterr(err, CR_ERR_IO, "%s: link target too long", path);
			memcpy(out + keep, link, (size_t)n + 1);
		}
	}
	return cr_seterr(err, CR_ERR_IO, "%s: too many levels of symbolic links", path);
}
