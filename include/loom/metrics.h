/* loom/metrics.h - names of the metrics in a loom_op_result
 * (loom_op_result_metric), in one place for the library, the CLI and the
 * report. The OPTIMIZE names (compaction and Z-order) are Spark's and
 * delta-rs's operationMetrics names; the same values go into the commit's
 * commitInfo.operationMetrics. */
#ifndef LOOM_METRICS_H
#define LOOM_METRICS_H

/* every operation that commits: the version written (-1: none) */
#define LOOM_METRIC_VERSION "version"
/* OPTIMIZE with commit_every: the commits made, and the units of work
 * left undone when the run stopped early (0: it finished). */
#define LOOM_METRIC_NUM_COMMITS "numCommits"
#define LOOM_METRIC_UNITS_LEFT "unitsLeft"

/* OPTIMIZE: compaction and Z-order */
#define LOOM_METRIC_NUM_FILES_ADDED "numFilesAdded"
#define LOOM_METRIC_NUM_FILES_REMOVED "numFilesRemoved"
#define LOOM_METRIC_NUM_ADDED_BYTES "numAddedBytes"
#define LOOM_METRIC_NUM_REMOVED_BYTES "numRemovedBytes"
#define LOOM_METRIC_PARTITIONS_OPTIMIZED "partitionsOptimized"
#define LOOM_METRIC_TOTAL_CONSIDERED_FILES "totalConsideredFiles"
#define LOOM_METRIC_TOTAL_FILES_SKIPPED "totalFilesSkipped"
#define LOOM_METRIC_NUM_DVS_REMOVED "numDeletionVectorsRemoved"
#define LOOM_METRIC_NUM_BINS "numBins"
#define LOOM_METRIC_NUM_BATCHES "numBatches"
#define LOOM_METRIC_TARGET_SIZE "targetSize"
#define LOOM_METRIC_DRY_RUN "dryRun"
#define LOOM_METRIC_PRESERVE_INSERTION_ORDER "preserveInsertionOrder"
/* size summaries: LOOM_METRIC_FILES_ADDED "." one of the LOOM_SUMMARY_* */
#define LOOM_METRIC_FILES_ADDED "filesAdded"
#define LOOM_METRIC_FILES_REMOVED "filesRemoved"
#define LOOM_SUMMARY_MIN "min"
#define LOOM_SUMMARY_MAX "max"
#define LOOM_SUMMARY_AVG "avg"
#define LOOM_SUMMARY_TOTAL_FILES "totalFiles"
#define LOOM_SUMMARY_TOTAL_SIZE "totalSize"
#define LOOM_METRIC_FILES_REMOVED_TOTAL_FILES "filesRemoved.totalFiles"
#define LOOM_METRIC_FILES_REMOVED_TOTAL_SIZE "filesRemoved.totalSize"
/* purge (REORG ... APPLY (PURGE)): DV-deleted rows dropped */
#define LOOM_METRIC_NUM_ROWS_PURGED "numRowsPurged"
/* analyze (COMPUTE STATS): files given new stats, files in scope, files
 * with a column scanned (the footer's statistics were not exact) */
#define LOOM_METRIC_NUM_FILES_ANALYZED "numFilesAnalyzed"
#define LOOM_METRIC_NUM_FILES_SCANNED "numFilesScanned"

/* Z-order only */
#define LOOM_METRIC_ZORDER_CURVE_HILBERT "zOrderCurveHilbert"
#define LOOM_METRIC_ZORDER_SPILL_BYTES "zOrderSpillBytes"

/* VACUUM and expired-log cleanup */
#define LOOM_METRIC_NUM_FILES_TO_DELETE "numFilesToDelete"
#define LOOM_METRIC_NUM_DELETED_FILES "numDeletedFiles"
#define LOOM_METRIC_SIZE_OF_DATA_TO_DELETE "sizeOfDataToDelete"
#define LOOM_METRIC_NUM_VACUUMED_DIRECTORIES "numVacuumedDirectories"
/* VACUUM: incomplete multipart uploads under the table root (S3) aborted,
 * or that a dry run would abort, and the bytes of their parts */
#define LOOM_METRIC_NUM_ABORTED_UPLOADS "numAbortedMultipartUploads"
#define LOOM_METRIC_NUM_UPLOADS_TO_ABORT "numMultipartUploadsToAbort"
#define LOOM_METRIC_SIZE_OF_UPLOADS "sizeOfMultipartUploads"
/* VACUUM: 1 when the store refused to list the uploads (no permission):
 * the table's files were vacuumed, its uploads not looked at */
#define LOOM_METRIC_UPLOADS_NOT_LISTED "multipartUploadsNotListed"
/* cleanup-logs: how many of the deleted were temp files killed writers
 * left in _delta_log/ */
#define LOOM_METRIC_NUM_STALE_TEMP_FILES "numStaleTempFiles"
/* expired-log cleanup only: the newest checkpoint kept, the cutoff (ms) */
#define LOOM_METRIC_CHECKPOINT_VERSION "checkpointVersion"
#define LOOM_METRIC_CUTOFF_MS "cutoffMs"

/* checkpoint: 0 when one of the version already existed; the rest as
 * _last_checkpoint and Spark's checkpoint metrics */
#define LOOM_METRIC_CREATED "created"
#define LOOM_METRIC_LAST_CHECKPOINT_UPDATED "lastCheckpointUpdated"
#define LOOM_METRIC_NUM_ACTIONS "numActions"
#define LOOM_METRIC_SIZE_IN_BYTES "sizeInBytes"
#define LOOM_METRIC_NUM_ADD_FILES "numAddFiles"
#define LOOM_METRIC_NUM_REMOVE_FILES "numRemoveFiles"
#define LOOM_METRIC_NUM_EXPIRED_TOMBSTONES "numExpiredTombstones"
#define LOOM_METRIC_V2 "v2"

/* CONVERT TO DELTA: the files, rows and bytes the new table holds */
#define LOOM_METRIC_NUM_FILES "numFiles"
#define LOOM_METRIC_NUM_RECORDS "numRecords"
#define LOOM_METRIC_NUM_BYTES "numBytes"

/* V2 checkpoints, in-commit timestamps and checkpointProtection */
/* checkpoint: LOOM_CHECKPOINT_KIND_* of the checkpoint written */
#define LOOM_METRIC_CHECKPOINT_KIND "kind"
/* checkpoint: sidecar files of a V2 checkpoint */
#define LOOM_METRIC_NUM_SIDECARS "numSidecars"
/* expired-log cleanup: the newest commit not after the cutoff (-1 none) */
#define LOOM_METRIC_CUTOFF_COMMIT "cutoffCommit"
/* expired-log cleanup: 1 when commits were dated by their in-commit timestamps */
#define LOOM_METRIC_IN_COMMIT_TIMESTAMPS "inCommitTimestamps"
/* expired-log cleanup: unreferenced sidecars deleted */
#define LOOM_METRIC_NUM_SIDECARS_DELETED "numSidecarsDeleted"
/* expired-log cleanup: 1 when a classic-named copy of a V2 checkpoint was written first */
#define LOOM_METRIC_COMPAT_CHECKPOINT_WRITTEN "compatCheckpointWritten"
/* expired-log cleanup: delta.requireCheckpointProtectionBeforeVersion */
#define LOOM_METRIC_CHECKPOINT_PROTECTION_VERSION "checkpointProtectionVersion"
/* expired-log cleanup: 1 when checkpointProtection kept every commit and checkpoint */
#define LOOM_METRIC_CHECKPOINT_PROTECTION_BLOCKED "checkpointProtectionBlocked"

/* Prometheus / OpenMetrics families of loom/observe.h (docs/observability.md:
 * labels, meanings); counters end _total, units are base units. */
#define LOOM_PROM_RUN_DURATION "loom_run_duration_seconds"
#define LOOM_PROM_RUN_TIMESTAMP "loom_run_timestamp_seconds"
#define LOOM_PROM_RUN_TABLES "loom_run_tables"
#define LOOM_PROM_TABLE_DURATION "loom_table_duration_seconds"
#define LOOM_PROM_TABLE_LAST_SUCCESS "loom_table_last_success_timestamp_seconds"
#define LOOM_PROM_ERRORS "loom_errors_total"
#define LOOM_PROM_OP_DURATION "loom_operation_duration_seconds"
#define LOOM_PROM_OP_FILES_READ "loom_operation_files_read_total"
#define LOOM_PROM_OP_FILES_WRITTEN "loom_operation_files_written_total"
#define LOOM_PROM_OP_FILES_REMOVED "loom_operation_files_removed_total"
#define LOOM_PROM_OP_BYTES_READ "loom_operation_bytes_read_total"
#define LOOM_PROM_OP_BYTES_WRITTEN "loom_operation_bytes_written_total"
#define LOOM_PROM_OP_BYTES_REMOVED "loom_operation_bytes_removed_total"
#define LOOM_PROM_OP_ROWS_REMOVED "loom_operation_rows_removed_total"
#define LOOM_PROM_OP_METRIC "loom_operation_metric"
#define LOOM_PROM_STORE_REQUESTS "loom_store_requests_total"
#define LOOM_PROM_STORE_RETRIES "loom_store_retries_total"
#define LOOM_PROM_STORE_BYTES_READ "loom_store_read_bytes_total"
#define LOOM_PROM_STORE_BYTES_WRITTEN "loom_store_written_bytes_total"
#define LOOM_PROM_HEALTH_VERSION "loom_health_table_version"
#define LOOM_PROM_HEALTH_FILES "loom_health_files"
#define LOOM_PROM_HEALTH_BYTES "loom_health_bytes"
#define LOOM_PROM_HEALTH_ROWS "loom_health_rows"
#define LOOM_PROM_HEALTH_SMALL_FILES "loom_health_small_files"
#define LOOM_PROM_HEALTH_SMALL_BYTES "loom_health_small_bytes"
#define LOOM_PROM_HEALTH_DELETED_ROW_RATIO "loom_health_deleted_row_ratio"
#define LOOM_PROM_HEALTH_COMMITS_SINCE_CHECKPOINT "loom_health_commits_since_checkpoint"
#define LOOM_PROM_HEALTH_CLUSTERING_DEPTH "loom_health_clustering_depth"
#define LOOM_PROM_HEALTH_TOMBSTONES_EXPIRED "loom_health_expired_tombstone_files"
#define LOOM_PROM_HEALTH_RECOMMENDED "loom_health_recommended"

#endif
