/* Small helpers shared inside the library. */
#ifndef CLEFRUN_UTIL_H
#define CLEFRUN_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "clefrun/error.h"

/* Fill *err (if non-NULL) with status and a formatted message (reason
 * CR_REASON_NONE; cr_setreason adds one); return status.
 *
 * The macro makes the result visibly `status` where it is used: the static
 * analyser (scripts/lint) does not look into variadic functions nor into
 * other files, so without it every error path "might return 0" and it
 * follows impossible "failed but succeeded" paths. The other reporters
 * (jr_fail, gguf.c fail, gguf_model.c bad) do the same with
 * cr_status_of(). `status` is evaluated twice: pass a plain value. */
int cr_seterr_(cr_error *err, int status, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
#define cr_seterr(err, status, ...) cr_status_of(cr_seterr_((err), (status), __VA_ARGS__), (status))

/* Mark *err (if non-NULL), already filled, with a reason; return status:
 * `return cr_setreason(err, CR_REASON_TRUNCATED, cr_seterr(err, ...));`. */
static inline int cr_setreason(cr_error *err, cr_reason reason, int status)
{
	if (err)
		err->reason = reason;
	return status;
}

/* Pass an inner error up unchanged (message and reason) with status. */
static inline int cr_errcopy(cr_error *err, int status, const cr_error *from)
{
	if (err && err != from) {
		*err = *from;
		err->status = status;
	}
	return status;
}

/* `status`, after the call that produced `done` (see cr_seterr). */
static inline int cr_status_of(int done, int status)
{
	(void)done;
	return status;
}

/* True when s[0..n) is well-formed UTF-8 (no overlongs, no surrogates). */
bool cr_utf8_valid(const char *s, size_t n);

/* ASCII case-insensitive comparison. */
int cr_strcasecmp(const char *a, const char *b);

/* Copy with truncation; always terminates (cap > 0). */
void cr_strlcpy(char *dst, const char *src, size_t cap);

/* fopen(path, "rb") for a regular file only. A directory, a FIFO (whose
 * plain open would block until a writer comes) or a device (/dev/zero) is
 * refused without blocking. On failure returns NULL with errno set (ENOENT
 * for a missing file, EISDIR for a directory, EINVAL for other kinds) and
 * *why the reason for a message ("No such file or directory", "is a
 * directory", "not a regular file"). */
FILE *cr_fopen_regular(const char *path, const char **why);

/* Read the whole regular file at path (cr_fopen_regular's checks) into a
 * new buffer: *buf (the caller frees it; not NUL-terminated), *len bytes.
 * Reading stops at 2 * max bytes: such a file is refused, CR_ERR_INVALID
 * "PATH: file too large (more than MAX bytes)", so a huge file or an endless
 * device costs at most that much. A file between max and 2 * max bytes is
 * returned whole: the caller's parser refuses it with its exact size.
 * missing: when not NULL, a file that does not exist is 0 with *missing set
 * and *buf NULL; otherwise it is CR_ERR_IO "PATH: No such file or
 * directory". Other failures: CR_ERR_IO "PATH: why" or "PATH: read error",
 * CR_ERR_NOMEM. Defined in file.c. */
int cr_file_read(const char *path, size_t max, char **buf, size_t *len, bool *missing,
		 cr_error *err);

/* Follow symbolic links (at most 8) from path to the file they name, into
 * out (cap bytes). A relative link target is relative to the link's
 * directory. The result need not exist (the last link may dangle). 0, or
 * CR_ERR_IO naming the path (unreadable link, too long, a loop). */
int cr_resolve_links(const char *path, char *out, size_t cap, cr_error *err);

/* The names in @p dir, without those starting with '.', in strcmp order
 * (readdir's order is the file system's and differs between machines), at
 * most @p max. *names is the caller's: free each name, then the array. 0
 * names (and *names NULL) when dir cannot be read. Defined in file.c. */
size_t cr_dir_names(const char *dir, size_t max, char ***names);

#endif
