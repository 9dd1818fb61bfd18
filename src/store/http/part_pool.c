/* store/http/part_pool.c - see part_pool.h. */
#include "store/http/part_pool.h"

#include "util/alloc.h"
#include "util/error.h"

int part_pool_init(part_pool *p, size_t size, size_t max_spare)
{
	p->size = size;
	p->max_spare = max_spare ? max_spare : 1;
	p->n_spare = 0;
	p->writers = 0;
	if (!(p->spare = loom_calloc(p->max_spare, sizeof(void *))))
		return loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_STORE, "out of memory");
	pthread_mutex_init(&p->lock, NULL);
	return 0;
}

static void free_spares(part_pool *p)
{
	while (p->n_spare)
		loom_free(p->spare[--p->n_spare]);
}

void part_pool_dispose(part_pool *p)
{
	if (!p->spare)
		return;
	free_spares(p);
	loom_free(p->spare);
	p->spare = NULL;
	pthread_mutex_destroy(&p->lock);
}

void part_pool_writer_open(part_pool *p)
{
	pthread_mutex_lock(&p->lock);
	p->writers++;
	pthread_mutex_unlock(&p->lock);
}

void part_pool_writer_close(part_pool *p)
{
	pthread_mutex_lock(&p->lock);
	if (p->writers && --p->writers == 0)
		free_spares(p);
	pthread_mutex_unlock(&p->lock);
}

void *part_pool_take(part_pool *p)
{
	void *buf = NULL;
	pthread_mutex_lock(&p->lock);
	if (p->n_spare)
		buf = p->spare[--p->n_spare];
	pthread_mutex_unlock(&p->lock);
	if (!buf && !(buf = loom_malloc(p->size)))
		loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_STORE, "out of memory for a %zu-byte upload part", p->size);
	return buf;
}

void part_pool_give(part_pool *p, void *buf)
{
	if (!buf)
		return;
	pthread_mutex_lock(&p->lock);
	if (p->writers && p->n_spare < p->max_spare) {
		p->spare[p->n_spare++] = buf;
		buf = NULL;
	}
	pthread_mutex_unlock(&p->lock);
	loom_free(buf);
}
