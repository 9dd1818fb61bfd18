/* ops/dist/dist.h - plans, unit results and their checks, shared by the three
 * steps of include/loom/distributed.h: dist_plan.c (plan), dist_unit.c
 * (execute a unit), dist_commit.c (commit results).
 *
 * A plan file (JSON, "loom_plan": 1):
 *   id              random UUID: results name it, so results of another
 *                   plan are refused
 *   table           the table URI as given to plan
 *   read_version    the snapshot planned on; units read it, the commit is
 *                   checked against it
 *   operation       "compact" or "zorder"
 *   target_size     bytes per new file
 *   considered, partitions_optimized, dvs   plan metrics
 *   predicates      compaction partition filters (commitInfo)
 *   copy_row_group_min_size   compaction's setting
 *   zorder          {columns, curve, full, memory_budget,
 *                    samples: [per group: ops/zorder/zorder_range.h's JSON]}
 *   units           [{group, partition, files: [store keys], bytes,
 *                     key_lo, key_hi (Z-order: 16 hex digits, key_hi null
 *                     for the last range)}]
 * Units of one group share their input files (a Z-order partition's key
 * ranges) and are committed together; a compaction unit is its own group.
 *
 * A result (JSON, "loom_result": 1): plan, unit, adds [{path (as in the
 * log), key, size, modificationTime, numRecords, stats}], removes [keys],
 * metrics {rows_in, rows_deleted, batches, files_added, bytes_added,
 * files_removed, bytes_removed, seconds}. */
#ifndef LOOM_OPS_DIST_H
#define LOOM_OPS_DIST_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "delta/snapshot.h"

#define DIST_RESULT_FORMAT 1

typedef struct dist_plan {
	json_t *root;
	const char *id, *table;
	int zorder;                   /* operation "zorder" */
	int64_t read_version;
	int64_t target;
	json_t *units;                /* array, borrowed from root */
	size_t nunits;
	json_t *zorder_conf;          /* object (Z-order) or NULL */
} dist_plan;

/* Parse and check a plan's text: LOOM_EINVAL "not a loom plan ..." or
 * LOOM_ECORRUPT naming the field that is wrong. */
int dist_plan_parse(dist_plan *p, const char *text);
void dist_plan_dispose(dist_plan *p);

/* Unit i's fields. */
json_t *dist_unit(const dist_plan *p, size_t i);
size_t dist_unit_group(const dist_plan *p, size_t i);

/* Unit i's input files, found in `snap` (the plan's read version); *files
 * owned by the caller. LOOM_ECORRUPT naming a file the version lacks. */
int dist_unit_files(const dist_plan *p, size_t i, const delta_snapshot *snap,
                    const delta_file ***files, size_t *n);

/* 16 hex digits <-> uint64. */
void dist_key_format(uint64_t v, char out[17]);
int dist_key_parse(const char *s, uint64_t *v);

/* A JSON document as text owned by loom_malloc (the public API's strings). */
int dist_dump(json_t *doc, char **out);

#endif
