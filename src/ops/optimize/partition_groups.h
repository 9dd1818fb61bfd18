/* ops/optimize/partition_groups.h - a snapshot's live files grouped by partition
 * (the one grouping compaction and Z-order plan over), each group in the
 * order its files entered the table: commit version, then modification
 * time, then path. Data file names are random, so path order alone says
 * nothing; insertion order keeps what was appended together together. */
#ifndef LOOM_OPS_PARTITION_GROUPS_H
#define LOOM_OPS_PARTITION_GROUPS_H

#include <stddef.h>

#include "delta/snapshot.h"

typedef struct partition_groups {
	const delta_file **files;     /* group after group (by partition directory) */
	size_t num_files;
	size_t *begin;                /* group g is files[begin[g] .. begin[g + 1]) */
	size_t num_groups;
} partition_groups;

/* Group the live files matching every "col=value" filter (LOOM_EINVAL
 * when one is malformed or names no partition column). */
int partition_groups_build(partition_groups *g, const delta_snapshot *snap,
                           const char *const *filters, size_t n_filters);
void partition_groups_dispose(partition_groups *g);

#endif
