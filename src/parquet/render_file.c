/* parquet/render_file.c - the loom/parquet.h handle, schema and footer
 * rendering. */
#include "parquet/render.h"

#include <string.h>

#include "codec/codec.h"
#include "loom/parquet.h"
#include "util/alloc.h"
#include "util/error.h"

LOOM_EXTERN(int) loom_parquet_open(loom_parquet_file **out, const char *path)
{
	return loom_parquet_open_opts(out, path, NULL);
}

LOOM_EXTERN(int) loom_parquet_open_opts(loom_parquet_file **out, const char *uri,
                                        const loom_store_opts *opts)
{
	loom_parquet_file *f;
	int rc;
	*out = NULL;
	f = loom_calloc(1, sizeof(*f));
	if (!f)
		return loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_PARQUET, "out of memory opening %s", uri);
	rc = pq_reader_open_uri(&f->r, uri, opts);
	if (rc < 0) {
		loom_free(f);
		return rc;
	}
	*out = f;
	return 0;
}

LOOM_EXTERN(void) loom_parquet_file_free(loom_parquet_file *f)
{
	if (!f)
		return;
	pq_reader_free(f->r);
	loom_free(f);
}

static const char *type_name(pq_physical_type t)
{
	static const char *names[] = { "boolean", "int32", "int64", "int96", "float", "double", "binary",
		                           "fixed_len_byte_array" };
	return (unsigned)t < 8 ? names[t] : "unknown";
}

static const char *rep_name(const pq_schema_node *n)
{
	if (!n->has_repetition)
		return "";
	return n->repetition == PQ_REQUIRED ? "required " : n->repetition == PQ_OPTIONAL ? "optional " : "repeated ";
}

static const char *converted_name(pq_converted_type c)
{
	static const char *names[] = { "UTF8", "MAP", "MAP_KEY_VALUE", "LIST", "ENUM", "DECIMAL", "DATE",
		"TIME_MILLIS", "TIME_MICROS", "TIMESTAMP_MILLIS", "TIMESTAMP_MICROS", "UINT_8", "UINT_16",
		"UINT_32", "UINT_64", "INT_8", "INT_16", "INT_32", "INT_64", "JSON", "BSON", "INTERVAL" };
	return (unsigned)c < sizeof(names) / sizeof(names[0]) ? names[c] : NULL;
}

static int put_logical(loom_buf *b, const pq_logical_type *lt)
{
	static const char *units[] = { "MILLIS", "MICROS", "NANOS" };
	static const char *names[] = { "", "STRING", "MAP", "LIST", "ENUM", "DECIMAL", "DATE", "TIME",
		"TIMESTAMP", "", "INTEGER", "UNKNOWN", "JSON", "BSON", "UUID", "FLOAT16", "VARIANT", "GEOMETRY",
		"GEOGRAPHY" };
	if ((unsigned)lt->kind >= sizeof(names) / sizeof(names[0]))
		return loom_buf_printf(b, "LOGICAL(%d)", (int)lt->kind);
	switch (lt->kind) {
	case PQ_LT_DECIMAL:
		return loom_buf_printf(b, "DECIMAL(%d,%d)", lt->decimal_precision, lt->decimal_scale);
	case PQ_LT_TIME:
	case PQ_LT_TIMESTAMP:
		return loom_buf_printf(b, "%s(%s,%s)", names[lt->kind], units[lt->unit % 3],
		                       lt->is_adjusted_to_utc ? "true" : "false");
	case PQ_LT_INTEGER:
		return loom_buf_printf(b, "INTEGER(%d,%s)", lt->int_bit_width, lt->int_is_signed ? "true" : "false");
	default:
		return loom_buf_puts(b, names[lt->kind]);
	}
}

static int put_annotations(loom_buf *b, const pq_schema_node *n)
{
	const char *ct = converted_name(n->converted_type);
	if (n->logical_type.kind != PQ_LT_NONE) {
		LOOM_TRY(loom_buf_puts(b, " ("));
		LOOM_TRY(put_logical(b, &n->logical_type));
		LOOM_TRY(loom_buf_putc(b, ')'));
	} else if (ct) {
		if (n->converted_type == PQ_CT_DECIMAL)
			LOOM_TRY(loom_buf_printf(b, " (DECIMAL(%d,%d))", n->precision, n->scale));
		else
			LOOM_TRY(loom_buf_printf(b, " (%s)", ct));
	}
	if (n->has_field_id)
		LOOM_TRY(loom_buf_printf(b, " = %d", n->field_id));
	return 0;
}

static int schema_lines(const pq_schema *s, int32_t node, int depth, loom_buf *b, loom_parquet_line_cb cb,
                        void *payload)
{
	const pq_schema_node *n = &s->nodes[node];
	int32_t i;
	int rc;
	loom_buf_clear(b);
	LOOM_TRY(loom_buf_printf(b, "%*s", depth * 2, ""));
	if (node == 0)
		LOOM_TRY(loom_buf_printf(b, "message %s", n->name));
	else if (n->is_group)
		LOOM_TRY(loom_buf_printf(b, "%sgroup %s", rep_name(n), n->name));
	else if (n->type == PQ_FIXED_LEN_BYTE_ARRAY)
		LOOM_TRY(loom_buf_printf(b, "%sfixed_len_byte_array(%d) %s", rep_name(n), n->type_length, n->name));
	else
		LOOM_TRY(loom_buf_printf(b, "%s%s %s", rep_name(n), type_name(n->type), n->name));
	LOOM_TRY(put_annotations(b, n));
	if (!n->is_group)
		LOOM_TRY(loom_buf_printf(b, " [def=%d rep=%d]", s->def_level[node], s->rep_level[node]));
	else if (s->nest[node] == PQ_NEST_LIST)
		LOOM_TRY(loom_buf_puts(b, " [list]"));
	else if (s->nest[node] == PQ_NEST_MAP)
		LOOM_TRY(loom_buf_puts(b, " [map]"));
	if ((rc = cb(b->ptr, b->size, payload)) != 0)
		return rc;
	for (i = 0; n->is_group && i < n->num_children; i++)
		if ((rc = schema_lines(s, s->children[s->child_begin[node] + i], depth + 1, b, cb, payload)) != 0)
			return rc;
	return 0;
}

LOOM_EXTERN(int) loom_parquet_render_schema(loom_parquet_file *f, loom_parquet_line_cb cb, void *payload)
{
	loom_buf b = LOOM_BUF_INIT;
	int rc = schema_lines(pq_reader_schema(f->r), 0, 0, &b, cb, payload);
	loom_buf_dispose(&b);
	return rc;
}

static int put_str(loom_buf *b, const char *s)
{
	if (!s)
		return loom_buf_puts(b, "null");
	return loom_buf_put_json_string(b, s, strlen(s));
}

static int put_kvs(loom_buf *b, const pq_kv *kv, size_t n)
{
	size_t i;
	LOOM_TRY(loom_buf_putc(b, '{'));
	for (i = 0; i < n; i++) {
		if (i)
			LOOM_TRY(loom_buf_putc(b, ','));
		LOOM_TRY(loom_buf_put_json_string(b, kv[i].key, kv[i].key_len));
		LOOM_TRY(loom_buf_putc(b, ':'));
		if (kv[i].value)
			LOOM_TRY(loom_buf_put_json_string(b, kv[i].value, kv[i].value_len));
		else
			LOOM_TRY(loom_buf_puts(b, "null"));
	}
	return loom_buf_putc(b, '}');
}

/* A statistics bound, rendered as a value of the column when it has the
 * value's size, else as hex. */
static int put_stat(loom_buf *b, const char *key, const pq_bytes *v, const pq_value_fmt *fmt)
{
	static const char hex[] = "0123456789abcdef";
	size_t i;
	if (!v->ptr)
		return 0;
	LOOM_TRY(loom_buf_printf(b, ",\"%s\":", key));
	if (fmt->width == 0 || v->len == fmt->width || (fmt->type == PQ_BOOLEAN && v->len == 1))
		return pq_render_value(b, fmt, v->ptr, v->len);
	LOOM_TRY(loom_buf_putc(b, '"'));
	for (i = 0; i < v->len; i++) {
		char two[2] = { hex[v->ptr[i] >> 4], hex[v->ptr[i] & 15] };
		LOOM_TRY(loom_buf_put(b, two, 2));
	}
	return loom_buf_putc(b, '"');
}

static int put_chunk(loom_buf *b, const pq_column_chunk *c, const pq_leaf *leaf)
{
	const pq_column_meta *m = &c->meta;
	pq_value_fmt fmt;
	size_t i;

	LOOM_TRY(loom_buf_puts(b, "{\"path\":"));
	LOOM_TRY(put_str(b, leaf->path));
	LOOM_TRY(loom_buf_printf(b, ",\"file_offset\":%lld", (long long)c->file_offset));
	if (c->file_path) {
		LOOM_TRY(loom_buf_puts(b, ",\"file_path\":"));
		LOOM_TRY(put_str(b, c->file_path));
	}
	if (c->encrypted)
		LOOM_TRY(loom_buf_puts(b, ",\"encrypted\":true"));
	if (c->has_offset_index)
		LOOM_TRY(loom_buf_printf(b, ",\"offset_index\":[%lld,%d]", (long long)c->offset_index_offset,
		                         c->offset_index_length));
	if (c->has_column_index)
		LOOM_TRY(loom_buf_printf(b, ",\"column_index\":[%lld,%d]", (long long)c->column_index_offset,
		                         c->column_index_length));
	if (!c->has_meta_data)
		return loom_buf_putc(b, '}');
	LOOM_TRY(loom_buf_printf(b, ",\"type\":\"%s\",\"codec\":\"%s\",\"encodings\":[", type_name(m->type),
	                         loom_codec_name(m->codec)));
	for (i = 0; i < m->num_encodings; i++)
		LOOM_TRY(loom_buf_printf(b, "%s%d", i ? "," : "", m->encodings[i]));
	LOOM_TRY(loom_buf_printf(b, "],\"num_values\":%lld,\"total_uncompressed_size\":%lld,"
	                            "\"total_compressed_size\":%lld,\"data_page_offset\":%lld",
	                         (long long)m->num_values, (long long)m->total_uncompressed_size,
	                         (long long)m->total_compressed_size, (long long)m->data_page_offset));
	if (m->has_dictionary_page_offset)
		LOOM_TRY(loom_buf_printf(b, ",\"dictionary_page_offset\":%lld", (long long)m->dictionary_page_offset));
	if (m->has_index_page_offset)
		LOOM_TRY(loom_buf_printf(b, ",\"index_page_offset\":%lld", (long long)m->index_page_offset));
	if (m->has_bloom_filter)
		LOOM_TRY(loom_buf_printf(b, ",\"bloom_filter\":[%lld,%d]", (long long)m->bloom_filter_offset,
		                         m->bloom_filter_length));
	if (m->num_kv) {
		LOOM_TRY(loom_buf_puts(b, ",\"key_value_metadata\":"));
		LOOM_TRY(put_kvs(b, m->kv, m->num_kv));
	}
	if (m->num_encoding_stats) {
		LOOM_TRY(loom_buf_puts(b, ",\"encoding_stats\":["));
		for (i = 0; i < m->num_encoding_stats; i++)
			LOOM_TRY(loom_buf_printf(b, "%s{\"page_type\":%d,\"encoding\":%d,\"count\":%d}", i ? "," : "",
			                         m->encoding_stats[i].page_type, m->encoding_stats[i].encoding,
			                         m->encoding_stats[i].count));
		LOOM_TRY(loom_buf_putc(b, ']'));
	}
	if (m->has_statistics) {
		const pq_statistics *st = &m->statistics;
		pq_value_fmt_of(leaf, &fmt);
		LOOM_TRY(loom_buf_puts(b, ",\"statistics\":{\"_\":0"));
		if (st->has_null_count)
			LOOM_TRY(loom_buf_printf(b, ",\"null_count\":%lld", (long long)st->null_count));
		if (st->has_distinct_count)
			LOOM_TRY(loom_buf_printf(b, ",\"distinct_count\":%lld", (long long)st->distinct_count));
		LOOM_TRY(put_stat(b, "min_value", &st->min_value, &fmt));
		LOOM_TRY(put_stat(b, "max_value", &st->max_value, &fmt));
		LOOM_TRY(put_stat(b, "min", &st->min, &fmt));
		LOOM_TRY(put_stat(b, "max", &st->max, &fmt));
		LOOM_TRY(loom_buf_putc(b, '}'));
	}
	return loom_buf_putc(b, '}');
}

static int put_schema_json(loom_buf *b, const pq_file_meta *m)
{
	size_t i;
	LOOM_TRY(loom_buf_puts(b, ",\"schema\":["));
	for (i = 0; i < m->num_schema; i++) {
		const pq_schema_node *n = &m->schema[i];
		const char *ct = converted_name(n->converted_type);
		LOOM_TRY(loom_buf_printf(b, "%s{\"name\":", i ? "," : ""));
		LOOM_TRY(put_str(b, n->name));
		if (!n->is_group)
			LOOM_TRY(loom_buf_printf(b, ",\"type\":\"%s\"", type_name(n->type)));
		if (n->type_length)
			LOOM_TRY(loom_buf_printf(b, ",\"type_length\":%d", n->type_length));
		if (n->has_repetition)
			LOOM_TRY(loom_buf_printf(b, ",\"repetition\":\"%s\"", n->repetition == PQ_REQUIRED ? "REQUIRED"
			                         : n->repetition == PQ_OPTIONAL ? "OPTIONAL" : "REPEATED"));
		if (n->num_children)
			LOOM_TRY(loom_buf_printf(b, ",\"num_children\":%d", n->num_children));
		if (ct)
			LOOM_TRY(loom_buf_printf(b, ",\"converted_type\":\"%s\"", ct));
		if (n->scale || n->precision)
			LOOM_TRY(loom_buf_printf(b, ",\"scale\":%d,\"precision\":%d", n->scale, n->precision));
		if (n->has_field_id)
			LOOM_TRY(loom_buf_printf(b, ",\"field_id\":%d", n->field_id));
		if (n->logical_type.kind != PQ_LT_NONE) {
			LOOM_TRY(loom_buf_puts(b, ",\"logical_type\":\""));
			LOOM_TRY(put_logical(b, &n->logical_type));
			LOOM_TRY(loom_buf_putc(b, '"'));
		}
		LOOM_TRY(loom_buf_putc(b, '}'));
	}
	return loom_buf_putc(b, ']');
}

static int meta_json(const pq_reader *r, loom_buf *b)
{
	const pq_file_meta *m = pq_reader_meta(r);
	const pq_schema *s = pq_reader_schema(r);
	size_t g, i;

	LOOM_TRY(loom_buf_printf(b, "{\"version\":%d,\"num_rows\":%lld,\"file_size\":%llu,\"created_by\":", m->version,
	                         (long long)m->num_rows, (unsigned long long)pq_reader_file_size(r)));
	LOOM_TRY(put_str(b, m->created_by));
	LOOM_TRY(loom_buf_puts(b, ",\"key_value_metadata\":"));
	LOOM_TRY(put_kvs(b, m->kv, m->num_kv));
	LOOM_TRY(put_schema_json(b, m));
	LOOM_TRY(loom_buf_printf(b, ",\"num_columns\":%zu,\"column_orders\":[", s->num_leaves));
	for (i = 0; i < m->num_column_orders; i++)
		LOOM_TRY(loom_buf_printf(b, "%s%d", i ? "," : "", m->column_orders[i]));
	LOOM_TRY(loom_buf_puts(b, "],\"row_groups\":["));
	for (g = 0; g < m->num_row_groups; g++) {
		const pq_row_group *rg = &m->row_groups[g];
		LOOM_TRY(loom_buf_printf(b, "%s{\"num_rows\":%lld,\"total_byte_size\":%lld", g ? "," : "",
		                         (long long)rg->num_rows, (long long)rg->total_byte_size));
		if (rg->has_file_offset)
			LOOM_TRY(loom_buf_printf(b, ",\"file_offset\":%lld", (long long)rg->file_offset));
		if (rg->has_total_compressed_size)
			LOOM_TRY(loom_buf_printf(b, ",\"total_compressed_size\":%lld", (long long)rg->total_compressed_size));
		if (rg->has_ordinal)
			LOOM_TRY(loom_buf_printf(b, ",\"ordinal\":%d", rg->ordinal));
		if (rg->num_sorting_columns) {
			LOOM_TRY(loom_buf_puts(b, ",\"sorting_columns\":["));
			for (i = 0; i < rg->num_sorting_columns; i++)
				LOOM_TRY(loom_buf_printf(b, "%s{\"column_idx\":%d,\"descending\":%s,\"nulls_first\":%s}",
				                         i ? "," : "", rg->sorting_columns[i].column_idx,
				                         rg->sorting_columns[i].descending ? "true" : "false",
				                         rg->sorting_columns[i].nulls_first ? "true" : "false"));
			LOOM_TRY(loom_buf_putc(b, ']'));
		}
		LOOM_TRY(loom_buf_puts(b, ",\"columns\":["));
		for (i = 0; i < rg->num_columns && i < s->num_leaves; i++) {
			if (i)
				LOOM_TRY(loom_buf_putc(b, ','));
			LOOM_TRY(put_chunk(b, &rg->columns[i], &s->leaves[i]));
		}
		LOOM_TRY(loom_buf_puts(b, "]}"));
	}
	return loom_buf_puts(b, "]}");
}

LOOM_EXTERN(int) loom_parquet_render_meta(loom_parquet_file *f, loom_parquet_line_cb cb, void *payload)
{
	loom_buf b = LOOM_BUF_INIT;
	int rc = meta_json(f->r, &b);
	if (rc == 0)
		rc = cb(b.ptr, b.size, payload);
	loom_buf_dispose(&b);
	return rc;
}
