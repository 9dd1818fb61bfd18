/* store/gcs/gcs_writer.c - uploads.
 *
 * An object that fits one chunk (multipart_part_size, a multiple of
 * 256 KiB) is one media upload; LOOM_PUT_IF_ABSENT makes it create-only
 * with ifGenerationMatch=0, and a 412 means the version is taken - unless
 * the object there holds our bytes (a retried upload whose first attempt
 * landed, as on S3 and Azure). Create-only writers of _delta_log/ keys
 * (commits, checkpoints) always publish with that one request.
 *
 * Larger objects go by a resumable upload: the session is opened with the
 * precondition and a random id in the object's custom metadata
 * ("loom-upload"), then chunks are sent in order. A chunk is sent only
 * once the next byte arrived, so the last chunk - the one that names the
 * total size and publishes the object - is never empty. After a failed
 * chunk (429, 5xx, a reset or timeout) the writer waits the shared
 * backoff, asks the session how much it holds (a status query, an empty
 * PUT with Content-Range "bytes STAR/STAR")
 * and resumes there; after a failed last chunk it first looks whether the
 * object is already there with its id. Nothing is visible before the last
 * chunk lands; an abandoned session is cancelled (and expires anyway). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/gcs/gcs_int.h"
#include "store/http/http_writer.h"
#include "util/alloc.h"
#include "util/error.h"
#include "util/uuid.h"

#define OOM() loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_STORE, "out of memory")

/* ---- one media upload ------------------------------------------------------------- */

static int media_upload(gcs_store *s, const char *key, const void *data, size_t len,
                        unsigned int flags)
{
	gcs_call c;
	http_response r = HTTP_RESPONSE_INIT;
	loom_buf object = LOOM_BUF_INIT;
	int rc;

	gcs_call_init(&c, "POST", GCS_API_UPLOAD, key, LOOM_STORE_REQ_PUT);
	c.req.body = data;
	c.req.body_len = len;
	c.req.idempotent = 1; /* a create-only retry that finds our own bytes: see below */
	rc = gcs_object_name(s, key, &object);
	if (rc == 0)
		rc = http_call_param(&c, "uploadType", "media");
	if (rc == 0)
		rc = http_call_param(&c, "name", object.ptr);
	if (rc == 0 && (flags & LOOM_PUT_IF_ABSENT))
		rc = http_call_param(&c, "ifGenerationMatch", "0");
	if (rc == 0)
		rc = http_call_header(&c, "Content-Type", "application/octet-stream");
	if (rc == 0)
		rc = gcs_send(s, &c, &r);
	if (rc < 0)
		goto done;
	if (r.status == 200 || r.status == 201)
		goto done;
	if ((flags & LOOM_PUT_IF_ABSENT) && r.status == 412) {
		/* conditionNotMet: the version is taken - unless an earlier attempt
		 * of this very request wrote it (curl resends a request whose
		 * reused connection died, so even a "first" attempt may be the
		 * second on the wire; loom's commits carry a random txnId, so
		 * another writer's bytes are never the same) */
		if ((rc = gcs_holds_bytes(s, key, data, len)) != 0)
			goto done; /* ours (1 -> 0 below), or no way to tell */
		rc = gcs_status_error(s, &c, &r, LOOM_EEXISTS);
		goto done;
	}
	rc = gcs_status_error(s, &c, &r, 0);
done:
	http_call_dispose(&c);
	http_response_dispose(&r);
	loom_buf_dispose(&object);
	return rc > 0 ? 0 : rc;
}

/* ---- the writer -------------------------------------------------------------------- */

typedef struct gcs_writer {
	http_writer h;        /* first; whole: one media upload; parts: s->chunks */
	gcs_store *s;
	uint64_t offset;      /* object offset of h.cur[0] */
	char *session;        /* the resumable session URL, once opened */
	char upload_id[40];   /* our id in the object's metadata */
} gcs_writer;

static int open_session(gcs_writer *w)
{
	gcs_store *s = w->s;
	gcs_call c;
	http_response r = HTTP_RESPONSE_INIT;
	loom_buf object = LOOM_BUF_INIT, body = LOOM_BUF_INIT;
	char loc[4096];
	int rc;

	gcs_call_init(&c, "POST", GCS_API_UPLOAD, w->h.key, LOOM_STORE_REQ_OTHER);
	rc = gcs_object_name(s, w->h.key, &object);
	if (rc == 0)
		rc = loom_buf_printf(&body, "{\"metadata\":{\"loom-upload\":\"%s\"}}", w->upload_id);
	if (rc == 0)
		rc = http_call_param(&c, "uploadType", "resumable");
	if (rc == 0)
		rc = http_call_param(&c, "name", object.ptr);
	if (rc == 0 && (w->h.flags & LOOM_PUT_IF_ABSENT))
		rc = http_call_param(&c, "ifGenerationMatch", "0");
	if (rc == 0)
		rc = http_call_header(&c, "Content-Type", "application/json; charset=UTF-8");
	if (rc == 0)
		rc = http_call_header(&c, "X-Upload-Content-Type", "application/octet-stream");
	if (rc < 0)
		goto done;
	c.req.body = body.ptr;
	c.req.body_len = body.size;
	c.req.idempotent = 1; /* another session: the first one just expires */
	if ((rc = gcs_send(s, &c, &r)) < 0)
		goto done;
	if (r.status == 412 && (w->h.flags & LOOM_PUT_IF_ABSENT)) {
		rc = gcs_status_error(s, &c, &r, LOOM_EEXISTS);
	} else if (r.status != 200 && r.status != 201) {
		rc = gcs_status_error(s, &c, &r, 0);
	} else if (!http_header(&r, "Location", loc, sizeof(loc)) || !loc[0]) {
		rc = loom_err(LOOM_EIO, LOOM_ERRCLASS_STORE,
		              "POST bucket \"%s\" object \"%s\": the resumable upload has no session "
		              "(no Location header)", s->bucket, object.ptr);
	} else if (!(w->session = loom_strdup(loc))) {
		rc = OOM();
	}
done:
	http_call_dispose(&c);
	http_response_dispose(&r);
	loom_buf_dispose(&object);
	loom_buf_dispose(&body);
	return rc;
}

/* How many bytes a 308 says the session holds ("Range: bytes=0-N"). */
static uint64_t persisted(const http_response *r)
{
	char v[128];
	const char *dash;
	if (!http_header(r, "Range", v, sizeof(v)) || !(dash = strchr(v, '-')))
		return 0;
	return strtoull(dash + 1, NULL, 10) + 1;
}

/* One PUT to the session: bytes [from, end) of the object out of the
 * chunk (empty with `from` == end: a status query). `total`: the object's
 * size for the last chunk, else UINT64_MAX. */
static int session_put(gcs_writer *w, uint64_t from, uint64_t end, uint64_t total,
                       http_response *r, int *sent_ok)
{
	gcs_call c;
	char range[96], size[32];
	int rc;

	if (total == UINT64_MAX)
		snprintf(size, sizeof(size), "*");
	else
		snprintf(size, sizeof(size), "%llu", (unsigned long long)total);
	if (from == end && total == UINT64_MAX)
		snprintf(range, sizeof(range), "bytes */*");
	else if (from == end)
		snprintf(range, sizeof(range), "bytes */%s", size);
	else
		snprintf(range, sizeof(range), "bytes %llu-%llu/%s", (unsigned long long)from,
		         (unsigned long long)(end - 1), size);
	gcs_call_init(&c, "PUT", NULL, NULL, from == end ? LOOM_STORE_REQ_OTHER : LOOM_STORE_REQ_PUT);
	c.url = w->session;
	c.req.body = w->h.cur + (from - w->offset);
	c.req.body_len = (size_t)(end - from);
	c.req.idempotent = 0; /* resumed by hand below, from what the session holds */
	c.req.key = NULL;
	rc = http_call_header(&c, "Content-Range", range);
	if (rc == 0) {
		char *shown = NULL;
		loom_buf object = LOOM_BUF_INIT;
		if (gcs_object_name(w->s, w->h.key, &object) == 0)
			shown = object.ptr;
		c.req.key = shown;
		rc = gcs_send(w->s, &c, r);
		if (rc == 0 && r->status != 308 && r->status != 200 && r->status != 201)
			*sent_ok = 0;
		else
			*sent_ok = rc == 0;
		if (rc == 0 && !*sent_ok && !retry_status_is_transient(r->status))
			rc = gcs_status_error(w->s, &c, r, r->status == 412 ? LOOM_EEXISTS : 0);
		else if (rc == 0 && !*sent_ok)
			rc = gcs_status_error(w->s, &c, r, LOOM_ETRANSIENT);
		c.req.key = NULL;
		loom_buf_dispose(&object);
	}
	http_call_dispose(&c);
	return rc;
}

/* Is the object published with our id (a last chunk that landed though
 * its answer was lost)? The caller's error record is kept: it is the
 * failure's, should the answer be no. */
static int published_by_us(gcs_writer *w)
{
	loom_store_entry e;
	loom_error failure;
	char id[64];
	int ours;
	loom_err_copy(&failure);
	ours = gcs_get_metadata(w->s, w->h.key, &e, NULL, id, sizeof(id)) == 0 &&
	       strcmp(id, w->upload_id) == 0;
	loom_err_restore(&failure);
	return ours;
}

/* Send h.cur[0, h.cur_len) as the chunk at w->offset; `last`: it ends the
 * object. Resumes after failures, bounded by the retry policy. */
static int send_chunk(gcs_writer *w, int last)
{
	uint64_t end = w->offset + w->h.cur_len, from = w->offset;
	uint64_t total = last ? end : UINT64_MAX;
	unsigned int attempt;
	int rc = 0;

	if (!w->session)
		LOOM_TRY(open_session(w));
	for (attempt = 1;; attempt++) {
		http_response r = HTTP_RESPONSE_INIT;
		int ok = 0;
		rc = session_put(w, from, end, total, &r, &ok);
		if (rc == 0 && (r.status == 200 || r.status == 201)) {
			http_response_dispose(&r);
			return last ? 0 : loom_err(LOOM_EIO, LOOM_ERRCLASS_STORE,
			                           "PUT bucket \"%s\" object \"%s%s\": the resumable upload "
			                           "ended before its last chunk", w->s->bucket, w->s->prefix, w->h.key);
		}
		if (rc == 0 && r.status == 308) {
			uint64_t have = persisted(&r);
			http_response_dispose(&r);
			if (have >= end && !last)
				return 0;
			if (have > from && have <= end) {
				from = have; /* the session kept part of it: send the rest */
				continue;
			}
		} else {
			http_response_dispose(&r);
		}
		if (rc < 0 && rc != LOOM_ETRANSIENT) {
			/* a 412 of the last chunk, a 4xx, an expired session - or a
			 * finished one: curl resends a request whose reused
			 * connection died without an answer, so a last chunk that
			 * landed (its answer lost) may be sent again unseen, and a
			 * finished session refuses it (the emulator: 400); the
			 * object with our id says which */
			if (last && published_by_us(w)) {
				loom_error_clear();
				return 0;
			}
			return rc;
		}
		if (attempt >= w->s->h.retry.max_attempts)
			return rc < 0 ? rc : loom_err(LOOM_ETRANSIENT, LOOM_ERRCLASS_STORE,
			                              "PUT bucket \"%s\" object \"%s%s\": the resumable upload "
			                              "made no progress after %u attempts", w->s->bucket,
			                              w->s->prefix, w->h.key, attempt);
		/* failed: wait, then ask the session what it holds */
		store_count_retry(&w->s->h.counters);
		retry_sleep_ms(retry_delay_ms(&w->s->h.retry, attempt));
		if (last && published_by_us(w)) {
			loom_error_clear();
			return 0;
		}
		{
			http_response q = HTTP_RESPONSE_INIT;
			int qok = 0;
			int qrc = session_put(w, end, end, UINT64_MAX, &q, &qok);
			if (qrc == 0 && q.status == 308) {
				uint64_t have = persisted(&q);
				if (have >= w->offset && have <= end)
					from = have;
				if (have >= end && !last) {
					http_response_dispose(&q);
					return 0;
				}
			} else if (qrc == 0 && (q.status == 200 || q.status == 201) && last) {
				http_response_dispose(&q);
				return 0;
			}
			loom_error_clear();
			http_response_dispose(&q);
		}
	}
}

/* A full chunk and more bytes: it is not the last, send it. */
static int send_full_chunk(http_writer *hw)
{
	gcs_writer *w = (gcs_writer *)hw;
	LOOM_TRY(send_chunk(w, 0));
	w->offset += hw->cur_len;
	hw->cur_len = 0;
	return 0;
}

/* Cancel an open session (best effort: it expires anyway). It runs after
 * a failure, whose error record stays as it was: cleared here, the failed
 * upload would be re-raised by a pipeline worker as a success with no
 * file (util/error.h, loom_err_raise). */
static void cancel_session(gcs_writer *w)
{
	gcs_call c;
	http_response r = HTTP_RESPONSE_INIT;
	loom_error failure;
	if (!w->session)
		return;
	loom_err_copy(&failure);
	gcs_call_init(&c, "DELETE", NULL, NULL, LOOM_STORE_REQ_OTHER);
	c.url = w->session;
	c.req.idempotent = 0;
	gcs_send(w->s, &c, &r);
	loom_err_restore(&failure);
	http_call_dispose(&c);
	http_response_dispose(&r);
}

static void writer_free(gcs_writer *w)
{
	loom_free(w->session);
	http_writer_free(&w->h);
}

static int writer_commit(loom_store_writer *base)
{
	gcs_writer *w = (gcs_writer *)base;
	int rc;
	if (!w->session && w->offset == 0) {
		/* buffered whole, or it fits one chunk: one media upload */
		size_t len;
		const void *bytes = http_writer_held(&w->h, &len);
		rc = media_upload(w->s, w->h.key, bytes, len, w->h.flags);
	} else if ((rc = send_chunk(w, 1)) < 0) {
		cancel_session(w);
	}
	writer_free(w);
	return rc;
}

static void writer_abort(loom_store_writer *base)
{
	gcs_writer *w = (gcs_writer *)base;
	cancel_session(w);
	writer_free(w);
}

static const http_writer_kind gcs_writer_kind = {
	.size = sizeof(gcs_writer),
	.methods = { http_writer_write, writer_commit, writer_abort },
	.send_part = send_full_chunk,
	.whole_log = 1,
	.hold_full = 1,
};

int gcs_writer_open(loom_store *st, const char *key, unsigned int flags, loom_store_writer **out)
{
	gcs_store *s = (gcs_store *)st;
	http_writer *hw;
	gcs_writer *w;
	int rc;

	*out = NULL;
	LOOM_TRY(http_writer_open(&hw, &gcs_writer_kind, key, flags, &s->chunks));
	w = (gcs_writer *)hw;
	if ((rc = loom_uuid_v4_hex(w->upload_id)) < 0) {
		http_writer_free(hw);
		return rc;
	}
	w->s = s;
	*out = &hw->base;
	return 0;
}

int gcs_put(loom_store *st, const char *key, const void *data, size_t len, unsigned int flags)
{
	gcs_store *s = (gcs_store *)st;
	loom_store_writer *w;
	int rc;
	LOOM_TRY(loom_store_check_key(key, "put"));
	if (len <= s->chunk_size || (flags & LOOM_PUT_IF_ABSENT))
		return media_upload(s, key, data, len, flags);
	LOOM_TRY(gcs_writer_open(st, key, flags, &w));
	if ((rc = w->write(w, data, len)) < 0) {
		w->abort(w);
		return rc;
	}
	return w->commit(w);
}
