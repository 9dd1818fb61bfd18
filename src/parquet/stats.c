/* parquet/stats.c - value ordering and min/max accumulation. */
#include "parquet/stats.h"

#include <math.h>
#include <string.h>

#include "util/error.h"

pq_cmp_kind pq_cmp_kind_of(const pq_schema_node *leaf)
{
	const pq_logical_type *lt = &leaf->logical_type;
	pq_converted_type ct = leaf->converted_type;
	int is_unsigned = (lt->kind == PQ_LT_INTEGER && !lt->int_is_signed) ||
	                  ct == PQ_CT_UINT_8 || ct == PQ_CT_UINT_16 ||
	                  ct == PQ_CT_UINT_32 || ct == PQ_CT_UINT_64;
	int is_decimal = lt->kind == PQ_LT_DECIMAL || ct == PQ_CT_DECIMAL;

	switch (leaf->type) {
	case PQ_BOOLEAN: return PQ_CMP_BOOL;
	case PQ_INT32: return is_unsigned ? PQ_CMP_U32 : PQ_CMP_I32;
	case PQ_INT64: return is_unsigned ? PQ_CMP_U64 : PQ_CMP_I64;
	case PQ_INT96: return PQ_CMP_NONE;
	case PQ_FLOAT: return PQ_CMP_FLOAT;
	case PQ_DOUBLE: return PQ_CMP_DOUBLE;
	case PQ_BYTE_ARRAY:
	case PQ_FIXED_LEN_BYTE_ARRAY:
		if (is_decimal)
			return PQ_CMP_DECIMAL_BYTES;
		if (ct == PQ_CT_INTERVAL || lt->kind == PQ_LT_FLOAT16 ||
		    lt->kind == PQ_LT_VARIANT || lt->kind == PQ_LT_GEOMETRY ||
		    lt->kind == PQ_LT_GEOGRAPHY)
			return PQ_CMP_NONE;
		return PQ_CMP_BYTES;
	default: return PQ_CMP_NONE;
	}
}

int pq_cmp_legacy_ok(pq_cmp_kind k)
{
	return k == PQ_CMP_BOOL || k == PQ_CMP_I32 || k == PQ_CMP_I64 ||
	       k == PQ_CMP_FLOAT || k == PQ_CMP_DOUBLE;
}

static int cmp_unsigned_bytes(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen)
{
	size_t n = alen < blen ? alen : blen;
	int c = n ? memcmp(a, b, n) : 0;
	if (c)
		return c;
	return alen < blen ? -1 : alen > blen;
}

/* Big-endian two's complement of any lengths: sign first, then the
 * sign-extended magnitudes compare as unsigned bytes. */
static int cmp_decimal_bytes(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen)
{
	int na = alen && (a[0] & 0x80), nb = blen && (b[0] & 0x80);
	size_t n = alen > blen ? alen : blen, i;
	if (na != nb)
		return na ? -1 : 1;
	for (i = 0; i < n; i++) {
		uint8_t x = i + alen >= n ? a[i + alen - n] : (na ? 0xFF : 0);
		uint8_t y = i + blen >= n ? b[i + blen - n] : (nb ? 0xFF : 0);
		if (x != y)
			return x < y ? -1 : 1;
	}
	return 0;
}

#define CMP3(x, y) ((x) < (y) ? -1 : (x) > (y))
/* Return the order of a and b read (unaligned) as two values of type T. */
#define CMP_AS(T, a, b)                   \
	do {                                  \
		T x_, y_;                         \
		memcpy(&x_, (a), sizeof(T));      \
		memcpy(&y_, (b), sizeof(T));      \
		return CMP3(x_, y_);              \
	} while (0)

void pq_value_range_widen(pq_value_range *r, pq_cmp_kind k, const pq_value_range *add)
{
	int empty = !r->min;
	if (empty || pq_value_cmp(k, add->min, add->min_len, r->min, r->min_len) < 0) {
		r->min = add->min;
		r->min_len = add->min_len;
	}
	if (empty || pq_value_cmp(k, add->max, add->max_len, r->max, r->max_len) > 0) {
		r->max = add->max;
		r->max_len = add->max_len;
	}
}

int pq_value_cmp(pq_cmp_kind k, const void *a, size_t alen, const void *b, size_t blen)
{
	switch (k) {
	case PQ_CMP_BOOL: {
		int x = *(const uint8_t *)a != 0, y = *(const uint8_t *)b != 0;
		return CMP3(x, y);
	}
	case PQ_CMP_I32: CMP_AS(int32_t, a, b);
	case PQ_CMP_U32: CMP_AS(uint32_t, a, b);
	case PQ_CMP_I64: CMP_AS(int64_t, a, b);
	case PQ_CMP_U64: CMP_AS(uint64_t, a, b);
	case PQ_CMP_FLOAT:
	case PQ_CMP_DOUBLE: {
		double x, y;
		if (k == PQ_CMP_FLOAT) {
			float fx, fy;
			memcpy(&fx, a, 4);
			memcpy(&fy, b, 4);
			x = fx;
			y = fy;
		} else {
			memcpy(&x, a, 8);
			memcpy(&y, b, 8);
		}
		if (isnan(x) || isnan(y))
			return isnan(x) - isnan(y);
		return CMP3(x, y);
	}
	case PQ_CMP_DECIMAL_BYTES:
		return cmp_decimal_bytes(a, alen, b, blen);
	case PQ_CMP_BYTES:
	case PQ_CMP_NONE:
	default:
		return cmp_unsigned_bytes(a, alen, b, blen);
	}
}

void pq_stats_init(pq_stats *s, pq_cmp_kind kind, size_t width)
{
	memset(s, 0, sizeof(*s));
	s->kind = kind;
	s->width = width;
}

void pq_stats_reset(pq_stats *s)
{
	s->null_count = s->num_values = 0;
	s->has_minmax = 0;
	loom_buf_clear(&s->min);
	loom_buf_clear(&s->max);
}

void pq_stats_dispose(pq_stats *s)
{
	loom_buf_dispose(&s->min);
	loom_buf_dispose(&s->max);
}

static int set_buf(loom_buf *b, const void *p, size_t n)
{
	loom_buf_clear(b);
	return loom_buf_put(b, p, n);
}

/* Offer a candidate min and max (pointers into caller data). */
static int offer(pq_stats *s, const void *mn, size_t mnlen, const void *mx, size_t mxlen)
{
	if (!s->has_minmax) {
		LOOM_TRY(set_buf(&s->min, mn, mnlen));
		LOOM_TRY(set_buf(&s->max, mx, mxlen));
		s->has_minmax = 1;
	} else {
		if (pq_value_cmp(s->kind, mn, mnlen, s->min.ptr, s->min.size) < 0)
			LOOM_TRY(set_buf(&s->min, mn, mnlen));
		if (pq_value_cmp(s->kind, mx, mxlen, s->max.ptr, s->max.size) > 0)
			LOOM_TRY(set_buf(&s->max, mx, mxlen));
	}
	/* Parquet's zero rule: a zero min is written -0.0, a zero max +0.0. */
	if (s->kind == PQ_CMP_FLOAT) {
		float f;
		memcpy(&f, s->min.ptr, 4);
		if (f == 0.0f) {
			f = -0.0f;
			memcpy(s->min.ptr, &f, 4);
		}
		memcpy(&f, s->max.ptr, 4);
		if (f == 0.0f) {
			f = 0.0f;
			memcpy(s->max.ptr, &f, 4);
		}
	} else if (s->kind == PQ_CMP_DOUBLE) {
		double d;
		memcpy(&d, s->min.ptr, 8);
		if (d == 0.0) {
			d = -0.0;
			memcpy(s->min.ptr, &d, 8);
		}
		memcpy(&d, s->max.ptr, 8);
		if (d == 0.0) {
			d = 0.0;
			memcpy(s->max.ptr, &d, 8);
		}
	}
	return 0;
}

/* Typed min/max scans: one pass, then one offer per call. */
#define SCAN_INT(T, W)                                                   \
	do {                                                                 \
		T lo_, hi_, x;                                                     \
		size_t i_, ilo_ = 0, ihi_ = 0;                                      \
		memcpy(&lo_, vals, W);                                            \
		hi_ = lo_;                                                         \
		for (i_ = 1; i_ < n; i_++) {                                        \
			memcpy(&x, vals + i_ * W, W);                                 \
			if (x < lo_) {                                                \
				lo_ = x;                                                  \
				ilo_ = i_;                                                 \
			}                                                            \
			if (x > hi_) {                                                \
				hi_ = x;                                                  \
				ihi_ = i_;                                                 \
			}                                                            \
		}                                                                \
		return offer(s, vals + ilo_ * W, W, vals + ihi_ * W, W);           \
	} while (0)

#define SCAN_FLOAT(T, W)                                                 \
	do {                                                                 \
		T lo_ = 0, hi_ = 0, x;                                             \
		size_t i_, ilo_ = 0, ihi_ = 0;                                      \
		int any = 0;                                                     \
		for (i_ = 0; i_ < n; i_++) {                                        \
			memcpy(&x, vals + i_ * W, W);                                 \
			if (x != x)                                                  \
				continue;                                                \
			if (!any || x < lo_) {                                        \
				lo_ = x;                                                  \
				ilo_ = i_;                                                 \
			}                                                            \
			if (!any || x > hi_) {                                        \
				hi_ = x;                                                  \
				ihi_ = i_;                                                 \
			}                                                            \
			any = 1;                                                     \
		}                                                                \
		if (!any)                                                        \
			return 0;                                                    \
		return offer(s, vals + ilo_ * W, W, vals + ihi_ * W, W);           \
	} while (0)

int pq_stats_add_fixed(pq_stats *s, const uint8_t *vals, size_t n)
{
	size_t w = s->width, i, ilo = 0, ihi = 0;
	s->num_values += (int64_t)n;
	if (n == 0 || s->kind == PQ_CMP_NONE)
		return 0;
	switch (s->kind) {
	case PQ_CMP_BOOL: {
		uint8_t lo = 1, hi = 0;
		for (i = 0; i < n; i++) {
			uint8_t x = vals[i] != 0;
			lo &= x;
			hi |= x;
		}
		return offer(s, &lo, 1, &hi, 1);
	}
	case PQ_CMP_I32: SCAN_INT(int32_t, 4);
	case PQ_CMP_U32: SCAN_INT(uint32_t, 4);
	case PQ_CMP_I64: SCAN_INT(int64_t, 8);
	case PQ_CMP_U64: SCAN_INT(uint64_t, 8);
	case PQ_CMP_FLOAT: SCAN_FLOAT(float, 4);
	case PQ_CMP_DOUBLE: SCAN_FLOAT(double, 8);
	default:
		for (i = 1; i < n; i++) {
			if (pq_value_cmp(s->kind, vals + i * w, w, vals + ilo * w, w) < 0)
				ilo = i;
			if (pq_value_cmp(s->kind, vals + i * w, w, vals + ihi * w, w) > 0)
				ihi = i;
		}
		return offer(s, vals + ilo * w, w, vals + ihi * w, w);
	}
}

/* a < b as unsigned bytes, shorter first on a common prefix: the first
 * 8 bytes compared as one big-endian word, memcmp only past them. */
static inline int bytes_less(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen)
{
	size_t n = alen < blen ? alen : blen;
	int c;
	if (n >= 8) {
		uint64_t x, y;
		memcpy(&x, a, 8);
		memcpy(&y, b, 8);
		if (x != y)
			return __builtin_bswap64(x) < __builtin_bswap64(y);
	}
	c = memcmp(a, b, n);
	return c < 0 || (c == 0 && alen < blen);
}

int pq_stats_add_bytes(pq_stats *s, const uint32_t *offsets, const uint8_t *data,
                       size_t lo, size_t hi)
{
	size_t i, ilo = lo, ihi = lo;
	if (hi <= lo)
		return 0;
	s->num_values += (int64_t)(hi - lo);
	if (s->kind == PQ_CMP_NONE)
		return 0;
	if (s->kind == PQ_CMP_BYTES) {
		/* strings: most comparisons are decided by the first bytes, and a
		 * value below the minimum cannot be above the maximum */
		for (i = lo + 1; i < hi; i++) {
			const uint8_t *v = data + offsets[i];
			size_t len = offsets[i + 1] - offsets[i];
			if (bytes_less(v, len, data + offsets[ilo], offsets[ilo + 1] - offsets[ilo]))
				ilo = i;
			else if (bytes_less(data + offsets[ihi], offsets[ihi + 1] - offsets[ihi], v, len))
				ihi = i;
		}
	} else {
		for (i = lo + 1; i < hi; i++) {
			const uint8_t *v = data + offsets[i];
			size_t len = offsets[i + 1] - offsets[i];
			if (pq_value_cmp(s->kind, v, len, data + offsets[ilo], offsets[ilo + 1] - offsets[ilo]) < 0)
				ilo = i;
			else if (pq_value_cmp(s->kind, v, len, data + offsets[ihi], offsets[ihi + 1] - offsets[ihi]) > 0)
				ihi = i;
		}
	}
	return offer(s, data + offsets[ilo], offsets[ilo + 1] - offsets[ilo],
	             data + offsets[ihi], offsets[ihi + 1] - offsets[ihi]);
}

int pq_stats_merge(pq_stats *dst, const pq_stats *src)
{
	dst->null_count += src->null_count;
	dst->num_values += src->num_values;
	if (src->has_minmax)
		return offer(dst, src->min.ptr, src->min.size, src->max.ptr, src->max.size);
	return 0;
}

int pq_stats_copy(pq_stats *dst, const pq_stats *src)
{
	pq_stats_init(dst, src->kind, src->width);
	return pq_stats_merge(dst, src);
}
