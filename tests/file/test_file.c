/*
 * cr_file_write_atomic: the content lands whole with the requested
 * permissions; a missing directory fails with the path and the step named
 * and leaves nothing behind; stale temporaries of killed writers of the same
 * target are removed while a live writer's and other files are kept.
 * cr_file_write: what is at the path decides (file.h): an existing file
 * keeps its mode; hard links are split, or kept with CR_FILE_KEEP_LINKS; a
 * link is replaced, or written through with CR_FILE_FOLLOW_LINK (a dangling
 * one refused); a FIFO or character device is refused, or written directly
 * with CR_FILE_STREAM; a directory, a socket are refused.
 * cr_file_read (util.h): a file comes back byte for byte at every size up to
 * twice its cap (the caller refuses above the cap with the exact size);
 * from twice the cap on it is refused after reading that much; a missing
 * file, a directory, a FIFO and an endless device are refused by name.
 */
/* mknod(2) is XSI: the build's _POSIX_C_SOURCE alone does not declare it. */
#define _XOPEN_SOURCE 700
#include "unit.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/time.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "clefrun/file.h"
#include "support.h"
#include "util.h"

static char dir[64];

/* Under /tmp whatever TMPDIR says: a socket's path must fit sun_path. */
static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/clefrun-file-XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	return ts_rm_tree(dir);
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
	cr_error err = CR_ERROR_INIT;
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
	cr_error err = CR_ERROR_INIT;
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
	cr_error err = CR_ERROR_INIT;
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

static void in_dir(char *p, size_t cap, const char *name)
{
	snprintf(p, cap, "%s/%s", dir, name);
}

static void put(const char *name, const char *text, mode_t mode)
{
	char p[256];
	FILE *f;

	in_dir(p, sizeof(p), name);
	f = fopen(p, "w");
	assert_non_null(f);
	assert_int_equal(fputs(text, f) >= 0, 1);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(chmod(p, mode), 0);
}

static void assert_content(const char *name, const char *want)
{
	char p[256], buf[64] = { 0 };
	FILE *f;

	in_dir(p, sizeof(p), name);
	f = fopen(p, "r");
	assert_non_null(f);
	assert_int_equal(fread(buf, 1, sizeof(buf) - 1, f), strlen(want));
	fclose(f);
	assert_string_equal(buf, want);
}

static const cr_file_opts all_flags = { 0666, CR_FILE_FOLLOW_LINK | CR_FILE_STREAM | CR_FILE_KEEP_LINKS };

/* An existing file comes back with its own mode, not the new-file one. */
static void test_replace_keeps_mode(void **state)
{
	cr_file_chunk chunk = { "new", 3 };
	cr_error err = CR_ERROR_INIT;
	cr_file_how how = CR_FILE_STREAMED;
	char p[256];
	struct stat st;
	mode_t mask = umask(022);

	(void)state;
	put("secret.html", "old content", 0600);
	in_dir(p, sizeof(p), "secret.html");
	assert_int_equal(cr_file_write(p, &chunk, 1, &all_flags, &how, &err), CR_OK);
	assert_int_equal(how, CR_FILE_REPLACED);
	assert_content("secret.html", "new");
	assert_int_equal(stat(p, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0600);
	put("shared.html", "old", 0640);
	in_dir(p, sizeof(p), "shared.html");
	assert_int_equal(cr_file_write_atomic(p, &chunk, 1, CR_FILE_MODE_PRIVATE, &err), CR_OK);
	assert_int_equal(stat(p, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0640);
	/* As root, another user's file keeps its owner and group (as a user
	 * the chown is not allowed and the file becomes the writer's). */
	if (geteuid() == 0) {
		in_dir(p, sizeof(p), "theirs.html");
		put("theirs.html", "old", 0640);
		assert_int_equal(chown(p, 65534, 65534), 0);
		assert_int_equal(cr_file_write(p, &chunk, 1, &all_flags, &how, &err), CR_OK);
		assert_int_equal(stat(p, &st), 0);
		assert_true(st.st_uid == 65534 && st.st_gid == 65534 && (st.st_mode & 07777) == 0640);
	}
	/* New: 0666 less the umask. */
	in_dir(p, sizeof(p), "fresh.html");
	assert_int_equal(cr_file_write(p, &chunk, 1, &all_flags, &how, &err), CR_OK);
	assert_int_equal(how, CR_FILE_CREATED);
	assert_int_equal(stat(p, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0644);
	umask(mask);
}

/* Hard links: split by the atomic writer, kept (rewritten in place, shorter
 * content truncating the old) with CR_FILE_KEEP_LINKS. */
static void test_hard_links(void **state)
{
	cr_file_chunk chunk = { "new", 3 };
	cr_error err = CR_ERROR_INIT;
	cr_file_how how = CR_FILE_CREATED;
	char a[256], b[256];
	struct stat sa, sb;

	(void)state;
	put("a.html", "old and longer", 0600);
	in_dir(a, sizeof(a), "a.html");
	in_dir(b, sizeof(b), "b.html");
	assert_int_equal(link(a, b), 0);
	assert_int_equal(cr_file_write(a, &chunk, 1, &all_flags, &how, &err), CR_OK);
	assert_int_equal(how, CR_FILE_REWRITTEN);
	assert_content("a.html", "new");
	assert_content("b.html", "new");
	assert_int_equal(stat(a, &sa), 0);
	assert_int_equal(stat(b, &sb), 0);
	assert_true(sa.st_ino == sb.st_ino && sa.st_nlink == 2);
	assert_int_equal(sa.st_mode & 07777, 0600);

	assert_int_equal(cr_file_write_atomic(a, &chunk, 1, CR_FILE_MODE_PRIVATE, &err), CR_OK);
	assert_int_equal(stat(a, &sa), 0);
	assert_int_equal(stat(b, &sb), 0);
	assert_true(sa.st_ino != sb.st_ino && sa.st_nlink == 1 && sb.st_nlink == 1);
}

/* Symbolic links: written through with CR_FILE_FOLLOW_LINK (the link
 * stays, its target keeps its mode), replaced without; a dangling one is
 * refused and nothing is created. */
static void test_symlinks(void **state)
{
	cr_file_chunk chunk = { "new", 3 };
	cr_error err = CR_ERROR_INIT;
	cr_file_how how = CR_FILE_CREATED;
	char l[256], want[600];
	struct stat st;

	(void)state;
	put("target.html", "old", 0600);
	in_dir(l, sizeof(l), "link.html");
	assert_int_equal(symlink("target.html", l), 0);
	assert_int_equal(cr_file_write(l, &chunk, 1, &all_flags, &how, &err), CR_OK);
	assert_int_equal(how, CR_FILE_REPLACED);
	assert_int_equal(lstat(l, &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	assert_content("target.html", "new");
	assert_int_equal(stat(l, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0600);

	assert_int_equal(cr_file_write_atomic(l, &chunk, 1, CR_FILE_MODE_PRIVATE, &err), CR_OK);
	assert_int_equal(lstat(l, &st), 0);
	assert_true(S_ISREG(st.st_mode));

	in_dir(l, sizeof(l), "dangling.html");
	assert_int_equal(symlink("nowhere/x.html", l), 0);
	assert_int_equal(cr_file_write(l, &chunk, 1, &all_flags, &how, &err), CR_ERR_IO);
	snprintf(want, sizeof(want), "%s: a symbolic link to nowhere/x.html, which does not exist; not created", l);
	assert_string_equal(err.message, want);
	assert_false(exists("nowhere"));
	assert_int_equal(lstat(l, &st), 0);
	assert_true(S_ISLNK(st.st_mode));
}

/* A FIFO: refused by the atomic writer (left a FIFO), written directly with
 * CR_FILE_STREAM to a reader that gets every byte. */
static void test_fifo(void **state)
{
	cr_file_chunk chunks[2] = { { "through ", 8 }, { "the fifo", 8 } };
	cr_error err = CR_ERROR_INIT;
	cr_file_how how = CR_FILE_CREATED;
	char p[256], want[600], got[64] = { 0 };
	int fds[2], status;
	struct stat st;
	pid_t child;

	(void)state;
	in_dir(p, sizeof(p), "out.fifo");
	assert_int_equal(mkfifo(p, 0600), 0);
	assert_int_equal(cr_file_write_atomic(p, chunks, 2, 0666, &err), CR_ERR_IO);
	snprintf(want, sizeof(want), "%s: a FIFO, not a regular file; not replaced", p);
	assert_string_equal(err.message, want);
	assert_int_equal(pipe(fds), 0);
	child = fork();
	assert_true(child >= 0);
	if (child == 0) {
		/* The reader: copies what comes through the FIFO to the pipe. */
		char buf[64];
		ssize_t n;
		int fd = open(p, O_RDONLY);

		close(fds[0]);
		while (fd >= 0 && (n = read(fd, buf, sizeof(buf))) > 0)
			if (write(fds[1], buf, (size_t)n) != n)
				_exit(2);
		_exit(fd >= 0 ? 0 : 1);
	}
	close(fds[1]);
	assert_int_equal(cr_file_write(p, chunks, 2, &all_flags, &how, &err), CR_OK);
	assert_int_equal(how, CR_FILE_STREAMED);
	assert_int_equal(waitpid(child, &status, 0), child);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	assert_int_equal(read(fds[0], got, sizeof(got) - 1), 16);
	close(fds[0]);
	assert_string_equal(got, "through the fifo");
	assert_int_equal(lstat(p, &st), 0);
	assert_true(S_ISFIFO(st.st_mode));
}

/* A character device is written directly and stays a device (as root the
 * rename used to turn /dev/null into a regular file). As root the test
 * makes its own null device (1, 3) in its directory rather than risk the
 * system's on a regression; otherwise it uses /dev/null, which a rename by
 * a user cannot replace. Without CR_FILE_STREAM it is refused before
 * anything is written. */
static void test_char_device(void **state)
{
	cr_file_chunk chunk = { "discarded", 9 };
	cr_error err = CR_ERROR_INIT;
	cr_file_how how = CR_FILE_CREATED;
	char p[256], want[600];
	struct stat st;

	(void)state;
	snprintf(p, sizeof(p), "/dev/null");
	if (geteuid() == 0) {
		in_dir(p, sizeof(p), "null");
		assert_int_equal(mknod(p, S_IFCHR | 0666, makedev(1, 3)), 0);
	}
	assert_int_equal(cr_file_write(p, &chunk, 1, &all_flags, &how, &err), CR_OK);
	assert_int_equal(how, CR_FILE_STREAMED);
	assert_int_equal(stat(p, &st), 0);
	assert_true(S_ISCHR(st.st_mode) && st.st_rdev == makedev(1, 3));
	assert_int_equal(cr_file_write_atomic(p, &chunk, 1, 0666, &err), CR_ERR_IO);
	snprintf(want, sizeof(want), "%s: a character device, not a regular file; not replaced", p);
	assert_string_equal(err.message, want);
	assert_int_equal(stat(p, &st), 0);
	assert_true(S_ISCHR(st.st_mode));
}

/* A directory and a socket are refused, with or without CR_FILE_STREAM. */
static void test_refused_kinds(void **state)
{
	cr_file_chunk chunk = { "x", 1 };
	cr_error err = CR_ERROR_INIT;
	char p[256], want[600];
	struct sockaddr_un sa;
	int fd;

	(void)state;
	in_dir(p, sizeof(p), "sub");
	assert_int_equal(mkdir(p, 0700), 0);
	assert_int_equal(cr_file_write(p, &chunk, 1, &all_flags, NULL, &err), CR_ERR_IO);
	snprintf(want, sizeof(want), "%s: a directory; only a regular file, a FIFO or a character device can be written", p);
	assert_string_equal(err.message, want);
	assert_int_equal(cr_file_write_atomic(p, &chunk, 1, 0666, &err), CR_ERR_IO);
	snprintf(want, sizeof(want), "%s: a directory, not a regular file; not replaced", p);
	assert_string_equal(err.message, want);

	in_dir(p, sizeof(p), "sock");
	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	assert_true(strlen(p) < sizeof(sa.sun_path)); /* dir is /tmp/clefrun-file-XXXXXX */
	memcpy(sa.sun_path, p, strlen(p) + 1);
	fd = socket(AF_UNIX, SOCK_STREAM, 0);
	assert_true(fd >= 0);
	assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(cr_file_write(p, &chunk, 1, &all_flags, NULL, &err), CR_ERR_IO);
	snprintf(want, sizeof(want), "%s: a socket; only a regular file, a FIFO or a character device can be written", p);
	assert_string_equal(err.message, want);
	close(fd);
}

/* Write n bytes of a pattern to name; its path into p. */
static void put_bytes(char *p, size_t cap, const char *name, size_t n)
{
	FILE *f;

	in_dir(p, cap, name);
	f = fopen(p, "wb");
	assert_non_null(f);
	for (size_t i = 0; i < n; i++)
		assert_int_not_equal(fputc((int)('a' + i % 26), f), EOF);
	assert_int_equal(fclose(f), 0);
}

/* Sizes around the first buffer (16 KiB), the cap and twice the cap. */
static void test_read_sizes(void **state)
{
	static const struct {
		size_t bytes, max;
		int want_rc;
	} rows[] = {
		{ 0, 100, CR_OK },
		{ 1, 100, CR_OK },
		{ 100, 100, CR_OK },
		{ 101, 100, CR_OK },     /* over the cap: returned, the caller says how much */
		{ 199, 100, CR_OK },
		{ 200, 100, CR_ERR_INVALID }, /* twice the cap: refused */
		{ 5000, 100, CR_ERR_INVALID },
		{ 16383, 1u << 20, CR_OK },
		{ 16384, 1u << 20, CR_OK },
		{ 16385, 1u << 20, CR_OK },
		{ 70000, 1u << 20, CR_OK },
		{ 32768, 16384, CR_ERR_INVALID },
		{ 32767, 16384, CR_OK },
	};

	(void)state;
	for (size_t r = 0; r < sizeof(rows) / sizeof(rows[0]); r++) {
		cr_error err = CR_ERROR_INIT;
		char p[256], want[400], row[64];
		char *buf = (char *)1;
		size_t len = 7;
		bool missing = true;
		int rc;

		snprintf(row, sizeof(row), "%zu bytes, max %zu", rows[r].bytes, rows[r].max);
		put_bytes(p, sizeof(p), "f", rows[r].bytes);
		rc = cr_file_read(p, rows[r].max, &buf, &len, &missing, &err);
		if (rc != rows[r].want_rc)
			fail_msg("%s: rc %d, want %d (%s)", row, rc, rows[r].want_rc, err.message);
		assert_false(missing);
		if (rc == CR_OK) {
			assert_non_null(buf);
			assert_int_equal(len, rows[r].bytes);
			for (size_t i = 0; i < len; i++)
				if (buf[i] != (char)('a' + i % 26))
					fail_msg("%s: byte %zu differs", row, i);
			free(buf);
		} else {
			assert_null(buf);
			assert_int_equal(len, 0);
			snprintf(want, sizeof(want), "%s: file too large (more than %zu bytes)", p,
				 rows[r].max);
			assert_string_equal(err.message, want);
		}
	}
}

/* What is not a regular file, and a file that is not there. */
static void test_read_refused(void **state)
{
	cr_error err = CR_ERROR_INIT;
	char p[256], want[400];
	char *buf = NULL;
	size_t len = 0;
	bool missing = false;

	(void)state;
	in_dir(p, sizeof(p), "absent");
	assert_int_equal(cr_file_read(p, 100, &buf, &len, &missing, &err), CR_OK);
	assert_true(missing);
	assert_null(buf);
	assert_int_equal(cr_file_read(p, 100, &buf, &len, NULL, &err), CR_ERR_IO);
	snprintf(want, sizeof(want), "%s: No such file or directory", p);
	assert_string_equal(err.message, want);

	in_dir(p, sizeof(p), "sub");
	assert_int_equal(mkdir(p, 0700), 0);
	assert_int_equal(cr_file_read(p, 100, &buf, &len, &missing, &err), CR_ERR_IO);
	assert_false(missing);
	snprintf(want, sizeof(want), "%s: is a directory", p);
	assert_string_equal(err.message, want);

	in_dir(p, sizeof(p), "fifo");
	assert_int_equal(mkfifo(p, 0600), 0);
	assert_int_equal(cr_file_read(p, 100, &buf, &len, &missing, &err), CR_ERR_IO);
	snprintf(want, sizeof(want), "%s: not a regular file", p);
	assert_string_equal(err.message, want);

	assert_int_equal(cr_file_read("/dev/zero", 100, &buf, &len, &missing, &err), CR_ERR_IO);
	assert_string_equal(err.message, "/dev/zero: not a regular file");
	assert_null(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_writes_content_and_mode, setup, teardown),
		cmocka_unit_test_setup_teardown(test_missing_directory, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stale_temporaries, setup, teardown),
		cmocka_unit_test_setup_teardown(test_replace_keeps_mode, setup, teardown),
		cmocka_unit_test_setup_teardown(test_hard_links, setup, teardown),
		cmocka_unit_test_setup_teardown(test_symlinks, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fifo, setup, teardown),
		cmocka_unit_test_setup_teardown(test_char_device, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refused_kinds, setup, teardown),
		cmocka_unit_test_setup_teardown(test_read_sizes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_read_refused, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
