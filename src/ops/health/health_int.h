/* ops/health/health_int.h - the health object and the steps that fill it
 * (health.c drives: snapshot -> files and partitions -> clustering depth
 * -> tombstones and log -> advice). */
#ifndef LOOM_OPS_HEALTH_INT_H
#define LOOM_OPS_HEALTH_INT_H

#include "delta/snapshot.h"
#include "loom/health.h"
#include "ops/optimize/partition_groups.h"

typedef struct health_part {
	loom_health_partition pub;
	char *name;
	loom_health_column *columns;   /* n = the table's column count */
} health_part;

struct loom_health {
	loom_health_policy policy;     /* as given; zorder columns not kept */
	loom_health_table t;
	char *clustering_source;
	loom_health_column *columns;   /* table level; column names owned */
	char **physical;               /* the columns' stats paths (physical) */
	size_t n_columns;
	char *zorder_tag;              /* "curve:a,b" of the last Z-order, or NULL */
	health_part *parts;
	size_t n_parts;
	loom_advice *advice;
	size_t n_advice;
	char **strings;                /* advice reasons and lists, owned */
	size_t n_strings;
};

/* What the commits after the checkpoint say (health_log.c). */
typedef struct health_log_scan {
	int64_t last_vacuum_ms;        /* -1 none */
	char **zorder_columns;         /* zOrderBy of the newest OPTIMIZE that has
	                                * one; NULL none */
	size_t n_zorder_columns;
} health_log_scan;

/* Commits and JSON bytes since the checkpoint, and the commitInfo scan. */
int health_log_scan_run(loom_store *store, const delta_snapshot *snap, loom_health_table *t,
                        health_log_scan *out);
void health_log_scan_dispose(health_log_scan *s);
/* Expired log files: what cleanup-logs would delete (its dry run). */
int health_expired_logs(loom_health_table *t, const char *uri, const loom_table_location *loc);

/* Per-partition file figures (health_files.c); `target` resolved;
 * has_stats: the file has stats text (a view of the file index leaves it
 * in the log, so file->stats alone does not say). */
void health_files_add(loom_health_files *f, const delta_file *file, int has_stats,
                      int64_t target, double purge_ratio);
void health_files_merge(loom_health_files *into, const loom_health_files *from);
/* The compaction plan's files (what compaction would rewrite) per partition
 * of `pg`: compactable_files/bytes of parts[g]. */
int health_compactable(loom_health *h, const delta_snapshot *snap, const partition_groups *pg);

/* Average overlap depth (out[c].depth) and the files with a min and a max
 * (out[c].files) of each column physical[c] (dotted stats path) over one
 * partition's live files pos[0..n), given in insertion order; stats read
 * through `rd` (health_depth.c). */
int health_depth(const delta_snapshot *snap, delta_stats_reader *rd, const uint32_t *pos,
                 size_t n, char *const *physical, size_t n_cols, loom_health_column *out);

/* loom_health_load with the snapshot's files in the compact file index
 * (file_index 1, what loom_health_load does) or in the snapshot's arrays
 * (0): the figures are the same either way (test_health_on_index). */
int health_load_as(loom_health **out, const char *uri, const loom_table_location *loc,
                   const loom_health_policy *policy, int file_index);

/* Fill h->advice from h's figures and h->policy (advise.c). */
int health_advise(loom_health *h);
/* Keep `s` (copied) until the health is freed; NULL on ENOMEM. */
const char *health_keep(loom_health *h, const char *s);

#endif
