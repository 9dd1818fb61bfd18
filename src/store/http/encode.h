/* store/http/encode.h - the text encodings object-store requests use: hex
 * (SigV4 hashes and signatures), base64 (Content-MD5, Azure keys and
 * signatures, block ids) and RFC 3986 percent-encoding of URL paths and
 * query components (S3 SigV4 canonical requests, Azure URLs). */
#ifndef LOOM_STORE_ENCODE_H
#define LOOM_STORE_ENCODE_H

#include <stddef.h>
#include <stdint.h>

#include "util/buf.h"

/* Lowercase hex of `len` bytes into out[2 * len + 1]. */
void enc_hex(const uint8_t *data, size_t len, char *out);

/* Standard base64 (RFC 4648 section 4, '+' '/', '=' padding), appended. */
int enc_base64(loom_buf *out, const void *data, size_t len);
/* Decode standard base64 (padding required, no whitespace), appended.
 * LOOM_EINVAL naming the offset of a bad character or length; `what`
 * names the input for the message (never its value: it may be a key). */
int enc_base64_decode(loom_buf *out, const char *s, size_t len, const char *what);

/* Percent-encode per RFC 3986: the unreserved characters A-Z a-z 0-9 - . _ ~
 * stay, every other byte becomes %XX with upper-case hex - what SigV4's
 * canonical request requires and what S3 and Azure accept in URLs.
 * ENC_KEEP_SLASH leaves '/' as is (object keys in a URL path); without it
 * '/' is %2F (query parameter names and values). Appended. */
#define ENC_KEEP_SLASH 0x1u
int enc_uri(loom_buf *out, const char *s, size_t len, unsigned int flags);

#endif
