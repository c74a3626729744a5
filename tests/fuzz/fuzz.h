/*
 * Shared declarations of the libFuzzer harnesses (tests/fuzz/README.md).
 *
 * Every harness defines LLVMFuzzerTestOneInput and nothing else that a
 * libFuzzer build would clash with. Built with CLEFRUN_FUZZ (clang,
 * -fsanitize=fuzzer,address,undefined) libFuzzer supplies main(); without
 * it replay_main.c does, replaying files and directories given on the
 * command line so that ctest runs every corpus file with the normal
 * compiler.
 *
 * FUZZ_CHECK is an invariant the harness asserts on top of "no crash": a
 * violation aborts, which libFuzzer reports as a crash and ctest as a
 * failure.
 */
#ifndef CLEFRUN_FUZZ_H
#define CLEFRUN_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_CHECK(cond)                                                                 \
	do {                                                                             \
		if (!(cond)) {                                                           \
			fprintf(stderr, "%s:%d: invariant failed: %s\n", __FILE__, __LINE__, \
				#cond);                                                  \
			abort();                                                         \
		}                                                                        \
	} while (0)

/* Clear a cr_error before each call whose failure the harness checks: a
 * call that fails without setting it must not pass on the message an
 * earlier call left there. */
#define FUZZ_ERR_RESET(e)                 \
	do {                              \
		(e).status = 0;           \
		(e).message[0] = '\0';    \
	} while (0)

#endif
