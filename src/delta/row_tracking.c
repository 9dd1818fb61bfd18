/* delta/row_tracking.c - row tracking obligations of a writer. */
#include "delta/row_tracking.h"

#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "delta/protocol.h"
#include "util/error.h"

#define DELTA_ERR(code, ...) loom_err((code), LOOM_ERRCLASS_DELTA, __VA_ARGS__)

static int is_true(const char *v)
{
	return v && strcmp(v, "true") == 0;
}

int delta_row_tracking_get(const delta_snapshot *snap, delta_row_tracking *out)
{
	memset(out, 0, sizeof(*out));
	out->high_water_mark = snap->sysdom.row_id_high_water_mark;
	/* a writer feature: readers may ignore it, writers may not */
	if (!delta_protocol_has_feature(&snap->protocol, "rowTracking") ||
	    is_true(delta_snapshot_property(snap, "delta.rowTrackingSuspended")))
		return 0;
	out->assign = 1;
	if (!is_true(delta_snapshot_property(snap, "delta.enableRowTracking")))
		return 0;
	out->preserve = 1;
	out->id_column = delta_snapshot_property(snap, "delta.rowTracking.materializedRowIdColumnName");
	out->version_column =
	    delta_snapshot_property(snap, "delta.rowTracking.materializedRowCommitVersionColumnName");
	if (!out->id_column || !*out->id_column || !out->version_column || !*out->version_column)
		return DELTA_ERR(LOOM_EUNSUPPORTED,
		                 "row tracking is enabled (delta.enableRowTracking) but the table does not name "
		                 "its materialized columns (delta.rowTracking.materializedRowIdColumnName and "
		                 "...materializedRowCommitVersionColumnName): row ids cannot be preserved");
	if (strcmp(out->id_column, out->version_column) == 0)
		return DELTA_ERR(LOOM_EUNSUPPORTED,
		                 "row tracking: the materialized row id and row commit version columns "
		                 "have the same name '%s'", out->id_column);
	return 0;
}

int delta_row_tracking_domain_line(loom_buf *b, int64_t hwm)
{
	/* configuration is a JSON string holding the mark (PROTOCOL.md, Row
	 * Tracking: "rowIdHighWaterMark") */
	return loom_buf_printf(b,
	                       "{\"domainMetadata\":{\"domain\":\"" DELTA_ROW_TRACKING_DOMAIN "\","
	                       "\"configuration\":\"{\\\"rowIdHighWaterMark\\\":%lld}\",\"removed\":false}}\n",
	                       (long long)hwm);
}

int64_t delta_row_tracking_parse_hwm(const char *configuration)
{
	json_t *root = json_loads(configuration ? configuration : "", 0, NULL);
	json_t *hwm = root ? json_object_get(root, "rowIdHighWaterMark") : NULL;
	int64_t v = json_is_integer(hwm) ? (int64_t)json_integer_value(hwm) : -1;
	json_decref(root);
	return v;
}
