/* System domains (delta/domains.c): the clustering columns in the three
 * forms seen in the wild, the row tracking high-water mark, what is not
 * understood (a warning, never an error), and the clustering columns'
 * logical paths resolved through the schema (column mapping, nested
 * fields, physical names holding dots, columns the schema lacks). */
#include <string.h>

#include "delta/actions.h"
#include "delta/domains.h"
#include "delta/schema.h"
#include "test.h"

static int parse(loom_arena *a, const char *clustering_domain, const char *clustering,
                 const char *row_tracking, delta_table_domains *out, const char **warning)
{
	delta_domain d[2];
	size_t n = 0;
	memset(d, 0, sizeof(d));
	if (clustering) {
		d[n].domain = clustering_domain;
		d[n++].configuration = clustering;
	}
	if (row_tracking) {
		d[n].domain = "delta.rowTracking";
		d[n++].configuration = row_tracking;
	}
	return delta_domains_parse(a, d, n, out, warning);
}

TEST(forms)
{
	loom_arena a;
	delta_table_domains t;
	const char *w;
	loom_arena_init(&a, 4096);
	/* Delta Spark: paths of physical names */
	CHECK_OK(parse(&a, "delta.clustering", "{\"clusteringColumns\":[[\"a\"],[\"s\",\"x\"]]}",
	               "{\"rowIdHighWaterMark\":9,\"domainName\":\"delta.rowTracking\"}", &t, &w));
	CHECK(w == NULL);
	REQUIRE(t.num_clustering_columns == 2);
	CHECK_STR(t.clustering_columns[0], "a");
	CHECK_STR(t.clustering_columns[1], "s.x");
	CHECK(t.clustering_columns[2] == NULL);
	CHECK_STR(t.clustering_domain, "delta.clustering");
	CHECK_INT(t.row_id_high_water_mark, 9);
	/* PROTOCOL.md's example: plain names */
	CHECK_OK(parse(&a, "delta.clustering", "{\"clusteringColumns\":[\"col-1\",\"col-2\"]}", NULL, &t, &w));
	REQUIRE(t.num_clustering_columns == 2);
	CHECK_STR(t.clustering_columns[1], "col-2");
	CHECK_INT(t.row_id_high_water_mark, -1);
	/* the Databricks preview */
	CHECK_OK(parse(&a, "delta.liquid", "{\"clusteringColumns\":[{\"physicalName\":[\"id\"]}]}", NULL,
	               &t, &w));
	REQUIRE(t.num_clustering_columns == 1);
	CHECK_STR(t.clustering_columns[0], "id");
	CHECK_STR(t.clustering_domain, "delta.liquid");
	/* CLUSTER BY NONE: an empty list, still a clustering domain */
	CHECK_OK(parse(&a, "delta.clustering", "{\"clusteringColumns\":[]}", NULL, &t, &w));
	CHECK(t.clustering_columns != NULL);
	CHECK_INT(t.num_clustering_columns, 0);
	/* not understood: a warning naming the domain, no columns */
	CHECK_OK(parse(&a, "delta.clustering", "{\"clusteringColumns\":[7]}", "{}", &t, &w));
	CHECK(t.clustering_columns == NULL);
	REQUIRE(w != NULL);
	CHECK(strstr(w, "delta.clustering") != NULL);
	CHECK_OK(parse(&a, "delta.clustering", "not json", NULL, &t, &w));
	CHECK(t.clustering_columns == NULL && w != NULL);
	CHECK_OK(parse(&a, "delta.clustering", NULL, "{\"rowIdHighWaterMark\":\"9\"}", &t, &w));
	CHECK_INT(t.row_id_high_water_mark, -1);
	REQUIRE(w != NULL);
	CHECK(strstr(w, "rowIdHighWaterMark") != NULL);
	loom_arena_dispose(&a);
}

TEST(logical_paths)
{
	static const char schema_json[] =
		"{\"type\":\"struct\",\"fields\":["
		"{\"name\":\"id\",\"type\":\"long\",\"nullable\":true,\"metadata\":"
		"{\"delta.columnMapping.id\":1,\"delta.columnMapping.physicalName\":\"col-1\"}},"
		"{\"name\":\"s\",\"type\":{\"type\":\"struct\",\"fields\":["
		"{\"name\":\"x\",\"type\":\"integer\",\"nullable\":true,\"metadata\":"
		"{\"delta.columnMapping.id\":3,\"delta.columnMapping.physicalName\":\"col-3\"}}]},"
		"\"nullable\":true,\"metadata\":"
		"{\"delta.columnMapping.id\":2,\"delta.columnMapping.physicalName\":\"col.2\"}}]}";
	loom_arena a;
	delta_schema schema;
	delta_table_domains t;
	const char *w;
	loom_arena_init(&a, 4096);
	REQUIRE(delta_schema_parse(&a, schema_json, strlen(schema_json), &schema) == 0);
	/* column mapping: physical names, one of them holding a dot */
	CHECK_OK(parse(&a, "delta.clustering",
	               "{\"clusteringColumns\":[[\"col-1\"],[\"col.2\",\"col-3\"],[\"gone\"],[\"col.2\"]]}",
	               NULL, &t, &w));
	CHECK_OK(delta_domains_resolve_logical(&a, &t, &schema, 1));
	REQUIRE(t.clustering_logical != NULL);
	CHECK_STR(t.clustering_logical[0], "id");
	CHECK_STR(t.clustering_logical[1], "s.x");
	CHECK(t.clustering_logical[2] == NULL);
	CHECK_STR(t.clustering_logical[3], "s");
	/* without column mapping the names are the logical ones */
	CHECK_OK(parse(&a, "delta.clustering", "{\"clusteringColumns\":[[\"s\",\"x\"],[\"col-1\"]]}", NULL,
	               &t, &w));
	CHECK_OK(delta_domains_resolve_logical(&a, &t, &schema, 0));
	CHECK_STR(t.clustering_logical[0], "s.x");
	CHECK(t.clustering_logical[1] == NULL);
	/* no clustering domain: nothing to resolve */
	CHECK_OK(parse(&a, "delta.clustering", NULL, NULL, &t, &w));
	CHECK_OK(delta_domains_resolve_logical(&a, &t, &schema, 1));
	CHECK(t.clustering_logical == NULL);
	loom_arena_dispose(&a);
}

int main(void)
{
	RUN(forms);
	RUN(logical_paths);
	return test_summary();
}
