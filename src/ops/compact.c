/* ops/compact.c - OPTIMIZE: options -> snapshot -> protocol gate -> plan
 * -> rewrite bins in parallel -> one REARRANGE commit -> result. Any
 * failure deletes the files this run wrote and leaves the log alone. */
#include "ops/compact.h"

#include <jansson.h>
#include <stdatomic.h>
#include <string.h>

#include "delta/commit_write.h"
#include "delta/props.h"
#include "delta/protocol.h"
#include "ops/location.h"
#include "ops/rewrite.h"
#include "util/alloc.h"
#include "util/error.h"
#include "util/hashmap.h"
#include "util/threadpool.h"

#define OPS_ERR(code, ...) loom_err((code), LOOM_ERRCLASS_OPS, __VA_ARGS__)

typedef struct bin_task {
	const rewrite_ctx *ctx;
	rewrite_ctx own;              /* strategy runs: the bin's own context */
	const compact_strategy *strategy;
	size_t index;
	const compact_bin *bin;
	rewrite_result res;
	int rc;
	loom_error err;
	atomic_int *failed;
	const compact_params *p;
	atomic_llong *bins_done, *bytes_done;
	int64_t bins_total, bytes_total;
} bin_task;

static void run_bin(void *arg)
{
	bin_task *t = arg;
	if (atomic_load(t->failed)) {
		t->rc = LOOM_ECANCELLED;
		loom_err(LOOM_ECANCELLED, LOOM_ERRCLASS_OPS, "compaction stopped after another bin failed");
		loom_err_copy(&t->err);
		return;
	}
	if (t->strategy) {
		t->own = *t->ctx;
		t->rc = t->strategy->bin_begin(t->strategy->arg, t->index, &t->own);
		if (t->rc == 0)
			t->rc = rewrite_files(&t->own, t->bin->files, t->bin->num_files, &t->res);
		if (t->strategy->bin_end)
			t->strategy->bin_end(t->strategy->arg, t->index);
	} else {
		t->rc = rewrite_files(t->ctx, t->bin->files, t->bin->num_files, &t->res);
	}
	if (t->rc < 0) {
		loom_err_copy(&t->err);
		atomic_store(t->failed, 1);
		return;
	}
	if (t->p->progress) {
		long long b = atomic_fetch_add(t->bins_done, 1) + 1;
		long long by = atomic_fetch_add(t->bytes_done, t->bin->bytes) + t->bin->bytes;
		t->p->progress(t->p->progress_ctx, b, t->bins_total, by, t->bytes_total);
	}
}

static int64_t resolve_target(const compact_params *p, const delta_snapshot *snap)
{
	delta_table_props props;
	if (p->target_size > 0)
		return p->target_size;
	if (p->loc && p->loc->target_file_size > 0)
		return p->loc->target_file_size;
	if (delta_props_parse(&snap->metadata, &props) == 0 && props.target_file_size > 0)
		return props.target_file_size;
	return COMPACT_DEFAULT_TARGET;
}

static json_t *kv_object(const delta_kv *kv, uint32_t n)
{
	json_t *o = json_object();
	uint32_t i;
	for (i = 0; i < n; i++)
		json_object_set_new(o, kv[i].key, kv[i].value ? json_string(kv[i].value) : json_null());
	return o;
}

static json_t *dv_object(const delta_dv_descriptor *dv)
{
	json_t *o = json_object();
	char st[2] = { dv->storage_type, 0 };
	json_object_set_new(o, "storageType", json_string(st));
	json_object_set_new(o, "pathOrInlineDv", json_string(dv->path_or_inline_dv));
	if (dv->has_offset)
		json_object_set_new(o, "offset", json_integer(dv->offset));
	json_object_set_new(o, "sizeInBytes", json_integer(dv->size_in_bytes));
	json_object_set_new(o, "cardinality", json_integer((json_int_t)dv->cardinality));
	return o;
}

static int append_line(loom_buf *b, const char *name, json_t *body)
{
	json_t *line = json_object();
	char *text;
	int rc;
	json_object_set_new(line, name, body);
	text = json_dumps(line, JSON_COMPACT);
	json_decref(line);
	if (!text)
		return OPS_ERR(LOOM_ENOMEM, "out of memory building the commit");
	rc = loom_buf_puts(b, text);
	free(text);
	if (rc == 0)
		rc = loom_buf_putc(b, '\n');
	return rc;
}

static int remove_line(loom_buf *b, const delta_file *f, int64_t now)
{
	json_t *r = json_object();
	json_object_set_new(r, "path", json_string(f->path_raw));
	json_object_set_new(r, "deletionTimestamp", json_integer(now));
	json_object_set_new(r, "dataChange", json_false());
	json_object_set_new(r, "extendedFileMetadata", json_true());
	json_object_set_new(r, "partitionValues", kv_object(f->partition_values, f->num_partition_values));
	json_object_set_new(r, "size", json_integer(f->size));
	if (f->num_tags)
		json_object_set_new(r, "tags", kv_object(f->tags, f->num_tags));
	if (f->dv.storage_type)
		json_object_set_new(r, "deletionVector", dv_object(&f->dv));
	if (f->base_row_id >= 0)
		json_object_set_new(r, "baseRowId", json_integer(f->base_row_id));
	if (f->default_row_commit_version >= 0)
		json_object_set_new(r, "defaultRowCommitVersion", json_integer(f->default_row_commit_version));
	if (f->stats)
		json_object_set_new(r, "stats", json_string(f->stats));
	return append_line(b, "remove", r);
}

static int add_line(loom_buf *b, const delta_file *like, const rewrite_output *o,
                    const compact_strategy *st)
{
	json_t *a = json_object();
	if (st && st->tag_key) {
		json_t *tags = json_object();
		json_object_set_new(tags, st->tag_key, json_string(st->tag_value));
		json_object_set_new(a, "tags", tags);
	}
	json_object_set_new(a, "path", json_string(o->path_raw));
	json_object_set_new(a, "partitionValues", kv_object(like->partition_values, like->num_partition_values));
	json_object_set_new(a, "size", json_integer(o->size));
	json_object_set_new(a, "modificationTime", json_integer(o->modification_time));
	json_object_set_new(a, "dataChange", json_false());
	json_object_set_new(a, "stats", json_string(o->stats));
	return append_line(b, "add", a);
}

typedef struct size_summary {
	int64_t min, max, total, count;
} size_summary;

static void summary_add(size_summary *s, int64_t v)
{
	if (s->count == 0 || v < s->min)
		s->min = v;
	if (s->count == 0 || v > s->max)
		s->max = v;
	s->total += v;
	s->count++;
}

static json_t *summary_json(const size_summary *s)
{
	json_t *o = json_object();
	json_object_set_new(o, "avg", json_real(s->count ? (double)s->total / (double)s->count : 0.0));
	json_object_set_new(o, "max", json_integer(s->max));
	json_object_set_new(o, "min", json_integer(s->min));
	json_object_set_new(o, "totalFiles", json_integer(s->count));
	json_object_set_new(o, "totalSize", json_integer(s->total));
	return o;
}

static int summary_metrics(loom_op_result *out, const char *prefix, const size_summary *s)
{
	char name[64];
	snprintf(name, sizeof(name), "%s.min", prefix);
	LOOM_TRY(loom_op_result_set_metric(out, name, s->min));
	snprintf(name, sizeof(name), "%s.max", prefix);
	LOOM_TRY(loom_op_result_set_metric(out, name, s->max));
	snprintf(name, sizeof(name), "%s.avg", prefix);
	LOOM_TRY(loom_op_result_set_metric(out, name, s->count ? s->total / s->count : 0));
	snprintf(name, sizeof(name), "%s.totalFiles", prefix);
	LOOM_TRY(loom_op_result_set_metric(out, name, s->count));
	snprintf(name, sizeof(name), "%s.totalSize", prefix);
	return loom_op_result_set_metric(out, name, s->total);
}

typedef struct run_totals {
	size_summary added, removed;
	int64_t batches;
	int64_t version;
} run_totals;

static int fill_result(loom_op_result *out, const compact_plan *plan, const compact_params *p,
                       const run_totals *t)
{
	out->kind = LOOM_RESULT_OPTIMIZE;
	out->dry_run = p->dry_run;
	out->num_files_added = t->added.count;
	out->num_files_removed = t->removed.count;
	LOOM_TRY(loom_op_result_set_metric(out, "numFilesAdded", t->added.count));
	LOOM_TRY(loom_op_result_set_metric(out, "numFilesRemoved", t->removed.count));
	LOOM_TRY(loom_op_result_set_metric(out, "numAddedBytes", t->added.total));
	LOOM_TRY(loom_op_result_set_metric(out, "numRemovedBytes", t->removed.total));
	LOOM_TRY(loom_op_result_set_metric(out, "partitionsOptimized", (int64_t)plan->partitions_optimized));
	LOOM_TRY(loom_op_result_set_metric(out, "totalConsideredFiles", (int64_t)plan->considered));
	LOOM_TRY(loom_op_result_set_metric(out, "totalFilesSkipped",
	                                   (int64_t)(plan->considered - plan->files_in_bins)));
	LOOM_TRY(loom_op_result_set_metric(out, "numDeletionVectorsRemoved", (int64_t)plan->dvs_in_bins));
	LOOM_TRY(loom_op_result_set_metric(out, "numBins", (int64_t)plan->num_bins));
	LOOM_TRY(loom_op_result_set_metric(out, "numBatches", t->batches));
	LOOM_TRY(loom_op_result_set_metric(out, "targetSize", plan->target));
	LOOM_TRY(loom_op_result_set_metric(out, "dryRun", p->dry_run));
	LOOM_TRY(loom_op_result_set_metric(out, "version", t->version));
	LOOM_TRY(summary_metrics(out, "filesAdded", &t->added));
	return summary_metrics(out, "filesRemoved", &t->removed);
}

static json_t *predicate_json(const compact_params *p)
{
	json_t *a = json_array();
	size_t i;
	for (i = 0; i < p->n_partition_filters; i++)
		json_array_append_new(a, json_string(p->partition_filters[i]));
	return a;
}

static int commit(loom_store *store, const delta_snapshot *snap, const compact_plan *plan,
                  const compact_params *p, bin_task *tasks, run_totals *t)
{
	loom_buf actions = LOOM_BUF_INIT;
	loom_map removed;
	json_t *params = json_object(), *metrics = json_object();
	delta_commit c;
	delta_table_props props;
	int64_t now = loom_clock_wall_ms(p->clock);
	size_t i, j;
	int rc = 0;

	memset(&removed, 0, sizeof(removed));
	for (i = 0; i < plan->num_bins && rc == 0; i++) {
		const compact_bin *b = &plan->bins[i];
		for (j = 0; j < b->num_files && rc == 0; j++) {
			rc = remove_line(&actions, b->files[j], now);
			if (rc == 0)
				rc = loom_map_puts(&removed, b->files[j]->path, (void *)b->files[j]);
		}
		for (j = 0; j < tasks[i].res.num_files && rc == 0; j++)
			rc = add_line(&actions, b->files[0], &tasks[i].res.files[j], p->strategy);
	}
	if (rc < 0)
		goto done;
	{
		char ts[32];
		snprintf(ts, sizeof(ts), "%lld", (long long)plan->target);
		json_object_set_new(params, "targetSize", json_string(ts));
		json_object_set_new(params, "predicate", predicate_json(p));
		if (p->strategy && p->strategy->param_key)
			json_object_set_new(params, p->strategy->param_key, json_string(p->strategy->param_value));
	}
	json_object_set_new(metrics, "numFilesAdded", json_integer(t->added.count));
	json_object_set_new(metrics, "numFilesRemoved", json_integer(t->removed.count));
	json_object_set_new(metrics, "numAddedBytes", json_integer(t->added.total));
	json_object_set_new(metrics, "numRemovedBytes", json_integer(t->removed.total));
	json_object_set_new(metrics, "filesAdded", summary_json(&t->added));
	json_object_set_new(metrics, "filesRemoved", summary_json(&t->removed));
	json_object_set_new(metrics, "partitionsOptimized", json_integer((json_int_t)plan->partitions_optimized));
	json_object_set_new(metrics, "numBatches", json_integer(t->batches));
	json_object_set_new(metrics, "totalConsideredFiles", json_integer((json_int_t)plan->considered));
	json_object_set_new(metrics, "totalFilesSkipped",
	                    json_integer((json_int_t)(plan->considered - plan->files_in_bins)));
	json_object_set_new(metrics, "numDeletionVectorsRemoved", json_integer((json_int_t)plan->dvs_in_bins));
	json_object_set_new(metrics, "preserveInsertionOrder", json_true());
	if ((rc = delta_props_parse(&snap->metadata, &props)) < 0)
		goto done;
	delta_commit_init(&c, DELTA_COMMIT_REARRANGE, snap->version, "OPTIMIZE");
	c.operation_parameters = params;
	c.operation_metrics = metrics;
	c.in_commit_timestamps = props.enable_in_commit_timestamps;
	c.isolation_level = "SnapshotIsolation";
	c.actions = actions.ptr;
	c.actions_len = actions.size;
	c.removed_keys = &removed;
	c.clock = p->clock;
	c.secrets = p->secrets;
	if (p->loc) {
		c.user_metadata = p->loc->commit;
		c.n_user_metadata = p->loc->n_commit;
	}
	if (p->before_commit)
		p->before_commit(p->hook_ctx);
	rc = delta_commit_write(store, &c, &t->version);
done:
	json_decref(params);
	json_decref(metrics);
	loom_map_dispose(&removed);
	loom_buf_dispose(&actions);
	return rc;
}

static void delete_outputs(loom_store *store, bin_task *tasks, size_t n)
{
	size_t i, j;
	for (i = 0; i < n; i++)
		for (j = 0; j < tasks[i].res.num_files; j++)
			store->remove(store, tasks[i].res.files[j].key);
}

int compact_run(loom_op_result *out, loom_store *store, const compact_params *p)
{
	delta_snapshot *snap = NULL;
	compact_plan plan;
	rewrite_ctx ctx;
	bin_task *tasks = NULL;
	loom_threadpool *pool = NULL;
	atomic_int failed;
	atomic_llong bins_done, bytes_done;
	run_totals t;
	size_t i, j, threads;
	int rc;

	memset(&plan, 0, sizeof(plan));
	memset(&t, 0, sizeof(t));
	t.version = -1;
	atomic_init(&failed, 0);
	atomic_init(&bins_done, 0);
	atomic_init(&bytes_done, 0);
	if ((rc = delta_snapshot_load(&snap, store, -1, NULL)) < 0)
		goto done;
	if (p->strategy && p->strategy->validate &&
	    (rc = p->strategy->validate(p->strategy->arg, snap)) < 0)
		goto done;
	if ((rc = delta_protocol_check(&snap->protocol, p->strategy ? p->strategy->op : DELTA_OP_COMPACT)) < 0)
		goto done;
	if (delta_protocol_has_feature(&snap->protocol, "rowTracking") ||
	    (delta_snapshot_property(snap, "delta.enableRowTracking") &&
	     strcmp(delta_snapshot_property(snap, "delta.enableRowTracking"), "true") == 0)) {
		rc = OPS_ERR(LOOM_EUNSUPPORTED,
		             "%s of tables with row tracking (rowTracking) is not supported: "
		             "loom cannot preserve row ids yet", p->strategy ? p->strategy->name : "compaction");
		goto done;
	}
	if (p->strategy)
		rc = p->strategy->plan(p->strategy->arg, &plan, snap, resolve_target(p, snap));
	else
		rc = compact_plan_build(&plan, snap, resolve_target(p, snap), p->partition_filters,
		                        p->n_partition_filters);
	if (rc < 0)
		goto done;
	for (i = 0; i < plan.num_bins; i++)
		for (j = 0; j < plan.bins[i].num_files; j++)
			summary_add(&t.removed, plan.bins[i].files[j]->size);
	if (p->dry_run || plan.num_bins == 0) {
		if (!p->dry_run)
			memset(&t.removed, 0, sizeof(t.removed)); /* nothing to do */
		rc = fill_result(out, &plan, p, &t);
		goto done;
	}
	if ((rc = rewrite_ctx_init(&ctx, store, snap, p->loc)) < 0)
		goto done;
	ctx.cancel = p->cancel;
	tasks = loom_calloc(plan.num_bins, sizeof(*tasks));
	if (!tasks) {
		rc = OPS_ERR(LOOM_ENOMEM, "out of memory");
		goto done;
	}
	threads = p->threads ? p->threads : loom_cpu_count();
	if (threads > plan.num_bins)
		threads = plan.num_bins;
	for (i = 0; i < plan.num_bins; i++) {
		tasks[i].ctx = &ctx;
		tasks[i].bin = &plan.bins[i];
		tasks[i].failed = &failed;
		tasks[i].p = p;
		tasks[i].bins_done = &bins_done;
		tasks[i].bytes_done = &bytes_done;
		tasks[i].bins_total = (int64_t)plan.num_bins;
		tasks[i].bytes_total = plan.bytes_in_bins;
		tasks[i].strategy = p->strategy;
		tasks[i].index = i;
	}
	if (threads <= 1) {
		for (i = 0; i < plan.num_bins; i++)
			run_bin(&tasks[i]);
	} else {
		if ((rc = loom_threadpool_new(&pool, threads)) < 0)
			goto done;
		for (i = 0; i < plan.num_bins; i++)
			if ((rc = loom_threadpool_submit(pool, run_bin, &tasks[i])) < 0) {
				atomic_store(&failed, 1);
				break;
			}
		loom_threadpool_wait(pool);
		if (rc < 0)
			goto cleanup;
	}
	/* the first real failure (not a knock-on stop) is the one to report */
	for (i = 0; i < plan.num_bins; i++)
		if (tasks[i].rc < 0 && tasks[i].rc != LOOM_ECANCELLED) {
			rc = loom_err(tasks[i].err.code, tasks[i].err.klass, "%s", tasks[i].err.message);
			goto cleanup;
		}
	for (i = 0; i < plan.num_bins; i++)
		if (tasks[i].rc < 0) {
			rc = loom_err(tasks[i].err.code, tasks[i].err.klass, "%s", tasks[i].err.message);
			goto cleanup;
		}
	if (loom_cancel_requested(p->cancel)) {
		rc = OPS_ERR(LOOM_ECANCELLED, "compaction cancelled before its commit");
		goto cleanup;
	}
	for (i = 0; i < plan.num_bins; i++) {
		t.batches += tasks[i].res.batches;
		for (j = 0; j < tasks[i].res.num_files; j++)
			summary_add(&t.added, tasks[i].res.files[j].size);
	}
	if ((rc = commit(store, snap, &plan, p, tasks, &t)) < 0)
		goto cleanup;
	rc = fill_result(out, &plan, p, &t);
	goto done;
cleanup:
	{
		loom_error saved;
		loom_err_copy(&saved);
		delete_outputs(store, tasks, plan.num_bins);
		loom_err(saved.code, saved.klass, "%s", saved.message);
	}
done:
	loom_threadpool_free(pool);
	if (tasks)
		for (i = 0; i < plan.num_bins; i++)
			rewrite_result_dispose(&tasks[i].res);
	loom_free(tasks);
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
	LOOM_TRY(ops_table_open(&t, uri, loc, "compact"));
	p.secrets = &t.secrets;
	rc = compact_run(out, t.store, &p);
	return ops_table_close(&t, rc, "compact");
}
