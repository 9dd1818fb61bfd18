/* ops/pipeline/pipeline.h - the rewrite pipeline every data-rewriting operation
 * runs (compaction, Z-order, liquid clustering; row tracking and type
 * widening ride along in the reader and writer):
 *
 *     reader stage  ->  [transform stage]  ->  writer stage
 *     (pipe_read.h)     (pipe_stage_ops)       (pipe_write.h)
 *
 * The reader turns a unit's files into column batches aligned to the
 * table schema (pipe_schema.h), with deletion-vector rows dropped; each
 * footer is read once per unit and cached. A transform stage takes those
 * batches and hands back batches in a new order (Z-order's sorter,
 * ops/zorder/zorder_sort.c) or nothing at all (Z-order's sampler); without one the
 * reader feeds the writer directly (compaction). The writer cuts the
 * batches into files of at most the target size, with Delta stats.
 *
 * Work comes in units (pipe_unit): the files of one compaction bin, or of
 * one Z-order partition with its key boundaries. The executor
 * (pipe_exec.c) runs units on one pool of a fixed number of workers under
 * one memory budget: side by side while there are more units than
 * workers, otherwise one at a time with all workers given to the unit's
 * stages (parallel readers, parallel output lanes, column-parallel
 * encoding). Executing a unit writes files and reports them in its
 * result; it never commits: the operation commits every unit's outputs in
 * one transaction afterwards (ops/optimize/optimize.h), which is the seam for
 * running units elsewhere (plan / execute(unit) / commit). */
#ifndef LOOM_OPS_PIPELINE_H
#define LOOM_OPS_PIPELINE_H

#include <stddef.h>
#include <stdint.h>

#include "delta/snapshot.h"
#include "delta/stats_json.h"
#include "loom/ops.h"
#include "loom/store.h"
#include "parquet/schema.h"
#include "parquet/writer.h"
#include "util/error.h"
#include "util/threadpool.h"

/* What every unit of a run shares: where, what table, how to write. */
typedef struct pipe_settings {
	loom_store *store;
	const delta_snapshot *snap;
	pq_writer_opts wopts;
	int64_t row_group_rows;       /* > 0: cut row groups near this many rows */
	delta_stats_opts sopts;
	uint64_t file_bytes;          /* most bytes an output file may have
	                                 (estimated while writing); 0: no limit */
	uint64_t copy_min_bytes;      /* reader -> writer units: copy input row
	                                 groups of at least this many (compressed)
	                                 bytes as they are when nothing in them
	                                 changes (ops/pipeline/pipe_write.h); 0: never.
	                                 Default: an eighth of the row-group
	                                 size; the location's writer setting
	                                 copy_row_group_min_size */
	const loom_cancel *cancel;
} pipe_settings;

/* Writer and stats options from the table and the location's writer
 * settings (compression, compression_level, row_group_size in rows,
 * row_group_bytes, copy_row_group_min_size). LOOM_EINVAL naming a bad
 * setting. */
int pipe_settings_init(pipe_settings *s, loom_store *store, const delta_snapshot *snap,
                       const loom_table_location *loc);

/* One file a unit wrote. */
typedef struct pipe_output {
	char *key;                    /* store key (decoded path) */
	char *path_raw;               /* percent-encoded, for the log */
	int64_t size;
	int64_t num_records;
	int64_t modification_time;
	char *stats;                  /* stats JSON text */
} pipe_output;

/* What executing a unit produced. Every file written is listed, even on
 * failure, so the caller can delete it. */
typedef struct pipe_result {
	pipe_output *files;           /* owned */
	size_t num_files;
	int64_t rows_in, rows_deleted;/* rows read, rows dropped by DVs */
	int64_t batches;              /* batches written */
} pipe_result;

/* Move src's files to the end of dst and add its counts (src emptied). */
int pipe_result_take(pipe_result *dst, pipe_result *src);
void pipe_result_dispose(pipe_result *res);

/* What a transform stage learns when its unit starts. */
typedef struct pipe_env {
	const pipe_settings *set;
	const pq_schema *schema;      /* output schema: batch columns = its leaves */
	uint64_t input_bytes;         /* uncompressed page bytes (footers, before DVs) */
	uint64_t input_rows;          /* rows (footers, before DVs) */
	uint64_t input_file_bytes;    /* the files' sizes: about the output's */
	size_t num_files;
	size_t workers;               /* threads this unit may use (>= 1) */
	int64_t memory;               /* bytes this unit may hold */
	loom_threadpool *pool;        /* the executor's pool: use task groups */
	pq_writer_opts *wopts;        /* this unit's writer options (may tighten) */
} pipe_env;

/* A transform stage. Only push and pull are required. */
typedef struct pipe_stage_ops {
	const char *name;
	/* The unit starts. `read` has one byte per output leaf, all 1: clear
	 * the leaves the stage does not need; pushed batches then hold only
	 * the marked leaves, in leaf order (a projection). */
	int (*begin)(void *st, pipe_env *env, uint8_t *read);
	/* Reading threads, 1..env->workers (NULL: 1). Asked after begin. */
	size_t (*readers)(void *st);
	/* Read every k-th file only (NULL: every file). Asked after begin. */
	size_t (*file_stride)(void *st);
	/* Rows in, aligned and DV-filtered; `worker` < readers, concurrent. */
	int (*push)(void *st, size_t worker, const pq_batch *b);
	/* The input ended: *lanes = how many output lanes pull (0: none), each
	 * writing its own files on its own thread. NULL: one lane. */
	int (*end)(void *st, size_t *lanes);
	/* The lane's next batch, NULL when the lane is done. *out stays valid
	 * until the lane's call after next (one batch is written while the
	 * next is made). */
	int (*pull)(void *st, size_t lane, const pq_batch **out);
} pipe_stage_ops;

/* One unit of work: files of one partition and what to do with them. */
typedef struct pipe_unit {
	const delta_file *const *files;
	size_t num_files;
	int64_t bytes;                /* the files' sizes */
	const pipe_stage_ops *ops;    /* NULL: reader -> writer */
	void *stage;
	/* The files' footers, kept by the caller from one run of the unit to
	 * the next (loaded by the first run; the caller disposes them with
	 * pipe_footers_dispose, ops/pipeline/pipe_read.h). NULL: each run
	 * loads them and drops them at its end. */
	struct pipe_footers *footers;
	pipe_result result;           /* filled by execution */
	int rc;
	loom_error err;
} pipe_unit;

/* Progress after each finished unit. */
typedef void (*pipe_progress_fn)(void *ctx, const pipe_unit *done, size_t units_done,
                                 size_t units_total);

typedef struct pipe_exec pipe_exec;

/* The executor: `workers` threads (0: one per CPU) and `memory` bytes
 * (0: PIPE_DEFAULT_MEMORY) shared by the units that run at once. */
#define PIPE_DEFAULT_MEMORY (1024LL * 1024 * 1024)
int pipe_exec_new(pipe_exec **out, const pipe_settings *set, size_t workers, int64_t memory);
void pipe_exec_free(pipe_exec *x);
size_t pipe_exec_workers(const pipe_exec *x);

/* Execute units[0..n). After a failure the units not yet started are
 * skipped; the first real failure is returned (and recorded). Every file
 * any unit wrote is in its result. */
int pipe_exec_run(pipe_exec *x, pipe_unit *units, size_t n, pipe_progress_fn progress,
                  void *progress_ctx);

/* The Hive directory ("a=1/b=x/", or "") of a file's partition values, in
 * partition-column order, values escaped. Appended to `out`. */
int pipe_partition_dir(const delta_snapshot *snap, const delta_file *f, loom_buf *out);

/* The store key of a live file: its relative path, or an absolute URI or
 * path inside the table root; LOOM_EUNSUPPORTED for a file outside the
 * root, which belongs to someone else and is never rewritten. */
int pipe_file_key(loom_store *store, const delta_file *f, const char **key);

#endif
