/* store/http/http_store.h - what every HTTP object store (S3, Azure, GCS)
 * is made of besides its own names and credentials: the loom_store it
 * is, its HTTP clients, the secrets its messages mask, its request
 * counters and its retry policy. A backend's store struct starts with one
 * (so its loom_store * is also its http_store *) and leaves setting up,
 * disposing and the stats method to it. */
#ifndef LOOM_STORE_HTTP_STORE_H
#define LOOM_STORE_HTTP_STORE_H

#include "store/http/http.h"
#include "store/http/retry.h"
#include "store/backend.h"
#include "util/secret.h"

typedef struct http_store {
	loom_store base;          /* first */
	http_client *http;        /* the store's requests, counted in counters */
	http_client *token_http;  /* its credential's token requests (NULL: none) */
	loom_secrets secrets;     /* masked in every message */
	store_counters counters;
	retry_policy retry;       /* for what is retried by hand (batches, chunks) */
} http_store;

/* Zeroed counters (the rest is zero from the backend's calloc). */
void http_store_init(http_store *h);

/* What a store's messages call its parts ("container", "blob") and the
 * service its tokens come from ("tenant"). */
typedef struct http_client_labels {
	const char *target;
	const char *key;
	const char *token_target;   /* NULL: no token client */
} http_client_labels;

/* The store's clients from its options - http for its requests
 * (counted), token_http for its credential's token requests, both masking
 * the secrets gathered so far (the credential's included: connect after
 * it) - and its retry policy (the clients' own). */
int http_store_connect(http_store *h, const store_config *cfg, const http_client_labels *labels);
/* Free the clients and secrets (NULL ones too). */
void http_store_dispose(http_store *h);
/* A failed open: mask the error's secrets, then free the store with its
 * own free method (`free_store`). Returns rc. */
int http_store_open_failed(http_store *h, void (*free_store)(loom_store *), int rc);

/* The store's methods: the backend's own (`methods`: reads, writes,
 * listing, deletes, key_of, free), then what every HTTP store has alike:
 * version, `name`, caps (atomic create-only puts, ranged reads, reads
 * counted as requests), no directories to remove, the stats, and `root`
 * (borrowed). */
void http_store_methods(http_store *h, const loom_store *methods, const char *name,
                        const char *root);

#endif
