/*
 * loom/convert.h - CONVERT TO DELTA: adopt a directory of Parquet files,
 * in place, as a Delta table.
 */
#ifndef LOOM_CONVERT_H
#define LOOM_CONVERT_H

#include "common.h"
#include "ops.h"

LOOM_BEGIN_DECL

#define LOOM_CONVERT_OPTS_VERSION 1
typedef struct loom_convert_opts {
	unsigned int version;                  /* LOOM_CONVERT_OPTS_VERSION */
	/* Hive partition columns, outermost first (borrowed for the call;
	 * NULL / 0 = not partitioned). */
	const char *const *partition_columns;
	size_t n_partition_columns;
} loom_convert_opts;
#define LOOM_CONVERT_OPTS_INIT { LOOM_CONVERT_OPTS_VERSION, NULL, 0 }
/** Fill `o` (of `version`, 1 to LOOM_CONVERT_OPTS_VERSION) with the
 *  defaults. LOOM_EINVAL for another version. */
LOOM_EXTERN(int) loom_convert_opts_init(loom_convert_opts *o, unsigned int version);

/** Make the directory at `uri` a Delta table at version 0 from the Parquet
 *  files under it (names ending in .parquet; path components starting with
 *  '_' or '.' are skipped). The files are not touched.
 *
 *  - Schema: from the Parquet schema (every file must have the same one):
 *    integers -> byte/short/integer/long (unsigned ones widened), float,
 *    double, boolean, string, binary, date, timestamp (UTC-adjusted or
 *    INT96) / timestamp_ntz, decimal(p,s), struct, array, map.
 *  - Partitions: opts->partition_columns (may be none) name the Hive
 *    directories each file must sit under, in that order ("a=1/b=x/f.parquet");
 *    values are unescaped; __HIVE_DEFAULT_PARTITION__ is null. Their type
 *    is long when every value is an integer, date when every value is a
 *    date, else string.
 *  - Stats: numRecords, minValues/maxValues/nullCount from the footers.
 *  - One commit: protocol (1,2; or 3,7 with timestampNtz), metaData, the
 *    adds and commitInfo CONVERT. `loc` (may be NULL) supplies storage
 *    options and commit metadata; `opts` NULL means not partitioned;
 *    `cancel` (may be NULL) is polled between footers and before the
 *    commit.
 *  `out` (LOOM_OP_RESULT_INIT; loom_op_result_free) gets the metrics numFiles,
 *  numRecords, numBytes and version (0).
 *  LOOM_EEXISTS if the directory already holds a Delta log; LOOM_EINVAL for
 *  a file outside the partition layout or schemas that differ;
 *  LOOM_EUNSUPPORTED for Parquet types Delta cannot represent. */
LOOM_EXTERN(int) loom_convert(loom_op_result *out, const char *uri,
                              const loom_table_location *loc,
                              const loom_convert_opts *opts,
                              const loom_cancel *cancel);

LOOM_END_DECL

#endif
