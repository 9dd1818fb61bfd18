/* ops/health/health_files.c - per-file figures (sizes, histogram, stats,
 * deletion vectors) and what compaction would rewrite, by compaction's own
 * planner so the estimate is what `loom compact` does. */
#include <string.h>

#include "ops/compact/compact.h"
#include "ops/health/health_int.h"
#include "util/error.h"

static int bucket_of(int64_t size)
{
	int k = 0;
	while (size > 1 && k < LOOM_HEALTH_BUCKETS - 1) {
		size >>= 1;
		k++;
	}
	return k;
}

void health_files_add(loom_health_files *f, const delta_file *file, int has_stats,
                      int64_t target, double purge_ratio)
{
	int64_t size = file->size > 0 ? file->size : 0;
	int b = bucket_of(size);
	f->files++;
	f->bytes += size;
	f->hist_files[b]++;
	f->hist_bytes[b] += size;
	if (size < target / 2) {
		f->small_files++;
		f->small_bytes += size;
	}
	if (!has_stats || file->num_records < 0)
		f->files_without_stats++;
	if (file->num_records > 0)
		f->rows += file->num_records;
	if (file->dv.storage_type && file->dv.cardinality > 0) {
		f->dv_files++;
		f->dv_deleted_rows += file->dv.cardinality;
		/* unknown row counts are purged, as compaction (and Spark) do */
		if (file->num_records <= 0 ||
		    (double)file->dv.cardinality > purge_ratio * (double)file->num_records) {
			f->dv_purge_files++;
			f->dv_purge_bytes += size;
			f->dv_purge_rows += file->num_records > 0 ? file->num_records : 0;
			f->dv_purge_deleted_rows += file->dv.cardinality;
		}
	}
}

void health_files_merge(loom_health_files *into, const loom_health_files *from)
{
	int k;
	into->files += from->files;
	into->bytes += from->bytes;
	into->rows += from->rows;
	into->small_files += from->small_files;
	into->small_bytes += from->small_bytes;
	into->compactable_files += from->compactable_files;
	into->compactable_bytes += from->compactable_bytes;
	into->files_without_stats += from->files_without_stats;
	into->dv_files += from->dv_files;
	into->dv_deleted_rows += from->dv_deleted_rows;
	into->dv_purge_files += from->dv_purge_files;
	into->dv_purge_bytes += from->dv_purge_bytes;
	into->dv_purge_rows += from->dv_purge_rows;
	into->dv_purge_deleted_rows += from->dv_purge_deleted_rows;
	for (k = 0; k < LOOM_HEALTH_BUCKETS; k++) {
		into->hist_files[k] += from->hist_files[k];
		into->hist_bytes[k] += from->hist_bytes[k];
	}
}

/* Only bins of two or more files count: a lone file rewritten to purge its
 * DV is the purge's figure, not compaction's. compact_plan_build groups by
 * partition_groups_build too, so bin->partition indexes the same groups. */
int health_compactable(loom_health *h, const delta_snapshot *snap, const partition_groups *pg)
{
	compact_plan plan;
	size_t b;
	(void)pg;
	LOOM_TRY(compact_plan_build(&plan, snap, h->t.target_size, NULL, 0));
	for (b = 0; b < plan.num_bins; b++) {
		const compact_bin *bin = &plan.bins[b];
		loom_health_files *f;
		if (bin->num_files < 2 || bin->partition >= h->n_parts)
			continue;
		f = &h->parts[bin->partition].pub.files;
		f->compactable_files += (int64_t)bin->num_files;
		f->compactable_bytes += bin->bytes;
	}
	compact_plan_dispose(&plan);
	return 0;
}
