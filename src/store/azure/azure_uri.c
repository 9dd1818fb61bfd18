/* store/azure/azure_uri.c - the spellings of an Azure Blob location.
 *
 *   az://container/path            (azure://, adl://, and abfs[s]:// without '@':
 *                                   the fsspec spelling; the account comes
 *                                   from the options)
 *   abfs[s]://container@account.dfs.core.windows.net/path
 *                                  (the Hadoop/Databricks spelling; .blob. too)
 *   https://account.blob.core.windows.net/container/path   (.dfs. too)
 *   http(s)://host:port/account/container/path
 *                                  (path style: under a configured endpoint
 *                                   AZURE_STORAGE_ENDPOINT, or any such URL
 *                                   with AZURE_STORAGE_USE_EMULATOR)
 *
 * All of them are served by the account's blob endpoint. */
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "store/azure/azure_int.h"
#include "util/alloc.h"
#include "util/error.h"
#include "util/percent.h"

#define URI_ERR(...) loom_err(LOOM_EINVAL, LOOM_ERRCLASS_STORE, __VA_ARGS__)

void azure_uri_dispose(azure_uri *u)
{
	loom_free(u->account);
	loom_free(u->dns_suffix);
	loom_free(u->account_url);
	loom_free(u->container);
	loom_free(u->path);
	loom_free(u->query);
	memset(u, 0, sizeof(*u));
}

static int dup_n(char **dst, const char *s, size_t n)
{
	if (!(*dst = loom_strndup(s, n)))
		return loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_STORE, "out of memory");
	return 0;
}

static void lower(char *s)
{
	for (; s && *s; s++)
		*s = (char)tolower((unsigned char)*s);
}

/* Container names: 3 to 63 lower-case letters, digits and single hyphens,
 * starting with a letter or digit; "$root", "$web" and "$logs" too. */
static int container_name_ok(const char *c)
{
	size_t n = strlen(c), i;
	if (strcmp(c, "$root") == 0 || strcmp(c, "$web") == 0 || strcmp(c, "$logs") == 0)
		return 1;
	if (n < 3 || n > 63 || c[0] == '-' || c[n - 1] == '-')
		return 0;
	for (i = 0; i < n; i++)
		if (!(islower((unsigned char)c[i]) || isdigit((unsigned char)c[i]) ||
		      (c[i] == '-' && c[i + 1] != '-')))
			return 0;
	return 1;
}

/* Account names: 3 to 24 lower-case letters and digits. */
static int account_name_ok(const char *a)
{
	size_t n = strlen(a), i;
	if (n < 3 || n > 24)
		return 0;
	for (i = 0; i < n; i++)
		if (!islower((unsigned char)a[i]) && !isdigit((unsigned char)a[i]))
			return 0;
	return 1;
}

/* "account.blob.core.windows.net" (or .dfs.): the account and the DNS
 * suffix after the service label. 0 when the host is not of that form. */
static int split_service_host(const char *host, size_t len, azure_uri *u)
{
	const char *dot = memchr(host, '.', len), *svc, *suffix;
	size_t svc_len;
	if (!dot || dot == host)
		return 0;
	svc = dot + 1;
	if ((size_t)(host + len - svc) > 5 && strncasecmp(svc, "blob.", 5) == 0)
		svc_len = 5;
	else if ((size_t)(host + len - svc) > 4 && strncasecmp(svc, "dfs.", 4) == 0)
		svc_len = 4;
	else
		return 0;
	suffix = svc + svc_len;
	/* core.windows.net and the sovereign clouds' core.* zones */
	if ((size_t)(host + len - suffix) < 6 || strncasecmp(suffix, "core.", 5) != 0)
		return 0;
	if (dup_n(&u->account, host, (size_t)(dot - host)) < 0 ||
	    dup_n(&u->dns_suffix, suffix, (size_t)(host + len - suffix)) < 0)
		return LOOM_ENOMEM;
	lower(u->account);
	lower(u->dns_suffix);
	return 1;
}

/* The next path segment of `*p` (up to '/' or the end): *seg, *len;
 * *p moves past it and its '/'. */
static void next_segment(const char **p, const char *end, const char **seg, size_t *len)
{
	const char *s = *p, *slash = memchr(s, '/', (size_t)(end - s));
	*seg = s;
	*len = slash ? (size_t)(slash - s) : (size_t)(end - s);
	*p = slash ? slash + 1 : end;
}

/* The path below the container: decoded if asked, no '/' at either end,
 * no empty, "." or ".." segment. */
static int set_path(azure_uri *u, const char *p, const char *end, const azure_uri_hints *h,
                    const char *shown)
{
	loom_buf b = LOOM_BUF_INIT;
	const char *s;
	int rc;
	while (p < end && *p == '/')
		p++;
	while (end > p && end[-1] == '/')
		end--;
	rc = h->decode ? loom_percent_decode(&b, p, (size_t)(end - p)) : loom_buf_put(&b, p, (size_t)(end - p));
	if (rc == 0 && !b.ptr)
		rc = loom_buf_puts(&b, "");
	if (rc < 0) {
		loom_buf_dispose(&b);
		return rc == LOOM_ENOMEM ? rc : URI_ERR("%s: bad percent-encoding in the path", shown);
	}
	for (s = b.ptr; *s;) {
		const char *e = strchr(s, '/');
		size_t n = e ? (size_t)(e - s) : strlen(s);
		if (n == 0 || (n == 1 && s[0] == '.') || (n == 2 && s[0] == '.' && s[1] == '.')) {
			loom_buf_dispose(&b);
			return URI_ERR("%s: the path has an empty, \".\" or \"..\" part", shown);
		}
		s += n + (e ? 1 : 0);
	}
	u->path = loom_buf_detach(&b);
	if (!u->path)
		return loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_STORE, "out of memory");
	return 0;
}

/* Does `uri` start with `endpoint` + "/" (scheme and host compared without
 * case)? Returns the length of the endpoint matched, or 0. */
static size_t under_endpoint(const char *uri, const char *endpoint)
{
	size_t n = strlen(endpoint);
	while (n && endpoint[n - 1] == '/')
		n--;
	if (n == 0 || strncasecmp(uri, endpoint, n) != 0 || uri[n] != '/')
		return 0;
	return n;
}

/* http(s) URLs: an account host, or path style under an endpoint or the
 * emulator. */
static int parse_http(const char *uri, const char *auth, const char *auth_end, const char *end,
                      const azure_uri_hints *h, azure_uri *u, const char *shown)
{
	const char *host = auth, *host_end = auth_end, *p = auth_end, *seg, *at, *colon;
	size_t seg_len, n;
	int rc;

	if ((at = memchr(host, '@', (size_t)(host_end - host))))
		host = at + 1;
	if ((colon = memchr(host, ':', (size_t)(host_end - host))))
		host_end = colon;
	if ((rc = split_service_host(host, (size_t)(host_end - host), u)) < 0)
		return rc;
	if (rc == 1) {
		u->form = AZURE_URI_ACCOUNT;
		if (p < end && *p == '/')
			p++;
		next_segment(&p, end, &seg, &seg_len);
		LOOM_TRY(dup_n(&u->container, seg, seg_len));
		return set_path(u, p, end, h, shown);
	}
	u->form = AZURE_URI_ENDPOINT;
	if (h->endpoint && (n = under_endpoint(uri, h->endpoint)) != 0) {
		LOOM_TRY(dup_n(&u->account_url, uri, n));
		p = uri + n + 1;
	} else if (h->emulator) {
		if (p < end && *p == '/')
			p++;
		next_segment(&p, end, &seg, &seg_len);
		if (seg_len == 0)
			return URI_ERR("%s: no account in the path (http://host:port/ACCOUNT/CONTAINER/path)",
			               shown);
		LOOM_TRY(dup_n(&u->account_url, uri, (size_t)(seg + seg_len - uri)));
		LOOM_TRY(dup_n(&u->account, seg, seg_len));
	} else {
		return AZURE_URI_NOT_AZURE;
	}
	next_segment(&p, end, &seg, &seg_len);
	LOOM_TRY(dup_n(&u->container, seg, seg_len));
	return set_path(u, p, end, h, shown);
}

/* The schemes naming a container in their authority. */
static int azure_scheme(const char *uri, size_t n)
{
	static const char *const schemes[] = { "az", "azure", "adl", "abfs", "abfss" };
	size_t i;
	for (i = 0; i < sizeof(schemes) / sizeof(schemes[0]); i++)
		if (strlen(schemes[i]) == n && strncasecmp(uri, schemes[i], n) == 0)
			return 1;
	return 0;
}

static int parse(const char *uri, const azure_uri_hints *h, azure_uri *u, const char *shown)
{
	const char *sep = strstr(uri, "://"), *auth, *auth_end, *end, *q, *at;
	size_t scheme_len;
	int rc;

	if (!sep)
		return URI_ERR("%s: not a URI", shown);
	scheme_len = (size_t)(sep - uri);
	auth = sep + 3;
	q = strchr(auth, '?');
	end = q ? q : auth + strlen(auth);
	if (q && q[1] && dup_n(&u->query, q + 1, strlen(q + 1)) < 0)
		return LOOM_ENOMEM;
	auth_end = auth;
	while (auth_end < end && *auth_end != '/')
		auth_end++;

	if ((scheme_len == 4 && strncasecmp(uri, "http", 4) == 0) ||
	    (scheme_len == 5 && strncasecmp(uri, "https", 5) == 0)) {
		if ((rc = parse_http(uri, auth, auth_end, end, h, u, shown)) != 0)
			return rc;
	} else if (!azure_scheme(uri, scheme_len)) {
		return AZURE_URI_NOT_AZURE;
	} else {
		/* az://container/path, or abfss://container@account.dfs.core.windows.net/path */
		if ((at = memchr(auth, '@', (size_t)(auth_end - auth)))) {
			if ((rc = split_service_host(at + 1, (size_t)(auth_end - at - 1), u)) < 0)
				return rc;
			if (rc == 0)
				return URI_ERR("%s: the host must be ACCOUNT.dfs.core.windows.net or "
				               "ACCOUNT.blob.core.windows.net", shown);
			u->form = AZURE_URI_ACCOUNT;
			LOOM_TRY(dup_n(&u->container, auth, (size_t)(at - auth)));
		} else {
			u->form = AZURE_URI_CONTAINER;
			LOOM_TRY(dup_n(&u->container, auth, (size_t)(auth_end - auth)));
		}
		LOOM_TRY(set_path(u, auth_end, end, h, shown));
	}
	if (!*u->container)
		return URI_ERR("%s: no container named", shown);
	if (!container_name_ok(u->container))
		return URI_ERR("%s: \"%s\" is not a valid container name (3 to 63 lower-case letters, "
		               "digits and hyphens)", shown, u->container);
	if (u->account && !account_name_ok(u->account))
		return URI_ERR("%s: \"%s\" is not a valid storage account name (3 to 24 lower-case "
		               "letters and digits)", shown, u->account);
	return 0;
}

int azure_uri_parse(const char *uri, const azure_uri_hints *hints, azure_uri *out)
{
	char shown[512];
	int rc;
	memset(out, 0, sizeof(*out));
	/* messages show the URI without its query: it may hold a SAS token */
	snprintf(shown, sizeof(shown), "%.*s", (int)strcspn(uri, "?"), uri);
	rc = parse(uri, hints, out, shown);
	if (rc != 0)
		azure_uri_dispose(out);
	return rc;
}

/* Do `u` and the store name the same account? A URI that names none
 * (az://) matches any; an endpoint URL must be under the store's account
 * URL. */
static int same_account(const azure_store *s, const azure_uri *u)
{
	if (u->form == AZURE_URI_ENDPOINT)
		return strcasecmp(u->account_url, s->account_url) == 0;
	return !u->account || strcasecmp(u->account, s->account) == 0;
}

int azure_key_of(loom_store *st, const char *location, const char **key)
{
	azure_store *s = (azure_store *)st;
	azure_uri u;
	size_t plen = strlen(s->prefix), len = strlen(location);
	int rc, inside = 0;

	*key = NULL;
	rc = azure_uri_parse(location, &s->hints, &u);
	if (rc < 0)
		loom_error_clear();
	if (rc == 0 && !u.query && len && location[len - 1] != '/' && same_account(s, &u) &&
	    strcmp(u.container, s->container) == 0 && strlen(u.path) > plen &&
	    strncmp(u.path, s->prefix, plen) == 0) {
		/* the key is the end of the location: paths arrive decoded and
		 * parsing only trimmed slashes */
		*key = location + len - (strlen(u.path) - plen);
		inside = loom_store_check_key(*key, "key_of") == 0;
		if (!inside)
			loom_error_clear();
	}
	azure_uri_dispose(&u);
	if (inside)
		return 0;
	*key = NULL;
	{
		char shown[512];
		loom_secrets_mask(&s->h.secrets, location, shown, sizeof(shown));
		return loom_err(LOOM_ENOTFOUND, LOOM_ERRCLASS_STORE, "%s is not inside the table root %s",
		                shown, s->root_uri);
	}
}
