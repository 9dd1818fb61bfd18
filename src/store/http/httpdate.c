/* store/http/httpdate.c - RFC 1123 and ISO 8601 dates, UTC only. */
#include "store/http/httpdate.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "util/error.h"

static const char *const day_names[] = { "Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat" };
static const char *const month_names[] = { "Jan", "Feb", "Mar", "Apr", "May", "Jun",
	                                       "Jul", "Aug", "Sep", "Oct", "Nov", "Dec" };

static void utc(int64_t ms, struct tm *tm)
{
	time_t t = (time_t)(ms >= 0 ? ms / 1000 : (ms - 999) / 1000);
	gmtime_r(&t, tm);
}

/* Fields are formatted into a roomy buffer first (years past 9999 and
 * such are cut, never overflowed), then copied into the fixed size. */
static void copy_out(char *out, size_t cap, const char *tmp)
{
	size_t n = strlen(tmp);
	if (n >= cap)
		n = cap - 1;
	memcpy(out, tmp, n);
	out[n] = '\0';
}

void httpdate_rfc1123(int64_t ms, char out[HTTPDATE_RFC1123_LEN])
{
	char tmp[64];
	struct tm tm;
	utc(ms, &tm);
	snprintf(tmp, sizeof(tmp), "%s, %02d %s %04d %02d:%02d:%02d GMT",
	         day_names[tm.tm_wday % 7], tm.tm_mday % 100, month_names[tm.tm_mon % 12],
	         (tm.tm_year + 1900) % 10000, tm.tm_hour % 100, tm.tm_min % 100, tm.tm_sec % 100);
	copy_out(out, HTTPDATE_RFC1123_LEN, tmp);
}

void httpdate_iso_basic(int64_t ms, char out[HTTPDATE_ISO_BASIC_LEN])
{
	char tmp[64];
	struct tm tm;
	utc(ms, &tm);
	snprintf(tmp, sizeof(tmp), "%04d%02d%02dT%02d%02d%02dZ", (tm.tm_year + 1900) % 10000,
	         (tm.tm_mon + 1) % 100, tm.tm_mday % 100, tm.tm_hour % 100, tm.tm_min % 100,
	         tm.tm_sec % 100);
	copy_out(out, HTTPDATE_ISO_BASIC_LEN, tmp);
}

/* `n` digits at s into *v; 0 or -1. */
static int digits(const char *s, int n, int *v)
{
	int i;
	*v = 0;
	for (i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		*v = *v * 10 + (s[i] - '0');
	}
	return 0;
}

/* ms since the epoch of a broken-down UTC time, after range checks. */
static int to_ms(struct tm *tm, int frac_ms, int64_t *ms)
{
	time_t t;
	if (tm->tm_mon < 0 || tm->tm_mon > 11 || tm->tm_mday < 1 || tm->tm_mday > 31 ||
	    tm->tm_hour > 23 || tm->tm_min > 59 || tm->tm_sec > 60)
		return -1;
	t = timegm(tm);
	*ms = (int64_t)t * 1000 + frac_ms;
	return 0;
}

int httpdate_parse_rfc1123(const char *s, int64_t *ms)
{
	struct tm tm;
	int i, mon = -1, v;
	memset(&tm, 0, sizeof(tm));
	/* "Sun, 06 Nov 1994 08:49:37 GMT": 29 characters */
	if (strlen(s) != 29 || s[3] != ',' || s[4] != ' ' || s[7] != ' ' || s[11] != ' ' ||
	    s[16] != ' ' || s[19] != ':' || s[22] != ':' || strcmp(s + 25, " GMT") != 0)
		goto bad;
	for (i = 0; i < 12; i++)
		if (strncmp(s + 8, month_names[i], 3) == 0)
			mon = i;
	if (mon < 0 || digits(s + 5, 2, &tm.tm_mday) < 0 || digits(s + 12, 4, &v) < 0 ||
	    digits(s + 17, 2, &tm.tm_hour) < 0 || digits(s + 20, 2, &tm.tm_min) < 0 ||
	    digits(s + 23, 2, &tm.tm_sec) < 0)
		goto bad;
	tm.tm_mon = mon;
	tm.tm_year = v - 1900;
	if (to_ms(&tm, 0, ms) == 0)
		return 0;
bad:
	return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_STORE, "\"%.40s\" is not an RFC 1123 date", s);
}

int httpdate_parse_iso8601(const char *s, int64_t *ms)
{
	struct tm tm;
	int v, frac = 0, scale = 100;
	const char *p;
	memset(&tm, 0, sizeof(tm));
	/* "2009-10-12T17:50:30" then optional fraction, then Z or +00:00 */
	if (strlen(s) < 20 || s[4] != '-' || s[7] != '-' || (s[10] != 'T' && s[10] != 't') ||
	    s[13] != ':' || s[16] != ':' || digits(s, 4, &v) < 0 || digits(s + 5, 2, &tm.tm_mon) < 0 ||
	    digits(s + 8, 2, &tm.tm_mday) < 0 || digits(s + 11, 2, &tm.tm_hour) < 0 ||
	    digits(s + 14, 2, &tm.tm_min) < 0 || digits(s + 17, 2, &tm.tm_sec) < 0)
		goto bad;
	tm.tm_year = v - 1900;
	tm.tm_mon -= 1;
	p = s + 19;
	if (*p == '.') {
		for (p++; *p >= '0' && *p <= '9'; p++) {
			frac += scale * (*p - '0');
			scale /= 10;
		}
	}
	if (!(strcmp(p, "Z") == 0 || strcmp(p, "z") == 0 || strcmp(p, "+00:00") == 0))
		goto bad;
	if (to_ms(&tm, frac, ms) == 0)
		return 0;
bad:
	return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_STORE, "\"%.40s\" is not an ISO 8601 UTC time", s);
}
