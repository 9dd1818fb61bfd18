/* delta/log_fetch.h - the JSON files of a log segment, fetched ahead of
 * the replay on object stores.
 *
 * On a store whose every read is a request (LOOM_STORE_CAP_REQUEST_READS:
 * S3, Azure), replaying 1,000 commits one GET at a time waits for 1,000
 * round trips in a row. A fetcher reads the files in the order the replay
 * takes them, LOG_FETCH_THREADS at a time, in windows of at most
 * LOG_FETCH_WINDOW_FILES files and LOG_FETCH_WINDOW_BYTES listed bytes
 * (at least one file), so memory stays bounded however long the log. On
 * other stores no fetcher is made and the replay reads each file itself. */
#ifndef LOOM_DELTA_LOG_FETCH_H
#define LOOM_DELTA_LOG_FETCH_H

#include <stddef.h>

#include "delta/log_listing.h"
#include "util/buf.h"

#define LOG_FETCH_THREADS 16
#define LOG_FETCH_WINDOW_FILES 64
#define LOG_FETCH_WINDOW_BYTES (64u << 20)

typedef struct delta_log_fetch delta_log_fetch;

/* A fetcher for files[0..n) (borrowed; they must outlive it), which the
 * caller takes in that order. *out is NULL when fetching ahead is not
 * worth it (a store whose reads are not requests, fewer than 2 files). */
int delta_log_fetch_new(delta_log_fetch **out, loom_store *store,
                        const delta_log_file **files, size_t n);

/* The contents of files[i], moved into *out (which must be empty); i must
 * be the next index not yet taken. A failed read fails here, with the
 * store's error, when its file's turn comes. */
int delta_log_fetch_take(delta_log_fetch *f, size_t i, loom_buf *out);

/* Wait for requests in flight and free. NULL is fine. */
void delta_log_fetch_free(delta_log_fetch *f);

#endif
