/* delta/commit_write.c - put-if-absent commits with conflict checks and
 * retries. */
#include "delta/commit_write.h"

#include <string.h>

#include "delta/actions.h"
#include "delta/ict.h"
#include "delta/log_names.h"
#include "delta/row_tracking.h"
#include "loom/common.h"
#include "store/client.h"
#include "util/alloc.h"
#include "util/error.h"
#include "util/uuid.h"

#define DEFAULT_ATTEMPTS 15
#define DELTA_ERR(code, ...) loom_err((code), LOOM_ERRCLASS_DELTA, __VA_ARGS__)

void delta_commit_init(delta_commit *c, delta_commit_kind kind, int64_t read_version,
                       const char *operation)
{
	memset(c, 0, sizeof(*c));
	c->kind = kind;
	c->read_version = read_version;
	c->operation = operation;
}

static void commit_key(int64_t version, char out[64])
{
	char digits[21];
	delta_log_format_version(version, digits);
	snprintf(out, 64, "_delta_log/%s.json", digits);
}

/* Spark writes operationParameters and operationMetrics as string maps:
 * every non-string value becomes its compact JSON text. */
static json_t *stringified(json_t *obj)
{
	json_t *out = json_object(), *v;
	const char *k;
	if (!out || !obj)
		return out;
	json_object_foreach(obj, k, v) {
		if (json_is_string(v)) {
			json_object_set(out, k, v);
		} else {
			char *text = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
			if (text) {
				json_object_set_new(out, k, json_string(text));
				free(text);
			}
		}
	}
	return out;
}

/* The floor of the next in-commit timestamp after `version`: its
 * inCommitTimestamp, or (a commit without one, written before ICT was
 * enabled) its file's modification time, which PROTOCOL.md requires the
 * enabling commit's ICT to exceed. -1 when neither can be read. */
static int64_t previous_commit_time(loom_store *store, int64_t version)
{
	char key[64];
	int64_t ict = -1;
	loom_store_entry e;

	commit_key(version, key);
	if (delta_ict_read(store, key, &ict) < 0 || ict < 0) {
		loom_error_clear();
		if (store->stat(store, key, &e) < 0) {
			loom_error_clear();
			return -1;
		}
		return e.mtime_ms;
	}
	return ict;
}

static const char *const reserved_commit_keys[] = {
	"timestamp", "inCommitTimestamp", "operation", "operationParameters",
	"operationMetrics", "readVersion", "isolationLevel", "isBlindAppend",
	"engineInfo", "txnId", "tags", NULL
};

static int is_reserved(const char *key)
{
	size_t i;
	for (i = 0; reserved_commit_keys[i]; i++)
		if (strcmp(key, reserved_commit_keys[i]) == 0)
			return 1;
	return 0;
}

/* The config's commit block: custom_metadata.X becomes commitInfo key X,
 * user_metadata / userMetadata becomes userMetadata; core keys are never
 * overridden. */
static void add_user_metadata(json_t *ci, const delta_commit *c)
{
	size_t i;
	for (i = 0; i < c->n_user_metadata; i++) {
		const char *k = c->user_metadata[i].key, *v = c->user_metadata[i].value;
		const char *name = NULL;
		if (!k || !v)
			continue;
		if (strncmp(k, "custom_metadata.", 16) == 0)
			name = k + 16;
		else if (strcmp(k, "user_metadata") == 0 || strcmp(k, "userMetadata") == 0)
			name = "userMetadata";
		if (name && *name && !is_reserved(name)) {
			/* commitInfo is read by anyone who reads the table: no
			 * credential may reach it, even one a config interpolated
			 * into its commit metadata */
			size_t cap = 3 * strlen(v) + 16; /* "pw" -> "***" may grow */
			char *masked = loom_secret_name(name) ? NULL : loom_malloc(cap);
			if (masked)
				loom_secrets_mask(c->secrets, v, masked, cap);
			json_object_set_new(ci, name, json_string(masked ? masked : "***"));
			loom_free(masked);
		}
	}
}

static int build_commit(loom_store *store, const delta_commit *c, int64_t version,
                        int64_t winners_hwm, loom_buf *out)
{
	int64_t now = loom_clock_wall_ms(c->clock);
	json_t *root = json_object(), *ci = json_object();
	char uuid[37], *text;
	int rc;

	if (!root || !ci) {
		json_decref(root);
		json_decref(ci);
		return DELTA_ERR(LOOM_ENOMEM, "out of memory building commitInfo");
	}
	if ((rc = loom_uuid_v4_string(uuid)) < 0) {
		json_decref(root);
		json_decref(ci);
		return rc;
	}
	if (c->in_commit_timestamps && version > 0) {
		/* PROTOCOL.md: the larger of the attempt time and one millisecond
		 * after the previous commit's ICT; recomputed on every attempt, so
		 * a retry after a winning commit follows that commit */
		int64_t prev = previous_commit_time(store, version - 1);
		if (prev >= now)
			now = prev + 1;
	}
	json_object_set_new(ci, "timestamp", json_integer(now));
	if (c->in_commit_timestamps)
		json_object_set_new(ci, "inCommitTimestamp", json_integer(now));
	json_object_set_new(ci, "operation", json_string(c->operation));
	json_object_set_new(ci, "operationParameters", stringified(c->operation_parameters));
	if (c->kind != DELTA_COMMIT_CREATE && c->read_version >= 0)
		json_object_set_new(ci, "readVersion", json_integer(c->read_version));
	if (c->isolation_level)
		json_object_set_new(ci, "isolationLevel", json_string(c->isolation_level));
	json_object_set_new(ci, "isBlindAppend", json_boolean(c->is_blind_append));
	if (c->operation_metrics)
		json_object_set_new(ci, "operationMetrics", stringified(c->operation_metrics));
	{
		char engine[64];
		snprintf(engine, sizeof(engine), "loom/%s", loom_version());
		json_object_set_new(ci, "engineInfo", json_string(engine));
	}
	json_object_set_new(ci, "txnId", json_string(uuid));
	if (c->tags)
		json_object_set(ci, "tags", c->tags);
	add_user_metadata(ci, c);
	json_object_set_new(root, "commitInfo", ci);
	text = json_dumps(root, JSON_COMPACT | JSON_PRESERVE_ORDER);
	json_decref(root);
	if (!text)
		return DELTA_ERR(LOOM_ENOMEM, "out of memory serialising commitInfo");
	loom_buf_clear(out);
	rc = loom_buf_puts(out, text);
	free(text);
	if (rc == 0)
		rc = loom_buf_putc(out, '\n');
	if (rc == 0 && c->actions_len) {
		rc = loom_buf_put(out, c->actions, c->actions_len);
		if (rc == 0 && c->actions[c->actions_len - 1] != '\n')
			rc = loom_buf_putc(out, '\n');
	}
	if (rc == 0 && c->attempt_actions)
		rc = c->attempt_actions(c->attempt_ctx, version, winners_hwm, out);
	return rc;
}

/* Does winning commit `version` conflict with `c`? 0 if not. Raises
 * *hwm to the row id high-water mark it sets. */
static int check_winner(loom_store *store, const delta_commit *c, int64_t version, int64_t *hwm)
{
	char key[64], where[128];
	loom_buf raw = LOOM_BUF_INIT;
	delta_parse_scratch scratch;
	size_t pos = 0;
	int line_no = 0, rc = 0;

	if (c->kind == DELTA_COMMIT_INFO_ONLY)
		return 0;
	commit_key(version, key);
	if ((rc = loom_store_read_all(store, key, &raw)) < 0)
		return loom_err_wrap("reading winning commit %lld", (long long)version);
	delta_parse_scratch_init(&scratch);
	while (pos < raw.size && rc == 0) {
		const char *line = raw.ptr + pos;
		const char *nl = memchr(line, '\n', raw.size - pos);
		size_t len = nl ? (size_t)(nl - line) : raw.size - pos;
		delta_action act;
		json_t *root = NULL;

		pos += len + (nl ? 1 : 0);
		line_no++;
		if (len == 0 || (len == 1 && line[0] == '\r'))
			continue;
		snprintf(where, sizeof(where), "%s line %d", key, line_no);
		delta_parse_scratch_reset(&scratch);
		if ((rc = delta_action_parse_line(line, len, where, &scratch, &root, &act)) < 0)
			break;
		switch (act.type) {
		case DELTA_ACT_METADATA:
			rc = DELTA_ERR(LOOM_ECONFLICT,
			               "concurrent commit %lld changed the table metadata; %s aborted, table unchanged",
			               (long long)version, c->operation);
			break;
		case DELTA_ACT_PROTOCOL:
			rc = DELTA_ERR(LOOM_ECONFLICT,
			               "concurrent commit %lld changed the table protocol; %s aborted, table unchanged",
			               (long long)version, c->operation);
			break;
		case DELTA_ACT_DOMAIN:
			if (act.u.domain.domain && strcmp(act.u.domain.domain, DELTA_ROW_TRACKING_DOMAIN) == 0 &&
			    !act.u.domain.removed) {
				int64_t m = delta_row_tracking_parse_hwm(act.u.domain.configuration);
				if (m > *hwm)
					*hwm = m;
			}
			break;
		case DELTA_ACT_REMOVE:
			if (c->kind == DELTA_COMMIT_REARRANGE && c->removed_keys &&
			    loom_map_gets(c->removed_keys, act.u.file.path))
				rc = DELTA_ERR(LOOM_ECONFLICT,
				               "concurrent commit %lld removed %s, which %s rewrites; "
				               "aborted, table unchanged",
				               (long long)version, act.u.file.path, c->operation);
			break;
		default:
			break;
		}
		json_decref(root);
	}
	delta_parse_scratch_dispose(&scratch);
	loom_buf_dispose(&raw);
	return rc;
}

typedef struct latest_ctx {
	int64_t latest;
} latest_ctx;

static int note_commit(const loom_store_entry *e, void *payload)
{
	latest_ctx *lc = payload;
	const char *base = strrchr(e->key, '/');
	delta_log_name name;
	base = base ? base + 1 : e->key;
	if (delta_log_name_parse(base, strlen(base), &name) && name.kind == DELTA_LOG_COMMIT &&
	    name.version > lc->latest)
		lc->latest = name.version;
	return 0;
}

/* Does `key` hold exactly `body`? 1 yes, 0 no (absent or other bytes),
 * negative when the store cannot tell. Identical bytes are our commit, or
 * one with the very same effect on the table. */
static int holds_our_commit(loom_store *store, const char *key, const loom_buf *body)
{
	loom_buf got = LOOM_BUF_INIT;
	int rc = loom_store_read_all(store, key, &got);
	if (rc == 0)
		rc = got.size == body->size && memcmp(got.ptr, body->ptr, body->size) == 0;
	else if (rc == LOOM_ENOTFOUND)
		rc = 0;
	loom_buf_dispose(&got);
	return rc;
}

int delta_commit_write(loom_store *store, const delta_commit *c, int64_t *out_version)
{
	int attempts = c->max_attempts > 0 ? c->max_attempts : DEFAULT_ATTEMPTS;
	int64_t version = c->kind == DELTA_COMMIT_CREATE ? 0 : c->read_version + 1;
	loom_buf body = LOOM_BUF_INIT;
	char key[64];
	int64_t winners_hwm = -1;
	int attempt, rc = 0;

	if (c->kind != DELTA_COMMIT_CREATE && c->read_version < 0)
		return DELTA_ERR(LOOM_EINVAL, "commit of %s without a read version", c->operation);
	for (attempt = 0; attempt < attempts; attempt++) {
		latest_ctx lc;
		int64_t v;

		if ((rc = build_commit(store, c, version, winners_hwm, &body)) < 0)
			break;
		commit_key(version, key);
		rc = store->put(store, key, body.ptr, body.size, LOOM_PUT_IF_ABSENT);
		if (rc < 0) {
			/* An error may be a lost reply (the object store published the
			 * commit, the client saw a timeout), and "exists" may be our own
			 * commit published by a retry inside the store: read it back. */
			loom_error saved;
			int ours;
			loom_err_copy(&saved);
			ours = holds_our_commit(store, key, &body);
			if (ours == 1) {
				loom_error_clear();
				rc = 0;
			} else if (ours < 0) {
				*out_version = DELTA_COMMIT_UNKNOWN;
				rc = DELTA_ERR(saved.code,
				               "%s: the outcome of commit %lld is unknown (%s; reading it back "
				               "failed too); its new files are kept",
				               c->operation, (long long)version, saved.message);
				break;
			} else {
				loom_err(saved.code, saved.klass, "%s", saved.message);
			}
		}
		if (rc == 0) {
			*out_version = version;
			break;
		}
		if (rc != LOOM_EEXISTS)
			break;
		if (c->kind == DELTA_COMMIT_CREATE) {
			rc = DELTA_ERR(LOOM_ECONFLICT, "another writer created the table first (%s exists)", key);
			break;
		}
		/* Lost the race: check every commit that won, then retry after them. */
		lc.latest = version;
		{
			char start[64];
			commit_key(version - 1, start);
			if ((rc = store->list(store, "_delta_log/", start, 0, note_commit, &lc)) < 0)
				break;
		}
		for (v = version; v <= lc.latest && rc == 0; v++)
			rc = check_winner(store, c, v, &winners_hwm);
		if (rc < 0)
			break;
		version = lc.latest + 1;
	}
	if (rc == LOOM_EEXISTS || (rc == 0 && attempt == attempts))
		rc = DELTA_ERR(LOOM_ECONFLICT, "%s: gave up after %d commit attempts lost to concurrent writers",
		               c->operation, attempts);
	loom_buf_dispose(&body);
	return rc;
}
