/* abi_layout: the size and field offsets of every public struct the Python
 * package mirrors with ctypes (python/libloom/_capi.py), as JSON, so
 * tests/python/test_abi.py can hold the two to the compiler's layout. */
#include <stddef.h>
#include <stdio.h>

#include "loom.h"

#define STRUCT(t) printf("%s\"%s\":{\"sizeof\":%zu", first ? "" : ",", #t, sizeof(t)); first = 0
#define FIELD(t, f) printf(",\"%s\":%zu", #f, offsetof(t, f))
#define END() printf("}")

int main(void)
{
	int first = 1;
	printf("{");
	STRUCT(loom_kv); FIELD(loom_kv, key); FIELD(loom_kv, value); END();
	STRUCT(loom_error); FIELD(loom_error, code); FIELD(loom_error, klass);
	FIELD(loom_error, message); END();
	STRUCT(loom_vacuum_opts); FIELD(loom_vacuum_opts, version);
	FIELD(loom_vacuum_opts, retention_hours); FIELD(loom_vacuum_opts, dry_run);
	FIELD(loom_vacuum_opts, full); FIELD(loom_vacuum_opts, retention_check); END();
	STRUCT(loom_compact_opts); FIELD(loom_compact_opts, version);
	FIELD(loom_compact_opts, target_size); FIELD(loom_compact_opts, dry_run);
	FIELD(loom_compact_opts, partition_filters); FIELD(loom_compact_opts, n_partition_filters);
	FIELD(loom_compact_opts, progress); FIELD(loom_compact_opts, progress_ctx);
	FIELD(loom_compact_opts, copy_row_group_min_size); FIELD(loom_compact_opts, commit_every); END();
	STRUCT(loom_zorder_opts); FIELD(loom_zorder_opts, version); FIELD(loom_zorder_opts, columns);
	FIELD(loom_zorder_opts, n_columns); FIELD(loom_zorder_opts, target_size);
	FIELD(loom_zorder_opts, curve); FIELD(loom_zorder_opts, full); FIELD(loom_zorder_opts, dry_run);
	FIELD(loom_zorder_opts, memory_budget); FIELD(loom_zorder_opts, temp_dir);
	FIELD(loom_zorder_opts, spill_limit); FIELD(loom_zorder_opts, commit_every); END();
	STRUCT(loom_checkpoint_opts); FIELD(loom_checkpoint_opts, version);
	FIELD(loom_checkpoint_opts, table_version); FIELD(loom_checkpoint_opts, part_size); END();
	STRUCT(loom_cleanup_logs_opts); FIELD(loom_cleanup_logs_opts, version);
	FIELD(loom_cleanup_logs_opts, dry_run); FIELD(loom_cleanup_logs_opts, force);
	FIELD(loom_cleanup_logs_opts, retention_hours); END();
	STRUCT(loom_convert_opts); FIELD(loom_convert_opts, version);
	FIELD(loom_convert_opts, partition_columns); FIELD(loom_convert_opts, n_partition_columns);
	END();
	STRUCT(loom_table_location); FIELD(loom_table_location, version);
	FIELD(loom_table_location, uri);
	FIELD(loom_table_location, storage_options); FIELD(loom_table_location, n_storage_options);
	FIELD(loom_table_location, writer); FIELD(loom_table_location, n_writer);
	FIELD(loom_table_location, delta_config); FIELD(loom_table_location, n_delta_config);
	FIELD(loom_table_location, commit); FIELD(loom_table_location, n_commit);
	FIELD(loom_table_location, target_file_size); END();
	STRUCT(loom_metric); FIELD(loom_metric, name); FIELD(loom_metric, value); END();
	STRUCT(loom_upload_info); FIELD(loom_upload_info, key);
	FIELD(loom_upload_info, initiated_ms); FIELD(loom_upload_info, bytes); END();
	STRUCT(loom_op_result); FIELD(loom_op_result, version); FIELD(loom_op_result, kind);
	FIELD(loom_op_result, files_deleted);
	FIELD(loom_op_result, n_files_deleted); FIELD(loom_op_result, dry_run);
	FIELD(loom_op_result, num_files_added); FIELD(loom_op_result, num_files_removed);
	FIELD(loom_op_result, metrics); FIELD(loom_op_result, n_metrics);
	FIELD(loom_op_result, uploads); FIELD(loom_op_result, n_uploads); END();
	STRUCT(loom_maintainer); FIELD(loom_maintainer, version); FIELD(loom_maintainer, name);
	FIELD(loom_maintainer, vacuum); FIELD(loom_maintainer, compact);
	FIELD(loom_maintainer, zorder); FIELD(loom_maintainer, payload);
	FIELD(loom_maintainer, purge); FIELD(loom_maintainer, analyze); END();
	STRUCT(loom_purge_opts); FIELD(loom_purge_opts, version);
	FIELD(loom_purge_opts, target_size); FIELD(loom_purge_opts, dry_run);
	FIELD(loom_purge_opts, partition_filters); FIELD(loom_purge_opts, n_partition_filters); END();
	STRUCT(loom_analyze_opts); FIELD(loom_analyze_opts, version); FIELD(loom_analyze_opts, all);
	FIELD(loom_analyze_opts, dry_run); FIELD(loom_analyze_opts, columns);
	FIELD(loom_analyze_opts, n_columns); END();
	STRUCT(loom_progress); FIELD(loom_progress, event); FIELD(loom_progress, table_ref);
	FIELD(loom_progress, op_name); FIELD(loom_progress, table_index);
	FIELD(loom_progress, table_count); FIELD(loom_progress, code); FIELD(loom_progress, skipped);
	FIELD(loom_progress, seconds);
	FIELD(loom_progress, result); END();
	STRUCT(loom_store_opts); FIELD(loom_store_opts, version);
	FIELD(loom_store_opts, options); FIELD(loom_store_opts, n_options);
	FIELD(loom_store_opts, ignore_env); END();
	STRUCT(loom_file_info); FIELD(loom_file_info, version); FIELD(loom_file_info, path);
	FIELD(loom_file_info, path_raw);
	FIELD(loom_file_info, size); FIELD(loom_file_info, modification_time);
	FIELD(loom_file_info, deletion_timestamp); FIELD(loom_file_info, num_records);
	FIELD(loom_file_info, stats); FIELD(loom_file_info, n_partition_values);
	FIELD(loom_file_info, partition_values); FIELD(loom_file_info, dv_storage_type);
	FIELD(loom_file_info, dv_cardinality); FIELD(loom_file_info, dv_path_or_inline);
	FIELD(loom_file_info, dv_offset); FIELD(loom_file_info, dv_size_in_bytes);
	FIELD(loom_file_info, data_change); END();
	STRUCT(loom_health_policy); FIELD(loom_health_policy, version);
	FIELD(loom_health_policy, target_size); FIELD(loom_health_policy, min_small_files);
	FIELD(loom_health_policy, dv_purge_ratio); FIELD(loom_health_policy, min_dv_files);
	FIELD(loom_health_policy, max_clustering_depth);
	FIELD(loom_health_policy, checkpoint_commits);
	FIELD(loom_health_policy, checkpoint_json_bytes);
	FIELD(loom_health_policy, min_vacuum_files); FIELD(loom_health_policy, min_expired_logs);
	FIELD(loom_health_policy, min_files_without_stats);
	FIELD(loom_health_policy, zorder_columns); FIELD(loom_health_policy, n_zorder_columns);
	END();
	STRUCT(loom_auto_opts); FIELD(loom_auto_opts, version); FIELD(loom_auto_opts, policy);
	FIELD(loom_auto_opts, vacuum); FIELD(loom_auto_opts, compact); FIELD(loom_auto_opts, zorder);
	END();
	printf("}\n");
	return 0;
}
