/* util/percent.c - percent-encoding for Delta paths. */
#include "util/percent.h"

#include <string.h>

#include "util/error.h"

int loom_hex_digit(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int loom_percent_decode(loom_buf *out, const char *s, size_t len)
{
	size_t i = 0, run;
	LOOM_TRY(loom_buf_grow(out, len));
	while (i < len) {
		if (s[i] != '%') {
			run = i;
			while (run < len && s[run] != '%')
				run++;
			LOOM_TRY(loom_buf_put(out, s + i, run - i));
			i = run;
			continue;
		}
		if (i + 2 >= len || loom_hex_digit((unsigned char)s[i + 1]) < 0 ||
		    loom_hex_digit((unsigned char)s[i + 2]) < 0)
			return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_INVALID,
			                "bad percent escape at offset %zu of \"%.*s\"", i,
			                (int)(len > 200 ? 200 : len), s);
		LOOM_TRY(loom_buf_putc(out, (char)(loom_hex_digit((unsigned char)s[i + 1]) * 16 +
		                                   loom_hex_digit((unsigned char)s[i + 2]))));
		i += 3;
	}
	return 0;
}

static int is_uri_path_char(unsigned char c)
{
	if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'))
		return 1;
	return c != 0 && strchr("-._~!$&'()*+,;=:@/", c) != NULL;
}

static int put_escaped(loom_buf *out, unsigned char c)
{
	static const char hex[] = "0123456789ABCDEF";
	char esc[3] = { '%', hex[c >> 4], hex[c & 15] };
	return loom_buf_put(out, esc, 3);
}

int loom_percent_encode_path(loom_buf *out, const char *s, size_t len)
{
	size_t i;
	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		if (is_uri_path_char(c))
			LOOM_TRY(loom_buf_putc(out, (char)c));
		else
			LOOM_TRY(put_escaped(out, c));
	}
	return 0;
}

static int hive_needs_escape(unsigned char c)
{
	return c < 0x20 || c == 0x7f || (c != 0 && strchr("\"#%'*/:=?\\{[]^", c) != NULL);
}

int loom_hive_escape(loom_buf *out, const char *s, size_t len)
{
	size_t i;
	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		if (hive_needs_escape(c))
			LOOM_TRY(put_escaped(out, c));
		else
			LOOM_TRY(loom_buf_putc(out, (char)c));
	}
	return 0;
}
