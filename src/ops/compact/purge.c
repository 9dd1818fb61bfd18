/* ops/compact/purge.c - REORG TABLE ... APPLY (PURGE): every live file with a
 * deletion vector rewritten without its deleted rows, so that a VACUUM after
 * the retention can make them physically gone (GDPR and similar duties;
 * compaction only purges files above COMPACT_MAX_DELETED_RATIO).
 *
 * A flavour of the one OPTIMIZE driver (ops/optimize/optimize.h): its own
 * plan, compaction's execution (compact_flavour_execute) and commit.
 *
 * Bins: per partition, the DV files (in the order they entered the table)
 * are packed first-fit into bins of at most the target, as compaction
 * packs its candidates, and every bin is kept, a lone file included (Spark
 * rewrites each DV file whatever its size). A partition's bins are then
 * written as one stream cut at the target (compact_group_units), so many
 * small DV files become a few full ones rather than as many small ones;
 * a file larger than the target is a bin of its own. Files without a DV
 * are never rewritten. */
#include <string.h>

#include "delta/protocol.h"
#include "loom/metrics.h"
#include "ops/compact/compact.h"
#include "ops/location.h"
#include "ops/opts.h"
#include "util/alloc.h"
#include "util/error.h"

#define OPS_ERR(code, ...) loom_err((code), LOOM_ERRCLASS_OPS, __VA_ARGS__)

/* A file purge rewrites: it has a DV (whatever its cardinality: none may
 * be left) and lives inside the table root (files elsewhere are not
 * loom's to rewrite; compaction leaves them too). */
static int purgeable(loom_store *store, const delta_file *f, int64_t target)
{
	const char *key;
	(void)target;   /* any size: a purge rewrites every file with a DV */
	return f->dv.storage_type && loom_store_key_of(&key, store, f->path) == 0;
}

static int any_dv(const delta_file *f)
{
	return f->dv.storage_type != 0;
}

/* Compaction's first-fit bins (ops/compact/compact_plan.c) of the
 * purgeable files. */
static int purge_plan(void *ctx, compact_plan *plan, const delta_snapshot *snap, int64_t target)
{
	static const compact_rules purge = { purgeable, any_dv };
	const compact_params *p = ctx;
	return compact_plan_pack(plan, snap, target, p->partition_filters, p->n_partition_filters, &purge);
}

static const optimize_flavour purge_flavour = {
	DELTA_OP_COMPACT, NULL, purge_plan, compact_flavour_execute,
};

/* Which files the plan purges and how many rows: out->files_deleted (the
 * paths as logged, so a reader finds them in the history) and
 * numRowsPurged. Computed from the snapshot the plan was made on, before
 * the run (the plan is gone after it), so a failed run reports nothing. */
typedef struct purge_report {
	const delta_file **files;
	size_t n;
	int64_t rows;
} purge_report;

static int report_collect(purge_report *r, const delta_snapshot *snap, const compact_params *p)
{
	compact_plan plan;
	size_t i;
	int rc;
	memset(r, 0, sizeof(*r));
	LOOM_TRY(purge_plan((void *)p, &plan, snap, INT64_MAX / 4));
	/* purge loads the snapshot's arrays: plan.files point into them and
	 * outlive the plan */
	r->files = loom_calloc(plan.files_in_bins + 1, sizeof(*r->files));
	if (!r->files) {
		compact_plan_dispose(&plan);
		return OPS_ERR(LOOM_ENOMEM, "out of memory");
	}
	if ((rc = compact_plan_files(&plan, snap)) < 0) {
		compact_plan_dispose(&plan);
		loom_free(r->files);
		r->files = NULL;
		return rc;
	}
	for (i = 0; i < plan.files_in_bins; i++) {
		r->files[r->n++] = plan.files[i];
		r->rows += plan.files[i]->dv.cardinality > 0 ? plan.files[i]->dv.cardinality : 0;
	}
	compact_plan_dispose(&plan);
	return 0;
}

static int report_fill(loom_op_result *out, const purge_report *r)
{
	size_t i;
	for (i = 0; i < r->n; i++)
		LOOM_TRY(loom_op_result_add_deleted(out, r->files[i]->path_raw));
	out->kind = LOOM_RESULT_OPTIMIZE; /* add_deleted marks a vacuum */
	return loom_op_result_set_metric(out, LOOM_METRIC_NUM_ROWS_PURGED, r->rows);
}

static int purge_run(loom_op_result *out, loom_store *store, const compact_params *p)
{
	delta_snapshot *snap = NULL;
	purge_report rep;
	optimize_job job;
	int rc;

	memset(&rep, 0, sizeof(rep));
	if ((rc = delta_snapshot_load(&snap, store, -1, NULL)) < 0)
		return rc;
	optimize_job_init(&job, "purge", &p->common);
	job.predicates = p->partition_filters;
	job.n_predicates = p->n_partition_filters;
	job.operation = "REORG";      /* as Spark's REORG ... APPLY (PURGE) */
	job.param_key = "applyPurge";
	job.param_value = "true";
	if ((rc = report_collect(&rep, snap, p)) == 0 &&
	    (rc = optimize_run(out, store, snap, &purge_flavour, (void *)p, &job, p->target_size)) == 0)
		rc = report_fill(out, &rep);
	loom_free(rep.files);
	delta_snapshot_free(snap);
	return rc;
}

/* purge_run's compaction params from the purge options read (on zeroed
 * params). */
static void params_fill(compact_params *p, const loom_purge_opts *o, const loom_table_location *loc,
                        const loom_cancel *cancel)
{
	p->target_size = o->target_size;
	p->common.dry_run = o->dry_run;
	p->common.loc = loc;
	p->common.cancel = cancel;
	p->partition_filters = o->partition_filters;
	p->n_partition_filters = o->n_partition_filters;
}

OPS_TABLE_ENTRY(purge, "purge", compact_params, params_fill, purge_run, common.secrets)
