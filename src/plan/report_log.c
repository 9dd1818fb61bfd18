/* plan/report_log.c - structured logs: one JSON object per event of a run
 * (run, table and operation start and end, retries, warnings, errors),
 * handed as a line to the caller's function. Built from the runner's
 * progress events and the report, so it carries the report's numbers and
 * its masking: no secret reaches a line. */
#include <jansson.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "loom/observe.h"
#include "plan/plan_int.h"
#include "util/alloc.h"
#include "util/clock.h"
#include "util/error.h"

struct loom_event_log {
	loom_log_line_fn fn;
	void *payload;
	pthread_mutex_t lock;
};

/* store retries of the process when this thread's op started */
static _Thread_local uint64_t tl_retries_at_start;

LOOM_EXTERN(int) loom_event_log_new(loom_event_log **out, loom_log_line_fn fn, void *payload)
{
	loom_event_log *l;
	if (!out || !fn)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_PLAN, "loom_event_log_new: NULL argument");
	if (!(l = loom_calloc(1, sizeof(*l))))
		return loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_PLAN, "out of memory");
	l->fn = fn;
	l->payload = payload;
	pthread_mutex_init(&l->lock, NULL);
	*out = l;
	return 0;
}

LOOM_EXTERN(void) loom_event_log_free(loom_event_log *l)
{
	if (!l)
		return;
	pthread_mutex_destroy(&l->lock);
	loom_free(l);
}

/* A new event object: {"ts": ISO-8601 UTC with ms, "level", "event"}. */
static json_t *event(const char *level, const char *name)
{
	json_t *o = json_object();
	int64_t ms = loom_clock_wall_ms(loom_clock_system());
	time_t secs = (time_t)(ms / 1000);
	struct tm tm;
	char ts[96];
	gmtime_r(&secs, &tm);
	snprintf(ts, sizeof(ts), "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900,
	         tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, (int)(ms % 1000));
	json_object_set_new(o, "ts", json_string(ts));
	json_object_set_new(o, "level", json_string(level));
	json_object_set_new(o, "event", json_string(name));
	return o;
}

/* Emit and release `o` (one line; nothing when out of memory). */
static void emit(loom_event_log *l, json_t *o)
{
	char *s = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_ENSURE_ASCII);
	json_decref(o);
	if (!s)
		return;
	pthread_mutex_lock(&l->lock);
	l->fn(s, l->payload);
	pthread_mutex_unlock(&l->lock);
	free(s);
}

static uint64_t retries_now(void)
{
	loom_store_stats st;
	memset(&st, 0, sizeof(st));
	st.version = LOOM_STORE_STATS_VERSION;
	return loom_store_stats_total(&st) < 0 ? 0 : st.retries;
}

static json_t *result_json(const loom_op_result *r)
{
	json_t *o = json_object(), *m = json_object();
	size_t i;
	const char *kind = r->kind == LOOM_RESULT_VACUUM     ? "vacuum"
	                   : r->kind == LOOM_RESULT_OPTIMIZE ? "optimize" : "none";
	json_object_set_new(o, "kind", json_string(kind));
	if (r->kind == LOOM_RESULT_VACUUM) {
		json_object_set_new(o, "dry_run", json_boolean(r->dry_run));
		json_object_set_new(o, "num_files_deleted", json_integer((json_int_t)r->n_files_deleted));
	} else if (r->kind == LOOM_RESULT_OPTIMIZE) {
		json_object_set_new(o, "num_files_added", json_integer(r->num_files_added));
		json_object_set_new(o, "num_files_removed", json_integer(r->num_files_removed));
	}
	for (i = 0; i < r->n_metrics; i++)
		json_object_set_new(m, r->metrics[i].name, json_integer(r->metrics[i].value));
	json_object_set_new(o, "metrics", m);
	return o;
}

LOOM_EXTERN(void) loom_event_log_progress(const loom_progress *p, void *log)
{
	loom_event_log *l = log;
	json_t *o;
	if (!l || !p)
		return;
	switch (p->event) {
	case LOOM_PROGRESS_TABLE_START:
		o = event("info", "table_start");
		json_object_set_new(o, "table", plan_json_str(p->table_ref));
		json_object_set_new(o, "index", json_integer((json_int_t)p->table_index));
		json_object_set_new(o, "count", json_integer((json_int_t)p->table_count));
		break;
	case LOOM_PROGRESS_OP_START:
		tl_retries_at_start = retries_now();
		o = event("info", "op_start");
		json_object_set_new(o, "table", plan_json_str(p->table_ref));
		json_object_set_new(o, "operation", plan_json_str(p->op_name));
		break;
	case LOOM_PROGRESS_OP_DONE: {
		uint64_t retries = retries_now() - tl_retries_at_start;
		if (retries > 0) {
			json_t *r = event("warning", "retry");
			json_object_set_new(r, "table", plan_json_str(p->table_ref));
			json_object_set_new(r, "operation", plan_json_str(p->op_name));
			json_object_set_new(r, "retries", json_integer((json_int_t)retries));
			emit(l, r);
		}
		o = event(p->code ? "error" : "info", "op_end");
		json_object_set_new(o, "table", plan_json_str(p->table_ref));
		json_object_set_new(o, "operation", plan_json_str(p->op_name));
		json_object_set_new(o, "status", json_string(p->code ? "failed" : "ok"));
		json_object_set_new(o, "code", json_integer(p->code));
		json_object_set_new(o, "seconds", json_real(p->seconds));
		json_object_set_new(o, "result", p->result ? result_json(p->result) : json_null());
		break;
	}
	case LOOM_PROGRESS_TABLE_DONE:
		o = event(p->code ? "error" : "info", "table_end");
		json_object_set_new(o, "table", plan_json_str(p->table_ref));
		json_object_set_new(o, "status", json_string(p->code      ? "failed"
		                                             : p->skipped ? "skipped" : "ok"));
		json_object_set_new(o, "code", json_integer(p->code));
		json_object_set_new(o, "seconds", json_real(p->seconds));
		break;
	default:
		return;
	}
	emit(l, o);
}

LOOM_EXTERN(void) loom_event_log_run_start(loom_event_log *l, const char *step, size_t tables)
{
	json_t *o;
	if (!l)
		return;
	o = event("info", "run_start");
	json_object_set_new(o, "step", plan_json_str(step ? step : ""));
	json_object_set_new(o, "tables", json_integer((json_int_t)tables));
	emit(l, o);
}

LOOM_EXTERN(void) loom_event_log_run_end(loom_event_log *l, const loom_report *rep)
{
	size_t i, ok = 0, failed = 0, skipped = 0;
	json_t *o, *summary;
	if (!l || !rep)
		return;
	for (i = 0; i < loom_report_warning_count(rep); i++) {
		o = event("warning", "warning");
		json_object_set_new(o, "message", plan_json_str(loom_report_warning_at(rep, i)));
		emit(l, o);
	}
	for (i = 0; i < loom_report_count(rep); i++) {
		const loom_table_result *t = loom_report_at(rep, i);
		int code = loom_table_result_error_code(t);
		if (!code) {
			if (loom_table_result_skipped(t))
				skipped++;
			else
				ok++;
			continue;
		}
		failed++;
		o = event("error", "error");
		json_object_set_new(o, "table", plan_json_str(loom_table_result_ref(t)));
		json_object_set_new(o, "operation", loom_table_result_failed_op(t)
		                                            ? plan_json_str(loom_table_result_failed_op(t))
		                                            : json_null());
		json_object_set_new(o, "class", json_string(loom_error_class_name(loom_table_result_error_class(t))));
		json_object_set_new(o, "code", json_integer(code));
		json_object_set_new(o, "name", json_string(loom_error_code_name(code)));
		json_object_set_new(o, "message", plan_json_str(loom_table_result_error_message(t)));
		emit(l, o);
	}
	o = event(loom_report_has_errors(rep) ? "error" : "info", "run_end");
	summary = json_object();
	json_object_set_new(summary, "tables", json_integer((json_int_t)loom_report_count(rep)));
	json_object_set_new(summary, "ok", json_integer((json_int_t)ok));
	json_object_set_new(summary, "failed", json_integer((json_int_t)failed));
	json_object_set_new(summary, "skipped", json_integer((json_int_t)skipped));
	json_object_set_new(o, "has_errors", json_boolean(loom_report_has_errors(rep)));
	json_object_set_new(o, "cancelled", json_boolean(loom_report_cancelled(rep)));
	json_object_set_new(o, "summary", summary);
	emit(l, o);
}
