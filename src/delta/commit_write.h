/* delta/commit_write.h - committing a new table version.
 *
 * A commit is one file, _delta_log/<version>.json, published with
 * put-if-absent so it can never overwrite another writer's entry. When the
 * version is taken, the winning commits are read and checked for conflicts
 * with what this commit does; if none conflicts it is retried at the next
 * version, up to max_attempts times. The actions themselves do not change
 * between attempts, except those attempt_actions makes (row tracking
 * fields, which depend on the version and on the winners' row ids); the
 * commitInfo (timestamp, readVersion, in-commit timestamp) is rebuilt for
 * each attempt. */
#ifndef LOOM_DELTA_COMMIT_WRITE_H
#define LOOM_DELTA_COMMIT_WRITE_H

#include <jansson.h>
#include <stdint.h>

#include "loom/ops.h"
#include "loom/store.h"
#include "util/buf.h"
#include "util/clock.h"
#include "util/hashmap.h"
#include "util/secret.h"

typedef enum delta_commit_kind {
	/* commitInfo only (VACUUM START/END): changes no file, conflicts only
	 * with a protocol change that forbids this writer. */
	DELTA_COMMIT_INFO_ONLY = 0,
	/* dataChange=false removes + adds (OPTIMIZE, Z-order): conflicts with a
	 * winner that removed any file this commit removes, or that changed the
	 * metadata or protocol; concurrent appends do not conflict. */
	DELTA_COMMIT_REARRANGE,
	/* blind append of new files: conflicts only with metadata/protocol
	 * changes. */
	DELTA_COMMIT_APPEND,
	/* the first commit of a new table (version 0): any existing version 0
	 * is a conflict. */
	DELTA_COMMIT_CREATE
} delta_commit_kind;

typedef struct delta_commit {
	delta_commit_kind kind;
	int64_t read_version;            /* version the actions were planned on */
	const char *operation;           /* "OPTIMIZE", "VACUUM START", ... */
	json_t *operation_parameters;    /* object or NULL; borrowed. Values are
	                                    written as strings, as Spark does */
	json_t *operation_metrics;       /* object or NULL; borrowed; same */
	const loom_kv *user_metadata;    /* the config's commit block; keys are
	                                    added to commitInfo (borrowed) */
	size_t n_user_metadata;
	int in_commit_timestamps;        /* the table enables ICT */
	int is_blind_append;
	const char *isolation_level;     /* NULL: omitted */
	const char *actions;             /* newline-separated JSON action lines
	                                    (no commitInfo); borrowed */
	size_t actions_len;
	const loom_map *removed_keys;    /* REARRANGE: decoded paths of files this
	                                    commit removes; each value must be
	                                    non-NULL (a lookup that finds NULL
	                                    counts as absent) */
	const loom_secrets *secrets;     /* values masked in user metadata (the
	                                    values of secret-named keys are
	                                    "***" whatever this holds); NULL ok */
	json_t *tags;                    /* commitInfo.tags object or NULL; borrowed */
	/* Called for every attempt: append to `out` the action lines that
	 * depend on the `version` being attempted and on `winners_hwm`, the
	 * highest delta.rowTracking rowIdHighWaterMark the commits after
	 * read_version set (-1: none), whose row ids new ones must follow
	 * (PROTOCOL.md, Row Tracking). A winner's delta.rowTracking domain is
	 * no conflict. NULL: none. */
	int (*attempt_actions)(void *ctx, int64_t version, int64_t winners_hwm, loom_buf *out);
	void *attempt_ctx;
	int max_attempts;                /* 0: default 15 */
	const loom_clock *clock;         /* NULL: system clock */
} delta_commit;

/* Initialise with defaults for `kind` reading `read_version`. */
void delta_commit_init(delta_commit *c, delta_commit_kind kind,
                       int64_t read_version, const char *operation);

/* *out_version after a failure whose outcome is unknown: publishing failed
 * (maybe only its reply was lost) and reading the commit back failed too.
 * The commit may be in the table, so the caller must keep the files it
 * references (a later vacuum removes them if the commit is not there). */
#define DELTA_COMMIT_UNKNOWN (-2)

/* Publish the commit. On success *out_version is the version written. A
 * failed publish is resolved by reading the commit back: bytes identical
 * to ours mean it landed (a lost reply, or a store-level retry that found
 * its own first attempt). LOOM_ECONFLICT when a winning commit conflicts
 * (message names the version and why), LOOM_EEXISTS-derived
 * LOOM_ECONFLICT when attempts run out. On any failure the table is
 * unchanged, except when *out_version is DELTA_COMMIT_UNKNOWN (above). */
int delta_commit_write(loom_store *store, const delta_commit *c,
                       int64_t *out_version);

#endif
