/* ops/vacuum/native_vacuum.c - the public loom_vacuum() over ops/vacuum/vacuum.c. */
#include <string.h>

#include "loom/ops.h"
#include "ops/location.h"
#include "ops/opts.h"
#include "ops/vacuum/vacuum.h"
#include "util/error.h"

/* vacuum_run's params from the options read (on zeroed params). */
static void params_fill(vacuum_params *p, const loom_vacuum_opts *o, const loom_table_location *loc,
                        const loom_cancel *cancel)
{
	p->retention_hours = o->retention_hours;
	p->dry_run = o->dry_run;
	p->full = o->full;
	p->retention_check = o->retention_check;
	p->cancel = cancel;
	if (loc) {
		p->commit_metadata = loc->commit;
		p->n_commit_metadata = loc->n_commit;
	}
}

OPS_TABLE_ENTRY(vacuum, "vacuum", vacuum_params, params_fill, vacuum_run, secrets)
