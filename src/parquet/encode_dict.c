/* parquet/encode_dict.c - the column-chunk dictionary: an open-addressing
 * table of entry numbers over value bytes kept in the dictionary page body,
 * so inserting allocates only when the table or the body grows. */
#include "parquet/encode.h"

#include <string.h>

#include "util/alloc.h"
#include "util/error.h"

#define DICT_K1 0x9E3779B97F4A7C15ull
#define DICT_K2 0xC2B2AE3D27D4EB4Full

static inline uint64_t load64(const uint8_t *p)
{
	uint64_t x;
	memcpy(&x, p, 8);
	return x;
}

static inline uint32_t mix(uint64_t h)
{
	h ^= h >> 29;
	h *= DICT_K2;
	h ^= h >> 32;
	return (uint32_t)h;
}

static uint32_t hash_bytes(const uint8_t *p, size_t n)
{
	uint64_t h = (uint64_t)n * DICT_K1;
	while (n >= 8) {
		h = (h ^ load64(p)) * DICT_K1;
		h ^= h >> 31;
		p += 8;
		n -= 8;
	}
	if (n) {
		uint64_t t = 0;
		memcpy(&t, p, n);
		h = (h ^ t) * DICT_K1;
	}
	return mix(h);
}

void pq_dict_init(pq_dict *d, pq_physical_type type, size_t width)
{
	memset(d, 0, sizeof(*d));
	d->type = type;
	d->width = type == PQ_BYTE_ARRAY ? 0 : width;
}

void pq_dict_reset(pq_dict *d)
{
	loom_buf_clear(&d->plain);
	d->count = 0;
	if (d->slots)
		memset(d->slots, 0, d->cap * sizeof(uint32_t));
}

void pq_dict_dispose(pq_dict *d)
{
	loom_buf_dispose(&d->plain);
	loom_free(d->entry_off);
	loom_free(d->entry_hash);
	loom_free(d->slots);
	memset(d, 0, sizeof(*d));
}

static int grow_table(pq_dict *d)
{
	size_t ncap = d->cap ? d->cap * 2 : 1024, i;
	uint32_t *s = loom_calloc(ncap, sizeof(uint32_t));
	if (!s)
		return loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_PARQUET,
		                "out of memory for a %zu-slot dictionary table", ncap);
	for (i = 0; i < d->count; i++) {
		size_t pos = d->entry_hash[i] & (ncap - 1);
		while (s[pos])
			pos = (pos + 1) & (ncap - 1);
		s[pos] = (uint32_t)i + 1;
	}
	loom_free(d->slots);
	d->slots = s;
	d->cap = ncap;
	return 0;
}

/* Make room for one more entry (table at most half full). */
static int reserve_entry(pq_dict *d)
{
	if (d->count >= UINT32_MAX - 1)
		return loom_err(LOOM_EUNSUPPORTED, LOOM_ERRCLASS_PARQUET, "dictionary over 2^32 entries");
	if ((d->count + 1) * 2 > d->cap)
		LOOM_TRY(grow_table(d));
	if (d->count + 1 > d->entry_cap) {
		size_t n = d->entry_cap ? d->entry_cap * 2 : 1024;
		uint32_t *h = loom_reallocarray(d->entry_hash, n, sizeof(uint32_t));
		if (!h)
			return loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_PARQUET, "out of memory for dictionary entries");
		d->entry_hash = h;
		if (d->type == PQ_BYTE_ARRAY) {
			uint32_t *o = loom_reallocarray(d->entry_off, n, sizeof(uint32_t));
			if (!o)
				return loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_PARQUET, "out of memory for dictionary entries");
			d->entry_off = o;
		}
		d->entry_cap = n;
	}
	return 0;
}

/* Where the probe for a value of hash h starts (the table first made
 * large enough). */
static int probe_start(pq_dict *d, uint32_t h, size_t *pos)
{
	if ((d->count + 1) * 2 > d->cap)
		LOOM_TRY(reserve_entry(d));
	*pos = h & (d->cap - 1);
	return 0;
}

/* The empty slot a new entry of hash h goes in, room for the entry made
 * (the table may have grown, so the probe starts again). */
static int new_slot(pq_dict *d, uint32_t h, size_t *pos)
{
	LOOM_TRY(reserve_entry(d));
	*pos = h & (d->cap - 1);
	while (d->slots[*pos])
		*pos = (*pos + 1) & (d->cap - 1);
	return 0;
}

static inline int same_fixed(const void *a, const void *b, size_t w)
{
	if (w == 8) {
		uint64_t x, y;
		memcpy(&x, a, 8);
		memcpy(&y, b, 8);
		return x == y;
	}
	if (w == 4) {
		uint32_t x, y;
		memcpy(&x, a, 4);
		memcpy(&y, b, 4);
		return x == y;
	}
	return memcmp(a, b, w) == 0;
}

int pq_dict_put_fixed(pq_dict *d, const uint8_t *vals, size_t n, uint32_t *idx)
{
	size_t w = d->width, i;
	for (i = 0; i < n; i++) {
		const uint8_t *v = vals + i * w;
		uint32_t h;
		size_t pos;
		if (w == 4) {
			uint32_t x;
			memcpy(&x, v, 4);
			h = mix((uint64_t)x * DICT_K1);
		} else if (w == 8) {
			h = mix(load64(v) * DICT_K1);
		} else {
			h = hash_bytes(v, w);
		}
		LOOM_TRY(probe_start(d, h, &pos));
		for (;;) {
			uint32_t e = d->slots[pos];
			if (!e) {
				LOOM_TRY(new_slot(d, h, &pos));
				LOOM_TRY(loom_buf_put(&d->plain, v, w));
				d->entry_hash[d->count] = h;
				d->slots[pos] = (uint32_t)(d->count + 1);
				idx[i] = (uint32_t)d->count++;
				break;
			}
			if (d->entry_hash[e - 1] == h && same_fixed(d->plain.ptr + (size_t)(e - 1) * w, v, w)) {
				idx[i] = e - 1;
				break;
			}
			pos = (pos + 1) & (d->cap - 1);
		}
	}
	return 0;
}

int pq_dict_put_bytes(pq_dict *d, const uint32_t *offsets, const uint8_t *data,
                      size_t lo, size_t hi, uint32_t *idx)
{
	size_t i;
	for (i = lo; i < hi; i++) {
		const uint8_t *v = data + offsets[i];
		uint32_t len = offsets[i + 1] - offsets[i];
		uint32_t h = hash_bytes(v, len);
		size_t pos;
		LOOM_TRY(probe_start(d, h, &pos));
		for (;;) {
			uint32_t e = d->slots[pos];
			if (!e) {
				uint8_t lenb[4];
				LOOM_TRY(new_slot(d, h, &pos));
				if (d->plain.size + 4 + (size_t)len > UINT32_MAX)
					return loom_err(LOOM_EUNSUPPORTED, LOOM_ERRCLASS_PARQUET,
					                "dictionary page over 4 GiB");
				d->entry_off[d->count] = (uint32_t)d->plain.size;
				lenb[0] = (uint8_t)len;
				lenb[1] = (uint8_t)(len >> 8);
				lenb[2] = (uint8_t)(len >> 16);
				lenb[3] = (uint8_t)(len >> 24);
				LOOM_TRY(loom_buf_put(&d->plain, lenb, 4));
				LOOM_TRY(loom_buf_put(&d->plain, v, len));
				d->entry_hash[d->count] = h;
				d->slots[pos] = (uint32_t)(d->count + 1);
				idx[i - lo] = (uint32_t)d->count++;
				break;
			}
			if (d->entry_hash[e - 1] == h) {
				const uint8_t *q = (const uint8_t *)d->plain.ptr + d->entry_off[e - 1];
				uint32_t qlen = (uint32_t)q[0] | (uint32_t)q[1] << 8 |
				                (uint32_t)q[2] << 16 | (uint32_t)q[3] << 24;
				if (qlen == len && memcmp(q + 4, v, len) == 0) {
					idx[i - lo] = e - 1;
					break;
				}
			}
			pos = (pos + 1) & (d->cap - 1);
		}
	}
	return 0;
}
