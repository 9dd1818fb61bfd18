/* store/azure/azure_int.h - the parts of the Azure Blob Storage backend:
 *
 *   azure_uri.c     the URI spellings of a table root (az://, abfss://,
 *                   https:// and an endpoint's path-style URLs) and the
 *                   store's key_of over all of them
 *   azure_auth.c    credentials: Shared Key signing, SAS tokens, bearer
 *                   tokens and OAuth2 client credentials (a service
 *                   principal's token, fetched and refreshed)
 *   azure.c         the store: opening, reads, puts
 *   azure_list.c    List Blobs
 *   azure_batch.c   Blob Batch deletes (256 blobs per request)
 *   azure_writer.c  large objects as blocks (Put Block, Put Block List)
 *
 * Every request goes through azure_send (azure.c): it builds the URL,
 * signs, sends with the shared HTTP client (retries, counters, masked
 * messages) and names the container and blob in errors. */
#ifndef LOOM_STORE_AZURE_INT_H
#define LOOM_STORE_AZURE_INT_H

#include <pthread.h>
#include <stdint.h>

#include "store/http/http.h"
#include "store/http/http_store.h"
#include "store/http/part_pool.h"
#include "store/backend.h"
#include "util/buf.h"
#include "util/secret.h"

/* The REST API version loom speaks (List Blobs' startFrom needs 2023+). */
#define AZURE_API_VERSION "2023-11-03"
/* Azurite's well-known account and key (public, documented by Microsoft). */
#define AZURE_EMULATOR_ACCOUNT "devstoreaccount1"
#define AZURE_EMULATOR_KEY \
	"Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=="

/* ---- URIs (azure_uri.c) --------------------------------------------------- */

typedef enum azure_uri_form {
	AZURE_URI_CONTAINER,  /* az://container/path (also azure://, adl://,
	                       * abfs[s]://container/path): no account named */
	AZURE_URI_ACCOUNT,    /* abfs[s]://container@account.dfs.core.windows.net/path,
	                       * https://account.blob.core.windows.net/container/path */
	AZURE_URI_ENDPOINT    /* http(s)://host:port/account/container/path: a
	                       * configured endpoint or the emulator, path style */
} azure_uri_form;

typedef struct azure_uri {
	azure_uri_form form;
	char *account;       /* NULL for AZURE_URI_CONTAINER */
	char *dns_suffix;    /* AZURE_URI_ACCOUNT: what follows ".blob." or ".dfs."
	                      * in the host ("core.windows.net"), lower case */
	char *account_url;   /* AZURE_URI_ENDPOINT: "scheme://authority/account" */
	char *container;
	char *path;          /* below the container: "" or "a/b", no '/' at
	                      * either end */
	char *query;         /* https:// forms: the query (a SAS token) without
	                      * '?'; NULL when there is none */
} azure_uri;

/* What an http(s) URL needs to be read as an endpoint's path-style URL. */
typedef struct azure_uri_hints {
	const char *endpoint;  /* the configured account URL, or NULL */
	int emulator;          /* any http(s)://host[:port]/account/container/... */
	int decode;            /* percent-decode the path (a URI as typed; log
	                        * paths come decoded) */
} azure_uri_hints;

/* Returned by azure_uri_parse for an http(s) URL that is not Azure's. */
#define AZURE_URI_NOT_AZURE 1

/* Parse `uri`. 0, AZURE_URI_NOT_AZURE (no error set), or LOOM_EINVAL
 * naming what is wrong (the URI shown without its query). */
int azure_uri_parse(const char *uri, const azure_uri_hints *hints, azure_uri *out);
void azure_uri_dispose(azure_uri *u);

/* ---- credentials (azure_auth.c) ------------------------------------------ */

typedef enum azure_auth_kind {
	AZURE_AUTH_SHARED_KEY,
	AZURE_AUTH_SAS,
	AZURE_AUTH_BEARER,          /* a fixed token (AZURE_STORAGE_TOKEN) */
	AZURE_AUTH_CLIENT_SECRET,   /* a service principal's OAuth2 token */
	AZURE_AUTH_ANONYMOUS        /* AZURE_SKIP_SIGNATURE: public containers */
} azure_auth_kind;

typedef struct azure_auth azure_auth;

/* The first of `names` (a NULL-terminated list of aliases, delta-rs's
 * spellings) set in the options, case-insensitively, else the first
 * "azure_..." one set in the environment (upper case); *which (may be
 * NULL) gets the alias found. NULL when none is set. */
const char *azure_opt(const store_config *c, const char *const *names, const char **which);

/* Pick the credential from the options (delta-rs's order: bearer token,
 * account key, client secret, SAS; the emulator's key by default).
 * `url_sas` is a SAS token from the table URI's query (it wins), or NULL.
 * Secret values are added to `secrets`. LOOM_EINVAL naming the option for
 * a bad value or no credential at all. */
int azure_auth_new(azure_auth **out, const store_config *cfg, const char *account,
                   int emulator, const char *url_sas, loom_secrets *secrets);
/* The client token requests go through (borrowed: must outlive the auth). */
void azure_auth_set_http(azure_auth *a, http_client *http);
void azure_auth_free(azure_auth *a);
azure_auth_kind azure_auth_kind_of(const azure_auth *a);
const char *azure_auth_kind_name(const azure_auth *a);
/* The SAS query (no '?') to append to every URL, or NULL. */
const char *azure_auth_sas(const azure_auth *a);

/* A request as the signer sees it. */
typedef struct azure_sign_input {
	const char *method;
	const char *url_path;       /* the encoded path as sent: "/c/b" or
	                             * "/devstoreaccount1/c/b" */
	const loom_kv *params;      /* query parameters, values not encoded */
	size_t n_params;
	const loom_kv *headers;     /* every header sent, x-ms-date included */
	size_t n_headers;
	uint64_t content_length;    /* of the body (0: signed as empty) */
} azure_sign_input;

/* The Authorization header value for the request into `out` (cleared
 * first); nothing (an empty buffer) for SAS and anonymous requests. A
 * client-secret credential fetches or refreshes its token here. */
int azure_auth_authorization(azure_auth *a, const azure_sign_input *in, loom_buf *out);

/* ---- the store (azure.c) ------------------------------------------------- */

typedef struct azure_store {
	http_store h;           /* first: the store, clients, secrets, counters,
	                         * retry policy for sub-requests retried by hand */
	char *account;
	char *account_url;      /* requests go to <account_url>/<container>/<blob> */
	char *service_url;      /* its "scheme://authority" */
	char *url_path_base;    /* and its path ("" or "/devstoreaccount1") */
	char *container;
	char *prefix;           /* "" or "t/" ... "/": the root inside the container */
	char *root_uri;         /* for messages: the URI as given, no query */
	azure_uri_hints hints;  /* how key_of reads locations */
	char *endpoint;         /* hints.endpoint's storage */
	azure_auth *auth;
	uint64_t block_size;      /* writer: Put Block size */
	unsigned int upload_parallel; /* writer: blocks in flight */
	part_pool blocks;         /* writer: block buffers, reused */
	atomic_int batch_unsupported; /* Blob Batch refused once: delete one by one */
} azure_store;

/* One request: an http_call (store/http/http.h) whose key's blob is
 * prefix + key; built with http_call_init, sent with azure_send. */
typedef http_call azure_call;

/* Sign and send. 0 with `resp` filled whatever the status, or the
 * transport error (see http_send). */
int azure_send(azure_store *s, azure_call *c, http_response *resp);
/* The error for an unwanted status: http_status_error naming the
 * container and key. */
int azure_status_error(azure_store *s, azure_call *c, const http_response *resp, int code);

/* The blob name of `key`: prefix + key, into `out` (cleared first). */
int azure_blob_name(const azure_store *s, const char *key, loom_buf *out);

/* Upload one whole object with Put Blob; LOOM_PUT_IF_ABSENT makes it
 * create-only (409/412: LOOM_EEXISTS, unless a retried attempt of ours
 * turns out to have written it). */
int azure_put_blob(azure_store *s, const char *key, const void *data, size_t len,
                   unsigned int flags);

/* loom_store.list (azure_list.c). */
int azure_list(loom_store *st, const char *prefix, const char *start_after, unsigned int flags,
               loom_store_list_cb cb, void *payload);

/* loom_store.key_of (azure_uri.c): any spelling of the root names the
 * same keys. */
int azure_key_of(loom_store *st, const char *location, const char **key);

/* ---- parts (azure_batch.c, azure_writer.c) ------------------------------- */

/* loom_store.remove_many: Blob Batch requests of up to 256 deletes, one by
 * one when the service refuses batches. */
int azure_remove_many(loom_store *st, const char *const *keys, size_t n, int *results);
/* One Delete Blob; a missing blob is success, a missing container not. */
int azure_remove(loom_store *st, const char *key);

/* loom_store.writer_open. */
int azure_writer_open(loom_store *st, const char *key, unsigned int flags, loom_store_writer **out);

#endif
