/* tests/helpers/file_index_dump.c - `file_index_dump [--loader] TABLE`:
 * load the latest snapshot, put its files and tombstones through the
 * compact file index (delta/file_index.h, added in an order unlike the
 * result; with --loader, the index the loader fills itself,
 * delta_load_opts.file_index) and print
 * what the index gives back as JSON, in the shape of the oracle's
 * `snapshot` (files, tombstones) for tests/scripts/file_index_vs_oracle.sh:
 *   {"version": V, "checkpointVersion": C or -1,
 *    "files": [{"path", "pathRaw", "size", "partitionValues",
 *               "deletionVector", "stats" (text or null), "statsParsed",
 *               "numRecords", "modificationTime", "dataChange"}],
 *    "tombstones": [{"path", "size", "deletionTimestamp", "deletionVector"}]}
 * Exit 1 on any failure. */
#include <stdio.h>
#include <string.h>

#include "delta/file_index.h"
#include "delta/snapshot.h"
#include "loom/errors.h"
#include "loom/store.h"
#include "util/buf.h"

static int die(const char *what)
{
	const loom_error *e = loom_error_last();
	fprintf(stderr, "file_index_dump: %s: %s\n", what, e ? e->message : "?");
	return 1;
}

static void put_str(loom_buf *b, const char *s)
{
	if (s)
		loom_buf_put_json_string(b, s, strlen(s));
	else
		loom_buf_puts(b, "null");
}

static void put_dv(loom_buf *b, const delta_dv_descriptor *dv)
{
	char st[2] = { dv->storage_type, 0 };
	if (!dv->storage_type) {
		loom_buf_puts(b, "null");
		return;
	}
	loom_buf_puts(b, "{\"storageType\":");
	put_str(b, st);
	loom_buf_puts(b, ",\"pathOrInlineDv\":");
	put_str(b, dv->path_or_inline_dv);
	if (dv->has_offset)
		loom_buf_printf(b, ",\"offset\":%d", (int)dv->offset);
	loom_buf_printf(b, ",\"sizeInBytes\":%d,\"cardinality\":%lld}", (int)dv->size_in_bytes,
	                (long long)dv->cardinality);
}

static void put_kv(loom_buf *b, const delta_kv *kv, uint32_t n)
{
	uint32_t i;
	loom_buf_putc(b, '{');
	for (i = 0; i < n; i++) {
		if (i)
			loom_buf_putc(b, ',');
		put_str(b, kv[i].key);
		loom_buf_putc(b, ':');
		put_str(b, kv[i].value);
	}
	loom_buf_putc(b, '}');
}

static int dump_list(const delta_file_index *x, delta_stats_reader *rd, delta_file_list list,
                     loom_buf *out)
{
	size_t i, n = list == DELTA_FILES_LIVE ? delta_file_index_num_live(x)
	                                       : delta_file_index_num_tombstones(x);
	delta_file_scratch sc;
	loom_buf stats = LOOM_BUF_INIT;
	int rc = 0;

	delta_file_scratch_init(&sc);
	loom_buf_putc(out, '[');
	for (i = 0; rc == 0 && i < n; i++) {
		delta_file f;
		int found = 0;
		if ((rc = delta_file_index_get(x, list, i, &sc, &f)) < 0 ||
		    (rc = delta_file_index_stats(x, rd, list, i, &stats, &found)) < 0)
			break;
		loom_buf_puts(out, i ? ",\n{\"path\":" : "\n{\"path\":");
		put_str(out, f.path);
		loom_buf_printf(out, ",\"size\":%lld,\"deletionVector\":", (long long)f.size);
		put_dv(out, &f.dv);
		if (list == DELTA_FILES_LIVE) {
			loom_buf_puts(out, ",\"pathRaw\":");
			put_str(out, f.path_raw);
			loom_buf_puts(out, ",\"partitionValues\":");
			put_kv(out, f.partition_values, f.num_partition_values);
			loom_buf_puts(out, ",\"stats\":");
			put_str(out, found ? stats.ptr ? stats.ptr : "" : NULL);
			loom_buf_printf(out,
			                ",\"statsParsed\":%s,\"numRecords\":%lld,\"modificationTime\":%lld,"
			                "\"dataChange\":%s}",
			                f.has_stats_parsed ? "true" : "false", (long long)f.num_records,
			                (long long)f.modification_time, f.data_change ? "true" : "false");
		} else {
			loom_buf_printf(out, ",\"deletionTimestamp\":%lld}", (long long)f.deletion_timestamp);
		}
		delta_file_scratch_reset(&sc);
	}
	loom_buf_puts(out, "]");
	loom_buf_dispose(&stats);
	delta_file_scratch_dispose(&sc);
	return rc;
}

int main(int argc, char **argv)
{
	loom_store *store = NULL;
	delta_snapshot *s = NULL;
	delta_file_index *x = NULL;
	loom_buf out = LOOM_BUF_INIT;
	delta_load_opts o;
	delta_stats_reader rd;
	size_t i;
	int loader = argc == 3 && strcmp(argv[1], "--loader") == 0;

	if (argc != 2 && !loader) {
		fprintf(stderr, "usage: file_index_dump [--loader] TABLE\n");
		return 2;
	}
	delta_load_opts_init(&o);
	o.file_index = loader;
	if (loom_store_open(&store, argv[argc - 1], NULL) < 0)
		return die("open");
	if (delta_snapshot_load(&s, store, -1, &o) < 0)
		return die("load");
	if (loader) {
		x = s->index;
		s->index = NULL; /* freed below as the other mode's is */
	} else if (delta_file_index_new(&x) < 0) {
		return die("index");
	}
	/* newest-last order, tombstones first: unlike the sorted result */
	for (i = loader ? 0 : s->num_tombstones; i > 0; i--)
		if (delta_file_index_add(x, s->tombstones[i - 1], NULL) < 0)
			return die("add");
	for (i = loader ? 0 : s->num_files; i > 0; i--)
		if (delta_file_index_add(x, s->files[i - 1], NULL) < 0)
			return die("add");
	if (delta_file_index_finish(x) < 0)
		return die("finish");
	loom_buf_printf(&out, "{\"version\":%lld,\"checkpointVersion\":%lld,\"files\":",
	                (long long)s->version, (long long)s->checkpoint_version);
	delta_stats_reader_init(&rd, store);
	if (dump_list(x, &rd, DELTA_FILES_LIVE, &out) < 0)
		return die("files");
	loom_buf_puts(&out, ",\"tombstones\":");
	if (dump_list(x, &rd, DELTA_FILES_TOMBSTONES, &out) < 0)
		return die("tombstones");
	delta_stats_reader_dispose(&rd);
	loom_buf_puts(&out, "}\n");
	fwrite(out.ptr, 1, out.size, stdout);
	loom_buf_dispose(&out);
	delta_file_index_free(x);
	delta_snapshot_free(s);
	loom_store_free(store);
	return 0;
}
