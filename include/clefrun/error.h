/**
 * @file error.h
 * @brief Status codes and the caller-supplied error record of libclefrun.
 *
 * Every function that can fail returns an int: 0 (CR_OK) on success or a
 * negative cr_status. When the caller passes a cr_error, the library fills it
 * with the status and a message that names the place of the problem (file and
 * JSON path, option, byte offset). There is no global error state.
 *
 * Where a caller may want to act on one condition (say what to do next,
 * retry differently), the record also carries a cr_reason: a stable code set
 * where the library detects the condition, so that nobody has to search the
 * message text. Most errors have CR_REASON_NONE; a message may change
 * wording, a reason code keeps its meaning.
 */
#ifndef CLEFRUN_ERROR_H
#define CLEFRUN_ERROR_H

#ifdef __cplusplus
extern "C" {
#endif

/** Status codes returned by libclefrun functions. */
typedef enum cr_status {
	CR_OK = 0,
	CR_ERR_NOMEM = -1,    /**< an allocation failed */
	CR_ERR_IO = -2,       /**< a file could not be read */
	CR_ERR_PARSE = -3,    /**< malformed input (JSON syntax, spec syntax) */
	CR_ERR_INVALID = -4,  /**< well-formed input with a wrong or missing value */
	CR_ERR_NOTFOUND = -5, /**< an id that the catalog does not contain */
	CR_ERR_RANGE = -6,    /**< a number outside what the estimator accepts */
	CR_ERR_UNSUPPORTED = -7 /**< a combination the runtime refuses */
} cr_status;

/**
 * Conditions a caller can act on, beyond the status. Set by the function
 * that detects the condition and kept when an error is passed up; every
 * other error has CR_REASON_NONE.
 */
typedef enum cr_reason {
	CR_REASON_NONE = 0,
	/** GGUF (gguf.h): an item or a tensor's data runs past the end of the
	 * file, as in a file cut after its header (CR_ERR_PARSE). */
	CR_REASON_TRUNCATED,
	/** GGUF: the first bytes are not "GGUF" (CR_ERR_PARSE). */
	CR_REASON_NOT_GGUF,
	/** GGUF: the first bytes are not "GGUF" but '<': a web page (HTML)
	 * where a file was expected (CR_ERR_PARSE). */
	CR_REASON_WEB_PAGE,
	/** HTTP (source.h): 401 or 403 to a request that carried no token. */
	CR_REASON_HTTP_AUTH,
	/** HTTP: 401 or 403 to a request that carried a token. */
	CR_REASON_HTTP_TOKEN_REFUSED,
	/** HTTP: 404 (CR_ERR_NOTFOUND). */
	CR_REASON_HTTP_NOT_FOUND,
	/** Header cache (cache.h), offline: no entry for the URL (CR_ERR_NOTFOUND). */
	CR_REASON_OFFLINE_MISS,
	/** Model sources (model_source.h), offline: no usable cache directory. */
	CR_REASON_OFFLINE_NO_CACHE_DIR,
	/** Model sources: a SOURCE that is malformed or of no supported kind
	 * (an hf: name, a URL without a host, an unsupported scheme). */
	CR_REASON_BAD_SOURCE,
	/** Model sources: a catalog id the catalog does not hold (CR_ERR_NOTFOUND). */
	CR_REASON_UNKNOWN_MODEL,
	/** Model sources: hf:OWNER/REPO names a repository, not one model. */
	CR_REASON_HF_REPO,
	/** Model sources: hf:OWNER/REPO:QUANT, no file of that quant (CR_ERR_NOTFOUND). */
	CR_REASON_HF_NO_QUANT,
	/** Model sources: the repository or revision does not exist (CR_ERR_NOTFOUND). */
	CR_REASON_HF_REPO_NOT_FOUND,
	/** Model sources: the repository has no such file (HTTP 404 on part 1,
	 * online; CR_ERR_NOTFOUND). */
	CR_REASON_HF_FILE_NOT_FOUND,
	/** Model sources: the Hugging Face endpoint refused access and no token
	 * was configured (a gated or private repository). */
	CR_REASON_HF_AUTH,
	/** Model sources: the file is a later part of a split model, not part 1. */
	CR_REASON_SPLIT_NOT_FIRST,
	/** Estimator: a fixed GPU layer count or expert offload was asked of a
	 * rig that lacks GPUs or a system RAM tier to place layers between. */
	CR_REASON_PLACEMENT_NEEDS_RAM_TIER,
	/** Estimator: expert offload was asked of a model without experts. */
	CR_REASON_NOT_MOE,
	/** Model sources: an ollama: model neither in the local store nor on
	 * the registry (CR_ERR_NOTFOUND). */
	CR_REASON_OLLAMA_NOT_FOUND,
	/** Model sources: an Ollama manifest or params layer that is not what
	 * Ollama writes (not an object, no layers, a bad digest or size),
	 * or a layer the store lacks. */
	CR_REASON_OLLAMA_MANIFEST
} cr_reason;

/** Longest message a cr_error holds, terminator included. */
#define CR_ERROR_MSG_MAX 512

/** An error record owned by the caller. Initialise with CR_ERROR_INIT. */
typedef struct cr_error {
	int status;                    /**< a cr_status */
	char message[CR_ERROR_MSG_MAX]; /**< where and what, one line */
	cr_reason reason;              /**< what a caller can act on; CR_REASON_NONE mostly */
} cr_error;

#define CR_ERROR_INIT { .status = CR_OK, .message = "", .reason = CR_REASON_NONE }

/** Static text for a status code ("out of memory", ...). Never NULL. */
const char *cr_status_str(int status);

/** The name of a reason ("truncated", "offline-miss", ...; "none"). Never NULL. */
const char *cr_reason_name(cr_reason reason);

#ifdef __cplusplus
}
#endif
#endif
