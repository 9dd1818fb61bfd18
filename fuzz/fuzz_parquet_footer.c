/* fuzz_parquet_footer.c - FileMetaData, schema trees, page headers and page
 * indexes from arbitrary bytes: any result but a crash or a leak. */
#include <stddef.h>
#include <stdint.h>

#include "parquet/meta.h"
#include "parquet/schema.h"
#include "util/arena.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	pq_file_meta *m;
	pq_page_header h;
	size_t used;
	loom_arena a;
	pq_column_index ci;
	pq_offset_index oi;

	if (pq_file_meta_decode(&m, data, size, 0, "fuzz") == 0) {
		pq_schema *s;
		if (pq_schema_build(&s, m->schema, m->num_schema, "fuzz") == 0)
			pq_schema_free(s);
		pq_file_meta_free(m);
	}
	(void)pq_page_header_decode(&h, data, size, &used, 0, "fuzz");
	loom_arena_init(&a, 4096);
	(void)pq_column_index_decode(&ci, &a, data, size, 0, "fuzz");
	(void)pq_offset_index_decode(&oi, &a, data, size, 0, "fuzz");
	loom_arena_dispose(&a);
	return 0;
}
