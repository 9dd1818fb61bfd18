/* cli/cmd_inspect.c - `loom inspect URI [--json] [--files] [--version N]
 * [--deleted-rows]`: the state of a Delta table at one version. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/cli.h"
#include "loom.h"

typedef struct inspect_opts {
	const char *uri;
	int json, files, deleted_rows;
	int64_t version;
} inspect_opts;

/* Member i of a JSON object: "key":"value". */
static void json_kv_member(FILE *o, size_t i, const loom_kv *kv)
{
	if (i)
		fputc(',', o);
	cli_json_string(o, kv->key);
	fputc(':', o);
	cli_json_string(o, kv->value);
}

static void json_kv_object(FILE *o, const loom_kv *kv, size_t n)
{
	size_t i;
	fputc('{', o);
	for (i = 0; i < n; i++)
		json_kv_member(o, i, &kv[i]);
	fputc('}', o);
}

/* The table properties as a JSON object. */
static void json_properties(FILE *o, const loom_snapshot *s)
{
	size_t i, n = loom_snapshot_property_count(s);
	fputc('{', o);
	for (i = 0; i < n; i++)
		json_kv_member(o, i, loom_snapshot_property_at(s, i));
	fputc('}', o);
}

/* A list of the snapshot's strings read with `at`, as a JSON array. */
static void json_str_list(FILE *o, const loom_snapshot *s, size_t n,
                          const char *(*at)(const loom_snapshot *, size_t))
{
	size_t i;
	fputc('[', o);
	for (i = 0; i < n; i++) {
		if (i)
			fputc(',', o);
		cli_json_string(o, at(s, i));
	}
	fputc(']', o);
}

/* A protocol below table features (reader 3, writer 7) has no feature
 * list: shown as null, an empty list as []. */
static void json_features(FILE *o, const loom_snapshot *s, int listed, size_t n,
                          const char *(*at)(const loom_snapshot *, size_t))
{
	if (!listed && n == 0)
		fputs("null", o);
	else
		json_str_list(o, s, n, at);
}

static void json_i64_or_null(FILE *o, int64_t v)
{
	if (v < 0)
		fputs("null", o);
	else
		fprintf(o, "%" PRId64, v);
}

/* ,"deletionVector":{...} of a file, or null; a tombstone's without its
 * cardinality (`with_cardinality` 0). */
static void json_dv(FILE *o, const loom_file_info *f, int with_cardinality)
{
	if (!f->dv_storage_type) {
		fputs(",\"deletionVector\":null", o);
		return;
	}
	fprintf(o, ",\"deletionVector\":{\"storageType\":\"%c\",\"pathOrInlineDv\":", f->dv_storage_type);
	cli_json_string(o, f->dv_path_or_inline);
	if (with_cardinality)
		fprintf(o, ",\"cardinality\":%" PRId64, f->dv_cardinality);
	fputc('}', o);
}

static int has_writer_feature(const loom_snapshot *s, const char *name)
{
	size_t i, n = loom_snapshot_writer_feature_count(s);
	for (i = 0; i < n; i++)
		if (strcmp(loom_snapshot_writer_feature_at(s, i), name) == 0)
			return 1;
	return 0;
}

/* "2026-07-12T06:36:43.271Z" for a time in ms since the epoch. */
static void iso_ms(char *out, size_t n, int64_t ms)
{
	time_t secs = (time_t)(ms / 1000);
	struct tm tm;
	if (!gmtime_r(&secs, &tm)) {
		snprintf(out, n, "%" PRId64, ms);
		return;
	}
	snprintf(out, n, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900, tm.tm_mon + 1,
	         tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, (int)(ms % 1000));
}

/* The table features' state: clustering, row tracking, in-commit
 * timestamps (JSON members, each preceded by a comma). */
static void json_feature_state(FILE *o, const loom_snapshot *s)
{
	size_t n = loom_snapshot_clustering_column_count(s);
	const char *domain = loom_snapshot_clustering_domain(s);
	int64_t ev, et, latest, hwm = loom_snapshot_row_id_high_water_mark(s);
	loom_table_props props = LOOM_TABLE_PROPS_INIT;
	int ict = loom_snapshot_in_commit_timestamps(&ev, &et, &latest, s);

	if (loom_snapshot_props(&props, s) < 0)
		loom_error_clear();
	fputs(",\"clustering\":", o);
	if (domain) {
		fputs("{\"columns\":", o);
		json_str_list(o, s, n, loom_snapshot_clustering_column_at);
		fputs(",\"logicalColumns\":", o);
		json_str_list(o, s, n, loom_snapshot_clustering_logical_column_at);
		fputs(",\"domain\":", o);
		cli_json_string(o, domain);
		fputc('}', o);
	} else {
		fputs("null", o);
	}
	fprintf(o, ",\"rowTracking\":{\"supported\":%s,\"enabled\":%s,\"highWaterMark\":",
	        has_writer_feature(s, "rowTracking") ? "true" : "false",
	        props.enable_row_tracking ? "true" : "false");
	json_i64_or_null(o, hwm);
	fprintf(o, "},\"inCommitTimestamps\":{\"enabled\":%s,\"enablementVersion\":",
	        ict ? "true" : "false");
	json_i64_or_null(o, ev);
	fputs(",\"enablementTimestamp\":", o);
	json_i64_or_null(o, et);
	fputs(",\"latest\":", o);
	json_i64_or_null(o, latest);
	fputc('}', o);
}

static void human_feature_state(FILE *o, const loom_snapshot *s)
{
	size_t i, n = loom_snapshot_clustering_column_count(s);
	int64_t ev, et, latest, hwm = loom_snapshot_row_id_high_water_mark(s);
	loom_table_props props = LOOM_TABLE_PROPS_INIT;
	char when[96];
	int ict = loom_snapshot_in_commit_timestamps(&ev, &et, &latest, s);

	if (loom_snapshot_props(&props, s) < 0)
		loom_error_clear();
	if (loom_snapshot_clustering_domain(s)) {
		/* an empty list: the columns were dropped (CLUSTER BY NONE) */
		fputs(n ? "clustered by: " : "clustered by: none (no clustering columns)", o);
		for (i = 0; i < n; i++) {
			const char *col = loom_snapshot_clustering_column_at(s, i);
			const char *logical = loom_snapshot_clustering_logical_column_at(s, i);
			fputs(i ? ", " : "", o);
			if (!logical)
				fprintf(o, "%s (not in the schema)", col);
			else if (strcmp(logical, col) != 0)
				fprintf(o, "%s (physical %s)", logical, col);
			else
				fputs(col, o);
		}
		fputc('\n', o);
	}
	if (has_writer_feature(s, "rowTracking") || hwm >= 0) {
		fprintf(o, "row tracking: %s", props.enable_row_tracking ? "enabled" : "supported, not enabled");
		if (hwm >= 0)
			fprintf(o, ", high-water mark %" PRId64, hwm);
		fputc('\n', o);
	}
	if (ict) {
		fputs("in-commit timestamps: enabled", o);
		if (ev >= 0)
			fprintf(o, " since version %" PRId64, ev);
		if (et >= 0) {
			iso_ms(when, sizeof(when), et);
			fprintf(o, " (%s)", when);
		}
		if (latest >= 0) {
			iso_ms(when, sizeof(when), latest);
			fprintf(o, "; this version %s", when);
		}
		fputc('\n', o);
	}
}

/* File-size histogram bins (upper bounds, bytes). */
static const uint64_t bins[] = {
	1024ull * 1024, 8ull * 1024 * 1024, 32ull * 1024 * 1024, 128ull * 1024 * 1024,
	512ull * 1024 * 1024, 1024ull * 1024 * 1024, UINT64_MAX,
};
static const char *const bin_names[] = {
	"<1MiB", "1-8MiB", "8-32MiB", "32-128MiB", "128-512MiB", "512MiB-1GiB", ">=1GiB",
};
#define NBINS (sizeof(bins) / sizeof(bins[0]))

typedef struct summary {
	uint64_t hist_count[NBINS], hist_bytes[NBINS];
	int64_t num_records;         /* sum over files with stats */
	size_t without_stats;
	size_t dv_count;
	int64_t dv_rows;
	uint64_t tomb_bytes;
	int64_t ckpt_version;        /* of the checkpoint the snapshot used; -1: none */
	const char *ckpt_kind;
	size_t ckpt_parts, ckpt_sidecars;
} summary;

static void summarize(const loom_snapshot *s, summary *sm)
{
	size_t i, n = loom_snapshot_file_count(s);
	memset(sm, 0, sizeof(*sm));
	for (i = 0; i < n; i++) {
		loom_file_info f = LOOM_FILE_INFO_INIT;
		size_t b = 0;
		loom_snapshot_file_at(&f, s, i);
		while (b + 1 < NBINS && (uint64_t)f.size >= bins[b])
			b++;
		sm->hist_count[b]++;
		sm->hist_bytes[b] += (uint64_t)f.size;
		if (f.num_records >= 0)
			sm->num_records += f.num_records;
		else
			sm->without_stats++;
		if (f.dv_storage_type) {
			sm->dv_count++;
			sm->dv_rows += f.dv_cardinality;
		}
	}
	n = loom_snapshot_tombstone_count(s);
	for (i = 0; i < n; i++) {
		loom_file_info f = LOOM_FILE_INFO_INIT;
		loom_snapshot_tombstone_at(&f, s, i);
		if (f.size > 0)
			sm->tomb_bytes += (uint64_t)f.size;
	}
	sm->ckpt_version = loom_snapshot_checkpoint_version(s);
	sm->ckpt_kind = loom_snapshot_checkpoint_kind(s);
	sm->ckpt_parts = loom_snapshot_checkpoint_part_count(s);
	sm->ckpt_sidecars = loom_snapshot_checkpoint_sidecar_count(s);
}

/* The fields after "path" of the JSON object of live file i; its deleted
 * rows too with `deleted_rows`. -1 when they cannot be read. */
static int json_live_file(FILE *o, const loom_snapshot *s, size_t i, const loom_file_info *f, int deleted_rows)
{
	uint64_t *rows;
	size_t nr, k;

	fprintf(o, ",\"size\":%" PRId64 ",\"partitionValues\":", f->size);
	json_kv_object(o, f->partition_values, f->n_partition_values);
	fputs(",\"numRecords\":", o);
	json_i64_or_null(o, f->num_records);
	fputs(",\"modificationTime\":", o);
	json_i64_or_null(o, f->modification_time);
	json_dv(o, f, 1);
	if (!deleted_rows || !f->dv_storage_type)
		return 0;
	if (loom_snapshot_deleted_rows(&rows, &nr, s, i) < 0)
		return -1;
	fputs(",\"deletedRows\":[", o);
	for (k = 0; k < nr; k++)
		fprintf(o, "%s%" PRIu64, k ? "," : "", rows[k]);
	fputc(']', o);
	loom_snapshot_rows_free(rows);
	return 0;
}

/* The fields after "path" of a tombstone's JSON object (no deleted rows). */
static int json_tombstone(FILE *o, const loom_snapshot *s, size_t i, const loom_file_info *f, int deleted_rows)
{
	(void)s, (void)i, (void)deleted_rows;
	fputs(",\"size\":", o);
	json_i64_or_null(o, f->size);
	fputs(",\"deletionTimestamp\":", o);
	json_i64_or_null(o, f->deletion_timestamp);
	json_dv(o, f, 0);
	return 0;
}

/* ,"<name>":[{"path":...,<fields>},...] over the n files `at` gives. */
static int json_file_list(FILE *o, const loom_snapshot *s, const char *name, size_t n,
                          int (*at)(loom_file_info *, const loom_snapshot *, size_t),
                          int (*fields)(FILE *, const loom_snapshot *, size_t, const loom_file_info *, int),
                          int deleted_rows)
{
	size_t i;

	fprintf(o, ",\"%s\":[", name);
	for (i = 0; i < n; i++) {
		loom_file_info f = LOOM_FILE_INFO_INIT;
		at(&f, s, i);
		fputs(i ? ",{\"path\":" : "{\"path\":", o);
		cli_json_string(o, f.path);
		if (fields(o, s, i, &f, deleted_rows) < 0)
			return -1;
		fputc('}', o);
	}
	fputc(']', o);
	return 0;
}

static int print_json(const loom_snapshot *s, const inspect_opts *io, FILE *o)
{
	summary sm;
	size_t i, n;
	int first;

	summarize(s, &sm);
	fprintf(o, "{\"table\":");
	cli_json_string(o, io->uri);
	fprintf(o, ",\"version\":%" PRId64, loom_snapshot_version(s));
	fprintf(o, ",\"protocol\":{\"minReaderVersion\":%d,\"minWriterVersion\":%d",
	        loom_snapshot_min_reader_version(s), loom_snapshot_min_writer_version(s));
	fputs(",\"readerFeatures\":", o);
	json_features(o, s, loom_snapshot_min_reader_version(s) >= 3,
	              loom_snapshot_reader_feature_count(s), loom_snapshot_reader_feature_at);
	fputs(",\"writerFeatures\":", o);
	json_features(o, s, loom_snapshot_min_writer_version(s) >= 7,
	              loom_snapshot_writer_feature_count(s), loom_snapshot_writer_feature_at);
	fputs("},\"metadata\":{\"id\":", o);
	cli_json_string(o, loom_snapshot_table_id(s));
	fputs(",\"name\":", o);
	cli_json_string(o, loom_snapshot_table_name(s));
	/* the schemaString is JSON itself: embed it as a value */
	fprintf(o, ",\"schema\":%s,\"partitionColumns\":", loom_snapshot_schema_json(s));
	json_str_list(o, s, loom_snapshot_partition_column_count(s), loom_snapshot_partition_column_at);
	fputs(",\"configuration\":", o);
	json_properties(o, s);
	fputs(",\"createdTime\":", o);
	json_i64_or_null(o, loom_snapshot_created_time(s));
	fprintf(o, "},\"numFiles\":%zu,\"totalBytes\":%" PRIu64, loom_snapshot_file_count(s),
	        loom_snapshot_total_bytes(s));
	fprintf(o, ",\"numRecords\":%" PRId64 ",\"filesWithoutStats\":%zu", sm.num_records,
	        sm.without_stats);
	fprintf(o, ",\"rows\":%" PRId64, sm.num_records - sm.dv_rows);
	fprintf(o, ",\"deletionVectors\":{\"count\":%zu,\"cardinality\":%" PRId64 "}",
	        sm.dv_count, sm.dv_rows);
	fprintf(o, ",\"tombstones\":{\"count\":%zu,\"bytes\":%" PRIu64 "}",
	        loom_snapshot_tombstone_count(s), sm.tomb_bytes);
	fputs(",\"fileSizeHistogram\":[", o);
	for (i = 0; i < NBINS; i++)
		fprintf(o, "%s{\"bin\":\"%s\",\"count\":%" PRIu64 ",\"bytes\":%" PRIu64 "}",
		        i ? "," : "", bin_names[i], sm.hist_count[i], sm.hist_bytes[i]);
	fputc(']', o);
	if (sm.ckpt_version >= 0)
		fprintf(o, ",\"checkpoint\":{\"version\":%" PRId64 ",\"kind\":\"%s\",\"parts\":%zu,"
		        "\"sidecars\":%zu}", sm.ckpt_version, sm.ckpt_kind, sm.ckpt_parts,
		        sm.ckpt_sidecars);
	else
		fputs(",\"checkpoint\":null", o);
	fputs(",\"lastCheckpoint\":", o);
	json_i64_or_null(o, loom_snapshot_last_checkpoint_hint(s));
	fprintf(o, ",\"commitsReplayed\":%zu,\"compactionsReplayed\":%zu",
	        loom_snapshot_replayed_commit_count(s), loom_snapshot_replayed_compaction_count(s));
	json_feature_state(o, s);
	fputs(",\"txns\":{", o);
	n = loom_snapshot_txn_count(s);
	for (i = 0; i < n; i++) {
		const char *app;
		int64_t v;
		loom_snapshot_txn_at(&app, &v, s, i);
		if (i)
			fputc(',', o);
		cli_json_string(o, app);
		fprintf(o, ":%" PRId64, v);
	}
	fputs("},\"domainMetadata\":{", o);
	n = loom_snapshot_domain_count(s);
	for (i = 0; i < n; i++) {
		const char *d, *c;
		loom_snapshot_domain_at(&d, &c, s, i);
		if (i)
			fputc(',', o);
		cli_json_string(o, d);
		fputc(':', o);
		cli_json_string(o, c);
	}
	fputs("},\"operations\":{", o);
	for (i = 0; i < LOOM_OP__COUNT; i++) {
		int rc = loom_snapshot_check_op(s, (loom_table_op)i);
		if (i)
			fputc(',', o);
		cli_json_string(o, loom_table_op_name((loom_table_op)i));
		fputc(':', o);
		cli_json_string(o, rc == 0 ? "allowed" : loom_error_last()->message);
	}
	fputs("},\"warnings\":[", o);
	n = loom_snapshot_warning_count(s);
	for (i = 0; i < n; i++) {
		if (i)
			fputc(',', o);
		cli_json_string(o, loom_snapshot_warning_at(s, i));
	}
	fputc(']', o);
	if (io->files || io->deleted_rows) {
		if (json_file_list(o, s, "files", loom_snapshot_file_count(s), loom_snapshot_file_at,
		                   json_live_file, io->deleted_rows) < 0)
			return -1;
		json_file_list(o, s, "tombstoneFiles", loom_snapshot_tombstone_count(s),
		               loom_snapshot_tombstone_at, json_tombstone, 0);
	}
	(void)first;
	fputs("}\n", o);
	return 0;
}

static int print_human(const loom_snapshot *s, const inspect_opts *io, FILE *o)
{
	summary sm;
	size_t i, n;
	char hb[32];

	summarize(s, &sm);
	fprintf(o, "table:        %s\n", io->uri);
	fprintf(o, "version:      %" PRId64 "\n", loom_snapshot_version(s));
	fprintf(o, "protocol:     reader %d, writer %d\n", loom_snapshot_min_reader_version(s),
	        loom_snapshot_min_writer_version(s));
	if ((n = loom_snapshot_reader_feature_count(s))) {
		fputs("reader features:", o);
		for (i = 0; i < n; i++)
			fprintf(o, " %s", loom_snapshot_reader_feature_at(s, i));
		fputc('\n', o);
	}
	if ((n = loom_snapshot_writer_feature_count(s))) {
		fputs("writer features:", o);
		for (i = 0; i < n; i++)
			fprintf(o, " %s", loom_snapshot_writer_feature_at(s, i));
		fputc('\n', o);
	}
	fprintf(o, "table id:     %s\n", loom_snapshot_table_id(s));
	fprintf(o, "schema:       %s\n", loom_snapshot_schema_json(s));
	n = loom_snapshot_partition_column_count(s);
	fputs("partitioned:  ", o);
	if (!n)
		fputs("no", o);
	for (i = 0; i < n; i++)
		fprintf(o, "%s%s", i ? ", " : "by ", loom_snapshot_partition_column_at(s, i));
	fputc('\n', o);
	loom_size_format(hb, sizeof(hb), (int64_t)(loom_snapshot_total_bytes(s)));
	fprintf(o, "live files:   %zu (%s)\n", loom_snapshot_file_count(s), hb);
	fprintf(o, "records:      %" PRId64 " in stats", sm.num_records);
	if (sm.without_stats)
		fprintf(o, " (%zu files without stats)", sm.without_stats);
	fprintf(o, ", %" PRId64 " after deletion vectors\n", sm.num_records - sm.dv_rows);
	fputs("file sizes:  ", o);
	for (i = 0; i < NBINS; i++)
		if (sm.hist_count[i])
			fprintf(o, " %s: %" PRIu64, bin_names[i], sm.hist_count[i]);
	fputc('\n', o);
	fprintf(o, "deletion vectors: %zu (%" PRId64 " rows deleted)\n", sm.dv_count, sm.dv_rows);
	loom_size_format(hb, sizeof(hb), (int64_t)(sm.tomb_bytes));
	fprintf(o, "tombstones:   %zu (%s)\n", loom_snapshot_tombstone_count(s), hb);
	if (sm.ckpt_version >= 0)
		fprintf(o, "checkpoint:   version %" PRId64 " (%s, %zu file%s, %zu sidecar%s), "
		        "%zu commits after it", sm.ckpt_version, sm.ckpt_kind, sm.ckpt_parts,
		        sm.ckpt_parts == 1 ? "" : "s", sm.ckpt_sidecars,
		        sm.ckpt_sidecars == 1 ? "" : "s", loom_snapshot_replayed_commit_count(s));
	else
		fprintf(o, "checkpoint:   none used (%zu commits replayed",
		        loom_snapshot_replayed_commit_count(s));
	if (loom_snapshot_replayed_compaction_count(s))
		fprintf(o, "%s%zu log compaction file%s", sm.ckpt_version >= 0 ? " + " : ", ",
		        loom_snapshot_replayed_compaction_count(s),
		        loom_snapshot_replayed_compaction_count(s) == 1 ? "" : "s");
	fputs(sm.ckpt_version >= 0 ? "\n" : ")\n", o);
	if (loom_snapshot_last_checkpoint_hint(s) >= 0)
		fprintf(o, "_last_checkpoint: version %" PRId64 "\n",
		        loom_snapshot_last_checkpoint_hint(s));
	human_feature_state(o, s);
	for (i = 0; i < LOOM_OP__COUNT; i++) {
		int rc = loom_snapshot_check_op(s, (loom_table_op)i);
		fprintf(o, "%-13s %s\n", loom_table_op_name((loom_table_op)i),
		        rc == 0 ? "allowed" : loom_error_last()->message);
	}
	n = loom_snapshot_warning_count(s);
	for (i = 0; i < n; i++)
		fprintf(o, "warning: %s\n", loom_snapshot_warning_at(s, i));
	if (io->files) {
		n = loom_snapshot_file_count(s);
		for (i = 0; i < n; i++) {
			loom_file_info f = LOOM_FILE_INFO_INIT;
			size_t k;
			loom_snapshot_file_at(&f, s, i);
			fprintf(o, "%12" PRId64 "  %s", f.size, f.path);
			for (k = 0; k < f.n_partition_values; k++)
				fprintf(o, "%s%s=%s", k ? "," : "  [", f.partition_values[k].key,
				        f.partition_values[k].value ? f.partition_values[k].value : "null");
			if (f.n_partition_values)
				fputc(']', o);
			if (f.num_records >= 0)
				fprintf(o, "  records=%" PRId64, f.num_records);
			if (f.dv_storage_type)
				fprintf(o, "  dv=%" PRId64, f.dv_cardinality);
			fputc('\n', o);
		}
	}
	return 0;
}

static void inspect_usage(FILE *o)
{
	fprintf(o, "usage: loom inspect TABLE [--config FILE] [--json] [--files] [--version N]\n"
	           "                  [--deleted-rows]\n"
	           "TABLE is a path or URI, or with --config a table name like raw.events.\n"
	           "  --config FILE   the loom storage YAML that names the table\n"
	           "  --json          machine-readable output\n"
	           "  --files         list the live files (and, with --json, tombstones)\n"
	           "  --version N     the table as of version N (time travel)\n"
	           "  --deleted-rows  decode deletion vectors (JSON only)\n");
}

int cmd_inspect(int argc, char **argv)
{
	inspect_opts io;
	loom_table *t = NULL;
	loom_snapshot *s = NULL;
	const char *config = NULL;
	cli_table table;
	int i, rc;

	memset(&io, 0, sizeof(io));
	io.version = -1;
	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--json") == 0) {
			io.json = 1;
		} else if (strcmp(argv[i], "--files") == 0) {
			io.files = 1;
		} else if (strcmp(argv[i], "--config") == 0 && i + 1 < argc) {
			config = argv[++i];
		} else if (strcmp(argv[i], "--deleted-rows") == 0) {
			io.deleted_rows = 1;
		} else if (strcmp(argv[i], "--version") == 0 && i + 1 < argc) {
			char *end;
			long long v = strtoll(argv[++i], &end, 10);
			if (*end || v < 0) {
				fprintf(stderr, "loom inspect: bad --version '%s'\n", argv[i]);
				return CLI_EXIT_USAGE;
			}
			io.version = v;
		} else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
			inspect_usage(stdout);
			return CLI_EXIT_OK;
		} else if (argv[i][0] == '-' || io.uri) {
			fprintf(stderr, "loom inspect: unexpected argument '%s'\n", argv[i]);
			inspect_usage(stderr);
			return CLI_EXIT_USAGE;
		} else {
			io.uri = argv[i];
		}
	}
	if (!io.uri) {
		inspect_usage(stderr);
		return CLI_EXIT_USAGE;
	}
	if ((rc = cli_table_resolve(&table, "inspect", io.uri, config)) != 0)
		return rc;
	rc = loom_table_open_opts(&t, table.uri, &table.store_opts);
	if (rc == 0)
		rc = loom_snapshot_load(&s, t, io.version);
	if (rc < 0) {
		cli_print_error("inspect");
		loom_table_free(t);
		cli_table_release(&table);
		return CLI_EXIT_FAILED;
	}
	io.uri = table.shown;
	rc = io.json ? print_json(s, &io, stdout) : print_human(s, &io, stdout);
	if (rc < 0)
		cli_print_error("inspect");
	loom_snapshot_free(s);
	loom_table_free(t);
	cli_table_release(&table);
	return rc < 0 ? CLI_EXIT_FAILED : CLI_EXIT_OK;
}
