/*
 * main() of the harnesses when they are not built with libFuzzer: run
 * LLVMFuzzerTestOneInput once on every file named on the command line, and
 * on every regular file of every directory named (sorted, dot files
 * skipped). This is how ctest replays the corpora with gcc; a crash, a
 * sanitizer report (CLEFRUN_SANITIZE) or a failed FUZZ_CHECK fails the test.
 * Arguments that start with '-' are libFuzzer flags (ctest passes -runs=0
 * so that the same command line works with a libFuzzer build) and are
 * ignored. Exit status: 0 when at least one input ran; 1 when none did or a
 * path could not be read.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"

/* The largest input replayed: far above any corpus file. */
#define REPLAY_MAX (64u << 20)

static int replay_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	size_t len = 0, cap = 0;

	if (!f) {
		perror(path);
		return -1;
	}
	for (;;) {
		size_t got;

		if (len == cap) {
			uint8_t *nb;

			cap = cap ? cap * 2 : 4096;
			if (cap > REPLAY_MAX || !(nb = realloc(buf, cap))) {
				fprintf(stderr, "%s: too large or out of memory\n", path);
				free(buf);
				fclose(f);
				return -1;
			}
			buf = nb;
		}
		got = fread(buf + len, 1, cap - len, f);
		len += got;
		if (got == 0)
			break;
	}
	if (ferror(f)) {
		fprintf(stderr, "%s: read error\n", path);
		free(buf);
		fclose(f);
		return -1;
	}
	fclose(f);
	/* An exact-size copy, so that a read one past the end is caught by
	 * AddressSanitizer as it is under libFuzzer. */
	{
		uint8_t *exact = malloc(len ? len : 1);

		if (!exact) {
			free(buf);
			return -1;
		}
		if (len)
			memcpy(exact, buf, len);
		free(buf);
		LLVMFuzzerTestOneInput(exact, len);
		free(exact);
	}
	return 1;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int replay_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char **names = NULL;
	size_t n = 0, cap = 0;
	int total = 0;

	if (!d) {
		perror(dir);
		return -1;
	}
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		if (n == cap) {
			char **nn = realloc(names, (cap = cap ? cap * 2 : 64) * sizeof(*nn));

			if (!nn) {
				total = -1;
				break;
			}
			names = nn;
		}
		if (!(names[n] = strdup(de->d_name))) {
			total = -1;
			break;
		}
		n++;
	}
	closedir(d);
	if (names)
		qsort(names, n, sizeof(*names), cmp_names);
	for (size_t i = 0; i < n; i++) {
		char path[4096];
		struct stat st;

		if (total >= 0 && (size_t)snprintf(path, sizeof(path), "%s/%s", dir, names[i]) <
					  sizeof(path) &&
		    stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
			int r = replay_file(path);

			total = r < 0 ? -1 : total + r;
		}
		free(names[i]);
	}
	free(names);
	return total;
}

int main(int argc, char **argv)
{
	int total = 0;

	for (int i = 1; i < argc; i++) {
		struct stat st;
		int n;

		if (argv[i][0] == '-')
			continue;
		if (stat(argv[i], &st) != 0) {
			perror(argv[i]);
			return 1;
		}
		n = S_ISDIR(st.st_mode) ? replay_dir(argv[i]) : replay_file(argv[i]);
		if (n < 0)
			return 1;
		total += n;
	}
	printf("replayed %d input%s\n", total, total == 1 ? "" : "s");
	return total > 0 ? 0 : 1;
}
