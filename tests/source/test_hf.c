/* Hugging Face names: hf: sources, URLs, quants in file names, the tree
 * listing, the token file. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "clefrun/clefrun.h"

static void test_parse(void **state)
{
	cr_hf_ref r;
	cr_error err = CR_ERROR_INIT;

	(void)state;
	assert_int_equal(cr_hf_parse("hf:unsloth/Qwen3.5-9B-GGUF", &r, &err), 0);
	assert_int_equal(r.kind, CR_HF_REPO);
	assert_string_equal(r.repo, "unsloth/Qwen3.5-9B-GGUF");
	assert_int_equal(cr_hf_parse("hf:unsloth/Qwen3.5-9B-GGUF:Q4_K_M", &r, &err), 0);
	assert_int_equal(r.kind, CR_HF_QUANT);
	assert_string_equal(r.quant, "Q4_K_M");
	assert_int_equal(cr_hf_parse("hf:o/r/sub/dir/M-Q8_0.gguf", &r, &err), 0);
	assert_int_equal(r.kind, CR_HF_FILE);
	assert_string_equal(r.repo, "o/r");
	assert_string_equal(r.path, "sub/dir/M-Q8_0.gguf");

	assert_int_equal(cr_hf_parse("hf:o", &r, &err), CR_ERR_PARSE);
	assert_string_equal(err.message, "hf:o: expected hf:OWNER/REPO[/PATH.gguf | :QUANT] (OWNER: letters, digits, . _ -)");
	assert_int_equal(cr_hf_parse("hf:o/", &r, &err), CR_ERR_PARSE);
	assert_string_equal(err.message, "hf:o/: expected hf:OWNER/REPO[/PATH.gguf | :QUANT] (REPO: letters, digits, . _ -)");
	assert_int_equal(cr_hf_parse("hf:o/r/x.bin", &r, &err), CR_ERR_PARSE);
	assert_string_equal(err.message, "hf:o/r/x.bin: the path must name a .gguf file");
	assert_int_equal(cr_hf_parse("hf:o/r/../x.gguf", &r, &err), CR_ERR_PARSE);
	assert_string_equal(err.message, "hf:o/r/../x.gguf: empty, '.' or '..' path segment");
	assert_int_equal(cr_hf_parse("hf:o/r/a//x.gguf", &r, &err), CR_ERR_PARSE);
	assert_int_equal(cr_hf_parse("hf:o/r/x?.gguf", &r, &err), CR_ERR_PARSE);
	assert_string_equal(err.message, "hf:o/r/x?.gguf: unexpected byte 0x3f in the path");
	assert_int_equal(cr_hf_parse("hf:o/r:", &r, &err), CR_ERR_PARSE);
	assert_string_equal(err.message, "hf:o/r:: expected a quant name after ':' (Q4_K_M)");
	assert_int_equal(cr_hf_parse("hf:o/r:Q4-K", &r, &err), CR_ERR_PARSE);
	assert_int_equal(cr_hf_parse("hf:-o/r", &r, &err), CR_ERR_PARSE);
	assert_int_equal(cr_hf_parse("hf:o/r x", &r, &err), CR_ERR_PARSE);
	assert_string_equal(err.message, "hf:o/r x: unexpected ' ' after the repository name");
}

static void test_urls(void **state)
{
	char buf[256];
	cr_error err = CR_ERROR_INIT;

	(void)state;
	assert_int_equal(cr_hf_file_url("https://huggingface.co/", "o/r", "main", "d/M Q4.gguf", buf,
					sizeof(buf), &err), 0);
	assert_string_equal(buf, "https://huggingface.co/o/r/resolve/main/d/M%20Q4.gguf");
	assert_int_equal(cr_hf_file_url("http://127.0.0.1:8080", "o/r", "refs/pr/1", "x.gguf", buf,
					sizeof(buf), &err), 0);
	assert_string_equal(buf, "http://127.0.0.1:8080/o/r/resolve/refs%2Fpr%2F1/x.gguf");
	assert_int_equal(cr_hf_tree_url("https://hf-mirror.com", "o/r", NULL, buf, sizeof(buf), &err), 0);
	assert_string_equal(buf, "https://hf-mirror.com/api/models/o/r/tree/main?recursive=true");
	assert_int_equal(cr_hf_tree_url("ftp://x", "o/r", NULL, buf, sizeof(buf), &err), CR_ERR_INVALID);
	assert_string_equal(err.message, "HF_ENDPOINT ftp://x: expected an http:// or https:// URL");
	assert_int_equal(cr_hf_file_url("https://huggingface.co", "o/r", "main", "x.gguf", buf, 30, &err),
			 CR_ERR_RANGE);
}

static void test_guess_quant(void **state)
{
	static const struct {
		const char *name, *quant;
	} cases[] = {
		{ "Qwen3.5-9B-Q4_K_M.gguf", "Q4_K_M" },
		{ "Qwen3.5-9B-UD-Q4_K_XL.gguf", "Q4_K_XL" },
		{ "gemma-3-4b-it-q4_0.gguf", "Q4_0" },
		{ "Llama-3.1-8B-Instruct-IQ2_XXS.gguf", "IQ2_XXS" },
		{ "BF16/DeepSeek-V3-BF16-00001-of-00030.gguf", "BF16" },
		{ "model-f16.gguf", "F16" },
		{ "gpt-oss-20b-MXFP4.gguf", "MXFP4" },
		{ "x-TQ1_0.gguf", "TQ1_0" },
		{ "Qwen3-8B.gguf", "" },
		{ "mmproj-F16.gguf", "F16" },
	};
	char q[32];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		bool found = cr_hf_guess_quant(cases[i].name, q, sizeof(q));

		assert_int_equal(found, cases[i].quant[0] != '\0');
		assert_string_equal(q, cases[i].quant);
	}
}

static void test_tree(void **state)
{
	static const char json[] =
		"[{\"type\":\"file\",\"path\":\"README.md\",\"size\":10},"
		"{\"type\":\"directory\",\"path\":\"BF16\",\"size\":0},"
		"{\"type\":\"file\",\"path\":\"BF16/M-BF16-00002-of-00002.gguf\",\"size\":5,\"lfs\":{\"size\":500}},"
		"{\"type\":\"file\",\"path\":\"BF16/M-BF16-00001-of-00002.gguf\",\"size\":4,\"lfs\":{\"size\":400}},"
		"{\"type\":\"file\",\"path\":\"M-Q4_K_M.gguf\",\"size\":7,\"lfs\":{\"size\":700}},"
		"{\"type\":\"file\",\"path\":\"mmproj-Q4_K_M.gguf\",\"size\":3},"
		"{\"type\":\"file\",\"path\":\"../evil.gguf\",\"size\":3}]";
	cr_hf_entry *e;
	size_t n, idx;
	cr_error err = CR_ERROR_INIT;

	(void)state;
	assert_int_equal(cr_hf_parse_tree(json, strlen(json), "t", &e, &n, &err), 0);
	/* Part 2 is listed before part 1: still one entry of both parts. */
	assert_int_equal(n, 3);
	assert_string_equal(e[0].path, "BF16/M-BF16-00001-of-00002.gguf");
	assert_int_equal(e[0].size, 900);
	assert_int_equal(e[0].parts, 2);
	assert_int_equal(e[0].split_count, 2);
	assert_string_equal(e[0].quant, "BF16");
	assert_string_equal(e[1].quant, "Q4_K_M");
	assert_int_equal(e[1].size, 700);
	assert_true(e[2].projector);
	assert_int_equal(cr_hf_pick_quant(e, n, "q4_k_m", &idx), 0);
	assert_int_equal(idx, 1);
	assert_int_equal(cr_hf_pick_quant(e, n, "Q8_0", &idx), CR_ERR_NOTFOUND);
	free(e);

	assert_int_equal(cr_hf_parse_tree("{\"error\":1}", 11, "t", &e, &n, &err), CR_ERR_PARSE);
	assert_string_equal(err.message, "t: expected a JSON array of files");
	assert_int_equal(cr_hf_parse_tree("[{\"path\":", 9, "t", &e, &n, &err), CR_ERR_PARSE);
	assert_string_equal(err.message, "t: invalid JSON at byte 8");
	assert_int_equal(cr_hf_parse_tree("[{\"type\":\"file\",\"path\":2}]", 26, "t", &e, &n, &err),
			 CR_ERR_PARSE);
	assert_string_equal(err.message, "t: [0].path: expected a string");
	{
		static const char neg[] = "[{\"type\":\"file\",\"path\":\"a.gguf\",\"size\":-1}]";

		assert_int_equal(cr_hf_parse_tree(neg, strlen(neg), "t", &e, &n, &err), CR_ERR_PARSE);
	}
	assert_string_equal(err.message, "t: a.gguf: expected a file size");
}

/* A listing that names a file (or a split part) more than once lists it
 * once and counts its size once; a directory of the same name (first
 * here) hides nothing. */
static void test_tree_duplicates(void **state)
{
	static const char json[] =
		"[{\"type\":\"directory\",\"path\":\"M-Q4_K_M.gguf\",\"size\":0},"
		"{\"type\":\"file\",\"path\":\"M-Q4_K_M.gguf\",\"size\":7},"
		"{\"type\":\"file\",\"path\":\"M-BF16-00001-of-00002.gguf\",\"size\":4},"
		"{\"type\":\"file\",\"path\":\"M-Q4_K_M.gguf\",\"size\":7},"
		"{\"type\":\"file\",\"path\":\"M-BF16-00002-of-00002.gguf\",\"size\":5},"
		"{\"type\":\"file\",\"path\":\"M-BF16-00002-of-00002.gguf\",\"size\":5},"
		"{\"type\":\"file\",\"path\":\"M-Q4_K_M.gguf\",\"size\":9},"
		"{\"type\":\"file\",\"path\":\"M-BF16-00001-of-00002.gguf\",\"size\":4}]";
	cr_hf_entry *e;
	size_t n;
	cr_error err = CR_ERROR_INIT;

	(void)state;
	assert_int_equal(cr_hf_parse_tree(json, strlen(json), "t", &e, &n, &err), 0);
	assert_int_equal(n, 2);
	assert_string_equal(e[0].path, "M-Q4_K_M.gguf");
	assert_int_equal(e[0].size, 7); /* the first of the three */
	assert_string_equal(e[1].path, "M-BF16-00001-of-00002.gguf");
	assert_int_equal(e[1].size, 9);
	assert_int_equal(e[1].parts, 2);
	free(e);
}

/* Nesting past cJSON's limit is named as such, not as a syntax error. */
static void test_tree_too_deep(void **state)
{
	char buf[3000];
	cr_hf_entry *e;
	size_t n;
	cr_error err = CR_ERROR_INIT;

	(void)state;
	memset(buf, '[', sizeof(buf));
	assert_int_equal(cr_hf_parse_tree(buf, sizeof(buf), "t", &e, &n, &err), CR_ERR_PARSE);
	assert_string_equal(err.message, "t: JSON nested deeper than 1000 levels at byte 1000");
	/* 999 levels and a syntax error: still a syntax error. */
	memset(buf + 999, 'x', 10);
	assert_int_equal(cr_hf_parse_tree(buf, 1009, "t", &e, &n, &err), CR_ERR_PARSE);
	assert_string_equal(err.message, "t: invalid JSON at byte 999");
}

static void test_token_file(void **state)
{
	char path[] = "/tmp/clefrun-token-XXXXXX";
	char tok[64];
	cr_error err = CR_ERROR_INIT;
	int fd = mkstemp(path);
	FILE *f;

	(void)state;
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	fputs("  hf_abc123\n", f);
	fclose(f);
	assert_int_equal(cr_hf_read_token_file(path, tok, sizeof(tok), &err), 0);
	assert_string_equal(tok, "hf_abc123");
	assert_int_equal(cr_hf_read_token_file(path, tok, 5, &err), CR_ERR_INVALID);
	f = fopen(path, "w");
	fputs("\n", f);
	fclose(f);
	assert_int_equal(cr_hf_read_token_file(path, tok, sizeof(tok), &err), CR_ERR_INVALID);
	unlink(path);
	assert_int_equal(cr_hf_read_token_file(path, tok, sizeof(tok), &err), CR_ERR_NOTFOUND);
}

/* Which URLs get the token: those on the endpoint, nothing that only looks like it. */
static void test_token_scoping(void **state)
{
	static const struct {
		const char *endpoint, *url;
		bool on;
	} cases[] = {
		{ "https://huggingface.co", "https://huggingface.co/o/r/resolve/main/x.gguf", true },
		{ "https://huggingface.co/", "https://huggingface.co/api/models/o/r/tree/main", true },
		{ "https://huggingface.co//", "https://huggingface.co/x", true },
		{ "https://huggingface.co", "https://huggingface.co", false },
		{ "https://huggingface.co", "https://huggingface.co.evil.example/x", false },
		{ "https://huggingface.co", "https://huggingface.com/x", false },
		{ "https://huggingface.co", "http://huggingface.co/x", false },
		{ "https://huggingface.co", "https://cdn-lfs.huggingface.co/x", false },
		{ "https://huggingface.co", "https://evil.example/https://huggingface.co/x", false },
		{ "http://127.0.0.1:8080/hf", "http://127.0.0.1:8080/hf/o/r", true },
		{ "http://127.0.0.1:8080/hf", "http://127.0.0.1:8080/hfx/o/r", false },
		{ "http://127.0.0.1:8080/hf", "http://127.0.0.1:8080/files/x.gguf", false },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *t = cr_hf_token_for_url(cases[i].endpoint, "tok", cases[i].url);

		if (cr_hf_url_on_endpoint(cases[i].endpoint, cases[i].url) != cases[i].on)
			fail_msg("%s on %s: expected %d", cases[i].url, cases[i].endpoint, cases[i].on);
		if (cases[i].on ? !t || strcmp(t, "tok") != 0 : t != NULL)
			fail_msg("token for %s on %s", cases[i].url, cases[i].endpoint);
	}
	assert_null(cr_hf_token_for_url("https://huggingface.co", NULL, "https://huggingface.co/x"));
	assert_null(cr_hf_token_for_url("https://huggingface.co", "", "https://huggingface.co/x"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_urls),
		cmocka_unit_test(test_guess_quant),
		cmocka_unit_test(test_tree),
		cmocka_unit_test(test_tree_duplicates),
		cmocka_unit_test(test_tree_too_deep),
		cmocka_unit_test(test_token_file),
		cmocka_unit_test(test_token_scoping),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
