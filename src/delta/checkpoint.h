/* delta/checkpoint.h - reading checkpoints into a replay.
 *
 * JSON V2 checkpoints (N.checkpoint.<uuid>.json) are read here; every
 * Parquet file (classic, multi-part, V2 .parquet checkpoints and sidecars)
 * goes through delta_checkpoint_parquet_read (checkpoint_parquet.c), the
 * only place that knows the Parquet reader. */
#ifndef LOOM_DELTA_CHECKPOINT_H
#define LOOM_DELTA_CHECKPOINT_H

#include "delta/actions.h"
#include "loom/store.h"
#include "util/buf.h"

/* Receives the actions of a checkpoint, one at a time. Strings in `a` are
 * borrowed for the call. Return 0 or a negative code to stop. */
typedef int (*delta_action_sink)(void *ctx, const delta_action *a);

/* Stream the actions of one Parquet checkpoint file or sidecar (`key` in
 * the store). `version` is the checkpoint version (for delta_file.version).
 * LOOM_EUNSUPPORTED for a checkpoint column loom cannot interpret (the
 * snapshot loader then tries an older checkpoint or the commits). */
int delta_checkpoint_parquet_read(loom_store *store, const char *key,
                                  int64_t version, delta_action_sink sink,
                                  void *ctx);

/* Only the sidecar actions of a Parquet checkpoint (classic-named V2 or
 * UUID-named .parquet): the other columns are not read. A file without a
 * sidecar column yields nothing. */
int delta_checkpoint_parquet_sidecars(loom_store *store, const char *key,
                                      delta_action_sink sink, void *ctx);

/* Receives the decoded file name (in _delta_log/_sidecars/) of each
 * sidecar a checkpoint references. Return 0 or a negative code to stop. */
typedef int (*delta_sidecar_ref_cb)(void *ctx, const char *name);

/* The sidecars the checkpoint file `key` references (`is_json`: a
 * UUID-named .json top-level file; else any Parquet checkpoint). A
 * sidecar path that is not a plain file name is LOOM_EUNSUPPORTED. */
int delta_checkpoint_sidecar_refs(loom_store *store, const char *key, int is_json,
                                  delta_sidecar_ref_cb cb, void *ctx);

/* The add.stats text of single rows of Parquet checkpoint files, for a
 * file index that left the stats in the checkpoint (delta/file_index.h).
 * The reader keeps its file open and the slice of the stats column it
 * decoded last (at most 65,536 rows), so rows asked for in ascending order
 * decode each page once. One reader per thread. */
typedef struct delta_ckpt_stats_reader delta_ckpt_stats_reader;

int delta_ckpt_stats_reader_new(delta_ckpt_stats_reader **out, loom_store *store);
void delta_ckpt_stats_reader_free(delta_ckpt_stats_reader *s);

/* add.stats of row `row` (from 0, across row groups) of checkpoint file
 * `key`, appended to `out`; *found 0 when it is null. */
int delta_ckpt_stats_read(delta_ckpt_stats_reader *s, const char *key, uint64_t row,
                          loom_buf *out, int *found);

#endif
