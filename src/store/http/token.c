/* store/http/token.c - a cached OAuth2 bearer token (see token.h). */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "store/http/json.h"
#include "store/http/token.h"
#include "util/alloc.h"
#include "util/clock.h"
#include "util/error.h"

#define REFRESH_MARGIN_MS ((int64_t)300000)

static void wipe(char *s)
{
	if (s)
		memset(s, 0, strlen(s));
	loom_free(s);
}

int token_cache_init(token_cache *t)
{
	memset(t, 0, sizeof(*t));
	if (pthread_mutex_init(&t->lock, NULL) != 0)
		return loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_STORE, "cannot create a mutex");
	return 0;
}

void token_cache_dispose(token_cache *t)
{
	wipe(t->token);
	t->token = NULL;
	pthread_mutex_destroy(&t->lock);
}

int token_cache_bearer(token_cache *t, token_fetch_fn fetch, void *ctx, loom_buf *out)
{
	int64_t now, lifetime = 0;
	char *fresh = NULL;
	int rc = 0;

	pthread_mutex_lock(&t->lock);
	now = loom_clock_wall_ms(loom_clock_system());
	if (!t->token || now >= t->refresh_ms) {
		rc = fetch(ctx, &fresh, &lifetime);
		if (rc == 0) {
			int64_t margin = lifetime / 2 < REFRESH_MARGIN_MS ? lifetime / 2 : REFRESH_MARGIN_MS;
			wipe(t->token);
			t->token = fresh;
			t->expires_ms = now + lifetime;
			t->refresh_ms = now + lifetime - margin;
		} else if (t->token && now < t->expires_ms) {
			loom_error_clear();
			rc = 0;
		}
	}
	if (rc == 0)
		rc = loom_buf_printf(out, "Bearer %s", t->token);
	pthread_mutex_unlock(&t->lock);
	return rc;
}

void token_form_request(http_request *rq, const char *url, const char *target, const void *form,
                        size_t len)
{
	static const loom_kv headers[] = { { "Content-Type", "application/x-www-form-urlencoded" } };
	rq->method = "POST";
	rq->url = url;
	rq->headers = headers;
	rq->n_headers = 1;
	rq->body = form;
	rq->body_len = len;
	rq->max_body = 1 << 20;
	rq->idempotent = 1; /* asking again for a token changes nothing */
	rq->kind = LOOM_STORE_REQ_OTHER;
	rq->target = target;
}

int token_from_answer(const http_response *rs, const char *what, char **token,
                      int64_t *lifetime_ms)
{
	json_t *root = json_loadb(rs->body.ptr ? rs->body.ptr : "", rs->body.size, 0, NULL);
	json_t *t = root ? json_object_get(root, "access_token") : NULL;
	json_t *e = root ? json_object_get(root, "expires_in") : NULL;
	int rc = 0;

	if (!json_is_string(t) || !json_string_length(t)) {
		rc = loom_err(LOOM_EIO, LOOM_ERRCLASS_STORE, "%s has no access_token", what);
		goto done;
	}
	*lifetime_ms = json_is_integer(e) || json_is_string(e) ? json_int64_of(e) * 1000 : 3600000;
	if (*lifetime_ms <= 0)
		*lifetime_ms = 1000;
	if (!(*token = loom_strdup(json_string_value(t))))
		rc = loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_STORE, "out of memory");
done:
	json_decref(root);
	return rc;
}
