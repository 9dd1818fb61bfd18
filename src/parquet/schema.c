/* parquet/schema.c - flattened SchemaElements to a tree with levels. */
#include "parquet/schema.h"

#include <string.h>

#include "util/alloc.h"
#include "util/buf.h"
#include "util/error.h"

typedef struct builder {
	pq_schema *s;
	const char *ctx;
	size_t next;        /* next node to consume */
	size_t nchild;      /* children slots used */
	const char *stack[PQ_SCHEMA_MAX_DEPTH + 1];
} builder;

static int bad(builder *b, const char *what, size_t node)
{
	return loom_err(LOOM_ECORRUPT, LOOM_ERRCLASS_PARQUET, "%s: invalid schema at element %zu: %s",
	                b->ctx, node, what);
}

static int add_leaf(builder *b, int32_t idx, size_t depth)
{
	pq_schema *s = b->s;
	const pq_schema_node *n = &s->nodes[idx];
	pq_leaf *l = &s->leaves[s->num_leaves];
	loom_buf path = LOOM_BUF_INIT;
	size_t i;

	l->node = idx;
	l->depth = depth;
	l->parts = loom_arena_alloc(&s->arena, (depth ? depth : 1) * sizeof(char *));
	if (!l->parts)
		return LOOM_ENOMEM;
	for (i = 0; i < depth; i++) {
		l->parts[i] = b->stack[i + 1];
		if ((i && loom_buf_putc(&path, '.') < 0) || loom_buf_puts(&path, b->stack[i + 1]) < 0) {
			loom_buf_dispose(&path);
			return LOOM_ENOMEM;
		}
	}
	l->path = loom_arena_strndup(&s->arena, path.ptr ? path.ptr : "", path.size);
	loom_buf_dispose(&path);
	if (!l->path)
		return LOOM_ENOMEM;
	l->max_def = s->def_level[idx];
	l->max_rep = s->rep_level[idx];
	l->type = n->type;
	l->type_length = n->type_length;
	l->converted_type = n->converted_type;
	l->logical_type = n->logical_type;
	if (n->logical_type.kind == PQ_LT_DECIMAL) {
		l->scale = n->logical_type.decimal_scale;
		l->precision = n->logical_type.decimal_precision;
	} else {
		l->scale = n->scale;
		l->precision = n->precision;
	}
	l->has_field_id = n->has_field_id;
	l->field_id = n->field_id;
	if (n->type == PQ_FIXED_LEN_BYTE_ARRAY && n->type_length <= 0)
		return bad(b, "FIXED_LEN_BYTE_ARRAY without a positive type_length", (size_t)idx);
	if (n->type < PQ_BOOLEAN || n->type > PQ_FIXED_LEN_BYTE_ARRAY)
		return bad(b, "unknown physical type", (size_t)idx);
	s->num_leaves++;
	return 0;
}

static void classify(pq_schema *s, int32_t idx)
{
	const pq_schema_node *n = &s->nodes[idx];
	int is_list = n->converted_type == PQ_CT_LIST || n->logical_type.kind == PQ_LT_LIST;
	int is_map = n->converted_type == PQ_CT_MAP || n->converted_type == PQ_CT_MAP_KEY_VALUE ||
	             n->logical_type.kind == PQ_LT_MAP;
	int32_t nc = n->num_children, rep;
	const pq_schema_node *r;

	if (!n->is_group || nc != 1)
		return;
	rep = s->children[s->child_begin[idx]];
	r = &s->nodes[rep];
	if (!r->has_repetition || r->repetition != PQ_REPEATED)
		return;
	if (is_map && r->is_group && r->num_children == 2) {
		s->nest[idx] = PQ_NEST_MAP;
		s->list_repeated[idx] = rep;
		return;
	}
	/* A map without a value field (map_no_value.parquet) reads, like
	 * parquet-rs reads it, as a list of its keys. */
	if (!is_list && !(is_map && r->is_group && r->num_children == 1))
		return;
	s->nest[idx] = PQ_NEST_LIST;
	s->list_repeated[idx] = rep;
	/* The backward-compatibility rules of the LIST spec. */
	if (!r->is_group || r->num_children != 1)
		s->list_element_is_repeated[idx] = 1;
	else {
		size_t len = strlen(r->name), plen = strlen(n->name);
		if (strcmp(r->name, "array") == 0 ||
		    (len == plen + 6 && strncmp(r->name, n->name, plen) == 0 &&
		     strcmp(r->name + plen, "_tuple") == 0))
			s->list_element_is_repeated[idx] = 1;
	}
}

static int walk(builder *b, int32_t parent, size_t depth)
{
	pq_schema *s = b->s;
	int32_t idx, i, nc;
	const pq_schema_node *n;

	if (b->next >= s->num_nodes)
		return bad(b, "fewer elements than num_children announce", b->next);
	if (depth > PQ_SCHEMA_MAX_DEPTH)
		return bad(b, "nesting deeper than 100 levels", b->next);
	idx = (int32_t)b->next++;
	n = &s->nodes[idx];
	s->parent[idx] = parent;
	s->def_level[idx] = parent < 0 ? 0 : s->def_level[parent];
	s->rep_level[idx] = parent < 0 ? 0 : s->rep_level[parent];
	if (parent >= 0 && n->has_repetition && n->repetition != PQ_REQUIRED)
		s->def_level[idx]++;
	if (parent >= 0 && n->has_repetition && n->repetition == PQ_REPEATED)
		s->rep_level[idx]++;
	b->stack[depth] = n->name;
	s->first_leaf[idx] = (int32_t)s->num_leaves;
	s->list_repeated[idx] = -1;
	if (!n->is_group) {
		if (parent < 0)
			return bad(b, "the root is not a group", 0);
		LOOM_TRY(add_leaf(b, idx, depth));
	} else {
		nc = n->num_children;
		/* every element is the child of one group: reservations over all
		 * groups can never pass the element count */
		if ((size_t)nc > s->num_nodes - b->next || (size_t)nc > s->num_nodes - b->nchild)
			return bad(b, "num_children larger than the elements left", (size_t)idx);
		if (nc == 0 && parent >= 0)
			return bad(b, "group without children", (size_t)idx);
		s->child_begin[idx] = (int32_t)b->nchild;
		b->nchild += (size_t)nc;
		for (i = 0; i < nc; i++) {
			s->children[s->child_begin[idx] + i] = (int32_t)b->next;
			LOOM_TRY(walk(b, idx, depth + 1));
		}
		classify(s, idx);
	}
	s->num_leaves_under[idx] = (int32_t)s->num_leaves - s->first_leaf[idx];
	return 0;
}

int pq_schema_build(pq_schema **out, const pq_schema_node *nodes, size_t n, const char *ctx)
{
	pq_schema *s;
	builder b;
	int rc;
	size_t sz = n ? n : 1;

	*out = NULL;
	if (n == 0 || n > (1u << 24))
		return loom_err(LOOM_ECORRUPT, LOOM_ERRCLASS_PARQUET, "%s: schema has %zu elements", ctx, n);
	s = loom_calloc(1, sizeof(*s));
	if (!s)
		return loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_PARQUET, "out of memory building a schema");
	loom_arena_init(&s->arena, 8192);
	s->nodes = nodes;
	s->num_nodes = n;
	s->parent = loom_arena_calloc(&s->arena, sz * sizeof(int32_t));
	s->child_begin = loom_arena_calloc(&s->arena, sz * sizeof(int32_t));
	s->children = loom_arena_calloc(&s->arena, sz * sizeof(int32_t));
	s->def_level = loom_arena_calloc(&s->arena, sz * sizeof(int16_t));
	s->rep_level = loom_arena_calloc(&s->arena, sz * sizeof(int16_t));
	s->first_leaf = loom_arena_calloc(&s->arena, sz * sizeof(int32_t));
	s->num_leaves_under = loom_arena_calloc(&s->arena, sz * sizeof(int32_t));
	s->nest = loom_arena_calloc(&s->arena, sz);
	s->list_repeated = loom_arena_calloc(&s->arena, sz * sizeof(int32_t));
	s->list_element_is_repeated = loom_arena_calloc(&s->arena, sz);
	s->leaves = loom_arena_calloc(&s->arena, sz * sizeof(pq_leaf));
	if (!s->parent || !s->child_begin || !s->children || !s->def_level || !s->rep_level ||
	    !s->first_leaf || !s->num_leaves_under || !s->nest || !s->list_repeated ||
	    !s->list_element_is_repeated || !s->leaves) {
		pq_schema_free(s);
		return loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_PARQUET, "out of memory building a schema");
	}
	memset(&b, 0, sizeof(b));
	b.s = s;
	b.ctx = ctx;
	rc = walk(&b, -1, 0);
	if (rc == 0 && b.next != n)
		rc = bad(&b, "elements left after the root's subtree", b.next);
	if (rc == LOOM_ENOMEM)
		rc = loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_PARQUET, "out of memory building a schema");
	if (rc < 0) {
		pq_schema_free(s);
		return rc;
	}
	*out = s;
	return 0;
}

void pq_schema_free(pq_schema *s)
{
	if (!s)
		return;
	loom_arena_dispose(&s->arena);
	loom_free(s);
}

long pq_schema_find_leaf(const pq_schema *s, const char *path)
{
	size_t i;
	for (i = 0; i < s->num_leaves; i++)
		if (strcmp(s->leaves[i].path, path) == 0)
			return (long)i;
	return -1;
}
