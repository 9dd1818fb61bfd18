/* parquet/encode_plain.c - PLAIN encoding of booleans and byte arrays (the
 * fixed-width types are already PLAIN in a batch and are copied in bulk). */
#include "parquet/encode.h"

#include <string.h>

#include "util/error.h"

int pq_plain_encode_bool(loom_buf *out, const uint8_t *v, size_t n)
{
	size_t bytes = (n + 7) / 8, i;
	uint8_t *p;
	LOOM_TRY(loom_buf_grow(out, bytes));
	p = (uint8_t *)out->ptr + out->size;
	memset(p, 0, bytes);
	for (i = 0; i < n; i++)
		p[i >> 3] |= (uint8_t)((v[i] != 0) << (i & 7));
	out->size += bytes;
	out->ptr[out->size] = 0;
	return 0;
}

int pq_plain_encode_bytes(loom_buf *out, const uint32_t *offsets,
                          const uint8_t *data, size_t lo, size_t hi)
{
	size_t bytes, i;
	uint8_t *p;
	if (hi <= lo)
		return 0;
	bytes = (size_t)(offsets[hi] - offsets[lo]) + 4 * (hi - lo);
	LOOM_TRY(loom_buf_grow(out, bytes));
	p = (uint8_t *)out->ptr + out->size;
	for (i = lo; i < hi; i++) {
		uint32_t len = offsets[i + 1] - offsets[i];
		p[0] = (uint8_t)len;
		p[1] = (uint8_t)(len >> 8);
		p[2] = (uint8_t)(len >> 16);
		p[3] = (uint8_t)(len >> 24);
		memcpy(p + 4, data + offsets[i], len);
		p += 4 + len;
	}
	out->size += bytes;
	out->ptr[out->size] = 0;
	return 0;
}
