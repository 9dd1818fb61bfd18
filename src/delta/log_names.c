/* delta/log_names.c - classify _delta_log file names. */
#include "delta/log_names.h"

#include <stdio.h>
#include <string.h>

/* Exactly `n` digits at s[0..n) -> value; -1 if not digits or too big. */
static int64_t parse_digits(const char *s, size_t n)
{
	int64_t v = 0;
	size_t i;
	for (i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		if (v > (INT64_MAX - (s[i] - '0')) / 10)
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	return v;
}

int64_t delta_log_leading_version(const char *name)
{
	int64_t v = parse_digits(name, 20);
	if (v < 0 || (name[20] >= '0' && name[20] <= '9'))
		return -1;
	return v;
}

static int is_hex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') ||
	       (c >= 'A' && c <= 'F');
}

/* 8-4-4-4-12 hex digits. */
static int is_uuid(const char *s, size_t n)
{
	size_t i;
	if (n != 36)
		return 0;
	for (i = 0; i < 36; i++) {
		if (i == 8 || i == 13 || i == 18 || i == 23) {
			if (s[i] != '-')
				return 0;
		} else if (!is_hex(s[i])) {
			return 0;
		}
	}
	return 1;
}

static int ends_with(const char *s, size_t n, const char *suffix)
{
	size_t k = strlen(suffix);
	return n >= k && memcmp(s + n - k, suffix, k) == 0;
}

int delta_log_name_parse(const char *name, size_t len, delta_log_name *out)
{
	const char *rest;
	size_t rlen;
	int64_t v;

	memset(out, 0, sizeof(*out));
	out->part = out->parts = 1;
	if (len == 16 && memcmp(name, "_last_checkpoint", 16) == 0) {
		out->kind = DELTA_LOG_LAST_CHECKPOINT;
		out->version = out->end_version = -1;
		return 1;
	}
	if (len < 21 || name[20] != '.')
		return 0;
	v = parse_digits(name, 20);
	if (v < 0)
		return 0;
	out->version = out->end_version = v;
	rest = name + 21;
	rlen = len - 21;

	if (rlen == 4 && memcmp(rest, "json", 4) == 0) {
		out->kind = DELTA_LOG_COMMIT;
		return 1;
	}
	if (rlen == 3 && memcmp(rest, "crc", 3) == 0) {
		out->kind = DELTA_LOG_CRC;
		return 1;
	}
	/* X.Y.compacted.json */
	if (rlen == 20 + 15 && memcmp(rest + 20, ".compacted.json", 15) == 0) {
		int64_t y = parse_digits(rest, 20);
		if (y < 0 || y <= v)
			return 0;
		out->kind = DELTA_LOG_COMPACTION;
		out->end_version = y;
		return 1;
	}
	if (rlen < 11 || memcmp(rest, "checkpoint.", 11) != 0)
		return 0;
	rest += 11;
	rlen -= 11;
	if (rlen == 7 && memcmp(rest, "parquet", 7) == 0) {
		out->kind = DELTA_LOG_CHECKPOINT;
		return 1;
	}
	/* P.T.parquet with 10-digit P and T, 1 <= P <= T */
	if (rlen == 10 + 1 + 10 + 8 && rest[10] == '.' &&
	    memcmp(rest + 21, ".parquet", 8) == 0) {
		int64_t p = parse_digits(rest, 10), t = parse_digits(rest + 11, 10);
		if (p < 1 || t < 1 || p > t || t > INT32_MAX)
			return 0;
		out->kind = DELTA_LOG_CHECKPOINT_PART;
		out->part = (int32_t)p;
		out->parts = (int32_t)t;
		return 1;
	}
	/* <uuid>.json | <uuid>.parquet */
	if (ends_with(rest, rlen, ".json") && is_uuid(rest, rlen - 5)) {
		out->is_json = 1;
	} else if (ends_with(rest, rlen, ".parquet") && is_uuid(rest, rlen - 8)) {
		out->is_json = 0;
	} else {
		return 0;
	}
	out->kind = DELTA_LOG_CHECKPOINT_V2;
	memcpy(out->uuid, rest, 36);
	out->uuid[36] = '\0';
	return 1;
}

void delta_log_format_version(int64_t version, char out[21])
{
	snprintf(out, 21, "%020lld", (long long)version);
}
