/* ops/zorder/zcurve.h - the key math of Z-order clustering: order-preserving
 * unsigned encodings of Parquet values, and the Morton (Z) and Hilbert
 * curves over per-column ranks.
 *
 * Ranks are `bits` wide (1..32) per column; n * bits <= 64. Both curves
 * take the most significant bit of every column first, so the key's high
 * bits split the space in halves along each axis in turn (delta-rs
 * interleaves the bytes' bits least significant first, which breaks the
 * recursion inside every byte). */
#ifndef LOOM_OPS_ZCURVE_H
#define LOOM_OPS_ZCURVE_H

#include <stddef.h>
#include <stdint.h>

#include "parquet/stats.h"

#define ZC_MAX_DIMS 64

typedef enum zc_curve { ZC_CURVE_Z = 0, ZC_CURVE_HILBERT = 1 } zc_curve;

/* 1 when values of `kind` are fixed-width and zc_encode_fixed orders them. */
int zc_kind_is_fixed(pq_cmp_kind kind);

/* An unsigned integer whose order is the kind's value order (pq_value_cmp):
 * signed ints with the sign bit flipped, floats/doubles by the IEEE trick
 * with -0.0 == +0.0 and every NaN last, booleans 0/1. `v` holds one PLAIN
 * value of the kind's width. */
uint64_t zc_encode_fixed(pq_cmp_kind kind, const uint8_t *v);

/* INT96 timestamps (nanos of day LE int64, Julian day LE int32) as an
 * ordered unsigned integer of microseconds. */
uint64_t zc_encode_int96(const uint8_t *v);

/* Interleave ranks[0..n) (each < 2^bits), most significant bits first. */
uint64_t zc_morton(const uint32_t *ranks, size_t n, unsigned bits);

/* The Hilbert index of the point ranks[0..n) (Skilling's transpose
 * algorithm); ranks are not modified. */
uint64_t zc_hilbert(const uint32_t *ranks, size_t n, unsigned bits);

/* The same for any n, without zc_hilbert's fast paths (which the unit
 * tests check against it). */
uint64_t zc_hilbert_generic(const uint32_t *ranks, size_t n, unsigned bits);

uint64_t zc_key(zc_curve curve, const uint32_t *ranks, size_t n, unsigned bits);

/* Sort keys[0..n) ascending, permuting idx alongside (LSD radix sort over
 * the low `key_bits` bits; stable). `tmp_keys`/`tmp_idx` hold n entries. */
void zc_sort(uint64_t *keys, uint32_t *idx, uint64_t *tmp_keys, uint32_t *tmp_idx, size_t n,
             unsigned key_bits);

#endif
