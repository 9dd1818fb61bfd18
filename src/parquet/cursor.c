/* parquet/cursor.c - row spans of a batch column. */
#include "parquet/cursor.h"

void pq_cursor_init(pq_cursor *k, const pq_column *c)
{
	k->c = c;
	k->slot = 0;
	k->value = 0;
}

int pq_cursor_next_row(pq_cursor *k, pq_row_span *sp)
{
	const pq_column *c = k->c;
	size_t s = k->slot, nv = 0;
	if (s >= c->num_levels)
		return 0;
	sp->slot_begin = s;
	sp->value_begin = k->value;
	do {
		nv += pq_column_def(c, s) == c->max_def;
		s++;
	} while (s < c->num_levels && pq_column_rep(c, s) != 0);
	sp->slot_end = s;
	sp->num_values = nv;
	k->slot = s;
	k->value += nv;
	return 1;
}
