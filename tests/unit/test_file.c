/*
 * cr_file_write_atomic: the content lands whole with the requested
 * permissions; a missing directory fails with the path and the step named
 * and leaves nothing behind; stale temporaries of killed writers of the same
 * target are removed while a live writer's and other files are kept.
 */
#include "unit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include "clefrun/file.h"

static char dir[64];

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/clefrun-file-XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

static void touch(const char *name, time_t age_s)
{
	char p[256];
	struct timeval tv[2];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	f = fopen(p, "w");
	assert_non_null(f);
	fclose(f);
	gettimeofday(&tv[0], NULL);
	tv[0].tv_sec -= age_s;
	tv[1] = tv[0];
	assert_int_equal(utimes(p, tv), 0);
}

static bool exists(const char *name)
{
	char p[256];

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	return access(p, F_OK) == 0;
}

static void test_writes_content_and_mode(void **state)
{
	cr_file_chunk chunks[2] = { { "hello ", 6 }, { "world", 5 } };
	cr_error err = { 0, "" };
	char path[256], buf[32] = { 0 };
	struct stat st;
	mode_t mask = umask(022);
	FILE *f;

	(void)state;
	snprintf(path, sizeof(path), "%s/doc.html", dir);
	assert_int_equal(cr_file_write_atomic(path, chunks, 2, 0666, &err), CR_OK);
	umask(mask);
	f = fopen(path, "r");
	assert_non_null(f);
	assert_int_equal(fread(buf, 1, sizeof(buf) - 1, f), 11);
	fclose(f);
	assert_string_equal(buf, "hello world");
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0644);
	snprintf(path, sizeof(path), "%s/private.json", dir);
	assert_int_equal(cr_file_write_atomic(path, chunks, 1, CR_FILE_MODE_PRIVATE, &err), CR_OK);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
}

static void test_missing_directory(void **state)
{
	cr_file_chunk chunk = { "x", 1 };
	cr_error err = { 0, "" };
	char path[256], want[512];

	(void)state;
	snprintf(path, sizeof(path), "%s/no-such-dir/f.json", dir);
	assert_int_equal(cr_file_write_atomic(path, &chunk, 1, 0666, &err), CR_ERR_IO);
	snprintf(want, sizeof(want), "%s: cannot create a temporary file: No such file or directory", path);
	assert_string_equal(err.message, want);
}

static void test_stale_temporaries(void **state)
{
	cr_file_chunk chunk = { "{}", 2 };
	cr_error err = { 0, "" };
	char path[256];

	(void)state;
	touch(".rigs.json.tmp-AAAAAA", 120); /* a killed writer's: removed */
	touch(".rigs.json.tmp-BBBBBB", 0);   /* a live writer's: kept */
	touch(".other.json.tmp-CCCCCC", 120); /* another target's: kept */
	touch("rigs.json.tmp-DDDDDD", 120);  /* not ours by name: kept */
	snprintf(path, sizeof(path), "%s/rigs.json", dir);
	assert_int_equal(cr_file_write_atomic(path, &chunk, 1, CR_FILE_MODE_PRIVATE, &err), CR_OK);
	assert_false(exists(".rigs.json.tmp-AAAAAA"));
	assert_true(exists(".rigs.json.tmp-BBBBBB"));
	assert_true(exists(".other.json.tmp-CCCCCC"));
	assert_true(exists("rigs.json.tmp-DDDDDD"));
	assert_true(exists("rigs.json"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_writes_content_and_mode, setup, teardown),
		cmocka_unit_test_setup_teardown(test_missing_directory, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stale_temporaries, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
