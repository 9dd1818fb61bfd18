/* ops/optimize/partition_groups.h - a snapshot's live files grouped by partition
 * (the one grouping compaction and Z-order plan over), each group in the
 * order its files entered the table: commit version, then modification
 * time, then path. Data file names are random, so path order alone says
 * nothing; insertion order keeps what was appended together together.
 *
 * Files are held as positions among the snapshot's live files (read with
 * delta_snapshot_live_file), 4 bytes each, so a snapshot in the compact
 * file index is grouped without a delta_file per file (issue 30). */
#ifndef LOOM_OPS_PARTITION_GROUPS_H
#define LOOM_OPS_PARTITION_GROUPS_H

#include <stddef.h>
#include <stdint.h>

#include "delta/snapshot.h"

typedef struct partition_groups {
	uint32_t *pos;                /* live-file positions, group after group
	                                 (groups by partition directory) */
	size_t num_files;
	size_t *begin;                /* group g is pos[begin[g] .. begin[g + 1]) */
	size_t num_groups;
} partition_groups;

/* Group the live files matching every "col=value" filter (LOOM_EINVAL
 * when one is malformed or names no partition column). */
int partition_groups_build(partition_groups *g, const delta_snapshot *snap,
                           const char *const *filters, size_t n_filters);
void partition_groups_dispose(partition_groups *g);

#endif
