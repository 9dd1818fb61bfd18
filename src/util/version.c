/* util/version.c - the library version string. */
#include "loom/common.h"

LOOM_EXTERN(const char *) loom_version(void)
{
	return LOOM_VERSION_STRING;
}
