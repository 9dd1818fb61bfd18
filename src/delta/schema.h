/* delta/schema.h - the table schema (metaData.schemaString) as a typed
 * tree (PROTOCOL.md "Schema Serialization Format"). */
#ifndef LOOM_DELTA_SCHEMA_H
#define LOOM_DELTA_SCHEMA_H

#include <stddef.h>
#include <stdint.h>

#include "util/arena.h"

typedef enum delta_type_kind {
	DELTA_T_UNKNOWN = 0,      /* a type name loom does not know; see name */
	DELTA_T_STRING,
	DELTA_T_LONG,
	DELTA_T_INTEGER,
	DELTA_T_SHORT,
	DELTA_T_BYTE,
	DELTA_T_FLOAT,
	DELTA_T_DOUBLE,
	DELTA_T_BOOLEAN,
	DELTA_T_BINARY,
	DELTA_T_DATE,
	DELTA_T_TIMESTAMP,
	DELTA_T_TIMESTAMP_NTZ,
	DELTA_T_DECIMAL,
	DELTA_T_VARIANT,
	DELTA_T_VOID,
	DELTA_T_STRUCT,
	DELTA_T_ARRAY,
	DELTA_T_MAP
} delta_type_kind;

typedef struct delta_field delta_field;
typedef struct delta_type delta_type;

struct delta_type {
	delta_type_kind kind;
	const char *name;            /* primitive type name as written
	                                ("decimal(10,2)", "string", ...);
	                                "struct"/"array"/"map" for nested */
	int32_t precision, scale;    /* decimal */
	/* struct */
	delta_field *fields;
	size_t num_fields;
	/* array: element; map: key and value */
	delta_type *element;
	int contains_null;           /* array elements may be null */
	delta_type *key;
	delta_type *value;
	int value_contains_null;
};

struct delta_field {
	const char *name;
	delta_type *type;
	int nullable;
	const char *metadata_json;   /* the field's metadata object as JSON */
	int64_t column_mapping_id;   /* delta.columnMapping.id, -1 absent */
	const char *physical_name;   /* delta.columnMapping.physicalName or NULL */
};

typedef struct delta_schema {
	delta_type root;             /* kind DELTA_T_STRUCT */
} delta_schema;

/* Parse schema JSON text into `out`, all memory from `arena`.
 * LOOM_ECORRUPT (naming the field path) for invalid JSON or structure.
 * Unknown primitive type names parse as DELTA_T_UNKNOWN. */
int delta_schema_parse(loom_arena *arena, const char *json, size_t len,
                       delta_schema *out);

/* Parse a primitive type name ("integer", "decimal(10,2)", ...). */
delta_type_kind delta_type_kind_of(const char *name, int32_t *precision,
                                   int32_t *scale);

/* Top-level field by (logical) name, or NULL. */
const delta_field *delta_schema_find(const delta_schema *s, const char *name);

/* The name a partition value / stats / data file uses for a field:
 * the physical name under column mapping (mode "id" or "name"), else the
 * logical name. */
const char *delta_field_physical_name(const delta_field *f, int column_mapping);

#endif
