/* plan/yopts.h - reading operation options from YAML, shared by the
 * storage config's maintenance block and plan files, so both accept the
 * same keys with the same rules and messages. */
#ifndef LOOM_PLAN_YOPTS_H
#define LOOM_PLAN_YOPTS_H

#include "loom/ops.h"
#include "plan/ydoc.h"

/* `vacuum:` empty (defaults) or {retention_hours, dry_run, full}. */
int yopts_vacuum(ydoc *d, yaml_node_t *v, const char *section, loom_vacuum_opts *out);
/* `compact:` empty or {target_size}. */
int yopts_compact(ydoc *d, yaml_node_t *v, const char *section, loom_compact_opts *out);
/* `z_order_by:` a column list or {columns, target_size}. On success
 * *cols (n_cols entries, each allocated) is owned by the caller:
 * yopts_free_columns. */
int yopts_zorder(ydoc *d, yaml_node_t *v, const char *section, char ***cols,
                 size_t *n_cols, int64_t *target_size);
void yopts_free_columns(char **cols, size_t n);

#endif
