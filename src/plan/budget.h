/* plan/budget.h - a run's budgets (loom_runner_set_budget): wall time and
 * bytes rewritten. Under a budget the runner orders the tables by benefit
 * per byte, starts no table or operation once a budget is spent, and runs
 * compactions and Z-orders with partial commits, so that the time
 * budget's deadline (the ops' cancel token) stops them with their finished
 * units committed. */
#ifndef LOOM_PLAN_BUDGET_H
#define LOOM_PLAN_BUDGET_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "loom/ops.h"
#include "loom/plan.h"

/* What a rewrite under a budget commits at once unless it sets its own. */
#define PLAN_BUDGET_COMMIT_EVERY (1024LL * 1024 * 1024)

typedef struct plan_budget {
	double seconds;               /* 0: no time budget */
	int64_t bytes;                /* 0: no byte budget */
	int64_t commit_every;         /* given to rewrites that set none */
	atomic_llong spent;           /* input bytes rewritten so far */
} plan_budget;

/* Some budget is set. */
int plan_budget_active(const plan_budget *b);

/* 1 when no new work may start (`why` says which budget), else 0.
 * `deadline` is the ops' cancel token, which carries the time budget. */
int plan_budget_spent(const plan_budget *b, const loom_cancel *deadline, char *why, size_t cap);

/* Count what a finished operation rewrote against the byte budget. */
void plan_budget_charge(plan_budget *b, const loom_op_result *res);

/* How much a table gains per byte its maintenance reads, from its health
 * (the log alone): files compaction would merge plus files whose deletion
 * vectors it would purge, per byte of those files. A table with nothing to
 * rewrite costs next to nothing and comes first; one whose health cannot
 * be read comes last. */
double plan_budget_benefit(const char *uri, const loom_table_location *loc);

#endif
