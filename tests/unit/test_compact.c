/* Compaction: planning on real tables, and the commit racing other writers
 * (a concurrent delete of a file being compacted must fail the compaction
 * and leave no new file; a concurrent append must not), and a failing
 * rewrite leaving nothing behind. */
#include <dirent.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "delta/snapshot.h"
#include "ops/compact/compact.h"
#include "test.h"
#include "tmpdir.h"

static loom_store *open_copy(const char *fixture, char **dir_out)
{
	loom_store *s = NULL;
	*dir_out = test_copy_fixture(fixture);
	if (loom_store_open_local(&s, *dir_out) < 0)
		return NULL;
	return s;
}

static int64_t latest_version(loom_store *s)
{
	delta_snapshot *snap;
	int64_t v;
	if (delta_snapshot_load(&snap, s, -1, NULL) < 0)
		return -2;
	v = snap->version;
	delta_snapshot_free(snap);
	return v;
}

/* Number of *.parquet files directly in `dir`. */
static int count_parquet(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;
	if (!d)
		return -1;
	while ((e = readdir(d)) != NULL) {
		size_t l = strlen(e->d_name);
		n += l > 8 && strcmp(e->d_name + l - 8, ".parquet") == 0;
	}
	closedir(d);
	return n;
}

static void default_params(compact_params *p, int64_t target)
{
	memset(p, 0, sizeof(*p));
	p->target_size = target;
}

TEST(plan_packs_small_files_and_skips_large_ones)
{
	char *dir;
	loom_store *s = open_copy("delta/simple_table", &dir);
	delta_snapshot *snap = NULL;
	compact_plan plan;
	REQUIRE(s != NULL);
	REQUIRE(delta_snapshot_load(&snap, s, -1, NULL) == 0);
	CHECK_INT((long long)snap->num_files, 5);

	CHECK_OK(compact_plan_build(&plan, snap, 64LL << 20, NULL, 0));
	CHECK_INT((long long)plan.num_bins, 1);
	CHECK_INT((long long)plan.files_in_bins, 5);
	CHECK_INT((long long)plan.considered, 5);
	CHECK_INT((long long)plan.partitions_optimized, 1);
	compact_plan_dispose(&plan);

	/* a target below every file: nothing is a candidate */
	CHECK_OK(compact_plan_build(&plan, snap, 10, NULL, 0));
	CHECK_INT((long long)plan.num_bins, 0);
	CHECK_INT((long long)plan.considered, 5);
	compact_plan_dispose(&plan);

	/* a target that fits exactly two of the files: bins never exceed it */
	{
		int64_t t = snap->files[0]->size + snap->files[1]->size;
		size_t i, j;
		CHECK_OK(compact_plan_build(&plan, snap, t, NULL, 0));
		CHECK(plan.num_bins >= 1);
		for (i = 0; i < plan.num_bins; i++) {
			int64_t sum = 0;
			CHECK(plan.bins[i].num_files >= 2);
			for (j = 0; j < plan.bins[i].num_files; j++)
				sum += plan.bins[i].files[j]->size;
			CHECK(sum <= t);
			CHECK_INT(sum, plan.bins[i].bytes);
		}
		compact_plan_dispose(&plan);
	}
	/* a filter on a table without partitions is refused */
	{
		const char *f[] = { "nope=1" };
		CHECK_ERR(compact_plan_build(&plan, snap, 64LL << 20, f, 1), LOOM_EINVAL);
	}
	delta_snapshot_free(snap);
	loom_store_free(s);
	test_rmtree(dir);
	free(dir);
}

TEST(plan_purges_a_single_file_with_a_dv)
{
	char *dir;
	loom_store *s = open_copy("delta/table-with-dv-small", &dir);
	delta_snapshot *snap = NULL;
	compact_plan plan;
	REQUIRE(s != NULL);
	REQUIRE(delta_snapshot_load(&snap, s, -1, NULL) == 0);
	CHECK_INT((long long)snap->num_files, 1);
	/* even with a target below its size: it deletes > 5 % of its rows */
	CHECK_OK(compact_plan_build(&plan, snap, 10, NULL, 0));
	CHECK_INT((long long)plan.num_bins, 1);
	CHECK_INT((long long)plan.dvs_in_bins, 1);
	compact_plan_dispose(&plan);
	delta_snapshot_free(snap);
	loom_store_free(s);
	test_rmtree(dir);
	free(dir);
}

typedef struct race {
	loom_store *store;
	const char *body;
	int64_t version;
	int rc;
} race;

static void commit_winner(void *ctx)
{
	race *r = ctx;
	char key[64];
	snprintf(key, sizeof(key), "_delta_log/%020lld.json", (long long)r->version);
	r->rc = r->store->put(r->store, key, r->body, strlen(r->body), LOOM_PUT_IF_ABSENT);
}

TEST(concurrent_delete_fails_cleanly)
{
	char *dir;
	loom_store *s = open_copy("delta/simple_table", &dir);
	compact_params p;
	loom_op_result out = LOOM_OP_RESULT_INIT;
	race r;
	int before;
	REQUIRE(s != NULL);
	before = count_parquet(dir);
	loom_op_result_init(&out, LOOM_OP_RESULT_VERSION);
	r.store = s;
	r.version = 5;
	r.rc = -1;
	r.body = "{\"commitInfo\":{\"operation\":\"DELETE\"}}\n"
	         "{\"remove\":{\"path\":\"part-00000-2befed33-c358-4768-a43c-3eda0d2a499d-c000.snappy.parquet\","
	         "\"deletionTimestamp\":1,\"dataChange\":true}}\n";
	default_params(&p, 64LL << 20);
	p.common.before_commit = commit_winner;
	p.common.hook_ctx = &r;
	CHECK_ERR(compact_run(&out, s, &p), LOOM_ECONFLICT);
	CHECK_INT(r.rc, 0);
	CHECK_INT(latest_version(s), 5);          /* only the winner */
	CHECK_INT(count_parquet(dir), before);    /* the new file is gone */
	loom_op_result_free(&out);
	loom_store_free(s);
	test_rmtree(dir);
	free(dir);
}

TEST(concurrent_append_does_not_conflict)
{
	char *dir;
	loom_store *s = open_copy("delta/simple_table", &dir);
	compact_params p;
	loom_op_result out = LOOM_OP_RESULT_INIT;
	delta_snapshot *snap = NULL;
	race r;
	int before;
	REQUIRE(s != NULL);
	before = count_parquet(dir);
	loom_op_result_init(&out, LOOM_OP_RESULT_VERSION);
	r.store = s;
	r.version = 5;
	r.rc = -1;
	r.body = "{\"commitInfo\":{\"operation\":\"WRITE\"}}\n"
	         "{\"add\":{\"path\":\"appended.parquet\",\"partitionValues\":{},\"size\":1,"
	         "\"modificationTime\":1,\"dataChange\":true}}\n";
	default_params(&p, 64LL << 20);
	p.common.before_commit = commit_winner;
	p.common.hook_ctx = &r;
	CHECK_OK(compact_run(&out, s, &p));
	CHECK_INT(r.rc, 0);
	CHECK_INT(out.num_files_removed, 5);
	CHECK_INT(out.num_files_added, 1);
	CHECK_INT(loom_op_result_metric(&out, "version", -1), 6);
	CHECK_INT(count_parquet(dir), before + 1);
	REQUIRE(delta_snapshot_load(&snap, s, -1, NULL) == 0);
	CHECK_INT((long long)snap->num_files, 2); /* the appended file + the compacted one */
	CHECK(delta_snapshot_find_file(snap, "appended.parquet") != NULL);
	delta_snapshot_free(snap);
	loom_op_result_free(&out);
	loom_store_free(s);
	test_rmtree(dir);
	free(dir);
}

TEST(dry_run_writes_nothing)
{
	char *dir;
	loom_store *s = open_copy("delta/simple_table", &dir);
	compact_params p;
	loom_op_result out = LOOM_OP_RESULT_INIT;
	int before;
	REQUIRE(s != NULL);
	before = count_parquet(dir);
	loom_op_result_init(&out, LOOM_OP_RESULT_VERSION);
	default_params(&p, 64LL << 20);
	p.common.dry_run = 1;
	CHECK_OK(compact_run(&out, s, &p));
	CHECK_INT(loom_op_result_metric(&out, "filesRemoved.totalFiles", -1), 5);
	CHECK_INT(loom_op_result_metric(&out, "numBins", -1), 1);
	CHECK_INT(loom_op_result_metric(&out, "version", 0), -1);
	CHECK_INT(latest_version(s), 4);
	CHECK_INT(count_parquet(dir), before);
	loom_op_result_free(&out);
	loom_store_free(s);
	test_rmtree(dir);
	free(dir);
}

TEST(a_failing_rewrite_leaves_nothing)
{
	char *dir;
	loom_store *s = open_copy("delta/simple_table", &dir);
	compact_params p;
	loom_op_result out = LOOM_OP_RESULT_INIT;
	char path[4096];
	int before;
	REQUIRE(s != NULL);
	before = count_parquet(dir);
	/* the last file (in path order) is garbage: earlier files are already
	 * written into the new file when the bin fails */
	snprintf(path, sizeof(path), "%s/part-00007-3a0e4727-de0d-41b6-81ef-5223cf40f025-c000.snappy.parquet", dir);
	{
		FILE *f = fopen(path, "r+b");
		REQUIRE(f != NULL);
		fseek(f, -8, SEEK_END);
		fwrite("XXXXXXXX", 1, 8, f);
		fclose(f);
	}
	loom_op_result_init(&out, LOOM_OP_RESULT_VERSION);
	default_params(&p, 64LL << 20);
	CHECK(compact_run(&out, s, &p) < 0);
	CHECK_INT(latest_version(s), 4);
	CHECK_INT(count_parquet(dir), before);
	loom_op_result_free(&out);
	loom_store_free(s);
	test_rmtree(dir);
	free(dir);
}

/* A caller built against an older loom passes an older, shorter options
 * struct: the library accepts it and reads only the fields that version
 * has (a read past the struct's end fails this test under ASan). */
TEST(older_options_versions_are_accepted)
{
	char *dir;
	loom_store *s = open_copy("delta/simple_table", &dir);
	size_t v1 = offsetof(loom_compact_opts, copy_row_group_min_size);
	size_t v2 = offsetof(loom_compact_opts, commit_every);
	void *o1 = malloc(v1), *o2 = malloc(v2);
	loom_compact_opts full = LOOM_COMPACT_OPTS_INIT, bad = LOOM_COMPACT_OPTS_INIT;
	loom_op_result out = LOOM_OP_RESULT_INIT;
	REQUIRE(s != NULL && o1 && o2);
	/* the older structs: the first v1 / v2 bytes of a current one */
	full.dry_run = 1;
	full.version = 1;
	memcpy(o1, &full, v1);
	full.version = 2;
	memcpy(o2, &full, v2);
	CHECK_OK(loom_compact_opts_check(o1));
	loom_op_result_init(&out, LOOM_OP_RESULT_VERSION);
	CHECK_OK(loom_compact(&out, dir, NULL, o1, NULL));
	CHECK_INT(loom_op_result_metric(&out, "filesRemoved.totalFiles", -1), 5);
	loom_op_result_free(&out);
	CHECK_OK(loom_compact(&out, dir, NULL, o2, NULL));
	loom_op_result_free(&out);
	bad.version = LOOM_COMPACT_OPTS_VERSION + 1;
	CHECK_ERR(loom_compact_opts_check(&bad), LOOM_EINVAL);
	bad.version = LOOM_COMPACT_OPTS_VERSION;
	bad.commit_every = -1;
	CHECK_ERR(loom_compact_opts_check(&bad), LOOM_EINVAL);
	CHECK_INT(latest_version(s), 4);
	free(o1);
	free(o2);
	loom_store_free(s);
	test_rmtree(dir);
	free(dir);
}

int main(void)
{
	RUN(plan_packs_small_files_and_skips_large_ones);
	RUN(plan_purges_a_single_file_with_a_dv);
	RUN(concurrent_delete_fails_cleanly);
	RUN(concurrent_append_does_not_conflict);
	RUN(dry_run_writes_nothing);
	RUN(a_failing_rewrite_leaves_nothing);
	RUN(older_options_versions_are_accepted);
	return test_summary();
}
