/* ops/zorder.h - Z-ORDER clustering, run through compact_run with its own
 * plan (every live file of each partition not yet clustered) and row order
 * (a rewrite hook that sorts by a space-filling-curve key).
 *
 * Keys: each Z-order column maps to a rank through quantile boundaries
 * taken from a reservoir sample of the partition's values (nulls rank
 * first), ranks interleave into a Morton or Hilbert key (ops/zcurve.h).
 * Passes: the first reads only the key columns and samples them; the
 * second reads every column. Memory: rows are held up to ~40 % of the
 * per-partition budget; a partition past it (or clearly past it from its
 * footers) is sorted externally: rows are routed by key range (boundaries
 * from the sampled keys) to spill files (ops/zorder_spill.h), then each
 * range is loaded, sorted and written in turn. */
#ifndef LOOM_OPS_ZORDER_H
#define LOOM_OPS_ZORDER_H

#include <stddef.h>
#include <stdint.h>

#include "loom/ops.h"
#include "loom/store.h"
#include "ops/compact.h"

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

#endif
