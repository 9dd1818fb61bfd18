/* plan/budget.c - a run's budgets (plan/budget.h). */
#include "plan/budget.h"

#include <math.h>
#include <stdio.h>

#include "loom/health.h"
#include "loom/metrics.h"
#include "util/error.h"

int plan_budget_active(const plan_budget *b)
{
	return b->seconds > 0 || b->bytes > 0;
}

int plan_budget_spent(const plan_budget *b, const loom_cancel *deadline, char *why, size_t cap)
{
	long long spent = atomic_load(&((plan_budget *)b)->spent);
	if (b->seconds > 0 && loom_cancel_past_deadline(deadline)) {
		snprintf(why, cap, "time budget of %.0f s spent", b->seconds);
		return 1;
	}
	if (b->bytes > 0 && spent >= b->bytes) {
		snprintf(why, cap, "byte budget spent: %lld of %lld bytes rewritten", spent,
		         (long long)b->bytes);
		return 1;
	}
	return 0;
}

void plan_budget_charge(plan_budget *b, const loom_op_result *res)
{
	int64_t n = loom_op_result_metric(res, LOOM_METRIC_NUM_REMOVED_BYTES, 0);
	if (n > 0 && !res->dry_run)
		atomic_fetch_add(&b->spent, (long long)n);
}

double plan_budget_benefit(const char *uri, const loom_table_location *loc)
{
	loom_health *h = NULL;
	const loom_health_table *s;
	double files, bytes;
	if (loom_health_load(&h, uri, loc, NULL) < 0) {
		loom_error_clear(); /* the run itself reports what is wrong */
		return -1;
	}
	s = loom_health_summary(h);
	files = (double)(s->files.compactable_files + s->files.dv_purge_files);
	bytes = (double)(s->files.compactable_bytes + s->files.dv_purge_bytes);
	loom_health_free(h);
	return bytes > 0 ? files / bytes : HUGE_VAL;
}
