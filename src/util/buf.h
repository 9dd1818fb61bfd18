/* util/buf.h - a growable byte buffer, always NUL-terminated once allocated
 * so it can be used as a string. */
#ifndef LOOM_UTIL_BUF_H
#define LOOM_UTIL_BUF_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

typedef struct loom_buf {
	char *ptr;     /* NULL until the first write */
	size_t size;   /* bytes used, not counting the NUL */
	size_t asize;  /* bytes allocated */
} loom_buf;

#define LOOM_BUF_INIT { NULL, 0, 0 }

/* Make room for `extra` more bytes plus the NUL. LOOM_ENOMEM on failure. */
int loom_buf_grow(loom_buf *b, size_t extra);
int loom_buf_put(loom_buf *b, const void *data, size_t len);
int loom_buf_puts(loom_buf *b, const char *s);
int loom_buf_putc(loom_buf *b, char c);
int loom_buf_printf(loom_buf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
int loom_buf_vprintf(loom_buf *b, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));
/* Append `s` as a JSON string literal, quotes included. */
int loom_buf_put_json_string(loom_buf *b, const char *s, size_t len);
void loom_buf_clear(loom_buf *b);
/* Hand the bytes to the caller (free with loom_free); the buffer is reset. */
char *loom_buf_detach(loom_buf *b);
void loom_buf_dispose(loom_buf *b);

#endif
