/* parquet/encode.h - page-level encoders for the writer: the RLE/bit-packed
 * hybrid (levels, dictionary indices), PLAIN for every physical type, and
 * the column-chunk dictionary (hash table over the value bytes).
 *
 * All encoders append to a loom_buf and return 0 or a negative LOOM_E*.
 * Values come in the layout of parquet/batch.h (fixed-width values already
 * PLAIN little-endian; BOOLEAN one byte 0/1; BYTE_ARRAY offsets + data).
 */
#ifndef LOOM_PARQUET_ENCODE_H
#define LOOM_PARQUET_ENCODE_H

#include <stddef.h>
#include <stdint.h>

#include "parquet/types.h"
#include "util/buf.h"

/* Bits needed for values 0..max (0 for max == 0). */
int pq_bit_width(uint32_t max);

/* RLE/bit-packed hybrid of n values of `bw` bits (0..32), no length
 * prefix. Runs of >= 8 equal values become RLE runs, the rest bit-packed
 * groups of 8 (the last group zero-padded). */
int pq_rle_encode_u32(loom_buf *out, const uint32_t *v, size_t n, int bw);
int pq_rle_encode_levels(loom_buf *out, const int16_t *v, size_t n, int bw);

/* PLAIN. BOOLEAN: n bytes 0/1 packed LSB-first into ceil(n/8) bytes. */
int pq_plain_encode_bool(loom_buf *out, const uint8_t *v, size_t n);
/* BYTE_ARRAY values lo..hi-1: 4-byte little-endian length + bytes each. */
int pq_plain_encode_bytes(loom_buf *out, const uint32_t *offsets,
                          const uint8_t *data, size_t lo, size_t hi);

/* A column chunk's dictionary: distinct values in first-seen order, kept as
 * the PLAIN body of the dictionary page, plus an open-addressing table of
 * entry numbers keyed by value bytes (no per-value allocation). */
typedef struct pq_dict {
	pq_physical_type type;
	size_t width;          /* fixed-width bytes; 0 for BYTE_ARRAY */
	loom_buf plain;        /* the dictionary page body */
	uint32_t *entry_off;   /* BYTE_ARRAY: offset of each entry's length prefix */
	uint32_t *entry_hash;  /* per entry, for rehashing without rereading */
	size_t count, entry_cap;
	uint32_t *slots;       /* entry + 1; 0 = empty */
	size_t cap;            /* power of two */
} pq_dict;

void pq_dict_init(pq_dict *d, pq_physical_type type, size_t width);
/* Forget every entry, keeping allocations. */
void pq_dict_reset(pq_dict *d);
void pq_dict_dispose(pq_dict *d);
/* Look up or insert n fixed-width values, writing their entry numbers. */
int pq_dict_put_fixed(pq_dict *d, const uint8_t *vals, size_t n, uint32_t *idx);
/* The same for BYTE_ARRAY values lo..hi-1. */
int pq_dict_put_bytes(pq_dict *d, const uint32_t *offsets, const uint8_t *data,
                      size_t lo, size_t hi, uint32_t *idx);

#endif
