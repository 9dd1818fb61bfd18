/* ops/zorder/zorder_gather.c - linear-time row gather for column batches. */
#include "ops/zorder/zorder_gather.h"

#include <string.h>

#include "util/alloc.h"
#include "util/error.h"
#include "util/threadpool.h"
#include "util/vec.h"

#define GERR(...) loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_OPS, __VA_ARGS__)

void zg_index_dispose(zg_index *ix)
{
	size_t i;
	for (i = 0; i < ix->num_columns; i++) {
		if (ix->slot)
			loom_free(ix->slot[i]);
		if (ix->value)
			loom_free(ix->value[i]);
	}
	loom_free(ix->slot);
	loom_free(ix->value);
	memset(ix, 0, sizeof(*ix));
}

size_t zg_index_bytes(const pq_batch *src)
{
	size_t i, total = 0;
	for (i = 0; i < src->num_columns; i++) {
		const pq_column *c = &src->columns[i];
		total += (size_t)((c->max_rep > 0) + (c->max_def > 0 || c->max_rep > 0)) *
		         (src->num_rows + 1) * sizeof(uint32_t);
	}
	return total;
}

int zg_index_build(zg_index *ix, const pq_batch *src)
{
	size_t i, s, n = src->num_rows;
	memset(ix, 0, sizeof(*ix));
	ix->num_columns = src->num_columns;
	ix->slot = loom_calloc(src->num_columns ? src->num_columns : 1, sizeof(uint32_t *));
	ix->value = loom_calloc(src->num_columns ? src->num_columns : 1, sizeof(uint32_t *));
	if (!ix->slot || !ix->value)
		return GERR("out of memory indexing a batch");
	if (n >= UINT32_MAX)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_OPS, "batch of %zu rows is too large to sort", n);
	for (i = 0; i < src->num_columns; i++) {
		const pq_column *c = &src->columns[i];
		uint32_t *sl = NULL, *va, row = 0, vals = 0;
		if (c->max_rep == 0 && (c->max_def == 0 || c->num_values == n))
			continue; /* flat, no nulls: row i is value i */
		va = loom_malloc((n + 1) * sizeof(uint32_t));
		if (c->max_rep > 0)
			sl = loom_malloc((n + 1) * sizeof(uint32_t));
		ix->value[i] = va;
		ix->slot[i] = sl;
		if (!va || (c->max_rep > 0 && !sl))
			return GERR("out of memory indexing a batch");
		if (!sl) {
			/* flat: one level per row, a value where def == max_def */
			const int16_t *d = c->def_levels, mx = c->max_def;
			if (c->num_levels != n)
				return loom_err(LOOM_ECORRUPT, LOOM_ERRCLASS_OPS,
				                "column %zu has %zu rows, its batch %zu", i, c->num_levels, n);
			for (s = 0; s < n; s++) {
				va[s] = vals;
				vals += d[s] == mx;
			}
			va[n] = vals;
			continue;
		}
		for (s = 0; s < c->num_levels; s++) {
			if (!c->rep_levels || c->rep_levels[s] == 0) {
				if (row >= n)
					return loom_err(LOOM_ECORRUPT, LOOM_ERRCLASS_OPS,
					                "column %zu has more rows than its batch (%zu)", i, n);
				if (sl)
					sl[row] = (uint32_t)s;
				va[row] = vals;
				row++;
			}
			if (!c->def_levels || c->def_levels[s] == c->max_def)
				vals++;
		}
		if (row != n)
			return loom_err(LOOM_ECORRUPT, LOOM_ERRCLASS_OPS,
			                "column %zu has %u rows, its batch %zu", i, row, n);
		if (sl)
			sl[n] = (uint32_t)c->num_levels;
		va[n] = vals;
	}
	return 0;
}

/* How far ahead (in rows) the flat gathers prefetch what they will read:
 * the rows come in key order, so each read is random and would otherwise
 * wait on a cache miss. A chain of loads (value index -> string offset ->
 * bytes) is fetched link by link, each link ZG_STEP rows after the one
 * it depends on. */
#define ZG_STEP 16

static inline size_t first_value(const uint32_t *va, uint32_t r)
{
	return va ? va[r] : r;
}

/* Room for nlev more levels (both level arrays share levels_cap). */
static int reserve_levels(pq_column *d, size_t nlev)
{
	size_t need = d->num_levels + nlev, nc, cap_def, cap_rep;
	if (need <= d->levels_cap || (d->max_def == 0 && d->max_rep == 0))
		return 0;
	nc = d->levels_cap ? d->levels_cap : 64;
	while (nc < need)
		nc *= 2;
	cap_def = cap_rep = d->levels_cap;
	if (d->max_def > 0)
		LOOM_TRY(loom_array_grow((void **)&d->def_levels, &cap_def, nc, sizeof(int16_t)));
	if (d->max_rep > 0)
		LOOM_TRY(loom_array_grow((void **)&d->rep_levels, &cap_rep, nc, sizeof(int16_t)));
	d->levels_cap = nc;
	return 0;
}

/* Room for nval more values (and nbytes more bytes of byte arrays). */
static int reserve_values(pq_column *d, size_t nval, size_t nbytes, size_t w)
{
	if (d->type != PQ_BYTE_ARRAY)
		return loom_array_grow((void **)&d->values, &d->values_cap, (d->num_values + nval) * w + 1, 1);
	if (d->data_size + nbytes > UINT32_MAX)
		return GERR("column batch over 4 GiB of byte-array data");
	LOOM_TRY(loom_array_grow((void **)&d->offsets, &d->offsets_cap, d->num_values + nval + 1, sizeof(uint32_t)));
	LOOM_TRY(loom_array_grow((void **)&d->data, &d->data_cap, d->data_size + nbytes + 1, 1));
	if (d->num_values == 0)
		d->offsets[0] = 0;
	return 0;
}

/* Flat fixed-width: one level and at most one value per row, copied
 * without a memcpy call per row. Room for n rows is reserved. */
static void gather_flat_fixed(pq_column *d, const pq_column *s, const uint32_t *va, const uint32_t *rows,
                              size_t n, size_t w)
{
	int16_t *dd = d->def_levels && va ? d->def_levels + d->num_levels : NULL;
	uint8_t *dv = d->values + d->num_values * w;
	size_t j, nv = 0, k;
	for (j = 0; j < n; j++) {
		uint32_t r = rows[j];
		size_t v0 = va ? va[r] : r;
		if (va && j + 2 * ZG_STEP < n)
			__builtin_prefetch(va + rows[j + 2 * ZG_STEP]);
		if (j + ZG_STEP < n)
			__builtin_prefetch(s->values + first_value(va, rows[j + ZG_STEP]) * w);
		if (dd)
			dd[j] = s->def_levels[r];
		if (va && va[r + 1] == v0)
			continue;
		switch (w) {
		case 8: memcpy(dv + nv * 8, s->values + v0 * 8, 8); break;
		case 4: memcpy(dv + nv * 4, s->values + v0 * 4, 4); break;
		case 1: dv[nv] = s->values[v0]; break;
		default: /* INT96, FIXED_LEN_BYTE_ARRAY */
			for (k = 0; k < w; k++)
				dv[nv * w + k] = s->values[v0 * w + k];
		}
		nv++;
	}
	d->num_levels += n;
	d->num_values += nv;
}

/* Flat strings: one level and at most one value per row (room for n rows
 * reserved); the bytes' room grows as they are copied. Values are short,
 * so they are copied inline rather than with a memcpy call per row. */
static int gather_flat_bytes(pq_column *d, const pq_column *s, const uint32_t *va, const uint32_t *rows,
                             size_t n)
{
	int16_t *dd = d->def_levels && va ? d->def_levels + d->num_levels : NULL;
	uint32_t *off = d->offsets + d->num_values + 1;
	size_t j, nv = 0, pos = d->data_size;
	for (j = 0; j < n; j++) {
		uint32_t r = rows[j];
		size_t v0 = va ? va[r] : r, len, k;
		const uint8_t *from;
		uint8_t *out;
		if (va && j + 3 * ZG_STEP < n)
			__builtin_prefetch(va + rows[j + 3 * ZG_STEP]);
		if (j + 2 * ZG_STEP < n)
			__builtin_prefetch(s->offsets + first_value(va, rows[j + 2 * ZG_STEP]));
		if (j + ZG_STEP < n)
			__builtin_prefetch(s->data + s->offsets[first_value(va, rows[j + ZG_STEP])]);
		if (dd)
			dd[j] = s->def_levels[r];
		if (va && va[r + 1] == v0)
			continue;
		from = s->data + s->offsets[v0];
		len = s->offsets[v0 + 1] - s->offsets[v0];
		if (pos + len >= d->data_cap)
			LOOM_TRY(loom_array_grow((void **)&d->data, &d->data_cap, pos + len + 1, 1));
		out = d->data + pos;
		if (len > 64) {
			memcpy(out, from, len);
		} else {
			for (k = 0; k + 8 <= len; k += 8)
				memcpy(out + k, from + k, 8);
			for (; k < len; k++)
				out[k] = from[k];
		}
		pos += len;
		off[nv++] = (uint32_t)pos;
	}
	if (pos > UINT32_MAX)
		return GERR("column batch over 4 GiB of byte-array data");
	d->data_size = pos;
	d->num_levels += n;
	d->num_values += nv;
	return 0;
}

/* Repeated columns: sizes first (this pass also fetches what the copy
 * will read), then each row's levels and values copied as runs. */
static int gather_nested(pq_column *d, const pq_column *s, const uint32_t *sl, const uint32_t *va,
                         const uint32_t *rows, size_t n, size_t w)
{
	size_t j, nlev = 0, nval = 0, nbytes = 0;
	for (j = 0; j < n; j++) {
		uint32_t r = rows[j];
		size_t v0, v1;
		if (va && j + 2 * ZG_STEP < n)
			__builtin_prefetch(va + rows[j + 2 * ZG_STEP]);
		if (j + ZG_STEP < n && s->type == PQ_BYTE_ARRAY)
			__builtin_prefetch(s->offsets + first_value(va, rows[j + ZG_STEP]));
		else if (j + ZG_STEP < n)
			__builtin_prefetch(s->values + first_value(va, rows[j + ZG_STEP]) * w);
		v0 = va ? va[r] : r;
		v1 = va ? va[r + 1] : r + 1;
		nlev += sl[r + 1] - sl[r];
		nval += v1 - v0;
		if (s->type == PQ_BYTE_ARRAY) {
			nbytes += s->offsets[v1] - s->offsets[v0];
			__builtin_prefetch(s->data + s->offsets[v0]);
		}
	}
	LOOM_TRY(reserve_levels(d, nlev));
	LOOM_TRY(reserve_values(d, nval, nbytes, w));
	for (j = 0; j < n; j++) {
		uint32_t r = rows[j];
		size_t l0 = sl[r], l1 = sl[r + 1];
		size_t v0 = va ? va[r] : r, v1 = va ? va[r + 1] : r + 1, v;
		if (d->max_def > 0)
			memcpy(d->def_levels + d->num_levels, s->def_levels + l0, (l1 - l0) * sizeof(int16_t));
		if (d->max_rep > 0)
			memcpy(d->rep_levels + d->num_levels, s->rep_levels + l0, (l1 - l0) * sizeof(int16_t));
		d->num_levels += l1 - l0;
		if (s->type == PQ_BYTE_ARRAY) {
			size_t len = s->offsets[v1] - s->offsets[v0];
			if (len)
				memcpy(d->data + d->data_size, s->data + s->offsets[v0], len);
			for (v = v0; v < v1; v++)
				d->offsets[d->num_values + (v - v0) + 1] =
				    (uint32_t)(d->data_size + (s->offsets[v + 1] - s->offsets[v0]));
			d->data_size += len;
		} else if (v1 > v0) {
			memcpy(d->values + d->num_values * w, s->values + v0 * w, (v1 - v0) * w);
		}
		d->num_values += v1 - v0;
	}
	return 0;
}

static int gather_column(pq_column *d, const pq_column *s, const uint32_t *sl, const uint32_t *va,
                         const uint32_t *rows, size_t n)
{
	size_t j, w = pq_value_width(s->type, s->type_length);
	if (d->num_levels == 0 && d->num_values == 0) {
		d->type = s->type;
		d->type_length = s->type_length;
		d->max_def = s->max_def;
		d->max_rep = s->max_rep;
	}
	if (sl)
		return gather_nested(d, s, sl, va, rows, n, w);
	/* flat: room for n levels and values is enough (no sizing pass over
	 * the rows); byte arrays get room for their average length to start */
	LOOM_TRY(reserve_levels(d, n));
	if (s->type == PQ_BYTE_ARRAY) {
		size_t src_bytes = s->num_values ? s->offsets[s->num_values] - s->offsets[0] : 0;
		size_t est = s->num_values ? (size_t)((double)src_bytes / (double)s->num_values * (double)n) : 0;
		LOOM_TRY(reserve_values(d, n, est < UINT32_MAX - d->data_size ? est : 0, w));
	} else {
		LOOM_TRY(reserve_values(d, n, 0, w));
	}
	if (!va && d->def_levels) {
		/* flat without nulls: every level is max_def, not worth a random
		 * read each */
		int16_t *dd = d->def_levels + d->num_levels;
		for (j = 0; j < n; j++)
			dd[j] = s->max_def;
	}
	if (s->type != PQ_BYTE_ARRAY) {
		gather_flat_fixed(d, s, va, rows, n, w);
		return 0;
	}
	return gather_flat_bytes(d, s, va, rows, n);
}

int zg_gather(pq_batch *dst, const pq_batch *src, const zg_index *ix, const uint32_t *rows,
              size_t n)
{
	size_t i;
	if (dst->borrowed || dst->num_columns != src->num_columns)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_OPS, "gather: batches do not match");
	for (i = 0; i < src->num_columns; i++)
		LOOM_TRY(gather_column(&dst->columns[i], &src->columns[i], ix->slot[i], ix->value[i], rows, n));
	dst->num_rows += n;
	return 0;
}

typedef struct gather_task {
	pq_column *d;
	const pq_column *s;
	const uint32_t *sl, *va, *rows;
	size_t n;
	int rc;
	loom_error err;
} gather_task;

static void gather_task_run(void *arg)
{
	gather_task *t = arg;
	t->rc = gather_column(t->d, t->s, t->sl, t->va, t->rows, t->n);
	if (t->rc < 0)
		loom_err_copy(&t->err);
}

int zg_gather_pool(pq_batch *dst, const pq_batch *src, const zg_index *ix, const uint32_t *rows,
                   size_t n, loom_threadpool *pool)
{
	gather_task *t;
	loom_taskgroup g;
	size_t i;
	int rc = 0;
	if (!pool || src->num_columns < 2)
		return zg_gather(dst, src, ix, rows, n);
	if (dst->borrowed || dst->num_columns != src->num_columns)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_OPS, "gather: batches do not match");
	t = loom_calloc(src->num_columns, sizeof(*t));
	if (!t)
		return GERR("out of memory gathering rows");
	loom_taskgroup_init(&g, pool);
	for (i = 0; i < src->num_columns; i++) {
		t[i].d = &dst->columns[i];
		t[i].s = &src->columns[i];
		t[i].sl = ix->slot[i];
		t[i].va = ix->value[i];
		t[i].rows = rows;
		t[i].n = n;
		loom_taskgroup_run(&g, gather_task_run, &t[i]);
	}
	loom_taskgroup_wait(&g);
	for (i = 0; i < src->num_columns && rc == 0; i++)
		if (t[i].rc < 0)
			rc = loom_err(t[i].err.code, t[i].err.klass, "%s", t[i].err.message);
	loom_free(t);
	if (rc == 0)
		dst->num_rows += n;
	return rc;
}
