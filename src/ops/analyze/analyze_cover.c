/* ops/analyze/analyze_cover.c - does a file's statistics cover the table's
 * stats columns (analyze.h)? The columns a file should have stats for are
 * what delta_stats_json would write for it now: a skeleton (every leaf with
 * a null count, no values) is built from the file's mapped leaves and each
 * of its nullCount entries looked up in the file's stats. nullCount is the
 * test because Delta writes it for every stats column, min/max only for
 * some types and only when a value is not null. */
#include <jansson.h>
#include <string.h>

#include "delta/schema.h"
#include "ops/analyze/analyze.h"
#include "util/alloc.h"
#include "util/error.h"

#define OPS_ERR(code, ...) loom_err((code), LOOM_ERRCLASS_OPS, __VA_ARGS__)
#define MAX_DEPTH 32

void analyze_columns_dispose(analyze_columns *c)
{
	size_t i;
	for (i = 0; c->paths && i < c->n; i++)
		loom_free(c->paths[i]);
	loom_free(c->paths);
	loom_free(c->depth);
	loom_free(c->matched);
	memset(c, 0, sizeof(*c));
}

static const delta_field *field_named(const delta_type *t, const char *name, size_t len)
{
	size_t i;
	if (!t || t->kind != DELTA_T_STRUCT)
		return NULL;
	for (i = 0; i < t->num_fields; i++)
		if (strlen(t->fields[i].name) == len && strncmp(t->fields[i].name, name, len) == 0)
			return &t->fields[i];
	return NULL;
}

int analyze_columns_resolve(analyze_columns *c, const delta_snapshot *snap, const char *const *names, size_t n)
{
	int cm = delta_snapshot_column_mapping(snap);
	size_t i;
	memset(c, 0, sizeof(*c));
	if (n == 0)
		return 0;
	c->paths = loom_calloc(n, sizeof(*c->paths));
	c->depth = loom_calloc(n, sizeof(*c->depth));
	c->matched = loom_calloc(n, sizeof(*c->matched));
	if (!c->paths || !c->depth || !c->matched) {
		analyze_columns_dispose(c);
		return OPS_ERR(LOOM_ENOMEM, "out of memory");
	}
	c->n = n;
	for (i = 0; i < n; i++) {
		const delta_type *t = &snap->schema.root;
		const char *p = names[i];
		c->paths[i] = loom_calloc(MAX_DEPTH, sizeof(char *));
		if (!c->paths[i]) {
			analyze_columns_dispose(c);
			return OPS_ERR(LOOM_ENOMEM, "out of memory");
		}
		for (;;) {
			const char *dot = strchr(p, '.');
			size_t len = dot ? (size_t)(dot - p) : strlen(p);
			const delta_field *f = field_named(t, p, len);
			if (!f || c->depth[i] == MAX_DEPTH) {
				analyze_columns_dispose(c);
				return OPS_ERR(LOOM_EINVAL, "analyze: column '%s' is not in the table's schema", names[i]);
			}
			c->paths[i][c->depth[i]++] = (char *)delta_field_physical_name(f, cm);
			if (!dot)
				break;
			t = f->type;
			p = dot + 1;
		}
	}
	return 0;
}

/* Whether the leaf at path[0..depth) is one the caller asked about (a
 * column names itself and every leaf under it). */
static int selected(analyze_columns *cols, const char *const *path, size_t depth)
{
	size_t i, j;
	int any = 0;
	if (!cols || cols->n == 0)
		return 1;
	for (i = 0; i < cols->n; i++) {
		if (cols->depth[i] > depth)
			continue;
		for (j = 0; j < cols->depth[i] && strcmp(cols->paths[i][j], path[j]) == 0; j++)
			;
		if (j == cols->depth[i]) {
			cols->matched[i]++;
			any = 1;
		}
	}
	return any;
}

/* Every leaf of `want` (a nullCount object) present in `have`. */
static int covers(json_t *want, json_t *have, const char **path, size_t depth, analyze_columns *cols)
{
	const char *k;
	json_t *v;
	int ok = 1;
	json_object_foreach(want, k, v) {
		json_t *h = json_is_object(have) ? json_object_get(have, k) : NULL;
		if (depth >= MAX_DEPTH)
			return 0;
		path[depth] = k;
		if (json_is_object(v)) {
			if (!covers(v, h, path, depth + 1, cols))
				ok = 0;
		} else if (selected(cols, path, depth + 1) && !json_is_integer(h)) {
			ok = 0;
		}
	}
	return ok;
}

int analyze_file_covered(analyze_file *af, const delta_stats_opts *so, analyze_columns *cols)
{
	size_t n = af->ps.data_leaves, i;
	delta_stats_leaf *leaves;
	loom_buf text = LOOM_BUF_INIT;
	json_t *want = NULL, *have = NULL;
	const char *path[MAX_DEPTH];
	int rc;

	if (!af->f->stats)
		return 0;
	have = json_loads(af->f->stats, 0, NULL);
	if (!json_is_object(have) || !json_is_integer(json_object_get(have, "numRecords"))) {
		json_decref(have);
		return 0; /* unreadable stats are no stats */
	}
	leaves = loom_calloc(n + 1, sizeof(*leaves));
	if (!leaves) {
		json_decref(have);
		return OPS_ERR(LOOM_ENOMEM, "out of memory");
	}
	for (i = 0; i < n; i++) {
		delta_stats_leaf_from_schema(&leaves[i], af->ps.schema, i);
		leaves[i].null_count = leaves[i].complex ? -1 : 0;
	}
	rc = delta_stats_json(&text, 0, leaves, n, so);
	loom_free(leaves);
	if (rc == 0) {
		want = json_loads(text.ptr ? text.ptr : "{}", 0, NULL);
		if (!want)
			rc = OPS_ERR(LOOM_ENOMEM, "out of memory");
	}
	if (rc == 0)
		rc = covers(json_object_get(want, "nullCount"), json_object_get(have, "nullCount"), path, 0, cols);
	json_decref(want);
	json_decref(have);
	loom_buf_dispose(&text);
	return rc;
}
