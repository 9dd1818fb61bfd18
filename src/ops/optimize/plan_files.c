/* ops/optimize/plan_files.c - the files of a plan's bins, fetched from the
 * positions planning kept: pointers into the snapshot's arrays, or views
 * of the compact file index made for the run (issue 30: a dry run never
 * makes them). */
#include <string.h>

#include "ops/optimize/optimize.h"
#include "util/alloc.h"
#include "util/error.h"

#define OPS_ERR(code, ...) loom_err((code), LOOM_ERRCLASS_OPS, __VA_ARGS__)

/* Views of an index's files: the structs and their rendered strings. */
struct plan_views {
	delta_file *files;
	delta_file_scratch scratch;
};

static int make_views(compact_plan *plan, const delta_snapshot *snap)
{
	struct plan_views *v = loom_calloc(1, sizeof(*v));
	delta_stats_reader rd;
	size_t k;
	int rc = 0;

	if (!v || !(v->files = loom_calloc(plan->files_in_bins + 1, sizeof(*v->files)))) {
		loom_free(v);
		return OPS_ERR(LOOM_ENOMEM, "out of memory reading the plan's files");
	}
	delta_file_scratch_init(&v->scratch);
	plan->views = v;
	delta_stats_reader_init(&rd, snap->store);
	for (k = 0; k < plan->files_in_bins && rc == 0; k++) {
		rc = delta_snapshot_live_file(snap, plan->storage[k], &v->scratch, &v->files[k]);
		if (rc == 0)
			rc = delta_snapshot_live_stats(snap, &rd, plan->storage[k], &v->scratch, &v->files[k]);
		plan->files[k] = &v->files[k];
	}
	delta_stats_reader_dispose(&rd);
	return rc;
}

int compact_plan_files(compact_plan *plan, const delta_snapshot *snap)
{
	size_t k, b;
	int rc = 0;

	if (plan->files || !plan->storage)
		return 0;
	plan->files = loom_calloc(plan->files_in_bins + 1, sizeof(*plan->files));
	if (!plan->files)
		return OPS_ERR(LOOM_ENOMEM, "out of memory reading the plan's files");
	if (snap->index)
		rc = make_views(plan, snap);
	else
		for (k = 0; k < plan->files_in_bins; k++)
			plan->files[k] = snap->files[plan->storage[k]];
	if (rc < 0) {
		compact_plan_drop_files(plan);
		return rc;
	}
	for (b = 0; b < plan->num_bins; b++)
		plan->bins[b].files = plan->files + (plan->bins[b].pos - plan->storage);
	return 0;
}

int compact_plan_finish(compact_plan *plan, const delta_snapshot *snap)
{
	return snap->index ? 0 : compact_plan_files(plan, snap);
}

void compact_plan_drop_files(compact_plan *plan)
{
	size_t b;
	if (plan->views) {
		delta_file_scratch_dispose(&plan->views->scratch);
		loom_free(plan->views->files);
		loom_free(plan->views);
		plan->views = NULL;
	}
	if (plan->files) {
		for (b = 0; b < plan->num_bins; b++)
			if (plan->bins[b].pos)
				plan->bins[b].files = NULL;
		loom_free(plan->files);
		plan->files = NULL;
	}
}
