/* ops/location.h - a table location opened for an operation: its store,
 * configured from the location's storage_options and the environment, and
 * the secrets every message and commit of the operation must not carry.
 *
 *   ops_table t;
 *   if (ops_table_open(&t, uri, loc, "vacuum") < 0) return rc;
 *   p.secrets = &t.secrets;
 *   rc = vacuum_run(out, t.store, &p);
 *   return ops_table_close(&t, rc, "vacuum");    // wraps + masks an error
 *
 * or all of it in one call: ops_table_run.
 */
#ifndef LOOM_OPS_LOCATION_H
#define LOOM_OPS_LOCATION_H

#include <string.h>

#include "loom/ops.h"
#include "loom/store.h"
#include "ops/opts.h"
#include "util/error.h"
#include "util/secret.h"

typedef struct ops_table {
	loom_store *store;
	loom_secrets secrets;   /* secret storage options, environment
	                         * credentials, the URI's password */
	char shown_uri[1024];   /* the URI with its secrets masked */
} ops_table;

/* Open the store of the table at `uri` (`loc` may be NULL: options from
 * the environment only). On failure the error is wrapped "<what> <uri>:",
 * masked, and returned; nothing needs closing. */
int ops_table_open(ops_table *t, const char *uri, const loom_table_location *loc,
                   const char *what);

/* Release the table. When rc < 0 the thread's error is first wrapped
 * "<what> <uri>:" and masked. Returns rc. */
int ops_table_close(ops_table *t, int rc, const char *what);

/* The body of a public single-table operation: open the table, run
 * `run(out, store, params)`, close it; an error comes back wrapped
 * "<what> <uri>:" and masked. `secrets` is the member of `params` that
 * takes the table's secrets (masked in the operation's commits and
 * messages), set before `run`; NULL for an operation that writes no
 * commit. */
typedef int (*ops_table_fn)(loom_op_result *out, loom_store *store, void *params);
int ops_table_run(loom_op_result *out, const char *uri, const loom_table_location *loc,
                  const char *what, ops_table_fn run, void *params, const loom_secrets **secrets);

/* Define the public single-table operation
 *   int loom_<name>(loom_op_result *out, const char *uri,
 *                   const loom_table_location *loc,
 *                   const loom_<name>_opts *opts, const loom_cancel *cancel)
 * as every one of them runs: the caller's options of any version read and
 * checked (ops_<name>_opts_read, ops/opts.h), `fill(&params, &read opts,
 * loc, cancel)` on zeroed `params_type` params, then ops_table_run with
 * `run(out, store, &params)` (typed: the macro makes its ops_table_fn),
 * errors naming `what`, the table's secrets in params.`secrets`. The read
 * options live until `run` returns (params may point into them). */
#define OPS_TABLE_ENTRY(name, what, params_type, fill, run, secrets)                          \
	static int name##_table_fn(loom_op_result *out, loom_store *store, void *params)         \
	{                                                                                         \
		return run(out, store, params);                                                       \
	}                                                                                         \
	LOOM_EXTERN(int) loom_##name(loom_op_result *out, const char *uri,                        \
	                             const loom_table_location *loc, const loom_##name##_opts *opts, \
	                             const loom_cancel *cancel)                                   \
	{                                                                                         \
		loom_##name##_opts o;                                                                 \
		params_type p;                                                                        \
		LOOM_TRY(ops_##name##_opts_read(&o, opts));                                           \
		memset(&p, 0, sizeof(p));                                                             \
		fill(&p, &o, loc, cancel);                                                            \
		return ops_table_run(out, uri, loc, (what), name##_table_fn, &p, &p.secrets);         \
	}

/* The store options of a location (`loc` may be NULL). */
void ops_store_options(const loom_table_location *loc, loom_store_opts *out);

#endif
