/*
 * test_curl_dl: libcurl loaded at first use (curl_dl.c). A library that is
 * not there, and one that is there but is not libcurl, each give a message
 * naming the library and the loader's reason, and leave nothing loaded, so
 * that the real libcurl still loads afterwards; once loaded, the functions
 * work and later calls return at once. The program does not link libcurl
 * (tests/CMakeLists.txt), so what is tested is the dlopen path.
 */
#include "unit.h"

#include <stdlib.h>

#include "curl_dl.h"

static void test_missing_library(void **state)
{
	const char *want = "libclefrun-test-missing.so.4 could not be loaded: "
			   "libclefrun-test-missing.so.4: cannot open shared object file";
	cr_error err = CR_ERROR_INIT;

	(void)state;
	assert_int_equal(cr_curl_load("libclefrun-test-missing.so.4", &err), CR_ERR_IO);
	assert_int_equal(err.status, CR_ERR_IO);
	if (strncmp(err.message, want, strlen(want)) != 0)
		fail_msg("message \"%s\", expected it to start with \"%s\"", err.message, want);
	assert_non_null(strstr(err.message, "(clefrun reads URLs and hf: models with libcurl; "
					    "Debian package libcurl4)"));
	assert_null(cr_curl_fn.easy_init);
}

/* libm is a shared library without curl_global_init. */
static void test_not_libcurl(void **state)
{
	const char *want = "libm.so.6: curl_global_init not found (";
	cr_error err = CR_ERROR_INIT;

	(void)state;
	assert_int_equal(cr_curl_load("libm.so.6", &err), CR_ERR_IO);
	if (strncmp(err.message, want, strlen(want)) != 0)
		fail_msg("message \"%s\", expected it to start with \"%s\"", err.message, want);
	assert_non_null(strstr(err.message, "clefrun needs libcurl 7.68 or later)"));
	assert_null(cr_curl_fn.easy_init);
}

static void test_loads_once(void **state)
{
	cr_error err = CR_ERROR_INIT;
	CURLU *u;
	char *host = NULL;
	CURL *c;

	(void)state;
	assert_int_equal(cr_curl_load(NULL, &err), CR_OK);
	assert_non_null(cr_curl_fn.easy_init);
	c = curl_easy_init();
	assert_non_null(c);
	assert_int_equal(curl_easy_setopt(c, CURLOPT_URL, "http://127.0.0.1:9/x"), CURLE_OK);
	curl_easy_cleanup(c);
	u = curl_url();
	assert_non_null(u);
	assert_int_equal(curl_url_set(u, CURLUPART_URL, "https://huggingface.co/a/b", 0), CURLUE_OK);
	assert_int_equal(curl_url_get(u, CURLUPART_HOST, &host, 0), CURLUE_OK);
	assert_string_equal(host, "huggingface.co");
	curl_free(host);
	curl_url_cleanup(u);
	/* Loaded: a later call does nothing, whatever name it gives. */
	assert_int_equal(cr_curl_load("libclefrun-test-missing.so.4", &err), CR_OK);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_missing_library),
		cmocka_unit_test(test_not_libcurl),
		cmocka_unit_test(test_loads_once),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
