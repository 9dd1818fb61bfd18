/* delta/last_checkpoint.c - the _last_checkpoint checksum and writer. */
#include "delta/last_checkpoint.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "delta/log_listing.h"
#include "util/alloc.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/md5.h"
#include "util/vec.h"

#define CHECKSUM_KEY "checksum"

/* Append `"<s>"` with every byte outside the unreserved set as %XX. */
static int put_encoded(loom_buf *b, const char *s, size_t n)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t i;
	LOOM_TRY(loom_buf_putc(b, '"'));
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		    c == '-' || c == '.' || c == '_' || c == '~') {
			LOOM_TRY(loom_buf_putc(b, (char)c));
		} else {
			char esc[3] = { '%', hex[c >> 4], hex[c & 15] };
			LOOM_TRY(loom_buf_put(b, esc, 3));
		}
	}
	return loom_buf_putc(b, '"');
}

typedef struct canon {
	loom_buf path;     /* the current path, segments joined by '+' */
	loom_vec pairs;    /* char* "path=value", owned */
} canon;

static int add_pair(canon *c, json_t *v)
{
	loom_buf pair = LOOM_BUF_INIT;
	char num[64];
	char *s;
	int rc = loom_buf_put(&pair, c->path.ptr ? c->path.ptr : "", c->path.size);
	if (rc == 0)
		rc = loom_buf_putc(&pair, '=');
	if (rc == 0) {
		switch (json_typeof(v)) {
		case JSON_STRING:
			rc = put_encoded(&pair, json_string_value(v), json_string_length(v));
			break;
		case JSON_INTEGER:
			snprintf(num, sizeof(num), "%" PRId64, (int64_t)json_integer_value(v));
			rc = loom_buf_puts(&pair, num);
			break;
		case JSON_REAL:
			/* Jackson prints doubles in their shortest form; %.17g is the
			 * closest portable text (only foreign files have reals) */
			snprintf(num, sizeof(num), "%.17g", json_real_value(v));
			rc = loom_buf_puts(&pair, num);
			break;
		case JSON_TRUE: rc = loom_buf_puts(&pair, "true"); break;
		case JSON_FALSE: rc = loom_buf_puts(&pair, "false"); break;
		default: rc = loom_buf_puts(&pair, "null"); break;
		}
	}
	if (rc == 0) {
		s = loom_buf_detach(&pair);
		if (!s || loom_vec_push(&c->pairs, &s) < 0) {
			loom_free(s);
			rc = LOOM_ENOMEM;
		}
	}
	loom_buf_dispose(&pair);
	return rc;
}

/* Cut the path back to `mark` bytes (after visiting a child). */
static void path_back(canon *c, size_t mark)
{
	c->path.size = mark;
	if (c->path.ptr)
		c->path.ptr[mark] = '\0';
}

static int walk(canon *c, json_t *v, int top)
{
	size_t mark = c->path.size;
	int rc = 0;
	if (json_is_object(v)) {
		const char *k;
		json_t *x;
		json_object_foreach(v, k, x) {
			if (top && strcmp(k, CHECKSUM_KEY) == 0)
				continue;
			if (c->path.size)
				rc = loom_buf_putc(&c->path, '+');
			if (rc == 0)
				rc = put_encoded(&c->path, k, strlen(k));
			if (rc == 0)
				rc = walk(c, x, 0);
			path_back(c, mark);
			if (rc < 0)
				return rc;
		}
		return 0;
	}
	if (json_is_array(v)) {
		size_t i;
		for (i = 0; i < json_array_size(v); i++) {
			if (c->path.size)
				rc = loom_buf_putc(&c->path, '+');
			if (rc == 0)
				rc = loom_buf_printf(&c->path, "%zu", i);
			if (rc == 0)
				rc = walk(c, json_array_get(v, i), 0);
			path_back(c, mark);
			if (rc < 0)
				return rc;
		}
		return 0;
	}
	return add_pair(c, v);
}

static int cmp_pairs(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int delta_json_checksum(json_t *root, char out[33])
{
	canon c;
	loom_buf text = LOOM_BUF_INIT;
	size_t i;
	int rc;

	memset(&c, 0, sizeof(c));
	loom_vec_init(&c.pairs, sizeof(char *));
	rc = walk(&c, root, 1);
	if (rc == 0) {
		loom_vec_sort(&c.pairs, cmp_pairs);
		for (i = 0; rc == 0 && i < c.pairs.len; i++) {
			if (i)
				rc = loom_buf_putc(&text, ',');
			if (rc == 0)
				rc = loom_buf_puts(&text, *(char **)loom_vec_at(&c.pairs, i));
		}
	}
	if (rc == 0)
		loom_md5_hex(text.ptr ? text.ptr : "", text.size, out);
	for (i = 0; i < c.pairs.len; i++)
		loom_free(*(char **)loom_vec_at(&c.pairs, i));
	loom_vec_dispose(&c.pairs);
	loom_buf_dispose(&c.path);
	loom_buf_dispose(&text);
	return rc < 0 ? loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_OS, "out of memory computing a "
	                         "_last_checkpoint checksum") : 0;
}

int delta_json_checksum_ok(json_t *root)
{
	json_t *stored = json_object_get(root, CHECKSUM_KEY);
	char sum[33];
	if (!stored)
		return 1;
	if (!json_is_string(stored) || delta_json_checksum(root, sum) < 0) {
		loom_error_clear();
		return 0;
	}
	return strcmp(json_string_value(stored), sum) == 0;
}

int delta_last_checkpoint_write(loom_store *store, json_t *root)
{
	char sum[33], *text;
	loom_buf b = LOOM_BUF_INIT;
	int rc;

	json_object_del(root, CHECKSUM_KEY);
	LOOM_TRY(delta_json_checksum(root, sum));
	if (json_object_set_new(root, CHECKSUM_KEY, json_string(sum)) < 0)
		return loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_OS, "out of memory writing _last_checkpoint");
	text = json_dumps(root, JSON_COMPACT | JSON_PRESERVE_ORDER);
	if (!text)
		return loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_OS, "out of memory writing _last_checkpoint");
	rc = loom_buf_puts(&b, text);
	free(text);
	if (rc == 0)
		rc = loom_buf_putc(&b, '\n');
	if (rc == 0)
		rc = store->put(store, DELTA_LOG_DIR "_last_checkpoint", b.ptr, b.size, 0);
	loom_buf_dispose(&b);
	return rc;
}
