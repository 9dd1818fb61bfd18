/* store/s3/s3_writer.c - streaming writes to S3.
 *
 * Bytes collect in a part buffer of multipart_part_size. An object that
 * never fills one part is published by a single PUT at commit. Once a part
 * fills, a multipart upload starts and each full part is uploaded on the
 * store's upload pool while the caller goes on writing; at most
 * multipart_concurrency parts are in flight per writer (write() waits),
 * so memory stays at (concurrency + 1) parts; part buffers come from the
 * store's part_pool and go back to it, so pages are faulted in once, not
 * once per part. Commit uploads the last
 * part and completes the upload; any failure, and abort, aborts it, so no
 * upload is left open. A CreateMultipartUpload sent twice (a retry, or
 * curl repeating it on a reused connection that died after the server
 * acted) leaves a twin upload: at the end the key's open uploads are
 * listed and every one but the completed one aborted.
 *
 * Create-only writers (LOOM_PUT_IF_ABSENT) of keys under _delta_log/ -
 * commits, checkpoints, sidecars: where the protocol relies on "one
 * winner" - are always published by one create-only PUT (buffered whole),
 * because services such as Ceph RGW do not enforce If-None-Match on
 * CompleteMultipartUpload. Data files (fresh random names) above a part
 * go by multipart with If-None-Match on the completion, which AWS S3
 * enforces. */
#include "store/s3/s3_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/http/http_writer.h"
#include "store/http/xml.h"
#include "util/alloc.h"
#include "util/error.h"
#include "util/vec.h"

#define S3_ERR(code, ...) loom_err(code, LOOM_ERRCLASS_STORE, __VA_ARGS__)
#define S3_MAX_PARTS 10000

typedef struct s3_part {
	char *etag;            /* NULL until uploaded */
} s3_part;

typedef struct s3_writer {
	http_writer h;         /* first; whole: one PUT at commit, whatever the size */
	s3_store *s;
	char *obj;             /* the object key in the bucket */
	uint64_t total;
	char *upload_id;
	int created;           /* CreateMultipartUpload was sent: twins may exist */
	int n_parts;           /* parts handed out */
	s3_part *parts;
	size_t cap_parts;
	pthread_mutex_t lock;
	pthread_cond_t done;
	int inflight;
	int failed;            /* first part failure, in err */
	loom_error err;
} s3_writer;

typedef struct part_task {
	s3_writer *w;
	int number;
	uint8_t *data;         /* a buffer of the part pool */
	size_t len;
} part_task;

/* ---- requests ------------------------------------------------------------ */

static int create_upload(s3_writer *w)
{
	http_response resp = HTTP_RESPONSE_INIT;
	loom_buf id = LOOM_BUF_INIT;
	loom_kv q[1] = { { "uploads", "" } };
	s3_call call;
	int rc;

	memset(&call, 0, sizeof(call));
	call.method = "POST";
	call.key = w->obj;
	call.query = q;
	call.n_query = 1;
	call.idempotent = 1; /* a twin from a retry is cleaned up at the end */
	call.kind = LOOM_STORE_REQ_OTHER;
	rc = s3_send(w->s, &call, &resp);
	if (rc == 0 && resp.status != 200)
		rc = s3_status_error(w->s, &call, &resp, 0);
	if (rc == 0 && (rc = xml_find_text(resp.body.ptr ? resp.body.ptr : "", resp.body.size,
	                                   "InitiateMultipartUploadResult/UploadId", &id)) != 1)
		rc = rc < 0 ? rc
		            : S3_ERR(LOOM_EIO, "POST bucket \"%s\" key \"%s\": no UploadId in the "
		                     "CreateMultipartUpload response", w->s->bucket, w->obj);
	else if (rc == 1)
		rc = 0;
	if (rc == 0)
		w->upload_id = loom_buf_detach(&id);
	loom_buf_dispose(&id);
	http_response_dispose(&resp);
	return rc;
}

typedef struct stray_list {
	const char *obj;
	const char *keep;      /* an upload id not to abort, or NULL */
	loom_buf key, id;
	char **ids;
	size_t n, cap;
} stray_list;

static int on_uploads_xml(void *ctx, const char *path, const char *text, size_t len)
{
	stray_list *l = ctx;
	if (!text)
		return 0;
	if (strcmp(path, "ListMultipartUploadsResult/Upload/Key") == 0) {
		loom_buf_clear(&l->key);
		return loom_buf_put(&l->key, text, len);
	}
	if (strcmp(path, "ListMultipartUploadsResult/Upload/UploadId") == 0) {
		loom_buf_clear(&l->id);
		return loom_buf_put(&l->id, text, len);
	}
	if (strcmp(path, "ListMultipartUploadsResult/Upload") == 0 && l->key.ptr && l->id.ptr &&
	    strcmp(l->key.ptr, l->obj) == 0 && !(l->keep && strcmp(l->id.ptr, l->keep) == 0)) {
		LOOM_TRY(loom_array_grow((void **)&l->ids, &l->cap, l->n + 1, sizeof(char *)));
		if (!(l->ids[l->n] = loom_strdup(l->id.ptr)))
			return S3_ERR(LOOM_ENOMEM, "out of memory");
		l->n++;
	}
	return 0;
}

/* Abort every open upload of the writer's key but `keep`: twins left by a
 * retried CreateMultipartUpload (the key is the writer's own). */
static int abort_strays(s3_writer *w, const char *keep)
{
	http_response resp = HTTP_RESPONSE_INIT;
	loom_kv q[2] = { { "uploads", "" }, { "prefix", w->obj } };
	stray_list l;
	s3_call call;
	size_t i;
	int rc;

	memset(&l, 0, sizeof(l));
	l.obj = w->obj;
	l.keep = keep;
	memset(&call, 0, sizeof(call));
	call.method = "GET";
	call.query = q;
	call.n_query = 2;
	call.idempotent = 1;
	call.kind = LOOM_STORE_REQ_LIST;
	call.shown_key = w->obj;
	rc = s3_send(w->s, &call, &resp);
	if (rc == 0 && resp.status != 200)
		rc = s3_status_error(w->s, &call, &resp, 0);
	if (rc == 0)
		rc = xml_walk(resp.body.ptr ? resp.body.ptr : "", resp.body.size,
		              "S3 ListMultipartUploads", on_uploads_xml, &l);
	for (i = 0; i < l.n; i++) {
		int arc = rc == 0 ? s3_abort_upload(w->s, w->obj, l.ids[i]) : 0;
		if (arc < 0 && rc == 0)
			rc = arc;
		loom_free(l.ids[i]);
	}
	loom_free(l.ids);
	loom_buf_dispose(&l.key);
	loom_buf_dispose(&l.id);
	http_response_dispose(&resp);
	return rc;
}

static void part_failed(s3_writer *w)
{
	pthread_mutex_lock(&w->lock);
	if (!w->failed) {
		w->failed = 1;
		loom_err_copy(&w->err);
	}
	pthread_mutex_unlock(&w->lock);
}

static void upload_part_task(void *arg)
{
	part_task *t = arg;
	s3_writer *w = t->w;
	http_response resp = HTTP_RESPONSE_INIT;
	char number[16], etag[256];
	loom_kv q[2];
	s3_call call;
	int rc, skip;

	pthread_mutex_lock(&w->lock);
	skip = w->failed; /* another part failed: the upload is lost anyway */
	pthread_mutex_unlock(&w->lock);
	if (!skip) {
		snprintf(number, sizeof(number), "%d", t->number);
		q[0] = (loom_kv){ "partNumber", number };
		q[1] = (loom_kv){ "uploadId", w->upload_id };
		memset(&call, 0, sizeof(call));
		call.method = "PUT";
		call.key = w->obj;
		call.query = q;
		call.n_query = 2;
		call.body = t->data;
		call.body_len = t->len;
		call.idempotent = 1; /* a part uploaded again replaces itself */
		call.kind = LOOM_STORE_REQ_PUT;
		rc = s3_send(w->s, &call, &resp);
		if (rc == 0 && resp.status != 200)
			rc = s3_status_error(w->s, &call, &resp, 0);
		if (rc == 0 && !http_header(&resp, "ETag", etag, sizeof(etag)))
			rc = S3_ERR(LOOM_EIO, "PUT bucket \"%s\" key \"%s\" part %d: no ETag in the response",
			            w->s->bucket, w->obj, t->number);
		if (rc == 0) {
			char *copy = loom_strdup(etag);
			if (!copy)
				rc = S3_ERR(LOOM_ENOMEM, "out of memory");
			pthread_mutex_lock(&w->lock);
			w->parts[t->number - 1].etag = copy;
			pthread_mutex_unlock(&w->lock);
		}
		if (rc < 0)
			part_failed(w);
		http_response_dispose(&resp);
	}
	part_pool_give(&w->s->parts, t->data);
	loom_free(t);
	pthread_mutex_lock(&w->lock);
	w->inflight--;
	pthread_cond_broadcast(&w->done);
	pthread_mutex_unlock(&w->lock);
}

/* Wait until at most `max` parts are in flight; the first part failure. */
static int wait_parts(s3_writer *w, int max)
{
	int rc = 0;
	pthread_mutex_lock(&w->lock);
	while (w->inflight > max)
		pthread_cond_wait(&w->done, &w->lock);
	if (w->failed)
		rc = loom_err(w->err.code, w->err.klass, "%s", w->err.message);
	pthread_mutex_unlock(&w->lock);
	return rc;
}

/* Hand the part buffer to the upload pool. */
static int send_part(http_writer *hw)
{
	s3_writer *w = (s3_writer *)hw;
	loom_threadpool *pool;
	part_task *t;
	int rc;

	if (!w->upload_id) {
		w->created = 1;
		LOOM_TRY(create_upload(w));
	}
	if (w->n_parts >= S3_MAX_PARTS)
		return S3_ERR(LOOM_EINVAL, "PUT bucket \"%s\" key \"%s\": more than %d parts of %llu bytes; "
		              "raise multipart_part_size", w->s->bucket, w->obj, S3_MAX_PARTS,
		              (unsigned long long)w->s->part_size);
	LOOM_TRY(wait_parts(w, (int)w->s->part_concurrency - 1));
	if (!(pool = s3_upload_pool(w->s)))
		return S3_ERR(LOOM_ENOMEM, "cannot start the S3 upload threads");
	LOOM_TRY(loom_array_grow((void **)&w->parts, &w->cap_parts, (size_t)w->n_parts + 1,
	                         sizeof(s3_part)));
	if (!(t = loom_calloc(1, sizeof(*t))))
		return S3_ERR(LOOM_ENOMEM, "out of memory");
	w->parts[w->n_parts].etag = NULL;
	t->w = w;
	t->number = ++w->n_parts;
	t->data = hw->cur;
	t->len = hw->cur_len;
	hw->cur = NULL;
	hw->cur_len = 0;
	pthread_mutex_lock(&w->lock);
	w->inflight++;
	pthread_mutex_unlock(&w->lock);
	if ((rc = loom_threadpool_submit(pool, upload_part_task, t)) < 0) {
		hw->cur = t->data;
		hw->cur_len = t->len;
		loom_free(t);
		w->n_parts--;
		pthread_mutex_lock(&w->lock);
		w->inflight--;
		pthread_mutex_unlock(&w->lock);
	}
	return rc;
}

/* CompleteMultipartUpload. A 200 can still carry an <Error> (the service
 * failed after answering): that is retried like a 5xx. After a retry,
 * NoSuchUpload means an earlier attempt completed it. */
static int complete_upload(s3_writer *w)
{
	loom_buf body = LOOM_BUF_INIT, code = LOOM_BUF_INIT;
	http_response resp = HTTP_RESPONSE_INIT;
	loom_kv q[1] = { { "uploadId", w->upload_id } };
	loom_kv h[2] = { { "Content-Type", "application/xml" }, { "If-None-Match", "*" } };
	unsigned int attempt, sent = 0;
	s3_call call;
	int i, rc;

	rc = loom_buf_puts(&body, "<CompleteMultipartUpload xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">");
	for (i = 0; i < w->n_parts && rc == 0; i++)
		rc = loom_buf_printf(&body, "<Part><PartNumber>%d</PartNumber><ETag>%s</ETag></Part>", i + 1,
		                     w->parts[i].etag);
	if (rc == 0)
		rc = loom_buf_puts(&body, "</CompleteMultipartUpload>");
	memset(&call, 0, sizeof(call));
	call.method = "POST";
	call.key = w->obj;
	call.query = q;
	call.n_query = 1;
	call.headers = h;
	call.n_headers = (w->h.flags & LOOM_PUT_IF_ABSENT) ? 2 : 1;
	call.body = body.ptr;
	call.body_len = body.size;
	call.idempotent = 1;
	call.kind = LOOM_STORE_REQ_OTHER;
	for (attempt = 1; rc == 0; attempt++) {
		int has_error;
		http_response_dispose(&resp);
		rc = s3_send(w->s, &call, &resp);
		sent += resp.attempts;
		if (rc < 0)
			break;
		if (resp.status == 404) {
			/* completed by an attempt whose answer was lost (ours, or
			 * one curl repeated on a dead reused connection)? */
			loom_store_entry e;
			rc = w->s->h.base.stat(&w->s->h.base, w->h.key, &e);
			if (rc == 0 && e.size != w->total)
				rc = S3_ERR(LOOM_EIO, "POST bucket \"%s\" key \"%s\": the upload vanished and the "
				            "object has %llu bytes, not %llu", w->s->bucket, w->obj,
				            (unsigned long long)e.size, (unsigned long long)w->total);
			break;
		}
		if (resp.status != 200) {
			rc = s3_status_error(w->s, &call, &resp,
			                     resp.status == 412 || resp.status == 409 ? LOOM_EEXISTS : 0);
			break;
		}
		loom_buf_clear(&code);
		has_error = xml_find_text(resp.body.ptr ? resp.body.ptr : "", resp.body.size, "Error/Code",
		                          &code);
		if (has_error != 1)
			break;
		if (attempt >= w->s->h.retry.max_attempts) {
			rc = S3_ERR(LOOM_ETRANSIENT, "POST bucket \"%s\" key \"%s\": CompleteMultipartUpload "
			            "failed (%s), after %u attempts", w->s->bucket, w->obj, code.ptr, sent);
			break;
		}
		retry_sleep_ms(retry_delay_ms(&w->s->h.retry, attempt));
	}
	loom_buf_dispose(&body);
	loom_buf_dispose(&code);
	http_response_dispose(&resp);
	return rc;
}

/* ---- the writer ---------------------------------------------------------- */

/* Parts in flight hand their buffers back to the pool (upload_part_task);
 * writer_release runs once none is in flight (commit and abort wait). */

static void writer_release(s3_writer *w)
{
	int i;
	for (i = 0; i < w->n_parts; i++)
		loom_free(w->parts[i].etag);
	loom_free(w->parts);
	loom_free(w->upload_id);
	loom_free(w->obj);
	pthread_mutex_destroy(&w->lock);
	pthread_cond_destroy(&w->done);
	http_writer_free(&w->h);
}

/* Abort the upload (and any twin), keeping the error being reported. */
static void abort_all(s3_writer *w)
{
	loom_error saved;
	int had = loom_error_last() != NULL;
	loom_err_copy(&saved);
	wait_parts(w, 0);
	if (w->upload_id)
		s3_abort_upload(w->s, w->obj, w->upload_id);
	if (w->created)
		abort_strays(w, NULL);
	if (had)
		loom_err(saved.code, saved.klass, "%s", saved.message);
	else
		loom_error_clear();
}

static int writer_commit(loom_store_writer *base)
{
	s3_writer *w = (s3_writer *)base;
	int rc;
	if (!w->upload_id) {
		size_t len;
		const void *bytes = http_writer_held(&w->h, &len);
		rc = s3_put_object(w->s, w->h.key, bytes, len, w->h.flags);
		writer_release(w);
		return rc;
	}
	if ((w->h.cur_len && (rc = send_part(&w->h)) < 0) || (rc = wait_parts(w, 0)) < 0 ||
	    (rc = complete_upload(w)) < 0) {
		abort_all(w);
		writer_release(w);
		return rc;
	}
	abort_strays(w, w->upload_id); /* best effort: the object is published */
	loom_error_clear();
	writer_release(w);
	return 0;
}

static void writer_abort(loom_store_writer *base)
{
	s3_writer *w = (s3_writer *)base;
	abort_all(w);
	writer_release(w);
}

/* Counts the bytes: a vanished upload's object is checked against them. */
static int writer_write(loom_store_writer *base, const void *data, size_t len)
{
	s3_writer *w = (s3_writer *)base;
	LOOM_TRY(http_writer_append(&w->h, data, len));
	w->total += len;
	return 0;
}

static const http_writer_kind s3_writer_kind = {
	.size = sizeof(s3_writer),
	.methods = { writer_write, writer_commit, writer_abort },
	.send_part = send_part,
	.whole_log = 1,
};

int s3_writer_open(loom_store *st, const char *key, unsigned int flags, loom_store_writer **out)
{
	s3_store *s = (s3_store *)st;
	loom_buf obj = LOOM_BUF_INIT;
	http_writer *hw;
	s3_writer *w;

	*out = NULL;
	LOOM_TRY(http_writer_open(&hw, &s3_writer_kind, key, flags, &s->parts));
	w = (s3_writer *)hw;
	pthread_mutex_init(&w->lock, NULL);
	pthread_cond_init(&w->done, NULL);
	w->s = s;
	if (s3_object_key(s, key, &obj) < 0) {
		loom_buf_dispose(&obj);
		writer_release(w);
		return S3_ERR(LOOM_ENOMEM, "out of memory");
	}
	w->obj = loom_buf_detach(&obj);
	*out = &hw->base;
	return 0;
}
