/* The versioning rule of the public structs a caller allocates
 * (docs/api.md): every version from 1 to the library's is accepted and only
 * its bytes are read or written (an older struct is given here as a buffer
 * cut to its old size, so ASan would catch a read or write past it);
 * version 0 (never initialised) and versions newer than the library are
 * LOOM_EINVAL with a message naming the struct. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "loom.h"
#include "test.h"

#define SIMPLE_TABLE LOOM_FIXTURES_DIR "/delta/simple_table"

/* The last call failed with LOOM_EINVAL naming `name`. */
static int refused_naming(int rc, const char *name)
{
	const loom_error *e = loom_error_last();
	return rc == LOOM_EINVAL && e && strstr(e->message, name) != NULL;
}

/* An _init function: its current version fills the struct; 0 and
 * current + 1 are refused naming the struct and leave it untouched. */
#define CHECK_INIT(type, init, current)                                        \
	do {                                                                       \
		type s_;                                                               \
		memset(&s_, 0xab, sizeof(s_));                                         \
		CHECK(refused_naming(init(&s_, 0), #type));                            \
		CHECK(refused_naming(init(&s_, (current) + 1), #type));                \
		CHECK(((unsigned char *)&s_)[0] == 0xab);                              \
		CHECK_OK(init(&s_, (current)));                                        \
		CHECK_INT(s_.version, (current));                                      \
	} while (0)

TEST(init_functions_take_only_known_versions)
{
	CHECK_INIT(loom_vacuum_opts, loom_vacuum_opts_init, LOOM_VACUUM_OPTS_VERSION);
	CHECK_INIT(loom_compact_opts, loom_compact_opts_init, LOOM_COMPACT_OPTS_VERSION);
	CHECK_INIT(loom_zorder_opts, loom_zorder_opts_init, LOOM_ZORDER_OPTS_VERSION);
	CHECK_INIT(loom_purge_opts, loom_purge_opts_init, LOOM_PURGE_OPTS_VERSION);
	CHECK_INIT(loom_analyze_opts, loom_analyze_opts_init, LOOM_ANALYZE_OPTS_VERSION);
	CHECK_INIT(loom_checkpoint_opts, loom_checkpoint_opts_init, LOOM_CHECKPOINT_OPTS_VERSION);
	CHECK_INIT(loom_cleanup_logs_opts, loom_cleanup_logs_opts_init,
	           LOOM_CLEANUP_LOGS_OPTS_VERSION);
	CHECK_INIT(loom_convert_opts, loom_convert_opts_init, LOOM_CONVERT_OPTS_VERSION);
	CHECK_INIT(loom_health_policy, loom_health_policy_init, LOOM_HEALTH_POLICY_VERSION);
	CHECK_INIT(loom_auto_opts, loom_auto_opts_init, LOOM_AUTO_OPTS_VERSION);
	CHECK_INIT(loom_store_opts, loom_store_opts_init, LOOM_STORE_OPTS_VERSION);
	CHECK_INIT(loom_store_stats, loom_store_stats_init, LOOM_STORE_STATS_VERSION);
	CHECK_INIT(loom_parquet_cat_opts, loom_parquet_cat_opts_init, LOOM_PARQUET_CAT_OPTS_VERSION);
	CHECK_INIT(loom_op_result, loom_op_result_init, LOOM_OP_RESULT_VERSION);
	CHECK_INIT(loom_table_location, loom_table_location_init, LOOM_TABLE_LOCATION_VERSION);
	CHECK_INIT(loom_file_info, loom_file_info_init, LOOM_FILE_INFO_VERSION);
	CHECK_INIT(loom_table_props, loom_table_props_init, LOOM_TABLE_PROPS_VERSION);
}

/* The first `n` bytes at `p` (an older, shorter struct) in a full one. */
static void *prefix(void *full, size_t size, const void *p, size_t n)
{
	memset(full, 0x5a, size);
	memcpy(full, p, n);
	return full;
}

/* The _init of an older version writes that version's bytes only. */
TEST(init_of_an_older_version_writes_only_its_fields)
{
	size_t c1 = offsetof(loom_compact_opts, copy_row_group_min_size);
	size_t c2 = offsetof(loom_compact_opts, commit_every);
	size_t z1 = offsetof(loom_zorder_opts, commit_every);
	size_t k1 = offsetof(loom_checkpoint_opts, part_size);
	void *o1 = malloc(c1), *o2 = malloc(c2), *z = malloc(z1), *k = malloc(k1);
	loom_compact_opts co;
	loom_zorder_opts zo;
	loom_checkpoint_opts ko;
	REQUIRE(o1 && o2 && z && k);
	CHECK_OK(loom_compact_opts_init(o1, 1));
	prefix(&co, sizeof(co), o1, c1);
	CHECK_INT(co.version, 1);
	CHECK_INT(co.dry_run, 0);
	CHECK_OK(loom_compact_opts_init(o2, 2));
	prefix(&co, sizeof(co), o2, c2);
	CHECK_INT(co.version, 2);
	CHECK_INT(co.copy_row_group_min_size, 0);
	CHECK_OK(loom_zorder_opts_init(z, 1));
	prefix(&zo, sizeof(zo), z, z1);
	CHECK_INT(zo.version, 1);
	CHECK_INT(zo.curve, LOOM_ZORDER_CURVE_AUTO);
	CHECK_OK(loom_checkpoint_opts_init(k, 1));
	prefix(&ko, sizeof(ko), k, k1);
	CHECK_INT(ko.version, 1);
	CHECK_INT(ko.table_version, -1);
	/* and an older struct is read as such: its missing fields defaulted */
	CHECK_OK(loom_compact_opts_check(o1));
	CHECK_OK(loom_compact_opts_check(o2));
	free(o1);
	free(o2);
	free(z);
	free(k);
}

/* A version-1 Z-order struct (before commit_every) is accepted by the check,
 * the op builder and the plan: nothing reads past its end. */
TEST(older_zorder_and_checkpoint_options_are_accepted)
{
	static const char *const cols[] = { "id" };
	size_t z1 = offsetof(loom_zorder_opts, commit_every);
	size_t k1 = offsetof(loom_checkpoint_opts, part_size);
	loom_zorder_opts full = LOOM_ZORDER_OPTS_INIT;
	loom_checkpoint_opts kfull = LOOM_CHECKPOINT_OPTS_INIT;
	void *z = malloc(z1), *k = malloc(k1);
	loom_op_result r = LOOM_OP_RESULT_INIT;
	loom_op *op = NULL;
	REQUIRE(z && k);
	full.version = 1;
	full.columns = cols;
	full.n_columns = 1;
	memcpy(z, &full, z1);
	CHECK_OK(loom_zorder_opts_check(z));
	CHECK_OK(loom_op_zorder(&op, z));
	loom_op_free(op);
	kfull.version = 1;
	kfull.table_version = -5;    /* read from a version-1 struct too */
	memcpy(k, &kfull, k1);
	CHECK(refused_naming(loom_checkpoint(&r, "/nonexistent", NULL, k, NULL), "table_version"));
	kfull.table_version = -1;
	memcpy(k, &kfull, k1);
	CHECK_ERR(loom_checkpoint(&r, "/nonexistent", NULL, k, NULL), LOOM_ENOTFOUND);
	loom_op_result_free(&r);
	free(z);
	free(k);
}

/* Structs with only version 1: the calls that read them refuse 0 and
 * current + 1, naming the struct, before touching anything. */
TEST(unknown_versions_are_refused_by_the_calls)
{
	loom_op_result r = LOOM_OP_RESULT_INIT, bad_r = LOOM_OP_RESULT_INIT;
	loom_vacuum_opts v = LOOM_VACUUM_OPTS_INIT;
	loom_purge_opts p = LOOM_PURGE_OPTS_INIT;
	loom_analyze_opts a = LOOM_ANALYZE_OPTS_INIT;
	loom_cleanup_logs_opts l = LOOM_CLEANUP_LOGS_OPTS_INIT;
	loom_convert_opts c = LOOM_CONVERT_OPTS_INIT;
	loom_health_policy hp = LOOM_HEALTH_POLICY_INIT;
	loom_auto_opts ao = LOOM_AUTO_OPTS_INIT;
	loom_store_opts so = LOOM_STORE_OPTS_INIT;
	loom_store_stats st = LOOM_STORE_STATS_INIT;
	loom_table_location loc = LOOM_TABLE_LOCATION_INIT;
	loom_op *op = NULL;
	loom_store *s = NULL;
	unsigned int bad[2] = { 0, 2 };
	size_t i;

	for (i = 0; i < 2; i++) {
		v.version = bad[i];
		CHECK(refused_naming(loom_vacuum_opts_check(&v), "loom_vacuum_opts"));
		CHECK(refused_naming(loom_vacuum(&r, "/nonexistent", NULL, &v, NULL), "loom_vacuum_opts"));
		p.version = bad[i];
		CHECK(refused_naming(loom_purge_opts_check(&p), "loom_purge_opts"));
		a.version = bad[i];
		CHECK(refused_naming(loom_analyze_opts_check(&a), "loom_analyze_opts"));
		l.version = bad[i];
		CHECK(refused_naming(loom_cleanup_logs(&r, "/nonexistent", NULL, &l, NULL),
		                     "loom_cleanup_logs_opts"));
		c.version = bad[i];
		CHECK(refused_naming(loom_convert(&r, "/nonexistent", NULL, &c, NULL),
		                     "loom_convert_opts"));
		hp.version = bad[i];
		CHECK(refused_naming(loom_health_policy_check(&hp), "loom_health_policy"));
		ao.version = bad[i];
		CHECK(refused_naming(loom_op_auto(&op, &ao), "loom_auto_opts"));
		so.version = bad[i];
		CHECK(refused_naming(loom_store_open(&s, SIMPLE_TABLE, &so), "loom_store_opts"));
		st.version = bad[i];
		CHECK(refused_naming(loom_store_stats_total(&st), "loom_store_stats"));
		bad_r.version = bad[i];
		CHECK(refused_naming(loom_vacuum(&bad_r, SIMPLE_TABLE, NULL, NULL, NULL),
		                     "loom_op_result"));
		loc.version = bad[i];
		loc.uri = SIMPLE_TABLE;
		CHECK(refused_naming(loom_vacuum(&r, SIMPLE_TABLE, &loc, NULL, NULL),
		                     "loom_table_location"));
	}
	CHECK(op == NULL && s == NULL);
	CHECK_INT(r.n_files_deleted, 0);
	loom_op_result_free(&r);
}

/* The structs a snapshot fills: an unknown version is refused naming it,
 * the current one filled. */
TEST(snapshot_fills_only_known_versions)
{
	loom_table *t = NULL;
	loom_snapshot *s = NULL;
	loom_file_info f = LOOM_FILE_INFO_INIT;
	loom_table_props props = LOOM_TABLE_PROPS_INIT;

	CHECK_OK(loom_table_open(&t, SIMPLE_TABLE));
	CHECK_OK(loom_snapshot_load(&s, t, -1));
	REQUIRE(loom_snapshot_file_count(s) > 0);
	f.version = 0;
	CHECK(refused_naming(loom_snapshot_file_at(&f, s, 0), "loom_file_info"));
	CHECK(f.path == NULL);
	f.version = LOOM_FILE_INFO_VERSION + 1;
	CHECK(refused_naming(loom_snapshot_file_at(&f, s, 0), "loom_file_info"));
	f.version = LOOM_FILE_INFO_VERSION;
	CHECK_OK(loom_snapshot_file_at(&f, s, 0));
	CHECK(f.path != NULL && f.size > 0);
	CHECK_INT(f.version, LOOM_FILE_INFO_VERSION);
	props.version = 0;
	CHECK(refused_naming(loom_snapshot_props(&props, s), "loom_table_props"));
	props.version = LOOM_TABLE_PROPS_VERSION;
	CHECK_OK(loom_snapshot_props(&props, s));
	CHECK_INT(props.version, LOOM_TABLE_PROPS_VERSION);
	CHECK_INT(props.checkpoint_interval, 10);
	loom_snapshot_free(s);
	loom_table_free(t);
}

int main(void)
{
	RUN(init_functions_take_only_known_versions);
	RUN(init_of_an_older_version_writes_only_its_fields);
	RUN(older_zorder_and_checkpoint_options_are_accepted);
	RUN(unknown_versions_are_refused_by_the_calls);
	RUN(snapshot_fills_only_known_versions);
	return test_summary();
}
