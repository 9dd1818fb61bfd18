/* ops/health/advise.c - the policy: health figures -> recommendations.
 * A pure function of h->t, h->parts and h->policy; every operation gets an
 * entry, recommended or not, naming the figure that decided against its
 * threshold (docs/health.md has the rules and where the defaults come
 * from). */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "loom/config.h"
#include "ops/health/health_int.h"
#include "util/alloc.h"
#include "util/error.h"

#define AERR() loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_OPS, "out of memory building advice")

static loom_advice *next(loom_health *h, const char *op, const char *metric, double value,
                         double threshold)
{
	loom_advice *a = &h->advice[h->n_advice++];
	memset(a, 0, sizeof(*a));
	a->op = op;
	a->metric = metric;
	a->value = value;
	a->threshold = threshold;
	return a;
}

static int reason(loom_health *h, loom_advice *a, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int reason(loom_health *h, loom_advice *a, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return (a->reason = health_keep(h, msg)) ? 0 : AERR();
}

/* The partitions where `pick` holds, as a kept array of kept names. */
static int partitions(loom_health *h, loom_advice *a, int (*pick)(const loom_health *, size_t))
{
	const char **list;
	size_t i, n = 0;
	char **grown;
	for (i = 0; i < h->n_parts; i++)
		n += (size_t)pick(h, i);
	if (!n)
		return 0;
	list = loom_calloc(n, sizeof(*list));
	grown = loom_reallocarray(h->strings, h->n_strings + 1, sizeof(*grown));
	if (!list || !grown) {
		loom_free(list);
		return AERR();
	}
	h->strings = grown;
	h->strings[h->n_strings++] = (char *)list;   /* freed with the strings */
	for (i = 0, n = 0; i < h->n_parts; i++)
		if (pick(h, i))
			list[n++] = h->parts[i].name;
	a->partitions = list;
	a->n_partitions = n;
	return 0;
}

static int has_compactable(const loom_health *h, size_t i)
{
	return h->parts[i].pub.files.compactable_files > 0;
}

/* Rows kept when DV-deleted rows are dropped: the write estimate. */
static int64_t minus_deleted(int64_t bytes, int64_t rows, int64_t deleted)
{
	if (rows <= 0 || deleted <= 0)
		return bytes;
	if (deleted >= rows)
		return 0;
	return (int64_t)((double)bytes * (double)(rows - deleted) / (double)rows);
}

static int advise_compact(loom_health *h)
{
	const loom_health_files *f = &h->t.files;
	loom_advice *a = next(h, "compact", "compactable_files", (double)f->compactable_files,
	                      (double)h->policy.min_small_files);
	char tgt[32];
	loom_size_format(tgt, sizeof(tgt), h->t.target_size);
	a->recommended = f->compactable_files >= h->policy.min_small_files;
	a->files = f->compactable_files;
	a->read_bytes = a->write_bytes = f->compactable_bytes;
	LOOM_TRY(partitions(h, a, has_compactable));
	return reason(h, a, "%lld files under the %s target can be bin-packed in %zu partition(s) "
	              "(%lld below half of it); compaction starts at %lld", (long long)a->files, tgt,
	              a->n_partitions, (long long)f->small_files, (long long)h->policy.min_small_files);
}

static int advise_purge(loom_health *h)
{
	const loom_health_files *f = &h->t.files;
	loom_advice *a = next(h, "purge_dvs", "dv_purge_files", (double)f->dv_purge_files,
	                      (double)h->policy.min_dv_files);
	a->recommended = f->dv_purge_files >= h->policy.min_dv_files;
	a->files = f->dv_purge_files;
	a->read_bytes = f->dv_purge_bytes;
	a->write_bytes = minus_deleted(f->dv_purge_bytes, f->dv_purge_rows, f->dv_purge_deleted_rows);
	return reason(h, a, "%lld files have deletion vectors deleting more than %.0f%% of their "
	              "rows (%lld rows deleted through DVs in %lld files); purging starts at %lld",
	              (long long)a->files, h->policy.dv_purge_ratio * 100,
	              (long long)f->dv_deleted_rows, (long long)f->dv_files,
	              (long long)h->policy.min_dv_files);
}

/* A partition needs clustering when a column's depth there is above the
 * threshold and some of its files were not written by the last clustering
 * run (once they all were, clustering again would change nothing). */
static int needs_clustering(const loom_health *h, size_t i)
{
	const health_part *p = &h->parts[i];
	size_t c;
	for (c = 0; c < h->n_columns; c++)
		if (p->columns[c].depth > h->policy.max_clustering_depth &&
		    p->columns[c].unclustered_files > 0)
			return 1;
	return 0;
}

static int advise_clustering(loom_health *h)
{
	int liquid = h->clustering_source && !strcmp(h->clustering_source, "clustering");
	double worst = 0;
	const char *worst_col = NULL;
	loom_advice *a;
	size_t c, i;
	for (c = 0; c < h->n_columns; c++)
		if (h->columns[c].depth >= worst) {
			worst = h->columns[c].depth;
			worst_col = h->columns[c].column;
		}
	a = next(h, liquid ? "cluster" : "z_order", "clustering_depth", worst,
	         h->policy.max_clustering_depth);
	if (!h->n_columns)
		return reason(h, a, "no Z-order or clustering columns: none declared, no OPTIMIZE "
		              "ZORDER BY in the log, not a clustered table");
	a->columns = (const char *const *)h->physical;   /* replaced below by logical names */
	{
		const char **cols = loom_calloc(h->n_columns, sizeof(*cols));
		char **grown = loom_reallocarray(h->strings, h->n_strings + 1, sizeof(*grown));
		if (grown)   /* the old array is gone even when cols failed */
			h->strings = grown;
		if (!cols || !grown) {
			loom_free(cols);
			return AERR();
		}
		h->strings[h->n_strings++] = (char *)cols;
		for (c = 0; c < h->n_columns; c++)
			cols[c] = h->columns[c].column;
		a->columns = cols;
		a->n_columns = h->n_columns;
	}
	LOOM_TRY(partitions(h, a, needs_clustering));
	a->recommended = a->n_partitions > 0;
	for (i = 0; i < h->n_parts; i++)
		if (needs_clustering(h, i)) {
			const loom_health_files *f = &h->parts[i].pub.files;
			a->files += f->files;
			a->read_bytes += f->bytes;
			a->write_bytes += minus_deleted(f->bytes, f->rows, f->dv_deleted_rows);
		}
	if (a->recommended)
		return reason(h, a, "clustering depth of '%s' is %.2f (above %.2f) in %zu partition(s) "
		              "with files the last %s did not write", worst_col, worst,
		              h->policy.max_clustering_depth, a->n_partitions,
		              liquid ? "clustering" : "Z-order");
	return reason(h, a, "clustering depth at most %.2f where files are new (threshold %.2f; "
	              "worst column '%s' at %.2f overall)", h->policy.max_clustering_depth, 
	              h->policy.max_clustering_depth, worst_col, worst);
}

static int advise_vacuum(loom_health *h)
{
	loom_advice *a = next(h, "vacuum", "tombstones_unvacuumed",
	                      (double)h->t.tombstones_unvacuumed, (double)h->policy.min_vacuum_files);
	a->recommended = h->t.tombstones_unvacuumed >= h->policy.min_vacuum_files;
	a->files = h->t.tombstones_unvacuumed;
	a->delete_bytes = h->t.tombstones_unvacuumed_bytes;
	return reason(h, a, "%lld removed files are past the %lld h retention and newer than the "
	              "last VACUUM (%lld within the retention); vacuum starts at %lld",
	              (long long)a->files, (long long)(h->t.deleted_file_retention_ms / 3600000),
	              (long long)h->t.tombstones_retained, (long long)h->policy.min_vacuum_files);
}

static int advise_checkpoint(loom_health *h)
{
	int64_t limit = h->policy.checkpoint_commits ? h->policy.checkpoint_commits
	                                             : h->t.checkpoint_interval;
	int64_t bytes_limit = h->policy.checkpoint_json_bytes;
	loom_advice *a = next(h, "checkpoint", "commits_since_checkpoint",
	                      (double)h->t.commits_since_checkpoint, (double)limit);
	char b[32];
	loom_size_format(b, sizeof(b), h->t.json_bytes_since_checkpoint);
	a->recommended = h->t.commits_since_checkpoint > 0 &&
	                 (h->t.commits_since_checkpoint >= limit ||
	                  (bytes_limit > 0 && h->t.json_bytes_since_checkpoint >= bytes_limit));
	if (a->recommended && h->t.commits_since_checkpoint < limit) {
		a->metric = "json_bytes_since_checkpoint";
		a->value = (double)h->t.json_bytes_since_checkpoint;
		a->threshold = (double)bytes_limit;
	}
	a->files = h->t.commits_since_checkpoint;
	a->read_bytes = h->t.json_bytes_since_checkpoint;
	return reason(h, a, "%lld commits (%s of JSON) since the %s; checkpoint at %lld commits "
	              "or %lld bytes", (long long)h->t.commits_since_checkpoint, b,
	              h->t.checkpoint_version >= 0 ? "last checkpoint" : "table's creation (no checkpoint)",
	              (long long)limit, (long long)bytes_limit);
}

static int advise_cleanup(loom_health *h)
{
	loom_advice *a = next(h, "cleanup_logs", "expired_log_files", (double)h->t.expired_log_files,
	                      (double)h->policy.min_expired_logs);
	a->recommended = h->t.log_cleanup_allowed &&
	                 h->t.expired_log_files >= h->policy.min_expired_logs;
	a->files = h->t.expired_log_files;
	a->delete_bytes = h->t.expired_log_bytes;
	if (!h->t.log_cleanup_allowed)
		return reason(h, a, "log cleanup is disabled (delta.enableExpiredLogCleanup=false) or "
		              "refused for this protocol");
	return reason(h, a, "%lld log files are past the %lld day log retention; cleanup starts at %lld",
	              (long long)a->files, (long long)(h->t.log_retention_ms / 86400000),
	              (long long)h->policy.min_expired_logs);
}

/* Files without statistics skip no data: loom analyze gives them some
 * from their footers, without rewriting them. */
static int advise_analyze(loom_health *h)
{
	int64_t n = h->t.files.files_without_stats, min = h->policy.min_files_without_stats;
	loom_advice *a = next(h, "analyze", "files_without_stats", (double)n, (double)min);
	a->recommended = min > 0 && n >= min;
	a->files = n;
	if (min == 0)
		return reason(h, a, "%lld live files have no statistics; analyze is off in the policy "
		              "(min_files_without_stats 0)", (long long)n);
	return reason(h, a, "%lld live files have no statistics (data skipping passes them by); "
	              "analyze from %lld", (long long)n, (long long)min);
}

int health_advise(loom_health *h)
{
	if (!(h->advice = loom_calloc(7, sizeof(*h->advice))))
		return AERR();
	LOOM_TRY(advise_compact(h));
	LOOM_TRY(advise_purge(h));
	LOOM_TRY(advise_clustering(h));
	LOOM_TRY(advise_vacuum(h));
	LOOM_TRY(advise_checkpoint(h));
	LOOM_TRY(advise_analyze(h));
	return advise_cleanup(h);
}
