/*
 * Hugging Face names: hf: sources, URLs, the tree listing, quant names.
 * The listing is untrusted JSON like every other input: it is parsed with
 * cJSON_ParseWithLengthOpts (no global error pointer) and every field is
 * checked before use.
 */
#include "clefrun/hf.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "clefrun/gguf.h"
#include "json_read.h"
#include "util.h"

#define NAME_PART_MAX 96

static bool name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '.' || c == '_' || c == '-';
}

/* Length of an OWNER or REPO name at s, 0 when invalid. */
static size_t name_len(const char *s)
{
	size_t n = 0;

	if (s[0] == '.' || s[0] == '-')
		return 0;
	while (name_char(s[n]))
		n++;
	return n <= NAME_PART_MAX ? n : 0;
}

static bool ends_with_gguf(const char *s, size_t n)
{
	return n > 5 && cr_strcasecmp(s + n - 5, ".gguf") == 0;
}

/* A name echoed in a message is cut after 64 bytes: "..." when it was. */
static const char *clip(const char *s)
{
	return strlen(s) > 64 ? "..." : "";
}

int cr_hf_parse(const char *spec, cr_hf_ref *out, cr_error *err)
{
	const char *s, *p;
	size_t on, rn;

	memset(out, 0, sizeof(*out));
	if (strncmp(spec, CR_HF_PREFIX, 3) != 0)
		return cr_seterr(err, CR_ERR_PARSE, "%.64s%s: expected hf:OWNER/REPO", spec, clip(spec));
	s = spec + 3;
	if (!(on = name_len(s)) || s[on] != '/')
		return cr_seterr(err, CR_ERR_PARSE,
				 "%.64s%s: expected hf:OWNER/REPO[/PATH.gguf | :QUANT] (OWNER: letters, digits, . _ -)",
				 spec, clip(spec));
	if (!(rn = name_len(s + on + 1)))
		return cr_seterr(err, CR_ERR_PARSE,
				 "%.64s%s: expected hf:OWNER/REPO[/PATH.gguf | :QUANT] (REPO: letters, digits, . _ -)",
				 spec, clip(spec));
	memcpy(out->repo, s, on + 1 + rn);
	out->repo[on + 1 + rn] = '\0';
	p = s + on + 1 + rn;
	if (*p == '\0') {
		out->kind = CR_HF_REPO;
		return CR_OK;
	}
	if (*p == ':') {
		size_t q = 0;

		p++;
		while ((p[q] >= 'a' && p[q] <= 'z') || (p[q] >= 'A' && p[q] <= 'Z') ||
		       (p[q] >= '0' && p[q] <= '9') || p[q] == '_')
			q++;
		if (!q || p[q] || q >= sizeof(out->quant))
			return cr_seterr(err, CR_ERR_PARSE, "%s: expected a quant name after ':' (Q4_K_M)", spec);
		memcpy(out->quant, p, q + 1);
		out->kind = CR_HF_QUANT;
		return CR_OK;
	}
	if (*p != '/')
		return cr_seterr(err, CR_ERR_PARSE, "%s: unexpected '%c' after the repository name", spec, *p);
	p++;
	{
		size_t n = strlen(p), seg = 0;

		if (!ends_with_gguf(p, n))
			return cr_seterr(err, CR_ERR_PARSE, "%s: the path must name a .gguf file", spec);
		if (n >= sizeof(out->path))
			return cr_seterr(err, CR_ERR_PARSE, "%s: path longer than %d bytes", spec,
					 CR_HF_PATH_MAX - 1);
		for (size_t i = 0; i <= n; i++) {
			unsigned char c = (unsigned char)p[i];

			if (c == '/' || c == '\0') {
				if (seg == 0 || (seg == 2 && p[i - 1] == '.' && p[i - 2] == '.') ||
				    (seg == 1 && p[i - 1] == '.'))
					return cr_seterr(err, CR_ERR_PARSE, "%s: empty, '.' or '..' path segment",
							 spec);
				seg = 0;
			} else if (c < 0x20 || c == 0x7f || c == '?' || c == '#' || c == '\\') {
				return cr_seterr(err, CR_ERR_PARSE, "%s: unexpected byte 0x%02x in the path", spec, c);
			} else {
				seg++;
			}
		}
		memcpy(out->path, p, n + 1);
	}
	out->kind = CR_HF_FILE;
	return CR_OK;
}

/* Append s percent-encoded (RFC 3986 unreserved kept, '/' kept when asked). */
static bool put_enc(char *buf, size_t cap, size_t *len, const char *s, bool keep_slash)
{
	static const char hex[] = "0123456789ABCDEF";

	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		bool plain = name_char((char)c) || c == '~' || (keep_slash && c == '/');

		if (*len + (plain ? 1 : 3) >= cap)
			return false;
		if (plain) {
			buf[(*len)++] = (char)c;
		} else {
			buf[(*len)++] = '%';
			buf[(*len)++] = hex[c >> 4];
			buf[(*len)++] = hex[c & 15];
		}
	}
	buf[*len] = '\0';
	return true;
}

static bool put_raw(char *buf, size_t cap, size_t *len, const char *s)
{
	size_t n = strlen(s);

	if (*len + n >= cap)
		return false;
	memcpy(buf + *len, s, n + 1);
	*len += n;
	return true;
}

static int start_url(const char *endpoint, char *buf, size_t cap, size_t *len, cr_error *err)
{
	size_t n;

	if (strncmp(endpoint, "http://", 7) != 0 && strncmp(endpoint, "https://", 8) != 0)
		return cr_seterr(err, CR_ERR_INVALID, "HF_ENDPOINT %s: expected an http:// or https:// URL",
				 endpoint);
	n = strlen(endpoint);
	while (n > 8 && endpoint[n - 1] == '/')
		n--;
	if (n >= cap)
		return cr_seterr(err, CR_ERR_RANGE, "%s: URL too long", endpoint);
	memcpy(buf, endpoint, n);
	buf[n] = '\0';
	*len = n;
	return CR_OK;
}

int cr_hf_file_url(const char *endpoint, const char *repo, const char *revision,
		   const char *path, char *buf, size_t cap, cr_error *err)
{
	size_t len = 0;
	int rc = start_url(endpoint, buf, cap, &len, err);

	if (rc)
		return rc;
	if (!put_raw(buf, cap, &len, "/") || !put_enc(buf, cap, &len, repo, true) ||
	    !put_raw(buf, cap, &len, "/resolve/") ||
	    !put_enc(buf, cap, &len, revision ? revision : CR_HF_DEFAULT_REVISION, false) ||
	    !put_raw(buf, cap, &len, "/") || !put_enc(buf, cap, &len, path, true))
		return cr_seterr(err, CR_ERR_RANGE, "hf:%s/%s: URL too long", repo, path);
	return CR_OK;
}

int cr_hf_tree_url(const char *endpoint, const char *repo, const char *revision, char *buf,
		   size_t cap, cr_error *err)
{
	size_t len = 0;
	int rc = start_url(endpoint, buf, cap, &len, err);

	if (rc)
		return rc;
	if (!put_raw(buf, cap, &len, "/api/models/") || !put_enc(buf, cap, &len, repo, true) ||
	    !put_raw(buf, cap, &len, "/tree/") ||
	    !put_enc(buf, cap, &len, revision ? revision : CR_HF_DEFAULT_REVISION, false) ||
	    !put_raw(buf, cap, &len, "?recursive=true"))
		return cr_seterr(err, CR_ERR_RANGE, "hf:%s: URL too long", repo);
	return CR_OK;
}

/* ---- quant names ------------------------------------------------------------- */

static char up(char c)
{
	return c >= 'a' && c <= 'z' ? (char)(c - 'a' + 'A') : c;
}

static bool alnum(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

/* Length of a quant token at s (0 if none); it must end at a separator. */
static size_t quant_at(const char *s)
{
	static const char *const plain[] = { "BF16", "F16", "F32", "MXFP4_MOE", "MXFP4", NULL };
	size_t i = 0;

	for (const char *const *p = plain; *p; p++) {
		size_t n = strlen(*p), k;

		for (k = 0; k < n && up(s[k]) == (*p)[k]; k++)
			;
		if (k == n && !alnum(s[n]) && s[n] != '_')
			return n;
	}
	if (up(s[0]) == 'T' && up(s[1]) == 'Q' && s[2] >= '0' && s[2] <= '9' && s[3] == '_' &&
	    s[4] >= '0' && s[4] <= '9' && !alnum(s[5]))
		return 5;
	if (up(s[i]) == 'I')
		i++;
	if (up(s[i]) != 'Q' || s[i + 1] < '0' || s[i + 1] > '9')
		return 0;
	i += 2;
	while (s[i] == '_' && alnum(s[i + 1])) {
		i++;
		while (alnum(s[i]))
			i++;
	}
	return alnum(s[i]) ? 0 : i;
}

bool cr_hf_guess_quant(const char *file_name, char *buf, size_t cap)
{
	const char *base = strrchr(file_name, '/');
	size_t best = 0, best_len = 0, n;
	size_t plen;
	uint32_t no, count;

	if (cap)
		buf[0] = '\0';
	base = base ? base + 1 : file_name;
	n = strlen(base);
	if (cr_gguf_split_parse(base, &plen, &no, &count))
		n = plen;
	else if (ends_with_gguf(base, n))
		n -= 5;
	for (size_t i = 0; i < n; i++) {
		if (i && base[i - 1] != '-' && base[i - 1] != '.' && base[i - 1] != '_')
			continue;
		{
			size_t q = quant_at(base + i);

			if (q && i + q <= n) {
				best = i;
				best_len = q;
			}
		}
	}
	if (!best_len || best_len >= cap)
		return false;
	for (size_t i = 0; i < best_len; i++)
		buf[i] = up(base[best + i]);
	buf[best_len] = '\0';
	return true;
}

int cr_hf_pick_quant(const cr_hf_entry *e, size_t n, const char *quant, size_t *index)
{
	for (size_t i = 0; i < n; i++) {
		if (!e[i].projector && e[i].quant[0] && cr_strcasecmp(e[i].quant, quant) == 0) {
			*index = i;
			return CR_OK;
		}
	}
	return CR_ERR_NOTFOUND;
}

/* ---- the tree listing ------------------------------------------------------------ */

static bool safe_path(const char *p)
{
	size_t n = strlen(p);

	if (!n || n >= CR_HF_PATH_MAX || p[0] == '/' || strstr(p, ".."))
		return false;
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)p[i] < 0x20 || p[i] == 0x7f)
			return false;
	return true;
}

typedef struct path_at {
	const char *path;
	size_t pos;
} path_at;

static int path_at_cmp(const void *a, const void *b)
{
	const path_at *x = a, *y = b;
	int c = strcmp(x->path, y->path);

	return c ? c : (x->pos > y->pos) - (x->pos < y->pos);
}

/* Which items of the listing repeat the path of an earlier one: a listing
 * that names a file twice (or a split part twice) must not list it twice
 * or add its size twice. Sorted, so a large listing stays O(n log n).
 * *dup_out: one flag per item, NULL for an empty listing. */
static int find_duplicates(const cJSON *root, bool **dup_out)
{
	size_t n = (size_t)cJSON_GetArraySize(root), k = 0;
	path_at *v;
	bool *dup;
	const cJSON *it;

	*dup_out = NULL;
	if (!n)
		return CR_OK;
	v = malloc(n * sizeof(*v));
	dup = calloc(n, sizeof(*dup));
	if (!v || !dup) {
		free(v);
		free(dup);
		return CR_ERR_NOMEM;
	}
	cJSON_ArrayForEach(it, root) {
		const cJSON *path = cJSON_GetObjectItemCaseSensitive(it, "path");
		const cJSON *type = cJSON_GetObjectItemCaseSensitive(it, "type");

		if (k == n)
			break;
		/* Files only: a directory of the same name hides nothing. */
		v[k].path = cJSON_IsObject(it) && cJSON_IsString(path) && cJSON_IsString(type) &&
				    strcmp(type->valuestring, "file") == 0
			    ? path->valuestring
			    : "";
		v[k].pos = k;
		k++;
	}
	qsort(v, k, sizeof(*v), path_at_cmp);
	for (size_t i = 1; i < k; i++)
		if (v[i].path[0] && strcmp(v[i].path, v[i - 1].path) == 0)
			dup[v[i].pos] = true;
	free(v);
	*dup_out = dup;
	return CR_OK;
}

int cr_hf_parse_tree(const char *json, size_t len, const char *name, cr_hf_entry **out,
		     size_t *n_out, cr_error *err)
{
	bool *dup = NULL;
	const char *end = NULL;
	cJSON *root, *it;
	cr_hf_entry *e = NULL;
	size_t n = 0, cap = 0, idx = 0;
	int rc = CR_OK;

	*out = NULL;
	*n_out = 0;
	name = name ? name : "tree";
	root = cJSON_ParseWithLengthOpts(json, len, &end, false);
	if (!root) {
		size_t at = end && end >= json && end <= json + len ? (size_t)(end - json) : 0;

		if (jr_too_deep(json, at))
			return cr_seterr(err, CR_ERR_PARSE, "%s: JSON nested deeper than %d levels at byte %zu",
					 name, CJSON_NESTING_LIMIT, at);
		return cr_seterr(err, CR_ERR_PARSE, "%s: invalid JSON at byte %zu", name, at);
	}
	if (!cJSON_IsArray(root)) {
		cJSON_Delete(root);
		return cr_seterr(err, CR_ERR_PARSE, "%s: expected a JSON array of files", name);
	}
	if (find_duplicates(root, &dup)) {
		cJSON_Delete(root);
		return cr_seterr(err, CR_ERR_NOMEM, "%s: out of memory", name);
	}
	/* Two passes: files and first parts, then the later parts of splits,
	 * whatever order the listing has. A repeated path counts once. */
	for (int pass = 0; pass < 2 && rc == CR_OK; pass++) {
		size_t pos = 0;

		idx = 0;
		cJSON_ArrayForEach(it, root) {
			const cJSON *type = cJSON_GetObjectItemCaseSensitive(it, "type");
			const cJSON *path = cJSON_GetObjectItemCaseSensitive(it, "path");
			const cJSON *size = cJSON_GetObjectItemCaseSensitive(it, "size");
			const cJSON *lfs = cJSON_GetObjectItemCaseSensitive(it, "lfs");
			const cJSON *lsize = lfs ? cJSON_GetObjectItemCaseSensitive(lfs, "size") : NULL;
			double bytes;
			size_t plen;
			uint32_t no = 1, count = 1;

			if (!cJSON_IsObject(it)) {
				rc = cr_seterr(err, CR_ERR_PARSE, "%s: [%zu]: expected an object", name, idx);
				break;
			}
			if (!cJSON_IsString(path)) {
				rc = cr_seterr(err, CR_ERR_PARSE, "%s: [%zu].path: expected a string", name, idx);
				break;
			}
			idx++;
			if (dup && dup[pos++])
				continue;
			if (!cJSON_IsString(type) || strcmp(type->valuestring, "file") != 0 ||
			    !ends_with_gguf(path->valuestring, strlen(path->valuestring)) ||
			    !safe_path(path->valuestring))
				continue;
			bytes = lsize && cJSON_IsNumber(lsize) ? lsize->valuedouble
				: size && cJSON_IsNumber(size) ? size->valuedouble
							       : -1;
			if (!(bytes >= 0 && bytes < 1.8e19)) {
				rc = cr_seterr(err, CR_ERR_PARSE, "%s: %s: expected a file size", name, path->valuestring);
				break;
			}
			if (cr_gguf_split_parse(path->valuestring, &plen, &no, &count) && no != 1) {
				/* A later part: add it to its part 1. */
				for (size_t k = 0; pass == 1 && k < n; k++) {
					size_t kp;
					uint32_t kno, kcount;

					if (cr_gguf_split_parse(e[k].path, &kp, &kno, &kcount) && kp == plen &&
					    kcount == count && strncmp(e[k].path, path->valuestring, plen) == 0) {
						e[k].size += (uint64_t)bytes;
						e[k].parts++;
						break;
					}
				}
				continue;
			}
			if (pass == 1)
				continue;
			if (n == cap) {
				cr_hf_entry *ne = realloc(e, (cap ? cap * 2 : 16) * sizeof(*e));

				if (!ne) {
					rc = cr_seterr(err, CR_ERR_NOMEM, "%s: out of memory", name);
					break;
				}
				e = ne;
				cap = cap ? cap * 2 : 16;
			}
			memset(&e[n], 0, sizeof(e[n]));
			cr_strlcpy(e[n].path, path->valuestring, sizeof(e[n].path));
			e[n].size = (uint64_t)bytes;
			e[n].parts = 1;
			e[n].split_count = count;
			cr_hf_guess_quant(e[n].path, e[n].quant, sizeof(e[n].quant));
			{
				const char *base = strrchr(e[n].path, '/');

				base = base ? base + 1 : e[n].path;
				e[n].projector = strncmp(base, "mmproj", 6) == 0;
			}
			n++;
		}
	}
	cJSON_Delete(root);
	free(dup);
	if (rc) {
		free(e);
		return rc;
	}
	*out = e;
	*n_out = n;
	return CR_OK;
}

int cr_hf_read_token_file(const char *path, char *buf, size_t cap, cr_error *err)
{
	FILE *f = fopen(path, "r");
	char line[4096];
	size_t n;

	if (!f) {
		if (errno == ENOENT)
			return cr_seterr(err, CR_ERR_NOTFOUND, "%s: no such file", path);
		return cr_seterr(err, CR_ERR_IO, "%s: %s", path, strerror(errno));
	}
	if (!fgets(line, sizeof(line), f))
		line[0] = '\0';
	fclose(f);
	n = strlen(line);
	while (n && (line[n - 1] == '\n' || line[n - 1] == '\r' || line[n - 1] == ' ' || line[n - 1] == '\t'))
		line[--n] = '\0';
	{
		size_t s = 0;

		while (line[s] == ' ' || line[s] == '\t')
			s++;
		if (!line[s])
			return cr_seterr(err, CR_ERR_INVALID, "%s: empty token file", path);
		for (size_t i = s; i < n; i++)
			if ((unsigned char)line[i] <= 0x20 || line[i] == 0x7f)
				return cr_seterr(err, CR_ERR_INVALID, "%s: the token has unexpected bytes", path);
		if (n - s >= cap)
			return cr_seterr(err, CR_ERR_INVALID, "%s: token longer than %zu bytes", path, cap - 1);
		memcpy(buf, line + s, n - s + 1);
	}
	return CR_OK;
}

int cr_hf_find_token(const cr_hf_token_sources *src, char *buf, size_t cap, cr_error *err)
{
	char path[1024];
	int n;

	if (cap)
		buf[0] = '\0';
	if (src->token && *src->token && strlen(src->token) < cap) {
		memcpy(buf, src->token, strlen(src->token) + 1);
		return CR_OK;
	}
	if (src->token_path && *src->token_path)
		n = snprintf(path, sizeof(path), "%s", src->token_path);
	else if (src->hf_home && *src->hf_home)
		n = snprintf(path, sizeof(path), "%s/token", src->hf_home);
	else if (src->home && *src->home)
		n = snprintf(path, sizeof(path), "%s/.cache/huggingface/token", src->home);
	else
		return cr_seterr(err, CR_ERR_NOTFOUND, "no Hugging Face token");
	/* A path cut by the buffer names another file: read none. */
	if (n < 0 || (size_t)n >= sizeof(path))
		return cr_seterr(err, CR_ERR_NOTFOUND, "Hugging Face token file: path too long");
	return cr_hf_read_token_file(path, buf, cap, err);
}

bool cr_hf_url_on_endpoint(const char *endpoint, const char *url)
{
	size_t n = strlen(endpoint);

	while (n && endpoint[n - 1] == '/')
		n--;
	return strncmp(url, endpoint, n) == 0 && url[n] == '/';
}

const char *cr_hf_token_for_url(const char *endpoint, const char *token, const char *url)
{
	if (!token || !*token || !endpoint || !url)
		return NULL;
	return cr_hf_url_on_endpoint(endpoint, url) ? token : NULL;
}
