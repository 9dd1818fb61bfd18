/* store/local_list.h - the local store's listing walk (store/local_list.c). */
#ifndef LOOM_STORE_LOCAL_LIST_H
#define LOOM_STORE_LOCAL_LIST_H

#include <stddef.h>

#include "loom/store.h"

/* The entries under `prefix` (a checked key prefix, "" for all) of the
 * directory tree at `root` (root_len bytes, no trailing '/'), handed to
 * `cb` in ascending key order as the walk finds them; after `start_after`
 * when not NULL; with `recursive`, every file below, else the prefix's
 * level with its directories as entries. Symlinks are entries, never
 * followed. Returns 0, a negative LOOM_E* code, or `cb`'s non-zero return,
 * which stops the walk. */
int local_list_walk(const char *root, size_t root_len, const char *prefix,
                    const char *start_after, int recursive, loom_store_list_cb cb, void *payload);

#endif
