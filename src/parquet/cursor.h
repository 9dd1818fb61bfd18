/* parquet/cursor.h - walking a pq_column of a batch row by row, for code
 * that reads nested columns directly (Delta checkpoints: partitionValues
 * maps, deletionVector structs) without the JSON renderer.
 *
 *   pq_cursor k;
 *   pq_row_span sp;
 *   pq_cursor_init(&k, &batch.columns[i]);
 *   while (pq_cursor_next_row(&k, &sp) > 0)
 *       for (s = sp.slot_begin, v = sp.value_begin; s < sp.slot_end; s++)
 *           if (pq_column_def(col, s) == col->max_def)
 *               use value v++ (pq_column_bytes(col, v, &len) for BYTE_ARRAY)
 *           else: a null or an empty/absent ancestor at level def(s)
 *
 * A row of a column without repetition is exactly one slot. */
#ifndef LOOM_PARQUET_CURSOR_H
#define LOOM_PARQUET_CURSOR_H

#include <stddef.h>
#include <stdint.h>

#include "parquet/batch.h"

typedef struct pq_cursor {
	const pq_column *c;
	size_t slot, value;
} pq_cursor;

typedef struct pq_row_span {
	size_t slot_begin, slot_end;   /* level slots of the row */
	size_t value_begin;            /* index of the row's first non-null value */
	size_t num_values;             /* non-null values in the row */
} pq_row_span;

void pq_cursor_init(pq_cursor *k, const pq_column *c);
/* The next row: 1 with *sp filled, 0 at the end of the column. */
int pq_cursor_next_row(pq_cursor *k, pq_row_span *sp);

/* Level of slot `s` (max_def / 0 when the column has no such levels). */
static inline int16_t pq_column_def(const pq_column *c, size_t s)
{
	return c->def_levels ? c->def_levels[s] : c->max_def;
}
static inline int16_t pq_column_rep(const pq_column *c, size_t s)
{
	return c->rep_levels ? c->rep_levels[s] : 0;
}
/* Value `v` of a BYTE_ARRAY column. */
static inline const uint8_t *pq_column_bytes(const pq_column *c, size_t v, size_t *len)
{
	*len = c->offsets[v + 1] - c->offsets[v];
	return c->data + c->offsets[v];
}

#endif
