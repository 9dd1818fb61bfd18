/* ops/log/checkpoint.h - writing checkpoints and cleaning up expired log files.
 *
 * Checkpoint: a classic V1 Parquet file _delta_log/<v>.checkpoint.parquet
 * with Spark's checkpoint schema (one row per action: protocol, metaData,
 * txn, domainMetadata, live add, unexpired remove), or for tables with
 * v2Checkpoint and delta.checkpointPolicy=v2 a UUID-named V2 checkpoint
 * (JSON top-level file + Parquet sidecars), published with put-if-absent,
 * then _last_checkpoint. A checkpoint is an optional optimisation: when one
 * already exists for the version nothing is written (created = 0).
 *
 * Log cleanup: see log_cleanup_run below. */
#ifndef LOOM_OPS_CHECKPOINT_H
#define LOOM_OPS_CHECKPOINT_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "delta/snapshot.h"
#include "loom/ops.h"
#include "loom/store.h"
#include "parquet/batch.h"
#include "parquet/types.h"
#include "parquet/writer.h"
#include "util/clock.h"

/* ---- the checkpoint Parquet schema (checkpoint_schema.c) ---------------- */

/* Leaf columns, in schema (depth-first) order. */
enum {
	CK_ADD_PATH, CK_ADD_PV_K, CK_ADD_PV_V, CK_ADD_SIZE, CK_ADD_MTIME,
	CK_ADD_DATACHANGE, CK_ADD_STATS, CK_ADD_TAGS_K, CK_ADD_TAGS_V,
	CK_ADD_DV_TYPE, CK_ADD_DV_PATH, CK_ADD_DV_OFFSET, CK_ADD_DV_SIZE,
	CK_ADD_DV_CARD, CK_ADD_BASEROWID, CK_ADD_DRCV, CK_ADD_CLUSTERING,
	CK_REM_PATH, CK_REM_DELTS, CK_REM_DATACHANGE, CK_REM_EXTMETA,
	CK_REM_PV_K, CK_REM_PV_V, CK_REM_SIZE, CK_REM_TAGS_K, CK_REM_TAGS_V,
	CK_REM_DV_TYPE, CK_REM_DV_PATH, CK_REM_DV_OFFSET, CK_REM_DV_SIZE,
	CK_REM_DV_CARD, CK_REM_BASEROWID, CK_REM_DRCV,
	CK_TXN_APPID, CK_TXN_VERSION, CK_TXN_LASTUPDATED,
	CK_META_ID, CK_META_NAME, CK_META_DESC, CK_META_FMT_PROVIDER,
	CK_META_FMT_OPT_K, CK_META_FMT_OPT_V, CK_META_SCHEMA, CK_META_PCOLS,
	CK_META_CONF_K, CK_META_CONF_V, CK_META_CREATED,
	CK_PROTO_MINR, CK_PROTO_MINW, CK_PROTO_RF, CK_PROTO_WF,
	CK_DOM_DOMAIN, CK_DOM_CONF, CK_DOM_REMOVED,
	/* V2 layout only */
	CK_CKMETA_VERSION, CK_CKMETA_TAGS_K, CK_CKMETA_TAGS_V,
	CK_SIDECAR_PATH, CK_SIDECAR_SIZE, CK_SIDECAR_MTIME, CK_SIDECAR_TAGS_K,
	CK_SIDECAR_TAGS_V,
	CK_NUM_LEAVES
};

/* The first leaf of each top-level action column, and one past its last. */
typedef enum ck_action {
	CK_ACT_ADD = 0, CK_ACT_REMOVE, CK_ACT_TXN, CK_ACT_META, CK_ACT_PROTOCOL,
	CK_ACT_DOMAIN, CK_ACT_CKMETA, CK_ACT_SIDECAR, CK_ACT_COUNT
} ck_action;
extern const int ck_action_first_leaf[CK_ACT_COUNT + 1];

typedef enum ck_layout {
	CK_LAYOUT_SIDECAR,   /* add, remove: a V2 sidecar file */
	CK_LAYOUT_V1,        /* + txn, metaData, protocol, domainMetadata */
	CK_LAYOUT_V2         /* + checkpointMetadata, sidecar */
} ck_layout;

/* The flattened schema of `layout`: fills `nodes` (static storage, never
 * freed) and the count. */
void ck_schema(const pq_schema_node **nodes, size_t *n, ck_layout layout);

/* Leaf columns of `layout` (a prefix of the enum above). */
size_t ck_num_leaves(ck_layout layout);

/* Set up an empty batch with the leaf types and levels of the layout. */
int ck_batch_init(pq_batch *b, ck_layout layout);

/* ---- writing (checkpoint_rows.c, checkpoint_v2.c, checkpoint.c) -------- */

typedef struct checkpoint_params {
	int64_t version;             /* -1: latest */
	int64_t part_size;           /* V2: file actions per sidecar; 0: 50000 */
	const loom_clock *clock;     /* NULL: system clock (tombstone expiry) */
	const loom_cancel *cancel;   /* checked before publishing; may be NULL */
} checkpoint_params;

#define CHECKPOINT_DEFAULT_PART_SIZE 50000   /* Spark's checkpoint part size for V2 */

/* Write a checkpoint of the table in `store`: a UUID-named V2 checkpoint
 * (JSON top-level file + Parquet sidecars) when the table supports
 * v2Checkpoint and sets delta.checkpointPolicy=v2, else a classic V1 one.
 * Metrics in `out`: version, created (0 when one existed), kind
 * (LOOM_CHECKPOINT_KIND_*), numActions, sizeInBytes, numAddFiles,
 * numRemoveFiles (kept tombstones), numExpiredTombstones, numSidecars,
 * v2 (1 when the checkpoint follows the V2 spec), lastCheckpointUpdated.
 * LOOM_EUNSUPPORTED (naming the feature) for protocols loom may not
 * checkpoint; the table is then untouched. */
int checkpoint_run(loom_op_result *out, loom_store *store, const checkpoint_params *p);

/* What one written file holds. */
typedef struct ck_counts {
	int64_t actions;     /* rows */
	int64_t adds, removes, expired;
	uint64_t bytes;      /* file size */
} ck_counts;

/* Receives each file action a checkpoint keeps (borrowed for the call). */
typedef int (*ck_file_fn)(void *ctx, const delta_file *f);

/* Every file action a checkpoint of `snap` keeps, in the order written:
 * the live adds the snapshot left in its checkpoint's Parquet files
 * (delta_load_opts.defer_checkpoint_adds; streamed from them, in their
 * order), then its live files, then the tombstones newer than
 * min_tombstone_ms (older ones are expired and skipped). Adds, removes and
 * expired tombstones are counted into `tally`. */
int ck_each_kept(const delta_snapshot *snap, int64_t min_tombstone_ms, ck_file_fn fn,
                 void *ctx, ck_counts *tally);
/* How many file actions ck_each_kept gives (live + unexpired removes). */
int64_t ck_count_kept(const delta_snapshot *snap, int64_t min_tombstone_ms);

/* A checkpoint Parquet file written a row at a time: rows go out in
 * batches of a few thousand, row groups as the writer cuts them, so the
 * memory is the writer's row group, not the checkpoint. */
typedef struct ck_emitter {
	pq_writer *w;
	pq_batch b;
	int64_t rows;                /* rows handed to the writer */
} ck_emitter;

int ck_emit_open(ck_emitter *e, loom_store_writer *sink, ck_layout layout);
/* One add or remove row (a ck_file_fn over a ck_emitter). */
int ck_emit_file(void *emitter, const delta_file *f);
/* The last rows, the footer; `bytes` gets the file size. */
int ck_emit_close(ck_emitter *e, uint64_t *bytes);
/* Frees the writer and batch (after close, or instead of it). */
void ck_emit_dispose(ck_emitter *e);

/* A single-file checkpoint of `snap` to `sink`: every action inline.
 * CK_LAYOUT_V1 is the V1 spec; CK_LAYOUT_V2 adds the checkpointMetadata
 * row (a classic-named V2 checkpoint). Removes with deletionTimestamp <=
 * min_tombstone_ms are expired and left out. */
int checkpoint_write_parquet(loom_store_writer *sink, const delta_snapshot *snap,
                             int64_t min_tombstone_ms, ck_layout layout, ck_counts *out);

/* The result of checkpoint_write_v2. */
typedef struct ck_v2_result {
	char key[160];              /* _delta_log/<v>.checkpoint.<uuid>.json */
	ck_counts total;            /* actions/bytes over every file written */
	size_t num_sidecars;
	json_t *last_checkpoint;    /* the _last_checkpoint object to write
	                               (owned: json_decref) */
} ck_v2_result;

/* Write a UUID-named V2 checkpoint of `snap`: the file actions in Parquet
 * sidecars under _delta_log/_sidecars/ (part_size actions each; none for a
 * table without files), then the JSON top-level file (checkpointMetadata,
 * sidecar actions, protocol, metaData, txn, domainMetadata) with
 * put-if-absent. Sidecars of a failed attempt are deleted (a crash leaves
 * unreferenced ones, which log cleanup removes once expired). */
int checkpoint_write_v2(loom_store *store, const delta_snapshot *snap, int64_t min_tombstone_ms,
                        int64_t part_size, ck_v2_result *out);

/* ---- log cleanup (log_cleanup.c) ---------------------------------------- */

typedef struct log_cleanup_params {
	int dry_run;
	int force;                   /* run even with delta.enableExpiredLogCleanup=false */
	int64_t retention_hours;     /* -1: delta.logRetentionDuration */
	const loom_clock *clock;     /* NULL: system clock */
	const loom_cancel *cancel;   /* polled between deletions; may be NULL */
} log_cleanup_params;

/* Delete expired log files (see log_cleanup.c). `out` (kind VACUUM) gets
 * the keys deleted (or that would be), relative to the table root, and the
 * metrics checkpointVersion (-1: none qualified, nothing deleted), cutoffMs,
 * numDeletedFiles, sizeOfDataToDelete. */
int log_cleanup_run(loom_op_result *out, loom_store *store, const log_cleanup_params *p);

#endif
