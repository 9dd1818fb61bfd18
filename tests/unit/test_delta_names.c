/* _delta_log file-name classification (strict: 20-digit versions, 10-digit
 * multi-part numbers, canonical UUIDs). */
#include <string.h>

#include "delta/log_names.h"
#include "test.h"

static int parse(const char *name, delta_log_name *n)
{
	return delta_log_name_parse(name, strlen(name), n);
}

TEST(commits_crc_and_last_checkpoint)
{
	delta_log_name n;
	REQUIRE(parse("00000000000000000000.json", &n) == 1);
	CHECK_INT(n.kind, DELTA_LOG_COMMIT);
	CHECK_INT(n.version, 0);
	REQUIRE(parse("00000000000000000123.json", &n) == 1);
	CHECK_INT(n.version, 123);
	REQUIRE(parse("09223372036854775807.json", &n) == 1);
	CHECK_INT(n.version, INT64_MAX);
	REQUIRE(parse("00000000000000000007.crc", &n) == 1);
	CHECK_INT(n.kind, DELTA_LOG_CRC);
	CHECK_INT(n.version, 7);
	REQUIRE(parse("_last_checkpoint", &n) == 1);
	CHECK_INT(n.kind, DELTA_LOG_LAST_CHECKPOINT);
}

TEST(checkpoints_of_every_kind)
{
	delta_log_name n;
	REQUIRE(parse("00000000000000000010.checkpoint.parquet", &n) == 1);
	CHECK_INT(n.kind, DELTA_LOG_CHECKPOINT);
	CHECK_INT(n.version, 10);
	REQUIRE(parse("00000000000000000005.checkpoint.0000000002.0000000003.parquet", &n) == 1);
	CHECK_INT(n.kind, DELTA_LOG_CHECKPOINT_PART);
	CHECK_INT(n.version, 5);
	CHECK_INT(n.part, 2);
	CHECK_INT(n.parts, 3);
	REQUIRE(parse("00000000000000000006.checkpoint.f5ee283b-37c7-46af-b64c-8f77c6a5c43a.json", &n) == 1);
	CHECK_INT(n.kind, DELTA_LOG_CHECKPOINT_V2);
	CHECK(n.is_json);
	CHECK_STR(n.uuid, "f5ee283b-37c7-46af-b64c-8f77c6a5c43a");
	REQUIRE(parse("00000000000000000002.checkpoint.98a25ba8-d7db-496c-b7ba-fdb90b15f52b.parquet", &n) == 1);
	CHECK_INT(n.kind, DELTA_LOG_CHECKPOINT_V2);
	CHECK(!n.is_json);
}

TEST(compaction_files)
{
	delta_log_name n;
	REQUIRE(parse("00000000000000000006.00000000000000000010.compacted.json", &n) == 1);
	CHECK_INT(n.kind, DELTA_LOG_COMPACTION);
	CHECK_INT(n.version, 6);
	CHECK_INT(n.end_version, 10);
	/* y must be greater than x */
	CHECK(parse("00000000000000000006.00000000000000000006.compacted.json", &n) == 0);
	CHECK(parse("00000000000000000007.00000000000000000006.compacted.json", &n) == 0);
}

TEST(everything_else_is_ignored)
{
	static const char *const bad[] = {
		"0000000000000000000.json",                 /* 19 digits */
		"000000000000000000000.json",               /* 21 digits */
		"0000000000000000000a.json",
		"00000000000000000001.json.tmp",
		".00000000000000000001.json.crc",            /* Hadoop side file */
		"00000000000000000001.JSON",
		"00000000000000000001.checkpoint.0000000000.0000000003.parquet", /* part 0 */
		"00000000000000000001.checkpoint.0000000004.0000000003.parquet", /* part > total */
		"00000000000000000001.checkpoint.000000001.0000000003.parquet",  /* 9 digits */
		"00000000000000000001.checkpoint.f5ee283b-37c7-46af-b64c-8f77c6a5c43.json", /* short uuid */
		"00000000000000000001.checkpoint.f5ee283b_37c7_46af_b64c_8f77c6a5c43a.json",
		"00000000000000000001.checkpoint.not-a-uuid.parquet",
		"00000000000000000001.checkpoint.json",
		"99999999999999999999.json",                /* > INT64_MAX */
		"_sidecars", "_commits", "_staged_commits", "_last_checkpoint.tmp", "",
	};
	size_t i;
	delta_log_name n;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (parse(bad[i], &n) != 0)
			TEST_FAIL_AT("\"%s\" was accepted as kind %d", bad[i], (int)n.kind);
	}
}

TEST(format_version)
{
	char buf[21];
	delta_log_format_version(42, buf);
	CHECK_STR(buf, "00000000000000000042");
}

int main(void)
{
	RUN(commits_crc_and_last_checkpoint);
	RUN(checkpoints_of_every_kind);
	RUN(compaction_files);
	RUN(everything_else_is_ignored);
	RUN(format_version);
	return test_summary();
}
