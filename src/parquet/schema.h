/* parquet/schema.h - the schema tree built from the footer's flattened
 * SchemaElement array: leaves (= column chunks, in order) with their dotted
 * path and max definition/repetition levels, and the nesting kind of every
 * group (LIST/MAP in their modern and legacy layouts) for rendering. */
#ifndef LOOM_PARQUET_SCHEMA_H
#define LOOM_PARQUET_SCHEMA_H

#include <stddef.h>
#include <stdint.h>

#include "parquet/types.h"
#include "util/arena.h"

#define PQ_SCHEMA_MAX_DEPTH 100

/* How a node nests its children, as readers present it. */
typedef enum pq_nest_kind {
	PQ_NEST_NONE = 0,   /* leaf or plain struct */
	PQ_NEST_LIST,       /* LIST-annotated group (any layout) */
	PQ_NEST_MAP         /* MAP / MAP_KEY_VALUE-annotated group */
} pq_nest_kind;

typedef struct pq_leaf {
	int32_t node;             /* index in the node array */
	const char *path;         /* dotted path of names from below the root */
	size_t depth;             /* path components */
	const char **parts;       /* path components */
	int16_t max_def, max_rep;
	pq_physical_type type;
	int32_t type_length;
	pq_converted_type converted_type;
	pq_logical_type logical_type;
	int32_t scale, precision; /* decimal: from the logical type, else legacy */
	int has_field_id;
	int32_t field_id;
} pq_leaf;

typedef struct pq_schema {
	size_t num_nodes;
	const pq_schema_node *nodes;   /* borrowed: the footer's array */
	int32_t *parent;               /* -1 for the root */
	int32_t *child_begin;          /* children of node i: children[child_begin[i] ..] */
	int32_t *children;
	int16_t *def_level, *rep_level;/* cumulative levels at each node */
	int32_t *first_leaf, *num_leaves_under;  /* leaves under a node are contiguous */
	uint8_t *nest;                 /* pq_nest_kind per node */
	/* For a LIST node: the repeated child, and whether the element is that
	 * child itself (legacy layouts) or its only child (modern 3-level). */
	int32_t *list_repeated;
	uint8_t *list_element_is_repeated;
	size_t num_leaves;
	pq_leaf *leaves;
	loom_arena arena;
} pq_schema;

/* Build from `n` nodes (root first). `nodes` must outlive the schema.
 * `ctx` names the file in errors. */
int pq_schema_build(pq_schema **out, const pq_schema_node *nodes, size_t n, const char *ctx);
void pq_schema_free(pq_schema *s);

/* Leaf index of a dotted path, or -1. */
long pq_schema_find_leaf(const pq_schema *s, const char *path);

#endif
