/* parquet/render_value.c - one value to JSON text, by logical type. */
#include "parquet/render.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "parquet/batch.h"
#include "util/error.h"

void pq_value_fmt_of(const pq_leaf *l, pq_value_fmt *f)
{
	const pq_logical_type *lt = &l->logical_type;
	pq_converted_type ct = l->converted_type;

	memset(f, 0, sizeof(*f));
	f->type = l->type;
	f->width = pq_value_width(l->type, l->type_length);
	f->scale = l->scale;
	switch (l->type) {
	case PQ_BOOLEAN: f->kind = PQ_RK_BOOL; return;
	case PQ_FLOAT: f->kind = PQ_RK_FLOAT; return;
	case PQ_DOUBLE: f->kind = PQ_RK_DOUBLE; return;
	case PQ_INT96: f->kind = PQ_RK_INT96; return;
	default: break;
	}
	if (lt->kind == PQ_LT_DECIMAL || (lt->kind == PQ_LT_NONE && ct == PQ_CT_DECIMAL)) {
		f->kind = PQ_RK_DECIMAL;
		return;
	}
	if (l->type == PQ_INT32 || l->type == PQ_INT64) {
		f->kind = PQ_RK_INT;
		if (lt->kind == PQ_LT_DATE || ct == PQ_CT_DATE)
			f->kind = PQ_RK_DATE;
		else if (lt->kind == PQ_LT_TIME) {
			f->kind = PQ_RK_TIME;
			f->unit = lt->unit;
		} else if (lt->kind == PQ_LT_TIMESTAMP) {
			f->kind = PQ_RK_TIMESTAMP;
			f->unit = lt->unit;
		} else if (lt->kind == PQ_LT_INTEGER) {
			f->kind = lt->int_is_signed ? PQ_RK_INT : PQ_RK_UINT;
		} else if (lt->kind == PQ_LT_NONE) {
			switch (ct) {
			case PQ_CT_TIME_MILLIS: f->kind = PQ_RK_TIME; f->unit = PQ_UNIT_MILLIS; break;
			case PQ_CT_TIME_MICROS: f->kind = PQ_RK_TIME; f->unit = PQ_UNIT_MICROS; break;
			case PQ_CT_TIMESTAMP_MILLIS: f->kind = PQ_RK_TIMESTAMP; f->unit = PQ_UNIT_MILLIS; break;
			case PQ_CT_TIMESTAMP_MICROS: f->kind = PQ_RK_TIMESTAMP; f->unit = PQ_UNIT_MICROS; break;
			case PQ_CT_UINT_8: case PQ_CT_UINT_16: case PQ_CT_UINT_32: case PQ_CT_UINT_64:
				f->kind = PQ_RK_UINT;
				break;
			default: break;
			}
		}
		return;
	}
	/* BYTE_ARRAY, FIXED_LEN_BYTE_ARRAY */
	f->kind = PQ_RK_BINARY;
	if (lt->kind == PQ_LT_STRING || lt->kind == PQ_LT_ENUM || lt->kind == PQ_LT_JSON ||
	    (lt->kind == PQ_LT_NONE && (ct == PQ_CT_UTF8 || ct == PQ_CT_ENUM || ct == PQ_CT_JSON)))
		f->kind = PQ_RK_STRING;
	else if (lt->kind == PQ_LT_UUID && f->width == 16)
		f->kind = PQ_RK_UUID;
	else if (lt->kind == PQ_LT_FLOAT16 && f->width == 2)
		f->kind = PQ_RK_FLOAT16;
	else if (ct == PQ_CT_INTERVAL && f->width == 12)
		f->kind = PQ_RK_INTERVAL;
}

/* Days since 1970-01-01 to a civil date (proleptic Gregorian). */
static void civil(int64_t z, int64_t *y, unsigned *m, unsigned *d)
{
	int64_t era, yoe, doy, mp;
	z += 719468;
	era = (z >= 0 ? z : z - 146096) / 146097;
	yoe = z - era * 146097;
	yoe = (yoe - yoe / 1460 + yoe / 36524 - yoe / 146096) / 365;
	doy = (z - era * 146097) - (365 * yoe + yoe / 4 - yoe / 100);
	mp = (5 * doy + 2) / 153;
	*d = (unsigned)(doy - (153 * mp + 2) / 5 + 1);
	*m = (unsigned)(mp < 10 ? mp + 3 : mp - 9);
	*y = yoe + era * 400 + (*m <= 2);
}

static int put_date(loom_buf *b, int64_t days)
{
	int64_t y;
	unsigned m, d;
	civil(days, &y, &m, &d);
	/* Years before 1 (astronomical numbering: 0 is 1 BC) keep four digits
	 * after the sign, as ISO 8601's expanded years do: "-0164-07-05". */
	if (y < 0)
		return loom_buf_printf(b, "-%04lld-%02u-%02u", -(long long)y, m, d);
	return loom_buf_printf(b, "%04lld-%02u-%02u", (long long)y, m, d);
}

static int64_t floordiv(int64_t a, int64_t b, int64_t *rem)
{
	int64_t q = a / b, r = a % b;
	if (r < 0) {
		r += b;
		q--;
	}
	*rem = r;
	return q;
}

static const int64_t unit_per_sec[] = { 1000, 1000000, 1000000000 };
static const int unit_digits[] = { 3, 6, 9 };

/* Time of day `t` in `unit` (0 <= t < one day, not enforced for TIME). */
static int put_tod(loom_buf *b, int64_t t, pq_time_unit unit)
{
	int64_t frac, secs = floordiv(t, unit_per_sec[unit], &frac);
	return loom_buf_printf(b, "%02lld:%02lld:%02lld.%0*lld", (long long)(secs / 3600),
	                       (long long)(secs / 60 % 60), (long long)(secs % 60), unit_digits[unit],
	                       (long long)frac);
}

static int put_timestamp(loom_buf *b, int64_t v, pq_time_unit unit)
{
	int64_t tod, days = floordiv(v, unit_per_sec[unit] * 86400, &tod);
	LOOM_TRY(loom_buf_putc(b, '"'));
	LOOM_TRY(put_date(b, days));
	LOOM_TRY(loom_buf_putc(b, ' '));
	LOOM_TRY(put_tod(b, tod, unit));
	return loom_buf_putc(b, '"');
}

/* Microseconds plus 0..999 nanoseconds, 9 fraction digits. */
static int put_timestamp_us_ns(loom_buf *b, int64_t us, int64_t sub)
{
	int64_t tod, days = floordiv(us, 86400000000LL, &tod);
	LOOM_TRY(loom_buf_putc(b, '"'));
	LOOM_TRY(put_date(b, days));
	LOOM_TRY(loom_buf_printf(b, " %02lld:%02lld:%02lld.%06lld%03lld\"", (long long)(tod / 3600000000LL),
	                         (long long)(tod / 60000000 % 60), (long long)(tod / 1000000 % 60),
	                         (long long)(tod % 1000000), (long long)sub));
	return 0;
}

static int put_double(loom_buf *b, double d, int digits)
{
	if (isnan(d))
		return loom_buf_puts(b, "\"NaN\"");
	if (isinf(d))
		return loom_buf_puts(b, d > 0 ? "\"Infinity\"" : "\"-Infinity\"");
	return loom_buf_printf(b, "%.*g", digits, d);
}

static double half_to_double(uint16_t h)
{
	int e = (h >> 10) & 0x1f, m = h & 0x3ff;
	double v;
	if (e == 0)
		v = ldexp(m, -24);
	else if (e == 31)
		v = m ? NAN : INFINITY;
	else
		v = ldexp(m + 1024, e - 25);
	return (h & 0x8000) ? -v : v;
}

/* Big-endian two's-complement integer of `n` bytes as a decimal string
 * with `scale` fraction digits. */
static int put_decimal_be(loom_buf *b, const uint8_t *p, size_t n, int32_t scale)
{
	uint8_t mag[256];
	char digits[1024];   /* 617 digits of a 256-byte integer + a scale <= 300 */
	size_t nd = 0, i, start = 0;
	int neg = n > 0 && (p[0] & 0x80);

	if (n > sizeof(mag))
		return loom_err(LOOM_EUNSUPPORTED, LOOM_ERRCLASS_PARQUET, "decimal of %zu bytes", n);
	if (scale > 300)
		return loom_err(LOOM_EUNSUPPORTED, LOOM_ERRCLASS_PARQUET, "decimal scale %d", (int)scale);
	memcpy(mag, p, n);
	if (neg) {   /* two's complement negate */
		int carry = 1;
		for (i = n; i-- > 0;) {
			int v = (uint8_t)~mag[i] + carry;
			mag[i] = (uint8_t)v;
			carry = v >> 8;
		}
	}
	while (start < n && mag[start] == 0)
		start++;
	while (start < n) {   /* divide by 10 */
		unsigned rem = 0;
		for (i = start; i < n; i++) {
			unsigned cur = (rem << 8) | mag[i];
			mag[i] = (uint8_t)(cur / 10);
			rem = cur % 10;
		}
		digits[nd++] = (char)('0' + rem);
		while (start < n && mag[start] == 0)
			start++;
	}
	if (scale < 0)
		scale = 0;
	while (nd <= (size_t)scale)
		digits[nd++] = '0';
	LOOM_TRY(loom_buf_putc(b, '"'));
	if (neg)
		LOOM_TRY(loom_buf_putc(b, '-'));
	for (i = nd; i-- > 0;) {
		LOOM_TRY(loom_buf_putc(b, digits[i]));
		if (i == (size_t)scale && i > 0)
			LOOM_TRY(loom_buf_putc(b, '.'));
	}
	return loom_buf_putc(b, '"');
}

static int put_hex(loom_buf *b, const uint8_t *v, size_t len)
{
	static const char hex[] = "0123456789abcdef";
	size_t i;
	LOOM_TRY(loom_buf_grow(b, 2 * len + 2));
	LOOM_TRY(loom_buf_putc(b, '"'));
	for (i = 0; i < len; i++) {
		char two[2] = { hex[v[i] >> 4], hex[v[i] & 15] };
		LOOM_TRY(loom_buf_put(b, two, 2));
	}
	return loom_buf_putc(b, '"');
}

int pq_render_value(loom_buf *b, const pq_value_fmt *f, const uint8_t *v, size_t len)
{
	int32_t i32;
	int64_t i64 = 0;
	uint32_t u32;
	float fl;
	double db;
	int is64 = f->type == PQ_INT64;

	if (f->type == PQ_INT32 || f->type == PQ_INT64) {
		if (len < (is64 ? 8u : 4u))
			return loom_err(LOOM_ECORRUPT, LOOM_ERRCLASS_PARQUET, "integer value of %zu bytes", len);
		if (is64)
			memcpy(&i64, v, 8);
		else {
			memcpy(&i32, v, 4);
			i64 = i32;
		}
	}
	switch (f->kind) {
	case PQ_RK_BOOL:
		return loom_buf_puts(b, len && v[0] ? "true" : "false");
	case PQ_RK_INT:
		return loom_buf_printf(b, "%lld", (long long)i64);
	case PQ_RK_UINT:
		if (is64)
			return loom_buf_printf(b, "%llu", (unsigned long long)(uint64_t)i64);
		memcpy(&u32, v, 4);
		return loom_buf_printf(b, "%u", u32);
	case PQ_RK_FLOAT:
		if (len < 4)
			break;
		memcpy(&fl, v, 4);
		return put_double(b, fl, 9);
	case PQ_RK_DOUBLE:
		if (len < 8)
			break;
		memcpy(&db, v, 8);
		return put_double(b, db, 17);
	case PQ_RK_FLOAT16:
		return put_double(b, half_to_double((uint16_t)(v[0] | v[1] << 8)), 9);
	case PQ_RK_STRING:
		return loom_buf_put_json_string(b, (const char *)v, len);
	case PQ_RK_BINARY:
		return put_hex(b, v, len);
	case PQ_RK_DECIMAL:
		if (f->type == PQ_INT32 || f->type == PQ_INT64) {
			uint8_t be[8];
			int k;
			for (k = 0; k < 8; k++)
				be[k] = (uint8_t)((uint64_t)i64 >> (56 - 8 * k));
			return put_decimal_be(b, be, 8, f->scale);
		}
		return put_decimal_be(b, v, len, f->scale);
	case PQ_RK_DATE:
		LOOM_TRY(loom_buf_putc(b, '"'));
		LOOM_TRY(put_date(b, i64));
		return loom_buf_putc(b, '"');
	case PQ_RK_TIME:
		LOOM_TRY(loom_buf_putc(b, '"'));
		LOOM_TRY(put_tod(b, i64, f->unit));
		return loom_buf_putc(b, '"');
	case PQ_RK_TIMESTAMP:
		return put_timestamp(b, i64, f->unit);
	case PQ_RK_INT96: {
		int32_t jd;
		int64_t nanos, sub, us;
		if (len < 12)
			break;
		memcpy(&nanos, v, 8);
		memcpy(&jd, v + 8, 4);
		/* Julian day 2440588 is 1970-01-01. As Spark reads it: a signed
		 * day, microseconds with 64-bit wrapping (Spark's writer wraps
		 * the same way for years past 2262, and this undoes it), then
		 * the sub-microsecond nanoseconds. */
		us = (int64_t)((uint64_t)((int64_t)jd - 2440588) * 86400000000ull +
		               (uint64_t)floordiv(nanos, 1000, &sub));
		LOOM_TRY(put_timestamp_us_ns(b, us, sub));
		return 0;
	}
	case PQ_RK_UUID:
		return loom_buf_printf(b, "\"%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x\"",
		                       v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8], v[9], v[10], v[11],
		                       v[12], v[13], v[14], v[15]);
	case PQ_RK_INTERVAL: {
		uint32_t mo, d, ms;
		memcpy(&mo, v, 4);
		memcpy(&d, v + 4, 4);
		memcpy(&ms, v + 8, 4);
		return loom_buf_printf(b, "{\"months\":%u,\"days\":%u,\"millis\":%u}", mo, d, ms);
	}
	}
	return loom_err(LOOM_ECORRUPT, LOOM_ERRCLASS_PARQUET, "value of %zu bytes for its type", len);
}
