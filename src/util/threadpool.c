/* util/threadpool.c - pthread worker pool. */
#include "util/threadpool.h"

#include <pthread.h>
#include <unistd.h>

#include "util/alloc.h"
#include "util/error.h"

typedef struct task {
	struct task *next;
	loom_task_fn fn;
	void *arg;
	loom_taskgroup *group;   /* NULL: a plain task */
} task;

struct loom_threadpool {
	pthread_mutex_t lock;
	pthread_cond_t work_ready;
	pthread_cond_t all_done;
	task *head, *tail;
	size_t pending;      /* queued + running */
	int stopping;
	size_t nthreads;
	pthread_t *threads;
};

size_t loom_cpu_count(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? (size_t)n : 1;
}

/* Run a dequeued task and account for it. */
static void run_task(loom_threadpool *p, task *t)
{
	loom_taskgroup *g = t->group;
	t->fn(t->arg);
	loom_free(t);
	pthread_mutex_lock(&p->lock);
	if (g)
		g->pending--;
	--p->pending;
	/* waiters of the pool and of groups share this condition */
	pthread_cond_broadcast(&p->all_done);
	pthread_mutex_unlock(&p->lock);
}

static void *worker_main(void *arg)
{
	loom_threadpool *p = arg;
	for (;;) {
		task *t;
		pthread_mutex_lock(&p->lock);
		while (!p->head && !p->stopping)
			pthread_cond_wait(&p->work_ready, &p->lock);
		if (!p->head) {
			pthread_mutex_unlock(&p->lock);
			return NULL;
		}
		t = p->head;
		p->head = t->next;
		if (!p->head)
			p->tail = NULL;
		pthread_mutex_unlock(&p->lock);

		run_task(p, t);
	}
}

int loom_threadpool_new(loom_threadpool **out, size_t nthreads)
{
	return loom_threadpool_new_named(out, nthreads, NULL);
}

int loom_threadpool_new_named(loom_threadpool **out, size_t nthreads, const char *name)
{
	loom_threadpool *p = loom_calloc(1, sizeof(*p));
	size_t i;

	if (!p)
		return loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_OS, "out of memory creating a thread pool");
	if (!nthreads)
		nthreads = loom_cpu_count();
	p->threads = loom_calloc(nthreads, sizeof(pthread_t));
	if (!p->threads) {
		loom_free(p);
		return loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_OS, "out of memory creating a thread pool");
	}
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->work_ready, NULL);
	pthread_cond_init(&p->all_done, NULL);
	for (i = 0; i < nthreads; i++) {
		int rc = pthread_create(&p->threads[i], NULL, worker_main, p);
		if (rc != 0) {
			p->nthreads = i;
			loom_threadpool_free(p);
			return loom_err_os(LOOM_EIO, rc, "cannot start worker thread %zu", i);
		}
		/* the name shows in top -H, gdb and /proc/PID/task/TID/comm; a
		 * name the system refuses is not worth failing over */
		if (name)
			(void)pthread_setname_np(p->threads[i], name);
	}
	p->nthreads = nthreads;
	*out = p;
	return 0;
}

static int submit(loom_threadpool *p, loom_taskgroup *g, loom_task_fn fn, void *arg)
{
	task *t = loom_malloc(sizeof(*t));
	if (!t)
		return loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_OS, "out of memory queueing a task");
	t->next = NULL;
	t->fn = fn;
	t->arg = arg;
	t->group = g;
	pthread_mutex_lock(&p->lock);
	if (g)
		g->pending++;
	if (p->tail)
		p->tail->next = t;
	else
		p->head = t;
	p->tail = t;
	p->pending++;
	pthread_cond_signal(&p->work_ready);
	pthread_mutex_unlock(&p->lock);
	return 0;
}

int loom_threadpool_submit(loom_threadpool *p, loom_task_fn fn, void *arg)
{
	return submit(p, NULL, fn, arg);
}

void loom_taskgroup_init(loom_taskgroup *g, loom_threadpool *pool)
{
	g->pool = pool;
	g->pending = 0;
}

void loom_taskgroup_run(loom_taskgroup *g, loom_task_fn fn, void *arg)
{
	if (!g->pool || submit(g->pool, g, fn, arg) < 0)
		fn(arg);
}

void loom_taskgroup_wait(loom_taskgroup *g)
{
	loom_threadpool *p = g->pool;
	if (!p)
		return;
	pthread_mutex_lock(&p->lock);
	while (g->pending) {
		task *t, *prev = NULL;
		for (t = p->head; t && t->group != g; t = t->next)
			prev = t;
		if (!t) {
			pthread_cond_wait(&p->all_done, &p->lock);
			continue;
		}
		/* help: run one of the group's queued tasks here */
		if (prev)
			prev->next = t->next;
		else
			p->head = t->next;
		if (p->tail == t)
			p->tail = prev;
		pthread_mutex_unlock(&p->lock);
		run_task(p, t);
		pthread_mutex_lock(&p->lock);
	}
	pthread_mutex_unlock(&p->lock);
}

void loom_threadpool_wait(loom_threadpool *p)
{
	pthread_mutex_lock(&p->lock);
	while (p->pending)
		pthread_cond_wait(&p->all_done, &p->lock);
	pthread_mutex_unlock(&p->lock);
}

size_t loom_threadpool_size(const loom_threadpool *p)
{
	return p->nthreads;
}

void loom_threadpool_free(loom_threadpool *p)
{
	size_t i;
	if (!p)
		return;
	pthread_mutex_lock(&p->lock);
	p->stopping = 1;
	pthread_cond_broadcast(&p->work_ready);
	pthread_mutex_unlock(&p->lock);
	for (i = 0; i < p->nthreads; i++)
		pthread_join(p->threads[i], NULL);
	pthread_mutex_destroy(&p->lock);
	pthread_cond_destroy(&p->work_ready);
	pthread_cond_destroy(&p->all_done);
	loom_free(p->threads);
	loom_free(p);
}
