/* parquet/thrift_write.c - Thrift compact-protocol encoder. */
#include "parquet/thrift_write.h"

#include <string.h>

#include "util/error.h"

void tw_init(tw_enc *t, loom_buf *out)
{
	memset(t, 0, sizeof(*t));
	t->out = out;
	t->depth = -1;
}

int tw_finish(tw_enc *t)
{
	if (!t->err && t->depth != -1)
		t->err = loom_err(LOOM_ERROR, LOOM_ERRCLASS_PARQUET,
		                  "thrift encoder: %d struct(s) left open", t->depth + 1);
	return t->err;
}

static void put(tw_enc *t, const void *p, size_t n)
{
	if (!t->err && loom_buf_put(t->out, p, n) < 0)
		t->err = LOOM_ENOMEM;
}

static void put_byte(tw_enc *t, uint8_t b)
{
	put(t, &b, 1);
}

void tw_varint(tw_enc *t, uint64_t v)
{
	uint8_t tmp[10];
	size_t n = 0;
	while (v >= 0x80) {
		tmp[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	tmp[n++] = (uint8_t)v;
	put(t, tmp, n);
}

static void field_header(tw_enc *t, int16_t id, int type)
{
	int16_t last;
	if (t->depth < 0) {
		if (!t->err)
			t->err = loom_err(LOOM_ERROR, LOOM_ERRCLASS_PARQUET,
			                  "thrift encoder: field %d outside a struct", id);
		return;
	}
	last = t->last[t->depth];
	if (id > last && id - last <= 15) {
		put_byte(t, (uint8_t)(((id - last) << 4) | type));
	} else {
		put_byte(t, (uint8_t)type);
		tw_varint(t, tw_zigzag64(id));
	}
	t->last[t->depth] = id;
}

static void push(tw_enc *t)
{
	if (t->depth + 1 >= TW_MAX_DEPTH) {
		if (!t->err)
			t->err = loom_err(LOOM_ERROR, LOOM_ERRCLASS_PARQUET,
			                  "thrift encoder: structs nested deeper than %d", TW_MAX_DEPTH);
		return;
	}
	t->depth++;
	t->last[t->depth] = 0;
}

void tw_struct_begin(tw_enc *t)
{
	push(t);
}

void tw_field_struct(tw_enc *t, int16_t id)
{
	field_header(t, id, TW_STRUCT);
	push(t);
}

void tw_struct_end(tw_enc *t)
{
	put_byte(t, 0);
	if (t->depth >= 0)
		t->depth--;
}

void tw_bool(tw_enc *t, int16_t id, int v)
{
	field_header(t, id, v ? TW_BOOL_TRUE : TW_BOOL_FALSE);
}

void tw_i8(tw_enc *t, int16_t id, int8_t v)
{
	field_header(t, id, TW_BYTE);
	put_byte(t, (uint8_t)v);
}

void tw_i16(tw_enc *t, int16_t id, int16_t v)
{
	field_header(t, id, TW_I16);
	tw_varint(t, tw_zigzag64(v));
}

void tw_i32(tw_enc *t, int16_t id, int32_t v)
{
	field_header(t, id, TW_I32);
	tw_varint(t, tw_zigzag64(v));
}

void tw_i64(tw_enc *t, int16_t id, int64_t v)
{
	field_header(t, id, TW_I64);
	tw_varint(t, tw_zigzag64(v));
}

void tw_binary(tw_enc *t, int16_t id, const void *p, size_t n)
{
	field_header(t, id, TW_BINARY);
	tw_elem_binary(t, p, n);
}

void tw_string(tw_enc *t, int16_t id, const char *s)
{
	tw_binary(t, id, s, strlen(s));
}

void tw_field_list(tw_enc *t, int16_t id, int elem, size_t n)
{
	field_header(t, id, TW_LIST);
	if (n < 15) {
		put_byte(t, (uint8_t)((n << 4) | (size_t)elem));
	} else {
		put_byte(t, (uint8_t)(0xF0 | elem));
		tw_varint(t, n);
	}
}

void tw_elem_bool(tw_enc *t, int v)
{
	/* Lists carry booleans as one byte: 1 true, 2 false (as Java/C++ write). */
	put_byte(t, v ? TW_BOOL_TRUE : TW_BOOL_FALSE);
}

void tw_elem_i32(tw_enc *t, int32_t v)
{
	tw_varint(t, tw_zigzag64(v));
}

void tw_elem_i64(tw_enc *t, int64_t v)
{
	tw_varint(t, tw_zigzag64(v));
}

void tw_elem_binary(tw_enc *t, const void *p, size_t n)
{
	tw_varint(t, n);
	if (n)
		put(t, p, n);
}
