/* The lowest layer of the GGUF code (gguf_types.c): tables and byte loads
 * that know no parsed file. The public half of it (cr_gguf_type_name,
 * cr_ggml_type_size, cr_ggml_type_name, cr_gguf_file_type_name) is declared
 * in include/clefrun/gguf.h. Layers, each using only those below it:
 *   gguf_types.c  tables, little-endian loads
 *   gguf.c        the reader: parses and checks a header (gguf_internal.h)
 *   gguf_meta.c   typed getters, value rendering, split-file names
 *   gguf_model.c  the mapping of a header to a cr_model */
#ifndef CLEFRUN_GGUF_TYPES_H
#define CLEFRUN_GGUF_TYPES_H

#include <stdint.h>

#include "clefrun/gguf.h"

uint16_t gg_ld16(const uint8_t *p);
uint32_t gg_ld32(const uint8_t *p);
uint64_t gg_ld64(const uint8_t *p);

/* Name of a type id ggml removed ("Q4_0_4_4"), or NULL. */
const char *gg_removed_type(uint32_t type);

#endif
