/* store/local_list.c - the local store's listing: a walk of the directory
 * tree that hands each entry to the caller in ascending key order as it
 * goes.
 *
 * Keys sort bytewise and every key under a directory starts with the
 * directory's name and a '/', so sorting each directory's entries by name
 * - a directory's name taken with its '/' - and walking into a directory
 * in that place gives the order of the whole tree. Only the directories on
 * the current path are held, not the tree: a VACUUM over 10,000,000 files
 * used to hold and sort 10,000,000 keys before its first callback.
 *
 * Entries are lstat'ed (fstatat on the directory's descriptor, never
 * following a symlink, so a walk cannot leave the root or loop); the
 * directories walked into need no stat at all, their type is in the
 * directory entry. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "store/local_list.h"
#include "util/alloc.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/vec.h"

/* One entry of a directory being walked. */
typedef struct dir_entry {
	const char *name;   /* into the directory's name buffer: "name", or "name/" for a directory */
	size_t name_len;    /* without the '/' */
	int is_dir;
} dir_entry;

typedef struct walk {
	const char *root;
	const char *prefix;
	size_t prefix_len;
	const char *start_after;
	int recursive;
	loom_store_list_cb cb;
	void *payload;
	loom_buf key;       /* key of the directory being walked, with its trailing '/', or "" */
} walk;

static int cmp_entries(const void *a, const void *b)
{
	return strcmp(((const dir_entry *)a)->name, ((const dir_entry *)b)->name);
}

/* A key on the way to the prefix (a directory above it) or under it. */
static int keep_key(const walk *w, const char *key, size_t key_len)
{
	if (key_len < w->prefix_len)
		return strncmp(w->prefix, key, key_len) == 0;
	return strncmp(key, w->prefix, w->prefix_len) == 0;
}

/* Is the entry a directory? From d_type when the filesystem gives it. */
static int entry_is_dir(int dirfd, const struct dirent *de)
{
	struct stat st;
	if (de->d_type != DT_UNKNOWN)
		return de->d_type == DT_DIR;
	return fstatat(dirfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode);
}

/* Read the directory's entries into `entries` (names in `names`), sorted. */
static int read_entries(walk *w, DIR *d, loom_vec *entries, loom_buf *names)
{
	struct dirent *de;
	size_t i, off;

	errno = 0;
	while ((de = readdir(d)) != NULL) {
		dir_entry e;
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		e.name_len = strlen(de->d_name);
		e.is_dir = entry_is_dir(dirfd(d), de);
		e.name = NULL;
		if (loom_buf_put(names, de->d_name, e.name_len) < 0 ||
		    (e.is_dir && loom_buf_putc(names, '/') < 0) || loom_buf_putc(names, '\0') < 0 ||
		    loom_vec_push(entries, &e) < 0)
			return loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_STORE, "out of memory listing %s/%s",
			                w->root, w->key.ptr);
		errno = 0;
	}
	if (errno)
		return loom_err_os(LOOM_EIO, errno, "cannot list %s/%s", w->root, w->key.ptr);
	/* the names buffer is complete: point into it, then sort */
	for (i = 0, off = 0; i < entries->len; i++) {
		dir_entry *e = &LOOM_VEC_AT(entries, dir_entry, i);
		e->name = names->ptr + off;
		off += e->name_len + (size_t)e->is_dir + 1;
	}
	loom_vec_sort(entries, cmp_entries);
	return 0;
}

static int walk_dir(walk *w, int fd);

/* One entry, its key in w->key: walked into, handed over, or skipped. */
static int visit(walk *w, int fd, const dir_entry *e)
{
	const char *name = w->key.ptr + w->key.size - e->name_len; /* no '/' */
	struct stat st;
	loom_store_entry out;

	if (!keep_key(w, w->key.ptr, w->key.size))
		return 0;
	if (e->is_dir && (w->recursive || w->key.size < w->prefix_len)) {
		int sub = openat(fd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
		if (sub < 0) {
			if (errno == ENOENT)
				return 0; /* deleted while we listed */
			return loom_err_os(LOOM_EIO, errno, "cannot open %s/%s", w->root, w->key.ptr);
		}
		LOOM_TRY(loom_buf_putc(&w->key, '/'));
		return walk_dir(w, sub);
	}
	if (w->key.size < w->prefix_len)
		return 0;
	if (w->start_after && strcmp(w->key.ptr, w->start_after) <= 0)
		return 0;
	if (fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
		if (errno == ENOENT)
			return 0; /* deleted while we listed */
		return loom_err_os(LOOM_EIO, errno, "cannot stat %s/%s", w->root, w->key.ptr);
	}
	if (S_ISDIR(st.st_mode) != e->is_dir)
		return 0; /* replaced while we listed: its place in the order is gone */
	out.key = w->key.ptr;
	out.size = (uint64_t)st.st_size;
	out.mtime_ms = (int64_t)st.st_mtim.tv_sec * 1000 + st.st_mtim.tv_nsec / 1000000;
	out.is_dir = e->is_dir;
	out.is_symlink = S_ISLNK(st.st_mode) ? 1 : 0;
	return w->cb(&out, w->payload);
}

/* Walk the directory open as `fd` (closed here), whose key is w->key. */
static int walk_dir(walk *w, int fd)
{
	DIR *d = fdopendir(fd);
	loom_vec entries;
	loom_buf names = LOOM_BUF_INIT;
	size_t base = w->key.size, i;
	int rc;

	if (!d) {
		close(fd);
		return loom_err_os(LOOM_EIO, errno, "cannot list %s/%s", w->root, w->key.ptr);
	}
	loom_vec_init(&entries, sizeof(dir_entry));
	rc = read_entries(w, d, &entries, &names);
	for (i = 0; i < entries.len && rc == 0; i++) {
		const dir_entry *e = &LOOM_VEC_AT(&entries, dir_entry, i);
		if ((rc = loom_buf_put(&w->key, e->name, e->name_len)) < 0)
			break;
		rc = visit(w, fd, e);
		w->key.size = base;
		w->key.ptr[base] = '\0';
	}
	closedir(d);
	loom_vec_dispose(&entries);
	loom_buf_dispose(&names);
	return rc;
}

int local_list_walk(const char *root, size_t root_len, const char *prefix,
                    const char *start_after, int recursive, loom_store_list_cb cb, void *payload)
{
	/* start at the deepest directory the prefix names */
	const char *slash = strrchr(prefix, '/');
	size_t dir_len = slash ? (size_t)(slash - prefix) + 1 : 0;
	loom_buf dir = LOOM_BUF_INIT;
	walk w;
	int fd, rc;

	memset(&w, 0, sizeof(w));
	w.root = root;
	w.prefix = prefix;
	w.prefix_len = strlen(prefix);
	w.start_after = start_after;
	w.recursive = recursive;
	w.cb = cb;
	w.payload = payload;
	if ((rc = loom_buf_put(&dir, root, root_len)) < 0 || (rc = loom_buf_putc(&dir, '/')) < 0 ||
	    (rc = loom_buf_put(&dir, prefix, dir_len)) < 0 ||
	    (rc = loom_buf_put(&w.key, prefix, dir_len)) < 0 || (rc = loom_buf_grow(&w.key, 1)) < 0)
		goto done;
	w.key.ptr[w.key.size] = '\0';
	fd = open(dir.ptr, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0) {
		if (errno != ENOENT && errno != ENOTDIR) /* else nothing under a missing prefix */
			rc = loom_err_os(LOOM_EIO, errno, "cannot list %s/%.*s", root, (int)dir_len, prefix);
		goto done;
	}
	rc = walk_dir(&w, fd);
done:
	loom_buf_dispose(&dir);
	loom_buf_dispose(&w.key);
	return rc;
}
