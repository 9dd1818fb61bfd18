/* ops/optimize/plan_files.c - the files of a plan's bins, fetched from the
 * positions planning kept: pointers into the snapshot's arrays, or views
 * of the compact file index made for the run (issue 30: a dry run never
 * makes them). */
#include <stdlib.h>
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

/* Where a view's stats lie in the log (views whose stats the index holds
 * have none). */
typedef struct stats_place {
	uint64_t offset;   /* byte of a commit, or row of a checkpoint file */
	uint32_t source;   /* log file */
	uint32_t k;        /* the view */
} stats_place;

static int cmp_place(const void *pa, const void *pb)
{
	const stats_place *a = pa, *b = pb;
	if (a->source != b->source)
		return a->source < b->source ? -1 : 1;
	return a->offset < b->offset ? -1 : a->offset > b->offset;
}

/* The stats the index left in the log, read into the views in the order
 * they lie there (log file, then offset or row) rather than the plan's:
 * each checkpoint file is opened once and each of its row groups read
 * (on an object store: fetched) once. The stats of commits' adds are usually
 * held by the index (delta_load_opts.commit_stats_budget): no request. */
static int read_stats(compact_plan *plan, const delta_snapshot *snap, struct plan_views *v)
{
	stats_place *places = loom_calloc(plan->files_in_bins + 1, sizeof(*places));
	delta_stats_reader rd;
	delta_stats_ref ref;
	size_t k, n = 0;
	int rc = 0;

	if (!places)
		return OPS_ERR(LOOM_ENOMEM, "out of memory reading the plan's stats");
	for (k = 0; k < plan->files_in_bins && rc == 0; k++) {
		rc = delta_file_index_stats_ref(snap->index, DELTA_FILES_LIVE, plan->storage[k], &ref);
		if (rc == 1) {
			places[n].offset = ref.offset;
			places[n].source = ref.source;
			places[n++].k = (uint32_t)k;
			rc = 0;
		}
	}
	qsort(places, n, sizeof(*places), cmp_place);
	delta_stats_reader_init(&rd, snap->store);
	for (k = 0; k < n && rc == 0; k++)
		rc = delta_snapshot_live_stats(snap, &rd, plan->storage[places[k].k], &v->scratch,
		                               &v->files[places[k].k]);
	delta_stats_reader_dispose(&rd);
	loom_free(places);
	return rc;
}

static int make_views(compact_plan *plan, const delta_snapshot *snap)
{
	struct plan_views *v = loom_calloc(1, sizeof(*v));
	size_t k;
	int rc = 0;

	if (!v || !(v->files = loom_calloc(plan->files_in_bins + 1, sizeof(*v->files)))) {
		loom_free(v);
		return OPS_ERR(LOOM_ENOMEM, "out of memory reading the plan's files");
	}
	delta_file_scratch_init(&v->scratch);
	plan->views = v;
	for (k = 0; k < plan->files_in_bins && rc == 0; k++) {
		rc = delta_snapshot_live_file(snap, plan->storage[k], &v->scratch, &v->files[k]);
		plan->files[k] = &v->files[k];
	}
	return rc == 0 ? read_stats(plan, snap, v) : rc;
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
