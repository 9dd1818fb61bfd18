/* delta/z85.c - Z85 encoding (ZeroMQ RFC 32), used by deletion vectors. */
#include "delta/dv.h"

#include <string.h>

#include "util/error.h"

static const char z85_chars[] =
	"0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#";

/* No lazily built table: decoding may run on several threads at once. */
static int z85_value(unsigned char c)
{
	const char *p = c ? memchr(z85_chars, c, 85) : NULL;
	return p ? (int)(p - z85_chars) : -1;
}

int delta_z85_decode(const char *s, size_t len, loom_buf *out)
{
	size_t i, j;
	if (len % 5)
		return loom_err(LOOM_ECORRUPT, LOOM_ERRCLASS_DELTA,
		                "Z85 text of %zu characters is not a multiple of 5", len);
	LOOM_TRY(loom_buf_grow(out, len / 5 * 4));
	for (i = 0; i < len; i += 5) {
		uint64_t v = 0;
		unsigned char b[4];
		for (j = 0; j < 5; j++) {
			int d = z85_value((unsigned char)s[i + j]);
			if (d < 0)
				return loom_err(LOOM_ECORRUPT, LOOM_ERRCLASS_DELTA,
				                "invalid Z85 character 0x%02x at offset %zu",
				                (unsigned char)s[i + j], i + j);
			v = v * 85 + (uint64_t)d;
		}
		if (v > 0xffffffffu)
			return loom_err(LOOM_ECORRUPT, LOOM_ERRCLASS_DELTA,
			                "Z85 group at offset %zu overflows 32 bits", i);
		b[0] = (unsigned char)(v >> 24);
		b[1] = (unsigned char)(v >> 16);
		b[2] = (unsigned char)(v >> 8);
		b[3] = (unsigned char)v;
		LOOM_TRY(loom_buf_put(out, b, 4));
	}
	return 0;
}

int delta_z85_encode(const uint8_t *data, size_t len, loom_buf *out)
{
	size_t i;
	int j;
	if (len % 4)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_DELTA,
		                "Z85 input of %zu bytes is not a multiple of 4", len);
	for (i = 0; i < len; i += 4) {
		uint32_t v = ((uint32_t)data[i] << 24) | ((uint32_t)data[i + 1] << 16) |
		             ((uint32_t)data[i + 2] << 8) | data[i + 3];
		char c[5];
		for (j = 4; j >= 0; j--) {
			c[j] = z85_chars[v % 85];
			v /= 85;
		}
		LOOM_TRY(loom_buf_put(out, c, 5));
	}
	return 0;
}
