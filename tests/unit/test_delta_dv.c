/* Z85, DV descriptors -> file keys, RoaringBitmapArray parsing and the row
 * filter. Expected values come from the ZeroMQ Z85 spec (RFC 32) and the
 * examples in Delta's PROTOCOL.md; bitmaps are built with CRoaring. */
#include <roaring/roaring.h>
#include <stdlib.h>
#include <string.h>

#include "delta/dv.h"
#include "test.h"
#include "tmpdir.h"
#include "util/alloc.h"
#include "util/buf.h"

TEST(z85_rfc32_vector)
{
	static const uint8_t hello[8] = { 0x86, 0x4F, 0xD2, 0x6F, 0xB5, 0x59, 0xF7, 0x5B };
	loom_buf b = LOOM_BUF_INIT;
	CHECK_OK(delta_z85_encode(hello, 8, &b));
	CHECK_STR(b.ptr, "HelloWorld");
	loom_buf_clear(&b);
	CHECK_OK(delta_z85_decode("HelloWorld", 10, &b));
	CHECK_INT(b.size, 8);
	CHECK(memcmp(b.ptr, hello, 8) == 0);
	loom_buf_clear(&b);
	CHECK_ERR(delta_z85_decode("Hello", 4, &b), LOOM_ECORRUPT);
	CHECK_ERR(delta_z85_decode("Hell~", 5, &b), LOOM_ECORRUPT);
	CHECK_ERR(delta_z85_decode("#####", 5, &b), LOOM_ECORRUPT); /* > 2^32 */
	loom_buf_dispose(&b);
}

TEST(relative_dv_path_from_protocol_example)
{
	delta_dv_descriptor dv = { 'u', 1, 4, 40, 6, "ab^-aqEH.-t@S}K{vb[*k^" };
	loom_buf b = LOOM_BUF_INIT;
	CHECK_OK(delta_dv_file_key(&dv, NULL, &b));
	CHECK_STR(b.ptr, "ab/deletion_vector_d2c639aa-8816-431a-aaf6-d3fe2512ff61.bin");
	loom_buf_clear(&b);
	dv.path_or_inline_dv = "^-aqEH.-t@S}K{vb[*k^";  /* no prefix */
	CHECK_OK(delta_dv_file_key(&dv, NULL, &b));
	CHECK_STR(b.ptr, "deletion_vector_d2c639aa-8816-431a-aaf6-d3fe2512ff61.bin");
	loom_buf_clear(&b);
	dv.path_or_inline_dv = "short";
	CHECK_ERR(delta_dv_file_key(&dv, NULL, &b), LOOM_ECORRUPT);
	loom_buf_dispose(&b);
}

/* 'p' paths are absolute; the table's store maps them to keys (the same
 * root named with or without a trailing '/'), and refuses anything outside
 * it - a sibling directory sharing the root's name as a prefix, another
 * scheme. */
TEST(absolute_dv_path_must_be_inside_the_table)
{
	char *dir = test_mkdtemp("dv"), path[4300], root_slash[4200];
	delta_dv_descriptor dv = { 'p', 1, 1, 40, 6, NULL };
	loom_buf b = LOOM_BUF_INIT;
	loom_store *s = NULL, *s2 = NULL;
	REQUIRE(loom_store_open_local(&s, dir) == 0);
	snprintf(root_slash, sizeof(root_slash), "%s/", dir);
	REQUIRE(loom_store_open_local(&s2, root_slash) == 0);
	snprintf(path, sizeof(path), "file://%s/sub/deletion_vector_x.bin", dir);
	dv.path_or_inline_dv = path;
	CHECK_OK(delta_dv_file_key(&dv, s, &b));
	CHECK_STR(b.ptr, "sub/deletion_vector_x.bin");
	loom_buf_clear(&b);
	snprintf(path, sizeof(path), "%s/a%%20b.bin", dir);
	CHECK_OK(delta_dv_file_key(&dv, s2, &b));
	CHECK_STR(b.ptr, "a b.bin");
	loom_buf_clear(&b);
	snprintf(path, sizeof(path), "%s2/deletion_vector_x.bin", dir);
	CHECK_ERR(delta_dv_file_key(&dv, s, &b), LOOM_EUNSUPPORTED);
	dv.path_or_inline_dv = "s3://mytable/deletion_vector_d2c639aa-8816-431a-aaf6-d3fe2512ff61.bin";
	CHECK_ERR(delta_dv_file_key(&dv, s, &b), LOOM_EUNSUPPORTED);
	CHECK(strstr(loom_error_last()->message, "outside the table root") != NULL);
	/* without a store nothing absolute maps */
	snprintf(path, sizeof(path), "%s/x.bin", dir);
	dv.path_or_inline_dv = path;
	CHECK_ERR(delta_dv_file_key(&dv, NULL, &b), LOOM_EUNSUPPORTED);
	loom_buf_dispose(&b);
	loom_store_free(s);
	loom_store_free(s2);
	test_rmtree(dir);
	free(dir);
}

TEST(inline_dv_from_protocol_example)
{
	delta_dv_descriptor dv = { 'i', 0, 0, 40, 6,
	                           "wi5b=000010000siXQKl0rr91000f55c8Xg0@@D72lkbi5=-{L" };
	static const uint64_t want[] = { 3, 4, 7, 11, 18, 29 };
	delta_row_filter *f;
	uint64_t *rows;
	size_t n, i;
	CHECK_OK(delta_dv_load(NULL, &dv, &f));
	CHECK_INT(delta_row_filter_cardinality(f), 6);
	CHECK_OK(delta_row_filter_to_array(f, &rows, &n));
	REQUIRE(n == 6);
	for (i = 0; i < 6; i++)
		CHECK_INT(rows[i], want[i]);
	CHECK(delta_row_filter_contains(f, 7));
	CHECK(!delta_row_filter_contains(f, 8));
	CHECK(!delta_row_filter_contains(f, (1ull << 32) | 7));
	loom_free(rows);
	delta_row_filter_free(f);
	dv.cardinality = 5;
	CHECK_ERR(delta_dv_load(NULL, &dv, &f), LOOM_ECORRUPT);
}

/* Serialize buckets as the portable RoaringBitmapArray (little endian). */
static size_t build_portable(uint8_t *out, roaring_bitmap_t **bms, const uint32_t *keys,
                             uint64_t n)
{
	size_t pos = 0, i;
	uint32_t magic = 1681511377u;
	memcpy(out, &magic, 4);
	memcpy(out + 4, &n, 8);
	pos = 12;
	for (i = 0; i < n; i++) {
		memcpy(out + pos, &keys[i], 4);
		pos += 4;
		pos += roaring_bitmap_portable_serialize(bms[i], (char *)out + pos);
	}
	return pos;
}

TEST(portable_and_native_formats_with_two_buckets)
{
	roaring_bitmap_t *b0 = roaring_bitmap_create(), *b1 = roaring_bitmap_create();
	roaring_bitmap_t *bms[2] = { b0, b1 };
	uint32_t keys[2] = { 0, 1 }, magic = 1681511376u, cnt = 2, sz;
	uint8_t *buf = malloc(1 << 16);
	delta_row_filter *f;
	size_t len, pos, i;
	uint32_t v;

	REQUIRE(buf != NULL);
	for (v = 0; v < 100000; v += 7)
		roaring_bitmap_add(b0, v);
	roaring_bitmap_add_range(b0, 200000, 201000);
	roaring_bitmap_run_optimize(b0);
	roaring_bitmap_add(b1, 5);
	len = build_portable(buf, bms, keys, 2);
	REQUIRE(len < (1 << 16));
	CHECK_OK(delta_row_filter_parse(buf, len, "test", &f));
	CHECK_INT(delta_row_filter_cardinality(f), roaring_bitmap_get_cardinality(b0) + 1);
	CHECK(delta_row_filter_contains(f, 14));
	CHECK(!delta_row_filter_contains(f, 15));
	CHECK(delta_row_filter_contains(f, 200999));
	CHECK(delta_row_filter_contains(f, (1ull << 32) + 5));
	CHECK(!delta_row_filter_contains(f, 5 + 7));
	delta_row_filter_free(f);
	/* truncated anywhere: an error, never a crash */
	for (i = 0; i < len; i += 97)
		CHECK_ERR(delta_row_filter_parse(buf, i, "test", &f), LOOM_ECORRUPT);
	/* keys out of order */
	keys[0] = 1;
	keys[1] = 0;
	len = build_portable(buf, bms, keys, 2);
	CHECK_ERR(delta_row_filter_parse(buf, len, "test", &f), LOOM_ECORRUPT);

	/* the older native format: count, then size + bitmap per bucket */
	memcpy(buf, &magic, 4);
	memcpy(buf + 4, &cnt, 4);
	pos = 8;
	for (i = 0; i < 2; i++) {
		sz = (uint32_t)roaring_bitmap_portable_size_in_bytes(bms[i]);
		memcpy(buf + pos, &sz, 4);
		pos += 4;
		pos += roaring_bitmap_portable_serialize(bms[i], (char *)buf + pos);
	}
	CHECK_OK(delta_row_filter_parse(buf, pos, "test", &f));
	CHECK(delta_row_filter_contains(f, (1ull << 32) + 5));
	CHECK(delta_row_filter_contains(f, 700));
	delta_row_filter_free(f);
	buf[0] ^= 0xff;
	CHECK_ERR(delta_row_filter_parse(buf, pos, "test", &f), LOOM_ECORRUPT);
	roaring_bitmap_free(b0);
	roaring_bitmap_free(b1);
	free(buf);
}

int main(void)
{
	RUN(z85_rfc32_vector);
	RUN(relative_dv_path_from_protocol_example);
	RUN(absolute_dv_path_must_be_inside_the_table);
	RUN(inline_dv_from_protocol_example);
	RUN(portable_and_native_formats_with_two_buckets);
	return test_summary();
}
