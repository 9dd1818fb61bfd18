/* ops/zorder/zorder.c - Z-ORDER clustering: check the columns against the
 * table, plan one unit per partition not yet clustered by the same columns
 * and curve, sample each partition's keys (reader -> sampler), then
 * rewrite it in curve order (reader -> sorter -> writer) and commit
 * (ops/optimize/optimize.h). The stages are in ops/zorder/zorder_stages.h. */
#include "ops/opts.h"
#include "ops/zorder/zorder.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "delta/protocol.h"
#include "delta/snapshot.h"
#include "loom/metrics.h"
#include "ops/location.h"
#include "ops/optimize/optimize.h"
#include "ops/optimize/partition_groups.h"
#include "ops/pipeline/pipe_read.h"
#include "ops/pipeline/pipeline.h"
#include "ops/zorder/zorder_stages.h"
#include "util/alloc.h"
#include "util/buf.h"
#include "util/error.h"

#define OPS_ERR(code, ...) loom_err((code), LOOM_ERRCLASS_OPS, __VA_ARGS__)


/* ---- validation --------------------------------------------------------- */

static const delta_field *find_field(const delta_type *st, const char *name, size_t len)
{
	size_t i;
	for (i = 0; i < st->num_fields; i++)
		if (strlen(st->fields[i].name) == len && strncmp(st->fields[i].name, name, len) == 0)
			return &st->fields[i];
	for (i = 0; i < st->num_fields; i++)
		if (strlen(st->fields[i].name) == len && strncasecmp(st->fields[i].name, name, len) == 0)
			return &st->fields[i];
	return NULL;
}

int zorder_orderable(delta_type_kind k)
{
	switch (k) {
	case DELTA_T_STRING: case DELTA_T_LONG: case DELTA_T_INTEGER: case DELTA_T_SHORT:
	case DELTA_T_BYTE: case DELTA_T_FLOAT: case DELTA_T_DOUBLE: case DELTA_T_BOOLEAN:
	case DELTA_T_BINARY: case DELTA_T_DATE: case DELTA_T_TIMESTAMP:
	case DELTA_T_TIMESTAMP_NTZ: case DELTA_T_DECIMAL:
		return 1;
	default:
		return 0;
	}
}

/* Column name (dotted path into structs) -> physical dotted path. */
static int resolve_column(const delta_snapshot *snap, const char *name, char **phys)
{
	const delta_type *st = &snap->schema.root;
	const char *p = name;
	int cm = delta_snapshot_column_mapping(snap) != 0, depth = 0;
	loom_buf out = LOOM_BUF_INIT;
	uint32_t k;
	for (;;) {
		const char *dot = strchr(p, '.');
		size_t len = dot ? (size_t)(dot - p) : strlen(p);
		const delta_field *f = len ? find_field(st, p, len) : NULL;
		if (!f) {
			loom_buf_dispose(&out);
			return OPS_ERR(LOOM_EINVAL, "Z-order column '%s' does not exist in the table schema", name);
		}
		if (depth == 0)
			for (k = 0; k < snap->metadata.num_partition_columns; k++)
				if (strcasecmp(snap->metadata.partition_columns[k], f->name) == 0) {
					loom_buf_dispose(&out);
					return OPS_ERR(LOOM_EINVAL,
					               "Z-order column '%s' is a partition column: files are already "
					               "split by it; choose data columns", name);
				}
		if (depth++)
			LOOM_TRY(loom_buf_putc(&out, '.'));
		LOOM_TRY(loom_buf_puts(&out, delta_field_physical_name(f, cm)));
		if (!dot) {
			if (!zorder_orderable(f->type->kind)) {
				loom_buf_dispose(&out);
				return OPS_ERR(LOOM_EINVAL,
				               "Z-order column '%s' has type %s, which has no order to cluster by "
				               "(numeric, decimal, string, binary, date, timestamp, timestamp_ntz "
				               "and boolean columns can be used)", name,
				               f->type->name ? f->type->name : "?");
			}
			break;
		}
		if (f->type->kind != DELTA_T_STRUCT) {
			loom_buf_dispose(&out);
			return OPS_ERR(LOOM_EINVAL, "Z-order column '%s': '%.*s' is not a struct", name,
			               (int)(dot - name), name);
		}
		st = f->type;
		p = dot + 1;
	}
	*phys = loom_buf_detach(&out);
	return *phys ? 0 : OPS_ERR(LOOM_ENOMEM, "out of memory");
}

/* Liquid clustering: only the clustering columns themselves may be used. */
static int check_clustering(const delta_snapshot *snap, const zrun *run)
{
	const char *conf = NULL;
	size_t i, j, n = 0;
	int same = 1;
	json_t *root = NULL, *cols;
	loom_buf list = LOOM_BUF_INIT;
	for (i = 0; i < snap->num_domains; i++)
		if (!snap->domains[i].removed && (strcmp(snap->domains[i].domain, "delta.clustering") == 0 ||
		                                  strcmp(snap->domains[i].domain, "delta.liquid") == 0))
			conf = snap->domains[i].configuration;
	if (!conf && !delta_protocol_has_feature(&snap->protocol, "clustering") &&
	    !delta_protocol_has_feature(&snap->protocol, "liquid"))
		return 0;
	if (conf && (root = json_loads(conf, 0, NULL)) != NULL &&
	    json_is_array(cols = json_object_get(root, "clusteringColumns"))) {
		n = json_array_size(cols);
		for (i = 0; i < n; i++) {
			json_t *path = json_array_get(cols, i);
			if (json_is_object(path)) /* older form: {"physicalName": [...]} */
				path = json_object_get(path, "physicalName");
			loom_buf one = LOOM_BUF_INIT;
			for (j = 0; json_is_array(path) && j < json_array_size(path); j++) {
				if (j)
					loom_buf_putc(&one, '.');
				loom_buf_puts(&one, json_string_value(json_array_get(path, j)) ?
				                        json_string_value(json_array_get(path, j)) : "");
			}
			if (i)
				loom_buf_puts(&list, ", ");
			loom_buf_puts(&list, one.ptr ? one.ptr : "");
			if (i >= run->cols.n || !one.ptr || strcmp(one.ptr, run->cols.phys[i]) != 0)
				same = 0;
			loom_buf_dispose(&one);
		}
	} else {
		same = 0;
	}
	json_decref(root);
	if (same && n == run->cols.n && n > 0) {
		loom_buf_dispose(&list);
		return 0;
	}
	{
		int rc = OPS_ERR(LOOM_EINVAL,
		                 "the table uses liquid clustering (table feature 'clustering') on [%s]: "
		                 "Z-order by other columns would undo it, and Delta does not allow ZORDER BY "
		                 "on a clustered table at all: run `loom compact`, which clusters by [%s]",
		                 list.ptr ? list.ptr : "", list.ptr ? list.ptr : "");
		loom_buf_dispose(&list);
		return rc;
	}
}

int zorder_validate(zrun *run, const delta_snapshot *snap)
{
	size_t i;
	for (i = 0; i < run->cols.n; i++) {
		loom_free(run->phys[i]);
		run->phys[i] = NULL;
		LOOM_TRY(resolve_column(snap, run->cols.names[i], &run->phys[i]));
	}
	return check_clustering(snap, run);
}

/* ---- the plan ------------------------------------------------------------ */

static int has_tag(const delta_file *f, const char *tag)
{
	int found = 0;
	const char *v = delta_kv_get(f->tags, f->num_tags, ZORDER_TAG, &found);
	return found && v && strcmp(v, tag) == 0;
}

/* Whether every file of a partition carries this run's tag. */
static int all_tagged(const delta_snapshot *snap, const uint32_t *pos, size_t n, const char *tag,
                      delta_file_scratch *sc, int *clustered)
{
	size_t k;
	*clustered = 1;
	for (k = 0; k < n && *clustered; k++) {
		delta_file f;
		delta_file_scratch_reset(sc);
		LOOM_TRY(delta_snapshot_live_file(snap, pos[k], sc, &f));
		*clustered = has_tag(&f, tag);
	}
	return 0;
}

/* A partition's files as one bin. */
static int add_partition(compact_plan *plan, const delta_snapshot *snap, size_t g, const uint32_t *pos,
                         size_t n, delta_file_scratch *sc)
{
	compact_bin *b = &plan->bins[plan->num_bins++];
	size_t k;
	b->pos = &plan->storage[plan->files_in_bins];
	b->partition = g;
	for (k = 0; k < n; k++) {
		delta_file f;
		delta_file_scratch_reset(sc);
		LOOM_TRY(delta_snapshot_live_file(snap, pos[k], sc, &f));
		plan->storage[plan->files_in_bins++] = pos[k];
		b->num_files++;
		b->bytes += f.size;
		plan->dvs_in_bins += f.dv.storage_type != 0;
	}
	plan->bytes_in_bins += b->bytes;
	plan->partitions_optimized++;
	return 0;
}

/* One bin per partition whose files are not all clustered by this run's
 * columns and curve (every partition with --full). */
int zorder_plan(const zrun *run, compact_plan *plan, const delta_snapshot *snap, int64_t target)
{
	partition_groups pg;
	delta_file_scratch sc;
	size_t g;
	int rc = 0;

	LOOM_TRY(compact_plan_start(plan, &pg, snap, target, NULL, 0, snap->num_files));
	delta_file_scratch_init(&sc);
	for (g = 0; g < pg.num_groups && rc == 0; g++) {
		const uint32_t *pos = pg.pos + pg.begin[g];
		size_t n = pg.begin[g + 1] - pg.begin[g];
		int clustered = 0;
		if ((rc = all_tagged(snap, pos, n, run->tag, &sc, &clustered)) == 0 &&
		    (!clustered || run->p->full))
			rc = add_partition(plan, snap, g, pos, n, &sc);
	}
	if (rc == 0)
		rc = compact_plan_finish(plan, snap);
	delta_file_scratch_dispose(&sc);
	partition_groups_dispose(&pg);
	if (rc < 0)
		compact_plan_dispose(plan);
	return rc;
}

unsigned zorder_key_bits(size_t ncols)
{
	/* a key is 64 bits: one column gets 32, several share them, 16 at most */
	unsigned bits = ncols <= 1 ? 32 : (unsigned)(64 / ncols);
	return ncols > 1 && bits > 16 ? 16 : bits;
}

/* ---- execution ----------------------------------------------------------- */

int zorder_stages_run(loom_op_result *out, loom_store *store, const delta_snapshot *snap,
                      const zorder_stage_params *zp, const compact_plan *plan, const optimize_job *job)
{
	pipe_settings set;
	pipe_exec *x = NULL;
	pipe_unit *units = NULL;
	zsampler *samplers = NULL;
	zsorter *sorters = NULL;
	pipe_footers *footers = NULL;
	size_t i, n = plan->num_bins;
	int rc;

	if ((rc = pipe_settings_init(&set, store, snap, zp->loc)) < 0)
		return rc;
	set.cancel = zp->cancel;
	set.file_bytes = (uint64_t)plan->target;
	units = loom_calloc(n, sizeof(*units));
	samplers = loom_calloc(n, sizeof(*samplers));
	sorters = loom_calloc(n, sizeof(*sorters));
	footers = loom_calloc(n, sizeof(*footers));
	if (!units || !samplers || !sorters || !footers) {
		rc = OPS_ERR(LOOM_ENOMEM, "out of memory");
		goto done;
	}
	/* each footer read once: the sorting pass reuses the sampling pass's
	 * (one GET per file on an object store), unless the run has so many
	 * files that keeping every footer between the passes would outweigh
	 * reading them again */
	for (i = 0; i < n && plan->files_in_bins <= ZORDER_KEEP_FOOTERS_MAX_FILES; i++)
		units[i].footers = &footers[i];
	if ((rc = pipe_exec_new(&x, &set, zp->threads,
	                        zp->memory_budget > 0 ? zp->memory_budget : ZORDER_DEFAULT_BUDGET)) < 0)
		goto done;
	/* pass 1: the key columns of each bin, sampled */
	if ((rc = zorder_sample(zp->cols, plan, x, units, samplers)) < 0)
		goto done;
	/* pass 2: every column, sorted by key, written */
	for (i = 0; i < n; i++) {
		pipe_result_dispose(&units[i].result);
		units[i].rc = 0;
		sorters[i].keys = &samplers[i].keys;
		sorters[i].spill = zp->spill;
		sorters[i].target = plan->target;
		units[i].ops = &zsorter_ops;
		units[i].stage = &sorters[i];
	}
	rc = optimize_execute_commit(out, store, snap, plan, x, units, n, job, NULL, NULL);
done:
	pipe_exec_free(x);
	for (i = 0; i < n; i++) {
		if (units)
			pipe_result_dispose(&units[i].result);
		if (sorters)
			zsorter_dispose(&sorters[i]);
		if (samplers)
			zsampler_dispose(&samplers[i]);
		if (footers)
			pipe_footers_dispose(&footers[i]);
	}
	loom_free(footers);
	loom_free(units);
	loom_free(samplers);
	loom_free(sorters);
	return rc;
}

int zorder_sample(const zorder_columns *cols, const compact_plan *plan, pipe_exec *x, pipe_unit *units,
                  zsampler *samplers)
{
	size_t i, n = plan->num_bins;
	for (i = 0; i < n; i++) {
		samplers[i].cols = cols;
		samplers[i].seed = 0x9e3779b97f4a7c15ULL ^ (uint64_t)(i + 1);
		units[i].files = plan->bins[i].files;
		units[i].num_files = plan->bins[i].num_files;
		units[i].bytes = plan->bins[i].bytes;
		units[i].ops = &zsampler_ops;
		units[i].stage = &samplers[i];
	}
	return pipe_exec_run(x, units, n, NULL, NULL);
}

/* ---- the Z-order flavour of the OPTIMIZE driver (ops/optimize/optimize.h) ---- */

static int zorder_flavour_check(void *ctx, const delta_snapshot *snap)
{
	return zorder_validate(ctx, snap);
}

static int zorder_flavour_plan(void *ctx, compact_plan *plan, const delta_snapshot *snap, int64_t target)
{
	return zorder_plan(ctx, plan, snap, target);
}

/* Sample every planned partition, then sort and write them, then commit:
 * the stages of zorder_stages_run with this run's settings. */
static int zorder_flavour_execute(void *ctx, loom_op_result *out, loom_store *store,
                                  const delta_snapshot *snap, const compact_plan *plan,
                                  const optimize_job *job)
{
	zrun *run = ctx;
	zorder_stage_params zp;
	zp.cols = &run->cols;
	zp.spill = &run->spill;
	zp.loc = run->p->common.loc;
	zp.cancel = run->p->common.cancel;
	zp.threads = run->p->threads;
	zp.memory_budget = run->p->memory_budget;
	return zorder_stages_run(out, store, snap, &zp, plan, job);
}

static const optimize_flavour zorder_flavour = {
	DELTA_OP_ZORDER, zorder_flavour_check, zorder_flavour_plan, zorder_flavour_execute,
};

static int zorder_on_table(loom_op_result *out, loom_store *store, zrun *run)
{
	delta_snapshot *snap = NULL;
	delta_load_opts lo;
	optimize_job job;
	int rc;

	optimize_job_init(&job, "Z-order", &run->p->common);
	job.tag_key = ZORDER_TAG;
	job.tag_value = run->tag;
	job.param_key = "zOrderBy";
	job.param_value = run->param;
	optimize_load_opts(&lo, run->p->common.dry_run);
	if ((rc = delta_snapshot_load(&snap, store, -1, &lo)) < 0)
		return rc;
	rc = optimize_run(out, store, snap, &zorder_flavour, run, &job, run->p->target_size);
	delta_snapshot_free(snap);
	return rc;
}

int zrun_init(zrun *run, const zorder_params *p)
{
	loom_buf tag = LOOM_BUF_INIT, param = LOOM_BUF_INIT;
	size_t i;
	int rc;

	memset(run, 0, sizeof(*run));
	if (p->n_columns == 0)
		return OPS_ERR(LOOM_EINVAL, "Z-order needs at least one column");
	if (p->n_columns > ZO_MAX_COLUMNS)
		return OPS_ERR(LOOM_EINVAL, "Z-order by %zu columns: at most %d", p->n_columns, ZO_MAX_COLUMNS);
	run->p = p;
	run->cols.curve = p->curve == LOOM_ZORDER_CURVE_Z ? ZC_CURVE_Z : ZC_CURVE_HILBERT;
	run->cols.bits = zorder_key_bits(p->n_columns);
	run->phys = loom_calloc(p->n_columns, sizeof(char *));
	if (!run->phys)
		return OPS_ERR(LOOM_ENOMEM, "out of memory");
	run->cols.names = p->columns;
	run->cols.phys = (const char *const *)run->phys;
	run->cols.n = p->n_columns;
	rc = loom_buf_puts(&tag, run->cols.curve == ZC_CURVE_Z ? "z:" : "hilbert:");
	if (rc == 0)
		rc = loom_buf_putc(&param, '[');
	for (i = 0; i < run->cols.n && rc == 0; i++) {
		if (i) {
			loom_buf_putc(&tag, ',');
			loom_buf_putc(&param, ',');
		}
		loom_buf_puts(&tag, p->columns[i]);
		rc = loom_buf_put_json_string(&param, p->columns[i], strlen(p->columns[i]));
	}
	if (rc == 0)
		rc = loom_buf_putc(&param, ']');
	run->tag = tag.ptr;
	run->param = param.ptr;
	if (rc == 0)
		rc = zspill_budget_init(&run->spill, p->temp_dir, (uint64_t)p->spill_limit);
	if (rc < 0)
		zrun_dispose(run);
	return rc;
}

void zrun_dispose(zrun *run)
{
	size_t i;
	for (i = 0; run->phys && i < run->cols.n; i++)
		loom_free(run->phys[i]);
	loom_free(run->phys);
	loom_free(run->tag);
	loom_free(run->param);
	memset(run, 0, sizeof(*run));
}

int zorder_run(loom_op_result *out, loom_store *store, const zorder_params *p)
{
	zrun run;
	int rc;

	if ((rc = zrun_init(&run, p)) < 0)
		return rc;
	rc = zorder_on_table(out, store, &run);
	if (rc == 0) {
		rc = loom_op_result_set_metric(out, LOOM_METRIC_ZORDER_CURVE_HILBERT, run.cols.curve == ZC_CURVE_HILBERT);
		if (rc == 0)
			rc = loom_op_result_set_metric(out, LOOM_METRIC_ZORDER_SPILL_BYTES, (int64_t)run.spill.used);
	}
	zrun_dispose(&run);
	return rc;
}

void zorder_params_from_opts(zorder_params *p, const loom_zorder_opts *opts, const loom_table_location *loc,
                             const loom_cancel *cancel)
{
	memset(p, 0, sizeof(*p));
	p->columns = opts->columns;
	p->n_columns = opts->n_columns;
	p->curve = opts->curve;
	p->full = opts->full;
	p->common.dry_run = opts->dry_run;
	p->target_size = opts->target_size;
	p->memory_budget = opts->memory_budget;
	p->temp_dir = opts->temp_dir;
	p->spill_limit = opts->spill_limit;
	p->common.commit_every = opts->commit_every;
	p->common.loc = loc;
	p->common.cancel = cancel;
}

OPS_TABLE_ENTRY(zorder, "z-order", zorder_params, zorder_params_from_opts, zorder_run, common.secrets)
