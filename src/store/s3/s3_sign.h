/* store/s3/s3_sign.h - AWS Signature Version 4 for S3 requests, on the
 * OpenSSL helpers of store/http/crypto.h.
 *
 * loom signs its own requests rather than use curl's CURLOPT_AWS_SIGV4,
 * which (curl 7.88) neither adds x-amz-content-sha256 nor sorts the query
 * nor encodes the path the way S3 expects (a Hive partition's '=' fails).
 * Here the caller gives the pieces unencoded; the signer encodes them
 * once (RFC 3986, the same bytes go on the wire and into the canonical
 * request), so what is signed is what is sent. */
#ifndef LOOM_STORE_S3_SIGN_H
#define LOOM_STORE_S3_SIGN_H

#include <stddef.h>
#include <stdint.h>

#include "loom/common.h"
#include "util/buf.h"

/* SHA-256 of an empty payload, and the value that leaves a payload
 * unsigned (its integrity then rests on TLS). */
#define S3_EMPTY_SHA256 "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
#define S3_UNSIGNED_PAYLOAD "UNSIGNED-PAYLOAD"

typedef struct s3_sign_request {
	const char *method;        /* "GET", "PUT", ... */
	const char *host;          /* the Host header: "bucket.s3.amazonaws.com", "127.0.0.1:7480" */
	const char *path;          /* the URL path, already encoded ("/b/k%3D1/x") */
	const loom_kv *query;      /* unencoded names and values; a value may be NULL or "" */
	size_t n_query;
	const loom_kv *headers;    /* headers to sign besides host, x-amz-date and
	                            * x-amz-content-sha256 (names any case) */
	size_t n_headers;
	const char *payload_hash;  /* hex SHA-256 of the body, or S3_UNSIGNED_PAYLOAD */
	const char *region;        /* "us-east-1" */
	const char *service;       /* "s3"; "sts" */
	int64_t now_ms;            /* the request time */
} s3_sign_request;

typedef struct s3_signing_keys {
	const char *access_key;
	const char *secret_key;
	const char *session_token; /* may be NULL */
} s3_signing_keys;

/* The canonical query string of `query` (encoded, sorted by name then
 * value, "name=value" joined by '&'), appended to `out`: also the URL's
 * query, so both always agree. */
int s3_canonical_query(const loom_kv *query, size_t n, loom_buf *out);

/* Sign: the values of the x-amz-date header (out_date, 17 bytes) and of
 * the Authorization header (appended to `authorization`). The caller sends
 * host, x-amz-date, x-amz-content-sha256 (= payload_hash), the signed
 * headers as given, and x-amz-security-token when the keys have a session
 * token (it is signed too). `canonical` (may be NULL) receives the
 * canonical request, for tests. */
int s3_sign(const s3_sign_request *rq, const s3_signing_keys *keys, char out_date[17],
            loom_buf *authorization, loom_buf *canonical);

#endif
