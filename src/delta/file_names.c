/* delta/file_names.c - "part-NNNNN-<uuid><suffix>" to and from binary. */
#include "delta/file_names.h"

#include <string.h>

/* 0-15 for '0'-'9' and 'a'-'f', -1 for every other byte (uppercase stays
 * text: it would not format back) */
static const signed char hex_of[256] = {
	['0'] = 1, ['1'] = 2, ['2'] = 3, ['3'] = 4, ['4'] = 5, ['5'] = 6, ['6'] = 7, ['7'] = 8,
	['8'] = 9, ['9'] = 10, ['a'] = 11, ['b'] = 12, ['c'] = 13, ['d'] = 14, ['e'] = 15, ['f'] = 16,
};

static int hexval(char c)
{
	return hex_of[(unsigned char)c] - 1; /* stored + 1 so the rest is 0 */
}

/* 36 characters 8-4-4-4-12 into 16 bytes */
static int parse_uuid(const char *s, uint8_t *out)
{
	size_t i, n = 0;
	for (i = 0; i < 36; i++) {
		int hi, lo;
		if (i == 8 || i == 13 || i == 18 || i == 23) {
			if (s[i] != '-')
				return 0;
			continue;
		}
		hi = hexval(s[i]);
		lo = hexval(s[i + 1]);
		if (hi < 0 || lo < 0)
			return 0;
		out[n++] = (uint8_t)(hi << 4 | lo);
		i++;
	}
	return 1;
}

int delta_name_parse(const char *name, size_t len, delta_name_parts *out)
{
	const size_t head = 5 + 5 + 1; /* "part-" digits "-" */
	size_t i;
	uint32_t part = 0;

	if (len <= head + 36 || len - head - 36 > DELTA_NAME_SUFFIX_MAX)
		return 0;
	if (memcmp(name, "part-", 5) != 0 || name[10] != '-')
		return 0;
	for (i = 5; i < 10; i++) {
		if (name[i] < '0' || name[i] > '9')
			return 0;
		part = part * 10 + (uint32_t)(name[i] - '0');
	}
	if (!parse_uuid(name + head, out->uuid))
		return 0;
	out->suffix = name + head + 36;
	out->suffix_len = len - head - 36;
	if (memchr(out->suffix, '/', out->suffix_len) || memchr(out->suffix, '\0', out->suffix_len))
		return 0;
	out->part = part;
	return 1;
}

size_t delta_name_format(const delta_name_parts *p, char *out)
{
	static const char hex[] = "0123456789abcdef";
	uint32_t part = p->part;
	size_t i, n = 0;
	int d;

	memcpy(out, "part-", 5);
	for (d = 9; d >= 5; d--) {
		out[d] = (char)('0' + part % 10);
		part /= 10;
	}
	out[10] = '-';
	n = 11;
	for (i = 0; i < 16; i++) {
		if (i == 4 || i == 6 || i == 8 || i == 10)
			out[n++] = '-';
		out[n++] = hex[p->uuid[i] >> 4];
		out[n++] = hex[p->uuid[i] & 15];
	}
	memcpy(out + n, p->suffix, p->suffix_len);
	n += p->suffix_len;
	out[n] = '\0';
	return n;
}

int delta_name_compare(const delta_name_parts *a, const delta_name_parts *b)
{
	size_t m;
	int c;
	if (a->part != b->part)
		return a->part < b->part ? -1 : 1;
	c = memcmp(a->uuid, b->uuid, 16);
	if (c)
		return c;
	m = a->suffix_len < b->suffix_len ? a->suffix_len : b->suffix_len;
	c = memcmp(a->suffix, b->suffix, m);
	if (c)
		return c;
	return a->suffix_len < b->suffix_len ? -1 : a->suffix_len > b->suffix_len;
}
