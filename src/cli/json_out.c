/*
 * cli_json_print: cJSON_Print's output, faster.
 *
 * cJSON_Print formats every number with the C library's "%1.15g" conversion and reads it back
 * with sscanf to see whether 15 digits were enough: about 5,000 instructions
 * a number, 3.7 M of the 9 M that `check --format json` over the 22
 * reference rigs took (callgrind). Most numbers clefrun writes are whole
 * (bytes, tokens, layers); for a whole number below 10^15 "%1.15g" is its
 * decimal digits, which are written here directly. Every other number takes
 * cJSON's path (snprintf "%1.15g", read back with strtod, compared as cJSON
 * compares, else "%1.17g"). The layout is cJSON 1.7's: objects one member
 * a line, indented with tabs, "key":<tab>value; arrays on one line,
 * elements separated by ", "; strings escaped as print_string_ptr does
 * (", \ and the C0 controls; \b \f \n \r \t by name, the others as \u00xx;
 * every other byte as it is). test_json_out compares the two on every kind
 * of value; the CLI golden tests compare whole documents.
 *
 * The CLI never calls setlocale, so snprintf and strtod use the C locale's
 * '.' (cJSON would replace another decimal point with '.').
 */
#include "json_out.h"

#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct jbuf {
	char *p;
	size_t len, cap;
	bool bad; /* out of memory, or an item that cannot be written */
} jbuf;

static void grow(jbuf *b, size_t more)
{
	size_t cap;
	char *np;

	if (b->bad || b->len + more < b->cap)
		return;
	cap = b->cap ? b->cap : 4096;
	while (b->len + more >= cap)
		cap *= 2;
	np = realloc(b->p, cap);
	if (!np) {
		b->bad = true;
		return;
	}
	b->p = np;
	b->cap = cap;
}

static void put(jbuf *b, const char *s, size_t n)
{
	grow(b, n);
	if (b->bad)
		return;
	memcpy(b->p + b->len, s, n);
	b->len += n;
}

static void put_ch(jbuf *b, char c)
{
	put(b, &c, 1);
}

static void put_tabs(jbuf *b, size_t n)
{
	grow(b, n);
	if (b->bad)
		return;
	memset(b->p + b->len, '\t', n);
	b->len += n;
}

/* cJSON's compare_double: equal within a relative DBL_EPSILON. */
static bool close_enough(double a, double b)
{
	double m = fabs(a) > fabs(b) ? fabs(a) : fabs(b);

	return fabs(a - b) <= m * DBL_EPSILON;
}

static void put_number(jbuf *b, double d)
{
	char buf[32];
	int n;

	if (isnan(d) || isinf(d)) {
		put(b, "null", 4);
		return;
	}
	/* A whole number below 10^15: "%1.15g" prints its digits, no exponent
	 * (the exponent is below the precision), and they read back exactly. */
	if (d == floor(d) && fabs(d) < 1e15) {
		uint64_t v = (uint64_t)fabs(d);
		char *e = buf + sizeof(buf), *q = e;

		do {
			*--q = (char)('0' + v % 10);
			v /= 10;
		} while (v);
		if (signbit(d))
			*--q = '-'; /* -0 too, as "%1.15g" writes it */
		put(b, q, (size_t)(e - q));
		return;
	}
	n = snprintf(buf, sizeof(buf), "%1.15g", d);
	if (n > 0 && (size_t)n < sizeof(buf)) {
		char *end = NULL;
		double t = strtod(buf, &end);

		if (end == buf || !close_enough(t, d))
			n = snprintf(buf, sizeof(buf), "%1.17g", d);
	}
	if (n <= 0 || (size_t)n >= sizeof(buf)) {
		b->bad = true;
		return;
	}
	put(b, buf, (size_t)n);
}

static void put_string(jbuf *b, const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");

	put_ch(b, '"');
	while (*p) {
		const unsigned char *run = p;
		char esc[8];

		while (*p >= 32 && *p != '"' && *p != '\\')
			p++;
		if (p > run)
			put(b, (const char *)run, (size_t)(p - run));
		if (!*p)
			break;
		switch (*p) {
		case '"': put(b, "\\\"", 2); break;
		case '\\': put(b, "\\\\", 2); break;
		case '\b': put(b, "\\b", 2); break;
		case '\f': put(b, "\\f", 2); break;
		case '\n': put(b, "\\n", 2); break;
		case '\r': put(b, "\\r", 2); break;
		case '\t': put(b, "\\t", 2); break;
		default:
			(void)snprintf(esc, sizeof(esc), "\\u%04x", (unsigned)*p);
			put(b, esc, 6);
			break;
		}
		p++;
	}
	put_ch(b, '"');
}

static void put_value(jbuf *b, const cJSON *it, size_t depth);

static void put_array(jbuf *b, const cJSON *it, size_t depth)
{
	put_ch(b, '[');
	for (const cJSON *c = it->child; c && !b->bad; c = c->next) {
		put_value(b, c, depth + 1);
		if (c->next)
			put(b, ", ", 2);
	}
	put_ch(b, ']');
}

static void put_object(jbuf *b, const cJSON *it, size_t depth)
{
	put(b, "{\n", 2);
	for (const cJSON *c = it->child; c && !b->bad; c = c->next) {
		put_tabs(b, depth + 1);
		put_string(b, c->string);
		put(b, ":\t", 2);
		put_value(b, c, depth + 1);
		if (c->next)
			put_ch(b, ',');
		put_ch(b, '\n');
	}
	put_tabs(b, depth);
	put_ch(b, '}');
}

/* depth: how many objects and arrays enclose @p it (cJSON's buffer depth). */
static void put_value(jbuf *b, const cJSON *it, size_t depth)
{
	switch (it->type & 0xFF) {
	case cJSON_NULL:
		put(b, "null", 4);
		break;
	case cJSON_False:
		put(b, "false", 5);
		break;
	case cJSON_True:
		put(b, "true", 4);
		break;
	case cJSON_Number:
		put_number(b, it->valuedouble);
		break;
	case cJSON_Raw:
		if (!it->valuestring)
			b->bad = true;
		else
			put(b, it->valuestring, strlen(it->valuestring));
		break;
	case cJSON_String:
		put_string(b, it->valuestring);
		break;
	case cJSON_Array:
		put_array(b, it, depth);
		break;
	case cJSON_Object:
		put_object(b, it, depth);
		break;
	default:
		b->bad = true;
		break;
	}
}

char *cli_json_print(const cJSON *root)
{
	jbuf b = { NULL, 0, 0, false };

	if (!root)
		return NULL;
	put_value(&b, root, 0);
	put_ch(&b, '\0');
	if (b.bad) {
		free(b.p);
		return NULL;
	}
	return b.p;
}
