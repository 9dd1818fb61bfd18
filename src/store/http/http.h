/* store/http/http.h - the HTTP client object-store backends share (libcurl).
 *
 * One client per store, shared by every thread that uses the store: it
 * keeps a pool of curl handles, each with its own live connections, so a
 * request borrows a warm handle (connection reuse; as many connections as
 * requests in flight) and returns it. HTTPS verifies the server against the
 * system CA store. Every request has a connect timeout and a stall timeout
 * (no byte moved for that long), and is retried by the client's retry
 * policy when it is idempotent and fails transiently: a timeout, a refused
 * or reset connection, a truncated body, HTTP 408/429/5xx (the service's
 * SlowDown and ServerBusy). A request that was never sent (the connection
 * failed) is retried even when it is not idempotent.
 *
 *   http_request rq = HTTP_REQUEST_INIT;
 *   http_response rs = HTTP_RESPONSE_INIT;
 *   rq.method = "GET"; rq.url = url; rq.headers = h; rq.n_headers = n;
 *   rq.kind = LOOM_STORE_REQ_GET; rq.target = bucket; rq.key = key;
 *   rc = http_send(client, &rq, &rs);
 *   if (rc == 0 && rs.status != 200 && rs.status != 206)
 *       rc = http_status_error(client, &rq, &rs, 0);
 *   http_response_dispose(&rs);
 *
 * Messages name the method, bucket/container, key/blob and status, with the
 * service's error code and message from the body - never the URL's query
 * (signatures, SAS tokens), never a header, and masked with the client's
 * secrets. */
#ifndef LOOM_STORE_HTTP_H
#define LOOM_STORE_HTTP_H

#include <stddef.h>
#include <stdint.h>

#include "store/http/retry.h"
#include "store/backend.h"
#include "util/buf.h"
#include "util/secret.h"

typedef struct http_client http_client;

typedef struct http_client_opts {
	int64_t connect_timeout_ms;  /* default 10 s */
	int64_t stall_timeout_ms;    /* give up when no byte moves this long; default 30 s */
	retry_policy retry;
	const char *target_label;    /* "bucket", "container": in messages */
	const char *key_label;       /* "key" (NULL), "blob": in messages */
	const char *ca_bundle;       /* PEM file of the CAs to trust instead of
	                              * the system's (NULL); copied */
	const loom_secrets *secrets; /* masked in every message (copied) */
	store_counters *counters;    /* requests counted here (borrowed: must
	                              * outlive the client); NULL: totals only */
} http_client_opts;

/* Defaults, then the store options (keys case-insensitive, else env):
 *   connect_timeout  LOOM_CONNECT_TIMEOUT  duration, default 10s
 *   timeout          LOOM_TIMEOUT          stall timeout, default 30s
 *   ca_bundle        LOOM_CA_BUNDLE        PEM file of trusted CAs (a
 *                                          private CA; default: the system's)
 * and the retry options of store/http/retry.h. LOOM_EINVAL naming a bad one. */
int http_client_opts_from_config(http_client_opts *o, const store_config *c);
void http_client_opts_default(http_client_opts *o);
/* For a metadata service that is not there off its cloud: give up fast
 * (a 1 s connect timeout, `stall_timeout_ms`, one retry). */
void http_client_opts_fail_fast(http_client_opts *o, int64_t stall_timeout_ms);

int http_client_new(http_client **out, const http_client_opts *o);
/* Close every pooled connection. No request may be in flight. */
void http_client_free(http_client *c);

/* The request body, streamed: copy up to `len` bytes from position `offset`
 * into `dst`; return the count (0 at the end) or a negative LOOM_E* code.
 * Positional, so a retry simply starts again from 0. */
typedef int64_t (*http_read_fn)(void *ctx, uint64_t offset, void *dst, size_t len);
/* The response body, streamed into the caller's memory: `len` bytes that
 * belong at `offset` of the body. Return 0, or a negative code to abort
 * (not retried). A retry delivers the body again from offset 0. */
typedef int (*http_write_fn)(void *ctx, uint64_t offset, const void *data, size_t len);

typedef struct http_request {
	const char *method;          /* "GET", "HEAD", "PUT", "POST", "DELETE" */
	const char *url;             /* complete and encoded */
	const loom_kv *headers;      /* sent as given (borrowed) */
	size_t n_headers;
	const void *body;            /* a whole body (may be NULL with 0) ... */
	size_t body_len;
	http_read_fn read_body;      /* ... or a streamed one of body_len bytes */
	void *read_ctx;
	http_write_fn write_body;    /* NULL: the body is kept in the response */
	void *write_ctx;
	size_t max_body;             /* kept-body limit; 0: 64 MiB */
	int idempotent;              /* may be sent again after a failure */
	loom_store_request kind;     /* what it counts as */
	const char *target;          /* bucket / container name, for messages */
	const char *key;             /* object key or prefix, for messages; may be NULL */
} http_request;

#define HTTP_REQUEST_INIT { "GET", NULL, NULL, 0, NULL, 0, NULL, NULL, NULL, NULL, 0, 1, \
	                        LOOM_STORE_REQ_GET, NULL, NULL }

typedef struct http_response {
	long status;                 /* of the final attempt; 0: none arrived */
	loom_buf headers;            /* its header lines, "Name: value\r\n" each */
	loom_buf body;               /* the body when the request had no
	                              * write_body, and error bodies (status >= 300,
	                              * first 64 KiB) always */
	uint64_t body_bytes;         /* body bytes of the final attempt */
	unsigned int attempts;       /* requests sent */
} http_response;

#define HTTP_RESPONSE_INIT { 0, LOOM_BUF_INIT, LOOM_BUF_INIT, 0, 0 }

/* Send with the client's retries. 0 once a response arrived, whatever its
 * status (a transient status is retried first; the last one is returned);
 * otherwise LOOM_ETRANSIENT (retries spent on timeouts, resets, truncation)
 * or LOOM_EIO / LOOM_EPERM (TLS verification) with a message, or the code a
 * callback returned. `resp` must be HTTP_RESPONSE_INIT or disposed. */
int http_send(http_client *c, const http_request *req, http_response *resp);

/* Raise the error for a response whose status the caller does not accept:
 * `code` (0: by status - 404/410 ENOTFOUND, 401/403 EPERM, 409/412 EEXISTS,
 * 400/405/411/413/416 EINVAL, 408/429/5xx ETRANSIENT, else EIO), message
 * "<METHOD> <label> <target> key <key>: HTTP <status> (<service code>:
 * <service message>)[, after N attempts]". Returns the code. */
int http_status_error(http_client *c, const http_request *req, const http_response *resp,
                      int code);

/* The value of a response header (case-insensitive name), copied into
 * out[cap] with surrounding blanks trimmed: 1 found, 0 absent. */
int http_header(const http_response *r, const char *name, char *out, size_t cap);

/* A response's Content-Range, "bytes FIRST-LAST/SIZE" or "bytes * /SIZE"
 * (no space): 1 with *first (0 for '*') and *size, 0 when it has none or
 * no size. */
int http_content_range(const http_response *r, uint64_t *first, uint64_t *size);

/* The service's error code and message of an error response: the XML
 * Error/Code and Error/Message, an x-ms-error-code header, or a JSON
 * {"error": ..., "error_description"/"message": ...}. "" when none. */
void http_service_error(const http_response *r, char *code, size_t code_cap, char *msg,
                        size_t msg_cap);

void http_response_dispose(http_response *r);

/* ---- a backend's request before it is sent (store/http/call.c) -------------- */

/* What Azure and GCS build a request from: method, key, query parameters
 * and headers (names string literals; values copied), and the
 * http_request it becomes (body, callbacks, idempotent, kind). Build with
 * http_call_init, add, send with the backend's send (which makes the URL
 * and signs), dispose. */
#define HTTP_CALL_MAX_PARAMS 10
#define HTTP_CALL_MAX_HEADERS 14
typedef struct http_call {
	const char *method;
	const char *api;          /* GCS: the API path before the bucket (NULL
	                           * with url set); Azure: unused */
	const char *key;          /* the key (NULL: a bucket/container request) */
	const char *url;          /* GCS: a whole URL instead (a resumable session) */
	loom_kv params[HTTP_CALL_MAX_PARAMS];   /* query, values not encoded */
	size_t n_params;
	loom_kv headers[HTTP_CALL_MAX_HEADERS];
	size_t n_headers;
	http_request req;
} http_call;

void http_call_init(http_call *c, const char *method, const char *key, loom_store_request kind);
/* Append a query parameter or header; LOOM_EINVAL past the maximum. */
int http_call_param(http_call *c, const char *name, const char *value);
int http_call_header(http_call *c, const char *name, const char *value);
void http_call_dispose(http_call *c);
/* Send `c` with `http` to `url` (encoded, the query included) with
 * headers[0..n) - room for one more: an Authorization header when `auth`
 * is not empty - naming `target` and, unless the call names its own,
 * `key` in messages. The borrowed pointers are cleared after. What
 * http_send returns. */
int http_call_send(http_client *http, http_call *c, const char *url, loom_kv *headers, size_t n,
                   const char *auth, const char *target, const char *key, http_response *resp);

#endif
