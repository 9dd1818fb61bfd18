/* parquet/decode.h - page value and level decoders (internal to the
 * reader). All decoders are bounded by the bytes given and append into a
 * pq_column the caller owns, growing its arrays geometrically: no
 * allocation per value. `ctx` names the file/column in errors. */
#ifndef LOOM_PARQUET_DECODE_H
#define LOOM_PARQUET_DECODE_H

#include <stddef.h>
#include <stdint.h>

#include "parquet/batch.h"

/* ---- growing a column's arrays ---- */
int pq_col_reserve_levels(pq_column *c, size_t total_levels);
int pq_col_reserve_values(pq_column *c, size_t total_values);   /* fixed width and offsets */
int pq_col_reserve_data(pq_column *c, size_t total_bytes);       /* BYTE_ARRAY bytes */

/* ---- RLE / bit-packed hybrid ---- */
typedef struct pq_rle {
	const uint8_t *p, *end;
	int bit_width;
	uint32_t run_left;       /* values left in the current run */
	int is_rle;
	uint32_t rle_value;
	const uint8_t *bp;       /* bit-packed run: next group start */
	uint32_t bp_buf[8];      /* one unpacked group of 8 */
	uint32_t bp_pos;         /* next index in bp_buf (8 = refill) */
	const char *ctx;
} pq_rle;

/* `bit_width` 0..32. */
void pq_rle_init(pq_rle *r, const uint8_t *p, size_t len, int bit_width, const char *ctx);
/* Decode exactly n values. */
int pq_rle_get_u32(pq_rle *r, uint32_t *out, size_t n);
int pq_rle_get_i16(pq_rle *r, int16_t *out, size_t n);
int pq_rle_get_u8(pq_rle *r, uint8_t *out, size_t n);

/* Bits needed for values up to max_level. */
int pq_bit_width(uint32_t max_value);

/* Unpack n values of `w` bits (LSB-first, as Parquet packs) from p, which
 * must hold ceil(n*w/8) bytes. */
void pq_unpack_bits(const uint8_t *p, int w, uint32_t *out, size_t n);

/* ---- levels ---- */
/* Decode n levels (max `max_level`) with `encoding` (RLE or BIT_PACKED).
 * v1 pages: RLE data is preceded by a 4-byte length (`len_prefixed`).
 * *consumed gets the bytes used. */
int pq_decode_levels(int encoding, int len_prefixed, const uint8_t *p, size_t len,
                     int16_t max_level, int16_t *out, size_t n, size_t *consumed,
                     const char *ctx);

/* ---- values ---- */
/* A decoded dictionary: a pq_column holding its values. */
int pq_decode_plain(pq_column *c, const uint8_t *p, size_t len, size_t n, const char *ctx);
/* Dictionary gathers and DELTA_BYTE_ARRAY prefixes expand small input to
 * large output: `max_bytes` bounds the column's value bytes (fixed-width
 * values or byte-array data) after the call; beyond it LOOM_ENOMEM. */
int pq_decode_dict_indices(pq_column *c, const pq_column *dict, const uint8_t *p,
                           size_t len, size_t n, size_t max_bytes, const char *ctx);
int pq_decode_bool_rle(pq_column *c, const uint8_t *p, size_t len, size_t n, const char *ctx);
int pq_decode_delta_binary(pq_column *c, const uint8_t *p, size_t len, size_t n, const char *ctx);
int pq_decode_delta_length(pq_column *c, const uint8_t *p, size_t len, size_t n, const char *ctx);
int pq_decode_delta_byte_array(pq_column *c, const uint8_t *p, size_t len, size_t n,
                               size_t max_bytes, const char *ctx);
int pq_decode_byte_stream_split(pq_column *c, const uint8_t *p, size_t len, size_t n, const char *ctx);

/* DELTA_BINARY_PACKED into 64-bit integers: decodes exactly n values (the
 * stream must hold at least n) and reports the bytes the encoded stream
 * occupies in *consumed (for the DELTA_*_BYTE_ARRAY encodings). */
int pq_delta_decode_i64(const uint8_t *p, size_t len, int64_t *out, size_t n,
                        size_t *consumed, size_t *total_in_stream, const char *ctx);

#endif
