/* delta/action_write.h - action lines of a commit as JSON text: the one
 * place that spells add and remove actions (OPTIMIZE, CONVERT TO DELTA). */
#ifndef LOOM_DELTA_ACTION_WRITE_H
#define LOOM_DELTA_ACTION_WRITE_H

#include <jansson.h>
#include <stdint.h>

#include "delta/actions.h"
#include "util/buf.h"

/* Append `{"<name>":<body>}\n` to b. Takes the reference to body. */
int delta_action_line(loom_buf *b, const char *name, json_t *body);

/* An add action of a newly written file. */
typedef struct delta_add_spec {
	const char *path_raw;           /* percent-encoded, as logged */
	const char *path_raw_end;       /* NULL: path_raw is NUL-terminated */
	const delta_kv *partition_values; /* NULL values = null partition */
	uint32_t num_partition_values;
	int64_t size;
	int64_t modification_time;
	int data_change;
	const char *stats;              /* stats JSON text, or NULL */
	const char *tag_key, *tag_value;/* one tag, or NULL */
	const delta_kv *tags;           /* more tags (after tag_key) */
	uint32_t num_tags;
	int has_row_tracking;           /* write the two fields below */
	int64_t base_row_id, default_row_commit_version;
	const char *clustering_provider;/* or NULL */
} delta_add_spec;

int delta_add_line(loom_buf *b, const delta_add_spec *a);

/* An add action re-stating live file f with new `stats` (ANALYZE): path,
 * partition values, size, modification time, tags, DV, row tracking fields
 * and clusteringProvider as f has them, dataChange=false. */
int delta_restate_line(loom_buf *b, const delta_file *f, const char *stats);

/* A remove action for live file f (extended file metadata, its DV, row
 * tracking fields and stats carried over). */
int delta_remove_line(loom_buf *b, const delta_file *f, int64_t deletion_timestamp, int data_change);

#endif
