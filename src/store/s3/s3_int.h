/* store/s3/s3_int.h - what the files of the S3 backend share (s3.c: opening,
 * requests, reads and puts; s3_list.c: listings and batch deletes;
 * s3_writer.c: multipart uploads; s3_uploads.c: listing and aborting the
 * incomplete uploads killed writers leave). */
#ifndef LOOM_STORE_S3_INT_H
#define LOOM_STORE_S3_INT_H

#include <pthread.h>

#include "store/http/http.h"
#include "store/http/http_store.h"
#include "store/http/part_pool.h"
#include "store/s3/s3_creds.h"
#include "store/backend.h"
#include "util/threadpool.h"

typedef struct s3_store {
	http_store h;           /* first: the store, client, secrets, counters,
	                         * retry policy (no token client) */
	char *bucket;
	char *prefix;           /* the root's key prefix: "" or "t/sub/" */
	char *root_uri;         /* "s3://bucket/t/sub", for messages */
	char *url_base;         /* "https://host[:port][/path]" up to the object path */
	char *host;             /* the Host header (signed) */
	int path_style;         /* the bucket is the first path segment */
	char *region;
	s3_creds creds;
	int unsigned_payload;   /* AWS_UNSIGNED_PAYLOAD: no SHA-256 of bodies */
	uint64_t part_size;     /* multipart part size */
	unsigned int part_concurrency; /* parts in flight per writer */
	pthread_mutex_t pool_lock;
	loom_threadpool *uploads; /* part uploads, started on first use */
	part_pool parts;        /* multipart part buffers of part_size */
} s3_store;

/* One S3 request. `key` is the full object key in the bucket (NULL: a
 * bucket-level request); query names and values unencoded. */
typedef struct s3_call {
	const char *method;
	const char *key;
	const loom_kv *query;
	size_t n_query;
	const loom_kv *headers;    /* extra headers, all signed */
	size_t n_headers;
	const void *body;
	size_t body_len;
	http_write_fn write_body;  /* NULL: keep the body in the response */
	void *write_ctx;
	int idempotent;
	loom_store_request kind;
	const char *shown_key;     /* bucket-level requests: the key their
	                            * messages name (a listing's prefix, a
	                            * batch's first key) */
} s3_call;

/* Sign and send (with the client's retries). 0 once a response arrived,
 * whatever its status. */
int s3_send(s3_store *s, const s3_call *call, http_response *resp);
/* The error for an unwanted response, naming bucket, key and status. */
int s3_status_error(s3_store *s, const s3_call *call, const http_response *resp, int code);

/* "prefix" + key: the object key in the bucket (appended to `out`). */
int s3_object_key(const s3_store *s, const char *key, loom_buf *out);

/* A single PUT of a whole object (create-only with LOOM_PUT_IF_ABSENT:
 * 412 and 409 are LOOM_EEXISTS unless the object holds our own bytes - an
 * earlier attempt, ours or one curl repeated on a dead reused connection,
 * published it; 409 ConditionalRequestConflict and transient failures are
 * retried). */
int s3_put_object(s3_store *s, const char *key, const void *data, size_t len,
                  unsigned int flags);

/* store methods in other files */
int s3_list(loom_store *st, const char *prefix, const char *start_after, unsigned int flags,
            loom_store_list_cb cb, void *payload);
int s3_remove_many(loom_store *st, const char *const *keys, size_t n, int *results);
int s3_writer_open(loom_store *st, const char *key, unsigned int flags, loom_store_writer **out);
int s3_list_uploads(loom_store *st, const char *prefix, loom_store_upload_cb cb, void *payload);
int s3_abort_upload_key(loom_store *st, const char *key, const char *upload_id);

/* AbortMultipartUpload of the object key `obj` (s3_uploads.c); an upload
 * already gone is not an error. */
int s3_abort_upload(s3_store *s, const char *obj, const char *upload_id);

/* The part-upload pool (created on first use). NULL with an error set. */
loom_threadpool *s3_upload_pool(s3_store *s);

#endif
