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

#endif
