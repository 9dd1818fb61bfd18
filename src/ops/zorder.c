/* ops/zorder.c - Z-ORDER clustering: validation, plan, the sorting rewrite
 * hook, and loom_zorder. The rewrite, commit, metrics and cleanup are
 * compaction's (compact_run with a compact_strategy). */
#include "ops/zorder.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "delta/protocol.h"
#include "delta/snapshot.h"
#include "ops/location.h"
#include "ops/rewrite.h"
#include "ops/zcurve.h"
#include "ops/zorder_gather.h"
#include "ops/zorder_spill.h"
#include "parquet/schema.h"
#include "parquet/stats.h"
#include "util/alloc.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/threadpool.h"

#define OPS_ERR(code, ...) loom_err((code), LOOM_ERRCLASS_OPS, __VA_ARGS__)

#define ZO_MAX_COLUMNS 32
#define ZO_MAX_SAMPLE 100000
#define ZO_MIN_SAMPLE 1024
#define ZO_MAX_BOUNDS 4096
#define ZO_SAMPLE_FILES 64
#define ZO_RANGE_BYTES ((size_t)32 << 20)
#define ZO_BYTES_PREFIX 64       /* sampled strings kept to this prefix */

/* ---- per-partition state ------------------------------------------------ */

typedef struct zsample {
	long leaf;                   /* output leaf, -1: column in no file */
	long pcol;                   /* its column in the key-only pass */
	pq_cmp_kind kind;
	int fixed;
	int int96;                   /* legacy INT96 timestamps */
	size_t width;
	uint8_t *isnull;             /* per sample slot */
	uint64_t *code;              /* fixed kinds */
	uint8_t **bytes;             /* byte kinds: owned copies */
	uint32_t *blen;
	uint64_t *bcode;             /* quantile boundaries, ascending */
	uint32_t *rank_of_slot;      /* nb + 2 entries: scale_slot, precomputed */
	const uint8_t **bbytes;
	uint32_t *bblen;
	size_t nb;
} zsample;

struct zrun;

/* What one reading thread keys and routes rows with. */
typedef struct zwork {
	uint32_t *ranks;             /* rows x columns */
	uint64_t *bkeys;             /* one batch's keys */
	uint32_t *sel;
	size_t *pick_row, *pick_slot; /* this batch's sampled rows */
	size_t scratch_rows;
	uint32_t *route_count;       /* nranges + 1 */
	pq_batch *stage;             /* nranges: rows waiting to be spilled */
	uint64_t **stage_keys;
	size_t *stage_cap;
} zwork;

/* One output lane: the rows it holds, their keys and order, and where it
 * is in emitting them. Lane 0 also holds the rows of an in-memory sort;
 * with an external sort each lane writes a contiguous block of ranges. */
typedef struct zlane {
	pq_batch acc;
	uint64_t *keys, *tmp_keys;
	uint32_t *idx, *tmp_idx;
	size_t nkeys, keys_cap;
	zg_index ix;
	pq_batch out[2];             /* alternate: the writer thread may still
	                                hold the previous one */
	int out_i, emitting;
	size_t emit_pos, chunk;
	size_t range, range_end;     /* ranges left to this lane */
	void *scratch;               /* spill read buffer */
	size_t scratch_cap;
} zlane;

typedef struct zbin {
	struct zrun *run;
	rewrite_hook hook;
	zsample *cols;
	size_t sample_cap, sample_n;
	uint64_t seen, rng;
	size_t acc_limit;
	int overflow, bounds_ready;
	double bytes_per_row;
	uint64_t total_rows;
	int pass;                    /* 0: key columns only; 1: every column */
	uint8_t *proj;               /* pass 0's leaf mask */
	uint64_t *range_lo;          /* nranges entries */
	size_t nranges;
	zlane *lane;                 /* nlane_max */
	size_t nlanes, nlane_max;
	/* external sort (overflow): rows routed by key range to spill files */
	zspill *spills;              /* nranges, shared by the workers */
	size_t stage_limit;
	struct zwork *work;          /* one per reading thread */
	size_t nwork;
	uint64_t input_bytes;        /* uncompressed pages, from the footers */
	size_t nleaves;              /* columns of a full batch */
	uint64_t input_rows;         /* rows in the footers */
	size_t nfiles;               /* input files */
	uint64_t input_file_bytes;   /* their size: about the output's */
	loom_threadpool *encode_pool; /* the writer's column encoders, or NULL */
	loom_threadpool *gather_pool; /* copies sorted rows' columns, or NULL */
	int spilled;                 /* stages flushed, emitting ranges */
	int failed;                  /* flushing the stages failed */
	loom_error fail_err;
} zbin;

typedef struct zcol {
	const char *name;            /* as given */
	char *phys;                  /* dotted physical path in the files */
} zcol;

typedef struct zrun {
	const zorder_params *p;
	zcol *cols;
	size_t n;
	zc_curve curve;
	unsigned bits;
	int64_t target, bin_budget;
	size_t cpus;                 /* threads allowed; a lone bin uses them all */
	const compact_plan *plan;    /* compact_run's, alive while bins run */
	zbin *bins;
	size_t nbins;
	char *tag;                   /* "hilbert:a,b" */
	char *param;                 /* ["a","b"] */
	zspill_budget spill;         /* temp space shared by every bin */
} zrun;

static uint64_t rng_next(uint64_t *s)
{
	uint64_t x = *s;
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return *s = x;
}

static void zwork_scratch_free(zwork *w)
{
	loom_free(w->ranks);
	loom_free(w->bkeys);
	loom_free(w->sel);
	loom_free(w->pick_row);
	loom_free(w->pick_slot);
	w->ranks = NULL;
	w->bkeys = NULL;
	w->sel = NULL;
	w->pick_row = w->pick_slot = NULL;
	w->scratch_rows = 0;
}

static int zwork_scratch(zwork *w, size_t ncols, size_t rows)
{
	if (rows <= w->scratch_rows)
		return 0;
	zwork_scratch_free(w);
	w->ranks = loom_malloc(rows * ncols * sizeof(uint32_t));
	w->bkeys = loom_malloc(rows * sizeof(uint64_t));
	w->sel = loom_malloc(rows * sizeof(uint32_t));
	w->pick_row = loom_malloc(rows * sizeof(size_t));
	w->pick_slot = loom_malloc(rows * sizeof(size_t));
	if (!w->ranks || !w->bkeys || !w->sel || !w->pick_row || !w->pick_slot)
		return OPS_ERR(LOOM_ENOMEM, "out of memory for %zu rows of Z-order keys", rows);
	w->scratch_rows = rows;
	return 0;
}

static void zwork_dispose(zwork *w, size_t nranges)
{
	size_t g;
	zwork_scratch_free(w);
	for (g = 0; w->stage && g < nranges; g++)
		pq_batch_free(&w->stage[g]);
	for (g = 0; w->stage_keys && g < nranges; g++)
		loom_free(w->stage_keys[g]);
	loom_free(w->stage);
	loom_free(w->stage_keys);
	loom_free(w->stage_cap);
	loom_free(w->route_count);
	memset(w, 0, sizeof(*w));
}

static void zlane_dispose(zlane *L)
{
	pq_batch_free(&L->acc);
	pq_batch_free(&L->out[0]);
	pq_batch_free(&L->out[1]);
	zg_index_dispose(&L->ix);
	loom_free(L->keys);
	loom_free(L->tmp_keys);
	loom_free(L->idx);
	loom_free(L->tmp_idx);
	loom_free(L->scratch);
	memset(L, 0, sizeof(*L));
}

static void zbin_dispose(zbin *zb)
{
	size_t i, j;
	if (!zb->run)
		return;
	for (i = 0; zb->cols && i < zb->run->n; i++) {
		zsample *c = &zb->cols[i];
		if (c->bytes)
			for (j = 0; j < zb->sample_cap; j++)
				loom_free(c->bytes[j]);
		loom_free(c->bytes);
		loom_free(c->blen);
		loom_free(c->isnull);
		loom_free(c->code);
		loom_free(c->bcode);
		loom_free(c->rank_of_slot);
		loom_free(c->bbytes);
		loom_free(c->bblen);
	}
	loom_free(zb->cols);
	for (i = 0; zb->spills && i < zb->nranges; i++)
		zspill_close(&zb->spills[i]);
	loom_free(zb->spills);
	for (i = 0; zb->work && i < zb->nwork; i++)
		zwork_dispose(&zb->work[i], zb->nranges);
	loom_free(zb->work);
	for (i = 0; zb->lane && i < zb->nlane_max; i++)
		zlane_dispose(&zb->lane[i]);
	loom_free(zb->lane);
	loom_free(zb->proj);
	loom_threadpool_free(zb->encode_pool);
	loom_threadpool_free(zb->gather_pool);
	loom_free(zb->range_lo);
	memset(zb, 0, sizeof(*zb));
}

/* ---- ranks and keys ----------------------------------------------------- */

/* Whether row r of column pc holds a value; advances *vi past it. */
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

/* Slot of a non-null value: 1 + number of boundaries <= it. */
static size_t slot_fixed(const zsample *c, uint64_t code)
{
	/* branch-free lower bound: the comparisons are unpredictable */
	const uint64_t *base = c->bcode;
	size_t len = c->nb;
	if (len == 0)
		return 1;
	while (len > 1) {
		size_t half = len / 2;
		base = base[half - 1] <= code ? base + half : base;
		len -= half;
	}
	return 1 + (size_t)(base - c->bcode) + (*base <= code);
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

/* keys[r] for every row of b. */
static int batch_keys(const zbin *zb, zwork *w, const pq_batch *b, uint64_t *keys)
{
	zrun *run = zb->run;
	size_t n = run->n, rows = b->num_rows, c, r;
	LOOM_TRY(zwork_scratch(w, n, rows));
	for (c = 0; c < n; c++) {
		const zsample *zs = &zb->cols[c];
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
				slot = zs->fixed ? slot_fixed(zs, encode(zs, v)) : slot_bytes(zs, v, len);
			w->ranks[r * n + c] = zs->rank_of_slot[slot];
		}
	}
	for (r = 0; r < rows; r++)
		keys[r] = zc_key(run->curve, &w->ranks[r * n], n, run->bits);
	return 0;
}

/* ---- sampling ----------------------------------------------------------- */

static int sample_batch(zbin *zb, const pq_batch *b)
{
	size_t rows = b->num_rows, npick = 0, r, c;
	zwork *w = &zb->work[0];
	LOOM_TRY(zwork_scratch(w, zb->run->n, rows));
	for (r = 0; r < rows; r++) {
		size_t slot;
		zb->seen++;
		if (zb->sample_n < zb->sample_cap) {
			slot = zb->sample_n++;
		} else {
			uint64_t j = rng_next(&zb->rng) % zb->seen;
			if (j >= zb->sample_cap)
				continue;
			slot = (size_t)j;
		}
		w->pick_row[npick] = r;
		w->pick_slot[npick++] = slot;
	}
	for (c = 0; c < zb->run->n; c++) {
		zsample *zs = &zb->cols[c];
		const pq_column *pc;
		size_t vi = 0, k = 0, len = 0;
		if (zs->leaf < 0)
			continue;
		pc = &b->columns[zs->pcol];
		for (r = 0; r < rows && k < npick; r++) {
			const uint8_t *v = value_of(pc, r, &vi, zs->width, &len);
			for (; k < npick && w->pick_row[k] == r; k++) {
				size_t s = w->pick_slot[k];
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

/* Quantile boundaries of each column from the sample. */
static int build_bounds(zbin *zb)
{
	zrun *run = zb->run;
	size_t c, i, top = ((size_t)1 << run->bits) - 2;
	if (top > ZO_MAX_BOUNDS)
		top = ZO_MAX_BOUNDS;
	for (c = 0; c < run->n; c++) {
		zsample *zs = &zb->cols[c];
		size_t m = 0, want;
		if (zs->leaf < 0)
			continue;
		if (zs->fixed) {
			uint64_t *v = loom_malloc((zb->sample_n + 1) * sizeof(uint64_t));
			if (!v)
				return OPS_ERR(LOOM_ENOMEM, "out of memory building Z-order boundaries");
			for (i = 0; i < zb->sample_n; i++)
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
			bref *v = loom_malloc((zb->sample_n + 1) * sizeof(bref));
			if (!v)
				return OPS_ERR(LOOM_ENOMEM, "out of memory building Z-order boundaries");
			for (i = 0; i < zb->sample_n; i++)
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
	for (c = 0; c < run->n; c++) {
		zsample *zs = &zb->cols[c];
		/* slots run from 0 (null) to nb + 1 (above every boundary) */
		zs->rank_of_slot = loom_malloc((zs->nb + 2) * sizeof(uint32_t));
		if (!zs->rank_of_slot)
			return OPS_ERR(LOOM_ENOMEM, "out of memory building Z-order boundaries");
		for (i = 0; i <= zs->nb + 1; i++)
			zs->rank_of_slot[i] = scale_slot(i, zs->nb, run->bits);
	}
	zb->bounds_ready = 1;
	return 0;
}

/* Key ranges from the sampled rows' keys, each small enough that every
 * lane can hold one at a time; a small range also keeps the sorted
 * gather's random reads near the cache (measured: 32 MiB ranges run the
 * big bench set ~15 % faster than 200 MiB ones). */
static int build_ranges(zbin *zb)
{
	zrun *run = zb->run;
	size_t n = run->n, s, c, k, want, limit = zb->acc_limit / zb->nlane_max;
	uint64_t *sk;
	double est = (double)zb->total_rows * zb->bytes_per_row;
	if (limit > ZO_RANGE_BYTES)
		limit = ZO_RANGE_BYTES;
	want = (size_t)(est * 1.25 / (double)limit) + 1;
	if (want < 2)
		want = 2;
	if (want > zb->sample_n)
		want = zb->sample_n ? zb->sample_n : 1;
	sk = loom_malloc((zb->sample_n + 1) * sizeof(uint64_t));
	zb->range_lo = loom_malloc((want + 1) * sizeof(uint64_t));
	if (!sk || !zb->range_lo) {
		loom_free(sk);
		return OPS_ERR(LOOM_ENOMEM, "out of memory planning Z-order ranges");
	}
	for (s = 0; s < zb->sample_n; s++) {
		uint32_t rk[ZO_MAX_COLUMNS];
		for (c = 0; c < n; c++) {
			const zsample *zs = &zb->cols[c];
			size_t slot = 0;
			if (zs->leaf >= 0 && !zs->isnull[s])
				slot = zs->fixed ? slot_fixed(zs, zs->code[s]) : slot_bytes(zs, zs->bytes[s], zs->blen[s]);
			rk[c] = zs->rank_of_slot[slot];
		}
		sk[s] = zc_key(run->curve, rk, n, run->bits);
	}
	qsort(sk, zb->sample_n, sizeof(*sk), cmp_u64);
	zb->range_lo[0] = 0;
	zb->nranges = 1;
	for (k = 1; k < want; k++) {
		uint64_t b = sk[k * zb->sample_n / want];
		if (b > zb->range_lo[zb->nranges - 1])
			zb->range_lo[zb->nranges++] = b;
	}
	loom_free(sk);
	return 0;
}

/* ---- the rewrite hook --------------------------------------------------- */

static int hook_begin(void *arg, const pq_schema *schema, uint64_t input_bytes, uint64_t input_rows)
{
	zbin *zb = arg;
	zrun *run = zb->run;
	size_t c, l;
	zb->input_bytes = input_bytes;
	zb->input_rows = input_rows;
	zb->nleaves = schema->num_leaves;
	zb->proj = loom_calloc(schema->num_leaves + 1, 1);
	if (!zb->proj)
		return OPS_ERR(LOOM_ENOMEM, "out of memory");
	for (c = 0; c < run->n; c++) {
		zsample *zs = &zb->cols[c];
		long leaf = pq_schema_find_leaf(schema, run->cols[c].phys);
		zs->leaf = leaf;
		if (leaf < 0)
			continue; /* in no file: every row null */
		if (schema->leaves[leaf].max_rep > 0)
			return OPS_ERR(LOOM_EINVAL, "Z-order column '%s' is inside a list or map", run->cols[c].name);
		zs->kind = pq_cmp_kind_of(&schema->nodes[schema->leaves[leaf].node]);
		zs->int96 = schema->leaves[leaf].type == PQ_INT96;
		if (zs->kind == PQ_CMP_NONE && !zs->int96)
			return OPS_ERR(LOOM_EUNSUPPORTED, "Z-order column '%s': its Parquet type has no order",
			               run->cols[c].name);
		zs->fixed = zs->int96 || zc_kind_is_fixed(zs->kind);
		zs->width = pq_value_width(schema->leaves[leaf].type, schema->leaves[leaf].type_length);
		zs->isnull = loom_calloc(zb->sample_cap, 1);
		if (zs->fixed)
			zs->code = loom_calloc(zb->sample_cap, sizeof(uint64_t));
		else {
			zs->bytes = loom_calloc(zb->sample_cap, sizeof(uint8_t *));
			zs->blen = loom_calloc(zb->sample_cap, sizeof(uint32_t));
		}
		if (!zs->isnull || (zs->fixed ? !zs->code : (!zs->bytes || !zs->blen)))
			return OPS_ERR(LOOM_ENOMEM, "out of memory for the Z-order sample");
		zb->proj[leaf] = 1;
	}
	/* the key-only pass's batches hold the marked leaves in leaf order */
	for (c = 0; c < run->n; c++) {
		zsample *zs = &zb->cols[c];
		zs->pcol = 0;
		for (l = 0; zs->leaf >= 0 && l < (size_t)zs->leaf; l++)
			zs->pcol += zb->proj[l];
	}
	return 0;
}

static const uint8_t *hook_projection(void *arg)
{
	zbin *zb = arg;
	return zb->pass == 0 ? zb->proj : NULL;
}

static int keys_reserve(zlane *L, size_t need)
{
	size_t nc;
	if (need <= L->keys_cap)
		return 0;
	nc = L->keys_cap ? L->keys_cap : 4096;
	while (nc < need)
		nc *= 2;
	loom_free(L->tmp_keys);
	loom_free(L->tmp_idx);
	L->tmp_keys = NULL;
	L->tmp_idx = NULL;
	{
		uint64_t *k = loom_reallocarray(L->keys, nc, sizeof(uint64_t));
		if (!k)
			return OPS_ERR(LOOM_ENOMEM, "out of memory for %zu Z-order keys", nc);
		L->keys = k;
	}
	{
		uint32_t *x = loom_reallocarray(L->idx, nc, sizeof(uint32_t));
		if (!x)
			return OPS_ERR(LOOM_ENOMEM, "out of memory for %zu Z-order keys", nc);
		L->idx = x;
	}
	L->keys_cap = nc;
	return 0;
}

/* ---- external sort: routing rows to range spills ------------------------ */

static size_t range_of(const zbin *zb, uint64_t key)
{
	size_t lo = 1, hi = zb->nranges;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (zb->range_lo[mid] <= key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo - 1;
}

static int stage_flush(zbin *zb, zwork *w, size_t g)
{
	if (w->stage[g].num_rows == 0)
		return 0;
	LOOM_TRY(zspill_write(&zb->spills[g], &w->stage[g], w->stage_keys[g]));
	pq_batch_clear(&w->stage[g]);
	return 0;
}

/* Key every row of b and append it to its range's stage; full stages go
 * to their spill file. Workers route concurrently, each with its own w. */
static int route_batch(const zbin *zb, zwork *w, const pq_batch *b)
{
	size_t rows = b->num_rows, r, g;
	uint32_t *cnt = w->route_count;
	zg_index ix;
	int rc = 0;
	LOOM_TRY(zwork_scratch(w, zb->run->n, rows)); /* before taking w->bkeys */
	LOOM_TRY(batch_keys(zb, w, b, w->bkeys));
	memset(cnt, 0, (zb->nranges + 1) * sizeof(uint32_t));
	/* counting sort of the row numbers by range, stable */
	for (r = 0; r < rows; r++)
		cnt[range_of(zb, w->bkeys[r]) + 1]++;
	for (g = 0; g < zb->nranges; g++)
		cnt[g + 1] += cnt[g];
	for (r = 0; r < rows; r++)
		w->sel[cnt[range_of(zb, w->bkeys[r])]++] = (uint32_t)r;
	/* cnt[g] is now the end of range g's rows in sel */
	if ((rc = zg_index_build(&ix, b)) == 0) {
		for (g = 0; g < zb->nranges && rc == 0; g++) {
			size_t begin = g ? cnt[g - 1] : 0, n = cnt[g] - begin, k, have;
			pq_batch *st = &w->stage[g];
			if (n == 0)
				continue;
			have = st->num_rows;
			if ((rc = loom_array_grow((void **)&w->stage_keys[g], &w->stage_cap[g], have + n,
			                          sizeof(uint64_t))) < 0)
				break;
			for (k = 0; k < n; k++)
				w->stage_keys[g][have + k] = w->bkeys[w->sel[begin + k]];
			if ((rc = zg_gather(st, b, &ix, w->sel + begin, n)) < 0)
				break;
			if (pq_batch_memory(st) >= zb->stage_limit)
				rc = stage_flush((zbin *)zb, w, g);
		}
	}
	zg_index_dispose(&ix);
	return rc;
}

/* Go external: plan key ranges (bytes_per_row set), open a spill per range
 * and give every worker a stage per range; rows held so far are routed. */
static int go_external(zbin *zb, size_t ncols)
{
	size_t g, i;
	pq_batch *acc = &zb->lane[0].acc;
	zb->overflow = 1;
	LOOM_TRY(build_ranges(zb));
	zb->spills = loom_calloc(zb->nranges, sizeof(zspill));
	if (!zb->spills)
		return OPS_ERR(LOOM_ENOMEM, "out of memory planning the Z-order spill");
	for (g = 0; g < zb->nranges; g++)
		zb->spills[g].fd = -1;
	for (g = 0; g < zb->nranges; g++)
		LOOM_TRY(zspill_open(&zb->spills[g], &zb->run->spill));
	for (i = 0; i < zb->nwork; i++) {
		zwork *w = &zb->work[i];
		w->stage = loom_calloc(zb->nranges, sizeof(pq_batch));
		w->stage_keys = loom_calloc(zb->nranges, sizeof(uint64_t *));
		w->stage_cap = loom_calloc(zb->nranges, sizeof(size_t));
		w->route_count = loom_calloc(zb->nranges + 1, sizeof(uint32_t));
		if (!w->stage || !w->stage_keys || !w->stage_cap || !w->route_count)
			return OPS_ERR(LOOM_ENOMEM, "out of memory planning the Z-order spill");
		for (g = 0; g < zb->nranges; g++)
			LOOM_TRY(pq_batch_init(&w->stage[g], ncols));
	}
	/* the stages together hold about a quarter of the sort budget */
	zb->stage_limit = zb->acc_limit / 4 / zb->nranges / zb->nwork;
	if (zb->stage_limit < ((size_t)32 << 10))
		zb->stage_limit = (size_t)32 << 10;
	if (zb->stage_limit > ((size_t)16 << 20))
		zb->stage_limit = (size_t)16 << 20;
	if (acc->columns && acc->num_rows > 0) {
		LOOM_TRY(route_batch(zb, &zb->work[0], acc));
		pq_batch_free(acc);
		zwork_scratch_free(&zb->work[0]); /* sized for every held row: give it back */
	}
	return 0;
}

/* ---- the rewrite hook: rows in, sorted rows out -------------------------- */

static int hook_rows(void *arg, size_t worker, const pq_batch *b)
{
	zbin *zb = arg;
	if (b->num_rows == 0)
		return 0;
	if (zb->pass == 0) {
		LOOM_TRY(sample_batch(zb, b));
		zb->total_rows += b->num_rows;
		return 0;
	}
	if (zb->overflow)
		return route_batch(zb, &zb->work[worker], b);
	/* in memory (one worker, lane 0) until the rows outgrow the budget */
	{
		pq_batch *acc = &zb->lane[0].acc;
		if (!acc->columns)
			LOOM_TRY(pq_batch_init(acc, b->num_columns));
		LOOM_TRY(pq_batch_append_rows(acc, b, 0, b->num_rows));
		if (pq_batch_memory(acc) > zb->acc_limit) {
			zb->bytes_per_row = (double)pq_batch_memory(acc) / (double)acc->num_rows;
			return go_external(zb, b->num_columns);
		}
	}
	return 0;
}

/* The sample needs spread, not every row: the key pass reads at most about
 * ZO_SAMPLE_FILES files, evenly spaced over the partition's file list
 * (which follows the table's file order, so time-ordered appends are
 * covered from start to end). */
static size_t hook_file_stride(void *arg)
{
	zbin *zb = arg;
	if (zb->pass != 0 || zb->nfiles <= ZO_SAMPLE_FILES)
		return 1;
	return (zb->nfiles + ZO_SAMPLE_FILES - 1) / ZO_SAMPLE_FILES;
}

static size_t hook_workers(void *arg)
{
	zbin *zb = arg;
	return zb->pass >= 1 && zb->overflow ? zb->nwork : 1;
}

/* Sort the lane's rows by key and get ready to hand them out in chunks. */
static int start_emit(zbin *zb, zlane *L)
{
	size_t i, rows = L->acc.num_rows;
	if (!zb->overflow) {
		LOOM_TRY(keys_reserve(L, rows));
		LOOM_TRY(batch_keys(zb, &zb->work[0], &L->acc, L->keys));
		L->nkeys = rows;
		zwork_scratch_free(&zb->work[0]); /* sized for every held row: give it back */
	}
	if (L->nkeys != rows)
		return OPS_ERR(LOOM_EINVAL, "Z-order: %zu keys for %zu rows", L->nkeys, rows);
	if (!L->tmp_keys) {
		L->tmp_keys = loom_malloc((L->keys_cap ? L->keys_cap : 1) * sizeof(uint64_t));
		L->tmp_idx = loom_malloc((L->keys_cap ? L->keys_cap : 1) * sizeof(uint32_t));
		if (!L->tmp_keys || !L->tmp_idx)
			return OPS_ERR(LOOM_ENOMEM, "out of memory sorting %zu rows", rows);
	}
	for (i = 0; i < rows; i++)
		L->idx[i] = (uint32_t)i;
	zc_sort(L->keys, L->idx, L->tmp_keys, L->tmp_idx, rows, (unsigned)(zb->run->n * zb->run->bits));
	/* the sort buffers are not needed while emitting */
	loom_free(L->tmp_keys);
	loom_free(L->tmp_idx);
	L->tmp_keys = NULL;
	L->tmp_idx = NULL;
	LOOM_TRY(zg_index_build(&L->ix, &L->acc));
	for (i = 0; i < 2; i++)
		if (!L->out[i].columns)
			LOOM_TRY(pq_batch_init(&L->out[i], L->acc.num_columns));
	{
		double per_row = rows ? (double)pq_batch_memory(&L->acc) / (double)rows : 64.0;
		double c = (double)(1 << 20) / (per_row > 1 ? per_row : 1);
		L->chunk = c < 256 ? 256 : c > 65536 ? 65536 : (size_t)c;
	}
	L->emit_pos = 0;
	L->emitting = 1;
	return 0;
}

/* Load the lane's next non-empty range into its acc/keys; 0 rows: done. */
static int load_next_range(zbin *zb, zlane *L)
{
	for (; L->range < L->range_end; L->range++) {
		zspill *sp = &zb->spills[L->range];
		size_t cap;
		if (sp->rows == 0)
			continue;
		if (!L->acc.columns)
			LOOM_TRY(pq_batch_init(&L->acc, zb->nleaves));
		LOOM_TRY(keys_reserve(L, (size_t)sp->rows));
		cap = L->keys_cap;
		L->nkeys = 0;
		LOOM_TRY(zspill_read_all(sp, &L->acc, &L->keys, &L->nkeys, &cap, &L->scratch, &L->scratch_cap));
		if (cap != L->keys_cap)
			return OPS_ERR(LOOM_EINVAL, "Z-order spill of range %zu holds more rows than written", L->range);
		zspill_close(sp);
		L->range++;
		return 0;
	}
	return 0;
}

/* After the full pass: flush the stages and give each lane a contiguous
 * block of ranges (lanes write in parallel, each its own files, so every
 * file still covers one stretch of the curve). A lane's block is sized to
 * whole output files, a little under (5 %), so lanes leave no small
 * remainder files; a partition of less than two output files gets one
 * lane. Output bytes are estimated from the input files' bytes, spread
 * over the ranges in proportion to their spill bytes. */
static size_t hook_lanes(void *arg)
{
	zbin *zb = arg;
	size_t g, i, lane = 0, files, nl;
	uint64_t total = 0, done = 0;
	double per_spill_byte, target = (double)zb->run->target;
	if (zb->pass == 0 || !zb->overflow || zb->spilled)
		return zb->spilled ? zb->nlanes : 1;
	for (i = 0; i < zb->nwork; i++) {
		for (g = 0; g < zb->nranges; g++)
			if (!zb->failed && stage_flush(zb, &zb->work[i], g) < 0) {
				zb->failed = 1; /* reported by lane 0's drain */
				loom_err_copy(&zb->fail_err);
			}
		zwork_dispose(&zb->work[i], zb->nranges);
	}
	zb->spilled = 1;
	for (g = 0; g < zb->nranges; g++)
		total += zb->spills[g].bytes;
	files = target > 0 ? (size_t)((double)zb->input_file_bytes / target + 0.999) : 1;
	nl = zb->nlane_max < files ? zb->nlane_max : files;
	if (nl > zb->nranges)
		nl = zb->nranges;
	if (nl < 1 || total == 0)
		nl = 1;
	zb->nlanes = nl;
	zb->lane[0].range = 0;
	per_spill_byte = total ? (double)zb->input_file_bytes / (double)total : 0;
	for (g = 0; g < zb->nranges && nl > 1; g++) {
		/* lane `lane` ends after the files the lanes before it and it own */
		size_t owned = files * (lane + 1) / nl;
		done += zb->spills[g].bytes;
		if (lane + 1 < nl && (double)done * per_spill_byte >= ((double)owned - 0.05) * target) {
			zb->lane[lane].range_end = g + 1;
			zb->lane[++lane].range = g + 1;
		}
	}
	zb->lane[lane].range_end = zb->nranges;
	for (i = lane + 1; i < nl; i++)
		zb->lane[i].range = zb->lane[i].range_end = zb->nranges;
	return zb->nlanes;
}

static int hook_drain(void *arg, size_t lane, const pq_batch **out, int *again)
{
	zbin *zb = arg;
	zlane *L = &zb->lane[lane];
	*out = NULL;
	*again = 0;
	if (zb->failed)
		return lane == 0 ? loom_err(zb->fail_err.code, zb->fail_err.klass, "%s", zb->fail_err.message) : 0;
	for (;;) {
		if (!L->emitting) {
			if (zb->pass == 0) {
				/* sampled: now read every column */
				LOOM_TRY(build_bounds(zb));
				if (hook_file_stride(zb) > 1)
					zb->total_rows = zb->input_rows; /* sampled a subset */
				zb->pass = 1;
				/* clearly too big to hold, or big enough that every core
				 * should sort a share: external (and parallel) from the start,
				 * sizing ranges on twice the uncompressed bytes */
				if (zb->total_rows > 0 && ((double)zb->input_bytes * 2 > (double)zb->acc_limit ||
				                           (zb->nlane_max > 1 && zb->input_bytes * 2 > 4 * ZO_RANGE_BYTES))) {
					zb->bytes_per_row = (double)zb->input_bytes * 2 / (double)zb->total_rows;
					LOOM_TRY(go_external(zb, zb->nleaves));
				}
				*again = 1;
				return 0;
			}
			if (zb->overflow)
				LOOM_TRY(load_next_range(zb, L));
			if (!L->acc.columns || L->acc.num_rows == 0)
				return 0; /* every row of this lane written */
			LOOM_TRY(start_emit(zb, L));
		}
		if (L->emit_pos < L->acc.num_rows) {
			size_t n = L->acc.num_rows - L->emit_pos;
			pq_batch *o = &L->out[L->out_i ^= 1];
			if (n > L->chunk)
				n = L->chunk;
			pq_batch_clear(o);
			LOOM_TRY(zg_gather_pool(o, &L->acc, &L->ix, L->idx + L->emit_pos, n,
			                        zb->nlanes > 1 ? NULL : zb->gather_pool));
			L->emit_pos += n;
			*out = o;
			return 0;
		}
		/* these rows are written: drop them */
		L->emitting = 0;
		zg_index_dispose(&L->ix);
		pq_batch_clear(&L->acc);
		L->nkeys = 0;
		if (!zb->overflow)
			return 0;
	}
}

/* ---- validation --------------------------------------------------------- */

static const delta_field *find_field(const delta_type *st, const char *name, size_t len)
{
	size_t i;
	for (i = 0; i < st->num_fields; i++)
		if (strlen(st->fields[i].name) == len && strncmp(st->fields[i].name, name, len) == 0)
			return &st->fields[i];
	for (i = 0; i < st->num_fields; i++)
		if (strlen(st->fields[i].name) == len && strncasecmp(st->fields[i].name, name, len) == 0)
			return &st->fields[i];
	return NULL;
}

static int orderable(delta_type_kind k)
{
	switch (k) {
	case DELTA_T_STRING: case DELTA_T_LONG: case DELTA_T_INTEGER: case DELTA_T_SHORT:
	case DELTA_T_BYTE: case DELTA_T_FLOAT: case DELTA_T_DOUBLE: case DELTA_T_BOOLEAN:
	case DELTA_T_BINARY: case DELTA_T_DATE: case DELTA_T_TIMESTAMP:
	case DELTA_T_TIMESTAMP_NTZ: case DELTA_T_DECIMAL:
		return 1;
	default:
		return 0;
	}
}

/* Column name (dotted path into structs) -> physical dotted path. */
static int resolve_column(const delta_snapshot *snap, const char *name, char **phys)
{
	const delta_type *st = &snap->schema.root;
	const char *p = name;
	int cm = delta_snapshot_column_mapping(snap) != 0, depth = 0;
	loom_buf out = LOOM_BUF_INIT;
	uint32_t k;
	for (;;) {
		const char *dot = strchr(p, '.');
		size_t len = dot ? (size_t)(dot - p) : strlen(p);
		const delta_field *f = len ? find_field(st, p, len) : NULL;
		if (!f) {
			loom_buf_dispose(&out);
			return OPS_ERR(LOOM_EINVAL, "Z-order column '%s' does not exist in the table schema", name);
		}
		if (depth == 0)
			for (k = 0; k < snap->metadata.num_partition_columns; k++)
				if (strcasecmp(snap->metadata.partition_columns[k], f->name) == 0) {
					loom_buf_dispose(&out);
					return OPS_ERR(LOOM_EINVAL,
					               "Z-order column '%s' is a partition column: files are already "
					               "split by it; choose data columns", name);
				}
		if (depth++)
			LOOM_TRY(loom_buf_putc(&out, '.'));
		LOOM_TRY(loom_buf_puts(&out, delta_field_physical_name(f, cm)));
		if (!dot) {
			if (!orderable(f->type->kind)) {
				loom_buf_dispose(&out);
				return OPS_ERR(LOOM_EINVAL,
				               "Z-order column '%s' has type %s, which has no order to cluster by "
				               "(numeric, decimal, string, binary, date, timestamp, timestamp_ntz "
				               "and boolean columns can be used)", name,
				               f->type->name ? f->type->name : "?");
			}
			break;
		}
		if (f->type->kind != DELTA_T_STRUCT) {
			loom_buf_dispose(&out);
			return OPS_ERR(LOOM_EINVAL, "Z-order column '%s': '%.*s' is not a struct", name,
			               (int)(dot - name), name);
		}
		st = f->type;
		p = dot + 1;
	}
	*phys = loom_buf_detach(&out);
	return *phys ? 0 : OPS_ERR(LOOM_ENOMEM, "out of memory");
}

/* Liquid clustering: only the clustering columns themselves may be used. */
static int check_clustering(const delta_snapshot *snap, const zrun *run)
{
	const char *conf = NULL;
	size_t i, j, n = 0;
	int same = 1;
	json_t *root = NULL, *cols;
	loom_buf list = LOOM_BUF_INIT;
	for (i = 0; i < snap->num_domains; i++)
		if (!snap->domains[i].removed && (strcmp(snap->domains[i].domain, "delta.clustering") == 0 ||
		                                  strcmp(snap->domains[i].domain, "delta.liquid") == 0))
			conf = snap->domains[i].configuration;
	if (!conf && !delta_protocol_has_feature(&snap->protocol, "clustering") &&
	    !delta_protocol_has_feature(&snap->protocol, "liquid"))
		return 0;
	if (conf && (root = json_loads(conf, 0, NULL)) != NULL &&
	    json_is_array(cols = json_object_get(root, "clusteringColumns"))) {
		n = json_array_size(cols);
		for (i = 0; i < n; i++) {
			json_t *path = json_array_get(cols, i);
			if (json_is_object(path)) /* older form: {"physicalName": [...]} */
				path = json_object_get(path, "physicalName");
			loom_buf one = LOOM_BUF_INIT;
			for (j = 0; json_is_array(path) && j < json_array_size(path); j++) {
				if (j)
					loom_buf_putc(&one, '.');
				loom_buf_puts(&one, json_string_value(json_array_get(path, j)) ?
				                        json_string_value(json_array_get(path, j)) : "");
			}
			if (i)
				loom_buf_puts(&list, ", ");
			loom_buf_puts(&list, one.ptr ? one.ptr : "");
			if (i >= run->n || !one.ptr || strcmp(one.ptr, run->cols[i].phys) != 0)
				same = 0;
			loom_buf_dispose(&one);
		}
	} else {
		same = 0;
	}
	json_decref(root);
	if (same && n == run->n && n > 0) {
		loom_buf_dispose(&list);
		return 0;
	}
	{
		int rc = OPS_ERR(LOOM_EINVAL,
		                 "the table uses liquid clustering (table feature 'clustering') on [%s]: "
		                 "Z-order by other columns would undo it; use its clustering columns or none",
		                 list.ptr ? list.ptr : "");
		loom_buf_dispose(&list);
		return rc;
	}
}

static int zorder_validate(void *arg, const delta_snapshot *snap)
{
	zrun *run = arg;
	size_t i;
	for (i = 0; i < run->n; i++) {
		loom_free(run->cols[i].phys);
		run->cols[i].phys = NULL;
		LOOM_TRY(resolve_column(snap, run->cols[i].name, &run->cols[i].phys));
	}
	return check_clustering(snap, run);
}

/* ---- the plan ----------------------------------------------------------- */

typedef struct pfile {
	const delta_file *f;
	char *pkey;
	size_t order;
} pfile;

static int cmp_pfile(const void *a, const void *b)
{
	const pfile *x = a, *y = b;
	int c = strcmp(x->pkey, y->pkey);
	return c ? c : (x->order < y->order ? -1 : x->order > y->order);
}

static int has_tag(const delta_file *f, const char *tag)
{
	int found = 0;
	const char *v = delta_kv_get(f->tags, f->num_tags, ZORDER_TAG, &found);
	return found && v && strcmp(v, tag) == 0;
}

static int zorder_plan(void *arg, compact_plan *plan, const delta_snapshot *snap, int64_t target)
{
	zrun *run = arg;
	pfile *pf = NULL;
	loom_buf key = LOOM_BUF_INIT;
	size_t i, n = snap->num_files, begin, threads;
	int rc = 0;

	memset(plan, 0, sizeof(*plan));
	plan->target = target;
	run->target = target;
	pf = loom_calloc(n ? n : 1, sizeof(*pf));
	plan->storage = loom_calloc(n ? n : 1, sizeof(*plan->storage));
	plan->bins = loom_calloc(n ? n : 1, sizeof(*plan->bins));
	if (!pf || !plan->storage || !plan->bins) {
		rc = OPS_ERR(LOOM_ENOMEM, "out of memory planning Z-order");
		goto done;
	}
	for (i = 0; i < n; i++) {
		loom_buf_clear(&key);
		if ((rc = rewrite_partition_dir(snap, snap->files[i], &key)) < 0)
			goto done;
		pf[i].f = snap->files[i];
		pf[i].order = i;
		pf[i].pkey = loom_strdup(key.ptr ? key.ptr : "");
		if (!pf[i].pkey) {
			rc = OPS_ERR(LOOM_ENOMEM, "out of memory planning Z-order");
			goto done;
		}
	}
	qsort(pf, n, sizeof(*pf), cmp_pfile);
	plan->considered = n;
	for (begin = 0; begin < n;) {
		size_t end = begin, k;
		int clustered = 1;
		while (end < n && strcmp(pf[end].pkey, pf[begin].pkey) == 0) {
			clustered &= has_tag(pf[end].f, run->tag);
			end++;
		}
		plan->partitions++;
		if (!clustered || run->p->full) {
			compact_bin *b = &plan->bins[plan->num_bins++];
			b->files = &plan->storage[plan->files_in_bins];
			b->partition = plan->partitions - 1;
			for (k = begin; k < end; k++) {
				plan->storage[plan->files_in_bins++] = pf[k].f;
				b->num_files++;
				b->bytes += pf[k].f->size;
				plan->dvs_in_bins += pf[k].f->dv.storage_type != 0;
			}
			plan->bytes_in_bins += b->bytes;
			plan->partitions_optimized++;
		}
		begin = end;
	}
	run->nbins = plan->num_bins;
	run->plan = plan;
	run->bins = loom_calloc(plan->num_bins ? plan->num_bins : 1, sizeof(zbin));
	if (!run->bins) {
		rc = OPS_ERR(LOOM_ENOMEM, "out of memory planning Z-order");
		goto done;
	}
	threads = run->p->threads ? run->p->threads : loom_cpu_count();
	run->cpus = threads;
	if (threads > plan->num_bins)
		threads = plan->num_bins;
	if (threads < 1)
		threads = 1;
	run->bin_budget = (run->p->memory_budget > 0 ? run->p->memory_budget : ZORDER_DEFAULT_BUDGET) /
	                  (int64_t)threads;
done:
	for (i = 0; pf && i < n; i++)
		loom_free(pf[i].pkey);
	loom_free(pf);
	loom_buf_dispose(&key);
	return rc;
}

static int zorder_bin_begin(void *arg, size_t bin, rewrite_ctx *ctx)
{
	zrun *run = arg;
	zbin *zb = &run->bins[bin];
	size_t cap, rgb;
	memset(zb, 0, sizeof(*zb));
	zb->run = run;
	zb->rng = 0x9e3779b97f4a7c15ULL ^ (uint64_t)(bin + 1);
	zb->acc_limit = (size_t)((double)run->bin_budget * 0.4);
	cap = (size_t)(run->bin_budget / (int64_t)(256 * run->n));
	zb->sample_cap = cap < ZO_MIN_SAMPLE ? ZO_MIN_SAMPLE : cap > ZO_MAX_SAMPLE ? ZO_MAX_SAMPLE : cap;
	zb->cols = loom_calloc(run->n, sizeof(zsample));
	if (!zb->cols)
		return OPS_ERR(LOOM_ENOMEM, "out of memory");
	zb->hook.arg = zb;
	zb->hook.begin = hook_begin;
	zb->hook.rows = hook_rows;
	zb->hook.drain = hook_drain;
	zb->hook.projection = hook_projection;
	zb->hook.workers = hook_workers;
	zb->hook.file_stride = hook_file_stride;
	zb->hook.lanes = hook_lanes;
	zb->nfiles = run->plan->bins[bin].num_files;
	zb->input_file_bytes = (uint64_t)run->plan->bins[bin].bytes;
	zb->hook.piped = run->nbins == 1 && run->cpus > 1;
	zb->nwork = run->nbins == 1 ? run->cpus : 1;
	zb->nlane_max = zb->nwork;
	zb->nlanes = 1;
	zb->lane = loom_calloc(zb->nlane_max, sizeof(zlane));
	if (!zb->lane)
		return OPS_ERR(LOOM_ENOMEM, "out of memory");
	zb->work = loom_calloc(zb->nwork, sizeof(zwork));
	if (!zb->work)
		return OPS_ERR(LOOM_ENOMEM, "out of memory");
	ctx->hook = &zb->hook;
	ctx->split_bytes = (uint64_t)run->target;
	/* row groups no larger than a file, nor than a slice of the budget */
	rgb = ctx->wopts.row_group_bytes;
	if ((int64_t)rgb > run->target)
		rgb = (size_t)run->target;
	if ((int64_t)rgb > run->bin_budget / 8)
		rgb = (size_t)(run->bin_budget / 8);
	ctx->wopts.row_group_bytes = rgb < 4096 ? 4096 : rgb;
	/* a lone partition: its columns are encoded on every core too */
	if (zb->hook.piped) {
		LOOM_TRY(loom_threadpool_new(&zb->encode_pool, run->cpus));
		LOOM_TRY(loom_threadpool_new(&zb->gather_pool, run->cpus));
		ctx->wopts.pool = zb->encode_pool;
	}
	return 0;
}

static void zorder_bin_end(void *arg, size_t bin)
{
	zrun *run = arg;
	zbin_dispose(&run->bins[bin]);
}

/* ---- entry points ------------------------------------------------------- */

int zorder_run(loom_op_result *out, loom_store *store, const zorder_params *p)
{
	zrun run;
	compact_strategy st;
	compact_params cp;
	loom_buf tag = LOOM_BUF_INIT, param = LOOM_BUF_INIT;
	size_t i;
	int rc;

	if (p->n_columns == 0)
		return OPS_ERR(LOOM_EINVAL, "Z-order needs at least one column");
	if (p->n_columns > ZO_MAX_COLUMNS)
		return OPS_ERR(LOOM_EINVAL, "Z-order by %zu columns: at most %d", p->n_columns, ZO_MAX_COLUMNS);
	memset(&run, 0, sizeof(run));
	run.p = p;
	run.n = p->n_columns;
	run.curve = p->curve == LOOM_ZORDER_CURVE_Z ? ZC_CURVE_Z : ZC_CURVE_HILBERT;
	run.bits = run.n == 1 ? 32 : (unsigned)(64 / run.n);
	if (run.bits > 16 && run.n > 1)
		run.bits = 16;
	run.cols = loom_calloc(run.n, sizeof(zcol));
	if (!run.cols)
		return OPS_ERR(LOOM_ENOMEM, "out of memory");
	rc = loom_buf_puts(&tag, run.curve == ZC_CURVE_Z ? "z:" : "hilbert:");
	if (rc == 0)
		rc = loom_buf_putc(&param, '[');
	for (i = 0; i < run.n && rc == 0; i++) {
		run.cols[i].name = p->columns[i];
		if (i) {
			loom_buf_putc(&tag, ',');
			loom_buf_putc(&param, ',');
		}
		loom_buf_puts(&tag, p->columns[i]);
		rc = loom_buf_put_json_string(&param, p->columns[i], strlen(p->columns[i]));
	}
	if (rc == 0)
		rc = loom_buf_putc(&param, ']');
	if (rc < 0)
		goto done;
	run.tag = tag.ptr;
	run.param = param.ptr;
	if ((rc = zspill_budget_init(&run.spill, p->temp_dir, (uint64_t)p->spill_limit)) < 0)
		goto done;

	memset(&st, 0, sizeof(st));
	st.op = DELTA_OP_ZORDER;
	st.name = "Z-order";
	st.validate = zorder_validate;
	st.plan = zorder_plan;
	st.bin_begin = zorder_bin_begin;
	st.bin_end = zorder_bin_end;
	st.tag_key = ZORDER_TAG;
	st.tag_value = run.tag;
	st.param_key = "zOrderBy";
	st.param_value = run.param;
	st.arg = &run;
	memset(&cp, 0, sizeof(cp));
	cp.target_size = p->target_size;
	cp.dry_run = p->dry_run;
	cp.loc = p->loc;
	cp.secrets = p->secrets;
	cp.cancel = p->cancel;
	cp.threads = p->threads;
	cp.strategy = &st;
	rc = compact_run(out, store, &cp);
	if (rc == 0) {
		rc = loom_op_result_set_metric(out, "zOrderCurveHilbert", run.curve == ZC_CURVE_HILBERT);
		if (rc == 0)
			rc = loom_op_result_set_metric(out, "zOrderSpillBytes", (int64_t)run.spill.used);
	}
done:
	for (i = 0; i < run.nbins; i++)
		zbin_dispose(&run.bins[i]);
	loom_free(run.bins);
	for (i = 0; i < run.n; i++)
		loom_free(run.cols[i].phys);
	loom_free(run.cols);
	loom_buf_dispose(&tag);
	loom_buf_dispose(&param);
	return rc;
}

LOOM_EXTERN(int) loom_zorder(loom_op_result *out, const char *uri, const loom_table_location *loc,
                             const loom_zorder_opts *opts, const loom_cancel *cancel)
{
	zorder_params p;
	ops_table t;
	int rc;

	LOOM_TRY(loom_zorder_opts_check(opts));
	memset(&p, 0, sizeof(p));
	p.columns = opts->columns;
	p.n_columns = opts->n_columns;
	p.curve = opts->curve;
	p.full = opts->full;
	p.dry_run = opts->dry_run;
	p.target_size = opts->target_size;
	p.memory_budget = opts->memory_budget;
	p.temp_dir = opts->temp_dir;
	p.spill_limit = opts->spill_limit;
	p.loc = loc;
	p.cancel = cancel;
	LOOM_TRY(ops_table_open(&t, uri, loc, "z-order"));
	p.secrets = &t.secrets;
	rc = zorder_run(out, t.store, &p);
	return ops_table_close(&t, rc, "z-order");
}
