/*
 * The HTML page of clefrun report (report_html.c). Only cmd_report.c
 * includes this: clefrun chart needs the numbers (report.h), not the page.
 */
#ifndef CLEFRUN_CLI_REPORT_HTML_H
#define CLEFRUN_CLI_REPORT_HTML_H

#include <stddef.h>

#include "report.h"

/* The page's style sheet: the bytes of src/cli/report.css, NUL-terminated,
 * generated at build time by cmake/embed_text.cmake (report_css.c). */
extern const char cli_report_css[];
extern const size_t cli_report_css_len;

/* Append the whole page for d; c gives the command line in the footer.
 * An allocation failure shows as b->failed. */
void rpt_page(cli_buf *b, const rpt_cfg *c, const rpt_data *d);

#endif
