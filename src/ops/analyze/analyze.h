/* ops/analyze/analyze.h - ANALYZE TABLE ... COMPUTE DELTA STATISTICS
 * (loom_analyze, include/loom/ops.h): new Delta statistics for live files
 * that have none or miss a stats column, committed as metadata-only adds.
 *
 *     analyze.c        the run: snapshot, gate, which files, one commit
 *     analyze_file.c   one file: footer, its leaves mapped onto the table's
 *                      data columns, the statistics (footer where exact,
 *                      else a scan of the column)
 *     analyze_cover.c  whether a file's statistics cover the stats columns,
 *                      and the --columns names resolved to physical paths
 *
 * The columns are the table's data columns as the pipeline's output schema
 * lays them out (ops/pipeline/pipe_schema.h: table order, physical names,
 * partition and row tracking columns excluded), so the stats name the same
 * leaves, in the same order, as those of a file compaction writes. */
#ifndef LOOM_OPS_ANALYZE_H
#define LOOM_OPS_ANALYZE_H

#include <stddef.h>
#include <stdint.h>

#include "delta/snapshot.h"
#include "delta/stats_json.h"
#include "loom/store.h"
#include "ops/pipeline/pipe_schema.h"
#include "parquet/reader.h"

/* One live file opened for analysis. */
typedef struct analyze_file {
	const delta_file *f;
	pq_reader *r;
	pipe_schema ps;            /* the table's data columns this file has */
	pipe_leaf_map map;         /* output leaf -> file leaf */
	int have_schema;
} analyze_file;

/* Open f's footer (one ranged read) and map its leaves. Release with
 * analyze_file_close, also after a failure. */
int analyze_file_open(analyze_file *af, loom_store *store, const delta_snapshot *snap, const delta_file *f);
void analyze_file_close(analyze_file *af);

/* The stats JSON of the file (`so` the table's options; a file with a DV
 * gets "tightBounds":false). *scanned = 1 when some column had to be read
 * because the footer's statistics were not exact. *out is loom_free'd by
 * the caller. */
int analyze_file_stats(analyze_file *af, const delta_stats_opts *so, char **out, int *scanned);

/* The stats leaves as physical paths: what --columns selects. */
typedef struct analyze_columns {
	char ***paths;             /* per column: its physical name parts */
	size_t *depth;
	size_t n;
	size_t *matched;           /* per column: leaves it matched in some file */
} analyze_columns;

/* Resolve logical names (dotted into structs) against the table schema;
 * LOOM_EINVAL naming a column the table does not have. */
int analyze_columns_resolve(analyze_columns *c, const delta_snapshot *snap, const char *const *names, size_t n);
void analyze_columns_dispose(analyze_columns *c);

/* 1 when the file's statistics (f->stats) hold numRecords and a nullCount
 * for every stats leaf the file would get now (restricted to `cols` when
 * it has columns), 0 when not; < 0 on error. */
int analyze_file_covered(analyze_file *af, const delta_stats_opts *so, analyze_columns *cols);

#endif
