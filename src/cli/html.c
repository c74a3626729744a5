/*
 * A growable text buffer with HTML/XML escaping, and the atomic write of
 * the finished document (report.h).
 *
 * Why the document is built in memory: the write must be atomic (a reader
 * of FILE.html never sees half a page, and a failed run leaves the old file
 * as it was), and a report is a few hundred KiB at most.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "report.h"

void cli_buf_init(cli_buf *b)
{
	memset(b, 0, sizeof(*b));
}

void cli_buf_free(cli_buf *b)
{
	free(b->data);
	memset(b, 0, sizeof(*b));
}

static bool reserve(cli_buf *b, size_t more)
{
	size_t want, cap;
	char *p;

	if (b->failed)
		return false;
	if (more > SIZE_MAX / 2 - b->len) {
		b->failed = true;
		return false;
	}
	want = b->len + more + 1;
	if (want <= b->cap)
		return true;
	cap = b->cap ? b->cap : 4096;
	while (cap < want)
		cap *= 2;
	p = realloc(b->data, cap);
	if (!p) {
		b->failed = true;
		return false;
	}
	b->data = p;
	b->cap = cap;
	return true;
}

static void append(cli_buf *b, const char *s, size_t n)
{
	if (!reserve(b, n))
		return;
	memcpy(b->data + b->len, s, n);
	b->len += n;
	b->data[b->len] = '\0';
}

void cli_buf_puts(cli_buf *b, const char *s)
{
	append(b, s, strlen(s));
}

static void vprintf_buf(cli_buf *b, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));

static void vprintf_buf(cli_buf *b, const char *fmt, va_list ap)
{
	va_list aq;
	int n;

	va_copy(aq, ap);
	n = vsnprintf(NULL, 0, fmt, aq);
	va_end(aq);
	if (n < 0 || !reserve(b, (size_t)n)) {
		b->failed = true;
		return;
	}
	vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
	b->len += (size_t)n;
}

void cli_buf_printf(cli_buf *b, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vprintf_buf(b, fmt, ap);
	va_end(ap);
}

/* Length of the well-formed UTF-8 sequence at s (1-4), or 0 if there is
 * none: overlong forms, surrogates and code points above U+10FFFF are
 * rejected, as are U+FFFE and U+FFFF (not XML characters). */
static size_t utf8_len(const unsigned char *s)
{
	unsigned c = s[0];
	size_t n;
	uint32_t cp;

	if (c < 0x80)
		return 1;
	if (c >= 0xC2 && c <= 0xDF)
		n = 2, cp = c & 0x1F;
	else if (c >= 0xE0 && c <= 0xEF)
		n = 3, cp = c & 0x0F;
	else if (c >= 0xF0 && c <= 0xF4)
		n = 4, cp = c & 0x07;
	else
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xC0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3F);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10FFFF)) ||
	    (cp >= 0xD800 && cp <= 0xDFFF) || cp == 0xFFFE || cp == 0xFFFF)
		return 0;
	return n;
}

void cli_buf_esc(cli_buf *b, const char *str)
{
	const unsigned char *s;
	char *safe;

	if (!str)
		return;
	/* Controls (newline and tab too: a name must not break the
	 * reproduction command into lines), C1 and bidirectional controls
	 * shown as escapes, invalid UTF-8 as U+FFFD (safe.c), then HTML. */
	if (!(safe = cli_safe_dup(str))) {
		b->failed = true;
		return;
	}
	s = (const unsigned char *)safe;
	while (*s) {
		size_t n = utf8_len(s);

		switch (*s) {
		case '&': cli_buf_puts(b, "&amp;"); break;
		case '<': cli_buf_puts(b, "&lt;"); break;
		case '>': cli_buf_puts(b, "&gt;"); break;
		case '"': cli_buf_puts(b, "&quot;"); break;
		case '\'': cli_buf_puts(b, "&#39;"); break;
		default:
			if (n == 0 || (*s < 0x20 && *s != '\t' && *s != '\n') || *s == 0x7F) {
				/* Not a character XML allows (C0 controls, DEL is
				 * allowed but invisible), or not UTF-8: U+FFFD. */
				cli_buf_puts(b, "\xEF\xBF\xBD");
				n = 1;
			} else {
				append(b, (const char *)s, n);
			}
			s += n;
			continue;
		}
		s++;
	}
	free(safe);
}

void cli_buf_escf(cli_buf *b, const char *fmt, ...)
{
	cli_buf tmp;
	va_list ap;

	cli_buf_init(&tmp);
	va_start(ap, fmt);
	vprintf_buf(&tmp, fmt, ap);
	va_end(ap);
	if (tmp.failed)
		b->failed = true;
	else if (tmp.data)
		cli_buf_esc(b, tmp.data);
	cli_buf_free(&tmp);
}

static int write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

int cli_buf_write_file(const cli_buf *b, const char *path, const char *cmd)
{
	if (b->failed) {
		fprintf(stderr, "%s: out of memory while building %s\n", cmd, path);
		return EXIT_ERROR;
	}
	if (strcmp(path, "-") == 0) {
		if (write_all(STDOUT_FILENO, b->data ? b->data : "", b->len) != 0) {
			fprintf(stderr, "%s: cannot write to standard output: %s\n", cmd, strerror(errno));
			return EXIT_ERROR;
		}
		return EXIT_OK_;
	}
	{
		/* A new report is meant to be read and published: 0666 less the
		 * umask; an existing file keeps its mode. -o names where the
		 * output goes, as a shell's > would: a link is written through, a
		 * FIFO or a device (/dev/null, a terminal) written directly, a
		 * hard-linked file rewritten in place (file.h). */
		cr_file_chunk chunk = { b->data, b->len };
		cr_file_opts o = { 0666, CR_FILE_FOLLOW_LINK | CR_FILE_STREAM | CR_FILE_KEEP_LINKS };
		cr_error err = CR_ERROR_INIT;

		if (cr_file_write(path, &chunk, 1, &o, NULL, &err)) {
			fprintf(stderr, "%s: cannot write %s\n", cmd, err.message);
			return EXIT_ERROR;
		}
	}
	return EXIT_OK_;
}
