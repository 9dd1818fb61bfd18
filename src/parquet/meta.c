/* parquet/meta.c - decoding the footer structs of parquet.thrift. Field ids
 * follow parquet.thrift; unknown fields are skipped. */
#include "parquet/meta.h"

#include <string.h>

#include "parquet/thrift_read.h"
#include "util/alloc.h"
#include "util/error.h"

/* ---- small typed readers ---- */

/* A known field id with an unexpected wire type (a writer's private
 * extension or a different thrift revision) is skipped, not fatal. */
static int is_int_type(int type)
{
	return type == PQ_TT_BYTE || type == PQ_TT_I16 || type == PQ_TT_I32 || type == PQ_TT_I64;
}

/* 1 if `type` is what the field wants, 0 if it was skipped. */
static int want(pq_tr *t, int type, int wt)
{
	if (type == wt || (wt == PQ_TT_LIST && type == PQ_TT_SET))
		return 1;
	LOOM_TRY(pq_tr_skip(t, type, 0));
	return 0;
}

static int rd_i64(pq_tr *t, int type, int64_t *v, const char *name)
{
	if (!is_int_type(type))
		return pq_tr_skip(t, type, 0);
	return pq_tr_int_field(t, type, v, name);
}

static int rd_i32(pq_tr *t, int type, int32_t *v, const char *name)
{
	int64_t x = 0;
	if (!is_int_type(type))
		return pq_tr_skip(t, type, 0);
	LOOM_TRY(pq_tr_int_field(t, type, &x, name));
	if (x < INT32_MIN || x > INT32_MAX)
		return pq_tr_fail(t, "i32 field out of range");
	*v = (int32_t)x;
	return 0;
}

static int rd_bool(pq_tr *t, int type, int *v, const char *name)
{
	if (type == PQ_TT_TRUE || type == PQ_TT_FALSE) {
		*v = type == PQ_TT_TRUE;
		return 0;
	}
	(void)name;
	return pq_tr_skip(t, type, 0);
}

static int oom(void)
{
	return loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_PARQUET, "out of memory decoding Parquet metadata");
}

static int rd_bytes(pq_tr *t, int type, loom_arena *a, pq_bytes *out, const char *name)
{
	const uint8_t *d;
	size_t n;
	uint8_t *c;
	(void)name;
	if (type != PQ_TT_BINARY)
		return pq_tr_skip(t, type, 0);
	LOOM_TRY(pq_tr_binary(t, &d, &n));
	c = loom_arena_alloc(a, n + 1);
	if (!c)
		return oom();
	memcpy(c, d, n);
	c[n] = 0;
	out->ptr = c;
	out->len = n;
	return 0;
}

static int rd_str(pq_tr *t, int type, loom_arena *a, const char **out, size_t *len, const char *name)
{
	pq_bytes b = { NULL, 0 };
	LOOM_TRY(rd_bytes(t, type, a, &b, name));
	if (!b.ptr)
		return 0;   /* skipped: a field of another wire type */
	*out = (const char *)b.ptr;
	if (len)
		*len = b.len;
	return 0;
}

/* Begin a list field: checks wire type, returns the element type/count and
 * allocates `count` zeroed elements of `size` bytes in the arena. */
static int rd_list(pq_tr *t, int type, loom_arena *a, size_t size, int *et,
                   uint32_t *count, void **arr, const char *name)
{
	(void)name;
	*arr = NULL;
	if (type != PQ_TT_LIST && type != PQ_TT_SET) {
		LOOM_TRY(pq_tr_skip(t, type, 0));
		*count = 0;
		*et = PQ_TT_STRUCT;
		t->depth++;   /* balanced by the caller's pq_tr_list_end */
	} else
		LOOM_TRY(pq_tr_list_begin(t, et, count));
	*arr = loom_arena_calloc(a, (size_t)*count * size + 1);
	if (!*arr)
		return oom();
	return 0;
}

/* Iterate the fields of a struct: FIELDS(t) { switch (id) ... } */
#define STRUCT_LOOP(t)                                            \
	int16_t last_ = 0, id;                                        \
	int ft, rc_;                                                  \
	LOOM_TRY(pq_tr_struct_begin(t));                              \
	while ((rc_ = pq_tr_field(t, &last_, &id, &ft)) > 0)

#define STRUCT_DONE(t)         \
	if (rc_ < 0)               \
		return rc_;            \
	pq_tr_struct_end(t);       \
	return 0

#define SKIP default: LOOM_TRY(pq_tr_skip(t, ft, 0)); break

static int rd_empty(pq_tr *t)
{
	STRUCT_LOOP(t) {
		(void)id;
		LOOM_TRY(pq_tr_skip(t, ft, 0));
	}
	STRUCT_DONE(t);
}

/* How a struct is read: fields into *obj, strings into the arena. */
typedef int (*struct_reader)(pq_tr *t, loom_arena *a, void *obj);

/* A struct field read by `rd` into obj; *has = 1 once it is (a field of
 * another wire type is skipped). */
static int rd_struct_field(pq_tr *t, int type, loom_arena *a, struct_reader rd, void *obj, int *has)
{
	int w = want(t, type, PQ_TT_STRUCT);
	if (w <= 0)
		return w;
	LOOM_TRY(rd(t, a, obj));
	if (has)
		*has = 1;
	return 0;
}

/* A list<struct> field: `count` elements of `size` bytes, each read by `rd`;
 * `out` is the address of the member that points at them. */
static int rd_struct_list(pq_tr *t, int type, loom_arena *a, size_t size, struct_reader rd, void *out,
                          size_t *count, const char *name)
{
	int et;
	uint32_t cnt, i;
	void *arr;
	LOOM_TRY(rd_list(t, type, a, size, &et, &cnt, &arr, name));
	for (i = 0; i < cnt; i++) {
		LOOM_TRY(pq_tr_expect(t, et, PQ_TT_STRUCT, name));
		LOOM_TRY(rd(t, a, (char *)arr + (size_t)i * size));
	}
	pq_tr_list_end(t);
	memcpy(out, &arr, sizeof(arr));   /* into the member, whatever its element type */
	*count = cnt;
	return 0;
}

/* The element types of the lists of values, and what each takes. */
enum { ELEM_BOOL, ELEM_I32, ELEM_I64, ELEM_STR, ELEM_BYTES };
static const size_t elem_size[] = { 1, sizeof(int32_t), sizeof(int64_t), sizeof(char *), sizeof(pq_bytes) };

/* A list of values of type `elem` (a bool is a uint8_t); `out` as
 * rd_struct_list's. */
static int rd_value_list(pq_tr *t, int type, loom_arena *a, int elem, void *out, size_t *count,
                         const char *name)
{
	int et, b;
	uint32_t cnt, i;
	void *arr;
	LOOM_TRY(rd_list(t, type, a, elem_size[elem], &et, &cnt, &arr, name));
	for (i = 0; i < cnt; i++) {
		switch (elem) {
		case ELEM_BOOL:
			LOOM_TRY(pq_tr_list_bool(t, &b));
			((uint8_t *)arr)[i] = (uint8_t)b;
			break;
		case ELEM_I32: LOOM_TRY(rd_i32(t, et, (int32_t *)arr + i, name)); break;
		case ELEM_I64: LOOM_TRY(rd_i64(t, et, (int64_t *)arr + i, name)); break;
		case ELEM_STR: LOOM_TRY(rd_str(t, et, a, (const char **)arr + i, NULL, name)); break;
		default: LOOM_TRY(rd_bytes(t, et, a, (pq_bytes *)arr + i, name)); break;
		}
	}
	pq_tr_list_end(t);
	memcpy(out, &arr, sizeof(arr));
	*count = cnt;
	return 0;
}

static int rd_kv(pq_tr *t, loom_arena *a, void *obj)
{
	pq_kv *kv = obj;
	STRUCT_LOOP(t) {
		switch (id) {
		case 1: LOOM_TRY(rd_str(t, ft, a, &kv->key, &kv->key_len, "KeyValue.key")); break;
		case 2: LOOM_TRY(rd_str(t, ft, a, &kv->value, &kv->value_len, "KeyValue.value")); break;
		SKIP;
		}
	}
	if (rc_ < 0)
		return rc_;
	if (!kv->key)
		return pq_tr_fail(t, "KeyValue without key");
	pq_tr_struct_end(t);
	return 0;
}

static int rd_kv_list(pq_tr *t, int type, loom_arena *a, pq_kv **out, size_t *n)
{
	return rd_struct_list(t, type, a, sizeof(pq_kv), rd_kv, (void **)out, n, "key_value_metadata[]");
}

static int rd_time_unit(pq_tr *t, loom_arena *a, void *obj)
{
	pq_time_unit *u = obj;
	(void)a;
	STRUCT_LOOP(t) {
		switch (id) {
		case 1: *u = PQ_UNIT_MILLIS; LOOM_TRY(pq_tr_skip(t, ft, 0)); break;
		case 2: *u = PQ_UNIT_MICROS; LOOM_TRY(pq_tr_skip(t, ft, 0)); break;
		case 3: *u = PQ_UNIT_NANOS; LOOM_TRY(pq_tr_skip(t, ft, 0)); break;
		SKIP;
		}
	}
	STRUCT_DONE(t);
}

/* TimeType / TimestampType */
static int rd_time_type(pq_tr *t, pq_logical_type *lt)
{
	STRUCT_LOOP(t) {
		switch (id) {
		case 1: LOOM_TRY(rd_bool(t, ft, &lt->is_adjusted_to_utc, "isAdjustedToUTC")); break;
		case 2: LOOM_TRY(rd_struct_field(t, ft, NULL, rd_time_unit, &lt->unit, NULL)); break;
		SKIP;
		}
	}
	STRUCT_DONE(t);
}

static int rd_decimal_type(pq_tr *t, pq_logical_type *lt)
{
	STRUCT_LOOP(t) {
		switch (id) {
		case 1: LOOM_TRY(rd_i32(t, ft, &lt->decimal_scale, "DecimalType.scale")); break;
		case 2: LOOM_TRY(rd_i32(t, ft, &lt->decimal_precision, "DecimalType.precision")); break;
		SKIP;
		}
	}
	STRUCT_DONE(t);
}

static int rd_int_type(pq_tr *t, pq_logical_type *lt)
{
	STRUCT_LOOP(t) {
		int64_t w;
		switch (id) {
		case 1:
			LOOM_TRY(rd_i64(t, ft, &w, "IntType.bitWidth"));
			if (w != 8 && w != 16 && w != 32 && w != 64)
				return pq_tr_fail(t, "IntType.bitWidth not 8, 16, 32 or 64");
			lt->int_bit_width = (int8_t)w;
			break;
		case 2: LOOM_TRY(rd_bool(t, ft, &lt->int_is_signed, "IntType.isSigned")); break;
		SKIP;
		}
	}
	STRUCT_DONE(t);
}

static int rd_logical_type(pq_tr *t, loom_arena *a, void *obj)
{
	pq_logical_type *lt = obj;
	(void)a;
	STRUCT_LOOP(t) {
		if (ft != PQ_TT_STRUCT) {
			LOOM_TRY(pq_tr_skip(t, ft, 0));
			continue;
		}
		switch (id) {
		case PQ_LT_DECIMAL: lt->kind = PQ_LT_DECIMAL; LOOM_TRY(rd_decimal_type(t, lt)); break;
		case PQ_LT_TIME: lt->kind = PQ_LT_TIME; LOOM_TRY(rd_time_type(t, lt)); break;
		case PQ_LT_TIMESTAMP: lt->kind = PQ_LT_TIMESTAMP; LOOM_TRY(rd_time_type(t, lt)); break;
		case PQ_LT_INTEGER: lt->kind = PQ_LT_INTEGER; LOOM_TRY(rd_int_type(t, lt)); break;
		case PQ_LT_STRING: case PQ_LT_MAP: case PQ_LT_LIST: case PQ_LT_ENUM: case PQ_LT_DATE:
		case PQ_LT_UNKNOWN: case PQ_LT_JSON: case PQ_LT_BSON: case PQ_LT_UUID: case PQ_LT_FLOAT16:
		case PQ_LT_VARIANT: case PQ_LT_GEOMETRY: case PQ_LT_GEOGRAPHY:
			lt->kind = (pq_logical_kind)id;
			LOOM_TRY(rd_empty(t));   /* parameters (crs, version) are not kept */
			break;
		default:
			LOOM_TRY(pq_tr_skip(t, ft, 0));   /* a type newer than us */
			break;
		}
	}
	STRUCT_DONE(t);
}

static int rd_schema_element(pq_tr *t, loom_arena *a, void *obj)
{
	pq_schema_node *n = obj;
	int has_type = 0;
	n->converted_type = PQ_CT_NONE;
	STRUCT_LOOP(t) {
		int32_t v = 0;
		switch (id) {
		case 1:
			LOOM_TRY(rd_i32(t, ft, &v, "SchemaElement.type"));
			if (v < 0 || v > PQ_FIXED_LEN_BYTE_ARRAY)
				return pq_tr_fail(t, "unknown physical type");
			n->type = (pq_physical_type)v;
			has_type = 1;
			break;
		case 2: LOOM_TRY(rd_i32(t, ft, &n->type_length, "SchemaElement.type_length")); break;
		case 3:
			LOOM_TRY(rd_i32(t, ft, &v, "SchemaElement.repetition_type"));
			if (v < 0 || v > PQ_REPEATED)
				return pq_tr_fail(t, "unknown repetition type");
			n->repetition = (pq_repetition)v;
			n->has_repetition = 1;
			break;
		case 4: LOOM_TRY(rd_str(t, ft, a, &n->name, NULL, "SchemaElement.name")); break;
		case 5:
			LOOM_TRY(rd_i32(t, ft, &n->num_children, "SchemaElement.num_children"));
			if (n->num_children < 0)
				return pq_tr_fail(t, "negative num_children");
			break;
		case 6: LOOM_TRY(rd_i32(t, ft, &v, "SchemaElement.converted_type")); n->converted_type = (pq_converted_type)v; break;
		case 7: LOOM_TRY(rd_i32(t, ft, &n->scale, "SchemaElement.scale")); break;
		case 8: LOOM_TRY(rd_i32(t, ft, &n->precision, "SchemaElement.precision")); break;
		case 9: LOOM_TRY(rd_i32(t, ft, &n->field_id, "SchemaElement.field_id")); n->has_field_id = 1; break;
		case 10: LOOM_TRY(rd_struct_field(t, ft, a, rd_logical_type, &n->logical_type, NULL)); break;
		SKIP;
		}
	}
	if (rc_ < 0)
		return rc_;
	if (!n->name)
		n->name = "";
	n->is_group = n->num_children > 0 || !has_type;
	pq_tr_struct_end(t);
	return 0;
}

static int rd_statistics(pq_tr *t, loom_arena *a, void *obj)
{
	pq_statistics *s = obj;
	STRUCT_LOOP(t) {
		switch (id) {
		case 1: LOOM_TRY(rd_bytes(t, ft, a, &s->max, "Statistics.max")); break;
		case 2: LOOM_TRY(rd_bytes(t, ft, a, &s->min, "Statistics.min")); break;
		case 3: LOOM_TRY(rd_i64(t, ft, &s->null_count, "Statistics.null_count")); s->has_null_count = 1; break;
		case 4: LOOM_TRY(rd_i64(t, ft, &s->distinct_count, "Statistics.distinct_count")); s->has_distinct_count = 1; break;
		case 5: LOOM_TRY(rd_bytes(t, ft, a, &s->max_value, "Statistics.max_value")); break;
		case 6: LOOM_TRY(rd_bytes(t, ft, a, &s->min_value, "Statistics.min_value")); break;
		case 7: LOOM_TRY(rd_bool(t, ft, &s->is_max_value_exact, "is_max_value_exact")); s->has_is_max_value_exact = 1; break;
		case 8: LOOM_TRY(rd_bool(t, ft, &s->is_min_value_exact, "is_min_value_exact")); s->has_is_min_value_exact = 1; break;
		SKIP;
		}
	}
	STRUCT_DONE(t);
}

static int rd_encoding_stats(pq_tr *t, loom_arena *a, void *obj)
{
	pq_page_encoding_stats *s = obj;
	(void)a;
	STRUCT_LOOP(t) {
		switch (id) {
		case 1: LOOM_TRY(rd_i32(t, ft, &s->page_type, "PageEncodingStats.page_type")); break;
		case 2: LOOM_TRY(rd_i32(t, ft, &s->encoding, "PageEncodingStats.encoding")); break;
		case 3: LOOM_TRY(rd_i32(t, ft, &s->count, "PageEncodingStats.count")); break;
		SKIP;
		}
	}
	STRUCT_DONE(t);
}

static int rd_column_meta(pq_tr *t, loom_arena *a, void *obj)
{
	pq_column_meta *m = obj;
	STRUCT_LOOP(t) {
		int32_t v = 0;
		switch (id) {
		case 1:
			LOOM_TRY(rd_i32(t, ft, &v, "ColumnMetaData.type"));
			if (v < 0 || v > PQ_FIXED_LEN_BYTE_ARRAY)
				return pq_tr_fail(t, "unknown physical type");
			m->type = (pq_physical_type)v;
			break;
		case 2:
			LOOM_TRY(rd_value_list(t, ft, a, ELEM_I32, &m->encodings, &m->num_encodings,
			                       "encodings[]"));
			break;
		case 3:
			LOOM_TRY(rd_value_list(t, ft, a, ELEM_STR, &m->path_in_schema, &m->path_len,
			                       "path_in_schema[]"));
			break;
		case 4: LOOM_TRY(rd_i32(t, ft, &m->codec, "ColumnMetaData.codec")); break;
		case 5: LOOM_TRY(rd_i64(t, ft, &m->num_values, "num_values")); break;
		case 6: LOOM_TRY(rd_i64(t, ft, &m->total_uncompressed_size, "total_uncompressed_size")); break;
		case 7: LOOM_TRY(rd_i64(t, ft, &m->total_compressed_size, "total_compressed_size")); break;
		case 8: LOOM_TRY(rd_kv_list(t, ft, a, &m->kv, &m->num_kv)); break;
		case 9: LOOM_TRY(rd_i64(t, ft, &m->data_page_offset, "data_page_offset")); break;
		case 10: LOOM_TRY(rd_i64(t, ft, &m->index_page_offset, "index_page_offset")); m->has_index_page_offset = 1; break;
		case 11: LOOM_TRY(rd_i64(t, ft, &m->dictionary_page_offset, "dictionary_page_offset")); m->has_dictionary_page_offset = 1; break;
		case 12: LOOM_TRY(rd_struct_field(t, ft, a, rd_statistics, &m->statistics, &m->has_statistics)); break;
		case 13:
			LOOM_TRY(rd_struct_list(t, ft, a, sizeof(pq_page_encoding_stats), rd_encoding_stats,
			                        &m->encoding_stats, &m->num_encoding_stats,
			                        "encoding_stats[]"));
			break;
		case 14: LOOM_TRY(rd_i64(t, ft, &m->bloom_filter_offset, "bloom_filter_offset")); m->has_bloom_filter = 1; break;
		case 15: LOOM_TRY(rd_i32(t, ft, &m->bloom_filter_length, "bloom_filter_length")); break;
		SKIP;
		}
	}
	STRUCT_DONE(t);
}

static int rd_column_chunk(pq_tr *t, loom_arena *a, void *obj)
{
	pq_column_chunk *c = obj;
	STRUCT_LOOP(t) {
		switch (id) {
		case 1: LOOM_TRY(rd_str(t, ft, a, &c->file_path, NULL, "ColumnChunk.file_path")); break;
		case 2: LOOM_TRY(rd_i64(t, ft, &c->file_offset, "ColumnChunk.file_offset")); break;
		case 3: LOOM_TRY(rd_struct_field(t, ft, a, rd_column_meta, &c->meta, &c->has_meta_data)); break;
		case 4: LOOM_TRY(rd_i64(t, ft, &c->offset_index_offset, "offset_index_offset")); c->has_offset_index = 1; break;
		case 5: LOOM_TRY(rd_i32(t, ft, &c->offset_index_length, "offset_index_length")); break;
		case 6: LOOM_TRY(rd_i64(t, ft, &c->column_index_offset, "column_index_offset")); c->has_column_index = 1; break;
		case 7: LOOM_TRY(rd_i32(t, ft, &c->column_index_length, "column_index_length")); break;
		case 8: case 9: c->encrypted = 1; LOOM_TRY(pq_tr_skip(t, ft, 0)); break;
		SKIP;
		}
	}
	STRUCT_DONE(t);
}

static int rd_sorting_column(pq_tr *t, loom_arena *a, void *obj)
{
	pq_sorting_column *s = obj;
	(void)a;
	STRUCT_LOOP(t) {
		switch (id) {
		case 1: LOOM_TRY(rd_i32(t, ft, &s->column_idx, "SortingColumn.column_idx")); break;
		case 2: LOOM_TRY(rd_bool(t, ft, &s->descending, "SortingColumn.descending")); break;
		case 3: LOOM_TRY(rd_bool(t, ft, &s->nulls_first, "SortingColumn.nulls_first")); break;
		SKIP;
		}
	}
	STRUCT_DONE(t);
}

static int rd_row_group(pq_tr *t, loom_arena *a, void *obj)
{
	pq_row_group *g = obj;
	STRUCT_LOOP(t) {
		switch (id) {
		case 1:
			LOOM_TRY(rd_struct_list(t, ft, a, sizeof(pq_column_chunk), rd_column_chunk,
			                        &g->columns, &g->num_columns, "columns[]"));
			break;
		case 2: LOOM_TRY(rd_i64(t, ft, &g->total_byte_size, "total_byte_size")); break;
		case 3: LOOM_TRY(rd_i64(t, ft, &g->num_rows, "RowGroup.num_rows")); break;
		case 4:
			LOOM_TRY(rd_struct_list(t, ft, a, sizeof(pq_sorting_column), rd_sorting_column,
			                        &g->sorting_columns, &g->num_sorting_columns,
			                        "sorting_columns[]"));
			break;
		case 5: LOOM_TRY(rd_i64(t, ft, &g->file_offset, "RowGroup.file_offset")); g->has_file_offset = 1; break;
		case 6: LOOM_TRY(rd_i64(t, ft, &g->total_compressed_size, "RowGroup.total_compressed_size")); g->has_total_compressed_size = 1; break;
		case 7: {
			int64_t o;
			LOOM_TRY(rd_i64(t, ft, &o, "RowGroup.ordinal"));
			g->ordinal = (int16_t)o;
			g->has_ordinal = 1;
			break;
		}
		SKIP;
		}
	}
	STRUCT_DONE(t);
}

/* ColumnOrder, a union: the id of its member (1 = TYPE_ORDER). */
static int rd_column_order(pq_tr *t, loom_arena *a, void *obj)
{
	int32_t *order = obj;
	(void)a;
	STRUCT_LOOP(t) {
		*order = id;
		LOOM_TRY(pq_tr_skip(t, ft, 0));
	}
	STRUCT_DONE(t);
}

static int rd_file_meta(pq_tr *t, pq_file_meta *m)
{
	loom_arena *a = &m->arena;
	STRUCT_LOOP(t) {
		switch (id) {
		case 1: LOOM_TRY(rd_i32(t, ft, &m->version, "FileMetaData.version")); break;
		case 2:
			LOOM_TRY(rd_struct_list(t, ft, a, sizeof(pq_schema_node), rd_schema_element,
			                        &m->schema, &m->num_schema, "schema[]"));
			break;
		case 3: LOOM_TRY(rd_i64(t, ft, &m->num_rows, "FileMetaData.num_rows")); break;
		case 4:
			LOOM_TRY(rd_struct_list(t, ft, a, sizeof(pq_row_group), rd_row_group, &m->row_groups,
			                        &m->num_row_groups, "row_groups[]"));
			break;
		case 5: LOOM_TRY(rd_kv_list(t, ft, a, &m->kv, &m->num_kv)); break;
		case 6: LOOM_TRY(rd_str(t, ft, a, &m->created_by, NULL, "created_by")); break;
		case 7:
			LOOM_TRY(rd_struct_list(t, ft, a, sizeof(int32_t), rd_column_order, &m->column_orders,
			                        &m->num_column_orders, "column_orders[]"));
			break;
		case 8: m->encrypted_footer_info = 1; LOOM_TRY(pq_tr_skip(t, ft, 0)); break;
		SKIP;
		}
	}
	STRUCT_DONE(t);
}

int pq_file_meta_decode(pq_file_meta **out, const void *p, size_t len, uint64_t base_off,
                        const char *ctx)
{
	pq_tr t;
	pq_file_meta *m;
	int rc;

	*out = NULL;
	m = loom_calloc(1, sizeof(*m));
	if (!m)
		return oom();
	loom_arena_init(&m->arena, 16384);
	pq_tr_init(&t, p, len, base_off, ctx);
	rc = rd_file_meta(&t, m);
	if (rc == 0 && m->num_schema == 0)
		rc = pq_tr_fail(&t, "footer has no schema");
	if (rc < 0) {
		pq_file_meta_free(m);
		return rc;
	}
	*out = m;
	return 0;
}

void pq_file_meta_free(pq_file_meta *m)
{
	if (!m)
		return;
	loom_arena_dispose(&m->arena);
	loom_free(m);
}

/* ---- what decoded statistics say ---- */

const pq_column_meta *pq_chunk_stats(const pq_row_group *rg, size_t col)
{
	if (col >= rg->num_columns || !rg->columns[col].has_meta_data || !rg->columns[col].meta.has_statistics)
		return NULL;
	return &rg->columns[col].meta;
}

void pq_stats_min_max(const pq_statistics *s, int legacy, pq_value_range *r)
{
	const pq_bytes *lo = &s->min_value, *hi = &s->max_value;
	if ((!lo->ptr || !hi->ptr) && legacy && s->min.ptr && s->max.ptr) {
		lo = &s->min;
		hi = &s->max;
	}
	r->min = lo->ptr;
	r->min_len = lo->len;
	r->max = hi->ptr;
	r->max_len = hi->len;
}

/* ---- page headers ---- */

static int rd_data_page_header(pq_tr *t, loom_arena *a, void *obj)
{
	pq_page_header *h = obj;
	(void)a;
	STRUCT_LOOP(t) {
		switch (id) {
		case 1: LOOM_TRY(rd_i32(t, ft, &h->num_values, "DataPageHeader.num_values")); break;
		case 2: LOOM_TRY(rd_i32(t, ft, &h->encoding, "DataPageHeader.encoding")); break;
		case 3: LOOM_TRY(rd_i32(t, ft, &h->def_level_encoding, "definition_level_encoding")); break;
		case 4: LOOM_TRY(rd_i32(t, ft, &h->rep_level_encoding, "repetition_level_encoding")); break;
		SKIP;
		}
	}
	STRUCT_DONE(t);
}

static int rd_dict_page_header(pq_tr *t, loom_arena *a, void *obj)
{
	pq_page_header *h = obj;
	(void)a;
	STRUCT_LOOP(t) {
		switch (id) {
		case 1: LOOM_TRY(rd_i32(t, ft, &h->dict_num_values, "DictionaryPageHeader.num_values")); break;
		case 2: LOOM_TRY(rd_i32(t, ft, &h->dict_encoding, "DictionaryPageHeader.encoding")); break;
		case 3: LOOM_TRY(rd_bool(t, ft, &h->dict_is_sorted, "is_sorted")); break;
		SKIP;
		}
	}
	STRUCT_DONE(t);
}

static int rd_data_page_header_v2(pq_tr *t, loom_arena *a, void *obj)
{
	pq_page_header *h = obj;
	(void)a;
	STRUCT_LOOP(t) {
		switch (id) {
		case 1: LOOM_TRY(rd_i32(t, ft, &h->num_values, "DataPageHeaderV2.num_values")); break;
		case 2: LOOM_TRY(rd_i32(t, ft, &h->num_nulls, "num_nulls")); break;
		case 3: LOOM_TRY(rd_i32(t, ft, &h->num_rows, "num_rows")); break;
		case 4: LOOM_TRY(rd_i32(t, ft, &h->encoding, "DataPageHeaderV2.encoding")); break;
		case 5: LOOM_TRY(rd_i32(t, ft, &h->def_levels_byte_length, "definition_levels_byte_length")); break;
		case 6: LOOM_TRY(rd_i32(t, ft, &h->rep_levels_byte_length, "repetition_levels_byte_length")); break;
		case 7: LOOM_TRY(rd_bool(t, ft, &h->is_compressed, "is_compressed")); break;
		SKIP;
		}
	}
	STRUCT_DONE(t);
}

static int rd_page_header(pq_tr *t, pq_page_header *h)
{
	STRUCT_LOOP(t) {
		switch (id) {
		case 1: LOOM_TRY(rd_i32(t, ft, &h->type, "PageHeader.type")); break;
		case 2: LOOM_TRY(rd_i32(t, ft, &h->uncompressed_page_size, "uncompressed_page_size")); break;
		case 3: LOOM_TRY(rd_i32(t, ft, &h->compressed_page_size, "compressed_page_size")); break;
		case 4: LOOM_TRY(rd_i32(t, ft, &h->crc, "crc")); h->has_crc = 1; break;
		/* the three page kinds' headers are read into the one pq_page_header */
		case 5: LOOM_TRY(rd_struct_field(t, ft, NULL, rd_data_page_header, h, &h->has_data_page)); break;
		case 7: LOOM_TRY(rd_struct_field(t, ft, NULL, rd_dict_page_header, h, &h->has_dictionary_page)); break;
		case 8: LOOM_TRY(rd_struct_field(t, ft, NULL, rd_data_page_header_v2, h, &h->has_data_page_v2)); break;
		SKIP;
		}
	}
	STRUCT_DONE(t);
}

int pq_page_header_decode(pq_page_header *h, const void *p, size_t len, size_t *consumed,
                          uint64_t base_off, const char *ctx)
{
	pq_tr t;
	memset(h, 0, sizeof(*h));
	h->is_compressed = 1;
	h->type = -1;
	pq_tr_init(&t, p, len, base_off, ctx);
	LOOM_TRY(rd_page_header(&t, h));
	if (h->compressed_page_size < 0 || h->uncompressed_page_size < 0)
		return loom_err(LOOM_ECORRUPT, LOOM_ERRCLASS_PARQUET,
		                "%s: page header at byte offset %llu has a negative page size",
		                t.ctx, (unsigned long long)base_off);
	*consumed = t.pos;
	return 0;
}

/* ---- page indexes ---- */

static int rd_column_index(pq_tr *t, loom_arena *a, pq_column_index *ci)
{
	size_t nmin = 0, nmax = 0, nnull = 0;
	STRUCT_LOOP(t) {
		switch (id) {
		case 1:
			LOOM_TRY(rd_value_list(t, ft, a, ELEM_BOOL, &ci->null_pages, &nnull, "null_pages"));
			break;
		case 2: LOOM_TRY(rd_value_list(t, ft, a, ELEM_BYTES, &ci->min_values, &nmin, "min_values")); break;
		case 3: LOOM_TRY(rd_value_list(t, ft, a, ELEM_BYTES, &ci->max_values, &nmax, "max_values")); break;
		case 4: LOOM_TRY(rd_i32(t, ft, &ci->boundary_order, "boundary_order")); break;
		case 5:
			LOOM_TRY(rd_value_list(t, ft, a, ELEM_I64, &ci->null_counts, &ci->num_null_counts,
			                       "null_counts[]"));
			break;
		SKIP;
		}
	}
	if (rc_ < 0)
		return rc_;
	if (nmin != nnull || nmax != nnull)
		return pq_tr_fail(t, "column index lists differ in length");
	ci->num_pages = nnull;
	pq_tr_struct_end(t);
	return 0;
}

int pq_column_index_decode(pq_column_index *ci, loom_arena *arena, const void *p, size_t len,
                           uint64_t base_off, const char *ctx)
{
	pq_tr t;
	memset(ci, 0, sizeof(*ci));
	pq_tr_init(&t, p, len, base_off, ctx);
	return rd_column_index(&t, arena, ci);
}

static int rd_page_location(pq_tr *t, loom_arena *a, void *obj)
{
	pq_page_location *l = obj;
	(void)a;
	STRUCT_LOOP(t) {
		switch (id) {
		case 1: LOOM_TRY(rd_i64(t, ft, &l->offset, "PageLocation.offset")); break;
		case 2: LOOM_TRY(rd_i32(t, ft, &l->compressed_page_size, "PageLocation.compressed_page_size")); break;
		case 3: LOOM_TRY(rd_i64(t, ft, &l->first_row_index, "PageLocation.first_row_index")); break;
		SKIP;
		}
	}
	STRUCT_DONE(t);
}

static int rd_offset_index(pq_tr *t, loom_arena *a, pq_offset_index *oi)
{
	STRUCT_LOOP(t) {
		switch (id) {
		case 1:
			LOOM_TRY(rd_struct_list(t, ft, a, sizeof(pq_page_location), rd_page_location,
			                        &oi->pages, &oi->num_pages, "page_locations[]"));
			break;
		case 2:
			LOOM_TRY(rd_value_list(t, ft, a, ELEM_I64, &oi->unencoded_byte_array_data_bytes, &oi->num_unencoded,
			                       "unencoded_byte_array_data_bytes[]"));
			break;
		SKIP;
		}
	}
	STRUCT_DONE(t);
}

int pq_offset_index_decode(pq_offset_index *oi, loom_arena *arena, const void *p, size_t len,
                           uint64_t base_off, const char *ctx)
{
	pq_tr t;
	memset(oi, 0, sizeof(*oi));
	pq_tr_init(&t, p, len, base_off, ctx);
	return rd_offset_index(&t, arena, oi);
}
