/* Damaged and unusual logs, built in temp copies of the fixtures: each
 * must give a clear error (code + message naming the file, line or
 * version), or be tolerated where the protocol says so. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loom/table.h"
#include "test.h"
#include "tmpdir.h"

#define LOG "_delta_log/"
#define V(n) "0000000000000000000" #n

static int load(const char *dir, int64_t version, loom_snapshot **out)
{
	loom_table *t = NULL;
	int rc = loom_table_open(&t, dir);
	*out = NULL;
	if (rc == 0)
		rc = loom_snapshot_load(out, t, version);
	loom_table_free(t);
	return rc;
}

static int msg_has(const char *needle)
{
	const loom_error *e = loom_error_last();
	if (!e || !strstr(e->message, needle)) {
		fprintf(stderr, "  message \"%s\" lacks \"%s\"\n", e ? e->message : "(none)", needle);
		return 0;
	}
	return 1;
}

TEST(truncated_last_line_is_corrupt_naming_file_and_line)
{
	char *dir = test_copy_fixture("delta/simple_table");
	loom_snapshot *s;
	/* cut the last commit in the middle of its last line */
	REQUIRE(test_sh("cd '%s/" LOG "' && f=" V(4) ".json && n=$(wc -c < $f) && "
	                "head -c $((n - 40)) $f > t && mv t $f", dir) == 0);
	CHECK_ERR(load(dir, -1, &s), LOOM_ECORRUPT);
	CHECK(msg_has(V(4) ".json line"));
	CHECK(msg_has("invalid JSON"));
	/* the version before it still loads */
	CHECK_OK(load(dir, 3, &s));
	CHECK_INT(loom_snapshot_version(s), 3);
	loom_snapshot_free(s);
	test_rmtree(dir);
	free(dir);
}

TEST(invalid_json_line_names_line_number)
{
	char *dir = test_copy_fixture("delta/simple_table");
	loom_snapshot *s;
	REQUIRE(test_sh("cd '%s/" LOG "' && sed -i '2s/.*/{\"add\": {oops/' " V(1) ".json", dir) == 0);
	CHECK_ERR(load(dir, -1, &s), LOOM_ECORRUPT);
	CHECK(msg_has(V(1) ".json line 2"));
	test_rmtree(dir);
	free(dir);
}

TEST(non_object_line_and_missing_required_field)
{
	char *dir = test_copy_fixture("delta/simple_table");
	loom_snapshot *s;
	REQUIRE(test_sh("cd '%s/" LOG "' && echo '[1,2]' >> " V(2) ".json", dir) == 0);
	CHECK_ERR(load(dir, -1, &s), LOOM_ECORRUPT);
	CHECK(msg_has("must be a JSON object"));
	REQUIRE(test_sh("cd '%s/" LOG "' && sed -i '$d' " V(2) ".json && "
	                "echo '{\"add\":{\"size\":1,\"partitionValues\":{}}}' >> " V(2) ".json",
	                dir) == 0);
	CHECK_ERR(load(dir, -1, &s), LOOM_ECORRUPT);
	CHECK(msg_has("\"path\" is missing"));
	CHECK(msg_has(V(2) ".json line"));
	test_rmtree(dir);
	free(dir);
}

TEST(unknown_actions_and_fields_are_ignored)
{
	char *dir = test_copy_fixture("delta/simple_table");
	loom_snapshot *s;
	REQUIRE(test_sh("cd '%s/" LOG "' && echo '{\"futureAction\":{\"x\":1}}' >> " V(4) ".json && "
	                "sed -i '1s/^{\"commitInfo\":{/{\"unknownTop\":3,\"commitInfo\":{\"newField\":[1],/' "
	                V(4) ".json", dir) == 0);
	CHECK_OK(load(dir, -1, &s));
	CHECK_INT(loom_snapshot_file_count(s), 5);
	loom_snapshot_free(s);
	test_rmtree(dir);
	free(dir);
}

TEST(missing_commit_in_the_middle_is_a_gap)
{
	char *dir = test_copy_fixture("delta/simple_table");
	loom_snapshot *s;
	REQUIRE(test_sh("rm '%s/" LOG V(2) ".json'", dir) == 0);
	CHECK_ERR(load(dir, -1, &s), LOOM_ECORRUPT);
	CHECK(msg_has("version 2"));
	CHECK(msg_has("missing"));
	/* versions before the gap are fine */
	CHECK_OK(load(dir, 1, &s));
	CHECK_INT(loom_snapshot_version(s), 1);
	loom_snapshot_free(s);
	test_rmtree(dir);
	free(dir);
}

TEST(version_out_of_range_and_not_a_table)
{
	char *dir = test_copy_fixture("delta/simple_table");
	char *empty = test_mkdtemp("empty");
	loom_snapshot *s;
	CHECK_ERR(load(dir, 5, &s), LOOM_ENOTFOUND);
	CHECK(msg_has("latest version is 4"));
	CHECK_ERR(load(empty, -1, &s), LOOM_ENOTFOUND);
	CHECK(msg_has("not a Delta table"));
	/* commits 0-1 cleaned up, no checkpoint: old versions cannot be rebuilt */
	REQUIRE(test_sh("rm '%s/" LOG V(0) ".json' '%s/" LOG V(1) ".json'", dir, dir) == 0);
	CHECK_ERR(load(dir, -1, &s), LOOM_ENOTFOUND);
	CHECK(msg_has("cannot be rebuilt"));
	test_rmtree(dir);
	test_rmtree(empty);
	free(dir);
	free(empty);
}

TEST(stale_or_corrupt_last_checkpoint_is_ignored)
{
	char *dir = test_copy_fixture("delta/simple_table");
	loom_snapshot *s;
	REQUIRE(test_sh("echo '{\"version\":99,\"size\":3}' > '%s/" LOG "_last_checkpoint'", dir) == 0);
	CHECK_OK(load(dir, -1, &s));
	CHECK_INT(loom_snapshot_version(s), 4);
	CHECK_INT(loom_snapshot_last_checkpoint_hint(s), 99);
	loom_snapshot_free(s);
	REQUIRE(test_sh("echo 'garbage{' > '%s/" LOG "_last_checkpoint'", dir) == 0);
	CHECK_OK(load(dir, -1, &s));
	CHECK_INT(loom_snapshot_version(s), 4);
	CHECK_INT(loom_snapshot_last_checkpoint_hint(s), -1);
	loom_snapshot_free(s);
	/* side files that are not log files are ignored */
	REQUIRE(test_sh("cd '%s/" LOG "' && touch ." V(5) ".json.crc " V(5) ".json.tmp "
	                "0000000000000000005.json " V(7) ".checkpoint.0000000001.0000000002.parquet",
	                dir) == 0);
	CHECK_OK(load(dir, -1, &s));
	CHECK_INT(loom_snapshot_version(s), 4);
	loom_snapshot_free(s);
	test_rmtree(dir);
	free(dir);
}

/* A V2 checkpoint whose sidecar is gone is incomplete: like a multi-part
 * checkpoint missing a part, it is passed over for an older one (with a
 * warning); with nothing older to use, loading fails naming the sidecar. */
TEST(checkpoint_with_missing_sidecar)
{
	char *dir = test_copy_fixture("delta/checkpoint-v2-table");
	loom_snapshot *s;
	REQUIRE(test_sh("rm '%s/" LOG "_sidecars/'" V(8) ".checkpoint.*.parquet", dir) == 0);
	CHECK_OK(load(dir, -1, &s));
	CHECK_INT(loom_snapshot_version(s), 9);
	CHECK_INT(loom_snapshot_checkpoint_version(s), 6);
	REQUIRE(loom_snapshot_warning_count(s) >= 1);
	CHECK(strstr(loom_snapshot_warning_at(s, 0), "_sidecars/" V(8) ".checkpoint") != NULL);
	CHECK(strstr(loom_snapshot_warning_at(s, 0), "does not exist") != NULL);
	loom_snapshot_free(s);
	/* no older checkpoint and the early commits gone: an error */
	REQUIRE(test_sh("cd '%s/" LOG "' && rm " V(6) ".checkpoint.*.json 0000000000000000000[0-7].json",
	                dir) == 0);
	CHECK_ERR(load(dir, -1, &s), LOOM_ENOTFOUND);
	CHECK(msg_has("_sidecars/" V(8) ".checkpoint"));
	CHECK(msg_has("does not exist"));
	test_rmtree(dir);
	free(dir);
}

TEST(v2_checkpoint_without_checkpoint_metadata)
{
	char *dir = test_copy_fixture("delta/checkpoint-v2-table");
	loom_snapshot *s;
	REQUIRE(test_sh("cd '%s/" LOG "' && f=$(ls " V(8) ".checkpoint.*.json) && "
	                "grep -v checkpointMetadata $f > t && mv t $f", dir) == 0);
	CHECK_ERR(load(dir, -1, &s), LOOM_ECORRUPT);
	CHECK(msg_has("checkpointMetadata"));
	test_rmtree(dir);
	free(dir);
}

TEST(bad_deletion_vector_checksum)
{
	char *dir = test_copy_fixture("delta/table-with-dv-small");
	loom_snapshot *s;
	uint64_t *rows;
	size_t n;
	CHECK_OK(load(dir, -1, &s));
	CHECK_OK(loom_snapshot_deleted_rows(&rows, &n, s, 0));
	CHECK_INT(n, 2);
	loom_snapshot_rows_free(rows);
	loom_snapshot_free(s);
	/* flip one bit inside the bitmap (after version byte + size field) */
	REQUIRE(test_sh("cd '%s' && f=$(ls deletion_vector_*.bin) && "
	                "python3 -c \"import sys; b=bytearray(open('$f','rb').read()); "
	                "b[20]^=1; open('$f','wb').write(b)\"", dir) == 0);
	CHECK_OK(load(dir, -1, &s));
	CHECK_ERR(loom_snapshot_deleted_rows(&rows, &n, s, 0), LOOM_ECORRUPT);
	CHECK(msg_has("CRC-32 mismatch"));
	CHECK(msg_has("deletion_vector_"));
	loom_snapshot_free(s);
	/* a DV file that is gone */
	REQUIRE(test_sh("rm '%s'/deletion_vector_*.bin", dir) == 0);
	CHECK_OK(load(dir, -1, &s));
	CHECK_ERR(loom_snapshot_deleted_rows(&rows, &n, s, 0), LOOM_ENOTFOUND);
	loom_snapshot_free(s);
	test_rmtree(dir);
	free(dir);
}

TEST(unknown_reader_feature_is_refused)
{
	char *dir = test_copy_fixture("delta/table-with-dv-small");
	loom_snapshot *s;
	REQUIRE(test_sh("cd '%s/" LOG "' && sed -i 's/\"readerFeatures\":\\[\"deletionVectors\"\\]/"
	                "\"readerFeatures\":[\"deletionVectors\",\"fancyFuture\"]/' " V(0) ".json",
	                dir) == 0);
	CHECK_ERR(load(dir, -1, &s), LOOM_EUNSUPPORTED);
	CHECK(msg_has("fancyFuture"));
	test_rmtree(dir);
	free(dir);
}

TEST(empty_commit_file_is_corrupt)
{
	char *dir = test_copy_fixture("delta/simple_table");
	loom_snapshot *s;
	REQUIRE(test_sh(": > '%s/" LOG V(3) ".json'", dir) == 0);
	CHECK_ERR(load(dir, -1, &s), LOOM_ECORRUPT);
	CHECK(msg_has(V(3) ".json"));
	test_rmtree(dir);
	free(dir);
}

TEST(incomplete_multipart_checkpoint_is_ignored)
{
	char *dir = test_copy_fixture("delta/v1-multi-part-partitioned-struct-stats-only");
	loom_snapshot *s;
	REQUIRE(test_sh("rm '%s/" LOG V(5) ".checkpoint.0000000002.0000000003.parquet'", dir) == 0);
	CHECK_OK(load(dir, -1, &s));
	CHECK_INT(loom_snapshot_version(s), 5);
	CHECK_INT(loom_snapshot_checkpoint_version(s), -1);
	CHECK_INT(loom_snapshot_file_count(s), 5);
	CHECK_INT(loom_snapshot_replayed_commit_count(s), 6);
	loom_snapshot_free(s);
	/* a 0-byte checkpoint (failed write) is not a checkpoint either */
	REQUIRE(test_sh("cd '%s/" LOG "' && rm " V(5) ".checkpoint.* && : > " V(5) ".checkpoint.parquet",
	                dir) == 0);
	CHECK_OK(load(dir, -1, &s));
	CHECK_INT(loom_snapshot_checkpoint_version(s), -1);
	CHECK_INT(loom_snapshot_file_count(s), 5);
	loom_snapshot_free(s);
	test_rmtree(dir);
	free(dir);
}

int main(void)
{
	RUN(truncated_last_line_is_corrupt_naming_file_and_line);
	RUN(invalid_json_line_names_line_number);
	RUN(non_object_line_and_missing_required_field);
	RUN(unknown_actions_and_fields_are_ignored);
	RUN(missing_commit_in_the_middle_is_a_gap);
	RUN(version_out_of_range_and_not_a_table);
	RUN(stale_or_corrupt_last_checkpoint_is_ignored);
	RUN(checkpoint_with_missing_sidecar);
	RUN(v2_checkpoint_without_checkpoint_metadata);
	RUN(bad_deletion_vector_checksum);
	RUN(unknown_reader_feature_is_refused);
	RUN(empty_commit_file_is_corrupt);
	RUN(incomplete_multipart_checkpoint_is_ignored);
	return test_summary();
}
