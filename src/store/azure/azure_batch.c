/* store/azure/azure_batch.c - deleting blobs: Delete Blob for one, Blob Batch
 * for many (a multipart/mixed POST of up to 256 DELETE sub-requests, each
 * authorized on its own, answered by one sub-response each). A service
 * that refuses batches (accounts with a hierarchical namespace did for a
 * long time) gets the deletes one by one, several in flight. A missing
 * blob counts as deleted; a missing container does not. */
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
#include "util/threadpool.h"
#include "util/uuid.h"

#define BATCH_MAX 256
#define SINGLE_DELETE_THREADS 8

/* A failed delete's code, with the thread's error set. 0 for success and
 * for a blob that is already gone. */
static int delete_result(azure_store *s, azure_call *c, const http_response *r)
{
	char code[64], msg[8];
	if (r->status == 202 || r->status == 200)
		return 0;
	http_service_error(r, code, sizeof(code), msg, sizeof(msg));
	if (r->status == 404 && strcmp(code, "BlobNotFound") == 0)
		return 0;
	return azure_status_error(s, c, r, 0);
}

int azure_remove(loom_store *st, const char *key)
{
	azure_store *s = (azure_store *)st;
	azure_call c;
	http_response r = HTTP_RESPONSE_INIT;
	int rc;

	LOOM_TRY(loom_store_check_key(key, "delete"));
	azure_call_init(&c, "DELETE", key, LOOM_STORE_REQ_DELETE);
	if ((rc = azure_send(s, &c, &r)) == 0)
		rc = delete_result(s, &c, &r);
	azure_call_dispose(&c);
	http_response_dispose(&r);
	return rc;
}

/* ---- one by one, in parallel ------------------------------------------------ */

typedef struct singles {
	azure_store *s;
	const char *const *keys;
} singles;

static int remove_one(void *ctx, size_t i)
{
	singles *g = ctx;
	return azure_remove(&g->s->base, g->keys[i]);
}

static int remove_singles(azure_store *s, const char *const *keys, size_t n, int *results)
{
	singles g = { s, keys };
	return loom_parallel_for(n, SINGLE_DELETE_THREADS, remove_one, &g, results);
}

/* ---- Blob Batch -------------------------------------------------------------- */

static int append_subrequest(azure_store *s, loom_buf *body, const char *boundary, size_t id,
                             const char *key, const char *date)
{
	loom_buf blob = LOOM_BUF_INIT, path = LOOM_BUF_INIT, auth = LOOM_BUF_INIT;
	loom_kv headers[1] = { { "x-ms-date", date } };
	azure_sign_input in;
	const char *sas = azure_auth_sas(s->auth);
	int rc;

	memset(&in, 0, sizeof(in));
	rc = azure_blob_name(s, key, &blob);
	if (rc == 0)
		rc = loom_buf_puts(&path, s->url_path_base);
	if (rc == 0)
		rc = loom_buf_putc(&path, '/');
	if (rc == 0)
		rc = enc_uri(&path, s->container, strlen(s->container), 0);
	if (rc == 0)
		rc = loom_buf_putc(&path, '/');
	if (rc == 0)
		rc = enc_uri(&path, blob.ptr, blob.size, ENC_KEEP_SLASH);
	if (rc < 0)
		goto done;
	in.method = "DELETE";
	in.url_path = path.ptr;
	in.headers = headers;
	in.n_headers = 1;
	if ((rc = azure_auth_authorization(s->auth, &in, &auth)) < 0)
		goto done;
	rc = loom_buf_printf(body,
	                     "--%s\r\nContent-Type: application/http\r\nContent-Transfer-Encoding: binary\r\n"
	                     "Content-ID: %zu\r\n\r\nDELETE %s%s%s HTTP/1.1\r\nx-ms-date: %s\r\n",
	                     boundary, id, path.ptr, sas ? "?" : "", sas ? sas : "", date);
	if (rc == 0 && auth.size)
		rc = loom_buf_printf(body, "Authorization: %s\r\n", auth.ptr);
	if (rc == 0)
		rc = loom_buf_puts(body, "Content-Length: 0\r\n\r\n");
done:
	loom_buf_dispose(&blob);
	loom_buf_dispose(&path);
	loom_buf_dispose(&auth);
	return rc;
}

/* The next line of [*p, end): its start and length without CRLF. */
static int next_line(const char **p, const char *end, const char **line, size_t *len)
{
	const char *nl;
	if (*p >= end)
		return 0;
	nl = memchr(*p, '\n', (size_t)(end - *p));
	*line = *p;
	*len = nl ? (size_t)(nl - *p) : (size_t)(end - *p);
	if (*len && (*line)[*len - 1] == '\r')
		(*len)--;
	*p = nl ? nl + 1 : end;
	return 1;
}

static int header_is(const char *line, size_t len, const char *name, const char **value)
{
	size_t n = strlen(name);
	if (len <= n || strncasecmp(line, name, n) != 0 || line[n] != ':')
		return 0;
	*value = line + n + 1;
	while (**value == ' ')
		(*value)++;
	return 1;
}

/* One sub-response: "Content-ID: i" among the part's headers, then
 * "HTTP/1.1 <status> ...", its headers (x-ms-error-code). *id is -1 when
 * the part names none. */
static void parse_part(const char *p, const char *end, long *id, long *status, char *code,
                       size_t code_cap)
{
	const char *line, *v;
	size_t len;
	int in_response = 0;
	*id = -1;
	*status = 0;
	code[0] = '\0';
	while (next_line(&p, end, &line, &len)) {
		if (!in_response) {
			if (header_is(line, len, "Content-ID", &v))
				*id = strtol(v, NULL, 10);
			else if (len > 9 && strncmp(line, "HTTP/1.1 ", 9) == 0) {
				*status = strtol(line + 9, NULL, 10);
				in_response = 1;
			}
		} else if (len == 0) {
			break; /* the body (an XML error) follows */
		} else if (header_is(line, len, "x-ms-error-code", &v)) {
			snprintf(code, code_cap, "%.*s", (int)(line + len - v), v);
		}
	}
}

static int sub_code(long status, const char *code)
{
	if (status == 202 || status == 200 || (status == 404 && strcmp(code, "BlobNotFound") == 0))
		return 0;
	if (status == 404)
		return LOOM_ENOTFOUND;
	if (status == 401 || status == 403)
		return LOOM_EPERM;
	if (retry_status_is_transient(status))
		return LOOM_ETRANSIENT;
	return LOOM_EIO;
}

/* Fill results[] from a 202 batch response; sub-requests with no
 * sub-response are LOOM_EIO. */
static int parse_batch_response(azure_store *s, const http_response *r, const char *const *keys,
                                size_t n, int *results, long *statuses, char (*codes)[64])
{
	char ctype[256], delim[128];
	const char *b, *body = r->body.ptr ? r->body.ptr : "", *end = body + r->body.size, *p, *next;
	size_t i, dl, part = 0;

	for (i = 0; i < n; i++) {
		results[i] = LOOM_EIO;
		statuses[i] = 0;
		codes[i][0] = '\0';
	}
	if (!http_header(r, "Content-Type", ctype, sizeof(ctype)) || !(b = strstr(ctype, "boundary=")))
		return loom_err(LOOM_EIO, LOOM_ERRCLASS_STORE,
		                "POST container \"%s\" (Blob Batch): the response has no multipart boundary",
		                s->container);
	b += 9;
	snprintf(delim, sizeof(delim), "--%.*s", (int)strcspn(b, "; \""), b + (*b == '"'));
	dl = strlen(delim);
	for (p = strstr(body, delim); p && p < end; p = next, part++) {
		long id, status;
		char code[64];
		p += dl;
		if (p + 2 <= end && p[0] == '-' && p[1] == '-')
			break; /* the closing delimiter */
		next = strstr(p, delim);
		parse_part(p, next ? next : end, &id, &status, code, sizeof(code));
		if (id < 0)
			id = (long)part;
		if (id >= 0 && (size_t)id < n) {
			statuses[id] = status;
			snprintf(codes[id], sizeof(codes[id]), "%s", code);
			results[id] = sub_code(status, code);
		}
		if (!next)
			break;
	}
	(void)keys;
	return 0;
}

/* Send one batch of n <= BATCH_MAX keys. 0 with results[] filled (their
 * failures not yet raised), STORE_OPEN_DECLINED when the service refuses
 * batches, or the error of the whole request. */
static int batch_once(azure_store *s, const char *const *keys, size_t n, int *results,
                      long *statuses, char (*codes)[64])
{
	loom_buf body = LOOM_BUF_INIT;
	char boundary[48], uuid[37], date[HTTPDATE_RFC1123_LEN], ctype[96], code[64], msg[8];
	azure_call c;
	http_response r = HTTP_RESPONSE_INIT;
	size_t i;
	int rc;

	LOOM_TRY(loom_uuid_v4_string(uuid));
	snprintf(boundary, sizeof(boundary), "batch_%s", uuid);
	snprintf(ctype, sizeof(ctype), "multipart/mixed; boundary=%s", boundary);
	httpdate_rfc1123(loom_clock_wall_ms(loom_clock_system()), date);
	azure_call_init(&c, "POST", NULL, LOOM_STORE_REQ_DELETE);
	rc = 0;
	for (i = 0; i < n && rc == 0; i++)
		rc = append_subrequest(s, &body, boundary, i, keys[i], date);
	if (rc == 0)
		rc = loom_buf_printf(&body, "--%s--\r\n", boundary);
	if (rc == 0)
		rc = azure_call_param(&c, "restype", "container");
	if (rc == 0)
		rc = azure_call_param(&c, "comp", "batch");
	if (rc == 0)
		rc = azure_call_header(&c, "Content-Type", ctype);
	if (rc < 0)
		goto done;
	c.req.body = body.ptr;
	c.req.body_len = body.size;
	c.req.idempotent = 1; /* deleting again finds the blobs gone: fine */
	c.req.key = "(Blob Batch)";
	if ((rc = azure_send(s, &c, &r)) < 0)
		goto done;
	if (r.status == 202) {
		rc = parse_batch_response(s, &r, keys, n, results, statuses, codes);
		goto done;
	}
	http_service_error(&r, code, sizeof(code), msg, sizeof(msg));
	if (r.status == 400 || r.status == 405 || r.status == 501 ||
	    (r.status == 404 && strcmp(code, "ContainerNotFound") != 0) ||
	    (r.status == 409 && strcmp(code, "FeatureNotSupported") == 0)) {
		rc = STORE_OPEN_DECLINED;
		goto done;
	}
	rc = azure_status_error(s, &c, &r, 0);
done:
	azure_call_dispose(&c);
	http_response_dispose(&r);
	loom_buf_dispose(&body);
	return rc;
}

/* The failure to report: the one of the lowest key index. */
typedef struct first_failure {
	size_t index;        /* SIZE_MAX: none yet */
	loom_error err;
} first_failure;

/* Remember the thread's current error as key `index`'s if it is the first. */
static void note_failure(first_failure *f, size_t index)
{
	if (index < f->index) {
		f->index = index;
		loom_err_copy(&f->err);
	}
}

/* Raise the failure of a key from its sub-response. */
static void sub_error(azure_store *s, const char *key, int code, long status, const char *svc)
{
	loom_err(code, LOOM_ERRCLASS_STORE,
	         "DELETE container \"%s\" blob \"%s%s\" (in a Blob Batch): HTTP %ld%s%s%s", s->container,
	         s->prefix, key, status, svc[0] ? " (" : "", svc, svc[0] ? ")" : "");
}

/* Up to BATCH_MAX keys (offset `base` in the caller's list): the batch,
 * then its transient failures again (the store's retry policy), or one by
 * one when batches are refused. */
static void remove_batch(azure_store *s, const char *const *keys, size_t n, int *results,
                         size_t base, first_failure *ff)
{
	const char *pending[BATCH_MAX];
	size_t where[BATCH_MAX], np = n, i, k;
	int sub[BATCH_MAX];
	long statuses[BATCH_MAX];
	char codes[BATCH_MAX][64];
	unsigned int attempt;
	int rc;

	for (i = 0; i < n; i++) {
		pending[i] = keys[i];
		where[i] = i;
	}
	for (attempt = 1;; attempt++) {
		rc = atomic_load(&s->batch_unsupported) ? STORE_OPEN_DECLINED
		                                        : batch_once(s, pending, np, sub, statuses, codes);
		if (rc == STORE_OPEN_DECLINED) {
			atomic_store(&s->batch_unsupported, 1);
			rc = remove_singles(s, pending, np, sub);
			for (i = 0; i < np; i++)
				results[where[i]] = sub[i];
			for (i = 0; rc < 0 && i < np; i++)
				if (sub[i] < 0) { /* singles raised the first pending failure */
					note_failure(ff, base + where[i]);
					break;
				}
			return;
		}
		if (rc < 0) { /* the whole request failed */
			for (i = 0; i < np; i++)
				results[where[i]] = rc;
			note_failure(ff, base + where[0]);
			return;
		}
		for (i = k = 0; i < np; i++) {
			results[where[i]] = sub[i];
			if (sub[i] == LOOM_ETRANSIENT && attempt < s->retry.max_attempts) {
				pending[k] = pending[i];
				where[k++] = where[i];
			} else if (sub[i] < 0) {
				sub_error(s, pending[i], sub[i], statuses[i], codes[i]);
				note_failure(ff, base + where[i]);
			}
		}
		if (k == 0)
			return;
		np = k;
		store_count_retry(&s->counters);
		retry_sleep_ms(retry_delay_ms(&s->retry, attempt));
	}
}

int azure_remove_many(loom_store *st, const char *const *keys, size_t n, int *results)
{
	azure_store *s = (azure_store *)st;
	first_failure ff;
	size_t off, i;

	ff.index = SIZE_MAX;
	for (i = 0; i < n; i++) {
		results[i] = loom_store_check_key(keys[i], "delete");
		if (results[i] < 0)
			note_failure(&ff, i);
	}
	for (off = 0; off < n;) {
		/* a batch of valid keys, in order */
		const char *batch[BATCH_MAX];
		size_t idx[BATCH_MAX], m = 0;
		int res[BATCH_MAX];
		for (; off < n && m < BATCH_MAX; off++)
			if (results[off] == 0) {
				idx[m] = off;
				batch[m++] = keys[off];
			}
		if (m == 0)
			break;
		if (m == 1 && n == 1) { /* one key: a plain Delete Blob */
			if ((res[0] = azure_remove(st, batch[0])) < 0)
				note_failure(&ff, idx[0]);
		} else {
			first_failure bf;
			bf.index = SIZE_MAX;
			remove_batch(s, batch, m, res, 0, &bf);
			if (bf.index != SIZE_MAX && idx[bf.index] < ff.index) {
				ff.index = idx[bf.index];
				ff.err = bf.err;
			}
		}
		for (i = 0; i < m; i++)
			results[idx[i]] = res[i];
	}
	if (ff.index == SIZE_MAX)
		return 0;
	return loom_err_raise(&ff.err);
}
