/* parquet/thrift_write.h - a Thrift compact-protocol encoder, just enough
 * for Parquet footers, page headers and page indexes.
 *
 * Usage: fields are written inside structs; nesting is tracked on a small
 * stack (field-id deltas are per struct). Errors (out of memory, nesting too
 * deep) are sticky: check tw_finish() once at the end.
 *
 *   tw_enc t; tw_init(&t, &buf);
 *   tw_struct_begin(&t);              top-level struct
 *   tw_i32(&t, 1, 4);
 *   tw_field_struct(&t, 5);           nested struct in field 5
 *     tw_i32(&t, 1, 100);
 *   tw_struct_end(&t);
 *   tw_struct_end(&t);
 *   rc = tw_finish(&t);
 */
#ifndef LOOM_PARQUET_THRIFT_WRITE_H
#define LOOM_PARQUET_THRIFT_WRITE_H

#include <stddef.h>
#include <stdint.h>

#include "util/buf.h"

/* Compact-protocol type ids. */
enum {
	TW_BOOL_TRUE = 1, TW_BOOL_FALSE = 2, TW_BYTE = 3, TW_I16 = 4, TW_I32 = 5,
	TW_I64 = 6, TW_DOUBLE = 7, TW_BINARY = 8, TW_LIST = 9, TW_SET = 10,
	TW_MAP = 11, TW_STRUCT = 12
};

#define TW_MAX_DEPTH 32

typedef struct tw_enc {
	loom_buf *out;          /* appended to; not owned */
	int16_t last[TW_MAX_DEPTH];
	int depth;
	int err;                /* first error code, 0 if none */
} tw_enc;

void tw_init(tw_enc *t, loom_buf *out);
/* 0 or the first error; also checks that every struct was closed. */
int tw_finish(tw_enc *t);

/* Structs: begin a top-level struct or a struct list element. */
void tw_struct_begin(tw_enc *t);
/* Begin a struct-valued field. */
void tw_field_struct(tw_enc *t, int16_t id);
/* Write the stop byte and pop. */
void tw_struct_end(tw_enc *t);

/* Scalar fields. */
void tw_bool(tw_enc *t, int16_t id, int v);
void tw_i8(tw_enc *t, int16_t id, int8_t v);
void tw_i16(tw_enc *t, int16_t id, int16_t v);
void tw_i32(tw_enc *t, int16_t id, int32_t v);
void tw_i64(tw_enc *t, int16_t id, int64_t v);
void tw_binary(tw_enc *t, int16_t id, const void *p, size_t n);
void tw_string(tw_enc *t, int16_t id, const char *s);

/* A list field of `n` elements of compact type `elem`; then write the
 * elements with the tw_elem_* calls (or tw_struct_begin/end per struct). */
void tw_field_list(tw_enc *t, int16_t id, int elem, size_t n);
void tw_elem_bool(tw_enc *t, int v);
void tw_elem_i32(tw_enc *t, int32_t v);
void tw_elem_i64(tw_enc *t, int64_t v);
void tw_elem_binary(tw_enc *t, const void *p, size_t n);

/* Raw building blocks (exposed for tests and the RLE encoder). */
void tw_varint(tw_enc *t, uint64_t v);
static inline uint64_t tw_zigzag64(int64_t v)
{
	return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

#endif
