/* delta/file_index.h - the live files and tombstones of a snapshot in a
 * compact form (issue 30; the design and the byte budget are in
 * docs/file-index.md).
 *
 * Each file is one fixed 72-byte record plus its name: the directory part
 * of the path is kept once per directory, names of the
 * "part-NNNNN-<uuid><suffix>" pattern as 20 bytes of binary (others as
 * text), the partition values once per distinct tuple, deletion vectors,
 * tags and row-tracking fields in a side table only the files that have
 * them use, and the stats text, where the caller can say where it lies (a
 * span of a JSON commit or checkpoint), as that reference, read and decoded
 * when an operation asks for it.
 *
 * Building: add every action the replay keeps, in the order it reads them
 * (newest first), then finish once: the records are sorted by path (then
 * DV id) and a key (path + DV id) added twice keeps its first record,
 * which is the reconciliation rule within one file of the log (a
 * checkpoint holds a key at most once; the replay checks keys seen in
 * commits itself, against a set of only those keys).
 *
 * Reading: a finished index is read-only and may be read from many threads.
 * delta_file_index_get hands out a delta_file view whose strings live in
 * the index (partition values, DV, tags: borrowed) or in the caller's
 * scratch (path, path_raw, key: rendered), so code written against
 * delta_file moves over call site by call site. */
#ifndef LOOM_DELTA_FILE_INDEX_H
#define LOOM_DELTA_FILE_INDEX_H

#include <stddef.h>
#include <stdint.h>

#include "delta/actions.h"
#include "delta/checkpoint.h"
#include "loom/store.h"
#include "util/arena.h"
#include "util/buf.h"

typedef struct delta_file_index delta_file_index;

/* Where a file's stats text is when the index does not hold it: a span
 * of a JSON log file (the string's body, as escaped), or the add.stats
 * column of a row of a Parquet checkpoint file. */
typedef enum delta_stats_kind { DELTA_STATS_SPAN, DELTA_STATS_ROW } delta_stats_kind;

typedef struct delta_stats_ref {
	delta_stats_kind kind;
	uint32_t source;  /* from delta_file_index_add_source */
	uint32_t len;     /* SPAN: bytes of the body */
	uint64_t offset;  /* SPAN: byte offset of the body; ROW: the row */
} delta_stats_ref;

int delta_file_index_new(delta_file_index **out);
void delta_file_index_free(delta_file_index *x);

/* Name a file of the log (a store key) that stats references point into;
 * *id is what delta_stats_ref.source takes. */
int delta_file_index_add_source(delta_file_index *x, const char *key, uint32_t *id);

/* Add one add or remove action (f as parsed: path_raw, path, dv, ...; its
 * strings are copied). `ref` says where its stats text is; NULL: the index
 * keeps a copy of f->stats (when not NULL). Before finish only. */
int delta_file_index_add(delta_file_index *x, const delta_file *f, const delta_stats_ref *ref);

/* Sort, drop later duplicates of a key, split adds from tombstones. */
int delta_file_index_finish(delta_file_index *x);

size_t delta_file_index_num_live(const delta_file_index *x);
size_t delta_file_index_num_tombstones(const delta_file_index *x);
uint64_t delta_file_index_total_bytes(const delta_file_index *x); /* live sizes */

/* Bytes the index holds (records, order arrays, dictionaries, pools, side
 * table, hash tables): what issue 30's per-file budget is checked against. */
size_t delta_file_index_memory(const delta_file_index *x);

/* Which list a position refers to. */
typedef enum delta_file_list { DELTA_FILES_LIVE, DELTA_FILES_TOMBSTONES } delta_file_list;

/* Scratch for views: holds the rendered strings until reset. */
typedef struct delta_file_scratch {
	loom_arena arena;
	loom_buf tmp;
} delta_file_scratch;

void delta_file_scratch_init(delta_file_scratch *s);
void delta_file_scratch_reset(delta_file_scratch *s);
void delta_file_scratch_dispose(delta_file_scratch *s);

/* The i-th file of `list` (sorted by path) as a delta_file: path,
 * path_raw and key rendered into `sc`, the rest borrowed from the index.
 * out->stats is the held text, or NULL when the stats are a reference (ask
 * delta_file_index_stats). */
int delta_file_index_get(const delta_file_index *x, delta_file_list list, size_t i,
                         delta_file_scratch *sc, delta_file *out);

/* What a planner sorts and sums the i-th file by, without rendering its
 * path. */
typedef struct delta_file_brief {
	int64_t size;
	int64_t time;     /* add: modificationTime; remove: deletionTimestamp */
	int64_t version;  /* of the commit (or checkpoint) it came from */
} delta_file_brief;

int delta_file_index_brief(const delta_file_index *x, delta_file_list list, size_t i,
                           delta_file_brief *out);

/* 1 when the i-th file has stats text (held or left in the log), 0 when
 * it has none, without reading it; negative when i is out of range. */
int delta_file_index_has_stats(const delta_file_index *x, delta_file_list list, size_t i);

/* Only the decoded path of the i-th file, into `out` (cleared first). */
int delta_file_index_path(const delta_file_index *x, delta_file_list list, size_t i,
                          loom_buf *out);

/* What reads the stats the index left in the log: the table's store and
 * the checkpoint row reader (kept between calls, so files asked for in
 * order decode each checkpoint page once). One per thread. */
typedef struct delta_stats_reader {
	loom_store *store;
	delta_ckpt_stats_reader *ckpt;  /* made on first use */
} delta_stats_reader;

void delta_stats_reader_init(delta_stats_reader *r, loom_store *store);
void delta_stats_reader_dispose(delta_stats_reader *r);

/* The stats text of the i-th file into `out` (cleared first): the held
 * copy, or the referenced bytes read through `rd` (a span unescaped).
 * *found 0 when the file has no stats text. */
int delta_file_index_stats(const delta_file_index *x, delta_stats_reader *rd,
                           delta_file_list list, size_t i, loom_buf *out, int *found);

/* Where the i-th file's stats lie when the index left them in the log:
 * 1 and *out set, or 0 (held, or no stats). A pass over many files' stats
 * in ascending (source, offset) order opens each checkpoint file once and
 * decodes each of its pages once. */
int delta_file_index_stats_ref(const delta_file_index *x, delta_file_list list, size_t i,
                               delta_stats_ref *out);

/* Position of the live file whose decoded path is `path`, or -1. O(log n). */
long long delta_file_index_find(const delta_file_index *x, const char *path);

#endif
