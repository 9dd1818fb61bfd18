/* ops/dist/dist_plan.c - the plan step of include/loom/distributed.h: the same
 * planning as a single-machine OPTIMIZE (ops/compact/compact.h, ops/zorder/zorder.h),
 * written out as units (ops/dist/dist.h) instead of executed. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "delta/protocol.h"
#include "loom/distributed.h"
#include "ops/compact/cluster.h"
#include "ops/compact/compact.h"
#include "ops/dist/dist.h"
#include "ops/location.h"
#include "ops/optimize/optimize.h"
#include "ops/opts.h"
#include "ops/zorder/zorder.h"
#include "ops/zorder/zorder_range.h"
#include "util/alloc.h"
#include "util/error.h"
#include "util/uuid.h"

#define OPS_ERR(code, ...) loom_err((code), LOOM_ERRCLASS_OPS, __VA_ARGS__)

/* Define the public planner
 *   int loom_dist_plan_<name>(char **plan_json, const char *uri,
 *                             const loom_table_location *loc,
 *                             const loom_<name>_opts *opts, size_t units)
 * as both run: the arguments checked (*plan_json NULL from there on), the
 * options read (ops_<name>_opts_read), then `planner(plan_json, uri, store,
 * loc, &read opts, units)` on the table's store, an error wrapped "plan
 * <what> of <uri>:" and masked (ops/location.h). */
#define PLANNER_ENTRY(name, what, planner)                                                     \
	LOOM_EXTERN(int) loom_dist_plan_##name(char **plan_json, const char *uri,                \
	                                       const loom_table_location *loc,                 \
	                                       const loom_##name##_opts *opts, size_t units)    \
	{                                                                                        \
		loom_##name##_opts o;                                                                \
		ops_table t;                                                                         \
		if (!plan_json || !uri)                                                              \
			return OPS_ERR(LOOM_EINVAL, "plan " what ": no table or output given");          \
		*plan_json = NULL;                                                                   \
		LOOM_TRY(ops_##name##_opts_read(&o, opts));                                          \
		LOOM_TRY(ops_table_open(&t, uri, loc, "plan " what " of"));                          \
		return ops_table_close(&t, planner(plan_json, uri, t.store, loc, &o, units),         \
		                       "plan " what " of");                                          \
	}

/* A Z-order partition gets one key-range unit per this many bytes of its
 * files when the caller names no unit count. */
#define DIST_ZORDER_UNIT_BYTES (1024LL * 1024 * 1024)

/* The table as other processes must name it: a relative local path made
 * absolute (they may run in another directory), anything else as given. */
static json_t *table_uri(const char *uri)
{
	char *abs;
	json_t *j;
	if (strstr(uri, "://") || strncmp(uri, "file:", 5) == 0 || uri[0] == '/' || !(abs = realpath(uri, NULL)))
		return json_string(uri);
	j = json_string(abs);
	free(abs);
	return j;
}

/* The fields every plan has. */
static json_t *plan_head(const char *uri, const char *op, const compact_plan *plan)
{
	json_t *root = json_object();
	char id[37];
	if (!root || loom_uuid_v4_string(id) < 0) {
		json_decref(root);
		return NULL;
	}
	json_object_set_new(root, "loom_plan", json_integer(LOOM_DIST_FORMAT));
	json_object_set_new(root, "id", json_string(id));
	json_object_set_new(root, "table", table_uri(uri));
	json_object_set_new(root, "read_version", json_integer(plan->read_version));
	json_object_set_new(root, "operation", json_string(op));
	json_object_set_new(root, "target_size", json_integer(plan->target));
	json_object_set_new(root, "considered", json_integer((json_int_t)plan->considered));
	json_object_set_new(root, "partitions_optimized", json_integer((json_int_t)plan->partitions_optimized));
	json_object_set_new(root, "dvs", json_integer((json_int_t)plan->dvs_in_bins));
	json_object_set_new(root, "units", json_array());
	return root;
}

static json_t *unit_json(size_t group, size_t partition, const delta_file *const *files, size_t n, int64_t bytes)
{
	json_t *u = json_object(), *fs = json_array();
	size_t i;
	json_object_set_new(u, "group", json_integer((json_int_t)group));
	json_object_set_new(u, "partition", json_integer((json_int_t)partition));
	for (i = 0; i < n; i++)
		json_array_append_new(fs, json_string(files[i]->path));
	json_object_set_new(u, "files", fs);
	json_object_set_new(u, "bytes", json_integer(bytes));
	return u;
}

/* ---- compaction ------------------------------------------------------------ */

static int plan_compact(char **out, const char *uri, loom_store *store, const loom_table_location *loc,
                        const loom_compact_opts *opts, size_t nunits_hint)
{
	delta_snapshot *snap = NULL;
	compact_plan plan;
	pipe_unit *units = NULL;
	json_t *root = NULL, *preds;
	size_t i, n = 0;
	int rc;

	memset(&plan, 0, sizeof(plan));
	if ((rc = delta_snapshot_load(&snap, store, -1, NULL)) < 0)
		goto done;
	if ((rc = optimize_gate(snap, DELTA_OP_COMPACT, "compaction")) < 0)
		goto done;
	if (cluster_applies(snap)) {
		/* compaction of a clustered table clusters it (ops/compact/cluster.h),
		 * which runs on one machine for now */
		rc = loom_err(LOOM_EUNSUPPORTED, LOOM_ERRCLASS_OPS,
		              "a clustered table (liquid clustering) is compacted by clustering it, which a "
		              "distributed plan does not do yet: run `loom compact` on one machine");
		goto done;
	}
	rc = compact_plan_build(&plan, snap, optimize_target(opts->target_size, loc, snap), opts->partition_filters,
	                        opts->n_partition_filters);
	if (rc < 0)
		goto done;
	units = loom_calloc(plan.num_bins + 1, sizeof(*units));
	if (!units || !(root = plan_head(uri, "compact", &plan))) {
		rc = OPS_ERR(LOOM_ENOMEM, "out of memory planning compaction");
		goto done;
	}
	n = compact_group_units(&plan, nunits_hint ? nunits_hint : 1, 0, units);
	preds = json_array();
	for (i = 0; i < opts->n_partition_filters; i++)
		json_array_append_new(preds, json_string(opts->partition_filters[i]));
	json_object_set_new(root, "predicates", preds);
	json_object_set_new(root, "copy_row_group_min_size",
	                    json_integer(opts->version >= 2 ? opts->copy_row_group_min_size : 0));
	for (i = 0; i < n; i++) {
		/* the bins of a unit are consecutive: its first file's bin is its partition's */
		size_t b = 0;
		while (b + 1 < plan.num_bins && plan.bins[b + 1].files <= units[i].files)
			b++;
		json_array_append_new(json_object_get(root, "units"),
		                      unit_json(i, plan.bins[b].partition, units[i].files, units[i].num_files,
		                                units[i].bytes));
	}
	rc = dist_dump(root, out);
done:
	json_decref(root);
	loom_free(units);
	compact_plan_dispose(&plan);
	delta_snapshot_free(snap);
	return rc;
}

PLANNER_ENTRY(compact, "compaction", plan_compact)

/* ---- Z-order ------------------------------------------------------------------ */

/* Key-range units of partition (bin) g from its sampler's keys. */
static int zorder_units(json_t *arr, const compact_plan *plan, size_t g, const zkeys *keys, size_t want)
{
	const compact_bin *b = &plan->bins[g];
	uint64_t *lo = NULL;
	size_t nr = 0, j;
	LOOM_TRY(zkeys_ranges(keys, want, &lo, &nr));
	for (j = 0; j < nr; j++) {
		json_t *u = unit_json(g, b->partition, b->files, b->num_files, b->bytes);
		char k[17];
		dist_key_format(lo[j], k);
		json_object_set_new(u, "key_lo", json_string(k));
		if (j + 1 < nr) {
			dist_key_format(lo[j + 1], k);
			json_object_set_new(u, "key_hi", json_string(k));
		} else {
			json_object_set_new(u, "key_hi", json_null());
		}
		json_array_append_new(arr, u);
	}
	loom_free(lo);
	return 0;
}

static int plan_zorder(char **out, const char *uri, loom_store *store, const loom_table_location *loc,
                       const loom_zorder_opts *opts, size_t nunits_hint)
{
	zorder_params zp;
	zrun run;
	delta_snapshot *snap = NULL;
	compact_plan plan;
	pipe_settings set;
	pipe_exec *x = NULL;
	pipe_unit *units = NULL;
	zsampler *samplers = NULL;
	json_t *root = NULL, *conf, *cols, *samples;
	size_t i, n = 0;
	int rc;

	memset(&plan, 0, sizeof(plan));
	zorder_params_from_opts(&zp, opts, loc, NULL);
	zp.common.dry_run = 0;
	LOOM_TRY(zrun_init(&run, &zp));
	if ((rc = delta_snapshot_load(&snap, store, -1, NULL)) < 0)
		goto done;
	if ((rc = zorder_validate(&run, snap)) < 0 || (rc = optimize_gate(snap, DELTA_OP_ZORDER, "Z-order")) < 0)
		goto done;
	if ((rc = zorder_plan(&run, &plan, snap, optimize_target(opts->target_size, loc, snap))) < 0)
		goto done;
	n = plan.num_bins;
	if (!(root = plan_head(uri, "zorder", &plan))) {
		rc = OPS_ERR(LOOM_ENOMEM, "out of memory planning Z-order");
		goto done;
	}
	conf = json_object();
	cols = json_array();
	samples = json_array();
	for (i = 0; i < run.cols.n; i++)
		json_array_append_new(cols, json_string(run.cols.names[i]));
	json_object_set_new(conf, "columns", cols);
	json_object_set_new(conf, "curve", json_string(run.cols.curve == ZC_CURVE_Z ? "z" : "hilbert"));
	json_object_set_new(conf, "full", json_boolean(opts->full));
	json_object_set_new(conf, "memory_budget", json_integer(opts->memory_budget));
	json_object_set_new(conf, "samples", samples);
	json_object_set_new(root, "zorder", conf);
	if (n > 0) {
		int64_t total = plan.bytes_in_bins > 0 ? plan.bytes_in_bins : 1;
		if ((rc = pipe_settings_init(&set, store, snap, loc)) < 0)
			goto done;
		units = loom_calloc(n, sizeof(*units));
		samplers = loom_calloc(n, sizeof(*samplers));
		if (!units || !samplers) {
			rc = OPS_ERR(LOOM_ENOMEM, "out of memory planning Z-order");
			goto done;
		}
		if ((rc = pipe_exec_new(&x, &set, 0,
		                        opts->memory_budget > 0 ? opts->memory_budget : ZORDER_DEFAULT_BUDGET)) < 0)
			goto done;
		if ((rc = zorder_sample(&run.cols, &plan, x, units, samplers)) < 0)
			goto done;
		for (i = 0; i < n && rc == 0; i++) {
			const compact_bin *b = &plan.bins[i];
			size_t want = nunits_hint
			                  ? (size_t)((double)nunits_hint * (double)b->bytes / (double)total + 0.5)
			                  : (size_t)((b->bytes + DIST_ZORDER_UNIT_BYTES - 1) / DIST_ZORDER_UNIT_BYTES);
			json_t *s = zkeys_sample_to_json(&samplers[i].keys);
			if (!s || json_array_append_new(samples, s) < 0) {
				rc = OPS_ERR(LOOM_ENOMEM, "out of memory writing the Z-order sample");
				break;
			}
			rc = zorder_units(json_object_get(root, "units"), &plan, i, &samplers[i].keys, want ? want : 1);
		}
		if (rc < 0)
			goto done;
	}
	rc = dist_dump(root, out);
done:
	pipe_exec_free(x);
	for (i = 0; i < n; i++) {
		if (units)
			pipe_result_dispose(&units[i].result);
		if (samplers)
			zsampler_dispose(&samplers[i]);
	}
	loom_free(units);
	loom_free(samplers);
	json_decref(root);
	compact_plan_dispose(&plan);
	delta_snapshot_free(snap);
	zrun_dispose(&run);
	return rc;
}

PLANNER_ENTRY(zorder, "Z-order", plan_zorder)

LOOM_EXTERN(int) loom_dist_unit_count(size_t *units, const char *plan_json)
{
	dist_plan p;
	LOOM_TRY(dist_plan_parse(&p, plan_json));
	*units = p.nunits;
	dist_plan_dispose(&p);
	return 0;
}
