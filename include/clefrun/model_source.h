/**
 * @file model_source.h
 * @brief A model from a SOURCE: a catalog id, a local GGUF path, an http(s)
 * URL or an hf: name, resolved to the catalog's cr_model with its exact
 * weight bytes.
 *
 * What a SOURCE names (docs/gguf.md), decided by cr_model_source_classify:
 *
 *   hf:OWNER/REPO[/PATH.gguf | :QUANT]  Hugging Face (hf.h): a file, the
 *                                       file of a quant (from the
 *                                       repository's file list), or the list;
 *                                       the local hub cache first (hf_hub_dir)
 *   ollama:[HOST/][NS/]MODEL[:TAG]      Ollama (ollama.h): the local store's
 *                                       model layer, else the registry's
 *   http://... https://...              a URL (the scheme in any case)
 *   SCHEME://...                        any other scheme: refused
 *   contains '/' or ends in .gguf       a local file
 *   anything else                       a catalog id
 *
 * A GGUF is read from its header only (gguf.h), every split part of it
 * (part 1 names the model; the others are found by name, cr_gguf_split_name),
 * and mapped by cr_gguf_to_model. Remote headers and repository lists go
 * through the header cache (cache.h) unless the options turn it off.
 *
 * The caller passes every setting in: the Hugging Face endpoint, the token
 * and its files, the cache directory and the transport's limits (a shared
 * deadline, a progress callback). The library reads no environment and
 * prints nothing; an error's message is in the cr_error and its
 * cr_error.reason says what the caller may suggest (error.h). Warnings about
 * the cache (an entry broken and fetched again) go to the notice callback.
 *
 * Token scoping: the Hugging Face token goes only to URLs on the endpoint
 * (cr_hf_token_for_url, hf.h); a plain URL source never gets it.
 *
 * Ownership: cr_model_source_resolve allocates the result; free it with
 * cr_model_source_free (NULL is a no-op). The parsed headers in it are the
 * result's. cr_model_source_list returns an array the caller frees with
 * free().
 */
#ifndef CLEFRUN_MODEL_SOURCE_H
#define CLEFRUN_MODEL_SOURCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "clefrun/cache.h"
#include "clefrun/catalog.h"
#include "clefrun/error.h"
#include "clefrun/gguf.h"
#include "clefrun/hf.h"
#include "clefrun/ollama.h"
#include "clefrun/source.h"

#ifdef __cplusplus
extern "C" {
#endif

/** What a SOURCE string names. */
typedef enum cr_model_source_kind {
	CR_MODEL_SOURCE_CATALOG = 0, /**< no '/', not ending in .gguf, no scheme: a catalog id */
	CR_MODEL_SOURCE_FILE,        /**< contains '/' or ends in .gguf (.GGUF) */
	CR_MODEL_SOURCE_URL,         /**< http:// or https://, the scheme in any case */
	CR_MODEL_SOURCE_HF,          /**< hf:OWNER/REPO[...] */
	CR_MODEL_SOURCE_BAD_URL,     /**< SCHEME:// of any other scheme (ftp://...): refused */
	CR_MODEL_SOURCE_OLLAMA       /**< ollama:NAME[:TAG] */
} cr_model_source_kind;

/** The kind of @p source (no I/O, never fails). */
cr_model_source_kind cr_model_source_classify(const char *source);

/** How remote headers and lists use the header cache (cache.h). */
typedef enum cr_model_source_cache {
	CR_MODEL_SOURCE_CACHE_USE = 0, /**< read and write it; without a usable directory, the network only */
	CR_MODEL_SOURCE_CACHE_OFF,     /**< neither read nor write it */
	CR_MODEL_SOURCE_CACHE_OFFLINE  /**< read it only, whatever the entries' age; no request */
} cr_model_source_cache;

/** Split models beyond this many parts are refused. */
#define CR_MODEL_SOURCE_MAX_PARTS 256

/** Options. Initialise with CR_MODEL_SOURCE_OPTS_INIT. */
typedef struct cr_model_source_opts {
	/** Where catalog ids are looked up; NULL: a catalog id is refused as
	 * "not a GGUF source" (CR_REASON_BAD_SOURCE). */
	const cr_catalog *catalog;
	const char *revision;        /**< Hugging Face revision; NULL: CR_HF_DEFAULT_REVISION. A 40-hex commit's cache entries never expire. */
	bool allow_truncated;        /**< accept header-only files (tensor data missing): cr_gguf_opts.allow_truncated */
	/** Read the GGUF header(s) and map no model: for an mmproj file (general.architecture
	 * "clip", read with cr_gguf_clip_read from parts[0]); model, weights_bytes and gguf stay zero. */
	bool no_model;
	cr_model_source_cache cache; /**< how the header cache is used */
	/** The cache directory; NULL: cr_cache_dir(xdg_cache_home, home). */
	const char *cache_dir;
	const char *xdg_cache_home;  /**< XDG_CACHE_HOME's value, or NULL */
	const char *home;            /**< HOME's value, or NULL (the cache and the token file) */
	const char *hf_endpoint;     /**< HF_ENDPOINT's value; NULL or "": CR_HF_DEFAULT_ENDPOINT */
	const char *hf_token;        /**< HF_TOKEN's value, or NULL */
	const char *hf_token_path;   /**< HF_TOKEN_PATH's value, or NULL */
	const char *hf_home;         /**< HF_HOME's value, or NULL */
	/** The Hugging Face hub cache directory (HF_HUB_CACHE, else HF_HOME/hub,
	 * else XDG_CACHE_HOME/huggingface/hub, else ~/.cache/huggingface/hub:
	 * cr_model_source_hf_hub_dir). hf: files found there are read from
	 * the disk, with no request. NULL: not looked at. */
	const char *hf_hub_dir;
	/** Ollama's store (OLLAMA_MODELS, else ~/.ollama/models:
	 * cr_model_source_ollama_dir). NULL: not looked at (the registry only). */
	const char *ollama_dir;
	/** The registry of ollama: names on registry.ollama.ai; NULL or "":
	 * CR_OLLAMA_DEFAULT_REGISTRY. */
	const char *ollama_registry;
	/** The transport's options for every request (limits, deadline_ms,
	 * progress). Its bearer_token is ignored: the token goes per URL by
	 * the scoping rule. */
	cr_http_opts http;
	/** Called with each warning about the cache (one line: cr_cache_result.notice)
	 * while the result is good; NULL: dropped. */
	void (*notice)(void *arg, const char *line);
	void *notice_arg;
} cr_model_source_opts;

#define CR_MODEL_SOURCE_OPTS_INIT                                                                    \
	{ .catalog = NULL, .revision = NULL, .allow_truncated = false, .no_model = false, .cache = CR_MODEL_SOURCE_CACHE_USE, \
	  .cache_dir = NULL, .xdg_cache_home = NULL, .home = NULL, .hf_endpoint = NULL, .hf_token = NULL, \
	  .hf_token_path = NULL, .hf_home = NULL, .hf_hub_dir = NULL, .ollama_dir = NULL,               \
	  .ollama_registry = NULL, .http = CR_HTTP_OPTS_INIT, .notice = NULL, .notice_arg = NULL }

/** What an ollama: source read besides the model layer. */
typedef struct cr_model_source_ollama {
	char name[CR_OLLAMA_HOST_MAX + 3 * CR_OLLAMA_PART_MAX + 4]; /**< "HOST/NS/MODEL:TAG" */
	bool local;                     /**< from the local store (else the registry) */
	char manifest[CR_URL_MAX * 2];  /**< the manifest's path or URL */
	char model_digest[CR_OLLAMA_DIGEST_MAX];
	bool has_params;                /**< a params layer was read */
	cr_ollama_params params;        /**< its options (num_ctx: 0 when not set) */
	uint64_t projector_bytes;       /**< the projector layer's size; 0: none */
	bool has_template, has_license;
} cr_model_source_ollama;

/** A resolved model. Allocated by cr_model_source_resolve. */
typedef struct cr_model_source {
	cr_model_source_kind kind;
	cr_model model;                 /**< the catalog's record (a copy), or the GGUF's mapping */
	bool from_gguf;
	/** GGUF: the exact Σ of tensor bytes over all parts, for
	 * cr_estimate_opts.weights_bytes; 0 for a catalog model. */
	uint64_t weights_bytes;
	/** GGUF: those bytes by ggml type (index: type id, cr_gguf_tensor.type). */
	uint64_t type_bytes[CR_GGML_TYPE_COUNT];
	char file_type[CR_ID_MAX];      /**< general.file_type by name ("Q4_K_M"), or "" */
	cr_gguf_model gguf;             /**< GGUF: the whole mapping (gguf.model == model); zero otherwise */
	/** GGUF: the parsed headers, part 1 first; owned by the result. */
	cr_gguf *parts[CR_MODEL_SOURCE_MAX_PARTS];
	size_t n_parts;
	char location[CR_URL_MAX * 2];  /**< the path or URL of part 1 as read (credentials included: redact to show) */
	uint64_t file_bytes;            /**< Σ of the parts' sizes */
	bool remote;                    /**< read over HTTP (or from the cache of it) */
	cr_source_stats stats;          /**< Σ over the parts and the file list */
	bool cache_on;                  /**< the header cache was used */
	unsigned cache_hits;            /**< parts (and lists) read from the cache without a request */
	unsigned cache_revalidated;     /**< ... that the server confirmed (a request, no body) */
	unsigned cache_misses;          /**< ... fetched */
	/** hf: read from the Hugging Face hub cache on disk (location is the
	 * snapshot's path; no request). */
	bool from_hub_cache;
	cr_model_source_ollama ollama;  /**< CR_MODEL_SOURCE_OLLAMA only; zero otherwise */
} cr_model_source;

/**
 * Resolve @p source into *@p out (allocated; free with cr_model_source_free).
 * A catalog id is looked up in opts->catalog; anything else is read as a
 * GGUF with all its split parts and mapped. @p opts NULL: the defaults.
 * @return 0; on failure *out is NULL and @p err says what, its reason
 *   among: CR_REASON_BAD_SOURCE (a malformed hf: name, a URL without a
 *   host, an unsupported scheme, a catalog id without a catalog),
 *   CR_REASON_UNKNOWN_MODEL, CR_REASON_HF_REPO (hf:OWNER/REPO names no one
 *   file), CR_REASON_HF_NO_QUANT, CR_REASON_HF_REPO_NOT_FOUND,
 *   CR_REASON_HF_FILE_NOT_FOUND (online: the caller may list the
 *   repository with cr_model_source_list), CR_REASON_HF_AUTH (the endpoint
 *   refused and no token was configured), CR_REASON_SPLIT_NOT_FIRST,
 *   CR_REASON_OFFLINE_MISS, CR_REASON_OFFLINE_NO_CACHE_DIR,
 *   CR_REASON_OLLAMA_NOT_FOUND, CR_REASON_OLLAMA_MANIFEST, and those of
 *   the reader and transport (CR_REASON_TRUNCATED, CR_REASON_NOT_GGUF,
 *   CR_REASON_WEB_PAGE, CR_REASON_HTTP_*); others CR_REASON_NONE.
 */
int cr_model_source_resolve(const char *source, const cr_model_source_opts *opts, cr_model_source **out,
			    cr_error *err);

/** Free a result and its headers; NULL is a no-op. */
void cr_model_source_free(cr_model_source *m);

/**
 * The Hugging Face hub cache directory as huggingface_hub picks it
 * (constants.py, v1.28.0): @p hf_hub_cache (HF_HUB_CACHE, or the legacy
 * HUGGINGFACE_HUB_CACHE) when set; else HF_HOME/hub; else
 * XDG_CACHE_HOME/huggingface/hub; else HOME/.cache/huggingface/hub.
 * NULL or "" arguments are unset. @return 0; CR_ERR_NOTFOUND when none is
 * set; CR_ERR_RANGE when too long.
 */
int cr_model_source_hf_hub_dir(const char *hf_hub_cache, const char *hf_home, const char *xdg_cache_home,
			       const char *home, char *buf, size_t cap, cr_error *err);

/**
 * Ollama's store as Ollama picks it (envconfig/config.go: Models, v0.33.0-rc2):
 * @p ollama_models (OLLAMA_MODELS) when set, else HOME/.ollama/models.
 * @return 0; CR_ERR_NOTFOUND when neither is set; CR_ERR_RANGE.
 */
int cr_model_source_ollama_dir(const char *ollama_models, const char *home, char *buf, size_t cap,
			       cr_error *err);

/**
 * Where the header(s) came from, for a summary: CR_CACHE_NONE when the cache
 * was not used, CR_CACHE_MISS when anything was fetched, else
 * CR_CACHE_REVALIDATED when the server confirmed an entry, else CR_CACHE_HIT.
 */
cr_cache_outcome cr_model_source_cache_outcome(const cr_model_source *m);

/**
 * The GGUF files of the repository an hf: @p source names (any form:
 * hf:OWNER/REPO, :QUANT or /FILE.gguf): split parts grouped, quant from the
 * names (cr_hf_parse_tree). *entries is the caller's (free()). @p stats
 * (optional) receives the requests and bytes.
 * @return 0; CR_ERR_PARSE with CR_REASON_BAD_SOURCE for a malformed name;
 *   CR_ERR_NOTFOUND with CR_REASON_HF_REPO_NOT_FOUND (online) or
 *   CR_REASON_OFFLINE_MISS; the errors of the transport and the listing.
 */
int cr_model_source_list(const char *source, const cr_model_source_opts *opts, cr_hf_entry **entries,
			 size_t *n, cr_source_stats *stats, cr_error *err);

#ifdef __cplusplus
}
#endif
#endif
