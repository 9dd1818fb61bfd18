/* store/http/http_writer.h - what every HTTP object store's streaming
 * writer (S3, Azure, GCS) is made of besides its upload protocol: the
 * loom_store_writer it is, its key and flags, and the bytes it holds -
 * the part being filled, a buffer of the store's part_pool, or, for a
 * writer that publishes with one request, every byte. A backend's writer
 * struct starts with one (as its store starts with an http_store) and
 * describes itself in an http_writer_kind. */
#ifndef LOOM_STORE_HTTP_WRITER_H
#define LOOM_STORE_HTTP_WRITER_H

#include <stdint.h>

#include "loom/store.h"
#include "store/http/part_pool.h"
#include "util/buf.h"

typedef struct http_writer http_writer;

typedef struct http_writer_kind {
	size_t size;                   /* the backend's writer struct */
	loom_store_writer methods;     /* write (http_writer_write, or one calling
	                                * http_writer_append), commit, abort */
	/* Hand the full part on: take the buffer (cur = NULL) or empty it
	 * (cur_len = 0). */
	int (*send_part)(http_writer *w);
	/* A create-only key under _delta_log/ (a commit, a checkpoint) is
	 * buffered whole and published by one create-only request at commit:
	 * for a store whose multipart completion cannot be made create-only. */
	int whole_log;
	/* A full part waits for the next byte before it is sent, so the last
	 * part (sent by commit) is never empty; else it goes as it fills. */
	int hold_full;
} http_writer_kind;

struct http_writer {
	loom_store_writer base;        /* first */
	const http_writer_kind *kind;
	part_pool *parts;              /* the store's; counted among its writers */
	char *key;                     /* relative to the root */
	unsigned int flags;            /* LOOM_PUT_* */
	int whole;                     /* bytes collect in `all` (whole_log) */
	loom_buf all;
	uint8_t *cur;                  /* the part being filled (NULL: none taken) */
	size_t cur_len;
};

/* A zeroed writer of kind->size bytes for `key` (checked, copied) with
 * kind's methods, counted among `parts`' writers. */
int http_writer_open(http_writer **out, const http_writer_kind *kind, const char *key,
                     unsigned int flags, part_pool *parts);

/* Append bytes: to `all` when whole, else into part buffers of the pool,
 * each full one handed to kind->send_part. */
int http_writer_append(http_writer *w, const void *data, size_t len);
/* The same as a writer's write method. */
int http_writer_write(loom_store_writer *base, const void *data, size_t len);

/* What one request publishes when nothing was sent: every byte when
 * whole, else the part being filled ("" when none). */
const void *http_writer_held(const http_writer *w, size_t *len);

/* Give the part buffer back, stop counting the writer among the pool's,
 * free the key, `all` and the writer (the backend's own members first). */
void http_writer_free(http_writer *w);

#endif
