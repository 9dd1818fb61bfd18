/* store/s3/s3_creds.c - credentials from options, environment, profile files. */
#include "store/s3/s3_creds.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "util/alloc.h"
#include "util/error.h"

#define CREDS_ERR(code, ...) loom_err(code, LOOM_ERRCLASS_STORE, __VA_ARGS__)

/* The value of option `key` (case-insensitive), not the environment. */
static const char *option_only(const store_config *c, const char *key)
{
	size_t i;
	for (i = 0; c->options && i < c->n_options; i++)
		if (c->options[i].key && strcasecmp(c->options[i].key, key) == 0 && c->options[i].value &&
		    *c->options[i].value)
			return c->options[i].value;
	return NULL;
}

static const char *env_only(const store_config *c, const char *key)
{
	const char *v;
	if (!c->use_env)
		return NULL;
	v = getenv(key);
	return v && *v ? v : NULL;
}

static int set_pair(s3_creds *out, const char *ak, const char *sk, const char *token,
                    const char *source, loom_secrets *secrets)
{
	if (!sk)
		return CREDS_ERR(LOOM_EINVAL, "AWS_ACCESS_KEY_ID is set in the %s but AWS_SECRET_ACCESS_KEY "
		                 "is not", source);
	out->access_key = loom_strdup(ak);
	out->secret_key = loom_strdup(sk);
	out->session_token = token ? loom_strdup(token) : NULL;
	out->source = source;
	if (!out->access_key || !out->secret_key || (token && !out->session_token))
		return CREDS_ERR(LOOM_ENOMEM, "out of memory");
	LOOM_TRY(loom_secrets_add(secrets, sk));
	return token ? loom_secrets_add(secrets, token) : 0;
}

/* ---- shared files -------------------------------------------------------- */

typedef struct profile_values {
	char *access_key, *secret_key, *token, *region, *endpoint;
} profile_values;

static void profile_values_dispose(profile_values *v)
{
	loom_free(v->access_key);
	loom_free(v->secret_key);
	loom_free(v->token);
	loom_free(v->region);
	loom_free(v->endpoint);
	memset(v, 0, sizeof(*v));
}

static char *trim(char *s)
{
	char *e;
	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

static int keep(char **slot, const char *v)
{
	if (*slot)
		return 0; /* the credentials file wins over the config file */
	if (!(*slot = loom_strdup(v)))
		return CREDS_ERR(LOOM_ENOMEM, "out of memory");
	return 0;
}

/* Read the section of `profile` in an INI file. `config_style`: the
 * section is "[profile NAME]" (except "[default]"). A missing file is
 * fine. */
static int read_profile(const char *path, const char *profile, int config_style,
                        profile_values *v)
{
	FILE *f = fopen(path, "r");
	char line[4096];
	int in_section = 0, rc = 0;
	if (!f)
		return errno == ENOENT || errno == ENOTDIR
		           ? 0 : CREDS_ERR(LOOM_EINVAL, "cannot read the AWS profile file %s: %s", path,
		                           strerror(errno));
	while (rc == 0 && fgets(line, sizeof(line), f)) {
		char *s = trim(line), *eq, *name;
		if (!*s || *s == '#' || *s == ';')
			continue;
		if (*s == '[') {
			char *end = strchr(s, ']');
			if (!end)
				continue;
			*end = '\0';
			name = trim(s + 1);
			if (config_style && strcmp(profile, "default") != 0) {
				in_section = strncmp(name, "profile", 7) == 0 && isspace((unsigned char)name[7]) &&
				             strcmp(trim(name + 8), profile) == 0;
			} else {
				in_section = strcmp(name, profile) == 0 ||
				             (config_style && strcmp(name, "profile default") == 0);
			}
			continue;
		}
		if (!in_section || !(eq = strchr(s, '=')))
			continue;
		*eq = '\0';
		name = trim(s);
		s = trim(eq + 1);
		if (strcasecmp(name, "aws_access_key_id") == 0)
			rc = keep(&v->access_key, s);
		else if (strcasecmp(name, "aws_secret_access_key") == 0)
			rc = keep(&v->secret_key, s);
		else if (strcasecmp(name, "aws_session_token") == 0)
			rc = keep(&v->token, s);
		else if (strcasecmp(name, "region") == 0)
			rc = keep(&v->region, s);
		else if (strcasecmp(name, "endpoint_url") == 0)
			rc = keep(&v->endpoint, s);
	}
	fclose(f);
	return rc;
}

/* $HOME/.aws/NAME, or NULL without a HOME. */
static char *home_file(const char *name)
{
	const char *home = getenv("HOME");
	loom_buf b = LOOM_BUF_INIT;
	if (!home || !*home || loom_buf_printf(&b, "%s/.aws/%s", home, name) < 0) {
		loom_buf_dispose(&b);
		return NULL;
	}
	return loom_buf_detach(&b);
}

static int from_profile(s3_creds *out, const store_config *cfg, loom_secrets *secrets, int *found)
{
	const char *profile = store_opt(cfg, "AWS_PROFILE", NULL);
	const char *cred_path = store_opt(cfg, "AWS_SHARED_CREDENTIALS_FILE", NULL);
	const char *conf_path = store_opt(cfg, "AWS_CONFIG_FILE", NULL);
	char *cred_home = NULL, *conf_home = NULL;
	profile_values v;
	int rc = 0;

	*found = 0;
	memset(&v, 0, sizeof(v));
	if (!cfg->use_env && !profile && !cred_path && !conf_path)
		return 0; /* options only, and none names a profile */
	if (!profile)
		profile = "default";
	if (!cred_path)
		cred_path = cred_home = home_file("credentials");
	if (!conf_path)
		conf_path = conf_home = home_file("config");
	if (cred_path)
		rc = read_profile(cred_path, profile, 0, &v);
	if (rc == 0 && conf_path)
		rc = read_profile(conf_path, profile, 1, &v);
	if (rc == 0 && v.access_key) {
		rc = set_pair(out, v.access_key, v.secret_key, v.token, "profile", secrets);
		*found = 1;
	}
	if (rc == 0) {
		out->profile_region = v.region;
		out->profile_endpoint = v.endpoint;
		v.region = v.endpoint = NULL;
	}
	profile_values_dispose(&v);
	loom_free(cred_home);
	loom_free(conf_home);
	return rc;
}

int s3_creds_resolve(s3_creds *out, const store_config *cfg, loom_secrets *secrets)
{
	const char *ak;
	int skip = 0, found = 0;

	memset(out, 0, sizeof(*out));
	out->source = "none";
	LOOM_TRY(store_opt_bool(cfg, "AWS_SKIP_SIGNATURE", NULL, 0, &skip));
	if ((ak = option_only(cfg, "AWS_ACCESS_KEY_ID")))
		return set_pair(out, ak, option_only(cfg, "AWS_SECRET_ACCESS_KEY"),
		                option_only(cfg, "AWS_SESSION_TOKEN"), "storage options", secrets);
	if ((ak = env_only(cfg, "AWS_ACCESS_KEY_ID")))
		return set_pair(out, ak, env_only(cfg, "AWS_SECRET_ACCESS_KEY"),
		                env_only(cfg, "AWS_SESSION_TOKEN"), "environment", secrets);
	/* the profile also gives region and endpoint when signing is off */
	LOOM_TRY(from_profile(out, cfg, secrets, &found));
	if (found) {
		if (skip) { /* keys from a file, but unsigned requests asked for */
			loom_free(out->access_key);
			loom_free(out->secret_key);
			loom_free(out->session_token);
			out->access_key = out->secret_key = out->session_token = NULL;
			out->source = "none";
		}
		return 0;
	}
	out->missing = !skip;
	return 0;
}

#define NO_CREDS_HELP "set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY in the storage options or " \
	"the environment, or a profile (AWS_PROFILE, ~/.aws/credentials), or run where a role " \
	"gives them (web identity, container, instance metadata); AWS_SKIP_SIGNATURE set to true for a " \
	"public bucket"

int s3_creds_finish(s3_creds *c, const store_config *cfg, const char *region)
{
	const char *source = "none";
	int rc;

	if (!c->missing)
		return 0;
	rc = s3_remote_open(&c->remote, cfg, region, &source);
	if (rc == 0 && c->remote) {
		c->missing = 0;
		c->source = source;
		return 0;
	}
	if (rc < 0 && strcmp(source, "instance metadata") == 0) {
		/* the last resort failed: the message is about having no keys */
		char why[LOOM_ERROR_MESSAGE_MAX];
		snprintf(why, sizeof(why), "%s", loom_error_last() ? loom_error_last()->message : "");
		return CREDS_ERR(LOOM_EPERM, "%s: no AWS credentials: " NO_CREDS_HELP " (asked: %s)", cfg->uri,
		                 why);
	}
	if (rc < 0)
		return rc;
	return CREDS_ERR(LOOM_EPERM, "%s: no AWS credentials: " NO_CREDS_HELP, cfg->uri);
}

int s3_creds_keys(s3_creds *c, loom_buf *hold, const char **access_key, const char **secret_key,
                  const char **token)
{
	if (c->remote) {
		LOOM_TRY(s3_remote_current(c->remote, hold));
		*access_key = hold->ptr;
		*secret_key = *access_key + strlen(*access_key) + 1;
		*token = *secret_key + strlen(*secret_key) + 1;
		return 1;
	}
	*access_key = c->access_key;
	*secret_key = c->secret_key;
	*token = c->session_token;
	return c->access_key ? 1 : 0;
}

void s3_creds_dispose(s3_creds *c)
{
	loom_free(c->access_key);
	loom_free(c->secret_key);
	loom_free(c->session_token);
	loom_free(c->profile_region);
	loom_free(c->profile_endpoint);
	s3_remote_free(c->remote);
	memset(c, 0, sizeof(*c));
}
