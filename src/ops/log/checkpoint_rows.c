/* ops/log/checkpoint_rows.c - the rows of checkpoint Parquet files: one row
 * per action, every other action column null (checkpoint_schema.c has the
 * layouts). Classic checkpoints, V2 sidecars and the classic-named V2
 * checkpoint all come out of here. */
#include <stdio.h>
#include <string.h>

#include "delta/checkpoint.h"
#include "ops/log/checkpoint.h"
#include "parquet/writer.h"
#include "util/error.h"
#include "util/hashmap.h"

#define FLUSH_ROWS 4096

/* ---- row emission ------------------------------------------------------- */

/* Each helper appends one level slot (or, for maps and lists, the slots of
 * one row) to a column; `base` is the definition level at which the field's
 * parent struct is present. */

static int put_null(pq_column *c, int16_t def)
{
	return pq_column_append(c, def, 0, NULL, 0);
}

static int put_str(pq_column *c, int16_t base, const char *s)
{
	if (!s)
		return put_null(c, base);
	return pq_column_append(c, (int16_t)(base + 1), 0, s, strlen(s));
}

static int put_i64(pq_column *c, int16_t base, int present, int64_t v)
{
	uint8_t le[8];
	uint64_t u = (uint64_t)v;
	int k;
	if (!present)
		return put_null(c, base);
	for (k = 0; k < 8; k++)
		le[k] = (uint8_t)(u >> (8 * k));
	return pq_column_append(c, (int16_t)(base + 1), 0, le, 8);
}

static int put_i32(pq_column *c, int16_t base, int present, int32_t v)
{
	uint8_t le[4];
	uint32_t u = (uint32_t)v;
	int k;
	if (!present)
		return put_null(c, base);
	for (k = 0; k < 4; k++)
		le[k] = (uint8_t)(u >> (8 * k));
	return pq_column_append(c, (int16_t)(base + 1), 0, le, 4);
}

static int put_bool(pq_column *c, int16_t base, int v)
{
	uint8_t b = v ? 1 : 0;
	return pq_column_append(c, (int16_t)(base + 1), 0, &b, 1);
}

/* MAP<string,string>: `present` 0 writes a null map. */
static int put_map(pq_column *ck, pq_column *cv, int16_t base, int present, const delta_kv *kv,
                   uint32_t n)
{
	uint32_t i;
	if (!present || n == 0) {
		int16_t d = present ? (int16_t)(base + 1) : base;
		LOOM_TRY(put_null(ck, d));
		return put_null(cv, d);
	}
	for (i = 0; i < n; i++) {
		int16_t rep = i ? 1 : 0;
		const char *k = kv[i].key ? kv[i].key : "";
		LOOM_TRY(pq_column_append(ck, (int16_t)(base + 2), rep, k, strlen(k)));
		if (kv[i].value)
			LOOM_TRY(pq_column_append(cv, (int16_t)(base + 3), rep, kv[i].value,
			                          strlen(kv[i].value)));
		else
			LOOM_TRY(pq_column_append(cv, (int16_t)(base + 2), rep, NULL, 0));
	}
	return 0;
}

/* LIST<string>: `items` NULL writes a null list. */
static int put_list(pq_column *c, int16_t base, const char **items, uint32_t n)
{
	uint32_t i;
	if (!items)
		return put_null(c, base);
	if (n == 0)
		return put_null(c, (int16_t)(base + 1));
	for (i = 0; i < n; i++) {
		int16_t rep = i ? 1 : 0;
		if (items[i])
			LOOM_TRY(pq_column_append(c, (int16_t)(base + 3), rep, items[i], strlen(items[i])));
		else
			LOOM_TRY(pq_column_append(c, (int16_t)(base + 2), rep, NULL, 0));
	}
	return 0;
}

/* deletionVector struct; first = its storageType column. */
static int put_dv(pq_column *first, int16_t base, const delta_dv_descriptor *dv)
{
	int k;
	char type[2];
	if (!dv->storage_type) {
		for (k = 0; k < 5; k++)
			LOOM_TRY(put_null(&first[k], base));
		return 0;
	}
	type[0] = dv->storage_type;
	type[1] = '\0';
	base++;
	LOOM_TRY(put_str(&first[0], base, type));
	LOOM_TRY(put_str(&first[1], base, dv->path_or_inline_dv));
	LOOM_TRY(put_i32(&first[2], base, dv->has_offset, dv->offset));
	LOOM_TRY(put_i32(&first[3], base, 1, dv->size_in_bytes));
	return put_i64(&first[4], base, 1, dv->cardinality);
}

/* Nulls for every top-level action column except `keep`. */
static int put_other_nulls(pq_batch *b, ck_action keep)
{
	int a, k;
	for (a = 0; a < CK_ACT_COUNT; a++) {
		if (a == (int)keep)
			continue;
		for (k = ck_action_first_leaf[a]; k < ck_action_first_leaf[a + 1]; k++)
			if ((size_t)k < b->num_columns)
				LOOM_TRY(put_null(&b->columns[k], 0));
	}
	b->num_rows++;
	return 0;
}

static int row_protocol(pq_batch *b, const delta_protocol *p)
{
	static const char *const none[1] = { NULL };
	pq_column *c = b->columns;
	const char **rf = p->reader_features ? p->reader_features : (const char **)none;
	const char **wf = p->writer_features ? p->writer_features : (const char **)none;
	LOOM_TRY(put_i32(&c[CK_PROTO_MINR], 1, 1, p->min_reader_version));
	LOOM_TRY(put_i32(&c[CK_PROTO_MINW], 1, 1, p->min_writer_version));
	/* the lists are non-null exactly for reader version 3 / writer version 7
	 * (PROTOCOL.md), whatever the loaded state holds */
	LOOM_TRY(put_list(&c[CK_PROTO_RF], 1,
	                  p->min_reader_version >= 3 ? rf : NULL, p->num_reader_features));
	LOOM_TRY(put_list(&c[CK_PROTO_WF], 1,
	                  p->min_writer_version >= 7 ? wf : NULL, p->num_writer_features));
	return put_other_nulls(b, CK_ACT_PROTOCOL);
}

static int row_metadata(pq_batch *b, const delta_metadata *m)
{
	static const char *const no_items[1] = { NULL };
	pq_column *c = b->columns;
	LOOM_TRY(put_str(&c[CK_META_ID], 1, m->id));
	LOOM_TRY(put_str(&c[CK_META_NAME], 1, m->name));
	LOOM_TRY(put_str(&c[CK_META_DESC], 1, m->description));
	/* format is required: present even when the log left it out */
	LOOM_TRY(put_str(&c[CK_META_FMT_PROVIDER], 2, m->format_provider ? m->format_provider : "parquet"));
	LOOM_TRY(put_map(&c[CK_META_FMT_OPT_K], &c[CK_META_FMT_OPT_V], 2, 1, m->format_options,
	                 m->num_format_options));
	LOOM_TRY(put_str(&c[CK_META_SCHEMA], 1, m->schema_string));
	LOOM_TRY(put_list(&c[CK_META_PCOLS], 1,
	                  m->partition_columns ? m->partition_columns : (const char **)no_items,
	                  m->num_partition_columns));
	LOOM_TRY(put_map(&c[CK_META_CONF_K], &c[CK_META_CONF_V], 1, 1, m->configuration,
	                 m->num_configuration));
	LOOM_TRY(put_i64(&c[CK_META_CREATED], 1, m->created_time >= 0, m->created_time));
	return put_other_nulls(b, CK_ACT_META);
}

static int row_txn(pq_batch *b, const delta_txn *t)
{
	pq_column *c = b->columns;
	LOOM_TRY(put_str(&c[CK_TXN_APPID], 1, t->app_id));
	LOOM_TRY(put_i64(&c[CK_TXN_VERSION], 1, 1, t->version));
	LOOM_TRY(put_i64(&c[CK_TXN_LASTUPDATED], 1, t->last_updated >= 0, t->last_updated));
	return put_other_nulls(b, CK_ACT_TXN);
}

static int row_domain(pq_batch *b, const delta_domain *d)
{
	pq_column *c = b->columns;
	LOOM_TRY(put_str(&c[CK_DOM_DOMAIN], 1, d->domain));
	LOOM_TRY(put_str(&c[CK_DOM_CONF], 1, d->configuration ? d->configuration : ""));
	LOOM_TRY(put_bool(&c[CK_DOM_REMOVED], 1, d->removed));
	return put_other_nulls(b, CK_ACT_DOMAIN);
}

static int row_add(pq_batch *b, const delta_file *f)
{
	pq_column *c = b->columns;
	LOOM_TRY(put_str(&c[CK_ADD_PATH], 1, f->path_raw));
	/* partitionValues is required on add: an empty map, never null */
	LOOM_TRY(put_map(&c[CK_ADD_PV_K], &c[CK_ADD_PV_V], 1, 1, f->partition_values,
	                 f->num_partition_values));
	LOOM_TRY(put_i64(&c[CK_ADD_SIZE], 1, f->size >= 0, f->size));
	LOOM_TRY(put_i64(&c[CK_ADD_MTIME], 1, f->modification_time >= 0, f->modification_time));
	LOOM_TRY(put_bool(&c[CK_ADD_DATACHANGE], 1, f->data_change));
	if (!f->stats && f->num_records >= 0) {
		/* the state came from stats_parsed only: keep at least numRecords */
		char nr[48];
		snprintf(nr, sizeof(nr), "{\"numRecords\":%lld}", (long long)f->num_records);
		LOOM_TRY(put_str(&c[CK_ADD_STATS], 1, nr));
	} else {
		LOOM_TRY(put_str(&c[CK_ADD_STATS], 1, f->stats));
	}
	LOOM_TRY(put_map(&c[CK_ADD_TAGS_K], &c[CK_ADD_TAGS_V], 1, f->tags != NULL, f->tags,
	                 f->num_tags));
	LOOM_TRY(put_dv(&c[CK_ADD_DV_TYPE], 1, &f->dv));
	LOOM_TRY(put_i64(&c[CK_ADD_BASEROWID], 1, f->base_row_id >= 0, f->base_row_id));
	LOOM_TRY(put_i64(&c[CK_ADD_DRCV], 1, f->default_row_commit_version >= 0,
	                 f->default_row_commit_version));
	LOOM_TRY(put_str(&c[CK_ADD_CLUSTERING], 1, f->clustering_provider));
	return put_other_nulls(b, CK_ACT_ADD);
}

static int row_remove(pq_batch *b, const delta_file *f)
{
	pq_column *c = b->columns;
	LOOM_TRY(put_str(&c[CK_REM_PATH], 1, f->path_raw));
	LOOM_TRY(put_i64(&c[CK_REM_DELTS], 1, f->deletion_timestamp >= 0, f->deletion_timestamp));
	LOOM_TRY(put_bool(&c[CK_REM_DATACHANGE], 1, f->data_change));
	LOOM_TRY(put_bool(&c[CK_REM_EXTMETA], 1, f->extended_file_metadata));
	LOOM_TRY(put_map(&c[CK_REM_PV_K], &c[CK_REM_PV_V], 1, f->partition_values != NULL,
	                 f->partition_values, f->num_partition_values));
	LOOM_TRY(put_i64(&c[CK_REM_SIZE], 1, f->size >= 0, f->size));
	LOOM_TRY(put_map(&c[CK_REM_TAGS_K], &c[CK_REM_TAGS_V], 1, f->tags != NULL, f->tags,
	                 f->num_tags));
	LOOM_TRY(put_dv(&c[CK_REM_DV_TYPE], 1, &f->dv));
	LOOM_TRY(put_i64(&c[CK_REM_BASEROWID], 1, f->base_row_id >= 0, f->base_row_id));
	LOOM_TRY(put_i64(&c[CK_REM_DRCV], 1, f->default_row_commit_version >= 0,
	                 f->default_row_commit_version));
	return put_other_nulls(b, CK_ACT_REMOVE);
}

static int row_ckmeta(pq_batch *b, int64_t version)
{
	LOOM_TRY(put_i64(&b->columns[CK_CKMETA_VERSION], 1, 1, version));
	LOOM_TRY(put_map(&b->columns[CK_CKMETA_TAGS_K], &b->columns[CK_CKMETA_TAGS_V], 1, 0, NULL, 0));
	return put_other_nulls(b, CK_ACT_CKMETA);
}

/* ---- the file actions a checkpoint keeps -------------------------------- */

/* Streams the adds left in the checkpoint's Parquet files: those whose key
 * is not in the snapshot (which holds what the commits after the checkpoint
 * changed, and the tombstones). */
typedef struct deferred_pass {
	const loom_map *held;       /* key -> 1: decided by the snapshot */
	ck_file_fn fn;
	void *ctx;
	int64_t adds;               /* streamed */
} deferred_pass;

static int deferred_action(void *ctx, const delta_action *a)
{
	deferred_pass *d = ctx;
	const delta_file *f = &a->u.file;
	if (a->type != DELTA_ACT_ADD || loom_map_get(d->held, f->key, f->key_len))
		return 0;
	d->adds++;
	return d->fn(d->ctx, f);
}

static int stream_deferred(const delta_snapshot *snap, ck_file_fn fn, void *ctx,
                           ck_counts *tally)
{
	loom_map held = LOOM_MAP_INIT;
	deferred_pass d = { &held, fn, ctx, 0 };
	size_t i;
	int rc = 0;
	if (snap->num_deferred_keys == 0)
		return 0;
	for (i = 0; rc == 0 && i < snap->num_files; i++)
		rc = loom_map_put(&held, snap->files[i]->key, snap->files[i]->key_len, &held, NULL);
	for (i = 0; rc == 0 && i < snap->num_tombstones; i++)
		rc = loom_map_put(&held, snap->tombstones[i]->key, snap->tombstones[i]->key_len,
		                  &held, NULL);
	if (rc < 0)
		rc = loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_OPS, "out of memory writing a checkpoint");
	for (i = 0; rc == 0 && i < snap->num_deferred_keys; i++)
		rc = delta_checkpoint_parquet_read(snap->store, snap->deferred_keys[i],
		                                   snap->checkpoint_version, deferred_action, &d);
	loom_map_dispose(&held);
	tally->adds += d.adds;
	if (rc == 0 && d.adds != (int64_t)snap->num_deferred_files)
		rc = loom_err(LOOM_ECORRUPT, LOOM_ERRCLASS_OPS,
		              "checkpoint of version %lld: %lld live files in the checkpoint %s read "
		              "from, %zu when the snapshot was loaded (a key twice, or the files "
		              "changed)", (long long)snap->version, (long long)d.adds,
		              snap->deferred_keys[0], snap->num_deferred_files);
	return rc;
}

int ck_each_kept(const delta_snapshot *snap, int64_t min_tombstone_ms, ck_file_fn fn,
                 void *ctx, ck_counts *tally)
{
	size_t i;
	LOOM_TRY(stream_deferred(snap, fn, ctx, tally));
	for (i = 0; i < snap->num_files; i++) {
		tally->adds++;
		LOOM_TRY(fn(ctx, snap->files[i]));
	}
	for (i = 0; i < snap->num_tombstones; i++) {
		const delta_file *f = snap->tombstones[i];
		/* Spark reads a missing deletionTimestamp as 0: expired */
		int64_t ts = f->deletion_timestamp >= 0 ? f->deletion_timestamp : 0;
		if (ts <= min_tombstone_ms) {
			tally->expired++;
			continue;
		}
		tally->removes++;
		LOOM_TRY(fn(ctx, f));
	}
	return 0;
}

int64_t ck_count_kept(const delta_snapshot *snap, int64_t min_tombstone_ms)
{
	int64_t n = (int64_t)(snap->num_deferred_files + snap->num_files);
	size_t i;
	for (i = 0; i < snap->num_tombstones; i++) {
		int64_t ts = snap->tombstones[i]->deletion_timestamp;
		n += (ts >= 0 ? ts : 0) > min_tombstone_ms;
	}
	return n;
}

/* ---- the files ---------------------------------------------------------- */

static int flush_rows(ck_emitter *e, int force)
{
	if (e->b.num_rows == 0 || (!force && e->b.num_rows < FLUSH_ROWS))
		return 0;
	LOOM_TRY(pq_writer_write(e->w, &e->b));
	e->rows += (int64_t)e->b.num_rows;
	pq_batch_clear(&e->b);
	return 0;
}

int ck_emit_open(ck_emitter *e, loom_store_writer *sink, ck_layout layout)
{
	const pq_schema_node *nodes;
	size_t nnodes;
	pq_writer_opts wopts;
	int rc;
	memset(e, 0, sizeof(*e));
	ck_schema(&nodes, &nnodes, layout);
	pq_writer_opts_default(&wopts);
	if ((rc = ck_batch_init(&e->b, layout)) < 0)
		return rc;
	return pq_writer_open(&e->w, sink, nodes, nnodes, &wopts);
}

int ck_emit_file(void *emitter, const delta_file *f)
{
	ck_emitter *e = emitter;
	LOOM_TRY(f->is_add ? row_add(&e->b, f) : row_remove(&e->b, f));
	return flush_rows(e, 0);
}

int ck_emit_close(ck_emitter *e, uint64_t *bytes)
{
	pq_write_result res;
	int rc;
	memset(&res, 0, sizeof(res));
	if ((rc = flush_rows(e, 1)) < 0)
		return rc;
	rc = pq_writer_close(e->w, &res);
	e->w = NULL;
	if (rc == 0 && bytes)
		*bytes = res.file_size;
	pq_write_result_free(&res);
	return rc;
}

void ck_emit_dispose(ck_emitter *e)
{
	pq_writer_free(e->w);
	e->w = NULL;
	pq_batch_free(&e->b);
}

/* The non-file actions every checkpoint (or V2 top-level file) holds. */
static int rows_non_file(ck_emitter *e, const delta_snapshot *snap)
{
	size_t i;
	LOOM_TRY(row_protocol(&e->b, &snap->protocol));
	LOOM_TRY(row_metadata(&e->b, &snap->metadata));
	for (i = 0; i < snap->num_txns; i++)
		LOOM_TRY(row_txn(&e->b, &snap->txns[i]));
	for (i = 0; i < snap->num_domains; i++)
		LOOM_TRY(row_domain(&e->b, &snap->domains[i]));
	return 0;
}

int checkpoint_write_parquet(loom_store_writer *sink, const delta_snapshot *snap,
                             int64_t min_tombstone_ms, ck_layout layout, ck_counts *out)
{
	ck_emitter e;
	int rc;

	memset(out, 0, sizeof(*out));
	if ((rc = ck_emit_open(&e, sink, layout)) < 0)
		goto done;
	if ((rc = rows_non_file(&e, snap)) < 0)
		goto done;
	/* the V2 spec with every file action inline: one checkpointMetadata */
	if (layout == CK_LAYOUT_V2 && (rc = row_ckmeta(&e.b, snap->version)) < 0)
		goto done;
	if ((rc = ck_each_kept(snap, min_tombstone_ms, ck_emit_file, &e, out)) < 0)
		goto done;
	if ((rc = ck_emit_close(&e, &out->bytes)) < 0)
		goto done;
	out->actions = e.rows;
done:
	ck_emit_dispose(&e);
	return rc;
}
