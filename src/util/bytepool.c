/* util/bytepool.c - unaligned bump allocation over fixed blocks. */
#include "util/bytepool.h"

#include <string.h>

#include "util/alloc.h"
#include "util/error.h"

struct loom_bytepool_block {
	loom_bytepool_block *next;
	size_t size, used;
	uint8_t data[];
};

void loom_bytepool_init(loom_bytepool *p, size_t block_size)
{
	p->head = NULL;
	p->block_size = block_size ? block_size : 1024 * 1024;
	p->total = 0;
	p->used = 0;
}

uint8_t *loom_bytepool_alloc(loom_bytepool *p, size_t n)
{
	loom_bytepool_block *b = p->head;
	uint8_t *out;

	if (!b || b->size - b->used < n) {
		size_t size = n > p->block_size ? n : p->block_size;
		b = loom_malloc(sizeof(*b) + size);
		if (!b) {
			loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_OS, "out of memory (%zu bytes of strings)",
			         size);
			return NULL;
		}
		b->size = size;
		b->used = 0;
		/* a block made for one big string goes behind the current one, so
		 * the current block's free space stays in use */
		if (p->head && size > p->block_size) {
			b->next = p->head->next;
			p->head->next = b;
		} else {
			b->next = p->head;
			p->head = b;
		}
		p->total += sizeof(*b) + size;
	}
	out = b->data + b->used;
	b->used += n;
	p->used += n;
	return out;
}

char *loom_bytepool_strndup(loom_bytepool *p, const char *s, size_t n)
{
	char *d = (char *)loom_bytepool_alloc(p, n + 1);
	if (!d)
		return NULL;
	memcpy(d, s, n);
	d[n] = '\0';
	return d;
}

void loom_bytepool_dispose(loom_bytepool *p)
{
	loom_bytepool_block *b = p->head;
	while (b) {
		loom_bytepool_block *next = b->next;
		loom_free(b);
		b = next;
	}
	p->head = NULL;
	p->total = 0;
	p->used = 0;
}
