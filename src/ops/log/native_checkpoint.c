/* ops/log/native_checkpoint.c - the public loom_checkpoint() and
 * loom_cleanup_logs() over ops/log/checkpoint.c and ops/log/log_cleanup.c. */
#include <string.h>

#include "loom/checkpoint.h"
#include "ops/log/checkpoint.h"
#include "ops/location.h"
#include "ops/opts.h"
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

LOOM_EXTERN(int) loom_checkpoint(loom_op_result *out, const char *uri,
                                 const loom_table_location *loc,
                                 const loom_checkpoint_opts *opts, const loom_cancel *cancel)
{
	loom_checkpoint_opts o;
	checkpoint_params p;

	if (!out || !uri)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_INVALID, "checkpoint: NULL argument");
	LOOM_TRY(ops_checkpoint_opts_read(&o, opts));
	memset(&p, 0, sizeof(p));
	p.version = o.table_version;
	p.part_size = o.part_size;
	p.cancel = cancel;
	return ops_table_run(out, uri, loc, "checkpoint", checkpoint_on_store, &p, NULL);
}

LOOM_EXTERN(int) loom_cleanup_logs(loom_op_result *out, const char *uri,
                                   const loom_table_location *loc,
                                   const loom_cleanup_logs_opts *opts, const loom_cancel *cancel)
{
	loom_cleanup_logs_opts o;
	log_cleanup_params p;

	if (!out || !uri)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_INVALID, "cleanup-logs: NULL argument");
	LOOM_TRY(ops_cleanup_logs_opts_read(&o, opts));
	memset(&p, 0, sizeof(p));
	p.dry_run = o.dry_run;
	p.force = o.force;
	p.retention_hours = o.retention_hours;
	p.cancel = cancel;
	return ops_table_run(out, uri, loc, "cleanup-logs", cleanup_on_store, &p, NULL);
}
