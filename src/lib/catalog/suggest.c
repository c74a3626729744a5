/*
 * "Did you mean": the catalog ids closest to a mistyped name, so that an
 * unknown --model/--rig/--quant names what the user probably meant.
 */
#include "clefrun/catalog.h"

#include <string.h>

#include "suggest_internal.h"
#include "util.h"

#define SUGGEST_MAX_LEN 64

static int lower(int ch)
{
	return (ch >= 'A' && ch <= 'Z') ? ch + 'a' - 'A' : ch;
}

/* Case-insensitive Levenshtein distance over at most SUGGEST_MAX_LEN bytes. */
static size_t distance(const char *a, const char *b)
{
	size_t la = strnlen(a, SUGGEST_MAX_LEN), lb = strnlen(b, SUGGEST_MAX_LEN);
	size_t prev[SUGGEST_MAX_LEN + 1], cur[SUGGEST_MAX_LEN + 1];

	for (size_t j = 0; j <= lb; j++)
		prev[j] = j;
	for (size_t i = 1; i <= la; i++) {
		cur[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t sub = prev[j - 1] + (lower(a[i - 1]) != lower(b[j - 1]));
			size_t del = prev[j] + 1, ins = cur[j - 1] + 1;

			cur[j] = sub < del ? (sub < ins ? sub : ins) : (del < ins ? del : ins);
		}
		memcpy(prev, cur, (lb + 1) * sizeof(size_t));
	}
	return prev[lb];
}

/* A candidate that contains the typed name scores as if it were close. */
size_t cr_suggest_score(const char *typed, const char *id)
{
	size_t d = distance(typed, id);
	size_t lt = strlen(typed);

	if (lt >= 3) {
		for (const char *p = id; *p; p++) {
			size_t k = 0;

			while (k < lt && p[k] && lower(p[k]) == lower(typed[k]))
				k++;
			if (k == lt)
				return d < 2 ? d : 2;
		}
	}
	return d;
}

size_t cr_suggest_limit(const char *name)
{
	/* Beyond this distance a suggestion is noise rather than help; the
	 * distance only reads SUGGEST_MAX_LEN bytes, so neither may this. */
	return strnlen(name, SUGGEST_MAX_LEN) / 2 + 2;
}

static const char *id_at(const cr_catalog *cat, cr_catalog_kind kind, size_t i)
{
	switch (kind) {
	case CR_KIND_MODEL:
		return cr_catalog_model_at(cat, i)->id;
	case CR_KIND_QUANT:
		return cr_catalog_quant_at(cat, i)->id;
	default:
		return cr_catalog_rig_at(cat, i)->id;
	}
}

size_t cr_suggest_rank(const char *name, const char *id, size_t limit, size_t max, size_t *scores,
		       const char **out, size_t got)
{
	size_t s = cr_suggest_score(name, id), pos;

	if (s > limit)
		return got;
	pos = got;
	while (pos > 0 && scores[pos - 1] > s)
		pos--;
	if (pos >= max)
		return got;
	if (got < max)
		got++;
	for (size_t k = got - 1; k > pos; k--) {
		scores[k] = scores[k - 1];
		out[k] = out[k - 1];
	}
	scores[pos] = s;
	out[pos] = id;
	return got;
}

size_t cr_catalog_suggest(const cr_catalog *cat, cr_catalog_kind kind, const char *name,
			  const char **out, size_t max)
{
	size_t n = kind == CR_KIND_MODEL ? cr_catalog_model_count(cat)
		 : kind == CR_KIND_QUANT ? cr_catalog_quant_count(cat)
					 : cr_catalog_rig_count(cat);
	size_t scores[8], got = 0;
	size_t limit = cr_suggest_limit(name);

	if (max > 8)
		max = 8;
	for (size_t i = 0; i < n; i++) {
		got = cr_suggest_rank(name, id_at(cat, kind, i), limit, max, scores, out, got);
	}
	return got;
}
