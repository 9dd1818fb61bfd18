/* ops/pipeline/pipe_schema.h - schema mapping for the rewrite pipeline: the output
 * schema of a unit (the table's data columns as its files store them) and
 * how each input file's leaves map onto it.
 *
 * The output has the table's top-level data columns (partition columns
 * excluded) in table order, matched in the input files by physical name
 * (column mapping "name"/"id"; field id first for "id"), each taken with
 * its Parquet subtree from the first input file that has it. A file
 * without a column contributes nulls (the column is written optional).
 * Columns the table no longer has are dropped. A column whose Parquet
 * subtree differs between files (type widening, nested fields added) is
 * refused with LOOM_EUNSUPPORTED naming file and column, except on a
 * table with type widening, where a leaf may be stored narrower than the
 * table's type: the output leaf then has the table's type and the leaf
 * map says which input leaves to convert (ops/pipeline/pipe_widen.h). On a table that
 * preserves row ids, the two materialized row tracking columns follow the
 * data columns (PIPE_RT_*). */
#ifndef LOOM_OPS_PIPE_SCHEMA_H
#define LOOM_OPS_PIPE_SCHEMA_H

#include <stddef.h>
#include <stdint.h>

#include "delta/snapshot.h"
#include "ops/pipeline/pipe_widen.h"
#include "parquet/schema.h"
#include "util/arena.h"

typedef struct pipe_field {
	const char *phys;
	int64_t field_id;          /* column mapping id, -1 */
	int present;               /* some input file has it */
	int missing;               /* some input file lacks it */
	size_t node_begin, node_count; /* in the output node array */
	size_t leaf_begin, num_leaves; /* in the output leaves */
	int optional;
	const delta_type *dtype;   /* the table's type of the column */
	int row_tracking;          /* PIPE_RT_*: a materialized row tracking
	                              column, never a data column */
} pipe_field;

/* The materialized row tracking columns (delta/row_tracking.h) a rewrite
 * of a table that preserves row ids appends after the data columns:
 * optional INT64 leaves named by the table's properties, filled by the
 * reader with each row's stable row id / row commit version. */
#define PIPE_RT_NONE 0
#define PIPE_RT_ROW_ID 1
#define PIPE_RT_COMMIT_VERSION 2

typedef struct pipe_schema {
	loom_arena arena;
	pq_schema_node *nodes;     /* the output schema, root first */
	size_t num_nodes, cap;
	pipe_field *fields;
	size_t num_fields;
	pq_schema *schema;         /* built over nodes once finished */
	const char *root_name;
	/* after finish: output leaf of the row id / commit version column
	 * ((size_t)-1: none), and the leaves before them (the data leaves,
	 * the ones Delta stats cover) */
	size_t rt_leaf[2];
	size_t data_leaves;
	/* the table has type widening: leaves of a column may differ in type
	 * between files (numeric classes, ops/pipeline/pipe_widen.h); the output leaf
	 * is the table's type */
	int widening;
	int column_mapping;
	pipe_num *leaf_num;        /* after finish: each output leaf's class */
} pipe_schema;

/* LOOM_EUNSUPPORTED when the table enables row tracking without naming its
 * materialized columns. */
int pipe_schema_init(pipe_schema *o, const delta_snapshot *snap);
/* Take the columns file `s` has that no earlier file had; check the rest
 * match. `file` names the file in errors. */
int pipe_schema_merge(pipe_schema *o, const pq_schema *s, const char *file);
/* Lay the present columns out in table order; o->schema is then valid. */
int pipe_schema_finish(pipe_schema *o);
void pipe_schema_dispose(pipe_schema *o);

/* How one file's leaves feed the output leaves (for a projection). */
typedef struct pipe_leaf_map {
	size_t nout;               /* output leaves */
	size_t *present;           /* file leaves to read, in output-leaf order */
	size_t npresent;
	long *map;                 /* output leaf -> index in present, -1: nulls */
	uint8_t *shift;            /* output leaf: required in the file, optional
	                              in the output: def levels + 1 */
	size_t *outs;              /* output leaves the projection keeps */
	size_t nouts;
	uint8_t *conv;             /* output leaf: the file stores it narrower */
	pipe_num *from;            /* output leaf: how the file stores it */
	size_t nconv;              /* leaves with conv set */
} pipe_leaf_map;

/* Fill `m` for file schema `s` and `mask` (one byte per output leaf, 1 =
 * read; NULL: all). m's arrays are reused across calls. LOOM_EUNSUPPORTED
 * naming the column for a stored type the table's cannot widen from. */
int pipe_schema_map_file(const pipe_schema *o, const pq_schema *s, const uint8_t *mask,
                         pipe_leaf_map *m);
/* 1 when a and b read the same file leaves into the same output leaves. */
int pipe_leaf_map_same(const pipe_leaf_map *a, const pipe_leaf_map *b);
/* Copy src into dst (dst's arrays reused). */
int pipe_leaf_map_copy(pipe_leaf_map *dst, const pipe_leaf_map *src);
void pipe_leaf_map_dispose(pipe_leaf_map *m);

#endif
