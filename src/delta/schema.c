/* delta/schema.c - parse schemaString into a typed tree. */
#include "delta/schema.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/error.h"

typedef struct schema_ctx {
	loom_arena *arena;
	char path[512];             /* field path for messages */
} schema_ctx;

static int bad(schema_ctx *c, const char *what)
{
	return loom_err(LOOM_ECORRUPT, LOOM_ERRCLASS_DELTA, "schemaString: %s at \"%s\"",
	                what, c->path[0] ? c->path : "<root>");
}

delta_type_kind delta_type_kind_of(const char *n, int32_t *precision, int32_t *scale)
{
	static const struct { const char *name; delta_type_kind k; } prims[] = {
		{ "string", DELTA_T_STRING }, { "long", DELTA_T_LONG },
		{ "integer", DELTA_T_INTEGER }, { "short", DELTA_T_SHORT },
		{ "byte", DELTA_T_BYTE }, { "float", DELTA_T_FLOAT },
		{ "double", DELTA_T_DOUBLE }, { "boolean", DELTA_T_BOOLEAN },
		{ "binary", DELTA_T_BINARY }, { "date", DELTA_T_DATE },
		{ "timestamp", DELTA_T_TIMESTAMP }, { "timestamp_ntz", DELTA_T_TIMESTAMP_NTZ },
		{ "variant", DELTA_T_VARIANT }, { "void", DELTA_T_VOID },
	};
	size_t i;
	if (precision)
		*precision = 0;
	if (scale)
		*scale = 0;
	for (i = 0; i < sizeof(prims) / sizeof(prims[0]); i++)
		if (strcmp(n, prims[i].name) == 0)
			return prims[i].k;
	if (strncmp(n, "decimal", 7) == 0) {
		int p = 10, s = 0, used = 0;
		const char *rest = n + 7;
		if (*rest == '\0') /* bare "decimal" = decimal(10,0) in Spark */
			goto ok;
		if (sscanf(rest, " ( %d , %d ) %n", &p, &s, &used) == 2 && rest[used] == '\0' &&
		    p >= 1 && p <= 38 && s >= 0 && s <= p)
			goto ok;
		return DELTA_T_UNKNOWN;
	ok:
		if (precision)
			*precision = p;
		if (scale)
			*scale = s;
		return DELTA_T_DECIMAL;
	}
	return DELTA_T_UNKNOWN;
}

static int parse_type(schema_ctx *c, json_t *t, delta_type *out, int depth);

static int parse_struct(schema_ctx *c, json_t *obj, delta_type *out, int depth)
{
	json_t *fields = json_object_get(obj, "fields"), *f;
	size_t i, plen = strlen(c->path);

	out->kind = DELTA_T_STRUCT;
	out->name = "struct";
	if (!json_is_array(fields))
		return bad(c, "struct without a \"fields\" array");
	out->num_fields = json_array_size(fields);
	out->fields = loom_arena_calloc(c->arena, (out->num_fields + 1) * sizeof(delta_field));
	if (!out->fields)
		return LOOM_ENOMEM;
	json_array_foreach(fields, i, f) {
		delta_field *df = &out->fields[i];
		json_t *name = json_object_get(f, "name"), *md, *v;
		if (!json_is_object(f) || !json_is_string(name))
			return bad(c, "field without a name");
		snprintf(c->path + plen, sizeof(c->path) - plen, "%s%s", plen ? "." : "",
		         json_string_value(name));
		df->name = loom_arena_strdup(c->arena, json_string_value(name));
		df->type = loom_arena_calloc(c->arena, sizeof(delta_type));
		if (!df->name || !df->type)
			return LOOM_ENOMEM;
		v = json_object_get(f, "nullable");
		df->nullable = v ? json_is_true(v) : 1;
		if (v && !json_is_boolean(v))
			return bad(c, "\"nullable\" is not a boolean");
		LOOM_TRY(parse_type(c, json_object_get(f, "type"), df->type, depth + 1));
		df->column_mapping_id = -1;
		md = json_object_get(f, "metadata");
		if (md && !json_is_null(md)) {
			char *text;
			if (!json_is_object(md))
				return bad(c, "\"metadata\" is not an object");
			v = json_object_get(md, "delta.columnMapping.id");
			if (json_is_integer(v))
				df->column_mapping_id = json_integer_value(v);
			else if (v)
				return bad(c, "delta.columnMapping.id is not an integer");
			v = json_object_get(md, "delta.columnMapping.physicalName");
			if (json_is_string(v)) {
				df->physical_name = loom_arena_strdup(c->arena, json_string_value(v));
				if (!df->physical_name)
					return LOOM_ENOMEM;
			} else if (v) {
				return bad(c, "delta.columnMapping.physicalName is not a string");
			}
			text = json_dumps(md, JSON_COMPACT | JSON_PRESERVE_ORDER);
			if (!text)
				return LOOM_ENOMEM;
			df->metadata_json = loom_arena_strdup(c->arena, text);
			free(text);
			if (!df->metadata_json)
				return LOOM_ENOMEM;
		} else {
			df->metadata_json = "{}";
		}
		c->path[plen] = '\0';
	}
	return 0;
}

static int parse_type(schema_ctx *c, json_t *t, delta_type *out, int depth)
{
	const char *tn;
	json_t *v;

	if (depth > 64)
		return bad(c, "schema nested too deeply");
	if (json_is_string(t)) {
		out->name = loom_arena_strdup(c->arena, json_string_value(t));
		if (!out->name)
			return LOOM_ENOMEM;
		out->kind = delta_type_kind_of(out->name, &out->precision, &out->scale);
		return 0;
	}
	if (!json_is_object(t))
		return bad(c, "type is neither a name nor an object");
	v = json_object_get(t, "type");
	if (!json_is_string(v))
		return bad(c, "complex type without a \"type\" name");
	tn = json_string_value(v);
	if (strcmp(tn, "struct") == 0)
		return parse_struct(c, t, out, depth);
	if (strcmp(tn, "array") == 0) {
		out->kind = DELTA_T_ARRAY;
		out->name = "array";
		out->element = loom_arena_calloc(c->arena, sizeof(delta_type));
		if (!out->element)
			return LOOM_ENOMEM;
		v = json_object_get(t, "containsNull");
		out->contains_null = v ? json_is_true(v) : 1;
		if (!json_object_get(t, "elementType"))
			return bad(c, "array without \"elementType\"");
		return parse_type(c, json_object_get(t, "elementType"), out->element, depth + 1);
	}
	if (strcmp(tn, "map") == 0) {
		out->kind = DELTA_T_MAP;
		out->name = "map";
		out->key = loom_arena_calloc(c->arena, sizeof(delta_type));
		out->value = loom_arena_calloc(c->arena, sizeof(delta_type));
		if (!out->key || !out->value)
			return LOOM_ENOMEM;
		v = json_object_get(t, "valueContainsNull");
		out->value_contains_null = v ? json_is_true(v) : 1;
		if (!json_object_get(t, "keyType") || !json_object_get(t, "valueType"))
			return bad(c, "map without \"keyType\"/\"valueType\"");
		LOOM_TRY(parse_type(c, json_object_get(t, "keyType"), out->key, depth + 1));
		return parse_type(c, json_object_get(t, "valueType"), out->value, depth + 1);
	}
	return bad(c, "unknown complex type");
}

int delta_schema_parse(loom_arena *arena, const char *json, size_t len,
                       delta_schema *out)
{
	schema_ctx c;
	json_error_t jerr;
	json_t *doc;
	int rc;

	memset(out, 0, sizeof(*out));
	c.arena = arena;
	c.path[0] = '\0';
	doc = json_loadb(json, len, 0, &jerr);
	if (!doc)
		return loom_err(LOOM_ECORRUPT, LOOM_ERRCLASS_DELTA,
		                "schemaString: invalid JSON at column %d: %s", jerr.column,
		                jerr.text);
	if (!json_is_object(doc) || !json_is_string(json_object_get(doc, "type")) ||
	    strcmp(json_string_value(json_object_get(doc, "type")), "struct") != 0) {
		json_decref(doc);
		return loom_err(LOOM_ECORRUPT, LOOM_ERRCLASS_DELTA,
		                "schemaString: the top level must be a struct");
	}
	rc = parse_struct(&c, doc, &out->root, 0);
	json_decref(doc);
	return rc;
}

const delta_field *delta_schema_find(const delta_schema *s, const char *name)
{
	size_t i;
	for (i = 0; i < s->root.num_fields; i++)
		if (strcmp(s->root.fields[i].name, name) == 0)
			return &s->root.fields[i];
	return NULL;
}

const char *delta_field_physical_name(const delta_field *f, int column_mapping)
{
	return column_mapping && f->physical_name ? f->physical_name : f->name;
}
