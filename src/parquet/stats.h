/* parquet/stats.h - value ordering per logical type and min/max/null-count
 * accumulation, shared by the writer, the Delta stats code and Z-order.
 *
 * Values are PLAIN bytes as in parquet/batch.h: BOOLEAN one byte 0/1,
 * INT32/FLOAT 4 and INT64/DOUBLE 8 bytes little-endian, FIXED_LEN_BYTE_ARRAY
 * and BYTE_ARRAY the raw bytes (no length prefix).
 */
#ifndef LOOM_PARQUET_STATS_H
#define LOOM_PARQUET_STATS_H

#include <stddef.h>
#include <stdint.h>

#include "parquet/types.h"
#include "util/buf.h"

/* How values of a leaf are ordered (Parquet's ColumnOrder TypeDefinedOrder). */
typedef enum pq_cmp_kind {
	PQ_CMP_NONE = 0,       /* no defined order (INT96, INTERVAL, FLOAT16): no min/max */
	PQ_CMP_BOOL,           /* false < true */
	PQ_CMP_I32,            /* signed: plain INT32, INT_8/16/32, DATE, TIME, DECIMAL */
	PQ_CMP_U32,            /* UINT_8/16/32, INTEGER(signed=false) */
	PQ_CMP_I64,
	PQ_CMP_U64,
	PQ_CMP_FLOAT,          /* IEEE; NaN excluded from stats, -0.0 == +0.0 */
	PQ_CMP_DOUBLE,
	PQ_CMP_BYTES,          /* lexicographic unsigned bytes: strings, binary */
	PQ_CMP_DECIMAL_BYTES   /* big-endian two's complement (DECIMAL on (FL)BA) */
} pq_cmp_kind;

/* The order of a leaf from its physical, converted and logical type. */
pq_cmp_kind pq_cmp_kind_of(const pq_schema_node *leaf);

/* Whether the deprecated Statistics.min/max (signed order) may be written
 * next to min_value/max_value: true for BOOL, I32, I64, FLOAT, DOUBLE. */
int pq_cmp_legacy_ok(pq_cmp_kind k);

/* Compare two PLAIN values of one leaf: <0, 0, >0. Floats: -0.0 == +0.0 and
 * NaN sorts after every number (NaNs equal), a total order usable for
 * sorting (Z-order, compaction). PQ_CMP_NONE compares bytes unsigned. */
int pq_value_cmp(pq_cmp_kind k, const void *a, size_t alen, const void *b, size_t blen);

/* A min and a max, PLAIN values borrowed from a footer's statistics; min
 * NULL: no value yet. */
typedef struct pq_value_range {
	const uint8_t *min, *max;
	size_t min_len, max_len;
} pq_value_range;

/* Widen `r` to take in `add` (both of its ends set), in the order k. */
void pq_value_range_widen(pq_value_range *r, pq_cmp_kind k, const pq_value_range *add);

/* A running min / max / null count. */
typedef struct pq_stats {
	pq_cmp_kind kind;
	size_t width;          /* fixed-width value bytes; 0 for BYTE_ARRAY */
	int64_t null_count;
	int64_t num_values;    /* non-null values seen */
	int has_minmax;        /* 0 when no (non-NaN) value was seen or kind NONE */
	loom_buf min, max;     /* PLAIN bytes */
} pq_stats;

void pq_stats_init(pq_stats *s, pq_cmp_kind kind, size_t width);
/* Back to empty, keeping allocations. */
void pq_stats_reset(pq_stats *s);
void pq_stats_dispose(pq_stats *s);
/* Add n fixed-width values (width bytes each; BOOLEAN 1 byte). */
int pq_stats_add_fixed(pq_stats *s, const uint8_t *vals, size_t n);
/* Add BYTE_ARRAY values lo..hi-1 of an offsets/data pair. */
int pq_stats_add_bytes(pq_stats *s, const uint32_t *offsets, const uint8_t *data,
                       size_t lo, size_t hi);
/* Fold src into dst (same kind). */
int pq_stats_merge(pq_stats *dst, const pq_stats *src);
/* Copy (dst initialised or disposed-and-zeroed by the caller). */
int pq_stats_copy(pq_stats *dst, const pq_stats *src);

#endif
