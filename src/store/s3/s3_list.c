/* store/s3/s3_list.c - ListObjectsV2 (pages fetched as the callback consumes
 * them) and DeleteObjects (batches of 1,000 keys, per-key results). */
#include "store/s3/s3_int.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "store/http/crypto.h"
#include "store/http/encode.h"
#include "store/http/httpdate.h"
#include "store/http/xml.h"
#include "util/alloc.h"
#include "util/error.h"
#include "util/hashmap.h"
#include "util/vec.h"

#define S3_ERR(code, ...) loom_err(code, LOOM_ERRCLASS_STORE, __VA_ARGS__)
#define S3_DELETE_BATCH 1000

/* ---- ListObjectsV2 ------------------------------------------------------- */

typedef struct list_entry {
	char *key;          /* the full object key, or common prefix */
	uint64_t size;
	int64_t mtime_ms;
	int is_dir;
} list_entry;

typedef struct list_page {
	loom_vec objects;   /* list_entry, ascending */
	loom_vec prefixes;  /* list_entry (is_dir), ascending */
	list_entry cur;
	int truncated;
	loom_buf token;     /* NextContinuationToken */
} list_page;

static void page_clear(list_page *p)
{
	size_t i;
	for (i = 0; i < p->objects.len; i++)
		loom_free(LOOM_VEC_AT(&p->objects, list_entry, i).key);
	for (i = 0; i < p->prefixes.len; i++)
		loom_free(LOOM_VEC_AT(&p->prefixes, list_entry, i).key);
	p->objects.len = p->prefixes.len = 0;
	loom_free(p->cur.key);
	memset(&p->cur, 0, sizeof(p->cur));
	p->truncated = 0;
	loom_buf_clear(&p->token);
}

static int on_list_xml(void *ctx, const char *path, const char *text, size_t len)
{
	list_page *p = ctx;
	if (strncmp(path, "ListBucketResult/", 17) != 0)
		return 0;
	path += 17;
	if (!text) {
		if (strcmp(path, "Contents") == 0 || strcmp(path, "CommonPrefixes") == 0) {
			loom_free(p->cur.key);
			memset(&p->cur, 0, sizeof(p->cur));
		}
		return 0;
	}
	if (strcmp(path, "Contents/Key") == 0 || strcmp(path, "CommonPrefixes/Prefix") == 0) {
		loom_free(p->cur.key);
		if (!(p->cur.key = loom_strndup(text, len)))
			return S3_ERR(LOOM_ENOMEM, "out of memory listing");
	} else if (strcmp(path, "Contents/Size") == 0) {
		p->cur.size = strtoull(text, NULL, 10);
	} else if (strcmp(path, "Contents/LastModified") == 0) {
		if (httpdate_parse_iso8601(text, &p->cur.mtime_ms) < 0)
			return loom_err_wrap("S3 listing");
	} else if (strcmp(path, "Contents") == 0 || strcmp(path, "CommonPrefixes") == 0) {
		p->cur.is_dir = strcmp(path, "CommonPrefixes") == 0;
		if (p->cur.key) {
			LOOM_TRY(loom_vec_push(p->cur.is_dir ? &p->prefixes : &p->objects, &p->cur));
			memset(&p->cur, 0, sizeof(p->cur));
		}
	} else if (strcmp(path, "IsTruncated") == 0) {
		p->truncated = len == 4 && memcmp(text, "true", 4) == 0;
	} else if (strcmp(path, "NextContinuationToken") == 0) {
		loom_buf_clear(&p->token);
		LOOM_TRY(loom_buf_put(&p->token, text, len));
	}
	return 0;
}

/* Hand one entry to the callback with its key relative to the root; keys
 * that are no valid store key ("dir/" markers, "a//b") are skipped. */
static int emit(const s3_store *s, list_entry *e, loom_store_list_cb cb, void *payload)
{
	size_t plen = strlen(s->prefix), n;
	char *key;
	loom_store_entry out;
	int rc;
	if (strncmp(e->key, s->prefix, plen) != 0)
		return 0;
	key = e->key + plen;
	n = strlen(key);
	if (e->is_dir && n && key[n - 1] == '/')
		key[--n] = '\0';
	if (n == 0 || loom_store_check_key(key, "list") < 0) {
		loom_error_clear();
		return 0;
	}
	out.key = key;
	out.size = e->size;
	out.mtime_ms = e->mtime_ms;
	out.is_dir = e->is_dir;
	out.is_symlink = 0;
	rc = cb(&out, payload);
	return rc;
}

/* The page's objects and common prefixes, merged in key order. */
static int emit_page(const s3_store *s, list_page *p, loom_store_list_cb cb, void *payload)
{
	size_t i = 0, j = 0;
	int rc = 0;
	while (rc == 0 && (i < p->objects.len || j < p->prefixes.len)) {
		list_entry *o = i < p->objects.len ? &LOOM_VEC_AT(&p->objects, list_entry, i) : NULL;
		list_entry *d = j < p->prefixes.len ? &LOOM_VEC_AT(&p->prefixes, list_entry, j) : NULL;
		if (o && (!d || strcmp(o->key, d->key) <= 0)) {
			rc = emit(s, o, cb, payload);
			i++;
		} else {
			rc = emit(s, d, cb, payload);
			j++;
		}
	}
	return rc;
}

int s3_list(loom_store *st, const char *prefix, const char *start_after, unsigned int flags,
            loom_store_list_cb cb, void *payload)
{
	s3_store *s = (s3_store *)st;
	loom_buf full_prefix = LOOM_BUF_INIT, full_start = LOOM_BUF_INIT;
	http_response resp = HTTP_RESPONSE_INIT;
	list_page page;
	loom_kv q[5];
	s3_call call;
	int rc = 0;

	memset(&page, 0, sizeof(page));
	loom_vec_init(&page.objects, sizeof(list_entry));
	loom_vec_init(&page.prefixes, sizeof(list_entry));
	if ((rc = loom_buf_puts(&full_prefix, s->prefix)) < 0 ||
	    (rc = loom_buf_puts(&full_prefix, prefix ? prefix : "")) < 0)
		goto done;
	if (start_after && ((rc = loom_buf_puts(&full_start, s->prefix)) < 0 ||
	                    (rc = loom_buf_puts(&full_start, start_after)) < 0))
		goto done;
	memset(&call, 0, sizeof(call));
	call.method = "GET";
	call.key = NULL;
	call.idempotent = 1;
	call.kind = LOOM_STORE_REQ_LIST;
	call.shown_key = full_prefix.ptr;
	for (;;) {
		size_t nq = 0;
		q[nq++] = (loom_kv){ "list-type", "2" };
		q[nq++] = (loom_kv){ "prefix", full_prefix.ptr };
		if (!(flags & LOOM_LIST_RECURSIVE))
			q[nq++] = (loom_kv){ "delimiter", "/" };
		if (page.token.size)
			q[nq++] = (loom_kv){ "continuation-token", page.token.ptr };
		else if (start_after)
			q[nq++] = (loom_kv){ "start-after", full_start.ptr };
		call.query = q;
		call.n_query = nq;
		http_response_dispose(&resp);
		/* the token is used by this request only: keep it apart */
		{
			loom_buf token = page.token;
			memset(&page.token, 0, sizeof(page.token));
			page_clear(&page);
			rc = s3_send(s, &call, &resp);
			loom_buf_dispose(&token);
		}
		if (rc < 0)
			break;
		if (resp.status == 404) { /* no such bucket: say which */
			rc = s3_status_error(s, &call, &resp, LOOM_ENOTFOUND);
			break;
		}
		if (resp.status != 200) {
			rc = s3_status_error(s, &call, &resp, 0);
			break;
		}
		if ((rc = xml_walk(resp.body.ptr ? resp.body.ptr : "", resp.body.size, "S3 listing",
		                   on_list_xml, &page)) < 0)
			break;
		if ((rc = emit_page(s, &page, cb, payload)) != 0)
			break;
		if (!page.truncated)
			break;
		if (!page.token.size) {
			rc = S3_ERR(LOOM_EIO, "LIST bucket \"%s\" prefix \"%s\": a truncated page without a "
			            "continuation token", s->bucket, full_prefix.ptr);
			break;
		}
	}
done:
	page_clear(&page);
	loom_vec_dispose(&page.objects);
	loom_vec_dispose(&page.prefixes);
	loom_buf_dispose(&page.token);
	http_response_dispose(&resp);
	loom_buf_dispose(&full_prefix);
	loom_buf_dispose(&full_start);
	return rc;
}

/* ---- DeleteObjects ------------------------------------------------------- */

/* XML text for a key; 1 when the key holds a character XML 1.0 cannot
 * carry (then it is deleted on its own). */
static int put_xml_text(loom_buf *b, const char *s, int *unsendable)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c < 0x20 && c != '\t' && c != '\n' && c != '\r') {
			*unsendable = 1;
			return 0;
		}
		switch (c) {
		case '&': LOOM_TRY(loom_buf_puts(b, "&amp;")); break;
		case '<': LOOM_TRY(loom_buf_puts(b, "&lt;")); break;
		case '>': LOOM_TRY(loom_buf_puts(b, "&gt;")); break;
		case '"': LOOM_TRY(loom_buf_puts(b, "&quot;")); break;
		case '\r': LOOM_TRY(loom_buf_puts(b, "&#13;")); break;
		default: LOOM_TRY(loom_buf_putc(b, (char)c));
		}
	}
	return 0;
}

typedef struct delete_result {
	s3_store *s;
	loom_map *index;        /* full key -> position + 1 */
	int *results;
	loom_buf key, code, msg;
	int first_rc;
	loom_error first;
} delete_result;

static int on_delete_xml(void *ctx, const char *path, const char *text, size_t len)
{
	delete_result *d = ctx;
	if (!text) {
		if (strcmp(path, "DeleteResult/Error") == 0) {
			loom_buf_clear(&d->key);
			loom_buf_clear(&d->code);
			loom_buf_clear(&d->msg);
		}
		return 0;
	}
	if (strcmp(path, "DeleteResult/Error/Key") == 0)
		return loom_buf_put(&d->key, text, len);
	if (strcmp(path, "DeleteResult/Error/Code") == 0)
		return loom_buf_put(&d->code, text, len);
	if (strcmp(path, "DeleteResult/Error/Message") == 0)
		return loom_buf_put(&d->msg, text, len);
	if (strcmp(path, "DeleteResult/Error") == 0 && d->key.ptr) {
		void *v = loom_map_get(d->index, d->key.ptr, d->key.size);
		const char *code = d->code.ptr ? d->code.ptr : "";
		int rc;
		if (!v || strcmp(code, "NoSuchKey") == 0)
			return 0; /* already gone is deleted */
		rc = strcmp(code, "AccessDenied") == 0 ? LOOM_EPERM : LOOM_EIO;
		d->results[(uintptr_t)v - 1] = rc;
		if (d->first_rc == 0) {
			d->first_rc = S3_ERR(rc, "DELETE bucket \"%s\" key \"%s\": %s%s%s", d->s->bucket,
			                     d->key.ptr, code, d->msg.size ? ": " : "",
			                     d->msg.ptr ? d->msg.ptr : "");
			loom_secrets_mask_error(&d->s->h.secrets);
			loom_err_copy(&d->first);
		}
	}
	return 0;
}

/* One DeleteObjects request for keys[0..n); results filled. */
static int delete_batch(s3_store *s, const char *const *keys, size_t n, int *results)
{
	loom_buf body = LOOM_BUF_INIT, full = LOOM_BUF_INIT, md5b64 = LOOM_BUF_INIT;
	http_response resp = HTTP_RESPONSE_INIT;
	char **full_keys = loom_calloc(n ? n : 1, sizeof(char *));
	loom_map index = LOOM_MAP_INIT;
	delete_result d;
	uint8_t md5[CRYPTO_MD5_LEN];
	loom_kv q[1] = { { "delete", "" } };
	loom_kv h[2];
	s3_call call;
	size_t i, sent = 0;
	int rc = 0;

	memset(&d, 0, sizeof(d));
	if (!full_keys)
		return S3_ERR(LOOM_ENOMEM, "out of memory");
	rc = loom_buf_puts(&body, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>"
	                          "<Delete xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\"><Quiet>true</Quiet>");
	for (i = 0; i < n && rc == 0; i++) {
		size_t mark = body.size;
		int unsendable = 0;
		results[i] = 0;
		loom_buf_clear(&full);
		if ((rc = loom_store_check_key(keys[i], "delete")) < 0) {
			results[i] = rc;
			rc = 0;
			if (d.first_rc == 0) {
				d.first_rc = results[i];
				loom_err_copy(&d.first);
			}
			continue;
		}
		if ((rc = s3_object_key(s, keys[i], &full)) < 0 ||
		    (rc = loom_buf_puts(&body, "<Object><Key>")) < 0 ||
		    (rc = put_xml_text(&body, full.ptr, &unsendable)) < 0)
			break;
		if (unsendable) { /* on its own, by a single DELETE */
			body.size = mark;
			body.ptr[mark] = '\0';
			if ((results[i] = s->h.base.remove(&s->h.base, keys[i])) < 0 && d.first_rc == 0) {
				d.first_rc = results[i];
				loom_err_copy(&d.first);
			}
			continue;
		}
		if ((rc = loom_buf_puts(&body, "</Key></Object>")) < 0)
			break;
		full_keys[i] = loom_buf_detach(&full);
		if ((rc = loom_map_puts(&index, full_keys[i], (void *)(uintptr_t)(i + 1))) < 0)
			break;
		sent++;
	}
	if (rc < 0 || sent == 0)
		goto done;
	if ((rc = loom_buf_puts(&body, "</Delete>")) < 0 || (rc = crypto_md5(body.ptr, body.size, md5)) < 0 ||
	    (rc = enc_base64(&md5b64, md5, sizeof(md5))) < 0)
		goto done;
	h[0] = (loom_kv){ "Content-MD5", md5b64.ptr };
	h[1] = (loom_kv){ "Content-Type", "application/xml" };
	memset(&call, 0, sizeof(call));
	call.method = "POST";
	call.query = q;
	call.n_query = 1;
	call.headers = h;
	call.n_headers = 2;
	call.body = body.ptr;
	call.body_len = body.size;
	call.idempotent = 1; /* deleting twice deletes */
	call.kind = LOOM_STORE_REQ_DELETE;
	for (i = 0; i < n && !call.shown_key; i++)
		call.shown_key = full_keys[i];
	if ((rc = s3_send(s, &call, &resp)) == 0 && resp.status != 200)
		rc = s3_status_error(s, &call, &resp, 0);
	if (rc < 0) {
		for (i = 0; i < n; i++)
			if (full_keys[i])
				results[i] = rc;
		goto done;
	}
	d.s = s;
	d.index = &index;
	d.results = results;
	rc = xml_walk(resp.body.ptr ? resp.body.ptr : "", resp.body.size, "S3 DeleteObjects result",
	              on_delete_xml, &d);
done:
	if (rc == 0 && d.first_rc < 0) {
		loom_err(d.first.code, d.first.klass, "%s", d.first.message);
		rc = d.first_rc;
	}
	for (i = 0; i < n; i++)
		loom_free(full_keys[i]);
	loom_free(full_keys);
	loom_map_dispose(&index);
	loom_buf_dispose(&d.key);
	loom_buf_dispose(&d.code);
	loom_buf_dispose(&d.msg);
	loom_buf_dispose(&body);
	loom_buf_dispose(&full);
	loom_buf_dispose(&md5b64);
	http_response_dispose(&resp);
	return rc;
}

int s3_remove_many(loom_store *st, const char *const *keys, size_t n, int *results)
{
	s3_store *s = (s3_store *)st;
	loom_error first;
	size_t at;
	int rc = 0;
	for (at = 0; at < n; at += S3_DELETE_BATCH) {
		size_t m = n - at < S3_DELETE_BATCH ? n - at : S3_DELETE_BATCH;
		int brc = delete_batch(s, keys + at, m, results + at);
		if (brc < 0 && rc == 0) {
			rc = brc;
			loom_err_copy(&first);
		}
	}
	if (rc < 0)
		loom_err(first.code, first.klass, "%s", first.message);
	return rc;
}
