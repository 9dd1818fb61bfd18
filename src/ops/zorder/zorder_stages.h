/* ops/zorder/zorder_stages.h - Z-order's two transform stages of the rewrite
 * pipeline (ops/pipeline/pipeline.h):
 *
 *   sampler  reader(key columns, every k-th file) -> sampler: a reservoir
 *            sample of the partition's key values, then quantile
 *            boundaries (ops/zorder/zorder_keys.h). Emits nothing: it is the
 *            planning pass, and its result is what a distributed plan
 *            would ship with the unit.
 *   sorter   reader(every column) -> sorter -> writer. Rows are held
 *            while they fit ~40 % of the unit's memory and sorted by key;
 *            a partition clearly past that (or worth several ranges on a
 *            multi-core machine) is sorted externally: every reading
 *            thread routes rows by key range (boundaries from the sample)
 *            to anonymous spill files (ops/zorder/zorder_spill.h); then each
 *            output lane loads, radix-sorts and emits a contiguous block
 *            of ranges, sized to whole output files.
 *
 * A clustering stage (liquid clustering: the delta.clustering domain's
 * columns, incremental) is the same sorter fed by another plan. */
#ifndef LOOM_OPS_ZORDER_STAGES_H
#define LOOM_OPS_ZORDER_STAGES_H

#include <stddef.h>
#include <stdint.h>

#include "ops/pipeline/pipeline.h"
#include "ops/zorder/zorder_keys.h"
#include "ops/zorder/zorder_spill.h"

/* The Z-order columns of a run. */
typedef struct zorder_columns {
	const char *const *names;    /* as given */
	const char *const *phys;     /* dotted physical paths in the files */
	size_t n;
	zc_curve curve;
	unsigned bits;
} zorder_columns;

/* ---- sampler ------------------------------------------------------------ */

typedef struct zsampler {
	const zorder_columns *cols;
	uint64_t seed;
	zkeys keys;                  /* the result: sample and boundaries */
	zscratch w;
	size_t nfiles;
	uint64_t input_rows;
} zsampler;

extern const pipe_stage_ops zsampler_ops;
void zsampler_dispose(zsampler *s);

/* ---- sorter ------------------------------------------------------------- */

struct zwork;
struct zlane;

typedef struct zsorter {
	const zkeys *keys;           /* a finished sampler's */
	zspill_budget *spill;        /* temp space shared by the run */
	int64_t target;              /* output file size */
	/* set in begin */
	size_t nleaves;
	size_t acc_limit;            /* rows held before going external */
	uint64_t input_bytes, input_file_bytes;
	loom_threadpool *gather_pool;/* column-parallel gather, or NULL */
	int overflow;                /* external sort */
	double bytes_per_row;
	uint64_t *range_lo;
	size_t nranges;
	zspill *spills;              /* one per range, shared by the readers */
	size_t stage_limit;
	struct zwork *work;          /* one per reading thread */
	size_t nwork;
	struct zlane *lane;
	size_t nlanes, nlane_max;
	size_t lanes_done;           /* lanes that emitted their last row (atomic):
	                                the last one left gathers on the pool */
	int failed;                  /* flushing the stages failed */
	loom_error fail_err;
} zsorter;

extern const pipe_stage_ops zsorter_ops;
void zsorter_dispose(zsorter *s);

#endif
