/* store/client.h - what the layers above the store may use besides the
 * public interface of loom/store.h. */
#ifndef LOOM_STORE_CLIENT_H
#define LOOM_STORE_CLIENT_H

#include "loom/store.h"
#include "util/buf.h"

/* Read a whole object into `out` (appended): one read_tail request for
 * objects up to 64 KiB, stat + read_range on version 1 stores. */
int loom_store_read_all(loom_store *s, const char *key, loom_buf *out);

#endif
