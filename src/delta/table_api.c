/* delta/table_api.c - the public table/snapshot API (loom/table.h) over
 * the internal snapshot. */
#include "loom/table.h"

#include <stdatomic.h>
#include <string.h>

#include "delta/checkpoint.h"
#include "delta/dv.h"
#include "delta/props.h"
#include "delta/protocol.h"
#include "delta/snapshot.h"
#include "util/alloc.h"
#include "util/error.h"
#include "util/secret.h"
#include "util/versioned.h"

/* A table is shared by its snapshots: each snapshot holds a reference,
 * so a snapshot stays valid after loom_table_free. */
struct loom_table {
	loom_store *store;
	int owns_store;
	char *uri;           /* for messages; secrets masked */
	atomic_int refs;
};

struct loom_snapshot {
	delta_snapshot *snap;
	loom_table *table;   /* referenced */
};

static void table_unref(loom_table *t)
{
	if (!t || atomic_fetch_sub(&t->refs, 1) != 1)
		return;
	if (t->owns_store)
		loom_store_free(t->store);
	loom_free(t->uri);
	loom_free(t);
}

/* A table over `store` whose URI (kept for messages only) is masked with
 * the secrets of `opts` and the environment. */
static int open_masked(loom_table **out, loom_store *store, const char *uri,
                       const loom_store_opts *opts)
{
	loom_secrets secrets = LOOM_SECRETS_INIT;
	char shown[1024];
	int rc = 0;
	if (opts)
		rc = loom_secrets_add_options(&secrets, opts->options, opts->n_options);
	if (rc == 0)
		rc = loom_secrets_add_env(&secrets);
	if (rc == 0) {
		loom_secrets_mask(&secrets, uri ? uri : "", shown, sizeof(shown));
		rc = loom_table_open_store(out, store, shown);
	}
	loom_secrets_dispose(&secrets);
	return rc;
}

LOOM_EXTERN(int) loom_table_open(loom_table **out, const char *uri)
{
	return loom_table_open_opts(out, uri, NULL);
}

LOOM_EXTERN(int) loom_table_open_opts(loom_table **out, const char *uri,
                                      const loom_store_opts *opts)
{
	loom_store *st;
	int rc;
	*out = NULL;
	if (!uri || !*uri)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_DELTA, "empty table URI");
	rc = loom_store_open(&st, uri, opts);
	if (rc < 0) {
		char shown[1024];
		loom_secrets_mask(NULL, uri, shown, sizeof(shown));
		return loom_err_wrap("table %s", shown);
	}
	rc = open_masked(out, st, uri, opts);
	if (rc < 0) {
		loom_store_free(st);
		return rc;
	}
	(*out)->owns_store = 1;
	return 0;
}

LOOM_EXTERN(int) loom_table_open_store(loom_table **out, loom_store *store,
                                       const char *uri)
{
	loom_table *t = loom_calloc(1, sizeof(*t));
	char shown[1024];
	*out = NULL;
	if (!t)
		return LOOM_ENOMEM;
	t->store = store;
	atomic_init(&t->refs, 1);
	loom_secrets_mask(NULL, uri ? uri : "", shown, sizeof(shown));
	t->uri = loom_strdup(shown);
	if (!t->uri) {
		loom_free(t);
		return LOOM_ENOMEM;
	}
	*out = t;
	return 0;
}

LOOM_EXTERN(void) loom_table_free(loom_table *t)
{
	table_unref(t);
}

LOOM_EXTERN(loom_store *) loom_table_store(loom_table *t)
{
	return t ? t->store : NULL;
}

LOOM_EXTERN(int) loom_snapshot_load(loom_snapshot **out, loom_table *t, int64_t version)
{
	loom_snapshot *s;
	int rc;

	*out = NULL;
	if (!t)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_DELTA, "no table");
	s = loom_calloc(1, sizeof(*s));
	if (!s)
		return LOOM_ENOMEM;
	rc = delta_snapshot_load(&s->snap, t->store, version, NULL);
	if (rc < 0) {
		loom_free(s);
		return loom_err_wrap("table %s", t->uri);
	}
	s->table = t;
	atomic_fetch_add(&t->refs, 1);
	*out = s;
	return 0;
}

LOOM_EXTERN(void) loom_snapshot_free(loom_snapshot *s)
{
	if (!s)
		return;
	delta_snapshot_free(s->snap);
	table_unref(s->table);
	loom_free(s);
}

LOOM_EXTERN(int64_t) loom_snapshot_version(const loom_snapshot *s)
{
	return s->snap->version;
}

LOOM_EXTERN(int) loom_snapshot_min_reader_version(const loom_snapshot *s)
{
	return s->snap->protocol.min_reader_version;
}

LOOM_EXTERN(int) loom_snapshot_min_writer_version(const loom_snapshot *s)
{
	return s->snap->protocol.min_writer_version;
}

LOOM_EXTERN(size_t) loom_snapshot_reader_feature_count(const loom_snapshot *s)
{
	return s->snap->protocol.reader_features ? s->snap->protocol.num_reader_features : 0;
}

LOOM_EXTERN(const char *) loom_snapshot_reader_feature_at(const loom_snapshot *s, size_t i)
{
	return i < loom_snapshot_reader_feature_count(s) ? s->snap->protocol.reader_features[i] : NULL;
}

LOOM_EXTERN(size_t) loom_snapshot_writer_feature_count(const loom_snapshot *s)
{
	return s->snap->protocol.writer_features ? s->snap->protocol.num_writer_features : 0;
}

LOOM_EXTERN(const char *) loom_snapshot_writer_feature_at(const loom_snapshot *s, size_t i)
{
	return i < loom_snapshot_writer_feature_count(s) ? s->snap->protocol.writer_features[i] : NULL;
}

LOOM_EXTERN(const char *) loom_snapshot_table_id(const loom_snapshot *s)
{
	return s->snap->metadata.id;
}

LOOM_EXTERN(const char *) loom_snapshot_table_name(const loom_snapshot *s)
{
	return s->snap->metadata.name;
}

LOOM_EXTERN(const char *) loom_snapshot_schema_json(const loom_snapshot *s)
{
	return s->snap->metadata.schema_string;
}

LOOM_EXTERN(int64_t) loom_snapshot_created_time(const loom_snapshot *s)
{
	return s->snap->metadata.created_time;
}

LOOM_EXTERN(size_t) loom_snapshot_partition_column_count(const loom_snapshot *s)
{
	return s->snap->metadata.num_partition_columns;
}

LOOM_EXTERN(const char *) loom_snapshot_partition_column_at(const loom_snapshot *s, size_t i)
{
	return i < s->snap->metadata.num_partition_columns
	       ? s->snap->metadata.partition_columns[i] : NULL;
}

LOOM_EXTERN(size_t) loom_snapshot_property_count(const loom_snapshot *s)
{
	return s->snap->metadata.num_configuration;
}

LOOM_EXTERN(const loom_kv *) loom_snapshot_property_at(const loom_snapshot *s, size_t i)
{
	return i < s->snap->metadata.num_configuration ? &s->snap->metadata.configuration[i] : NULL;
}

LOOM_EXTERN(const char *) loom_snapshot_property(const loom_snapshot *s, const char *key)
{
	return delta_snapshot_property(s->snap, key);
}

/* The versions of the structs a caller hands in to be filled
 * (util/versioned.h). */
LOOM_VERSIONS(info_versions, loom_file_info, LOOM_FILE_INFO_VERSION, LOOM_FILE_INFO_INIT,
              sizeof(loom_file_info));
LOOM_VERSIONS(props_versions, loom_table_props, LOOM_TABLE_PROPS_VERSION, LOOM_TABLE_PROPS_INIT,
              sizeof(loom_table_props));

LOOM_VERSIONED_INIT_FN(file_info, info_versions)
LOOM_VERSIONED_INIT_FN(table_props, props_versions)

/* File `f` into the caller's info, of the caller's version. */
static int fill_info(const delta_file *f, loom_file_info *out)
{
	const loom_file_info info = {
		.version = LOOM_FILE_INFO_VERSION,
		.path = f->path,
		.path_raw = f->path_raw,
		.size = f->size,
		.modification_time = f->modification_time,
		.deletion_timestamp = f->deletion_timestamp,
		.num_records = f->num_records,
		.stats = f->stats,
		.n_partition_values = f->num_partition_values,
		.partition_values = f->partition_values,
		.dv_storage_type = f->dv.storage_type,
		.dv_cardinality = f->dv.storage_type ? f->dv.cardinality : 0,
		.dv_path_or_inline = f->dv.path_or_inline_dv,
		.dv_offset = f->dv.has_offset ? f->dv.offset : -1,
		.dv_size_in_bytes = f->dv.size_in_bytes,
		.data_change = f->data_change,
	};
	return loom_versioned_write(&info_versions, out, out ? out->version : 0, &info);
}

LOOM_EXTERN(size_t) loom_snapshot_file_count(const loom_snapshot *s)
{
	return s->snap->num_files;
}

LOOM_EXTERN(uint64_t) loom_snapshot_total_bytes(const loom_snapshot *s)
{
	return s->snap->total_bytes;
}

LOOM_EXTERN(int) loom_snapshot_file_at(loom_file_info *out, const loom_snapshot *s, size_t i)
{
	if (i >= s->snap->num_files)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_DELTA, "file index %zu out of range", i);
	return fill_info(s->snap->files[i], out);
}

LOOM_EXTERN(size_t) loom_snapshot_tombstone_count(const loom_snapshot *s)
{
	return s->snap->num_tombstones;
}

LOOM_EXTERN(int) loom_snapshot_tombstone_at(loom_file_info *out, const loom_snapshot *s,
                                            size_t i)
{
	if (i >= s->snap->num_tombstones)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_DELTA,
		                "tombstone index %zu out of range", i);
	return fill_info(s->snap->tombstones[i], out);
}

LOOM_EXTERN(int) loom_snapshot_deleted_rows(uint64_t **rows, size_t *n,
                                            const loom_snapshot *s, size_t i)
{
	const delta_file *f;
	delta_row_filter *rf;
	int rc;

	*rows = NULL;
	*n = 0;
	if (i >= s->snap->num_files)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_DELTA, "file index %zu out of range", i);
	f = s->snap->files[i];
	if (!f->dv.storage_type)
		return 0;
	rc = delta_dv_load(s->snap->store, &f->dv, &rf);
	if (rc < 0)
		return loom_err_wrap("data file %s", f->path);
	rc = delta_row_filter_to_array(rf, rows, n);
	delta_row_filter_free(rf);
	return rc;
}

LOOM_EXTERN(void) loom_snapshot_rows_free(uint64_t *rows)
{
	loom_free(rows);
}

LOOM_EXTERN(size_t) loom_snapshot_txn_count(const loom_snapshot *s)
{
	return s->snap->num_txns;
}

LOOM_EXTERN(int) loom_snapshot_txn_at(const char **app_id, int64_t *version,
                                      const loom_snapshot *s, size_t i)
{
	if (i >= s->snap->num_txns)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_DELTA, "txn index %zu out of range", i);
	*app_id = s->snap->txns[i].app_id;
	*version = s->snap->txns[i].version;
	return 0;
}

LOOM_EXTERN(size_t) loom_snapshot_domain_count(const loom_snapshot *s)
{
	return s->snap->num_domains;
}

LOOM_EXTERN(int) loom_snapshot_domain_at(const char **domain, const char **configuration,
                                         const loom_snapshot *s, size_t i)
{
	if (i >= s->snap->num_domains)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_DELTA, "domain index %zu out of range", i);
	*domain = s->snap->domains[i].domain;
	*configuration = s->snap->domains[i].configuration;
	return 0;
}

LOOM_EXTERN(const char *) loom_snapshot_commit_info(const loom_snapshot *s)
{
	return s->snap->commit_info;
}

LOOM_EXTERN(int64_t) loom_snapshot_checkpoint_version(const loom_snapshot *s)
{
	return s->snap->checkpoint_version;
}

LOOM_EXTERN(const char *) loom_snapshot_checkpoint_kind(const loom_snapshot *s)
{
	return delta_checkpoint_kind_name(s->snap->checkpoint_kind);
}

LOOM_EXTERN(size_t) loom_snapshot_checkpoint_part_count(const loom_snapshot *s)
{
	return s->snap->checkpoint_parts;
}

LOOM_EXTERN(size_t) loom_snapshot_checkpoint_sidecar_count(const loom_snapshot *s)
{
	return s->snap->num_sidecars;
}

LOOM_EXTERN(int64_t) loom_snapshot_last_checkpoint_hint(const loom_snapshot *s)
{
	return s->snap->last_checkpoint_hint;
}

LOOM_EXTERN(size_t) loom_snapshot_replayed_commit_count(const loom_snapshot *s)
{
	return s->snap->num_commits_replayed;
}

LOOM_EXTERN(size_t) loom_snapshot_replayed_compaction_count(const loom_snapshot *s)
{
	return s->snap->num_compactions_replayed;
}

LOOM_EXTERN(const char *) loom_snapshot_clustering_domain(const loom_snapshot *s)
{
	return s->snap->sysdom.clustering_domain;
}

LOOM_EXTERN(size_t) loom_snapshot_clustering_column_count(const loom_snapshot *s)
{
	return s->snap->sysdom.clustering_columns ? s->snap->sysdom.num_clustering_columns : 0;
}

LOOM_EXTERN(const char *) loom_snapshot_clustering_column_at(const loom_snapshot *s, size_t i)
{
	return i < loom_snapshot_clustering_column_count(s)
	       ? s->snap->sysdom.clustering_columns[i] : NULL;
}

LOOM_EXTERN(const char *) loom_snapshot_clustering_logical_column_at(const loom_snapshot *s,
                                                                    size_t i)
{
	return i < loom_snapshot_clustering_column_count(s) && s->snap->sysdom.clustering_logical
	       ? s->snap->sysdom.clustering_logical[i] : NULL;
}

LOOM_EXTERN(int64_t) loom_snapshot_row_id_high_water_mark(const loom_snapshot *s)
{
	return s->snap->sysdom.row_id_high_water_mark;
}

LOOM_EXTERN(int) loom_snapshot_in_commit_timestamps(int64_t *enablement_version,
                                                    int64_t *enablement_timestamp,
                                                    int64_t *version_timestamp,
                                                    const loom_snapshot *s)
{
	const delta_snapshot *d = s->snap;
	if (enablement_version)
		*enablement_version = d->ict.enablement_version;
	if (enablement_timestamp)
		*enablement_timestamp = d->ict.enablement_timestamp;
	if (version_timestamp)
		*version_timestamp = d->in_commit_timestamp;
	return d->ict.enabled;
}

LOOM_EXTERN(size_t) loom_snapshot_warning_count(const loom_snapshot *s)
{
	return s->snap->num_warnings;
}

LOOM_EXTERN(const char *) loom_snapshot_warning_at(const loom_snapshot *s, size_t i)
{
	return i < s->snap->num_warnings ? s->snap->warnings[i] : NULL;
}

LOOM_EXTERN(const char *) loom_table_op_name(loom_table_op op)
{
	return delta_op_name(op);
}

LOOM_EXTERN(int) loom_snapshot_check_op(const loom_snapshot *s, loom_table_op op)
{
	return delta_protocol_check(&s->snap->protocol, op);
}

LOOM_EXTERN(int) loom_snapshot_props(loom_table_props *out, const loom_snapshot *s)
{
	loom_table_props props = LOOM_TABLE_PROPS_INIT;
	LOOM_TRY(loom_versioned_check(&props_versions, out ? out->version : 0));
	LOOM_TRY(delta_props_parse(&s->snap->metadata, &props));
	return loom_versioned_write(&props_versions, out, out->version, &props);
}

LOOM_EXTERN(int) loom_interval_parse_ms(int64_t *out_ms, const char *s)
{
	return delta_interval_parse_ms(s, out_ms);
}
