/* ops/optimize/optimize_run.c - the one OPTIMIZE driver. Compaction,
 * Z-order and liquid clustering are flavours (optimize_flavour): they
 * supply their checks, their plan and the stages that execute it; the
 * order of the steps, the protocol gate and the run that writes nothing
 * are the same for all and live here. */
#include <string.h>

#include "delta/log_temps.h"
#include "ops/optimize/optimize.h"

void optimize_job_init(optimize_job *job, const char *name, const optimize_common *c)
{
	*job = (optimize_job){ .name = name, .common = *c };
}

void optimize_load_opts(delta_load_opts *lo, int dry_run)
{
	delta_load_opts_init(lo);
	lo->file_index = 1;
	if (dry_run)
		lo->commit_stats_budget = 0;
}

int optimize_run(loom_op_result *out, loom_store *store, const delta_snapshot *snap,
                 const optimize_flavour *fl, void *ctx, const optimize_job *job, int64_t target_size)
{
	compact_plan plan;
	int rc;

	memset(&plan, 0, sizeof(plan));
	/* a bad argument is reported before any protocol refusal */
	if (fl->check && (rc = fl->check(ctx, snap)) < 0)
		return rc;
	if ((rc = optimize_gate(snap, fl->op, job->name)) < 0)
		return rc;
	if ((rc = fl->plan(ctx, &plan, snap, optimize_target(target_size, job->common.loc, snap))) < 0)
		goto done;
	if (job->common.dry_run || plan.num_bins == 0) {
		/* nothing to rewrite (maybe a killed run committed it already):
		 * a real run still sweeps the log temps such a run left */
		if (!job->common.dry_run)
			delta_log_sweep_temps(store, job->common.clock);
		rc = optimize_result_plan_only(out, snap, &plan, job);
	} else if ((rc = compact_plan_files(&plan, snap)) == 0) {
		/* the run reads the files themselves; planning kept positions */
		rc = fl->execute(ctx, out, store, snap, &plan, job);
	}
done:
	compact_plan_dispose(&plan);
	return rc;
}
