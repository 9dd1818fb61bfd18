/* ops/rewrite.h - the rewrite pipeline shared by compaction and Z-order:
 * stream a group of live data files through the Parquet reader, row group
 * by row group, align each batch to the current table schema, drop rows
 * their deletion vectors delete, and write new data files with the Parquet
 * writer, with Delta stats for each.
 *
 * Schema alignment: the output has the table's top-level data columns
 * (partition columns excluded) in table order, matched in the input files
 * by physical name (column mapping "name"/"id"; field id first for "id"),
 * each taken with its Parquet subtree from the first input file that has
 * it. A file without a column contributes nulls (the column must be
 * nullable). Columns the table no longer has are dropped. A column whose
 * Parquet subtree differs between files (type widening, nested fields
 * added) is refused with LOOM_EUNSUPPORTED naming file and column.
 *
 * Memory: one input row group decoded at a time per worker, plus the
 * writer's buffered row group; a group of files is never loaded whole. */
#ifndef LOOM_OPS_REWRITE_H
#define LOOM_OPS_REWRITE_H

#include <stddef.h>
#include <stdint.h>

#include "delta/snapshot.h"
#include "delta/stats_json.h"
#include "loom/ops.h"
#include "loom/store.h"
#include "parquet/schema.h"
#include "parquet/writer.h"

/* Optional row-order hook (used by Z-order, ops/zorder.c). When set on a
 * context, aligned DV-filtered batches go to `rows` instead of the writer;
 * once every file was read, the writer pulls batches from `drain` until it
 * hands back NULL; `*again` = 1 asks for one more pass over the same files
 * (Z-order: a first pass reads only the key columns to sample them). The writer is kept across
 * passes, so output files are cut by size only. */
typedef struct rewrite_hook {
	void *arg;
	/* Called once with the output schema (leaves = batch columns), the
	 * input's uncompressed page bytes and rows (from the footers, before
	 * deletion vectors). */
	int (*begin)(void *arg, const pq_schema *schema, uint64_t input_bytes, uint64_t input_rows);
	/* `worker` < the pass's worker count; workers call concurrently. */
	int (*rows)(void *arg, size_t worker, const pq_batch *b);
	/* *out borrowed until the lane's next call (with `piped`: until the
	 * call after that); NULL ends the lane's part of the pass. Lanes call
	 * concurrently, each with its own output files. */
	int (*drain)(void *arg, size_t lane, const pq_batch **out, int *again);
	/* Optional, asked once the files of a pass were read: how many lanes
	 * drain (each on its own thread with its own writer; NULL or 0: one,
	 * lane 0). */
	size_t (*lanes)(void *arg);
	/* 1: batches are written on a second thread while drain makes the
	 * next one. */
	int piped;
	/* Optional, asked before each pass: the output leaves to read (1 per
	 * leaf of begin's schema: read it), or NULL for every leaf. The
	 * batches of a projected pass hold only those leaves, in leaf order. */
	const uint8_t *(*projection)(void *arg);
	/* Optional, asked before each pass: threads to read the files with
	 * (each takes whole files; NULL or 0: one, on the calling thread). */
	size_t (*workers)(void *arg);
	/* Optional, asked before each pass: read every k-th file only (k > 1;
	 * NULL or 0 or 1: every file). */
	size_t (*file_stride)(void *arg);
} rewrite_hook;

typedef struct rewrite_ctx {
	loom_store *store;
	const delta_snapshot *snap;
	pq_writer_opts wopts;
	int64_t row_group_rows;       /* > 0: cut row groups near this many rows */
	delta_stats_opts sopts;
	uint64_t split_bytes;         /* start a new output file once one has
	                                 this many bytes on the sink; 0 never */
	const loom_cancel *cancel;
	const rewrite_hook *hook;     /* NULL: rows written in input order */
} rewrite_ctx;

typedef struct rewrite_output {
	char *key;                    /* store key (decoded path) */
	char *path_raw;               /* percent-encoded, for the log */
	int64_t size;
	int64_t num_records;
	int64_t modification_time;
	char *stats;                  /* stats JSON text */
} rewrite_output;

typedef struct rewrite_result {
	rewrite_output *files;        /* owned */
	size_t num_files;
	int64_t rows_in, rows_deleted;/* rows read, rows dropped by DVs */
	int64_t batches;              /* batches written */
} rewrite_result;

/* Configure writer and stats options from the table and the location's
 * writer settings (compression, compression_level, row_group_size in rows,
 * row_group_bytes). LOOM_EINVAL naming a bad setting. */
int rewrite_ctx_init(rewrite_ctx *ctx, loom_store *store, const delta_snapshot *snap,
                     const loom_table_location *loc);

/* Rewrite files[0..n) (live files of one partition) into new files under
 * the partition's Hive directory. Every file written is recorded in `res`
 * even on failure, so the caller can delete them. */
int rewrite_files(const rewrite_ctx *ctx, const delta_file *const *files, size_t n,
                  rewrite_result *res);

void rewrite_result_dispose(rewrite_result *res);

/* The Hive directory ("a=1/b=x/", or "") of a file's partition values, in
 * partition-column order, values escaped. Appended to `out`. */
int rewrite_partition_dir(const delta_snapshot *snap, const delta_file *f, loom_buf *out);

#endif
