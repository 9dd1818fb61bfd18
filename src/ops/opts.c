/* ops/opts.c - the options of the single-table operations: the versions of
 * each struct, their defaults (loom_*_opts_init), their checks
 * (loom_*_opts_check) and how an operation reads a caller's struct of any
 * version (ops/opts.h). */
#include "ops/opts.h"

#include <stddef.h>
#include <string.h>

#include "util/error.h"
#include "util/versioned.h"

/* Each struct's versions (util/versioned.h): a version that appended
 * fields ends where the next one's first field starts. */
LOOM_VERSIONS(vacuum_versions, loom_vacuum_opts, LOOM_VACUUM_OPTS_VERSION, LOOM_VACUUM_OPTS_INIT,
              sizeof(loom_vacuum_opts));
LOOM_VERSIONS(compact_versions, loom_compact_opts, LOOM_COMPACT_OPTS_VERSION,
              LOOM_COMPACT_OPTS_INIT,
              offsetof(loom_compact_opts, copy_row_group_min_size),
              offsetof(loom_compact_opts, commit_every),
              sizeof(loom_compact_opts));
LOOM_VERSIONS(zorder_versions, loom_zorder_opts, LOOM_ZORDER_OPTS_VERSION, LOOM_ZORDER_OPTS_INIT,
              offsetof(loom_zorder_opts, commit_every),
              sizeof(loom_zorder_opts));
LOOM_VERSIONS(purge_versions, loom_purge_opts, LOOM_PURGE_OPTS_VERSION, LOOM_PURGE_OPTS_INIT,
              sizeof(loom_purge_opts));
LOOM_VERSIONS(analyze_versions, loom_analyze_opts, LOOM_ANALYZE_OPTS_VERSION,
              LOOM_ANALYZE_OPTS_INIT, sizeof(loom_analyze_opts));
LOOM_VERSIONS(checkpoint_versions, loom_checkpoint_opts, LOOM_CHECKPOINT_OPTS_VERSION,
              LOOM_CHECKPOINT_OPTS_INIT,
              offsetof(loom_checkpoint_opts, part_size),
              sizeof(loom_checkpoint_opts));
LOOM_VERSIONS(cleanup_logs_versions, loom_cleanup_logs_opts, LOOM_CLEANUP_LOGS_OPTS_VERSION,
              LOOM_CLEANUP_LOGS_OPTS_INIT, sizeof(loom_cleanup_logs_opts));
LOOM_VERSIONS(convert_versions, loom_convert_opts, LOOM_CONVERT_OPTS_VERSION,
              LOOM_CONVERT_OPTS_INIT, sizeof(loom_convert_opts));
LOOM_VERSIONS(result_versions, loom_op_result, LOOM_OP_RESULT_VERSION, LOOM_OP_RESULT_INIT,
              sizeof(loom_op_result));
LOOM_VERSIONS(location_versions, loom_table_location, LOOM_TABLE_LOCATION_VERSION,
              LOOM_TABLE_LOCATION_INIT, sizeof(loom_table_location));

/* ---- defaults ----------------------------------------------------------- */

LOOM_VERSIONED_INIT_FN(vacuum_opts, vacuum_versions)
LOOM_VERSIONED_INIT_FN(compact_opts, compact_versions)
LOOM_VERSIONED_INIT_FN(zorder_opts, zorder_versions)
LOOM_VERSIONED_INIT_FN(purge_opts, purge_versions)
LOOM_VERSIONED_INIT_FN(analyze_opts, analyze_versions)
LOOM_VERSIONED_INIT_FN(checkpoint_opts, checkpoint_versions)
LOOM_VERSIONED_INIT_FN(cleanup_logs_opts, cleanup_logs_versions)
LOOM_VERSIONED_INIT_FN(convert_opts, convert_versions)
LOOM_VERSIONED_INIT_FN(op_result, result_versions)
LOOM_VERSIONED_INIT_FN(table_location, location_versions)

int ops_result_check(const loom_op_result *out)
{
	if (!out)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_INVALID, "loom_op_result: NULL");
	return loom_versioned_check(&result_versions, out->version);
}

int ops_location_check(const loom_table_location *loc)
{
	return loc ? loom_versioned_check(&location_versions, loc->version) : 0;
}

/* ---- checks (on current-version structs) ---------------------------------- */

/* A switch of an options struct: 0 or 1. Bindings fill the structs from
 * their own values (ctypes, cffi ...); anything else is a conversion bug
 * upstream, and guessing (any non-zero = on) could delete files the
 * caller meant to keep, so it is refused. */
static int check_switch(const char *op, const char *field, int value)
{
	if (value != 0 && value != 1)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_PLAN, "%s: %s must be 0 or 1, got %d",
		                op, field, value);
	return 0;
}

/* Column lists (Z-order, analyze): no NULL list with a count, no empty
 * name, no name twice. */
static int check_columns(const char *op, const char *const *columns, size_t n)
{
	size_t i, j;
	if (n && !columns)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_PLAN, "%s: %zu columns but no list", op, n);
	for (i = 0; i < n; i++) {
		if (!columns[i] || !columns[i][0])
			return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_PLAN, "%s: column %zu is empty", op, i);
		for (j = 0; j < i; j++)
			if (strcmp(columns[i], columns[j]) == 0)
				return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_PLAN,
				                "%s: column '%s' is listed twice", op, columns[i]);
	}
	return 0;
}

static int check_vacuum(const loom_vacuum_opts *o)
{
	if (o->retention_hours < 0 && o->retention_hours != LOOM_RETENTION_TABLE_DEFAULT)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_PLAN,
		                "vacuum: retention_hours %lld is negative",
		                (long long)o->retention_hours);
	LOOM_TRY(check_switch("vacuum", "dry_run", o->dry_run));
	LOOM_TRY(check_switch("vacuum", "full", o->full));
	return check_switch("vacuum", "retention_check", o->retention_check);
}

static int check_compact(const loom_compact_opts *o)
{
	if (o->commit_every < 0)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_PLAN,
		                "compact: commit_every %lld is negative", (long long)o->commit_every);
	if (o->target_size < 0)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_PLAN,
		                "compact: target_size %lld is not positive",
		                (long long)o->target_size);
	if (o->copy_row_group_min_size < 0 && o->copy_row_group_min_size != LOOM_COPY_ROW_GROUPS_OFF)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_PLAN,
		                "compact: copy_row_group_min_size %lld is negative",
		                (long long)o->copy_row_group_min_size);
	return check_switch("compact", "dry_run", o->dry_run);
}

static int check_zorder(const loom_zorder_opts *o)
{
	if (o->commit_every < 0)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_PLAN,
		                "z_order: commit_every %lld is negative", (long long)o->commit_every);
	if (o->n_columns == 0 || !o->columns)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_PLAN,
		                "z_order_by: the column list is empty");
	LOOM_TRY(check_columns("z_order_by", o->columns, o->n_columns));
	if (o->target_size < 0)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_PLAN,
		                "z_order_by: target_size %lld is not positive",
		                (long long)o->target_size);
	if (o->spill_limit < 0)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_PLAN,
		                "z_order_by: spill_limit %lld is negative",
		                (long long)o->spill_limit);
	if ((int)o->curve < LOOM_ZORDER_CURVE_AUTO || o->curve > LOOM_ZORDER_CURVE_HILBERT)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_PLAN, "z_order_by: unknown curve %d",
		                (int)o->curve);
	LOOM_TRY(check_switch("z_order_by", "full", o->full));
	LOOM_TRY(check_switch("z_order_by", "dry_run", o->dry_run));
	if (o->memory_budget < 0)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_PLAN,
		                "z_order_by: memory_budget %lld is negative", (long long)o->memory_budget);
	return 0;
}

static int check_purge(const loom_purge_opts *o)
{
	if (o->target_size < 0)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_PLAN, "purge: target_size %lld is not positive",
		                (long long)o->target_size);
	return check_switch("purge", "dry_run", o->dry_run);
}

static int check_analyze(const loom_analyze_opts *o)
{
	LOOM_TRY(check_columns("analyze", o->columns, o->n_columns));
	LOOM_TRY(check_switch("analyze", "all", o->all));
	return check_switch("analyze", "dry_run", o->dry_run);
}

static int check_checkpoint(const loom_checkpoint_opts *o)
{
	if (o->table_version < -1)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_INVALID,
		                "checkpoint: table_version %lld is negative", (long long)o->table_version);
	if (o->part_size < 0)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_INVALID, "checkpoint: part_size %lld is negative",
		                (long long)o->part_size);
	return 0;
}

static int check_cleanup_logs(const loom_cleanup_logs_opts *o)
{
	if (o->retention_hours < -1)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_INVALID,
		                "cleanup-logs: retention_hours %lld is negative",
		                (long long)o->retention_hours);
	/* force=2 from a binding's slip must not be read as "on": it would
	 * delete logs the table protects */
	LOOM_TRY(check_switch("cleanup-logs", "dry_run", o->dry_run));
	return check_switch("cleanup-logs", "force", o->force);
}

/* The partition column names are checked by the conversion. */
static int check_convert(const loom_convert_opts *o)
{
	(void)o;
	return 0;
}

/* ---- reading a caller's struct ------------------------------------------- */

/* ops_<name>_read (ops/opts.h): the caller's struct of any version (NULL:
 * the defaults) as a current one, its values checked by `check`. */
#define READ_FN(name, var, check)                                        \
	int ops_##name##_read(loom_##name *out, const loom_##name *in)       \
	{                                                                    \
		LOOM_TRY(loom_versioned_read(&(var), out, in));                  \
		return check(out);                                               \
	}

READ_FN(vacuum_opts, vacuum_versions, check_vacuum)
READ_FN(compact_opts, compact_versions, check_compact)
READ_FN(zorder_opts, zorder_versions, check_zorder)
READ_FN(purge_opts, purge_versions, check_purge)
READ_FN(analyze_opts, analyze_versions, check_analyze)
READ_FN(checkpoint_opts, checkpoint_versions, check_checkpoint)
READ_FN(cleanup_logs_opts, cleanup_logs_versions, check_cleanup_logs)
READ_FN(convert_opts, convert_versions, check_convert)

/* ---- the public checks ------------------------------------------------------ */

/* The public checks refuse NULL (there is nothing to check; the
 * operations take NULL as the defaults), else check as the reader. */
#define CHECK_FN(name, what)                                             \
	LOOM_EXTERN(int) loom_##name##_check(const loom_##name *o)          \
	{                                                                    \
		loom_##name c;                                                   \
		if (!o)                                                          \
			return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_PLAN,             \
			                "%s: options are NULL", what);               \
		return ops_##name##_read(&c, o);                                 \
	}

CHECK_FN(vacuum_opts, "vacuum")
CHECK_FN(compact_opts, "compact")
CHECK_FN(zorder_opts, "z_order")
CHECK_FN(purge_opts, "purge")
CHECK_FN(analyze_opts, "analyze")

/* ---- curve names ------------------------------------------------------------- */

LOOM_EXTERN(int) loom_zorder_curve_from_name(loom_zorder_curve *curve, const char *name)
{
	static const struct { const char *name; loom_zorder_curve curve; } names[] = {
		{ "z", LOOM_ZORDER_CURVE_Z }, { "zorder", LOOM_ZORDER_CURVE_Z },
		{ "morton", LOOM_ZORDER_CURVE_Z }, { "hilbert", LOOM_ZORDER_CURVE_HILBERT },
		{ "auto", LOOM_ZORDER_CURVE_AUTO },
	};
	size_t i;
	for (i = 0; name && curve && i < sizeof(names) / sizeof(names[0]); i++)
		if (strcmp(name, names[i].name) == 0) {
			*curve = names[i].curve;
			return 0;
		}
	return LOOM_EINVAL;
}

LOOM_EXTERN(const char *) loom_zorder_curve_name(loom_zorder_curve curve)
{
	switch (curve) {
	case LOOM_ZORDER_CURVE_AUTO: return "auto";
	case LOOM_ZORDER_CURVE_Z: return "z";
	case LOOM_ZORDER_CURVE_HILBERT: return "hilbert";
	default: return NULL;
	}
}
