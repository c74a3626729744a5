/**
 * @file prices.h
 * @brief What rigs cost: launch prices and hourly cloud rents, dated and
 * sourced (data/prices.json, docs/catalog.md "Prices").
 *
 *   { "schema": 1, "currency": "USD",
 *     "prices": [
 *       { "rig": "rtx4090", "kind": "buy", "usd": 1599, "date": "2022-10-12",
 *         "what": "launch MSRP (Founders Edition)", "source": "https://..." },
 *       { "rig": "1xh100", "kind": "rent", "usd_per_hour": 2.99, "provider": "Lambda",
 *         "date": "2025-11", "what": "on-demand", "source": "https://..." } ] }
 *
 * A price is for the whole rig as the catalog describes it (all its devices;
 * a Mac is that configuration). `date` is when the price was stated
 * (YYYY-MM or YYYY-MM-DD): prices age, and every output shows the date
 * beside the figure; nothing here knows today's date or calls a price
 * current. Loading validates every entry; the first problem is reported
 * with the file and the JSON path ("prices.json: prices[3].usd: expected a
 * number in [0.01, 1e+08]"). Rules on top of the field types: the rig is a
 * rig id of the catalog given to the loader, at most one "buy" entry per
 * rig, at most one "rent" entry per rig and provider, printable ASCII in
 * every string, and an http(s) source.
 *
 * The built-in prices are data/prices.json compiled in at build time
 * (cr_prices_load_embedded); a user's file replaces them as a whole
 * (cr_prices_load_file: --prices FILE).
 */
#ifndef CLEFRUN_PRICES_H
#define CLEFRUN_PRICES_H

#include <stdbool.h>
#include <stddef.h>

#include "clefrun/catalog.h"
#include "clefrun/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/** The schema number data/prices.json carries. */
#define CR_PRICES_SCHEMA 1
/** Most entries a prices file may hold. */
#define CR_PRICES_MAX 4096
/** Bounds of a price, US dollars (a rig, or an hour of one). */
#define CR_PRICE_USD_MIN 0.01
#define CR_PRICE_USD_MAX 1e8

/** What a price is for. */
typedef enum cr_price_kind {
	CR_PRICE_BUY = 0, /**< buying the rig: `usd` */
	CR_PRICE_RENT     /**< renting it by the hour: `usd_per_hour` */
} cr_price_kind;

/** One entry of a prices file. */
typedef struct cr_price {
	char rig[CR_ID_MAX];   /**< catalog rig id */
	cr_price_kind kind;
	double usd;            /**< buy: the whole rig; rent: one hour of the whole rig */
	char provider[41];     /**< rent: the cloud ("Lambda"); "" for buy */
	char date[11];         /**< YYYY-MM or YYYY-MM-DD: when the price was stated */
	char what[201];        /**< what the price is (launch MSRP, on-demand ...) and its arithmetic */
	char source[301];      /**< where it is stated (URL) */
} cr_price;

/** A loaded set of prices. Opaque; free with cr_prices_free. */
typedef struct cr_prices cr_prices;

/** The built-in prices (data/prices.json as built), validated against @p cat.
 *  @return 0, CR_ERR_INVALID (the built-in file does not match @p cat, e.g. a
 *  --catalog without those rigs; the message names the entry), CR_ERR_NOMEM. */
int cr_prices_load_embedded(const cr_catalog *cat, cr_prices **out, cr_error *err);

/** A prices file (at most 4 MiB). @return 0, CR_ERR_IO (missing or unreadable,
 *  naming the path), CR_ERR_PARSE (JSON syntax, with the byte offset),
 *  CR_ERR_INVALID (with file and JSON path), CR_ERR_NOMEM. */
int cr_prices_load_file(const char *path, const cr_catalog *cat, cr_prices **out, cr_error *err);

/** The same from a buffer; @p name is used in messages. */
int cr_prices_load_buffer(const char *buf, size_t len, const char *name, const cr_catalog *cat,
			  cr_prices **out, cr_error *err);

void cr_prices_free(cr_prices *p);

/** Entries in file order. */
size_t cr_prices_count(const cr_prices *p);
const cr_price *cr_prices_at(const cr_prices *p, size_t i);

/** The rig's buy price, or NULL. */
const cr_price *cr_prices_buy(const cr_prices *p, const char *rig_id);
/** The rig's cheapest rent (the earlier entry on a tie), or NULL; @p n_offers
 *  (may be NULL) receives how many rent entries the rig has. */
const cr_price *cr_prices_cheapest_rent(const cr_prices *p, const char *rig_id, size_t *n_offers);

/** The earliest and latest `date` of the entries ("" when there are none);
 *  buffers of at least 11 bytes. */
void cr_prices_date_range(const cr_prices *p, char *oldest, char *newest);

#ifdef __cplusplus
}
#endif

#endif
