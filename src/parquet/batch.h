/* parquet/batch.h - the in-memory column batch: what the reader yields, the
 * writer consumes, and the rewrite pipeline (compaction, Z-order) moves.
 *
 * A batch holds `num_rows` rows of a set of leaf columns (the Dremel
 * shredding of the schema: one pq_column per leaf). For each leaf:
 *   - def_levels / rep_levels: one entry per level slot (num_levels), NULL
 *     when the leaf's max level is 0 (then num_levels == number of values);
 *   - values: only the non-null values (num_values of them), densely packed:
 *       BOOLEAN      1 byte each (0/1)
 *       INT32/FLOAT  4 bytes, INT64/DOUBLE 8 bytes, INT96 12 bytes,
 *       FIXED_LEN_BYTE_ARRAY type_length bytes (all little-endian as in
 *       PLAIN encoding);
 *     BYTE_ARRAY values are `offsets` (num_values + 1 entries, offsets[0]
 *     == 0) into `data`.
 * A row starts at each level slot whose rep level is 0 (every slot when
 * max_rep == 0). A slot holds a value iff its def level == max_def.
 *
 * Memory: a batch owns its arrays (allocated with util/alloc.h) unless
 * `borrowed` is set, in which case they point into memory owned by whoever
 * produced the batch (a reader's decoded page buffers) and are valid until
 * that producer's next call. pq_batch_free releases owned arrays only.
 */
#ifndef LOOM_PARQUET_BATCH_H
#define LOOM_PARQUET_BATCH_H

#include <stddef.h>
#include <stdint.h>

#include "parquet/types.h"

typedef struct pq_column {
	pq_physical_type type;
	int32_t type_length;      /* FIXED_LEN_BYTE_ARRAY width; 0 otherwise */
	int16_t max_def, max_rep;

	size_t num_levels;        /* level slots (>= num_values) */
	int16_t *def_levels;      /* NULL when max_def == 0 */
	int16_t *rep_levels;      /* NULL when max_rep == 0 */

	size_t num_values;        /* non-null values */
	uint8_t *values;          /* fixed-width values; NULL for BYTE_ARRAY */
	uint32_t *offsets;        /* BYTE_ARRAY: num_values + 1 entries */
	uint8_t *data;            /* BYTE_ARRAY bytes */
	size_t data_size;         /* bytes used in data */

	/* capacities of the owned arrays (for appending) */
	size_t levels_cap, values_cap, offsets_cap, data_cap;
} pq_column;

typedef struct pq_batch {
	size_t num_rows;
	size_t num_columns;
	pq_column *columns;       /* num_columns leaves, in schema leaf order */
	int borrowed;             /* arrays owned by the producer, see above */
} pq_batch;

/* Bytes of one fixed-width value of a column (0 for BYTE_ARRAY). */
size_t pq_value_width(pq_physical_type type, int32_t type_length);

/* Allocate `ncols` zeroed columns; the caller fills type and levels. */
int pq_batch_init(pq_batch *b, size_t ncols);

/* Append one level slot (and its value when def == max_def) to a column
 * the batch owns. `value`/`len` are ignored for nulls; for fixed-width
 * types `len` must be the width. */
int pq_column_append(pq_column *c, int16_t def, int16_t rep, const void *value,
                     size_t len);

/* Copy rows [row_begin, row_end) of `src` to the end of `dst` (same leaf
 * layout); dst must own its arrays. Used to cut, merge and permute. */
int pq_batch_append_rows(pq_batch *dst, const pq_batch *src, size_t row_begin,
                         size_t row_end);

/* Append level slots [lo, hi) of src, holding values [vlo, vhi), to the
 * end of dst (an owned column; its layout taken from src when empty). */
int pq_column_append_span(pq_column *dst, const pq_column *src, size_t lo, size_t hi, size_t vlo,
                          size_t vhi);

/* Reset to zero rows, keeping the allocations (owned batches only). */
void pq_batch_clear(pq_batch *b);

/* Release owned arrays and the column array. */
void pq_batch_free(pq_batch *b);

/* Approximate heap bytes held (for memory budgets). */
size_t pq_batch_memory(const pq_batch *b);

/* Bytes the batch's rows take (levels, values, offsets, data), however
 * much room its arrays have. */
size_t pq_batch_used_bytes(const pq_batch *b);

#endif
