/*
 * loom/store.h - the object-store interface.
 *
 * A table lives under a root in some object store. loom reaches it only
 * through this struct of function pointers, so a local directory, S3, or a
 * test double (faulty, read-only, crash-simulating) are interchangeable.
 * Keys are '/'-separated paths relative to the store root, never starting
 * with '/', never containing "." or ".." components: an implementation
 * rejects such a key with LOOM_EINVAL and touches nothing.
 *
 * Implementations embed `loom_store` as their first member.
 */
#ifndef LOOM_STORE_H
#define LOOM_STORE_H

#include "common.h"

LOOM_BEGIN_DECL

#define LOOM_STORE_VERSION 1

/* Capability bits. */
#define LOOM_STORE_CAP_ATOMIC_PUT_IF_ABSENT 0x1u /* put-if-absent is atomic across processes */
#define LOOM_STORE_CAP_RANGED_READ 0x2u

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

/* Return 0 to continue the listing, anything else stops it and is returned
 * from list unchanged. */
typedef int (*loom_store_list_cb)(const loom_store_entry *entry, void *payload);

typedef struct loom_store_writer loom_store_writer;
typedef struct loom_store loom_store;

struct loom_store_writer {
	/* Append bytes. */
	int (*write)(loom_store_writer *w, const void *data, size_t len);
	/* Make the object visible under its key (durably), then free the writer.
	 * With LOOM_PUT_IF_ABSENT given at open, fails with LOOM_EEXISTS if the
	 * key appeared meanwhile; the writer is freed either way. */
	int (*commit)(loom_store_writer *w);
	/* Discard everything written, then free the writer. */
	void (*abort)(loom_store_writer *w);
};

struct loom_store {
	unsigned int version;   /* LOOM_STORE_VERSION */
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
	/* Open a streaming writer for large objects (same flags as put). */
	int (*writer_open)(loom_store *s, const char *key, unsigned int flags,
	                   loom_store_writer **out);
	/* Call `cb` for every object whose key starts with `prefix` (a directory
	 * prefix ends with '/'; "" lists everything) and sorts strictly after
	 * `start_after` (NULL: from the start), in ascending byte order of keys.
	 * Without LOOM_LIST_RECURSIVE only direct children are listed and
	 * sub-directories are reported with is_dir set. A missing prefix lists
	 * nothing and is not an error. */
	int (*list)(loom_store *s, const char *prefix, const char *start_after,
	            unsigned int flags, loom_store_list_cb cb, void *payload);
	/* Delete one object. A missing key is not an error. */
	int (*remove)(loom_store *s, const char *key);
	/* Remove a directory prefix if it is empty; a non-empty or missing one
	 * is left alone and 0 returned. NULL for stores without directories. */
	int (*remove_empty_dir)(loom_store *s, const char *prefix);
	/* Release the store. */
	void (*free)(loom_store *s);
};

/** Open a store for a URI: a plain path or a file:// URI opens the local
 *  filesystem store rooted at that directory (which must exist).
 *  On success *out is owned by the caller: release with loom_store_free. */
LOOM_EXTERN(int) loom_store_open(loom_store **out, const char *uri);

/** Open the local filesystem store rooted at `root_dir`. */
LOOM_EXTERN(int) loom_store_open_local(loom_store **out, const char *root_dir);

/** The absolute, symlink-resolved root directory of a local store, or NULL
 *  for other stores. Borrowed from the store. */
LOOM_EXTERN(const char *) loom_store_local_root(const loom_store *s);

/** Release a store; NULL is accepted. */
LOOM_EXTERN(void) loom_store_free(loom_store *s);

LOOM_END_DECL

#endif
