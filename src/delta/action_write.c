/* delta/action_write.c - add and remove action lines. */
#include "delta/action_write.h"

#include <stdlib.h>
#include <string.h>

#include "util/error.h"

int delta_action_line(loom_buf *b, const char *name, json_t *body)
{
	json_t *line = json_object();
	char *text;
	int rc;
	json_object_set_new(line, name, body);
	text = json_dumps(line, JSON_COMPACT);
	json_decref(line);
	if (!text)
		return loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_DELTA, "out of memory building a commit");
	rc = loom_buf_puts(b, text);
	free(text);
	return rc ? rc : loom_buf_putc(b, '\n');
}

static json_t *kv_object(const delta_kv *kv, uint32_t n)
{
	json_t *o = json_object();
	uint32_t i;
	for (i = 0; i < n; i++)
		json_object_set_new(o, kv[i].key, kv[i].value ? json_string(kv[i].value) : json_null());
	return o;
}

static json_t *dv_object(const delta_dv_descriptor *dv)
{
	json_t *o = json_object();
	char st[2] = { dv->storage_type, 0 };
	json_object_set_new(o, "storageType", json_string(st));
	json_object_set_new(o, "pathOrInlineDv", json_string(dv->path_or_inline_dv));
	if (dv->has_offset)
		json_object_set_new(o, "offset", json_integer(dv->offset));
	json_object_set_new(o, "sizeInBytes", json_integer(dv->size_in_bytes));
	json_object_set_new(o, "cardinality", json_integer((json_int_t)dv->cardinality));
	return o;
}

int delta_add_line(loom_buf *b, const delta_add_spec *a)
{
	json_t *o = json_object();
	uint32_t i;
	if (a->tag_key || a->num_tags) {
		json_t *tags = json_object();
		if (a->tag_key)
			json_object_set_new(tags, a->tag_key, json_string(a->tag_value ? a->tag_value : ""));
		for (i = 0; i < a->num_tags; i++)
			json_object_set_new(tags, a->tags[i].key, json_string(a->tags[i].value ? a->tags[i].value : ""));
		json_object_set_new(o, "tags", tags);
	}
	if (a->path_raw_end)
		json_object_set_new(o, "path", json_stringn(a->path_raw, (size_t)(a->path_raw_end - a->path_raw)));
	else
		json_object_set_new(o, "path", json_string(a->path_raw));
	json_object_set_new(o, "partitionValues", kv_object(a->partition_values, a->num_partition_values));
	json_object_set_new(o, "size", json_integer((json_int_t)a->size));
	json_object_set_new(o, "modificationTime", json_integer((json_int_t)a->modification_time));
	json_object_set_new(o, "dataChange", json_boolean(a->data_change));
	if (a->stats)
		json_object_set_new(o, "stats", json_string(a->stats));
	if (a->has_row_tracking) {
		json_object_set_new(o, "baseRowId", json_integer((json_int_t)a->base_row_id));
		json_object_set_new(o, "defaultRowCommitVersion", json_integer((json_int_t)a->default_row_commit_version));
	}
	if (a->clustering_provider)
		json_object_set_new(o, "clusteringProvider", json_string(a->clustering_provider));
	return delta_action_line(b, "add", o);
}

int delta_remove_line(loom_buf *b, const delta_file *f, int64_t deletion_timestamp, int data_change)
{
	json_t *r = json_object();
	json_object_set_new(r, "path", json_string(f->path_raw));
	json_object_set_new(r, "deletionTimestamp", json_integer((json_int_t)deletion_timestamp));
	json_object_set_new(r, "dataChange", json_boolean(data_change));
	json_object_set_new(r, "extendedFileMetadata", json_true());
	json_object_set_new(r, "partitionValues", kv_object(f->partition_values, f->num_partition_values));
	json_object_set_new(r, "size", json_integer((json_int_t)f->size));
	if (f->num_tags)
		json_object_set_new(r, "tags", kv_object(f->tags, f->num_tags));
	if (f->dv.storage_type)
		json_object_set_new(r, "deletionVector", dv_object(&f->dv));
	if (f->base_row_id >= 0)
		json_object_set_new(r, "baseRowId", json_integer((json_int_t)f->base_row_id));
	if (f->default_row_commit_version >= 0)
		json_object_set_new(r, "defaultRowCommitVersion", json_integer((json_int_t)f->default_row_commit_version));
	if (f->stats)
		json_object_set_new(r, "stats", json_string(f->stats));
	return delta_action_line(b, "remove", r);
}

int delta_restate_line(loom_buf *b, const delta_file *f, const char *stats)
{
	json_t *o = json_object();
	json_object_set_new(o, "path", json_string(f->path_raw));
	json_object_set_new(o, "partitionValues", kv_object(f->partition_values, f->num_partition_values));
	json_object_set_new(o, "size", json_integer((json_int_t)f->size));
	json_object_set_new(o, "modificationTime", json_integer((json_int_t)f->modification_time));
	json_object_set_new(o, "dataChange", json_false());
	if (stats)
		json_object_set_new(o, "stats", json_string(stats));
	if (f->num_tags)
		json_object_set_new(o, "tags", kv_object(f->tags, f->num_tags));
	if (f->dv.storage_type)
		json_object_set_new(o, "deletionVector", dv_object(&f->dv));
	if (f->base_row_id >= 0)
		json_object_set_new(o, "baseRowId", json_integer((json_int_t)f->base_row_id));
	if (f->default_row_commit_version >= 0)
		json_object_set_new(o, "defaultRowCommitVersion",
		                    json_integer((json_int_t)f->default_row_commit_version));
	if (f->clustering_provider)
		json_object_set_new(o, "clusteringProvider", json_string(f->clustering_provider));
	return delta_action_line(b, "add", o);
}
