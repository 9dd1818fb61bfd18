/* plan/report.c - the maintenance report and its JSON form
 * (docs/report-schema.md, "loom.report/1"). */
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan/report_int.h"
#include "plan/plan_int.h"
#include "util/alloc.h"
#include "util/buf.h"
#include "util/error.h"

int report_new(loom_report **out, const char *step, size_t n_tables)
{
	loom_report *r = loom_calloc(1, sizeof(*r));
	if (!r)
		return loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_PLAN, "out of memory");
	r->step = loom_strdup(step ? step : "");
	r->tables = loom_calloc(n_tables ? n_tables : 1, sizeof(loom_table_result));
	if (!r->step || !r->tables) {
		loom_report_free(r);
		return loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_PLAN, "out of memory");
	}
	r->n_tables = n_tables;
	atomic_init(&r->stopped_at, -1);
	*out = r;
	return 0;
}

int report_add_warning(loom_report *r, const char *w)
{
	char **grown = loom_reallocarray(r->warnings, r->n_warnings + 1, sizeof(*grown));
	if (!grown)
		return loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_PLAN, "out of memory");
	r->warnings = grown;
	if (!(grown[r->n_warnings] = loom_strdup(w)))
		return loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_PLAN, "out of memory");
	r->n_warnings++;
	return 0;
}

static _Thread_local char **tl_notes;
static _Thread_local size_t tl_n_notes;

int plan_note(const char *fmt, ...)
{
	char msg[1024];
	char **grown;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	grown = loom_reallocarray(tl_notes, tl_n_notes + 1, sizeof(*grown));
	if (!grown)
		return loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_PLAN, "out of memory");
	tl_notes = grown;
	if (!(grown[tl_n_notes] = loom_strdup(msg)))
		return loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_PLAN, "out of memory");
	tl_n_notes++;
	return 0;
}

void plan_notes_clear(void)
{
	size_t i;
	for (i = 0; i < tl_n_notes; i++)
		loom_free(tl_notes[i]);
	loom_free(tl_notes);
	tl_notes = NULL;
	tl_n_notes = 0;
}

int report_table_add_op(loom_table_result *t, const char *name, loom_op_result *res)
{
	report_op *grown = loom_reallocarray(t->ops, t->n_ops + 1, sizeof(*grown));
	char *n;
	if (!grown)
		return loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_PLAN, "out of memory");
	t->ops = grown;
	if (!(n = loom_strdup(name)))
		return loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_PLAN, "out of memory");
	grown[t->n_ops].name = n;
	grown[t->n_ops].result = *res;
	grown[t->n_ops].notes = tl_notes;      /* the op's notes move over */
	grown[t->n_ops].n_notes = tl_n_notes;
	tl_notes = NULL;
	tl_n_notes = 0;
	memset(res, 0, sizeof(*res));
	t->n_ops++;
	return 0;
}

LOOM_EXTERN(void) loom_report_free(loom_report *rep)
{
	size_t i, j;
	if (!rep)
		return;
	for (i = 0; i < rep->n_tables; i++) {
		loom_table_result *t = &rep->tables[i];
		for (j = 0; j < t->n_ops; j++) {
			size_t k;
			for (k = 0; k < t->ops[j].n_notes; k++)
				loom_free(t->ops[j].notes[k]);
			loom_free(t->ops[j].notes);
			loom_free(t->ops[j].name);
			loom_op_result_free(&t->ops[j].result);
		}
		loom_free(t->ops);
		loom_free(t->ref);
		loom_free(t->uri);
		loom_free(t->failed_op);
		loom_free(t->error_message);
		loom_free(t->skip_reason);
	}
	for (i = 0; i < rep->n_warnings; i++)
		loom_free(rep->warnings[i]);
	loom_free(rep->warnings);
	loom_free(rep->tables);
	loom_free(rep->step);
	loom_free(rep);
}

LOOM_EXTERN(size_t) loom_report_count(const loom_report *rep)
{
	return rep ? rep->n_tables : 0;
}

LOOM_EXTERN(const loom_table_result *) loom_report_at(const loom_report *rep, size_t i)
{
	return rep && i < rep->n_tables ? &rep->tables[i] : NULL;
}

LOOM_EXTERN(size_t) loom_report_error_count(const loom_report *rep)
{
	size_t i, n = 0;
	for (i = 0; rep && i < rep->n_tables; i++)
		if (rep->tables[i].error_code)
			n++;
	return n;
}

LOOM_EXTERN(int) loom_report_has_errors(const loom_report *rep)
{
	return rep && (rep->cancelled || loom_report_error_count(rep) > 0);
}

LOOM_EXTERN(int) loom_report_cancelled(const loom_report *rep)
{
	return rep ? rep->cancelled : 0;
}

LOOM_EXTERN(int64_t) loom_report_stopped_at(const loom_report *rep)
{
	return rep ? atomic_load(&((loom_report *)rep)->stopped_at) : -1;
}

LOOM_EXTERN(size_t) loom_report_warning_count(const loom_report *rep)
{
	return rep ? rep->n_warnings : 0;
}

LOOM_EXTERN(const char *) loom_report_warning_at(const loom_report *rep, size_t i)
{
	return rep && i < rep->n_warnings ? rep->warnings[i] : NULL;
}

LOOM_EXTERN(const char *) loom_table_result_ref(const loom_table_result *t)
{
	return t ? t->ref : NULL;
}

LOOM_EXTERN(const char *) loom_table_result_uri(const loom_table_result *t)
{
	return t ? t->uri : NULL;
}

LOOM_EXTERN(loom_error_code) loom_table_result_error_code(const loom_table_result *t)
{
	return t ? t->error_code : 0;
}

LOOM_EXTERN(const char *) loom_table_result_error_message(const loom_table_result *t)
{
	return t && t->error_message ? t->error_message : "";
}

LOOM_EXTERN(loom_error_class) loom_table_result_error_class(const loom_table_result *t)
{
	return t && t->error_code ? t->error_class : LOOM_ERRCLASS_NONE;
}

LOOM_EXTERN(const char *) loom_table_result_failed_op(const loom_table_result *t)
{
	return t ? t->failed_op : NULL;
}

report_status report_table_status(const loom_table_result *t)
{
	return t->error_code ? REPORT_FAILED : t->skipped ? REPORT_SKIPPED : REPORT_OK;
}

const char *report_status_name(report_status s)
{
	static const char *const names[] = { "ok", "failed", "skipped" };
	return names[s];
}

LOOM_EXTERN(int) loom_table_result_ok(const loom_table_result *t)
{
	return t && t->error_code == 0;
}

LOOM_EXTERN(int) loom_table_result_skipped(const loom_table_result *t)
{
	return t ? t->skipped : 0;
}

LOOM_EXTERN(const char *) loom_table_result_skip_reason(const loom_table_result *t)
{
	return t ? t->skip_reason : NULL;
}

LOOM_EXTERN(double) loom_table_result_duration_seconds(const loom_table_result *t)
{
	return t ? t->duration_seconds : 0.0;
}

LOOM_EXTERN(size_t) loom_table_result_op_count(const loom_table_result *t)
{
	return t ? t->n_ops : 0;
}

LOOM_EXTERN(const char *) loom_table_result_op_name_at(const loom_table_result *t, size_t i)
{
	return t && i < t->n_ops ? t->ops[i].name : NULL;
}

LOOM_EXTERN(const loom_op_result *) loom_table_result_op_at(const loom_table_result *t, size_t i)
{
	return t && i < t->n_ops ? &t->ops[i].result : NULL;
}

LOOM_EXTERN(double) loom_table_result_op_seconds_at(const loom_table_result *t, size_t i)
{
	return t && i < t->n_ops ? t->ops[i].seconds : 0.0;
}

LOOM_EXTERN(const loom_op_result *) loom_table_result_op(const loom_table_result *t,
                                                         const char *op_name)
{
	size_t i;
	for (i = 0; t && op_name && i < t->n_ops; i++)
		if (strcmp(t->ops[i].name, op_name) == 0)
			return &t->ops[i].result;
	return NULL;
}

/* ---- JSON -------------------------------------------------------------- */

/* VACUUM's incomplete multipart uploads (S3): aborted, or to abort when
 * dry; bytes null where the store listed none. */
static json_t *uploads_json(const loom_op_result *r)
{
	json_t *a = json_array();
	size_t i;
	for (i = 0; i < r->n_uploads; i++) {
		const loom_upload_info *u = &r->uploads[i];
		json_t *o = json_object();
		json_object_set_new(o, "key", plan_json_str(u->key));
		json_object_set_new(o, "initiated_ms", json_integer(u->initiated_ms));
		json_object_set_new(o, "bytes", u->bytes >= 0 ? json_integer(u->bytes) : json_null());
		json_array_append_new(a, o);
	}
	return a;
}

static json_t *op_json(const loom_op_result *r)
{
	json_t *o = json_object(), *metrics = json_object();
	size_t i;
	switch (r->kind) {
	case LOOM_RESULT_VACUUM: {
		json_t *files = json_array();
		json_object_set_new(o, "kind", plan_json_str("vacuum"));
		json_object_set_new(o, "dry_run", json_boolean(r->dry_run));
		json_object_set_new(o, "num_files_deleted", json_integer((json_int_t)r->n_files_deleted));
		for (i = 0; i < r->n_files_deleted; i++)
			json_array_append_new(files, plan_json_str(r->files_deleted[i]));
		json_object_set_new(o, "files_deleted", files);
		json_object_set_new(o, "multipart_uploads", uploads_json(r));
		break;
	}
	case LOOM_RESULT_OPTIMIZE:
		json_object_set_new(o, "kind", plan_json_str("optimize"));
		json_object_set_new(o, "num_files_added", json_integer(r->num_files_added));
		json_object_set_new(o, "num_files_removed", json_integer(r->num_files_removed));
		break;
	default:
		json_object_set_new(o, "kind", plan_json_str("none"));
		break;
	}
	for (i = 0; i < r->n_metrics; i++)
		json_object_set_new(metrics, r->metrics[i].name, json_integer(r->metrics[i].value));
	json_object_set_new(o, "metrics", metrics);
	return o;
}

static json_t *table_json(const loom_table_result *t)
{
	json_t *o = json_object(), *ops = json_object();
	size_t i;
	json_object_set_new(o, "ref", plan_json_str(t->ref));
	json_object_set_new(o, "uri", t->uri ? plan_json_str(t->uri) : json_null());
	json_object_set_new(o, "status", plan_json_str(report_status_name(report_table_status(t))));
	json_object_set_new(o, "skipped", json_boolean(t->skipped));
	json_object_set_new(o, "skip_reason", t->skip_reason ? plan_json_str(t->skip_reason)
	                                                     : json_null());
	if (t->error_code) {
		json_t *e = json_object();
		json_object_set_new(e, "code", json_integer(t->error_code));
		json_object_set_new(e, "name", plan_json_str(loom_error_code_name(t->error_code)));
		json_object_set_new(e, "class", plan_json_str(loom_error_class_name(t->error_class)));
		json_object_set_new(e, "message", plan_json_str(loom_table_result_error_message(t)));
		json_object_set_new(e, "op", t->failed_op ? plan_json_str(t->failed_op) : json_null());
		json_object_set_new(o, "error", e);
	} else {
		json_object_set_new(o, "error", json_null());
	}
	json_object_set_new(o, "duration_seconds", json_real(t->duration_seconds));
	for (i = 0; i < t->n_ops; i++) {
		json_t *op = op_json(&t->ops[i].result);
		json_object_set_new(op, "duration_seconds", json_real(t->ops[i].seconds));
		if (t->ops[i].n_notes) {
			json_t *notes = json_array();
			size_t k;
			for (k = 0; k < t->ops[i].n_notes; k++)
				json_array_append_new(notes, plan_json_str(t->ops[i].notes[k]));
			json_object_set_new(op, "decisions", notes);
		}
		json_object_set_new(ops, t->ops[i].name, op);
	}
	json_object_set_new(o, "ops", ops);
	return o;
}

/* One table's object dumped alone (jansson's memory: free()), or NULL. */
static char *table_dump(const loom_table_result *t)
{
	json_t *o = table_json(t);
	char *s = json_dumps(o, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	json_decref(o);
	return s;
}

#define TABLE_INDENT "    "
#define TABLE_SEP ",\n    "
#define TABLES_END "\n  ]\n}"

/* The bytes put_indented writes for `s`. */
static size_t indented_len(const char *s)
{
	size_t n = strlen(s);
	const char *nl;
	for (nl = strchr(s, '\n'); nl; nl = strchr(nl + 1, '\n'))
		n += strlen(TABLE_INDENT);
	return n;
}

/* `s` with `indent` after each newline (a JSON string never holds a raw
 * newline, so each one starts a line of the dump). */
static int put_indented(loom_buf *b, const char *s, const char *indent)
{
	const char *nl;
	int rc = 0;
	while (rc == 0 && (nl = strchr(s, '\n'))) {
		rc = loom_buf_put(b, s, (size_t)(nl - s) + 1);
		if (rc == 0)
			rc = loom_buf_puts(b, indent);
		s = nl + 1;
	}
	return rc ? rc : loom_buf_puts(b, s);
}

/* The report's text, the tables one at a time: one JSON tree of the whole
 * report cost more than the run itself over a lake (about 6 KB a table on
 * top of the report, and the text twice). The document is dumped with an
 * empty `tables` (its last key) and each table's object, dumped alone, is
 * indented to its place: byte for byte what one json_dumps of the whole
 * tree prints with JSON_INDENT(2). */
LOOM_EXTERN(int) loom_report_to_json(char **out, const loom_report *rep)
{
	json_t *root, *warnings, *summary;
	size_t i, count[3] = { 0, 0, 0 };   /* by report_status */
	loom_buf b = LOOM_BUF_INIT;
	char *s, *tail;
	int rc = 0;

	if (!rep || !out)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_PLAN, "loom_report_to_json: NULL argument");
	root = json_object();
	json_object_set_new(root, "schema", plan_json_str("loom.report/1"));
	json_object_set_new(root, "step", plan_json_str(rep->step));
	json_object_set_new(root, "has_errors", json_boolean(loom_report_has_errors(rep)));
	json_object_set_new(root, "cancelled", json_boolean(rep->cancelled));
	json_object_set_new(root, "jobs", json_integer((json_int_t)rep->jobs));
	json_object_set_new(root, "duration_seconds", json_real(rep->duration_seconds));
	for (i = 0; i < rep->n_tables; i++)
		count[report_table_status(&rep->tables[i])]++;
	summary = json_object();
	json_object_set_new(summary, "tables", json_integer((json_int_t)rep->n_tables));
	for (i = 0; i < 3; i++)
		json_object_set_new(summary, report_status_name((report_status)i), json_integer((json_int_t)count[i]));
	json_object_set_new(root, "summary", summary);
	warnings = json_array();
	for (i = 0; i < rep->n_warnings; i++)
		json_array_append_new(warnings, plan_json_str(rep->warnings[i]));
	json_object_set_new(root, "warnings", warnings);
	json_object_set_new(root, "tables", json_array());
	s = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	json_decref(root);
	if (!s)
		return loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_PLAN, "out of memory rendering the report");
	tail = strrchr(s, '[');   /* the empty tables' "[]\n}" ends the dump */
	if (rep->n_tables == 0 || !tail) {
		rc = loom_buf_puts(&b, s);
	} else {
		/* measured first, so the text is allocated once: the same
		 * allocations whatever the durations' digits (test_plan_alloc
		 * fails each one in turn) */
		size_t total = (size_t)(tail - s) + strlen("[\n" TABLE_INDENT);
		for (i = 0; rc == 0 && i < rep->n_tables; i++) {
			char *ts = table_dump(&rep->tables[i]);
			if (!ts)
				rc = LOOM_ENOMEM;
			else
				total += indented_len(ts) + strlen(i + 1 < rep->n_tables ? TABLE_SEP : TABLES_END);
			free(ts);
		}
		if (rc == 0)
			rc = loom_buf_grow(&b, total);
		if (rc == 0)
			rc = loom_buf_put(&b, s, (size_t)(tail - s));
		if (rc == 0)
			rc = loom_buf_puts(&b, "[\n" TABLE_INDENT);
		for (i = 0; rc == 0 && i < rep->n_tables; i++) {
			char *ts = table_dump(&rep->tables[i]);
			if (!ts)
				rc = LOOM_ENOMEM;
			if (rc == 0)
				rc = put_indented(&b, ts, TABLE_INDENT);
			if (rc == 0)
				rc = loom_buf_puts(&b, i + 1 < rep->n_tables ? TABLE_SEP : TABLES_END);
			free(ts);
		}
	}
	free(s);
	if (rc < 0) {
		loom_buf_dispose(&b);
		return loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_PLAN, "out of memory rendering the report");
	}
	*out = loom_buf_detach(&b);
	return 0;
}
