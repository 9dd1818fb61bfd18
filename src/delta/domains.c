/* delta/domains.c - clustering columns and the row-id high-water mark.
 *
 * Clustering configurations seen in the wild:
 *   {"clusteringColumns": ["a", "b"]}                      (PROTOCOL.md example)
 *   {"clusteringColumns": [["a"], ["s", "x"]]}             (Delta Spark: paths)
 *   {"clusteringColumns": [{"physicalName": ["id"]}], ...} (delta.liquid preview) */
#include "delta/domains.h"

#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "delta/actions.h"
#include "util/buf.h"
#include "util/error.h"

static const delta_domain *find(const delta_domain *d, size_t n, const char *name)
{
	size_t i;
	for (i = 0; i < n; i++)
		if (d[i].domain && strcmp(d[i].domain, name) == 0)
			return &d[i];
	return NULL;
}

/* One column: a string, an array of path parts, or {"physicalName": [...]}. */
static int column_path(json_t *c, loom_buf *out)
{
	size_t i;
	if (json_is_object(c))
		c = json_object_get(c, "physicalName");
	if (json_is_string(c))
		return loom_buf_puts(out, json_string_value(c)) < 0 ? LOOM_ENOMEM : 0;
	if (!json_is_array(c) || json_array_size(c) == 0)
		return 1;
	for (i = 0; i < json_array_size(c); i++) {
		json_t *part = json_array_get(c, i);
		if (!json_is_string(part))
			return 1;
		if ((i && loom_buf_putc(out, '.') < 0) || loom_buf_puts(out, json_string_value(part)) < 0)
			return LOOM_ENOMEM;
	}
	return 0;
}

static int clustering(loom_arena *ar, const delta_domain *d, delta_table_domains *out,
                      const char **warning)
{
	json_t *root = json_loads(d->configuration ? d->configuration : "", 0, NULL);
	json_t *cols = root ? json_object_get(root, "clusteringColumns") : NULL;
	size_t i, n;
	int rc = 0;

	if (!json_is_array(cols)) {
		*warning = "clusteringColumns is not a list";
		goto done;
	}
	n = json_array_size(cols);
	out->clustering_columns = loom_arena_calloc(ar, (n + 1) * sizeof(char *));
	if (!out->clustering_columns) {
		rc = LOOM_ENOMEM;
		goto done;
	}
	for (i = 0; i < n && rc == 0; i++) {
		loom_buf path = LOOM_BUF_INIT;
		rc = column_path(json_array_get(cols, i), &path);
		if (rc == 1) {
			*warning = "a clustering column is neither a name nor a path of names";
			rc = 0;
			out->clustering_columns = NULL;
			loom_buf_dispose(&path);
			break;
		}
		if (rc == 0 && !(out->clustering_columns[i] =
		                     loom_arena_strndup(ar, path.ptr ? path.ptr : "", path.size)))
			rc = LOOM_ENOMEM;
		loom_buf_dispose(&path);
	}
	if (rc == 0 && out->clustering_columns) {
		out->num_clustering_columns = n;
		out->clustering_domain = d->domain;
	}
done:
	json_decref(root);
	return rc;
}

int delta_domains_parse(loom_arena *arena, const delta_domain *domains, size_t n,
                        delta_table_domains *out, const char **warning)
{
	const delta_domain *d;
	const char *why = NULL;
	char msg[300];
	memset(out, 0, sizeof(*out));
	out->row_id_high_water_mark = -1;
	*warning = NULL;

	if ((d = find(domains, n, "delta.clustering")) || (d = find(domains, n, "delta.liquid"))) {
		if (clustering(arena, d, out, &why) < 0)
			return loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_OS, "out of memory reading domain %s",
			                d->domain);
		if (why) {
			snprintf(msg, sizeof(msg), "domain %s not understood: %s", d->domain, why);
			*warning = loom_arena_strdup(arena, msg);
		}
	}
	if ((d = find(domains, n, "delta.rowTracking"))) {
		json_t *root = json_loads(d->configuration ? d->configuration : "", 0, NULL);
		json_t *hwm = root ? json_object_get(root, "rowIdHighWaterMark") : NULL;
		if (json_is_integer(hwm))
			out->row_id_high_water_mark = json_integer_value(hwm);
		else if (!*warning)
			*warning = loom_arena_strdup(arena, "domain delta.rowTracking not understood: "
			                                    "no integer rowIdHighWaterMark");
		json_decref(root);
	}
	return 0;
}

/* The logical path of physical path `p` under struct `st`, appended to
 * `out`; 1 when some part is not in the schema. A physical name may hold
 * dots, so each level takes the field whose name is a whole prefix. */
static int logical_path(const delta_type *st, const char *p, int column_mapping, loom_buf *out)
{
	while (st && st->kind == DELTA_T_STRUCT) {
		const delta_field *hit = NULL;
		size_t i, len = 0;
		for (i = 0; i < st->num_fields; i++) {
			const char *phys = delta_field_physical_name(&st->fields[i], column_mapping);
			size_t n = strlen(phys);
			if (n > len && strncmp(p, phys, n) == 0 && (p[n] == '\0' || p[n] == '.')) {
				hit = &st->fields[i];
				len = n;
			}
		}
		if (!hit)
			return 1;
		if ((out->size && loom_buf_putc(out, '.') < 0) || loom_buf_puts(out, hit->name) < 0)
			return LOOM_ENOMEM;
		if (p[len] == '\0')
			return 0;
		p += len + 1;
		st = hit->type;
	}
	return 1;
}

int delta_domains_resolve_logical(loom_arena *arena, delta_table_domains *out,
                                  const delta_schema *schema, int column_mapping)
{
	size_t i, n = out->num_clustering_columns;
	if (!out->clustering_columns)
		return 0;
	if (!(out->clustering_logical = loom_arena_calloc(arena, (n + 1) * sizeof(char *))))
		return LOOM_ENOMEM;
	for (i = 0; i < n; i++) {
		loom_buf b = LOOM_BUF_INIT;
		int rc = logical_path(&schema->root, out->clustering_columns[i], column_mapping, &b);
		if (rc == 0 && !(out->clustering_logical[i] = loom_arena_strndup(arena, b.ptr ? b.ptr : "", b.size)))
			rc = LOOM_ENOMEM;
		loom_buf_dispose(&b);
		if (rc < 0)
			return loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_OS,
			                "out of memory resolving the clustering columns");
	}
	return 0;
}
