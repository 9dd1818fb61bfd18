/* plan/report_metrics.c - a run record as Prometheus text (format 0.0.4, what
 * node_exporter's textfile collector reads) or OpenMetrics 1.0 text: run,
 * table and operation figures of the report, the store counters, the health
 * gauges. docs/observability.md lists every family. */
#include <stdio.h>
#include <string.h>

#include "loom/config.h"
#include "plan/observe_int.h"
#include "plan/plan_int.h"
#include "util/alloc.h"
#include "util/buf.h"
#include "util/error.h"

enum { COUNTER, GAUGE };

typedef struct family {
	const char *name;
	int type;
	const char *help;
} family;

/* Families in output order; samples are gathered per family. */
enum {
	F_RUN_DURATION, F_RUN_TIMESTAMP, F_RUN_TABLES,
	F_TABLE_DURATION, F_LAST_SUCCESS, F_ERRORS,
	F_OP_DURATION, F_FILES_READ, F_FILES_WRITTEN, F_FILES_REMOVED,
	F_BYTES_READ, F_BYTES_WRITTEN, F_BYTES_REMOVED, F_ROWS_REMOVED, F_OP_METRIC,
	F_STORE_REQUESTS, F_STORE_RETRIES, F_STORE_READ, F_STORE_WRITTEN,
	F_H_VERSION, F_H_FILES, F_H_BYTES, F_H_ROWS, F_H_SMALL_FILES, F_H_SMALL_BYTES,
	F_H_DELETED_RATIO, F_H_COMMITS, F_H_DEPTH, F_H_TOMBSTONES, F_H_RECOMMENDED,
	F__COUNT
};

static const family families[F__COUNT] = {
	{ LOOM_PROM_RUN_DURATION, GAUGE, "Wall time of the maintenance run." },
	{ LOOM_PROM_RUN_TIMESTAMP, GAUGE, "When the maintenance run ended, seconds since the Unix epoch." },
	{ LOOM_PROM_RUN_TABLES, GAUGE, "Tables of the run by status (ok, failed, skipped)." },
	{ LOOM_PROM_TABLE_DURATION, GAUGE, "Wall time spent on the table in the run." },
	{ LOOM_PROM_TABLE_LAST_SUCCESS, GAUGE, "When the table was last maintained without error, seconds since the Unix epoch." },
	{ LOOM_PROM_ERRORS, COUNTER, "Errors of the run by table, class and code." },
	{ LOOM_PROM_OP_DURATION, GAUGE, "Wall time of the operation." },
	{ LOOM_PROM_OP_FILES_READ, COUNTER, "Data files the operation read to rewrite them." },
	{ LOOM_PROM_OP_FILES_WRITTEN, COUNTER, "Data files the operation wrote." },
	{ LOOM_PROM_OP_FILES_REMOVED, COUNTER, "Data files the operation removed from the table or deleted from storage." },
	{ LOOM_PROM_OP_BYTES_READ, COUNTER, "Bytes of the data files the operation read to rewrite them." },
	{ LOOM_PROM_OP_BYTES_WRITTEN, COUNTER, "Bytes of the data files the operation wrote." },
	{ LOOM_PROM_OP_BYTES_REMOVED, COUNTER, "Bytes of the data files the operation removed or deleted." },
	{ LOOM_PROM_OP_ROWS_REMOVED, COUNTER, "Deleted rows the operation dropped from the data files." },
	{ LOOM_PROM_OP_METRIC, GAUGE, "Every named metric of the operation's result, as in the JSON report." },
	{ LOOM_PROM_STORE_REQUESTS, COUNTER, "Object-store requests of the process by kind, retries included." },
	{ LOOM_PROM_STORE_RETRIES, COUNTER, "Object-store requests that repeated a failed one." },
	{ LOOM_PROM_STORE_BYTES_READ, COUNTER, "Object bytes received from the stores." },
	{ LOOM_PROM_STORE_BYTES_WRITTEN, COUNTER, "Object bytes sent to the stores." },
	{ LOOM_PROM_HEALTH_VERSION, GAUGE, "The table version the health figures describe." },
	{ LOOM_PROM_HEALTH_FILES, GAUGE, "Data files in the table." },
	{ LOOM_PROM_HEALTH_BYTES, GAUGE, "Bytes of the table's data files." },
	{ LOOM_PROM_HEALTH_ROWS, GAUGE, "Rows of the table (stats numRecords)." },
	{ LOOM_PROM_HEALTH_SMALL_FILES, GAUGE, "Data files under half the target size." },
	{ LOOM_PROM_HEALTH_SMALL_BYTES, GAUGE, "Bytes of the data files under half the target size." },
	{ LOOM_PROM_HEALTH_DELETED_ROW_RATIO, GAUGE, "Rows deleted by deletion vectors over all rows." },
	{ LOOM_PROM_HEALTH_COMMITS_SINCE_CHECKPOINT, GAUGE, "Commits after the last checkpoint." },
	{ LOOM_PROM_HEALTH_CLUSTERING_DEPTH, GAUGE, "Average overlap depth of a clustering column (1 = clustered)." },
	{ LOOM_PROM_HEALTH_TOMBSTONES_EXPIRED, GAUGE, "Removed files past the retention that VACUUM may delete." },
	{ LOOM_PROM_HEALTH_RECOMMENDED, GAUGE, "1 when the health policy recommends the operation." },
};

typedef struct out {
	loom_buf fam[F__COUNT];
	int rc;
} out;

/* Label values: backslash, double quote and newline escaped. */
static void put_label(out *o, loom_buf *b, const char *name, const char *value)
{
	const char *p;
	plan_bprintf(&o->rc, b, "%s=\"", name);
	for (p = value ? value : ""; *p; p++) {
		if (*p == '\\')
			plan_bprintf(&o->rc, b, "\\\\");
		else if (*p == '"')
			plan_bprintf(&o->rc, b, "\\\"");
		else if (*p == '\n')
			plan_bprintf(&o->rc, b, "\\n");
		else
			plan_bprintf(&o->rc, b, "%c", *p);
	}
	plan_bprintf(&o->rc, b, "\"");
}

/* One sample: labels as NULL-terminated name, value pairs. */
static void sample(out *o, int f, double value, const char *const *labels)
{
	loom_buf *b = &o->fam[f];
	size_t i;
	plan_bprintf(&o->rc, b, "%s", families[f].name);
	if (labels && labels[0]) {
		plan_bprintf(&o->rc, b, "{");
		for (i = 0; labels[i]; i += 2) {
			if (i)
				plan_bprintf(&o->rc, b, ",");
			put_label(o, b, labels[i], labels[i + 1]);
		}
		plan_bprintf(&o->rc, b, "}");
	}
	if (value == (double)(int64_t)value && value < 9007199254740992.0 && value > -9007199254740992.0)
		plan_bprintf(&o->rc, b, " %lld\n", (long long)value);
	else
		plan_bprintf(&o->rc, b, " %.17g\n", value);
}

static int seen_before(const json_t *tables, size_t i, const char *ref)
{
	size_t j;
	for (j = 0; j < i; j++) {
		const char *r = json_string_value(json_object_get(json_array_get(tables, j), "ref"));
		if (r && strcmp(r, ref) == 0)
			return 1;
	}
	return 0;
}

static void op_samples(out *o, const char *ref, const char *name, const json_t *op)
{
	const char *l[] = { "table", ref, "operation", name, NULL, NULL, NULL };
	const char *ls[] = { "table", ref, "operation", name, "status", "ok", NULL };
	const json_t *metrics = json_object_get(op, "metrics"), *v;
	const char *mname;
	obs_op_io io;
	obs_op_io_of(op, &io);
	sample(o, F_OP_DURATION, obs_num(op, "duration_seconds", 0), ls);
	sample(o, F_FILES_READ, (double)io.files_read, l);
	sample(o, F_FILES_WRITTEN, (double)io.files_written, l);
	sample(o, F_FILES_REMOVED, (double)io.files_removed, l);
	sample(o, F_BYTES_READ, (double)io.bytes_read, l);
	sample(o, F_BYTES_WRITTEN, (double)io.bytes_written, l);
	sample(o, F_BYTES_REMOVED, (double)io.bytes_removed, l);
	sample(o, F_ROWS_REMOVED, (double)io.rows_removed, l);
	json_object_foreach((json_t *)metrics, mname, v) {
		const char *lm[] = { "table", ref, "operation", name, "metric", mname, NULL };
		if (json_is_number(v))
			sample(o, F_OP_METRIC, json_number_value(v), lm);
	}
}

static void report_samples(out *o, const json_t *rep, int64_t ended_ms)
{
	const char *step = obs_str(rep, "step");
	const char *ls[] = { "step", step, NULL };
	const json_t *tables = json_object_get(rep, "tables"), *t;
	static const char *const statuses[] = { "ok", "failed", "skipped" };
	size_t i;
	sample(o, F_RUN_DURATION, obs_num(rep, "duration_seconds", 0), ls);
	sample(o, F_RUN_TIMESTAMP, (double)ended_ms / 1000.0, ls);
	for (i = 0; i < 3; i++) {
		const char *l[] = { "step", step, "status", statuses[i], NULL };
		char path[32];
		snprintf(path, sizeof(path), "summary.%s", statuses[i]);
		sample(o, F_RUN_TABLES, obs_num(rep, path, 0), l);
	}
	json_array_foreach(tables, i, t) {
		const char *ref = obs_str(t, "ref"), *status = obs_str(t, "status");
		const char *l[] = { "table", ref, NULL };
		const char *lst[] = { "table", ref, "status", status, NULL };
		const json_t *ops = json_object_get(t, "ops"), *op;
		const char *name;
		if (!ref || seen_before(tables, i, ref))
			continue;   /* a table declared twice: its first run */
		sample(o, F_TABLE_DURATION, obs_num(t, "duration_seconds", 0), lst);
		if (status && strcmp(status, "ok") == 0)
			sample(o, F_LAST_SUCCESS, (double)ended_ms / 1000.0, l);
		if (json_is_object(json_object_get(t, "error"))) {
			const char *op_name = obs_str(t, "error.op");
			const char *le[] = { "table", ref, "operation", op_name ? op_name : "",
			                     "class", obs_str(t, "error.class"),
			                     "code", obs_str(t, "error.name"), NULL };
			sample(o, F_ERRORS, 1, le);
		}
		json_object_foreach((json_t *)ops, name, op)
			op_samples(o, ref, name, op);
	}
}

static void store_samples(out *o, const json_t *st)
{
	const json_t *req = json_object_get(st, "requests"), *v;
	const char *kind;
	json_object_foreach((json_t *)req, kind, v) {
		const char *l[] = { "kind", kind, NULL };
		sample(o, F_STORE_REQUESTS, json_number_value(v), l);
	}
	sample(o, F_STORE_RETRIES, obs_num(st, "retries", 0), NULL);
	sample(o, F_STORE_READ, obs_num(st, "bytes_read", 0), NULL);
	sample(o, F_STORE_WRITTEN, obs_num(st, "bytes_written", 0), NULL);
}

static void health_samples(out *o, const char *ref, const json_t *h)
{
	const char *l[] = { "table", ref, NULL };
	const json_t *cols = json_object_get(json_object_get(h, "health"), "clustering");
	const json_t *advice = json_object_get(h, "advice"), *c;
	double rows = obs_num(h, "health.table.rows", 0);
	size_t i;
	sample(o, F_H_VERSION, obs_num(h, "health.version", 0), l);
	sample(o, F_H_FILES, obs_num(h, "health.table.files", 0), l);
	sample(o, F_H_BYTES, obs_num(h, "health.table.bytes", 0), l);
	sample(o, F_H_ROWS, rows, l);
	sample(o, F_H_SMALL_FILES, obs_num(h, "health.table.smallFiles", 0), l);
	sample(o, F_H_SMALL_BYTES, obs_num(h, "health.table.smallBytes", 0), l);
	sample(o, F_H_DELETED_RATIO, rows > 0 ? obs_num(h, "health.table.dvDeletedRows", 0) / rows : 0, l);
	sample(o, F_H_COMMITS, obs_num(h, "health.log.commitsSinceCheckpoint", 0), l);
	sample(o, F_H_TOMBSTONES, obs_num(h, "health.tombstones.expiredFiles", 0), l);
	json_array_foreach((json_t *)cols, i, c) {
		const char *lc[] = { "table", ref, "column", obs_str(c, "column"), NULL };
		sample(o, F_H_DEPTH, obs_num(c, "depth", 0), lc);
	}
	json_array_foreach((json_t *)advice, i, c) {
		const char *la[] = { "table", ref, "operation", obs_str(c, "op"), NULL };
		sample(o, F_H_RECOMMENDED, obs_num(c, "recommended", 0), la);
	}
}

/* OpenMetrics names a counter family without its _total suffix. */
static void header(out *o, loom_buf *b, int f, int openmetrics)
{
	const family *fm = &families[f];
	int n = (int)strlen(fm->name);
	if (openmetrics && fm->type == COUNTER)
		n -= 6;
	plan_bprintf(&o->rc, b, "# HELP %.*s %s\n# TYPE %.*s %s\n", n, fm->name, fm->help, n,
	             fm->name, fm->type == COUNTER ? "counter" : "gauge");
}

LOOM_EXTERN(int) loom_run_record_to_metrics(char **out_text, const loom_run_record *r, loom_metrics_format format)
{
	out o;
	loom_buf all = LOOM_BUF_INIT;
	const json_t *rep, *st, *tables, *t;
	size_t i;
	int f;
	if (!r || !out_text || (format != LOOM_METRICS_PROMETHEUS && format != LOOM_METRICS_OPENMETRICS))
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_PLAN,
		                "loom_run_record_to_metrics: NULL argument or unknown format %d", format);
	memset(&o, 0, sizeof(o));
	rep = json_object_get(r->root, "report");
	if (json_is_object(rep))
		report_samples(&o, rep, (int64_t)obs_num(r->root, "ended_ms", 0));
	st = json_object_get(r->root, "store");
	if (json_is_object(st))
		store_samples(&o, st);
	tables = json_object_get(r->root, "tables");
	json_array_foreach(tables, i, t) {
		const json_t *h = obs_health_latest(t);
		const char *ref = obs_str(t, "ref");
		if (h && ref && !seen_before(tables, i, ref))
			health_samples(&o, ref, h);
	}
	for (f = 0; f < F__COUNT; f++) {
		if (!o.fam[f].size)
			continue;
		header(&o, &all, f, format == LOOM_METRICS_OPENMETRICS);
		plan_bprintf(&o.rc, &all, "%s", o.fam[f].ptr);
	}
	if (format == LOOM_METRICS_OPENMETRICS)
		plan_bprintf(&o.rc, &all, "# EOF\n");
	for (f = 0; f < F__COUNT; f++)
		loom_buf_dispose(&o.fam[f]);
	if (o.rc < 0 || (!all.ptr && loom_buf_puts(&all, "") < 0)) {
		loom_buf_dispose(&all);
		return loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_PLAN, "out of memory rendering metrics");
	}
	*out_text = loom_buf_detach(&all);
	return 0;
}
