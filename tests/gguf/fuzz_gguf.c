/*
 * libFuzzer harness for the untrusted parsers of issue 3: GGUF headers (and
 * their mapping into a cr_model) and Hugging Face tree listings. Built with
 * -DCLEFRUN_LIBFUZZER and -fsanitize=fuzzer it is a fuzz target:
 *
 *   clang -DCLEFRUN_LIBFUZZER -DFUZZ_HF_TREE=0 -fsanitize=fuzzer,address,undefined
 *     -Iinclude -Isrc/lib tests/gguf/fuzz_gguf.c src/lib/(all .c) build/embedded_catalog.c
 *     -lcjson -lcurl -lm
 *
 * Without it, main() replays every file of the directories it is given (the
 * seed corpus and the fixtures) under ctest with the normal compiler.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clefrun/clefrun.h"

#ifndef FUZZ_HF_TREE
#define FUZZ_HF_TREE 0
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	cr_error err = { 0, "" };

	if (FUZZ_HF_TREE) {
		cr_hf_entry *e = NULL;
		size_t n = 0;

		if (cr_hf_parse_tree((const char *)data, size, "fuzz", &e, &n, &err) == 0)
			free(e);
	} else {
		cr_source *s = NULL;
		cr_gguf *g = NULL;
		cr_gguf_opts o = CR_GGUF_OPTS_INIT;

		o.allow_truncated = size & 1; /* both policies, chosen by the input */
		o.first_read = 4096;          /* exercise the growing buffer */
		if (cr_source_open_memory(data, size, "fuzz", false, &s, &err) == 0 &&
		    cr_gguf_load(s, &o, &g, &err) == 0) {
			cr_gguf_model *gm = malloc(sizeof(*gm));
			const cr_gguf *parts[1] = { g };
			char buf[256];

			if (gm && cr_gguf_to_model(parts, 1, gm, &err) == 0) {
				cr_estimate_opts eo = CR_ESTIMATE_OPTS_INIT;

				(void)cr_estimate_kv_bytes(&gm->model, &eo);
				(void)cr_estimate_state_bytes(&gm->model, &eo);
			}
			for (size_t i = 0; i < cr_gguf_kv_count(g); i++)
				cr_gguf_kv_format(g, i, buf, sizeof(buf));
			free(gm);
			cr_gguf_free(g);
		}
		cr_source_free(s);
	}
	return 0;
}

#ifndef CLEFRUN_LIBFUZZER
static int replay_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int n = 0;

	if (!d) {
		fprintf(stderr, "%s: cannot open\n", dir);
		return -1;
	}
	while ((de = readdir(d))) {
		char path[1024];
		FILE *f;
		long len;
		uint8_t *buf;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (!(f = fopen(path, "rb")))
			continue;
		if (fseek(f, 0, SEEK_END) || (len = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) ||
		    !(buf = malloc((size_t)len + 1))) {
			fclose(f);
			continue;
		}
		if (fread(buf, 1, (size_t)len, f) == (size_t)len) {
			LLVMFuzzerTestOneInput(buf, (size_t)len);
			n++;
		}
		free(buf);
		fclose(f);
	}
	closedir(d);
	return n;
}

int main(int argc, char **argv)
{
	int total = 0;

	for (int i = 1; i < argc; i++) {
		int n = replay_dir(argv[i]);

		if (n < 0)
			return 1;
		total += n;
	}
	printf("replayed %d inputs\n", total);
	return total > 0 ? 0 : 1;
}
#endif
