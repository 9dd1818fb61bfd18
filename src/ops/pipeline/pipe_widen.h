/* ops/pipeline/pipe_widen.h - type widening in rewrites (PROTOCOL.md "Type
 * Widening"): files written before a column's type was widened keep the
 * narrower Parquet type; a rewrite reads them as they are and writes the
 * table's current type, so no rewritten file keeps an old one.
 *
 * A leaf's numeric class (pipe_num) says how its values are stored; the
 * output leaf of a widened column takes the Parquet type Spark writes for
 * the table's type (pipe_widen_node), and each input column whose class
 * differs is converted batch by batch (pipe_widen_column). */
#ifndef LOOM_OPS_PIPE_WIDEN_H
#define LOOM_OPS_PIPE_WIDEN_H

#include <stddef.h>
#include <stdint.h>

#include "delta/schema.h"
#include "parquet/batch.h"
#include "parquet/schema.h"

typedef enum pipe_num_kind {
	PIPE_NUM_OTHER = 0,        /* not a type any widening involves */
	PIPE_NUM_INT,              /* signed integer of `bits` (8..64) */
	PIPE_NUM_FLOAT,
	PIPE_NUM_DOUBLE,
	PIPE_NUM_DATE,
	PIPE_NUM_TIMESTAMP_NTZ,    /* INT64 micros, not adjusted to UTC */
	PIPE_NUM_DECIMAL
} pipe_num_kind;

typedef struct pipe_num {
	pipe_num_kind kind;
	int bits;                  /* INT */
	int32_t precision, scale;  /* DECIMAL */
	pq_physical_type phys;
	int32_t len;               /* FIXED_LEN_BYTE_ARRAY width */
} pipe_num;

pipe_num pipe_num_of_leaf(const pq_leaf *l);
pipe_num pipe_num_of_node(const pq_schema_node *n);
/* 1 when a and b store the same values the same way (same annotations). */
int pipe_num_same(const pipe_num *a, const pipe_num *b);
/* 1 when values stored as `from` can be written as `to` without loss by
 * one of the widenings PROTOCOL.md allows (integral -> decimal when the
 * decimal's integer digits hold every value of the integer type). */
int pipe_widen_allowed(const pipe_num *from, const pipe_num *to);
/* The leaf Spark writes for primitive type t, with `like`'s name,
 * repetition and field id, into *out: 1 when t is a type widening may
 * produce, else 0 (out untouched). */
int pipe_widen_node(const delta_type *t, const pq_schema_node *like, pq_schema_node *out);
/* Text like "int32 INT(8)" / "decimal(10,2) int64" for messages. */
void pipe_num_describe(const pipe_num *n, char *buf, size_t cap);
/* Convert column c (values stored as `from`) to `to` into *buf (grown as
 * needed, owned by the caller); c then points at *buf. Levels are kept. */
int pipe_widen_column(pq_column *c, const pipe_num *from, const pipe_num *to, uint8_t **buf,
                      size_t *cap);

#endif
