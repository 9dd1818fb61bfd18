/* loom/metrics.h - names of the metrics in a loom_op_result
 * (loom_op_result_metric), in one place for the library, the CLI and the
 * report. The OPTIMIZE names (compaction and Z-order) are Spark's and
 * delta-rs's operationMetrics names; the same values go into the commit's
 * commitInfo.operationMetrics. */
#ifndef LOOM_METRICS_H
#define LOOM_METRICS_H

/* every operation that commits: the version written (-1: none) */
#define LOOM_METRIC_VERSION "version"

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
/* Z-order only */
#define LOOM_METRIC_ZORDER_CURVE_HILBERT "zOrderCurveHilbert"
#define LOOM_METRIC_ZORDER_SPILL_BYTES "zOrderSpillBytes"

/* VACUUM and expired-log cleanup */
#define LOOM_METRIC_NUM_FILES_TO_DELETE "numFilesToDelete"
#define LOOM_METRIC_NUM_DELETED_FILES "numDeletedFiles"
#define LOOM_METRIC_SIZE_OF_DATA_TO_DELETE "sizeOfDataToDelete"
#define LOOM_METRIC_NUM_VACUUMED_DIRECTORIES "numVacuumedDirectories"

#endif
