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
#include "store/http/batch_delete.h"
#include "store/http/encode.h"
#include "store/http/httpdate.h"
#include "util/alloc.h"
#include "util/clock.h"
#include "util/error.h"

#define BATCH_MAX 256

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
	http_call_init(&c, "DELETE", key, LOOM_STORE_REQ_DELETE);
	if ((rc = azure_send(s, &c, &r)) == 0)
		rc = delete_result(s, &c, &r);
	http_call_dispose(&c);
	http_response_dispose(&r);
	return rc;
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

/* batch_part_fn: a part of a 202 batch answer, the sub-response of the
 * key its Content-ID names (else of the part's place). */
static void on_part(batch_sub *subs, size_t n, size_t index, const char *p, const char *end)
{
	long id, status;
	char code[64];
	parse_part(p, end, &id, &status, code, sizeof(code));
	if (id < 0)
		id = (long)index;
	if (id >= 0 && (size_t)id < n) {
		subs[id].status = status;
		snprintf(subs[id].service, sizeof(subs[id].service), "%s", code);
		subs[id].code = batch_sub_code(status, status == 202 || status == 200 ||
		                                          (status == 404 && strcmp(code, "BlobNotFound") == 0));
	}
}

/* batch_delete_ops.build: a Blob Batch of n <= BATCH_MAX keys. */
static int build_batch(loom_store *st, const char *const *keys, size_t n, const char *boundary,
                       http_call *c, loom_buf *body)
{
	azure_store *s = (azure_store *)st;
	char date[HTTPDATE_RFC1123_LEN];
	size_t i;
	httpdate_rfc1123(loom_clock_wall_ms(loom_clock_system()), date);
	for (i = 0; i < n; i++)
		LOOM_TRY(append_subrequest(s, body, boundary, i, keys[i], date));
	LOOM_TRY(http_call_param(c, "restype", "container"));
	return http_call_param(c, "comp", "batch");
}

static int send_call(loom_store *st, http_call *c, http_response *r)
{
	return azure_send((azure_store *)st, c, r);
}

static int status_error(loom_store *st, http_call *c, const http_response *r, int code)
{
	return azure_status_error((azure_store *)st, c, r, code);
}

/* batch_delete_ops.declined: the service refuses batches (accounts with a
 * hierarchical namespace did), as opposed to a missing container. */
static int declined(const http_response *r)
{
	char code[64], msg[8];
	http_service_error(r, code, sizeof(code), msg, sizeof(msg));
	return r->status == 400 || r->status == 405 || r->status == 501 ||
	       (r->status == 404 && strcmp(code, "ContainerNotFound") != 0) ||
	       (r->status == 409 && strcmp(code, "FeatureNotSupported") == 0);
}

/* batch_delete_ops.sub_error. */
static void sub_error(loom_store *st, const char *key, const batch_sub *sub)
{
	azure_store *s = (azure_store *)st;
	const char *svc = sub->service;
	loom_err(sub->code, LOOM_ERRCLASS_STORE,
	         "DELETE container \"%s\" blob \"%s%s\" (in a Blob Batch): HTTP %ld%s%s%s", s->container,
	         s->prefix, key, sub->status, svc[0] ? " (" : "", svc, svc[0] ? ")" : "");
}

static const batch_delete_ops AZURE_DELETES = {
	BATCH_MAX, 0, "(Blob Batch)", "batch_", 202, azure_remove, build_batch, send_call,
	status_error, declined, on_part, sub_error
};

int azure_remove_many(loom_store *st, const char *const *keys, size_t n, int *results)
{
	azure_store *s = (azure_store *)st;
	return batch_delete_many(&AZURE_DELETES, &s->h, &s->batch_unsupported, keys, n, results);
}
