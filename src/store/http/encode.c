/* store/http/encode.c - hex, base64 and RFC 3986 percent-encoding. */
#include "store/http/encode.h"

#include "util/error.h"

static const char hex_lower[] = "0123456789abcdef";
static const char hex_upper[] = "0123456789ABCDEF";
static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/* An empty result is still a string. */
static int terminate(loom_buf *out)
{
	if (!out->ptr)
		return loom_buf_puts(out, "");
	out->ptr[out->size] = '\0';
	return 0;
}

void enc_hex(const uint8_t *data, size_t len, char *out)
{
	size_t i;
	for (i = 0; i < len; i++) {
		out[2 * i] = hex_lower[data[i] >> 4];
		out[2 * i + 1] = hex_lower[data[i] & 15];
	}
	out[2 * len] = '\0';
}

int enc_base64(loom_buf *out, const void *data, size_t len)
{
	const uint8_t *p = data;
	size_t i;
	char quad[4];
	LOOM_TRY(loom_buf_grow(out, (len + 2) / 3 * 4));
	for (i = 0; i + 2 < len; i += 3) {
		uint32_t v = (uint32_t)p[i] << 16 | (uint32_t)p[i + 1] << 8 | p[i + 2];
		quad[0] = b64[v >> 18];
		quad[1] = b64[(v >> 12) & 63];
		quad[2] = b64[(v >> 6) & 63];
		quad[3] = b64[v & 63];
		LOOM_TRY(loom_buf_put(out, quad, 4));
	}
	if (i < len) {
		uint32_t v = (uint32_t)p[i] << 16 | (i + 1 < len ? (uint32_t)p[i + 1] << 8 : 0);
		quad[0] = b64[v >> 18];
		quad[1] = b64[(v >> 12) & 63];
		quad[2] = i + 1 < len ? b64[(v >> 6) & 63] : '=';
		quad[3] = '=';
		LOOM_TRY(loom_buf_put(out, quad, 4));
	}
	return terminate(out);
}

static int b64_value(char c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == '+')
		return 62;
	if (c == '/')
		return 63;
	return -1;
}

int enc_base64_decode(loom_buf *out, const char *s, size_t len, const char *what)
{
	size_t i;
	if (len % 4)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_STORE,
		                "%s: base64 of %zu characters (not a multiple of 4)", what, len);
	LOOM_TRY(loom_buf_grow(out, len / 4 * 3));
	for (i = 0; i < len; i += 4) {
		int v[4], k, pad = 0;
		uint8_t bytes[3];
		for (k = 0; k < 4; k++) {
			char c = s[i + k];
			if (c == '=' && i + 4 == len && k >= 2 && (k == 3 || s[i + 3] == '=')) {
				v[k] = 0;
				pad++;
				continue;
			}
			if ((v[k] = b64_value(c)) < 0 || pad)
				return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_STORE,
				                "%s: not base64 at offset %zu", what, i + (size_t)k);
		}
		bytes[0] = (uint8_t)(v[0] << 2 | v[1] >> 4);
		bytes[1] = (uint8_t)((v[1] & 15) << 4 | v[2] >> 2);
		bytes[2] = (uint8_t)((v[2] & 3) << 6 | v[3]);
		LOOM_TRY(loom_buf_put(out, bytes, (size_t)(3 - pad)));
	}
	return terminate(out);
}

static int unreserved(unsigned char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
	       c == '-' || c == '.' || c == '_' || c == '~';
}

int enc_uri(loom_buf *out, const char *s, size_t len, unsigned int flags)
{
	size_t i;
	LOOM_TRY(terminate(out));
	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		if (unreserved(c) || (c == '/' && (flags & ENC_KEEP_SLASH))) {
			LOOM_TRY(loom_buf_putc(out, (char)c));
		} else {
			char esc[3] = { '%', hex_upper[c >> 4], hex_upper[c & 15] };
			LOOM_TRY(loom_buf_put(out, esc, 3));
		}
	}
	return 0;
}
