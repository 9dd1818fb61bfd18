/* parquet/decode_levels.c - bit unpacking, the RLE/bit-packed hybrid, and
 * definition/repetition levels. Assumes a little-endian host (as the
 * Parquet PLAIN layout does). */
#include "parquet/decode.h"

#include <string.h>

#include "util/error.h"

int pq_bit_width(uint32_t v)
{
	int w = 0;
	while (v) {
		w++;
		v >>= 1;
	}
	return w;
}

static uint64_t load64(const uint8_t *p)
{
	uint64_t v;
	memcpy(&v, p, 8);
	return v;
}

/* Unpack one group of 8 values of width w (w bytes at src, all present). */
static void unpack8(const uint8_t *src, size_t avail, int w, uint32_t *out)
{
	uint8_t tmp[48];
	const uint8_t *s = src;
	uint64_t mask = w == 32 ? 0xffffffffu : (((uint64_t)1 << w) - 1);
	int i;
	if (w == 0) {
		memset(out, 0, 8 * sizeof(uint32_t));
		return;
	}
	if (avail < (size_t)w + 8) {
		memset(tmp, 0, sizeof(tmp));
		memcpy(tmp, src, avail < (size_t)w ? avail : (size_t)w);
		s = tmp;
	}
	for (i = 0; i < 8; i++) {
		unsigned bit = (unsigned)(i * w);
		out[i] = (uint32_t)((load64(s + (bit >> 3)) >> (bit & 7)) & mask);
	}
}

void pq_unpack_bits(const uint8_t *p, int w, uint32_t *out, size_t n)
{
	size_t bytes = (n * (size_t)w + 7) / 8, i = 0, off = 0;
	uint32_t tmp[8];
	for (; i + 8 <= n; i += 8, off += (size_t)w)
		unpack8(p + off, bytes - off, w, out + i);
	if (i < n) {
		unpack8(p + off, bytes - off, w, tmp);
		memcpy(out + i, tmp, (n - i) * sizeof(uint32_t));
	}
}

void pq_rle_init(pq_rle *r, const uint8_t *p, size_t len, int bit_width, const char *ctx)
{
	memset(r, 0, sizeof(*r));
	r->p = p;
	r->end = p + len;
	r->bit_width = bit_width;
	r->bp_pos = 8;
	r->ctx = ctx;
}

static int rle_fail(pq_rle *r, const char *what)
{
	return loom_err(LOOM_ECORRUPT, LOOM_ERRCLASS_PARQUET, "%s: RLE/bit-packed data: %s", r->ctx, what);
}

static int next_run(pq_rle *r)
{
	uint64_t h = 0;
	unsigned shift = 0;
	for (;;) {
		uint8_t b;
		if (r->p >= r->end)
			return rle_fail(r, "ran out of data before all values were decoded");
		b = *r->p++;
		h |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			break;
		shift += 7;
		if (shift > 35)
			return rle_fail(r, "run header varint too long");
	}
	if (h & 1) {
		uint64_t groups = h >> 1;
		if (groups == 0 || groups > (1u << 28))
			return rle_fail(r, "bad bit-packed run length");
		r->is_rle = 0;
		r->run_left = (uint32_t)(groups * 8);
		r->bp = r->p;
		/* The last run may be cut short by writers; the bytes present bound it. */
		if ((uint64_t)(r->end - r->p) < groups * (uint64_t)r->bit_width) {
			if (r->bit_width == 0)
				r->p = r->end;
			else {
				uint64_t have = (uint64_t)(r->end - r->p) * 8 / (uint64_t)r->bit_width;
				if (have == 0)
					return rle_fail(r, "bit-packed run beyond the end of the data");
				r->run_left = (uint32_t)have;
				r->p = r->end;
			}
		} else
			r->p += groups * (uint64_t)r->bit_width;
		r->bp_pos = 8;
	} else {
		size_t nb = ((size_t)r->bit_width + 7) / 8, i;
		uint32_t v = 0;
		if (h >> 1 == 0 || (h >> 1) > 0xffffffffu)
			return rle_fail(r, "RLE run of length zero or too long");
		if ((size_t)(r->end - r->p) < nb)
			return rle_fail(r, "RLE run value beyond the end of the data");
		for (i = 0; i < nb; i++)
			v |= (uint32_t)r->p[i] << (8 * i);
		r->p += nb;
		if (r->bit_width < 32 && (v >> r->bit_width))
			return rle_fail(r, "RLE run value wider than the bit width");
		r->is_rle = 1;
		r->rle_value = v;
		r->run_left = (uint32_t)(h >> 1);
	}
	return 0;
}

/* Next value of the current bit-packed run (run_left > 0). */
static uint32_t bp_next(pq_rle *r)
{
	if (r->bp_pos == 8) {
		size_t avail = (size_t)(r->end - r->bp);
		unpack8(r->bp, avail, r->bit_width, r->bp_buf);
		r->bp += (size_t)r->bit_width <= avail ? (size_t)r->bit_width : avail;
		r->bp_pos = 0;
	}
	return r->bp_buf[r->bp_pos++];
}

#define RLE_GET(NAME, T)                                                   \
	int NAME(pq_rle *r, T *out, size_t n)                                  \
	{                                                                      \
		size_t i = 0;                                                      \
		while (i < n) {                                                    \
			size_t k;                                                      \
			if (r->run_left == 0)                                          \
				LOOM_TRY(next_run(r));                                     \
			k = r->run_left < n - i ? r->run_left : n - i;                 \
			if (r->is_rle) {                                               \
				T v = (T)r->rle_value;                                     \
				size_t j;                                                  \
				for (j = 0; j < k; j++)                                    \
					out[i + j] = v;                                        \
			} else {                                                       \
				size_t j = 0;                                              \
				while (j < k && r->bp_pos < 8)                             \
					out[i + j++] = (T)bp_next(r);                          \
				/* whole groups straight from the input */                \
				while (k - j >= 8 &&                                       \
				       (size_t)(r->end - r->bp) >= (size_t)r->bit_width) { \
					uint32_t g_[8];                                        \
					int q_;                                                \
					unpack8(r->bp, (size_t)(r->end - r->bp),               \
					        r->bit_width, g_);                             \
					r->bp += r->bit_width;                                 \
					for (q_ = 0; q_ < 8; q_++)                             \
						out[i + j + (size_t)q_] = (T)g_[q_];               \
					j += 8;                                                \
				}                                                          \
				while (j < k)                                              \
					out[i + j++] = (T)bp_next(r);                          \
			}                                                              \
			r->run_left -= (uint32_t)k;                                    \
			i += k;                                                        \
		}                                                                  \
		return 0;                                                          \
	}

RLE_GET(pq_rle_get_u32, uint32_t)
RLE_GET(pq_rle_get_i16, int16_t)
RLE_GET(pq_rle_get_u8, uint8_t)

int pq_decode_levels(int encoding, int len_prefixed, const uint8_t *p, size_t len,
                     int16_t max_level, int16_t *out, size_t n, size_t *consumed,
                     const char *ctx)
{
	int w = pq_bit_width((uint32_t)max_level);
	size_t i;

	if (encoding == 3 /* RLE */) {
		pq_rle r;
		size_t rl = len;
		const uint8_t *d = p;
		if (len_prefixed) {
			uint32_t l32;
			if (len < 4)
				return loom_err(LOOM_ECORRUPT, LOOM_ERRCLASS_PARQUET,
				                "%s: level data shorter than its 4-byte length", ctx);
			memcpy(&l32, p, 4);
			if (l32 > len - 4)
				return loom_err(LOOM_ECORRUPT, LOOM_ERRCLASS_PARQUET,
				                "%s: level length %u beyond the %zu bytes of the page", ctx, l32, len - 4);
			rl = l32;
			d = p + 4;
		}
		pq_rle_init(&r, d, rl, w, ctx);
		LOOM_TRY(pq_rle_get_i16(&r, out, n));
		*consumed = (size_t)(d - p) + rl;
	} else if (encoding == 4 /* BIT_PACKED, most significant bit first */) {
		size_t bytes = (n * (size_t)w + 7) / 8;
		if (bytes > len)
			return loom_err(LOOM_ECORRUPT, LOOM_ERRCLASS_PARQUET,
			                "%s: bit-packed levels need %zu bytes, page has %zu", ctx, bytes, len);
		for (i = 0; i < n; i++) {
			size_t bit = i * (size_t)w;
			int v = 0, b;
			for (b = 0; b < w; b++, bit++)
				v = (v << 1) | ((p[bit >> 3] >> (7 - (bit & 7))) & 1);
			out[i] = (int16_t)v;
		}
		*consumed = bytes;
	} else
		return loom_err(LOOM_EUNSUPPORTED, LOOM_ERRCLASS_PARQUET,
		                "%s: level encoding %d is not RLE or BIT_PACKED", ctx, encoding);
	{
		/* widths stay below 16 bits, so levels are never negative: only
		 * the maximum needs checking (a loop the compiler vectorises) */
		int16_t hi = 0;
		for (i = 0; i < n; i++)
			hi = out[i] > hi ? out[i] : hi;
		if (hi > max_level)
			return loom_err(LOOM_ECORRUPT, LOOM_ERRCLASS_PARQUET,
			                "%s: level %d above the maximum %d", ctx, hi, max_level);
	}
	return 0;
}
