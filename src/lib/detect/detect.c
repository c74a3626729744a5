/*
 * This machine as a rig: files under a root directory plus the output of
 * nvidia-smi / sysctl handed in by the caller (include/clefrun/detect.h).
 * Nothing here runs a program, so fixture trees test all of it.
 */
#include "clefrun/detect.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog_internal.h"
#include "util.h"

#define GIB 1073741824.0
#define SMALL_FILE_MAX 65536
#define MAX_TOKENS 16
#define TOKEN_MAX 24
/* A reported memory size within this share of a catalog device's matches. */
#define MATCH_MEMORY_TOLERANCE 0.10
/* amdgpu reports the carve-out of integrated GPUs (APUs) as VRAM, often
 * 512 MiB; below this it is not a GPU worth offloading to. */
#define AMD_MIN_VRAM_BYTES (1ull << 30)
#define MAX_DRM_CARDS 32

/* ---- small helpers ----------------------------------------------------- */

static void add_finding(cr_detect_result *r, const char *item, bool guess, const char *source,
			const char *fmt, ...) __attribute__((format(printf, 5, 6)));

static void add_finding(cr_detect_result *r, const char *item, bool guess, const char *source,
			const char *fmt, ...)
{
	cr_detect_finding *f;
	va_list ap;

	if (r->n_findings >= CR_DETECT_MAX_FINDINGS)
		return;
	f = &r->findings[r->n_findings++];
	cr_strlcpy(f->item, item, sizeof(f->item));
	cr_strlcpy(f->source, source ? source : "", sizeof(f->source));
	f->guess = guess;
	va_start(ap, fmt);
	vsnprintf(f->value, sizeof(f->value), fmt, ap);
	va_end(ap);
}

/* ROOT + rel, with rel starting with '/'. */
static bool root_path(const char *root, const char *rel, char *buf, size_t cap)
{
	size_t rl = root ? strlen(root) : 0;
	int n;

	while (rl > 0 && root[rl - 1] == '/')
		rl--;
	n = snprintf(buf, cap, "%.*s%s", (int)rl, root ? root : "", rel);
	return n > 0 && (size_t)n < cap;
}

/* Read a small text file into buf (NUL-terminated); false if unreadable. */
static bool read_small(const char *path, char *buf, size_t cap)
{
	FILE *f = fopen(path, "rb");
	size_t n;

	if (!f)
		return false;
	n = fread(buf, 1, cap - 1, f);
	buf[n] = '\0';
	fclose(f);
	return true;
}

static void trim(char *s)
{
	size_t n = strlen(s), i = 0;

	while (n > 0 && (s[n - 1] == '\n' || s[n - 1] == '\r' || s[n - 1] == ' ' || s[n - 1] == '\t'))
		s[--n] = '\0';
	while (s[i] == ' ' || s[i] == '\t')
		i++;
	if (i)
		memmove(s, s + i, n - i + 1);
}

/* Strict unsigned decimal (after trimming), false on anything else. */
static bool parse_u64(const char *s, unsigned long long *out)
{
	unsigned long long v = 0;

	while (*s == ' ' || *s == '\t')
		s++;
	if (*s < '0' || *s > '9')
		return false;
	for (; *s >= '0' && *s <= '9'; s++) {
		if (v > (~0ull - 9) / 10)
			return false;
		v = v * 10 + (unsigned long long)(*s - '0');
	}
	while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
		s++;
	if (*s)
		return false;
	*out = v;
	return true;
}

/* "0-3,5,7-9" -> 8. 0 on a malformed list. */
static unsigned count_cpu_list(const char *s)
{
	unsigned n = 0;

	while (*s && *s != '\n') {
		char *end;
		unsigned long a, b;

		if (*s < '0' || *s > '9')
			return 0;
		a = strtoul(s, &end, 10);
		b = a;
		s = end;
		if (*s == '-') {
			s++;
			if (*s < '0' || *s > '9')
				return 0;
			b = strtoul(s, &end, 10);
			s = end;
		}
		if (b < a || b - a > 65536)
			return 0;
		n += (unsigned)(b - a + 1);
		if (*s == ',')
			s++;
		else if (*s && *s != '\n')
			return 0;
	}
	return n;
}

/* Round down to 0.01 GiB: detected sizes are exact, but a figure like
 * 62.73849105834961 helps nobody, and rounding down never overstates. */
static double gib_2dp(double bytes)
{
	return floor(bytes / GIB * 100.0) / 100.0;
}

/* ---- name matching --------------------------------------------------------- */

typedef struct tokens {
	char t[MAX_TOKENS][TOKEN_MAX];
	unsigned n;
	char form[8]; /* "SXM", "PCIE", "NVL" or "" */
} tokens;

static bool ignorable(const char *t)
{
	static const char *const words[] = { "NVIDIA", "GEFORCE", "TESLA", "QUADRO", "AMD", "ATI",
		"RADEON", "INSTINCT", "APPLE", "INTEL", "GENERATION", "EDITION", "WORKSTATION",
		"GRAPHICS", "GPU", "R", "TM", NULL };

	for (const char *const *w = words; *w; w++)
		if (strcmp(t, *w) == 0)
			return true;
	/* HBM2e/HBM3: the memory technology, not the model. */
	if (strncmp(t, "HBM", 3) == 0)
		return true;
	return false;
}

/* "80GB", "16G": a memory size. */
static bool memory_token(const char *t)
{
	size_t i = 0;

	while (t[i] >= '0' && t[i] <= '9')
		i++;
	return i > 0 && (strcmp(t + i, "GB") == 0 || strcmp(t + i, "G") == 0);
}

/* Split a name into upper-case words; parenthesised parts of catalog names
 * ("M3 Max (40-core GPU)") are qualifiers and skipped when skip_parens. */
static void tokenize(const char *name, bool skip_parens, tokens *tk)
{
	char cur[TOKEN_MAX];
	size_t len = 0;
	int depth = 0;

	memset(tk, 0, sizeof(*tk));
	for (const char *p = name;; p++) {
		char ch = *p;
		bool word = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
			    (ch >= '0' && ch <= '9') || ch == '+';

		if (word && !(skip_parens && depth > 0)) {
			if (len + 1 < sizeof(cur))
				cur[len++] = (ch >= 'a' && ch <= 'z') ? (char)(ch - 'a' + 'A') : ch;
			continue;
		}
		if (len) {
			cur[len] = '\0';
			len = 0;
			/* SXM4, SXM5: the form factor, whatever the generation. */
			if (strncmp(cur, "SXM", 3) == 0)
				cr_strlcpy(tk->form, "SXM", sizeof(tk->form));
			else if (strcmp(cur, "PCIE") == 0 || strcmp(cur, "NVL") == 0)
				cr_strlcpy(tk->form, cur, sizeof(tk->form));
			else if (!ignorable(cur) && !memory_token(cur) && tk->n < MAX_TOKENS)
				cr_strlcpy(tk->t[tk->n++], cur, TOKEN_MAX);
		}
		if (ch == '(')
			depth++;
		else if (ch == ')' && depth > 0)
			depth--;
		if (!ch)
			break;
	}
}

static bool has_token(const tokens *tk, const char *t)
{
	for (unsigned i = 0; i < tk->n; i++)
		if (strcmp(tk->t[i], t) == 0)
			return true;
	return false;
}

/* Same core words (order aside). */
static bool same_words(const tokens *a, const tokens *b)
{
	for (unsigned i = 0; i < a->n; i++)
		if (!has_token(b, a->t[i]))
			return false;
	for (unsigned i = 0; i < b->n; i++)
		if (!has_token(a, b->t[i]))
			return false;
	return a->n > 0;
}

const cr_device *cr_detect_match_device(const cr_catalog *cat, const char *name, double memory_gib)
{
	const cr_device *best = NULL;
	double best_diff = 0;
	int best_form = -1;
	tokens want;

	if (!cat || !name)
		return NULL;
	tokenize(name, false, &want);
	if (!want.n)
		return NULL;
	for (size_t i = 0; i < cr_catalog_rig_count(cat); i++) {
		const cr_rig *r = cr_catalog_rig_at(cat, i);

		/* A device that does not exist cannot be the one in this box. */
		if (r->unreleased)
			continue;
		for (unsigned k = 0; k < r->n_devices; k++) {
			const cr_device *d = &r->devices[k];
			double diff = 0;
			int form;
			tokens have;

			if (d->kind == CR_MEM_SYSTEM)
				continue;
			tokenize(d->name, true, &have);
			if (!same_words(&want, &have))
				continue;
			if (want.form[0] && have.form[0] && strcmp(want.form, have.form) != 0)
				continue;
			if (memory_gib > 0) {
				diff = fabs(memory_gib - d->memory_gib) / d->memory_gib;
				if (diff > MATCH_MEMORY_TOLERANCE)
					continue;
			}
			form = want.form[0] && strcmp(want.form, have.form) == 0;
			if (!best || form > best_form || (form == best_form && diff < best_diff)) {
				best = d;
				best_diff = diff;
				best_form = form;
			}
		}
	}
	return best;
}

/* ---- readers ------------------------------------------------------------------ */

static void read_cpu(const cr_detect_opts *o, cr_detect_result *r, char *buf)
{
	char path[1024];

	if (root_path(o->root, "/sys/devices/system/cpu/online", path, sizeof(path)) &&
	    read_small(path, buf, SMALL_FILE_MAX)) {
		trim(buf);
		r->cpu_logical = count_cpu_list(buf);
		if (r->cpu_logical)
			add_finding(r, "cpu", false, path, "%u logical CPUs online (\"%s\")",
				    r->cpu_logical, buf);
		else
			add_finding(r, "cpu", false, path, "unreadable CPU list \"%.64s\"", buf);
	} else {
		add_finding(r, "cpu", false, path, "CPU count unknown (file not readable)");
	}
	if (root_path(o->root, "/proc/cpuinfo", path, sizeof(path)) &&
	    read_small(path, buf, SMALL_FILE_MAX)) {
		for (char *line = buf; line && *line;) {
			char *nl = strchr(line, '\n');

			if (nl)
				*nl = '\0';
			if (strncmp(line, "model name", 10) == 0 && strchr(line, ':')) {
				char *v = strchr(line, ':') + 1;

				trim(v);
				cr_strlcpy(r->cpu_model, v, sizeof(r->cpu_model));
				add_finding(r, "cpu_model", false, path, "%s", r->cpu_model);
				break;
			}
			line = nl ? nl + 1 : NULL;
		}
	}
}

/* Size like "32768K" / "1M" -> bytes. */
static uint64_t parse_cache_size(const char *s)
{
	char *end;
	unsigned long long v = strtoull(s, &end, 10);

	if (end == s)
		return 0;
	if (*end == 'K')
		v <<= 10;
	else if (*end == 'M')
		v <<= 20;
	return v;
}

/* Last-level cache of cpu0 times the number of such caches (one per group
 * of CPUs sharing it, e.g. one per CCD on EPYC). */
static void read_llc(const cr_detect_opts *o, cr_detect_result *r)
{
	char path[1024], rel[96], buf[256];
	unsigned best_level = 0, sharing = 0;
	uint64_t size = 0;

	for (int i = 0; i < 10; i++) {
		unsigned long long level;

		snprintf(rel, sizeof(rel), "/sys/devices/system/cpu/cpu0/cache/index%d/level", i);
		if (!root_path(o->root, rel, path, sizeof(path)) || !read_small(path, buf, sizeof(buf)))
			continue;
		if (!parse_u64(buf, &level) || level < best_level)
			continue;
		snprintf(rel, sizeof(rel), "/sys/devices/system/cpu/cpu0/cache/index%d/size", i);
		if (!root_path(o->root, rel, path, sizeof(path)) || !read_small(path, buf, sizeof(buf)))
			continue;
		size = parse_cache_size(buf);
		best_level = (unsigned)level;
		snprintf(rel, sizeof(rel),
			 "/sys/devices/system/cpu/cpu0/cache/index%d/shared_cpu_list", i);
		sharing = 0;
		if (root_path(o->root, rel, path, sizeof(path)) && read_small(path, buf, sizeof(buf))) {
			trim(buf);
			sharing = count_cpu_list(buf);
		}
	}
	if (!size)
		return;
	if (sharing && r->cpu_logical > sharing)
		r->llc_bytes = size * ((r->cpu_logical + sharing - 1) / sharing);
	else
		r->llc_bytes = size;
	root_path(o->root, "/sys/devices/system/cpu/cpu0/cache/", path, sizeof(path));
	add_finding(r, "llc", false, path, "L%u cache %.1f MiB in all (%.1f MiB per %u CPUs)",
		    best_level, (double)r->llc_bytes / 1048576.0, (double)size / 1048576.0,
		    sharing ? sharing : 1);
}

static bool read_meminfo(const cr_detect_opts *o, cr_detect_result *r, char *buf)
{
	char path[1024];

	if (!root_path(o->root, "/proc/meminfo", path, sizeof(path)) ||
	    !read_small(path, buf, SMALL_FILE_MAX))
		return false;
	for (char *line = buf; line && *line;) {
		char *nl = strchr(line, '\n');

		if (nl)
			*nl = '\0';
		if (strncmp(line, "MemTotal:", 9) == 0) {
			char *end;
			unsigned long long kb = strtoull(line + 9, &end, 10);

			while (*end == ' ')
				end++;
			if (kb && strncmp(end, "kB", 2) == 0) {
				r->ram_bytes = (uint64_t)kb * 1024;
				add_finding(r, "ram", false, path, "system RAM %.1f GiB (MemTotal %llu kB)",
					    (double)r->ram_bytes / GIB, kb);
				return true;
			}
		}
		line = nl ? nl + 1 : NULL;
	}
	add_finding(r, "ram", false, path, "no MemTotal line");
	return false;
}

static cr_detect_gpu *new_gpu(cr_detect_result *r)
{
	if (r->n_gpus >= CR_DETECT_MAX_GPUS) {
		r->n_left_out++;
		return NULL;
	}
	cr_detect_gpu *g = &r->gpus[r->n_gpus++];

	memset(g, 0, sizeof(*g));
	return g;
}

/* Look up a GPU's figures in the catalog; record how. */
static void identify(const cr_detect_opts *o, cr_detect_result *r, cr_detect_gpu *g,
		     double match_memory_gib, const char *source)
{
	const cr_device *d = cr_detect_match_device(o->catalog, g->name, match_memory_gib);

	if (d) {
		g->known = true;
		cr_strlcpy(g->catalog_device, d->name, sizeof(g->catalog_device));
		g->bandwidth_gbs = d->bandwidth_gbs;
		g->fp16_tflops = d->fp16_tflops;
		add_finding(r, "gpu", false, source,
			    "%s, %.1f GiB = catalog device \"%s\" (%g GB/s, %g FP16 TFLOPS)", g->name,
			    g->memory_gib, d->name, d->bandwidth_gbs, d->fp16_tflops);
	} else if (o->unknown_gpu_bw_gbs > 0) {
		g->bandwidth_gbs = o->unknown_gpu_bw_gbs;
		g->fp16_tflops = o->unknown_gpu_tflops;
		add_finding(r, "gpu", false, source,
			    "%s, %.1f GiB: not in the catalog; using the given %g GB/s, %g TFLOPS",
			    g->name, g->memory_gib, g->bandwidth_gbs, g->fp16_tflops);
	} else {
		add_finding(r, "gpu", false, source,
			    "%s, %.1f GiB: not in the catalog, bandwidth unknown; left out of the rig%s%s%s",
			    g->name, g->memory_gib, o->gpu_bw_option ? " (give " : "",
			    o->gpu_bw_option ? o->gpu_bw_option : "", o->gpu_bw_option ? ")" : "");
	}
}

static void read_nvidia(const cr_detect_opts *o, cr_detect_result *r)
{
	const char *how = o->nvidia_smi_how ? o->nvidia_smi_how : "nvidia-smi " CR_DETECT_NVIDIA_SMI_ARGS;
	const char *p = o->nvidia_smi;
	unsigned n = 0;

	if (!p) {
		add_finding(r, "nvidia", false, o->nvidia_smi_note ? o->nvidia_smi_note : "nvidia-smi not run",
			    "no NVIDIA GPUs seen");
		return;
	}
	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		char line[256], *comma;
		unsigned long long mib;

		if (len >= sizeof(line))
			len = sizeof(line) - 1;
		memcpy(line, p, len);
		line[len] = '\0';
		p = nl ? nl + 1 : p + strlen(p);
		trim(line);
		if (!line[0])
			continue;
		/* "name, memory.total": split at the last comma, names have none. */
		comma = strrchr(line, ',');
		if (!comma) {
			add_finding(r, "nvidia", false, how, "unexpected line \"%.80s\"", line);
			continue;
		}
		*comma = '\0';
		trim(line);
		trim(comma + 1);
		if (!parse_u64(comma + 1, &mib) || !mib) {
			/* "[N/A]", "[Insufficient Permissions]" */
			add_finding(r, "nvidia", false, how, "%.80s: memory \"%.40s\" unreadable; left out",
				    line, comma + 1);
			r->n_left_out++;
			continue;
		}
		cr_detect_gpu *g = new_gpu(r);

		if (!g)
			continue;
		cr_strlcpy(g->name, line, sizeof(g->name));
		cr_strlcpy(g->vendor, "nvidia", sizeof(g->vendor));
		g->memory_gib = gib_2dp((double)mib * 1048576.0);
		identify(o, r, g, g->memory_gib, how);
		n++;
	}
	if (!n)
		add_finding(r, "nvidia", false, how, "no NVIDIA GPUs listed");
}

static int card_cmp(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

static void read_amd(const cr_detect_opts *o, cr_detect_result *r)
{
	char dir[1024], path[1200], buf[256];
	int cards[MAX_DRM_CARDS], n = 0, seen = 0;
	struct dirent *de;
	DIR *d;

	if (!root_path(o->root, "/sys/class/drm", dir, sizeof(dir)) || !(d = opendir(dir))) {
		add_finding(r, "amd", false, dir, "no AMD GPUs seen (no /sys/class/drm)");
		return;
	}
	/* cardN only: cardN-DP-1 and friends are connectors of the same GPU. */
	while ((de = readdir(d)) != NULL && n < MAX_DRM_CARDS) {
		const char *s = de->d_name;
		unsigned long long k;

		if (strncmp(s, "card", 4) == 0 && parse_u64(s + 4, &k) && k < 100000)
			cards[n++] = (int)k;
	}
	closedir(d);
	qsort(cards, (size_t)n, sizeof(int), card_cmp);
	for (int i = 0; i < n; i++) {
		unsigned long long vram;
		cr_detect_gpu *g;

		snprintf(path, sizeof(path), "%s/card%d/device/mem_info_vram_total", dir, cards[i]);
		if (!read_small(path, buf, sizeof(buf)) || !parse_u64(buf, &vram))
			continue;
		seen++;
		if (vram < AMD_MIN_VRAM_BYTES) {
			add_finding(r, "amd", false, path,
				    "card%d: %.0f MiB of VRAM, an integrated GPU's carve-out; ignored",
				    cards[i], (double)vram / 1048576.0);
			continue;
		}
		if (!(g = new_gpu(r)))
			continue;
		cr_strlcpy(g->vendor, "amd", sizeof(g->vendor));
		g->memory_gib = gib_2dp((double)vram);
		snprintf(path, sizeof(path), "%s/card%d/device/product_name", dir, cards[i]);
		if (read_small(path, buf, sizeof(buf)) && (trim(buf), buf[0])) {
			cr_strlcpy(g->name, buf, sizeof(g->name));
		} else {
			char ids[64] = "";

			snprintf(path, sizeof(path), "%s/card%d/device/device", dir, cards[i]);
			if (read_small(path, buf, sizeof(buf))) {
				trim(buf);
				snprintf(ids, sizeof(ids), " (PCI device %.16s)", buf);
			}
			snprintf(g->name, sizeof(g->name), "AMD GPU card%d%s", cards[i], ids);
		}
		snprintf(path, sizeof(path), "%s/card%d/device/{mem_info_vram_total,product_name}", dir,
			 cards[i]);
		identify(o, r, g, g->memory_gib, path);
	}
	if (!seen)
		add_finding(r, "amd", false, dir, "no AMD GPUs seen (no mem_info_vram_total)");
}

/* ---- Apple ----------------------------------------------------------------- */

static bool read_apple(const cr_detect_opts *o, cr_detect_result *r)
{
	const char *cmd = o->sysctl_cmd ? o->sysctl_cmd : "sysctl";
	unsigned long long bytes, ncpu;
	char chip[CR_NAME_MAX], how[320], how_brand[320];
	cr_detect_gpu *g;
	const cr_device *d;

	if (!o->sysctl_memsize || !parse_u64(o->sysctl_memsize, &bytes) || !bytes)
		return false;
	snprintf(how, sizeof(how), "%.280s -n hw.memsize", cmd);
	snprintf(how_brand, sizeof(how_brand), "%.280s -n machdep.cpu.brand_string", cmd);
	r->apple = true;
	r->ram_bytes = bytes;
	add_finding(r, "ram", false, how, "unified memory %.1f GiB (hw.memsize %llu)",
		    (double)bytes / GIB, bytes);
	if (o->sysctl_ncpu && parse_u64(o->sysctl_ncpu, &ncpu) && ncpu && ncpu < 100000) {
		r->cpu_logical = (unsigned)ncpu;
		snprintf(how, sizeof(how), "%.280s -n hw.ncpu", cmd);
		add_finding(r, "cpu", false, how, "%u logical CPUs (hw.ncpu)", r->cpu_logical);
	}
	cr_strlcpy(chip, o->sysctl_cpu_brand ? o->sysctl_cpu_brand : "", sizeof(chip));
	trim(chip);
	cr_strlcpy(r->cpu_model, chip, sizeof(r->cpu_model));
	if (!(g = new_gpu(r)))
		return true;
	cr_strlcpy(g->vendor, "apple", sizeof(g->vendor));
	cr_strlcpy(g->name, chip[0] ? chip : "unknown Apple chip", sizeof(g->name));
	g->memory_gib = gib_2dp((double)bytes);
	/* One chip comes with several memory sizes: match on the name only.
	 * The catalog's figure is its largest GPU variant (e.g. M3 Max 40-core:
	 * 400 GB/s; the 30-core M3 Max has 300). */
	d = cr_detect_match_device(o->catalog, g->name, 0);
	if (d && d->kind == CR_MEM_UNIFIED && d->backend == CR_BACKEND_METAL) {
		g->known = true;
		cr_strlcpy(g->catalog_device, d->name, sizeof(g->catalog_device));
		g->bandwidth_gbs = d->bandwidth_gbs;
		g->fp16_tflops = d->fp16_tflops;
		add_finding(r, "apple", false, how_brand,
			    "%s = catalog device \"%s\" (%g GB/s; the catalog lists the largest GPU variant)",
			    g->name, d->name, d->bandwidth_gbs);
	} else if (o->unknown_gpu_bw_gbs > 0) {
		g->bandwidth_gbs = o->unknown_gpu_bw_gbs;
		g->fp16_tflops = o->unknown_gpu_tflops;
		add_finding(r, "apple", false, how_brand,
			    "%s: not in the catalog; using the given %g GB/s", g->name,
			    g->bandwidth_gbs);
	} else {
		add_finding(r, "apple", false, how_brand, "%s: not in the catalog, bandwidth unknown%s%s%s",
			    g->name, o->gpu_bw_option ? " (give " : "", o->gpu_bw_option ? o->gpu_bw_option : "",
			    o->gpu_bw_option ? ")" : "");
	}
	return true;
}

/* ---- the rig ----------------------------------------------------------------- */

static void build_rig(const cr_detect_opts *o, cr_detect_result *r)
{
	cr_rig *rig = &r->rig;
	char gpus[160] = "";
	size_t used = 0;

	memset(rig, 0, sizeof(*rig));
	cr_strlcpy(rig->id, o->rig_id ? o->rig_id : "local", sizeof(rig->id));
	cr_strlcpy(rig->sources[0], "clefrun detect", sizeof(rig->sources[0]));
	rig->n_sources = 1;

	if (r->apple) {
		cr_detect_gpu *g = &r->gpus[0];
		cr_device *d = &rig->devices[0];

		if (!r->n_gpus || g->bandwidth_gbs <= 0) {
			snprintf(r->rig_problem, sizeof(r->rig_problem),
				 "the chip \"%s\" is not in the catalog: its memory bandwidth is unknown%s%s%s",
				 r->n_gpus ? g->name : "?", o->gpu_bw_option ? " (give " : "",
				 o->gpu_bw_option ? o->gpu_bw_option : "", o->gpu_bw_option ? ")" : "");
			return;
		}
		g->in_rig = true;
		cr_strlcpy(d->name, g->known ? g->catalog_device : g->name, sizeof(d->name));
		d->count = 1;
		d->memory_gib = g->memory_gib;
		d->bandwidth_gbs = g->bandwidth_gbs;
		d->fp16_tflops = g->fp16_tflops;
		d->backend = CR_BACKEND_METAL;
		d->kind = CR_MEM_UNIFIED;
		d->usable_fraction = cr_default_usable_fraction(d);
		rig->n_devices = 1;
		snprintf(rig->name, sizeof(rig->name), "This machine: %.80s, %g GiB", g->name,
			 g->memory_gib);
		snprintf(rig->notes, sizeof(rig->notes),
			 "Detected by clefrun detect (sysctl hw.memsize, machdep.cpu.brand_string).%s",
			 g->known ? " Bandwidth from the catalog's device of the same name." : " Bandwidth given by the user.");
		r->rig_ok = true;
		return;
	}

	/* One group per distinct GPU model; the last slot is system RAM. */
	for (unsigned i = 0; i < r->n_gpus; i++) {
		cr_detect_gpu *g = &r->gpus[i];
		const char *dname = g->known ? g->catalog_device : g->name;
		unsigned k;

		if (g->bandwidth_gbs <= 0) {
			r->n_left_out++;
			continue;
		}
		for (k = 0; k < rig->n_devices; k++) {
			cr_device *d = &rig->devices[k];

			if (strcmp(d->name, dname) == 0 && d->memory_gib == g->memory_gib)
				break;
		}
		if (k == rig->n_devices) {
			cr_device *d;

			if (rig->n_devices >= CR_MAX_DEVICE_GROUPS - 1) {
				add_finding(r, "gpu", false, "clefrun detect",
					    "%s: more than %d kinds of GPU; left out", g->name,
					    CR_MAX_DEVICE_GROUPS - 1);
				r->n_left_out++;
				continue;
			}
			d = &rig->devices[rig->n_devices++];
			cr_strlcpy(d->name, dname, sizeof(d->name));
			d->memory_gib = g->memory_gib;
			d->bandwidth_gbs = g->bandwidth_gbs;
			d->fp16_tflops = g->fp16_tflops;
			d->backend = strcmp(g->vendor, "amd") == 0 ? CR_BACKEND_ROCM : CR_BACKEND_CUDA;
			d->kind = CR_MEM_DISCRETE;
			d->usable_fraction = cr_default_usable_fraction(d);
		}
		rig->devices[k].count++;
		g->in_rig = true;
	}
	for (unsigned k = 0; k < rig->n_devices && used < sizeof(gpus); k++) {
		int n = snprintf(gpus + used, sizeof(gpus) - used, "%ux %s + ", rig->devices[k].count,
				 rig->devices[k].name);

		if (n < 0)
			break;
		used += (size_t)n;
	}
	{
		cr_device *d = &rig->devices[rig->n_devices++];

		snprintf(d->name, sizeof(d->name), "System RAM%s%.80s%s", r->cpu_model[0] ? " (" : "",
			 r->cpu_model, r->cpu_model[0] ? ")" : "");
		d->count = 1;
		d->memory_gib = gib_2dp((double)r->ram_bytes);
		d->bandwidth_gbs = r->ram_bandwidth_gbs;
		d->fp16_tflops = 0;
		d->backend = CR_BACKEND_CPU;
		d->kind = CR_MEM_SYSTEM;
		d->usable_fraction = cr_default_usable_fraction(d);
		snprintf(rig->name, sizeof(rig->name), "This machine: %s%g GiB RAM", gpus,
			 d->memory_gib);
	}
	snprintf(rig->notes, sizeof(rig->notes),
		 "Detected by clefrun detect (/proc/meminfo, /sys/devices/system/cpu%s%s). System RAM bandwidth %g GB/s %s%s%s%s.%s",
		 r->n_gpus && strcmp(r->gpus[0].vendor, "nvidia") == 0 ? ", nvidia-smi" : "",
		 r->n_gpus ? ", /sys/class/drm" : "", r->ram_bandwidth_gbs,
		 r->ram_bandwidth_guessed ? "is a guess (dual-channel DDR4-3200)" : "measured",
		 !o->measure_command ? ""
		 : r->ram_bandwidth_guessed ? "; measure it with "
					    : " by ",
		 o->measure_command ? o->measure_command : "",
		 r->ram_bandwidth_guessed
			 ? ""
			 : " (achieved read bandwidth, below the vendor peak the catalog uses, so decode estimates are on the low side)",
		 r->n_left_out ? " Some GPUs were left out (unknown figures)." : "");
	r->rig_ok = true;
}

int cr_detect_run(const cr_detect_opts *o, cr_detect_result *r, cr_error *err)
{
	char path[1024];

	if (!o || !r)
		return cr_seterr(err, CR_ERR_INVALID, "detect: missing options or result");
	memset(r, 0, sizeof(*r));
	if (o->rig_id && (!o->rig_id[0] || strlen(o->rig_id) >= CR_ID_MAX))
		return cr_seterr(err, CR_ERR_INVALID, "detect: rig id must be 1 to %d characters",
				 CR_ID_MAX - 1);
	if (read_apple(o, r)) {
		if (o->measured_ram_gbs > 0)
			add_finding(r, "ram_bandwidth", false,
				    o->measured_how ? o->measured_how : "measured",
				    "CPU read bandwidth %.1f GB/s (measured; not used: the GPU reads unified memory at the chip's figure)",
				    o->measured_ram_gbs);
	} else {
		/* /proc/cpuinfo of a 256-core box is ~1 MiB; the first 64 KiB hold
		 * the first "model name". Heap, not stack or static: reentrant. */
		char *buf = malloc(SMALL_FILE_MAX);
		bool have_mem;

		if (!buf)
			return cr_seterr(err, CR_ERR_NOMEM, "out of memory");
		have_mem = read_meminfo(o, r, buf);
		if (!have_mem) {
			free(buf);
			root_path(o->root, "/proc/meminfo", path, sizeof(path));
			return cr_seterr(err, CR_ERR_NOTFOUND,
					 "detect: memory size unknown: %s has no MemTotal and no sysctl hw.memsize was given",
					 path);
		}
		read_cpu(o, r, buf);
		free(buf);
		read_llc(o, r);
		read_nvidia(o, r);
		read_amd(o, r);
		if (o->measured_ram_gbs > 0) {
			/* 0.1 GB/s: the probe's pass-to-pass spread is far wider. */
			r->ram_bandwidth_gbs = round(o->measured_ram_gbs * 10.0) / 10.0;
			if (r->ram_bandwidth_gbs < 0.1)
				r->ram_bandwidth_gbs = 0.1;
			add_finding(r, "ram_bandwidth", false,
				    o->measured_how ? o->measured_how : "measured",
				    "system RAM bandwidth %.1f GB/s (measured)", r->ram_bandwidth_gbs);
		} else {
			r->ram_bandwidth_gbs = CR_DETECT_GUESS_RAM_GBS;
			r->ram_bandwidth_guessed = true;
			char how[160];

			snprintf(how, sizeof(how), "not measured: conservative default (dual-channel DDR4-3200)%s%s",
				 o->measure_option ? "; run with " : "", o->measure_option ? o->measure_option : "");
			add_finding(r, "ram_bandwidth", true, how, "system RAM bandwidth %.1f GB/s (GUESS)",
				    CR_DETECT_GUESS_RAM_GBS);
		}
	}
	build_rig(o, r);
	return CR_OK;
}
