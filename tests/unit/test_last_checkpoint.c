/* tests/unit/test_last_checkpoint.c - the _last_checkpoint checksum
 * (PROTOCOL.md "JSON checksum"): the protocol's own example, and the
 * checksums Delta Spark / Databricks wrote into the fixtures' files; a
 * tampered file fails; what loom writes verifies and is read as a hint. */
#include <stdio.h>
#include <string.h>

#include "delta/last_checkpoint.h"
#include "delta/log_listing.h"
#include "loom/store.h"
#include "test.h"
#include "tmpdir.h"
#include "util/md5.h"

TEST(md5_rfc1321_vectors)
{
	char out[33];
	loom_md5_hex("", 0, out);
	CHECK_STR(out, "d41d8cd98f00b204e9800998ecf8427e");
	loom_md5_hex("message digest", 14, out);
	CHECK_STR(out, "f96b697d7cb7938d525a2f31aaf161d0");
	/* 56 bytes: the padding spills into a second block */
	loom_md5_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", 56, out);
	CHECK_STR(out, "8215ef0796a20bcaaae116d3876c664a");
}

TEST(protocol_example)
{
	/* PROTOCOL.md, "JSON checksum": the test sample and its checksum */
	const char *text = "{\"k0\":\"'v 0'\", \"checksum\": \"adsaskfljadfkjadfkj\", \"k1\":{\"k2\": 2, "
	                   "\"k3\": [\"v3\", [1, 2], {\"k4\": \"v4\", \"k5\": [\"v5\", \"v6\", \"v7\"]}]}}";
	json_t *root = json_loads(text, JSON_PRESERVE_ORDER, NULL);
	char sum[33];
	REQUIRE(root);
	CHECK_OK(delta_json_checksum(root, sum));
	CHECK_STR(sum, "6a92d155a59bf2eecbd4b4ec7fd1f875");
	/* the stored checksum does not match this sum: the file is rejected */
	CHECK(!delta_json_checksum_ok(root));
	json_object_set_new(root, "checksum", json_string(sum));
	CHECK(delta_json_checksum_ok(root));
	json_decref(root);
}

TEST(spark_written_fixture_checksums)
{
	static const char *const tables[] = {
		"checkpoint-cdf-table", "checkpoint-v2-table", "external-table-different-nullability",
		"table_with_deletion_logs", "v1-multi-part-partitioned-struct-stats-only",
		"v2-checkpoints-json-with-sidecars", "v2-classic-checkpoint-parquet",
		"v2-parquet-sidecars-struct-stats-only",
	};
	size_t i;
	for (i = 0; i < sizeof(tables) / sizeof(tables[0]); i++) {
		char path[1024];
		json_error_t err;
		json_t *root, *num;
		snprintf(path, sizeof(path), "%s/delta/%s/_delta_log/_last_checkpoint", LOOM_FIXTURES_DIR,
		         tables[i]);
		root = json_load_file(path, JSON_PRESERVE_ORDER, &err);
		if (!root) {
			TEST_FAIL_AT("%s: %s", path, err.text);
			continue;
		}
		REQUIRE(json_is_string(json_object_get(root, "checksum")));
		if (!delta_json_checksum_ok(root))
			TEST_FAIL_AT("%s: checksum does not verify", tables[i]);
		/* any change to a value breaks it */
		num = json_object_get(root, "size");
		json_object_set_new(root, "size", json_integer(json_integer_value(num) + 1));
		CHECK(!delta_json_checksum_ok(root));
		json_decref(root);
	}
}

TEST(written_file_verifies_and_is_a_hint)
{
	char *dir = test_mkdtemp("lastck");
	loom_store *st = NULL;
	json_t *root = json_object(), *v2 = json_object(), *arr = json_array();
	char path[4096];
	json_t *back;
	REQUIRE(test_sh("mkdir -p '%s/_delta_log'", dir) == 0);
	CHECK_OK(loom_store_open_local(&st, dir));
	json_object_set_new(root, "version", json_integer(12));
	json_object_set_new(root, "size", json_integer(3));
	json_object_set_new(v2, "path", json_string("00000000000000000012.checkpoint.x y.json"));
	json_array_append_new(arr, json_string("a"));
	json_object_set_new(v2, "list", arr);
	json_object_set_new(root, "v2Checkpoint", v2);
	CHECK_OK(delta_last_checkpoint_write(st, root));
	CHECK_INT(delta_log_read_hint(st), 12);
	snprintf(path, sizeof(path), "%s/_delta_log/_last_checkpoint", dir);
	back = json_load_file(path, 0, NULL);
	REQUIRE(back);
	CHECK(delta_json_checksum_ok(back));
	json_decref(back);
	/* a torn/edited file is not trusted as a hint */
	CHECK(test_sh("sed -i 's/\"version\":12/\"version\":13/' '%s'", path) == 0);
	CHECK_INT(delta_log_read_hint(st), -1);
	json_decref(root);
	loom_store_free(st);
	test_rmtree(dir);
	free(dir);
}

int main(void)
{
	RUN(md5_rfc1321_vectors);
	RUN(protocol_example);
	RUN(spark_written_fixture_checksums);
	RUN(written_file_verifies_and_is_a_hint);
	return test_summary();
}
