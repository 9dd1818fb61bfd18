/* store/http/token.h - an OAuth2 bearer token, cached: fetched on first
 * use and again before it expires (when less than min(5 minutes, half its
 * lifetime) is left), one fetch at a time; a failed refresh keeps the old
 * token while it is still valid. The token is wiped from memory when
 * replaced or disposed. Azure's service principals and every GCS
 * credential use it; each supplies how to fetch a token. */
#ifndef LOOM_STORE_HTTP_TOKEN_H
#define LOOM_STORE_HTTP_TOKEN_H

#include <pthread.h>
#include <stdint.h>

#include "store/http/http.h"
#include "util/buf.h"

/* Fetch a fresh token: 0 with *token (loom_malloc'd) and its lifetime in
 * ms, or the failure with its error set. */
typedef int (*token_fetch_fn)(void *ctx, char **token, int64_t *lifetime_ms);

typedef struct token_cache {
	pthread_mutex_t lock;
	char *token;                 /* NULL before the first fetch */
	int64_t expires_ms, refresh_ms;
} token_cache;

int token_cache_init(token_cache *t);
void token_cache_dispose(token_cache *t);

/* "Bearer <token>" into `out` (appended), fetching with `fetch` first
 * when there is no token yet or it is due for refresh. */
int token_cache_bearer(token_cache *t, token_fetch_fn fetch, void *ctx, loom_buf *out);

/* A token request: POST `form` (application/x-www-form-urlencoded) to
 * `url`, idempotent, counted as LOOM_STORE_REQ_OTHER, an answer of at
 * most 1 MiB kept; `target` names the endpoint in messages. */
void token_form_request(http_request *rq, const char *url, const char *target, const void *form,
                        size_t len);

/* A token endpoint's JSON answer {"access_token": "...", "expires_in": N}
 * (N seconds, a number or a string of one; one hour when absent): the
 * token and its lifetime in ms. LOOM_EIO "<what> has no access_token". */
int token_from_answer(const http_response *rs, const char *what, char **token,
                      int64_t *lifetime_ms);

#endif
