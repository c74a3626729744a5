/*
 * Prices (include/clefrun/prices.h): data/prices.json, or a user's file of
 * the same format, loaded and validated against a catalog.
 */
#include "clefrun/prices.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "json_read.h"
#include "util.h"

/* A prices file is tens of KiB; refuse anything absurd before parsing. */
#define PRICES_FILE_MAX (4u << 20)

/* data/prices.json as built (cmake/embed_text.cmake). */
extern const char cr_embedded_prices[];
extern const size_t cr_embedded_prices_len;

struct cr_prices {
	cr_price *e;
	size_t n;
};

/* Printable ASCII only: prices are shown in tables, CSV and HTML, and a
 * byte outside 0x20-0x7e in a user's file is a mistake or an attack. */
static int printable(jr_ctx *c, const char *key, const char *s)
{
	for (const char *p = s; *p; p++)
		if ((unsigned char)*p < 0x20 || (unsigned char)*p > 0x7e)
			return jr_fail(c, CR_ERR_INVALID, key,
				       "byte 0x%02x at offset %zu: expected printable ASCII", (unsigned char)*p,
				       (size_t)(p - s));
	if (!*s)
		return jr_fail(c, CR_ERR_INVALID, key, "empty string");
	return CR_OK;
}

static bool digits(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (s[i] < '0' || s[i] > '9')
			return false;
	return true;
}

/* YYYY-MM or YYYY-MM-DD, month 01-12, day 01-31, year 1990-2099. */
static int check_date(jr_ctx *c, const char *d)
{
	size_t n = strlen(d);
	int year, month, day = 1;

	if ((n != 7 && n != 10) || !digits(d, 4) || d[4] != '-' || !digits(d + 5, 2) ||
	    (n == 10 && (d[7] != '-' || !digits(d + 8, 2))))
		return jr_fail(c, CR_ERR_INVALID, "date", "expected YYYY-MM or YYYY-MM-DD, got \"%s\"", d);
	year = (d[0] - '0') * 1000 + (d[1] - '0') * 100 + (d[2] - '0') * 10 + (d[3] - '0');
	month = (d[5] - '0') * 10 + (d[6] - '0');
	if (n == 10)
		day = (d[8] - '0') * 10 + (d[9] - '0');
	if (year < 1990 || year > 2099 || month < 1 || month > 12 || day < 1 || day > 31)
		return jr_fail(c, CR_ERR_INVALID, "date", "no such date \"%s\"", d);
	return CR_OK;
}

static int read_entry(jr_ctx *c, const cJSON *o, const cr_catalog *cat, cr_price *p)
{
	static const char *const keys[] = { "rig", "kind", "usd", "usd_per_hour", "provider",
					    "date", "what", "source", NULL };
	char kind[8];
	int rc;

	memset(p, 0, sizeof(*p));
	if (!cJSON_IsObject(o))
		return jr_fail(c, CR_ERR_INVALID, NULL, "expected an object");
	if ((rc = jr_check_keys(c, o, keys)) ||
	    (rc = jr_req_string(c, o, "rig", p->rig, sizeof(p->rig))) ||
	    (rc = jr_req_string(c, o, "kind", kind, sizeof(kind))))
		return rc;
	if (!cr_catalog_find_rig(cat, p->rig))
		return jr_fail(c, CR_ERR_INVALID, "rig", "no rig \"%s\" in the catalog (see 'clefrun rigs')",
			       p->rig);
	if (strcmp(kind, "buy") == 0) {
		p->kind = CR_PRICE_BUY;
		if (cJSON_HasObjectItem(o, "usd_per_hour") || cJSON_HasObjectItem(o, "provider"))
			return jr_fail(c, CR_ERR_INVALID, cJSON_HasObjectItem(o, "provider") ? "provider" : "usd_per_hour",
				       "only a \"rent\" entry has it");
		rc = jr_req_number(c, o, "usd", CR_PRICE_USD_MIN, CR_PRICE_USD_MAX, &p->usd);
	} else if (strcmp(kind, "rent") == 0) {
		p->kind = CR_PRICE_RENT;
		if (cJSON_HasObjectItem(o, "usd"))
			return jr_fail(c, CR_ERR_INVALID, "usd", "a \"rent\" entry gives usd_per_hour");
		if (!(rc = jr_req_number(c, o, "usd_per_hour", CR_PRICE_USD_MIN, CR_PRICE_USD_MAX, &p->usd)) &&
		    !(rc = jr_req_string(c, o, "provider", p->provider, sizeof(p->provider))))
			rc = printable(c, "provider", p->provider);
	} else {
		return jr_fail(c, CR_ERR_INVALID, "kind", "expected \"buy\" or \"rent\"");
	}
	if (rc || (rc = jr_req_string(c, o, "date", p->date, sizeof(p->date))) ||
	    (rc = check_date(c, p->date)) ||
	    (rc = jr_req_string(c, o, "what", p->what, sizeof(p->what))) ||
	    (rc = printable(c, "what", p->what)) ||
	    (rc = jr_req_string(c, o, "source", p->source, sizeof(p->source))) ||
	    (rc = printable(c, "source", p->source)))
		return rc;
	if (strncmp(p->source, "https://", 8) != 0 && strncmp(p->source, "http://", 7) != 0)
		return jr_fail(c, CR_ERR_INVALID, "source", "expected an http(s) URL");
	return CR_OK;
}

/* A second buy entry for a rig, or a second rent of it from one provider. */
static int check_unique(jr_ctx *c, const cr_prices *set, const cr_price *p)
{
	for (size_t j = 0; j < set->n; j++) {
		const cr_price *q = &set->e[j];

		if (q->kind != p->kind || strcmp(q->rig, p->rig) != 0)
			continue;
		if (p->kind == CR_PRICE_BUY)
			return jr_fail(c, CR_ERR_INVALID, "rig", "a second buy price of \"%s\" (also prices[%zu])",
				       p->rig, j);
		if (cr_strcasecmp(q->provider, p->provider) == 0)
			return jr_fail(c, CR_ERR_INVALID, "provider",
				       "a second rent of \"%s\" from %s (also prices[%zu])", p->rig, p->provider, j);
	}
	return CR_OK;
}

int cr_prices_load_buffer(const char *buf, size_t len, const char *name, const cr_catalog *cat,
			  cr_prices **out, cr_error *err)
{
	static const char *const keys[] = { "schema", "currency", "prices", NULL };
	const cJSON *list, *it;
	cJSON *root = NULL;
	cr_prices *set = NULL;
	char currency[8];
	uint64_t schema;
	size_t i = 0;
	jr_ctx c;
	int rc;

	if (!out || !cat || (!buf && len))
		return cr_seterr(err, CR_ERR_INVALID, "cr_prices_load_buffer: NULL argument");
	*out = NULL;
	jr_init(&c, name ? name : "prices", err);
	if (len > PRICES_FILE_MAX)
		return cr_seterr(err, CR_ERR_INVALID, "%s: file too large (%zu bytes, at most %u)", c.file, len,
				 PRICES_FILE_MAX);
	if ((rc = jr_parse(&c, buf, len, &root)))
		return rc;
	if (!cJSON_IsObject(root)) {
		rc = jr_fail(&c, CR_ERR_INVALID, NULL, "expected a JSON object at the top level");
		goto out;
	}
	if ((rc = jr_check_keys(&c, root, keys)) ||
	    (rc = jr_req_uint(&c, root, "schema", 0, UINT32_MAX, &schema)))
		goto out;
	if (schema != CR_PRICES_SCHEMA) {
		rc = jr_fail(&c, CR_ERR_INVALID, "schema", "expected %d, got %llu", CR_PRICES_SCHEMA,
			     (unsigned long long)schema);
		goto out;
	}
	if ((rc = jr_req_string(&c, root, "currency", currency, sizeof(currency))))
		goto out;
	if (strcmp(currency, "USD") != 0) {
		rc = jr_fail(&c, CR_ERR_INVALID, "currency", "expected \"USD\", got \"%s\"", currency);
		goto out;
	}
	if ((rc = jr_req_array(&c, root, "prices", &list)))
		goto out;
	if (cJSON_GetArraySize(list) > CR_PRICES_MAX) {
		rc = jr_fail(&c, CR_ERR_INVALID, "prices", "too many entries (%d, at most %d)",
			     cJSON_GetArraySize(list), CR_PRICES_MAX);
		goto out;
	}
	/* One spare entry: the array exists even for an empty list. */
	if (!(set = calloc(1, sizeof(*set))) ||
	    !(set->e = calloc((size_t)cJSON_GetArraySize(list) + 1, sizeof(*set->e)))) {
		rc = cr_seterr(err, CR_ERR_NOMEM, "out of memory");
		goto out;
	}
	cJSON_ArrayForEach(it, list) {
		size_t saved;

		if (i >= (size_t)cJSON_GetArraySize(list))
			break; /* cannot happen: the list is what was counted */
		saved = jr_push_key(&c, "prices");

		jr_push_index(&c, i);
		rc = read_entry(&c, it, cat, &set->e[i]);
		if (!rc)
			rc = check_unique(&c, set, &set->e[i]);
		jr_pop(&c, saved);
		if (rc)
			goto out;
		set->n = ++i;
	}
	*out = set;
	set = NULL;
out:
	cr_prices_free(set);
	cJSON_Delete(root);
	return rc;
}

int cr_prices_load_file(const char *path, const cr_catalog *cat, cr_prices **out, cr_error *err)
{
	char *buf;
	size_t len;
	int rc;

	if (!path || !out)
		return cr_seterr(err, CR_ERR_INVALID, "cr_prices_load_file: NULL argument");
	*out = NULL;
	if ((rc = cr_file_read(path, PRICES_FILE_MAX, &buf, &len, NULL, err)))
		return rc;
	rc = cr_prices_load_buffer(buf, len, path, cat, out, err);
	free(buf);
	return rc;
}

int cr_prices_load_embedded(const cr_catalog *cat, cr_prices **out, cr_error *err)
{
	return cr_prices_load_buffer(cr_embedded_prices, cr_embedded_prices_len, "data/prices.json (built in)",
				     cat, out, err);
}

void cr_prices_free(cr_prices *p)
{
	if (!p)
		return;
	free(p->e);
	free(p);
}

size_t cr_prices_count(const cr_prices *p)
{
	return p ? p->n : 0;
}

const cr_price *cr_prices_at(const cr_prices *p, size_t i)
{
	return p && i < p->n ? &p->e[i] : NULL;
}

const cr_price *cr_prices_buy(const cr_prices *p, const char *rig_id)
{
	for (size_t i = 0; p && rig_id && i < p->n; i++)
		if (p->e[i].kind == CR_PRICE_BUY && strcmp(p->e[i].rig, rig_id) == 0)
			return &p->e[i];
	return NULL;
}

const cr_price *cr_prices_cheapest_rent(const cr_prices *p, const char *rig_id, size_t *n_offers)
{
	const cr_price *best = NULL;
	size_t n = 0;

	for (size_t i = 0; p && rig_id && i < p->n; i++) {
		const cr_price *e = &p->e[i];

		if (e->kind != CR_PRICE_RENT || strcmp(e->rig, rig_id) != 0)
			continue;
		n++;
		if (!best || e->usd < best->usd)
			best = e;
	}
	if (n_offers)
		*n_offers = n;
	return best;
}

void cr_prices_date_range(const cr_prices *p, char *oldest, char *newest)
{
	oldest[0] = newest[0] = '\0';
	for (size_t i = 0; p && i < p->n; i++) {
		/* YYYY-MM sorts before YYYY-MM-DD of the same month: strcmp order is date order. */
		if (!oldest[0] || strcmp(p->e[i].date, oldest) < 0)
			memcpy(oldest, p->e[i].date, sizeof(p->e[i].date));
		if (!newest[0] || strcmp(p->e[i].date, newest) > 0)
			memcpy(newest, p->e[i].date, sizeof(p->e[i].date));
	}
}
