/* store/local.c - the local filesystem object store.
 *
 * Writes go to a hidden temp file beside the target, are fsynced, then
 * published: rename() to replace, link() to publish only if absent (link
 * fails with EEXIST atomically, even against other processes), then the
 * directory is fsynced. A crash leaves either the old state or the new
 * object, plus at worst a hidden temp file that vacuum ignores. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "store/backend.h"
#include "store/local_list.h"
#include "util/alloc.h"
#include "util/error.h"
#include "util/uuid.h"

typedef struct local_store {
	loom_store base;
	char *root;       /* realpath of the root, no trailing '/' */
	size_t root_len;
	char *given;      /* the root as opened, absolute and normalized, when
	                   * it differs from `root` (a path through a symlink);
	                   * log paths may name files through it. NULL else. */
	size_t given_len;
	char *root_uri;   /* "file://" + root, for messages */
	store_counters counters;
} local_store;

static int full_path(const local_store *ls, const char *key, loom_buf *out)
{
	loom_buf_clear(out);
	LOOM_TRY(loom_buf_put(out, ls->root, ls->root_len));
	LOOM_TRY(loom_buf_putc(out, '/'));
	return loom_buf_puts(out, key);
}

/* Resolve the directory that would hold `path` and check it lies inside the
 * root, so a symlinked directory cannot lead a write or delete outside. A
 * missing directory is fine (nothing to escape through yet). */
static int check_parent_inside(const local_store *ls, const char *path, const char *key)
{
	char resolved[PATH_MAX];
	char *dir = loom_strdup(path);
	char *slash;
	int rc = 0;

	if (!dir)
		return loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_STORE, "out of memory");
	slash = strrchr(dir, '/');
	if (slash)
		*slash = '\0';
	if (realpath(dir, resolved)) {
		size_t n = strlen(resolved);
		if (n < ls->root_len || memcmp(resolved, ls->root, ls->root_len) != 0 ||
		    (resolved[ls->root_len] != '\0' && resolved[ls->root_len] != '/'))
			rc = loom_err(LOOM_EINVAL, LOOM_ERRCLASS_STORE,
			              "%s: resolves to %s, outside the table root %s; refusing to touch it",
			              key, resolved, ls->root);
	}
	loom_free(dir);
	return rc;
}

/* pread `len` bytes at `offset` (fewer only at end of file); *got the count. */
static int read_at(int fd, const char *path, uint64_t offset, size_t len, void *dst, size_t *got)
{
	*got = 0;
	while (*got < len) {
		ssize_t n = pread(fd, (char *)dst + *got, len - *got, (off_t)(offset + *got));
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return loom_err_os(LOOM_EIO, errno, "read of %s at offset %llu failed", path,
			                   (unsigned long long)(offset + *got));
		}
		if (n == 0)
			break;
		*got += (size_t)n;
	}
	return 0;
}

/* A read of `key` (one GET): its file opened, its path in `path` (the
 * caller disposes it). */
static int open_for_read(local_store *ls, const char *key, loom_buf *path, int *fd)
{
	LOOM_TRY(loom_store_check_key(key, "read"));
	store_count_request(&ls->counters, LOOM_STORE_REQ_GET);
	LOOM_TRY(full_path(ls, key, path));
	if ((*fd = open(path->ptr, O_RDONLY | O_CLOEXEC)) < 0)
		return loom_err_os(loom_err_from_errno(errno), errno, "cannot open %s", path->ptr);
	return 0;
}

/* read_at, then close fd; *nread the count, counted as bytes read. */
static int read_and_close(local_store *ls, int fd, const char *path, uint64_t offset, size_t len,
                          void *dst, size_t *nread)
{
	size_t got = 0;
	int rc = read_at(fd, path, offset, len, dst, &got);
	close(fd);
	*nread = got;
	store_count_bytes(&ls->counters, got, 0);
	return rc;
}

static int local_read_range(loom_store *s, const char *key, uint64_t offset,
                            size_t len, void *dst, size_t *nread)
{
	local_store *ls = (local_store *)s;
	loom_buf path = LOOM_BUF_INIT;
	int fd, rc;

	*nread = 0;
	if ((rc = open_for_read(ls, key, &path, &fd)) == 0)
		rc = read_and_close(ls, fd, path.ptr, offset, len, dst, nread);
	loom_buf_dispose(&path);
	return rc;
}

static int64_t mtime_ms(const struct stat *st)
{
	return (int64_t)st->st_mtim.tv_sec * 1000 + st->st_mtim.tv_nsec / 1000000;
}

static int local_stat(loom_store *s, const char *key, loom_store_entry *out)
{
	local_store *ls = (local_store *)s;
	loom_buf path = LOOM_BUF_INIT;
	struct stat st;
	int rc;

	LOOM_TRY(loom_store_check_key(key, "stat"));
	store_count_request(&ls->counters, LOOM_STORE_REQ_HEAD);
	if ((rc = full_path(ls, key, &path)) < 0 ||
	    (rc = check_parent_inside(ls, path.ptr, key)) < 0)
		goto done;
	if (stat(path.ptr, &st) != 0) {
		rc = loom_err_os(loom_err_from_errno(errno), errno, "cannot stat %s", path.ptr);
		goto done;
	}
	out->key = key;
	out->size = (uint64_t)st.st_size;
	out->mtime_ms = mtime_ms(&st);
	out->is_dir = S_ISDIR(st.st_mode) ? 1 : 0;
	out->is_symlink = 0;
	if (lstat(path.ptr, &st) == 0 && S_ISLNK(st.st_mode))
		out->is_symlink = 1;
done:
	loom_buf_dispose(&path);
	return rc;
}

/* mkdir -p for the parent directories of `path` (inside the root). */
static int make_parents(const local_store *ls, char *path)
{
	char *p = path + ls->root_len + 1;
	for (; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(path, 0777) != 0 && errno != EEXIST) {
			int e = errno;
			*p = '/';
			return loom_err_os(loom_err_from_errno(e), e, "cannot create directory for %s", path);
		}
		*p = '/';
	}
	return 0;
}

static int fsync_parent(const char *path)
{
	char *dir = loom_strdup(path);
	char *slash;
	int fd;

	if (!dir)
		return loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_STORE, "out of memory");
	slash = strrchr(dir, '/');
	if (slash)
		*slash = '\0';
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
	loom_free(dir);
	return 0;
}

typedef struct local_writer {
	loom_store_writer base;
	store_counters *counters;
	char *final_path;
	char *tmp_path;
	int fd;
	unsigned int flags;
} local_writer;

static void writer_release(local_writer *w)
{
	if (w->fd >= 0)
		close(w->fd);
	loom_free(w->final_path);
	loom_free(w->tmp_path);
	loom_free(w);
}

static int writer_write(loom_store_writer *base, const void *data, size_t len)
{
	local_writer *w = (local_writer *)base;
	const char *p = data;
	while (len) {
		ssize_t n = write(w->fd, p, len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return loom_err_os(LOOM_EIO, errno, "write to %s failed", w->tmp_path);
		}
		p += n;
		len -= (size_t)n;
		store_count_bytes(w->counters, 0, (uint64_t)n);
	}
	return 0;
}

static int writer_commit(loom_store_writer *base)
{
	local_writer *w = (local_writer *)base;
	int rc = 0;

	store_count_request(w->counters, LOOM_STORE_REQ_PUT);
	if (fsync(w->fd) != 0) {
		rc = loom_err_os(LOOM_EIO, errno, "fsync of %s failed", w->tmp_path);
		goto fail;
	}
	close(w->fd);
	w->fd = -1;
	if (w->flags & LOOM_PUT_IF_ABSENT) {
		/* link() is the atomic create-if-absent: it never replaces. */
		if (link(w->tmp_path, w->final_path) != 0) {
			int e = errno;
			if (e == EEXIST)
				rc = loom_err(LOOM_EEXISTS, LOOM_ERRCLASS_STORE, "%s already exists",
				              w->final_path);
			else
				rc = loom_err_os(loom_err_from_errno(e), e, "cannot publish %s",
				                 w->final_path);
			goto fail;
		}
		unlink(w->tmp_path);
	} else if (rename(w->tmp_path, w->final_path) != 0) {
		rc = loom_err_os(LOOM_EIO, errno, "cannot rename %s to %s", w->tmp_path,
		                 w->final_path);
		goto fail;
	}
	fsync_parent(w->final_path);
	writer_release(w);
	return 0;
fail:
	unlink(w->tmp_path);
	writer_release(w);
	return rc;
}

static void writer_abort(loom_store_writer *base)
{
	local_writer *w = (local_writer *)base;
	unlink(w->tmp_path);
	writer_release(w);
}

static int local_writer_open(loom_store *s, const char *key, unsigned int flags,
                             loom_store_writer **out)
{
	local_store *ls = (local_store *)s;
	loom_buf path = LOOM_BUF_INIT, tmp = LOOM_BUF_INIT;
	local_writer *w = NULL;
	char uuid[37];
	char *slash;
	int rc;

	LOOM_TRY(loom_store_check_key(key, "write"));
	if ((rc = full_path(ls, key, &path)) < 0 ||
	    (rc = make_parents(ls, path.ptr)) < 0 ||
	    (rc = check_parent_inside(ls, path.ptr, key)) < 0 ||
	    (rc = loom_uuid_v4_string(uuid)) < 0)
		goto fail;
	/* The temp file is hidden (leading '.') so listings for vacuum and log
	 * replay skip it, and sits in the same directory so link/rename stay on
	 * one filesystem. */
	slash = strrchr(path.ptr, '/');
	if ((rc = loom_buf_put(&tmp, path.ptr, (size_t)(slash - path.ptr) + 1)) < 0 ||
	    (rc = loom_buf_printf(&tmp, ".%s.%s.tmp", slash + 1, uuid)) < 0)
		goto fail;
	w = loom_calloc(1, sizeof(*w));
	if (!w) {
		rc = loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_STORE, "out of memory");
		goto fail;
	}
	w->fd = open(tmp.ptr, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
	if (w->fd < 0) {
		rc = loom_err_os(loom_err_from_errno(errno), errno, "cannot create %s", tmp.ptr);
		loom_free(w);
		goto fail;
	}
	w->base.write = writer_write;
	w->base.commit = writer_commit;
	w->base.abort = writer_abort;
	w->counters = &ls->counters;
	w->flags = flags;
	w->final_path = loom_buf_detach(&path);
	w->tmp_path = loom_buf_detach(&tmp);
	*out = &w->base;
	return 0;
fail:
	loom_buf_dispose(&path);
	loom_buf_dispose(&tmp);
	return rc;
}

static int local_put(loom_store *s, const char *key, const void *data, size_t len,
                     unsigned int flags)
{
	loom_store_writer *w;
	int rc;

	if (flags & LOOM_PUT_IF_ABSENT) {
		/* Cheap early answer; link() in commit is what makes it atomic. */
		loom_store_entry st;
		if (s->stat(s, key, &st) == 0)
			return loom_err(LOOM_EEXISTS, LOOM_ERRCLASS_STORE, "%s already exists", key);
	}
	LOOM_TRY(local_writer_open(s, key, flags, &w));
	if ((rc = w->write(w, data, len)) < 0) {
		w->abort(w);
		return rc;
	}
	return w->commit(w);
}

static int local_list(loom_store *s, const char *prefix, const char *start_after,
                      unsigned int flags, loom_store_list_cb cb, void *payload)
{
	local_store *ls = (local_store *)s;
	size_t prefix_len;

	store_count_request(&ls->counters, LOOM_STORE_REQ_LIST);
	prefix = prefix ? prefix : "";
	prefix_len = strlen(prefix);
	if (prefix_len) {
		/* The prefix obeys the key rules, less a trailing '/'. */
		char *p = loom_strndup(prefix, prefix[prefix_len - 1] == '/' ? prefix_len - 1 : prefix_len);
		int rc;
		if (!p)
			return loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_STORE, "out of memory");
		rc = loom_store_check_key(p, "list");
		loom_free(p);
		if (rc < 0)
			return rc;
	}
	return local_list_walk(ls->root, ls->root_len, prefix, start_after,
	                       (flags & LOOM_LIST_RECURSIVE) != 0, cb, payload);
}

static int local_remove(loom_store *s, const char *key)
{
	local_store *ls = (local_store *)s;
	loom_buf path = LOOM_BUF_INIT;
	int rc;

	LOOM_TRY(loom_store_check_key(key, "delete"));
	store_count_request(&ls->counters, LOOM_STORE_REQ_DELETE);
	if ((rc = full_path(ls, key, &path)) < 0 ||
	    (rc = check_parent_inside(ls, path.ptr, key)) < 0)
		goto done;
	if (unlink(path.ptr) != 0 && errno != ENOENT)
		rc = loom_err_os(loom_err_from_errno(errno), errno, "cannot delete %s", path.ptr);
done:
	loom_buf_dispose(&path);
	return rc;
}

static int local_remove_empty_dir(loom_store *s, const char *prefix)
{
	local_store *ls = (local_store *)s;
	loom_buf path = LOOM_BUF_INIT;
	size_t n = strlen(prefix);
	char *key = loom_strndup(prefix, n && prefix[n - 1] == '/' ? n - 1 : n);
	int rc;

	if (!key)
		return loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_STORE, "out of memory");
	if ((rc = loom_store_check_key(key, "remove directory")) < 0 ||
	    (rc = full_path(ls, key, &path)) < 0 ||
	    (rc = check_parent_inside(ls, path.ptr, key)) < 0)
		goto done;
	if (rmdir(path.ptr) != 0 && errno != ENOENT && errno != ENOTEMPTY && errno != EEXIST)
		rc = loom_err_os(loom_err_from_errno(errno), errno, "cannot remove directory %s", path.ptr);
done:
	loom_free(key);
	loom_buf_dispose(&path);
	return rc;
}

/* One request: open, size, then the last bytes (a Parquet footer). */
static int local_read_tail(loom_store *s, const char *key, size_t len, void *dst,
                           size_t *nread, uint64_t *size)
{
	local_store *ls = (local_store *)s;
	loom_buf path = LOOM_BUF_INIT;
	struct stat st;
	size_t want;
	int fd, rc;

	*nread = 0;
	if ((rc = open_for_read(ls, key, &path, &fd)) < 0)
		goto done;
	if (fstat(fd, &st) != 0) {
		rc = loom_err_os(LOOM_EIO, errno, "cannot stat %s", path.ptr);
		close(fd);
		goto done;
	}
	*size = (uint64_t)st.st_size;
	want = *size < (uint64_t)len ? (size_t)*size : len;
	rc = read_and_close(ls, fd, path.ptr, *size - want, want, dst, nread);
done:
	loom_buf_dispose(&path);
	return rc;
}

/* "/x" from "/x", "file:/x", "file:///x" or "file://localhost/x"; NULL for
 * anything else (another scheme, a relative path). */
static const char *local_path_of(const char *location)
{
	if (location[0] == '/')
		return location;
	if (strncasecmp(location, "file:", 5) != 0)
		return NULL;
	location += 5;
	if (strncmp(location, "//localhost/", 12) == 0)
		return location + 11;
	if (strncmp(location, "///", 3) == 0)
		return location + 2;
	return location[0] == '/' && location[1] != '/' ? location : NULL;
}

/* The part of `path` after `root` + '/', or NULL when it is not under it. */
static const char *under(const char *path, const char *root, size_t root_len)
{
	if (!root || strncmp(path, root, root_len) != 0 || path[root_len] != '/')
		return NULL;
	return path + root_len + 1;
}

static int local_key_of(loom_store *s, const char *location, const char **key)
{
	local_store *ls = (local_store *)s;
	const char *path = local_path_of(location), *rel = NULL;

	*key = NULL;
	if (path && !(rel = under(path, ls->root, ls->root_len)))
		rel = under(path, ls->given, ls->given_len);
	if (!rel || loom_store_check_key(rel, "path") < 0)
		return loom_err(LOOM_ENOTFOUND, LOOM_ERRCLASS_STORE, "%.400s is outside the table root %s",
		                location, ls->base.root);
	*key = rel;
	return 0;
}

static int local_stats(loom_store *s, loom_store_stats *out)
{
	store_counters_read(&((local_store *)s)->counters, out);
	return 0;
}

static void local_free(loom_store *s)
{
	local_store *ls = (local_store *)s;
	loom_free(ls->root);
	loom_free(ls->given);
	loom_free(ls->root_uri);
	loom_free(ls);
}

/* `dir` made absolute and normalized ('//', '/./' and a trailing '/'
 * dropped) without resolving symlinks, into `out`: 0, or 1 when there is
 * no such form to use (a path with ".." components: lexically they may not
 * name the directory realpath() found), or LOOM_ENOMEM. */
static int given_root(const char *dir, loom_buf *out)
{
	char cwd[PATH_MAX];
	const char *p;
	if (dir[0] != '/') {
		if (!getcwd(cwd, sizeof(cwd)))
			return 1;
		LOOM_TRY(loom_buf_puts(out, cwd));
	}
	for (p = dir; *p;) {
		const char *seg = p;
		size_t n;
		while (*p && *p != '/')
			p++;
		n = (size_t)(p - seg);
		if (*p == '/')
			p++;
		if (n == 0 || (n == 1 && seg[0] == '.'))
			continue;
		if (n == 2 && seg[0] == '.' && seg[1] == '.')
			return 1;
		LOOM_TRY(loom_buf_putc(out, '/'));
		LOOM_TRY(loom_buf_put(out, seg, n));
	}
	return out->size ? 0 : 1;
}

LOOM_EXTERN(int) loom_store_open_local(loom_store **out, const char *root_dir)
{
	char resolved[PATH_MAX];
	struct stat st;
	loom_buf given = LOOM_BUF_INIT;
	local_store *ls;
	int rc;

	if (!root_dir || !*root_dir)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_STORE, "empty table path");
	if (!realpath(root_dir, resolved))
		return loom_err_os(loom_err_from_errno(errno), errno, "table root %s", root_dir);
	if (stat(resolved, &st) != 0 || !S_ISDIR(st.st_mode))
		return loom_err(LOOM_ENOTFOUND, LOOM_ERRCLASS_STORE, "table root %s is not a directory",
		                root_dir);
	ls = loom_calloc(1, sizeof(*ls));
	if (!ls)
		return loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_STORE, "out of memory");
	ls->root = loom_strdup(resolved);
	ls->root_uri = loom_malloc(strlen(resolved) + 8);
	if (!ls->root || !ls->root_uri) {
		local_free(&ls->base);
		return loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_STORE, "out of memory");
	}
	sprintf(ls->root_uri, "file://%s", resolved);
	ls->root_len = strlen(ls->root);
	if (ls->root_len == 1) /* "/" */
		ls->root_len = 0;
	if ((rc = given_root(root_dir, &given)) < 0) {
		loom_buf_dispose(&given);
		local_free(&ls->base);
		return loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_STORE, "out of memory");
	}
	if (rc == 0 && strcmp(given.ptr, resolved) != 0) {
		ls->given_len = given.size;
		ls->given = loom_buf_detach(&given);
	}
	loom_buf_dispose(&given);
	store_counters_init(&ls->counters);
	ls->base = (loom_store){
		.version = LOOM_STORE_VERSION,
		.name = "local",
		.caps = LOOM_STORE_CAP_ATOMIC_PUT_IF_ABSENT | LOOM_STORE_CAP_RANGED_READ,
		.read_range = local_read_range,
		.stat = local_stat,
		.put = local_put,
		.writer_open = local_writer_open,
		.list = local_list,
		.remove = local_remove,
		.remove_empty_dir = local_remove_empty_dir,
		.free = local_free,
		.root = ls->root_uri,
		.read_tail = local_read_tail,
		.remove_many = NULL, /* loom_store_remove_many calls remove per key */
		.key_of = local_key_of,
		.stats = local_stats,
	};
	*out = &ls->base;
	return 0;
}

/* The registry's opener for plain paths and file: URIs. The local store
 * reads no options. */
int store_local_open(loom_store **out, const char *uri, const store_config *cfg)
{
	const char *path = uri;
	(void)cfg;
	if (strncasecmp(uri, "file:", 5) == 0) {
		path = local_path_of(uri);
		if (!path)
			return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_STORE,
			                "%s: a file: URI names a local absolute path (file:///data/t, "
			                "file:/data/t)", uri);
	}
	return loom_store_open_local(out, path);
}

const char *store_local_root_of(const loom_store *s)
{
	if (!s || strcmp(s->name, "local") != 0)
		return NULL;
	return ((const local_store *)s)->root;
}
