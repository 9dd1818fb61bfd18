/* plan/report_text.c - the human summary of a report (what the CLI prints
 * on a terminal). */
#include <string.h>

#include "plan/plan_int.h"
#include "plan/report_int.h"
#include "util/buf.h"
#include "util/error.h"

static void op_summary(int *brcp, loom_buf *b, const char *name, const loom_op_result *r)
{
	size_t i;
	switch (r->kind) {
	case LOOM_RESULT_VACUUM:
		plan_bprintf(brcp, b, "%s: %zu file%s %s", name, r->n_files_deleted,
		                r->n_files_deleted == 1 ? "" : "s",
		                r->dry_run ? "to delete (dry run)" : "deleted");
		break;
	case LOOM_RESULT_OPTIMIZE:
		plan_bprintf(brcp, b, "%s: %lld -> %lld files", name, (long long)r->num_files_removed,
		                (long long)r->num_files_added);
		break;
	default:
		plan_bprintf(brcp, b, "%s: done", name);
		break;
	}
	for (i = 0; i < r->n_metrics; i++)
		plan_bprintf(brcp, b, "%s%s=%lld", i ? ", " : " (", r->metrics[i].name,
		                (long long)r->metrics[i].value);
	if (r->n_metrics)
		plan_bprintf(brcp, b, "%c", ')');
}

LOOM_EXTERN(int) loom_report_to_text(const loom_report *rep, char **out)
{
	loom_buf b = LOOM_BUF_INIT;
	size_t i, j, w = 5, ok = 0, failed = 0, skipped = 0;
	int brc = 0;

	if (!rep || !out)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_PLAN, "loom_report_to_text: NULL argument");
	for (i = 0; i < rep->n_tables; i++)
		if (strlen(rep->tables[i].ref) > w)
			w = strlen(rep->tables[i].ref);
	plan_bprintf(&brc, &b, "%-*s  %-7s  %9s  %s\n", (int)w, "TABLE", "STATUS", "DURATION", "DETAIL");
	for (i = 0; i < rep->n_tables; i++) {
		const loom_table_result *t = &rep->tables[i];
		const char *status = t->error_code ? "FAILED" : t->skipped ? "skipped" : "ok";
		if (t->error_code)
			failed++;
		else if (t->skipped)
			skipped++;
		else
			ok++;
		plan_bprintf(&brc, &b, "%-*s  %-7s  %8.2fs  ", (int)w, t->ref, status, t->duration_seconds);
		for (j = 0; j < t->n_ops; j++) {
			if (j)
				loom_buf_puts(&b, "; ");
			op_summary(&brc, &b, t->ops[j].name, &t->ops[j].result);
		}
		if (t->error_code)
			plan_bprintf(&brc, &b, "%s%s%s%s: %s", t->n_ops ? "; " : "",
			                t->failed_op ? t->failed_op : "", t->failed_op ? " " : "",
			                loom_error_code_name(t->error_code), t->error_message);
		else if (t->skipped)
			plan_bprintf(&brc, &b, "%s", t->skip_reason ? t->skip_reason : "skipped");
		plan_bprintf(&brc, &b, "%s", "\n");
	}
	for (i = 0; i < rep->n_warnings; i++)
		plan_bprintf(&brc, &b, "warning: %s\n", rep->warnings[i]);
	plan_bprintf(&brc, &b, "%zu table%s: %zu ok, %zu failed, %zu skipped%s\n", rep->n_tables,
	                rep->n_tables == 1 ? "" : "s", ok, failed, skipped,
	                rep->cancelled ? " (cancelled)" : "");
	plan_bprintf(&brc, &b, "%s", "");
	if (brc < 0) {
		loom_buf_dispose(&b);
		return brc;
	}
	*out = loom_buf_detach(&b);
	return 0;
}
