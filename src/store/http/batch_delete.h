/* store/http/batch_delete.h - loom_store.remove_many for services that
 * delete many keys in one request (Azure's Blob Batch, the GCS JSON batch
 * endpoint): one driver, the backend supplies the requests.
 *
 * The driver checks every key, cuts the valid ones into batches of the
 * service's size, sends each, sends the keys whose sub-response was
 * transient again (the store's retry policy, counted as retries), and
 * falls back to plain deletes - several in flight - once the service says
 * it has no batches (remembered for the store's life). results[i] is key
 * i's code; the call returns the failure of the lowest failing index with
 * its error set, else 0.
 *
 * It also holds what both services' multipart/mixed batches share: the
 * boundary of a request and the parts of an answer. */
#ifndef LOOM_STORE_HTTP_BATCH_DELETE_H
#define LOOM_STORE_HTTP_BATCH_DELETE_H

#include <stdatomic.h>
#include <stddef.h>

#include "store/http/http.h"
#include "store/http/http_store.h"
#include "store/http/retry.h"
#include "store/backend.h"

/* The most keys any service takes in one batch (Azure: 256). */
#define BATCH_DELETE_MAX 256

/* A key's sub-response in a batch answer. */
typedef struct batch_sub {
	int code;           /* 0: deleted or already gone; LOOM_ETRANSIENT: worth
	                     * another try; else the failure (not raised) */
	long status;        /* its HTTP status; 0 when no sub-response came */
	char service[64];   /* the service's error code, "" when none */
} batch_sub;

/* Fill the sub-responses subs[0..n) (they come as LOOM_EIO, status 0: no
 * sub-response) from part `index`, [p, end), of a batch answer. */
typedef void (*batch_part_fn)(batch_sub *subs, size_t n, size_t index, const char *p,
                              const char *end);

typedef struct batch_delete_ops {
	size_t max_keys;        /* per request, <= BATCH_DELETE_MAX */
	int lone_key_plain;     /* a batch of one key goes as a plain delete (else
	                         * only a call with one key does) */
	const char *name;       /* of a batch request, in messages: "Blob Batch" */
	const char *boundary_prefix;
	long ok_status;         /* of an answer whose parts are the sub-responses */
	/* One plain delete: 0 (a missing key too) or the code, error set. */
	int (*remove)(loom_store *st, const char *key);
	/* The batch request of keys[0..n): `c` (a POST counted as a delete)
	 * gets its API path and parameters, `body` the sub-requests, each
	 * after a "--<boundary>" line (the closing line is the driver's). */
	int (*build)(loom_store *st, const char *const *keys, size_t n, const char *boundary,
	             http_call *c, loom_buf *body);
	/* Send a call the backend's way, and its error for an unwanted status. */
	int (*send)(loom_store *st, http_call *c, http_response *r);
	int (*status_error)(loom_store *st, http_call *c, const http_response *r, int code);
	/* Does an answer other than ok_status mean the service has no batches? */
	int (*declined)(const http_response *r);
	batch_part_fn part;
	/* Raise the error of `key`'s failed sub-response. */
	void (*sub_error)(loom_store *st, const char *key, const batch_sub *sub);
} batch_delete_ops;

/* remove_many of the store `h` (its retry policy and counters) with its
 * ops; `unsupported` remembers that the service refused batches. */
int batch_delete_many(const batch_delete_ops *ops, http_store *h, atomic_int *unsupported,
                      const char *const *keys, size_t n, int *results);

/* A sub-response's code by its status: 0 when the backend says `done`
 * (deleted, or gone already), else 404 LOOM_ENOTFOUND, 401/403 LOOM_EPERM,
 * transient statuses LOOM_ETRANSIENT, the rest LOOM_EIO. */
int batch_sub_code(long status, int done);

#endif
