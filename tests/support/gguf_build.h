/* Building GGUF bytes in memory for the tests: every field written by hand,
 * so a test can put a hostile value at a known byte offset. */
#ifndef CLEFRUN_TEST_GGUF_BUILD_H
#define CLEFRUN_TEST_GGUF_BUILD_H

#include <stddef.h>
#include <stdint.h>

typedef struct gb {
	unsigned char *p;
	size_t len, cap;
} gb;

void gb_init(gb *b);
void gb_free(gb *b);
void gb_bytes(gb *b, const void *d, size_t n);
void gb_u8(gb *b, uint8_t v);
void gb_u16(gb *b, uint16_t v);
void gb_u32(gb *b, uint32_t v);
void gb_u64(gb *b, uint64_t v);
void gb_f32(gb *b, float v);
void gb_str(gb *b, const char *s);
/* "GGUF", version, tensor count, pair count. */
void gb_header(gb *b, uint32_t version, uint64_t n_tensors, uint64_t n_kv);
/* Pairs of one scalar value. */
void gb_kv_u32(gb *b, const char *key, uint32_t v);
void gb_kv_u64(gb *b, const char *key, uint64_t v);
void gb_kv_str(gb *b, const char *key, const char *v);
void gb_kv_f32(gb *b, const char *key, float v);
void gb_kv_bool(gb *b, const char *key, int v);
/* An array pair's key, type and header; the caller writes the n elements. */
void gb_kv_arr(gb *b, const char *key, uint32_t elem_type, uint64_t n);
void gb_kv_arr_u32(gb *b, const char *key, const uint32_t *v, size_t n);
/* A tensor info of up to 4 dims. */
void gb_tensor(gb *b, const char *name, uint32_t n_dims, const uint64_t *dims, uint32_t type,
	       uint64_t offset);
/* Zero bytes up to a multiple of `align`. */
void gb_pad(gb *b, size_t align);
/* n zero bytes. */
void gb_zeros(gb *b, size_t n);
/* Overwrite 4 or 8 bytes at `off`. */
void gb_put32(gb *b, size_t off, uint32_t v);
void gb_put64(gb *b, size_t off, uint64_t v);

/* A small valid llama model: 2 layers, hidden 64, F16 matrices, tensor data
 * included; n_kv and n_tensors are returned for mutation tests. When
 * `offsets` is given it receives the byte offset of each tensor info. */
void gb_tiny_llama(gb *b, uint32_t version, size_t *offsets);

#endif
