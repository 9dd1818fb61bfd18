/*
 * loom/config.h - the loom `storage:` YAML (the seed's StorageConfig).
 *
 * The file is the one loom users already write for the ETL: a top-level
 * `storage:` mapping with `defaults.table_path`, `tables[]` routes and an
 * optional `maintenance:` block. Keys that belong to other parts of loom
 * (engine, files, catalogs, temp, audit, observability, ...) are accepted
 * and ignored outside the maintenance block, which is strict.
 * `${oc.env:VAR}` / `${oc.env:VAR,default}` are expanded in the scalars loom
 * reads. Errors carry "file:line:column: ..." and never show secret values.
 */
#ifndef LOOM_CONFIG_H
#define LOOM_CONFIG_H

#include "common.h"
#include "ops.h"
#include "store.h"

LOOM_BEGIN_DECL

typedef struct loom_config loom_config;

/** Parse a storage config file. On success *out is owned by the caller
 *  (loom_config_free). Errors: LOOM_ENOTFOUND / LOOM_EIO reading the file,
 *  LOOM_EINVAL for YAML syntax and validation errors ("path:line:col: ..."). */
LOOM_EXTERN(int) loom_config_load_file(loom_config **out, const char *path);

/** Parse a config from memory; `name` labels error messages ("<string>"
 *  if NULL). `yaml` need not be NUL-terminated. */
LOOM_EXTERN(int) loom_config_load_string(loom_config **out, const char *yaml,
                                         size_t len, const char *name);

LOOM_EXTERN(void) loom_config_free(loom_config *cfg);

/* ---- table routes ------------------------------------------------------- */

/** Number of entries in `tables[]`, in file order. */
LOOM_EXTERN(size_t) loom_config_table_count(const loom_config *cfg);
/** Name of route i (borrowed), or NULL when out of range. */
LOOM_EXTERN(const char *) loom_config_table_name_at(const loom_config *cfg, size_t i);
/** 1 if route i maps to a path, 0 if it is a catalog `ref` route. */
LOOM_EXTERN(int) loom_config_table_has_path_at(const loom_config *cfg, size_t i);
/** 1 when defaults.table_path is set. */
LOOM_EXTERN(int) loom_config_has_default_path(const loom_config *cfg);
/** 1 when the table ref is in `tables[]` or a default path exists. */
LOOM_EXTERN(int) loom_config_knows(const loom_config *cfg, const char *ref);

/** Resolve a logical ref to its location: an explicit path route, else the
 *  default root with dots turned into slashes (ref raw.events under uri
 *  /lake -> /lake/raw/events). Unset fields of an explicit route are taken
 *  from defaults.table_path. *out is owned by the caller
 *  (loom_table_location_free); its settings are borrowed from `cfg`, so
 *  free it before the config. LOOM_ENOTFOUND when no route or default
 *  covers the ref; LOOM_EINVAL when the route is a catalog ref
 *  (maintenance needs a path) or the ref is malformed. */
LOOM_EXTERN(int) loom_config_locate(loom_table_location **out, const loom_config *cfg,
                                    const char *ref);
LOOM_EXTERN(void) loom_table_location_free(loom_table_location *loc);

/* ---- the maintenance block ---------------------------------------------- */

/** 1 when the file has a `maintenance:` block. */
LOOM_EXTERN(int) loom_config_has_maintenance(const loom_config *cfg);
LOOM_EXTERN(size_t) loom_config_maintenance_schema_count(const loom_config *cfg);
LOOM_EXTERN(const char *) loom_config_maintenance_schema_at(const loom_config *cfg, size_t i);
/** The block's vacuum options; 0 when the block has `vacuum:`, else
 *  LOOM_ENOTFOUND (no error recorded). Same for compact and z-order (the
 *  z-order columns are borrowed from cfg). */
LOOM_EXTERN(int) loom_config_maintenance_vacuum(loom_vacuum_opts *out, const loom_config *cfg);
LOOM_EXTERN(int) loom_config_maintenance_compact(loom_compact_opts *out, const loom_config *cfg);
LOOM_EXTERN(int) loom_config_maintenance_zorder(loom_zorder_opts *out, const loom_config *cfg);

/** Line of the `tables:` key (or of `storage:` without one), for errors
 *  raised later about the routes. */
LOOM_EXTERN(int) loom_config_tables_line(const loom_config *cfg);
/** The name given at load (file path or `name`). Borrowed. */
LOOM_EXTERN(const char *) loom_config_source(const loom_config *cfg);

/* ---- secrets and rendering ---------------------------------------------- */

/* Whether a storage-option key names a secret is the library's one rule,
 * loom_secret_name() of loom/store.h. */

/** Copy `text` into `out` (capacity `cap`, always NUL-terminated) with every
 *  occurrence of a secret storage-option value of `cfg` (and of the secret
 *  AWS_/AZURE_/GOOGLE_/LOOM_ environment variables), every URI password and
 *  every secret query parameter value replaced by "***". `text` may be
 *  `out`. Returns the length written. */
LOOM_EXTERN(size_t) loom_config_mask(char *out, size_t cap, const loom_config *cfg, const char *text);

/** Render the resolved config (routes with their locations, maintenance
 *  block) as JSON with secret values shown as "***". *out is allocated
 *  with malloc-compatible loom allocation: free with loom_string_free. */
LOOM_EXTERN(int) loom_config_to_json(char **out, const loom_config *cfg);

/** Parse a size: a non-negative integer, or a number with a unit
 *  (B, KB, MB, GB, TB = powers of 1000; KiB, MiB, GiB, TiB = powers of 1024;
 *  case-insensitive, optional space: "128MiB", "1GB", "1.5 GiB").
 *  LOOM_EINVAL on anything else or on overflow. */
LOOM_EXTERN(int) loom_size_parse(int64_t *out, const char *text);

/** Write `bytes` for people into out[0..cap): "512 B", then one decimal
 *  from KiB up ("12.3 MiB"). Truncated to fit; always terminated when
 *  cap > 0. */
LOOM_EXTERN(void) loom_size_format(char *out, size_t cap, int64_t bytes);

/** Free a string returned by a loom function. NULL is fine. */
LOOM_EXTERN(void) loom_string_free(char *s);

LOOM_END_DECL

#endif
