/* ops/health/health_depth.c - clustering depth of the clustering columns
 * over the files of one partition: for each file with a min and a max for
 * a column, how many files' [min, max] ranges overlap its own (itself
 * included), averaged; 1.0 means no two files overlap. Values are compared
 * as numbers when the column's stats are JSON numbers, else as strings
 * byte by byte (dates and timestamps are ISO strings in stats, so that is
 * their order); the type is the one of the first file in insertion order
 * that has both values, and files whose values have the other type are
 * left out.
 *
 * Stats are read on demand (the compact file index leaves them in the
 * log), each file's once for every column, in path order so a Parquet
 * checkpoint's pages decode once; what is kept is one partition's min and
 * max values per column. */
#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "delta/stats_json.h"
#include "ops/health/health_int.h"
#include "util/alloc.h"
#include "util/arena.h"
#include "util/error.h"
#include "util/vec.h"

#define NO_RANK SIZE_MAX

/* One column's values over the partition's files, by type. */
typedef struct col_values {
	loom_vec lo_d, hi_d;   /* double: files whose min and max are numbers */
	loom_vec lo_s, hi_s;   /* const char *: ... strings (copies in `strings`) */
	size_t first_d;        /* insertion rank of the first file whose min is a
	                          number (with a max), NO_RANK none */
	size_t first_s;        /* ... a string */
} col_values;

typedef struct depth_pass {
	col_values *cols;
	char *const *physical;
	size_t n_cols;
	loom_arena strings;
} depth_pass;

static int oom(void)
{
	return loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_OPS, "out of memory computing clustering depth");
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static int cmp_s(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* Values of the sorted array a[0..n) that are > v (above) or < v (below). */
static size_t count_above_d(const double *a, size_t n, double v)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (a[mid] <= v) lo = mid + 1; else hi = mid;
	}
	return n - lo;
}

static size_t count_below_d(const double *a, size_t n, double v)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (a[mid] < v) lo = mid + 1; else hi = mid;
	}
	return lo;
}

static size_t count_above_s(const char *const *a, size_t n, const char *v)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (strcmp(a[mid], v) <= 0) lo = mid + 1; else hi = mid;
	}
	return n - lo;
}

static size_t count_below_s(const char *const *a, size_t n, const char *v)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (strcmp(a[mid], v) < 0) lo = mid + 1; else hi = mid;
	}
	return lo;
}

/* Summed over the files, the files overlapping each is m^2 minus the pairs
 * (i, j) with min_j > max_i minus the pairs with max_j < min_i. Either
 * count is the same whatever order i runs in, so both walk the sorted
 * arrays: no file's own (min, max) pair needs keeping. The running total
 * never drops below the result (>= 0), and m < 2^32 keeps m^2 in 64 bits. */
static double depth_d(loom_vec *lo, loom_vec *hi)
{
	const double *l = lo->data, *h = hi->data;
	size_t m = lo->len, i;
	uint64_t total = (uint64_t)m * m;
	loom_vec_sort(lo, cmp_d);
	loom_vec_sort(hi, cmp_d);
	for (i = 0; i < m; i++)
		total -= count_above_d(l, m, h[i]) + count_below_d(h, m, l[i]);
	return (double)total / (double)m;
}

static double depth_s(loom_vec *lo, loom_vec *hi)
{
	const char *const *l = lo->data, *const *h = hi->data;
	size_t m = lo->len, i;
	uint64_t total = (uint64_t)m * m;
	loom_vec_sort(lo, cmp_s);
	loom_vec_sort(hi, cmp_s);
	for (i = 0; i < m; i++)
		total -= count_above_s(l, m, h[i]) + count_below_s(h, m, l[i]);
	return (double)total / (double)m;
}

static int push_strings(depth_pass *dp, col_values *cv, const json_t *lo, const json_t *hi)
{
	const char *l = loom_arena_strdup(&dp->strings, json_string_value(lo));
	const char *h = loom_arena_strdup(&dp->strings, json_string_value(hi));
	if (!l || !h || loom_vec_push(&cv->lo_s, &l) < 0 || loom_vec_push(&cv->hi_s, &h) < 0)
		return oom();
	return 0;
}

static int push_numbers(col_values *cv, const json_t *lo, const json_t *hi)
{
	double l = json_number_value(lo), h = json_number_value(hi);
	if (loom_vec_push(&cv->lo_d, &l) < 0 || loom_vec_push(&cv->hi_d, &h) < 0)
		return oom();
	return 0;
}

/* One file's min and max of every column; `rank`: its insertion rank. */
static int take_values(depth_pass *dp, const json_t *root, size_t rank)
{
	const json_t *mins = json_object_get(root, "minValues");
	const json_t *maxs = json_object_get(root, "maxValues");
	size_t c;
	for (c = 0; c < dp->n_cols; c++) {
		col_values *cv = &dp->cols[c];
		const json_t *lo = delta_json_at_path(mins, dp->physical[c]);
		const json_t *hi = delta_json_at_path(maxs, dp->physical[c]);
		if (!lo || !hi)
			continue;
		if (json_is_number(lo)) {
			if (rank < cv->first_d)
				cv->first_d = rank;
			if (json_is_number(hi))
				LOOM_TRY(push_numbers(cv, lo, hi));
		} else if (json_is_string(lo)) {
			if (rank < cv->first_s)
				cv->first_s = rank;
			if (json_is_string(hi))
				LOOM_TRY(push_strings(dp, cv, lo, hi));
		}
	}
	return 0;
}

/* The stats text of live file i (NULL: none), valid until `sc` is reset. */
static int file_stats(const delta_snapshot *snap, delta_stats_reader *rd, size_t i,
                      delta_file_scratch *sc, const char **text)
{
	delta_file f;
	*text = NULL;
	delta_file_scratch_reset(sc);
	LOOM_TRY(delta_snapshot_live_file(snap, i, sc, &f));
	LOOM_TRY(delta_snapshot_live_stats(snap, rd, i, sc, &f));
	*text = f.stats;
	return 0;
}

/* Every file's values, read in path order: keys are position << 32 | rank. */
static int collect(depth_pass *dp, const delta_snapshot *snap, delta_stats_reader *rd,
                   const uint32_t *pos, size_t n)
{
	uint64_t *order = loom_calloc(n + 1, sizeof(*order));
	delta_file_scratch sc;
	size_t k;
	int rc = 0;

	if (!order)
		return oom();
	for (k = 0; k < n; k++)
		order[k] = (uint64_t)pos[k] << 32 | (uint64_t)k;
	qsort(order, n, sizeof(*order), cmp_u64);
	delta_file_scratch_init(&sc);
	for (k = 0; k < n && rc == 0; k++) {
		size_t i = (size_t)(order[k] >> 32), rank = (size_t)(order[k] & UINT32_MAX);
		const char *text;
		json_t *root;
		if ((rc = file_stats(snap, rd, i, &sc, &text)) < 0 || !text)
			continue;
		/* unparseable stats count as none, as the files' other figures do */
		if (!(root = json_loads(text, 0, NULL)))
			continue;
		rc = take_values(dp, root, rank);
		json_decref(root);
	}
	delta_file_scratch_dispose(&sc);
	loom_free(order);
	return rc;
}

static void column_depth(col_values *cv, loom_health_column *out)
{
	out->depth = 0;
	out->files = 0;
	if (cv->first_d != NO_RANK && cv->first_d < cv->first_s) {
		if (cv->lo_d.len) {
			out->files = (int64_t)cv->lo_d.len;
			out->depth = depth_d(&cv->lo_d, &cv->hi_d);
		}
	} else if (cv->first_s != NO_RANK && cv->lo_s.len) {
		out->files = (int64_t)cv->lo_s.len;
		out->depth = depth_s(&cv->lo_s, &cv->hi_s);
	}
}

int health_depth(const delta_snapshot *snap, delta_stats_reader *rd, const uint32_t *pos,
                 size_t n, char *const *physical, size_t n_cols, loom_health_column *out)
{
	depth_pass dp;
	size_t c;
	int rc = 0;

	memset(&dp, 0, sizeof(dp));
	dp.physical = physical;
	dp.n_cols = n_cols;
	loom_arena_init(&dp.strings, 0);
	if (!(dp.cols = loom_calloc(n_cols + 1, sizeof(*dp.cols)))) {
		loom_arena_dispose(&dp.strings);
		return oom();
	}
	for (c = 0; c < n_cols; c++) {
		loom_vec_init(&dp.cols[c].lo_d, sizeof(double));
		loom_vec_init(&dp.cols[c].hi_d, sizeof(double));
		loom_vec_init(&dp.cols[c].lo_s, sizeof(char *));
		loom_vec_init(&dp.cols[c].hi_s, sizeof(char *));
		dp.cols[c].first_d = dp.cols[c].first_s = NO_RANK;
	}
	rc = collect(&dp, snap, rd, pos, n);
	for (c = 0; c < n_cols; c++) {
		if (rc == 0)
			column_depth(&dp.cols[c], &out[c]);
		loom_vec_dispose(&dp.cols[c].lo_d);
		loom_vec_dispose(&dp.cols[c].hi_d);
		loom_vec_dispose(&dp.cols[c].lo_s);
		loom_vec_dispose(&dp.cols[c].hi_s);
	}
	loom_free(dp.cols);
	loom_arena_dispose(&dp.strings);
	return rc;
}
