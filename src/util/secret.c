/* util/secret.c - naming, collecting and masking secrets. */
#include "util/secret.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "util/alloc.h"
#include "util/error.h"

extern char **environ;

static int contains_ci(const char *hay, size_t hay_len, const char *needle)
{
	size_t n = strlen(needle), i;
	for (i = 0; i + n <= hay_len; i++)
		if (strncasecmp(hay + i, needle, n) == 0)
			return 1;
	return 0;
}

/* The rule of util/secret.h, on a name that need not be NUL-terminated. */
static int secret_name_n(const char *name, size_t len)
{
	static const char *const words[] = { "secret", "password", "passwd", "token", "key",
		                                 "credential", "signature", "sas", "authorization" };
	size_t i;
	if (len == 3 && strncasecmp(name, "sig", 3) == 0)
		return 1;
	if (contains_ci(name, len, "endpoint"))
		return 0;
	for (i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (contains_ci(name, len, words[i]))
			return 1;
	return 0;
}

LOOM_EXTERN(int) loom_secret_name(const char *name)
{
	return name ? secret_name_n(name, strlen(name)) : 0;
}

int loom_secrets_add(loom_secrets *s, const char *value)
{
	char **grown, *copy;
	size_t i;
	if (!value || strlen(value) < LOOM_SECRET_MIN_LEN)
		return 0;
	for (i = 0; i < s->n; i++)
		if (strcmp(s->values[i], value) == 0)
			return 0;
	grown = loom_reallocarray(s->values, s->n + 1, sizeof(*grown));
	if (!grown)
		return loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_NONE, "out of memory");
	s->values = grown;
	if (!(copy = loom_strdup(value)))
		return loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_NONE, "out of memory");
	s->values[s->n++] = copy;
	return 0;
}

int loom_secrets_add_options(loom_secrets *s, const loom_kv *kv, size_t n)
{
	size_t i;
	for (i = 0; kv && i < n; i++)
		if (loom_secret_name(kv[i].key))
			LOOM_TRY(loom_secrets_add(s, kv[i].value));
	return 0;
}

int loom_secrets_add_env(loom_secrets *s)
{
	static const char *const prefixes[] = { "AWS_", "AZURE_", "GOOGLE_", "LOOM_" };
	char **e;
	for (e = environ; e && *e; e++) {
		const char *eq = strchr(*e, '=');
		size_t i;
		if (!eq)
			continue;
		for (i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++) {
			size_t pl = strlen(prefixes[i]);
			if (strncmp(*e, prefixes[i], pl) == 0 && secret_name_n(*e, (size_t)(eq - *e))) {
				LOOM_TRY(loom_secrets_add(s, eq + 1));
				break;
			}
		}
	}
	return 0;
}

/* The user-info password of the URI starting at `p` (just after "://"):
 * *start and *len, or 0 when there is none. The authority ends at '/',
 * '?', '#' or a character that cannot be in a URI. */
static int uri_password(const char *p, const char **start, size_t *len)
{
	const char *end = p, *at = NULL, *colon;
	while (*end && *end != '/' && *end != '?' && *end != '#' && !isspace((unsigned char)*end) &&
	       *end != '"' && *end != '\'')
		end++;
	for (colon = p; colon < end; colon++)
		if (*colon == '@')
			at = colon;
	if (!at)
		return 0;
	colon = memchr(p, ':', (size_t)(at - p));
	if (!colon || colon + 1 == at)
		return 0;
	*start = colon + 1;
	*len = (size_t)(at - colon - 1);
	return 1;
}

int loom_secrets_add_uri_password(loom_secrets *s, const char *uri)
{
	const char *sep = uri ? strstr(uri, "://") : NULL, *pw;
	size_t len;
	char *copy;
	int rc;
	if (!sep || !uri_password(sep + 3, &pw, &len))
		return 0;
	if (!(copy = loom_strndup(pw, len)))
		return loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_NONE, "out of memory");
	rc = loom_secrets_add(s, copy);
	loom_free(copy);
	return rc;
}

int loom_secrets_add_all(loom_secrets *s, const loom_secrets *from)
{
	size_t i;
	for (i = 0; from && i < from->n; i++)
		LOOM_TRY(loom_secrets_add(s, from->values[i]));
	return 0;
}

void loom_secrets_dispose(loom_secrets *s)
{
	size_t i;
	for (i = 0; i < s->n; i++)
		loom_free(s->values[i]);
	loom_free(s->values);
	s->values = NULL;
	s->n = 0;
}

/* ---- masking ------------------------------------------------------------ */

static int ends_value(char c)
{
	return !c || c == '&' || c == '#' || c == '"' || c == '\'' || c == ')' || c == '>' ||
	       c == '<' || c == ',' || c == ';' || isspace((unsigned char)c);
}

/* Where a "name=value" pair may start: after '?' or '&' (a query string),
 * or at the start of a word ("Query was sig=...", "Credential=..., 
 * Signature=..."). */
static int starts_pair(const char *text, const char *p)
{
	char prev = p > text ? p[-1] : ' ';
	return prev == '?' || prev == '&' || prev == ' ' || prev == '\t' || prev == '(' ||
	       prev == '"' || prev == '\'' || prev == ',' || prev == ';' || prev == '\n' || p == text;
}

/* At `p`: the length of a secret parameter's "name=" prefix, or 0. */
static size_t secret_param(const char *p)
{
	const char *eq = p;
	while (*eq && *eq != '=' && !ends_value(*eq))
		eq++;
	if (*eq != '=' || eq == p)
		return 0;
	return secret_name_n(p, (size_t)(eq - p)) ? (size_t)(eq - p) + 1 : 0;
}

/* The longest value of the set that `p` starts with, or 0. */
static size_t secret_value_at(const loom_secrets *s, const char *p)
{
	size_t i, best = 0;
	for (i = 0; s && i < s->n; i++) {
		size_t l = strlen(s->values[i]);
		if (l > best && strncmp(p, s->values[i], l) == 0)
			best = l;
	}
	return best;
}

typedef struct mask_out {
	char *out;
	size_t cap, w;
} mask_out;

static void put(mask_out *m, const char *s, size_t n)
{
	while (n-- && m->w + 1 < m->cap)
		m->out[m->w++] = *s++;
}

size_t loom_secrets_mask(const loom_secrets *s, const char *text, char *out, size_t cap)
{
	char copy[4096];
	const char *p = text ? text : "", *start;
	const char *pw_start = NULL;
	size_t pw_len = 0;
	mask_out m = { out, cap, 0 };

	if (!out || cap == 0)
		return 0;
	if (p == out) {
		/* masking may lengthen the text ("pw" -> "***"): read from a copy */
		size_t n = strlen(p);
		if (n >= sizeof(copy))
			n = sizeof(copy) - 1;
		memcpy(copy, p, n);
		copy[n] = '\0';
		p = copy;
	}
	start = p;
	while (*p && m.w + 1 < m.cap) {
		size_t skip;
		if (p == pw_start) {
			put(&m, "***", 3);
			p += pw_len;
			pw_start = NULL;
			continue;
		}
		if ((skip = secret_value_at(s, p)) != 0) {
			put(&m, "***", 3);
			p += skip;
			continue;
		}
		if (p[0] == ':' && p[1] == '/' && p[2] == '/') {
			put(&m, p, 3);
			p += 3;
			if (!uri_password(p, &pw_start, &pw_len))
				pw_start = NULL;
			continue;
		}
		if (starts_pair(start, p) && (skip = secret_param(p)) != 0) {
			put(&m, p, skip);
			p += skip;
			put(&m, "***", 3);
			if (strncmp(p, "***", 3) == 0)
				p += 3; /* masked already: keep what follows it */
			else
				while (!ends_value(*p))
					p++;
			continue;
		}
		put(&m, p, 1);
		p++;
	}
	out[m.w] = '\0';
	return m.w;
}

void loom_secrets_mask_error(const loom_secrets *s)
{
	const loom_error *e = loom_error_last();
	char masked[LOOM_ERROR_MESSAGE_MAX];
	if (!e)
		return;
	loom_secrets_mask(s, e->message, masked, sizeof(masked));
	if (strcmp(masked, e->message) != 0)
		loom_err(e->code, e->klass, "%s", masked);
}
