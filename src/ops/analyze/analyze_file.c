/* ops/analyze/analyze_file.c - the statistics of one data file: from the
 * Parquet footer where its statistics are exact, else from a scan of the
 * column (analyze.h). */
#include <math.h>
#include <string.h>

#include "ops/analyze/analyze.h"
#include "parquet/batch.h"
#include "parquet/stats.h"
#include "util/alloc.h"
#include "util/buf.h"
#include "util/error.h"

#define OPS_ERR(code, ...) loom_err((code), LOOM_ERRCLASS_OPS, __VA_ARGS__)

/* Rows decoded at a time while scanning: bounds memory for any row group. */
#define SCAN_SLICE_ROWS 65536

int analyze_file_open(analyze_file *af, loom_store *store, const delta_snapshot *snap, const delta_file *f)
{
	const char *key;
	const pq_schema *s;
	memset(af, 0, sizeof(*af));
	af->f = f;
	if (loom_store_key_of(&key, store, f->path) < 0)
		return loom_err_wrap("%s", f->path);
	LOOM_TRY(pq_reader_open_sized(&af->r, store, key, f->size > 0 ? (uint64_t)f->size : 0));
	s = pq_reader_schema(af->r);
	LOOM_TRY(pipe_schema_init(&af->ps, snap));
	af->have_schema = 1;
	LOOM_TRY(pipe_schema_merge(&af->ps, s, f->path));
	LOOM_TRY(pipe_schema_finish(&af->ps));
	return pipe_schema_map_file(&af->ps, s, NULL, &af->map);
}

void analyze_file_close(analyze_file *af)
{
	pq_reader_free(af->r);
	if (af->have_schema)
		pipe_schema_dispose(&af->ps);
	pipe_leaf_map_dispose(&af->map);
	memset(af, 0, sizeof(*af));
}

/* What one output leaf needs, and what the footer or the scan found. */
typedef struct leaf_work {
	size_t file_leaf;
	int want_minmax;     /* Delta keeps min/max for the leaf's type */
	int scan;            /* the footer was not exact: read the column */
	int64_t nulls;
	pq_value_range footer;     /* footer values (borrowed); min NULL: none */
	pq_stats st;         /* the scan's */
} leaf_work;

static int is_nan(pq_cmp_kind k, const uint8_t *v, size_t len)
{
	if (k == PQ_CMP_FLOAT && len == 4) {
		float x;
		memcpy(&x, v, 4);
		return isnan(x);
	}
	if (k == PQ_CMP_DOUBLE && len == 8) {
		double x;
		memcpy(&x, v, 8);
		return isnan(x);
	}
	return 0;
}

/* A footer value is taken only when it is the column's exact min or max in
 * the column's order: min_value/max_value (the deprecated min/max only for
 * signed integers, whose order they always had), not flagged inexact, of
 * the physical width, no NaN; strings and binary only when the writer says
 * they are not truncated (many cut them at 64 bytes or so, unflagged). */
static int footer_value_ok(const pq_leaf *lf, pq_cmp_kind k, const pq_statistics *sts, pq_value_range *v)
{
	size_t width = pq_value_width(lf->type, lf->type_length);
	pq_stats_min_max(sts, k == PQ_CMP_I32 || k == PQ_CMP_I64, v);
	if (!v->min || !v->max)
		return 0;
	if ((sts->has_is_min_value_exact && !sts->is_min_value_exact) ||
	    (sts->has_is_max_value_exact && !sts->is_max_value_exact))
		return 0;
	if (width && (v->min_len != width || v->max_len != width))
		return 0;
	if (!width && !(sts->has_is_max_value_exact && sts->is_max_value_exact))
		return 0;
	return !is_nan(k, v->min, v->min_len) && !is_nan(k, v->max, v->max_len);
}

/* The footer's statistics of one leaf over every row group, or w->scan. */
static void from_footer(leaf_work *w, const pq_file_meta *m, const pq_leaf *lf, pq_cmp_kind k)
{
	size_t g;
	w->nulls = 0;
	for (g = 0; g < m->num_row_groups && !w->scan; g++) {
		const pq_column_meta *cm;
		const pq_statistics *sts;
		pq_value_range v;
		if (m->row_groups[g].num_rows == 0)
			continue;
		if (!(cm = pq_chunk_stats(&m->row_groups[g], w->file_leaf))) {
			w->scan = 1;
			break;
		}
		sts = &cm->statistics;
		if (!sts->has_null_count) {
			w->scan = 1;
			break;
		}
		w->nulls += sts->null_count;
		if (!w->want_minmax || sts->null_count == cm->num_values)
			continue; /* an all-null chunk has no min/max and needs none */
		if (!footer_value_ok(lf, k, sts, &v)) {
			w->scan = 1;
			break;
		}
		pq_value_range_widen(&w->footer, k, &v);
	}
}

/* Read the leaves the footer could not answer, a slice of rows at a time,
 * into each one's null count and pq_stats. */
static int scan(analyze_file *af, leaf_work *work, size_t n)
{
	const pq_file_meta *m = pq_reader_meta(af->r);
	size_t *leaves = loom_calloc(n + 1, sizeof(*leaves)), *which = loom_calloc(n + 1, sizeof(*which));
	size_t nscan = 0, i, g;
	pq_batch b;
	int rc = 0;
	memset(&b, 0, sizeof(b));
	if (!leaves || !which) {
		rc = OPS_ERR(LOOM_ENOMEM, "out of memory");
		goto done;
	}
	for (i = 0; i < n; i++)
		if (work[i].scan) {
			leaves[nscan] = work[i].file_leaf;
			which[nscan++] = i;
			work[i].nulls = 0;
		}
	for (g = 0; g < m->num_row_groups && nscan && rc == 0; g++) {
		if (m->row_groups[g].num_rows == 0)
			continue;
		if ((rc = pq_reader_slices_begin(af->r, g, leaves, nscan, SCAN_SLICE_ROWS)) < 0)
			break;
		while ((rc = pq_reader_slices_next(af->r, &b)) == 0 && b.num_rows > 0) {
			for (i = 0; i < nscan && rc == 0; i++) {
				const pq_column *c = &b.columns[i];
				leaf_work *w = &work[which[i]];
				w->nulls += (int64_t)(c->num_levels - c->num_values);
				if (!w->want_minmax || c->num_values == 0)
					continue;
				if (c->type == PQ_BYTE_ARRAY)
					rc = pq_stats_add_bytes(&w->st, c->offsets, c->data, 0, c->num_values);
				else
					rc = pq_stats_add_fixed(&w->st, c->values, c->num_values);
			}
		}
	}
	if (rc < 0)
		loom_err_wrap("scanning %s", af->f->path);
done:
	pq_batch_free(&b);
	loom_free(leaves);
	loom_free(which);
	return rc;
}

int analyze_file_stats(analyze_file *af, const delta_stats_opts *so, char **out, int *scanned)
{
	const pq_file_meta *m = pq_reader_meta(af->r);
	const pq_schema *fs = pq_reader_schema(af->r);
	size_t n = af->ps.data_leaves, i;
	delta_stats_leaf *leaves = loom_calloc(n + 1, sizeof(*leaves));
	leaf_work *work = loom_calloc(n + 1, sizeof(*work));
	delta_stats_opts o = *so;
	loom_buf text = LOOM_BUF_INIT;
	int rc = 0, any_scan = 0;

	*out = NULL;
	*scanned = 0;
	if (!leaves || !work) {
		rc = OPS_ERR(LOOM_ENOMEM, "out of memory");
		goto done;
	}
	for (i = 0; i < n; i++) {
		delta_stats_leaf *dl = &leaves[i];
		leaf_work *w = &work[i];
		pq_cmp_kind k;
		delta_stats_leaf_from_schema(dl, af->ps.schema, i);
		k = pq_cmp_kind_of(dl->node);
		pq_stats_init(&w->st, k, pq_value_width(af->ps.schema->leaves[i].type,
		                                        af->ps.schema->leaves[i].type_length));
		dl->null_count = -1;
		if (dl->complex)
			continue; /* a list/map slot: Delta keeps nothing for it */
		if (af->map.map[i] < 0) {
			dl->null_count = m->num_rows; /* the file lacks the column */
			continue;
		}
		w->file_leaf = af->map.present[af->map.map[i]];
		/* a leaf stored narrower than the table's type (type widening):
		 * its values are in another width, so only its null count */
		w->want_minmax = k != PQ_CMP_NONE && !(af->map.conv && af->map.conv[i]);
		from_footer(w, m, &fs->leaves[w->file_leaf], k);
		any_scan |= w->scan;
	}
	if (any_scan && (rc = scan(af, work, n)) < 0)
		goto done;
	for (i = 0; i < n; i++) {
		delta_stats_leaf *dl = &leaves[i];
		leaf_work *w = &work[i];
		if (dl->complex || af->map.map[i] < 0)
			continue;
		dl->null_count = w->nulls;
		if (w->scan && w->st.has_minmax) {
			dl->has_min_max = 1;
			dl->min = (const uint8_t *)w->st.min.ptr;
			dl->min_len = w->st.min.size;
			dl->max = (const uint8_t *)w->st.max.ptr;
			dl->max_len = w->st.max.size;
		} else if (!w->scan && w->footer.min) {
			dl->has_min_max = 1;
			dl->min = w->footer.min;
			dl->min_len = w->footer.min_len;
			dl->max = w->footer.max;
			dl->max_len = w->footer.max_len;
		}
		dl->max_exact = 1;
	}
	/* the bounds cover every stored row, the DV-deleted ones too */
	if (af->f->dv.storage_type)
		o.tight_bounds = -1;
	if ((rc = delta_stats_json(&text, m->num_rows, leaves, n, &o)) < 0)
		goto done;
	*out = loom_buf_detach(&text);
	if (!*out)
		rc = OPS_ERR(LOOM_ENOMEM, "out of memory");
	*scanned = any_scan;
done:
	for (i = 0; work && i < n; i++)
		pq_stats_dispose(&work[i].st);
	loom_buf_dispose(&text);
	loom_free(leaves);
	loom_free(work);
	return rc;
}
