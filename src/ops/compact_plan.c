/* ops/compact_plan.c - which files OPTIMIZE rewrites, in which bins.
 *
 * Per partition (files in path order, the snapshot's order): a file is a
 * candidate when it is smaller than the target, or when its deletion
 * vector deletes more than 5 % of its rows (whatever its size; Spark's
 * maxDeletedRowsRatio). Consecutive candidates are packed greedily into
 * bins of at most `target` bytes; a non-candidate ends the current bin, so
 * a bin never spans it (delta-rs keeps locality the same way). A bin of
 * one file is dropped unless that file has a DV to purge. */
#include "ops/compact.h"

#include <stdlib.h>
#include <string.h>

#include "delta/partition.h"
#include "ops/rewrite.h"
#include "util/alloc.h"
#include "util/buf.h"
#include "util/error.h"

#define OPS_ERR(code, ...) loom_err((code), LOOM_ERRCLASS_OPS, __VA_ARGS__)

typedef struct keyed {
	const delta_file *f;
	char *pkey;     /* partition directory, the grouping key */
	size_t order;
} keyed;

static int cmp_keyed(const void *a, const void *b)
{
	const keyed *x = a, *y = b;
	int c = strcmp(x->pkey, y->pkey);
	if (c)
		return c;
	return x->order < y->order ? -1 : x->order > y->order;
}

static int is_candidate(const delta_snapshot *snap, const delta_file *f, int64_t target)
{
	/* files outside the table root stay where they are; an absolute URI
	 * inside it is a file of the table like any other */
	const char *key;
	if (loom_store_key_of(snap->store, f->path, &key) < 0)
		return 0;
	if (f->dv.storage_type && f->dv.cardinality > 0) {
		if (f->num_records <= 0)
			return 1; /* unknown row count: purge, as Spark does */
		if ((double)f->dv.cardinality > COMPACT_MAX_DELETED_RATIO * (double)f->num_records)
			return 1;
	}
	return f->size >= 0 && f->size < target;
}

static int has_dv(const delta_file *f)
{
	return f->dv.storage_type && f->dv.cardinality > 0;
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

int compact_plan_build(compact_plan *plan, const delta_snapshot *snap, int64_t target,
                       const char *const *filters, size_t n_filters)
{
	keyed *ks = NULL;
	size_t n = 0, i, nbins = 0, cap_bins;
	loom_buf key = LOOM_BUF_INIT;
	int rc = 0;

	memset(plan, 0, sizeof(*plan));
	plan->target = target;
	LOOM_TRY(check_filters(snap, filters, n_filters));
	ks = loom_calloc(snap->num_files ? snap->num_files : 1, sizeof(*ks));
	plan->storage = loom_calloc(snap->num_files ? snap->num_files : 1, sizeof(*plan->storage));
	cap_bins = snap->num_files + 1;
	plan->bins = loom_calloc(cap_bins, sizeof(*plan->bins));
	if (!ks || !plan->storage || !plan->bins) {
		rc = OPS_ERR(LOOM_ENOMEM, "out of memory planning compaction");
		goto done;
	}
	for (i = 0; i < snap->num_files; i++) {
		const delta_file *f = snap->files[i];
		if (!matches(snap, f, filters, n_filters))
			continue;
		loom_buf_clear(&key);
		if ((rc = rewrite_partition_dir(snap, f, &key)) < 0)
			goto done;
		ks[n].f = f;
		ks[n].order = i;
		ks[n].pkey = loom_strdup(key.ptr ? key.ptr : "");
		if (!ks[n].pkey) {
			rc = OPS_ERR(LOOM_ENOMEM, "out of memory planning compaction");
			goto done;
		}
		n++;
	}
	qsort(ks, n, sizeof(*ks), cmp_keyed);
	plan->considered = n;

	{
		size_t pos = 0, part = 0, p_begin = 0;
		compact_bin cur;
		int part_has_bin = 0;
		memset(&cur, 0, sizeof(cur));
		for (i = 0; i <= n; i++) {
			int new_part = i == n || (i > 0 && strcmp(ks[i].pkey, ks[i - 1].pkey) != 0);
			int cand = i < n && is_candidate(snap, ks[i].f, target);
			int fits = cand && cur.num_files > 0 && cur.bytes + ks[i].f->size <= target;
			/* close the current bin */
			if (cur.num_files > 0 && (new_part || !fits)) {
				if (cur.num_files >= 2 || has_dv(cur.files[0])) {
					plan->bins[nbins++] = cur;
					plan->files_in_bins += cur.num_files;
					plan->bytes_in_bins += cur.bytes;
					part_has_bin = 1;
				} else {
					pos -= cur.num_files; /* give the slot back */
				}
				memset(&cur, 0, sizeof(cur));
			}
			if (new_part || i == 0) {
				if (i > 0 || n == 0) {
					plan->partitions += i > 0;
					plan->partitions_optimized += part_has_bin;
				}
				part_has_bin = 0;
				part = plan->partitions;
				p_begin = i;
			}
			if (i == n)
				break;
			if (!cand)
				continue;
			if (cur.num_files == 0) {
				cur.files = &plan->storage[pos];
				cur.partition = part;
			}
			plan->storage[pos++] = ks[i].f;
			cur.num_files++;
			cur.bytes += ks[i].f->size;
		}
		(void)p_begin;
	}
	plan->num_bins = nbins;
	for (i = 0; i < nbins; i++) {
		size_t j;
		for (j = 0; j < plan->bins[i].num_files; j++)
			plan->dvs_in_bins += has_dv(plan->bins[i].files[j]);
	}
done:
	for (i = 0; i < n; i++)
		loom_free(ks[i].pkey);
	loom_free(ks);
	loom_buf_dispose(&key);
	if (rc < 0)
		compact_plan_dispose(plan);
	return rc;
}

void compact_plan_dispose(compact_plan *plan)
{
	if (!plan)
		return;
	loom_free(plan->storage);
	loom_free(plan->bins);
	memset(plan, 0, sizeof(*plan));
}
