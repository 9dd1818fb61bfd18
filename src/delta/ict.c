/* delta/ict.c - in-commit timestamps: state, reading, commit times. */
#include "delta/ict.h"

#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "delta/protocol.h"
#include "util/buf.h"
#include "util/error.h"

#define FIRST_READ 4096
#define MAX_FIRST_LINE (16u << 20)

static int prop_long(const delta_metadata *m, const char *key, int64_t *out)
{
	const char *v = delta_kv_get(m->configuration, m->num_configuration, key, NULL);
	char *end;
	long long x;
	*out = -1;
	if (!v)
		return 0;
	errno = 0;
	x = strtoll(v, &end, 10);
	if (errno || end == v || *end || x < 0)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_DELTA,
		                "table property %s = \"%s\": expected a whole number >= 0", key, v);
	*out = x;
	return 0;
}

int delta_ict_from(const delta_protocol *p, const delta_metadata *m, delta_ict *out)
{
	const char *on = delta_kv_get(m->configuration, m->num_configuration,
	                              "delta.enableInCommitTimestamps", NULL);
	memset(out, 0, sizeof(*out));
	out->enabled = delta_protocol_has_feature(p, "inCommitTimestamp") && on &&
	               strcmp(on, "true") == 0;
	LOOM_TRY(prop_long(m, "delta.inCommitTimestampEnablementVersion", &out->enablement_version));
	return prop_long(m, "delta.inCommitTimestampEnablementTimestamp", &out->enablement_timestamp);
}

int delta_ict_covers(const delta_ict *ict, int64_t version)
{
	return ict->enabled && version >= ict->enablement_version;
}

int64_t delta_ict_of_commit_text(const char *text, size_t len)
{
	const char *nl = memchr(text, '\n', len);
	json_t *root, *ci, *ts;
	int64_t out = -1;
	root = json_loadb(text, nl ? (size_t)(nl - text) : len, 0, NULL);
	ci = root ? json_object_get(root, "commitInfo") : NULL;
	ts = ci ? json_object_get(ci, "inCommitTimestamp") : NULL;
	if (json_is_integer(ts))
		out = json_integer_value(ts);
	json_decref(root);
	return out;
}

int delta_ict_read(loom_store *store, const char *key, int64_t *out)
{
	loom_buf b = LOOM_BUF_INIT;
	uint64_t off = 0;
	size_t want = FIRST_READ, got;
	int rc = 0;

	*out = -1;
	/* read until the first newline (a commitInfo line can be long) */
	for (;;) {
		if ((rc = loom_buf_grow(&b, want)) < 0)
			break;
		if ((rc = store->read_range(store, key, off, want, b.ptr + b.size, &got)) < 0) {
			rc = loom_err_wrap("reading %s", key);
			break;
		}
		b.size += got;
		off += got;
		if (got < want || memchr(b.ptr, '\n', b.size) || b.size >= MAX_FIRST_LINE)
			break;
		want *= 2;
	}
	if (rc == 0 && b.size)
		*out = delta_ict_of_commit_text(b.ptr, b.size);
	loom_buf_dispose(&b);
	return rc;
}

int delta_commit_time(loom_store *store, const delta_ict *ict, const delta_log_file *f,
                      int64_t *out_ms)
{
	int64_t ts = -1;
	*out_ms = f->mtime_ms;
	if (f->name.kind != DELTA_LOG_COMMIT || !delta_ict_covers(ict, f->name.version))
		return 0;
	LOOM_TRY(delta_ict_read(store, f->key, &ts));
	if (ts >= 0)
		*out_ms = ts;
	return 0;
}
