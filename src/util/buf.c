/* util/buf.c - growable byte buffer. */
#include "util/buf.h"

#include <stdio.h>
#include <string.h>

#include "util/alloc.h"
#include "util/error.h"

int loom_buf_grow(loom_buf *b, size_t extra)
{
	size_t need = b->size + extra + 1;
	size_t cap;
	char *p;

	if (need < b->size)
		return loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_OS, "buffer size overflow");
	if (need <= b->asize)
		return 0;
	cap = b->asize ? b->asize : 64;
	while (cap < need) {
		if (cap > SIZE_MAX / 2) {
			cap = need;
			break;
		}
		cap *= 2;
	}
	p = loom_realloc(b->ptr, cap);
	if (!p)
		return loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_OS,
		                "out of memory growing a buffer to %zu bytes", cap);
	b->ptr = p;
	b->asize = cap;
	/* terminated as soon as it exists, so an empty result that was only
	 * grown (a decode of "") is "" and not stray bytes (found by fuzzing) */
	p[b->size] = '\0';
	return 0;
}

int loom_buf_put(loom_buf *b, const void *data, size_t len)
{
	LOOM_TRY(loom_buf_grow(b, len));
	if (len)
		memcpy(b->ptr + b->size, data, len);
	b->size += len;
	b->ptr[b->size] = '\0';
	return 0;
}

int loom_buf_puts(loom_buf *b, const char *s)
{
	return loom_buf_put(b, s, strlen(s));
}

int loom_buf_putc(loom_buf *b, char c)
{
	return loom_buf_put(b, &c, 1);
}

int loom_buf_vprintf(loom_buf *b, const char *fmt, va_list ap)
{
	va_list copy;
	int n;

	va_copy(copy, ap);
	n = vsnprintf(NULL, 0, fmt, copy);
	va_end(copy);
	if (n < 0)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_INVALID, "bad format string");
	LOOM_TRY(loom_buf_grow(b, (size_t)n));
	vsnprintf(b->ptr + b->size, (size_t)n + 1, fmt, ap);
	b->size += (size_t)n;
	return 0;
}

int loom_buf_printf(loom_buf *b, const char *fmt, ...)
{
	va_list ap;
	int rc;
	va_start(ap, fmt);
	rc = loom_buf_vprintf(b, fmt, ap);
	va_end(ap);
	return rc;
}

int loom_buf_put_json_string(loom_buf *b, const char *s, size_t len)
{
	static const char hex[] = "0123456789abcdef";
	size_t i;

	LOOM_TRY(loom_buf_grow(b, len + 2));
	LOOM_TRY(loom_buf_putc(b, '"'));
	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		switch (c) {
		case '"': LOOM_TRY(loom_buf_put(b, "\\\"", 2)); break;
		case '\\': LOOM_TRY(loom_buf_put(b, "\\\\", 2)); break;
		case '\n': LOOM_TRY(loom_buf_put(b, "\\n", 2)); break;
		case '\r': LOOM_TRY(loom_buf_put(b, "\\r", 2)); break;
		case '\t': LOOM_TRY(loom_buf_put(b, "\\t", 2)); break;
		default:
			if (c < 0x20) {
				char esc[6] = { '\\', 'u', '0', '0', hex[c >> 4], hex[c & 15] };
				LOOM_TRY(loom_buf_put(b, esc, 6));
			} else {
				LOOM_TRY(loom_buf_putc(b, (char)c));
			}
		}
	}
	return loom_buf_putc(b, '"');
}

void loom_buf_clear(loom_buf *b)
{
	b->size = 0;
	if (b->ptr)
		b->ptr[0] = '\0';
}

char *loom_buf_detach(loom_buf *b)
{
	char *p = b->ptr;
	b->ptr = NULL;
	b->size = b->asize = 0;
	return p;
}

void loom_buf_dispose(loom_buf *b)
{
	loom_free(b->ptr);
	b->ptr = NULL;
	b->size = b->asize = 0;
}
