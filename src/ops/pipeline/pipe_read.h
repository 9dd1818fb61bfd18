/* ops/pipeline/pipe_read.h - the reader stage of the rewrite pipeline: a unit's
 * files -> column batches aligned to the unit's output schema
 * (ops/pipeline/pipe_schema.h), one input row group at a time, with the rows their
 * deletion vectors delete dropped.
 *
 * Footers are loaded once per unit (pipe_footers) and shared by every
 * reading thread and pass; a unit run twice (Z-order's sampling and
 * sorting passes) may keep them between its runs (pipe_unit.footers). Memory: one decoded input row group per
 * reading thread; a unit's files are never loaded whole. */
#ifndef LOOM_OPS_PIPE_READ_H
#define LOOM_OPS_PIPE_READ_H

#include <stddef.h>
#include <stdint.h>

#include "ops/pipeline/pipe_schema.h"
#include "ops/pipeline/pipeline.h"
#include "parquet/reader.h"
#include "util/threadpool.h"

/* The footers of a unit's files, in file order. */
typedef struct pipe_footers {
	pq_footer **footers;
	size_t num;
	uint64_t input_bytes;         /* uncompressed page bytes of every row group */
	uint64_t input_rows;
} pipe_footers;

/* Load every file's footer (LOOM_EUNSUPPORTED for a file outside the
 * table root). On a store whose reads are requests the footers are
 * fetched at once on `pool` (NULL: one after another); errors are
 * reported in file order. */
int pipe_footers_load(pipe_footers *fc, loom_store *store, const delta_file *const *files, size_t n,
                      loom_threadpool *pool);
/* Merge every footer's schema into `os`, in file order (each run of a
 * unit builds its output schema anew from footers it may have kept). */
int pipe_footers_merge_schemas(const pipe_footers *fc, const delta_file *const *files, pipe_schema *os);
void pipe_footers_dispose(pipe_footers *fc);

/* One reading thread's state (buffers reused from file to file). */
typedef struct pipe_reader {
	const pipe_settings *set;
	const pipe_schema *os;
	const uint8_t *mask;          /* output leaves to read; NULL: all */
	pipe_leaf_map lm, prev;       /* this file's and the last file's mapping */
	pq_batch in, view, kept;      /* decoded, aligned view, DV-filtered copy */
	int16_t *zeros;               /* all-zero levels for absent columns */
	size_t zeros_cap;
	int16_t **defs;               /* per output leaf: shifted def levels */
	size_t *defs_cap;
	pq_reader *r;                 /* reopened file after file (its buffers kept) */
	const delta_file *file;       /* the file being read */
	int64_t *rt_values[2];        /* row tracking values of the batch (row
	                                 id, commit version), filled per batch */
	size_t rt_cap[2];
	int16_t *ones;                /* all-one def levels (values never null) */
	uint8_t **wide;               /* per output leaf: values widened to the
	                                 table's type (ops/pipeline/pipe_widen.h) */
	size_t *wide_cap;
	size_t ones_cap;
	size_t batch_bytes;           /* > 0: a row group larger than this
	                                 (decoded, estimated) is read in slices
	                                 of rows about this size */
} pipe_reader;

void pipe_reader_init(pipe_reader *rd, const pipe_settings *set, const pipe_schema *os,
                      const uint8_t *mask);
void pipe_reader_dispose(pipe_reader *rd);

/* Called per batch; the batch is borrowed until the call returns. */
typedef int (*pipe_emit_fn)(void *arg, const pq_batch *b);
/* Offered each row group of a file whose columns are exactly the output's
 * (same leaves, same order, nothing projected) and that has no deletion
 * vector: return 1 when it took the row group as it is (copied it), 0 to
 * have it decoded and emitted, < 0 on error. */
typedef int (*pipe_copy_fn)(void *arg, pq_reader *r, size_t row_group);

/* Read file f (its footer loaded in `ft`), emitting one batch per row
 * group, or per slice of one (batch_bytes), (or handing row groups to
 * `copy`, which may be NULL); rows read and rows deleted are added to
 * `counts`. On a table that preserves row ids the materialized row
 * tracking columns (pipe_schema.h) hold every row's stable row id and row
 * commit version: the file's materialized value where it has one, else
 * baseRowId + the row's physical index, and defaultRowCommitVersion
 * (PROTOCOL.md, Row Tracking); filled before deleted rows are dropped. A
 * file without baseRowId or defaultRowCommitVersion there is refused. */
int pipe_reader_file(pipe_reader *rd, const delta_file *f, const pq_footer *ft, pipe_emit_fn emit,
                     pipe_copy_fn copy, void *arg, pipe_result *counts);

#endif
