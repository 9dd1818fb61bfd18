"""The names of the metrics on a result's ``metrics`` mapping (VacuumResult,
OptimizeResult, :class:`libloom.native.OpResult`), as the C library names
them in ``include/loom/metrics.h``: ``LOOM_METRIC_X`` there is ``X`` here,
``LOOM_SUMMARY_X`` is ``SUMMARY_X``. The test suite holds the two lists
equal (tests/python/test_abi.py).

The OPTIMIZE names (compaction and Z-order) are Spark's and delta-rs's
``operationMetrics`` names, so ``result.metrics[NUM_ADDED_BYTES]`` reads
like delta-rs's ``optimize.compact()["numAddedBytes"]``. Size summaries
are ``FILES_ADDED + "." + SUMMARY_MIN`` and so on.
"""

from __future__ import annotations

from typing import Final

# every operation that commits: the version written (-1: none)
VERSION: Final = "version"
# OPTIMIZE with commit_every: the commits made, the units of work left
# undone when the run stopped early (0: it finished)
NUM_COMMITS: Final = "numCommits"
UNITS_LEFT: Final = "unitsLeft"

# OPTIMIZE: compaction and Z-order
NUM_FILES_ADDED: Final = "numFilesAdded"
NUM_FILES_REMOVED: Final = "numFilesRemoved"
NUM_ADDED_BYTES: Final = "numAddedBytes"
NUM_REMOVED_BYTES: Final = "numRemovedBytes"
PARTITIONS_OPTIMIZED: Final = "partitionsOptimized"
TOTAL_CONSIDERED_FILES: Final = "totalConsideredFiles"
TOTAL_FILES_SKIPPED: Final = "totalFilesSkipped"
NUM_DVS_REMOVED: Final = "numDeletionVectorsRemoved"
NUM_BINS: Final = "numBins"
NUM_BATCHES: Final = "numBatches"
TARGET_SIZE: Final = "targetSize"
DRY_RUN: Final = "dryRun"
PRESERVE_INSERTION_ORDER: Final = "preserveInsertionOrder"
FILES_ADDED: Final = "filesAdded"
FILES_REMOVED: Final = "filesRemoved"
SUMMARY_MIN: Final = "min"
SUMMARY_MAX: Final = "max"
SUMMARY_AVG: Final = "avg"
SUMMARY_TOTAL_FILES: Final = "totalFiles"
SUMMARY_TOTAL_SIZE: Final = "totalSize"
FILES_REMOVED_TOTAL_FILES: Final = "filesRemoved.totalFiles"
FILES_REMOVED_TOTAL_SIZE: Final = "filesRemoved.totalSize"
# purge (REORG ... APPLY (PURGE)): DV-deleted rows dropped
NUM_ROWS_PURGED: Final = "numRowsPurged"
# analyze (COMPUTE STATS): files given new stats, files with a column scanned
NUM_FILES_ANALYZED: Final = "numFilesAnalyzed"
NUM_FILES_SCANNED: Final = "numFilesScanned"
# Z-order only
ZORDER_CURVE_HILBERT: Final = "zOrderCurveHilbert"
ZORDER_SPILL_BYTES: Final = "zOrderSpillBytes"

# VACUUM and expired-log cleanup
NUM_FILES_TO_DELETE: Final = "numFilesToDelete"
NUM_DELETED_FILES: Final = "numDeletedFiles"
SIZE_OF_DATA_TO_DELETE: Final = "sizeOfDataToDelete"
NUM_VACUUMED_DIRECTORIES: Final = "numVacuumedDirectories"
# VACUUM: incomplete multipart uploads under the table root (S3) aborted,
# or that a dry run would abort, and the bytes of their parts
NUM_ABORTED_UPLOADS: Final = "numAbortedMultipartUploads"
NUM_UPLOADS_TO_ABORT: Final = "numMultipartUploadsToAbort"
SIZE_OF_UPLOADS: Final = "sizeOfMultipartUploads"
UPLOADS_NOT_LISTED: Final = "multipartUploadsNotListed"
# expired-log cleanup: how many of the deleted were temp files killed
# writers left in _delta_log/
NUM_STALE_TEMP_FILES: Final = "numStaleTempFiles"
# expired-log cleanup only
CHECKPOINT_VERSION: Final = "checkpointVersion"
CUTOFF_MS: Final = "cutoffMs"

# V2 checkpoints, in-commit timestamps and checkpointProtection
CHECKPOINT_KIND: Final = "kind"
NUM_SIDECARS: Final = "numSidecars"
CUTOFF_COMMIT: Final = "cutoffCommit"
IN_COMMIT_TIMESTAMPS: Final = "inCommitTimestamps"
NUM_SIDECARS_DELETED: Final = "numSidecarsDeleted"
COMPAT_CHECKPOINT_WRITTEN: Final = "compatCheckpointWritten"
CHECKPOINT_PROTECTION_VERSION: Final = "checkpointProtectionVersion"
CHECKPOINT_PROTECTION_BLOCKED: Final = "checkpointProtectionBlocked"

# checkpoint
CREATED: Final = "created"
LAST_CHECKPOINT_UPDATED: Final = "lastCheckpointUpdated"
NUM_ACTIONS: Final = "numActions"
SIZE_IN_BYTES: Final = "sizeInBytes"
NUM_ADD_FILES: Final = "numAddFiles"
NUM_REMOVE_FILES: Final = "numRemoveFiles"
NUM_EXPIRED_TOMBSTONES: Final = "numExpiredTombstones"
V2: Final = "v2"

# CONVERT TO DELTA
NUM_FILES: Final = "numFiles"
NUM_RECORDS: Final = "numRecords"
NUM_BYTES: Final = "numBytes"

_SUMMARIES = (SUMMARY_MIN, SUMMARY_MAX, SUMMARY_AVG, SUMMARY_TOTAL_FILES, SUMMARY_TOTAL_SIZE)

# Prometheus / OpenMetrics metric families of `loom maintain --metrics`,
# `loom health --format openmetrics` and :func:`render` (include/loom/metrics.h
# LOOM_PROM_*; docs/observability.md says their labels and meanings).
PROM_RUN_DURATION: Final = "loom_run_duration_seconds"
PROM_RUN_TIMESTAMP: Final = "loom_run_timestamp_seconds"
PROM_RUN_TABLES: Final = "loom_run_tables"
PROM_TABLE_DURATION: Final = "loom_table_duration_seconds"
PROM_TABLE_LAST_SUCCESS: Final = "loom_table_last_success_timestamp_seconds"
PROM_ERRORS: Final = "loom_errors_total"
PROM_OP_DURATION: Final = "loom_operation_duration_seconds"
PROM_OP_FILES_READ: Final = "loom_operation_files_read_total"
PROM_OP_FILES_WRITTEN: Final = "loom_operation_files_written_total"
PROM_OP_FILES_REMOVED: Final = "loom_operation_files_removed_total"
PROM_OP_BYTES_READ: Final = "loom_operation_bytes_read_total"
PROM_OP_BYTES_WRITTEN: Final = "loom_operation_bytes_written_total"
PROM_OP_BYTES_REMOVED: Final = "loom_operation_bytes_removed_total"
PROM_OP_ROWS_REMOVED: Final = "loom_operation_rows_removed_total"
PROM_OP_METRIC: Final = "loom_operation_metric"
PROM_STORE_REQUESTS: Final = "loom_store_requests_total"
PROM_STORE_RETRIES: Final = "loom_store_retries_total"
PROM_STORE_BYTES_READ: Final = "loom_store_read_bytes_total"
PROM_STORE_BYTES_WRITTEN: Final = "loom_store_written_bytes_total"
PROM_HEALTH_VERSION: Final = "loom_health_table_version"
PROM_HEALTH_FILES: Final = "loom_health_files"
PROM_HEALTH_BYTES: Final = "loom_health_bytes"
PROM_HEALTH_ROWS: Final = "loom_health_rows"
PROM_HEALTH_SMALL_FILES: Final = "loom_health_small_files"
PROM_HEALTH_SMALL_BYTES: Final = "loom_health_small_bytes"
PROM_HEALTH_DELETED_ROW_RATIO: Final = "loom_health_deleted_row_ratio"
PROM_HEALTH_COMMITS_SINCE_CHECKPOINT: Final = "loom_health_commits_since_checkpoint"
PROM_HEALTH_CLUSTERING_DEPTH: Final = "loom_health_clustering_depth"
PROM_HEALTH_TOMBSTONES_EXPIRED: Final = "loom_health_expired_tombstone_files"
PROM_HEALTH_RECOMMENDED: Final = "loom_health_recommended"


def known_names() -> frozenset[str]:
    """Every metric name an operation may report (size summaries
    expanded: ``filesAdded.min`` ...)."""
    names = {v for k, v in globals().items()
             if k.isupper() and isinstance(v, str)
             and not k.startswith(("SUMMARY_", "PROM_"))}
    names -= {FILES_ADDED, FILES_REMOVED}
    names |= {f"{base}.{s}" for base in (FILES_ADDED, FILES_REMOVED) for s in _SUMMARIES}
    return frozenset(names)
