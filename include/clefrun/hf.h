/**
 * @file hf.h
 * @brief Hugging Face names: "hf:" sources, file URLs, the repository file
 * list, quant names in file names, split files, the token file.
 *
 * No network here (source.h fetches): these functions turn names into URLs
 * and a downloaded file list into GGUF entries.
 *
 * Source syntax (docs/gguf.md):
 *
 *   hf:OWNER/REPO/PATH.gguf   one file (PATH may contain '/'); a split
 *                             file's part 1 names the whole model
 *   hf:OWNER/REPO:QUANT       the repository's GGUF of that quant (Q4_K_M)
 *   hf:OWNER/REPO             the repository's GGUF files
 *
 * URLs: {endpoint}/{repo}/resolve/{revision}/{path} for a file,
 * {endpoint}/api/models/{repo}/tree/{revision}?recursive=true for the list;
 * the endpoint is HF_ENDPOINT (default https://huggingface.co), the revision
 * --revision (default main).
 */
#ifndef CLEFRUN_HF_H
#define CLEFRUN_HF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "clefrun/catalog.h"
#include "clefrun/error.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CR_HF_PREFIX "hf:"
#define CR_HF_DEFAULT_ENDPOINT "https://huggingface.co"
#define CR_HF_DEFAULT_REVISION "main"
#define CR_HF_REPO_MAX 200   /**< "owner/name": 96 + 1 + 96 and a terminator */
#define CR_HF_PATH_MAX 512

/** What an hf: source names. */
typedef enum cr_hf_kind {
	CR_HF_FILE = 0,  /**< one file */
	CR_HF_QUANT,     /**< the file of a quant */
	CR_HF_REPO       /**< the list */
} cr_hf_kind;

/** A parsed hf: source. */
typedef struct cr_hf_ref {
	cr_hf_kind kind;
	char repo[CR_HF_REPO_MAX];   /**< "owner/name" */
	char path[CR_HF_PATH_MAX];   /**< CR_HF_FILE: the path in the repository */
	char quant[CR_ID_MAX];       /**< CR_HF_QUANT: as typed */
} cr_hf_ref;

/**
 * Parse "hf:OWNER/REPO[/PATH.gguf | :QUANT]". OWNER and REPO are
 * [A-Za-z0-9._-], at most 96 characters, not starting with '.' or '-';
 * PATH ends in .gguf, has no "..", no empty segment and no control bytes;
 * QUANT is [A-Za-z0-9_].
 * @return 0; CR_ERR_PARSE with a message naming the part that is wrong.
 */
int cr_hf_parse(const char *spec, cr_hf_ref *out, cr_error *err);

/** {endpoint}/{repo}/resolve/{revision}/{path}, path and revision percent-encoded
 * ('/' kept in the path). @return 0; CR_ERR_INVALID for an endpoint that is not
 * http(s); CR_ERR_RANGE when @p cap is too small. */
int cr_hf_file_url(const char *endpoint, const char *repo, const char *revision,
		   const char *path, char *buf, size_t cap, cr_error *err);

/** {endpoint}/api/models/{repo}/tree/{revision}?recursive=true */
int cr_hf_tree_url(const char *endpoint, const char *repo, const char *revision, char *buf,
		   size_t cap, cr_error *err);

/** One GGUF model in a repository: a file, or the parts of a split file. */
typedef struct cr_hf_entry {
	char path[CR_HF_PATH_MAX];   /**< the file, or part 1 of a split */
	uint64_t size;               /**< bytes, all parts present */
	uint32_t parts;              /**< parts present (1 for a plain file) */
	uint32_t split_count;        /**< parts the names announce (1 for a plain file) */
	char quant[CR_ID_MAX];       /**< from the name ("Q4_K_M", "BF16"), "" if none */
	bool projector;              /**< a multimodal projector (mmproj*), not a language model */
} cr_hf_entry;

/**
 * Read a tree listing (the JSON array the tree URL returns) into the GGUF
 * entries it holds, in listing order; split parts are grouped under part 1
 * (a split whose part 1 is absent is dropped). @p out is an array the
 * caller frees with free().
 * @return 0; CR_ERR_PARSE for bytes that are not the expected JSON
 *   ("NAME: invalid JSON at byte N", "NAME: [3].path: expected a string").
 */
int cr_hf_parse_tree(const char *json, size_t len, const char *name, cr_hf_entry **out,
		     size_t *n, cr_error *err);

/**
 * The quant named in a file name ("Qwen3.5-9B-UD-Q4_K_XL.gguf" -> "Q4_K_XL"),
 * upper case, into @p buf; false (and "") when there is none. Recognises
 * [I]Q<digit>[_X...], BF16, F16, F32, MXFP4[_MOE] and TQ<d>_<d> tokens
 * between '-', '.', '_' or '/' separators; the last one wins.
 */
bool cr_hf_guess_quant(const char *file_name, char *buf, size_t cap);

/**
 * The entry of @p quant (case-insensitive; projectors skipped): its index.
 * @return 0; CR_ERR_NOTFOUND when no entry has that quant.
 */
int cr_hf_pick_quant(const cr_hf_entry *e, size_t n, const char *quant, size_t *index);

/**
 * Read a Hugging Face token file (HF_HOME/token): the first line, blanks
 * trimmed. @return 0; CR_ERR_NOTFOUND when the file does not exist;
 * CR_ERR_INVALID when it is empty, longer than @p cap - 1 or not printable.
 */
int cr_hf_read_token_file(const char *path, char *buf, size_t cap, cr_error *err);

/* ---- the token and where it may go ------------------------------------------------ */

/** Room for a token (huggingface_hub's are 37 bytes; a longer HF_TOKEN value is not used). */
#define CR_HF_TOKEN_MAX 512

/** Where a token comes from: the values of huggingface_hub's variables
 * (the caller reads the environment; the library does not). NULL or "":
 * not set. Initialise with CR_HF_TOKEN_SOURCES_INIT. */
typedef struct cr_hf_token_sources {
	const char *token;      /**< HF_TOKEN: the token itself */
	const char *token_path; /**< HF_TOKEN_PATH: a token file */
	const char *hf_home;    /**< HF_HOME: the token file is HF_HOME/token */
	const char *home;       /**< HOME: the token file is HOME/.cache/huggingface/token */
} cr_hf_token_sources;

#define CR_HF_TOKEN_SOURCES_INIT { .token = NULL, .token_path = NULL, .hf_home = NULL, .home = NULL }

/**
 * The token to send to the Hugging Face endpoint, in huggingface_hub's
 * order: @p src->token when set and shorter than @p cap; else the first
 * file of token_path, hf_home/token, home/.cache/huggingface/token that is
 * set (only that one is read: cr_hf_read_token_file).
 * @return 0 with the token in @p buf; CR_ERR_NOTFOUND when there is none;
 *   the errors of cr_hf_read_token_file.
 */
int cr_hf_find_token(const cr_hf_token_sources *src, char *buf, size_t cap, cr_error *err);

/**
 * Whether @p url is on @p endpoint: it starts with the endpoint (trailing
 * '/' ignored) followed by '/'. "https://huggingface.co.evil/x" and
 * "https://huggingface.com/x" are not on "https://huggingface.co".
 */
bool cr_hf_url_on_endpoint(const char *endpoint, const char *url);

/**
 * The token scoping rule: the bearer token for a request to @p url is
 * @p token when the URL is on the Hugging Face @p endpoint, else NULL (a
 * plain https:// source, a mirror of another host, a redirect target never
 * gets it; source.h sends it to the URL's own host only). NULL or "" token:
 * NULL.
 */
const char *cr_hf_token_for_url(const char *endpoint, const char *token, const char *url);

#ifdef __cplusplus
}
#endif
#endif
