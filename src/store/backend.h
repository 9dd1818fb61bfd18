/* store/backend.h - what store backends share: key rules, the registry's
 * opener signature, option lookups and request counters. Only store/ may
 * include it; the layers above use loom/store.h and store/client.h.
 *
 * Adding a backend: a subfolder (store/<name>/) whose opener has the type
 * store_opener, plus its line in the table of store/registry.c. */
#ifndef LOOM_STORE_BACKEND_H
#define LOOM_STORE_BACKEND_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "loom/store.h"
#include "util/buf.h"
#include "util/secret.h"
#include "store/client.h"

/* Check that `key` is a relative '/'-separated path with no empty, "." or
 * ".." component and no leading '/'. Returns 0 or LOOM_EINVAL (with an
 * error naming the key). `what` names the operation for the message. */
int loom_store_check_key(const char *key, const char *what);

/* ---- options (store/options.c) ------------------------------------------ */

/* What an opener gets: the URI and the caller's options. Borrowed for the
 * duration of the open; a backend copies what it keeps. */
typedef struct store_config {
	const char *uri;
	const loom_kv *options;
	size_t n_options;
	int use_env;         /* fall back to environment variables */
} store_config;

/* The value of option `key` (case-insensitive), else of the environment
 * variable `env` (NULL: `key` itself, which must then be upper case), else
 * NULL. Borrowed from the options or the environment. */
const char *store_opt(const store_config *c, const char *key, const char *env);

/* Typed lookups: `*out` = the value, or `dflt` when unset. A value that does
 * not parse is LOOM_EINVAL naming the key (and the value, unless the key is
 * a secret).
 *  - bool: true/false, yes/no, on/off, 1/0 (any case);
 *  - uint: a whole number <= max (counts: retries, concurrency);
 *  - size: bytes <= max, as loom_size_parse reads every size of loom
 *    (8388608, "8MiB", "5 MB"); every byte size goes through it;
 *  - duration: a number with a unit, ms s m h ("250ms", "30s", "1.5m"); a
 *    bare number is seconds; the result in milliseconds, <= max_ms. */
int store_opt_bool(const store_config *c, const char *key, const char *env, int dflt, int *out);
/* The bool rule above on a value already looked up (`key` names it in the
 * message). */
int store_parse_bool(const store_config *c, const char *key, const char *value, int *out);
int store_opt_uint(const store_config *c, const char *key, const char *env, uint64_t dflt,
                   uint64_t max, uint64_t *out);
int store_opt_size(const store_config *c, const char *key, const char *env, uint64_t dflt,
                   uint64_t max, uint64_t *out);
int store_opt_duration_ms(const store_config *c, const char *key, const char *env,
                          int64_t dflt, int64_t max_ms, int64_t *out);

/* The first of `names` (NULL-terminated) set in the options, else in the
 * environment - upper case, and only for the names starting with
 * `env_prefix` ("azure_", "google_"); *which (may be NULL) = the name
 * found. NULL when none is set. */
const char *store_opt_first(const store_config *c, const char *const *names, const char *env_prefix,
                            const char **which);
/* A bool option under those names (0 when unset), by store_parse_bool. */
int store_opt_first_bool(const store_config *c, const char *const *names, const char *env_prefix,
                         int *out);

/* The values to mask in this store's messages: secret options, secret
 * environment variables, the URI's password. Appended to `out`. */
int store_config_secrets(const store_config *c, loom_secrets *out);

/* ---- the registry (store/registry.c) ------------------------------------ */

/* Open a store for `uri` (whose scheme selected this opener). An opener
 * may return STORE_OPEN_DECLINED (no error set) for a URI of its scheme
 * that is not its own (an https:// URL of another service): the registry
 * tries the next backend registered for the scheme. */
typedef int (*store_opener)(loom_store **out, const char *uri, const store_config *cfg);
#define STORE_OPEN_DECLINED 1

/* The local filesystem opener (store/local.c): paths and file: URIs. */
int store_local_open(loom_store **out, const char *uri, const store_config *cfg);
/* The root directory of a local store, or NULL for any other store (no
 * unwrapping: registry.c's loom_store_local_root looks through wrappers). */
const char *store_local_root_of(const loom_store *s);
/* S3 and compatibles (store/s3/s3.c): s3:// and s3a:// URIs. */
int store_s3_open(loom_store **out, const char *uri, const store_config *cfg);
/* Azure Blob Storage (store/azure/azure.c): az, azure, adl, abfs, abfss, and
 * https/http URLs of a blob endpoint. */
int store_azure_open(loom_store **out, const char *uri, const store_config *cfg);
/* Google Cloud Storage (store/gcs/gcs.c): gs:// and gcs:// URIs. */
int store_gcs_open(loom_store **out, const char *uri, const store_config *cfg);

/* ---- request counters (store/stats.c) ----------------------------------- */

/* Per-store counters; every bump also adds to the process totals. */
typedef struct store_counters {
	atomic_uint_fast64_t requests[LOOM_STORE_REQ__COUNT];
	atomic_uint_fast64_t retries;
	atomic_uint_fast64_t bytes_read;
	atomic_uint_fast64_t bytes_written;
} store_counters;

void store_counters_init(store_counters *c);
/* One request of `kind` sent; NULL `c` counts the process totals only. */
void store_count_request(store_counters *c, loom_store_request kind);
/* A request sent again after a transient failure (count the request too). */
void store_count_retry(store_counters *c);
void store_count_bytes(store_counters *c, uint64_t read, uint64_t written);
/* Copy into a public stats struct (whose version the caller checked). */
void store_counters_read(store_counters *c, loom_store_stats *out);

#endif
