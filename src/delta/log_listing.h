/* delta/log_listing.h - what _delta_log/ holds, and which files rebuild a
 * given version.
 *
 * The listing decides; _last_checkpoint is only a hint that is reported
 * (a missing, corrupt or stale hint is treated as absent). */
#ifndef LOOM_DELTA_LOG_LISTING_H
#define LOOM_DELTA_LOG_LISTING_H

#include <stddef.h>
#include <stdint.h>

#include "delta/log_names.h"
#include "loom/store.h"
#include "util/vec.h"

#define DELTA_LOG_DIR "_delta_log/"

typedef struct delta_log_file {
	char *key;              /* store key ("_delta_log/000...json"); owned */
	delta_log_name name;
	uint64_t size;
	int64_t mtime_ms;
} delta_log_file;

typedef enum delta_checkpoint_kind {
	DELTA_CKPT_NONE = 0,
	DELTA_CKPT_CLASSIC,         /* N.checkpoint.parquet (V1 or V2 content) */
	DELTA_CKPT_MULTIPART,       /* N.checkpoint.P.T.parquet, all parts */
	DELTA_CKPT_V2_JSON,         /* N.checkpoint.<uuid>.json */
	DELTA_CKPT_V2_PARQUET       /* N.checkpoint.<uuid>.parquet */
} delta_checkpoint_kind;

/* "classic", "multi-part", "v2-json", "v2-parquet" or "none". */
const char *delta_checkpoint_kind_name(delta_checkpoint_kind k);

/* One complete checkpoint: its files are listing->files[first..first+count). */
typedef struct delta_checkpoint_ref {
	int64_t version;
	delta_checkpoint_kind kind;
	size_t first, count;
} delta_checkpoint_ref;

typedef struct delta_log_listing {
	loom_vec files;              /* delta_log_file, ascending by key */
	loom_vec checkpoints;        /* delta_checkpoint_ref, complete ones only,
	                                newest version first; within a version
	                                the preferred first (V2 > multi-part >
	                                classic) */
	int64_t latest_commit;       /* highest N.json, -1 if none */
	int64_t earliest_commit;     /* lowest N.json, -1 if none */
	int64_t last_checkpoint_hint;/* version in _last_checkpoint, -1 absent/bad */
} delta_log_listing;

/* List `_delta_log/` of the table in `store`. A table without any commit
 * or checkpoint is LOOM_ENOTFOUND ("not a Delta table"). */
int delta_log_list(loom_store *store, delta_log_listing *out);

/* List only the files of versions >= `from_version` (0 = everything), using
 * the store's sorted start-after listing: with the _last_checkpoint hint
 * this skips the older log. earliest_commit then describes the partial
 * listing. */
int delta_log_list_from(loom_store *store, int64_t from_version,
                        delta_log_listing *out);

/* The version in _delta_log/_last_checkpoint, or -1 when it is missing,
 * fails its checksum (PROTOCOL.md "JSON checksum") or is otherwise
 * unreadable (never an error: the hint is optional). */
int64_t delta_log_read_hint(loom_store *store);
void delta_log_listing_dispose(delta_log_listing *l);

/* The commit file of `version`, or NULL. */
const delta_log_file *delta_log_find_commit(const delta_log_listing *l,
                                            int64_t version);

/* The compaction file x.y.compacted.json with x == `from` and the largest
 * y <= `max_end`, or NULL. */
const delta_log_file *delta_log_find_compaction(const delta_log_listing *l, int64_t from,
                                                int64_t max_end);

/* The files that rebuild `version`: a checkpoint (kind NONE: replay from
 * version 0) and the contiguous commits after it. */
typedef struct delta_log_segment {
	int64_t version;
	delta_checkpoint_ref checkpoint;        /* kind NONE: no checkpoint */
	const delta_log_file **commits;         /* owned array of borrowed files,
	                                           versions checkpoint+1..version */
	size_t num_commits;
	/* what to replay, oldest first: commits, and (when asked for) log
	 * compaction files x.y.compacted.json in place of the commits x..y
	 * they reconcile (PROTOCOL.md "Log Compaction Files"). Owned array of
	 * borrowed files. */
	const delta_log_file **units;
	size_t num_units;
	size_t num_compactions;                 /* compaction files among units */
} delta_log_segment;

/* Build the segment for `version` using the checkpoint `ckpt` (NULL: no
 * checkpoint, commits from 0). Every commit must exist (a missing one is
 * LOOM_ECORRUPT naming the version), even where a compaction file will be
 * read instead. `use_compactions`: replace runs of commits by the longest
 * compaction file starting at each point, greedily from the oldest. */
int delta_log_segment_build(const delta_log_listing *l, int64_t version,
                            const delta_checkpoint_ref *ckpt, int use_compactions,
                            delta_log_segment *out);
void delta_log_segment_dispose(delta_log_segment *seg);

#endif
