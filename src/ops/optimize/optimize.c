/* ops/optimize/optimize.c - OPTIMIZE's commit, cleanup and metrics around the
 * rewrite pipeline. */
#include "ops/optimize/optimize.h"

#include <jansson.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "delta/action_write.h"
#include "delta/commit_write.h"
#include "delta/log_temps.h"
#include "delta/props.h"
#include "delta/protocol.h"
#include "delta/row_tracking.h"
#include "loom/metrics.h"
#include "ops/optimize/partition_groups.h"
#include "util/alloc.h"
#include "util/error.h"
#include "util/hashmap.h"

#define OPS_ERR(code, ...) loom_err((code), LOOM_ERRCLASS_OPS, __VA_ARGS__)

void compact_plan_dispose(compact_plan *plan)
{
	if (!plan)
		return;
	compact_plan_drop_files(plan);
	loom_free(plan->storage);
	loom_free(plan->bins);
	memset(plan, 0, sizeof(*plan));
}

int compact_plan_start(compact_plan *plan, partition_groups *pg, const delta_snapshot *snap, int64_t target,
                       const char *const *filters, size_t n_filters, size_t max_bins)
{
	memset(plan, 0, sizeof(*plan));
	plan->target = target;
	plan->read_version = snap->version;
	LOOM_TRY(partition_groups_build(pg, snap, filters, n_filters));
	plan->considered = pg->num_files;
	plan->partitions = pg->num_groups;
	plan->storage = loom_calloc(pg->num_files + 1, sizeof(*plan->storage));
	plan->bins = loom_calloc(max_bins + 1, sizeof(*plan->bins));
	if (!plan->storage || !plan->bins) {
		partition_groups_dispose(pg);
		compact_plan_dispose(plan);
		return OPS_ERR(LOOM_ENOMEM, "out of memory planning");
	}
	return 0;
}

int64_t optimize_target(int64_t requested, const loom_table_location *loc, const delta_snapshot *snap)
{
	delta_table_props props;
	if (requested > 0)
		return requested;
	if (loc && loc->target_file_size > 0)
		return loc->target_file_size;
	if (delta_props_parse(&snap->metadata, &props) == 0 && props.target_file_size > 0)
		return props.target_file_size;
	return COMPACT_DEFAULT_TARGET;
}

int optimize_gate(const delta_snapshot *snap, int op, const char *name)
{
	delta_row_tracking rt;
	LOOM_TRY(delta_protocol_check(&snap->protocol, (delta_op)op));
	/* row tracking enabled without its column names: refused before any
	 * file is written */
	if (delta_row_tracking_get(snap, &rt) < 0)
		return loom_err_wrap("%s", name);
	return 0;
}

/* ---- metrics: built once, reported twice ---------------------------------- */

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

typedef struct run_totals {
	size_summary added, removed;
	int64_t batches;
	int64_t version;
} run_totals;

#define M_COMMIT 1                    /* goes into commitInfo.operationMetrics */
#define M_RESULT 2                    /* goes into the loom_op_result */

typedef struct metric {
	char name[48];
	double value;
	int where;
} metric;

typedef struct metric_list {
	metric m[40];
	size_t n;
} metric_list;

static void put(metric_list *l, const char *name, double v, int where)
{
	if (l->n < sizeof(l->m) / sizeof(l->m[0])) {
		snprintf(l->m[l->n].name, sizeof(l->m[l->n].name), "%s", name);
		l->m[l->n].value = v;
		l->m[l->n++].where = where;
	}
}

static void put_summary(metric_list *l, const char *prefix, const size_summary *s)
{
	char n[48];
	snprintf(n, sizeof(n), "%s.%s", prefix, LOOM_SUMMARY_AVG);
	put(l, n, s->count ? (double)s->total / (double)s->count : 0.0, M_COMMIT | M_RESULT);
	snprintf(n, sizeof(n), "%s.%s", prefix, LOOM_SUMMARY_MAX);
	put(l, n, (double)s->max, M_COMMIT | M_RESULT);
	snprintf(n, sizeof(n), "%s.%s", prefix, LOOM_SUMMARY_MIN);
	put(l, n, (double)s->min, M_COMMIT | M_RESULT);
	snprintf(n, sizeof(n), "%s.%s", prefix, LOOM_SUMMARY_TOTAL_FILES);
	put(l, n, (double)s->count, M_COMMIT | M_RESULT);
	snprintf(n, sizeof(n), "%s.%s", prefix, LOOM_SUMMARY_TOTAL_SIZE);
	put(l, n, (double)s->total, M_COMMIT | M_RESULT);
}

static void build_metrics(metric_list *l, const compact_plan *plan, const optimize_job *job,
                          const run_totals *t)
{
	const int both = M_COMMIT | M_RESULT;
	memset(l, 0, sizeof(*l));
	put(l, LOOM_METRIC_NUM_FILES_ADDED, (double)t->added.count, both);
	put(l, LOOM_METRIC_NUM_FILES_REMOVED, (double)t->removed.count, both);
	put(l, LOOM_METRIC_NUM_ADDED_BYTES, (double)t->added.total, both);
	put(l, LOOM_METRIC_NUM_REMOVED_BYTES, (double)t->removed.total, both);
	put_summary(l, LOOM_METRIC_FILES_ADDED, &t->added);
	put_summary(l, LOOM_METRIC_FILES_REMOVED, &t->removed);
	put(l, LOOM_METRIC_PARTITIONS_OPTIMIZED, (double)plan->partitions_optimized, both);
	put(l, LOOM_METRIC_NUM_BATCHES, (double)t->batches, both);
	put(l, LOOM_METRIC_TOTAL_CONSIDERED_FILES, (double)plan->considered, both);
	put(l, LOOM_METRIC_TOTAL_FILES_SKIPPED, (double)(plan->considered - plan->files_in_bins), both);
	put(l, LOOM_METRIC_NUM_DVS_REMOVED, (double)plan->dvs_in_bins, both);
	put(l, LOOM_METRIC_PRESERVE_INSERTION_ORDER, 1, M_COMMIT);
	put(l, LOOM_METRIC_NUM_BINS, (double)plan->num_bins, M_RESULT);
	put(l, LOOM_METRIC_TARGET_SIZE, (double)plan->target, M_RESULT);
	put(l, LOOM_METRIC_DRY_RUN, job->common.dry_run, M_RESULT);
	put(l, LOOM_METRIC_VERSION, (double)t->version, M_RESULT);
}

static int metrics_to_result(loom_op_result *out, const metric_list *l, const optimize_job *job,
                             const run_totals *t)
{
	size_t i;
	out->kind = LOOM_RESULT_OPTIMIZE;
	out->dry_run = job->common.dry_run;
	out->num_files_added = t->added.count;
	out->num_files_removed = t->removed.count;
	for (i = 0; i < l->n; i++)
		if (l->m[i].where & M_RESULT)
			LOOM_TRY(loom_op_result_set_metric(out, l->m[i].name, (int64_t)l->m[i].value));
	return 0;
}

/* commitInfo.operationMetrics: "a.b" names nest as objects, as Spark's
 * filesAdded / filesRemoved summaries do. */
static json_t *metrics_to_json(const metric_list *l)
{
	json_t *o = json_object();
	size_t i;
	for (i = 0; i < l->n; i++) {
		const metric *m = &l->m[i];
		const char *dot = strchr(m->name, '.');
		json_t *v;
		if (!(m->where & M_COMMIT))
			continue;
		if (strcmp(m->name, LOOM_METRIC_PRESERVE_INSERTION_ORDER) == 0)
			v = json_boolean(m->value != 0);
		else if (dot && strcmp(dot + 1, LOOM_SUMMARY_AVG) == 0)
			v = json_real(m->value);
		else
			v = json_integer((json_int_t)m->value);
		if (dot) {
			char group[48];
			json_t *g;
			snprintf(group, sizeof(group), "%.*s", (int)(dot - m->name), m->name);
			if (!(g = json_object_get(o, group))) {
				g = json_object();
				json_object_set_new(o, group, g);
			}
			json_object_set_new(g, dot + 1, v);
		} else {
			json_object_set_new(o, m->name, v);
		}
	}
	return o;
}

/* ---- commit --------------------------------------------------------------- */

/* The adds of the units' outputs. */
typedef struct add_ctx {
	const pipe_unit *units;
	size_t nunits;
	const optimize_job *job;
	delta_row_tracking rt;
	delta_kv zcube_tags[2];
} add_ctx;

/* Every output's add. With row tracking the ids depend on the attempt:
 * fresh row ids above the higher of the snapshot's and the winners'
 * high-water marks, defaultRowCommitVersion = the version written (Spark
 * reassigns both when it retries after a winner), then the new mark. */
static int add_lines(void *ctx, int64_t version, int64_t winners_hwm, loom_buf *out)
{
	add_ctx *ac = ctx;
	int64_t hwm = ac->rt.high_water_mark > winners_hwm ? ac->rt.high_water_mark : winners_hwm;
	size_t i, j;
	for (i = 0; i < ac->nunits; i++) {
		/* a unit's files share one partition: its outputs take their values */
		const delta_file *like = ac->units[i].num_files ? ac->units[i].files[0] : NULL;
		if (!like)
			continue;
		for (j = 0; j < ac->units[i].result.num_files; j++) {
			const pipe_output *o = &ac->units[i].result.files[j];
			delta_add_spec a = {
				.path_raw = o->path_raw,
				.partition_values = like->partition_values,
				.num_partition_values = like->num_partition_values,
				.size = o->size,
				.modification_time = o->modification_time,
				.stats = o->stats,
				.tag_key = ac->job->tag_key,
				.tag_value = ac->job->tag_value,
			};
			if (ac->job->clustering_provider) {
				delta_kv *zt = ac->zcube_tags;
				zt[0].key = "ZCUBE_ID";
				zt[0].value = ac->job->zcube_ids ? ac->job->zcube_ids[i] : NULL;
				zt[1].key = "ZCUBE_ZORDER_BY";
				zt[1].value = ac->job->cluster_by;
				a.tags = zt;
				a.num_tags = zt[0].value ? 2 : 0;
				a.clustering_provider = ac->job->clustering_provider;
			}
			if (ac->rt.assign) {
				/* numRecords is the physical row count: rewrites write no DVs */
				a.has_row_tracking = 1;
				a.base_row_id = hwm + 1;
				a.default_row_commit_version = version;
				hwm += o->num_records;
			}
			LOOM_TRY(delta_add_line(out, &a));
		}
	}
	if (ac->rt.assign && hwm > ac->rt.high_water_mark)
		LOOM_TRY(delta_row_tracking_domain_line(out, hwm));
	return 0;
}

static int commit(loom_store *store, const delta_snapshot *snap, const compact_plan *plan,
                  const pipe_unit *units, size_t nunits, const optimize_job *job, const metric_list *ml,
                  int64_t *version)
{
	add_ctx ac;
	json_t *tags = NULL;
	loom_buf actions = LOOM_BUF_INIT;
	loom_map removed;
	json_t *params = json_object(), *pred = json_array();
	delta_commit c;
	delta_table_props props;
	int64_t now = loom_clock_wall_ms(job->common.clock);
	size_t i, j;
	int rc = 0;

	memset(&removed, 0, sizeof(removed));
	for (i = 0; i < plan->num_bins && rc == 0; i++) {
		const compact_bin *b = &plan->bins[i];
		for (j = 0; j < b->num_files && rc == 0; j++) {
			rc = delta_remove_line(&actions, b->files[j], now, 0);
			if (rc == 0)
				rc = loom_map_puts(&removed, b->files[j]->path, (void *)b->files[j]);
		}
	}
	memset(&ac, 0, sizeof(ac));
	ac.units = units;
	ac.nunits = nunits;
	ac.job = job;
	if (rc == 0)
		rc = delta_row_tracking_get(snap, &ac.rt);
	/* without row tracking the adds are the same in every attempt */
	if (rc == 0 && !ac.rt.assign)
		rc = add_lines(&ac, -1, -1, &actions);
	if (rc < 0)
		goto done;
	{
		char ts[32];
		snprintf(ts, sizeof(ts), "%lld", (long long)plan->target);
		if (!job->operation)   /* Spark's REORG records no target size */
			json_object_set_new(params, "targetSize", json_string(ts));
		for (i = 0; i < job->n_predicates; i++)
			json_array_append_new(pred, json_string(job->predicates[i]));
		json_object_set_new(params, "predicate", pred);
		pred = NULL;
		if (job->param_key)
			json_object_set_new(params, job->param_key, json_string(job->param_value));
		if (job->cluster_by) {
			/* as Spark's DeltaOperations.Optimize on a clustered table */
			json_object_set_new(params, "zOrderBy", json_string("[]"));
			json_object_set_new(params, "clusterBy", json_string(job->cluster_by));
			json_object_set_new(params, "auto", json_string("false"));
			json_object_set_new(params, "isFull", json_string("false"));
		}
	}
	if ((rc = delta_props_parse(&snap->metadata, &props)) < 0)
		goto done;
	delta_commit_init(&c, DELTA_COMMIT_REARRANGE, plan->read_version,
	                  job->operation ? job->operation : "OPTIMIZE");
	c.operation_parameters = params;
	c.operation_metrics = metrics_to_json(ml);
	c.in_commit_timestamps = props.enable_in_commit_timestamps;
	c.isolation_level = "SnapshotIsolation";
	c.actions = actions.ptr;
	c.actions_len = actions.size;
	c.removed_keys = &removed;
	if (ac.rt.assign) {
		c.attempt_actions = add_lines;
		c.attempt_ctx = &ac;
	}
	if (ac.rt.preserve) {
		/* readers may trust the materialized ids this commit kept (Spark
		 * RowTracking.addPreservedRowTrackingTagIfNotSet) */
		tags = json_object();
		json_object_set_new(tags, "delta.rowTracking.preserved", json_string("true"));
		c.tags = tags;
	}
	c.clock = job->common.clock;
	c.secrets = job->common.secrets;
	if (job->common.loc) {
		c.user_metadata = job->common.loc->commit;
		c.n_user_metadata = job->common.loc->n_commit;
	}
	if (job->common.before_commit)
		job->common.before_commit(job->common.hook_ctx);
	rc = delta_commit_write(store, &c, version);
	json_decref(c.operation_metrics);
done:
	json_decref(tags);
	json_decref(params);
	json_decref(pred);
	loom_map_dispose(&removed);
	loom_buf_dispose(&actions);
	return rc;
}

static void delete_outputs(loom_store *store, const pipe_unit *units, size_t n)
{
	size_t i, j;
	loom_error saved;
	loom_err_copy(&saved);
	for (i = 0; i < n; i++)
		for (j = 0; j < units[i].result.num_files; j++)
			store->remove(store, units[i].result.files[j].key);
	loom_err(saved.code, saved.klass, "%s", saved.message);
}

/* The removed files' sizes: from the bins' files, or, where a plan holds
 * positions only (a dry run over the compact file index), from `snap`. */
static int removed_totals(const delta_snapshot *snap, const compact_plan *plan, run_totals *t)
{
	size_t i, j;
	for (i = 0; i < plan->num_bins; i++)
		for (j = 0; j < plan->bins[i].num_files; j++) {
			const compact_bin *b = &plan->bins[i];
			delta_file_brief brief;
			if (b->files)
				brief.size = b->files[j]->size;
			else
				LOOM_TRY(delta_snapshot_live_brief(snap, b->pos[j], &brief));
			summary_add(&t->removed, brief.size);
		}
	return 0;
}

int optimize_result_plan_only(loom_op_result *out, const delta_snapshot *snap, const compact_plan *plan,
                              const optimize_job *job)
{
	run_totals t;
	metric_list ml;
	memset(&t, 0, sizeof(t));
	t.version = -1;
	if (job->common.dry_run)
		LOOM_TRY(removed_totals(snap, plan, &t));
	build_metrics(&ml, plan, job, &t);
	return metrics_to_result(out, &ml, job, &t);
}

int optimize_commit_units(loom_op_result *out, loom_store *store, const delta_snapshot *snap,
                          const compact_plan *plan, const pipe_unit *units, size_t nunits,
                          const optimize_job *job)
{
	run_totals t;
	metric_list ml;
	size_t i, j;
	int rc;
	memset(&t, 0, sizeof(t));
	t.version = -1;
	if (loom_cancel_requested(job->common.cancel)) {
		rc = OPS_ERR(LOOM_ECANCELLED, "%s cancelled before its commit", job->name);
		goto cleanup;
	}
	if ((rc = removed_totals(snap, plan, &t)) < 0)
		goto cleanup;
	for (i = 0; i < nunits; i++) {
		t.batches += units[i].result.batches;
		for (j = 0; j < units[i].result.num_files; j++)
			summary_add(&t.added, units[i].result.files[j].size);
	}
	build_metrics(&ml, plan, job, &t);
	if ((rc = commit(store, snap, plan, units, nunits, job, &ml, &t.version)) < 0)
		goto cleanup;
	build_metrics(&ml, plan, job, &t); /* with the version written */
	/* log temp files an earlier, killed run left (delta/log_temps.h) */
	delta_log_sweep_temps(store, job->common.clock);
	return metrics_to_result(out, &ml, job, &t);
cleanup:
	/* a commit whose outcome is unknown may hold the outputs: keep them
	 * (a later vacuum takes them if it did not land) */
	if (t.version != DELTA_COMMIT_UNKNOWN)
		delete_outputs(store, units, nunits);
	return rc;
}

/* ---- the rows a rewrite must keep --------------------------------------------- */

/* A unit wrote the rows it read less those its deletion vectors drop, and
 * read what the log says its files hold (where the log says): a rewrite
 * that lost rows anywhere - a short read taken for the end of a file, a
 * stage that dropped a batch - fails here, before its commit, instead of
 * taking rows out of the table. */
static int check_unit_rows(const pipe_unit *u, size_t index, const char *name)
{
	int64_t wrote = 0, logged = 0;
	int all_logged = 1;
	size_t j;
	for (j = 0; j < u->result.num_files; j++)
		wrote += u->result.files[j].num_records;
	if (wrote != u->result.rows_in - u->result.rows_deleted)
		return OPS_ERR(LOOM_ECORRUPT,
		               "%s: unit %zu read %lld rows (%lld of them deleted by deletion vectors) "
		               "but wrote %lld; nothing was committed", name, index,
		               (long long)u->result.rows_in, (long long)u->result.rows_deleted,
		               (long long)wrote);
	for (j = 0; j < u->num_files; j++) {
		if (u->files[j]->num_records < 0)
			all_logged = 0;
		else
			logged += u->files[j]->num_records;
	}
	if (all_logged && u->num_files > 0 && logged != u->result.rows_in)
		return OPS_ERR(LOOM_ECORRUPT,
		               "%s: unit %zu's %zu files hold %lld rows by the log's statistics, but %lld "
		               "were read from them; nothing was committed", name, index, u->num_files,
		               (long long)logged, (long long)u->result.rows_in);
	return 0;
}

static int check_rows(const pipe_unit *units, size_t n, const char *name)
{
	size_t i;
	for (i = 0; i < n; i++)
		LOOM_TRY(check_unit_rows(&units[i], i, name));
	return 0;
}

/* ---- partial progress (job->common.commit_every) ---------------------------------- */

static void summary_merge(size_summary *dst, const size_summary *src)
{
	if (src->count == 0)
		return;
	if (dst->count == 0 || src->min < dst->min)
		dst->min = src->min;
	if (dst->count == 0 || src->max > dst->max)
		dst->max = src->max;
	dst->count += src->count;
	dst->total += src->total;
}

/* Finished units waiting for their commit, and what the commits made so
 * far hold. Workers report units through on_unit_done; one commit at a
 * time (the lock), while the other workers go on rewriting. */
typedef struct partial_run {
	loom_store *store;
	const delta_snapshot *snap;
	const compact_plan *plan;
	pipe_unit *units;
	const optimize_job *job;
	pthread_mutex_t lock;
	size_t *pending;              /* unit indexes, in order of completion */
	size_t npending;
	int64_t pending_bytes;
	unsigned char *settled;       /* per unit: committed, or its outputs deleted */
	run_totals totals;            /* over the commits made */
	size_t commits;
	int failed;                   /* a commit failed: none after it */
	loom_error fail_err;
	pipe_progress_fn progress;
	void *progress_ctx;
} partial_run;

/* One commit of the pending units: a plan of their files alone, removes
 * and adds as a whole run's, conflict-checked from the run's read version
 * (the run's earlier commits removed other files: no conflict). */
static int commit_pending(partial_run *pr)
{
	const size_t n = pr->npending;
	const compact_plan *plan = pr->plan;
	optimize_job job = *pr->job;
	compact_plan sub;
	compact_bin *bins = loom_calloc(n + 1, sizeof(*bins));
	pipe_unit *us = loom_calloc(n + 1, sizeof(*us));
	char **ids = job.zcube_ids ? loom_calloc(n + 1, sizeof(*ids)) : NULL;
	run_totals t;
	metric_list ml;
	size_t k, j;
	int rc;

	if (!bins || !us || (job.zcube_ids && !ids)) {
		rc = OPS_ERR(LOOM_ENOMEM, "out of memory committing finished units");
		goto done;
	}
	sub = (compact_plan){
		.target = plan->target,
		.read_version = plan->read_version,
		.considered = plan->considered,
		.partitions = plan->partitions,
	};
	for (k = 0; k < n; k++) {
		const pipe_unit *u = &pr->units[pr->pending[k]];
		us[k] = *u; /* a view: the results stay the unit's */
		bins[k].files = (const delta_file **)u->files;
		bins[k].num_files = u->num_files;
		bins[k].bytes = u->bytes;
		bins[k].partition = k;
		sub.files_in_bins += u->num_files;
		sub.bytes_in_bins += u->bytes;
		for (j = 0; j < u->num_files; j++)
			sub.dvs_in_bins += u->files[j]->dv.storage_type != 0;
		if (ids)
			ids[k] = job.zcube_ids[pr->pending[k]];
	}
	sub.bins = bins;
	sub.num_bins = n;
	sub.partitions_optimized = n;
	job.zcube_ids = ids;
	memset(&t, 0, sizeof(t));
	t.version = -1;
	if ((rc = removed_totals(NULL, &sub, &t)) < 0)
		goto done;
	for (k = 0; k < n; k++) {
		t.batches += us[k].result.batches;
		for (j = 0; j < us[k].result.num_files; j++)
			summary_add(&t.added, us[k].result.files[j].size);
	}
	build_metrics(&ml, &sub, &job, &t);
	rc = check_rows(us, n, job.name);
	if (rc == 0)
		rc = commit(pr->store, pr->snap, &sub, us, n, &job, &ml, &t.version);
	if (rc < 0 && t.version != DELTA_COMMIT_UNKNOWN)
		delete_outputs(pr->store, us, n);
	if (rc == 0) {
		summary_merge(&pr->totals.added, &t.added);
		summary_merge(&pr->totals.removed, &t.removed);
		pr->totals.batches += t.batches;
		pr->totals.version = t.version;
		pr->commits++;
	}
	/* committed, or deleted, or (outcome unknown) left for vacuum */
	for (k = 0; k < n; k++)
		pr->settled[pr->pending[k]] = 1;
	pr->npending = 0;
	pr->pending_bytes = 0;
done:
	loom_free(ids);
	loom_free(us);
	loom_free(bins);
	return rc;
}

static void on_unit_done(void *ctx, const pipe_unit *u, size_t done, size_t total)
{
	partial_run *pr = ctx;
	pthread_mutex_lock(&pr->lock);
	if (!pr->failed) {
		pr->pending[pr->npending++] = (size_t)(u - pr->units);
		pr->pending_bytes += u->bytes;
		if (pr->pending_bytes >= pr->job->common.commit_every && commit_pending(pr) < 0) {
			pr->failed = 1;
			loom_err_copy(&pr->fail_err);
		}
	}
	pthread_mutex_unlock(&pr->lock);
	if (pr->progress)
		pr->progress(pr->progress_ctx, u, done, total);
}

/* The result of a run of partial commits: the commits' totals, with the
 * whole plan's counts; numCommits and unitsLeft say how far it got. */
static int partial_result(loom_op_result *out, partial_run *pr, size_t left)
{
	metric_list ml;
	build_metrics(&ml, pr->plan, pr->job, &pr->totals);
	LOOM_TRY(metrics_to_result(out, &ml, pr->job, &pr->totals));
	LOOM_TRY(loom_op_result_set_metric(out, LOOM_METRIC_NUM_COMMITS, (int64_t)pr->commits));
	return loom_op_result_set_metric(out, LOOM_METRIC_UNITS_LEFT, (int64_t)left);
}

static int execute_partial(loom_op_result *out, loom_store *store, const delta_snapshot *snap,
                           const compact_plan *plan, pipe_exec *x, pipe_unit *units, size_t nunits,
                           const optimize_job *job, pipe_progress_fn progress, void *progress_ctx)
{
	partial_run pr = {
		.store = store,
		.snap = snap,
		.plan = plan,
		.units = units,
		.job = job,
		.totals.version = -1,
		.progress = progress,
		.progress_ctx = progress_ctx,
		.pending = loom_calloc(nunits + 1, sizeof(size_t)),
		.settled = loom_calloc(nunits + 1, 1),
	};
	loom_error run_err;
	size_t i, left = 0;
	int rc;

	if (!pr.pending || !pr.settled || pthread_mutex_init(&pr.lock, NULL) != 0) {
		loom_free(pr.pending);
		loom_free(pr.settled);
		return OPS_ERR(LOOM_ENOMEM, "out of memory");
	}
	rc = pipe_exec_run(x, units, nunits, on_unit_done, &pr);
	if (rc < 0)
		loom_err_copy(&run_err);
	/* the units finished before a failure or a stop are kept too */
	if (!pr.failed && pr.npending > 0 && commit_pending(&pr) < 0) {
		pr.failed = 1;
		loom_err_copy(&pr.fail_err);
	}
	for (i = 0; i < nunits; i++)
		if (!pr.settled[i]) {
			delete_outputs(store, &units[i], 1);
			left++;
		}
	if (pr.commits > 0)
		delta_log_sweep_temps(store, job->common.clock);
	if (pr.failed)
		rc = loom_err_raise(&pr.fail_err);
	else if (rc == LOOM_ECANCELLED && pr.commits > 0)
		rc = 0; /* stopped early, its finished work kept: the result says how far */
	else if (rc < 0)
		rc = loom_err_raise(&run_err);
	if (rc == 0)
		rc = partial_result(out, &pr, left);
	else if (pr.commits > 0)
		loom_err_wrap("%s kept %zu commit%s of finished units (up to version %lld)", job->name,
		              pr.commits, pr.commits == 1 ? "" : "s", (long long)pr.totals.version);
	pthread_mutex_destroy(&pr.lock);
	loom_free(pr.pending);
	loom_free(pr.settled);
	return rc;
}

int optimize_execute_commit(loom_op_result *out, loom_store *store, const delta_snapshot *snap,
                            const compact_plan *plan, pipe_exec *x, pipe_unit *units, size_t nunits,
                            const optimize_job *job, pipe_progress_fn progress, void *progress_ctx)
{
	int rc;
	if (job->common.commit_every > 0)
		return execute_partial(out, store, snap, plan, x, units, nunits, job, progress, progress_ctx);
	rc = pipe_exec_run(x, units, nunits, progress, progress_ctx);
	if (rc == 0)
		rc = check_rows(units, nunits, job->name);
	if (rc < 0) {
		delete_outputs(store, units, nunits);
		return rc;
	}
	return optimize_commit_units(out, store, snap, plan, units, nunits, job);
}
