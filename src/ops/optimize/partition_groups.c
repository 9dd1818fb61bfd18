/* ops/optimize/partition_groups.c - live files grouped by partition, in insertion
 * order.
 *
 * One pass over the files gives each a group (its partition directory,
 * looked up in a map of the distinct directories); the positions are then
 * placed group by group (a counting sort, groups in directory order) and
 * each group sorted on its own. Besides the 4-byte positions it keeps one
 * 4-byte group number per live file while it runs. */
#include "ops/optimize/partition_groups.h"

#include <stdlib.h>
#include <string.h>

#include "delta/partition.h"
#include "ops/pipeline/pipeline.h"
#include "util/alloc.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/hashmap.h"

#define OPS_ERR(code, ...) loom_err((code), LOOM_ERRCLASS_OPS, __VA_ARGS__)
#define NO_GROUP UINT32_MAX

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

/* The distinct partition directories met so far. */
typedef struct dir_set {
	loom_map ids;                 /* directory -> group number + 1 */
	char **names;                 /* by group number */
	size_t *count;                /* files per group number */
	size_t n, cap;
} dir_set;

static int dir_group(dir_set *d, const char *dir, uint32_t *group)
{
	uintptr_t id = (uintptr_t)loom_map_gets(&d->ids, dir);
	if (id) {
		*group = (uint32_t)(id - 1);
		return 0;
	}
	if (d->n == d->cap) {
		size_t cap = d->cap ? d->cap * 2 : 16;
		char **names = loom_reallocarray(d->names, cap, sizeof(*names));
		size_t *count;
		if (!names)
			return OPS_ERR(LOOM_ENOMEM, "out of memory grouping files by partition");
		d->names = names;
		if (!(count = loom_reallocarray(d->count, cap, sizeof(*count))))
			return OPS_ERR(LOOM_ENOMEM, "out of memory grouping files by partition");
		d->count = count;
		d->cap = cap;
	}
	if (!(d->names[d->n] = loom_strdup(dir)) ||
	    loom_map_puts(&d->ids, d->names[d->n], (void *)(uintptr_t)(d->n + 1)) < 0) {
		loom_free(d->names[d->n]);
		return OPS_ERR(LOOM_ENOMEM, "out of memory grouping files by partition");
	}
	d->count[d->n] = 0;
	*group = (uint32_t)d->n++;
	return 0;
}

static void dir_set_dispose(dir_set *d)
{
	size_t i;
	for (i = 0; i < d->n; i++)
		loom_free(d->names[i]);
	loom_free(d->names);
	loom_free(d->count);
	loom_map_dispose(&d->ids);
}

/* group_of[i]: the group of live file i, or NO_GROUP when a filter leaves
 * it out. Files sharing their partition values array (the index keeps one
 * per distinct tuple) share the answer without rendering it again. */
static int assign_groups(const delta_snapshot *snap, const char *const *filters, size_t n_filters,
                         dir_set *d, uint32_t *group_of)
{
	delta_file_scratch sc;
	loom_buf dir = LOOM_BUF_INIT;
	const delta_kv *last_pv = NULL;
	uint32_t last_npv = 0, last_group = NO_GROUP;
	int have_last = 0, rc = 0;
	size_t i;

	delta_file_scratch_init(&sc);
	for (i = 0; i < snap->num_files && rc == 0; i++) {
		delta_file f;
		delta_file_scratch_reset(&sc);
		if ((rc = delta_snapshot_live_file(snap, i, &sc, &f)) < 0)
			break;
		if (!have_last || f.partition_values != last_pv || f.num_partition_values != last_npv) {
			last_group = NO_GROUP;
			if (matches(snap, &f, filters, n_filters)) {
				loom_buf_clear(&dir);
				if ((rc = pipe_partition_dir(snap, &f, &dir)) < 0 ||
				    (rc = loom_buf_putc(&dir, '\0')) < 0 ||
				    (rc = dir_group(d, dir.ptr, &last_group)) < 0)
					break;
			}
			last_pv = f.partition_values;
			last_npv = f.num_partition_values;
			have_last = 1;
		}
		group_of[i] = last_group;
		if (last_group != NO_GROUP)
			d->count[last_group]++;
	}
	delta_file_scratch_dispose(&sc);
	loom_buf_dispose(&dir);
	return rc;
}

static int cmp_name(const void *a, const void *b, void *ctx)
{
	char *const *names = ctx;
	return strcmp(names[*(const uint32_t *)a], names[*(const uint32_t *)b]);
}

typedef struct order_ctx {
	const delta_snapshot *snap;
	int failed;
} order_ctx;

/* Insertion order: version, modification time, then path (positions are
 * in path order). */
static int cmp_inserted(const void *a, const void *b, void *ctx)
{
	order_ctx *oc = ctx;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	delta_file_brief bx, by;
	if (delta_snapshot_live_brief(oc->snap, x, &bx) < 0 ||
	    delta_snapshot_live_brief(oc->snap, y, &by) < 0) {
		oc->failed = 1;
		return 0;
	}
	if (bx.version != by.version)
		return bx.version < by.version ? -1 : 1;
	if (bx.time != by.time)
		return bx.time < by.time ? -1 : 1;
	return x < y ? -1 : x > y;
}

/* Positions placed group by group, groups in directory order, each in
 * insertion order. */
static int place(partition_groups *g, const delta_snapshot *snap, const dir_set *d,
                 const uint32_t *group_of)
{
	uint32_t *by_name = loom_calloc(d->n + 1, sizeof(*by_name));
	size_t *start = loom_calloc(d->n + 1, sizeof(*start));
	order_ctx oc = { snap, 0 };
	size_t i, k, at = 0;
	int rc = 0;

	if (!by_name || !start) {
		rc = OPS_ERR(LOOM_ENOMEM, "out of memory grouping files by partition");
		goto done;
	}
	for (i = 0; i < d->n; i++)
		by_name[i] = (uint32_t)i;
	qsort_r(by_name, d->n, sizeof(*by_name), cmp_name, d->names);
	for (k = 0; k < d->n; k++) {
		g->begin[k] = at;
		start[by_name[k]] = at;
		at += d->count[by_name[k]];
	}
	g->begin[d->n] = at;
	g->num_groups = d->n;
	g->num_files = at;
	for (i = 0; i < snap->num_files; i++)
		if (group_of[i] != NO_GROUP)
			g->pos[start[group_of[i]]++] = (uint32_t)i;
	for (k = 0; k < g->num_groups; k++)
		qsort_r(g->pos + g->begin[k], g->begin[k + 1] - g->begin[k], sizeof(*g->pos),
		        cmp_inserted, &oc);
	if (oc.failed)
		rc = loom_err_wrap("grouping files by partition");
done:
	loom_free(by_name);
	loom_free(start);
	return rc;
}

int partition_groups_build(partition_groups *g, const delta_snapshot *snap,
                           const char *const *filters, size_t n_filters)
{
	dir_set d;
	uint32_t *group_of = NULL;
	size_t k, total = 0;
	int rc;

	memset(g, 0, sizeof(*g));
	memset(&d, 0, sizeof(d));
	LOOM_TRY(check_filters(snap, filters, n_filters));
	if (snap->num_files >= UINT32_MAX)
		return OPS_ERR(LOOM_EUNSUPPORTED, "more than 4 billion live files");
	group_of = loom_calloc(snap->num_files + 1, sizeof(*group_of));
	if (!group_of)
		return OPS_ERR(LOOM_ENOMEM, "out of memory grouping files by partition");
	if ((rc = assign_groups(snap, filters, n_filters, &d, group_of)) < 0)
		goto done;
	for (k = 0; k < d.n; k++)
		total += d.count[k];
	g->pos = loom_calloc(total + 1, sizeof(*g->pos));
	g->begin = loom_calloc(d.n + 2, sizeof(*g->begin));
	if (!g->pos || !g->begin) {
		rc = OPS_ERR(LOOM_ENOMEM, "out of memory grouping files by partition");
		goto done;
	}
	rc = place(g, snap, &d, group_of);
done:
	loom_free(group_of);
	dir_set_dispose(&d);
	if (rc < 0)
		partition_groups_dispose(g);
	return rc;
}

void partition_groups_dispose(partition_groups *g)
{
	loom_free(g->pos);
	loom_free(g->begin);
	memset(g, 0, sizeof(*g));
}
