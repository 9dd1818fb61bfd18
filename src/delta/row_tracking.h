/* delta/row_tracking.h - what a writer owes row tracking (PROTOCOL.md "Row
 * Tracking", "Writer Requirements for Row Tracking"): which table
 * properties name the materialized columns, whether new files get fresh
 * row ids, and the delta.rowTracking domain's high-water mark. */
#ifndef LOOM_DELTA_ROW_TRACKING_H
#define LOOM_DELTA_ROW_TRACKING_H

#include <stdint.h>

#include "delta/snapshot.h"
#include "util/buf.h"

#define DELTA_ROW_TRACKING_DOMAIN "delta.rowTracking"

typedef struct delta_row_tracking {
	/* rowTracking is a writer feature and delta.rowTrackingSuspended is
	 * not true: every added file gets baseRowId and
	 * defaultRowCommitVersion, and the commit the new high-water mark */
	int assign;
	/* assign, and delta.enableRowTracking=true: a rewrite keeps each row's
	 * stable row id and commit version by materializing them into these
	 * columns (physical Parquet names, strings owned by the snapshot) */
	int preserve;
	const char *id_column, *version_column;
	int64_t high_water_mark;        /* -1: no row id assigned yet */
} delta_row_tracking;

/* Read the obligations from the snapshot. LOOM_EUNSUPPORTED when row
 * tracking is enabled but a materialized column name property is missing
 * (the table is not one a writer can preserve ids of). */
int delta_row_tracking_get(const delta_snapshot *snap, delta_row_tracking *out);

/* Append the delta.rowTracking domainMetadata action line for `hwm`. */
int delta_row_tracking_domain_line(loom_buf *b, int64_t hwm);

/* The rowIdHighWaterMark of a delta.rowTracking configuration string;
 * -1 when it has none. */
int64_t delta_row_tracking_parse_hwm(const char *configuration);

#endif
