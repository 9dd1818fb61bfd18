/* plan/yopts.h - reading operation options from YAML, shared by the
 * storage config's maintenance block and plan files, so both accept the
 * same keys with the same rules and messages. */
#ifndef LOOM_PLAN_YOPTS_H
#define LOOM_PLAN_YOPTS_H

#include "loom/health.h"
#include "loom/ops.h"
#include "plan/ydoc.h"

/* `vacuum:` empty (defaults) or {retention_hours, dry_run, full}. */
int yopts_vacuum(ydoc *d, yaml_node_t *v, const char *section, loom_vacuum_opts *out);
/* `compact:` empty or {target_size}. */
int yopts_compact(ydoc *d, yaml_node_t *v, const char *section, loom_compact_opts *out);

/* `z_order_by:` a column list, or {columns, target_size, curve, memory,
 * temp_dir, spill_limit, full, dry_run} -- every option `loom zorder` has.
 * `opts.columns` and `opts.temp_dir` point into the owned copies below. */
typedef struct zorder_yaml {
	loom_zorder_opts opts;
	char **cols;
	size_t n_cols;
	char *temp_dir;
} zorder_yaml;
/* On success (and on failure) release *out with yopts_zorder_dispose. */
int yopts_zorder(ydoc *d, yaml_node_t *v, const char *section, zorder_yaml *out);
void yopts_zorder_dispose(zorder_yaml *z);

/* `purge:` {partition: [k=v, ...], target_size, dry_run} and `analyze:`
 * {columns: [...], all, dry_run}; empty (null) = the defaults. The
 * options' string lists point into the owned copies; release with the
 * dispose functions (also after a failure). */
typedef struct purge_yaml {
	loom_purge_opts opts;
	char **filters;
	size_t n_filters;
} purge_yaml;
typedef struct analyze_yaml {
	loom_analyze_opts opts;
	char **cols;
	size_t n_cols;
} analyze_yaml;
int yopts_purge(ydoc *d, yaml_node_t *v, const char *section, purge_yaml *out);
void yopts_purge_dispose(purge_yaml *p);
int yopts_analyze(ydoc *d, yaml_node_t *v, const char *section, analyze_yaml *out);
void yopts_analyze_dispose(analyze_yaml *a);

/* `auto:` true / false, nothing (on, default policy), or a mapping of
 * policy thresholds {target_size, min_small_files, dv_purge_ratio,
 * min_dv_files, max_clustering_depth, checkpoint_commits,
 * checkpoint_json_bytes, min_vacuum_files, min_expired_logs,
 * min_files_without_stats}. *on says
 * whether auto mode is on; *policy starts at the defaults. A value out of
 * range is refused at its own line, naming "section.key". */
int yopts_auto(ydoc *d, yaml_node_t *v, const char *section, int *on,
               loom_health_policy *policy);

#endif
