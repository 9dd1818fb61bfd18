/* parquet/batch.c - the column batch: appending, copying row ranges. */
#include "parquet/batch.h"

#include <string.h>

#include "util/alloc.h"
#include "util/error.h"
#include "util/vec.h"

size_t pq_value_width(pq_physical_type type, int32_t type_length)
{
	switch (type) {
	case PQ_BOOLEAN: return 1;
	case PQ_INT32:
	case PQ_FLOAT: return 4;
	case PQ_INT64:
	case PQ_DOUBLE: return 8;
	case PQ_INT96: return 12;
	case PQ_FIXED_LEN_BYTE_ARRAY: return type_length > 0 ? (size_t)type_length : 0;
	case PQ_BYTE_ARRAY:
	default: return 0;
	}
}

int pq_batch_init(pq_batch *b, size_t ncols)
{
	memset(b, 0, sizeof(*b));
	b->columns = loom_calloc(ncols ? ncols : 1, sizeof(pq_column));
	if (!b->columns)
		return loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_PARQUET, "out of memory for a %zu-column batch", ncols);
	b->num_columns = ncols;
	return 0;
}

static int reserve_levels(pq_column *c, size_t need)
{
	size_t cap = c->levels_cap;
	if (c->max_def > 0) {
		size_t cap_def = cap;
		LOOM_TRY(loom_array_grow((void **)&c->def_levels, &cap_def, need, sizeof(int16_t)));
		if (c->max_rep > 0) {
			size_t cap_rep = cap;
			LOOM_TRY(loom_array_grow((void **)&c->rep_levels, &cap_rep, need, sizeof(int16_t)));
		}
		c->levels_cap = cap_def;
	} else if (c->max_rep > 0) {
		LOOM_TRY(loom_array_grow((void **)&c->rep_levels, &c->levels_cap, need, sizeof(int16_t)));
	}
	return 0;
}

static int append_value(pq_column *c, const void *value, size_t len)
{
	if (c->type == PQ_BYTE_ARRAY) {
		if (c->data_size + len > UINT32_MAX)
			return loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_PARQUET,
			                "column batch over 4 GiB of byte-array data");
		LOOM_TRY(loom_array_grow((void **)&c->offsets, &c->offsets_cap, c->num_values + 2, sizeof(uint32_t)));
		LOOM_TRY(loom_array_grow((void **)&c->data, &c->data_cap, c->data_size + len, 1));
		if (c->num_values == 0)
			c->offsets[0] = 0;
		if (len)
			memcpy(c->data + c->data_size, value, len);
		c->data_size += len;
		c->offsets[c->num_values + 1] = (uint32_t)c->data_size;
	} else {
		size_t w = pq_value_width(c->type, c->type_length);
		if (len != w)
			return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_PARQUET,
			                "value of %zu bytes for a column of %zu-byte values", len, w);
		LOOM_TRY(loom_array_grow((void **)&c->values, &c->values_cap, (c->num_values + 1) * w, 1));
		memcpy(c->values + c->num_values * w, value, w);
	}
	c->num_values++;
	return 0;
}

int pq_column_append(pq_column *c, int16_t def, int16_t rep, const void *value, size_t len)
{
	LOOM_TRY(reserve_levels(c, c->num_levels + 1));
	if (c->def_levels)
		c->def_levels[c->num_levels] = def;
	if (c->rep_levels)
		c->rep_levels[c->num_levels] = rep;
	c->num_levels++;
	if (def == c->max_def)
		return append_value(c, value, len);
	return 0;
}

/* Level-slot range [*lo, *hi) and value range [*vlo, *vhi) of rows
 * [row_begin, row_end) in column c. Linear scan; callers copying many
 * ranges from one batch should prefer whole-batch copies. */
static void row_span(const pq_column *c, size_t row_begin, size_t row_end,
                     size_t *lo, size_t *hi, size_t *vlo, size_t *vhi)
{
	size_t slot, values = 0;

	if (c->max_rep == 0) {
		*lo = row_begin;
		*hi = row_end;
		if (c->max_def == 0) {
			*vlo = row_begin;
			*vhi = row_end;
			return;
		}
		for (slot = 0; slot < row_begin; slot++)
			values += c->def_levels[slot] == c->max_def;
		*vlo = values;
		for (; slot < row_end; slot++)
			values += c->def_levels[slot] == c->max_def;
		*vhi = values;
		return;
	}
	{
		long row_of_slot = -1;
		int have_lo = 0;
		for (slot = 0; slot < c->num_levels; slot++) {
			if (c->rep_levels[slot] == 0) {
				row_of_slot++;
				if (!have_lo && (size_t)row_of_slot == row_begin) {
					*lo = slot;
					*vlo = values;
					have_lo = 1;
				}
				if ((size_t)row_of_slot == row_end) {
					*hi = slot;
					*vhi = values;
					return;
				}
			}
			if (!c->def_levels || c->def_levels[slot] == c->max_def)
				values++;
		}
		if (!have_lo) {
			*lo = c->num_levels;
			*vlo = values;
		}
		*hi = c->num_levels;
		*vhi = values;
	}
}

static int append_span(pq_column *d, const pq_column *s, size_t lo, size_t hi,
                       size_t vlo, size_t vhi)
{
	size_t n = hi - lo, nv = vhi - vlo;

	LOOM_TRY(reserve_levels(d, d->num_levels + n));
	if (d->def_levels)
		memcpy(d->def_levels + d->num_levels, s->def_levels + lo, n * sizeof(int16_t));
	if (d->rep_levels)
		memcpy(d->rep_levels + d->num_levels, s->rep_levels + lo, n * sizeof(int16_t));
	d->num_levels += n;
	if (s->type == PQ_BYTE_ARRAY) {
		size_t bytes = nv ? s->offsets[vhi] - s->offsets[vlo] : 0, i;
		uint32_t base;
		if (d->data_size + bytes > UINT32_MAX)
			return loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_PARQUET,
			                "column batch over 4 GiB of byte-array data");
		LOOM_TRY(loom_array_grow((void **)&d->offsets, &d->offsets_cap, d->num_values + nv + 1, sizeof(uint32_t)));
		LOOM_TRY(loom_array_grow((void **)&d->data, &d->data_cap, d->data_size + bytes, 1));
		if (d->num_values == 0)
			d->offsets[0] = 0;
		if (bytes)
			memcpy(d->data + d->data_size, s->data + s->offsets[vlo], bytes);
		base = (uint32_t)d->data_size - (nv ? s->offsets[vlo] : 0);
		for (i = 0; i < nv; i++)
			d->offsets[d->num_values + 1 + i] = s->offsets[vlo + 1 + i] + base;
		d->data_size += bytes;
	} else {
		size_t w = pq_value_width(s->type, s->type_length);
		LOOM_TRY(loom_array_grow((void **)&d->values, &d->values_cap, (d->num_values + nv) * w, 1));
		if (nv)
			memcpy(d->values + d->num_values * w, s->values + vlo * w, nv * w);
	}
	d->num_values += nv;
	return 0;
}

int pq_batch_append_rows(pq_batch *dst, const pq_batch *src, size_t row_begin, size_t row_end)
{
	size_t i;
	if (dst->borrowed)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_PARQUET, "cannot append to a borrowed batch");
	if (dst->num_columns != src->num_columns)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_PARQUET,
		                "batch column counts differ (%zu vs %zu)", dst->num_columns, src->num_columns);
	if (row_end > src->num_rows || row_begin > row_end)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_PARQUET,
		                "row range [%zu, %zu) outside a %zu-row batch", row_begin, row_end, src->num_rows);
	for (i = 0; i < src->num_columns; i++) {
		const pq_column *s = &src->columns[i];
		pq_column *d = &dst->columns[i];
		size_t lo = 0, hi = 0, vlo = 0, vhi = 0;
		if (d->num_levels == 0 && d->num_values == 0) {
			d->type = s->type;
			d->type_length = s->type_length;
			d->max_def = s->max_def;
			d->max_rep = s->max_rep;
		}
		row_span(s, row_begin, row_end, &lo, &hi, &vlo, &vhi);
		LOOM_TRY(append_span(d, s, lo, hi, vlo, vhi));
	}
	dst->num_rows += row_end - row_begin;
	return 0;
}

static void adopt_layout(pq_column *d, const pq_column *s)
{
	if (d->num_levels == 0 && d->num_values == 0) {
		d->type = s->type;
		d->type_length = s->type_length;
		d->max_def = s->max_def;
		d->max_rep = s->max_rep;
	}
}

int pq_column_append_span(pq_column *dst, const pq_column *src, size_t lo, size_t hi, size_t vlo,
                          size_t vhi)
{
	adopt_layout(dst, src);
	return append_span(dst, src, lo, hi, vlo, vhi);
}

void pq_batch_clear(pq_batch *b)
{
	size_t i;
	for (i = 0; i < b->num_columns; i++) {
		pq_column *c = &b->columns[i];
		c->num_levels = c->num_values = c->data_size = 0;
	}
	b->num_rows = 0;
}

void pq_batch_free(pq_batch *b)
{
	size_t i;
	if (!b->columns)
		return;
	if (!b->borrowed) {
		for (i = 0; i < b->num_columns; i++) {
			pq_column *c = &b->columns[i];
			loom_free(c->def_levels);
			loom_free(c->rep_levels);
			loom_free(c->values);
			loom_free(c->offsets);
			loom_free(c->data);
		}
	}
	loom_free(b->columns);
	memset(b, 0, sizeof(*b));
}

size_t pq_batch_memory(const pq_batch *b)
{
	size_t i, total = 0;
	for (i = 0; i < b->num_columns; i++) {
		const pq_column *c = &b->columns[i];
		total += c->levels_cap * sizeof(int16_t) * ((c->def_levels != NULL) + (c->rep_levels != NULL));
		total += c->values_cap + c->offsets_cap * sizeof(uint32_t) + c->data_cap;
	}
	return total;
}

size_t pq_batch_used_bytes(const pq_batch *b)
{
	size_t i, total = 0;
	for (i = 0; i < b->num_columns; i++) {
		const pq_column *c = &b->columns[i];
		total += c->num_levels * sizeof(int16_t) * ((c->def_levels != NULL) + (c->rep_levels != NULL));
		if (c->type == PQ_BYTE_ARRAY)
			total += (c->num_values + 1) * sizeof(uint32_t) + c->data_size;
		else
			total += c->num_values * pq_value_width(c->type, c->type_length);
	}
	return total;
}
