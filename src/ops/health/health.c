/* ops/health/health.c - loom_health_load: the snapshot's live files by
 * partition (the grouping compaction uses), their clustering depth on the
 * table's Z-order or clustering columns, the tombstones, the log; then the
 * advice. Reads the log only. */
#include <string.h>

#include "delta/props.h"
#include "ops/health/health_int.h"
#include "ops/location.h"
#include "util/alloc.h"
#include "util/buf.h"
#include "util/clock.h"
#include "util/error.h"
#include "util/percent.h"
#include "util/versioned.h"

#define DEFAULT_TARGET (128LL << 20)
#define HERR(code, ...) loom_err((code), LOOM_ERRCLASS_OPS, __VA_ARGS__)

/* The policy's versions (util/versioned.h). */
LOOM_VERSIONS(policy_versions, loom_health_policy, LOOM_HEALTH_POLICY_VERSION,
              LOOM_HEALTH_POLICY_INIT, sizeof(loom_health_policy));

LOOM_VERSIONED_INIT_FN(health_policy, policy_versions)

/* The values of a current-version policy. */
static int check_policy(const loom_health_policy *p)
{
	const char *bad = NULL;
	if (p->target_size < 0)
		bad = "target_size must be >= 0 (0: the table's)";
	else if (p->min_small_files < 2)
		bad = "min_small_files must be >= 2 (compaction packs two files or more)";
	else if (!(p->dv_purge_ratio >= 0.05 && p->dv_purge_ratio <= 1.0))
		bad = "dv_purge_ratio must be in [0.05, 1] (compaction purges files above 0.05)";
	else if (p->min_dv_files < 1)
		bad = "min_dv_files must be >= 1";
	else if (!(p->max_clustering_depth >= 1.0))
		bad = "max_clustering_depth must be >= 1.0";
	else if (p->checkpoint_commits < 0)
		bad = "checkpoint_commits must be >= 0 (0: delta.checkpointInterval)";
	else if (p->checkpoint_json_bytes < 0)
		bad = "checkpoint_json_bytes must be >= 0 (0: no trigger)";
	else if (p->min_vacuum_files < 1)
		bad = "min_vacuum_files must be >= 1";
	else if (p->min_expired_logs < 1)
		bad = "min_expired_logs must be >= 1";
	else if (p->min_files_without_stats < 0)
		bad = "min_files_without_stats must be >= 0 (0: never)";
	return bad ? loom_err(LOOM_EINVAL, LOOM_ERRCLASS_PLAN, "health policy: %s", bad) : 0;
}

/* A caller's policy of any known version (NULL: the defaults) as a
 * current-version one, checked. */
static int read_policy(loom_health_policy *out, const loom_health_policy *in)
{
	LOOM_TRY(loom_versioned_read(&policy_versions, out, in));
	return check_policy(out);
}

LOOM_EXTERN(int) loom_health_policy_check(const loom_health_policy *p)
{
	loom_health_policy c;
	if (!p)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_PLAN, "health policy: NULL");
	return read_policy(&c, p);
}

const char *health_keep(loom_health *h, const char *s)
{
	char **grown = loom_reallocarray(h->strings, h->n_strings + 1, sizeof(*grown));
	if (!grown)
		return NULL;
	h->strings = grown;
	if (!(grown[h->n_strings] = loom_strdup(s)))
		return NULL;
	return grown[h->n_strings++];
}

/* "k=v/k2=v2" as Hive writes directories; null values as Spark's marker. */
static int partition_name(const delta_snapshot *snap, const delta_file *f, loom_buf *out)
{
	uint32_t i;
	loom_buf_clear(out);
	for (i = 0; i < snap->metadata.num_partition_columns; i++) {
		const char *col = snap->metadata.partition_columns[i];
		const char *v = delta_kv_get(f->partition_values, f->num_partition_values, col, NULL);
		if (i)
			LOOM_TRY(loom_buf_putc(out, '/'));
		LOOM_TRY(loom_buf_puts(out, col));
		LOOM_TRY(loom_buf_putc(out, '='));
		if (v)
			LOOM_TRY(loom_hive_escape(out, v, strlen(v)));
		else
			LOOM_TRY(loom_buf_puts(out, "__HIVE_DEFAULT_PARTITION__"));
	}
	return loom_buf_puts(out, "");
}

/* The stats path of a logical column: physical names under column
 * mapping (each struct level mapped), the logical path otherwise. */
static char *physical_path(const delta_snapshot *snap, const char *logical)
{
	int cm = delta_snapshot_column_mapping(snap);
	const delta_type *st = &snap->schema.root;
	loom_buf b = LOOM_BUF_INIT;
	const char *p = logical;
	if (!cm)
		return loom_strdup(logical);
	while (*p) {
		const char *dot = strchr(p, '.');
		size_t n = dot ? (size_t)(dot - p) : strlen(p), i;
		const delta_field *hit = NULL;
		for (i = 0; st && st->kind == DELTA_T_STRUCT && i < st->num_fields; i++)
			if (strlen(st->fields[i].name) == n && strncmp(st->fields[i].name, p, n) == 0)
				hit = &st->fields[i];
		if (b.size)
			loom_buf_putc(&b, '.');
		if (hit)
			loom_buf_puts(&b, delta_field_physical_name(hit, cm));
		else
			loom_buf_put(&b, p, n);
		st = hit ? hit->type : NULL;
		p = dot ? dot + 1 : p + n;
	}
	if (!b.ptr) {
		loom_buf_dispose(&b);
		return NULL;
	}
	return b.ptr;
}

static void free_columns(char **cols, size_t n)
{
	size_t i;
	for (i = 0; i < n; i++)
		loom_free(cols[i]);
	loom_free(cols);
}

/* "a,b" as the columns a and b (empty names skipped). */
static int split_columns(const char *list, char ***out, size_t *n)
{
	char *copy = loom_strdup(list), *tok, *save = NULL;
	int rc = 0;
	if (!copy)
		return HERR(LOOM_ENOMEM, "out of memory");
	for (tok = strtok_r(copy, ",", &save); tok && rc == 0; tok = strtok_r(NULL, ",", &save)) {
		char **g = loom_reallocarray(*out, *n + 1, sizeof(*g));
		if (g)
			*out = g;
		if (!g || !(g[*n] = loom_strdup(tok)))
			rc = HERR(LOOM_ENOMEM, "out of memory");
		else
			(*n)++;
	}
	loom_free(copy);
	if (rc < 0) {
		free_columns(*out, *n);
		*out = NULL;
		*n = 0;
	}
	return rc;
}

/* The columns of the loom.zorder tag ("curve:a,b") of the first live file
 * that carries one; *n 0 when none does. */
static int tag_columns(const delta_snapshot *snap, char ***out, size_t *n)
{
	delta_file_scratch sc;
	size_t i;
	int rc = 0;

	*out = NULL;
	*n = 0;
	delta_file_scratch_init(&sc);
	for (i = 0; i < snap->num_files && rc == 0 && !*out; i++) {
		delta_file f;
		const char *v, *c;
		delta_file_scratch_reset(&sc);
		if ((rc = delta_snapshot_live_file(snap, i, &sc, &f)) < 0)
			break;
		v = delta_kv_get(f.tags, f.num_tags, "loom.zorder", NULL);
		c = v ? strchr(v, ':') : NULL;
		if (c && c[1])
			rc = split_columns(c + 1, out, n);
	}
	delta_file_scratch_dispose(&sc);
	return rc;
}

/* The columns clustering is judged on: the policy's (declared Z-order
 * columns), else the table's clustering columns, else the last Z-order's
 * (zOrderBy of the last OPTIMIZE after the checkpoint, else the
 * loom.zorder tag the live files carry most). */
static int pick_columns(loom_health *h, const delta_snapshot *snap, const health_log_scan *scan,
                        const char *const *declared, size_t n_declared)
{
	const char *const *cols = NULL;
	size_t n = 0, i;
	const char *source = NULL;
	char **tag_cols = NULL;
	size_t n_tag = 0;
	int rc = 0;

	if (snap->sysdom.clustering_columns && snap->sysdom.num_clustering_columns) {
		cols = snap->sysdom.clustering_logical;
		n = snap->sysdom.num_clustering_columns;
		source = "clustering";
	} else if (n_declared) {
		cols = declared;
		n = n_declared;
		source = "zorder";
	} else if (scan->n_zorder_columns) {
		cols = (const char *const *)scan->zorder_columns;
		n = scan->n_zorder_columns;
		source = "zorder";
	} else {
		rc = tag_columns(snap, &tag_cols, &n_tag);
		cols = (const char *const *)tag_cols;
		n = n_tag;
		source = n ? "zorder" : NULL;
	}
	if (rc == 0 && n) {
		h->columns = loom_calloc(n, sizeof(*h->columns));
		h->physical = loom_calloc(n, sizeof(char *));
		if (!h->columns || !h->physical || !(h->clustering_source = loom_strdup(source)))
			rc = HERR(LOOM_ENOMEM, "out of memory");
		for (i = 0; rc == 0 && i < n; i++) {
			const char *logical = cols[i] ? cols[i] : snap->sysdom.clustering_columns[i];
			h->n_columns++;
			if (!(h->columns[i].column = loom_strdup(logical)))
				rc = HERR(LOOM_ENOMEM, "out of memory");
			else if (!strcmp(source, "clustering"))
				h->physical[i] = loom_strdup(snap->sysdom.clustering_columns[i]);
			else
				h->physical[i] = physical_path(snap, logical);
			if (rc == 0 && !h->physical[i])
				rc = HERR(LOOM_ENOMEM, "out of memory");
		}
		/* files written by the last Z-order with these columns carry
		 * "<curve>:<cols>"; remember the columns part to tell them apart */
		if (rc == 0 && !strcmp(source, "zorder")) {
			loom_buf b = LOOM_BUF_INIT;
			for (i = 0; i < n; i++) {
				if (i)
					loom_buf_putc(&b, ',');
				loom_buf_puts(&b, h->columns[i].column);
			}
			h->zorder_tag = b.ptr;
			if (!h->zorder_tag)
				rc = HERR(LOOM_ENOMEM, "out of memory");
		}
	}
	free_columns(tag_cols, n_tag);
	return rc;
}

static int is_clustered_file(const loom_health *h, const delta_file *f)
{
	const char *v, *c;
	if (!strcmp(h->clustering_source, "clustering"))
		return f->clustering_provider != NULL;
	v = delta_kv_get(f->tags, f->num_tags, "loom.zorder", NULL);
	c = v ? strchr(v, ':') : NULL;
	return c && strcmp(c + 1, h->zorder_tag) == 0;
}

static int name_part(const delta_snapshot *snap, const delta_file *f, loom_buf *name,
                     health_part *p)
{
	LOOM_TRY(partition_name(snap, f, name));
	if (!(p->name = loom_strdup(name->ptr ? name->ptr : "")))
		return HERR(LOOM_ENOMEM, "out of memory");
	return 0;
}

/* One partition's file figures, its name (from its first file) and, with
 * clustering columns, how many of its files the last clustering run did not
 * write. Files are read one at a time through a view (issue 30: the
 * snapshot's files may be in the compact file index). */
static int part_files(loom_health *h, const delta_snapshot *snap, health_part *p,
                      const uint32_t *pos, size_t n, loom_buf *name, int64_t *unclustered)
{
	delta_file_scratch sc;
	size_t i;
	int rc = 0;

	*unclustered = 0;
	delta_file_scratch_init(&sc);
	for (i = 0; i < n && rc == 0; i++) {
		delta_file f;
		int has_stats;
		delta_file_scratch_reset(&sc);
		if ((rc = delta_snapshot_live_file(snap, pos[i], &sc, &f)) < 0)
			break;
		if ((has_stats = delta_snapshot_live_has_stats(snap, pos[i])) < 0) {
			rc = has_stats;
			break;
		}
		if (i == 0 && (rc = name_part(snap, &f, name, p)) < 0)
			break;
		health_files_add(&p->pub.files, &f, has_stats, h->t.target_size,
		                 h->policy.dv_purge_ratio);
		if (h->n_columns && !is_clustered_file(h, &f))
			(*unclustered)++;
	}
	delta_file_scratch_dispose(&sc);
	return rc;
}

/* Every partition group's figures and clustering depth; the table's depth
 * per column is the partitions' weighted by the files with stats. One
 * stats reader serves the whole pass; what is held at a time is one
 * partition's values. */
static int fill_partitions(loom_health *h, const delta_snapshot *snap, const partition_groups *pg)
{
	loom_buf name = LOOM_BUF_INIT;
	delta_stats_reader rd;
	size_t g, c;
	int rc = 0;
	double *depth_sum = loom_calloc(h->n_columns + 1, sizeof(double));

	h->parts = loom_calloc(pg->num_groups + 1, sizeof(*h->parts));
	if (!h->parts || !depth_sum) {
		loom_free(depth_sum);
		return HERR(LOOM_ENOMEM, "out of memory");
	}
	h->n_parts = pg->num_groups;
	delta_stats_reader_init(&rd, snap->store);
	for (g = 0; g < pg->num_groups && rc == 0; g++) {
		const uint32_t *pos = pg->pos + pg->begin[g];
		size_t n = pg->begin[g + 1] - pg->begin[g];
		health_part *p = &h->parts[g];
		int64_t unclustered = 0;
		if ((rc = part_files(h, snap, p, pos, n, &name, &unclustered)) < 0)
			break;
		p->pub.name = p->name;
		p->pub.n_columns = h->n_columns;
		if (!h->n_columns)
			continue;
		if (!(p->columns = loom_calloc(h->n_columns, sizeof(*p->columns)))) {
			rc = HERR(LOOM_ENOMEM, "out of memory");
			break;
		}
		p->pub.columns = p->columns;
		if ((rc = health_depth(snap, &rd, pos, n, h->physical, h->n_columns, p->columns)) < 0)
			break;
		for (c = 0; c < h->n_columns; c++) {
			p->columns[c].column = h->columns[c].column;
			p->columns[c].unclustered_files = unclustered;
			depth_sum[c] += p->columns[c].depth * (double)p->columns[c].files;
			h->columns[c].files += p->columns[c].files;
			h->columns[c].unclustered_files += unclustered;
		}
	}
	for (c = 0; rc == 0 && c < h->n_columns; c++)
		h->columns[c].depth = h->columns[c].files ? depth_sum[c] / (double)h->columns[c].files : 0;
	delta_stats_reader_dispose(&rd);
	loom_free(depth_sum);
	loom_buf_dispose(&name);
	return rc;
}

/* The newest remove of the path being read. Tombstones are in path order
 * (then DV id), so a path's removes are adjacent: one run at a time is
 * all that is held. */
typedef struct path_run {
	int open;            /* 0 before the first tombstone */
	loom_buf path;
	int64_t deleted_ms;  /* the newest remove's deletionTimestamp */
	int64_t size;
} path_run;

/* A path's newest remove is the one vacuum goes by: an older remove of a
 * path removed again since (a DV updated, then the file purged) is not
 * counted, nor a path that is live again - no vacuum could take either,
 * and counting them would advise a vacuum that never clears. */
static void count_tombstone(loom_health *h, const delta_snapshot *snap, const path_run *run)
{
	int64_t r = h->t.deleted_file_retention_ms;
	int64_t size = run->size > 0 ? run->size : 0;
	delta_file newest;

	if (delta_snapshot_live_find(snap, run->path.ptr) >= 0)
		return;
	memset(&newest, 0, sizeof(newest));
	newest.deletion_timestamp = run->deleted_ms;
	if (!delta_tombstone_expired(&newest, h->t.now_ms, r)) {
		h->t.tombstones_retained++;
		h->t.tombstones_retained_bytes += size;
		return;
	}
	h->t.tombstones_expired++;
	h->t.tombstones_expired_bytes += size;
	/* a VACUUM at time T (never below the table's retention under loom)
	 * took every tombstone deleted before T - retention */
	if (h->t.last_vacuum_ms < 0 || run->deleted_ms >= h->t.last_vacuum_ms - r) {
		h->t.tombstones_unvacuumed++;
		h->t.tombstones_unvacuumed_bytes += size;
	}
}

static int fill_tombstones(loom_health *h, const delta_snapshot *snap)
{
	path_run run = { 0, LOOM_BUF_INIT, 0, 0 };
	delta_file_scratch sc;
	size_t i;
	int rc = 0;

	delta_file_scratch_init(&sc);
	for (i = 0; i < snap->num_tombstones && rc == 0; i++) {
		delta_file t;
		delta_file_scratch_reset(&sc);
		if ((rc = delta_snapshot_tombstone(snap, i, &sc, &t)) < 0)
			break;
		if (run.open && strcmp(run.path.ptr, t.path) == 0) {
			/* the first of the newest wins, as the log's order has it */
			if (t.deletion_timestamp > run.deleted_ms) {
				run.deleted_ms = t.deletion_timestamp;
				run.size = t.size;
			}
			continue;
		}
		if (run.open)
			count_tombstone(h, snap, &run);
		loom_buf_clear(&run.path);
		if (loom_buf_puts(&run.path, t.path) < 0)
			rc = HERR(LOOM_ENOMEM, "out of memory reading the table's tombstones");
		run.open = 1;
		run.deleted_ms = t.deletion_timestamp;
		run.size = t.size;
	}
	if (rc == 0 && run.open)
		count_tombstone(h, snap, &run);
	delta_file_scratch_dispose(&sc);
	loom_buf_dispose(&run.path);
	return rc;
}

/* Everything the snapshot says: files, partitions, clustering, tombstones
 * and the commits since the checkpoint. */
static int snapshot_figures(loom_health *h, loom_store *store, const loom_table_location *loc,
                            const char *const *declared, size_t n_declared, int file_index)
{
	delta_snapshot *snap = NULL;
	delta_load_opts lo;
	delta_table_props props;
	health_log_scan scan;
	partition_groups pg;
	size_t g;
	int rc;

	memset(&scan, 0, sizeof(scan));
	memset(&pg, 0, sizeof(pg));
	/* in the compact file index (issue 30): the stats of files added by
	 * commits held within the default commit_stats_budget, the
	 * checkpoint's left in the log until the clustering depth asks */
	delta_load_opts_init(&lo);
	lo.file_index = file_index;
	LOOM_TRY(delta_snapshot_load(&snap, store, -1, &lo));
	if ((rc = delta_props_parse(&snap->metadata, &props)) < 0)
		goto done;
	h->t.version = snap->version;
	h->t.now_ms = loom_clock_wall_ms(NULL);
	h->t.deleted_file_retention_ms = props.deleted_file_retention_ms;
	h->t.log_retention_ms = props.log_retention_ms;
	h->t.checkpoint_interval = props.checkpoint_interval;
	h->t.checkpoint_version = snap->checkpoint_version;
	h->t.last_vacuum_ms = -1;
	h->t.target_size = h->policy.target_size > 0 ? h->policy.target_size
	                   : loc && loc->target_file_size > 0 ? loc->target_file_size
	                   : props.target_file_size > 0 ? props.target_file_size : DEFAULT_TARGET;
	if ((rc = health_log_scan_run(store, snap, &h->t, &scan)) < 0)
		goto done;
	h->t.last_vacuum_ms = scan.last_vacuum_ms;
	if ((rc = pick_columns(h, snap, &scan, declared, n_declared)) < 0)
		goto done;
	if ((rc = partition_groups_build(&pg, snap, NULL, 0)) < 0 ||
	    (rc = fill_partitions(h, snap, &pg)) < 0 || (rc = health_compactable(h, snap, &pg)) < 0)
		goto done;
	for (g = 0; g < h->n_parts; g++)
		health_files_merge(&h->t.files, &h->parts[g].pub.files);
	h->t.num_partitions = (int64_t)h->n_parts;
	h->t.clustering_source = h->clustering_source;
	h->t.columns = h->columns;
	h->t.n_columns = h->n_columns;
	rc = fill_tombstones(h, snap);
done:
	partition_groups_dispose(&pg);
	health_log_scan_dispose(&scan);
	delta_snapshot_free(snap);
	return rc;
}

/* The snapshot's figures, then (with the snapshot freed: log cleanup loads
 * its own) the log files cleanup would delete. */
static int compute(loom_health *h, loom_store *store, const char *uri,
                   const loom_table_location *loc, const char *const *declared, size_t n_declared,
                   int file_index)
{
	LOOM_TRY(snapshot_figures(h, store, loc, declared, n_declared, file_index));
	return health_expired_logs(&h->t, uri, loc);
}

LOOM_EXTERN(int) loom_health_load(loom_health **out, const char *uri,
                                   const loom_table_location *loc,
                                   const loom_health_policy *policy)
{
	return health_load_as(out, uri, loc, policy, 1);
}

int health_load_as(loom_health **out, const char *uri, const loom_table_location *loc,
                   const loom_health_policy *policy, int file_index)
{
	loom_health_policy p;
	loom_health *h;
	ops_table t;
	int rc;

	if (!out || !uri)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_OPS, "loom_health_load: NULL argument");
	*out = NULL;
	LOOM_TRY(read_policy(&p, policy));
	if (!(h = loom_calloc(1, sizeof(*h))))
		return HERR(LOOM_ENOMEM, "out of memory");
	h->policy = p;
	h->policy.zorder_columns = NULL;   /* borrowed for the call only */
	h->policy.n_zorder_columns = 0;
	if ((rc = ops_table_open(&t, uri, loc, "health")) < 0) {
		loom_health_free(h);
		return rc;
	}
	rc = compute(h, t.store, uri, loc, p.zorder_columns, p.n_zorder_columns, file_index);
	if (rc == 0)
		rc = health_advise(h);
	rc = ops_table_close(&t, rc, "health");
	if (rc < 0) {
		loom_health_free(h);
		return rc;
	}
	*out = h;
	return 0;
}

LOOM_EXTERN(void) loom_health_free(loom_health *h)
{
	size_t i;
	if (!h)
		return;
	for (i = 0; i < h->n_parts; i++) {
		loom_free(h->parts[i].name);
		loom_free(h->parts[i].columns);
	}
	loom_free(h->parts);
	for (i = 0; i < h->n_columns; i++) {
		loom_free((char *)h->columns[i].column);
		loom_free(h->physical[i]);
	}
	loom_free(h->columns);
	loom_free(h->physical);
	loom_free(h->clustering_source);
	loom_free(h->zorder_tag);
	for (i = 0; i < h->n_strings; i++)
		loom_free(h->strings[i]);
	loom_free(h->strings);
	loom_free(h->advice);
	loom_free(h);
}

LOOM_EXTERN(const loom_health_table *) loom_health_summary(const loom_health *h)
{
	return h ? &h->t : NULL;
}

LOOM_EXTERN(size_t) loom_health_partition_count(const loom_health *h)
{
	return h ? h->n_parts : 0;
}

LOOM_EXTERN(const loom_health_partition *) loom_health_partition_at(const loom_health *h, size_t i)
{
	return h && i < h->n_parts ? &h->parts[i].pub : NULL;
}

LOOM_EXTERN(size_t) loom_health_advice_count(const loom_health *h)
{
	return h ? h->n_advice : 0;
}

LOOM_EXTERN(const loom_advice *) loom_health_advice_at(const loom_health *h, size_t i)
{
	return h && i < h->n_advice ? &h->advice[i] : NULL;
}

LOOM_EXTERN(const loom_advice *) loom_health_advice_for(const loom_health *h, const char *op)
{
	size_t i;
	for (i = 0; h && op && i < h->n_advice; i++)
		if (strcmp(h->advice[i].op, op) == 0)
			return &h->advice[i];
	return NULL;
}
