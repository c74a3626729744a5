/*
 * The CLI's side of text.h: every string that came from a file, a server
 * or the command line goes through here before it is printed, whatever
 * the format (table cells in render.c, headings and messages through
 * cli_safe, JSON documents through cli_puts_json; html.c escapes after
 * cli_safe_dup). Sources and locations (paths, URLs) are shown through
 * cli_shown / cli_url_shown, which also redact a URL's credentials.
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "json_out.h"

/* Enough for the longest string clefrun prints in one piece (a URL or a
 * path of 4096 bytes) with most of it escaped; longer ones are cut at a
 * character boundary. */
#define SAFE_SLOTS 8
#define SAFE_CAP 16384

const char *cli_safe(const char *s)
{
	static char slots[SAFE_SLOTS][SAFE_CAP];
	static unsigned next;
	char *out = slots[next++ % SAFE_SLOTS];

	if (!s)
		return "";
	(void)cr_text_safe(s, strlen(s), CR_TEXT_DISPLAY, out, SAFE_CAP);
	return out;
}

const char *cli_url_shown(const char *s)
{
	static char slots[SAFE_SLOTS][SAFE_CAP];
	static unsigned next;
	char *out = slots[next++ % SAFE_SLOTS];

	if (!s)
		return "";
	(void)cr_url_redact(s, out, SAFE_CAP);
	return out;
}

const char *cli_shown(const char *s)
{
	return cli_safe(cli_url_shown(s));
}

char *cli_safe_dup(const char *s)
{
	size_t n = strlen(s), need = cr_text_safe(s, n, CR_TEXT_DISPLAY, NULL, 0);
	char *out = malloc(need + 1);

	if (out)
		(void)cr_text_safe(s, n, CR_TEXT_DISPLAY, out, need + 1);
	return out;
}

int cli_puts_json(const char *s)
{
	/* One pass when the document comes out as long as it went in, or a
	 * little longer (almost always: escapes are rare); a second, into a
	 * buffer of the size the first one counted, otherwise. */
	size_t n = strlen(s), cap = n + n / 16 + 64, need;
	char *out = malloc(cap);

	if (!out)
		return -1;
	need = cr_text_safe(s, n, CR_TEXT_JSON, out, cap);
	if (need >= cap) {
		char *big = realloc(out, need + 1);

		if (!big) {
			free(out);
			return -1;
		}
		out = big;
		(void)cr_text_safe(s, n, CR_TEXT_JSON, out, need + 1);
	}
	puts(out);
	free(out);
	return 0;
}

int cli_json_emit(cJSON *root)
{
	char *s = cli_json_print(root);
	int rc = s ? cli_puts_json(s) : -1;

	cJSON_Delete(root);
	free(s);
	if (rc)
		fprintf(stderr, "clefrun: out of memory\n");
	return rc ? -1 : 0;
}
