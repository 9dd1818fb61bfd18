/* parquet/reader.h - reading Parquet files through a loom_store.
 *
 * Opening reads only the file's tail: one request (the last 64 KiB, which
 * holds the footer of most files) on stores with read_tail, a second for
 * a larger footer; stat + tail + footer on version 1 stores. Reading
 * a row group fetches just the projected column chunks, one at a time, and
 * decodes them into a pq_batch; peak memory is one compressed chunk, one
 * decompressed page and the decoded batch, never the whole file.
 *
 * Usage:
 *   pq_reader *r;
 *   pq_batch b = {0};
 *   LOOM_TRY(pq_reader_open(&r, store, "part-0.parquet"));
 *   for (g = 0; g < pq_reader_meta(r)->num_row_groups; g++) {
 *       rc = pq_reader_read_row_group(r, g, NULL, 0, &b);   // all leaves
 *       ...use b (columns in the order requested)...
 *   }
 *   pq_batch_free(&b);
 *   pq_reader_free(r);
 *
 * A reader is not thread-safe; open one per thread (the footer is cheap).
 * Encrypted files and encrypted columns fail with LOOM_EUNSUPPORTED.
 */
#ifndef LOOM_PARQUET_READER_H
#define LOOM_PARQUET_READER_H

#include <stddef.h>
#include <stdint.h>

#include "loom/store.h"
#include "parquet/batch.h"
#include "parquet/meta.h"
#include "parquet/schema.h"

/* Largest page we decompress (a bound against decompression bombs). */
#define PQ_MAX_PAGE_SIZE ((size_t)1 << 30)
/* Default bounds on one decoded column chunk (a row group of one column):
 * level slots, and value bytes (dictionaries and delta prefixes expand
 * small pages). Beyond them reading fails with LOOM_ENOMEM. */
#define PQ_DEFAULT_MAX_CHUNK_LEVELS ((size_t)1 << 28)
#define PQ_DEFAULT_MAX_CHUNK_BYTES ((size_t)4 << 30)

typedef struct pq_reader pq_reader;

/* Open `key` in `store` (borrowed: must outlive the reader). */
int pq_reader_open(pq_reader **out, loom_store *store, const char *key);
/* The same for a file whose size the caller knows (a Delta add's): the
 * footer then comes from one ranged read on any store - object stores
 * without suffix ranges (Azure) included. A file of another size is
 * still opened right (the read shows it; it then costs the usual reads). */
int pq_reader_open_sized(pq_reader **out, loom_store *store, const char *key, uint64_t size);

/* Open a file by path or URI ("/d/f.parquet", "file:///d/f.parquet",
 * "s3://bucket/d/f.parquet"): a store rooted at its parent (configured by
 * `opts`, NULL = the environment), owned by the reader. The file name is
 * taken as written (not percent-decoded). */
int pq_reader_open_uri(pq_reader **out, const char *uri, const loom_store_opts *opts);
/* pq_reader_open_uri without options. */
int pq_reader_open_path(pq_reader **out, const char *path);

/* A file's parsed footer and schema, loaded once (stat, tail, footer
 * reads) and shared read-only by any number of readers, on any threads. */
typedef struct pq_footer pq_footer;
int pq_footer_load(pq_footer **out, loom_store *store, const char *key);
/* With the size the caller expects (UINT64_MAX: unknown), as
 * pq_reader_open_sized. */
int pq_footer_load_sized(pq_footer **out, loom_store *store, const char *key, uint64_t size);
const pq_file_meta *pq_footer_meta(const pq_footer *f);
const pq_schema *pq_footer_schema(const pq_footer *f);
uint64_t pq_footer_file_size(const pq_footer *f);
void pq_footer_free(pq_footer *f);

/* Open a reader over a loaded footer (borrowed: must outlive the reader);
 * no I/O until a row group is read. */
int pq_reader_open_footer(pq_reader **out, loom_store *store, const pq_footer *f);

/* Point the reader at another file of its store (or at a loaded footer,
 * borrowed), keeping its buffers, so a loop over many files touches no
 * fresh memory (about 3.5 s per GiB on the bench machine). After a
 * failure the reader may be reopened again or freed, nothing else. */
int pq_reader_reopen(pq_reader *r, const char *key);
int pq_reader_reopen_footer(pq_reader *r, const pq_footer *f);

/* Footer and schema, owned by the reader (or its pq_footer). */
const pq_file_meta *pq_reader_meta(const pq_reader *r);
const pq_schema *pq_reader_schema(const pq_reader *r);
uint64_t pq_reader_file_size(const pq_reader *r);
/* The key the reader was opened with (for messages). */
const char *pq_reader_key(const pq_reader *r);

/* Decode row group `row_group`, leaves `leaves[0..nleaves)` (indexes into
 * pq_reader_schema(r)->leaves; NULL = all leaves in order), into `out`.
 * `out` must be zeroed before the first call; a batch already filled by
 * this function with the same number of columns is reused (its arrays are
 * kept and overwritten), so a loop over row groups allocates little.
 * `out` owns its arrays: release with pq_batch_free. On error `out` is left
 * valid (free it) but its content is unspecified. */
int pq_reader_read_row_group(pq_reader *r, size_t row_group, const size_t *leaves,
                             size_t nleaves, pq_batch *out);

/* Read row group `row_group` (leaves as for pq_reader_read_row_group) in
 * slices of at most `max_rows` rows, so a large row group never has to be
 * decoded whole: begin reads the chunks' stored bytes (the compressed row
 * group), then each next decodes the pages the slice needs into `out`
 * (reused like read_row_group's) and sets out->num_rows, 0 after the last
 * slice. Pages are decoded one at a time per column and their rows handed
 * out across slices. Flat columns only (LOOM_EUNSUPPORTED for a repeated
 * leaf: read that row group whole). One row group at a time per reader;
 * any other read call ends it. */
int pq_reader_slices_begin(pq_reader *r, size_t row_group, const size_t *leaves, size_t nleaves,
                           size_t max_rows);
/* The same, repeated leaves (lists, maps) included: a row of one is its
 * slots from a repetition level 0 up to the next, and may span pages; a
 * slice holds whole rows of every leaf. */
int pq_reader_slices_begin_nested(pq_reader *r, size_t row_group, const size_t *leaves,
                                  size_t nleaves, size_t max_rows);
int pq_reader_slices_next(pq_reader *r, pq_batch *out);

/* The stored bytes of column chunk `leaf` of row group `row_group` (its
 * pages as written, dictionary page first), for copying it into another
 * file unchanged. The page headers are checked to frame the chunk and add
 * up to its metadata's num_values. *bytes is borrowed until the reader's
 * next call; *start is the chunk's offset in the file. */
int pq_reader_chunk_bytes(pq_reader *r, size_t row_group, size_t leaf, const uint8_t **bytes,
                          size_t *len, int64_t *start);

/* On a store whose reads are requests (LOOM_STORE_CAP_REQUEST_READS:
 * S3, Azure), read the column chunks of `leaves` (NULL: every leaf) of
 * row group `row_group` with one ranged read (one GET instead of one per
 * column), when they lie together (at least half the span is chunk
 * bytes) within PQ_PREFETCH_MAX; the reads of those chunks that follow
 * are served from memory until the next prefetch or file. 0 also when it
 * declines (always on a local store: a pread per chunk costs no request,
 * and the span would be one more copy). pq_reader_read_row_group and
 * pq_reader_slices_begin call it themselves. */
#define PQ_PREFETCH_MAX ((int64_t)16 << 20)
int pq_reader_prefetch_columns(pq_reader *r, size_t row_group, const size_t *leaves, size_t nleaves);
int pq_reader_prefetch_row_group(pq_reader *r, size_t row_group);

/* 0 when the file's writer recorded chunk sizes too small (parquet-mr
 * before 1.2.9 left the dictionary page header out, PARQUET-816): its
 * chunks are decoded with some slack but never copied byte for byte. */
int pq_reader_chunk_sizes_exact(const pq_reader *r);

/* Change the per-chunk bounds (0 keeps a bound as it is). */
void pq_reader_set_limits(pq_reader *r, size_t max_chunk_levels, size_t max_chunk_bytes);

void pq_reader_free(pq_reader *r);

#endif
