/*
 * loom/health.h - what a table needs, from its log alone (issue 28).
 *
 *   loom_health_policy p = LOOM_HEALTH_POLICY_INIT;   // or loom_health_policy_init
 *   loom_health *h;
 *   loom_health_load(&h, "s3://lake/raw/events", loc, &p);
 *   const loom_health_table *t = loom_health_summary(h);
 *   for (size_t i = 0; i < loom_health_advice_count(h); i++) {
 *       const loom_advice *a = loom_health_advice_at(h, i);
 *       if (a->recommended) printf("%s: %s\n", a->op, a->reason);
 *   }
 *   loom_health_free(h);
 *
 * Health reads the snapshot (the newest checkpoint and the commits after
 * it) and the listing of _delta_log/, and nothing else: no data file, no
 * deletion vector file, no HEAD of a data file. Every figure comes from the
 * log's add/remove actions (sizes, partition values, stats, DV
 * cardinalities, deletion timestamps) and commitInfo.
 *
 * Advice is a pure function of the health figures and the policy: every
 * maintenance operation is listed, recommended or not, with the number that
 * decided and the threshold it was held against (docs/health.md is the
 * policy's reference). Nothing here changes a table.
 */
#ifndef LOOM_HEALTH_H
#define LOOM_HEALTH_H

#include "common.h"
#include "ops.h"

LOOM_BEGIN_DECL

/* ---- policy ---------------------------------------------------------------- */

#define LOOM_HEALTH_POLICY_VERSION 1
typedef struct loom_health_policy {
	unsigned int version;          /* LOOM_HEALTH_POLICY_VERSION */
	/* compaction: a file is small below half the target; compact when the
	 * files compaction would rewrite (files under the target in partitions
	 * holding two or more of them) number at least min_small_files */
	int64_t target_size;           /* 0: the location's target_file_size, else
	                                * delta.targetFileSize, else 128 MiB */
	int64_t min_small_files;       /* default 50 (Delta auto-compaction) */
	/* deletion vectors: purge (rewrite) files whose DV deletes more than
	 * dv_purge_ratio of their rows, when there are min_dv_files of them.
	 * Compaction does the purge and rewrites files above 5 %, so the ratio
	 * is at least 0.05. */
	double dv_purge_ratio;         /* default 0.05, in [0.05, 1] */
	int64_t min_dv_files;          /* default 1 */
	/* Z-order / clustering: cluster again when the average overlap depth of
	 * a clustering column exceeds this (1.0 = perfectly clustered) */
	double max_clustering_depth;   /* default 2.0, >= 1 */
	/* checkpoint when this many commits or JSON bytes follow the last one */
	int64_t checkpoint_commits;    /* 0: delta.checkpointInterval (10) */
	int64_t checkpoint_json_bytes; /* default 64 MiB; 0 = not a trigger */
	/* vacuum when this many tombstones are past the retention and newer
	 * than the last VACUUM; clean logs when this many log files expired */
	int64_t min_vacuum_files;      /* default 1 */
	int64_t min_expired_logs;      /* default 1 */
	/* analyze (recompute statistics) when this many live files have none,
	 * or none for a column the table now collects stats on; 0: never */
	int64_t min_files_without_stats; /* default 1 */
	/* the columns to judge clustering on (a declared Z-order; borrowed
	 * for the call). NULL: the table's clustering columns, else the last
	 * Z-order's (zOrderBy of the last OPTIMIZE, else the loom.zorder tag
	 * of the files) */
	const char *const *zorder_columns;
	size_t n_zorder_columns;
} loom_health_policy;
#define LOOM_HEALTH_POLICY_INIT \
	{ LOOM_HEALTH_POLICY_VERSION, 0, 50, 0.05, 1, 2.0, 0, 64LL << 20, 1, 1, 1, NULL, 0 }

/** Fill `p` with the defaults. LOOM_EINVAL for an unknown version. */
LOOM_EXTERN(int) loom_health_policy_init(loom_health_policy *p, unsigned int version);
/** LOOM_EINVAL naming the field when a value is out of range. */
LOOM_EXTERN(int) loom_health_policy_check(const loom_health_policy *p);

/* ---- health ---------------------------------------------------------------- */

/* File-size histogram: bucket k counts files of [2^k, 2^(k+1)) bytes
 * (bucket 0 also holds empty files). */
#define LOOM_HEALTH_BUCKETS 64

typedef struct loom_health_files {
	int64_t files, bytes;
	int64_t rows;                  /* sum of stats numRecords (files with it) */
	int64_t small_files, small_bytes;           /* size < target / 2 */
	int64_t compactable_files, compactable_bytes; /* size < target, in a
	                                * partition with >= 2 such files: what
	                                * compaction would bin-pack */
	int64_t files_without_stats;   /* no stats or no numRecords */
	int64_t dv_files, dv_deleted_rows;
	int64_t dv_purge_files, dv_purge_bytes, dv_purge_rows, dv_purge_deleted_rows;
	                               /* DV deletes > dv_purge_ratio of the rows */
	int64_t hist_files[LOOM_HEALTH_BUCKETS];
	int64_t hist_bytes[LOOM_HEALTH_BUCKETS];
} loom_health_files;

/* Clustering quality of one column: for every file with a min and max
 * for it, the number of files of the same partition whose [min, max]
 * overlaps its own (itself included), averaged. 1.0 = no overlap. */
typedef struct loom_health_column {
	const char *column;            /* logical name (dots into structs) */
	double depth;                  /* 0 when no file has min/max */
	int64_t files;                 /* files with min and max */
	int64_t unclustered_files;     /* files not written by the last
	                                * clustering run (no loom.zorder tag of
	                                * these columns / no liquid provider) */
} loom_health_column;

typedef struct loom_health_partition {
	const char *name;              /* "k=v/k2=v2" (Hive escaping), "" unpartitioned */
	loom_health_files files;
	const loom_health_column *columns;   /* clustering columns, in order */
	size_t n_columns;
} loom_health_partition;

typedef struct loom_health_table {
	int64_t version;
	int64_t target_size;           /* resolved */
	int64_t num_partitions;
	loom_health_files files;       /* the whole table */
	/* clustering: source "zorder" (zOrderBy of the last OPTIMIZE, or the
	 * loom.zorder tag of the files), "clustering" (clustering columns) or
	 * NULL (none); the columns with the file-weighted depth over partitions */
	const char *clustering_source;
	const loom_health_column *columns;
	size_t n_columns;
	/* tombstones still in the log's state */
	int64_t deleted_file_retention_ms;
	int64_t tombstones_expired, tombstones_expired_bytes;   /* past the retention */
	int64_t tombstones_retained, tombstones_retained_bytes; /* within it */
	int64_t tombstones_unvacuumed, tombstones_unvacuumed_bytes; /* past it and
	                                * deleted after the last VACUUM's horizon */
	int64_t last_vacuum_ms;        /* commit time of the last VACUUM seen after
	                                * the checkpoint, -1 none */
	/* the log */
	int64_t checkpoint_version;    /* -1: none */
	int64_t checkpoint_interval;   /* delta.checkpointInterval */
	int64_t commits_since_checkpoint, json_bytes_since_checkpoint;
	int64_t log_retention_ms;
	int64_t expired_log_files, expired_log_bytes; /* what cleanup-logs would delete */
	int log_cleanup_allowed;       /* 0: the table disables or refuses it */
	int64_t now_ms;                /* the time the figures refer to */
} loom_health_table;

/* One operation the policy considered. */
typedef struct loom_advice {
	const char *op;                /* "compact", "purge_dvs", "z_order",
	                                * "cluster", "vacuum", "checkpoint",
	                                * "cleanup_logs" */
	int recommended;               /* 1: the policy asks for it */
	const char *reason;            /* the figure against its threshold, or
	                                * why the op does not apply */
	const char *metric;            /* the figure's name */
	double value, threshold;
	int64_t files;                 /* files to rewrite or delete */
	int64_t read_bytes, write_bytes; /* estimated, for rewrites */
	int64_t delete_bytes;          /* vacuum, cleanup_logs: bytes to delete */
	const char *const *partitions; /* where (compact, z_order, cluster) */
	size_t n_partitions;
	const char *const *columns;    /* z_order / cluster columns */
	size_t n_columns;
} loom_advice;

typedef struct loom_health loom_health;

/** Health and advice of the table at `uri` (`loc` may be NULL; `policy`
 *  NULL = defaults). *out is owned by the caller: loom_health_free.
 *  LOOM_ENOTFOUND without a _delta_log, LOOM_EINVAL for a bad policy,
 *  the snapshot's errors otherwise. */
LOOM_EXTERN(int) loom_health_load(loom_health **out, const char *uri,
                                   const loom_table_location *loc,
                                   const loom_health_policy *policy);
LOOM_EXTERN(void) loom_health_free(loom_health *h);

LOOM_EXTERN(const loom_health_table *) loom_health_summary(const loom_health *h);
LOOM_EXTERN(size_t) loom_health_partition_count(const loom_health *h);
LOOM_EXTERN(const loom_health_partition *) loom_health_partition_at(const loom_health *h,
                                                                     size_t i);
/** Every operation considered, in the order auto mode runs them:
 *  compact, purge_dvs, z_order or cluster, vacuum, checkpoint, cleanup_logs. */
LOOM_EXTERN(size_t) loom_health_advice_count(const loom_health *h);
LOOM_EXTERN(const loom_advice *) loom_health_advice_at(const loom_health *h, size_t i);
/** The advice for `op`, or NULL. */
LOOM_EXTERN(const loom_advice *) loom_health_advice_for(const loom_health *h, const char *op);

/* Flags (a bit set) for loom_health_to_json's `what`. */
#define LOOM_HEALTH_JSON_HEALTH 0x1u
#define LOOM_HEALTH_JSON_ADVICE 0x2u
/** JSON ("loom.health/1"): `what` = LOOM_HEALTH_JSON_HEALTH and/or
 *  LOOM_HEALTH_JSON_ADVICE (OR-ed). `shown_uri` (may be NULL) is the table as
 *  output shows it (secrets masked). Free with loom_string_free. */
LOOM_EXTERN(int) loom_health_to_json(char **out, const loom_health *h, const char *shown_uri,
                                     unsigned int what);

LOOM_END_DECL

#endif
