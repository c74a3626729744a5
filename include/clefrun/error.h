/**
 * @file error.h
 * @brief Status codes and the caller-supplied error record of libclefrun.
 *
 * Every function that can fail returns an int: 0 (CR_OK) on success or a
 * negative cr_status. When the caller passes a cr_error, the library fills it
 * with the status and a message that names the place of the problem (file and
 * JSON path, option, byte offset). There is no global error state.
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

/** Longest message a cr_error holds, terminator included. */
#define CR_ERROR_MSG_MAX 512

/** An error record owned by the caller. */
typedef struct cr_error {
	int status;                    /**< a cr_status */
	char message[CR_ERROR_MSG_MAX]; /**< where and what, one line */
} cr_error;

/** Static text for a status code ("out of memory", ...). Never NULL. */
const char *cr_status_str(int status);

#ifdef __cplusplus
}
#endif
#endif
