/* Interval strings (Spark CalendarInterval syntax) and table properties
 * with their defaults. */
#include <string.h>

#include "delta/props.h"
#include "delta/snapshot.h"
#include "test.h"

#define DAY (24LL * 3600 * 1000)

static int64_t ms(const char *s)
{
	int64_t v = -12345;
	if (delta_interval_parse_ms(s, &v) < 0)
		return -1;
	return v;
}

TEST(interval_forms)
{
	CHECK_INT(ms("interval 7 days"), 7 * DAY);
	CHECK_INT(ms("interval 1 week"), 7 * DAY);
	CHECK_INT(ms("1 week"), 7 * DAY);
	CHECK_INT(ms("168 hours"), 7 * DAY);
	CHECK_INT(ms("INTERVAL 30 DAYS"), 30 * DAY);
	CHECK_INT(ms("interval 1 day 12 hours"), DAY + DAY / 2);
	CHECK_INT(ms("interval 2 weeks 1 day"), 15 * DAY);
	CHECK_INT(ms("interval 0 seconds"), 0);
	CHECK_INT(ms("interval 90 minutes"), 90LL * 60 * 1000);
	CHECK_INT(ms("interval 1.5 seconds"), 1500);
	CHECK_INT(ms("interval 250 milliseconds"), 250);
	CHECK_INT(ms("interval 3000 microseconds"), 3);
	CHECK_INT(ms("interval 1 day -1 hour"), 23LL * 3600 * 1000);
	CHECK_INT(ms("  interval   7   days  "), 7 * DAY);
	CHECK_INT(ms("interval 1 second"), 1000);
}

TEST(interval_errors_are_clear)
{
	int64_t v;
	CHECK_ERR(delta_interval_parse_ms("interval 1 month", &v), LOOM_EINVAL);
	CHECK(strstr(loom_error_last()->message, "months and years") != NULL);
	CHECK_ERR(delta_interval_parse_ms("interval 1 year", &v), LOOM_EINVAL);
	CHECK_ERR(delta_interval_parse_ms("interval", &v), LOOM_EINVAL);
	CHECK_ERR(delta_interval_parse_ms("", &v), LOOM_EINVAL);
	CHECK_ERR(delta_interval_parse_ms("7", &v), LOOM_EINVAL);
	CHECK(strstr(loom_error_last()->message, "without a unit") != NULL);
	CHECK_ERR(delta_interval_parse_ms("interval 7 fortnights", &v), LOOM_EINVAL);
	CHECK(strstr(loom_error_last()->message, "unknown unit") != NULL);
	CHECK_ERR(delta_interval_parse_ms("interval -1 day", &v), LOOM_EINVAL);
	CHECK(strstr(loom_error_last()->message, "negative") != NULL);
	CHECK_ERR(delta_interval_parse_ms("interval 1.5 days", &v), LOOM_EINVAL);
	CHECK_ERR(delta_interval_parse_ms("interval 99999999999999999999 days", &v), LOOM_EINVAL);
	CHECK_ERR(delta_interval_parse_ms("interval 7 days x", &v), LOOM_EINVAL);
}

TEST(defaults_without_configuration)
{
	delta_metadata m;
	delta_table_props p;
	memset(&m, 0, sizeof(m));
	CHECK_OK(delta_props_parse(&m, &p));
	CHECK_INT(p.deleted_file_retention_ms, 7 * DAY);
	CHECK_INT(p.log_retention_ms, 30 * DAY);
	CHECK_INT(p.checkpoint_interval, 10);
	CHECK_INT(p.target_file_size, -1);
	CHECK_INT(p.data_skipping_num_indexed_cols, 32);
	CHECK(p.data_skipping_stats_columns == NULL);
	CHECK_STR(p.column_mapping_mode, "none");
	CHECK_STR(p.checkpoint_policy, "classic");
	CHECK_INT(p.enable_deletion_vectors, 0);
	CHECK_INT(p.enable_in_commit_timestamps, 0);
	CHECK_INT(p.enable_row_tracking, 0);
	CHECK_INT(p.enable_expired_log_cleanup, 1);
}

TEST(values_and_errors)
{
	delta_kv kv[] = {
		{ "delta.deletedFileRetentionDuration", "interval 2 days" },
		{ "delta.logRetentionDuration", "interval 60 days" },
		{ "delta.checkpointInterval", "5" },
		{ "delta.targetFileSize", "134217728" },
		{ "delta.dataSkippingNumIndexedCols", "-1" },
		{ "delta.dataSkippingStatsColumns", "a,b" },
		{ "delta.columnMapping.mode", "name" },
		{ "delta.enableDeletionVectors", "true" },
		{ "delta.checkpointPolicy", "v2" },
		{ "delta.enableInCommitTimestamps", "TRUE" },
		{ "delta.enableRowTracking", "false" },
	};
	delta_metadata m;
	delta_table_props p;
	memset(&m, 0, sizeof(m));
	m.configuration = kv;
	m.num_configuration = sizeof(kv) / sizeof(kv[0]);
	CHECK_OK(delta_props_parse(&m, &p));
	CHECK_INT(p.deleted_file_retention_ms, 2 * DAY);
	CHECK_INT(p.log_retention_ms, 60 * DAY);
	CHECK_INT(p.checkpoint_interval, 5);
	CHECK_INT(p.target_file_size, 134217728);
	CHECK_INT(p.data_skipping_num_indexed_cols, -1);
	CHECK_STR(p.data_skipping_stats_columns, "a,b");
	CHECK_STR(p.column_mapping_mode, "name");
	CHECK_INT(p.enable_deletion_vectors, 1);
	CHECK_STR(p.checkpoint_policy, "v2");
	CHECK_INT(p.enable_in_commit_timestamps, 1);
	CHECK_INT(p.enable_row_tracking, 0);

	kv[0].value = "interval 1 month";
	CHECK_ERR(delta_props_parse(&m, &p), LOOM_EINVAL);
	CHECK(strstr(loom_error_last()->message, "delta.deletedFileRetentionDuration") != NULL);
	kv[0].value = "interval 1 day";
	kv[2].value = "ten";
	CHECK_ERR(delta_props_parse(&m, &p), LOOM_EINVAL);
	CHECK(strstr(loom_error_last()->message, "delta.checkpointInterval") != NULL);
	kv[2].value = "10";
	kv[6].value = "physical";
	CHECK_ERR(delta_props_parse(&m, &p), LOOM_EINVAL);
	kv[6].value = "id";
	kv[7].value = "yes";
	CHECK_ERR(delta_props_parse(&m, &p), LOOM_EINVAL);
	CHECK(strstr(loom_error_last()->message, "delta.enableDeletionVectors") != NULL);
}

TEST(tombstone_expiry)
{
	delta_file f;
	memset(&f, 0, sizeof(f));
	f.deletion_timestamp = 1000;
	CHECK(!delta_tombstone_expired(&f, 1000 + 7 * DAY, 7 * DAY));
	CHECK(delta_tombstone_expired(&f, 1001 + 7 * DAY, 7 * DAY));
	f.deletion_timestamp = -1;  /* unknown: treated as 0 */
	CHECK(delta_tombstone_expired(&f, 7 * DAY + 1, 7 * DAY));
	f.is_add = 1;
	CHECK(!delta_tombstone_expired(&f, INT64_MAX, 0));
	f.is_add = 0;
	f.deletion_timestamp = 5;
	CHECK(!delta_tombstone_expired(&f, INT64_MAX, INT64_MAX));
}

int main(void)
{
	RUN(interval_forms);
	RUN(interval_errors_are_clear);
	RUN(defaults_without_configuration);
	RUN(values_and_errors);
	RUN(tombstone_expiry);
	return test_summary();
}
