/* Delta stats JSON for new files: the expected texts are written by hand
 * from Spark's rules (32-character string prefix, max tie-breaker U+007F /
 * U+10FFFF, timestamps truncated to milliseconds, exact decimals, leaf
 * budget of dataSkippingNumIndexedCols, dataSkippingStatsColumns). */
#include <jansson.h>
#include <math.h>
#include <string.h>

#include "delta/stats_json.h"
#include "test.h"

static pq_schema_node leaf_node(const char *name, pq_physical_type t)
{
	pq_schema_node n;
	memset(&n, 0, sizeof(n));
	n.name = name;
	n.has_repetition = 1;
	n.repetition = PQ_OPTIONAL;
	n.type = t;
	n.converted_type = PQ_CT_NONE;
	return n;
}

static delta_stats_leaf leaf(const char *const *parts, size_t depth, const pq_schema_node *nd,
                             const void *mn, size_t mnl, const void *mx, size_t mxl, int64_t nulls)
{
	delta_stats_leaf l;
	memset(&l, 0, sizeof(l));
	l.parts = parts;
	l.depth = depth;
	l.node = nd;
	l.null_count = nulls;
	l.has_min_max = mn != NULL;
	l.min = mn;
	l.min_len = mnl;
	l.max = mx;
	l.max_len = mxl;
	l.max_exact = 1;
	return l;
}

/* The JSON text of stats for `n` leaves, parsed back. */
static json_t *stats_of(const delta_stats_leaf *l, size_t n, const delta_stats_opts *o)
{
	loom_buf b = LOOM_BUF_INIT;
	json_t *j = NULL;
	if (delta_stats_json(&b, 7, l, n, o) == 0)
		j = json_loadb(b.ptr, b.size, JSON_DECODE_ANY, NULL);
	loom_buf_dispose(&b);
	return j;
}

static const char *str_at(json_t *j, const char *which, const char *col)
{
	return json_string_value(json_object_get(json_object_get(j, which), col));
}

TEST(strings_are_cut_at_32_characters_with_a_tie_breaker)
{
	static const char *p[] = { "s" };
	pq_schema_node nd = leaf_node("s", PQ_BYTE_ARRAY);
	const char *lo = "aaaaaaaaaabbbbbbbbbbccccccccccdd-tail";   /* 37 chars */
	const char *hi = "zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz~more";  /* next char '~' < 0x7F */
	delta_stats_opts o = { 32, NULL, 0, 0 };
	delta_stats_leaf l;
	json_t *j;
	nd.logical_type.kind = PQ_LT_STRING;
	l = leaf(p, 1, &nd, lo, strlen(lo), hi, strlen(hi), 2);
	j = stats_of(&l, 1, &o);
	REQUIRE(j != NULL);
	CHECK_STR(str_at(j, "minValues", "s"), "aaaaaaaaaabbbbbbbbbbccccccccccdd");
	CHECK_STR(str_at(j, "maxValues", "s"), "zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz\x7f");
	CHECK_INT(json_integer_value(json_object_get(json_object_get(j, "nullCount"), "s")), 2);
	CHECK_INT(json_integer_value(json_object_get(j, "numRecords")), 7);
	json_decref(j);

	/* next character above U+007F: U+10FFFF; short strings stay exact */
	hi = "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
	     "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
	     "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
	     "\xc3\xa9\xc3\xa9\xc3\xa9"; /* 33 x U+00E9 */
	l = leaf(p, 1, &nd, "ab", 2, hi, strlen(hi), 0);
	j = stats_of(&l, 1, &o);
	REQUIRE(j != NULL);
	CHECK_STR(str_at(j, "minValues", "s"), "ab");
	{
		const char *mx = str_at(j, "maxValues", "s");
		REQUIRE(mx != NULL);
		CHECK_INT((long long)strlen(mx), 64 + 4);
		CHECK(memcmp(mx + 64, "\xf4\x8f\xbf\xbf", 4) == 0);
	}
	json_decref(j);
}

TEST(timestamps_are_milliseconds_dates_iso)
{
	static const char *p1[] = { "ts" }, *p2[] = { "ntz" }, *p3[] = { "d" };
	pq_schema_node ts = leaf_node("ts", PQ_INT64), ntz = leaf_node("ntz", PQ_INT64), d = leaf_node("d", PQ_INT32);
	int64_t tmin = -1; /* 1969-12-31T23:59:59.999999: floors to .999 */
	int64_t tmax = 1700000000123456LL;
	int32_t dmin = 0, dmax = 19000;
	delta_stats_leaf l[3];
	json_t *j;
	ts.logical_type.kind = PQ_LT_TIMESTAMP;
	ts.logical_type.unit = PQ_UNIT_MICROS;
	ts.logical_type.is_adjusted_to_utc = 1;
	ntz.logical_type = ts.logical_type;
	ntz.logical_type.is_adjusted_to_utc = 0;
	d.logical_type.kind = PQ_LT_DATE;
	l[0] = leaf(p1, 1, &ts, &tmin, 8, &tmax, 8, 0);
	l[1] = leaf(p2, 1, &ntz, &tmin, 8, &tmax, 8, 0);
	l[2] = leaf(p3, 1, &d, &dmin, 4, &dmax, 4, 1);
	j = stats_of(l, 3, NULL);
	REQUIRE(j != NULL);
	CHECK_STR(str_at(j, "minValues", "ts"), "1969-12-31T23:59:59.999Z");
	CHECK_STR(str_at(j, "maxValues", "ts"), "2023-11-14T22:13:20.123Z");
	CHECK_STR(str_at(j, "maxValues", "ntz"), "2023-11-14T22:13:20.123");
	CHECK_STR(str_at(j, "minValues", "d"), "1970-01-01");
	CHECK_STR(str_at(j, "maxValues", "d"), "2022-01-08");
	json_decref(j);
}

TEST(decimals_exact_floats_shortest_nan_dropped)
{
	static const char *p1[] = { "dec" }, *p2[] = { "f" }, *p3[] = { "g" };
	pq_schema_node dec = leaf_node("dec", PQ_INT64), f = leaf_node("f", PQ_FLOAT), g = leaf_node("g", PQ_DOUBLE);
	int64_t dmin = -123456789012345678LL, dmax = 5;
	float fmin = 0.1f, fmax = 2.5f;
	double gmin = NAN, gmax = 1.0;
	loom_buf b = LOOM_BUF_INIT;
	delta_stats_leaf l[3];
	dec.logical_type.kind = PQ_LT_DECIMAL;
	dec.logical_type.decimal_precision = 18;
	dec.logical_type.decimal_scale = 2;
	l[0] = leaf(p1, 1, &dec, &dmin, 8, &dmax, 8, 0);
	l[1] = leaf(p2, 1, &f, &fmin, 4, &fmax, 4, 0);
	l[2] = leaf(p3, 1, &g, &gmin, 8, &gmax, 8, 0);
	CHECK_OK(delta_stats_json(&b, 3, l, 3, NULL));
	REQUIRE(b.ptr != NULL);
	CHECK(strstr(b.ptr, "\"minValues\":{\"dec\":-1234567890123456.78,\"f\":0.1}") != NULL);
	CHECK(strstr(b.ptr, "\"maxValues\":{\"dec\":0.05,\"f\":2.5,\"g\":1}") != NULL);
	loom_buf_dispose(&b);
}

TEST(leaf_budget_and_stats_columns)
{
	static const char *pa[] = { "a" }, *pb[] = { "s", "x" }, *pc[] = { "s", "y" }, *pd[] = { "c" };
	pq_schema_node n = leaf_node("v", PQ_INT32);
	int32_t v1 = 1, v2 = 2;
	delta_stats_leaf l[4];
	delta_stats_opts two = { 2, NULL, 0, 0 }, listed = { 32, "c, s.y", 0, 0 };
	json_t *j;
	l[0] = leaf(pa, 1, &n, &v1, 4, &v2, 4, 0);
	l[1] = leaf(pb, 2, &n, &v1, 4, &v2, 4, 0);
	l[2] = leaf(pc, 2, &n, &v1, 4, &v2, 4, 0);
	l[3] = leaf(pd, 1, &n, &v1, 4, &v2, 4, 0);
	/* two leaf columns: a and s.x */
	j = stats_of(l, 4, &two);
	REQUIRE(j != NULL);
	CHECK(json_object_get(json_object_get(j, "minValues"), "a") != NULL);
	CHECK(json_object_get(json_object_get(json_object_get(j, "minValues"), "s"), "x") != NULL);
	CHECK(json_object_get(json_object_get(json_object_get(j, "minValues"), "s"), "y") == NULL);
	CHECK(json_object_get(json_object_get(j, "nullCount"), "c") == NULL);
	json_decref(j);
	/* named columns win over the budget */
	j = stats_of(l, 4, &listed);
	REQUIRE(j != NULL);
	CHECK(json_object_get(json_object_get(j, "minValues"), "a") == NULL);
	CHECK(json_object_get(json_object_get(json_object_get(j, "minValues"), "s"), "y") != NULL);
	CHECK(json_object_get(json_object_get(json_object_get(j, "minValues"), "s"), "x") == NULL);
	CHECK_INT(json_integer_value(json_object_get(json_object_get(j, "maxValues"), "c")), 2);
	json_decref(j);
}

/* An INT96 min/max of a checkpoint's stats_parsed whose Julian day is far
 * out: no value (it used to overflow 64-bit microseconds, found by fuzzing:
 * UBSan); an ordinary one is an ISO instant. */
TEST(int96_stats_values_out_of_range)
{
	pq_schema_node nd = leaf_node("ts", PQ_INT96);
	uint8_t v[12] = { 0 };
	json_t *j;
	uint32_t jd = 2440588 + 1;   /* 1970-01-02 */
	memcpy(v + 8, &jd, 4);
	j = delta_stats_value(&nd, v, 12);
	CHECK(j && strcmp(json_string_value(j), "1970-01-02T00:00:00.000Z") == 0);
	json_decref(j);
	jd = 1610632025u;
	memcpy(v + 8, &jd, 4);
	CHECK(delta_stats_value(&nd, v, 12) == NULL);
	jd = 0xffffffffu;
	memcpy(v + 8, &jd, 4);
	CHECK(delta_stats_value(&nd, v, 12) == NULL);
}

/* A decimal's scale comes from the file's schema: one past what 16 bytes
 * can hold wrote past the digit buffer (found by fuzzing checkpoints,
 * UBSan; fuzz/corpus/delta_checkpoint/crash-d61ca0b8...). */
TEST(decimal_scale_out_of_range_gives_no_value)
{
	pq_schema_node nd = leaf_node("dec", PQ_INT64);
	int64_t v = 5;
	json_t *j;
	nd.logical_type.kind = PQ_LT_DECIMAL;
	nd.logical_type.decimal_precision = 18;
	nd.logical_type.decimal_scale = 38;
	j = delta_stats_value(&nd, (const uint8_t *)&v, 8);
	CHECK(j != NULL);
	json_decref(j);
	nd.logical_type.decimal_scale = 39; /* no 16-byte decimal has it */
	CHECK(delta_stats_value(&nd, (const uint8_t *)&v, 8) == NULL);
	nd.logical_type.decimal_scale = 64;
	CHECK(delta_stats_value(&nd, (const uint8_t *)&v, 8) == NULL);
	nd.logical_type.decimal_scale = 1000;
	CHECK(delta_stats_value(&nd, (const uint8_t *)&v, 8) == NULL);
	nd.logical_type.decimal_scale = -3;
	CHECK(delta_stats_value(&nd, (const uint8_t *)&v, 8) == NULL);
}

int main(void)
{
	RUN(strings_are_cut_at_32_characters_with_a_tie_breaker);
	RUN(timestamps_are_milliseconds_dates_iso);
	RUN(decimals_exact_floats_shortest_nan_dropped);
	RUN(leaf_budget_and_stats_columns);
	RUN(int96_stats_values_out_of_range);
	RUN(decimal_scale_out_of_range_gives_no_value);
	return test_summary();
}
