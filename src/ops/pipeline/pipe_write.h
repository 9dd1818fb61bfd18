/* ops/pipeline/pipe_write.h - the writer stage of the rewrite pipeline: column
 * batches -> new data files in the unit's partition directory, each with
 * its Delta stats.
 *
 * Target size: pipe_settings.file_bytes is what an output file should
 * hold. The writer starts a new file before rows that would take the
 * current one past the target, counted in the input bytes the rows stand
 * for or in the writer's estimate of the file's encoded size
 * (pq_writer_estimated_size), whichever is larger -- unless what is left of
 * the unit (in_left, when known) would make a file of less than half the
 * target: the file takes it instead, so a unit leaves no small file behind
 * and a file exceeds the target by less than half of it. Rows are never
 * split from their batch. */
#ifndef LOOM_OPS_PIPE_WRITE_H
#define LOOM_OPS_PIPE_WRITE_H

#include <stddef.h>
#include <stdint.h>

#include "ops/pipeline/pipeline.h"
#include "parquet/reader.h"

typedef struct pipe_writer {
	const pipe_settings *set;
	const pq_schema_node *nodes;  /* the output schema, root first */
	size_t num_nodes;
	const pq_schema *schema;
	size_t stats_leaves;          /* the first leaves, the ones Delta stats
	                                 cover (not the row tracking columns);
	                                 init: all */
	const delta_file *like;       /* names the partition directory */
	pq_writer_opts wopts;
	pipe_result *res;             /* files written, batches counted */
	loom_store_writer *sink;
	pq_writer *w;
	char *key;
	int64_t file_rows;
	double file_in;               /* input bytes the open file's rows stand for */
	double in_left;               /* input bytes the unit has still to write;
	                                 -1: unknown (set after init) */
} pipe_writer;

/* Nothing is opened until the first batch arrives. */
void pipe_writer_init(pipe_writer *pw, const pipe_settings *set, const pq_schema_node *nodes,
                      size_t num_nodes, const pq_schema *schema, const delta_file *like,
                      const pq_writer_opts *wopts, pipe_result *res);
/* Write a batch (borrowed for the call) standing for `in_bytes` of input
 * (its share of its input file's bytes; 0: unknown). */
int pipe_writer_put(pipe_writer *pw, const pq_batch *b, double in_bytes);
/* Copy row group g of r into the open file as it is, when that gives
 * the same file as decoding and encoding it would, up to encoding: the
 * row group holds at least set->copy_min_bytes (smaller ones are merged
 * into larger row groups by re-encoding), is stored with the output codec
 * and carries exact statistics (pq_writer_can_copy). Returns 1 when
 * copied, 0 when the caller should decode it instead. */
int pipe_writer_copy(pipe_writer *pw, pq_reader *r, size_t g);
/* Close and publish the open file, if any, and record it in res. */
int pipe_writer_finish(pipe_writer *pw);
/* Drop the open file, if any (failure paths). */
void pipe_writer_abort(pipe_writer *pw);

#endif
