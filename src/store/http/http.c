/* store/http/http.c - requests over a pool of libcurl handles, with bounded
 * retries and messages that never carry a secret. */
#include "store/http/http.h"

#include <ctype.h>
#include <curl/curl.h>
#include <jansson.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "store/http/xml.h"
#include "util/alloc.h"
#include "util/error.h"

#define HTTP_POOL_MAX 64
#define HTTP_ERROR_BODY_MAX ((size_t)64 << 10)
#define HTTP_DEFAULT_MAX_BODY ((size_t)64 << 20)

struct http_client {
	http_client_opts o;
	loom_secrets secrets;        /* a copy of o.secrets */
	char label[32], key_label[32];
	char *ca_bundle;             /* a copy of o.ca_bundle */
	pthread_mutex_t lock;
	CURL *idle[HTTP_POOL_MAX];   /* handles with their live connections */
	size_t n_idle;
};

static pthread_once_t curl_once = PTHREAD_ONCE_INIT;
static CURLcode curl_init_rc;

static void curl_init(void)
{
	curl_init_rc = curl_global_init(CURL_GLOBAL_DEFAULT);
}

/* ---- client ------------------------------------------------------------- */

void http_client_opts_default(http_client_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->connect_timeout_ms = 10000;
	o->stall_timeout_ms = 30000;
	retry_policy_default(&o->retry);
	o->target_label = "bucket";
}

int http_client_opts_from_config(http_client_opts *o, const store_config *c)
{
	http_client_opts_default(o);
	LOOM_TRY(store_opt_duration_ms(c, "connect_timeout", "LOOM_CONNECT_TIMEOUT", 10000, 600000,
	                               &o->connect_timeout_ms));
	LOOM_TRY(store_opt_duration_ms(c, "timeout", "LOOM_TIMEOUT", 30000, 3600000,
	                               &o->stall_timeout_ms));
	o->ca_bundle = store_opt(c, "ca_bundle", "LOOM_CA_BUNDLE");
	return retry_policy_from_config(&o->retry, c);
}

void http_client_opts_fail_fast(http_client_opts *o, int64_t stall_timeout_ms)
{
	o->connect_timeout_ms = 1000;
	o->stall_timeout_ms = stall_timeout_ms;
	o->retry.max_attempts = 2;
}

int http_client_new(http_client **out, const http_client_opts *o)
{
	http_client *c;
	*out = NULL;
	pthread_once(&curl_once, curl_init);
	if (curl_init_rc != CURLE_OK)
		return loom_err(LOOM_EIO, LOOM_ERRCLASS_STORE, "libcurl failed to initialise: %s",
		                curl_easy_strerror(curl_init_rc));
	if (!(c = loom_calloc(1, sizeof(*c))))
		return loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_STORE, "out of memory");
	c->o = *o;
	if (c->o.retry.max_attempts < 1)
		c->o.retry.max_attempts = 1;
	snprintf(c->label, sizeof(c->label), "%s", o->target_label ? o->target_label : "bucket");
	snprintf(c->key_label, sizeof(c->key_label), "%s", o->key_label ? o->key_label : "key");
	c->o.target_label = c->label;
	c->o.key_label = c->key_label;
	c->o.secrets = NULL;
	c->o.ca_bundle = NULL;
	if ((o->ca_bundle && !(c->ca_bundle = loom_strdup(o->ca_bundle))) ||
	    loom_secrets_add_all(&c->secrets, o->secrets) < 0 ||
	    pthread_mutex_init(&c->lock, NULL) != 0) {
		loom_secrets_dispose(&c->secrets);
		loom_free(c->ca_bundle);
		loom_free(c);
		return loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_STORE, "out of memory");
	}
	*out = c;
	return 0;
}

void http_client_free(http_client *c)
{
	size_t i;
	if (!c)
		return;
	for (i = 0; i < c->n_idle; i++)
		curl_easy_cleanup(c->idle[i]);
	pthread_mutex_destroy(&c->lock);
	loom_secrets_dispose(&c->secrets);
	loom_free(c->ca_bundle);
	loom_free(c);
}

/* A handle with its connections warm, reset to default options. */
static CURL *acquire(http_client *c)
{
	CURL *h = NULL;
	pthread_mutex_lock(&c->lock);
	if (c->n_idle)
		h = c->idle[--c->n_idle];
	pthread_mutex_unlock(&c->lock);
	if (h) {
		curl_easy_reset(h); /* keeps the connection and DNS caches */
		return h;
	}
	return curl_easy_init();
}

static void release(http_client *c, CURL *h)
{
	pthread_mutex_lock(&c->lock);
	if (c->n_idle < HTTP_POOL_MAX) {
		c->idle[c->n_idle++] = h;
		h = NULL;
	}
	pthread_mutex_unlock(&c->lock);
	if (h)
		curl_easy_cleanup(h);
}

/* ---- one attempt -------------------------------------------------------- */

typedef struct transfer {
	http_client *c;
	const http_request *req;
	http_response *resp;
	CURL *h;
	uint64_t up_pos;     /* request body bytes handed to curl */
	int cb_rc;           /* a callback's failure, reported as is */
	int status_known, keep_body;
} transfer;

static size_t on_header(char *buf, size_t size, size_t n, void *ud)
{
	transfer *t = ud;
	size_t len = size * n;
	if (len >= 5 && strncmp(buf, "HTTP/", 5) == 0)
		loom_buf_clear(&t->resp->headers); /* a new response (after 100 Continue) */
	if (loom_buf_put(&t->resp->headers, buf, len) < 0) {
		t->cb_rc = loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_STORE, "out of memory for response headers");
		return 0;
	}
	return len;
}

static size_t on_body(char *data, size_t size, size_t n, void *ud)
{
	transfer *t = ud;
	size_t len = size * n;
	http_response *r = t->resp;
	if (!t->status_known) {
		long status = 0;
		curl_easy_getinfo(t->h, CURLINFO_RESPONSE_CODE, &status);
		t->status_known = 1;
		/* an error body is kept for its message, never handed to the sink */
		t->keep_body = !t->req->write_body || status >= 300;
	}
	store_count_bytes(t->c->o.counters, len, 0);
	if (t->keep_body) {
		size_t max = t->req->write_body ? HTTP_ERROR_BODY_MAX
		                                : (t->req->max_body ? t->req->max_body : HTTP_DEFAULT_MAX_BODY);
		if (r->body.size + len > max) {
			if (t->req->write_body) { /* the rest of an error body is not needed */
				r->body_bytes += len;
				return len;
			}
			t->cb_rc = loom_err(LOOM_EIO, LOOM_ERRCLASS_STORE,
			                    "response body larger than %zu bytes", max);
			return 0;
		}
		if (loom_buf_put(&r->body, data, len) < 0) {
			t->cb_rc = loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_STORE, "out of memory for a response body");
			return 0;
		}
	} else {
		int rc = t->req->write_body(t->req->write_ctx, r->body_bytes, data, len);
		if (rc < 0) {
			t->cb_rc = rc;
			return 0;
		}
	}
	r->body_bytes += len;
	return len;
}

static size_t on_read(char *dst, size_t size, size_t n, void *ud)
{
	transfer *t = ud;
	const http_request *req = t->req;
	size_t want = size * n, left = t->up_pos < req->body_len ? req->body_len - (size_t)t->up_pos : 0;
	if (want > left)
		want = left;
	if (want == 0)
		return 0;
	if (req->read_body) {
		int64_t got = req->read_body(req->read_ctx, t->up_pos, dst, want);
		if (got < 0) {
			t->cb_rc = (int)got;
			return CURL_READFUNC_ABORT;
		}
		want = (size_t)got;
	} else {
		memcpy(dst, (const char *)req->body + t->up_pos, want);
	}
	t->up_pos += want;
	store_count_bytes(t->c->o.counters, 0, want);
	return want;
}

/* curl rewinds the body when it must send it again on its own (a reused
 * connection that turned out closed). */
static int on_seek(void *ud, curl_off_t offset, int origin)
{
	transfer *t = ud;
	if (origin != SEEK_SET || offset < 0 || (uint64_t)offset > t->req->body_len)
		return CURL_SEEKFUNC_CANTSEEK;
	t->up_pos = (uint64_t)offset;
	return CURL_SEEKFUNC_OK;
}

static int has_header(const http_request *req, const char *name)
{
	size_t i;
	for (i = 0; i < req->n_headers; i++)
		if (req->headers[i].key && strcasecmp(req->headers[i].key, name) == 0)
			return 1;
	return 0;
}

static int append(struct curl_slist **l, const char *line)
{
	struct curl_slist *grown = curl_slist_append(*l, line);
	if (!grown)
		return loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_STORE, "out of memory");
	*l = grown;
	return 0;
}

static int build_headers(const http_request *req, struct curl_slist **out)
{
	struct curl_slist *l = NULL;
	loom_buf line = LOOM_BUF_INIT;
	size_t i;
	int rc;

	/* no "Expect: 100-continue" round trip, and none of the headers curl
	 * would add on its own (they would not be in a signature) */
	rc = append(&l, "Expect:");
	if (rc == 0)
		rc = append(&l, "Accept:");
	if (rc == 0 && !has_header(req, "Content-Type"))
		rc = append(&l, "Content-Type:");
	for (i = 0; i < req->n_headers && rc == 0; i++) {
		const loom_kv *kv = &req->headers[i];
		if (!kv->key)
			continue;
		loom_buf_clear(&line);
		/* "Name;" is how curl sends a header with an empty value */
		rc = kv->value && *kv->value ? loom_buf_printf(&line, "%s: %s", kv->key, kv->value)
		                             : loom_buf_printf(&line, "%s;", kv->key);
		if (rc == 0)
			rc = append(&l, line.ptr);
	}
	loom_buf_dispose(&line);
	if (rc < 0) {
		curl_slist_free_all(l);
		return rc;
	}
	*out = l;
	return 0;
}

static void set_method(transfer *t)
{
	const http_request *req = t->req;
	CURL *h = t->h;
	int has_body = req->body_len > 0 || req->read_body;
	if (strcmp(req->method, "GET") == 0) {
		curl_easy_setopt(h, CURLOPT_HTTPGET, 1L);
	} else if (strcmp(req->method, "HEAD") == 0) {
		curl_easy_setopt(h, CURLOPT_NOBODY, 1L);
	} else if (strcmp(req->method, "PUT") == 0) {
		curl_easy_setopt(h, CURLOPT_UPLOAD, 1L);
		curl_easy_setopt(h, CURLOPT_INFILESIZE_LARGE, (curl_off_t)req->body_len);
	} else if (strcmp(req->method, "POST") == 0) {
		curl_easy_setopt(h, CURLOPT_POST, 1L);
		curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)req->body_len);
	} else {
		curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, req->method);
		if (has_body) {
			curl_easy_setopt(h, CURLOPT_UPLOAD, 1L);
			curl_easy_setopt(h, CURLOPT_INFILESIZE_LARGE, (curl_off_t)req->body_len);
		}
	}
	if (has_body || strcmp(req->method, "PUT") == 0 || strcmp(req->method, "POST") == 0) {
		curl_easy_setopt(h, CURLOPT_READFUNCTION, on_read);
		curl_easy_setopt(h, CURLOPT_READDATA, t);
		curl_easy_setopt(h, CURLOPT_SEEKFUNCTION, on_seek);
		curl_easy_setopt(h, CURLOPT_SEEKDATA, t);
	}
}

static CURLcode perform(transfer *t, struct curl_slist *headers, char *errbuf)
{
	const http_client_opts *o = &t->c->o;
	CURL *h = t->h;
	long stall_s = (long)((o->stall_timeout_ms + 999) / 1000);
	errbuf[0] = '\0';
	curl_easy_setopt(h, CURLOPT_URL, t->req->url);
	curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(h, CURLOPT_HTTP_VERSION, (long)CURL_HTTP_VERSION_1_1);
	curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, (long)o->connect_timeout_ms);
	curl_easy_setopt(h, CURLOPT_LOW_SPEED_LIMIT, 1L);
	curl_easy_setopt(h, CURLOPT_LOW_SPEED_TIME, stall_s > 0 ? stall_s : 1L);
	curl_easy_setopt(h, CURLOPT_TCP_KEEPALIVE, 1L);
	curl_easy_setopt(h, CURLOPT_USERAGENT, "loom/" LOOM_VERSION_STRING);
	curl_easy_setopt(h, CURLOPT_ERRORBUFFER, errbuf);
	curl_easy_setopt(h, CURLOPT_HTTPHEADER, headers);
	curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, on_header);
	curl_easy_setopt(h, CURLOPT_HEADERDATA, t);
	curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(h, CURLOPT_WRITEDATA, t);
	if (t->c->ca_bundle)
		curl_easy_setopt(h, CURLOPT_CAINFO, t->c->ca_bundle);
	set_method(t);
	return curl_easy_perform(h);
}

/* ---- failures ----------------------------------------------------------- */

/* Failures worth another try; *unsent: the request never left. */
static int transient_curl(CURLcode cc, int *unsent)
{
	*unsent = cc == CURLE_COULDNT_RESOLVE_HOST || cc == CURLE_COULDNT_RESOLVE_PROXY ||
	          cc == CURLE_COULDNT_CONNECT;
	switch (cc) {
	case CURLE_COULDNT_RESOLVE_HOST:
	case CURLE_COULDNT_RESOLVE_PROXY:
	case CURLE_COULDNT_CONNECT:
	case CURLE_OPERATION_TIMEDOUT:
	case CURLE_PARTIAL_FILE:
	case CURLE_GOT_NOTHING:
	case CURLE_SEND_ERROR:
	case CURLE_RECV_ERROR:
	case CURLE_SSL_CONNECT_ERROR:
	case CURLE_HTTP2:
	case CURLE_HTTP2_STREAM:
		return 1;
	default:
		return 0;
	}
}

static const char *curl_what(CURLcode cc)
{
	switch (cc) {
	case CURLE_COULDNT_RESOLVE_HOST: return "cannot resolve the host";
	case CURLE_COULDNT_CONNECT: return "cannot connect";
	case CURLE_OPERATION_TIMEDOUT: return "timed out";
	case CURLE_PARTIAL_FILE: return "the response body was cut short";
	case CURLE_GOT_NOTHING: return "the server closed the connection without a response";
	case CURLE_SEND_ERROR: return "the connection failed while sending";
	case CURLE_RECV_ERROR: return "the connection failed while receiving (reset?)";
	case CURLE_PEER_FAILED_VERIFICATION: return "the server's TLS certificate did not verify";
	case CURLE_SSL_CONNECT_ERROR: return "the TLS handshake failed";
	default: return "the request failed";
	}
}

/* "scheme://host:port" of a URL: no user-info, path or query. */
static void endpoint_of(const char *url, char *out, size_t cap)
{
	const char *s = strstr(url, "://"), *host, *end, *at;
	if (!s) {
		snprintf(out, cap, "?");
		return;
	}
	host = s + 3;
	end = host + strcspn(host, "/?#");
	at = memchr(host, '@', (size_t)(end - host));
	if (at)
		host = at + 1;
	snprintf(out, cap, "%.*s%.*s", (int)(s + 3 - url), url, (int)(end - host), host);
}

/* "<METHOD> <label> "<target>"[ key "<key>"]" */
static void describe(const http_client *c, const http_request *req, char *out, size_t cap)
{
	int n = snprintf(out, cap, "%s %s \"%s\"", req->method, c->label,
	                 req->target ? req->target : "?");
	if (req->key && n > 0 && (size_t)n < cap)
		snprintf(out + n, cap - (size_t)n, " %s \"%.400s\"", c->key_label, req->key);
}

/* Raise `code` with the formatted message, masked. */
static int fail(const http_client *c, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int fail(const http_client *c, int code, const char *fmt, ...)
{
	char msg[LOOM_ERROR_MESSAGE_MAX], masked[LOOM_ERROR_MESSAGE_MAX];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	loom_secrets_mask(&c->secrets, msg, masked, sizeof(masked));
	return loom_err(code, LOOM_ERRCLASS_STORE, "%s", masked);
}

/* ", after N attempts" when there were retries, else "". */
static void attempts_note(unsigned int attempts, char *out, size_t cap)
{
	if (attempts > 1)
		snprintf(out, cap, ", after %u attempts", attempts);
	else if (cap)
		out[0] = '\0';
}

static int transport_error(http_client *c, const http_request *req, CURLcode cc,
                           const char *errbuf, unsigned int attempts, int transient)
{
	char who[600], where[256], note[40];
	describe(c, req, who, sizeof(who));
	endpoint_of(req->url, where, sizeof(where));
	attempts_note(attempts, note, sizeof(note));
	return fail(c, transient ? LOOM_ETRANSIENT : LOOM_EIO, "%s: %s at %s (%s)%s", who,
	            curl_what(cc), where, errbuf[0] ? errbuf : curl_easy_strerror(cc), note);
}

/* ---- send --------------------------------------------------------------- */

static void response_reset(http_response *r)
{
	r->status = 0;
	r->body_bytes = 0;
	loom_buf_clear(&r->headers);
	loom_buf_clear(&r->body);
}

int http_send(http_client *c, const http_request *req, http_response *resp)
{
	const retry_policy *p = &c->o.retry;
	struct curl_slist *headers = NULL;
	char errbuf[CURL_ERROR_SIZE];
	unsigned int attempt;
	int rc = 0;

	LOOM_TRY(build_headers(req, &headers));
	resp->attempts = 0;
	for (attempt = 1;; attempt++) {
		transfer t;
		CURLcode cc;
		int unsent = 0, transient;

		response_reset(resp);
		memset(&t, 0, sizeof(t));
		t.c = c;
		t.req = req;
		t.resp = resp;
		if (!(t.h = acquire(c))) {
			rc = loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_STORE, "out of memory for a curl handle");
			break;
		}
		if (attempt > 1)
			store_count_retry(c->o.counters);
		store_count_request(c->o.counters, req->kind);
		resp->attempts = attempt;
		cc = perform(&t, headers, errbuf);
		if (cc == CURLE_OK)
			curl_easy_getinfo(t.h, CURLINFO_RESPONSE_CODE, &resp->status);
		release(c, t.h);
		if (t.cb_rc < 0) { /* a callback failed: its error stands, not retried */
			rc = t.cb_rc;
			break;
		}
		if (cc == CURLE_OK) {
			if (req->idempotent && retry_status_is_transient(resp->status) &&
			    attempt < p->max_attempts) {
				retry_sleep_ms(retry_delay_ms(p, attempt));
				continue;
			}
			rc = 0;
			break;
		}
		transient = transient_curl(cc, &unsent);
		if (transient && (req->idempotent || unsent) && attempt < p->max_attempts) {
			retry_sleep_ms(retry_delay_ms(p, attempt));
			continue;
		}
		resp->status = 0;
		rc = transport_error(c, req, cc, errbuf, attempt, transient);
		break;
	}
	curl_slist_free_all(headers);
	return rc;
}

/* ---- responses ---------------------------------------------------------- */

int http_header(const http_response *r, const char *name, char *out, size_t cap)
{
	const char *p = r->headers.ptr, *end = p ? p + r->headers.size : NULL;
	size_t n = strlen(name);
	if (cap)
		out[0] = '\0';
	while (p && p < end) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		const char *line_end = eol ? eol : end;
		if ((size_t)(line_end - p) > n && strncasecmp(p, name, n) == 0 && p[n] == ':') {
			const char *v = p + n + 1, *ve = line_end;
			while (v < ve && isspace((unsigned char)*v))
				v++;
			while (ve > v && isspace((unsigned char)ve[-1]))
				ve--;
			if (cap)
				snprintf(out, cap, "%.*s", (int)(ve - v), v);
			return 1;
		}
		p = eol ? eol + 1 : end;
	}
	return 0;
}

/* Copy `s` (len bytes) into out[cap] on one line, cut to fit. */
static void one_line(const char *s, size_t len, char *out, size_t cap)
{
	size_t i, w = 0;
	if (!cap)
		return;
	for (i = 0; i < len && w + 1 < cap; i++)
		out[w++] = (s[i] == '\n' || s[i] == '\r' || s[i] == '\t') ? ' ' : s[i];
	out[w] = '\0';
}

/* The error fields of a JSON error body, best effort. */
static void json_error_fields(const char *s, size_t len, char *code, size_t code_cap, char *msg,
                              size_t msg_cap)
{
	json_t *root = json_loadb(s, len, 0, NULL), *e, *m;
	if (!root)
		return;
	e = json_object_get(root, "error");
	if (json_is_string(e)) {
		one_line(json_string_value(e), json_string_length(e), code, code_cap);
	} else if (json_is_object(e)) {
		json_t *ec = json_object_get(e, "code");
		if (json_is_string(ec))
			one_line(json_string_value(ec), json_string_length(ec), code, code_cap);
		json_incref(e); /* the message sits next to the code */
		json_decref(root);
		root = e;
	}
	if (json_is_string(m = json_object_get(root, "error_description")) ||
	    json_is_string(m = json_object_get(root, "message")) ||
	    json_is_string(m = json_object_get(root, "Message")))
		one_line(json_string_value(m), json_string_length(m), msg, msg_cap);
	json_decref(root);
}

void http_service_error(const http_response *r, char *code, size_t code_cap, char *msg,
                        size_t msg_cap)
{
	const char *b = r->body.ptr ? r->body.ptr : "";
	size_t len = r->body.size, skip = 0;
	loom_buf t = LOOM_BUF_INIT;

	if (code_cap)
		code[0] = '\0';
	if (msg_cap)
		msg[0] = '\0';
	while (skip < len && isspace((unsigned char)b[skip]))
		skip++;
	if (skip < len && b[skip] == '<') {
		if (xml_find_text(b, len, "Error/Code", &t) == 1)
			one_line(t.ptr, t.size, code, code_cap);
		loom_buf_clear(&t);
		if (xml_find_text(b, len, "Error/Message", &t) == 1)
			one_line(t.ptr, t.size, msg, msg_cap);
	} else if (skip < len && b[skip] == '{') {
		/* OAuth token endpoints: {"error": "invalid_client", "error_description": ...}
		 * or {"error": {"code": ..., "message": ...}} */
		json_error_fields(b + skip, len - skip, code, code_cap, msg, msg_cap);
	}
	loom_buf_dispose(&t);
	if (code_cap && !code[0])
		http_header(r, "x-ms-error-code", code, code_cap);
}

int http_status_error(http_client *c, const http_request *req, const http_response *resp,
                      int code)
{
	char who[600], svc_code[128], svc_msg[320], note[40];
	long s = resp->status;
	if (!code) {
		if (s == 404 || s == 410)
			code = LOOM_ENOTFOUND;
		else if (s == 401 || s == 403)
			code = LOOM_EPERM;
		else if (s == 409 || s == 412)
			code = LOOM_EEXISTS;
		else if (s == 400 || s == 405 || s == 411 || s == 413 || s == 416)
			code = LOOM_EINVAL;
		else if (retry_status_is_transient(s))
			code = LOOM_ETRANSIENT;
		else
			code = LOOM_EIO;
	}
	describe(c, req, who, sizeof(who));
	http_service_error(resp, svc_code, sizeof(svc_code), svc_msg, sizeof(svc_msg));
	attempts_note(resp->attempts, note, sizeof(note));
	return fail(c, code, "%s: HTTP %ld%s%s%s%s%s%s", who, s,
	            svc_code[0] || svc_msg[0] ? " (" : "", svc_code, svc_code[0] && svc_msg[0] ? ": " : "",
	            svc_msg, svc_code[0] || svc_msg[0] ? ")" : "", note);
}

void http_response_dispose(http_response *r)
{
	loom_buf_dispose(&r->headers);
	loom_buf_dispose(&r->body);
	r->status = 0;
	r->body_bytes = 0;
	r->attempts = 0;
}

int http_content_range(const http_response *r, uint64_t *first, uint64_t *size)
{
	char v[128];
	const char *slash;
	if (!http_header(r, "Content-Range", v, sizeof(v)) || !(slash = strchr(v, '/')) ||
	    slash[1] < '0' || slash[1] > '9')
		return 0;
	*first = strncmp(v, "bytes ", 6) == 0 ? strtoull(v + 6, NULL, 10) : 0;
	*size = strtoull(slash + 1, NULL, 10);
	return 1;
}
