/*
 * JSON documents as text: cli_json_print writes what cJSON_Print writes,
 * byte for byte, in a fraction of its time (json_out.c).
 */
#ifndef CLEFRUN_CLI_JSON_OUT_H
#define CLEFRUN_CLI_JSON_OUT_H

#include <cjson/cJSON.h>

/*
 * @p root formatted as cJSON_Print formats it (cJSON 1.7: tabs, ":\t",
 * arrays on one line with ", ", numbers as "%1.15g" unless that does not
 * read back, then "%1.17g", NaN and infinities as null). A malloc'd string
 * the caller frees, or NULL (out of memory, an item of no known type, a raw
 * item without text).
 */
char *cli_json_print(const cJSON *root);

/*
 * @p root printed on stdout (cli_json_print, then cli_puts_json; safe.c) and
 * deleted. 0, or -1 after "clefrun: out of memory" on stderr.
 */
int cli_json_emit(cJSON *root);

#endif
