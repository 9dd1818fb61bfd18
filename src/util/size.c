/* util/size.c - byte sizes written as 134217728, "128MiB" or "1.5 GB". */
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "util/size.h"
#include "util/error.h"

static const struct {
	const char *unit;
	int64_t mult;
} size_units[] = {
	{ "", 1 }, { "b", 1 },
	{ "k", 1000 }, { "kb", 1000 }, { "m", 1000000 }, { "mb", 1000000 },
	{ "g", 1000000000LL }, { "gb", 1000000000LL },
	{ "t", 1000000000000LL }, { "tb", 1000000000000LL },
	{ "kib", 1LL << 10 }, { "mib", 1LL << 20 }, { "gib", 1LL << 30 },
	{ "tib", 1LL << 40 },
};

LOOM_EXTERN(int) loom_size_parse(int64_t *out, const char *text)
{
	const char *p = text;
	uint64_t whole = 0, frac = 0, frac_div = 1;
	int digits = 0;
	size_t i;

	if (!text || !out)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_CONFIG, "size: NULL argument");
	while (*p == ' ')
		p++;
	if (*p == '+')
		p++;
	for (; isdigit((unsigned char)*p) || *p == '_'; p++) {
		if (*p == '_')
			continue;
		if (whole > (UINT64_MAX - 9) / 10)
			goto overflow;
		whole = whole * 10 + (uint64_t)(*p - '0');
		digits++;
	}
	if (*p == '.') {
		for (p++; isdigit((unsigned char)*p); p++) {
			if (frac_div < 1000000000ULL) {
				frac = frac * 10 + (uint64_t)(*p - '0');
				frac_div *= 10;
			}
			digits++;
		}
	}
	if (!digits)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_CONFIG,
		                "'%s' is not a size (use bytes or a unit like 128MiB, 1GB)", text);
	while (*p == ' ')
		p++;
	for (i = 0; i < sizeof(size_units) / sizeof(size_units[0]); i++) {
		if (strcasecmp(p, size_units[i].unit) == 0) {
			uint64_t m = (uint64_t)size_units[i].mult;
			uint64_t v;
			if (whole > (uint64_t)INT64_MAX / m)
				goto overflow;
			v = whole * m + (frac * m) / frac_div;
			if (frac && m == 1)
				return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_CONFIG,
				                "'%s' is not a whole number of bytes", text);
			if (v > (uint64_t)INT64_MAX)
				goto overflow;
			*out = (int64_t)v;
			return 0;
		}
	}
	return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_CONFIG,
	                "'%s': unknown size unit '%s' (B, KB, MB, GB, TB, KiB, MiB, GiB, TiB)",
	                text, p);
overflow:
	return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_CONFIG, "size '%s' is too large", text);
}

LOOM_EXTERN(void) loom_size_format(char *out, size_t cap, int64_t bytes)
{
	static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	double v = (double)bytes;
	int u = 0;
	if (!out || cap == 0)
		return;
	while (v >= 1024 && u < 4) {
		v /= 1024;
		u++;
	}
	if (u == 0)
		snprintf(out, cap, "%lld B", (long long)bytes);
	else
		snprintf(out, cap, "%.1f %s", v, units[u]);
}
