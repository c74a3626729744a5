#include "clefrun/error.h"

const char *cr_status_str(int status)
{
	switch (status) {
	case CR_OK:
		return "ok";
	case CR_ERR_NOMEM:
		return "out of memory";
	case CR_ERR_IO:
		return "input/output error";
	case CR_ERR_PARSE:
		return "malformed input";
	case CR_ERR_INVALID:
		return "invalid value";
	case CR_ERR_NOTFOUND:
		return "not found";
	case CR_ERR_RANGE:
		return "out of range";
	case CR_ERR_UNSUPPORTED:
		return "unsupported combination";
	default:
		return "unknown status";
	}
}

const char *cr_reason_name(cr_reason reason)
{
	static const char *const names[] = {
		"none", "truncated", "not-gguf", "web-page", "http-auth", "http-token-refused",
		"http-not-found", "offline-miss", "offline-no-cache-dir", "bad-source", "unknown-model",
		"hf-repo", "hf-no-quant", "hf-repo-not-found", "hf-file-not-found", "hf-auth",
		"split-not-first", "placement-needs-ram-tier", "not-moe", "ollama-not-found",
		"ollama-manifest",
	};

	if ((unsigned)reason >= sizeof(names) / sizeof(names[0]))
		return "unknown reason";
	return names[reason];
}
