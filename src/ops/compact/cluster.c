/* ops/compact/cluster.c - liquid clustering: columns, the incremental ZCube plan,
 * the Z-order stages, the commit. */
#include "ops/compact/cluster.h"

#include <ctype.h>
#include <string.h>

#include "delta/props.h"
#include "delta/protocol.h"
#include "ops/optimize/optimize.h"
#include "ops/optimize/partition_groups.h"
#include "ops/zorder/zorder.h"
#include "ops/zorder/zorder_keys.h"
#include "ops/zorder/zorder_spill.h"
#include "ops/zorder/zorder_stages.h"
#include "util/alloc.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/uuid.h"

#define OPS_ERR(code, ...) loom_err((code), LOOM_ERRCLASS_OPS, __VA_ARGS__)

int cluster_applies(const delta_snapshot *snap)
{
	return snap->sysdom.clustering_columns && snap->sysdom.num_clustering_columns > 0 &&
	       (delta_protocol_has_feature(&snap->protocol, "clustering") ||
	        delta_protocol_has_feature(&snap->protocol, "liquid"));
}

/* ---- the columns ---------------------------------------------------------- */

static size_t leaves_of(const delta_type *t)
{
	size_t i, n = 0;
	if (t->kind != DELTA_T_STRUCT)
		return 1;
	for (i = 0; i < t->num_fields; i++)
		n += leaves_of(t->fields[i].type);
	return n;
}

/* The type of dotted logical path `path`, and how many leaves come before
 * it in schema order (Delta counts leaves for dataSkippingNumIndexedCols). */
static const delta_type *find_column(const delta_snapshot *snap, const char *path, size_t *before)
{
	const delta_type *st = &snap->schema.root;
	*before = 0;
	for (;;) {
		const char *dot = strchr(path, '.');
		size_t len = dot ? (size_t)(dot - path) : strlen(path), i;
		const delta_field *f = NULL;
		for (i = 0; i < st->num_fields; i++) {
			if (strlen(st->fields[i].name) == len && strncmp(st->fields[i].name, path, len) == 0) {
				f = &st->fields[i];
				break;
			}
			*before += leaves_of(st->fields[i].type);
		}
		if (!f)
			return NULL;
		if (!dot)
			return f->type;
		if (f->type->kind != DELTA_T_STRUCT)
			return NULL;
		st = f->type;
		path = dot + 1;
	}
}

/* Is `col` named by delta.dataSkippingStatsColumns ("a, s.x, `b`"), or a
 * struct it lies in? */
static int in_stats_columns(const char *list, const char *col)
{
	const char *p = list;
	while (*p) {
		const char *b, *e;
		size_t n;
		while (*p == ',' || isspace((unsigned char)*p))
			p++;
		b = p;
		while (*p && *p != ',')
			p++;
		e = p;
		while (e > b && isspace((unsigned char)e[-1]))
			e--;
		if (e - b >= 2 && *b == '`' && e[-1] == '`') {
			b++;
			e--;
		}
		n = (size_t)(e - b);
		if (n && strncmp(col, b, n) == 0 && (col[n] == '\0' || col[n] == '.'))
			return 1;
	}
	return 0;
}

/* Every clustering column exists, has an order and gets Delta stats. */
static int check_columns(const delta_snapshot *snap)
{
	const delta_table_domains *d = &snap->sysdom;
	delta_table_props props;
	size_t i, before;
	LOOM_TRY(delta_props_parse(&snap->metadata, &props));
	if (d->num_clustering_columns > ZO_MAX_COLUMNS)
		return OPS_ERR(LOOM_EUNSUPPORTED, "clustering by %zu columns: at most %d",
		               d->num_clustering_columns, ZO_MAX_COLUMNS);
	for (i = 0; i < d->num_clustering_columns; i++) {
		const char *name = d->clustering_logical ? d->clustering_logical[i] : NULL;
		const delta_type *t = name ? find_column(snap, name, &before) : NULL;
		if (!t)
			return OPS_ERR(LOOM_EUNSUPPORTED,
			               "clustering column '%s' (domain %s) is not in the table schema",
			               d->clustering_columns[i], d->clustering_domain ? d->clustering_domain : "?");
		if (!zorder_orderable(t->kind))
			return OPS_ERR(LOOM_EUNSUPPORTED, "clustering column '%s' has type %s, which has no order",
			               name, t->name ? t->name : "?");
		/* PROTOCOL.md, Clustered Table: writers must collect stats for
		 * the clustering columns */
		if (props.data_skipping_stats_columns
		        ? !in_stats_columns(props.data_skipping_stats_columns, name)
		        : props.data_skipping_num_indexed_cols >= 0 &&
		              before >= (size_t)props.data_skipping_num_indexed_cols)
			return OPS_ERR(LOOM_EUNSUPPORTED,
			               "clustering column '%s' gets no Delta stats under the table's data skipping "
			               "settings (delta.dataSkippingStatsColumns / dataSkippingNumIndexedCols), which "
			               "the protocol requires of clustered tables (Clustered Table)", name);
	}
	return 0;
}

/* ---- the plan ------------------------------------------------------------- */

typedef struct cube {
	const char *id;               /* NULL: files of no ZCube */
	int64_t bytes;
	size_t first;                 /* index of its first file in the order */
} cube;

static const char *file_tag(const delta_file *f, const char *key)
{
	int found = 0;
	const char *v = delta_kv_get(f->tags, f->num_tags, key, &found);
	return found ? v : NULL;
}

/* Candidates: unclustered files, then our own ZCubes of these columns. */
static int candidate(const delta_file *f, const char *cluster_by, const char **cube_id)
{
	const char *id = file_tag(f, "ZCUBE_ID"), *by = file_tag(f, "ZCUBE_ZORDER_BY");
	*cube_id = NULL;
	if (f->clustering_provider && strcmp(f->clustering_provider, CLUSTER_PROVIDER) != 0)
		return 0; /* another implementation's clustering */
	if (!f->clustering_provider || !id)
		return 1;
	if (!by || strcmp(by, cluster_by) != 0)
		return 0; /* clustered by other columns */
	*cube_id = id;
	return 1;
}

/* A candidate file as the plan orders it (its cube id borrowed from the
 * snapshot: tags outlive any view). */
typedef struct cand {
	uint32_t pos;
	const char *cube_id;          /* NULL: not in one of our ZCubes */
	int64_t size;
	int dv;
} cand;

static int cmp_cube_id(const void *a, const void *b)
{
	const char *x = ((const cand *)a)->cube_id, *y = ((const cand *)b)->cube_id;
	return strcmp(x ? x : "", y ? y : "");
}

/* Unclustered files first, in log order, then ZCube files by cube id;
 * *nloose = how many are unclustered. */
static int order_candidates(const delta_snapshot *snap, const partition_groups *pg, const char *cluster_by,
                            cand *order, size_t *n, size_t *nloose)
{
	delta_file_scratch sc;
	size_t i, ncube = 0;
	int rc = 0;

	*n = 0;
	delta_file_scratch_init(&sc);
	for (i = 0; i < pg->num_files && rc == 0; i++) {
		delta_file f;
		const char *id;
		delta_file_scratch_reset(&sc);
		if ((rc = delta_snapshot_live_file(snap, pg->pos[i], &sc, &f)) < 0 ||
		    !candidate(&f, cluster_by, &id))
			continue;
		order[*n].pos = pg->pos[i];
		order[*n].cube_id = id;
		order[*n].size = f.size;
		order[*n].dv = f.dv.storage_type != 0;
		ncube += id != NULL;
		(*n)++;
	}
	delta_file_scratch_dispose(&sc);
	if (rc < 0)
		return rc;
	/* a stable split: loose files keep their log order */
	{
		size_t loose = 0, cubes = *n - ncube, k;
		cand *tmp = loom_calloc(*n + 1, sizeof(*tmp));
		if (!tmp)
			return OPS_ERR(LOOM_ENOMEM, "out of memory planning clustering");
		for (k = 0; k < *n; k++)
			tmp[order[k].cube_id ? cubes++ : loose++] = order[k];
		memcpy(order, tmp, *n * sizeof(*order));
		loom_free(tmp);
		*nloose = loose;
	}
	qsort(order + *nloose, *n - *nloose, sizeof(*order), cmp_cube_id);
	return 0;
}

static int plan_build(compact_plan *plan, char ***ids_out, const delta_snapshot *snap, int64_t target,
                      const char *cluster_by)
{
	partition_groups pg;
	cand *order = NULL;
	char **ids = NULL;
	size_t i, n = 0, nloose = 0, ncubes = 0, kept = 0;
	int64_t min_cube = target * CLUSTER_MIN_CUBE_FACTOR, bin_cap = min_cube + min_cube / 2;
	int rc = 0;

	*ids_out = NULL;
	LOOM_TRY(compact_plan_start(plan, &pg, snap, target, NULL, 0, snap->num_files));
	if (pg.num_groups > 1) {
		rc = OPS_ERR(LOOM_EUNSUPPORTED, "a clustered table with partitions: the protocol does not "
		                                "allow both (Clustered Table)");
		goto done;
	}
	order = loom_calloc(pg.num_files + 1, sizeof(*order));
	ids = loom_calloc(pg.num_files + 1, sizeof(*ids));
	if (!order || !ids) {
		rc = OPS_ERR(LOOM_ENOMEM, "out of memory planning clustering");
		goto done;
	}
	if ((rc = order_candidates(snap, &pg, cluster_by, order, &n, &nloose)) < 0)
		goto done;
	/* drop finished (large) ZCubes */
	kept = nloose;
	for (i = nloose; i < n;) {
		const char *id = order[i].cube_id;
		size_t j = i;
		int64_t bytes = 0;
		while (j < n && strcmp(order[j].cube_id, id) == 0)
			bytes += order[j++].size;
		if (bytes < min_cube) {
			memmove(order + kept, order + i, (j - i) * sizeof(*order));
			kept += j - i;
			ncubes++;
		}
		i = j;
	}
	n = kept;
	/* a single ZCube and nothing new: already clustered */
	if (n == 0 || (nloose == 0 && ncubes == 1))
		goto done;
	for (i = 0; i < n; i++) {
		compact_bin *b = plan->num_bins ? &plan->bins[plan->num_bins - 1] : NULL;
		if (!b || (b->bytes + order[i].size > bin_cap && b->num_files > 0)) {
			char uuid[37];
			b = &plan->bins[plan->num_bins];
			b->pos = &plan->storage[plan->files_in_bins];
			if ((rc = loom_uuid_v4_string(uuid)) < 0)
				goto done;
			if (!(ids[plan->num_bins] = loom_strdup(uuid))) {
				rc = OPS_ERR(LOOM_ENOMEM, "out of memory planning clustering");
				goto done;
			}
			plan->num_bins++;
		}
		plan->storage[plan->files_in_bins++] = order[i].pos;
		b->num_files++;
		b->bytes += order[i].size;
		plan->bytes_in_bins += order[i].size;
		plan->dvs_in_bins += order[i].dv;
	}
	plan->partitions_optimized = plan->num_bins > 0;
	rc = compact_plan_finish(plan, snap);
done:
	loom_free(order);
	partition_groups_dispose(&pg);
	if (rc < 0) {
		for (i = 0; ids && ids[i]; i++)
			loom_free(ids[i]);
		loom_free(ids);
		compact_plan_dispose(plan);
		return rc;
	}
	*ids_out = ids;
	return 0;
}

/* ---- the run: the clustering flavour of the OPTIMIZE driver --------------- */

typedef struct cluster_ctx {
	const compact_params *p;
	loom_buf by;                  /* ["a","b"]: the clustering columns' names */
	char **ids;                   /* the plan's ZCube ids, one per bin */
} cluster_ctx;

/* After the gate: the columns, their JSON list, the ZCube plan. */
static int cluster_flavour_plan(void *ctx, compact_plan *plan, const delta_snapshot *snap, int64_t target)
{
	cluster_ctx *c = ctx;
	const delta_table_domains *d = &snap->sysdom;
	size_t i;
	int rc;

	if (c->p->n_partition_filters)
		return OPS_ERR(LOOM_EINVAL, "partition filters on a clustered table, which has no partitions");
	LOOM_TRY(check_columns(snap));
	rc = loom_buf_putc(&c->by, '[');
	for (i = 0; i < d->num_clustering_columns && rc == 0; i++) {
		if (i)
			loom_buf_putc(&c->by, ',');
		rc = loom_buf_put_json_string(&c->by, d->clustering_logical[i], strlen(d->clustering_logical[i]));
	}
	if (rc == 0)
		rc = loom_buf_putc(&c->by, ']');
	if (rc < 0)
		return rc;
	return plan_build(plan, &c->ids, snap, target, c->by.ptr);
}

/* Each bin through the Z-order stages on the clustering columns. */
static int cluster_flavour_execute(void *ctx, loom_op_result *out, loom_store *store,
                                   const delta_snapshot *snap, const compact_plan *plan,
                                   const optimize_job *job)
{
	cluster_ctx *c = ctx;
	const delta_table_domains *d = &snap->sysdom;
	optimize_job cjob = *job;
	zorder_columns cols;
	zspill_budget spill;
	zorder_stage_params zp;

	cjob.clustering_provider = CLUSTER_PROVIDER;
	cjob.cluster_by = c->by.ptr;
	cjob.zcube_ids = c->ids;
	/* Spark clusters with the Hilbert curve (MultiDimClustering) */
	memset(&cols, 0, sizeof(cols));
	cols.names = d->clustering_logical;
	cols.phys = d->clustering_columns;
	cols.n = d->num_clustering_columns;
	cols.curve = ZC_CURVE_HILBERT;
	cols.bits = zorder_key_bits(cols.n);
	LOOM_TRY(zspill_budget_init(&spill, NULL, 0));
	memset(&zp, 0, sizeof(zp));
	zp.cols = &cols;
	zp.spill = &spill;
	zp.loc = c->p->common.loc;
	zp.cancel = c->p->common.cancel;
	zp.threads = c->p->threads;
	return zorder_stages_run(out, store, snap, &zp, plan, &cjob);
}

static const optimize_flavour cluster_flavour = {
	DELTA_OP_COMPACT, NULL, cluster_flavour_plan, cluster_flavour_execute,
};

int cluster_run(loom_op_result *out, loom_store *store, const delta_snapshot *snap,
                const compact_params *p)
{
	cluster_ctx c;
	optimize_job job;
	size_t i;
	int rc;

	memset(&c, 0, sizeof(c));
	c.p = p;
	optimize_job_init(&job, "clustering", &p->common);
	rc = optimize_run(out, store, snap, &cluster_flavour, &c, &job, p->target_size);
	for (i = 0; c.ids && c.ids[i]; i++)
		loom_free(c.ids[i]);
	loom_free(c.ids);
	loom_buf_dispose(&c.by);
	return rc;
}
