/* ops/optimize/optimize.h - OPTIMIZE around the rewrite pipeline, shared by
 * compaction (ops/compact/compact.h) and Z-order (ops/zorder/zorder.h):
 *
 *     plan     per partition, which files go into which unit (compact_plan;
 *              a compaction bin, or a Z-order partition), against the
 *              snapshot's read version
 *     execute  pipe_exec_run over the units: new files, no commit
 *     commit   one REARRANGE commit: removes of the units' files and adds
 *              of their outputs (dataChange=false), conflict-checked from
 *              the read version; files of a failed run are deleted
 *
 * The three steps only meet through the plan, the units' results and the
 * read version, so they can run in different places later (plan on a
 * driver, execute(unit) on workers, commit back on the driver). */
#ifndef LOOM_OPS_OPTIMIZE_H
#define LOOM_OPS_OPTIMIZE_H

#include <stddef.h>
#include <stdint.h>

#include "delta/snapshot.h"
#include "loom/ops.h"
#include "loom/store.h"
#include "ops/pipeline/pipeline.h"
#include "util/clock.h"
#include "util/secret.h"

/* One unit of the plan: files of one partition. */
typedef struct compact_bin {
	const uint32_t *pos;              /* its files' live positions, into
	                                   * the plan's array */
	const delta_file **files;         /* the same files, into the plan's
	                                   * array: set by compact_plan_files */
	size_t num_files;
	int64_t bytes;
	size_t partition;                 /* index of its partition */
} compact_bin;

struct plan_views;

/* The plan of an OPTIMIZE run. Planning holds positions only (4 bytes a
 * file: a dry run over a snapshot in the compact file index makes no
 * delta_file); the files themselves are fetched for the run. */
typedef struct compact_plan {
	uint32_t *storage;                /* the bins' files' live positions,
	                                   * bin after bin */
	const delta_file **files;         /* the same files (compact_plan_files) */
	struct plan_views *views;         /* what they point into, with an index */
	compact_bin *bins;
	size_t num_bins;
	size_t considered;                /* live files in scope (filter) */
	size_t partitions;                /* partitions in scope */
	size_t partitions_optimized;      /* with at least one bin */
	size_t files_in_bins;
	int64_t bytes_in_bins;
	size_t dvs_in_bins;               /* files with a DV being purged */
	int64_t target;
	int64_t read_version;             /* the snapshot planned on */
} compact_plan;

void compact_plan_dispose(compact_plan *plan);

/* Set every bin's `files` (and plan->files): pointers into the snapshot's
 * arrays, or, for a snapshot in the compact file index, views of its
 * files with their stats (a remove carries them) kept by the plan. Once;
 * later calls return at once. */
int compact_plan_files(compact_plan *plan, const delta_snapshot *snap);

/* What every plan builder ends with: the files set at once when the
 * snapshot has its arrays (as planning always did), left to
 * compact_plan_files before a run when it has the index. */
int compact_plan_finish(compact_plan *plan, const delta_snapshot *snap);

/* Free what compact_plan_files made (compact_plan_dispose calls it). */
void compact_plan_drop_files(compact_plan *plan);

struct partition_groups;
/* The start every plan shares: `plan` emptied, its target and read version
 * set, the live files in scope grouped by partition into `pg` (filters as
 * compact_plan_build takes them), room for every file and `max_bins` bins.
 * On failure nothing is left to dispose. */
int compact_plan_start(compact_plan *plan, struct partition_groups *pg, const delta_snapshot *snap,
                       int64_t target, const char *const *filters, size_t n_filters, size_t max_bins);

/* What every flavour's caller sets the same way (a flavour's own
 * parameters keep these fields under the same names). */
typedef struct optimize_common {
	int dry_run;
	const loom_table_location *loc;   /* may be NULL */
	const loom_clock *clock;          /* NULL: system */
	const loom_cancel *cancel;
	const loom_secrets *secrets;      /* masked in commitInfo; may be NULL */
	void (*before_commit)(void *ctx); /* test hook: right before the commit, or NULL */
	void *hook_ctx;
	/* Partial progress (optimize_execute_commit): 0 = one commit of every
	 * unit at the end; > 0 = finished units committed in order of
	 * completion once they hold this many input bytes, each commit
	 * conflict-checked on its own; a failed or cancelled run still commits
	 * the units it finished. Units must hold disjoint files (one unit per
	 * bin or run of bins: not the key-range units of a distributed plan). */
	int64_t commit_every;
} optimize_common;

/* What differs between OPTIMIZE flavours when committing and reporting. */
typedef struct optimize_job {
	const char *name;                 /* "compaction", "Z-order" */
	const char *operation;            /* commitInfo.operation; NULL = "OPTIMIZE"
	                                   * (purge: "REORG", as Spark's REORG
	                                   * TABLE ... APPLY (PURGE)) */
	optimize_common common;
	const char *const *predicates;    /* operationParameters.predicate */
	size_t n_predicates;
	const char *tag_key, *tag_value;  /* set on every add, or NULL */
	const char *param_key;            /* extra operationParameters entry */
	const char *param_value;
	/* Liquid clustering (ops/compact/cluster.h): every add gets clusteringProvider
	 * and Delta's ZCube tags, ZCUBE_ID = zcube_ids[unit] and
	 * ZCUBE_ZORDER_BY = cluster_by (JSON list of the logical column
	 * names), which also goes into operationParameters.clusterBy. */
	const char *clustering_provider;
	const char *cluster_by;
	char *const *zcube_ids;
} optimize_job;

/* A job named `name` (a flavour then sets its tags and parameters). */
void optimize_job_init(optimize_job *job, const char *name, const optimize_common *c);

/* ---- the driver (ops/optimize/optimize_run.c) -----------------------------
 *
 * One run of any OPTIMIZE on a loaded snapshot:
 *
 *     check    the flavour's arguments against the table (optional)
 *     gate     the protocol gate for the flavour's operation
 *     plan     the flavour's units of work at the target size
 *     execute  the flavour's stages over the plan, ending in
 *              optimize_execute_commit; skipped for a dry run or an
 *              empty plan, which report the plan only
 *
 * `ctx` is the flavour's own state, passed to each step. */
typedef struct optimize_flavour {
	int op;                           /* DELTA_OP_* for the gate */
	int (*check)(void *ctx, const delta_snapshot *snap);
	int (*plan)(void *ctx, compact_plan *plan, const delta_snapshot *snap, int64_t target);
	int (*execute)(void *ctx, loom_op_result *out, loom_store *store, const delta_snapshot *snap,
	               const compact_plan *plan, const optimize_job *job);
} optimize_flavour;

/* How every flavour loads the snapshot it runs on: into the compact file
 * index (issue 30). A run fetches its files from it (compact_plan_files)
 * with the stats its removes carry: those of commits' adds the index
 * holds (no request), a checkpoint's read from it in row order. A dry run
 * writes no removes and holds none. */
void optimize_load_opts(delta_load_opts *lo, int dry_run);

/* `target_size`: the requested size, or 0 (see optimize_target). */
int optimize_run(loom_op_result *out, loom_store *store, const delta_snapshot *snap,
                 const optimize_flavour *fl, void *ctx, const optimize_job *job, int64_t target_size);

/* The target size: requested (> 0), else the location's, else the
 * table's delta.targetFileSize, else COMPACT_DEFAULT_TARGET. */
#define COMPACT_DEFAULT_TARGET (100LL * 1024 * 1024)
int64_t optimize_target(int64_t requested, const loom_table_location *loc, const delta_snapshot *snap);

/* The protocol gate for `op` (DELTA_OP_*), and the features OPTIMIZE
 * cannot keep yet (row tracking). */
int optimize_gate(const delta_snapshot *snap, int op, const char *name);

/* Execute units[0..nunits) (which together hold exactly the files of the
 * plan's bins, each unit within one partition), then commit and fill
 * `out`. On any failure the files the units wrote are deleted and the log
 * is left alone. */
int optimize_execute_commit(loom_op_result *out, loom_store *store, const delta_snapshot *snap,
                            const compact_plan *plan, pipe_exec *x, pipe_unit *units, size_t nunits,
                            const optimize_job *job, pipe_progress_fn progress, void *progress_ctx);

/* Commit units whose results are already in hand (executed here by
 * optimize_execute_commit, or elsewhere and read back from a result file,
 * ops/dist/dist.h): the removes of the plan's bins, the adds of the units'
 * outputs, one REARRANGE commit from plan->read_version. On a failure
 * whose outcome is known the units' outputs are deleted. */
int optimize_commit_units(loom_op_result *out, loom_store *store, const delta_snapshot *snap,
                          const compact_plan *plan, const pipe_unit *units, size_t nunits,
                          const optimize_job *job);

/* The result of a run that writes nothing (dry run, nothing to do). */
int optimize_result_plan_only(loom_op_result *out, const delta_snapshot *snap, const compact_plan *plan,
                              const optimize_job *job);

#endif
