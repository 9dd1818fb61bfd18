/* store/http/http_writer.c - the parts every HTTP store's writer shares
 * (see http_writer.h). */
#include "store/http/http_writer.h"

#include <string.h>

#include "store/backend.h"
#include "util/alloc.h"
#include "util/error.h"

int http_writer_open(http_writer **out, const http_writer_kind *kind, const char *key,
                     unsigned int flags, part_pool *parts)
{
	http_writer *w;

	*out = NULL;
	LOOM_TRY(loom_store_check_key(key, "write"));
	if (!(w = loom_calloc(1, kind->size)) || !(w->key = loom_strdup(key))) {
		loom_free(w);
		return loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_STORE, "out of memory");
	}
	w->base = kind->methods;
	w->kind = kind;
	w->parts = parts;
	w->flags = flags;
	w->whole = kind->whole_log && (flags & LOOM_PUT_IF_ABSENT) &&
	           strncmp(key, "_delta_log/", 11) == 0;
	part_pool_writer_open(parts);
	*out = w;
	return 0;
}

int http_writer_append(http_writer *w, const void *data, size_t len)
{
	const uint8_t *p = data;
	const size_t size = w->parts->size;

	if (w->whole)
		return loom_buf_put(&w->all, data, len);
	while (len) {
		size_t n;
		/* held for the next byte, or left by a send that failed */
		if (w->cur_len == size)
			LOOM_TRY(w->kind->send_part(w));
		if (!w->cur && !(w->cur = part_pool_take(w->parts)))
			return LOOM_ENOMEM; /* the pool said so */
		n = size - w->cur_len < len ? size - w->cur_len : len;
		memcpy(w->cur + w->cur_len, p, n);
		w->cur_len += n;
		p += n;
		len -= n;
		if (w->cur_len == size && !w->kind->hold_full)
			LOOM_TRY(w->kind->send_part(w));
	}
	return 0;
}

int http_writer_write(loom_store_writer *base, const void *data, size_t len)
{
	return http_writer_append((http_writer *)base, data, len);
}

const void *http_writer_held(const http_writer *w, size_t *len)
{
	if (w->whole) {
		*len = w->all.size;
		return w->all.ptr ? w->all.ptr : "";
	}
	*len = w->cur_len;
	return w->cur ? (const void *)w->cur : "";
}

void http_writer_free(http_writer *w)
{
	part_pool_give(w->parts, w->cur);
	part_pool_writer_close(w->parts); /* after every part is back */
	loom_buf_dispose(&w->all);
	loom_free(w->key);
	loom_free(w);
}
