/* test_zorder_range.c - what a distributed Z-order plan relies on
 * (ops/zorder/zorder_range.h): keys rebuilt on a worker from the plan's JSON
 * (boundaries and key quantiles, through text) equal the driver's keys for
 * every row, so key ranges split a partition's rows exactly; the ranges a
 * worker cuts from the quantiles equal the driver's; damaged JSON is
 * refused with LOOM_ECORRUPT. A code's slot, found through the boundary
 * buckets, is the plain count of boundaries <= it, for boundaries of any
 * spread (duplicates, extremes of the code space, a single value). */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "ops/zorder/zorder_keys.h"
#include "ops/zorder/zorder_range.h"
#include "parquet/batch.h"
#include "parquet/schema.h"
#include "test.h"
#include "util/alloc.h"

#define ROWS 3000

static uint64_t rng = 0x2545F4914F6CDD1DULL;
static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* root { optional int64 a; optional binary s (UTF8) }; the schema borrows
 * the node array */
static pq_schema_node n[3];

static int make_schema(pq_schema **out)
{
	memset(n, 0, sizeof(n));
	n[0].name = "root";
	n[0].is_group = 1;
	n[0].num_children = 2;
	n[0].converted_type = PQ_CT_NONE;
	n[1].name = "a";
	n[1].has_repetition = 1;
	n[1].repetition = PQ_OPTIONAL;
	n[1].type = PQ_INT64;
	n[1].converted_type = PQ_CT_NONE;
	n[2].name = "s";
	n[2].has_repetition = 1;
	n[2].repetition = PQ_OPTIONAL;
	n[2].type = PQ_BYTE_ARRAY;
	n[2].converted_type = PQ_CT_UTF8;
	return pq_schema_build(out, n, 3, "test");
}

/* ROWS rows: skewed integers and strings, a few nulls in each column. */
static int make_batch(pq_batch *b)
{
	size_t r;
	LOOM_TRY(pq_batch_init(b, 2));
	b->columns[0].type = PQ_INT64;
	b->columns[0].max_def = 1;
	b->columns[1].type = PQ_BYTE_ARRAY;
	b->columns[1].max_def = 1;
	for (r = 0; r < ROWS; r++) {
		int64_t v = (int64_t)(next() % 1000) * (int64_t)(next() % 1000) - 200000;
		char s[32];
		int len = snprintf(s, sizeof(s), "cust-%llu", (unsigned long long)(next() % 997));
		if (r % 50 == 7)
			LOOM_TRY(pq_column_append(&b->columns[0], 0, 0, NULL, 0));
		else
			LOOM_TRY(pq_column_append(&b->columns[0], 1, 0, &v, sizeof(v)));
		if (r % 70 == 3)
			LOOM_TRY(pq_column_append(&b->columns[1], 0, 0, NULL, 0));
		else
			LOOM_TRY(pq_column_append(&b->columns[1], 1, 0, s, (size_t)len));
	}
	b->num_rows = ROWS;
	return 0;
}

static const char *const phys[] = { "a", "s" };

/* The driver's keys: bound, sampled (every row: cap above ROWS), bounds. */
static int driver_keys(zkeys *k, const pq_schema *schema, const pq_batch *b)
{
	zscratch w;
	uint8_t proj[2] = { 0, 0 };
	int rc;
	memset(&w, 0, sizeof(w));
	LOOM_TRY(zkeys_init(k, 2, ZC_CURVE_HILBERT, 16, 8192, 42));
	LOOM_TRY(zkeys_bind(k, schema, phys, phys, proj));
	rc = zkeys_sample(k, &w, b);
	zscratch_dispose(&w);
	LOOM_TRY(rc);
	k->total_rows = b->num_rows;
	return zkeys_build_bounds(k);
}

/* A worker's keys from the JSON text. */
static int worker_keys(zkeys *k, const pq_schema *schema, const char *text)
{
	json_t *j = json_loads(text, 0, NULL);
	int rc;
	if (!j)
		return -1;
	rc = zkeys_init(k, 2, ZC_CURVE_HILBERT, 16, zkeys_json_bounds_max(j), 0);
	if (rc == 0)
		rc = zkeys_bind(k, schema, phys, phys, NULL);
	if (rc == 0)
		rc = zkeys_sample_from_json(k, j);
	json_decref(j);
	return rc;
}

TEST(worker_keys_equal_driver_keys)
{
	pq_schema *schema = NULL;
	pq_batch b;
	zkeys d, w;
	zscratch s1, s2;
	json_t *j;
	char *text;
	uint64_t k1[ROWS], k2[ROWS], *lo1 = NULL, *lo2 = NULL;
	size_t n1 = 0, n2 = 0, r, g, in_ranges = 0;
	memset(&s1, 0, sizeof(s1));
	memset(&s2, 0, sizeof(s2));
	memset(&d, 0, sizeof(d));
	memset(&w, 0, sizeof(w));
	CHECK_OK(make_schema(&schema));
	CHECK_OK(make_batch(&b));
	CHECK_OK(driver_keys(&d, schema, &b));
	REQUIRE((j = zkeys_sample_to_json(&d)) != NULL);
	REQUIRE((text = json_dumps(j, JSON_COMPACT)) != NULL);
	json_decref(j);
	CHECK_OK(worker_keys(&w, schema, text));
	CHECK_OK(zkeys_of_batch(&d, &s1, &b, k1));
	CHECK_OK(zkeys_of_batch(&w, &s2, &b, k2));
	for (r = 0; r < ROWS; r++)
		if (k1[r] != k2[r]) {
			TEST_FAIL_AT("row %zu: driver key %llx, worker key %llx", r, (unsigned long long)k1[r],
			             (unsigned long long)k2[r]);
			break;
		}
	/* the same ranges, and every row in exactly one of them */
	CHECK_OK(zkeys_ranges(&d, 5, &lo1, &n1));
	CHECK_OK(zkeys_ranges(&w, 5, &lo2, &n2));
	CHECK_INT(n1, n2);
	CHECK(n1 >= 3);
	for (g = 0; g < n1 && g < n2; g++)
		CHECK(lo1[g] == lo2[g]);
	for (g = 0; g < n1; g++) {
		double share = 0;
		uint64_t hi = g + 1 < n1 ? lo1[g + 1] : 0;
		size_t count = 0;
		for (r = 0; r < ROWS; r++)
			count += k2[r] >= lo1[g] && (g + 1 == n1 || k2[r] < hi);
		in_ranges += count;
		CHECK_OK(zkeys_share(&w, lo1[g], hi, g + 1 < n1, &share));
		/* every row was sampled: the share is the range's exact row count */
		CHECK(count > 0);
		CHECK(share * ROWS > (double)count - 0.5 && share * ROWS < (double)count + 0.5);
	}
	CHECK_INT(in_ranges, ROWS);
	free(text);
	free(lo1);
	free(lo2);
	zscratch_dispose(&s1);
	zscratch_dispose(&s2);
	zkeys_dispose(&d);
	zkeys_dispose(&w);
	pq_batch_free(&b);
	pq_schema_free(schema);
}

TEST(damaged_json_is_refused)
{
	static const char *const bad[] = {
		/* a column too few */
		"{\"rows\":1,\"columns\":[[1,2]],\"keys\":[]}",
		/* a string boundary of odd length */
		"{\"rows\":1,\"columns\":[[1,2],[\"abc\"]],\"keys\":[]}",
		/* an integer column given strings */
		"{\"rows\":1,\"columns\":[[\"00\"],[\"6162\"]],\"keys\":[]}",
		/* keys out of order */
		"{\"rows\":1,\"columns\":[[1],[\"6162\"]],\"keys\":[\"0000000000000002\",\"0000000000000001\"]}",
		/* a key that is not 16 hex digits */
		"{\"rows\":1,\"columns\":[[1],[\"6162\"]],\"keys\":[\"12\"]}",
	};
	pq_schema *schema = NULL;
	size_t i;
	CHECK_OK(make_schema(&schema));
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		zkeys k;
		memset(&k, 0, sizeof(k));
		CHECK_ERR(worker_keys(&k, schema, bad[i]), LOOM_ECORRUPT);
		zkeys_dispose(&k);
	}
	pq_schema_free(schema);
}

static size_t count_le_naive(const uint64_t *b, size_t nb, uint64_t code)
{
	size_t i, c = 0;
	for (i = 0; i < nb; i++)
		c += b[i] <= code;
	return c;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* boundaries of the given spread; every boundary, its neighbours and random
 * codes are checked against the naive count */
static int check_slots(size_t nb, int spread)
{
	zkeys k;
	zsample *zs;
	size_t i, d;
	int rc = 0;
	if (zkeys_init(&k, 1, ZC_CURVE_HILBERT, 16, 16, 1) < 0)
		return -1;
	zs = &k.cols[0];
	zs->fixed = 1;
	zs->bcode = loom_malloc((nb + 1) * sizeof(uint64_t));
	if (!zs->bcode) {
		zkeys_dispose(&k);
		return -1;
	}
	for (i = 0; i < nb; i++) {
		uint64_t v = next();
		switch (spread) {
		case 0: v = 0x8000000000000000ULL + v % 100000; break;    /* a small int range */
		case 1: v = 0x8000000000000000ULL + v % 7; break;         /* heavy duplicates */
		case 2: v = (i % 2) ? UINT64_MAX - v % 3 : v % 3; break;  /* both ends of the space */
		case 3: v = 42; break;                                    /* one value */
		default: v = (v % 8 == 0) ? v : v % 1000; break;          /* a long tail */
		}
		zs->bcode[i] = v;
	}
	qsort(zs->bcode, nb, sizeof(uint64_t), cmp_u64);
	zs->nb = nb;
	if (zkeys_finish_bounds(&k) < 0) {
		zkeys_dispose(&k);
		return -1;
	}
	for (i = 0; i < nb && rc == 0; i++)
		for (d = 0; d < 3 && rc == 0; d++) {
			uint64_t code = zs->bcode[i] + d - 1; /* wraps at the ends, on purpose */
			if (zkeys_slot_fixed(zs, code) != 1 + count_le_naive(zs->bcode, nb, code))
				rc = -1;
		}
	for (i = 0; i < 20000 && rc == 0; i++) {
		uint64_t code = next();
		uint64_t width = zs->bcode[nb - 1] - zs->bcode[0] + 1; /* 0: the whole space */
		if (i % 2 && width)
			code = zs->bcode[0] + code % width;
		if (zkeys_slot_fixed(zs, code) != 1 + count_le_naive(zs->bcode, nb, code))
			rc = -1;
	}
	zkeys_dispose(&k);
	return rc;
}

TEST(slot_is_the_count_of_boundaries_below)
{
	size_t sizes[] = { 1, 2, 5, 4095, 4096 };
	size_t s;
	int spread;
	for (s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++)
		for (spread = 0; spread < 5; spread++)
			if (check_slots(sizes[s], spread) < 0)
				TEST_FAIL_AT("%zu boundaries, spread %d: a slot differs from the naive count", sizes[s],
				             spread);
}

int main(void)
{
	RUN(slot_is_the_count_of_boundaries_below);
	RUN(worker_keys_equal_driver_keys);
	RUN(damaged_json_is_refused);
	return test_summary();
}
