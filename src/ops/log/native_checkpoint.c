/* ops/log/native_checkpoint.c - the public loom_checkpoint() and
 * loom_cleanup_logs() over ops/log/checkpoint.c and ops/log/log_cleanup.c. */
#include <string.h>

#include "loom/checkpoint.h"
#include "ops/log/checkpoint.h"
#include "ops/location.h"
#include "util/error.h"

/* Checkpoints and log cleanup write no commit: the secrets only mask
 * their messages (ops_table_run does that). */
static int checkpoint_on_store(loom_op_result *out, loom_store *store, const loom_secrets *secrets,
                               void *params)
{
	(void)secrets;
	return checkpoint_run(out, store, params);
}

static int cleanup_on_store(loom_op_result *out, loom_store *store, const loom_secrets *secrets,
                            void *params)
{
	(void)secrets;
	return log_cleanup_run(out, store, params);
}

LOOM_EXTERN(int) loom_checkpoint(loom_op_result *out, const char *uri,
                                 const loom_table_location *loc,
                                 const loom_checkpoint_opts *opts, const loom_cancel *cancel)
{
	const loom_checkpoint_opts defaults = LOOM_CHECKPOINT_OPTS_INIT;
	checkpoint_params p;

	if (!opts)
		opts = &defaults;
	if (!out || !uri)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_INVALID, "checkpoint: NULL argument");
	if (opts->version != 1 && opts->version != LOOM_CHECKPOINT_OPTS_VERSION)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_INVALID,
		                "checkpoint: options version %u not set or unknown (use "
		                "LOOM_CHECKPOINT_OPTS_INIT)", opts->version);
	if (opts->table_version < -1)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_INVALID,
		                "checkpoint: table_version %lld is negative",
		                (long long)opts->table_version);
	memset(&p, 0, sizeof(p));
	p.version = opts->table_version;
	/* a version-1 struct ends before part_size */
	if (opts->version >= 2) {
		if (opts->part_size < 0)
			return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_INVALID,
			                "checkpoint: part_size %lld is negative",
			                (long long)opts->part_size);
		p.part_size = opts->part_size;
	}
	p.cancel = cancel;
	return ops_table_run(out, uri, loc, "checkpoint", checkpoint_on_store, &p);
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
	if (!out || !uri)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_INVALID, "cleanup-logs: NULL argument");
	if (opts->version != LOOM_CLEANUP_LOGS_OPTS_VERSION)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_INVALID,
		                "cleanup-logs: options version %u not set or unknown (use "
		                "LOOM_CLEANUP_LOGS_OPTS_INIT)", opts->version);
	if (opts->retention_hours < -1)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_INVALID,
		                "cleanup-logs: retention_hours %lld is negative",
		                (long long)opts->retention_hours);
	LOOM_TRY(check_switch("dry_run", opts->dry_run));
	LOOM_TRY(check_switch("force", opts->force));
	memset(&p, 0, sizeof(p));
	p.dry_run = opts->dry_run;
	p.force = opts->force;
	p.retention_hours = opts->retention_hours;
	p.cancel = cancel;
	return ops_table_run(out, uri, loc, "cleanup-logs", cleanup_on_store, &p);
}
