/* ops/log_cleanup.c - delete expired _delta_log files (PROTOCOL.md
 * "Metadata Cleanup"; Spark MetadataCleanup.cleanUpExpiredLogs).
 *
 * 1. cutoff = now - delta.logRetentionDuration, truncated down to midnight
 *    UTC like Spark (so a file is kept at least the retention, and up to a
 *    day more).
 * 2. C = the newest commit whose file is older than the cutoff (mtime <=
 *    cutoff); K = the newest complete, non-empty checkpoint at or before C.
 *    No K: nothing is deleted (the table could not be rebuilt otherwise).
 * 3. Delete, oldest first, files whose own mtime is <= cutoff: commits,
 *    .crc files and checkpoints of any kind with version < K; compaction
 *    files x.y.compacted.json with x <= K (they would need state from
 *    before K); the Hadoop side file ".<name>.crc" of each of those.
 *    Sidecars only when no checkpoint left can reference one (no V2
 *    checkpoint remains and the table lacks v2Checkpoint).
 * Never: K, anything after K, _last_checkpoint. Every version >= K stays
 * rebuildable from K and the commits after it, which are all kept, so the
 * latest snapshot is unchanged. Deleting oldest first means a crash leaves
 * a shorter but still valid history. */
#include <stdio.h>
#include <string.h>

#include "delta/log_listing.h"
#include "loom/metrics.h"
#include "delta/props.h"
#include "delta/protocol.h"
#include "delta/snapshot.h"
#include "ops/checkpoint.h"
#include "util/alloc.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/vec.h"

#define OPS_ERR(code, ...) loom_err((code), LOOM_ERRCLASS_OPS, __VA_ARGS__)
#define MS_PER_DAY 86400000LL
#define SIDECAR_DIR DELTA_LOG_DIR "_sidecars/"

typedef struct doomed {
	char *key;          /* owned */
	uint64_t size;
} doomed;

typedef struct cleanup_state {
	loom_store *store;
	int64_t cutoff_ms;
	loom_vec doomed;    /* doomed, in deletion order */
	uint64_t bytes;
	int sidecars_ok;    /* no remaining checkpoint can reference a sidecar */
} cleanup_state;

static int push(cleanup_state *st, const char *key, uint64_t size)
{
	doomed d;
	size_t n = strlen(key);
	d.key = loom_malloc(n + 1);
	if (!d.key)
		return LOOM_ENOMEM;
	memcpy(d.key, key, n + 1);
	d.size = size;
	if (loom_vec_push(&st->doomed, &d) < 0) {
		loom_free(d.key);
		return LOOM_ENOMEM;
	}
	st->bytes += size;
	return 0;
}

/* The Hadoop checksum side file of `key` (".<base>.crc"), if old enough. */
static int push_side_crc(cleanup_state *st, const char *key)
{
	const char *base = strrchr(key, '/');
	loom_store_entry e;
	loom_buf side = LOOM_BUF_INIT;
	int rc;
	base = base ? base + 1 : key;
	rc = loom_buf_printf(&side, "%.*s.%s.crc", (int)(base - key), key, base);
	if (rc == 0) {
		rc = st->store->stat(st->store, side.ptr, &e);
		if (rc == 0 && e.mtime_ms <= st->cutoff_ms)
			rc = push(st, side.ptr, e.size);
		else if (rc == LOOM_ENOTFOUND || rc == 0) {
			loom_error_clear();
			rc = 0;
		}
	}
	loom_buf_dispose(&side);
	return rc;
}

static int sidecar_cb(const loom_store_entry *e, void *payload)
{
	cleanup_state *st = payload;
	if (e->is_dir || e->mtime_ms > st->cutoff_ms)
		return 0;
	return push(st, e->key, e->size);
}

/* K: the newest usable checkpoint at or before `cutoff_commit`, or -1. */
static int64_t pick_checkpoint(const delta_log_listing *l, int64_t cutoff_commit)
{
	size_t i, k;
	for (i = 0; i < l->checkpoints.len; i++) {
		const delta_checkpoint_ref *r = loom_vec_at(&l->checkpoints, i);
		int empty = 0;
		if (r->version > cutoff_commit)
			continue;
		for (k = 0; k < r->count; k++) {
			const delta_log_file *f = loom_vec_at(&l->files, r->first + k);
			if (f->size == 0)
				empty = 1;
		}
		if (!empty)
			return r->version;
	}
	return -1;
}

static int plan(cleanup_state *st, const delta_log_listing *l, int64_t keep)
{
	size_t i;
	for (i = 0; i < l->files.len; i++) {
		const delta_log_file *f = loom_vec_at(&l->files, i);
		int go = 0;
		if (f->mtime_ms > st->cutoff_ms)
			continue;
		switch (f->name.kind) {
		case DELTA_LOG_COMMIT:
		case DELTA_LOG_CRC:
		case DELTA_LOG_CHECKPOINT:
		case DELTA_LOG_CHECKPOINT_PART:
		case DELTA_LOG_CHECKPOINT_V2:
			go = f->name.version < keep;
			break;
		case DELTA_LOG_COMPACTION:
			go = f->name.version <= keep;
			break;
		default:
			break;
		}
		if (!go)
			continue;
		LOOM_TRY(push(st, f->key, f->size));
		LOOM_TRY(push_side_crc(st, f->key));
	}
	/* Any checkpoint that stays and may reference sidecars? */
	for (i = 0; i < l->files.len; i++) {
		const delta_log_file *f = loom_vec_at(&l->files, i);
		if (f->name.kind == DELTA_LOG_CHECKPOINT_V2 && f->name.version >= keep)
			st->sidecars_ok = 0;
	}
	if (st->sidecars_ok)
		LOOM_TRY(st->store->list(st->store, SIDECAR_DIR, NULL, 0, sidecar_cb, st));
	return 0;
}

int log_cleanup_run(loom_op_result *out, loom_store *store, const log_cleanup_params *p)
{
	cleanup_state st;
	delta_log_listing l;
	delta_snapshot *snap = NULL;
	delta_load_opts lo;
	delta_table_props props;
	const loom_clock *clock = p->clock ? p->clock : loom_clock_system();
	int64_t retention, cutoff, cutoff_commit = -1, keep = -1;
	size_t i;
	int rc, listed = 0;

	memset(&st, 0, sizeof(st));
	loom_vec_init(&st.doomed, sizeof(doomed));
	st.store = store;
	out->kind = LOOM_RESULT_VACUUM;
	out->dry_run = p->dry_run;

	delta_load_opts_init(&lo);
	lo.keep_stats = 0;
	if ((rc = delta_snapshot_load(&snap, store, -1, &lo)) < 0)
		goto done;
	if ((rc = delta_protocol_check(&snap->protocol, DELTA_OP_LOG_CLEANUP)) < 0)
		goto done;
	if ((rc = delta_props_parse(&snap->metadata, &props)) < 0)
		goto done;
	if (!props.enable_expired_log_cleanup && !p->force) {
		rc = OPS_ERR(LOOM_EUNSUPPORTED,
		             "the table sets delta.enableExpiredLogCleanup=false: log cleanup "
		             "refused (force it with --force)");
		goto done;
	}
	retention = p->retention_hours >= 0 ? p->retention_hours * 3600000LL
	                                    : props.log_retention_ms;
	cutoff = loom_clock_wall_ms(clock) - retention;
	cutoff -= ((cutoff % MS_PER_DAY) + MS_PER_DAY) % MS_PER_DAY; /* midnight UTC */
	st.cutoff_ms = cutoff;
	st.sidecars_ok = !delta_protocol_has_feature(&snap->protocol, "v2Checkpoint");

	if ((rc = delta_log_list(store, &l)) < 0)
		goto done;
	listed = 1;
	for (i = 0; i < l.files.len; i++) {
		const delta_log_file *f = loom_vec_at(&l.files, i);
		if (f->name.kind == DELTA_LOG_COMMIT && f->mtime_ms <= cutoff &&
		    f->name.version > cutoff_commit)
			cutoff_commit = f->name.version;
	}
	/* never past the snapshot just validated */
	if (cutoff_commit > snap->version)
		cutoff_commit = snap->version;
	if (cutoff_commit >= 0)
		keep = pick_checkpoint(&l, cutoff_commit);
	if (keep >= 0 && (rc = plan(&st, &l, keep)) < 0)
		goto done;

	for (i = 0; i < st.doomed.len; i++) {
		const doomed *d = loom_vec_at(&st.doomed, i);
		if (!p->dry_run && (rc = store->remove(store, d->key)) < 0)
			goto done;
		if ((rc = loom_op_result_add_deleted(out, d->key)) < 0)
			goto done;
	}
	out->dry_run = p->dry_run;
	if ((rc = loom_op_result_set_metric(out, "checkpointVersion", keep)) < 0 ||
	    (rc = loom_op_result_set_metric(out, "cutoffMs", cutoff)) < 0 ||
	    (rc = loom_op_result_set_metric(out, p->dry_run ? LOOM_METRIC_NUM_FILES_TO_DELETE : LOOM_METRIC_NUM_DELETED_FILES,
	                                    (int64_t)st.doomed.len)) < 0 ||
	    (rc = loom_op_result_set_metric(out, LOOM_METRIC_SIZE_OF_DATA_TO_DELETE, (int64_t)st.bytes)) < 0)
		goto done;
done:
	for (i = 0; i < st.doomed.len; i++)
		loom_free(((doomed *)loom_vec_at(&st.doomed, i))->key);
	loom_vec_dispose(&st.doomed);
	if (listed)
		delta_log_listing_dispose(&l);
	delta_snapshot_free(snap);
	return rc;
}
