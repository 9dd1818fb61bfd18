/* ops/zorder_range.h - Z-order of one key range of a partition, for plans
 * executed elsewhere (ops/dist.h).
 *
 * The driver samples each partition once (the sampler stage) and ships
 * the sample in the plan as JSON; every unit rebuilds the same quantile
 * boundaries from it, so every machine computes the same key for a row.
 * A unit owns a range [lo, hi) of keys: its stage keys each batch, keeps
 * the rows in its range and hands them to the ordinary sorter stage
 * (ops/zorder_stages.h), which sorts them in its own memory budget
 * (spilling by sub-range when they do not fit) and writes them. The
 * partition's units together write every row exactly once. */
#ifndef LOOM_OPS_ZORDER_RANGE_H
#define LOOM_OPS_ZORDER_RANGE_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "ops/pipeline.h"
#include "ops/zorder_keys.h"
#include "ops/zorder_stages.h"

/* A finished sampler's sample as JSON (new reference; NULL: no memory):
 * {"rows": estimated partition rows, "n": slots, "columns": [per column:
 * null when in no file, else n values: null, an integer (fixed-width
 * kinds, the order-preserving 64-bit code) or a hex string (bytes)]}. */
json_t *zkeys_sample_to_json(const zkeys *k);

/* Rebuild keys from such JSON after zkeys_init(k, ..., sample_cap >= its
 * n) and zkeys_bind: fills the sample and builds the boundaries.
 * LOOM_ECORRUPT naming what does not fit. */
int zkeys_sample_from_json(zkeys *k, const json_t *sample);

typedef struct zrange {
	const zorder_columns *cols;
	const json_t *sample;        /* the partition's sample (borrowed) */
	uint64_t lo, hi;             /* keys lo <= key < hi ... */
	int has_hi;                  /* ... or no upper end */
	zspill_budget *spill;
	int64_t target;
	/* set in begin */
	zkeys keys;
	zsorter sorter;
	zscratch *w;                 /* per reading thread */
	pq_batch *kept;
	size_t nw;
} zrange;

extern const pipe_stage_ops zrange_ops;
void zrange_dispose(zrange *r);

#endif
