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

/* A task group: tasks submitted to one pool that a caller waits for
 * together. Waiting runs the group's queued tasks on the waiting thread,
 * so a task may itself submit to the pool and wait for its own group
 * without deadlock (nested parallelism on one fixed pool). Only tasks of
 * the same group are run by a waiter: a task that blocks on something
 * other than a group (a hand-off queue) needs a thread of its own. */
typedef struct loom_taskgroup {
	loom_threadpool *pool;     /* NULL: tasks run inline at submit */
	size_t pending;            /* guarded by the pool's lock */
} loom_taskgroup;

void loom_taskgroup_init(loom_taskgroup *g, loom_threadpool *pool);
/* Queue fn(arg) in the group; without a pool (or when queueing fails)
 * the task runs at once on the calling thread. */
void loom_taskgroup_run(loom_taskgroup *g, loom_task_fn fn, void *arg);
/* Block until every task of the group has finished, running queued ones. */
void loom_taskgroup_wait(loom_taskgroup *g);

/* Online CPUs (at least 1). */
size_t loom_cpu_count(void);

#endif
