/* util/versioned.c - reading and writing caller-allocated structs of any
 * version (util/versioned.h). */
#include "util/versioned.h"

#include <string.h>

#include "util/error.h"

int loom_versioned_check(const loom_versioned *t, unsigned int version)
{
	if (version < 1 || version > t->current)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_INVALID,
		                "%s: version %u is not one this library knows (1 to %u): initialise "
		                "it with %s or %s_init", t->name, version, t->current, t->init_name,
		                t->name);
	return 0;
}

int loom_versioned_init(const loom_versioned *t, void *dst, unsigned int version)
{
	return loom_versioned_write(t, dst, version, t->defaults);
}

int loom_versioned_read(const loom_versioned *t, void *dst, const void *src)
{
	unsigned int version;
	if (src) {
		memcpy(&version, src, sizeof(version));
		LOOM_TRY(loom_versioned_check(t, version));
	}
	memcpy(dst, t->defaults, t->sizes[t->current - 1]);
	if (src)
		memcpy(dst, src, t->sizes[version - 1]);
	memcpy(dst, &t->current, sizeof(t->current));
	return 0;
}

int loom_versioned_write(const loom_versioned *t, void *dst, unsigned int version,
                         const void *src)
{
	if (!dst)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_INVALID, "%s: NULL", t->name);
	LOOM_TRY(loom_versioned_check(t, version));
	memcpy(dst, src, t->sizes[version - 1]);
	memcpy(dst, &version, sizeof(version));
	return 0;
}
