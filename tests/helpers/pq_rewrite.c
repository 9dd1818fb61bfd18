/* tests/helpers/pq_rewrite.c - read a Parquet file with loom's reader and
 * write it again with loom's writer (every row group, every leaf), for the
 * round-trip test tests/scripts/parquet_roundtrip.sh.
 *
 *   pq_rewrite IN OUT [--codec NAME] [--level N] [--row-group-bytes N]
 *              [--page-bytes N] [--dict-limit N] [--no-dict] [--v2]
 *              [--page-index]
 *
 * NAME: uncompressed snappy gzip brotli zstd lz4_raw. The schema, key-value
 * metadata and values are carried over; row groups and pages are cut by
 * the writer's own limits. Exit 0 on success, 1 with a message naming the
 * file on failure. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loom/errors.h"
#include "loom/store.h"
#include "parquet/meta.h"
#include "parquet/reader.h"
#include "parquet/writer.h"

static int codec_id(const char *s)
{
	static const struct {
		const char *name;
		int id;
	} codecs[] = {{"uncompressed", PQ_CODEC_UNCOMPRESSED}, {"snappy", PQ_CODEC_SNAPPY},
	              {"gzip", PQ_CODEC_GZIP},                 {"brotli", PQ_CODEC_BROTLI},
	              {"zstd", PQ_CODEC_ZSTD},                 {"lz4_raw", PQ_CODEC_LZ4_RAW}};
	size_t i;
	for (i = 0; i < sizeof(codecs) / sizeof(codecs[0]); i++)
		if (strcmp(s, codecs[i].name) == 0)
			return codecs[i].id;
	return -1;
}

static int fail_msg(const char *what)
{
	const loom_error *e = loom_error_last();
	fprintf(stderr, "pq_rewrite: %s: %s\n", what, e && e->message[0] ? e->message : "failed");
	return 1;
}

int main(int argc, char **argv)
{
	pq_writer_opts o;
	pq_reader *r = NULL;
	pq_writer *w = NULL;
	loom_store *out = NULL;
	loom_store_writer *sink = NULL;
	pq_batch b;
	const pq_file_meta *m;
	const char **keys = NULL, **vals = NULL;
	const char *in_path, *out_path, *slash;
	char *out_dir = NULL;
	size_t g, i;
	int a, rc = 1;

	if (argc < 3) {
		fprintf(stderr, "usage: pq_rewrite IN OUT [--codec NAME] [--level N] [--row-group-bytes N] "
		                "[--page-bytes N] [--dict-limit N] [--no-dict] [--v2] [--page-index]\n");
		return 2;
	}
	in_path = argv[1];
	out_path = argv[2];
	pq_writer_opts_default(&o);
	for (a = 3; a < argc; a++) {
		const char *v = a + 1 < argc ? argv[a + 1] : NULL;
		if (strcmp(argv[a], "--no-dict") == 0) {
			o.disable_dictionary = 1;
		} else if (strcmp(argv[a], "--v2") == 0) {
			o.data_page_v2 = 1;
		} else if (strcmp(argv[a], "--page-index") == 0) {
			o.write_page_index = 1;
		} else if (v && strcmp(argv[a], "--codec") == 0) {
			if ((o.codec = codec_id(v)) < 0) {
				fprintf(stderr, "pq_rewrite: unknown codec %s\n", v);
				return 2;
			}
			a++;
		} else if (v && strcmp(argv[a], "--level") == 0) {
			o.level = atoi(v), a++;
		} else if (v && strcmp(argv[a], "--row-group-bytes") == 0) {
			o.row_group_bytes = strtoull(v, NULL, 10), a++;
		} else if (v && strcmp(argv[a], "--page-bytes") == 0) {
			o.page_bytes = strtoull(v, NULL, 10), a++;
		} else if (v && strcmp(argv[a], "--dict-limit") == 0) {
			o.dict_limit_bytes = strtoull(v, NULL, 10), a++;
		} else {
			fprintf(stderr, "pq_rewrite: bad option %s\n", argv[a]);
			return 2;
		}
	}

	memset(&b, 0, sizeof(b));
	if (pq_reader_open_path(&r, in_path) < 0)
		return fail_msg(in_path);
	m = pq_reader_meta(r);

	/* The output goes through a local store on OUT's directory. */
	slash = strrchr(out_path, '/');
	out_dir = slash ? strndup(out_path, (size_t)(slash - out_path)) : strdup(".");
	if (!out_dir || loom_store_open_local(&out, slash == out_path ? "/" : out_dir) < 0) {
		fail_msg(out_path);
		goto done;
	}
	if (m->num_kv) {
		keys = calloc(m->num_kv, sizeof(*keys));
		vals = calloc(m->num_kv, sizeof(*vals));
		if (!keys || !vals)
			goto done;
		for (i = 0; i < m->num_kv; i++) {
			keys[i] = m->kv[i].key;
			vals[i] = m->kv[i].value;
		}
		o.kv_keys = keys;
		o.kv_values = vals;
		o.kv_count = m->num_kv;
	}
	if (out->writer_open(out, slash ? slash + 1 : out_path, 0, &sink) < 0 ||
	    pq_writer_open(&w, sink, m->schema, m->num_schema, &o) < 0) {
		fail_msg(out_path);
		goto done;
	}
	for (g = 0; g < m->num_row_groups; g++) {
		if (pq_reader_read_row_group(r, g, NULL, 0, &b) < 0) {
			fail_msg(in_path);
			goto done;
		}
		if (pq_writer_write(w, &b) < 0) {
			fail_msg(out_path);
			goto done;
		}
	}
	rc = pq_writer_close(w, NULL);
	w = NULL;
	if (rc < 0) {
		rc = fail_msg(out_path);
		goto done;
	}
	rc = sink->commit(sink);
	sink = NULL;
	rc = rc < 0 ? fail_msg(out_path) : 0;
done:
	pq_writer_free(w);
	if (sink)
		sink->abort(sink);
	loom_store_free(out);
	pq_batch_free(&b);
	pq_reader_free(r);
	free(out_dir);
	free(keys);
	free(vals);
	return rc;
}
