/* ops/pipeline/pipe_settings.c - what every unit of a rewrite run shares: writer
 * and stats options from the table and the location, output directories,
 * results, and the one rule for files outside the table root. */
#include "ops/pipeline/pipeline.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "codec/codec.h"
#include "delta/partition.h"
#include "delta/props.h"
#include "delta/protocol.h"
#include "util/size.h"
#include "util/alloc.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/percent.h"

#define OPS_ERR(code, ...) loom_err((code), LOOM_ERRCLASS_OPS, __VA_ARGS__)

static const char *kv_find(const loom_kv *kv, size_t n, const char *key)
{
	size_t i;
	for (i = 0; i < n; i++)
		if (kv[i].key && strcasecmp(kv[i].key, key) == 0)
			return kv[i].value;
	return NULL;
}

static int parse_count(const char *what, const char *s, int64_t *out)
{
	int64_t v = 0;
	const char *p = s;
	if (!*p)
		return OPS_ERR(LOOM_EINVAL, "writer setting %s is empty", what);
	for (; *p; p++) {
		if (*p == '_' || *p == ',')
			continue;
		if (*p < '0' || *p > '9' || v > INT64_MAX / 10)
			return OPS_ERR(LOOM_EINVAL, "writer setting %s: '%s' is not a whole number", what, s);
		v = v * 10 + (*p - '0');
	}
	*out = v;
	return 0;
}

int pipe_settings_init(pipe_settings *set, loom_store *store, const delta_snapshot *snap,
                       const loom_table_location *loc)
{
	delta_table_props props;
	const char *v;

	memset(set, 0, sizeof(*set));
	set->store = store;
	set->snap = snap;
	pq_writer_opts_default(&set->wopts);
	set->wopts.codec = PQ_CODEC_SNAPPY;
	/* Row groups of 64 MiB (encoded): half the writer default, so two
	 * concurrent bins hold less memory; still large for scans. */
	set->wopts.row_group_bytes = (size_t)16 << 20;
	/* A smaller dictionary budget: high-cardinality columns fall back to
	 * PLAIN after 256 KiB of distinct values instead of 1 MiB, so less time
	 * goes to hashing values a dictionary cannot help. */
	set->wopts.dict_limit_bytes = (size_t)256 << 10;
	LOOM_TRY(delta_props_parse(&snap->metadata, &props));
	set->sopts.num_indexed_cols = props.data_skipping_num_indexed_cols;
	set->sopts.stats_columns = props.data_skipping_stats_columns;
	set->sopts.tight_bounds = delta_protocol_has_feature(&snap->protocol, "deletionVectors");
	if ((v = delta_snapshot_property(snap, "delta.dataSkippingStringPrefixLength")) != NULL)
		set->sopts.string_prefix = atoi(v);
	set->copy_min_bytes = set->wopts.row_group_bytes / 8;
	if (!loc)
		return 0;
	if ((v = kv_find(loc->writer, loc->n_writer, "compression")) != NULL) {
		int c = loom_codec_from_name(v);
		if (c < 0 || c == LOOM_CODEC_LZ4_HADOOP || c == PQ_CODEC_LZO)
			return OPS_ERR(LOOM_EINVAL, "writer setting compression: unknown or unsupported codec '%s'", v);
		set->wopts.codec = c;
	}
	if ((v = kv_find(loc->writer, loc->n_writer, "compression_level")) != NULL) {
		int64_t lvl = 0; /* set on success; GCC 12 -O3 cannot see it */
		LOOM_TRY(parse_count("compression_level", v, &lvl));
		set->wopts.level = (int)lvl;
	}
	if ((v = kv_find(loc->writer, loc->n_writer, "row_group_size")) != NULL ||
	    (v = kv_find(loc->writer, loc->n_writer, "max_row_group_size")) != NULL)
		LOOM_TRY(parse_count("row_group_size", v, &set->row_group_rows));
	if ((v = kv_find(loc->writer, loc->n_writer, "row_group_bytes")) != NULL) {
		int64_t b = 0;
		/* a size like every other: "16MiB" as well as 16777216 */
		if (loom_size_parse(&b, v) < 0 || b <= 0)
			return OPS_ERR(LOOM_EINVAL, "writer setting row_group_bytes: '%s' is not a size "
			               "(like 16MiB)", v);
		set->wopts.row_group_bytes = (size_t)b;
	}
	/* Copy-through keeps an input row group's size: keep those within 8x
	 * of what the writer would make, merge the smaller ones. */
	set->copy_min_bytes = set->wopts.row_group_bytes / 8;
	if ((v = kv_find(loc->writer, loc->n_writer, "copy_row_group_min_size")) != NULL) {
		int64_t b;
		if (strcasecmp(v, "off") == 0)
			set->copy_min_bytes = 0;
		else if (loom_size_parse(&b, v) < 0 || b <= 0)
			return OPS_ERR(LOOM_EINVAL, "writer setting copy_row_group_min_size: '%s' is not a size "
			               "(like 2MiB) or off", v);
		else
			set->copy_min_bytes = (uint64_t)b;
	}
	return 0;
}

int pipe_partition_dir(const delta_snapshot *snap, const delta_file *f, loom_buf *out)
{
	uint32_t i;
	int cm = delta_snapshot_column_mapping(snap);
	for (i = 0; i < snap->metadata.num_partition_columns; i++) {
		const char *col = snap->metadata.partition_columns[i];
		const delta_field *fd = delta_schema_find(&snap->schema, col);
		const char *phys = fd ? delta_field_physical_name(fd, cm != 0) : col;
		int found = 0;
		const char *val = delta_partition_raw(snap, f, col, &found);
		LOOM_TRY(loom_hive_escape(out, phys, strlen(phys)));
		LOOM_TRY(loom_buf_putc(out, '='));
		if (!val || !*val)
			LOOM_TRY(loom_buf_puts(out, "__HIVE_DEFAULT_PARTITION__"));
		else
			LOOM_TRY(loom_hive_escape(out, val, strlen(val)));
		LOOM_TRY(loom_buf_putc(out, '/'));
	}
	return 0;
}

int pipe_file_key(loom_store *store, const delta_file *f, const char **key)
{
	int rc = loom_store_key_of(key, store, f->path);
	if (rc == LOOM_ENOMEM)
		return rc;
	if (rc < 0)
		return OPS_ERR(LOOM_EUNSUPPORTED, "%s: data files outside the table root %s are not rewritten",
		               f->path, loom_store_root(store));
	return 0;
}

int pipe_result_take(pipe_result *dst, pipe_result *src)
{
	dst->rows_in += src->rows_in;
	dst->rows_deleted += src->rows_deleted;
	dst->batches += src->batches;
	src->rows_in = src->rows_deleted = src->batches = 0;
	if (!src->num_files)
		return 0;
	if (!dst->num_files) {
		loom_free(dst->files);
		dst->files = src->files;
		dst->num_files = src->num_files;
	} else {
		pipe_output *grown = loom_reallocarray(dst->files, dst->num_files + src->num_files, sizeof(*grown));
		if (!grown)
			return OPS_ERR(LOOM_ENOMEM, "out of memory");
		memcpy(grown + dst->num_files, src->files, src->num_files * sizeof(*grown));
		dst->files = grown;
		dst->num_files += src->num_files;
		loom_free(src->files);
	}
	src->files = NULL;
	src->num_files = 0;
	return 0;
}

void pipe_result_dispose(pipe_result *res)
{
	size_t i;
	if (!res)
		return;
	for (i = 0; i < res->num_files; i++) {
		loom_free(res->files[i].key);
		loom_free(res->files[i].path_raw);
		loom_free(res->files[i].stats);
	}
	loom_free(res->files);
	memset(res, 0, sizeof(*res));
}
