/* ops/checkpoint.c - the checkpoint operation: choose the kind, write it,
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
#include "ops/checkpoint.h"
#include "loom/metrics.h"

#include <stdio.h>
#include <string.h>

#include "delta/last_checkpoint.h"
#include "delta/log_listing.h"
#include "delta/props.h"
#include "delta/protocol.h"
#include "loom/checkpoint.h"
#include "util/error.h"

#define OPS_ERR(code, ...) loom_err((code), LOOM_ERRCLASS_OPS, __VA_ARGS__)

static int checkpoint_exists(loom_store *store, int64_t version, int *exists)
{
	delta_log_listing l;
	size_t i;
	int rc;
	*exists = 0;
	if ((rc = delta_log_list(store, &l)) < 0)
		return rc;
	for (i = 0; i < l.checkpoints.len; i++) {
		const delta_checkpoint_ref *r = loom_vec_at(&l.checkpoints, i);
		if (r->version == version)
			*exists = 1;
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
                         ck_counts *c, int *created)
{
	char key[96];
	loom_store_writer *w = NULL;
	int rc;
	snprintf(key, sizeof(key), DELTA_LOG_DIR "%020lld.checkpoint.parquet", (long long)snap->version);
	*created = 0;
	LOOM_TRY(store->writer_open(store, key, LOOM_PUT_IF_ABSENT, &w));
	if ((rc = checkpoint_write_parquet(w, snap, min_ts, CK_LAYOUT_V1, c)) < 0) {
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
	LOOM_TRY(loom_op_result_set_metric(out, "kind", kind));
	LOOM_TRY(loom_op_result_set_metric(out, "numActions", c->actions));
	LOOM_TRY(loom_op_result_set_metric(out, "sizeInBytes", (int64_t)c->bytes));
	LOOM_TRY(loom_op_result_set_metric(out, "numAddFiles", c->adds));
	LOOM_TRY(loom_op_result_set_metric(out, "numRemoveFiles", c->removes));
	LOOM_TRY(loom_op_result_set_metric(out, "numExpiredTombstones", c->expired));
	LOOM_TRY(loom_op_result_set_metric(out, "numSidecars", (int64_t)sidecars));
	return loom_op_result_set_metric(out, "v2", v2);
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
	int rc, exists = 0, created = 0, use_v2;

	memset(&v2r, 0, sizeof(v2r));
	memset(&counts, 0, sizeof(counts));
	delta_load_opts_init(&lo);
	lo.keep_stats = 1;
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
	if ((rc = checkpoint_exists(store, snap->version, &exists)) < 0)
		goto done;
	if (exists) {
		rc = loom_op_result_set_metric(out, "created", 0);
		goto done;
	}
	min_ts = loom_clock_wall_ms(clock) - props.deleted_file_retention_ms;
	if (use_v2) {
		if ((rc = checkpoint_write_v2(store, snap, min_ts, p->part_size, &v2r)) < 0)
			goto done;
		counts = v2r.total;
		lc = v2r.last_checkpoint;
		v2r.last_checkpoint = NULL;
		created = 1;
	} else {
		if ((rc = write_classic(store, snap, min_ts, &counts, &created)) < 0)
			goto done;
		if (created && !(lc = classic_last_checkpoint(snap->version, &counts))) {
			rc = OPS_ERR(LOOM_ENOMEM, "out of memory building _last_checkpoint");
			goto done;
		}
	}
	if ((rc = loom_op_result_set_metric(out, "created", created)) < 0 || !created)
		goto done;
	/* Only move the hint forward: a checkpoint of an older version must not
	 * send readers back. At the same version it is rewritten, so it names a
	 * checkpoint that exists (and, for V2, describes this one). */
	if (snap->last_checkpoint_hint <= snap->version) {
		if ((rc = delta_last_checkpoint_write(store, lc)) < 0)
			goto done;
		loom_op_result_set_metric(out, "lastCheckpointUpdated", 1);
	} else {
		loom_op_result_set_metric(out, "lastCheckpointUpdated", 0);
	}
	rc = set_metrics(out, &counts,
	                 use_v2 ? LOOM_CHECKPOINT_KIND_V2_JSON : LOOM_CHECKPOINT_KIND_CLASSIC,
	                 v2r.num_sidecars, use_v2);
done:
	json_decref(lc);
	json_decref(v2r.last_checkpoint);
	delta_snapshot_free(snap);
	return rc;
}
