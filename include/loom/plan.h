/*
 * loom/plan.h - the declarative maintenance layer (seed: MaintainTable,
 * MaintainSchema, OpSpec, OperationDeclaration, MaintenanceStep,
 * MaintenanceRunner, MaintenanceReport).
 *
 *   loom_decl *d;
 *   loom_maintain_schema(&d, "raw");
 *   loom_vacuum_opts v = LOOM_VACUUM_OPTS_INIT;
 *   v.retention_hours = 168; v.dry_run = 0;
 *   loom_decl_vacuum(d, &v);
 *   loom_decl_compact(d, NULL);
 *   loom_step_add(step, d);                 // the step owns d now
 *   loom_runner_from_config(&r, cfg, maintainer, LOOM_MISSING_SKIP);
 *   loom_runner_run(&report, r, step, NULL);
 *   if (loom_report_has_errors(report)) ...
 *
 * Errors are never silent: a builder call that breaks a rule returns
 * LOOM_EINVAL *and* leaves the declaration marked, so resolving or running
 * it fails again with the same message even if the caller ignored the
 * first return value.
 *
 * Ownership, the same for every add (loom_spec_add_op, loom_spec_list_add,
 * loom_decl_add_op, loom_step_add): the container takes over the object it
 * is given (for a loom_op, the caller's reference), whether the call
 * succeeds or fails, so the caller never frees it after the call. To keep
 * using an op, pass loom_op_ref(op). Strings and options are copied.
 */
#ifndef LOOM_PLAN_H
#define LOOM_PLAN_H

#include "common.h"
#include "config.h"
#include "errors.h"
#include "ops.h"

LOOM_BEGIN_DECL

/* ---- operations (OpSpec) ------------------------------------------------- */

typedef struct loom_op loom_op;

/* Run the operation on one table. `m` is the runner's maintainer; `out` is
 * initialised and empty; set out->kind (VACUUM or OPTIMIZE) and fill it.
 * Return 0 or a negative LOOM_E* code with the thread's error set. Called on worker
 * threads, possibly concurrently for different tables. */
typedef int (*loom_op_execute_fn)(loom_op_result *out, const loom_maintainer *m,
                                  const char *uri, const loom_table_location *loc,
                                  const loom_cancel *cancel, void *payload);

/** A custom operation named `name` (which keys its result; copied).
 *  `payload` is passed to execute and released with `free_payload` (may be
 *  NULL) when the last reference goes. *out starts with one reference. */
LOOM_EXTERN(int) loom_op_new(loom_op **out, const char *name,
                             loom_op_execute_fn execute, void *payload,
                             void (*free_payload)(void *payload));
/** Built-in operations: they call the maintainer's vacuum / compact /
 *  zorder. Options are checked and copied, with the strings they point to
 *  (Z-order columns and temp dir, compaction partition filters); a
 *  compaction progress callback and its context are kept as given. Names:
 *  "vacuum", "compact", "z_order". */
LOOM_EXTERN(int) loom_op_vacuum(loom_op **out, const loom_vacuum_opts *opts);
LOOM_EXTERN(int) loom_op_compact(loom_op **out, const loom_compact_opts *opts);
LOOM_EXTERN(int) loom_op_zorder(loom_op **out, const loom_zorder_opts *opts);
/** REORG ... APPLY (PURGE) and ANALYZE (loom_purge / loom_analyze through
 *  the maintainer's purge / analyze, which a maintainer has from version 2
 *  on: with an older one, or a NULL member, the op fails with
 *  LOOM_EUNSUPPORTED). Options checked and copied with their strings
 *  (partition filters, columns); NULL = the defaults. Names: "purge",
 *  "analyze". */
LOOM_EXTERN(int) loom_op_purge(loom_op **out, const loom_purge_opts *opts);
LOOM_EXTERN(int) loom_op_analyze(loom_op **out, const loom_analyze_opts *opts);

LOOM_EXTERN(const char *) loom_op_name(const loom_op *op);
/** Take another reference (ops are shared by the specs of a schema). */
LOOM_EXTERN(loom_op *) loom_op_ref(loom_op *op);
/** Drop a reference; NULL is fine. Thread-safe. */
LOOM_EXTERN(void) loom_op_free(loom_op *op);
/** Run `op` directly (what the runner does per table). */
LOOM_EXTERN(int) loom_op_execute(loom_op_result *out, const loom_op *op, const loom_maintainer *m,
                                 const char *uri, const loom_table_location *loc,
                                 const loom_cancel *cancel);

/* ---- specs (MaintenanceSpec) ------------------------------------------- */

/* One table and the ops to run on it, in order. */
typedef struct loom_spec loom_spec;
/* An ordered list of specs, produced by resolving declarations. */
typedef struct loom_spec_list loom_spec_list;

LOOM_EXTERN(int) loom_spec_new(loom_spec **out, const char *table_ref);
/** Append an op, taking over the caller's reference (success or failure).
 *  LOOM_EINVAL when an op with the same name is already in the spec
 *  (results are keyed by name) or when compact and z_order would both be
 *  in it. */
LOOM_EXTERN(int) loom_spec_add_op(loom_spec *s, loom_op *op);
LOOM_EXTERN(const char *) loom_spec_table_ref(const loom_spec *s);
LOOM_EXTERN(size_t) loom_spec_op_count(const loom_spec *s);
LOOM_EXTERN(loom_op *) loom_spec_op_at(const loom_spec *s, size_t i);
LOOM_EXTERN(void) loom_spec_free(loom_spec *s);

LOOM_EXTERN(int) loom_spec_list_new(loom_spec_list **out);
/** Append a spec, taking it over (success or failure). */
LOOM_EXTERN(int) loom_spec_list_add(loom_spec_list *l, loom_spec *s);
LOOM_EXTERN(size_t) loom_spec_list_count(const loom_spec_list *l);
LOOM_EXTERN(loom_spec *) loom_spec_list_at(const loom_spec_list *l, size_t i);
LOOM_EXTERN(void) loom_spec_list_free(loom_spec_list *l);

/* ---- declarations (OperationDeclaration) --------------------------------- */

typedef struct loom_decl loom_decl;

/* Append this declaration's specs to `out` (never remove or reorder what is
 * there). Return 0 or a negative code with the thread's error set. */
typedef int (*loom_decl_resolve_fn)(loom_spec_list *out, const loom_config *cfg,
                                    void *payload);

/** MaintainTable(ref): one explicitly named table. LOOM_EINVAL for an
 *  empty or NULL ref. *out owned by the caller (or by a step after
 *  loom_step_add). */
LOOM_EXTERN(int) loom_maintain_table(loom_decl **out, const char *table_ref);
/** MaintainSchema(prefix): every `tables[]` route named "<prefix>.<rest>"
 *  (so "raw" matches raw.events and raw.a.b, not raw_backup.events and not
 *  a route named just "raw"). No filesystem scan; the default table_path
 *  alone contributes nothing. */
LOOM_EXTERN(int) loom_maintain_schema(loom_decl **out, const char *schema_prefix);
/** A custom declaration (e.g. one that wraps another and appends an op to
 *  each of its specs). `payload` is released with free_payload. */
LOOM_EXTERN(int) loom_decl_new(loom_decl **out, loom_decl_resolve_fn resolve,
                               void *payload, void (*free_payload)(void *payload));

/** Builders for table/schema declarations; NULL opts = defaults
 *  (vacuum: table retention, dry run, lite). Errors (LOOM_EINVAL, sticky):
 *  invalid options, an op scheduled twice, compact together with z-order,
 *  a builder call on a custom declaration. */
LOOM_EXTERN(int) loom_decl_vacuum(loom_decl *d, const loom_vacuum_opts *opts);
LOOM_EXTERN(int) loom_decl_compact(loom_decl *d, const loom_compact_opts *opts);
/** The seed's z_order_by(columns, target_size): columns are copied;
 *  n_columns must be > 0; target_size 0 = default; every other Z-order
 *  option at its default. */
LOOM_EXTERN(int) loom_decl_zorder_by(loom_decl *d, const char *const *columns,
                                      size_t n_columns, int64_t target_size);
/** Z-order with every option (curve, memory budget, temp dir, spill limit,
 *  full, dry run); columns and temp_dir are copied. */
LOOM_EXTERN(int) loom_decl_zorder(loom_decl *d, const loom_zorder_opts *opts);
/** MaintainTable(...).purge() / .analyze(): loom_op_purge / loom_op_analyze
 *  appended (NULL opts = the defaults). Errors as for the builders above. */
LOOM_EXTERN(int) loom_decl_purge(loom_decl *d, const loom_purge_opts *opts);
LOOM_EXTERN(int) loom_decl_analyze(loom_decl *d, const loom_analyze_opts *opts);
/** Append any op (built-in or custom) to a table/schema declaration,
 *  taking over the caller's reference (success or failure). */
LOOM_EXTERN(int) loom_decl_add_op(loom_decl *d, loom_op *op);

/** Re-check the declaration (sticky builder errors, empty op list, compact
 *  with z-order). LOOM_EINVAL with the first problem. */
LOOM_EXTERN(int) loom_decl_validate(const loom_decl *d);
/** Append the declaration's specs to `out`. Validates first. */
LOOM_EXTERN(int) loom_decl_resolve(loom_spec_list *out, const loom_decl *d, const loom_config *cfg);
LOOM_EXTERN(void) loom_decl_free(loom_decl *d);

/* ---- steps (MaintenanceStep) -------------------------------------------- */

typedef struct loom_step loom_step;

/* operations_for(params): add declarations to `into` with loom_step_add. */
typedef int (*loom_step_build_fn)(loom_step *into, const void *params, void *payload);

/** A static step: a list of declarations added with loom_step_add. */
LOOM_EXTERN(int) loom_step_new(loom_step **out, const char *name);
/** A dynamic step: `build` makes the declaration list for each run from
 *  the params given to loom_runner_run. */
LOOM_EXTERN(int) loom_step_new_dynamic(loom_step **out, const char *name,
                                       loom_step_build_fn build, void *payload,
                                       void (*free_payload)(void *payload));
/** Append a declaration, taking it over (success or failure). */
LOOM_EXTERN(int) loom_step_add(loom_step *step, loom_decl *d);
LOOM_EXTERN(const char *) loom_step_name(const loom_step *step);
LOOM_EXTERN(size_t) loom_step_decl_count(const loom_step *step);
/** Resolve every declaration of the step (built for `params` if dynamic)
 *  against `cfg`, in declaration order. *out owned by the caller. */
LOOM_EXTERN(int) loom_step_resolve(loom_spec_list **out, const loom_step *step,
                                   const void *params, const loom_config *cfg);
LOOM_EXTERN(void) loom_step_free(loom_step *step);

/** The config's maintenance block as a step named "maintenance": one
 *  MaintainSchema per listed schema with the block's ops, in this order:
 *  vacuum, compact or z_order_by, purge, analyze -- or, when the block says `auto:`, with the auto op
 *  (loom/auto.h), those three being its settings. A step with no
 *  declarations when there is no block.
 *  *out owned by the caller. */
LOOM_EXTERN(int) loom_step_from_config(loom_step **out, const loom_config *cfg);

/** Describe what a run of `step` would do without doing it: every
 *  resolved table with its location (secrets masked), whether it is
 *  covered by the config, and each op with its options, in run order.
 *  `json` = 1 for JSON ("loom.explain/1"), 0 for text. Free *out with
 *  loom_string_free. */
LOOM_EXTERN(int) loom_step_explain(char **out, const loom_step *step, const void *params,
                                   const loom_config *cfg, int json);

/* ---- plan files ---------------------------------------------------------- */

/* A YAML plan file: named steps, each a list of table/schema declarations
 * with their ops (see docs/plan-file.md). */
typedef struct loom_plan loom_plan;

LOOM_EXTERN(int) loom_plan_load_file(loom_plan **out, const char *path);
LOOM_EXTERN(int) loom_plan_load_string(loom_plan **out, const char *yaml,
                                       size_t len, const char *name);
LOOM_EXTERN(size_t) loom_plan_step_count(const loom_plan *p);
/** Step i, borrowed from the plan. */
LOOM_EXTERN(const loom_step *) loom_plan_step_at(const loom_plan *p, size_t i);
/** The step called `name`, or NULL (LOOM_ENOTFOUND recorded). */
LOOM_EXTERN(const loom_step *) loom_plan_step(const loom_plan *p, const char *name);
LOOM_EXTERN(void) loom_plan_free(loom_plan *p);

/* ---- runner and report ---------------------------------------------------- */

typedef enum loom_missing_policy {
	/* Tables not in the config, or not Delta tables yet (no _delta_log),
	 * are reported as skipped with a reason; not an error. */
	LOOM_MISSING_SKIP = 0,
	/* Such tables are reported as failed (LOOM_ENOTFOUND / LOOM_EINVAL). */
	LOOM_MISSING_ERROR = 1,
	/* The seed's "error" ("raises immediately"): the first such table
	 * fails as with LOOM_MISSING_ERROR and no table starts after it (those
	 * are reported skipped, "run stopped: ..."); tables already running
	 * finish. loom_report_stopped_at says which table stopped the run. */
	LOOM_MISSING_STOP = 2
} loom_missing_policy;

typedef struct loom_runner loom_runner;
typedef struct loom_report loom_report;

/** A runner over `cfg` (borrowed: keep it alive while the runner lives).
 *  `maintainer` (borrowed) executes the built-in ops; NULL means the native
 *  engine (loom_maintainer_native). LOOM_EINVAL when the config has no
 *  path route at all (only catalog refs): maintenance needs paths. */
LOOM_EXTERN(int) loom_runner_from_config(loom_runner **out, const loom_config *cfg,
                                         const loom_maintainer *maintainer,
                                         loom_missing_policy missing_table_policy);
/** Tables run concurrently on up to `jobs` worker threads (default 1;
 *  0 = one per CPU). Results stay in declaration order whatever the count. */
LOOM_EXTERN(int) loom_runner_set_jobs(loom_runner *r, size_t jobs);
/** Budgets for the runs of `r` (0: none): `seconds` of wall time from a
 *  run's start and `bytes` of table data rewritten (the input of
 *  compactions, Z-orders and purges). Under a budget the tables run in
 *  order of benefit per byte, judged from their health (files compaction
 *  would merge and DV files it would purge, per byte of them; tables with
 *  nothing to rewrite first); no table or operation starts once a budget
 *  is spent (the report says which, and why); at the time budget the
 *  running compactions and Z-orders stop and commit the units of work they
 *  finished: they run with commit_every = `commit_every` bytes (0: 1 GiB)
 *  unless their options set one. LOOM_EINVAL for a negative value. */
LOOM_EXTERN(int) loom_runner_set_budget(loom_runner *r, double seconds, int64_t bytes,
                                        int64_t commit_every);
/** Ask a running (or the next) run to stop: no new table or op starts, and
 *  ops see it through their cancel token. Safe from any thread or a signal
 *  handler (an atomic store). */
LOOM_EXTERN(void) loom_runner_cancel(loom_runner *r);
/** Clear a previous cancel so the runner can be used again. */
LOOM_EXTERN(void) loom_runner_reset_cancel(loom_runner *r);

/* The seed's TableLocator: resolve a table ref to its location for one run.
 * Set *out to a location the callback owns (valid until `release` gets it,
 * after the table's last op). Return 0; LOOM_ENOTFOUND when the table is
 * not known (the missing-table policy applies, the thread's error message
 * is the reason); any other negative code fails the table. Called on
 * worker threads, possibly concurrently. */
typedef int (*loom_locate_fn)(const loom_table_location **out, const char *table_ref,
                              void *payload);
typedef void (*loom_location_release_fn)(const loom_table_location *loc, void *payload);

/** Locate tables with `locate` instead of the config's routes
 *  (loom_config_locate). The config still drives MaintainSchema and the
 *  maintenance block. `release` may be NULL; `payload` is borrowed. */
LOOM_EXTERN(int) loom_runner_set_locator(loom_runner *r, loom_locate_fn locate,
                                         loom_location_release_fn release, void *payload);

typedef enum loom_progress_event {
	LOOM_PROGRESS_TABLE_START = 0,
	LOOM_PROGRESS_OP_START = 1,
	LOOM_PROGRESS_OP_DONE = 2,
	LOOM_PROGRESS_TABLE_DONE = 3
} loom_progress_event;

/* One progress event; everything borrowed for the duration of the call. */
typedef struct loom_progress {
	loom_progress_event event;
	const char *table_ref;
	const char *op_name;      /* op events; NULL for table events */
	size_t table_index;       /* the table's position in the report */
	size_t table_count;       /* tables in the run */
	loom_error_code code;     /* *_DONE: 0, or the error code */
	int skipped;              /* TABLE_DONE: the table was skipped */
	double seconds;           /* *_DONE: time spent on the op / table */
	const loom_op_result *result; /* OP_DONE: the op's result; NULL when it failed */
} loom_progress;
typedef void (*loom_progress_fn)(const loom_progress *p, void *payload);

/** Call `fn` as tables and ops start and finish (NULL: no calls). Called
 *  on worker threads; events of one table come in order from one thread,
 *  events of different tables may interleave. `payload` is borrowed. */
LOOM_EXTERN(int) loom_runner_set_progress(loom_runner *r, loom_progress_fn fn, void *payload);

/** Run a step: resolve its declarations against the config (with
 *  `params` for a dynamic step), then maintain each table. Returns 0 with
 *  *out set (owned by the caller) once the step resolved -- even when
 *  tables failed, were skipped or the run was cancelled: check
 *  loom_report_has_errors. Returns a negative code (and no report) only
 *  when the step itself is invalid: a declaration broke a builder rule, a
 *  custom resolve or operations_for callback failed, or out of memory.
 *  Per table: the location comes from the config; a table the config does
 *  not cover, that routes to a catalog, or that has no _delta_log is
 *  skipped or failed by the policy; ops run in order and the first error
 *  (code and message copied on the worker thread, secrets masked) stops
 *  that table, and the run goes on with the next. */
LOOM_EXTERN(int) loom_runner_run(loom_report **out, loom_runner *r,
                                 const loom_step *step, const void *params);
/** Run the config's maintenance block: its vacuum/compact/z_order_by over
 *  every table of its schemas. An empty report (with a warning saying
 *  why) when there is no block or it lists no schemas. */
LOOM_EXTERN(int) loom_runner_run_from_config(loom_report **out, loom_runner *r);
LOOM_EXTERN(void) loom_runner_free(loom_runner *r);

/* Per-table outcome (TableMaintenanceResult). Borrowed from the report. */
typedef struct loom_table_result loom_table_result;

LOOM_EXTERN(size_t) loom_report_count(const loom_report *rep);
LOOM_EXTERN(const loom_table_result *) loom_report_at(const loom_report *rep, size_t i);
/** 1 when any table failed or the run was cancelled. */
LOOM_EXTERN(int) loom_report_has_errors(const loom_report *rep);
LOOM_EXTERN(int) loom_report_cancelled(const loom_report *rep);
/** With LOOM_MISSING_STOP: the index of the table that stopped the run,
 *  or -1 when nothing did. */
LOOM_EXTERN(int64_t) loom_report_stopped_at(const loom_report *rep);
/** Notes that are not failures (a schema matching no route, a block that
 *  schedules nothing). Borrowed from the report. */
LOOM_EXTERN(size_t) loom_report_warning_count(const loom_report *rep);
LOOM_EXTERN(const char *) loom_report_warning_at(const loom_report *rep, size_t i);
LOOM_EXTERN(size_t) loom_report_error_count(const loom_report *rep);
/** JSON rendering, schema in docs/report-schema.md ("loom.report/1").
 *  Free *out with loom_string_free. */
LOOM_EXTERN(int) loom_report_to_json(char **out, const loom_report *rep);
/** A human summary: one line per table (ref, status, duration, a short
 *  phrase per op or the error / skip reason) and a totals line. The phrases:
 *  vacuum "deleted N files (X MiB)" ("would delete ... dry run"), compact /
 *  Z-order "N files -> M files, X MiB -> Y MiB", other ops "version V" when
 *  they report a `version` metric; every metric is in the JSON report.
 *  Free with loom_string_free. */
LOOM_EXTERN(int) loom_report_to_text(char **out, const loom_report *rep);
LOOM_EXTERN(void) loom_report_free(loom_report *rep);

LOOM_EXTERN(const char *) loom_table_result_ref(const loom_table_result *t);
/** Resolved table URI, or NULL when the table could not be located. */
LOOM_EXTERN(const char *) loom_table_result_uri(const loom_table_result *t);
/** 0 = ok; else the first error's code (the table stopped there). */
LOOM_EXTERN(loom_error_code) loom_table_result_error_code(const loom_table_result *t);
/** The first error's message ("" when ok); secrets masked. */
LOOM_EXTERN(const char *) loom_table_result_error_message(const loom_table_result *t);
/** The first error's class (a loom_error_class; LOOM_ERRCLASS_NONE when ok). */
LOOM_EXTERN(loom_error_class) loom_table_result_error_class(const loom_table_result *t);
/** Name of the op that failed, or NULL. */
LOOM_EXTERN(const char *) loom_table_result_failed_op(const loom_table_result *t);
LOOM_EXTERN(int) loom_table_result_ok(const loom_table_result *t);
LOOM_EXTERN(int) loom_table_result_skipped(const loom_table_result *t);
/** Why the table was skipped, or NULL. */
LOOM_EXTERN(const char *) loom_table_result_skip_reason(const loom_table_result *t);
LOOM_EXTERN(double) loom_table_result_duration_seconds(const loom_table_result *t);
/** Results of the ops that completed, in run order. */
LOOM_EXTERN(size_t) loom_table_result_op_count(const loom_table_result *t);
LOOM_EXTERN(const char *) loom_table_result_op_name_at(const loom_table_result *t, size_t i);
LOOM_EXTERN(const loom_op_result *) loom_table_result_op_at(const loom_table_result *t, size_t i);
/** Seconds op i took. */
LOOM_EXTERN(double) loom_table_result_op_seconds_at(const loom_table_result *t, size_t i);
/** The result keyed by op name, or NULL. */
LOOM_EXTERN(const loom_op_result *) loom_table_result_op(const loom_table_result *t,
                                                         const char *op_name);

LOOM_END_DECL

#endif
