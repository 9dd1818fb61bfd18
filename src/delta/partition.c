/* delta/partition.c - parse partition value strings by type. */
#include "delta/partition.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "util/error.h"

static int bad(const delta_type *t, const char *text, const char *why)
{
	return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_DELTA,
	                "partition value \"%.100s\" is not a valid %s: %s", text,
	                t->name ? t->name : "value", why);
}

int64_t delta_days_from_civil(int64_t y, unsigned m, unsigned d)
{
	/* Howard Hinnant's days_from_civil */
	int64_t era, yoe, doy, doe;
	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = y - era * 400;
	doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

static int days_in_month(int64_t y, unsigned m)
{
	static const int dm[] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
	int leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
	return m == 2 && leap ? 29 : dm[m - 1];
}

/* n digits exactly */
static int digits(const char **p, int n, int64_t *out)
{
	int i;
	int64_t v = 0;
	for (i = 0; i < n; i++) {
		if (!isdigit((unsigned char)(*p)[i]))
			return -1;
		v = v * 10 + ((*p)[i] - '0');
	}
	*p += n;
	*out = v;
	return 0;
}

/* "YYYY-MM-DD" (4+ digit year, optional sign) -> days; advances *p. */
static int parse_date(const char **p, int64_t *days)
{
	const char *q = *p;
	int64_t y = 0, m, d;
	int neg = 0, nd = 0;
	if (*q == '-' || *q == '+')
		neg = *q++ == '-';
	while (isdigit((unsigned char)*q) && nd < 9) {
		y = y * 10 + (*q++ - '0');
		nd++;
	}
	if (nd < 4 || *q++ != '-' || digits(&q, 2, &m) || *q++ != '-' || digits(&q, 2, &d))
		return -1;
	if (neg)
		y = -y;
	if (m < 1 || m > 12 || d < 1 || d > days_in_month(y, (unsigned)m))
		return -1;
	*days = delta_days_from_civil(y, (unsigned)m, (unsigned)d);
	*p = q;
	return 0;
}

/* date [ 'T'|' ' HH:MM:SS[.f{1,9}] ] [Z|+HH:MM|-HH:MM]; zone only if allowed */
static int parse_timestamp(const char *text, int allow_zone, int64_t *us)
{
	const char *p = text;
	int64_t days, hh = 0, mi = 0, ss = 0, frac = 0, off = 0;
	if (parse_date(&p, &days))
		return -1;
	if (*p == ' ' || *p == 'T') {
		p++;
		if (digits(&p, 2, &hh) || *p++ != ':' || digits(&p, 2, &mi))
			return -1;
		if (*p == ':') {
			p++;
			if (digits(&p, 2, &ss))
				return -1;
			if (*p == '.') {
				int n = 0;
				p++;
				while (isdigit((unsigned char)*p)) {
					if (n < 6)
						frac = frac * 10 + (*p - '0');
					n++;
					p++;
				}
				if (n == 0 || n > 9)
					return -1;
				for (; n < 6; n++)
					frac *= 10;
			}
		}
		if (hh > 23 || mi > 59 || ss > 59)
			return -1;
	}
	if (*p == 'Z' && allow_zone) {
		p++;
	} else if ((*p == '+' || *p == '-') && allow_zone) {
		int neg = *p++ == '-';
		int64_t oh, om = 0;
		if (digits(&p, 2, &oh))
			return -1;
		if (*p == ':')
			p++;
		if (*p && digits(&p, 2, &om))
			return -1;
		off = (oh * 60 + om) * 60;
		if (neg)
			off = -off;
	}
	if (*p)
		return -1;
	{
		/* microseconds must fit in 64 bits: years up to about +-292000
		 * (a nine-digit year overflowed, found by fuzzing) */
		int64_t secs = (days * 86400 + hh * 3600 + mi * 60 + ss) - off;
		if (secs > INT64_MAX / 1000000 - 1 || secs < INT64_MIN / 1000000 + 1)
			return -1;
		*us = secs * 1000000 + frac;
	}
	return 0;
}

static int parse_decimal(const delta_type *t, const char *text, delta_int128 *out)
{
	const char *p = text;
	delta_int128 v = 0;
	int neg = 0, ndig = 0, frac_digits = 0, seen_dot = 0;
	long exp10 = 0;
	int scale_shift, i;

	if (*p == '-' || *p == '+')
		neg = *p++ == '-';
	for (; *p; p++) {
		if (isdigit((unsigned char)*p)) {
			if (ndig > 0 || *p != '0')
				ndig++;
			if (ndig > 38)
				return bad(t, text, "too many digits");
			v = v * 10 + (*p - '0');
			if (seen_dot)
				frac_digits++;
		} else if (*p == '.' && !seen_dot) {
			seen_dot = 1;
		} else if (*p == 'e' || *p == 'E') {
			char *end;
			errno = 0;
			exp10 = strtol(p + 1, &end, 10);
			if (end == p + 1 || *end || errno || exp10 > 76 || exp10 < -76)
				return bad(t, text, "bad exponent");
			break;
		} else {
			return bad(t, text, "unexpected character");
		}
	}
	/* value = v * 10^(exp10 - frac_digits); want unscaled at t->scale */
	scale_shift = (int)(t->scale + exp10 - frac_digits);
	if (scale_shift < 0) {
		for (i = 0; i < -scale_shift; i++) {
			if (v % 10)
				return bad(t, text, "more fractional digits than the scale");
			v /= 10;
		}
	} else if (v != 0) {
		/* count the digit before multiplying: 39 digits overflow 128 bits
		 * (found by fuzzing) */
		for (i = 0; i < scale_shift; i++) {
			if (++ndig > 38)
				return bad(t, text, "too many digits");
			v *= 10;
		}
	}
	{
		delta_int128 limit = 1;
		for (i = 0; i < t->precision; i++)
			limit *= 10;
		if (v >= limit)
			return bad(t, text, "exceeds the precision");
	}
	*out = neg ? -v : v;
	return 0;
}

int delta_partition_value_parse(const delta_type *t, const char *text,
                                delta_pvalue *out)
{
	char *end;
	memset(out, 0, sizeof(*out));
	out->kind = t->kind;
	if (!text || !*text) {
		out->is_null = 1;
		return 0;
	}
	switch (t->kind) {
	case DELTA_T_STRING:
	case DELTA_T_BINARY:
		out->s = text;
		out->len = strlen(text);
		return 0;
	case DELTA_T_BYTE:
	case DELTA_T_SHORT:
	case DELTA_T_INTEGER:
	case DELTA_T_LONG: {
		long long v, lo, hi;
		errno = 0;
		if (isspace((unsigned char)*text))
			return bad(t, text, "leading space");
		v = strtoll(text, &end, 10);
		if (*end || errno)
			return bad(t, text, "not an integer in range");
		lo = t->kind == DELTA_T_BYTE ? -128 : t->kind == DELTA_T_SHORT ? -32768
		   : t->kind == DELTA_T_INTEGER ? INT32_MIN : INT64_MIN;
		hi = t->kind == DELTA_T_BYTE ? 127 : t->kind == DELTA_T_SHORT ? 32767
		   : t->kind == DELTA_T_INTEGER ? INT32_MAX : INT64_MAX;
		if (v < lo || v > hi)
			return bad(t, text, "out of range");
		out->i = v;
		return 0;
	}
	case DELTA_T_FLOAT:
	case DELTA_T_DOUBLE:
		errno = 0;
		if (isspace((unsigned char)*text))
			return bad(t, text, "leading space");
		if (strcmp(text, "Infinity") == 0 || strcmp(text, "+Infinity") == 0)
			out->d = INFINITY;
		else if (strcmp(text, "-Infinity") == 0)
			out->d = -INFINITY;
		else if (strcmp(text, "NaN") == 0)
			out->d = NAN;
		else {
			out->d = strtod(text, &end);
			if (*end || (errno == ERANGE && isinf(out->d)))
				return bad(t, text, "not a number");
		}
		if (t->kind == DELTA_T_FLOAT)
			out->d = (float)out->d;
		return 0;
	case DELTA_T_BOOLEAN:
		if (strcasecmp(text, "true") == 0)
			out->i = 1;
		else if (strcasecmp(text, "false") == 0)
			out->i = 0;
		else
			return bad(t, text, "expected true or false");
		return 0;
	case DELTA_T_DATE: {
		const char *p = text;
		if (parse_date(&p, &out->i) || *p)
			return bad(t, text, "expected YYYY-MM-DD");
		return 0;
	}
	case DELTA_T_TIMESTAMP:
		if (parse_timestamp(text, 1, &out->i))
			return bad(t, text, "expected YYYY-MM-DD HH:MM:SS[.ffffff] or ISO 8601");
		return 0;
	case DELTA_T_TIMESTAMP_NTZ:
		if (parse_timestamp(text, 0, &out->i))
			return bad(t, text, "expected YYYY-MM-DD HH:MM:SS[.ffffff]");
		return 0;
	case DELTA_T_DECIMAL:
		return parse_decimal(t, text, &out->dec);
	default:
		return loom_err(LOOM_EUNSUPPORTED, LOOM_ERRCLASS_DELTA,
		                "partition values of type %s are not supported",
		                t->name ? t->name : "?");
	}
}

const char *delta_partition_raw(const delta_snapshot *s, const delta_file *f,
                                const char *column, int *found)
{
	const delta_field *fd = delta_schema_find(&s->schema, column);
	const char *key = column;
	if (fd)
		key = delta_field_physical_name(fd, delta_snapshot_column_mapping(s) != 0);
	return delta_kv_get(f->partition_values, f->num_partition_values, key, found);
}
