/* plan/runner.c - run a step's specs against their tables.
 *
 * Specs of the same table run in declaration order on one worker (two ops
 * on one table at once would race their commits); different tables run
 * concurrently on a bounded pool. Each table's outcome lands in a slot
 * fixed at resolve time, so the report order never depends on scheduling.
 * Errors are copied from the worker's thread-local record into the slot. */
#include <stdatomic.h>
#include <stdio.h>
#include <pthread.h>
#include <string.h>

#include "loom/store.h"
#include "plan/config_int.h"
#include "plan/plan_int.h"
#include "plan/budget.h"
#include "plan/report_int.h"
#include "util/alloc.h"
#include "util/cpu_budget.h"
#include "util/clock.h"
#include "util/error.h"
#include "util/threadpool.h"

struct loom_runner {
	const loom_config *cfg;
	const loom_maintainer *m;
	int policy;
	size_t jobs;
	loom_cancel *cancel;
	/* set by a missing table under LOOM_MISSING_STOP: no table starts after
	 * it (not the ops' cancel token: running tables finish) */
	loom_cancel *stop;
	loom_locate_fn locate;
	loom_location_release_fn release;
	void *locate_payload;
	loom_progress_fn progress;
	void *progress_payload;
	plan_budget budget;           /* loom_runner_set_budget */
	pthread_mutex_t warn_lock;    /* report warnings from job threads */
};

LOOM_EXTERN(int) loom_runner_from_config(loom_runner **out, const loom_config *cfg,
                                         const loom_maintainer *maintainer,
                                         loom_missing_policy missing_table_policy)
{
	loom_runner *r;
	size_t i;
	int has_path;

	if (!out || !cfg)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_PLAN, "loom_runner_from_config: NULL argument");
	*out = NULL;
	if (missing_table_policy != LOOM_MISSING_SKIP && missing_table_policy != LOOM_MISSING_ERROR &&
	    missing_table_policy != LOOM_MISSING_STOP)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_PLAN,
		                "missing_table_policy %d: expected LOOM_MISSING_SKIP, LOOM_MISSING_ERROR "
		                "or LOOM_MISSING_STOP", missing_table_policy);
	if (!maintainer) {
		int rc = loom_maintainer_native(&maintainer);
		if (rc < 0 || !maintainer) {
			const loom_error *e = loom_error_last();
			return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_PLAN,
			                "no maintainer given and the native engine is unavailable: %s",
			                e ? e->message : "unknown reason");
		}
	}
	if (!plan_maintainer_version_ok(maintainer))
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_PLAN,
		                "maintainer '%s' has version %u, expected 1 to %u",
		                maintainer->name ? maintainer->name : "?", maintainer->version,
		                LOOM_MAINTAINER_VERSION);
	has_path = cfg->has_default;
	for (i = 0; i < cfg->n_tables; i++)
		has_path |= cfg->tables[i].has_path;
	if (!has_path)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_CONFIG,
		                "%s:%d:%d: no path routes: every table routes to a catalog ref and "
		                "there is no defaults.table_path; maintenance needs table paths",
		                cfg->source, cfg->tables_line, cfg->tables_col);
	r = loom_calloc(1, sizeof(*r));
	if (!r)
		return loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_PLAN, "out of memory");
	if (loom_cancel_new(&r->cancel) < 0 || loom_cancel_new(&r->stop) < 0 ||
	    pthread_mutex_init(&r->warn_lock, NULL) != 0) {
		loom_cancel_free(r->cancel);
		loom_cancel_free(r->stop);
		loom_free(r);
		return loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_PLAN, "out of memory");
	}
	atomic_init(&r->budget.spent, 0);
	r->cfg = cfg;
	r->m = maintainer;
	r->policy = missing_table_policy;
	r->jobs = 1;
	*out = r;
	return 0;
}

LOOM_EXTERN(int) loom_runner_set_jobs(loom_runner *r, size_t jobs)
{
	if (!r)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_PLAN, "loom_runner_set_jobs: runner is NULL");
	if (jobs > 256)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_PLAN, "jobs %zu: at most 256", jobs);
	r->jobs = jobs ? jobs : loom_cpu_count();
	return 0;
}

LOOM_EXTERN(int) loom_runner_set_budget(loom_runner *r, double seconds, int64_t bytes,
                                        int64_t commit_every)
{
	if (!r)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_PLAN, "loom_runner_set_budget: NULL runner");
	if (seconds < 0 || bytes < 0 || commit_every < 0 || seconds != seconds)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_PLAN,
		                "budget: time %g s, bytes %lld, commit_every %lld: none may be negative",
		                seconds, (long long)bytes, (long long)commit_every);
	r->budget.seconds = seconds;
	r->budget.bytes = bytes;
	r->budget.commit_every = commit_every ? commit_every : PLAN_BUDGET_COMMIT_EVERY;
	return 0;
}

LOOM_EXTERN(void) loom_runner_cancel(loom_runner *r)
{
	if (r)
		loom_cancel_request(r->cancel);
}

LOOM_EXTERN(void) loom_runner_reset_cancel(loom_runner *r)
{
	if (r)
		loom_cancel_reset(r->cancel);
}

LOOM_EXTERN(int) loom_runner_set_locator(loom_runner *r, loom_locate_fn locate,
                                         loom_location_release_fn release, void *payload)
{
	if (!r)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_PLAN, "loom_runner_set_locator: runner is NULL");
	r->locate = locate;
	r->release = release;
	r->locate_payload = payload;
	return 0;
}

LOOM_EXTERN(int) loom_runner_set_progress(loom_runner *r, loom_progress_fn fn, void *payload)
{
	if (!r)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_PLAN, "loom_runner_set_progress: runner is NULL");
	r->progress = fn;
	r->progress_payload = payload;
	return 0;
}

LOOM_EXTERN(void) loom_runner_free(loom_runner *r)
{
	if (!r)
		return;
	loom_cancel_free(r->cancel);
	loom_cancel_free(r->stop);
	pthread_mutex_destroy(&r->warn_lock);
	loom_free(r);
}

/* A warning from a job thread (the report's list is not thread-safe). */
static void warn(loom_runner *r, loom_report *rep, const char *msg)
{
	pthread_mutex_lock(&r->warn_lock);
	if (report_add_warning(rep, msg) < 0)
		loom_error_clear(); /* a lost warning is not worth failing a table for */
	pthread_mutex_unlock(&r->warn_lock);
}

/* ---- one table ---------------------------------------------------------- */

static void set_error(const loom_runner *r, loom_table_result *t, int code, const char *op,
                      const char *fallback)
{
	const loom_error *e = loom_error_last();
	char msg[LOOM_ERROR_MESSAGE_MAX], masked[LOOM_ERROR_MESSAGE_MAX];
	snprintf(msg, sizeof(msg), "%s", e && e->message[0] ? e->message : fallback);
	loom_config_mask(masked, sizeof(masked), r->cfg, msg);
	loom_free(t->error_message);
	t->error_message = loom_strdup(masked);   /* NULL (out of memory): "" */
	t->error_code = code;
	t->error_class = e && e->message[0] ? e->klass : LOOM_ERRCLASS_PLAN;
	if (op)
		t->failed_op = loom_strdup(op);
}

static void set_skipped(const loom_runner *r, loom_table_result *t, const char *why)
{
	char msg[LOOM_ERROR_MESSAGE_MAX];
	loom_config_mask(msg, sizeof(msg), r->cfg, why);
	t->skip_reason = loom_strdup(msg);
	if (!t->skip_reason) {
		/* a skip without its reason would be silent: fail the table */
		loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_PLAN, "out of memory");
		set_error(r, t, LOOM_ENOMEM, NULL, "out of memory");
		return;
	}
	t->skipped = 1;
}

static int first_entry(const loom_store_entry *e, void *payload)
{
	(void)e;
	*(int *)payload = 1;
	return 1;   /* stop: one entry is enough */
}

/* 1 when the table has a _delta_log with something in it; 0 when it does
 * not exist yet; negative on a store error. The store is opened with the
 * location's storage options, as the operations will open it. */
static int is_delta_table(const loom_table_location *loc)
{
	loom_store_opts so = LOOM_STORE_OPTS_INIT;
	loom_store *s = NULL;
	int found = 0, rc;
	so.options = loc->storage_options;
	so.n_options = loc->n_storage_options;
	rc = loom_store_open(&s, loc->uri, &so);
	if (rc == LOOM_ENOTFOUND)
		return 0;
	if (rc < 0)
		return rc;
	rc = s->list(s, "_delta_log/", NULL, 0, first_entry, &found);
	loom_store_free(s);
	if (rc < 0)
		return rc;
	return found;
}

/* A table the config does not cover, or that is not a Delta table yet
 * (table `idx` of the report). */
static void missing(const loom_runner *r, loom_report *rep, size_t idx, int code, const char *why)
{
	loom_table_result *t = &rep->tables[idx];
	if (r->policy == LOOM_MISSING_SKIP) {
		set_skipped(r, t, why);
		return;
	}
	loom_err(code, LOOM_ERRCLASS_PLAN, "%s", why);
	set_error(r, t, code, NULL, why);
	if (r->policy == LOOM_MISSING_STOP) {
		int64_t none = -1;
		/* the first missing table names the stop; the flag goes up after
		 * it, so whoever sees the flag sees the index */
		atomic_compare_exchange_strong(&rep->stopped_at, &none, (int64_t)idx);
		loom_cancel_request(r->stop);
	}
}

static int is_catalog_route(const loom_config *cfg, const char *ref)
{
	size_t i;
	for (i = 0; ref && i < cfg->n_tables; i++)
		if (strcmp(cfg->tables[i].name, ref) == 0)
			return !cfg->tables[i].has_path;
	return 0;
}

/* An event to the progress callback. OP_DONE carries the op's result
 * (NULL when it failed) and no skipped flag; the other events none. */
static void progress(const loom_runner *r, const loom_report *rep, const loom_table_result *t,
                     int event, const char *op, int code, double seconds, const loom_op_result *res)
{
	loom_progress p;
	if (!r->progress)
		return;
	memset(&p, 0, sizeof(p));
	p.event = event;
	p.table_ref = t->ref;
	p.op_name = op;
	p.table_index = (size_t)(t - rep->tables);
	p.table_count = rep->n_tables;
	p.code = code;
	p.skipped = event != LOOM_PROGRESS_OP_DONE && t->skipped;
	p.seconds = seconds;
	p.result = res;
	r->progress(&p, r->progress_payload);
}

/* Where the table lives: the runner's locator or the config's routes.
 * 0 with *loc set; 1 when the table was reported missing or failed. */
static int locate(const loom_runner *r, loom_report *rep, size_t idx,
                  const loom_table_location **loc, loom_table_location **owned)
{
	loom_table_result *t = &rep->tables[idx];
	char why[LOOM_ERROR_MESSAGE_MAX];
	int rc;
	loom_error_clear();
	if (r->locate) {
		rc = r->locate(loc, t->ref, r->locate_payload);
		if (rc == 0 && (!*loc || !(*loc)->uri)) {
			if (*loc && r->release)
				r->release(*loc, r->locate_payload);
			*loc = NULL;
			rc = loom_err(LOOM_EINVAL, LOOM_ERRCLASS_PLAN,
			              "table '%s': the locator returned no location", t->ref);
		}
		if (rc == LOOM_ENOTFOUND) {
			const loom_error *e = loom_error_last();
			snprintf(why, sizeof(why), "%s", e && e->message[0] ? e->message
			         : "the locator does not know the table");
			missing(r, rep, idx, rc, why);
			return 1;
		}
	} else {
		rc = loom_config_locate(owned, r->cfg, t->ref);
		*loc = *owned;
		if (rc == LOOM_ENOTFOUND ||
		    (rc < 0 && rc != LOOM_ENOMEM && is_catalog_route(r->cfg, t->ref))) {
			snprintf(why, sizeof(why), "%s", loom_error_last()->message);
			missing(r, rep, idx, rc, why);
			return 1;
		}
	}
	if (rc < 0) {
		set_error(r, t, rc, NULL, "cannot locate the table");
		return 1;
	}
	return 0;
}

static void run_spec(const loom_runner *r, const loom_spec *spec, loom_report *rep, size_t idx)
{
	const loom_clock *clk = loom_clock_system();
	int64_t t0 = loom_clock_mono_ns(clk);
	loom_table_result *t = &rep->tables[idx];
	const loom_table_location *loc = NULL;
	loom_table_location *owned = NULL;
	char spent[128];
	size_t i;
	int rc;

	progress(r, rep, t, LOOM_PROGRESS_TABLE_START, NULL, 0, 0, NULL);
	if (plan_budget_spent(&r->budget, r->cancel, spent, sizeof(spent))) {
		char msg[LOOM_ERROR_MESSAGE_MAX];
		snprintf(msg, sizeof(msg), "%s before this table started", spent);
		set_skipped(r, t, msg);
		goto done;
	}
	if (loom_cancel_requested(r->cancel)) {
		set_skipped(r, t, "run cancelled before this table started");
		goto done;
	}
	if (loom_cancel_requested(r->stop)) {
		char why[LOOM_ERROR_MESSAGE_MAX];
		int64_t at = atomic_load(&rep->stopped_at);
		snprintf(why, sizeof(why), "run stopped before this table started: table '%s' is "
		         "missing (missing-table policy: stop)", at >= 0 ? rep->tables[at].ref : "?");
		set_skipped(r, t, why);
		goto done;
	}
	if (locate(r, rep, idx, &loc, &owned))
		goto done;
	{
		char masked[4096];
		loom_config_mask(masked, sizeof(masked), r->cfg, loc->uri);
		if (!(t->uri = loom_strdup(masked))) {
			loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_PLAN, "out of memory");
			set_error(r, t, LOOM_ENOMEM, NULL, "out of memory");
			goto done;
		}
	}
	loom_error_clear();
	rc = is_delta_table(loc);
	if (rc < 0) {
		set_error(r, t, rc, NULL, "cannot list the table's _delta_log");
		goto done;
	}
	if (rc == 0) {
		char why[LOOM_ERROR_MESSAGE_MAX];
		snprintf(why, sizeof(why), "table '%s' at %s is not a Delta table yet (no _delta_log)",
		         t->ref, t->uri ? t->uri : "?");
		missing(r, rep, idx, LOOM_ENOTFOUND, why);
		goto done;
	}
	for (i = 0; i < loom_spec_op_count(spec); i++) {
		const loom_op *op = loom_spec_op_at(spec, i);
		int64_t o0 = loom_clock_mono_ns(clk);
		loom_op_result res = LOOM_OP_RESULT_INIT;
		if (plan_budget_spent(&r->budget, r->cancel, spent, sizeof(spent))) {
			char msg[LOOM_ERROR_MESSAGE_MAX];
			snprintf(msg, sizeof(msg), "table '%s': %s: '%s' and the operations after it not started",
			         t->ref, spent, loom_op_name(op));
			if (i == 0)
				set_skipped(r, t, msg);
			else
				warn((loom_runner *)r, rep, msg);
			break;
		}
		if (loom_cancel_requested(r->cancel)) {
			loom_err(LOOM_ECANCELLED, LOOM_ERRCLASS_PLAN,
			         "table '%s': run cancelled before operation '%s'", t->ref,
			         loom_op_name(op));
			set_error(r, t, LOOM_ECANCELLED, loom_op_name(op), "cancelled");
			break;
		}
		progress(r, rep, t, LOOM_PROGRESS_OP_START, loom_op_name(op), 0, 0, NULL);
		loom_error_clear();
		rc = plan_op_execute_with(op, &res, r->m, loc->uri, loc, r->cancel,
		                          plan_budget_active(&r->budget) ? r->budget.commit_every : 0);
		if (rc == LOOM_ECANCELLED && plan_budget_spent(&r->budget, r->cancel, spent, sizeof(spent))) {
			/* the time budget stopped it with nothing finished to keep */
			char msg[LOOM_ERROR_MESSAGE_MAX];
			loom_op_result_free(&res);
			snprintf(msg, sizeof(msg), "%s while '%s' ran: it had finished nothing to commit",
			         spent, loom_op_name(op));
			if (i == 0)
				set_skipped(r, t, msg);
			else
				warn((loom_runner *)r, rep, msg);
			break;
		}
		if (rc == 0)
			plan_budget_charge((plan_budget *)&r->budget, &res);
		if (rc < 0) {
			loom_op_result_free(&res);
			set_error(r, t, rc, loom_op_name(op), "the operation failed without a message");
		} else if (report_table_add_op(t, loom_op_name(op), &res) < 0) {
			loom_op_result_free(&res);
			set_error(r, t, LOOM_ENOMEM, loom_op_name(op), "out of memory");
			rc = LOOM_ENOMEM;
		}
		{
			double secs = (double)(loom_clock_mono_ns(clk) - o0) / 1e9;
			if (rc == 0)
				t->ops[t->n_ops - 1].seconds = secs;
			progress(r, rep, t, LOOM_PROGRESS_OP_DONE, loom_op_name(op), rc < 0 ? rc : 0, secs,
			         rc == 0 ? &t->ops[t->n_ops - 1].result : NULL);
		}
		if (rc < 0)
			break;
	}
done:
	if (r->locate && loc && r->release)
		r->release(loc, r->locate_payload);
	loom_table_location_free(owned);
	t->duration_seconds = (double)(loom_clock_mono_ns(clk) - t0) / 1e9;
	progress(r, rep, t, LOOM_PROGRESS_TABLE_DONE, NULL, t->error_code, t->duration_seconds, NULL);
}

/* ---- scheduling ---------------------------------------------------------- */

/* All specs of one table ref, in declaration order. */
typedef struct table_task {
	const loom_runner *r;
	const loom_spec_list *specs;
	loom_report *rep;
	size_t *idx;
	size_t n;
} table_task;

static void run_task(void *arg)
{
	table_task *task = arg;
	size_t i;
	for (i = 0; i < task->n; i++)
		run_spec(task->r, loom_spec_list_at(task->specs, task->idx[i]), task->rep,
		         task->idx[i]);
}

/* Under a budget: the tables in order of benefit per byte (plan/budget.h),
 * highest first, ties in declaration order. Results keep their slots. */
typedef struct task_score {
	table_task task;
	double benefit;
	size_t order;
} task_score;

static int cmp_score(const void *a, const void *b)
{
	const task_score *x = a, *y = b;
	if (x->benefit != y->benefit)
		return x->benefit > y->benefit ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

static int order_by_benefit(const loom_runner *r, table_task *tasks, size_t n, const loom_spec_list *specs)
{
	task_score *sc = loom_calloc(n ? n : 1, sizeof(*sc));
	size_t i;
	if (!sc)
		return loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_PLAN, "out of memory");
	for (i = 0; i < n; i++) {
		const char *ref = loom_spec_table_ref(loom_spec_list_at(specs, tasks[i].idx[0]));
		const loom_table_location *loc = NULL;
		loom_table_location *owned = NULL;
		int rc = r->locate ? r->locate(&loc, ref, r->locate_payload)
		                   : loom_config_locate(&owned, r->cfg, ref);
		if (!r->locate)
			loc = owned;
		sc[i].task = tasks[i];
		sc[i].order = i;
		sc[i].benefit = rc == 0 && loc && loc->uri ? plan_budget_benefit(loc->uri, loc) : -1;
		if (r->locate && loc && r->release)
			r->release(loc, r->locate_payload);
		loom_table_location_free(owned);
		loom_error_clear(); /* the run itself reports a table it cannot find */
	}
	qsort(sc, n, sizeof(*sc), cmp_score);
	for (i = 0; i < n; i++)
		tasks[i] = sc[i].task;
	loom_free(sc);
	return 0;
}

static int run_specs(loom_report **out, loom_runner *r, const char *step_name,
                     const loom_spec_list *specs)
{
	const loom_clock *clk = loom_clock_system();
	int64_t t0 = loom_clock_mono_ns(clk);
	size_t n = loom_spec_list_count(specs), i, j, n_tasks = 0;
	table_task *tasks = NULL;
	size_t *idx = NULL;
	loom_report *rep;
	int rc;

	LOOM_TRY(report_new(&rep, step_name, n));
	rep->jobs = r->jobs;
	loom_cancel_reset(r->stop);
	/* refs are filled before anything runs, so every slot names its table
	 * even if a later allocation fails */
	for (i = 0; i < n; i++)
		if (!(rep->tables[i].ref = loom_strdup(loom_spec_table_ref(loom_spec_list_at(specs, i))))) {
			rc = loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_PLAN, "out of memory");
			goto fail;
		}
	for (i = 0; i < plan_spec_list_warning_count(specs); i++)
		if ((rc = report_add_warning(rep, plan_spec_list_warning(specs, i))) < 0)
			goto fail;
	tasks = loom_calloc(n ? n : 1, sizeof(*tasks));
	idx = loom_calloc(n ? n : 1, sizeof(*idx));
	if (!tasks || !idx) {
		rc = loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_PLAN, "out of memory");
		goto fail;
	}
	/* group spec indices by table ref, keeping first-appearance order;
	 * idx is partitioned into the tasks' slices */
	{
		size_t used = 0;
		char *done = loom_calloc(n ? n : 1, 1);
		if (!done) {
			rc = loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_PLAN, "out of memory");
			goto fail;
		}
		for (i = 0; i < n; i++) {
			const char *ref;
			if (done[i])
				continue;
			ref = loom_spec_table_ref(loom_spec_list_at(specs, i));
			tasks[n_tasks].r = r;
			tasks[n_tasks].specs = specs;
			tasks[n_tasks].rep = rep;
			tasks[n_tasks].idx = idx + used;
			for (j = i; j < n; j++)
				if (!done[j] && strcmp(ref, loom_spec_table_ref(loom_spec_list_at(specs, j))) == 0) {
					done[j] = 1;
					idx[used++] = j;
					tasks[n_tasks].n++;
				}
			n_tasks++;
		}
		loom_free(done);
	}
	if (plan_budget_active(&r->budget)) {
		atomic_store(&r->budget.spent, 0);
		if ((rc = order_by_benefit(r, tasks, n_tasks, specs)) < 0)
			goto fail;
		/* the time budget is the ops' cancel token's deadline: running
		 * rewrites stop there and keep their finished units */
		loom_cancel_set_deadline(r->cancel, r->budget.seconds);
	}
	if (r->jobs <= 1 || n_tasks <= 1) {
		for (i = 0; i < n_tasks; i++)
			run_task(&tasks[i]);
	} else {
		loom_threadpool *pool;
		size_t workers = r->jobs < n_tasks ? r->jobs : n_tasks;
		if ((rc = loom_threadpool_new(&pool, workers)) < 0)
			goto fail;
		/* the jobs share the process's cores: each pipeline takes its
		 * share of max(cores, jobs) (util/cpu_budget.h) */
		loom_cpu_budget_set_jobs(workers);
		for (i = 0; i < n_tasks; i++)
			if ((rc = loom_threadpool_submit(pool, run_task, &tasks[i])) < 0) {
				/* run what could not be queued here, then wait for the rest */
				for (; i < n_tasks; i++)
					run_task(&tasks[i]);
				break;
			}
		loom_threadpool_wait(pool);
		loom_threadpool_free(pool);
		loom_cpu_budget_set_jobs(1);
	}
	/* cancelled by a caller; a spent time budget is not a cancellation */
	rep->cancelled = loom_cancel_requested(r->cancel) && !loom_cancel_past_deadline(r->cancel);
	loom_cancel_set_deadline(r->cancel, 0);
	rep->duration_seconds = (double)(loom_clock_mono_ns(clk) - t0) / 1e9;
	loom_free(tasks);
	loom_free(idx);
	*out = rep;
	return 0;
fail:
	loom_free(tasks);
	loom_free(idx);
	loom_report_free(rep);
	return rc;
}

LOOM_EXTERN(int) loom_runner_run(loom_report **out, loom_runner *r, const loom_step *step,
                                 const void *params)
{
	loom_spec_list *specs;
	int rc;
	if (!out || !r || !step)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_PLAN, "loom_runner_run: NULL argument");
	*out = NULL;
	LOOM_TRY(loom_step_resolve(&specs, step, params, r->cfg));
	rc = run_specs(out, r, loom_step_name(step), specs);
	loom_spec_list_free(specs);
	return rc;
}

LOOM_EXTERN(int) loom_runner_run_from_config(loom_report **out, loom_runner *r)
{
	loom_step *step;
	int rc;
	if (!out || !r)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_PLAN, "loom_runner_run_from_config: NULL argument");
	*out = NULL;
	if (!plan_config_block_runs(r->cfg)) {
		/* nothing to run; say why instead of returning a silent empty report */
		loom_spec_list *empty;
		LOOM_TRY(loom_spec_list_new(&empty));
		rc = r->cfg->has_maintenance
		         ? plan_spec_list_warn(empty, "%s: the maintenance block schedules no operation "
		                               "(vacuum, compact or z_order_by) and names no schemas",
		                               r->cfg->source)
		         : plan_spec_list_warn(empty, "%s has no maintenance block", r->cfg->source);
		if (rc == 0)
			rc = run_specs(out, r, "maintenance", empty);
		loom_spec_list_free(empty);
		return rc;
	}
	LOOM_TRY(loom_step_from_config(&step, r->cfg));
	rc = loom_runner_run(out, r, step, NULL);
	loom_step_free(step);
	return rc;
}
