/* ops/compact/compact_plan.c - which files OPTIMIZE compaction rewrites, in which
 * bins (the rules are in ops/compact/compact.h). */
#include "ops/compact/compact.h"

#include <stdint.h>
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

/* What binning needs of one file of a partition. */
typedef struct fit_file {
	int64_t size;                 /* >= 0 */
	long bin;                     /* -1: not a candidate */
	int dv;                       /* carries a DV the rewrite purges */
	int candidate;
} fit_file;

/* The files at pos[0..n) read one at a time (a view each, then dropped). */
static int read_group(const delta_snapshot *snap, const uint32_t *pos, size_t n, int64_t target,
                      const compact_rules *rules, delta_file_scratch *sc, fit_file *out)
{
	size_t i;
	for (i = 0; i < n; i++) {
		delta_file f;
		delta_file_scratch_reset(sc);
		LOOM_TRY(delta_snapshot_live_file(snap, pos[i], sc, &f));
		out[i].size = f.size > 0 ? f.size : 0;
		out[i].dv = rules->has_dv(&f);
		out[i].candidate = rules->candidate(snap->store, &f, target);
	}
	return 0;
}

/* First-fit over one partition's files: files[i].bin = its bin (-1: not
 * a candidate); returns the number of bins opened. Bins too full for the
 * partition's smallest candidate can take no file again: the search
 * starts after them (the same bins as searching them all, without the
 * quadratic cost when most files open a bin of their own). */
static size_t first_fit(fit_file *files, size_t n, int64_t target, int64_t *bin_bytes)
{
	size_t i, nbins = 0, b, open = 0;
	int64_t smallest = INT64_MAX;
	for (i = 0; i < n; i++)
		if (files[i].candidate && files[i].size < smallest)
			smallest = files[i].size;
	for (i = 0; i < n; i++) {
		files[i].bin = -1;
		if (!files[i].candidate)
			continue;
		while (open < nbins && bin_bytes[open] > target - smallest)
			open++;
		for (b = open; b < nbins; b++)
			if (bin_bytes[b] + files[i].size <= target)
				break;
		if (b == nbins)
			bin_bytes[nbins++] = 0;
		bin_bytes[b] += files[i].size;
		files[i].bin = (long)b;
	}
	return nbins;
}

/* Per bin of one partition while its files are placed. */
typedef struct bin_fill {
	size_t count;
	int lone_dv;                  /* its last file carries a DV to purge */
	long slot;                    /* its index in plan->bins, -1: left out */
} bin_fill;

/* The partition's bins (fill[0..nb)) appended to the plan in bin order,
 * each with its files in partition order, in one pass over the files; a
 * bin of one file without a DV to purge is left out. Returns 1 if any bin
 * was added. */
static int add_bins(compact_plan *plan, size_t g, const uint32_t *pos, const fit_file *files, size_t n,
                    bin_fill *fill, size_t nb)
{
	size_t i, b;
	int added = 0;
	for (b = 0; b < nb; b++)
		fill[b] = (bin_fill){ 0, 0, -1 };
	for (i = 0; i < n; i++)
		if (files[i].bin >= 0) {
			fill[files[i].bin].count++;
			fill[files[i].bin].lone_dv = files[i].dv;
		}
	for (b = 0; b < nb; b++) {
		compact_bin *cb;
		if (fill[b].count == 1 && !fill[b].lone_dv)
			continue;
		fill[b].slot = (long)plan->num_bins;
		cb = &plan->bins[plan->num_bins++];
		cb->pos = &plan->storage[plan->files_in_bins];
		cb->partition = g;
		plan->files_in_bins += fill[b].count;
		added = 1;
	}
	for (i = 0; i < n; i++) {
		compact_bin *cb;
		if (files[i].bin < 0 || fill[files[i].bin].slot < 0)
			continue;
		cb = &plan->bins[fill[files[i].bin].slot];
		plan->storage[(size_t)(cb->pos - plan->storage) + cb->num_files++] = pos[i];
		cb->bytes += files[i].size;
		plan->bytes_in_bins += files[i].size;
		plan->dvs_in_bins += files[i].dv;
	}
	return added;
}

int compact_plan_build(compact_plan *plan, const delta_snapshot *snap, int64_t target,
                       const char *const *filters, size_t n_filters)
{
	static const compact_rules compaction = { is_candidate, has_dv };
	return compact_plan_pack(plan, snap, target, filters, n_filters, &compaction);
}

/* Partition by partition: only the largest partition's files are read
 * into working arrays at once. */
int compact_plan_pack(compact_plan *plan, const delta_snapshot *snap, int64_t target,
                      const char *const *filters, size_t n_filters, const compact_rules *rules)
{
	partition_groups pg;
	delta_file_scratch sc;
	fit_file *files = NULL;
	int64_t *bin_bytes = NULL;
	bin_fill *fill = NULL;
	size_t g, most = 0;
	int rc = 0;

	LOOM_TRY(compact_plan_start(plan, &pg, snap, target, filters, n_filters, snap->num_files));
	delta_file_scratch_init(&sc);
	for (g = 0; g < pg.num_groups; g++)
		if (pg.begin[g + 1] - pg.begin[g] > most)
			most = pg.begin[g + 1] - pg.begin[g];
	files = loom_calloc(most + 1, sizeof(*files));
	bin_bytes = loom_calloc(most + 1, sizeof(*bin_bytes));
	fill = loom_calloc(most + 1, sizeof(*fill));
	if (!files || !bin_bytes || !fill) {
		rc = OPS_ERR(LOOM_ENOMEM, "out of memory planning compaction");
		goto done;
	}
	for (g = 0; g < pg.num_groups && rc == 0; g++) {
		const uint32_t *pos = pg.pos + pg.begin[g];
		size_t n = pg.begin[g + 1] - pg.begin[g], nb;
		if ((rc = read_group(snap, pos, n, target, rules, &sc, files)) < 0)
			break;
		nb = first_fit(files, n, target, bin_bytes);
		plan->partitions_optimized += (size_t)add_bins(plan, g, pos, files, n, fill, nb);
	}
	if (rc == 0)
		rc = compact_plan_finish(plan, snap);
done:
	loom_free(files);
	loom_free(bin_bytes);
	loom_free(fill);
	delta_file_scratch_dispose(&sc);
	partition_groups_dispose(&pg);
	if (rc < 0)
		compact_plan_dispose(plan);
	return rc;
}
