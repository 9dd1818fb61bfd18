/* util/versioned.h - the one versioning rule of the public structs a caller
 * allocates (options, results, file infos, locations; docs/api.md).
 *
 * Such a struct has `unsigned int version` first and grows only by
 * appending fields and bumping its version. A program built against an
 * older header passes a shorter struct with an older version: the library
 * accepts every version from 1 to its own and reads or writes only the
 * bytes that version has. Version 0 (a struct never initialised) and
 * versions newer than the library are LOOM_EINVAL naming the struct.
 *
 * Each struct describes its versions once, next to the code that uses it:
 *
 *   LOOM_VERSIONS(compact_versions, loom_compact_opts, LOOM_COMPACT_OPTS_VERSION,
 *                 LOOM_COMPACT_OPTS_INIT,
 *                 offsetof(loom_compact_opts, copy_row_group_min_size),  // version 1
 *                 offsetof(loom_compact_opts, commit_every),             // version 2
 *                 sizeof(loom_compact_opts));                            // version 3
 */
#ifndef LOOM_UTIL_VERSIONED_H
#define LOOM_UTIL_VERSIONED_H

#include <stddef.h>

#include "loom/common.h"

typedef struct loom_versioned {
	const char *name;       /* the struct's name, for messages */
	const char *init_name;  /* its _INIT macro's name, for messages */
	const size_t *sizes;    /* sizes[v - 1]: the bytes version v has */
	unsigned int current;   /* the newest version: the count of sizes */
	const void *defaults;   /* a current-version struct of defaults */
} loom_versioned;

/* Define `var`, the versions of struct `type`: its defaults `dflt` (an
 * _INIT macro) and the size of each version, oldest first (`...`). The
 * build fails unless there is one size per version up to `current`. */
#define LOOM_VERSIONS(var, type, current, dflt, ...)                            \
	static const type var##_defaults = dflt;                                    \
	static const size_t var##_sizes[] = { __VA_ARGS__ };                        \
	_Static_assert(sizeof(var##_sizes) / sizeof(size_t) == (current),           \
	               #type ": one size per version");                            \
	static const loom_versioned var = { #type, #dflt, var##_sizes, (current), &var##_defaults }

/* Define the public `loom_<name>_init(loom_<name> *o, unsigned int version)`
 * of struct loom_<name> over its versions `var` (loom_versioned_init). */
#define LOOM_VERSIONED_INIT_FN(name, var)                                       \
	LOOM_EXTERN(int) loom_##name##_init(loom_##name *o, unsigned int version)  \
	{                                                                           \
		return loom_versioned_init(&(var), o, version);                         \
	}

/* 0 when `version` is one of t's, else LOOM_EINVAL naming the struct. */
int loom_versioned_check(const loom_versioned *t, unsigned int version);

/* Fill a caller's struct of `version` with the defaults: only that
 * version's bytes. LOOM_EINVAL for an unknown version (dst untouched). */
int loom_versioned_init(const loom_versioned *t, void *dst, unsigned int version);

/* Read a caller's struct `src` of any of t's versions into `dst`, a
 * current-version struct: the defaults, overwritten by the fields src's
 * version has; dst's version is the current one. `src` NULL: the defaults.
 * LOOM_EINVAL for an unknown version. */
int loom_versioned_read(const loom_versioned *t, void *dst, const void *src);

/* Write the current-version struct `src` into a caller's struct `dst` of
 * version `version`: only the bytes that version has, its version set.
 * LOOM_EINVAL for an unknown version or a NULL dst (dst untouched). */
int loom_versioned_write(const loom_versioned *t, void *dst, unsigned int version,
                         const void *src);

#endif
