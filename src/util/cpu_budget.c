/* util/cpu_budget.c - the process's CPU budget (util/cpu_budget.h). */
#include "util/cpu_budget.h"

#include <pthread.h>

#include "util/threadpool.h"

static pthread_mutex_t budget_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t budget_freed = PTHREAD_COND_INITIALIZER;
static size_t budget_jobs = 1;
static size_t budget_used;

/* Guarded by budget_lock. */
static size_t budget_total(void)
{
	size_t cpus = loom_cpu_count();
	return budget_jobs > cpus ? budget_jobs : cpus;
}

void loom_cpu_budget_set_jobs(size_t jobs)
{
	pthread_mutex_lock(&budget_lock);
	budget_jobs = jobs ? jobs : 1;
	pthread_cond_broadcast(&budget_freed);
	pthread_mutex_unlock(&budget_lock);
}

size_t loom_cpu_budget_take(size_t want)
{
	size_t total, share, got;
	pthread_mutex_lock(&budget_lock);
	while (budget_used >= budget_total())
		pthread_cond_wait(&budget_freed, &budget_lock);
	total = budget_total();
	share = total / budget_jobs ? total / budget_jobs : 1;
	got = want && want < share ? want : share;
	if (got > total - budget_used)
		got = total - budget_used;
	budget_used += got;
	pthread_mutex_unlock(&budget_lock);
	return got;
}

void loom_cpu_budget_give(size_t n)
{
	pthread_mutex_lock(&budget_lock);
	budget_used = n < budget_used ? budget_used - n : 0;
	pthread_cond_broadcast(&budget_freed);
	pthread_mutex_unlock(&budget_lock);
}
