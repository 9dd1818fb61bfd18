/* ops/compact/compact.c - OPTIMIZE compaction: snapshot -> protocol gate -> plan
 * (bins) -> every bin through reader -> writer -> one REARRANGE commit
 * (ops/optimize/optimize.h). Any failure deletes the files this run wrote and
 * leaves the log alone. */
#include "ops/compact/compact.h"

#include <stdatomic.h>
#include <string.h>

#include "delta/log_temps.h"
#include "delta/protocol.h"
#include "ops/compact/cluster.h"
#include "ops/location.h"
#include "ops/pipeline/pipeline.h"
#include "util/alloc.h"
#include "util/error.h"

#define OPS_ERR(code, ...) loom_err((code), LOOM_ERRCLASS_OPS, __VA_ARGS__)

typedef struct progress_state {
	const compact_params *p;
	int64_t bytes_total;
	atomic_llong bytes_done;
} progress_state;

static void on_unit_done(void *ctx, const pipe_unit *u, size_t done, size_t total)
{
	progress_state *ps = ctx;
	long long by = atomic_fetch_add(&ps->bytes_done, u->bytes) + u->bytes;
	ps->p->progress(ps->p->progress_ctx, (int64_t)done, (int64_t)total, by, ps->bytes_total);
}

/* The units: runs of consecutive bins of one partition, each written as
 * one stream cut at the target (ops/pipeline/pipe_write.h), so its files are full
 * but the last, which takes the rest when that is under half the target:
 * the rewrite of many small files shrinks (fewer footers and pages), so
 * bins written one file each would leave files below half the target. One
 * unit per partition, unless fewer partitions have bins than there are
 * workers: then each partition's bins are split into up to workers /
 * partitions units of about equal bytes. */
size_t compact_group_units(const compact_plan *plan, size_t workers, pipe_unit *units)
{
	size_t nparts = 0, per, n = 0, b0, b1, b, k;
	for (b = 0; b < plan->num_bins; b++)
		nparts += b == 0 || plan->bins[b].partition != plan->bins[b - 1].partition;
	if (nparts == 0)
		return 0;
	per = nparts >= workers ? 1 : (workers + nparts - 1) / nparts;
	for (b0 = 0; b0 < plan->num_bins; b0 = b1) {
		int64_t total = 0, acc = 0;
		size_t parts, u = 0;
		for (b1 = b0; b1 < plan->num_bins && plan->bins[b1].partition == plan->bins[b0].partition; b1++)
			total += plan->bins[b1].bytes;
		parts = per < b1 - b0 ? per : b1 - b0;
		for (b = b0; b < b1; b = k) {
			pipe_unit *un = &units[n++];
			un->files = plan->bins[b].files;
			for (k = b; k < b1;) {
				un->num_files += plan->bins[k].num_files;
				un->bytes += plan->bins[k].bytes;
				acc += plan->bins[k].bytes;
				k++;
				/* the unit ends once it holds its share of the partition */
				if (u + 1 < parts && (double)acc >= (double)total * (double)(u + 1) / (double)parts)
					break;
			}
			u++;
		}
	}
	return n;
}

int compact_run(loom_op_result *out, loom_store *store, const compact_params *p)
{
	delta_snapshot *snap = NULL;
	compact_plan plan;
	pipe_settings set;
	pipe_exec *x = NULL;
	pipe_unit *units = NULL;
	optimize_job job;
	progress_state ps;
	size_t i, nunits = 0;
	int rc;

	memset(&plan, 0, sizeof(plan));
	memset(&job, 0, sizeof(job));
	job.name = "compaction";
	job.dry_run = p->dry_run;
	job.loc = p->loc;
	job.clock = p->clock;
	job.cancel = p->cancel;
	job.predicates = p->partition_filters;
	job.n_predicates = p->n_partition_filters;
	job.secrets = p->secrets;
	job.before_commit = p->before_commit;
	job.hook_ctx = p->hook_ctx;
	if ((rc = delta_snapshot_load(&snap, store, -1, NULL)) < 0)
		goto done;
	if ((rc = optimize_gate(snap, DELTA_OP_COMPACT, job.name)) < 0)
		goto done;
	if (cluster_applies(snap)) {
		/* a clustered table is compacted by clustering it (ops/compact/cluster.h) */
		if (p->n_partition_filters)
			rc = OPS_ERR(LOOM_EINVAL, "partition filters on a clustered table, which has no partitions");
		else
			rc = cluster_run(out, store, snap, p);
		goto done;
	}
	rc = compact_plan_build(&plan, snap, optimize_target(p->target_size, p->loc, snap),
	                        p->partition_filters, p->n_partition_filters);
	if (rc < 0)
		goto done;
	if (p->dry_run || plan.num_bins == 0) {
		/* nothing to rewrite (maybe a killed run committed it already) */
		if (!p->dry_run)
			delta_log_sweep_temps(store, p->clock);
		rc = optimize_result_plan_only(out, &plan, &job);
		goto done;
	}
	if ((rc = pipe_settings_init(&set, store, snap, p->loc)) < 0)
		goto done;
	set.cancel = p->cancel;
	set.file_bytes = (uint64_t)plan.target;
	if (p->copy_row_group_min_size == LOOM_COPY_ROW_GROUPS_OFF)
		set.copy_min_bytes = 0;
	else if (p->copy_row_group_min_size > 0)
		set.copy_min_bytes = (uint64_t)p->copy_row_group_min_size;
	units = loom_calloc(plan.num_bins, sizeof(*units));
	if (!units) {
		rc = OPS_ERR(LOOM_ENOMEM, "out of memory");
		goto done;
	}
	if ((rc = pipe_exec_new(&x, &set, p->threads, 0)) < 0)
		goto done;
	nunits = compact_group_units(&plan, pipe_exec_workers(x), units);
	memset(&ps, 0, sizeof(ps));
	ps.p = p;
	ps.bytes_total = plan.bytes_in_bins;
	atomic_init(&ps.bytes_done, 0);
	rc = optimize_execute_commit(out, store, snap, &plan, x, units, nunits, &job,
	                             p->progress ? on_unit_done : NULL, &ps);
done:
	pipe_exec_free(x);
	for (i = 0; units && i < nunits; i++)
		pipe_result_dispose(&units[i].result);
	loom_free(units);
	compact_plan_dispose(&plan);
	delta_snapshot_free(snap);
	return rc;
}

LOOM_EXTERN(int) loom_compact(loom_op_result *out, const char *uri, const loom_table_location *loc,
                              const loom_compact_opts *opts, const loom_cancel *cancel)
{
	const loom_compact_opts defaults = LOOM_COMPACT_OPTS_INIT;
	compact_params p;
	ops_table t;
	int rc;

	if (!opts)
		opts = &defaults;
	LOOM_TRY(loom_compact_opts_check(opts));
	memset(&p, 0, sizeof(p));
	p.target_size = opts->target_size;
	p.dry_run = opts->dry_run;
	p.partition_filters = opts->partition_filters;
	p.n_partition_filters = opts->n_partition_filters;
	p.loc = loc;
	p.cancel = cancel;
	p.progress = opts->progress;
	p.progress_ctx = opts->progress_ctx;
	p.copy_row_group_min_size = opts->copy_row_group_min_size;
	LOOM_TRY(ops_table_open(&t, uri, loc, "compact"));
	p.secrets = &t.secrets;
	rc = compact_run(out, t.store, &p);
	return ops_table_close(&t, rc, "compact");
}
