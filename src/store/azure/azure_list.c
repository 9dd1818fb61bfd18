/* store/azure/azure_list.c - List Blobs: pages of up to 5,000 blobs fetched as
 * the caller consumes them, each page sorted (blobs and the prefixes of a
 * one-level listing come back in two lists), blobs up to start_after
 * dropped (startFrom is inclusive, and ignored by Azurite), the directory
 * entries of accounts with a hierarchical namespace skipped. */
#include <stdlib.h>
#include <string.h>

#include "store/azure/azure_int.h"
#include "store/http/httpdate.h"
#include "store/http/xml.h"
#include "util/alloc.h"
#include "util/error.h"
#include "util/vec.h"

#define LIST_PAGE "5000"

typedef struct list_item {
	char *name;          /* the blob name, or a prefix without its '/' */
	uint64_t size;
	int64_t mtime_ms;
	int is_dir;
} list_item;

typedef struct list_page {
	loom_vec items;      /* list_item */
	list_item cur;
	int cur_is_folder;   /* ResourceType directory (hierarchical namespace) */
	loom_buf next_marker;
} list_page;

static int on_list_xml(void *ctx, const char *path, const char *text, size_t len)
{
	list_page *pg = ctx;
	static const char blob[] = "EnumerationResults/Blobs/Blob";
	static const char pfx[] = "EnumerationResults/Blobs/BlobPrefix";
	if (!text)
		return 0;
	if (strcmp(path, "EnumerationResults/NextMarker") == 0)
		return loom_buf_put(&pg->next_marker, text, len);
	/* "Blob" is also the start of "BlobPrefix": match the whole element */
	if (strncmp(path, blob, sizeof(blob) - 1) == 0 &&
	    (path[sizeof(blob) - 1] == '\0' || path[sizeof(blob) - 1] == '/')) {
		const char *rest = path + sizeof(blob) - 1;
		if (strcmp(rest, "/Name") == 0) {
			loom_free(pg->cur.name);
			if (!(pg->cur.name = loom_strndup(text, len)))
				return loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_STORE, "out of memory listing");
		} else if (strcmp(rest, "/Properties/Content-Length") == 0) {
			pg->cur.size = strtoull(text, NULL, 10);
		} else if (strcmp(rest, "/Properties/Last-Modified") == 0) {
			if (httpdate_parse_rfc1123(text, &pg->cur.mtime_ms) < 0)
				loom_error_clear();
		} else if (strcmp(rest, "/Properties/ResourceType") == 0) {
			pg->cur_is_folder = len == 9 && memcmp(text, "directory", 9) == 0;
		} else if (*rest == '\0') {
			int rc = 0;
			if (pg->cur.name && !pg->cur_is_folder)
				rc = loom_vec_push(&pg->items, &pg->cur);
			else
				loom_free(pg->cur.name);
			memset(&pg->cur, 0, sizeof(pg->cur));
			pg->cur_is_folder = 0;
			return rc;
		}
		return 0;
	}
	if (strcmp(path, pfx) == 0 || strncmp(path, pfx, sizeof(pfx) - 1) != 0)
		return 0;
	if (strcmp(path + sizeof(pfx) - 1, "/Name") == 0) {
		list_item it = { NULL, 0, 0, 1 };
		int rc;
		while (len && text[len - 1] == '/')
			len--;
		if (!(it.name = loom_strndup(text, len)))
			return loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_STORE, "out of memory listing");
		if ((rc = loom_vec_push(&pg->items, &it)) < 0)
			loom_free(it.name);
		return rc;
	}
	return 0;
}

static int cmp_items(const void *a, const void *b)
{
	return strcmp(((const list_item *)a)->name, ((const list_item *)b)->name);
}

static void page_clear(list_page *pg)
{
	size_t i;
	for (i = 0; i < pg->items.len; i++)
		loom_free(LOOM_VEC_AT(&pg->items, list_item, i).name);
	loom_vec_clear(&pg->items);
	loom_free(pg->cur.name);
	memset(&pg->cur, 0, sizeof(pg->cur));
	loom_buf_clear(&pg->next_marker);
}

/* One page of List Blobs into `pg`. */
static int list_page_fetch(azure_store *s, const char *full_prefix, const char *marker,
                           const char *start_from, int recursive, list_page *pg)
{
	azure_call c;
	http_response r = HTTP_RESPONSE_INIT;
	int rc;

	http_call_init(&c, "GET", NULL, LOOM_STORE_REQ_LIST);
	c.req.key = full_prefix;
	c.req.max_body = (size_t)64 << 20;
	rc = http_call_param(&c, "restype", "container");
	if (rc == 0)
		rc = http_call_param(&c, "comp", "list");
	if (rc == 0 && *full_prefix)
		rc = http_call_param(&c, "prefix", full_prefix);
	if (rc == 0 && !recursive)
		rc = http_call_param(&c, "delimiter", "/");
	if (rc == 0 && marker)
		rc = http_call_param(&c, "marker", marker);
	else if (rc == 0 && start_from)
		rc = http_call_param(&c, "startFrom", start_from);
	if (rc == 0)
		rc = http_call_param(&c, "maxresults", LIST_PAGE);
	if (rc == 0)
		rc = azure_send(s, &c, &r);
	if (rc == 0 && r.status != 200)
		rc = azure_status_error(s, &c, &r, 0);
	if (rc == 0) {
		rc = xml_walk(r.body.ptr ? r.body.ptr : "", r.body.size, "List Blobs response", on_list_xml, pg);
		if (rc < 0)
			loom_err_wrap("GET container \"%s\" prefix \"%s\"", s->container, full_prefix);
	}
	http_call_dispose(&c);
	http_response_dispose(&r);
	return rc;
}

int azure_list(loom_store *st, const char *prefix, const char *start_after,
                      unsigned int flags, loom_store_list_cb cb, void *payload)
{
	azure_store *s = (azure_store *)st;
	loom_buf full = LOOM_BUF_INIT, from = LOOM_BUF_INIT, marker = LOOM_BUF_INIT;
	list_page pg;
	size_t plen = strlen(s->prefix), i;
	int rc, first = 1;

	memset(&pg, 0, sizeof(pg));
	loom_vec_init(&pg.items, sizeof(list_item));
	if ((rc = azure_blob_name(s, prefix ? prefix : "", &full)) < 0)
		goto done;
	if (!full.ptr && (rc = loom_buf_puts(&full, "")) < 0)
		goto done;
	if (start_after && (rc = azure_blob_name(s, start_after, &from)) < 0)
		goto done;
	for (;;) {
		/* startFrom is inclusive (and ignored by Azurite): what does not
		 * sort after start_after is dropped below */
		rc = list_page_fetch(s, full.ptr, first ? NULL : marker.ptr,
		                     first && start_after ? from.ptr : NULL,
		                     (flags & LOOM_LIST_RECURSIVE) != 0, &pg);
		if (rc < 0)
			goto done;
		first = 0;
		loom_vec_sort(&pg.items, cmp_items);
		for (i = 0; i < pg.items.len; i++) {
			list_item *it = &LOOM_VEC_AT(&pg.items, list_item, i);
			loom_store_entry e;
			if (strncmp(it->name, s->prefix, plen) != 0 || !it->name[plen])
				continue;
			e.key = it->name + plen;
			if (start_after && strcmp(e.key, start_after) <= 0)
				continue;
			e.size = it->size;
			e.mtime_ms = it->mtime_ms;
			e.is_dir = it->is_dir;
			e.is_symlink = 0;
			if ((rc = cb(&e, payload)) != 0)
				goto done;
		}
		if (!pg.next_marker.size)
			break;
		loom_buf_clear(&marker);
		if ((rc = loom_buf_put(&marker, pg.next_marker.ptr, pg.next_marker.size)) < 0)
			goto done;
		page_clear(&pg);
	}
done:
	page_clear(&pg);
	loom_vec_dispose(&pg.items);
	loom_buf_dispose(&pg.next_marker);
	loom_buf_dispose(&full);
	loom_buf_dispose(&from);
	loom_buf_dispose(&marker);
	return rc;
}
