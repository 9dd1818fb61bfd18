/* delta/actions.c - Delta actions from JSON (jansson). */
#include "delta/actions.h"

#include <stdio.h>
#include <string.h>

#include "util/alloc.h"
#include "util/error.h"
#include "util/percent.h"

void delta_parse_scratch_init(delta_parse_scratch *s)
{
	loom_arena_init(&s->arena, 16 * 1024);
	s->path = (loom_buf)LOOM_BUF_INIT;
}

void delta_parse_scratch_reset(delta_parse_scratch *s)
{
	/* the arena has no reset: drop it when it grew past a few blocks */
	if (s->arena.total > 256 * 1024) {
		loom_arena_dispose(&s->arena);
		loom_arena_init(&s->arena, 16 * 1024);
	}
}

void delta_parse_scratch_dispose(delta_parse_scratch *s)
{
	loom_arena_dispose(&s->arena);
	loom_buf_dispose(&s->path);
}

static int corrupt(const char *where, const char *action, const char *what)
{
	return loom_err(LOOM_ECORRUPT, LOOM_ERRCLASS_DELTA, "%s: %s action: %s",
	                where, action, what);
}

/* Optional string: absent or null -> *out = NULL. */
static int opt_str(json_t *obj, const char *key, const char *where,
                   const char *action, const char **out)
{
	json_t *v = json_object_get(obj, key);
	char msg[160];
	*out = NULL;
	if (!v || json_is_null(v))
		return 0;
	if (!json_is_string(v)) {
		snprintf(msg, sizeof(msg), "field \"%s\" is not a string", key);
		return corrupt(where, action, msg);
	}
	*out = json_string_value(v);
	return 0;
}

static int req_str(json_t *obj, const char *key, const char *where,
                   const char *action, const char **out)
{
	char msg[160];
	LOOM_TRY(opt_str(obj, key, where, action, out));
	if (!*out) {
		snprintf(msg, sizeof(msg), "required field \"%s\" is missing", key);
		return corrupt(where, action, msg);
	}
	return 0;
}

/* Optional integer: absent/null -> *out = dflt, *present = 0. */
static int opt_i64(json_t *obj, const char *key, const char *where,
                   const char *action, int64_t dflt, int64_t *out, int *present)
{
	json_t *v = json_object_get(obj, key);
	char msg[160];
	if (present)
		*present = 0;
	*out = dflt;
	if (!v || json_is_null(v))
		return 0;
	if (!json_is_integer(v)) {
		snprintf(msg, sizeof(msg), "field \"%s\" is not an integer", key);
		return corrupt(where, action, msg);
	}
	*out = json_integer_value(v);
	if (present)
		*present = 1;
	return 0;
}

static int req_i64(json_t *obj, const char *key, const char *where,
                   const char *action, int64_t *out)
{
	int present;
	char msg[160];
	LOOM_TRY(opt_i64(obj, key, where, action, -1, out, &present));
	if (!present) {
		snprintf(msg, sizeof(msg), "required field \"%s\" is missing", key);
		return corrupt(where, action, msg);
	}
	return 0;
}

static int opt_bool(json_t *obj, const char *key, const char *where,
                    const char *action, int dflt, uint8_t *out)
{
	json_t *v = json_object_get(obj, key);
	char msg[160];
	*out = (uint8_t)dflt;
	if (!v || json_is_null(v))
		return 0;
	if (!json_is_boolean(v)) {
		snprintf(msg, sizeof(msg), "field \"%s\" is not a boolean", key);
		return corrupt(where, action, msg);
	}
	*out = json_is_true(v) ? 1 : 0;
	return 0;
}

/* A JSON object of strings (values may be null) -> kv array in scratch. */
static int opt_map(json_t *obj, const char *key, const char *where,
                   const char *action, loom_arena *a, delta_kv **out,
                   uint32_t *n)
{
	json_t *m = json_object_get(obj, key), *v;
	const char *k;
	size_t count, i = 0;
	char msg[160];

	*out = NULL;
	*n = 0;
	if (!m || json_is_null(m))
		return 0;
	if (!json_is_object(m)) {
		snprintf(msg, sizeof(msg), "field \"%s\" is not an object", key);
		return corrupt(where, action, msg);
	}
	count = json_object_size(m);
	if (!count)
		return 0;
	*out = loom_arena_alloc(a, count * sizeof(delta_kv));
	if (!*out)
		return LOOM_ENOMEM;
	json_object_foreach(m, k, v) {
		if (json_is_null(v)) {
			(*out)[i].value = NULL;
		} else if (json_is_string(v)) {
			(*out)[i].value = json_string_value(v);
		} else {
			snprintf(msg, sizeof(msg), "field \"%s\" entry \"%.60s\" is not a string",
			         key, k);
			return corrupt(where, action, msg);
		}
		(*out)[i].key = k;
		i++;
	}
	*n = (uint32_t)i;
	return 0;
}

static int opt_str_array(json_t *obj, const char *key, const char *where,
                         const char *action, loom_arena *a, const char ***out,
                         uint32_t *n)
{
	json_t *arr = json_object_get(obj, key), *v;
	size_t i;
	char msg[160];

	*out = NULL;
	*n = 0;
	if (!arr || json_is_null(arr))
		return 0;
	if (!json_is_array(arr)) {
		snprintf(msg, sizeof(msg), "field \"%s\" is not an array", key);
		return corrupt(where, action, msg);
	}
	*out = loom_arena_alloc(a, (json_array_size(arr) + 1) * sizeof(char *));
	if (!*out)
		return LOOM_ENOMEM;
	json_array_foreach(arr, i, v) {
		if (!json_is_string(v)) {
			snprintf(msg, sizeof(msg), "field \"%s\" item %zu is not a string", key, i);
			return corrupt(where, action, msg);
		}
		(*out)[i] = json_string_value(v);
	}
	*n = (uint32_t)json_array_size(arr);
	return 0;
}

static int parse_dv(json_t *obj, const char *where, const char *action,
                    delta_dv_descriptor *dv)
{
	json_t *d = json_object_get(obj, "deletionVector");
	const char *st;
	int64_t v;
	int present;

	memset(dv, 0, sizeof(*dv));
	if (!d || json_is_null(d))
		return 0;
	if (!json_is_object(d))
		return corrupt(where, action, "deletionVector is not an object");
	LOOM_TRY(req_str(d, "storageType", where, "deletionVector", &st));
	if (strlen(st) != 1 || !strchr("uip", st[0]))
		return loom_err(LOOM_ECORRUPT, LOOM_ERRCLASS_DELTA,
		                "%s: %s action: unknown deletion vector storageType \"%.20s\"",
		                where, action, st);
	dv->storage_type = st[0];
	LOOM_TRY(req_str(d, "pathOrInlineDv", where, "deletionVector", &dv->path_or_inline_dv));
	LOOM_TRY(opt_i64(d, "offset", where, "deletionVector", 0, &v, &present));
	if (present && (v < 0 || v > INT32_MAX))
		return corrupt(where, action, "deletionVector offset out of range");
	dv->has_offset = (uint8_t)present;
	dv->offset = (int32_t)v;
	LOOM_TRY(req_i64(d, "sizeInBytes", where, "deletionVector", &v));
	if (v < 0 || v > INT32_MAX)
		return corrupt(where, action, "deletionVector sizeInBytes out of range");
	dv->size_in_bytes = (int32_t)v;
	LOOM_TRY(req_i64(d, "cardinality", where, "deletionVector", &dv->cardinality));
	if (dv->cardinality < 0)
		return corrupt(where, action, "deletionVector cardinality is negative");
	return 0;
}

int delta_dv_unique_id(const delta_dv_descriptor *dv, loom_buf *out)
{
	if (!dv->storage_type)
		return 0;
	LOOM_TRY(loom_buf_putc(out, dv->storage_type));
	LOOM_TRY(loom_buf_puts(out, dv->path_or_inline_dv));
	if (dv->has_offset)
		LOOM_TRY(loom_buf_printf(out, "@%d", (int)dv->offset));
	return 0;
}

int delta_file_make_key(delta_file *f, delta_parse_scratch *scratch,
                        const char *where)
{
	loom_buf *b = &scratch->path;
	size_t skip = 0;
	char *key;

	loom_buf_clear(b);
	if (loom_percent_decode(b, f->path_raw, strlen(f->path_raw)) < 0)
		return loom_err(LOOM_ECORRUPT, LOOM_ERRCLASS_DELTA, "%s: path \"%.200s\": %s",
		                where, f->path_raw, loom_error_last()->message);
	if (b->size == 0)
		return loom_err(LOOM_ECORRUPT, LOOM_ERRCLASS_DELTA, "%s: empty file path", where);
	/* "file:///x" and "file:/x" name the local path "/x" */
	if (b->size > 7 && memcmp(b->ptr, "file://", 7) == 0 && b->ptr[7] == '/')
		skip = 7;
	else if (b->size > 5 && memcmp(b->ptr, "file:", 5) == 0 && b->ptr[5] == '/')
		skip = 5;
	LOOM_TRY(loom_buf_putc(b, '\0'));
	LOOM_TRY(delta_dv_unique_id(&f->dv, b));
	key = loom_arena_alloc(&scratch->arena, b->size - skip + 1);
	if (!key)
		return LOOM_ENOMEM;
	memcpy(key, b->ptr + skip, b->size - skip);
	key[b->size - skip] = '\0';
	f->key = key;
	f->key_len = (uint32_t)(b->size - skip);
	f->path = key;
	return 0;
}

int64_t delta_stats_num_records(const char *s, size_t n)
{
	size_t i = 0;
	int depth;

#define WS() while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r')) i++
	WS();
	if (i >= n || s[i] != '{')
		return -1;
	i++;
	for (;;) {
		size_t kstart, kend;
		WS();
		if (i >= n || s[i] != '"')
			return -1;
		kstart = ++i;
		while (i < n && s[i] != '"') {
			if (s[i] == '\\')
				i++;
			i++;
		}
		if (i >= n)
			return -1;
		kend = i++;
		WS();
		if (i >= n || s[i] != ':')
			return -1;
		i++;
		WS();
		if (i >= n)
			return -1;
		if (kend - kstart == 10 && memcmp(s + kstart, "numRecords", 10) == 0) {
			int64_t v = 0;
			size_t d = i;
			while (i < n && s[i] >= '0' && s[i] <= '9') {
				if (v > (INT64_MAX - (s[i] - '0')) / 10)
					return -1;
				v = v * 10 + (s[i] - '0');
				i++;
			}
			if (i == d)
				return -1;
			return v;
		}
		/* skip the value */
		if (s[i] == '"') {
			i++;
			while (i < n && s[i] != '"') {
				if (s[i] == '\\')
					i++;
				i++;
			}
			i++;
		} else if (s[i] == '{' || s[i] == '[') {
			depth = 0;
			while (i < n) {
				char c = s[i];
				if (c == '"') {
					i++;
					while (i < n && s[i] != '"') {
						if (s[i] == '\\')
							i++;
						i++;
					}
				} else if (c == '{' || c == '[') {
					depth++;
				} else if (c == '}' || c == ']') {
					if (--depth == 0) {
						i++;
						break;
					}
				}
				i++;
			}
		} else {
			while (i < n && s[i] != ',' && s[i] != '}')
				i++;
		}
		WS();
		if (i >= n || s[i] != ',')
			return -1;
		i++;
	}
#undef WS
}

static int parse_file(json_t *o, int is_add, const char *where,
                      delta_parse_scratch *sc, delta_file *f)
{
	const char *action = is_add ? "add" : "remove";
	int present;

	memset(f, 0, sizeof(*f));
	f->is_add = (uint8_t)is_add;
	f->version = -1;
	LOOM_TRY(req_str(o, "path", where, action, &f->path_raw));
	LOOM_TRY(parse_dv(o, where, action, &f->dv));
	LOOM_TRY(opt_map(o, "partitionValues", where, action, &sc->arena,
	                 &f->partition_values, &f->num_partition_values));
	LOOM_TRY(opt_map(o, "tags", where, action, &sc->arena, &f->tags, &f->num_tags));
	LOOM_TRY(opt_str(o, "stats", where, action, &f->stats));
	f->num_records = f->stats ? delta_stats_num_records(f->stats, strlen(f->stats)) : -1;
	LOOM_TRY(opt_i64(o, "baseRowId", where, action, -1, &f->base_row_id, NULL));
	LOOM_TRY(opt_i64(o, "defaultRowCommitVersion", where, action, -1,
	                 &f->default_row_commit_version, NULL));
	if (is_add) {
		if (!json_object_get(o, "partitionValues"))
			return corrupt(where, action, "required field \"partitionValues\" is missing");
		LOOM_TRY(req_i64(o, "size", where, action, &f->size));
		if (f->size < 0)
			return corrupt(where, action, "negative size");
		LOOM_TRY(opt_i64(o, "modificationTime", where, action, -1,
		                 &f->modification_time, &present));
		LOOM_TRY(opt_bool(o, "dataChange", where, action, 1, &f->data_change));
		LOOM_TRY(opt_str(o, "clusteringProvider", where, action, &f->clustering_provider));
		f->deletion_timestamp = -1;
	} else {
		LOOM_TRY(opt_i64(o, "size", where, action, -1, &f->size, NULL));
		LOOM_TRY(opt_i64(o, "deletionTimestamp", where, action, -1,
		                 &f->deletion_timestamp, NULL));
		LOOM_TRY(opt_bool(o, "dataChange", where, action, 1, &f->data_change));
		LOOM_TRY(opt_bool(o, "extendedFileMetadata", where, action, 0,
		                  &f->extended_file_metadata));
		f->modification_time = -1;
	}
	return delta_file_make_key(f, sc, where);
}

static int parse_protocol(json_t *o, const char *where, delta_parse_scratch *sc,
                          delta_protocol *p)
{
	int64_t r, w;
	memset(p, 0, sizeof(*p));
	LOOM_TRY(req_i64(o, "minReaderVersion", where, "protocol", &r));
	LOOM_TRY(req_i64(o, "minWriterVersion", where, "protocol", &w));
	if (r < 1 || r > INT32_MAX || w < 1 || w > INT32_MAX)
		return corrupt(where, "protocol", "version out of range");
	p->min_reader_version = (int32_t)r;
	p->min_writer_version = (int32_t)w;
	LOOM_TRY(opt_str_array(o, "readerFeatures", where, "protocol", &sc->arena,
	                       &p->reader_features, &p->num_reader_features));
	LOOM_TRY(opt_str_array(o, "writerFeatures", where, "protocol", &sc->arena,
	                       &p->writer_features, &p->num_writer_features));
	return 0;
}

static int parse_metadata(json_t *o, const char *where, delta_parse_scratch *sc,
                          delta_metadata *m)
{
	json_t *fmt = json_object_get(o, "format");
	memset(m, 0, sizeof(*m));
	LOOM_TRY(req_str(o, "id", where, "metaData", &m->id));
	LOOM_TRY(opt_str(o, "name", where, "metaData", &m->name));
	LOOM_TRY(opt_str(o, "description", where, "metaData", &m->description));
	LOOM_TRY(req_str(o, "schemaString", where, "metaData", &m->schema_string));
	if (fmt && !json_is_null(fmt)) {
		if (!json_is_object(fmt))
			return corrupt(where, "metaData", "format is not an object");
		LOOM_TRY(opt_str(fmt, "provider", where, "metaData.format", &m->format_provider));
		LOOM_TRY(opt_map(fmt, "options", where, "metaData.format", &sc->arena,
		                 &m->format_options, &m->num_format_options));
	}
	LOOM_TRY(opt_str_array(o, "partitionColumns", where, "metaData", &sc->arena,
	                       &m->partition_columns, &m->num_partition_columns));
	LOOM_TRY(opt_map(o, "configuration", where, "metaData", &sc->arena,
	                 &m->configuration, &m->num_configuration));
	LOOM_TRY(opt_i64(o, "createdTime", where, "metaData", -1, &m->created_time, NULL));
	return 0;
}

int delta_action_parse_object(const char *name, json_t *v, const char *where,
                              delta_parse_scratch *sc, delta_action *out)
{
	memset(out, 0, sizeof(*out));
	out->json = v;
	if (strcmp(name, "commitInfo") == 0) {
		if (!json_is_object(v))
			return corrupt(where, name, "not an object");
		out->type = DELTA_ACT_COMMIT_INFO;
		return 0;
	}
	if (json_is_null(v)) /* a null column of a checkpoint row */
		return 0;
	if (!json_is_object(v))
		return corrupt(where, name, "not an object");
	if (strcmp(name, "add") == 0) {
		out->type = DELTA_ACT_ADD;
		return parse_file(v, 1, where, sc, &out->u.file);
	}
	if (strcmp(name, "remove") == 0) {
		out->type = DELTA_ACT_REMOVE;
		return parse_file(v, 0, where, sc, &out->u.file);
	}
	if (strcmp(name, "metaData") == 0) {
		out->type = DELTA_ACT_METADATA;
		return parse_metadata(v, where, sc, &out->u.metadata);
	}
	if (strcmp(name, "protocol") == 0) {
		out->type = DELTA_ACT_PROTOCOL;
		return parse_protocol(v, where, sc, &out->u.protocol);
	}
	if (strcmp(name, "txn") == 0) {
		out->type = DELTA_ACT_TXN;
		LOOM_TRY(req_str(v, "appId", where, name, &out->u.txn.app_id));
		LOOM_TRY(req_i64(v, "version", where, name, &out->u.txn.version));
		return opt_i64(v, "lastUpdated", where, name, -1, &out->u.txn.last_updated, NULL);
	}
	if (strcmp(name, "domainMetadata") == 0) {
		out->type = DELTA_ACT_DOMAIN;
		LOOM_TRY(req_str(v, "domain", where, name, &out->u.domain.domain));
		LOOM_TRY(opt_str(v, "configuration", where, name, &out->u.domain.configuration));
		if (!out->u.domain.configuration)
			out->u.domain.configuration = "";
		return opt_bool(v, "removed", where, name, 0, &out->u.domain.removed);
	}
	if (strcmp(name, "cdc") == 0) {
		out->type = DELTA_ACT_CDC;
		memset(&out->u.file, 0, sizeof(out->u.file));
		LOOM_TRY(req_str(v, "path", where, name, &out->u.file.path_raw));
		return opt_i64(v, "size", where, name, -1, &out->u.file.size, NULL);
	}
	if (strcmp(name, "checkpointMetadata") == 0) {
		out->type = DELTA_ACT_CHECKPOINT_METADATA;
		return req_i64(v, "version", where, name, &out->u.checkpoint_version);
	}
	if (strcmp(name, "sidecar") == 0) {
		out->type = DELTA_ACT_SIDECAR;
		LOOM_TRY(req_str(v, "path", where, name, &out->u.sidecar.path));
		LOOM_TRY(req_i64(v, "sizeInBytes", where, name, &out->u.sidecar.size_in_bytes));
		return opt_i64(v, "modificationTime", where, name, -1,
		               &out->u.sidecar.modification_time, NULL);
	}
	return 0; /* unknown action: ignored */
}

static const char *const known_actions[] = {
	"add", "remove", "metaData", "protocol", "txn", "domainMetadata",
	"commitInfo", "cdc", "checkpointMetadata", "sidecar",
};

int delta_action_parse_line(const char *line, size_t len, const char *where,
                            delta_parse_scratch *sc, json_t **root,
                            delta_action *out)
{
	json_error_t jerr;
	json_t *doc;
	const char *k;
	json_t *v;
	size_t i;

	memset(out, 0, sizeof(*out));
	*root = NULL;
	doc = json_loadb(line, len, JSON_ALLOW_NUL, &jerr);
	if (!doc)
		return loom_err(LOOM_ECORRUPT, LOOM_ERRCLASS_DELTA,
		                "%s: invalid JSON at column %d: %s", where, jerr.column,
		                jerr.text);
	if (!json_is_object(doc)) {
		json_decref(doc);
		return loom_err(LOOM_ECORRUPT, LOOM_ERRCLASS_DELTA,
		                "%s: an action line must be a JSON object", where);
	}
	*root = doc;
	json_object_foreach(doc, k, v) {
		for (i = 0; i < sizeof(known_actions) / sizeof(known_actions[0]); i++) {
			if (strcmp(k, known_actions[i]) == 0) {
				int rc = delta_action_parse_object(k, v, where, sc, out);
				if (rc < 0)
					return rc;
				if (out->type != DELTA_ACT_NONE)
					return 0;
			}
		}
	}
	return 0;
}

const char *delta_kv_get(const delta_kv *kv, uint32_t n, const char *key,
                         int *found)
{
	uint32_t i;
	for (i = 0; i < n; i++) {
		if (strcmp(kv[i].key, key) == 0) {
			if (found)
				*found = 1;
			return kv[i].value;
		}
	}
	if (found)
		*found = 0;
	return NULL;
}

static delta_kv *kvdup(loom_arena *a, const delta_kv *kv, uint32_t n, int *oom)
{
	delta_kv *d;
	uint32_t i;
	if (!n)
		return NULL;
	d = loom_arena_alloc(a, n * sizeof(*d));
	if (!d) {
		*oom = 1;
		return NULL;
	}
	for (i = 0; i < n; i++) {
		d[i].key = loom_arena_strdup_opt(a, kv[i].key, oom);
		d[i].value = loom_arena_strdup_opt(a, kv[i].value, oom);
	}
	return d;
}

static const char **strsdup(loom_arena *a, const char **s, uint32_t n, int *oom)
{
	const char **d;
	uint32_t i;
	if (!s)
		return NULL;
	d = loom_arena_alloc(a, (n + 1) * sizeof(*d));
	if (!d) {
		*oom = 1;
		return NULL;
	}
	for (i = 0; i < n; i++)
		d[i] = loom_arena_strdup_opt(a, s[i], oom);
	d[n] = NULL;
	return d;
}

int delta_file_copy(loom_arena *a, delta_file *dst, const delta_file *src,
                    int keep_stats)
{
	int oom = 0;
	char *key;
	*dst = *src;
	key = loom_arena_alloc(a, src->key_len + 1);
	if (!key)
		return LOOM_ENOMEM;
	memcpy(key, src->key, src->key_len);
	key[src->key_len] = '\0';
	dst->key = key;
	dst->path = key;
	dst->path_raw = strcmp(src->path_raw, src->path) == 0
	                    ? key
	                    : loom_arena_strdup_opt(a, src->path_raw, &oom);
	dst->partition_values = kvdup(a, src->partition_values, src->num_partition_values, &oom);
	dst->tags = kvdup(a, src->tags, src->num_tags, &oom);
	dst->stats = keep_stats ? loom_arena_strdup_opt(a, src->stats, &oom) : NULL;
	dst->clustering_provider = loom_arena_strdup_opt(a, src->clustering_provider, &oom);
	dst->dv.path_or_inline_dv = loom_arena_strdup_opt(a, src->dv.path_or_inline_dv, &oom);
	return oom ? LOOM_ENOMEM : 0;
}

int delta_protocol_copy(loom_arena *a, delta_protocol *dst, const delta_protocol *src)
{
	int oom = 0;
	*dst = *src;
	dst->reader_features = strsdup(a, src->reader_features, src->num_reader_features, &oom);
	dst->writer_features = strsdup(a, src->writer_features, src->num_writer_features, &oom);
	return oom ? LOOM_ENOMEM : 0;
}

int delta_metadata_copy(loom_arena *a, delta_metadata *dst, const delta_metadata *src)
{
	int oom = 0;
	*dst = *src;
	dst->id = loom_arena_strdup_opt(a, src->id, &oom);
	dst->name = loom_arena_strdup_opt(a, src->name, &oom);
	dst->description = loom_arena_strdup_opt(a, src->description, &oom);
	dst->format_provider = loom_arena_strdup_opt(a, src->format_provider, &oom);
	dst->format_options = kvdup(a, src->format_options, src->num_format_options, &oom);
	dst->schema_string = loom_arena_strdup_opt(a, src->schema_string, &oom);
	dst->partition_columns = strsdup(a, src->partition_columns,
	                                 src->num_partition_columns, &oom);
	if (!dst->partition_columns && !oom) {
		dst->partition_columns = loom_arena_calloc(a, sizeof(char *));
		if (!dst->partition_columns)
			oom = 1;
	}
	dst->configuration = kvdup(a, src->configuration, src->num_configuration, &oom);
	return oom ? LOOM_ENOMEM : 0;
}
