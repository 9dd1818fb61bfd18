/* test_parquet_footer.c - the Thrift compact decoder (skipping unknown
 * fields of every type, depth and length limits), footer decoding of
 * handcrafted and damaged footers, page-size bounds, and the reader API
 * (ranged reads through a store, projection, batch reuse). */
#include <stdint.h>
#include <string.h>

#include "loom/store.h"
#include "parquet/meta.h"
#include "parquet/reader.h"
#include "parquet/thrift_read.h"
#include "util/error.h"
#include "test.h"
#include "tmpdir.h"

/* ---- a tiny compact-protocol writer, independent of the decoder ---- */
typedef struct wbuf {
	uint8_t b[4096];
	size_t n;
	int16_t last[32];
	int depth;
} wbuf;

static void w_byte(wbuf *w, uint8_t v) { w->b[w->n++] = v; }
static void w_varint(wbuf *w, uint64_t v)
{
	while (v >= 0x80) {
		w_byte(w, (uint8_t)(v | 0x80));
		v >>= 7;
	}
	w_byte(w, (uint8_t)v);
}
static void w_zz(wbuf *w, int64_t v) { w_varint(w, ((uint64_t)v << 1) ^ (uint64_t)(v >> 63)); }
static void w_field(wbuf *w, int id, int type)
{
	int d = id - w->last[w->depth];
	if (d > 0 && d <= 15)
		w_byte(w, (uint8_t)(d << 4 | type));
	else {
		w_byte(w, (uint8_t)type);
		w_zz(w, id);
	}
	w->last[w->depth] = (int16_t)id;
}
static void w_begin(wbuf *w) { w->last[++w->depth] = 0; }
static void w_end(wbuf *w) { w_byte(w, 0); w->depth--; }
static void w_i(wbuf *w, int id, int64_t v) { w_field(w, id, PQ_TT_I64); w_zz(w, v); }
static void w_i32(wbuf *w, int id, int64_t v) { w_field(w, id, PQ_TT_I32); w_zz(w, v); }
static void w_str(wbuf *w, int id, const char *s)
{
	w_field(w, id, PQ_TT_BINARY);
	w_varint(w, strlen(s));
	memcpy(w->b + w->n, s, strlen(s));
	w->n += strlen(s);
}
static void w_list(wbuf *w, int id, int et, unsigned n)
{
	w_field(w, id, PQ_TT_LIST);
	if (n < 15)
		w_byte(w, (uint8_t)(n << 4 | et));
	else {
		w_byte(w, (uint8_t)(0xf0 | et));
		w_varint(w, n);
	}
}

/* Unknown fields of every wire type, to be skipped. */
static void w_junk(wbuf *w, int base)
{
	w_field(w, base, PQ_TT_MAP);          /* map<binary, i64> with 2 entries */
	w_varint(w, 2);
	w_byte(w, PQ_TT_BINARY << 4 | PQ_TT_I64);
	w_varint(w, 1); w_byte(w, 'k'); w_zz(w, -5);
	w_varint(w, 0); w_zz(w, 123456789012345LL);
	w_field(w, base + 1, PQ_TT_SET);      /* set<bool> */
	w_byte(w, 3 << 4 | PQ_TT_TRUE);
	w_byte(w, 1); w_byte(w, 2); w_byte(w, 1);
	w_field(w, base + 2, PQ_TT_STRUCT);   /* struct { double; list<list<i32>>; } */
	w_begin(w);
	w_field(w, 1, PQ_TT_DOUBLE);
	memset(w->b + w->n, 0x40, 8);
	w->n += 8;
	w_list(w, 2, PQ_TT_LIST, 2);
	w_byte(w, 2 << 4 | PQ_TT_I32); w_zz(w, 1); w_zz(w, -1);
	w_byte(w, 0 << 4 | PQ_TT_I32);
	w_end(w);
	w_field(w, base + 3, PQ_TT_TRUE);     /* bool field: no payload */
	w_field(w, base + 4, PQ_TT_BYTE);
	w_byte(w, 0x7f);
	w_field(w, base + 300, PQ_TT_I16);    /* long-form field header */
	w_zz(w, -300);
	w_field(w, base + 301, PQ_TT_MAP);    /* empty map */
	w_varint(w, 0);
}

/* FileMetaData: version 2, schema root + optional int64 x (TIMESTAMP
 * micros UTC), num_rows 7, no row groups, created_by "me", with unknown
 * fields everywhere. */
static void build_meta(wbuf *w)
{
	memset(w, 0, sizeof(*w));
	w_begin(w);
	w_i32(w, 1, 2);
	w_list(w, 2, PQ_TT_STRUCT, 2);
	w_begin(w); w_str(w, 4, "schema"); w_i32(w, 5, 1); w_junk(w, 40); w_end(w);
	w_begin(w);
	w_i32(w, 1, PQ_INT64); w_i32(w, 3, PQ_OPTIONAL); w_str(w, 4, "x");
	w_field(w, 10, PQ_TT_STRUCT);
	w_begin(w);
	w_field(w, 8, PQ_TT_STRUCT);
	w_begin(w);
	w_field(w, 1, PQ_TT_TRUE);
	w_field(w, 2, PQ_TT_STRUCT); w_begin(w); w_field(w, 2, PQ_TT_STRUCT); w_begin(w); w_end(w); w_end(w);
	w_end(w);
	w_end(w);
	w_end(w);
	w_i(w, 3, 7);
	w_junk(w, 20);
	w_list(w, 4, PQ_TT_STRUCT, 0);
	w_str(w, 6, "me");
	w_end(w);
}

TEST(thrift_skips_every_type)
{
	wbuf w;
	pq_tr t;
	pq_file_meta *m;
	build_meta(&w);
	pq_tr_init(&t, w.b, w.n, 0, "t");
	CHECK_OK(pq_tr_skip(&t, PQ_TT_STRUCT, 0));
	CHECK_INT(t.pos, w.n);
	CHECK_INT(t.depth, 0);
	CHECK_OK(pq_file_meta_decode(&m, w.b, w.n, 0, "t"));
	CHECK_INT(m->version, 2);
	CHECK_INT(m->num_rows, 7);
	CHECK_STR(m->created_by, "me");
	REQUIRE(m->num_schema == 2);
	CHECK_STR(m->schema[0].name, "schema");
	CHECK_INT(m->schema[0].num_children, 1);
	CHECK_STR(m->schema[1].name, "x");
	CHECK_INT(m->schema[1].type, PQ_INT64);
	CHECK_INT(m->schema[1].logical_type.kind, PQ_LT_TIMESTAMP);
	CHECK_INT(m->schema[1].logical_type.unit, PQ_UNIT_MICROS);
	CHECK_INT(m->schema[1].logical_type.is_adjusted_to_utc, 1);
	CHECK_INT(m->num_row_groups, 0);
	pq_file_meta_free(m);
}

TEST(thrift_truncations_and_mutations_fail_cleanly)
{
	wbuf w;
	size_t cut, i;
	pq_file_meta *m;
	uint32_t seed = 12345;
	build_meta(&w);
	for (cut = 0; cut < w.n; cut++) {
		int rc = pq_file_meta_decode(&m, w.b, cut, 100, "cut");
		if (rc != LOOM_ECORRUPT) {
			TEST_FAIL_AT("prefix of %zu bytes: rc %d", cut, rc);
			pq_file_meta_free(m);
		} else if (!strstr(loom_error_last()->message, "byte offset"))
			TEST_FAIL_AT("message without offset: %s", loom_error_last()->message);
	}
	/* random byte flips: any result but a crash (ASan/UBSan watch) */
	for (i = 0; i < 20000; i++) {
		uint8_t copy[4096];
		int k;
		memcpy(copy, w.b, w.n);
		for (k = 0; k < 3; k++) {
			seed = seed * 1103515245u + 12345u;
			copy[(seed >> 8) % w.n] = (uint8_t)(seed >> 20);
		}
		if (pq_file_meta_decode(&m, copy, w.n, 0, "mut") == 0)
			pq_file_meta_free(m);
	}
}

TEST(thrift_limits)
{
	uint8_t deep[300];
	uint8_t lying[] = { 0x19, 0xfc, 0xe8, 0x07, 0x00 };   /* field 1: list<struct> of 1000 in 1 byte */
	uint8_t badtype[] = { 0x1d, 0x00 };                   /* field type 13 does not exist */
	uint8_t longbin[] = { 0x68, 0xff, 0xff, 0xff, 0xff, 0x0f, 'a' };  /* field 6: 4 GiB string */
	pq_file_meta *m;
	size_t i;
	for (i = 0; i < sizeof(deep); i++)
		deep[i] = 0x1c;   /* field 1: struct, nested forever */
	CHECK_ERR(pq_file_meta_decode(&m, deep, sizeof(deep), 0, "deep"), LOOM_ECORRUPT);
	CHECK(strstr(loom_error_last()->message, "nesting") != NULL);
	CHECK_ERR(pq_file_meta_decode(&m, lying, sizeof(lying), 0, "lying"), LOOM_ECORRUPT);
	CHECK(strstr(loom_error_last()->message, "list count") != NULL);
	CHECK_ERR(pq_file_meta_decode(&m, badtype, sizeof(badtype), 0, "badtype"), LOOM_ECORRUPT);
	CHECK_ERR(pq_file_meta_decode(&m, longbin, sizeof(longbin), 0, "longbin"), LOOM_ECORRUPT);
	CHECK(strstr(loom_error_last()->message, "longbin: corrupt metadata at byte offset") != NULL);
}

/* A one-column file: PAR1, one page (header + body), footer. */
static size_t build_file(uint8_t *out, int32_t usize, int codec, const uint8_t *body, size_t blen)
{
	wbuf ph, ft;
	size_t n = 0, chunk;
	uint32_t flen;
	memset(&ph, 0, sizeof(ph));
	w_begin(&ph);
	w_i32(&ph, 1, PQ_PAGE_DATA); w_i32(&ph, 2, usize); w_i32(&ph, 3, (int64_t)blen);
	w_field(&ph, 5, PQ_TT_STRUCT);
	w_begin(&ph); w_i32(&ph, 1, 1); w_i32(&ph, 2, 0); w_i32(&ph, 3, 3); w_i32(&ph, 4, 3); w_end(&ph);
	w_end(&ph);
	memcpy(out, "PAR1", 4);
	n = 4;
	memcpy(out + n, ph.b, ph.n);
	n += ph.n;
	memcpy(out + n, body, blen);
	n += blen;
	chunk = n - 4;
	memset(&ft, 0, sizeof(ft));
	w_begin(&ft);
	w_i32(&ft, 1, 1);
	w_list(&ft, 2, PQ_TT_STRUCT, 2);
	w_begin(&ft); w_str(&ft, 4, "s"); w_i32(&ft, 5, 1); w_end(&ft);
	w_begin(&ft); w_i32(&ft, 1, PQ_INT32); w_i32(&ft, 3, PQ_REQUIRED); w_str(&ft, 4, "x"); w_end(&ft);
	w_i(&ft, 3, 1);
	w_list(&ft, 4, PQ_TT_STRUCT, 1);
	w_begin(&ft);
	w_list(&ft, 1, PQ_TT_STRUCT, 1);
	w_begin(&ft);
	w_i(&ft, 2, 4);
	w_field(&ft, 3, PQ_TT_STRUCT);
	w_begin(&ft);
	w_i32(&ft, 1, PQ_INT32);
	w_list(&ft, 2, PQ_TT_I32, 1); w_zz(&ft, 0);
	w_list(&ft, 3, PQ_TT_BINARY, 1); w_varint(&ft, 1); w_byte(&ft, 'x');
	w_i32(&ft, 4, codec); w_i(&ft, 5, 1); w_i(&ft, 6, (int64_t)chunk); w_i(&ft, 7, (int64_t)chunk);
	w_i(&ft, 9, 4);
	w_end(&ft);
	w_end(&ft);
	w_i(&ft, 2, 4); w_i(&ft, 3, 1);
	w_end(&ft);
	w_end(&ft);
	memcpy(out + n, ft.b, ft.n);
	n += ft.n;
	flen = (uint32_t)ft.n;
	memcpy(out + n, &flen, 4);
	memcpy(out + n + 4, "PAR1", 4);
	return n + 8;
}

static int write_file(const char *dir, const char *name, const uint8_t *p, size_t n)
{
	char path[4200];
	FILE *f;
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (!f)
		return -1;
	fwrite(p, 1, n, f);
	return fclose(f);
}

static int read_x(loom_store *s, const char *key, int32_t *x)
{
	pq_reader *r;
	pq_batch b;
	int rc;
	memset(&b, 0, sizeof(b));
	LOOM_TRY(pq_reader_open(&r, s, key));
	rc = pq_reader_read_row_group(r, 0, NULL, 0, &b);
	if (rc == 0)
		memcpy(x, b.columns[0].values, 4);
	pq_batch_free(&b);
	pq_reader_free(r);
	return rc;
}

TEST(page_bounds_and_bombs)
{
	char *dir = test_mkdtemp("pqfoot");
	loom_store *s;
	uint8_t file[8192];
	const uint8_t plain[] = { 42, 0, 0, 0 };
	const uint8_t snappy[] = { 0x04, 0x0c, 7, 0, 0, 0 };   /* "07 00 00 00" as a snappy literal */
	int32_t x = 0;
	size_t n;

	CHECK_OK(loom_store_open_local(&s, dir));
	n = build_file(file, 4, PQ_CODEC_UNCOMPRESSED, plain, sizeof(plain));
	REQUIRE(write_file(dir, "ok.parquet", file, n) == 0);
	CHECK_OK(read_x(s, "ok.parquet", &x));
	CHECK_INT(x, 42);
	n = build_file(file, 4, PQ_CODEC_SNAPPY, snappy, sizeof(snappy));
	REQUIRE(write_file(dir, "snappy.parquet", file, n) == 0);
	CHECK_OK(read_x(s, "snappy.parquet", &x));
	CHECK_INT(x, 7);
	/* a page claiming 1.5 GiB uncompressed: refused before allocating */
	n = build_file(file, 1536 * 1024 * 1024, PQ_CODEC_SNAPPY, snappy, sizeof(snappy));
	REQUIRE(write_file(dir, "bomb.parquet", file, n) == 0);
	CHECK_ERR(read_x(s, "bomb.parquet", &x), LOOM_ECORRUPT);
	CHECK(strstr(loom_error_last()->message, "1 GiB") != NULL);
	/* compressed data expanding to more (or less) than declared */
	n = build_file(file, 3, PQ_CODEC_SNAPPY, snappy, sizeof(snappy));
	REQUIRE(write_file(dir, "expand.parquet", file, n) == 0);
	CHECK_ERR(read_x(s, "expand.parquet", &x), LOOM_ECORRUPT);
	CHECK(strstr(loom_error_last()->message, "expand.parquet") != NULL);
	n = build_file(file, 100, PQ_CODEC_SNAPPY, snappy, sizeof(snappy));
	REQUIRE(write_file(dir, "short.parquet", file, n) == 0);
	CHECK_ERR(read_x(s, "short.parquet", &x), LOOM_ECORRUPT);
	/* a plain page too short for its value */
	n = build_file(file, 3, PQ_CODEC_UNCOMPRESSED, plain, 3);
	REQUIRE(write_file(dir, "trunc.parquet", file, n) == 0);
	CHECK_ERR(read_x(s, "trunc.parquet", &x), LOOM_ECORRUPT);
	loom_store_free(s);
	test_rmtree(dir);
	free(dir);
}

TEST(damaged_footers)
{
	char *dir = test_mkdtemp("pqfoot");
	loom_store *s;
	uint8_t file[8192], copy[8192];
	const uint8_t plain[] = { 42, 0, 0, 0 };
	size_t n = build_file(file, 4, PQ_CODEC_UNCOMPRESSED, plain, sizeof(plain)), cut;
	uint32_t flen;
	pq_reader *r;

	CHECK_OK(loom_store_open_local(&s, dir));
	memcpy(&flen, file + n - 8, 4);
	/* footer length beyond the file */
	memcpy(copy, file, n);
	flen = 0x7fffffff;
	memcpy(copy + n - 8, &flen, 4);
	memcpy(&flen, file + n - 8, 4);
	REQUIRE(write_file(dir, "long.parquet", copy, n) == 0);
	CHECK_ERR(pq_reader_open(&r, s, "long.parquet"), LOOM_ECORRUPT);
	CHECK(strstr(loom_error_last()->message, "footer length") != NULL);
	/* every shorter footer length: the footer is cut, a clean error */
	for (cut = 0; cut < flen; cut++) {
		uint32_t l = (uint32_t)cut;
		memcpy(copy, file, n);
		memcpy(copy + n - 8, &l, 4);
		REQUIRE(write_file(dir, "cut.parquet", copy, n) == 0);
		if (pq_reader_open(&r, s, "cut.parquet") != LOOM_ECORRUPT) {
			TEST_FAIL_AT("footer length %zu of %u opened", cut, flen);
			pq_reader_free(r);
		}
	}
	/* the file truncated anywhere */
	for (cut = 0; cut + 1 < n; cut += 3) {
		REQUIRE(write_file(dir, "trunc.parquet", file, cut) == 0);
		if (pq_reader_open(&r, s, "trunc.parquet") == 0) {
			TEST_FAIL_AT("file truncated to %zu bytes opened", cut);
			pq_reader_free(r);
		}
	}
	/* bad magic */
	memcpy(copy, file, n);
	copy[n - 1] = 'X';
	REQUIRE(write_file(dir, "magic.parquet", copy, n) == 0);
	CHECK_ERR(pq_reader_open(&r, s, "magic.parquet"), LOOM_ECORRUPT);
	CHECK(strstr(loom_error_last()->message, "magic") != NULL);
	CHECK_ERR(pq_reader_open(&r, s, "missing.parquet"), LOOM_ENOTFOUND);
	loom_store_free(s);
	test_rmtree(dir);
	free(dir);
}

TEST(reader_projection_and_reuse)
{
	loom_store *s;
	pq_reader *r;
	pq_batch b;
	const pq_schema *sc;
	size_t leaves[2], i, round;
	/* alltypes_plain.parquet: ids 4,5,6,7,2,3,0,1 and string_col "0","1" alternating */
	const int32_t ids[] = { 4, 5, 6, 7, 2, 3, 0, 1 };
	memset(&b, 0, sizeof(b));
	CHECK_OK(loom_store_open_local(&s, LOOM_FIXTURES_DIR "/parquet/data"));
	CHECK_OK(pq_reader_open(&r, s, "alltypes_plain.parquet"));
	sc = pq_reader_schema(r);
	REQUIRE(sc->num_leaves == 11);
	CHECK_STR(sc->leaves[9].path, "string_col");
	CHECK_INT(pq_schema_find_leaf(sc, "id"), 0);
	CHECK_INT(pq_schema_find_leaf(sc, "nope"), -1);
	CHECK_INT(pq_reader_meta(r)->num_rows, 8);
	leaves[0] = 9;
	leaves[1] = 0;
	for (round = 0; round < 2; round++) {
		CHECK_OK(pq_reader_read_row_group(r, 0, leaves, 2, &b));
		REQUIRE(b.num_columns == 2 && b.num_rows == 8);
		REQUIRE(b.columns[0].type == PQ_BYTE_ARRAY && b.columns[1].type == PQ_INT32);
		CHECK_INT(b.columns[1].num_values, 8);
		for (i = 0; i < 8; i++) {
			int32_t v;
			memcpy(&v, b.columns[1].values + 4 * i, 4);
			CHECK_INT(v, ids[i]);
			CHECK_INT(b.columns[0].offsets[i + 1] - b.columns[0].offsets[i], 1);
			CHECK_INT(b.columns[0].data[b.columns[0].offsets[i]], '0' + (int)(i % 2));
		}
		CHECK_INT(b.columns[1].max_def, 1);
		CHECK_INT(b.columns[1].num_levels, 8);
	}
	CHECK_ERR(pq_reader_read_row_group(r, 0, leaves, 1, &b), LOOM_EINVAL);
	CHECK_ERR(pq_reader_read_row_group(r, 1, leaves, 2, &b), LOOM_EINVAL);
	leaves[1] = 11;
	CHECK_ERR(pq_reader_read_row_group(r, 0, leaves, 2, &b), LOOM_EINVAL);
	pq_batch_free(&b);
	pq_reader_free(r);
	pq_reader_free(NULL);
	loom_store_free(s);
}

/* Page indexes of a real file (alltypes_tiny_pages: many small pages):
 * the offset index must tile the column chunk page by page, its first page
 * at the chunk's first data page; the column index must list as many pages
 * and agree with the chunk's row count. */
TEST(page_indexes)
{
	loom_store *s;
	pq_reader *r;
	const pq_file_meta *m;
	size_t c;
	int checked = 0;
	CHECK_OK(loom_store_open_local(&s, LOOM_FIXTURES_DIR "/parquet/data"));
	CHECK_OK(pq_reader_open(&r, s, "alltypes_tiny_pages.parquet"));
	m = pq_reader_meta(r);
	REQUIRE(m->num_row_groups == 1);
	for (c = 0; c < m->row_groups[0].num_columns; c++) {
		const pq_column_chunk *cc = &m->row_groups[0].columns[c];
		uint8_t buf[65536];
		size_t got, p;
		pq_offset_index oi;
		pq_column_index ci;
		loom_arena a;
		if (!cc->has_offset_index || !cc->has_column_index)
			continue;
		REQUIRE(cc->offset_index_length > 0 && (size_t)cc->offset_index_length <= sizeof(buf));
		REQUIRE(cc->column_index_length > 0 && (size_t)cc->column_index_length <= sizeof(buf));
		loom_arena_init(&a, 4096);
		CHECK_OK(s->read_range(s, "alltypes_tiny_pages.parquet", (uint64_t)cc->offset_index_offset,
		                       (size_t)cc->offset_index_length, buf, &got));
		CHECK_OK(pq_offset_index_decode(&oi, &a, buf, got, (uint64_t)cc->offset_index_offset, "oi"));
		CHECK_OK(s->read_range(s, "alltypes_tiny_pages.parquet", (uint64_t)cc->column_index_offset,
		                       (size_t)cc->column_index_length, buf, &got));
		CHECK_OK(pq_column_index_decode(&ci, &a, buf, got, (uint64_t)cc->column_index_offset, "ci"));
		REQUIRE(oi.num_pages > 1);
		CHECK_INT(ci.num_pages, oi.num_pages);
		CHECK_INT(oi.pages[0].first_row_index, 0);
		/* data pages only: the first one at or after the chunk's start
		 * (a dictionary page may come first) */
		CHECK(oi.pages[0].offset >= cc->meta.data_page_offset);
		CHECK(oi.pages[0].offset < cc->meta.data_page_offset + cc->meta.total_compressed_size);
		for (p = 1; p < oi.num_pages; p++) {
			CHECK(oi.pages[p].first_row_index > oi.pages[p - 1].first_row_index);
			CHECK(oi.pages[p].first_row_index < m->row_groups[0].num_rows);
			/* pages follow each other without gaps */
			CHECK_INT(oi.pages[p].offset, oi.pages[p - 1].offset + oi.pages[p - 1].compressed_page_size);
		}
		CHECK_INT(oi.pages[oi.num_pages - 1].offset + oi.pages[oi.num_pages - 1].compressed_page_size,
		          (cc->meta.has_dictionary_page_offset && cc->meta.dictionary_page_offset > 0
		               ? cc->meta.dictionary_page_offset : cc->meta.data_page_offset) +
		              cc->meta.total_compressed_size);
		loom_arena_dispose(&a);
		checked++;
	}
	CHECK_INT(checked, 12);   /* every column but one (a chunk without a column index) */
	pq_reader_free(r);
	loom_store_free(s);
}

/* A store that forwards to the local one and counts the bytes read. */
typedef struct counting_store {
	loom_store base;
	loom_store *inner;
	uint64_t bytes, reads;
} counting_store;

static int count_read(loom_store *s, const char *key, uint64_t off, size_t len, void *dst, size_t *nread)
{
	counting_store *c = (counting_store *)s;
	int rc = c->inner->read_range(c->inner, key, off, len, dst, nread);
	c->bytes += *nread;
	c->reads++;
	return rc;
}

static int count_stat(loom_store *s, const char *key, loom_store_entry *e)
{
	counting_store *c = (counting_store *)s;
	return c->inner->stat(c->inner, key, e);
}

/* Opening reads the tail and the footer only; a projected row group read
 * fetches just that column chunk. */
TEST(ranged_reads_only)
{
	counting_store cs;
	pq_reader *r;
	pq_batch b;
	size_t leaf = 1;
	const pq_column_meta *m;
	uint64_t footer;
	memset(&cs, 0, sizeof(cs));
	memset(&b, 0, sizeof(b));
	CHECK_OK(loom_store_open_local(&cs.inner, LOOM_FIXTURES_DIR "/parquet/data"));
	cs.base.version = LOOM_STORE_VERSION;
	cs.base.name = "counting";
	cs.base.read_range = count_read;
	cs.base.stat = count_stat;
	CHECK_OK(pq_reader_open(&r, &cs.base, "alltypes_tiny_pages.parquet"));
	footer = cs.bytes - 8;
	CHECK_INT(cs.reads, 2);
	CHECK(footer > 1000 && footer < 20000);
	CHECK_INT(pq_reader_file_size(r), 454233);
	cs.bytes = cs.reads = 0;
	CHECK_OK(pq_reader_read_row_group(r, 0, &leaf, 1, &b));
	m = &pq_reader_meta(r)->row_groups[0].columns[1].meta;
	CHECK_INT(cs.bytes, m->total_compressed_size);
	CHECK_INT(cs.reads, 1);
	CHECK(cs.bytes < 454233 / 50);
	CHECK_INT(b.num_rows, 7300);
	pq_batch_free(&b);
	pq_reader_free(r);
	loom_store_free(cs.inner);
}

int main(void)
{
	RUN(ranged_reads_only);
	RUN(page_indexes);
	RUN(thrift_skips_every_type);
	RUN(thrift_truncations_and_mutations_fail_cleanly);
	RUN(thrift_limits);
	RUN(page_bounds_and_bombs);
	RUN(damaged_footers);
	RUN(reader_projection_and_reuse);
	return test_summary();
}
