/* ops/pipeline/pipe_schema.c - the output schema of a rewrite unit and the mapping
 * of each input file's leaves onto it. */
#include "ops/pipeline/pipe_schema.h"

#include <string.h>
#include <strings.h>

#include "delta/protocol.h"
#include "delta/row_tracking.h"
#include "util/alloc.h"
#include "util/error.h"

#define OPS_ERR(code, ...) loom_err((code), LOOM_ERRCLASS_OPS, __VA_ARGS__)

static size_t subtree_end(const pq_schema_node *nodes, size_t n, size_t i)
{
	size_t remaining = 1;
	while (remaining > 0 && i < n) {
		remaining--;
		if (nodes[i].is_group)
			remaining += (size_t)(nodes[i].num_children > 0 ? nodes[i].num_children : 0);
		i++;
	}
	return i;
}

/* A node with the annotations that repeat what the physical type says
 * removed (writers differ: DuckDB marks a 32-bit int INT_32, Spark does
 * not; one writes STRING beside UTF8, another UTF8 alone). */
static pq_schema_node plain(pq_schema_node n)
{
	int lt_int = n.logical_type.kind == PQ_LT_INTEGER && n.logical_type.int_is_signed;
	if (n.is_group)
		return n;
	if ((n.type == PQ_INT32 && (n.converted_type == PQ_CT_INT_32 || (lt_int && n.logical_type.int_bit_width == 32))) ||
	    (n.type == PQ_INT64 && (n.converted_type == PQ_CT_INT_64 || (lt_int && n.logical_type.int_bit_width == 64)))) {
		if (n.logical_type.kind == PQ_LT_NONE || lt_int) {
			n.converted_type = PQ_CT_NONE;
			memset(&n.logical_type, 0, sizeof(n.logical_type));
		}
	}
	if (n.converted_type == PQ_CT_UTF8 && n.logical_type.kind == PQ_LT_STRING)
		memset(&n.logical_type, 0, sizeof(n.logical_type));
	return n;
}

static int node_equal(const pq_schema_node *pa, const pq_schema_node *pb)
{
	const pq_schema_node na = plain(*pa), nb = plain(*pb), *a = &na, *b = &nb;
	return strcmp(a->name, b->name) == 0 && a->is_group == b->is_group &&
	       a->has_repetition == b->has_repetition && a->repetition == b->repetition &&
	       (a->is_group || (a->type == b->type && a->type_length == b->type_length)) &&
	       a->num_children == b->num_children && a->converted_type == b->converted_type &&
	       a->logical_type.kind == b->logical_type.kind &&
	       a->logical_type.decimal_scale == b->logical_type.decimal_scale &&
	       a->logical_type.decimal_precision == b->logical_type.decimal_precision &&
	       a->logical_type.unit == b->logical_type.unit &&
	       a->logical_type.is_adjusted_to_utc == b->logical_type.is_adjusted_to_utc &&
	       a->logical_type.int_bit_width == b->logical_type.int_bit_width &&
	       a->scale == b->scale && a->precision == b->precision;
}

/* The top-level node of `s` holding field `f`, or -1. */
static long find_top(const pq_schema *s, const pipe_field *f)
{
	int32_t k, n = s->nodes[0].num_children;
	for (k = 0; k < n; k++) {
		int32_t c = s->children[s->child_begin[0] + k];
		if (f->field_id >= 0 && s->nodes[c].has_field_id && s->nodes[c].field_id == f->field_id)
			return c;
	}
	for (k = 0; k < n; k++) {
		int32_t c = s->children[s->child_begin[0] + k];
		if (strcmp(s->nodes[c].name, f->phys) == 0)
			return c;
	}
	return -1;
}

void pipe_schema_dispose(pipe_schema *o)
{
	loom_free(o->leaf_num);
	pq_schema_free(o->schema);
	loom_free(o->nodes);
	loom_free(o->fields);
	loom_arena_dispose(&o->arena);
	memset(o, 0, sizeof(*o));
}

static int is_partition_column(const delta_snapshot *snap, const char *name)
{
	uint32_t i;
	for (i = 0; i < snap->metadata.num_partition_columns; i++)
		if (strcasecmp(snap->metadata.partition_columns[i], name) == 0)
			return 1;
	return 0;
}

static int reserve_nodes(pipe_schema *o, size_t more)
{
	if (o->num_nodes + more > o->cap) {
		size_t nc = (o->num_nodes + more) * 2 + 8;
		pq_schema_node *g = loom_reallocarray(o->nodes, nc, sizeof(*g));
		if (!g)
			return OPS_ERR(LOOM_ENOMEM, "out of memory");
		o->nodes = g;
		o->cap = nc;
	}
	return 0;
}

/* A materialized row tracking column: optional INT64 named `name`, the
 * same whatever the input files hold (files may lack it). */
static int add_row_tracking_field(pipe_schema *o, const char *name, int which)
{
	pipe_field *f = &o->fields[o->num_fields++];
	pq_schema_node *nd;
	f->phys = name;
	f->field_id = -1;
	f->row_tracking = which;
	f->present = 1;
	f->optional = 1;
	f->node_count = 1;
	f->node_begin = o->num_nodes;
	LOOM_TRY(reserve_nodes(o, 1));
	nd = &o->nodes[o->num_nodes++];
	memset(nd, 0, sizeof(*nd));
	nd->name = name;
	nd->type = PQ_INT64;
	nd->has_repetition = 1;
	nd->repetition = PQ_OPTIONAL;
	nd->converted_type = PQ_CT_NONE;
	return 0;
}

int pipe_schema_init(pipe_schema *o, const delta_snapshot *snap)
{
	const delta_type *root = &snap->schema.root;
	int cm = delta_snapshot_column_mapping(snap);
	delta_row_tracking rt;
	size_t i;

	memset(o, 0, sizeof(*o));
	o->rt_leaf[0] = o->rt_leaf[1] = (size_t)-1;
	loom_arena_init(&o->arena, 0);
	LOOM_TRY(delta_row_tracking_get(snap, &rt));
	o->widening = delta_protocol_has_feature(&snap->protocol, "typeWidening") ||
	              delta_protocol_has_feature(&snap->protocol, "typeWidening-preview");
	o->column_mapping = cm;
	o->fields = loom_calloc(root->num_fields + 2, sizeof(pipe_field));
	if (!o->fields)
		return OPS_ERR(LOOM_ENOMEM, "out of memory");
	for (i = 0; i < root->num_fields; i++) {
		const delta_field *f = &root->fields[i];
		pipe_field *of;
		if (is_partition_column(snap, f->name))
			continue;
		of = &o->fields[o->num_fields++];
		of->phys = delta_field_physical_name(f, cm != 0);
		of->field_id = cm == 1 ? f->column_mapping_id : -1;
		of->dtype = f->type;
	}
	if (rt.preserve) {
		LOOM_TRY(add_row_tracking_field(o, rt.id_column, PIPE_RT_ROW_ID));
		LOOM_TRY(add_row_tracking_field(o, rt.version_column, PIPE_RT_COMMIT_VERSION));
	}
	return 0;
}

/* A file's materialized row tracking column must be a flat INT64 leaf. */
static int check_row_tracking_column(const pq_schema *s, long top, const pipe_field *f,
                                     const char *file)
{
	const pq_schema_node *nd = &s->nodes[top];
	if (nd->is_group || nd->type != PQ_INT64 ||
	    (nd->has_repetition && nd->repetition == PQ_REPEATED))
		return OPS_ERR(LOOM_EUNSUPPORTED,
		               "%s: the materialized row tracking column '%s' is not a 64-bit integer",
		               file, f->phys);
	return 0;
}

/* Two leaves of one column that type widening explains: same name and
 * repetition, both of a numeric class (checked against the table's type
 * when the file is mapped). */
static int widened_leaf(const pipe_schema *o, const pq_schema_node *a, const pq_schema_node *b)
{
	pipe_num na, nb;
	if (!o->widening || a->is_group || b->is_group || strcmp(a->name, b->name) != 0 ||
	    a->has_repetition != b->has_repetition || a->repetition != b->repetition)
		return 0;
	na = pipe_num_of_node(a);
	nb = pipe_num_of_node(b);
	return na.kind != PIPE_NUM_OTHER && nb.kind != PIPE_NUM_OTHER;
}

/* The field of struct t stored under Parquet name `name`. */
static const delta_field *struct_field(const delta_type *t, const char *name, int cm)
{
	size_t i;
	for (i = 0; i < t->num_fields; i++)
		if (strcmp(delta_field_physical_name(&t->fields[i], cm != 0), name) == 0)
			return &t->fields[i];
	return NULL;
}

/* Walk the output subtree at nodes[*i] beside the table's type t (NULL:
 * unknown) and give each leaf whose stored type is not t's the Parquet
 * type of t. Structs by physical name, lists (3-level, or 2-level with a
 * repeated element), maps (key_value group). */
static void widen_subtree(pipe_schema *o, size_t *i, const delta_type *t)
{
	pq_schema_node *n = &o->nodes[(*i)++];
	int32_t k, kids = n->num_children;
	if (!n->is_group) {
		pq_schema_node w;
		pipe_num have, want;
		if (!t || !pipe_widen_node(t, n, &w))
			return;
		have = pipe_num_of_node(n);
		want = pipe_num_of_node(&w);
		if (have.kind != PIPE_NUM_OTHER && !pipe_num_same(&have, &want))
			*n = w;
		return;
	}
	if (t && t->kind == DELTA_T_STRUCT) {
		for (k = 0; k < kids; k++) {
			const delta_field *f = struct_field(t, o->nodes[*i].name, o->column_mapping);
			widen_subtree(o, i, f ? f->type : NULL);
		}
		return;
	}
	if (t && t->kind == DELTA_T_ARRAY && kids == 1) {
		const pq_schema_node *rep = &o->nodes[*i];
		if (rep->is_group && rep->num_children == 1 && t->element &&
		    (t->element->kind != DELTA_T_STRUCT || o->nodes[*i + 1].is_group)) {
			(*i)++; /* the repeated "list" group around the element */
		}
		widen_subtree(o, i, t->element);
		return;
	}
	if (t && t->kind == DELTA_T_MAP && kids == 1 && o->nodes[*i].is_group &&
	    o->nodes[*i].num_children == 2) {
		(*i)++; /* key_value */
		widen_subtree(o, i, t->key);
		widen_subtree(o, i, t->value);
		return;
	}
	for (k = 0; k < kids; k++)
		widen_subtree(o, i, NULL);
}

/* Take the subtrees of the fields file `s` has that no earlier file had,
 * and check the others match. */
int pipe_schema_merge(pipe_schema *o, const pq_schema *s, const char *file)
{
	size_t i, j;
	if (!o->root_name)
		o->root_name = loom_arena_strdup(&o->arena, s->nodes[0].name ? s->nodes[0].name : "schema");
	for (i = 0; i < o->num_fields; i++) {
		pipe_field *f = &o->fields[i];
		long top = find_top(s, f);
		size_t end;
		if (top < 0) {
			f->missing = 1;
			continue;
		}
		if (f->row_tracking) {
			LOOM_TRY(check_row_tracking_column(s, top, f, file));
			continue;
		}
		end = subtree_end(s->nodes, s->num_nodes, (size_t)top);
		if (!f->present) {
			size_t cnt = end - (size_t)top;
			f->present = 1;
			f->node_count = cnt;
			f->optional = !(s->nodes[top].has_repetition && s->nodes[top].repetition == PQ_REQUIRED);
			f->node_begin = o->num_nodes; /* provisional: renumbered in finish */
			LOOM_TRY(reserve_nodes(o, cnt));
			for (j = 0; j < cnt; j++) {
				pq_schema_node nd = s->nodes[top + (long)j];
				nd.name = loom_arena_strdup(&o->arena, nd.name ? nd.name : "");
				if (!nd.name)
					return OPS_ERR(LOOM_ENOMEM, "out of memory");
				o->nodes[o->num_nodes++] = nd;
			}
			continue;
		}
		if (end - (size_t)top != f->node_count)
			goto differs;
		for (j = 0; j < f->node_count; j++) {
			pq_schema_node a = o->nodes[f->node_begin + j];
			if (j == 0) {
				/* required in one file, optional in another: written optional */
				if (!(s->nodes[top].has_repetition && s->nodes[top].repetition == PQ_REQUIRED))
					f->optional = 1;
				a.repetition = s->nodes[top].repetition;
			}
			if (!node_equal(&a, &s->nodes[top + (long)j]) &&
			    !widened_leaf(o, &a, &s->nodes[top + (long)j]))
				goto differs;
		}
		continue;
	differs:
		return OPS_ERR(LOOM_EUNSUPPORTED,
		               "%s: column '%s' has a different Parquet type or layout than in other files "
		               "of the table (type widening or nested schema evolution): rewriting it is "
		               "not supported", file, f->phys);
	}
	return 0;
}

/* Lay the present fields out in table order after a root node. */
int pipe_schema_finish(pipe_schema *o)
{
	size_t total = 1, i, pos = 1;
	pq_schema_node *nodes;
	for (i = 0; i < o->num_fields; i++)
		if (o->fields[i].present)
			total += o->fields[i].node_count;
	nodes = loom_calloc(total, sizeof(*nodes));
	if (!nodes)
		return OPS_ERR(LOOM_ENOMEM, "out of memory");
	nodes[0].name = o->root_name;
	nodes[0].is_group = 1;
	nodes[0].converted_type = PQ_CT_NONE;
	for (i = 0; i < o->num_fields; i++) {
		pipe_field *f = &o->fields[i];
		if (!f->present)
			continue;
		memcpy(&nodes[pos], &o->nodes[f->node_begin], f->node_count * sizeof(*nodes));
		if (f->missing)
			f->optional = 1; /* a column added later: nulls in older files */
		if (f->optional) {
			nodes[pos].has_repetition = 1;
			nodes[pos].repetition = PQ_OPTIONAL;
		}
		f->node_begin = pos;
		pos += f->node_count;
		nodes[0].num_children++;
	}
	loom_free(o->nodes);
	o->nodes = nodes;
	o->num_nodes = total;
	o->cap = total;
	for (i = 0; o->widening && i < o->num_fields; i++) {
		size_t at = o->fields[i].node_begin;
		if (o->fields[i].present && !o->fields[i].row_tracking)
			widen_subtree(o, &at, o->fields[i].dtype);
	}
	LOOM_TRY(pq_schema_build(&o->schema, o->nodes, o->num_nodes, "rewrite output schema"));
	o->leaf_num = loom_calloc(o->schema->num_leaves + 1, sizeof(pipe_num));
	if (!o->leaf_num)
		return OPS_ERR(LOOM_ENOMEM, "out of memory");
	for (i = 0; i < o->schema->num_leaves; i++)
		o->leaf_num[i] = pipe_num_of_leaf(&o->schema->leaves[i]);
	for (i = 0; i < o->num_fields; i++) {
		pipe_field *f = &o->fields[i];
		if (!f->present)
			continue;
		f->leaf_begin = (size_t)o->schema->first_leaf[f->node_begin];
		f->num_leaves = (size_t)o->schema->num_leaves_under[f->node_begin];
		if (f->row_tracking)
			o->rt_leaf[f->row_tracking - 1] = f->leaf_begin;
		else
			o->data_leaves = f->leaf_begin + f->num_leaves;
	}
	return 0;
}

static int grow_map(pipe_leaf_map *m, size_t nout)
{
	if (m->present && m->nout == nout)
		return 0;
	pipe_leaf_map_dispose(m);
	m->nout = nout;
	m->present = loom_calloc(nout + 1, sizeof(size_t));
	m->map = loom_calloc(nout + 1, sizeof(long));
	m->shift = loom_calloc(nout + 1, 1);
	m->outs = loom_calloc(nout + 1, sizeof(size_t));
	m->conv = loom_calloc(nout + 1, 1);
	m->from = loom_calloc(nout + 1, sizeof(pipe_num));
	if (!m->present || !m->map || !m->shift || !m->outs || !m->conv || !m->from)
		return OPS_ERR(LOOM_ENOMEM, "out of memory");
	return 0;
}

/* File leaf fl feeding output leaf ol: convert when stored narrower;
 * refuse a stored type the output's cannot widen from. */
static int map_widening(const pipe_schema *o, const pq_schema *s, const pipe_field *of, size_t fl,
                        size_t ol, pipe_leaf_map *m)
{
	pipe_num have = pipe_num_of_leaf(&s->leaves[fl]);
	const pipe_num *want = &o->leaf_num[ol];
	char a[64], b[64];
	if (have.kind == PIPE_NUM_OTHER || want->kind == PIPE_NUM_OTHER || pipe_num_same(&have, want))
		return 0;
	if (!pipe_widen_allowed(&have, want)) {
		pipe_num_describe(&have, a, sizeof(a));
		pipe_num_describe(want, b, sizeof(b));
		return OPS_ERR(LOOM_EUNSUPPORTED,
		               "column '%s' (%s): stored as %s, the table's type is %s, which is not a type "
		               "change PROTOCOL.md allows (Type Widening)", of->phys, o->schema->leaves[ol].path, a, b);
	}
	m->conv[ol] = 1;
	m->from[ol] = have;
	m->nconv++;
	return 0;
}

int pipe_schema_map_file(const pipe_schema *o, const pq_schema *s, const uint8_t *mask,
                         pipe_leaf_map *m)
{
	size_t i, nout = o->schema->num_leaves;
	LOOM_TRY(grow_map(m, nout));
	m->nouts = 0;
	m->npresent = 0;
	m->nconv = 0;
	for (i = 0; i < nout; i++) {
		m->map[i] = -1;
		m->shift[i] = 0;
		m->conv[i] = 0;
		if (!mask || mask[i])
			m->outs[m->nouts++] = i;
	}
	for (i = 0; i < o->num_fields; i++) {
		const pipe_field *of = &o->fields[i];
		long top;
		size_t j;
		if (!of->present)
			continue;
		top = find_top(s, of);
		if (top < 0)
			continue;
		for (j = 0; j < of->num_leaves; j++) {
			if (mask && !mask[of->leaf_begin + j])
				continue;
			m->shift[of->leaf_begin + j] =
			    s->nodes[top].has_repetition && s->nodes[top].repetition == PQ_REQUIRED && of->optional;
			m->map[of->leaf_begin + j] = (long)m->npresent;
			m->present[m->npresent++] = (size_t)s->first_leaf[top] + j;
			if (o->widening)
				LOOM_TRY(map_widening(o, s, of, (size_t)s->first_leaf[top] + j, of->leaf_begin + j, m));
		}
	}
	return 0;
}

int pipe_leaf_map_same(const pipe_leaf_map *a, const pipe_leaf_map *b)
{
	return a->present && b->present && a->nout == b->nout && a->npresent == b->npresent &&
	       memcmp(a->present, b->present, a->npresent * sizeof(size_t)) == 0 &&
	       memcmp(a->map, b->map, a->nout * sizeof(long)) == 0 &&
	       memcmp(a->conv, b->conv, a->nout) == 0;
}

int pipe_leaf_map_copy(pipe_leaf_map *dst, const pipe_leaf_map *src)
{
	LOOM_TRY(grow_map(dst, src->nout));
	memcpy(dst->present, src->present, src->npresent * sizeof(size_t));
	memcpy(dst->map, src->map, src->nout * sizeof(long));
	memcpy(dst->shift, src->shift, src->nout);
	memcpy(dst->outs, src->outs, src->nouts * sizeof(size_t));
	memcpy(dst->conv, src->conv, src->nout);
	memcpy(dst->from, src->from, src->nout * sizeof(pipe_num));
	dst->nconv = src->nconv;
	dst->npresent = src->npresent;
	dst->nouts = src->nouts;
	return 0;
}

void pipe_leaf_map_dispose(pipe_leaf_map *m)
{
	loom_free(m->present);
	loom_free(m->map);
	loom_free(m->shift);
	loom_free(m->outs);
	loom_free(m->conv);
	loom_free(m->from);
	memset(m, 0, sizeof(*m));
}
