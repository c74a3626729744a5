/**
 * @file file.h
 * @brief Writing a file so that a crash never leaves half of it.
 *
 * The new content goes to a temporary file in the target's directory
 * (rename(2) is atomic only within one file system), is flushed to disk
 * (fsync), and then renamed over the target; the directory is flushed last
 * so that the rename itself survives a crash. A reader, or a process killed
 * at any point, sees the old file or the new one, never a mix.
 *
 * Renaming over a path replaces whatever the path was: /dev/null written as
 * root became a regular file, a FIFO or a link to /proc/self/fd/1 was
 * replaced, a 0600 file came back 0644, a hard link was split. So
 * cr_file_write looks first: it replaces regular files only (keeping their
 * mode), and for the rest follows its flags (write through, write directly,
 * or refuse).
 */
#ifndef CLEFRUN_FILE_H
#define CLEFRUN_FILE_H

#include <stddef.h>

#include "clefrun/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/** One piece of the content. */
typedef struct cr_file_chunk {
	const void *data; /**< may be NULL when len is 0 */
	size_t len;
} cr_file_chunk;

/** Keep the temporary file's 0600 permissions (private files). */
#define CR_FILE_MODE_PRIVATE (-1)

/**
 * Replace @p path with the concatenation of @p chunks, atomically:
 * cr_file_write with CR_FILE_OPTS_INIT and @p mode. A symbolic link at
 * @p path is replaced by the file (callers that write through links
 * resolve them first, as cr_userrigs_save does); anything else that is not
 * a regular file (a FIFO, a device, a directory) is refused.
 */
int cr_file_write_atomic(const char *path, const cr_file_chunk *chunks, size_t n_chunks, int mode,
			 cr_error *err);

/** cr_file_opts.flags: a symbolic link at the path is written through: the
 * file it names is written and the link stays. A link to a file that does
 * not exist is refused (it is not created). */
#define CR_FILE_FOLLOW_LINK 0x1u
/** cr_file_opts.flags: a FIFO or a character device (at the path, or named
 * by its link with CR_FILE_FOLLOW_LINK) is opened and written directly, as
 * a shell's `>` does: nothing is replaced, nothing fsync'ed, and opening a
 * FIFO waits for its reader. Without it they are refused. A block device,
 * a socket and a directory are always refused. */
#define CR_FILE_STREAM 0x2u
/** cr_file_opts.flags: a regular file with other hard links is rewritten in
 * place (opened, written from byte 0, truncated, fsync'ed), so every name
 * keeps seeing the new content, as `cp` and `>` do. That write is not
 * atomic: a crash in the middle leaves part of the new content. Without the
 * flag the file is replaced under this name only and its other names keep
 * the old content. */
#define CR_FILE_KEEP_LINKS 0x4u

/** Options of cr_file_write. */
typedef struct cr_file_opts {
	int mode;       /**< bits for a new file before the umask, or CR_FILE_MODE_PRIVATE */
	unsigned flags; /**< CR_FILE_FOLLOW_LINK | CR_FILE_STREAM | CR_FILE_KEEP_LINKS */
} cr_file_opts;
/* Defaults: a private (0600) file, no flags. */
#define CR_FILE_OPTS_INIT { .mode = CR_FILE_MODE_PRIVATE, .flags = 0u }

/** What cr_file_write did. */
typedef enum cr_file_how {
	CR_FILE_CREATED,   /**< no file was there: a new one, atomically */
	CR_FILE_REPLACED,  /**< a regular file, replaced atomically; its mode kept */
	CR_FILE_REWRITTEN, /**< a file with other hard links, rewritten in place */
	CR_FILE_STREAMED   /**< a FIFO or character device, written directly */
} cr_file_how;

/**
 * Write @p chunks to @p path as the kind of file there asks:
 * - nothing there: a new file (temporary file in the same directory,
 *   fsync, rename, fsync of the directory), mode @p opts->mode less the
 *   umask (CR_FILE_MODE_PRIVATE: 0600); the directory must exist;
 * - a regular file: replaced the same way, keeping its permission bits
 *   (and its owner and group where this process may set them), so that an
 *   existing 0600 file stays 0600; with several hard links and
 *   CR_FILE_KEEP_LINKS, rewritten in place instead;
 * - a symbolic link, a FIFO, a character device: see the flags above;
 * - anything else: refused, saying what it is.
 * Temporaries of this target left by writers killed more than a minute ago
 * are removed first. @p how (may be NULL) receives what was done.
 * @return 0; CR_ERR_IO with a message naming the path and the failed step
 *   or what is in the way. On failure a replaced file is untouched and no
 *   temporary file is left (a failed in-place rewrite or stream may have
 *   written part of the content).
 */
int cr_file_write(const char *path, const cr_file_chunk *chunks, size_t n_chunks, const cr_file_opts *opts,
		  cr_file_how *how, cr_error *err);

#ifdef __cplusplus
}
#endif
#endif
