/* ops/compact/compact_plan.c - which files OPTIMIZE compaction rewrites, in which
 * bins (the rules are in ops/compact/compact.h). */
#include "ops/compact/compact.h"

#include <string.h>

#include "ops/optimize/partition_groups.h"
#include "ops/pipeline/pipeline.h"
#include "util/alloc.h"
#include "util/error.h"

#define OPS_ERR(code, ...) loom_err((code), LOOM_ERRCLASS_OPS, __VA_ARGS__)

static int has_dv(const delta_file *f)
{
	return f->dv.storage_type && f->dv.cardinality > 0;
}

static int is_candidate(loom_store *store, const delta_file *f, int64_t target)
{
	/* files outside the table root stay where they are; an absolute URI
	 * inside it is a file of the table like any other */
	const char *key;
	if (loom_store_key_of(&key, store, f->path) < 0)
		return 0;
	if (has_dv(f)) {
		if (f->num_records <= 0)
			return 1; /* unknown row count: purge, as Spark does */
		if ((double)f->dv.cardinality > COMPACT_MAX_DELETED_RATIO * (double)f->num_records)
			return 1;
	}
	return f->size >= 0 && f->size < target;
}

/* First-fit over one partition's files: bin_of[i] = the bin of file i
 * (-1: not a candidate); returns the number of bins opened. */
static size_t first_fit(loom_store *store, const delta_file *const *files, size_t n, int64_t target,
                        const compact_rules *rules, long *bin_of, int64_t *bin_bytes)
{
	size_t i, nbins = 0, b;
	for (i = 0; i < n; i++) {
		int64_t sz = files[i]->size > 0 ? files[i]->size : 0;
		bin_of[i] = -1;
		if (!rules->candidate(store, files[i], target))
			continue;
		for (b = 0; b < nbins; b++)
			if (bin_bytes[b] + sz <= target)
				break;
		if (b == nbins)
			bin_bytes[nbins++] = 0;
		bin_bytes[b] += sz;
		bin_of[i] = (long)b;
	}
	return nbins;
}

/* Bin b of a partition's files (those with bin_of[i] == b) appended to the
 * plan, unless it is one file without a DV to purge. Returns 1 if it was. */
static int add_bin(compact_plan *plan, size_t g, const delta_file *const *files, size_t n, const long *bin_of,
                   size_t b, size_t count, const compact_rules *rules)
{
	compact_bin *cb;
	size_t i;
	if (count == 1) {
		for (i = 0; i < n && bin_of[i] != (long)b; i++)
			;
		if (!rules->has_dv(files[i]))
			return 0;
	}
	cb = &plan->bins[plan->num_bins++];
	cb->files = &plan->storage[plan->files_in_bins];
	cb->partition = g;
	for (i = 0; i < n; i++)
		if (bin_of[i] == (long)b) {
			plan->storage[plan->files_in_bins++] = files[i];
			cb->num_files++;
			cb->bytes += files[i]->size > 0 ? files[i]->size : 0;
			plan->dvs_in_bins += rules->has_dv(files[i]);
		}
	plan->bytes_in_bins += cb->bytes;
	return 1;
}

int compact_plan_build(compact_plan *plan, const delta_snapshot *snap, int64_t target,
                       const char *const *filters, size_t n_filters)
{
	static const compact_rules compaction = { is_candidate, has_dv };
	return compact_plan_pack(plan, snap, target, filters, n_filters, &compaction);
}

int compact_plan_pack(compact_plan *plan, const delta_snapshot *snap, int64_t target,
                      const char *const *filters, size_t n_filters, const compact_rules *rules)
{
	partition_groups pg;
	long *bin_of = NULL;
	int64_t *bin_bytes = NULL;
	size_t *bin_count = NULL;
	size_t g, i, b;
	int rc = 0;

	LOOM_TRY(compact_plan_start(plan, &pg, snap, target, filters, n_filters, snap->num_files));
	bin_of = loom_calloc(pg.num_files + 1, sizeof(*bin_of));
	bin_bytes = loom_calloc(pg.num_files + 1, sizeof(*bin_bytes));
	bin_count = loom_calloc(pg.num_files + 1, sizeof(*bin_count));
	if (!bin_of || !bin_bytes || !bin_count) {
		rc = OPS_ERR(LOOM_ENOMEM, "out of memory planning compaction");
		goto done;
	}
	for (g = 0; g < pg.num_groups; g++) {
		const delta_file *const *files = pg.files + pg.begin[g];
		size_t n = pg.begin[g + 1] - pg.begin[g];
		size_t nb = first_fit(snap->store, files, n, target, rules, bin_of, bin_bytes);
		int optimized = 0;
		memset(bin_count, 0, nb * sizeof(*bin_count));
		for (i = 0; i < n; i++)
			if (bin_of[i] >= 0)
				bin_count[bin_of[i]]++;
		for (b = 0; b < nb; b++)
			optimized |= add_bin(plan, g, files, n, bin_of, b, bin_count[b], rules);
		plan->partitions_optimized += (size_t)optimized;
	}
done:
	loom_free(bin_of);
	loom_free(bin_bytes);
	loom_free(bin_count);
	partition_groups_dispose(&pg);
	if (rc < 0)
		compact_plan_dispose(plan);
	return rc;
}
