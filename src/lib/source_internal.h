/* The byte-source object behind include/clefrun/source.h. Each backend
 * (source.c: memory, source_file.c: file, source_http.c: URL) fills a
 * cr_source with its operations; cr_source_read checks the range before it
 * calls them, so a backend only sees reads that lie inside the source. */
#ifndef CLEFRUN_SOURCE_INTERNAL_H
#define CLEFRUN_SOURCE_INTERNAL_H

#include "clefrun/source.h"

typedef struct cr_source_ops {
	/* Read exactly len bytes at off (off + len <= size, len > 0). */
	int (*read)(cr_source *src, uint64_t off, void *buf, size_t len, cr_error *err);
	/* Release the backend's state (not the cr_source itself). */
	void (*close)(cr_source *src);
} cr_source_ops;

struct cr_source {
	const cr_source_ops *ops;
	char *name;            /* owned */
	uint64_t size;
	cr_source_stats stats;
	void *impl;            /* backend state */
};

/* Allocate a source with a copy of name; ops and impl set by the caller. */
int cr_source_alloc(const char *name, const cr_source_ops *ops, cr_source **out, cr_error *err);

#endif
