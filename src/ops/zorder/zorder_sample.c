/* ops/zorder/zorder_sample.c - Z-order's sampler stage: key columns of a
 * partition's files in, a reservoir sample and quantile boundaries out. */
#include <string.h>

#include "ops/zorder/zorder_stages.h"
#include "util/error.h"

#define ZO_MAX_SAMPLE 100000
#define ZO_MIN_SAMPLE 1024
#define ZO_SAMPLE_FILES 64

static int sampler_begin(void *st, pipe_env *env, uint8_t *read)
{
	zsampler *s = st;
	size_t cap = (size_t)(env->memory / (int64_t)(256 * s->cols->n));
	cap = cap < ZO_MIN_SAMPLE ? ZO_MIN_SAMPLE : cap > ZO_MAX_SAMPLE ? ZO_MAX_SAMPLE : cap;
	s->nfiles = env->num_files;
	s->input_rows = env->input_rows;
	LOOM_TRY(zkeys_init(&s->keys, s->cols->n, s->cols->curve, s->cols->bits, cap, s->seed));
	/* read the key columns only */
	memset(read, 0, env->schema->num_leaves);
	return zkeys_bind(&s->keys, env->schema, s->cols->phys, s->cols->names, read);
}

/* The sample needs spread, not every row: at most about ZO_SAMPLE_FILES
 * files, evenly spaced over the partition's files (which are in insertion
 * order, so time-ordered appends are covered from start to end). */
static size_t sampler_stride(void *st)
{
	zsampler *s = st;
	return s->nfiles <= ZO_SAMPLE_FILES ? 1 : (s->nfiles + ZO_SAMPLE_FILES - 1) / ZO_SAMPLE_FILES;
}

static int sampler_push(void *st, size_t worker, const pq_batch *b)
{
	zsampler *s = st;
	(void)worker; /* one reader */
	if (b->num_rows == 0)
		return 0;
	LOOM_TRY(zkeys_sample(&s->keys, &s->w, b));
	s->keys.total_rows += b->num_rows;
	return 0;
}

static int sampler_end(void *st, size_t *lanes)
{
	zsampler *s = st;
	*lanes = 0;
	zscratch_dispose(&s->w);
	if (sampler_stride(s) > 1)
		s->keys.total_rows = s->input_rows; /* sampled a subset */
	return zkeys_build_bounds(&s->keys);
}

static int sampler_pull(void *st, size_t lane, const pq_batch **out)
{
	(void)st;
	(void)lane;
	*out = NULL;
	return 0;
}

const pipe_stage_ops zsampler_ops = {
	"z-order sampler", sampler_begin, NULL, sampler_stride, sampler_push, sampler_end, sampler_pull,
};

void zsampler_dispose(zsampler *s)
{
	zkeys_dispose(&s->keys);
	zscratch_dispose(&s->w);
}
