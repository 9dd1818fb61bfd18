/* store/s3/s3.c - the S3 store (AWS S3 and compatible services: Ceph RGW,
 * MinIO, R2): opening from an s3:// or s3a:// URI and options, signed
 * requests, ranged and suffix reads, HEAD, single PUTs (create-only with
 * If-None-Match: *), deletes, key_of. Listings and batch deletes are in
 * s3_list.c, multipart uploads in s3_writer.c, the incomplete uploads
 * killed writers leave in s3_uploads.c.
 *
 * Options (storage_options, keys case-insensitive, else the environment;
 * the spellings delta-rs reads):
 *   AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN,
 *   AWS_PROFILE, AWS_SHARED_CREDENTIALS_FILE, AWS_CONFIG_FILE  (s3_creds.h)
 *   AWS_WEB_IDENTITY_TOKEN_FILE, AWS_ROLE_ARN, AWS_CONTAINER_CREDENTIALS_*,
 *   AWS_EC2_METADATA_*                                  (s3_remote.h)
 *   AWS_REGION (AWS_DEFAULT_REGION; the profile's region; us-east-1)
 *   AWS_ENDPOINT_URL (alias AWS_ENDPOINT; the profile's endpoint_url;
 *                     https://s3.<region>.amazonaws.com)
 *   AWS_ALLOW_HTTP                    allow an http:// endpoint (false)
 *   AWS_VIRTUAL_HOSTED_STYLE_REQUEST  bucket.host/key instead of host/bucket/key (false)
 *   AWS_SKIP_SIGNATURE                unsigned requests (false)
 *   AWS_UNSIGNED_PAYLOAD              no SHA-256 of bodies (false)
 *   multipart_part_size (LOOM_MULTIPART_PART_SIZE)     a size (8388608, 8MiB), default 8 MiB, >= 5 MiB
 *   multipart_concurrency (LOOM_MULTIPART_CONCURRENCY) parts in flight per upload, default 4
 * and the HTTP client's timeouts and retry options (store/http/http.h). */
#include "store/s3/s3_int.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "store/http/crypto.h"
#include "store/http/encode.h"
#include "store/http/httpdate.h"
#include "store/s3/s3_sign.h"
#include "util/alloc.h"
#include "util/clock.h"
#include "util/error.h"

#define S3_DEFAULT_PART_SIZE ((uint64_t)8 << 20)
#define S3_MIN_PART_SIZE ((uint64_t)5 << 20)
#define S3_MAX_PART_SIZE ((uint64_t)5 << 30)
#define S3_ERR(code, ...) loom_err(code, LOOM_ERRCLASS_STORE, __VA_ARGS__)

/* ---- requests ---------------------------------------------------------- */

int s3_object_key(const s3_store *s, const char *key, loom_buf *out)
{
	LOOM_TRY(loom_buf_puts(out, s->prefix));
	return loom_buf_puts(out, key);
}

/* The URL path of a request: the bucket's path base, then the key. */
static int request_path(const s3_store *s, const char *key, loom_buf *out)
{
	LOOM_TRY(loom_buf_puts(out, s->path_style ? "/" : ""));
	if (s->path_style)
		LOOM_TRY(enc_uri(out, s->bucket, strlen(s->bucket), 0));
	if (!key)
		return s->path_style ? 0 : loom_buf_putc(out, '/');
	LOOM_TRY(loom_buf_putc(out, '/'));
	return enc_uri(out, key, strlen(key), ENC_KEEP_SLASH);
}

static int payload_hash(const s3_store *s, const s3_call *call, char out[65])
{
	uint8_t d[CRYPTO_SHA256_LEN];
	if (call->body_len == 0) {
		memcpy(out, S3_EMPTY_SHA256, 65);
		return 0;
	}
	if (s->unsigned_payload) {
		snprintf(out, 65, "%s", S3_UNSIGNED_PAYLOAD);
		return 0;
	}
	LOOM_TRY(crypto_sha256(call->body, call->body_len, d));
	enc_hex(d, sizeof(d), out);
	return 0;
}

#define S3_MAX_HEADERS 16

int s3_send(s3_store *s, const s3_call *call, http_response *resp)
{
	loom_buf path = LOOM_BUF_INIT, url = LOOM_BUF_INIT, auth = LOOM_BUF_INIT, held = LOOM_BUF_INIT;
	s3_signing_keys keys = { NULL, NULL, NULL };
	loom_kv h[S3_MAX_HEADERS];
	http_request rq = HTTP_REQUEST_INIT;
	char hash[65], date[17];
	size_t nh = 0, i;
	int rc;

	if (call->n_headers + 6 > S3_MAX_HEADERS)
		return S3_ERR(LOOM_EINVAL, "s3: too many headers");
	if ((rc = request_path(s, call->key, &path)) < 0 || (rc = payload_hash(s, call, hash)) < 0 ||
	    (rc = loom_buf_printf(&url, "%s%s", s->url_base, path.ptr)) < 0)
		goto done;
	if (call->n_query && ((rc = loom_buf_putc(&url, '?')) < 0 ||
	                      (rc = s3_canonical_query(call->query, call->n_query, &url)) < 0))
		goto done;
	h[nh++] = (loom_kv){ "Host", s->host };
	h[nh++] = (loom_kv){ "x-amz-content-sha256", hash };
	if ((rc = s3_creds_keys(&s->creds, &held, &keys.access_key, &keys.secret_key,
	                        &keys.session_token)) < 0)
		goto done;
	if (rc == 1) {
		s3_sign_request sr = { call->method, s->host, path.ptr, call->query, call->n_query,
			                   call->headers, call->n_headers, hash, s->region, "s3",
			                   loom_clock_wall_ms(loom_clock_system()) };
		if ((rc = s3_sign(&sr, &keys, date, &auth, NULL)) < 0)
			goto done;
		h[nh++] = (loom_kv){ "x-amz-date", date };
		if (keys.session_token && *keys.session_token)
			h[nh++] = (loom_kv){ "x-amz-security-token", keys.session_token };
		h[nh++] = (loom_kv){ "Authorization", auth.ptr };
	}
	for (i = 0; i < call->n_headers; i++)
		h[nh++] = call->headers[i];
	rq.method = call->method;
	rq.url = url.ptr;
	rq.headers = h;
	rq.n_headers = nh;
	rq.body = call->body;
	rq.body_len = call->body_len;
	rq.write_body = call->write_body;
	rq.write_ctx = call->write_ctx;
	rq.idempotent = call->idempotent;
	rq.kind = call->kind;
	rq.target = s->bucket;
	rq.key = call->key ? call->key : call->shown_key;
	rc = http_send(s->h.http, &rq, resp);
done:
	loom_buf_dispose(&path);
	loom_buf_dispose(&url);
	if (auth.ptr)
		memset(auth.ptr, 0, auth.size);
	loom_buf_dispose(&auth);
	if (held.ptr)
		memset(held.ptr, 0, held.size);
	loom_buf_dispose(&held);
	return rc;
}

int s3_status_error(s3_store *s, const s3_call *call, const http_response *resp, int code)
{
	http_request rq = HTTP_REQUEST_INIT;
	rq.method = call->method;
	rq.target = s->bucket;
	rq.key = call->key ? call->key : call->shown_key;
	return http_status_error(s->h.http, &rq, resp, code);
}

/* ---- reads --------------------------------------------------------------- */

/* The status of the response whose headers are being received. */
static long status_of(const http_response *r)
{
	const char *p = r->headers.ptr;
	if (!p || strncmp(p, "HTTP/", 5) != 0 || !(p = strchr(p, ' ')))
		return 0;
	return strtol(p + 1, NULL, 10);
}

/* "bytes FIRST-LAST/SIZE" or "bytes * /SIZE": the size, or -1. */
static int64_t content_range_size(const http_response *r)
{
	uint64_t first, size;
	return http_content_range(r, &first, &size) ? (int64_t)size : -1;
}

static int64_t content_length(const http_response *r)
{
	char v[64];
	if (!http_header(r, "Content-Length", v, sizeof(v)) || !isdigit((unsigned char)v[0]))
		return -1;
	return strtoll(v, NULL, 10);
}

/* Where a ranged GET's body goes: `cap` bytes at dst. A server that
 * ignores the range answers 200 with the whole object: then the wanted
 * bytes start `skip_if_whole` into it (tail reads: size - cap). */
typedef struct range_sink {
	char *dst;
	size_t cap;
	size_t got;
	uint64_t skip;
	uint64_t offset;       /* read_range: the range's start */
	int tail;              /* read_tail: the last cap bytes */
	int started;
	const http_response *resp;
} range_sink;

static int range_write(void *ctx, uint64_t offset, const void *data, size_t len)
{
	range_sink *rs = ctx;
	uint64_t lo, hi, from = offset, to = offset + len;
	if (offset == 0) { /* a retry starts the body again */
		rs->got = 0;
		rs->started = 0;
	}
	if (!rs->started) {
		rs->started = 1;
		rs->skip = 0;
		if (status_of(rs->resp) == 200) {
			int64_t total = content_length(rs->resp);
			if (rs->tail)
				rs->skip = total > (int64_t)rs->cap ? (uint64_t)total - rs->cap : 0;
			else
				rs->skip = rs->offset;
		}
	}
	lo = from > rs->skip ? from : rs->skip;
	hi = to < rs->skip + rs->cap ? to : rs->skip + rs->cap;
	if (lo < hi) {
		memcpy(rs->dst + (lo - rs->skip), (const char *)data + (lo - from), (size_t)(hi - lo));
		if (hi - rs->skip > rs->got)
			rs->got = (size_t)(hi - rs->skip);
	}
	return 0;
}

/* One GET of `key` with the Range header `range` into rs. 0 with *status
 * 200 or 206 (the bytes in rs, *total the object's size, -1 when the
 * response tells none) or 416 (the range lies past the end); else the
 * error. */
static int get_range(s3_store *s, const char *key, const char *range, range_sink *rs, int *status,
                     int64_t *total)
{
	loom_buf obj = LOOM_BUF_INIT;
	http_response resp = HTTP_RESPONSE_INIT;
	loom_kv h[1];
	s3_call call;
	int rc;

	if ((rc = s3_object_key(s, key, &obj)) < 0)
		goto done;
	h[0] = (loom_kv){ "Range", range };
	rs->resp = &resp;
	memset(&call, 0, sizeof(call));
	call.method = "GET";
	call.key = obj.ptr;
	call.headers = h;
	call.n_headers = 1;
	call.write_body = range_write;
	call.write_ctx = rs;
	call.idempotent = 1;
	call.kind = LOOM_STORE_REQ_GET;
	if ((rc = s3_send(s, &call, &resp)) < 0)
		goto done;
	*status = (int)resp.status;
	if (resp.status != 200 && resp.status != 206 && resp.status != 416) {
		rc = s3_status_error(s, &call, &resp, 0);
		goto done;
	}
	*total = resp.status == 206 ? content_range_size(&resp) : content_length(&resp);
done:
	rs->resp = NULL;
	http_response_dispose(&resp);
	loom_buf_dispose(&obj);
	return rc;
}

static int s3_read_range(loom_store *st, const char *key, uint64_t offset, size_t len, void *dst,
                         size_t *nread)
{
	s3_store *s = (s3_store *)st;
	range_sink rs;
	char range[64];
	int status = 0;
	int64_t total;

	*nread = 0;
	LOOM_TRY(loom_store_check_key(key, "read"));
	if (len == 0)
		return 0;
	snprintf(range, sizeof(range), "bytes=%llu-%llu", (unsigned long long)offset,
	         (unsigned long long)(offset + len - 1));
	memset(&rs, 0, sizeof(rs));
	rs.dst = dst;
	rs.cap = len;
	rs.offset = offset;
	LOOM_TRY(get_range(s, key, range, &rs, &status, &total));
	if (status != 416) /* 416: at or past the end, nothing read */
		*nread = rs.got;
	return 0;
}

static int s3_stat(loom_store *st, const char *key, loom_store_entry *out)
{
	s3_store *s = (s3_store *)st;
	loom_buf obj = LOOM_BUF_INIT;
	http_response resp = HTTP_RESPONSE_INIT;
	char lm[64];
	s3_call call;
	int64_t len;
	int rc;

	LOOM_TRY(loom_store_check_key(key, "stat"));
	if ((rc = s3_object_key(s, key, &obj)) < 0)
		goto done;
	memset(&call, 0, sizeof(call));
	call.method = "HEAD";
	call.key = obj.ptr;
	call.idempotent = 1;
	call.kind = LOOM_STORE_REQ_HEAD;
	if ((rc = s3_send(s, &call, &resp)) < 0)
		goto done;
	if (resp.status != 200) {
		rc = s3_status_error(s, &call, &resp, 0);
		goto done;
	}
	memset(out, 0, sizeof(*out));
	out->key = key;
	len = content_length(&resp);
	out->size = len > 0 ? (uint64_t)len : 0;
	if (http_header(&resp, "Last-Modified", lm, sizeof(lm)) &&
	    httpdate_parse_rfc1123(lm, &out->mtime_ms) < 0)
		loom_error_clear(); /* an odd date is not worth failing a stat for */
done:
	http_response_dispose(&resp);
	loom_buf_dispose(&obj);
	return rc;
}

/* One request: a suffix range. An empty object has no range to give (416):
 * its size then comes from a HEAD. */
static int s3_read_tail(loom_store *st, const char *key, size_t len, void *dst, size_t *nread,
                        uint64_t *size)
{
	s3_store *s = (s3_store *)st;
	loom_store_entry e;
	range_sink rs;
	char range[48];
	int status = 0;
	int64_t total = -1;

	*nread = 0;
	*size = 0;
	LOOM_TRY(loom_store_check_key(key, "read"));
	if (len > 0) {
		snprintf(range, sizeof(range), "bytes=-%zu", len);
		memset(&rs, 0, sizeof(rs));
		rs.dst = dst;
		rs.cap = len;
		rs.tail = 1;
		LOOM_TRY(get_range(s, key, range, &rs, &status, &total));
	}
	if (len == 0 || status == 416) {
		LOOM_TRY(s3_stat(st, key, &e));
		*size = e.size;
		return 0;
	}
	if (total < 0 || (uint64_t)total < rs.got)
		return S3_ERR(LOOM_EIO, "GET bucket \"%s\" key \"%s\": no object size in the response",
		              s->bucket, key);
	*nread = rs.got;
	*size = (uint64_t)total;
	return 0;
}

/* ---- writes -------------------------------------------------------------- */

/* Does the object hold exactly these bytes? 1 yes, 0 no, negative: unknown. */
static int holds_bytes(s3_store *s, const char *key, const void *data, size_t len)
{
	loom_buf got = LOOM_BUF_INIT;
	int rc = loom_store_read_all(&s->h.base, key, &got);
	if (rc == 0)
		rc = got.size == len && (len == 0 || memcmp(got.ptr, data, len) == 0);
	else if (rc == LOOM_ENOTFOUND)
		rc = 0;
	loom_buf_dispose(&got);
	return rc;
}

int s3_put_object(s3_store *s, const char *key, const void *data, size_t len, unsigned int flags)
{
	loom_buf obj = LOOM_BUF_INIT;
	http_response resp = HTTP_RESPONSE_INIT;
	int if_absent = (flags & LOOM_PUT_IF_ABSENT) != 0;
	loom_kv h[1] = { { "If-None-Match", "*" } };
	unsigned int attempt;
	s3_call call;
	int rc;

	LOOM_TRY(loom_store_check_key(key, "write"));
	if ((rc = s3_object_key(s, key, &obj)) < 0)
		goto done;
	memset(&call, 0, sizeof(call));
	call.method = "PUT";
	call.key = obj.ptr;
	call.headers = h;
	call.n_headers = if_absent ? 1 : 0;
	call.body = data;
	call.body_len = len;
	/* a create-only PUT is not blindly repeatable: a retry could find
	 * its own first attempt; it is retried here, with that in mind */
	call.idempotent = !if_absent;
	call.kind = LOOM_STORE_REQ_PUT;
	for (attempt = 1;; attempt++) {
		char code[64], msg[8];
		int transient, again = attempt < s->h.retry.max_attempts;
		http_response_dispose(&resp);
		rc = s3_send(s, &call, &resp);
		if (rc == 0 && resp.status == 200)
			break;
		if (!if_absent) {
			if (rc == 0)
				rc = s3_status_error(s, &call, &resp, 0);
			break;
		}
		transient = rc == LOOM_ETRANSIENT || (rc == 0 && retry_status_is_transient(resp.status));
		if (rc < 0 && !transient)
			break;
		code[0] = '\0';
		if (rc == 0 && resp.status == 409)
			http_service_error(&resp, code, sizeof(code), msg, sizeof(msg));
		if (rc == 0 && resp.status == 409 && strcmp(code, "ConditionalRequestConflict") == 0 &&
		    again) {
			/* two writers raced for the key and neither won yet */
			retry_sleep_ms(retry_delay_ms(&s->h.retry, attempt));
			continue;
		}
		if (rc == 0 && (resp.status == 412 || resp.status == 409)) {
			/* An earlier attempt may have published it - ours, or one
			 * curl repeated by itself on a reused connection that died
			 * (invisible here): our own bytes mean we won. */
			int ours = holds_bytes(s, key, data, len);
			if (ours == 1) {
				loom_error_clear();
				rc = 0;
				break;
			}
			if (ours < 0)
				break;
			rc = s3_status_error(s, &call, &resp, LOOM_EEXISTS);
			break;
		}
		if (transient && again) {
			loom_error_clear();
			retry_sleep_ms(retry_delay_ms(&s->h.retry, attempt));
			continue;
		}
		if (rc == 0)
			rc = s3_status_error(s, &call, &resp, 0);
		break;
	}
done:
	http_response_dispose(&resp);
	loom_buf_dispose(&obj);
	return rc;
}

static int s3_put(loom_store *st, const char *key, const void *data, size_t len, unsigned int flags)
{
	return s3_put_object((s3_store *)st, key, data, len, flags);
}

static int s3_remove(loom_store *st, const char *key)
{
	s3_store *s = (s3_store *)st;
	loom_buf obj = LOOM_BUF_INIT;
	http_response resp = HTTP_RESPONSE_INIT;
	s3_call call;
	int rc;

	LOOM_TRY(loom_store_check_key(key, "delete"));
	if ((rc = s3_object_key(s, key, &obj)) < 0)
		goto done;
	memset(&call, 0, sizeof(call));
	call.method = "DELETE";
	call.key = obj.ptr;
	call.idempotent = 1;
	call.kind = LOOM_STORE_REQ_DELETE;
	if ((rc = s3_send(s, &call, &resp)) == 0 && resp.status != 204 && resp.status != 200 &&
	    resp.status != 404)
		rc = s3_status_error(s, &call, &resp, 0);
done:
	http_response_dispose(&resp);
	loom_buf_dispose(&obj);
	return rc;
}

/* ---- key_of, stats, free ------------------------------------------------- */

/* "s3://" or "s3a://" (any case): the length, else 0. */
static size_t s3_scheme_len(const char *uri)
{
	if (strncasecmp(uri, "s3://", 5) == 0)
		return 5;
	if (strncasecmp(uri, "s3a://", 6) == 0)
		return 6;
	return 0;
}

static int s3_key_of(loom_store *st, const char *location, const char **key)
{
	s3_store *s = (s3_store *)st;
	size_t n = s3_scheme_len(location), blen = strlen(s->bucket), plen = strlen(s->prefix);
	const char *p = location + n;
	*key = NULL;
	if (n && strncmp(p, s->bucket, blen) == 0 && p[blen] == '/') {
		p += blen + 1;
		if (strncmp(p, s->prefix, plen) == 0 && loom_store_check_key(p + plen, "path") == 0) {
			*key = p + plen;
			return 0;
		}
		loom_error_clear();
	}
	return S3_ERR(LOOM_ENOTFOUND, "%.400s is outside the table root %s", location, s->root_uri);
}

static void s3_free(loom_store *st)
{
	s3_store *s = (s3_store *)st;
	if (!s)
		return;
	loom_threadpool_free(s->uploads);
	pthread_mutex_destroy(&s->pool_lock);
	part_pool_dispose(&s->parts);
	http_store_dispose(&s->h);
	s3_creds_dispose(&s->creds);
	loom_free(s->bucket);
	loom_free(s->prefix);
	loom_free(s->root_uri);
	loom_free(s->url_base);
	loom_free(s->host);
	loom_free(s->region);
	loom_free(s);
}

loom_threadpool *s3_upload_pool(s3_store *s)
{
	loom_threadpool *p;
	pthread_mutex_lock(&s->pool_lock);
	if (!s->uploads && loom_threadpool_new(&s->uploads, (size_t)s->part_concurrency * 2) < 0)
		s->uploads = NULL;
	p = s->uploads;
	pthread_mutex_unlock(&s->pool_lock);
	return p;
}

/* ---- opening ------------------------------------------------------------- */

/* Bucket and prefix of "s3://bucket[/prefix]". */
static int parse_uri(s3_store *s, const char *uri)
{
	size_t n = s3_scheme_len(uri), blen;
	const char *b = uri + n, *slash;
	loom_buf prefix = LOOM_BUF_INIT, root = LOOM_BUF_INIT;
	int rc = 0;

	slash = strchr(b, '/');
	blen = slash ? (size_t)(slash - b) : strlen(b);
	if (blen < 3 || blen > 63 || strpbrk(b, "?#") || memchr(b, '@', blen) || memchr(b, ':', blen))
		return S3_ERR(LOOM_EINVAL, "%s: not an S3 URI (s3://bucket/path; a bucket name is 3 to 63 "
		              "characters, no '?', '#', '@' or ':')", uri);
	if (slash) {
		const char *p = slash + 1;
		size_t plen = strlen(p);
		while (plen && p[plen - 1] == '/')
			plen--;
		if (plen) {
			char *tmp = loom_strndup(p, plen);
			if (!tmp)
				return S3_ERR(LOOM_ENOMEM, "out of memory");
			rc = loom_store_check_key(tmp, "table root");
			loom_free(tmp);
			if (rc < 0)
				return S3_ERR(LOOM_EINVAL, "%s: the path of an S3 URI has an empty, \".\" or \"..\" "
				              "component", uri);
			if ((rc = loom_buf_put(&prefix, p, plen)) < 0 || (rc = loom_buf_putc(&prefix, '/')) < 0)
				goto fail;
		}
	}
	if ((rc = loom_buf_puts(&prefix, "")) < 0 ||
	    (rc = loom_buf_printf(&root, "s3://%.*s%s%.*s", (int)blen, b, prefix.size ? "/" : "",
	                          (int)(prefix.size ? prefix.size - 1 : 0), prefix.ptr)) < 0)
		goto fail;
	s->bucket = loom_strndup(b, blen);
	s->prefix = loom_buf_detach(&prefix);
	s->root_uri = loom_buf_detach(&root);
	if (!s->bucket)
		return S3_ERR(LOOM_ENOMEM, "out of memory");
	return 0;
fail:
	loom_buf_dispose(&prefix);
	loom_buf_dispose(&root);
	return rc;
}

/* url_base and host from the endpoint, the bucket and the addressing style. */
static int set_endpoint(s3_store *s, const char *endpoint, int allow_http, int virtual_hosted,
                        const char *uri)
{
	const char *auth, *path;
	size_t scheme_n, auth_n, path_n;
	loom_buf host = LOOM_BUF_INIT, base = LOOM_BUF_INIT;
	int https, rc;

	if (strncasecmp(endpoint, "https://", 8) == 0)
		https = 1, scheme_n = 8;
	else if (strncasecmp(endpoint, "http://", 7) == 0)
		https = 0, scheme_n = 7;
	else
		return S3_ERR(LOOM_EINVAL, "%s: AWS_ENDPOINT_URL \"%.200s\" is not an http:// or https:// URL",
		              uri, endpoint);
	if (!https && !allow_http)
		return S3_ERR(LOOM_EINVAL, "%s: AWS_ENDPOINT_URL \"%.200s\" is plain http: set AWS_ALLOW_HTTP=true "
		              "to allow unencrypted requests", uri, endpoint);
	auth = endpoint + scheme_n;
	auth_n = strcspn(auth, "/?#");
	path = auth + auth_n;
	path_n = strcspn(path, "?#");
	while (path_n && path[path_n - 1] == '/')
		path_n--;
	if (auth_n == 0 || memchr(auth, '@', auth_n))
		return S3_ERR(LOOM_EINVAL, "%s: AWS_ENDPOINT_URL has no host (or has user info)", uri);
	/* the Host header as curl would send it: no default port */
	if (https && auth_n > 4 && memcmp(auth + auth_n - 4, ":443", 4) == 0)
		auth_n -= 4;
	else if (!https && auth_n > 3 && memcmp(auth + auth_n - 3, ":80", 3) == 0)
		auth_n -= 3;
	s->path_style = !virtual_hosted;
	if ((rc = loom_buf_printf(&host, "%s%s%.*s", virtual_hosted ? s->bucket : "",
	                          virtual_hosted ? "." : "", (int)auth_n, auth)) < 0 ||
	    (rc = loom_buf_printf(&base, "%s%s%.*s", https ? "https://" : "http://", host.ptr,
	                          (int)path_n, path)) < 0) {
		loom_buf_dispose(&host);
		loom_buf_dispose(&base);
		return rc;
	}
	s->host = loom_buf_detach(&host);
	s->url_base = loom_buf_detach(&base);
	return 0;
}

static int configure(s3_store *s, const char *uri, const store_config *cfg)
{
	static const http_client_labels labels = { "bucket", NULL, NULL };
	const char *region, *endpoint;
	loom_buf dflt = LOOM_BUF_INIT;
	int allow_http, virtual_hosted, rc;
	uint64_t conc;

	LOOM_TRY(parse_uri(s, uri));
	LOOM_TRY(store_config_secrets(cfg, &s->h.secrets));
	LOOM_TRY(s3_creds_resolve(&s->creds, cfg, &s->h.secrets));
	region = store_opt(cfg, "AWS_REGION", NULL);
	if (!region)
		region = store_opt(cfg, "AWS_DEFAULT_REGION", NULL);
	if (!region)
		region = s->creds.profile_region ? s->creds.profile_region : "us-east-1";
	if (!(s->region = loom_strdup(region)))
		return S3_ERR(LOOM_ENOMEM, "out of memory");
	LOOM_TRY(s3_creds_finish(&s->creds, cfg, s->region));
	LOOM_TRY(store_opt_bool(cfg, "AWS_ALLOW_HTTP", NULL, 0, &allow_http));
	LOOM_TRY(store_opt_bool(cfg, "AWS_VIRTUAL_HOSTED_STYLE_REQUEST", NULL, 0, &virtual_hosted));
	LOOM_TRY(store_opt_bool(cfg, "AWS_UNSIGNED_PAYLOAD", NULL, 0, &s->unsigned_payload));
	LOOM_TRY(store_opt_size(cfg, "multipart_part_size", "LOOM_MULTIPART_PART_SIZE",
	                        S3_DEFAULT_PART_SIZE, S3_MAX_PART_SIZE, &s->part_size));
	if (s->part_size < S3_MIN_PART_SIZE)
		return S3_ERR(LOOM_EINVAL, "%s: option multipart_part_size is %llu, below S3's minimum part "
		              "size of 5 MiB (5242880)", uri, (unsigned long long)s->part_size);
	LOOM_TRY(store_opt_uint(cfg, "multipart_concurrency", "LOOM_MULTIPART_CONCURRENCY", 4, 64, &conc));
	s->part_concurrency = conc ? (unsigned int)conc : 1;
	LOOM_TRY(part_pool_init(&s->parts, (size_t)s->part_size, s->part_concurrency + 1));
	endpoint = store_opt(cfg, "AWS_ENDPOINT_URL", NULL);
	if (!endpoint)
		endpoint = store_opt(cfg, "AWS_ENDPOINT", NULL);
	if (!endpoint)
		endpoint = s->creds.profile_endpoint;
	if (!endpoint) {
		LOOM_TRY(loom_buf_printf(&dflt, "https://s3.%s.amazonaws.com", s->region));
		endpoint = dflt.ptr;
	}
	rc = set_endpoint(s, endpoint, allow_http, virtual_hosted, uri);
	loom_buf_dispose(&dflt);
	LOOM_TRY(rc);
	return http_store_connect(&s->h, cfg, &labels);
}

static const loom_store S3_METHODS = {
	.read_range = s3_read_range,
	.stat = s3_stat,
	.put = s3_put,
	.writer_open = s3_writer_open,
	.list = s3_list,
	.remove = s3_remove,
	.free = s3_free,
	.read_tail = s3_read_tail,
	.remove_many = s3_remove_many,
	.key_of = s3_key_of,
	.list_uploads = s3_list_uploads,
	.abort_upload = s3_abort_upload_key,
};

int store_s3_open(loom_store **out, const char *uri, const store_config *cfg)
{
	s3_store *s = loom_calloc(1, sizeof(*s));
	int rc;

	*out = NULL;
	if (!s)
		return S3_ERR(LOOM_ENOMEM, "out of memory");
	http_store_init(&s->h);
	pthread_mutex_init(&s->pool_lock, NULL);
	if ((rc = configure(s, uri, cfg)) < 0)
		return http_store_open_failed(&s->h, s3_free, rc);
	http_store_methods(&s->h, &S3_METHODS, "s3", s->root_uri);
	*out = &s->h.base;
	return 0;
}
