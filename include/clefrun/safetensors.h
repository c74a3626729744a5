/**
 * @file safetensors.h
 * @brief The safetensors header: tensor names, dtypes, shapes and the exact
 * bytes of each, read from the first bytes of a file only.
 *
 * Byte layout (https://github.com/huggingface/safetensors, README "Format"):
 *
 *   offset 0        u64, little-endian: N, the length of the JSON header
 *   offset 8        N bytes of UTF-8 JSON: an object
 *                     { "TENSOR": { "dtype": "BF16", "shape": [d0, d1, ...],
 *                                   "data_offsets": [BEGIN, END] }, ...,
 *                       "__metadata__": { "KEY": "VALUE", ... } }
 *                   (the writer pads it with spaces to a multiple of 8)
 *   offset 8 + N    the tensor data; BEGIN and END count from here
 *
 * The reader checks everything and refuses the first problem with a
 * message naming the file (or URL), the tensor and the byte offset in the
 * file: N above CR_ST_HEADER_MAX or past the end of the file, JSON that is
 * not an object of objects, an unknown dtype, a shape whose element count
 * overflows 64 bits, data_offsets whose length is not the shape's bytes
 * (elements x bits of the dtype / 8, sub-byte dtypes packed and whole
 * bytes only), tensors that overlap or leave gaps (the tensors, sorted by
 * BEGIN, must tile the data from 0, as the safetensors crate requires) and
 * data that runs past the end of the file. A file cut after its header is
 * accepted only with cr_st_opts.allow_truncated (a header cache entry).
 *
 * Ownership: cr_st_parse and cr_st_read allocate the result; free it with
 * cr_st_free (NULL is a no-op). Names in it are the result's.
 */
#ifndef CLEFRUN_SAFETENSORS_H
#define CLEFRUN_SAFETENSORS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "clefrun/error.h"
#include "clefrun/source.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Largest header accepted: the safetensors crate's MAX_HEADER_SIZE
 *  (100,000,000 bytes, safetensors/src/tensor.rs). */
#define CR_ST_HEADER_MAX 100000000u
/** Most dimensions of one tensor (a clefrun limit; real models use <= 5). */
#define CR_ST_MAX_DIMS 8
/** Most tensors in one header (a clefrun limit, far above any model). */
#define CR_ST_MAX_TENSORS 1000000u
/** Longest tensor name accepted, bytes. */
#define CR_ST_NAME_MAX 1024u

/** Tensor dtypes, as safetensors spells them (safetensors/src/tensor.rs Dtype). */
typedef enum cr_st_dtype {
	CR_ST_BOOL = 0,
	CR_ST_F4,       /**< 4 bits, E2M1 (packed two per byte) */
	CR_ST_F6_E2M3,  /**< 6 bits */
	CR_ST_F6_E3M2,  /**< 6 bits */
	CR_ST_U8,
	CR_ST_I8,
	CR_ST_F8_E5M2,
	CR_ST_F8_E4M3,
	CR_ST_F8_E8M0,
	CR_ST_I16,
	CR_ST_U16,
	CR_ST_F16,
	CR_ST_BF16,
	CR_ST_I32,
	CR_ST_U32,
	CR_ST_F32,
	CR_ST_F64,
	CR_ST_I64,
	CR_ST_U64,
	CR_ST_C64,      /**< complex64: 64 bits */
	CR_ST_DTYPE_COUNT
} cr_st_dtype;

/** "BF16", "F8_E4M3", ...; "?" out of range. */
const char *cr_st_dtype_name(cr_st_dtype t);
/** Bits per element of @p t (0 out of range). */
unsigned cr_st_dtype_bits(cr_st_dtype t);
/** Parse a dtype name (exact case). @return 0, or CR_ERR_INVALID. */
int cr_st_dtype_parse(const char *s, cr_st_dtype *out);

/** One tensor of a header. */
typedef struct cr_st_tensor {
	char *name;                      /**< NUL-terminated, owned by the header */
	cr_st_dtype dtype;
	uint32_t n_dims;
	uint64_t shape[CR_ST_MAX_DIMS];
	uint64_t elements;               /**< product of the shape (1 for a scalar) */
	uint64_t begin, end;             /**< data_offsets, from the start of the data */
} cr_st_tensor;

/** A parsed header. */
typedef struct cr_st_header {
	uint64_t header_len;             /**< N */
	uint64_t data_start;             /**< 8 + N */
	uint64_t data_bytes;             /**< the last tensor's END: the data's length */
	uint64_t file_size;              /**< the size given to the parser */
	bool truncated;                  /**< the file ends before its data does */
	cr_st_tensor *tensors;           /**< in file order (sorted by begin) */
	size_t n_tensors;
	size_t n_metadata;               /**< entries of __metadata__ */
	char format[32];                 /**< __metadata__.format ("pt"), or "" */
	uint64_t type_bytes[CR_ST_DTYPE_COUNT]; /**< Σ of tensor bytes by dtype */
	uint64_t type_elements[CR_ST_DTYPE_COUNT]; /**< Σ of elements by dtype */
} cr_st_header;

/** Options of the reader. Initialise with CR_ST_OPTS_INIT. */
typedef struct cr_st_opts {
	bool allow_truncated;   /**< accept a file cut after its header (data missing) */
	uint64_t max_header;    /**< cap on N; 0 or above CR_ST_HEADER_MAX: CR_ST_HEADER_MAX */
} cr_st_opts;

#define CR_ST_OPTS_INIT { .allow_truncated = false, .max_header = CR_ST_HEADER_MAX }

/**
 * Parse a header from @p buf, the file's first @p len bytes (at least 8 + N
 * of them; more are ignored). @p file_size is the whole file's size (the
 * data must end there, or before with allow_truncated). @p name names the
 * file in messages. @p opts NULL: the defaults.
 * @return 0; CR_ERR_PARSE (malformed: the length, the JSON, a field, with
 *   CR_REASON_TRUNCATED when the file ends inside the header or the data),
 *   CR_ERR_INVALID (a well-formed value that is wrong: an unknown dtype,
 *   sizes that disagree), CR_ERR_NOMEM.
 */
int cr_st_parse(const void *buf, size_t len, uint64_t file_size, const char *name,
		const cr_st_opts *opts, cr_st_header **out, cr_error *err);

/**
 * Read the header of @p src: its first 8 bytes, then the N bytes of the
 * header and nothing else (over HTTP: two ranges at most beyond the
 * source's first one). Same errors as cr_st_parse plus the source's.
 */
int cr_st_read(cr_source *src, const cr_st_opts *opts, cr_st_header **out, cr_error *err);

/** Free a header; NULL is a no-op. */
void cr_st_free(cr_st_header *h);

#ifdef __cplusplus
}
#endif
#endif
