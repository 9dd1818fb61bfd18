/* store/azure/azure_writer.c - large objects as block blobs, streamed.
 *
 * Bytes fill a block of multipart_part_size; each full block is uploaded
 * with Put Block by a small per-writer pool (upload_concurrency blocks in
 * flight, so memory stays at (concurrency + 1) blocks; block buffers come
 * from the store's part_pool and go back to it); commit uploads the
 * last one and publishes the blob with Put Block List - create-only
 * (If-None-Match: *) for LOOM_PUT_IF_ABSENT. An object that fits one
 * block is one Put Blob instead. Nothing needs cleaning after a failure:
 * uncommitted blocks are never visible and the service drops them after
 * a week. */
#include <stdio.h>
#include <string.h>

#include "store/azure/azure_int.h"
#include "store/http/encode.h"
#include "store/http/http_writer.h"
#include "store/http/xml.h"
#include "util/alloc.h"
#include "util/error.h"
#include "util/threadpool.h"
#include "util/uuid.h"

typedef struct azure_writer azure_writer;

typedef struct block_task {
	azure_writer *w;
	size_t index;
	uint8_t *data;
	size_t len;
} block_task;

struct azure_writer {
	http_writer h;             /* first; its parts: s->blocks */
	azure_store *s;
	char id_base[40];          /* random per upload: block ids never clash */
	size_t n_blocks;           /* blocks handed to the pool */
	loom_threadpool *pool;
	pthread_mutex_t lock;
	pthread_cond_t done;
	unsigned int in_flight;
	size_t failed_index;       /* lowest failed block, SIZE_MAX when none */
	loom_error failure;
};

/* The id of block i: base64 of a fixed-length string (every id of a blob
 * must have the same length). */
static int block_id(const azure_writer *w, size_t i, loom_buf *out)
{
	char raw[64];
	int n = snprintf(raw, sizeof(raw), "%s-%06zu", w->id_base, i);
	loom_buf_clear(out);
	return enc_base64(out, raw, (size_t)n);
}

static int put_block(azure_writer *w, size_t index, const uint8_t *data, size_t len)
{
	azure_call c;
	http_response r = HTTP_RESPONSE_INIT;
	loom_buf id = LOOM_BUF_INIT;
	int rc;

	http_call_init(&c, "PUT", w->h.key, LOOM_STORE_REQ_PUT);
	c.req.body = data;
	c.req.body_len = len;
	c.req.idempotent = 1; /* the same id with the same bytes */
	rc = block_id(w, index, &id);
	if (rc == 0)
		rc = http_call_param(&c, "comp", "block");
	if (rc == 0)
		rc = http_call_param(&c, "blockid", id.ptr);
	if (rc == 0)
		rc = azure_send(w->s, &c, &r);
	if (rc == 0 && r.status != 201)
		rc = azure_status_error(w->s, &c, &r, 0);
	http_call_dispose(&c);
	http_response_dispose(&r);
	loom_buf_dispose(&id);
	return rc;
}

static void run_block(void *arg)
{
	block_task *t = arg;
	azure_writer *w = t->w;
	int rc = put_block(w, t->index, t->data, t->len);
	pthread_mutex_lock(&w->lock);
	if (rc < 0 && t->index < w->failed_index) {
		w->failed_index = t->index;
		loom_err_copy(&w->failure);
	}
	w->in_flight--;
	pthread_cond_broadcast(&w->done);
	pthread_mutex_unlock(&w->lock);
	part_pool_give(&w->s->blocks, t->data);
	loom_free(t);
}

/* The first block failure, raised on this thread; 0 when none. */
static int block_failure(azure_writer *w)
{
	int rc = 0;
	pthread_mutex_lock(&w->lock);
	if (w->failed_index != SIZE_MAX)
		rc = loom_err_raise(&w->failure);
	pthread_mutex_unlock(&w->lock);
	return rc;
}

/* Hand the filled block to the pool, waiting while enough are in flight. */
static int submit_block(http_writer *hw)
{
	azure_writer *w = (azure_writer *)hw;
	block_task *t;
	int rc;
	if (!w->pool)
		LOOM_TRY(loom_threadpool_new(&w->pool, w->s->upload_parallel));
	if (!(t = loom_calloc(1, sizeof(*t))))
		return loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_STORE, "out of memory");
	pthread_mutex_lock(&w->lock);
	while (w->in_flight >= w->s->upload_parallel)
		pthread_cond_wait(&w->done, &w->lock);
	w->in_flight++;
	pthread_mutex_unlock(&w->lock);
	t->w = w;
	t->index = w->n_blocks++;
	t->data = hw->cur;
	t->len = hw->cur_len;
	hw->cur = NULL;
	hw->cur_len = 0;
	if ((rc = loom_threadpool_submit(w->pool, run_block, t)) < 0) {
		pthread_mutex_lock(&w->lock);
		w->in_flight--;
		pthread_mutex_unlock(&w->lock);
		part_pool_give(&w->s->blocks, t->data);
		loom_free(t);
	}
	return rc;
}

/* An earlier block's failure stops the writer at once. */
static int writer_write(loom_store_writer *base, const void *data, size_t len)
{
	azure_writer *w = (azure_writer *)base;
	LOOM_TRY(block_failure(w));
	return http_writer_append(&w->h, data, len);
}

static void writer_free(azure_writer *w)
{
	if (w->pool) {
		loom_threadpool_wait(w->pool);
		loom_threadpool_free(w->pool);
	}
	pthread_mutex_destroy(&w->lock);
	pthread_cond_destroy(&w->done);
	http_writer_free(&w->h); /* after every block is back */
}

/* A committed block list of this upload is there (a retried create-only
 * Put Block List whose first attempt landed)? */
typedef struct find_block {
	const char *id;
	int found;
} find_block;

static int on_blocklist(void *ctx, const char *path, const char *text, size_t len)
{
	find_block *f = ctx;
	if (text && strcmp(path, "BlockList/CommittedBlocks/Block/Name") == 0 && strlen(f->id) == len &&
	    memcmp(f->id, text, len) == 0)
		f->found = 1;
	return 0;
}

static int committed_by_us(azure_writer *w)
{
	azure_call c;
	http_response r = HTTP_RESPONSE_INIT;
	loom_buf id = LOOM_BUF_INIT;
	find_block f = { NULL, 0 };
	http_call_init(&c, "GET", w->h.key, LOOM_STORE_REQ_GET);
	if (block_id(w, 0, &id) == 0 && http_call_param(&c, "comp", "blocklist") == 0 &&
	    http_call_param(&c, "blocklisttype", "committed") == 0 && azure_send(w->s, &c, &r) == 0 &&
	    r.status == 200) {
		f.id = id.ptr;
		xml_walk(r.body.ptr ? r.body.ptr : "", r.body.size, "block list", on_blocklist, &f);
	}
	loom_error_clear();
	http_call_dispose(&c);
	http_response_dispose(&r);
	loom_buf_dispose(&id);
	return f.found;
}

static int put_block_list(azure_writer *w)
{
	loom_buf xml = LOOM_BUF_INIT, id = LOOM_BUF_INIT;
	azure_call c;
	http_response r = HTTP_RESPONSE_INIT;
	size_t i;
	int rc;

	rc = loom_buf_puts(&xml, "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<BlockList>");
	for (i = 0; i < w->n_blocks && rc == 0; i++) {
		if ((rc = block_id(w, i, &id)) == 0)
			rc = loom_buf_printf(&xml, "<Latest>%s</Latest>", id.ptr);
	}
	if (rc == 0)
		rc = loom_buf_puts(&xml, "</BlockList>\n");
	http_call_init(&c, "PUT", w->h.key, LOOM_STORE_REQ_OTHER);
	c.req.body = xml.ptr;
	c.req.body_len = xml.size;
	c.req.idempotent = 1; /* a create-only retry that finds our blocks is checked below */
	if (rc == 0)
		rc = http_call_param(&c, "comp", "blocklist");
	if (rc == 0)
		rc = http_call_header(&c, "Content-Type", "application/xml");
	if (rc == 0 && (w->h.flags & LOOM_PUT_IF_ABSENT))
		rc = http_call_header(&c, "If-None-Match", "*");
	if (rc == 0)
		rc = azure_send(w->s, &c, &r);
	if (rc == 0 && r.status != 201) {
		if ((w->h.flags & LOOM_PUT_IF_ABSENT) && (r.status == 409 || r.status == 412)) {
			if (!committed_by_us(w)) /* as azure_put_blob: curl may have resent it */
				rc = azure_status_error(w->s, &c, &r, LOOM_EEXISTS);
		} else {
			rc = azure_status_error(w->s, &c, &r, 0);
		}
	}
	http_call_dispose(&c);
	http_response_dispose(&r);
	loom_buf_dispose(&xml);
	loom_buf_dispose(&id);
	return rc;
}

static int writer_commit(loom_store_writer *base)
{
	azure_writer *w = (azure_writer *)base;
	int rc = 0;
	if (w->n_blocks == 0) {
		/* it fits one block: one Put Blob */
		size_t len;
		const void *bytes = http_writer_held(&w->h, &len);
		rc = azure_put_blob(w->s, w->h.key, bytes, len, w->h.flags);
	} else {
		if (w->h.cur_len)
			rc = submit_block(&w->h);
		loom_threadpool_wait(w->pool);
		if (rc == 0)
			rc = block_failure(w);
		if (rc == 0)
			rc = put_block_list(w);
	}
	writer_free(w);
	return rc;
}

static void writer_abort(loom_store_writer *base)
{
	writer_free((azure_writer *)base);
}

static const http_writer_kind azure_writer_kind = {
	.size = sizeof(azure_writer),
	.methods = { writer_write, writer_commit, writer_abort },
	.send_part = submit_block,
};

int azure_writer_open(loom_store *st, const char *key, unsigned int flags, loom_store_writer **out)
{
	azure_store *s = (azure_store *)st;
	http_writer *hw;
	azure_writer *w;
	int rc;

	*out = NULL;
	LOOM_TRY(http_writer_open(&hw, &azure_writer_kind, key, flags, &s->blocks));
	w = (azure_writer *)hw;
	if ((rc = loom_uuid_v4_hex(w->id_base)) < 0) {
		http_writer_free(hw);
		return rc;
	}
	if (pthread_mutex_init(&w->lock, NULL) != 0) {
		http_writer_free(hw);
		return loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_STORE, "cannot create a mutex");
	}
	if (pthread_cond_init(&w->done, NULL) != 0) {
		pthread_mutex_destroy(&w->lock);
		http_writer_free(hw);
		return loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_STORE, "cannot create a condition variable");
	}
	w->s = s;
	w->failed_index = SIZE_MAX;
	*out = &hw->base;
	return 0;
}
