/* test_parquet_write_units.c - byte-exact checks of the Thrift compact
 * encoder and the RLE/bit-packed, PLAIN and dictionary encoders against
 * vectors worked out by hand from the specs; the ordering rules of
 * parquet/stats.h; and the writer's error paths. */
#include <math.h>
#include <string.h>

#include <stdio.h>

#include "loom/store.h"
#include "parquet/encode.h"
#include "parquet/reader.h"
#include "parquet/stats.h"
#include "parquet/thrift_write.h"
#include "parquet/writer.h"
#include "test.h"
#include "tmpdir.h"
#include "util/buf.h"
#include "util/error.h"

static int bytes_eq(const loom_buf *b, const uint8_t *want, size_t n)
{
	size_t i;
	if (b->size != n) {
		fprintf(stderr, "  got %zu bytes, want %zu:", b->size, n);
	} else if (memcmp(b->ptr, want, n) == 0) {
		return 1;
	}
	fprintf(stderr, "  got");
	for (i = 0; i < b->size; i++)
		fprintf(stderr, " %02x", (uint8_t)b->ptr[i]);
	fprintf(stderr, "\n");
	return 0;
}
#define CHECK_BYTES(buf, ...)                                              \
	do {                                                                   \
		static const uint8_t want_[] = { __VA_ARGS__ };                    \
		CHECK(bytes_eq(buf, want_, sizeof(want_)));                        \
	} while (0)

TEST(thrift_fields_and_nesting)
{
	loom_buf b = LOOM_BUF_INIT;
	tw_enc t;
	tw_init(&t, &b);
	tw_struct_begin(&t);
	tw_i32(&t, 1, 4);                 /* 0x15 zigzag(4)=8 */
	tw_i64(&t, 20, -1);               /* long form: 0x06, zigzag(20)=40, zigzag(-1)=1 */
	tw_bool(&t, 21, 1);               /* delta 1, true: 0x11 */
	tw_bool(&t, 22, 0);               /* delta 1, false: 0x12 */
	tw_field_struct(&t, 23);          /* 0x1c */
	tw_i32(&t, 1, 1);                 /* inner delta from 0: 0x15 0x02 */
	tw_struct_end(&t);                /* 0x00 */
	tw_binary(&t, 24, "ab", 2);       /* outer delta from 23: 0x18 0x02 'a' 'b' */
	tw_i32(&t, 3, 300);               /* backwards: 0x05 zigzag(3)=6, zigzag(300)=600=0xd8 0x04 */
	tw_struct_end(&t);
	CHECK_OK(tw_finish(&t));
	CHECK_BYTES(&b, 0x15, 0x08, 0x06, 0x28, 0x01, 0x11, 0x12, 0x1c, 0x15, 0x02, 0x00,
	            0x18, 0x02, 'a', 'b', 0x05, 0x06, 0xd8, 0x04, 0x00);
	loom_buf_dispose(&b);
}

TEST(thrift_lists)
{
	loom_buf b = LOOM_BUF_INIT;
	tw_enc t;
	int i;
	tw_init(&t, &b);
	tw_struct_begin(&t);
	tw_field_list(&t, 1, TW_I32, 3);  /* 0x19, size 3 type 5: 0x35 */
	tw_elem_i32(&t, -1);
	tw_elem_i32(&t, 0);
	tw_elem_i32(&t, 64);              /* zigzag 128: 0x80 0x01 */
	tw_field_list(&t, 2, TW_BOOL_TRUE, 2);   /* 0x19, 0x21 */
	tw_elem_bool(&t, 1);
	tw_elem_bool(&t, 0);
	tw_field_list(&t, 3, TW_I64, 20); /* 0x19, 0xf6, 20 */
	for (i = 0; i < 20; i++)
		tw_elem_i64(&t, 0);
	tw_field_list(&t, 4, TW_STRUCT, 1);  /* 0x19 0x1c */
	tw_struct_begin(&t);
	tw_i32(&t, 2, 1);                 /* fresh struct: delta 2 → 0x25 0x02 */
	tw_struct_end(&t);
	tw_struct_end(&t);
	CHECK_OK(tw_finish(&t));
	{
		static const uint8_t head[] = { 0x19, 0x35, 0x01, 0x00, 0x80, 0x01, 0x19, 0x21, 0x01, 0x02,
		                                0x19, 0xf6, 0x14 };
		static const uint8_t tail[] = { 0x19, 0x1c, 0x25, 0x02, 0x00, 0x00 };
		REQUIRE(b.size == sizeof(head) + 20 + sizeof(tail));
		CHECK(memcmp(b.ptr, head, sizeof(head)) == 0);
		CHECK(memcmp(b.ptr + sizeof(head) + 20, tail, sizeof(tail)) == 0);
	}
	loom_buf_dispose(&b);
}

TEST(thrift_unclosed_struct_is_an_error)
{
	loom_buf b = LOOM_BUF_INIT;
	tw_enc t;
	tw_init(&t, &b);
	tw_struct_begin(&t);
	tw_i32(&t, 1, 1);
	CHECK_ERR(tw_finish(&t), LOOM_ERROR);
	loom_buf_dispose(&b);
}

TEST(rle_spec_vectors)
{
	loom_buf b = LOOM_BUF_INIT;
	static const uint32_t seq[8] = { 0, 1, 2, 3, 4, 5, 6, 7 };
	uint32_t v[22];
	int16_t lv[10];
	size_t i;

	/* the spec's bit-packing example: 0..7 at width 3 */
	CHECK_OK(pq_rle_encode_u32(&b, seq, 8, 3));
	CHECK_BYTES(&b, 0x03, 0x88, 0xc6, 0xfa);

	/* a run: 10 x 3 at width 2 -> header 10<<1, one value byte */
	loom_buf_clear(&b);
	for (i = 0; i < 10; i++)
		lv[i] = 3;
	CHECK_OK(pq_rle_encode_levels(&b, lv, 10, 2));
	CHECK_BYTES(&b, 0x14, 0x03);

	/* literal completed to 8 from the run, then the run: [1,2] + 20 x 5 */
	loom_buf_clear(&b);
	v[0] = 1;
	v[1] = 2;
	for (i = 2; i < 22; i++)
		v[i] = 5;
	CHECK_OK(pq_rle_encode_u32(&b, v, 22, 3));
	CHECK_BYTES(&b, 0x03, 0x51, 0xdb, 0xb6, 0x1c, 0x05);

	/* a short tail is zero-padded: [1] width 1 -> one group 0x01 */
	loom_buf_clear(&b);
	CHECK_OK(pq_rle_encode_u32(&b, v, 1, 1));
	CHECK_BYTES(&b, 0x03, 0x01);

	/* a wide run value takes ceil(bw/8) bytes */
	loom_buf_clear(&b);
	for (i = 0; i < 9; i++)
		v[i] = 0x0abcde;
	CHECK_OK(pq_rle_encode_u32(&b, v, 9, 20));
	CHECK_BYTES(&b, 0x12, 0xde, 0xbc, 0x0a);
	CHECK_INT(pq_bit_width(0), 0);
	CHECK_INT(pq_bit_width(1), 1);
	CHECK_INT(pq_bit_width(255), 8);
	CHECK_INT(pq_bit_width(256), 9);
	loom_buf_dispose(&b);
}

TEST(plain_bool_and_bytes)
{
	loom_buf b = LOOM_BUF_INIT;
	static const uint8_t bits[9] = { 1, 0, 1, 1, 0, 0, 0, 0, 1 };
	static const uint32_t off[3] = { 0, 2, 2 };
	CHECK_OK(pq_plain_encode_bool(&b, bits, 9));
	CHECK_BYTES(&b, 0x0d, 0x01);
	loom_buf_clear(&b);
	CHECK_OK(pq_plain_encode_bytes(&b, off, (const uint8_t *)"hi", 0, 2));
	CHECK_BYTES(&b, 2, 0, 0, 0, 'h', 'i', 0, 0, 0, 0);
	loom_buf_dispose(&b);
}

TEST(dictionary_maps_values_to_first_seen_entries)
{
	pq_dict d;
	int64_t vals[6000];
	uint32_t idx[6000], idx2[6000];
	static const uint32_t off[5] = { 0, 1, 3, 4, 6 };
	const uint8_t *data = (const uint8_t *)"abcabc";   /* "a", "bc", "a", "bc" */
	size_t i;
	int ok = 1;

	pq_dict_init(&d, PQ_INT64, 8);
	for (i = 0; i < 6000; i++)
		vals[i] = (int64_t)(i % 3000) * 7919 - 5;
	CHECK_OK(pq_dict_put_fixed(&d, (const uint8_t *)vals, 6000, idx));
	CHECK_INT(d.count, 3000);
	CHECK_INT(d.plain.size, 3000 * 8);
	for (i = 0; i < 6000; i++)
		ok &= idx[i] == i % 3000;
	CHECK(ok);
	CHECK(memcmp(d.plain.ptr, vals, 3000 * 8) == 0);
	CHECK_OK(pq_dict_put_fixed(&d, (const uint8_t *)vals, 6000, idx2));   /* after rehashes */
	CHECK(memcmp(idx, idx2, sizeof(idx)) == 0);
	pq_dict_dispose(&d);

	pq_dict_init(&d, PQ_BYTE_ARRAY, 0);
	CHECK_OK(pq_dict_put_bytes(&d, off, data, 0, 4, idx));
	CHECK_INT(d.count, 2);
	CHECK(idx[0] == 0 && idx[1] == 1 && idx[2] == 0 && idx[3] == 1);
	CHECK(bytes_eq(&d.plain, (const uint8_t *)"\1\0\0\0a\2\0\0\0bc", 11));
	pq_dict_reset(&d);
	CHECK_OK(pq_dict_put_bytes(&d, off, data, 1, 2, idx));
	CHECK_INT(d.count, 1);
	CHECK_INT(idx[0], 0);
	pq_dict_dispose(&d);
}

static int cmp_i(pq_cmp_kind k, const void *a, size_t al, const void *b, size_t bl)
{
	int c = pq_value_cmp(k, a, al, b, bl);
	return c < 0 ? -1 : c > 0;
}

TEST(value_ordering)
{
	static const uint8_t m1[] = { 0xff }, p1[] = { 0x00, 0x01 }, m128[] = { 0x80 },
	                     m129[] = { 0xff, 0x7f }, m1b[] = { 0xff, 0xff };
	float fz = 0.0f, fnz = -0.0f, fnan = NAN, fone = 1.0f;
	double dbig = 1e300, dnan = NAN;
	uint32_t umax = 0xffffffffu, one = 1;
	int32_t smin = INT32_MIN, sone = 1;
	uint8_t hi = 0x80, lo = 0x7f;

	CHECK_INT(cmp_i(PQ_CMP_DECIMAL_BYTES, m1, 1, p1, 2), -1);
	CHECK_INT(cmp_i(PQ_CMP_DECIMAL_BYTES, m128, 1, m129, 2), 1);
	CHECK_INT(cmp_i(PQ_CMP_DECIMAL_BYTES, m1, 1, m1b, 2), 0);
	CHECK_INT(cmp_i(PQ_CMP_DECIMAL_BYTES, p1, 2, m129, 2), 1);
	CHECK_INT(cmp_i(PQ_CMP_FLOAT, &fz, 4, &fnz, 4), 0);
	CHECK_INT(cmp_i(PQ_CMP_FLOAT, &fnan, 4, &fone, 4), 1);
	CHECK_INT(cmp_i(PQ_CMP_DOUBLE, &dbig, 8, &dnan, 8), -1);
	CHECK_INT(cmp_i(PQ_CMP_U32, &umax, 4, &one, 4), 1);
	CHECK_INT(cmp_i(PQ_CMP_I32, &umax, 4, &one, 4), -1);
	CHECK_INT(cmp_i(PQ_CMP_I32, &smin, 4, &sone, 4), -1);
	CHECK_INT(cmp_i(PQ_CMP_BYTES, "ab", 2, "abc", 3), -1);
	CHECK_INT(cmp_i(PQ_CMP_BYTES, "abc", 3, "b", 1), -1);
	CHECK_INT(cmp_i(PQ_CMP_BYTES, &hi, 1, &lo, 1), 1);
	CHECK_INT(cmp_i(PQ_CMP_BYTES, "", 0, "a", 1), -1);
}

TEST(cmp_kind_from_annotations)
{
	pq_schema_node n;
	memset(&n, 0, sizeof(n));
	n.converted_type = PQ_CT_NONE;
	n.type = PQ_INT32;
	CHECK_INT(pq_cmp_kind_of(&n), PQ_CMP_I32);
	n.converted_type = PQ_CT_UINT_8;
	CHECK_INT(pq_cmp_kind_of(&n), PQ_CMP_U32);
	n.converted_type = PQ_CT_NONE;
	n.type = PQ_INT64;
	n.logical_type.kind = PQ_LT_INTEGER;
	n.logical_type.int_bit_width = 64;
	CHECK_INT(pq_cmp_kind_of(&n), PQ_CMP_U64);
	n.logical_type.int_is_signed = 1;
	CHECK_INT(pq_cmp_kind_of(&n), PQ_CMP_I64);
	n.type = PQ_FIXED_LEN_BYTE_ARRAY;
	n.logical_type.kind = PQ_LT_DECIMAL;
	CHECK_INT(pq_cmp_kind_of(&n), PQ_CMP_DECIMAL_BYTES);
	n.logical_type.kind = PQ_LT_NONE;
	n.converted_type = PQ_CT_DECIMAL;
	n.type = PQ_BYTE_ARRAY;
	CHECK_INT(pq_cmp_kind_of(&n), PQ_CMP_DECIMAL_BYTES);
	n.converted_type = PQ_CT_UTF8;
	CHECK_INT(pq_cmp_kind_of(&n), PQ_CMP_BYTES);
	n.type = PQ_INT96;
	CHECK_INT(pq_cmp_kind_of(&n), PQ_CMP_NONE);
	CHECK(pq_cmp_legacy_ok(PQ_CMP_I64) && !pq_cmp_legacy_ok(PQ_CMP_U32) && !pq_cmp_legacy_ok(PQ_CMP_BYTES));
}

TEST(stats_float_rules)
{
	pq_stats s;
	float f[4] = { NAN, 0.0f, NAN, 0.0f }, out;
	double d[3] = { NAN, -2.5, -0.0 }, dout;
	pq_stats_init(&s, PQ_CMP_FLOAT, 4);
	CHECK_OK(pq_stats_add_fixed(&s, (const uint8_t *)f, 1));
	CHECK(!s.has_minmax);                       /* NaN only */
	CHECK_OK(pq_stats_add_fixed(&s, (const uint8_t *)f, 4));
	REQUIRE(s.has_minmax);
	memcpy(&out, s.min.ptr, 4);
	CHECK(out == 0.0f && signbit(out));         /* zero min written -0.0 */
	memcpy(&out, s.max.ptr, 4);
	CHECK(out == 0.0f && !signbit(out));        /* zero max written +0.0 */
	CHECK_INT(s.num_values, 5);
	pq_stats_dispose(&s);

	pq_stats_init(&s, PQ_CMP_DOUBLE, 8);
	CHECK_OK(pq_stats_add_fixed(&s, (const uint8_t *)d, 3));
	memcpy(&dout, s.min.ptr, 8);
	CHECK(dout == -2.5);
	memcpy(&dout, s.max.ptr, 8);
	CHECK(dout == 0.0 && !signbit(dout));
	pq_stats_dispose(&s);
}

TEST(stats_bytes_and_merge)
{
	pq_stats a, b;
	static const uint32_t off[4] = { 0, 1, 3, 3 };
	const uint8_t *data = (const uint8_t *)"b\xff" "a";    /* "b", "\xff" "a", "" */
	pq_stats_init(&a, PQ_CMP_BYTES, 0);
	pq_stats_init(&b, PQ_CMP_BYTES, 0);
	CHECK_OK(pq_stats_add_bytes(&a, off, data, 0, 2));
	CHECK(a.min.size == 1 && a.min.ptr[0] == 'b');
	CHECK(a.max.size == 2 && (uint8_t)a.max.ptr[0] == 0xff);
	CHECK_OK(pq_stats_add_bytes(&b, off, data, 2, 3));
	b.null_count = 4;
	CHECK_OK(pq_stats_merge(&a, &b));
	CHECK_INT(a.min.size, 0);
	CHECK_INT(a.null_count, 4);
	CHECK_INT(a.num_values, 3);
	pq_stats_dispose(&a);
	pq_stats_dispose(&b);
}

/* ---- writer error paths, through an in-memory sink --------------------- */

typedef struct mem_sink {
	loom_store_writer w;
	loom_buf buf;
	int fail_after;    /* fail writes once this many bytes are stored; -1 never */
} mem_sink;

static int mem_write(loom_store_writer *w, const void *p, size_t n)
{
	mem_sink *s = (mem_sink *)w;
	if (s->fail_after >= 0 && s->buf.size + n > (size_t)s->fail_after)
		return loom_err(LOOM_EIO, LOOM_ERRCLASS_STORE, "disk full (test)");
	return loom_buf_put(&s->buf, p, n);
}

static void mem_init(mem_sink *s, int fail_after)
{
	memset(s, 0, sizeof(*s));
	s->w.write = mem_write;
	s->fail_after = fail_after;
}

static void two_col_schema(pq_schema_node *s)
{
	memset(s, 0, 3 * sizeof(*s));
	s[0].name = "schema";
	s[0].is_group = 1;
	s[0].num_children = 2;
	s[0].converted_type = PQ_CT_NONE;
	s[1].name = "a";
	s[1].has_repetition = 1;
	s[1].repetition = PQ_OPTIONAL;
	s[1].type = PQ_INT32;
	s[1].converted_type = PQ_CT_NONE;
	s[2] = s[1];
	s[2].name = "b";
	s[2].repetition = PQ_REQUIRED;
	s[2].type = PQ_INT64;
}

static void two_col_batch(pq_batch *b, size_t rows)
{
	size_t r;
	pq_batch_init(b, 2);
	b->columns[0].type = PQ_INT32;
	b->columns[0].max_def = 1;
	b->columns[1].type = PQ_INT64;
	for (r = 0; r < rows; r++) {
		int32_t a = (int32_t)r;
		int64_t v = (int64_t)r * 1000;
		pq_column_append(&b->columns[0], r % 3 ? 1 : 0, 0, &a, 4);
		pq_column_append(&b->columns[1], 0, 0, &v, 8);
	}
	b->num_rows = rows;
}

TEST(writer_rejects_bad_schemas)
{
	pq_schema_node s[3];
	mem_sink sink;
	pq_writer *w = NULL;
	mem_init(&sink, -1);
	two_col_schema(s);
	s[0].num_children = 3;      /* more children than nodes */
	CHECK_ERR(pq_writer_open(&w, &sink.w, s, 3, NULL), LOOM_EINVAL);
	two_col_schema(s);
	s[0].num_children = 1;      /* tree covers fewer nodes than given */
	CHECK_ERR(pq_writer_open(&w, &sink.w, s, 3, NULL), LOOM_EINVAL);
	two_col_schema(s);
	s[2].type = PQ_FIXED_LEN_BYTE_ARRAY;   /* no width */
	CHECK_ERR(pq_writer_open(&w, &sink.w, s, 3, NULL), LOOM_EINVAL);
	CHECK(w == NULL);
	loom_buf_dispose(&sink.buf);
}

TEST(writer_rejects_bad_batches_and_stays_usable)
{
	pq_schema_node s[3];
	mem_sink sink;
	pq_writer *w = NULL;
	pq_batch b;
	pq_write_result res;
	mem_init(&sink, -1);
	two_col_schema(s);
	CHECK_OK(pq_writer_open(&w, &sink.w, s, 3, NULL));
	two_col_batch(&b, 100);
	b.num_rows = 99;                                 /* disagrees with levels */
	CHECK_ERR(pq_writer_write(w, &b), LOOM_EINVAL);
	b.num_rows = 100;
	b.columns[0].def_levels[5] = 2;                  /* above max_def */
	CHECK_ERR(pq_writer_write(w, &b), LOOM_EINVAL);
	b.columns[0].def_levels[5] = 1;
	b.columns[1].type = PQ_INT32;                    /* wrong type */
	CHECK_ERR(pq_writer_write(w, &b), LOOM_EINVAL);
	b.columns[1].type = PQ_INT64;
	b.num_columns = 1;
	CHECK_ERR(pq_writer_write(w, &b), LOOM_EINVAL);
	b.num_columns = 2;
	CHECK_OK(pq_writer_write(w, &b));
	CHECK(pq_writer_estimated_size(w) > 4 + 100 * 8);
	CHECK_INT(pq_writer_rows(w), 100);
	CHECK_OK(pq_writer_close(w, &res));
	CHECK_INT(res.num_rows, 100);
	CHECK_INT(res.leaves[0].null_count, 34);
	CHECK_INT(res.leaves[1].null_count, 0);
	CHECK(res.file_size == sink.buf.size);
	CHECK(memcmp(sink.buf.ptr, "PAR1", 4) == 0);
	CHECK(memcmp(sink.buf.ptr + sink.buf.size - 4, "PAR1", 4) == 0);
	pq_write_result_free(&res);
	pq_batch_free(&b);
	loom_buf_dispose(&sink.buf);
}

TEST(writer_size_estimate_tracks_output)
{
	pq_schema_node s[3];
	mem_sink sink;
	pq_writer *w = NULL;
	pq_batch b;
	pq_writer_opts o;
	uint64_t est;
	pq_writer_opts_default(&o);
	o.codec = PQ_CODEC_UNCOMPRESSED;
	o.disable_dictionary = 1;
	mem_init(&sink, -1);
	two_col_schema(s);
	CHECK_OK(pq_writer_open(&w, &sink.w, s, 3, &o));
	two_col_batch(&b, 50000);
	CHECK_OK(pq_writer_write(w, &b));
	est = pq_writer_estimated_size(w);
	CHECK_INT(pq_writer_bytes_written(w), 4);     /* one row group, still buffered */
	CHECK_OK(pq_writer_close(w, NULL));
	/* PLAIN, uncompressed: the estimate is the data; the footer adds little */
	CHECK(est <= sink.buf.size && est + 2000 >= sink.buf.size);
	pq_batch_free(&b);
	loom_buf_dispose(&sink.buf);
}

TEST(writer_reports_sink_failures)
{
	pq_schema_node s[3];
	mem_sink sink;
	pq_writer *w = NULL;
	pq_batch b;
	pq_writer_opts o;
	int rc;
	pq_writer_opts_default(&o);
	o.row_group_bytes = 4096;         /* row groups flush during write */
	mem_init(&sink, 3000);
	two_col_schema(s);
	CHECK_OK(pq_writer_open(&w, &sink.w, s, 3, &o));
	two_col_batch(&b, 20000);
	rc = pq_writer_write(w, &b);
	CHECK_INT(rc, LOOM_EIO);
	CHECK(strstr(loom_error_last()->message, "disk full") != NULL);
	CHECK_ERR(pq_writer_close(w, NULL), LOOM_EINVAL);    /* frees the writer */
	pq_batch_free(&b);
	loom_buf_dispose(&sink.buf);
}

/* A two-column file whose footer names `created_by`, written under dir. */
static void write_by(const char *dir, const char *name, const char *created_by)
{
	pq_schema_node s[3];
	mem_sink sink;
	pq_writer *w = NULL;
	pq_batch b;
	pq_writer_opts o;
	char path[4200];
	FILE *f;
	pq_writer_opts_default(&o);
	o.codec = PQ_CODEC_UNCOMPRESSED;
	o.created_by = created_by;
	mem_init(&sink, -1);
	two_col_schema(s);
	CHECK_OK(pq_writer_open(&w, &sink.w, s, 3, &o));
	two_col_batch(&b, 300);
	CHECK_OK(pq_writer_write(w, &b));
	CHECK_OK(pq_writer_close(w, NULL));
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	REQUIRE(f && fwrite(sink.buf.ptr, 1, sink.buf.size, f) == sink.buf.size);
	fclose(f);
	pq_batch_free(&b);
	loom_buf_dispose(&sink.buf);
}

/* parquet-mr before 1.2.9 recorded chunk sizes without the dictionary page
 * header (PARQUET-816): the reader decodes such chunks with some slack, so
 * they must never be copied byte for byte by their recorded size (the copy
 * would lose the chunk's tail). Same file, two writers named. */
TEST(copy_refuses_chunks_of_old_parquet_mr)
{
	char *dir = test_mkdtemp("pq816");
	const char *names[2] = { "old.parquet", "new.parquet" };
	const char *by[2] = { "parquet-mr version 1.2.8", "parquet-mr version 1.8.1 (build 4aba4d)" };
	loom_store *st;
	size_t i;
	CHECK_OK(loom_store_open_local(&st, dir));
	for (i = 0; i < 2; i++) {
		pq_schema_node s[3];
		mem_sink sink;
		pq_writer *w = NULL;
		pq_writer_opts o;
		pq_reader *r = NULL;
		pq_batch b;
		memset(&b, 0, sizeof(b));
		write_by(dir, names[i], by[i]);
		CHECK_OK(pq_reader_open(&r, st, names[i]));
		CHECK_INT(pq_reader_chunk_sizes_exact(r), (int)i);
		/* decoding with the slack still reads exactly the chunk's values */
		CHECK_OK(pq_reader_read_row_group(r, 0, NULL, 0, &b));
		CHECK_INT(b.num_rows, 300);
		CHECK_INT(b.columns[1].num_values, 300);
		pq_writer_opts_default(&o);
		o.codec = PQ_CODEC_UNCOMPRESSED;
		mem_init(&sink, -1);
		two_col_schema(s);
		CHECK_OK(pq_writer_open(&w, &sink.w, s, 3, &o));
		CHECK_INT(pq_writer_can_copy(w, r, 0), (int)i);
		CHECK_OK(pq_writer_close(w, NULL));
		pq_batch_free(&b);
		pq_reader_free(r);
		loom_buf_dispose(&sink.buf);
	}
	loom_store_free(st);
	test_rmtree(dir);
	free(dir);
}

int main(void)
{
	RUN(thrift_fields_and_nesting);
	RUN(thrift_lists);
	RUN(thrift_unclosed_struct_is_an_error);
	RUN(rle_spec_vectors);
	RUN(plain_bool_and_bytes);
	RUN(dictionary_maps_values_to_first_seen_entries);
	RUN(value_ordering);
	RUN(cmp_kind_from_annotations);
	RUN(stats_float_rules);
	RUN(stats_bytes_and_merge);
	RUN(writer_rejects_bad_schemas);
	RUN(writer_rejects_bad_batches_and_stays_usable);
	RUN(writer_size_estimate_tracks_output);
	RUN(writer_reports_sink_failures);
	RUN(copy_refuses_chunks_of_old_parquet_mr);
	return test_summary();
}
