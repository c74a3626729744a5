/*
 * Shared helpers of the cmocka unit tests: the includes cmocka needs, and a
 * checker for table rows that reports every failing row (with its name and
 * the wanted and actual values) before the test fails, so that one broken
 * row does not hide the others.
 */
#ifndef CLEFRUN_TEST_UNIT_H
#define CLEFRUN_TEST_UNIT_H

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "clefrun/error.h"

/* Compare a status and an error record with the wanted status and message.
 * Returns true when they match; otherwise prints the row and returns false. */
static inline bool unit_check_error(const char *row, int rc, const cr_error *err, int want_rc,
				    const char *want_msg)
{
	if (rc == want_rc && err->status == want_rc && strcmp(err->message, want_msg) == 0)
		return true;
	print_error("row \"%s\":\n  want %d \"%s\"\n  got  %d (err.status %d) \"%s\"\n", row,
		    want_rc, want_msg, rc, err->status, err->message);
	return false;
}

/* |a - b| <= tol, printing both values when not. */
#define assert_close(a, b, tol)                                                         \
	do {                                                                            \
		double a_ = (double)(a), b_ = (double)(b), t_ = (double)(tol);           \
		if (!(a_ - b_ <= t_ && b_ - a_ <= t_))                                  \
			fail_msg("%s = %.17g, expected %s = %.17g (within %g)", #a, a_, #b, \
				 b_, t_);                                               \
	} while (0)

/* Fail the current test when some rows of a table failed. */
#define UNIT_TABLE_DONE(bad, n)                                                    \
	do {                                                                       \
		if ((bad) != 0)                                                    \
			fail_msg("%u of %u rows failed", (unsigned)(bad), (unsigned)(n)); \
	} while (0)

#define UNIT_ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

#endif
