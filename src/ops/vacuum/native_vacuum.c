/* ops/vacuum/native_vacuum.c - the public loom_vacuum() over ops/vacuum/vacuum.c. */
#include <string.h>

#include "loom/ops.h"
#include "ops/location.h"
#include "ops/opts.h"
#include "ops/vacuum/vacuum.h"
#include "util/error.h"

static int vacuum_on_store(loom_op_result *out, loom_store *store, void *params)
{
	return vacuum_run(out, store, params);
}

LOOM_EXTERN(int) loom_vacuum(loom_op_result *out, const char *uri, const loom_table_location *loc,
                             const loom_vacuum_opts *opts, const loom_cancel *cancel)
{
	loom_vacuum_opts o;
	vacuum_params p;

	LOOM_TRY(ops_vacuum_opts_read(&o, opts));
	memset(&p, 0, sizeof(p));
	p.retention_hours = o.retention_hours;
	p.dry_run = o.dry_run;
	p.full = o.full;
	p.retention_check = o.retention_check;
	p.cancel = cancel;
	if (loc) {
		p.commit_metadata = loc->commit;
		p.n_commit_metadata = loc->n_commit;
	}
	return ops_table_run(out, uri, loc, "vacuum", vacuum_on_store, &p, &p.secrets);
}
