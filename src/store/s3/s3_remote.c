/* store/s3/s3_remote.c - credentials from STS (web identity), the container
 * credentials endpoint and the EC2 instance metadata service (IMDSv2). */
#include "store/s3/s3_remote.h"

#include <errno.h>
#include <jansson.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "store/http/encode.h"
#include "store/http/http.h"
#include "store/http/httpdate.h"
#include "store/http/xml.h"
#include "util/alloc.h"
#include "util/clock.h"
#include "util/error.h"

#define REMOTE_ERR(code, ...) loom_err(code, LOOM_ERRCLASS_STORE, __VA_ARGS__)
#define REFRESH_MARGIN_MS ((int64_t)300000)
#define NEVER_MS INT64_MAX
#define MAX_TOKEN_FILE (64 * 1024)
#define IMDS_DEFAULT "http://169.254.169.254"
#define CONTAINER_HOST "http://169.254.170.2"
#define STS_RESULT "AssumeRoleWithWebIdentityResponse/AssumeRoleWithWebIdentityResult/Credentials/"

typedef enum { REMOTE_WEB_IDENTITY, REMOTE_CONTAINER, REMOTE_INSTANCE } remote_kind;

struct s3_remote {
	remote_kind kind;
	const char *source;         /* "web identity", ... (static) */
	http_client *http;
	char *url;                  /* STS endpoint, container URL, IMDS base */
	char *token_file;           /* web identity: the token's file */
	char *role_arn, *session_name;
	char *auth_token;           /* container: a fixed Authorization value */
	char *auth_token_file;      /* ... or the file holding it */
	int imds_v1_fallback;
	pthread_mutex_t lock;
	loom_buf current;           /* "access\0secret\0token\0" once fetched */
	int64_t expires_ms, refresh_ms;
};

/* ---- small helpers ---------------------------------------------------------- */

static int dup_opt(char **dst, const char *v)
{
	if (v && !(*dst = loom_strdup(v)))
		return REMOTE_ERR(LOOM_ENOMEM, "out of memory");
	return 0;
}

/* A small file's contents, trailing blanks trimmed (tokens end in a newline). */
static int read_small_file(const char *path, const char *what, loom_buf *out)
{
	FILE *f = fopen(path, "rb");
	char chunk[4096];
	size_t n;
	int rc = 0;
	if (!f)
		return REMOTE_ERR(LOOM_EPERM, "cannot read the %s %s: %s", what, path, strerror(errno));
	while (rc == 0 && (n = fread(chunk, 1, sizeof(chunk), f)) > 0) {
		if (out->size + n > MAX_TOKEN_FILE)
			rc = REMOTE_ERR(LOOM_EINVAL, "the %s %s is larger than 64 KiB", what, path);
		else
			rc = loom_buf_put(out, chunk, n);
	}
	if (rc == 0 && ferror(f))
		rc = REMOTE_ERR(LOOM_EIO, "cannot read the %s %s", what, path);
	fclose(f);
	while (rc == 0 && out->size && (out->ptr[out->size - 1] == '\n' || out->ptr[out->size - 1] == '\r' ||
	                                out->ptr[out->size - 1] == ' '))
		out->ptr[--out->size] = '\0';
	if (rc == 0 && out->size == 0)
		rc = REMOTE_ERR(LOOM_EPERM, "the %s %s is empty", what, path);
	return rc;
}

/* The error for an answer that is not 2xx: the service, what was asked,
 * the status and the service's own code and message. */
static int answer_error(const s3_remote *r, const char *what, const http_response *rs)
{
	char code[128], msg[256];
	http_service_error(rs, code, sizeof(code), msg, sizeof(msg));
	return REMOTE_ERR(rs->status == 401 || rs->status == 403 || rs->status == 400 ? LOOM_EPERM
	                  : rs->status == 404 ? LOOM_ENOTFOUND : LOOM_EIO,
	                  "AWS credentials from %s (%s): %s: HTTP %ld%s%s%s%s%s", r->source, r->url, what,
	                  rs->status, *code || *msg ? " (" : "", code, *code && *msg ? ": " : "", msg,
	                  *code || *msg ? ")" : "");
}

/* Prefix a transport error (nothing answered) with the service asked. */
static int transport_error(const s3_remote *r, const char *what, int rc)
{
	const loom_error *e = loom_error_last();
	char detail[LOOM_ERROR_MESSAGE_MAX];
	snprintf(detail, sizeof(detail), "%s", e ? e->message : "no answer");
	return REMOTE_ERR(rc == LOOM_ETRANSIENT ? LOOM_EIO : rc, "AWS credentials from %s (%s): %s: %s",
	                  r->source, r->url, what, detail);
}

/* Keep one set of keys as "access\0secret\0token\0". */
static int put_keys(loom_buf *out, const char *ak, size_t ak_n, const char *sk, size_t sk_n,
                    const char *tok, size_t tok_n)
{
	loom_buf_clear(out);
	if (loom_buf_put(out, ak, ak_n) < 0 || loom_buf_putc(out, '\0') < 0 ||
	    loom_buf_put(out, sk, sk_n) < 0 || loom_buf_putc(out, '\0') < 0 ||
	    loom_buf_put(out, tok, tok_n) < 0 || loom_buf_putc(out, '\0') < 0)
		return REMOTE_ERR(LOOM_ENOMEM, "out of memory");
	return 0;
}

static int parse_expiration(const s3_remote *r, const char *text, int64_t *expires_ms)
{
	if (!text || !*text) {
		*expires_ms = NEVER_MS; /* long-lived keys: never refreshed */
		return 0;
	}
	if (httpdate_parse_iso8601(text, expires_ms) < 0)
		return REMOTE_ERR(LOOM_EIO, "AWS credentials from %s (%s): Expiration \"%.40s\" is not an "
		                  "ISO 8601 UTC time", r->source, r->url, text);
	return 0;
}

/* The JSON of the container endpoint and IMDS: AccessKeyId,
 * SecretAccessKey, Token, Expiration (and IMDS's Code). */
static int keys_from_json(const s3_remote *r, const http_response *rs, loom_buf *out, int64_t *expires_ms)
{
	json_t *root = json_loadb(rs->body.ptr ? rs->body.ptr : "", rs->body.size, 0, NULL);
	json_t *ak = root ? json_object_get(root, "AccessKeyId") : NULL;
	json_t *sk = root ? json_object_get(root, "SecretAccessKey") : NULL;
	json_t *tok = root ? json_object_get(root, "Token") : NULL;
	json_t *exp = root ? json_object_get(root, "Expiration") : NULL;
	json_t *code = root ? json_object_get(root, "Code") : NULL;
	int rc;

	if (code && json_is_string(code) && strcmp(json_string_value(code), "Success") != 0)
		rc = REMOTE_ERR(LOOM_EPERM, "AWS credentials from %s (%s): the answer's Code is \"%.64s\"",
		                r->source, r->url, json_string_value(code));
	else if (!json_is_string(ak) || !json_string_length(ak) || !json_is_string(sk) ||
	         !json_string_length(sk))
		rc = REMOTE_ERR(LOOM_EIO, "AWS credentials from %s (%s): the answer has no AccessKeyId and "
		                "SecretAccessKey", r->source, r->url);
	else if ((rc = parse_expiration(r, json_is_string(exp) ? json_string_value(exp) : NULL,
	                                expires_ms)) == 0)
		rc = put_keys(out, json_string_value(ak), json_string_length(ak), json_string_value(sk),
		              json_string_length(sk), json_is_string(tok) ? json_string_value(tok) : "",
		              json_is_string(tok) ? json_string_length(tok) : 0);
	json_decref(root);
	return rc;
}

/* When keys fetched at `now` expire and when to fetch again: with
 * min(5 minutes, half their lifetime) to spare. */
static void set_expiry(s3_remote *r, int64_t now, int64_t expires)
{
	int64_t life = expires - now < 1000 ? 1000 : expires - now;
	int64_t margin = life / 2 < REFRESH_MARGIN_MS ? life / 2 : REFRESH_MARGIN_MS;
	r->expires_ms = expires == NEVER_MS ? NEVER_MS : now + life;
	r->refresh_ms = expires == NEVER_MS ? NEVER_MS : now + life - margin;
}

/* Zero a buffer that held a secret, then free it. */
static void wipe(loom_buf *b)
{
	if (b->ptr)
		memset(b->ptr, 0, b->size);
	loom_buf_dispose(b);
}

/* ---- the three services ----------------------------------------------------- */

static int fetch_web_identity(s3_remote *r, loom_buf *out, int64_t *expires_ms)
{
	static const loom_kv headers[] = { { "Content-Type", "application/x-www-form-urlencoded" },
		                               { "Accept", "application/xml" } };
	loom_buf token = LOOM_BUF_INIT, form = LOOM_BUF_INIT, ak = LOOM_BUF_INIT, sk = LOOM_BUF_INIT,
	         tok = LOOM_BUF_INIT, exp = LOOM_BUF_INIT;
	http_request rq = HTTP_REQUEST_INIT;
	http_response rs = HTTP_RESPONSE_INIT;
	int rc;

	/* read at every fetch: the orchestrator rotates the file */
	if ((rc = read_small_file(r->token_file, "web identity token file", &token)) < 0)
		goto done;
	if ((rc = loom_buf_puts(&form, "Action=AssumeRoleWithWebIdentity&Version=2011-06-15&RoleArn=")) < 0 ||
	    (rc = enc_uri(&form, r->role_arn, strlen(r->role_arn), 0)) < 0 ||
	    (rc = loom_buf_puts(&form, "&RoleSessionName=")) < 0 ||
	    (rc = enc_uri(&form, r->session_name, strlen(r->session_name), 0)) < 0 ||
	    (rc = loom_buf_puts(&form, "&WebIdentityToken=")) < 0 ||
	    (rc = enc_uri(&form, token.ptr, token.size, 0)) < 0)
		goto done;
	rq.method = "POST"; /* the token travels in the body, never in a URL */
	rq.url = r->url;
	rq.headers = headers;
	rq.n_headers = 2;
	rq.body = form.ptr;
	rq.body_len = form.size;
	rq.max_body = 1 << 20;
	rq.kind = LOOM_STORE_REQ_OTHER;
	rq.target = "sts";
	if ((rc = http_send(r->http, &rq, &rs)) < 0) {
		rc = transport_error(r, "AssumeRoleWithWebIdentity", rc);
		goto done;
	}
	if (rs.status != 200) {
		rc = answer_error(r, "AssumeRoleWithWebIdentity", &rs);
		goto done;
	}
	if (xml_find_text(rs.body.ptr, rs.body.size, STS_RESULT "AccessKeyId", &ak) != 1 ||
	    xml_find_text(rs.body.ptr, rs.body.size, STS_RESULT "SecretAccessKey", &sk) != 1 ||
	    xml_find_text(rs.body.ptr, rs.body.size, STS_RESULT "SessionToken", &tok) < 0 ||
	    xml_find_text(rs.body.ptr, rs.body.size, STS_RESULT "Expiration", &exp) < 0 || !ak.size ||
	    !sk.size) {
		rc = REMOTE_ERR(LOOM_EIO, "AWS credentials from %s (%s): the AssumeRoleWithWebIdentity answer "
		                "has no Credentials", r->source, r->url);
		goto done;
	}
	if ((rc = parse_expiration(r, exp.ptr, expires_ms)) == 0)
		rc = put_keys(out, ak.ptr, ak.size, sk.ptr, sk.size, tok.ptr ? tok.ptr : "", tok.size);
done:
	wipe(&token);
	wipe(&form);
	wipe(&sk);
	wipe(&tok);
	loom_buf_dispose(&ak);
	loom_buf_dispose(&exp);
	http_response_dispose(&rs);
	return rc;
}

static int fetch_container(s3_remote *r, loom_buf *out, int64_t *expires_ms)
{
	loom_buf auth = LOOM_BUF_INIT;
	loom_kv h[1];
	http_request rq = HTTP_REQUEST_INIT;
	http_response rs = HTTP_RESPONSE_INIT;
	int rc = 0;

	if (r->auth_token_file)
		rc = read_small_file(r->auth_token_file, "container authorization token file", &auth);
	else if (r->auth_token)
		rc = loom_buf_puts(&auth, r->auth_token);
	if (rc < 0)
		goto done;
	h[0] = (loom_kv){ "Authorization", auth.ptr };
	rq.url = r->url;
	rq.headers = h;
	rq.n_headers = auth.size ? 1 : 0;
	rq.max_body = 1 << 20;
	rq.kind = LOOM_STORE_REQ_OTHER;
	rq.target = "container credentials";
	if ((rc = http_send(r->http, &rq, &rs)) < 0)
		rc = transport_error(r, "GET", rc);
	else if (rs.status != 200)
		rc = answer_error(r, "GET", &rs);
	else
		rc = keys_from_json(r, &rs, out, expires_ms);
done:
	wipe(&auth);
	http_response_dispose(&rs);
	return rc;
}

/* One IMDS request with the session token (when there is one). */
static int imds_call(s3_remote *r, const char *method, const char *path, const loom_kv *extra,
                     const char *session, http_response *rs)
{
	loom_buf url = LOOM_BUF_INIT;
	loom_kv h[1];
	http_request rq = HTTP_REQUEST_INIT;
	size_t nh = 0;
	int rc;

	if (extra)
		h[nh++] = *extra;
	else if (session)
		h[nh++] = (loom_kv){ "X-aws-ec2-metadata-token", session };
	if ((rc = loom_buf_printf(&url, "%s%s", r->url, path)) < 0)
		return rc;
	rq.method = method;
	rq.url = url.ptr;
	rq.headers = h;
	rq.n_headers = nh;
	rq.max_body = 1 << 20;
	rq.kind = LOOM_STORE_REQ_OTHER;
	rq.target = "instance metadata";
	rq.key = path;
	rc = http_send(r->http, &rq, rs);
	if (rc < 0)
		rc = transport_error(r, path, rc);
	else if (rs->status != 200)
		rc = 1; /* the caller decides */
	loom_buf_dispose(&url);
	return rc;
}

static int fetch_instance(s3_remote *r, loom_buf *out, int64_t *expires_ms)
{
	static const loom_kv ttl = { "X-aws-ec2-metadata-token-ttl-seconds", "21600" };
	static const char roles[] = "/latest/meta-data/iam/security-credentials/";
	http_response rs = HTTP_RESPONSE_INIT;
	loom_buf session = LOOM_BUF_INIT, path = LOOM_BUF_INIT;
	char role[256];
	size_t n;
	int rc;

	rc = imds_call(r, "PUT", "/latest/api/token", &ttl, NULL, &rs);
	if (rc == 0) {
		rc = loom_buf_put(&session, rs.body.ptr ? rs.body.ptr : "", rs.body.size);
	} else if (rc == 1) {
		/* IMDSv1 answers 403/404/405 to the token request */
		rc = r->imds_v1_fallback && (rs.status == 403 || rs.status == 404 || rs.status == 405)
		         ? 0 : answer_error(r, "PUT /latest/api/token", &rs);
	}
	http_response_dispose(&rs);
	if (rc < 0)
		goto done;
	rc = imds_call(r, "GET", roles, NULL, session.size ? session.ptr : NULL, &rs);
	if (rc == 1) {
		rc = rs.status == 404 ? REMOTE_ERR(LOOM_EPERM, "AWS credentials from %s (%s): no IAM role is "
		                                   "attached to this instance (GET %s: HTTP 404)", r->source,
		                                   r->url, roles)
		                      : answer_error(r, "GET /latest/meta-data/iam/security-credentials/", &rs);
	}
	if (rc < 0)
		goto done;
	/* the first line is the role's name */
	for (n = 0; n < rs.body.size && rs.body.ptr[n] != '\n' && rs.body.ptr[n] != '\r'; n++)
		;
	if (n == 0 || n >= sizeof(role)) {
		rc = REMOTE_ERR(LOOM_EIO, "AWS credentials from %s (%s): GET %s named no role", r->source,
		                r->url, roles);
		goto done;
	}
	memcpy(role, rs.body.ptr, n);
	role[n] = '\0';
	http_response_dispose(&rs);
	if ((rc = loom_buf_puts(&path, roles)) < 0 || (rc = enc_uri(&path, role, n, 0)) < 0)
		goto done;
	rc = imds_call(r, "GET", path.ptr, NULL, session.size ? session.ptr : NULL, &rs);
	if (rc == 1)
		rc = answer_error(r, path.ptr, &rs);
	if (rc == 0)
		rc = keys_from_json(r, &rs, out, expires_ms);
done:
	wipe(&session);
	loom_buf_dispose(&path);
	http_response_dispose(&rs);
	return rc;
}

static int fetch(s3_remote *r, loom_buf *out, int64_t *expires_ms)
{
	switch (r->kind) {
	case REMOTE_WEB_IDENTITY:
		return fetch_web_identity(r, out, expires_ms);
	case REMOTE_CONTAINER:
		return fetch_container(r, out, expires_ms);
	default:
		return fetch_instance(r, out, expires_ms);
	}
}

/* ---- choosing a provider ------------------------------------------------------ */

/* http:// is for the link-local services and loopback stand-ins only. */
static int plain_http_allowed(const char *url)
{
	static const char *const hosts[] = { "127.0.0.1", "localhost", "[::1]", "169.254.170.2",
		                                 "169.254.170.23", "169.254.169.254", NULL };
	const char *host = url + 7;
	size_t n = strcspn(host, ":/"), i;
	if (strncasecmp(url, "http://", 7) != 0)
		return 1;
	if (host[0] == '[')
		n = strcspn(host, "]") + 1;
	for (i = 0; hosts[i]; i++)
		if (strlen(hosts[i]) == n && strncasecmp(host, hosts[i], n) == 0)
			return 1;
	return 0;
}

static int choose(s3_remote *r, const store_config *cfg, const char *region, int *none)
{
	const char *token_file = store_opt(cfg, "AWS_WEB_IDENTITY_TOKEN_FILE", NULL);
	const char *role = store_opt(cfg, "AWS_ROLE_ARN", NULL);
	const char *rel = store_opt(cfg, "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI", NULL);
	const char *full = store_opt(cfg, "AWS_CONTAINER_CREDENTIALS_FULL_URI", NULL);
	int disabled = 0, allow_http = 0;

	*none = 0;
	LOOM_TRY(store_opt_bool(cfg, "AWS_ALLOW_HTTP", NULL, 0, &allow_http));
	if (token_file && role) {
		const char *sts = store_opt(cfg, "AWS_ENDPOINT_URL_STS", NULL);
		const char *name = store_opt(cfg, "AWS_ROLE_SESSION_NAME", NULL);
		r->kind = REMOTE_WEB_IDENTITY;
		r->source = "web identity";
		LOOM_TRY(dup_opt(&r->token_file, token_file));
		LOOM_TRY(dup_opt(&r->role_arn, role));
		LOOM_TRY(dup_opt(&r->session_name, name ? name : "loom"));
		if (sts) {
			LOOM_TRY(dup_opt(&r->url, sts));
		} else {
			loom_buf b = LOOM_BUF_INIT;
			LOOM_TRY(loom_buf_printf(&b, "https://sts.%s.amazonaws.com/", region));
			r->url = loom_buf_detach(&b);
		}
		if (strncasecmp(r->url, "https://", 8) != 0 && !(allow_http && plain_http_allowed(r->url)))
			return REMOTE_ERR(LOOM_EINVAL, "AWS_ENDPOINT_URL_STS %s: plain http is refused (a "
			                  "loopback endpoint with AWS_ALLOW_HTTP=true only)", r->url);
		return 0;
	}
	if (rel || full) {
		r->kind = REMOTE_CONTAINER;
		r->source = "container";
		if (rel) {
			loom_buf b = LOOM_BUF_INIT;
			LOOM_TRY(loom_buf_printf(&b, "%s%s%s", CONTAINER_HOST, rel[0] == '/' ? "" : "/", rel));
			r->url = loom_buf_detach(&b);
		} else {
			LOOM_TRY(dup_opt(&r->url, full));
			if (!plain_http_allowed(r->url) || (strncasecmp(r->url, "https://", 8) != 0 &&
			                                    strncasecmp(r->url, "http://", 7) != 0))
				return REMOTE_ERR(LOOM_EINVAL, "AWS_CONTAINER_CREDENTIALS_FULL_URI %s: only https, or "
				                  "http to a loopback or link-local credentials agent", r->url);
		}
		LOOM_TRY(dup_opt(&r->auth_token_file, store_opt(cfg, "AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE", NULL)));
		LOOM_TRY(dup_opt(&r->auth_token, store_opt(cfg, "AWS_CONTAINER_AUTHORIZATION_TOKEN", NULL)));
		return 0;
	}
	LOOM_TRY(store_opt_bool(cfg, "AWS_EC2_METADATA_DISABLED", NULL, 0, &disabled));
	if (disabled || (!cfg->use_env && !store_opt(cfg, "AWS_EC2_METADATA_SERVICE_ENDPOINT", NULL))) {
		*none = 1; /* options only: the metadata service only when named */
		return 0;
	}
	r->kind = REMOTE_INSTANCE;
	r->source = "instance metadata";
	{
		const char *ep = store_opt(cfg, "AWS_EC2_METADATA_SERVICE_ENDPOINT", NULL);
		size_t n;
		LOOM_TRY(dup_opt(&r->url, ep ? ep : IMDS_DEFAULT));
		n = strlen(r->url);
		while (n && r->url[n - 1] == '/')
			r->url[--n] = '\0';
	}
	LOOM_TRY(store_opt_bool(cfg, "AWS_EC2_METADATA_V1_FALLBACK", NULL, 0, &r->imds_v1_fallback));
	if (!plain_http_allowed(r->url))
		return REMOTE_ERR(LOOM_EINVAL, "AWS_EC2_METADATA_SERVICE_ENDPOINT %s: only the link-local "
		                  "service or a loopback stand-in", r->url);
	return 0;
}

static int make_client(s3_remote *r, const store_config *cfg)
{
	http_client_opts o;
	LOOM_TRY(http_client_opts_from_config(&o, cfg));
	if (r->kind == REMOTE_INSTANCE) /* where there is no metadata service */
		http_client_opts_fail_fast(&o, 2000);
	o.target_label = "credentials service";
	o.counters = NULL;
	return http_client_new(&r->http, &o);
}

int s3_remote_open(s3_remote **out, const store_config *cfg, const char *region, const char **source)
{
	s3_remote *r = loom_calloc(1, sizeof(*r));
	int64_t expires = 0, now;
	int none = 0, rc;

	*out = NULL;
	*source = "none";
	if (!r)
		return REMOTE_ERR(LOOM_ENOMEM, "out of memory");
	pthread_mutex_init(&r->lock, NULL);
	rc = choose(r, cfg, region, &none);
	if (rc == 0 && none) {
		s3_remote_free(r);
		return 0;
	}
	*source = r->source ? r->source : "none";
	if (rc == 0)
		rc = make_client(r, cfg);
	now = loom_clock_wall_ms(loom_clock_system());
	if (rc == 0 && (rc = fetch(r, &r->current, &expires)) == 0)
		set_expiry(r, now, expires);
	if (rc < 0) {
		s3_remote_free(r);
		return rc;
	}
	*out = r;
	return 0;
}

int s3_remote_current(s3_remote *r, loom_buf *out)
{
	int64_t now = loom_clock_wall_ms(loom_clock_system()), expires = 0;
	loom_buf fresh = LOOM_BUF_INIT;
	int rc = 0;

	pthread_mutex_lock(&r->lock);
	if (now >= r->refresh_ms) {
		rc = fetch(r, &fresh, &expires);
		if (rc == 0) {
			wipe(&r->current);
			r->current = fresh;
			fresh = (loom_buf)LOOM_BUF_INIT;
			set_expiry(r, now, expires);
		} else if (now < r->expires_ms) {
			loom_error_clear(); /* the old keys are still good */
			rc = 0;
		}
	}
	if (rc == 0) {
		loom_buf_clear(out);
		rc = loom_buf_put(out, r->current.ptr, r->current.size);
	}
	pthread_mutex_unlock(&r->lock);
	wipe(&fresh);
	return rc;
}

void s3_remote_free(s3_remote *r)
{
	if (!r)
		return;
	if (r->http)
		http_client_free(r->http);
	wipe(&r->current);
	loom_free(r->url);
	loom_free(r->token_file);
	loom_free(r->role_arn);
	loom_free(r->session_name);
	if (r->auth_token)
		memset(r->auth_token, 0, strlen(r->auth_token));
	loom_free(r->auth_token);
	loom_free(r->auth_token_file);
	pthread_mutex_destroy(&r->lock);
	loom_free(r);
}
