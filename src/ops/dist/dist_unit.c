/* ops/dist/dist_unit.c - the execute step of include/loom/distributed.h: one
 * unit of a plan through the rewrite pipeline (ops/pipeline/pipeline.h) on the
 * plan's read version, its new files described in a result; no commit. */
#include <string.h>

#include "delta/protocol.h"
#include "loom/distributed.h"
#include "ops/compact/compact.h"
#include "ops/dist/dist.h"
#include "ops/location.h"
#include "ops/optimize/optimize.h"
#include "ops/zorder/zorder.h"
#include "ops/zorder/zorder_range.h"
#include "util/alloc.h"
#include "util/clock.h"
#include "util/error.h"

#define OPS_ERR(code, ...) loom_err((code), LOOM_ERRCLASS_OPS, __VA_ARGS__)


/* The result document of an executed unit. */
static json_t *result_json(const dist_plan *p, size_t index, const pipe_unit *u, double seconds)
{
	json_t *root = json_object(), *adds = json_array(), *removes = json_array(), *m = json_object();
	int64_t added = 0, removed = 0;
	size_t i;
	json_object_set_new(root, "loom_result", json_integer(DIST_RESULT_FORMAT));
	json_object_set_new(root, "plan", json_string(p->id));
	json_object_set_new(root, "unit", json_integer((json_int_t)index));
	for (i = 0; i < u->result.num_files; i++) {
		const pipe_output *o = &u->result.files[i];
		json_t *a = json_object();
		json_object_set_new(a, "path", json_string(o->path_raw));
		json_object_set_new(a, "key", json_string(o->key));
		json_object_set_new(a, "size", json_integer(o->size));
		json_object_set_new(a, "modificationTime", json_integer(o->modification_time));
		json_object_set_new(a, "numRecords", json_integer(o->num_records));
		json_object_set_new(a, "stats", o->stats ? json_string(o->stats) : json_null());
		json_array_append_new(adds, a);
		added += o->size;
	}
	for (i = 0; i < u->num_files; i++) {
		json_array_append_new(removes, json_string(u->files[i]->path));
		removed += u->files[i]->size;
	}
	json_object_set_new(root, "adds", adds);
	json_object_set_new(root, "removes", removes);
	json_object_set_new(m, "rows_in", json_integer(u->result.rows_in));
	json_object_set_new(m, "rows_deleted", json_integer(u->result.rows_deleted));
	json_object_set_new(m, "batches", json_integer(u->result.batches));
	json_object_set_new(m, "files_added", json_integer((json_int_t)u->result.num_files));
	json_object_set_new(m, "bytes_added", json_integer(added));
	json_object_set_new(m, "files_removed", json_integer((json_int_t)u->num_files));
	json_object_set_new(m, "bytes_removed", json_integer(removed));
	json_object_set_new(m, "seconds", json_real(seconds));
	json_object_set_new(root, "metrics", m);
	return root;
}

/* Z-order columns of the plan, resolved against the table. */
static int zorder_setup(zrun *run, zorder_params *zp, const char **names, const dist_plan *p,
                        const delta_snapshot *snap)
{
	json_t *cols = json_object_get(p->zorder_conf, "columns");
	const char *curve = json_string_value(json_object_get(p->zorder_conf, "curve"));
	size_t i, n = json_array_size(cols);
	if (n == 0 || n > ZO_MAX_COLUMNS)
		return OPS_ERR(LOOM_ECORRUPT, "plan: Z-order by %zu columns", n);
	for (i = 0; i < n; i++)
		if (!(names[i] = json_string_value(json_array_get(cols, i))))
			return OPS_ERR(LOOM_ECORRUPT, "plan: Z-order column %zu is not a string", i);
	memset(zp, 0, sizeof(*zp));
	zp->columns = names;
	zp->n_columns = n;
	zp->curve = curve && strcmp(curve, "z") == 0 ? LOOM_ZORDER_CURVE_Z : LOOM_ZORDER_CURVE_HILBERT;
	LOOM_TRY(zrun_init(run, zp));
	return zorder_validate(run, snap);
}

static void delete_written(loom_store *store, const pipe_unit *u)
{
	size_t i;
	loom_error saved;
	loom_err_copy(&saved);
	for (i = 0; i < u->result.num_files; i++)
		store->remove(store, u->result.files[i].key);
	loom_err(saved.code, saved.klass, "%s", saved.message);
}

static int execute(char **out, const dist_plan *p, size_t index, loom_store *store,
                   const loom_table_location *loc, size_t threads, const loom_cancel *cancel)
{
	delta_snapshot *snap = NULL;
	const delta_file **files = NULL;
	const char *names[ZO_MAX_COLUMNS];
	json_t *unit = dist_unit(p, index), *res = NULL;
	zorder_params zp;
	zrun run;
	zrange range;
	pipe_settings set;
	pipe_exec *x = NULL;
	pipe_unit u;
	int64_t memory = 0, t0 = loom_clock_mono_ns(NULL);
	int rc;

	memset(&run, 0, sizeof(run));
	memset(&range, 0, sizeof(range));
	memset(&u, 0, sizeof(u));
	if ((rc = delta_snapshot_load(&snap, store, p->read_version, NULL)) < 0)
		goto done;
	if ((rc = optimize_gate(snap, p->zorder ? DELTA_OP_ZORDER : DELTA_OP_COMPACT,
	                        p->zorder ? "Z-order" : "compaction")) < 0)
		goto done;
	if ((rc = dist_unit_files(p, index, snap, &files, &u.num_files)) < 0)
		goto done;
	u.files = files;
	for (size_t i = 0; i < u.num_files; i++)
		u.bytes += files[i]->size;
	if ((rc = pipe_settings_init(&set, store, snap, loc)) < 0)
		goto done;
	set.cancel = cancel;
	set.file_bytes = (uint64_t)p->target;
	if (p->zorder) {
		const char *lo = json_string_value(json_object_get(unit, "key_lo"));
		const char *hi = json_string_value(json_object_get(unit, "key_hi"));
		if ((rc = zorder_setup(&run, &zp, names, p, snap)) < 0)
			goto done;
		range.cols = &run.cols;
		range.sample = json_array_get(json_object_get(p->zorder_conf, "samples"), dist_unit_group(p, index));
		dist_key_parse(lo, &range.lo);
		range.has_hi = hi != NULL && dist_key_parse(hi, &range.hi) == 0;
		range.spill = &run.spill;
		range.target = p->target;
		u.ops = &zrange_ops;
		u.stage = &range;
		memory = json_integer_value(json_object_get(p->zorder_conf, "memory_budget"));
		if (memory <= 0)
			memory = ZORDER_DEFAULT_BUDGET;
	} else {
		int64_t copy = json_integer_value(json_object_get(p->root, "copy_row_group_min_size"));
		if (copy == LOOM_COPY_ROW_GROUPS_OFF)
			set.copy_min_bytes = 0;
		else if (copy > 0)
			set.copy_min_bytes = (uint64_t)copy;
	}
	if ((rc = pipe_exec_new(&x, &set, threads, memory)) < 0)
		goto done;
	if ((rc = pipe_exec_run(x, &u, 1, NULL, NULL)) < 0) {
		delete_written(store, &u);
		goto done;
	}
	res = result_json(p, index, &u, (double)(loom_clock_mono_ns(NULL) - t0) / 1e9);
	if (!res || (rc = dist_dump(res, out)) < 0) {
		rc = res ? rc : OPS_ERR(LOOM_ENOMEM, "out of memory");
		delete_written(store, &u);
	}
done:
	json_decref(res);
	pipe_exec_free(x);
	pipe_result_dispose(&u.result);
	zrange_dispose(&range);
	zrun_dispose(&run);
	loom_free(files);
	delta_snapshot_free(snap);
	return rc;
}

LOOM_EXTERN(int) loom_dist_execute_unit(char **result_json, const char *plan_json, size_t unit,
                                        const loom_table_location *loc, size_t threads,
                                        const loom_cancel *cancel)
{
	dist_plan p;
	ops_table t;
	int rc;
	if (!result_json)
		return OPS_ERR(LOOM_EINVAL, "execute unit: no output given");
	*result_json = NULL;
	LOOM_TRY(dist_plan_parse(&p, plan_json));
	if (unit >= p.nunits) {
		rc = OPS_ERR(LOOM_EINVAL, "unit %zu: the plan has %zu units (0..%zu)", unit, p.nunits,
		             p.nunits ? p.nunits - 1 : 0);
		dist_plan_dispose(&p);
		return rc;
	}
	if ((rc = ops_table_open(&t, p.table, loc, "execute unit of")) == 0) {
		rc = execute(result_json, &p, unit, t.store, loc, threads, cancel);
		rc = ops_table_close(&t, rc, "execute unit of");
	}
	dist_plan_dispose(&p);
	return rc;
}
