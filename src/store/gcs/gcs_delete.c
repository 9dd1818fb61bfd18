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
#include "store/http/batch_delete.h"
#include "store/http/encode.h"
#include "util/alloc.h"
#include "util/error.h"

#define BATCH_MAX 100

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
	http_call_dispose(&c);
	http_response_dispose(&r);
	return rc;
}

/* ---- the batch endpoint ------------------------------------------------------------ */

/* batch_delete_ops.build: a batch of n <= BATCH_MAX keys. */
static int build_batch(loom_store *st, const char *const *keys, size_t n, const char *boundary,
                       http_call *c, loom_buf *body)
{
	gcs_store *s = (gcs_store *)st;
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
	c->api = GCS_API_BATCH;
	loom_buf_dispose(&object);
	loom_buf_dispose(&bucket);
	return rc;
}

/* batch_part_fn: a part of a 200 batch answer, with a "Content-ID:
 * <response-N>" and an "HTTP/1.1 NNN" line: key N's sub-response (a
 * missing object counts as deleted). */
static void on_part(batch_sub *subs, size_t n, size_t index, const char *p, const char *end)
{
	const char *id, *http;
	long idx = -1, status;
	(void)index;
	if ((id = strstr(p, "Content-ID: <response-")) && id < end)
		idx = strtol(id + 22, NULL, 10) - 1;
	if ((http = strstr(p, "\nHTTP/1.")) && http < end && idx >= 0 && (size_t)idx < n) {
		status = strtol(http + 9 + strcspn(http + 9, " "), NULL, 10);
		subs[idx].status = status;
		subs[idx].code = status ? batch_sub_code(status, status == 204 || status == 200 ||
		                                                     status == 404)
		                        : LOOM_EIO;
	}
}

static int send_call(loom_store *st, http_call *c, http_response *r)
{
	return gcs_send((gcs_store *)st, c, r);
}

static int status_error(loom_store *st, http_call *c, const http_response *r, int code)
{
	return gcs_status_error((gcs_store *)st, c, r, code);
}

/* batch_delete_ops.declined: no batch endpoint (the emulator answers 501). */
static int declined(const http_response *r)
{
	return r->status == 501 || r->status == 404 || r->status == 405 || r->status == 400;
}

/* batch_delete_ops.sub_error. */
static void sub_error(loom_store *st, const char *key, const batch_sub *sub)
{
	gcs_store *s = (gcs_store *)st;
	loom_err(sub->code, LOOM_ERRCLASS_STORE,
	         "DELETE bucket \"%s\" object \"%s%s\" (in a batch): HTTP %ld", s->bucket, s->prefix, key,
	         sub->status);
}

static const batch_delete_ops GCS_DELETES = {
	BATCH_MAX, 1, "(batch delete)", "loom_", 200, gcs_remove, build_batch, send_call,
	status_error, declined, on_part, sub_error
};

int gcs_remove_many(loom_store *st, const char *const *keys, size_t n, int *results)
{
	gcs_store *s = (gcs_store *)st;
	return batch_delete_many(&GCS_DELETES, &s->h, &s->batch_unsupported, keys, n, results);
}
