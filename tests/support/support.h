/*
 * Helpers the C test suites share (tests/support; the Python drivers'
 * are in clefrun_test.py): temporary directories and their removal,
 * reading a whole file, and the loopback HTTP server (http_server.py).
 * The GGUF builder is gguf_build.h, the cmocka table helpers unit.h.
 * Every function reports failure by its return value; none aborts, so a
 * setup can fail cleanly.
 */
#ifndef CLEFRUN_TEST_SUPPORT_H
#define CLEFRUN_TEST_SUPPORT_H

#include <stddef.h>
#include <sys/types.h>

/* Make a new directory $TMPDIR/clefrun-TAG-XXXXXX (/tmp without TMPDIR),
 * its path into buf. 0, or -1 (too long, mkdtemp failed). */
int ts_tmpdir(char *buf, size_t cap, const char *tag);

/* rm -rf path, without a shell: a directory is made readable and writable
 * by its owner first (tests make read-only ones). A missing path is 0;
 * -1 when something could not be removed. */
int ts_rm_tree(const char *path);

/* The whole file at path, NUL-terminated (malloc'ed; *len, when not NULL,
 * the bytes without the NUL); NULL when it cannot be read. */
char *ts_slurp(const char *path, size_t *len);

/* The loopback server: python http_server.py --root ROOT --log LOG on
 * 127.0.0.1, a free port (it prints "PORT N" once it listens). */
typedef struct ts_server {
	pid_t pid;
	int port;
	char base[64]; /* "http://127.0.0.1:PORT" */
} ts_server;

/* Start it; 0, or -1 (nothing left running). The interpreter and the
 * script are the build's (CLEFRUN_PYTHON, tests/support/http_server.py). */
int ts_server_start(ts_server *s, const char *root, const char *log);
/* Stop it (SIGTERM, then wait); a server never started is a no-op. */
void ts_server_stop(ts_server *s);

#endif
