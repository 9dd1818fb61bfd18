/* store/gcs/gcs_auth.c - OAuth2 bearer tokens for GCS requests, found in
 * delta-rs/object_store's order:
 *
 *  1. a service account key: a file named by google_service_account /
 *     google_service_account_path (GOOGLE_SERVICE_ACCOUNT[_PATH]), or the
 *     JSON itself in google_service_account_key (GOOGLE_SERVICE_ACCOUNT_KEY);
 *  2. the file of google_application_credentials
 *     (GOOGLE_APPLICATION_CREDENTIALS): a service account key or an
 *     authorized user (gcloud auth application-default login);
 *  3. gcloud's well-known application default credentials file;
 *  4. the metadata server of a GCP machine (Metadata-Flavor: Google).
 *
 * A service account signs a JWT (RS256, OpenSSL) and exchanges it at the
 * key's token_uri; an authorized user sends its refresh token there. A
 * token is cached and fetched again before it expires (when less than
 * min(5 minutes, half its lifetime) is left), one fetch at a time; a
 * failed refresh keeps the old token while it is valid.
 *
 * Against an emulator (STORAGE_EMULATOR_HOST or an endpoint option)
 * requests go unsigned unless 1 or 2 is given or a metadata server is
 * named (GCE_METADATA_HOST, as Google's client libraries read it). Key files, private keys,
 * refresh tokens and tokens are never put in a message. */
#include <errno.h>
#include <jansson.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "store/gcs/gcs_int.h"
#include "store/http/crypto.h"
#include "store/http/encode.h"
#include "store/http/token.h"
#include "util/alloc.h"
#include "util/clock.h"
#include "util/error.h"

#define AUTH_ERR(...) loom_err(LOOM_EINVAL, LOOM_ERRCLASS_STORE, __VA_ARGS__)
#define OOM() loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_STORE, "out of memory")
#define DEFAULT_TOKEN_URI "https://oauth2.googleapis.com/token"
#define SCOPE "https://www.googleapis.com/auth/devstorage.read_write"
#define DEFAULT_METADATA_HOST "metadata.google.internal"
#define METADATA_PATH "/computeMetadata/v1/instance/service-accounts/default/token"
#define JWT_LIFETIME_S 3600
#define KEY_FILE_MAX ((size_t)1 << 20)

typedef enum gcs_auth_kind {
	GCS_AUTH_NONE,            /* unsigned: an emulator, or skip_signature */
	GCS_AUTH_SERVICE_ACCOUNT, /* a JWT exchanged at token_uri */
	GCS_AUTH_AUTHORIZED_USER, /* a refresh token exchanged at token_uri */
	GCS_AUTH_METADATA         /* the metadata server's token */
} gcs_auth_kind;

struct gcs_auth {
	gcs_auth_kind kind;
	char *source;             /* where the credential came from, for messages */
	char *email;              /* service account */
	char *key_id;
	char *private_key;        /* PEM */
	char *token_uri;          /* token exchange / metadata URL */
	loom_buf form;            /* authorized user: the refresh form */
	http_client *http;        /* borrowed: the store's token client */
	http_client *own_http;    /* the metadata server's (short timeouts) */
	token_cache token;
};

/* ---- option lookups ----------------------------------------------------------- */

const char *gcs_opt(const store_config *c, const char *const *names, const char **which)
{
	/* the environment holds the GOOGLE_* spellings only */
	return store_opt_first(c, names, "google_", which);
}

static const char *const OPT_SA_PATH[] = { "google_service_account", "service_account",
	                                       "google_service_account_path", "service_account_path",
	                                       NULL };
static const char *const OPT_SA_KEY[] = { "google_service_account_key", "service_account_key", NULL };
static const char *const OPT_ADC[] = { "google_application_credentials", "application_credentials",
	                                   NULL };
static const char *const OPT_SKIP[] = { "google_skip_signature", "skip_signature", NULL };

/* ---- key files ------------------------------------------------------------------ */

static int dup_json(char **dst, json_t *obj, const char *field, const char *source, int required)
{
	json_t *v = json_object_get(obj, field);
	if (!json_is_string(v) || !json_string_length(v)) {
		if (required)
			return AUTH_ERR("%s: the credentials have no \"%s\"", source, field);
		return 0;
	}
	return (*dst = loom_strdup(json_string_value(v))) ? 0 : OOM();
}

/* The token URI must be https://, or http:// on a loopback address (a
 * stand-in in tests). */
static int check_token_uri(const char *uri, const char *source)
{
	if (strncasecmp(uri, "https://", 8) == 0)
		return 0;
	if (strncasecmp(uri, "http://127.0.0.1", 16) == 0 || strncasecmp(uri, "http://localhost", 16) == 0 ||
	    strncasecmp(uri, "http://[::1]", 12) == 0)
		return 0;
	return AUTH_ERR("%s: token_uri \"%s\" must be an https:// URL", source, uri);
}

/* Take a service account or authorized user from JSON text. */
static int from_json(gcs_auth *a, const char *text, size_t len, const char *source,
                     loom_secrets *secrets)
{
	json_t *root = json_loadb(text, len, 0, NULL), *type;
	const char *t;
	int rc = 0;

	if (!json_is_object(root)) {
		json_decref(root);
		return AUTH_ERR("%s: the credentials are not a JSON object", source);
	}
	type = json_object_get(root, "type");
	t = json_is_string(type) ? json_string_value(type) : "";
	if (!(a->source = loom_strdup(source))) {
		rc = OOM();
	} else if (strcmp(t, "service_account") == 0) {
		a->kind = GCS_AUTH_SERVICE_ACCOUNT;
		if ((rc = dup_json(&a->email, root, "client_email", source, 1)) == 0 &&
		    (rc = dup_json(&a->private_key, root, "private_key", source, 1)) == 0 &&
		    (rc = dup_json(&a->key_id, root, "private_key_id", source, 0)) == 0)
			rc = dup_json(&a->token_uri, root, "token_uri", source, 0);
		if (rc == 0)
			rc = loom_secrets_add(secrets, a->private_key);
	} else if (strcmp(t, "authorized_user") == 0) {
		char *id = NULL, *secret = NULL, *refresh = NULL;
		a->kind = GCS_AUTH_AUTHORIZED_USER;
		if ((rc = dup_json(&id, root, "client_id", source, 1)) == 0 &&
		    (rc = dup_json(&secret, root, "client_secret", source, 1)) == 0 &&
		    (rc = dup_json(&refresh, root, "refresh_token", source, 1)) == 0)
			rc = dup_json(&a->token_uri, root, "token_uri", source, 0);
		if (rc == 0 && (rc = loom_secrets_add(secrets, secret)) == 0)
			rc = loom_secrets_add(secrets, refresh);
		if (rc == 0)
			rc = loom_buf_puts(&a->form, "grant_type=refresh_token&client_id=");
		if (rc == 0)
			rc = enc_uri(&a->form, id, strlen(id), 0);
		if (rc == 0)
			rc = loom_buf_puts(&a->form, "&client_secret=");
		if (rc == 0)
			rc = enc_uri(&a->form, secret, strlen(secret), 0);
		if (rc == 0)
			rc = loom_buf_puts(&a->form, "&refresh_token=");
		if (rc == 0)
			rc = enc_uri(&a->form, refresh, strlen(refresh), 0);
		if (secret)
			memset(secret, 0, strlen(secret));
		if (refresh)
			memset(refresh, 0, strlen(refresh));
		loom_free(id);
		loom_free(secret);
		loom_free(refresh);
	} else {
		rc = AUTH_ERR("%s: credentials of type \"%s\" are not supported (service_account or "
		              "authorized_user)", source, t);
	}
	json_decref(root);
	if (rc == 0 && !a->token_uri && !(a->token_uri = loom_strdup(DEFAULT_TOKEN_URI)))
		rc = OOM();
	if (rc == 0)
		rc = check_token_uri(a->token_uri, source);
	return rc;
}

/* Read a key file (at most 1 MiB). 1 read, 0 missing (when `optional`). */
static int read_key_file(const char *path, loom_buf *out, const char *what, int optional)
{
	FILE *f = fopen(path, "rb");
	char chunk[4096];
	size_t n;
	if (!f) {
		if (optional)
			return 0;
		return loom_err_os(LOOM_EINVAL, errno, "%s: cannot read the credentials file %s", what, path);
	}
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0) {
		if (out->size + n > KEY_FILE_MAX || loom_buf_put(out, chunk, n) < 0) {
			fclose(f);
			return AUTH_ERR("%s: the credentials file %s is too large", what, path);
		}
	}
	fclose(f);
	return 1;
}

static int from_file(gcs_auth *a, const char *path, const char *what, int optional,
                     loom_secrets *secrets)
{
	loom_buf text = LOOM_BUF_INIT, source = LOOM_BUF_INIT;
	int rc = read_key_file(path, &text, what, optional);
	if (rc == 1 && (rc = loom_buf_printf(&source, "%s (%s)", what, path)) == 0)
		rc = from_json(a, text.ptr ? text.ptr : "", text.size, source.ptr, secrets) == 0 ? 1 : -1;
	if (rc < 0)
		rc = loom_error_last() ? loom_error_last()->code : LOOM_EINVAL;
	if (text.ptr)
		memset(text.ptr, 0, text.size);
	loom_buf_dispose(&text);
	loom_buf_dispose(&source);
	return rc;
}

/* gcloud's application default credentials file, if there is one. */
static int well_known_file(const store_config *cfg, loom_buf *path)
{
	const char *dir = cfg->use_env ? getenv("CLOUDSDK_CONFIG") : NULL;
	const char *home = cfg->use_env ? getenv("HOME") : NULL;
	if (dir && *dir)
		return loom_buf_printf(path, "%s/application_default_credentials.json", dir);
	if (home && *home)
		return loom_buf_printf(path, "%s/.config/gcloud/application_default_credentials.json", home);
	return 0;
}

static int metadata_setup(gcs_auth *a, const store_config *cfg, const loom_secrets *secrets)
{
	const char *host = store_opt(cfg, "google_metadata_host", "GCE_METADATA_HOST");
	http_client_opts o;
	a->kind = GCS_AUTH_METADATA;
	if (!host)
		host = DEFAULT_METADATA_HOST;
	if (!(a->source = loom_strdup("the metadata server")) ||
	    !(a->token_uri = loom_malloc(strlen(host) + sizeof(METADATA_PATH) + 8)))
		return OOM();
	sprintf(a->token_uri, "http://%s%s", host, METADATA_PATH);
	/* off GCP the server is not there: fail fast instead of waiting */
	http_client_opts_default(&o);
	http_client_opts_fail_fast(&o, 5000);
	o.target_label = "metadata server";
	o.secrets = secrets;
	return http_client_new(&a->own_http, &o);
}

static int choose(gcs_auth *a, const store_config *cfg, int no_auth, loom_secrets *secrets)
{
	const char *which = NULL, *v;
	loom_buf path = LOOM_BUF_INIT;
	int skip, rc;

	LOOM_TRY(store_opt_first_bool(cfg, OPT_SKIP, "google_", &skip));
	if (skip)
		return 0;
	if ((v = gcs_opt(cfg, OPT_SA_KEY, &which))) {
		char source[96];
		snprintf(source, sizeof(source), "option %s", which);
		LOOM_TRY(loom_secrets_add(secrets, v));
		return from_json(a, v, strlen(v), source, secrets);
	}
	if ((v = gcs_opt(cfg, OPT_SA_PATH, &which))) {
		char source[96];
		snprintf(source, sizeof(source), "option %s", which);
		return from_file(a, v, source, 0, secrets) < 0 ? loom_error_last()->code : 0;
	}
	if ((v = gcs_opt(cfg, OPT_ADC, &which)))
		return from_file(a, v, "option google_application_credentials", 0, secrets) < 0
		           ? loom_error_last()->code : 0;
	if (no_auth) {
		/* an emulator: unsigned, unless a metadata server is named (a
		 * stand-in, or a GCP machine reaching a private endpoint) */
		if (store_opt(cfg, "google_metadata_host", "GCE_METADATA_HOST"))
			return metadata_setup(a, cfg, secrets);
		return 0;
	}
	if ((rc = well_known_file(cfg, &path)) == 0 && path.size)
		rc = from_file(a, path.ptr, "gcloud's application default credentials", 1, secrets);
	loom_buf_dispose(&path);
	if (rc != 0)
		return rc < 0 ? rc : 0;
	return metadata_setup(a, cfg, secrets);
}

int gcs_auth_new(gcs_auth **out, const store_config *cfg, int no_auth, loom_secrets *secrets)
{
	gcs_auth *a;
	int rc;
	*out = NULL;
	if (!(a = loom_calloc(1, sizeof(*a))))
		return OOM();
	if ((rc = token_cache_init(&a->token)) < 0) {
		loom_free(a);
		return rc;
	}
	if ((rc = choose(a, cfg, no_auth, secrets)) < 0) {
		gcs_auth_free(a);
		return rc;
	}
	*out = a;
	return 0;
}

void gcs_auth_set_http(gcs_auth *a, http_client *http)
{
	a->http = http;
}

static void wipe(char *s)
{
	if (s)
		memset(s, 0, strlen(s));
	loom_free(s);
}

void gcs_auth_free(gcs_auth *a)
{
	if (!a)
		return;
	wipe(a->private_key);
	if (a->form.ptr)
		memset(a->form.ptr, 0, a->form.size);
	loom_buf_dispose(&a->form);
	http_client_free(a->own_http);
	loom_free(a->source);
	loom_free(a->email);
	loom_free(a->key_id);
	loom_free(a->token_uri);
	token_cache_dispose(&a->token);
	loom_free(a);
}

const char *gcs_auth_kind_name(const gcs_auth *a)
{
	switch (a->kind) {
	case GCS_AUTH_SERVICE_ACCOUNT: return "service account";
	case GCS_AUTH_AUTHORIZED_USER: return "authorized user";
	case GCS_AUTH_METADATA: return "metadata server";
	default: return "none";
	}
}

/* ---- the JWT ---------------------------------------------------------------------- */

/* base64url without padding (RFC 7515), appended. */
static int b64url(loom_buf *out, const void *data, size_t len)
{
	size_t from = out->size, i;
	LOOM_TRY(enc_base64(out, data, len));
	for (i = from; i < out->size; i++) {
		if (out->ptr[i] == '+')
			out->ptr[i] = '-';
		else if (out->ptr[i] == '/')
			out->ptr[i] = '_';
	}
	while (out->size > from && out->ptr[out->size - 1] == '=')
		out->ptr[--out->size] = '\0';
	return 0;
}

/* header.claims.signature for a token request at `now_s`, appended. */
static int make_jwt(gcs_auth *a, int64_t now_s, loom_buf *jwt)
{
	json_t *header = json_pack("{s:s, s:s}", "alg", "RS256", "typ", "JWT");
	json_t *claims = json_pack("{s:s, s:s, s:s, s:I, s:I}", "iss", a->email, "scope", SCOPE,
	                           "aud", a->token_uri, "iat", (json_int_t)now_s, "exp",
	                           (json_int_t)(now_s + JWT_LIFETIME_S));
	char *h = NULL, *c = NULL;
	loom_buf sig = LOOM_BUF_INIT;
	size_t from = jwt->size; /* the JWT is appended to what is there */
	int rc = 0;

	if (header && a->key_id)
		json_object_set_new(header, "kid", json_string(a->key_id));
	if (!header || !claims || !(h = json_dumps(header, JSON_COMPACT)) ||
	    !(c = json_dumps(claims, JSON_COMPACT)))
		rc = OOM();
	if (rc == 0)
		rc = b64url(jwt, h, strlen(h));
	if (rc == 0)
		rc = loom_buf_putc(jwt, '.');
	if (rc == 0)
		rc = b64url(jwt, c, strlen(c));
	if (rc == 0 && (rc = crypto_rs256_sign(a->private_key, strlen(a->private_key), jwt->ptr + from,
	                                       jwt->size - from, &sig)) < 0)
		loom_err_wrap("%s: signing the token request", a->source);
	if (rc == 0)
		rc = loom_buf_putc(jwt, '.');
	if (rc == 0)
		rc = b64url(jwt, sig.ptr, sig.size);
	free(h);
	free(c);
	json_decref(header);
	json_decref(claims);
	loom_buf_dispose(&sig);
	return rc;
}

/* ---- fetching a token ------------------------------------------------------------- */

static int token_request(gcs_auth *a, loom_buf *form, http_request *rq)
{
	static const loom_kv md_headers[] = { { "Metadata-Flavor", "Google" } };
	if (a->kind == GCS_AUTH_METADATA) {
		token_form_request(rq, a->token_uri, a->token_uri, NULL, 0);
		rq->method = "GET";
		rq->headers = md_headers;
		return 0;
	}
	if (a->kind == GCS_AUTH_AUTHORIZED_USER) {
		token_form_request(rq, a->token_uri, a->token_uri, a->form.ptr, a->form.size);
		return 0;
	}
	LOOM_TRY(loom_buf_puts(form, "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer"
	                             "&assertion="));
	LOOM_TRY(make_jwt(a, loom_clock_wall_ms(loom_clock_system()) / 1000, form));
	token_form_request(rq, a->token_uri, a->token_uri, form->ptr, form->size);
	return 0;
}

/* token_fetch_fn: one token and its lifetime in ms. */
static int fetch_token(void *ctx, char **token, int64_t *lifetime_ms)
{
	gcs_auth *a = ctx;
	http_client *http = a->own_http ? a->own_http : a->http;
	http_request rq = HTTP_REQUEST_INIT;
	http_response rs = HTTP_RESPONSE_INIT;
	loom_buf form = LOOM_BUF_INIT, answer = LOOM_BUF_INIT;
	int rc;

	if ((rc = token_request(a, &form, &rq)) < 0)
		goto done;
	if ((rc = http_send(http, &rq, &rs)) < 0) {
		if (a->kind == GCS_AUTH_METADATA)
			rc = loom_err(LOOM_EPERM, LOOM_ERRCLASS_STORE,
			              "no GCS credentials: set GOOGLE_SERVICE_ACCOUNT (a key file), "
			              "GOOGLE_SERVICE_ACCOUNT_KEY or GOOGLE_APPLICATION_CREDENTIALS, or run "
			              "on GCP (the metadata server did not answer: %s)",
			              loom_error_last() ? loom_error_last()->message : "?");
		goto done;
	}
	if (rs.status != 200) {
		/* a refused key or grant: the credential is wrong, not the request */
		rc = http_status_error(http, &rq, &rs,
		                       rs.status == 400 || rs.status == 401 || rs.status == 403 ||
		                       rs.status == 404 ? LOOM_EPERM : 0);
		loom_err_wrap("%s", a->source);
		goto done;
	}
	if ((rc = loom_buf_printf(&answer, "%s: the answer of %s", a->source, a->token_uri)) == 0)
		rc = token_from_answer(&rs, answer.ptr, token, lifetime_ms);
done:
	loom_buf_dispose(&answer);
	if (form.ptr)
		memset(form.ptr, 0, form.size);
	loom_buf_dispose(&form);
	http_response_dispose(&rs);
	return rc;
}

int gcs_auth_header(gcs_auth *a, loom_buf *out)
{
	loom_buf_clear(out);
	if (a->kind == GCS_AUTH_NONE)
		return 0;
	return token_cache_bearer(&a->token, fetch_token, a, out);
}
