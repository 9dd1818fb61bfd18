/* ops/log/checkpoint_v2.c - a UUID-named V2 checkpoint (PROTOCOL.md "V2 Spec",
 * "UUID-named checkpoint", "Sidecar Files"), written the way Delta Spark
 * does by default (Checkpoints.writeTopLevelV2Checkpoint):
 *
 *   _delta_log/_sidecars/<v>.checkpoint.<part>.<parts>.<uuid>.parquet
 *       the add and remove actions, at most part_size per file;
 *   _delta_log/<v>.checkpoint.<uuid>.json
 *       checkpointMetadata (with Spark's tags), one sidecar action per
 *       sidecar, protocol, metaData, txn, domainMetadata.
 *
 * JSON is Spark's default top-level format: the non-file actions are few,
 * a JSON line per action is what commits use too, and it is the variant
 * Spark and Databricks write unless configured otherwise, so readers meet
 * it most. Order of effects: sidecars (each published whole), then the
 * top-level file with put-if-absent; only then does the checkpoint exist.
 * A crash before that leaves sidecars nothing references (log cleanup
 * removes them once expired); a failure deletes them right away. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "delta/actions_json.h"
#include "delta/log_listing.h"
#include "ops/log/checkpoint.h"
#include "util/alloc.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/uuid.h"
#include "util/vec.h"

#define OPS_ERR(code, ...) loom_err((code), LOOM_ERRCLASS_OPS, __VA_ARGS__)
#define SIDECAR_DIR DELTA_LOG_DIR "_sidecars/"
/* Spark keeps the lists in _last_checkpoint only up to these counts
 * (lastCheckpoint.nonFileActions.threshold, lastCheckpoint.sidecars.threshold) */
#define LAST_CHECKPOINT_MAX_NON_FILE_ACTIONS 30
#define LAST_CHECKPOINT_MAX_SIDECARS 30

static int oom(void)
{
	return OPS_ERR(LOOM_ENOMEM, "out of memory writing a V2 checkpoint");
}

static int push_line(loom_buf *b, json_t *action)
{
	char *text;
	int rc;
	if (!action)
		return oom();
	text = json_dumps(action, JSON_COMPACT | JSON_PRESERVE_ORDER);
	json_decref(action);
	if (!text)
		return oom();
	rc = loom_buf_puts(b, text);
	free(text);
	if (rc == 0)
		rc = loom_buf_putc(b, '\n');
	return rc;
}

/* The sidecars, written as the file actions stream by: a new one opens
 * for the first action of each part and is published when part_size
 * actions are in it (or at the end). */
typedef struct sidecar_roll {
	loom_store *store;
	int64_t version, part_size, parts;
	int64_t part;                /* the open (or last) part, 1-based */
	int64_t in_part;             /* actions in the open part */
	loom_store_writer *w;        /* NULL: none open */
	ck_emitter e;
	char key[200];
	loom_vec *written;           /* char*: published sidecars' keys */
	json_t *sidecars;            /* their sidecar actions (inner objects) */
	ck_counts total;             /* rows and bytes of the sidecars */
} sidecar_roll;

static int roll_open(sidecar_roll *r)
{
	char uuid[37];
	int rc;
	if (r->part >= r->parts)
		return OPS_ERR(LOOM_ERROR, "V2 checkpoint of version %lld: file actions left after "
		               "%lld sidecars", (long long)r->version, (long long)r->parts);
	LOOM_TRY(loom_uuid_v4_string(uuid));
	r->part++;
	r->in_part = 0;
	snprintf(r->key, sizeof(r->key), SIDECAR_DIR "%020lld.checkpoint.%010lld.%010lld.%s.parquet",
	         (long long)r->version, (long long)r->part, (long long)r->parts, uuid);
	LOOM_TRY(r->store->writer_open(r->store, r->key, LOOM_PUT_IF_ABSENT, &r->w));
	if ((rc = ck_emit_open(&r->e, r->w, CK_LAYOUT_SIDECAR)) < 0) {
		ck_emit_dispose(&r->e);
		r->w->abort(r->w);
		r->w = NULL;
	}
	return rc;
}

/* Close, publish and describe the open sidecar. */
static int roll_publish(sidecar_roll *r)
{
	loom_store_writer *w = r->w;
	loom_store_entry e;
	uint64_t bytes = 0;
	json_t *sc;
	char *copy;
	int rc = ck_emit_close(&r->e, &bytes);
	int64_t rows = r->e.rows;
	ck_emit_dispose(&r->e);
	r->w = NULL;
	if (rc < 0) {
		w->abort(w);
		return rc;
	}
	if ((rc = w->commit(w)) < 0)
		return loom_err_wrap("publishing sidecar %s", r->key);
	copy = loom_strdup(r->key);
	if (!copy || loom_vec_push(r->written, &copy) < 0) {
		loom_free(copy);
		return oom();
	}
	LOOM_TRY(r->store->stat(r->store, r->key, &e));
	sc = json_object();
	if (!sc || json_object_set_new(sc, "path", json_string(r->key + strlen(SIDECAR_DIR))) < 0 ||
	    json_object_set_new(sc, "sizeInBytes", json_integer((json_int_t)e.size)) < 0 ||
	    json_object_set_new(sc, "modificationTime", json_integer(e.mtime_ms)) < 0 ||
	    json_array_append_new(r->sidecars, sc) < 0)
		return oom();
	r->total.actions += rows;
	r->total.bytes += e.size;
	return 0;
}

static int roll_file(void *ctx, const delta_file *f)
{
	sidecar_roll *r = ctx;
	if (!r->w)
		LOOM_TRY(roll_open(r));
	LOOM_TRY(ck_emit_file(&r->e, f));
	if (++r->in_part == r->part_size)
		return roll_publish(r);
	return 0;
}

/* Every kept file action into `parts` sidecars. */
static int write_sidecars(sidecar_roll *r, const delta_snapshot *snap, int64_t min_ts,
                          ck_counts *tally)
{
	int rc = ck_each_kept(snap, min_ts, roll_file, r, tally);
	if (rc == 0 && r->w)
		rc = roll_publish(r);
	if (r->w) {   /* failed with one open */
		ck_emit_dispose(&r->e);
		r->w->abort(r->w);
		r->w = NULL;
	}
	if (rc == 0 && r->part != r->parts)
		rc = OPS_ERR(LOOM_ERROR, "V2 checkpoint of version %lld: %lld sidecars written, "
		             "%lld counted", (long long)r->version, (long long)r->part,
		             (long long)r->parts);
	return rc;
}

static json_t *checkpoint_metadata(int64_t version, const ck_counts *sc, int64_t num_adds)
{
	json_t *cm = json_object(), *tags = json_object();
	char v[32];
	if (!cm || !tags) {
		json_decref(cm);
		json_decref(tags);
		return NULL;
	}
	json_object_set_new(cm, "version", json_integer(version));
	snprintf(v, sizeof(v), "%lld", (long long)sc->actions);
	json_object_set_new(tags, "sidecarNumActions", json_string(v));
	snprintf(v, sizeof(v), "%llu", (unsigned long long)sc->bytes);
	json_object_set_new(tags, "sidecarSizeInBytes", json_string(v));
	snprintf(v, sizeof(v), "%lld", (long long)num_adds);
	json_object_set_new(tags, "numOfAddFiles", json_string(v));
	json_object_set_new(cm, "tags", tags);
	return cm;
}

/* The non-file actions, each {"<action>": {...}}, in checkpoint order. */
static int non_file_actions(const delta_snapshot *snap, json_t *out)
{
	size_t i;
	if (json_array_append_new(out, delta_action_wrap("protocol", delta_protocol_json(&snap->protocol))) < 0 ||
	    json_array_append_new(out, delta_action_wrap("metaData", delta_metadata_json(&snap->metadata))) < 0)
		return oom();
	for (i = 0; i < snap->num_txns; i++)
		if (json_array_append_new(out, delta_action_wrap("txn", delta_txn_json(&snap->txns[i]))) < 0)
			return oom();
	for (i = 0; i < snap->num_domains; i++)
		if (json_array_append_new(out, delta_action_wrap("domainMetadata",
		                                                 delta_domain_json(&snap->domains[i]))) < 0)
			return oom();
	return 0;
}

/* _last_checkpoint with the V2 block Spark writes (LastCheckpointV2). */
static json_t *last_checkpoint(const delta_snapshot *snap, const ck_v2_result *r,
                               const loom_store_entry *top, json_t *non_file, json_t *ckmeta,
                               json_t *sidecars, int64_t num_adds)
{
	json_t *lc = json_object(), *v2 = json_object();
	if (!lc || !v2) {
		json_decref(lc);
		json_decref(v2);
		return NULL;
	}
	json_object_set_new(lc, "version", json_integer(snap->version));
	json_object_set_new(lc, "size", json_integer(r->total.actions));
	json_object_set_new(lc, "sizeInBytes", json_integer((json_int_t)r->total.bytes));
	json_object_set_new(lc, "numOfAddFiles", json_integer(num_adds));
	json_object_set_new(v2, "path", json_string(r->key + strlen(DELTA_LOG_DIR)));
	json_object_set_new(v2, "sizeInBytes", json_integer((json_int_t)top->size));
	json_object_set_new(v2, "modificationTime", json_integer(top->mtime_ms));
	if (json_array_size(non_file) + 1 <= LAST_CHECKPOINT_MAX_NON_FILE_ACTIONS) {
		json_t *nf = json_copy(non_file);
		if (nf)
			json_array_append_new(nf, delta_action_wrap("checkpointMetadata", json_incref(ckmeta)));
		json_object_set_new(v2, "nonFileActions", nf);
	}
	if (json_array_size(sidecars) <= LAST_CHECKPOINT_MAX_SIDECARS)
		json_object_set_new(v2, "sidecarFiles", json_incref(sidecars));
	json_object_set_new(lc, "v2Checkpoint", v2);
	return lc;
}

int checkpoint_write_v2(loom_store *store, const delta_snapshot *snap, int64_t min_tombstone_ms,
                        int64_t part_size, ck_v2_result *out)
{
	loom_vec written = LOOM_VEC_INIT(char *);
	loom_buf body = LOOM_BUF_INIT;
	json_t *sidecars = json_array(), *non_file = json_array(), *ckmeta = NULL;
	ck_counts tally;
	sidecar_roll roll;
	loom_store_entry top;
	char uuid[37];
	int64_t kept;
	size_t i;
	int rc = 0, published = 0;

	memset(out, 0, sizeof(*out));
	memset(&tally, 0, sizeof(tally));
	memset(&roll, 0, sizeof(roll));
	if (!sidecars || !non_file) {
		rc = oom();
		goto done;
	}
	if (part_size <= 0)
		part_size = CHECKPOINT_DEFAULT_PART_SIZE;
	kept = ck_count_kept(snap, min_tombstone_ms);
	roll.store = store;
	roll.version = snap->version;
	roll.part_size = part_size;
	roll.parts = (kept + part_size - 1) / part_size;
	roll.written = &written;
	roll.sidecars = sidecars;
	if ((rc = write_sidecars(&roll, snap, min_tombstone_ms, &tally)) < 0)
		goto done;

	/* the top-level file */
	if ((rc = non_file_actions(snap, non_file)) < 0)
		goto done;
	ckmeta = checkpoint_metadata(snap->version, &roll.total, tally.adds);
	if (!ckmeta) {
		rc = oom();
		goto done;
	}
	if ((rc = push_line(&body, delta_action_wrap("checkpointMetadata", json_incref(ckmeta)))) < 0)
		goto done;
	for (i = 0; i < json_array_size(sidecars); i++)
		if ((rc = push_line(&body, delta_action_wrap("sidecar",
		                                             json_incref(json_array_get(sidecars, i))))) < 0)
			goto done;
	for (i = 0; i < json_array_size(non_file); i++)
		if ((rc = push_line(&body, json_incref(json_array_get(non_file, i)))) < 0)
			goto done;
	if ((rc = loom_uuid_v4_string(uuid)) < 0)
		goto done;
	snprintf(out->key, sizeof(out->key), DELTA_LOG_DIR "%020lld.checkpoint.%s.json",
	         (long long)snap->version, uuid);
	if ((rc = store->put(store, out->key, body.ptr, body.size, LOOM_PUT_IF_ABSENT)) < 0) {
		loom_err_wrap("publishing %s", out->key);
		goto done;
	}
	published = 1;
	if ((rc = store->stat(store, out->key, &top)) < 0)
		goto done;

	out->num_sidecars = json_array_size(sidecars);
	out->total.actions = roll.total.actions + 1 + (int64_t)out->num_sidecars +
	                     (int64_t)json_array_size(non_file);
	out->total.bytes = roll.total.bytes + top.size;
	out->total.adds = tally.adds;
	out->total.removes = tally.removes;
	out->total.expired = tally.expired;
	out->last_checkpoint = last_checkpoint(snap, out, &top, non_file, ckmeta, sidecars, tally.adds);
	if (!out->last_checkpoint)
		rc = oom();
done:
	if (rc < 0 && !published) {
		/* nothing references them: take them back (best effort) */
		loom_error saved;
		loom_err_copy(&saved);
		for (i = 0; i < written.len; i++)
			store->remove(store, *(char **)loom_vec_at(&written, i));
		loom_err(saved.code, saved.klass, "%s", saved.message);
	}
	for (i = 0; i < written.len; i++)
		loom_free(*(char **)loom_vec_at(&written, i));
	loom_vec_dispose(&written);
	loom_buf_dispose(&body);
	json_decref(sidecars);
	json_decref(non_file);
	json_decref(ckmeta);
	return rc;
}
