"""The C API of libloom through ctypes: the library, its structs and its
function prototypes, nothing more.

Everything above this module (``libloom.native``, ``libloom.config``,
``libloom.maintenance``) talks to C only through the names defined here.
The struct mirrors follow ``include/loom/*.h`` field for field; the test
suite compares their sizes and offsets with the C compiler's
(``tests/helpers/abi_layout.c``).

ctypes releases the GIL around every call into the library and takes it
back in every callback, so C work runs in parallel with Python threads and
C worker threads can call back into Python.

Finding the library, in order:

1. ``LIBLOOM_LIBRARY``: the path of ``libloom.so`` (the build tree uses it);
2. a ``libloom.so*`` bundled next to this file, in ``libloom/_lib/``;
3. the system loader: ``libloom.so.1`` (``LD_LIBRARY_PATH``, ldconfig);
4. ``pkg-config --variable=libdir loom``, then ``/usr/local/lib``.
"""

from __future__ import annotations

import ctypes
import os
import shutil
import subprocess
from ctypes import (
    CFUNCTYPE,
    POINTER,
    Structure,
    c_char,
    c_char_p,
    c_double,
    c_int,
    c_int64,
    c_size_t,
    c_uint,
    c_void_p,
)
from pathlib import Path
from typing import Any

SONAME = "libloom.so.1"

# ---- errors.h --------------------------------------------------------------

LOOM_OK = 0
LOOM_ERROR = -1
LOOM_ENOTFOUND = -2
LOOM_EEXISTS = -3
LOOM_ECONFLICT = -4
LOOM_EUNSUPPORTED = -5
LOOM_ECORRUPT = -6
LOOM_ECANCELLED = -7
LOOM_EINVAL = -8
LOOM_ENOMEM = -9
LOOM_EIO = -10
LOOM_EUSER = -11
LOOM_EPERM = -12
LOOM_ETRANSIENT = -13

LOOM_ERRCLASS_PLAN = 7
LOOM_ERRCLASS_USER = 10

LOOM_ERROR_MESSAGE_MAX = 1024


class loom_error(Structure):
    _fields_ = [
        ("code", c_int),
        ("klass", c_int),
        ("message", c_char * LOOM_ERROR_MESSAGE_MAX),
    ]


# ---- common.h, ops.h -----------------------------------------------------------


class loom_kv(Structure):
    _fields_ = [("key", c_char_p), ("value", c_char_p)]


LOOM_RETENTION_TABLE_DEFAULT = -1
LOOM_VACUUM_OPTS_VERSION = 1
LOOM_COMPACT_OPTS_VERSION = 3
LOOM_ZORDER_OPTS_VERSION = 2
LOOM_CHECKPOINT_OPTS_VERSION = 2
LOOM_CLEANUP_LOGS_OPTS_VERSION = 1
LOOM_CONVERT_OPTS_VERSION = 1
LOOM_PURGE_OPTS_VERSION = 1
LOOM_ANALYZE_OPTS_VERSION = 1
LOOM_MAINTAINER_VERSION = 2

LOOM_ZORDER_CURVE_AUTO = 0
LOOM_ZORDER_CURVE_Z = 1
LOOM_ZORDER_CURVE_HILBERT = 2


class loom_vacuum_opts(Structure):
    _fields_ = [
        ("version", c_uint),
        ("retention_hours", c_int64),
        ("dry_run", c_int),
        ("full", c_int),
        ("retention_check", c_int),
    ]


COMPACT_PROGRESS_FN = CFUNCTYPE(None, c_void_p, c_int64, c_int64, c_int64, c_int64)


class loom_compact_opts(Structure):
    _fields_ = [
        ("version", c_uint),
        ("target_size", c_int64),
        ("dry_run", c_int),
        ("partition_filters", POINTER(c_char_p)),
        ("n_partition_filters", c_size_t),
        ("progress", COMPACT_PROGRESS_FN),
        ("progress_ctx", c_void_p),
        ("copy_row_group_min_size", c_int64),
        ("commit_every", c_int64),
    ]


class loom_zorder_opts(Structure):
    _fields_ = [
        ("version", c_uint),
        ("columns", POINTER(c_char_p)),
        ("n_columns", c_size_t),
        ("target_size", c_int64),
        ("curve", c_int),
        ("full", c_int),
        ("dry_run", c_int),
        ("memory_budget", c_int64),
        ("temp_dir", c_char_p),
        ("spill_limit", c_int64),
        ("commit_every", c_int64),
    ]


class loom_checkpoint_opts(Structure):
    _fields_ = [("version", c_uint), ("table_version", c_int64), ("part_size", c_int64)]


class loom_cleanup_logs_opts(Structure):
    _fields_ = [
        ("version", c_uint),
        ("dry_run", c_int),
        ("force", c_int),
        ("retention_hours", c_int64),
    ]


class loom_convert_opts(Structure):
    _fields_ = [
        ("version", c_uint),
        ("partition_columns", POINTER(c_char_p)),
        ("n_partition_columns", c_size_t),
    ]


LOOM_TABLE_LOCATION_VERSION = 1


class loom_table_location(Structure):
    _fields_ = [
        ("version", c_uint),
        ("uri", c_char_p),
        ("storage_options", POINTER(loom_kv)),
        ("n_storage_options", c_size_t),
        ("writer", POINTER(loom_kv)),
        ("n_writer", c_size_t),
        ("delta_config", POINTER(loom_kv)),
        ("n_delta_config", c_size_t),
        ("commit", POINTER(loom_kv)),
        ("n_commit", c_size_t),
        ("target_file_size", c_int64),
    ]


LOOM_RESULT_NONE = 0
LOOM_RESULT_VACUUM = 1
LOOM_RESULT_OPTIMIZE = 2


class loom_metric(Structure):
    _fields_ = [("name", c_char_p), ("value", c_int64)]


class loom_upload_info(Structure):
    _fields_ = [("key", c_char_p), ("initiated_ms", c_int64), ("bytes", c_int64)]


LOOM_OP_RESULT_VERSION = 1


class loom_op_result(Structure):
    _fields_ = [
        ("version", c_uint),
        ("kind", c_int),
        ("files_deleted", POINTER(c_char_p)),
        ("n_files_deleted", c_size_t),
        ("dry_run", c_int),
        ("num_files_added", c_int64),
        ("num_files_removed", c_int64),
        ("metrics", POINTER(loom_metric)),
        ("n_metrics", c_size_t),
        ("uploads", POINTER(loom_upload_info)),
        ("n_uploads", c_size_t),
    ]


# Opaque handles are plain pointers.
loom_cancel_p = c_void_p
loom_config_p = c_void_p
loom_op_p = c_void_p
loom_spec_p = c_void_p
loom_spec_list_p = c_void_p
loom_decl_p = c_void_p
loom_step_p = c_void_p
loom_runner_p = c_void_p
loom_report_p = c_void_p
loom_table_result_p = c_void_p
loom_table_p = c_void_p
loom_snapshot_p = c_void_p


class loom_purge_opts(Structure):
    _fields_ = [
        ("version", c_uint),
        ("target_size", c_int64),
        ("dry_run", c_int),
        ("partition_filters", POINTER(c_char_p)),
        ("n_partition_filters", c_size_t),
    ]


class loom_analyze_opts(Structure):
    _fields_ = [
        ("version", c_uint),
        ("all", c_int),
        ("dry_run", c_int),
        ("columns", POINTER(c_char_p)),
        ("n_columns", c_size_t),
    ]


class loom_maintainer(Structure):
    pass


MAINT_VACUUM_FN = CFUNCTYPE(
    c_int, POINTER(loom_op_result), POINTER(loom_maintainer), c_char_p,
    POINTER(loom_table_location), POINTER(loom_vacuum_opts), loom_cancel_p)
MAINT_COMPACT_FN = CFUNCTYPE(
    c_int, POINTER(loom_op_result), POINTER(loom_maintainer), c_char_p,
    POINTER(loom_table_location), POINTER(loom_compact_opts), loom_cancel_p)
MAINT_ZORDER_FN = CFUNCTYPE(
    c_int, POINTER(loom_op_result), POINTER(loom_maintainer), c_char_p,
    POINTER(loom_table_location), POINTER(loom_zorder_opts), loom_cancel_p)

MAINT_PURGE_FN = CFUNCTYPE(
    c_int, POINTER(loom_op_result), POINTER(loom_maintainer), c_char_p,
    POINTER(loom_table_location), POINTER(loom_purge_opts), loom_cancel_p)
MAINT_ANALYZE_FN = CFUNCTYPE(
    c_int, POINTER(loom_op_result), POINTER(loom_maintainer), c_char_p,
    POINTER(loom_table_location), POINTER(loom_analyze_opts), loom_cancel_p)

loom_maintainer._fields_ = [
    ("version", c_uint),
    ("name", c_char_p),
    ("vacuum", MAINT_VACUUM_FN),
    ("compact", MAINT_COMPACT_FN),
    ("zorder", MAINT_ZORDER_FN),
    ("payload", c_void_p),
    # version 2
    ("purge", MAINT_PURGE_FN),
    ("analyze", MAINT_ANALYZE_FN),
]

# ---- plan.h ------------------------------------------------------------------

LOOM_MISSING_SKIP = 0
LOOM_MISSING_ERROR = 1
LOOM_MISSING_STOP = 2

LOOM_PROGRESS_TABLE_START = 0
LOOM_PROGRESS_OP_START = 1
LOOM_PROGRESS_OP_DONE = 2
LOOM_PROGRESS_TABLE_DONE = 3


class loom_progress(Structure):
    _fields_ = [
        ("event", c_int),
        ("table_ref", c_char_p),
        ("op_name", c_char_p),
        ("table_index", c_size_t),
        ("table_count", c_size_t),
        ("code", c_int),
        ("skipped", c_int),
        ("seconds", c_double),
        ("result", c_void_p),
    ]


# Callbacks are declared with void* where C passes a pointer Python only
# forwards, so ctypes does not build objects for every call.
OP_EXECUTE_FN = CFUNCTYPE(
    c_int, POINTER(loom_op_result), c_void_p, c_char_p, POINTER(loom_table_location),
    loom_cancel_p, c_void_p)
FREE_PAYLOAD_FN = CFUNCTYPE(None, c_void_p)
DECL_RESOLVE_FN = CFUNCTYPE(c_int, loom_spec_list_p, loom_config_p, c_void_p)
LOCATE_FN = CFUNCTYPE(c_int, POINTER(POINTER(loom_table_location)), c_char_p, c_void_p)
LOCATION_RELEASE_FN = CFUNCTYPE(None, POINTER(loom_table_location), c_void_p)
PROGRESS_FN = CFUNCTYPE(None, POINTER(loom_progress), c_void_p)
LOG_LINE_FN = CFUNCTYPE(None, c_char_p, c_void_p)
loom_event_log_p = c_void_p
loom_run_record_p = c_void_p

# ---- store.h, table.h ----------------------------------------------------------

LOOM_STORE_OPTS_VERSION = 1


class loom_store_opts(Structure):
    _fields_ = [
        ("version", c_uint),
        ("options", POINTER(loom_kv)),
        ("n_options", c_size_t),
        ("ignore_env", c_int),
    ]



LOOM_FILE_INFO_VERSION = 1


class loom_file_info(Structure):
    _fields_ = [
        ("version", c_uint),
        ("path", c_char_p),
        ("path_raw", c_char_p),
        ("size", c_int64),
        ("modification_time", c_int64),
        ("deletion_timestamp", c_int64),
        ("num_records", c_int64),
        ("stats", c_char_p),
        ("n_partition_values", c_size_t),
        ("partition_values", POINTER(loom_kv)),
        ("dv_storage_type", c_char),
        ("dv_cardinality", c_int64),
        ("dv_path_or_inline", c_char_p),
        ("dv_offset", ctypes.c_int32),
        ("dv_size_in_bytes", ctypes.c_int32),
        ("data_change", c_int),
    ]


# ---- health.h, auto.h ------------------------------------------------------------

LOOM_HEALTH_POLICY_VERSION = 1
LOOM_AUTO_OPTS_VERSION = 1
LOOM_HEALTH_JSON_HEALTH = 1
LOOM_HEALTH_JSON_ADVICE = 2


class loom_health_policy(Structure):
    _fields_ = [
        ("version", c_uint),
        ("target_size", c_int64),
        ("min_small_files", c_int64),
        ("dv_purge_ratio", c_double),
        ("min_dv_files", c_int64),
        ("max_clustering_depth", c_double),
        ("checkpoint_commits", c_int64),
        ("checkpoint_json_bytes", c_int64),
        ("min_vacuum_files", c_int64),
        ("min_expired_logs", c_int64),
        ("min_files_without_stats", c_int64),
        ("zorder_columns", POINTER(c_char_p)),
        ("n_zorder_columns", c_size_t),
    ]


class loom_auto_opts(Structure):
    _fields_ = [
        ("version", c_uint),
        ("policy", loom_health_policy),
        ("vacuum", POINTER(loom_vacuum_opts)),
        ("compact", POINTER(loom_compact_opts)),
        ("zorder", POINTER(loom_zorder_opts)),
    ]


loom_health_p = c_void_p

# ---- the library ----------------------------------------------------------------

# name: (restype, argtypes)
_PROTOTYPES: dict[str, tuple[object, list[object]]] = {
    "loom_version": (c_char_p, []),
    "loom_error_last": (POINTER(loom_error), []),
    "loom_error_clear": (None, []),
    "loom_error_code_name": (c_char_p, [c_int]),
    "loom_error_class_name": (c_char_p, [c_int]),
    "loom_error_set": (c_int, [c_int, c_int, c_char_p]),
    "loom_size_parse": (c_int, [POINTER(c_int64), c_char_p]),
    "loom_size_format": (None, [c_char_p, c_size_t, c_int64]),
    "loom_string_free": (None, [c_void_p]),
    # observe.h
    "loom_event_log_new": (c_int, [POINTER(c_void_p), LOG_LINE_FN, c_void_p]),
    "loom_event_log_progress": (None, [POINTER(loom_progress), c_void_p]),
    "loom_event_log_run_start": (None, [c_void_p, c_char_p, c_size_t]),
    "loom_event_log_run_end": (None, [c_void_p, c_void_p]),
    "loom_event_log_free": (None, [c_void_p]),
    "loom_run_record_from_json": (c_int, [POINTER(c_void_p), c_char_p, c_size_t, c_char_p]),
    "loom_run_record_to_metrics": (c_int, [POINTER(c_void_p), c_void_p, c_int]),
    "loom_run_record_to_html": (c_int, [POINTER(c_void_p), c_void_p, c_char_p]),
    "loom_run_record_free": (None, [c_void_p]),
    # cancel
    "loom_cancel_new": (c_int, [POINTER(loom_cancel_p)]),
    "loom_cancel_request": (None, [loom_cancel_p]),
    "loom_cancel_reset": (None, [loom_cancel_p]),
    "loom_cancel_requested": (c_int, [loom_cancel_p]),
    "loom_cancel_free": (None, [loom_cancel_p]),
    # options
    "loom_vacuum_opts_init": (c_int, [POINTER(loom_vacuum_opts), c_uint]),
    "loom_compact_opts_init": (c_int, [POINTER(loom_compact_opts), c_uint]),
    "loom_zorder_opts_init": (c_int, [POINTER(loom_zorder_opts), c_uint]),
    "loom_purge_opts_init": (c_int, [POINTER(loom_purge_opts), c_uint]),
    "loom_analyze_opts_init": (c_int, [POINTER(loom_analyze_opts), c_uint]),
    "loom_vacuum_opts_check": (c_int, [POINTER(loom_vacuum_opts)]),
    "loom_compact_opts_check": (c_int, [POINTER(loom_compact_opts)]),
    "loom_zorder_opts_check": (c_int, [POINTER(loom_zorder_opts)]),
    "loom_zorder_curve_from_name": (c_int, [POINTER(c_int), c_char_p]),
    "loom_zorder_curve_name": (c_char_p, [c_int]),
    # results
    "loom_op_result_add_deleted": (c_int, [POINTER(loom_op_result), c_char_p]),
    "loom_op_result_set_metric": (c_int, [POINTER(loom_op_result), c_char_p, c_int64]),
    "loom_op_result_add_upload": (c_int, [POINTER(loom_op_result), c_char_p, c_int64, c_int64]),
    "loom_op_result_free": (None, [POINTER(loom_op_result)]),
    # single-table operations: (out, uri, loc, opts, cancel)
    "loom_vacuum": (c_int, [POINTER(loom_op_result), c_char_p, POINTER(loom_table_location),
                            POINTER(loom_vacuum_opts), loom_cancel_p]),
    "loom_compact": (c_int, [POINTER(loom_op_result), c_char_p, POINTER(loom_table_location),
                             POINTER(loom_compact_opts), loom_cancel_p]),
    "loom_zorder": (c_int, [POINTER(loom_op_result), c_char_p, POINTER(loom_table_location),
                            POINTER(loom_zorder_opts), loom_cancel_p]),
    "loom_purge": (c_int, [POINTER(loom_op_result), c_char_p, POINTER(loom_table_location),
                           POINTER(loom_purge_opts), loom_cancel_p]),
    "loom_analyze": (c_int, [POINTER(loom_op_result), c_char_p, POINTER(loom_table_location),
                             POINTER(loom_analyze_opts), loom_cancel_p]),
    "loom_checkpoint": (c_int, [POINTER(loom_op_result), c_char_p, POINTER(loom_table_location),
                                POINTER(loom_checkpoint_opts), loom_cancel_p]),
    "loom_cleanup_logs": (c_int, [POINTER(loom_op_result), c_char_p,
                                  POINTER(loom_table_location),
                                  POINTER(loom_cleanup_logs_opts), loom_cancel_p]),
    "loom_convert": (c_int, [POINTER(loom_op_result), c_char_p, POINTER(loom_table_location),
                             POINTER(loom_convert_opts), loom_cancel_p]),
    "loom_maintainer_native": (c_int, [POINTER(POINTER(loom_maintainer))]),
    # plan / execute(unit) / commit (loom/distributed.h)
    "loom_dist_plan_compact": (c_int, [POINTER(c_void_p), c_char_p, POINTER(loom_table_location),
                                  POINTER(loom_compact_opts), c_size_t]),
    "loom_dist_plan_zorder": (c_int, [POINTER(c_void_p), c_char_p, POINTER(loom_table_location),
                                 POINTER(loom_zorder_opts), c_size_t]),
    "loom_dist_unit_count": (c_int, [POINTER(c_size_t), c_char_p]),
    "loom_dist_execute_unit": (c_int, [POINTER(c_void_p), c_char_p, c_size_t,
                                       POINTER(loom_table_location), c_size_t, loom_cancel_p]),
    "loom_dist_commit": (c_int, [POINTER(loom_op_result), c_char_p, POINTER(c_char_p), c_size_t,
                                 POINTER(loom_table_location)]),
    # config
    "loom_config_load_file": (c_int, [POINTER(loom_config_p), c_char_p]),
    "loom_config_load_string": (c_int, [POINTER(loom_config_p), c_char_p, c_size_t, c_char_p]),
    "loom_config_free": (None, [loom_config_p]),
    "loom_config_table_count": (c_size_t, [loom_config_p]),
    "loom_config_table_name_at": (c_char_p, [loom_config_p, c_size_t]),
    "loom_config_table_has_path_at": (c_int, [loom_config_p, c_size_t]),
    "loom_config_has_default_path": (c_int, [loom_config_p]),
    "loom_config_knows": (c_int, [loom_config_p, c_char_p]),
    "loom_config_locate": (c_int, [POINTER(POINTER(loom_table_location)), loom_config_p,
                                   c_char_p]),
    "loom_table_location_free": (None, [POINTER(loom_table_location)]),
    "loom_config_has_maintenance": (c_int, [loom_config_p]),
    "loom_config_maintenance_schema_count": (c_size_t, [loom_config_p]),
    "loom_config_maintenance_schema_at": (c_char_p, [loom_config_p, c_size_t]),
    "loom_config_maintenance_vacuum": (c_int, [POINTER(loom_vacuum_opts), loom_config_p]),
    "loom_config_maintenance_compact": (c_int, [POINTER(loom_compact_opts), loom_config_p]),
    "loom_config_maintenance_zorder": (c_int, [POINTER(loom_zorder_opts), loom_config_p]),
    "loom_config_source": (c_char_p, [loom_config_p]),
    "loom_secret_name": (c_int, [c_char_p]),
    "loom_config_to_json": (c_int, [POINTER(c_void_p), loom_config_p]),
    # ops, specs, declarations, steps
    "loom_op_new": (c_int, [POINTER(loom_op_p), c_char_p, OP_EXECUTE_FN, c_void_p,
                            FREE_PAYLOAD_FN]),
    "loom_op_vacuum": (c_int, [POINTER(loom_op_p), POINTER(loom_vacuum_opts)]),
    "loom_op_compact": (c_int, [POINTER(loom_op_p), POINTER(loom_compact_opts)]),
    "loom_op_zorder": (c_int, [POINTER(loom_op_p), POINTER(loom_zorder_opts)]),
    "loom_op_purge": (c_int, [POINTER(loom_op_p), POINTER(loom_purge_opts)]),
    "loom_op_analyze": (c_int, [POINTER(loom_op_p), POINTER(loom_analyze_opts)]),
    "loom_op_name": (c_char_p, [loom_op_p]),
    "loom_op_free": (None, [loom_op_p]),
    "loom_spec_new": (c_int, [POINTER(loom_spec_p), c_char_p]),
    "loom_spec_add_op": (c_int, [loom_spec_p, loom_op_p]),
    "loom_spec_table_ref": (c_char_p, [loom_spec_p]),
    "loom_spec_free": (None, [loom_spec_p]),
    "loom_spec_list_new": (c_int, [POINTER(loom_spec_list_p)]),
    "loom_spec_list_add": (c_int, [loom_spec_list_p, loom_spec_p]),
    "loom_spec_list_count": (c_size_t, [loom_spec_list_p]),
    "loom_spec_list_at": (loom_spec_p, [loom_spec_list_p, c_size_t]),
    "loom_spec_list_free": (None, [loom_spec_list_p]),
    "loom_maintain_table": (c_int, [POINTER(loom_decl_p), c_char_p]),
    "loom_maintain_schema": (c_int, [POINTER(loom_decl_p), c_char_p]),
    "loom_decl_new": (c_int, [POINTER(loom_decl_p), DECL_RESOLVE_FN, c_void_p,
                              FREE_PAYLOAD_FN]),
    "loom_decl_vacuum": (c_int, [loom_decl_p, POINTER(loom_vacuum_opts)]),
    "loom_decl_compact": (c_int, [loom_decl_p, POINTER(loom_compact_opts)]),
    "loom_decl_zorder": (c_int, [loom_decl_p, POINTER(loom_zorder_opts)]),
    "loom_decl_purge": (c_int, [loom_decl_p, POINTER(loom_purge_opts)]),
    "loom_decl_analyze": (c_int, [loom_decl_p, POINTER(loom_analyze_opts)]),
    "loom_decl_add_op": (c_int, [loom_decl_p, loom_op_p]),
    "loom_decl_validate": (c_int, [loom_decl_p]),
    "loom_decl_resolve": (c_int, [loom_spec_list_p, loom_decl_p, loom_config_p]),
    "loom_decl_free": (None, [loom_decl_p]),
    "loom_step_new": (c_int, [POINTER(loom_step_p), c_char_p]),
    "loom_step_add": (c_int, [loom_step_p, loom_decl_p]),
    "loom_step_free": (None, [loom_step_p]),
    "loom_step_explain": (c_int, [POINTER(c_void_p), loom_step_p, c_void_p, loom_config_p,
                                  c_int]),
    # runner and report
    "loom_runner_from_config": (c_int, [POINTER(loom_runner_p), loom_config_p,
                                        POINTER(loom_maintainer), c_int]),
    "loom_runner_set_jobs": (c_int, [loom_runner_p, c_size_t]),
    "loom_runner_cancel": (None, [loom_runner_p]),
    "loom_runner_reset_cancel": (None, [loom_runner_p]),
    "loom_runner_set_locator": (c_int, [loom_runner_p, LOCATE_FN, LOCATION_RELEASE_FN,
                                        c_void_p]),
    "loom_runner_set_progress": (c_int, [loom_runner_p, PROGRESS_FN, c_void_p]),
    "loom_runner_run": (c_int, [POINTER(loom_report_p), loom_runner_p, loom_step_p, c_void_p]),
    "loom_runner_run_from_config": (c_int, [POINTER(loom_report_p), loom_runner_p]),
    "loom_runner_free": (None, [loom_runner_p]),
    "loom_report_count": (c_size_t, [loom_report_p]),
    "loom_report_at": (loom_table_result_p, [loom_report_p, c_size_t]),
    "loom_report_has_errors": (c_int, [loom_report_p]),
    "loom_report_cancelled": (c_int, [loom_report_p]),
    "loom_report_stopped_at": (c_int64, [loom_report_p]),
    "loom_report_warning_count": (c_size_t, [loom_report_p]),
    "loom_report_warning_at": (c_char_p, [loom_report_p, c_size_t]),
    "loom_report_to_json": (c_int, [POINTER(c_void_p), loom_report_p]),
    "loom_report_to_text": (c_int, [POINTER(c_void_p), loom_report_p]),
    "loom_report_free": (None, [loom_report_p]),
    "loom_table_result_ref": (c_char_p, [loom_table_result_p]),
    "loom_table_result_uri": (c_char_p, [loom_table_result_p]),
    "loom_table_result_error_code": (c_int, [loom_table_result_p]),
    "loom_table_result_error_class": (c_int, [loom_table_result_p]),
    "loom_table_result_error_message": (c_char_p, [loom_table_result_p]),
    "loom_table_result_failed_op": (c_char_p, [loom_table_result_p]),
    "loom_table_result_skipped": (c_int, [loom_table_result_p]),
    "loom_table_result_skip_reason": (c_char_p, [loom_table_result_p]),
    "loom_table_result_duration_seconds": (c_double, [loom_table_result_p]),
    "loom_table_result_op_count": (c_size_t, [loom_table_result_p]),
    "loom_table_result_op_name_at": (c_char_p, [loom_table_result_p, c_size_t]),
    "loom_table_result_op_at": (POINTER(loom_op_result), [loom_table_result_p, c_size_t]),
    # health, advice, auto (loom/health.h, loom/auto.h)
    "loom_health_policy_init": (c_int, [POINTER(loom_health_policy), c_uint]),
    "loom_health_policy_check": (c_int, [POINTER(loom_health_policy)]),
    "loom_health_load": (c_int, [POINTER(loom_health_p), c_char_p,
                                  POINTER(loom_table_location), POINTER(loom_health_policy)]),
    "loom_health_to_json": (c_int, [POINTER(c_void_p), loom_health_p, c_char_p, c_int]),
    "loom_health_free": (None, [loom_health_p]),
    "loom_op_auto": (c_int, [POINTER(loom_op_p), POINTER(loom_auto_opts)]),
    "loom_decl_auto": (c_int, [loom_decl_p, POINTER(loom_auto_opts)]),
    "loom_config_maintenance_auto": (c_int, [POINTER(loom_auto_opts), loom_config_p]),
    # tables
    "loom_table_open": (c_int, [POINTER(loom_table_p), c_char_p]),
    "loom_table_open_opts": (c_int, [POINTER(loom_table_p), c_char_p,
                                     POINTER(loom_store_opts)]),
    "loom_error_is_transient": (c_int, [c_int]),
    "loom_table_free": (None, [loom_table_p]),
    "loom_snapshot_load": (c_int, [POINTER(loom_snapshot_p), loom_table_p, c_int64]),
    "loom_snapshot_free": (None, [loom_snapshot_p]),
    "loom_snapshot_version": (c_int64, [loom_snapshot_p]),
    "loom_snapshot_file_count": (c_size_t, [loom_snapshot_p]),
    "loom_snapshot_file_at": (c_int, [POINTER(loom_file_info), loom_snapshot_p, c_size_t]),
    "loom_snapshot_partition_column_count": (c_size_t, [loom_snapshot_p]),
    "loom_snapshot_partition_column_at": (c_char_p, [loom_snapshot_p, c_size_t]),
    "loom_snapshot_schema_json": (c_char_p, [loom_snapshot_p]),
    "loom_snapshot_property_count": (c_size_t, [loom_snapshot_p]),
    "loom_snapshot_property_at": (POINTER(loom_kv), [loom_snapshot_p, c_size_t]),
    "loom_snapshot_min_reader_version": (c_int, [loom_snapshot_p]),
    "loom_snapshot_min_writer_version": (c_int, [loom_snapshot_p]),
    "loom_snapshot_checkpoint_version": (c_int64, [loom_snapshot_p]),
    "loom_snapshot_checkpoint_kind": (c_char_p, [loom_snapshot_p]),
}


def _candidates() -> list[str]:
    env = os.environ.get("LIBLOOM_LIBRARY")
    if env:
        return [env]   # explicit: nothing else is tried
    found = [str(p) for p in sorted((Path(__file__).parent / "_lib").glob("libloom.so*"))]
    found.append(SONAME)
    pkg_config = shutil.which("pkg-config")
    if pkg_config:
        try:
            out = subprocess.run([pkg_config, "--variable=libdir", "loom"], check=True,
                                 capture_output=True, text=True, timeout=10).stdout.strip()
            if out:
                found.append(os.path.join(out, SONAME))
        except (OSError, subprocess.SubprocessError):
            pass
    for d in ("/usr/local/lib", "/usr/local/lib64", "/usr/local/lib/x86_64-linux-gnu",
              "/usr/local/lib/aarch64-linux-gnu"):
        found.append(os.path.join(d, SONAME))
    return found


def _load() -> tuple[ctypes.CDLL, str]:
    tried = []
    for cand in _candidates():
        try:
            lib = ctypes.CDLL(cand)
        except OSError as exc:
            tried.append(f"{cand}: {exc}")
            continue
        missing = [name for name in _PROTOTYPES if not hasattr(lib, name)]
        if missing:
            tried.append(f"{cand}: too old for this package (no {', '.join(missing[:3])})")
            continue
        return lib, cand
    raise ImportError(
        "libloom: cannot load the C library libloom.so. Install it (cmake --install build) "
        "or point LIBLOOM_LIBRARY at it. Tried:\n  " + "\n  ".join(tried))


lib, library_path = _load()

for _name, (_restype, _argtypes) in _PROTOTYPES.items():
    _fn = getattr(lib, _name)
    _fn.restype = _restype
    _fn.argtypes = _argtypes


def handle(ptr: c_void_p) -> int:
    """The address in a pointer a successful constructor filled."""
    if not ptr.value:
        raise ValueError("libloom returned a NULL handle")
    return int(ptr.value)


def null_fn(proto: type[Any]) -> Any:
    """A NULL function pointer of a callback type ("no callback")."""
    return proto()


def text(value: bytes | None) -> str | None:
    """A C string as Python text (None stays None). Bytes that are not
    UTF-8 (a path from a foreign system) are kept with surrogate escapes."""
    return None if value is None else value.decode("utf-8", "surrogateescape")


def cstr(value: str | os.PathLike[str] | None) -> bytes | None:
    """Python text as a C string for the duration of a call."""
    if value is None:
        return None
    return os.fsencode(value) if isinstance(value, os.PathLike) else \
        value.encode("utf-8", "surrogateescape")


def take_string(ptr: c_void_p) -> str:
    """A string the library allocated for the caller: copied, then freed."""
    try:
        return ctypes.string_at(ptr.value).decode("utf-8", "surrogateescape") \
            if ptr.value else ""
    finally:
        lib.loom_string_free(ptr)
