/* util/arena.h - a bump allocator: many small allocations, one free.
 * Used where a whole structure (a snapshot's actions, a parsed footer) is
 * built once and released at once. */
#ifndef LOOM_UTIL_ARENA_H
#define LOOM_UTIL_ARENA_H

#include <stddef.h>

typedef struct loom_arena_block loom_arena_block;

typedef struct loom_arena {
	loom_arena_block *head;
	size_t block_size;   /* default size of new blocks */
	size_t total;        /* bytes allocated from the system */
} loom_arena;

void loom_arena_init(loom_arena *a, size_t block_size);
/* 16-byte aligned memory living until loom_arena_dispose; NULL on OOM
 * (an error is recorded). */
void *loom_arena_alloc(loom_arena *a, size_t size);
void *loom_arena_calloc(loom_arena *a, size_t size);
char *loom_arena_strndup(loom_arena *a, const char *s, size_t n);
char *loom_arena_strdup(loom_arena *a, const char *s);
/* An optional string copied: NULL stays NULL; on OOM NULL and *failed set
 * (for copying many fields and checking once). */
const char *loom_arena_strdup_opt(loom_arena *a, const char *s, int *failed);
void loom_arena_dispose(loom_arena *a);

#endif
