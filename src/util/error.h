/* util/error.h - raising errors into the thread-local record. */
#ifndef LOOM_UTIL_ERROR_H
#define LOOM_UTIL_ERROR_H

#include "loom/errors.h"

/* Record an error on this thread and return `code`, so callers can write
 * `return loom_err(LOOM_ECORRUPT, LOOM_ERRCLASS_PARQUET, "%s: ...", path);` */
int loom_err(int code, int klass, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Like loom_err, appending ": strerror(errnum)". */
int loom_err_os(int code, int errnum, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Prefix the current message with more context ("table x: " + old message),
 * keeping code and class; returns the current code. */
int loom_err_wrap(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Map an errno value to a loom code (ENOENT -> LOOM_ENOTFOUND, ...). */
int loom_err_from_errno(int errnum);

/* Copy the current record out (for results that outlive the thread). */
void loom_err_copy(loom_error *dst);

/* Put back a record copied before some best-effort step that may raise
 * or clear errors of its own (a cleanup after a failure must not erase
 * the failure's record); a copy of no error clears the record. */
void loom_err_restore(const loom_error *saved);

/* Raise a copied record again on this thread (a worker's error, handed to
 * the thread that waited for it); returns its code, never 0: a record
 * without a code (nothing was recorded) is raised as LOOM_ERROR. Call it
 * for failures only. */
int loom_err_raise(const loom_error *e);

/* Propagate a negative status. */
#define LOOM_TRY(expr)                  \
	do {                                \
		int loom_try_rc_ = (expr);      \
		if (loom_try_rc_ < 0)           \
			return loom_try_rc_;        \
	} while (0)

#endif
