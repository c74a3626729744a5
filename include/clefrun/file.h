/**
 * @file file.h
 * @brief Writing a file so that a crash never leaves half of it.
 *
 * The new content goes to a temporary file in the target's directory
 * (rename(2) is atomic only within one file system), is flushed to disk
 * (fsync), and then renamed over the target; the directory is flushed last
 * so that the rename itself survives a crash. A reader, or a process killed
 * at any point, sees the old file or the new one, never a mix.
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
 * Replace @p path with the concatenation of @p chunks, atomically.
 * The directory must exist. @p mode is the permission bits for the new file
 * before the umask (0666 for a document to publish), or
 * CR_FILE_MODE_PRIVATE.
 * Temporaries of this target left by writers killed more than a minute ago
 * are removed first.
 * @return 0; CR_ERR_IO with a message naming the path and the failed step.
 *   On failure the target is untouched and no temporary file is left.
 */
int cr_file_write_atomic(const char *path, const cr_file_chunk *chunks, size_t n_chunks, int mode,
			 cr_error *err);

#ifdef __cplusplus
}
#endif
#endif
