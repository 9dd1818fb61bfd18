/* plan/config_query.c - reading a loaded config: routes, locations, the
 * maintenance block, secret masking and the JSON rendering. */
#include <ctype.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "loom/config.h"
#include "plan/config_int.h"
#include "plan/plan_int.h"
#include "util/alloc.h"
#include "util/buf.h"
#include "util/error.h"

LOOM_EXTERN(size_t) loom_config_table_count(const loom_config *cfg)
{
	return cfg ? cfg->n_tables : 0;
}

LOOM_EXTERN(const char *) loom_config_table_name_at(const loom_config *cfg, size_t i)
{
	return cfg && i < cfg->n_tables ? cfg->tables[i].name : NULL;
}

LOOM_EXTERN(int) loom_config_table_has_path_at(const loom_config *cfg, size_t i)
{
	return cfg && i < cfg->n_tables ? cfg->tables[i].has_path : 0;
}

LOOM_EXTERN(int) loom_config_has_default_path(const loom_config *cfg)
{
	return cfg ? cfg->has_default : 0;
}

static const cfg_table *find_route(const loom_config *cfg, const char *ref)
{
	size_t i;
	for (i = 0; i < cfg->n_tables; i++)
		if (strcmp(cfg->tables[i].name, ref) == 0)
			return &cfg->tables[i];
	return NULL;
}

LOOM_EXTERN(int) loom_config_knows(const loom_config *cfg, const char *ref)
{
	if (!cfg || !ref)
		return 0;
	return find_route(cfg, ref) != NULL || cfg->has_default;
}

LOOM_EXTERN(int) loom_config_tables_line(const loom_config *cfg)
{
	return cfg ? cfg->tables_line : 0;
}

LOOM_EXTERN(const char *) loom_config_source(const loom_config *cfg)
{
	return cfg ? cfg->source : NULL;
}

/* The location plus the bytes of its URI, freed together. */
typedef struct owned_location {
	loom_table_location loc;
	char uri[];
} owned_location;

static void pick(const cfg_kvs *own, int has_own, const cfg_kvs *dflt, int has_dflt,
                 const loom_kv **items, size_t *n)
{
	const cfg_kvs *k = has_own ? own : (has_dflt ? dflt : NULL);
	*items = k ? k->items : NULL;
	*n = k ? k->n : 0;
}

/* ref segments must be non-empty and must not contain path separators,
 * so a ref can never reach outside the default root. */
static int check_ref(const char *ref)
{
	const char *p;
	if (!ref || !*ref)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_CONFIG, "empty table ref");
	if (ref[0] == '.' || ref[strlen(ref) - 1] == '.' || strstr(ref, ".."))
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_CONFIG,
		                "table ref '%s' has an empty part", ref);
	for (p = ref; *p; p++)
		if (*p == '/' || *p == '\\' || (unsigned char)*p < 0x20)
			return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_CONFIG,
			                "table ref '%s' contains a path separator or control character", ref);
	return 0;
}

LOOM_EXTERN(int) loom_config_locate(loom_table_location **out, const loom_config *cfg,
                                    const char *ref)
{
	const cfg_table *t;
	const cfg_path *own = NULL, *d;
	owned_location *ol;
	loom_buf uri = LOOM_BUF_INIT;
	int rc;

	if (!cfg || !out)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_CONFIG, "locate: NULL argument");
	*out = NULL;
	LOOM_TRY(check_ref(ref));
	d = cfg->has_default ? &cfg->dflt : NULL;
	t = find_route(cfg, ref);
	if (t && !t->has_path)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_CONFIG,
		                "%s:%d: table '%s' routes to catalog ref '%s'; maintenance needs a "
		                "path route (tables[].path or defaults.table_path)",
		                cfg->source, t->line, ref, t->ref);
	if (t) {
		own = &t->path;
		rc = loom_buf_puts(&uri, own->uri);
	} else if (d) {
		size_t n = strlen(d->uri);
		const char *p;
		rc = loom_buf_put(&uri, d->uri, n);
		if (rc == 0 && (n == 0 || d->uri[n - 1] != '/'))
			rc = loom_buf_putc(&uri, '/');
		for (p = ref; rc == 0 && *p; p++)
			rc = loom_buf_putc(&uri, *p == '.' ? '/' : *p);
	} else {
		return loom_err(LOOM_ENOTFOUND, LOOM_ERRCLASS_CONFIG,
		                "table '%s' is not in %s (no tables[] route and no "
		                "defaults.table_path)", ref, cfg->source);
	}
	if (rc < 0) {
		loom_buf_dispose(&uri);
		return rc;
	}
	ol = loom_calloc(1, sizeof(*ol) + uri.size + 1);
	if (!ol) {
		loom_buf_dispose(&uri);
		return loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_CONFIG, "out of memory");
	}
	memcpy(ol->uri, uri.ptr, uri.size + 1);
	loom_buf_dispose(&uri);
	ol->loc.version = LOOM_TABLE_LOCATION_VERSION;
	ol->loc.uri = ol->uri;
	{
		static const cfg_path empty;
		const cfg_path *o = own ? own : &empty;
		const cfg_path *df = d ? d : &empty;
		int ho = own != NULL, hd = d != NULL;
		pick(&o->storage_options, ho && o->has_storage_options, &df->storage_options,
		     hd, &ol->loc.storage_options, &ol->loc.n_storage_options);
		pick(&o->writer, ho && o->has_writer, &df->writer, hd, &ol->loc.writer,
		     &ol->loc.n_writer);
		pick(&o->delta_config, ho && o->has_delta_config, &df->delta_config, hd,
		     &ol->loc.delta_config, &ol->loc.n_delta_config);
		pick(&o->commit, ho && o->has_commit, &df->commit, hd, &ol->loc.commit,
		     &ol->loc.n_commit);
		ol->loc.target_file_size = (own && own->target_file_size) ? own->target_file_size
		                                                            : df->target_file_size;
	}
	*out = &ol->loc;
	return 0;
}

LOOM_EXTERN(void) loom_table_location_free(loom_table_location *loc)
{
	/* loc is the first member of owned_location */
	loom_free(loc);
}

/* ---- maintenance block ------------------------------------------------- */

LOOM_EXTERN(int) loom_config_has_maintenance(const loom_config *cfg)
{
	return cfg ? cfg->has_maintenance : 0;
}

LOOM_EXTERN(size_t) loom_config_maintenance_schema_count(const loom_config *cfg)
{
	return cfg ? cfg->n_schemas : 0;
}

LOOM_EXTERN(const char *) loom_config_maintenance_schema_at(const loom_config *cfg, size_t i)
{
	return cfg && i < cfg->n_schemas ? cfg->schemas[i] : NULL;
}

LOOM_EXTERN(int) loom_config_maintenance_vacuum(loom_vacuum_opts *out, const loom_config *cfg)
{
	if (!cfg || !cfg->has_vacuum)
		return LOOM_ENOTFOUND;
	*out = cfg->vacuum;
	return 0;
}

LOOM_EXTERN(int) loom_config_maintenance_compact(loom_compact_opts *out, const loom_config *cfg)
{
	if (!cfg || !cfg->has_compact)
		return LOOM_ENOTFOUND;
	*out = cfg->compact;
	return 0;
}

LOOM_EXTERN(int) loom_config_maintenance_zorder(loom_zorder_opts *out, const loom_config *cfg)
{
	if (!cfg || !cfg->has_zorder)
		return LOOM_ENOTFOUND;
	*out = cfg->zorder.opts;
	return 0;
}

/* ---- secrets ----------------------------------------------------------- */

/* One rule and one masking routine for the whole library: util/secret.c. */
LOOM_EXTERN(size_t) loom_config_mask(char *out, size_t cap, const loom_config *cfg, const char *text)
{
	return loom_secrets_mask(cfg ? &cfg->secrets : NULL, text, out, cap);
}

/* ---- JSON -------------------------------------------------------------- */

/* `text` with every known secret in it replaced by "***". */
static json_t *masked_str(const loom_config *cfg, const char *text)
{
	char tmp[4096];
	loom_config_mask(tmp, sizeof(tmp), cfg, text);
	return plan_json_str(tmp);
}

/* Secret keys show "***"; any other value has the known secrets masked
 * inside it (one may have been interpolated from a secret variable). */
static json_t *kvs_json(const loom_config *cfg, const cfg_kvs *k, int mask)
{
	json_t *o = json_object();
	size_t i;
	for (i = 0; o && i < k->n; i++) {
		const char *v = k->items[i].value;
		if (mask && loom_secret_name(k->items[i].key)) {
			json_object_set_new(o, k->items[i].key, plan_json_str("***"));
		} else {
			json_object_set_new(o, k->items[i].key, v ? masked_str(cfg, v) : json_null());
		}
	}
	return o;
}

static json_t *path_json(const loom_config *cfg, const cfg_path *p)
{
	json_t *o = json_object();
	json_object_set_new(o, "uri", masked_str(cfg, p->uri));
	if (p->has_storage_options || p->storage_options.n)
		json_object_set_new(o, "storage_options", kvs_json(cfg, &p->storage_options, 1));
	if (p->writer.n)
		json_object_set_new(o, "writer", kvs_json(cfg, &p->writer, 0));
	if (p->delta_config.n)
		json_object_set_new(o, "delta_config", kvs_json(cfg, &p->delta_config, 0));
	if (p->commit.n)
		json_object_set_new(o, "commit", kvs_json(cfg, &p->commit, 0));
	if (p->target_file_size)
		json_object_set_new(o, "target_file_size", json_integer(p->target_file_size));
	return o;
}

LOOM_EXTERN(int) loom_config_to_json(char **out, const loom_config *cfg)
{
	json_t *root, *tables, *m;
	char *s, *copy;
	size_t i;

	if (!cfg || !out)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_CONFIG, "to_json: NULL argument");
	root = json_object();
	json_object_set_new(root, "source", plan_json_str(cfg->source));
	if (cfg->has_default)
		json_object_set_new(root, "default_table_path", path_json(cfg, &cfg->dflt));
	tables = json_array();
	for (i = 0; i < cfg->n_tables; i++) {
		const cfg_table *t = &cfg->tables[i];
		json_t *o = json_object();
		json_object_set_new(o, "name", plan_json_str(t->name));
		json_object_set_new(o, "line", json_integer(t->line));
		if (t->has_path)
			json_object_set_new(o, "path", path_json(cfg, &t->path));
		else
			json_object_set_new(o, "ref", plan_json_str(t->ref));
		json_array_append_new(tables, o);
	}
	json_object_set_new(root, "tables", tables);
	if (cfg->has_maintenance) {
		json_t *sch = json_array();
		m = json_object();
		for (i = 0; i < cfg->n_schemas; i++)
			json_array_append_new(sch, plan_json_str(cfg->schemas[i]));
		json_object_set_new(m, "schemas", sch);
		if (cfg->has_vacuum) {
			json_t *v = json_object();
			if (cfg->vacuum.retention_hours >= 0)
				json_object_set_new(v, "retention_hours",
				                    json_integer(cfg->vacuum.retention_hours));
			else
				json_object_set_new(v, "retention_hours", json_null());
			json_object_set_new(v, "dry_run", json_boolean(cfg->vacuum.dry_run));
			json_object_set_new(v, "full", json_boolean(cfg->vacuum.full));
			json_object_set_new(m, "vacuum", v);
		}
		if (cfg->has_compact) {
			json_t *c = json_object();
			json_object_set_new(c, "target_size", cfg->compact.target_size
			                    ? json_integer(cfg->compact.target_size) : json_null());
			json_object_set_new(m, "compact", c);
		}
		if (cfg->has_zorder)
			json_object_set_new(m, "z_order_by", plan_zorder_json(&cfg->zorder.opts));
		if (cfg->has_purge)
			json_object_set_new(m, "purge", plan_purge_json(&cfg->purge.opts));
		if (cfg->has_analyze)
			json_object_set_new(m, "analyze", plan_analyze_json(&cfg->analyze.opts));
		json_object_set_new(m, "auto", cfg->has_auto ? plan_policy_json(&cfg->auto_policy)
		                                             : json_false());
		json_object_set_new(root, "maintenance", m);
	}
	s = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	json_decref(root);
	if (!s)
		return loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_CONFIG, "out of memory rendering JSON");
	copy = loom_strdup(s);
	free(s);
	if (!copy)
		return loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_CONFIG, "out of memory");
	*out = copy;
	return 0;
}

LOOM_EXTERN(void) loom_string_free(char *s)
{
	loom_free(s);
}
