/**
 * @file st_source.h
 * @brief A safetensors checkpoint (config.json and the safetensors headers)
 * from a local directory or a Hugging Face repository, as a cr_model with
 * its exact weight bytes.
 *
 * A directory (a save_pretrained folder, an HF cache snapshot) or
 * hf:OWNER/REPO holds config.json and either model.safetensors.index.json,
 * whose weight_map names the shards, or one model.safetensors. Of each shard
 * only the header is read (safetensors.h): over HTTP one Range request for
 * the first CR_ST_SOURCE_FIRST_RANGE bytes, and a second one only when the
 * header is longer. config.json is read whole (at most
 * CR_HFCONFIG_MAX_BYTES), the index too (at most CR_ST_SOURCE_INDEX_MAX).
 * Shard names must be plain relative file names ending in .safetensors (no
 * "..", no leading '/', no control bytes); at most CR_ST_SOURCE_MAX_SHARDS.
 *
 * The Hugging Face token goes only to URLs on the endpoint
 * (cr_hf_token_for_url). Remote checkpoints go through the header cache
 * (cache.h) as GGUF headers do: config.json and the index as documents,
 * each shard's bytes [0, 8 + N) as an "st" entry; a second run needs no
 * request while the entries are fresh.
 *
 * Ownership: cr_st_source_load fills a caller-owned struct; nothing to free.
 */
#ifndef CLEFRUN_ST_SOURCE_H
#define CLEFRUN_ST_SOURCE_H

#include <stdbool.h>
#include <stdint.h>

#include "clefrun/error.h"
#include "clefrun/hfconfig.h"
#include "clefrun/model_source.h"
#include "clefrun/safetensors.h"
#include "clefrun/source.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CR_ST_SOURCE_MAX_SHARDS 512
#define CR_ST_SOURCE_INDEX_MAX (16u << 20)
/** First range of a shard over HTTP: most headers fit (a 4,000-tensor
 *  header is about 400 KiB; the rest comes in a second request). */
#define CR_ST_SOURCE_FIRST_RANGE (64u << 10)

/** A loaded checkpoint. */
typedef struct cr_st_checkpoint {
	cr_hf_config config;           /**< config.json mapped */
	uint64_t weights_bytes;        /**< Σ of tensor bytes over the shards */
	uint64_t type_bytes[CR_ST_DTYPE_COUNT]; /**< those bytes by dtype */
	uint64_t params;               /**< Σ of elements (packed formats: stored elements) */
	unsigned n_shards;
	unsigned n_tensors;
	bool remote;
	cr_source_stats stats;         /**< requests and bytes, remote only */
	char location[CR_URL_MAX];     /**< the directory or repository read */
} cr_st_checkpoint;

/** True when @p source names a directory holding config.json (no I/O
 *  beyond a stat and an access check). */
bool cr_st_source_is_dir(const char *source);

/**
 * Load @p source: a directory path or hf:OWNER/REPO (the revision, the
 * endpoint, the token settings, the transport limits and the header cache
 * setting from @p opts; cache notices go to its notice callback). @return 0; CR_ERR_IO / CR_ERR_NOTFOUND for a
 * missing file (the message names it), the errors of cr_hfconfig_parse and
 * cr_st_read with the file or URL named, CR_ERR_INVALID for a bad index.
 */
int cr_st_source_load(const char *source, const cr_model_source_opts *opts, cr_st_checkpoint *out,
		      cr_error *err);

#ifdef __cplusplus
}
#endif
#endif
