/* ops/pipeline/pipe_read.c - the reader stage: files -> aligned, DV-filtered
 * column batches. */
#include "ops/pipeline/pipe_read.h"

#include <string.h>

#include "delta/dv.h"
#include "util/alloc.h"
#include "util/error.h"

#define OPS_ERR(code, ...) loom_err((code), LOOM_ERRCLASS_OPS, __VA_ARGS__)

static int load_footer(loom_store *store, const delta_file *f, pq_footer **out)
{
	const char *key;
	LOOM_TRY(pipe_file_key(store, f, &key));
	/* the log's size: the footer in one read on any store */
	if (pq_footer_load_sized(out, store, key, f->size >= 0 ? (uint64_t)f->size : UINT64_MAX) < 0)
		return loom_err_wrap("reading %s", f->path);
	return 0;
}

/* One footer fetched ahead on a pool thread. A failure leaves the slot
 * empty: the load in file order tries again and reports it there. */
typedef struct footer_task {
	loom_store *store;
	const delta_file *file;
	pq_footer **out;
} footer_task;

static void footer_task_run(void *arg)
{
	footer_task *t = arg;
	if (load_footer(t->store, t->file, t->out) < 0)
		*t->out = NULL;
}

/* Every footer at once on the pool: on an object store each is a request
 * whose time is mostly the round trip. */
static int fetch_footers(pipe_footers *fc, loom_store *store, const delta_file *const *files,
                         loom_threadpool *pool)
{
	footer_task *t = loom_calloc(fc->num, sizeof(*t));
	loom_taskgroup g;
	size_t i;
	if (!t)
		return OPS_ERR(LOOM_ENOMEM, "out of memory");
	loom_taskgroup_init(&g, pool);
	for (i = 0; i < fc->num; i++) {
		t[i] = (footer_task){ store, files[i], &fc->footers[i] };
		loom_taskgroup_run(&g, footer_task_run, &t[i]);
	}
	loom_taskgroup_wait(&g);
	loom_free(t);
	return 0;
}

int pipe_footers_load(pipe_footers *fc, loom_store *store, const delta_file *const *files, size_t n,
                      loom_threadpool *pool)
{
	size_t i, g;
	memset(fc, 0, sizeof(*fc));
	fc->footers = loom_calloc(n ? n : 1, sizeof(pq_footer *));
	if (!fc->footers)
		return OPS_ERR(LOOM_ENOMEM, "out of memory");
	fc->num = n;
	if (pool && n > 1 && (store->caps & LOOM_STORE_CAP_REQUEST_READS))
		LOOM_TRY(fetch_footers(fc, store, files, pool));
	for (i = 0; i < n; i++) {
		const pq_file_meta *m;
		if (!fc->footers[i])
			LOOM_TRY(load_footer(store, files[i], &fc->footers[i]));
		m = pq_footer_meta(fc->footers[i]);
		for (g = 0; g < m->num_row_groups; g++) {
			const pq_row_group *rg = &m->row_groups[g];
			fc->input_bytes += (uint64_t)(rg->total_byte_size > 0 ? rg->total_byte_size : 0);
			fc->input_rows += (uint64_t)(rg->num_rows > 0 ? rg->num_rows : 0);
		}
	}
	return 0;
}

int pipe_footers_merge_schemas(const pipe_footers *fc, const delta_file *const *files, pipe_schema *os)
{
	size_t i;
	for (i = 0; i < fc->num; i++)
		LOOM_TRY(pipe_schema_merge(os, pq_footer_schema(fc->footers[i]), files[i]->path));
	return 0;
}

void pipe_footers_dispose(pipe_footers *fc)
{
	size_t i;
	for (i = 0; fc->footers && i < fc->num; i++)
		pq_footer_free(fc->footers[i]);
	loom_free(fc->footers);
	memset(fc, 0, sizeof(*fc));
}

void pipe_reader_init(pipe_reader *rd, const pipe_settings *set, const pipe_schema *os,
                      const uint8_t *mask)
{
	memset(rd, 0, sizeof(*rd));
	rd->set = set;
	rd->os = os;
	rd->mask = mask;
}

void pipe_reader_dispose(pipe_reader *rd)
{
	size_t i;
	loom_free(rd->zeros);
	loom_free(rd->rt_values[0]);
	loom_free(rd->rt_values[1]);
	loom_free(rd->ones);
	pq_batch_free(&rd->in);
	loom_free(rd->view.columns);
	pq_batch_free(&rd->kept);
	for (i = 0; rd->defs && i < rd->lm.nout; i++)
		loom_free(rd->defs[i]);
	for (i = 0; rd->wide && i < rd->lm.nout; i++)
		loom_free(rd->wide[i]);
	loom_free(rd->wide);
	loom_free(rd->wide_cap);
	loom_free(rd->defs);
	loom_free(rd->defs_cap);
	pipe_leaf_map_dispose(&rd->lm);
	pipe_leaf_map_dispose(&rd->prev);
	pq_reader_free(rd->r);
	memset(rd, 0, sizeof(*rd));
}

/* Def levels + 1: a column required in the file, optional in the output. */
static int shifted_defs(pipe_reader *rd, size_t leaf, const pq_column *in, int16_t **out)
{
	size_t i, n = in->num_levels;
	if (n > rd->defs_cap[leaf]) {
		loom_free(rd->defs[leaf]);
		rd->defs[leaf] = loom_malloc((n ? n : 1) * sizeof(int16_t));
		if (!rd->defs[leaf]) {
			rd->defs_cap[leaf] = 0;
			return OPS_ERR(LOOM_ENOMEM, "out of memory");
		}
		rd->defs_cap[leaf] = n;
	}
	for (i = 0; i < n; i++)
		rd->defs[leaf][i] = (int16_t)((in->def_levels ? in->def_levels[i] : 0) + 1);
	*out = rd->defs[leaf];
	return 0;
}

static int ensure_zeros(pipe_reader *rd, size_t n)
{
	if (n <= rd->zeros_cap)
		return 0;
	loom_free(rd->zeros);
	rd->zeros = loom_calloc(n, sizeof(int16_t));
	if (!rd->zeros)
		return OPS_ERR(LOOM_ENOMEM, "out of memory");
	rd->zeros_cap = n;
	return 0;
}

/* Copy the rows of `src` the filter keeps (physical rows base..) to dst. */
static int drop_deleted(pq_batch *dst, const pq_batch *src, const delta_row_filter *dv,
                        uint64_t base, int64_t *deleted)
{
	size_t r = 0, start;
	pq_batch_clear(dst);
	while (r < src->num_rows) {
		while (r < src->num_rows && delta_row_filter_contains(dv, base + r)) {
			r++;
			(*deleted)++;
		}
		start = r;
		while (r < src->num_rows && !delta_row_filter_contains(dv, base + r))
			r++;
		if (r > start)
			LOOM_TRY(pq_batch_append_rows(dst, src, start, r));
	}
	return 0;
}

/* Map this file's leaves; keep the decoded batch's buffers (fresh memory
 * is expensive) unless the mapping differs from the last file's. */
static int prepare(pipe_reader *rd, const pq_schema *s)
{
	size_t nout = rd->os->schema->num_leaves;
	LOOM_TRY(pipe_schema_map_file(rd->os, s, rd->mask, &rd->lm));
	if (!rd->defs) {
		rd->defs = loom_calloc(nout + 1, sizeof(int16_t *));
		rd->defs_cap = loom_calloc(nout + 1, sizeof(size_t));
		rd->view.columns = loom_calloc(nout + 1, sizeof(pq_column));
		rd->wide = loom_calloc(nout + 1, sizeof(uint8_t *));
		rd->wide_cap = loom_calloc(nout + 1, sizeof(size_t));
		if (!rd->defs || !rd->defs_cap || !rd->view.columns || !rd->wide || !rd->wide_cap)
			return OPS_ERR(LOOM_ENOMEM, "out of memory");
		rd->view.borrowed = 1;
	}
	rd->view.num_columns = rd->lm.nouts;
	if (!pipe_leaf_map_same(&rd->lm, &rd->prev)) {
		pq_batch_free(&rd->in);
		memset(&rd->in, 0, sizeof(rd->in));
		LOOM_TRY(pipe_leaf_map_copy(&rd->prev, &rd->lm));
	}
	return 0;
}

static int grow_i16(int16_t **p, size_t *cap, size_t n, int16_t fill)
{
	size_t i;
	if (n <= *cap)
		return 0;
	loom_free(*p);
	*p = loom_malloc(n * sizeof(int16_t));
	if (!*p) {
		*cap = 0;
		return OPS_ERR(LOOM_ENOMEM, "out of memory");
	}
	for (i = 0; i < n; i++)
		(*p)[i] = fill;
	*cap = n;
	return 0;
}

/* Replace view column k (a materialized row tracking column as the file
 * has it, or nulls) by the stable values of rows base..base+rows: the
 * materialized value where not null, else the fresh one. */
static int fill_row_tracking(pipe_reader *rd, size_t k, int which, size_t rows, uint64_t base)
{
	pq_column *c = &rd->view.columns[k];
	const delta_file *f = rd->file;
	const int64_t *mat = (const int64_t *)(const void *)c->values;
	int64_t *out;
	size_t r, vi = 0;
	if (rows > rd->rt_cap[which]) {
		loom_free(rd->rt_values[which]);
		rd->rt_values[which] = loom_malloc(rows * sizeof(int64_t));
		rd->rt_cap[which] = rd->rt_values[which] ? rows : 0;
		if (!rd->rt_values[which])
			return OPS_ERR(LOOM_ENOMEM, "out of memory");
	}
	LOOM_TRY(grow_i16(&rd->ones, &rd->ones_cap, rows + 1, 1));
	out = rd->rt_values[which];
	for (r = 0; r < rows; r++) {
		int has = c->values && (!c->max_def || c->def_levels[r] == c->max_def);
		if (has)
			out[r] = mat[vi++];
		else if (which == 0)
			out[r] = f->base_row_id + (int64_t)(base + r);
		else
			out[r] = f->default_row_commit_version;
	}
	c->type = PQ_INT64;
	c->type_length = 0;
	c->max_def = 1;
	c->max_rep = 0;
	c->num_levels = rows;
	c->def_levels = rd->ones;
	c->rep_levels = NULL;
	c->num_values = rows;
	c->values = (uint8_t *)out;
	c->offsets = NULL;
	c->data = NULL;
	c->data_size = 0;
	return 0;
}

/* Point the view's columns at the decoded ones, nulls for absent ones;
 * row tracking columns get their stable values (rows base.. of the file). */
static int align(pipe_reader *rd, size_t rows, uint64_t base)
{
	const pipe_leaf_map *lm = &rd->lm;
	size_t k;
	LOOM_TRY(ensure_zeros(rd, rows + 2));
	for (k = 0; k < lm->nouts; k++) {
		pq_column *c = &rd->view.columns[k];
		size_t i = lm->outs[k];
		if (lm->map[i] >= 0) {
			*c = rd->in.columns[lm->map[i]];
			if (lm->shift[i]) {
				LOOM_TRY(shifted_defs(rd, i, c, &c->def_levels));
				c->max_def++;
			}
			if (lm->conv[i])
				LOOM_TRY(pipe_widen_column(c, &lm->from[i], &rd->os->leaf_num[i], &rd->wide[i],
				                           &rd->wide_cap[i]));
		} else {
			const pq_leaf *l = &rd->os->schema->leaves[i];
			memset(c, 0, sizeof(*c));
			c->type = l->type;
			c->type_length = l->type_length;
			c->max_def = l->max_def;
			c->max_rep = l->max_rep;
			c->num_levels = rows;
			c->def_levels = l->max_def ? rd->zeros : NULL;
			c->rep_levels = l->max_rep ? rd->zeros : NULL;
			if (l->type == PQ_BYTE_ARRAY)
				c->offsets = (uint32_t *)(void *)rd->zeros; /* one 0 offset */
		}
		if (i == rd->os->rt_leaf[0])
			LOOM_TRY(fill_row_tracking(rd, k, 0, rows, base));
		else if (i == rd->os->rt_leaf[1])
			LOOM_TRY(fill_row_tracking(rd, k, 1, rows, base));
	}
	rd->view.num_rows = rows;
	return 0;
}

/* The file's leaves are the output's, one for one. */
static int is_identity(const pipe_reader *rd, const pq_schema *s)
{
	const pipe_leaf_map *lm = &rd->lm;
	size_t i;
	if (rd->mask || s->num_leaves != lm->nout || lm->npresent != lm->nout || lm->nconv)
		return 0;
	for (i = 0; i < lm->nout; i++)
		if (lm->map[i] != (long)i || lm->present[i] != i || lm->shift[i])
			return 0;
	return 1;
}

/* Row group rg (of a file whose leaves are the output's) may be copied as
 * it is only when its materialized row tracking columns have no null
 * (chunk statistics): a null would need the fresh value filled in. */
static int rows_tracked(const pipe_reader *rd, const pq_row_group *rg)
{
	size_t w;
	for (w = 0; w < 2; w++) {
		size_t leaf = rd->os->rt_leaf[w];
		const pq_column_chunk *cc;
		if (leaf == (size_t)-1)
			continue;
		if (leaf >= rg->num_columns)
			return 0;
		cc = &rg->columns[leaf];
		if (!cc->has_meta_data || !cc->meta.has_statistics || !cc->meta.statistics.has_null_count ||
		    cc->meta.statistics.null_count != 0)
			return 0;
	}
	return 1;
}

/* Rows the reader's slices of row group g hold: all of them unless the
 * group's decoded size (estimated at twice its uncompressed pages, as
 * dictionaries expand) is above batch_bytes. */
static size_t slice_rows(const pipe_reader *rd, const pq_row_group *rg)
{
	double est = 2.0 * (double)(rg->total_byte_size > 0 ? rg->total_byte_size : 0), per_row;
	size_t rows;
	if (!rd->batch_bytes || rg->num_rows <= 0 || est <= (double)rd->batch_bytes)
		return 0;
	per_row = est / (double)rg->num_rows;
	rows = (size_t)((double)rd->batch_bytes / per_row);
	return rows < 1024 ? 1024 : rows;
}

/* Align, DV-filter and emit `rows` rows just decoded into rd->in (rows
 * base.. of the file). */
static int emit_rows(pipe_reader *rd, size_t rows, const delta_row_filter *dv, uint64_t *base,
                     pipe_emit_fn emit, void *arg, pipe_result *counts)
{
	const pq_batch *out = &rd->view;
	LOOM_TRY(align(rd, rows, *base));
	counts->rows_in += (int64_t)rows;
	if (dv) {
		if (rd->kept.num_columns != rd->lm.nouts) {
			pq_batch_free(&rd->kept);
			memset(&rd->kept, 0, sizeof(rd->kept));
			LOOM_TRY(pq_batch_init(&rd->kept, rd->lm.nouts));
		}
		LOOM_TRY(drop_deleted(&rd->kept, &rd->view, dv, *base, &counts->rows_deleted));
		out = &rd->kept;
	}
	*base += rows;
	return emit(arg, out);
}

/* Slices cut rows at level slots: only for files whose read leaves are
 * flat (a repeated leaf's row group is read whole). */
static int all_flat(const pq_schema *s, const size_t *leaves, size_t n)
{
	size_t i;
	for (i = 0; i < n; i++)
		if (s->leaves[leaves[i]].max_rep > 0)
			return 0;
	return 1;
}

/* Decode row group g whole, or slice by slice, and emit it. */
static int read_row_group(pipe_reader *rd, const delta_file *f, size_t g, const delta_row_filter *dv,
                          uint64_t *base, pipe_emit_fn emit, void *arg, pipe_result *counts)
{
	pq_reader *r = rd->r;
	const pq_row_group *rg = &pq_reader_meta(r)->row_groups[g];
	size_t per = slice_rows(rd, rg);
	if (!rd->lm.npresent) /* only absent columns: nulls, no reading */
		return emit_rows(rd, (size_t)rg->num_rows, dv, base, emit, arg, counts);
	if (!per || !all_flat(pq_reader_schema(r), rd->lm.present, rd->lm.npresent)) {
		if (pq_reader_read_row_group(r, g, rd->lm.present, rd->lm.npresent, &rd->in) < 0)
			return loom_err_wrap("reading %s row group %zu", f->path, g);
		return emit_rows(rd, rd->in.num_rows, dv, base, emit, arg, counts);
	}
	if (pq_reader_slices_begin(r, g, rd->lm.present, rd->lm.npresent, per) < 0)
		return loom_err_wrap("reading %s row group %zu", f->path, g);
	for (;;) {
		if (pq_reader_slices_next(r, &rd->in) < 0)
			return loom_err_wrap("reading %s row group %zu", f->path, g);
		if (rd->in.num_rows == 0)
			return 0;
		LOOM_TRY(emit_rows(rd, rd->in.num_rows, dv, base, emit, arg, counts));
		if (loom_cancel_requested(rd->set->cancel))
			return OPS_ERR(LOOM_ECANCELLED, "rewrite cancelled");
	}
}

int pipe_reader_file(pipe_reader *rd, const delta_file *f, const pq_footer *ft, pipe_emit_fn emit,
                     pipe_copy_fn copy, void *arg, pipe_result *counts)
{
	const pipe_settings *set = rd->set;
	pq_reader *r;
	delta_row_filter *dv = NULL;
	const pq_file_meta *m;
	uint64_t base = 0;
	size_t g;
	int rc;

	if (rd->r && pq_reader_meta(rd->r) == pq_footer_meta(ft))
		rc = 0; /* opened on this file already (read ahead: ops/pipeline/pipe_ahead.h) */
	else
		rc = rd->r ? pq_reader_reopen_footer(rd->r, ft) : pq_reader_open_footer(&rd->r, set->store, ft);
	if (rc < 0)
		return loom_err_wrap("reading %s", f->path);
	r = rd->r;
	m = pq_reader_meta(r);
	if (f->dv.storage_type && (rc = delta_dv_load(set->store, &f->dv, &dv)) < 0) {
		loom_err_wrap("deletion vector of %s", f->path);
		goto done;
	}
	rd->file = f;
	if (rd->os->rt_leaf[0] != (size_t)-1 && (f->base_row_id < 0 || f->default_row_commit_version < 0)) {
		rc = OPS_ERR(LOOM_EUNSUPPORTED,
		             "%s has no %s on a table with row tracking enabled (PROTOCOL.md, Row Tracking: "
		             "every file must have one): its rows' ids cannot be preserved",
		             f->path, f->base_row_id < 0 ? "baseRowId" : "defaultRowCommitVersion");
		goto done;
	}
	if ((rc = prepare(rd, pq_reader_schema(r))) < 0) {
		loom_err_wrap("%s", f->path);
		goto done;
	}
	if (dv || !is_identity(rd, pq_reader_schema(r)))
		copy = NULL;
	for (g = 0; g < m->num_row_groups; g++) {
		size_t rows = (size_t)m->row_groups[g].num_rows;
		if (loom_cancel_requested(set->cancel)) {
			rc = OPS_ERR(LOOM_ECANCELLED, "rewrite cancelled");
			goto done;
		}
		if (copy && rows_tracked(rd, &m->row_groups[g]) && (rc = copy(arg, r, g)) != 0) {
			if (rc < 0)
				goto done;
			rc = 0;
			counts->rows_in += (int64_t)rows;
			base += rows;
			continue;
		}
		if ((rc = read_row_group(rd, f, g, dv, &base, emit, arg, counts)) < 0)
			goto done;
	}
done:
	delta_row_filter_free(dv);
	return rc;
}
