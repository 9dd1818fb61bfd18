/* ops/zorder/zorder_keys.c - sampling, quantile boundaries, ranks, keys and key
 * ranges of Z-order. */
#include "ops/zorder/zorder_keys.h"

#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"
#include "util/error.h"

#define OPS_ERR(code, ...) loom_err((code), LOOM_ERRCLASS_OPS, __VA_ARGS__)

#define ZO_MAX_BOUNDS 4096
#define ZO_BYTES_PREFIX 64       /* sampled strings kept to this prefix */

/* ---- scratch ------------------------------------------------------------- */

void zscratch_dispose(zscratch *w)
{
	loom_free(w->ranks);
	loom_free(w->bkeys);
	loom_free(w->sel);
	loom_free(w->range);
	loom_free(w->pick_row);
	loom_free(w->pick_slot);
	memset(w, 0, sizeof(*w));
}

int zscratch_reserve(zscratch *w, size_t ncols, size_t rows)
{
	if (rows <= w->rows)
		return 0;
	zscratch_dispose(w);
	w->ranks = loom_malloc(rows * ncols * sizeof(uint32_t));
	w->bkeys = loom_malloc(rows * sizeof(uint64_t));
	w->sel = loom_malloc(rows * sizeof(uint32_t));
	w->range = loom_malloc(rows * sizeof(uint32_t));
	w->pick_row = loom_malloc(rows * sizeof(size_t));
	w->pick_slot = loom_malloc(rows * sizeof(size_t));
	if (!w->ranks || !w->bkeys || !w->sel || !w->range || !w->pick_row || !w->pick_slot)
		return OPS_ERR(LOOM_ENOMEM, "out of memory for %zu rows of Z-order keys", rows);
	w->rows = rows;
	return 0;
}

/* ---- setup --------------------------------------------------------------- */

int zkeys_init(zkeys *k, size_t ncols, zc_curve curve, unsigned bits, size_t sample_cap, uint64_t seed)
{
	memset(k, 0, sizeof(*k));
	k->n = ncols;
	k->curve = curve;
	k->bits = bits;
	k->sample_cap = sample_cap;
	k->rng = seed;
	k->cols = loom_calloc(ncols ? ncols : 1, sizeof(zsample));
	if (!k->cols)
		return OPS_ERR(LOOM_ENOMEM, "out of memory");
	return 0;
}

void zkeys_dispose(zkeys *k)
{
	size_t i, j;
	for (i = 0; k->cols && i < k->n; i++) {
		zsample *c = &k->cols[i];
		if (c->bytes)
			for (j = 0; j < k->sample_cap; j++)
				loom_free(c->bytes[j]);
		loom_free(c->bytes);
		loom_free(c->blen);
		loom_free(c->isnull);
		loom_free(c->code);
		loom_free(c->bcode);
		loom_free(c->rank_of_slot);
		loom_free(c->hint);
		loom_free(c->bbytes);
		loom_free(c->bblen);
	}
	loom_free(k->qkeys);
	loom_free(k->cols);
	memset(k, 0, sizeof(*k));
}

int zkeys_bind(zkeys *k, const pq_schema *schema, const char *const *phys, const char *const *names,
               uint8_t *proj)
{
	size_t c, l;
	for (c = 0; c < k->n; c++) {
		zsample *zs = &k->cols[c];
		long leaf = pq_schema_find_leaf(schema, phys[c]);
		zs->leaf = leaf;
		if (leaf < 0)
			continue; /* in no file: every row null */
		if (schema->leaves[leaf].max_rep > 0)
			return OPS_ERR(LOOM_EINVAL, "Z-order column '%s' is inside a list or map", names[c]);
		zs->kind = pq_cmp_kind_of(&schema->nodes[schema->leaves[leaf].node]);
		zs->int96 = schema->leaves[leaf].type == PQ_INT96;
		if (zs->kind == PQ_CMP_NONE && !zs->int96)
			return OPS_ERR(LOOM_EUNSUPPORTED, "Z-order column '%s': its Parquet type has no order", names[c]);
		zs->fixed = zs->int96 || zc_kind_is_fixed(zs->kind);
		zs->width = pq_value_width(schema->leaves[leaf].type, schema->leaves[leaf].type_length);
		zs->isnull = loom_calloc(k->sample_cap, 1);
		if (zs->fixed)
			zs->code = loom_calloc(k->sample_cap, sizeof(uint64_t));
		else {
			zs->bytes = loom_calloc(k->sample_cap, sizeof(uint8_t *));
			zs->blen = loom_calloc(k->sample_cap, sizeof(uint32_t));
		}
		if (!zs->isnull || (zs->fixed ? !zs->code : (!zs->bytes || !zs->blen)))
			return OPS_ERR(LOOM_ENOMEM, "out of memory for the Z-order sample");
		if (proj)
			proj[leaf] = 1;
	}
	/* a key-only batch holds the marked leaves in leaf order */
	for (c = 0; c < k->n; c++) {
		zsample *zs = &k->cols[c];
		zs->pcol = 0;
		for (l = 0; proj && zs->leaf >= 0 && l < (size_t)zs->leaf; l++)
			zs->pcol += proj[l];
	}
	return 0;
}

/* ---- ranks and keys ------------------------------------------------------ */

static uint64_t rng_next(uint64_t *s)
{
	uint64_t x = *s;
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return *s = x;
}

/* Row r's value of column pc (NULL: null); advances *vi past it. */
static const uint8_t *value_of(const pq_column *pc, size_t r, size_t *vi, size_t width, size_t *len)
{
	size_t v;
	if (pc->max_def > 0 && pc->def_levels[r] != pc->max_def)
		return NULL;
	v = (*vi)++;
	if (pc->type == PQ_BYTE_ARRAY) {
		*len = pc->offsets[v + 1] - pc->offsets[v];
		return pc->data + pc->offsets[v];
	}
	*len = width;
	return pc->values + v * width;
}

static uint32_t scale_slot(size_t slot, size_t nb, unsigned bits)
{
	uint64_t top = (bits >= 32 ? UINT64_C(0xffffffff) : ((UINT64_C(1) << bits) - 1));
	return (uint32_t)((uint64_t)slot * top / (uint64_t)(nb + 1));
}

/* Number of the len codes at base that are <= code (base ascending). */
static size_t count_le(const uint64_t *base, size_t len, uint64_t code)
{
	/* branch-free: the comparisons are unpredictable */
	const uint64_t *p = base;
	if (len == 0)
		return 0;
	while (len > 1) {
		size_t half = len / 2;
		p = p[half - 1] <= code ? p + half : p;
		len -= half;
	}
	return (size_t)(p - base) + (*p <= code);
}

/* Slot of a non-null value: 1 + number of boundaries <= it. The bucket of
 * the code (its distance above the lowest boundary, shifted) says which
 * few boundaries can be on either side of it, so the search is over those
 * instead of all of them: keying every row was 7 % of a Z-order. */
size_t zkeys_slot_fixed(const zsample *c, uint64_t code)
{
	size_t b, lo;
	if (c->nb == 0 || code < c->bcode[0])
		return 1;
	b = (size_t)((code - c->bcode[0]) >> c->hint_shift);
	if (b >= c->nhint)
		return 1 + c->nb;
	lo = c->hint[b];
	return 1 + lo + count_le(c->bcode + lo, c->hint[b + 1] - lo, code);
}

static size_t slot_bytes(const zsample *c, const uint8_t *v, size_t len)
{
	size_t lo = 0, hi = c->nb;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (pq_value_cmp(c->kind, c->bbytes[mid], c->bblen[mid], v, len) <= 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 1 + lo;
}

static uint64_t encode(const zsample *zs, const uint8_t *v)
{
	return zs->int96 ? zc_encode_int96(v) : zc_encode_fixed(zs->kind, v);
}

int zkeys_of_batch(const zkeys *k, zscratch *w, const pq_batch *b, uint64_t *keys)
{
	size_t n = k->n, rows = b->num_rows, c, r;
	LOOM_TRY(zscratch_reserve(w, n, rows));
	for (c = 0; c < n; c++) {
		const zsample *zs = &k->cols[c];
		const pq_column *pc;
		size_t vi = 0, len = 0;
		if (zs->leaf < 0) {
			for (r = 0; r < rows; r++)
				w->ranks[r * n + c] = 0;
			continue;
		}
		pc = &b->columns[zs->leaf];
		for (r = 0; r < rows; r++) {
			const uint8_t *v = value_of(pc, r, &vi, zs->width, &len);
			size_t slot = 0;
			if (v)
				slot = zs->fixed ? zkeys_slot_fixed(zs, encode(zs, v)) : slot_bytes(zs, v, len);
			w->ranks[r * n + c] = zs->rank_of_slot[slot];
		}
	}
	for (r = 0; r < rows; r++)
		keys[r] = zc_key(k->curve, &w->ranks[r * n], n, k->bits);
	return 0;
}

/* ---- sampling ------------------------------------------------------------ */

int zkeys_sample(zkeys *k, zscratch *w, const pq_batch *b)
{
	size_t rows = b->num_rows, npick = 0, r, c;
	LOOM_TRY(zscratch_reserve(w, k->n, rows));
	for (r = 0; r < rows; r++) {
		size_t slot;
		k->seen++;
		if (k->sample_n < k->sample_cap) {
			slot = k->sample_n++;
		} else {
			uint64_t j = rng_next(&k->rng) % k->seen;
			if (j >= k->sample_cap)
				continue;
			slot = (size_t)j;
		}
		w->pick_row[npick] = r;
		w->pick_slot[npick++] = slot;
	}
	for (c = 0; c < k->n; c++) {
		zsample *zs = &k->cols[c];
		const pq_column *pc;
		size_t vi = 0, j = 0, len = 0;
		if (zs->leaf < 0)
			continue;
		pc = &b->columns[zs->pcol];
		for (r = 0; r < rows && j < npick; r++) {
			const uint8_t *v = value_of(pc, r, &vi, zs->width, &len);
			for (; j < npick && w->pick_row[j] == r; j++) {
				size_t s = w->pick_slot[j];
				zs->isnull[s] = v == NULL;
				if (!v)
					continue;
				if (zs->fixed) {
					zs->code[s] = encode(zs, v);
				} else {
					size_t keep = zs->kind == PQ_CMP_BYTES && len > ZO_BYTES_PREFIX ? ZO_BYTES_PREFIX : len;
					uint8_t *copy = loom_malloc(keep ? keep : 1);
					if (!copy)
						return OPS_ERR(LOOM_ENOMEM, "out of memory sampling Z-order values");
					memcpy(copy, v, keep);
					loom_free(zs->bytes[s]);
					zs->bytes[s] = copy;
					zs->blen[s] = (uint32_t)keep;
				}
			}
		}
	}
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

typedef struct bref {
	const uint8_t *p;
	uint32_t len;
	pq_cmp_kind kind;
} bref;

static int cmp_bref(const void *a, const void *b)
{
	const bref *x = a, *y = b;
	return pq_value_cmp(x->kind, x->p, x->len, y->p, y->len);
}

int zkeys_build_bounds(zkeys *k)
{
	size_t c, i, top = ((size_t)1 << k->bits) - 2;
	if (top > ZO_MAX_BOUNDS)
		top = ZO_MAX_BOUNDS;
	for (c = 0; c < k->n; c++) {
		zsample *zs = &k->cols[c];
		size_t m = 0, want;
		if (zs->leaf < 0)
			continue;
		if (zs->fixed) {
			uint64_t *v = loom_malloc((k->sample_n + 1) * sizeof(uint64_t));
			if (!v)
				return OPS_ERR(LOOM_ENOMEM, "out of memory building Z-order boundaries");
			for (i = 0; i < k->sample_n; i++)
				if (!zs->isnull[i])
					v[m++] = zs->code[i];
			qsort(v, m, sizeof(*v), cmp_u64);
			want = m < top ? m : top;
			zs->bcode = loom_malloc((want + 1) * sizeof(uint64_t));
			if (!zs->bcode) {
				loom_free(v);
				return OPS_ERR(LOOM_ENOMEM, "out of memory building Z-order boundaries");
			}
			/* duplicates kept: a value's rank is its position in the
			 * distribution, so a value holding 40 % of the rows sits 40 %
			 * up the axis and the rest spread by mass */
			for (i = 0; i < want; i++)
				zs->bcode[zs->nb++] = v[(i + 1) * m / (want + 1)];
			loom_free(v);
		} else {
			bref *v = loom_malloc((k->sample_n + 1) * sizeof(bref));
			if (!v)
				return OPS_ERR(LOOM_ENOMEM, "out of memory building Z-order boundaries");
			for (i = 0; i < k->sample_n; i++)
				if (!zs->isnull[i]) {
					v[m].p = zs->bytes[i];
					v[m].len = zs->blen[i];
					v[m++].kind = zs->kind;
				}
			qsort(v, m, sizeof(*v), cmp_bref);
			want = m < top ? m : top;
			zs->bbytes = loom_malloc((want + 1) * sizeof(*zs->bbytes));
			zs->bblen = loom_malloc((want + 1) * sizeof(*zs->bblen));
			if (!zs->bbytes || !zs->bblen) {
				loom_free(v);
				return OPS_ERR(LOOM_ENOMEM, "out of memory building Z-order boundaries");
			}
			for (i = 0; i < want; i++) {
				const bref *q = &v[(i + 1) * m / (want + 1)];
				zs->bbytes[zs->nb] = q->p;
				zs->bblen[zs->nb++] = q->len;
			}
			loom_free(v);
		}
	}
	return zkeys_finish_bounds(k);
}

/* Buckets of equal code width from the lowest boundary to the highest, at
 * most ZO_HINT_BUCKETS of them; hint[b] = boundaries in buckets below b.
 * Every boundary of a bucket below the code's is below the code, every one
 * of a bucket above it is above: only the code's own bucket is searched. */
#define ZO_HINT_BUCKETS 4096
static int build_hint(zsample *zs)
{
	uint64_t span;
	size_t i, b = 0;
	loom_free(zs->hint);
	zs->hint = NULL;
	zs->nhint = 0;
	zs->hint_shift = 0;
	if (!zs->fixed || zs->nb == 0 || !zs->bcode)
		return 0;
	span = zs->bcode[zs->nb - 1] - zs->bcode[0];
	while ((span >> zs->hint_shift) >= ZO_HINT_BUCKETS)
		zs->hint_shift++;
	zs->nhint = (size_t)(span >> zs->hint_shift) + 1;
	zs->hint = loom_malloc((zs->nhint + 1) * sizeof(uint32_t));
	if (!zs->hint)
		return OPS_ERR(LOOM_ENOMEM, "out of memory building Z-order boundaries");
	for (i = 0; i < zs->nb; i++) {
		size_t bi = (size_t)((zs->bcode[i] - zs->bcode[0]) >> zs->hint_shift);
		while (b <= bi)
			zs->hint[b++] = (uint32_t)i;
	}
	while (b <= zs->nhint)
		zs->hint[b++] = (uint32_t)zs->nb;
	return 0;
}

int zkeys_finish_bounds(zkeys *k)
{
	size_t c, i;
	for (c = 0; c < k->n; c++) {
		zsample *zs = &k->cols[c];
		/* slots run from 0 (null) to nb + 1 (above every boundary) */
		loom_free(zs->rank_of_slot);
		zs->rank_of_slot = loom_malloc((zs->nb + 2) * sizeof(uint32_t));
		if (!zs->rank_of_slot)
			return OPS_ERR(LOOM_ENOMEM, "out of memory building Z-order boundaries");
		for (i = 0; i <= zs->nb + 1; i++)
			zs->rank_of_slot[i] = scale_slot(i, zs->nb, k->bits);
		LOOM_TRY(build_hint(zs));
	}
	k->bounds_ready = 1;
	return 0;
}

/* ---- key ranges ---------------------------------------------------------- */

/* The key of every sampled row, into sk[0..sample_n). */
static void sample_keys(const zkeys *k, uint64_t *sk)
{
	size_t n = k->n, s, c;
	for (s = 0; s < k->sample_n; s++) {
		uint32_t rk[ZO_MAX_COLUMNS];
		for (c = 0; c < n; c++) {
			const zsample *zs = &k->cols[c];
			size_t slot = 0;
			if (zs->leaf >= 0 && !zs->isnull[s])
				slot = zs->fixed ? zkeys_slot_fixed(zs, zs->code[s]) : slot_bytes(zs, zs->bytes[s], zs->blen[s]);
			rk[c] = zs->rank_of_slot[slot];
		}
		sk[s] = zc_key(k->curve, rk, n, k->bits);
	}
}

int zkeys_sorted_keys(const zkeys *k, uint64_t **out, size_t *n)
{
	size_t m = k->qkeys ? k->nq : k->sample_n;
	uint64_t *sk = loom_malloc((m + 1) * sizeof(uint64_t));
	if (!sk)
		return OPS_ERR(LOOM_ENOMEM, "out of memory keying the Z-order sample");
	if (k->qkeys) {
		memcpy(sk, k->qkeys, m * sizeof(uint64_t));
	} else {
		sample_keys(k, sk);
		qsort(sk, m, sizeof(*sk), cmp_u64);
	}
	*out = sk;
	*n = m;
	return 0;
}

int zkeys_share(const zkeys *k, uint64_t lo, uint64_t hi, int has_hi, double *share)
{
	size_t s, in = 0, m;
	uint64_t *sk;
	LOOM_TRY(zkeys_sorted_keys(k, &sk, &m));
	for (s = 0; s < m; s++)
		in += sk[s] >= lo && (!has_hi || sk[s] < hi);
	loom_free(sk);
	*share = m ? (double)in / (double)m : 1.0;
	return 0;
}

int zkeys_ranges(const zkeys *k, size_t want, uint64_t **range_lo, size_t *nranges)
{
	size_t j, m;
	uint64_t *sk, *lo;
	LOOM_TRY(zkeys_sorted_keys(k, &sk, &m));
	if (want > m)
		want = m ? m : 1;
	lo = loom_malloc((want + 1) * sizeof(uint64_t));
	if (!lo) {
		loom_free(sk);
		return OPS_ERR(LOOM_ENOMEM, "out of memory planning Z-order ranges");
	}
	lo[0] = 0;
	*nranges = 1;
	for (j = 1; j < want; j++) {
		uint64_t b = sk[j * m / want];
		if (b > lo[*nranges - 1])
			lo[(*nranges)++] = b;
	}
	loom_free(sk);
	*range_lo = lo;
	return 0;
}

size_t zkeys_range_of(const uint64_t *range_lo, size_t nranges, uint64_t key)
{
	size_t lo = 1, hi = nranges;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (range_lo[mid] <= key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo - 1;
}
