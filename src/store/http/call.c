/* store/http/call.c - a backend's request before it is sent (http_call). */
#include <string.h>

#include "store/http/http.h"
#include "util/alloc.h"
#include "util/error.h"

void http_call_init(http_call *c, const char *method, const char *key, loom_store_request kind)
{
	const http_request init = HTTP_REQUEST_INIT;
	memset(c, 0, sizeof(*c));
	c->method = method;
	c->key = key;
	c->req = init;
	c->req.method = method;
	c->req.kind = kind;
}

/* `value` copied and appended as list[*n], at most `max`. */
static int add_field(loom_kv *list, size_t *n, size_t max, const char *name, const char *value)
{
	char *copy;
	if (*n >= max)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_STORE, "too many request fields (adding %s)",
		                name);
	if (!(copy = loom_strdup(value)))
		return loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_STORE, "out of memory");
	list[*n].key = name;
	list[(*n)++].value = copy;
	return 0;
}

int http_call_param(http_call *c, const char *name, const char *value)
{
	return add_field(c->params, &c->n_params, HTTP_CALL_MAX_PARAMS, name, value);
}

int http_call_header(http_call *c, const char *name, const char *value)
{
	return add_field(c->headers, &c->n_headers, HTTP_CALL_MAX_HEADERS, name, value);
}

static void free_fields(loom_kv *list, size_t n)
{
	size_t i;
	for (i = 0; i < n; i++)
		loom_free((char *)list[i].value);
}

void http_call_dispose(http_call *c)
{
	free_fields(c->params, c->n_params);
	free_fields(c->headers, c->n_headers);
	c->n_params = c->n_headers = 0;
}

int http_call_send(http_client *http, http_call *c, const char *url, loom_kv *headers, size_t n,
                   const char *auth, const char *target, const char *key, http_response *resp)
{
	int rc;
	if (auth && *auth) {
		headers[n].key = "Authorization";
		headers[n++].value = auth;
	}
	c->req.url = url;
	c->req.headers = headers;
	c->req.n_headers = n;
	c->req.target = target;
	if (!c->req.key)
		c->req.key = key;
	rc = http_send(http, &c->req, resp);
	/* borrowed pointers end here; the backend's status error names the
	 * key again */
	c->req.url = NULL;
	c->req.headers = NULL;
	c->req.n_headers = 0;
	if (c->req.key == key)
		c->req.key = NULL;
	return rc;
}
