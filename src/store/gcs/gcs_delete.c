/* store/gcs/gcs_delete.c - deleting objects: one DELETE for one key; for
 * many, the JSON API's batch endpoint (a multipart/mixed POST of up to 100
 * DELETE sub-requests, answered by one sub-response each, matched by
 * Content-ID). A server without it (the emulator answers 501) gets the
 * deletes one by one, several in flight. A missing object counts as
 * deleted; a missing bucket does not. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "store/gcs/gcs_int.h"
#include "store/http/encode.h"
#include "util/alloc.h"
#include "util/error.h"
#include "util/uuid.h"

#define BATCH_MAX 100
#define SINGLE_DELETE_THREADS 8

/* A 404 names the object or the bucket: only the object's is success. */
static int bucket_missing(const http_response *r)
{
	char code[64], msg[256];
	http_service_error(r, code, sizeof(code), msg, sizeof(msg));
	return strstr(msg, "bucket") != NULL || strstr(msg, "Bucket") != NULL;
}

int gcs_remove(loom_store *st, const char *key)
{
	gcs_store *s = (gcs_store *)st;
	gcs_call c;
	http_response r = HTTP_RESPONSE_INIT;
	int rc;

	LOOM_TRY(loom_store_check_key(key, "delete"));
	gcs_call_init(&c, "DELETE", GCS_API_OBJECTS, key, LOOM_STORE_REQ_DELETE);
	if ((rc = gcs_send(s, &c, &r)) == 0 && r.status != 204 && r.status != 200 &&
	    !(r.status == 404 && !bucket_missing(&r)))
		rc = gcs_status_error(s, &c, &r, 0);
	gcs_call_dispose(&c);
	http_response_dispose(&r);
	return rc;
}

/* ---- one by one, in parallel ---------------------------------------------------- */

typedef struct singles {
	gcs_store *s;
	const char *const *keys;
	int *results;
	size_t n;
	atomic_size_t next;
	pthread_mutex_t lock;
	size_t first_failed;      /* lowest failing index, n when none */
	loom_error first;
} singles;

static void *single_worker(void *arg)
{
	singles *g = arg;
	size_t i;
	while ((i = atomic_fetch_add(&g->next, 1)) < g->n) {
		int rc = gcs_remove(&g->s->base, g->keys[i]);
		g->results[i] = rc;
		if (rc < 0) {
			pthread_mutex_lock(&g->lock);
			if (i < g->first_failed) {
				g->first_failed = i;
				loom_err_copy(&g->first);
			}
			pthread_mutex_unlock(&g->lock);
		}
	}
	return NULL;
}

static int remove_singles(gcs_store *s, const char *const *keys, size_t n, int *results)
{
	pthread_t threads[SINGLE_DELETE_THREADS];
	size_t nt = n < SINGLE_DELETE_THREADS ? n : SINGLE_DELETE_THREADS, started = 0, i;
	singles g;

	memset(&g, 0, sizeof(g));
	g.s = s;
	g.keys = keys;
	g.results = results;
	g.n = n;
	g.first_failed = n;
	atomic_init(&g.next, 0);
	if (pthread_mutex_init(&g.lock, NULL) != 0)
		return loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_STORE, "cannot create a mutex");
	for (i = 1; i < nt; i++)
		if (pthread_create(&threads[started], NULL, single_worker, &g) == 0)
			started++;
	single_worker(&g); /* this thread works too, so one is always enough */
	for (i = 0; i < started; i++)
		pthread_join(threads[i], NULL);
	pthread_mutex_destroy(&g.lock);
	if (g.first_failed < n)
		return loom_err(g.first.code, g.first.klass, "%s", g.first.message);
	return 0;
}

/* ---- the batch endpoint ------------------------------------------------------------ */

static int batch_body(gcs_store *s, const char *const *keys, size_t n, const char *boundary,
                      loom_buf *body)
{
	loom_buf object = LOOM_BUF_INIT, bucket = LOOM_BUF_INIT;
	size_t i;
	int rc = enc_uri(&bucket, s->bucket, strlen(s->bucket), 0);
	for (i = 0; i < n && rc == 0; i++) {
		rc = gcs_object_name(s, keys[i], &object);
		if (rc == 0)
			rc = loom_buf_printf(body, "--%s\r\nContent-Type: application/http\r\nContent-ID: "
			                           "<%zu>\r\n\r\nDELETE /storage/v1/b/%s/o/", boundary, i + 1,
			                     bucket.ptr);
		if (rc == 0)
			rc = enc_uri(body, object.ptr, object.size, 0);
		if (rc == 0)
			rc = loom_buf_puts(body, " HTTP/1.1\r\n\r\n");
	}
	if (rc == 0)
		rc = loom_buf_printf(body, "--%s--\r\n", boundary);
	loom_buf_dispose(&object);
	loom_buf_dispose(&bucket);
	return rc;
}

/* A sub-response's code: 0 for deleted or already gone. */
static int sub_code(long status)
{
	if (status == 204 || status == 200 || status == 404)
		return 0;
	if (status == 401 || status == 403)
		return LOOM_EPERM;
	if (retry_status_is_transient(status))
		return LOOM_ETRANSIENT;
	return LOOM_EIO;
}

/* Fill statuses[] from the multipart answer: each part has a
 * "Content-ID: <response-N>" and an "HTTP/1.1 NNN" line. */
static int parse_batch(gcs_store *s, const http_response *r, size_t n, long *statuses)
{
	char ctype[256], delim[128];
	const char *b, *body = r->body.ptr ? r->body.ptr : "", *end = body + r->body.size, *p;
	size_t i;

	for (i = 0; i < n; i++)
		statuses[i] = 0;
	if (!http_header(r, "Content-Type", ctype, sizeof(ctype)) || !(b = strstr(ctype, "boundary=")))
		return loom_err(LOOM_EIO, LOOM_ERRCLASS_STORE,
		                "POST bucket \"%s\" (batch delete): the answer has no multipart boundary",
		                s->bucket);
	b += 9;
	snprintf(delim, sizeof(delim), "--%.*s", (int)strcspn(b + (*b == '"'), "; \""), b + (*b == '"'));
	for (p = strstr(body, delim); p && p < end;) {
		const char *next, *id, *http;
		long idx = -1;
		p += strlen(delim);
		if (p[0] == '-' && p[1] == '-')
			break;
		next = strstr(p, delim);
		if (!next)
			next = end;
		if ((id = strstr(p, "Content-ID: <response-")) && id < next)
			idx = strtol(id + 22, NULL, 10) - 1;
		if ((http = strstr(p, "\nHTTP/1.")) && http < next && idx >= 0 && (size_t)idx < n)
			statuses[idx] = strtol(http + 9 + strcspn(http + 9, " "), NULL, 10);
		p = next;
	}
	return 0;
}

/* One batch: 0 with results[] filled, STORE_OPEN_DECLINED when the server
 * has no batch endpoint, or the error of the whole request. */
static int batch_once(gcs_store *s, const char *const *keys, size_t n, int *results,
                      long *statuses)
{
	loom_buf body = LOOM_BUF_INIT;
	char uuid[37], boundary[48], ctype[96];
	gcs_call c;
	http_response r = HTTP_RESPONSE_INIT;
	size_t i;
	int rc;

	LOOM_TRY(loom_uuid_v4_string(uuid));
	snprintf(boundary, sizeof(boundary), "loom_%s", uuid);
	snprintf(ctype, sizeof(ctype), "multipart/mixed; boundary=%s", boundary);
	gcs_call_init(&c, "POST", GCS_API_BATCH, NULL, LOOM_STORE_REQ_DELETE);
	rc = batch_body(s, keys, n, boundary, &body);
	if (rc == 0)
		rc = gcs_call_header(&c, "Content-Type", ctype);
	if (rc < 0)
		goto done;
	c.req.body = body.ptr;
	c.req.body_len = body.size;
	c.req.idempotent = 1; /* deleting again finds the objects gone: fine */
	c.req.key = "(batch delete)";
	if ((rc = gcs_send(s, &c, &r)) < 0)
		goto done;
	if (r.status == 200) {
		rc = parse_batch(s, &r, n, statuses);
		for (i = 0; rc == 0 && i < n; i++)
			results[i] = statuses[i] ? sub_code(statuses[i]) : LOOM_EIO;
		goto done;
	}
	if (r.status == 501 || r.status == 404 || r.status == 405 || r.status == 400) {
		rc = STORE_OPEN_DECLINED;
		goto done;
	}
	rc = gcs_status_error(s, &c, &r, 0);
done:
	gcs_call_dispose(&c);
	http_response_dispose(&r);
	loom_buf_dispose(&body);
	return rc;
}

/* Up to BATCH_MAX keys: the batch, its transient failures again (the
 * store's retry policy), or one by one when there is no batch endpoint.
 * Returns the lowest failing index's code with its error set, else 0. */
static int remove_batch(gcs_store *s, const char *const *keys, size_t n, int *results)
{
	const char *pending[BATCH_MAX];
	size_t where[BATCH_MAX], np = n, i, k, failed = SIZE_MAX;
	int sub[BATCH_MAX];
	long statuses[BATCH_MAX];
	loom_error first;
	unsigned int attempt;
	int rc;

	for (i = 0; i < n; i++) {
		pending[i] = keys[i];
		where[i] = i;
	}
	for (attempt = 1;; attempt++) {
		rc = atomic_load(&s->batch_unsupported) ? STORE_OPEN_DECLINED
		                                        : batch_once(s, pending, np, sub, statuses);
		if (rc == STORE_OPEN_DECLINED) {
			atomic_store(&s->batch_unsupported, 1);
			rc = remove_singles(s, pending, np, sub);
			for (i = 0; i < np; i++)
				results[where[i]] = sub[i];
			return rc;
		}
		if (rc < 0) {
			for (i = 0; i < np; i++)
				results[where[i]] = rc;
			return rc;
		}
		for (i = k = 0; i < np; i++) {
			results[where[i]] = sub[i];
			if (sub[i] == LOOM_ETRANSIENT && attempt < s->retry.max_attempts) {
				pending[k] = pending[i];
				where[k++] = where[i];
			} else if (sub[i] < 0 && where[i] < failed) {
				failed = where[i];
				loom_err(sub[i], LOOM_ERRCLASS_STORE,
				         "DELETE bucket \"%s\" object \"%s%s\" (in a batch): HTTP %ld", s->bucket,
				         s->prefix, pending[i], statuses[i]);
				loom_err_copy(&first);
			}
		}
		if (k == 0)
			break;
		np = k;
		store_count_retry(&s->counters);
		retry_sleep_ms(retry_delay_ms(&s->retry, attempt));
	}
	if (failed == SIZE_MAX)
		return 0;
	return loom_err(first.code, first.klass, "%s", first.message);
}

int gcs_remove_many(loom_store *st, const char *const *keys, size_t n, int *results)
{
	gcs_store *s = (gcs_store *)st;
	size_t off, i, failed = SIZE_MAX;
	loom_error first;

	for (i = 0; i < n; i++)
		if ((results[i] = loom_store_check_key(keys[i], "delete")) < 0 && failed == SIZE_MAX) {
			failed = i;
			loom_err_copy(&first);
		}
	for (off = 0; off < n;) {
		const char *batch[BATCH_MAX];
		size_t idx[BATCH_MAX], m = 0;
		int res[BATCH_MAX], rc;
		for (; off < n && m < BATCH_MAX; off++)
			if (results[off] == 0) {
				idx[m] = off;
				batch[m++] = keys[off];
			}
		if (m == 0)
			break;
		rc = m == 1 ? (res[0] = gcs_remove(st, batch[0])) : remove_batch(s, batch, m, res);
		if (rc < 0) {
			for (i = 0; i < m && res[i] >= 0; i++)
				;
			if (i < m && idx[i] < failed) {
				failed = idx[i];
				loom_err_copy(&first);
			}
		}
		for (i = 0; i < m; i++)
			results[idx[i]] = res[i];
	}
	if (failed == SIZE_MAX)
		return 0;
	return loom_err(first.code, first.klass, "%s", first.message);
}
