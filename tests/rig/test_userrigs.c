/*
 * Saved rigs: the path rule, load and validation (messages name the path
 * and the JSON path), add / remove, the round trip through the file, the
 * catalog-shadowing rule, suggestions, and the atomic write under SIGKILL.
 * Every test works in its own temporary XDG_CONFIG_HOME.
 */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "clefrun/clefrun.h"
#include "support.h"

typedef struct fixture {
	char home[256];   /* the temporary XDG_CONFIG_HOME */
	char path[512];   /* its clefrun/rigs.json */
	cr_catalog *cat;
} fixture;

static int setup(void **state)
{
	fixture *f = calloc(1, sizeof(*f));
	cr_error err = CR_ERROR_INIT;

	if (!f)
		return -1;
	if (ts_tmpdir(f->home, sizeof(f->home), "userrigs") ||
	    setenv("XDG_CONFIG_HOME", f->home, 1) != 0)
		return -1;
	if (cr_userrigs_path(getenv("XDG_CONFIG_HOME"), getenv("HOME"), f->path, sizeof(f->path),
			     &err))
		return -1;
	if (cr_catalog_load_embedded(&f->cat, &err))
		return -1;
	*state = f;
	return 0;
}

/* Remove what clefrun may have left (rigs.json, temporaries) and the dirs. */
static int teardown(void **state)
{
	fixture *f = *state;
	int rc = ts_rm_tree(f->home);

	cr_catalog_free(f->cat);
	free(f);
	return rc;
}

static void spit(const char *path, const char *text)
{
	char dir[600];
	FILE *fp;

	snprintf(dir, sizeof(dir), "%s", path);
	*strrchr(dir, '/') = '\0';
	mkdir(dir, 0700);
	fp = fopen(path, "wb");
	assert_non_null(fp);
	assert_int_equal(fwrite(text, 1, strlen(text), fp), strlen(text));
	assert_int_equal(fclose(fp), 0);
}

static cr_rig figures(const char *id, double mem, double bw, unsigned devices, double ram)
{
	cr_rig_figures f = CR_RIG_FIGURES_INIT;
	cr_error err = CR_ERROR_INIT;
	cr_rig r;

	f.id = id;
	f.mem_gib = mem;
	f.bw_gbs = bw;
	f.devices = devices;
	f.tflops = 71;
	if (ram > 0) {
		f.ram_gib = ram;
		f.ram_bw_gbs = 89.6;
	}
	assert_int_equal(cr_userrigs_build(&f, &r, &err), CR_OK);
	return r;
}

static void test_path_rule(void **state)
{
	char buf[256];
	cr_error err = CR_ERROR_INIT;

	(void)state;
	assert_int_equal(cr_userrigs_path("/x/cfg", "/home/u", buf, sizeof(buf), &err), CR_OK);
	assert_string_equal(buf, "/x/cfg/clefrun/rigs.json");
	/* Empty or relative XDG_CONFIG_HOME is ignored (XDG spec). */
	assert_int_equal(cr_userrigs_path("", "/home/u", buf, sizeof(buf), &err), CR_OK);
	assert_string_equal(buf, "/home/u/.config/clefrun/rigs.json");
	assert_int_equal(cr_userrigs_path("rel/dir", "/home/u", buf, sizeof(buf), &err), CR_OK);
	assert_string_equal(buf, "/home/u/.config/clefrun/rigs.json");
	assert_int_equal(cr_userrigs_path(NULL, NULL, buf, sizeof(buf), &err), CR_ERR_INVALID);
	assert_int_equal(cr_userrigs_path("/x", NULL, buf, 8, &err), CR_ERR_INVALID);
}

static void test_missing_file_is_empty(void **state)
{
	fixture *f = *state;
	cr_user_rigs *set = NULL;
	bool exists = true;

	assert_int_equal(cr_userrigs_load(f->path, f->cat, &set, &exists, NULL), CR_OK);
	assert_false(exists);
	assert_int_equal(cr_userrigs_count(set), 0);
	assert_null(cr_userrigs_at(set, 0));
	assert_null(cr_userrigs_find(set, "x"));
	cr_userrigs_free(set);
	cr_userrigs_free(NULL);
}

static void test_add_save_load_round_trip(void **state)
{
	fixture *f = *state;
	cr_user_rigs *set = NULL, *back = NULL;
	cr_rig a = figures("box", 24, 936, 2, 128), b = figures("laptop", 16, 448, 1, 0);
	cr_error err = CR_ERROR_INIT;
	char *text1, *text2;
	bool exists = false;
	const cr_rig *r;

	assert_int_equal(cr_userrigs_new(&set, &err), CR_OK);
	assert_int_equal(cr_userrigs_add(set, &a, f->cat, false, &err), CR_OK);
	assert_int_equal(cr_userrigs_add(set, &b, f->cat, false, &err), CR_OK);
	assert_int_equal(cr_userrigs_save(set, f->path, &err), CR_OK);
	assert_int_equal(cr_userrigs_load(f->path, f->cat, &back, &exists, &err), CR_OK);
	assert_true(exists);
	assert_int_equal(cr_userrigs_count(back), 2);
	r = cr_userrigs_find(back, "BOX"); /* case-insensitive like catalog ids */
	assert_non_null(r);
	assert_int_equal(r->n_devices, 2);
	assert_int_equal(r->devices[0].count, 2);
	assert_true(r->devices[0].memory_gib == 24);
	assert_true(r->devices[0].bandwidth_gbs == 936);
	assert_int_equal(r->devices[1].kind, CR_MEM_SYSTEM);
	assert_int_equal(r->devices[1].backend, CR_BACKEND_CPU);
	assert_true(r->devices[1].memory_gib == 128);
	assert_false(r->reference);
	/* Byte-stable: what loads serializes to the same text. */
	text1 = ts_slurp(f->path, NULL);
	assert_int_equal(cr_userrigs_serialize(back, &text2, NULL, &err), CR_OK);
	assert_string_equal(text1, text2);
	assert_non_null(strstr(text1, "\"schema\":\t\"clefrun.user-rigs/1\""));
	free(text1);
	free(text2);
	/* A saved rig is a valid estimator rig: 70B at Q8_0 (70 GiB) spills
	 * from the two 24 GiB cards into the RAM group. */
	{
		cr_estimate e;
		cr_estimate_opts o = CR_ESTIMATE_OPTS_INIT;

		assert_int_equal(cr_estimate_run(cr_catalog_find_model(f->cat, "llama-3.1-70b"),
						 cr_catalog_find_quant(f->cat, "Q8_0"), r, &o, &e,
						 &err), CR_OK);
		assert_true(e.offload_fraction > 0);
		assert_true(e.fits);
	}
	/* Remove, save, reload. */
	assert_int_equal(cr_userrigs_remove(back, "box", &err), CR_OK);
	assert_int_equal(cr_userrigs_remove(back, "box", &err), CR_ERR_NOTFOUND);
	assert_int_equal(cr_userrigs_save(back, f->path, &err), CR_OK);
	cr_userrigs_free(set);
	set = NULL;
	assert_int_equal(cr_userrigs_load(f->path, f->cat, &set, NULL, &err), CR_OK);
	assert_int_equal(cr_userrigs_count(set), 1);
	assert_string_equal(cr_userrigs_at(set, 0)->id, "laptop");
	/* Remove the last one: an empty list is a valid file. */
	assert_int_equal(cr_userrigs_remove(set, "laptop", &err), CR_OK);
	assert_int_equal(cr_userrigs_save(set, f->path, &err), CR_OK);
	cr_userrigs_free(back);
	back = NULL;
	assert_int_equal(cr_userrigs_load(f->path, f->cat, &back, NULL, &err), CR_OK);
	assert_int_equal(cr_userrigs_count(back), 0);
	cr_userrigs_free(set);
	cr_userrigs_free(back);
}

static void test_names(void **state)
{
	fixture *f = *state;
	cr_user_rigs *set = NULL;
	cr_rig r = figures("box", 24, 936, 1, 0);
	cr_error err = CR_ERROR_INIT;

	assert_int_equal(cr_userrigs_new(&set, &err), CR_OK);
	assert_int_equal(cr_userrigs_add(set, &r, f->cat, false, &err), CR_OK);
	/* Same name again: refused unless replacing. */
	r.devices[0].bandwidth_gbs = 1000;
	assert_int_equal(cr_userrigs_add(set, &r, f->cat, false, &err), CR_ERR_INVALID);
	assert_non_null(strstr(err.message, "already saved"));
	assert_int_equal(cr_userrigs_add(set, &r, f->cat, true, &err), CR_OK);
	assert_int_equal(cr_userrigs_count(set), 1);
	assert_true(cr_userrigs_find(set, "box")->devices[0].bandwidth_gbs == 1000);
	/* A catalog rig id may not be shadowed; the message offers a free name. */
	assert_int_equal(cr_userrigs_check_id(set, "rtx4090", f->cat, &err), CR_ERR_INVALID);
	assert_non_null(strstr(err.message, "catalog rig id"));
	assert_non_null(strstr(err.message, "\"my-rtx4090\""));
	snprintf(r.id, sizeof(r.id), "rtx4090");
	assert_int_equal(cr_userrigs_add(set, &r, f->cat, true, &err), CR_ERR_INVALID);
	/* Reserved, malformed, upper case. */
	assert_int_equal(cr_userrigs_check_id(set, "local", f->cat, &err), CR_ERR_INVALID);
	assert_non_null(strstr(err.message, "reserved"));
	assert_int_equal(cr_userrigs_check_id(set, "My-Box", f->cat, &err), CR_ERR_INVALID);
	assert_non_null(strstr(err.message, "\"my-box\""));
	assert_int_equal(cr_userrigs_check_id(set, "a b", f->cat, &err), CR_ERR_INVALID);
	assert_int_equal(cr_userrigs_check_id(set, "-x", f->cat, &err), CR_ERR_INVALID);
	assert_int_equal(cr_userrigs_check_id(set, "", f->cat, &err), CR_ERR_INVALID);
	assert_int_equal(cr_userrigs_check_id(set, "x.y+z_1-2", f->cat, &err), CR_OK);
	/* Without a catalog only syntax and "local" are checked. */
	assert_int_equal(cr_userrigs_check_id(NULL, "rtx4090", NULL, &err), CR_OK);
	cr_userrigs_free(set);
}

static void test_build_rules(void **state)
{
	cr_rig_figures f = CR_RIG_FIGURES_INIT;
	cr_error err = CR_ERROR_INIT;
	cr_rig r;

	(void)state;
	f.id = "x";
	assert_int_equal(cr_userrigs_build(&f, &r, &err), CR_ERR_INVALID); /* no mem */
	assert_non_null(strstr(err.message, "mem_gb"));
	f.mem_gib = 64;
	assert_int_equal(cr_userrigs_build(&f, &r, &err), CR_ERR_INVALID); /* no bw */
	assert_non_null(strstr(err.message, "bw_gbs"));
	f.bw_gbs = 120;
	f.backend = CR_BACKEND_CPU;
	f.backend_set = true;
	assert_int_equal(cr_userrigs_build(&f, &r, &err), CR_OK);
	assert_int_equal(r.devices[0].kind, CR_MEM_SYSTEM);
	f.backend = CR_BACKEND_METAL;
	assert_int_equal(cr_userrigs_build(&f, &r, &err), CR_OK);
	assert_int_equal(r.devices[0].kind, CR_MEM_UNIFIED);
	assert_true(r.devices[0].usable_fraction == 0.75); /* macOS above 36 GiB */
	/* usable_gb: the machine's own limit, kept as a fraction; never above the memory. */
	f.usable_gib = 60;
	assert_int_equal(cr_userrigs_build(&f, &r, &err), CR_OK);
	assert_true(r.devices[0].usable_fraction == 60.0 / 64.0);
	f.usable_gib = 65;
	assert_int_equal(cr_userrigs_build(&f, &r, &err), CR_ERR_INVALID);
	assert_non_null(strstr(err.message, "usable_gb"));
	f.usable_gib = 0;
	f.mem_gib = 32;
	assert_int_equal(cr_userrigs_build(&f, &r, &err), CR_OK);
	assert_true(r.devices[0].usable_fraction == 2.0 / 3.0); /* macOS up to 36 GiB */
	f.mem_gib = 64;
	f.backend = CR_BACKEND_CUDA;
	f.kind = CR_MEM_SYSTEM;
	f.kind_set = true;
	assert_int_equal(cr_userrigs_build(&f, &r, &err), CR_ERR_INVALID);
	f.kind_set = false;
	f.ram_gib = 64;
	assert_int_equal(cr_userrigs_build(&f, &r, &err), CR_ERR_INVALID); /* ram without bw */
	assert_non_null(strstr(err.message, "ram_bw_gbs"));
	f.ram_bw_gbs = 51.2;
	assert_int_equal(cr_userrigs_build(&f, &r, &err), CR_OK);
	assert_int_equal(r.n_devices, 2);
	f.backend = CR_BACKEND_CPU; /* RAM beside RAM */
	assert_int_equal(cr_userrigs_build(&f, &r, &err), CR_ERR_INVALID);
	f.backend = CR_BACKEND_CUDA;
	f.devices = 65;
	assert_int_equal(cr_userrigs_build(&f, &r, &err), CR_ERR_INVALID);
	assert_non_null(strstr(err.message, "devices"));
}

/* Table of broken files: each is reported with the path and JSON path, and
 * loading leaves the bytes as they were. */
static void test_validation(void **state)
{
	static const struct {
		const char *text, *where;
	} cases[] = {
		{ "{", "invalid JSON at byte" },
		{ "[]", "expected a JSON object" },
		{ "{\"schema\":\"clefrun.rigs/1\",\"rigs\":[]}", "schema: expected \"clefrun.user-rigs/1\"" },
		{ "{\"schema\":\"clefrun.user-rigs/1\"}", "rigs: missing field" },
		{ "{\"schema\":\"clefrun.user-rigs/1\",\"rigs\":[],\"x\":1}", "x: unknown field" },
		{ "{\"schema\":\"clefrun.user-rigs/1\",\"rigs\":[{\"id\":\"a\"}]}", "rigs[0].name: missing field" },
		{ "{\"schema\":\"clefrun.user-rigs/1\",\"rigs\":[{\"id\":\"a\",\"name\":\"A\",\"reference\":false,"
		  "\"status\":\"released\",\"sources\":[\"s\"],\"devices\":[{\"name\":\"g\",\"count\":1,"
		  "\"memory_gib\":8,\"bandwidth_gbs\":-3,\"fp16_tflops\":0,\"backend\":\"cuda\",\"kind\":\"discrete\"}]}]}",
		  "rigs[0].devices[0].bandwidth_gbs: expected a positive number" },
		{ "{\"schema\":\"clefrun.user-rigs/1\",\"rigs\":[{\"id\":\"a\",\"name\":\"A\",\"reference\":true,"
		  "\"status\":\"released\",\"sources\":[\"s\"],\"devices\":[{\"name\":\"g\",\"count\":1,"
		  "\"memory_gib\":8,\"bandwidth_gbs\":3,\"fp16_tflops\":0,\"backend\":\"cuda\",\"kind\":\"discrete\"}]}]}",
		  "rigs[0].reference: a saved rig cannot be a reference rig" },
		{ "{\"schema\":\"clefrun.user-rigs/1\",\"rigs\":[{\"id\":\"rtx4090\",\"name\":\"A\",\"reference\":false,"
		  "\"status\":\"released\",\"sources\":[\"s\"],\"devices\":[{\"name\":\"g\",\"count\":1,"
		  "\"memory_gib\":8,\"bandwidth_gbs\":3,\"fp16_tflops\":0,\"backend\":\"cuda\",\"kind\":\"discrete\"}]}]}",
		  "rigs[0].id: \"rtx4090\" is a catalog rig id" },
		{ "{\"schema\":\"clefrun.user-rigs/1\",\"rigs\":[{\"id\":\"a\",\"name\":\"A\",\"reference\":false,"
		  "\"status\":\"released\",\"sources\":[\"s\"],\"devices\":[{\"name\":\"g\",\"count\":1,"
		  "\"memory_gib\":8,\"bandwidth_gbs\":3,\"fp16_tflops\":0,\"backend\":\"cuda\",\"kind\":\"discrete\"}]},"
		  "{\"id\":\"A\",\"name\":\"A\",\"reference\":false,"
		  "\"status\":\"released\",\"sources\":[\"s\"],\"devices\":[{\"name\":\"g\",\"count\":1,"
		  "\"memory_gib\":8,\"bandwidth_gbs\":3,\"fp16_tflops\":0,\"backend\":\"cuda\",\"kind\":\"discrete\"}]}]}",
		  "rigs[1].id" },
	};
	fixture *f = *state;

	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		static char sentinel;
		cr_user_rigs *set = (cr_user_rigs *)(void *)&sentinel; /* must be reset to NULL */
		cr_error err = CR_ERROR_INIT;
		char *after;
		int rc;

		spit(f->path, cases[i].text);
		rc = cr_userrigs_load(f->path, f->cat, &set, NULL, &err);
		assert_true(rc == CR_ERR_PARSE || rc == CR_ERR_INVALID);
		assert_int_equal(err.status, rc);
		assert_null(set);
		/* The message starts with the path and names the place. */
		assert_int_equal(strncmp(err.message, f->path, strlen(f->path)), 0);
		if (!strstr(err.message, cases[i].where))
			fail_msg("case %zu: \"%s\" lacks \"%s\"", i, err.message, cases[i].where);
		after = ts_slurp(f->path, NULL);
		assert_string_equal(after, cases[i].text);
		free(after);
	}
	/* A hand-edited id that a --catalog override owns is only an error when
	 * that catalog is given. */
	{
		cr_user_rigs *set = NULL;

		assert_int_equal(cr_userrigs_load(f->path, NULL, &set, NULL, NULL), CR_ERR_INVALID);
		spit(f->path, cases[8].text);
		assert_int_equal(cr_userrigs_load(f->path, NULL, &set, NULL, NULL), CR_OK);
		cr_userrigs_free(set);
	}
}

static void test_suggest(void **state)
{
	fixture *f = *state;
	cr_user_rigs *set = NULL;
	cr_rig a = figures("my-workstation", 24, 936, 2, 0);
	const char *s[4];
	size_t n;

	assert_int_equal(cr_userrigs_new(&set, NULL), CR_OK);
	assert_int_equal(cr_userrigs_add(set, &a, f->cat, false, NULL), CR_OK);
	n = cr_userrigs_suggest(set, f->cat, "my-workstaton", s, 4);
	assert_true(n >= 1);
	assert_string_equal(s[0], "my-workstation");
	n = cr_userrigs_suggest(set, f->cat, "rtx409", s, 4);
	assert_true(n >= 1);
	assert_string_equal(s[0], "rtx4090");
	n = cr_userrigs_suggest(NULL, NULL, "x", s, 4);
	assert_int_equal(n, 0);
	cr_userrigs_free(set);
}

/* Save through a symbolic link to an existing file: the link stays, its
 * target changes. */
static void test_save_through_symlink(void **state)
{
	fixture *f = *state;
	char target[600], dir[600];
	cr_user_rigs *set = NULL;
	cr_rig a = figures("box", 24, 936, 1, 0);
	struct stat st;

	snprintf(dir, sizeof(dir), "%s/clefrun", f->home);
	mkdir(dir, 0700);
	snprintf(target, sizeof(target), "%s/clefrun/real.json", f->home);
	spit(target, "{\"schema\":\"clefrun.user-rigs/1\",\"rigs\":[]}");
	assert_int_equal(symlink("real.json", f->path), 0);
	assert_int_equal(cr_userrigs_new(&set, NULL), CR_OK);
	assert_int_equal(cr_userrigs_add(set, &a, f->cat, false, NULL), CR_OK);
	assert_int_equal(cr_userrigs_save(set, f->path, NULL), CR_OK);
	assert_int_equal(lstat(f->path, &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	assert_int_equal(stat(target, &st), 0);
	assert_true(S_ISREG(st.st_mode));
	cr_userrigs_free(set);
	set = NULL;
	assert_int_equal(cr_userrigs_load(target, f->cat, &set, NULL, NULL), CR_OK);
	assert_int_equal(cr_userrigs_count(set), 1);
	cr_userrigs_free(set);
	unlink(target);
}

/* A link to a file that does not exist is refused by save and lock, and
 * neither creates the link's target or the directories above it. */
static void test_dangling_symlink_refused(void **state)
{
	fixture *f = *state;
	char target[700], dir[600], missing_dir[600];
	cr_user_rigs *set = NULL;
	cr_user_rigs_lock *lock = NULL;
	cr_rig a = figures("box", 24, 936, 1, 0);
	cr_error err = CR_ERROR_INIT;
	struct stat st;

	snprintf(dir, sizeof(dir), "%s/clefrun", f->home);
	mkdir(dir, 0700);
	snprintf(missing_dir, sizeof(missing_dir), "%s/nowhere", f->home);
	snprintf(target, sizeof(target), "%s/deeper/real.json", missing_dir);
	assert_int_equal(symlink(target, f->path), 0);
	assert_int_equal(cr_userrigs_new(&set, NULL), CR_OK);
	assert_int_equal(cr_userrigs_add(set, &a, f->cat, false, NULL), CR_OK);
	assert_int_equal(cr_userrigs_save(set, f->path, &err), CR_ERR_IO);
	assert_non_null(strstr(err.message, "a symbolic link to"));
	assert_non_null(strstr(err.message, target));
	assert_int_equal(cr_userrigs_lock(f->path, &lock, &err), CR_ERR_IO);
	assert_null(lock);
	assert_non_null(strstr(err.message, target));
	assert_int_not_equal(stat(missing_dir, &st), 0);
	cr_userrigs_unlock(NULL);
	cr_userrigs_free(set);
	unlink(f->path);
}

static unsigned long lcg(unsigned long *s)
{
	*s = *s * 6364136223846793005ul + 1442695040888963407ul;
	return *s >> 33;
}

/* A child saves two different sets in a loop and is SIGKILLed at random
 * moments; after every kill the file must be exactly one of the two texts.
 * A leftover temporary file is allowed (the kill can land between mkstemp
 * and rename), a torn rigs.json is not. */
static void test_atomic_write_under_kill(void **state)
{
	fixture *f = *state;
	cr_user_rigs *a = NULL, *b = NULL;
	cr_rig r1 = figures("alpha", 24, 936, 1, 0), r2 = figures("beta", 80, 3350, 4, 512);
	char *ta, *tb;
	const unsigned long seed0 = (unsigned long)time(NULL) ^ (unsigned long)getpid();
	unsigned long seed = seed0;
	unsigned seen_a = 0, seen_b = 0;
	const unsigned rounds = 60;
	long save_us;

	assert_int_equal(cr_userrigs_new(&a, NULL), CR_OK);
	assert_int_equal(cr_userrigs_new(&b, NULL), CR_OK);
	assert_int_equal(cr_userrigs_add(a, &r1, f->cat, false, NULL), CR_OK);
	assert_int_equal(cr_userrigs_add(b, &r1, f->cat, false, NULL), CR_OK);
	assert_int_equal(cr_userrigs_add(b, &r2, f->cat, false, NULL), CR_OK);
	assert_int_equal(cr_userrigs_serialize(a, &ta, NULL, NULL), CR_OK);
	assert_int_equal(cr_userrigs_serialize(b, &tb, NULL, NULL), CR_OK);
	/* Kill within about three saves' time, so that rounds land before,
	 * during and after writes whatever the disk's fsync costs. */
	{
		struct timespec t0, t1;

		clock_gettime(CLOCK_MONOTONIC, &t0);
		assert_int_equal(cr_userrigs_save(a, f->path, NULL), CR_OK);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		save_us = (long)(t1.tv_sec - t0.tv_sec) * 1000000L + (t1.tv_nsec - t0.tv_nsec) / 1000;
	}
	print_message("atomic write: seed %lu, %u rounds, one save %ld us\n", seed0, rounds, save_us);

	for (unsigned round = 0; round < rounds; round++) {
		long us = (long)(lcg(&seed) % (unsigned long)(3 * save_us + 2000));
		struct timespec nap = { us / 1000000L, (us % 1000000L) * 1000L };
		int status;
		char *now;
		cr_user_rigs *back = NULL;
		cr_error err = CR_ERROR_INIT;
		pid_t pid = fork();

		assert_true(pid >= 0);
		if (pid == 0) {
			/* Alternate B, A, B, ... so that every completed save changes the file. */
			for (unsigned long i = 0;; i++)
				if (cr_userrigs_save(i % 2 ? a : b, f->path, NULL))
					_exit(1);
		}
		nanosleep(&nap, NULL);
		kill(pid, SIGKILL);
		assert_int_equal(waitpid(pid, &status, 0), pid);
		/* Killed by us, not failed on its own. */
		assert_true(WIFSIGNALED(status));
		now = ts_slurp(f->path, NULL);
		assert_non_null(now);
		if (!strcmp(now, ta)) {
			seen_a++;
		} else if (!strcmp(now, tb)) {
			seen_b++;
		} else {
			fail_msg("round %u (seed %lu): rigs.json is neither the old nor the new text:\n%s",
				 round, seed0, now);
		}
		assert_int_equal(cr_userrigs_load(f->path, f->cat, &back, NULL, &err), CR_OK);
		cr_userrigs_free(back);
		free(now);
	}
	/* The child must have completed saves, else nothing was tested. */
	assert_true(seen_b > 0);
	print_message("atomic write: %u rounds ended on the first set, %u on the second\n", seen_a,
		      seen_b);
	free(ta);
	free(tb);
	cr_userrigs_free(a);
	cr_userrigs_free(b);
}

/* A save into a directory that cannot be written fails cleanly and leaves
 * the old file alone. */
static void test_save_failure_leaves_file(void **state)
{
	fixture *f = *state;
	cr_user_rigs *a = NULL;
	cr_rig r1 = figures("alpha", 24, 936, 1, 0);
	char dir[600], *before, *after;
	cr_error err = CR_ERROR_INIT;

	assert_int_equal(cr_userrigs_new(&a, NULL), CR_OK);
	assert_int_equal(cr_userrigs_add(a, &r1, f->cat, false, NULL), CR_OK);
	assert_int_equal(cr_userrigs_save(a, f->path, &err), CR_OK);
	before = ts_slurp(f->path, NULL);
	/* A parent that is a regular file: mkdir fails for anyone, root included
	 * (a read-only directory would not stop root). */
	snprintf(dir, sizeof(dir), "%s/sub/rigs.json", f->path);
	assert_int_equal(cr_userrigs_save(a, dir, &err), CR_ERR_IO);
	assert_non_null(strstr(err.message, f->path));
	after = ts_slurp(f->path, NULL);
	assert_string_equal(before, after);
	free(before);
	free(after);
	cr_userrigs_free(a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_path_rule),
		cmocka_unit_test_setup_teardown(test_missing_file_is_empty, setup, teardown),
		cmocka_unit_test_setup_teardown(test_add_save_load_round_trip, setup, teardown),
		cmocka_unit_test_setup_teardown(test_names, setup, teardown),
		cmocka_unit_test(test_build_rules),
		cmocka_unit_test_setup_teardown(test_validation, setup, teardown),
		cmocka_unit_test_setup_teardown(test_suggest, setup, teardown),
		cmocka_unit_test_setup_teardown(test_save_through_symlink, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dangling_symlink_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_atomic_write_under_kill, setup, teardown),
		cmocka_unit_test_setup_teardown(test_save_failure_leaves_file, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
