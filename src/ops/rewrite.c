/* ops/rewrite.c - read live files, align to the table schema, drop
 * DV-deleted rows, write new files with stats. */
#include "ops/rewrite.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "codec/codec.h"
#include "delta/dv.h"
#include "delta/partition.h"
#include "delta/props.h"
#include "delta/protocol.h"
#include "parquet/reader.h"
#include "parquet/schema.h"
#include "util/alloc.h"
#include "util/arena.h"
#include "util/clock.h"
#include "util/error.h"
#include "util/percent.h"
#include "util/threadpool.h"
#include "util/uuid.h"

#define OPS_ERR(code, ...) loom_err((code), LOOM_ERRCLASS_OPS, __VA_ARGS__)

/* ---- settings ----------------------------------------------------------- */

static const char *kv_find(const loom_kv *kv, size_t n, const char *key)
{
	size_t i;
	for (i = 0; i < n; i++)
		if (kv[i].key && strcasecmp(kv[i].key, key) == 0)
			return kv[i].value;
	return NULL;
}

static int parse_count(const char *what, const char *s, int64_t *out)
{
	int64_t v = 0;
	const char *p = s;
	if (!*p)
		return OPS_ERR(LOOM_EINVAL, "writer setting %s is empty", what);
	for (; *p; p++) {
		if (*p == '_' || *p == ',')
			continue;
		if (*p < '0' || *p > '9' || v > INT64_MAX / 10)
			return OPS_ERR(LOOM_EINVAL, "writer setting %s: '%s' is not a whole number", what, s);
		v = v * 10 + (*p - '0');
	}
	*out = v;
	return 0;
}

int rewrite_ctx_init(rewrite_ctx *ctx, loom_store *store, const delta_snapshot *snap,
                     const loom_table_location *loc)
{
	delta_table_props props;
	const char *v;

	memset(ctx, 0, sizeof(*ctx));
	ctx->store = store;
	ctx->snap = snap;
	pq_writer_opts_default(&ctx->wopts);
	ctx->wopts.codec = PQ_CODEC_SNAPPY;
	/* Row groups of 64 MiB (encoded): half the writer default, so two
	 * concurrent bins hold less memory; still large for scans. */
	ctx->wopts.row_group_bytes = (size_t)16 << 20;
	/* A smaller dictionary budget: high-cardinality columns fall back to
	 * PLAIN after 256 KiB of distinct values instead of 1 MiB, so less time
	 * goes to hashing values a dictionary cannot help. */
	ctx->wopts.dict_limit_bytes = (size_t)256 << 10;
	LOOM_TRY(delta_props_parse(&snap->metadata, &props));
	ctx->sopts.num_indexed_cols = props.data_skipping_num_indexed_cols;
	ctx->sopts.stats_columns = props.data_skipping_stats_columns;
	ctx->sopts.tight_bounds = delta_protocol_has_feature(&snap->protocol, "deletionVectors");
	if ((v = delta_snapshot_property(snap, "delta.dataSkippingStringPrefixLength")) != NULL)
		ctx->sopts.string_prefix = atoi(v);
	if (!loc)
		return 0;
	if ((v = kv_find(loc->writer, loc->n_writer, "compression")) != NULL) {
		int c = loom_codec_from_name(v);
		if (c < 0 || c == LOOM_CODEC_LZ4_HADOOP || c == PQ_CODEC_LZO)
			return OPS_ERR(LOOM_EINVAL, "writer setting compression: unknown or unsupported codec '%s'", v);
		ctx->wopts.codec = c;
	}
	if ((v = kv_find(loc->writer, loc->n_writer, "compression_level")) != NULL) {
		int64_t lvl = 0; /* set on success; GCC 12 -O3 cannot see it */
		LOOM_TRY(parse_count("compression_level", v, &lvl));
		ctx->wopts.level = (int)lvl;
	}
	if ((v = kv_find(loc->writer, loc->n_writer, "row_group_size")) != NULL ||
	    (v = kv_find(loc->writer, loc->n_writer, "max_row_group_size")) != NULL)
		LOOM_TRY(parse_count("row_group_size", v, &ctx->row_group_rows));
	if ((v = kv_find(loc->writer, loc->n_writer, "row_group_bytes")) != NULL) {
		int64_t b = 0;
		LOOM_TRY(parse_count("row_group_bytes", v, &b));
		ctx->wopts.row_group_bytes = (size_t)b;
	}
	return 0;
}

/* ---- output names ------------------------------------------------------- */

int rewrite_partition_dir(const delta_snapshot *snap, const delta_file *f, loom_buf *out)
{
	uint32_t i;
	int cm = delta_snapshot_column_mapping(snap);
	for (i = 0; i < snap->metadata.num_partition_columns; i++) {
		const char *col = snap->metadata.partition_columns[i];
		const delta_field *fd = delta_schema_find(&snap->schema, col);
		const char *phys = fd ? delta_field_physical_name(fd, cm != 0) : col;
		int found = 0;
		const char *val = delta_partition_raw(snap, f, col, &found);
		LOOM_TRY(loom_hive_escape(out, phys, strlen(phys)));
		LOOM_TRY(loom_buf_putc(out, '='));
		if (!val || !*val)
			LOOM_TRY(loom_buf_puts(out, "__HIVE_DEFAULT_PARTITION__"));
		else
			LOOM_TRY(loom_hive_escape(out, val, strlen(val)));
		LOOM_TRY(loom_buf_putc(out, '/'));
	}
	return 0;
}

static int new_output_key(const rewrite_ctx *ctx, const delta_file *first, loom_buf *key)
{
	char uuid[37];
	const char *tag = loom_codec_file_tag(ctx->wopts.codec);
	LOOM_TRY(rewrite_partition_dir(ctx->snap, first, key));
	LOOM_TRY(loom_uuid_v4_string(uuid));
	return loom_buf_printf(key, "part-00000-%s-c000%s%s.parquet", uuid, tag ? "." : "", tag ? tag : "");
}

/* ---- the output schema -------------------------------------------------- */

typedef struct out_field {
	const char *phys;
	int64_t field_id;          /* column mapping id, -1 */
	int present;               /* some input file has it */
	int missing;               /* some input file lacks it */
	size_t node_begin, node_count; /* in the output node array */
	size_t leaf_begin, num_leaves; /* in the output leaves */
	int optional;
} out_field;

typedef struct out_schema {
	loom_arena arena;
	pq_schema_node *nodes;
	size_t num_nodes, cap;
	out_field *fields;
	size_t num_fields;
	pq_schema *schema;         /* built over nodes once complete */
	const char *root_name;
} out_schema;

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

static int node_equal(const pq_schema_node *a, const pq_schema_node *b)
{
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
static long find_top(const pq_schema *s, const out_field *f)
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

static void out_schema_dispose(out_schema *o)
{
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

static int out_schema_init(out_schema *o, const delta_snapshot *snap)
{
	const delta_type *root = &snap->schema.root;
	int cm = delta_snapshot_column_mapping(snap);
	size_t i;

	memset(o, 0, sizeof(*o));
	loom_arena_init(&o->arena, 0);
	o->fields = loom_calloc(root->num_fields ? root->num_fields : 1, sizeof(out_field));
	if (!o->fields)
		return OPS_ERR(LOOM_ENOMEM, "out of memory");
	for (i = 0; i < root->num_fields; i++) {
		const delta_field *f = &root->fields[i];
		out_field *of;
		if (is_partition_column(snap, f->name))
			continue;
		of = &o->fields[o->num_fields++];
		of->phys = delta_field_physical_name(f, cm != 0);
		of->field_id = cm == 1 ? f->column_mapping_id : -1;
	}
	return 0;
}

/* Take the subtrees of the fields file `s` has that no earlier file had,
 * and check the others match. */
static int out_schema_merge(out_schema *o, const pq_schema *s, const char *file)
{
	size_t i, j;
	if (!o->root_name)
		o->root_name = loom_arena_strdup(&o->arena, s->nodes[0].name ? s->nodes[0].name : "schema");
	for (i = 0; i < o->num_fields; i++) {
		out_field *f = &o->fields[i];
		long top = find_top(s, f);
		size_t end;
		if (top < 0) {
			f->missing = 1;
			continue;
		}
		end = subtree_end(s->nodes, s->num_nodes, (size_t)top);
		if (!f->present) {
			size_t cnt = end - (size_t)top;
			f->present = 1;
			f->node_count = cnt;
			f->optional = !(s->nodes[top].has_repetition && s->nodes[top].repetition == PQ_REQUIRED);
			f->node_begin = o->num_nodes; /* provisional: renumbered in finish */
			if (o->num_nodes + cnt > o->cap) {
				size_t nc = (o->num_nodes + cnt) * 2 + 8;
				pq_schema_node *g = loom_reallocarray(o->nodes, nc, sizeof(*g));
				if (!g)
					return OPS_ERR(LOOM_ENOMEM, "out of memory");
				o->nodes = g;
				o->cap = nc;
			}
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
			if (!node_equal(&a, &s->nodes[top + (long)j]))
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
static int out_schema_finish(out_schema *o)
{
	size_t total = 1, i, pos = 1, leaf = 0;
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
		out_field *f = &o->fields[i];
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
	LOOM_TRY(pq_schema_build(&o->schema, o->nodes, o->num_nodes, "rewrite output schema"));
	for (i = 0; i < o->num_fields; i++) {
		out_field *f = &o->fields[i];
		if (!f->present)
			continue;
		f->leaf_begin = (size_t)o->schema->first_leaf[f->node_begin];
		f->num_leaves = (size_t)o->schema->num_leaves_under[f->node_begin];
		(void)leaf;
	}
	return 0;
}

/* ---- writing ------------------------------------------------------------ */

typedef struct writer_state {
	const rewrite_ctx *ctx;
	const out_schema *os;
	const delta_file *first;
	rewrite_result *res;
	loom_store_writer *sink;
	pq_writer *w;
	char *key;
	pq_writer_opts wopts;
} writer_state;

static int writer_start(writer_state *ws)
{
	loom_buf key = LOOM_BUF_INIT;
	int rc;
	if ((rc = new_output_key(ws->ctx, ws->first, &key)) < 0) {
		loom_buf_dispose(&key);
		return rc;
	}
	ws->key = loom_buf_detach(&key);
	if (!ws->key)
		return OPS_ERR(LOOM_ENOMEM, "out of memory");
	rc = ws->ctx->store->writer_open(ws->ctx->store, ws->key, LOOM_PUT_IF_ABSENT, &ws->sink);
	if (rc < 0)
		return loom_err_wrap("creating %s", ws->key);
	rc = pq_writer_open(&ws->w, ws->sink, ws->os->nodes, ws->os->num_nodes, &ws->wopts);
	if (rc < 0) {
		ws->sink->abort(ws->sink);
		ws->sink = NULL;
		return loom_err_wrap("writing %s", ws->key);
	}
	return 0;
}

static void writer_abort(writer_state *ws)
{
	pq_writer_free(ws->w);
	ws->w = NULL;
	if (ws->sink)
		ws->sink->abort(ws->sink);
	ws->sink = NULL;
	loom_free(ws->key);
	ws->key = NULL;
}

static int writer_finish(writer_state *ws)
{
	pq_write_result wr;
	rewrite_output *o, *grown;
	delta_stats_leaf *leaves = NULL;
	loom_buf stats = LOOM_BUF_INIT, raw = LOOM_BUF_INIT;
	size_t i;
	int rc;

	memset(&wr, 0, sizeof(wr));
	rc = pq_writer_close(ws->w, &wr);
	ws->w = NULL;
	if (rc < 0) {
		loom_err_wrap("writing %s", ws->key);
		goto fail;
	}
	rc = ws->sink->commit(ws->sink);
	ws->sink = NULL;
	if (rc < 0) {
		loom_err_wrap("publishing %s", ws->key);
		goto fail;
	}
	/* recorded first: from here on the file exists and must be cleaned up */
	grown = loom_reallocarray(ws->res->files, ws->res->num_files + 1, sizeof(*grown));
	if (!grown) {
		rc = OPS_ERR(LOOM_ENOMEM, "out of memory");
		ws->ctx->store->remove(ws->ctx->store, ws->key);
		goto fail;
	}
	ws->res->files = grown;
	o = &grown[ws->res->num_files++];
	memset(o, 0, sizeof(*o));
	o->key = ws->key;
	ws->key = NULL;
	o->size = (int64_t)wr.file_size;
	o->num_records = wr.num_rows;
	o->modification_time = loom_clock_wall_ms(NULL);
	if ((rc = loom_percent_encode_path(&raw, o->key, strlen(o->key))) < 0)
		goto out;
	o->path_raw = loom_buf_detach(&raw);
	leaves = loom_calloc(wr.num_leaves ? wr.num_leaves : 1, sizeof(*leaves));
	if (!leaves || wr.num_leaves != ws->os->schema->num_leaves) {
		rc = OPS_ERR(LOOM_ENOMEM, "out of memory");
		goto out;
	}
	for (i = 0; i < wr.num_leaves; i++) {
		delta_stats_leaf_from_schema(&leaves[i], ws->os->schema, i);
		leaves[i].null_count = wr.leaves[i].null_count;
		leaves[i].has_min_max = wr.leaves[i].has_min_max;
		leaves[i].min = wr.leaves[i].min;
		leaves[i].max = wr.leaves[i].max;
		leaves[i].min_len = wr.leaves[i].min_len;
		leaves[i].max_len = wr.leaves[i].max_len;
	}
	if ((rc = delta_stats_json(&stats, wr.num_rows, leaves, wr.num_leaves, &ws->ctx->sopts)) < 0)
		goto out;
	o->stats = loom_buf_detach(&stats);
	if (!o->stats || !o->path_raw)
		rc = OPS_ERR(LOOM_ENOMEM, "out of memory");
out:
	loom_free(leaves);
	loom_buf_dispose(&stats);
	loom_buf_dispose(&raw);
	pq_write_result_free(&wr);
	return rc;
fail:
	writer_abort(ws);
	pq_write_result_free(&wr);
	return rc;
}

static int writer_put(writer_state *ws, const pq_batch *b)
{
	if (b->num_rows == 0)
		return 0;
	if (!ws->w)
		LOOM_TRY(writer_start(ws));
	if (pq_writer_write(ws->w, b) < 0)
		return loom_err_wrap("writing %s", ws->key);
	ws->res->batches++;
	if (ws->ctx->split_bytes && pq_writer_bytes_written(ws->w) >= ws->ctx->split_bytes)
		return writer_finish(ws);
	return 0;
}

/* ---- reading ------------------------------------------------------------ */

typedef struct read_state {
	int16_t *zeros;           /* shared all-zero levels for null columns */
	size_t zeros_cap;
	pq_batch in, view, kept;
	size_t *present;          /* input leaf per present output leaf */
	long *map;                /* output leaf -> index in `present`, -1 null */
	uint8_t *shift;           /* output leaf: input top-level node required,
	                             output optional: def levels + 1 */
	int16_t **defs;           /* per output leaf: shifted def levels */
	size_t *defs_cap;
	size_t nout;
	size_t worker;            /* passed to the hook's rows() */
	size_t *outs;             /* output leaves this pass produces */
	size_t nouts;
	size_t *prev_present;     /* the last file's mapping (batch reuse) */
	long *prev_map;
	size_t prev_npresent;
} read_state;

static int shifted_defs(read_state *rs, size_t leaf, const pq_column *in, int16_t **out)
{
	size_t i, n = in->num_levels;
	if (n > rs->defs_cap[leaf]) {
		loom_free(rs->defs[leaf]);
		rs->defs[leaf] = loom_malloc((n ? n : 1) * sizeof(int16_t));
		if (!rs->defs[leaf]) {
			rs->defs_cap[leaf] = 0;
			return OPS_ERR(LOOM_ENOMEM, "out of memory");
		}
		rs->defs_cap[leaf] = n;
	}
	for (i = 0; i < n; i++)
		rs->defs[leaf][i] = (int16_t)((in->def_levels ? in->def_levels[i] : 0) + 1);
	*out = rs->defs[leaf];
	return 0;
}

static void read_state_dispose(read_state *rs)
{
	loom_free(rs->zeros);
	pq_batch_free(&rs->in);
	loom_free(rs->view.columns);
	pq_batch_free(&rs->kept);
	size_t i;
	loom_free(rs->present);
	loom_free(rs->map);
	loom_free(rs->outs);
	loom_free(rs->shift);
	loom_free(rs->prev_present);
	loom_free(rs->prev_map);
	for (i = 0; rs->defs && i < rs->nout; i++)
		loom_free(rs->defs[i]);
	loom_free(rs->defs);
	loom_free(rs->defs_cap);
}

static int ensure_zeros(read_state *rs, size_t n)
{
	if (n <= rs->zeros_cap)
		return 0;
	loom_free(rs->zeros);
	rs->zeros = loom_calloc(n, sizeof(int16_t));
	if (!rs->zeros)
		return OPS_ERR(LOOM_ENOMEM, "out of memory");
	rs->zeros_cap = n;
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

/* The store key of a live file: its relative path, or an absolute URI or
 * path inside the table root ("file:///t/x.parquet" in a table at /t).
 * Files outside the root belong to someone else and are not rewritten. */
static int source_key(const rewrite_ctx *ctx, const delta_file *f, const char **key)
{
	int rc = loom_store_key_of(ctx->store, f->path, key);
	if (rc == LOOM_ENOMEM)
		return rc;
	if (rc < 0)
		return OPS_ERR(LOOM_EUNSUPPORTED, "%s: data files outside the table root %s are not "
		               "rewritten", f->path, loom_store_root(ctx->store));
	return 0;
}

/* `mask` (per output leaf, 1 = read) projects the pass; NULL reads all. */
static int rewrite_one(const rewrite_ctx *ctx, const out_schema *os, const delta_file *f,
                       const uint8_t *mask, read_state *rs, writer_state *ws)
{
	pq_reader *r = NULL;
	delta_row_filter *dv = NULL;
	const pq_schema *s;
	const pq_file_meta *m;
	size_t i, k, npresent = 0, nout = os->schema->num_leaves, g;
	uint64_t base = 0;
	const char *key;
	int rc;

	LOOM_TRY(source_key(ctx, f, &key));
	if ((rc = pq_reader_open_sized(&r, ctx->store, key, (uint64_t)f->size)) < 0)
		return loom_err_wrap("reading %s", f->path);
	s = pq_reader_schema(r);
	m = pq_reader_meta(r);
	if (f->dv.storage_type && (rc = delta_dv_load(ctx->store, &f->dv, &dv)) < 0) {
		loom_err_wrap("deletion vector of %s", f->path);
		goto done;
	}
	loom_free(rs->present);
	loom_free(rs->map);
	rs->present = loom_calloc(nout + 1, sizeof(size_t));
	rs->map = loom_calloc(nout + 1, sizeof(long));
	if (!rs->present || !rs->map) {
		rc = OPS_ERR(LOOM_ENOMEM, "out of memory");
		goto done;
	}
	if (!rs->shift) {
		rs->nout = nout;
		rs->outs = loom_calloc(nout + 1, sizeof(size_t));
		rs->shift = loom_calloc(nout + 1, 1);
		rs->defs = loom_calloc(nout + 1, sizeof(int16_t *));
		rs->defs_cap = loom_calloc(nout + 1, sizeof(size_t));
		if (!rs->shift || !rs->defs || !rs->defs_cap || !rs->outs) {
			rc = OPS_ERR(LOOM_ENOMEM, "out of memory");
			goto done;
		}
	}
	rs->nouts = 0;
	for (i = 0; i < nout; i++) {
		rs->map[i] = -1;
		rs->shift[i] = 0;
		if (!mask || mask[i])
			rs->outs[rs->nouts++] = i;
	}
	for (i = 0; i < os->num_fields; i++) {
		const out_field *of = &os->fields[i];
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
			rs->shift[of->leaf_begin + j] =
			    s->nodes[top].has_repetition && s->nodes[top].repetition == PQ_REQUIRED && of->optional;
			rs->map[of->leaf_begin + j] = (long)npresent;
			rs->present[npresent++] = (size_t)s->first_leaf[top] + j;
		}
	}
	if (!rs->view.columns) {
		rs->view.columns = loom_calloc(nout ? nout : 1, sizeof(pq_column));
		if (!rs->view.columns) {
			rc = OPS_ERR(LOOM_ENOMEM, "out of memory");
			goto done;
		}
		rs->view.borrowed = 1;
	}
	rs->view.num_columns = rs->nouts;
	/* Reuse the input batch (fresh memory is expensive) unless this file
	 * maps different leaves than the last one. */
	if (!rs->prev_present || rs->prev_npresent != npresent ||
	    memcmp(rs->prev_present, rs->present, npresent * sizeof(size_t)) != 0 ||
	    memcmp(rs->prev_map, rs->map, nout * sizeof(long)) != 0) {
		pq_batch_free(&rs->in);
		memset(&rs->in, 0, sizeof(rs->in));
		loom_free(rs->prev_present);
		loom_free(rs->prev_map);
		rs->prev_present = loom_malloc((npresent + 1) * sizeof(size_t));
		rs->prev_map = loom_malloc((nout + 1) * sizeof(long));
		if (!rs->prev_present || !rs->prev_map) {
			rc = OPS_ERR(LOOM_ENOMEM, "out of memory");
			goto done;
		}
		memcpy(rs->prev_present, rs->present, npresent * sizeof(size_t));
		memcpy(rs->prev_map, rs->map, nout * sizeof(long));
		rs->prev_npresent = npresent;
	}
	for (g = 0; g < m->num_row_groups; g++) {
		const pq_batch *out_b = &rs->view;
		size_t rows;
		if (loom_cancel_requested(ctx->cancel)) {
			rc = OPS_ERR(LOOM_ECANCELLED, "compaction cancelled");
			goto done;
		}
		rows = (size_t)m->row_groups[g].num_rows;
		if (npresent) {
			if ((rc = pq_reader_read_row_group(r, g, rs->present, npresent, &rs->in)) < 0) {
				loom_err_wrap("reading %s row group %zu", f->path, g);
				goto done;
			}
			rows = rs->in.num_rows;
		}
		if ((rc = ensure_zeros(rs, rows + 2)) < 0)
			goto done;
		for (k = 0; k < rs->nouts; k++) {
			pq_column *c = &rs->view.columns[k];
			i = rs->outs[k];
			if (rs->map[i] >= 0) {
				*c = rs->in.columns[rs->map[i]];
				if (rs->shift[i]) {
					if ((rc = shifted_defs(rs, i, c, &c->def_levels)) < 0)
						goto done;
					c->max_def++;
				}
			} else {
				const pq_leaf *l = &os->schema->leaves[i];
				memset(c, 0, sizeof(*c));
				c->type = l->type;
				c->type_length = l->type_length;
				c->max_def = l->max_def;
				c->max_rep = l->max_rep;
				c->num_levels = rows;
				c->def_levels = l->max_def ? rs->zeros : NULL;
				c->rep_levels = l->max_rep ? rs->zeros : NULL;
				if (l->type == PQ_BYTE_ARRAY)
					c->offsets = (uint32_t *)(void *)rs->zeros; /* one 0 offset */
			}
		}
		rs->view.num_rows = rows;
		ws->res->rows_in += (int64_t)rows;
		if (dv) {
			if (rs->kept.num_columns != rs->nouts) {
				pq_batch_free(&rs->kept);
				memset(&rs->kept, 0, sizeof(rs->kept));
				if ((rc = pq_batch_init(&rs->kept, rs->nouts)) < 0)
					goto done;
			}
			if ((rc = drop_deleted(&rs->kept, &rs->view, dv, base, &ws->res->rows_deleted)) < 0)
				goto done;
			out_b = &rs->kept;
		}
		if (ctx->hook)
			rc = ctx->hook->rows(ctx->hook->arg, rs->worker, out_b);
		else
			rc = writer_put(ws, out_b);
		if (rc < 0)
			goto done;
		base += rows;
	}
done:
	delta_row_filter_free(dv);
	pq_reader_free(r);
	return rc;
}

static int configure_row_groups(const rewrite_ctx *ctx, const delta_file *f, pq_writer_opts *o)
{
	pq_reader *r = NULL;
	const pq_file_meta *m;
	size_t g;
	int64_t rows = 0, bytes = 0;
	if (ctx->row_group_rows <= 0 || pq_reader_open(&r, ctx->store, f->path) < 0)
		return 0;
	m = pq_reader_meta(r);
	for (g = 0; g < m->num_row_groups; g++) {
		rows += m->row_groups[g].num_rows;
		bytes += m->row_groups[g].total_byte_size;
	}
	if (rows > 0 && bytes > 0)
		o->row_group_bytes = (size_t)((double)bytes / (double)rows * (double)ctx->row_group_rows);
	pq_reader_free(r);
	return 0;
}

/* ---- a hook pass read by several threads ---------------------------------- */

typedef struct pass_worker {
	const rewrite_ctx *ctx;
	const out_schema *os;
	const delta_file *const *files;
	size_t n;
	const uint8_t *mask;
	size_t stride;               /* every stride-th file */
	atomic_size_t *next;         /* the next file to take */
	atomic_int *failed;
	read_state rs;
	rewrite_result res;          /* row counts */
	writer_state ws;             /* never opens a file: rows go to the hook */
	int rc;
	loom_error err;
} pass_worker;

static void pass_worker_run(void *arg)
{
	pass_worker *w = arg;
	w->ws.res = &w->res;
	for (;;) {
		size_t i = atomic_fetch_add(w->next, w->stride);
		if (i >= w->n || atomic_load(w->failed))
			return;
		if ((w->rc = rewrite_one(w->ctx, w->os, w->files[i], w->mask, &w->rs, &w->ws)) < 0) {
			loom_err_copy(&w->err);
			atomic_store(w->failed, 1);
			return;
		}
	}
}

static int parallel_pass(const rewrite_ctx *ctx, const out_schema *os, const delta_file *const *files,
                         size_t n, const uint8_t *mask, size_t stride, size_t nworkers,
                         rewrite_result *res)
{
	pass_worker *w = loom_calloc(nworkers, sizeof(*w));
	loom_threadpool *pool = NULL;
	atomic_size_t next = 0;
	atomic_int failed = 0;
	size_t i;
	int rc = 0;
	if (!w)
		return OPS_ERR(LOOM_ENOMEM, "out of memory");
	if ((rc = loom_threadpool_new(&pool, nworkers)) < 0) {
		loom_free(w);
		return rc;
	}
	for (i = 0; i < nworkers; i++) {
		w[i].ctx = ctx;
		w[i].os = os;
		w[i].files = files;
		w[i].n = n;
		w[i].mask = mask;
		w[i].stride = stride;
		w[i].next = &next;
		w[i].failed = &failed;
		w[i].rs.worker = i;
		w[i].ws.ctx = ctx;
		w[i].ws.os = os;
		if ((rc = loom_threadpool_submit(pool, pass_worker_run, &w[i])) < 0) {
			atomic_store(&failed, 1);
			break;
		}
	}
	loom_threadpool_wait(pool);
	loom_threadpool_free(pool);
	for (i = 0; i < nworkers; i++) {
		if (rc == 0 && w[i].rc < 0)
			rc = loom_err(w[i].err.code, w[i].err.klass, "%s", w[i].err.message);
		res->rows_in += w[i].res.rows_in;
		res->rows_deleted += w[i].res.rows_deleted;
		read_state_dispose(&w[i].rs);
	}
	loom_free(w);
	return rc;
}

/* ---- the hook's sorted batches, written on a second thread -------------- */

/* One batch in flight: the writer thread encodes batch k while the hook
 * produces batch k + 1 (the hook keeps k valid until it is asked for
 * k + 2, see rewrite_hook). */
typedef struct write_pipe {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	writer_state *ws;
	const pq_batch *slot;        /* handed over, not yet written */
	int stop, rc;
	loom_error err;
} write_pipe;

static void *write_pipe_main(void *arg)
{
	write_pipe *p = arg;
	pthread_mutex_lock(&p->mu);
	for (;;) {
		const pq_batch *b;
		int rc;
		while (!p->slot && !p->stop)
			pthread_cond_wait(&p->cv, &p->mu);
		if (!p->slot)
			break;
		b = p->slot;
		pthread_mutex_unlock(&p->mu);
		rc = p->rc < 0 ? 0 : writer_put(p->ws, b);
		pthread_mutex_lock(&p->mu);
		if (rc < 0 && p->rc == 0) {
			p->rc = rc;
			loom_err_copy(&p->err);
		}
		p->slot = NULL;
		pthread_cond_broadcast(&p->cv);
	}
	pthread_mutex_unlock(&p->mu);
	return NULL;
}

/* Wait until the batch in flight is written; hand over b (NULL: none). */
static int write_pipe_put(write_pipe *p, const pq_batch *b)
{
	int rc;
	pthread_mutex_lock(&p->mu);
	while (p->slot)
		pthread_cond_wait(&p->cv, &p->mu);
	rc = p->rc;
	if (rc == 0 && b) {
		p->slot = b;
		pthread_cond_broadcast(&p->cv);
	}
	pthread_mutex_unlock(&p->mu);
	if (rc < 0)
		return loom_err(p->err.code, p->err.klass, "%s", p->err.message);
	return 0;
}

/* Drain the hook to the end of this pass through the writer thread. */
static int drain_piped(const rewrite_ctx *ctx, writer_state *ws, int *again)
{
	write_pipe p;
	pthread_t th;
	int rc = 0, rc2;
	memset(&p, 0, sizeof(p));
	p.ws = ws;
	pthread_mutex_init(&p.mu, NULL);
	pthread_cond_init(&p.cv, NULL);
	if (pthread_create(&th, NULL, write_pipe_main, &p) != 0) {
		pthread_mutex_destroy(&p.mu);
		pthread_cond_destroy(&p.cv);
		return OPS_ERR(LOOM_ERROR, "cannot start the writer thread");
	}
	for (;;) {
		const pq_batch *b = NULL;
		if ((rc = ctx->hook->drain(ctx->hook->arg, 0, &b, again)) < 0 || !b)
			break;
		if ((rc = write_pipe_put(&p, b)) < 0)
			break;
	}
	rc2 = write_pipe_put(&p, NULL); /* the last batch is written */
	pthread_mutex_lock(&p.mu);
	p.stop = 1;
	pthread_cond_broadcast(&p.cv);
	pthread_mutex_unlock(&p.mu);
	pthread_join(th, NULL);
	pthread_mutex_destroy(&p.mu);
	pthread_cond_destroy(&p.cv);
	return rc < 0 ? rc : rc2;
}

/* ---- several lanes, each draining to its own files ----------------------- */

typedef struct lane_task {
	const rewrite_ctx *ctx;
	size_t lane;
	writer_state ws;
	rewrite_result res;          /* files this lane wrote */
	int again, rc;
	loom_error err;
} lane_task;

static void lane_run(void *arg)
{
	lane_task *t = arg;
	const rewrite_hook *h = t->ctx->hook;
	t->ws.res = &t->res;
	for (;;) {
		const pq_batch *b = NULL;
		if ((t->rc = h->drain(h->arg, t->lane, &b, &t->again)) < 0 || !b)
			break;
		if ((t->rc = writer_put(&t->ws, b)) < 0)
			break;
	}
	if (t->rc == 0 && t->ws.w)
		t->rc = writer_finish(&t->ws);
	if (t->rc < 0) {
		loom_err_copy(&t->err);
		if (t->ws.w || t->ws.sink || t->ws.key)
			writer_abort(&t->ws);
	}
}

/* Run `nlanes` drains at once; every file any lane wrote lands in res
 * (even on failure, so the caller can delete it). */
static int drain_lanes(const rewrite_ctx *ctx, const writer_state *proto, size_t nlanes,
                       rewrite_result *res, int *again)
{
	lane_task *t = loom_calloc(nlanes, sizeof(*t));
	loom_threadpool *pool = NULL;
	size_t i, j;
	int rc = 0;
	if (!t)
		return OPS_ERR(LOOM_ENOMEM, "out of memory");
	if ((rc = loom_threadpool_new(&pool, nlanes)) < 0) {
		loom_free(t);
		return rc;
	}
	for (i = 0; i < nlanes; i++) {
		t[i].ctx = ctx;
		t[i].lane = i;
		t[i].ws = *proto;
		t[i].ws.sink = NULL;
		t[i].ws.w = NULL;
		t[i].ws.key = NULL;
		t[i].ws.wopts.pool = NULL; /* the lanes are the parallelism */
		if (loom_threadpool_submit(pool, lane_run, &t[i]) < 0)
			lane_run(&t[i]);
	}
	loom_threadpool_wait(pool);
	loom_threadpool_free(pool);
	for (i = 0; i < nlanes; i++) {
		rewrite_output *grown = NULL;
		if (rc == 0 && t[i].rc < 0)
			rc = loom_err(t[i].err.code, t[i].err.klass, "%s", t[i].err.message);
		*again |= t[i].again;
		res->batches += t[i].res.batches;
		if (t[i].res.num_files)
			grown = loom_reallocarray(res->files, res->num_files + t[i].res.num_files, sizeof(*grown));
		if (!grown) {
			if (t[i].res.num_files) {
				/* cannot record them: delete them here */
				for (j = 0; j < t[i].res.num_files; j++)
					ctx->store->remove(ctx->store, t[i].res.files[j].key);
				rewrite_result_dispose(&t[i].res);
				if (rc == 0)
					rc = OPS_ERR(LOOM_ENOMEM, "out of memory");
			}
			continue;
		}
		res->files = grown;
		memcpy(res->files + res->num_files, t[i].res.files, t[i].res.num_files * sizeof(*grown));
		res->num_files += t[i].res.num_files;
		loom_free(t[i].res.files);
	}
	loom_free(t);
	return rc;
}

int rewrite_files(const rewrite_ctx *ctx, const delta_file *const *files, size_t n,
                  rewrite_result *res)
{
	uint64_t input_bytes = 0, input_rows = 0;
	out_schema os;
	read_state rs;
	writer_state ws;
	size_t i;
	int rc = 0;

	memset(&rs, 0, sizeof(rs));
	memset(&ws, 0, sizeof(ws));
	if ((rc = out_schema_init(&os, ctx->snap)) < 0)
		goto done;
	/* schema pass: footers only */
	for (i = 0; i < n && rc == 0; i++) {
		pq_reader *r = NULL;
		const char *key;
		if ((rc = source_key(ctx, files[i], &key)) < 0)
			break;
		if ((rc = pq_reader_open_sized(&r, ctx->store, key, (uint64_t)files[i]->size)) < 0) {
			loom_err_wrap("reading %s", files[i]->path);
			break;
		}
		rc = out_schema_merge(&os, pq_reader_schema(r), files[i]->path);
		{
			const pq_file_meta *m = pq_reader_meta(r);
			size_t g;
			for (g = 0; g < m->num_row_groups; g++) {
				input_bytes += (uint64_t)(m->row_groups[g].total_byte_size > 0 ?
				                          m->row_groups[g].total_byte_size : 0);
				input_rows += (uint64_t)(m->row_groups[g].num_rows > 0 ? m->row_groups[g].num_rows : 0);
			}
		}
		pq_reader_free(r);
	}
	if (rc < 0 || (rc = out_schema_finish(&os)) < 0)
		goto done;
	ws.ctx = ctx;
	ws.os = &os;
	ws.first = files[0];
	ws.res = res;
	ws.wopts = ctx->wopts;
	configure_row_groups(ctx, files[0], &ws.wopts);
	if (ctx->hook && ctx->hook->begin)
		rc = ctx->hook->begin(ctx->hook->arg, os.schema, input_bytes, input_rows);
	{
		int again = 1, pass;
		/* every pass reads the same rows (a projected or strided pass only
		 * fewer of them): the counts are those of the last pass */
		int64_t in0 = res->rows_in, del0 = res->rows_deleted;
		for (pass = 0; again && rc == 0; pass++) {
			again = 0;
			res->rows_in = in0;
			res->rows_deleted = del0;
			const uint8_t *mask = ctx->hook && ctx->hook->projection ?
			                      ctx->hook->projection(ctx->hook->arg) : NULL;
			size_t workers = ctx->hook && ctx->hook->workers ? ctx->hook->workers(ctx->hook->arg) : 1;
			if (workers > n)
				workers = n;
			size_t stride = ctx->hook && ctx->hook->file_stride ? ctx->hook->file_stride(ctx->hook->arg) : 1;
			if (stride < 1)
				stride = 1;
			if (workers > 1)
				rc = parallel_pass(ctx, &os, files, n, mask, stride, workers, res);
			for (i = 0; workers <= 1 && i < n && rc == 0; i += stride)
				rc = rewrite_one(ctx, &os, files[i], mask, &rs, &ws);
			size_t nlanes = rc == 0 && ctx->hook && ctx->hook->lanes ? ctx->hook->lanes(ctx->hook->arg) : 1;
			if (rc == 0 && ctx->hook && nlanes > 1) {
				rc = drain_lanes(ctx, &ws, nlanes, res, &again);
			} else if (rc == 0 && ctx->hook && ctx->hook->piped) {
				rc = drain_piped(ctx, &ws, &again);
			}
			while (rc == 0 && ctx->hook && nlanes <= 1 && !ctx->hook->piped) {
				const pq_batch *b = NULL;
				if ((rc = ctx->hook->drain(ctx->hook->arg, 0, &b, &again)) < 0 || !b)
					break;
				rc = writer_put(&ws, b);
			}
		}
	}
	if (rc == 0 && ws.w)
		rc = writer_finish(&ws);
done:
	if (ws.w || ws.sink || ws.key)
		writer_abort(&ws);
	read_state_dispose(&rs);
	out_schema_dispose(&os);
	return rc;
}

void rewrite_result_dispose(rewrite_result *res)
{
	size_t i;
	if (!res)
		return;
	for (i = 0; i < res->num_files; i++) {
		loom_free(res->files[i].key);
		loom_free(res->files[i].path_raw);
		loom_free(res->files[i].stats);
	}
	loom_free(res->files);
	memset(res, 0, sizeof(*res));
}
