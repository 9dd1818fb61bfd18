/* plan/yopts.c - operation options from YAML (see yopts.h). */
#include "plan/yopts.h"

#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "util/alloc.h"
#include "util/buf.h"
#include "util/error.h"

/* The switch `key` of the mapping `v`, if present: plain true or false
 * only (ydoc_bool); messages name it "section.key". */
static int read_switch(ydoc *d, yaml_node_t *v, const char *section, const char *key, int *out)
{
	char what[128];
	yaml_node_t *x = ydoc_get(d, v, key, NULL);
	if (!x)
		return 0;
	snprintf(what, sizeof(what), "%s.%s", section, key);
	return ydoc_bool(d, x, what, out);
}

int yopts_vacuum(ydoc *d, yaml_node_t *v, const char *section, loom_vacuum_opts *out)
{
	static const char *const keys[] = { "retention_hours", "dry_run", "full", NULL };
	yaml_node_t *x;
	loom_vacuum_opts_init(out, LOOM_VACUUM_OPTS_VERSION);
	if (ydoc_is_null(v))
		return 0;
	if (!ydoc_is_map(v))
		return ydoc_err(d, v, "%s: expected a mapping (or nothing for the defaults)", section);
	LOOM_TRY(ydoc_check_keys(d, v, section, keys));
	if ((x = ydoc_get(d, v, "retention_hours", NULL)) && !ydoc_is_null(x)) {
		LOOM_TRY(ydoc_int(d, x, "retention_hours", &out->retention_hours));
		if (out->retention_hours < 0)
			return ydoc_err(d, x, "%s.retention_hours must be >= 0", section);
	}
	LOOM_TRY(read_switch(d, v, section, "dry_run", &out->dry_run));
	return read_switch(d, v, section, "full", &out->full);
}

int yopts_compact(ydoc *d, yaml_node_t *v, const char *section, loom_compact_opts *out)
{
	static const char *const keys[] = { "target_size", NULL };
	char what[128];
	yaml_node_t *x;
	loom_compact_opts_init(out, LOOM_COMPACT_OPTS_VERSION);
	if (ydoc_is_null(v))
		return 0;
	if (!ydoc_is_map(v))
		return ydoc_err(d, v, "%s: expected a mapping (or nothing for the defaults)", section);
	LOOM_TRY(ydoc_check_keys(d, v, section, keys));
	snprintf(what, sizeof(what), "%s.target_size", section);
	if ((x = ydoc_get(d, v, "target_size", NULL)) && !ydoc_is_null(x))
		LOOM_TRY(ydoc_size(d, x, what, &out->target_size));
	return 0;
}

void yopts_zorder_dispose(zorder_yaml *z)
{
	size_t i;
	for (i = 0; z->cols && i < z->n_cols; i++)
		loom_free(z->cols[i]);
	loom_free(z->cols);
	loom_free(z->temp_dir);
	memset(z, 0, sizeof(*z));
	loom_zorder_opts_init(&z->opts, LOOM_ZORDER_OPTS_VERSION);
}

/* The mapping form's keys other than `columns`. */
static int zorder_settings(ydoc *d, yaml_node_t *v, const char *section, zorder_yaml *z)
{
	static const char *const keys[] = { "columns", "target_size", "curve", "memory",
		                                "temp_dir", "spill_limit", "full", "dry_run", NULL };
	loom_buf b = LOOM_BUF_INIT;
	char what[128];
	yaml_node_t *x;
	int rc = 0;

	LOOM_TRY(ydoc_check_keys(d, v, section, keys));
	snprintf(what, sizeof(what), "%s.target_size", section);
	if ((x = ydoc_get(d, v, "target_size", NULL)) && !ydoc_is_null(x))
		LOOM_TRY(ydoc_size(d, x, what, &z->opts.target_size));
	snprintf(what, sizeof(what), "%s.memory", section);
	if ((x = ydoc_get(d, v, "memory", NULL)) && !ydoc_is_null(x))
		LOOM_TRY(ydoc_size(d, x, what, &z->opts.memory_budget));
	snprintf(what, sizeof(what), "%s.spill_limit", section);
	if ((x = ydoc_get(d, v, "spill_limit", NULL)) && !ydoc_is_null(x))
		LOOM_TRY(ydoc_size(d, x, what, &z->opts.spill_limit));
	LOOM_TRY(read_switch(d, v, section, "full", &z->opts.full));
	LOOM_TRY(read_switch(d, v, section, "dry_run", &z->opts.dry_run));
	if ((x = ydoc_get(d, v, "curve", NULL)) && !ydoc_is_null(x)) {
		snprintf(what, sizeof(what), "%s.curve", section);
		if ((rc = ydoc_string(d, x, what, &b)) == 0 &&
		    loom_zorder_curve_from_name(&z->opts.curve, b.ptr) < 0)
			rc = ydoc_err(d, x, "%s: expected z or hilbert, got '%s'", what, b.ptr);
	}
	if (rc == 0 && (x = ydoc_get(d, v, "temp_dir", NULL)) && !ydoc_is_null(x)) {
		snprintf(what, sizeof(what), "%s.temp_dir", section);
		if ((rc = ydoc_string(d, x, what, &b)) == 0 && !b.size)
			rc = ydoc_err(d, x, "%s is empty", what);
		if (rc == 0 && !(z->temp_dir = loom_buf_detach(&b)))
			rc = loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_CONFIG, "out of memory");
		z->opts.temp_dir = z->temp_dir;
	}
	loom_buf_dispose(&b);
	return rc;
}

int yopts_zorder(ydoc *d, yaml_node_t *v, const char *section, zorder_yaml *z)
{
	yaml_node_t *list = v;
	yaml_node_item_t *it;
	loom_buf b = LOOM_BUF_INIT;
	size_t j;
	int rc = 0;

	memset(z, 0, sizeof(*z));
	loom_zorder_opts_init(&z->opts, LOOM_ZORDER_OPTS_VERSION);
	if (ydoc_is_map(v)) {
		LOOM_TRY(zorder_settings(d, v, section, z));
		if (!(list = ydoc_get(d, v, "columns", NULL)))
			return ydoc_err(d, v, "%s: no columns", section);
	}
	if (!ydoc_is_seq(list))
		return ydoc_err(d, list, "%s: expected a list of columns", section);
	if (list->data.sequence.items.top == list->data.sequence.items.start)
		return ydoc_err(d, list, "%s: the column list is empty", section);
	z->cols = loom_calloc((size_t)(list->data.sequence.items.top - list->data.sequence.items.start),
	                      sizeof(char *));
	if (!z->cols)
		return loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_CONFIG, "out of memory");
	for (it = list->data.sequence.items.start; it < list->data.sequence.items.top; it++) {
		yaml_node_t *c = ydoc_node(d, *it);
		if ((rc = ydoc_string(d, c, "z_order_by column", &b)) < 0)
			break;
		if (!b.size) {
			rc = ydoc_err(d, c, "%s: empty column name", section);
			break;
		}
		for (j = 0; j < z->n_cols; j++)
			if (strcmp(z->cols[j], b.ptr) == 0)
				break;
		if (j < z->n_cols) {
			rc = ydoc_err(d, c, "%s: column '%s' is listed twice", section, b.ptr);
			break;
		}
		if (!(z->cols[z->n_cols] = loom_strdup(b.ptr))) {
			rc = loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_CONFIG, "out of memory");
			break;
		}
		z->n_cols++;
	}
	loom_buf_dispose(&b);
	z->opts.columns = (const char *const *)z->cols;
	z->opts.n_columns = z->n_cols;
	return rc;
}

/* ---- purge and analyze ------------------------------------------------------ */

static void strv_dispose(char **v, size_t n)
{
	size_t i;
	for (i = 0; v && i < n; i++)
		loom_free(v[i]);
	loom_free(v);
}

/* `section.key`: a list of non-empty strings, none twice; `check` (may be
 * NULL) refuses an item with a message of its own. */
static int read_strlist(ydoc *d, yaml_node_t *v, const char *section, const char *key,
                        const char *(*check)(const char *item), char ***out, size_t *n)
{
	yaml_node_t *list = ydoc_get(d, v, key, NULL);
	yaml_node_item_t *it;
	loom_buf b = LOOM_BUF_INIT;
	char what[160];
	size_t j;
	int rc = 0;

	if (!list || ydoc_is_null(list))
		return 0;
	snprintf(what, sizeof(what), "%s.%s", section, key);
	if (!ydoc_is_seq(list))
		return ydoc_err(d, list, "%s: expected a list", what);
	if (!(*out = loom_calloc((size_t)(list->data.sequence.items.top -
	                                  list->data.sequence.items.start) + 1, sizeof(char *))))
		return loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_CONFIG, "out of memory");
	for (it = list->data.sequence.items.start; it < list->data.sequence.items.top; it++) {
		yaml_node_t *c = ydoc_node(d, *it);
		const char *why;
		if ((rc = ydoc_string(d, c, what, &b)) < 0)
			break;
		if (!b.size) {
			rc = ydoc_err(d, c, "%s: empty entry", what);
			break;
		}
		if (check && (why = check(b.ptr))) {
			rc = ydoc_err(d, c, "%s: '%s' %s", what, b.ptr, why);
			break;
		}
		for (j = 0; j < *n; j++)
			if (strcmp((*out)[j], b.ptr) == 0)
				break;
		if (j < *n) {
			rc = ydoc_err(d, c, "%s: '%s' is listed twice", what, b.ptr);
			break;
		}
		if (!((*out)[*n] = loom_strdup(b.ptr))) {
			rc = loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_CONFIG, "out of memory");
			break;
		}
		(*n)++;
	}
	loom_buf_dispose(&b);
	return rc;
}

static const char *partition_filter_check(const char *item)
{
	const char *eq = strchr(item, '=');
	return !eq || eq == item ? "is not a partition filter: expected column=value" : NULL;
}

void yopts_purge_dispose(purge_yaml *p)
{
	strv_dispose(p->filters, p->n_filters);
	memset(p, 0, sizeof(*p));
	loom_purge_opts_init(&p->opts, LOOM_PURGE_OPTS_VERSION);
}

int yopts_purge(ydoc *d, yaml_node_t *v, const char *section, purge_yaml *out)
{
	static const char *const keys[] = { "partition", "target_size", "dry_run", NULL };
	char what[128];
	yaml_node_t *x;
	memset(out, 0, sizeof(*out));
	loom_purge_opts_init(&out->opts, LOOM_PURGE_OPTS_VERSION);
	if (ydoc_is_null(v))
		return 0;
	if (!ydoc_is_map(v))
		return ydoc_err(d, v, "%s: expected a mapping {partition, target_size, dry_run} (or "
		                "nothing for the defaults)", section);
	LOOM_TRY(ydoc_check_keys(d, v, section, keys));
	LOOM_TRY(read_strlist(d, v, section, "partition", partition_filter_check, &out->filters,
	                      &out->n_filters));
	out->opts.partition_filters = (const char *const *)out->filters;
	out->opts.n_partition_filters = out->n_filters;
	snprintf(what, sizeof(what), "%s.target_size", section);
	if ((x = ydoc_get(d, v, "target_size", NULL)) && !ydoc_is_null(x))
		LOOM_TRY(ydoc_size(d, x, what, &out->opts.target_size));
	return read_switch(d, v, section, "dry_run", &out->opts.dry_run);
}

void yopts_analyze_dispose(analyze_yaml *a)
{
	strv_dispose(a->cols, a->n_cols);
	memset(a, 0, sizeof(*a));
	loom_analyze_opts_init(&a->opts, LOOM_ANALYZE_OPTS_VERSION);
}

int yopts_analyze(ydoc *d, yaml_node_t *v, const char *section, analyze_yaml *out)
{
	static const char *const keys[] = { "columns", "all", "dry_run", NULL };
	memset(out, 0, sizeof(*out));
	loom_analyze_opts_init(&out->opts, LOOM_ANALYZE_OPTS_VERSION);
	if (ydoc_is_null(v))
		return 0;
	if (!ydoc_is_map(v))
		return ydoc_err(d, v, "%s: expected a mapping {columns, all, dry_run} (or nothing "
		                "for the defaults)", section);
	LOOM_TRY(ydoc_check_keys(d, v, section, keys));
	LOOM_TRY(read_strlist(d, v, section, "columns", NULL, &out->cols, &out->n_cols));
	out->opts.columns = (const char *const *)out->cols;
	out->opts.n_columns = out->n_cols;
	LOOM_TRY(read_switch(d, v, section, "all", &out->opts.all));
	return read_switch(d, v, section, "dry_run", &out->opts.dry_run);
}

/* ---- auto ------------------------------------------------------------------ */

/* A plain number (a ratio or depth): finite, nothing after it. */
static int read_number(ydoc *d, yaml_node_t *x, const char *what, double *out)
{
	loom_buf b = LOOM_BUF_INIT;
	char *end;
	int rc = ydoc_string(d, x, what, &b);
	if (rc == 0) {
		errno = 0;
		*out = strtod(b.ptr, &end);
		if (!b.ptr[0] || *end || errno || !isfinite(*out))
			rc = ydoc_err(d, x, "%s: expected a number, got '%s'", what, b.ptr);
	}
	loom_buf_dispose(&b);
	return rc;
}

/* A byte count that may be 0 ("no trigger"): 0, else a size with units. */
static int read_bytes0(ydoc *d, yaml_node_t *x, const char *what, int64_t *out)
{
	const char *raw = ydoc_raw(x);
	if (raw && strcmp(raw, "0") == 0) {
		*out = 0;
		return 0;
	}
	return ydoc_size(d, x, what, out);
}

enum { POL_SIZE, POL_BYTES0, POL_COUNT, POL_NUMBER };

/* Every threshold of the health policy (docs/health.md), by its C name. */
static const struct pol_key {
	const char *key;
	int type;
	size_t offset;
} pol_keys[] = {
	{ "target_size", POL_SIZE, offsetof(loom_health_policy, target_size) },
	{ "min_small_files", POL_COUNT, offsetof(loom_health_policy, min_small_files) },
	{ "dv_purge_ratio", POL_NUMBER, offsetof(loom_health_policy, dv_purge_ratio) },
	{ "min_dv_files", POL_COUNT, offsetof(loom_health_policy, min_dv_files) },
	{ "max_clustering_depth", POL_NUMBER, offsetof(loom_health_policy, max_clustering_depth) },
	{ "checkpoint_commits", POL_COUNT, offsetof(loom_health_policy, checkpoint_commits) },
	{ "checkpoint_json_bytes", POL_BYTES0, offsetof(loom_health_policy, checkpoint_json_bytes) },
	{ "min_vacuum_files", POL_COUNT, offsetof(loom_health_policy, min_vacuum_files) },
	{ "min_expired_logs", POL_COUNT, offsetof(loom_health_policy, min_expired_logs) },
	{ "min_files_without_stats", POL_COUNT, offsetof(loom_health_policy, min_files_without_stats) },
};
#define N_POL_KEYS (sizeof(pol_keys) / sizeof(pol_keys[0]))

static int read_policy_key(ydoc *d, yaml_node_t *x, const struct pol_key *k, const char *what,
                           loom_health_policy *p)
{
	char *field = (char *)p + k->offset;
	switch (k->type) {
	case POL_SIZE:
		return ydoc_size(d, x, what, (int64_t *)(void *)field);
	case POL_BYTES0:
		return read_bytes0(d, x, what, (int64_t *)(void *)field);
	case POL_COUNT:
		return ydoc_int(d, x, what, (int64_t *)(void *)field);
	default:
		return read_number(d, x, what, (double *)(void *)field);
	}
}

int yopts_auto(ydoc *d, yaml_node_t *v, const char *section, int *on, loom_health_policy *policy)
{
	const char *keys[N_POL_KEYS + 1];
	size_t i;

	loom_health_policy_init(policy, LOOM_HEALTH_POLICY_VERSION);
	*on = 1;
	if (ydoc_is_null(v))
		return 0;   /* `auto:` with nothing: on, the default policy */
	if (ydoc_is_scalar(v)) {
		const char *raw = ydoc_raw(v);
		static const char *const words[] = { "true", "false", "yes", "no", "on", "off", NULL };
		for (i = 0; words[i]; i++)
			if (v->data.scalar.style == YAML_PLAIN_SCALAR_STYLE && strcasecmp(raw, words[i]) == 0)
				return ydoc_bool(d, v, section, on);
		return ydoc_err(d, v, "%s: expected true, false or a mapping of policy thresholds "
		                "{target_size, min_small_files, dv_purge_ratio, min_dv_files, "
		                "max_clustering_depth, checkpoint_commits, checkpoint_json_bytes, "
		                "min_vacuum_files, min_expired_logs, min_files_without_stats}, got %s'%s'", section,
		                v->data.scalar.style == YAML_PLAIN_SCALAR_STYLE ? "" : "the string ",
		                raw ? raw : "");
	}
	if (!ydoc_is_map(v))
		return ydoc_err(d, v, "%s: expected true, false or a mapping of policy thresholds",
		                section);
	for (i = 0; i < N_POL_KEYS; i++)
		keys[i] = pol_keys[i].key;
	keys[N_POL_KEYS] = NULL;
	LOOM_TRY(ydoc_check_keys(d, v, section, keys));
	for (i = 0; i < N_POL_KEYS; i++) {
		char what[160];
		yaml_node_t *x = ydoc_get(d, v, pol_keys[i].key, NULL);
		if (!x || ydoc_is_null(x))
			continue;
		snprintf(what, sizeof(what), "%s.%s", section, pol_keys[i].key);
		LOOM_TRY(read_policy_key(d, x, &pol_keys[i], what, policy));
		/* The defaults pass the check, so a failure now is this key's:
		 * report it at this key's line with the library's own rule. */
		if (loom_health_policy_check(policy) < 0) {
			const loom_error *e = loom_error_last();
			const char *msg = e ? e->message : "out of range";
			if (strncmp(msg, "health policy: ", 15) == 0)
				msg += 15;
			return ydoc_err(d, x, "%s: %s", what, msg);
		}
	}
	return 0;
}
