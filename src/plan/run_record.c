/* plan/run_record.c - the run record ("loom.run/1", docs/observability.md):
 * a report, the health of its tables before and after, the store counters.
 * Metrics, logs, history and HTML all render it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "delta/stats_json.h"
#include "loom/config.h"
#include "plan/observe_int.h"
#include "util/alloc.h"
#include "util/error.h"
#include "util/uuid.h"

static int oom(void)
{
	return loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_PLAN, "out of memory");
}

/* "20250131T020000.123Z-<uuid>": sorts by start time (ms), unique per run. */
static int make_id(char *out, size_t cap, int64_t started_ms)
{
	char uuid[37];
	time_t secs = (time_t)(started_ms / 1000);
	struct tm tm;
	if (loom_uuid_v4_string(uuid) < 0)
		return -1;
	gmtime_r(&secs, &tm);
	snprintf(out, cap, "%04d%02d%02dT%02d%02d%02d.%03dZ-%s", tm.tm_year + 1900, tm.tm_mon + 1,
	         tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, (int)(started_ms % 1000), uuid);
	return 0;
}

LOOM_EXTERN(int) loom_run_record_new(loom_run_record **out, const loom_report *rep,
                                     int64_t started_ms, int64_t ended_ms)
{
	loom_run_record *r;
	json_t *report = json_null();
	char id[160];
	if (!out)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_PLAN, "loom_run_record_new: out is NULL");
	if (rep) {
		char *s = NULL;
		json_error_t jerr;
		if (loom_report_to_json(&s, rep) < 0)
			return LOOM_ENOMEM;
		report = json_loads(s, 0, &jerr);
		loom_string_free(s);
		if (!report)
			return oom();
	}
	if (make_id(id, sizeof(id), started_ms) < 0) {
		json_decref(report);
		return loom_err(LOOM_EIO, LOOM_ERRCLASS_PLAN, "no random bytes for the run id");
	}
	if (!(r = loom_calloc(1, sizeof(*r)))) {
		json_decref(report);
		return oom();
	}
	r->root = json_object();
	json_object_set_new(r->root, "schema", json_string("loom.run/1"));
	json_object_set_new(r->root, "id", json_string(id));
	json_object_set_new(r->root, "started_ms", json_integer(started_ms));
	json_object_set_new(r->root, "ended_ms", json_integer(ended_ms));
	json_object_set_new(r->root, "report", report);
	json_object_set_new(r->root, "tables", json_array());
	json_object_set_new(r->root, "store", json_null());
	if (!json_object_get(r->root, "tables")) {
		loom_run_record_free(r);
		return oom();
	}
	*out = r;
	return 0;
}

LOOM_EXTERN(void) loom_run_record_free(loom_run_record *r)
{
	if (!r)
		return;
	json_decref(r->root);
	loom_free(r);
}

LOOM_EXTERN(const char *) loom_run_record_id(const loom_run_record *r)
{
	return r ? json_string_value(json_object_get(r->root, "id")) : NULL;
}

const json_t *obs_table_entry(const loom_run_record *r, const char *ref)
{
	json_t *tables = json_object_get(r->root, "tables"), *t;
	size_t i;
	json_array_foreach(tables, i, t) {
		const char *name = json_string_value(json_object_get(t, "ref"));
		if (name && strcmp(name, ref) == 0)
			return t;
	}
	return NULL;
}

LOOM_EXTERN(int) loom_run_record_set_health(loom_run_record *r, const char *table_ref,
                                            const char *shown_uri, loom_health_when when,
                                            const loom_health *h)
{
	json_t *t, *parsed;
	char *s = NULL;
	json_error_t jerr;
	if (!r || !table_ref || !h || (when != LOOM_HEALTH_BEFORE && when != LOOM_HEALTH_AFTER))
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_PLAN,
		                "loom_run_record_set_health: NULL argument or bad 'when' (%d)", when);
	if (loom_health_to_json(&s, h, shown_uri, LOOM_HEALTH_JSON_HEALTH | LOOM_HEALTH_JSON_ADVICE) < 0)
		return LOOM_ENOMEM;
	parsed = json_loads(s, 0, &jerr);
	loom_string_free(s);
	if (!parsed)
		return oom();
	t = (json_t *)obs_table_entry(r, table_ref);
	if (!t) {
		t = json_object();
		json_object_set_new(t, "ref", json_string(table_ref));
		json_object_set_new(t, "uri", shown_uri ? json_string(shown_uri) : json_null());
		json_object_set_new(t, "before", json_null());
		json_object_set_new(t, "after", json_null());
		if (json_array_append_new(json_object_get(r->root, "tables"), t) < 0) {
			json_decref(parsed);
			return oom();
		}
	}
	if (json_object_set_new(t, when == LOOM_HEALTH_BEFORE ? "before" : "after", parsed) < 0)
		return oom();
	return 0;
}

LOOM_EXTERN(int) loom_run_record_set_store_stats(loom_run_record *r, const loom_store_stats *s)
{
	json_t *o, *req;
	int k;
	if (!r || !s)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_PLAN,
		                "loom_run_record_set_store_stats: NULL argument");
	o = json_object();
	req = json_object();
	for (k = 0; k < LOOM_STORE_REQ__COUNT; k++)
		json_object_set_new(req, loom_store_request_name(k), json_integer((json_int_t)s->requests[k]));
	json_object_set_new(o, "requests", req);
	json_object_set_new(o, "retries", json_integer((json_int_t)s->retries));
	json_object_set_new(o, "bytes_read", json_integer((json_int_t)s->bytes_read));
	json_object_set_new(o, "bytes_written", json_integer((json_int_t)s->bytes_written));
	if (json_object_set_new(r->root, "store", o) < 0)
		return oom();
	return 0;
}

LOOM_EXTERN(int) loom_run_record_to_json(char **out, const loom_run_record *r)
{
	char *s, *copy;
	if (!r || !out)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_PLAN, "loom_run_record_to_json: NULL argument");
	if (!(s = json_dumps(r->root, JSON_COMPACT | JSON_PRESERVE_ORDER)))
		return oom();
	copy = loom_strdup(s);
	free(s);
	if (!copy)
		return oom();
	*out = copy;
	return 0;
}

LOOM_EXTERN(int) loom_run_record_from_json(loom_run_record **out, const char *json, size_t len,
                                           const char *name)
{
	json_error_t jerr;
	json_t *root;
	const char *schema;
	loom_run_record *r;
	if (!out || !json)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_PLAN, "loom_run_record_from_json: NULL argument");
	if (!name)
		name = "(run record)";
	if (!(root = json_loadb(json, len, 0, &jerr)))
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_PLAN, "%s:%d:%d: not JSON: %s", name,
		                jerr.line, jerr.column, jerr.text);
	schema = json_string_value(json_object_get(root, "schema"));
	if (schema && strcmp(schema, "loom.report/1") == 0) {
		/* a report alone: wrap it */
		json_t *w = json_object();
		char id[160];
		if (make_id(id, sizeof(id), 0) < 0)
			snprintf(id, sizeof(id), "report");
		json_object_set_new(w, "schema", json_string("loom.run/1"));
		json_object_set_new(w, "id", json_string(id));
		json_object_set_new(w, "started_ms", json_integer(0));
		json_object_set_new(w, "ended_ms", json_integer(0));
		json_object_set_new(w, "report", root);
		json_object_set_new(w, "tables", json_array());
		json_object_set_new(w, "store", json_null());
		root = w;
	} else if (!schema || strcmp(schema, "loom.run/1") != 0 ||
	           !json_is_array(json_object_get(root, "tables")) ||
	           !json_is_string(json_object_get(root, "id")) ||
	           !json_is_integer(json_object_get(root, "started_ms"))) {
		json_decref(root);
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_PLAN,
		                "%s: not a loom run record (schema \"loom.run/1\" with id, started_ms "
		                "and tables) nor a loom.report/1", name);
	}
	if (!(r = loom_calloc(1, sizeof(*r)))) {
		json_decref(root);
		return oom();
	}
	r->root = root;
	*out = r;
	return 0;
}

/* ---- helpers the renderers share ------------------------------------------ */

double obs_num(const json_t *o, const char *path, double dflt)
{
	const json_t *v = delta_json_at_path(o, path);
	return json_is_number(v) ? json_number_value(v) : json_is_boolean(v) ? json_is_true(v) : dflt;
}

const char *obs_str(const json_t *o, const char *path)
{
	return json_string_value(delta_json_at_path(o, path));
}

const json_t *obs_health_latest(const json_t *t)
{
	const json_t *h = json_object_get(t, "after");
	if (!json_is_object(h))
		h = json_object_get(t, "before");
	return json_is_object(h) ? h : NULL;
}

void obs_op_io_of(const json_t *op, obs_op_io *io)
{
	const char *kind = obs_str(op, "kind");
	const json_t *m = json_object_get(op, "metrics");
	memset(io, 0, sizeof(*io));
	if (kind && strcmp(kind, "optimize") == 0) {
		io->files_read = (int64_t)obs_num(op, "num_files_removed", 0);
		io->files_written = (int64_t)obs_num(op, "num_files_added", 0);
		io->files_removed = io->files_read;
		io->bytes_read = (int64_t)obs_num(m, "numRemovedBytes", 0);
		io->bytes_written = (int64_t)obs_num(m, "numAddedBytes", 0);
		io->bytes_removed = io->bytes_read;
		io->rows_removed = (int64_t)obs_num(m, "numRowsPurged", 0);
	} else if (kind && strcmp(kind, "vacuum") == 0) {
		if (obs_num(op, "dry_run", 0))
			return;
		io->files_removed = (int64_t)obs_num(op, "num_files_deleted", 0);
		io->bytes_removed = (int64_t)obs_num(m, "sizeOfDataToDelete", 0);
	} else {
		io->files_removed = (int64_t)obs_num(m, "numDeletedFiles", 0);
		io->bytes_removed = (int64_t)obs_num(m, "sizeOfDataToDelete", 0);
	}
}
