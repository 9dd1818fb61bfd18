/* test_parquet_slices_nested.c - reading a row group in slices of rows
 * with repeated leaves allowed (pq_reader_slices_begin_nested, what the
 * Delta checkpoint reader uses) gives exactly the rows of reading it whole:
 * every readable parquet-testing file with a list or map column, and every
 * Parquet checkpoint and sidecar of the Delta fixtures (partitionValues and
 * tags maps), in slices of 1, 7 and 1000 rows. A slice holds whole rows:
 * its repetition levels start at 0 and it has as many rows as asked (the
 * last one fewer). test_parquet_slices covers the flat files, and that
 * pq_reader_slices_begin still refuses repeated leaves. Not covered: a row
 * that continues on the next page (no fixture has one; loom's writer and
 * parquet-mr cut pages between rows). */
#include <dirent.h>
#include <stdio.h>
#include <string.h>

#include "loom/store.h"
#include "parquet/batch.h"
#include "parquet/reader.h"
#include "test.h"

/* Same layout, levels (definition and repetition), values and bytes. */
static int columns_equal(const pq_column *a, const pq_column *b)
{
	size_t w = pq_value_width(a->type, a->type_length);
	if (a->type != b->type || a->max_def != b->max_def || a->max_rep != b->max_rep ||
	    a->num_levels != b->num_levels || a->num_values != b->num_values)
		return 0;
	if (a->max_def && memcmp(a->def_levels, b->def_levels, a->num_levels * sizeof(int16_t)))
		return 0;
	if (a->max_rep && memcmp(a->rep_levels, b->rep_levels, a->num_levels * sizeof(int16_t)))
		return 0;
	if (a->type == PQ_BYTE_ARRAY) {
		size_t i;
		for (i = 0; i <= a->num_values; i++)
			if (a->offsets[i] - a->offsets[0] != b->offsets[i] - b->offsets[0])
				return 0;
		return a->num_values == 0 ||
		       !memcmp(a->data + a->offsets[0], b->data + b->offsets[0],
		               a->offsets[a->num_values] - a->offsets[0]);
	}
	return !a->num_values || !memcmp(a->values, b->values, a->num_values * w);
}

/* Rows of a column: slots at repetition level 0 (every slot when flat). */
static size_t rows_of(const pq_column *c)
{
	size_t i, n = 0;
	if (!c->max_rep)
		return c->num_levels;
	for (i = 0; i < c->num_levels; i++)
		n += c->rep_levels[i] == 0;
	return n;
}

/* Slices of `per` rows of row group g, appended, equal the whole read;
 * every slice is whole rows of every column. */
static int slices_match(pq_reader *r, size_t g, const pq_batch *whole, size_t per)
{
	pq_batch slice = { 0 }, joined = { 0 };
	size_t i;
	int ok = 1;
	if (pq_reader_slices_begin_nested(r, g, NULL, 0, per) < 0)
		return 0;
	if (pq_batch_init(&joined, whole->num_columns) < 0)
		return 0;
	for (;;) {
		if (pq_reader_slices_next(r, &slice) < 0) {
			ok = 0;
			break;
		}
		if (slice.num_rows == 0)
			break;
		for (i = 0; ok && i < slice.num_columns; i++) {
			const pq_column *c = &slice.columns[i];
			if (rows_of(c) != slice.num_rows || (c->max_rep && c->num_levels && c->rep_levels[0]))
				ok = 0;
		}
		if (!ok || slice.num_rows > per ||
		    pq_batch_append_rows(&joined, &slice, 0, slice.num_rows) < 0) {
			ok = 0;
			break;
		}
	}
	ok = ok && joined.num_rows == whole->num_rows;
	for (i = 0; ok && whole->num_rows && i < whole->num_columns; i++)
		ok = columns_equal(&whole->columns[i], &joined.columns[i]);
	pq_batch_free(&slice);
	pq_batch_free(&joined);
	return ok;
}

static int repeated(const pq_schema *s)
{
	size_t i;
	for (i = 0; i < s->num_leaves; i++)
		if (s->leaves[i].max_rep > 0)
			return 1;
	return 0;
}

/* Every row group of `name` in `s` (when it has a repeated leaf and reads
 * whole): 1 when compared, 0 when skipped. */
static int check_file(loom_store *s, const char *name)
{
	static const size_t sizes[] = { 1, 7, 1000 };
	pq_reader *r;
	pq_batch whole = { 0 };
	size_t g, k;
	int compared = 0;
	if (pq_reader_open(&r, s, name) < 0)
		return 0;
	pq_reader_set_limits(r, 1 << 22, 256 << 20);
	if (!repeated(pq_reader_schema(r))) {
		pq_reader_free(r);
		return 0;
	}
	for (g = 0; g < pq_reader_meta(r)->num_row_groups; g++) {
		if (pq_reader_read_row_group(r, g, NULL, 0, &whole) < 0)
			break; /* unreadable whole (codec, corruption): nothing to compare */
		compared = 1;
		for (k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
			if (whole.num_rows > 20000 && sizes[k] == 1)
				continue;
			if (!slices_match(r, g, &whole, sizes[k])) {
				fprintf(stderr, "%s row group %zu: slices of %zu rows differ from the whole\n", name,
				        g, sizes[k]);
				CHECK(0);
			}
		}
	}
	pq_batch_free(&whole);
	pq_reader_free(r);
	return compared;
}

TEST(nested_slices_equal_whole_row_groups)
{
	const char *dir = LOOM_FIXTURES_DIR "/parquet/data";
	DIR *d = opendir(dir);
	struct dirent *e;
	loom_store *s;
	int files = 0;
	REQUIRE(d != NULL);
	REQUIRE(loom_store_open_local(&s, dir) == 0);
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.' || e->d_type == DT_DIR || !strstr(e->d_name, ".parquet"))
			continue;
		files += check_file(s, e->d_name);
	}
	closedir(d);
	loom_store_free(s);
	printf("compared %d parquet-testing files with repeated leaves\n", files);
	CHECK(files >= 5);
}

/* The checkpoint files (and sidecars) of one Delta fixture table. */
static int check_table(const char *table)
{
	char logdir[4200];
	const char *subs[] = { "_delta_log", "_delta_log/_sidecars" };
	size_t i;
	int n = 0;
	for (i = 0; i < 2; i++) {
		DIR *d;
		struct dirent *e;
		loom_store *s;
		snprintf(logdir, sizeof(logdir), "%s/%s", table, subs[i]);
		if (!(d = opendir(logdir)))
			continue;
		if (loom_store_open_local(&s, logdir) < 0) {
			closedir(d);
			continue;
		}
		while ((e = readdir(d)) != NULL)
			if (e->d_name[0] != '.' && strstr(e->d_name, ".parquet"))
				n += check_file(s, e->d_name);
		loom_store_free(s);
		closedir(d);
	}
	return n;
}

TEST(nested_slices_of_delta_checkpoints)
{
	const char *root = LOOM_FIXTURES_DIR "/delta";
	DIR *d = opendir(root);
	struct dirent *e;
	int files = 0;
	REQUIRE(d != NULL);
	while ((e = readdir(d)) != NULL) {
		char table[4096];
		if (e->d_name[0] == '.')
			continue;
		snprintf(table, sizeof(table), "%s/%s", root, e->d_name);
		files += check_table(table);
	}
	closedir(d);
	printf("compared %d checkpoint files\n", files);
	CHECK(files >= 10);
}

int main(void)
{
	RUN(nested_slices_equal_whole_row_groups);
	RUN(nested_slices_of_delta_checkpoints);
	return test_summary();
}
