/* Compaction and Z-order planning over the compact file index (issue 30):
 * on every fixture table, the partition groups and the compaction plans
 * made from a snapshot in the index equal those made from the snapshot's
 * arrays (the representation the compaction tests judge against the
 * oracle), position for position; and the files a run fetches from the
 * index (compact_plan_files) equal the arrays' files field by field, stats
 * text included (the removes carry it). */
#include <stdio.h>

#include "delta/snapshot.h"
#include "ops/compact/compact.h"
#include "ops/optimize/partition_groups.h"
#include "delta_compare.h"
#include "test.h"

static void same_groups(const char *table, const delta_snapshot *arr, const delta_snapshot *idx)
{
	partition_groups ga, gi;
	size_t k;
	CHECK_OK(partition_groups_build(&ga, arr, NULL, 0));
	CHECK_OK(partition_groups_build(&gi, idx, NULL, 0));
	if (ga.num_groups != gi.num_groups || ga.num_files != gi.num_files)
		TEST_FAIL_AT("%s: %zu groups of %zu files on the arrays, %zu of %zu on the index", table,
		             ga.num_groups, ga.num_files, gi.num_groups, gi.num_files);
	else {
		for (k = 0; k <= ga.num_groups; k++)
			if (ga.begin[k] != gi.begin[k])
				TEST_FAIL_AT("%s: group %zu begins at %zu / %zu", table, k, ga.begin[k], gi.begin[k]);
		for (k = 0; k < ga.num_files; k++)
			if (ga.pos[k] != gi.pos[k])
				TEST_FAIL_AT("%s: grouped file %zu: position %u / %u", table, k, ga.pos[k], gi.pos[k]);
	}
	partition_groups_dispose(&ga);
	partition_groups_dispose(&gi);
}

static void same_plan(const char *table, const delta_snapshot *arr, const delta_snapshot *idx,
                      int64_t target)
{
	compact_plan pa, pi;
	size_t b, k;
	CHECK_OK(compact_plan_build(&pa, arr, target, NULL, 0));
	CHECK_OK(compact_plan_build(&pi, idx, target, NULL, 0));
	/* on the index a plan holds positions until a run asks for the files */
	CHECK(pi.files == NULL);
	if (pa.num_bins != pi.num_bins || pa.files_in_bins != pi.files_in_bins ||
	    pa.bytes_in_bins != pi.bytes_in_bins || pa.dvs_in_bins != pi.dvs_in_bins ||
	    pa.considered != pi.considered || pa.partitions != pi.partitions ||
	    pa.partitions_optimized != pi.partitions_optimized) {
		TEST_FAIL_AT("%s, target %lld: the plans differ in their counts", table, (long long)target);
		goto done;
	}
	CHECK_OK(compact_plan_files(&pi, idx));
	for (b = 0; b < pa.num_bins; b++) {
		const compact_bin *x = &pa.bins[b], *y = &pi.bins[b];
		if (x->num_files != y->num_files || x->bytes != y->bytes || x->partition != y->partition) {
			TEST_FAIL_AT("%s: bin %zu differs", table, b);
			continue;
		}
		for (k = 0; k < x->num_files; k++)
			if (x->pos[k] != y->pos[k] || !test_same_file(x->files[k], y->files[k]))
				TEST_FAIL_AT("%s: bin %zu file %zu: %s / %s", table, b, k, x->files[k]->path,
				             y->files[k]->path);
	}
done:
	compact_plan_dispose(&pa);
	compact_plan_dispose(&pi);
}

static void check_fixture(const char *table, void *ctx)
{
	int *compared = ctx;
	loom_store *store = NULL;
	delta_snapshot *arr = NULL, *idx = NULL;
	delta_load_opts lo;

	CHECK_OK(loom_store_open_local(&store, table));
	delta_load_opts_init(&lo);
	lo.file_index = 1;
	if (delta_snapshot_load(&arr, store, -1, NULL) < 0) {
		printf("  %s: not loaded (%s): skipped\n", table, loom_error_last()->message);
		loom_store_free(store);
		return;
	}
	CHECK_OK(delta_snapshot_load(&idx, store, -1, &lo));
	if (idx) {
		same_groups(table, arr, idx);
		/* everything a candidate; then a target that splits the files */
		same_plan(table, arr, idx, 1LL << 40);
		same_plan(table, arr, idx, arr->num_files ? (int64_t)(arr->total_bytes / arr->num_files) : 1);
		(*compared)++;
	}
	delta_snapshot_free(idx);
	delta_snapshot_free(arr);
	loom_store_free(store);
}

TEST(fixtures_plan_alike_on_index_and_arrays)
{
	int compared = 0;
	CHECK(test_each_fixture(check_fixture, &compared) > 30);
	CHECK(compared > 30);
}

int main(void)
{
	RUN(fixtures_plan_alike_on_index_and_arrays);
	return test_summary();
}
