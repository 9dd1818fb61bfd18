/* Type widening in rewrites (ops/pipeline/pipe_widen.c): which stored types a
 * table's type may be read from (PROTOCOL.md "Type Widening"), the
 * Parquet leaf written for a Delta type, and the value conversions:
 * sign extension, int/float -> double, date -> midnight micros, decimal
 * rescaling and repacking (negative values through FIXED_LEN_BYTE_ARRAY). */
#include <stdint.h>
#include <string.h>

#include "ops/pipeline/pipe_widen.h"
#include "test.h"
#include "util/alloc.h"

static pipe_num num(pipe_num_kind k, int bits, int p, int s, pq_physical_type phys, int len)
{
	pipe_num n;
	memset(&n, 0, sizeof(n));
	n.kind = k;
	n.bits = bits;
	n.precision = p;
	n.scale = s;
	n.phys = phys;
	n.len = len;
	return n;
}

TEST(allowed_widenings)
{
	pipe_num byte = num(PIPE_NUM_INT, 8, 0, 0, PQ_INT32, 0), i32 = num(PIPE_NUM_INT, 32, 0, 0, PQ_INT32, 0);
	pipe_num i64 = num(PIPE_NUM_INT, 64, 0, 0, PQ_INT64, 0), f = num(PIPE_NUM_FLOAT, 0, 0, 0, PQ_FLOAT, 0);
	pipe_num d = num(PIPE_NUM_DOUBLE, 0, 0, 0, PQ_DOUBLE, 0), date = num(PIPE_NUM_DATE, 0, 0, 0, PQ_INT32, 0);
	pipe_num ntz = num(PIPE_NUM_TIMESTAMP_NTZ, 0, 0, 0, PQ_INT64, 0);
	pipe_num d10_2 = num(PIPE_NUM_DECIMAL, 0, 10, 2, PQ_INT64, 0), d20_5 = num(PIPE_NUM_DECIMAL, 0, 20, 5, PQ_FIXED_LEN_BYTE_ARRAY, 9);
	pipe_num d4_1 = num(PIPE_NUM_DECIMAL, 0, 4, 1, PQ_INT32, 0), d3_1 = num(PIPE_NUM_DECIMAL, 0, 3, 1, PQ_INT32, 0);
	pipe_num d12_4 = num(PIPE_NUM_DECIMAL, 0, 12, 4, PQ_INT64, 0), d11_4 = num(PIPE_NUM_DECIMAL, 0, 11, 4, PQ_INT64, 0);
	CHECK(pipe_widen_allowed(&byte, &i64));
	CHECK(pipe_widen_allowed(&i32, &i64));
	CHECK(!pipe_widen_allowed(&i64, &i32));
	CHECK(pipe_widen_allowed(&f, &d));
	CHECK(pipe_widen_allowed(&i32, &d));
	CHECK(!pipe_widen_allowed(&i64, &d));   /* long -> double loses digits */
	CHECK(!pipe_widen_allowed(&d, &i64));
	CHECK(pipe_widen_allowed(&date, &ntz));
	CHECK(pipe_widen_allowed(&d10_2, &d20_5));
	CHECK(pipe_widen_allowed(&d10_2, &d12_4));  /* 8 integer digits kept, scale up */
	CHECK(!pipe_widen_allowed(&d10_2, &d11_4)); /* 7 integer digits: values lost */
	CHECK(pipe_widen_allowed(&byte, &d4_1));    /* 3 integer digits hold every byte */
	CHECK(!pipe_widen_allowed(&byte, &d3_1));
	CHECK(!pipe_widen_allowed(&d20_5, &d10_2));
}

TEST(leaf_for_delta_types)
{
	delta_type t;
	pq_schema_node like, out;
	pipe_num n;
	memset(&t, 0, sizeof(t));
	memset(&like, 0, sizeof(like));
	like.name = "c";
	like.has_repetition = 1;
	like.repetition = PQ_OPTIONAL;
	t.kind = DELTA_T_DECIMAL;
	t.precision = 20;
	t.scale = 2;
	CHECK(pipe_widen_node(&t, &like, &out));
	CHECK_INT(out.type, PQ_FIXED_LEN_BYTE_ARRAY);
	CHECK_INT(out.type_length, 9); /* as Spark writes decimal(20,2) */
	n = pipe_num_of_node(&out);
	CHECK_INT(n.kind, PIPE_NUM_DECIMAL);
	CHECK_INT(n.precision, 20);
	t.precision = 11;
	CHECK(pipe_widen_node(&t, &like, &out));
	CHECK_INT(out.type, PQ_INT64);
	t.kind = DELTA_T_TIMESTAMP_NTZ;
	CHECK(pipe_widen_node(&t, &like, &out));
	CHECK_INT(pipe_num_of_node(&out).kind, PIPE_NUM_TIMESTAMP_NTZ);
	t.kind = DELTA_T_STRING;
	CHECK(!pipe_widen_node(&t, &like, &out));
}

TEST(conversions)
{
	int32_t in32[3] = { -5, 0, 127 };
	pq_column c;
	uint8_t *buf = NULL;
	size_t cap = 0;
	pipe_num from = num(PIPE_NUM_INT, 8, 0, 0, PQ_INT32, 0), to = num(PIPE_NUM_INT, 64, 0, 0, PQ_INT64, 0);
	int64_t v64;
	double dv;

	memset(&c, 0, sizeof(c));
	c.type = PQ_INT32;
	c.values = (uint8_t *)in32;
	c.num_values = 3;
	CHECK_OK(pipe_widen_column(&c, &from, &to, &buf, &cap));
	CHECK_INT(c.type, PQ_INT64);
	memcpy(&v64, c.values, 8);
	CHECK_INT(v64, -5);

	/* int -> decimal(20,5) in 9 bytes: -5 -> -500000 big-endian */
	c.type = PQ_INT32;
	c.values = (uint8_t *)in32;
	to = num(PIPE_NUM_DECIMAL, 0, 20, 5, PQ_FIXED_LEN_BYTE_ARRAY, 9);
	CHECK_OK(pipe_widen_column(&c, &from, &to, &buf, &cap));
	CHECK_INT(c.type_length, 9);
	{
		/* -500000 = 0x...F85EE0 */
		static const uint8_t want[9] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xf8, 0x5e, 0xe0 };
		CHECK(memcmp(c.values, want, 9) == 0);
		CHECK(c.values[9 + 8] == 0 && c.values[18 + 8] != 0);
	}

	/* decimal(10,2) -> decimal(20,5) from the FLBA just written back to INT64 */
	from = num(PIPE_NUM_DECIMAL, 0, 20, 5, PQ_FIXED_LEN_BYTE_ARRAY, 9);
	to = num(PIPE_NUM_DECIMAL, 0, 18, 5, PQ_INT64, 0);
	CHECK_OK(pipe_widen_column(&c, &from, &to, &buf, &cap));
	memcpy(&v64, c.values, 8);
	CHECK_INT(v64, -500000);

	/* date -> timestamp_ntz: midnight of the day */
	{
		int32_t days[1] = { 19723 }; /* 2024-01-01 */
		c.type = PQ_INT32;
		c.values = (uint8_t *)days;
		c.num_values = 1;
		from = num(PIPE_NUM_DATE, 0, 0, 0, PQ_INT32, 0);
		to = num(PIPE_NUM_TIMESTAMP_NTZ, 0, 0, 0, PQ_INT64, 0);
		CHECK_OK(pipe_widen_column(&c, &from, &to, &buf, &cap));
		memcpy(&v64, c.values, 8);
		CHECK_INT(v64, 1704067200000000LL);
	}
	/* float -> double */
	{
		float fv[1] = { 1.5f };
		c.type = PQ_FLOAT;
		c.values = (uint8_t *)fv;
		from = num(PIPE_NUM_FLOAT, 0, 0, 0, PQ_FLOAT, 0);
		to = num(PIPE_NUM_DOUBLE, 0, 0, 0, PQ_DOUBLE, 0);
		CHECK_OK(pipe_widen_column(&c, &from, &to, &buf, &cap));
		memcpy(&dv, c.values, 8);
		CHECK(dv == 1.5);
	}
	loom_free(buf);
}

int main(void)
{
	RUN(allowed_widenings);
	RUN(leaf_for_delta_types);
	RUN(conversions);
	return test_summary();
}
