/* store/http/crypto.h - the digests object-store requests are signed with, on
 * OpenSSL's libcrypto: SHA-256 (SigV4 payload and canonical-request
 * hashes), HMAC-SHA256 (SigV4 signing keys, Azure Shared Key) and MD5
 * (Content-MD5, which S3 DeleteObjects requires); RSASSA-PKCS1-v1_5 with
 * SHA-256 (RS256: the JWT a Google service account signs).
 *
 * All functions are thread-safe and return 0 or LOOM_ENOMEM / LOOM_EIO
 * (libcrypto failed) with the thread's error set. */
#ifndef LOOM_STORE_CRYPTO_H
#define LOOM_STORE_CRYPTO_H

#include <stddef.h>
#include <stdint.h>

#define CRYPTO_SHA256_LEN 32
#define CRYPTO_MD5_LEN 16

int crypto_sha256(const void *data, size_t len, uint8_t out[CRYPTO_SHA256_LEN]);
int crypto_md5(const void *data, size_t len, uint8_t out[CRYPTO_MD5_LEN]);
int crypto_hmac_sha256(const void *key, size_t key_len, const void *data, size_t len,
                       uint8_t out[CRYPTO_SHA256_LEN]);

/* Sign `data` with RS256 under the PEM private key pem[pem_len] (PKCS#8
 * or PKCS#1, unencrypted); the signature is appended to `sig` (a
 * loom_buf). LOOM_EINVAL when the key does not parse as an RSA key (the
 * message never shows it). */
struct loom_buf;
int crypto_rs256_sign(const char *pem, size_t pem_len, const void *data, size_t len,
                      struct loom_buf *sig);

/* SHA-256 over data that arrives in pieces (a part being uploaded). */
typedef struct crypto_sha256_ctx crypto_sha256_ctx;
int crypto_sha256_begin(crypto_sha256_ctx **out);
int crypto_sha256_update(crypto_sha256_ctx *c, const void *data, size_t len);
/* Write the digest and free the context (also on failure). */
int crypto_sha256_end(crypto_sha256_ctx *c, uint8_t out[CRYPTO_SHA256_LEN]);
/* Free without a digest; NULL is fine. */
void crypto_sha256_free(crypto_sha256_ctx *c);

#endif
