/* store/store.c - key rules and helpers over any store (with fallbacks for
 * version 1 stores). */
#include "store/backend.h"

#include <string.h>
#include <strings.h>

#include "util/alloc.h"
#include "util/error.h"

int loom_store_check_key(const char *key, const char *what)
{
	const char *p = key, *seg;

	if (!key || !*key)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_STORE, "%s: empty key", what);
	if (*key == '/')
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_STORE,
		                "%s: key \"%s\" is absolute; keys are relative to the table root",
		                what, key);
	while (*p) {
		size_t n;
		seg = p;
		while (*p && *p != '/')
			p++;
		n = (size_t)(p - seg);
		if (n == 0 || (n == 1 && seg[0] == '.') ||
		    (n == 2 && seg[0] == '.' && seg[1] == '.'))
			return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_STORE,
			                "%s: key \"%s\" has an empty, \".\" or \"..\" component "
			                "and could escape the table root", what, key);
		if (*p == '/') {
			p++;
			if (!*p)
				return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_STORE,
				                "%s: key \"%s\" ends with '/'", what, key);
		}
	}
	return 0;
}

/* Small objects (commits, _last_checkpoint) arrive in one request. */
#define READ_ALL_FIRST ((size_t)64 << 10)

int loom_store_read_all(loom_store *s, const char *key, loom_buf *out)
{
	loom_store_entry st;
	uint64_t size = 0;
	size_t nread = 0, start = out->size;

	if (s->version >= 2 && s->read_tail) {
		LOOM_TRY(loom_buf_grow(out, READ_ALL_FIRST));
		LOOM_TRY(s->read_tail(s, key, READ_ALL_FIRST, out->ptr + start, &nread, &size));
		if (size == nread) {
			out->size += nread;
			out->ptr[out->size] = '\0';
			return 0;
		}
		st.size = size; /* larger: read it whole from the start */
	} else {
		LOOM_TRY(s->stat(s, key, &st));
	}
	if (st.size > (uint64_t)(SIZE_MAX / 2))
		return loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_STORE, "%s: too large to read whole", key);
	LOOM_TRY(loom_buf_grow(out, (size_t)st.size));
	LOOM_TRY(s->read_range(s, key, 0, (size_t)st.size, out->ptr + start, &nread));
	out->size += nread;
	out->ptr[out->size] = '\0';
	return 0;
}

LOOM_EXTERN(const char *) loom_store_root(const loom_store *s)
{
	return s && s->version >= 2 && s->root ? s->root : "(unknown root)";
}

LOOM_EXTERN(int) loom_store_key_of(const char **key, loom_store *s, const char *path)
{
	*key = NULL;
	if (!path || !*path)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_STORE, "empty path");
	/* Delta paths are relative to the table root unless they carry a
	 * scheme ("s3://", "file:") or start with '/' */
	if (path[0] != '/' && !strstr(path, "://") && strncasecmp(path, "file:", 5) != 0) {
		LOOM_TRY(loom_store_check_key(path, "path"));
		*key = path;
		return 0;
	}
	if (s->version >= 2 && s->key_of)
		return s->key_of(s, path, key);
	return loom_err(LOOM_ENOTFOUND, LOOM_ERRCLASS_STORE,
	                "%s is not inside the table root %s (the %s store maps no absolute path)",
	                path, loom_store_root(s), s->name ? s->name : "?");
}

LOOM_EXTERN(int) loom_store_read_tail(size_t *nread, uint64_t *size, loom_store *s, const char *key,
                                      void *dst, size_t len)
{
	loom_store_entry st;
	size_t want;
	if (s->version >= 2 && s->read_tail)
		return s->read_tail(s, key, len, dst, nread, size);
	*nread = 0;
	LOOM_TRY(s->stat(s, key, &st));
	*size = st.size;
	want = st.size < (uint64_t)len ? (size_t)st.size : len;
	return s->read_range(s, key, st.size - want, want, dst, nread);
}

LOOM_EXTERN(int) loom_store_remove_many(int *results, loom_store *s, const char *const *keys,
                                        size_t n)
{
	loom_error first;
	size_t i;
	int rc = 0;
	if (s->version >= 2 && s->remove_many)
		return s->remove_many(s, keys, n, results);
	for (i = 0; i < n; i++) {
		results[i] = s->remove(s, keys[i]);
		if (results[i] < 0 && rc == 0) {
			rc = results[i];
			loom_err_copy(&first);
		}
	}
	if (rc < 0) /* the first failure is the one to report */
		loom_err(first.code, first.klass, "%s", first.message);
	return rc;
}

LOOM_EXTERN(int) loom_store_list_uploads(loom_store *s, const char *prefix,
                                         loom_store_upload_cb cb, void *payload)
{
	if (s->version >= 3 && s->list_uploads)
		return s->list_uploads(s, prefix ? prefix : "", cb, payload);
	return 0; /* a store without uploads has none open */
}

LOOM_EXTERN(int) loom_store_abort_upload(loom_store *s, const char *key, const char *upload_id)
{
	if (s->version >= 3 && s->abort_upload)
		return s->abort_upload(s, key, upload_id);
	return loom_err(LOOM_EUNSUPPORTED, LOOM_ERRCLASS_STORE,
	                "abort upload of %s: the %s store at %s has no multipart uploads", key,
	                s->name ? s->name : "?", loom_store_root(s));
}
