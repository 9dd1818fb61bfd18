/* parquet/thrift_read.c - Thrift compact protocol, bounded and defensive. */
#include "parquet/thrift_read.h"

#include <stdio.h>
#include <string.h>

#include "util/error.h"

void pq_tr_init(pq_tr *t, const void *p, size_t len, uint64_t base_off, const char *ctx)
{
	t->p = p;
	t->len = len;
	t->pos = 0;
	t->base_off = base_off;
	t->ctx = ctx ? ctx : "thrift";
	t->depth = 0;
}

int pq_tr_fail(const pq_tr *t, const char *what)
{
	return loom_err(LOOM_ECORRUPT, LOOM_ERRCLASS_PARQUET, "%s: corrupt metadata at byte offset %llu: %s",
	                t->ctx, (unsigned long long)(t->base_off + t->pos), what);
}

int pq_tr_varint(pq_tr *t, uint64_t *v)
{
	uint64_t r = 0;
	unsigned shift = 0;
	while (t->pos < t->len) {
		uint8_t b = t->p[t->pos++];
		if (shift == 63 && (b & 0x7e))
			return pq_tr_fail(t, "varint overflows 64 bits");
		r |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			*v = r;
			return 0;
		}
		shift += 7;
		if (shift > 63)
			return pq_tr_fail(t, "varint longer than 10 bytes");
	}
	return pq_tr_fail(t, "truncated varint");
}

static int64_t unzigzag(uint64_t u)
{
	return (int64_t)(u >> 1) ^ -(int64_t)(u & 1);
}

int pq_tr_i64(pq_tr *t, int64_t *v)
{
	uint64_t u = 0;
	LOOM_TRY(pq_tr_varint(t, &u));
	*v = unzigzag(u);
	return 0;
}

/* An integer that must lie in [lo, hi]; `what` says so when it does not. */
static int i64_in(pq_tr *t, int64_t lo, int64_t hi, const char *what, int64_t *x)
{
	LOOM_TRY(pq_tr_i64(t, x));
	if (*x < lo || *x > hi)
		return pq_tr_fail(t, what);
	return 0;
}

int pq_tr_i32(pq_tr *t, int32_t *v)
{
	int64_t x;
	LOOM_TRY(i64_in(t, INT32_MIN, INT32_MAX, "i32 out of range", &x));
	*v = (int32_t)x;
	return 0;
}

int pq_tr_i16(pq_tr *t, int16_t *v)
{
	int64_t x;
	LOOM_TRY(i64_in(t, INT16_MIN, INT16_MAX, "i16 out of range", &x));
	*v = (int16_t)x;
	return 0;
}

int pq_tr_byte(pq_tr *t, int8_t *v)
{
	if (t->pos >= t->len)
		return pq_tr_fail(t, "truncated byte");
	*v = (int8_t)t->p[t->pos++];
	return 0;
}

int pq_tr_double(pq_tr *t, double *v)
{
	if (t->len - t->pos < 8)
		return pq_tr_fail(t, "truncated double");
	memcpy(v, t->p + t->pos, 8);   /* compact protocol: little-endian */
	t->pos += 8;
	return 0;
}

int pq_tr_binary(pq_tr *t, const uint8_t **data, size_t *len)
{
	uint64_t n = 0;
	LOOM_TRY(pq_tr_varint(t, &n));
	if (n > t->len - t->pos)
		return pq_tr_fail(t, "binary length beyond the end of the metadata");
	*data = t->p + t->pos;
	*len = (size_t)n;
	t->pos += (size_t)n;
	return 0;
}

int pq_tr_struct_begin(pq_tr *t)
{
	if (++t->depth > PQ_TR_MAX_DEPTH)
		return pq_tr_fail(t, "nesting deeper than 64 levels");
	return 0;
}

void pq_tr_struct_end(pq_tr *t)
{
	t->depth--;
}

int pq_tr_field(pq_tr *t, int16_t *last_id, int16_t *id, int *type)
{
	uint8_t b;
	int delta;
	if (t->pos >= t->len)
		return pq_tr_fail(t, "truncated struct (no stop field)");
	b = t->p[t->pos++];
	if (b == 0)
		return 0;
	*type = b & 0x0f;
	delta = b >> 4;
	if (delta)
		*id = (int16_t)(*last_id + delta);
	else
		LOOM_TRY(pq_tr_i16(t, id));
	if (*type > PQ_TT_STRUCT || *type == PQ_TT_STOP)
		return pq_tr_fail(t, "unknown field type");
	*last_id = *id;
	return 1;
}

int pq_tr_list_begin(pq_tr *t, int *elem_type, uint32_t *count)
{
	uint8_t b;
	uint64_t n;
	if (t->pos >= t->len)
		return pq_tr_fail(t, "truncated list header");
	b = t->p[t->pos++];
	*elem_type = b & 0x0f;
	n = b >> 4;
	if (n == 15)
		LOOM_TRY(pq_tr_varint(t, &n));
	if (*elem_type == PQ_TT_STOP || *elem_type > PQ_TT_STRUCT)
		return pq_tr_fail(t, "unknown list element type");
	/* Every element takes at least one byte. */
	if (n > t->len - t->pos)
		return pq_tr_fail(t, "list count beyond the end of the metadata");
	if (++t->depth > PQ_TR_MAX_DEPTH)
		return pq_tr_fail(t, "nesting deeper than 64 levels");
	*count = (uint32_t)n;
	return 0;
}

void pq_tr_list_end(pq_tr *t)
{
	t->depth--;
}

int pq_tr_list_bool(pq_tr *t, int *v)
{
	if (t->pos >= t->len)
		return pq_tr_fail(t, "truncated bool");
	*v = t->p[t->pos++] == 1;
	return 0;
}

int pq_tr_skip(pq_tr *t, int type, int in_list)
{
	uint64_t u;
	const uint8_t *d;
	size_t n;
	switch (type) {
	case PQ_TT_TRUE:
	case PQ_TT_FALSE:
		if (in_list) {
			if (t->pos >= t->len)
				return pq_tr_fail(t, "truncated bool");
			t->pos++;
		}
		return 0;
	case PQ_TT_BYTE:
		if (t->pos >= t->len)
			return pq_tr_fail(t, "truncated byte");
		t->pos++;
		return 0;
	case PQ_TT_I16:
	case PQ_TT_I32:
	case PQ_TT_I64:
		return pq_tr_varint(t, &u);
	case PQ_TT_DOUBLE:
		if (t->len - t->pos < 8)
			return pq_tr_fail(t, "truncated double");
		t->pos += 8;
		return 0;
	case PQ_TT_BINARY:
		return pq_tr_binary(t, &d, &n);
	case PQ_TT_LIST:
	case PQ_TT_SET: {
		int et;
		uint32_t cnt, i;
		LOOM_TRY(pq_tr_list_begin(t, &et, &cnt));
		for (i = 0; i < cnt; i++)
			LOOM_TRY(pq_tr_skip(t, et, 1));
		pq_tr_list_end(t);
		return 0;
	}
	case PQ_TT_MAP: {
		uint64_t cnt, i;
		int kt, vt;
		LOOM_TRY(pq_tr_varint(t, &cnt));
		if (cnt == 0)
			return 0;
		if (t->pos >= t->len)
			return pq_tr_fail(t, "truncated map header");
		kt = t->p[t->pos] >> 4;
		vt = t->p[t->pos] & 0x0f;
		t->pos++;
		if (kt == 0 || kt > PQ_TT_STRUCT || vt == 0 || vt > PQ_TT_STRUCT)
			return pq_tr_fail(t, "unknown map element type");
		if (cnt > (t->len - t->pos))
			return pq_tr_fail(t, "map count beyond the end of the metadata");
		if (++t->depth > PQ_TR_MAX_DEPTH)
			return pq_tr_fail(t, "nesting deeper than 64 levels");
		for (i = 0; i < cnt; i++) {
			LOOM_TRY(pq_tr_skip(t, kt, 1));
			LOOM_TRY(pq_tr_skip(t, vt, 1));
		}
		t->depth--;
		return 0;
	}
	case PQ_TT_STRUCT: {
		int16_t last = 0, id;
		int ft, rc;
		LOOM_TRY(pq_tr_struct_begin(t));
		while ((rc = pq_tr_field(t, &last, &id, &ft)) > 0)
			LOOM_TRY(pq_tr_skip(t, ft, 0));
		if (rc < 0)
			return rc;
		pq_tr_struct_end(t);
		return 0;
	}
	default:
		return pq_tr_fail(t, "unknown type to skip");
	}
}

int pq_tr_expect(pq_tr *t, int type, int want, const char *field)
{
	char msg[96];
	if (type == want)
		return 0;
	snprintf(msg, sizeof(msg), "field %s has wire type %d, expected %d", field, type, want);
	return pq_tr_fail(t, msg);
}

int pq_tr_int_field(pq_tr *t, int type, int64_t *v, const char *field)
{
	if (type == PQ_TT_BYTE) {
		int8_t b = 0;
		LOOM_TRY(pq_tr_byte(t, &b));
		*v = b;
		return 0;
	}
	if (type == PQ_TT_I16 || type == PQ_TT_I32 || type == PQ_TT_I64)
		return pq_tr_i64(t, v);
	return pq_tr_expect(t, type, PQ_TT_I64, field);
}
