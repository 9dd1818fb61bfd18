/* util/secret.h - the one place that knows what a secret is and hides it.
 *
 * A storage option (or environment variable, or URL query parameter) is a
 * secret when its name says so: it contains, case-insensitively, "secret",
 * "password", "passwd", "token", "key", "credential", "signature", "sas" or
 * "authorization" and does not contain "endpoint" (AWS_ENDPOINT_URL is an
 * address, not a key). The query parameter "sig" (Azure SAS) is one too.
 *
 * A secret set holds the values to hide. Masking a text replaces each
 * occurrence of a value of the set (four bytes or longer: masking every "1"
 * would garble messages and protect nothing) with "***", and also, with no
 * set needed: the password of a URI's user-info (scheme://user:pw@host) and
 * the value of every secret name=value pair: query parameters (?sig=...,
 * &X-Amz-Signature=...) and pairs that start a word ("Signature=...").
 *
 * The config, the stores and the operations all mask with these functions,
 * so what counts as a secret is decided here only. */
#ifndef LOOM_UTIL_SECRET_H
#define LOOM_UTIL_SECRET_H

#include <stddef.h>

#include "loom/store.h"   /* loom_secret_name(), the rule above, is public */

/* The values to mask. Zero-initialise (LOOM_SECRETS_INIT). */
typedef struct loom_secrets {
	char **values;   /* owned copies */
	size_t n;
} loom_secrets;

#define LOOM_SECRETS_INIT { NULL, 0 }

/* Values shorter than this are not searched for in free text. */
#define LOOM_SECRET_MIN_LEN 4

/* Add one value (copied; duplicates and values too short to mask are
 * skipped). LOOM_ENOMEM on allocation failure. */
int loom_secrets_add(loom_secrets *s, const char *value);
/* Add the values of the secret-named options of a key/value list. */
int loom_secrets_add_options(loom_secrets *s, const loom_kv *kv, size_t n);
/* Add the values of the secret-named environment variables a store may
 * read: names starting with AWS_, AZURE_, GOOGLE_ or LOOM_. */
int loom_secrets_add_env(loom_secrets *s);
/* Add the password of scheme://user:password@host, if `uri` has one. */
int loom_secrets_add_uri_password(loom_secrets *s, const char *uri);
/* Add every value of `from`. */
int loom_secrets_add_all(loom_secrets *s, const loom_secrets *from);
void loom_secrets_dispose(loom_secrets *s);

/* Copy `text` into out[cap] (always NUL-terminated when cap > 0) with the
 * set's values, URI passwords and secret query parameter values replaced
 * by "***". `s` may be NULL (then only the URI rules apply). No allocation
 * (it runs on error paths); `out` may be `text` itself. Returns the length
 * written. */
size_t loom_secrets_mask(const loom_secrets *s, const char *text, char *out, size_t cap);

/* Mask the calling thread's last error message in place (code and class
 * are kept). Does nothing when there is no error. */
void loom_secrets_mask_error(const loom_secrets *s);

#endif
