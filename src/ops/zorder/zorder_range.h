/* ops/zorder/zorder_range.h - Z-order of one key range of a partition, for plans
 * executed elsewhere (ops/dist/dist.h).
 *
 * The driver samples each partition once (the sampler stage) and ships
 * the quantile boundaries it built in the plan as JSON, with quantiles of
 * the sampled keys; every unit loads the same boundaries, so every machine
 * computes the same key for a row as a single-machine run would.
 * A unit owns a range [lo, hi) of keys: its stage keys each batch, keeps
 * the rows in its range and hands them to the ordinary sorter stage
 * (ops/zorder/zorder_stages.h), which sorts them in its own memory budget
 * (spilling by sub-range when they do not fit) and writes them. The
 * partition's units together write every row exactly once. */
#ifndef LOOM_OPS_ZORDER_RANGE_H
#define LOOM_OPS_ZORDER_RANGE_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "ops/pipeline/pipeline.h"
#include "ops/zorder/zorder_keys.h"
#include "ops/zorder/zorder_stages.h"

/* What a unit needs of a finished sampler's keys, as JSON (new reference;
 * NULL: no memory): {"rows": estimated partition rows, "columns": [per
 * column: null when in no file, else its quantile boundaries: integers
 * (fixed-width kinds, the order-preserving 64-bit code) or hex strings
 * (bytes)], "keys": up to ZRANGE_PLAN_KEYS quantiles of the sampled rows'
 * keys, 16 hex digits each, ascending (sub-ranges are cut from them)}. */
#define ZRANGE_PLAN_KEYS 4096
json_t *zkeys_sample_to_json(const zkeys *k);

/* The most boundaries any column of such JSON has (>= 1): the sample_cap
 * to zkeys_init with before loading it. */
size_t zkeys_json_bounds_max(const json_t *sample);

/* Rebuild keys from such JSON after zkeys_init and zkeys_bind: the
 * boundaries, ranks and key quantiles. LOOM_ECORRUPT naming what does not
 * fit. */
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
