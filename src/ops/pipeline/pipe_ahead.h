/* ops/pipeline/pipe_ahead.h - reading a unit's next files ahead, on stores whose
 * reads are requests (LOOM_STORE_CAP_REQUEST_READS: S3, Azure).
 *
 * While one file's row groups are copied or decoded, the first row group
 * of each of the next few files is fetched with its one GET
 * (pq_reader_prefetch_row_group) on the executor's pool, into a reader of
 * its own; the reading thread then swaps that reader in and finds the
 * bytes in memory. Without it every GET of a unit waits for the one
 * before (a round trip each on a real object store). Memory: at most
 * `depth` row-group spans (each within PQ_PREFETCH_MAX) besides the
 * reader's own. A fetch that fails is simply not used: the reading
 * thread reads again and reports the error where it always did. */
#ifndef LOOM_OPS_PIPE_AHEAD_H
#define LOOM_OPS_PIPE_AHEAD_H

#include <stddef.h>
#include <stdint.h>

#include "ops/pipeline/pipe_read.h"
#include "util/threadpool.h"

typedef struct pipe_ahead pipe_ahead;

/* How many files to read ahead within `memory` bytes for a unit of
 * `num_files` on `store`: 0 when reading ahead is of no use (a local
 * store, a single file, too little memory). */
size_t pipe_ahead_depth(const loom_store *store, size_t num_files, int64_t memory);

/* Read the files of `fc` ahead, `depth` (> 0) at a time, on `pool`.
 * Borrows store, fc and pool until pipe_ahead_free. */
int pipe_ahead_new(pipe_ahead **out, loom_store *store, const pipe_footers *fc, loom_threadpool *pool,
                   size_t depth);

/* Before reading file i (files are taken in order, each once): wait for
 * its fetch and swap the reader it was read into with *r (a reader opened
 * on file i, which pipe_reader_file then keeps instead of reopening), then
 * queue the fetches of the files after it. *r may be NULL. */
void pipe_ahead_take(pipe_ahead *a, size_t i, pq_reader **r);

/* Wait for fetches in flight and free the readers. NULL is fine. */
void pipe_ahead_free(pipe_ahead *a);

#endif
