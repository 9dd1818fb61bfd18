/* parquet/encode_rle.c - the RLE/bit-packed hybrid encoder. */
#include "parquet/encode.h"

#include <string.h>

#include "util/error.h"

static size_t put_varint(uint8_t *p, uint64_t v)
{
	size_t n = 0;
	while (v >= 0x80) {
		p[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	p[n++] = (uint8_t)v;
	return n;
}

static int emit_run(loom_buf *out, uint32_t value, size_t count, int bw)
{
	uint8_t tmp[16];
	size_t n = put_varint(tmp, (uint64_t)count << 1), i;
	for (i = 0; i < (size_t)(bw + 7) / 8; i++)
		tmp[n++] = (uint8_t)(value >> (8 * i));
	return loom_buf_put(out, tmp, n);
}

/* Bit-pack n values (zero-padded to a multiple of 8) after a literal
 * header. The accumulator holds < 8 pending bits plus one value. */
#define PQ_DEFINE_LITERAL(NAME, T)                                            \
	static int NAME(loom_buf *out, const T *v, size_t n, int bw)             \
	{                                                                         \
		size_t groups = (n + 7) / 8, bytes = groups * (size_t)bw, i;          \
		uint8_t *p;                                                           \
		uint64_t acc = 0;                                                     \
		int nbits = 0;                                                        \
		uint8_t hdr[10];                                                      \
		size_t hn = put_varint(hdr, ((uint64_t)groups << 1) | 1);             \
		LOOM_TRY(loom_buf_grow(out, hn + bytes));                             \
		memcpy(out->ptr + out->size, hdr, hn);                                \
		p = (uint8_t *)out->ptr + out->size + hn;                             \
		for (i = 0; i < groups * 8; i++) {                                    \
			uint64_t x = i < n ? (uint64_t)(uint32_t)v[i] : 0;                \
			acc |= x << nbits;                                                \
			nbits += bw;                                                      \
			while (nbits >= 8) {                                              \
				*p++ = (uint8_t)acc;                                          \
				acc >>= 8;                                                    \
				nbits -= 8;                                                   \
			}                                                                 \
		}                                                                     \
		out->size += hn + bytes;                                              \
		out->ptr[out->size] = 0;                                              \
		return 0;                                                             \
	}

/* Runs of >= 8 equal values are RLE; literals before a run are completed
 * to a multiple of 8 with values taken from the run. */
#define PQ_DEFINE_RLE(NAME, LIT, T)                                           \
	static int NAME(loom_buf *out, const T *v, size_t n, int bw)             \
	{                                                                         \
		size_t lit = 0, i = 0;                                                \
		while (i < n) {                                                       \
			size_t j = i + 1;                                                 \
			while (j < n && v[j] == v[i])                                     \
				j++;                                                          \
			if (j - i >= 8) {                                                 \
				size_t pad = (8 - (i - lit) % 8) % 8;                         \
				if (j - i - pad >= 8) {                                       \
					if (i + pad > lit)                                        \
						LOOM_TRY(LIT(out, v + lit, i + pad - lit, bw));       \
					LOOM_TRY(emit_run(out, (uint32_t)v[i], j - i - pad, bw)); \
					lit = j;                                                  \
				}                                                             \
			}                                                                 \
			i = j;                                                            \
		}                                                                     \
		if (n > lit)                                                          \
			LOOM_TRY(LIT(out, v + lit, n - lit, bw));                         \
		return 0;                                                             \
	}

PQ_DEFINE_LITERAL(literal_u32, uint32_t)
PQ_DEFINE_LITERAL(literal_i16, int16_t)
PQ_DEFINE_RLE(rle_u32, literal_u32, uint32_t)
PQ_DEFINE_RLE(rle_i16, literal_i16, int16_t)

int pq_rle_encode_u32(loom_buf *out, const uint32_t *v, size_t n, int bw)
{
	if (bw < 0 || bw > 32)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_PARQUET, "RLE bit width %d out of range", bw);
	return rle_u32(out, v, n, bw);
}

int pq_rle_encode_levels(loom_buf *out, const int16_t *v, size_t n, int bw)
{
	if (bw < 0 || bw > 16)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_PARQUET, "level bit width %d out of range", bw);
	return rle_i16(out, v, n, bw);
}
