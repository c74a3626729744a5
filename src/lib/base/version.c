#include "clefrun/version.h"

const char *cr_version(void)
{
	return CR_VERSION_STRING;
}
