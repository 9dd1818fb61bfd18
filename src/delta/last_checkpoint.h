/* delta/last_checkpoint.h - _delta_log/_last_checkpoint: its checksum
 * (PROTOCOL.md "JSON checksum") and writing it.
 *
 * The checksum is the MD5 of a canonical text of the JSON: every leaf
 * becomes `"k1"+"k2"+0=value` (names and string values URL-encoded, only
 * a-z A-Z 0-9 - . _ ~ left as they are, array positions as numbers), the
 * pairs are sorted and joined with ','; the top-level "checksum" is left
 * out. Pairs are sorted as whole "path=value" strings, which is what Delta
 * Spark (LastCheckpointInfo.treeNodeToChecksum) does and validates; it
 * differs from sorting by path only for arrays of more than ten elements. */
#ifndef LOOM_DELTA_LAST_CHECKPOINT_H
#define LOOM_DELTA_LAST_CHECKPOINT_H

#include <jansson.h>

#include "loom/store.h"

/* The checksum of `root` (an object) as 32 hex digits. LOOM_ENOMEM. */
int delta_json_checksum(json_t *root, char out[33]);

/* 1 when `root` has no "checksum" or a matching one, 0 when it does not
 * match (the file was torn or edited: readers must not trust it). */
int delta_json_checksum_ok(json_t *root);

/* Set root's "checksum" and replace _delta_log/_last_checkpoint with it
 * (one line). `root` is modified. */
int delta_last_checkpoint_write(loom_store *store, json_t *root);

#endif
