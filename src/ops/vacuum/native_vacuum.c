/* ops/vacuum/native_vacuum.c - the public loom_vacuum() over ops/vacuum/vacuum.c. */
#include <string.h>

#include "loom/ops.h"
#include "ops/location.h"
#include "ops/vacuum/vacuum.h"
#include "util/error.h"

static int vacuum_on_store(loom_op_result *out, loom_store *store, void *params)
{
	return vacuum_run(out, store, params);
}

LOOM_EXTERN(int) loom_vacuum(loom_op_result *out, const char *uri, const loom_table_location *loc,
                             const loom_vacuum_opts *opts, const loom_cancel *cancel)
{
	const loom_vacuum_opts defaults = LOOM_VACUUM_OPTS_INIT;
	vacuum_params p;

	if (!opts)
		opts = &defaults;
	LOOM_TRY(loom_vacuum_opts_check(opts));
	memset(&p, 0, sizeof(p));
	p.retention_hours = opts->retention_hours;
	p.dry_run = opts->dry_run;
	p.full = opts->full;
	p.retention_check = opts->retention_check;
	p.cancel = cancel;
	if (loc) {
		p.commit_metadata = loc->commit;
		p.n_commit_metadata = loc->n_commit;
	}
	return ops_table_run(out, uri, loc, "vacuum", vacuum_on_store, &p, &p.secrets);
}
