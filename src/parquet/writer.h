/* parquet/writer.h - streaming Parquet file writer.
 *
 * The writer takes the file schema (flattened, parquet/types.h) and column
 * batches (parquet/batch.h), encodes pages as batches arrive and keeps at
 * most one row group of ENCODED (compressed) pages in memory; at each row
 * group boundary it streams the chunks to the sink. The file is: "PAR1",
 * row groups, optional column + offset indexes, footer, length, "PAR1".
 *
 * Per column chunk: dictionary encoding (PLAIN dictionary page +
 * RLE_DICTIONARY data pages) until the dictionary exceeds dict_limit_bytes,
 * then PLAIN pages for the rest of the chunk; data page v1 with RLE levels
 * (or v2 on request);
 * pages cut at row boundaries near page_bytes; statistics per chunk
 * (min_value/max_value/null_count, legacy min/max where signed order is
 * right), TypeDefinedOrder column orders.
 *
 * Ownership: the sink is borrowed; the caller opened it and commits or
 * aborts it after pq_writer_close / pq_writer_free.
 */
#ifndef LOOM_PARQUET_WRITER_H
#define LOOM_PARQUET_WRITER_H

#include <stddef.h>
#include <stdint.h>

#include "loom/store.h"
#include "parquet/batch.h"
#include "parquet/stats.h"
#include "parquet/types.h"
#include "util/threadpool.h"

typedef struct pq_writer_opts {
	int codec;                  /* pq_codec; default (opts NULL) SNAPPY */
	int level;                  /* codec level, 0 = codec default */
	size_t row_group_bytes;     /* 0: 128 MiB (encoded, uncompressed bytes) */
	size_t page_bytes;          /* 0: 1 MiB */
	size_t dict_limit_bytes;    /* 0: 1 MiB; dictionary page size before PLAIN fallback */
	int disable_dictionary;     /* 1: PLAIN pages only */
	int write_page_index;       /* 1: ColumnIndex + OffsetIndex */
	int data_page_v2;           /* 1: DATA_PAGE_V2 (levels uncompressed) instead of v1 */
	const char *created_by;     /* NULL: "loom version X (build loom)" */
	const char *const *kv_keys; /* key_value_metadata, kv_count pairs */
	const char *const *kv_values;   /* a NULL value writes the key alone */
	size_t kv_count;
	/* Borrowed pool to encode and compress columns in parallel (NULL: on
	 * the calling thread). Costs two page-sized scratch buffers per leaf.
	 * The output bytes are the same either way. */
	loom_threadpool *pool;
} pq_writer_opts;

/* Defaults as above (codec SNAPPY). */
void pq_writer_opts_default(pq_writer_opts *o);

/* File-level facts about one leaf column, for Delta stats and checks. */
typedef struct pq_leaf_result {
	char *path;                 /* dotted path_in_schema, "a.list.element" */
	size_t schema_index;        /* index of the leaf in the schema array */
	pq_physical_type type;
	int32_t type_length;
	pq_converted_type converted_type;
	pq_logical_type logical_type;
	int32_t scale, precision;   /* legacy DECIMAL annotation */
	int16_t max_def, max_rep;
	pq_cmp_kind cmp;
	int64_t null_count;         /* level slots without a value (nulls, empty lists) */
	int64_t num_values;         /* non-null values */
	int has_min_max;            /* 0: all null, all NaN, or no order (INT96) */
	uint8_t *min, *max;         /* PLAIN bytes (BYTE_ARRAY without length prefix) */
	size_t min_len, max_len;
} pq_leaf_result;

typedef struct pq_write_result {
	uint64_t file_size;
	int64_t num_rows;
	size_t num_row_groups;
	size_t num_leaves;
	pq_leaf_result *leaves;     /* owned; release with pq_write_result_free */
} pq_write_result;

void pq_write_result_free(pq_write_result *r);

typedef struct pq_writer pq_writer;

/* Start a file on `sink`. The schema array (root first, depth-first; leaves
 * in the order of the batch columns) is copied. Leave converted_type at
 * PQ_CT_NONE where absent (0 is UTF8); a legacy converted type is derived
 * from the logical type when missing. opts may be NULL. */
int pq_writer_open(pq_writer **out, loom_store_writer *sink,
                   const pq_schema_node *schema, size_t nschema,
                   const pq_writer_opts *opts);

/* Encode a batch (one pq_column per leaf, schema leaf order). The batch is
 * only read; it may be borrowed. Row groups are cut between rows. */
int pq_writer_write(pq_writer *w, const pq_batch *b);

/* Row groups copied from another file, byte for byte, without decoding:
 * pq_writer_can_copy says whether row group `g` of `r` may be (the same
 * leaves with the same physical types and levels in the same order,
 * stored with this writer's codec, and statistics giving every leaf's null
 * count and, for ordered values, exact min and max); the caller makes sure
 * the schemas agree beyond that (names, logical types).
 * pq_writer_copy_row_group writes the buffered row group first, then the
 * copied one; its chunk statistics go into the file's (pq_write_result).
 * Dictionary pages and page statistics travel with the pages; bloom
 * filters and page indexes do not, and a file holding a copied row group
 * is written without page indexes. */
typedef struct pq_reader pq_reader;
int pq_writer_can_copy(const pq_writer *w, pq_reader *r, size_t g);
int pq_writer_copy_row_group(pq_writer *w, pq_reader *r, size_t g);

/* Write the last row group, page indexes and footer, fill `res` (may be
 * NULL), and free the writer whatever the outcome. */
int pq_writer_close(pq_writer *w, pq_write_result *res);

/* Free without finishing (abort paths); NULL accepted. */
void pq_writer_free(pq_writer *w);

/* Close every column's pending page now (compressed into the buffered
 * row group), so pq_writer_estimated_size is exact up to dictionaries. */
int pq_writer_flush_pages(pq_writer *w);

/* Rows written so far (including the buffered row group). */
int64_t pq_writer_rows(const pq_writer *w);
/* Bytes sent to the sink so far. */
uint64_t pq_writer_bytes_written(const pq_writer *w);
/* Estimated file size if closed now: bytes written plus the buffered row
 * group (compressed pages held; pending pages and dictionaries at their
 * encoded size times the compression ratio of the file's row groups so
 * far, or of their column's compressed pages before the first row group),
 * without the footer. For rolling output at a target size. */
uint64_t pq_writer_estimated_size(const pq_writer *w);

#endif
