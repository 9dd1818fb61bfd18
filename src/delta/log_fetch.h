/* delta/log_fetch.h - the JSON files of a log segment, fetched ahead of
 * the replay on object stores.
 *
 * On a store whose every read is a request (LOOM_STORE_CAP_REQUEST_READS:
 * S3, Azure, GCS), replaying 100,000 commits one GET at a time waits for
 * 100,000 round trips in a row. A fetcher keeps LOG_FETCH_THREADS reads
 * in flight, in the order the replay takes the files, on a sliding
 * window: at most LOG_FETCH_AHEAD_FILES files and LOG_FETCH_AHEAD_BYTES
 * listed bytes (at least one file) fetched and not yet taken, so memory
 * stays bounded however long the log, and a file taken frees its place
 * for the next read at once (no pause at window boundaries). On other
 * stores no fetcher is made and the replay reads each file itself. */
#ifndef LOOM_DELTA_LOG_FETCH_H
#define LOOM_DELTA_LOG_FETCH_H

#include <stddef.h>

#include "delta/log_listing.h"
#include "util/buf.h"

#define LOG_FETCH_THREADS 32
#define LOG_FETCH_AHEAD_FILES 256
#define LOG_FETCH_AHEAD_BYTES (64u << 20)

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

/* Stop fetching, wait for the reads in flight and free. NULL is fine. */
void delta_log_fetch_free(delta_log_fetch *f);

#endif
