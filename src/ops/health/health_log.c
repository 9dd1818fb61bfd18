/* ops/health/health_log.c - what the log says beyond the snapshot: commits
 * and JSON bytes since the checkpoint (the listing's sizes), the time of
 * the last VACUUM and the columns of the last Z-order (commitInfo of the
 * commits after the checkpoint, newest first; commitInfo is not kept in
 * checkpoints), and the log files cleanup-logs would delete (its own dry
 * run, so health and the operation can never disagree). */
#include <jansson.h>
#include <string.h>

#include "delta/log_listing.h"
#include "loom/checkpoint.h"
#include "loom/metrics.h"
#include "ops/health/health_int.h"
#include "store/client.h"
#include "util/alloc.h"
#include "util/buf.h"
#include "util/error.h"

/* The commitInfo object of a commit's text, or NULL. */
static json_t *commit_info_of(const char *text, size_t len)
{
	const char *p = text, *end = text + len;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		if (memmem(p, n, "\"commitInfo\"", 12)) {
			json_t *line = json_loadb(p, n, 0, NULL);
			json_t *ci = line ? json_object_get(line, "commitInfo") : NULL;
			if (ci) {
				json_incref(ci);
				json_decref(line);
				return ci;
			}
			json_decref(line);
		}
		p += n + 1;
	}
	return NULL;
}

/* zOrderBy: a JSON list in a string ("[\"a\",\"b\"]"), as Spark and loom
 * write it. 1 when `out` was filled. */
static int take_zorder(json_t *ci, health_log_scan *out)
{
	json_t *params = json_object_get(ci, "operationParameters");
	json_t *z = params ? json_object_get(params, "zOrderBy") : NULL;
	json_t *list = NULL;
	size_t i, n;
	if (json_is_string(z))
		list = json_loads(json_string_value(z), 0, NULL);
	else if (json_is_array(z))
		list = json_incref(z);
	if (!json_is_array(list) || (n = json_array_size(list)) == 0) {
		json_decref(list);
		return 0;
	}
	out->zorder_columns = loom_calloc(n, sizeof(char *));
	for (i = 0; out->zorder_columns && i < n; i++) {
		const char *c = json_string_value(json_array_get(list, i));
		if (!c || !(out->zorder_columns[i] = loom_strdup(c)))
			break;
		out->n_zorder_columns++;
	}
	json_decref(list);
	if (out->n_zorder_columns != n) {
		health_log_scan_dispose(out);
		return 0;
	}
	return 1;
}

int health_log_scan_run(loom_store *store, const delta_snapshot *snap, loom_health_table *t,
                        health_log_scan *out)
{
	delta_log_listing l;
	loom_buf raw = LOOM_BUF_INIT;
	size_t i;
	int rc = 0, have_z = 0, have_v = 0;

	memset(out, 0, sizeof(*out));
	out->last_vacuum_ms = -1;
	LOOM_TRY(delta_log_list_from(store, snap->checkpoint_version > 0 ? snap->checkpoint_version : 0,
	                             &l));
	for (i = 0; i < l.files.len; i++) {
		const delta_log_file *f = &LOOM_VEC_AT(&l.files, delta_log_file, i);
		if (f->name.kind == DELTA_LOG_COMMIT && f->name.version > snap->checkpoint_version &&
		    f->name.version <= snap->version) {
			t->commits_since_checkpoint++;
			t->json_bytes_since_checkpoint += (int64_t)f->size;
		}
	}
	for (i = l.files.len; i-- > 0 && !(have_z && have_v) && rc == 0;) {
		const delta_log_file *f = &LOOM_VEC_AT(&l.files, delta_log_file, i);
		json_t *ci;
		const char *op;
		if (f->name.kind != DELTA_LOG_COMMIT || f->name.version <= snap->checkpoint_version ||
		    f->name.version > snap->version)
			continue;
		loom_buf_clear(&raw);
		if ((rc = loom_store_read_all(store, f->key, &raw)) < 0)
			break;
		if (!(ci = commit_info_of(raw.ptr ? raw.ptr : "", raw.size)))
			continue;
		op = json_string_value(json_object_get(ci, "operation"));
		if (op && !have_v && (strcmp(op, "VACUUM END") == 0 || strcmp(op, "VACUUM START") == 0)) {
			json_t *ts = json_object_get(ci, "inCommitTimestamp");
			if (!json_is_integer(ts))
				ts = json_object_get(ci, "timestamp");
			out->last_vacuum_ms = json_is_integer(ts) ? json_integer_value(ts) : f->mtime_ms;
			have_v = 1;
		}
		if (op && !have_z && strcmp(op, "OPTIMIZE") == 0)
			have_z = take_zorder(ci, out);
		json_decref(ci);
	}
	loom_buf_dispose(&raw);
	delta_log_listing_dispose(&l);
	return rc;
}

void health_log_scan_dispose(health_log_scan *s)
{
	size_t i;
	for (i = 0; i < s->n_zorder_columns; i++)
		loom_free(s->zorder_columns[i]);
	loom_free(s->zorder_columns);
	s->zorder_columns = NULL;
	s->n_zorder_columns = 0;
}

int health_expired_logs(loom_health_table *t, const char *uri, const loom_table_location *loc)
{
	loom_cleanup_logs_opts o = LOOM_CLEANUP_LOGS_OPTS_INIT;
	loom_op_result r = LOOM_OP_RESULT_INIT;
	int rc;
	o.dry_run = 1;
	rc = loom_cleanup_logs(&r, uri, loc, &o, NULL);
	if (rc == LOOM_EUNSUPPORTED) {
		/* delta.enableExpiredLogCleanup=false or a protocol loom may not
		 * clean: nothing to recommend */
		loom_error_clear();
		t->log_cleanup_allowed = 0;
		loom_op_result_free(&r);
		return 0;
	}
	if (rc == 0) {
		t->log_cleanup_allowed = 1;
		t->expired_log_files = loom_op_result_metric(&r, LOOM_METRIC_NUM_FILES_TO_DELETE, 0);
		t->expired_log_bytes = loom_op_result_metric(&r, LOOM_METRIC_SIZE_OF_DATA_TO_DELETE, 0);
	}
	loom_op_result_free(&r);
	return rc;
}
