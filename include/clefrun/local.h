/**
 * @file local.h
 * @brief The models on this machine: the GGUF files in Ollama's store, the
 * Hugging Face hub cache, LM Studio's models folder and any folders named.
 *
 * Where each store is and how it is laid out: docs/stores.md. Each model
 * found is read from its GGUF header only (model_source.h, a local file:
 * no network), and listed with the SOURCE that names it to the other
 * commands ("ollama:qwen3:8b", "hf:OWNER/REPO/FILE.gguf", or the path). A
 * file that cannot be read or mapped is listed with its error: the scan
 * goes on.
 *
 * The caller passes every directory (the library reads no environment):
 * cr_model_source_ollama_dir and cr_model_source_hf_hub_dir give the
 * defaults of the first two, cr_local_lmstudio_dirs LM Studio's.
 *
 * Ownership: cr_local_scan returns an array the caller frees with free().
 */
#ifndef CLEFRUN_LOCAL_H
#define CLEFRUN_LOCAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "clefrun/catalog.h"
#include "clefrun/error.h"
#include "clefrun/source.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Where a model was found. */
typedef enum cr_local_store {
	CR_LOCAL_OLLAMA = 0, /**< Ollama's store: a manifest and its model blob */
	CR_LOCAL_HF,         /**< the Hugging Face hub cache: a snapshot's file */
	CR_LOCAL_LMSTUDIO,   /**< LM Studio's models folder */
	CR_LOCAL_PATH        /**< a folder or file the caller named */
} cr_local_store;

/** "ollama", "hf-cache", "lmstudio", "path". */
const char *cr_local_store_name(cr_local_store s);

/** At most this many folders of each kind. */
#define CR_LOCAL_MAX_DIRS 16
/** Folders (LM Studio's, the caller's) are walked this deep at most. */
#define CR_LOCAL_MAX_DEPTH 6
/** A scan lists at most this many models (then says it stopped: truncated). */
#define CR_LOCAL_MAX_MODELS 4096

/** Options. Initialise with CR_LOCAL_SCAN_OPTS_INIT. NULL or "" directories are skipped. */
typedef struct cr_local_scan_opts {
	const char *ollama_dir;                        /**< Ollama's store */
	const char *hf_hub_dir;                        /**< the hub cache */
	const char *lmstudio_dirs[CR_LOCAL_MAX_DIRS];  /**< LM Studio's models folders */
	size_t n_lmstudio;
	const char *paths[CR_LOCAL_MAX_DIRS];          /**< folders (walked) or files */
	size_t n_paths;
	bool allow_truncated;                          /**< accept header-only files */
} cr_local_scan_opts;

#define CR_LOCAL_SCAN_OPTS_INIT { .ollama_dir = NULL, .hf_hub_dir = NULL, .lmstudio_dirs = { NULL }, \
				  .n_lmstudio = 0, .paths = { NULL }, .n_paths = 0, .allow_truncated = false }

/** One model found. */
typedef struct cr_local_model {
	cr_local_store store;
	char source[CR_URL_MAX];   /**< the SOURCE that names it to --model */
	char path[CR_URL_MAX];     /**< the file read (part 1 of a split) */
	uint64_t file_bytes;       /**< bytes on disk, all parts */
	uint32_t parts;            /**< split parts read (1 for one file) */
	/* From the header; empty or 0 when status is not 0: */
	char arch[64];             /**< general.architecture */
	char name[CR_NAME_MAX];    /**< general.name, or the file's */
	char file_type[CR_ID_MAX]; /**< "Q4_K_M", or "" */
	uint64_t params;           /**< parameters (all experts) as mapped */
	uint32_t context_max;      /**< the model's trained context */
	uint32_t ollama_num_ctx;   /**< an Ollama params layer's num_ctx; 0: none */
	int status;                /**< 0, or the status of the error */
	char error[CR_ERROR_MSG_MAX]; /**< what went wrong, when status is not 0 */
} cr_local_model;

/**
 * Find the models of every store and folder in @p o: Ollama manifests
 * (manifests/HOST/NS/MODEL/TAG), hub cache snapshots
 * (models--OWNER--REPO/snapshots/COMMIT/...; the commit of refs/main names
 * them hf:OWNER/REPO/PATH, another commit by path), and *.gguf files
 * (multimodal projectors, mmproj*, and later split parts left out) under
 * the folders. Sorted by store, then source.
 * @return 0 (a store that is missing holds nothing); *truncated (optional)
 *   says the list stopped at CR_LOCAL_MAX_MODELS; CR_ERR_NOMEM.
 */
int cr_local_scan(const cr_local_scan_opts *o, cr_local_model **out, size_t *n, bool *truncated, cr_error *err);

/**
 * LM Studio's models folders under @p home: ~/.lmstudio/models (the folder
 * its documentation names), then ~/.cache/lm-studio/models (older
 * releases), written into @p bufs and pointed to by @p dirs.
 * @return how many (0 without @p home).
 */
size_t cr_local_lmstudio_dirs(const char *home, char bufs[2][4096], const char *dirs[2]);

#ifdef __cplusplus
}
#endif
#endif
