/* Protocol gating: legacy versions, named features, unknown features, and
 * one decision per (feature, operation). */
#include <string.h>

#include "delta/protocol.h"
#include "test.h"

static delta_protocol proto(int r, int w, const char **rf, uint32_t nr, const char **wf,
                            uint32_t nw)
{
	delta_protocol p;
	memset(&p, 0, sizeof(p));
	p.min_reader_version = r;
	p.min_writer_version = w;
	p.reader_features = rf;
	p.num_reader_features = nr;
	p.writer_features = wf;
	p.num_writer_features = nw;
	return p;
}

static int msg_has(const char *s)
{
	return loom_error_last() && strstr(loom_error_last()->message, s) != NULL;
}

TEST(legacy_versions)
{
	delta_protocol p = proto(1, 2, NULL, 0, NULL, 0);
	int op;
	for (op = 0; op < DELTA_OP_COUNT; op++)
		CHECK_OK(delta_protocol_check(&p, (delta_op)op));
	p = proto(2, 5, NULL, 0, NULL, 0);   /* column mapping */
	CHECK_OK(delta_protocol_check(&p, DELTA_OP_READ));
	CHECK_OK(delta_protocol_check(&p, DELTA_OP_VACUUM));
	CHECK(delta_protocol_has_feature(&p, "columnMapping"));
	CHECK(delta_protocol_has_feature(&p, "changeDataFeed"));
	CHECK(!delta_protocol_has_feature(&p, "identityColumns"));
	p = proto(4, 7, NULL, 0, NULL, 0);
	CHECK_ERR(delta_protocol_check(&p, DELTA_OP_READ), LOOM_EUNSUPPORTED);
	CHECK(msg_has("reader version 4"));
	p = proto(1, 8, NULL, 0, NULL, 0);
	CHECK_OK(delta_protocol_check(&p, DELTA_OP_READ));
	CHECK_ERR(delta_protocol_check(&p, DELTA_OP_VACUUM), LOOM_EUNSUPPORTED);
	CHECK(msg_has("writer version 8"));
	CHECK(msg_has("vacuum"));
}

TEST(named_features)
{
	const char *dv[] = { "deletionVectors" };
	const char *wdv[] = { "deletionVectors", "appendOnly", "invariants" };
	delta_protocol p = proto(3, 7, dv, 1, wdv, 3);
	int op;
	for (op = 0; op < DELTA_OP_COUNT; op++)
		CHECK_OK(delta_protocol_check(&p, (delta_op)op));
	CHECK(delta_protocol_has_feature(&p, "appendOnly"));
	CHECK(!delta_protocol_has_feature(&p, "checkConstraints"));
}

TEST(unknown_features_are_refused_for_the_right_ops)
{
	const char *rf[] = { "deletionVectors", "quantumStorage" };
	const char *wf[] = { "deletionVectors", "quantumStorage" };
	const char *wonly[] = { "futureWriterThing" };
	delta_protocol p = proto(3, 7, rf, 2, wf, 2);
	CHECK_ERR(delta_protocol_check(&p, DELTA_OP_READ), LOOM_EUNSUPPORTED);
	CHECK(msg_has("quantumStorage"));
	CHECK(msg_has("unknown"));
	/* an unknown writer-only feature does not stop reading, but every write */
	p = proto(1, 7, NULL, 0, wonly, 1);
	CHECK_OK(delta_protocol_check(&p, DELTA_OP_READ));
	CHECK_ERR(delta_protocol_check(&p, DELTA_OP_VACUUM), LOOM_EUNSUPPORTED);
	CHECK(msg_has("futureWriterThing"));
	CHECK_ERR(delta_protocol_check(&p, DELTA_OP_CHECKPOINT), LOOM_EUNSUPPORTED);
}

TEST(feature_decisions)
{
	const char *rt[] = { "rowTracking", "domainMetadata" };
	const char *ict[] = { "inCommitTimestamp" };
	const char *cl[] = { "clustering", "domainMetadata" };
	const char *lq[] = { "domainMetadata", "deletionVectors", "rowTracking", "liquid" };
	const char *dv[] = { "deletionVectors" };
	const char *cm[] = { "catalogManaged" };
	const char *v2[] = { "v2Checkpoint" };
	const char *cp[] = { "checkpointProtection", "vacuumProtocolCheck" };
	const char *vpc[] = { "vacuumProtocolCheck" };
	const char *vpc_unknown[] = { "vacuumProtocolCheck", "futureWriterThing" };
	delta_protocol p = proto(1, 7, NULL, 0, rt, 2);
	CHECK_OK(delta_protocol_check(&p, DELTA_OP_VACUUM));
	CHECK_OK(delta_protocol_check(&p, DELTA_OP_CHECKPOINT));
	CHECK_OK(delta_protocol_check(&p, DELTA_OP_LOG_CLEANUP));
	/* rewrites preserve row ids (ops/pipeline/pipe_read.c, ops/optimize/optimize.c) */
	CHECK_OK(delta_protocol_check(&p, DELTA_OP_COMPACT));
	CHECK_OK(delta_protocol_check(&p, DELTA_OP_ZORDER));
	p = proto(1, 7, NULL, 0, ict, 1);
	CHECK_OK(delta_protocol_check(&p, DELTA_OP_VACUUM));
	CHECK_OK(delta_protocol_check(&p, DELTA_OP_CHECKPOINT));
	CHECK_OK(delta_protocol_check(&p, DELTA_OP_COMPACT));
	CHECK_OK(delta_protocol_check(&p, DELTA_OP_ZORDER));
	CHECK_OK(delta_protocol_check(&p, DELTA_OP_LOG_CLEANUP));
	p = proto(1, 7, NULL, 0, cl, 2);
	CHECK_OK(delta_protocol_check(&p, DELTA_OP_VACUUM));
	CHECK_OK(delta_protocol_check(&p, DELTA_OP_CHECKPOINT));
	/* compaction clusters (ops/compact/cluster.c); Z-order is refused for good */
	CHECK_OK(delta_protocol_check(&p, DELTA_OP_COMPACT));
	CHECK_ERR(delta_protocol_check(&p, DELTA_OP_ZORDER), LOOM_EUNSUPPORTED);
	CHECK(msg_has("clustering"));
	CHECK(msg_has("Clustered Table"));
	CHECK(msg_has("does not allow"));
	CHECK(msg_has("loom compact"));
	/* the preview name behaves like clustering, with row tracking and
	 * deletion vectors beside it (the fixture's protocol) */
	p = proto(3, 7, dv, 1, lq, 4);
	CHECK_OK(delta_protocol_check(&p, DELTA_OP_READ));
	CHECK_OK(delta_protocol_check(&p, DELTA_OP_VACUUM));
	CHECK_OK(delta_protocol_check(&p, DELTA_OP_LOG_CLEANUP));
	CHECK_ERR(delta_protocol_check(&p, DELTA_OP_ZORDER), LOOM_EUNSUPPORTED);
	CHECK(msg_has("liquid"));
	CHECK(!msg_has("rowTracking"));
	CHECK_OK(delta_protocol_check(&p, DELTA_OP_COMPACT));
	p = proto(3, 7, cm, 1, cm, 1);
	CHECK_ERR(delta_protocol_check(&p, DELTA_OP_READ), LOOM_EUNSUPPORTED);
	CHECK(msg_has("catalogManaged"));
	p = proto(3, 7, v2, 1, v2, 1);
	CHECK_OK(delta_protocol_check(&p, DELTA_OP_READ));
	CHECK_OK(delta_protocol_check(&p, DELTA_OP_VACUUM));
	CHECK_OK(delta_protocol_check(&p, DELTA_OP_CHECKPOINT));
	CHECK_OK(delta_protocol_check(&p, DELTA_OP_LOG_CLEANUP));
	p = proto(3, 7, vpc, 1, cp, 2);
	CHECK_OK(delta_protocol_check(&p, DELTA_OP_CHECKPOINT));
	CHECK_OK(delta_protocol_check(&p, DELTA_OP_LOG_CLEANUP));
	CHECK_OK(delta_protocol_check(&p, DELTA_OP_VACUUM));
	/* vacuumProtocolCheck: vacuum checks the whole write protocol, so an
	 * unknown writer feature stops it although reading is fine */
	p = proto(3, 7, vpc, 1, vpc_unknown, 2);
	CHECK_OK(delta_protocol_check(&p, DELTA_OP_READ));
	CHECK_ERR(delta_protocol_check(&p, DELTA_OP_VACUUM), LOOM_EUNSUPPORTED);
	CHECK(msg_has("futureWriterThing"));
}

TEST(table_is_complete_and_consistent)
{
	/* every feature named in PROTOCOL.md and the brief has an entry */
	static const char *const names[] = {
		"appendOnly", "invariants", "checkConstraints", "changeDataFeed",
		"generatedColumns", "columnMapping", "identityColumns", "deletionVectors",
		"rowTracking", "timestampNtz", "domainMetadata", "v2Checkpoint",
		"icebergCompatV1", "icebergCompatV2", "clustering", "vacuumProtocolCheck",
		"typeWidening", "typeWidening-preview", "inCommitTimestamp", "variantType",
		"variantType-preview", "allowColumnDefaults", "collations", "catalogManaged",
		"checkpointProtection", "liquid",
	};
	const delta_feature_support *f;
	size_t i;
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!delta_feature_lookup(names[i]))
			TEST_FAIL_AT("feature %s missing from the table", names[i]);
	for (f = delta_feature_table; f->name; f++) {
		/* an op loom refuses must say why, for good or for now */
		int op;
		for (op = 0; op < DELTA_OP_COUNT; op++) {
			CHECK(f->allowed[op] == DELTA_REFUSE || f->allowed[op] == DELTA_ALLOW ||
			      f->allowed[op] == DELTA_NOT_YET);
			if (f->allowed[op] == DELTA_REFUSE && !f->note)
				TEST_FAIL_AT("feature %s refuses an op without a note", f->name);
			if (f->allowed[op] == DELTA_NOT_YET && !f->todo)
				TEST_FAIL_AT("feature %s defers an op without a todo", f->name);
		}
		/* no writing where loom cannot even read */
		if (f->allowed[DELTA_OP_READ] != DELTA_ALLOW)
			for (op = 0; op < DELTA_OP_COUNT; op++)
				CHECK(f->allowed[op] != DELTA_ALLOW);
	}
	CHECK(delta_feature_lookup("noSuchFeature") == NULL);
	CHECK_STR(delta_op_name(DELTA_OP_LOG_CLEANUP), "log-cleanup");
}

int main(void)
{
	RUN(legacy_versions);
	RUN(named_features);
	RUN(unknown_features_are_refused_for_the_right_ops);
	RUN(feature_decisions);
	RUN(table_is_complete_and_consistent);
	return test_summary();
}
