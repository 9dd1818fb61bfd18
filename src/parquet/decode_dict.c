/* parquet/decode_dict.c - dictionary indices (RLE_DICTIONARY and
 * PLAIN_DICTIONARY data pages) gathered from a decoded dictionary. */
#include "parquet/decode.h"

#include <string.h>

#include "util/error.h"

#define CHUNK 1024

static int too_big(const char *ctx, size_t limit)
{
	return loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_PARQUET,
	                "%s: column chunk decodes to more than %zu bytes (the reader's limit)", ctx, limit);
}

int pq_decode_dict_indices(pq_column *c, const pq_column *dict, const uint8_t *p, size_t len,
                           size_t n, size_t max_bytes, const char *ctx)
{
	uint32_t idx[CHUNK];
	pq_rle r;
	size_t done = 0, w = pq_value_width(c->type, c->type_length);

	if (n == 0)
		return 0;
	if (!dict)
		return loom_err(LOOM_ECORRUPT, LOOM_ERRCLASS_PARQUET,
		                "%s: dictionary-encoded page without a dictionary page", ctx);
	if (len < 1)
		return loom_err(LOOM_ECORRUPT, LOOM_ERRCLASS_PARQUET, "%s: empty dictionary-index data", ctx);
	if (p[0] > 32)
		return loom_err(LOOM_ECORRUPT, LOOM_ERRCLASS_PARQUET,
		                "%s: dictionary index bit width %d above 32", ctx, p[0]);
	pq_rle_init(&r, p + 1, len - 1, p[0], ctx);
	if (w && (c->num_values + n > max_bytes / w))
		return too_big(ctx, max_bytes);
	LOOM_TRY(pq_col_reserve_values(c, c->num_values + n));
	if (c->type == PQ_BYTE_ARRAY && c->num_values == 0)
		c->offsets[0] = 0;
	while (done < n) {
		size_t k = n - done < CHUNK ? n - done : CHUNK, i;
		LOOM_TRY(pq_rle_get_u32(&r, idx, k));
		for (i = 0; i < k; i++)
			if (idx[i] >= dict->num_values)
				return loom_err(LOOM_ECORRUPT, LOOM_ERRCLASS_PARQUET,
				                "%s: dictionary index %u out of range (dictionary has %zu values)",
				                ctx, idx[i], dict->num_values);
		if (c->type == PQ_BYTE_ARRAY) {
			size_t bytes = 0;
			uint32_t *off;
			for (i = 0; i < k; i++)
				bytes += dict->offsets[idx[i] + 1] - dict->offsets[idx[i]];
			if (bytes > max_bytes || c->data_size > max_bytes - bytes)
				return too_big(ctx, max_bytes);
			LOOM_TRY(pq_col_reserve_data(c, c->data_size + bytes));
			off = c->offsets + c->num_values + 1;
			for (i = 0; i < k; i++) {
				uint32_t a = dict->offsets[idx[i]], l = dict->offsets[idx[i] + 1] - a;
				memcpy(c->data + c->data_size, dict->data + a, l);
				c->data_size += l;
				off[i] = (uint32_t)c->data_size;
			}
		} else if (w == 4) {
			uint32_t *out = (uint32_t *)(void *)(c->values + c->num_values * 4);
			const uint32_t *dv = (const uint32_t *)(const void *)dict->values;
			for (i = 0; i < k; i++)
				out[i] = dv[idx[i]];
		} else if (w == 8) {
			uint64_t *out = (uint64_t *)(void *)(c->values + c->num_values * 8);
			const uint64_t *dv = (const uint64_t *)(const void *)dict->values;
			for (i = 0; i < k; i++)
				out[i] = dv[idx[i]];
		} else {
			uint8_t *out = c->values + c->num_values * w;
			for (i = 0; i < k; i++)
				memcpy(out + i * w, dict->values + (size_t)idx[i] * w, w);
		}
		c->num_values += k;
		done += k;
	}
	return 0;
}
