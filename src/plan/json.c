/* plan/json.c - JSON strings that never vanish on invalid UTF-8. */
#include <jansson.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "plan/plan_int.h"
#include "util/buf.h"

json_t *plan_json_str(const char *s)
{
	json_t *j;
	char *copy;
	size_t i, n;
	if (!s)
		return json_null();
	j = json_string(s);
	if (j)
		return j;
	/* not valid UTF-8: keep ASCII, replace every other byte */
	n = strlen(s);
	copy = malloc(n + 1);
	if (!copy)
		return json_null();
	for (i = 0; i < n; i++)
		copy[i] = (unsigned char)s[i] < 0x80 ? s[i] : '?';
	copy[n] = '\0';
	j = json_string(copy);
	free(copy);
	return j ? j : json_null();
}

void plan_bprintf(int *rc, loom_buf *b, const char *fmt, ...)
{
	va_list ap;
	int r;
	if (*rc < 0)
		return;
	va_start(ap, fmt);
	r = loom_buf_vprintf(b, fmt, ap);
	va_end(ap);
	if (r < 0)
		*rc = r;
}
