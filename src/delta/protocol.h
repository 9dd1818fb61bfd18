/* delta/protocol.h - protocol and table-feature gating: ONE table says,
 * for every legacy version and named table feature, whether loom can read
 * a table that has it and whether each maintenance operation may write it.
 *
 * Semantics (PROTOCOL.md "Table Features"):
 *  - reading needs every reader feature (reader version 3: readerFeatures;
 *    reader version 2: columnMapping; > 3: refused);
 *  - writing (every op except READ) needs every reader AND writer feature
 *    (writer version 7: writerFeatures; 2..6: the features those versions
 *    imply; > 7: refused);
 *  - an unknown feature name is refused. Never guess. */
#ifndef LOOM_DELTA_PROTOCOL_H
#define LOOM_DELTA_PROTOCOL_H

#include <stddef.h>
#include <stdint.h>

#include "delta/actions.h"
#include "loom/table.h"

typedef loom_table_op delta_op;
#define DELTA_OP_READ LOOM_OP_READ
#define DELTA_OP_VACUUM LOOM_OP_VACUUM
#define DELTA_OP_COMPACT LOOM_OP_COMPACT
#define DELTA_OP_ZORDER LOOM_OP_ZORDER
#define DELTA_OP_CHECKPOINT LOOM_OP_CHECKPOINT
#define DELTA_OP_LOG_CLEANUP LOOM_OP_LOG_CLEANUP
#define DELTA_OP_COUNT LOOM_OP__COUNT

/* Feature kinds. */
#define DELTA_FEAT_WRITER 1          /* writer-only feature */
#define DELTA_FEAT_READER_WRITER 2   /* in readerFeatures and writerFeatures */

/* What loom does with an op on a table that has a feature. */
#define DELTA_REFUSE 0    /* never: the protocol (or Delta) forbids it */
#define DELTA_ALLOW 1     /* loom does it and meets the feature's rules */
#define DELTA_NOT_YET 2   /* allowed by the protocol, not built in loom yet */

typedef struct delta_feature_support {
	const char *name;                /* as in the protocol lists */
	uint8_t kind;                    /* DELTA_FEAT_* */
	uint8_t legacy_reader;           /* reader version implying it, 0 none */
	uint8_t legacy_writer;           /* writer version implying it, 0 none */
	uint8_t allowed[DELTA_OP_COUNT]; /* DELTA_REFUSE / ALLOW / NOT_YET */
	const char *note;                /* what the ops must do, and why a
	                                    DELTA_REFUSE op is refused */
	const char *todo;                /* why a DELTA_NOT_YET op is refused:
	                                    what loom still lacks */
} delta_feature_support;

/* The table (terminated by an entry with name NULL). */
extern const delta_feature_support delta_feature_table[];

/* The entry for a feature name, or NULL if unknown. */
const delta_feature_support *delta_feature_lookup(const char *name);

/* Highest protocol versions loom understands. */
#define DELTA_MAX_READER_VERSION 3
#define DELTA_MAX_WRITER_VERSION 7

/* 0 if `op` is allowed on a table with protocol `p`; else LOOM_EUNSUPPORTED
 * with a message naming the feature or version and the operation. A
 * refusal the protocol requires (unknown feature, DELTA_REFUSE) is
 * reported before one that only waits for loom (DELTA_NOT_YET), so the
 * message names the reason that will not go away. */
int delta_protocol_check(const delta_protocol *p, delta_op op);

/* Is feature `name` supported by protocol `p` (listed, or implied by a
 * legacy version)? */
int delta_protocol_has_feature(const delta_protocol *p, const char *name);

const char *delta_op_name(delta_op op);

#endif
