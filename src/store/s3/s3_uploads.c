/* store/s3/s3_uploads.c - incomplete multipart uploads: ListMultipartUploads
 * under the root (paged), ListParts for the bytes each holds, and
 * AbortMultipartUpload. A writer killed mid-object leaves its upload open
 * and S3 bills the parts until someone aborts it; VACUUM does, through
 * the store's list_uploads / abort_upload. */
#include "store/s3/s3_int.h"

#include <stdlib.h>
#include <string.h>

#include "store/http/httpdate.h"
#include "store/http/xml.h"
#include "util/alloc.h"
#include "util/error.h"
#include "util/vec.h"

#define S3_ERR(code, ...) loom_err(code, LOOM_ERRCLASS_STORE, __VA_ARGS__)

/* ---- AbortMultipartUpload ------------------------------------------------ */

int s3_abort_upload(s3_store *s, const char *obj, const char *upload_id)
{
	http_response resp = HTTP_RESPONSE_INIT;
	loom_kv q[1] = { { "uploadId", upload_id } };
	s3_call call;
	int rc;
	memset(&call, 0, sizeof(call));
	call.method = "DELETE";
	call.key = obj;
	call.query = q;
	call.n_query = 1;
	call.idempotent = 1;
	call.kind = LOOM_STORE_REQ_OTHER;
	rc = s3_send(s, &call, &resp);
	/* 404 NoSuchUpload: completed or aborted meanwhile - gone either way */
	if (rc == 0 && resp.status != 204 && resp.status != 200 && resp.status != 404)
		rc = s3_status_error(s, &call, &resp, 0);
	http_response_dispose(&resp);
	return rc;
}

int s3_abort_upload_key(loom_store *st, const char *key, const char *upload_id)
{
	s3_store *s = (s3_store *)st;
	loom_buf obj = LOOM_BUF_INIT;
	int rc;
	LOOM_TRY(loom_store_check_key(key, "abort upload"));
	if (!upload_id || !*upload_id)
		return S3_ERR(LOOM_EINVAL, "abort upload of %s: no upload id", key);
	if ((rc = s3_object_key(s, key, &obj)) == 0)
		rc = s3_abort_upload(s, obj.ptr, upload_id);
	loom_buf_dispose(&obj);
	return rc;
}

/* ---- ListParts: the bytes an upload holds -------------------------------- */

typedef struct parts_page {
	int64_t bytes;
	int truncated;
	loom_buf marker;    /* NextPartNumberMarker */
} parts_page;

static int on_parts_xml(void *ctx, const char *path, const char *text, size_t len)
{
	parts_page *p = ctx;
	if (!text)
		return 0;
	if (strcmp(path, "ListPartsResult/Part/Size") == 0)
		p->bytes += strtoll(text, NULL, 10);
	else if (strcmp(path, "ListPartsResult/IsTruncated") == 0)
		p->truncated = len == 4 && memcmp(text, "true", 4) == 0;
	else if (strcmp(path, "ListPartsResult/NextPartNumberMarker") == 0) {
		loom_buf_clear(&p->marker);
		return loom_buf_put(&p->marker, text, len);
	}
	return 0;
}

/* The bytes of every part of one upload in *bytes; 1 when the upload is
 * gone (completed or aborted since it was listed). */
static int upload_bytes(s3_store *s, const char *obj, const char *upload_id, int64_t *bytes)
{
	http_response resp = HTTP_RESPONSE_INIT;
	parts_page page;
	loom_kv q[2];
	s3_call call;
	int rc = 0;

	memset(&page, 0, sizeof(page));
	memset(&call, 0, sizeof(call));
	call.method = "GET";
	call.key = obj;
	call.idempotent = 1;
	call.kind = LOOM_STORE_REQ_LIST;
	*bytes = 0;
	do {
		size_t nq = 0;
		q[nq++] = (loom_kv){ "uploadId", upload_id };
		if (page.truncated)
			q[nq++] = (loom_kv){ "part-number-marker", page.marker.ptr };
		call.query = q;
		call.n_query = nq;
		http_response_dispose(&resp);
		if ((rc = s3_send(s, &call, &resp)) < 0)
			break;
		if (resp.status == 404) {
			rc = 1;
			break;
		}
		if (resp.status != 200) {
			rc = s3_status_error(s, &call, &resp, 0);
			break;
		}
		page.truncated = 0;
		if ((rc = xml_walk(resp.body.ptr ? resp.body.ptr : "", resp.body.size, "S3 ListParts",
		                   on_parts_xml, &page)) < 0)
			break;
		if (page.truncated && !page.marker.size) {
			rc = S3_ERR(LOOM_EIO, "LIST parts of bucket \"%s\" key \"%s\": a truncated page "
			            "without a marker", s->bucket, obj);
			break;
		}
	} while (page.truncated);
	*bytes = page.bytes;
	loom_buf_dispose(&page.marker);
	http_response_dispose(&resp);
	return rc;
}

/* ---- ListMultipartUploads ------------------------------------------------ */

typedef struct upload_entry {
	char *key;           /* the full object key in the bucket */
	char *id;
	int64_t initiated_ms;
} upload_entry;

typedef struct uploads_page {
	loom_vec uploads;    /* upload_entry, in the service's order */
	upload_entry cur;
	int truncated;
	loom_buf next_key, next_id;
} uploads_page;

static void entry_clear(upload_entry *e)
{
	loom_free(e->key);
	loom_free(e->id);
	memset(e, 0, sizeof(*e));
}

static void uploads_clear(uploads_page *p)
{
	size_t i;
	for (i = 0; i < p->uploads.len; i++)
		entry_clear(&LOOM_VEC_AT(&p->uploads, upload_entry, i));
	p->uploads.len = 0;
	entry_clear(&p->cur);
	p->truncated = 0;
}

static int set_text(char **dst, const char *text, size_t len)
{
	loom_free(*dst);
	if (!(*dst = loom_strndup(text, len)))
		return S3_ERR(LOOM_ENOMEM, "out of memory listing uploads");
	return 0;
}

static int on_uploads_xml(void *ctx, const char *path, const char *text, size_t len)
{
	uploads_page *p = ctx;
	if (strncmp(path, "ListMultipartUploadsResult/", 27) != 0)
		return 0;
	path += 27;
	if (!text) {
		if (strcmp(path, "Upload") == 0)
			entry_clear(&p->cur);
		return 0;
	}
	if (strcmp(path, "Upload/Key") == 0)
		return set_text(&p->cur.key, text, len);
	if (strcmp(path, "Upload/UploadId") == 0)
		return set_text(&p->cur.id, text, len);
	if (strcmp(path, "Upload/Initiated") == 0) {
		if (httpdate_parse_iso8601(text, &p->cur.initiated_ms) < 0)
			return loom_err_wrap("S3 ListMultipartUploads");
	} else if (strcmp(path, "Upload") == 0) {
		if (p->cur.key && p->cur.id) {
			LOOM_TRY(loom_vec_push(&p->uploads, &p->cur));
			memset(&p->cur, 0, sizeof(p->cur));
		}
	} else if (strcmp(path, "IsTruncated") == 0) {
		p->truncated = len == 4 && memcmp(text, "true", 4) == 0;
	} else if (strcmp(path, "NextKeyMarker") == 0) {
		loom_buf_clear(&p->next_key);
		return loom_buf_put(&p->next_key, text, len);
	} else if (strcmp(path, "NextUploadIdMarker") == 0) {
		loom_buf_clear(&p->next_id);
		return loom_buf_put(&p->next_id, text, len);
	}
	return 0;
}

/* Hand one upload to the callback, its key relative to the root and its
 * parts' bytes listed. Keys outside the root (the service filtered by
 * prefix; checked again) and keys no store key can name are skipped. */
static int emit_upload(s3_store *s, const upload_entry *e, loom_store_upload_cb cb, void *payload)
{
	size_t plen = strlen(s->prefix);
	loom_store_upload u;
	int rc;
	if (strncmp(e->key, s->prefix, plen) != 0)
		return 0;
	if (!e->key[plen] || loom_store_check_key(e->key + plen, "list uploads") < 0) {
		loom_error_clear();
		return 0;
	}
	if ((rc = upload_bytes(s, e->key, e->id, &u.bytes)) != 0)
		return rc > 0 ? 0 : rc; /* gone since the listing: nothing to report */
	u.key = e->key + plen;
	u.upload_id = e->id;
	u.initiated_ms = e->initiated_ms;
	return cb(&u, payload);
}

int s3_list_uploads(loom_store *st, const char *prefix, loom_store_upload_cb cb, void *payload)
{
	s3_store *s = (s3_store *)st;
	loom_buf full_prefix = LOOM_BUF_INIT;
	http_response resp = HTTP_RESPONSE_INIT;
	uploads_page page;
	loom_kv q[4];
	s3_call call;
	size_t i;
	int rc;

	memset(&page, 0, sizeof(page));
	loom_vec_init(&page.uploads, sizeof(upload_entry));
	/* the root's prefix ("t/" for s3://bucket/t) keeps the listing inside
	 * the table: never an upload of a neighbour such as "t2/" */
	if ((rc = loom_buf_puts(&full_prefix, s->prefix)) < 0 ||
	    (rc = loom_buf_puts(&full_prefix, prefix ? prefix : "")) < 0)
		goto done;
	memset(&call, 0, sizeof(call));
	call.method = "GET";
	call.idempotent = 1;
	call.kind = LOOM_STORE_REQ_LIST;
	call.shown_key = full_prefix.ptr;
	for (;;) {
		size_t nq = 0;
		q[nq++] = (loom_kv){ "uploads", "" };
		q[nq++] = (loom_kv){ "prefix", full_prefix.ptr };
		if (page.truncated) {
			q[nq++] = (loom_kv){ "key-marker", page.next_key.ptr ? page.next_key.ptr : "" };
			q[nq++] = (loom_kv){ "upload-id-marker", page.next_id.ptr ? page.next_id.ptr : "" };
		}
		call.query = q;
		call.n_query = nq;
		http_response_dispose(&resp);
		rc = s3_send(s, &call, &resp);
		/* the markers were used by this request only */
		uploads_clear(&page);
		if (rc < 0)
			break;
		if (resp.status != 200) {
			rc = s3_status_error(s, &call, &resp, resp.status == 404 ? LOOM_ENOTFOUND : 0);
			break;
		}
		loom_buf_clear(&page.next_key);
		loom_buf_clear(&page.next_id);
		if ((rc = xml_walk(resp.body.ptr ? resp.body.ptr : "", resp.body.size,
		                   "S3 ListMultipartUploads", on_uploads_xml, &page)) < 0)
			break;
		for (i = 0; i < page.uploads.len && rc == 0; i++)
			rc = emit_upload(s, &LOOM_VEC_AT(&page.uploads, upload_entry, i), cb, payload);
		if (rc != 0 || !page.truncated)
			break;
		if (!page.next_key.size) {
			rc = S3_ERR(LOOM_EIO, "LIST uploads of bucket \"%s\" prefix \"%s\": a truncated page "
			            "without a key marker", s->bucket, full_prefix.ptr);
			break;
		}
	}
done:
	uploads_clear(&page);
	loom_vec_dispose(&page.uploads);
	loom_buf_dispose(&page.next_key);
	loom_buf_dispose(&page.next_id);
	http_response_dispose(&resp);
	loom_buf_dispose(&full_prefix);
	return rc;
}
