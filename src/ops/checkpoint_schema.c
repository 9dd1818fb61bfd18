/* ops/checkpoint_schema.c - the Parquet schema of a checkpoint file, as
 * Spark writes it (Checkpoints.scala buildCheckpoint): every action is an
 * optional top-level struct; maps are MAP<string,string> (3-level
 * key_value), lists LIST<string> (3-level list/element). No stats_parsed or
 * partitionValues_parsed: the stats stay a JSON string, which is the
 * protocol's default (delta.checkpoint.writeStatsAsJson). */
#include "ops/checkpoint.h"

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

#define ACTIONS_V1 \
	GRP("txn", 3), STR("appId"), I64("version"), I64("lastUpdated"), \
	GRP("add", 11), STR("path"), MAP("partitionValues"), I64("size"), I64("modificationTime"), \
	BOOL("dataChange"), STR("stats"), MAP("tags"), DV, I64("baseRowId"), \
	I64("defaultRowCommitVersion"), STR("clusteringProvider"), \
	GRP("remove", 10), STR("path"), I64("deletionTimestamp"), BOOL("dataChange"), \
	BOOL("extendedFileMetadata"), MAP("partitionValues"), I64("size"), MAP("tags"), DV, \
	I64("baseRowId"), I64("defaultRowCommitVersion"), \
	GRP("metaData", 8), STR("id"), STR("name"), STR("description"), GRP("format", 2), \
	STR("provider"), MAP("options"), STR("schemaString"), LIST("partitionColumns"), \
	MAP("configuration"), I64("createdTime"), \
	GRP("protocol", 4), I32("minReaderVersion"), I32("minWriterVersion"), \
	LIST("readerFeatures"), LIST("writerFeatures"), \
	GRP("domainMetadata", 3), STR("domain"), STR("configuration"), BOOL("removed"),

static const pq_schema_node schema_v2[] = {
	{ .name = "spark_schema", .is_group = 1, .num_children = 7, .converted_type = PQ_CT_NONE },
	ACTIONS_V1
	GRP("checkpointMetadata", 1), I64("version"),
};

static const pq_schema_node schema_v1[] = {
	{ .name = "spark_schema", .is_group = 1, .num_children = 6, .converted_type = PQ_CT_NONE },
	ACTIONS_V1
};

#define NODES_V2 (sizeof(schema_v2) / sizeof(schema_v2[0]))

const int ck_action_first_leaf[CK_ACT_COUNT + 1] = {
	CK_TXN_APPID, CK_ADD_PATH, CK_REM_PATH, CK_META_ID, CK_PROTO_MINR,
	CK_DOM_DOMAIN, CK_CKMETA_VERSION, CK_NUM_LEAVES
};


void ck_schema(const pq_schema_node **nodes, size_t *n, int with_ckmeta)
{
	if (with_ckmeta) {
		*nodes = schema_v2;
		*n = NODES_V2;
		return;
	}
	*nodes = schema_v1;
	*n = sizeof(schema_v1) / sizeof(schema_v1[0]);
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

int ck_batch_init(pq_batch *b, int with_ckmeta)
{
	const pq_schema_node *nodes;
	size_t n, i = 0, leaf = 0;
	int rc;
	ck_schema(&nodes, &n, with_ckmeta);
	if ((rc = pq_batch_init(b, with_ckmeta ? CK_NUM_LEAVES : CK_CKMETA_VERSION)) < 0)
		return rc;
	/* root: level 0, not counted */
	i = 1;
	while (i < n)
		walk(nodes, n, &i, 0, 0, b, &leaf);
	return 0;
}
