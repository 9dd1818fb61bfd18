/* ops/zorder/zorder_gather.h - copy an arbitrary list of rows of a column batch,
 * in list order, in time linear in the rows copied (pq_batch_append_rows
 * scans from the start of the batch for every call, so permuting row by
 * row with it would be quadratic). */
#ifndef LOOM_OPS_ZORDER_GATHER_H
#define LOOM_OPS_ZORDER_GATHER_H

#include <stddef.h>
#include <stdint.h>

#include "parquet/batch.h"

/* Where each row of a batch starts, per column: level slot (repeated
 * columns only) and value index (columns with nulls or repetition); NULL
 * arrays mean "row i starts at i". Entries num_rows + 1. A flat optional
 * column without a null in the batch needs no value index: row i is value
 * i and its level the column's max_def (the gather then reads neither). */
typedef struct zg_index {
	size_t num_columns;
	uint32_t **slot;
	uint32_t **value;
} zg_index;

int zg_index_build(zg_index *ix, const pq_batch *src);
void zg_index_dispose(zg_index *ix);
size_t zg_index_bytes(const pq_batch *src);

/* Append rows[0..n) of `src` (indexed by `ix`) to `dst`, which owns its
 * arrays and has src's column count (types taken from src when empty). */
int zg_gather(pq_batch *dst, const pq_batch *src, const zg_index *ix, const uint32_t *rows,
              size_t n);

/* zg_gather with the columns copied in parallel on `pool` (NULL: inline). */
typedef struct loom_threadpool loom_threadpool;
int zg_gather_pool(pq_batch *dst, const pq_batch *src, const zg_index *ix, const uint32_t *rows,
                   size_t n, loom_threadpool *pool);

#endif
