/* Health over the compact file index (issue 30): on every fixture table,
 * the health computed from a snapshot loaded into the index equals the one
 * computed from the snapshot's arrays field by field - file figures,
 * partitions, clustering depth per column, tombstones, the log, the
 * advice - with the default policy, and with every column of the schema
 * declared as a Z-order column and a target that splits the files (so the
 * clustering depth reads stats on every fixture that has them). */
#include <stdio.h>
#include <string.h>

#include "delta/snapshot.h"
#include "loom/health.h"
#include "ops/health/health_int.h"
#include "util/alloc.h"
#include "util/buf.h"
#include "delta_compare.h"
#include "test.h"

#define MAX_COLUMNS 256

typedef struct tally {
	int compared;         /* fixture x policy pairs */
	int columns_with_depth; /* clustering columns with files with min and max */
	int with_tombstones;  /* ... with tombstones counted */
} tally;

#define SAME_INT(what, a, b, field)                                                     \
	do {                                                                                \
		if ((a)->field != (b)->field)                                                   \
			TEST_FAIL_AT("%s: %s." #field ": %lld / %lld", where, what,                  \
			             (long long)(a)->field, (long long)(b)->field);                  \
	} while (0)

#define SAME_STR(what, a, b, field)                                                     \
	do {                                                                                \
		if (!test_same_str((a)->field, (b)->field))                                     \
			TEST_FAIL_AT("%s: %s." #field ": '%s' / '%s'", where, what,                  \
			             (a)->field ? (a)->field : "(null)",                             \
			             (b)->field ? (b)->field : "(null)");                            \
	} while (0)

static void same_files(const char *where, const char *what, const loom_health_files *a,
                       const loom_health_files *b)
{
	int k;
	SAME_INT(what, a, b, files);
	SAME_INT(what, a, b, bytes);
	SAME_INT(what, a, b, rows);
	SAME_INT(what, a, b, small_files);
	SAME_INT(what, a, b, small_bytes);
	SAME_INT(what, a, b, compactable_files);
	SAME_INT(what, a, b, compactable_bytes);
	SAME_INT(what, a, b, files_without_stats);
	SAME_INT(what, a, b, dv_files);
	SAME_INT(what, a, b, dv_deleted_rows);
	SAME_INT(what, a, b, dv_purge_files);
	SAME_INT(what, a, b, dv_purge_bytes);
	SAME_INT(what, a, b, dv_purge_rows);
	SAME_INT(what, a, b, dv_purge_deleted_rows);
	for (k = 0; k < LOOM_HEALTH_BUCKETS; k++) {
		SAME_INT(what, a, b, hist_files[k]);
		SAME_INT(what, a, b, hist_bytes[k]);
	}
}

static void same_columns(const char *where, const char *what, const loom_health_column *a,
                         size_t na, const loom_health_column *b, size_t nb)
{
	size_t c;
	if (na != nb) {
		TEST_FAIL_AT("%s: %s: %zu clustering columns / %zu", where,
		             what, na, nb);
		return;
	}
	for (c = 0; c < na; c++) {
		SAME_STR(what, &a[c], &b[c], column);
		if (a[c].depth != b[c].depth)
			TEST_FAIL_AT("%s: %s: column %s: depth %.17g / %.17g",
			             where, what, a[c].column, a[c].depth, b[c].depth);
		SAME_INT(what, &a[c], &b[c], files);
		SAME_INT(what, &a[c], &b[c], unclustered_files);
	}
}

static void same_table(const char *where, const loom_health_table *a, const loom_health_table *b)
{
	SAME_INT("table", a, b, version);
	SAME_INT("table", a, b, target_size);
	SAME_INT("table", a, b, num_partitions);
	same_files(where, "table", &a->files, &b->files);
	SAME_STR("table", a, b, clustering_source);
	same_columns(where, "table", a->columns, a->n_columns, b->columns, b->n_columns);
	SAME_INT("table", a, b, deleted_file_retention_ms);
	SAME_INT("table", a, b, tombstones_expired);
	SAME_INT("table", a, b, tombstones_expired_bytes);
	SAME_INT("table", a, b, tombstones_retained);
	SAME_INT("table", a, b, tombstones_retained_bytes);
	SAME_INT("table", a, b, tombstones_unvacuumed);
	SAME_INT("table", a, b, tombstones_unvacuumed_bytes);
	SAME_INT("table", a, b, last_vacuum_ms);
	SAME_INT("table", a, b, checkpoint_version);
	SAME_INT("table", a, b, checkpoint_interval);
	SAME_INT("table", a, b, commits_since_checkpoint);
	SAME_INT("table", a, b, json_bytes_since_checkpoint);
	SAME_INT("table", a, b, log_retention_ms);
	SAME_INT("table", a, b, expired_log_files);
	SAME_INT("table", a, b, expired_log_bytes);
	SAME_INT("table", a, b, log_cleanup_allowed);
	/* now_ms is each call's own clock reading */
}

static void same_list(const char *where, const char *what, const char *const *a, size_t na,
                      const char *const *b, size_t nb)
{
	size_t i;
	if (na != nb) {
		TEST_FAIL_AT("%s: %s: %zu entries / %zu", where, what, na, nb);
		return;
	}
	for (i = 0; i < na; i++)
		if (!test_same_str(a[i], b[i]))
			TEST_FAIL_AT("%s: %s[%zu]: '%s' / '%s'", where, what, i, a[i], b[i]);
}

static void same_advice(const char *where, const loom_advice *a, const loom_advice *b)
{
	const char *what = a->op;
	SAME_STR(what, a, b, op);
	SAME_INT(what, a, b, recommended);
	SAME_STR(what, a, b, reason);
	SAME_STR(what, a, b, metric);
	if (a->value != b->value || a->threshold != b->threshold)
		TEST_FAIL_AT("%s: advice %s: value %g / %g, threshold %g / %g", where, what, a->value,
		             b->value, a->threshold, b->threshold);
	SAME_INT(what, a, b, files);
	SAME_INT(what, a, b, read_bytes);
	SAME_INT(what, a, b, write_bytes);
	SAME_INT(what, a, b, delete_bytes);
	same_list(where, "advice partitions", a->partitions, a->n_partitions, b->partitions,
	          b->n_partitions);
	same_list(where, "advice columns", a->columns, a->n_columns, b->columns, b->n_columns);
}

static void same_health(const char *where, const loom_health *a, const loom_health *b,
                        tally *t)
{
	const loom_health_table *ta = loom_health_summary(a);
	size_t i, n = loom_health_partition_count(a);

	same_table(where, ta, loom_health_summary(b));
	if (n != loom_health_partition_count(b))
		TEST_FAIL_AT("%s: %zu partitions / %zu", where, n,
		             loom_health_partition_count(b));
	else
		for (i = 0; i < n; i++) {
			const loom_health_partition *pa = loom_health_partition_at(a, i);
			const loom_health_partition *pb = loom_health_partition_at(b, i);
			SAME_STR("partition", pa, pb, name);
			same_files(where, pa->name, &pa->files, &pb->files);
			same_columns(where, pa->name, pa->columns, pa->n_columns, pb->columns,
			             pb->n_columns);
		}
	n = loom_health_advice_count(a);
	if (n != loom_health_advice_count(b))
		TEST_FAIL_AT("%s: %zu advice entries / %zu", where, n,
		             loom_health_advice_count(b));
	else
		for (i = 0; i < n; i++)
			same_advice(where, loom_health_advice_at(a, i), loom_health_advice_at(b, i));
	for (i = 0; i < ta->n_columns; i++)
		if (ta->columns[i].files)
			t->columns_with_depth++;
	if (ta->tombstones_expired + ta->tombstones_retained)
		t->with_tombstones++;
	t->compared++;
}

static void compare(const char *table, const char *policy_name, const loom_health_policy *p,
                    tally *t)
{
	loom_health *arr = NULL, *idx = NULL;
	char where[4600];
	int ra, ri;

	snprintf(where, sizeof(where), "%s (%s), arrays / index", table, policy_name);
	ra = health_load_as(&arr, table, NULL, p, 0);
	ri = health_load_as(&idx, table, NULL, p, 1);
	if (ra != ri)
		TEST_FAIL_AT("%s: %d on the arrays, %d on the index (%s)", where, ra, ri,
		             loom_error_last()->message);
	else if (ra < 0)
		printf("  %s: not loaded (%s): skipped\n", where, loom_error_last()->message);
	else
		same_health(where, arr, idx, t);
	loom_health_free(arr);
	loom_health_free(idx);
}

/* Every leaf column of the schema as a dotted logical path. */
static void leaf_columns(const delta_type *st, const char *prefix, char **names, size_t *n)
{
	size_t i;
	for (i = 0; st && st->kind == DELTA_T_STRUCT && i < st->num_fields; i++) {
		const delta_field *f = &st->fields[i];
		loom_buf b = LOOM_BUF_INIT;
		if (*n == MAX_COLUMNS)
			return;
		CHECK_OK(loom_buf_puts(&b, prefix));
		CHECK_OK(loom_buf_puts(&b, f->name));
		if (f->type && f->type->kind == DELTA_T_STRUCT) {
			CHECK_OK(loom_buf_putc(&b, '.'));
			leaf_columns(f->type, b.ptr, names, n);
			loom_buf_dispose(&b);
		} else {
			names[(*n)++] = b.ptr;
		}
	}
}

/* The policy declaring every leaf column of the table's schema (names[],
 * owned by the caller) and a target under the average file size; 0 when
 * the table has no schema to read. */
static int declare_every_column(const char *table, loom_health_policy *p, char **names,
                                size_t *n)
{
	loom_store *store = NULL;
	delta_snapshot *snap = NULL;
	int ok = 0;

	*n = 0;
	if (loom_store_open_local(&store, table) == 0 &&
	    delta_snapshot_load(&snap, store, -1, NULL) == 0) {
		leaf_columns(&snap->schema.root, "", names, n);
		p->zorder_columns = (const char *const *)names;
		p->n_zorder_columns = *n;
		if (snap->num_files)
			p->target_size = (int64_t)(snap->total_bytes / snap->num_files) + 1;
		ok = *n > 0;
	}
	delta_snapshot_free(snap);
	loom_store_free(store);
	return ok;
}

static void free_names(char **names, size_t n)
{
	size_t i;
	for (i = 0; i < n; i++)
		loom_free(names[i]);
}

static void check_fixture(const char *table, void *ctx)
{
	loom_health_policy p = LOOM_HEALTH_POLICY_INIT;
	char *names[MAX_COLUMNS];
	size_t n;

	compare(table, "default policy", &p, ctx);
	if (declare_every_column(table, &p, names, &n))
		compare(table, "every column declared, a target splitting the files", &p, ctx);
	free_names(names, n);
}

TEST(fixtures_health_alike_on_index_and_arrays)
{
	tally t = { 0, 0, 0 };
	CHECK(test_each_fixture(check_fixture, &t) > 30);
	printf("  compared %d; %d columns with a clustering depth, %d with tombstones\n", t.compared,
	       t.columns_with_depth, t.with_tombstones);
	CHECK(t.compared > 60);
	CHECK(t.columns_with_depth > 20);
	CHECK(t.with_tombstones > 5);
}

/* Each allocation of a health pass on the index fails in turn: an error,
 * never a crash or a leak; or, where a failure is absorbed on the way (an
 * unreadable _last_checkpoint hint is ignored, out of memory included),
 * the same figures as a pass without failures. The sweep ends when a pass
 * needs fewer allocations than the armed failure. Tables with tombstones
 * and DVs, partitions, a Parquet checkpoint; every column declared. */
TEST(every_allocation_can_fail)
{
	static const char *const tables[] = { "cdf-table-with-cdc-and-dvs", "delta-0.8.0-partitioned",
	                                      "simple_table_with_checkpoint" };
	size_t k;
	for (k = 0; k < sizeof(tables) / sizeof(tables[0]); k++) {
		loom_health_policy p = LOOM_HEALTH_POLICY_INIT;
		loom_health *clean = NULL;
		char table[4096], where[4200], *names[MAX_COLUMNS];
		tally t = { 0, 0, 0 };
		size_t n_names;
		long n, absorbed = 0;
		int pending = 0;
		snprintf(table, sizeof(table), "%s/delta/%s", LOOM_FIXTURES_DIR, tables[k]);
		CHECK(declare_every_column(table, &p, names, &n_names));
		CHECK_OK(health_load_as(&clean, table, NULL, &p, 1));
		for (n = 1; n < 50000 && clean && !pending; n++) {
			loom_health *h = NULL;
			void *q = NULL;
			int rc;
			loom_alloc_fail_after(n);
			rc = health_load_as(&h, table, NULL, &p, 1);
			/* still armed: the pass made fewer than n allocations */
			pending = rc == 0 && !(q = loom_malloc(1));
			loom_free(q);
			loom_alloc_fail_after(0);
			if (rc == 0 && !pending) {
				snprintf(where, sizeof(where), "%s, allocation %ld failed and absorbed",
				         tables[k], n);
				same_health(where, clean, h, &t);
				absorbed++;
			}
			if (rc < 0)
				CHECK(h == NULL);
			loom_health_free(h);
		}
		CHECK(pending);
		CHECK(n > 20);
		printf("  %s: %ld allocations failed in turn, %ld absorbed with the same figures\n",
		       tables[k], n - 2, absorbed);
		loom_health_free(clean);
		free_names(names, n_names);
	}
}

int main(void)
{
	RUN(fixtures_health_alike_on_index_and_arrays);
	RUN(every_allocation_can_fail);
	return test_summary();
}
