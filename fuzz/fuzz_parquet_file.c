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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct mem_store {
	loom_store base;
	const uint8_t *p;
	size_t n;
} mem_store;

static int mem_read(loom_store *s, const char *key, uint64_t off, size_t len, void *dst, size_t *nread)
{
	mem_store *m = (mem_store *)s;
	(void)key;
	if (off >= m->n) {
		*nread = 0;
		return 0;
	}
	if (len > m->n - off)
		len = m->n - (size_t)off;
	memcpy(dst, m->p + off, len);
	*nread = len;
	return 0;
}

static int mem_stat(loom_store *s, const char *key, loom_store_entry *e)
{
	memset(e, 0, sizeof(*e));
	e->key = key;
	e->size = ((mem_store *)s)->n;
	return 0;
}

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
	loom_parquet_cat_options opt = { NULL, 1000 };

	memset(&m, 0, sizeof(m));
	m.base.version = LOOM_STORE_VERSION;
	m.base.name = "memory";
	m.base.read_range = mem_read;
	m.base.stat = mem_stat;
	m.p = data;
	m.n = size;
	if (pq_reader_open(&f.r, &m.base, "fuzz.parquet") < 0)
		return 0;
	pq_reader_set_limits(f.r, 1 << 20, 64 << 20);   /* stay inside the fuzzer's memory */
	(void)loom_parquet_render_schema(&f, sink, &total);
	(void)loom_parquet_render_meta(&f, sink, &total);
	(void)loom_parquet_render_rows(&f, &opt, sink, &total);
	pq_reader_free(f.r);
	return 0;
}
