/* ops/compact/cluster.h - liquid clustering (PROTOCOL.md "Clustered Table"):
 * `loom compact` on a table with the clustering (or Databricks' liquid)
 * feature and clustering columns in its delta.clustering / delta.liquid
 * domain clusters by those columns, incrementally as Delta Spark does.
 *
 * Plan: the files Delta calls ZCubes are the outputs of one clustering
 * bin, tagged ZCUBE_ID (one UUID per bin) and ZCUBE_ZORDER_BY (the
 * clustering columns' logical names, a JSON list) with
 * clusteringProvider "liquid". Candidates are the live files with no
 * provider, or provider "liquid" and a ZCube clustered by the current
 * columns; files of another provider (another implementation's clustering)
 * and ZCubes of other columns are left alone. A ZCube whose files hold at
 * least the minimum cube size (100 x the target file size) is finished and
 * never rewritten; when what is left is one ZCube and nothing else, there
 * is nothing to do (a second run after the first rewrites nothing). The
 * rest, new files first, then small ZCubes by id, is packed into bins of
 * up to 1.5 x the minimum cube size.
 *
 * Execute: each bin runs the Z-order stages (ops/zorder/zorder.h) on the
 * clustering columns with the Hilbert curve, cut into files at the target.
 * Commit: as OPTIMIZE, each add with clusteringProvider "liquid" and its
 * bin's ZCube tags; operationParameters.clusterBy. The clustering domain
 * itself is not written (only ALTER CLUSTER BY changes it). */
#ifndef LOOM_OPS_CLUSTER_H
#define LOOM_OPS_CLUSTER_H

#include "delta/snapshot.h"
#include "loom/ops.h"
#include "ops/compact/compact.h"

#define CLUSTER_PROVIDER "liquid"
#define CLUSTER_MIN_CUBE_FACTOR 100

/* 1 when compaction of `snap` must cluster (the feature and at least one
 * clustering column). */
int cluster_applies(const delta_snapshot *snap);

/* Cluster the table (snap loaded by the caller) through the OPTIMIZE
 * driver (ops/optimize/optimize.h), which gates it. LOOM_EUNSUPPORTED
 * when a clustering column is missing from the schema, has no order, or
 * is left out of the Delta stats by the table's data skipping settings
 * (the protocol requires stats on every clustering column). */
int cluster_run(loom_op_result *out, loom_store *store, const delta_snapshot *snap,
                const compact_params *p);

#endif
