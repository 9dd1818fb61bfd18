/* Checkpoint writing and log cleanup at the C level: option checks, the
 * checkpoint schema's levels, tombstone expiry and the cleanup cutoff with
 * an injected clock (truncation to midnight UTC, the mtime boundary), and a
 * V2-spec file (checkpointMetadata row) read back by DuckDB. The CLI-level
 * behaviour is judged by the oracle in tests/scripts/checkpoint_*.sh. */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "delta/checkpoint.h"
#include "delta/snapshot.h"
#include "loom/checkpoint.h"
#include "ops/log/checkpoint.h"
#include "test.h"
#include "tmpdir.h"
#include "util/clock.h"

#define DAY 86400000LL

TEST(api_options)
{
	loom_op_result r = LOOM_OP_RESULT_INIT;
	loom_checkpoint_opts co;
	loom_cleanup_logs_opts lo;
	loom_op_result_init(&r, LOOM_OP_RESULT_VERSION);
	memset(&co, 0, sizeof(co));
	memset(&lo, 0, sizeof(lo));
	CHECK_ERR(loom_checkpoint(&r, "/nonexistent", NULL, &co, NULL), LOOM_EINVAL);
	CHECK_ERR(loom_cleanup_logs(&r, "/nonexistent", NULL, &lo, NULL), LOOM_EINVAL);
	co.version = LOOM_CHECKPOINT_OPTS_VERSION;
	co.table_version = -5;
	CHECK_ERR(loom_checkpoint(&r, "/nonexistent", NULL, &co, NULL), LOOM_EINVAL);
	CHECK_ERR(loom_checkpoint(NULL, "/nonexistent", NULL, &co, NULL), LOOM_EINVAL);
	lo.version = LOOM_CLEANUP_LOGS_OPTS_VERSION;
	lo.retention_hours = -3;
	CHECK_ERR(loom_cleanup_logs(&r, "/nonexistent", NULL, &lo, NULL), LOOM_EINVAL);
	co.table_version = -1;
	CHECK(loom_checkpoint(&r, "/nonexistent", NULL, &co, NULL) < 0);
	/* NULL options are the defaults (latest version / dry run) */
	CHECK_ERR(loom_checkpoint(&r, "/nonexistent", NULL, NULL, NULL), LOOM_ENOTFOUND);
	loom_op_result_free(&r);
}

/* The enum of leaves matches the schema tree, with the right levels. */
TEST(schema_levels)
{
	pq_batch b;
	REQUIRE(ck_batch_init(&b, CK_LAYOUT_V2) == 0);
	CHECK_INT(b.num_columns, CK_NUM_LEAVES);
	CHECK_INT(b.columns[CK_TXN_APPID].max_def, 2);
	CHECK_INT(b.columns[CK_ADD_PATH].max_def, 2);
	CHECK_INT(b.columns[CK_ADD_PV_K].max_def, 3);
	CHECK_INT(b.columns[CK_ADD_PV_K].max_rep, 1);
	CHECK_INT(b.columns[CK_ADD_PV_V].max_def, 4);
	CHECK_INT(b.columns[CK_ADD_DV_CARD].max_def, 3);
	CHECK_INT(b.columns[CK_ADD_DV_CARD].type, PQ_INT64);
	CHECK_INT(b.columns[CK_ADD_DV_OFFSET].type, PQ_INT32);
	CHECK_INT(b.columns[CK_ADD_CLUSTERING].type, PQ_BYTE_ARRAY);
	CHECK_INT(b.columns[CK_REM_EXTMETA].type, PQ_BOOLEAN);
	CHECK_INT(b.columns[CK_REM_DRCV].type, PQ_INT64);
	CHECK_INT(b.columns[CK_META_FMT_OPT_V].max_def, 5);
	CHECK_INT(b.columns[CK_META_PCOLS].max_def, 4);
	CHECK_INT(b.columns[CK_META_PCOLS].max_rep, 1);
	CHECK_INT(b.columns[CK_META_CREATED].type, PQ_INT64);
	CHECK_INT(b.columns[CK_PROTO_MINR].type, PQ_INT32);
	CHECK_INT(b.columns[CK_PROTO_WF].max_def, 4);
	CHECK_INT(b.columns[CK_DOM_REMOVED].type, PQ_BOOLEAN);
	CHECK_INT(b.columns[CK_CKMETA_VERSION].max_def, 2);
	CHECK_INT(b.columns[CK_CKMETA_TAGS_V].max_def, 4);
	CHECK_INT(b.columns[CK_SIDECAR_PATH].max_def, 2);
	CHECK_INT(b.columns[CK_SIDECAR_MTIME].type, PQ_INT64);
	CHECK_INT(b.columns[CK_SIDECAR_TAGS_K].max_rep, 1);
	pq_batch_free(&b);
	REQUIRE(ck_batch_init(&b, CK_LAYOUT_V1) == 0);
	CHECK_INT(b.num_columns, CK_CKMETA_VERSION);
	pq_batch_free(&b);
	/* a sidecar holds add and remove only: the first leaves */
	REQUIRE(ck_batch_init(&b, CK_LAYOUT_SIDECAR) == 0);
	CHECK_INT(b.num_columns, CK_TXN_APPID);
	CHECK_INT(b.columns[CK_REM_DRCV].type, PQ_INT64);
	pq_batch_free(&b);
}

static int set_mtime(const char *dir, const char *name, int64_t ms)
{
	char path[4096];
	struct timespec ts[2];
	snprintf(path, sizeof(path), "%s/_delta_log/%s", dir, name);
	ts[0].tv_sec = ts[1].tv_sec = (time_t)(ms / 1000);
	ts[0].tv_nsec = ts[1].tv_nsec = (long)(ms % 1000) * 1000000L;
	return utimensat(AT_FDCWD, path, ts, 0);
}

static int exists(const char *dir, const char *name)
{
	char path[4096];
	struct stat st;
	snprintf(path, sizeof(path), "%s/_delta_log/%s", dir, name);
	return stat(path, &st) == 0;
}

#define C(n) "0000000000000000000" #n ".json"

/* A requested cancel token stops a checkpoint before it is published and
 * a log cleanup before its first deletion: nothing changes on disk. */
TEST(cancelled_before_publishing)
{
	char *dir = test_copy_fixture("delta/simple_table");
	loom_cancel *cancel = NULL;
	loom_op_result r = LOOM_OP_RESULT_INIT;
	REQUIRE(loom_cancel_new(&cancel) == 0);
	CHECK(!loom_cancel_requested(cancel));
	loom_cancel_request(cancel);
	CHECK(loom_cancel_requested(cancel));
	loom_op_result_init(&r, LOOM_OP_RESULT_VERSION);
	CHECK_ERR(loom_checkpoint(&r, dir, NULL, NULL, cancel), LOOM_ECANCELLED);
	CHECK(!exists(dir, "00000000000000000004.checkpoint.parquet"));
	CHECK(!exists(dir, "_last_checkpoint"));
	loom_op_result_free(&r);
	loom_cancel_reset(cancel);
	CHECK(!loom_cancel_requested(cancel));
	CHECK_OK(loom_checkpoint(&r, dir, NULL, NULL, cancel));
	CHECK(exists(dir, "00000000000000000004.checkpoint.parquet"));
	loom_op_result_free(&r);
	loom_cancel_free(cancel);
	loom_cancel_free(NULL);
	loom_cancel_request(NULL);
	CHECK(!loom_cancel_requested(NULL));
	test_rmtree(dir);
	free(dir);
}

/* now = 2026-01-31 12:00 UTC; cutoff = now - 30 days = 2026-01-01 12:00,
 * truncated to 2026-01-01 00:00 (T0). */
TEST(cleanup_cutoff)
{
	const int64_t now = 1769860800000LL, t0 = 1767225600000LL;
	char *dir = test_copy_fixture("delta/simple_table");
	loom_store *s = NULL;
	loom_fixed_clock clk;
	checkpoint_params cp;
	log_cleanup_params lp;
	loom_op_result r = LOOM_OP_RESULT_INIT;
	int i;

	REQUIRE(loom_store_open_local(&s, dir) == 0);
	loom_fixed_clock_init(&clk, now);
	memset(&cp, 0, sizeof(cp));
	cp.version = 2;
	cp.clock = &clk.clock;
	loom_op_result_init(&r, LOOM_OP_RESULT_VERSION);
	CHECK_OK(checkpoint_run(&r, s, &cp));
	CHECK_INT(loom_op_result_metric(&r, "created", 0), 1);
	loom_op_result_free(&r);

	/* commits 0, 1: 1 ms after T0 (younger than the truncated cutoff but
	 * older than the untruncated one); commit 2 and its checkpoint at T0. */
	CHECK(set_mtime(dir, C(0), t0 + 1) == 0 && set_mtime(dir, C(1), t0 + 1) == 0);
	CHECK(set_mtime(dir, C(2), t0) == 0);
	CHECK(set_mtime(dir, "00000000000000000002.checkpoint.parquet", t0) == 0);
	memset(&lp, 0, sizeof(lp));
	lp.retention_hours = -1;
	lp.clock = &clk.clock;
	loom_op_result_init(&r, LOOM_OP_RESULT_VERSION);
	CHECK_OK(log_cleanup_run(&r, s, &lp));
	CHECK_INT(loom_op_result_metric(&r, "cutoffMs", 0), t0);
	CHECK_INT(loom_op_result_metric(&r, "checkpointVersion", -2), 2);
	CHECK_INT(r.n_files_deleted, 0); /* 0 and 1 are not older than T0 */
	loom_op_result_free(&r);

	/* at T0 exactly they are old enough: deleted, the rest stays */
	CHECK(set_mtime(dir, C(0), t0) == 0 && set_mtime(dir, C(1), t0) == 0);
	lp.dry_run = 1;
	loom_op_result_init(&r, LOOM_OP_RESULT_VERSION);
	CHECK_OK(log_cleanup_run(&r, s, &lp));
	CHECK_INT(r.n_files_deleted, 2);
	CHECK(exists(dir, C(0)) && exists(dir, C(1)));
	loom_op_result_free(&r);
	lp.dry_run = 0;
	loom_op_result_init(&r, LOOM_OP_RESULT_VERSION);
	CHECK_OK(log_cleanup_run(&r, s, &lp));
	REQUIRE(r.n_files_deleted == 2);
	CHECK_STR(r.files_deleted[0], "_delta_log/" C(0));
	CHECK_STR(r.files_deleted[1], "_delta_log/" C(1));
	CHECK(!exists(dir, C(0)) && !exists(dir, C(1)));
	for (i = 2; i <= 4; i++) {
		char name[64];
		snprintf(name, sizeof(name), "%020d.json", i);
		CHECK(exists(dir, name));
	}
	CHECK(exists(dir, "00000000000000000002.checkpoint.parquet"));
	loom_op_result_free(&r);

	/* a retention of 0 hours with the clock a day later: the newest old
	 * commit is 4, but the only checkpoint at or before it is 2: kept.
	 * Loading the table now needs checkpoint 2 (commits 0, 1 are gone). */
	loom_fixed_clock_init(&clk, now + DAY);
	for (i = 2; i <= 4; i++) {
		char name[64];
		snprintf(name, sizeof(name), "%020d.json", i);
		CHECK(set_mtime(dir, name, t0) == 0);
	}
	lp.retention_hours = 0;
	lp.dry_run = 1;
	loom_op_result_init(&r, LOOM_OP_RESULT_VERSION);
	CHECK_OK(log_cleanup_run(&r, s, &lp));
	CHECK_INT(loom_op_result_metric(&r, "checkpointVersion", -2), 2);
	CHECK_INT(r.n_files_deleted, 0);
	loom_op_result_free(&r);
	loom_store_free(s);
	test_rmtree(dir);
	free(dir);
}

/* Tombstones expire at deletionTimestamp <= now - 1 week. */
TEST(tombstone_expiry)
{
	char *dir = test_copy_fixture("delta/simple_table");
	loom_store *s = NULL;
	loom_fixed_clock clk;
	checkpoint_params cp;
	loom_op_result r = LOOM_OP_RESULT_INIT;
	delta_snapshot *snap = NULL;
	int64_t newest = 0;
	size_t i;

	REQUIRE(loom_store_open_local(&s, dir) == 0);
	REQUIRE(delta_snapshot_load(&snap, s, -1, NULL) == 0);
	REQUIRE(snap->num_tombstones > 0);
	for (i = 0; i < snap->num_tombstones; i++)
		if (snap->tombstones[i]->deletion_timestamp > newest)
			newest = snap->tombstones[i]->deletion_timestamp;
	/* one ms before the newest tombstone expires: it alone is kept */
	loom_fixed_clock_init(&clk, newest + 7 * DAY - 1);
	memset(&cp, 0, sizeof(cp));
	cp.version = -1;
	cp.clock = &clk.clock;
	loom_op_result_init(&r, LOOM_OP_RESULT_VERSION);
	CHECK_OK(checkpoint_run(&r, s, &cp));
	CHECK(loom_op_result_metric(&r, "numRemoveFiles", -1) >= 1);
	CHECK_INT(loom_op_result_metric(&r, "numRemoveFiles", -1) +
	          loom_op_result_metric(&r, "numExpiredTombstones", -1),
	          (int64_t)snap->num_tombstones);
	CHECK_INT(loom_op_result_metric(&r, "numActions", -1),
	          2 + (int64_t)snap->num_files + loom_op_result_metric(&r, "numRemoveFiles", -1));
	loom_op_result_free(&r);
	delta_snapshot_free(snap);
	loom_store_free(s);
	test_rmtree(dir);
	free(dir);
}

/* The V2 spec: one checkpointMetadata row with the version (DuckDB reads). */
TEST(v2_file)
{
	char *dir = test_copy_fixture("delta/simple_table");
	loom_store *s = NULL;
	loom_store_writer *w = NULL;
	delta_snapshot *snap = NULL;
	ck_counts counts;
	int64_t actions;
	const char *key = "_delta_log/00000000000000000004.checkpoint.parquet";

	REQUIRE(loom_store_open_local(&s, dir) == 0);
	REQUIRE(delta_snapshot_load(&snap, s, -1, NULL) == 0);
	REQUIRE(s->writer_open(s, key, LOOM_PUT_IF_ABSENT, &w) == 0);
	CHECK_OK(checkpoint_write_parquet(w, snap, 0, CK_LAYOUT_V2, &counts));
	CHECK_OK(w->commit(w));
	actions = counts.actions;
	CHECK_INT(actions, 3 + (int64_t)snap->num_files + (int64_t)snap->num_tombstones);
	CHECK_INT(test_sh("NODE_PATH='%s/build/oracle-deps/node_modules' node -e '"
	                  "const api=require(\"@duckdb/node-api\");(async()=>{"
	                  "const c=await (await api.DuckDBInstance.create(\":memory:\")).connect();"
	                  "const r=(await c.runAndReadAll(\"SELECT count(*) n, count(checkpointMetadata) m,"
	                  " max(checkpointMetadata.version) v FROM read_parquet(\\x27%s/%s\\x27)\")).getRowObjectsJson()[0];"
	                  "process.exit(Number(r.n)===%lld && Number(r.m)===1 && Number(r.v)===4 ? 0 : 1)})()"
	                  ".catch(e=>{console.error(e);process.exit(1)})'",
	                  LOOM_SOURCE_DIR, dir, key, (long long)actions),
	          0);
	delta_snapshot_free(snap);
	loom_store_free(s);
	test_rmtree(dir);
	free(dir);
}

/* A checkpoint written over an older one streams that one's adds (the
 * load leaves them in its file): the commits since decide over them, and
 * the result equals the state replayed from the commits alone. */
TEST(streams_previous_checkpoint)
{
	char *dir = test_copy_fixture("delta/simple_table");
	loom_store *s = NULL;
	checkpoint_params cp;
	delta_load_opts lo;
	delta_snapshot *full = NULL, *deferred = NULL, *replayed = NULL, *after = NULL;
	loom_op_result r = LOOM_OP_RESULT_INIT;
	size_t i;

	REQUIRE(loom_store_open_local(&s, dir) == 0);
	memset(&cp, 0, sizeof(cp));
	cp.version = 2;
	loom_op_result_init(&r, LOOM_OP_RESULT_VERSION);
	CHECK_OK(checkpoint_run(&r, s, &cp));
	loom_op_result_free(&r);

	REQUIRE(delta_snapshot_load(&full, s, -1, NULL) == 0);
	delta_load_opts_init(&lo);
	lo.defer_checkpoint_adds = 1;
	REQUIRE(delta_snapshot_load(&deferred, s, -1, &lo) == 0);
	CHECK_INT(deferred->checkpoint_version, 2);
	CHECK_INT(deferred->num_deferred_keys, 1);
	CHECK(deferred->num_deferred_files > 0);
	CHECK_INT(deferred->num_files + deferred->num_deferred_files, full->num_files);
	CHECK_INT(deferred->total_bytes + deferred->deferred_bytes, full->total_bytes);
	CHECK_INT(deferred->num_tombstones, full->num_tombstones);

	cp.version = -1;
	loom_op_result_init(&r, LOOM_OP_RESULT_VERSION);
	CHECK_OK(checkpoint_run(&r, s, &cp));
	CHECK_INT(loom_op_result_metric(&r, "created", 0), 1);
	CHECK_INT(loom_op_result_metric(&r, "numAddFiles", -1), (int64_t)full->num_files);
	loom_op_result_free(&r);

	delta_load_opts_init(&lo);
	lo.ignore_checkpoints = 1;
	REQUIRE(delta_snapshot_load(&replayed, s, -1, &lo) == 0);
	REQUIRE(delta_snapshot_load(&after, s, -1, NULL) == 0);
	CHECK_INT(after->checkpoint_version, full->version);
	REQUIRE(after->num_files == replayed->num_files);
	for (i = 0; i < after->num_files; i++) {
		CHECK_STR(after->files[i]->path, replayed->files[i]->path);
		CHECK_INT(after->files[i]->size, replayed->files[i]->size);
		CHECK_STR(after->files[i]->stats ? after->files[i]->stats : "",
		          replayed->files[i]->stats ? replayed->files[i]->stats : "");
	}
	delta_snapshot_free(full);
	delta_snapshot_free(deferred);
	delta_snapshot_free(replayed);
	delta_snapshot_free(after);
	loom_store_free(s);
	test_rmtree(dir);
	free(dir);
}

int main(void)
{
	RUN(api_options);
	RUN(schema_levels);
	RUN(cancelled_before_publishing);
	RUN(cleanup_cutoff);
	RUN(tombstone_expiry);
	RUN(v2_file);
	RUN(streams_previous_checkpoint);
	return test_summary();
}
