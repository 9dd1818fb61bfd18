/* ops/zorder.h - Z-ORDER clustering: per partition not yet clustered by
 * the same columns and curve, a sampling pass over the key columns, then
 * a rewrite in space-filling-curve order (ops/zorder_stages.h), committed
 * like compaction (ops/optimize.h). */
#ifndef LOOM_OPS_ZORDER_H
#define LOOM_OPS_ZORDER_H

#include <stddef.h>
#include <stdint.h>

#include "delta/schema.h"
#include "loom/ops.h"
#include "loom/store.h"
#include "util/secret.h"

#define ZORDER_DEFAULT_BUDGET (1024LL * 1024 * 1024)
#define ZORDER_TAG "loom.zorder"

typedef struct zorder_params {
	const char *const *columns;
	size_t n_columns;
	int curve;                    /* loom_zorder_curve */
	int full, dry_run;
	int64_t target_size;          /* 0: loc, table property, default */
	int64_t memory_budget;        /* 0: ZORDER_DEFAULT_BUDGET */
	const char *temp_dir;         /* spills; NULL: zspill_budget_init's */
	int64_t spill_limit;          /* 0: 90 % of the free temp space */
	size_t threads;               /* 0: one per CPU */
	const loom_table_location *loc;
	const loom_secrets *secrets;  /* masked in commitInfo; may be NULL */
	const loom_cancel *cancel;
} zorder_params;

int zorder_run(loom_op_result *out, loom_store *store, const zorder_params *p);

/* 1 for a column type with an order to cluster by. */
int zorder_orderable(delta_type_kind k);
/* Bits of each column's part of a 64-bit curve key for `ncols` columns. */
unsigned zorder_key_bits(size_t ncols);

/* What the Z-order stages need besides the plan (liquid clustering runs
 * them too, ops/cluster.h). */
struct zorder_columns;
struct zspill_budget;
typedef struct zorder_stage_params {
	const struct zorder_columns *cols;
	struct zspill_budget *spill;
	const loom_table_location *loc;
	const loom_cancel *cancel;
	size_t threads;               /* 0: one per CPU */
	int64_t memory_budget;        /* 0: ZORDER_DEFAULT_BUDGET */
} zorder_stage_params;

/* Every bin of `plan` as one unit: its key columns sampled, then every
 * column rewritten in curve order at the plan's target, then one commit
 * (ops/optimize.h) with `job`. */
struct compact_plan;
struct optimize_job;
struct delta_snapshot;
int zorder_stages_run(loom_op_result *out, loom_store *store, const struct delta_snapshot *snap,
                      const zorder_stage_params *zp, const struct compact_plan *plan,
                      const struct optimize_job *job);

#endif
