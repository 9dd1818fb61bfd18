/* delta/snapshot.h - the state of a table at one version (log replay).
 *
 * This is the internal view the ops layer (vacuum, compaction, checkpoint
 * writing, log cleanup) builds on; the public loom_snapshot wraps it.
 *
 * Replay follows PROTOCOL.md "Action Reconciliation" and runs newest first:
 * commits from the snapshot version down to the checkpoint, then the
 * checkpoint. Where a log compaction file x.y.compacted.json covers commits
 * x..y of that range, it is read instead of them (greedily, the longest
 * one from the oldest commit up). The first action seen for a logical file key (percent-decoded
 * path + DV unique id) is the latest and wins; older ones are skipped
 * without being copied, so memory is proportional to the live state
 * (live files + tombstones), not to the log. */
#ifndef LOOM_DELTA_SNAPSHOT_H
#define LOOM_DELTA_SNAPSHOT_H

#include <stddef.h>
#include <stdint.h>

#include "delta/actions.h"
#include "delta/domains.h"
#include "delta/file_index.h"
#include "delta/ict.h"
#include "delta/log_listing.h"
#include "delta/schema.h"
#include "loom/store.h"
#include "util/arena.h"

typedef struct delta_load_opts {
	int keep_stats;          /* keep add/remove stats text (default 1) */
	int ignore_checkpoints;  /* replay JSON commits from version 0 only */
	int ignore_compactions;  /* replay commits, never x.y.compacted.json */
	int skip_protocol_check; /* do not refuse unreadable protocols */
	int defer_checkpoint_adds; /* the live adds of the checkpoint's Parquet
	                              files are counted, not kept: see
	                              delta_snapshot.deferred_keys */
	int file_index;          /* keep the files in the compact index
	                            (snapshot->index) instead of `files` and
	                            `tombstones`, which stay NULL (issue 30;
	                            for readers moved over to the index) */
	size_t commit_stats_budget; /* with file_index: bytes of stats text the
	                               index keeps for adds read from commits
	                               (newest first); past it, they stay in
	                               the log as references. Default
	                               DELTA_COMMIT_STATS_BUDGET */
} delta_load_opts;

/* An operation that rewrites files (compaction, Z-order) writes their
 * stats into its remove actions. The commits after the checkpoint were
 * just read whole, so keeping their adds' stats costs no request, where
 * reading them back from the log costs a ranged GET per file on an object
 * store. Those commits are usually few (a checkpoint every 10-100 of
 * them), so this is rarely reached: 64 MiB holds ~250,000 stats of ~260
 * bytes, and at 10 M live files it is 6.7 bytes a file, small beside
 * issue 30's 150. Past it the stats stay references, so a table with a
 * longer tail of commits keeps its index bounded all the same. */
#define DELTA_COMMIT_STATS_BUDGET ((size_t)64 << 20)

/* Defaults: keep_stats = 1, commit_stats_budget = DELTA_COMMIT_STATS_BUDGET,
 * others 0. */
void delta_load_opts_init(delta_load_opts *o);

typedef struct delta_snapshot {
	loom_arena arena;            /* every string and array below */
	loom_store *store;           /* borrowed: the table's store */
	int64_t version;

	delta_protocol protocol;
	delta_metadata metadata;
	delta_schema schema;         /* parsed metadata.schema_string */

	delta_file **files;          /* live files (adds), sorted by path */
	size_t num_files;
	uint64_t total_bytes;        /* sum of live file sizes */
	delta_file **tombstones;     /* removes still in the state, sorted by
	                                path; none dropped by age */
	size_t num_tombstones;
	delta_file_index *index;     /* with delta_load_opts.file_index: the
	                                live files and tombstones (files and
	                                tombstones NULL; the counts and
	                                total_bytes set as always) */

	/* With delta_load_opts.defer_checkpoint_adds, the adds read from the
	 * checkpoint's Parquet files (parts, sidecars) that no commit after it
	 * supersedes stay in those files for a caller that streams them (the
	 * checkpoint writer: memory follows the commits, not the table). Here
	 * are the files, in reading order, and how many live adds (and bytes)
	 * they hold; `files`, num_files and total_bytes leave those out. */
	const char **deferred_keys;
	size_t num_deferred_keys;
	size_t num_deferred_files;
	uint64_t deferred_bytes;

	delta_txn *txns;             /* latest version per appId */
	size_t num_txns;
	delta_domain *domains;       /* live (non-removed) domains */
	size_t num_domains;
	delta_table_domains sysdom;  /* clustering columns, row-id high-water
	                                mark (parsed from `domains`) */
	delta_ict ict;               /* in-commit timestamp state */

	const char *commit_info;     /* commitInfo JSON of `version`, or NULL */
	int64_t in_commit_timestamp; /* commitInfo.inCommitTimestamp, -1 */
	int64_t commit_file_mtime;   /* mtime of version's commit file, -1 */

	/* where the state came from */
	delta_checkpoint_kind checkpoint_kind; /* NONE: commits from 0 */
	int64_t checkpoint_version;  /* -1 none */
	size_t checkpoint_parts;     /* files of the checkpoint */
	size_t num_sidecars;
	int64_t last_checkpoint_hint;/* from _last_checkpoint, -1 */
	size_t num_commits_replayed;  /* commit files read */
	size_t num_compactions_replayed; /* log compaction files read in place
	                                    of the commits they cover */
	int64_t latest_version;      /* newest version in the listing */

	char **warnings;             /* arena strings */
	size_t num_warnings;
} delta_snapshot;

/* Load the snapshot at `version` (-1 latest) of the table in `store`.
 * opts may be NULL (defaults). *out owned by the caller:
 * delta_snapshot_free. Errors: see loom_snapshot_load (loom/table.h). */
int delta_snapshot_load(delta_snapshot **out, loom_store *store, int64_t version,
                        const delta_load_opts *opts);
void delta_snapshot_free(delta_snapshot *s);

/* The live file whose decoded path is `path` (NULL if none, and always
 * NULL on a snapshot in the file index: ask delta_snapshot_live_find).
 * Binary search; O(log n). */
const delta_file *delta_snapshot_find_file(const delta_snapshot *s, const char *path);

/* The i-th live file (path order) however the snapshot holds its files
 * (delta/snapshot_files.c): files[i] copied (strings borrowed from the
 * snapshot), or a view of the index (path rendered into `sc`, stats NULL
 * when they were left in the log). Planners hold positions, not pointers,
 * so they work on either. */
int delta_snapshot_live_file(const delta_snapshot *s, size_t i, delta_file_scratch *sc,
                             delta_file *out);

/* Size, modification time and commit version of the i-th live file,
 * without rendering anything (what planners sort and sum by). */
int delta_snapshot_live_brief(const delta_snapshot *s, size_t i, delta_file_brief *out);

/* out (the i-th live file from delta_snapshot_live_file) with its stats
 * text: when the index left it in the log it is read through `rd` into
 * `sc`. Without the index out->stats is already set. */
int delta_snapshot_live_stats(const delta_snapshot *s, delta_stats_reader *rd, size_t i,
                              delta_file_scratch *sc, delta_file *out);

/* 1 when the i-th live file has stats text, 0 when it has none (without
 * reading stats the index left in the log); negative when out of range. */
int delta_snapshot_live_has_stats(const delta_snapshot *s, size_t i);

/* The position of the live file whose decoded path is `path`, or -1.
 * O(log n), on the arrays or the index. */
long long delta_snapshot_live_find(const delta_snapshot *s, const char *path);

/* The i-th tombstone (path order) as delta_snapshot_live_file gives a live
 * file: tombstones[i] copied, or a view of the index (stats NULL when the
 * index left them in the log). */
int delta_snapshot_tombstone(const delta_snapshot *s, size_t i, delta_file_scratch *sc,
                             delta_file *out);

/* Whether a tombstone has expired at `now_ms` under `retention_ms`
 * (delta.deletedFileRetentionDuration): deletionTimestamp + retention <
 * now. A missing deletionTimestamp counts as 0, i.e. expired (what Spark
 * and delta-kernel do). Live files (adds) never expire. */
int delta_tombstone_expired(const delta_file *f, int64_t now_ms, int64_t retention_ms);

/* Table property value or NULL. */
const char *delta_snapshot_property(const delta_snapshot *s, const char *key);

/* Column mapping mode from the properties: 0 none, 1 id, 2 name. */
int delta_snapshot_column_mapping(const delta_snapshot *s);

#endif
