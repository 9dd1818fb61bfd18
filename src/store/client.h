/* store/client.h - what the layers above the store may use besides the
 * public interface of loom/store.h. */
#ifndef LOOM_STORE_CLIENT_H
#define LOOM_STORE_CLIENT_H

#include "loom/store.h"
#include "util/buf.h"

/* Read a whole object into `out` (appended): one read_tail request for
 * objects up to 64 KiB, stat + read_range on version 1 stores. */
int loom_store_read_all(loom_store *s, const char *key, loom_buf *out);

/* Every object under directory `dir` ("" the root), as the recursive
 * listing gives them: each once, in ascending key order, `cb` called on
 * this thread only. On stores whose every listing page is a request
 * (LOOM_STORE_CAP_REQUEST_READS) the directories are found with a
 * delimiter listing (up to three levels down, until there are `width` of
 * them) and listed `width` at a time; otherwise, or with width <= 1, one
 * plain recursive listing. LOOM_LIST_WIDTH in the environment (1-256)
 * replaces `width`. (store/list_all.c) */
int loom_store_list_all(loom_store *s, const char *dir, size_t width, loom_store_list_cb cb,
                        void *payload);

#endif
