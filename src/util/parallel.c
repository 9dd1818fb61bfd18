/* util/parallel.c - loom_parallel_for: independent calls spread over a
 * short-lived pool, errors reported as if the calls had run in order. */
#include <stdatomic.h>
#include <pthread.h>
#include <string.h>

#include "util/alloc.h"
#include "util/error.h"
#include "util/threadpool.h"

typedef struct parallel_run {
	loom_index_fn fn;
	void *ctx;
	int *results;
	size_t n;
	atomic_size_t next;
	pthread_mutex_t lock;
	size_t first_failed;          /* lowest failing index, n when none */
	loom_error first;
} parallel_run;

/* One thread's share: the next index until none is left. */
static void parallel_worker(void *arg)
{
	parallel_run *r = arg;
	size_t i;
	while ((i = atomic_fetch_add(&r->next, 1)) < r->n) {
		int rc = r->fn(r->ctx, i);
		if (r->results)
			r->results[i] = rc;
		if (rc < 0) {
			pthread_mutex_lock(&r->lock);
			if (i < r->first_failed) {
				r->first_failed = i;
				loom_err_copy(&r->first);
			}
			pthread_mutex_unlock(&r->lock);
		}
	}
}

/* The threads beyond the caller's: tasks of a group on `pool`, or workers
 * of a short-lived pool. Either way the calling thread works too, so
 * queueing that fails is no failure: the calls then run here. */
static void parallel_spread(parallel_run *r, loom_threadpool *pool, size_t threads)
{
	loom_threadpool *own = NULL;
	loom_taskgroup g;
	size_t t;

	if (threads > r->n)
		threads = r->n;
	if (pool) {
		loom_taskgroup_init(&g, pool);
		for (t = 1; t < threads; t++)
			loom_taskgroup_run(&g, parallel_worker, r);
		parallel_worker(r);
		loom_taskgroup_wait(&g);
		return;
	}
	if (threads > 1 && loom_threadpool_new(&own, threads - 1) == 0)
		for (t = 1; t < threads; t++)
			if (loom_threadpool_submit(own, parallel_worker, r) < 0)
				break;
	parallel_worker(r);
	loom_threadpool_free(own);
}

int loom_parallel_for_on(loom_threadpool *pool, size_t n, size_t threads, loom_index_fn fn,
                         void *ctx, int *results)
{
	parallel_run r;

	if (n == 0)
		return 0;
	memset(&r, 0, sizeof(r));
	r.fn = fn;
	r.ctx = ctx;
	r.results = results;
	r.n = n;
	r.first_failed = n;
	atomic_init(&r.next, 0);
	if (pthread_mutex_init(&r.lock, NULL) != 0)
		return loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_OS, "cannot create a mutex");
	parallel_spread(&r, pool, threads);
	pthread_mutex_destroy(&r.lock);
	return r.first_failed < n ? loom_err_raise(&r.first) : 0;
}

int loom_parallel_for(size_t n, size_t threads, loom_index_fn fn, void *ctx, int *results)
{
	return loom_parallel_for_on(NULL, n, threads, fn, ctx, results);
}
