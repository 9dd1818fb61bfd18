/* store/http/crypto.c - SHA-256, HMAC-SHA256, MD5 and RS256 signatures through
 * OpenSSL 3's EVP interface (the one-shot EVP_Digest and HMAC calls are
 * thread-safe). */
#include "store/http/crypto.h"

#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/pem.h>

#include "util/buf.h"
#include "util/error.h"

#define CRYPTO_ERR(what) loom_err(LOOM_EIO, LOOM_ERRCLASS_STORE, "libcrypto: %s failed", (what))

static int digest(const EVP_MD *md, const void *data, size_t len, uint8_t *out,
                  const char *what)
{
	unsigned int n = 0;
	if (EVP_Digest(data, len, out, &n, md, NULL) != 1)
		return CRYPTO_ERR(what);
	return 0;
}

int crypto_sha256(const void *data, size_t len, uint8_t out[CRYPTO_SHA256_LEN])
{
	return digest(EVP_sha256(), data, len, out, "SHA-256");
}

int crypto_md5(const void *data, size_t len, uint8_t out[CRYPTO_MD5_LEN])
{
	return digest(EVP_md5(), data, len, out, "MD5");
}

int crypto_hmac_sha256(const void *key, size_t key_len, const void *data, size_t len,
                       uint8_t out[CRYPTO_SHA256_LEN])
{
	unsigned int n = 0;
	if (key_len > INT32_MAX ||
	    !HMAC(EVP_sha256(), key, (int)key_len, data, len, out, &n) || n != CRYPTO_SHA256_LEN)
		return CRYPTO_ERR("HMAC-SHA256");
	return 0;
}

int crypto_sha256_begin(crypto_sha256_ctx **out)
{
	EVP_MD_CTX *md = EVP_MD_CTX_new();
	*out = NULL;
	if (!md)
		return loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_STORE, "out of memory for a SHA-256 context");
	if (EVP_DigestInit_ex(md, EVP_sha256(), NULL) != 1) {
		EVP_MD_CTX_free(md);
		return CRYPTO_ERR("SHA-256 init");
	}
	/* crypto_sha256_ctx is never defined: the handle is the EVP context */
	*out = (crypto_sha256_ctx *)md;
	return 0;
}

int crypto_sha256_update(crypto_sha256_ctx *c, const void *data, size_t len)
{
	if (EVP_DigestUpdate((EVP_MD_CTX *)c, data, len) != 1)
		return CRYPTO_ERR("SHA-256 update");
	return 0;
}

int crypto_sha256_end(crypto_sha256_ctx *c, uint8_t out[CRYPTO_SHA256_LEN])
{
	unsigned int n = 0;
	int ok = EVP_DigestFinal_ex((EVP_MD_CTX *)c, out, &n) == 1 && n == CRYPTO_SHA256_LEN;
	EVP_MD_CTX_free((EVP_MD_CTX *)c);
	return ok ? 0 : CRYPTO_ERR("SHA-256 final");
}

void crypto_sha256_free(crypto_sha256_ctx *c)
{
	EVP_MD_CTX_free((EVP_MD_CTX *)c);
}

int crypto_rs256_sign(const char *pem, size_t pem_len, const void *data, size_t len,
                      loom_buf *sig)
{
	BIO *bio;
	EVP_PKEY *key;
	EVP_MD_CTX *ctx = NULL;
	size_t n = 0;
	int rc = 0;

	if (pem_len > INT32_MAX || !(bio = BIO_new_mem_buf(pem, (int)pem_len)))
		return CRYPTO_ERR("BIO_new_mem_buf");
	key = PEM_read_bio_PrivateKey(bio, NULL, NULL, NULL);
	BIO_free(bio);
	if (!key || EVP_PKEY_get_base_id(key) != EVP_PKEY_RSA) {
		EVP_PKEY_free(key);
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_STORE,
		                "the private key is not an unencrypted RSA key in PEM form");
	}
	if (!(ctx = EVP_MD_CTX_new()) || EVP_DigestSignInit(ctx, NULL, EVP_sha256(), NULL, key) != 1 ||
	    EVP_DigestSign(ctx, NULL, &n, data, len) != 1)
		rc = CRYPTO_ERR("RS256 signing");
	if (rc == 0)
		rc = loom_buf_grow(sig, n);
	if (rc == 0 && EVP_DigestSign(ctx, (unsigned char *)sig->ptr + sig->size, &n, data, len) != 1)
		rc = CRYPTO_ERR("RS256 signing");
	if (rc == 0) {
		sig->size += n;
		sig->ptr[sig->size] = '\0';
	}
	EVP_MD_CTX_free(ctx);
	EVP_PKEY_free(key);
	return rc;
}
