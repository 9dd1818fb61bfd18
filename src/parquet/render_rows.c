/* parquet/render_rows.c - rows as JSON objects: nested values are
 * reassembled from the definition/repetition levels of the leaves. */
#include "parquet/render.h"

#include <string.h>

#include "loom/parquet.h"
#include "util/alloc.h"
#include "util/error.h"
#include "util/versioned.h"

typedef struct cursor {
	size_t slot, val;
} cursor;

typedef struct rowctx {
	const pq_schema *s;
	const pq_batch *b;
	const long *leaf2col;    /* schema leaf -> batch column, -1 if not read */
	cursor *cur;             /* per batch column */
	pq_value_fmt *fmt;       /* per batch column */
	loom_buf *out;
	const char *name;        /* file, for errors */
} rowctx;

static int bad_levels(rowctx *x)
{
	return loom_err(LOOM_ECORRUPT, LOOM_ERRCLASS_PARQUET,
	                "%s: definition/repetition levels of the columns do not agree", x->name);
}

static long col_of(rowctx *x, int32_t node)
{
	return x->leaf2col[x->s->first_leaf[node]];
}

static int get_def(rowctx *x, long col, int16_t *d)
{
	const pq_column *c = &x->b->columns[col];
	if (x->cur[col].slot >= c->num_levels)
		return bad_levels(x);
	*d = c->def_levels ? c->def_levels[x->cur[col].slot] : c->max_def;
	return 0;
}

/* Does the next slot of `col` continue repetition level `rep`? */
static int continues(rowctx *x, long col, int16_t rep)
{
	const pq_column *c = &x->b->columns[col];
	size_t s = x->cur[col].slot;
	return s < c->num_levels && c->rep_levels && c->rep_levels[s] == rep;
}

/* Every leaf under `node` has one slot here that holds no value. */
static int skip_slot(rowctx *x, int32_t node)
{
	int32_t i, f = x->s->first_leaf[node], n = x->s->num_leaves_under[node];
	for (i = f; i < f + n; i++) {
		long col = x->leaf2col[i];
		const pq_column *c = &x->b->columns[col];
		cursor *k = &x->cur[col];
		if (k->slot >= c->num_levels)
			return bad_levels(x);
		if (!c->def_levels || c->def_levels[k->slot] == c->max_def)
			return bad_levels(x);
		k->slot++;
	}
	return 0;
}

static int render_field(rowctx *x, int32_t node, int depth);

static int render_leaf_value(rowctx *x, int32_t node)
{
	long col = col_of(x, node);
	const pq_column *c = &x->b->columns[col];
	cursor *k = &x->cur[col];
	const uint8_t *v;
	size_t len;
	int16_t d = 0; /* get_def sets it on success */

	LOOM_TRY(get_def(x, col, &d));
	if (d != c->max_def)
		return bad_levels(x);
	if (k->val >= c->num_values)
		return bad_levels(x);
	if (c->type == PQ_BYTE_ARRAY) {
		v = c->data + c->offsets[k->val];
		len = c->offsets[k->val + 1] - c->offsets[k->val];
	} else {
		len = pq_value_width(c->type, c->type_length);
		v = c->values + k->val * len;
	}
	k->slot++;
	k->val++;
	return pq_render_value(x->out, &x->fmt[col], v, len);
}

/* Elements of a repeated node `rep` until its repetition ends; `elem`
 * renders one element. */
static int render_repeated(rowctx *x, int32_t rep, int depth,
                           int (*elem)(rowctx *, int32_t, int32_t, int), int32_t owner)
{
	long col = col_of(x, rep);
	int16_t d = 0, r = x->s->rep_level[rep];
	int first = 1;

	LOOM_TRY(get_def(x, col, &d));
	if (d < x->s->def_level[rep]) {
		LOOM_TRY(skip_slot(x, rep));
		return loom_buf_puts(x->out, "[]");
	}
	LOOM_TRY(loom_buf_putc(x->out, '['));
	do {
		if (!first)
			LOOM_TRY(loom_buf_putc(x->out, ','));
		first = 0;
		LOOM_TRY(elem(x, owner, rep, depth));
	} while (continues(x, col, r));
	return loom_buf_putc(x->out, ']');
}

static int render_struct(rowctx *x, int32_t node, int depth)
{
	const pq_schema *s = x->s;
	int32_t i, nc = s->nodes[node].num_children;
	LOOM_TRY(loom_buf_putc(x->out, '{'));
	for (i = 0; i < nc; i++) {
		int32_t ch = s->children[s->child_begin[node] + i];
		if (i)
			LOOM_TRY(loom_buf_putc(x->out, ','));
		LOOM_TRY(loom_buf_put_json_string(x->out, s->nodes[ch].name, strlen(s->nodes[ch].name)));
		LOOM_TRY(loom_buf_putc(x->out, ':'));
		LOOM_TRY(render_field(x, ch, depth + 1));
	}
	return loom_buf_putc(x->out, '}');
}

/* The content of a present node (not its null/repetition wrapper). */
static int render_instance(rowctx *x, int32_t node, int depth);

static int list_elem(rowctx *x, int32_t owner, int32_t rep, int depth)
{
	const pq_schema *s = x->s;
	if (s->list_element_is_repeated[owner])
		return render_instance(x, rep, depth + 1);
	return render_field(x, s->children[s->child_begin[rep]], depth + 1);
}

static int map_elem(rowctx *x, int32_t owner, int32_t rep, int depth)
{
	const pq_schema *s = x->s;
	(void)owner;
	LOOM_TRY(loom_buf_puts(x->out, "{\"key\":"));
	LOOM_TRY(render_field(x, s->children[s->child_begin[rep]], depth + 1));
	LOOM_TRY(loom_buf_puts(x->out, ",\"value\":"));
	if (s->nodes[rep].num_children > 1)
		LOOM_TRY(render_field(x, s->children[s->child_begin[rep] + 1], depth + 1));
	else
		LOOM_TRY(loom_buf_puts(x->out, "null"));
	return loom_buf_putc(x->out, '}');
}

static int plain_elem(rowctx *x, int32_t owner, int32_t rep, int depth)
{
	(void)owner;
	return render_instance(x, rep, depth + 1);
}

static int render_instance(rowctx *x, int32_t node, int depth)
{
	const pq_schema *s = x->s;
	if (depth > PQ_SCHEMA_MAX_DEPTH * 2)
		return bad_levels(x);
	if (!s->nodes[node].is_group)
		return render_leaf_value(x, node);
	if (s->nest[node] == PQ_NEST_LIST)
		return render_repeated(x, s->list_repeated[node], depth, list_elem, node);
	if (s->nest[node] == PQ_NEST_MAP)
		return render_repeated(x, s->list_repeated[node], depth, map_elem, node);
	return render_struct(x, node, depth);
}

static int render_field(rowctx *x, int32_t node, int depth)
{
	const pq_schema_node *n = &x->s->nodes[node];
	int16_t d = 0; /* get_def sets it on success */
	if (n->has_repetition && n->repetition == PQ_REPEATED)
		return render_repeated(x, node, depth, plain_elem, node);
	if (n->has_repetition && n->repetition == PQ_OPTIONAL) {
		LOOM_TRY(get_def(x, col_of(x, node), &d));
		if (d < x->s->def_level[node]) {
			LOOM_TRY(skip_slot(x, node));
			return loom_buf_puts(x->out, "null");
		}
	}
	return render_instance(x, node, depth);
}

/* Parse --columns into selected nodes (top-level fields or leaves). */
static int select_nodes(const pq_schema *s, const char *spec, const char *name, int32_t **sel, size_t *nsel)
{
	int32_t *v;
	size_t n = 0, cap = 8;
	const char *p = spec;
	int32_t root_nc = s->nodes[0].num_children;

	v = loom_malloc(cap * sizeof(int32_t));
	if (!v)
		return LOOM_ENOMEM;
	if (!spec) {
		int32_t i;
		loom_free(v);
		v = loom_malloc(((size_t)root_nc + 1) * sizeof(int32_t));
		if (!v)
			return LOOM_ENOMEM;
		for (i = 0; i < root_nc; i++)
			v[n++] = s->children[s->child_begin[0] + i];
		*sel = v;
		*nsel = n;
		return 0;
	}
	while (*p) {
		const char *e = strchr(p, ',');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		int32_t i, found = -1;
		char *want = loom_strndup(p, len);
		if (!want) {
			loom_free(v);
			return LOOM_ENOMEM;
		}
		for (i = 0; i < root_nc && found < 0; i++) {
			int32_t ch = s->children[s->child_begin[0] + i];
			if (strcmp(s->nodes[ch].name, want) == 0)
				found = ch;
		}
		if (found < 0) {
			long l = pq_schema_find_leaf(s, want);
			if (l >= 0)
				found = s->leaves[l].node;
		}
		if (found < 0) {
			int rc = loom_err(LOOM_ENOTFOUND, LOOM_ERRCLASS_PARQUET, "%s: no column named '%s'", name, want);
			loom_free(want);
			loom_free(v);
			return rc;
		}
		loom_free(want);
		if (n == cap) {
			int32_t *nv = loom_reallocarray(v, cap * 2, sizeof(int32_t));
			if (!nv) {
				loom_free(v);
				return LOOM_ENOMEM;
			}
			v = nv;
			cap *= 2;
		}
		v[n++] = found;
		p += len;
		if (*p == ',')
			p++;
	}
	*sel = v;
	*nsel = n;
	return 0;
}

static int field_key(const pq_schema *s, int32_t node, loom_buf *b)
{
	if (s->parent[node] == 0)
		return loom_buf_put_json_string(b, s->nodes[node].name, strlen(s->nodes[node].name));
	/* a leaf chosen by path: the dotted path is the key */
	{
		size_t i;
		for (i = 0; i < s->num_leaves; i++)
			if (s->leaves[i].node == node)
				return loom_buf_put_json_string(b, s->leaves[i].path, strlen(s->leaves[i].path));
	}
	return loom_buf_puts(b, "\"?\"");
}

/* The options' versions (util/versioned.h). */
LOOM_VERSIONS(cat_versions, loom_parquet_cat_opts, LOOM_PARQUET_CAT_OPTS_VERSION,
              LOOM_PARQUET_CAT_OPTS_INIT, sizeof(loom_parquet_cat_opts));

LOOM_VERSIONED_INIT_FN(parquet_cat_opts, cat_versions)

LOOM_EXTERN(int) loom_parquet_render_rows(loom_parquet_file *f, const loom_parquet_cat_opts *in,
                                          loom_parquet_line_cb cb, void *payload)
{
	loom_parquet_cat_opts o;
	const pq_schema *s = pq_reader_schema(f->r);
	const pq_file_meta *m = pq_reader_meta(f->r);
	int32_t *sel = NULL;
	size_t nsel = 0, i, g, nleaves = 0;
	long *leaf2col = NULL;
	size_t *leaves = NULL;
	cursor *cur = NULL;
	pq_value_fmt *fmt = NULL;
	pq_batch b;
	loom_buf line = LOOM_BUF_INIT;
	long long limit, done = 0;
	int rc;

	LOOM_TRY(loom_versioned_read(&cat_versions, &o, in));
	limit = o.limit;
	memset(&b, 0, sizeof(b));
	rc = select_nodes(s, o.columns, pq_reader_key(f->r), &sel, &nsel);
	if (rc == LOOM_ENOMEM)
		rc = loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_PARQUET, "out of memory selecting columns");
	if (rc < 0)
		return rc;
	leaf2col = loom_malloc((s->num_leaves + 1) * sizeof(long));
	leaves = loom_malloc((s->num_leaves + 1) * sizeof(size_t));
	cur = loom_calloc(s->num_leaves + 1, sizeof(cursor));
	fmt = loom_calloc(s->num_leaves + 1, sizeof(pq_value_fmt));
	if (!leaf2col || !leaves || !cur || !fmt) {
		rc = loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_PARQUET, "out of memory rendering rows");
		goto out;
	}
	for (i = 0; i < s->num_leaves; i++)
		leaf2col[i] = -1;
	for (i = 0; i < nsel; i++) {
		int32_t l, f0 = s->first_leaf[sel[i]], n = s->num_leaves_under[sel[i]];
		for (l = f0; l < f0 + n; l++)
			if (leaf2col[l] < 0) {
				leaf2col[l] = (long)nleaves;
				leaves[nleaves] = (size_t)l;
				pq_value_fmt_of(&s->leaves[l], &fmt[nleaves]);
				nleaves++;
			}
	}
	/* keep leaves in file order for reading; leaf2col maps back */
	for (g = 0; g < m->num_row_groups && (limit < 0 || done < limit); g++) {
		rowctx x;
		size_t row;
		if (nleaves == 0)
			break;
		rc = pq_reader_read_row_group(f->r, g, leaves, nleaves, &b);
		if (rc < 0)
			goto out;
		memset(cur, 0, (s->num_leaves + 1) * sizeof(cursor));
		x.s = s;
		x.b = &b;
		x.leaf2col = leaf2col;
		x.cur = cur;
		x.fmt = fmt;
		x.out = &line;
		x.name = pq_reader_key(f->r);
		for (row = 0; row < b.num_rows && (limit < 0 || done < limit); row++, done++) {
			loom_buf_clear(&line);
			rc = loom_buf_putc(&line, '{');
			for (i = 0; i < nsel && rc == 0; i++) {
				if (i)
					rc = loom_buf_putc(&line, ',');
				if (rc == 0)
					rc = field_key(s, sel[i], &line);
				if (rc == 0)
					rc = loom_buf_putc(&line, ':');
				if (rc == 0)
					rc = render_field(&x, sel[i], 0);
			}
			if (rc == 0)
				rc = loom_buf_putc(&line, '}');
			/* every selected column must now stand at a row start */
			for (i = 0; i < nleaves && rc == 0; i++) {
				const pq_column *c = &b.columns[i];
				if (cur[i].slot < c->num_levels && c->rep_levels && c->rep_levels[cur[i].slot] != 0)
					rc = bad_levels(&x);
			}
			if (rc < 0)
				goto out;
			rc = cb(line.ptr, line.size, payload);
			if (rc != 0)
				goto out;
		}
	}
	rc = 0;
out:
	pq_batch_free(&b);
	loom_buf_dispose(&line);
	loom_free(sel);
	loom_free(leaf2col);
	loom_free(leaves);
	loom_free(cur);
	loom_free(fmt);
	return rc;
}
