/* delta/actions.h - the Delta log actions as C structs, and their parsing
 * from JSON (commit lines, JSON checkpoints).
 *
 * Strings in these structs are NUL-terminated and borrowed: during parsing
 * they point into the parser's JSON values (valid until the next line);
 * in a snapshot they live in the snapshot's arena (valid until
 * delta_snapshot_free). Integers that a log may omit use -1 for "absent"
 * unless noted. Unknown fields are ignored (protocol: readers must). */
#ifndef LOOM_DELTA_ACTIONS_H
#define LOOM_DELTA_ACTIONS_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "loom/table.h"
#include "util/arena.h"
#include "util/buf.h"

/* A string -> string map entry; value NULL = JSON null. Same layout as the
 * public loom_kv. */
typedef loom_kv delta_kv;

typedef struct delta_protocol {
	int32_t min_reader_version;
	int32_t min_writer_version;
	const char **reader_features;   /* NULL when the list is absent */
	uint32_t num_reader_features;
	const char **writer_features;   /* NULL when the list is absent */
	uint32_t num_writer_features;
} delta_protocol;

typedef struct delta_metadata {
	const char *id;
	const char *name;               /* may be NULL */
	const char *description;        /* may be NULL */
	const char *format_provider;    /* "parquet" */
	delta_kv *format_options;
	uint32_t num_format_options;
	const char *schema_string;      /* JSON text of the table schema */
	const char **partition_columns;
	uint32_t num_partition_columns;
	delta_kv *configuration;        /* table properties */
	uint32_t num_configuration;
	int64_t created_time;           /* ms, -1 absent */
} delta_metadata;

/* DeletionVectorDescriptor; storage_type 0 = the file has no DV. */
typedef struct delta_dv_descriptor {
	char storage_type;              /* 'u', 'i', 'p' */
	uint8_t has_offset;
	int32_t offset;                 /* byte offset in the DV file (u, p) */
	int32_t size_in_bytes;          /* bytes of the serialized bitmap */
	int64_t cardinality;            /* deleted rows */
	const char *path_or_inline_dv;
} delta_dv_descriptor;

/* An add or remove action (a "logical file"). */
typedef struct delta_file {
	const char *path;               /* percent-decoded: a store key relative
	                                   to the table root, or an absolute URI */
	const char *path_raw;           /* exactly as in the log (URI-encoded);
	                                   write this back in new actions */
	const char *key;                /* reconciliation key: path, '\0', DV
	                                   unique id ("" without DV) */
	uint32_t key_len;
	uint32_t num_partition_values;
	delta_kv *partition_values;     /* NULL values = null partition */
	uint32_t num_tags;
	delta_kv *tags;
	int64_t size;                   /* bytes; -1 unknown (remove without it) */
	int64_t modification_time;      /* add: ms; -1 for removes */
	int64_t deletion_timestamp;     /* remove: ms; -1 absent */
	int64_t num_records;            /* stats numRecords; -1 unknown */
	int64_t base_row_id;            /* -1 absent */
	int64_t default_row_commit_version; /* -1 absent */
	const char *stats;              /* stats JSON text, NULL if absent (or
	                                   not kept, see delta_load_opts) */
	const char *clustering_provider;/* NULL if absent */
	delta_dv_descriptor dv;
	int64_t version;                /* commit version the action came from;
	                                   the checkpoint version for checkpoint
	                                   actions */
	uint8_t is_add;
	uint8_t data_change;
	uint8_t extended_file_metadata; /* remove: partitionValues/size valid */
	uint8_t has_stats_parsed;       /* numRecords came from stats_parsed */
} delta_file;

typedef struct delta_txn {
	const char *app_id;
	int64_t version;
	int64_t last_updated;           /* -1 absent */
} delta_txn;

typedef struct delta_domain {
	const char *domain;
	const char *configuration;
	uint8_t removed;
} delta_domain;

typedef struct delta_sidecar {
	const char *path;               /* as written (relative to _sidecars/) */
	int64_t size_in_bytes;
	int64_t modification_time;
} delta_sidecar;

/* One parsed action. Only the member named by `type` is valid. */
typedef enum delta_action_type {
	DELTA_ACT_NONE = 0,             /* a line with no known action */
	DELTA_ACT_ADD,
	DELTA_ACT_REMOVE,
	DELTA_ACT_METADATA,
	DELTA_ACT_PROTOCOL,
	DELTA_ACT_TXN,
	DELTA_ACT_DOMAIN,
	DELTA_ACT_COMMIT_INFO,
	DELTA_ACT_CDC,
	DELTA_ACT_CHECKPOINT_METADATA,
	DELTA_ACT_SIDECAR
} delta_action_type;

typedef struct delta_action {
	delta_action_type type;
	union {
		delta_file file;            /* ADD, REMOVE (CDC: path/size/pv) */
		delta_metadata metadata;
		delta_protocol protocol;
		delta_txn txn;
		delta_domain domain;
		delta_sidecar sidecar;
		int64_t checkpoint_version; /* CHECKPOINT_METADATA */
	} u;
	json_t *json;                   /* the action's JSON object (borrowed) */
	uint64_t row;                   /* from a Parquet checkpoint: its row in
	                                   the file (from 0); else 0 */
	uint32_t stats_off, stats_len;  /* from delta_action_parse_fast: the
	                                   stats string's body (as escaped) in
	                                   the line; stats_len 0 = not known */
} delta_action;

/* Scratch memory reused across lines while parsing. */
typedef struct delta_parse_scratch {
	loom_arena arena;               /* reset per line: transient arrays */
	loom_buf path;                  /* decoded path */
} delta_parse_scratch;

void delta_parse_scratch_init(delta_parse_scratch *s);
void delta_parse_scratch_reset(delta_parse_scratch *s);
void delta_parse_scratch_dispose(delta_parse_scratch *s);

/* Parse one action line (a JSON object with exactly one known action key;
 * unknown keys are ignored). `where` names the file and line for errors
 * ("_delta_log/00..05.json line 3"). *root receives the parsed JSON (the
 * caller json_decref()s it after using `out`). LOOM_ECORRUPT for invalid
 * JSON, a non-object line, or a known action missing required fields. */
int delta_action_parse_line(const char *line, size_t len, const char *where,
                            delta_parse_scratch *scratch, json_t **root,
                            delta_action *out);

/* Fast path for a line holding exactly one add or remove action: 1 and
 * *out filled (strings point into scratch memory, valid until the scratch
 * is reset; out->json is NULL), 0 when the line is anything else or
 * unusual (then parse it with delta_action_parse_line), or a negative
 * code. */
int delta_action_parse_fast(const char *line, size_t len, const char *where,
                            delta_parse_scratch *scratch, delta_action *out);

/* Fast check of a line holding exactly one commitInfo action, for a
 * reader that does not use its contents: 1 when the line is that and
 * valid JSON throughout (checked without building a tree), 0 when it is
 * anything else or unusual (then parse it with delta_action_parse_line),
 * or a negative code. Uses scratch memory. */
int delta_action_commit_info_fast(const char *line, size_t len, delta_parse_scratch *scratch);

/* Parse an action object whose type is already known (`name` = "add",
 * "remove", ...) from JSON value `obj`. Same error rules. */
int delta_action_parse_object(const char *name, json_t *obj, const char *where,
                              delta_parse_scratch *scratch, delta_action *out);

/* numRecords from a stats JSON text (top-level key only); -1 if absent or
 * unparsable. Does not allocate. */
int64_t delta_stats_num_records(const char *stats, size_t len);

/* The DV unique id: storageType + pathOrInlineDv [+ "@" + offset].
 * Appended to `out`. Nothing is appended without a DV. */
int delta_dv_unique_id(const delta_dv_descriptor *dv, loom_buf *out);

/* Fill f->path (decoded, normalized: "file:" forms of absolute paths become
 * "/x"), f->key and f->key_len in scratch memory from f->path_raw and f->dv.
 * LOOM_ECORRUPT for a bad percent escape. */
int delta_file_make_key(delta_file *f, delta_parse_scratch *scratch,
                        const char *where);

/* Deep-copy a file action into `arena` (strings, maps, key). `keep_stats`
 * 0 drops the stats text (numRecords is kept). */
int delta_file_copy(loom_arena *arena, delta_file *dst, const delta_file *src,
                    int keep_stats);
int delta_protocol_copy(loom_arena *arena, delta_protocol *dst,
                        const delta_protocol *src);
int delta_metadata_copy(loom_arena *arena, delta_metadata *dst,
                        const delta_metadata *src);

/* Lookups in string maps: the entry's value or NULL; *found set. */
const char *delta_kv_get(const delta_kv *kv, uint32_t n, const char *key,
                         int *found);

#endif
