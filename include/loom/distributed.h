/* loom/distributed.h - OPTIMIZE and Z-order in three steps that can run in
 * different processes and on different machines, with the Delta log as the
 * only coordination:
 *
 *   plan     on a driver: reads the table once and writes a plan (JSON
 *            text): the table URI, the version read, the operation and its
 *            settings, and a list of units. A compaction unit is a set of
 *            input files; a Z-order unit is one key range of a partition
 *            (the partition's key sample travels in the plan, so every
 *            machine computes the same keys and the ranges split the rows
 *            exactly).
 *   execute  on any machine, any number of times: one unit's input files
 *            are read and new files written under fresh unique names; the
 *            result (JSON text) lists the files to add and remove and the
 *            unit's metrics. It never commits. A unit that is killed or
 *            retried leaves only files no version references, which VACUUM
 *            removes later.
 *   commit   on the driver: the results of some or all units (every unit
 *            of a Z-order partition together) in one commit, conflict-
 *            checked against the version read: a concurrent commit that
 *            removed one of the input files fails it with LOOM_ECONFLICT
 *            naming that version (the results' files are then deleted).
 *
 * Strings handed out are NUL-terminated, owned by the caller and freed
 * with loom_string_free (loom/config.h). Storage credentials never go into
 * a plan or result: each step takes them from `loc` or the environment. */
#ifndef LOOM_DISTRIBUTED_H
#define LOOM_DISTRIBUTED_H

#include <stddef.h>

#include "common.h"
#include "config.h"
#include "ops.h"

LOOM_BEGIN_DECL

#define LOOM_DIST_FORMAT 1   /* "loom_plan" of the plans written */

/* Plan the compaction of the table at `uri` (`loc` may be NULL: settings
 * from the environment; `opts` NULL: defaults; dry_run and progress are
 * ignored). `units`: about how many units to cut the work into (0: one per
 * partition that has files to rewrite). A table with nothing to compact
 * gets a plan of no units. */
LOOM_EXTERN(int) loom_dist_plan_compact(char **plan_json, const char *uri,
                                        const loom_table_location *loc,
                                        const loom_compact_opts *opts, size_t units);

/* Plan a Z-order of the table (opts as loom_zorder: columns, curve, full,
 * target_size, memory_budget; dry_run ignored). Samples every partition to
 * rewrite once, here. `units`: about how many key-range units in all,
 * shared out by partition bytes, at least one per partition (0: one per
 * GiB of a partition's files). */
LOOM_EXTERN(int) loom_dist_plan_zorder(char **plan_json, const char *uri,
                                       const loom_table_location *loc,
                                       const loom_zorder_opts *opts, size_t units);

/* The number of units of a plan. LOOM_EINVAL/LOOM_ECORRUPT for text that
 * is not a loom plan. */
LOOM_EXTERN(int) loom_dist_unit_count(size_t *units, const char *plan_json);

/* Execute unit `unit` (0-based) of a plan: *result_json as above.
 * `threads`: worker threads of this process (0: one per CPU). On failure
 * the files it wrote are deleted (those of a killed process stay, for
 * VACUUM). */
LOOM_EXTERN(int) loom_dist_execute_unit(char **result_json, const char *plan_json, size_t unit,
                                        const loom_table_location *loc, size_t threads,
                                        const loom_cancel *cancel);

/* Commit the results (n_results JSON texts, each from execute of this
 * plan, at most one per unit) in one REARRANGE commit; `out` as
 * loom_compact's (metrics.version: the version written). A plan of no
 * units with no results commits nothing (version -1). LOOM_EINVAL for a
 * result of another plan, a unit given twice, or a Z-order partition
 * given in part; LOOM_ECONFLICT as above. */
LOOM_EXTERN(int) loom_dist_commit(loom_op_result *out, const char *plan_json,
                                  const char *const *results, size_t n_results,
                                  const loom_table_location *loc);

LOOM_END_DECL

#endif
