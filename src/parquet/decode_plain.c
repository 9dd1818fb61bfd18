/* parquet/decode_plain.c - growing column arrays; PLAIN, RLE booleans and
 * BYTE_STREAM_SPLIT values. */
#include "parquet/decode.h"

#include <string.h>

#include "util/alloc.h"
#include "util/error.h"

static int grow(void **arr, size_t *cap, size_t need, size_t elem)
{
	size_t n;
	void *p;
	if (need == 0)
		need = 1;   /* never leave an array NULL: pointer arithmetic on it follows */
	if (need <= *cap && *arr)
		return 0;
	n = *cap ? *cap : 256;
	while (n < need)
		n *= 2;
	p = loom_reallocarray(*arr, n, elem);
	if (!p)
		return loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_PARQUET, "out of memory growing a column to %zu entries", n);
	*arr = p;
	*cap = n;
	return 0;
}

int pq_col_reserve_levels(pq_column *c, size_t total)
{
	size_t cap = c->levels_cap, cap2 = c->levels_cap;
	if (total <= c->levels_cap)
		return 0;
	if (c->max_def > 0 || c->def_levels)
		LOOM_TRY(grow((void **)&c->def_levels, &cap, total, sizeof(int16_t)));
	if (c->max_rep > 0 || c->rep_levels)
		LOOM_TRY(grow((void **)&c->rep_levels, &cap2, total, sizeof(int16_t)));
	c->levels_cap = cap > cap2 ? cap : cap2;
	return 0;
}

int pq_col_reserve_values(pq_column *c, size_t total)
{
	if (c->type == PQ_BYTE_ARRAY)
		return grow((void **)&c->offsets, &c->offsets_cap, total + 1, sizeof(uint32_t));
	return grow((void **)&c->values, &c->values_cap, total * pq_value_width(c->type, c->type_length), 1);
}

int pq_col_reserve_data(pq_column *c, size_t total)
{
	if (total > UINT32_MAX)
		return loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_PARQUET, "column batch over 4 GiB of byte-array data");
	return grow((void **)&c->data, &c->data_cap, total ? total : 1, 1);
}

static int short_data(const char *ctx, const char *enc, size_t need, size_t have)
{
	return loom_err(LOOM_ECORRUPT, LOOM_ERRCLASS_PARQUET,
	                "%s: %s values need %zu bytes, the page holds %zu", ctx, enc, need, have);
}

int pq_decode_plain(pq_column *c, const uint8_t *p, size_t len, size_t n, const char *ctx)
{
	size_t w = pq_value_width(c->type, c->type_length), i;

	/* values come from the page: check they fit before reserving */
	if (c->type == PQ_BOOLEAN ? (n + 7) / 8 > len : c->type == PQ_BYTE_ARRAY ? n > len / 4 : w && n > len / w)
		return short_data(ctx, "PLAIN", c->type == PQ_BOOLEAN ? (n + 7) / 8 : n * (w ? w : 4), len);
	LOOM_TRY(pq_col_reserve_values(c, c->num_values + n));
	if (c->type == PQ_BOOLEAN) {
		uint8_t *out = c->values + c->num_values;
		for (i = 0; i < n; i++)
			out[i] = (p[i >> 3] >> (i & 7)) & 1;
	} else if (c->type == PQ_BYTE_ARRAY) {
		size_t pos = 0;
		uint32_t *off = c->offsets;
		if (c->num_values == 0)
			off[0] = 0;
		/* Value bytes fit in the page, so one reservation covers them. */
		LOOM_TRY(pq_col_reserve_data(c, c->data_size + len));
		for (i = 0; i < n; i++) {
			uint32_t l;
			if (len - pos < 4)
				return short_data(ctx, "PLAIN byte-array", pos + 4, len);
			memcpy(&l, p + pos, 4);
			pos += 4;
			if (l > len - pos)
				return short_data(ctx, "PLAIN byte-array", pos + l, len);
			memcpy(c->data + c->data_size, p + pos, l);
			pos += l;
			c->data_size += l;
			off[c->num_values + i + 1] = (uint32_t)c->data_size;
		}
	} else {
		if (w == 0)
			return loom_err(LOOM_ECORRUPT, LOOM_ERRCLASS_PARQUET, "%s: zero-width values", ctx);
		if (n > len / w)
			return short_data(ctx, "PLAIN", n * w, len);
		if (n)
			memcpy(c->values + c->num_values * w, p, n * w);
	}
	c->num_values += n;
	return 0;
}

int pq_decode_bool_rle(pq_column *c, const uint8_t *p, size_t len, size_t n, const char *ctx)
{
	uint32_t l32;
	pq_rle r;
	if (c->type != PQ_BOOLEAN)
		return loom_err(LOOM_ECORRUPT, LOOM_ERRCLASS_PARQUET, "%s: RLE values on a non-boolean column", ctx);
	if (len < 4)
		return short_data(ctx, "RLE boolean", 4, len);
	memcpy(&l32, p, 4);
	if (l32 > len - 4)
		return short_data(ctx, "RLE boolean", (size_t)l32 + 4, len);
	LOOM_TRY(pq_col_reserve_values(c, c->num_values + n));
	pq_rle_init(&r, p + 4, l32, 1, ctx);
	LOOM_TRY(pq_rle_get_u8(&r, c->values + c->num_values, n));
	c->num_values += n;
	return 0;
}

int pq_decode_byte_stream_split(pq_column *c, const uint8_t *p, size_t len, size_t n, const char *ctx)
{
	size_t w = pq_value_width(c->type, c->type_length), stride, i, b;
	uint8_t *out;
	if (c->type == PQ_BYTE_ARRAY || c->type == PQ_BOOLEAN || w == 0)
		return loom_err(LOOM_ECORRUPT, LOOM_ERRCLASS_PARQUET,
		                "%s: BYTE_STREAM_SPLIT on a column of physical type %d", ctx, (int)c->type);
	stride = len / w;
	if (stride < n)
		return short_data(ctx, "BYTE_STREAM_SPLIT", n * w, len);
	LOOM_TRY(pq_col_reserve_values(c, c->num_values + n));
	out = c->values + c->num_values * w;
	for (b = 0; b < w; b++) {
		const uint8_t *s = p + b * stride;
		for (i = 0; i < n; i++)
			out[i * w + b] = s[i];
	}
	c->num_values += n;
	return 0;
}
