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
