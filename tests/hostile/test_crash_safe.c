/*
 * test_crash_safe: the files clefrun writes survive a SIGKILL at any moment,
 * the files it reads are refused cleanly whatever is found in their place,
 * and the resource caps hold (issue 7).
 *
 * - Header cache (cache.h): a child replaces one entry in a loop and is
 *   SIGKILLed at random moments; after every kill the entry reads back
 *   whole, as the old or the new one, never broken (the same test as the
 *   saved-rigs one in tests/rig/test_userrigs.c). An entry torn by
 *   something else is reported with its path, not taken.
 * - Saved rigs (userrigs.h): a FIFO or an endless device in place of the
 *   file is refused without blocking; a file above the 4 MiB cap is
 *   refused; rig figures whose text does not fit are refused, not cut.
 * - GGUF header memory: at the default limits a header that claims 192 MiB
 *   is refused at 64 MiB (CR_GGUF_MAX_HEADER), and the process grows by
 *   about that much, not by the file.
 *
 * The seed of the random kill times is printed; CLEFRUN_KILL_SEED replays it.
 */
#include "unit.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "clefrun/clefrun.h"
#include "support.h"

static char tmpdir[256];

static int setup(void **state)
{
	(void)state;
	return ts_tmpdir(tmpdir, sizeof(tmpdir), "crash");
}

static int teardown(void **state)
{
	(void)state;
	return ts_rm_tree(tmpdir);
}

static unsigned long lcg(unsigned long *s)
{
	*s = *s * 6364136223846793005ul + 1442695040888963407ul;
	return *s >> 33;
}

static unsigned long kill_seed(void)
{
	const char *e = getenv("CLEFRUN_KILL_SEED");

	return e ? strtoul(e, NULL, 10) : (unsigned long)time(NULL) ^ (unsigned long)getpid();
}

static long elapsed_us(const struct timespec *a, const struct timespec *b)
{
	return (long)(b->tv_sec - a->tv_sec) * 1000000L + (b->tv_nsec - a->tv_nsec) / 1000;
}

/* Entries of dir whose name starts with prefix (anywhere: contains it). */
static size_t count_names(const char *dir, const char *prefix, bool anywhere)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	size_t n = 0;

	if (!d)
		return 0;
	while ((de = readdir(d)))
		n += anywhere ? strstr(de->d_name, prefix) != NULL
			      : strncmp(de->d_name, prefix, strlen(prefix)) == 0;
	closedir(d);
	return n;
}

/* ---- header cache ------------------------------------------------------------- */

static void fill(cr_cache_entry *e, const char *url, const char *etag, const unsigned char *data,
		 size_t len)
{
	memset(e, 0, sizeof(*e));
	e->kind = CR_CACHE_GGUF;
	snprintf(e->url, sizeof(e->url), "%s", url);
	snprintf(e->etag, sizeof(e->etag), "%s", etag);
	e->data = (unsigned char *)data;
	e->len = len;
	e->remote_bytes = len;
}

static void test_cache_write_under_kill(void **state)
{
	static unsigned char a[300000], b[200000];
	static const char url[] = "https://example.invalid/m.gguf";
	const unsigned rounds = 40;
	unsigned long seed0 = kill_seed(), seed = seed0;
	unsigned seen_a = 0, seen_b = 0;
	char dir[400];
	cr_cache *c = NULL;
	cr_cache_entry e;
	cr_error err = CR_ERROR_INIT;
	struct timespec t0, t1;
	long put_us;

	(void)state;
	memset(a, 'a', sizeof(a));
	memset(b, 'b', sizeof(b));
	snprintf(dir, sizeof(dir), "%s/cache", tmpdir);
	assert_int_equal(cr_cache_open(dir, NULL, &c, &err), CR_OK);
	fill(&e, url, "\"A\"", a, sizeof(a));
	clock_gettime(CLOCK_MONOTONIC, &t0);
	assert_int_equal(cr_cache_put(c, &e, &err), CR_OK);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	put_us = elapsed_us(&t0, &t1);
	print_message("cache kill test: seed %lu (CLEFRUN_KILL_SEED), %u rounds, one write %ld us\n",
		      seed0, rounds, put_us);

	for (unsigned round = 0; round < rounds; round++) {
		/* Within about three writes, so that kills land before, inside
		 * and after them whatever fsync costs here. */
		long us = (long)(lcg(&seed) % (unsigned long)(3 * put_us + 2000));
		struct timespec nap = { us / 1000000L, (us % 1000000L) * 1000L };
		cr_cache_entry *got = NULL;
		int status;
		pid_t pid = fork();

		assert_true(pid >= 0);
		if (pid == 0) {
			cr_cache_entry w;

			/* B, A, B, ...: every completed write changes the entry. */
			for (unsigned long i = 0;; i++) {
				if (i % 2)
					fill(&w, url, "\"A\"", a, sizeof(a));
				else
					fill(&w, url, "\"B\"", b, sizeof(b));
				if (cr_cache_put(c, &w, NULL))
					_exit(1);
			}
		}
		nanosleep(&nap, NULL);
		kill(pid, SIGKILL);
		assert_int_equal(waitpid(pid, &status, 0), pid);
		assert_true(WIFSIGNALED(status)); /* killed by us, not failed on its own */
		if (cr_cache_get(c, CR_CACHE_GGUF, url, 1u << 20, &got, &err) != CR_OK)
			fail_msg("round %u (seed %lu): the entry does not read back: %s", round, seed0,
				 err.message);
		if (strcmp(got->etag, "\"A\"") == 0 && got->len == sizeof(a) &&
		    memcmp(got->data, a, sizeof(a)) == 0) {
			seen_a++;
		} else if (strcmp(got->etag, "\"B\"") == 0 && got->len == sizeof(b) &&
			   memcmp(got->data, b, sizeof(b)) == 0) {
			seen_b++;
		} else {
			fail_msg("round %u (seed %lu): the entry is neither the old nor the new one (etag %s, %zu bytes)",
				 round, seed0, got->etag, got->len);
		}
		cr_cache_entry_free(got);
	}
	/* The writes must have completed sometimes, or nothing was tested. */
	assert_true(seen_b > 0);
	print_message("cache kill test: %u rounds ended on the first entry, %u on the second; %zu temporary file(s) left by kills\n",
		      seen_a, seen_b, count_names(dir, ".tmp-", true));
	/* Only the one entry exists besides temporaries of killed writes. */
	assert_int_equal(count_names(dir, "gguf-", false), 1);
	cr_cache_free(c);
}

/* A torn entry (something else wrote half of it) is reported with its path
 * and never returned as data. */
static void test_cache_torn_entry_reported(void **state)
{
	static unsigned char a[100000];
	static const char url[] = "https://example.invalid/torn.gguf";
	char dir[400], path[1024];
	cr_cache *c = NULL;
	cr_cache_entry e, *got = NULL;
	cr_error err = CR_ERROR_INIT;
	struct stat st;

	(void)state;
	memset(a, 'a', sizeof(a));
	snprintf(dir, sizeof(dir), "%s/torn", tmpdir);
	assert_int_equal(cr_cache_open(dir, NULL, &c, &err), CR_OK);
	fill(&e, url, "\"A\"", a, sizeof(a));
	assert_int_equal(cr_cache_put(c, &e, &err), CR_OK);
	assert_int_equal(cr_cache_entry_path(c, CR_CACHE_GGUF, url, path, sizeof(path), &err), CR_OK);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(truncate(path, st.st_size / 2), 0);
	assert_int_equal(cr_cache_get(c, CR_CACHE_GGUF, url, 1u << 20, &got, &err), CR_ERR_PARSE);
	assert_null(got);
	assert_non_null(strstr(err.message, path));
	cr_cache_free(c);
}

/* ---- saved rigs ------------------------------------------------------------------ */

static void test_userrigs_not_a_regular_file(void **state)
{
	char path[512], want[600];
	cr_user_rigs *set = NULL;
	cr_error err = CR_ERROR_INIT;
	bool exists = true;

	(void)state;
	snprintf(path, sizeof(path), "%s/rigs.json", tmpdir);
	snprintf(want, sizeof(want), "%s: not a regular file", path);
	/* A FIFO: a plain open would wait for a writer forever. */
	assert_int_equal(mkfifo(path, 0600), 0);
	assert_int_equal(cr_userrigs_load(path, NULL, &set, &exists, &err), CR_ERR_IO);
	assert_string_equal(err.message, want);
	assert_null(set);
	assert_int_equal(unlink(path), 0);
	/* An endless device. */
	assert_int_equal(symlink("/dev/zero", path), 0);
	assert_int_equal(cr_userrigs_load(path, NULL, &set, &exists, &err), CR_ERR_IO);
	assert_string_equal(err.message, want);
	assert_int_equal(unlink(path), 0);
	/* A directory. */
	assert_int_equal(mkdir(path, 0700), 0);
	assert_int_equal(cr_userrigs_load(path, NULL, &set, &exists, &err), CR_ERR_IO);
	snprintf(want, sizeof(want), "%s: is a directory", path);
	assert_string_equal(err.message, want);
	assert_int_equal(rmdir(path), 0);
	/* Above the 4 MiB cap (sparse: no disk used). */
	{
		FILE *f = fopen(path, "w");

		assert_non_null(f);
		assert_int_equal(fclose(f), 0);
		assert_int_equal(truncate(path, 5 << 20), 0);
	}
	assert_int_equal(cr_userrigs_load(path, NULL, &set, &exists, &err), CR_ERR_INVALID);
	snprintf(want, sizeof(want), "%s: file too large (5242880 bytes, at most 4194304)", path);
	assert_string_equal(err.message, want);
	assert_int_equal(unlink(path), 0);
}

/* Figures whose text does not fit the rig are refused, not cut (a cut
 * inside a UTF-8 sequence was then reported as "invalid UTF-8"). */
static void test_userrigs_build_long_text(void **state)
{
	static const struct {
		int field; /* 0 name, 1 device_name, 2 notes, 3 source */
		size_t len;
		int status;
		const char *message;
	} rows[] = {
		{ 0, 127, CR_OK, "" },
		{ 0, 128, CR_ERR_INVALID, "name: 128 bytes, at most 127" },
		{ 1, 127, CR_OK, "" },
		{ 1, 5000, CR_ERR_INVALID, "device_name: 5000 bytes, at most 127" },
		{ 2, 1023, CR_OK, "" },
		{ 2, 1024, CR_ERR_INVALID, "notes: 1024 bytes, at most 1023" },
		{ 3, 511, CR_OK, "" },
		{ 3, 512, CR_ERR_INVALID, "source: 512 bytes, at most 511" },
	};
	char *text = malloc(5001);

	(void)state;
	assert_non_null(text);
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		cr_rig_figures f = CR_RIG_FIGURES_INIT;
		cr_rig r;
		cr_error err = CR_ERROR_INIT;
		/* 'é' (2 bytes) then ASCII: a cut at the field size could split it. */
		size_t n = rows[i].len;

		memset(text, 'e', n);
		text[0] = (char)0xc3;
		text[1] = (char)0xa9;
		text[n] = '\0';
		f.id = "box";
		f.mem_gib = 24;
		f.bw_gbs = 1000;
		if (rows[i].field == 0)
			f.name = text;
		else if (rows[i].field == 1)
			f.device_name = text;
		else if (rows[i].field == 2)
			f.notes = text;
		else
			f.source = text;
		assert_int_equal(cr_userrigs_build(&f, &r, &err), rows[i].status);
		if (rows[i].status)
			assert_string_equal(err.message, rows[i].message);
	}
	free(text);
}

/* ---- GGUF header memory ----------------------------------------------------------- */

static void put64(int fd, off_t at, uint64_t v)
{
	unsigned char b[8];

	for (int i = 0; i < 8; i++)
		b[i] = (unsigned char)(v >> (8 * i));
	assert_int_equal(pwrite(fd, b, 8, at), 8);
}

static void put32(int fd, off_t at, uint32_t v)
{
	unsigned char b[4];

	for (int i = 0; i < 4; i++)
		b[i] = (unsigned char)(v >> (8 * i));
	assert_int_equal(pwrite(fd, b, 4, at), 4);
}

static long max_rss_kib(void)
{
	struct rusage ru;

	assert_int_equal(getrusage(RUSAGE_SELF, &ru), 0);
	return ru.ru_maxrss;
}

#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ASAN 1
#endif
#endif

static void test_gguf_header_memory_cap(void **state)
{
	/* 12 pairs, each an array of 2^24 uint8 (the default max_array_len):
	 * a header of 192 MiB, three times CR_GGUF_MAX_HEADER. Sparse. */
	const int n_kv = 12;
	const uint64_t elems = 1u << 24;
	char path[512];
	off_t at = 24;
	cr_source *src = NULL;
	cr_gguf *g = NULL;
	cr_error err = CR_ERROR_INIT;
	long before;
	int fd;

	(void)state;
	snprintf(path, sizeof(path), "%s/huge-header.gguf", tmpdir);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0);
	assert_int_equal(pwrite(fd, "GGUF", 4, 0), 4);
	put32(fd, 4, 3);
	put64(fd, 8, 0);
	put64(fd, 16, (uint64_t)n_kv);
	for (int i = 0; i < n_kv; i++) {
		char key[8];

		snprintf(key, sizeof(key), "k%02d", i);
		put64(fd, at, 3);
		assert_int_equal(pwrite(fd, key, 3, at + 8), 3);
		put32(fd, at + 11, CR_GGUF_ARRAY);
		put32(fd, at + 15, CR_GGUF_UINT8);
		put64(fd, at + 19, elems);
		at += 27 + (off_t)elems;
	}
	assert_int_equal(ftruncate(fd, at), 0);
	assert_int_equal(close(fd), 0);

	before = max_rss_kib();
	assert_int_equal(cr_source_open_file(path, &src, &err), CR_OK);
	assert_int_equal(cr_gguf_load(src, NULL, &g, &err), CR_ERR_RANGE);
	assert_null(g);
	/* The fourth array would end past 64 MiB, at 24 + 4 x (27 + 2^24). */
	{
		char want[700];

		snprintf(want, sizeof(want),
			 "%s: byte 50331780: array ends at byte 67108996, past the header limit of 67108864 bytes",
			 path);
		assert_string_equal(err.message, want);
	}
	cr_source_free(src);
#ifndef UNDER_ASAN
	/* The reader held at most the 64 MiB limit (plus slack for the
	 * allocator), not the 192 MiB the file claims. */
	{
		long grew = max_rss_kib() - before;

		print_message("GGUF header cap: max RSS grew by %ld KiB\n", grew);
		assert_true(grew < 96L * 1024);
	}
#else
	(void)before;
#endif
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_cache_write_under_kill, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cache_torn_entry_reported, setup, teardown),
		cmocka_unit_test_setup_teardown(test_userrigs_not_a_regular_file, setup, teardown),
		cmocka_unit_test(test_userrigs_build_long_text),
		cmocka_unit_test_setup_teardown(test_gguf_header_memory_cap, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
