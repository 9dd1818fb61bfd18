/* parquet/meta.h - the Parquet footer (FileMetaData and everything under
 * it), page headers and page indexes, decoded from Thrift compact bytes.
 *
 * A decoded pq_file_meta owns all its strings and arrays in its arena:
 * release everything with pq_file_meta_free. Binary fields (statistics)
 * are copied, never borrowed from the input bytes. */
#ifndef LOOM_PARQUET_META_H
#define LOOM_PARQUET_META_H

#include <stddef.h>
#include <stdint.h>

#include "parquet/stats.h"
#include "parquet/types.h"
#include "util/arena.h"

typedef struct pq_kv {
	const char *key;          /* NUL-terminated (may contain NULs: see key_len) */
	const char *value;        /* NULL when absent */
	size_t key_len, value_len;
} pq_kv;

typedef struct pq_bytes {
	const uint8_t *ptr;       /* NULL when absent */
	size_t len;
} pq_bytes;

typedef struct pq_statistics {
	pq_bytes max, min;               /* deprecated signed-order fields 1, 2 */
	pq_bytes max_value, min_value;   /* fields 5, 6 */
	int has_null_count, has_distinct_count;
	int64_t null_count, distinct_count;
	int has_is_max_value_exact, is_max_value_exact;
	int has_is_min_value_exact, is_min_value_exact;
} pq_statistics;

typedef struct pq_page_encoding_stats {
	int32_t page_type, encoding, count;
} pq_page_encoding_stats;

typedef struct pq_column_meta {
	pq_physical_type type;
	size_t num_encodings;
	int32_t *encodings;
	size_t path_len;
	const char **path_in_schema;
	int32_t codec;
	int64_t num_values;
	int64_t total_uncompressed_size, total_compressed_size;
	size_t num_kv;
	pq_kv *kv;
	int64_t data_page_offset;
	int has_index_page_offset;
	int64_t index_page_offset;
	int has_dictionary_page_offset;
	int64_t dictionary_page_offset;
	int has_statistics;
	pq_statistics statistics;
	size_t num_encoding_stats;
	pq_page_encoding_stats *encoding_stats;
	int has_bloom_filter;
	int64_t bloom_filter_offset;
	int32_t bloom_filter_length;  /* 0 if absent */
} pq_column_meta;

typedef struct pq_column_chunk {
	const char *file_path;    /* NULL: same file */
	int64_t file_offset;
	int has_meta_data;
	pq_column_meta meta;
	int has_offset_index;
	int64_t offset_index_offset;
	int32_t offset_index_length;
	int has_column_index;
	int64_t column_index_offset;
	int32_t column_index_length;
	int encrypted;            /* crypto_metadata or encrypted_column_metadata present */
} pq_column_chunk;

typedef struct pq_sorting_column {
	int32_t column_idx;
	int descending, nulls_first;
} pq_sorting_column;

typedef struct pq_row_group {
	size_t num_columns;
	pq_column_chunk *columns;
	int64_t total_byte_size;
	int64_t num_rows;
	size_t num_sorting_columns;
	pq_sorting_column *sorting_columns;
	int has_file_offset;
	int64_t file_offset;
	int has_total_compressed_size;
	int64_t total_compressed_size;
	int has_ordinal;
	int16_t ordinal;
} pq_row_group;

typedef struct pq_file_meta {
	int32_t version;
	size_t num_schema;
	pq_schema_node *schema;   /* flattened, root first */
	int64_t num_rows;
	size_t num_row_groups;
	pq_row_group *row_groups;
	size_t num_kv;
	pq_kv *kv;
	const char *created_by;   /* NULL when absent */
	size_t num_column_orders;
	int32_t *column_orders;   /* union member id: 1 = TYPE_ORDER, 0 = unknown */
	int encrypted_footer_info;/* encryption_algorithm present (plaintext footer) */
	loom_arena arena;
} pq_file_meta;

/* Decode FileMetaData from `len` bytes at `p` (the footer), which begin at
 * file offset `base_off`; `ctx` names the file in errors. On success *out
 * is owned by the caller (pq_file_meta_free). */
int pq_file_meta_decode(pq_file_meta **out, const void *p, size_t len,
                        uint64_t base_off, const char *ctx);

/* The metadata of column chunk `col` of a row group when it carries
 * statistics, else NULL. */
const pq_column_meta *pq_chunk_stats(const pq_row_group *rg, size_t col);
/* The min and max statistics give: min_value/max_value, else (`legacy`:
 * the caller knows the deprecated fields' signed order is the column's)
 * min/max. r->min and r->max NULL when they give none. */
void pq_stats_min_max(const pq_statistics *s, int legacy, pq_value_range *r);
void pq_file_meta_free(pq_file_meta *m);

typedef struct pq_page_header {
	int32_t type;                 /* pq_page_type */
	int32_t uncompressed_page_size;
	int32_t compressed_page_size;
	int has_crc;
	int32_t crc;
	int has_data_page, has_dictionary_page, has_data_page_v2;
	/* DataPageHeader (v1) and DataPageHeaderV2 share these */
	int32_t num_values;
	int32_t encoding;
	int32_t def_level_encoding, rep_level_encoding;   /* v1 */
	int32_t num_nulls, num_rows;                      /* v2 */
	int32_t def_levels_byte_length, rep_levels_byte_length;  /* v2 */
	int is_compressed;                                /* v2, default 1 */
	/* DictionaryPageHeader */
	int32_t dict_num_values;
	int32_t dict_encoding;
	int dict_is_sorted;
} pq_page_header;

/* Decode a PageHeader from the front of `len` bytes; *consumed gets the
 * header's size. */
int pq_page_header_decode(pq_page_header *h, const void *p, size_t len,
                          size_t *consumed, uint64_t base_off, const char *ctx);

typedef struct pq_column_index {
	size_t num_pages;
	uint8_t *null_pages;          /* num_pages bools */
	pq_bytes *min_values, *max_values;   /* num_pages each */
	int32_t boundary_order;       /* 0 unordered, 1 ascending, 2 descending */
	size_t num_null_counts;
	int64_t *null_counts;         /* NULL when absent */
} pq_column_index;

typedef struct pq_page_location {
	int64_t offset;
	int32_t compressed_page_size;
	int64_t first_row_index;
} pq_page_location;

typedef struct pq_offset_index {
	size_t num_pages;
	pq_page_location *pages;
	size_t num_unencoded;
	int64_t *unencoded_byte_array_data_bytes;   /* NULL when absent */
} pq_offset_index;

/* Page indexes; arrays are allocated in `arena` (which the caller owns). */
int pq_column_index_decode(pq_column_index *ci, loom_arena *arena, const void *p,
                           size_t len, uint64_t base_off, const char *ctx);
int pq_offset_index_decode(pq_offset_index *oi, loom_arena *arena, const void *p,
                           size_t len, uint64_t base_off, const char *ctx);

#endif
