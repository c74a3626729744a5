/*
 * Text made safe to show (text.h). UTF-8 is decoded strictly (RFC 3629:
 * no overlong forms, no surrogates, nothing above U+10FFFF); a byte that
 * does not start a valid sequence is replaced by U+FFFD and decoding goes
 * on at the next byte, so one bad byte costs one replacement character.
 */
#include "clefrun/text.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

typedef struct tbuf {
	char *out;
	size_t cap;
	size_t len;     /* the whole result, written or not */
	size_t written; /* bytes in out */
	bool cut;       /* once something did not fit, nothing more is written */
} tbuf;

static void emit(tbuf *b, const char *s, size_t n)
{
	if (!b->cut && b->written + n < b->cap) {
		memcpy(b->out + b->written, s, n);
		b->written += n;
	} else {
		b->cut = true;
	}
	b->len += n;
}

/* n one-byte characters: as many as fit, as emit() would write them one
 * at a time. */
static void emit_run(tbuf *b, const char *s, size_t n)
{
	size_t room = !b->cut && b->cap > b->written ? b->cap - 1 - b->written : 0;

	if (n <= room) {
		memcpy(b->out + b->written, s, n);
		b->written += n;
	} else {
		if (room)
			memcpy(b->out + b->written, s, room);
		b->written += room;
		b->cut = true;
	}
	b->len += n;
}

/* Length of the valid UTF-8 sequence at s (1-4), its code point in *cp;
 * 0 when the bytes at s are not one. */
static size_t decode(const unsigned char *s, size_t n, uint32_t *cp)
{
	unsigned c = s[0];
	size_t len;
	uint32_t v;

	if (c < 0x80) {
		*cp = c;
		return 1;
	} else if (c >= 0xC2 && c <= 0xDF) {
		len = 2;
		v = c & 0x1F;
	} else if (c >= 0xE0 && c <= 0xEF) {
		len = 3;
		v = c & 0x0F;
	} else if (c >= 0xF0 && c <= 0xF4) {
		len = 4;
		v = c & 0x07;
	} else {
		return 0;
	}
	if (len > n)
		return 0;
	for (size_t k = 1; k < len; k++) {
		if ((s[k] & 0xC0) != 0x80)
			return 0;
		v = (v << 6) | (s[k] & 0x3F);
	}
	if ((len == 3 && v < 0x800) || (len == 4 && (v < 0x10000 || v > 0x10FFFF)) ||
	    (v >= 0xD800 && v <= 0xDFFF))
		return 0;
	*cp = v;
	return len;
}

static bool escaped_cp(uint32_t cp)
{
	return (cp >= 0x80 && cp <= 0x9F) || cp == 0x2028 || cp == 0x2029 ||
	       (cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069);
}

size_t cr_text_safe(const char *s, size_t n, cr_text_mode mode, char *out, size_t cap)
{
	const unsigned char *p = (const unsigned char *)s;
	tbuf b = { out, out ? cap : 0, 0, 0, false };
	char esc[8];

	for (size_t i = 0; i < n;) {
		uint32_t cp;
		size_t len, run = i;

		/* A run of ASCII that is shown as it is goes out in one copy (most
		 * text is: a 40 KB JSON document costs a tenth of what it did one
		 * character at a time). DISPLAY keeps 0x20-0x7e, JSON 0x00-0x7e. */
		if (mode == CR_TEXT_JSON) {
			while (run < n && p[run] < 0x7F)
				run++;
		} else {
			while (run < n && p[run] < 0x7F && p[run] >= 0x20)
				run++;
		}
		if (run > i) {
			emit_run(&b, s + i, run - i);
			i = run;
			continue;
		}
		len = decode(p + i, n - i, &cp);

		if (!len) {
			emit(&b, "\xEF\xBF\xBD", 3); /* U+FFFD */
			i++;
			continue;
		}
		if (mode == CR_TEXT_DISPLAY && (cp < 0x20 || cp == 0x7F)) {
			snprintf(esc, sizeof(esc), "\\x%02x", (unsigned)cp);
			emit(&b, esc, 4);
		} else if (escaped_cp(cp) || (mode == CR_TEXT_JSON && cp == 0x7F)) {
			snprintf(esc, sizeof(esc), "\\u%04x", (unsigned)cp);
			emit(&b, esc, 6);
		} else {
			emit(&b, s + i, len);
		}
		i += len;
	}
	if (b.cap)
		out[b.written] = '\0';
	return b.len;
}
