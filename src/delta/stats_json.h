/* delta/stats_json.h - the Delta per-file statistics JSON (add.stats) from
 * Parquet facts: the writer's per-leaf results for files loom writes, or
 * footer statistics merged over row groups for files it adopts (CONVERT).
 *
 * Rules (Spark's, PROTOCOL.md "Per-file Statistics"):
 *  - columns: delta.dataSkippingStatsColumns when set (names matched
 *    against the dotted Parquet path or any of its prefixes), else the
 *    first delta.dataSkippingNumIndexedCols leaf columns (-1 = all) in file
 *    order; a list or map column is one slot and gets no stats;
 *  - keys are the Parquet (= physical) names, nested structs mirrored;
 *  - minValues/maxValues for integers, floats (no NaN), decimals (JSON
 *    numbers), dates ("YYYY-MM-DD"), timestamps (ms: "...T..:..:...mmmZ" for
 *    UTC-adjusted, no zone for NTZ), strings (first 32 code points for min;
 *    max = prefix + U+007F or U+10FFFF tie-breaker, omitted if impossible);
 *    booleans, binary and INT96 get nullCount only;
 *  - nullCount for every indexed non-repeated leaf whose count is known. */
#ifndef LOOM_DELTA_STATS_JSON_H
#define LOOM_DELTA_STATS_JSON_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "parquet/schema.h"
#include "parquet/types.h"
#include "util/buf.h"

#define DELTA_STATS_STRING_PREFIX 32

typedef struct delta_stats_leaf {
	const char *const *parts;    /* path components (Parquet names) */
	size_t depth;                /* components in the stats key */
	int complex;                 /* under a list/map: one slot, no stats */
	const pq_schema_node *node;  /* the leaf's annotations */
	int64_t null_count;          /* -1 unknown */
	int has_min_max;
	const uint8_t *min, *max;    /* PLAIN bytes */
	size_t min_len, max_len;
	int max_exact;               /* 0: the max may be a truncated prefix */
} delta_stats_leaf;

typedef struct delta_stats_opts {
	int64_t num_indexed_cols;    /* -1 all; default 32 */
	const char *stats_columns;   /* comma list or NULL */
	int string_prefix;           /* 0: 32 */
	int tight_bounds;            /* 1: write "tightBounds":true; -1: false
	                              * (bounds over every stored row of a file
	                              * whose DV deletes some); 0: omit */
} delta_stats_opts;

/* Fill a leaf's path/depth/complex/node fields from a Parquet schema. */
void delta_stats_leaf_from_schema(delta_stats_leaf *out, const pq_schema *s,
                                  size_t leaf);

/* Append the stats JSON object text to `out`. */
int delta_stats_json(loom_buf *out, int64_t num_records,
                     const delta_stats_leaf *leaves, size_t n,
                     const delta_stats_opts *o);

/* The stats JSON value of one PLAIN value of a leaf described by `nd`, as
 * read back from a checkpoint's stats_parsed (already truncated by its
 * writer, so strings are taken whole; INT96 is a timestamp). NULL when Delta
 * keeps no min/max for the type. Numbers carry a marker: serialise the
 * document with delta_stats_dump. */
json_t *delta_stats_value(const pq_schema_node *nd, const uint8_t *v, size_t len);

/* Serialise a stats document built with delta_stats_value into `out`. */
int delta_stats_dump(json_t *root, loom_buf *out);

/* The member of `o` at a dotted path ("a.b.c": o.a.b.c, as stats name a
 * nested column), or NULL (o NULL, a step not an object, a name missing or
 * longer than 511 bytes). */
const json_t *delta_json_at_path(const json_t *o, const char *path);

#endif
