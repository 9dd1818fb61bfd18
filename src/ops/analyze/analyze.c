/* ops/analyze/analyze.c - ANALYZE TABLE ... COMPUTE DELTA STATISTICS: which
 * live files get new statistics, and the one commit that re-states them
 * (analyze.h). Metadata only: no data file is written or deleted. */
#include <stdlib.h>
#include <string.h>

#include "delta/action_write.h"
#include "delta/commit_write.h"
#include "delta/props.h"
#include "delta/protocol.h"
#include "delta/row_tracking.h"
#include "loom/metrics.h"
#include "ops/analyze/analyze.h"
#include "ops/location.h"
#include "ops/opts.h"
#include "ops/pipeline/pipeline.h"
#include "util/alloc.h"
#include "util/error.h"
#include "util/hashmap.h"

#define OPS_ERR(code, ...) loom_err((code), LOOM_ERRCLASS_OPS, __VA_ARGS__)

typedef struct analyze_params {
	const loom_analyze_opts *opts;
	const loom_table_location *loc;
	const loom_cancel *cancel;
	const loom_secrets *secrets;
} analyze_params;

/* The files given new stats, in snapshot (path) order. */
typedef struct analyzed {
	const delta_file **files;
	char **stats;                /* NULL in a dry run */
	size_t n;
	size_t considered, scanned;
} analyzed;

static void analyzed_dispose(analyzed *a)
{
	size_t i;
	for (i = 0; a->stats && i < a->n; i++)
		loom_free(a->stats[i]);
	loom_free(a->stats);
	loom_free(a->files);
}

/* One file: does it need stats, and (unless dry) what are they. */
static int one_file(analyzed *a, loom_store *store, const delta_snapshot *snap, const delta_file *f,
                    const delta_stats_opts *so, analyze_columns *cols, const analyze_params *p)
{
	analyze_file af;
	int rc, covered = 0, scanned = 0;
	char *stats = NULL;
	rc = analyze_file_open(&af, store, snap, f);
	if (rc == 0 && !p->opts->all)
		rc = covered = analyze_file_covered(&af, so, cols);
	if (rc >= 0 && !covered && !p->opts->dry_run)
		rc = analyze_file_stats(&af, so, &stats, &scanned);
	analyze_file_close(&af);
	if (rc < 0)
		return loom_err_wrap("analyze %s", f->path);
	if (covered)
		return 0;
	a->files[a->n] = f;
	a->stats[a->n++] = stats;
	a->scanned += (size_t)scanned;
	return 0;
}

static int commit(loom_store *store, const delta_snapshot *snap, const analyzed *a, const analyze_params *p,
                  int64_t *version)
{
	loom_buf actions = LOOM_BUF_INIT;
	loom_map removed;
	delta_table_props props;
	delta_commit c;
	json_t *params = json_object(), *metrics = json_object();
	char num[32];
	size_t i;
	int rc = 0;

	memset(&removed, 0, sizeof(removed));
	for (i = 0; i < a->n && rc == 0; i++) {
		rc = delta_restate_line(&actions, a->files[i], a->stats[i]);
		/* a concurrent commit that removed the file (a DELETE adding a
		 * DV, an OPTIMIZE) conflicts: re-adding it would resurrect it */
		if (rc == 0)
			rc = loom_map_puts(&removed, a->files[i]->path, (void *)a->files[i]);
	}
	if (rc == 0)
		rc = delta_props_parse(&snap->metadata, &props);
	if (rc < 0)
		goto done;
	snprintf(num, sizeof(num), "%zu", a->n);
	json_object_set_new(metrics, LOOM_METRIC_NUM_FILES_ANALYZED, json_string(num));
	json_object_set_new(params, "all", json_string(p->opts->all ? "true" : "false"));
	delta_commit_init(&c, DELTA_COMMIT_REARRANGE, snap->version, "COMPUTE STATS");
	c.operation_parameters = params;
	c.operation_metrics = metrics;
	c.in_commit_timestamps = props.enable_in_commit_timestamps;
	c.isolation_level = "SnapshotIsolation";
	c.actions = actions.ptr;
	c.actions_len = actions.size;
	c.removed_keys = &removed;
	c.secrets = p->secrets;
	if (p->loc) {
		c.user_metadata = p->loc->commit;
		c.n_user_metadata = p->loc->n_commit;
	}
	rc = delta_commit_write(store, &c, version);
done:
	json_decref(params);
	json_decref(metrics);
	loom_map_dispose(&removed);
	loom_buf_dispose(&actions);
	return rc;
}

static int fill_result(loom_op_result *out, const analyzed *a, int dry_run, int64_t version)
{
	size_t i;
	for (i = 0; i < a->n; i++)
		LOOM_TRY(loom_op_result_add_deleted(out, a->files[i]->path_raw));
	out->kind = LOOM_RESULT_OPTIMIZE; /* add_deleted marks a vacuum */
	out->dry_run = dry_run;
	LOOM_TRY(loom_op_result_set_metric(out, LOOM_METRIC_NUM_FILES_ANALYZED, (int64_t)a->n));
	LOOM_TRY(loom_op_result_set_metric(out, LOOM_METRIC_TOTAL_CONSIDERED_FILES, (int64_t)a->considered));
	LOOM_TRY(loom_op_result_set_metric(out, LOOM_METRIC_NUM_FILES_SCANNED, (int64_t)a->scanned));
	LOOM_TRY(loom_op_result_set_metric(out, LOOM_METRIC_DRY_RUN, dry_run));
	return loom_op_result_set_metric(out, LOOM_METRIC_VERSION, version);
}

static int analyze_run(loom_op_result *out, loom_store *store, const analyze_params *p)
{
	delta_snapshot *snap = NULL;
	pipe_settings set;
	analyze_columns cols;
	delta_row_tracking rt;
	analyzed a;
	int64_t version = -1;
	size_t i;
	int rc;

	memset(&a, 0, sizeof(a));
	memset(&cols, 0, sizeof(cols));
	LOOM_TRY(delta_snapshot_load(&snap, store, -1, NULL));
	/* the same write gate as compaction: loom re-states adds as it
	 * writes them there (row tracking fields, DVs) */
	if ((rc = delta_protocol_check(&snap->protocol, DELTA_OP_COMPACT)) < 0 ||
	    (rc = delta_row_tracking_get(snap, &rt)) < 0)
		goto done;
	/* the table's stats options, as its writer uses them */
	if ((rc = pipe_settings_init(&set, store, snap, p->loc)) < 0)
		goto done;
	if ((rc = analyze_columns_resolve(&cols, snap, p->opts->columns, p->opts->n_columns)) < 0)
		goto done;
	a.files = loom_calloc(snap->num_files + 1, sizeof(*a.files));
	a.stats = loom_calloc(snap->num_files + 1, sizeof(*a.stats));
	if (!a.files || !a.stats) {
		rc = OPS_ERR(LOOM_ENOMEM, "out of memory");
		goto done;
	}
	for (i = 0; i < snap->num_files && rc == 0; i++) {
		const char *key;
		if (loom_cancel_requested(p->cancel)) {
			rc = OPS_ERR(LOOM_ECANCELLED, "analyze cancelled");
			break;
		}
		/* files outside the table root are not loom's to describe */
		if (loom_store_key_of(&key, store, snap->files[i]->path) < 0)
			continue;
		a.considered++;
		rc = one_file(&a, store, snap, snap->files[i], &set.sopts, &cols, p);
	}
	if (rc == 0 && a.n > 0 && !p->opts->dry_run)
		rc = commit(store, snap, &a, p, &version);
	if (rc == 0)
		rc = fill_result(out, &a, p->opts->dry_run, version);
done:
	analyzed_dispose(&a);
	analyze_columns_dispose(&cols);
	delta_snapshot_free(snap);
	return rc;
}

/* analyze_run's params over the options read (on zeroed params). */
static void params_fill(analyze_params *p, const loom_analyze_opts *o, const loom_table_location *loc,
                        const loom_cancel *cancel)
{
	p->opts = o;
	p->loc = loc;
	p->cancel = cancel;
}

OPS_TABLE_ENTRY(analyze, "analyze", analyze_params, params_fill, analyze_run, secrets)
