/* Commits: put-if-absent publication, conflict checks against winning
 * commits, retries, in-commit timestamps, and appends racing from several
 * processes. */
#include <jansson.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "delta/commit_write.h"
#include "delta/snapshot.h"
#include "store/backend.h"
#include "test.h"
#include "tmpdir.h"
#include "util/clock.h"
#include "util/hashmap.h"

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

static const char *add_line(char *buf, size_t cap, const char *path)
{
	snprintf(buf, cap,
	         "{\"add\":{\"path\":\"%s\",\"partitionValues\":{},\"size\":1,"
	         "\"modificationTime\":1,\"dataChange\":true}}\n", path);
	return buf;
}

static int write_raw_commit(loom_store *s, int64_t version, const char *body)
{
	char key[64];
	snprintf(key, sizeof(key), "_delta_log/%020lld.json", (long long)version);
	return s->put(s, key, body, strlen(body), LOOM_PUT_IF_ABSENT);
}

TEST(append_then_snapshot_sees_it)
{
	char *dir, line[256];
	loom_store *s = open_copy("delta/simple_table", &dir);
	delta_commit c;
	int64_t v = -1;
	REQUIRE(s != NULL);
	delta_commit_init(&c, DELTA_COMMIT_APPEND, 4, "WRITE");
	c.actions = add_line(line, sizeof(line), "new-1.parquet");
	c.actions_len = strlen(line);
	c.is_blind_append = 1;
	CHECK_OK(delta_commit_write(s, &c, &v));
	CHECK_INT(v, 5);
	CHECK_INT(latest_version(s), 5);
	loom_store_free(s);
	test_rmtree(dir);
	free(dir);
}

TEST(rearrange_conflicts_with_a_concurrent_remove_of_its_file)
{
	char *dir;
	loom_store *s = open_copy("delta/simple_table", &dir);
	loom_map removed = LOOM_MAP_INIT;
	const char *victim = "part-00000-2befed33-c358-4768-a43c-3eda0d2a499d-c000.snappy.parquet";
	char winner[512];
	delta_commit c;
	int64_t v = -1;
	loom_store_entry e;
	REQUIRE(s != NULL);
	/* someone else deletes the file we are about to compact, at version 5 */
	snprintf(winner, sizeof(winner),
	         "{\"commitInfo\":{\"operation\":\"DELETE\"}}\n"
	         "{\"remove\":{\"path\":\"%s\",\"deletionTimestamp\":1,\"dataChange\":true}}\n", victim);
	CHECK_OK(write_raw_commit(s, 5, winner));
	CHECK_OK(loom_map_puts(&removed, victim, (void *)victim));
	delta_commit_init(&c, DELTA_COMMIT_REARRANGE, 4, "OPTIMIZE");
	c.removed_keys = &removed;
	c.actions = "{\"remove\":{\"path\":\"x\",\"dataChange\":false}}\n";
	c.actions_len = strlen(c.actions);
	CHECK_ERR(delta_commit_write(s, &c, &v), LOOM_ECONFLICT);
	CHECK(strstr(loom_error_last()->message, "commit 5") != NULL);
	CHECK(strstr(loom_error_last()->message, victim) != NULL);
	CHECK_ERR(s->stat(s, "_delta_log/00000000000000000006.json", &e), LOOM_ENOTFOUND);
	loom_map_dispose(&removed);
	loom_store_free(s);
	test_rmtree(dir);
	free(dir);
}

TEST(rearrange_retries_past_concurrent_appends)
{
	char *dir, line[256];
	loom_store *s = open_copy("delta/simple_table", &dir);
	loom_map removed = LOOM_MAP_INIT;
	delta_commit c;
	int64_t v = -1;
	REQUIRE(s != NULL);
	CHECK_OK(write_raw_commit(s, 5, add_line(line, sizeof(line), "appended-a.parquet")));
	CHECK_OK(write_raw_commit(s, 6, add_line(line, sizeof(line), "appended-b.parquet")));
	CHECK_OK(loom_map_puts(&removed, "some-file.parquet", (void *)"x"));
	delta_commit_init(&c, DELTA_COMMIT_REARRANGE, 4, "OPTIMIZE");
	c.removed_keys = &removed;
	c.actions = add_line(line, sizeof(line), "compacted.parquet");
	c.actions_len = strlen(line);
	CHECK_OK(delta_commit_write(s, &c, &v));
	CHECK_INT(v, 7);
	loom_map_dispose(&removed);
	loom_store_free(s);
	test_rmtree(dir);
	free(dir);
}

/* Records what each attempt was asked for and writes a row tracking
 * domain above it. */
typedef struct attempt_log {
	int64_t versions[4], hwms[4];
	int n;
} attempt_log;

static int attempt_domain(void *ctx, int64_t version, int64_t winners_hwm, loom_buf *out)
{
	attempt_log *l = ctx;
	if (l->n < 4) {
		l->versions[l->n] = version;
		l->hwms[l->n++] = winners_hwm;
	}
	return loom_buf_printf(out, "{\"add\":{\"path\":\"c.parquet\",\"partitionValues\":{},\"size\":1,"
	                            "\"modificationTime\":1,\"dataChange\":false,\"baseRowId\":%lld,"
	                            "\"defaultRowCommitVersion\":%lld}}\n",
	                       (long long)(winners_hwm + 1), (long long)version);
}

TEST(row_tracking_actions_follow_the_winners_high_water_mark)
{
	char *dir, key[64];
	loom_store *s = open_copy("delta/simple_table", &dir);
	loom_map removed = LOOM_MAP_INIT;
	loom_buf got = LOOM_BUF_INIT;
	attempt_log log;
	delta_commit c;
	int64_t v = -1;
	REQUIRE(s != NULL);
	memset(&log, 0, sizeof(log));
	/* two appends won, each raising the mark; the domain is no conflict */
	CHECK_OK(write_raw_commit(s, 5, "{\"commitInfo\":{\"operation\":\"WRITE\"}}\n"
	                                "{\"domainMetadata\":{\"domain\":\"delta.rowTracking\","
	                                "\"configuration\":\"{\\\"rowIdHighWaterMark\\\":41}\",\"removed\":false}}\n"));
	CHECK_OK(write_raw_commit(s, 6, "{\"commitInfo\":{\"operation\":\"WRITE\"}}\n"
	                                "{\"domainMetadata\":{\"domain\":\"delta.rowTracking\","
	                                "\"configuration\":\"{\\\"rowIdHighWaterMark\\\":99}\",\"removed\":false}}\n"));
	CHECK_OK(loom_map_puts(&removed, "some-file.parquet", (void *)"x"));
	delta_commit_init(&c, DELTA_COMMIT_REARRANGE, 4, "OPTIMIZE");
	c.removed_keys = &removed;
	c.attempt_actions = attempt_domain;
	c.attempt_ctx = &log;
	CHECK_OK(delta_commit_write(s, &c, &v));
	CHECK_INT(v, 7);
	CHECK_INT(log.n, 2);
	CHECK_INT(log.versions[0], 5);
	CHECK_INT(log.hwms[0], -1);
	CHECK_INT(log.versions[1], 7);
	CHECK_INT(log.hwms[1], 99);
	snprintf(key, sizeof(key), "_delta_log/%020d.json", 7);
	CHECK_OK(loom_store_read_all(s, key, &got));
	{
		const char *want = "\"baseRowId\":100,\"defaultRowCommitVersion\":7";
		CHECK(memmem(got.ptr, got.size, want, strlen(want)) != NULL);
	}
	loom_buf_dispose(&got);
	loom_map_dispose(&removed);
	loom_store_free(s);
	test_rmtree(dir);
	free(dir);
}

TEST(metadata_change_by_a_winner_is_a_conflict)
{
	char *dir;
	loom_store *s = open_copy("delta/simple_table", &dir);
	loom_buf meta = LOOM_BUF_INIT;
	delta_commit c;
	int64_t v = -1;
	REQUIRE(s != NULL);
	/* the winner re-commits the table's metadata (as a schema change would) */
	CHECK_OK(loom_store_read_all(s, "_delta_log/00000000000000000000.json", &meta));
	{
		char *m = strstr(meta.ptr, "{\"metaData\"");
		char *nl;
		REQUIRE(m != NULL);
		nl = strchr(m, '\n');
		if (nl)
			nl[1] = '\0';
		CHECK_OK(write_raw_commit(s, 5, m));
	}
	delta_commit_init(&c, DELTA_COMMIT_APPEND, 4, "WRITE");
	c.actions = "";
	CHECK_ERR(delta_commit_write(s, &c, &v), LOOM_ECONFLICT);
	CHECK(strstr(loom_error_last()->message, "metadata") != NULL);
	/* a commitInfo-only commit (VACUUM START) is not blocked by it */
	delta_commit_init(&c, DELTA_COMMIT_INFO_ONLY, 4, "VACUUM START");
	CHECK_OK(delta_commit_write(s, &c, &v));
	CHECK_INT(v, 6);
	loom_buf_dispose(&meta);
	loom_store_free(s);
	test_rmtree(dir);
	free(dir);
}

TEST(in_commit_timestamps_increase_strictly)
{
	char *dir;
	loom_store *s = open_copy("delta/simple_table", &dir);
	loom_fixed_clock clk;
	loom_buf raw = LOOM_BUF_INIT;
	delta_commit c;
	int64_t v = -1;
	json_t *root;
	REQUIRE(s != NULL);
	/* version 5 carries an ICT in the future of our clock */
	CHECK_OK(write_raw_commit(s, 5, "{\"commitInfo\":{\"timestamp\":5000,\"inCommitTimestamp\":5000}}\n"));
	loom_fixed_clock_init(&clk, 1000);
	delta_commit_init(&c, DELTA_COMMIT_INFO_ONLY, 5, "VACUUM START");
	c.in_commit_timestamps = 1;
	c.clock = &clk.clock;
	CHECK_OK(delta_commit_write(s, &c, &v));
	CHECK_INT(v, 6);
	CHECK_OK(loom_store_read_all(s, "_delta_log/00000000000000000006.json", &raw));
	root = json_loads(raw.ptr, JSON_DISABLE_EOF_CHECK, NULL);
	REQUIRE(root != NULL);
	CHECK_INT(json_integer_value(json_object_get(json_object_get(root, "commitInfo"), "inCommitTimestamp")), 5001);
	CHECK_INT(json_integer_value(json_object_get(json_object_get(root, "commitInfo"), "timestamp")), 5001);
	json_decref(root);
	loom_buf_dispose(&raw);
	loom_store_free(s);
	test_rmtree(dir);
	free(dir);
}

TEST(commit_metadata_from_config_lands_in_commit_info)
{
	char *dir;
	loom_store *s = open_copy("delta/simple_table", &dir);
	loom_buf raw = LOOM_BUF_INIT;
	const loom_kv meta[] = { { "custom_metadata.team", "data-eng" },
	                         { "custom_metadata.operation", "hijack" },
	                         { "user_metadata", "nightly" } };
	delta_commit c;
	int64_t v = -1;
	REQUIRE(s != NULL);
	delta_commit_init(&c, DELTA_COMMIT_INFO_ONLY, 4, "VACUUM START");
	c.user_metadata = meta;
	c.n_user_metadata = 3;
	CHECK_OK(delta_commit_write(s, &c, &v));
	CHECK_OK(loom_store_read_all(s, "_delta_log/00000000000000000005.json", &raw));
	CHECK(strstr(raw.ptr, "\"team\":\"data-eng\"") != NULL);
	CHECK(strstr(raw.ptr, "\"userMetadata\":\"nightly\"") != NULL);
	CHECK(strstr(raw.ptr, "\"operation\":\"VACUUM START\"") != NULL);
	CHECK(strstr(raw.ptr, "hijack") == NULL);
	CHECK(strstr(raw.ptr, "\"engineInfo\":\"loom/") != NULL);
	loom_buf_dispose(&raw);
	loom_store_free(s);
	test_rmtree(dir);
	free(dir);
}

/* 4 processes x 60 appends, each planned on a stale read version: every
 * append lands exactly once and versions stay contiguous. */
TEST(concurrent_appends_from_processes_all_land)
{
	enum { PROCS = 4, EACH = 60 };
	char *dir = test_copy_fixture("delta/simple_table");
	pid_t pids[PROCS];
	int p, i;
	loom_store *s;
	delta_snapshot *snap;

	for (p = 0; p < PROCS; p++) {
		pids[p] = fork();
		REQUIRE(pids[p] >= 0);
		if (pids[p] == 0) {
			loom_store *ps;
			if (loom_store_open_local(&ps, dir) < 0)
				_exit(3);
			for (i = 0; i < EACH; i++) {
				char line[256], name[64];
				delta_commit c;
				int64_t v;
				snprintf(name, sizeof(name), "p%d-%03d.parquet", p, i);
				delta_commit_init(&c, DELTA_COMMIT_APPEND, 4, "WRITE");
				c.actions = add_line(line, sizeof(line), name);
				c.actions_len = strlen(line);
				c.max_attempts = 1000;
				if (delta_commit_write(ps, &c, &v) < 0)
					_exit(4);
			}
			loom_store_free(ps);
			_exit(0);
		}
	}
	for (p = 0; p < PROCS; p++) {
		int status;
		waitpid(pids[p], &status, 0);
		CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	}
	REQUIRE(loom_store_open_local(&s, dir) == 0);
	CHECK_OK(delta_snapshot_load(&snap, s, -1, NULL));
	CHECK_INT(snap->version, 4 + PROCS * EACH);
	CHECK_INT(snap->num_files, 5 + PROCS * EACH);
	for (p = 0; p < PROCS; p++)
		for (i = 0; i < EACH; i++) {
			char name[64];
			snprintf(name, sizeof(name), "p%d-%03d.parquet", p, i);
			CHECK(delta_snapshot_find_file(snap, name) != NULL);
		}
	delta_snapshot_free(snap);
	loom_store_free(s);
	test_rmtree(dir);
	free(dir);
}

int main(void)
{
	RUN(append_then_snapshot_sees_it);
	RUN(rearrange_conflicts_with_a_concurrent_remove_of_its_file);
	RUN(rearrange_retries_past_concurrent_appends);
	RUN(row_tracking_actions_follow_the_winners_high_water_mark);
	RUN(metadata_change_by_a_winner_is_a_conflict);
	RUN(in_commit_timestamps_increase_strictly);
	RUN(commit_metadata_from_config_lands_in_commit_info);
	RUN(concurrent_appends_from_processes_all_land);
	return test_summary();
}
