/* ops/vacuum/vacuum.c - VACUUM lite and full. */
#include "ops/vacuum/vacuum.h"
#include "loom/metrics.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "delta/actions.h"
#include "delta/commit_write.h"
#include "delta/dv.h"
#include "delta/file_index.h"
#include "delta/ict.h"
#include "delta/log_listing.h"
#include "delta/log_temps.h"
#include "delta/props.h"
#include "delta/protocol.h"
#include "delta/snapshot.h"
#include "store/client.h"
#include "util/alloc.h"
#include "util/arena.h"
#include "util/error.h"
#include "util/hashmap.h"
#include "util/vec.h"

#define OPS_ERR(code, ...) loom_err((code), LOOM_ERRCLASS_OPS, __VA_ARGS__)
#define MS_PER_HOUR 3600000LL

typedef struct candidate {
	const char *key;       /* arena string */
	uint64_t size;
	int deleted;           /* set once the store deleted it */
} candidate;

/* An incomplete multipart upload under the root, started before the
 * retention horizon: garbage a killed writer left (S3 only). */
typedef struct old_upload {
	const char *key;       /* arena strings */
	const char *id;
	int64_t initiated_ms;
	int64_t bytes;         /* -1: not listed */
	int aborted;
} old_upload;

/* Keys per delete request: S3's DeleteObjects takes at most 1,000, and the
 * cancel token is polled between batches. */
#define VACUUM_DELETE_BATCH 1000
/* directories of a full listing listed at once on object stores: the
 * listing is round trips in a row otherwise (issue 30: at least 16 in flight) */
#define VACUUM_LIST_WIDTH 16

typedef struct vacuum_state {
	loom_store *store;
	delta_snapshot *snap;
	delta_ict ict;             /* commit times: in-commit timestamps? */
	int64_t cutoff_ms;         /* files older than this may go */
	loom_arena arena;
	loom_map protected_keys;   /* keys a reader still needs */
	loom_map candidate_keys;   /* dedupe */
	loom_vec candidates;       /* candidate */
	uint64_t candidate_bytes;
	size_t skipped_outside;    /* log paths outside the root, never touched */
	loom_vec uploads;          /* old_upload, sorted by key */
	int uploads_denied;        /* listing them was refused (permission) */
} vacuum_state;

int vacuum_is_hidden(const char *key, const char *const *part_cols, size_t n_part_cols)
{
	const char *seg = key;
	while (*seg) {
		const char *end = strchr(seg, '/');
		size_t len = end ? (size_t)(end - seg) : strlen(seg);
		if (len && (seg[0] == '_' || seg[0] == '.')) {
			int allowed = 0;
			size_t i;
			if (len >= 12 && strncmp(seg, "_change_data", 12) == 0)
				allowed = 1;
			else if (len >= 12 && strncmp(seg, "_delta_index", 12) == 0)
				allowed = 1;
			for (i = 0; !allowed && i < n_part_cols; i++) {
				size_t n = strlen(part_cols[i]);
				if (len > n && strncmp(seg, part_cols[i], n) == 0 && seg[n] == '=')
					allowed = 1;
			}
			if (!allowed)
				return 1;
		}
		if (!end)
			break;
		seg = end + 1;
	}
	return 0;
}

/* The store key of a log path, or NULL when it lies outside the table root
 * or is not a safe relative key (such paths are never touched). An
 * absolute URI or path inside the root ("file:///t/x.parquet",
 * "s3://bucket/t/x.parquet") names the same file as its relative form
 * ("x.parquet"), so both protect it. The key is borrowed from `path`. */
static const char *table_key(vacuum_state *st, const char *path)
{
	const char *key;
	return loom_store_key_of(&key, st->store, path) == 0 ? key : NULL;
}

static int protect(vacuum_state *st, const char *key)
{
	char *copy;
	if (loom_map_gets(&st->protected_keys, key))
		return 0;
	copy = loom_arena_strdup(&st->arena, key);
	if (!copy)
		return LOOM_ENOMEM;
	return loom_map_puts(&st->protected_keys, copy, copy);
}

/* Protect a file action's data file and deletion-vector file. */
static int protect_file(vacuum_state *st, const delta_file *f)
{
	const char *key = table_key(st, f->path);
	if (key)
		LOOM_TRY(protect(st, key));
	if (f->dv.storage_type == 'u' || f->dv.storage_type == 'p') {
		loom_buf dv = LOOM_BUF_INIT;
		int rc = delta_dv_file_key(&f->dv, st->store, &dv);
		if (rc == 0 && (key = table_key(st, dv.ptr)) != NULL)
			rc = protect(st, key);
		else if (rc == LOOM_EUNSUPPORTED)
			rc = 0; /* an absolute DV outside the root: never ours to delete */
		loom_buf_dispose(&dv);
		LOOM_TRY(rc);
	}
	return 0;
}

static int push_candidate(vacuum_state *st, const char *key, uint64_t size, const char **copy)
{
	candidate c;
	c.key = loom_arena_strdup(&st->arena, key);
	if (!c.key)
		return LOOM_ENOMEM;
	c.size = size;
	c.deleted = 0;
	LOOM_TRY(loom_vec_push(&st->candidates, &c));
	st->candidate_bytes += size;
	*copy = c.key;
	return 0;
}

/* A file the log names: a candidate unless protected or already one. */
static int add_candidate(vacuum_state *st, const char *key, uint64_t size)
{
	const char *copy;
	if (loom_map_gets(&st->protected_keys, key) || loom_map_gets(&st->candidate_keys, key))
		return 0;
	LOOM_TRY(push_candidate(st, key, size, &copy));
	return loom_map_puts(&st->candidate_keys, copy, (void *)copy);
}

/* A file the full listing found: the listing gives each key once, so it
 * is checked against the log's candidates (found before it) but not added
 * to their map - at 10,000,000 files that map was most of VACUUM's memory
 * and time besides the listing. */
static int add_listed_candidate(vacuum_state *st, const char *key, uint64_t size)
{
	const char *copy;
	if (loom_map_gets(&st->protected_keys, key) || loom_map_gets(&st->candidate_keys, key))
		return 0;
	return push_candidate(st, key, size, &copy);
}

/* A path the log says was removed: a candidate if it still exists. */
static int consider_removed(vacuum_state *st, const char *path, const char *const *pcols, size_t npc)
{
	const char *key = table_key(st, path);
	loom_store_entry e;
	int rc;

	if (!key) {
		st->skipped_outside++;
		return 0;
	}
	if (vacuum_is_hidden(key, pcols, npc) || loom_map_gets(&st->protected_keys, key) ||
	    loom_map_gets(&st->candidate_keys, key))
		return 0;
	rc = st->store->stat(st->store, key, &e);
	if (rc == LOOM_ENOTFOUND)
		return 0; /* already gone */
	if (rc == LOOM_EINVAL) {
		st->skipped_outside++; /* through a symlinked directory: not ours */
		return 0;
	}
	LOOM_TRY(rc);
	return e.is_dir || e.is_symlink ? 0 : add_candidate(st, key, e.size);
}

static int consider_removed_file(vacuum_state *st, const delta_file *f, const char *const *pcols,
                                 size_t npc)
{
	LOOM_TRY(consider_removed(st, f->path, pcols, npc));
	if (f->dv.storage_type == 'u' || f->dv.storage_type == 'p') {
		loom_buf dv = LOOM_BUF_INIT;
		int rc = delta_dv_file_key(&f->dv, st->store, &dv);
		if (rc == 0)
			rc = consider_removed(st, dv.ptr, pcols, npc);
		else if (rc == LOOM_EUNSUPPORTED)
			rc = 0;
		loom_buf_dispose(&dv);
		LOOM_TRY(rc);
	}
	return 0;
}

/* Removes (and change-data files) in commit files still on disk. A
 * checkpoint drops expired tombstones, but the commits that wrote them may
 * still be there, and their files may still be on disk. */
static int scan_commits(vacuum_state *st, const char *const *pcols, size_t npc)
{
	delta_log_listing listing;
	delta_parse_scratch scratch;
	loom_buf raw = LOOM_BUF_INIT;
	size_t i;
	int rc;

	LOOM_TRY(delta_log_list(st->store, &listing));
	delta_parse_scratch_init(&scratch);
	for (i = 0, rc = 0; i < listing.files.len && rc == 0; i++) {
		const delta_log_file *lf = &LOOM_VEC_AT(&listing.files, delta_log_file, i);
		size_t pos = 0;
		int line_no = 0;
		int64_t commit_ms;
		if (lf->name.kind != DELTA_LOG_COMMIT || lf->name.version > st->snap->version)
			continue;
		loom_buf_clear(&raw);
		if ((rc = loom_store_read_all(st->store, lf->key, &raw)) < 0)
			break;
		/* the commit's time: its in-commit timestamp where the table has
		 * them (PROTOCOL.md, In-Commit Timestamps), else its file's mtime */
		commit_ms = lf->mtime_ms;
		if (delta_ict_covers(&st->ict, lf->name.version) && raw.size) {
			int64_t ict = delta_ict_of_commit_text(raw.ptr, raw.size);
			if (ict >= 0)
				commit_ms = ict;
		}
		while (pos < raw.size && rc == 0) {
			const char *line = raw.ptr + pos;
			const char *nl = memchr(line, '\n', raw.size - pos);
			size_t len = nl ? (size_t)(nl - line) : raw.size - pos;
			char where[128];
			delta_action act;
			json_t *root = NULL;

			pos += len + (nl ? 1 : 0);
			line_no++;
			if (len == 0)
				continue;
			snprintf(where, sizeof(where), "%s line %d", lf->key, line_no);
			delta_parse_scratch_reset(&scratch);
			if ((rc = delta_action_parse_line(line, len, where, &scratch, &root, &act)) < 0)
				break;
			if (act.type == DELTA_ACT_REMOVE && act.u.file.deletion_timestamp < st->cutoff_ms &&
			    delta_file_index_find(st->snap->index, act.u.file.path) < 0)
				rc = consider_removed_file(st, &act.u.file, pcols, npc);
			else if (act.type == DELTA_ACT_CDC && commit_ms < st->cutoff_ms &&
			         (rc = delta_file_make_key(&act.u.file, &scratch, where)) == 0)
				rc = consider_removed(st, act.u.file.path, pcols, npc);
			json_decref(root);
		}
	}
	delta_parse_scratch_dispose(&scratch);
	loom_buf_dispose(&raw);
	delta_log_listing_dispose(&listing);
	return rc;
}

typedef struct full_ctx {
	vacuum_state *st;
	const char *const *pcols;
	size_t npc;
	const loom_cancel *cancel;
} full_ctx;

/* A writer's temp file (".<name>.<uuid>.tmp") in a data directory, left by
 * a killed compaction or Z-order: hidden, so never read, and garbage once
 * older than the retention, like any unreferenced file (found by the crash
 * campaign). Those in _delta_log/ and other hidden directories are not. */
static int is_data_temp(const full_ctx *fc, const char *key)
{
	const char *base = strrchr(key, '/');
	size_t dir_len = base ? (size_t)(base - key) : 0;
	char *dir;
	int hidden_dir;
	base = base ? base + 1 : key;
	if (!delta_temp_name(base, strlen(base)))
		return 0;
	if (!dir_len)
		return 1;
	dir = loom_strndup(key, dir_len);
	if (!dir)
		return 0;
	hidden_dir = vacuum_is_hidden(dir, fc->pcols, fc->npc);
	loom_free(dir);
	return !hidden_dir;
}

static int consider_listed(const loom_store_entry *e, void *payload)
{
	full_ctx *fc = payload;
	if (loom_cancel_requested(fc->cancel))
		return OPS_ERR(LOOM_ECANCELLED, "vacuum cancelled while listing");
	/* A symlink is never deleted: it may be how the table reaches data
	 * kept elsewhere, and removing it is not ours to decide. */
	if (e->is_dir || e->is_symlink || e->mtime_ms >= fc->st->cutoff_ms ||
	    (vacuum_is_hidden(e->key, fc->pcols, fc->npc) && !is_data_temp(fc, e->key)))
		return 0;
	return add_listed_candidate(fc->st, e->key, e->size);
}

/* ---- incomplete multipart uploads -------------------------------------- */

typedef struct upload_ctx {
	vacuum_state *st;
	const loom_cancel *cancel;
} upload_ctx;

static int consider_upload(const loom_store_upload *u, void *payload)
{
	upload_ctx *uc = payload;
	old_upload o;
	if (loom_cancel_requested(uc->cancel))
		return OPS_ERR(LOOM_ECANCELLED, "vacuum cancelled while listing multipart uploads");
	/* one started after the horizon may be a writer still at work: kept,
	 * as a file that recent would be */
	if (u->initiated_ms >= uc->st->cutoff_ms)
		return 0;
	o.key = loom_arena_strdup(&uc->st->arena, u->key);
	o.id = loom_arena_strdup(&uc->st->arena, u->upload_id);
	if (!o.key || !o.id)
		return LOOM_ENOMEM;
	o.initiated_ms = u->initiated_ms;
	o.bytes = u->bytes;
	o.aborted = 0;
	return loom_vec_push(&uc->st->uploads, &o);
}

static int cmp_uploads(const void *a, const void *b)
{
	const old_upload *x = a, *y = b;
	int c = strcmp(x->key, y->key);
	return c ? c : strcmp(x->id, y->id);
}

/* The uploads under the table root (the store lists nothing outside it)
 * older than the horizon; stores without multipart uploads list none. */
static int find_uploads(vacuum_state *st, const loom_cancel *cancel)
{
	upload_ctx uc = { st, cancel };
	int rc = loom_store_list_uploads(st->store, "", consider_upload, &uc);
	if (rc == LOOM_EPERM) {
		/* a role without s3:ListBucketMultipartUploads: the vacuum of the
		 * table's files goes on, the result says the uploads were not
		 * looked at */
		loom_error_clear();
		loom_vec_clear(&st->uploads);
		st->uploads_denied = 1;
		return 0;
	}
	LOOM_TRY(rc);
	loom_vec_sort(&st->uploads, cmp_uploads);
	return 0;
}

/* Abort them all; the first failure is returned (the rest are still
 * tried: each abort stands alone) and *aborted counts those gone. */
static int abort_uploads(vacuum_state *st, const vacuum_params *p, size_t *aborted)
{
	loom_error first;
	size_t i;
	int rc = 0;
	*aborted = 0;
	for (i = 0; i < st->uploads.len; i++) {
		old_upload *u = &LOOM_VEC_AT(&st->uploads, old_upload, i);
		int arc;
		if (loom_cancel_requested(p->cancel)) {
			if (rc == 0)
				rc = OPS_ERR(LOOM_ECANCELLED, "vacuum cancelled after aborting %zu of %zu "
				             "multipart uploads", *aborted, st->uploads.len);
			return rc;
		}
		if ((arc = loom_store_abort_upload(st->store, u->key, u->id)) < 0) {
			if (rc == 0) {
				rc = arc;
				loom_err_copy(&first);
			}
			continue;
		}
		u->aborted = 1;
		(*aborted)++;
	}
	if (rc < 0) {
		loom_err(first.code, first.klass, "%s", first.message);
		loom_err_wrap("vacuum aborted %zu of %zu multipart uploads, then failed", *aborted,
		              st->uploads.len);
	}
	return rc;
}

static int cmp_candidates(const void *a, const void *b)
{
	return strcmp(((const candidate *)a)->key, ((const candidate *)b)->key);
}

static int candidates_sorted(const candidate *c, size_t from, size_t to)
{
	size_t i;
	for (i = from + 1; i < to; i++)
		if (strcmp(c[i - 1].key, c[i].key) > 0)
			return 0;
	return 1;
}

/* Sort the candidates by key. Those from `listed` on came from the full
 * listing, already in key order: only the log's few before them are
 * sorted, then the two runs merged (a sort of all 10,000,000 paths took
 * seconds). */
static int sort_candidates(vacuum_state *st, size_t listed)
{
	candidate *c = st->candidates.data, *merged;
	size_t n = st->candidates.len, i = 0, j = listed, k = 0;

	if (!candidates_sorted(c, listed, n)) {
		loom_vec_sort(&st->candidates, cmp_candidates);
		return 0;
	}
	if (listed == 0)
		return 0;
	qsort(c, listed, sizeof(candidate), cmp_candidates);
	if (listed == n || strcmp(c[listed - 1].key, c[listed].key) < 0)
		return 0;
	merged = loom_malloc(n * sizeof(candidate));
	if (!merged)
		return OPS_ERR(LOOM_ENOMEM, "out of memory sorting %zu vacuum candidates", n);
	while (i < listed || j < n)
		merged[k++] = j == n || (i < listed && strcmp(c[i].key, c[j].key) < 0) ? c[i++] : c[j++];
	memcpy(c, merged, n * sizeof(candidate));
	loom_free(merged);
	return 0;
}

static int retention_ms(const delta_snapshot *snap, const vacuum_params *p, int64_t *table_ms,
                        int64_t *use_ms)
{
	delta_table_props props;
	LOOM_TRY(delta_props_parse(&snap->metadata, &props));
	*table_ms = props.deleted_file_retention_ms;
	if (p->retention_hours == LOOM_RETENTION_TABLE_DEFAULT) {
		*use_ms = *table_ms;
		return 0;
	}
	if (p->retention_hours < 0)
		return OPS_ERR(LOOM_EINVAL, "vacuum retention of %lld hours is negative",
		               (long long)p->retention_hours);
	*use_ms = p->retention_hours * MS_PER_HOUR;
	if (p->retention_check && *use_ms < *table_ms)
		return OPS_ERR(LOOM_EINVAL,
		               "vacuum retention of %lld hours is below the table's "
		               "delta.deletedFileRetentionDuration of %lld hours: deleting files "
		               "that recent can break readers and writers still using older versions. "
		               "If none is running, disable this check (--no-retention-check, or "
		               "retention_check: false); otherwise use at least %lld hours",
		               (long long)p->retention_hours, (long long)((*table_ms + MS_PER_HOUR - 1) / MS_PER_HOUR),
		               (long long)((*table_ms + MS_PER_HOUR - 1) / MS_PER_HOUR));
	return 0;
}

static int commit_marker(vacuum_state *st, const vacuum_params *p, int64_t read_version,
                         const char *operation, json_t *params, json_t *metrics, int64_t *version)
{
	delta_commit c;
	delta_table_props props;
	LOOM_TRY(delta_props_parse(&st->snap->metadata, &props));
	delta_commit_init(&c, DELTA_COMMIT_INFO_ONLY, read_version, operation);
	c.operation_parameters = params;
	c.operation_metrics = metrics;
	c.in_commit_timestamps = props.enable_in_commit_timestamps;
	c.user_metadata = p->commit_metadata;
	c.n_user_metadata = p->n_commit_metadata;
	c.clock = p->clock;
	c.secrets = p->secrets;
	return delta_commit_write(st->store, &c, version);
}

/* Remove the parent directories of a deleted key, deepest first, while empty. */
static size_t remove_empty_parents(loom_store *store, const char *key)
{
	char dir[4096];
	size_t removed = 0;
	char *slash;
	loom_store_entry e;

	if (!store->remove_empty_dir || strlen(key) >= sizeof(dir))
		return 0;
	strcpy(dir, key);
	while ((slash = strrchr(dir, '/')) != NULL) {
		*slash = '\0';
		if (store->remove_empty_dir(store, dir) < 0)
			break;
		if (store->stat(store, dir, &e) == 0)
			break; /* not empty: its parents are not either */
		removed++;
	}
	return removed;
}

/* The uploads aborted (or, dry, listed) into the result. */
static int fill_uploads(loom_op_result *out, vacuum_state *st, const vacuum_params *p)
{
	int64_t bytes = 0;
	size_t i, n = 0;
	for (i = 0; i < st->uploads.len; i++) {
		const old_upload *u = &LOOM_VEC_AT(&st->uploads, old_upload, i);
		if (!p->dry_run && !u->aborted)
			continue;
		LOOM_TRY(loom_op_result_add_upload(out, u->key, u->initiated_ms, u->bytes));
		bytes += u->bytes > 0 ? u->bytes : 0;
		n++;
	}
	LOOM_TRY(loom_op_result_set_metric(out, p->dry_run ? LOOM_METRIC_NUM_UPLOADS_TO_ABORT
	                                                   : LOOM_METRIC_NUM_ABORTED_UPLOADS,
	                                   (int64_t)n));
	if (st->uploads_denied)
		LOOM_TRY(loom_op_result_set_metric(out, LOOM_METRIC_UPLOADS_NOT_LISTED, 1));
	return loom_op_result_set_metric(out, LOOM_METRIC_SIZE_OF_UPLOADS, bytes);
}

static int fill_result(loom_op_result *out, vacuum_state *st, const vacuum_params *p, size_t deleted,
                       size_t dirs, int64_t version)
{
	size_t i;
	out->kind = LOOM_RESULT_VACUUM;
	out->dry_run = p->dry_run;
	for (i = 0; i < st->candidates.len; i++) {
		const candidate *c = &LOOM_VEC_AT(&st->candidates, candidate, i);
		if (p->dry_run || c->deleted)
			LOOM_TRY(loom_op_result_add_deleted(out, c->key));
	}
	LOOM_TRY(loom_op_result_set_metric(out, p->dry_run ? LOOM_METRIC_NUM_FILES_TO_DELETE : LOOM_METRIC_NUM_DELETED_FILES,
	                                   (int64_t)(p->dry_run ? st->candidates.len : deleted)));
	LOOM_TRY(loom_op_result_set_metric(out, LOOM_METRIC_SIZE_OF_DATA_TO_DELETE, (int64_t)st->candidate_bytes));
	LOOM_TRY(loom_op_result_set_metric(out, LOOM_METRIC_NUM_VACUUMED_DIRECTORIES, (int64_t)dirs));
	LOOM_TRY(loom_op_result_set_metric(out, LOOM_METRIC_VERSION, version));
	return fill_uploads(out, st, p);
}

static int execute(loom_op_result *out, vacuum_state *st, const vacuum_params *p,
                   int64_t table_ms, int64_t use_ms)
{
	json_t *params = json_object(), *metrics = json_object();
	int64_t start_version = -1, end_version = -1;
	const char *keys[VACUUM_DELETE_BATCH];
	int results[VACUUM_DELETE_BATCH];
	loom_error del_err;
	size_t deleted = 0, dirs = 0, aborted = 0, i;
	int rc, del_rc = 0;

	json_object_set_new(params, "retentionCheckEnabled", json_boolean(p->retention_check));
	json_object_set_new(params, "defaultRetentionMillis", json_integer(table_ms));
	if (p->retention_hours != LOOM_RETENTION_TABLE_DEFAULT)
		json_object_set_new(params, "specifiedRetentionMillis", json_integer(use_ms));
	json_object_set_new(metrics, "numFilesToDelete", json_integer((json_int_t)st->candidates.len));
	json_object_set_new(metrics, "sizeOfDataToDelete", json_integer((json_int_t)st->candidate_bytes));
	if (st->uploads.len) /* only then: commits stay as Delta writes them */
		json_object_set_new(metrics, LOOM_METRIC_NUM_UPLOADS_TO_ABORT,
		                    json_integer((json_int_t)st->uploads.len));
	rc = commit_marker(st, p, st->snap->version, "VACUUM START", params, metrics, &start_version);
	json_decref(params);
	json_decref(metrics);
	if (rc < 0)
		return rc;

	for (i = 0; i < st->candidates.len && del_rc == 0; i += VACUUM_DELETE_BATCH) {
		size_t n = st->candidates.len - i < VACUUM_DELETE_BATCH ? st->candidates.len - i
		                                                         : VACUUM_DELETE_BATCH, k;
		if (loom_cancel_requested(p->cancel)) {
			del_rc = OPS_ERR(LOOM_ECANCELLED, "vacuum cancelled after deleting %zu of %zu files",
			                 deleted, st->candidates.len);
			break;
		}
		for (k = 0; k < n; k++)
			keys[k] = LOOM_VEC_AT(&st->candidates, candidate, i + k).key;
		/* one request per batch on object stores; per-key results, so the
		 * files that went are known even when some did not */
		del_rc = loom_store_remove_many(results, st->store, keys, n);
		if (del_rc < 0)
			loom_err_copy(&del_err); /* removing emptied directories may raise others */
		for (k = 0; k < n; k++) {
			candidate *c = &LOOM_VEC_AT(&st->candidates, candidate, i + k);
			if (results[k] < 0)
				continue;
			c->deleted = 1;
			deleted++;
			if (p->full)
				dirs += remove_empty_parents(st->store, c->key);
		}
		if (del_rc < 0) {
			loom_err(del_err.code, del_err.klass, "%s", del_err.message);
			loom_err_wrap("vacuum deleted %zu of %zu files, then failed", deleted,
			              st->candidates.len);
		}
	}

	if (del_rc == 0)
		del_rc = abort_uploads(st, p, &aborted);

	params = json_object();
	metrics = json_object();
	json_object_set_new(params, "status", json_string(del_rc < 0 ? "FAILED" : "COMPLETED"));
	json_object_set_new(metrics, "numDeletedFiles", json_integer((json_int_t)deleted));
	json_object_set_new(metrics, "numVacuumedDirectories", json_integer((json_int_t)dirs));
	if (st->uploads.len)
		json_object_set_new(metrics, LOOM_METRIC_NUM_ABORTED_UPLOADS,
		                    json_integer((json_int_t)aborted));
	{
		loom_error saved;
		loom_err_copy(&saved);
		rc = commit_marker(st, p, start_version, "VACUUM END", params, metrics, &end_version);
		if (del_rc < 0) /* the deletion error is the one to report */
			rc = loom_err(saved.code, saved.klass, "%s", saved.message);
	}
	json_decref(params);
	json_decref(metrics);
	if (rc == 0) /* log temp files an earlier, killed run left */
		delta_log_sweep_temps(st->store, p->clock);
	if (fill_result(out, st, p, deleted, dirs, end_version) < 0 && rc == 0)
		rc = LOOM_ENOMEM;
	return rc;
}

int vacuum_run(loom_op_result *out, loom_store *store, const vacuum_params *p)
{
	vacuum_state st;
	delta_load_opts lo;
	delta_file_scratch sc;
	const char *const *pcols;
	size_t npc, i, listed;
	int64_t table_ms = 0, use_ms = 0;
	int rc;

	memset(&st, 0, sizeof(st));
	st.store = store;
	loom_arena_init(&st.arena, 0);
	loom_vec_init(&st.candidates, sizeof(candidate));
	loom_vec_init(&st.uploads, sizeof(old_upload));

	/* the files in the compact index (issue 30): each is read through a
	 * view, one at a time */
	delta_load_opts_init(&lo);
	lo.keep_stats = 0;
	lo.file_index = 1;
	if ((rc = delta_snapshot_load(&st.snap, store, -1, &lo)) < 0)
		goto done;
	/* vacuumProtocolCheck and every other writer feature: check first. */
	if ((rc = delta_protocol_check(&st.snap->protocol, DELTA_OP_VACUUM)) < 0)
		goto done;
	if ((rc = retention_ms(st.snap, p, &table_ms, &use_ms)) < 0 ||
	    (rc = delta_ict_from(&st.snap->protocol, &st.snap->metadata, &st.ict)) < 0)
		goto done;
	st.cutoff_ms = loom_clock_wall_ms(p->clock) - use_ms;
	pcols = st.snap->metadata.partition_columns;
	npc = st.snap->metadata.num_partition_columns;

	delta_file_scratch_init(&sc);
	for (i = 0; i < st.snap->num_files && rc == 0; i++) {
		delta_file f;
		if ((rc = delta_file_index_get(st.snap->index, DELTA_FILES_LIVE, i, &sc, &f)) == 0)
			rc = protect_file(&st, &f);
		delta_file_scratch_reset(&sc);
	}
	for (i = 0; i < st.snap->num_tombstones && rc == 0; i++) {
		delta_file t;
		if ((rc = delta_file_index_get(st.snap->index, DELTA_FILES_TOMBSTONES, i, &sc, &t)) ==
		        0 &&
		    t.deletion_timestamp >= st.cutoff_ms)
			rc = protect_file(&st, &t);
		delta_file_scratch_reset(&sc);
	}
	for (i = 0; i < st.snap->num_tombstones && rc == 0; i++) {
		delta_file t;
		if ((rc = delta_file_index_get(st.snap->index, DELTA_FILES_TOMBSTONES, i, &sc, &t)) ==
		        0 &&
		    t.deletion_timestamp < st.cutoff_ms)
			rc = consider_removed_file(&st, &t, pcols, npc);
		delta_file_scratch_reset(&sc);
	}
	delta_file_scratch_dispose(&sc);
	if (rc == 0)
		rc = scan_commits(&st, pcols, npc);
	listed = st.candidates.len;
	if (rc == 0 && p->full) {
		full_ctx fc = { &st, pcols, npc, p->cancel };
		rc = loom_store_list_all(store, "", VACUUM_LIST_WIDTH, consider_listed, &fc);
	}
	if (rc == 0)
		rc = find_uploads(&st, p->cancel);
	if (rc == 0)
		rc = sort_candidates(&st, listed);
	if (rc < 0)
		goto done;

	if (p->dry_run || st.candidates.len == 0) {
		/* Nothing to delete writes no commit: a second run changes nothing
		 * but the log temp files a killed run left and the open uploads -
		 * neither is part of the table, so neither needs a commit. */
		size_t aborted = 0;
		if (!p->dry_run) {
			delta_log_sweep_temps(store, p->clock);
			rc = abort_uploads(&st, p, &aborted);
		}
		if (fill_result(out, &st, p, 0, 0, -1) < 0 && rc == 0)
			rc = LOOM_ENOMEM;
		goto done;
	}
	rc = execute(out, &st, p, table_ms, use_ms);
done:
	delta_snapshot_free(st.snap);
	loom_map_dispose(&st.protected_keys);
	loom_map_dispose(&st.candidate_keys);
	loom_vec_dispose(&st.candidates);
	loom_vec_dispose(&st.uploads);
	loom_arena_dispose(&st.arena);
	return rc;
}
