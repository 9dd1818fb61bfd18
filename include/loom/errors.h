/*
 * loom/errors.h - error codes and the per-thread error record.
 *
 * Every fallible function returns 0 on success or a negative loom_error_code.
 * The details of the most recent failure on the calling thread are kept in a
 * thread-local record read with loom_error_last(); another thread failing at
 * the same time never overwrites it. Read it only right after a call returned
 * a negative code: on success it is left as it was and may be stale.
 * Work that runs on worker threads (the runner) copies the record into its
 * per-table result, so nothing is lost across threads.
 */
#ifndef LOOM_ERRORS_H
#define LOOM_ERRORS_H

#include "common.h"

LOOM_BEGIN_DECL

typedef enum loom_error_code {
	LOOM_OK = 0,
	LOOM_ERROR = -1,        /* anything not listed below */
	LOOM_ENOTFOUND = -2,    /* a requested file, table, column or key is missing */
	LOOM_EEXISTS = -3,      /* put-if-absent lost: the object already exists */
	LOOM_ECONFLICT = -4,    /* a concurrent commit conflicts after rebasing */
	LOOM_EUNSUPPORTED = -5, /* protocol, feature or format loom will not handle */
	LOOM_ECORRUPT = -6,     /* damaged log, checkpoint, Parquet or DV data */
	LOOM_ECANCELLED = -7,   /* the caller cancelled the work */
	LOOM_EINVAL = -8,       /* bad argument or configuration */
	LOOM_ENOMEM = -9,       /* allocation failed or a memory limit was hit */
	LOOM_EIO = -10,         /* the operating system or object store failed */
	LOOM_EUSER = -11,       /* reserved for callbacks that want to stop work */
	LOOM_EPERM = -12,       /* access denied: missing permission, bad or
	                         * expired credentials (HTTP 401/403, EACCES) */
	LOOM_ETRANSIENT = -13   /* a failure that may pass if the same call is
	                         * made again later: a timeout, a reset
	                         * connection, a truncated body, HTTP 5xx,
	                         * throttling. Returned once the store's own
	                         * bounded retries are spent */
} loom_error_code;

/* Which part of loom raised the error. */
typedef enum loom_error_class {
	LOOM_ERRCLASS_NONE = 0,
	LOOM_ERRCLASS_OS,
	LOOM_ERRCLASS_STORE,
	LOOM_ERRCLASS_CODEC,
	LOOM_ERRCLASS_PARQUET,
	LOOM_ERRCLASS_DELTA,
	LOOM_ERRCLASS_OPS,
	LOOM_ERRCLASS_PLAN,
	LOOM_ERRCLASS_CONFIG,
	LOOM_ERRCLASS_INVALID,
	LOOM_ERRCLASS_USER        /* raised by a caller's callback (loom_error_set) */
} loom_error_class;

#define LOOM_ERROR_MESSAGE_MAX 1024

/* The detail of one failure. `message` names what failed and where
 * (path, byte offset, log line, config line:column). */
typedef struct loom_error {
	loom_error_code code;
	loom_error_class klass;
	char message[LOOM_ERROR_MESSAGE_MAX];
} loom_error;

/** The last error raised on this thread, or NULL if none was. Borrowed:
 *  valid until the next loom call on this thread. */
LOOM_EXTERN(const loom_error *) loom_error_last(void);

/** Forget the last error of this thread. */
LOOM_EXTERN(void) loom_error_clear(void);

/** Short constant name of a code ("ENOTFOUND", ...). Static storage. */
LOOM_EXTERN(const char *) loom_error_code_name(loom_error_code code);

/** Short name of a class: "none", "os", "store", "codec", "parquet",
 *  "delta", "ops", "plan", "config", "invalid", "user"; "unknown" for
 *  other values. Static storage. */
LOOM_EXTERN(const char *) loom_error_class_name(loom_error_class klass);

/** Record an error on this thread the way the library does, so a callback
 *  (a custom operation, declaration, step builder, maintainer or locator)
 *  that fails can hand its message to the runner, which copies it into the
 *  table's result. `message` is copied (truncated to
 *  LOOM_ERROR_MESSAGE_MAX - 1 bytes); NULL means "". Returns `code`. */
LOOM_EXTERN(int) loom_error_set(loom_error_code code, loom_error_class klass,
                                const char *message);

/** 1 when `code` is worth retrying as is (LOOM_ETRANSIENT), else 0. A
 *  retry policy above the store (a whole operation, a scheduler) tests
 *  this; LOOM_ENOTFOUND, LOOM_EEXISTS, LOOM_EPERM, LOOM_EINVAL and the
 *  others will fail the same way again. */
LOOM_EXTERN(int) loom_error_is_transient(loom_error_code code);

LOOM_END_DECL

#endif
