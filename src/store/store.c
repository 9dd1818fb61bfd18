/* store/store.c - opening stores by URI and helpers over the interface. */
#include "store/store_int.h"

#include <string.h>

#include "store/fault.h"
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

int loom_store_read_all(loom_store *s, const char *key, loom_buf *out)
{
	loom_store_entry st;
	size_t nread = 0;

	LOOM_TRY(s->stat(s, key, &st));
	if (st.size > (uint64_t)(SIZE_MAX / 2))
		return loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_STORE, "%s: too large to read whole", key);
	LOOM_TRY(loom_buf_grow(out, (size_t)st.size));
	LOOM_TRY(s->read_range(s, key, 0, (size_t)st.size, out->ptr + out->size, &nread));
	out->size += nread;
	out->ptr[out->size] = '\0';
	return 0;
}

static int open_by_uri(loom_store **out, const char *uri)
{
	if (!uri || !*uri)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_STORE, "empty table URI");
	if (strncmp(uri, "file://", 7) == 0)
		return loom_store_open_local(out, uri + 7);
	if (strncmp(uri, "file:", 5) == 0)
		return loom_store_open_local(out, uri + 5);
	if (strstr(uri, "://"))
		return loom_err(LOOM_EUNSUPPORTED, LOOM_ERRCLASS_STORE,
		                "%s: no object store for this URI scheme (supported: local paths and file://)",
		                uri);
	return loom_store_open_local(out, uri);
}

LOOM_EXTERN(int) loom_store_open(loom_store **out, const char *uri)
{
	LOOM_TRY(open_by_uri(out, uri));
	/* tests put the fault-injecting wrapper in front (store/fault.h) */
	return loom_fault_store_wrap_from_env(out);
}

LOOM_EXTERN(void) loom_store_free(loom_store *s)
{
	if (s)
		s->free(s);
}
