/* ops/zorder/zorder_sort.c - Z-order's sorter stage: rows in, rows out in curve
 * order, in memory or through key-range spills (see ops/zorder/zorder_stages.h). */
#include <string.h>

#include "ops/zorder/zorder_gather.h"
#include "ops/zorder/zorder_stages.h"
#include "util/alloc.h"
#include "util/error.h"
#include "util/vec.h"

#define OPS_ERR(code, ...) loom_err((code), LOOM_ERRCLASS_OPS, __VA_ARGS__)

#define ZO_RANGE_BYTES ((size_t)32 << 20)

/* What one reading thread keys and routes rows with. */
typedef struct zwork {
	zscratch w;
	uint32_t *route_count;       /* nranges + 1 */
	pq_batch *stage;             /* nranges: rows waiting to be spilled */
	uint64_t **stage_keys;
	size_t *stage_cap;
} zwork;

/* One output lane: the rows it holds, their keys and order, and where it
 * is in emitting them. Lane 0 also holds the rows of an in-memory sort;
 * with an external sort each lane emits a contiguous block of ranges. */
typedef struct zlane {
	pq_batch acc;
	uint64_t *keys, *tmp_keys;
	uint32_t *idx, *tmp_idx;
	size_t nkeys, keys_cap;
	zg_index ix;
	pq_batch out[2];             /* alternate: the writer may still hold
	                                the previous one */
	int out_i, emitting;
	int finished;                /* counted in zsorter.lanes_done */
	size_t emit_pos, chunk;
	size_t range, range_end;     /* ranges left to this lane */
	void *scratch;               /* spill read buffer */
	size_t scratch_cap;
} zlane;

static void zwork_dispose(zwork *w, size_t nranges)
{
	size_t g;
	zscratch_dispose(&w->w);
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

void zsorter_dispose(zsorter *s)
{
	size_t i;
	for (i = 0; s->spills && i < s->nranges; i++)
		zspill_close(&s->spills[i]);
	loom_free(s->spills);
	for (i = 0; s->work && i < s->nwork; i++)
		zwork_dispose(&s->work[i], s->nranges);
	loom_free(s->work);
	for (i = 0; s->lane && i < s->nlane_max; i++)
		zlane_dispose(&s->lane[i]);
	loom_free(s->lane);
	loom_free(s->range_lo);
	s->spills = NULL;
	s->work = NULL;
	s->lane = NULL;
	s->range_lo = NULL;
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

static int stage_flush(zsorter *s, zwork *w, size_t g)
{
	if (w->stage[g].num_rows == 0)
		return 0;
	LOOM_TRY(zspill_write(&s->spills[g], &w->stage[g], w->stage_keys[g]));
	pq_batch_clear(&w->stage[g]);
	return 0;
}

/* Key every row of b and append it to its range's stage; full stages go
 * to their spill file. Readers route concurrently, each with its own w. */
static int route_batch(zsorter *s, zwork *w, const pq_batch *b)
{
	size_t rows = b->num_rows, r, g, slice;
	uint32_t *cnt = w->route_count;
	zg_index ix;
	int rc = 0;
	LOOM_TRY(zscratch_reserve(&w->w, s->keys->n, rows)); /* before taking bkeys */
	LOOM_TRY(zkeys_of_batch(s->keys, &w->w, b, w->w.bkeys));
	memset(cnt, 0, (s->nranges + 1) * sizeof(uint32_t));
	/* counting sort of the row numbers by range, stable */
	for (r = 0; r < rows; r++) {
		w->w.range[r] = (uint32_t)zkeys_range_of(s->range_lo, s->nranges, w->w.bkeys[r]);
		cnt[w->w.range[r] + 1]++;
	}
	for (g = 0; g < s->nranges; g++)
		cnt[g + 1] += cnt[g];
	for (r = 0; r < rows; r++)
		w->w.sel[cnt[w->w.range[r]]++] = (uint32_t)r;
	/* cnt[g] is now the end of range g's rows in sel. A range's rows go to
	 * its stage in slices of about half a stage, flushed as the stage
	 * fills: input already in key order (a clustered table's large row
	 * groups) sends most of a batch to one range, and gathering it whole
	 * would leave every stage as large as a row group. */
	slice = rows ? (size_t)((double)s->stage_limit / 2 /
	                        ((double)pq_batch_used_bytes(b) / (double)rows + sizeof(uint64_t))) : 1;
	if (slice < 64)
		slice = 64;
	if ((rc = zg_index_build(&ix, b)) == 0) {
		for (g = 0; g < s->nranges && rc == 0; g++) {
			size_t at = g ? cnt[g - 1] : 0, end = cnt[g], n, k, have;
			pq_batch *st = &w->stage[g];
			for (; at < end && rc == 0; at += n) {
				n = end - at < slice ? end - at : slice;
				have = st->num_rows;
				if ((rc = loom_array_grow((void **)&w->stage_keys[g], &w->stage_cap[g], have + n,
				                          sizeof(uint64_t))) < 0)
					break;
				for (k = 0; k < n; k++)
					w->stage_keys[g][have + k] = w->w.bkeys[w->w.sel[at + k]];
				if ((rc = zg_gather(st, b, &ix, w->w.sel + at, n)) < 0)
					break;
				if (pq_batch_used_bytes(st) + st->num_rows * sizeof(uint64_t) >= s->stage_limit)
					rc = stage_flush(s, w, g);
			}
		}
	}
	zg_index_dispose(&ix);
	return rc;
}

/* Key ranges from the sampled keys, each small enough that every lane can
 * hold one at a time; a small range also keeps the sorted gather's random
 * reads near the cache (measured: 32 MiB ranges run the big bench set
 * ~15 % faster than 200 MiB ones). */
static int build_ranges(zsorter *s)
{
	size_t want, limit = s->acc_limit / s->nlane_max;
	double est = (double)s->keys->total_rows * s->bytes_per_row;
	if (limit > ZO_RANGE_BYTES)
		limit = ZO_RANGE_BYTES;
	want = (size_t)(est * 1.25 / (double)limit) + 1;
	if (want < 2)
		want = 2;
	return zkeys_ranges(s->keys, want, &s->range_lo, &s->nranges);
}

/* Go external: plan key ranges (bytes_per_row set), open a spill per range
 * and give every reader a stage per range; rows held so far are routed. */
static int go_external(zsorter *s)
{
	size_t g, i;
	pq_batch *acc = &s->lane[0].acc;
	s->overflow = 1;
	LOOM_TRY(build_ranges(s));
	s->spills = loom_calloc(s->nranges, sizeof(zspill));
	if (!s->spills)
		return OPS_ERR(LOOM_ENOMEM, "out of memory planning the Z-order spill");
	for (g = 0; g < s->nranges; g++)
		s->spills[g].fd = -1;
	for (g = 0; g < s->nranges; g++)
		LOOM_TRY(zspill_open(&s->spills[g], s->spill));
	for (i = 0; i < s->nwork; i++) {
		zwork *w = &s->work[i];
		w->stage = loom_calloc(s->nranges, sizeof(pq_batch));
		w->stage_keys = loom_calloc(s->nranges, sizeof(uint64_t *));
		w->stage_cap = loom_calloc(s->nranges, sizeof(size_t));
		w->route_count = loom_calloc(s->nranges + 1, sizeof(uint32_t));
		if (!w->stage || !w->stage_keys || !w->stage_cap || !w->route_count)
			return OPS_ERR(LOOM_ENOMEM, "out of memory planning the Z-order spill");
		for (g = 0; g < s->nranges; g++)
			LOOM_TRY(pq_batch_init(&w->stage[g], s->nleaves));
	}
	/* the stages together hold about a quarter of the sort budget */
	s->stage_limit = s->acc_limit / 4 / s->nranges / s->nwork;
	if (s->stage_limit < ((size_t)32 << 10))
		s->stage_limit = (size_t)32 << 10;
	if (s->stage_limit > ((size_t)16 << 20))
		s->stage_limit = (size_t)16 << 20;
	if (acc->columns && acc->num_rows > 0) {
		LOOM_TRY(route_batch(s, &s->work[0], acc));
		pq_batch_free(acc);
		zscratch_dispose(&s->work[0].w); /* sized for every held row: give it back */
	}
	return 0;
}

/* ---- the stage ------------------------------------------------------------ */

static int sorter_begin(void *st, pipe_env *env, uint8_t *read)
{
	zsorter *s = st;
	size_t rgb;
	(void)read; /* every column */
	s->nleaves = env->schema->num_leaves;
	s->input_bytes = env->input_bytes;
	s->input_file_bytes = env->input_file_bytes;
	s->acc_limit = (size_t)((double)env->memory * 0.4);
	s->nwork = env->workers;
	s->nlane_max = env->workers;
	s->nlanes = 1;
	s->gather_pool = env->workers > 1 ? env->pool : NULL;
	s->lane = loom_calloc(s->nlane_max, sizeof(zlane));
	s->work = loom_calloc(s->nwork, sizeof(zwork));
	if (!s->lane || !s->work)
		return OPS_ERR(LOOM_ENOMEM, "out of memory");
	/* row groups no larger than a file, nor than a slice of the budget */
	rgb = env->wopts->row_group_bytes;
	if ((int64_t)rgb > s->target)
		rgb = (size_t)s->target;
	if ((int64_t)rgb > env->memory / 8)
		rgb = (size_t)(env->memory / 8);
	env->wopts->row_group_bytes = rgb < 4096 ? 4096 : rgb;
	/* clearly too big to hold, or big enough that every core should sort a
	 * share: external (and parallel) from the start, sizing ranges on
	 * twice the uncompressed bytes */
	if (s->keys->total_rows > 0 &&
	    ((double)s->input_bytes * 2 > (double)s->acc_limit ||
	     (s->nlane_max > 1 && s->input_bytes * 2 > 4 * ZO_RANGE_BYTES))) {
		s->bytes_per_row = (double)s->input_bytes * 2 / (double)s->keys->total_rows;
		LOOM_TRY(go_external(s));
	}
	return 0;
}

static size_t sorter_readers(void *st)
{
	zsorter *s = st;
	return s->overflow ? s->nwork : 1;
}

static int sorter_push(void *st, size_t worker, const pq_batch *b)
{
	zsorter *s = st;
	pq_batch *acc = &s->lane[0].acc;
	if (b->num_rows == 0)
		return 0;
	if (s->overflow)
		return route_batch(s, &s->work[worker], b);
	/* in memory (one reader, lane 0) until the rows outgrow the budget */
	if (!acc->columns)
		LOOM_TRY(pq_batch_init(acc, b->num_columns));
	LOOM_TRY(pq_batch_append_rows(acc, b, 0, b->num_rows));
	if (pq_batch_memory(acc) > s->acc_limit) {
		s->bytes_per_row = (double)pq_batch_memory(acc) / (double)acc->num_rows;
		return go_external(s);
	}
	return 0;
}

/* The input ended: flush the stages and give each lane a contiguous block
 * of ranges (lanes write in parallel, each its own files, so every file
 * still covers one stretch of the curve). A lane's block is sized to whole
 * output files, a little under (5 %), so lanes leave no small remainder
 * files; a partition of less than two output files gets one lane. Output
 * bytes are estimated from the input files' bytes, spread over the ranges
 * in proportion to their spill bytes. */
static int sorter_end(void *st, size_t *lanes)
{
	zsorter *s = st;
	size_t g, i, lane = 0, files, nl;
	uint64_t total = 0, done = 0;
	double per_spill_byte, target = (double)s->target;
	*lanes = 1;
	if (!s->overflow)
		return 0;
	for (i = 0; i < s->nwork; i++) {
		for (g = 0; g < s->nranges; g++)
			if (!s->failed && stage_flush(s, &s->work[i], g) < 0) {
				s->failed = 1; /* reported by lane 0's pull */
				loom_err_copy(&s->fail_err);
			}
		zwork_dispose(&s->work[i], s->nranges);
	}
	for (g = 0; g < s->nranges; g++)
		total += s->spills[g].bytes;
	files = target > 0 ? (size_t)((double)s->input_file_bytes / target + 0.999) : 1;
	nl = s->nlane_max < files ? s->nlane_max : files;
	if (nl > s->nranges)
		nl = s->nranges;
	if (nl < 1 || total == 0)
		nl = 1;
	s->nlanes = nl;
	s->lane[0].range = 0;
	per_spill_byte = total ? (double)s->input_file_bytes / (double)total : 0;
	for (g = 0; g < s->nranges && nl > 1; g++) {
		/* lane `lane` ends after the files the lanes before it and it own */
		size_t owned = files * (lane + 1) / nl;
		done += s->spills[g].bytes;
		if (lane + 1 < nl && (double)done * per_spill_byte >= ((double)owned - 0.05) * target) {
			s->lane[lane].range_end = g + 1;
			s->lane[++lane].range = g + 1;
		}
	}
	s->lane[lane].range_end = s->nranges;
	for (i = lane + 1; i < nl; i++)
		s->lane[i].range = s->lane[i].range_end = s->nranges;
	*lanes = s->nlanes;
	return 0;
}

/* Sort the lane's rows by key and get ready to hand them out in chunks. */
static int start_emit(zsorter *s, zlane *L)
{
	size_t i, rows = L->acc.num_rows;
	if (!s->overflow) {
		LOOM_TRY(keys_reserve(L, rows));
		LOOM_TRY(zkeys_of_batch(s->keys, &s->work[0].w, &L->acc, L->keys));
		L->nkeys = rows;
		zscratch_dispose(&s->work[0].w); /* sized for every held row: give it back */
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
	zc_sort(L->keys, L->idx, L->tmp_keys, L->tmp_idx, rows, (unsigned)(s->keys->n * s->keys->bits));
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
static int load_next_range(zsorter *s, zlane *L)
{
	for (; L->range < L->range_end; L->range++) {
		zspill *sp = &s->spills[L->range];
		size_t cap;
		if (sp->rows == 0)
			continue;
		if (!L->acc.columns)
			LOOM_TRY(pq_batch_init(&L->acc, s->nleaves));
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

/* Whether this is the only lane still emitting: its gather may then take
 * the threads the finished lanes left, so a late lane does not run alone
 * on one core while the others idle. */
static int alone(zsorter *s)
{
	return __atomic_load_n(&s->lanes_done, __ATOMIC_RELAXED) + 1 >= s->nlanes;
}

static int sorter_pull(void *st, size_t lane, const pq_batch **out)
{
	zsorter *s = st;
	zlane *L = &s->lane[lane];
	*out = NULL;
	if (s->failed)
		return lane == 0 ? loom_err(s->fail_err.code, s->fail_err.klass, "%s", s->fail_err.message) : 0;
	for (;;) {
		if (!L->emitting) {
			if (s->overflow)
				LOOM_TRY(load_next_range(s, L));
			if (!L->acc.columns || L->acc.num_rows == 0) {
				if (!L->finished) {
					L->finished = 1;
					__atomic_add_fetch(&s->lanes_done, 1, __ATOMIC_RELAXED);
				}
				return 0; /* every row of this lane emitted */
			}
			LOOM_TRY(start_emit(s, L));
		}
		if (L->emit_pos < L->acc.num_rows) {
			size_t n = L->acc.num_rows - L->emit_pos;
			pq_batch *o = &L->out[L->out_i ^= 1];
			if (n > L->chunk)
				n = L->chunk;
			pq_batch_clear(o);
			LOOM_TRY(zg_gather_pool(o, &L->acc, &L->ix, L->idx + L->emit_pos, n,
			                        alone(s) ? s->gather_pool : NULL));
			L->emit_pos += n;
			*out = o;
			return 0;
		}
		/* these rows are emitted: drop them */
		L->emitting = 0;
		zg_index_dispose(&L->ix);
		pq_batch_clear(&L->acc);
		L->nkeys = 0;
		if (!s->overflow)
			return 0;
	}
}

const pipe_stage_ops zsorter_ops = {
	"z-order sorter", sorter_begin, sorter_readers, NULL, sorter_push, sorter_end, sorter_pull,
};
