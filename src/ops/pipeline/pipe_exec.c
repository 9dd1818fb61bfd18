/* ops/pipeline/pipe_exec.c - the executor of the rewrite pipeline: runs units
 * (reader -> [stage] -> writer) on one pool of a fixed number of workers
 * under one memory budget. The only place the pipeline makes threads.
 *
 * Scheduling: with at least as many units as workers, every worker takes
 * units one after another and runs each alone (one reader, one writer).
 * With fewer units than workers, units run one at a time on the calling
 * thread and the pool serves the unit's stages: several reading threads,
 * several output lanes, or (one lane) a writer thread fed batch by batch
 * while the stage makes the next, with columns encoded in parallel. */
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include "ops/pipeline/pipe_ahead.h"
#include "ops/pipeline/pipe_read.h"
#include "ops/pipeline/pipe_schema.h"
#include "ops/pipeline/pipe_write.h"
#include "ops/pipeline/pipeline.h"
#include "util/alloc.h"
#include "util/cpu_budget.h"
#include "util/error.h"

#define OPS_ERR(code, ...) loom_err((code), LOOM_ERRCLASS_OPS, __VA_ARGS__)

struct pipe_exec {
	const pipe_settings *set;
	loom_threadpool *pool;
	size_t workers;
	int64_t memory;
};

int pipe_exec_new(pipe_exec **out, const pipe_settings *set, size_t workers, int64_t memory)
{
	pipe_exec *x = loom_calloc(1, sizeof(*x));
	int rc;
	*out = NULL;
	if (!x)
		return OPS_ERR(LOOM_ENOMEM, "out of memory");
	x->set = set;
	/* the workers compute: their slots come from the process's budget
	 * (util/cpu_budget.h), so side-by-side runs share the cores */
	x->workers = loom_cpu_budget_take(workers);
	x->memory = memory > 0 ? memory : PIPE_DEFAULT_MEMORY;
	if ((rc = loom_threadpool_new_named(&x->pool, x->workers, "loom-cpu")) < 0) {
		loom_cpu_budget_give(x->workers);
		loom_free(x);
		return rc;
	}
	*out = x;
	return 0;
}

void pipe_exec_free(pipe_exec *x)
{
	if (!x)
		return;
	loom_threadpool_free(x->pool);
	loom_cpu_budget_give(x->workers);
	loom_free(x);
}

size_t pipe_exec_workers(const pipe_exec *x)
{
	return x->workers;
}

/* ---- one unit ------------------------------------------------------------ */

typedef struct unit_run {
	pipe_exec *x;
	pipe_unit *u;
	size_t workers;
	int64_t memory;
	pipe_schema os;
	pipe_footers own_fc;          /* when the unit keeps none */
	pipe_footers *fc;             /* the unit's or own_fc */
	pipe_env env;
	pq_writer_opts wopts;
	uint8_t *mask;                /* output leaves to read */
	int projected;                /* some leaf not read */
} unit_run;

static void unit_writer(unit_run *ur, pipe_writer *pw, pipe_result *res, int column_parallel)
{
	pq_writer_opts o = ur->wopts;
	o.pool = column_parallel ? ur->x->pool : NULL;
	pipe_writer_init(pw, ur->x->set, ur->os.nodes, ur->os.num_nodes, ur->os.schema, ur->u->files[0],
	                 &o, res);
	pw->stats_leaves = ur->os.data_leaves;
}

/* What one of `readers` reading threads may decode at once: an eighth of
 * the unit's memory between them, from 2 to 64 MiB; a larger input row
 * group is read in slices (pipe_reader.batch_bytes). */
static size_t reader_batch_bytes(const unit_run *ur, size_t readers)
{
	int64_t b = ur->memory / 8 / (int64_t)(readers ? readers : 1);
	if (b < ((int64_t)2 << 20))
		b = (int64_t)2 << 20;
	if (b > ((int64_t)64 << 20))
		b = (int64_t)64 << 20;
	return (size_t)b;
}

/* Row groups near the location's row_group_size: bytes per row from the
 * first file's footer. */
static void size_row_groups(unit_run *ur)
{
	const pq_file_meta *m = pq_footer_meta(ur->fc->footers[0]);
	int64_t rows = 0, bytes = 0;
	size_t g;
	if (ur->x->set->row_group_rows <= 0)
		return;
	for (g = 0; g < m->num_row_groups; g++) {
		rows += m->row_groups[g].num_rows;
		bytes += m->row_groups[g].total_byte_size;
	}
	if (rows > 0 && bytes > 0)
		ur->wopts.row_group_bytes =
		    (size_t)((double)bytes / (double)rows * (double)ur->x->set->row_group_rows);
}

/* Footers, output schema, the stage's begin. */
static int unit_begin(unit_run *ur)
{
	const pipe_settings *set = ur->x->set;
	pipe_unit *u = ur->u;
	size_t i, nleaves;
	LOOM_TRY(pipe_schema_init(&ur->os, set->snap));
	ur->fc = u->footers ? u->footers : &ur->own_fc;
	if (!ur->fc->footers) {
		int rc = pipe_footers_load(ur->fc, set->store, u->files, u->num_files, ur->x->pool);
		if (rc < 0) {
			pipe_footers_dispose(ur->fc); /* a kept set is whole or empty */
			return rc;
		}
	}
	LOOM_TRY(pipe_footers_merge_schemas(ur->fc, u->files, &ur->os));
	LOOM_TRY(pipe_schema_finish(&ur->os));
	ur->wopts = set->wopts;
	size_row_groups(ur);
	/* pages of at most 1/32 of a small target, so a file's compressed
	 * size is known well before it reaches the target
	 * (pq_writer_estimated_size) */
	if (set->file_bytes && set->file_bytes / 32 < (uint64_t)(ur->wopts.page_bytes ? ur->wopts.page_bytes : 1 << 20))
		ur->wopts.page_bytes = set->file_bytes / 32 < 8192 ? 8192 : (size_t)(set->file_bytes / 32);
	nleaves = ur->os.schema->num_leaves;
	ur->mask = loom_malloc(nleaves + 1);
	if (!ur->mask)
		return OPS_ERR(LOOM_ENOMEM, "out of memory");
	memset(ur->mask, 1, nleaves + 1);
	ur->env.set = set;
	ur->env.schema = ur->os.schema;
	ur->env.input_bytes = ur->fc->input_bytes;
	ur->env.input_rows = ur->fc->input_rows;
	ur->env.input_file_bytes = (uint64_t)(u->bytes > 0 ? u->bytes : 0);
	ur->env.num_files = u->num_files;
	ur->env.workers = ur->workers;
	ur->env.memory = ur->memory;
	ur->env.pool = ur->x->pool;
	ur->env.wopts = &ur->wopts;
	if (u->ops && u->ops->begin)
		LOOM_TRY(u->ops->begin(u->stage, &ur->env, ur->mask));
	for (i = 0; i < nleaves; i++)
		ur->projected |= !ur->mask[i];
	return 0;
}

static void unit_dispose(unit_run *ur)
{
	pipe_footers_dispose(&ur->own_fc);
	pipe_schema_dispose(&ur->os);
	loom_free(ur->mask);
}

/* reader -> writer: every file in order into one writer, each batch
 * standing for its share of its file's bytes; row groups that need no
 * change (see pipe_writer_copy) are copied without decoding. */
typedef struct copy_sink {
	pipe_writer pw;
	double in_per_row;            /* the current file's bytes per row */
} copy_sink;

static int emit_to_writer(void *arg, const pq_batch *b)
{
	copy_sink *cs = arg;
	return pipe_writer_put(&cs->pw, b, (double)b->num_rows * cs->in_per_row);
}

static int copy_to_writer(void *arg, pq_reader *r, size_t g)
{
	copy_sink *cs = arg;
	return pipe_writer_copy(&cs->pw, r, g);
}

static int copy_unit(unit_run *ur)
{
	pipe_unit *u = ur->u;
	pipe_reader rd;
	pipe_ahead *ahead = NULL;
	copy_sink cs;
	size_t i, depth = pipe_ahead_depth(ur->x->set->store, u->num_files, ur->memory);
	int rc = 0;
	if (depth && (rc = pipe_ahead_new(&ahead, ur->x->set->store, ur->fc, ur->x->pool, depth)) < 0)
		return rc;
	pipe_reader_init(&rd, ur->x->set, &ur->os, NULL);
	rd.batch_bytes = reader_batch_bytes(ur, 1);
	unit_writer(ur, &cs.pw, &u->result, ur->workers > 1);
	cs.pw.in_left = (double)(u->bytes > 0 ? u->bytes : 0);
	for (i = 0; i < u->num_files && rc == 0; i++) {
		const pq_file_meta *m = pq_footer_meta(ur->fc->footers[i]);
		cs.in_per_row = m->num_rows > 0 ? (double)pq_footer_file_size(ur->fc->footers[i]) / (double)m->num_rows : 0;
		if (ahead)
			pipe_ahead_take(ahead, i, &rd.r);
		rc = pipe_reader_file(&rd, u->files[i], ur->fc->footers[i], emit_to_writer,
		                      ur->x->set->copy_min_bytes ? copy_to_writer : NULL, &cs, &u->result);
	}
	pipe_ahead_free(ahead); /* before the writer's end: no fetch outlives a failure */
	if (rc == 0)
		rc = pipe_writer_finish(&cs.pw);
	if (rc < 0)
		pipe_writer_abort(&cs.pw);
	pipe_reader_dispose(&rd);
	return rc;
}

/* ---- reading into a stage, by one or several threads -------------------- */

typedef struct read_task {
	unit_run *ur;
	size_t worker, stride, batch_bytes;
	atomic_size_t *next;
	atomic_int *failed;
	pipe_result counts;
	int rc;
	loom_error err;
} read_task;

static int emit_to_stage(void *arg, const pq_batch *b)
{
	read_task *t = arg;
	return t->ur->u->ops->push(t->ur->u->stage, t->worker, b);
}

static void read_task_run(void *arg)
{
	read_task *t = arg;
	unit_run *ur = t->ur;
	pipe_reader rd;
	pipe_reader_init(&rd, ur->x->set, &ur->os, ur->projected ? ur->mask : NULL);
	rd.batch_bytes = t->batch_bytes;
	for (;;) {
		size_t i = atomic_fetch_add(t->next, t->stride);
		if (i >= ur->u->num_files || atomic_load(t->failed))
			break;
		t->rc = pipe_reader_file(&rd, ur->u->files[i], ur->fc->footers[i], emit_to_stage, NULL, t,
		                         &t->counts);
		if (t->rc < 0) {
			loom_err_copy(&t->err);
			atomic_store(t->failed, 1);
			break;
		}
	}
	pipe_reader_dispose(&rd);
}

static int read_into_stage(unit_run *ur)
{
	pipe_unit *u = ur->u;
	size_t readers = u->ops->readers ? u->ops->readers(u->stage) : 1, i;
	size_t stride = u->ops->file_stride ? u->ops->file_stride(u->stage) : 1;
	atomic_size_t next = 0;
	atomic_int failed = 0;
	loom_taskgroup g;
	read_task *t;
	int rc = 0;
	if (stride < 1)
		stride = 1;
	if (readers > ur->workers)
		readers = ur->workers;
	if (readers > u->num_files)
		readers = u->num_files;
	if (readers < 1)
		readers = 1;
	t = loom_calloc(readers, sizeof(*t));
	if (!t)
		return OPS_ERR(LOOM_ENOMEM, "out of memory");
	loom_taskgroup_init(&g, readers > 1 ? ur->x->pool : NULL);
	for (i = 0; i < readers; i++) {
		t[i].ur = ur;
		t[i].worker = i;
		t[i].stride = stride;
		t[i].batch_bytes = reader_batch_bytes(ur, readers);
		t[i].next = &next;
		t[i].failed = &failed;
		loom_taskgroup_run(&g, read_task_run, &t[i]);
	}
	loom_taskgroup_wait(&g);
	for (i = 0; i < readers; i++) {
		if (rc == 0 && t[i].rc < 0)
			rc = loom_err_raise(&t[i].err);
		u->result.rows_in += t[i].counts.rows_in;
		u->result.rows_deleted += t[i].counts.rows_deleted;
	}
	loom_free(t);
	return rc;
}

/* ---- output lanes -------------------------------------------------------- */

typedef struct lane_task {
	unit_run *ur;
	size_t lane;
	pipe_result res;              /* files this lane wrote */
	int rc;
	loom_error err;
} lane_task;

static void lane_task_run(void *arg)
{
	lane_task *t = arg;
	pipe_unit *u = t->ur->u;
	pipe_writer pw;
	/* with several workers, column-parallel encoding too: a lane that
	 * runs on after the others finished gets their threads instead of
	 * running alone on one core */
	unit_writer(t->ur, &pw, &t->res, t->ur->workers > 1);
	for (;;) {
		const pq_batch *b = NULL;
		if ((t->rc = u->ops->pull(u->stage, t->lane, &b)) < 0 || !b)
			break;
		if ((t->rc = pipe_writer_put(&pw, b, 0)) < 0)
			break;
	}
	if (t->rc == 0)
		t->rc = pipe_writer_finish(&pw);
	if (t->rc < 0) {
		loom_err_copy(&t->err);
		pipe_writer_abort(&pw);
	}
}

static int run_lanes(unit_run *ur, size_t nlanes)
{
	lane_task *t = loom_calloc(nlanes, sizeof(*t));
	loom_taskgroup g;
	size_t i;
	int rc = 0;
	if (!t)
		return OPS_ERR(LOOM_ENOMEM, "out of memory");
	loom_taskgroup_init(&g, ur->x->pool);
	for (i = 0; i < nlanes; i++) {
		t[i].ur = ur;
		t[i].lane = i;
		loom_taskgroup_run(&g, lane_task_run, &t[i]);
	}
	loom_taskgroup_wait(&g);
	for (i = 0; i < nlanes; i++) {
		if (rc == 0 && t[i].rc < 0)
			rc = loom_err_raise(&t[i].err);
		if (pipe_result_take(&ur->u->result, &t[i].res) < 0) {
			/* cannot record them: delete them here */
			size_t j;
			for (j = 0; j < t[i].res.num_files; j++)
				ur->x->set->store->remove(ur->x->set->store, t[i].res.files[j].key);
			if (rc == 0)
				rc = OPS_ERR(LOOM_ENOMEM, "out of memory");
		}
		pipe_result_dispose(&t[i].res);
	}
	loom_free(t);
	return rc;
}

/* One lane, written on a second thread: the writer encodes batch k while
 * the stage makes batch k + 1 (pipe_stage_ops.pull keeps k valid). */
typedef struct write_pipe {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	pipe_writer *pw;
	const pq_batch *slot;         /* handed over, not yet written */
	int stop, rc;
	loom_error err;
} write_pipe;

static void write_pipe_run(void *arg)
{
	write_pipe *p = arg;
	pthread_mutex_lock(&p->mu);
	for (;;) {
		const pq_batch *b;
		int rc;
		while (!p->slot && !p->stop)
			pthread_cond_wait(&p->cv, &p->mu);
		if (!p->slot)
			break;
		b = p->slot;
		pthread_mutex_unlock(&p->mu);
		rc = p->rc < 0 ? 0 : pipe_writer_put(p->pw, b, 0);
		pthread_mutex_lock(&p->mu);
		if (rc < 0 && p->rc == 0) {
			p->rc = rc;
			loom_err_copy(&p->err);
		}
		p->slot = NULL;
		pthread_cond_broadcast(&p->cv);
	}
	pthread_mutex_unlock(&p->mu);
}

/* Wait until the batch in flight is written; hand over b (NULL: none). */
static int write_pipe_put(write_pipe *p, const pq_batch *b)
{
	int rc;
	pthread_mutex_lock(&p->mu);
	while (p->slot)
		pthread_cond_wait(&p->cv, &p->mu);
	rc = p->rc;
	if (rc == 0 && b) {
		p->slot = b;
		pthread_cond_broadcast(&p->cv);
	}
	pthread_mutex_unlock(&p->mu);
	if (rc < 0)
		return loom_err_raise(&p->err);
	return 0;
}

static int run_piped(unit_run *ur)
{
	pipe_unit *u = ur->u;
	pipe_writer pw;
	write_pipe p;
	loom_taskgroup g;
	int rc = 0, rc2;
	memset(&p, 0, sizeof(p));
	unit_writer(ur, &pw, &u->result, 1);
	p.pw = &pw;
	pthread_mutex_init(&p.mu, NULL);
	pthread_cond_init(&p.cv, NULL);
	/* the writer blocks on the hand-off: it takes a pool thread of its own,
	 * which the executor keeps free (one unit at a time here) */
	loom_taskgroup_init(&g, ur->x->pool);
	loom_taskgroup_run(&g, write_pipe_run, &p);
	for (;;) {
		const pq_batch *b = NULL;
		if ((rc = u->ops->pull(u->stage, 0, &b)) < 0 || !b)
			break;
		if ((rc = write_pipe_put(&p, b)) < 0)
			break;
	}
	rc2 = write_pipe_put(&p, NULL); /* the last batch is written */
	pthread_mutex_lock(&p.mu);
	p.stop = 1;
	pthread_cond_broadcast(&p.cv);
	pthread_mutex_unlock(&p.mu);
	loom_taskgroup_wait(&g);
	pthread_mutex_destroy(&p.mu);
	pthread_cond_destroy(&p.cv);
	if (rc == 0)
		rc = rc2;
	if (rc == 0)
		rc = pipe_writer_finish(&pw);
	if (rc < 0)
		pipe_writer_abort(&pw);
	return rc;
}

/* Pull one lane on this thread. */
static int run_inline(unit_run *ur)
{
	lane_task t;
	memset(&t, 0, sizeof(t));
	t.ur = ur;
	lane_task_run(&t);
	if (pipe_result_take(&ur->u->result, &t.res) < 0 && t.rc == 0) {
		size_t j;
		for (j = 0; j < t.res.num_files; j++)
			ur->x->set->store->remove(ur->x->set->store, t.res.files[j].key);
		t.rc = OPS_ERR(LOOM_ENOMEM, "out of memory");
		loom_err_copy(&t.err);
	}
	pipe_result_dispose(&t.res);
	if (t.rc < 0)
		return loom_err_raise(&t.err);
	return 0;
}

static int staged_unit(unit_run *ur)
{
	pipe_unit *u = ur->u;
	size_t lanes = 1;
	LOOM_TRY(read_into_stage(ur));
	if (u->ops->end)
		LOOM_TRY(u->ops->end(u->stage, &lanes));
	if (lanes == 0)
		return 0;
	if (lanes > 1)
		return run_lanes(ur, lanes);
	return ur->workers > 1 ? run_piped(ur) : run_inline(ur);
}

static int run_unit(pipe_exec *x, pipe_unit *u, size_t workers, int64_t memory)
{
	unit_run ur;
	int rc;
	memset(&ur, 0, sizeof(ur));
	ur.x = x;
	ur.u = u;
	ur.workers = workers;
	ur.memory = memory;
	if (u->num_files == 0)
		return 0;
	if ((rc = unit_begin(&ur)) == 0)
		rc = u->ops ? staged_unit(&ur) : copy_unit(&ur);
	unit_dispose(&ur);
	return rc;
}

/* ---- the run ------------------------------------------------------------- */

typedef struct run_state {
	pipe_exec *x;
	pipe_unit *units;
	size_t n, workers_per_unit;
	int64_t memory_per_unit;
	atomic_size_t done;
	atomic_int failed;
	pipe_progress_fn progress;
	void *progress_ctx;
} run_state;

/* One unit, or its knock-on stop once another has failed. */
static int run_one(void *ctx, size_t i)
{
	run_state *s = ctx;
	pipe_unit *u = &s->units[i];
	if (atomic_load(&s->failed)) {
		u->rc = LOOM_ECANCELLED;
		loom_err(LOOM_ECANCELLED, LOOM_ERRCLASS_OPS, "stopped after another unit of work failed");
		loom_err_copy(&u->err);
		return u->rc;
	}
	u->rc = run_unit(s->x, u, s->workers_per_unit, s->memory_per_unit);
	if (u->rc < 0) {
		loom_err_copy(&u->err);
		atomic_store(&s->failed, 1);
		return u->rc;
	}
	if (s->progress)
		s->progress(s->progress_ctx, u, atomic_fetch_add(&s->done, 1) + 1, s->n);
	return 0;
}

int pipe_exec_run(pipe_exec *x, pipe_unit *units, size_t n, pipe_progress_fn progress,
                  void *progress_ctx)
{
	/* enough units for every worker: each runs units alone, one after
	 * another; fewer: one at a time here, with every worker */
	const int spread = n >= x->workers && x->workers > 1;
	run_state s = {
		.x = x,
		.units = units,
		.n = n,
		.workers_per_unit = spread ? 1 : x->workers,
		.memory_per_unit = spread ? x->memory / (int64_t)x->workers : x->memory,
		.progress = progress,
		.progress_ctx = progress_ctx,
	};
	size_t i;
	int rc;
	atomic_init(&s.done, 0);
	atomic_init(&s.failed, 0);
	rc = loom_parallel_for_on(x->pool, n, spread ? x->workers : 1, run_one, &s, NULL);
	if (rc == 0)
		return 0;
	/* the first real failure (not a knock-on stop) is the one to report */
	for (i = 0; i < n; i++)
		if (units[i].rc < 0 && units[i].rc != LOOM_ECANCELLED)
			return loom_err_raise(&units[i].err);
	for (i = 0; i < n; i++)
		if (units[i].rc < 0)
			return loom_err_raise(&units[i].err);
	return rc;
}
