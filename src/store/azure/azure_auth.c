/* store/azure/azure_auth.c - authorizing Azure Blob requests.
 *
 *  - Shared Key: "SharedKey account:" + base64(HMAC-SHA256(key, string to
 *    sign)), the string to sign made of the verb, the standard headers,
 *    the x-ms-* headers and the canonicalized resource (account, path,
 *    query parameters).
 *  - SAS: the token's query parameters go on every URL; nothing is signed.
 *  - Bearer: a fixed token, or a service principal's: client id and secret
 *    are exchanged at <authority>/<tenant>/oauth2/v2.0/token for a token
 *    that is cached and fetched again before it expires (when less than
 *    min(5 minutes, half its lifetime) is left), one fetch at a time. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "store/azure/azure_int.h"
#include "store/http/crypto.h"
#include "store/http/encode.h"
#include "store/http/token.h"
#include "util/alloc.h"
#include "util/clock.h"
#include "util/error.h"
#include "util/percent.h"

#define AUTH_ERR(...) loom_err(LOOM_EINVAL, LOOM_ERRCLASS_STORE, __VA_ARGS__)
#define TOKEN_SCOPE "https://storage.azure.com/.default"
#define DEFAULT_AUTHORITY "https://login.microsoftonline.com"

struct azure_auth {
	azure_auth_kind kind;
	char *account;
	loom_buf key;           /* Shared Key: the decoded account key */
	char *sas;              /* SAS: the query, normalized, without '?' */
	char *bearer;           /* a fixed token */
	/* client secret */
	char *token_url;
	char *tenant;
	loom_buf token_form;    /* the form body sent for a token */
	http_client *http;
	token_cache token;      /* the current token */
	int token_ready;        /* token initialized */
};

/* ---- option lookups ------------------------------------------------------ */

const char *azure_opt(const store_config *c, const char *const *names, const char **which)
{
	/* the environment holds the AZURE_* spellings only */
	return store_opt_first(c, names, "azure_", which);
}

static const char *const OPT_ACCOUNT_KEY[] = { "azure_storage_account_key", "azure_storage_access_key",
	                                           "azure_storage_master_key", "master_key",
	                                           "account_key", "access_key", NULL };
static const char *const OPT_SAS[] = { "azure_storage_sas_token", "azure_storage_sas_key", "sas_token",
	                                   "sas_key", NULL };
static const char *const OPT_TOKEN[] = { "azure_storage_token", "bearer_token", "token", NULL };
static const char *const OPT_CLIENT_ID[] = { "azure_client_id", "azure_storage_client_id",
	                                         "client_id", NULL };
static const char *const OPT_CLIENT_SECRET[] = { "azure_client_secret", "azure_storage_client_secret",
	                                             "client_secret", NULL };
static const char *const OPT_TENANT[] = { "azure_tenant_id", "azure_storage_tenant_id",
	                                      "azure_authority_id", "azure_storage_authority_id",
	                                      "tenant_id", "authority_id", NULL };
static const char *const OPT_AUTHORITY_HOST[] = { "azure_authority_host", "azure_storage_authority_host",
	                                              "authority_host", NULL };
static const char *const OPT_SKIP_SIGNATURE[] = { "azure_skip_signature", "skip_signature", NULL };
static const char *const OPT_ALLOW_HTTP[] = { "azure_allow_http", "allow_http", NULL };

/* ---- setting up ----------------------------------------------------------- */

static int dup_str(char **dst, const char *s)
{
	if (!(*dst = loom_strdup(s)))
		return loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_STORE, "out of memory");
	return 0;
}

/* A SAS token as given ("?sv=...&sig=..." or without '?'), each value
 * decoded and encoded again so it is safe in a URL whichever way it was
 * pasted. */
static int set_sas(azure_auth *a, const char *sas, const char *name)
{
	loom_buf out = LOOM_BUF_INIT, v = LOOM_BUF_INIT;
	const char *p = sas[0] == '?' ? sas + 1 : sas;
	int rc = 0, has_sig = 0;
	while (*p && rc == 0) {
		size_t n = strcspn(p, "&");
		const char *eq = memchr(p, '=', n);
		if (n && eq) {
			loom_buf_clear(&v);
			if ((size_t)(eq - p) == 3 && strncmp(p, "sig", 3) == 0)
				has_sig = 1;
			if ((rc = loom_percent_decode(&v, eq + 1, n - (size_t)(eq - p) - 1)) < 0)
				rc = AUTH_ERR("option %s: bad percent-encoding in the SAS token", name);
			if (rc == 0 && out.size)
				rc = loom_buf_putc(&out, '&');
			if (rc == 0)
				rc = loom_buf_put(&out, p, (size_t)(eq - p) + 1);
			if (rc == 0)
				rc = enc_uri(&out, v.ptr ? v.ptr : "", v.size, 0);
		}
		p += n + (p[n] == '&');
	}
	if (rc == 0 && !has_sig)
		rc = AUTH_ERR("option %s does not look like a SAS token (it has no signature, the sig parameter)", name);
	if (rc == 0 && !(a->sas = loom_buf_detach(&out)))
		rc = loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_STORE, "out of memory");
	loom_buf_dispose(&out);
	loom_buf_dispose(&v);
	return rc;
}

static int set_key(azure_auth *a, const char *key, const char *name)
{
	if (enc_base64_decode(&a->key, key, strlen(key), name) < 0 || a->key.size == 0)
		return AUTH_ERR("option %s: the account key is not base64 (as the portal shows it)", name);
	return 0;
}

static int set_client_secret(azure_auth *a, const store_config *cfg, const char *id,
                             const char *secret, const char *tenant, int allow_http)
{
	const char *host = azure_opt(cfg, OPT_AUTHORITY_HOST, NULL);
	loom_buf url = LOOM_BUF_INIT;
	size_t n;
	int rc;
	if (!host)
		host = DEFAULT_AUTHORITY;
	n = strlen(host);
	while (n && host[n - 1] == '/')
		n--;
	if (strncasecmp(host, "https://", 8) != 0 && !(allow_http && strncasecmp(host, "http://", 7) == 0))
		return AUTH_ERR("option AZURE_AUTHORITY_HOST \"%s\" must be an https:// URL (http:// only "
		                "with AZURE_ALLOW_HTTP)", host);
	rc = loom_buf_put(&url, host, n);
	if (rc == 0)
		rc = loom_buf_putc(&url, '/');
	if (rc == 0)
		rc = enc_uri(&url, tenant, strlen(tenant), 0);
	if (rc == 0)
		rc = loom_buf_puts(&url, "/oauth2/v2.0/token");
	if (rc == 0 && !(a->token_url = loom_buf_detach(&url)))
		rc = loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_STORE, "out of memory");
	loom_buf_dispose(&url);
	LOOM_TRY(rc);
	LOOM_TRY(dup_str(&a->tenant, tenant));
	LOOM_TRY(loom_buf_puts(&a->token_form, "grant_type=client_credentials&client_id="));
	LOOM_TRY(enc_uri(&a->token_form, id, strlen(id), 0));
	LOOM_TRY(loom_buf_puts(&a->token_form, "&client_secret="));
	LOOM_TRY(enc_uri(&a->token_form, secret, strlen(secret), 0));
	LOOM_TRY(loom_buf_puts(&a->token_form, "&scope="));
	LOOM_TRY(enc_uri(&a->token_form, TOKEN_SCOPE, strlen(TOKEN_SCOPE), 0));
	LOOM_TRY(token_cache_init(&a->token));
	a->token_ready = 1;
	return 0;
}

static int choose(azure_auth *a, const store_config *cfg, int emulator, const char *url_sas,
                  loom_secrets *secrets)
{
	const char *key_name = NULL, *sas_name = NULL;
	const char *token = azure_opt(cfg, OPT_TOKEN, NULL);
	const char *key = azure_opt(cfg, OPT_ACCOUNT_KEY, &key_name);
	const char *id = azure_opt(cfg, OPT_CLIENT_ID, NULL);
	const char *secret = azure_opt(cfg, OPT_CLIENT_SECRET, NULL);
	const char *tenant = azure_opt(cfg, OPT_TENANT, NULL);
	const char *sas = azure_opt(cfg, OPT_SAS, &sas_name);
	int skip, allow_http;

	LOOM_TRY(store_opt_first_bool(cfg, OPT_SKIP_SIGNATURE, "azure_", &skip));
	LOOM_TRY(store_opt_first_bool(cfg, OPT_ALLOW_HTTP, "azure_", &allow_http));
	if (token)
		LOOM_TRY(loom_secrets_add(secrets, token));
	if (key)
		LOOM_TRY(loom_secrets_add(secrets, key));
	if (secret)
		LOOM_TRY(loom_secrets_add(secrets, secret));
	if (sas)
		LOOM_TRY(loom_secrets_add(secrets, sas));

	if (url_sas) {
		a->kind = AZURE_AUTH_SAS;
		return set_sas(a, url_sas, "(the URI's query)");
	}
	if (skip) {
		a->kind = AZURE_AUTH_ANONYMOUS;
		return 0;
	}
	if (token) {
		a->kind = AZURE_AUTH_BEARER;
		return dup_str(&a->bearer, token);
	}
	if (key) {
		a->kind = AZURE_AUTH_SHARED_KEY;
		return set_key(a, key, key_name);
	}
	if (id && secret && tenant) {
		a->kind = AZURE_AUTH_CLIENT_SECRET;
		return set_client_secret(a, cfg, id, secret, tenant, allow_http || emulator);
	}
	if (sas) {
		a->kind = AZURE_AUTH_SAS;
		return set_sas(a, sas, sas_name);
	}
	if (emulator) {
		a->kind = AZURE_AUTH_SHARED_KEY;
		LOOM_TRY(loom_secrets_add(secrets, AZURE_EMULATOR_KEY));
		return set_key(a, AZURE_EMULATOR_KEY, "(the emulator's key)");
	}
	if (id || secret || tenant)
		return AUTH_ERR("Azure client credentials need all of AZURE_CLIENT_ID, AZURE_CLIENT_SECRET "
		                "and AZURE_TENANT_ID (%s missing)",
		                !id ? "AZURE_CLIENT_ID" : !secret ? "AZURE_CLIENT_SECRET" : "AZURE_TENANT_ID");
	return AUTH_ERR("no Azure credentials: set AZURE_STORAGE_ACCOUNT_KEY, AZURE_STORAGE_SAS_TOKEN, "
	                "AZURE_CLIENT_ID + AZURE_CLIENT_SECRET + AZURE_TENANT_ID or AZURE_STORAGE_TOKEN "
	                "(storage options or environment), or AZURE_SKIP_SIGNATURE=true for a public "
	                "container");
}

int azure_auth_new(azure_auth **out, const store_config *cfg, const char *account, int emulator,
                   const char *url_sas, loom_secrets *secrets)
{
	azure_auth *a;
	int rc;
	*out = NULL;
	if (!(a = loom_calloc(1, sizeof(*a))))
		return loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_STORE, "out of memory");
	if ((rc = dup_str(&a->account, account)) < 0 ||
	    (rc = choose(a, cfg, emulator, url_sas, secrets)) < 0) {
		azure_auth_free(a);
		return rc;
	}
	*out = a;
	return 0;
}

void azure_auth_set_http(azure_auth *a, http_client *http)
{
	a->http = http;
}

void azure_auth_free(azure_auth *a)
{
	if (!a)
		return;
	if (a->key.ptr)
		memset(a->key.ptr, 0, a->key.size);
	loom_buf_dispose(&a->key);
	if (a->token_form.ptr)
		memset(a->token_form.ptr, 0, a->token_form.size);
	loom_buf_dispose(&a->token_form);
	loom_free(a->account);
	loom_free(a->sas);
	loom_free(a->bearer);
	loom_free(a->token_url);
	loom_free(a->tenant);
	if (a->token_ready)
		token_cache_dispose(&a->token);
	loom_free(a);
}

azure_auth_kind azure_auth_kind_of(const azure_auth *a)
{
	return a->kind;
}

const char *azure_auth_kind_name(const azure_auth *a)
{
	switch (a->kind) {
	case AZURE_AUTH_SHARED_KEY: return "shared key";
	case AZURE_AUTH_SAS: return "SAS token";
	case AZURE_AUTH_BEARER: return "bearer token";
	case AZURE_AUTH_CLIENT_SECRET: return "client secret";
	default: return "anonymous";
	}
}

const char *azure_auth_sas(const azure_auth *a)
{
	return a->kind == AZURE_AUTH_SAS ? a->sas : NULL;
}

/* ---- Shared Key ------------------------------------------------------------ */

static const char *header_value(const azure_sign_input *in, const char *name)
{
	size_t i;
	for (i = 0; i < in->n_headers; i++)
		if (in->headers[i].key && strcasecmp(in->headers[i].key, name) == 0)
			return in->headers[i].value ? in->headers[i].value : "";
	return "";
}

static int cmp_kv_name(const void *a, const void *b)
{
	return strcasecmp(((const loom_kv *)a)->key, ((const loom_kv *)b)->key);
}

/* Append `name` lower-cased. */
static int put_lower(loom_buf *b, const char *name)
{
	for (; *name; name++)
		LOOM_TRY(loom_buf_putc(b, (char)(*name >= 'A' && *name <= 'Z' ? *name + 32 : *name)));
	return 0;
}

static int string_to_sign(const azure_auth *a, const azure_sign_input *in, loom_buf *sts)
{
	static const char *const standard[] = { "Content-Encoding", "Content-Language", NULL,
		                                    "Content-MD5", "Content-Type", "Date",
		                                    "If-Modified-Since", "If-Match", "If-None-Match",
		                                    "If-Unmodified-Since", "Range" };
	loom_kv sorted[HTTP_CALL_MAX_HEADERS + HTTP_CALL_MAX_PARAMS];
	size_t i, n;

	LOOM_TRY(loom_buf_printf(sts, "%s\n", in->method));
	for (i = 0; i < sizeof(standard) / sizeof(standard[0]); i++) {
		if (!standard[i]) { /* Content-Length: empty when 0 */
			if (in->content_length)
				LOOM_TRY(loom_buf_printf(sts, "%llu", (unsigned long long)in->content_length));
		} else {
			LOOM_TRY(loom_buf_puts(sts, header_value(in, standard[i])));
		}
		LOOM_TRY(loom_buf_putc(sts, '\n'));
	}
	/* x-ms-* headers, lower case, sorted */
	for (i = n = 0; i < in->n_headers && n < sizeof(sorted) / sizeof(sorted[0]); i++)
		if (in->headers[i].key && strncasecmp(in->headers[i].key, "x-ms-", 5) == 0)
			sorted[n++] = in->headers[i];
	qsort(sorted, n, sizeof(sorted[0]), cmp_kv_name);
	for (i = 0; i < n; i++) {
		LOOM_TRY(put_lower(sts, sorted[i].key));
		LOOM_TRY(loom_buf_printf(sts, ":%s\n", sorted[i].value ? sorted[i].value : ""));
	}
	/* the resource: /account/path, then the query parameters sorted */
	LOOM_TRY(loom_buf_printf(sts, "/%s%s", a->account, in->url_path));
	n = in->n_params < HTTP_CALL_MAX_PARAMS ? in->n_params : HTTP_CALL_MAX_PARAMS;
	if (n) /* (a batch sub-request has no parameters: NULL) */
		memcpy(sorted, in->params, n * sizeof(sorted[0]));
	qsort(sorted, n, sizeof(sorted[0]), cmp_kv_name);
	for (i = 0; i < n; i++) {
		LOOM_TRY(loom_buf_putc(sts, '\n'));
		LOOM_TRY(put_lower(sts, sorted[i].key));
		LOOM_TRY(loom_buf_printf(sts, ":%s", sorted[i].value ? sorted[i].value : ""));
	}
	return 0;
}

static int shared_key(const azure_auth *a, const azure_sign_input *in, loom_buf *out)
{
	loom_buf sts = LOOM_BUF_INIT;
	uint8_t mac[CRYPTO_SHA256_LEN];
	int rc = string_to_sign(a, in, &sts);
	if (rc == 0)
		rc = crypto_hmac_sha256(a->key.ptr, a->key.size, sts.ptr, sts.size, mac);
	if (rc == 0)
		rc = loom_buf_printf(out, "SharedKey %s:", a->account);
	if (rc == 0)
		rc = enc_base64(out, mac, sizeof(mac));
	loom_buf_dispose(&sts);
	return rc;
}

/* ---- OAuth2 client credentials ------------------------------------------- */

/* token_fetch_fn: POST the form for a new token. */
static int fetch_token(void *ctx, char **token, int64_t *lifetime_ms)
{
	azure_auth *a = ctx;
	http_request rq = HTTP_REQUEST_INIT;
	http_response rs = HTTP_RESPONSE_INIT;
	char what[300];
	int rc;

	token_form_request(&rq, a->token_url, a->tenant, a->token_form.ptr, a->token_form.size);
	if ((rc = http_send(a->http, &rq, &rs)) == 0 && rs.status != 200)
		rc = http_status_error(a->http, &rq, &rs,
		                       rs.status == 400 || rs.status == 401 || rs.status == 403 ? LOOM_EPERM : 0);
	if (rc == 0) {
		snprintf(what, sizeof(what), "POST tenant \"%s\": the token endpoint's answer", a->tenant);
		rc = token_from_answer(&rs, what, token, lifetime_ms);
	}
	http_response_dispose(&rs);
	return rc;
}

/* ---- per request ------------------------------------------------------------ */

int azure_auth_authorization(azure_auth *a, const azure_sign_input *in, loom_buf *out)
{
	loom_buf_clear(out);
	switch (a->kind) {
	case AZURE_AUTH_SHARED_KEY:
		return shared_key(a, in, out);
	case AZURE_AUTH_BEARER:
		return loom_buf_printf(out, "Bearer %s", a->bearer);
	case AZURE_AUTH_CLIENT_SECRET:
		return token_cache_bearer(&a->token, fetch_token, a, out);
	default:
		return 0;
	}
}
