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
		LOOM_TRY(clustering(arena, d, out, &why));
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
