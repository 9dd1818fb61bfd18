/* ops/zorder/zorder.h - Z-ORDER clustering: per partition not yet clustered by
 * the same columns and curve, a sampling pass over the key columns, then
 * a rewrite in space-filling-curve order (ops/zorder/zorder_stages.h), committed
 * like compaction (ops/optimize/optimize.h). */
#ifndef LOOM_OPS_ZORDER_H
#define LOOM_OPS_ZORDER_H

#include <stddef.h>
#include <stdint.h>

#include "delta/snapshot.h"
#include "loom/ops.h"
#include "loom/store.h"
#include "ops/optimize/optimize.h"
#include "ops/pipeline/pipeline.h"
#include "ops/zorder/zorder_stages.h"
#include "util/secret.h"

#define ZORDER_DEFAULT_BUDGET (1024LL * 1024 * 1024)
#define ZORDER_TAG "loom.zorder"
/* Above this many files in a run the sorting pass reads the footers again
 * instead of keeping every one from the sampling pass. */
#define ZORDER_KEEP_FOOTERS_MAX_FILES 65536

typedef struct zorder_params {
	optimize_common common;       /* dry run, location, cancel, secrets */
	const char *const *columns;
	size_t n_columns;
	int curve;                    /* loom_zorder_curve */
	int full;
	int64_t target_size;          /* 0: loc, table property, default */
	int64_t memory_budget;        /* 0: ZORDER_DEFAULT_BUDGET */
	const char *temp_dir;         /* spills; NULL: zspill_budget_init's */
	int64_t spill_limit;          /* 0: 90 % of the free temp space */
	size_t threads;               /* 0: one per CPU */
} zorder_params;

int zorder_run(loom_op_result *out, loom_store *store, const zorder_params *p);

/* 1 for a column type with an order to cluster by. */
int zorder_orderable(delta_type_kind k);
/* Bits of each column's part of a 64-bit curve key for `ncols` columns. */
unsigned zorder_key_bits(size_t ncols);

/* What the Z-order stages need besides the plan (liquid clustering runs
 * them too, ops/compact/cluster.h). */
typedef struct zorder_stage_params {
	const zorder_columns *cols;
	zspill_budget *spill;
	const loom_table_location *loc;
	const loom_cancel *cancel;
	size_t threads;               /* 0: one per CPU */
	int64_t memory_budget;        /* 0: ZORDER_DEFAULT_BUDGET */
} zorder_stage_params;

/* Every bin of `plan` as one unit: its key columns sampled, then every
 * column rewritten in curve order at the plan's target, then one commit
 * (ops/optimize/optimize.h) with `job`. */
int zorder_stages_run(loom_op_result *out, loom_store *store, const delta_snapshot *snap,
                      const zorder_stage_params *zp, const compact_plan *plan, const optimize_job *job);

/* The parameters of the public options, read (ops/opts.h); secrets left
 * unset. */
void zorder_params_from_opts(zorder_params *p, const loom_zorder_opts *opts, const loom_table_location *loc,
                             const loom_cancel *cancel);

/* ---- the steps, for a plan run elsewhere (ops/dist/dist.h) ---------------------- */

/* A run's columns, as given and as found in the files, its tag
 * ("hilbert:a,b", on every add) and zOrderBy parameter (["a","b"]). */
typedef struct zrun {
	const zorder_params *p;
	zorder_columns cols;         /* names as given, physical paths, curve */
	char **phys;                 /* owns the strings of cols.phys */
	char *tag;                   /* "hilbert:a,b" */
	char *param;                 /* ["a","b"] */
	zspill_budget spill;         /* temp space shared by every partition */
} zrun;

/* Check the column count, build the tag, parameter and spill budget. */
int zrun_init(zrun *run, const zorder_params *p);
void zrun_dispose(zrun *run);

/* Resolve the columns against the table (names, types, partition columns,
 * liquid clustering). */
int zorder_validate(zrun *run, const delta_snapshot *snap);

/* One bin per partition not yet clustered by the run's tag (every
 * partition with p->full). */
int zorder_plan(const zrun *run, compact_plan *plan, const delta_snapshot *snap, int64_t target);

/* The sampling pass: samplers[i] samples plan->bins[i] (units[0..num_bins)
 * are filled in and run on `x`); each sampler's keys then hold its sample
 * and boundaries. */
int zorder_sample(const zorder_columns *cols, const compact_plan *plan, pipe_exec *x, pipe_unit *units,
                  zsampler *samplers);

#endif
