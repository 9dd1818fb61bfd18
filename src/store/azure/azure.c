/* store/azure/azure.c - the Azure Blob Storage backend: opening a root, and the
 * requests its methods are made of (Get Blob with x-ms-range, Get Blob
 * Properties, Put Blob; List Blobs in azure_list.c, deletes in
 * azure_batch.c, block uploads in azure_writer.c). Container and blob are named in every
 * error, with the HTTP status and the service's error code. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "store/azure/azure_int.h"
#include "store/http/encode.h"
#include "store/http/httpdate.h"
#include "util/alloc.h"
#include "util/clock.h"
#include "util/error.h"

static const char *const OPT_ACCOUNT[] = { "azure_storage_account_name", "account_name", NULL };
static const char *const OPT_ENDPOINT[] = { "azure_storage_endpoint", "azure_endpoint", "endpoint",
	                                        NULL };
static const char *const OPT_EMULATOR[] = { "azure_storage_use_emulator", "use_emulator", NULL };
static const char *const OPT_ALLOW_HTTP[] = { "azure_allow_http", "allow_http", NULL };

#define DEFAULT_BLOCK_SIZE ((uint64_t)8 << 20)
#define MIN_BLOCK_SIZE ((uint64_t)64 << 10)
#define MAX_BLOCK_SIZE ((uint64_t)4000 << 20)
#define DEFAULT_UPLOAD_PARALLEL 4

/* ---- one request ---------------------------------------------------------- */

int azure_blob_name(const azure_store *s, const char *key, loom_buf *out)
{
	loom_buf_clear(out);
	LOOM_TRY(loom_buf_puts(out, s->prefix));
	return loom_buf_puts(out, key);
}

/* The encoded URL path of the container, or of a blob in it. */
static int url_path(const azure_store *s, const char *blob, loom_buf *out)
{
	LOOM_TRY(loom_buf_puts(out, s->url_path_base));
	LOOM_TRY(loom_buf_putc(out, '/'));
	LOOM_TRY(enc_uri(out, s->container, strlen(s->container), 0));
	if (blob) {
		LOOM_TRY(loom_buf_putc(out, '/'));
		LOOM_TRY(enc_uri(out, blob, strlen(blob), ENC_KEEP_SLASH));
	}
	return 0;
}

static int query(const azure_call *c, const char *sas, loom_buf *out)
{
	size_t i;
	for (i = 0; i < c->n_params; i++) {
		LOOM_TRY(loom_buf_putc(out, i ? '&' : '?'));
		LOOM_TRY(enc_uri(out, c->params[i].key, strlen(c->params[i].key), 0));
		LOOM_TRY(loom_buf_putc(out, '='));
		LOOM_TRY(enc_uri(out, c->params[i].value, strlen(c->params[i].value), 0));
	}
	if (sas) {
		LOOM_TRY(loom_buf_putc(out, c->n_params ? '&' : '?'));
		LOOM_TRY(loom_buf_puts(out, sas));
	}
	return 0;
}

static int sends_body(const http_request *r)
{
	return r->body_len > 0 || r->read_body || strcmp(r->method, "PUT") == 0 ||
	       strcmp(r->method, "POST") == 0;
}

int azure_send(azure_store *s, azure_call *c, http_response *resp)
{
	loom_buf blob = LOOM_BUF_INIT, path = LOOM_BUF_INIT, url = LOOM_BUF_INIT, auth = LOOM_BUF_INIT;
	loom_kv headers[HTTP_CALL_MAX_HEADERS + 3];
	char date[HTTPDATE_RFC1123_LEN];
	azure_sign_input in;
	size_t n = 0, i;
	int rc = 0;

	if (c->key)
		rc = azure_blob_name(s, c->key, &blob);
	if (rc == 0)
		rc = url_path(s, c->key ? blob.ptr : NULL, &path);
	if (rc == 0)
		rc = loom_buf_printf(&url, "%s%s", s->service_url, path.ptr);
	if (rc == 0)
		rc = query(c, azure_auth_sas(s->auth), &url);
	if (rc < 0)
		goto done;
	httpdate_rfc1123(loom_clock_wall_ms(loom_clock_system()), date);
	for (i = 0; i < c->n_headers; i++)
		headers[n++] = c->headers[i];
	headers[n].key = "x-ms-date";
	headers[n++].value = date;
	headers[n].key = "x-ms-version";
	headers[n++].value = AZURE_API_VERSION;
	in.method = c->method;
	in.url_path = path.ptr;
	in.params = c->params;
	in.n_params = c->n_params;
	in.headers = headers;
	in.n_headers = n;
	in.content_length = sends_body(&c->req) ? c->req.body_len : 0;
	if ((rc = azure_auth_authorization(s->auth, &in, &auth)) < 0)
		goto done;
	rc = http_call_send(s->h.http, c, url.ptr, headers, n, auth.size ? auth.ptr : NULL,
	                    s->container, c->key ? blob.ptr : NULL, resp);
done:
	loom_buf_dispose(&blob);
	loom_buf_dispose(&path);
	loom_buf_dispose(&url);
	if (auth.ptr)
		memset(auth.ptr, 0, auth.size);
	loom_buf_dispose(&auth);
	return rc;
}

int azure_status_error(azure_store *s, azure_call *c, const http_response *resp, int code)
{
	loom_buf blob = LOOM_BUF_INIT;
	const char *key = c->req.key;
	int rc;
	if (!key && c->key && azure_blob_name(s, c->key, &blob) == 0)
		key = blob.ptr;
	c->req.target = s->container;
	c->req.key = key;
	rc = http_status_error(s->h.http, &c->req, resp, code);
	if (c->req.key == blob.ptr)
		c->req.key = NULL;
	loom_buf_dispose(&blob);
	return rc;
}

/* ---- reads ------------------------------------------------------------------ */

typedef struct into_mem {
	uint8_t *dst;
	size_t cap;
} into_mem;

static int write_mem(void *ctx, uint64_t offset, const void *data, size_t len)
{
	into_mem *m = ctx;
	if (offset > m->cap || len > m->cap - offset)
		return loom_err(LOOM_EIO, LOOM_ERRCLASS_STORE,
		                "the service sent more bytes than the range asked for");
	memcpy(m->dst + offset, data, len);
	return 0;
}

/* "bytes 0-99/1234": the total size. */
static int content_range_size(const http_response *r, uint64_t *size)
{
	uint64_t first;
	return http_content_range(r, &first, size);
}

/* GET bytes [offset, offset + len) into dst. *nread the count; *size the
 * blob's size when known (NULL: not wanted). A range starting at or past
 * the end reads nothing. */
static int get_range(azure_store *s, const char *key, uint64_t offset, size_t len, void *dst,
                     size_t *nread, uint64_t *size)
{
	azure_call c;
	http_response r = HTTP_RESPONSE_INIT;
	into_mem m = { dst, len };
	char range[64];
	int rc;

	*nread = 0;
	if (len == 0)
		return 0;
	snprintf(range, sizeof(range), "bytes=%llu-%llu", (unsigned long long)offset,
	         (unsigned long long)(offset + len - 1));
	http_call_init(&c, "GET", key, LOOM_STORE_REQ_GET);
	c.req.write_body = write_mem;
	c.req.write_ctx = &m;
	if ((rc = http_call_header(&c, "x-ms-range", range)) == 0)
		rc = azure_send(s, &c, &r);
	if (rc < 0)
		goto done;
	if (r.status == 206 || r.status == 200) {
		uint64_t total = 0;
		int known = content_range_size(&r, &total);
		if (r.status == 200) { /* the whole blob: keep what was asked for */
			total = r.body_bytes;
			known = 1;
		}
		*nread = (size_t)(r.body_bytes < len ? r.body_bytes : len);
		if (known && offset < total && *nread < len && *nread != total - offset) {
			rc = loom_err(LOOM_ETRANSIENT, LOOM_ERRCLASS_STORE,
			              "GET container \"%s\" blob \"%s%s\": %zu bytes arrived of %llu",
			              s->container, s->prefix, key, *nread,
			              (unsigned long long)(total - offset));
			goto done;
		}
		if (size)
			*size = known ? total : offset + *nread;
	} else if (r.status == 416) {
		/* InvalidRange: the blob is shorter than offset */
		if (size && !content_range_size(&r, size))
			*size = UINT64_MAX;
	} else {
		rc = azure_status_error(s, &c, &r, 0);
	}
done:
	http_call_dispose(&c);
	http_response_dispose(&r);
	return rc;
}

static int azure_read_range(loom_store *st, const char *key, uint64_t offset, size_t len,
                            void *dst, size_t *nread)
{
	LOOM_TRY(loom_store_check_key(key, "read"));
	return get_range((azure_store *)st, key, offset, len, dst, nread, NULL);
}

static int azure_stat(loom_store *st, const char *key, loom_store_entry *out)
{
	azure_store *s = (azure_store *)st;
	azure_call c;
	http_response r = HTTP_RESPONSE_INIT;
	char v[128];
	int rc;

	LOOM_TRY(loom_store_check_key(key, "stat"));
	http_call_init(&c, "HEAD", key, LOOM_STORE_REQ_HEAD);
	if ((rc = azure_send(s, &c, &r)) < 0)
		goto done;
	if (r.status != 200) {
		rc = azure_status_error(s, &c, &r, 0);
		goto done;
	}
	memset(out, 0, sizeof(*out));
	out->key = key;
	if (http_header(&r, "Content-Length", v, sizeof(v)))
		out->size = strtoull(v, NULL, 10);
	if (http_header(&r, "Last-Modified", v, sizeof(v)) &&
	    httpdate_parse_rfc1123(v, &out->mtime_ms) < 0)
		loom_error_clear();
	/* a directory of an account with a hierarchical namespace */
	if (http_header(&r, "x-ms-meta-hdi_isfolder", v, sizeof(v)) && strcasecmp(v, "true") == 0)
		out->is_dir = 1;
done:
	http_call_dispose(&c);
	http_response_dispose(&r);
	return rc;
}

/* Azure has no suffix range: the first `len` bytes come first, and with
 * them the size; a blob longer than that takes a second GET for its end.
 * Small blobs (commits, a small Parquet file) are one request. */
static int azure_read_tail(loom_store *st, const char *key, size_t len, void *dst,
                           size_t *nread, uint64_t *size)
{
	azure_store *s = (azure_store *)st;
	*size = 0;
	LOOM_TRY(loom_store_check_key(key, "read"));
	LOOM_TRY(get_range(s, key, 0, len, dst, nread, size));
	if (*size == UINT64_MAX) { /* 416 on offset 0: an empty blob */
		loom_store_entry e;
		LOOM_TRY(azure_stat(st, key, &e));
		*size = e.size;
		*nread = 0;
		return 0;
	}
	if (*size <= len)
		return 0;
	return get_range(s, key, *size - len, len, dst, nread, NULL);
}

/* ---- writes ------------------------------------------------------------------ */

/* After a retried create-only Put Blob was refused: is the blob there the
 * one we sent (our first attempt landed, its answer was lost)? */
static int is_ours(azure_store *s, const char *key, const void *data, size_t len)
{
	uint8_t *buf = loom_malloc(len + 1);
	size_t got = 0;
	uint64_t size = 0;
	int same;
	if (!buf)
		return 0;
	same = get_range(s, key, 0, len + 1, buf, &got, &size) == 0 && got == len &&
	       (len == 0 || memcmp(buf, data, len) == 0);
	loom_free(buf);
	loom_error_clear();
	return same;
}

int azure_put_blob(azure_store *s, const char *key, const void *data, size_t len,
                   unsigned int flags)
{
	azure_call c;
	http_response r = HTTP_RESPONSE_INIT;
	int rc;

	http_call_init(&c, "PUT", key, LOOM_STORE_REQ_PUT);
	c.req.body = data;
	c.req.body_len = len;
	c.req.idempotent = 1; /* a create-only retry that finds our own blob: see below */
	rc = http_call_header(&c, "x-ms-blob-type", "BlockBlob");
	if (rc == 0 && (flags & LOOM_PUT_IF_ABSENT))
		rc = http_call_header(&c, "If-None-Match", "*");
	if (rc == 0)
		rc = azure_send(s, &c, &r);
	if (rc < 0)
		goto done;
	if (r.status == 201 || r.status == 200)
		goto done;
	if ((flags & LOOM_PUT_IF_ABSENT) && (r.status == 409 || r.status == 412)) {
		/* BlobAlreadyExists (409) or ConditionNotMet (412): the version is
		 * taken - unless an earlier attempt of this very request wrote it.
		 * Always look: curl itself sends a request again when a reused
		 * connection dies under it, so even a first attempt by our count
		 * may have been the second on the wire. (Loom's commits carry a
		 * random txnId: another writer's bytes are never the same.) */
		if (is_ours(s, key, data, len))
			goto done;
		rc = azure_status_error(s, &c, &r, LOOM_EEXISTS);
		goto done;
	}
	rc = azure_status_error(s, &c, &r, 0);
done:
	http_call_dispose(&c);
	http_response_dispose(&r);
	return rc;
}

static int azure_put(loom_store *st, const char *key, const void *data, size_t len,
                     unsigned int flags)
{
	azure_store *s = (azure_store *)st;
	loom_store_writer *w;
	int rc;
	LOOM_TRY(loom_store_check_key(key, "put"));
	if (len <= s->block_size)
		return azure_put_blob(s, key, data, len, flags);
	/* large: blocks in parallel, then the block list */
	LOOM_TRY(azure_writer_open(st, key, flags, &w));
	if ((rc = w->write(w, data, len)) < 0) {
		w->abort(w);
		return rc;
	}
	return w->commit(w);
}

/* ---- the store ---------------------------------------------------------------- */

static void azure_free(loom_store *st)
{
	azure_store *s = (azure_store *)st;
	azure_auth_free(s->auth);
	part_pool_dispose(&s->blocks);
	http_store_dispose(&s->h);
	loom_free(s->account);
	loom_free(s->account_url);
	loom_free(s->service_url);
	loom_free(s->url_path_base);
	loom_free(s->container);
	loom_free(s->prefix);
	loom_free(s->root_uri);
	loom_free(s->endpoint);
	loom_free(s);
}

#define OPEN_ERR(...) loom_err(LOOM_EINVAL, LOOM_ERRCLASS_STORE, __VA_ARGS__)

/* The account an endpoint URL names: its host's first label
 * (account.blob.core.windows.net) or its path's first segment
 * (http://127.0.0.1:10000/devstoreaccount1). */
static int account_of_endpoint(const char *endpoint, char **out)
{
	const char *host = strstr(endpoint, "://"), *end, *slash;
	if (!host)
		return 0;
	host += 3;
	end = host + strcspn(host, "/");
	if (*end == '/' && end[1]) {
		slash = end + 1;
		*out = loom_strndup(slash, strcspn(slash, "/"));
	} else {
		*out = loom_strndup(host, strcspn(host, ".:/"));
	}
	return *out ? 1 : loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_STORE, "out of memory");
}

/* Split an account URL into "scheme://authority" and its path. */
static int split_account_url(azure_store *s, const char *url, size_t len, int allow_http,
                             const char *shown)
{
	const char *host = strstr(url, "://"), *path;
	size_t plen;
	while (len && url[len - 1] == '/')
		len--;
	if (!host || (size_t)(host - url) >= len)
		return OPEN_ERR("%s: the blob endpoint \"%.*s\" is not a URL", shown, (int)len, url);
	if (!(strncasecmp(url, "https://", 8) == 0 || (allow_http && strncasecmp(url, "http://", 7) == 0)))
		return OPEN_ERR("%s: the blob endpoint \"%.*s\" must be https:// (http:// only with "
		                "AZURE_STORAGE_USE_EMULATOR or AZURE_ALLOW_HTTP)", shown, (int)len, url);
	path = host + 3 + strcspn(host + 3, "/");
	if (path > url + len)
		path = url + len;
	plen = (size_t)(url + len - path);
	if (!(s->account_url = loom_strndup(url, len)) ||
	    !(s->service_url = loom_strndup(url, (size_t)(path - url))) ||
	    !(s->url_path_base = loom_strndup(path, plen)))
		return loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_STORE, "out of memory");
	return 0;
}

static int setup_endpoint(azure_store *s, const store_config *cfg, const azure_uri *u,
                          const char *endpoint, int emulator, int allow_http, const char *shown)
{
	const char *account = u->account;
	char *derived = NULL;
	loom_buf url = LOOM_BUF_INIT;
	int rc = 0;

	if (!account)
		account = azure_opt(cfg, OPT_ACCOUNT, NULL);
	if (!account && endpoint)
		rc = account_of_endpoint(endpoint, &derived), account = derived;
	if (!account && emulator)
		account = AZURE_EMULATOR_ACCOUNT;
	if (rc < 0)
		goto done;
	if (!account) {
		rc = OPEN_ERR("%s: no storage account: set AZURE_STORAGE_ACCOUNT_NAME, or name it in the "
		              "URI (abfss://CONTAINER@ACCOUNT.dfs.core.windows.net/path)", shown);
		goto done;
	}
	if (!(s->account = loom_strdup(account))) {
		rc = loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_STORE, "out of memory");
		goto done;
	}
	if (u->form == AZURE_URI_ENDPOINT) {
		rc = loom_buf_puts(&url, u->account_url);
	} else if (endpoint) {
		rc = loom_buf_puts(&url, endpoint);
	} else if (emulator) {
		const char *base = cfg->use_env ? getenv("AZURITE_BLOB_STORAGE_URL") : NULL;
		size_t n;
		if (!base || !*base)
			base = "http://127.0.0.1:10000";
		n = strlen(base);
		while (n && base[n - 1] == '/')
			n--;
		rc = loom_buf_printf(&url, "%.*s/%s", (int)n, base, account);
	} else {
		rc = loom_buf_printf(&url, "https://%s.blob.%s", account,
		                     u->dns_suffix ? u->dns_suffix : "core.windows.net");
	}
	if (rc == 0)
		rc = split_account_url(s, url.ptr, url.size, emulator || allow_http, shown);
done:
	loom_free(derived);
	loom_buf_dispose(&url);
	return rc;
}

static int setup_upload(azure_store *s, const store_config *cfg)
{
	uint64_t par;
	LOOM_TRY(store_opt_size(cfg, "multipart_part_size", "LOOM_MULTIPART_PART_SIZE",
	                        DEFAULT_BLOCK_SIZE, MAX_BLOCK_SIZE, &s->block_size));
	if (s->block_size < MIN_BLOCK_SIZE)
		return OPEN_ERR("%s: option multipart_part_size is %llu, at least %llu bytes", s->root_uri,
		                (unsigned long long)s->block_size, (unsigned long long)MIN_BLOCK_SIZE);
	LOOM_TRY(store_opt_uint(cfg, "upload_concurrency", "LOOM_UPLOAD_CONCURRENCY",
	                        DEFAULT_UPLOAD_PARALLEL, 64, &par));
	s->upload_parallel = par ? (unsigned int)par : 1;
	return part_pool_init(&s->blocks, (size_t)s->block_size, s->upload_parallel + 1);
}

static int setup(azure_store *s, const char *uri, const store_config *cfg, azure_uri *u)
{
	static const http_client_labels labels = { "container", "blob", "tenant" };
	char shown[512];
	const char *endpoint = azure_opt(cfg, OPT_ENDPOINT, NULL);
	int emulator, allow_http, rc;
	size_t n;

	snprintf(shown, sizeof(shown), "%.*s", (int)strcspn(uri, "?"), uri);
	LOOM_TRY(store_opt_first_bool(cfg, OPT_EMULATOR, "azure_", &emulator));
	LOOM_TRY(store_opt_first_bool(cfg, OPT_ALLOW_HTTP, "azure_", &allow_http));
	if (endpoint && !(s->endpoint = loom_strdup(endpoint)))
		return loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_STORE, "out of memory");
	s->hints.endpoint = s->endpoint;
	s->hints.emulator = emulator;
	s->hints.decode = 1;
	rc = azure_uri_parse(uri, &s->hints, u);
	s->hints.decode = 0; /* key_of reads decoded log paths */
	if (rc != 0)
		return rc;
	n = strlen(shown);
	while (n && shown[n - 1] == '/')
		shown[--n] = '\0';
	if (!(s->root_uri = loom_strdup(shown)) || !(s->container = loom_strdup(u->container)) ||
	    !(s->prefix = loom_malloc(strlen(u->path) + 2)))
		return loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_STORE, "out of memory");
	strcpy(s->prefix, u->path);
	if (*u->path)
		strcat(s->prefix, "/");
	LOOM_TRY(setup_endpoint(s, cfg, u, s->endpoint, emulator, allow_http, shown));
	LOOM_TRY(store_config_secrets(cfg, &s->h.secrets));
	LOOM_TRY(setup_upload(s, cfg));
	/* the credentials first: the clients copy the secrets they mask */
	LOOM_TRY(azure_auth_new(&s->auth, cfg, s->account, emulator, u->query, &s->h.secrets));
	LOOM_TRY(http_store_connect(&s->h, cfg, &labels));
	azure_auth_set_http(s->auth, s->h.token_http);
	return 0;
}

static const loom_store AZURE_METHODS = {
	.read_range = azure_read_range,
	.stat = azure_stat,
	.put = azure_put,
	.writer_open = azure_writer_open,
	.list = azure_list,
	.remove = azure_remove,
	.free = azure_free,
	.read_tail = azure_read_tail,
	.remove_many = azure_remove_many,
	.key_of = azure_key_of,
};

int store_azure_open(loom_store **out, const char *uri, const store_config *cfg)
{
	azure_store *s;
	azure_uri u;
	int rc;

	*out = NULL;
	if (!(s = loom_calloc(1, sizeof(*s))))
		return loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_STORE, "out of memory");
	http_store_init(&s->h);
	atomic_init(&s->batch_unsupported, 0);
	memset(&u, 0, sizeof(u));
	rc = setup(s, uri, cfg, &u);
	azure_uri_dispose(&u);
	if (rc != 0)
		return http_store_open_failed(&s->h, azure_free,
		                              rc == AZURE_URI_NOT_AZURE ? STORE_OPEN_DECLINED : rc);
	http_store_methods(&s->h, &AZURE_METHODS, "azure", s->root_uri);
	*out = &s->h.base;
	return 0;
}
