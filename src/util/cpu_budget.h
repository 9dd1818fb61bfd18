/* util/cpu_budget.h - one CPU budget per process. The threads that compute
 * (the rewrite pipelines' workers) take their slots from it and give them
 * back when their pipeline ends, so operations running side by side
 * (`loom maintain --jobs N`, several Python threads) never run more
 * computing threads than the budget: the online CPUs, or N while N jobs
 * are declared. Threads that mostly wait on the network or the disk (log
 * fetches, uploads, deletes) take no slot. */
#ifndef LOOM_UTIL_CPU_BUDGET_H
#define LOOM_UTIL_CPU_BUDGET_H

#include <stddef.h>

/* Declare `jobs` concurrent jobs (1: none): the budget becomes
 * max(CPUs, jobs) and a taker gets at most its share of it,
 * max(1, budget / jobs). The runner declares its --jobs for the time of a
 * run and 1 again after it. */
void loom_cpu_budget_set_jobs(size_t jobs);

/* Take up to `want` slots (0: a share): blocks while none is free, then
 * returns how many were taken, at least 1. */
size_t loom_cpu_budget_take(size_t want);
/* Give back `n` slots taken before. */
void loom_cpu_budget_give(size_t n);

#endif
