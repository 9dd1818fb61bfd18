/*
 * loom/table.h - reading the state of a Delta table.
 *
 *   loom_table *t;  loom_snapshot *s;
 *   loom_table_open(&t, "/data/orders");          // or a file:// URI
 *   loom_snapshot_load(&s, t, -1);                 // -1: latest version
 *   for (size_t i = 0; i < loom_snapshot_file_count(s); i++) {
 *       loom_file_info f = LOOM_FILE_INFO_INIT;
 *       loom_snapshot_file_at(&f, s, i);           // f borrows from s
 *       ...
 *   }
 *   loom_snapshot_free(s);
 *   loom_table_free(t);
 *
 * A snapshot is the table state at one version, rebuilt from the newest
 * complete checkpoint at or before it plus the contiguous commits after it
 * (the _delta_log listing decides; _last_checkpoint is only a hint).
 * A snapshot is immutable and may be read from several threads at once.
 * Every string and array a snapshot hands out is borrowed from it: valid
 * until loom_snapshot_free. All functions returning int give 0 or a
 * negative LOOM_E* code with the detail in loom_error_last().
 */
#ifndef LOOM_TABLE_H
#define LOOM_TABLE_H

#include "common.h"
#include "store.h"

LOOM_BEGIN_DECL

typedef struct loom_table loom_table;
typedef struct loom_snapshot loom_snapshot;

/** Open the table at `uri` (a directory path, file:// URI, or any URI a
 *  store backend takes, configured from the environment). Does not read
 *  the log yet. *out is owned by the caller: loom_table_free. */
LOOM_EXTERN(int) loom_table_open(loom_table **out, const char *uri);

/** loom_table_open with storage options (a location's storage_options;
 *  borrowed for the call; NULL = none). */
LOOM_EXTERN(int) loom_table_open_opts(loom_table **out, const char *uri,
                                      const loom_store_opts *opts);

/** Open a table over a store the caller already has (rooted at the table
 *  directory). The store is borrowed: it must outlive the table and every
 *  snapshot loaded from it. */
LOOM_EXTERN(int) loom_table_open_store(loom_table **out, loom_store *store,
                                       const char *uri);

/** Release the caller's reference to a table; NULL is accepted. Snapshots
 *  keep the table (and its store) alive until they are freed. */
LOOM_EXTERN(void) loom_table_free(loom_table *t);

/** The store of the table (borrowed). */
LOOM_EXTERN(loom_store *) loom_table_store(loom_table *t);

/** Load the snapshot at `version` (-1: the latest). LOOM_ENOTFOUND for a
 *  directory without _delta_log or a version that does not exist or can no
 *  longer be rebuilt; LOOM_ECORRUPT for a damaged log (the message names
 *  the file and line, or the missing version); LOOM_EUNSUPPORTED when the
 *  protocol cannot be read by loom or a needed checkpoint cannot be read.
 *  *out is owned by the caller: loom_snapshot_free. */
LOOM_EXTERN(int) loom_snapshot_load(loom_snapshot **out, loom_table *t,
                                    int64_t version);

/** Release a snapshot; NULL is accepted. */
LOOM_EXTERN(void) loom_snapshot_free(loom_snapshot *s);

LOOM_EXTERN(int64_t) loom_snapshot_version(const loom_snapshot *s);

/* --- protocol and metadata ------------------------------------------- */

LOOM_EXTERN(int) loom_snapshot_min_reader_version(const loom_snapshot *s);
LOOM_EXTERN(int) loom_snapshot_min_writer_version(const loom_snapshot *s);
/** Explicit reader/writer feature names: feature i (NULL out of range);
 *  a protocol without such a list has none. */
LOOM_EXTERN(size_t) loom_snapshot_reader_feature_count(const loom_snapshot *s);
LOOM_EXTERN(const char *) loom_snapshot_reader_feature_at(const loom_snapshot *s, size_t i);
LOOM_EXTERN(size_t) loom_snapshot_writer_feature_count(const loom_snapshot *s);
LOOM_EXTERN(const char *) loom_snapshot_writer_feature_at(const loom_snapshot *s, size_t i);

/** Table id, name (may be NULL), schema JSON (the schemaString). */
LOOM_EXTERN(const char *) loom_snapshot_table_id(const loom_snapshot *s);
LOOM_EXTERN(const char *) loom_snapshot_table_name(const loom_snapshot *s);
LOOM_EXTERN(const char *) loom_snapshot_schema_json(const loom_snapshot *s);
LOOM_EXTERN(int64_t) loom_snapshot_created_time(const loom_snapshot *s);

/** Partition column names, outermost first: column i (NULL out of
 *  range). */
LOOM_EXTERN(size_t) loom_snapshot_partition_column_count(const loom_snapshot *s);
LOOM_EXTERN(const char *) loom_snapshot_partition_column_at(const loom_snapshot *s, size_t i);

/** Table properties (metaData.configuration): property i (NULL out of
 *  range). */
LOOM_EXTERN(size_t) loom_snapshot_property_count(const loom_snapshot *s);
LOOM_EXTERN(const loom_kv *) loom_snapshot_property_at(const loom_snapshot *s, size_t i);
/** One property's value, or NULL when unset. */
LOOM_EXTERN(const char *) loom_snapshot_property(const loom_snapshot *s, const char *key);

/* --- live files and tombstones --------------------------------------- */

/* One file, filled by loom_snapshot_file_at / _tombstone_at into the
 * caller's struct: initialise it (LOOM_FILE_INFO_INIT or
 * loom_file_info_init); the library writes only its version's fields. */
#define LOOM_FILE_INFO_VERSION 1
typedef struct loom_file_info {
	unsigned int version;      /* LOOM_FILE_INFO_VERSION */
	const char *path;          /* percent-decoded; relative to the table
	                              root, or an absolute URI */
	const char *path_raw;      /* as written in the log */
	int64_t size;              /* bytes; -1 unknown (some tombstones) */
	int64_t modification_time; /* ms; -1 unknown */
	int64_t deletion_timestamp;/* tombstones: ms; -1 unknown */
	int64_t num_records;       /* stats numRecords, -1 unknown */
	const char *stats;         /* stats JSON or NULL */
	size_t n_partition_values;
	const loom_kv *partition_values;
	char dv_storage_type;      /* 'u', 'i', 'p' or 0 (no deletion vector) */
	int64_t dv_cardinality;    /* rows deleted by the DV, 0 without */
	const char *dv_path_or_inline;
	int32_t dv_offset;
	int32_t dv_size_in_bytes;
	int data_change;
} loom_file_info;
#define LOOM_FILE_INFO_INIT { LOOM_FILE_INFO_VERSION, NULL, NULL, 0, 0, 0, 0, NULL, 0, NULL, 0, 0, \
	                      NULL, 0, 0, 0 }
/** Set `out` (of `version`, 1 to LOOM_FILE_INFO_VERSION) to an empty info
 *  of that version. LOOM_EINVAL for another version. */
LOOM_EXTERN(int) loom_file_info_init(loom_file_info *out, unsigned int version);

LOOM_EXTERN(size_t) loom_snapshot_file_count(const loom_snapshot *s);
/** Sum of the sizes of the live files. */
LOOM_EXTERN(uint64_t) loom_snapshot_total_bytes(const loom_snapshot *s);
/** Live file i (files are sorted by path) into `out` (initialised).
 *  LOOM_EINVAL if out of range or `out`'s version is unknown. */
LOOM_EXTERN(int) loom_snapshot_file_at(loom_file_info *out, const loom_snapshot *s, size_t i);

/** Tombstones (remove actions still in the state, none expired by age). */
LOOM_EXTERN(size_t) loom_snapshot_tombstone_count(const loom_snapshot *s);
LOOM_EXTERN(int) loom_snapshot_tombstone_at(loom_file_info *out, const loom_snapshot *s,
                                            size_t i);

/** The deleted row indexes of live file i's deletion vector, ascending.
 *  *rows is owned by the caller (free with loom_snapshot_rows_free);
 *  *n = 0 and *rows = NULL without a DV. LOOM_ECORRUPT for a bad DV
 *  (checksum, size, format). */
LOOM_EXTERN(int) loom_snapshot_deleted_rows(uint64_t **rows, size_t *n,
                                            const loom_snapshot *s, size_t i);
LOOM_EXTERN(void) loom_snapshot_rows_free(uint64_t *rows);

/* --- other state ------------------------------------------------------ */

/** Application transaction ids: appId and latest version. */
LOOM_EXTERN(size_t) loom_snapshot_txn_count(const loom_snapshot *s);
LOOM_EXTERN(int) loom_snapshot_txn_at(const char **app_id, int64_t *version,
                                      const loom_snapshot *s, size_t i);

/** Domain metadata (removed domains are not listed). */
LOOM_EXTERN(size_t) loom_snapshot_domain_count(const loom_snapshot *s);
LOOM_EXTERN(int) loom_snapshot_domain_at(const char **domain, const char **configuration,
                                         const loom_snapshot *s, size_t i);

/** commitInfo JSON of the snapshot's version, or NULL when absent. */
LOOM_EXTERN(const char *) loom_snapshot_commit_info(const loom_snapshot *s);

/** The checkpoint the snapshot was rebuilt from: its version (-1: none,
 *  replayed from commits), kind ("classic", "multi-part", "v2-json",
 *  "v2-parquet", "none"; static storage), parts and sidecar files. */
LOOM_EXTERN(int64_t) loom_snapshot_checkpoint_version(const loom_snapshot *s);
LOOM_EXTERN(const char *) loom_snapshot_checkpoint_kind(const loom_snapshot *s);
LOOM_EXTERN(size_t) loom_snapshot_checkpoint_part_count(const loom_snapshot *s);
LOOM_EXTERN(size_t) loom_snapshot_checkpoint_sidecar_count(const loom_snapshot *s);
/** The version in _last_checkpoint, -1 when absent or unreadable. */
LOOM_EXTERN(int64_t) loom_snapshot_last_checkpoint_hint(const loom_snapshot *s);
/** Number of commit files replayed. */
LOOM_EXTERN(size_t) loom_snapshot_replayed_commit_count(const loom_snapshot *s);
/** Number of log compaction files (x.y.compacted.json) replayed in place
 *  of the commits they cover. */
LOOM_EXTERN(size_t) loom_snapshot_replayed_compaction_count(const loom_snapshot *s);

/* --- table features' state --------------------------------------------- */

/** The clustering domain of a clustered table: "delta.clustering" (or
 *  the Databricks preview's "delta.liquid"); NULL when it has none. */
LOOM_EXTERN(const char *) loom_snapshot_clustering_domain(const loom_snapshot *s);
/** Its clustering columns (0 without the domain): column i as a path of
 *  physical column names joined by '.' (NULL out of range). */
LOOM_EXTERN(size_t) loom_snapshot_clustering_column_count(const loom_snapshot *s);
LOOM_EXTERN(const char *) loom_snapshot_clustering_column_at(const loom_snapshot *s, size_t i);
/** Clustering column i as a logical path (the schema's names joined by
 *  '.'); NULL when the schema has no such column or i is out of range. */
LOOM_EXTERN(const char *) loom_snapshot_clustering_logical_column_at(const loom_snapshot *s,
                                                                    size_t i);
/** The row tracking high-water mark (domain delta.rowTracking,
 *  rowIdHighWaterMark): the highest row id assigned; -1 without it. */
LOOM_EXTERN(int64_t) loom_snapshot_row_id_high_water_mark(const loom_snapshot *s);
/** In-commit timestamps: 1 when enabled (writer feature inCommitTimestamp
 *  and delta.enableInCommitTimestamps=true), else 0. The out values (any
 *  pointer may be NULL): delta.inCommitTimestampEnablementVersion and
 *  ...EnablementTimestamp (-1 when absent: enabled since the table was
 *  created), and the inCommitTimestamp of the snapshot version's commit
 *  (-1 when it has none). */
LOOM_EXTERN(int) loom_snapshot_in_commit_timestamps(int64_t *enablement_version,
                                                    int64_t *enablement_timestamp,
                                                    int64_t *version_timestamp,
                                                    const loom_snapshot *s);

/** Warnings collected while loading (e.g. a checkpoint that could not be
 *  read and was replaced by replaying commits). */
LOOM_EXTERN(size_t) loom_snapshot_warning_count(const loom_snapshot *s);
/** Warning i, NULL out of range. */
LOOM_EXTERN(const char *) loom_snapshot_warning_at(const loom_snapshot *s, size_t i);

/* --- protocol gating --------------------------------------------------- */

typedef enum loom_table_op {
	LOOM_OP_READ = 0,        /* read the table (snapshot + data + DVs) */
	LOOM_OP_VACUUM,
	LOOM_OP_COMPACT,         /* bin-packing rewrite, dataChange=false */
	LOOM_OP_ZORDER,          /* Z-order rewrite, dataChange=false */
	LOOM_OP_CHECKPOINT,      /* write a checkpoint */
	LOOM_OP_LOG_CLEANUP,     /* delete expired log files */
	LOOM_OP__COUNT
} loom_table_op;

/** "read", "vacuum", "compact", "zorder", "checkpoint", "log-cleanup". */
LOOM_EXTERN(const char *) loom_table_op_name(loom_table_op op);

/** 0 when loom may perform `op` on this snapshot's protocol; otherwise
 *  LOOM_EUNSUPPORTED with a message naming the feature (or version) and
 *  the operation. */
LOOM_EXTERN(int) loom_snapshot_check_op(const loom_snapshot *s, loom_table_op op);

/** Table properties with their defaults applied, as milliseconds/counts,
 *  filled by loom_snapshot_props into the caller's struct (initialised:
 *  LOOM_TABLE_PROPS_INIT or loom_table_props_init; only its version's
 *  fields are written). LOOM_EINVAL naming the property when a value cannot
 *  be parsed. */
#define LOOM_TABLE_PROPS_VERSION 1
typedef struct loom_table_props {
	unsigned int version;               /* LOOM_TABLE_PROPS_VERSION */
	int64_t deleted_file_retention_ms;  /* delta.deletedFileRetentionDuration, 1 week */
	int64_t log_retention_ms;           /* delta.logRetentionDuration, 30 days */
	int64_t checkpoint_interval;        /* delta.checkpointInterval, 10 */
	int64_t target_file_size;           /* delta.targetFileSize, -1 unset */
	int64_t data_skipping_num_indexed_cols; /* delta.dataSkippingNumIndexedCols, 32 */
	const char *data_skipping_stats_columns; /* NULL unset */
	const char *column_mapping_mode;    /* "none", "id", "name" */
	int enable_deletion_vectors;        /* 0/1 */
	const char *checkpoint_policy;      /* "classic" or "v2" */
	int enable_in_commit_timestamps;
	int enable_row_tracking;
	int append_only;
	int enable_change_data_feed;
	int enable_expired_log_cleanup;     /* default 1 */
} loom_table_props;
#define LOOM_TABLE_PROPS_INIT { LOOM_TABLE_PROPS_VERSION, 0, 0, 0, 0, 0, NULL, NULL, 0, NULL, 0, 0, \
	                        0, 0, 0 }
/** Set `out` (of `version`, 1 to LOOM_TABLE_PROPS_VERSION) to an empty
 *  struct of that version. LOOM_EINVAL for another version. */
LOOM_EXTERN(int) loom_table_props_init(loom_table_props *out, unsigned int version);

LOOM_EXTERN(int) loom_snapshot_props(loom_table_props *out, const loom_snapshot *s);

/** Parse a Spark interval string ("interval 7 days", "168 hours", "1 week",
 *  "interval 1 day 12 hours") to milliseconds. Months and years are
 *  refused (not a fixed length), as are negative totals. */
LOOM_EXTERN(int) loom_interval_parse_ms(int64_t *out_ms, const char *s);

LOOM_END_DECL

#endif
