/* ops/compact.c - OPTIMIZE compaction: snapshot -> protocol gate -> plan
 * (bins) -> every bin through reader -> writer -> one REARRANGE commit
 * (ops/optimize.h). Any failure deletes the files this run wrote and
 * leaves the log alone. */
#include "ops/compact.h"

#include <stdatomic.h>
#include <string.h>

#include "delta/protocol.h"
#include "ops/pipeline.h"
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

int compact_run(loom_op_result *out, loom_store *store, const compact_params *p)
{
	delta_snapshot *snap = NULL;
	compact_plan plan;
	pipe_settings set;
	pipe_exec *x = NULL;
	pipe_unit *units = NULL;
	optimize_job job;
	progress_state ps;
	size_t i;
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
	job.before_commit = p->before_commit;
	job.hook_ctx = p->hook_ctx;
	if ((rc = delta_snapshot_load(&snap, store, -1, NULL)) < 0)
		goto done;
	if ((rc = optimize_gate(snap, DELTA_OP_COMPACT, job.name)) < 0)
		goto done;
	rc = compact_plan_build(&plan, snap, optimize_target(p->target_size, p->loc, snap),
	                        p->partition_filters, p->n_partition_filters);
	if (rc < 0)
		goto done;
	if (p->dry_run || plan.num_bins == 0) {
		rc = optimize_result_plan_only(out, &plan, &job);
		goto done;
	}
	if ((rc = pipe_settings_init(&set, store, snap, p->loc)) < 0)
		goto done;
	set.cancel = p->cancel;
	set.file_bytes = (uint64_t)plan.target;
	units = loom_calloc(plan.num_bins, sizeof(*units));
	if (!units) {
		rc = OPS_ERR(LOOM_ENOMEM, "out of memory");
		goto done;
	}
	for (i = 0; i < plan.num_bins; i++) {
		units[i].files = plan.bins[i].files;
		units[i].num_files = plan.bins[i].num_files;
		units[i].bytes = plan.bins[i].bytes;
	}
	if ((rc = pipe_exec_new(&x, &set, p->threads, 0)) < 0)
		goto done;
	memset(&ps, 0, sizeof(ps));
	ps.p = p;
	ps.bytes_total = plan.bytes_in_bins;
	atomic_init(&ps.bytes_done, 0);
	rc = optimize_execute_commit(out, store, snap, &plan, x, units, &job, p->progress ? on_unit_done : NULL,
	                             &ps);
done:
	pipe_exec_free(x);
	for (i = 0; units && i < plan.num_bins; i++)
		pipe_result_dispose(&units[i].result);
	loom_free(units);
	compact_plan_dispose(&plan);
	delta_snapshot_free(snap);
	return rc;
}

LOOM_EXTERN(int) loom_compact(loom_op_result *out, const char *uri, const loom_compact_opts *opts,
                              const loom_table_location *loc, const loom_cancel *cancel)
{
	compact_params p;
	loom_store *store = NULL;
	int rc;

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
	if (loom_store_open(&store, uri) < 0)
		return loom_err_wrap("compact %s", uri);
	rc = compact_run(out, store, &p);
	if (rc < 0)
		loom_err_wrap("compact %s", uri);
	loom_store_free(store);
	return rc;
}
