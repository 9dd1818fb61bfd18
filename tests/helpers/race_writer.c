/* tests/helpers/race_writer.c - the other writer in the race campaign
 * (tests/tools/race_trials.mjs): one data change committed the way an
 * engine's DML does it, with Delta's conflict rules, while loom compacts.
 *
 *   race_writer TABLE_DIR MODE SEED [PAUSE_MS]
 *
 * MODE append     copy a live file (picked by SEED) to a new name in its
 *                 partition and blind-append it (never conflicts);
 *      remove     remove a live file (DELETE of a whole file);
 *      dv         delete up to 3 rows of a live file without a deletion
 *                 vector by adding an inline one (remove + add of the path);
 *      dv-more    delete up to 2 more rows of a file whose inline DV this
 *                 tool wrote (rows 0..j-1): its DV replaced by one of rows
 *                 0..k-1 (a DELETE on a file that already has a DV);
 *      enable-dv  upgrade the protocol to reader 3 / writer 7 with the
 *                 deletionVectors feature (template set-up).
 * remove and dv conflict with a winning commit that removed their file
 * (a compaction that rewrote it) or changed metadata or protocol: then they
 * abort. PAUSE_MS: sleep between reading the snapshot and committing, to
 * let a compaction commit in between.
 * Prints "committed VERSION ROW_DELTA" (exit 0), "aborted REASON" (exit 3:
 * a conflict, the table untouched), or an error (exit 1). */
#include <jansson.h>
#include <roaring/roaring.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "delta/commit_write.h"
#include "delta/dv.h"
#include "delta/snapshot.h"
#include "loom/errors.h"
#include "loom/store.h"
#include "store/backend.h"
#include "util/buf.h"
#include "util/hashmap.h"
#include "util/uuid.h"

static int die(const char *what)
{
	const loom_error *e = loom_error_last();
	fprintf(stderr, "race_writer: %s: %s\n", what, e ? e->message : "?");
	return 1;
}

static json_t *pvalues(const delta_file *f)
{
	json_t *o = json_object();
	uint32_t i;
	for (i = 0; i < f->num_partition_values; i++)
		json_object_set_new(o, f->partition_values[i].key,
		                    f->partition_values[i].value ? json_string(f->partition_values[i].value)
		                                                 : json_null());
	return o;
}

static json_t *dv_json(const delta_dv_descriptor *dv)
{
	json_t *o = json_object();
	char t[2] = { dv->storage_type, 0 };
	json_object_set_new(o, "storageType", json_string(t));
	json_object_set_new(o, "pathOrInlineDv", json_string(dv->path_or_inline_dv));
	if (dv->has_offset)
		json_object_set_new(o, "offset", json_integer(dv->offset));
	json_object_set_new(o, "sizeInBytes", json_integer(dv->size_in_bytes));
	json_object_set_new(o, "cardinality", json_integer(dv->cardinality));
	return o;
}

/* A remove action for a live file, as DML writes it. */
static json_t *remove_of(const delta_file *f, long long now)
{
	json_t *r = json_object(), *a = json_object();
	json_object_set_new(r, "path", json_string(f->path_raw));
	json_object_set_new(r, "deletionTimestamp", json_integer(now));
	json_object_set_new(r, "dataChange", json_true());
	json_object_set_new(r, "extendedFileMetadata", json_true());
	json_object_set_new(r, "partitionValues", pvalues(f));
	json_object_set_new(r, "size", json_integer(f->size));
	if (f->dv.storage_type)
		json_object_set_new(r, "deletionVector", dv_json(&f->dv));
	json_object_set_new(a, "remove", r);
	return a;
}

static int append_line(loom_buf *out, json_t *action)
{
	char *text = json_dumps(action, JSON_COMPACT);
	int rc = text ? loom_buf_puts(out, text) : LOOM_ENOMEM;
	free(text);
	json_decref(action);
	return rc < 0 ? rc : loom_buf_putc(out, '\n');
}

/* The file's stats with "tightBounds": false (they stop being tight once
 * rows are deleted by a DV); malloc'd, NULL without stats. */
static char *loose_stats(const char *stats)
{
	json_t *doc = stats ? json_loads(stats, 0, NULL) : NULL;
	char *out;
	if (!doc)
		return stats ? strdup(stats) : NULL;
	if (json_object_get(doc, "tightBounds"))
		json_object_set_new(doc, "tightBounds", json_false());
	out = json_dumps(doc, JSON_COMPACT);
	json_decref(doc);
	return out;
}

/* An inline DV deleting rows 0..k-1: a RoaringBitmapArray (portable, one
 * bucket) in Z85, padded to a multiple of 4 bytes; sizeInBytes is the
 * unpadded length. */
static int inline_dv(uint32_t k, loom_buf *z85, int32_t *size)
{
	roaring_bitmap_t *b = roaring_bitmap_create();
	uint8_t *raw;
	size_t n, total, padded;
	uint32_t i;
	int rc;
	for (i = 0; i < k; i++)
		roaring_bitmap_add(b, i);
	n = roaring_bitmap_portable_size_in_bytes(b);
	total = 4 + 8 + 4 + n;
	padded = (total + 3) / 4 * 4;
	raw = calloc(1, padded);
	raw[0] = 0xd1; raw[1] = 0xd3; raw[2] = 0x39; raw[3] = 0x64;  /* 1681511377 LE */
	raw[4] = 1;                                                  /* one bucket (u64 LE) */
	/* bucket key 0 (u32 LE) at 12, then the 32-bit portable bitmap */
	roaring_bitmap_portable_serialize(b, (char *)raw + 16);
	roaring_bitmap_free(b);
	rc = delta_z85_encode(raw, padded, z85);
	free(raw);
	*size = (int32_t)total;
	return rc;
}

int main(int argc, char **argv)
{
	loom_store *s = NULL;
	delta_snapshot *snap = NULL;
	const delta_file *f = NULL;
	loom_buf actions = LOOM_BUF_INIT, z85 = LOOM_BUF_INIT, data = LOOM_BUF_INIT;
	loom_map removed = LOOM_MAP_INIT;
	delta_commit c;
	const char *mode;
	long seed, pause_ms;
	long long now = (long long)time(NULL) * 1000, delta_rows = 0;
	int64_t version = -1;
	size_t i;
	int rc, status = 0;

	if (argc < 4 || argc > 5) {
		fprintf(stderr, "usage: race_writer TABLE_DIR append|remove|dv|dv-more|enable-dv SEED [PAUSE_MS]\n");
		return 2;
	}
	/* every way out frees what it holds (the sanitizer pass checks leaks) */
	mode = argv[2];
	seed = strtol(argv[3], NULL, 10);
	pause_ms = argc == 5 ? strtol(argv[4], NULL, 10) : 0;
	if (loom_store_open_local(&s, argv[1]) < 0)
		{ status = die("open"); goto out; }
	if (delta_snapshot_load(&snap, s, -1, NULL) < 0)
		{ status = die("snapshot"); goto out; }
	if (strcmp(mode, "enable-dv") != 0) {
		if (!snap->num_files) {
			printf("aborted no live file\n");
			status = 3;
			goto out;
		}
		/* the SEED-th file (from a random start for dv: one without a DV;
		 * for dv-more: one with an inline DV not deleting every row) */
		for (i = 0; i < snap->num_files; i++) {
			const delta_file *cand = snap->files[((size_t)seed + i) % snap->num_files];
			if (strcmp(mode, "dv-more") == 0 ? cand->dv.storage_type == 'i' &&
			                                       cand->dv.cardinality < cand->num_records
			                                 : strcmp(mode, "dv") != 0 || !cand->dv.storage_type) {
				f = cand;
				break;
			}
		}
		if (!f || f->num_records < 0) {
			printf("aborted no file fit for %s\n", mode);
			status = 3;
			goto out;
		}
	}
	delta_commit_init(&c, DELTA_COMMIT_REARRANGE, snap->version, "DELETE");
	if (strcmp(mode, "append") == 0) {
		/* same partition directory, new name */
		char uuid[37];
		const char *slash = strrchr(f->path_raw, '/');
		loom_buf key = LOOM_BUF_INIT, raw_path = LOOM_BUF_INIT;
		json_t *add = json_object(), *a = json_object();
		loom_uuid_v4_string(uuid);
		if (slash) {
			loom_buf_put(&key, f->path, (size_t)(strrchr(f->path, '/') - f->path) + 1);
			loom_buf_put(&raw_path, f->path_raw, (size_t)(slash - f->path_raw) + 1);
		}
		loom_buf_printf(&key, "race-%s.parquet", uuid);
		loom_buf_printf(&raw_path, "race-%s.parquet", uuid);
		if (loom_store_read_all(s, f->path, &data) < 0 ||
		    s->put(s, key.ptr, data.ptr, data.size, LOOM_PUT_IF_ABSENT) < 0) {
			status = die("copying a data file");
			json_decref(add);
			json_decref(a);
			loom_buf_dispose(&key);
			loom_buf_dispose(&raw_path);
			goto out;
		}
		json_object_set_new(add, "path", json_string(raw_path.ptr));
		json_object_set_new(add, "partitionValues", pvalues(f));
		json_object_set_new(add, "size", json_integer((json_int_t)data.size));
		json_object_set_new(add, "modificationTime", json_integer(now));
		json_object_set_new(add, "dataChange", json_true());
		if (f->stats)
			json_object_set_new(add, "stats", json_string(f->stats));
		json_object_set_new(a, "add", add);
		append_line(&actions, a);
		c.kind = DELTA_COMMIT_APPEND;
		c.operation = "WRITE";
		c.is_blind_append = 1;
		delta_rows = f->num_records;   /* every physical row of the copy */
		loom_buf_dispose(&key);
		loom_buf_dispose(&raw_path);
	} else if (strcmp(mode, "remove") == 0) {
		append_line(&actions, remove_of(f, now));
		loom_map_puts(&removed, f->path, (void *)f);
		delta_rows = -(f->num_records - (f->dv.storage_type ? f->dv.cardinality : 0));
	} else if (strcmp(mode, "dv") == 0 || strcmp(mode, "dv-more") == 0) {
		json_t *add = json_object(), *a = json_object();
		delta_dv_descriptor dv;
		int64_t had = f->dv.storage_type ? f->dv.cardinality : 0;
		uint32_t k = f->num_records < had + 3 ? (uint32_t)f->num_records : (uint32_t)(had + (had ? 2 : 3));
		char *stats = loose_stats(f->stats);
		if (!k) {
			printf("aborted empty file\n");
			free(stats);
			json_decref(add);
			json_decref(a);
			status = 3;
			goto out;
		}
		memset(&dv, 0, sizeof(dv));
		if (inline_dv(k, &z85, &dv.size_in_bytes) < 0) {
			status = die("encoding the DV");
			free(stats);
			json_decref(add);
			json_decref(a);
			goto out;
		}
		dv.storage_type = 'i';
		dv.path_or_inline_dv = z85.ptr;
		dv.cardinality = k;
		append_line(&actions, remove_of(f, now));
		json_object_set_new(add, "path", json_string(f->path_raw));
		json_object_set_new(add, "partitionValues", pvalues(f));
		json_object_set_new(add, "size", json_integer(f->size));
		json_object_set_new(add, "modificationTime", json_integer(now));
		json_object_set_new(add, "dataChange", json_true());
		if (stats)
			json_object_set_new(add, "stats", json_string(stats));
		json_object_set_new(add, "deletionVector", dv_json(&dv));
		/* a DELETE keeps the file's row ids (PROTOCOL.md, Row Tracking) */
		if (f->base_row_id >= 0)
			json_object_set_new(add, "baseRowId", json_integer((json_int_t)f->base_row_id));
		if (f->default_row_commit_version >= 0)
			json_object_set_new(add, "defaultRowCommitVersion",
			                    json_integer((json_int_t)f->default_row_commit_version));
		json_object_set_new(a, "add", add);
		append_line(&actions, a);
		free(stats);
		loom_map_puts(&removed, f->path, (void *)f);
		delta_rows = -(long long)(k - had);
	} else if (strcmp(mode, "enable-dv") == 0) {
		loom_buf_puts(&actions, "{\"protocol\":{\"minReaderVersion\":3,\"minWriterVersion\":7,"
		                        "\"readerFeatures\":[\"deletionVectors\"],"
		                        "\"writerFeatures\":[\"deletionVectors\"]}}\n");
		c.operation = "SET TBLPROPERTIES";
	} else {
		fprintf(stderr, "race_writer: unknown mode %s\n", mode);
		status = 2;
		goto out;
	}
	if (pause_ms > 0) {
		struct timespec ts = { pause_ms / 1000, (pause_ms % 1000) * 1000000L };
		nanosleep(&ts, NULL);
	}
	c.actions = actions.ptr;
	c.actions_len = actions.size;
	c.removed_keys = &removed;
	c.max_attempts = 1000;
	rc = delta_commit_write(s, &c, &version);
	if (rc == LOOM_ECONFLICT) {
		printf("aborted %s\n", loom_error_last()->message);
		status = 3;
	} else if (rc < 0) {
		status = die("commit");
	} else {
		printf("committed %lld %lld\n", (long long)version, delta_rows);
	}
out:
	loom_map_dispose(&removed);
	loom_buf_dispose(&actions);
	loom_buf_dispose(&z85);
	loom_buf_dispose(&data);
	delta_snapshot_free(snap);
	loom_store_free(s);
	return status;
}
