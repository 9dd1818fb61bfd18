/* ops/checkpoint.h - writing checkpoints and cleaning up expired log files.
 *
 * Checkpoint: one classic-named Parquet file _delta_log/<v>.checkpoint.parquet
 * with Spark's checkpoint schema (one row per action: protocol, metaData,
 * txn, domainMetadata, live add, unexpired remove), published with
 * put-if-absent through the store's atomic writer, then _last_checkpoint.
 * A checkpoint is an optional optimisation: when one already exists for the
 * version nothing is written (reported as created = 0).
 *
 * Log cleanup: see log_cleanup_run below. */
#ifndef LOOM_OPS_CHECKPOINT_H
#define LOOM_OPS_CHECKPOINT_H

#include <stddef.h>
#include <stdint.h>

#include "delta/snapshot.h"
#include "loom/ops.h"
#include "loom/store.h"
#include "parquet/batch.h"
#include "parquet/types.h"
#include "util/clock.h"

/* ---- the checkpoint Parquet schema (checkpoint_schema.c) ---------------- */

/* Leaf columns, in schema (depth-first) order. */
enum {
	CK_TXN_APPID, CK_TXN_VERSION, CK_TXN_LASTUPDATED,
	CK_ADD_PATH, CK_ADD_PV_K, CK_ADD_PV_V, CK_ADD_SIZE, CK_ADD_MTIME,
	CK_ADD_DATACHANGE, CK_ADD_STATS, CK_ADD_TAGS_K, CK_ADD_TAGS_V,
	CK_ADD_DV_TYPE, CK_ADD_DV_PATH, CK_ADD_DV_OFFSET, CK_ADD_DV_SIZE,
	CK_ADD_DV_CARD, CK_ADD_BASEROWID, CK_ADD_DRCV, CK_ADD_CLUSTERING,
	CK_REM_PATH, CK_REM_DELTS, CK_REM_DATACHANGE, CK_REM_EXTMETA,
	CK_REM_PV_K, CK_REM_PV_V, CK_REM_SIZE, CK_REM_TAGS_K, CK_REM_TAGS_V,
	CK_REM_DV_TYPE, CK_REM_DV_PATH, CK_REM_DV_OFFSET, CK_REM_DV_SIZE,
	CK_REM_DV_CARD, CK_REM_BASEROWID, CK_REM_DRCV,
	CK_META_ID, CK_META_NAME, CK_META_DESC, CK_META_FMT_PROVIDER,
	CK_META_FMT_OPT_K, CK_META_FMT_OPT_V, CK_META_SCHEMA, CK_META_PCOLS,
	CK_META_CONF_K, CK_META_CONF_V, CK_META_CREATED,
	CK_PROTO_MINR, CK_PROTO_MINW, CK_PROTO_RF, CK_PROTO_WF,
	CK_DOM_DOMAIN, CK_DOM_CONF, CK_DOM_REMOVED,
	CK_CKMETA_VERSION,      /* only in V2 checkpoints: the last leaf */
	CK_NUM_LEAVES
};

/* The first leaf of each top-level action column, and one past its last. */
typedef enum ck_action {
	CK_ACT_TXN = 0, CK_ACT_ADD, CK_ACT_REMOVE, CK_ACT_META, CK_ACT_PROTOCOL,
	CK_ACT_DOMAIN, CK_ACT_CKMETA, CK_ACT_COUNT
} ck_action;
extern const int ck_action_first_leaf[CK_ACT_COUNT + 1];

/* The flattened schema: fills `nodes` (static storage, never freed) and
 * the count; `with_ckmeta` adds the checkpointMetadata column (V2). */
void ck_schema(const pq_schema_node **nodes, size_t *n, int with_ckmeta);

/* Set up an empty batch with the leaf types and levels of the schema. */
int ck_batch_init(pq_batch *b, int with_ckmeta);

/* ---- writing ------------------------------------------------------------ */

typedef struct checkpoint_params {
	int64_t version;             /* -1: latest */
	const loom_clock *clock;     /* NULL: system clock (tombstone expiry) */
	const loom_cancel *cancel;   /* checked before publishing; may be NULL */
} checkpoint_params;

/* Write a checkpoint of the table in `store`. Metrics in `out`: version,
 * created (0 when one existed), numActions, sizeInBytes, numAddFiles,
 * numRemoveFiles (kept tombstones), numExpiredTombstones, v2 (1 when the
 * checkpoint follows the V2 spec), lastCheckpointUpdated.
 * LOOM_EUNSUPPORTED (naming the feature) for protocols loom may not
 * checkpoint; the table is then untouched. */
int checkpoint_run(loom_op_result *out, loom_store *store, const checkpoint_params *p);

/* The rows of a checkpoint of `snap` written to `sink`; `min_tombstone_ms`:
 * removes with deletionTimestamp <= it are expired and left out. Counts go
 * to the out-pointers (any may be NULL). */
int checkpoint_write_parquet(loom_store_writer *sink, const delta_snapshot *snap,
                             int64_t min_tombstone_ms, int v2, int64_t *num_actions,
                             int64_t *num_removes, int64_t *num_expired,
                             uint64_t *file_size);

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
