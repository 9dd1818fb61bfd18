/* ops/log/log_cleanup.c - delete expired _delta_log files (PROTOCOL.md
 * "Metadata Cleanup"; Spark MetadataCleanup.cleanUpExpiredLogs).
 *
 * 1. cutoff = now - delta.logRetentionDuration, truncated down to midnight
 *    UTC like Spark (so a file is kept at least the retention, and up to a
 *    day more).
 * 2. C = the newest commit whose time is not after the cutoff; K = the
 *    newest usable checkpoint at or before C (non-empty files, and every
 *    sidecar it references present). No K: nothing is deleted (the table
 *    could not be rebuilt otherwise). A commit's time is its file's
 *    modification time, or with in-commit timestamps (from their
 *    enablement version on) its inCommitTimestamp, which only grows, so C
 *    is found by binary search over those versions.
 * 3. Delete files of versions < K that are old enough: commits, .crc files
 *    and checkpoints of any kind; compaction files x.y.compacted.json with
 *    x <= K (they would need state from before K); the Hadoop side file
 *    ".<name>.crc" of each. "Old enough": a version covered by in-commit
 *    timestamps is (its ICT is at most C's); any other file needs its own
 *    modification time <= cutoff.
 * 4. Sidecars in _delta_log/_sidecars/ that no checkpoint left after step 3
 *    references, and whose modification time is <= cutoff (so an
 *    in-progress checkpoint's sidecars are never touched).
 * checkpointProtection: with delta.requireCheckpointProtectionBeforeVersion
 * = P > 0, checkpoints before P may only go together with all of the
 * history before P. So cleanup runs only when K >= P and every file of a
 * version < P is old enough; otherwise no commit or checkpoint is deleted
 * (the result says so) and only unreferenced sidecars go.
 * Order: on v2Checkpoint tables whose newest checkpoint is UUID-named, a
 * classic-named copy of it is written first (see compat_checkpoint); then
 * commits, .crc and compaction files (oldest first), then checkpoints
 * (PROTOCOL.md's checkpointProtection rule d), then sidecars.
 * Also the stale temp files killed writers left in _delta_log/
 * (delta/log_temps.h), whatever the retention.
 * Never: K, anything after K, _last_checkpoint. Every version >= K stays
 * rebuildable from K and the commits after it, which are all kept, so the
 * latest snapshot is unchanged; a crash leaves a shorter valid history. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "delta/checkpoint.h"
#include "delta/ict.h"
#include "delta/log_listing.h"
#include "delta/log_temps.h"
#include "loom/metrics.h"
#include "delta/props.h"
#include "delta/protocol.h"
#include "delta/snapshot.h"
#include "ops/log/checkpoint.h"
#include "util/alloc.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/hashmap.h"
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
	const delta_log_listing *l;
	delta_ict ict;
	int64_t cutoff_ms;
	loom_vec first;     /* doomed: commits, .crc, compactions */
	loom_vec second;    /* doomed: checkpoints */
	loom_vec sidecars;  /* doomed: unreferenced sidecars */
	loom_map gone;      /* keys planned for deletion (borrowed from doomed) */
	loom_map refs;      /* sidecar names still referenced (owned keys) */
	uint64_t bytes;
	int64_t temps;      /* stale temp files of killed writers among doomed */
} cleanup_state;

static int push(cleanup_state *st, loom_vec *v, const char *key, uint64_t size)
{
	doomed d;
	d.key = loom_strdup(key);
	if (!d.key)
		return LOOM_ENOMEM;
	d.size = size;
	if (loom_vec_push(v, &d) < 0 || loom_map_puts(&st->gone, d.key, d.key) < 0) {
		loom_free(d.key);
		return LOOM_ENOMEM;
	}
	st->bytes += size;
	return 0;
}

/* The Hadoop checksum side file of `key` (".<base>.crc"): it goes with its
 * file when that file's version is timed by an in-commit timestamp, else
 * when its own mtime is old enough. */
static int push_side_crc(cleanup_state *st, loom_vec *v, const char *key, int64_t version)
{
	const char *base = strrchr(key, '/');
	loom_store_entry e;
	loom_buf side = LOOM_BUF_INIT;
	int rc;
	base = base ? base + 1 : key;
	rc = loom_buf_printf(&side, "%.*s.%s.crc", (int)(base - key), key, base);
	if (rc == 0) {
		rc = st->store->stat(st->store, side.ptr, &e);
		if (rc == 0 && (delta_ict_covers(&st->ict, version) || e.mtime_ms <= st->cutoff_ms))
			rc = push(st, v, side.ptr, e.size);
		else if (rc == LOOM_ENOTFOUND || rc == 0) {
			loom_error_clear();
			rc = 0;
		}
	}
	loom_buf_dispose(&side);
	return rc;
}

static int temp_cb(const char *key, uint64_t size, void *payload)
{
	cleanup_state *st = payload;
	st->temps++;
	return push(st, &st->first, key, size);
}

/* ---- the cutoff commit -------------------------------------------------- */

/* Is commit `v`'s in-commit timestamp <= cutoff? A commit without one (or
 * missing) counts as newer: the search then stops before it. */
static int ict_not_after(cleanup_state *st, int64_t v, int *yes)
{
	const delta_log_file *f = delta_log_find_commit(st->l, v);
	int64_t ts = -1;
	*yes = 0;
	if (!f)
		return 0;
	LOOM_TRY(delta_ict_read(st->store, f->key, &ts));
	*yes = ts >= 0 && ts <= st->cutoff_ms;
	return 0;
}

/* C: the newest commit whose time is not after the cutoff, or -1. */
static int cutoff_commit(cleanup_state *st, int64_t *out)
{
	const delta_log_listing *l = st->l;
	int64_t best = -1, lo, hi;
	size_t i;
	int yes;

	/* commits timed by their files: all, or those before ICT was enabled */
	for (i = 0; i < l->files.len; i++) {
		const delta_log_file *f = loom_vec_at(&l->files, i);
		if (f->name.kind == DELTA_LOG_COMMIT && !delta_ict_covers(&st->ict, f->name.version) &&
		    f->mtime_ms <= st->cutoff_ms && f->name.version > best)
			best = f->name.version;
	}
	/* commits timed by ICT, strictly increasing: the last one <= cutoff */
	if (st->ict.enabled && l->latest_commit >= 0) {
		lo = st->ict.enablement_version > l->earliest_commit ? st->ict.enablement_version
		                                                     : l->earliest_commit;
		hi = l->latest_commit;
		if (lo <= hi) {
			LOOM_TRY(ict_not_after(st, lo, &yes));
			if (yes) {
				while (lo < hi) { /* invariant: ICT(lo) <= cutoff */
					int64_t mid = lo + (hi - lo + 1) / 2;
					LOOM_TRY(ict_not_after(st, mid, &yes));
					if (yes)
						lo = mid;
					else
						hi = mid - 1;
				}
				if (lo > best)
					best = lo;
			}
		}
	}
	*out = best;
	return 0;
}

/* ---- the kept checkpoint ------------------------------------------------ */

static int is_checkpoint(const delta_log_file *f)
{
	return f->name.kind == DELTA_LOG_CHECKPOINT || f->name.kind == DELTA_LOG_CHECKPOINT_PART ||
	       f->name.kind == DELTA_LOG_CHECKPOINT_V2;
}

/* Can this file reference sidecars? UUID-named checkpoints always may,
 * classic ones only on tables with v2Checkpoint (the V2 spec). */
static int may_reference_sidecars(const delta_log_file *f, int v2_table)
{
	return f->name.kind == DELTA_LOG_CHECKPOINT_V2 ||
	       (v2_table && f->name.kind == DELTA_LOG_CHECKPOINT);
}

typedef struct present_ctx {
	cleanup_state *st;
	int missing;
} present_ctx;

static int check_present(void *ctx, const char *name)
{
	present_ctx *pc = ctx;
	loom_buf key = LOOM_BUF_INIT;
	loom_store_entry e;
	int rc = loom_buf_printf(&key, SIDECAR_DIR "%s", name);
	if (rc == 0) {
		rc = pc->st->store->stat(pc->st->store, key.ptr, &e);
		if (rc == LOOM_ENOTFOUND) {
			loom_error_clear();
			pc->missing = 1;
			rc = 0;
		}
	}
	loom_buf_dispose(&key);
	return rc;
}

/* K: the newest usable checkpoint at or before `c`, or -1. Usable: no
 * empty file, and (V2) every referenced sidecar present. */
static int pick_checkpoint(cleanup_state *st, int64_t c, int v2_table, int64_t *out)
{
	const delta_log_listing *l = st->l;
	size_t i, k;
	*out = -1;
	for (i = 0; i < l->checkpoints.len; i++) {
		const delta_checkpoint_ref *r = loom_vec_at(&l->checkpoints, i);
		present_ctx pc = { st, 0 };
		if (r->version > c)
			continue;
		for (k = 0; k < r->count; k++) {
			const delta_log_file *f = loom_vec_at(&l->files, r->first + k);
			if (f->size == 0)
				pc.missing = 1;
			else if (may_reference_sidecars(f, v2_table))
				LOOM_TRY(delta_checkpoint_sidecar_refs(st->store, f->key, f->name.is_json,
				                                       check_present, &pc));
		}
		if (!pc.missing) {
			*out = r->version;
			return 0;
		}
	}
	return 0;
}

/* ---- the plan ----------------------------------------------------------- */

/* May the file of version `v` with this mtime go (step 3's "old enough")? */
static int old_enough(const cleanup_state *st, int64_t v, int64_t mtime_ms)
{
	return delta_ict_covers(&st->ict, v) || mtime_ms <= st->cutoff_ms;
}

/* Would step 3 delete this file for kept checkpoint `keep`? */
static int expired(const cleanup_state *st, const delta_log_file *f, int64_t keep)
{
	switch (f->name.kind) {
	case DELTA_LOG_COMMIT:
	case DELTA_LOG_CRC:
	case DELTA_LOG_CHECKPOINT:
	case DELTA_LOG_CHECKPOINT_PART:
	case DELTA_LOG_CHECKPOINT_V2:
		return f->name.version < keep && old_enough(st, f->name.version, f->mtime_ms);
	case DELTA_LOG_COMPACTION:
		return f->name.version <= keep && old_enough(st, f->name.version, f->mtime_ms);
	default:
		return 0;
	}
}

static int plan_log_files(cleanup_state *st, int64_t keep)
{
	size_t i;
	for (i = 0; i < st->l->files.len; i++) {
		const delta_log_file *f = loom_vec_at(&st->l->files, i);
		loom_vec *v = is_checkpoint(f) ? &st->second : &st->first;
		if (!expired(st, f, keep))
			continue;
		LOOM_TRY(push(st, v, f->key, f->size));
		LOOM_TRY(push_side_crc(st, v, f->key, f->name.version));
	}
	return 0;
}

/* checkpointProtection: may checkpoints before P be removed by this run?
 * Only when all history before P goes at once. *why explains a refusal. */
static int protection_allows(const cleanup_state *st, int64_t p, int64_t keep, const char **why)
{
	size_t i;
	if (keep < p) {
		*why = "the checkpoint to keep is older than "
		       "delta.requireCheckpointProtectionBeforeVersion";
		return 0;
	}
	for (i = 0; i < st->l->files.len; i++) {
		const delta_log_file *f = loom_vec_at(&st->l->files, i);
		if (f->name.kind == DELTA_LOG_LAST_CHECKPOINT || f->name.version >= p)
			continue;
		if (!expired(st, f, keep)) {
			*why = "not every log file before delta.requireCheckpointProtectionBeforeVersion "
			       "has expired, and that history may only go all at once";
			return 0;
		}
	}
	return 1;
}

static int note_ref(void *ctx, const char *name)
{
	cleanup_state *st = ctx;
	char *copy;
	if (loom_map_gets(&st->refs, name))
		return 0;
	copy = loom_strdup(name);
	if (!copy || loom_map_puts(&st->refs, copy, copy) < 0) {
		loom_free(copy);
		return LOOM_ENOMEM;
	}
	return 0;
}

static int sidecar_cb(const loom_store_entry *e, void *payload)
{
	cleanup_state *st = payload;
	const char *name = e->key + strlen(SIDECAR_DIR);
	if (e->is_dir || e->is_symlink || e->mtime_ms > st->cutoff_ms ||
	    loom_map_gets(&st->refs, name))
		return 0;
	return push(st, &st->sidecars, e->key, e->size);
}

/* Step 4: sidecars no remaining checkpoint references. */
static int plan_sidecars(cleanup_state *st, int v2_table)
{
	size_t i;
	for (i = 0; i < st->l->files.len; i++) {
		const delta_log_file *f = loom_vec_at(&st->l->files, i);
		if (!is_checkpoint(f) || loom_map_gets(&st->gone, f->key) ||
		    !may_reference_sidecars(f, v2_table))
			continue;
		LOOM_TRY(delta_checkpoint_sidecar_refs(st->store, f->key, f->name.is_json, note_ref, st));
	}
	return st->store->list(st->store, SIDECAR_DIR, NULL, 0, sidecar_cb, st);
}

static void state_dispose(cleanup_state *st)
{
	loom_vec *vs[3] = { &st->first, &st->second, &st->sidecars };
	size_t i, k, pos = 0;
	const char *key;
	size_t klen;
	void *val;
	for (k = 0; k < 3; k++) {
		for (i = 0; i < vs[k]->len; i++)
			loom_free(((doomed *)loom_vec_at(vs[k], i))->key);
		loom_vec_dispose(vs[k]);
	}
	while (loom_map_next(&st->refs, &pos, &key, &klen, &val))
		loom_free(val);
	loom_map_dispose(&st->refs);
	loom_map_dispose(&st->gone);
}

/* PROTOCOL.md "Handling Backward compatibility while moving to UUID-named
 * v2 Checkpoints": writers should now and then write a classic-named V2
 * checkpoint, so that clients unaware of V2 find one, read the protocol and
 * fail cleanly instead of meeting a log whose start was deleted. Like Spark
 * (MetadataCleanup.createSinglePartCheckpointForBackwardCompat) it is done
 * when a cleanup is about to delete commits or checkpoints and the newest
 * checkpoint is UUID-named with no classic one beside it: the classic file
 * holds the same state, every file action inline. *written: 1 when one was
 * (or, dry, would be) written. */
static int compat_checkpoint(cleanup_state *st, int64_t min_tombstone_ms, int dry_run,
                             int *written)
{
	const delta_checkpoint_ref *newest, *r;
	delta_snapshot *snap = NULL;
	delta_load_opts lo;
	loom_store_writer *w = NULL;
	ck_counts counts;
	char key[96];
	size_t i;
	int rc;

	*written = 0;
	if (!st->l->checkpoints.len || (!st->first.len && !st->second.len))
		return 0;
	newest = loom_vec_at(&st->l->checkpoints, 0);
	if (newest->kind != DELTA_CKPT_V2_JSON && newest->kind != DELTA_CKPT_V2_PARQUET)
		return 0;
	for (i = 0; i < st->l->checkpoints.len; i++) {
		r = loom_vec_at(&st->l->checkpoints, i);
		if (r->version == newest->version && r->kind == DELTA_CKPT_CLASSIC)
			return 0;
	}
	if (dry_run) {
		*written = 1;
		return 0;
	}
	delta_load_opts_init(&lo);
	if ((rc = delta_snapshot_load(&snap, st->store, newest->version, &lo)) < 0)
		return loom_err_wrap("compatibility checkpoint of version %lld",
		                     (long long)newest->version);
	if (snap->checkpoint_version != newest->version) {
		/* the UUID checkpoint was not usable: do not copy around it */
		delta_snapshot_free(snap);
		return 0;
	}
	snprintf(key, sizeof(key), DELTA_LOG_DIR "%020lld.checkpoint.parquet",
	         (long long)newest->version);
	rc = st->store->writer_open(st->store, key, LOOM_PUT_IF_ABSENT, &w);
	if (rc == 0 && (rc = checkpoint_write_parquet(w, snap, min_tombstone_ms, CK_LAYOUT_V2,
	                                              &counts)) < 0)
		w->abort(w);
	else if (rc == 0 && (rc = w->commit(w)) == LOOM_EEXISTS) {
		loom_error_clear();
		rc = 0;
	} else if (rc == 0) {
		*written = 1;
	}
	delta_snapshot_free(snap);
	return rc;
}

static int delete_all(cleanup_state *st, loom_op_result *out, int dry_run,
                      const loom_cancel *cancel, size_t *count)
{
	loom_vec *vs[3] = { &st->first, &st->second, &st->sidecars };
	size_t i, k, total = st->first.len + st->second.len + st->sidecars.len;
	*count = 0;
	for (k = 0; k < 3; k++)
		for (i = 0; i < vs[k]->len; i++) {
			const doomed *d = loom_vec_at(vs[k], i);
			if (loom_cancel_requested(cancel))
				return OPS_ERR(LOOM_ECANCELLED, "log cleanup cancelled after %zu of %zu files",
				               *count, total);
			if (!dry_run)
				LOOM_TRY(st->store->remove(st->store, d->key));
			LOOM_TRY(loom_op_result_add_deleted(out, d->key));
			(*count)++;
		}
	return 0;
}

static int protection_version(const delta_snapshot *snap, int64_t *out)
{
	const char *v;
	char *end;
	*out = 0;
	if (!delta_protocol_has_feature(&snap->protocol, "checkpointProtection"))
		return 0;
	v = delta_snapshot_property(snap, "delta.requireCheckpointProtectionBeforeVersion");
	if (!v)
		return 0;
	*out = strtoll(v, &end, 10);
	if (end == v || *end || *out < 0)
		return OPS_ERR(LOOM_EINVAL, "table property "
		               "delta.requireCheckpointProtectionBeforeVersion = \"%s\": expected a "
		               "whole number >= 0", v);
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
	const char *why = NULL;
	int64_t retention, cutoff, c = -1, keep = -1, protect = 0;
	size_t count = 0;
	int rc, listed = 0, v2_table, compat = 0;

	memset(&st, 0, sizeof(st));
	loom_vec_init(&st.first, sizeof(doomed));
	loom_vec_init(&st.second, sizeof(doomed));
	loom_vec_init(&st.sidecars, sizeof(doomed));
	st.store = store;
	out->kind = LOOM_RESULT_VACUUM;
	out->dry_run = p->dry_run;

	/* only the protocol, the properties and the version are read: the
	 * files go to the compact file index, where they cost least (issue 30;
	 * health runs this as a dry run) */
	delta_load_opts_init(&lo);
	lo.keep_stats = 0;
	lo.file_index = 1;
	if ((rc = delta_snapshot_load(&snap, store, -1, &lo)) < 0)
		goto done;
	if ((rc = delta_protocol_check(&snap->protocol, DELTA_OP_LOG_CLEANUP)) < 0)
		goto done;
	if ((rc = delta_props_parse(&snap->metadata, &props)) < 0 ||
	    (rc = delta_ict_from(&snap->protocol, &snap->metadata, &st.ict)) < 0 ||
	    (rc = protection_version(snap, &protect)) < 0)
		goto done;
	if (!props.enable_expired_log_cleanup && !p->force) {
		rc = OPS_ERR(LOOM_EUNSUPPORTED,
		             "the table sets delta.enableExpiredLogCleanup=false: log cleanup "
		             "refused (force it with --force)");
		goto done;
	}
	v2_table = delta_protocol_has_feature(&snap->protocol, "v2Checkpoint");
	retention = p->retention_hours >= 0 ? p->retention_hours * 3600000LL
	                                    : props.log_retention_ms;
	cutoff = loom_clock_wall_ms(clock) - retention;
	cutoff -= ((cutoff % MS_PER_DAY) + MS_PER_DAY) % MS_PER_DAY; /* midnight UTC */
	st.cutoff_ms = cutoff;

	if ((rc = delta_log_list(store, &l)) < 0)
		goto done;
	listed = 1;
	st.l = &l;
	if ((rc = cutoff_commit(&st, &c)) < 0)
		goto done;
	/* never past the snapshot just validated */
	if (c > snap->version)
		c = snap->version;
	if (c >= 0 && (rc = pick_checkpoint(&st, c, v2_table, &keep)) < 0)
		goto done;
	if (keep >= 0) {
		if (protect > 0 && !protection_allows(&st, protect, keep, &why))
			rc = 0; /* keep every commit and checkpoint; sidecars below */
		else
			rc = plan_log_files(&st, keep);
		if (rc < 0)
			goto done;
	}
	if (v2_table && (rc = plan_sidecars(&st, v2_table)) < 0)
		goto done;
	if (v2_table && (rc = compat_checkpoint(&st, loom_clock_wall_ms(clock) -
	                                              props.deleted_file_retention_ms,
	                                        p->dry_run, &compat)) < 0)
		goto done;
	/* and the temp files killed writers left (delta/log_temps.h) */
	if ((rc = delta_log_stale_temps(store, clock, temp_cb, &st)) < 0)
		goto done;

	if ((rc = delete_all(&st, out, p->dry_run, p->cancel, &count)) < 0)
		goto done;
	out->dry_run = p->dry_run;
	if ((rc = loom_op_result_set_metric(out, LOOM_METRIC_CHECKPOINT_VERSION, keep)) < 0 ||
	    (rc = loom_op_result_set_metric(out, LOOM_METRIC_CUTOFF_MS, cutoff)) < 0 ||
	    (rc = loom_op_result_set_metric(out, LOOM_METRIC_CUTOFF_COMMIT, c)) < 0 ||
	    (rc = loom_op_result_set_metric(out, p->dry_run ? LOOM_METRIC_NUM_FILES_TO_DELETE : LOOM_METRIC_NUM_DELETED_FILES,
	                                    (int64_t)count)) < 0 ||
	    (rc = loom_op_result_set_metric(out, LOOM_METRIC_NUM_SIDECARS_DELETED, (int64_t)st.sidecars.len)) < 0 ||
	    (rc = loom_op_result_set_metric(out, LOOM_METRIC_SIZE_OF_DATA_TO_DELETE, (int64_t)st.bytes)) < 0 ||
	    (rc = loom_op_result_set_metric(out, LOOM_METRIC_IN_COMMIT_TIMESTAMPS, st.ict.enabled)) < 0 ||
	    (rc = loom_op_result_set_metric(out, LOOM_METRIC_COMPAT_CHECKPOINT_WRITTEN, compat)) < 0 ||
	    (rc = loom_op_result_set_metric(out, LOOM_METRIC_NUM_STALE_TEMP_FILES, st.temps)) < 0)
		goto done;
	if (protect > 0 &&
	    ((rc = loom_op_result_set_metric(out, LOOM_METRIC_CHECKPOINT_PROTECTION_VERSION, protect)) < 0 ||
	     (rc = loom_op_result_set_metric(out, LOOM_METRIC_CHECKPOINT_PROTECTION_BLOCKED, why != NULL)) < 0))
		goto done;
done:
	state_dispose(&st);
	if (listed)
		delta_log_listing_dispose(&l);
	delta_snapshot_free(snap);
	return rc;
}
