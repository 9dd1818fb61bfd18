/* test_zcurve.c - Z-order key math: order-preserving encodings against
 * pq_value_cmp, Morton bit order by hand, the Hilbert curve's defining
 * property (consecutive cells are neighbours), the radix sort against
 * qsort, and the row gather against pq_batch_append_rows. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ops/zorder/zcurve.h"
#include "ops/zorder/zorder_gather.h"
#include "parquet/batch.h"
#include "parquet/stats.h"
#include "test.h"

static uint64_t rng = 88172645463325252ULL;
static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static int sgn(int x) { return (x > 0) - (x < 0); }
static int ucmp(uint64_t a, uint64_t b) { return (a > b) - (a < b); }

static void check_pairs(pq_cmp_kind k, const uint8_t *vals, size_t n, size_t w)
{
	size_t i, j;
	for (i = 0; i < n; i++)
		for (j = 0; j < n; j++) {
			int want = sgn(pq_value_cmp(k, vals + i * w, w, vals + j * w, w));
			int got = ucmp(zc_encode_fixed(k, vals + i * w), zc_encode_fixed(k, vals + j * w));
			if (want != got) {
				TEST_FAIL_AT("kind %d values %zu,%zu: encoding order %d, value order %d", (int)k, i, j, got, want);
				return;
			}
		}
}

TEST(encodings_keep_value_order)
{
	double d[64];
	float f[64];
	int64_t l[64];
	int32_t x[64];
	uint8_t b[2] = { 0, 1 };
	size_t i;
	static const double special[] = { 0.0, -0.0, INFINITY, -INFINITY, NAN, -NAN, 1e-310, -1e-310,
		                              1.0, -1.0, 1e308, -1e308 };
	for (i = 0; i < 12; i++)
		d[i] = special[i];
	for (; i < 64; i++)
		d[i] = ((double)(int64_t)next() / 1e10) * ((i & 1) ? 1 : 1e-20);
	check_pairs(PQ_CMP_DOUBLE, (const uint8_t *)d, 64, 8);
	for (i = 0; i < 64; i++)
		f[i] = (float)d[i];
	check_pairs(PQ_CMP_FLOAT, (const uint8_t *)f, 64, 4);
	l[0] = INT64_MIN;
	l[1] = INT64_MAX;
	l[2] = 0;
	l[3] = -1;
	for (i = 4; i < 64; i++)
		l[i] = (int64_t)next() >> (i % 40);
	check_pairs(PQ_CMP_I64, (const uint8_t *)l, 64, 8);
	check_pairs(PQ_CMP_U64, (const uint8_t *)l, 64, 8);
	for (i = 0; i < 64; i++)
		x[i] = (int32_t)l[i];
	check_pairs(PQ_CMP_I32, (const uint8_t *)x, 64, 4);
	check_pairs(PQ_CMP_U32, (const uint8_t *)x, 64, 4);
	check_pairs(PQ_CMP_BOOL, b, 2, 1);
	/* the two zeros are one value, NaNs sort last */
	CHECK(zc_encode_fixed(PQ_CMP_DOUBLE, (const uint8_t *)&d[0]) == zc_encode_fixed(PQ_CMP_DOUBLE, (const uint8_t *)&d[1]));
	CHECK(zc_encode_fixed(PQ_CMP_DOUBLE, (const uint8_t *)&d[4]) > zc_encode_fixed(PQ_CMP_DOUBLE, (const uint8_t *)&d[2]));
}

TEST(int96_orders_by_instant)
{
	uint8_t a[12], b[12];
	int64_t nanos = 5;
	int32_t day = 2440588; /* 1970-01-01 */
	memcpy(a, &nanos, 8);
	memcpy(a + 8, &day, 4);
	nanos = 86399LL * 1000000000LL;
	day -= 1;                  /* the day before, late evening: earlier */
	memcpy(b, &nanos, 8);
	memcpy(b + 8, &day, 4);
	CHECK(zc_encode_int96(b) < zc_encode_int96(a));
}

TEST(morton_takes_most_significant_bits_first)
{
	uint32_t r[2] = { 2, 1 }; /* x = 10b, y = 01b -> x1 y1 x0 y0 = 1001b */
	uint32_t r3[3] = { 1, 0, 1 };
	CHECK_INT(zc_morton(r, 2, 2), 9);
	CHECK_INT(zc_morton(r3, 3, 1), 5);
	/* the top bits split the space: every point with x in the upper half
	 * comes after every point with x in the lower half and y in the lower */
	{
		uint32_t lo[2] = { 127, 127 }, hi[2] = { 128, 0 };
		CHECK(zc_morton(lo, 2, 8) < zc_morton(hi, 2, 8));
	}
}

static void hilbert_walk(size_t n, unsigned bits)
{
	size_t cells = (size_t)1 << (n * bits), i, c;
	uint32_t *pts = malloc(cells * n * sizeof(uint32_t));
	uint8_t *seen = calloc(cells, 1);
	REQUIRE(pts && seen);
	for (i = 0; i < cells; i++) {
		uint32_t r[8];
		uint64_t k;
		size_t v = i;
		for (c = 0; c < n; c++) {
			r[c] = (uint32_t)(v & ((1u << bits) - 1));
			v >>= bits;
		}
		k = zc_hilbert(r, n, bits);
		if (k >= cells || seen[k]) {
			TEST_FAIL_AT("n=%zu bits=%u: key %llu repeated or out of range", n, bits, (unsigned long long)k);
			goto out;
		}
		seen[k] = 1;
		memcpy(&pts[k * n], r, n * sizeof(uint32_t));
	}
	/* consecutive keys are unit steps along one axis */
	for (i = 1; i < cells; i++) {
		long dist = 0;
		for (c = 0; c < n; c++)
			dist += labs((long)pts[i * n + c] - (long)pts[(i - 1) * n + c]);
		if (dist != 1) {
			TEST_FAIL_AT("n=%zu bits=%u: keys %zu and %zu are %ld apart", n, bits, i - 1, i, dist);
			goto out;
		}
	}
	CHECK(pts[0] == 0 && pts[1 % n] == 0);
out:
	free(pts);
	free(seen);
}

/* The two-column fast paths give exactly the generic keys: files tagged by
 * an earlier loom keep their meaning. */
TEST(two_column_fast_paths_match_the_generic_curves)
{
	uint64_t s = 0x243f6a8885a308d3ULL;
	unsigned bits;
	size_t i;
	for (bits = 1; bits <= 32; bits++) {
		for (i = 0; i < 20000; i++) {
			uint32_t r[2], mask = (uint32_t)((1ULL << bits) - 1);
			uint64_t slow = 0;
			int b;
			s ^= s << 13, s ^= s >> 7, s ^= s << 17;
			r[0] = (uint32_t)s & mask;
			r[1] = (uint32_t)(s >> 32) & mask;
			if (i < 4) /* corners */
				r[0] = i & 1 ? mask : 0, r[1] = i & 2 ? mask : 0;
			for (b = (int)bits - 1; b >= 0; b--)
				slow = slow << 2 | ((r[0] >> b) & 1u) << 1 | ((r[1] >> b) & 1u);
			if (zc_morton(r, 2, bits) != slow || zc_hilbert(r, 2, bits) != zc_hilbert_generic(r, 2, bits)) {
				TEST_FAIL_AT("bits=%u point (%u, %u): fast and generic keys differ", bits, r[0], r[1]);
				return;
			}
		}
	}
}

TEST(hilbert_is_a_continuous_bijection)
{
	hilbert_walk(2, 1);
	hilbert_walk(2, 5);
	hilbert_walk(3, 3);
	hilbert_walk(4, 2);
}

static int cmp_pair(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;
	if (x[0] != y[0])
		return x[0] < y[0] ? -1 : 1;
	return (x[1] > y[1]) - (x[1] < y[1]);
}

TEST(radix_sort_matches_qsort_and_is_stable)
{
	size_t n = 50000, i;
	uint64_t *k = malloc(n * 8), *tk = malloc(n * 8), *ref = malloc(n * 16);
	uint32_t *ix = malloc(n * 4), *tix = malloc(n * 4);
	REQUIRE(k && tk && ref && ix && tix);
	for (i = 0; i < n; i++) {
		k[i] = next() & 0xffffffffffULL;
		if (i % 3 == 0)
			k[i] &= 0xff; /* many duplicates */
		ix[i] = (uint32_t)i;
		ref[2 * i] = k[i];
		ref[2 * i + 1] = i;
	}
	zc_sort(k, ix, tk, tix, n, 40);
	qsort(ref, n, 16, cmp_pair);
	for (i = 0; i < n; i++)
		if (k[i] != ref[2 * i] || ix[i] != ref[2 * i + 1]) {
			TEST_FAIL_AT("position %zu differs", i);
			break;
		}
	free(k); free(tk); free(ref); free(ix); free(tix);
}

/* a nullable INT64 column, a BYTE_ARRAY column, and a list<INT32> */
static void make_batch(pq_batch *b, size_t rows)
{
	size_t r;
	REQUIRE(pq_batch_init(b, 3) == 0);
	b->columns[0].type = PQ_INT64;
	b->columns[0].max_def = 1;
	b->columns[1].type = PQ_BYTE_ARRAY;
	b->columns[1].max_def = 1;
	b->columns[2].type = PQ_INT32;
	b->columns[2].max_def = 3;
	b->columns[2].max_rep = 1;
	for (r = 0; r < rows; r++) {
		int64_t v = (int64_t)r * 7;
		char s[32];
		int32_t e;
		size_t k, len = (size_t)snprintf(s, sizeof(s), "row-%zu", r);
		REQUIRE(pq_column_append(&b->columns[0], r % 5 ? 1 : 0, 0, &v, 8) == 0);
		REQUIRE(pq_column_append(&b->columns[1], r % 3 ? 1 : 0, 0, s, len) == 0);
		if (r % 4 == 0) {
			REQUIRE(pq_column_append(&b->columns[2], 0, 0, NULL, 0) == 0); /* null list */
		} else {
			for (k = 0; k < r % 4; k++) {
				e = (int32_t)(r * 10 + k);
				REQUIRE(pq_column_append(&b->columns[2], 3, k ? 1 : 0, &e, 4) == 0);
			}
		}
		b->num_rows++;
	}
}

static int same_column(const pq_column *a, const pq_column *b)
{
	size_t w = pq_value_width(a->type, a->type_length);
	if (a->num_levels != b->num_levels || a->num_values != b->num_values)
		return 0;
	if (a->max_def && memcmp(a->def_levels, b->def_levels, a->num_levels * 2))
		return 0;
	if (a->max_rep && memcmp(a->rep_levels, b->rep_levels, a->num_levels * 2))
		return 0;
	if (a->type == PQ_BYTE_ARRAY)
		return a->data_size == b->data_size && !memcmp(a->data, b->data, a->data_size) &&
		       !memcmp(a->offsets, b->offsets, (a->num_values + 1) * 4);
	return !memcmp(a->values, b->values, a->num_values * w);
}

TEST(gather_equals_row_by_row_append)
{
	pq_batch src, want, got;
	zg_index ix;
	size_t n = 1000, i;
	uint32_t *rows = malloc(n * 2 * sizeof(uint32_t));
	REQUIRE(rows);
	make_batch(&src, n);
	for (i = 0; i < 2 * n; i++)
		rows[i] = (uint32_t)(next() % n); /* repeats allowed */
	REQUIRE(pq_batch_init(&want, 3) == 0);
	REQUIRE(pq_batch_init(&got, 3) == 0);
	for (i = 0; i < 2 * n; i++)
		CHECK_OK(pq_batch_append_rows(&want, &src, rows[i], rows[i] + 1));
	CHECK_OK(zg_index_build(&ix, &src));
	CHECK_OK(zg_gather(&got, &src, &ix, rows, n));          /* in two calls */
	CHECK_OK(zg_gather(&got, &src, &ix, rows + n, n));
	CHECK_INT(got.num_rows, want.num_rows);
	for (i = 0; i < 3; i++)
		if (!same_column(&got.columns[i], &want.columns[i]))
			TEST_FAIL_AT("column %zu differs", i);
	zg_index_dispose(&ix);
	pq_batch_free(&src);
	pq_batch_free(&want);
	pq_batch_free(&got);
	free(rows);
}

int main(void)
{
	RUN(encodings_keep_value_order);
	RUN(int96_orders_by_instant);
	RUN(morton_takes_most_significant_bits_first);
	RUN(hilbert_is_a_continuous_bijection);
	RUN(two_column_fast_paths_match_the_generic_curves);
	RUN(radix_sort_matches_qsort_and_is_stable);
	RUN(gather_equals_row_by_row_append);
	return test_summary();
}
