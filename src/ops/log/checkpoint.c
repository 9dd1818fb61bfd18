/* ops/log/checkpoint.c - the checkpoint operation: choose the kind, write it,
 * move _last_checkpoint forward.
 *
 * Kind (as Delta Spark chooses it, Checkpoints.getV2CheckpointFormatOpt):
 * a table that supports v2Checkpoint and sets delta.checkpointPolicy=v2
 * gets a UUID-named V2 checkpoint (checkpoint_v2.c); every other table a
 * classic V1 checkpoint, which PROTOCOL.md always allows (never
 * multi-part, which v2Checkpoint tables forbid).
 *
 * Order of effects: the checkpoint files are published first (put-if-
 * absent), then _last_checkpoint is replaced (atomic put). A crash at any
 * point leaves either no checkpoint (maybe a hidden temp file or an
 * unreferenced sidecar) or a complete one; a stale _last_checkpoint is only
 * a hint. */
#include "ops/log/checkpoint.h"
#include "loom/metrics.h"

#include <stdio.h>
#include <string.h>

#include "delta/last_checkpoint.h"
#include "delta/log_listing.h"
#include "delta/log_temps.h"
#include "delta/props.h"
#include "delta/protocol.h"
#include "loom/checkpoint.h"
#include "parquet/reader.h"
#include "util/error.h"

#define OPS_ERR(code, ...) loom_err((code), LOOM_ERRCLASS_OPS, __VA_ARGS__)

/* The complete checkpoint of a version that already exists: what a
 * _last_checkpoint pointing at it needs. */
typedef struct existing_checkpoint {
	delta_checkpoint_kind kind;  /* DELTA_CKPT_NONE: there is none */
	size_t parts;                /* files (multi-part), else 1 */
	uint64_t bytes;              /* their total size */
	char first_key[160];         /* the (first) file */
} existing_checkpoint;

/* Find the preferred complete checkpoint of `version` (V2 > multi-part >
 * classic, as the listing orders them). */
static int checkpoint_exists(loom_store *store, int64_t version, existing_checkpoint *ex)
{
	delta_log_listing l;
	size_t i, k;
	int rc;
	memset(ex, 0, sizeof(*ex));
	if ((rc = delta_log_list(store, &l)) < 0)
		return rc;
	for (i = 0; i < l.checkpoints.len; i++) {
		const delta_checkpoint_ref *r = loom_vec_at(&l.checkpoints, i);
		if (r->version != version || ex->kind != DELTA_CKPT_NONE)
			continue;
		ex->kind = r->kind;
		ex->parts = r->count;
		for (k = 0; k < r->count; k++)
			ex->bytes += ((const delta_log_file *)loom_vec_at(&l.files, r->first + k))->size;
		snprintf(ex->first_key, sizeof(ex->first_key), "%s",
		         ((const delta_log_file *)loom_vec_at(&l.files, r->first))->key);
	}
	delta_log_listing_dispose(&l);
	return 0;
}

static json_t *classic_last_checkpoint(int64_t version, const ck_counts *c)
{
	json_t *lc = json_object();
	if (!lc)
		return NULL;
	json_object_set_new(lc, "version", json_integer(version));
	json_object_set_new(lc, "size", json_integer(c->actions));
	json_object_set_new(lc, "sizeInBytes", json_integer((json_int_t)c->bytes));
	json_object_set_new(lc, "numOfAddFiles", json_integer(c->adds));
	return lc;
}

/* A classic V1 checkpoint: <v>.checkpoint.parquet. created = 0 when
 * another writer published the same file first (theirs stays). */
static int write_classic(loom_store *store, const delta_snapshot *snap, int64_t min_ts,
                         const loom_cancel *cancel, ck_counts *c, int *created)
{
	char key[96];
	loom_store_writer *w = NULL;
	int rc;
	snprintf(key, sizeof(key), DELTA_LOG_DIR "%020lld.checkpoint.parquet", (long long)snap->version);
	*created = 0;
	LOOM_TRY(store->writer_open(store, key, LOOM_PUT_IF_ABSENT, &w));
	rc = checkpoint_write_parquet(w, snap, min_ts, CK_LAYOUT_V1, c);
	if (rc == 0 && loom_cancel_requested(cancel))
		rc = OPS_ERR(LOOM_ECANCELLED, "checkpoint of version %lld cancelled before it was published",
		             (long long)snap->version);
	if (rc < 0) {
		w->abort(w);
		return rc;
	}
	rc = w->commit(w);
	if (rc == LOOM_EEXISTS) {
		loom_error_clear();
		return 0;
	}
	if (rc < 0)
		return rc;
	*created = 1;
	return 0;
}

static int set_metrics(loom_op_result *out, const ck_counts *c, int kind, size_t sidecars, int v2)
{
	LOOM_TRY(loom_op_result_set_metric(out, LOOM_METRIC_CHECKPOINT_KIND, kind));
	LOOM_TRY(loom_op_result_set_metric(out, "numActions", c->actions));
	LOOM_TRY(loom_op_result_set_metric(out, "sizeInBytes", (int64_t)c->bytes));
	LOOM_TRY(loom_op_result_set_metric(out, "numAddFiles", c->adds));
	LOOM_TRY(loom_op_result_set_metric(out, "numRemoveFiles", c->removes));
	LOOM_TRY(loom_op_result_set_metric(out, "numExpiredTombstones", c->expired));
	LOOM_TRY(loom_op_result_set_metric(out, LOOM_METRIC_NUM_SIDECARS, (int64_t)sidecars));
	return loom_op_result_set_metric(out, "v2", v2);
}

/* Point _last_checkpoint at the existing checkpoint of the snapshot's
 * version (a run that published it and died before the hint). Its action
 * count: a classic file's footer row count; otherwise the actions the
 * snapshot loaded from it (protocol, metadata, txns, domains, files,
 * tombstones, and for V2 its sidecar actions and checkpointMetadata). A
 * multi-part checkpoint is named with its part count; a V2 one is found by
 * listing from the version, as readers do when the hint has no
 * v2Checkpoint block. */
static int repair_last_checkpoint(loom_store *store, const delta_snapshot *snap,
                                  const existing_checkpoint *ex, loom_op_result *out)
{
	ck_counts c;
	json_t *lc;
	int rc;
	memset(&c, 0, sizeof(c));
	c.bytes = ex->bytes;
	c.adds = (int64_t)(snap->num_files + snap->num_deferred_files);
	if (ex->kind == DELTA_CKPT_CLASSIC) {
		pq_reader *r;
		if (pq_reader_open(&r, store, ex->first_key) < 0)
			return loom_err_wrap("checkpoint %s exists but cannot be read to update "
			                     "_last_checkpoint", ex->first_key);
		c.actions = pq_reader_meta(r)->num_rows;
		pq_reader_free(r);
	} else {
		c.actions = 2 + (int64_t)(snap->num_txns + snap->num_domains + snap->num_files +
		                          snap->num_deferred_files + snap->num_tombstones);
		if (ex->kind == DELTA_CKPT_V2_JSON || ex->kind == DELTA_CKPT_V2_PARQUET)
			c.actions += 1 + (int64_t)snap->num_sidecars;
	}
	if (!(lc = classic_last_checkpoint(snap->version, &c)))
		return OPS_ERR(LOOM_ENOMEM, "out of memory building _last_checkpoint");
	if (ex->kind == DELTA_CKPT_MULTIPART)
		json_object_set_new(lc, "parts", json_integer((json_int_t)ex->parts));
	rc = delta_last_checkpoint_write(store, lc);
	json_decref(lc);
	LOOM_TRY(rc);
	return loom_op_result_set_metric(out, "lastCheckpointUpdated", 1);
}

int checkpoint_run(loom_op_result *out, loom_store *store, const checkpoint_params *p)
{
	delta_snapshot *snap = NULL;
	delta_load_opts lo;
	delta_table_props props;
	const loom_clock *clock = p->clock ? p->clock : loom_clock_system();
	ck_counts counts;
	ck_v2_result v2r;
	json_t *lc = NULL;
	int64_t min_ts;
	existing_checkpoint ex;
	int rc, created = 0, use_v2;

	memset(&v2r, 0, sizeof(v2r));
	memset(&counts, 0, sizeof(counts));
	delta_load_opts_init(&lo);
	lo.keep_stats = 1;
	/* the checkpoint's own files stay where they are and are streamed
	 * into the new one: memory follows the commits since, not the table */
	lo.defer_checkpoint_adds = 1;
	if ((rc = delta_snapshot_load(&snap, store, p->version, &lo)) < 0)
		return rc;
	/* The gate runs on the protocol of the version being checkpointed, not
	 * the latest one: checkpointProtection (b) forbids writing a
	 * checkpoint for a version whose protocol the writer does not support,
	 * and that is exactly this check. */
	if ((rc = delta_protocol_check(&snap->protocol, DELTA_OP_CHECKPOINT)) < 0)
		goto done;
	if ((rc = delta_props_parse(&snap->metadata, &props)) < 0)
		goto done;
	use_v2 = delta_protocol_has_feature(&snap->protocol, "v2Checkpoint") &&
	         strcmp(props.checkpoint_policy, "v2") == 0;

	loom_op_result_set_metric(out, LOOM_METRIC_VERSION, snap->version);
	if ((rc = checkpoint_exists(store, snap->version, &ex)) < 0)
		goto done;
	if (ex.kind != DELTA_CKPT_NONE) {
		/* A run that published the checkpoint but died or failed before
		 * the hint leaves _last_checkpoint behind: finish that job. */
		if (snap->last_checkpoint_hint < snap->version &&
		    (rc = repair_last_checkpoint(store, snap, &ex, out)) < 0)
			goto done;
		rc = loom_op_result_set_metric(out, LOOM_METRIC_CREATED, 0);
		goto done;
	}
	min_ts = loom_clock_wall_ms(clock) - props.deleted_file_retention_ms;
	if (use_v2) {
		if (loom_cancel_requested(p->cancel)) {
			rc = OPS_ERR(LOOM_ECANCELLED, "checkpoint of version %lld cancelled before it was "
			             "written", (long long)snap->version);
			goto done;
		}
		if ((rc = checkpoint_write_v2(store, snap, min_ts, p->part_size, &v2r)) < 0)
			goto done;
		counts = v2r.total;
		lc = v2r.last_checkpoint;
		v2r.last_checkpoint = NULL;
		created = 1;
	} else {
		if ((rc = write_classic(store, snap, min_ts, p->cancel, &counts, &created)) < 0)
			goto done;
		if (created && !(lc = classic_last_checkpoint(snap->version, &counts))) {
			rc = OPS_ERR(LOOM_ENOMEM, "out of memory building _last_checkpoint");
			goto done;
		}
	}
	if ((rc = loom_op_result_set_metric(out, LOOM_METRIC_CREATED, created)) < 0 || !created)
		goto done;
	/* Only move the hint forward: a checkpoint of an older version must not
	 * send readers back. At the same version it is rewritten, so it names a
	 * checkpoint that exists (and, for V2, describes this one). */
	if (snap->last_checkpoint_hint <= snap->version) {
		if ((rc = delta_last_checkpoint_write(store, lc)) < 0)
			goto done;
		loom_op_result_set_metric(out, LOOM_METRIC_LAST_CHECKPOINT_UPDATED, 1);
	} else {
		loom_op_result_set_metric(out, LOOM_METRIC_LAST_CHECKPOINT_UPDATED, 0);
	}
	rc = set_metrics(out, &counts,
	                 use_v2 ? LOOM_CHECKPOINT_KIND_V2_JSON : LOOM_CHECKPOINT_KIND_CLASSIC,
	                 v2r.num_sidecars, use_v2);
done:
	if (rc == 0) /* temp files a killed earlier run left */
		delta_log_sweep_temps(store, clock);
	json_decref(lc);
	json_decref(v2r.last_checkpoint);
	delta_snapshot_free(snap);
	return rc;
}
