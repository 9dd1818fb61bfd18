/* ops/optimize/partition_groups.c - live files grouped by partition, in insertion
 * order. */
#include "ops/optimize/partition_groups.h"

#include <stdlib.h>
#include <string.h>

#include "delta/partition.h"
#include "ops/pipeline/pipeline.h"
#include "util/alloc.h"
#include "util/buf.h"
#include "util/error.h"

#define OPS_ERR(code, ...) loom_err((code), LOOM_ERRCLASS_OPS, __VA_ARGS__)

typedef struct keyed {
	const delta_file *f;
	char *pkey;                   /* partition directory: the grouping key */
} keyed;

static int cmp_keyed(const void *a, const void *b)
{
	const keyed *x = a, *y = b;
	int c = strcmp(x->pkey, y->pkey);
	if (c)
		return c;
	if (x->f->version != y->f->version)
		return x->f->version < y->f->version ? -1 : 1;
	if (x->f->modification_time != y->f->modification_time)
		return x->f->modification_time < y->f->modification_time ? -1 : 1;
	return strcmp(x->f->path, y->f->path);
}

static int check_filters(const delta_snapshot *snap, const char *const *filters, size_t n)
{
	size_t i;
	uint32_t k;
	for (i = 0; i < n; i++) {
		const char *eq = filters[i] ? strchr(filters[i], '=') : NULL;
		size_t cl;
		int known = 0;
		if (!eq || eq == filters[i] || (size_t)(eq - filters[i]) >= 256)
			return OPS_ERR(LOOM_EINVAL, "partition filter '%s' is not of the form column=value",
			               filters[i] ? filters[i] : "(null)");
		cl = (size_t)(eq - filters[i]);
		for (k = 0; k < snap->metadata.num_partition_columns; k++) {
			const char *pc = snap->metadata.partition_columns[k];
			if (strlen(pc) == cl && strncmp(pc, filters[i], cl) == 0)
				known = 1;
		}
		if (!known)
			return OPS_ERR(LOOM_EINVAL, "partition filter '%s': '%.*s' is not a partition column of the table",
			               filters[i], (int)cl, filters[i]);
	}
	return 0;
}

static int matches(const delta_snapshot *snap, const delta_file *f, const char *const *filters,
                   size_t n)
{
	size_t i;
	for (i = 0; i < n; i++) {
		const char *eq = strchr(filters[i], '=');
		char col[256];
		size_t cl = (size_t)(eq - filters[i]);
		int found = 0;
		const char *v;
		memcpy(col, filters[i], cl);
		col[cl] = '\0';
		v = delta_partition_raw(snap, f, col, &found);
		if (!v || !*v)
			v = "__HIVE_DEFAULT_PARTITION__";
		if (strcmp(v, eq + 1) != 0)
			return 0;
	}
	return 1;
}

int partition_groups_build(partition_groups *g, const delta_snapshot *snap,
                           const char *const *filters, size_t n_filters)
{
	keyed *ks = NULL;
	loom_buf key = LOOM_BUF_INIT;
	size_t n = 0, i;
	int rc = 0;

	memset(g, 0, sizeof(*g));
	LOOM_TRY(check_filters(snap, filters, n_filters));
	ks = loom_calloc(snap->num_files ? snap->num_files : 1, sizeof(*ks));
	g->files = loom_calloc(snap->num_files ? snap->num_files : 1, sizeof(*g->files));
	g->begin = loom_calloc(snap->num_files + 2, sizeof(*g->begin));
	if (!ks || !g->files || !g->begin) {
		rc = OPS_ERR(LOOM_ENOMEM, "out of memory grouping files by partition");
		goto done;
	}
	for (i = 0; i < snap->num_files; i++) {
		const delta_file *f = snap->files[i];
		if (!matches(snap, f, filters, n_filters))
			continue;
		loom_buf_clear(&key);
		if ((rc = pipe_partition_dir(snap, f, &key)) < 0)
			goto done;
		ks[n].f = f;
		ks[n].pkey = loom_strdup(key.ptr ? key.ptr : "");
		if (!ks[n].pkey) {
			rc = OPS_ERR(LOOM_ENOMEM, "out of memory grouping files by partition");
			goto done;
		}
		n++;
	}
	qsort(ks, n, sizeof(*ks), cmp_keyed);
	for (i = 0; i < n; i++) {
		if (i == 0 || strcmp(ks[i].pkey, ks[i - 1].pkey) != 0)
			g->begin[g->num_groups++] = i;
		g->files[i] = ks[i].f;
	}
	g->begin[g->num_groups] = n;
	g->num_files = n;
done:
	for (i = 0; ks && i < n; i++)
		loom_free(ks[i].pkey);
	loom_free(ks);
	loom_buf_dispose(&key);
	if (rc < 0)
		partition_groups_dispose(g);
	return rc;
}

void partition_groups_dispose(partition_groups *g)
{
	loom_free(g->files);
	loom_free(g->begin);
	memset(g, 0, sizeof(*g));
}
