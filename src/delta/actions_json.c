/* delta/actions_json.c - protocol, metaData, txn and domainMetadata as
 * JSON (PROTOCOL.md "Actions"). */
#include "delta/actions_json.h"

static json_t *str_or_null(const char *s)
{
	return s ? json_string(s) : json_null();
}

static json_t *kv_object(const delta_kv *kv, uint32_t n)
{
	json_t *o = json_object();
	uint32_t i;
	for (i = 0; o && i < n; i++)
		if (kv[i].key && json_object_set_new(o, kv[i].key, str_or_null(kv[i].value)) < 0) {
			json_decref(o);
			return NULL;
		}
	return o;
}

static json_t *str_array(const char **items, uint32_t n)
{
	json_t *a = json_array();
	uint32_t i;
	for (i = 0; a && i < n; i++)
		if (json_array_append_new(a, str_or_null(items[i])) < 0) {
			json_decref(a);
			return NULL;
		}
	return a;
}

/* Set `key` to `v` (stolen); a NULL `v` marks the object failed. */
static int set(json_t *o, const char *key, json_t *v)
{
	if (!v)
		return -1;
	return json_object_set_new(o, key, v);
}

json_t *delta_protocol_json(const delta_protocol *p)
{
	json_t *o = json_object();
	int bad = !o;
	if (!bad) {
		bad |= set(o, "minReaderVersion", json_integer(p->min_reader_version));
		bad |= set(o, "minWriterVersion", json_integer(p->min_writer_version));
		/* the lists exist exactly for reader version 3 / writer version 7 */
		if (p->min_reader_version >= 3)
			bad |= set(o, "readerFeatures", str_array(p->reader_features, p->num_reader_features));
		if (p->min_writer_version >= 7)
			bad |= set(o, "writerFeatures", str_array(p->writer_features, p->num_writer_features));
	}
	if (bad) {
		json_decref(o);
		return NULL;
	}
	return o;
}

json_t *delta_metadata_json(const delta_metadata *m)
{
	json_t *o = json_object(), *fmt = json_object();
	int bad = !o || !fmt;
	if (!bad) {
		bad |= set(fmt, "provider", json_string(m->format_provider ? m->format_provider : "parquet"));
		bad |= set(fmt, "options", kv_object(m->format_options, m->num_format_options));
		bad |= set(o, "id", json_string(m->id ? m->id : ""));
		if (m->name)
			bad |= set(o, "name", json_string(m->name));
		if (m->description)
			bad |= set(o, "description", json_string(m->description));
		bad |= set(o, "format", fmt);
		fmt = NULL;
		bad |= set(o, "schemaString", json_string(m->schema_string ? m->schema_string : ""));
		bad |= set(o, "partitionColumns", str_array(m->partition_columns, m->num_partition_columns));
		bad |= set(o, "configuration", kv_object(m->configuration, m->num_configuration));
		if (m->created_time >= 0)
			bad |= set(o, "createdTime", json_integer(m->created_time));
	}
	json_decref(fmt);
	if (bad) {
		json_decref(o);
		return NULL;
	}
	return o;
}

json_t *delta_txn_json(const delta_txn *t)
{
	json_t *o = json_object();
	int bad = !o;
	if (!bad) {
		bad |= set(o, "appId", json_string(t->app_id ? t->app_id : ""));
		bad |= set(o, "version", json_integer(t->version));
		if (t->last_updated >= 0)
			bad |= set(o, "lastUpdated", json_integer(t->last_updated));
	}
	if (bad) {
		json_decref(o);
		return NULL;
	}
	return o;
}

json_t *delta_domain_json(const delta_domain *d)
{
	json_t *o = json_object();
	int bad = !o;
	if (!bad) {
		bad |= set(o, "domain", json_string(d->domain ? d->domain : ""));
		bad |= set(o, "configuration", json_string(d->configuration ? d->configuration : ""));
		bad |= set(o, "removed", json_boolean(d->removed));
	}
	if (bad) {
		json_decref(o);
		return NULL;
	}
	return o;
}

json_t *delta_action_wrap(const char *name, json_t *inner)
{
	json_t *o;
	if (!inner)
		return NULL;
	o = json_object();
	if (!o || json_object_set_new(o, name, inner) < 0) {
		json_decref(o);
		return NULL;
	}
	return o;
}
