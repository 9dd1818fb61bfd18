/* delta/ict.h - in-commit timestamps (PROTOCOL.md "In-Commit Timestamps").
 *
 * When the table enables them (writer feature inCommitTimestamp and
 * delta.enableInCommitTimestamps=true), every commit starts with a
 * commitInfo whose inCommitTimestamp is strictly increasing, and that is
 * the commit's time: for versions >= delta.inCommitTimestampEnablementVersion
 * (all versions when the property is absent: enabled at creation) readers
 * use it instead of the commit file's modification time. */
#ifndef LOOM_DELTA_ICT_H
#define LOOM_DELTA_ICT_H

#include <stddef.h>
#include <stdint.h>

#include "delta/actions.h"
#include "delta/log_listing.h"
#include "loom/store.h"

typedef struct delta_ict {
	int enabled;
	int64_t enablement_version;    /* -1: absent (every commit has one) */
	int64_t enablement_timestamp;  /* -1: absent */
} delta_ict;

/* The ICT state of a table version. LOOM_EINVAL naming the property when
 * an enablement property is not a number. */
int delta_ict_from(const delta_protocol *p, const delta_metadata *m, delta_ict *out);

/* Is the time of commit `version` its in-commit timestamp? */
int delta_ict_covers(const delta_ict *ict, int64_t version);

/* inCommitTimestamp of a commit whose text starts at `text` (the first
 * line, where PROTOCOL.md puts the commitInfo), or -1 when it has none. */
int64_t delta_ict_of_commit_text(const char *text, size_t len);

/* The same, reading only the first line of commit `key`. -1 (not an error)
 * when it has none; an error when the file cannot be read. */
int delta_ict_read(loom_store *store, const char *key, int64_t *out);

/* The time of a commit file: its inCommitTimestamp when `ict` covers the
 * version and the commit has one, else the file's modification time. */
int delta_commit_time(loom_store *store, const delta_ict *ict, const delta_log_file *f,
                      int64_t *out_ms);

#endif
