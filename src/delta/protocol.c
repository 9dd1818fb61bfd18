/* delta/protocol.c - the feature table and the gate. */
#include "delta/protocol.h"

#include <string.h>

#include "util/error.h"

/* Column order of `allowed`: read, vacuum, compact, zorder, checkpoint,
 * log-cleanup. READ means rebuilding the snapshot and applying deletion
 * vectors; data-level obligations of rewrites are in COMPACT/ZORDER. */
#define Y 1
#define N 0
#define RW DELTA_FEAT_READER_WRITER
#define W DELTA_FEAT_WRITER

const delta_feature_support delta_feature_table[] = {
	/* legacy writer-version features */
	{ "appendOnly", W, 0, 2, { Y, Y, Y, Y, Y, Y },
	  "rewrites only with dataChange=false; never remove with dataChange=true" },
	{ "invariants", W, 0, 2, { Y, Y, Y, Y, Y, Y },
	  "rewrites copy rows that already satisfy the invariants" },
	{ "checkConstraints", W, 0, 3, { Y, Y, Y, Y, Y, Y },
	  "rewrites copy rows that already satisfy the constraints" },
	{ "changeDataFeed", W, 0, 4, { Y, Y, Y, Y, Y, Y },
	  "dataChange=false rewrites need no cdc files" },
	{ "generatedColumns", W, 0, 4, { Y, Y, Y, Y, Y, Y },
	  "rewrites copy generated values unchanged" },
	{ "columnMapping", RW, 2, 5, { Y, Y, Y, Y, Y, Y },
	  "rewrites must write physical column names and field ids; stats and "
	  "partition values use physical names" },
	{ "identityColumns", W, 0, 6, { Y, Y, Y, Y, Y, Y },
	  "rewrites generate no identity values" },
	/* named features */
	{ "deletionVectors", RW, 0, 0, { Y, Y, Y, Y, Y, Y },
	  "rewrites drop deleted rows and remove with the same DV; vacuum keeps "
	  "DV files of live and unexpired files" },
	{ "timestampNtz", RW, 0, 0, { Y, Y, Y, Y, Y, Y }, NULL },
	{ "domainMetadata", W, 0, 0, { Y, Y, Y, Y, Y, Y },
	  "checkpoints keep every non-removed domain" },
	{ "v2Checkpoint", RW, 0, 0, { Y, Y, Y, Y, N, N },
	  "checkpoints must be V2 (checkpointMetadata, sidecars) and log cleanup "
	  "must keep referenced sidecars: not implemented" },
	{ "rowTracking", W, 0, 0, { Y, Y, N, N, Y, Y },
	  "rewrites must preserve row ids (materialized row-id columns) and "
	  "maintain the delta.rowTracking high-water mark: not implemented" },
	{ "clustering", W, 0, 0, { Y, Y, Y, N, Y, Y },
	  "Z-order is refused on clustered tables; compaction must keep stats on "
	  "clustering columns" },
	{ "vacuumProtocolCheck", RW, 0, 0, { Y, Y, Y, Y, Y, Y },
	  "vacuum checks the write protocol (this gate)" },
	{ "inCommitTimestamp", W, 0, 0, { Y, Y, N, N, Y, N },
	  "commits must carry commitInfo.inCommitTimestamp first and log cleanup "
	  "must keep the commit at the cutoff checkpoint: not implemented" },
	{ "icebergCompatV1", W, 0, 0, { Y, Y, N, N, Y, Y },
	  "rewrites must follow Iceberg compatibility rules: not implemented" },
	{ "icebergCompatV2", W, 0, 0, { Y, Y, N, N, Y, Y },
	  "rewrites must follow Iceberg compatibility rules: not implemented" },
	{ "typeWidening", RW, 0, 0, { Y, Y, N, N, Y, Y },
	  "rewrites must upcast old files to the current column types: not "
	  "implemented" },
	{ "typeWidening-preview", RW, 0, 0, { Y, Y, N, N, Y, Y },
	  "rewrites must upcast old files to the current column types: not "
	  "implemented" },
	{ "variantType", RW, 0, 0, { Y, Y, N, N, Y, Y },
	  "variant columns cannot be rewritten yet" },
	{ "variantType-preview", RW, 0, 0, { Y, Y, N, N, Y, Y },
	  "variant columns cannot be rewritten yet" },
	{ "variantShredding-preview", RW, 0, 0, { Y, Y, N, N, Y, Y },
	  "shredded variant columns cannot be rewritten yet" },
	{ "allowColumnDefaults", W, 0, 0, { Y, Y, Y, Y, Y, Y },
	  "defaults only apply to inserts" },
	{ "collations", W, 0, 0, { Y, Y, N, N, Y, Y },
	  "collation-aware statistics are not implemented" },
	{ "checkpointProtection", W, 0, 0, { Y, Y, Y, Y, N, N },
	  "checkpoint creation and log cleanup below "
	  "delta.requireCheckpointProtectionBeforeVersion are restricted: not "
	  "implemented" },
	{ "materializePartitionColumns", W, 0, 0, { Y, Y, N, N, Y, Y },
	  "rewrites must write partition columns into data files: not implemented" },
	{ "catalogManaged", RW, 0, 0, { N, N, N, N, N, N },
	  "catalog-managed tables commit through a catalog; the filesystem log "
	  "is not authoritative" },
	{ "catalogOwned-preview", RW, 0, 0, { N, N, N, N, N, N },
	  "catalog-managed tables commit through a catalog" },
	{ NULL, 0, 0, 0, { 0 }, NULL },
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

static int check_feature(const char *name, const char *list, delta_op op)
{
	const delta_feature_support *f = delta_feature_lookup(name);
	if (!f)
		return loom_err(LOOM_EUNSUPPORTED, LOOM_ERRCLASS_DELTA,
		                "table feature \"%s\" (%s) is unknown to loom: %s refused",
		                name, list, delta_op_name(op));
	if (!f->allowed[op])
		return loom_err(LOOM_EUNSUPPORTED, LOOM_ERRCLASS_DELTA,
		                "table feature \"%s\" does not allow loom to %s this table%s%s",
		                name, delta_op_name(op), f->note ? ": " : "",
		                f->note ? f->note : "");
	return 0;
}

int delta_protocol_check(const delta_protocol *p, delta_op op)
{
	const delta_feature_support *f;
	uint32_t i;

	if ((unsigned)op >= DELTA_OP_COUNT)
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_DELTA, "unknown operation %d", (int)op);
	if (p->min_reader_version < 1 || p->min_reader_version > DELTA_MAX_READER_VERSION)
		return loom_err(LOOM_EUNSUPPORTED, LOOM_ERRCLASS_DELTA,
		                "reader version %d is not supported (loom reads up to %d): "
		                "%s refused", p->min_reader_version, DELTA_MAX_READER_VERSION,
		                delta_op_name(op));
	/* reader features (needed by every op) */
	if (p->min_reader_version == 3) {
		for (i = 0; i < p->num_reader_features; i++)
			LOOM_TRY(check_feature(p->reader_features[i], "reader feature", op));
	} else {
		for (f = delta_feature_table; f->name; f++)
			if (f->legacy_reader && p->min_reader_version >= f->legacy_reader)
				LOOM_TRY(check_feature(f->name, "implied by reader version", op));
	}
	if (op == DELTA_OP_READ)
		return 0;
	if (p->min_writer_version < 1 || p->min_writer_version > DELTA_MAX_WRITER_VERSION)
		return loom_err(LOOM_EUNSUPPORTED, LOOM_ERRCLASS_DELTA,
		                "writer version %d is not supported (loom writes up to %d): "
		                "%s refused", p->min_writer_version, DELTA_MAX_WRITER_VERSION,
		                delta_op_name(op));
	if (p->min_writer_version == 7) {
		for (i = 0; i < p->num_writer_features; i++)
			LOOM_TRY(check_feature(p->writer_features[i], "writer feature", op));
	} else {
		for (f = delta_feature_table; f->name; f++)
			if (f->legacy_writer && p->min_writer_version >= f->legacy_writer)
				LOOM_TRY(check_feature(f->name, "implied by writer version", op));
	}
	return 0;
}
