/* store/http/batch_delete.c - remove_many over a service's batch requests:
 * batches of valid keys, transient sub-responses sent again, plain deletes
 * in parallel when the service has no batches (see batch_delete.h). */
#include <stdio.h>
#include <string.h>

#include "store/http/batch_delete.h"
#include "util/error.h"
#include "util/threadpool.h"
#include "util/uuid.h"

#define PLAIN_DELETE_THREADS 8

/* The failure to report: the one of the lowest key index. */
/* One call's deletes: the store's ops, retry policy, counters, and whether
 * the service refused batches. */
typedef struct batch_delete {
	const batch_delete_ops *ops;
	loom_store *st;
	const retry_policy *retry;
	store_counters *counters;
	atomic_int *unsupported;
} batch_delete;

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

/* ---- plain deletes, several in flight ----------------------------------------- */

typedef struct plain_deletes {
	const batch_delete *b;
	const char *const *keys;
} plain_deletes;

static int remove_one(void *ctx, size_t i)
{
	plain_deletes *g = ctx;
	return g->b->ops->remove(g->b->st, g->keys[i]);
}

/* ---- one batch request ------------------------------------------------------------ */

/* Call ops->part on every part of a multipart answer, in order. */
static int each_part(const batch_delete *b, const http_call *c, const http_response *r,
                     batch_sub *subs, size_t n)
{
	char ctype[256], delim[128];
	const char *t, *body = r->body.ptr ? r->body.ptr : "", *end = body + r->body.size, *p, *next;
	size_t dl, index = 0;

	if (!http_header(r, "Content-Type", ctype, sizeof(ctype)) || !(t = strstr(ctype, "boundary=")))
		return loom_err(LOOM_EIO, LOOM_ERRCLASS_STORE,
		                "POST \"%s\" %s: the answer has no multipart boundary", c->req.target,
		                b->ops->name);
	t += 9;
	if (*t == '"')
		t++;
	snprintf(delim, sizeof(delim), "--%.*s", (int)strcspn(t, "; \""), t);
	dl = strlen(delim);
	for (p = strstr(body, delim); p && p < end; p = next, index++) {
		p += dl;
		if (p + 2 <= end && p[0] == '-' && p[1] == '-')
			break; /* the closing delimiter */
		next = strstr(p, delim);
		b->ops->part(subs, n, index, p, next ? next : end);
	}
	return 0;
}

/* One multipart/mixed POST of keys[0..n): 0 with subs[] filled,
 * STORE_OPEN_DECLINED when the service has no batches, or the error of
 * the whole request. */
static int send_batch(const batch_delete *b, const char *const *keys, size_t n, batch_sub *subs)
{
	const batch_delete_ops *ops = b->ops;
	loom_buf body = LOOM_BUF_INIT;
	char uuid[37], boundary[48], ctype[96];
	http_call c;
	http_response r = HTTP_RESPONSE_INIT;
	int rc;

	LOOM_TRY(loom_uuid_v4_string(uuid));
	snprintf(boundary, sizeof(boundary), "%s%s", ops->boundary_prefix, uuid);
	snprintf(ctype, sizeof(ctype), "multipart/mixed; boundary=%s", boundary);
	http_call_init(&c, "POST", NULL, LOOM_STORE_REQ_DELETE);
	rc = ops->build(b->st, keys, n, boundary, &c, &body);
	if (rc == 0)
		rc = loom_buf_printf(&body, "--%s--\r\n", boundary);
	if (rc == 0)
		rc = http_call_header(&c, "Content-Type", ctype);
	if (rc < 0)
		goto done;
	c.req.body = body.ptr;
	c.req.body_len = body.size;
	c.req.idempotent = 1; /* deleting again finds the keys gone: fine */
	c.req.key = ops->name;
	if ((rc = ops->send(b->st, &c, &r)) < 0)
		goto done;
	if (r.status == ops->ok_status)
		rc = each_part(b, &c, &r, subs, n);
	else if (ops->declined(&r))
		rc = STORE_OPEN_DECLINED;
	else
		rc = ops->status_error(b->st, &c, &r, 0);
done:
	http_call_dispose(&c);
	http_response_dispose(&r);
	loom_buf_dispose(&body);
	return rc;
}

/* ---- one batch ---------------------------------------------------------------- */

/* Up to ops->max_keys keys: the batch, then its transient failures again,
 * or plain deletes once the service refuses batches. results[] and the
 * first failure (`ff`, by index into keys) are filled. */
static void remove_batch(const batch_delete *b, const char *const *keys, size_t n, int *results,
                         first_failure *ff)
{
	const char *pending[BATCH_DELETE_MAX];
	size_t where[BATCH_DELETE_MAX], np = n, i, k;
	batch_sub subs[BATCH_DELETE_MAX];
	unsigned int attempt;
	int rc;

	for (i = 0; i < n; i++) {
		pending[i] = keys[i];
		where[i] = i;
	}
	for (attempt = 1;; attempt++) {
		for (i = 0; i < np; i++) {
			subs[i].code = LOOM_EIO; /* until its sub-response says otherwise */
			subs[i].status = 0;
			subs[i].service[0] = '\0';
		}
		rc = atomic_load(b->unsupported) ? STORE_OPEN_DECLINED
		                                 : send_batch(b, pending, np, subs);
		if (rc == STORE_OPEN_DECLINED) {
			plain_deletes g = { b, pending };
			int codes[BATCH_DELETE_MAX];
			atomic_store(b->unsupported, 1);
			for (i = 0; i < np; i++)
				codes[i] = LOOM_EIO; /* until a call says otherwise */
			rc = loom_parallel_for(np, PLAIN_DELETE_THREADS, remove_one, &g, codes);
			for (i = 0; i < np; i++)
				results[where[i]] = codes[i];
			for (i = 0; rc < 0 && i < np; i++)
				if (codes[i] < 0) { /* the first pending failure, raised */
					note_failure(ff, where[i]);
					break;
				}
			return;
		}
		if (rc < 0) { /* the whole request failed */
			for (i = 0; i < np; i++)
				results[where[i]] = rc;
			note_failure(ff, where[0]);
			return;
		}
		for (i = k = 0; i < np; i++) {
			results[where[i]] = subs[i].code;
			if (subs[i].code == LOOM_ETRANSIENT && attempt < b->retry->max_attempts) {
				pending[k] = pending[i];
				where[k++] = where[i];
			} else if (subs[i].code < 0) {
				b->ops->sub_error(b->st, pending[i], &subs[i]);
				note_failure(ff, where[i]);
			}
		}
		if (k == 0)
			return;
		np = k;
		store_count_retry(b->counters);
		retry_sleep_ms(retry_delay_ms(b->retry, attempt));
	}
}

int batch_delete_many(const batch_delete_ops *ops, http_store *h, atomic_int *unsupported,
                      const char *const *keys, size_t n, int *results)
{
	const batch_delete call = { ops, &h->base, &h->retry, &h->counters, unsupported };
	const batch_delete *b = &call;
	size_t max = b->ops->max_keys < BATCH_DELETE_MAX ? b->ops->max_keys : BATCH_DELETE_MAX;
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
		const char *batch[BATCH_DELETE_MAX];
		size_t idx[BATCH_DELETE_MAX], m = 0;
		int res[BATCH_DELETE_MAX];
		for (; off < n && m < max; off++)
			if (results[off] == 0) {
				idx[m] = off;
				batch[m++] = keys[off];
			}
		if (m == 0)
			break;
		if (m == 1 && (n == 1 || b->ops->lone_key_plain)) {
			if ((res[0] = b->ops->remove(b->st, batch[0])) < 0)
				note_failure(&ff, idx[0]);
		} else {
			first_failure bf;
			bf.index = SIZE_MAX;
			remove_batch(b, batch, m, res, &bf);
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

int batch_sub_code(long status, int done)
{
	if (done)
		return 0;
	if (status == 404)
		return LOOM_ENOTFOUND;
	if (status == 401 || status == 403)
		return LOOM_EPERM;
	if (retry_status_is_transient(status))
		return LOOM_ETRANSIENT;
	return LOOM_EIO;
}
