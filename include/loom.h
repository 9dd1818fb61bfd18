/*
 * loom.h - the umbrella header of libloom: Delta Lake table maintenance.
 *
 *   loom/errors.h   error codes and the per-thread error record
 *   loom/store.h    the object-store interface (local filesystem built in)
 *   loom/table.h    opening tables, snapshots, protocol gating, properties
 *   loom/parquet.h  reading Parquet files (schema, metadata, rows as JSON)
 *   loom/ops.h      maintenance options and results, the cancel token, the
 *                   maintainer backend, loom_vacuum / loom_compact / loom_zorder
 *   loom/checkpoint.h  writing checkpoints, expired log cleanup
 *   loom/convert.h  CONVERT TO DELTA
 *   loom/config.h   the loom storage YAML
 *   loom/plan.h     declarations, steps, the runner and its report
 *   loom/distributed.h  OPTIMIZE / Z-order as plan, execute(unit), commit
 */
#ifndef LOOM_H
#define LOOM_H

#include "loom/common.h"
#include "loom/errors.h"
#include "loom/store.h"
#include "loom/table.h"
#include "loom/parquet.h"
#include "loom/ops.h"
#include "loom/checkpoint.h"
#include "loom/convert.h"
#include "loom/config.h"
#include "loom/plan.h"
#include "loom/distributed.h"
#include "loom/metrics.h"
#include "loom/health.h"
#include "loom/auto.h"

#endif
