/* delta/stats_json.c - Delta add.stats JSON from Parquet leaf facts. */
#include "delta/stats_json.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "parquet/stats.h"
#include "util/error.h"

void delta_stats_leaf_from_schema(delta_stats_leaf *out, const pq_schema *s, size_t leaf)
{
	const pq_leaf *l = &s->leaves[leaf];
	int32_t chain[PQ_SCHEMA_MAX_DEPTH + 1];
	size_t n = 0, i;
	int32_t node = l->node;

	memset(out, 0, sizeof(*out));
	out->parts = l->parts;
	out->depth = l->depth;
	out->node = &s->nodes[l->node];
	out->null_count = -1;
	out->max_exact = 1;
	/* chain of nodes below the root, top first */
	while (node > 0 && n < PQ_SCHEMA_MAX_DEPTH) {
		chain[n++] = node;
		node = s->parent[node];
	}
	for (i = 0; i < n; i++) {
		int32_t nd = chain[n - 1 - i];
		if (s->nest[nd] != PQ_NEST_NONE ||
		    (s->nodes[nd].has_repetition && s->nodes[nd].repetition == PQ_REPEATED)) {
			out->complex = 1;
			out->depth = i + 1;
			return;
		}
	}
}

/* ---- value rendering ---------------------------------------------------- */

/* Numbers are carried through jansson as marked strings and unquoted after
 * dumping, so they keep their exact text (decimals) and the shortest form
 * that round-trips (floats, doubles) instead of jansson's %.17g. */
#define NUM_MARK "\x01#"
#define NUM_MARK_JSON "\"\\u0001#"

static json_t *number_text(const char *text)
{
	char buf[96];
	snprintf(buf, sizeof(buf), NUM_MARK "%s", text);
	return json_string(buf);
}

static json_t *double_json(double d, int is_float)
{
	char buf[64];
	int prec;
	for (prec = 1; prec <= 17; prec++) {
		snprintf(buf, sizeof(buf), "%.*g", prec, d);
		if (is_float ? strtof(buf, NULL) == (float)d : strtod(buf, NULL) == d)
			break;
	}
	return number_text(buf);
}

/* Unquote the marked numbers of a dumped document in place. */
static void unmark_numbers(char *text)
{
	char *r = text, *w = text;
	size_t ml = strlen(NUM_MARK_JSON);
	while (*r) {
		if (strncmp(r, NUM_MARK_JSON, ml) == 0) {
			r += ml;
			while (*r && *r != '"')
				*w++ = *r++;
			if (*r)
				r++;
			continue;
		}
		*w++ = *r++;
	}
	*w = '\0';
}

static void civil_from_days(int64_t z, int64_t *y, unsigned *m, unsigned *d)
{
	int64_t era, yoe, doy, mp;
	z += 719468;
	era = (z >= 0 ? z : z - 146096) / 146097;
	yoe = z - era * 146097;
	doy = (yoe - (yoe / 1460) + (yoe / 36524) - (yoe / 146096));
	yoe = doy / 365;
	doy = z - era * 146097 - (365 * yoe + yoe / 4 - yoe / 100);
	mp = (5 * doy + 2) / 153;
	*d = (unsigned)(doy - (153 * mp + 2) / 5 + 1);
	*m = (unsigned)(mp < 10 ? mp + 3 : mp - 9);
	*y = yoe + era * 400 + (*m <= 2);
}

static int64_t floor_div(int64_t a, int64_t b)
{
	int64_t q = a / b;
	if ((a % b) != 0 && ((a < 0) != (b < 0)))
		q--;
	return q;
}

static json_t *date_json(int64_t days)
{
	int64_t y;
	unsigned m, d;
	char buf[48];
	civil_from_days(days, &y, &m, &d);
	if (y < 0 || y > 9999)
		return NULL;
	snprintf(buf, sizeof(buf), "%04lld-%02u-%02u", (long long)y, m, d);
	return json_string(buf);
}

static json_t *timestamp_json(int64_t v, pq_time_unit unit, int utc)
{
	int64_t ms, days, rem, y;
	unsigned mo, d;
	char buf[64];
	ms = unit == PQ_UNIT_MILLIS ? v : unit == PQ_UNIT_MICROS ? floor_div(v, 1000) : floor_div(v, 1000000);
	days = floor_div(ms, 86400000);
	rem = ms - days * 86400000;
	civil_from_days(days, &y, &mo, &d);
	if (y < 0 || y > 9999)
		return NULL;
	snprintf(buf, sizeof(buf), "%04lld-%02u-%02uT%02d:%02d:%02d.%03d%s", (long long)y, mo, d,
	         (int)(rem / 3600000), (int)(rem / 60000 % 60), (int)(rem / 1000 % 60), (int)(rem % 1000),
	         utc ? "Z" : "");
	return json_string(buf);
}

/* A big-endian two's complement integer (<= 16 bytes) as decimal text with
 * `scale` fraction digits, as a JSON real. */
static json_t *decimal_json(const uint8_t *be, size_t len, int32_t scale)
{
	__int128 v = 0;
	size_t i;
	/* 16 bytes hold at most 39 digits: a larger (or negative) scale is a
	 * damaged schema, and the value is left out */
	if (len == 0 || len > 16 || scale < 0 || scale > 38)
		return NULL;
	v = (be[0] & 0x80) ? -1 : 0;
	for (i = 0; i < len; i++)
		v = (__int128)(((unsigned __int128)v << 8) | be[i]);
	{
		char digits[64];
		int neg = v < 0, n = 0;
		unsigned __int128 u = neg ? (unsigned __int128)(-(v + 1)) + 1 : (unsigned __int128)v;
		char text[80];
		size_t p = 0;
		int k;
		do {
			digits[n++] = (char)('0' + (int)(u % 10));
			u /= 10;
		} while (u);
		while (n <= scale)
			digits[n++] = '0';
		if (neg)
			text[p++] = '-';
		for (k = n - 1; k >= 0; k--) {
			text[p++] = digits[k];
			if (k == scale && scale > 0)
				text[p++] = '.';
		}
		text[p] = '\0';
		return number_text(text);
	}
}

static int64_t le_i64(const uint8_t *p, size_t n)
{
	uint64_t v = 0;
	size_t i;
	for (i = 0; i < n && i < 8; i++)
		v |= (uint64_t)p[i] << (8 * i);
	if (n == 4)
		return (int64_t)(int32_t)(uint32_t)v;
	return (int64_t)v;
}

static int is_string(const pq_schema_node *nd)
{
	if (nd->type != PQ_BYTE_ARRAY)
		return 0;
	return nd->logical_type.kind == PQ_LT_STRING || nd->logical_type.kind == PQ_LT_ENUM ||
	       nd->logical_type.kind == PQ_LT_JSON || nd->converted_type == PQ_CT_UTF8 ||
	       nd->converted_type == PQ_CT_ENUM || nd->converted_type == PQ_CT_JSON;
}

static int is_decimal(const pq_schema_node *nd, int32_t *scale)
{
	if (nd->logical_type.kind == PQ_LT_DECIMAL) {
		*scale = nd->logical_type.decimal_scale;
		return 1;
	}
	if (nd->converted_type == PQ_CT_DECIMAL) {
		*scale = nd->scale;
		return 1;
	}
	return 0;
}

/* Length in bytes of the first `chars` UTF-8 code points of s[0..len). */
static size_t utf8_prefix(const uint8_t *s, size_t len, int chars, int *truncated)
{
	size_t i = 0;
	int c = 0;
	while (i < len && c < chars) {
		uint8_t b = s[i];
		size_t w = b < 0x80 ? 1 : (b >> 5) == 6 ? 2 : (b >> 4) == 14 ? 3 : (b >> 3) == 30 ? 4 : 1;
		i += w;
		c++;
	}
	if (i > len)
		i = len;
	*truncated = i < len;
	return i;
}

static uint32_t utf8_at(const uint8_t *s, size_t len)
{
	uint8_t b = s[0];
	if (b < 0x80 || len < 2)
		return b;
	if ((b >> 5) == 6)
		return ((uint32_t)(b & 0x1f) << 6) | (s[1] & 0x3f);
	if ((b >> 4) == 14 && len >= 3)
		return ((uint32_t)(b & 0x0f) << 12) | ((uint32_t)(s[1] & 0x3f) << 6) | (s[2] & 0x3f);
	if (len >= 4)
		return ((uint32_t)(b & 0x07) << 18) | ((uint32_t)(s[1] & 0x3f) << 12) |
		       ((uint32_t)(s[2] & 0x3f) << 6) | (s[3] & 0x3f);
	return 0x10FFFF;
}

static json_t *string_json(const uint8_t *s, size_t len, int is_max, int exact, int prefix)
{
	int truncated;
	size_t n = utf8_prefix(s, len, prefix, &truncated);
	char buf[4 * 64 + 8];
	uint32_t next;
	if (!truncated) {
		if (is_max && !exact)
			return NULL;
		return json_stringn((const char *)s, len);
	}
	if (!is_max)
		return json_stringn((const char *)s, n);
	if (n > sizeof(buf) - 8)
		return NULL;
	next = utf8_at(s + n, len - n);
	memcpy(buf, s, n);
	if (next < 0x7F) {
		buf[n++] = 0x7F;
	} else if (next < 0x10FFFF) {
		memcpy(buf + n, "\xF4\x8F\xBF\xBF", 4);
		n += 4;
	} else {
		return NULL;
	}
	return json_stringn(buf, n);
}

/* The JSON value of one PLAIN min or max, or NULL when Delta keeps none. */
static json_t *value_json(const delta_stats_leaf *l, const uint8_t *v, size_t len, int is_max,
                          int prefix)
{
	const pq_schema_node *nd = l->node;
	int32_t scale = 0;
	pq_cmp_kind k = pq_cmp_kind_of(nd);

	if (k == PQ_CMP_NONE || k == PQ_CMP_BOOL)
		return NULL;
	if (is_decimal(nd, &scale)) {
		if (nd->type == PQ_INT32 && len == 4) {
			uint8_t be[4] = { v[3], v[2], v[1], v[0] };
			return decimal_json(be, 4, scale);
		}
		if (nd->type == PQ_INT64 && len == 8) {
			uint8_t be[8];
			int i;
			for (i = 0; i < 8; i++)
				be[i] = v[7 - i];
			return decimal_json(be, 8, scale);
		}
		return decimal_json(v, len, scale);
	}
	switch (nd->type) {
	case PQ_INT32:
		if (len != 4)
			return NULL;
		if (nd->logical_type.kind == PQ_LT_DATE || nd->converted_type == PQ_CT_DATE)
			return date_json(le_i64(v, 4));
		if (nd->logical_type.kind == PQ_LT_TIME || nd->converted_type == PQ_CT_TIME_MILLIS)
			return NULL;
		if (k == PQ_CMP_U32)
			return json_integer((json_int_t)(uint32_t)le_i64(v, 4));
		return json_integer((json_int_t)le_i64(v, 4));
	case PQ_INT64:
		if (len != 8)
			return NULL;
		if (nd->logical_type.kind == PQ_LT_TIMESTAMP)
			return timestamp_json(le_i64(v, 8), nd->logical_type.unit, nd->logical_type.is_adjusted_to_utc);
		if (nd->converted_type == PQ_CT_TIMESTAMP_MILLIS || nd->converted_type == PQ_CT_TIMESTAMP_MICROS)
			return timestamp_json(le_i64(v, 8),
			                      nd->converted_type == PQ_CT_TIMESTAMP_MILLIS ? PQ_UNIT_MILLIS : PQ_UNIT_MICROS, 1);
		if (nd->logical_type.kind == PQ_LT_TIME || nd->converted_type == PQ_CT_TIME_MICROS)
			return NULL;
		if (k == PQ_CMP_U64 && le_i64(v, 8) < 0)
			return NULL;
		return json_integer((json_int_t)le_i64(v, 8));
	case PQ_FLOAT: {
		float f;
		if (len != 4)
			return NULL;
		memcpy(&f, v, 4);
		if (!isfinite(f))
			return NULL;
		if (f == 0.0f)
			f = 0.0f; /* -0.0 prints as 0 */
		return double_json((double)f, 1);
	}
	case PQ_DOUBLE: {
		double d;
		if (len != 8)
			return NULL;
		memcpy(&d, v, 8);
		if (!isfinite(d))
			return NULL;
		if (d == 0.0)
			d = 0.0;
		return double_json(d, 0);
	}
	case PQ_BYTE_ARRAY:
		if (!is_string(nd))
			return NULL;
		return string_json(v, len, is_max, is_max ? l->max_exact : 1, prefix);
	default:
		return NULL;
	}
}

/* ---- column selection --------------------------------------------------- */

static int name_listed(const char *list, const delta_stats_leaf *l)
{
	const char *p = list;
	while (*p) {
		const char *end = strchr(p, ',');
		size_t n = end ? (size_t)(end - p) : strlen(p);
		size_t i, off = 0;
		while (n && (*p == ' ' || *p == '`')) {
			p++;
			n--;
		}
		while (n && (p[n - 1] == ' ' || p[n - 1] == '`'))
			n--;
		/* the name must equal a dotted prefix of the leaf path */
		for (i = 0; i < l->depth; i++) {
			size_t pl = strlen(l->parts[i]);
			if (off + pl > n || strncasecmp(p + off, l->parts[i], pl) != 0)
				break;
			off += pl;
			if (off == n)
				return 1;
			if (p[off] != '.')
				break;
			off++;
		}
		if (!end)
			break;
		p = end + 1;
	}
	return 0;
}

/* The object at parts[0..depth-1) under `root`, created as needed. */
static json_t *path_object(json_t *root, const delta_stats_leaf *l)
{
	size_t i;
	json_t *o = root;
	for (i = 0; i + 1 < l->depth; i++) {
		json_t *c = json_object_get(o, l->parts[i]);
		if (!c) {
			c = json_object();
			json_object_set_new(o, l->parts[i], c);
		}
		if (!json_is_object(c))
			return NULL;
		o = c;
	}
	return o;
}

int delta_stats_json(loom_buf *out, int64_t num_records, const delta_stats_leaf *leaves, size_t n,
                     const delta_stats_opts *o)
{
	json_t *root = json_object(), *mins = json_object(), *maxs = json_object(), *nulls = json_object();
	int64_t budget = o ? o->num_indexed_cols : 32;
	int prefix = o && o->string_prefix > 0 ? o->string_prefix : DELTA_STATS_STRING_PREFIX;
	const delta_stats_leaf *prev_complex = NULL;
	char *text;
	size_t i;
	int rc = 0;

	if (!root || !mins || !maxs || !nulls) {
		rc = loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_DELTA, "out of memory building stats");
		goto done;
	}
	json_object_set_new(root, "numRecords", json_integer((json_int_t)num_records));
	for (i = 0; i < n; i++) {
		const delta_stats_leaf *l = &leaves[i];
		json_t *parent, *v;
		if (o && o->stats_columns) {
			if (!name_listed(o->stats_columns, l))
				continue;
		} else if (budget >= 0) {
			/* a list/map column takes one slot for all its leaves */
			int same = prev_complex && l->complex && prev_complex->depth == l->depth;
			size_t k;
			for (k = 0; same && k < l->depth; k++)
				same = strcmp(prev_complex->parts[k], l->parts[k]) == 0;
			if (!same) {
				if (budget == 0)
					break;
				budget--;
			}
		}
		prev_complex = l->complex ? l : NULL;
		if (l->complex)
			continue;
		if (l->null_count >= 0 && (parent = path_object(nulls, l)) != NULL)
			json_object_set_new(parent, l->parts[l->depth - 1], json_integer((json_int_t)l->null_count));
		if (!l->has_min_max)
			continue;
		if ((v = value_json(l, l->min, l->min_len, 0, prefix)) != NULL) {
			if ((parent = path_object(mins, l)) != NULL)
				json_object_set_new(parent, l->parts[l->depth - 1], v);
			else
				json_decref(v);
		}
		if ((v = value_json(l, l->max, l->max_len, 1, prefix)) != NULL) {
			if ((parent = path_object(maxs, l)) != NULL)
				json_object_set_new(parent, l->parts[l->depth - 1], v);
			else
				json_decref(v);
		}
	}
	json_object_set(root, "minValues", mins);
	json_object_set(root, "maxValues", maxs);
	json_object_set(root, "nullCount", nulls);
	if (o && o->tight_bounds > 0)
		json_object_set_new(root, "tightBounds", json_true());
	else if (o && o->tight_bounds < 0)
		json_object_set_new(root, "tightBounds", json_false());
	text = json_dumps(root, JSON_COMPACT);
	if (!text) {
		rc = loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_DELTA, "out of memory writing stats");
		goto done;
	}
	unmark_numbers(text);
	rc = loom_buf_puts(out, text);
	free(text);
done:
	json_decref(root);
	json_decref(mins);
	json_decref(maxs);
	json_decref(nulls);
	return rc;
}

/* INT96: nanoseconds of the day (8 bytes LE), then the Julian day (4 bytes
 * LE). 0 when the instant does not fit 64-bit microseconds (a Julian day
 * far out, found by fuzzing a checkpoint's stats_parsed: UBSan). */
static int int96_micros(const uint8_t *v, int64_t *out)
{
	int64_t nanos = le_i64(v, 8), jd = le_i64(v + 8, 4);
	__extension__ __int128 us = (__int128)(jd - 2440588) * 86400000000LL + floor_div(nanos, 1000);
	if (us > INT64_MAX || us < INT64_MIN)
		return 0;
	*out = (int64_t)us;
	return 1;
}

json_t *delta_stats_value(const pq_schema_node *nd, const uint8_t *v, size_t len)
{
	delta_stats_leaf l;
	int64_t us;
	if (nd->type == PQ_INT96)
		return len == 12 && int96_micros(v, &us) ? timestamp_json(us, PQ_UNIT_MICROS, 1) : NULL;
	memset(&l, 0, sizeof(l));
	l.node = nd;
	return value_json(&l, v, len, 0, INT_MAX);
}

int delta_stats_dump(json_t *root, loom_buf *out)
{
	char *text = json_dumps(root, JSON_COMPACT);
	int rc;
	if (!text)
		return loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_DELTA, "out of memory writing stats");
	unmark_numbers(text);
	rc = loom_buf_puts(out, text);
	free(text);
	return rc;
}

const json_t *delta_json_at_path(const json_t *o, const char *path)
{
	char key[512];
	while (o && *path) {
		const char *dot = strchr(path, '.');
		size_t n = dot ? (size_t)(dot - path) : strlen(path);
		if (n >= sizeof(key))
			return NULL;
		memcpy(key, path, n);
		key[n] = '\0';
		o = json_is_object(o) ? json_object_get(o, key) : NULL;
		path += n + (dot ? 1 : 0);
	}
	return o;
}
