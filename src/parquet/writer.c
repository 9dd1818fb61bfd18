/* parquet/writer.c - streaming Parquet writer: pages, chunks, row groups,
 * page indexes and the footer. */
#include "parquet/writer.h"

#include <string.h>

#include "codec/codec.h"
#include "parquet/encode.h"
#include "parquet/reader.h"
#include "parquet/thrift_write.h"
#include "util/alloc.h"
#include "util/error.h"
#include "util/vec.h"
#include "util/threadpool.h"

#define MAX_SCHEMA_DEPTH 64

typedef struct page_info {
	uint64_t offset;          /* in the chunk's data-page buffer */
	int32_t size;             /* header + compressed body */
	int64_t first_row;        /* within the row group */
	int64_t null_count;
	int null_page, has_minmax;
	size_t min_off, min_len, max_off, max_len;   /* in leaf.pi_vals */
} page_info;

/* One written column chunk, kept for the footer. */
typedef struct chunk_meta {
	int64_t file_offset, data_page_offset, dict_page_offset;   /* -1: none */
	int64_t num_values, total_uncomp, total_comp;
	int32_t n_plain_pages, n_dict_pages;
	int64_t null_count;
	int has_minmax;
	size_t min_off, min_len, max_off, max_len;   /* in writer.stats_pool */
	int64_t ci_off, oi_off;                      /* in ci_all / oi_all; -1 none */
	int32_t ci_len, oi_len;
	int copied;                                  /* taken over from another file */
	size_t enc_off, n_enc;                       /* its encodings, in writer.enc_pool */
} chunk_meta;

typedef struct rg_info {
	int64_t num_rows, total_byte_size, total_comp, file_offset;
} rg_info;

/* Page encoding scratch: one in the writer, or one per leaf with a pool. */
typedef struct scratch {
	loom_buf body, cbody, hdr;
} scratch;

typedef struct leaf {
	size_t schema_index;
	pq_physical_type type;
	int32_t type_length;
	size_t width;
	int16_t max_def, max_rep;
	int def_bw, rep_bw;
	char *path;
	const char **parts;
	size_t nparts;
	pq_cmp_kind cmp;

	/* the page being filled */
	int16_t *pdef, *prep;
	size_t plev, plev_cap, prep_cap;
	size_t pvals, prows;
	loom_buf pplain;           /* PLAIN values (BOOLEAN: bytes 0/1) */
	uint32_t *pidx;            /* dictionary indices */
	size_t pidx_cap;
	pq_stats pstats;

	/* the column chunk of the current row group */
	int dict_on;
	int dict_failed;           /* the dictionary overflowed in an earlier row
	                              group of this file: later ones go PLAIN */
	int dict_checked;          /* the dictionary was found to pay */
	size_t dict_vals, dict_raw;/* values put, and their PLAIN bytes */
	pq_dict dict;
	loom_buf chunk;            /* data pages: header + compressed body */
	int64_t c_uncomp, c_values, c_rows;
	int32_t c_plain_pages, c_dict_pages;
	pq_stats cstats;
	page_info *pages;
	size_t npages, pages_cap;
	loom_buf pi_vals;
	int pi_ok;                 /* every non-null page has min/max */

	pq_stats fstats;           /* whole file */
	scratch own;               /* used when encoding on a pool */
} leaf;

struct pq_writer {
	loom_store_writer *sink;
	uint64_t pos;
	pq_schema_node *schema;
	size_t nschema;
	leaf *leaves;
	size_t nleaves;

	int codec, level, disable_dict, page_index, v2;
	size_t rg_bytes, page_bytes, dict_limit;
	char *created_by;
	char **kv_keys, **kv_values;
	size_t kv_count;

	int64_t rows_total, rg_rows;
	chunk_meta *metas;         /* nrg * nleaves */
	rg_info *rgs;
	size_t nrg, rg_cap;
	loom_buf stats_pool, ci_all, oi_all;
	loom_buf enc_pool;         /* int32 encodings of copied chunks */
	int any_copied;            /* then no page index is written */
	scratch shared;
	loom_threadpool *pool;
	size_t *cur_slot, *cur_val;
	struct col_task *tasks;    /* one per leaf */
	int failed;
};

/* One leaf's share of a slice of rows (or its final page flush), run on
 * the pool or inline. Leaves share no mutable state while encoding. */
typedef struct col_task {
	pq_writer *w;
	size_t leaf;
	const pq_column *c;
	size_t nrows;
	int final;
	int rc;
	loom_error err;
} col_task;

/* ---- small helpers ---------------------------------------------------- */

static int sink_write(pq_writer *w, const void *p, size_t n)
{
	int rc;
	if (!n)
		return 0;
	rc = w->sink->write(w->sink, p, n);
	if (rc < 0)
		return loom_err_wrap("parquet writer: writing %zu bytes at offset %llu", n,
		                     (unsigned long long)w->pos);
	w->pos += n;
	return 0;
}

static pq_converted_type derived_converted(const pq_schema_node *n)
{
	const pq_logical_type *lt = &n->logical_type;
	if (n->converted_type != PQ_CT_NONE)
		return n->converted_type;
	switch (lt->kind) {
	case PQ_LT_STRING: return PQ_CT_UTF8;
	case PQ_LT_MAP: return PQ_CT_MAP;
	case PQ_LT_LIST: return PQ_CT_LIST;
	case PQ_LT_ENUM: return PQ_CT_ENUM;
	case PQ_LT_DECIMAL: return PQ_CT_DECIMAL;
	case PQ_LT_DATE: return PQ_CT_DATE;
	case PQ_LT_JSON: return PQ_CT_JSON;
	case PQ_LT_BSON: return PQ_CT_BSON;
	case PQ_LT_TIME:
		if (!lt->is_adjusted_to_utc)
			return PQ_CT_NONE;
		return lt->unit == PQ_UNIT_MILLIS ? PQ_CT_TIME_MILLIS :
		       lt->unit == PQ_UNIT_MICROS ? PQ_CT_TIME_MICROS : PQ_CT_NONE;
	case PQ_LT_TIMESTAMP:
		if (!lt->is_adjusted_to_utc)
			return PQ_CT_NONE;
		return lt->unit == PQ_UNIT_MILLIS ? PQ_CT_TIMESTAMP_MILLIS :
		       lt->unit == PQ_UNIT_MICROS ? PQ_CT_TIMESTAMP_MICROS : PQ_CT_NONE;
	case PQ_LT_INTEGER:
		switch (lt->int_bit_width) {
		case 8: return lt->int_is_signed ? PQ_CT_INT_8 : PQ_CT_UINT_8;
		case 16: return lt->int_is_signed ? PQ_CT_INT_16 : PQ_CT_UINT_16;
		case 32: return lt->int_is_signed ? PQ_CT_INT_32 : PQ_CT_UINT_32;
		case 64: return lt->int_is_signed ? PQ_CT_INT_64 : PQ_CT_UINT_64;
		default: return PQ_CT_NONE;
		}
	default: return PQ_CT_NONE;
	}
}

/* ---- schema ----------------------------------------------------------- */

static int add_leaf(pq_writer *w, size_t idx, int16_t def, int16_t rep,
                    const char **stack, size_t depth)
{
	const pq_schema_node *n = &w->schema[idx];
	leaf *L;
	size_t i, plen = 0;
	void *p = loom_reallocarray(w->leaves, w->nleaves + 1, sizeof(leaf));
	if (!p)
		return loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_PARQUET, "parquet writer: out of memory for leaves");
	w->leaves = p;
	L = &w->leaves[w->nleaves++];
	memset(L, 0, sizeof(*L));
	L->schema_index = idx;
	L->type = n->type;
	L->type_length = n->type_length;
	if (n->type == PQ_FIXED_LEN_BYTE_ARRAY && n->type_length <= 0)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_PARQUET,
		                "parquet writer: FIXED_LEN_BYTE_ARRAY column \"%s\" has type_length %d",
		                n->name, (int)n->type_length);
	if ((unsigned)n->type > PQ_FIXED_LEN_BYTE_ARRAY)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_PARQUET,
		                "parquet writer: column \"%s\" has physical type %d", n->name, (int)n->type);
	L->width = pq_value_width(n->type, n->type_length);
	L->max_def = def;
	L->max_rep = rep;
	L->def_bw = pq_bit_width((uint32_t)def);
	L->rep_bw = pq_bit_width((uint32_t)rep);
	L->cmp = pq_cmp_kind_of(n);
	L->nparts = depth;
	L->parts = loom_calloc(depth ? depth : 1, sizeof(char *));
	if (!L->parts)
		return LOOM_ENOMEM;
	for (i = 0; i < depth; i++) {
		L->parts[i] = stack[i];
		plen += strlen(stack[i]) + 1;
	}
	L->path = loom_malloc(plen + 1);
	if (!L->path)
		return LOOM_ENOMEM;
	L->path[0] = 0;
	for (i = 0; i < depth; i++) {
		if (i)
			strcat(L->path, ".");
		strcat(L->path, stack[i]);
	}
	pq_stats_init(&L->pstats, L->cmp, L->width);
	pq_stats_init(&L->cstats, L->cmp, L->width);
	pq_stats_init(&L->fstats, L->cmp, L->width);
	pq_dict_init(&L->dict, L->type, L->width);
	L->dict_on = !w->disable_dict && L->type != PQ_BOOLEAN;
	L->pi_ok = 1;
	return 0;
}

static int walk(pq_writer *w, size_t i, int16_t def, int16_t rep,
                const char **stack, size_t depth, size_t *next)
{
	const pq_schema_node *n;
	if (i >= w->nschema)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_PARQUET,
		                "parquet writer: schema has fewer nodes than its groups' children");
	n = &w->schema[i];
	if (!n->name)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_PARQUET, "parquet writer: schema node %zu has no name", i);
	if (i > 0) {
		if (depth >= MAX_SCHEMA_DEPTH)
			return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_PARQUET,
			                "parquet writer: schema deeper than %d levels", MAX_SCHEMA_DEPTH);
		if (n->repetition == PQ_OPTIONAL)
			def++;
		else if (n->repetition == PQ_REPEATED) {
			def++;
			rep++;
		}
		stack[depth++] = n->name;
	}
	if (n->is_group || i == 0) {
		size_t j = i + 1;
		int32_t k;
		if (n->num_children <= 0)
			return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_PARQUET,
			                "parquet writer: group \"%s\" has no children", n->name);
		for (k = 0; k < n->num_children; k++)
			LOOM_TRY(walk(w, j, def, rep, stack, depth, &j));
		*next = j;
		return 0;
	}
	*next = i + 1;
	return add_leaf(w, i, def, rep, stack, depth);
}

/* ---- open ------------------------------------------------------------- */

void pq_writer_opts_default(pq_writer_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->codec = PQ_CODEC_SNAPPY;
	o->row_group_bytes = (size_t)128 << 20;
	o->page_bytes = (size_t)1 << 20;
	o->dict_limit_bytes = (size_t)1 << 20;
}

int pq_writer_open(pq_writer **out, loom_store_writer *sink,
                   const pq_schema_node *schema, size_t nschema,
                   const pq_writer_opts *opts)
{
	pq_writer *w;
	pq_writer_opts def;
	const char *stack[MAX_SCHEMA_DEPTH];
	size_t i, next = 0;
	int rc;

	*out = NULL;
	if (!opts) {
		pq_writer_opts_default(&def);
		opts = &def;
	}
	if (!sink || !schema || nschema < 2)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_PARQUET,
		                "parquet writer: need a sink and a schema with at least one column");
	if (opts->codec < 0 || opts->codec > PQ_CODEC_LZ4_RAW || opts->codec == PQ_CODEC_LZO)
		return loom_err(LOOM_EUNSUPPORTED, LOOM_ERRCLASS_PARQUET,
		                "parquet writer: cannot write codec %d", opts->codec);
	w = loom_calloc(1, sizeof(*w));
	if (!w)
		return loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_PARQUET, "parquet writer: out of memory");
	w->sink = sink;
	w->codec = opts->codec;
	w->level = opts->level;
	w->rg_bytes = opts->row_group_bytes ? opts->row_group_bytes : (size_t)128 << 20;
	w->page_bytes = opts->page_bytes ? opts->page_bytes : (size_t)1 << 20;
	w->dict_limit = opts->dict_limit_bytes ? opts->dict_limit_bytes : (size_t)1 << 20;
	w->disable_dict = opts->disable_dictionary;
	w->page_index = opts->write_page_index;
	w->pool = opts->pool;
	w->v2 = opts->data_page_v2;

	rc = LOOM_ENOMEM;
	w->schema = loom_calloc(nschema, sizeof(pq_schema_node));
	if (!w->schema)
		goto fail;
	w->nschema = nschema;
	for (i = 0; i < nschema; i++) {
		w->schema[i] = schema[i];
		w->schema[i].name = NULL;
		if (schema[i].name && !(w->schema[i].name = loom_strdup(schema[i].name)))
			goto fail;
	}
	if (opts->created_by)
		w->created_by = loom_strdup(opts->created_by);
	else {
		loom_buf b = LOOM_BUF_INIT;
		if (loom_buf_printf(&b, "loom version %s (build loom)", loom_version()) < 0)
			goto fail;
		w->created_by = loom_buf_detach(&b);
	}
	if (!w->created_by)
		goto fail;
	if (opts->kv_count) {
		w->kv_keys = loom_calloc(opts->kv_count, sizeof(char *));
		w->kv_values = loom_calloc(opts->kv_count, sizeof(char *));
		if (!w->kv_keys || !w->kv_values)
			goto fail;
		w->kv_count = opts->kv_count;
		for (i = 0; i < opts->kv_count; i++) {
			if (!opts->kv_keys[i] || !(w->kv_keys[i] = loom_strdup(opts->kv_keys[i])))
				goto fail;
			if (opts->kv_values[i] && !(w->kv_values[i] = loom_strdup(opts->kv_values[i])))
				goto fail;
		}
	}
	rc = walk(w, 0, 0, 0, stack, 0, &next);
	if (rc < 0)
		goto fail;
	if (next != nschema) {
		rc = loom_err(LOOM_EINVAL, LOOM_ERRCLASS_PARQUET,
		              "parquet writer: schema has %zu nodes but its tree covers %zu", nschema, next);
		goto fail;
	}
	w->cur_slot = loom_calloc(w->nleaves, sizeof(size_t));
	w->cur_val = loom_calloc(w->nleaves, sizeof(size_t));
	w->tasks = loom_calloc(w->nleaves, sizeof(col_task));
	if (!w->cur_slot || !w->cur_val || !w->tasks) {
		rc = LOOM_ENOMEM;
		goto fail;
	}
	rc = sink_write(w, "PAR1", 4);
	if (rc < 0)
		goto fail;
	*out = w;
	return 0;
fail:
	if (rc == LOOM_ENOMEM && (!loom_error_last() || loom_error_last()->code != LOOM_ENOMEM))
		loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_PARQUET, "parquet writer: out of memory opening");
	pq_writer_free(w);
	return rc;
}

/* ---- pages ------------------------------------------------------------ */

static int put_levels(loom_buf *body, const int16_t *lv, size_t n, int bw)
{
	size_t at = body->size, len;
	LOOM_TRY(loom_buf_put(body, "\0\0\0\0", 4));
	LOOM_TRY(pq_rle_encode_levels(body, lv, n, bw));
	len = body->size - at - 4;
	body->ptr[at] = (char)len;
	body->ptr[at + 1] = (char)(len >> 8);
	body->ptr[at + 2] = (char)(len >> 16);
	body->ptr[at + 3] = (char)(len >> 24);
	return 0;
}

static scratch *scratch_of(pq_writer *w, leaf *L)
{
	return w->pool ? &L->own : &w->shared;
}

/* Compress n bytes at p; data and len point at the bytes to store. */
static int compress_range(pq_writer *w, scratch *S, const char *p, size_t n,
                          const char **data, size_t *len)
{
	if (w->codec == PQ_CODEC_UNCOMPRESSED) {
		*data = p;
		*len = n;
		return 0;
	}
	loom_buf_clear(&S->cbody);
	LOOM_TRY(loom_codec_compress(w->codec, w->level, p, n, &S->cbody));
	*data = S->cbody.ptr ? S->cbody.ptr : "";
	*len = S->cbody.size;
	return 0;
}

static int compress_body(pq_writer *w, scratch *S, const loom_buf *src, const char **data, size_t *len)
{
	return compress_range(w, S, src->ptr ? src->ptr : "", src->size, data, len);
}

static int dict_bit_width(const leaf *L)
{
	int bw = pq_bit_width(L->dict.count ? (uint32_t)(L->dict.count - 1) : 0);
	return bw ? bw : 1;
}

static size_t page_estimate(const leaf *L)
{
	size_t est = L->plev * (size_t)(L->def_bw + L->rep_bw) / 8;
	if (L->dict_on)
		est += L->pvals * (size_t)dict_bit_width(L) / 8;
	else if (L->type == PQ_BOOLEAN)
		est += L->pplain.size / 8;
	else
		est += L->pplain.size;
	return est;
}

/* ColumnIndex bounds of byte strings are cut to CI_TRUNCATE bytes as
 * parquet-mr and arrow do: the min becomes a prefix (cut before a UTF-8
 * continuation byte), the max a prefix whose last ASCII byte below 0x7f is
 * incremented (still valid UTF-8 and above every value with that prefix);
 * without such a byte the max stays whole. Footer statistics stay exact. */
#define CI_TRUNCATE 64

static int record_page_bounds(leaf *L, page_info *pi)
{
	const uint8_t *mn = (const uint8_t *)L->pstats.min.ptr, *mx = (const uint8_t *)L->pstats.max.ptr;
	size_t mnlen = L->pstats.min.size, mxlen = L->pstats.max.size;
	int bump = 0;
	if (L->cmp == PQ_CMP_BYTES && mnlen > CI_TRUNCATE) {
		mnlen = CI_TRUNCATE;
		while (mnlen > 0 && (mn[mnlen] & 0xC0) == 0x80)
			mnlen--;
	}
	if (L->cmp == PQ_CMP_BYTES && mxlen > CI_TRUNCATE) {
		size_t k = CI_TRUNCATE;
		while (k > 0 && mx[k - 1] >= 0x7F)
			k--;
		if (k > 0) {
			mxlen = k;
			bump = 1;
		}
	}
	pi->min_off = L->pi_vals.size;
	pi->min_len = mnlen;
	LOOM_TRY(loom_buf_put(&L->pi_vals, mn, mnlen));
	pi->max_off = L->pi_vals.size;
	pi->max_len = mxlen;
	LOOM_TRY(loom_buf_put(&L->pi_vals, mx, mxlen));
	if (bump)
		L->pi_vals.ptr[pi->max_off + mxlen - 1]++;
	return 0;
}

static int flush_page(pq_writer *w, leaf *L)
{
	scratch *S = scratch_of(w, L);
	loom_buf *body = &S->body;
	const char *data;
	size_t len, rep_len = 0, lvl_len = 0;
	int enc;
	tw_enc t;
	page_info *pi;

	if (L->plev == 0)
		return 0;
	loom_buf_clear(body);
	if (w->v2) {
		/* v2: levels without length prefixes and never compressed */
		if (L->max_rep > 0)
			LOOM_TRY(pq_rle_encode_levels(body, L->prep, L->plev, L->rep_bw));
		rep_len = body->size;
		if (L->max_def > 0)
			LOOM_TRY(pq_rle_encode_levels(body, L->pdef, L->plev, L->def_bw));
		lvl_len = body->size;
	} else {
		if (L->max_rep > 0)
			LOOM_TRY(put_levels(body, L->prep, L->plev, L->rep_bw));
		if (L->max_def > 0)
			LOOM_TRY(put_levels(body, L->pdef, L->plev, L->def_bw));
	}
	if (L->dict_on && L->pvals > 0) {
		int bw = dict_bit_width(L);
		LOOM_TRY(loom_buf_putc(body, (char)bw));
		LOOM_TRY(pq_rle_encode_u32(body, L->pidx, L->pvals, bw));
		enc = PQ_ENC_RLE_DICTIONARY;
		L->c_dict_pages++;
	} else {
		if (L->type == PQ_BOOLEAN)
			LOOM_TRY(pq_plain_encode_bool(body, (const uint8_t *)L->pplain.ptr, L->pplain.size));
		else if (L->pplain.size)
			LOOM_TRY(loom_buf_put(body, L->pplain.ptr, L->pplain.size));
		enc = PQ_ENC_PLAIN;
		L->c_plain_pages++;
	}
	if (body->size > INT32_MAX)
		return loom_err(LOOM_EUNSUPPORTED, LOOM_ERRCLASS_PARQUET,
		                "parquet writer: column %s: page of %zu bytes over 2 GiB", L->path, body->size);
	LOOM_TRY(compress_range(w, S, body->ptr ? body->ptr + lvl_len : "", body->size - lvl_len, &data, &len));
	if (len > INT32_MAX - lvl_len)
		return loom_err(LOOM_EUNSUPPORTED, LOOM_ERRCLASS_PARQUET,
		                "parquet writer: column %s: compressed page over 2 GiB", L->path);

	loom_buf_clear(&S->hdr);
	tw_init(&t, &S->hdr);
	tw_struct_begin(&t);
	tw_i32(&t, 1, w->v2 ? PQ_PAGE_DATA_V2 : PQ_PAGE_DATA);
	tw_i32(&t, 2, (int32_t)body->size);
	tw_i32(&t, 3, (int32_t)(lvl_len + len));
	if (w->v2) {
		tw_field_struct(&t, 8);
		tw_i32(&t, 1, (int32_t)L->plev);
		tw_i32(&t, 2, (int32_t)(L->plev - L->pvals));
		tw_i32(&t, 3, (int32_t)L->prows);
		tw_i32(&t, 4, enc);
		tw_i32(&t, 5, (int32_t)(lvl_len - rep_len));
		tw_i32(&t, 6, (int32_t)rep_len);
		tw_bool(&t, 7, w->codec != PQ_CODEC_UNCOMPRESSED);
		tw_struct_end(&t);
	} else {
		tw_field_struct(&t, 5);
		tw_i32(&t, 1, (int32_t)L->plev);
		tw_i32(&t, 2, enc);
		tw_i32(&t, 3, PQ_ENC_RLE);
		tw_i32(&t, 4, PQ_ENC_RLE);
		tw_struct_end(&t);
	}
	tw_struct_end(&t);
	LOOM_TRY(tw_finish(&t));

	if (w->page_index) {
		LOOM_TRY(loom_array_grow((void **)&L->pages, &L->pages_cap, L->npages + 1, sizeof(page_info)));
		pi = &L->pages[L->npages++];
		memset(pi, 0, sizeof(*pi));
		pi->offset = L->chunk.size;
		pi->size = (int32_t)(S->hdr.size + lvl_len + len);
		pi->first_row = L->c_rows;
		pi->null_count = L->pstats.null_count;
		pi->null_page = L->pvals == 0;
		pi->has_minmax = L->pstats.has_minmax;
		if (!pi->null_page && !pi->has_minmax)
			L->pi_ok = 0;
		if (pi->has_minmax)
			LOOM_TRY(record_page_bounds(L, pi));
	}
	LOOM_TRY(loom_buf_put(&L->chunk, S->hdr.ptr, S->hdr.size));
	if (lvl_len)
		LOOM_TRY(loom_buf_put(&L->chunk, body->ptr, lvl_len));
	LOOM_TRY(loom_buf_put(&L->chunk, data, len));
	L->c_uncomp += (int64_t)(S->hdr.size + body->size);
	L->c_values += (int64_t)L->plev;
	L->c_rows += (int64_t)L->prows;
	LOOM_TRY(pq_stats_merge(&L->cstats, &L->pstats));
	pq_stats_reset(&L->pstats);
	L->plev = L->pvals = L->prows = 0;
	loom_buf_clear(&L->pplain);
	return 0;
}

/* ---- appending a column range ----------------------------------------- */

static size_t count_values(const pq_column *c, size_t s0, size_t s1)
{
	size_t n = 0, i;
	if (c->max_def == 0)
		return s1 - s0;
	for (i = s0; i < s1; i++)
		n += c->def_levels[i] == c->max_def;
	return n;
}

static size_t count_rows(const pq_column *c, size_t s0, size_t s1)
{
	size_t n = 0, i;
	if (c->max_rep == 0)
		return s1 - s0;
	for (i = s0; i < s1; i++)
		n += c->rep_levels[i] == 0;
	return n;
}

static size_t slot_cost(const leaf *L, const pq_column *c)
{
	size_t per;
	if (L->dict_on)
		per = 2;
	else if (L->type == PQ_BYTE_ARRAY)
		per = (c->num_values ? c->data_size / c->num_values : 0) + 4;
	else if (L->type == PQ_BOOLEAN)
		per = 1;
	else
		per = L->width;
	return per + 1;
}

/* After the first thousand values of a file's column: whether its
 * dictionary plus the indices take as many bytes as the values PLAIN
 * (mostly distinct values, such as ids or hashes). Then the column is
 * PLAIN for the rest of the file; decided once. */
static int dict_does_not_pay(leaf *L)
{
	double encoded;
	if (L->dict_checked || L->dict_vals < 1024)
		return 0;
	L->dict_checked = 1;
	encoded = (double)L->dict.plain.size + (double)L->dict_vals * dict_bit_width(L) / 8.0;
	return encoded >= (double)L->dict_raw;
}

static int append_range(pq_writer *w, leaf *L, const pq_column *c,
                        size_t s0, size_t s1, size_t v0)
{
	while (s0 < s1) {
		size_t est = page_estimate(L);
		size_t budget = w->page_bytes > est ? w->page_bytes - est : 1;
		size_t step = budget / slot_cost(L, c) + 1, e, nv, n;
		int fallback = 0;
		if (step > 65536)
			step = 65536;
		e = s1 - s0 > step ? s0 + step : s1;
		if (L->max_rep > 0)
			while (e < s1 && c->rep_levels[e] != 0)
				e++;
		n = e - s0;
		nv = count_values(c, s0, e);

		LOOM_TRY(loom_array_grow((void **)&L->pdef, &L->plev_cap, L->plev + n, sizeof(int16_t)));
		if (L->max_def > 0)
			memcpy(L->pdef + L->plev, c->def_levels + s0, n * sizeof(int16_t));
		if (L->max_rep > 0) {
			LOOM_TRY(loom_array_grow((void **)&L->prep, &L->prep_cap, L->plev + n, sizeof(int16_t)));
			memcpy(L->prep + L->plev, c->rep_levels + s0, n * sizeof(int16_t));
		}
		L->pstats.null_count += (int64_t)(n - nv);

		if (nv) {
			if (L->type == PQ_BYTE_ARRAY)
				LOOM_TRY(pq_stats_add_bytes(&L->pstats, c->offsets, c->data, v0, v0 + nv));
			else
				LOOM_TRY(pq_stats_add_fixed(&L->pstats, c->values + v0 * L->width, nv));
			if (L->dict_on) {
				LOOM_TRY(loom_array_grow((void **)&L->pidx, &L->pidx_cap, L->pvals + nv, sizeof(uint32_t)));
				if (L->type == PQ_BYTE_ARRAY)
					LOOM_TRY(pq_dict_put_bytes(&L->dict, c->offsets, c->data, v0, v0 + nv,
					                           L->pidx + L->pvals));
				else
					LOOM_TRY(pq_dict_put_fixed(&L->dict, c->values + v0 * L->width, nv,
					                           L->pidx + L->pvals));
				L->dict_vals += nv;
				L->dict_raw += L->type == PQ_BYTE_ARRAY ? c->offsets[v0 + nv] - c->offsets[v0] + 4 * nv
				                                        : nv * L->width;
				fallback = L->dict.plain.size > w->dict_limit || dict_does_not_pay(L);
			} else if (L->type == PQ_BYTE_ARRAY) {
				LOOM_TRY(pq_plain_encode_bytes(&L->pplain, c->offsets, c->data, v0, v0 + nv));
			} else {
				LOOM_TRY(loom_buf_put(&L->pplain, c->values + v0 * L->width, nv * L->width));
			}
		}
		L->plev += n;
		L->pvals += nv;
		L->prows += count_rows(c, s0, e);
		v0 += nv;
		s0 = e;
		if (fallback) {
			/* The dictionary is full: this page closes dictionary-encoded,
			 * the rest of the chunk is PLAIN. */
			LOOM_TRY(flush_page(w, L));
			L->dict_on = 0;
			L->dict_failed = 1;
		} else if (page_estimate(L) >= w->page_bytes) {
			LOOM_TRY(flush_page(w, L));
		}
	}
	return 0;
}

/* ---- column chunks and row groups ------------------------------------- */

static int pool_put(pq_writer *w, const loom_buf *v, size_t *off, size_t *len)
{
	*off = w->stats_pool.size;
	*len = v->size;
	return v->size ? loom_buf_put(&w->stats_pool, v->ptr, v->size) : 0;
}

static void write_column_index(tw_enc *t, const leaf *L)
{
	size_t i;
	int asc = 1, desc = 1;
	const page_info *prev = NULL;
	const uint8_t *pv = (const uint8_t *)L->pi_vals.ptr;

	for (i = 0; i < L->npages; i++) {
		const page_info *p = &L->pages[i];
		if (p->null_page)
			continue;
		if (prev) {
			int cmin = pq_value_cmp(L->cmp, pv + prev->min_off, prev->min_len, pv + p->min_off, p->min_len);
			int cmax = pq_value_cmp(L->cmp, pv + prev->max_off, prev->max_len, pv + p->max_off, p->max_len);
			if (cmin > 0 || cmax > 0)
				asc = 0;
			if (cmin < 0 || cmax < 0)
				desc = 0;
		}
		prev = p;
	}
	tw_struct_begin(t);
	tw_field_list(t, 1, TW_BOOL_TRUE, L->npages);
	for (i = 0; i < L->npages; i++)
		tw_elem_bool(t, L->pages[i].null_page);
	tw_field_list(t, 2, TW_BINARY, L->npages);
	for (i = 0; i < L->npages; i++)
		tw_elem_binary(t, pv + L->pages[i].min_off, L->pages[i].null_page ? 0 : L->pages[i].min_len);
	tw_field_list(t, 3, TW_BINARY, L->npages);
	for (i = 0; i < L->npages; i++)
		tw_elem_binary(t, pv + L->pages[i].max_off, L->pages[i].null_page ? 0 : L->pages[i].max_len);
	tw_i32(t, 4, asc ? 1 : desc ? 2 : 0);
	tw_field_list(t, 5, TW_I64, L->npages);
	for (i = 0; i < L->npages; i++)
		tw_elem_i64(t, L->pages[i].null_count);
	tw_struct_end(t);
}

static int flush_chunk(pq_writer *w, leaf *L, chunk_meta *m)
{
	scratch *S = scratch_of(w, L);
	memset(m, 0, sizeof(*m));
	m->dict_page_offset = -1;
	m->ci_off = m->oi_off = -1;
	LOOM_TRY(flush_page(w, L));   /* already done when encoding on a pool */
	m->file_offset = (int64_t)w->pos;
	if (L->c_dict_pages > 0) {
		const char *data;
		size_t len;
		tw_enc t;
		if (L->dict.plain.size > INT32_MAX)
			return loom_err(LOOM_EUNSUPPORTED, LOOM_ERRCLASS_PARQUET,
			                "parquet writer: column %s: dictionary page over 2 GiB", L->path);
		LOOM_TRY(compress_body(w, S, &L->dict.plain, &data, &len));
		loom_buf_clear(&S->hdr);
		tw_init(&t, &S->hdr);
		tw_struct_begin(&t);
		tw_i32(&t, 1, PQ_PAGE_DICTIONARY);
		tw_i32(&t, 2, (int32_t)L->dict.plain.size);
		tw_i32(&t, 3, (int32_t)len);
		tw_field_struct(&t, 7);
		tw_i32(&t, 1, (int32_t)L->dict.count);
		tw_i32(&t, 2, PQ_ENC_PLAIN);
		tw_struct_end(&t);
		tw_struct_end(&t);
		LOOM_TRY(tw_finish(&t));
		m->dict_page_offset = (int64_t)w->pos;
		LOOM_TRY(sink_write(w, S->hdr.ptr, S->hdr.size));
		LOOM_TRY(sink_write(w, data, len));
		m->total_uncomp += (int64_t)(S->hdr.size + L->dict.plain.size);
		m->total_comp += (int64_t)(S->hdr.size + len);
	}
	m->data_page_offset = (int64_t)w->pos;
	LOOM_TRY(sink_write(w, L->chunk.ptr, L->chunk.size));
	m->total_uncomp += L->c_uncomp;
	m->total_comp += (int64_t)L->chunk.size;
	m->num_values = L->c_values;
	m->n_plain_pages = L->c_plain_pages;
	m->n_dict_pages = L->c_dict_pages;
	m->null_count = L->cstats.null_count;
	m->has_minmax = L->cstats.has_minmax && L->cmp != PQ_CMP_NONE;
	if (m->has_minmax) {
		LOOM_TRY(pool_put(w, &L->cstats.min, &m->min_off, &m->min_len));
		LOOM_TRY(pool_put(w, &L->cstats.max, &m->max_off, &m->max_len));
	}
	LOOM_TRY(pq_stats_merge(&L->fstats, &L->cstats));

	if (w->page_index && L->npages) {
		tw_enc t;
		size_t i;
		if (L->pi_ok && L->cmp != PQ_CMP_NONE) {
			m->ci_off = (int64_t)w->ci_all.size;
			tw_init(&t, &w->ci_all);
			write_column_index(&t, L);
			LOOM_TRY(tw_finish(&t));
			m->ci_len = (int32_t)(w->ci_all.size - (size_t)m->ci_off);
		}
		m->oi_off = (int64_t)w->oi_all.size;
		tw_init(&t, &w->oi_all);
		tw_struct_begin(&t);
		tw_field_list(&t, 1, TW_STRUCT, L->npages);
		for (i = 0; i < L->npages; i++) {
			tw_struct_begin(&t);
			tw_i64(&t, 1, m->data_page_offset + (int64_t)L->pages[i].offset);
			tw_i32(&t, 2, L->pages[i].size);
			tw_i64(&t, 3, L->pages[i].first_row);
			tw_struct_end(&t);
		}
		tw_struct_end(&t);
		LOOM_TRY(tw_finish(&t));
		m->oi_len = (int32_t)(w->oi_all.size - (size_t)m->oi_off);
	}

	/* reset for the next row group */
	loom_buf_clear(&L->chunk);
	pq_dict_reset(&L->dict);
	L->dict_on = !w->disable_dict && L->type != PQ_BOOLEAN && !L->dict_failed;
	L->c_uncomp = L->c_values = L->c_rows = 0;
	L->c_plain_pages = L->c_dict_pages = 0;
	pq_stats_reset(&L->cstats);
	L->npages = 0;
	loom_buf_clear(&L->pi_vals);
	L->pi_ok = 1;
	return 0;
}

static size_t skip_rows(const pq_column *c, size_t slot, size_t nrows);

static void run_col_task(void *arg)
{
	col_task *t = arg;
	pq_writer *w = t->w;
	leaf *L = &w->leaves[t->leaf];
	if (t->final) {
		t->rc = flush_page(w, L);
	} else {
		size_t s0 = w->cur_slot[t->leaf], v0 = w->cur_val[t->leaf];
		size_t s1 = skip_rows(t->c, s0, t->nrows);
		t->rc = append_range(w, L, t->c, s0, s1, v0);
		w->cur_slot[t->leaf] = s1;
		w->cur_val[t->leaf] = v0 + count_values(t->c, s0, s1);
	}
	if (t->rc < 0)
		loom_err_copy(&t->err);
}

/* Run the first nleaves tasks on the pool (or inline); re-raise the first
 * error on this thread. */
static int run_tasks(pq_writer *w)
{
	size_t i;
	loom_taskgroup g;
	/* a group, not the whole pool: the pool may be shared with other work */
	loom_taskgroup_init(&g, w->pool);
	for (i = 0; i < w->nleaves; i++) {
		col_task *t = &w->tasks[i];
		t->w = w;
		t->leaf = i;
		t->rc = 0;
		loom_taskgroup_run(&g, run_col_task, t);
		if (t->rc < 0 && !w->pool)
			return t->rc;
	}
	loom_taskgroup_wait(&g);
	for (i = 0; i < w->nleaves; i++)
		if (w->tasks[i].rc < 0)
			return loom_err(w->tasks[i].err.code, w->tasks[i].err.klass, "%s", w->tasks[i].err.message);
	return 0;
}

static int grow_row_groups(pq_writer *w)
{
	if (w->nrg + 1 > w->rg_cap) {
		size_t n = w->rg_cap ? w->rg_cap * 2 : 8;
		void *p = loom_reallocarray(w->rgs, n, sizeof(rg_info));
		if (!p)
			return loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_PARQUET, "parquet writer: out of memory for row groups");
		w->rgs = p;
		p = loom_reallocarray(w->metas, n * w->nleaves, sizeof(chunk_meta));
		if (!p)
			return loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_PARQUET, "parquet writer: out of memory for row groups");
		w->metas = p;
		w->rg_cap = n;
	}
	return 0;
}

static int flush_row_group(pq_writer *w)
{
	size_t i;
	rg_info *rg;
	chunk_meta *metas;
	if (w->rg_rows == 0)
		return 0;
	LOOM_TRY(grow_row_groups(w));
	/* last pages of every chunk (in parallel with a pool), then the
	 * sequential part: offsets, dictionary pages, sink writes */
	for (i = 0; i < w->nleaves; i++)
		w->tasks[i].final = 1;
	LOOM_TRY(run_tasks(w));
	rg = &w->rgs[w->nrg];
	metas = &w->metas[w->nrg * w->nleaves];
	memset(rg, 0, sizeof(*rg));
	rg->num_rows = w->rg_rows;
	rg->file_offset = (int64_t)w->pos;
	for (i = 0; i < w->nleaves; i++) {
		LOOM_TRY(flush_chunk(w, &w->leaves[i], &metas[i]));
		rg->total_byte_size += metas[i].total_uncomp;
		rg->total_comp += metas[i].total_comp;
	}
	w->nrg++;
	w->rg_rows = 0;
	return 0;
}

static size_t row_group_estimate(const pq_writer *w)
{
	size_t i, total = 0;
	for (i = 0; i < w->nleaves; i++) {
		const leaf *L = &w->leaves[i];
		total += (size_t)L->c_uncomp + page_estimate(L) + L->dict.plain.size;
	}
	return total;
}

/* ---- write ------------------------------------------------------------ */

static int check_column(const pq_writer *w, const leaf *L, const pq_column *c,
                        size_t ci, size_t num_rows)
{
	size_t i, nv = 0, rows = 0;
	if (c->type != L->type || (L->type == PQ_FIXED_LEN_BYTE_ARRAY && c->type_length != L->type_length) ||
	    c->max_def != L->max_def || c->max_rep != L->max_rep)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_PARQUET,
		                "parquet writer: batch column %zu (type %d, levels %d/%d) does not match leaf %s "
		                "(type %d, levels %d/%d)", ci, (int)c->type, c->max_def, c->max_rep,
		                L->path, (int)L->type, L->max_def, L->max_rep);
	if ((L->max_def > 0 && !c->def_levels && c->num_levels) ||
	    (L->max_rep > 0 && !c->rep_levels && c->num_levels))
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_PARQUET,
		                "parquet writer: batch column %s lacks its level arrays", L->path);
	for (i = 0; i < c->num_levels; i++) {
		int16_t d = L->max_def ? c->def_levels[i] : 0;
		int16_t r = L->max_rep ? c->rep_levels[i] : 0;
		if (d < 0 || d > L->max_def || r < 0 || r > L->max_rep || (i == 0 && r != 0))
			return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_PARQUET,
			                "parquet writer: batch column %s: bad levels (def %d, rep %d) at slot %zu",
			                L->path, d, r, i);
		nv += d == L->max_def;
		rows += r == 0;
	}
	if (rows != num_rows || nv != c->num_values)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_PARQUET,
		                "parquet writer: batch column %s has %zu rows and %zu values by its levels, "
		                "batch says %zu rows and %zu values", L->path, rows, nv, num_rows, c->num_values);
	if (nv && L->type != PQ_BYTE_ARRAY && !c->values)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_PARQUET, "parquet writer: batch column %s has no values", L->path);
	if (L->type == PQ_BYTE_ARRAY && nv) {
		if (!c->offsets || (!c->data && c->offsets[nv] != c->offsets[0]))
			return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_PARQUET,
			                "parquet writer: batch column %s has no byte-array data", L->path);
		for (i = 0; i < nv; i++)
			if (c->offsets[i + 1] < c->offsets[i])
				return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_PARQUET,
				                "parquet writer: batch column %s: offsets decrease at value %zu", L->path, i);
		if (c->offsets[nv] > c->data_size)
			return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_PARQUET,
			                "parquet writer: batch column %s: offsets beyond its %zu data bytes",
			                L->path, c->data_size);
	}
	(void)w;
	return 0;
}

/* Slot index where row `nrows` after the row starting at `slot` begins. */
static size_t skip_rows(const pq_column *c, size_t slot, size_t nrows)
{
	size_t seen = 0;
	if (c->max_rep == 0)
		return slot + nrows;
	while (slot < c->num_levels) {
		if (c->rep_levels[slot] == 0) {
			if (seen == nrows)
				break;
			seen++;
		}
		slot++;
	}
	return slot;
}

static int check_batch(const pq_writer *w, const pq_batch *b)
{
	size_t i;
	if (b->num_columns != w->nleaves)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_PARQUET,
		                "parquet writer: batch has %zu columns, the schema %zu leaves",
		                b->num_columns, w->nleaves);
	for (i = 0; i < w->nleaves; i++)
		LOOM_TRY(check_column(w, &w->leaves[i], &b->columns[i], i, b->num_rows));
	return 0;
}

static int write_batch(pq_writer *w, const pq_batch *b)
{
	size_t i, r = 0, raw = 0, per_row;
	for (i = 0; i < w->nleaves; i++) {
		const pq_column *c = &b->columns[i];
		w->cur_slot[i] = w->cur_val[i] = 0;
		raw += c->num_levels / 4 + (c->type == PQ_BYTE_ARRAY ? c->data_size + 4 * c->num_values
		                            : c->num_values * w->leaves[i].width);
	}
	per_row = b->num_rows ? raw / b->num_rows + 1 : 1;
	while (r < b->num_rows) {
		size_t est = row_group_estimate(w), n;
		size_t room = w->rg_bytes > est ? w->rg_bytes - est : 0;
		n = room / per_row + 1;
		if (n < 1024)
			n = 1024;
		if (n > b->num_rows - r)
			n = b->num_rows - r;
		for (i = 0; i < w->nleaves; i++) {
			w->tasks[i].final = 0;
			w->tasks[i].c = &b->columns[i];
			w->tasks[i].nrows = n;
		}
		LOOM_TRY(run_tasks(w));
		r += n;
		w->rg_rows += (int64_t)n;
		w->rows_total += (int64_t)n;
		if (row_group_estimate(w) >= w->rg_bytes)
			LOOM_TRY(flush_row_group(w));
	}
	return 0;
}

int pq_writer_write(pq_writer *w, const pq_batch *b)
{
	int rc;
	if (w->failed)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_PARQUET, "parquet writer: used after a failure");
	LOOM_TRY(check_batch(w, b));   /* nothing changed yet: the writer stays usable */
	rc = write_batch(w, b);
	if (rc < 0)
		w->failed = 1;
	return rc;
}

/* ---- footer ----------------------------------------------------------- */

static void write_logical(tw_enc *t, const pq_logical_type *lt)
{
	tw_field_struct(t, 10);
	tw_field_struct(t, (int16_t)lt->kind);
	switch (lt->kind) {
	case PQ_LT_DECIMAL:
		tw_i32(t, 1, lt->decimal_scale);
		tw_i32(t, 2, lt->decimal_precision);
		break;
	case PQ_LT_TIME:
	case PQ_LT_TIMESTAMP:
		tw_bool(t, 1, lt->is_adjusted_to_utc);
		tw_field_struct(t, 2);
		tw_field_struct(t, (int16_t)(lt->unit + 1));
		tw_struct_end(t);
		tw_struct_end(t);
		break;
	case PQ_LT_INTEGER:
		tw_i8(t, 1, lt->int_bit_width);
		tw_bool(t, 2, lt->int_is_signed);
		break;
	default:
		break;
	}
	tw_struct_end(t);
	tw_struct_end(t);
}

static void write_schema_element(tw_enc *t, const pq_schema_node *n, int is_root)
{
	pq_converted_type ct = derived_converted(n);
	int group = n->is_group || is_root;
	tw_struct_begin(t);
	if (!group) {
		tw_i32(t, 1, n->type);
		if (n->type == PQ_FIXED_LEN_BYTE_ARRAY)
			tw_i32(t, 2, n->type_length);
	}
	if (!is_root)
		tw_i32(t, 3, n->repetition);
	tw_string(t, 4, n->name);
	if (group)
		tw_i32(t, 5, n->num_children);
	if (ct != PQ_CT_NONE)
		tw_i32(t, 6, ct);
	if (ct == PQ_CT_DECIMAL) {
		int lt_dec = n->logical_type.kind == PQ_LT_DECIMAL;
		tw_i32(t, 7, lt_dec ? n->logical_type.decimal_scale : n->scale);
		tw_i32(t, 8, lt_dec ? n->logical_type.decimal_precision : n->precision);
	}
	if (n->has_field_id)
		tw_i32(t, 9, n->field_id);
	if (n->logical_type.kind != PQ_LT_NONE)
		write_logical(t, &n->logical_type);
	tw_struct_end(t);
}

static void write_column_chunk(tw_enc *t, const pq_writer *w, const leaf *L,
                               const chunk_meta *m, int64_t ci_base, int64_t oi_base)
{
	const uint8_t *pool = (const uint8_t *)w->stats_pool.ptr;
	size_t i, nenc = 0, nes = 0;
	int32_t encs[3];
	tw_struct_begin(t);
	tw_i64(t, 2, m->file_offset);
	tw_field_struct(t, 3);
	tw_i32(t, 1, L->type);
	if (m->copied) {
		const int32_t *e = (const int32_t *)(const void *)(w->enc_pool.ptr + m->enc_off);
		tw_field_list(t, 2, TW_I32, m->n_enc);
		for (i = 0; i < m->n_enc; i++)
			tw_elem_i32(t, e[i]);
	} else if (m->n_plain_pages || m->n_dict_pages)
		encs[nenc++] = PQ_ENC_PLAIN;   /* PLAIN data pages or the dictionary page */
	if (L->max_def || L->max_rep)
		encs[nenc++] = PQ_ENC_RLE;
	if (m->n_dict_pages)
		encs[nenc++] = PQ_ENC_RLE_DICTIONARY;
	if (!m->copied) {
		tw_field_list(t, 2, TW_I32, nenc);
		for (i = 0; i < nenc; i++)
			tw_elem_i32(t, encs[i]);
	}
	tw_field_list(t, 3, TW_BINARY, L->nparts);
	for (i = 0; i < L->nparts; i++)
		tw_elem_binary(t, L->parts[i], strlen(L->parts[i]));
	tw_i32(t, 4, w->codec);
	tw_i64(t, 5, m->num_values);
	tw_i64(t, 6, m->total_uncomp);
	tw_i64(t, 7, m->total_comp);
	tw_i64(t, 9, m->data_page_offset);
	if (m->dict_page_offset >= 0)
		tw_i64(t, 11, m->dict_page_offset);
	tw_field_struct(t, 12);
	if (m->has_minmax && pq_cmp_legacy_ok(L->cmp)) {
		tw_binary(t, 1, pool + m->max_off, m->max_len);
		tw_binary(t, 2, pool + m->min_off, m->min_len);
	}
	tw_i64(t, 3, m->null_count);
	if (m->has_minmax) {
		tw_binary(t, 5, pool + m->max_off, m->max_len);
		tw_binary(t, 6, pool + m->min_off, m->min_len);
	}
	tw_struct_end(t);
	nes = (m->n_dict_pages ? 2u : 0u) + (m->n_plain_pages ? 1u : 0u);
	if (!m->copied)
		tw_field_list(t, 13, TW_STRUCT, nes);
	if (m->n_dict_pages) {
		tw_struct_begin(t);
		tw_i32(t, 1, PQ_PAGE_DICTIONARY);
		tw_i32(t, 2, PQ_ENC_PLAIN);
		tw_i32(t, 3, 1);
		tw_struct_end(t);
		tw_struct_begin(t);
		tw_i32(t, 1, w->v2 ? PQ_PAGE_DATA_V2 : PQ_PAGE_DATA);
		tw_i32(t, 2, PQ_ENC_RLE_DICTIONARY);
		tw_i32(t, 3, m->n_dict_pages);
		tw_struct_end(t);
	}
	if (m->n_plain_pages) {
		tw_struct_begin(t);
		tw_i32(t, 1, w->v2 ? PQ_PAGE_DATA_V2 : PQ_PAGE_DATA);
		tw_i32(t, 2, PQ_ENC_PLAIN);
		tw_i32(t, 3, m->n_plain_pages);
		tw_struct_end(t);
	}
	tw_struct_end(t);
	if (m->oi_off >= 0 && !w->any_copied) {
		tw_i64(t, 4, oi_base + m->oi_off);
		tw_i32(t, 5, m->oi_len);
	}
	if (m->ci_off >= 0 && !w->any_copied) {
		tw_i64(t, 6, ci_base + m->ci_off);
		tw_i32(t, 7, m->ci_len);
	}
	tw_struct_end(t);
}

static int write_footer(pq_writer *w)
{
	loom_buf foot = LOOM_BUF_INIT;
	tw_enc t;
	size_t i, j;
	int64_t ci_base = (int64_t)w->pos, oi_base;
	uint8_t tail[8];
	int rc;

	/* a copied chunk has no page index here: then no chunk gets one, as
	 * readers take page indexes for all of a file's chunks or none */
	if (!w->any_copied)
		LOOM_TRY(sink_write(w, w->ci_all.ptr, w->ci_all.size));
	oi_base = (int64_t)w->pos;
	if (!w->any_copied)
		LOOM_TRY(sink_write(w, w->oi_all.ptr, w->oi_all.size));

	tw_init(&t, &foot);
	tw_struct_begin(&t);
	tw_i32(&t, 1, 1);
	tw_field_list(&t, 2, TW_STRUCT, w->nschema);
	for (i = 0; i < w->nschema; i++)
		write_schema_element(&t, &w->schema[i], i == 0);
	tw_i64(&t, 3, w->rows_total);
	tw_field_list(&t, 4, TW_STRUCT, w->nrg);
	for (i = 0; i < w->nrg; i++) {
		const rg_info *rg = &w->rgs[i];
		tw_struct_begin(&t);
		tw_field_list(&t, 1, TW_STRUCT, w->nleaves);
		for (j = 0; j < w->nleaves; j++)
			write_column_chunk(&t, w, &w->leaves[j], &w->metas[i * w->nleaves + j], ci_base, oi_base);
		tw_i64(&t, 2, rg->total_byte_size);
		tw_i64(&t, 3, rg->num_rows);
		tw_i64(&t, 5, rg->file_offset);
		tw_i64(&t, 6, rg->total_comp);
		tw_i16(&t, 7, (int16_t)(i < INT16_MAX ? i : INT16_MAX));
		tw_struct_end(&t);
	}
	if (w->kv_count) {
		tw_field_list(&t, 5, TW_STRUCT, w->kv_count);
		for (i = 0; i < w->kv_count; i++) {
			tw_struct_begin(&t);
			tw_string(&t, 1, w->kv_keys[i]);
			if (w->kv_values[i])
				tw_string(&t, 2, w->kv_values[i]);
			tw_struct_end(&t);
		}
	}
	tw_string(&t, 6, w->created_by);
	tw_field_list(&t, 7, TW_STRUCT, w->nleaves);
	for (i = 0; i < w->nleaves; i++) {
		tw_struct_begin(&t);
		tw_field_struct(&t, 1);
		tw_struct_end(&t);
		tw_struct_end(&t);
	}
	tw_struct_end(&t);
	rc = tw_finish(&t);
	if (rc == 0 && foot.size > UINT32_MAX)
		rc = loom_err(LOOM_EUNSUPPORTED, LOOM_ERRCLASS_PARQUET, "parquet writer: footer over 4 GiB");
	if (rc == 0)
		rc = sink_write(w, foot.ptr, foot.size);
	if (rc == 0) {
		tail[0] = (uint8_t)foot.size;
		tail[1] = (uint8_t)(foot.size >> 8);
		tail[2] = (uint8_t)(foot.size >> 16);
		tail[3] = (uint8_t)(foot.size >> 24);
		memcpy(tail + 4, "PAR1", 4);
		rc = sink_write(w, tail, 8);
	}
	loom_buf_dispose(&foot);
	return rc;
}

/* ---- row groups copied from another file ------------------------------- */

/* The chunk's statistics, if they give what the file's stats need: the
 * null count and, when the column has ordered values that are not all
 * null, exact min and max (the TypeDefinedOrder fields). */
static int copyable_stats(const leaf *L, const pq_column_meta *m)
{
	const pq_statistics *st = &m->statistics;
	if (!m->has_statistics || !st->has_null_count || st->null_count < 0 || st->null_count > m->num_values)
		return 0;
	if (L->cmp == PQ_CMP_NONE || (L->max_rep == 0 && st->null_count == m->num_values))
		return 1;
	if (!st->min_value.ptr || !st->max_value.ptr)
		return 0;
	if ((st->has_is_min_value_exact && !st->is_min_value_exact) ||
	    (st->has_is_max_value_exact && !st->is_max_value_exact))
		return 0;
	if (L->width && (st->min_value.len != L->width || st->max_value.len != L->width))
		return 0;
	return 1;
}

int pq_writer_can_copy(const pq_writer *w, pq_reader *r, size_t g)
{
	const pq_schema *s = pq_reader_schema(r);
	const pq_file_meta *fm = pq_reader_meta(r);
	const pq_row_group *rg;
	size_t i;
	if (g >= fm->num_row_groups || s->num_leaves != w->nleaves)
		return 0;
	rg = &fm->row_groups[g];
	if (rg->num_columns != w->nleaves || rg->num_rows <= 0 || !pq_reader_chunk_sizes_exact(r))
		return 0;
	for (i = 0; i < w->nleaves; i++) {
		const leaf *L = &w->leaves[i];
		const pq_leaf *in = &s->leaves[i];
		const pq_column_chunk *cc = &rg->columns[i];
		if (in->type != L->type || in->max_def != L->max_def || in->max_rep != L->max_rep ||
		    (L->type == PQ_FIXED_LEN_BYTE_ARRAY && in->type_length != L->type_length))
			return 0;
		if (!cc->has_meta_data || cc->encrypted || cc->file_path || cc->meta.codec != w->codec)
			return 0;
		if (!copyable_stats(L, &cc->meta))
			return 0;
	}
	return 1;
}

static int copy_chunk(pq_writer *w, leaf *L, pq_reader *r, size_t g, size_t i, chunk_meta *m)
{
	const pq_column_meta *cm = &pq_reader_meta(r)->row_groups[g].columns[i].meta;
	const pq_statistics *st = &cm->statistics;
	const uint8_t *bytes;
	size_t len, k;
	int64_t start, out = (int64_t)w->pos;
	pq_stats tmp;
	int rc;

	LOOM_TRY(pq_reader_chunk_bytes(r, g, i, &bytes, &len, &start));
	memset(m, 0, sizeof(*m));
	m->copied = 1;
	m->ci_off = m->oi_off = -1;
	m->file_offset = out;
	m->dict_page_offset = -1;
	if (cm->has_dictionary_page_offset && cm->dictionary_page_offset > 0 &&
	    cm->dictionary_page_offset < cm->data_page_offset)
		m->dict_page_offset = out + (cm->dictionary_page_offset - start);
	m->data_page_offset = out + (cm->data_page_offset - start);
	LOOM_TRY(sink_write(w, bytes, len));
	m->total_comp = (int64_t)len;
	m->total_uncomp = cm->total_uncompressed_size;
	m->num_values = cm->num_values;
	m->null_count = st->null_count;
	m->enc_off = w->enc_pool.size;
	m->n_enc = cm->num_encodings;
	for (k = 0; k < cm->num_encodings; k++)
		LOOM_TRY(loom_buf_put(&w->enc_pool, &cm->encodings[k], sizeof(int32_t)));
	/* the file's stats take the chunk's in */
	pq_stats_init(&tmp, L->cmp, L->width);
	tmp.null_count = st->null_count;
	tmp.num_values = cm->num_values - st->null_count;
	m->has_minmax = L->cmp != PQ_CMP_NONE && st->min_value.ptr && st->max_value.ptr;
	rc = 0;
	if (m->has_minmax) {
		m->min_off = w->stats_pool.size;
		m->min_len = st->min_value.len;
		m->max_len = st->max_value.len;
		rc = loom_buf_put(&w->stats_pool, st->min_value.ptr, st->min_value.len);
		m->max_off = w->stats_pool.size;
		if (rc == 0)
			rc = loom_buf_put(&w->stats_pool, st->max_value.ptr, st->max_value.len);
		if (rc == 0)
			rc = loom_buf_put(&tmp.min, st->min_value.ptr, st->min_value.len);
		if (rc == 0)
			rc = loom_buf_put(&tmp.max, st->max_value.ptr, st->max_value.len);
		tmp.has_minmax = 1;
	}
	if (rc == 0)
		rc = pq_stats_merge(&L->fstats, &tmp);
	pq_stats_dispose(&tmp);
	return rc;
}

int pq_writer_copy_row_group(pq_writer *w, pq_reader *r, size_t g)
{
	const pq_row_group *rg;
	rg_info *ri;
	size_t i;
	if (w->failed)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_PARQUET, "parquet writer: used after a failure");
	if (!pq_writer_can_copy(w, r, g))
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_PARQUET,
		                "parquet writer: row group %zu of %s cannot be copied into this file", g,
		                pq_reader_key(r));
	rg = &pq_reader_meta(r)->row_groups[g];
	if (flush_row_group(w) < 0 || grow_row_groups(w) < 0 || pq_reader_prefetch_row_group(r, g) < 0) {
		w->failed = 1;
		return loom_error_last()->code;
	}
	ri = &w->rgs[w->nrg];
	memset(ri, 0, sizeof(*ri));
	ri->num_rows = rg->num_rows;
	ri->file_offset = (int64_t)w->pos;
	for (i = 0; i < w->nleaves; i++) {
		chunk_meta *m = &w->metas[w->nrg * w->nleaves + i];
		if (copy_chunk(w, &w->leaves[i], r, g, i, m) < 0) {
			w->failed = 1;
			return loom_error_last()->code;
		}
		ri->total_byte_size += m->total_uncomp;
		ri->total_comp += m->total_comp;
	}
	w->nrg++;
	w->rows_total += rg->num_rows;
	w->any_copied = 1;
	return 0;
}

/* ---- close / free ----------------------------------------------------- */

static int fill_result(const pq_writer *w, pq_write_result *res)
{
	size_t i;
	memset(res, 0, sizeof(*res));
	res->file_size = w->pos;
	res->num_rows = w->rows_total;
	res->num_row_groups = w->nrg;
	res->leaves = loom_calloc(w->nleaves ? w->nleaves : 1, sizeof(pq_leaf_result));
	if (!res->leaves)
		return loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_PARQUET, "parquet writer: out of memory for the result");
	res->num_leaves = w->nleaves;
	for (i = 0; i < w->nleaves; i++) {
		const leaf *L = &w->leaves[i];
		const pq_schema_node *n = &w->schema[L->schema_index];
		pq_leaf_result *o = &res->leaves[i];
		*o = (pq_leaf_result){
			.path = loom_strdup(L->path),
			.schema_index = L->schema_index,
			.type = L->type,
			.type_length = L->type_length,
			.converted_type = derived_converted(n),
			.logical_type = n->logical_type,
			.scale = n->scale,
			.precision = n->precision,
			.max_def = L->max_def,
			.max_rep = L->max_rep,
			.cmp = L->cmp,
			.null_count = L->fstats.null_count,
			.num_values = L->fstats.num_values,
			.has_min_max = L->fstats.has_minmax && L->cmp != PQ_CMP_NONE,
		};
		if (!o->path)
			return loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_PARQUET, "parquet writer: out of memory for the result");
		if (o->has_min_max) {
			o->min_len = L->fstats.min.size;
			o->max_len = L->fstats.max.size;
			o->min = loom_malloc(o->min_len ? o->min_len : 1);
			o->max = loom_malloc(o->max_len ? o->max_len : 1);
			if (!o->min || !o->max)
				return loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_PARQUET, "parquet writer: out of memory for the result");
			if (o->min_len)
				memcpy(o->min, L->fstats.min.ptr, o->min_len);
			if (o->max_len)
				memcpy(o->max, L->fstats.max.ptr, o->max_len);
		}
	}
	return 0;
}

int pq_writer_close(pq_writer *w, pq_write_result *res)
{
	int rc;
	if (res)
		memset(res, 0, sizeof(*res));
	if (!w)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_PARQUET, "parquet writer: close of a NULL writer");
	if (w->failed) {
		pq_writer_free(w);
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_PARQUET, "parquet writer: closed after a failure");
	}
	rc = flush_row_group(w);
	if (rc == 0)
		rc = write_footer(w);
	if (rc == 0 && res) {
		rc = fill_result(w, res);
		if (rc < 0)
			pq_write_result_free(res);
	}
	pq_writer_free(w);
	return rc;
}

void pq_writer_free(pq_writer *w)
{
	size_t i;
	if (!w)
		return;
	for (i = 0; i < w->nleaves; i++) {
		leaf *L = &w->leaves[i];
		loom_free(L->path);
		loom_free((void *)L->parts);
		loom_free(L->pdef);
		loom_free(L->prep);
		loom_buf_dispose(&L->pplain);
		loom_free(L->pidx);
		pq_stats_dispose(&L->pstats);
		pq_dict_dispose(&L->dict);
		loom_buf_dispose(&L->chunk);
		pq_stats_dispose(&L->cstats);
		loom_free(L->pages);
		loom_buf_dispose(&L->pi_vals);
		pq_stats_dispose(&L->fstats);
		loom_buf_dispose(&L->own.body);
		loom_buf_dispose(&L->own.cbody);
		loom_buf_dispose(&L->own.hdr);
	}
	loom_free(w->leaves);
	if (w->schema)
		for (i = 0; i < w->nschema; i++)
			loom_free((void *)w->schema[i].name);
	loom_free(w->schema);
	loom_free(w->created_by);
	for (i = 0; i < w->kv_count; i++) {
		loom_free(w->kv_keys[i]);
		loom_free(w->kv_values[i]);
	}
	loom_free(w->kv_keys);
	loom_free(w->kv_values);
	loom_free(w->metas);
	loom_free(w->rgs);
	loom_buf_dispose(&w->stats_pool);
	loom_buf_dispose(&w->enc_pool);
	loom_buf_dispose(&w->ci_all);
	loom_buf_dispose(&w->oi_all);
	loom_buf_dispose(&w->shared.body);
	loom_buf_dispose(&w->shared.cbody);
	loom_buf_dispose(&w->shared.hdr);
	loom_free(w->cur_slot);
	loom_free(w->cur_val);
	loom_free(w->tasks);
	loom_free(w);
}

void pq_write_result_free(pq_write_result *r)
{
	size_t i;
	if (!r)
		return;
	for (i = 0; r->leaves && i < r->num_leaves; i++) {
		loom_free(r->leaves[i].path);
		loom_free(r->leaves[i].min);
		loom_free(r->leaves[i].max);
	}
	loom_free(r->leaves);
	memset(r, 0, sizeof(*r));
}

int pq_writer_flush_pages(pq_writer *w)
{
	size_t i;
	if (w->failed)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_PARQUET, "parquet writer: used after a failure");
	for (i = 0; i < w->nleaves; i++)
		if (w->leaves[i].plev > 0 && flush_page(w, &w->leaves[i]) < 0) {
			w->failed = 1;
			return loom_error_last()->code;
		}
	return 0;
}

int64_t pq_writer_rows(const pq_writer *w)
{
	return w->rows_total;
}

uint64_t pq_writer_bytes_written(const pq_writer *w)
{
	return w->pos;
}

uint64_t pq_writer_estimated_size(const pq_writer *w)
{
	double total = (double)w->pos, flushed_uncomp = 0, flushed_comp = 0, page_uncomp = 0, page_comp = 0;
	size_t i;
	for (i = 0; i < w->nrg; i++) {
		flushed_uncomp += (double)w->rgs[i].total_byte_size;
		flushed_comp += (double)w->rgs[i].total_comp;
	}
	for (i = 0; i < w->nleaves; i++) {
		page_uncomp += (double)w->leaves[i].c_uncomp;
		page_comp += (double)w->leaves[i].chunk.size;
	}
	for (i = 0; i < w->nleaves; i++) {
		const leaf *L = &w->leaves[i];
		/* what is not compressed yet counts at the ratio the file's row
		 * groups reached (dictionaries included), else at the ratio of the
		 * column's compressed pages so far, else of every column's */
		double ratio = flushed_uncomp > 0 ? flushed_comp / flushed_uncomp
		             : L->c_uncomp > 0 ? (double)L->chunk.size / (double)L->c_uncomp
		             : page_uncomp > 0 ? page_comp / page_uncomp : 1.0;
		double pending = (double)page_estimate(L);
		if (L->c_dict_pages || L->dict_on)
			pending += (double)L->dict.plain.size;
		total += (double)L->chunk.size + pending * (ratio < 1.0 ? ratio : 1.0);
	}
	return (uint64_t)total;
}
