/**
 * @file text.h
 * @brief Text from strangers, made safe to show.
 *
 * Strings read from GGUF headers (general.name and every other string),
 * Hugging Face listings, URLs, catalog and saved-rig files reach tables,
 * CSV, Markdown, HTML, JSON and error messages. Raw, they could drive the
 * terminal that shows them (ESC sequences set its title, clear the screen,
 * recolour; a newline forges an output line) or break a consumer that
 * expects UTF-8. cr_text_safe is the one place that decides what is shown:
 * every writer of the CLI and every library message goes through it.
 */
#ifndef CLEFRUN_TEXT_H
#define CLEFRUN_TEXT_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/** What the text is for. */
typedef enum cr_text_mode {
	/**
	 * Human-readable output (tables, CSV, Markdown, HTML, messages): a C0
	 * control byte (0x00-0x1f, newline and tab included) or DEL becomes
	 * the four characters "\xHH"; a C1 control (U+0080-U+009F), a line or
	 * paragraph separator (U+2028, U+2029) or a bidirectional override
	 * (U+202A-U+202E, U+2066-U+2069) becomes "\uHHHH"; every byte that is
	 * not part of a valid UTF-8 sequence becomes U+FFFD.
	 */
	CR_TEXT_DISPLAY = 0,
	/**
	 * Serialized JSON (cJSON's output, whose control characters are
	 * already escaped or are its own layout): every byte that is not part
	 * of a valid UTF-8 sequence becomes U+FFFD, and DEL, the C1 controls,
	 * U+2028/U+2029 and the bidirectional overrides become "\uHHHH"
	 * escapes. Those can only occur
	 * inside JSON strings, where the escapes mean the same characters.
	 */
	CR_TEXT_JSON
} cr_text_mode;

/**
 * Copy the @p n bytes at @p s, made safe for @p mode, into @p out: at most
 * @p cap - 1 bytes and a terminating NUL (when @p cap > 0), never cut
 * inside a character or an escape.
 * @return the length of the whole result, terminator excluded, as
 *   snprintf counts it: the output was cut when it is >= @p cap. At most
 *   6 × @p n. @p out may be NULL when @p cap is 0 (to measure).
 */
size_t cr_text_safe(const char *s, size_t n, cr_text_mode mode, char *out, size_t cap);

#ifdef __cplusplus
}
#endif
#endif
