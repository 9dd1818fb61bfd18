/*
 * loom/observe.h - what a monitoring stack, a log pipeline and people see of
 * a maintenance run (issue 29): Prometheus / OpenMetrics text, JSON event
 * logs, a run history, a self-contained HTML report.
 *
 *   loom_run_record *rec;
 *   loom_run_record_new(&rec, report, started_ms, ended_ms);
 *   loom_run_record_set_health(rec, "raw.events", shown_uri, LOOM_HEALTH_AFTER, h);
 *   loom_store_stats st = { LOOM_STORE_STATS_VERSION };
 *   loom_store_stats_total(&st);
 *   loom_run_record_set_store_stats(rec, &st);
 *   loom_run_record_to_metrics(&text, rec, LOOM_METRICS_PROMETHEUS);
 *   loom_file_write_atomic("/var/lib/node_exporter/loom.prom", text, strlen(text));
 *   loom_history_append(NULL, rec, "s3://ops/loom-history/", &opts);
 *
 * Everything renders one record ("loom.run/1", docs/report-schema.md): the
 * report of the run (loom.report/1, or null for health alone), the health
 * of each table before and after it (loom.health/1), the process's store
 * counters. Metrics, history and HTML show the same numbers as the JSON.
 * Secrets never appear: the report and the URIs given are already masked.
 */
#ifndef LOOM_OBSERVE_H
#define LOOM_OBSERVE_H

#include "common.h"
#include "health.h"
#include "metrics.h"
#include "plan.h"
#include "store.h"

LOOM_BEGIN_DECL

/* ---- the run record ("loom.run/1") -------------------------------------- */

typedef struct loom_run_record loom_run_record;

/* When a table's health was read, relative to the run. */
typedef enum loom_health_when {
	LOOM_HEALTH_BEFORE = 0,
	LOOM_HEALTH_AFTER = 1
} loom_health_when;

/** A record of `rep` (copied; NULL: a record of health alone) that ran from
 *  `started_ms` to `ended_ms` (ms since the Unix epoch). It gets a unique
 *  id: the start time (UTC, ms) and a random UUID, so ids sort by start. */
LOOM_EXTERN(int) loom_run_record_new(loom_run_record **out, const loom_report *rep,
                                     int64_t started_ms, int64_t ended_ms);
/** Set the health of table `table_ref` (`shown_uri`: its location, secrets
 *  masked; may be NULL) as it was before or after the run, replacing one
 *  set before for the same table and time. `h` is read during the call
 *  (its figures are copied): the caller keeps it. Tables keep the order of
 *  their first call. */
LOOM_EXTERN(int) loom_run_record_set_health(loom_run_record *r, const char *table_ref,
                                            const char *shown_uri, loom_health_when when,
                                            const loom_health *h);
/** The store request counters to show (loom_store_stats_total). */
LOOM_EXTERN(int) loom_run_record_set_store_stats(loom_run_record *r, const loom_store_stats *s);
/** "20250131T020000.123Z-<uuid>" (start time in UTC, ms). Borrowed. */
LOOM_EXTERN(const char *) loom_run_record_id(const loom_run_record *r);
/** One line of JSON (no newline). Free with loom_string_free. */
LOOM_EXTERN(int) loom_run_record_to_json(char **out, const loom_run_record *r);
/** Parse a record back (a history entry, a saved record). `name` names the
 *  source in errors. A loom.report/1 object alone is accepted too (a record
 *  with that report and no health). LOOM_EINVAL saying what is wrong. */
LOOM_EXTERN(int) loom_run_record_from_json(loom_run_record **out, const char *json, size_t len,
                                           const char *name);
LOOM_EXTERN(void) loom_run_record_free(loom_run_record *r);

/* ---- metrics -------------------------------------------------------------- */

typedef enum loom_metrics_format {
	LOOM_METRICS_PROMETHEUS = 0,   /* text format 0.0.4 (textfile collector) */
	LOOM_METRICS_OPENMETRICS = 1   /* OpenMetrics 1.0 text, ends with # EOF */
} loom_metrics_format;

/* The metric family names: LOOM_PROM_* in loom/metrics.h. */

/** The record as metrics text (`format`: LOOM_METRICS_*). Free with
 *  loom_string_free. */
LOOM_EXTERN(int) loom_run_record_to_metrics(char **out, const loom_run_record *r,
                                            loom_metrics_format format);
/** Write `len` bytes to `path` atomically: a temp file in the same
 *  directory, fsync, rename over `path` (what node_exporter's textfile
 *  collector expects). Nothing is left behind on failure. */
LOOM_EXTERN(int) loom_file_write_atomic(const char *path, const void *data, size_t len);

/* ---- structured logs -------------------------------------------------------- */

/* One event as one line of JSON (no newline), borrowed for the call. */
typedef void (*loom_log_line_fn)(const char *json_line, void *payload);
typedef struct loom_event_log loom_event_log;

/** Events to `fn` (`payload` borrowed). Thread-safe: lines never interleave. */
LOOM_EXTERN(int) loom_event_log_new(loom_event_log **out, loom_log_line_fn fn, void *payload);
/** A loom_progress_fn: pass it to loom_runner_set_progress with the log as
 *  payload. table_start / op_start / op_end (with the op's metrics) /
 *  table_end events, and a "retry" event when store retries happened during
 *  an operation (counters are per process). */
LOOM_EXTERN(void) loom_event_log_progress(const loom_progress *p, void *log);
/** run_start: the step's name and its table count (0: unknown). */
LOOM_EXTERN(void) loom_event_log_run_start(loom_event_log *l, const char *step, size_t tables);
/** run_end: a "warning" event per warning, an "error" event per failed table
 *  (class, code, name, message - masked), then run_end with the summary. */
LOOM_EXTERN(void) loom_event_log_run_end(loom_event_log *l, const loom_report *rep);
LOOM_EXTERN(void) loom_event_log_free(loom_event_log *l);

/* ---- history ---------------------------------------------------------------- */

/** Append `r` to the history at `uri` (a local directory or an object-store
 *  prefix; `opts` its storage options, may be NULL): one object
 *  "<id>.json" written create-only (LOOM_PUT_IF_ABSENT), so concurrent runs
 *  never overwrite each other. *key_out (may be NULL) gets the key written;
 *  free with loom_string_free. */
LOOM_EXTERN(int) loom_history_append(char **key_out, const loom_run_record *r, const char *uri,
                                     const loom_store_opts *opts);
/** Summarize the history at `uri`: runs started at or after `since_ms`
 *  (0: all), only tables named `table` (NULL: all). JSON
 *  "loom.history/1": runs, failures, and per table runs, failures, files
 *  and bytes compacted and removed, and its health first and last seen.
 *  Free with loom_string_free. */
LOOM_EXTERN(int) loom_history_summary(char **out, const char *uri, const loom_store_opts *opts,
                                      const char *table, int64_t since_ms);
/** A history summary as text: a line for the runs, one per table. */
LOOM_EXTERN(int) loom_history_summary_text(char **out, const char *summary_json);
/** The newest run of the history at `uri` (LOOM_ENOTFOUND when empty). */
LOOM_EXTERN(int) loom_history_latest(loom_run_record **out, const char *uri,
                                     const loom_store_opts *opts);

/* ---- HTML -------------------------------------------------------------------- */

/** One self-contained HTML page (no script, no external resource, inline
 *  SVG): per table its file-size histogram before and after, the
 *  operations with their numbers, health and advice, and the lake's
 *  totals. `history_json` (a loom_history_summary, may be NULL) adds the
 *  history table. Free with loom_string_free. */
LOOM_EXTERN(int) loom_run_record_to_html(char **out, const loom_run_record *r,
                                         const char *history_json);

LOOM_END_DECL

#endif
