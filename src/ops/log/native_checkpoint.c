/* ops/log/native_checkpoint.c - the public loom_checkpoint() and
 * loom_cleanup_logs() over ops/log/checkpoint.c and ops/log/log_cleanup.c. */
#include <string.h>

#include "loom/checkpoint.h"
#include "ops/log/checkpoint.h"
#include "ops/location.h"
#include "util/error.h"

/* Checkpoints and log cleanup write no commit: the secrets only mask
 * their messages (ops_table_run does that), so their params keep none. */
static int checkpoint_on_store(loom_op_result *out, loom_store *store, void *params)
{
	return checkpoint_run(out, store, params);
}

static int cleanup_on_store(loom_op_result *out, loom_store *store, void *params)
{
	return log_cleanup_run(out, store, params);
}

/* What both entry points check first: their arguments there, the
 * options' version one of [oldest, newest]. */
static int check_call(const char *what, const loom_op_result *out, const char *uri, unsigned int version,
                      unsigned int oldest, unsigned int newest, const char *init)
{
	if (!out || !uri)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_INVALID, "%s: NULL argument", what);
	if (version < oldest || version > newest)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_INVALID,
		                "%s: options version %u not set or unknown (use %s)", what, version, init);
	return 0;
}

static int check_not_negative(const char *what, const char *field, int64_t value, int64_t lowest)
{
	if (value < lowest)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_INVALID, "%s: %s %lld is negative", what, field,
		                (long long)value);
	return 0;
}

LOOM_EXTERN(int) loom_checkpoint(loom_op_result *out, const char *uri,
                                 const loom_table_location *loc,
                                 const loom_checkpoint_opts *opts, const loom_cancel *cancel)
{
	const loom_checkpoint_opts defaults = LOOM_CHECKPOINT_OPTS_INIT;
	checkpoint_params p;

	if (!opts)
		opts = &defaults;
	LOOM_TRY(check_call("checkpoint", out, uri, opts->version, 1, LOOM_CHECKPOINT_OPTS_VERSION,
	                    "LOOM_CHECKPOINT_OPTS_INIT"));
	LOOM_TRY(check_not_negative("checkpoint", "table_version", opts->table_version, -1));
	memset(&p, 0, sizeof(p));
	p.version = opts->table_version;
	/* a version-1 struct ends before part_size */
	if (opts->version >= 2) {
		LOOM_TRY(check_not_negative("checkpoint", "part_size", opts->part_size, 0));
		p.part_size = opts->part_size;
	}
	p.cancel = cancel;
	return ops_table_run(out, uri, loc, "checkpoint", checkpoint_on_store, &p, NULL);
}

/* dry_run and force: 0 or 1. A binding's conversion slip (2, -1) must not
 * be read as "on": force=2 would delete logs the table protects. */
static int check_switch(const char *field, int value)
{
	if (value != 0 && value != 1)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_INVALID,
		                "cleanup-logs: %s must be 0 or 1, got %d", field, value);
	return 0;
}

LOOM_EXTERN(int) loom_cleanup_logs(loom_op_result *out, const char *uri,
                                   const loom_table_location *loc,
                                   const loom_cleanup_logs_opts *opts, const loom_cancel *cancel)
{
	const loom_cleanup_logs_opts defaults = LOOM_CLEANUP_LOGS_OPTS_INIT;
	log_cleanup_params p;

	if (!opts)
		opts = &defaults;
	LOOM_TRY(check_call("cleanup-logs", out, uri, opts->version, LOOM_CLEANUP_LOGS_OPTS_VERSION,
	                    LOOM_CLEANUP_LOGS_OPTS_VERSION, "LOOM_CLEANUP_LOGS_OPTS_INIT"));
	LOOM_TRY(check_not_negative("cleanup-logs", "retention_hours", opts->retention_hours, -1));
	LOOM_TRY(check_switch("dry_run", opts->dry_run));
	LOOM_TRY(check_switch("force", opts->force));
	memset(&p, 0, sizeof(p));
	p.dry_run = opts->dry_run;
	p.force = opts->force;
	p.retention_hours = opts->retention_hours;
	p.cancel = cancel;
	return ops_table_run(out, uri, loc, "cleanup-logs", cleanup_on_store, &p, NULL);
}
