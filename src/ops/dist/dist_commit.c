/* ops/dist/dist_commit.c - the commit step of include/loom/distributed.h: the
 * results of a plan's units checked against the plan and committed in
 * one REARRANGE commit from the plan's read version (ops/optimize/optimize.h). */
#include <string.h>

#include "loom/distributed.h"
#include "ops/dist/dist.h"
#include "ops/location.h"
#include "ops/optimize/optimize.h"
#include "ops/opts.h"
#include "ops/zorder/zorder.h"
#include "util/alloc.h"
#include "util/error.h"

#define OPS_ERR(code, ...) loom_err((code), LOOM_ERRCLASS_OPS, __VA_ARGS__)

typedef struct dist_commit {
	const dist_plan *p;
	json_t **res;                 /* per unit: its result, or NULL */
	size_t given;
	pipe_unit *units;             /* the units given, in plan order */
	size_t nunits;
	const delta_file ***files;    /* per given unit */
	compact_plan plan;            /* bins: the groups given */
} dist_commit;

/* A new file's key must stay inside the table root. */
static int inside_root(const char *key)
{
	const char *p = key;
	if (!key || !*key || key[0] == '/' || strstr(key, "://") || strchr(key, '\\'))
		return 0;
	while (p) {
		if (strncmp(p, "..", 2) == 0 && (p[2] == '/' || p[2] == 0))
			return 0;
		p = strchr(p, '/');
		if (p)
			p++;
	}
	return 1;
}

/* Parse the results and match them to the plan's units. */
static int read_results(dist_commit *c, const char *const *texts, size_t n)
{
	size_t i, u;
	for (i = 0; i < n; i++) {
		json_error_t jerr;
		json_t *r = json_loads(texts[i] ? texts[i] : "", 0, &jerr);
		json_t *ju;
		if (!r)
			return OPS_ERR(LOOM_EINVAL, "result %zu is not JSON: line %d: %s", i + 1, jerr.line, jerr.text);
		ju = json_object_get(r, "unit");
		if (json_integer_value(json_object_get(r, "loom_result")) != DIST_RESULT_FORMAT || !json_is_integer(ju) ||
		    !json_is_array(json_object_get(r, "adds"))) {
			json_decref(r);
			return OPS_ERR(LOOM_EINVAL, "result %zu is not a loom unit result", i + 1);
		}
		if (!json_string_value(json_object_get(r, "plan")) ||
		    strcmp(json_string_value(json_object_get(r, "plan")), c->p->id) != 0) {
			int rc = OPS_ERR(LOOM_EINVAL, "result %zu belongs to another plan (plan %s; this plan is %s)", i + 1,
			                 json_string_value(json_object_get(r, "plan")) ? json_string_value(json_object_get(r, "plan"))
			                                                               : "?",
			                 c->p->id);
			json_decref(r);
			return rc;
		}
		u = (size_t)json_integer_value(ju);
		if (json_integer_value(ju) < 0 || u >= c->p->nunits) {
			json_decref(r);
			return OPS_ERR(LOOM_EINVAL, "result %zu: unit %lld is not in the plan (%zu units)", i + 1,
			               (long long)json_integer_value(ju), c->p->nunits);
		}
		if (c->res[u]) {
			json_decref(r);
			return OPS_ERR(LOOM_EINVAL, "unit %zu has two results: give one result per unit", u);
		}
		c->res[u] = r;
		c->given++;
	}
	/* every unit of a group, or none: a group's units share input files */
	for (u = 0; u < c->p->nunits; u++) {
		size_t v;
		if (c->res[u])
			continue;
		for (v = 0; v < c->p->nunits; v++)
			if (c->res[v] && dist_unit_group(c->p, v) == dist_unit_group(c->p, u))
				return OPS_ERR(LOOM_EINVAL,
				               "unit %zu has no result, but unit %zu of the same partition has: "
				               "a partition's Z-order units are committed together", u, v);
	}
	return 0;
}

/* Unit u's outputs from its result. */
static int load_outputs(pipe_unit *pu, json_t *r, size_t u)
{
	json_t *adds = json_object_get(r, "adds"), *m = json_object_get(r, "metrics");
	size_t i, n = json_array_size(adds);
	pu->result.files = loom_calloc(n + 1, sizeof(pipe_output));
	if (!pu->result.files)
		return OPS_ERR(LOOM_ENOMEM, "out of memory");
	for (i = 0; i < n; i++) {
		json_t *a = json_array_get(adds, i);
		pipe_output *o = &pu->result.files[i];
		const char *path = json_string_value(json_object_get(a, "path"));
		const char *key = json_string_value(json_object_get(a, "key"));
		const char *stats = json_string_value(json_object_get(a, "stats"));
		if (!inside_root(path) || !inside_root(key) || !json_is_integer(json_object_get(a, "size")))
			return OPS_ERR(LOOM_EINVAL, "result of unit %zu: add %zu ('%s') is not a file inside the table",
			               u, i, path ? path : "?");
		o->path_raw = loom_strdup(path);
		o->key = loom_strdup(key);
		o->stats = stats ? loom_strdup(stats) : NULL;
		o->size = json_integer_value(json_object_get(a, "size"));
		o->modification_time = json_integer_value(json_object_get(a, "modificationTime"));
		o->num_records = json_integer_value(json_object_get(a, "numRecords"));
		pu->result.num_files++;
		if (!o->path_raw || !o->key || (stats && !o->stats))
			return OPS_ERR(LOOM_ENOMEM, "out of memory");
	}
	pu->result.rows_in = json_integer_value(json_object_get(m, "rows_in"));
	pu->result.rows_deleted = json_integer_value(json_object_get(m, "rows_deleted"));
	pu->result.batches = json_integer_value(json_object_get(m, "batches"));
	return 0;
}

/* The units given and the bins they remove (one per group). */
static int build(dist_commit *c, const delta_snapshot *snap)
{
	size_t u, k = 0, total = 0;
	c->units = loom_calloc(c->given + 1, sizeof(*c->units));
	c->files = loom_calloc(c->given + 1, sizeof(*c->files));
	c->plan.bins = loom_calloc(c->given + 1, sizeof(*c->plan.bins));
	if (!c->units || !c->files || !c->plan.bins)
		return OPS_ERR(LOOM_ENOMEM, "out of memory");
	for (u = 0; u < c->p->nunits; u++) {
		pipe_unit *pu;
		if (!c->res[u])
			continue;
		pu = &c->units[k];
		LOOM_TRY(dist_unit_files(c->p, u, snap, &c->files[k], &pu->num_files));
		pu->files = c->files[k];
		c->nunits = ++k;
		LOOM_TRY(load_outputs(pu, c->res[u], u));
		/* the first unit of its group removes the group's files */
		{
			size_t g = dist_unit_group(c->p, u), b, seen = 0;
			for (b = 0; b < c->plan.num_bins; b++)
				seen |= c->plan.bins[b].partition == g;
			if (!seen) {
				compact_bin *bin = &c->plan.bins[c->plan.num_bins++];
				size_t i;
				bin->files = c->files[k - 1];
				bin->num_files = pu->num_files;
				bin->partition = g;
				for (i = 0; i < pu->num_files; i++) {
					bin->bytes += pu->files[i]->size;
					c->plan.dvs_in_bins += pu->files[i]->dv.storage_type != 0;
				}
				c->plan.files_in_bins += bin->num_files;
				c->plan.bytes_in_bins += bin->bytes;
				total++;
			}
		}
	}
	c->plan.target = c->p->target;
	c->plan.read_version = c->p->read_version;
	c->plan.considered = (size_t)json_integer_value(json_object_get(c->p->root, "considered"));
	if (c->plan.considered < c->plan.files_in_bins)
		c->plan.considered = c->plan.files_in_bins;
	c->plan.partitions_optimized = c->given == c->p->nunits
	                                   ? (size_t)json_integer_value(json_object_get(c->p->root, "partitions_optimized"))
	                                   : total;
	return 0;
}

static void dispose(dist_commit *c)
{
	size_t i;
	for (i = 0; c->res && i < c->p->nunits; i++)
		json_decref(c->res[i]);
	for (i = 0; c->units && i < c->nunits; i++)
		pipe_result_dispose(&c->units[i].result);
	for (i = 0; c->files && i < c->nunits; i++)
		loom_free(c->files[i]);
	loom_free(c->res);
	loom_free(c->units);
	loom_free(c->files);
	loom_free(c->plan.bins);
}

static int commit_plan(loom_op_result *out, const dist_plan *p, const char *const *results, size_t n,
                       loom_store *store, const loom_table_location *loc, const loom_secrets *secrets)
{
	dist_commit c;
	delta_snapshot *snap = NULL;
	optimize_job job;
	zorder_params zp;
	zrun run;
	const char *names[ZO_MAX_COLUMNS], *preds[64];
	json_t *jp = json_object_get(p->root, "predicates");
	size_t i;
	int rc;

	memset(&c, 0, sizeof(c));
	memset(&job, 0, sizeof(job));
	memset(&run, 0, sizeof(run));
	c.p = p;
	job.name = p->zorder ? "Z-order" : "compaction";
	job.common.loc = loc;
	job.common.secrets = secrets;
	if (!(c.res = loom_calloc(p->nunits + 1, sizeof(json_t *)))) {
		rc = OPS_ERR(LOOM_ENOMEM, "out of memory");
		goto done;
	}
	if ((rc = read_results(&c, results, n)) < 0)
		goto done;
	if (c.given == 0) {
		if (p->nunits > 0) {
			rc = OPS_ERR(LOOM_EINVAL, "no results to commit (the plan has %zu units)", p->nunits);
			goto done;
		}
		c.plan.read_version = p->read_version;
		c.plan.target = p->target;
		rc = optimize_result_plan_only(out, snap, &c.plan, &job); /* nothing to do */
		goto done;
	}
	for (i = 0; i < json_array_size(jp) && i < sizeof(preds) / sizeof(preds[0]); i++)
		preds[i] = json_string_value(json_array_get(jp, i));
	job.predicates = preds;
	job.n_predicates = i;
	if (p->zorder) {
		json_t *cols = json_object_get(p->zorder_conf, "columns");
		const char *curve = json_string_value(json_object_get(p->zorder_conf, "curve"));
		memset(&zp, 0, sizeof(zp));
		for (i = 0; i < json_array_size(cols) && i < ZO_MAX_COLUMNS; i++)
			names[i] = json_string_value(json_array_get(cols, i)) ? json_string_value(json_array_get(cols, i)) : "";
		zp.columns = names;
		zp.n_columns = i;
		zp.curve = curve && strcmp(curve, "z") == 0 ? LOOM_ZORDER_CURVE_Z : LOOM_ZORDER_CURVE_HILBERT;
		if ((rc = zrun_init(&run, &zp)) < 0)
			goto done;
		job.tag_key = ZORDER_TAG;
		job.tag_value = run.tag;
		job.param_key = "zOrderBy";
		job.param_value = run.param;
	}
	if ((rc = delta_snapshot_load(&snap, store, p->read_version, NULL)) < 0)
		goto done;
	if ((rc = build(&c, snap)) < 0)
		goto done;
	rc = optimize_commit_units(out, store, snap, &c.plan, c.units, c.nunits, &job);
done:
	dispose(&c);
	zrun_dispose(&run);
	delta_snapshot_free(snap);
	return rc;
}

LOOM_EXTERN(int) loom_dist_commit(loom_op_result *out, const char *plan_json,
                                  const char *const *results, size_t n_results,
                                  const loom_table_location *loc)
{
	dist_plan p;
	ops_table t;
	int rc;
	if (!out || (n_results && !results))
		return OPS_ERR(LOOM_EINVAL, "commit: no result record or results given");
	LOOM_TRY(ops_result_check(out));
	LOOM_TRY(dist_plan_parse(&p, plan_json));
	if ((rc = ops_table_open(&t, p.table, loc, "commit plan to")) == 0) {
		rc = commit_plan(out, &p, results, n_results, t.store, loc, &t.secrets);
		rc = ops_table_close(&t, rc, "commit plan to");
	}
	dist_plan_dispose(&p);
	return rc;
}
