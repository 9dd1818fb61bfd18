/* ops/health/health_depth.c - clustering depth of one column over the files
 * of one partition: for each file with a min and a max for the column, how
 * many files' [min, max] ranges overlap its own (itself included),
 * averaged; 1.0 means no two files overlap. Counted as n minus the files
 * entirely above it (min > its max) minus those entirely below (max < its
 * min), with two sorted arrays and binary search: O(n log n). Values are
 * compared as numbers when the column's stats are JSON numbers, else as
 * strings byte by byte (dates and timestamps are ISO strings in stats, so
 * that is their order); files whose value has the other type are left out. */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "delta/stats_json.h"
#include "ops/health/health_int.h"
#include "util/alloc.h"
#include "util/error.h"

typedef struct range {
	double lo_d, hi_d;
	const char *lo_s, *hi_s;
} range;

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static int cmp_s(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Files whose sorted value is > v (above) or < v (below). */
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

static size_t count_above_s(const char **a, size_t n, const char *v)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (strcmp(a[mid], v) <= 0) lo = mid + 1; else hi = mid;
	}
	return n - lo;
}

static size_t count_below_s(const char **a, size_t n, const char *v)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (strcmp(a[mid], v) < 0) lo = mid + 1; else hi = mid;
	}
	return lo;
}

int health_depth(const delta_file *const *files, size_t n, const char *physical,
                 double *depth, int64_t *with_stats)
{
	json_t **roots = loom_calloc(n + 1, sizeof(*roots));
	range *r = loom_calloc(n + 1, sizeof(*r));
	double *lo_d = loom_calloc(n + 1, sizeof(double)), *hi_d = loom_calloc(n + 1, sizeof(double));
	const char **lo_s = loom_calloc(n + 1, sizeof(char *)), **hi_s = loom_calloc(n + 1, sizeof(char *));
	size_t i, m = 0;
	int numeric = -1, rc = 0;
	double total = 0;

	*depth = 0;
	*with_stats = 0;
	if (!roots || !r || !lo_d || !hi_d || !lo_s || !hi_s) {
		rc = loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_OPS, "out of memory computing clustering depth");
		goto done;
	}
	for (i = 0; i < n; i++) {
		const json_t *lo, *hi;
		if (!files[i]->stats || !(roots[i] = json_loads(files[i]->stats, 0, NULL)))
			continue;
		lo = delta_json_at_path(json_object_get(roots[i], "minValues"), physical);
		hi = delta_json_at_path(json_object_get(roots[i], "maxValues"), physical);
		if (!lo || !hi)
			continue;
		if (numeric < 0)
			numeric = json_is_number(lo) ? 1 : json_is_string(lo) ? 0 : -1;
		if (numeric == 1 && json_is_number(lo) && json_is_number(hi)) {
			r[m].lo_d = json_number_value(lo);
			r[m].hi_d = json_number_value(hi);
		} else if (numeric == 0 && json_is_string(lo) && json_is_string(hi)) {
			r[m].lo_s = json_string_value(lo);
			r[m].hi_s = json_string_value(hi);
		} else {
			continue;
		}
		lo_d[m] = r[m].lo_d;
		hi_d[m] = r[m].hi_d;
		lo_s[m] = r[m].lo_s;
		hi_s[m] = r[m].hi_s;
		m++;
	}
	if (m == 0)
		goto done;
	if (numeric == 1) {
		qsort(lo_d, m, sizeof(double), cmp_d);
		qsort(hi_d, m, sizeof(double), cmp_d);
		for (i = 0; i < m; i++)
			total += (double)(m - count_above_d(lo_d, m, r[i].hi_d) -
			                  count_below_d(hi_d, m, r[i].lo_d));
	} else {
		qsort(lo_s, m, sizeof(char *), cmp_s);
		qsort(hi_s, m, sizeof(char *), cmp_s);
		for (i = 0; i < m; i++)
			total += (double)(m - count_above_s(lo_s, m, r[i].hi_s) -
			                  count_below_s(hi_s, m, r[i].lo_s));
	}
	*depth = total / (double)m;
	*with_stats = (int64_t)m;
done:
	for (i = 0; roots && i < n; i++)
		json_decref(roots[i]);
	loom_free(roots);
	loom_free(r);
	loom_free(lo_d);
	loom_free(hi_d);
	loom_free(lo_s);
	loom_free(hi_s);
	return rc;
}
