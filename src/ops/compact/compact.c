/* ops/compact/compact.c - OPTIMIZE compaction: snapshot -> protocol gate -> plan
 * (bins) -> every bin through reader -> writer -> one REARRANGE commit
 * (ops/optimize/optimize.h). Any failure deletes the files this run wrote and
 * leaves the log alone. */
#include "ops/compact/compact.h"

#include <stdatomic.h>
#include <string.h>

#include "delta/protocol.h"
#include "ops/compact/cluster.h"
#include "ops/location.h"
#include "ops/opts.h"
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
 * partitions units of about equal bytes. With partial commits a unit also
 * ends once it holds max_unit_bytes (one commit's worth), so a table of one
 * big partition commits as it goes too. */
size_t compact_group_units(const compact_plan *plan, size_t workers, int64_t max_unit_bytes,
                           pipe_unit *units)
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
				if (max_unit_bytes > 0 && un->bytes >= max_unit_bytes)
					break;
			}
			u++;
		}
	}
	return n;
}

/* The compaction flavour of the OPTIMIZE driver (ops/optimize/optimize.h). */

static int compact_flavour_plan(void *ctx, compact_plan *plan, const delta_snapshot *snap, int64_t target)
{
	const compact_params *p = ctx;
	return compact_plan_build(plan, snap, target, p->partition_filters, p->n_partition_filters);
}

/* Every bin through reader -> writer, bins of a partition grouped into
 * units, then the commit (compact.h: purge executes its plan the same way). */
int compact_flavour_execute(void *ctx, loom_op_result *out, loom_store *store,
                                   const delta_snapshot *snap, const compact_plan *plan,
                                   const optimize_job *job)
{
	const compact_params *p = ctx;
	pipe_settings set;
	pipe_exec *x = NULL;
	pipe_unit *units = NULL;
	progress_state ps;
	size_t i, nunits = 0;
	int rc;

	if ((rc = pipe_settings_init(&set, store, snap, p->common.loc)) < 0)
		return rc;
	set.cancel = p->common.cancel;
	set.file_bytes = (uint64_t)plan->target;
	if (p->copy_row_group_min_size == LOOM_COPY_ROW_GROUPS_OFF)
		set.copy_min_bytes = 0;
	else if (p->copy_row_group_min_size > 0)
		set.copy_min_bytes = (uint64_t)p->copy_row_group_min_size;
	units = loom_calloc(plan->num_bins, sizeof(*units));
	if (!units)
		return OPS_ERR(LOOM_ENOMEM, "out of memory");
	if ((rc = pipe_exec_new(&x, &set, p->threads, 0)) < 0)
		goto done;
	nunits = compact_group_units(plan, pipe_exec_workers(x), job->common.commit_every, units);
	memset(&ps, 0, sizeof(ps));
	ps.p = p;
	ps.bytes_total = plan->bytes_in_bins;
	atomic_init(&ps.bytes_done, 0);
	rc = optimize_execute_commit(out, store, snap, plan, x, units, nunits, job,
	                             p->progress ? on_unit_done : NULL, &ps);
done:
	pipe_exec_free(x);
	for (i = 0; i < nunits; i++)
		pipe_result_dispose(&units[i].result);
	loom_free(units);
	return rc;
}

static const optimize_flavour compact_flavour = {
	DELTA_OP_COMPACT, NULL, compact_flavour_plan, compact_flavour_execute,
};

int compact_run(loom_op_result *out, loom_store *store, const compact_params *p)
{
	delta_snapshot *snap = NULL;
	delta_load_opts lo;
	optimize_job job;
	int rc;

	optimize_load_opts(&lo, p->common.dry_run);
	if ((rc = delta_snapshot_load(&snap, store, -1, &lo)) < 0)
		return rc;
	if (cluster_applies(snap)) {
		/* a clustered table is compacted by clustering it (ops/compact/cluster.h) */
		rc = cluster_run(out, store, snap, p);
	} else {
		optimize_job_init(&job, "compaction", &p->common);
		job.predicates = p->partition_filters;
		job.n_predicates = p->n_partition_filters;
		rc = optimize_run(out, store, snap, &compact_flavour, (void *)p, &job, p->target_size);
	}
	delta_snapshot_free(snap);
	return rc;
}

void compact_params_from_opts(compact_params *p, const loom_compact_opts *opts,
                              const loom_table_location *loc, const loom_cancel *cancel)
{
	memset(p, 0, sizeof(*p));
	p->target_size = opts->target_size;
	p->common.dry_run = opts->dry_run;
	p->partition_filters = opts->partition_filters;
	p->n_partition_filters = opts->n_partition_filters;
	p->common.loc = loc;
	p->common.cancel = cancel;
	p->progress = opts->progress;
	p->progress_ctx = opts->progress_ctx;
	p->copy_row_group_min_size = opts->copy_row_group_min_size;
	p->common.commit_every = opts->commit_every;
}

OPS_TABLE_ENTRY(compact, "compact", compact_params, compact_params_from_opts, compact_run, common.secrets)
