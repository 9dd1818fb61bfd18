/* parquet/decode_delta.c - DELTA_BINARY_PACKED, DELTA_LENGTH_BYTE_ARRAY and
 * DELTA_BYTE_ARRAY. Arithmetic wraps (unsigned), as the format intends. */
#include "parquet/decode.h"

#include <string.h>

#include "util/alloc.h"
#include "util/error.h"

static int dfail(const char *ctx, const char *what)
{
	return loom_err(LOOM_ECORRUPT, LOOM_ERRCLASS_PARQUET, "%s: DELTA_BINARY_PACKED data: %s", ctx, what);
}

static int uvarint(const uint8_t **p, const uint8_t *end, uint64_t *v, const char *ctx)
{
	uint64_t r = 0;
	unsigned shift = 0;
	while (*p < end) {
		uint8_t b = *(*p)++;
		r |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			*v = r;
			return 0;
		}
		shift += 7;
		if (shift > 63)
			return dfail(ctx, "varint too long");
	}
	return dfail(ctx, "truncated varint");
}

/* Unpack n values of width w (<= 64) LSB-first starting at bit 0 of p,
 * where p holds `avail` bytes (missing bytes read as zero). */
static uint64_t get_bits(const uint8_t *p, size_t avail, size_t bit, int w)
{
	uint64_t v = 0;
	int got = 0;
	while (got < w) {
		size_t byte = bit >> 3;
		int off = (int)(bit & 7), take = 8 - off;
		uint64_t b;
		if (take > w - got)
			take = w - got;
		b = byte < avail ? p[byte] : 0;
		v |= ((b >> off) & ((1u << take) - 1)) << got;
		got += take;
		bit += (size_t)take;
	}
	return v;
}

int pq_delta_decode_i64(const uint8_t *p, size_t len, int64_t *out, size_t n,
                        size_t *consumed, size_t *total_in_stream, const char *ctx)
{
	const uint8_t *s = p, *end = p + len;
	/* zeroed: set by uvarint only on success, which GCC -O3 cannot see */
	uint64_t block = 0, nmini = 0, total = 0, first = 0, per_mini, i = 0;
	uint64_t prev;

	LOOM_TRY(uvarint(&s, end, &block, ctx));
	LOOM_TRY(uvarint(&s, end, &nmini, ctx));
	LOOM_TRY(uvarint(&s, end, &total, ctx));
	LOOM_TRY(uvarint(&s, end, &first, ctx));
	if (block == 0 || block % 128 || nmini == 0 || block % nmini || (block / nmini) % 32 ||
	    block > (1u << 20))
		return dfail(ctx, "bad block or miniblock size");
	if (total < n)
		return dfail(ctx, "fewer values than the page declares");
	if (total > ((uint64_t)len / 2 + 1) * block + 1)
		return dfail(ctx, "value count larger than the data could hold");
	per_mini = block / nmini;
	prev = (first >> 1) ^ (uint64_t)-(int64_t)(first & 1);
	if (n > 0)
		out[0] = (int64_t)prev;
	i = 1;
	while (i < total) {
		uint64_t md = 0, min_delta, m;
		const uint8_t *widths;
		LOOM_TRY(uvarint(&s, end, &md, ctx));
		min_delta = (md >> 1) ^ (uint64_t)-(int64_t)(md & 1);
		if ((uint64_t)(end - s) < nmini)
			return dfail(ctx, "truncated miniblock bit widths");
		widths = s;
		s += nmini;
		for (m = 0; m < nmini && i < total; m++) {
			int w = widths[m];
			size_t bytes = (size_t)(per_mini * (uint64_t)w / 8), avail, j;
			if (w > 64)
				return dfail(ctx, "miniblock bit width above 64");
			avail = (size_t)(end - s);
			if (bytes > avail) {
				/* the final miniblock may be cut after its last value */
				uint64_t need_vals = total - i < per_mini ? total - i : per_mini;
				if ((need_vals * (uint64_t)w + 7) / 8 > avail)
					return dfail(ctx, "miniblock beyond the end of the data");
			}
			if (w <= 32 && bytes <= avail && i + per_mini <= n) {
				/* the common case: a whole miniblock of narrow deltas */
				uint32_t d32[256];
				size_t done = 0;
				while (done < per_mini) {
					size_t k = per_mini - done < 256 ? per_mini - done : 256;
					pq_unpack_bits(s + done * (size_t)w / 8, w, d32, k);
					for (j = 0; j < k; j++) {
						prev += min_delta + d32[j];
						out[i + done + j] = (int64_t)prev;
					}
					done += k;
				}
				i += per_mini;
			} else
				for (j = 0; j < per_mini && i < total; j++, i++) {
					uint64_t d = w ? get_bits(s, avail, j * (size_t)w, w) : 0;
					prev += min_delta + d;
					if (i < n)
						out[i] = (int64_t)prev;
				}
			s += bytes <= avail ? bytes : avail;
		}
	}
	*consumed = (size_t)(s - p);
	if (total_in_stream)
		*total_in_stream = (size_t)total;
	return 0;
}

int pq_decode_delta_binary(pq_column *c, const uint8_t *p, size_t len, size_t n, const char *ctx)
{
	int64_t *tmp;
	size_t used, i;
	int rc;
	if (c->type != PQ_INT32 && c->type != PQ_INT64)
		return loom_err(LOOM_ECORRUPT, LOOM_ERRCLASS_PARQUET,
		                "%s: DELTA_BINARY_PACKED on a non-integer column", ctx);
	LOOM_TRY(pq_col_reserve_values(c, c->num_values + n));
	if (c->type == PQ_INT64) {
		tmp = (int64_t *)(void *)(c->values + c->num_values * 8);
		LOOM_TRY(pq_delta_decode_i64(p, len, tmp, n, &used, NULL, ctx));
	} else {
		int32_t *o = (int32_t *)(void *)(c->values + c->num_values * 4);
		tmp = loom_malloc((n ? n : 1) * sizeof(int64_t));
		if (!tmp)
			return loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_PARQUET, "out of memory decoding deltas");
		rc = pq_delta_decode_i64(p, len, tmp, n, &used, NULL, ctx);
		if (rc < 0) {
			loom_free(tmp);
			return rc;
		}
		for (i = 0; i < n; i++)
			o[i] = (int32_t)(uint32_t)(uint64_t)tmp[i];
		loom_free(tmp);
	}
	c->num_values += n;
	return 0;
}

/* Lengths stream + concatenated bytes. Returns lengths in *lens (caller
 * frees), the byte area in *data and *data_len. */
static int delta_lengths(const uint8_t *p, size_t len, size_t n, int64_t **lens,
                         const uint8_t **data, size_t *data_len, size_t *consumed_out, const char *ctx)
{
	size_t used, total = 0, i;
	int64_t *l = loom_malloc((n ? n : 1) * sizeof(int64_t));
	int rc;
	if (!l)
		return loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_PARQUET, "out of memory decoding lengths");
	rc = pq_delta_decode_i64(p, len, l, n, &used, NULL, ctx);
	if (rc < 0) {
		loom_free(l);
		return rc;
	}
	for (i = 0; i < n; i++) {
		if (l[i] < 0 || (uint64_t)l[i] > len) {
			long long bad = (long long)l[i];
			loom_free(l);
			return loom_err(LOOM_ECORRUPT, LOOM_ERRCLASS_PARQUET, "%s: byte-array length %lld out of range",
			                ctx, bad);
		}
		total += (size_t)l[i];
	}
	if (total > len - used) {
		loom_free(l);
		return loom_err(LOOM_ECORRUPT, LOOM_ERRCLASS_PARQUET,
		                "%s: byte-array data needs %zu bytes, %zu left in the page", ctx, total, len - used);
	}
	*lens = l;
	*data = p + used;
	*data_len = total;
	if (consumed_out)
		*consumed_out = used + total;
	return 0;
}

int pq_decode_delta_length(pq_column *c, const uint8_t *p, size_t len, size_t n, const char *ctx)
{
	int64_t *l;
	const uint8_t *d;
	size_t dl, i, pos = 0;
	if (c->type != PQ_BYTE_ARRAY)
		return loom_err(LOOM_ECORRUPT, LOOM_ERRCLASS_PARQUET,
		                "%s: DELTA_LENGTH_BYTE_ARRAY on a non-byte-array column", ctx);
	LOOM_TRY(delta_lengths(p, len, n, &l, &d, &dl, NULL, ctx));
	if (pq_col_reserve_values(c, c->num_values + n) < 0 || pq_col_reserve_data(c, c->data_size + dl) < 0) {
		loom_free(l);
		return LOOM_ENOMEM;
	}
	if (c->num_values == 0)
		c->offsets[0] = 0;
	memcpy(c->data + c->data_size, d, dl);
	for (i = 0; i < n; i++) {
		pos += (size_t)l[i];
		c->offsets[c->num_values + i + 1] = (uint32_t)(c->data_size + pos);
	}
	c->data_size += dl;
	c->num_values += n;
	loom_free(l);
	return 0;
}

int pq_decode_delta_byte_array(pq_column *c, const uint8_t *p, size_t len, size_t n, size_t max_bytes,
                               const char *ctx)
{
	int64_t *pre = NULL, *suf = NULL;
	const uint8_t *sd;
	size_t used, sdl, i, spos = 0, w = 0, prev_len = 0;
	int rc;

	if (c->type != PQ_BYTE_ARRAY && c->type != PQ_FIXED_LEN_BYTE_ARRAY)
		return loom_err(LOOM_ECORRUPT, LOOM_ERRCLASS_PARQUET,
		                "%s: DELTA_BYTE_ARRAY on a column of physical type %d", ctx, (int)c->type);
	if (c->type == PQ_FIXED_LEN_BYTE_ARRAY)
		w = (size_t)c->type_length;
	pre = loom_malloc((n ? n : 1) * sizeof(int64_t));
	if (!pre)
		return loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_PARQUET, "out of memory decoding prefixes");
	rc = pq_delta_decode_i64(p, len, pre, n, &used, NULL, ctx);
	if (rc < 0)
		goto out;
	rc = delta_lengths(p + used, len - used, n, &suf, &sd, &sdl, NULL, ctx);
	if (rc < 0)
		goto out;
	rc = pq_col_reserve_values(c, c->num_values + n);
	if (rc < 0)
		goto out;
	if (w == 0 && c->num_values == 0)
		c->offsets[0] = 0;
	for (i = 0; i < n; i++) {
		size_t pl, sl = (size_t)suf[i], vl;
		uint8_t *dst;
		const uint8_t *prev;
		if (pre[i] < 0 || (size_t)pre[i] > prev_len) {
			rc = loom_err(LOOM_ECORRUPT, LOOM_ERRCLASS_PARQUET,
			              "%s: DELTA_BYTE_ARRAY prefix %lld longer than the previous value (%zu)",
			              ctx, (long long)pre[i], prev_len);
			goto out;
		}
		pl = (size_t)pre[i];
		vl = pl + sl;
		if (w) {
			if (vl != w) {
				rc = loom_err(LOOM_ECORRUPT, LOOM_ERRCLASS_PARQUET,
				              "%s: DELTA_BYTE_ARRAY value of %zu bytes in a %zu-byte column", ctx, vl, w);
				goto out;
			}
			dst = c->values + (c->num_values + i) * w;
			prev = dst - w;
		} else {
			if (vl > max_bytes || c->data_size > max_bytes - vl) {
				rc = loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_PARQUET,
				              "%s: column chunk decodes to more than %zu bytes (the reader's limit)",
				              ctx, max_bytes);
				goto out;
			}
			rc = pq_col_reserve_data(c, c->data_size + vl);
			if (rc < 0)
				goto out;
			dst = c->data + c->data_size;
			prev = dst - prev_len;
		}
		if (pl)
			memmove(dst, prev, pl);
		memcpy(dst + pl, sd + spos, sl);
		spos += sl;
		prev_len = vl;
		if (!w) {
			c->data_size += vl;
			c->offsets[c->num_values + i + 1] = (uint32_t)c->data_size;
		}
	}
	c->num_values += n;
	rc = 0;
out:
	loom_free(pre);
	loom_free(suf);
	return rc;
}
