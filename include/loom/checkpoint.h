/*
 * loom/checkpoint.h - writing Delta checkpoints and cleaning up expired log
 * files.
 *
 * Both fill a caller-owned `loom_op_result` (loom/ops.h): initialise it
 * (LOOM_OP_RESULT_INIT) before the call and release it with
 * loom_op_result_free() after, whatever the call returned. Option structs follow the loom/ops.h rules: initialise them with
 * the *_INIT macro or *_init function; a struct whose version is not set is
 * LOOM_EINVAL.
 */
#ifndef LOOM_CHECKPOINT_H
#define LOOM_CHECKPOINT_H

#include "common.h"
#include "ops.h"

LOOM_BEGIN_DECL

#define LOOM_CHECKPOINT_OPTS_VERSION 2 /* 2: part_size */
typedef struct loom_checkpoint_opts {
	unsigned int version;     /* LOOM_CHECKPOINT_OPTS_VERSION */
	int64_t table_version;    /* version to checkpoint; -1 = latest */
	int64_t part_size;        /* V2 checkpoints: add/remove actions per
	                           * sidecar file; 0 = 50000 (Spark's default) */
} loom_checkpoint_opts;
#define LOOM_CHECKPOINT_OPTS_INIT { LOOM_CHECKPOINT_OPTS_VERSION, -1, 0 }
/** Fill `o` (of `version`, 1 to LOOM_CHECKPOINT_OPTS_VERSION) with the
 *  defaults. LOOM_EINVAL for another version. */
LOOM_EXTERN(int) loom_checkpoint_opts_init(loom_checkpoint_opts *o, unsigned int version);

/* The metric "kind" of a checkpoint result. */
typedef enum loom_checkpoint_kind {
	LOOM_CHECKPOINT_KIND_CLASSIC = 1,  /* <v>.checkpoint.parquet (V1 spec) */
	LOOM_CHECKPOINT_KIND_V2_JSON = 3   /* <v>.checkpoint.<uuid>.json + sidecars */
} loom_checkpoint_kind;

/** Write a checkpoint of the table at `uri` and then
 *  `_delta_log/_last_checkpoint` (with its PROTOCOL.md checksum) unless it
 *  already names a version at or above v.
 *  - Tables that support the v2Checkpoint feature and set
 *    delta.checkpointPolicy=v2 (as Spark decides) get a UUID-named V2
 *    checkpoint: the add/remove actions in Parquet sidecar files under
 *    `_delta_log/_sidecars/` (`part_size` actions each, none for an empty
 *    table), and `_delta_log/<v>.checkpoint.<uuid>.json` holding
 *    checkpointMetadata, the sidecar actions, protocol, metaData, txn and
 *    domainMetadata; _last_checkpoint carries Spark's v2Checkpoint block.
 *  - Every other table gets a classic V1 checkpoint
 *    `_delta_log/<v>.checkpoint.parquet` (one Parquet file with Spark's
 *    checkpoint schema).
 *  Both hold protocol, metaData, txn, non-removed domainMetadata, live adds
 *  with their stats JSON, DV descriptors, row-tracking fields and tags, and
 *  the removes whose deletionTimestamp is newer than now -
 *  delta.deletedFileRetentionDuration. When a complete checkpoint of v
 *  already exists nothing is written and the metric `created` is 0.
 *  Metrics in `out`: version, created, kind (LOOM_CHECKPOINT_KIND_*),
 *  numActions, sizeInBytes, numAddFiles, numRemoveFiles,
 *  numExpiredTombstones, numSidecars, v2, lastCheckpointUpdated.
 *  `loc` (may be NULL) supplies the table's storage options (the store is
 *  configured from them and the environment); `cancel` (may be NULL) is
 *  checked before the checkpoint is published (LOOM_ECANCELLED: nothing
 *  is written).
 *  Errors: LOOM_EUNSUPPORTED naming the feature when the protocol (of
 *  version v) forbids loom to checkpoint (the table is untouched),
 *  LOOM_ENOTFOUND for a missing table or version, LOOM_EINVAL for bad
 *  options. */
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
/** As loom_checkpoint_opts_init. */
LOOM_EXTERN(int) loom_cleanup_logs_opts_init(loom_cleanup_logs_opts *o, unsigned int version);

/** Delete log files no retained version needs (Delta "Metadata Cleanup").
 *  cutoff = now - retention, truncated down to midnight UTC (as Spark does).
 *  A commit's time is its file's modification time, or, on tables with
 *  in-commit timestamps (from delta.inCommitTimestampEnablementVersion on),
 *  its inCommitTimestamp. The kept checkpoint K is the newest usable
 *  checkpoint (no empty file, every referenced sidecar present) at or
 *  before the newest commit whose time is not after the cutoff. Deleted:
 *  commits, .crc files and checkpoints (classic, multi-part, V2) of
 *  versions < K, compaction files x.y.compacted.json with x <= K, and
 *  their Hadoop ".<name>.crc" side files - each only if old enough (a
 *  version with an in-commit timestamp is; any other file needs its own
 *  modification time <= cutoff); commits before checkpoints. Then, on
 *  v2Checkpoint tables, every file in _delta_log/_sidecars/ that no
 *  remaining checkpoint references and whose modification time is <=
 *  cutoff. K itself, anything after it and _last_checkpoint are never
 *  touched; without a qualifying K no commit or checkpoint is.
 *  On v2Checkpoint tables whose newest checkpoint is UUID-named and has
 *  no classic-named one beside it, a run that deletes commits or
 *  checkpoints first writes a classic-named V2 copy of it (PROTOCOL.md:
 *  so clients unaware of V2 find the protocol; as Spark does); metric
 *  compatCheckpointWritten.
 *  checkpointProtection: with delta.requireCheckpointProtectionBeforeVersion
 *  = P > 0, commits and checkpoints are deleted only when K >= P and every
 *  file of a version < P goes in this run; otherwise none is (metric
 *  checkpointProtectionBlocked = 1).
 *  `out` (kind LOOM_RESULT_VACUUM) lists the keys deleted, or that a dry run
 *  would delete, relative to the table root (e.g. "_delta_log/000...0.json"),
 *  commits first; metrics: checkpointVersion (-1 none), cutoffMs,
 *  cutoffCommit, inCommitTimestamps, numDeletedFiles (numFilesToDelete for
 *  a dry run), numSidecarsDeleted, sizeOfDataToDelete, numStaleTempFiles
 *  (temp files killed writers left in _delta_log/, untouched for an hour,
 *  deleted whatever the retention), and with checkpointProtection
 *  checkpointProtectionVersion and checkpointProtectionBlocked.
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
