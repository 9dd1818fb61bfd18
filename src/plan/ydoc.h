/* plan/ydoc.h - a parsed YAML document with positions, and the typed,
 * position-aware readers the storage config and plan files share. Every
 * error reads "source:line:column: message". */
#ifndef LOOM_PLAN_YDOC_H
#define LOOM_PLAN_YDOC_H

#include <stdint.h>
#include <yaml.h>

#include "util/buf.h"

typedef struct ydoc {
	yaml_document_t doc;
	int loaded;
	const char *source;   /* borrowed label for messages */
	/* Called with each value interpolated from an environment variable
	 * whose name marks a secret (AWS_SECRET_ACCESS_KEY, ...), so it is
	 * masked wherever it lands; NULL: not needed. Set after ydoc_load. */
	int (*note_secret)(void *ctx, const char *value);
	void *note_secret_ctx;
} ydoc;

/* Parse one document; a syntax error or an empty input is LOOM_EINVAL. */
int ydoc_load(ydoc *d, const char *text, size_t len, const char *source);
void ydoc_dispose(ydoc *d);
yaml_node_t *ydoc_root(ydoc *d);
yaml_node_t *ydoc_node(ydoc *d, int id);

int ydoc_line(const yaml_node_t *n);   /* 1-based */
int ydoc_col(const yaml_node_t *n);    /* 1-based */

/* Record LOOM_EINVAL "source:line:col: <fmt>" at node n. */
int ydoc_err(ydoc *d, const yaml_node_t *n, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

int ydoc_is_map(const yaml_node_t *n);
int ydoc_is_seq(const yaml_node_t *n);
int ydoc_is_scalar(const yaml_node_t *n);
/* A plain null: empty, ~ or null. */
int ydoc_is_null(const yaml_node_t *n);
/* Raw scalar text (no interpolation), or NULL when not a scalar. */
const char *ydoc_raw(const yaml_node_t *n);

/* Fail on a key that occurs twice in a mapping. */
int ydoc_check_dup_keys(ydoc *d, yaml_node_t *map);
/* Fail on a duplicate key or on a key not in the NULL-terminated
 * `allowed` list ("unknown key 'x' in <section> (expected: a, b)"). */
int ydoc_check_keys(ydoc *d, yaml_node_t *map, const char *section,
                    const char *const *allowed);
/* The value of key `key` in a mapping, or NULL. *key_node gets the key. */
yaml_node_t *ydoc_get(ydoc *d, yaml_node_t *map, const char *key, yaml_node_t **key_node);

/* A scalar with ${oc.env:VAR} / ${oc.env:VAR,default} expanded; `what`
 * names the setting in messages. out is cleared first. */
int ydoc_string(ydoc *d, yaml_node_t *n, const char *what, loom_buf *out);
int ydoc_bool(ydoc *d, yaml_node_t *n, const char *what, int *out);
int ydoc_int(ydoc *d, yaml_node_t *n, const char *what, int64_t *out);
/* A size > 0 (integer bytes or "128MiB"). */
int ydoc_size(ydoc *d, yaml_node_t *n, const char *what, int64_t *out);

/* Expand interpolations in `text` into out (exposed for tests). */
int ydoc_interpolate(ydoc *d, const char *text, loom_buf *out, char *missing,
                     size_t missing_cap);

#endif
