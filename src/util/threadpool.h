/* util/threadpool.h - a fixed pool of worker threads running submitted
 * tasks in FIFO order. */
#ifndef LOOM_UTIL_THREADPOOL_H
#define LOOM_UTIL_THREADPOOL_H

#include <stddef.h>

typedef struct loom_threadpool loom_threadpool;
typedef void (*loom_task_fn)(void *arg);

/* Start `nthreads` workers (0: one per online CPU). Every thread loom
 * starts is a worker of such a pool (util/parallel.c's calls included). */
int loom_threadpool_new(loom_threadpool **out, size_t nthreads);
/* The same, the threads named `name` (at most 15 characters) for whoever
 * looks at the process: "loom-cpu" for the threads that compute. */
int loom_threadpool_new_named(loom_threadpool **out, size_t nthreads, const char *name);
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

/* ---- independent calls in parallel (util/parallel.c) -------------------- */

/* One call of loom_parallel_for: 0 or a negative LOOM_E* code. */
typedef int (*loom_index_fn)(void *ctx, size_t index);

/* Call fn(ctx, i) for every i in [0, n) on up to `threads` threads (the
 * caller's among them), each taking the next index; a failing call does
 * not stop the others. `results` (may be NULL) gets every call's status.
 * Returns 0, or the error of the failing call with the lowest index,
 * raised again on this thread (the same error whatever the timing). */
int loom_parallel_for(size_t n, size_t threads, loom_index_fn fn, void *ctx, int *results);
/* The same on the threads of `pool` (NULL: a short-lived pool of its
 * own), `threads` counting the caller's: for callers whose threads
 * are already someone's (the rewrite pipeline's, from the CPU budget). */
int loom_parallel_for_on(loom_threadpool *pool, size_t n, size_t threads, loom_index_fn fn,
                         void *ctx, int *results);

/* Online CPUs (at least 1). */
size_t loom_cpu_count(void);

#endif
