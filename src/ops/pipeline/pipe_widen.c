/* ops/pipeline/pipe_widen.c - reading narrower Parquet types as the table's wider
 * ones. */
#include "ops/pipeline/pipe_widen.h"

#include <stdio.h>
#include <string.h>

#include "util/alloc.h"
#include "util/error.h"

#define OPS_ERR(code, ...) loom_err((code), LOOM_ERRCLASS_OPS, __VA_ARGS__)

__extension__ typedef __int128 wide_int;

static pipe_num classify(pq_physical_type phys, int32_t len, pq_converted_type ct,
                         const pq_logical_type *lt, int32_t precision, int32_t scale)
{
	pipe_num n;
	memset(&n, 0, sizeof(n));
	n.phys = phys;
	n.len = len;
	if (lt->kind == PQ_LT_DECIMAL || ct == PQ_CT_DECIMAL) {
		if (phys != PQ_INT32 && phys != PQ_INT64 && phys != PQ_FIXED_LEN_BYTE_ARRAY && phys != PQ_BYTE_ARRAY)
			return n;
		n.kind = PIPE_NUM_DECIMAL;
		n.precision = lt->kind == PQ_LT_DECIMAL ? lt->decimal_precision : precision;
		n.scale = lt->kind == PQ_LT_DECIMAL ? lt->decimal_scale : scale;
		return n;
	}
	if (phys == PQ_INT32 || phys == PQ_INT64) {
		int bits = phys == PQ_INT32 ? 32 : 64;
		if (lt->kind == PQ_LT_INTEGER) {
			if (!lt->int_is_signed)
				return n;
			bits = lt->int_bit_width;
		} else if (lt->kind == PQ_LT_DATE || ct == PQ_CT_DATE) {
			n.kind = phys == PQ_INT32 ? PIPE_NUM_DATE : PIPE_NUM_OTHER;
			return n;
		} else if (lt->kind == PQ_LT_TIMESTAMP) {
			if (phys == PQ_INT64 && lt->unit == PQ_UNIT_MICROS && !lt->is_adjusted_to_utc)
				n.kind = PIPE_NUM_TIMESTAMP_NTZ;
			return n;
		} else if (ct == PQ_CT_INT_8) {
			bits = 8;
		} else if (ct == PQ_CT_INT_16) {
			bits = 16;
		} else if (ct != PQ_CT_NONE && ct != PQ_CT_INT_32 && ct != PQ_CT_INT_64) {
			return n;
		} else if (lt->kind != PQ_LT_NONE) {
			return n;
		}
		n.kind = PIPE_NUM_INT;
		n.bits = bits;
		return n;
	}
	if (lt->kind == PQ_LT_NONE && ct == PQ_CT_NONE) {
		if (phys == PQ_FLOAT)
			n.kind = PIPE_NUM_FLOAT;
		else if (phys == PQ_DOUBLE)
			n.kind = PIPE_NUM_DOUBLE;
	}
	return n;
}

pipe_num pipe_num_of_leaf(const pq_leaf *l)
{
	return classify(l->type, l->type_length, l->converted_type, &l->logical_type, l->precision, l->scale);
}

pipe_num pipe_num_of_node(const pq_schema_node *n)
{
	return classify(n->type, n->type_length, n->converted_type, &n->logical_type, n->precision, n->scale);
}

int pipe_num_same(const pipe_num *a, const pipe_num *b)
{
	if (a->kind != b->kind || a->phys != b->phys)
		return 0;
	if (a->kind == PIPE_NUM_INT)
		return a->bits == b->bits;
	if (a->kind == PIPE_NUM_DECIMAL)
		return a->precision == b->precision && a->scale == b->scale && a->len == b->len;
	return 1;
}

/* Decimal digits every value of a signed integer of `bits` fits in. */
static int int_digits(int bits)
{
	return bits <= 8 ? 3 : bits <= 16 ? 5 : bits <= 32 ? 10 : 19;
}

int pipe_widen_allowed(const pipe_num *from, const pipe_num *to)
{
	switch (to->kind) {
	case PIPE_NUM_INT:
		return from->kind == PIPE_NUM_INT && from->bits <= to->bits;
	case PIPE_NUM_DOUBLE:
		return from->kind == PIPE_NUM_FLOAT || from->kind == PIPE_NUM_DOUBLE ||
		       (from->kind == PIPE_NUM_INT && from->bits <= 32);
	case PIPE_NUM_FLOAT:
		return from->kind == PIPE_NUM_FLOAT;
	case PIPE_NUM_DATE:
		return from->kind == PIPE_NUM_DATE;
	case PIPE_NUM_TIMESTAMP_NTZ:
		return from->kind == PIPE_NUM_DATE || from->kind == PIPE_NUM_TIMESTAMP_NTZ;
	case PIPE_NUM_DECIMAL:
		if (to->precision > 38)
			return 0;
		if (from->kind == PIPE_NUM_INT)
			return to->precision - to->scale >= int_digits(from->bits);
		return from->kind == PIPE_NUM_DECIMAL && to->scale >= from->scale &&
		       to->precision - to->scale >= from->precision - from->scale;
	default:
		return 0;
	}
}

/* Bytes of the smallest two's complement holding every precision-digit value. */
static int32_t decimal_bytes(int32_t precision)
{
	wide_int max = 1;
	int32_t i, n = 1;
	for (i = 0; i < precision; i++)
		max *= 10;
	while (n < 16 && ((wide_int)1 << (8 * n - 1)) < max)
		n++;
	return n;
}

int pipe_widen_node(const delta_type *t, const pq_schema_node *like, pq_schema_node *out)
{
	pq_schema_node n;
	memset(&n, 0, sizeof(n));
	n.name = like->name;
	n.has_repetition = like->has_repetition;
	n.repetition = like->repetition;
	n.has_field_id = like->has_field_id;
	n.field_id = like->field_id;
	n.converted_type = PQ_CT_NONE;
	switch (t->kind) {
	case DELTA_T_BYTE:
	case DELTA_T_SHORT:
		n.type = PQ_INT32;
		n.converted_type = t->kind == DELTA_T_BYTE ? PQ_CT_INT_8 : PQ_CT_INT_16;
		n.logical_type.kind = PQ_LT_INTEGER;
		n.logical_type.int_bit_width = t->kind == DELTA_T_BYTE ? 8 : 16;
		n.logical_type.int_is_signed = 1;
		break;
	case DELTA_T_INTEGER:
		n.type = PQ_INT32;
		break;
	case DELTA_T_LONG:
		n.type = PQ_INT64;
		break;
	case DELTA_T_FLOAT:
		n.type = PQ_FLOAT;
		break;
	case DELTA_T_DOUBLE:
		n.type = PQ_DOUBLE;
		break;
	case DELTA_T_DATE:
		n.type = PQ_INT32;
		n.converted_type = PQ_CT_DATE;
		n.logical_type.kind = PQ_LT_DATE;
		break;
	case DELTA_T_TIMESTAMP_NTZ:
		n.type = PQ_INT64;
		n.logical_type.kind = PQ_LT_TIMESTAMP;
		n.logical_type.unit = PQ_UNIT_MICROS;
		n.logical_type.is_adjusted_to_utc = 0;
		break;
	case DELTA_T_DECIMAL:
		if (t->precision < 1 || t->precision > 38)
			return 0;
		/* Spark: INT32 up to 9 digits, INT64 up to 18, else the fewest bytes */
		n.type = t->precision <= 9 ? PQ_INT32 : t->precision <= 18 ? PQ_INT64 : PQ_FIXED_LEN_BYTE_ARRAY;
		if (n.type == PQ_FIXED_LEN_BYTE_ARRAY)
			n.type_length = decimal_bytes(t->precision);
		n.converted_type = PQ_CT_DECIMAL;
		n.precision = t->precision;
		n.scale = t->scale;
		n.logical_type.kind = PQ_LT_DECIMAL;
		n.logical_type.decimal_precision = t->precision;
		n.logical_type.decimal_scale = t->scale;
		break;
	default:
		return 0;
	}
	*out = n;
	return 1;
}

void pipe_num_describe(const pipe_num *n, char *buf, size_t cap)
{
	static const char *const phys[] = { "boolean", "int32", "int64", "int96", "float", "double",
		                                "binary", "fixed_len_byte_array" };
	const char *p = (unsigned)n->phys < 8 ? phys[n->phys] : "?";
	switch (n->kind) {
	case PIPE_NUM_INT: snprintf(buf, cap, "%s INT(%d)", p, n->bits); break;
	case PIPE_NUM_DECIMAL: snprintf(buf, cap, "decimal(%d,%d) %s", (int)n->precision, (int)n->scale, p); break;
	case PIPE_NUM_DATE: snprintf(buf, cap, "date"); break;
	case PIPE_NUM_TIMESTAMP_NTZ: snprintf(buf, cap, "timestamp_ntz"); break;
	default: snprintf(buf, cap, "%s", p); break;
	}
}

/* Big-endian two's complement of `len` bytes. */
static wide_int be_read(const uint8_t *p, size_t len)
{
	wide_int v = len && (p[0] & 0x80) ? -1 : 0;
	size_t i;
	for (i = 0; i < len; i++)
		v = (wide_int)(((unsigned __int128)v << 8) | p[i]);
	return v;
}

static void be_write(uint8_t *p, size_t len, wide_int v)
{
	size_t i;
	for (i = len; i-- > 0;) {
		p[i] = (uint8_t)(v & 0xff);
		v >>= 8;
	}
}

/* Value i of the column as an integer (INT, DATE, unscaled DECIMAL). */
static wide_int int_at(const pq_column *c, size_t i)
{
	switch (c->type) {
	case PQ_INT32: { int32_t v; memcpy(&v, c->values + i * 4, 4); return v; }
	case PQ_INT64: { int64_t v; memcpy(&v, c->values + i * 8, 8); return v; }
	case PQ_FIXED_LEN_BYTE_ARRAY: return be_read(c->values + i * (size_t)c->type_length, (size_t)c->type_length);
	case PQ_BYTE_ARRAY: return be_read(c->data + c->offsets[i], c->offsets[i + 1] - c->offsets[i]);
	default: return 0;
	}
}

static double real_at(const pq_column *c, size_t i, const pipe_num *from)
{
	if (from->kind == PIPE_NUM_FLOAT) {
		float f;
		memcpy(&f, c->values + i * 4, 4);
		return (double)f;
	}
	if (from->kind == PIPE_NUM_DOUBLE) {
		double d;
		memcpy(&d, c->values + i * 8, 8);
		return d;
	}
	return (double)int_at(c, i);
}

int pipe_widen_column(pq_column *c, const pipe_num *from, const pipe_num *to, uint8_t **buf,
                      size_t *cap)
{
	size_t n = c->num_values, width, i;
	wide_int mul = 1;
	int32_t k;
	width = to->phys == PQ_INT32 || to->phys == PQ_FLOAT ? 4 : to->phys == PQ_FIXED_LEN_BYTE_ARRAY ? (size_t)to->len : 8;
	if (n * width > *cap) {
		uint8_t *g = loom_malloc(n * width);
		if (!g)
			return OPS_ERR(LOOM_ENOMEM, "out of memory");
		loom_free(*buf);
		*buf = g;
		*cap = n * width;
	}
	if (to->kind == PIPE_NUM_DECIMAL)
		for (k = from->kind == PIPE_NUM_DECIMAL ? from->scale : 0; k < to->scale; k++)
			mul *= 10;
	for (i = 0; i < n; i++) {
		uint8_t *dst = *buf + i * width;
		if (to->kind == PIPE_NUM_DOUBLE) {
			double d = real_at(c, i, from);
			memcpy(dst, &d, 8);
			continue;
		}
		if (to->kind == PIPE_NUM_FLOAT) {
			memcpy(dst, c->values + i * 4, 4);
			continue;
		}
		{
			wide_int v = int_at(c, i);
			if (to->kind == PIPE_NUM_TIMESTAMP_NTZ && from->kind == PIPE_NUM_DATE)
				v *= (wide_int)86400 * 1000000; /* midnight of the day, in micros */
			else if (to->kind == PIPE_NUM_DECIMAL)
				v *= mul;
			if (to->phys == PQ_INT32) {
				int32_t x = (int32_t)v;
				memcpy(dst, &x, 4);
			} else if (to->phys == PQ_INT64) {
				int64_t x = (int64_t)v;
				memcpy(dst, &x, 8);
			} else {
				be_write(dst, width, v);
			}
		}
	}
	c->type = to->phys;
	c->type_length = to->phys == PQ_FIXED_LEN_BYTE_ARRAY ? to->len : 0;
	c->values = *buf;
	c->offsets = NULL;
	c->data = NULL;
	c->data_size = 0;
	return 0;
}
