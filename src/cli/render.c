/* Rendering grids of cells: aligned text, CSV (RFC 4180), GitHub Markdown. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

void cli_table_init(cli_table *t, int ncols, const char *const *headers, const bool *right)
{
	memset(t, 0, sizeof(*t));
	t->ncols = ncols < CLI_MAX_COLS ? ncols : CLI_MAX_COLS;
	for (int c = 0; c < t->ncols; c++) {
		t->headers[c] = headers[c];
		t->right[c] = right ? right[c] : false;
	}
}

int cli_table_add(cli_table *t, const char *const *cells)
{
	if (t->nrows == t->cap) {
		int cap = t->cap ? t->cap * 2 : 32;
		char **n = realloc(t->cells, (size_t)cap * (size_t)t->ncols * sizeof(char *));

		if (!n)
			return -1;
		t->cells = n;
		t->cap = cap;
	}
	for (int c = 0; c < t->ncols; c++) {
		/* Cells carry names from files and servers: made safe once
		 * here for every format (safe.c). */
		char *s = cli_safe_dup(cells[c] ? cells[c] : "");

		if (!s) {
			for (int k = 0; k < c; k++)
				free(t->cells[t->nrows * t->ncols + k]);
			return -1;
		}
		t->cells[t->nrows * t->ncols + c] = s;
	}
	t->nrows++;
	return 0;
}

void cli_table_free(cli_table *t)
{
	for (int i = 0; i < t->nrows * t->ncols; i++)
		free(t->cells[i]);
	free(t->cells);
	t->cells = NULL;
	t->nrows = t->cap = 0;
}

/* Display width of UTF-8 text: count code points, not bytes. */
static size_t width(const char *s)
{
	size_t w = 0;

	for (; *s; s++)
		w += ((unsigned char)*s & 0xC0) != 0x80;
	return w;
}

static void pad(FILE *f, size_t n)
{
	while (n--)
		fputc(' ', f);
}

/* SGR colour of a tier word in the TIER column, NULL for none. */
static const char *tier_color(const char *s)
{
	if (strcmp(s, "fast") == 0)
		return "\033[32m"; /* green */
	if (strcmp(s, "ok") == 0)
		return "\033[33m"; /* yellow */
	if (strcmp(s, "slow") == 0 || strcmp(s, "tight") == 0)
		return "\033[35m"; /* magenta */
	if (strcmp(s, "no-fit") == 0)
		return "\033[31m"; /* red */
	return NULL;
}

static void render_text(const cli_table *t, FILE *f)
{
	size_t w[CLI_MAX_COLS];
	bool color = cli_color(f);

	for (int c = 0; c < t->ncols; c++) {
		w[c] = width(t->headers[c]);
		for (int r = 0; r < t->nrows; r++) {
			size_t cw = width(t->cells[r * t->ncols + c]);

			if (cw > w[c])
				w[c] = cw;
		}
	}
	for (int r = -1; r < t->nrows; r++) {
		for (int c = 0; c < t->ncols; c++) {
			const char *s = r < 0 ? t->headers[c] : t->cells[r * t->ncols + c];
			size_t gap = w[c] - width(s);
			bool last = c == t->ncols - 1;
			const char *sgr = color && r >= 0 && strcmp(t->headers[c], "TIER") == 0
						  ? tier_color(s) : NULL;

			if (t->right[c])
				pad(f, gap);
			if (sgr)
				fprintf(f, "%s%s\033[0m", sgr, s);
			else
				fputs(s, f);
			if (!t->right[c] && !last)
				pad(f, gap);
			if (!last)
				fputs("  ", f);
		}
		fputc('\n', f);
	}
}

static void csv_field(const char *s, FILE *f)
{
	if (strpbrk(s, ",\"\r\n")) {
		fputc('"', f);
		for (; *s; s++) {
			if (*s == '"')
				fputc('"', f);
			fputc(*s, f);
		}
		fputc('"', f);
	} else {
		fputs(s, f);
	}
}

static void render_csv(const cli_table *t, FILE *f)
{
	for (int r = -1; r < t->nrows; r++) {
		for (int c = 0; c < t->ncols; c++) {
			if (c)
				fputc(',', f);
			csv_field(r < 0 ? t->headers[c] : t->cells[r * t->ncols + c], f);
		}
		fputs("\r\n", f);
	}
}

static void md_cell(const char *s, FILE *f)
{
	for (; *s; s++) {
		if (*s == '|')
			fputs("\\|", f);
		else if (*s == '\n')
			fputc(' ', f);
		else
			fputc(*s, f);
	}
}

static void render_markdown(const cli_table *t, FILE *f)
{
	for (int r = -2; r < t->nrows; r++) {
		fputc('|', f);
		for (int c = 0; c < t->ncols; c++) {
			fputc(' ', f);
			if (r == -2)
				md_cell(t->headers[c], f);
			else if (r == -1)
				fputs(t->right[c] ? "--:" : "---", f);
			else
				md_cell(t->cells[r * t->ncols + c], f);
			fputs(" |", f);
		}
		fputc('\n', f);
	}
}

void cli_table_render(const cli_table *t, cli_format fmt, FILE *f)
{
	switch (fmt) {
	case FMT_CSV:
		render_csv(t, f);
		break;
	case FMT_MARKDOWN:
		render_markdown(t, f);
		break;
	default:
		render_text(t, f);
		break;
	}
}
