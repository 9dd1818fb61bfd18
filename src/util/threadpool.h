/* util/threadpool.h - a fixed pool of worker threads running submitted
 * tasks in FIFO order. */
#ifndef LOOM_UTIL_THREADPOOL_H
#define LOOM_UTIL_THREADPOOL_H

#include <stddef.h>

typedef struct loom_threadpool loom_threadpool;
typedef void (*loom_task_fn)(void *arg);

/* Start `nthreads` workers (0: one per online CPU). */
int loom_threadpool_new(loom_threadpool **out, size_t nthreads);
/* Queue a task. Tasks must not block waiting for other queued tasks. */
int loom_threadpool_submit(loom_threadpool *p, loom_task_fn fn, void *arg);
/* Block until every task submitted so far has finished. */
void loom_threadpool_wait(loom_threadpool *p);
size_t loom_threadpool_size(const loom_threadpool *p);
/* Finish queued tasks, stop the workers and free the pool. NULL is fine. */
void loom_threadpool_free(loom_threadpool *p);

/* Online CPUs (at least 1). */
size_t loom_cpu_count(void);

#endif
