/* ops/convert.c - CONVERT TO DELTA: schema, partitions and stats from the
 * Parquet files already in a directory; one CREATE commit. */
#include "loom/convert.h"
#include "loom/metrics.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "delta/action_write.h"
#include "delta/commit_write.h"
#include "delta/log_temps.h"
#include "delta/stats_json.h"
#include "parquet/reader.h"
#include "parquet/schema.h"
#include "ops/location.h"
#include "ops/opts.h"
#include "parquet/stats.h"
#include "util/alloc.h"
#include "util/clock.h"
#include "util/error.h"
#include "util/percent.h"
#include "util/uuid.h"
#include "util/vec.h"

#define OPS_ERR(code, ...) loom_err((code), LOOM_ERRCLASS_OPS, __VA_ARGS__)
#define HIVE_NULL "__HIVE_DEFAULT_PARTITION__"

typedef struct conv_file {
	char *key;
	uint64_t size;
	int64_t mtime;
	char **pvals;         /* n partition values, NULL = null */
} conv_file;

typedef struct conv_state {
	loom_vec files;       /* conv_file */
	const char *const *pcols;
	size_t npc;
	int has_ntz;
	const loom_cancel *cancel;
	const loom_secrets *secrets;   /* masked in commitInfo */
} conv_state;

static int hidden(const char *key)
{
	const char *seg = key;
	for (;;) {
		if (seg[0] == '_' || seg[0] == '.')
			return 1;
		seg = strchr(seg, '/');
		if (!seg)
			return 0;
		seg++;
	}
}

static int collect(const loom_store_entry *e, void *payload)
{
	conv_state *st = payload;
	size_t len = strlen(e->key);
	conv_file f;
	if (e->is_dir || e->is_symlink || len < 8 || strcmp(e->key + len - 8, ".parquet") != 0 || hidden(e->key))
		return 0;
	memset(&f, 0, sizeof(f));
	f.key = loom_strdup(e->key);
	f.size = e->size;
	f.mtime = e->mtime_ms;
	if (!f.key)
		return OPS_ERR(LOOM_ENOMEM, "out of memory");
	return loom_vec_push(&st->files, &f);
}

/* Parse "a=1/b=x/file.parquet" against the partition columns. */
static int parse_partitions(conv_state *st, conv_file *f)
{
	const char *p = f->key;
	size_t i;
	f->pvals = loom_calloc(st->npc ? st->npc : 1, sizeof(char *));
	if (!f->pvals)
		return OPS_ERR(LOOM_ENOMEM, "out of memory");
	for (i = 0; i < st->npc; i++) {
		const char *slash = strchr(p, '/');
		size_t cl = strlen(st->pcols[i]);
		loom_buf v = LOOM_BUF_INIT;
		if (!slash || (size_t)(slash - p) <= cl || strncmp(p, st->pcols[i], cl) != 0 || p[cl] != '=')
			return OPS_ERR(LOOM_EINVAL,
			               "%s: not under a '%s=<value>' directory at level %zu (partition columns "
			               "must be the Hive directories, in the order given)", f->key, st->pcols[i], i + 1);
		p += cl + 1;
		if ((size_t)(slash - p) == strlen(HIVE_NULL) && strncmp(p, HIVE_NULL, strlen(HIVE_NULL)) == 0) {
			f->pvals[i] = NULL;
		} else {
			if (loom_percent_decode(&v, p, (size_t)(slash - p)) < 0) {
				loom_buf_dispose(&v);
				return loom_err_wrap("%s: partition value of '%s'", f->key, st->pcols[i]);
			}
			f->pvals[i] = loom_buf_detach(&v);
			if (!f->pvals[i])
				f->pvals[i] = loom_strdup("");
			if (!f->pvals[i])
				return OPS_ERR(LOOM_ENOMEM, "out of memory");
		}
		p = slash + 1;
	}
	if (strchr(p, '/'))
		return OPS_ERR(LOOM_EINVAL, "%s: deeper than the %zu partition directories given", f->key, st->npc);
	return 0;
}

/* ---- Parquet schema -> Delta schema ------------------------------------- */

static json_t *type_of(conv_state *st, const pq_schema *s, int32_t node, const char *file);

static json_t *leaf_type(conv_state *st, const pq_schema_node *nd, const char *file)
{
	const pq_logical_type *lt = &nd->logical_type;
	char buf[64];
	if (lt->kind == PQ_LT_DECIMAL || nd->converted_type == PQ_CT_DECIMAL) {
		int p = lt->kind == PQ_LT_DECIMAL ? lt->decimal_precision : nd->precision;
		int sc = lt->kind == PQ_LT_DECIMAL ? lt->decimal_scale : nd->scale;
		if (p < 1 || p > 38 || sc < 0 || sc > p)
			goto unsupported;
		snprintf(buf, sizeof(buf), "decimal(%d,%d)", p, sc);
		return json_string(buf);
	}
	switch (nd->type) {
	case PQ_BOOLEAN:
		return json_string("boolean");
	case PQ_INT32:
		if (lt->kind == PQ_LT_DATE || nd->converted_type == PQ_CT_DATE)
			return json_string("date");
		if (lt->kind == PQ_LT_TIME || nd->converted_type == PQ_CT_TIME_MILLIS)
			goto unsupported;
		if (lt->kind == PQ_LT_INTEGER) {
			int w = lt->int_bit_width;
			if (!lt->int_is_signed)
				return json_string(w == 8 ? "short" : w == 16 ? "integer" : "long");
			return json_string(w == 8 ? "byte" : w == 16 ? "short" : "integer");
		}
		switch (nd->converted_type) {
		case PQ_CT_INT_8: return json_string("byte");
		case PQ_CT_INT_16: return json_string("short");
		case PQ_CT_UINT_8: return json_string("short");
		case PQ_CT_UINT_16: return json_string("integer");
		case PQ_CT_UINT_32: return json_string("long");
		default: return json_string("integer");
		}
	case PQ_INT64:
		if (lt->kind == PQ_LT_TIMESTAMP) {
			if (lt->is_adjusted_to_utc)
				return json_string("timestamp");
			st->has_ntz = 1;
			return json_string("timestamp_ntz");
		}
		if (nd->converted_type == PQ_CT_TIMESTAMP_MILLIS || nd->converted_type == PQ_CT_TIMESTAMP_MICROS)
			return json_string("timestamp");
		if (lt->kind == PQ_LT_TIME || nd->converted_type == PQ_CT_TIME_MICROS)
			goto unsupported;
		if ((lt->kind == PQ_LT_INTEGER && !lt->int_is_signed) || nd->converted_type == PQ_CT_UINT_64)
			return json_string("decimal(20,0)");
		return json_string("long");
	case PQ_INT96:
		return json_string("timestamp");
	case PQ_FLOAT:
		return json_string("float");
	case PQ_DOUBLE:
		return json_string("double");
	case PQ_BYTE_ARRAY:
		if (lt->kind == PQ_LT_STRING || lt->kind == PQ_LT_ENUM || lt->kind == PQ_LT_JSON ||
		    nd->converted_type == PQ_CT_UTF8 || nd->converted_type == PQ_CT_ENUM ||
		    nd->converted_type == PQ_CT_JSON)
			return json_string("string");
		if (lt->kind == PQ_LT_NONE && nd->converted_type == PQ_CT_NONE)
			return json_string("binary");
		goto unsupported;
	case PQ_FIXED_LEN_BYTE_ARRAY:
		if (lt->kind == PQ_LT_NONE && nd->converted_type == PQ_CT_NONE)
			return json_string("binary");
		goto unsupported;
	}
unsupported:
	loom_err(LOOM_EUNSUPPORTED, LOOM_ERRCLASS_OPS,
	         "%s: column '%s' has a Parquet type Delta cannot represent (physical %d, logical %d, converted %d)",
	         file, nd->name, (int)nd->type, (int)lt->kind, (int)nd->converted_type);
	return NULL;
}

static int optional(const pq_schema_node *nd)
{
	return !(nd->has_repetition && nd->repetition == PQ_REQUIRED);
}

static json_t *field_json(const char *name, json_t *type, int nullable)
{
	json_t *f = json_object();
	json_object_set_new(f, "name", json_string(name));
	json_object_set_new(f, "type", type);
	json_object_set_new(f, "nullable", json_boolean(nullable));
	json_object_set_new(f, "metadata", json_object());
	return f;
}

static json_t *struct_of(conv_state *st, const pq_schema *s, int32_t node, const char *file)
{
	json_t *t = json_object(), *fields = json_array();
	int32_t k;
	json_object_set_new(t, "type", json_string("struct"));
	json_object_set_new(t, "fields", fields);
	for (k = 0; k < s->nodes[node].num_children; k++) {
		int32_t c = s->children[s->child_begin[node] + k];
		json_t *ct = type_of(st, s, c, file);
		if (!ct) {
			json_decref(t);
			return NULL;
		}
		if (s->nodes[c].has_repetition && s->nodes[c].repetition == PQ_REPEATED && s->nest[c] == PQ_NEST_NONE) {
			/* a bare repeated field: a list of non-null elements */
			json_t *arr = json_object();
			json_object_set_new(arr, "type", json_string("array"));
			json_object_set_new(arr, "elementType", ct);
			json_object_set_new(arr, "containsNull", json_false());
			ct = arr;
		}
		json_array_append_new(fields, field_json(s->nodes[c].name, ct, optional(&s->nodes[c])));
	}
	return t;
}

/* The Delta type of node `node` (its repetition is the caller's business). */
static json_t *type_of(conv_state *st, const pq_schema *s, int32_t node, const char *file)
{
	const pq_schema_node *nd = &s->nodes[node];
	if (!nd->is_group)
		return leaf_type(st, nd, file);
	if (s->nest[node] == PQ_NEST_LIST) {
		int32_t rep = s->list_repeated[node], el;
		json_t *t, *et;
		if (rep < 0)
			goto bad;
		el = s->list_element_is_repeated[node] ? rep : s->children[s->child_begin[rep]];
		et = el == rep && s->nodes[rep].is_group ? struct_of(st, s, rep, file) : type_of(st, s, el, file);
		if (!et)
			return NULL;
		t = json_object();
		json_object_set_new(t, "type", json_string("array"));
		json_object_set_new(t, "elementType", et);
		json_object_set_new(t, "containsNull", json_boolean(el != rep && optional(&s->nodes[el])));
		return t;
	}
	if (s->nest[node] == PQ_NEST_MAP) {
		int32_t kv, kn, vn;
		json_t *t, *kt, *vt;
		if (nd->num_children != 1)
			goto bad;
		kv = s->children[s->child_begin[node]];
		if (s->nodes[kv].num_children != 2)
			goto bad;
		kn = s->children[s->child_begin[kv]];
		vn = s->children[s->child_begin[kv] + 1];
		kt = type_of(st, s, kn, file);
		vt = kt ? type_of(st, s, vn, file) : NULL;
		if (!vt) {
			json_decref(kt);
			return NULL;
		}
		t = json_object();
		json_object_set_new(t, "type", json_string("map"));
		json_object_set_new(t, "keyType", kt);
		json_object_set_new(t, "valueType", vt);
		json_object_set_new(t, "valueContainsNull", json_boolean(optional(&s->nodes[vn])));
		return t;
	}
	return struct_of(st, s, node, file);
bad:
	loom_err(LOOM_EUNSUPPORTED, LOOM_ERRCLASS_OPS, "%s: column '%s' has a list/map layout loom does not understand",
	         file, nd->name);
	return NULL;
}

/* ---- stats from the footer ---------------------------------------------- */

static int footer_stats(const pq_reader *r, const delta_stats_opts *so, loom_buf *out)
{
	const pq_schema *s = pq_reader_schema(r);
	const pq_file_meta *m = pq_reader_meta(r);
	delta_stats_leaf *leaves = loom_calloc(s->num_leaves ? s->num_leaves : 1, sizeof(*leaves));
	size_t l, g;
	int rc;
	if (!leaves)
		return OPS_ERR(LOOM_ENOMEM, "out of memory");
	for (l = 0; l < s->num_leaves; l++) {
		delta_stats_leaf *dl = &leaves[l];
		pq_value_range range = { NULL, NULL, 0, 0 };
		pq_cmp_kind k;
		int minmax_ok = 1;
		int64_t nulls = 0;
		delta_stats_leaf_from_schema(dl, s, l);
		k = pq_cmp_kind_of(dl->node);
		for (g = 0; g < m->num_row_groups; g++) {
			const pq_column_meta *cm;
			const pq_statistics *sts;
			pq_value_range v;
			if (m->row_groups[g].num_rows == 0)
				continue;
			if (!(cm = pq_chunk_stats(&m->row_groups[g], l))) {
				minmax_ok = 0;
				nulls = -1;
				break;
			}
			sts = &cm->statistics;
			if (nulls >= 0)
				nulls = sts->has_null_count ? nulls + sts->null_count : -1;
			pq_stats_min_max(sts, pq_cmp_legacy_ok(k), &v);
			if (!v.min || !v.max) {
				/* an all-null chunk has no min/max and needs none */
				if (!(sts->has_null_count && sts->null_count == cm->num_values))
					minmax_ok = 0;
				continue;
			}
			if (sts->has_is_max_value_exact && !sts->is_max_value_exact)
				dl->max_exact = 0;
			pq_value_range_widen(&range, k, &v);
		}
		if (minmax_ok && k != PQ_CMP_NONE && range.min) {
			dl->has_min_max = 1;
			dl->min = range.min;
			dl->min_len = range.min_len;
			dl->max = range.max;
			dl->max_len = range.max_len;
		}
		dl->null_count = dl->depth == s->leaves[l].depth ? nulls : -1;
	}
	rc = delta_stats_json(out, m->num_rows, leaves, s->num_leaves, so);
	loom_free(leaves);
	return rc;
}

/* ---- partition types ---------------------------------------------------- */

static int is_integer(const char *v)
{
	const char *p = v;
	if (*p == '-')
		p++;
	if (!*p || (p[0] == '0' && p[1]) || strlen(p) > 18)
		return 0;
	for (; *p; p++)
		if (*p < '0' || *p > '9')
			return 0;
	return 1;
}

static int is_date(const char *v)
{
	int i;
	if (strlen(v) != 10 || v[4] != '-' || v[7] != '-')
		return 0;
	for (i = 0; i < 10; i++)
		if (i != 4 && i != 7 && (v[i] < '0' || v[i] > '9'))
			return 0;
	return 1;
}

static const char *partition_type(conv_state *st, size_t col)
{
	size_t i;
	int ints = 1, dates = 1, any = 0;
	for (i = 0; i < st->files.len; i++) {
		const char *v = LOOM_VEC_AT(&st->files, conv_file, i).pvals[col];
		if (!v || !*v)
			continue;
		any = 1;
		ints = ints && is_integer(v);
		dates = dates && is_date(v);
	}
	if (!any)
		return "string";
	return ints ? "long" : dates ? "date" : "string";
}

/* ---- the commit --------------------------------------------------------- */

static int convert_run(loom_op_result *out, loom_store *store, conv_state *st,
                       const loom_table_location *loc)
{
	loom_buf adds = LOOM_BUF_INIT, actions = LOOM_BUF_INIT, stats = LOOM_BUF_INIT, raw = LOOM_BUF_INIT;
	char *schema_text = NULL;
	json_t *schema = NULL;
	delta_stats_opts so = { 32, NULL, 0, 0 };
	int64_t rows = 0, bytes = 0, version = -1;
	size_t i, j;
	int rc = 0;
	loom_store_entry e;

	if (store->stat(store, "_delta_log/00000000000000000000.json", &e) == 0) {
		/* a convert killed after publishing its commit may have left the
		 * commit's temp file: the job is done, finish its cleanup */
		delta_log_sweep_temps(store, NULL);
		return OPS_ERR(LOOM_EEXISTS, "already a Delta table (_delta_log/00000000000000000000.json exists)");
	}
	LOOM_TRY(store->list(store, "", NULL, LOOM_LIST_RECURSIVE, collect, st));
	if (st->files.len == 0)
		return OPS_ERR(LOOM_ENOTFOUND, "no Parquet files (*.parquet) to convert");
	for (i = 0; i < st->files.len; i++)
		LOOM_TRY(parse_partitions(st, &LOOM_VEC_AT(&st->files, conv_file, i)));

	for (i = 0; i < st->files.len && rc == 0; i++) {
		conv_file *f = &LOOM_VEC_AT(&st->files, conv_file, i);
		pq_reader *r = NULL;
		json_t *t;
		char *text;
		if (loom_cancel_requested(st->cancel)) {
			rc = OPS_ERR(LOOM_ECANCELLED, "convert cancelled after reading %zu of %zu footers",
			             i, st->files.len);
			break;
		}
		if ((rc = pq_reader_open_sized(&r, store, f->key, f->size)) < 0) { /* listed size */
			loom_err_wrap("reading %s", f->key);
			break;
		}
		t = struct_of(st, pq_reader_schema(r), 0, f->key);
		if (!t) {
			rc = loom_error_last() ? loom_error_last()->code : LOOM_EUNSUPPORTED;
			pq_reader_free(r);
			break;
		}
		text = json_dumps(t, JSON_COMPACT);
		if (!schema_text) {
			schema_text = text;
			schema = t;
			for (j = 0; j < st->npc; j++) {
				json_t *fields = json_object_get(schema, "fields");
				size_t k;
				for (k = 0; k < json_array_size(fields); k++)
					if (!strcmp(json_string_value(json_object_get(json_array_get(fields, k), "name")), st->pcols[j]))
						rc = OPS_ERR(LOOM_EINVAL, "%s: partition column '%s' is also a column in the file",
						             f->key, st->pcols[j]);
			}
		} else {
			if (!text || strcmp(text, schema_text) != 0)
				rc = OPS_ERR(LOOM_EINVAL, "%s: its schema differs from %s's; convert needs one schema",
				             f->key, LOOM_VEC_AT(&st->files, conv_file, 0).key);
			free(text);
			json_decref(t);
		}
		loom_buf_clear(&stats);
		loom_buf_clear(&raw);
		if (rc == 0)
			rc = footer_stats(r, &so, &stats);
		if (rc == 0)
			rc = loom_percent_encode_path(&raw, f->key, strlen(f->key));
		if (rc == 0) {
			rows += pq_reader_meta(r)->num_rows;
			bytes += (int64_t)f->size;
			delta_add_spec a;
			delta_kv *pv = loom_calloc(st->npc + 1, sizeof(*pv));
			memset(&a, 0, sizeof(a));
			for (j = 0; pv && j < st->npc; j++) {
				pv[j].key = st->pcols[j];
				pv[j].value = f->pvals[j];
			}
			a.path_raw = raw.ptr;
			a.path_raw_end = raw.ptr + raw.size;
			a.partition_values = pv;
			a.num_partition_values = (uint32_t)st->npc;
			a.size = (int64_t)f->size;
			a.modification_time = f->mtime;
			a.data_change = 1;
			a.stats = stats.ptr ? stats.ptr : "";
			rc = pv ? delta_add_line(&adds, &a) : OPS_ERR(LOOM_ENOMEM, "out of memory");
			loom_free(pv);
		}
		pq_reader_free(r);
	}
	if (rc < 0)
		goto done;

	{
		json_t *fields = json_object_get(schema, "fields"), *proto = json_object(), *md = json_object();
		json_t *fmt = json_object(), *pcols = json_array(), *conf = json_object(), *params = json_object();
		char uuid[37], *sch;
		delta_commit c;
		for (j = 0; j < st->npc; j++) {
			json_array_append_new(fields, field_json(st->pcols[j], json_string(partition_type(st, j)), 1));
			json_array_append_new(pcols, json_string(st->pcols[j]));
		}
		if (st->has_ntz) {
			json_t *rf = json_array(), *wf = json_array();
			json_array_append_new(rf, json_string("timestampNtz"));
			json_array_append_new(wf, json_string("timestampNtz"));
			json_object_set_new(proto, "minReaderVersion", json_integer(3));
			json_object_set_new(proto, "minWriterVersion", json_integer(7));
			json_object_set_new(proto, "readerFeatures", rf);
			json_object_set_new(proto, "writerFeatures", wf);
		} else {
			json_object_set_new(proto, "minReaderVersion", json_integer(1));
			json_object_set_new(proto, "minWriterVersion", json_integer(2));
		}
		if ((rc = delta_action_line(&actions, "protocol", proto)) < 0)
			goto meta_done;
		loom_uuid_v4_string(uuid);
		sch = json_dumps(schema, JSON_COMPACT);
		json_object_set_new(md, "id", json_string(uuid));
		json_object_set_new(fmt, "provider", json_string("parquet"));
		json_object_set_new(fmt, "options", json_object());
		json_object_set_new(md, "format", fmt);
		json_object_set_new(md, "schemaString", json_string(sch ? sch : "{}"));
		free(sch);
		json_object_set_new(md, "partitionColumns", pcols);
		pcols = NULL;
		if (loc)
			for (i = 0; i < loc->n_delta_config; i++)
				json_object_set_new(conf, loc->delta_config[i].key,
				                    json_string(loc->delta_config[i].value ? loc->delta_config[i].value : ""));
		json_object_set_new(md, "configuration", conf);
		conf = NULL;
		json_object_set_new(md, "createdTime", json_integer(loom_clock_wall_ms(NULL)));
		if ((rc = delta_action_line(&actions, "metaData", md)) < 0)
			goto meta_done;
		md = NULL;
		if ((rc = loom_buf_put(&actions, adds.ptr, adds.size)) < 0)
			goto meta_done;
		{
			json_t *pb = json_array();
			for (j = 0; j < st->npc; j++)
				json_array_append_new(pb, json_string(st->pcols[j]));
			json_object_set_new(params, LOOM_METRIC_NUM_FILES, json_integer((json_int_t)st->files.len));
			json_object_set_new(params, "partitionedBy", pb);
			json_object_set_new(params, "collectStats", json_true());
		}
		delta_commit_init(&c, DELTA_COMMIT_CREATE, -1, "CONVERT");
		c.operation_parameters = params;
		c.actions = actions.ptr;
		c.actions_len = actions.size;
		if (loc) {
			c.user_metadata = loc->commit;
			c.n_user_metadata = loc->n_commit;
			c.secrets = st->secrets;
		}
		if (loom_cancel_requested(st->cancel)) {
			rc = OPS_ERR(LOOM_ECANCELLED, "convert cancelled before its commit");
		} else {
			rc = delta_commit_write(store, &c, &version);
			if (rc == 0) /* a killed earlier run's temp file of this commit */
				delta_log_sweep_temps(store, NULL);
		}
	meta_done:
		json_decref(params);
		json_decref(pcols);
		json_decref(conf);
		json_decref(md);
	}
	if (rc == 0) {
		out->kind = LOOM_RESULT_OPTIMIZE;
		out->num_files_added = (int64_t)st->files.len;
		if ((rc = loom_op_result_set_metric(out, LOOM_METRIC_NUM_FILES, (int64_t)st->files.len)) == 0 &&
		    (rc = loom_op_result_set_metric(out, LOOM_METRIC_NUM_RECORDS, rows)) == 0 &&
		    (rc = loom_op_result_set_metric(out, LOOM_METRIC_NUM_BYTES, bytes)) == 0)
			rc = loom_op_result_set_metric(out, LOOM_METRIC_VERSION, version);
	}
done:
	free(schema_text);
	json_decref(schema);
	loom_buf_dispose(&adds);
	loom_buf_dispose(&actions);
	loom_buf_dispose(&stats);
	loom_buf_dispose(&raw);
	return rc;
}

LOOM_EXTERN(int) loom_convert(loom_op_result *out, const char *uri, const loom_table_location *loc,
                              const loom_convert_opts *opts, const loom_cancel *cancel)
{
	loom_convert_opts o;
	const char *const *partition_columns;
	ops_table t;
	conv_state st;
	size_t i, j, n;
	int rc;

	if (!out || !uri)
		return OPS_ERR(LOOM_EINVAL, "convert: NULL argument");
	LOOM_TRY(ops_result_check(out));
	LOOM_TRY(ops_convert_opts_read(&o, opts));
	partition_columns = o.partition_columns;
	n = o.n_partition_columns;
	if (n && !partition_columns)
		return OPS_ERR(LOOM_EINVAL, "convert: %zu partition columns but the list is NULL", n);
	for (i = 0; i < n; i++)
		if (!partition_columns[i] || !partition_columns[i][0] || strchr(partition_columns[i], '/') ||
		    strchr(partition_columns[i], '='))
			return OPS_ERR(LOOM_EINVAL, "convert %s: partition column %zu is empty or has '/' or '='", uri, i);
	LOOM_TRY(ops_table_open(&t, uri, loc, "convert"));
	memset(&st, 0, sizeof(st));
	loom_vec_init(&st.files, sizeof(conv_file));
	st.pcols = partition_columns;
	st.npc = n;
	st.cancel = cancel;
	st.secrets = &t.secrets;
	rc = convert_run(out, t.store, &st, loc);
	for (i = 0; i < st.files.len; i++) {
		conv_file *f = &LOOM_VEC_AT(&st.files, conv_file, i);
		for (j = 0; f->pvals && j < n; j++)
			loom_free(f->pvals[j]);
		loom_free(f->pvals);
		loom_free(f->key);
	}
	loom_vec_dispose(&st.files);
	return ops_table_close(&t, rc, "convert");
}
