/* delta/log_fetch.c - windows of log files read concurrently ahead of
 * the replay (see log_fetch.h). */
#include "delta/log_fetch.h"

#include <string.h>

#include "store/client.h"
#include "util/alloc.h"
#include "util/error.h"
#include "util/threadpool.h"

typedef struct fetch_slot {
	loom_store *store;
	const char *key;
	loom_buf data;
	int rc;
	loom_error err;             /* the worker's error, when rc < 0 */
} fetch_slot;

struct delta_log_fetch {
	loom_store *store;
	const delta_log_file **files;
	size_t n;
	loom_threadpool *pool;
	fetch_slot *slots;          /* one per file of the current window */
	size_t win_first, win_count;
	size_t next;                /* the next index to take */
};

static void fetch_one(void *arg)
{
	fetch_slot *s = arg;
	s->rc = loom_store_read_all(s->store, s->key, &s->data);
	if (s->rc < 0)
		loom_err_copy(&s->err);
}

static void drop_window(delta_log_fetch *f)
{
	size_t i;
	for (i = 0; i < f->win_count; i++)
		loom_buf_dispose(&f->slots[i].data);
	f->win_count = 0;
}

/* Fetch the window that starts at `first` and wait for all of it. */
static void fetch_window(delta_log_fetch *f, size_t first)
{
	loom_taskgroup g;
	uint64_t bytes = 0;
	size_t i;

	drop_window(f);
	f->win_first = first;
	while (first + f->win_count < f->n && f->win_count < LOG_FETCH_WINDOW_FILES) {
		uint64_t size = f->files[first + f->win_count]->size;
		if (f->win_count > 0 && bytes + size > LOG_FETCH_WINDOW_BYTES)
			break;
		bytes += size;
		f->win_count++;
	}
	loom_taskgroup_init(&g, f->pool);
	for (i = 0; i < f->win_count; i++) {
		fetch_slot *s = &f->slots[i];
		memset(s, 0, sizeof(*s));
		s->store = f->store;
		s->key = f->files[first + i]->key;
		loom_taskgroup_run(&g, fetch_one, s);
	}
	loom_taskgroup_wait(&g);
}

int delta_log_fetch_new(delta_log_fetch **out, loom_store *store,
                        const delta_log_file **files, size_t n)
{
	delta_log_fetch *f;
	size_t threads = n < LOG_FETCH_THREADS ? n : LOG_FETCH_THREADS;

	*out = NULL;
	if (!(store->caps & LOOM_STORE_CAP_REQUEST_READS) || n < 2)
		return 0;
	f = loom_calloc(1, sizeof(*f));
	if (!f)
		return loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_OS, "out of memory fetching the log");
	f->store = store;
	f->files = files;
	f->n = n;
	f->slots = loom_calloc(LOG_FETCH_WINDOW_FILES, sizeof(*f->slots));
	if (!f->slots || loom_threadpool_new(&f->pool, threads) < 0) {
		delta_log_fetch_free(f);
		return loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_OS, "out of memory fetching the log");
	}
	*out = f;
	return 0;
}

int delta_log_fetch_take(delta_log_fetch *f, size_t i, loom_buf *out)
{
	fetch_slot *s;

	if (i != f->next || i >= f->n)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_DELTA,
		                "log fetch: file %zu taken out of order (next is %zu)", i, f->next);
	if (i >= f->win_first + f->win_count)
		fetch_window(f, i);
	f->next++;
	s = &f->slots[i - f->win_first];
	if (s->rc < 0)
		return loom_err_raise(&s->err);
	*out = s->data;
	memset(&s->data, 0, sizeof(s->data));
	return 0;
}

void delta_log_fetch_free(delta_log_fetch *f)
{
	if (!f)
		return;
	drop_window(f);
	loom_threadpool_free(f->pool);
	loom_free(f->slots);
	loom_free(f);
}
