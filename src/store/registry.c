/* store/registry.c - opening a store by URI scheme.
 *
 * A backend is a subfolder (store/<name>/) with a store_opener and one
 * line in the table below (plus its declaration in store/backend.h). */
#include <ctype.h>
#include <pthread.h>
#include <string.h>
#include <strings.h>

#include "store/fault.h"
#include "store/backend.h"
#include "util/error.h"
#include "util/versioned.h"

typedef struct store_backend {
	const char *scheme;     /* lower case, without ':' */
	store_opener open;
} store_backend;

static const store_backend backends[] = {
	{ "file", store_local_open },
	{ "s3", store_s3_open },
	{ "s3a", store_s3_open },
	{ "az", store_azure_open },
	{ "azure", store_azure_open },
	{ "adl", store_azure_open },
	{ "abfs", store_azure_open },
	{ "abfss", store_azure_open },
	{ "https", store_azure_open },   /* account.blob.core.windows.net, or an endpoint's */
	{ "http", store_azure_open },
	{ "gs", store_gcs_open },
	{ "gcs", store_gcs_open },
};

#define N_BACKENDS (sizeof(backends) / sizeof(backends[0]))

static char scheme_list[256];
static pthread_once_t scheme_list_once = PTHREAD_ONCE_INIT;

static void build_scheme_list(void)
{
	size_t i, w = 0;
	for (i = 0; i < N_BACKENDS && w + 1 < sizeof(scheme_list); i++) {
		size_t n = strlen(backends[i].scheme), j;
		for (j = 0; j < i && strcmp(backends[j].scheme, backends[i].scheme) != 0; j++)
			;
		if (j < i)
			continue; /* a scheme several backends serve is listed once */
		if (w + n + 3 >= sizeof(scheme_list))
			break;
		if (i) {
			memcpy(scheme_list + w, ", ", 2);
			w += 2;
		}
		memcpy(scheme_list + w, backends[i].scheme, n);
		w += n;
	}
	scheme_list[w] = '\0';
}

LOOM_EXTERN(const char *) loom_store_schemes(void)
{
	pthread_once(&scheme_list_once, build_scheme_list);
	return scheme_list;
}

/* The length of the URI's scheme (RFC 3986: ALPHA *( ALPHA / DIGIT / "+" /
 * "-" / "." )) when it is followed by "://", or is "file:"; 0 for a plain
 * path (which may hold a ':' of its own, "x:y/t"). */
static size_t scheme_len(const char *uri)
{
	size_t i = 0;
	if (!isalpha((unsigned char)uri[0]))
		return 0;
	while (isalnum((unsigned char)uri[i]) || uri[i] == '+' || uri[i] == '-' || uri[i] == '.')
		i++;
	if (uri[i] != ':')
		return 0;
	if (strncmp(uri + i, "://", 3) == 0 || (i == 4 && strncasecmp(uri, "file", 4) == 0))
		return i;
	return 0;
}

/* The options' versions (util/versioned.h). */
LOOM_VERSIONS(opts_versions, loom_store_opts, LOOM_STORE_OPTS_VERSION, LOOM_STORE_OPTS_INIT,
              sizeof(loom_store_opts));

LOOM_VERSIONED_INIT_FN(store_opts, opts_versions)

static int open_backend(loom_store **out, const char *uri, const loom_store_opts *in)
{
	loom_store_opts o;
	const loom_store_opts *opts = &o;
	store_config cfg;
	size_t n, i;
	int declined = 0;

	if (!out)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_STORE, "loom_store_open: NULL argument");
	*out = NULL;
	if (!uri || !*uri)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_STORE, "empty table URI");
	LOOM_TRY(loom_versioned_read(&opts_versions, &o, in));
	memset(&cfg, 0, sizeof(cfg));
	cfg.uri = uri;
	cfg.options = opts->options;
	cfg.n_options = opts->n_options;
	cfg.use_env = !opts->ignore_env;

	n = scheme_len(uri);
	if (n == 0)
		return store_local_open(out, uri, &cfg);
	for (i = 0; i < N_BACKENDS; i++) {
		int rc;
		if (strlen(backends[i].scheme) != n || strncasecmp(uri, backends[i].scheme, n) != 0)
			continue;
		if ((rc = backends[i].open(out, uri, &cfg)) != STORE_OPEN_DECLINED)
			return rc;
		declined = 1; /* not this backend's URL: try the next for the scheme */
	}
	{
		/* the URI may carry a SAS token or password: show it masked */
		char shown[512];
		loom_secrets_mask(NULL, uri, shown, sizeof(shown));
		if (declined)
			return loom_err(LOOM_EUNSUPPORTED, LOOM_ERRCLASS_STORE,
			                "%s: no object store recognizes this %.*s URL (Azure: "
			                "https://ACCOUNT.blob.core.windows.net/CONTAINER/path, or set "
			                "AZURE_STORAGE_ENDPOINT or AZURE_STORAGE_USE_EMULATOR for an "
			                "endpoint's http(s)://HOST/ACCOUNT/CONTAINER/path)",
			                shown, (int)(n < 32 ? n : 32), uri);
		return loom_err(LOOM_EUNSUPPORTED, LOOM_ERRCLASS_STORE,
		                "%s: no object store for URI scheme '%.*s' (supported: %s, and plain paths)",
		                shown, (int)(n < 32 ? n : 32), uri, loom_store_schemes());
	}
}

LOOM_EXTERN(int) loom_store_open(loom_store **out, const char *uri,
                                 const loom_store_opts *opts)
{
	LOOM_TRY(open_backend(out, uri, opts));
	/* tests put the fault-injecting wrapper in front (store/fault.h) */
	return loom_fault_store_wrap_from_env(out);
}

LOOM_EXTERN(void) loom_store_free(loom_store *s)
{
	if (s)
		s->free(s);
}

LOOM_EXTERN(const char *) loom_store_local_root(const loom_store *s)
{
	/* a fault-injecting wrapper is seen through: tests wrap local stores */
	return store_local_root_of(loom_fault_store_inner(s));
}
