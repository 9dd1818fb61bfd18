/* plan/report_int.h - the report's structures, filled by the runner. */
#ifndef LOOM_PLAN_REPORT_INT_H
#define LOOM_PLAN_REPORT_INT_H

#include <stdatomic.h>

#include "loom/errors.h"
#include "loom/plan.h"

typedef struct report_op {
	char *name;
	loom_op_result result;
	double seconds;       /* time the op took */
	char **notes;         /* why sub-operations ran or were skipped (auto) */
	size_t n_notes;
} report_op;

struct loom_table_result {
	char *ref;
	char *uri;            /* NULL when not located; secrets masked */
	int error_code;       /* 0 = ok */
	int error_class;      /* a loom_error_class */
	char *error_message;  /* NULL when ok: a lake's report holds a table's
	                       * outcome, so only a failed one pays for its text */
	char *failed_op;
	int skipped;
	char *skip_reason;
	double duration_seconds;
	report_op *ops;
	size_t n_ops;
};

struct loom_report {
	char *step;
	loom_table_result *tables;
	size_t n_tables;
	char **warnings;
	size_t n_warnings;
	int cancelled;
	_Atomic int64_t stopped_at;   /* LOOM_MISSING_STOP: the table that stopped the run, or -1 */
	size_t jobs;
	double duration_seconds;
};

int report_new(loom_report **out, const char *step, size_t n_tables);

/* A table's outcome, and its name in reports ("ok", "failed", "skipped"). */
typedef enum { REPORT_OK, REPORT_FAILED, REPORT_SKIPPED } report_status;
report_status report_table_status(const loom_table_result *t);
const char *report_status_name(report_status s);
int report_add_warning(loom_report *r, const char *w);
/* Take over `res` (zeroed afterwards) as op `name` of table t. */
int report_table_add_op(loom_table_result *t, const char *name, loom_op_result *res);

/* Notes an op leaves while it executes (auto mode: "compact: ran: ...").
 * They are kept per thread and join the op's entry when the runner adds
 * its result on the same worker thread (report_table_add_op); an op that
 * fails drops them with plan_notes_clear. */
int plan_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void plan_notes_clear(void);

#endif
