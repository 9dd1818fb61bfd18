/* store/options.c - looking up storage options: the caller's options
 * first (keys case-insensitive, as delta-rs reads them), then the
 * environment, then the default. */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "store/backend.h"
#include "util/error.h"
#include "util/size.h"

#define OPT_ERR(...) loom_err(LOOM_EINVAL, LOOM_ERRCLASS_STORE, __VA_ARGS__)

const char *store_opt(const store_config *c, const char *key, const char *env)
{
	size_t i;
	const char *v;
	for (i = 0; c->options && i < c->n_options; i++)
		if (c->options[i].key && strcasecmp(c->options[i].key, key) == 0 && c->options[i].value)
			return c->options[i].value;
	if (!c->use_env)
		return NULL;
	v = getenv(env ? env : key);
	return v && *v ? v : NULL;
}

/* What a bad value's message shows: the value itself, unless it is secret. */
static const char *shown(const char *key, const char *value)
{
	return loom_secret_name(key) ? "***" : value;
}

int store_opt_bool(const store_config *c, const char *key, const char *env, int dflt, int *out)
{
	const char *v = store_opt(c, key, env);
	*out = dflt;
	return v ? store_parse_bool(c, key, v, out) : 0;
}

int store_parse_bool(const store_config *c, const char *key, const char *v, int *out)
{
	static const char *const yes[] = { "true", "yes", "on", "1" };
	static const char *const no[] = { "false", "no", "off", "0" };
	size_t i;
	for (i = 0; i < 4; i++) {
		if (strcasecmp(v, yes[i]) == 0)
			return (*out = 1), 0;
		if (strcasecmp(v, no[i]) == 0)
			return (*out = 0), 0;
	}
	return OPT_ERR("%s: option %s is \"%s\", expected true or false", c->uri, key, shown(key, v));
}

int store_opt_uint(const store_config *c, const char *key, const char *env, uint64_t dflt,
                   uint64_t max, uint64_t *out)
{
	const char *v = store_opt(c, key, env);
	char *end;
	unsigned long long n;
	*out = dflt;
	if (!v)
		return 0;
	errno = 0;
	n = strtoull(v, &end, 10);
	if (!isdigit((unsigned char)v[0]) || *end || errno || n > max)
		return OPT_ERR("%s: option %s is \"%s\", expected a whole number from 0 to %llu", c->uri,
		               key, shown(key, v), (unsigned long long)max);
	*out = n;
	return 0;
}

int store_opt_size(const store_config *c, const char *key, const char *env, uint64_t dflt,
                   uint64_t max, uint64_t *out)
{
	const char *v = store_opt(c, key, env);
	int64_t n = 0;
	*out = dflt;
	if (!v)
		return 0;
	/* loom_size_parse, the one parser of sizes: "5MiB" here as in
	 * --target-size and the YAML */
	if (loom_size_parse(&n, v) < 0 || (uint64_t)n > max) {
		loom_error_clear();
		return OPT_ERR("%s: option %s is \"%s\", expected a size from 0 to %llu bytes "
		               "(bytes, or a number with a unit: 8MiB, 5MB)", c->uri, key, shown(key, v),
		               (unsigned long long)max);
	}
	*out = (uint64_t)n;
	return 0;
}

int store_opt_duration_ms(const store_config *c, const char *key, const char *env,
                          int64_t dflt, int64_t max_ms, int64_t *out)
{
	static const struct { const char *unit; double ms; } units[] = {
		{ "ms", 1 }, { "s", 1000 }, { "m", 60000 }, { "h", 3600000 }, { "", 1000 }
	};
	const char *v = store_opt(c, key, env);
	char *end;
	double n;
	size_t i;
	*out = dflt;
	if (!v)
		return 0;
	errno = 0;
	n = strtod(v, &end);
	if (end != v && !errno && n >= 0 && isdigit((unsigned char)v[0])) {
		while (*end == ' ')
			end++;
		for (i = 0; i < sizeof(units) / sizeof(units[0]); i++)
			if (strcasecmp(end, units[i].unit) == 0 && n * units[i].ms <= (double)max_ms) {
				*out = (int64_t)(n * units[i].ms + 0.5);
				return 0;
			}
	}
	return OPT_ERR("%s: option %s is \"%s\", expected a duration such as 500ms, 30s or 2m "
	               "(at most %lld ms)", c->uri, key, shown(key, v), (long long)max_ms);
}

int store_config_secrets(const store_config *c, loom_secrets *out)
{
	LOOM_TRY(loom_secrets_add_options(out, c->options, c->n_options));
	if (c->use_env)
		LOOM_TRY(loom_secrets_add_env(out));
	return loom_secrets_add_uri_password(out, c->uri);
}

LOOM_EXTERN(size_t) loom_secret_mask(char *out, size_t cap, const loom_kv *options, size_t n,
                                     const char *text)
{
	/* Runs where a message is about to be shown: mask as much as can be
	 * collected; what could not (out of memory) still gets the URI and
	 * query parameter rules. */
	loom_secrets set = LOOM_SECRETS_INIT;
	loom_error saved;
	int had_error = loom_error_last() != NULL;
	size_t len;
	/* `text` may be the thread's error message: collecting must not
	 * overwrite it, even when it fails */
	loom_err_copy(&saved);
	if (loom_secrets_add_options(&set, options, n) < 0 || loom_secrets_add_env(&set) < 0) {
		if (had_error)
			loom_err(saved.code, saved.klass, "%s", saved.message);
		else
			loom_error_clear();
	}
	len = loom_secrets_mask(&set, text, out, cap);
	loom_secrets_dispose(&set);
	return len;
}

const char *store_opt_first(const store_config *c, const char *const *names, const char *env_prefix,
                            const char **which)
{
	store_config options_only = *c;
	size_t i, plen = strlen(env_prefix);
	options_only.use_env = 0;
	for (i = 0; names[i]; i++) {
		const char *v = store_opt(&options_only, names[i], NULL);
		if (v) {
			if (which)
				*which = names[i];
			return v;
		}
	}
	/* then the environment, upper case, for the names that carry the
	 * service's prefix (AZURE_STORAGE_ACCOUNT_KEY, not ACCOUNT_KEY) */
	for (i = 0; c->use_env && names[i]; i++) {
		char env[96];
		size_t k, n = strlen(names[i]);
		const char *v;
		if (n >= sizeof(env) || strncasecmp(names[i], env_prefix, plen) != 0)
			continue;
		for (k = 0; k <= n; k++)
			env[k] = (char)(names[i][k] >= 'a' && names[i][k] <= 'z' ? names[i][k] - 32 : names[i][k]);
		if ((v = getenv(env)) && *v) {
			if (which)
				*which = names[i];
			return v;
		}
	}
	return NULL;
}

int store_opt_first_bool(const store_config *c, const char *const *names, const char *env_prefix,
                         int *out)
{
	const char *which = NULL, *v = store_opt_first(c, names, env_prefix, &which);
	*out = 0;
	return v ? store_parse_bool(c, which, v, out) : 0;
}
