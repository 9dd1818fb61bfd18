/* store/gcs/gcs_int.h - the parts of the Google Cloud Storage backend (the
 * JSON API over the shared HTTP layer):
 *
 *   gcs.c         the store: opening (gs:// and gcs:// URIs, the endpoint),
 *                 one request (gcs_send), reads (alt=media with Range),
 *                 object metadata, key_of
 *   gcs_auth.c    credentials: a service account's JWT (RS256) exchanged
 *                 at its token_uri, an authorized user's refresh token, the
 *                 metadata server, or none (an emulator); tokens cached
 *                 and fetched again before they expire
 *   gcs_list.c    listing with prefix, delimiter, pageToken, startOffset
 *   gcs_delete.c  deletes: the JSON batch endpoint (100 per request), one
 *                 by one and several at once where it answers 501
 *   gcs_writer.c  uploads: one media upload (create-only with
 *                 ifGenerationMatch=0), resumable uploads in chunks
 *
 * Every request goes through gcs_send (gcs.c): it builds the URL from the
 * API base, adds the bearer token, sends with the shared HTTP client
 * (retries on 429/5xx, counters, masked messages) and names the bucket and
 * object in errors. */
#ifndef LOOM_STORE_GCS_INT_H
#define LOOM_STORE_GCS_INT_H

#include <stdatomic.h>
#include <stdint.h>

#include "store/http/http.h"
#include "store/http/http_store.h"
#include "store/http/part_pool.h"
#include "store/backend.h"
#include "util/buf.h"
#include "util/secret.h"

#define GCS_DEFAULT_BASE "https://storage.googleapis.com"
/* Resumable upload chunks must be multiples of this (but the last). */
#define GCS_CHUNK_QUANTUM ((uint64_t)256 << 10)

/* ---- credentials (gcs_auth.c) ---------------------------------------------- */

typedef struct gcs_auth gcs_auth;

/* The first of `names` (a NULL-terminated list of aliases) set in the
 * options, case-insensitively, else the first "google_..." one set in the
 * environment (upper case); *which (may be NULL) gets the alias found. */
const char *gcs_opt(const store_config *c, const char *const *names, const char **which);

/* Pick the credential (delta-rs/object_store's order: a service account
 * from the options or GOOGLE_SERVICE_ACCOUNT[_PATH|_KEY], the
 * GOOGLE_APPLICATION_CREDENTIALS file, the well-known ADC file, the
 * metadata server). `no_auth`: an emulator, requests go unsigned unless a
 * credential is given explicitly (options or environment). Secret values
 * are added to `secrets`. LOOM_EINVAL naming the option for a bad key
 * file; LOOM_EPERM when nothing gives a credential. */
int gcs_auth_new(gcs_auth **out, const store_config *cfg, int no_auth, loom_secrets *secrets);
/* The client token requests go through (borrowed: must outlive the auth). */
void gcs_auth_set_http(gcs_auth *a, http_client *http);
void gcs_auth_free(gcs_auth *a);
const char *gcs_auth_kind_name(const gcs_auth *a);
/* "Bearer <token>" into `out` (cleared first), fetching or refreshing the
 * token first; an empty buffer for unsigned requests. */
int gcs_auth_header(gcs_auth *a, loom_buf *out);

/* ---- the store (gcs.c) ------------------------------------------------------ */

typedef struct gcs_store {
	http_store h;             /* first: the store, clients, secrets, counters,
	                           * retry policy for chunks and batches */
	char *bucket;
	char *prefix;             /* "" or "t/" ... "/": the root inside the bucket */
	char *root_uri;           /* for messages: gs://bucket/path */
	char *base_url;           /* "https://storage.googleapis.com" or an emulator's */
	gcs_auth *auth;
	uint64_t chunk_size;      /* resumable upload chunk (multiple of 256 KiB) */
	uint64_t list_page;       /* maxResults of a listing page (1,000) */
	part_pool chunks;         /* writer: chunk buffers, reused */
	atomic_int batch_unsupported; /* the batch endpoint answered 501: one by one */
} gcs_store;

/* One request: an http_call (store/http/http.h) with its API path (or a
 * whole url); its key's object is prefix + key, appended to the path
 * encoded as one segment. Built with gcs_call_init (then http_call_param,
 * http_call_header, http_call_dispose), sent with gcs_send. */
typedef http_call gcs_call;

/* gcs_call.api: the path before the bucket; the bucket and "/o" follow,
 * except for the batch endpoint. */
#define GCS_API_OBJECTS "/storage/v1/b/"
#define GCS_API_UPLOAD "/upload/storage/v1/b/"
#define GCS_API_BATCH "/batch/storage/v1"

void gcs_call_init(gcs_call *c, const char *method, const char *api, const char *key,
                   loom_store_request kind);

/* Authorize and send. 0 with `resp` filled whatever the status, or the
 * transport error (see http_send). */
int gcs_send(gcs_store *s, gcs_call *c, http_response *resp);
/* The error for an unwanted status: http_status_error naming the bucket
 * and object. */
int gcs_status_error(gcs_store *s, gcs_call *c, const http_response *resp, int code);

/* The object name of `key`: prefix + key, into `out` (cleared first). */
int gcs_object_name(const gcs_store *s, const char *key, loom_buf *out);
/* The object's metadata: size, mtime and generation (may be NULL);
 * LOOM_ENOTFOUND when it is missing. `custom` (may be NULL) gets the value
 * of custom metadata field "loom-upload" ("" when none). */
int gcs_get_metadata(gcs_store *s, const char *key, loom_store_entry *out, int64_t *generation,
                     char *custom, size_t custom_cap);
/* Read the object's first len + 1 bytes and compare with data[len]: is
 * the object there the one we sent (our retried upload's first attempt
 * landed)? 1 yes, 0 no (other bytes, or no object), or the read's error:
 * a create-only upload must not claim "exists" when it cannot tell. */
int gcs_holds_bytes(gcs_store *s, const char *key, const void *data, size_t len);

/* ---- parts -------------------------------------------------------------------- */

/* loom_store.list (gcs_list.c). */
int gcs_list(loom_store *st, const char *prefix, const char *start_after, unsigned int flags,
             loom_store_list_cb cb, void *payload);
/* loom_store.remove and remove_many (gcs_delete.c). */
int gcs_remove(loom_store *st, const char *key);
int gcs_remove_many(loom_store *st, const char *const *keys, size_t n, int *results);
/* loom_store.put and writer_open (gcs_writer.c). */
int gcs_put(loom_store *st, const char *key, const void *data, size_t len, unsigned int flags);
int gcs_writer_open(loom_store *st, const char *key, unsigned int flags, loom_store_writer **out);

#endif
