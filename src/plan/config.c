/* plan/config.c - reading the loom `storage:` YAML.
 *
 * Only what maintenance needs is interpreted: defaults.table_path, tables[]
 * and the maintenance block. Every other key (engine, files, catalogs,
 * observability, unknown keys in routes) is skipped without interpolating
 * it, so one file serves the ETL and loom. The maintenance block is strict:
 * a typo there would silently change what gets deleted. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "loom/config.h"
#include "plan/config_int.h"
#include "plan/ydoc.h"
#include "plan/yopts.h"
#include "util/alloc.h"
#include "util/error.h"
#include "util/secret.h"

static void kvs_dispose(cfg_kvs *k)
{
	size_t i;
	for (i = 0; i < k->n; i++) {
		loom_free((char *)k->items[i].key);
		loom_free((char *)k->items[i].value);
	}
	loom_free(k->items);
	memset(k, 0, sizeof(*k));
}

static int kvs_push(cfg_kvs *k, const char *key, const char *value)
{
	loom_kv *grown = loom_reallocarray(k->items, k->n + 1, sizeof(*grown));
	char *kc, *vc;
	if (!grown)
		return loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_CONFIG, "out of memory");
	k->items = grown;
	kc = loom_strdup(key);
	vc = loom_strdup(value);
	if (!kc || !vc) {
		loom_free(kc);
		loom_free(vc);
		return loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_CONFIG, "out of memory");
	}
	k->items[k->n].key = kc;
	k->items[k->n].value = vc;
	k->n++;
	return 0;
}

static void path_dispose(cfg_path *p)
{
	loom_free(p->uri);
	kvs_dispose(&p->storage_options);
	kvs_dispose(&p->writer);
	kvs_dispose(&p->delta_config);
	kvs_dispose(&p->commit);
	memset(p, 0, sizeof(*p));
}

static int strv_push(char ***v, size_t *n, const char *s)
{
	char **grown = loom_reallocarray(*v, *n + 1, sizeof(char *));
	char *c;
	if (!grown)
		return loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_CONFIG, "out of memory");
	*v = grown;
	c = loom_strdup(s);
	if (!c)
		return loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_CONFIG, "out of memory");
	(*v)[(*n)++] = c;
	return 0;
}

static void strv_free(char **v, size_t n)
{
	size_t i;
	for (i = 0; i < n; i++)
		loom_free(v[i]);
	loom_free(v);
}

LOOM_EXTERN(void) loom_config_free(loom_config *cfg)
{
	size_t i;
	if (!cfg)
		return;
	path_dispose(&cfg->dflt);
	for (i = 0; i < cfg->n_tables; i++) {
		loom_free(cfg->tables[i].name);
		loom_free(cfg->tables[i].ref);
		path_dispose(&cfg->tables[i].path);
	}
	loom_free(cfg->tables);
	strv_free(cfg->schemas, cfg->n_schemas);
	yopts_zorder_dispose(&cfg->zorder);
	yopts_purge_dispose(&cfg->purge);
	yopts_analyze_dispose(&cfg->analyze);
	loom_secrets_dispose(&cfg->secrets);
	loom_free(cfg->source);
	loom_free(cfg);
}

/* Flatten a mapping of settings into dotted key/value strings
 * (commit: {custom_metadata: {team: x}} -> "custom_metadata.team" = "x").
 * Secret storage options are remembered so messages can mask them. */
static int read_kvs_level(loom_config *cfg, ydoc *d, yaml_node_t *n, const char *section,
                          const char *prefix, cfg_kvs *out, int is_storage);

/* Bounds against alias tricks: `&a {x: *a}` is a cycle in libyaml's node
 * graph, and shared aliases can multiply the entries exponentially. */
#define KVS_MAX_DEPTH 16
#define KVS_MAX_ENTRIES 4096

static int read_kvs(loom_config *cfg, ydoc *d, yaml_node_t *n, const char *section,
                    const char *prefix, cfg_kvs *out, int is_storage)
{
	static _Thread_local int depth;
	int rc;
	if (depth >= KVS_MAX_DEPTH)
		return ydoc_err(d, n, "%s: nested deeper than %d levels", section, KVS_MAX_DEPTH);
	depth++;
	rc = read_kvs_level(cfg, d, n, section, prefix, out, is_storage);
	depth--;
	return rc;
}

static int read_kvs_level(loom_config *cfg, ydoc *d, yaml_node_t *n, const char *section,
                          const char *prefix, cfg_kvs *out, int is_storage)
{
	loom_buf key = LOOM_BUF_INIT, label = LOOM_BUF_INIT, val = LOOM_BUF_INIT;
	yaml_node_pair_t *p;
	int rc = 0;

	if (ydoc_is_null(n))
		return 0;
	if (!ydoc_is_map(n))
		return ydoc_err(d, n, "%s: expected a mapping of settings", section);
	LOOM_TRY(ydoc_check_dup_keys(d, n));
	for (p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
		yaml_node_t *k = ydoc_node(d, p->key), *v = ydoc_node(d, p->value);
		loom_buf_clear(&key);
		loom_buf_clear(&label);
		if ((rc = loom_buf_printf(&key, "%s%s%s", prefix, *prefix ? "." : "",
		                          ydoc_raw(k))) < 0 ||
		    (rc = loom_buf_printf(&label, "%s.%s", section, key.ptr)) < 0)
			break;
		if (out->n >= KVS_MAX_ENTRIES) {
			rc = ydoc_err(d, k, "%s: more than %d settings", section, KVS_MAX_ENTRIES);
			break;
		}
		if (ydoc_is_map(v)) {
			if ((rc = read_kvs(cfg, d, v, section, key.ptr, out, is_storage)) < 0)
				break;
			continue;
		}
		if (ydoc_is_seq(v)) {
			/* lists (sorting columns, ...) are kept comma-joined */
			loom_buf joined = LOOM_BUF_INIT;
			yaml_node_item_t *it;
			rc = loom_buf_puts(&joined, "");
			for (it = v->data.sequence.items.start;
			     rc == 0 && it < v->data.sequence.items.top; it++) {
				if ((rc = ydoc_string(d, ydoc_node(d, *it), label.ptr, &val)) < 0)
					break;
				rc = loom_buf_printf(&joined, "%s%s",
				                     it == v->data.sequence.items.start ? "" : ",", val.ptr);
			}
			if (rc == 0)
				rc = kvs_push(out, key.ptr, joined.ptr);
			loom_buf_dispose(&joined);
			if (rc < 0)
				break;
			continue;
		}
		if ((rc = ydoc_string(d, v, label.ptr, &val)) < 0)
			break;
		if ((rc = kvs_push(out, key.ptr, val.ptr)) < 0)
			break;
		if (is_storage && loom_secret_name(key.ptr) &&
		    (rc = loom_secrets_add(&cfg->secrets, val.ptr)) < 0)
			break;
	}
	loom_buf_dispose(&key);
	loom_buf_dispose(&label);
	loom_buf_dispose(&val);
	return rc;
}

/* A value interpolated from an environment variable whose name marks a
 * secret: masked wherever it lands, whatever key it is written under. */
static int note_env_secret(void *ctx, const char *value)
{
	loom_config *cfg = ctx;
	return loom_secrets_add(&cfg->secrets, value);
}

/* Remember the password part of scheme://user:password@host URIs (masked
 * by value too, wherever it appears without its URI). */
static int note_uri_secret(loom_config *cfg, const char *uri)
{
	return loom_secrets_add_uri_password(&cfg->secrets, uri);
}

static int read_path(loom_config *cfg, ydoc *d, yaml_node_t *n, const char *what,
                     cfg_path *out)
{
	loom_buf b = LOOM_BUF_INIT;
	yaml_node_t *v;
	int rc = 0;

	out->line = ydoc_line(n);
	if (ydoc_is_scalar(n) && !ydoc_is_null(n)) {
		/* path: /lake/x is shorthand for path: {uri: /lake/x} */
		rc = ydoc_string(d, n, what, &b);
		if (rc == 0 && !b.size)
			rc = ydoc_err(d, n, "%s: the uri is empty", what);
		if (rc == 0 && !(out->uri = loom_buf_detach(&b)))
			rc = loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_CONFIG, "out of memory");
		if (rc == 0)
			rc = note_uri_secret(cfg, out->uri);
		loom_buf_dispose(&b);
		return rc;
	}
	if (!ydoc_is_map(n))
		return ydoc_err(d, n, "%s: expected a mapping with a uri", what);
	LOOM_TRY(ydoc_check_dup_keys(d, n));
	if ((v = ydoc_get(d, n, "uri", NULL)) && !ydoc_is_null(v)) {
		if ((rc = ydoc_string(d, v, "uri", &b)) < 0)
			goto done;
		if (!b.size) {
			rc = ydoc_err(d, v, "%s.uri is empty", what);
			goto done;
		}
		out->uri = loom_buf_detach(&b);
		if (!out->uri) {
			rc = loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_CONFIG, "out of memory");
			goto done;
		}
		if ((rc = note_uri_secret(cfg, out->uri)) < 0)
			goto done;
	} else {
		rc = ydoc_err(d, n, "%s has no uri", what);
		goto done;
	}
	if ((v = ydoc_get(d, n, "storage_options", NULL))) {
		out->has_storage_options = !ydoc_is_null(v);
		if ((rc = read_kvs(cfg, d, v, "storage_options", "", &out->storage_options, 1)) < 0)
			goto done;
	}
	if ((v = ydoc_get(d, n, "writer", NULL))) {
		out->has_writer = !ydoc_is_null(v);
		if ((rc = read_kvs(cfg, d, v, "writer", "", &out->writer, 0)) < 0)
			goto done;
	}
	if ((v = ydoc_get(d, n, "delta_config", NULL))) {
		out->has_delta_config = !ydoc_is_null(v);
		if ((rc = read_kvs(cfg, d, v, "delta_config", "", &out->delta_config, 0)) < 0)
			goto done;
	}
	if ((v = ydoc_get(d, n, "commit", NULL))) {
		out->has_commit = !ydoc_is_null(v);
		if ((rc = read_kvs(cfg, d, v, "commit", "", &out->commit, 0)) < 0)
			goto done;
	}
	if ((v = ydoc_get(d, n, "target_file_size", NULL)) && !ydoc_is_null(v)) {
		if ((rc = ydoc_size(d, v, "target_file_size", &out->target_file_size)) < 0)
			goto done;
	}
done:
	loom_buf_dispose(&b);
	return rc;
}

static int read_tables(loom_config *cfg, ydoc *d, yaml_node_t *n)
{
	loom_buf b = LOOM_BUF_INIT;
	yaml_node_item_t *it;
	int rc = 0;

	if (ydoc_is_null(n))
		return 0;
	if (!ydoc_is_seq(n))
		return ydoc_err(d, n, "tables: expected a list of routes");
	cfg->tables = loom_calloc((size_t)(n->data.sequence.items.top - n->data.sequence.items.start) + 1,
	                          sizeof(cfg_table));
	if (!cfg->tables)
		return loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_CONFIG, "out of memory");
	for (it = n->data.sequence.items.start; it < n->data.sequence.items.top; it++) {
		yaml_node_t *e = ydoc_node(d, *it), *name, *path, *ref;
		cfg_table *t = &cfg->tables[cfg->n_tables];
		size_t j;

		if (!ydoc_is_map(e)) {
			rc = ydoc_err(d, e, "tables: each route is a mapping with a name");
			break;
		}
		if ((rc = ydoc_check_dup_keys(d, e)) < 0)
			break;
		cfg->n_tables++;
		t->line = ydoc_line(e);
		t->col = ydoc_col(e);
		name = ydoc_get(d, e, "name", NULL);
		if (!name || ydoc_is_null(name)) {
			rc = ydoc_err(d, e, "tables: route without a name");
			break;
		}
		if ((rc = ydoc_string(d, name, "name", &b)) < 0)
			break;
		if (!b.size) {
			rc = ydoc_err(d, name, "tables: the route name is empty");
			break;
		}
		for (j = 0; j + 1 < cfg->n_tables; j++)
			if (strcmp(cfg->tables[j].name, b.ptr) == 0)
				break;
		if (j + 1 < cfg->n_tables) {
			rc = ydoc_err(d, name, "duplicate table name '%s' (first defined at line %d)",
			              b.ptr, cfg->tables[j].line);
			break;
		}
		if (!(t->name = loom_strdup(b.ptr))) {
			rc = loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_CONFIG, "out of memory");
			break;
		}
		path = ydoc_get(d, e, "path", NULL);
		ref = ydoc_get(d, e, "ref", NULL);
		if (path && ydoc_is_null(path))
			path = NULL;
		if (ref && ydoc_is_null(ref))
			ref = NULL;
		if (path && ref) {
			rc = ydoc_err(d, e, "table '%s' has both 'path' and 'ref'; a route is one or the other",
			              t->name);
			break;
		}
		if (!path && !ref) {
			rc = ydoc_err(d, e, "table '%s' has neither 'path' nor 'ref'", t->name);
			break;
		}
		if (path) {
			t->has_path = 1;
			if ((rc = read_path(cfg, d, path, "path", &t->path)) < 0)
				break;
		} else {
			if ((rc = ydoc_string(d, ref, "ref", &b)) < 0)
				break;
			if (!b.size) {
				rc = ydoc_err(d, ref, "table '%s': ref is empty", t->name);
				break;
			}
			if (!(t->ref = loom_strdup(b.ptr))) {
				rc = loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_CONFIG, "out of memory");
				break;
			}
		}
	}
	loom_buf_dispose(&b);
	return rc;
}

/* A maintenance op given as a bool (loom's Python ETL writes
 * `compact: true`): 1 or 0 into *on, and 1 returned; 0 when `v` is not a
 * boolean scalar. */
static int bool_form(ydoc *d, yaml_node_t *v, const char *what, int *on, int *rc)
{
	static const char *const words[] = { "true", "false", "yes", "no", "on", "off", NULL };
	const char *raw = ydoc_raw(v);
	size_t i;
	if (!raw || v->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
		return 0;
	for (i = 0; words[i]; i++)
		if (strcasecmp(raw, words[i]) == 0) {
			*rc = ydoc_bool(d, v, what, on);
			return 1;
		}
	return 0;
}

/* An op of the maintenance block given as a scalar that is neither a
 * boolean nor null ("compact: yes please"): name every form it takes. */
static int op_form_err(ydoc *d, yaml_node_t *v, const char *what, const char *keys)
{
	return ydoc_err(d, v, "%s: expected true, false or a mapping {%s} (or nothing for the "
	                "defaults), got '%s'", what, keys, ydoc_raw(v) ? ydoc_raw(v) : "");
}

/* The maintenance block, in every form loom's Python ETL (loom-py's
 * MaintenanceConfig) accepts, plus loom's richer ones:
 *   schemas:    a list of prefixes; empty, null or absent = every route
 *   vacuum:     a mapping; null = no vacuum (loom-py); true/false (loom)
 *   compact:    true/false (loom-py); a mapping {target_size} or null =
 *               compact with those options / the defaults (loom)
 *   z_order_by: a list of columns; empty or null = no Z-order (loom-py);
 *               a mapping with every Z-order option (loom)
 *   purge:      true/false, nothing (the defaults) or a mapping
 *               {partition, target_size, dry_run} (loom, issue 32)
 *   analyze:    true/false, nothing (the defaults) or a mapping
 *               {columns, all, dry_run} (loom, issue 32)
 *   auto:       true/false, nothing (on), or a mapping of health policy
 *               thresholds (loom): vacuum, compact and z_order_by become
 *               auto's settings; purge and analyze still run as declared
 * compact and z_order_by exclude each other only when both are on, and
 * only when the block runs (loom_step_from_config), as in loom-py: the
 * file still loads for the steps of a plan. */
static int read_maintenance(loom_config *cfg, ydoc *d, yaml_node_t *n)
{
	static const char *const top[] = { "schemas", "vacuum", "compact", "z_order_by", "auto",
		                           "purge", "analyze", NULL };
	loom_buf b = LOOM_BUF_INIT;
	yaml_node_t *v, *kc = NULL, *kz = NULL;
	int rc = 0, on;

	cfg->has_maintenance = 1;
	loom_vacuum_opts_init(&cfg->vacuum, LOOM_VACUUM_OPTS_VERSION);
	loom_compact_opts_init(&cfg->compact, LOOM_COMPACT_OPTS_VERSION);
	loom_zorder_opts_init(&cfg->zorder.opts, LOOM_ZORDER_OPTS_VERSION);
	loom_health_policy_init(&cfg->auto_policy, LOOM_HEALTH_POLICY_VERSION);
	yopts_purge_dispose(&cfg->purge);
	yopts_analyze_dispose(&cfg->analyze);
	if (ydoc_is_null(n))
		return 0;
	if (!ydoc_is_map(n))
		return ydoc_err(d, n, "maintenance: expected a mapping");
	LOOM_TRY(ydoc_check_keys(d, n, "maintenance", top));

	if ((v = ydoc_get(d, n, "schemas", NULL)) && !ydoc_is_null(v)) {
		yaml_node_item_t *it;
		if (!ydoc_is_seq(v)) {
			rc = ydoc_err(d, v, "maintenance.schemas: expected a list of schema prefixes");
			goto done;
		}
		for (it = v->data.sequence.items.start; it < v->data.sequence.items.top; it++) {
			yaml_node_t *s = ydoc_node(d, *it);
			if ((rc = ydoc_string(d, s, "maintenance.schemas", &b)) < 0)
				goto done;
			if (!b.size) {
				rc = ydoc_err(d, s, "maintenance.schemas: empty schema prefix");
				goto done;
			}
			if ((rc = strv_push(&cfg->schemas, &cfg->n_schemas, b.ptr)) < 0)
				goto done;
		}
	}
	if ((v = ydoc_get(d, n, "vacuum", NULL)) && !ydoc_is_null(v)) {
		if (bool_form(d, v, "maintenance.vacuum", &on, &rc))
			cfg->has_vacuum = on;
		else if (ydoc_is_scalar(v))
			rc = op_form_err(d, v, "maintenance.vacuum", "retention_hours, dry_run, full");
		else if ((rc = yopts_vacuum(d, v, "maintenance.vacuum", &cfg->vacuum)) == 0)
			cfg->has_vacuum = 1;
		if (rc < 0)
			goto done;
	}
	if ((v = ydoc_get(d, n, "compact", &kc))) {
		if (bool_form(d, v, "maintenance.compact", &on, &rc))
			cfg->has_compact = on;
		else if (ydoc_is_scalar(v) && !ydoc_is_null(v))
			rc = op_form_err(d, v, "maintenance.compact", "target_size");
		else if ((rc = yopts_compact(d, v, "maintenance.compact", &cfg->compact)) == 0)
			cfg->has_compact = 1;
		if (rc < 0)
			goto done;
	}
	if ((v = ydoc_get(d, n, "z_order_by", &kz)) && !ydoc_is_null(v) &&
	    !(ydoc_is_seq(v) && v->data.sequence.items.top == v->data.sequence.items.start)) {
		yopts_zorder_dispose(&cfg->zorder);
		if ((rc = yopts_zorder(d, v, "maintenance.z_order_by", &cfg->zorder)) < 0)
			goto done;
		cfg->has_zorder = 1;
	}
	if ((v = ydoc_get(d, n, "purge", NULL))) {
		if (bool_form(d, v, "maintenance.purge", &on, &rc))
			cfg->has_purge = on;
		else if (ydoc_is_scalar(v) && !ydoc_is_null(v))
			rc = op_form_err(d, v, "maintenance.purge", "partition, target_size, dry_run");
		else if ((rc = yopts_purge(d, v, "maintenance.purge", &cfg->purge)) == 0)
			cfg->has_purge = 1;
		if (rc < 0)
			goto done;
	}
	if ((v = ydoc_get(d, n, "analyze", NULL))) {
		if (bool_form(d, v, "maintenance.analyze", &on, &rc))
			cfg->has_analyze = on;
		else if (ydoc_is_scalar(v) && !ydoc_is_null(v))
			rc = op_form_err(d, v, "maintenance.analyze", "columns, all, dry_run");
		else if ((rc = yopts_analyze(d, v, "maintenance.analyze", &cfg->analyze)) == 0)
			cfg->has_analyze = 1;
		if (rc < 0)
			goto done;
	}
	if ((v = ydoc_get(d, n, "auto", NULL)) &&
	    (rc = yopts_auto(d, v, "maintenance.auto", &cfg->has_auto, &cfg->auto_policy)) < 0)
		goto done;
	if (cfg->has_compact && cfg->has_zorder) {
		yaml_node_t *later = ydoc_line(kc) > ydoc_line(kz) ? kc : kz;
		cfg->exclusive_line = ydoc_line(later);
		cfg->exclusive_col = ydoc_col(later);
	}
done:
	loom_buf_dispose(&b);
	return rc;
}

static int load_doc(loom_config *cfg, ydoc *d)
{
	yaml_node_t *root = ydoc_root(d), *storage, *skey = NULL, *v, *k = NULL;

	if (!ydoc_is_map(root))
		return ydoc_err(d, root, "expected a mapping with a top-level 'storage:' key");
	storage = ydoc_get(d, root, "storage", &skey);
	if (!storage)
		return ydoc_err(d, root, "no top-level 'storage:' key");
	if (!ydoc_is_map(storage))
		return ydoc_err(d, storage, "storage: expected a mapping");
	LOOM_TRY(ydoc_check_dup_keys(d, storage));
	cfg->tables_line = ydoc_line(skey);
	cfg->tables_col = ydoc_col(skey);

	if ((v = ydoc_get(d, storage, "defaults", NULL)) && ydoc_is_map(v)) {
		yaml_node_t *tp;
		LOOM_TRY(ydoc_check_dup_keys(d, v));
		if ((tp = ydoc_get(d, v, "table_path", NULL)) && !ydoc_is_null(tp)) {
			cfg->has_default = 1;
			LOOM_TRY(read_path(cfg, d, tp, "defaults.table_path", &cfg->dflt));
		}
	} else if (v && !ydoc_is_null(v)) {
		return ydoc_err(d, v, "storage.defaults: expected a mapping");
	}
	if ((v = ydoc_get(d, storage, "tables", &k))) {
		cfg->tables_line = ydoc_line(k);
		cfg->tables_col = ydoc_col(k);
		LOOM_TRY(read_tables(cfg, d, v));
	}
	if ((v = ydoc_get(d, storage, "maintenance", NULL)))
		LOOM_TRY(read_maintenance(cfg, d, v));
	return 0;
}

LOOM_EXTERN(int) loom_config_load_string(loom_config **out, const char *yaml, size_t len,
                                         const char *name)
{
	loom_config *cfg;
	ydoc d;
	int rc;

	if (!out || !yaml)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_CONFIG, "config: NULL argument");
	*out = NULL;
	cfg = loom_calloc(1, sizeof(*cfg));
	if (!cfg)
		return loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_CONFIG, "out of memory");
	cfg->source = loom_strdup(name ? name : "<string>");
	if (!cfg->source) {
		loom_free(cfg);
		return loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_CONFIG, "out of memory");
	}
	/* credentials a store may take from the environment are masked too */
	rc = loom_secrets_add_env(&cfg->secrets);
	if (rc == 0)
		rc = ydoc_load(&d, yaml, len, cfg->source);
	d.note_secret = note_env_secret;
	d.note_secret_ctx = cfg;
	if (rc == 0)
		rc = load_doc(cfg, &d);
	ydoc_dispose(&d);
	if (rc < 0) {
		/* a value may have reached the message (a bad size written with a
		 * secret interpolated into it); mask before handing it back */
		loom_error e;
		loom_err_copy(&e);
		loom_config_mask(e.message, sizeof(e.message), cfg, e.message);
		loom_err(e.code, e.klass, "%s", e.message);
		loom_config_free(cfg);
		return rc;
	}
	*out = cfg;
	return 0;
}

LOOM_EXTERN(int) loom_config_load_file(loom_config **out, const char *path)
{
	FILE *f;
	char *data = NULL;
	size_t n = 0, cap = 0;
	int rc;

	if (!out || !path)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_CONFIG, "config: NULL argument");
	*out = NULL;
	f = fopen(path, "rb");
	if (!f)
		return loom_err_os(loom_err_from_errno(errno), errno, "%s: cannot open config", path);
	for (;;) {
		size_t got;
		if (n == cap) {
			char *grown;
			if (cap > ((size_t)64 << 20)) {
				fclose(f);
				loom_free(data);
				return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_CONFIG,
				                "%s: config larger than 64 MiB", path);
			}
			grown = loom_realloc(data, cap = cap ? cap * 2 : 4096);
			if (!grown) {
				fclose(f);
				loom_free(data);
				return loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_CONFIG, "out of memory");
			}
			data = grown;
		}
		got = fread(data + n, 1, cap - n, f);
		n += got;
		if (got == 0)
			break;
	}
	if (ferror(f)) {
		int e = errno;
		fclose(f);
		loom_free(data);
		return loom_err_os(LOOM_EIO, e, "%s: cannot read config", path);
	}
	fclose(f);
	rc = loom_config_load_string(out, data ? data : "", n, path);
	loom_free(data);
	return rc;
}
