/* ops/health/health_json.c - the health and advice as JSON
 * ("loom.health/1", docs/health.md). */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "ops/health/health_int.h"
#include "util/alloc.h"
#include "util/error.h"

static json_t *str_or_null(const char *s)
{
	return s ? json_string(s) : json_null();
}

static json_t *files_json(const loom_health_files *f)
{
	json_t *o = json_object(), *hist = json_array();
	int k;
	json_object_set_new(o, "files", json_integer(f->files));
	json_object_set_new(o, "bytes", json_integer(f->bytes));
	json_object_set_new(o, "rows", json_integer(f->rows));
	json_object_set_new(o, "smallFiles", json_integer(f->small_files));
	json_object_set_new(o, "smallBytes", json_integer(f->small_bytes));
	json_object_set_new(o, "compactableFiles", json_integer(f->compactable_files));
	json_object_set_new(o, "compactableBytes", json_integer(f->compactable_bytes));
	json_object_set_new(o, "filesWithoutStats", json_integer(f->files_without_stats));
	json_object_set_new(o, "dvFiles", json_integer(f->dv_files));
	json_object_set_new(o, "dvDeletedRows", json_integer(f->dv_deleted_rows));
	json_object_set_new(o, "dvPurgeFiles", json_integer(f->dv_purge_files));
	json_object_set_new(o, "dvPurgeBytes", json_integer(f->dv_purge_bytes));
	for (k = 0; k < LOOM_HEALTH_BUCKETS; k++)
		if (f->hist_files[k]) {
			json_t *b = json_object();
			json_object_set_new(b, "minBytes", json_integer(k ? (json_int_t)1 << k : 0));
			json_object_set_new(b, "files", json_integer(f->hist_files[k]));
			json_object_set_new(b, "bytes", json_integer(f->hist_bytes[k]));
			json_array_append_new(hist, b);
		}
	json_object_set_new(o, "histogram", hist);
	return o;
}

static json_t *columns_json(const loom_health_column *c, size_t n)
{
	json_t *a = json_array();
	size_t i;
	for (i = 0; i < n; i++) {
		json_t *o = json_object();
		json_object_set_new(o, "column", json_string(c[i].column));
		json_object_set_new(o, "depth", json_real(c[i].depth));
		json_object_set_new(o, "filesWithMinMax", json_integer(c[i].files));
		json_object_set_new(o, "unclusteredFiles", json_integer(c[i].unclustered_files));
		json_array_append_new(a, o);
	}
	return a;
}

static json_t *strings_json(const char *const *s, size_t n)
{
	json_t *a = json_array();
	size_t i;
	for (i = 0; i < n; i++)
		json_array_append_new(a, json_string(s[i]));
	return a;
}

static json_t *health_json(const loom_health *h)
{
	const loom_health_table *t = &h->t;
	json_t *o = json_object(), *parts = json_array(), *tomb = json_object(), *log = json_object();
	size_t i;
	json_object_set_new(o, "version", json_integer(t->version));
	json_object_set_new(o, "nowMs", json_integer(t->now_ms));
	json_object_set_new(o, "targetSize", json_integer(t->target_size));
	json_object_set_new(o, "numPartitions", json_integer(t->num_partitions));
	json_object_set_new(o, "table", files_json(&t->files));
	json_object_set_new(o, "clusteringSource", str_or_null(t->clustering_source));
	json_object_set_new(o, "clustering", columns_json(t->columns, t->n_columns));
	json_object_set_new(tomb, "retentionMs", json_integer(t->deleted_file_retention_ms));
	json_object_set_new(tomb, "expiredFiles", json_integer(t->tombstones_expired));
	json_object_set_new(tomb, "expiredBytes", json_integer(t->tombstones_expired_bytes));
	json_object_set_new(tomb, "retainedFiles", json_integer(t->tombstones_retained));
	json_object_set_new(tomb, "retainedBytes", json_integer(t->tombstones_retained_bytes));
	json_object_set_new(tomb, "unvacuumedFiles", json_integer(t->tombstones_unvacuumed));
	json_object_set_new(tomb, "unvacuumedBytes", json_integer(t->tombstones_unvacuumed_bytes));
	json_object_set_new(tomb, "lastVacuumMs",
	                    t->last_vacuum_ms >= 0 ? json_integer(t->last_vacuum_ms) : json_null());
	json_object_set_new(o, "tombstones", tomb);
	json_object_set_new(log, "checkpointVersion",
	                    t->checkpoint_version >= 0 ? json_integer(t->checkpoint_version) : json_null());
	json_object_set_new(log, "checkpointInterval", json_integer(t->checkpoint_interval));
	json_object_set_new(log, "commitsSinceCheckpoint", json_integer(t->commits_since_checkpoint));
	json_object_set_new(log, "jsonBytesSinceCheckpoint", json_integer(t->json_bytes_since_checkpoint));
	json_object_set_new(log, "retentionMs", json_integer(t->log_retention_ms));
	json_object_set_new(log, "expiredFiles", json_integer(t->expired_log_files));
	json_object_set_new(log, "expiredBytes", json_integer(t->expired_log_bytes));
	json_object_set_new(log, "cleanupAllowed", json_boolean(t->log_cleanup_allowed));
	json_object_set_new(o, "log", log);
	for (i = 0; i < h->n_parts; i++) {
		json_t *p = files_json(&h->parts[i].pub.files);
		json_object_set_new(p, "partition", json_string(h->parts[i].name));
		json_object_set_new(p, "clustering",
		                    columns_json(h->parts[i].columns, h->parts[i].pub.n_columns));
		json_array_append_new(parts, p);
	}
	json_object_set_new(o, "partitions", parts);
	return o;
}

static json_t *advice_json(const loom_health *h)
{
	json_t *a = json_array();
	size_t i;
	for (i = 0; i < h->n_advice; i++) {
		const loom_advice *ad = &h->advice[i];
		json_t *o = json_object();
		json_object_set_new(o, "op", json_string(ad->op));
		json_object_set_new(o, "recommended", json_boolean(ad->recommended));
		json_object_set_new(o, "reason", str_or_null(ad->reason));
		json_object_set_new(o, "metric", json_string(ad->metric));
		json_object_set_new(o, "value", json_real(ad->value));
		json_object_set_new(o, "threshold", json_real(ad->threshold));
		json_object_set_new(o, "files", json_integer(ad->files));
		json_object_set_new(o, "readBytes", json_integer(ad->read_bytes));
		json_object_set_new(o, "writeBytes", json_integer(ad->write_bytes));
		json_object_set_new(o, "deleteBytes", json_integer(ad->delete_bytes));
		json_object_set_new(o, "partitions", strings_json(ad->partitions, ad->n_partitions));
		if (ad->n_columns)
			json_object_set_new(o, "columns", strings_json(ad->columns, ad->n_columns));
		json_array_append_new(a, o);
	}
	return a;
}

LOOM_EXTERN(int) loom_health_to_json(char **out, const loom_health *h, const char *shown_uri,
                                     unsigned int what)
{
	json_t *o;
	char *text;
	if (!h || !out)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_OPS, "loom_health_to_json: NULL argument");
	*out = NULL;
	o = json_object();
	json_object_set_new(o, "schema", json_string("loom.health/1"));
	json_object_set_new(o, "table", str_or_null(shown_uri));
	if (what & LOOM_HEALTH_JSON_HEALTH)
		json_object_set_new(o, "health", health_json(h));
	if (what & LOOM_HEALTH_JSON_ADVICE)
		json_object_set_new(o, "advice", advice_json(h));
	text = json_dumps(o, JSON_COMPACT | JSON_REAL_PRECISION(6));
	json_decref(o);
	if (!text)
		return loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_OPS, "out of memory rendering health JSON");
	/* hand out loom-allocated memory: callers free with loom_string_free */
	*out = loom_strdup(text);
	free(text);
	return *out ? 0 : loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_OPS, "out of memory");
}
