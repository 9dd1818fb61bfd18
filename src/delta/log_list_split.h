/* delta/log_list_split.h - the files of _delta_log/, listed side by side
 * at version boundaries on object stores.
 *
 * An object store lists 1,000 keys per request (S3, GCS), so a log of
 * 100,000 commits without a checkpoint is 100 pages one after the other.
 * Log file names start with the zero-padded version, so a range of
 * versions is a range of keys: once the first page shows there is more,
 * the rest is split into ranges of LOG_LIST_RANGE_VERSIONS versions
 * listed LOG_LIST_WIDTH at a time (starting with 1, 2, 4 ... so a short
 * log wastes few requests on ranges past its end), and the ranges are
 * joined in order: every key once, ascending, as one listing gives. */
#ifndef LOOM_DELTA_LOG_LIST_SPLIT_H
#define LOOM_DELTA_LOG_LIST_SPLIT_H

#include "loom/store.h"
#include "util/vec.h"

#define LOG_LIST_FIRST_KEYS 1000     /* the first listing: one S3 / GCS page */
#define LOG_LIST_RANGE_VERSIONS 999  /* a range's commits and the key after
                                        them fill one page of 1,000 */
#define LOG_LIST_WIDTH 16

/* Append to `files` (delta_log_file, keys owned) the log files of
 * _delta_log/ (names delta_log_name_parse accepts) whose keys sort after
 * `start_after` (NULL: all), ascending by key. Stores whose reads are not
 * requests are listed in one plain listing. On failure `files` may hold
 * some of them: the caller disposes it. */
int delta_log_list_files(loom_store *store, const char *start_after, loom_vec *files);

/* Free the keys of `files` (delta_log_file) and the vector. */
void delta_log_files_dispose(loom_vec *files);

#endif
