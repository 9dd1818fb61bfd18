/* delta/props.h - table properties (metaData.configuration) with the
 * defaults Delta implementations use, and Spark interval strings. */
#ifndef LOOM_DELTA_PROPS_H
#define LOOM_DELTA_PROPS_H

#include <stdint.h>

#include "delta/actions.h"
#include "loom/table.h"

typedef loom_table_props delta_table_props;

#define DELTA_DEFAULT_DELETED_FILE_RETENTION_MS (7LL * 24 * 3600 * 1000)
#define DELTA_DEFAULT_LOG_RETENTION_MS (30LL * 24 * 3600 * 1000)
#define DELTA_DEFAULT_CHECKPOINT_INTERVAL 10
#define DELTA_DEFAULT_NUM_INDEXED_COLS 32

/* Fill `out` from the metadata's configuration. Strings point into `m`.
 * LOOM_EINVAL naming the property and value when one cannot be parsed. */
int delta_props_parse(const delta_metadata *m, delta_table_props *out);

/* Spark CalendarInterval text -> milliseconds (see loom_interval_parse_ms). */
int delta_interval_parse_ms(const char *s, int64_t *out_ms);

#endif
