/* ops/opts.h - how an operation reads the options a caller passed.
 *
 * A caller's struct may be of any version this library knows (an older one
 * is shorter: util/versioned.h). Each reader copies what `in`'s version has
 * into `out`, a current-version struct whose other fields keep their
 * defaults (`in` NULL: all defaults), then checks the values as the public
 * loom_*_opts_check does: LOOM_EINVAL naming the struct or the field. The
 * operations use `out` only, so no code below reads a field the caller's
 * struct does not have. */
#ifndef LOOM_OPS_OPTS_H
#define LOOM_OPS_OPTS_H

#include "loom/checkpoint.h"
#include "loom/convert.h"
#include "loom/ops.h"

int ops_vacuum_opts_read(loom_vacuum_opts *out, const loom_vacuum_opts *in);
int ops_compact_opts_read(loom_compact_opts *out, const loom_compact_opts *in);
/* Z-order has no default columns: `in` NULL fails the check. */
int ops_zorder_opts_read(loom_zorder_opts *out, const loom_zorder_opts *in);
int ops_purge_opts_read(loom_purge_opts *out, const loom_purge_opts *in);
int ops_analyze_opts_read(loom_analyze_opts *out, const loom_analyze_opts *in);
int ops_checkpoint_opts_read(loom_checkpoint_opts *out, const loom_checkpoint_opts *in);
int ops_cleanup_logs_opts_read(loom_cleanup_logs_opts *out, const loom_cleanup_logs_opts *in);
/* The partition column names are checked by the conversion. */
int ops_convert_opts_read(loom_convert_opts *out, const loom_convert_opts *in);

/* The structs an operation fills or reads as the caller passed them: 0
 * when `out` (not NULL) / `loc` (NULL is fine: no location) has a version
 * this library knows, else LOOM_EINVAL naming the struct. Every field of
 * their version 1 exists in every version, so code that reads only those
 * needs no copy. */
int ops_result_check(const loom_op_result *out);
int ops_location_check(const loom_table_location *loc);

#endif
