/* ops/pipeline/pipe_ahead.c - a ring of `depth` readers, each fetching the first
 * row group of a file ahead of the reading thread (ops/pipeline/pipe_ahead.h). */
#include "ops/pipeline/pipe_ahead.h"

#include "util/alloc.h"
#include "util/error.h"

#define AHEAD_MAX_DEPTH 4

typedef struct ahead_slot {
	pipe_ahead *a;
	pq_reader *r;                 /* opened on `file` by the fetch */
	size_t file;
	int queued;                   /* a fetch for `file` is queued or done */
	loom_taskgroup g;
} ahead_slot;

struct pipe_ahead {
	loom_store *store;
	const pipe_footers *fc;
	size_t depth;
	size_t next;                  /* the next file to queue */
	ahead_slot *slots;            /* file i in slot i % depth */
};

size_t pipe_ahead_depth(const loom_store *store, size_t num_files, int64_t memory)
{
	int64_t fits = memory / 8 / PQ_PREFETCH_MAX; /* an eighth of the memory */
	size_t depth = AHEAD_MAX_DEPTH;
	if (!(store->caps & LOOM_STORE_CAP_REQUEST_READS) || num_files < 2 || fits < 1)
		return 0;
	if ((int64_t)depth > fits)
		depth = (size_t)fits;
	return depth < num_files - 1 ? depth : num_files - 1;
}

/* On a pool thread: open the slot's reader on its file and fetch the
 * first row group. Errors are left for the reading thread to meet. */
static void fetch_run(void *arg)
{
	ahead_slot *sl = arg;
	const pq_footer *ft = sl->a->fc->footers[sl->file];
	int rc = sl->r ? pq_reader_reopen_footer(sl->r, ft) : pq_reader_open_footer(&sl->r, sl->a->store, ft);
	if (rc == 0 && pq_footer_meta(ft)->num_row_groups > 0)
		(void)pq_reader_prefetch_row_group(sl->r, 0);
}

/* Queue fetches up to (not including) file `end`, into free slots. */
static void fill(pipe_ahead *a, size_t end)
{
	if (end > a->fc->num)
		end = a->fc->num;
	while (a->next < end) {
		ahead_slot *sl = &a->slots[a->next % a->depth];
		if (sl->queued)
			return; /* its file is not taken yet */
		sl->file = a->next++;
		sl->queued = 1;
		loom_taskgroup_run(&sl->g, fetch_run, sl);
	}
}

int pipe_ahead_new(pipe_ahead **out, loom_store *store, const pipe_footers *fc, loom_threadpool *pool,
                   size_t depth)
{
	pipe_ahead *a = loom_calloc(1, sizeof(*a));
	size_t i;
	*out = NULL;
	if (!a || !(a->slots = loom_calloc(depth ? depth : 1, sizeof(ahead_slot)))) {
		loom_free(a);
		return loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_OPS, "out of memory");
	}
	a->store = store;
	a->fc = fc;
	a->depth = depth ? depth : 1;
	for (i = 0; i < a->depth; i++) {
		a->slots[i].a = a;
		loom_taskgroup_init(&a->slots[i].g, pool);
	}
	/* file 0 is read at once: fetching it ahead would gain nothing */
	a->next = 1;
	fill(a, 1 + a->depth);
	*out = a;
	return 0;
}

void pipe_ahead_take(pipe_ahead *a, size_t i, pq_reader **r)
{
	ahead_slot *sl = &a->slots[i % a->depth];
	if (sl->queued && sl->file == i) {
		pq_reader *mine = *r;
		loom_taskgroup_wait(&sl->g);
		*r = sl->r;
		sl->r = mine; /* reused by the slot's next fetch */
		sl->queued = 0;
	}
	fill(a, i + 1 + a->depth);
}

void pipe_ahead_free(pipe_ahead *a)
{
	size_t i;
	if (!a)
		return;
	for (i = 0; i < a->depth; i++) {
		loom_taskgroup_wait(&a->slots[i].g);
		pq_reader_free(a->slots[i].r);
	}
	loom_free(a->slots);
	loom_free(a);
}
