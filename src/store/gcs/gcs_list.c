/* store/gcs/gcs_list.c - listing objects: pages of up to 1,000 fetched as
 * the caller consumes them (pageToken), objects and the prefixes of a
 * one-level listing merged and sorted per page. GCS lists in byte order of
 * names; loom checks it (a page that starts before the previous one ended
 * is an error, not silently reordered), because the log's replay relies
 * on it. startOffset (inclusive) is sent so GCS skips what comes before,
 * and start_after is applied here too: the emulator ignores startOffset. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/gcs/gcs_int.h"
#include "store/http/httpdate.h"
#include "store/http/json.h"
#include "util/alloc.h"
#include "util/error.h"
#include "util/vec.h"

typedef struct list_item {
	const char *name;    /* borrowed from the page's JSON */
	size_t name_len;     /* without a prefix's trailing '/' */
	size_t full_len;     /* as GCS orders it: with the '/' */
	uint64_t size;
	int64_t mtime_ms;
	int is_dir;
} list_item;

static int cmp_items(const void *a, const void *b)
{
	const list_item *x = a, *y = b;
	size_t n = x->name_len < y->name_len ? x->name_len : y->name_len;
	int c = memcmp(x->name, y->name, n);
	return c ? c : (x->name_len > y->name_len) - (x->name_len < y->name_len);
}

/* Byte order of the names as GCS sends them. */
static int cmp_full(const char *a, size_t alen, const char *b, size_t blen)
{
	int c = memcmp(a, b, alen < blen ? alen : blen);
	return c ? c : (alen > blen) - (alen < blen);
}

/* The page's objects and prefixes into `items` (borrowing from root). */
static int page_items(json_t *root, loom_vec *items)
{
	json_t *arr, *v;
	size_t i;
	arr = json_object_get(root, "items");
	json_array_foreach(arr, i, v) {
		json_t *name = json_object_get(v, "name"), *upd = json_object_get(v, "updated");
		list_item it;
		if (!json_is_string(name))
			continue;
		memset(&it, 0, sizeof(it));
		it.name = json_string_value(name);
		it.name_len = it.full_len = json_string_length(name);
		it.size = (uint64_t)json_int64_of(json_object_get(v, "size"));
		if (json_is_string(upd) && httpdate_parse_iso8601(json_string_value(upd), &it.mtime_ms) < 0)
			loom_error_clear();
		LOOM_TRY(loom_vec_push(items, &it));
	}
	arr = json_object_get(root, "prefixes");
	json_array_foreach(arr, i, v) {
		list_item it;
		if (!json_is_string(v))
			continue;
		memset(&it, 0, sizeof(it));
		it.name = json_string_value(v);
		it.name_len = it.full_len = json_string_length(v);
		while (it.name_len && it.name[it.name_len - 1] == '/')
			it.name_len--;
		it.is_dir = 1;
		LOOM_TRY(loom_vec_push(items, &it));
	}
	return 0;
}

/* One page: the parsed JSON into *root. */
static int fetch_page(gcs_store *s, const char *full_prefix, const char *token,
                      const char *start_offset, int recursive, json_t **root)
{
	gcs_call c;
	http_response r = HTTP_RESPONSE_INIT;
	json_error_t jerr;
	int rc;

	*root = NULL;
	gcs_call_init(&c, "GET", GCS_API_OBJECTS, NULL, LOOM_STORE_REQ_LIST);
	c.req.key = full_prefix;
	c.req.max_body = (size_t)64 << 20;
	rc = http_call_param(&c, "prefix", full_prefix);
	if (rc == 0 && !recursive)
		rc = http_call_param(&c, "delimiter", "/");
	if (rc == 0 && token)
		rc = http_call_param(&c, "pageToken", token);
	if (rc == 0 && start_offset)
		rc = http_call_param(&c, "startOffset", start_offset);
	if (rc == 0) {
		char page[24];
		snprintf(page, sizeof(page), "%llu", (unsigned long long)s->list_page);
		rc = http_call_param(&c, "maxResults", page);
	}
	if (rc == 0)
		rc = http_call_param(&c, "fields", "items(name,size,updated),prefixes,nextPageToken");
	if (rc == 0)
		rc = gcs_send(s, &c, &r);
	if (rc == 0 && r.status != 200)
		rc = gcs_status_error(s, &c, &r, 0);
	if (rc == 0) {
		*root = json_loadb(r.body.ptr ? r.body.ptr : "", r.body.size, 0, &jerr);
		if (!json_is_object(*root))
			rc = loom_err(LOOM_EIO, LOOM_ERRCLASS_STORE,
			              "GET bucket \"%s\" prefix \"%s\": the listing is not JSON (%s)", s->bucket,
			              full_prefix, *root ? "not an object" : jerr.text);
	}
	http_call_dispose(&c);
	http_response_dispose(&r);
	return rc;
}

int gcs_list(loom_store *st, const char *prefix, const char *start_after, unsigned int flags,
             loom_store_list_cb cb, void *payload)
{
	gcs_store *s = (gcs_store *)st;
	loom_buf full = LOOM_BUF_INIT, from = LOOM_BUF_INIT, token = LOOM_BUF_INIT, last = LOOM_BUF_INIT;
	loom_vec items;
	json_t *root = NULL;
	size_t plen = strlen(s->prefix), i;
	int rc, first = 1, have_last = 0;

	loom_vec_init(&items, sizeof(list_item));
	if ((rc = gcs_object_name(s, prefix ? prefix : "", &full)) < 0)
		goto done;
	if (start_after && (rc = gcs_object_name(s, start_after, &from)) < 0)
		goto done;
	for (;;) {
		json_t *next;
		rc = fetch_page(s, full.ptr, first ? NULL : token.ptr, start_after ? from.ptr : NULL,
		                (flags & LOOM_LIST_RECURSIVE) != 0, &root);
		if (rc < 0)
			goto done;
		first = 0;
		loom_vec_clear(&items);
		if ((rc = page_items(root, &items)) < 0)
			goto done;
		loom_vec_sort(&items, cmp_items);
		/* every name of this page must sort after every name of the last */
		for (i = 0; have_last && i < items.len; i++) {
			list_item *it = &LOOM_VEC_AT(&items, list_item, i);
			if (cmp_full(it->name, it->full_len, last.ptr, last.size) <= 0) {
				rc = loom_err(LOOM_EIO, LOOM_ERRCLASS_STORE,
				              "GET bucket \"%s\" prefix \"%s\": the listing is out of order (a page "
				              "holds \"%.*s\", after \"%s\" on the page before)", s->bucket, full.ptr,
				              (int)it->full_len, it->name, last.ptr);
				goto done;
			}
		}
		for (i = 0; i < items.len; i++) {
			list_item *it = &LOOM_VEC_AT(&items, list_item, i);
			loom_store_entry e;
			char *name;
			if (it->name_len <= plen || strncmp(it->name, s->prefix, plen) != 0)
				continue;
			if (!(name = loom_strndup(it->name + plen, it->name_len - plen))) {
				rc = loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_STORE, "out of memory listing");
				goto done;
			}
			e.key = name;
			e.size = it->size;
			e.mtime_ms = it->mtime_ms;
			e.is_dir = it->is_dir;
			e.is_symlink = 0;
			rc = start_after && strcmp(name, start_after) <= 0 ? 0 : cb(&e, payload);
			loom_free(name);
			if (rc != 0)
				goto done;
		}
		for (i = 0; i < items.len; i++) { /* the page's greatest name */
			list_item *it = &LOOM_VEC_AT(&items, list_item, i);
			if (!have_last || cmp_full(it->name, it->full_len, last.ptr, last.size) > 0) {
				loom_buf_clear(&last);
				if ((rc = loom_buf_put(&last, it->name, it->full_len)) < 0)
					goto done;
				have_last = 1;
			}
		}
		next = json_object_get(root, "nextPageToken");
		if (!json_is_string(next) || !json_string_length(next))
			break;
		loom_buf_clear(&token);
		if ((rc = loom_buf_puts(&token, json_string_value(next))) < 0)
			goto done;
		json_decref(root);
		root = NULL;
	}
done:
	json_decref(root);
	loom_vec_dispose(&items);
	loom_buf_dispose(&full);
	loom_buf_dispose(&from);
	loom_buf_dispose(&token);
	loom_buf_dispose(&last);
	return rc;
}
