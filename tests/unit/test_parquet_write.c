/* test_parquet_write.c - writes Parquet files with loom's writer covering
 * every physical type, the common logical types, nulls, nesting, every
 * codec, dictionary + fallback, many pages and row groups, and the page
 * index; writes the generated values as JSON beside each file; then
 * tests/tools/pqwrite_verify.cjs reads every file with DuckDB, Polars and
 * parquet-wasm (arrow-rs) and compares values and footer statistics. loom's
 * own reader is never used. */
#include <math.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "loom/store.h"
#include "parquet/batch.h"
#include "parquet/writer.h"
#include "test.h"
#include "tmpdir.h"
#include "util/buf.h"
#include "util/threadpool.h"

static char *g_dir;

/* ---- deterministic values --------------------------------------------- */

static uint64_t rng_state;
static uint64_t rnd(void)
{
	uint64_t z = (rng_state += 0x9E3779B97F4A7C15ull);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}
static int64_t rnd_range(int64_t lo, int64_t hi) /* inclusive */
{
	return lo + (int64_t)(rnd() % (uint64_t)(hi - lo + 1));
}

/* ---- schema helpers ---------------------------------------------------- */

static pq_schema_node node_base(const char *name, pq_repetition rep)
{
	pq_schema_node n;
	memset(&n, 0, sizeof(n));
	n.name = name;
	n.has_repetition = 1;
	n.repetition = rep;
	n.converted_type = PQ_CT_NONE;
	return n;
}
static pq_schema_node root_node(int nchildren)
{
	pq_schema_node n = node_base("schema", PQ_REQUIRED);
	n.has_repetition = 0;
	n.is_group = 1;
	n.num_children = nchildren;
	return n;
}
static pq_schema_node group_node(const char *name, pq_repetition rep, int nchildren, pq_logical_kind lk)
{
	pq_schema_node n = node_base(name, rep);
	n.is_group = 1;
	n.num_children = nchildren;
	n.logical_type.kind = lk;
	return n;
}
static pq_schema_node leaf_node(const char *name, pq_repetition rep, pq_physical_type t, int32_t tl)
{
	pq_schema_node n = node_base(name, rep);
	n.type = t;
	n.type_length = tl;
	return n;
}

/* ---- canonical JSON of one PLAIN value ---------------------------------- */

enum kind {
	K_BOOL, K_I8, K_I16, K_I32, K_I64, K_U8, K_U16, K_U32, K_U64, K_FLOAT,
	K_DOUBLE, K_STR, K_BIN, K_DATE, K_TS_MS, K_TS_US_UTC, K_TS_NS, K_TS_NS_UTC,
	K_DEC32, K_DEC64, K_DECFL, K_DECBA, K_FLBA, K_INT96, K_REQ_I64, K_ALLNULL,
	K_NANONLY, K_TS_MS_UTC, K_TS_US, K_COUNT
};

static void put_i128(loom_buf *j, __int128 v)
{
	char tmp[64];
	int n = 0, neg = v < 0;
	unsigned __int128 u = neg ? (unsigned __int128)(-(v + 1)) + 1 : (unsigned __int128)v;
	do {
		tmp[n++] = (char)('0' + (int)(u % 10));
		u /= 10;
	} while (u);
	loom_buf_putc(j, '"');
	if (neg)
		loom_buf_putc(j, '-');
	while (n)
		loom_buf_putc(j, tmp[--n]);
	loom_buf_putc(j, '"');
}

static __int128 be_twos(const uint8_t *p, size_t len)
{
	__int128 v = (len && (p[0] & 0x80)) ? -1 : 0;
	size_t i;
	for (i = 0; i < len; i++)
		v = (__int128)(((unsigned __int128)v << 8) | p[i]);
	return v;
}

static void put_float(loom_buf *j, double d)
{
	if (isnan(d))
		loom_buf_puts(j, "\"NaN\"");
	else if (d == 0 && signbit(d))
		loom_buf_puts(j, "\"-0\"");
	else
		loom_buf_printf(j, "\"%.17g\"", d);
}

static void put_hex(loom_buf *j, const uint8_t *p, size_t n)
{
	size_t i;
	loom_buf_putc(j, '"');
	for (i = 0; i < n; i++)
		loom_buf_printf(j, "%02x", p[i]);
	loom_buf_putc(j, '"');
}

static void canon(loom_buf *j, int k, const uint8_t *p, size_t len)
{
	int32_t i32;
	int64_t i64;
	uint32_t u32;
	uint64_t u64;
	float f;
	double d;
	switch (k) {
	case K_BOOL: loom_buf_puts(j, p[0] ? "true" : "false"); break;
	case K_I8: case K_I16: case K_I32: case K_DATE: case K_DEC32:
		memcpy(&i32, p, 4);
		loom_buf_printf(j, "\"%d\"", i32);
		break;
	case K_U8: case K_U16: case K_U32:
		memcpy(&u32, p, 4);
		loom_buf_printf(j, "\"%u\"", u32);
		break;
	case K_I64: case K_DEC64: case K_REQ_I64: case K_ALLNULL: case K_TS_NS: case K_TS_NS_UTC:
		memcpy(&i64, p, 8);
		loom_buf_printf(j, "\"%lld\"", (long long)i64);
		break;
	case K_TS_MS: case K_TS_MS_UTC:
		memcpy(&i64, p, 8);
		put_i128(j, (__int128)i64 * 1000000);
		break;
	case K_TS_US_UTC: case K_TS_US:
		memcpy(&i64, p, 8);
		put_i128(j, (__int128)i64 * 1000);
		break;
	case K_U64:
		memcpy(&u64, p, 8);
		loom_buf_printf(j, "\"%llu\"", (unsigned long long)u64);
		break;
	case K_FLOAT:
		memcpy(&f, p, 4);
		put_float(j, (double)f);
		break;
	case K_DOUBLE: case K_NANONLY:
		memcpy(&d, p, 8);
		put_float(j, d);
		break;
	case K_STR: loom_buf_put_json_string(j, (const char *)p, len); break;
	case K_BIN: case K_FLBA: put_hex(j, p, len); break;
	case K_DECFL: case K_DECBA: put_i128(j, be_twos(p, len)); break;
	case K_INT96: {
		int64_t nod;
		uint32_t jd;
		memcpy(&nod, p, 8);
		memcpy(&jd, p + 8, 4);
		put_i128(j, ((__int128)jd - 2440588) * 86400000000000LL + nod);
		break;
	}
	}
}

/* ---- the flat "primitives" columns -------------------------------------- */

typedef struct pcol {
	const char *name, *spec;
	int kind;
	int stats;      /* footer stats checked against DuckDB */
} pcol;

static const pcol PCOLS[] = {
	{ "b", "{\"t\":\"bool\"}", K_BOOL, 1 },
	{ "i8", "{\"t\":\"int\"}", K_I8, 1 },
	{ "i16", "{\"t\":\"int\"}", K_I16, 1 },
	{ "i32", "{\"t\":\"int\"}", K_I32, 1 },
	{ "i64", "{\"t\":\"int\"}", K_I64, 1 },
	{ "u8", "{\"t\":\"int\"}", K_U8, 1 },
	{ "u16", "{\"t\":\"int\"}", K_U16, 1 },
	{ "u32", "{\"t\":\"int\"}", K_U32, 1 },
	{ "u64", "{\"t\":\"int\"}", K_U64, 1 },
	{ "f", "{\"t\":\"float\",\"f32\":true}", K_FLOAT, 1 },
	{ "d", "{\"t\":\"float\"}", K_DOUBLE, 1 },
	{ "s", "{\"t\":\"str\"}", K_STR, 1 },
	{ "bin", "{\"t\":\"bin\"}", K_BIN, 0 },
	{ "date", "{\"t\":\"date\"}", K_DATE, 1 },
	{ "ts_ms", "{\"t\":\"ts\"}", K_TS_MS, 1 },
	{ "ts_us_utc", "{\"t\":\"ts\"}", K_TS_US_UTC, 1 },
	{ "ts_ms_utc", "{\"t\":\"ts\"}", K_TS_MS_UTC, 1 },
	{ "ts_us", "{\"t\":\"ts\"}", K_TS_US, 1 },
	{ "ts_ns", "{\"t\":\"ts\"}", K_TS_NS, 1 },
	{ "ts_ns_utc", "{\"t\":\"ts\"}", K_TS_NS_UTC, 1 },
	{ "dec32", "{\"t\":\"dec\",\"scale\":2}", K_DEC32, 1 },
	{ "dec64", "{\"t\":\"dec\",\"scale\":4}", K_DEC64, 1 },
	{ "decfl", "{\"t\":\"dec\",\"scale\":10}", K_DECFL, 1 },
	{ "decba", "{\"t\":\"dec\",\"scale\":3}", K_DECBA, 1 },
	{ "flba", "{\"t\":\"bin\"}", K_FLBA, 0 },
	{ "int96", "{\"t\":\"ts\"}", K_INT96, 0 },
	{ "req", "{\"t\":\"int\"}", K_REQ_I64, 1 },
	{ "allnull", "{\"t\":\"int\"}", K_ALLNULL, 1 },
	{ "nanonly", "{\"t\":\"float\"}", K_NANONLY, 1 },
};
#define NPCOLS (sizeof(PCOLS) / sizeof(PCOLS[0]))

static pq_schema_node pcol_node(const pcol *c)
{
	pq_schema_node n = leaf_node(c->name, c->kind == K_REQ_I64 ? PQ_REQUIRED : PQ_OPTIONAL, PQ_INT32, 0);
	pq_logical_type *lt = &n.logical_type;
	switch (c->kind) {
	case K_BOOL: n.type = PQ_BOOLEAN; break;
	case K_I8: lt->kind = PQ_LT_INTEGER; lt->int_bit_width = 8; lt->int_is_signed = 1; break;
	case K_I16: n.converted_type = PQ_CT_INT_16; break;   /* legacy annotation only */
	case K_I32: break;
	case K_I64: case K_REQ_I64: case K_ALLNULL: n.type = PQ_INT64; break;
	case K_U8: lt->kind = PQ_LT_INTEGER; lt->int_bit_width = 8; break;
	case K_U16: n.converted_type = PQ_CT_UINT_16; break;
	case K_U32: lt->kind = PQ_LT_INTEGER; lt->int_bit_width = 32; break;
	case K_U64: n.type = PQ_INT64; lt->kind = PQ_LT_INTEGER; lt->int_bit_width = 64; break;
	case K_FLOAT: n.type = PQ_FLOAT; break;
	case K_DOUBLE: case K_NANONLY: n.type = PQ_DOUBLE; break;
	case K_STR: n.type = PQ_BYTE_ARRAY; lt->kind = PQ_LT_STRING; break;
	case K_BIN: n.type = PQ_BYTE_ARRAY; break;
	case K_DATE: lt->kind = PQ_LT_DATE; break;
	case K_TS_MS: n.type = PQ_INT64; lt->kind = PQ_LT_TIMESTAMP; lt->unit = PQ_UNIT_MILLIS; break;
	case K_TS_US_UTC: n.type = PQ_INT64; lt->kind = PQ_LT_TIMESTAMP; lt->unit = PQ_UNIT_MICROS; lt->is_adjusted_to_utc = 1; break;
	case K_TS_MS_UTC: n.type = PQ_INT64; lt->kind = PQ_LT_TIMESTAMP; lt->unit = PQ_UNIT_MILLIS; lt->is_adjusted_to_utc = 1; break;
	case K_TS_US: n.type = PQ_INT64; lt->kind = PQ_LT_TIMESTAMP; lt->unit = PQ_UNIT_MICROS; break;
	case K_TS_NS: n.type = PQ_INT64; lt->kind = PQ_LT_TIMESTAMP; lt->unit = PQ_UNIT_NANOS; break;
	case K_TS_NS_UTC: n.type = PQ_INT64; lt->kind = PQ_LT_TIMESTAMP; lt->unit = PQ_UNIT_NANOS; lt->is_adjusted_to_utc = 1; break;
	case K_DEC32: lt->kind = PQ_LT_DECIMAL; lt->decimal_precision = 9; lt->decimal_scale = 2; break;
	case K_DEC64: n.type = PQ_INT64; n.converted_type = PQ_CT_DECIMAL; n.precision = 18; n.scale = 4; break;
	case K_DECFL: n.type = PQ_FIXED_LEN_BYTE_ARRAY; n.type_length = 16; lt->kind = PQ_LT_DECIMAL; lt->decimal_precision = 38; lt->decimal_scale = 10; break;
	case K_DECBA: n.type = PQ_BYTE_ARRAY; lt->kind = PQ_LT_DECIMAL; lt->decimal_precision = 20; lt->decimal_scale = 3; break;
	case K_FLBA: n.type = PQ_FIXED_LEN_BYTE_ARRAY; n.type_length = 3; break;
	case K_INT96: n.type = PQ_INT96; break;
	}
	return n;
}

/* Generate value `row` of a column into buf; returns 0 for null. */
static int gen_value(int kind, size_t row, uint8_t *p, size_t *len)
{
	int32_t i32;
	int64_t i64;
	uint32_t u32;
	uint64_t u64;
	float f;
	double d;
	uint64_t r = rnd();
	if (kind == K_ALLNULL)
		return 0;
	if (kind != K_REQ_I64 && r % 10 == 0)
		return 0;
	switch (kind) {
	case K_BOOL: p[0] = (uint8_t)(rnd() & 1); *len = 1; return 1;
	case K_I8: i32 = (int32_t)rnd_range(-128, 127); break;
	case K_I16: i32 = (int32_t)rnd_range(-32768, 32767); break;
	case K_I32: i32 = row == 7 ? INT32_MIN : row == 8 ? INT32_MAX : (int32_t)rnd(); break;
	case K_DATE: i32 = (int32_t)rnd_range(-40000, 40000); break;
	case K_DEC32: i32 = (int32_t)rnd_range(-999999999, 999999999); break;
	case K_U8: u32 = (uint32_t)rnd_range(0, 255); memcpy(p, &u32, 4); *len = 4; return 1;
	case K_U16: u32 = (uint32_t)rnd_range(0, 65535); memcpy(p, &u32, 4); *len = 4; return 1;
	case K_U32: u32 = row == 9 ? UINT32_MAX : (uint32_t)rnd(); memcpy(p, &u32, 4); *len = 4; return 1;
	case K_U64: u64 = row == 9 ? UINT64_MAX : rnd(); memcpy(p, &u64, 8); *len = 8; return 1;
	case K_I64: i64 = row == 3 ? INT64_MIN : row == 4 ? INT64_MAX : (int64_t)rnd(); goto put64;
	case K_REQ_I64: i64 = (int64_t)row * 3 - 1000; goto put64;
	case K_DEC64: i64 = rnd_range(-999999999999999999LL, 999999999999999999LL); goto put64;
	case K_TS_MS: case K_TS_MS_UTC: i64 = rnd_range(-3000000000000LL, 3000000000000LL); goto put64;
	case K_TS_US: i64 = rnd_range(-3000000000000000LL, 3000000000000000LL); goto put64;
	case K_TS_US_UTC: i64 = rnd_range(-3000000000000000LL, 3000000000000000LL); goto put64;
	case K_TS_NS: i64 = rnd_range(-3000000000000000000LL, 3000000000000000000LL); goto put64;
	case K_TS_NS_UTC: i64 = rnd_range(-3000000000000000LL, 3000000000000000LL) * 1000; goto put64;
	case K_FLOAT:
		f = r % 7 == 1 ? NAN : r % 11 == 2 ? -0.0f : r % 13 == 3 ? 0.0f
		    : (float)((double)(int64_t)rnd() / 1e15);
		memcpy(p, &f, 4);
		*len = 4;
		return 1;
	case K_DOUBLE:
		d = r % 7 == 1 ? NAN : r % 11 == 2 ? -0.0 : r % 13 == 3 ? 0.0
		    : (double)(int64_t)rnd() / 3e12;
		goto putd;
	case K_NANONLY: d = NAN; goto putd;
	case K_STR: {
		static const char *words[] = { "", "a", "abc", "zeta", "\xc3\xa9t\xc3\xa9", "\xe6\x97\xa5\xe6\x9c\xac",
			"Zulu", "\xf0\x9f\x98\x80", "~tilde", "0", "aa" };
		size_t w = rnd() % 11, n = strlen(words[w]), extra = rnd() % 30, i;
		memcpy(p, words[w], n);
		for (i = 0; i < extra; i++)
			p[n + i] = (uint8_t)('a' + rnd() % 26);
		*len = n + extra;
		return 1;
	}
	case K_BIN: {
		size_t n = rnd() % 20, i;
		for (i = 0; i < n; i++)
			p[i] = (uint8_t)rnd();
		*len = n;
		return 1;
	}
	case K_FLBA: p[0] = (uint8_t)rnd(); p[1] = (uint8_t)rnd(); p[2] = (uint8_t)rnd(); *len = 3; return 1;
	case K_DECFL: case K_DECBA: {
		/* |v| < 10^37 (FLBA 16) or < 10^19 (BYTE_ARRAY, minimal length) */
		__int128 v = (__int128)(((unsigned __int128)rnd() << 64) | rnd());
		__int128 lim = 1;
		int i, n = kind == K_DECFL ? 16 : 16;
		for (i = 0; i < (kind == K_DECFL ? 37 : 19); i++)
			lim *= 10;
		v %= lim;
		if (row == 5)
			v = -1;
		if (row == 6)
			v = 0;
		for (i = 0; i < 16; i++)
			p[15 - i] = (uint8_t)(v >> (8 * i));
		if (kind == K_DECBA) {
			int skip = 0;
			while (skip < 15 && ((p[skip] == 0x00 && !(p[skip + 1] & 0x80)) ||
			                     (p[skip] == 0xFF && (p[skip + 1] & 0x80))))
				skip++;
			memmove(p, p + skip, (size_t)(16 - skip));
			n = 16 - skip;
		}
		*len = (size_t)n;
		return 1;
	}
	case K_INT96: {
		int64_t ns = rnd_range(-2000000000000000LL, 2000000000000000LL) * 1000;
		int64_t day = ns >= 0 ? ns / 86400000000000LL : -((-ns + 86400000000000LL - 1) / 86400000000000LL);
		int64_t nod = ns - day * 86400000000000LL;
		uint32_t jd = (uint32_t)(day + 2440588);
		memcpy(p, &nod, 8);
		memcpy(p + 8, &jd, 4);
		*len = 12;
		return 1;
	}
	default: return 0;
	}
	memcpy(p, &i32, 4);
	*len = 4;
	return 1;
put64:
	memcpy(p, &i64, 8);
	*len = 8;
	return 1;
putd:
	memcpy(p, &d, 8);
	*len = 8;
	return 1;
}

/* ---- writing a file ----------------------------------------------------- */

/* Write `b` in pieces of `piece` rows (several pq_writer_write calls). */
static int write_parquet(const char *name, const pq_schema_node *schema, size_t ns,
                         const pq_batch *b, size_t piece, const pq_writer_opts *o,
                         pq_write_result *res)
{
	loom_store *st = NULL;
	loom_store_writer *sink = NULL;
	pq_writer *w = NULL;
	pq_batch part;
	size_t r;
	int rc;
	if ((rc = loom_store_open(&st, g_dir, NULL)) < 0)
		return rc;
	if ((rc = st->writer_open(st, name, 0, &sink)) < 0)
		goto out;
	if ((rc = pq_writer_open(&w, sink, schema, ns, o)) < 0)
		goto out;
	for (r = 0; r < b->num_rows && rc == 0; r += piece) {
		size_t e = r + piece < b->num_rows ? r + piece : b->num_rows;
		if ((rc = pq_batch_init(&part, b->num_columns)) < 0)
			break;
		rc = pq_batch_append_rows(&part, b, r, e);
		if (rc == 0)
			rc = pq_writer_write(w, &part);
		pq_batch_free(&part);
	}
	if (rc == 0) {
		rc = pq_writer_close(w, res);
		w = NULL;
	}
	if (rc == 0) {
		rc = sink->commit(sink);
		sink = NULL;
	}
out:
	pq_writer_free(w);
	if (sink)
		sink->abort(sink);
	loom_store_free(st);
	return rc;
}

static void write_text(const char *name, const loom_buf *j)
{
	char path[4096];
	FILE *f;
	snprintf(path, sizeof(path), "%s/%s", g_dir, name);
	f = fopen(path, "w");
	if (f) {
		fwrite(j->ptr, 1, j->size, f);
		fclose(f);
	}
}

static void init_column(pq_column *c, const pq_schema_node *n, int16_t max_def, int16_t max_rep)
{
	c->type = n->type;
	c->type_length = n->type_length;
	c->max_def = max_def;
	c->max_rep = max_rep;
}

/* One flat file of the primitive columns; JSON holds rows, stats, result. */
static void primitives_case(const char *name, size_t rows, size_t piece, const pq_writer_opts *o,
                            int min_rgs, uint64_t seed)
{
	pq_schema_node schema[NPCOLS + 1];
	pq_batch b;
	loom_buf j = LOOM_BUF_INIT;
	pq_write_result res;
	size_t i, r;
	uint8_t val[64];
	char fname[256], jname[256];

	schema[0] = root_node((int)NPCOLS);
	for (i = 0; i < NPCOLS; i++)
		schema[i + 1] = pcol_node(&PCOLS[i]);
	REQUIRE(pq_batch_init(&b, NPCOLS) == 0);
	for (i = 0; i < NPCOLS; i++)
		init_column(&b.columns[i], &schema[i + 1], PCOLS[i].kind == K_REQ_I64 ? 0 : 1, 0);
	snprintf(fname, sizeof(fname), "%s.parquet", name);
	snprintf(jname, sizeof(jname), "%s.json", name);
	loom_buf_printf(&j, "{\"file\":\"%s\",\"min_row_groups\":%d,\"page_index\":%s,\"data_page_v2\":%s,",
	                fname, min_rgs, o->write_page_index ? "true" : "false", o->data_page_v2 ? "true" : "false");
	if (o->kv_count)
		loom_buf_puts(&j, "\"kv\":{\"loom.test\":\"value \xe2\x9c\x93\"},");
	loom_buf_printf(&j, "\"created_by\":\"loom version %s (build loom)\",\"columns\":[", loom_version());
	for (i = 0; i < NPCOLS; i++)
		loom_buf_printf(&j, "%s{\"name\":\"%s\",\"spec\":%s}", i ? "," : "", PCOLS[i].name, PCOLS[i].spec);
	loom_buf_puts(&j, "],\"stats\":[");
	for (i = 0, r = 0; i < NPCOLS; i++)
		if (PCOLS[i].stats)
			loom_buf_printf(&j, "%s\"%s\"", r++ ? "," : "", PCOLS[i].name);
	loom_buf_puts(&j, "],\"rows\":[\n");
	rng_state = seed;
	for (r = 0; r < rows; r++) {
		loom_buf_puts(&j, r ? ",\n{" : "{");
		for (i = 0; i < NPCOLS; i++) {
			size_t len = 0;
			int present = gen_value(PCOLS[i].kind, r, val, &len);
			pq_column *c = &b.columns[i];
			loom_buf_printf(&j, "%s\"%s\":", i ? "," : "", PCOLS[i].name);
			if (present) {
				CHECK_OK(pq_column_append(c, c->max_def, 0, val, len));
				canon(&j, PCOLS[i].kind, val, len);
			} else {
				CHECK_OK(pq_column_append(c, 0, 0, NULL, 0));
				loom_buf_puts(&j, "null");
			}
		}
		loom_buf_putc(&j, '}');
	}
	b.num_rows = rows;
	CHECK_OK(write_parquet(fname, schema, NPCOLS + 1, &b, piece, o, &res));
	CHECK_INT(res.num_rows, (long long)rows);
	CHECK_INT(res.num_leaves, NPCOLS);
	if (min_rgs > 1)
		CHECK(res.num_row_groups >= (size_t)min_rgs);
	loom_buf_puts(&j, "],\"result\":{");
	for (i = 0, r = 0; i < res.num_leaves && i < NPCOLS; i++) {
		const pq_leaf_result *lr = &res.leaves[i];
		CHECK_STR(lr->path, PCOLS[i].name);
		if (!PCOLS[i].stats)
			continue;
		loom_buf_printf(&j, "%s\"%s\":{\"nulls\":%lld,\"has\":%s", r++ ? "," : "", lr->path,
		                (long long)lr->null_count, lr->has_min_max ? "true" : "false");
		if (lr->has_min_max) {
			loom_buf_puts(&j, ",\"min\":");
			canon(&j, PCOLS[i].kind, lr->min, lr->min_len);
			loom_buf_puts(&j, ",\"max\":");
			canon(&j, PCOLS[i].kind, lr->max, lr->max_len);
		}
		loom_buf_putc(&j, '}');
	}
	loom_buf_puts(&j, "}}\n");
	write_text(jname, &j);
	pq_write_result_free(&res);
	loom_buf_dispose(&j);
	pq_batch_free(&b);
}

/* ---- nested: list<int>, list<struct>, struct, map<string,int> ------------ */

/* leaves: 0 li.list.element, 1 ls.list.element.a, 2 ls.list.element.b,
 * 3 st.x, 4 st.y, 5 st.inner.z, 6 m.key_value.key, 7 m.key_value.value,
 * 8 ll.list.element.list.element (list<list<int>>) */
static void nested_case(const char *name, size_t rows, const pq_writer_opts *o, int min_rgs)
{
	pq_schema_node s[32];
	size_t ns = 0, r, k;
	pq_batch b;
	loom_buf j = LOOM_BUF_INIT;
	pq_write_result res;
	char fname[256], jname[256];
	pq_column *C;

	s[ns++] = root_node(5);
	s[ns++] = group_node("li", PQ_OPTIONAL, 1, PQ_LT_LIST);
	s[ns++] = group_node("list", PQ_REPEATED, 1, PQ_LT_NONE);
	s[ns++] = leaf_node("element", PQ_OPTIONAL, PQ_INT32, 0);
	s[ns++] = group_node("ls", PQ_OPTIONAL, 1, PQ_LT_LIST);
	s[ns++] = group_node("list", PQ_REPEATED, 1, PQ_LT_NONE);
	s[ns++] = group_node("element", PQ_OPTIONAL, 2, PQ_LT_NONE);
	s[ns++] = leaf_node("a", PQ_OPTIONAL, PQ_INT32, 0);
	s[ns] = leaf_node("b", PQ_OPTIONAL, PQ_BYTE_ARRAY, 0);
	s[ns++].logical_type.kind = PQ_LT_STRING;
	s[ns++] = group_node("st", PQ_OPTIONAL, 3, PQ_LT_NONE);
	s[ns++] = leaf_node("x", PQ_REQUIRED, PQ_INT64, 0);
	s[ns] = leaf_node("y", PQ_OPTIONAL, PQ_BYTE_ARRAY, 0);
	s[ns++].logical_type.kind = PQ_LT_STRING;
	s[ns++] = group_node("inner", PQ_OPTIONAL, 1, PQ_LT_NONE);
	s[ns++] = leaf_node("z", PQ_OPTIONAL, PQ_DOUBLE, 0);
	s[ns++] = group_node("m", PQ_OPTIONAL, 1, PQ_LT_MAP);
	s[ns++] = group_node("key_value", PQ_REPEATED, 2, PQ_LT_NONE);
	s[ns] = leaf_node("key", PQ_REQUIRED, PQ_BYTE_ARRAY, 0);
	s[ns++].logical_type.kind = PQ_LT_STRING;
	s[ns++] = leaf_node("value", PQ_OPTIONAL, PQ_INT32, 0);
	s[ns++] = group_node("ll", PQ_OPTIONAL, 1, PQ_LT_LIST);
	s[ns++] = group_node("list", PQ_REPEATED, 1, PQ_LT_NONE);
	s[ns++] = group_node("element", PQ_OPTIONAL, 1, PQ_LT_LIST);
	s[ns++] = group_node("list", PQ_REPEATED, 1, PQ_LT_NONE);
	s[ns++] = leaf_node("element", PQ_OPTIONAL, PQ_INT32, 0);

	REQUIRE(pq_batch_init(&b, 9) == 0);
	C = b.columns;
	init_column(&C[0], &s[3], 3, 1);
	init_column(&C[1], &s[7], 4, 1);
	init_column(&C[2], &s[8], 4, 1);
	init_column(&C[3], &s[10], 1, 0);
	init_column(&C[4], &s[11], 2, 0);
	init_column(&C[5], &s[13], 3, 0);
	init_column(&C[6], &s[16], 2, 1);
	init_column(&C[7], &s[17], 3, 1);
	init_column(&C[8], &s[22], 5, 2);

	snprintf(fname, sizeof(fname), "%s.parquet", name);
	snprintf(jname, sizeof(jname), "%s.json", name);
	loom_buf_printf(&j, "{\"file\":\"%s\",\"min_row_groups\":%d,\"page_index\":%s,\"data_page_v2\":%s,\"columns\":["
	                "{\"name\":\"li\",\"spec\":{\"t\":\"list\",\"e\":{\"t\":\"int\"}}},"
	                "{\"name\":\"ls\",\"spec\":{\"t\":\"list\",\"e\":{\"t\":\"struct\",\"f\":{\"a\":{\"t\":\"int\"},\"b\":{\"t\":\"str\"}}}}},"
	                "{\"name\":\"st\",\"spec\":{\"t\":\"struct\",\"f\":{\"x\":{\"t\":\"int\"},\"y\":{\"t\":\"str\"},"
	                "\"inner\":{\"t\":\"struct\",\"f\":{\"z\":{\"t\":\"float\"}}}}}},"
	                "{\"name\":\"m\",\"spec\":{\"t\":\"map\",\"k\":{\"t\":\"str\"},\"v\":{\"t\":\"int\"}}},"
	                "{\"name\":\"ll\",\"spec\":{\"t\":\"list\",\"e\":{\"t\":\"list\",\"e\":{\"t\":\"int\"}}}}"
	                "],\"rows\":[\n", fname, min_rgs, o->write_page_index ? "true" : "false",
	                o->data_page_v2 ? "true" : "false");
	rng_state = 42;
	for (r = 0; r < rows; r++) {
		uint64_t shape = rnd() % 10;
		int32_t v32;
		int64_t v64;
		double d;
		char str[32];
		size_t n;
		loom_buf_puts(&j, r ? ",\n{\"li\":" : "{\"li\":");
		/* li: null, empty, or 1..6 elements some null */
		if (shape == 0) {
			CHECK_OK(pq_column_append(&C[0], 0, 0, NULL, 0));
			loom_buf_puts(&j, "null");
		} else if (shape == 1) {
			CHECK_OK(pq_column_append(&C[0], 1, 0, NULL, 0));
			loom_buf_puts(&j, "[]");
		} else {
			n = 1 + rnd() % 6;
			loom_buf_putc(&j, '[');
			for (k = 0; k < n; k++) {
				int16_t rep = k ? 1 : 0;
				if (k)
					loom_buf_putc(&j, ',');
				if (rnd() % 8 == 0) {
					CHECK_OK(pq_column_append(&C[0], 2, rep, NULL, 0));
					loom_buf_puts(&j, "null");
				} else {
					v32 = (int32_t)rnd_range(-1000, 1000);
					CHECK_OK(pq_column_append(&C[0], 3, rep, &v32, 4));
					loom_buf_printf(&j, "\"%d\"", v32);
				}
			}
			loom_buf_putc(&j, ']');
		}
		/* ls: list<struct<a,b>> */
		loom_buf_puts(&j, ",\"ls\":");
		shape = rnd() % 10;
		if (shape <= 1) {
			CHECK_OK(pq_column_append(&C[1], (int16_t)shape, 0, NULL, 0));
			CHECK_OK(pq_column_append(&C[2], (int16_t)shape, 0, NULL, 0));
			loom_buf_puts(&j, shape ? "[]" : "null");
		} else {
			n = 1 + rnd() % 4;
			loom_buf_putc(&j, '[');
			for (k = 0; k < n; k++) {
				int16_t rep = k ? 1 : 0;
				if (k)
					loom_buf_putc(&j, ',');
				if (rnd() % 9 == 0) {
					CHECK_OK(pq_column_append(&C[1], 2, rep, NULL, 0));
					CHECK_OK(pq_column_append(&C[2], 2, rep, NULL, 0));
					loom_buf_puts(&j, "null");
					continue;
				}
				loom_buf_puts(&j, "{\"a\":");
				if (rnd() % 5 == 0) {
					CHECK_OK(pq_column_append(&C[1], 3, rep, NULL, 0));
					loom_buf_puts(&j, "null");
				} else {
					v32 = (int32_t)rnd();
					CHECK_OK(pq_column_append(&C[1], 4, rep, &v32, 4));
					loom_buf_printf(&j, "\"%d\"", v32);
				}
				loom_buf_puts(&j, ",\"b\":");
				if (rnd() % 5 == 0) {
					CHECK_OK(pq_column_append(&C[2], 3, rep, NULL, 0));
					loom_buf_puts(&j, "null");
				} else {
					snprintf(str, sizeof(str), "s%llu", (unsigned long long)(rnd() % 50));
					CHECK_OK(pq_column_append(&C[2], 4, rep, str, strlen(str)));
					loom_buf_printf(&j, "\"%s\"", str);
				}
				loom_buf_putc(&j, '}');
			}
			loom_buf_putc(&j, ']');
		}
		/* st: struct{x required, y optional, inner{z}} */
		loom_buf_puts(&j, ",\"st\":");
		if (rnd() % 8 == 0) {
			CHECK_OK(pq_column_append(&C[3], 0, 0, NULL, 0));
			CHECK_OK(pq_column_append(&C[4], 0, 0, NULL, 0));
			CHECK_OK(pq_column_append(&C[5], 0, 0, NULL, 0));
			loom_buf_puts(&j, "null");
		} else {
			v64 = (int64_t)rnd();
			CHECK_OK(pq_column_append(&C[3], 1, 0, &v64, 8));
			loom_buf_printf(&j, "{\"x\":\"%lld\",\"y\":", (long long)v64);
			if (rnd() % 4 == 0) {
				CHECK_OK(pq_column_append(&C[4], 1, 0, NULL, 0));
				loom_buf_puts(&j, "null");
			} else {
				snprintf(str, sizeof(str), "y%llu", (unsigned long long)(rnd() % 1000));
				CHECK_OK(pq_column_append(&C[4], 2, 0, str, strlen(str)));
				loom_buf_printf(&j, "\"%s\"", str);
			}
			loom_buf_puts(&j, ",\"inner\":");
			shape = rnd() % 6;
			if (shape == 0) {
				CHECK_OK(pq_column_append(&C[5], 1, 0, NULL, 0));
				loom_buf_puts(&j, "null");
			} else if (shape == 1) {
				CHECK_OK(pq_column_append(&C[5], 2, 0, NULL, 0));
				loom_buf_puts(&j, "{\"z\":null}");
			} else {
				d = (double)(int64_t)rnd() / 1e9;
				CHECK_OK(pq_column_append(&C[5], 3, 0, &d, 8));
				loom_buf_puts(&j, "{\"z\":");
				put_float(&j, d);
				loom_buf_putc(&j, '}');
			}
			loom_buf_putc(&j, '}');
		}
		/* m: map<string,int> with distinct keys */
		loom_buf_puts(&j, ",\"m\":");
		shape = rnd() % 10;
		if (shape <= 1) {
			CHECK_OK(pq_column_append(&C[6], (int16_t)shape, 0, NULL, 0));
			CHECK_OK(pq_column_append(&C[7], (int16_t)shape, 0, NULL, 0));
			loom_buf_puts(&j, shape ? "[]" : "null");
		} else {
			n = 1 + rnd() % 5;
			loom_buf_putc(&j, '[');
			for (k = 0; k < n; k++) {
				int16_t rep = k ? 1 : 0;
				snprintf(str, sizeof(str), "k%zu_%llu", k, (unsigned long long)(rnd() % 7));
				CHECK_OK(pq_column_append(&C[6], 2, rep, str, strlen(str)));
				loom_buf_printf(&j, "%s{\"key\":\"%s\",\"value\":", k ? "," : "", str);
				if (rnd() % 6 == 0) {
					CHECK_OK(pq_column_append(&C[7], 2, rep, NULL, 0));
					loom_buf_puts(&j, "null}");
				} else {
					v32 = (int32_t)rnd_range(-5, 500);
					CHECK_OK(pq_column_append(&C[7], 3, rep, &v32, 4));
					loom_buf_printf(&j, "\"%d\"}", v32);
				}
			}
			loom_buf_putc(&j, ']');
		}
		/* ll: list<list<int>>: def 0 null, 1 empty outer, 2 null inner,
		 * 3 empty inner, 4 null element, 5 value; rep 0 row, 1 outer, 2 inner */
		loom_buf_puts(&j, ",\"ll\":");
		shape = rnd() % 10;
		if (shape <= 1) {
			CHECK_OK(pq_column_append(&C[8], (int16_t)shape, 0, NULL, 0));
			loom_buf_puts(&j, shape ? "[]" : "null");
		} else {
			size_t no = 1 + rnd() % 3, oi, ii;
			loom_buf_putc(&j, '[');
			for (oi = 0; oi < no; oi++) {
				int16_t rep = oi ? 1 : 0;
				uint64_t ishape = rnd() % 6;
				if (oi)
					loom_buf_putc(&j, ',');
				if (ishape == 0) {
					CHECK_OK(pq_column_append(&C[8], 2, rep, NULL, 0));
					loom_buf_puts(&j, "null");
					continue;
				}
				if (ishape == 1) {
					CHECK_OK(pq_column_append(&C[8], 3, rep, NULL, 0));
					loom_buf_puts(&j, "[]");
					continue;
				}
				n = 1 + rnd() % 3;
				loom_buf_putc(&j, '[');
				for (ii = 0; ii < n; ii++) {
					int16_t rr = ii ? 2 : rep;
					if (ii)
						loom_buf_putc(&j, ',');
					if (rnd() % 7 == 0) {
						CHECK_OK(pq_column_append(&C[8], 4, rr, NULL, 0));
						loom_buf_puts(&j, "null");
					} else {
						v32 = (int32_t)rnd_range(-9, 9);
						CHECK_OK(pq_column_append(&C[8], 5, rr, &v32, 4));
						loom_buf_printf(&j, "\"%d\"", v32);
					}
				}
				loom_buf_putc(&j, ']');
			}
			loom_buf_putc(&j, ']');
		}
		loom_buf_putc(&j, '}');
	}
	b.num_rows = rows;
	loom_buf_puts(&j, "]}\n");
	CHECK_OK(write_parquet(fname, s, ns, &b, 777, o, &res));
	CHECK_INT(res.num_rows, (long long)rows);
	if (res.num_leaves == 9) {
		CHECK_STR(res.leaves[0].path, "li.list.element");
		CHECK_STR(res.leaves[2].path, "ls.list.element.b");
		CHECK_STR(res.leaves[6].path, "m.key_value.key");
		CHECK_STR(res.leaves[8].path, "ll.list.element.list.element");
		CHECK_INT(res.leaves[8].max_def, 5);
		CHECK_INT(res.leaves[8].max_rep, 2);
	} else {
		CHECK_INT(res.num_leaves, 9);
	}
	write_text(jname, &j);
	pq_write_result_free(&res);
	loom_buf_dispose(&j);
	pq_batch_free(&b);
}

/* ---- dictionary and its fallback ----------------------------------------- */

static void dict_case(const char *name, size_t rows, const pq_writer_opts *o, int expect_fallback)
{
	pq_schema_node s[6];
	pq_batch b;
	loom_buf j = LOOM_BUF_INIT;
	pq_write_result res;
	char fname[256], jname[256], str[64];
	size_t r;

	s[0] = root_node(4);
	s[1] = leaf_node("lc", PQ_OPTIONAL, PQ_BYTE_ARRAY, 0);
	s[1].logical_type.kind = PQ_LT_STRING;
	s[2] = leaf_node("hc", PQ_OPTIONAL, PQ_BYTE_ARRAY, 0);
	s[2].logical_type.kind = PQ_LT_STRING;
	s[3] = leaf_node("lci", PQ_REQUIRED, PQ_INT32, 0);
	s[4] = leaf_node("hi", PQ_OPTIONAL, PQ_INT64, 0);
	REQUIRE(pq_batch_init(&b, 4) == 0);
	init_column(&b.columns[0], &s[1], 1, 0);
	init_column(&b.columns[1], &s[2], 1, 0);
	init_column(&b.columns[2], &s[3], 0, 0);
	init_column(&b.columns[3], &s[4], 1, 0);
	snprintf(fname, sizeof(fname), "%s.parquet", name);
	snprintf(jname, sizeof(jname), "%s.json", name);
	loom_buf_printf(&j, "{\"file\":\"%s\",\"min_row_groups\":2,\"columns\":["
	                "{\"name\":\"lc\",\"spec\":{\"t\":\"str\"}},{\"name\":\"hc\",\"spec\":{\"t\":\"str\"}},"
	                "{\"name\":\"lci\",\"spec\":{\"t\":\"int\"}},{\"name\":\"hi\",\"spec\":{\"t\":\"int\"}}],"
	                "\"stats\":[\"lc\",\"hc\",\"lci\",\"hi\"],", fname);
	if (expect_fallback)
		loom_buf_puts(&j, "\"encodings\":{\"lc\":[\"RLE_DICTIONARY\"],\"lci\":[\"RLE_DICTIONARY\"],"
		                  "\"hc\":[\"RLE_DICTIONARY\",\"PLAIN\"],\"hi\":[\"RLE_DICTIONARY\",\"PLAIN\"]},");
	else
		loom_buf_puts(&j, "\"encodings\":{\"lc\":[\"PLAIN\"],\"hi\":[\"PLAIN\"]},");
	loom_buf_puts(&j, "\"rows\":[\n");
	rng_state = 7;
	for (r = 0; r < rows; r++) {
		int32_t lci = (int32_t)(rnd() % 5) - 2;
		int64_t hi = (int64_t)(rnd() >> 1) * (r % 2 ? 1 : -1);
		loom_buf_puts(&j, r ? ",\n{\"lc\":" : "{\"lc\":");
		if (r % 17 == 0) {
			CHECK_OK(pq_column_append(&b.columns[0], 0, 0, NULL, 0));
			loom_buf_puts(&j, "null");
		} else {
			snprintf(str, sizeof(str), "category-%d", (int)(rnd() % 12));
			CHECK_OK(pq_column_append(&b.columns[0], 1, 0, str, strlen(str)));
			loom_buf_printf(&j, "\"%s\"", str);
		}
		loom_buf_puts(&j, ",\"hc\":");
		if (r % 23 == 0) {
			CHECK_OK(pq_column_append(&b.columns[1], 0, 0, NULL, 0));
			loom_buf_puts(&j, "null");
		} else {
			snprintf(str, sizeof(str), "unique-%016llx-%zu", (unsigned long long)rnd(), r);
			CHECK_OK(pq_column_append(&b.columns[1], 1, 0, str, strlen(str)));
			loom_buf_printf(&j, "\"%s\"", str);
		}
		CHECK_OK(pq_column_append(&b.columns[2], 0, 0, &lci, 4));
		loom_buf_printf(&j, ",\"lci\":\"%d\",\"hi\":", lci);
		if (r % 29 == 0) {
			CHECK_OK(pq_column_append(&b.columns[3], 0, 0, NULL, 0));
			loom_buf_puts(&j, "null}");
		} else {
			CHECK_OK(pq_column_append(&b.columns[3], 1, 0, &hi, 8));
			loom_buf_printf(&j, "\"%lld\"}", (long long)hi);
		}
	}
	b.num_rows = rows;
	loom_buf_puts(&j, "]}\n");
	CHECK_OK(write_parquet(fname, s, 5, &b, 4096, o, &res));
	CHECK(res.num_row_groups >= 2);
	write_text(jname, &j);
	pq_write_result_free(&res);
	loom_buf_dispose(&j);
	pq_batch_free(&b);
}


/* ---- values larger than a page, required lists, a bare repeated field ---- */

static void misc_case(const char *name, size_t rows, const pq_writer_opts *o)
{
	pq_schema_node s[8];
	size_t ns = 0, r, k, n;
	pq_batch b;
	loom_buf j = LOOM_BUF_INIT;
	pq_write_result res;
	char fname[256], jname[256];
	static char big[200000];

	s[ns++] = root_node(3);
	s[ns] = leaf_node("big", PQ_OPTIONAL, PQ_BYTE_ARRAY, 0);
	s[ns++].logical_type.kind = PQ_LT_STRING;
	s[ns++] = group_node("rl", PQ_REQUIRED, 1, PQ_LT_LIST);
	s[ns++] = group_node("list", PQ_REPEATED, 1, PQ_LT_NONE);
	s[ns++] = leaf_node("element", PQ_REQUIRED, PQ_INT64, 0);
	s[ns++] = leaf_node("rp", PQ_REPEATED, PQ_INT32, 0);
	REQUIRE(pq_batch_init(&b, 3) == 0);
	init_column(&b.columns[0], &s[1], 1, 0);
	init_column(&b.columns[1], &s[4], 1, 1);
	init_column(&b.columns[2], &s[5], 1, 1);
	snprintf(fname, sizeof(fname), "%s.parquet", name);
	snprintf(jname, sizeof(jname), "%s.json", name);
	loom_buf_printf(&j, "{\"file\":\"%s\",\"min_row_groups\":1,\"page_index\":%s,\"stats\":[\"big\"],\"skip_polars_columns\":[\"rp\"],\"columns\":["
	                "{\"name\":\"big\",\"spec\":{\"t\":\"str\"}},"
	                "{\"name\":\"rl\",\"spec\":{\"t\":\"list\",\"e\":{\"t\":\"int\"}}},"
	                "{\"name\":\"rp\",\"spec\":{\"t\":\"list\",\"e\":{\"t\":\"int\"}}}],\"rows\":[\n",
	                fname, o->write_page_index ? "true" : "false");
	rng_state = 99;
	for (r = 0; r < rows; r++) {
		loom_buf_puts(&j, r ? ",\n{\"big\":" : "{\"big\":");
		if (r % 9 == 4) {
			CHECK_OK(pq_column_append(&b.columns[0], 0, 0, NULL, 0));
			loom_buf_puts(&j, "null");
		} else {
			n = (size_t)(rnd() % sizeof(big));
			for (k = 0; k < n; k++)
				big[k] = (char)('a' + rnd() % 26);
			CHECK_OK(pq_column_append(&b.columns[0], 1, 0, big, n));
			loom_buf_put_json_string(&j, big, n);
		}
		loom_buf_puts(&j, ",\"rl\":[");
		n = rnd() % 4;
		if (n == 0)
			CHECK_OK(pq_column_append(&b.columns[1], 0, 0, NULL, 0));
		for (k = 0; k < n; k++) {
			int64_t v = (int64_t)rnd();
			CHECK_OK(pq_column_append(&b.columns[1], 1, k ? 1 : 0, &v, 8));
			loom_buf_printf(&j, "%s\"%lld\"", k ? "," : "", (long long)v);
		}
		loom_buf_puts(&j, "],\"rp\":[");
		n = rnd() % 3;
		if (n == 0)
			CHECK_OK(pq_column_append(&b.columns[2], 0, 0, NULL, 0));
		for (k = 0; k < n; k++) {
			int32_t v = (int32_t)rnd();
			CHECK_OK(pq_column_append(&b.columns[2], 1, k ? 1 : 0, &v, 4));
			loom_buf_printf(&j, "%s\"%d\"", k ? "," : "", v);
		}
		loom_buf_puts(&j, "]}");
	}
	b.num_rows = rows;
	loom_buf_puts(&j, "]}\n");
	CHECK_OK(write_parquet(fname, s, ns, &b, 7, o, &res));
	CHECK_INT(res.num_rows, (long long)rows);
	write_text(jname, &j);
	pq_write_result_free(&res);
	loom_buf_dispose(&j);
	pq_batch_free(&b);
}

TEST(write_big_values_required_lists)
{
	pq_writer_opts o;
	pq_writer_opts_default(&o);
	o.page_bytes = 16 << 10;
	o.dict_limit_bytes = 64 << 10;
	o.write_page_index = 1;
	misc_case("misc_big", 60, &o);
}

/* ---- the cases ------------------------------------------------------------ */

TEST(write_primitives_small_pages_many_row_groups)
{
	pq_writer_opts o;
	pq_writer_opts_default(&o);
	o.page_bytes = 4096;
	o.row_group_bytes = 256 << 10;
	primitives_case("prim_pages", 12000, 2500, &o, 2, 1);
}

TEST(write_primitives_every_codec)
{
	static const struct { const char *name; int codec; } codecs[] = {
		{ "codec_none", PQ_CODEC_UNCOMPRESSED }, { "codec_snappy", PQ_CODEC_SNAPPY },
		{ "codec_gzip", PQ_CODEC_GZIP }, { "codec_zstd", PQ_CODEC_ZSTD },
		{ "codec_lz4raw", PQ_CODEC_LZ4_RAW }, { "codec_brotli", PQ_CODEC_BROTLI },
	};
	size_t i;
	for (i = 0; i < sizeof(codecs) / sizeof(codecs[0]); i++) {
		pq_writer_opts o;
		pq_writer_opts_default(&o);
		o.codec = codecs[i].codec;
		primitives_case(codecs[i].name, 1500, 1500, &o, 1, 100 + i);
	}
}

TEST(write_primitives_plain_page_index)
{
	pq_writer_opts o;
	static const char *keys[] = { "loom.test", "empty" };
	static const char *vals[] = { "value \xe2\x9c\x93", NULL };
	pq_writer_opts_default(&o);
	o.disable_dictionary = 1;
	o.write_page_index = 1;
	o.page_bytes = 2048;
	o.codec = PQ_CODEC_ZSTD;
	o.kv_keys = keys;
	o.kv_values = vals;
	o.kv_count = 2;
	primitives_case("prim_plain_pageindex", 5000, 999, &o, 1, 5);
}

TEST(write_nested)
{
	pq_writer_opts o;
	pq_writer_opts_default(&o);
	nested_case("nested", 3000, &o, 1);
	o.page_bytes = 1024;
	o.row_group_bytes = 48 << 10;
	o.write_page_index = 1;
	nested_case("nested_pages", 6000, &o, 2);
}

TEST(write_dictionary_fallback)
{
	pq_writer_opts o;
	pq_writer_opts_default(&o);
	o.dict_limit_bytes = 16 << 10;
	o.page_bytes = 8 << 10;
	o.row_group_bytes = 512 << 10;
	dict_case("dict_fallback", 30000, &o, 1);
	pq_writer_opts_default(&o);
	o.disable_dictionary = 1;
	o.row_group_bytes = 256 << 10;
	dict_case("dict_disabled", 20000, &o, 0);
}

TEST(write_on_a_pool_is_byte_identical)
{
	pq_writer_opts o;
	loom_threadpool *pool = NULL;
	REQUIRE(loom_threadpool_new(&pool, 3) == 0);
	pq_writer_opts_default(&o);
	o.page_bytes = 4096;
	o.row_group_bytes = 128 << 10;
	o.write_page_index = 1;
	o.codec = PQ_CODEC_ZSTD;
	primitives_case("pool_off", 6000, 1700, &o, 2, 77);
	o.pool = pool;
	primitives_case("pool_on", 6000, 1700, &o, 2, 77);
	CHECK_INT(test_sh("cmp -s '%s/pool_off.parquet' '%s/pool_on.parquet'", g_dir, g_dir), 0);
	loom_threadpool_free(pool);
}

TEST(write_data_page_v2)
{
	pq_writer_opts o;
	pq_writer_opts_default(&o);
	o.data_page_v2 = 1;
	o.write_page_index = 1;
	o.page_bytes = 4096;
	o.row_group_bytes = 200 << 10;
	primitives_case("v2_prim", 6000, 2000, &o, 2, 31);
	o.codec = PQ_CODEC_UNCOMPRESSED;
	o.page_bytes = 1024;
	o.row_group_bytes = 48 << 10;
	nested_case("v2_nested", 3000, &o, 2);
}

TEST(write_empty_file)
{
	pq_writer_opts o;
	pq_writer_opts_default(&o);
	primitives_case("empty", 0, 1, &o, 0, 9);
}

TEST(verify_with_duckdb_polars_parquet_wasm)
{
	char cmd[8192];
	int rc;
	snprintf(cmd, sizeof(cmd),
	         "np=$(bash '%s/tests/tools/pqwrite_deps.sh' '%s') && NODE_PATH=\"$np\" node '%s/tests/tools/pqwrite_verify.cjs' '%s'",
	         LOOM_SOURCE_DIR, LOOM_BINARY_DIR, LOOM_SOURCE_DIR, g_dir);
	rc = test_sh("%s", cmd);
	CHECK_INT(rc, 0);
}

int main(void)
{
	g_dir = test_mkdtemp("pqwrite");
	RUN(write_primitives_small_pages_many_row_groups);
	RUN(write_primitives_every_codec);
	RUN(write_primitives_plain_page_index);
	RUN(write_nested);
	RUN(write_dictionary_fallback);
	RUN(write_on_a_pool_is_byte_identical);
	RUN(write_data_page_v2);
	RUN(write_empty_file);
	RUN(write_big_values_required_lists);
	RUN(verify_with_duckdb_polars_parquet_wasm);
	if (test_failures == 0 && !getenv("LOOM_KEEP_TMP"))
		test_rmtree(g_dir);
	else
		fprintf(stderr, "files kept in %s\n", g_dir);
	free(g_dir);
	return test_summary();
}
