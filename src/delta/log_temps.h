/* delta/log_temps.h - temp files a killed writer left in _delta_log.
 *
 * A log writer (loom's local store, Spark's HDFS log store) writes a hidden
 * temp file ".<name>.<uuid>.tmp" beside the file it publishes, then links or
 * renames it into place. A writer killed in between leaves the temp file
 * for good: listings skip hidden names, so nothing else ever removes it.
 * Checkpoint, compaction, Z-order, vacuum and convert sweep the stale ones
 * after their own work, also when they find nothing to do (a run killed
 * between publishing and removing its temp file did the job already;
 * convert: the table exists), never in a dry run; cleanup-logs deletes
 * them with the expired log.
 * (Temp files of data files a killed compaction was writing are taken by a
 * full vacuum, like any unreferenced file older than the retention.)
 *
 * Stale means untouched for DELTA_TEMP_SAFE_AGE_MS by the file's mtime: a
 * live writer keeps its temp file's mtime fresh while it writes and
 * publishes it within moments of its last write, so an hour-old temp file
 * belongs to a dead (or hung) writer. Removing one under a hung writer is
 * still safe: its link/rename then fails and its commit fails cleanly.
 * The age is judged with loom's clock against the store's mtime, like every
 * retention in loom; the hour also absorbs clock skew. Object stores have
 * no temp objects (a PUT is atomic; an unfinished multipart upload is not
 * listed and is reaped by the bucket's lifecycle rule), so there the sweep
 * finds nothing. */
#ifndef LOOM_DELTA_LOG_TEMPS_H
#define LOOM_DELTA_LOG_TEMPS_H

#include <stddef.h>
#include <stdint.h>

#include "loom/store.h"
#include "util/clock.h"

#define DELTA_TEMP_SAFE_AGE_MS (3600LL * 1000)

/* Is `name` (a base name) a writer's temp file: "." + a name + "." + a
 * 36-character lowercase UUID + ".tmp"? */
int delta_temp_name(const char *name, size_t len);

/* ... whose name is a Delta log file's? */
int delta_log_temp_name(const char *name, size_t len);

/* Called for each stale temp file with its key and size; non-zero stops. */
typedef int (*delta_temp_cb)(const char *key, uint64_t size, void *ctx);

/* List _delta_log/ and report the temp files older than
 * DELTA_TEMP_SAFE_AGE_MS (clock NULL: the system clock). */
int delta_log_stale_temps(loom_store *store, const loom_clock *clock, delta_temp_cb cb,
                          void *ctx);

/* Best effort: delete the stale temp files; returns how many went (errors
 * are not reported - the caller's work is done, the next run tries again). */
int delta_log_sweep_temps(loom_store *store, const loom_clock *clock);

#endif
