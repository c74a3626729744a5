/* Small helpers shared inside the library. */
#ifndef CLEFRUN_UTIL_H
#define CLEFRUN_UTIL_H

#include <stdbool.h>
#include <stddef.h>

#include "clefrun/error.h"

/* Fill *err (if non-NULL) with status and a formatted message; return status. */
int cr_seterr(cr_error *err, int status, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* True when s[0..n) is well-formed UTF-8 (no overlongs, no surrogates). */
bool cr_utf8_valid(const char *s, size_t n);

/* ASCII case-insensitive comparison. */
int cr_strcasecmp(const char *a, const char *b);

/* Copy with truncation; always terminates (cap > 0). */
void cr_strlcpy(char *dst, const char *src, size_t cap);

#endif
