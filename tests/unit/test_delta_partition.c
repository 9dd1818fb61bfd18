/* Partition values: typed parsing per the protocol's serialization rules,
 * and every partition value of every partitioned fixture parses with its
 * column's type. */
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "delta/partition.h"
#include "delta/snapshot.h"
#include "test.h"

static delta_type prim(const char *name)
{
	delta_type t;
	memset(&t, 0, sizeof(t));
	t.name = name;
	t.kind = delta_type_kind_of(name, &t.precision, &t.scale);
	return t;
}

TEST(nulls_and_strings)
{
	delta_type t = prim("integer");
	delta_pvalue v;
	CHECK_OK(delta_partition_value_parse(&t, NULL, &v));
	CHECK(v.is_null);
	CHECK_OK(delta_partition_value_parse(&t, "", &v));
	CHECK(v.is_null);
	t = prim("string");
	CHECK_OK(delta_partition_value_parse(&t, "a b/c=d", &v));
	CHECK(!v.is_null);
	CHECK_INT(v.len, 7);
}

TEST(numbers_and_booleans)
{
	delta_type t = prim("byte");
	delta_pvalue v;
	CHECK_OK(delta_partition_value_parse(&t, "-128", &v));
	CHECK_INT(v.i, -128);
	CHECK_ERR(delta_partition_value_parse(&t, "128", &v), LOOM_EINVAL);
	t = prim("short");
	CHECK_ERR(delta_partition_value_parse(&t, "40000", &v), LOOM_EINVAL);
	t = prim("integer");
	CHECK_OK(delta_partition_value_parse(&t, "2147483647", &v));
	CHECK_INT(v.i, 2147483647);
	CHECK_ERR(delta_partition_value_parse(&t, "2147483648", &v), LOOM_EINVAL);
	CHECK_ERR(delta_partition_value_parse(&t, "1.0", &v), LOOM_EINVAL);
	CHECK(strstr(loom_error_last()->message, "integer") != NULL);
	t = prim("long");
	CHECK_OK(delta_partition_value_parse(&t, "-9223372036854775808", &v));
	CHECK(v.i == INT64_MIN);
	t = prim("double");
	CHECK_OK(delta_partition_value_parse(&t, "0.5", &v));
	CHECK(v.d == 0.5);
	CHECK_OK(delta_partition_value_parse(&t, "-Infinity", &v));
	CHECK(isinf(v.d) && v.d < 0);
	CHECK_OK(delta_partition_value_parse(&t, "NaN", &v));
	CHECK(isnan(v.d));
	CHECK_OK(delta_partition_value_parse(&t, "1.0E10", &v));
	CHECK(v.d == 1e10);
	CHECK_ERR(delta_partition_value_parse(&t, "abc", &v), LOOM_EINVAL);
	t = prim("boolean");
	CHECK_OK(delta_partition_value_parse(&t, "true", &v));
	CHECK_INT(v.i, 1);
	CHECK_OK(delta_partition_value_parse(&t, "false", &v));
	CHECK_INT(v.i, 0);
	CHECK_ERR(delta_partition_value_parse(&t, "1", &v), LOOM_EINVAL);
}

TEST(decimals)
{
	delta_type t = prim("decimal(10,2)");
	delta_pvalue v;
	CHECK_INT(t.precision, 10);
	CHECK_INT(t.scale, 2);
	CHECK_OK(delta_partition_value_parse(&t, "123.45", &v));
	CHECK(v.dec == 12345);
	CHECK_OK(delta_partition_value_parse(&t, "-1.5", &v));
	CHECK(v.dec == -150);
	CHECK_OK(delta_partition_value_parse(&t, "7", &v));
	CHECK(v.dec == 700);
	CHECK_OK(delta_partition_value_parse(&t, "1.2E+1", &v));
	CHECK(v.dec == 1200);
	CHECK_ERR(delta_partition_value_parse(&t, "1.234", &v), LOOM_EINVAL);
	CHECK_ERR(delta_partition_value_parse(&t, "123456789.00", &v), LOOM_EINVAL);
	t = prim("decimal(38,18)");
	CHECK_OK(delta_partition_value_parse(&t, "12345678901234567890.123456789012345678", &v));
	CHECK(v.dec / 1000000000000000000LL == 12345678901234567890ULL);
	t = prim("decimal(5,8)");  /* scale > precision: not a decimal */
	CHECK_INT(t.kind, DELTA_T_UNKNOWN);
}

TEST(dates_and_timestamps)
{
	delta_type t = prim("date");
	delta_pvalue v;
	CHECK_OK(delta_partition_value_parse(&t, "1970-01-01", &v));
	CHECK_INT(v.i, 0);
	CHECK_OK(delta_partition_value_parse(&t, "2000-03-01", &v));
	CHECK_INT(v.i, 11017);
	CHECK_OK(delta_partition_value_parse(&t, "1969-12-31", &v));
	CHECK_INT(v.i, -1);
	CHECK_ERR(delta_partition_value_parse(&t, "2021-02-29", &v), LOOM_EINVAL);
	CHECK_ERR(delta_partition_value_parse(&t, "2021-1-1", &v), LOOM_EINVAL);
	t = prim("timestamp");
	CHECK_OK(delta_partition_value_parse(&t, "1970-01-01 00:00:01", &v));
	CHECK_INT(v.i, 1000000);
	CHECK_OK(delta_partition_value_parse(&t, "1970-01-01T00:00:00.123456Z", &v));
	CHECK_INT(v.i, 123456);
	CHECK_OK(delta_partition_value_parse(&t, "2021-09-08 11:11:11.5", &v));
	CHECK_INT(v.i, 1631099471500000LL);
	CHECK_OK(delta_partition_value_parse(&t, "1970-01-01T01:00:00+01:00", &v));
	CHECK_INT(v.i, 0);
	CHECK_ERR(delta_partition_value_parse(&t, "1970-01-01 25:00:00", &v), LOOM_EINVAL);
	t = prim("timestamp_ntz");
	CHECK_OK(delta_partition_value_parse(&t, "2021-11-18 02:30:00.123", &v));
	CHECK_INT(v.i, 1637202600123000LL);
	CHECK_ERR(delta_partition_value_parse(&t, "2021-11-18 02:30:00Z", &v), LOOM_EINVAL);
}

/* Every partitioned fixture: each live file has a value for every partition
 * column and it parses as the column's type. */
TEST(every_fixture_partition_value_parses)
{
	DIR *d = opendir(LOOM_FIXTURES_DIR "/delta");
	struct dirent *e;
	int tables = 0, values = 0;
	REQUIRE(d != NULL);
	while ((e = readdir(d))) {
		char path[4096];
		loom_store *st;
		delta_snapshot *s;
		delta_load_opts o;
		size_t i, c;
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/delta/%s", LOOM_FIXTURES_DIR, e->d_name);
		if (loom_store_open(&st, path, NULL) < 0)
			continue;
		delta_load_opts_init(&o);
		if (delta_snapshot_load(&s, st, -1, &o) < 0) {
			loom_store_free(st);
			continue; /* pending tables (Parquet checkpoints) */
		}
		if (s->metadata.num_partition_columns)
			tables++;
		for (c = 0; c < s->metadata.num_partition_columns; c++) {
			const char *col = s->metadata.partition_columns[c];
			const delta_field *f = delta_schema_find(&s->schema, col);
			if (!f) {
				TEST_FAIL_AT("%s: partition column %s not in the schema", e->d_name, col);
				continue;
			}
			for (i = 0; i < s->num_files; i++) {
				int found;
				delta_pvalue v;
				const char *raw = delta_partition_raw(s, s->files[i], col, &found);
				if (!found) {
					TEST_FAIL_AT("%s: %s has no value for %s", e->d_name,
					             s->files[i]->path, col);
					continue;
				}
				if (delta_partition_value_parse(f->type, raw, &v) < 0)
					TEST_FAIL_AT("%s: %s", e->d_name, loom_error_last()->message);
				values++;
			}
		}
		delta_snapshot_free(s);
		loom_store_free(st);
	}
	closedir(d);
	CHECK(tables >= 10);
	CHECK(values >= 50);
}

int main(void)
{
	RUN(nulls_and_strings);
	RUN(numbers_and_booleans);
	RUN(decimals);
	RUN(dates_and_timestamps);
	RUN(every_fixture_partition_value_parses);
	return test_summary();
}
