/* store/gcs/gcs.c - the Google Cloud Storage backend: opening a root
 * (gs://bucket/path, gcs://bucket/path), one JSON API request, reads
 * (alt=media with a Range), object metadata and key_of. Listing is in
 * gcs_list.c, deletes in gcs_delete.c, uploads in gcs_writer.c. Bucket and
 * object are named in every error, with the HTTP status and the service's
 * message. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "store/gcs/gcs_int.h"
#include "store/http/encode.h"
#include "store/http/httpdate.h"
#include "store/http/json.h"
#include "util/alloc.h"
#include "util/error.h"

static const char *const OPT_ENDPOINT[] = { "google_storage_endpoint", "google_endpoint",
	                                        "google_base_url", "endpoint", NULL };
static const char *const OPT_BUCKET[] = { "google_bucket", "google_bucket_name", "bucket",
	                                      "bucket_name", NULL };

#define DEFAULT_CHUNK ((uint64_t)8 << 20)
#define MAX_CHUNK ((uint64_t)4096 << 20)

#define OOM() loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_STORE, "out of memory")

/* ---- one request ------------------------------------------------------------ */

void gcs_call_init(gcs_call *c, const char *method, const char *api, const char *key,
                   loom_store_request kind)
{
	http_call_init(c, method, key, kind);
	c->api = api;
}

int gcs_object_name(const gcs_store *s, const char *key, loom_buf *out)
{
	loom_buf_clear(out);
	LOOM_TRY(loom_buf_puts(out, s->prefix));
	return loom_buf_puts(out, key);
}

/* The URL: base + the API path with the bucket, the object as one
 * encoded segment ('/' is %2F in the JSON API), then the query. */
static int build_url(const gcs_store *s, const gcs_call *c, const char *object, loom_buf *url)
{
	size_t i;
	if (c->url) {
		LOOM_TRY(loom_buf_puts(url, c->url));
	} else {
		loom_buf bucket = LOOM_BUF_INIT;
		int rc = enc_uri(&bucket, s->bucket, strlen(s->bucket), 0);
		if (rc == 0)
			rc = loom_buf_puts(url, s->base_url);
		if (rc == 0)
			rc = loom_buf_puts(url, c->api);
		if (rc == 0 && strcmp(c->api, GCS_API_BATCH) != 0)
			rc = loom_buf_printf(url, "%s/o", bucket.ptr);
		loom_buf_dispose(&bucket);
		LOOM_TRY(rc);
		if (object) {
			LOOM_TRY(loom_buf_putc(url, '/'));
			LOOM_TRY(enc_uri(url, object, strlen(object), 0));
		}
	}
	for (i = 0; i < c->n_params; i++) {
		LOOM_TRY(loom_buf_putc(url, i || strchr(url->ptr, '?') ? '&' : '?'));
		LOOM_TRY(enc_uri(url, c->params[i].key, strlen(c->params[i].key), 0));
		LOOM_TRY(loom_buf_putc(url, '='));
		LOOM_TRY(enc_uri(url, c->params[i].value, strlen(c->params[i].value), 0));
	}
	return 0;
}

int gcs_send(gcs_store *s, gcs_call *c, http_response *resp)
{
	loom_buf object = LOOM_BUF_INIT, url = LOOM_BUF_INIT, auth = LOOM_BUF_INIT;
	loom_kv headers[HTTP_CALL_MAX_HEADERS + 1];
	size_t n = 0, i;
	int rc = 0;

	if (c->key)
		rc = gcs_object_name(s, c->key, &object);
	/* an upload names its object in the query, not the path */
	if (rc == 0)
		rc = build_url(s, c, c->key && c->api && strncmp(c->api, "/storage/", 9) == 0
		                         ? object.ptr : NULL, &url);
	if (rc == 0 && (rc = gcs_auth_header(s->auth, &auth)) < 0)
		loom_err_wrap("%s bucket \"%s\"%s%s%s: no token", c->method, s->bucket,
		              c->key ? " object \"" : "", c->key ? object.ptr : "", c->key ? "\"" : "");
	if (rc < 0)
		goto done;
	for (i = 0; i < c->n_headers; i++)
		headers[n++] = c->headers[i];
	rc = http_call_send(s->h.http, c, url.ptr, headers, n, auth.size ? auth.ptr : NULL, s->bucket,
	                    c->key ? object.ptr : NULL, resp);
done:
	if (auth.ptr)
		memset(auth.ptr, 0, auth.size);
	loom_buf_dispose(&auth);
	loom_buf_dispose(&object);
	loom_buf_dispose(&url);
	return rc;
}

int gcs_status_error(gcs_store *s, gcs_call *c, const http_response *resp, int code)
{
	loom_buf object = LOOM_BUF_INIT;
	const char *saved = c->req.key;
	int rc;
	if (!saved && c->key && gcs_object_name(s, c->key, &object) == 0)
		c->req.key = object.ptr;
	c->req.target = s->bucket;
	rc = http_status_error(s->h.http, &c->req, resp, code);
	c->req.key = saved;
	loom_buf_dispose(&object);
	return rc;
}

/* ---- reads ---------------------------------------------------------------------- */

/* The response body into dst[cap]: bytes past cap are counted, not kept. */
typedef struct into_mem {
	uint8_t *dst;
	size_t cap;
	int overflow;
} into_mem;

static int write_mem(void *ctx, uint64_t offset, const void *data, size_t len)
{
	into_mem *m = ctx;
	if (offset >= m->cap) {
		m->overflow = 1;
		return 0;
	}
	if (len > m->cap - offset) {
		len = (size_t)(m->cap - offset);
		m->overflow = 1;
	}
	memcpy(m->dst + offset, data, len);
	return 0;
}

/* GET with `range` ("bytes=a-b" or "bytes=-n") into dst[len]. *first gets
 * the object offset of dst[0], *nread the count, *size the object's size.
 * `offset` is what the range asked for (UINT64_MAX: a suffix). */
static int get_media(gcs_store *s, const char *key, const char *range, uint64_t offset,
                     void *dst, size_t len, uint64_t *first, size_t *nread, uint64_t *size)
{
	gcs_call c;
	http_response r = HTTP_RESPONSE_INIT;
	into_mem m = { dst, len, 0 };
	int rc;

	*nread = 0;
	*first = 0;
	*size = 0;
	gcs_call_init(&c, "GET", GCS_API_OBJECTS, key, LOOM_STORE_REQ_GET);
	c.req.write_body = write_mem;
	c.req.write_ctx = &m;
	rc = http_call_param(&c, "alt", "media");
	if (rc == 0)
		rc = http_call_header(&c, "Range", range);
	if (rc == 0)
		rc = gcs_send(s, &c, &r);
	if (rc < 0)
		goto done;
	if (r.status == 206) {
		uint64_t want;
		if (!http_content_range(&r, first, size)) {
			rc = loom_err(LOOM_EIO, LOOM_ERRCLASS_STORE,
			              "GET bucket \"%s\" object \"%s%s\": a 206 answer without Content-Range",
			              s->bucket, s->prefix, key);
			goto done;
		}
		*nread = (size_t)(r.body_bytes < len ? r.body_bytes : len);
		/* what the range should have brought: up to len bytes to the end */
		want = *size > *first ? *size - *first : 0;
		if (want > len)
			want = len;
		if (*nread < want) {
			rc = loom_err(LOOM_ETRANSIENT, LOOM_ERRCLASS_STORE,
			              "GET bucket \"%s\" object \"%s%s\": %zu bytes arrived of %llu", s->bucket,
			              s->prefix, key, *nread, (unsigned long long)want);
			goto done;
		}
	} else if (r.status == 200) {
		/* the whole object: a range past the end (the emulator; GCS says
		 * 416), a suffix longer than the object, or an empty one */
		*size = r.body_bytes;
		if (offset == UINT64_MAX && !m.overflow) {
			*nread = (size_t)r.body_bytes;
		} else if (offset == 0) {
			*nread = (size_t)(r.body_bytes < len ? r.body_bytes : len);
		} else if (offset >= *size) {
			*first = offset;
		} else {
			rc = loom_err(LOOM_EIO, LOOM_ERRCLASS_STORE,
			              "GET bucket \"%s\" object \"%s%s\": the server ignored the Range (%s) "
			              "and sent the whole object", s->bucket, s->prefix, key, range);
		}
	} else if (r.status == 416) {
		/* the object is shorter than the range's start (or empty) */
		uint64_t f;
		*first = offset;
		if (!http_content_range(&r, &f, size))
			*size = UINT64_MAX; /* unknown */
	} else {
		rc = gcs_status_error(s, &c, &r, 0);
	}
done:
	http_call_dispose(&c);
	http_response_dispose(&r);
	return rc;
}

static int gcs_read_range(loom_store *st, const char *key, uint64_t offset, size_t len, void *dst,
                          size_t *nread)
{
	char range[64];
	uint64_t first, size;
	LOOM_TRY(loom_store_check_key(key, "read"));
	*nread = 0;
	if (len == 0)
		return 0;
	snprintf(range, sizeof(range), "bytes=%llu-%llu", (unsigned long long)offset,
	         (unsigned long long)(offset + len - 1));
	return get_media((gcs_store *)st, key, range, offset, dst, len, &first, nread, &size);
}

/* A suffix range: the footer of a Parquet file and its size in one GET. */
static int gcs_read_tail(loom_store *st, const char *key, size_t len, void *dst, size_t *nread,
                         uint64_t *size)
{
	gcs_store *s = (gcs_store *)st;
	char range[64];
	uint64_t first;
	*nread = 0;
	*size = 0;
	LOOM_TRY(loom_store_check_key(key, "read"));
	if (len == 0) {
		loom_store_entry e;
		LOOM_TRY(gcs_get_metadata(s, key, &e, NULL, NULL, 0));
		*size = e.size;
		return 0;
	}
	snprintf(range, sizeof(range), "bytes=-%zu", len);
	LOOM_TRY(get_media(s, key, range, UINT64_MAX, dst, len, &first, nread, size));
	if (*size == UINT64_MAX) { /* 416: an empty object */
		loom_store_entry e;
		LOOM_TRY(gcs_get_metadata(s, key, &e, NULL, NULL, 0));
		*size = e.size;
		*nread = 0;
	}
	return 0;
}

int gcs_get_metadata(gcs_store *s, const char *key, loom_store_entry *out, int64_t *generation,
                     char *custom, size_t custom_cap)
{
	gcs_call c;
	http_response r = HTTP_RESPONSE_INIT;
	json_t *root = NULL, *v, *meta;
	int rc;

	if (custom_cap)
		custom[0] = '\0';
	gcs_call_init(&c, "GET", GCS_API_OBJECTS, key, LOOM_STORE_REQ_HEAD);
	c.req.max_body = 1 << 20;
	if ((rc = gcs_send(s, &c, &r)) < 0)
		goto done;
	if (r.status != 200) {
		rc = gcs_status_error(s, &c, &r, 0);
		goto done;
	}
	root = json_loadb(r.body.ptr ? r.body.ptr : "", r.body.size, 0, NULL);
	if (!json_is_object(root)) {
		rc = loom_err(LOOM_EIO, LOOM_ERRCLASS_STORE,
		              "GET bucket \"%s\" object \"%s%s\": the metadata is not a JSON object",
		              s->bucket, s->prefix, key);
		goto done;
	}
	memset(out, 0, sizeof(*out));
	out->key = key;
	out->size = (uint64_t)json_int64_of(json_object_get(root, "size"));
	if (json_is_string(v = json_object_get(root, "updated")) &&
	    httpdate_parse_iso8601(json_string_value(v), &out->mtime_ms) < 0)
		loom_error_clear();
	if (generation)
		*generation = json_int64_of(json_object_get(root, "generation"));
	meta = json_object_get(root, "metadata");
	if (custom_cap && json_is_string(v = json_object_get(meta, "loom-upload")))
		snprintf(custom, custom_cap, "%s", json_string_value(v));
done:
	json_decref(root);
	http_call_dispose(&c);
	http_response_dispose(&r);
	return rc;
}

static int gcs_stat(loom_store *st, const char *key, loom_store_entry *out)
{
	LOOM_TRY(loom_store_check_key(key, "stat"));
	return gcs_get_metadata((gcs_store *)st, key, out, NULL, NULL, 0);
}

int gcs_holds_bytes(gcs_store *s, const char *key, const void *data, size_t len)
{
	uint8_t *buf = loom_malloc(len + 1);
	char range[64];
	size_t got = 0;
	uint64_t first = 0, size = 0;
	int rc;
	if (!buf)
		return loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_STORE, "out of memory");
	snprintf(range, sizeof(range), "bytes=0-%zu", len);
	rc = get_media(s, key, range, 0, buf, len + 1, &first, &got, &size);
	if (rc == 0)
		rc = size == len && got == len && (len == 0 || memcmp(buf, data, len) == 0);
	else if (rc == LOOM_ENOTFOUND)
		rc = 0; /* gone meanwhile: not ours to claim */
	else
		loom_err_wrap("a create-only upload answered 412 and reading the object back failed "
		              "(cannot tell whether an earlier attempt of ours wrote it)");
	loom_free(buf);
	return rc;
}

/* ---- key_of ------------------------------------------------------------------------ */

/* "gs://" or "gcs://" (any case): the length of the scheme part, else 0. */
static size_t gcs_scheme(const char *uri)
{
	if (strncasecmp(uri, "gs://", 5) == 0)
		return 5;
	if (strncasecmp(uri, "gcs://", 6) == 0)
		return 6;
	return 0;
}

static int gcs_key_of(loom_store *st, const char *location, const char **key)
{
	gcs_store *s = (gcs_store *)st;
	size_t n = gcs_scheme(location), blen = strlen(s->bucket), plen = strlen(s->prefix);
	const char *p = location + n;

	*key = NULL;
	if (n && strncmp(p, s->bucket, blen) == 0 && p[blen] == '/') {
		p += blen;
		while (*p == '/')
			p++;
		if (strncmp(p, s->prefix, plen) == 0 && p[plen] && p[plen] != '/') {
			*key = p + plen;
			if (loom_store_check_key(*key, "key_of") == 0)
				return 0;
			loom_error_clear();
		}
	}
	*key = NULL;
	return loom_err(LOOM_ENOTFOUND, LOOM_ERRCLASS_STORE, "%s is not inside the table root %s",
	                location, s->root_uri);
}

/* ---- the store -------------------------------------------------------------------------- */

static void gcs_free(loom_store *st)
{
	gcs_store *s = (gcs_store *)st;
	gcs_auth_free(s->auth);
	part_pool_dispose(&s->chunks);
	http_store_dispose(&s->h);
	loom_free(s->bucket);
	loom_free(s->prefix);
	loom_free(s->root_uri);
	loom_free(s->base_url);
	loom_free(s);
}

#define OPEN_ERR(...) loom_err(LOOM_EINVAL, LOOM_ERRCLASS_STORE, __VA_ARGS__)

/* gs://bucket/path: bucket and prefix ("" or "path/"), percent-decoding
 * nothing (object names are taken as typed). */
static int parse_uri(gcs_store *s, const char *uri, const store_config *cfg)
{
	const char *p = uri + gcs_scheme(uri), *slash, *bucket_opt;
	size_t blen, n;

	if (p == uri)
		return OPEN_ERR("%s: not a gs:// or gcs:// URI", uri);
	if (strchr(uri, '?') || strchr(uri, '#'))
		return OPEN_ERR("%s: a GCS table URI has no query or fragment", uri);
	blen = strcspn(p, "/");
	bucket_opt = gcs_opt(cfg, OPT_BUCKET, NULL);
	if (blen == 0 && !bucket_opt)
		return OPEN_ERR("%s: no bucket: write gs://BUCKET/path", uri);
	if (blen == 0) {
		s->bucket = loom_strdup(bucket_opt);
	} else {
		if (blen < 3 || blen > 222 || strspn(p, "abcdefghijklmnopqrstuvwxyz0123456789-_.") < blen)
			return OPEN_ERR("%s: \"%.*s\" is not a GCS bucket name (3-222 characters: lower-case "
			                "letters, digits, '-', '_' and '.')", uri, (int)blen, p);
		s->bucket = loom_strndup(p, blen);
	}
	if (!s->bucket)
		return OOM();
	slash = p + blen;
	while (*slash == '/')
		slash++;
	n = strlen(slash);
	while (n && slash[n - 1] == '/')
		n--;
	if (!(s->prefix = loom_malloc(n + 2)))
		return OOM();
	memcpy(s->prefix, slash, n);
	s->prefix[n] = '\0';
	if (n) {
		if (loom_store_check_key(s->prefix, "open") < 0)
			return loom_err_wrap("%s: a bad path in the bucket", uri);
		strcat(s->prefix, "/");
	}
	if (!(s->root_uri = loom_malloc(strlen(s->bucket) + n + 8)))
		return OOM();
	sprintf(s->root_uri, "gs://%s%s%.*s", s->bucket, n ? "/" : "", (int)n, slash);
	return 0;
}

/* The API base: STORAGE_EMULATOR_HOST (unsigned requests) or an endpoint
 * option, else Google's. "host:port" means http://host:port. */
static int setup_base(gcs_store *s, const store_config *cfg, int *no_auth)
{
	const char *emu = store_opt(cfg, "storage_emulator_host", "STORAGE_EMULATOR_HOST");
	const char *endpoint = gcs_opt(cfg, OPT_ENDPOINT, NULL);
	const char *base = endpoint ? endpoint : emu;
	size_t n;
	*no_auth = emu != NULL || endpoint != NULL;
	if (!base)
		base = GCS_DEFAULT_BASE;
	n = strlen(base);
	while (n && base[n - 1] == '/')
		n--;
	if (strstr(base, "://")) {
		if (strncasecmp(base, "http://", 7) != 0 && strncasecmp(base, "https://", 8) != 0)
			return OPEN_ERR("%s: the GCS endpoint \"%.*s\" must be http(s)://HOST[:PORT]", s->root_uri,
			                (int)n, base);
		s->base_url = loom_strndup(base, n);
	} else if (n) {
		if (!(s->base_url = loom_malloc(n + 8)))
			return OOM();
		sprintf(s->base_url, "http://%.*s", (int)n, base);
	} else {
		return OPEN_ERR("%s: the GCS endpoint is empty", s->root_uri);
	}
	return s->base_url ? 0 : OOM();
}

static int setup_upload(gcs_store *s, const store_config *cfg)
{
	LOOM_TRY(store_opt_uint(cfg, "multipart_part_size", "LOOM_MULTIPART_PART_SIZE", DEFAULT_CHUNK,
	                        MAX_CHUNK, &s->chunk_size));
	/* resumable chunks are whole multiples of 256 KiB */
	s->chunk_size -= s->chunk_size % GCS_CHUNK_QUANTUM;
	/* smaller pages: tests walk pageToken without thousands of objects */
	LOOM_TRY(store_opt_uint(cfg, "list_page_size", "LOOM_LIST_PAGE_SIZE", 1000, 1000, &s->list_page));
	if (s->list_page == 0)
		s->list_page = 1000;
	if (s->chunk_size < GCS_CHUNK_QUANTUM)
		s->chunk_size = GCS_CHUNK_QUANTUM;
	return part_pool_init(&s->chunks, (size_t)s->chunk_size, 2);
}

static int setup(gcs_store *s, const char *uri, const store_config *cfg)
{
	static const http_client_labels labels = { "bucket", "object", "token endpoint" };
	int no_auth;
	LOOM_TRY(store_config_secrets(cfg, &s->h.secrets));
	LOOM_TRY(parse_uri(s, uri, cfg));
	LOOM_TRY(setup_base(s, cfg, &no_auth));
	LOOM_TRY(setup_upload(s, cfg));
	/* the credentials first: the clients copy the secrets they mask */
	LOOM_TRY(gcs_auth_new(&s->auth, cfg, no_auth, &s->h.secrets));
	LOOM_TRY(http_store_connect(&s->h, cfg, &labels));
	gcs_auth_set_http(s->auth, s->h.token_http);
	return 0;
}

static const loom_store GCS_METHODS = {
	.read_range = gcs_read_range,
	.stat = gcs_stat,
	.put = gcs_put,
	.writer_open = gcs_writer_open,
	.list = gcs_list,
	.remove = gcs_remove,
	.free = gcs_free,
	.read_tail = gcs_read_tail,
	.remove_many = gcs_remove_many,
	.key_of = gcs_key_of,
};

int store_gcs_open(loom_store **out, const char *uri, const store_config *cfg)
{
	gcs_store *s;
	int rc;

	*out = NULL;
	if (!(s = loom_calloc(1, sizeof(*s))))
		return OOM();
	http_store_init(&s->h);
	atomic_init(&s->batch_unsupported, 0);
	if ((rc = setup(s, uri, cfg)) < 0)
		return http_store_open_failed(&s->h, gcs_free, rc);
	http_store_methods(&s->h, &GCS_METHODS, "gcs", s->root_uri);
	*out = &s->h.base;
	return 0;
}
