/* ops/log/checkpoint_schema.c - the Parquet schema of checkpoint files, as
 * Spark writes them (Checkpoints.scala buildCheckpoint): every action is an
 * optional top-level struct; maps are MAP<string,string> (3-level
 * key_value), lists LIST<string> (3-level list/element). Three layouts: a
 * V2 sidecar (add, remove), a V1 checkpoint (every action a snapshot
 * has), and a V2 one (plus checkpointMetadata and sidecar). No stats_parsed
 * or partitionValues_parsed: the stats stay a JSON string, which is the
 * protocol's default (delta.checkpoint.writeStatsAsJson). */
#include "ops/log/checkpoint.h"

#define OPT .has_repetition = 1, .repetition = PQ_OPTIONAL
#define GRP(n, nch) { .name = n, OPT, .is_group = 1, .num_children = nch, .converted_type = PQ_CT_NONE }
#define STR(n) { .name = n, OPT, .type = PQ_BYTE_ARRAY, .converted_type = PQ_CT_UTF8, \
	         .logical_type = { .kind = PQ_LT_STRING } }
#define I64(n) { .name = n, OPT, .type = PQ_INT64, .converted_type = PQ_CT_NONE }
#define I32(n) { .name = n, OPT, .type = PQ_INT32, .converted_type = PQ_CT_NONE }
#define BOOL(n) { .name = n, OPT, .type = PQ_BOOLEAN, .converted_type = PQ_CT_NONE }
#define MAP(n)                                                                              \
	{ .name = n, OPT, .is_group = 1, .num_children = 1, .converted_type = PQ_CT_MAP,         \
	  .logical_type = { .kind = PQ_LT_MAP } },                                               \
	{ .name = "key_value", .has_repetition = 1, .repetition = PQ_REPEATED, .is_group = 1,    \
	  .num_children = 2, .converted_type = PQ_CT_NONE },                                     \
	{ .name = "key", .has_repetition = 1, .repetition = PQ_REQUIRED, .type = PQ_BYTE_ARRAY,  \
	  .converted_type = PQ_CT_UTF8, .logical_type = { .kind = PQ_LT_STRING } },              \
	STR("value")
#define LIST(n)                                                                             \
	{ .name = n, OPT, .is_group = 1, .num_children = 1, .converted_type = PQ_CT_LIST,        \
	  .logical_type = { .kind = PQ_LT_LIST } },                                              \
	{ .name = "list", .has_repetition = 1, .repetition = PQ_REPEATED, .is_group = 1,         \
	  .num_children = 1, .converted_type = PQ_CT_NONE },                                     \
	STR("element")
#define DV GRP("deletionVector", 5), STR("storageType"), STR("pathOrInlineDv"), \
	I32("offset"), I32("sizeInBytes"), I64("cardinality")

/* add and remove come first: a V2 sidecar file is exactly these two, so
 * its schema is a prefix of the others and the leaf numbers are shared. */
#define FILE_ACTIONS \
	GRP("add", 11), STR("path"), MAP("partitionValues"), I64("size"), I64("modificationTime"), \
	BOOL("dataChange"), STR("stats"), MAP("tags"), DV, I64("baseRowId"), \
	I64("defaultRowCommitVersion"), STR("clusteringProvider"), \
	GRP("remove", 10), STR("path"), I64("deletionTimestamp"), BOOL("dataChange"), \
	BOOL("extendedFileMetadata"), MAP("partitionValues"), I64("size"), MAP("tags"), DV, \
	I64("baseRowId"), I64("defaultRowCommitVersion"),
#define OTHER_ACTIONS \
	GRP("txn", 3), STR("appId"), I64("version"), I64("lastUpdated"), \
	GRP("metaData", 8), STR("id"), STR("name"), STR("description"), GRP("format", 2), \
	STR("provider"), MAP("options"), STR("schemaString"), LIST("partitionColumns"), \
	MAP("configuration"), I64("createdTime"), \
	GRP("protocol", 4), I32("minReaderVersion"), I32("minWriterVersion"), \
	LIST("readerFeatures"), LIST("writerFeatures"), \
	GRP("domainMetadata", 3), STR("domain"), STR("configuration"), BOOL("removed"),
#define V2_ACTIONS \
	GRP("checkpointMetadata", 2), I64("version"), MAP("tags"), \
	GRP("sidecar", 4), STR("path"), I64("sizeInBytes"), I64("modificationTime"), MAP("tags"),

static const pq_schema_node schema_sidecar[] = {
	{ .name = "spark_schema", .is_group = 1, .num_children = 2, .converted_type = PQ_CT_NONE },
	FILE_ACTIONS
};

static const pq_schema_node schema_v1[] = {
	{ .name = "spark_schema", .is_group = 1, .num_children = 6, .converted_type = PQ_CT_NONE },
	FILE_ACTIONS
	OTHER_ACTIONS
};

static const pq_schema_node schema_v2[] = {
	{ .name = "spark_schema", .is_group = 1, .num_children = 8, .converted_type = PQ_CT_NONE },
	FILE_ACTIONS
	OTHER_ACTIONS
	V2_ACTIONS
};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

const int ck_action_first_leaf[CK_ACT_COUNT + 1] = {
	CK_ADD_PATH, CK_REM_PATH, CK_TXN_APPID, CK_META_ID, CK_PROTO_MINR,
	CK_DOM_DOMAIN, CK_CKMETA_VERSION, CK_SIDECAR_PATH, CK_NUM_LEAVES
};

void ck_schema(const pq_schema_node **nodes, size_t *n, ck_layout layout)
{
	switch (layout) {
	case CK_LAYOUT_SIDECAR:
		*nodes = schema_sidecar;
		*n = COUNT(schema_sidecar);
		break;
	case CK_LAYOUT_V2:
		*nodes = schema_v2;
		*n = COUNT(schema_v2);
		break;
	default:
		*nodes = schema_v1;
		*n = COUNT(schema_v1);
		break;
	}
}

size_t ck_num_leaves(ck_layout layout)
{
	return layout == CK_LAYOUT_SIDECAR ? CK_TXN_APPID
	     : layout == CK_LAYOUT_V2 ? CK_NUM_LEAVES : CK_CKMETA_VERSION;
}

/* Walk the tree from node *i, giving each leaf its levels. */
static void walk(const pq_schema_node *nodes, size_t n, size_t *i, int16_t def, int16_t rep,
                 pq_batch *b, size_t *leaf)
{
	const pq_schema_node *nd = &nodes[*i];
	int32_t k;
	if (nd->has_repetition && nd->repetition != PQ_REQUIRED)
		def++;
	if (nd->has_repetition && nd->repetition == PQ_REPEATED)
		rep++;
	(*i)++;
	if (!nd->is_group) {
		pq_column *c = &b->columns[(*leaf)++];
		c->type = nd->type;
		c->type_length = nd->type_length;
		c->max_def = def;
		c->max_rep = rep;
		return;
	}
	for (k = 0; k < nd->num_children && *i < n; k++)
		walk(nodes, n, i, def, rep, b, leaf);
}

int ck_batch_init(pq_batch *b, ck_layout layout)
{
	const pq_schema_node *nodes;
	size_t n, i = 0, leaf = 0;
	int rc;
	ck_schema(&nodes, &n, layout);
	if ((rc = pq_batch_init(b, ck_num_leaves(layout))) < 0)
		return rc;
	/* root: level 0, not counted */
	i = 1;
	while (i < n)
		walk(nodes, n, &i, 0, 0, b, &leaf);
	return 0;
}
