/* fuzz/mem_store.h - a read-only store holding one object (the fuzz input)
 * under every key, for targets that read through loom_store. */
#ifndef LOOM_FUZZ_MEM_STORE_H
#define LOOM_FUZZ_MEM_STORE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "loom/errors.h"
#include "loom/store.h"

typedef struct mem_store {
	loom_store base;
	const uint8_t *p;
	size_t n;
} mem_store;

static inline int mem_read(loom_store *s, const char *key, uint64_t off, size_t len, void *dst,
                           size_t *nread)
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

static inline int mem_stat(loom_store *s, const char *key, loom_store_entry *e)
{
	memset(e, 0, sizeof(*e));
	e->key = key;
	e->size = ((mem_store *)s)->n;
	return 0;
}

/* The store is rooted at /table: absolute paths under it name keys. */
static inline int mem_key_of(loom_store *s, const char *location, const char **key)
{
	static const char *const roots[] = { "file:///table/", "file:/table/", "/table/" };
	size_t i;
	(void)s;
	for (i = 0; i < 3; i++) {
		size_t n = strlen(roots[i]);
		if (strncmp(location, roots[i], n) == 0 && location[n]) {
			*key = location + n;
			return 0;
		}
	}
	return LOOM_ENOTFOUND;
}

static inline void mem_store_init(mem_store *m, const uint8_t *data, size_t size)
{
	memset(m, 0, sizeof(*m));
	m->base.version = LOOM_STORE_VERSION;
	m->base.name = "memory";
	m->base.caps = LOOM_STORE_CAP_RANGED_READ;
	m->base.read_range = mem_read;
	m->base.stat = mem_stat;
	m->base.root = "file:///table";
	m->base.key_of = mem_key_of;
	m->p = data;
	m->n = size;
}

#endif
