/* fuzz_parquet_file.c - whole files through the reader and the row
 * renderer (level reassembly), from an in-memory store. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "loom/parquet.h"
#include "loom/store.h"
#include "parquet/reader.h"
#include "parquet/render.h"
#include "util/error.h"
#include "mem_store.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int sink(const char *line, size_t len, void *payload)
{
	(void)line;
	*(size_t *)payload += len;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	mem_store m;
	loom_parquet_file f;
	size_t total = 0;
	loom_parquet_cat_opts opt = { NULL, 1000 };

	mem_store_init(&m, data, size);
	if (pq_reader_open(&f.r, &m.base, "fuzz.parquet") < 0)
		return 0;
	pq_reader_set_limits(f.r, 1 << 20, 64 << 20);   /* stay inside the fuzzer's memory */
	(void)loom_parquet_render_schema(&f, sink, &total);
	(void)loom_parquet_render_meta(&f, sink, &total);
	(void)loom_parquet_render_rows(&f, &opt, sink, &total);
	pq_reader_free(f.r);
	return 0;
}
