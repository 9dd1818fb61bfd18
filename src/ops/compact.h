/* ops/compact.h - OPTIMIZE compaction: plan bins of small files per
 * partition, rewrite each bin into one file (ops/rewrite.h), commit
 * removes + adds with dataChange=false in one REARRANGE commit. */
#ifndef LOOM_OPS_COMPACT_H
#define LOOM_OPS_COMPACT_H

#include <stddef.h>
#include <stdint.h>

#include "delta/snapshot.h"
#include "loom/ops.h"
#include "loom/store.h"
#include "util/clock.h"
#include "util/secret.h"

#define COMPACT_DEFAULT_TARGET (100LL * 1024 * 1024)
#define COMPACT_MAX_DELETED_RATIO 0.05

struct compact_plan;
struct rewrite_ctx;

/* Another OPTIMIZE flavour run through compact_run (Z-order, ops/zorder.c):
 * its own plan and row order, the same rewrite, cleanup, commit and
 * metrics. */
typedef struct compact_strategy {
	int op;                           /* protocol gate: DELTA_OP_* */
	const char *name;                 /* "z-order" in messages */
	/* Check the request against the table (before the protocol gate, so
	 * the user hears about a bad column first); may be NULL. */
	int (*validate)(void *arg, const delta_snapshot *snap);
	/* Fill `plan` (bins, counters) instead of compact_plan_build. */
	int (*plan)(void *arg, struct compact_plan *plan, const delta_snapshot *snap, int64_t target);
	/* Per bin, before its rewrite: set ctx->hook (ctx is the bin's own copy)
	 * and any split size. Called on the worker thread. */
	int (*bin_begin)(void *arg, size_t bin, struct rewrite_ctx *ctx);
	void (*bin_end)(void *arg, size_t bin);
	const char *tag_key, *tag_value;  /* set on every add, or NULL */
	const char *param_key;            /* extra operationParameters entry */
	const char *param_value;          /* its string value */
	void *arg;
} compact_strategy;

typedef struct compact_params {
	int64_t target_size;              /* 0: loc, table property, default */
	int dry_run;
	const char *const *partition_filters; /* "col=value", ANDed */
	size_t n_partition_filters;
	const loom_table_location *loc;   /* may be NULL */
	const loom_secrets *secrets;      /* masked in commitInfo; may be NULL */
	const loom_cancel *cancel;        /* may be NULL */
	size_t threads;                   /* 0: one per CPU */
	const loom_clock *clock;          /* NULL: system */
	/* Test hook: called after the new files are written, right before the
	 * commit (a test commits a concurrent change there). */
	void (*before_commit)(void *ctx);
	void *hook_ctx;
	void (*progress)(void *ctx, int64_t bins_done, int64_t bins_total,
	                 int64_t bytes_done, int64_t bytes_total);
	void *progress_ctx;
	const compact_strategy *strategy; /* NULL: bin-packing compaction */
} compact_params;

/* One bin: consecutive candidates of one partition. */
typedef struct compact_bin {
	const delta_file **files;         /* into the plan's array */
	size_t num_files;
	int64_t bytes;
	size_t partition;                 /* index of its partition */
} compact_bin;

typedef struct compact_plan {
	const delta_file **storage;       /* the bins' files, bin after bin */
	compact_bin *bins;
	size_t num_bins;
	size_t considered;                /* live files in scope (filter) */
	size_t partitions;                /* partitions in scope */
	size_t partitions_optimized;      /* with at least one bin */
	size_t files_in_bins;
	int64_t bytes_in_bins;
	size_t dvs_in_bins;               /* files with a DV being purged */
	int64_t target;
} compact_plan;

/* Plan over `snap`. Filters are "col=value" (LOOM_EINVAL when malformed or
 * the column is not a partition column). */
int compact_plan_build(compact_plan *plan, const delta_snapshot *snap, int64_t target,
                       const char *const *filters, size_t n_filters);
void compact_plan_dispose(compact_plan *plan);

/* The whole operation on the table in `store`. */
int compact_run(loom_op_result *out, loom_store *store, const compact_params *p);

#endif
