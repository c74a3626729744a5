/**
 * @file gguf.h
 * @brief The GGUF header reader and its mapping into a cr_model.
 *
 * Byte layout (GGUF v2 and v3; all numbers little-endian; spec:
 * ggml-org/ggml docs/gguf.md):
 *
 *   offset 0   char[4]   magic "GGUF"
 *          4   uint32    version: 2 or 3 (v1 used 32-bit counts: refused)
 *          8   uint64    tensor_count
 *         16   uint64    metadata_kv_count
 *         24   metadata_kv_count key-value pairs:
 *                string  key          (uint64 length + bytes, no terminator)
 *                uint32  value_type   (cr_gguf_type)
 *                value:  UINT8/INT8/BOOL 1 byte, (U)INT16 2, (U)INT32/FLOAT32 4,
 *                        (U)INT64/FLOAT64 8, STRING as a string,
 *                        ARRAY as uint32 element type + uint64 count + the
 *                        elements back to back (elements may be arrays: nested)
 *              tensor_count tensor infos:
 *                string  name
 *                uint32  n_dims       (0..4, GGML_MAX_DIMS; 0: a scalar, as ggml reads it)
 *                uint64  dims[n_dims] (ne[0] first: the row length)
 *                uint32  ggml type    (block size and bytes per block: cr_ggml_type_size)
 *                uint64  offset       (from the start of the data section; a
 *                                      multiple of the alignment)
 *              padding to a multiple of the alignment: general.alignment
 *              (uint32, a power of two) if present, else 32
 *   data_offset tensor data: each tensor is (ne[0] / block) × bytes per block
 *              × ne[1] × ne[2] × ne[3] bytes at data_offset + offset.
 *
 * Every byte is hostile: the reader enforces the limits of cr_gguf_opts and
 * the checks below, and each error message names the byte offset, e.g.
 * "model.gguf: byte 8: tensor count 1099511627776 is above the limit of 65536".
 * It refuses: a wrong magic, versions other than 2 and 3 (and big-endian
 * files), counts above the limits, strings and arrays that run past the end
 * of the file or above the limits, unknown value types, arrays nested deeper
 * than the limit, duplicate keys or tensor names, keys and tensor names that
 * are not printable ASCII, tensor names of 64 bytes or more, more than 4
 * dimensions, negative dimensions, element counts or byte sizes that overflow
 * 64 bits, a row length that is not a multiple of the type's block, unknown
 * or removed ggml types, a general.alignment that is not a uint32 power of
 * two, tensor data that is misaligned, overlaps another tensor or lies past
 * the end of the file, and a header larger than max_header_bytes.
 *
 * The header is read through a growing buffer: one first read of first_read
 * bytes (256 KiB), then one read per extension, sized from what the parse has
 * seen so far (the tokenizer arrays dominate real headers), so a header costs
 * one or two reads of the source (two HTTP requests for a remote file).
 *
 * Ownership: cr_gguf_load returns a header the caller frees with
 * cr_gguf_free (NULL is a no-op); every pointer a getter returns is owned by
 * it. Getters never abort: a missing key is CR_ERR_NOTFOUND, a value of the
 * wrong type CR_ERR_INVALID, with the key in the message.
 */
#ifndef CLEFRUN_GGUF_H
#define CLEFRUN_GGUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "clefrun/catalog.h"
#include "clefrun/error.h"
#include "clefrun/source.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Metadata value types. */
typedef enum cr_gguf_type {
	CR_GGUF_UINT8 = 0,
	CR_GGUF_INT8 = 1,
	CR_GGUF_UINT16 = 2,
	CR_GGUF_INT16 = 3,
	CR_GGUF_UINT32 = 4,
	CR_GGUF_INT32 = 5,
	CR_GGUF_FLOAT32 = 6,
	CR_GGUF_BOOL = 7,
	CR_GGUF_STRING = 8,
	CR_GGUF_ARRAY = 9,
	CR_GGUF_UINT64 = 10,
	CR_GGUF_INT64 = 11,
	CR_GGUF_FLOAT64 = 12,
	CR_GGUF_TYPE_COUNT
} cr_gguf_type;

/** "uint32", "string", "array", ... ("?" for an unknown type). */
const char *cr_gguf_type_name(cr_gguf_type t);

#define CR_GGUF_MAX_DIMS 4        /**< GGML_MAX_DIMS */
#define CR_GGUF_MAX_NAME 64       /**< GGML_MAX_NAME: tensor names are shorter */
#define CR_GGUF_DEFAULT_ALIGNMENT 32
#define CR_GGML_TYPE_COUNT 42     /**< ggml type ids are below this */

/**
 * Block layout of a ggml type: elements per block and bytes per block.
 * @return 0; CR_ERR_INVALID for an unknown or removed type id.
 */
int cr_ggml_type_size(uint32_t type, uint32_t *block, uint32_t *bytes);
/** "Q4_K", "F16", ...; NULL for an unknown or removed type id. */
const char *cr_ggml_type_name(uint32_t type);
/** llama.cpp's name of a general.file_type value ("Q4_K_M"); NULL if unknown. */
const char *cr_gguf_file_type_name(uint32_t file_type);

/** Limits of the reader. Initialise with CR_GGUF_OPTS_INIT. */
typedef struct cr_gguf_opts {
	uint64_t max_header_bytes; /**< bytes before the tensor data */
	uint64_t max_string_bytes; /**< one string (key, value, name) */
	uint64_t max_array_len;    /**< elements of one array */
	uint32_t max_array_depth;  /**< arrays of arrays: 1 = no nesting */
	uint64_t max_kv;           /**< metadata pairs */
	uint64_t max_tensors;      /**< tensor infos */
	uint64_t first_read;       /**< bytes of the first read */
	bool allow_truncated;      /**< tensor data may lie past the end of the source
				        (header-only files such as `head -c` cuts); every
				        other check still applies */
} cr_gguf_opts;

/* Real headers: Llama-3 8B is 7.6 MiB (128k tokens + 280k merges), Qwen3.5
 * about 11 MiB; the largest string is a chat template or an embedded
 * tokenizer.json of a few MiB; DeepSeek-V3 has 1025 tensors. */
#define CR_GGUF_MAX_HEADER (64ull << 20)
#define CR_GGUF_FIRST_READ (256u << 10)

/* Defaults, each well above those real headers: a 16 MiB string (the largest
 * are a few MiB), 2^24 elements per array (Llama-3 has 280k merges), arrays
 * nested 4 deep, 2^16 metadata pairs and 2^16 tensor infos (DeepSeek-V3:
 * 1025); tensor data past the end of the source is refused. */
#define CR_GGUF_OPTS_INIT                                                                \
	{ .max_header_bytes = CR_GGUF_MAX_HEADER, .max_string_bytes = 16u << 20,          \
	  .max_array_len = 1u << 24, .max_array_depth = 4, .max_kv = 1u << 16,              \
	  .max_tensors = 1u << 16, .first_read = CR_GGUF_FIRST_READ, .allow_truncated = false }

/** One tensor info. */
typedef struct cr_gguf_tensor {
	const char *name;        /**< NUL-terminated, owned by the cr_gguf */
	uint32_t n_dims;
	uint64_t dims[CR_GGUF_MAX_DIMS]; /**< ne[0..3]; 1 past n_dims */
	uint32_t type;           /**< ggml type id */
	uint64_t offset;         /**< from the start of the data section */
	uint64_t n_elements;
	uint64_t bytes;          /**< ggml_nbytes: ne[0]/block × bytes per block × ne[1] × ne[2] × ne[3] */
	uint64_t info_offset;    /**< byte offset of this info in the file (for messages) */
} cr_gguf_tensor;

/** A parsed GGUF header. */
typedef struct cr_gguf cr_gguf;

/**
 * Read and check the header of the GGUF in @p src (which must outlive the
 * call only; the result keeps a copy of the header bytes and of the
 * source's name). @p opts NULL: CR_GGUF_OPTS_INIT.
 * @return 0; CR_ERR_PARSE for malformed bytes, CR_ERR_RANGE for a limit,
 *   CR_ERR_UNSUPPORTED for a version or type the reader does not handle,
 *   CR_ERR_IO when the source fails, CR_ERR_NOMEM. err->reason (error.h):
 *   CR_REASON_TRUNCATED when an item or a tensor's data runs past the end
 *   of the file, CR_REASON_WEB_PAGE for a magic starting with '<',
 *   CR_REASON_NOT_GGUF for another magic.
 */
int cr_gguf_load(cr_source *src, const cr_gguf_opts *opts, cr_gguf **out, cr_error *err);

/** Free; NULL is a no-op. */
void cr_gguf_free(cr_gguf *g);

uint32_t cr_gguf_version(const cr_gguf *g);
/** general.architecture, or "" when absent. */
const char *cr_gguf_arch(const cr_gguf *g);
/** The source's name when it was loaded. */
const char *cr_gguf_name(const cr_gguf *g);
uint32_t cr_gguf_alignment(const cr_gguf *g);
/** Start of the tensor data (= header bytes, padding included). */
uint64_t cr_gguf_data_offset(const cr_gguf *g);
/** Size of the source when it was loaded. */
uint64_t cr_gguf_file_size(const cr_gguf *g);

/* ---- metadata ----------------------------------------------------------- */

size_t cr_gguf_kv_count(const cr_gguf *g);
/** Key of pair @p i (file order); NULL when out of range. */
const char *cr_gguf_kv_key(const cr_gguf *g, size_t i);
/** Type of pair @p i; CR_GGUF_TYPE_COUNT when out of range. */
cr_gguf_type cr_gguf_kv_type(const cr_gguf *g, size_t i);
/** Index of @p key; false when absent. */
bool cr_gguf_find(const cr_gguf *g, const char *key, size_t *index);

/**
 * Typed getters by key. Integers: any integer type (and bool) whose value
 * fits the output. Floats: any number. Strings are copied NUL-terminated
 * into @p buf (CR_ERR_RANGE when longer than cap - 1).
 * @return 0; CR_ERR_NOTFOUND when the key is absent; CR_ERR_INVALID for a
 *   wrong type or a value that does not fit ("KEY: expected an unsigned
 *   integer, got string").
 */
int cr_gguf_get_u64(const cr_gguf *g, const char *key, uint64_t *out, cr_error *err);
int cr_gguf_get_u32(const cr_gguf *g, const char *key, uint32_t *out, cr_error *err);
int cr_gguf_get_i64(const cr_gguf *g, const char *key, int64_t *out, cr_error *err);
int cr_gguf_get_f64(const cr_gguf *g, const char *key, double *out, cr_error *err);
int cr_gguf_get_bool(const cr_gguf *g, const char *key, bool *out, cr_error *err);
int cr_gguf_get_string(const cr_gguf *g, const char *key, char *buf, size_t cap, cr_error *err);

/** Element type and length of an array value (CR_ERR_INVALID when not an array). */
int cr_gguf_get_array(const cr_gguf *g, const char *key, cr_gguf_type *elem_type,
		      uint64_t *count, cr_error *err);
/** Element @p i of an array of integers or bools (O(1)). */
int cr_gguf_get_array_u64(const cr_gguf *g, const char *key, uint64_t i, uint64_t *out,
			  cr_error *err);
/** Element @p i of an array of numbers, as a double (O(1)). */
int cr_gguf_get_array_f64(const cr_gguf *g, const char *key, uint64_t i, double *out,
			  cr_error *err);
/** Element @p i of an array of strings (O(i)). */
int cr_gguf_get_array_string(const cr_gguf *g, const char *key, uint64_t i, char *buf,
			     size_t cap, cr_error *err);

/**
 * A one-line rendering of pair @p i's value for display: numbers, bools,
 * strings (quoted, control bytes escaped, cut with "..." past @p cap), and
 * arrays as "[type × count]" with their first elements. Always terminates.
 */
void cr_gguf_kv_format(const cr_gguf *g, size_t i, char *buf, size_t cap);

/* ---- tensors ------------------------------------------------------------ */

size_t cr_gguf_tensor_count(const cr_gguf *g);
/** Tensor @p i in file order; NULL when out of range. */
const cr_gguf_tensor *cr_gguf_tensor_at(const cr_gguf *g, size_t i);
/** By name; NULL when absent. */
const cr_gguf_tensor *cr_gguf_find_tensor(const cr_gguf *g, const char *name);
/** Σ tensor bytes: what the weights take in memory. */
uint64_t cr_gguf_tensor_bytes(const cr_gguf *g);
/** Σ tensor elements: the parameter count. */
uint64_t cr_gguf_param_count(const cr_gguf *g);
/** Σ bytes of the tensors of ggml type @p type (0 for other ids). */
uint64_t cr_gguf_type_bytes(const cr_gguf *g, uint32_t type);

/* ---- split files ---------------------------------------------------------- */

/**
 * Recognise llama.cpp's split naming "PREFIX-00001-of-00003.gguf" (5 digits
 * each) at the end of @p path. Sets the prefix length (up to the '-'), the
 * part number (1-based) and the count.
 */
bool cr_gguf_split_parse(const char *path, size_t *prefix_len, uint32_t *no, uint32_t *count);
/**
 * The name of part @p no (1-based) of the split file @p path: the same
 * string with the part number replaced. Anything after ".gguf" (a URL's
 * query) is kept. @return 0; CR_ERR_INVALID when @p path is not a split name
 * or @p no is out of range; CR_ERR_RANGE when @p cap is too small.
 */
int cr_gguf_split_name(const char *path, uint32_t no, char *buf, size_t cap, cr_error *err);

/* ---- model mapping --------------------------------------------------------- */

/** A cr_model read from a GGUF, and what the estimator needs besides. */
typedef struct cr_gguf_model {
	cr_model model;            /**< the same record the catalog produces */
	uint64_t weights_bytes;    /**< exact Σ tensor bytes over all parts: cr_estimate_opts.weights_bytes */
	uint64_t expert_params;    /**< parameters in routed-expert tensors (*_exps) */
	/** Bytes a backend that maps the file where the GPU reads it (Metal) holds
	 *  beyond the tensor bytes of the offloaded tensors when every layer is
	 *  offloaded: Σ over the parts of (the file range from the first to the
	 *  last of those tensors − their bytes). Every tensor but token_embd.weight
	 *  is offloaded (token_embd too when the output reuses it); llama-quantize
	 *  writes the non-block tensors first (output, output_norm, token_embd,
	 *  then blk.0 …), so the token table lies inside that range and is most of
	 *  this figure; a converted F16 file starts with it and gets only padding.
	 *  llama.cpp: llama-model.cpp load_tensors, ggml_backend_dev_buffer_from_host_ptr
	 *  over llama_model_loader::get_mapping_range (docs/methodology.md). */
	uint64_t mapped_extra_bytes;
	uint32_t n_parts;          /**< split files read */
	uint32_t full_attention_interval; /**< hybrid models: every Nth layer keeps a KV cache; 0 otherwise */
	uint32_t swa_period;       /**< sliding-window period used (0 when per-layer or none) */
	uint32_t nextn_layers;     /**< multi-token-prediction (NextN) layers, the last of block_count:
				        llama.cpp v0.4.0 caches their KV in the main context unless the
				        architecture filters them out (qwen35, qwen3next, mimo2, ...) */
	uint64_t mtp_bytes;        /**< their tensor bytes; left out of weights_bytes (and params) where
				        llama.cpp loads them only for --spec-type draft-mtp (glm4moe,
				        deepseek2, qwen35, ...) */
	bool mtp_skipped;          /**< mtp_bytes are left out so (the architecture skips them) */
	bool generic;              /**< architecture not known to clefrun: standard keys only */
	char file_type[CR_ID_MAX]; /**< general.file_type by name ("Q4_K_M"), or "" */
} cr_gguf_model;

/**
 * Map the parsed header(s) of one model into @p out. @p parts are the split
 * files in order (one element for an ordinary file): metadata from part 1,
 * tensors from all. Which keys each architecture uses, and the fallback for
 * architectures clefrun does not know (standard keys, full attention, flagged
 * generic), are in docs/gguf.md.
 * @return 0; CR_ERR_UNSUPPORTED for an architecture that cannot be mapped
 *   (recurrent families without attention, unknown ones without the standard
 *   keys); CR_ERR_INVALID for missing or inconsistent keys, or split parts
 *   that do not belong together. Messages name the file and the key.
 */
int cr_gguf_to_model(const cr_gguf *const *parts, size_t n_parts, cr_gguf_model *out,
		     cr_error *err);

/* ---- vision projectors (mmproj) ---------------------------------------------- */

/** What an mmproj file (general.architecture "clip") says of its image
 *  encoder: llama.cpp's clip.* keys (tools/mtmd/clip-impl.h) and its exact
 *  tensor bytes. Plain data; 0 where a key is absent. */
typedef struct cr_gguf_clip {
	char projector[CR_ID_MAX]; /**< clip.vision.projector_type, else clip.projector_type */
	uint32_t layers;           /**< clip.vision.block_count */
	uint32_t hidden;           /**< clip.vision.embedding_length */
	uint32_t ffn;              /**< clip.vision.feed_forward_length */
	uint32_t heads;            /**< clip.vision.attention.head_count */
	uint32_t patch;            /**< clip.vision.patch_size */
	uint32_t image_size;       /**< clip.vision.image_size */
	uint32_t merge;            /**< clip.vision.spatial_merge_size, else clip.vision.projector.scale_factor */
	uint32_t projection_dim;   /**< clip.vision.projection_dim: the text model's width */
	uint64_t weights_bytes;    /**< Σ tensor bytes */
	uint64_t params;           /**< Σ tensor elements */
	char type[CR_ID_MAX];      /**< the ggml type holding the most bytes ("F16") */
} cr_gguf_clip;

/**
 * Read the vision encoder of the mmproj header @p g.
 * @return 0; CR_ERR_INVALID when general.architecture is not "clip", when
 *   clip.has_vision_encoder is false or when a required key (projector type,
 *   block count, embedding length, feed-forward length, head count, patch
 *   size) is absent or of the wrong type (the message names the file and the key).
 */
int cr_gguf_clip_read(const cr_gguf *g, cr_gguf_clip *out, cr_error *err);

#ifdef __cplusplus
}
#endif
#endif
