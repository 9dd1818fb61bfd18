/* plan/history.c - the run history: one run record per object
 * "<id>.json" under a local directory or an object-store prefix, written
 * create-only so concurrent runs never overwrite each other; and its
 * summary per table (docs/observability.md, "loom.history/1"). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "loom/config.h"
#include "plan/observe_int.h"
#include "plan/plan_int.h"
#include "util/buf.h"
#include "util/alloc.h"
#include "util/error.h"

static int oom(void)
{
	return loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_PLAN, "out of memory");
}

/* A plain path (no scheme) or file: URI. */
static const char *local_dir(const char *uri)
{
	if (strncmp(uri, "file://", 7) == 0)
		return uri + 7;
	if (strncmp(uri, "file:", 5) == 0)
		return uri + 5;
	return strstr(uri, "://") ? NULL : uri;
}

/* mkdir -p for a local history directory. */
static int make_dirs(const char *dir)
{
	char path[4096];
	size_t i, n = strlen(dir);
	if (n >= sizeof(path))
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_OS, "history path too long");
	memcpy(path, dir, n + 1);
	for (i = 1; i <= n; i++) {
		if (path[i] != '/' && path[i] != '\0')
			continue;
		path[i] = '\0';
		if (mkdir(path, 0755) < 0 && errno != EEXIST)
			return loom_err(LOOM_EIO, LOOM_ERRCLASS_OS, "history: cannot create %s: %s", path,
			                strerror(errno));
		path[i] = i < n ? '/' : '\0';
	}
	return 0;
}

static int open_history(loom_store **s, const char *uri, const loom_store_opts *opts, int create)
{
	const char *dir;
	if (!uri || !*uri)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_PLAN, "history: no location given");
	dir = local_dir(uri);
	if (dir && create && make_dirs(dir) < 0)
		return LOOM_EIO;
	return loom_store_open(s, uri, opts);
}

LOOM_EXTERN(int) loom_history_append(char **key_out, const loom_run_record *r, const char *uri,
                                     const loom_store_opts *opts)
{
	loom_store *s = NULL;
	char *json = NULL, key[160];
	int rc;
	if (!r)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_PLAN, "loom_history_append: record is NULL");
	if ((rc = open_history(&s, uri, opts, 1)) < 0)
		return rc;
	snprintf(key, sizeof(key), "%s.json", loom_run_record_id(r));
	if ((rc = loom_run_record_to_json(&json, r)) >= 0)
		rc = s->put(s, key, json, strlen(json), LOOM_PUT_IF_ABSENT);
	if (rc < 0 && rc != LOOM_ENOMEM) {
		char why[LOOM_ERROR_MESSAGE_MAX];
		snprintf(why, sizeof(why), "%s", loom_error_last() ? loom_error_last()->message : "?");
		loom_err(rc, LOOM_ERRCLASS_STORE, "history: cannot write %s under %s: %s", key,
		         loom_store_root(s), why);
	}
	loom_string_free(json);
	loom_store_free(s);
	if (rc >= 0 && key_out && !(*key_out = loom_strdup(key)))
		return oom();
	return rc < 0 ? rc : 0;
}

/* ---- reading ------------------------------------------------------------- */

typedef struct keys {
	char **v;
	size_t n;
} keys;

static int collect(const loom_store_entry *e, void *payload)
{
	keys *k = payload;
	size_t n = strlen(e->key);
	char **grown;
	if (e->is_dir || n < 6 || strcmp(e->key + n - 5, ".json") != 0)
		return 0;
	if (!(grown = loom_reallocarray(k->v, k->n + 1, sizeof(*grown))))
		return oom();
	k->v = grown;
	if (!(k->v[k->n] = loom_strdup(e->key)))
		return oom();
	k->n++;
	return 0;
}

static void keys_free(keys *k)
{
	size_t i;
	for (i = 0; i < k->n; i++)
		loom_free(k->v[i]);
	loom_free(k->v);
}

static int load(loom_run_record **out, loom_store *s, const char *key)
{
	loom_store_entry st;
	char *buf;
	size_t n = 0;
	int rc;
	char name[512];
	if ((rc = s->stat(s, key, &st)) < 0)
		return rc;
	if (!(buf = loom_malloc(st.size + 1)))
		return oom();
	rc = s->read_range(s, key, 0, st.size, buf, &n);
	if (rc >= 0) {
		snprintf(name, sizeof(name), "%s/%s", loom_store_root(s), key);
		rc = loom_run_record_from_json(out, buf, n, name);
	}
	loom_free(buf);
	return rc;
}

/* Every record's key, oldest first (ids begin with the start time). */
static int list_history(loom_store **s, keys *k, const char *uri, const loom_store_opts *opts)
{
	int rc;
	memset(k, 0, sizeof(*k));
	if ((rc = open_history(s, uri, opts, 0)) < 0)
		return rc;
	if ((rc = (*s)->list(*s, "", NULL, 0, collect, k)) < 0) {
		keys_free(k);
		loom_store_free(*s);
		*s = NULL;
	}
	return rc;
}

LOOM_EXTERN(int) loom_history_latest(loom_run_record **out, const char *uri,
                                     const loom_store_opts *opts)
{
	loom_store *s = NULL;
	keys k;
	int rc;
	if (!out)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_PLAN, "loom_history_latest: out is NULL");
	if ((rc = list_history(&s, &k, uri, opts)) < 0)
		return rc;
	rc = k.n ? load(out, s, k.v[k.n - 1])
	         : loom_err(LOOM_ENOTFOUND, LOOM_ERRCLASS_PLAN, "history %s holds no run",
	                    loom_store_root(s));
	keys_free(&k);
	loom_store_free(s);
	return rc;
}

/* ---- summary --------------------------------------------------------------- */

static json_t *health_figures(const json_t *h)
{
	json_t *o = json_object();
	static const char *const paths[][2] = {
		{ "version", "health.version" },
		{ "files", "health.table.files" },
		{ "bytes", "health.table.bytes" },
		{ "rows", "health.table.rows" },
		{ "small_files", "health.table.smallFiles" },
		{ "small_bytes", "health.table.smallBytes" },
		{ "dv_deleted_rows", "health.table.dvDeletedRows" },
		{ "commits_since_checkpoint", "health.log.commitsSinceCheckpoint" },
	};
	size_t i;
	for (i = 0; i < sizeof(paths) / sizeof(paths[0]); i++)
		json_object_set_new(o, paths[i][0], json_integer((json_int_t)obs_num(h, paths[i][1], 0)));
	return o;
}

static json_t *table_summary(json_t *tables, const char *ref)
{
	json_t *t = json_object_get(tables, ref);
	static const char *const counters[] = {
		"runs", "ok", "failed", "skipped", "files_compacted", "bytes_compacted",
		"files_written", "bytes_written", "files_removed", "bytes_removed", "rows_removed",
	};
	size_t i;
	if (t)
		return t;
	t = json_object();
	for (i = 0; i < sizeof(counters) / sizeof(counters[0]); i++)
		json_object_set_new(t, counters[i], json_integer(0));
	json_object_set_new(t, "health_first", json_null());
	json_object_set_new(t, "health_last", json_null());
	json_object_set_new(tables, ref, t);
	return t;
}

static void add(json_t *o, const char *field, int64_t v)
{
	json_object_set_new(o, field, json_integer(json_integer_value(json_object_get(o, field)) + v));
}

/* One table of one run's report into the summary. */
static void add_table_run(json_t *ts, const json_t *t)
{
	const char *status = obs_str(t, "status");
	const json_t *ops = json_object_get(t, "ops"), *op;
	const char *name;
	add(ts, "runs", 1);
	add(ts, status ? status : "failed", 1);
	json_object_foreach((json_t *)ops, name, op) {
		obs_op_io io;
		obs_op_io_of(op, &io);
		add(ts, "files_compacted", io.files_read);
		add(ts, "bytes_compacted", io.bytes_read);
		add(ts, "files_written", io.files_written);
		add(ts, "bytes_written", io.bytes_written);
		add(ts, "files_removed", io.files_removed);
		add(ts, "bytes_removed", io.bytes_removed);
		add(ts, "rows_removed", io.rows_removed);
	}
}

static void add_health(json_t *tables, const json_t *entry, const char *table)
{
	const char *ref = obs_str(entry, "ref");
	const json_t *before = json_object_get(entry, "before"), *latest = obs_health_latest(entry);
	json_t *ts;
	if (!ref || !latest || (table && strcmp(ref, table) != 0))
		return;
	ts = table_summary(tables, ref);
	if (json_is_null(json_object_get(ts, "health_first")))
		json_object_set_new(ts, "health_first",
		                    health_figures(json_is_object(before) ? before : latest));
	json_object_set_new(ts, "health_last", health_figures(latest));
}

/* A run into the summary: 1 when it counted (it touched `table`). */
static int add_run(json_t *sum, json_t *tables, json_t *runs, const loom_run_record *r,
                   const char *table)
{
	const json_t *rep = json_object_get(r->root, "report"), *t;
	const json_t *entries = json_object_get(r->root, "tables");
	size_t i;
	int counted = table == NULL, failed = 0;
	json_t *run;
	json_array_foreach(json_object_get(rep, "tables"), i, t) {
		const char *ref = obs_str(t, "ref");
		if (!ref || (table && strcmp(ref, table) != 0))
			continue;
		counted = 1;
		if (json_is_object(json_object_get(t, "error")))
			failed = 1;
		add_table_run(table_summary(tables, ref), t);
	}
	json_array_foreach(entries, i, t)
		add_health(tables, t, table);
	if (!counted)
		return 0;
	if (!table)
		failed = obs_num(rep, "has_errors", 0) != 0;
	add(sum, "runs", 1);
	add(sum, "failed_runs", failed);
	run = json_object();
	json_object_set_new(run, "id", json_string(loom_run_record_id(r)));
	json_object_set_new(run, "started_ms", json_integer((json_int_t)obs_num(r->root, "started_ms", 0)));
	json_object_set_new(run, "step", obs_str(rep, "step") ? json_string(obs_str(rep, "step")) : json_null());
	json_object_set_new(run, "failed", json_boolean(failed));
	json_object_set_new(run, "tables", json_integer((json_int_t)obs_num(rep, "summary.tables", 0)));
	json_array_append_new(runs, run);
	return 1;
}

LOOM_EXTERN(int) loom_history_summary(char **out, const char *uri, const loom_store_opts *opts,
                                      const char *table, int64_t since_ms)
{
	loom_store *s = NULL;
	keys k;
	json_t *sum, *tables, *runs;
	size_t i;
	int rc;
	char *text;
	if (!out)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_PLAN, "loom_history_summary: out is NULL");
	if ((rc = list_history(&s, &k, uri, opts)) < 0)
		return rc;
	sum = json_object();
	tables = json_object();
	runs = json_array();
	json_object_set_new(sum, "schema", json_string("loom.history/1"));
	json_object_set_new(sum, "since_ms", json_integer(since_ms));
	json_object_set_new(sum, "table", table ? json_string(table) : json_null());
	json_object_set_new(sum, "runs", json_integer(0));
	json_object_set_new(sum, "failed_runs", json_integer(0));
	for (i = 0; i < k.n && rc >= 0; i++) {
		loom_run_record *r = NULL;
		if ((rc = load(&r, s, k.v[i])) < 0)
			break;
		if (obs_num(r->root, "started_ms", 0) >= (double)since_ms)
			add_run(sum, tables, runs, r, table);
		loom_run_record_free(r);
	}
	json_object_set_new(sum, "tables", tables);
	json_object_set_new(sum, "run_list", runs);
	keys_free(&k);
	loom_store_free(s);
	if (rc < 0) {
		json_decref(sum);
		return rc;
	}
	text = json_dumps(sum, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	json_decref(sum);
	if (!text || !(*out = loom_strdup(text))) {
		free(text);
		return oom();
	}
	free(text);
	return 0;
}

LOOM_EXTERN(int) loom_history_summary_text(char **out, const char *summary_json)
{
	json_error_t jerr;
	json_t *h, *t;
	loom_buf b = LOOM_BUF_INIT;
	const char *ref;
	int rc = 0;
	if (!out || !summary_json)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_PLAN, "loom_history_summary_text: NULL argument");
	if (!(h = json_loads(summary_json, 0, &jerr)))
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_PLAN, "history summary: not JSON: %s", jerr.text);
	plan_bprintf(&rc, &b, "%lld run(s), %lld with errors\n", (long long)obs_num(h, "runs", 0),
	             (long long)obs_num(h, "failed_runs", 0));
	json_object_foreach(json_object_get(h, "tables"), ref, t) {
		char bc[32], br[32];
		loom_size_format(bc, sizeof(bc), (int64_t)obs_num(t, "bytes_compacted", 0));
		loom_size_format(br, sizeof(br), (int64_t)obs_num(t, "bytes_removed", 0));
		plan_bprintf(&rc, &b, "  %s: %lld runs (%lld failed); compacted %lld files (%s); "
		             "removed %lld files (%s)", ref, (long long)obs_num(t, "runs", 0),
		             (long long)obs_num(t, "failed", 0), (long long)obs_num(t, "files_compacted", 0),
		             bc, (long long)obs_num(t, "files_removed", 0), br);
		if (json_is_object(json_object_get(t, "health_last")))
			plan_bprintf(&rc, &b, "; files %lld -> %lld, small files %lld -> %lld",
			             (long long)obs_num(t, "health_first.files", 0),
			             (long long)obs_num(t, "health_last.files", 0),
			             (long long)obs_num(t, "health_first.small_files", 0),
			             (long long)obs_num(t, "health_last.small_files", 0));
		plan_bprintf(&rc, &b, "\n");
	}
	json_decref(h);
	if (rc < 0 || !b.ptr) {
		loom_buf_dispose(&b);
		return loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_PLAN, "out of memory");
	}
	*out = loom_buf_detach(&b);
	return 0;
}
