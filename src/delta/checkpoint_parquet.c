/* delta/checkpoint_parquet.c - Parquet checkpoints and sidecars: the only
 * place in the delta layer that knows the Parquet reader.
 *
 * A checkpoint has one row per action; each action is a nullable struct
 * column (add, remove, metaData, protocol, txn, domainMetadata,
 * checkpointMetadata, sidecar). We project the leaves we need, walk each
 * row group row by row and hand every non-null action to the sink in the
 * same struct form the JSON parser produces. Two leaf shapes occur:
 * scalars (max_rep 0: one level slot per row) and leaves under one
 * repeated group (maps and lists: max_rep 1, a row's slots start at rep 0).
 */
#include "delta/checkpoint.h"

#include <stdio.h>
#include <string.h>

#include "delta/stats_json.h"
#include "parquet/reader.h"
#include "util/alloc.h"
#include "util/error.h"
#include "util/vec.h"

/* The leaves we read, by role. */
enum {
	/* add */
	A_PATH, A_SIZE, A_MTIME, A_DCHANGE, A_STATS, A_PVK, A_PVV, A_TAGK, A_TAGV,
	A_DVT, A_DVP, A_DVO, A_DVS, A_DVC, A_BASEROW, A_DRCV, A_CLUST, A_NUMREC,
	/* remove */
	R_PATH, R_DTS, R_DCHANGE, R_EXT, R_PVK, R_PVV, R_SIZE, R_DVT, R_DVP, R_DVO,
	R_DVS, R_DVC, R_BASEROW, R_DRCV, R_STATS, R_TAGK, R_TAGV,
	/* metaData */
	M_ID, M_NAME, M_DESC, M_PROV, M_OPTK, M_OPTV, M_SCHEMA, M_PCOLS, M_CONFK,
	M_CONFV, M_CTIME,
	/* protocol */
	P_RV, P_WV, P_RF, P_WF,
	/* txn */
	T_APP, T_VER, T_LU,
	/* domainMetadata */
	D_DOM, D_CONF, D_REM,
	/* checkpointMetadata */
	C_VER,
	/* sidecar */
	S_PATH, S_SIZE, S_MTIME,
	NROLES
};

/* How a role's leaf is found: exact dotted path, or (for maps and lists)
 * a prefix + last component, since writers name the repeated group
 * differently (key_value / map, list.element / array / bag). */
typedef struct role_def {
	const char *prefix;     /* "add.path" or "add.partitionValues." */
	const char *last;       /* NULL: exact path; else last component */
} role_def;

static const role_def roles[NROLES] = {
	[A_PATH] = { "add.path", NULL }, [A_SIZE] = { "add.size", NULL },
	[A_MTIME] = { "add.modificationTime", NULL }, [A_DCHANGE] = { "add.dataChange", NULL },
	[A_STATS] = { "add.stats", NULL },
	[A_PVK] = { "add.partitionValues.", "key" }, [A_PVV] = { "add.partitionValues.", "value" },
	[A_TAGK] = { "add.tags.", "key" }, [A_TAGV] = { "add.tags.", "value" },
	[A_DVT] = { "add.deletionVector.storageType", NULL },
	[A_DVP] = { "add.deletionVector.pathOrInlineDv", NULL },
	[A_DVO] = { "add.deletionVector.offset", NULL },
	[A_DVS] = { "add.deletionVector.sizeInBytes", NULL },
	[A_DVC] = { "add.deletionVector.cardinality", NULL },
	[A_BASEROW] = { "add.baseRowId", NULL },
	[A_DRCV] = { "add.defaultRowCommitVersion", NULL },
	[A_CLUST] = { "add.clusteringProvider", NULL },
	[A_NUMREC] = { "add.stats_parsed.numRecords", NULL },
	[R_PATH] = { "remove.path", NULL }, [R_DTS] = { "remove.deletionTimestamp", NULL },
	[R_DCHANGE] = { "remove.dataChange", NULL },
	[R_EXT] = { "remove.extendedFileMetadata", NULL },
	[R_PVK] = { "remove.partitionValues.", "key" },
	[R_PVV] = { "remove.partitionValues.", "value" },
	[R_SIZE] = { "remove.size", NULL },
	[R_DVT] = { "remove.deletionVector.storageType", NULL },
	[R_DVP] = { "remove.deletionVector.pathOrInlineDv", NULL },
	[R_DVO] = { "remove.deletionVector.offset", NULL },
	[R_DVS] = { "remove.deletionVector.sizeInBytes", NULL },
	[R_DVC] = { "remove.deletionVector.cardinality", NULL },
	[R_BASEROW] = { "remove.baseRowId", NULL },
	[R_DRCV] = { "remove.defaultRowCommitVersion", NULL },
	[R_STATS] = { "remove.stats", NULL },
	[R_TAGK] = { "remove.tags.", "key" }, [R_TAGV] = { "remove.tags.", "value" },
	[M_ID] = { "metaData.id", NULL }, [M_NAME] = { "metaData.name", NULL },
	[M_DESC] = { "metaData.description", NULL },
	[M_PROV] = { "metaData.format.provider", NULL },
	[M_OPTK] = { "metaData.format.options.", "key" },
	[M_OPTV] = { "metaData.format.options.", "value" },
	[M_SCHEMA] = { "metaData.schemaString", NULL },
	[M_PCOLS] = { "metaData.partitionColumns.", "" },
	[M_CONFK] = { "metaData.configuration.", "key" },
	[M_CONFV] = { "metaData.configuration.", "value" },
	[M_CTIME] = { "metaData.createdTime", NULL },
	[P_RV] = { "protocol.minReaderVersion", NULL },
	[P_WV] = { "protocol.minWriterVersion", NULL },
	[P_RF] = { "protocol.readerFeatures.", "" },
	[P_WF] = { "protocol.writerFeatures.", "" },
	[T_APP] = { "txn.appId", NULL }, [T_VER] = { "txn.version", NULL },
	[T_LU] = { "txn.lastUpdated", NULL },
	[D_DOM] = { "domainMetadata.domain", NULL },
	[D_CONF] = { "domainMetadata.configuration", NULL },
	[D_REM] = { "domainMetadata.removed", NULL },
	[C_VER] = { "checkpointMetadata.version", NULL },
	[S_PATH] = { "sidecar.path", NULL }, [S_SIZE] = { "sidecar.sizeInBytes", NULL },
	[S_MTIME] = { "sidecar.modificationTime", NULL },
};

/* A cursor over one projected column of the current row group. */
typedef struct cursor {
	const pq_column *col;
	size_t slot;        /* next level slot */
	size_t value;       /* next value index */
} cursor;

/* One row's view of a leaf: up to `n` values (scalars: 0 or 1). */
typedef struct cell {
	size_t first;       /* value index of the first non-null value */
	size_t n;           /* non-null values in this row */
	size_t slots;       /* level slots in this row */
} cell;

/* Leaves found by prefix rather than by role (partitionValues_parsed.*,
 * stats_parsed.*): schema leaf indexes, batch columns, cursors, cells. */
typedef struct leaf_set {
	loom_vec leaf;              /* long */
	loom_vec col;               /* int */
	cursor *cur;
	cell *cells;
} leaf_set;

typedef struct ckpt_reader {
	pq_reader *r;
	const char *key;
	long leaf[NROLES];          /* leaf index or -1 */
	int col[NROLES];            /* batch column or -1 */
	size_t *proj;               /* projected leaves */
	size_t nproj;
	leaf_set pvp;               /* partitionValues_parsed.<name> (used without the map) */
	leaf_set sp;                /* add.stats_parsed.* (used without the JSON stats) */
	pq_batch batch;
	cursor cur[NROLES];
	cell cells[NROLES];
	delta_parse_scratch sc;
	int64_t version;
	int sidecars_only;          /* project the sidecar leaves alone */
	int copy_failed;            /* a str_at copy ran out of memory */
} ckpt_reader;

static int row_cell(const ckpt_reader *cr, cursor *c, cell *out, size_t row)
{
	const pq_column *col = c->col;
	size_t s = c->slot;
	memset(out, 0, sizeof(*out));
	out->first = c->value;
	if (col->max_rep == 0) {
		/* one slot per row; without def levels every slot has a value */
		int present = col->max_def == 0 || (col->def_levels && s < col->num_levels &&
		                                   col->def_levels[s] == col->max_def);
		if (s >= col->num_levels && col->max_def > 0)
			goto bad;
		out->slots = 1;
		out->n = present ? 1 : 0;
		c->slot++;
	} else {
		if (s >= col->num_levels || !col->rep_levels || col->rep_levels[s] != 0)
			goto bad;
		do {
			if (col->def_levels[s] == col->max_def)
				out->n++;
			s++;
			out->slots++;
		} while (s < col->num_levels && col->rep_levels[s] != 0);
		c->slot = s;
	}
	c->value += out->n;
	if (c->value > col->num_values)
		goto bad;
	return 0;
bad:
	return loom_err(LOOM_ECORRUPT, LOOM_ERRCLASS_DELTA,
	                "%s: column levels do not line up at row %zu", cr->key, row);
}

static const char *str_at(ckpt_reader *cr, int role, size_t k)
{
	const pq_column *col;
	const cell *c = &cr->cells[role];
	const char *s;
	size_t vi;
	if (cr->col[role] < 0 || k >= c->n)
		return NULL;
	col = &cr->batch.columns[cr->col[role]];
	if (col->type != PQ_BYTE_ARRAY)
		return NULL;
	vi = c->first + k;
	s = loom_arena_strndup(&cr->sc.arena, (const char *)col->data + col->offsets[vi],
	                       col->offsets[vi + 1] - col->offsets[vi]);
	if (!s)
		cr->copy_failed = 1;
	return s;
}

/* NULL from str_at reads as an absent value: before an action is used,
 * say whether one of its strings was in fact not copied. */
static int copies_ok(const ckpt_reader *cr, const char *where)
{
	if (!cr->copy_failed)
		return 0;
	return loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_OS, "%s: out of memory copying its values", where);
}

static int emit(const ckpt_reader *cr, const char *where, delta_action_sink sink, void *ctx,
                const delta_action *a)
{
	LOOM_TRY(copies_ok(cr, where));
	return sink(ctx, a);
}

static int has(const ckpt_reader *cr, int role)
{
	return cr->col[role] >= 0 && cr->cells[role].n > 0;
}

static int64_t int_at(const ckpt_reader *cr, int role, int64_t dflt)
{
	const pq_column *col;
	const cell *c = &cr->cells[role];
	if (!has(cr, role))
		return dflt;
	col = &cr->batch.columns[cr->col[role]];
	if (col->type == PQ_INT64) {
		int64_t v;
		memcpy(&v, col->values + 8 * c->first, 8);
		return v;
	}
	if (col->type == PQ_INT32) {
		int32_t v;
		memcpy(&v, col->values + 4 * c->first, 4);
		return v;
	}
	if (col->type == PQ_BOOLEAN)
		return col->values[c->first] ? 1 : 0;
	return dflt;
}

static int64_t int_at_value64(const uint8_t *v)
{
	int64_t x;
	memcpy(&x, v, 8);
	return x;
}

static int32_t int_at_value32(const uint8_t *v)
{
	int32_t x;
	memcpy(&x, v, 4);
	return x;
}

/* A map (key role, value role) into a kv array in the scratch arena. */
static int kv_at(ckpt_reader *cr, int krole, int vrole, delta_kv **out, uint32_t *n)
{
	const cell *kc = &cr->cells[krole], *vc = &cr->cells[vrole];
	const pq_column *vcol;
	size_t i, vi = 0, s0;
	*out = NULL;
	*n = 0;
	if (cr->col[krole] < 0 || kc->n == 0)
		return 0;
	*out = loom_arena_calloc(&cr->sc.arena, kc->n * sizeof(delta_kv));
	if (!*out)
		return LOOM_ENOMEM;
	vcol = cr->col[vrole] >= 0 ? &cr->batch.columns[cr->col[vrole]] : NULL;
	/* keys are required: one per entry; values may be null, so walk the
	 * value column's slots of this row (same count as the key slots) */
	s0 = vcol ? cr->cur[vrole].slot - vc->slots : 0;
	for (i = 0; i < kc->n; i++) {
		(*out)[i].key = str_at(cr, krole, i);
		(*out)[i].value = NULL;
		if (vcol && i < vc->slots && vcol->def_levels[s0 + i] == vcol->max_def) {
			size_t v = vc->first + vi++;
			(*out)[i].value = loom_arena_strndup(&cr->sc.arena,
			                                     (const char *)vcol->data + vcol->offsets[v],
			                                     vcol->offsets[v + 1] - vcol->offsets[v]);
		}
		if (!(*out)[i].key)
			return LOOM_ENOMEM;
	}
	*n = (uint32_t)kc->n;
	return 0;
}

static int list_at(ckpt_reader *cr, int role, const char ***out, uint32_t *n)
{
	const cell *c = &cr->cells[role];
	size_t i;
	*out = NULL;
	*n = 0;
	if (cr->col[role] < 0)
		return 0;
	/* absent list (null) vs empty list: a null list has def 0 */
	{
		const pq_column *col = &cr->batch.columns[cr->col[role]];
		size_t s0 = cr->cur[role].slot - c->slots;
		if (c->slots == 1 && col->def_levels && col->def_levels[s0] == 0)
			return 0;
	}
	*out = loom_arena_calloc(&cr->sc.arena, (c->n + 1) * sizeof(char *));
	if (!*out)
		return LOOM_ENOMEM;
	for (i = 0; i < c->n; i++)
		if (!((*out)[i] = str_at(cr, role, i)))
			return LOOM_ENOMEM;
	*n = (uint32_t)c->n;
	return 0;
}

/* partitionValues from partitionValues_parsed when the map is absent. */
static int pv_from_parsed(ckpt_reader *cr, delta_file *f)
{
	const pq_schema *sch = pq_reader_schema(cr->r);
	size_t i, n = cr->pvp.leaf.len;
	f->partition_values = n ? loom_arena_calloc(&cr->sc.arena, n * sizeof(delta_kv)) : NULL;
	if (n && !f->partition_values)
		return LOOM_ENOMEM;
	for (i = 0; i < n; i++) {
		long leaf = *(long *)loom_vec_at(&cr->pvp.leaf, i);
		const pq_leaf *L = &sch->leaves[leaf];
		const pq_column *col = &cr->batch.columns[*(int *)loom_vec_at(&cr->pvp.col, i)];
		const cell *c = &cr->pvp.cells[i];
		char buf[64];
		const char *v = NULL;
		f->partition_values[i].key = L->parts[L->depth - 1];
		if (c->n) {
			if (col->type == PQ_BYTE_ARRAY) {
				size_t vi = c->first;
				v = loom_arena_strndup(&cr->sc.arena, (const char *)col->data + col->offsets[vi],
				                       col->offsets[vi + 1] - col->offsets[vi]);
			} else if (col->type == PQ_BOOLEAN) {
				v = col->values[c->first] ? "true" : "false";
			} else if (col->type == PQ_INT64 && L->logical_type.kind == PQ_LT_NONE &&
			           L->converted_type == PQ_CT_NONE) {
				int64_t x;
				memcpy(&x, col->values + 8 * c->first, 8);
				snprintf(buf, sizeof(buf), "%lld", (long long)x);
				v = loom_arena_strdup(&cr->sc.arena, buf);
			} else if (col->type == PQ_INT32 && L->logical_type.kind == PQ_LT_NONE &&
			           (L->converted_type == PQ_CT_NONE || L->converted_type == PQ_CT_INT_8 ||
			            L->converted_type == PQ_CT_INT_16 || L->converted_type == PQ_CT_INT_32)) {
				int32_t x;
				memcpy(&x, col->values + 4 * c->first, 4);
				snprintf(buf, sizeof(buf), "%d", (int)x);
				v = loom_arena_strdup(&cr->sc.arena, buf);
			} else {
				return loom_err(LOOM_EUNSUPPORTED, LOOM_ERRCLASS_DELTA,
				                "%s: add without partitionValues and a "
				                "partitionValues_parsed.%s of a type loom cannot render",
				                cr->key, L->path);
			}
			if (!v)
				return LOOM_ENOMEM;
		}
		f->partition_values[i].value = v;
	}
	f->num_partition_values = (uint32_t)n;
	return 0;
}

static int dv_at(ckpt_reader *cr, int t, int p, int o, int s, int c, delta_dv_descriptor *dv,
                 size_t row)
{
	const char *st = str_at(cr, t, 0);
	memset(dv, 0, sizeof(*dv));
	if (!st)
		return 0;
	if (strlen(st) != 1 || !strchr("uip", st[0]))
		return loom_err(LOOM_ECORRUPT, LOOM_ERRCLASS_DELTA,
		                "%s row %zu: unknown deletion vector storageType \"%.20s\"",
		                cr->key, row, st);
	dv->storage_type = st[0];
	dv->path_or_inline_dv = str_at(cr, p, 0);
	if (!dv->path_or_inline_dv)
		return loom_err(LOOM_ECORRUPT, LOOM_ERRCLASS_DELTA,
		                "%s row %zu: deletion vector without pathOrInlineDv", cr->key, row);
	dv->has_offset = (uint8_t)has(cr, o);
	dv->offset = (int32_t)int_at(cr, o, 0);
	dv->size_in_bytes = (int32_t)int_at(cr, s, 0);
	dv->cardinality = int_at(cr, c, 0);
	return 0;
}

/* The add's stats JSON rebuilt from its stats_parsed struct, for
 * checkpoints that carry only the parsed form: what a checkpoint written
 * from this state must keep, so data skipping survives. NULL (no stats)
 * when the row has none. */
static int stats_from_parsed(ckpt_reader *cr, const char **out)
{
	const pq_schema *sch = pq_reader_schema(cr->r);
	json_t *root = json_object();
	loom_buf text = LOOM_BUF_INIT;
	size_t i, any = 0;
	int rc = 0;

	*out = NULL;
	if (!root)
		return loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_DELTA, "out of memory");
	for (i = 0; i < cr->sp.leaf.len && rc == 0; i++) {
		const pq_leaf *L = &sch->leaves[*(long *)loom_vec_at(&cr->sp.leaf, i)];
		const pq_column *col = &cr->batch.columns[*(int *)loom_vec_at(&cr->sp.col, i)];
		const cell *c = &cr->sp.cells[i];
		const char *section = L->parts[2];
		const uint8_t *v;
		size_t len, k;
		json_t *parent = root, *val;

		if (!c->n)
			continue;
		if (col->type == PQ_BYTE_ARRAY) {
			v = col->data + col->offsets[c->first];
			len = col->offsets[c->first + 1] - col->offsets[c->first];
		} else {
			len = pq_value_width(col->type, col->type_length);
			v = col->values + len * c->first;
		}
		if (strcmp(section, "minValues") == 0 || strcmp(section, "maxValues") == 0)
			val = delta_stats_value(&sch->nodes[L->node], v, len);
		else if (col->type == PQ_BOOLEAN)
			val = json_boolean(v[0]);
		else if (col->type == PQ_INT64 || col->type == PQ_INT32)
			val = json_integer(col->type == PQ_INT64 ? (json_int_t)int_at_value64(v)
			                                          : (json_int_t)int_at_value32(v));
		else
			val = NULL;
		if (!val)
			continue;
		for (k = 2; k + 1 < L->depth; k++) {
			json_t *child = json_object_get(parent, L->parts[k]);
			if (!child) {
				child = json_object();
				json_object_set_new(parent, L->parts[k], child);
			}
			parent = child;
		}
		json_object_set_new(parent, L->parts[L->depth - 1], val);
		any++;
	}
	if (any && (rc = delta_stats_dump(root, &text)) == 0) {
		*out = loom_arena_strndup(&cr->sc.arena, text.ptr, text.size);
		if (!*out)
			rc = LOOM_ENOMEM;
	}
	json_decref(root);
	loom_buf_dispose(&text);
	return rc;
}

static int emit_row(ckpt_reader *cr, size_t row, delta_action_sink sink, void *ctx)
{
	delta_action a;
	char where[600];
	snprintf(where, sizeof(where), "%s row %zu", cr->key, row);

	if (has(cr, A_PATH)) {
		delta_file *f = &a.u.file;
		memset(&a, 0, sizeof(a));
		a.type = DELTA_ACT_ADD;
		a.row = row;
		f->is_add = 1;
		f->version = cr->version;
		f->path_raw = str_at(cr, A_PATH, 0);
		if (!has(cr, A_SIZE))
			return loom_err(LOOM_ECORRUPT, LOOM_ERRCLASS_DELTA, "%s: add without size", where);
		f->size = int_at(cr, A_SIZE, -1);
		f->modification_time = int_at(cr, A_MTIME, -1);
		f->data_change = (uint8_t)int_at(cr, A_DCHANGE, 1);
		f->stats = str_at(cr, A_STATS, 0);
		f->num_records = f->stats ? delta_stats_num_records(f->stats, strlen(f->stats))
		                          : int_at(cr, A_NUMREC, -1);
		f->has_stats_parsed = !f->stats && has(cr, A_NUMREC);
		if (!f->stats && cr->sp.leaf.len)
			LOOM_TRY(stats_from_parsed(cr, &f->stats));
		f->deletion_timestamp = -1;
		f->base_row_id = int_at(cr, A_BASEROW, -1);
		f->default_row_commit_version = int_at(cr, A_DRCV, -1);
		f->clustering_provider = str_at(cr, A_CLUST, 0);
		LOOM_TRY(dv_at(cr, A_DVT, A_DVP, A_DVO, A_DVS, A_DVC, &f->dv, row));
		LOOM_TRY(kv_at(cr, A_TAGK, A_TAGV, &f->tags, &f->num_tags));
		if (cr->col[A_PVK] >= 0 &&
		    !(cr->cells[A_PVK].slots == 1 && cr->cells[A_PVK].n == 0 &&
		      cr->batch.columns[cr->col[A_PVK]].def_levels[cr->cur[A_PVK].slot - 1] == 0))
			LOOM_TRY(kv_at(cr, A_PVK, A_PVV, &f->partition_values, &f->num_partition_values));
		else
			LOOM_TRY(pv_from_parsed(cr, f));
		LOOM_TRY(copies_ok(cr, where));
		LOOM_TRY(delta_file_make_key(f, &cr->sc, where));
		LOOM_TRY(emit(cr, where, sink, ctx, &a));
	}
	if (has(cr, R_PATH)) {
		delta_file *f = &a.u.file;
		memset(&a, 0, sizeof(a));
		a.type = DELTA_ACT_REMOVE;
		a.row = row;
		f->version = cr->version;
		f->path_raw = str_at(cr, R_PATH, 0);
		f->size = int_at(cr, R_SIZE, -1);
		f->modification_time = -1;
		f->deletion_timestamp = int_at(cr, R_DTS, -1);
		f->data_change = (uint8_t)int_at(cr, R_DCHANGE, 1);
		f->extended_file_metadata = (uint8_t)int_at(cr, R_EXT, 0);
		f->stats = str_at(cr, R_STATS, 0);
		f->num_records = f->stats ? delta_stats_num_records(f->stats, strlen(f->stats)) : -1;
		f->base_row_id = int_at(cr, R_BASEROW, -1);
		f->default_row_commit_version = int_at(cr, R_DRCV, -1);
		LOOM_TRY(dv_at(cr, R_DVT, R_DVP, R_DVO, R_DVS, R_DVC, &f->dv, row));
		LOOM_TRY(kv_at(cr, R_TAGK, R_TAGV, &f->tags, &f->num_tags));
		LOOM_TRY(kv_at(cr, R_PVK, R_PVV, &f->partition_values, &f->num_partition_values));
		LOOM_TRY(copies_ok(cr, where));
		LOOM_TRY(delta_file_make_key(f, &cr->sc, where));
		LOOM_TRY(emit(cr, where, sink, ctx, &a));
	}
	if (has(cr, M_ID)) {
		delta_metadata *m = &a.u.metadata;
		memset(&a, 0, sizeof(a));
		a.type = DELTA_ACT_METADATA;
		m->id = str_at(cr, M_ID, 0);
		m->name = str_at(cr, M_NAME, 0);
		m->description = str_at(cr, M_DESC, 0);
		m->format_provider = str_at(cr, M_PROV, 0);
		m->schema_string = str_at(cr, M_SCHEMA, 0);
		if (!m->schema_string)
			return loom_err(LOOM_ECORRUPT, LOOM_ERRCLASS_DELTA,
			                "%s: metaData without schemaString", where);
		m->created_time = int_at(cr, M_CTIME, -1);
		LOOM_TRY(kv_at(cr, M_OPTK, M_OPTV, &m->format_options, &m->num_format_options));
		LOOM_TRY(kv_at(cr, M_CONFK, M_CONFV, &m->configuration, &m->num_configuration));
		LOOM_TRY(list_at(cr, M_PCOLS, &m->partition_columns, &m->num_partition_columns));
		LOOM_TRY(emit(cr, where, sink, ctx, &a));
	}
	if (has(cr, P_RV)) {
		delta_protocol *p = &a.u.protocol;
		memset(&a, 0, sizeof(a));
		a.type = DELTA_ACT_PROTOCOL;
		p->min_reader_version = (int32_t)int_at(cr, P_RV, 1);
		p->min_writer_version = (int32_t)int_at(cr, P_WV, 1);
		LOOM_TRY(list_at(cr, P_RF, &p->reader_features, &p->num_reader_features));
		LOOM_TRY(list_at(cr, P_WF, &p->writer_features, &p->num_writer_features));
		LOOM_TRY(emit(cr, where, sink, ctx, &a));
	}
	if (has(cr, T_APP)) {
		memset(&a, 0, sizeof(a));
		a.type = DELTA_ACT_TXN;
		a.u.txn.app_id = str_at(cr, T_APP, 0);
		a.u.txn.version = int_at(cr, T_VER, -1);
		a.u.txn.last_updated = int_at(cr, T_LU, -1);
		LOOM_TRY(emit(cr, where, sink, ctx, &a));
	}
	if (has(cr, D_DOM)) {
		memset(&a, 0, sizeof(a));
		a.type = DELTA_ACT_DOMAIN;
		a.u.domain.domain = str_at(cr, D_DOM, 0);
		a.u.domain.configuration = str_at(cr, D_CONF, 0);
		if (!a.u.domain.configuration)
			a.u.domain.configuration = "";
		a.u.domain.removed = (uint8_t)int_at(cr, D_REM, 0);
		LOOM_TRY(emit(cr, where, sink, ctx, &a));
	}
	if (has(cr, C_VER)) {
		memset(&a, 0, sizeof(a));
		a.type = DELTA_ACT_CHECKPOINT_METADATA;
		a.u.checkpoint_version = int_at(cr, C_VER, -1);
		LOOM_TRY(emit(cr, where, sink, ctx, &a));
	}
	if (has(cr, S_PATH)) {
		memset(&a, 0, sizeof(a));
		a.type = DELTA_ACT_SIDECAR;
		a.u.sidecar.path = str_at(cr, S_PATH, 0);
		a.u.sidecar.size_in_bytes = int_at(cr, S_SIZE, -1);
		a.u.sidecar.modification_time = int_at(cr, S_MTIME, -1);
		LOOM_TRY(emit(cr, where, sink, ctx, &a));
	}
	return 0;
}

static void leaf_set_init(leaf_set *set)
{
	memset(set, 0, sizeof(*set));
	loom_vec_init(&set->leaf, sizeof(long));
	loom_vec_init(&set->col, sizeof(int));
}

static int leaf_set_alloc(leaf_set *set)
{
	if (!set->leaf.len)
		return 0;
	set->cur = loom_calloc(set->leaf.len, sizeof(cursor));
	set->cells = loom_calloc(set->leaf.len, sizeof(cell));
	return set->cur && set->cells ? 0 : LOOM_ENOMEM;
}

/* Point the set's cursors at the columns of a freshly read row group. */
static void leaf_set_start(leaf_set *set, const pq_batch *b)
{
	size_t k;
	for (k = 0; k < set->leaf.len; k++) {
		memset(&set->cur[k], 0, sizeof(cursor));
		set->cur[k].col = &b->columns[*(int *)loom_vec_at(&set->col, k)];
	}
}

static int leaf_set_row(ckpt_reader *cr, leaf_set *set, size_t row)
{
	size_t k;
	for (k = 0; k < set->leaf.len; k++)
		LOOM_TRY(row_cell(cr, &set->cur[k], &set->cells[k], row));
	return 0;
}

static void leaf_set_dispose(leaf_set *set)
{
	loom_free(set->cur);
	loom_free(set->cells);
	loom_vec_dispose(&set->leaf);
	loom_vec_dispose(&set->col);
}

/* Find the leaves of every role; build the projection. */
static int resolve(ckpt_reader *cr)
{
	const pq_schema *s = pq_reader_schema(cr->r);
	size_t i, k;
	cr->proj = loom_calloc(s->num_leaves + 1, sizeof(size_t));
	if (!cr->proj)
		return LOOM_ENOMEM;
	for (k = 0; k < NROLES; k++) {
		cr->leaf[k] = -1;
		cr->col[k] = -1;
		if (cr->sidecars_only && k != S_PATH && k != S_SIZE && k != S_MTIME)
			continue;
		for (i = 0; i < s->num_leaves && roles[k].prefix; i++) {
			const pq_leaf *L = &s->leaves[i];
			size_t pl = strlen(roles[k].prefix);
			if (!roles[k].last) {
				if (strcmp(L->path, roles[k].prefix) == 0)
					break;
			} else if (strncmp(L->path, roles[k].prefix, pl) == 0 &&
			           (roles[k].last[0] == '\0' ||
			            strcmp(L->parts[L->depth - 1], roles[k].last) == 0)) {
				break;
			}
		}
		if (roles[k].prefix && i < s->num_leaves) {
			const pq_leaf *L = &s->leaves[i];
			/* only the two shapes we know how to walk */
			if (L->max_rep > 1)
				return loom_err(LOOM_EUNSUPPORTED, LOOM_ERRCLASS_DELTA,
				                "%s: checkpoint column %s is nested deeper than expected",
				                cr->key, L->path);
			if (roles[k].last && L->max_rep != 1)
				return loom_err(LOOM_ECORRUPT, LOOM_ERRCLASS_DELTA,
				                "%s: checkpoint column %s is not a map or list", cr->key,
				                L->path);
			if (!roles[k].last && L->max_rep != 0)
				return loom_err(LOOM_ECORRUPT, LOOM_ERRCLASS_DELTA,
				                "%s: checkpoint column %s is unexpectedly repeated",
				                cr->key, L->path);
			cr->leaf[k] = (long)i;
			cr->col[k] = (int)cr->nproj;
			cr->proj[cr->nproj++] = i;
		}
	}
	for (i = 0; i < s->num_leaves && !cr->sidecars_only; i++) {
		const pq_leaf *L = &s->leaves[i];
		leaf_set *set = NULL;
		if (L->max_rep != 0)
			continue;
		if (strncmp(L->path, "add.partitionValues_parsed.", 27) == 0 && L->depth == 3)
			set = &cr->pvp;
		else if (strncmp(L->path, "add.stats_parsed.", 17) == 0 && L->depth >= 3)
			set = &cr->sp;
		if (set) {
			long leaf = (long)i;
			int col = (int)cr->nproj;
			LOOM_TRY(loom_vec_push(&set->leaf, &leaf));
			LOOM_TRY(loom_vec_push(&set->col, &col));
			cr->proj[cr->nproj++] = i;
		}
	}
	LOOM_TRY(leaf_set_alloc(&cr->pvp));
	return leaf_set_alloc(&cr->sp);
}

#define CKPT_SLICE_ROWS 65536

/* The rows of the decoded batch (a slice or a whole row group), `base`
 * the first one's row in the file. */
static int read_slice(ckpt_reader *cr, size_t base, delta_action_sink sink, void *ctx)
{
	size_t row, k;
	int rc = 0;
	for (k = 0; k < NROLES; k++) {
		memset(&cr->cur[k], 0, sizeof(cursor));
		if (cr->col[k] >= 0)
			cr->cur[k].col = &cr->batch.columns[cr->col[k]];
	}
	leaf_set_start(&cr->pvp, &cr->batch);
	leaf_set_start(&cr->sp, &cr->batch);
	for (row = 0; rc == 0 && row < cr->batch.num_rows; row++) {
		for (k = 0; rc == 0 && k < NROLES; k++) {
			if (cr->col[k] >= 0)
				rc = row_cell(cr, &cr->cur[k], &cr->cells[k], base + row);
			else
				memset(&cr->cells[k], 0, sizeof(cell));
		}
		if (rc == 0)
			rc = leaf_set_row(cr, &cr->pvp, base + row);
		if (rc == 0)
			rc = leaf_set_row(cr, &cr->sp, base + row);
		if (rc == 0)
			rc = emit_row(cr, base + row, sink, ctx);
		delta_parse_scratch_reset(&cr->sc);
	}
	return rc;
}

static int read_checkpoint(loom_store *store, const char *key, int64_t version,
                           int sidecars_only, delta_action_sink sink, void *ctx)
{
	ckpt_reader cr;
	size_t g, base = 0;
	int rc;

	memset(&cr, 0, sizeof(cr));
	cr.key = key;
	cr.version = version;
	cr.sidecars_only = sidecars_only;
	leaf_set_init(&cr.pvp);
	leaf_set_init(&cr.sp);
	delta_parse_scratch_init(&cr.sc);
	rc = pq_reader_open(&cr.r, store, key);
	if (rc < 0) {
		rc = loom_err_wrap("checkpoint %s", key);
		goto done;
	}
	rc = resolve(&cr);
	/* a big row group in slices of rows: a checkpoint's row group may hold
	 * millions of actions, decoded whole they would outweigh the snapshot;
	 * a small one whole (a slice is one more copy of its pages) */
	for (g = 0; rc == 0 && g < pq_reader_meta(cr.r)->num_row_groups; g++) {
		if (!cr.nproj)
			break;
		if (pq_reader_meta(cr.r)->row_groups[g].num_rows <= CKPT_SLICE_ROWS) {
			if (pq_reader_read_row_group(cr.r, g, cr.proj, cr.nproj, &cr.batch) < 0) {
				rc = loom_err_wrap("checkpoint %s row group %zu", key, g);
				break;
			}
			if ((rc = read_slice(&cr, base, sink, ctx)) < 0)
				break;
			base += cr.batch.num_rows;
			continue;
		}
		if (pq_reader_slices_begin_nested(cr.r, g, cr.proj, cr.nproj, CKPT_SLICE_ROWS) < 0) {
			rc = loom_err_wrap("checkpoint %s row group %zu", key, g);
			break;
		}
		for (;;) {
			if (pq_reader_slices_next(cr.r, &cr.batch) < 0) {
				rc = loom_err_wrap("checkpoint %s row group %zu", key, g);
				break;
			}
			if (!cr.batch.num_rows || (rc = read_slice(&cr, base, sink, ctx)) < 0)
				break;
			base += cr.batch.num_rows;
		}
	}
done:

	pq_batch_free(&cr.batch);
	pq_reader_free(cr.r);
	loom_free(cr.proj);
	leaf_set_dispose(&cr.pvp);
	leaf_set_dispose(&cr.sp);
	delta_parse_scratch_dispose(&cr.sc);
	return rc;
}

int delta_checkpoint_parquet_read(loom_store *store, const char *key,
                                  int64_t version, delta_action_sink sink,
                                  void *ctx)
{
	return read_checkpoint(store, key, version, 0, sink, ctx);
}

int delta_checkpoint_parquet_sidecars(loom_store *store, const char *key,
                                      delta_action_sink sink, void *ctx)
{
	return read_checkpoint(store, key, -1, 1, sink, ctx);
}

/* ---- add.stats of single rows, for a file index that left them here ---- */

#define STATS_SLICE_ROWS 65536

struct delta_ckpt_stats_reader {
	loom_store *store;
	pq_reader *r;
	char *key;              /* file the reader is on, or NULL */
	size_t leaf;            /* add.stats */
	size_t group;           /* row group of the current slices */
	uint64_t group_first;   /* its first row in the file */
	uint64_t slice_first;   /* first row of the decoded slice */
	size_t slice_rows;      /* 0: no slice decoded */
	int in_group;
	pq_batch batch;
	uint32_t *value_of;     /* value index of each row of the slice */
	size_t value_cap;
};

int delta_ckpt_stats_reader_new(delta_ckpt_stats_reader **out, loom_store *store)
{
	*out = loom_calloc(1, sizeof(**out));
	if (!*out)
		return loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_OS, "out of memory");
	(*out)->store = store;
	return 0;
}

void delta_ckpt_stats_reader_free(delta_ckpt_stats_reader *s)
{
	if (!s)
		return;
	pq_batch_free(&s->batch);
	pq_reader_free(s->r);
	loom_free(s->key);
	loom_free(s->value_of);
	loom_free(s);
}

static int stats_open(delta_ckpt_stats_reader *s, const char *key)
{
	const pq_schema *sc;
	size_t i;
	pq_batch_free(&s->batch);
	memset(&s->batch, 0, sizeof(s->batch));
	pq_reader_free(s->r);
	s->r = NULL;
	loom_free(s->key);
	s->key = NULL;
	s->in_group = 0;
	s->slice_rows = 0;
	if (pq_reader_open(&s->r, s->store, key) < 0)
		return loom_err_wrap("checkpoint %s", key);
	sc = pq_reader_schema(s->r);
	for (i = 0; i < sc->num_leaves && strcmp(sc->leaves[i].path, "add.stats") != 0; i++)
		;
	if (i == sc->num_leaves || sc->leaves[i].max_rep != 0)
		return loom_err(LOOM_ECORRUPT, LOOM_ERRCLASS_DELTA, "%s: no add.stats column", key);
	s->leaf = i;
	s->key = loom_strdup(key);
	return s->key ? 0 : loom_err(LOOM_ENOMEM, LOOM_ERRCLASS_OS, "out of memory");
}

/* Decode the next slice of the current row group; index its values. */
static int stats_next_slice(delta_ckpt_stats_reader *s)
{
	const pq_column *col;
	size_t i, v = 0;
	s->slice_first += s->slice_rows;
	s->slice_rows = 0;
	if (pq_reader_slices_next(s->r, &s->batch) < 0)
		return loom_err_wrap("checkpoint %s row group %zu", s->key, s->group);
	if (!s->batch.num_rows)
		return loom_err(LOOM_ECORRUPT, LOOM_ERRCLASS_DELTA, "%s: row group %zu ends early",
		                s->key, s->group);
	col = &s->batch.columns[0];
	if (loom_array_grow((void **)&s->value_of, &s->value_cap, s->batch.num_rows,
	                    sizeof(uint32_t)) < 0)
		return LOOM_ENOMEM;
	for (i = 0; i < s->batch.num_rows; i++) {
		int present = col->max_def == 0 || col->def_levels[i] == col->max_def;
		s->value_of[i] = present ? (uint32_t)v++ : UINT32_MAX;
	}
	s->slice_rows = s->batch.num_rows;
	return 0;
}

int delta_ckpt_stats_read(delta_ckpt_stats_reader *s, const char *key, uint64_t row,
                          loom_buf *out, int *found)
{
	const pq_file_meta *m;
	const pq_column *col;
	uint64_t first = 0;
	size_t g;
	uint32_t v;

	*found = 0;
	if (!s->key || strcmp(s->key, key) != 0)
		LOOM_TRY(stats_open(s, key));
	m = pq_reader_meta(s->r);
	for (g = 0; g < m->num_row_groups && row >= first + (uint64_t)m->row_groups[g].num_rows; g++)
		first += (uint64_t)m->row_groups[g].num_rows;
	if (g == m->num_row_groups)
		return loom_err(LOOM_ECORRUPT, LOOM_ERRCLASS_DELTA, "%s has no row %llu", key,
		                (unsigned long long)row);
	/* rows are read forward through a row group's slices; a row behind the
	 * current slice starts its row group over */
	if (!s->in_group || s->group != g || row < s->slice_first) {
		if (pq_reader_slices_begin(s->r, g, &s->leaf, 1, STATS_SLICE_ROWS) < 0)
			return loom_err_wrap("checkpoint %s row group %zu", key, g);
		s->in_group = 1;
		s->group = g;
		s->group_first = first;
		s->slice_first = first;
		s->slice_rows = 0;
	}
	while (row >= s->slice_first + s->slice_rows)
		LOOM_TRY(stats_next_slice(s));
	v = s->value_of[row - s->slice_first];
	if (v == UINT32_MAX)
		return 0;
	col = &s->batch.columns[0];
	*found = 1;
	return loom_buf_put(out, col->data + col->offsets[v], col->offsets[v + 1] - col->offsets[v]);
}
