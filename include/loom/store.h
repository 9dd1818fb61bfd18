/*
 * loom/store.h - the object-store interface.
 *
 * A table lives under a root in some object store. loom reaches it only
 * through this struct of function pointers, so a local directory, S3, Azure
 * or a test double (faulty, read-only, crash-simulating) are
 * interchangeable, and nothing above the store holds a local path.
 *
 * Keys are '/'-separated paths relative to the store root, never starting
 * with '/', never containing empty, "." or ".." components: an
 * implementation rejects such a key with LOOM_EINVAL and touches nothing.
 *
 * Opening: loom_store_open() picks the backend by the URI's scheme (a plain
 * path is `file`) and configures it from options (a table location's
 * `storage_options`, keys case-insensitive, delta-rs spellings) and, for
 * keys the options do not set, the environment.
 *
 * The contract every implementation keeps (callers rely on it):
 *
 *  - Thread safety: one store is shared by the worker threads of an
 *    operation; every method may be called concurrently with any other on
 *    the same store. A writer (loom_store_writer) is used by one thread at a
 *    time.
 *  - Errors: 0 or a negative LOOM_E* code with the thread's error record
 *    set, naming the operation, the key (and bucket/container) and, for
 *    HTTP stores, the status and the service's error code. Codes:
 *      LOOM_ENOTFOUND   the key (or the root) does not exist
 *      LOOM_EEXISTS     put-if-absent found the key already there
 *      LOOM_EPERM       access denied, bad or expired credentials
 *      LOOM_EINVAL      a bad key, option or URI
 *      LOOM_ETRANSIENT  a timeout, reset connection, truncated body, 5xx or
 *                       throttling that outlived the store's bounded retries
 *                       (loom_error_is_transient); worth retrying later
 *      LOOM_EIO         any other failure of the system or service
 *    No message ever holds a secret (keys, tokens, signatures, SAS query
 *    strings, passwords): stores mask what they format.
 *  - Consistency: read-after-write: once put or a writer's commit returns,
 *    every read, stat and listing (from any thread or process) sees the new
 *    object or the new bytes of an overwrite; once remove returns, none
 *    sees the old one. Listings are in ascending byte order of keys and
 *    `start_after` is exclusive. Put-if-absent is atomic across processes
 *    when caps has LOOM_STORE_CAP_ATOMIC_PUT_IF_ABSENT (two racers: one
 *    wins, the other gets LOOM_EEXISTS); commits need that bit.
 *  - Retries: a store retries idempotent requests itself (bounded,
 *    exponential backoff with jitter); callers do not retry store calls.
 *
 * Implementations embed `loom_store` as their first member and set
 * `version` to the LOOM_STORE_VERSION they were built with. Members after
 * "version 2" exist only when version >= 2 (after "version 3" only when
 * version >= 3); loom's helpers below check before using them and fall
 * back to the version 1 methods.
 */
#ifndef LOOM_STORE_H
#define LOOM_STORE_H

#include "common.h"

LOOM_BEGIN_DECL

#define LOOM_STORE_VERSION 3 /* 3: list_uploads, abort_upload */

/* Capability bits. */
#define LOOM_STORE_CAP_ATOMIC_PUT_IF_ABSENT 0x1u /* put-if-absent is atomic across processes,
                                                  * for put and for writers */
#define LOOM_STORE_CAP_RANGED_READ 0x2u
#define LOOM_STORE_CAP_REQUEST_READS 0x4u /* every read is a request with its own latency
                                           * (object stores): readers fetch neighbouring
                                           * ranges together */

/* Flags for put and writer_open. */
#define LOOM_PUT_IF_ABSENT 0x1u /* fail with LOOM_EEXISTS when the key exists */

/* Flags for list. */
#define LOOM_LIST_RECURSIVE 0x1u

typedef struct loom_store_entry {
	const char *key;     /* relative to the store root; borrowed for the callback */
	uint64_t size;       /* bytes */
	int64_t mtime_ms;    /* last modification, ms since the Unix epoch */
	int is_dir;          /* set only for directories, which non-recursive lists report */
	int is_symlink;      /* a symbolic link, listed as itself and never followed */
} loom_store_entry;

/* Return 0 to continue the listing, anything else stops it (no further
 * page is fetched) and is returned from list unchanged. */
typedef int (*loom_store_list_cb)(const loom_store_entry *entry, void *payload);

/* Request kinds a store counts (loom_store_stats.requests[kind]). */
typedef enum loom_store_request {
	LOOM_STORE_REQ_GET = 0,   /* an object read: read_range, read_tail */
	LOOM_STORE_REQ_HEAD,      /* stat */
	LOOM_STORE_REQ_PUT,       /* a whole object, or one part of a multipart upload */
	LOOM_STORE_REQ_LIST,      /* one listing page (S3: up to 1,000 keys) */
	LOOM_STORE_REQ_DELETE,    /* one delete request (a batch of keys counts once) */
	LOOM_STORE_REQ_OTHER,     /* multipart create/complete/abort, tokens, ... */
	LOOM_STORE_REQ__COUNT
} loom_store_request;

#define LOOM_STORE_STATS_VERSION 1
/* What a store sent. Counters only grow; read them before and after a call
 * to measure it. */
typedef struct loom_store_stats {
	unsigned int version;      /* LOOM_STORE_STATS_VERSION */
	uint64_t requests[16];     /* indexed by loom_store_request; every
	                            * request sent, retries included */
	uint64_t retries;          /* how many of those repeated a failed one */
	uint64_t bytes_read;       /* object bytes received */
	uint64_t bytes_written;    /* object bytes sent */
} loom_store_stats;
#define LOOM_STORE_STATS_INIT { LOOM_STORE_STATS_VERSION, { 0 }, 0, 0, 0 }

/** Set `out` (of `version`, 1 to LOOM_STORE_STATS_VERSION) to zero counters
 *  of that version. LOOM_EINVAL for another version. */
LOOM_EXTERN(int) loom_store_stats_init(loom_store_stats *out, unsigned int version);

/* An incomplete multipart upload: an object store (S3) keeps the parts of
 * an upload that was started and never completed nor aborted - a writer
 * killed mid-object - and bills them until someone aborts it. No reader
 * ever sees it: it is not an object. */
typedef struct loom_store_upload {
	const char *key;        /* the object it would become, relative to the
	                         * store root; borrowed for the callback */
	const char *upload_id;  /* the service's id of the upload; borrowed */
	int64_t initiated_ms;   /* when it was started, ms since the Unix epoch */
	int64_t bytes;          /* bytes of the parts stored so far (S3
	                         * ListParts), -1 when the service lists none */
} loom_store_upload;

/* As loom_store_list_cb: 0 continues, anything else stops the listing and
 * is returned from list_uploads unchanged. */
typedef int (*loom_store_upload_cb)(const loom_store_upload *upload, void *payload);

typedef struct loom_store_writer loom_store_writer;
typedef struct loom_store loom_store;

/* A streaming writer for large objects. Object stores upload it in parts
 * (multipart upload / put block) as bytes arrive, with bounded memory. */
struct loom_store_writer {
	/* Append bytes. */
	int (*write)(loom_store_writer *w, const void *data, size_t len);
	/* Make the object visible under its key (durably; multipart: complete
	 * the upload), then free the writer. With LOOM_PUT_IF_ABSENT given at
	 * open, fails with LOOM_EEXISTS if the key appeared meanwhile; the
	 * writer is freed either way, and on failure nothing stays behind (no
	 * open multipart upload, no temp file). */
	int (*commit)(loom_store_writer *w);
	/* Discard everything written (multipart: abort the upload), then free
	 * the writer. */
	void (*abort)(loom_store_writer *w);
};

struct loom_store {
	unsigned int version;   /* LOOM_STORE_VERSION this store was built with */
	const char *name;       /* "local", "s3", "memory", ... */
	uint32_t caps;          /* LOOM_STORE_CAP_* */

	/* Read up to `len` bytes at `offset` into `dst`; `*nread` gets the count
	 * (short only at end of object). LOOM_ENOTFOUND if the key is missing. */
	int (*read_range)(loom_store *s, const char *key, uint64_t offset,
	                  size_t len, void *dst, size_t *nread);
	/* Size and mtime of one object; LOOM_ENOTFOUND if missing, LOOM_EINVAL
	 * if the key leads outside the root (through a symlinked directory).
	 * out->key is set to the key passed in. */
	int (*stat)(loom_store *s, const char *key, loom_store_entry *out);
	/* Store a whole object. Without flags it replaces atomically (readers see
	 * the old or the new bytes, never a mix); with LOOM_PUT_IF_ABSENT it fails
	 * with LOOM_EEXISTS when the key exists, atomically against other
	 * processes if caps has LOOM_STORE_CAP_ATOMIC_PUT_IF_ABSENT. */
	int (*put)(loom_store *s, const char *key, const void *data, size_t len,
	           unsigned int flags);
	/* Open a streaming writer for large objects (same flags as put). A store
	 * whose multipart completion cannot be made create-only must, for
	 * LOOM_PUT_IF_ABSENT, publish with one create-only request (buffering)
	 * or clear LOOM_STORE_CAP_ATOMIC_PUT_IF_ABSENT. The S3 store does the
	 * former for every key under _delta_log/ (commits, checkpoints,
	 * sidecars); data files - fresh random names - larger than a part go
	 * by multipart with If-None-Match on the completion, which AWS S3
	 * enforces and Ceph RGW does not. */
	int (*writer_open)(loom_store *s, const char *key, unsigned int flags,
	                   loom_store_writer **out);
	/* Call `cb` for every object whose key starts with `prefix` (a directory
	 * prefix ends with '/'; "" lists everything) and sorts strictly after
	 * `start_after` (NULL: from the start), in ascending byte order of keys.
	 * Without LOOM_LIST_RECURSIVE only direct children are listed and
	 * sub-directories are reported with is_dir set. A missing prefix lists
	 * nothing and is not an error. Object stores fetch pages as the
	 * callback consumes them. */
	int (*list)(loom_store *s, const char *prefix, const char *start_after,
	            unsigned int flags, loom_store_list_cb cb, void *payload);
	/* Delete one object. A missing key is not an error. */
	int (*remove)(loom_store *s, const char *key);
	/* Remove a directory prefix if it is empty; a non-empty or missing one
	 * is left alone and 0 returned. NULL for stores without directories. */
	int (*remove_empty_dir)(loom_store *s, const char *prefix);
	/* Release the store. */
	void (*free)(loom_store *s);

	/* ---- version 2 (each may be NULL: the helpers below fall back) ---- */

	/* The store root as a URI ("file:///data/t", "s3://bucket/t"), for
	 * messages. Never holds a secret. */
	const char *root;
	/* Read the last min(len, size) bytes of an object into `dst` in one
	 * request (a suffix range), `*nread` the count and `*size` the object's
	 * size: how a Parquet footer is fetched without a stat first. */
	int (*read_tail)(loom_store *s, const char *key, size_t len, void *dst,
	                 size_t *nread, uint64_t *size);
	/* Delete `n` objects; results[i] gets 0 (deleted, or already missing)
	 * or the negative code for keys[i]. Returns 0 when every key went, else
	 * the first failure's code with a message naming its key. Backends
	 * batch as their service allows (S3 DeleteObjects: 1,000 keys). */
	int (*remove_many)(loom_store *s, const char *const *keys, size_t n, int *results);
	/* The key an absolute location names in this store. `location` is a URI
	 * or absolute path, percent-decoded (as Delta log paths are once
	 * decoded): "file:///t/x", "file:/t/x" and "/t/x" for a local store
	 * rooted at /t; "s3://bucket/t/x" for one rooted at s3://bucket/t. On
	 * success *key points into `location` (borrowed) and is a valid key.
	 * LOOM_ENOTFOUND (message naming the location and the root) when it
	 * lies outside the root or in another store. */
	int (*key_of)(loom_store *s, const char *location, const char **key);
	/* Copy the request counters into `out` (its version set by the caller). */
	int (*stats)(loom_store *s, loom_store_stats *out);

	/* ---- version 3 (NULL: the store keeps no incomplete uploads) ------ */

	/* Call `cb` for every incomplete multipart upload whose key starts
	 * with `prefix` ("" : every one under the root, never one outside it),
	 * in the service's order (S3: by key, then by start time), pages
	 * fetched as the callback consumes them. Uploads whose key is not a
	 * valid store key are skipped (they cannot be named to abort_upload).
	 * Only S3 has them: Azure drops uncommitted blocks itself after 7 days
	 * and GCS resumable sessions expire, so their stores leave it NULL. */
	int (*list_uploads)(loom_store *s, const char *prefix, loom_store_upload_cb cb,
	                    void *payload);
	/* Abort one upload, deleting its parts. One already gone (completed or
	 * aborted meanwhile) is not an error. */
	int (*abort_upload)(loom_store *s, const char *key, const char *upload_id);
};

/* ---- opening ------------------------------------------------------------ */

#define LOOM_STORE_OPTS_VERSION 1
typedef struct loom_store_opts {
	unsigned int version;       /* LOOM_STORE_OPTS_VERSION */
	/* storage_options: keys are case-insensitive and spelled as delta-rs
	 * spells them (AWS_ACCESS_KEY_ID, AZURE_STORAGE_ACCOUNT_NAME, ...).
	 * Borrowed for the call; the store copies what it keeps. */
	const loom_kv *options;
	size_t n_options;
	int ignore_env;             /* 1: never fall back to environment
	                             * variables (default 0) */
} loom_store_opts;
#define LOOM_STORE_OPTS_INIT { LOOM_STORE_OPTS_VERSION, NULL, 0, 0 }
/** Fill `o` (of `version`, 1 to LOOM_STORE_OPTS_VERSION) with the
 *  defaults. LOOM_EINVAL for another version. */
LOOM_EXTERN(int) loom_store_opts_init(loom_store_opts *o, unsigned int version);

/** Open the store for a table root URI: a plain path, file:/abs, file:///abs
 *  (the local filesystem store rooted at that directory, which must
 *  exist), or another scheme a backend registered. `opts` may be NULL
 *  (no options; the environment only). Options the backend does not read
 *  are ignored; a bad value of one it reads is LOOM_EINVAL naming the key
 *  (never the value of a secret). An unknown scheme is LOOM_EUNSUPPORTED
 *  naming it and the schemes supported.
 *  On success *out is owned by the caller: release with loom_store_free. */
LOOM_EXTERN(int) loom_store_open(loom_store **out, const char *uri,
                                 const loom_store_opts *opts);

/** Open the local filesystem store rooted at `root_dir`. */
LOOM_EXTERN(int) loom_store_open_local(loom_store **out, const char *root_dir);

/** The absolute, symlink-resolved root directory of a local store, or NULL
 *  for other stores. Borrowed from the store. For tools and tests: nothing
 *  in loom above the store uses it. */
LOOM_EXTERN(const char *) loom_store_local_root(const loom_store *s);

/** The URI schemes loom_store_open knows, comma-separated ("file, s3").
 *  Static storage. */
LOOM_EXTERN(const char *) loom_store_schemes(void);

/** Release a store; NULL is accepted. */
LOOM_EXTERN(void) loom_store_free(loom_store *s);

/* ---- helpers over any store (they handle version 1 stores) -------------- */

/** The root URI of a store for messages ("(unknown root)" for a version 1
 *  store). Borrowed from the store. */
LOOM_EXTERN(const char *) loom_store_root(const loom_store *s);

/** The key a Delta path names (percent-decoded): a relative path is its own
 *  key (checked against the key rules: LOOM_EINVAL otherwise); an absolute
 *  URI or path goes through key_of (LOOM_ENOTFOUND when outside the root).
 *  *key is borrowed from `path`. */
LOOM_EXTERN(int) loom_store_key_of(const char **key, loom_store *s, const char *path);

/** read_tail, or stat + read_range on stores without it. */
LOOM_EXTERN(int) loom_store_read_tail(size_t *nread, uint64_t *size, loom_store *s, const char *key,
                                      void *dst, size_t len);

/** remove_many, or remove per key on stores without it (same results). */
LOOM_EXTERN(int) loom_store_remove_many(int *results, loom_store *s, const char *const *keys,
                                        size_t n);

/** list_uploads, or nothing listed (0) on stores without it. */
LOOM_EXTERN(int) loom_store_list_uploads(loom_store *s, const char *prefix,
                                         loom_store_upload_cb cb, void *payload);

/** abort_upload, or LOOM_EUNSUPPORTED on stores without it. */
LOOM_EXTERN(int) loom_store_abort_upload(loom_store *s, const char *key, const char *upload_id);

/** The store's request counters (all zero for a store that keeps none),
 *  into `out` of its own version (LOOM_STORE_STATS_INIT or
 *  loom_store_stats_init): only that version's fields are written. */
LOOM_EXTERN(int) loom_store_stats_get(loom_store_stats *out, loom_store *s);

/** The counters summed over every store loom's backends opened in this
 *  process, freed ones included. */
LOOM_EXTERN(int) loom_store_stats_total(loom_store_stats *out);

/** "GET", "HEAD", "PUT", "LIST", "DELETE", "OTHER"; NULL out of range. */
LOOM_EXTERN(const char *) loom_store_request_name(loom_store_request kind);

/* ---- secrets ---------------------------------------------------------- */

/** 1 when an option (or environment variable, or URL query parameter)
 *  named `name` holds a secret: the name contains, case-insensitively,
 *  secret, password, passwd, token, key, credential, signature, sas or
 *  authorization, and not endpoint; or it is the SAS parameter "sig". */
LOOM_EXTERN(int) loom_secret_name(const char *name);

/** Copy `text` into out[cap] (always terminated when cap > 0) with secrets
 *  replaced by "***": the values of the secret options in `options` (n of
 *  them, may be 0) and of the secret AWS_ / AZURE_ / GOOGLE_ / LOOM_
 *  environment variables, URI passwords, and the values of secret query
 *  parameters (?sig=, &X-Amz-Signature=, ...). Returns the length written.
 *  What the CLI and embedders use before printing a URI or message. */
LOOM_EXTERN(size_t) loom_secret_mask(char *out, size_t cap, const loom_kv *options, size_t n,
                                     const char *text);

LOOM_END_DECL

#endif
