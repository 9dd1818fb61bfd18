/* store/store_int.h - helpers shared by store implementations. */
#ifndef LOOM_STORE_INT_H
#define LOOM_STORE_INT_H

#include <stddef.h>

#include "loom/store.h"
#include "util/buf.h"

/* Check that `key` is a relative '/'-separated path with no empty, "." or
 * ".." component and no leading '/'. Returns 0 or LOOM_EINVAL (with an
 * error naming the key). `what` names the operation for the message. */
int loom_store_check_key(const char *key, const char *what);

/* Read a whole object into `out` (appended). */
int loom_store_read_all(loom_store *s, const char *key, loom_buf *out);

#endif
