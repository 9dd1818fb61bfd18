/* plan/report_text.c - the human summary of a report (what the CLI prints
 * on a terminal). */
#include <stdio.h>
#include <string.h>

#include "loom/config.h"
#include "loom/metrics.h"
#include "plan/plan_int.h"
#include "plan/report_int.h"
#include "util/buf.h"
#include "util/error.h"

static const char *plural(int64_t n)
{
	return n == 1 ? "" : "s";
}

/* One short phrase per operation; every metric is in the JSON report. A
 * metric an operation did not report (a custom backend) is left out. */
static void op_summary(int *brcp, loom_buf *b, const char *name, const loom_op_result *r)
{
	char x[32], y[32];
	int64_t n, v;
	switch (r->kind) {
	case LOOM_RESULT_VACUUM:
		n = (int64_t)r->n_files_deleted;
		v = loom_op_result_metric(r, LOOM_METRIC_SIZE_OF_DATA_TO_DELETE, -1);
		loom_size_format(x, sizeof(x), v);
		plan_bprintf(brcp, b, "%s: %s %lld file%s", name, r->dry_run ? "would delete" : "deleted",
		             (long long)n, plural(n));
		if (v >= 0 || r->dry_run)
			plan_bprintf(brcp, b, " (%s%s%s)", v >= 0 ? x : "", v >= 0 && r->dry_run ? ", " : "",
			             r->dry_run ? "dry run" : "");
		break;
	case LOOM_RESULT_OPTIMIZE:
		/* analyze (issue 32) rewrites nothing: it re-states files */
		if ((n = loom_op_result_metric(r, LOOM_METRIC_NUM_FILES_ANALYZED, -1)) >= 0) {
			v = loom_op_result_metric(r, LOOM_METRIC_NUM_FILES_SCANNED, -1);
			if (n == 0)
				plan_bprintf(brcp, b, "%s: no file needs statistics", name);
			else
				plan_bprintf(brcp, b, "%s: %s statistics of %lld file%s", name,
				             r->dry_run ? "would compute" : "computed", (long long)n, plural(n));
			if (n > 0 && v > 0)
				plan_bprintf(brcp, b, " (%lld scanned)", (long long)v);
			if (r->dry_run)
				plan_bprintf(brcp, b, "%s", " (dry run)");
			break;
		}
		if (r->dry_run) {
			n = loom_op_result_metric(r, LOOM_METRIC_FILES_REMOVED_TOTAL_FILES, r->num_files_removed);
			v = loom_op_result_metric(r, LOOM_METRIC_NUM_BINS, -1);
			plan_bprintf(brcp, b, "%s: would rewrite %lld file%s", name, (long long)n, plural(n));
			if (v >= 0)
				plan_bprintf(brcp, b, " in %lld bin%s", (long long)v, plural(v));
			plan_bprintf(brcp, b, "%s", " (dry run)");
			break;
		}
		if (r->num_files_removed == 0 && r->num_files_added == 0) {
			plan_bprintf(brcp, b, "%s: nothing to rewrite", name);
			break;
		}
		plan_bprintf(brcp, b, "%s: %lld file%s -> %lld file%s", name,
		             (long long)r->num_files_removed, plural(r->num_files_removed),
		             (long long)r->num_files_added, plural(r->num_files_added));
		n = loom_op_result_metric(r, LOOM_METRIC_NUM_REMOVED_BYTES, -1);
		v = loom_op_result_metric(r, LOOM_METRIC_NUM_ADDED_BYTES, -1);
		loom_size_format(x, sizeof(x), n);
		loom_size_format(y, sizeof(y), v);
		if (n >= 0 && v >= 0)
			plan_bprintf(brcp, b, ", %s -> %s", x, y);
		if ((n = loom_op_result_metric(r, LOOM_METRIC_NUM_ROWS_PURGED, -1)) >= 0)
			plan_bprintf(brcp, b, ", %lld deleted row%s purged", (long long)n, plural(n));
		break;
	default:
		v = loom_op_result_metric(r, LOOM_METRIC_VERSION, -1);
		if (v >= 0)
			plan_bprintf(brcp, b, "%s: version %lld", name, (long long)v);
		else
			plan_bprintf(brcp, b, "%s: done", name);
		break;
	}
}

LOOM_EXTERN(int) loom_report_to_text(char **out, const loom_report *rep)
{
	loom_buf b = LOOM_BUF_INIT;
	static const char *const shown[] = { "ok", "FAILED", "skipped" };   /* by report_status */
	size_t i, j, k, w = 5, count[3] = { 0, 0, 0 };
	int brc = 0;

	if (!rep || !out)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_PLAN, "loom_report_to_text: NULL argument");
	for (i = 0; i < rep->n_tables; i++)
		if (strlen(rep->tables[i].ref) > w)
			w = strlen(rep->tables[i].ref);
	plan_bprintf(&brc, &b, "%-*s  %-7s  %9s  %s\n", (int)w, "TABLE", "STATUS", "DURATION", "DETAIL");
	for (i = 0; i < rep->n_tables; i++) {
		const loom_table_result *t = &rep->tables[i];
		report_status status = report_table_status(t);
		count[status]++;
		plan_bprintf(&brc, &b, "%-*s  %-7s  %8.2fs  ", (int)w, t->ref, shown[status], t->duration_seconds);
		for (j = 0; j < t->n_ops; j++) {
			if (j)
				loom_buf_puts(&b, "; ");
			op_summary(&brc, &b, t->ops[j].name, &t->ops[j].result);
			for (k = 0; k < t->ops[j].n_notes; k++)
				plan_bprintf(&brc, &b, "\n    %s", t->ops[j].notes[k]);
		}
		if (t->error_code)
			plan_bprintf(&brc, &b, "%s%s%s%s: %s", t->n_ops ? "; " : "",
			                t->failed_op ? t->failed_op : "", t->failed_op ? " " : "",
			                loom_error_code_name(t->error_code), loom_table_result_error_message(t));
		else if (t->skipped)
			plan_bprintf(&brc, &b, "%s", t->skip_reason ? t->skip_reason : "skipped");
		plan_bprintf(&brc, &b, "%s", "\n");
	}
	for (i = 0; i < rep->n_warnings; i++)
		plan_bprintf(&brc, &b, "warning: %s\n", rep->warnings[i]);
	plan_bprintf(&brc, &b, "%zu table%s: %zu ok, %zu failed, %zu skipped%s\n", rep->n_tables,
	                rep->n_tables == 1 ? "" : "s", count[REPORT_OK], count[REPORT_FAILED], count[REPORT_SKIPPED],
	                rep->cancelled ? " (cancelled)" : "");
	plan_bprintf(&brc, &b, "%s", "");
	if (brc < 0) {
		loom_buf_dispose(&b);
		return brc;
	}
	*out = loom_buf_detach(&b);
	return 0;
}
