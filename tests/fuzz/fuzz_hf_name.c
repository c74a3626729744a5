/*
 * Harness: the names of remote sources, which come from the command line
 * and from Hugging Face listings: "hf:OWNER/REPO[/PATH.gguf|:QUANT]"
 * (cr_hf_parse), the URLs built from them (cr_hf_file_url, cr_hf_tree_url),
 * split-file names (cr_gguf_split_parse, cr_gguf_split_name) and the quant
 * named in a file name (cr_hf_guess_quant), the kind of a SOURCE
 * (cr_model_source_classify; the kinds that need no I/O resolved) and the
 * token scoping rule (cr_hf_token_for_url). The input is the string.
 */
#include <string.h>

#include "clefrun/clefrun.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s, url[2048], q[CR_ID_MAX], name[1024];
	cr_hf_ref ref;
	cr_error err = CR_ERROR_INIT;
	size_t plen;
	uint32_t no, count;

	if (size > 4096 || !(s = malloc(size + 1)))
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	if (cr_hf_parse(s, &ref, &err) == 0) {
		FUZZ_CHECK(memchr(ref.repo, '\0', sizeof(ref.repo)) && memchr(ref.path, '\0', sizeof(ref.path)));
		if (cr_hf_file_url(CR_HF_DEFAULT_ENDPOINT, ref.repo, CR_HF_DEFAULT_REVISION,
				   ref.kind == CR_HF_FILE ? ref.path : "x.gguf", url, sizeof(url), &err) == 0)
			FUZZ_CHECK(strncmp(url, CR_HF_DEFAULT_ENDPOINT "/", sizeof(CR_HF_DEFAULT_ENDPOINT)) == 0);
		(void)cr_hf_tree_url(CR_HF_DEFAULT_ENDPOINT, ref.repo, s + size / 2, url, sizeof(url), &err);
		(void)cr_hf_file_url(CR_HF_DEFAULT_ENDPOINT, ref.repo, "main", ref.path, url, 16, &err);
	} else {
		FUZZ_CHECK(err.status < 0 && err.message[0]);
	}
	/* The string as an endpoint, a revision and a path. */
	(void)cr_hf_file_url(s, "owner/repo", s, s, url, sizeof(url), &err);
	(void)cr_hf_tree_url("https://huggingface.co", "owner/repo", s, url, sizeof(url), &err);
	if (cr_gguf_split_parse(s, &plen, &no, &count)) {
		size_t n = strlen(s); /* the input may hold NUL bytes */

		FUZZ_CHECK(plen <= n && no >= 1 && no <= count);
		for (uint32_t k = 1; k <= count && k <= 3; k++)
			if (cr_gguf_split_name(s, k, name, sizeof(name), &err) == 0)
				FUZZ_CHECK(strlen(name) == n);
		(void)cr_gguf_split_name(s, count + 1, name, sizeof(name), &err);
		(void)cr_gguf_split_name(s, 1, name, 8, &err);
	}
	if (cr_hf_guess_quant(s, q, sizeof(q)))
		FUZZ_CHECK(q[0] != '\0');
	(void)cr_hf_guess_quant(s, q, 2);
	{
		cr_model_source_kind kind = cr_model_source_classify(s);
		const char *t = cr_hf_token_for_url(CR_HF_DEFAULT_ENDPOINT, "tok", s);

		FUZZ_CHECK(!t || strncmp(s, CR_HF_DEFAULT_ENDPOINT "/", sizeof(CR_HF_DEFAULT_ENDPOINT)) == 0);
		(void)cr_hf_url_on_endpoint(s, CR_HF_DEFAULT_ENDPOINT "/x");
		if (kind == CR_MODEL_SOURCE_BAD_URL || kind == CR_MODEL_SOURCE_CATALOG) {
			cr_model_source *m = NULL;

			/* No catalog: both are refused without I/O, the message cut and safe. */
			FUZZ_CHECK(cr_model_source_resolve(s, NULL, &m, &err) != 0 && !m && err.message[0] &&
				   err.reason == CR_REASON_BAD_SOURCE);
		}
	}
	free(s);
	return 0;
}
