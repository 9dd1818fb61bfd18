/* parquet/render.h - turning decoded values into JSON text (internal to
 * the loom/parquet.h renderers). */
#ifndef LOOM_PARQUET_RENDER_H
#define LOOM_PARQUET_RENDER_H

#include <stddef.h>
#include <stdint.h>

#include "parquet/reader.h"
#include "parquet/schema.h"
#include "util/buf.h"

typedef enum pq_render_kind {
	PQ_RK_BOOL, PQ_RK_INT, PQ_RK_UINT, PQ_RK_FLOAT, PQ_RK_DOUBLE, PQ_RK_FLOAT16,
	PQ_RK_STRING, PQ_RK_BINARY, PQ_RK_DECIMAL, PQ_RK_DATE, PQ_RK_TIME, PQ_RK_TIMESTAMP,
	PQ_RK_INT96, PQ_RK_UUID, PQ_RK_INTERVAL
} pq_render_kind;

typedef struct pq_value_fmt {
	pq_render_kind kind;
	pq_physical_type type;
	size_t width;          /* fixed width; 0 for BYTE_ARRAY */
	int32_t scale;         /* DECIMAL */
	pq_time_unit unit;     /* TIME, TIMESTAMP */
} pq_value_fmt;

/* How a leaf's values are rendered (logical type first, then converted). */
void pq_value_fmt_of(const pq_leaf *leaf, pq_value_fmt *f);

/* Append one value (`len` bytes at `v`, PLAIN layout) as JSON. */
int pq_render_value(loom_buf *b, const pq_value_fmt *f, const uint8_t *v, size_t len);

/* The public loom_parquet_file handle. */
struct loom_parquet_file {
	pq_reader *r;
};

#endif
