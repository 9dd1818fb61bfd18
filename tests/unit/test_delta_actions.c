/* Action parsing: the fast add/remove path must agree with the jansson
 * path field by field, and fall back (return 0) on anything unusual. */
#include <string.h>

#include "delta/actions.h"
#include "delta_compare.h"
#include "test.h"

static void compare_line(const char *line)
{
	delta_parse_scratch s1, s2;
	delta_action fa, sa;
	json_t *root = NULL;
	int rc;
	const delta_file *x, *y;

	delta_parse_scratch_init(&s1);
	delta_parse_scratch_init(&s2);
	rc = delta_action_parse_fast(line, strlen(line), "t", &s1, &fa);
	if (rc != 1) {
		TEST_FAIL_AT("fast path did not take: %s", line);
		goto out;
	}
	if (delta_action_parse_line(line, strlen(line), "t", &s2, &root, &sa) < 0) {
		TEST_FAIL_AT("jansson path failed: %s", loom_error_last()->message);
		goto out;
	}
	x = &fa.u.file;
	y = &sa.u.file;
	CHECK_INT(fa.type, sa.type);
	CHECK(test_same_str(x->path, y->path));
	CHECK(test_same_str(x->path_raw, y->path_raw));
	CHECK(x->key_len == y->key_len && memcmp(x->key, y->key, x->key_len) == 0);
	CHECK(test_same_kv(x->partition_values, x->num_partition_values, y->partition_values,
	              y->num_partition_values));
	CHECK(test_same_kv(x->tags, x->num_tags, y->tags, y->num_tags));
	CHECK_INT(x->size, y->size);
	CHECK_INT(x->modification_time, y->modification_time);
	CHECK_INT(x->deletion_timestamp, y->deletion_timestamp);
	CHECK_INT(x->num_records, y->num_records);
	CHECK_INT(x->base_row_id, y->base_row_id);
	CHECK_INT(x->default_row_commit_version, y->default_row_commit_version);
	CHECK(test_same_str(x->stats, y->stats));
	CHECK(test_same_str(x->clustering_provider, y->clustering_provider));
	CHECK_INT(x->dv.storage_type, y->dv.storage_type);
	CHECK(test_same_str(x->dv.path_or_inline_dv, y->dv.path_or_inline_dv));
	CHECK_INT(x->dv.has_offset, y->dv.has_offset);
	CHECK_INT(x->dv.offset, y->dv.offset);
	CHECK_INT(x->dv.size_in_bytes, y->dv.size_in_bytes);
	CHECK_INT(x->dv.cardinality, y->dv.cardinality);
	CHECK_INT(x->data_change, y->data_change);
	CHECK_INT(x->extended_file_metadata, y->extended_file_metadata);
out:
	json_decref(root);
	delta_parse_scratch_dispose(&s1);
	delta_parse_scratch_dispose(&s2);
}

TEST(fast_path_agrees_with_jansson)
{
	compare_line("{\"add\":{\"path\":\"a%20b/part-1.parquet\",\"partitionValues\":{\"x\":\"1\",\"y\":null},"
	             "\"size\":123,\"modificationTime\":1700000000000,\"dataChange\":true,"
	             "\"stats\":\"{\\\"numRecords\\\":7,\\\"minValues\\\":{\\\"s\\\":\\\"a\\\\\\\"b\\\"}}\","
	             "\"tags\":{\"INSERTION_TIME\":\"1\"},\"baseRowId\":5,\"defaultRowCommitVersion\":2,"
	             "\"clusteringProvider\":\"liquid\",\"unknown\":{\"deep\":[1,2.5,{\"z\":null}]}}}");
	compare_line("{\"add\":{\"path\":\"p\",\"partitionValues\":{},\"size\":0,\"modificationTime\":0,"
	             "\"dataChange\":false,\"stats\":null,\"deletionVector\":{\"storageType\":\"u\","
	             "\"pathOrInlineDv\":\"vBn[lx{q8@P<9BNH/isA\",\"offset\":1,\"sizeInBytes\":36,"
	             "\"cardinality\":2,\"maxRowIndex\":9}}}");
	compare_line("{\"remove\":{\"path\":\"x=A%252FA/f.parquet\",\"deletionTimestamp\":1677811194426,"
	             "\"dataChange\":true,\"extendedFileMetadata\":true,\"partitionValues\":{\"x\":\"A%2FA\"},"
	             "\"size\":635,\"deletionVector\":{\"storageType\":\"i\",\"pathOrInlineDv\":\"wi5b=000010000siXQKl0rr91000f55c8Xg0@@D72lkbi5=-{L\","
	             "\"sizeInBytes\":40,\"cardinality\":6}}}");
	compare_line("{\"remove\":{\"path\":\"f\\u00e9\\/g\\t.parquet\",\"dataChange\":false}}");
	compare_line("{\"add\": {\"path\": \"file:///tmp/t/a.parquet\", \"partitionValues\": {}, "
	             "\"size\": 9, \"modificationTime\": 1, \"dataChange\": true } }");
}

TEST(fast_path_declines_unusual_lines)
{
	static const char *const lines[] = {
		"{\"commitInfo\":{\"timestamp\":1}}",
		"{\"add\":{\"partitionValues\":{},\"size\":1}}",            /* no path */
		"{\"add\":{\"path\":\"p\",\"size\":1}}",                     /* no partitionValues */
		"{\"add\":{\"path\":\"p\",\"partitionValues\":{},\"size\":1.5}}",
		"{\"add\":{\"path\":\"p\",\"partitionValues\":{},\"size\":1},\"txn\":{}}",
		"{\"add\":{\"path\":\"p\",\"partitionValues\":{\"a\":1},\"size\":1}}",
		"{\"add\":{\"path\":\"\xc3\xa9\",\"partitionValues\":{},\"size\":1}}", /* UTF-8: jansson checks */
		"{\"add\":{\"path\":\"p\",\"partitionValues\":{},\"size\":99999999999999999999}}",
		"{\"add\":{\"path\":\"p\",\"partitionValues\":{},\"size\":1}",   /* truncated */
		"{\"add\":{\"path\":\"p\",\"partitionValues\":{},\"size\":01}}",
		/* found by fuzzing: the fast path took these, jansson decides otherwise */
		"{\"add\":{\"path\":\"p\",\"partitionValues\":{\"k\":\"1\",\"k\":\"2\"},\"size\":1}}",
		"{\"remove\":{\"path\":\"p\",\"tags\":{\"T\":\"a\",\"T\":\"b\"}}}",
		"{\"add\":{\"path\":\"p\",\"partitionValues\":{},\"size\":1,\"x\":0001274703756}}",
		"{\"add\":{\"path\":\"p\",\"partitionValues\":{},\"size\":1,\"x\":12345678901234567890123}}",
		"{\"add\":{\"path\":\"p\",\"partitionValues\":{},\"size\":1,\"x\":651e4524297000}}",
		"{\"add\":{\"path\":\"p\",\"partitionValues\":{},\"size\":1,\"x\":1.}}",
		"{\"add\":{\"path\":\"p\",\"partitionValues\":{},\"size\":1,\"x\":00.5}}",
		"{\"add\":{\"path\":\"p\",\"partitionValues\":{},\"size\":1,\"x\":1e400}}",
	};
	size_t i;
	for (i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
		delta_parse_scratch s;
		delta_action a;
		delta_parse_scratch_init(&s);
		if (delta_action_parse_fast(lines[i], strlen(lines[i]), "t", &s, &a) != 0)
			TEST_FAIL_AT("fast path took line %zu: %s", i, lines[i]);
		delta_parse_scratch_dispose(&s);
	}
}

/* A repeated key keeps its last value, as in every JSON parser loom is
 * compared with; the fast path used to keep both (found by fuzzing). */
TEST(repeated_map_keys_keep_the_last_value)
{
	static const char line[] =
		"{\"add\":{\"path\":\"p\",\"partitionValues\":{\"k\":\"1\",\"k\":\"2\"},\"size\":1}}";
	delta_parse_scratch s;
	delta_action a;
	json_t *root = NULL;
	delta_parse_scratch_init(&s);
	CHECK_INT(delta_action_parse_fast(line, strlen(line), "t", &s, &a), 0);
	CHECK_OK(delta_action_parse_line(line, strlen(line), "t", &s, &root, &a));
	CHECK_INT(a.u.file.num_partition_values, 1);
	CHECK_STR(a.u.file.partition_values[0].value, "2");
	json_decref(root);
	delta_parse_scratch_dispose(&s);
}

/* commitInfo lines the replay does not keep are checked without a tree:
 * taken only when jansson takes them as a commitInfo too. */
TEST(commit_info_fast_check)
{
	static const char *const taken[] = {
		"{\"commitInfo\":{\"timestamp\":1,\"operation\":\"WRITE\",\"operationParameters\":"
		"{\"mode\":\"Append\",\"partitionBy\":\"[\\\"d\\\"]\"},\"isBlindAppend\":true,"
		"\"metrics\":[1,2.5,-3e10,null,false],\"x\":{}}}",
		"{\"commitInfo\": { \"a\" : [ ] } } ",
	};
	static const char *const declined[] = {
		"{\"commitInfo\":{\"a\":1},\"add\":{}}",   /* two actions */
		"{\"commitInfo\":[]}",                      /* not an object */
		"{\"commitInfo\":{\"a\":01}}",              /* not JSON */
		"{\"commitInfo\":{\"a\":\"\\u0000\"}}",    /* NUL: jansson decides */
		"{\"commitInfo\":{\"a\":\"caf\xc3\xa9\"}}", /* UTF-8: jansson checks it */
		"{\"commitInfo\":{\"a\":1}",                /* cut short */
		"{\"add\":{\"path\":\"p\",\"partitionValues\":{},\"size\":1}}",
	};
	size_t i;
	for (i = 0; i < sizeof(taken) / sizeof(taken[0]); i++) {
		delta_parse_scratch s;
		delta_action a;
		json_t *root = NULL;
		delta_parse_scratch_init(&s);
		CHECK_INT(delta_action_commit_info_fast(taken[i], strlen(taken[i]), &s), 1);
		CHECK_OK(delta_action_parse_line(taken[i], strlen(taken[i]), "t", &s, &root, &a));
		CHECK_INT(a.type, DELTA_ACT_COMMIT_INFO);
		json_decref(root);
		delta_parse_scratch_dispose(&s);
	}
	for (i = 0; i < sizeof(declined) / sizeof(declined[0]); i++) {
		delta_parse_scratch s;
		delta_parse_scratch_init(&s);
		if (delta_action_commit_info_fast(declined[i], strlen(declined[i]), &s) != 0)
			TEST_FAIL_AT("commitInfo fast check took line %zu: %s", i, declined[i]);
		delta_parse_scratch_dispose(&s);
	}
}

TEST(stats_num_records_scanner)
{
	const char *s1 = "{\"minValues\":{\"numRecords\":5,\"a\":\"}\"},\"numRecords\":42}";
	const char *s2 = "{\"numRecords\":3}";
	const char *s3 = "{\"maxValues\":{\"a\":[1,{\"b\":\"x\\\"y\"}]},\"nullCount\":{}}";
	CHECK_INT(delta_stats_num_records(s1, strlen(s1)), 42);
	CHECK_INT(delta_stats_num_records(s2, strlen(s2)), 3);
	CHECK_INT(delta_stats_num_records(s3, strlen(s3)), -1);
	CHECK_INT(delta_stats_num_records("garbage", 7), -1);
	CHECK_INT(delta_stats_num_records("", 0), -1);
}

int main(void)
{
	RUN(fast_path_agrees_with_jansson);
	RUN(fast_path_declines_unusual_lines);
	RUN(repeated_map_keys_keep_the_last_value);
	RUN(commit_info_fast_check);
	RUN(stats_num_records_scanner);
	return test_summary();
}
