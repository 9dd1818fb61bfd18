/* ops/vacuum/vacuum.h - VACUUM: delete data files no reader of a retained version
 * needs.
 *
 * Lite mode deletes the files the log records as removed whose removal is
 * older than the retention: tombstones still in the snapshot, and also the
 * remove actions of commit files still on disk whose tombstones a checkpoint
 * already dropped (delta-rs misses those), plus expired change-data files.
 * Full mode also deletes every file under the table root that the snapshot
 * does not reference and that is older than the retention, whoever wrote it.
 *
 * Never deleted: a file the current snapshot references (data files and
 * their deletion-vector files), a removed file still inside the retention
 * window, anything outside the table root, anything under a path component
 * starting with '_' or '.' (so _delta_log and a=1/_SUCCESS are kept; the
 * exceptions, as in Spark, are _change_data*, _delta_index* and partition
 * directories like _p=1 of a partition column _p).
 *
 * Both modes, dry runs included, also find the incomplete multipart
 * uploads under the table root (store list_uploads: S3; a killed writer
 * leaves one open and its parts are billed until aborted) started before
 * the retention horizon, and abort them (dry runs list them). They are no
 * part of any table version, so aborting one needs no commit; when files
 * are deleted too, VACUUM START/END count them. */
#ifndef LOOM_OPS_VACUUM_H
#define LOOM_OPS_VACUUM_H

#include <stdint.h>

#include "loom/ops.h"
#include "loom/store.h"
#include "util/clock.h"
#include "util/secret.h"

typedef struct vacuum_params {
	int64_t retention_hours;     /* LOOM_RETENTION_TABLE_DEFAULT: the table's */
	int dry_run;
	int full;
	int retention_check;         /* refuse a retention below the table's */
	const loom_clock *clock;     /* NULL: system clock */
	const loom_cancel *cancel;   /* may be NULL */
	const loom_kv *commit_metadata; /* the config's commit block */
	size_t n_commit_metadata;
	const loom_secrets *secrets;  /* masked in commitInfo; may be NULL */
} vacuum_params;

/* Run VACUUM on the table in `store`. Fills `out` (kind VACUUM): the paths
 * deleted (or that a dry run would delete), sorted, and the metrics
 * numDeletedFiles/numFilesToDelete, sizeOfDataToDelete (bytes),
 * numVacuumedDirectories, version (of VACUUM END, -1 for dry runs); the
 * uploads aborted (dry: to abort) in out->uploads with
 * numAbortedMultipartUploads / numMultipartUploadsToAbort and
 * sizeOfMultipartUploads.
 * Errors leave the table as it was, except that files already deleted
 * stay deleted (then VACUUM END records FAILED). */
int vacuum_run(loom_op_result *out, loom_store *store, const vacuum_params *p);

/* Is `key` hidden from vacuum: any component starting with '_' or '.',
 * except _change_data*, _delta_index* and "<partition column>=..."
 * directories? `part_cols` may be NULL. */
int vacuum_is_hidden(const char *key, const char *const *part_cols, size_t n_part_cols);

#endif
