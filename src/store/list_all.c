/* store/list_all.c - a recursive listing fanned out over prefixes.
 *
 * On an object store every listing page is a request of its own (1,000
 * keys on S3, 5,000 on Azure), so listing a million objects one page
 * after the other costs a thousand round trips in a row. Tables are laid
 * out in directories (partitions, _delta_log/), which a listing with a
 * delimiter names first; their contents can then be listed side by side.
 *
 * The caller sees what the plain recursive listing gives: every object
 * once, in ascending key order, its callback called from the calling
 * thread only. Keys under one directory prefix form one contiguous run of
 * that order, in the place the prefix itself holds, so the directories
 * are emitted in turn while the workers list the ones after them. Workers
 * stay at most a window of directories ahead of the emitter, which bounds
 * what is held in memory to the objects of that window. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "store/client.h"
#include "util/alloc.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/threadpool.h"
#include "util/vec.h"

/* how many levels of directories are opened to find enough prefixes */
#define LIST_ALL_MAX_DEPTH 3
/* the most listings at once LOOM_LIST_WIDTH may ask for */
#define LIST_ALL_MAX_WIDTH 256
/* directories listed ahead of the emitter, per worker */
#define LIST_ALL_WINDOW_PER_WORKER 4

/* One listed object, its key in the owner's key buffer. */
typedef struct listed {
	size_t key_off;
	uint64_t size;
	int64_t mtime_ms;
	int is_dir;
	int is_symlink;
} listed;

/* A run of listed entries: a directory's contents, or a level's children. */
typedef struct listing {
	loom_vec entries;      /* listed */
	loom_buf keys;         /* NUL-separated keys */
} listing;

static void listing_init(listing *l)
{
	loom_vec_init(&l->entries, sizeof(listed));
	memset(&l->keys, 0, sizeof(l->keys));
}

static void listing_dispose(listing *l)
{
	loom_vec_dispose(&l->entries);
	loom_buf_dispose(&l->keys);
}

static int listing_add(const loom_store_entry *e, void *payload)
{
	listing *l = payload;
	listed x = { l->keys.size, e->size, e->mtime_ms, e->is_dir, e->is_symlink };
	LOOM_TRY(loom_buf_put(&l->keys, e->key, strlen(e->key) + 1));
	return loom_vec_push(&l->entries, &x);
}

static const char *listed_key(const listing *l, const listed *x)
{
	return l->keys.ptr + x->key_off;
}

static int listing_emit(const listing *l, size_t i, loom_store_list_cb cb, void *payload)
{
	const listed *x = &LOOM_VEC_AT(&l->entries, listed, i);
	loom_store_entry e = { listed_key(l, x), x->size, x->mtime_ms, x->is_dir, x->is_symlink };
	return cb(&e, payload);
}

/* The children of `dir` (a key without its trailing '/'; "" the root). */
static int list_level(loom_store *s, const char *dir, listing *out)
{
	loom_buf prefix = LOOM_BUF_INIT;
	int rc = 0;
	if (*dir && ((rc = loom_buf_puts(&prefix, dir)) < 0 || (rc = loom_buf_putc(&prefix, '/')) < 0))
		goto done;
	rc = s->list(s, prefix.ptr ? prefix.ptr : "", NULL, 0, listing_add, out);
done:
	loom_buf_dispose(&prefix);
	return rc;
}

/* ---- opening levels until there are enough directories ------------------ */

typedef struct level_ctx {
	loom_store *s;
	const listing *level;
	listing *children;   /* per entry of `level`: its children when a directory */
} level_ctx;

static int open_one(void *ctx, size_t i)
{
	level_ctx *c = ctx;
	const listed *x = &LOOM_VEC_AT(&c->level->entries, listed, i);
	if (!x->is_dir)
		return 0;
	return list_level(c->s, listed_key(c->level, x), &c->children[i]);
}

static size_t count_dirs(const listing *l)
{
	size_t i, n = 0;
	for (i = 0; i < l->entries.len; i++)
		n += LOOM_VEC_AT(&l->entries, listed, i).is_dir != 0;
	return n;
}

/* Replace every directory of `level` by its children, listed `width` at
 * a time; children keep the place of their directory, so the order holds. */
static int open_level(loom_store *s, listing *level, size_t width)
{
	level_ctx c = { s, level, NULL };
	listing next;
	size_t i, j, n = level->entries.len;
	int rc;

	c.children = loom_calloc(n ? n : 1, sizeof(listing));
	if (!c.children)
		return LOOM_ENOMEM;
	for (i = 0; i < n; i++)
		listing_init(&c.children[i]);
	listing_init(&next);
	rc = loom_parallel_for(n, width, open_one, &c, NULL);
	for (i = 0; i < n && rc == 0; i++) {
		const listed *x = &LOOM_VEC_AT(&level->entries, listed, i);
		const listing *from = x->is_dir ? &c.children[i] : level;
		size_t first = x->is_dir ? 0 : i, end = x->is_dir ? from->entries.len : i + 1;
		for (j = first; j < end && rc == 0; j++) {
			const listed *y = &LOOM_VEC_AT(&from->entries, listed, j);
			loom_store_entry e = { listed_key(from, y), y->size, y->mtime_ms, y->is_dir,
			                       y->is_symlink };
			rc = listing_add(&e, &next);
		}
	}
	for (i = 0; i < n; i++)
		listing_dispose(&c.children[i]);
	loom_free(c.children);
	if (rc < 0) {
		listing_dispose(&next);
		return rc;
	}
	listing_dispose(level);
	*level = next;
	return 0;
}

/* ---- the fan-out ---------------------------------------------------------- */

typedef struct dir_job {
	size_t at;             /* index of the directory in the top listing */
	listing found;
	int done;
	int rc;
	loom_error err;
} dir_job;

typedef struct fanout {
	loom_store *s;
	const listing *top;
	dir_job *jobs;
	size_t njobs;
	size_t window;
	pthread_mutex_t lock;
	pthread_cond_t changed;
	size_t next_job;       /* the next job a worker takes */
	size_t emitted;        /* jobs the emitter is done with */
	atomic_int stop;       /* the emitter stopped: workers finish early */
} fanout;

/* A worker's listing callback: the entry kept, unless the run stopped. */
static int keep_entry(const loom_store_entry *e, void *payload)
{
	void **pair = payload;
	fanout *f = pair[0];
	if (atomic_load_explicit(&f->stop, memory_order_relaxed))
		return 1;
	return listing_add(e, pair[1]);
}

static void fanout_worker(void *arg)
{
	fanout *f = arg;
	for (;;) {
		dir_job *j;
		loom_buf prefix = LOOM_BUF_INIT;
		void *pair[2];
		int rc;

		pthread_mutex_lock(&f->lock);
		while (!atomic_load(&f->stop) && f->next_job < f->njobs && f->next_job >= f->emitted + f->window)
			pthread_cond_wait(&f->changed, &f->lock);
		if (atomic_load(&f->stop) || f->next_job >= f->njobs) {
			pthread_mutex_unlock(&f->lock);
			return;
		}
		j = &f->jobs[f->next_job++];
		pthread_mutex_unlock(&f->lock);

		pair[0] = f;
		pair[1] = &j->found;
		rc = loom_buf_puts(&prefix, listed_key(f->top, &LOOM_VEC_AT(&f->top->entries, listed, j->at)));
		if (rc == 0)
			rc = loom_buf_putc(&prefix, '/');
		if (rc == 0)
			rc = f->s->list(f->s, prefix.ptr, NULL, LOOM_LIST_RECURSIVE, keep_entry, pair);
		loom_buf_dispose(&prefix);
		if (rc < 0)
			loom_err_copy(&j->err);

		pthread_mutex_lock(&f->lock);
		j->rc = rc;
		j->done = 1;
		pthread_cond_broadcast(&f->changed);
		pthread_mutex_unlock(&f->lock);
	}
}

/* Emit the top listing in order: objects at once, each directory's
 * contents once its worker is done with it. */
static int fanout_emit(fanout *f, loom_store_list_cb cb, void *payload)
{
	size_t i, k, job = 0;
	int rc = 0;
	for (i = 0; i < f->top->entries.len && rc == 0; i++) {
		const listed *x = &LOOM_VEC_AT(&f->top->entries, listed, i);
		dir_job *j;
		if (!x->is_dir) {
			rc = listing_emit(f->top, i, cb, payload);
			continue;
		}
		j = &f->jobs[job++];
		pthread_mutex_lock(&f->lock);
		while (!j->done)
			pthread_cond_wait(&f->changed, &f->lock);
		pthread_mutex_unlock(&f->lock);
		if (j->rc < 0) {
			rc = loom_err_raise(&j->err);
			break;
		}
		for (k = 0; k < j->found.entries.len && rc == 0; k++)
			rc = listing_emit(&j->found, k, cb, payload);
		listing_dispose(&j->found);
		pthread_mutex_lock(&f->lock);
		f->emitted = job;
		pthread_cond_broadcast(&f->changed);
		pthread_mutex_unlock(&f->lock);
	}
	return rc;
}

static int fanout_run(loom_store *s, const listing *top, size_t width, loom_store_list_cb cb,
                      void *payload)
{
	loom_threadpool *pool = NULL;
	fanout f;
	size_t i, t;
	int rc;

	memset(&f, 0, sizeof(f));
	atomic_init(&f.stop, 0);
	f.s = s;
	f.top = top;
	f.njobs = count_dirs(top);
	f.window = width * LIST_ALL_WINDOW_PER_WORKER;
	f.jobs = loom_calloc(f.njobs ? f.njobs : 1, sizeof(dir_job));
	if (!f.jobs)
		return LOOM_ENOMEM;
	for (i = 0, t = 0; i < top->entries.len; i++)
		if (LOOM_VEC_AT(&top->entries, listed, i).is_dir) {
			f.jobs[t].at = i;
			listing_init(&f.jobs[t++].found);
		}
	pthread_mutex_init(&f.lock, NULL);
	pthread_cond_init(&f.changed, NULL);
	if (width > f.njobs)
		width = f.njobs;
	rc = width ? loom_threadpool_new(&pool, width) : 0;
	for (t = 0; t < width && rc == 0; t++)
		rc = loom_threadpool_submit(pool, fanout_worker, &f);
	if (rc < 0) {
		/* no worker could start: the emitter would wait forever */
		atomic_store(&f.stop, 1);
	} else {
		rc = fanout_emit(&f, cb, payload);
	}
	pthread_mutex_lock(&f.lock);
	atomic_store(&f.stop, 1);
	pthread_cond_broadcast(&f.changed);
	pthread_mutex_unlock(&f.lock);
	loom_threadpool_free(pool);   /* waits for the workers to return */
	for (i = 0; i < f.njobs; i++)
		listing_dispose(&f.jobs[i].found);
	loom_free(f.jobs);
	pthread_cond_destroy(&f.changed);
	pthread_mutex_destroy(&f.lock);
	return rc;
}

/* LOOM_LIST_WIDTH, a whole number from 1 to LIST_ALL_MAX_WIDTH, replaces
 * the caller's width: how many listings a far store serves at once is the
 * store's, and a benchmark sweeps it. */
static size_t width_from_env(size_t width)
{
	const char *v = getenv("LOOM_LIST_WIDTH");
	char *end;
	unsigned long n;
	if (!v || !*v)
		return width;
	n = strtoul(v, &end, 10);
	return *end || n < 1 || n > LIST_ALL_MAX_WIDTH ? width : (size_t)n;
}

int loom_store_list_all(loom_store *s, const char *dir, size_t width, loom_store_list_cb cb,
                        void *payload)
{
	listing top;
	size_t depth;
	int rc;

	width = width_from_env(width);
	if (width <= 1 || !(s->caps & LOOM_STORE_CAP_REQUEST_READS)) {
		loom_buf prefix = LOOM_BUF_INIT;
		if (*dir && ((rc = loom_buf_puts(&prefix, dir)) < 0 ||
		             (rc = loom_buf_putc(&prefix, '/')) < 0))
			return rc;
		rc = s->list(s, prefix.ptr ? prefix.ptr : "", NULL, LOOM_LIST_RECURSIVE, cb, payload);
		loom_buf_dispose(&prefix);
		return rc;
	}
	listing_init(&top);
	rc = list_level(s, dir, &top);
	for (depth = 1; rc == 0 && depth < LIST_ALL_MAX_DEPTH; depth++) {
		size_t dirs = count_dirs(&top);
		if (dirs == 0 || dirs >= width)
			break;
		rc = open_level(s, &top, width);
	}
	if (rc == 0)
		rc = fanout_run(s, &top, width, cb, payload);
	listing_dispose(&top);
	return rc;
}
