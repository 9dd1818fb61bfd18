/* delta/protocol.c - the feature table and the gate. */
#include "delta/protocol.h"

#include <string.h>

#include "util/error.h"

/* Column order of `allowed`: read, vacuum, compact, zorder, checkpoint,
 * log-cleanup. READ means rebuilding the snapshot and applying deletion
 * vectors; data-level obligations of rewrites are in COMPACT/ZORDER.
 * Y: allowed. N: refused for good (the protocol or Delta forbids it; the
 * note says why). L: refused until loom builds it (the todo says what). */
#define Y DELTA_ALLOW
#define N DELTA_REFUSE
#define L DELTA_NOT_YET
#define RW DELTA_FEAT_READER_WRITER
#define W DELTA_FEAT_WRITER

#define CLUSTERING_NOTE                                                        \
	"clustered files may be reclustered only by the clustering implementation " \
	"named in their clusteringProvider (PROTOCOL.md, Clustered Table) and Delta " \
	"refuses ZORDER BY on clustered tables: cluster it with `loom compact` instead, " \
	"which clusters by the table's clustering columns (provider liquid)"
#define TYPE_WIDENING_NOTE                                                     \
	"rewrites read files written before a type change with their narrower "    \
	"types and write the table's current types (the changes PROTOCOL.md allows)"

const delta_feature_support delta_feature_table[] = {
	/* legacy writer-version features */
	{ "appendOnly", W, 0, 2, { Y, Y, Y, Y, Y, Y },
	  "rewrites only with dataChange=false; never remove with dataChange=true", NULL },
	{ "invariants", W, 0, 2, { Y, Y, Y, Y, Y, Y },
	  "rewrites copy rows that already satisfy the invariants", NULL },
	{ "checkConstraints", W, 0, 3, { Y, Y, Y, Y, Y, Y },
	  "rewrites copy rows that already satisfy the constraints", NULL },
	{ "changeDataFeed", W, 0, 4, { Y, Y, Y, Y, Y, Y },
	  "dataChange=false rewrites need no cdc files", NULL },
	{ "generatedColumns", W, 0, 4, { Y, Y, Y, Y, Y, Y },
	  "rewrites copy generated values unchanged", NULL },
	{ "columnMapping", RW, 2, 5, { Y, Y, Y, Y, Y, Y },
	  "rewrites must write physical column names and field ids; stats and "
	  "partition values use physical names", NULL },
	{ "identityColumns", W, 0, 6, { Y, Y, Y, Y, Y, Y },
	  "rewrites generate no identity values", NULL },
	/* named features */
	{ "deletionVectors", RW, 0, 0, { Y, Y, Y, Y, Y, Y },
	  "rewrites drop deleted rows and remove with the same DV; vacuum keeps "
	  "DV files of live and unexpired files", NULL },
	{ "timestampNtz", RW, 0, 0, { Y, Y, Y, Y, Y, Y }, NULL, NULL },
	{ "domainMetadata", W, 0, 0, { Y, Y, Y, Y, Y, Y },
	  "checkpoints keep every non-removed domain", NULL },
	{ "v2Checkpoint", RW, 0, 0, { Y, Y, Y, Y, Y, Y },
	  "checkpoints follow delta.checkpointPolicy (v2: UUID-named V2 checkpoints "
	  "with sidecars; never multi-part); log cleanup keeps every sidecar a "
	  "retained checkpoint references", NULL },
	{ "rowTracking", W, 0, 0, { Y, Y, Y, Y, Y, Y },
	  "rewrites keep every row's stable row id and row commit version in the "
	  "materialized columns the table names, give new files fresh baseRowId and "
	  "defaultRowCommitVersion and raise the delta.rowTracking high-water mark; "
	  "commits that add no file assign no row ids; checkpoints keep them", NULL },
	{ "clustering", W, 0, 0, { Y, Y, Y, N, Y, Y }, CLUSTERING_NOTE, NULL },
	/* the Databricks preview name of clustering (domain delta.liquid) */
	{ "liquid", W, 0, 0, { Y, Y, Y, N, Y, Y }, CLUSTERING_NOTE, NULL },
	{ "vacuumProtocolCheck", RW, 0, 0, { Y, Y, Y, Y, Y, Y },
	  "vacuum checks the write protocol (this gate) before it plans anything, "
	  "for every table", NULL },
	{ "inCommitTimestamp", W, 0, 0, { Y, Y, Y, Y, Y, Y },
	  "every commit starts with a commitInfo carrying a strictly increasing "
	  "inCommitTimestamp; from delta.inCommitTimestampEnablementVersion on, "
	  "commit times are in-commit timestamps", NULL },
	{ "icebergCompatV1", W, 0, 0, { Y, Y, L, L, Y, Y }, NULL,
	  "rewrites must follow the Iceberg compatibility rules" },
	{ "icebergCompatV2", W, 0, 0, { Y, Y, L, L, Y, Y }, NULL,
	  "rewrites must follow the Iceberg compatibility rules" },
	{ "typeWidening", RW, 0, 0, { Y, Y, Y, Y, Y, Y }, TYPE_WIDENING_NOTE, NULL },
	{ "typeWidening-preview", RW, 0, 0, { Y, Y, Y, Y, Y, Y }, TYPE_WIDENING_NOTE, NULL },
	{ "variantType", RW, 0, 0, { Y, Y, L, L, Y, Y }, NULL,
	  "variant columns cannot be rewritten" },
	{ "variantType-preview", RW, 0, 0, { Y, Y, L, L, Y, Y }, NULL,
	  "variant columns cannot be rewritten" },
	{ "variantShredding-preview", RW, 0, 0, { Y, Y, L, L, Y, Y }, NULL,
	  "shredded variant columns cannot be rewritten" },
	{ "allowColumnDefaults", W, 0, 0, { Y, Y, Y, Y, Y, Y },
	  "defaults only apply to inserts", NULL },
	{ "collations", W, 0, 0, { Y, Y, L, L, Y, Y }, NULL,
	  "collation-aware statistics are not written" },
	{ "checkpointProtection", W, 0, 0, { Y, Y, Y, Y, Y, Y },
	  "log cleanup keeps every checkpoint before "
	  "delta.requireCheckpointProtectionBeforeVersion unless it removes all of "
	  "the history before it in one go; a checkpoint is only written for a "
	  "version whose protocol loom supports", NULL },
	{ "materializePartitionColumns", W, 0, 0, { Y, Y, L, L, Y, Y }, NULL,
	  "rewrites must write partition columns into data files" },
	{ "catalogManaged", RW, 0, 0, { N, N, N, N, N, N },
	  "catalog-managed tables commit through a catalog; the filesystem log "
	  "is not authoritative", NULL },
	{ "catalogOwned-preview", RW, 0, 0, { N, N, N, N, N, N },
	  "catalog-managed tables commit through a catalog", NULL },
	{ NULL, 0, 0, 0, { 0 }, NULL, NULL },
};

const char *delta_op_name(delta_op op)
{
	static const char *const names[] = { "read", "vacuum", "compact", "zorder",
		                                 "checkpoint", "log-cleanup" };
	return (unsigned)op < DELTA_OP_COUNT ? names[op] : "unknown";
}

const delta_feature_support *delta_feature_lookup(const char *name)
{
	const delta_feature_support *f;
	for (f = delta_feature_table; f->name; f++)
		if (strcmp(f->name, name) == 0)
			return f;
	return NULL;
}

static int listed(const char **list, uint32_t n, const char *name)
{
	uint32_t i;
	for (i = 0; list && i < n; i++)
		if (strcmp(list[i], name) == 0)
			return 1;
	return 0;
}

int delta_protocol_has_feature(const delta_protocol *p, const char *name)
{
	const delta_feature_support *f = delta_feature_lookup(name);
	if (listed(p->reader_features, p->num_reader_features, name) ||
	    listed(p->writer_features, p->num_writer_features, name))
		return 1;
	if (!f)
		return 0;
	if (f->legacy_reader && p->min_reader_version < 3 &&
	    p->min_reader_version >= f->legacy_reader)
		return 1;
	if (f->legacy_writer && p->min_writer_version < 7 &&
	    p->min_writer_version >= f->legacy_writer)
		return 1;
	return 0;
}

/* Check one feature for `op`. `pass` 0 reports unknown features and
 * DELTA_REFUSE, pass 1 DELTA_NOT_YET, so a lasting reason comes first. */
static int check_feature(const char *name, const char *list, delta_op op, int pass)
{
	const delta_feature_support *f = delta_feature_lookup(name);
	if (!f)
		return pass ? 0 : loom_err(LOOM_EUNSUPPORTED, LOOM_ERRCLASS_DELTA,
		                           "table feature \"%s\" (%s) is unknown to loom: %s refused",
		                           name, list, delta_op_name(op));
	if (pass == 0 && f->allowed[op] == DELTA_REFUSE)
		return loom_err(LOOM_EUNSUPPORTED, LOOM_ERRCLASS_DELTA,
		                "table feature \"%s\" does not allow loom to %s this table%s%s",
		                name, delta_op_name(op), f->note ? ": " : "",
		                f->note ? f->note : "");
	if (pass == 1 && f->allowed[op] == DELTA_NOT_YET)
		return loom_err(LOOM_EUNSUPPORTED, LOOM_ERRCLASS_DELTA,
		                "loom cannot %s tables with table feature \"%s\" yet: %s",
		                delta_op_name(op), name, f->todo ? f->todo : "not implemented");
	return 0;
}

/* Every feature the protocol lists or implies for `op` (reader features
 * always; writer features unless op is READ), checked in `pass`. */
static int check_all(const delta_protocol *p, delta_op op, int pass)
{
	const delta_feature_support *f;
	uint32_t i;

	if (p->min_reader_version == 3) {
		for (i = 0; i < p->num_reader_features; i++)
			LOOM_TRY(check_feature(p->reader_features[i], "reader feature", op, pass));
	} else {
		for (f = delta_feature_table; f->name; f++)
			if (f->legacy_reader && p->min_reader_version >= f->legacy_reader)
				LOOM_TRY(check_feature(f->name, "implied by reader version", op, pass));
	}
	if (op == DELTA_OP_READ)
		return 0;
	if (p->min_writer_version == 7) {
		for (i = 0; i < p->num_writer_features; i++)
			LOOM_TRY(check_feature(p->writer_features[i], "writer feature", op, pass));
	} else {
		for (f = delta_feature_table; f->name; f++)
			if (f->legacy_writer && p->min_writer_version >= f->legacy_writer)
				LOOM_TRY(check_feature(f->name, "implied by writer version", op, pass));
	}
	return 0;
}

int delta_protocol_check(const delta_protocol *p, delta_op op)
{
	if ((unsigned)op >= DELTA_OP_COUNT)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_DELTA, "unknown operation %d", (int)op);
	if (p->min_reader_version < 1 || p->min_reader_version > DELTA_MAX_READER_VERSION)
		return loom_err(LOOM_EUNSUPPORTED, LOOM_ERRCLASS_DELTA,
		                "reader version %d is not supported (loom reads up to %d): "
		                "%s refused", p->min_reader_version, DELTA_MAX_READER_VERSION,
		                delta_op_name(op));
	if (op != DELTA_OP_READ &&
	    (p->min_writer_version < 1 || p->min_writer_version > DELTA_MAX_WRITER_VERSION))
		return loom_err(LOOM_EUNSUPPORTED, LOOM_ERRCLASS_DELTA,
		                "writer version %d is not supported (loom writes up to %d): "
		                "%s refused", p->min_writer_version, DELTA_MAX_WRITER_VERSION,
		                delta_op_name(op));
	LOOM_TRY(check_all(p, op, 0));
	return check_all(p, op, 1);
}
