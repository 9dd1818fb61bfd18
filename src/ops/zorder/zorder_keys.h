/* ops/zorder/zorder_keys.h - Z-order keys of rows: per column, a rank from
 * quantile boundaries taken from a sample of the partition's values
 * (nulls rank first), the ranks interleaved along a Morton or Hilbert
 * curve (ops/zorder/zcurve.h); and key ranges (boundaries between ranges of
 * about equal row counts) for the external sort.
 *
 * The sample and the boundaries are the serializable part of a Z-order
 * plan: once built, keys of any batch of the partition follow from them
 * alone. */
#ifndef LOOM_OPS_ZORDER_KEYS_H
#define LOOM_OPS_ZORDER_KEYS_H

#include <stddef.h>
#include <stdint.h>

#include "ops/zorder/zcurve.h"
#include "parquet/batch.h"
#include "parquet/schema.h"
#include "parquet/stats.h"

#define ZO_MAX_COLUMNS 32

/* One Z-order column: its sample, then its boundaries. */
typedef struct zsample {
	long leaf;                   /* output leaf, -1: column in no file */
	long pcol;                   /* its column in a key-only batch */
	pq_cmp_kind kind;
	int fixed;
	int int96;                   /* legacy INT96 timestamps */
	size_t width;
	uint8_t *isnull;             /* per sample slot */
	uint64_t *code;              /* fixed kinds */
	uint8_t **bytes;             /* byte kinds: owned copies */
	uint32_t *blen;
	uint64_t *bcode;             /* quantile boundaries, ascending */
	uint32_t *rank_of_slot;      /* nb + 2 entries: scale_slot, precomputed */
	uint32_t *hint;              /* fixed kinds: boundaries below each bucket of
	                                codes (bcode[0] + (b << hint_shift)),
	                                nhint + 1 entries; see zkeys_slot_fixed */
	size_t nhint;
	unsigned hint_shift;
	const uint8_t **bbytes;
	uint32_t *bblen;
	size_t nb;
} zsample;

typedef struct zkeys {
	size_t n;                    /* columns */
	zc_curve curve;
	unsigned bits;               /* rank bits per column */
	zsample *cols;
	size_t sample_cap, sample_n;
	uint64_t seen, rng;          /* reservoir state */
	uint64_t total_rows;         /* rows of the partition (estimated) */
	uint64_t *qkeys;             /* without a sample: quantiles of the
	                                sample's keys, ascending (owned; a
	                                plan's partition, ops/zorder/zorder_range.h) */
	size_t nq;
	int bounds_ready;
} zkeys;

/* Per-thread scratch for keying and routing a batch. */
typedef struct zscratch {
	uint32_t *ranks;             /* rows x columns */
	uint64_t *bkeys;             /* one batch's keys */
	uint32_t *sel;
	uint32_t *range;             /* each row's key range, when routing */
	size_t *pick_row, *pick_slot;/* a batch's sampled rows */
	size_t rows;
} zscratch;

int zscratch_reserve(zscratch *w, size_t ncols, size_t rows);
void zscratch_dispose(zscratch *w);

int zkeys_init(zkeys *k, size_t ncols, zc_curve curve, unsigned bits, size_t sample_cap, uint64_t seed);
void zkeys_dispose(zkeys *k);

/* Find each column (dotted physical path phys[c], named names[c] in
 * errors) among the schema's leaves and check it can be ordered; mark its
 * leaf in `proj` (one byte per leaf) for a key-only read. */
int zkeys_bind(zkeys *k, const pq_schema *schema, const char *const *phys, const char *const *names,
               uint8_t *proj);

/* Reservoir-sample the rows of a key-only batch (columns: the marked
 * leaves in leaf order). */
int zkeys_sample(zkeys *k, zscratch *w, const pq_batch *keyonly);

/* Quantile boundaries of every column from the sample. */
int zkeys_build_bounds(zkeys *k);

/* rank_of_slot of every column once its boundaries (bcode / bbytes, nb)
 * are in place; zkeys_build_bounds ends with it. */
int zkeys_finish_bounds(zkeys *k);

/* Slot of a non-null code of a fixed-width column: 1 + the number of its
 * boundaries <= code (what ranks rows; exposed for its unit test). */
size_t zkeys_slot_fixed(const zsample *c, uint64_t code);

/* The keys of the sampled rows (or qkeys), ascending: *out owned. */
int zkeys_sorted_keys(const zkeys *k, uint64_t **out, size_t *n);

/* keys[r] for every row of a full batch (columns: every output leaf). */
int zkeys_of_batch(const zkeys *k, zscratch *w, const pq_batch *b, uint64_t *keys);

/* Up to `want` key ranges of about equal sampled rows (or qkeys): *range_lo (owned)
 * holds each range's lowest key, ascending, the first 0. */
int zkeys_ranges(const zkeys *k, size_t want, uint64_t **range_lo, size_t *nranges);

/* The fraction of sampled rows whose key is in [lo, hi) (no upper end
 * without has_hi): about that share of the partition's rows. */
int zkeys_share(const zkeys *k, uint64_t lo, uint64_t hi, int has_hi, double *share);

/* The range holding `key`. */
size_t zkeys_range_of(const uint64_t *range_lo, size_t nranges, uint64_t key);

#endif
