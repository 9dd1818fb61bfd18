/* test_parquet_cursor.c - row spans over nested batch columns, checked on
 * list_columns.parquet, whose rows DuckDB reads as
 *   int64_list: [1,2,3]      | [null,1]  | [4]
 *   utf8_list:  [abc,efg,hij] | null      | [efg,null,hij,xyz]          */
#include <string.h>

#include "loom/store.h"
#include "parquet/cursor.h"
#include "parquet/reader.h"
#include "test.h"

TEST(list_rows)
{
	loom_store *s;
	pq_reader *r;
	pq_batch b;
	pq_cursor k;
	pq_row_span sp;
	const pq_column *c;
	size_t len;
	const uint8_t *v;
	int64_t x;
	memset(&b, 0, sizeof(b));
	CHECK_OK(loom_store_open_local(&s, LOOM_FIXTURES_DIR "/parquet/data"));
	CHECK_OK(pq_reader_open(&r, s, "list_columns.parquet"));
	CHECK_OK(pq_reader_read_row_group(r, 0, NULL, 0, &b));
	REQUIRE(b.num_rows == 3 && b.num_columns == 2);

	c = &b.columns[0];
	CHECK_INT(c->max_def, 3);
	CHECK_INT(c->max_rep, 1);
	pq_cursor_init(&k, c);
	REQUIRE(pq_cursor_next_row(&k, &sp) == 1);
	CHECK_INT(sp.slot_end - sp.slot_begin, 3);
	CHECK_INT(sp.num_values, 3);
	memcpy(&x, c->values + 8 * (sp.value_begin + 2), 8);
	CHECK_INT(x, 3);
	REQUIRE(pq_cursor_next_row(&k, &sp) == 1);
	CHECK_INT(sp.slot_end - sp.slot_begin, 2);
	CHECK_INT(sp.num_values, 1);
	CHECK_INT(pq_column_def(c, sp.slot_begin), 2);    /* the null element */
	memcpy(&x, c->values + 8 * sp.value_begin, 8);
	CHECK_INT(x, 1);
	REQUIRE(pq_cursor_next_row(&k, &sp) == 1);
	CHECK_INT(sp.num_values, 1);
	CHECK_INT(pq_cursor_next_row(&k, &sp), 0);

	c = &b.columns[1];
	pq_cursor_init(&k, c);
	REQUIRE(pq_cursor_next_row(&k, &sp) == 1);
	v = pq_column_bytes(c, sp.value_begin + 1, &len);
	CHECK(len == 3 && memcmp(v, "efg", 3) == 0);
	REQUIRE(pq_cursor_next_row(&k, &sp) == 1);
	CHECK_INT(sp.slot_end - sp.slot_begin, 1);        /* a null list: one slot */
	CHECK_INT(pq_column_def(c, sp.slot_begin), 0);
	CHECK_INT(sp.num_values, 0);
	REQUIRE(pq_cursor_next_row(&k, &sp) == 1);
	CHECK_INT(sp.slot_end - sp.slot_begin, 4);
	CHECK_INT(sp.num_values, 3);
	v = pq_column_bytes(c, sp.value_begin + 2, &len);
	CHECK(len == 3 && memcmp(v, "xyz", 3) == 0);
	CHECK_INT(pq_cursor_next_row(&k, &sp), 0);

	pq_batch_free(&b);
	pq_reader_free(r);
	loom_store_free(s);
}

int main(void)
{
	RUN(list_rows);
	return test_summary();
}
