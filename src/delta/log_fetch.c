/* delta/log_fetch.c - log files read concurrently ahead of the replay, on
 * a sliding window (see log_fetch.h).
 *
 * Workers claim files in order; file i lives in slot i % AHEAD_FILES of a
 * ring until the replay takes it. A worker waits while the file it would
 * claim is past the window, and the replay waits for its file's slot to
 * be filled; one lock and one condition serve both. */
#include "delta/log_fetch.h"

#include <pthread.h>
#include <string.h>

#include "store/client.h"
#include "util/alloc.h"
#include "util/error.h"
#include "util/threadpool.h"

typedef struct fetch_slot {
	loom_buf data;
	int rc;
	int done;                   /* read finished (rc and data set) */
	loom_error err;             /* the worker's error, when rc < 0 */
} fetch_slot;

struct delta_log_fetch {
	loom_store *store;
	const delta_log_file **files;
	size_t n;
	loom_threadpool *pool;
	fetch_slot *ring;           /* LOG_FETCH_AHEAD_FILES slots */
	pthread_mutex_t lock;
	pthread_cond_t changed;
	size_t next_claim;          /* the next file a worker reads */
	size_t next_take;           /* the next file the replay takes */
	uint64_t bytes_ahead;       /* listed bytes claimed and not yet taken */
	int stop;                   /* the replay is done: workers return */
};

/* May file `i` be claimed now? Within the window of files and bytes, or
 * the very next file the replay needs whatever its size. */
static int claimable(const delta_log_fetch *f, size_t i)
{
	if (i >= f->next_take + LOG_FETCH_AHEAD_FILES)
		return 0;
	return i == f->next_take ||
	       f->bytes_ahead + f->files[i]->size <= LOG_FETCH_AHEAD_BYTES;
}

static void fetch_worker(void *arg)
{
	delta_log_fetch *f = arg;
	for (;;) {
		fetch_slot *s;
		loom_buf data = LOOM_BUF_INIT;
		size_t i;
		int rc;

		pthread_mutex_lock(&f->lock);
		while (!f->stop && f->next_claim < f->n && !claimable(f, f->next_claim))
			pthread_cond_wait(&f->changed, &f->lock);
		if (f->stop || f->next_claim >= f->n) {
			pthread_mutex_unlock(&f->lock);
			return;
		}
		i = f->next_claim++;
		f->bytes_ahead += f->files[i]->size;
		pthread_mutex_unlock(&f->lock);

		s = &f->ring[i % LOG_FETCH_AHEAD_FILES];
		rc = loom_store_read_all(f->store, f->files[i]->key, &data);
		if (rc < 0)
			loom_err_copy(&s->err);

		pthread_mutex_lock(&f->lock);
		s->data = data;
		s->rc = rc;
		s->done = 1;
		pthread_cond_broadcast(&f->changed);
		pthread_mutex_unlock(&f->lock);
	}
}

int delta_log_fetch_new(delta_log_fetch **out, loom_store *store,
                        const delta_log_file **files, size_t n)
{
	delta_log_fetch *f;
	size_t t, threads = n < LOG_FETCH_THREADS ? n : LOG_FETCH_THREADS;
	int rc = 0;

	*out = NULL;
	if (!(store->caps & LOOM_STORE_CAP_REQUEST_READS) || n < 2)
		return 0;
	f = loom_calloc(1, sizeof(*f));
	if (!f)
		return loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_OS, "out of memory fetching the log");
	f->store = store;
	f->files = files;
	f->n = n;
	pthread_mutex_init(&f->lock, NULL);
	pthread_cond_init(&f->changed, NULL);
	f->ring = loom_calloc(LOG_FETCH_AHEAD_FILES, sizeof(*f->ring));
	if (!f->ring || loom_threadpool_new(&f->pool, threads) < 0)
		rc = LOOM_ENOMEM;
	for (t = 0; t < threads && rc == 0; t++)
		rc = loom_threadpool_submit(f->pool, fetch_worker, f);
	if (rc < 0 && t == 0) {
		/* no worker started: nothing would ever fill a slot */
		delta_log_fetch_free(f);
		return loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_OS, "out of memory fetching the log");
	}
	*out = f;
	return 0;
}

int delta_log_fetch_take(delta_log_fetch *f, size_t i, loom_buf *out)
{
	fetch_slot *s;
	loom_error err;
	int rc;

	if (i != f->next_take || i >= f->n)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_DELTA,
		                "log fetch: file %zu taken out of order (next is %zu)", i,
		                f->next_take);
	memset(&err, 0, sizeof(err));
	s = &f->ring[i % LOG_FETCH_AHEAD_FILES];
	pthread_mutex_lock(&f->lock);
	while (!s->done)
		pthread_cond_wait(&f->changed, &f->lock);
	rc = s->rc;
	if (rc < 0)
		err = s->err;   /* copied now: the slot is the next file's once taken */
	*out = s->data;
	memset(&s->data, 0, sizeof(s->data));
	s->done = 0;
	f->next_take++;
	f->bytes_ahead -= f->files[i]->size;
	pthread_cond_broadcast(&f->changed);
	pthread_mutex_unlock(&f->lock);
	if (rc < 0) {
		loom_buf_dispose(out);
		return loom_err_raise(&err);
	}
	return 0;
}

void delta_log_fetch_free(delta_log_fetch *f)
{
	size_t i;
	if (!f)
		return;
	pthread_mutex_lock(&f->lock);
	f->stop = 1;
	pthread_cond_broadcast(&f->changed);
	pthread_mutex_unlock(&f->lock);
	loom_threadpool_free(f->pool);   /* waits for the reads in flight */
	if (f->ring)
		for (i = 0; i < LOG_FETCH_AHEAD_FILES; i++)
			loom_buf_dispose(&f->ring[i].data);
	loom_free(f->ring);
	pthread_cond_destroy(&f->changed);
	pthread_mutex_destroy(&f->lock);
	loom_free(f);
}
