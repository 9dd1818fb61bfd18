/* util/bytepool.h - a bump allocator for many small byte strings kept
 * side by side with no alignment and no per-string header (what the file
 * index packs names and held stats into: a 21-byte name costs 21 bytes,
 * where the arena would round it to 32).
 *
 * Memory comes in blocks (default 1 MiB, larger for one bigger string) that
 * are never moved, so a returned pointer stays valid until
 * loom_bytepool_dispose. Not thread-safe for writers; readers of bytes
 * already written need no lock. */
#ifndef LOOM_UTIL_BYTEPOOL_H
#define LOOM_UTIL_BYTEPOOL_H

#include <stddef.h>
#include <stdint.h>

typedef struct loom_bytepool_block loom_bytepool_block;

typedef struct loom_bytepool {
	loom_bytepool_block *head;
	size_t block_size;   /* default size of new blocks */
	size_t total;        /* bytes allocated from the system */
	size_t used;         /* bytes handed out */
} loom_bytepool;

void loom_bytepool_init(loom_bytepool *p, size_t block_size);
/* `n` contiguous bytes (n > 0), unaligned; NULL when out of memory (with
 * loom_err recorded). */
uint8_t *loom_bytepool_alloc(loom_bytepool *p, size_t n);
/* A copy of `n` bytes followed by a NUL. */
char *loom_bytepool_strndup(loom_bytepool *p, const char *s, size_t n);
void loom_bytepool_dispose(loom_bytepool *p);

#endif
