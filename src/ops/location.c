/* ops/location.c - opening a table location's store with its options. */
#include "ops/location.h"

#include <string.h>

#include "ops/opts.h"
#include "util/error.h"

void ops_store_options(const loom_table_location *loc, loom_store_opts *out)
{
	const loom_store_opts d = LOOM_STORE_OPTS_INIT;
	*out = d;
	if (loc) {
		out->options = loc->storage_options;
		out->n_options = loc->n_storage_options;
	}
}

static int collect_secrets(ops_table *t, const char *uri, const loom_table_location *loc)
{
	if (loc)
		LOOM_TRY(loom_secrets_add_options(&t->secrets, loc->storage_options,
		                                  loc->n_storage_options));
	LOOM_TRY(loom_secrets_add_env(&t->secrets));
	return loom_secrets_add_uri_password(&t->secrets, uri);
}

int ops_table_open(ops_table *t, const char *uri, const loom_table_location *loc,
                   const char *what)
{
	loom_store_opts so;
	int rc;

	memset(t, 0, sizeof(*t));
	LOOM_TRY(ops_location_check(loc));
	/* the URI is shown masked even when collecting the values fails */
	loom_secrets_mask(NULL, uri ? uri : "", t->shown_uri, sizeof(t->shown_uri));
	if ((rc = collect_secrets(t, uri ? uri : "", loc)) < 0)
		return ops_table_close(t, rc, what);
	loom_secrets_mask(&t->secrets, uri ? uri : "", t->shown_uri, sizeof(t->shown_uri));
	ops_store_options(loc, &so);
	if ((rc = loom_store_open(&t->store, uri, &so)) < 0) {
		t->store = NULL;
		return ops_table_close(t, rc, what);
	}
	return 0;
}

int ops_table_close(ops_table *t, int rc, const char *what)
{
	if (rc < 0) {
		loom_err_wrap("%s %s", what, t->shown_uri);
		loom_secrets_mask_error(&t->secrets);
	}
	loom_store_free(t->store);
	t->store = NULL;
	loom_secrets_dispose(&t->secrets);
	return rc;
}

int ops_table_run(loom_op_result *out, const char *uri, const loom_table_location *loc,
                  const char *what, ops_table_fn run, void *params, const loom_secrets **secrets)
{
	ops_table t;
	LOOM_TRY(ops_result_check(out));
	LOOM_TRY(ops_table_open(&t, uri, loc, what));
	if (secrets)
		*secrets = &t.secrets;
	return ops_table_close(&t, run(out, t.store, params), what);
}
