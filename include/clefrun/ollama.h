/**
 * @file ollama.h
 * @brief Ollama names ("ollama:" sources), its store's paths and URLs, its
 * manifests and params layers.
 *
 * No I/O here (model_source.h reads the files and fetches the URLs): these
 * functions turn names into paths and URLs and bytes into records, and
 * refuse what Ollama itself would not accept (docs/stores.md, read from
 * Ollama v0.33.0-rc2: types/model/name.go, manifest/paths.go,
 * manifest/manifest.go, manifest/layer.go, server/images.go).
 *
 * Source syntax:
 *
 *   ollama:[HOST/][NAMESPACE/]MODEL[:TAG]
 *
 * as Ollama's ParseName reads a name: the tag after the last ':' that
 * follows the last '/', then MODEL, NAMESPACE and HOST from the right.
 * Defaults: host registry.ollama.ai, namespace library, tag latest. Parts:
 * HOST [A-Za-z0-9_][A-Za-z0-9_.:-]*, 1 to 350 bytes; NAMESPACE
 * [A-Za-z0-9_][A-Za-z0-9_-]*, MODEL and TAG [A-Za-z0-9_][A-Za-z0-9_.-]*,
 * 1 to 80 bytes (isValidPart, name.go).
 *
 * Store (root: OLLAMA_MODELS, else ~/.ollama/models; the caller passes it):
 *   ROOT/manifests/HOST/NAMESPACE/MODEL/TAG   the manifest (JSON)
 *   ROOT/blobs/sha256-HEX                     each layer's bytes
 * Registry (https://HOST): GET /v2/NAMESPACE/MODEL/manifests/TAG with
 * "Accept: application/vnd.docker.distribution.manifest.v2+json", and
 * /v2/NAMESPACE/MODEL/blobs/sha256:HEX for a layer.
 */
#ifndef CLEFRUN_OLLAMA_H
#define CLEFRUN_OLLAMA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "clefrun/error.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CR_OLLAMA_PREFIX "ollama:"
/* Ollama's defaults (types/model/name.go: defaultHost, defaultNamespace, defaultTag). */
#define CR_OLLAMA_DEFAULT_HOST "registry.ollama.ai"
#define CR_OLLAMA_DEFAULT_NAMESPACE "library"
#define CR_OLLAMA_DEFAULT_TAG "latest"
/** The registry of the default host (name.go: defaultProtocolScheme "https"). */
#define CR_OLLAMA_DEFAULT_REGISTRY "https://registry.ollama.ai"
/** The Accept header of a manifest request (server/images.go: pullModelManifest). */
#define CR_OLLAMA_MANIFEST_ACCEPT "application/vnd.docker.distribution.manifest.v2+json"

/* Layer media types (server/images.go: GetModel). */
#define CR_OLLAMA_MEDIA_MODEL "application/vnd.ollama.image.model"
#define CR_OLLAMA_MEDIA_PARAMS "application/vnd.ollama.image.params"
#define CR_OLLAMA_MEDIA_PROJECTOR "application/vnd.ollama.image.projector"
#define CR_OLLAMA_MEDIA_TEMPLATE "application/vnd.ollama.image.template"
#define CR_OLLAMA_MEDIA_LICENSE "application/vnd.ollama.image.license"

/* Part lengths (name.go: isValidLen) and a terminator. */
#define CR_OLLAMA_HOST_MAX 351
#define CR_OLLAMA_PART_MAX 81
/** "sha256:" and 64 hex digits, and a terminator. */
#define CR_OLLAMA_DIGEST_MAX 72

/** A manifest is a few hundred bytes; one above this is refused. */
#define CR_OLLAMA_MANIFEST_MAX_BYTES (1u << 20)
/** A params layer is a few hundred bytes; one above this is refused. */
#define CR_OLLAMA_PARAMS_MAX_BYTES (1u << 20)
/** A layer size above 2^50 bytes (1 PiB) is not a model's: refused. */
#define CR_OLLAMA_LAYER_MAX_BYTES (1ull << 50)

/** A parsed ollama: name, defaults filled in. */
typedef struct cr_ollama_ref {
	char host[CR_OLLAMA_HOST_MAX];
	char ns[CR_OLLAMA_PART_MAX];
	char model[CR_OLLAMA_PART_MAX];
	char tag[CR_OLLAMA_PART_MAX];
} cr_ollama_ref;

/**
 * Parse "ollama:NAME" (@p spec with the prefix) as Ollama's ParseName does.
 * @return 0; CR_ERR_PARSE with a message naming the part that is wrong.
 */
int cr_ollama_parse(const char *spec, cr_ollama_ref *out, cr_error *err);

/** "HOST/NAMESPACE/MODEL:TAG" into @p buf (cut at @p cap). */
void cr_ollama_ref_string(const cr_ollama_ref *r, char *buf, size_t cap);

/** The name as 'ollama list' shows it (name.go: DisplayShortest): "MODEL:TAG", with
 * "NAMESPACE/" before it off the library namespace, "HOST/NAMESPACE/" off the
 * default host (cut at @p cap). */
void cr_ollama_ref_short(const cr_ollama_ref *r, char *buf, size_t cap);

/** Whether @p digest is "sha256:" (or "sha256-") and 64 hex digits (manifest/paths.go: BlobsPath). */
bool cr_ollama_digest_valid(const char *digest);

/** ROOT/manifests/HOST/NAMESPACE/MODEL/TAG. @return 0; CR_ERR_RANGE when too long. */
int cr_ollama_manifest_path(const char *root, const cr_ollama_ref *r, char *buf, size_t cap, cr_error *err);

/** ROOT/blobs/sha256-HEX of a valid digest. @return 0; CR_ERR_INVALID for a digest
 * that is not valid; CR_ERR_RANGE when too long. */
int cr_ollama_blob_path(const char *root, const char *digest, char *buf, size_t cap, cr_error *err);

/** The registry base of @p r: @p registry (NULL or "": CR_OLLAMA_DEFAULT_REGISTRY) for the
 * default host, https://HOST for another. @return 0; CR_ERR_INVALID for a registry
 * that is not http(s); CR_ERR_RANGE. */
int cr_ollama_registry_base(const char *registry, const cr_ollama_ref *r, char *buf, size_t cap,
			    cr_error *err);

/** BASE/v2/NAMESPACE/MODEL/manifests/TAG (BASE from cr_ollama_registry_base). */
int cr_ollama_manifest_url(const char *registry, const cr_ollama_ref *r, char *buf, size_t cap, cr_error *err);

/** BASE/v2/NAMESPACE/MODEL/blobs/sha256:HEX. */
int cr_ollama_blob_url(const char *registry, const cr_ollama_ref *r, const char *digest, char *buf, size_t cap,
		       cr_error *err);

/** One layer of a manifest. */
typedef struct cr_ollama_layer {
	bool present;
	char digest[CR_OLLAMA_DIGEST_MAX]; /**< "sha256:HEX", checked */
	uint64_t size;                     /**< bytes, as the manifest says */
} cr_ollama_layer;

/** What a manifest holds that matters here; the first layer of each type. */
typedef struct cr_ollama_manifest {
	cr_ollama_layer model;      /**< the GGUF (required) */
	cr_ollama_layer params;     /**< the JSON options */
	cr_ollama_layer projector;  /**< a multimodal projector (mmproj) */
	cr_ollama_layer template_;  /**< the Go chat template */
	cr_ollama_layer license;
	size_t n_layers;            /**< layers in the manifest, of every type */
	uint64_t total_bytes;       /**< Σ of the layers' sizes and the config's */
} cr_ollama_manifest;

/**
 * Read a manifest (@p name, a path or a URL, is used in messages). It must
 * be a JSON object whose "layers" is an array of objects, each with a
 * string mediaType, a digest of sha256 and 64 hex digits and a whole size
 * from 0 to CR_OLLAMA_LAYER_MAX_BYTES, and one layer of the model type.
 * @return 0; CR_ERR_PARSE "NAME: layers[2].digest: expected sha256:
 *   and 64 hex digits" and the like, CR_ERR_NOTFOUND "NAME: no layer of
 *   type application/vnd.ollama.image.model".
 */
int cr_ollama_parse_manifest(const char *json, size_t len, const char *name, cr_ollama_manifest *out,
			     cr_error *err);

/** Keys of a params layer kept by name (the rest are listed in other_keys). */
typedef struct cr_ollama_params {
	uint32_t num_ctx;       /**< 0: not set */
	uint32_t num_batch;     /**< 0: not set */
	int32_t num_gpu;        /**< -1: not set (a layer count otherwise) */
	int32_t num_predict;    /**< 0: not set */
	bool has_num_predict;
	/** The other options it sets, comma-separated ("stop, temperature"), cut to fit. */
	char other_keys[256];
} cr_ollama_params;

#define CR_OLLAMA_PARAMS_INIT { .num_ctx = 0, .num_batch = 0, .num_gpu = -1, .num_predict = 0, \
				 .has_num_predict = false, .other_keys = "" }

/**
 * Read a params layer: a JSON object of Ollama options (api/types.go:
 * Options, Runner). num_ctx must be a whole number from 1 to 2^30,
 * num_batch from 1 to 2^20, num_gpu from -1 to 2^20, num_predict from -2
 * to 2^30.
 * @return 0; CR_ERR_PARSE "NAME: num_ctx: expected a whole number from 1
 *   to 1073741824" and the like.
 */
int cr_ollama_parse_params(const char *json, size_t len, const char *name, cr_ollama_params *out,
			   cr_error *err);

#ifdef __cplusplus
}
#endif
#endif
