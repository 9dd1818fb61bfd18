/* ops/zorder/zorder_spill.h - spill files for Z-order's external sort: chunks of
 * column-batch rows with their sort keys, written raw (the in-memory
 * layout, no encoding) to an anonymous temp file and read back in order.
 *
 * The file is unlinked as soon as it is created, so it disappears when it
 * is closed or the process ends in any way (kill -9 included): a spill
 * never outlives the run. Its bytes count against a cap shared by every
 * spill of a run (`zspill_budget`), so a partition larger than the temp
 * space allowed fails with a clear error instead of filling the disk. */
#ifndef LOOM_OPS_ZORDER_SPILL_H
#define LOOM_OPS_ZORDER_SPILL_H

#include <stddef.h>
#include <stdint.h>

#include "parquet/batch.h"

typedef struct zspill_budget {
	const char *dir;              /* temp directory */
	uint64_t cap;                 /* bytes all spills may hold */
	uint64_t used;                /* bytes written so far (atomic) */
} zspill_budget;

/* Resolve the temp dir (`dir`, else $LOOM_TMPDIR, $TMPDIR, /tmp) and the
 * cap (`cap` > 0, else 90 % of the space free there). */
int zspill_budget_init(zspill_budget *b, const char *dir, uint64_t cap);

typedef struct zspill {
	int fd;                       /* -1: not open */
	zspill_budget *budget;
	uint64_t bytes, rows;         /* written (atomic) */
} zspill;

int zspill_open(zspill *s, zspill_budget *budget);

/* Append b's rows and keys[0..b->num_rows) as one chunk. Several threads
 * may write to one spill at once (chunks never interleave). */
int zspill_write(zspill *s, const pq_batch *b, const uint64_t *keys);

/* Append every row of the spill to `dst` (an owned batch with the same
 * columns) and its keys to *keys (grown as needed, *nkeys advanced).
 * `scratch` is a reusable read buffer (freed by the caller). */
int zspill_read_all(zspill *s, pq_batch *dst, uint64_t **keys, size_t *nkeys, size_t *keys_cap,
                    void **scratch, size_t *scratch_cap);

void zspill_close(zspill *s);

#endif
