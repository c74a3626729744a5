/* cr_text_safe (text.h) and cr_url_redact (source.h): what strangers'
 * text becomes before it is shown, one row per kind of byte. */
#include "unit.h"

#include <stdio.h>

#include "clefrun/source.h"
#include "clefrun/text.h"
#include "util.h"

typedef struct row {
	const char *name;
	const char *in;
	size_t len; /* 0: strlen(in) */
	const char *display, *json;
} row;

static const row rows[] = {
	{ "plain ASCII", "Llama 3.1 8B", 0, "Llama 3.1 8B", "Llama 3.1 8B" },
	{ "UTF-8 kept", "Qwen\xe2\x80\x94\xe4\xb8\xad\xf0\x9f\x98\x80", 0, "Qwen\xe2\x80\x94\xe4\xb8\xad\xf0\x9f\x98\x80",
	  "Qwen\xe2\x80\x94\xe4\xb8\xad\xf0\x9f\x98\x80" },
	{ "ESC title", "a\x1b]0;x\x07" "b", 0, "a\\x1b]0;x\\x07b", "a\x1b]0;x\x07" "b" },
	{ "newline, CR, tab", "a\nb\rc\td", 0, "a\\x0ab\\x0dc\\x09d", "a\nb\rc\td" },
	{ "NUL inside", "a\0b", 3, "a\\x00b", "a\0b" },
	{ "DEL", "a\x7f" "b", 0, "a\\x7fb", "a\\u007fb" },
	{ "C1 CSI", "a\xc2\x9b" "31m", 0, "a\\u009b31m", "a\\u009b31m" },
	{ "C1 first and last", "\xc2\x80\xc2\x9f\xc2\xa0", 0, "\\u0080\\u009f\xc2\xa0", "\\u0080\\u009f\xc2\xa0" },
	{ "line separator", "a\xe2\x80\xa8" "b", 0, "a\\u2028b", "a\\u2028b" },
	{ "RTL override", "a\xe2\x80\xae" "b\xe2\x81\xa6", 0, "a\\u202eb\\u2066", "a\\u202eb\\u2066" },
	{ "0xff 0xfe", "a\xff\xfe" "b", 0, "a\xef\xbf\xbd\xef\xbf\xbd" "b", "a\xef\xbf\xbd\xef\xbf\xbd" "b" },
	{ "overlong slash", "\xc0\xaf", 0, "\xef\xbf\xbd\xef\xbf\xbd", "\xef\xbf\xbd\xef\xbf\xbd" },
	{ "overlong 3-byte", "\xe0\x80\xaf", 0, "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd",
	  "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd" },
	{ "surrogate", "\xed\xa0\x80", 0, "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd" },
	{ "above U+10FFFF", "\xf4\x90\x80\x80", 0, "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd",
	  "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd" },
	{ "truncated sequence", "ab\xe4\xb8", 0, "ab\xef\xbf\xbd\xef\xbf\xbd", "ab\xef\xbf\xbd\xef\xbf\xbd" },
	{ "lone continuation", "\x80" "a", 0, "\xef\xbf\xbd" "a", "\xef\xbf\xbd" "a" },
	{ "backslash kept", "a\\x1b", 0, "a\\x1b", "a\\x1b" },
};

static void test_rows(void **state)
{
	bool ok = true;

	(void)state;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const row *r = &rows[i];
		size_t len = r->len ? r->len : strlen(r->in);
		const char *want[2] = { r->display, r->json };
		size_t want_len[2] = { strlen(r->display), r->len && strlen(r->json) < r->len ? r->len : strlen(r->json) };

		for (int m = 0; m < 2; m++) {
			char out[128];
			size_t n = cr_text_safe(r->in, len, m ? CR_TEXT_JSON : CR_TEXT_DISPLAY, out, sizeof(out));

			if (n != want_len[m] || memcmp(out, want[m], n) != 0 || out[n] != '\0' ||
			    cr_text_safe(r->in, len, m ? CR_TEXT_JSON : CR_TEXT_DISPLAY, NULL, 0) != n) {
				print_error("row \"%s\" (%s): got %zu bytes \"%s\", want \"%s\"\n", r->name,
					    m ? "json" : "display", n, out, want[m]);
				ok = false;
			}
			/* Whatever came in, a displayed string is valid UTF-8
			 * without a control byte. */
			if (!m) {
				if (!cr_utf8_valid(out, n))
					ok = false;
				for (size_t k = 0; k < n; k++)
					if ((unsigned char)out[k] < 0x20 || out[k] == 0x7f)
						ok = false;
			}
		}
	}
	assert_true(ok);
}

/* A short buffer is cut before an escape or a character, never inside. */
static void test_cut(void **state)
{
	char out[8];
	size_t n;

	(void)state;
	n = cr_text_safe("ab\x1b" "cd", 5, CR_TEXT_DISPLAY, out, 5);
	assert_int_equal(n, 8); /* "ab\x1bcd" */
	assert_string_equal(out, "ab");
	n = cr_text_safe("ab\xff", 3, CR_TEXT_DISPLAY, out, 5);
	assert_int_equal(n, 5);
	assert_string_equal(out, "ab");
	n = cr_text_safe("\xe4\xb8\xad\xe4\xb8\xad", 6, CR_TEXT_DISPLAY, out, 6);
	assert_int_equal(n, 6);
	assert_string_equal(out, "\xe4\xb8\xad");
	n = cr_text_safe("abc", 3, CR_TEXT_DISPLAY, out, 0);
	assert_int_equal(n, 3);
	/* A run of plain ASCII (copied in one piece) is cut inside, as far as
	 * it fits, like any other sequence of characters. */
	n = cr_text_safe("abcdefghij", 10, CR_TEXT_DISPLAY, out, 5);
	assert_int_equal(n, 10);
	assert_string_equal(out, "abcd");
	n = cr_text_safe("\xc3\xa9" "abcdef", 8, CR_TEXT_JSON, out, 5);
	assert_int_equal(n, 8);
	assert_string_equal(out, "\xc3\xa9" "ab");
	n = cr_text_safe("ab\ncd", 5, CR_TEXT_JSON, out, sizeof(out));
	assert_int_equal(n, 5);
	assert_string_equal(out, "ab\ncd");
	/* The worst case: 6 bytes out per byte in (DEL in JSON). */
	assert_int_equal(cr_text_safe("\x7f\x7f", 2, CR_TEXT_JSON, NULL, 0), 12);
}

/* Every library message goes through it (cr_seterr, util.c). */
static void test_messages(void **state)
{
	cr_error err = CR_ERROR_INIT;

	(void)state;
	assert_int_equal(cr_seterr(&err, CR_ERR_PARSE, "%s: bad", "x\x1b[2J\n\xff"), CR_ERR_PARSE);
	assert_string_equal(err.message, "x\\x1b[2J\\x0a\xef\xbf\xbd: bad");
}

static void test_url_redact(void **state)
{
	static const struct {
		const char *in, *out;
	} r[] = {
		{ "http://user:pass@host/x.gguf", "http://***@host/x.gguf" },
		{ "https://tok@example.com:8443/a/b.gguf?x=1", "https://***@example.com:8443/a/b.gguf?x=1" },
		{ "http://u:p@ss@host/x", "http://***@host/x" },           /* the last '@' of the authority */
		{ "http://host/path@v2/x.gguf", "http://host/path@v2/x.gguf" }, /* '@' in the path: kept */
		{ "http://host?q=a@b", "http://host?q=a@b" },
		{ "http://user:pass@host", "http://***@host" },
		{ "http://***@host/x", "http://***@host/x" },               /* idempotent */
		{ "/models/a@b.gguf", "/models/a@b.gguf" },
		{ "hf:owner/repo", "hf:owner/repo" },
	};
	char out[128];

	(void)state;
	for (size_t i = 0; i < sizeof(r) / sizeof(r[0]); i++) {
		size_t n = cr_url_redact(r[i].in, out, sizeof(out));

		assert_string_equal(out, r[i].out);
		assert_int_equal(n, strlen(r[i].out));
		assert_int_equal(cr_url_redact(r[i].in, NULL, 0), n);
	}
	assert_int_equal(cr_url_redact("http://a:b@h/x", out, 10), strlen("http://***@h/x"));
	assert_string_equal(out, "http://**");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rows),
		cmocka_unit_test(test_cut),
		cmocka_unit_test(test_messages),
		cmocka_unit_test(test_url_redact),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
