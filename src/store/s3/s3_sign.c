/* store/s3/s3_sign.c - SigV4: canonical request, string to sign, signature. */
#include "store/s3/s3_sign.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "store/http/crypto.h"
#include "store/http/encode.h"
#include "store/http/httpdate.h"
#include "util/alloc.h"
#include "util/error.h"

typedef struct encoded_pair {
	char *name;
	char *value;
} encoded_pair;

static int cmp_pairs(const void *a, const void *b)
{
	const encoded_pair *x = a, *y = b;
	int c = strcmp(x->name, y->name);
	return c ? c : strcmp(x->value, y->value);
}

static char *encode_component(const char *s)
{
	loom_buf b = LOOM_BUF_INIT;
	if (enc_uri(&b, s ? s : "", s ? strlen(s) : 0, 0) < 0) {
		loom_buf_dispose(&b);
		return NULL;
	}
	return loom_buf_detach(&b);
}

int s3_canonical_query(const loom_kv *query, size_t n, loom_buf *out)
{
	encoded_pair *pairs;
	size_t i;
	int rc = 0;

	if (n == 0)
		return loom_buf_puts(out, "");
	if (!(pairs = loom_calloc(n, sizeof(*pairs))))
		return loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_STORE, "out of memory");
	for (i = 0; i < n && rc == 0; i++) {
		pairs[i].name = encode_component(query[i].key);
		pairs[i].value = encode_component(query[i].value);
		if (!pairs[i].name || !pairs[i].value)
			rc = loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_STORE, "out of memory");
	}
	if (rc == 0)
		qsort(pairs, n, sizeof(*pairs), cmp_pairs);
	for (i = 0; i < n && rc == 0; i++)
		rc = loom_buf_printf(out, "%s%s=%s", i ? "&" : "", pairs[i].name, pairs[i].value);
	for (i = 0; i < n; i++) {
		loom_free(pairs[i].name);
		loom_free(pairs[i].value);
	}
	loom_free(pairs);
	return rc;
}

typedef struct header_line {
	char *name;          /* lower case */
	const char *value;   /* trimmed when written */
} header_line;

static int cmp_headers(const void *a, const void *b)
{
	return strcmp(((const header_line *)a)->name, ((const header_line *)b)->name);
}

/* "value" with leading/trailing blanks dropped and inner runs of blanks
 * squeezed to one, as SigV4 canonicalises header values. */
static int put_trimmed(loom_buf *out, const char *v)
{
	int space = 0, started = 0;
	for (; v && *v; v++) {
		if (*v == ' ' || *v == '\t') {
			space = started;
			continue;
		}
		if (space)
			LOOM_TRY(loom_buf_putc(out, ' '));
		space = 0;
		started = 1;
		LOOM_TRY(loom_buf_putc(out, *v));
	}
	return 0;
}

/* The canonical headers block and the signed header list. */
static int canonical_headers(const s3_sign_request *rq, const s3_signing_keys *keys,
                             const char *date, loom_buf *block, loom_buf *signed_list)
{
	size_t n = rq->n_headers + 4, used = 0, i, k;
	header_line *h = loom_calloc(n, sizeof(*h));
	int rc = 0;

	if (!h)
		return loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_STORE, "out of memory");
#define ADD(nm, val)                                                         \
	do {                                                                     \
		h[used].name = loom_strdup(nm);                                      \
		h[used].value = (val);                                               \
		if (!h[used++].name)                                                 \
			rc = loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_STORE, "out of memory"); \
	} while (0)
	ADD("host", rq->host);
	ADD("x-amz-content-sha256", rq->payload_hash);
	ADD("x-amz-date", date);
	if (keys->session_token && *keys->session_token)
		ADD("x-amz-security-token", keys->session_token);
	for (i = 0; i < rq->n_headers && rc == 0; i++) {
		if (!rq->headers[i].key)
			continue;
		ADD(rq->headers[i].key, rq->headers[i].value ? rq->headers[i].value : "");
		for (k = 0; h[used - 1].name && h[used - 1].name[k]; k++)
			h[used - 1].name[k] = (char)tolower((unsigned char)h[used - 1].name[k]);
	}
#undef ADD
	if (rc == 0)
		qsort(h, used, sizeof(*h), cmp_headers);
	for (i = 0; i < used && rc == 0; i++) {
		if ((rc = loom_buf_printf(block, "%s:", h[i].name)) == 0 &&
		    (rc = put_trimmed(block, h[i].value)) == 0 && (rc = loom_buf_putc(block, '\n')) == 0)
			rc = loom_buf_printf(signed_list, "%s%s", i ? ";" : "", h[i].name);
	}
	for (i = 0; i < used; i++)
		loom_free(h[i].name);
	loom_free(h);
	return rc;
}

static int hmac(const uint8_t *key, size_t key_len, const char *msg, uint8_t out[32])
{
	return crypto_hmac_sha256(key, key_len, msg, strlen(msg), out);
}

int s3_sign(const s3_sign_request *rq, const s3_signing_keys *keys, char out_date[17],
            loom_buf *authorization, loom_buf *canonical)
{
	loom_buf creq = LOOM_BUF_INIT, hdrs = LOOM_BUF_INIT, signed_list = LOOM_BUF_INIT,
	         sts = LOOM_BUF_INIT, key0 = LOOM_BUF_INIT;
	uint8_t digest[32], k[32];
	char hex[65], day[9];
	int rc;

	httpdate_iso_basic(rq->now_ms, out_date);
	memcpy(day, out_date, 8);
	day[8] = '\0';
	/* canonical request */
	if ((rc = loom_buf_printf(&creq, "%s\n%s\n", rq->method, rq->path[0] ? rq->path : "/")) < 0 ||
	    (rc = s3_canonical_query(rq->query, rq->n_query, &creq)) < 0 ||
	    (rc = loom_buf_putc(&creq, '\n')) < 0 ||
	    (rc = canonical_headers(rq, keys, out_date, &hdrs, &signed_list)) < 0 ||
	    (rc = loom_buf_printf(&creq, "%s\n%s\n%s", hdrs.ptr, signed_list.ptr, rq->payload_hash)) < 0)
		goto done;
	if (canonical && (rc = loom_buf_put(canonical, creq.ptr, creq.size)) < 0)
		goto done;
	/* string to sign */
	if ((rc = crypto_sha256(creq.ptr, creq.size, digest)) < 0)
		goto done;
	enc_hex(digest, 32, hex);
	if ((rc = loom_buf_printf(&sts, "AWS4-HMAC-SHA256\n%s\n%s/%s/%s/aws4_request\n%s", out_date,
	                          day, rq->region, rq->service, hex)) < 0)
		goto done;
	/* signing key: HMAC chain from "AWS4" + secret */
	if ((rc = loom_buf_printf(&key0, "AWS4%s", keys->secret_key)) < 0 ||
	    (rc = hmac((const uint8_t *)key0.ptr, key0.size, day, k)) < 0 ||
	    (rc = hmac(k, 32, rq->region, k)) < 0 || (rc = hmac(k, 32, rq->service, k)) < 0 ||
	    (rc = hmac(k, 32, "aws4_request", k)) < 0 || (rc = hmac(k, 32, sts.ptr, digest)) < 0)
		goto done;
	enc_hex(digest, 32, hex);
	rc = loom_buf_printf(authorization,
	                     "AWS4-HMAC-SHA256 Credential=%s/%s/%s/%s/aws4_request, SignedHeaders=%s, "
	                     "Signature=%s",
	                     keys->access_key, day, rq->region, rq->service, signed_list.ptr, hex);
done:
	/* the key material does not outlive the call */
	if (key0.ptr)
		memset(key0.ptr, 0, key0.size);
	memset(k, 0, sizeof(k));
	loom_buf_dispose(&creq);
	loom_buf_dispose(&hdrs);
	loom_buf_dispose(&signed_list);
	loom_buf_dispose(&sts);
	loom_buf_dispose(&key0);
	return rc;
}
