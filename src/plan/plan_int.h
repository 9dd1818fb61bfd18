/* plan/plan_int.h - internals shared by the files of the plan layer. */
#ifndef LOOM_PLAN_INT_H
#define LOOM_PLAN_INT_H

#include "loom/config.h"
#include "loom/ops.h"
#include "loom/plan.h"

/* A declaration over every tables[] route (decl.c): the maintenance
 * block's meaning when it lists no schemas, as in loom's Python ETL. */
int plan_maintain_all(loom_decl **out);
/* 1 when the config's maintenance block schedules at least one op. */
int plan_config_schedules_ops(const loom_config *cfg);
/* 1 when running the block yields tables: it schedules ops, or names
 * schemas (their tables are listed with no results, as in loom-py). */
int plan_config_block_runs(const loom_config *cfg);
/* Let a built-in declaration have no ops (the maintenance block's schemas
 * without ops); the public builders still refuse that. */
void plan_decl_allow_no_ops(loom_decl *d);

/* The kind of a built-in op (op.c): used to reject compact + z-order, and
 * vacuum / compact / z-order beside auto. */
enum plan_op_kind { PLAN_OP_CUSTOM = 0, PLAN_OP_VACUUM, PLAN_OP_COMPACT, PLAN_OP_ZORDER,
	            PLAN_OP_AUTO, PLAN_OP_PURGE, PLAN_OP_ANALYZE };
/* 1 when the runner can drive `m`: a version from 1 to
 * LOOM_MAINTAINER_VERSION (older ones lack the members appended since). */
int plan_maintainer_version_ok(const loom_maintainer *m);
int plan_op_kind(const loom_op *op);
/* loom_op_execute, a compaction or Z-order without a commit_every of its
 * own run with `commit_every` (> 0: under a run's budget, plan/budget.h). */
int plan_op_execute_with(const loom_op *op, loom_op_result *out, const loom_maintainer *m,
                         const char *uri, const loom_table_location *loc, const loom_cancel *cancel,
                         int64_t commit_every);
/* Mark an op made by loom_op_new as the auto op (auto.c); it keeps its
 * execute function and payload. */
void plan_op_mark_auto(loom_op *op);
/* The payload of an auto op, NULL for other kinds (op.c). */
const void *plan_op_auto_payload(const loom_op *op);
/* An auto op's settings for explain (auto.c): the policy, and the declared
 * vacuum / compact / Z-order or NULL. 0, or -1 when `op` is not auto. */
struct loom_health_policy;
int plan_auto_settings(const loom_op *op, const struct loom_health_policy **policy,
                       const loom_vacuum_opts **vacuum, const loom_compact_opts **compact,
                       const loom_zorder_opts **zorder);
/* The rule for ops that cannot share a declaration or spec: a message
 * naming both, or NULL when `a` and `b` may (decl.c). */
const char *plan_ops_conflict(const loom_op *a, const loom_op *b);
/* The options of a built-in op, or NULL for other kinds. */
const loom_vacuum_opts *plan_op_vacuum_opts(const loom_op *op);
const loom_compact_opts *plan_op_compact_opts(const loom_op *op);
const loom_zorder_opts *plan_op_zorder_opts(const loom_op *op);
const loom_purge_opts *plan_op_purge_opts(const loom_op *op);
const loom_analyze_opts *plan_op_analyze_opts(const loom_op *op);

/* Notes a resolve wants the report to show (a schema matching nothing). */
int plan_spec_list_warn(loom_spec_list *l, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
size_t plan_spec_list_warning_count(const loom_spec_list *l);
const char *plan_spec_list_warning(const loom_spec_list *l, size_t i);


/* A JSON string for arbitrary bytes (json.c): invalid UTF-8 (a table
 * name or path from a foreign system) becomes '?' instead of silently
 * dropping the field. Returns a new json_t reference. */
struct json_t;
struct loom_buf;
/* loom_buf_printf that remembers the first failure in *rc, so renderers
 * can append freely and check once (json.c). */
void plan_bprintf(int *rc, struct loom_buf *b, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
struct json_t *plan_json_str(const char *s);
/* Every Z-order option as a JSON object (unset sizes and temp_dir null);
 * the config JSON and explain share it. */
struct json_t *plan_zorder_json(const loom_zorder_opts *z);
/* purge {partition, target_size, dry_run} and analyze {columns, all,
 * dry_run} as JSON objects, keyed as the YAML (config JSON, explain). */
struct json_t *plan_purge_json(const loom_purge_opts *p);
struct json_t *plan_analyze_json(const loom_analyze_opts *a);
/* The health policy's thresholds as a JSON object, keyed as the YAML's
 * `auto:` mapping (the config JSON and explain share it). */
struct json_t *plan_policy_json(const struct loom_health_policy *p);

#endif
