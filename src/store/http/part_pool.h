/* store/http/part_pool.h - upload part buffers reused across a store's writers.
 *
 * S3 multipart parts and Azure blocks are filled in buffers of one fixed
 * size (multipart_part_size) and freed once uploaded. Allocating a fresh
 * buffer for every part makes the kernel fault in and zero every page
 * again: on the compaction of a 96 MB table to S3 that was a third of
 * loom's CPU. A part_pool keeps the buffers of finished uploads (at most
 * `max_spare`) for the next part, of the same writer or another one, and
 * frees them when the store's last open writer closes, so an idle store
 * holds none. Thread-safe: parts are given back on upload threads. */
#ifndef LOOM_STORE_PART_POOL_H
#define LOOM_STORE_PART_POOL_H

#include <pthread.h>
#include <stddef.h>

typedef struct part_pool {
	pthread_mutex_t lock;
	size_t size;           /* bytes of every buffer */
	size_t max_spare;      /* buffers kept for reuse */
	void **spare;          /* max_spare slots */
	size_t n_spare;
	size_t writers;        /* open writers */
} part_pool;

/* Buffers of `size` bytes, at most `max_spare` (> 0) kept. */
int part_pool_init(part_pool *p, size_t size, size_t max_spare);
void part_pool_dispose(part_pool *p);

/* A writer that takes buffers opens and closes around its use; the last
 * close frees the spares. */
void part_pool_writer_open(part_pool *p);
void part_pool_writer_close(part_pool *p);

/* A buffer of p->size bytes (not zeroed), or NULL with the error set. */
void *part_pool_take(part_pool *p);
/* Hand a buffer from part_pool_take back (NULL is fine). */
void part_pool_give(part_pool *p, void *buf);

#endif
