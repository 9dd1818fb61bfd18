/* plan/yopts.c - operation options from YAML (see yopts.h). */
#include "plan/yopts.h"

#include <string.h>

#include "util/alloc.h"
#include "util/buf.h"
#include "util/error.h"

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
	if ((x = ydoc_get(d, v, "dry_run", NULL)))
		LOOM_TRY(ydoc_bool(d, x, "dry_run", &out->dry_run));
	if ((x = ydoc_get(d, v, "full", NULL)))
		LOOM_TRY(ydoc_bool(d, x, "full", &out->full));
	return 0;
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

void yopts_free_columns(char **cols, size_t n)
{
	size_t i;
	for (i = 0; cols && i < n; i++)
		loom_free(cols[i]);
	loom_free(cols);
}

int yopts_zorder(ydoc *d, yaml_node_t *v, const char *section, char ***cols,
                 size_t *n_cols, int64_t *target_size)
{
	static const char *const keys[] = { "columns", "target_size", NULL };
	yaml_node_t *list = v, *x;
	yaml_node_item_t *it;
	loom_buf b = LOOM_BUF_INIT;
	char what[128];
	char **names;
	size_t n = 0, j;
	int rc = 0;

	*cols = NULL;
	*n_cols = 0;
	*target_size = 0;
	if (ydoc_is_map(v)) {
		LOOM_TRY(ydoc_check_keys(d, v, section, keys));
		if (!(list = ydoc_get(d, v, "columns", NULL)))
			return ydoc_err(d, v, "%s: no columns", section);
		snprintf(what, sizeof(what), "%s.target_size", section);
		if ((x = ydoc_get(d, v, "target_size", NULL)) && !ydoc_is_null(x))
			LOOM_TRY(ydoc_size(d, x, what, target_size));
	}
	if (!ydoc_is_seq(list))
		return ydoc_err(d, list, "%s: expected a list of columns", section);
	if (list->data.sequence.items.top == list->data.sequence.items.start)
		return ydoc_err(d, list, "%s: the column list is empty", section);
	names = loom_calloc((size_t)(list->data.sequence.items.top - list->data.sequence.items.start),
	                    sizeof(char *));
	if (!names)
		return loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_CONFIG, "out of memory");
	for (it = list->data.sequence.items.start; it < list->data.sequence.items.top; it++) {
		yaml_node_t *c = ydoc_node(d, *it);
		if ((rc = ydoc_string(d, c, "z_order_by column", &b)) < 0)
			break;
		if (!b.size) {
			rc = ydoc_err(d, c, "%s: empty column name", section);
			break;
		}
		for (j = 0; j < n; j++)
			if (strcmp(names[j], b.ptr) == 0)
				break;
		if (j < n) {
			rc = ydoc_err(d, c, "%s: column '%s' is listed twice", section, b.ptr);
			break;
		}
		if (!(names[n] = loom_strdup(b.ptr))) {
			rc = loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_CONFIG, "out of memory");
			break;
		}
		n++;
	}
	loom_buf_dispose(&b);
	if (rc < 0) {
		yopts_free_columns(names, n);
		return rc;
	}
	*cols = names;
	*n_cols = n;
	return 0;
}
