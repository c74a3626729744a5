/* The parsed GGUF header behind include/clefrun/gguf.h: written by the
 * reader (gguf.c), read by the getters (gguf_meta.c) and the model mapping
 * (gguf_model.c). The layers and what each may use: gguf_types.h. */
#ifndef CLEFRUN_GGUF_INTERNAL_H
#define CLEFRUN_GGUF_INTERNAL_H

#include "clefrun/gguf.h"
#include "gguf_types.h"

/* One metadata pair: where its value lies in the kept header bytes. */
typedef struct gg_kv {
	const char *key;     /* owned copy */
	uint64_t off;        /* byte offset of the pair (its key's length) */
	cr_gguf_type type;
	uint64_t val_off;    /* value; arrays: first element; strings: first byte */
	uint64_t len;        /* strings: bytes */
	cr_gguf_type elem;   /* arrays: element type */
	uint64_t count;      /* arrays: elements */
	uint64_t end;        /* offset after the value */
} gg_kv;

struct cr_gguf {
	char *name;
	uint32_t version;
	uint32_t alignment;
	uint64_t file_size;
	uint64_t infos_end;      /* end of the tensor infos */
	uint64_t data_offset;
	uint8_t *hdr;            /* file bytes [0, hdr_len) */
	size_t hdr_len;
	gg_kv *kv;
	size_t n_kv;
	size_t *kv_sorted;       /* kv indices by key */
	cr_gguf_tensor *tensors;
	size_t n_tensors;
	size_t *t_sorted;        /* tensor indices by name */
	char arch[CR_ID_MAX];
	uint64_t total_bytes, total_params;
	uint64_t type_bytes[CR_GGML_TYPE_COUNT];
};

/* The pair with this key, or NULL. */
const gg_kv *gg_lookup(const cr_gguf *g, const char *key);
/* Header bytes at off (off < hdr_len). */
const uint8_t *gg_bytes(const cr_gguf *g, uint64_t off);

#endif
