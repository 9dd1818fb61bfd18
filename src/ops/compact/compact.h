/* ops/compact/compact.h - OPTIMIZE compaction: per partition, bin-pack small files
 * into units of at most the target size (compact_plan_build), run each
 * unit through the pipeline as reader -> writer (ops/pipeline/pipeline.h), commit
 * removes + adds with dataChange=false in one REARRANGE commit
 * (ops/optimize/optimize.h).
 *
 * The target size is the most bytes a bin's input files add up to, and
 * what a new file holds: a partition's bins are written as one stream cut
 * at the target (counted in input bytes, or in encoded bytes when the
 * rewrite grows), whose last file takes the rest when that is under half
 * the target. So new files hold about the target, none more than 1.5x it,
 * and a partition keeps at most one file below half of it. */
#ifndef LOOM_OPS_COMPACT_H
#define LOOM_OPS_COMPACT_H

#include <stddef.h>
#include <stdint.h>

#include "delta/snapshot.h"
#include "loom/ops.h"
#include "loom/store.h"
#include "ops/optimize/optimize.h"
#include "util/clock.h"
#include "util/secret.h"

#define COMPACT_MAX_DELETED_RATIO 0.05

typedef struct compact_params {
	/* dry run, location, clock, cancel, secrets; its before_commit test
	 * hook is called after the new files are written, right before the
	 * commit (a test commits a concurrent change there) */
	optimize_common common;
	int64_t target_size;              /* 0: loc, table property, default */
	const char *const *partition_filters; /* "col=value", ANDed */
	size_t n_partition_filters;
	size_t threads;                   /* 0: one per CPU */
	int64_t copy_row_group_min_size;  /* loom_compact_opts' field */
	void (*progress)(void *ctx, int64_t bins_done, int64_t bins_total,
	                 int64_t bytes_done, int64_t bytes_total);
	void *progress_ctx;
} compact_params;

/* Plan over `snap`. Filters are "col=value" (LOOM_EINVAL when malformed or
 * the column is not a partition column).
 *
 * Per partition, a file is a candidate when it is smaller than the target,
 * or when its deletion vector deletes more than 5 % of its rows (whatever
 * its size; Spark's maxDeletedRowsRatio). Candidates are taken in the
 * order they entered the table (commit version, then modification time,
 * then path), so recent appends sit together, and packed first-fit into
 * bins of at most `target` bytes: a file goes into the first open bin it
 * fits in. First-fit leaves at most one bin of a partition half empty, so
 * compacting leaves no two small files behind in a partition. A bin of one
 * file is dropped unless that file has a DV to purge. */
int compact_plan_build(compact_plan *plan, const delta_snapshot *snap, int64_t target,
                       const char *const *filters, size_t n_filters);

/* The rules of a bin-packing plan: which files go into bins, and which
 * carry a DV the rewrite purges (counted in dvs_in_bins; a bin of one file
 * is kept only when its file does). */
typedef struct compact_rules {
	int (*candidate)(loom_store *store, const delta_file *f, int64_t target);
	int (*has_dv)(const delta_file *f);
} compact_rules;
/* compact_plan_build's packing under other rules (REORG ... APPLY (PURGE)). */
int compact_plan_pack(compact_plan *plan, const delta_snapshot *snap, int64_t target,
                      const char *const *filters, size_t n_filters, const compact_rules *rules);

/* Group the plan's bins into units (units has room for num_bins): runs of
 * consecutive bins of one partition, each written as one stream cut at the
 * target; one unit per partition unless fewer partitions have bins than
 * `workers`, then each partition's bins split into up to workers /
 * partitions units of about equal bytes; a unit also ends at
 * max_unit_bytes of input when that is > 0 (partial commits). Returns the
 * unit count. */
size_t compact_group_units(const compact_plan *plan, size_t workers, int64_t max_unit_bytes,
                           pipe_unit *units);

/* The execute step of the compaction flavour (optimize_flavour.execute;
 * `ctx` a compact_params): the plan's bins grouped into units
 * (compact_group_units), each read -> written with DV-deleted rows
 * dropped, then optimize_execute_commit. REORG ... APPLY (PURGE)
 * (ops/compact/purge.c) plans its own bins and executes them with this. */
int compact_flavour_execute(void *ctx, loom_op_result *out, loom_store *store, const delta_snapshot *snap,
                            const compact_plan *plan, const optimize_job *job);

/* The whole operation on the table in `store`. */
int compact_run(loom_op_result *out, loom_store *store, const compact_params *p);

/* The parameters of the public options, read (ops/opts.h); secrets left
 * unset. */
void compact_params_from_opts(compact_params *p, const loom_compact_opts *opts,
                              const loom_table_location *loc, const loom_cancel *cancel);

#endif
