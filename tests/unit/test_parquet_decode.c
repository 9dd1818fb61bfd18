/* test_parquet_decode.c - handcrafted byte streams for the RLE/bit-packed
 * hybrid, legacy BIT_PACKED levels, DELTA_BINARY_PACKED and the other value
 * decoders, including truncated and lying inputs (examples from the
 * Parquet encodings specification). */
#include <stdint.h>
#include <string.h>

#include "parquet/batch.h"
#include "parquet/decode.h"
#include "test.h"

/* LSB-first bit packer written independently of the decoder under test. */
static size_t pack_bits(const uint32_t *v, size_t n, int w, uint8_t *out)
{
	size_t bit = 0, i;
	int b;
	memset(out, 0, (n * (size_t)w + 7) / 8 + 1);
	for (i = 0; i < n; i++)
		for (b = 0; b < w; b++, bit++)
			if (v[i] >> b & 1)
				out[bit / 8] |= (uint8_t)(1u << (bit % 8));
	return (n * (size_t)w + 7) / 8;
}

TEST(rle_hybrid_spec_example)
{
	/* RLE run of 5 x 4, then one bit-packed group of 0..7 (width 3; the
	 * spec's example bytes 0x88 0xC6 0xFA), then RLE run of 300 x 2 */
	const uint8_t data[] = { 0x0a, 0x04, 0x03, 0x88, 0xc6, 0xfa, 0xd8, 0x04, 0x02 };
	uint32_t out[313];
	pq_rle r;
	int i;
	pq_rle_init(&r, data, sizeof(data), 3, "t");
	CHECK_OK(pq_rle_get_u32(&r, out, 313));
	for (i = 0; i < 5; i++)
		CHECK_INT(out[i], 4);
	for (i = 0; i < 8; i++)
		CHECK_INT(out[5 + i], i);
	for (i = 13; i < 313; i++)
		CHECK_INT(out[i], 2);
	/* asking for more than the stream holds is an error, not a crash */
	CHECK_ERR(pq_rle_get_u32(&r, out, 1), LOOM_ECORRUPT);
}

TEST(rle_hybrid_all_widths)
{
	uint32_t v[64], out[64];
	uint8_t buf[400];
	int w;
	for (w = 1; w <= 32; w++) {
		size_t i, n;
		pq_rle r;
		uint64_t mask = w == 32 ? 0xffffffffu : ((1ull << w) - 1);
		for (i = 0; i < 64; i++)
			v[i] = (uint32_t)((i * 2654435761u + (uint32_t)w) & mask);
		buf[0] = (64 / 8) << 1 | 1;
		n = 1 + pack_bits(v, 64, w, buf + 1);
		pq_rle_init(&r, buf, n, w, "t");
		CHECK_OK(pq_rle_get_u32(&r, out, 64));
		for (i = 0; i < 64; i++)
			if (out[i] != v[i]) {
				TEST_FAIL_AT("width %d value %zu: %u != %u", w, i, out[i], v[i]);
				break;
			}
	}
}

TEST(rle_hybrid_bad_input)
{
	uint32_t out[16];
	pq_rle r;
	/* RLE run whose value byte is missing */
	const uint8_t a[] = { 0x0a };
	/* RLE value wider than the bit width */
	const uint8_t b[] = { 0x0a, 0x09 };
	/* bit-packed run with no bytes */
	const uint8_t c[] = { 0x03 };
	/* run header varint that never ends */
	const uint8_t d[] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	/* zero-length RLE run */
	const uint8_t e[] = { 0x00, 0x01 };
	pq_rle_init(&r, a, sizeof(a), 3, "t");
	CHECK_ERR(pq_rle_get_u32(&r, out, 1), LOOM_ECORRUPT);
	pq_rle_init(&r, b, sizeof(b), 3, "t");
	CHECK_ERR(pq_rle_get_u32(&r, out, 1), LOOM_ECORRUPT);
	pq_rle_init(&r, c, sizeof(c), 3, "t");
	CHECK_ERR(pq_rle_get_u32(&r, out, 1), LOOM_ECORRUPT);
	pq_rle_init(&r, d, sizeof(d), 3, "t");
	CHECK_ERR(pq_rle_get_u32(&r, out, 1), LOOM_ECORRUPT);
	pq_rle_init(&r, e, sizeof(e), 3, "t");
	CHECK_ERR(pq_rle_get_u32(&r, out, 1), LOOM_ECORRUPT);
	pq_rle_init(&r, NULL, 0, 3, "t");
	CHECK_ERR(pq_rle_get_u32(&r, out, 1), LOOM_ECORRUPT);
}

TEST(levels_v1_rle_and_bit_packed)
{
	/* 4-byte length prefix + RLE: 3 x 1, then 2 x 0 (width 1) */
	const uint8_t rle[] = { 4, 0, 0, 0, 0x06, 0x01, 0x04, 0x00, 0xee };
	/* legacy BIT_PACKED, most significant bit first: 0..7 at width 3 is
	 * 0x05 0x39 0x77 in the spec */
	const uint8_t bp[] = { 0x05, 0x39, 0x77 };
	const uint8_t lying[] = { 200, 0, 0, 0, 0x06, 0x01 };
	int16_t out[8];
	size_t used, i;
	CHECK_OK(pq_decode_levels(3, 1, rle, sizeof(rle), 1, out, 5, &used, "t"));
	CHECK_INT(used, 8);
	CHECK_INT(out[0], 1);
	CHECK_INT(out[2], 1);
	CHECK_INT(out[3], 0);
	CHECK_INT(out[4], 0);
	CHECK_OK(pq_decode_levels(4, 1, bp, sizeof(bp), 7, out, 8, &used, "t"));
	CHECK_INT(used, 3);
	for (i = 0; i < 8; i++)
		CHECK_INT(out[i], i);
	/* a level above the maximum is corrupt */
	CHECK_ERR(pq_decode_levels(4, 1, bp, sizeof(bp), 6, out, 8, &used, "t"), LOOM_ECORRUPT);
	/* a length prefix beyond the page */
	CHECK_ERR(pq_decode_levels(3, 1, lying, sizeof(lying), 1, out, 3, &used, "t"), LOOM_ECORRUPT);
	/* bit-packed levels longer than the page */
	CHECK_ERR(pq_decode_levels(4, 1, bp, 2, 7, out, 8, &used, "t"), LOOM_ECORRUPT);
}

TEST(delta_binary_packed_spec_examples)
{
	/* 1..5: block 128, 4 miniblocks, 5 values, first 1, min delta 1, widths 0 */
	const uint8_t ex1[] = { 0x80, 0x01, 0x04, 0x05, 0x02, 0x02, 0, 0, 0, 0 };
	int64_t out[8];
	size_t used, total;
	int i;
	CHECK_OK(pq_delta_decode_i64(ex1, sizeof(ex1), out, 5, &used, &total, "t"));
	for (i = 0; i < 5; i++)
		CHECK_INT(out[i], i + 1);
	CHECK_INT(total, 5);
	CHECK_INT(used, sizeof(ex1));
	{
		/* 7,5,3,1,2,3,4,5: min delta -2, relative deltas 0,0,0,3,3,3,3 (at width 3) */
		uint8_t ex2[64];
		uint32_t rel[32] = { 0, 0, 0, 3, 3, 3, 3 };
		const int64_t want[] = { 7, 5, 3, 1, 2, 3, 4, 5 };
		size_t n = 0;
		ex2[n++] = 0x80; ex2[n++] = 0x01; ex2[n++] = 0x04; ex2[n++] = 0x08; ex2[n++] = 14;
		ex2[n++] = 3;    /* zigzag(-2) */
		ex2[n++] = 3; ex2[n++] = 0; ex2[n++] = 0; ex2[n++] = 0;
		n += pack_bits(rel, 32, 3, ex2 + n);
		CHECK_OK(pq_delta_decode_i64(ex2, n, out, 8, &used, &total, "t"));
		for (i = 0; i < 8; i++)
			CHECK_INT(out[i], want[i]);
		CHECK_INT(used, n);
		/* the miniblock cut after its last value is still fine */
		CHECK_OK(pq_delta_decode_i64(ex2, n - 9, out, 8, &used, &total, "t"));
		CHECK_INT(out[7], 5);
		/* cut inside the needed bits: an error */
		CHECK_ERR(pq_delta_decode_i64(ex2, 11, out, 8, &used, &total, "t"), LOOM_ECORRUPT);
		/* more values wanted than the stream has */
		CHECK_ERR(pq_delta_decode_i64(ex2, n, out, 9, &used, &total, "t"), LOOM_ECORRUPT);
	}
}

TEST(delta_binary_packed_wraps_int32)
{
	/* INT32_MAX then INT32_MIN: the delta +1 wraps in 32 bits */
	pq_column c;
	uint8_t s[64];
	size_t n = 0;
	int32_t got[2];
	uint32_t rel[32] = { 0 };
	memset(&c, 0, sizeof(c));
	c.type = PQ_INT32;
	s[n++] = 0x80; s[n++] = 0x01; s[n++] = 0x01; s[n++] = 0x02;
	/* zigzag(2147483647) = 4294967294 as a varint */
	s[n++] = 0xfe; s[n++] = 0xff; s[n++] = 0xff; s[n++] = 0xff; s[n++] = 0x0f;
	/* min delta: -4294967295 (INT32_MIN - INT32_MAX), zigzag 8589934589 */
	s[n++] = 0xfd; s[n++] = 0xff; s[n++] = 0xff; s[n++] = 0xff; s[n++] = 0x1f;
	s[n++] = 0;    /* one miniblock of width 0 */
	(void)rel;
	CHECK_OK(pq_decode_delta_binary(&c, s, n, 2, "t"));
	memcpy(got, c.values, 8);
	CHECK_INT(got[0], INT32_MAX);
	CHECK_INT(got[1], INT32_MIN);
	free(c.values);
}

TEST(delta_header_validation)
{
	int64_t out[4];
	size_t used, total;
	/* block size not a multiple of 128 */
	const uint8_t a[] = { 0x40, 0x04, 0x02, 0x02, 0x02, 0, 0, 0, 0 };
	/* truncated header */
	const uint8_t b[] = { 0x80, 0x01, 0x04 };
	/* bit width above 64 */
	const uint8_t c[] = { 0x80, 0x01, 0x01, 0x02, 0x00, 0x00, 65 };
	/* huge value count with few bytes */
	const uint8_t d[] = { 0x80, 0x01, 0x01, 0xff, 0xff, 0xff, 0xff, 0x0f, 0x00 };
	CHECK_ERR(pq_delta_decode_i64(a, sizeof(a), out, 2, &used, &total, "t"), LOOM_ECORRUPT);
	CHECK_ERR(pq_delta_decode_i64(b, sizeof(b), out, 2, &used, &total, "t"), LOOM_ECORRUPT);
	CHECK_ERR(pq_delta_decode_i64(c, sizeof(c), out, 2, &used, &total, "t"), LOOM_ECORRUPT);
	CHECK_ERR(pq_delta_decode_i64(d, sizeof(d), out, 2, &used, &total, "t"), LOOM_ECORRUPT);
}

TEST(plain_and_dictionary)
{
	pq_column c, dict;
	/* PLAIN byte arrays "ab", "", "xyz" */
	const uint8_t ba[] = { 2, 0, 0, 0, 'a', 'b', 0, 0, 0, 0, 3, 0, 0, 0, 'x', 'y', 'z' };
	/* indices 2,0,1,2 at width 2, one bit-packed group */
	const uint8_t idx[] = { 2, 0x03, 0x92, 0x00 };
	const uint8_t bad_idx[] = { 2, 0x06, 0x03 };   /* RLE run of 3 x index 3 */
	memset(&c, 0, sizeof(c));
	memset(&dict, 0, sizeof(dict));
	dict.type = c.type = PQ_BYTE_ARRAY;
	CHECK_OK(pq_decode_plain(&dict, ba, sizeof(ba), 3, "t"));
	CHECK_INT(dict.num_values, 3);
	CHECK_INT(dict.offsets[3], 5);
	CHECK_ERR(pq_decode_plain(&c, ba, sizeof(ba) - 1, 3, "t"), LOOM_ECORRUPT);
	c.num_values = c.data_size = 0;
	CHECK_OK(pq_decode_dict_indices(&c, &dict, idx, sizeof(idx), 4, 1000, "t"));
	REQUIRE(c.num_values == 4);
	CHECK(memcmp(c.data, "xyzabxyz", 8) == 0);
	CHECK_INT(c.offsets[1], 3);
	CHECK_INT(c.offsets[2], 5);
	CHECK_INT(c.offsets[3], 5);
	CHECK_ERR(pq_decode_dict_indices(&c, &dict, bad_idx, sizeof(bad_idx), 3, 1000, "t"), LOOM_ECORRUPT);
	CHECK_ERR(pq_decode_dict_indices(&c, NULL, idx, sizeof(idx), 4, 1000, "t"), LOOM_ECORRUPT);
	/* the expansion limit */
	c.num_values = c.data_size = 0;
	CHECK_ERR(pq_decode_dict_indices(&c, &dict, idx, sizeof(idx), 4, 7, "t"), LOOM_ENOMEM);
	free(c.offsets); free(c.data); free(dict.offsets); free(dict.data);
}

TEST(byte_stream_split_and_bool)
{
	pq_column c;
	/* two floats 1.0f (0x3f800000) and -2.0f (0xc0000000), split by byte */
	const uint8_t bss[] = { 0x00, 0x00, 0x00, 0x00, 0x80, 0x00, 0x3f, 0xc0 };
	/* RLE booleans with a 4-byte length: 3 x true, then bit-packed 8 values 0x55 */
	const uint8_t rb[] = { 4, 0, 0, 0, 0x06, 0x01, 0x03, 0x55 };
	float f[2];
	memset(&c, 0, sizeof(c));
	c.type = PQ_FLOAT;
	CHECK_OK(pq_decode_byte_stream_split(&c, bss, sizeof(bss), 2, "t"));
	memcpy(f, c.values, 8);
	CHECK(f[0] == 1.0f && f[1] == -2.0f);
	CHECK_ERR(pq_decode_byte_stream_split(&c, bss, 7, 2, "t"), LOOM_ECORRUPT);
	free(c.values);
	memset(&c, 0, sizeof(c));
	c.type = PQ_BOOLEAN;
	CHECK_OK(pq_decode_bool_rle(&c, rb, sizeof(rb), 7, "t"));
	CHECK(c.values[0] == 1 && c.values[2] == 1 && c.values[3] == 1 && c.values[4] == 0 && c.values[5] == 1);
	free(c.values);
}

TEST(delta_byte_array)
{
	/* "apple", "applied" (prefix 4 + "ied"), "b" (prefix 0 + "b"):
	 * prefix lengths 0,4,0 and suffix lengths 5,3,1 as DELTA_BINARY_PACKED */
	uint8_t s[128];
	size_t n = 0;
	pq_column c;
	uint32_t rel1[32] = { 4, 0 }, rel2[32] = { 0, 4 };
	/* prefixes: first 0, deltas +4, -4 -> min -4 (zigzag 7), relative 8, 0 at width 4 */
	s[n++] = 0x80; s[n++] = 0x01; s[n++] = 0x04; s[n++] = 0x03; s[n++] = 0x00;
	s[n++] = 7; s[n++] = 4; s[n++] = 0; s[n++] = 0; s[n++] = 0;
	rel1[0] = 8; rel1[1] = 0;
	n += pack_bits(rel1, 32, 4, s + n);
	/* suffix lengths: first 5, deltas -2, -2 -> min -2 (zigzag 3), relative 0, 0 */
	s[n++] = 0x80; s[n++] = 0x01; s[n++] = 0x04; s[n++] = 0x03; s[n++] = 10;
	s[n++] = 3; s[n++] = 0; s[n++] = 0; s[n++] = 0; s[n++] = 0;
	(void)rel2;
	memcpy(s + n, "appleiedb", 9);
	n += 9;
	memset(&c, 0, sizeof(c));
	c.type = PQ_BYTE_ARRAY;
	CHECK_OK(pq_decode_delta_byte_array(&c, s, n, 3, 100, "t"));
	REQUIRE(c.num_values == 3);
	CHECK(c.data_size == 13 && memcmp(c.data, "appleappliedb", 13) == 0);
	c.num_values = c.data_size = 0;
	CHECK_ERR(pq_decode_delta_byte_array(&c, s, n, 3, 12, "t"), LOOM_ENOMEM);
	/* the same bytes cut short must fail */
	c.num_values = c.data_size = 0;
	CHECK_ERR(pq_decode_delta_byte_array(&c, s, n - 1, 3, 100, "t"), LOOM_ECORRUPT);
	free(c.offsets); free(c.data);
}

int main(void)
{
	RUN(rle_hybrid_spec_example);
	RUN(rle_hybrid_all_widths);
	RUN(rle_hybrid_bad_input);
	RUN(levels_v1_rle_and_bit_packed);
	RUN(delta_binary_packed_spec_examples);
	RUN(delta_binary_packed_wraps_int32);
	RUN(delta_header_validation);
	RUN(plain_and_dictionary);
	RUN(byte_stream_split_and_bool);
	RUN(delta_byte_array);
	return test_summary();
}
