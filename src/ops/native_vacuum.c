/* ops/native_vacuum.c - the public loom_vacuum() over ops/vacuum.c. */
#include <string.h>

#include "loom/ops.h"
#include "ops/vacuum.h"
#include "util/error.h"

LOOM_EXTERN(int) loom_vacuum(loom_op_result *out, const char *uri, const loom_table_location *loc,
                             const loom_vacuum_opts *opts, const loom_cancel *cancel)
{
	const loom_vacuum_opts defaults = LOOM_VACUUM_OPTS_INIT;
	vacuum_params p;
	loom_store *store = NULL;
	int rc;

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
	if ((rc = loom_store_open(&store, uri)) < 0)
		return loom_err_wrap("vacuum %s", uri);
	rc = vacuum_run(out, store, &p);
	if (rc < 0)
		loom_err_wrap("vacuum %s", uri);
	loom_store_free(store);
	return rc;
}
