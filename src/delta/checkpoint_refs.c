/* delta/checkpoint_refs.c - which sidecar files a checkpoint references
 * (for log cleanup, which must keep every sidecar a retained checkpoint
 * needs). JSON top-level files are scanned line by line; Parquet ones are
 * read through the sidecar column alone. */
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "delta/checkpoint.h"
#include "store/client.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/percent.h"

typedef struct refs_ctx {
	delta_sidecar_ref_cb cb;
	void *ctx;
	const char *key;
} refs_ctx;

/* A sidecar path is a file name in _delta_log/_sidecars/ (URI-encoded). */
static int deliver(refs_ctx *rc, const char *path)
{
	loom_buf name = LOOM_BUF_INIT;
	int r;
	if (!path || !*path || strchr(path, '/') || strchr(path, ':'))
		return loom_err(LOOM_EUNSUPPORTED, LOOM_ERRCLASS_DELTA,
		                "%s references sidecar \"%.200s\", which is not a plain file name in "
		                "_delta_log/_sidecars/", rc->key, path ? path : "");
	if (loom_percent_decode(&name, path, strlen(path)) < 0) {
		loom_buf_dispose(&name);
		return loom_err(LOOM_ECORRUPT, LOOM_ERRCLASS_DELTA, "%s: sidecar path \"%.200s\": %s",
		                rc->key, path, loom_error_last()->message);
	}
	r = rc->cb(rc->ctx, name.ptr ? name.ptr : "");
	loom_buf_dispose(&name);
	return r;
}

static int from_action(void *ctx, const delta_action *a)
{
	if (a->type != DELTA_ACT_SIDECAR)
		return 0;
	return deliver(ctx, a->u.sidecar.path);
}

static int from_json(refs_ctx *rc, loom_store *store)
{
	loom_buf b = LOOM_BUF_INIT;
	size_t pos = 0;
	int r = loom_store_read_all(store, rc->key, &b);
	if (r < 0) {
		loom_buf_dispose(&b);
		return loom_err_wrap("reading %s", rc->key);
	}
	while (r == 0 && pos < b.size) {
		const char *line = b.ptr + pos;
		const char *nl = memchr(line, '\n', b.size - pos);
		size_t len = nl ? (size_t)(nl - line) : b.size - pos;
		pos += len + 1;
		/* only lines that can hold a sidecar action are parsed */
		if (len && memmem(line, len, "\"sidecar\"", 9)) {
			json_t *root = json_loadb(line, len, 0, NULL);
			json_t *sc = root ? json_object_get(root, "sidecar") : NULL;
			json_t *p = sc ? json_object_get(sc, "path") : NULL;
			if (!root)
				r = loom_err(LOOM_ECORRUPT, LOOM_ERRCLASS_DELTA, "%s: a line is not JSON",
				             rc->key);
			else if (sc && !json_is_string(p))
				r = loom_err(LOOM_ECORRUPT, LOOM_ERRCLASS_DELTA, "%s: sidecar without a path",
				             rc->key);
			else if (sc)
				r = deliver(rc, json_string_value(p));
			json_decref(root);
		}
	}
	loom_buf_dispose(&b);
	return r;
}

int delta_checkpoint_sidecar_refs(loom_store *store, const char *key, int is_json,
                                  delta_sidecar_ref_cb cb, void *ctx)
{
	refs_ctx rc = { cb, ctx, key };
	if (is_json)
		return from_json(&rc, store);
	return delta_checkpoint_parquet_sidecars(store, key, from_action, &rc);
}
