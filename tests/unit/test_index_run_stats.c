/* A compaction or Z-order run on the compact file index (issue 30) writes
 * removes that carry their files' stats. The index holds the stats of the
 * adds it read from commits (up to delta_load_opts.commit_stats_budget), so
 * fetching a run's files reads nothing more from the log; those in a
 * checkpoint are read from it, each checkpoint file opened once.
 *  - on every fixture, each live file from a commit has its stats held,
 *    equal to the arrays' text;
 *  - on a generated log, the index's memory counts the held stats, and a
 *    budget too small for all of them holds what fits and leaves the rest
 *    as references (read back as the same text);
 *  - a plan's files fetched from the index cost no GET on a commits-only
 *    table, and at most two per checkpoint file (open, row group) on
 *    checkpointed ones;
 *  - a real compaction's removes carry the stats the arrays hold. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "delta/snapshot.h"
#include "ops/compact/compact.h"
#include "ops/log/checkpoint.h"
#include "delta_compare.h"
#include "test.h"
#include "tmpdir.h"

static delta_snapshot *load(loom_store *store, int file_index, size_t budget)
{
	delta_snapshot *snap = NULL;
	delta_load_opts lo;
	delta_load_opts_init(&lo);
	lo.file_index = file_index;
	lo.commit_stats_budget = budget;
	if (delta_snapshot_load(&snap, store, -1, &lo) < 0)
		return NULL;
	return snap;
}

/* Does the index hold the stats of live file i (no reference)? */
static int held(const delta_snapshot *idx, size_t i)
{
	delta_stats_ref ref;
	return delta_file_index_stats_ref(idx->index, DELTA_FILES_LIVE, i, &ref) == 0;
}

/* Live file i of `arr` came from a commit after the checkpoint. */
static int from_commit(const delta_snapshot *arr, size_t i)
{
	return arr->files[i]->version > arr->checkpoint_version;
}

typedef struct fixture_counts {
	int compared;
	size_t held_files;
} fixture_counts;

/* Every live file read from a commit has its stats in the index, the same
 * text as the arrays'; a zero budget never takes more memory. */
static void check_fixture(const char *table, void *ctx)
{
	fixture_counts *c = ctx;
	loom_store *store = NULL;
	delta_snapshot *arr = NULL, *idx = NULL, *refs = NULL;
	delta_file_scratch sc;
	size_t i;

	CHECK_OK(loom_store_open_local(&store, table));
	if (!(arr = load(store, 0, DELTA_COMMIT_STATS_BUDGET))) {
		printf("  %s: not loaded (%s): skipped\n", table, loom_error_last()->message);
		loom_store_free(store);
		return;
	}
	idx = load(store, 1, DELTA_COMMIT_STATS_BUDGET);
	refs = load(store, 1, 0);
	REQUIRE(idx && refs && idx->num_files == arr->num_files);
	delta_file_scratch_init(&sc);
	for (i = 0; i < arr->num_files; i++) {
		const delta_file *f = arr->files[i];
		delta_file v;
		if (!f->stats || !from_commit(arr, i))
			continue;
		CHECK_OK(delta_snapshot_live_file(idx, i, &sc, &v));
		if (!v.stats || strcmp(v.stats, f->stats) != 0)
			TEST_FAIL_AT("%s: %s from commit %lld: stats not held by the index", table, f->path,
			             (long long)f->version);
		c->held_files++;
		delta_file_scratch_reset(&sc);
	}
	CHECK(delta_file_index_memory(idx->index) >= delta_file_index_memory(refs->index));
	c->compared++;
	delta_file_scratch_dispose(&sc);
	delta_snapshot_free(refs);
	delta_snapshot_free(idx);
	delta_snapshot_free(arr);
	loom_store_free(store);
}

TEST(commit_stats_held_on_every_fixture)
{
	fixture_counts c = { 0, 0 };
	CHECK(test_each_fixture(check_fixture, &c) > 30);
	CHECK(c.compared > 30);
	printf("  %zu live files from commits with stats\n", c.held_files);
	CHECK(c.held_files > 50);
}

#define GEN_FILES 6000

/* A table of one commit of GEN_FILES adds (log only), each with ~200
 * bytes of stats; the total into *stats_bytes. */
static char *gen_table(size_t *stats_bytes)
{
	char *dir = test_mkdtemp("gen"), path[4096];
	FILE *f;
	int i;

	*stats_bytes = 0;
	snprintf(path, sizeof(path), "%s/_delta_log", dir);
	if (test_sh("mkdir -p '%s'", path) != 0)
		return dir;
	snprintf(path, sizeof(path), "%s/_delta_log/00000000000000000000.json", dir);
	if (!(f = fopen(path, "w")))
		return dir;
	fputs("{\"protocol\":{\"minReaderVersion\":1,\"minWriterVersion\":2}}\n"
	      "{\"metaData\":{\"id\":\"gen\",\"format\":{\"provider\":\"parquet\",\"options\":{}},"
	      "\"schemaString\":\"{\\\"type\\\":\\\"struct\\\",\\\"fields\\\":[{\\\"name\\\":"
	      "\\\"id\\\",\\\"type\\\":\\\"long\\\",\\\"nullable\\\":true,\\\"metadata\\\":{}}]}\","
	      "\"partitionColumns\":[],\"configuration\":{},\"createdTime\":0}}\n",
	      f);
	for (i = 0; i < GEN_FILES; i++) {
		char stats[400];
		int n = snprintf(stats, sizeof(stats),
		                 "{\\\"numRecords\\\":%d,\\\"minValues\\\":{\\\"id\\\":%d},"
		                 "\\\"maxValues\\\":{\\\"id\\\":%d},\\\"nullCount\\\":{\\\"id\\\":0},"
		                 "\\\"tightBounds\\\":true,\\\"pad\\\":\\\"%0100d\\\"}",
		                 1000 + i, i * 1000, i * 1000 + 999, i);
		fprintf(f,
		        "{\"add\":{\"path\":\"part-%05d.parquet\",\"partitionValues\":{},\"size\":%d,"
		        "\"modificationTime\":%d,\"dataChange\":true,\"stats\":\"%s\"}}\n",
		        i, 1000 + i, i, stats);
		*stats_bytes += (size_t)n - 20; /* the text: 20 escaping backslashes fewer */
	}
	fclose(f);
	return dir;
}

/* The index's memory counts the held stats; a budget holds the newest
 * that fit and leaves the others as references read back alike. */
TEST(memory_counts_held_stats_and_budget_leaves_references)
{
	size_t total, i, kept = 0, nheld = 0, misplaced = 0, budget;
	char *dir = gen_table(&total);
	loom_store *store = NULL;
	delta_snapshot *arr, *all, *none, *part;
	delta_stats_reader rd;
	loom_buf text = LOOM_BUF_INIT;
	int found;

	REQUIRE(loom_store_open_local(&store, dir) == 0);
	arr = load(store, 0, 0);
	all = load(store, 1, DELTA_COMMIT_STATS_BUDGET);
	none = load(store, 1, 0);
	budget = total / 3;
	part = load(store, 1, budget);
	REQUIRE(arr && all && none && part && arr->num_files == GEN_FILES);
	printf("  %zu bytes of stats: index %zu bytes holding them, %zu without\n", total,
	       delta_file_index_memory(all->index), delta_file_index_memory(none->index));
	CHECK(delta_file_index_memory(all->index) >= delta_file_index_memory(none->index) + total);
	delta_stats_reader_init(&rd, store);
	for (i = 0; i < arr->num_files; i++) {
		const char *want = arr->files[i]->stats;
		misplaced += !held(all, i) || held(none, i);
		if (held(part, i)) {
			nheld++;
			kept += strlen(want);
		}
		CHECK_OK(delta_file_index_stats(part->index, &rd, DELTA_FILES_LIVE, i, &text, &found));
		if (!found || text.size != strlen(want) || memcmp(text.ptr, want, text.size) != 0)
			TEST_FAIL_AT("file %zu: stats read back differ", i);
	}
	CHECK_INT((long long)misplaced, 0);
	CHECK(kept <= budget && kept > budget - 400);
	CHECK(nheld > 0 && nheld < GEN_FILES);
	delta_stats_reader_dispose(&rd);
	loom_buf_dispose(&text);
	delta_snapshot_free(part);
	delta_snapshot_free(none);
	delta_snapshot_free(all);
	delta_snapshot_free(arr);
	loom_store_free(store);
	test_rmtree(dir);
	free(dir);
}

static uint64_t gets(loom_store *s)
{
	loom_store_stats st = LOOM_STORE_STATS_INIT;
	if (loom_store_stats_get(&st, s) < 0)
		TEST_FAIL_AT("no request counters");
	return st.requests[LOOM_STORE_REQ_GET];
}

/* GETs of fetching every live file of `store`'s table for a run (one bin
 * of all) into *n, the files checked against the arrays' field by field. */
static void gets_to_fetch_all(loom_store *store, uint64_t *n)
{
	delta_snapshot *arr = load(store, 0, 0), *idx = load(store, 1, DELTA_COMMIT_STATS_BUDGET);
	compact_plan plan;
	uint64_t before;
	size_t b, k;

	*n = UINT64_MAX;
	REQUIRE(arr && idx);
	CHECK_OK(compact_plan_build(&plan, idx, 1LL << 40, NULL, 0));
	CHECK_INT((long long)plan.files_in_bins, (long long)arr->num_files);
	before = gets(store);
	CHECK_OK(compact_plan_files(&plan, idx));
	*n = gets(store) - before;
	for (b = 0; b < plan.num_bins; b++)
		for (k = 0; k < plan.bins[b].num_files; k++)
			if (!test_same_file(plan.bins[b].files[k], arr->files[plan.bins[b].pos[k]]))
				TEST_FAIL_AT("bin %zu file %zu: %s differs from the arrays'", b, k,
				             plan.bins[b].files[k]->path);
	compact_plan_dispose(&plan);
	delta_snapshot_free(idx);
	delta_snapshot_free(arr);
}

TEST(fetching_a_runs_files_reads_no_commit)
{
	char path[4096];
	loom_store *store = NULL;
	uint64_t n;
	snprintf(path, sizeof(path), "%s/delta/COVID-19_NYT", LOOM_FIXTURES_DIR);
	REQUIRE(loom_store_open_local(&store, path) == 0);
	gets_to_fetch_all(store, &n);
	CHECK_INT((long long)n, 0);
	loom_store_free(store);
}

/* Stats in checkpoint files: read in (file, row) order, at most an open
 * and a row group per file. */
static void fetch_from_checkpoint(const char *fixture, int checkpoint_at, uint64_t files)
{
	char *dir = test_copy_fixture(fixture);
	loom_store *store = NULL;
	uint64_t n;

	REQUIRE(loom_store_open_local(&store, dir) == 0);
	if (checkpoint_at >= 0) {
		checkpoint_params cp;
		loom_op_result r = LOOM_OP_RESULT_INIT;
		memset(&cp, 0, sizeof(cp));
		cp.version = checkpoint_at;
		loom_op_result_init(&r, LOOM_OP_RESULT_VERSION);
		CHECK_OK(checkpoint_run(&r, store, &cp));
		loom_op_result_free(&r);
	}
	gets_to_fetch_all(store, &n);
	printf("  %s: %llu GETs for the stats in %llu checkpoint files\n", fixture,
	       (unsigned long long)n, (unsigned long long)files);
	CHECK(n >= files && n <= 2 * files);
	loom_store_free(store);
	test_rmtree(dir);
	free(dir);
}

TEST(fetching_from_a_checkpoint_opens_each_file_once)
{
	fetch_from_checkpoint("delta/COVID-19_NYT", 0, 1);           /* loom's Parquet checkpoint */
	fetch_from_checkpoint("delta/v2-checkpoints-json-with-sidecars", -1, 2); /* 2 sidecars */
}

/* The stats text of every remove action in commit `version`, checked
 * against the files of `before` (the arrays, loaded before the run). */
static size_t check_removes(const char *dir, int64_t version, const delta_snapshot *before)
{
	char path[4096], line[65536];
	FILE *f;
	size_t removes = 0;

	snprintf(path, sizeof(path), "%s/_delta_log/%020lld.json", dir, (long long)version);
	f = fopen(path, "r");
	if (!f) {
		TEST_FAIL_AT("no commit %s", path);
		return 0;
	}
	while (fgets(line, sizeof(line), f)) {
		json_t *a = json_loads(line, 0, NULL), *rm = json_object_get(a, "remove");
		const char *p = json_string_value(json_object_get(rm, "path"));
		const char *stats = json_string_value(json_object_get(rm, "stats"));
		const delta_file *was = NULL;
		size_t i;
		if (rm) {
			removes++;
			for (i = 0; p && i < before->num_files && !was; i++)
				if (strcmp(before->files[i]->path_raw, p) == 0)
					was = before->files[i];
			if (!was || !test_same_str(stats, was->stats))
				TEST_FAIL_AT("%s: remove of %s: stats %s, the arrays have %s", path,
				             p ? p : "?", stats ? stats : "none",
				             was && was->stats ? was->stats : "none");
		}
		json_decref(a);
	}
	fclose(f);
	return removes;
}

static void compaction_removes_carry_stats(const char *fixture, int checkpoint_at)
{
	char *dir = test_copy_fixture(fixture);
	loom_store *store = NULL;
	delta_snapshot *before;
	compact_params p;
	loom_op_result out = LOOM_OP_RESULT_INIT;

	REQUIRE(loom_store_open_local(&store, dir) == 0);
	if (checkpoint_at >= 0) {
		checkpoint_params cp;
		memset(&cp, 0, sizeof(cp));
		cp.version = checkpoint_at;
		loom_op_result_init(&out, LOOM_OP_RESULT_VERSION);
		CHECK_OK(checkpoint_run(&out, store, &cp));
		loom_op_result_free(&out);
	}
	before = load(store, 0, 0);
	REQUIRE(before != NULL);
	memset(&p, 0, sizeof(p));
	p.target_size = 1LL << 40;
	loom_op_result_init(&out, LOOM_OP_RESULT_VERSION);
	CHECK_OK(compact_run(&out, store, &p));
	CHECK(out.num_files_removed > 1);
	CHECK_INT((long long)check_removes(dir, before->version + 1, before),
	          (long long)out.num_files_removed);
	loom_op_result_free(&out);
	delta_snapshot_free(before);
	loom_store_free(store);
	test_rmtree(dir);
	free(dir);
}

TEST(compaction_removes_carry_the_arrays_stats)
{
	compaction_removes_carry_stats("delta/COVID-19_NYT", -1);
	compaction_removes_carry_stats("delta/COVID-19_NYT", 0);
	compaction_removes_carry_stats("delta/compacted-log-files-table", -1);
	compaction_removes_carry_stats("delta/v2-checkpoints-json-with-sidecars", -1);
	compaction_removes_carry_stats("delta/table_with_liquid_clustering", -1); /* clustering */
}

int main(void)
{
	RUN(commit_stats_held_on_every_fixture);
	RUN(memory_counts_held_stats_and_budget_leaves_references);
	RUN(fetching_a_runs_files_reads_no_commit);
	RUN(fetching_from_a_checkpoint_opens_each_file_once);
	RUN(compaction_removes_carry_the_arrays_stats);
	return test_summary();
}
