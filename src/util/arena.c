/* util/arena.c - bump allocator over a list of blocks. */
#include "util/arena.h"

#include <stdint.h>
#include <string.h>

#include "util/alloc.h"
#include "util/error.h"

struct loom_arena_block {
	loom_arena_block *next;
	size_t size;
	size_t used;
	_Alignas(16) unsigned char data[];
};

void loom_arena_init(loom_arena *a, size_t block_size)
{
	a->head = NULL;
	a->block_size = block_size ? block_size : 64 * 1024;
	a->total = 0;
}

void *loom_arena_alloc(loom_arena *a, size_t size)
{
	loom_arena_block *b = a->head;
	size_t aligned = (size + 15) & ~(size_t)15;
	void *p;

	if (aligned < size) {
		loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_OS, "arena allocation overflow");
		return NULL;
	}
	if (!b || b->size - b->used < aligned) {
		size_t bsize = aligned > a->block_size ? aligned : a->block_size;
		b = loom_malloc(sizeof(*b) + bsize);
		if (!b) {
			loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_OS,
			         "out of memory allocating a %zu-byte arena block", bsize);
			return NULL;
		}
		b->size = bsize;
		b->used = 0;
		/* A big one-off block goes behind the current head so the head's
		 * free space is not wasted. */
		if (a->head && bsize > a->block_size) {
			b->next = a->head->next;
			a->head->next = b;
		} else {
			b->next = a->head;
			a->head = b;
		}
		a->total += bsize;
	}
	p = b->data + b->used;
	b->used += aligned;
	return p;
}

void *loom_arena_calloc(loom_arena *a, size_t size)
{
	void *p = loom_arena_alloc(a, size);
	if (p)
		memset(p, 0, size);
	return p;
}

char *loom_arena_strndup(loom_arena *a, const char *s, size_t n)
{
	char *d = loom_arena_alloc(a, n + 1);
	if (!d)
		return NULL;
	memcpy(d, s, n);
	d[n] = '\0';
	return d;
}

char *loom_arena_strdup(loom_arena *a, const char *s)
{
	return loom_arena_strndup(a, s, strlen(s));
}

const char *loom_arena_strdup_opt(loom_arena *a, const char *s, int *failed)
{
	char *d;
	if (!s)
		return NULL;
	d = loom_arena_strdup(a, s);
	if (!d)
		*failed = 1;
	return d;
}

void loom_arena_dispose(loom_arena *a)
{
	loom_arena_block *b = a->head;
	while (b) {
		loom_arena_block *next = b->next;
		loom_free(b);
		b = next;
	}
	a->head = NULL;
	a->total = 0;
}
