/* plan/json.c - JSON strings that never vanish on invalid UTF-8. */
#include <jansson.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "loom/health.h"
#include "plan/plan_int.h"
#include "util/buf.h"

json_t *plan_json_str(const char *s)
{
	json_t *j;
	char *copy;
	size_t i, n;
	if (!s)
		return json_null();
	j = json_string(s);
	if (j)
		return j;
	/* not valid UTF-8: keep ASCII, replace every other byte */
	n = strlen(s);
	copy = malloc(n + 1);
	if (!copy)
		return json_null();
	for (i = 0; i < n; i++)
		copy[i] = (unsigned char)s[i] < 0x80 ? s[i] : '?';
	copy[n] = '\0';
	j = json_string(copy);
	free(copy);
	return j ? j : json_null();
}

void plan_bprintf(int *rc, loom_buf *b, const char *fmt, ...)
{
	va_list ap;
	int r;
	if (*rc < 0)
		return;
	va_start(ap, fmt);
	r = loom_buf_vprintf(b, fmt, ap);
	va_end(ap);
	if (r < 0)
		*rc = r;
}

static json_t *size_or_null(int64_t v)
{
	return v ? json_integer(v) : json_null();
}

static json_t *strv_json(const char *const *v, size_t n)
{
	json_t *a = json_array();
	size_t i;
	for (i = 0; v && i < n; i++)
		json_array_append_new(a, plan_json_str(v[i]));
	return a;
}

json_t *plan_zorder_json(const loom_zorder_opts *z)
{
	json_t *o = json_object();
	const char *curve = loom_zorder_curve_name(z->curve);
	json_object_set_new(o, "columns", strv_json(z->columns, z->n_columns));
	json_object_set_new(o, "target_size", size_or_null(z->target_size));
	json_object_set_new(o, "curve", plan_json_str(curve ? curve : "?"));
	json_object_set_new(o, "memory", size_or_null(z->memory_budget));
	json_object_set_new(o, "temp_dir", plan_json_str(z->temp_dir));
	json_object_set_new(o, "spill_limit", size_or_null(z->spill_limit));
	json_object_set_new(o, "full", json_boolean(z->full));
	json_object_set_new(o, "dry_run", json_boolean(z->dry_run));
	return o;
}

json_t *plan_purge_json(const loom_purge_opts *p)
{
	json_t *o = json_object();
	json_object_set_new(o, "partition", strv_json(p->partition_filters, p->n_partition_filters));
	json_object_set_new(o, "target_size", size_or_null(p->target_size));
	json_object_set_new(o, "dry_run", json_boolean(p->dry_run));
	return o;
}

json_t *plan_analyze_json(const loom_analyze_opts *a)
{
	json_t *o = json_object();
	json_object_set_new(o, "columns", strv_json(a->columns, a->n_columns));
	json_object_set_new(o, "all", json_boolean(a->all));
	json_object_set_new(o, "dry_run", json_boolean(a->dry_run));
	return o;
}

json_t *plan_policy_json(const struct loom_health_policy *p)
{
	json_t *o = json_object();
	json_object_set_new(o, "target_size", size_or_null(p->target_size));
	json_object_set_new(o, "min_small_files", json_integer(p->min_small_files));
	json_object_set_new(o, "dv_purge_ratio", json_real(p->dv_purge_ratio));
	json_object_set_new(o, "min_dv_files", json_integer(p->min_dv_files));
	json_object_set_new(o, "max_clustering_depth", json_real(p->max_clustering_depth));
	json_object_set_new(o, "checkpoint_commits", json_integer(p->checkpoint_commits));
	json_object_set_new(o, "checkpoint_json_bytes", json_integer(p->checkpoint_json_bytes));
	json_object_set_new(o, "min_vacuum_files", json_integer(p->min_vacuum_files));
	json_object_set_new(o, "min_expired_logs", json_integer(p->min_expired_logs));
	json_object_set_new(o, "min_files_without_stats", json_integer(p->min_files_without_stats));
	return o;
}
