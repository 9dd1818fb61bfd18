/*
 * loom/checkpoint.h - writing Delta checkpoints and cleaning up expired log
 * files.
 *
 * Both fill a caller-owned `loom_op_result` (loom/ops.h): zero it before the
 * call and release it with loom_op_result_clear() after, whatever the call
 * returned. Option structs follow the loom/ops.h rules: initialise them with
 * the *_INIT macro; a struct whose version is not set is LOOM_EINVAL.
 */
#ifndef LOOM_CHECKPOINT_H
#define LOOM_CHECKPOINT_H

#include "common.h"
#include "ops.h"

LOOM_BEGIN_DECL

#define LOOM_CHECKPOINT_OPTS_VERSION 1
typedef struct loom_checkpoint_opts {
	unsigned int version;     /* LOOM_CHECKPOINT_OPTS_VERSION */
	int64_t table_version;    /* version to checkpoint; -1 = latest */
} loom_checkpoint_opts;
#define LOOM_CHECKPOINT_OPTS_INIT { LOOM_CHECKPOINT_OPTS_VERSION, -1 }

/** Write a classic checkpoint `_delta_log/<v>.checkpoint.parquet` of the
 *  table at `uri` (one Parquet file with Spark's checkpoint schema: protocol,
 *  metaData, txn, domainMetadata, live adds with their stats JSON, DV
 *  descriptors, row-tracking fields and tags, and the removes whose
 *  deletionTimestamp is newer than now - delta.deletedFileRetentionDuration),
 *  then `_delta_log/_last_checkpoint` unless it already names a version at
 *  or above v. Tables with the v2Checkpoint feature get the V2 spec (an extra
 *  checkpointMetadata row, no sidecars) if the protocol gate allows it.
 *  When a complete checkpoint of v already exists nothing is written and the
 *  metric `created` is 0.
 *  Metrics in `out`: version, created, numActions, sizeInBytes, numAddFiles,
 *  numRemoveFiles, numExpiredTombstones, v2, lastCheckpointUpdated.
 *  `loc` (may be NULL) supplies the table's storage options (the store is
 *  configured from them and the environment); `cancel` (may be NULL) is
 *  checked before the checkpoint is published (LOOM_ECANCELLED: nothing
 *  is written).
 *  Errors: LOOM_EUNSUPPORTED naming the feature when the protocol forbids
 *  loom to checkpoint (the table is untouched), LOOM_ENOTFOUND for a missing
 *  table or version, LOOM_EINVAL for bad options. */
LOOM_EXTERN(int) loom_checkpoint(loom_op_result *out, const char *uri,
                                 const loom_table_location *loc,
                                 const loom_checkpoint_opts *opts,
                                 const loom_cancel *cancel);

#define LOOM_CLEANUP_LOGS_OPTS_VERSION 1
typedef struct loom_cleanup_logs_opts {
	unsigned int version;     /* LOOM_CLEANUP_LOGS_OPTS_VERSION */
	int dry_run;              /* default 1: list, delete nothing */
	int force;                /* default 0: refuse when the table sets
	                           * delta.enableExpiredLogCleanup=false */
	int64_t retention_hours;  /* -1 (default): delta.logRetentionDuration,
	                           * 30 days; else >= 0 */
} loom_cleanup_logs_opts;
#define LOOM_CLEANUP_LOGS_OPTS_INIT { LOOM_CLEANUP_LOGS_OPTS_VERSION, 1, 0, -1 }

/** Delete log files no retained version needs (Delta "Metadata Cleanup").
 *  cutoff = now - retention, truncated down to midnight UTC (as Spark does).
 *  The kept checkpoint K is the newest complete checkpoint at or before the
 *  newest commit whose file is older than the cutoff. Deleted (each only if
 *  its own mtime is older than the cutoff): commits, .crc files and
 *  checkpoints (classic, multi-part, V2) of versions < K, compaction files
 *  x.y.compacted.json with x <= K, and their Hadoop ".<name>.crc" side
 *  files. Sidecars are deleted only when no remaining checkpoint is V2 (so
 *  none can reference them). K itself, anything after it and
 *  _last_checkpoint are never touched; without a qualifying K nothing is.
 *  `out` (kind LOOM_RESULT_VACUUM) lists the keys deleted, or that a dry run
 *  would delete, relative to the table root (e.g. "_delta_log/000...0.json"),
 *  oldest first; metrics: checkpointVersion (-1 none), cutoffMs,
 *  numDeletedFiles, sizeOfDataToDelete.
 *  `loc` (may be NULL) supplies the table's storage options; `cancel` (may
 *  be NULL) is polled between deletions (LOOM_ECANCELLED: the files
 *  deleted so far were expired anyway).
 *  Errors: LOOM_EUNSUPPORTED for a protocol the gate refuses, or when the
 *  table sets delta.enableExpiredLogCleanup=false and `force` is 0. */
LOOM_EXTERN(int) loom_cleanup_logs(loom_op_result *out, const char *uri,
                                   const loom_table_location *loc,
                                   const loom_cleanup_logs_opts *opts,
                                   const loom_cancel *cancel);

LOOM_END_DECL

#endif
