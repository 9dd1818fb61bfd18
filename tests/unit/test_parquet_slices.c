/* test_parquet_slices.c - reading a row group in slices of rows
 * (pq_reader_slices_begin/next) gives exactly the rows of reading it whole
 * (pq_reader_read_row_group), for every readable fixture file (parquet-
 * testing's data: every codec, dictionary and plain pages, v1 and v2
 * pages, nulls) and slice sizes that cut pages anywhere: 1, 7, 1000 rows. */
#include <dirent.h>
#include <stdio.h>
#include <string.h>

#include "loom/store.h"
#include "parquet/batch.h"
#include "parquet/reader.h"
#include "test.h"

/* Same leaf layout, levels, values and bytes. */
static int columns_equal(const pq_column *a, const pq_column *b)
{
	size_t w = pq_value_width(a->type, a->type_length);
	if (a->type != b->type || a->max_def != b->max_def || a->num_levels != b->num_levels ||
	    a->num_values != b->num_values)
		return 0;
	if (a->max_def && memcmp(a->def_levels, b->def_levels, a->num_levels * sizeof(int16_t)))
		return 0;
	if (a->type == PQ_BYTE_ARRAY) {
		size_t i;
		for (i = 0; i <= a->num_values; i++)
			if (a->offsets[i] - a->offsets[0] != b->offsets[i] - b->offsets[0])
				return 0;
		return a->num_values == 0 ||
		       !memcmp(a->data + a->offsets[0], b->data + b->offsets[0], a->offsets[a->num_values] - a->offsets[0]);
	}
	return !a->num_values || !memcmp(a->values, b->values, a->num_values * w);
}

/* Slices of `per` rows of row group g, appended, equal the whole read. */
static int slices_match(pq_reader *r, size_t g, const pq_batch *whole, size_t per)
{
	pq_batch slice = { 0 }, joined = { 0 };
	size_t i;
	int ok = 1;
	if (pq_reader_slices_begin(r, g, NULL, 0, per) < 0)
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
		if (slice.num_rows > per || pq_batch_append_rows(&joined, &slice, 0, slice.num_rows) < 0) {
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

static int flat(const pq_schema *s)
{
	size_t i;
	for (i = 0; i < s->num_leaves; i++)
		if (s->leaves[i].max_rep > 0)
			return 0;
	return 1;
}

TEST(slices_equal_whole_row_groups)
{
	static const size_t sizes[] = { 1, 7, 1000 };
	const char *dir = LOOM_FIXTURES_DIR "/parquet/data";
	DIR *d = opendir(dir);
	struct dirent *e;
	loom_store *s;
	int files = 0, groups = 0;
	REQUIRE(d != NULL);
	REQUIRE(loom_store_open_local(&s, dir) == 0);
	while ((e = readdir(d)) != NULL) {
		pq_reader *r;
		pq_batch whole = { 0 };
		size_t g, k;
		if (e->d_name[0] == '.' || e->d_type == DT_DIR || !strstr(e->d_name, ".parquet"))
			continue;
		if (pq_reader_open(&r, s, e->d_name) < 0)
			continue;
		pq_reader_set_limits(r, 1 << 22, 256 << 20);
		if (!flat(pq_reader_schema(r))) {
			/* repeated leaves: refused, to be read whole */
			if (pq_reader_meta(r)->num_row_groups)
				CHECK_ERR(pq_reader_slices_begin(r, 0, NULL, 0, 10), LOOM_EUNSUPPORTED);
			pq_reader_free(r);
			continue;
		}
		for (g = 0; g < pq_reader_meta(r)->num_row_groups; g++) {
			if (pq_reader_read_row_group(r, g, NULL, 0, &whole) < 0)
				break; /* unreadable whole (codec, corruption): nothing to compare */
			if (g == 0)
				files++;
			groups++;
			for (k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++)
				if (whole.num_rows <= 20000 || sizes[k] > 1) {
					if (!slices_match(r, g, &whole, sizes[k])) {
						fprintf(stderr, "%s row group %zu: slices of %zu rows differ from the whole\n",
						        e->d_name, g, sizes[k]);
						CHECK(0);
					}
				}
		}
		pq_batch_free(&whole);
		pq_reader_free(r);
	}
	closedir(d);
	loom_store_free(s);
	printf("compared %d files, %d row groups\n", files, groups);
	CHECK(files >= 20);
}

int main(void)
{
	RUN(slices_equal_whole_row_groups);
	return test_summary();
}
