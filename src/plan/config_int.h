/* plan/config_int.h - the parsed storage config. */
#ifndef LOOM_PLAN_CONFIG_INT_H
#define LOOM_PLAN_CONFIG_INT_H

#include "loom/config.h"
#include "plan/yopts.h"
#include "util/secret.h"

typedef struct cfg_kvs {
	loom_kv *items;   /* keys and values owned */
	size_t n;
} cfg_kvs;

/* A table_path: defaults.table_path or a route's path. has_* say whether
 * a route set the field itself (unset fields fall back to the default). */
typedef struct cfg_path {
	char *uri;
	cfg_kvs storage_options, writer, delta_config, commit;
	int has_storage_options, has_writer, has_delta_config, has_commit;
	int64_t target_file_size;   /* 0 = unset */
	int line;
} cfg_path;

typedef struct cfg_table {
	char *name;
	int has_path;
	cfg_path path;   /* when has_path */
	char *ref;       /* catalog ref otherwise */
	int line, col;
} cfg_table;

struct loom_config {
	char *source;
	int has_default;
	cfg_path dflt;
	cfg_table *tables;
	size_t n_tables;
	int tables_line, tables_col;

	/* The maintenance block. No schemas means every tables[] route (as
	 * loom's Python ETL reads it); has_* say which ops it schedules. */
	int has_maintenance;
	char **schemas;
	size_t n_schemas;
	int has_vacuum, has_compact, has_zorder;
	/* compact and z_order_by both on: the file loads (a plan step may use
	 * it), the block cannot run; where the later of the two keys is, for
	 * the message of loom_step_from_config */
	int exclusive_line, exclusive_col;
	loom_vacuum_opts vacuum;
	loom_compact_opts compact;
	zorder_yaml zorder;
	/* purge / analyze (issue 32): run after the rewrite, before nothing
	 * else; true, a mapping of their options or nothing (the defaults) */
	int has_purge, has_analyze;
	purge_yaml purge;
	analyze_yaml analyze;
	/* auto: the block's tables get only what the health policy recommends,
	 * vacuum / compact / z_order_by above being auto's settings (so
	 * compact beside z_order_by is fine then: auto picks one per table) */
	int has_auto;
	loom_health_policy auto_policy;   /* the defaults when auto sets none */

	loom_secrets secrets;   /* values to mask in every message and output:
	                         * secret storage options, URI passwords and the
	                         * secret variables of the environment */
};

#endif
