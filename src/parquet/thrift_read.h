/* parquet/thrift_read.h - a Thrift compact-protocol decoder over one bounded
 * byte range (a footer, a page header, a column/offset index).
 *
 * Every length and count is checked against the bytes left; nesting is
 * limited to PQ_TR_MAX_DEPTH; unknown fields of any type are skipped.
 * Errors are LOOM_ECORRUPT and name `ctx` and the absolute byte offset
 * (`base_off` + position in the range). */
#ifndef LOOM_PARQUET_THRIFT_READ_H
#define LOOM_PARQUET_THRIFT_READ_H

#include <stddef.h>
#include <stdint.h>

/* Compact-protocol type ids (as in field headers and list headers). */
enum {
	PQ_TT_STOP = 0,
	PQ_TT_TRUE = 1,     /* bool field with value true; BOOL in lists */
	PQ_TT_FALSE = 2,
	PQ_TT_BYTE = 3,
	PQ_TT_I16 = 4,
	PQ_TT_I32 = 5,
	PQ_TT_I64 = 6,
	PQ_TT_DOUBLE = 7,
	PQ_TT_BINARY = 8,
	PQ_TT_LIST = 9,
	PQ_TT_SET = 10,
	PQ_TT_MAP = 11,
	PQ_TT_STRUCT = 12
};

#define PQ_TR_MAX_DEPTH 64

typedef struct pq_tr {
	const uint8_t *p;     /* range start */
	size_t len;           /* range length */
	size_t pos;           /* read position */
	uint64_t base_off;    /* file offset of p[0], for messages */
	const char *ctx;      /* what is being decoded (file name), for messages */
	int depth;            /* current struct/container nesting */
} pq_tr;

void pq_tr_init(pq_tr *t, const void *p, size_t len, uint64_t base_off, const char *ctx);

/* Raise LOOM_ECORRUPT naming ctx and the current offset. */
int pq_tr_fail(const pq_tr *t, const char *what);

int pq_tr_varint(pq_tr *t, uint64_t *v);
int pq_tr_i16(pq_tr *t, int16_t *v);
int pq_tr_i32(pq_tr *t, int32_t *v);
int pq_tr_i64(pq_tr *t, int64_t *v);
int pq_tr_byte(pq_tr *t, int8_t *v);
int pq_tr_double(pq_tr *t, double *v);
/* A binary/string: *data borrows the range. */
int pq_tr_binary(pq_tr *t, const uint8_t **data, size_t *len);

/* Struct framing. Each struct keeps its own last-field-id, starting at 0. */
int pq_tr_struct_begin(pq_tr *t);
void pq_tr_struct_end(pq_tr *t);
/* Next field header: returns 1 with *id and *type set, 0 at STOP, < 0 on error.
 * For bool fields *type is PQ_TT_TRUE or PQ_TT_FALSE (the value). */
int pq_tr_field(pq_tr *t, int16_t *last_id, int16_t *id, int *type);

/* List/set header: element type and count (count <= bytes left). Lists
 * must be closed with pq_tr_list_end (depth tracking). */
int pq_tr_list_begin(pq_tr *t, int *elem_type, uint32_t *count);
void pq_tr_list_end(pq_tr *t);
/* A bool element inside a list. */
int pq_tr_list_bool(pq_tr *t, int *v);

/* Skip one value of `type` (a field's value or a list element; bool fields
 * carry no bytes, bool list elements one). `in_list` tells which. */
int pq_tr_skip(pq_tr *t, int type, int in_list);

/* Helpers for typed field values that check the wire type first. */
int pq_tr_expect(pq_tr *t, int type, int want, const char *field);
/* Read an integer field value of any int wire type into an int64. */
int pq_tr_int_field(pq_tr *t, int type, int64_t *v, const char *field);

#endif
